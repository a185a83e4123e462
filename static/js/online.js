// Owns "Play with a friend": creating and joining a room over HTTP, the room's socket,
// one small handler per server message type, and the online controls (draw, takeback,
// resign, new round, "Play here", the invite link). The wire format is protocol.js's; the socket net.js's.

import { followArena } from './arena-follow.js';
import { blankSnapshot } from './board.js';
import { serverOffset } from './clock.js';
import { clockRequest, viewClockError } from './clock-view.js';
import { $, $button, $input } from './dom.js';
import { fetchMyGames, holdsRoom } from './my-games-logic.js';
import { connectRoom } from './net.js';
import { command, commandIds, newSeatKey, onlineView, rematchChange, snapshotFromState } from './protocol.js';
import { DEFAULT_RULES, localGame } from './rules.js';
import { seekAgain } from './lobby.js';
import { createOnlineState } from './page-state.js';
import { reviewLink } from './review-links.js';
import { forgetRematchKey, forgetSeat, rematchKeyFor, rememberRematchKey, rememberSeat, seatFor } from './storage.js';
import { chosenRules, rulesOfPosition } from './variant.js';
import { CLIENT_TYPES, CLOSE_CODES, ERROR_CODES, SERVER_TYPES } from './wire.js';

// The game page's redraw draws an arena game's box too (main.js, once this part has loaded).
export { viewArenaFollow } from './arena-follow.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./page-state.js').OnlineState} OnlineState */
/** @typedef {import('./page-state.js').Connection} Connection */
/** @typedef {import('./storage.js').SeatKey} SeatKey */

/** The rule set whose board is mounted for the room being shown. */
let boardRules = DEFAULT_RULES;

const JSON_POST = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };

/** @param {unknown} error */
const messageOf = (error) => String(/** @type {Error} */ (error)?.message ?? error);

/**
 * "Play with a friend" on the start screen: a new room, this page in its first seat; its
 * rules and clock those chosen on the start screen, or `settings` (the lobby's "Invite a
 * friend" after a search nobody came to).
 * @param {App} app @param {{ variant: string, clock: import('./clock.js').TimeControl | null } | null} [settings]
 */
export async function createRoom(app, settings = null) {
  const { page } = app;
  const button = $button('start-friend');
  button.disabled = true;
  app.setNotice('online.creating');
  try {
    // The room plays the variant and options chosen on the start screen, on its clock.
    const timed = settings ? { body: settings.clock ? { clock: settings.clock } : {} } : clockRequest();
    // A wrong custom time is said where it was typed; nothing is sent.
    if (timed.error) {
      app.setNotice(null);
      viewClockError(page, { focus: true });
      return;
    }
    const variant = settings?.variant ?? chosenRules(app.storage);
    const res = await fetch('/api/rooms', { ...JSON_POST, body: JSON.stringify({ variant, ...timed.body }) });
    const body = await res.json().catch(() => ({}));
    // A time outside the server's bounds is said in the page's words (the server's are English).
    if (!res.ok && body.code === ERROR_CODES.BAD_CLOCK) {
      app.setNotice('clock.bad');
      return;
    }
    if (!res.ok) {
      app.setNotice(null, page.t('online.error', { message: body.message ?? res.status }));
      return;
    }
    keepSeat(app, body.room, { seat: body.seat, key: body.key });
    history.pushState(null, '', `/r/${body.room}`);
    await app.route();
  } catch (error) {
    app.setNotice(null, page.t('online.error', { message: messageOf(error) }));
  } finally {
    button.disabled = false;
  }
}

/** @param {App} app @param {string} roomId @param {SeatKey} seat */
function keepSeat(app, roomId, seat) {
  app.page.seats.set(roomId, seat);
  rememberSeat(app.storage, roomId, seat);
}

/** Rooms whose seat the account was refused on this page (4012): not asked again. */
const refusedByAccount = new Set();

/**
 * Opens /r/<roomId>: the seat this browser holds, else the signed-in account's seat,
 * else a free seat, else watching.
 * @param {App} app @param {string} roomId
 */
