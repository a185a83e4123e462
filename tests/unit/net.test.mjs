import assert from 'node:assert/strict';
import { mock, test } from 'node:test';

import { connectRoom } from '../../static/js/net.js';
import { FINAL_CLOSE_CODES } from '../../static/js/protocol.js';
import { CLOSE_CODES, FINAL_CLOSE_CODES as WIRE_FINAL } from '../../static/js/wire.js';

/** A WebSocket stand-in: records what is sent and lets the test open, answer and close it. */
function fakeSockets() {
  const made = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      this.listeners = {};
      made.push(this);
    }
    addEventListener(type, fn) {
      (this.listeners[type] ??= []).push(fn);
    }
    emit(type, event = {}) {
      for (const fn of this.listeners[type] ?? []) fn(event);
    }
    send(text) {
      this.sent.push(JSON.parse(text));
    }
    close() {
      this.readyState = 3;
    }
    // Test controls.
    open() {
      this.readyState = 1;
      this.emit('open');
    }
    receive(msg) {
      this.emit('message', { data: JSON.stringify(msg) });
    }
    drop(code) {
      this.readyState = 3;
      this.emit('close', { code });
    }
  }
  return { FakeSocket, made };
}

function connect(key = 'k'.repeat(64)) {
  const { FakeSocket, made } = fakeSockets();
  const seen = { messages: [], connection: [] };
  const conn = connectRoom({
    roomId: 'room1',
    key,
    onMessage: (m) => seen.messages.push(m),
    onConnection: (s, code) => seen.connection.push(code ? `${s}:${code}` : s),
    WebSocketImpl: FakeSocket,
    location: { protocol: 'https:', host: 'mill.example' },
  });
  return { conn, made, seen };
}

test('says hello with the seat key and reports open on welcome', () => {
  const { conn, made, seen } = connect();
  assert.equal(made.length, 1);
  assert.equal(made[0].url, 'wss://mill.example/api/rooms/room1/ws');
  made[0].open();
  assert.deepEqual(made[0].sent, [{ type: 'hello', protocol: 1, key: 'k'.repeat(64) }]);
  made[0].receive({ type: 'welcome', protocol: 1, room: 'room1', seat: 'dark' });
  made[0].receive({ type: 'pong' });
  assert.deepEqual(seen.connection, ['connecting', 'open']);
  assert.deepEqual(seen.messages.map((m) => m.type), ['welcome']);
  assert.equal(conn.send({ type: 'sync' }), true);
  conn.close();
});

test('a spectator says hello without a key', () => {
  const { conn, made } = connect(null);
  made[0].open();
  assert.deepEqual(made[0].sent, [{ type: 'hello', protocol: 1 }]);
  conn.close();
});

test('a dropped socket is reopened after a back-off, and hello is said again', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const { conn, made, seen } = connect();
    made[0].open();
    made[0].receive({ type: 'welcome', seat: 'light' });
    made[0].drop(1006);
    assert.equal(conn.send({ type: 'sync' }), false, 'sent on a closed socket');
    assert.equal(made.length, 1, 'reconnected without waiting');
    mock.timers.tick(11_500);
    assert.equal(made.length, 2);
    made[1].open();
    assert.equal(made[1].sent[0].type, 'hello');
    // A second drop before any welcome waits longer, but not forever.
    made[1].drop(1001);
    mock.timers.tick(11_500);
    assert.equal(made.length, 3);
    assert.deepEqual(seen.connection.slice(0, 3), ['connecting', 'open', 'reconnecting']);
    conn.close();
  } finally {
    mock.timers.reset();
  }
});

test('a silent socket is given up and reopened', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
  try {
    const { conn, made } = connect();
    made[0].open();
    made[0].receive({ type: 'welcome', seat: 'light' });
    mock.timers.tick(10_000);
    assert.deepEqual(made[0].sent.at(-1), { type: 'ping' });
    mock.timers.tick(30_000); // nothing heard for 40 s
    mock.timers.tick(11_500);
    assert.equal(made.length, 2, 'the silent socket was not replaced');
    conn.close();
  } finally {
    mock.timers.reset();
  }
});

test('replaced, bad key, unknown room and protocol mismatch are final: no reconnect', () => {
  for (const code of [4000, 4001, 4003, 4004]) {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    try {
      const { made, seen } = connect();
      made[0].open();
      made[0].drop(code);
      mock.timers.tick(60_000);
      assert.equal(made.length, 1, `reconnected after ${code}`);
      assert.equal(seen.connection.at(-1), `closed:${code}`);
    } finally {
      mock.timers.reset();
    }
  }
});

test('a spectator refused from a full room (4009) does not knock again and again', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const { made, seen } = connect(null);
    made[0].open();
    made[0].receive({ type: 'error', id: null, code: 'room-full', message: 'This room already has 16 spectators.' });
    made[0].drop(4009);
    mock.timers.tick(60_000);
    assert.equal(made.length, 1, 'reconnected after 4009');
    assert.equal(seen.connection.at(-1), 'closed:4009');
  } finally {
    mock.timers.reset();
  }
});

test('the final close codes are the generated protocol\'s, and going-away is not one', () => {
  assert.deepEqual([...FINAL_CLOSE_CODES].sort(), [...WIRE_FINAL].sort());
  for (const code of [CLOSE_CODES.REPLACED, CLOSE_CODES.ROOM_FULL, CLOSE_CODES.UNKNOWN_ROOM]) assert.ok(FINAL_CLOSE_CODES.has(code), `${code}`);
  assert.ok(!FINAL_CLOSE_CODES.has(CLOSE_CODES.GOING_AWAY));
});

test('reconnect() takes the seat back after being replaced', () => {
  const { conn, made } = connect();
  made[0].open();
  made[0].drop(4000);
  conn.reconnect();
  assert.equal(made.length, 2);
  made[1].open();
  assert.equal(made[1].sent[0].type, 'hello');
  conn.close();
});
