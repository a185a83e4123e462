// Owns the online wire format on the page's side (docs/PROTOCOL.md, protocol 1): turning
// a server `state` into the page's snapshot shape, and building commands. Pure, no DOM,
// no socket (net.js carries the frames). The protocol's names and numbers come from
// wire.js, which is generated from the server's protocol.rs.

import { FINAL_CLOSE_CODES as FINAL, PROTOCOL } from './wire.js';

export { PROTOCOL };

/**
 * The latest turn's actions from the round's action list: the last placement or move and
 * the removals after it. Only the text form is read ("x" starts a removal): no rules.
 */
export function lastTurnOf(actions) {
  let start = actions.length;
  while (start > 0 && actions[start - 1].startsWith('x')) start -= 1;
  if (start > 0) start -= 1;
  return actions.slice(start);
}

/**
 * A server `state` message as the page's snapshot (the same shape WasmGame.snapshot gives).
 * @param {import('./types.js').ServerState} state @returns {import('./types.js').Snapshot}
 */
export function snapshotFromState(state) {
  /** @type {Record<string, import('./types.js').Side>} */
  const pieces = {};
  for (const side of /** @type {const} */ (['light', 'dark'])) {
    for (const p of state.pieces?.[side] ?? []) pieces[p] = side;
  }
  const legal = state.legal ?? { selectable: [], destinations: {}, removable: [] };
  const result = state.result;
  return {
    position: state.position,
    turn: state.turn,
    phase: state.phase,
    inHand: state.in_hand,
    onBoard: state.on_board,
    pieces,
    pendingRemovals: state.pending_removals ?? 0,
    selectable: legal.selectable ?? [],
    destinations: legal.destinations ?? {},
    removable: legal.removable ?? [],
    record: state.record ?? [],
    lastTurn: lastTurnOf(state.actions ?? []),
    closedMills: state.closed_mills ?? [],
    actions: (state.actions ?? []).length,
    outcome: result
      ? result.winner
        ? { kind: 'win', winner: result.winner, reason: result.reason }
        : { kind: 'draw', reason: result.reason }
      : null,
  };
}

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

/** What the online panel should say and allow, from the last state and this seat. */
export function onlineView(state, seat, connection) {
  const opponent = seat === 'light' ? 'dark' : 'light';
  const seats = state?.seats ?? {};
  const over = !!state?.result;
  const friendJoined = !!seats[opponent]?.taken;
  const opponentOnline = !!seats[opponent]?.online;
  const connected = connection === 'open';
  const drawBy = state?.offers?.draw ?? null;
  const newRound = state?.offers?.new_round ?? [];
  const playing = connected && !!seat && !over && friendJoined && opponentOnline;
  return {
    opponent,
    friendJoined,
    opponentOnline,
    canAct: playing && state.turn === seat,
    canOfferDraw: playing && drawBy === null,
    drawOfferedByMe: drawBy === seat,
    drawOfferedToMe: !!seat && drawBy === opponent && !over,
    canResign: connected && !!seat && !over && friendJoined,
    canAskNewRound: connected && !!seat && over && !newRound.includes(seat),
    askedNewRound: !!seat && newRound.includes(seat) && over,
    opponentAskedNewRound: over && newRound.includes(opponent),
  };
}