export async function openRoom(app, roomId) {
  const { page, storage } = app;
  const mod = await app.rules();
  if (!mod) return;
  const fresh = localGame(mod);
  // The board of the room's variant (room info says which), before its state arrives.
  const info = await fetch(`/api/rooms/${encodeURIComponent(roomId)}`)
    .then((res) => (res.ok ? res.json() : null))
    .catch(() => null);
  if (typeof info?.variant === 'string') fresh.startRules(info.variant);
  boardRules = fresh.rulesName();
  app.ensureBoard(fresh.topology);
  page.mode = 'online';
  page.online = createOnlineState(roomId);
  // Not the previous game's pieces while the room's state is on its way.
  page.snapshot = blankSnapshot(fresh.snapshot());
  page.board.set(page.snapshot);
  app.showScreen('game');
  app.render();
  let seat = page.seats.get(roomId) ?? seatFor(storage, roomId);
  // Both seats taken (room info says so): watch without asking to join, whose refusal
  // (409) the browser would log as an error on every spectator's visit.
  const full = !!info?.seats?.light?.taken && !!info?.seats?.dark?.taken;
  // No key here, but signed in as one of the room's players (its seat is bound to the
  // account, docs/PROTOCOL.md "Your games on another device"): hello by the account,
  // never joining the other seat.
  const byAccount = !seat && !refusedByAccount.has(roomId) && holdsRoom(await fetchMyGames(), roomId);
  if (!seat && !full && !byAccount) {
    try {
      const res = await fetch(`/api/rooms/${encodeURIComponent(roomId)}/join`, JSON_POST);
      const body = await res.json().catch(() => ({}));
      if (res.ok) {
        seat = { seat: body.seat, key: body.key };
        keepSeat(app, roomId, seat);
      } else if (res.status === 404) {
        page.online.gone = 'online.roomGone';
        app.render();
        return;
      } else if (res.status === 409) {
        // Both seats are taken: watch (the status and the seat note say so).
      } else {
        app.setNotice(null, page.t('online.error', { message: body.message ?? res.status }));
      }
    } catch (error) {
      app.setNotice(null, page.t('online.error', { message: messageOf(error) }));
    }
  }
  if (page.online?.roomId !== roomId) return; // left meanwhile
  const o = page.online;
  o.seat = seat?.seat ?? null;
  o.key = seat?.key ?? null;
  o.paired = seat?.paired ?? null;
  o.ids = commandIds();
  // An arena's game: the way back, and the player's next game (arena-follow.js).
  followArena(app, o, seat?.arena ?? (typeof info?.arena === 'string' ? info.arena : null));
  o.conn = connectRoom({
    roomId,
    key: o.key,
    account: byAccount,
    onMessage: (msg) => {
      if (page.online !== o) return;
      if (Object.hasOwn(HANDLERS, msg.type)) HANDLERS[msg.type](app, o, msg);
      app.render();
    },
    onConnection: (status, code) => onConnection(app, o, status, code),
  });
}

/**
 * The server's messages, one handler each; `pong` and unknown types show nothing.
 * @type {Record<string, (app: App, o: OnlineState, msg: any) => void>}
 */
const HANDLERS = {
  [SERVER_TYPES.ACK](_app, o, msg) {
    if (o.rematchSent && msg.id === o.rematchSent.id) o.rematchSent = null;
  },
  [SERVER_TYPES.WELCOME](_app, o, msg) {
    o.seat = msg.seat;
    o.replaced = false;
    // The state held from before the reconnect may be old: wait for the fresh one.
    o.fresh = false;
  },
  [SERVER_TYPES.STATE](app, o, msg) {
    // A new round: the notes of the last one (a copied record, a refusal) are gone.
    if (o.state && o.state.round !== msg.round) {
      $('record-copied').textContent = '';
      app.setNotice(null);
    }
    const before = o.state;
    o.state = msg;
    noteRematch(app, o, before, msg);
    fetchPastRounds(app, o, msg.round);
    o.fresh = true;
    if (msg.clock) {
      o.clockOffset = serverOffset(msg.clock, Date.now());
      o.clockTimes.set(`${msg.round}:${msg.version}`, { light: msg.clock.light, dark: msg.clock.dark });
    }
    app.page.snapshot = snapshotFromState(msg);
    ensureRoomBoard(app, rulesOfPosition(app.page.snapshot.position));
    app.page.board.set(app.page.snapshot);
  },
  [SERVER_TYPES.REPLACED](_app, o) {
    o.replaced = true;
  },
  [SERVER_TYPES.ERROR](app, o, msg) {
    // This page's rematch offer refused: `stale` (it crossed the opponent's write on
    // another instance) is sent again once the state that follows shows the room as it is.
    if (o.rematchSent && msg.id === o.rematchSent.id) {
      if (msg.code === ERROR_CODES.STALE) o.rematchSent.stale = true;
      else o.rematchSent = null;
    }
    if (msg.code === ERROR_CODES.BAD_KEY) {
      forgetSeat(app.storage, o.roomId);
      app.page.seats.delete(o.roomId);
    }
    if (msg.code === ERROR_CODES.UNKNOWN_ROOM) o.gone = 'online.roomGone';
    else if (msg.code !== ERROR_CODES.STALE) app.setNotice(null, app.page.t('online.error', { message: msg.message }));
  },
};

/**
 * A rematch between two states: an offer that went unanswered is said as declined or
 * lapsed; an agreed one takes this seat's page to the new room with the key it sent
 * (kept in storage since its `offer-rematch`, now the new room's seat key: colours swap).
 * @param {App} app @param {OnlineState} o @param {import('./types.js').ServerState | null} before
 * @param {import('./types.js').ServerState} now
 */
