// Pure parts of the account pages: which words answer a refusal, the rows of a
// player's ratings, the name in a profile address. No DOM, no fetch (unit-tested).

/** The speeds in the order a profile lists them (the server's names, ratings.rs). */
export const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];

/** The refusal codes the account pages have words for (the server's, wire.js). */
const KNOWN = new Set(['name-taken', 'bad-name', 'weak-password', 'bad-credentials', 'throttled', 'rate-limited', 'cross-site', 'sign-in-required',
  // Passkeys (passkey.js).
  'passkey-unavailable', 'ceremony-expired', 'passkey-refused']);

/**
 * The text key (and its parameters) for a refused request's `code`.
 * @param {unknown} code
 * @returns {{ key: string, params: Record<string, string> }}
 */
export function errorText(code) {
  const c = typeof code === 'string' ? code : 'unknown';
  return KNOWN.has(c) ? { key: `account.error.${c}`, params: {} } : { key: 'account.error.other', params: { code: c } };
}

/**
 * @typedef {{ rating: number, rd: number, vol: number, games: number, provisional: boolean }} RatingFacts
 * @typedef {{ rules: string, speed: string, rating: number, rd: number, games: number, provisional: boolean }} RatingRow
 */

/**
 * A player's ratings (`{RULES: {SPEED: facts}}` from the API) as rows: by rule set name,
 * then by speed from fastest to slowest; anything not shaped like a rating is skipped.
 * @param {unknown} ratings
 * @returns {RatingRow[]}
 */
export function ratingRows(ratings) {
  if (!ratings || typeof ratings !== 'object') return [];
  /** @type {RatingRow[]} */
  const rows = [];
  for (const rules of Object.keys(ratings).sort()) {
    const bySpeed = /** @type {Record<string, unknown>} */ (ratings)[rules];
    if (!bySpeed || typeof bySpeed !== 'object') continue;
    for (const speed of SPEEDS) {
      const f = /** @type {Partial<RatingFacts> | undefined} */ (/** @type {Record<string, unknown>} */ (bySpeed)[speed]);
      if (!f || typeof f.rating !== 'number' || typeof f.rd !== 'number' || typeof f.games !== 'number') continue;
      rows.push({ rules, speed, rating: Math.round(f.rating), rd: Math.round(f.rd), games: f.games, provisional: f.provisional === true });
    }
  }
  return rows;
}

/**
 * The player name in a profile address (`/@/{name}`), or null when it cannot be one.
 * @param {string} pathname
 */
export function profileName(pathname) {
  const m = /^\/@\/([A-Za-z0-9_-]{3,20})\/?$/.exec(pathname);
  return m ? m[1] : null;
}

/**
 * The rating as a profile shows it: `1662?` while provisional, as lichess does.
 * @param {RatingRow} row
 */
export function shownRating(row) {
  return `${row.rating}${row.provisional ? '?' : ''}`;
}
