// Owns reviewing a finished online round by its share link, /r/<room>/review/<n>: the
// link itself, fetching the round's record from the server (GET /api/rooms/<room>/rounds/<n>,
// no secrets in it), the positions after each action (replayed through the rules in
// WebAssembly, never in JS), and stepping through them by buttons and ←/→/Home/End.
// Read-only: the board never takes a click here.

import { blankSnapshot } from './board.js';
import { $ } from './dom.js';
import { localGame } from './rules.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./page-state.js').Review} Review */
/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./rules.js').LocalGame} LocalGame */

/**
 * @typedef {object} RoundRecord  the server's record of a finished round (docs/PROTOCOL.md)
 * @property {string} room
 * @property {number} round
 * @property {string} start  the position it started from
 * @property {string[]} actions  every action in order
 * @property {string[]} record  the turns in notation
 * @property {{ winner: import('./types.js').Side | null, reason: string }} result
 */

/**
 * The room and round of a review link's path, or null for any other path.
 * @param {string} pathname @returns {{ roomId: string, round: number } | null}
 */
export function reviewFromPath(pathname) {
  const m = /^\/r\/([A-Za-z0-9_-]{1,64})\/review\/([1-9][0-9]{0,8})\/?$/.exec(pathname);
  return m ? { roomId: m[1], round: Number(m[2]) } : null;
}

/** The share link of a room's round. @param {string} origin @param {string} roomId @param {number} round */
export function reviewLink(origin, roomId, round) {
  return `${origin}/r/${encodeURIComponent(roomId)}/review/${round}`;
}

/**
 * The position before the first action and after each one, as snapshots, from the rules.
 * The last carries the round's result, which a resignation or an agreed draw leaves out
 * of the board itself. Throws when the record does not replay.
 * @param {LocalGame} game @param {RoundRecord} record @returns {Snapshot[]}
 */
export function reviewPositions(game, record) {
  game.restart();
  if (game.snapshot().position !== record.start) {
    const loaded = game.loadPosition(record.start);
    if (!loaded.ok) throw new Error(loaded.error?.message ?? 'bad start');
  }
  const positions = [game.snapshot()];
  for (const action of record.actions) {
    const played = game.play(action);
    if (!played.ok) throw new Error(`${action}: ${played.error?.message ?? 'refused'}`);
    positions.push(game.snapshot());
  }
  const { winner, reason } = record.result;
  const last = positions[positions.length - 1];
  positions[positions.length - 1] = {
    ...last,
    outcome: last.outcome ?? (winner ? { kind: 'win', winner, reason } : { kind: 'draw', reason }),
  };
  return positions;
}

/**
 * Where a step key leads from `at` among `count` positions; null for other keys.
 * @param {string} key @param {number} at @param {number} count @returns {number | null}
 */
export function stepFor(key, at, count) {
  const last = count - 1;
  switch (key) {
    case 'ArrowLeft':
      return Math.max(0, at - 1);
    case 'ArrowRight':
      return Math.min(last, at + 1);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return null;
  }
}

/**
 * Opens a round for review: fetches its record, replays it, shows its last position.
 * @param {App} app @param {string} roomId @param {number} round
 */
export async function openReview(app, roomId, round) {
  const { page } = app;
  const mod = await app.rules();
  if (!mod) return;
  const game = localGame(mod);
  app.ensureBoard(game.topology);
  page.mode = 'review';
  /** @type {Review} */
  const review = { roomId, round, positions: [], at: 0, error: null };
  page.review = review;
  page.snapshot = blankSnapshot(game.snapshot());
  page.board.set(page.snapshot);
  app.showScreen('game');
  app.render();
  try {
    const res = await fetch(`/api/rooms/${encodeURIComponent(roomId)}/rounds/${round}`);
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.message ?? String(res.status));
    review.positions = reviewPositions(game, body);
    review.at = review.positions.length - 1;
  } catch (error) {
    review.error = String(/** @type {Error} */ (error)?.message ?? error);
  }
  if (page.review !== review) return; // left meanwhile
  show(app, review);
}

/** @param {App} app @param {Review} review */
function show(app, review) {
  const snap = review.positions[review.at];
  if (snap) {
    app.page.snapshot = snap;
    app.page.board.set(snap);
  }
  app.render();
}

/**
 * The step buttons and keys; once, at start-up.
 * @param {App} app
 */
export function bindReviewControls(app) {
  const go = (/** @type {string} */ key) => {
    const review = app.page.mode === 'review' ? app.page.review : null;
    if (!review || review.positions.length === 0) return false;
    const to = stepFor(key, review.at, review.positions.length);
    if (to === null) return false;
    review.at = to;
    show(app, review);
    return true;
  };
  for (const [id, key] of [
    ['review-first', 'Home'],
    ['review-prev', 'ArrowLeft'],
    ['review-next', 'ArrowRight'],
    ['review-last', 'End'],
  ]) {
    $(id).addEventListener('click', () => go(key));
  }
  // Captured before the board's own keys: a board under review takes no move, so its
  // arrows step through the round instead of moving the focus. Text fields keep theirs.
  document.addEventListener(
    'keydown',
    (event) => {
      const target = /** @type {Element | null} */ (event.target);
      if (target?.closest?.('input, textarea, select')) return;
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (go(event.key)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    { capture: true },
  );
}