function noteRematch(app, o, before, now) {
  if (before && before.round !== now.round) o.rematchNote = null;
  if (now.offers?.rematch) {
    o.rematchNote = null;
    o.rematchMine = false;
  }
  // This seat's offer was answered `stale` (another instance stored the opponent's write
  // first; one instance takes crossing offers as agreed): it was meant, so it is sent
  // again on the room as it is now, accepting the opponent's offer if one stands.
  const sent = o.rematchSent;
  if (sent?.stale) {
    o.rematchSent = null;
    // Nothing to send when this seat's offer stands after all, or the rematch is agreed.
    const settled = now.offers?.rematch === o.seat || Boolean(now.offers?.rematch_room);
    if (sent.round === now.round && o.seat && now.offers?.rematch_open && !settled) queueMicrotask(() => offerRematch(app));
  } else if (sent && sent.round !== now.round) o.rematchSent = null;
  const change = before?.round === now.round ? rematchChange(before, now, o.seat, o.rematchMine) : null;
  if (change) o.rematchNote = change;
  const room = now.offers?.rematch_room;
  if (!room || !o.seat) return;
  const key = rematchKeyFor(app.storage, o.roomId, now.round);
  // Another device of this player sent the offer: this page has no key for the new room.
  if (!key) return;
  forgetRematchKey(app.storage, o.roomId);
  const seat = o.seat === 'light' ? 'dark' : 'light';
  keepSeat(app, room, o.paired ? { seat, key, paired: o.paired } : { seat, key });
  history.pushState(null, '', `/r/${room}`);
  queueMicrotask(() => app.route());
}

/**
 * Offers a rematch (or accepts the opponent's, which is the same command) with a fresh
 * key for the new room, kept in storage first so that the page finds it again whatever
 * happens to this socket; a retry of the same round sends the same key.
 * @param {App} app
 */
function offerRematch(app) {
  const o = app.page.online;
  if (!o?.state) return;
  const key = rematchKeyFor(app.storage, o.roomId, o.state.round) ?? newSeatKey();
  rememberRematchKey(app.storage, o.roomId, o.state.round, key);
  o.rematchMine = false;
  const id = sendCommand(app, CLIENT_TYPES.OFFER_REMATCH, { key });
  o.rematchSent = id ? { id, round: o.state.round, stale: false } : null;
}

/**
 * The results of the rounds before `round`, for the score line: each finished round's
 * record once (GET /api/rooms/<id>/rounds/<n>; the `state` carries only the current
 * round's result). A round that fails to come is asked again with the next state.
 * @param {App} app @param {OnlineState} o @param {number} round
 */
function fetchPastRounds(app, o, round) {
  for (let n = 1; n < round; n += 1) {
    if (o.rounds.has(n)) continue;
    o.rounds.set(n, null);
    fetch(`/api/rooms/${encodeURIComponent(o.roomId)}/rounds/${n}`)
      .then((res) => (res.ok ? res.json() : null))
      .catch(() => null)
      .then((body) => {
        if (body?.result) o.rounds.set(n, { winner: body.result.winner ?? null, reason: String(body.result.reason) });
        else o.rounds.delete(n);
        if (app.page.online === o) app.render();
      });
  }
}

/**
 * The board of the rules the room's state names, should room info not have said them.
 * @param {App} app @param {string} rules
 */
function ensureRoomBoard(app, rules) {
  if (rules === boardRules) return;
  boardRules = rules;
  app.rules().then((mod) => {
    if (!mod) return;
    const game = localGame(mod);
    if (!game.startRules(rules).ok) return;
    app.ensureBoard(game.topology);
    if (app.page.snapshot) app.page.board.set(app.page.snapshot);
  });
}

/**
 * The socket's status changed; after a final close, says why (or opens the room afresh).
 * @param {App} app @param {OnlineState} o @param {Connection} status @param {number} [code]
 */
function onConnection(app, o, status, code) {
  o.connection = status;
  // The board's rings follow canAct(), which the connection is part of.
  app.page.board?.redraw();
  if (status === 'open' && app.page.notice?.key === 'online.offlineClick') app.setNotice(null);
  if (status === 'closed' && code === CLOSE_CODES.UNKNOWN_ROOM) o.gone = 'online.roomGone';
  if (status === 'closed' && code === CLOSE_CODES.PROTOCOL_MISMATCH) o.gone = 'online.reload';
  if (status === 'closed' && code === CLOSE_CODES.ROOM_FULL) o.gone = 'online.watchersFull';
  app.render();
  // The server no longer knows this seat key (the key was forgotten on `bad-key`):
  // open the room afresh, which joins a free seat or watches.
  if (status === 'closed' && code === CLOSE_CODES.BAD_KEY && app.page.online === o) app.route();
  // The account's seat was refused (signed out meanwhile): open the room as anyone would.
  if (status === 'closed' && code === CLOSE_CODES.NOT_SEATED && app.page.online === o) {
    refusedByAccount.add(o.roomId);
    app.route();
  }
}

