// Owns the addresses of review, known to the page before review itself loads (later.js):
// a shared round's link (/r/<room>/review/<n>) and the puzzles page's `/#review=` record.

/** @typedef {import('./review.js').GameRecord} GameRecord */

/**
 * The room and round of a review link's path, or null for any other path.
 * @param {string} pathname @returns {{ roomId: string, round: number } | null}
 */
export function reviewFromPath(pathname) {
  const m = /^\/r\/([A-Za-z0-9_-]{1,64})\/review\/([1-9][0-9]{0,8})\/?$/.exec(pathname);
  return m ? { roomId: m[1], round: Number(m[2]) } : null;
}

/**
 * The record a `/#review=` link carries (the puzzles page's "Open in review": a puzzle's
 * position and its line), `{start, actions}` as JSON; null for any other hash.
 * @param {string} hash @returns {GameRecord | null}
 */
export function reviewFromHash(hash) {
  if (!hash.startsWith('#review=')) return null;
  try {
    const r = JSON.parse(decodeURIComponent(hash.slice('#review='.length)));
    if (typeof r?.start === 'string' && Array.isArray(r.actions) && r.actions.every((a) => typeof a === 'string')) {
      return { start: r.start, actions: r.actions, result: null };
    }
  } catch {
    // Not a record: no review.
  }
  return null;
}

/** The share link of a room's round. @param {string} origin @param {string} roomId @param {number} round */
export function reviewLink(origin, roomId, round) {
  return `${origin}/r/${encodeURIComponent(roomId)}/review/${round}`;
}
