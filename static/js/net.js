// Owns the room's WebSocket: hello on every (re)connect, ping/silence watch, reconnect
// with back-off, and no reconnect after a final close (replaced, bad key, unknown room,
// protocol mismatch, room full: FINAL_CLOSE_CODES). Messages are handed to the caller
// parsed; nothing here knows the game.

import { backoffDelay, FINAL_CLOSE_CODES, PROTOCOL } from './protocol.js';
import { CLIENT_TYPES, CLOSE_CODES, SERVER_TYPES } from './wire.js';

const PING_EVERY = 10_000;
const SILENCE_LIMIT = 30_000;
const PING = JSON.stringify({ type: CLIENT_TYPES.PING });
/** The page's own close code for a server gone silent: never sent by the server, so not the protocol's. */
const SILENT = 4999;

/**
 * connectRoom({ roomId, key, account, onMessage, onConnection }) → { send, close, reconnect }
 * Without a key, `account` asks for the seat bound to the signed-in account (its session
 * cookie goes with the upgrade) instead of watching.
 * onConnection(status, detail): 'connecting' | 'open' | 'reconnecting' | 'closed'.
 */
export function connectRoom({ roomId, key, account = false, onMessage, onConnection, WebSocketImpl = globalThis.WebSocket, location = globalThis.location }) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const url = `${scheme}//${location.host}/api/rooms/${encodeURIComponent(roomId)}/ws`;
  let socket = null;
  let attempt = 0;
  let stopped = false;
  let retryTimer = null;
  let pingTimer = null;
  let lastHeard = 0;

  function open() {
    clearTimeout(retryTimer);
    onConnection(attempt === 0 ? 'connecting' : 'reconnecting');
    const ws = new WebSocketImpl(url);
    socket = ws;
    ws.addEventListener('open', () => {
      if (socket !== ws) return;
      lastHeard = Date.now();
      const hello = { type: CLIENT_TYPES.HELLO, protocol: PROTOCOL };
      ws.send(JSON.stringify(key ? { ...hello, key } : account ? { ...hello, account: true } : hello));
      clearInterval(pingTimer);
      pingTimer = setInterval(() => {
        if (Date.now() - lastHeard > SILENCE_LIMIT) {
          ws.close(SILENT, 'silent');
          onClosed(ws, SILENT);
          return;
        }
        if (ws.readyState === 1) ws.send(PING);
      }, PING_EVERY);
    });
    ws.addEventListener('message', (event) => {
      if (socket !== ws) return;
      lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === SERVER_TYPES.WELCOME) {
        attempt = 0;
        onConnection('open');
      }
      if (msg.type !== SERVER_TYPES.PONG) onMessage(msg);
    });
    ws.addEventListener('close', (event) => onClosed(ws, event.code));
    ws.addEventListener('error', () => {
      // A 'close' event always follows; reconnecting is decided there.
    });
  }

  function onClosed(ws, code) {
    if (socket !== ws) return;
    socket = null;
    clearInterval(pingTimer);
    if (stopped) return;
    if (FINAL_CLOSE_CODES.has(code)) {
      stopped = true;
      onConnection('closed', code);
      return;
    }
    const delay = backoffDelay(attempt);
    attempt += 1;
    onConnection('reconnecting');
    retryTimer = setTimeout(open, delay);
  }

  // Coming back online or to the tab should not wait for a long back-off.
  const nudge = () => {
    if (!stopped && !socket) {
      attempt = Math.min(attempt, 1);
      open();
    }
  };
  const onVisible = () => {
    if (globalThis.document?.visibilityState === 'visible') nudge();
  };
  globalThis.addEventListener?.('online', nudge);
  globalThis.document?.addEventListener?.('visibilitychange', onVisible);

  open();

  return {
    send(msg) {
      if (socket && socket.readyState === 1) {
        socket.send(JSON.stringify(msg));
        return true;
      }
      return false;
    },
    close() {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(pingTimer);
      globalThis.removeEventListener?.('online', nudge);
      globalThis.document?.removeEventListener?.('visibilitychange', onVisible);
      socket?.close(CLOSE_CODES.NORMAL);
      socket = null;
    },
    /** Reconnect now (after "replaced", when the person chooses to play in this tab). */
    reconnect() {
      stopped = false;
      attempt = 0;
      socket?.close(CLOSE_CODES.NORMAL);
      socket = null;
      open();
    },
  };
}