/**
 * Whether the board takes clicks: the fresh state says it is this seat's turn.
 * @param {OnlineState | null} o
 */
export function onlineCanAct(o) {
  return !!o?.state && o.fresh && !o.replaced && onlineView(o.state, o.seat, o.connection).canAct;
}

/**
 * A click on the board that did nothing: while the connection is down, say why.
 * @param {App} app
 */
export function explainInactive(app) {
  const o = app.page.online;
  if (app.page.mode === 'online' && o?.state && o.connection !== 'open' && !o.gone && !o.replaced) app.setNotice('online.offlineClick');
}

/**
 * Sends a command on the latest state (round and version copied from it); returns its id
 * (null when there is no state or socket to send it on).
 * @param {App} app @param {string} type @param {object} [extra] @returns {string | null}
 */
function sendCommand(app, type, extra = {}) {
  const o = app.page.online;
  if (!o?.state || !o.conn) return null;
  app.setNotice(null);
  const message = command(type, o.state, o.ids(), extra);
  o.conn.send(message);
  return message.id;
}

/**
 * One action from the board, e.g. "d6", "a1-a4", "xd2".
 * @param {App} app @param {string} action
 */
export function sendAction(app, action) {
  sendCommand(app, CLIENT_TYPES.ACTION, { action });
}

/**
 * Shares the finished round's review link: the phone's share sheet where there is one,
 * else the clipboard (the button says so).
 * @param {App} app
 */
async function shareRound(app) {
  const { page } = app;
  const o = page.online;
  if (!o?.state?.result) return;
  const url = reviewLink(location.origin, o.roomId, o.state.round);
  const button = $button('share-round');
  if (navigator.share) {
    try {
      await navigator.share({ title: page.t('app.title'), url });
      return;
    } catch (error) {
      // Dismissing the sheet is no failure; anything else falls back to copying.
      if (/** @type {Error} */ (error)?.name === 'AbortError') return;
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    button.textContent = page.t('online.shareCopied');
  } catch {
    app.setNotice(null, url);
  }
  setTimeout(() => (button.textContent = page.t('online.share')), 1500);
}

/**
 * The online controls; once, at start-up.
 * @param {App} app
 */
export function bindOnlineControls(app) {
  const { page } = app;
  $('offer-draw').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.OFFER_DRAW));
  $('accept-draw').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.ACCEPT_DRAW));
  $('decline-draw').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.DECLINE_DRAW));
  $('new-round').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.NEW_ROUND));
  $('offer-takeback').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.OFFER_TAKEBACK));
  $('accept-takeback').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.ACCEPT_TAKEBACK));
  $('decline-takeback').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.DECLINE_TAKEBACK));
  $('resign').addEventListener('click', () => {
    if (window.confirm(page.t('online.resignConfirm'))) sendCommand(app, CLIENT_TYPES.RESIGN);
  });
  $('take-back').addEventListener('click', () => {
    page.online?.conn?.reconnect();
  });
  $('share-round').addEventListener('click', () => shareRound(app));
  // A paired room's finished round: another search with the same rules and clock.
  $('find-opponent').addEventListener('click', () => {
    const paired = page.online?.paired;
    if (paired) seekAgain(app, paired);
  });
  $('offer-rematch').addEventListener('click', () => offerRematch(app));
  $('accept-rematch').addEventListener('click', () => offerRematch(app));
  const declineRematch = () => {
    if (page.online) page.online.rematchMine = true;
    sendCommand(app, CLIENT_TYPES.DECLINE_REMATCH);
  };
  $('decline-rematch').addEventListener('click', declineRematch);
  $('cancel-rematch').addEventListener('click', declineRematch);
  // A spectator's way to the rematch: a plain link (a new tab works too), followed here
  // without reloading the page, the focus then where the game is watched.
  $('watch-rematch').addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const href = /** @type {HTMLAnchorElement} */ (event.currentTarget).getAttribute('href');
    if (!href || href === location.pathname) return;
    history.pushState(null, '', href);
    app.route().then(() => app.focusPlay());
  });
  $('claim-win').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.CLAIM_WIN));
  $('call-draw').addEventListener('click', () => sendCommand(app, CLIENT_TYPES.CALL_DRAW));
  $('copy-invite').addEventListener('click', async () => {
    const input = $input('invite-link');
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select();
      document.execCommand?.('copy');
    }
    const button = $('copy-invite');
    button.textContent = page.t('online.copied');
    setTimeout(() => (button.textContent = page.t('online.copy')), 1500);
  });
}
