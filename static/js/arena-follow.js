// Owns the game page's side of an arena game (a room the arena paired, named by room
// info's `arena` or by the seat key the arena page kept): a link back to the arena, and,
// for a player holding a seat, the arena socket that hands over their next game — which
// opens here by itself once this one is over, as lichess's arena moves you on.

import { arenaHref, roomHref } from './arena-logic.js';
import { arenaTranslator } from './arena-text.js';
import { $ } from './dom.js';
import { rememberSeat } from './storage.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./page-state.js').OnlineState} OnlineState */

/** How long the finished game stays on screen once the next one is paired. */
const SHOW_RESULT_MS = 3000;

/** @type {{ o: OnlineState, arena: string, ws: WebSocket | null, timer: ReturnType<typeof setInterval>, next: string | null } | null} */
let current = null;

function stop() {
  if (!current) return;
  clearInterval(current.timer);
  current.ws?.close();
  current = null;
}

/**
 * Draws the box: the way back, and once the game is over the promise of the next one.
 * @param {App} app
 */
export function viewArenaFollow(app) {
  const box = $('arena-follow');
  const o = app.page.online;
  if (!current || current.o !== o || app.page.mode !== 'online') {
    box.hidden = true;
    return;
  }
  const t = arenaTranslator(app.page.lang);
  box.hidden = false;
  const back = /** @type {HTMLAnchorElement} */ ($('arena-back'));
  back.href = arenaHref(current.arena);
  back.textContent = t('arena.back');
  const over = !!o?.state?.outcome || !!o?.state?.result;
  $('arena-next').textContent = current.next ? t('arena.paired') : over && current.ws ? t('arena.next') : '';
}

/**
 * Follows the arena of the room `o` shows, or nothing when it is none.
 * @param {App} app @param {OnlineState} o @param {string | null} arena
 */
export function followArena(app, o, arena) {
  stop();
  if (!arena) return viewArenaFollow(app);
  // Leaving the room (another room, the start screen) closes the socket: a player is
  // paired only where they can see it.
  const timer = setInterval(() => {
    if (app.page.online !== o) {
      stop();
      viewArenaFollow(app);
    }
  }, 1000);
  current = { o, arena, ws: null, timer, next: null };
  if (o.seat) {
    const me = current;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/api/arenas/${encodeURIComponent(arena)}/ws?standings=none`);
    me.ws = ws;
    ws.addEventListener('message', (event) => {
      if (current !== me) return;
      let msg;
      try {
        msg = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (msg?.type !== 'paired' || typeof msg.room !== 'string' || typeof msg.key !== 'string' || msg.room === o.roomId) return;
      rememberSeat(app.storage, msg.room, { seat: msg.seat === 'dark' ? 'dark' : 'light', key: msg.key, arena });
      app.page.seats.set(msg.room, { seat: msg.seat === 'dark' ? 'dark' : 'light', key: msg.key, arena });
      me.next = msg.room;
      viewArenaFollow(app);
      setTimeout(() => {
        if (current !== me || app.page.online !== o) return;
        history.pushState(null, '', roomHref(msg.room));
        app.route();
      }, SHOW_RESULT_MS);
    });
  }
  viewArenaFollow(app);
}
