// Owns the rules page's small decisions, made from snapshots alone (pure, no DOM): what
// to say after the reader's action, how to sum up a board's highlights, and whether an
// answer to the blockade exercise is right. Like board.js it holds no rules: every fact
// comes from the snapshot mill-core produced (see static/js/README.md for its shape).

import { other } from './board.js';

/**
 * What just happened between two snapshots of the same diagram, for the note under the
 * board. Returns null when there is nothing to say (nothing played, or the game ended —
 * the status line says that).
 *
 *   { kind: 'mill', side, victim, offered: [points], protected: [points] }
 *   { kind: 'passed', side, next }   the removal finished the turn
 *   { kind: 'quiet', side, next }    no mill: the turn passed at once
 */
export function turnNote(prev, next) {
  if (!prev || !next || next.outcome || next.actions <= prev.actions) return null;
  if (next.pendingRemovals > 0) {
    const side = next.turn;
    const victim = other(side);
    const offered = [...next.removable].sort();
    const onBoard = Object.entries(next.pieces)
      .filter(([, owner]) => owner === victim)
      .map(([name]) => name);
    const shielded = onBoard.filter((name) => !offered.includes(name)).sort();
    return { kind: 'mill', side, victim, offered, protected: shielded };
  }
  if (next.turn === prev.turn) return null;
  return { kind: prev.pendingRemovals > 0 ? 'passed' : 'quiet', side: prev.turn, next: next.turn };
}

/**
 * A one-line account of what the board highlights for the side to move:
 *   { key: 'summary.placing', params: { side, n } }           n empty points to place on
 *   { key: 'summary.moving', params: { side, n, moves } }     n pieces can move, moves in all
 *   { key: 'summary.flying', params: { side, n, free } }      n pieces, free points each
 *   { key: 'summary.removing', params: { side, n } }          n pieces may be removed
 *   { key: 'summary.over', params: {} }
 */
export function highlightSummary(snapshot) {
  const side = snapshot.turn;
  if (snapshot.outcome) return { key: 'summary.over', params: {} };
  if (snapshot.pendingRemovals > 0) return { key: 'summary.removing', params: { side, n: snapshot.removable.length } };
  const phase = snapshot.phase[side];
  if (phase === 'placing') return { key: 'summary.placing', params: { side, n: snapshot.selectable.length } };
  const movers = Object.entries(snapshot.destinations);
  const moves = movers.reduce((sum, [, to]) => sum + to.length, 0);
  if (phase === 'flying') {
    const free = movers.length ? Math.max(...movers.map(([, to]) => to.length)) : 0;
    return { key: 'summary.flying', params: { side, n: movers.length, free } };
  }
  return { key: 'summary.moving', params: { side, n: movers.length, moves } };
}

/**
 * Checks the reader's list of pieces that can move against mill-core's answer: the pieces
 * with destinations in a snapshot where `side` is to move.
 *
 * Returns { ok, expected, missing, extra } (sorted point names), or throws when the
 * snapshot is not `side`'s turn to move (a wiring mistake, not a wrong answer).
 */
export function checkMovers(snapshot, picked, side) {
  if (snapshot.turn !== side || snapshot.pendingRemovals > 0 || snapshot.outcome) {
    throw new Error(`checkMovers: the snapshot is not ${side}'s turn to move`);
  }
  const expected = Object.keys(snapshot.destinations).sort();
  const chosen = [...new Set(picked)].sort();
  const missing = expected.filter((p) => !chosen.includes(p));
  const extra = chosen.filter((p) => !expected.includes(p));
  return { ok: missing.length === 0 && extra.length === 0, expected, missing, extra };
}

/** The pieces of `side` on the board, sorted: what the reader may pick in the quiz. */
export function piecesOf(snapshot, side) {
  return Object.entries(snapshot.pieces)
    .filter(([, owner]) => owner === side)
    .map(([name]) => name)
    .sort(byBoardOrder);
}

/** Point names in reading order: rank 7 first, then files a→g (as a reader scans a diagram). */
export function byBoardOrder(a, b) {
  const rank = Number(b.slice(1)) - Number(a.slice(1));
  return rank !== 0 ? rank : a.localeCompare(b);
}

/** Toggles a point in a picked list (kept in board order). */
export function togglePick(picked, name) {
  return picked.includes(name) ? picked.filter((p) => p !== name) : [...picked, name].sort(byBoardOrder);
}
