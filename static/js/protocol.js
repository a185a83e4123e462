// Owns the online wire format on the page's side (docs/PROTOCOL.md, protocol 1): a server
// `state` as the page's snapshot (through board.js's snapshotFromView, as local play), and
// building commands. Pure, no DOM, no socket (net.js carries the frames). The protocol's
// names and numbers come from wire.js, which is generated from the server's protocol.rs.

import { snapshotFromView } from './board.js';
import { FINAL_CLOSE_CODES as FINAL, PROTOCOL } from './wire.js';

export { PROTOCOL };

/**
 * A server `state` message as the page's snapshot: its game part is mill-core's view, the
 * same as WasmGame.snapshot() gives locally (board.js's snapshotFromView).
 * @type {(state: import('./types.js').ServerState) => import('./types.js').Snapshot}
 */
export const snapshotFromState = snapshotFromView;

/** Makes command ids unique per seat: a random prefix for this page load plus a counter. */
export function commandIds(random = Math.random) {
  const prefix = Math.floor(random() * 36 ** 6).toString(36).padStart(6, '0');
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A command on the state it was made on. */
export function command(type, state, id, extra = {}) {
  return { type, id, round: state.round, version: state.version, ...extra };
}

/** Reconnection delay after `attempt` failures: 0.5 s doubling to 10 s, with a little jitter. */
export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(10_000, 500 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.85 + 0.3 * random()));
}

/** Close codes after which the page must not reconnect by itself. */
export const FINAL_CLOSE_CODES = new Set(FINAL);

/**
 * The side whose action was the round's last, or null before the first: while a removal
 * is owed it is the side to move (`turn`, docs/PROTOCOL.md), else the other one. Only a
 * turn of one's own that is the last thing played may be asked back.
 * @param {import('./types.js').ServerState | null | undefined} state
 */
export function lastPlayedBy(state) {
  if (!state?.actions?.length) return null;
  if ((state.pending_removals ?? 0) > 0) return state.turn;
  return state.turn === 'light' ? 'dark' : 'light';
}

/** What the online panel should say and allow, from the last state and this seat. */
export function onlineView(state, seat, connection) {
  const opponent = seat === 'light' ? 'dark' : 'light';
  const seats = state?.seats ?? {};
  const over = !!state?.result;
  const friendJoined = !!seats[opponent]?.taken;
  const opponentOnline = !!seats[opponent]?.online;
  const connected = connection === 'open';
  const drawBy = state?.offers?.draw ?? null;
  const takebackBy = state?.offers?.takeback ?? null;
  const declined = state?.offers?.declined ?? null;
  const newRound = state?.offers?.new_round ?? [];
  const rematchBy = state?.offers?.rematch ?? null;
  const rematchRoom = state?.offers?.rematch_room ?? null;
  const rematchOpen = !!state?.offers?.rematch_open && over && !!seat && !rematchRoom;
  const playing = connected && !!seat && !over && friendJoined && opponentOnline;
  return {
    opponent,
    friendJoined,
    opponentOnline,
    canAct: playing && state.turn === seat,
    canOfferDraw: playing && drawBy === null,
    // A spectator (no seat) offered nothing, though `null === null`.
    drawOfferedByMe: !!seat && drawBy === seat,
    drawOfferedToMe: !!seat && drawBy === opponent && !over,
    canAskTakeback: playing && takebackBy === null && lastPlayedBy(state) === seat,
    takebackAskedByMe: !!seat && takebackBy === seat && !over,
    takebackAskedToMe: !!seat && takebackBy === opponent && !over,
    // The opponent declined this seat's offer ('draw' or 'takeback'), or null.
    declinedMine: !!seat && declined?.by === opponent ? declined.offer : null,
    canResign: connected && !!seat && !over && friendJoined,
    canAskNewRound: connected && !!seat && over && !newRound.includes(seat),
    askedNewRound: !!seat && newRound.includes(seat) && over,
    opponentAskedNewRound: over && newRound.includes(opponent),
    // A finished round of a paired room: offer a rematch (the opponent must be here), see
    // one's own offer waiting (and withdraw it), or answer the opponent's.
    mayRematch: rematchOpen,
    canOfferRematch: rematchOpen && connected && opponentOnline && rematchBy === null,
    rematchOfferedByMe: rematchOpen && rematchBy === seat,
    rematchOfferedToMe: rematchOpen && rematchBy === opponent,
    /** The agreed rematch's room, which this seat's page moves to. */
    rematchRoom: seat ? rematchRoom : null,
    /** The agreed rematch's room for a spectator, who is offered a link to watch it there. */
    watchRematch: seat ? null : rematchRoom,
  };
}

/**
 * The room's score so far: each finished round's result (the earlier rounds' from
 * `past`, the current one's from its state once it is over), a win 1 and a draw ½ to
 * each side. `known` is false while an earlier round's result is still missing.
 * @param {number} round  the current round @param {Map<number, { winner: import('./types.js').Side | null } | null>} past
 * @param {{ winner: import('./types.js').Side | null } | null} current  the current round's result, null while it is played
 * @returns {{ light: number, dark: number, known: boolean }}
 */
export function roomScore(round, past, current) {
  const score = { light: 0, dark: 0, known: true };
  const add = (/** @type {{ winner: import('./types.js').Side | null }} */ result) => {
    if (result.winner) score[result.winner] += 1;
    else {
      score.light += 0.5;
      score.dark += 0.5;
    }
  };
  for (let n = 1; n < round; n += 1) {
    const result = past.get(n);
    if (result) add(result);
    else score.known = false;
  }
  if (current) add(current);
  return score;
}

/** A score as people write it: 0, ½, 1, 1½. @param {number} n */
export function scoreText(n) {
  const whole = Math.floor(n);
  const half = n - whole >= 0.5;
  return half ? `${whole || ''}½` : String(whole);
}

/**
 * What became of a rematch offer between two states of one round, for the person at
 * `seat`: 'declined' (the opponent declined this seat's offer), 'lapsed' (an offer, this
 * seat's or the opponent's, is gone without an answer from this seat: the other player
 * left, or a new round began), or null (nothing went, it was agreed, or this seat itself
 * declined or withdrew it: `mine` says the last rematch command was this page's own).
 * @param {import('./types.js').ServerState | null} before @param {import('./types.js').ServerState} now
 * @param {import('./types.js').Side | null} seat @param {boolean} mine
 * @returns {'declined' | 'lapsed' | null}
 */
export function rematchChange(before, now, seat, mine) {
  const was = before?.offers?.rematch ?? null;
  if (!seat || !was || now.offers?.rematch || now.offers?.rematch_room) return null;
  const opponent = seat === 'light' ? 'dark' : 'light';
  const declined = now.offers?.declined;
  if (declined?.offer === 'rematch') return declined.by === opponent ? 'declined' : null;
  return mine ? null : 'lapsed';
}

/** A fresh seat key as the server makes them: 32 random bytes as 64 lowercase hex digits. */
export function newSeatKey(random = globalThis.crypto) {
  const bytes = random.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
