import assert from 'node:assert/strict';
import { test } from 'node:test';

import { forgetGame, forgetRematchKey, hasProgress, loadGame, rematchKeyFor, rememberRematchKey, rememberSeat, roomFromPath, safeStorage, saveGame, seatFor } from '../../static/js/storage.js';

function memoryStorage() {
  const map = new Map();
  return {
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => map.set(k, String(v)),
    removeItem: (k) => map.delete(k),
    map,
  };
}

const throwing = {
  getItem() {
    throw new Error('SecurityError');
  },
  setItem() {
    throw new Error('QuotaExceededError');
  },
  removeItem() {
    throw new Error('SecurityError');
  },
};

test('a saved game comes back, per mode', () => {
  const s = safeStorage(memoryStorage);
  assert.equal(s.ok, true);
  const record = JSON.stringify({ start: 'x', actions: ['d6'] });
  assert.equal(saveGame(s, 'local', record), true);
  assert.equal(loadGame(s, 'local'), record);
  assert.equal(loadGame(s, 'computer'), null);
  assert.equal(hasProgress(s, 'local'), true);
  forgetGame(s, 'local');
  assert.equal(loadGame(s, 'local'), null);
});

test('a damaged save is ignored', () => {
  const backing = memoryStorage();
  const s = safeStorage(() => backing);
  for (const bad of ['{', '[]', '{"start":1,"actions":[]}', '{"start":"x"}', 'null']) {
    backing.setItem('mill.game.local', bad);
    assert.equal(loadGame(s, 'local'), null, bad);
  }
});

test('storage that throws or is missing never breaks the page', () => {
  for (const get of [() => throwing, () => { throw new Error('no localStorage'); }, () => undefined]) {
    const s = safeStorage(get);
    assert.equal(s.ok, false);
    assert.equal(saveGame(s, 'local', '{}'), false);
    assert.equal(loadGame(s, 'local'), null);
    forgetGame(s, 'local');
    assert.equal(seatFor(s, 'room1'), null);
  }
});

test('seat keys are kept per room', () => {
  const s = safeStorage(memoryStorage);
  rememberSeat(s, 'abc', { seat: 'dark', key: 'k'.repeat(64) });
  assert.deepEqual(seatFor(s, 'abc'), { seat: 'dark', key: 'k'.repeat(64) });
  assert.equal(seatFor(s, 'other'), null);
});

test('the room id comes from the invite path only', () => {
  assert.equal(roomFromPath('/r/k7q2mx9rd4tf'), 'k7q2mx9rd4tf');
  assert.equal(roomFromPath('/r/k7q2mx9rd4tf/'), 'k7q2mx9rd4tf');
  for (const p of ['/', '/r/', '/rules', '/r/a/b', '/r/../x', '/r/a%20b']) assert.equal(roomFromPath(p), null, p);
});

test("a rematch's key is kept per room for its round until the new room is known", () => {
  const backing = memoryStorage();
  const s = safeStorage(() => backing);
  assert.equal(rematchKeyFor(s, 'room1', 1), null);
  rememberRematchKey(s, 'room1', 1, 'k'.repeat(64));
  assert.equal(rematchKeyFor(s, 'room1', 1), 'k'.repeat(64));
  assert.equal(rematchKeyFor(s, 'room1', 2), null, 'another round is another rematch');
  assert.equal(rematchKeyFor(s, 'room2', 1), null);
  backing.setItem('mill.rematch.room2', '{');
  assert.equal(rematchKeyFor(s, 'room2', 1), null, 'damaged: ignored');
  forgetRematchKey(s, 'room1');
  assert.equal(rematchKeyFor(s, 'room1', 1), null);
});
