// Pure parts of the players' pages: the leaderboard's choice of rules and speed and its
// rows (/players), and a profile's game list and rating chart (/@/{name}). No DOM, no
// fetch (unit-tested in tests/unit/players.test.mjs).

import { SPEEDS } from './account-logic.js';

/** The rule sets a leaderboard can be asked for, in the chooser's order. */
export const BOARD_RULES = ['nine', 'six', 'three', 'twelve'];
/** The speeds a leaderboard can be asked for (the server's, ratings.rs). */
export const BOARD_SPEEDS = SPEEDS;

/**
 * @typedef {{ rules: string, speed: string }} BoardChoice
 * @typedef {{ rank: number, name: string, rating: number, rd: number, games: number }} LeaderRow
 */

/**
 * The leaderboard a `/players` address asks for (`?rules=six&speed=rapid`), anything
 * unknown falling back to Nine Men's Morris, blitz.
 * @param {string} search
 * @returns {BoardChoice}
 */
export function boardChoice(search) {
  const q = new URLSearchParams(search);
  const rules = q.get('rules') ?? '';
  const speed = q.get('speed') ?? '';
  return {
    rules: BOARD_RULES.includes(rules) ? rules : 'nine',
    speed: BOARD_SPEEDS.includes(speed) ? speed : 'blitz',
  };
}

/** The page address of a leaderboard. @param {BoardChoice} c */
export function boardSearch(c) {
  return `?rules=${encodeURIComponent(c.rules)}&speed=${encodeURIComponent(c.speed)}`;
}

/**
 * The rows of a leaderboard answer (`{"players": [...]}`), skipping anything not shaped
 * like one; ratings rounded to whole points.
 * @param {unknown} json
 * @returns {LeaderRow[]}
 */
export function leaderRows(json) {
  const players = /** @type {{ players?: unknown }} */ (json ?? {}).players;
  if (!Array.isArray(players)) return [];
  /** @type {LeaderRow[]} */
  const rows = [];
  for (const p of players) {
    if (!p || typeof p.name !== 'string' || typeof p.rating !== 'number' || typeof p.rank !== 'number') continue;
    rows.push({ rank: p.rank, name: p.name, rating: Math.round(p.rating), rd: Math.round(Number(p.rd) || 0), games: Number(p.games) || 0 });
  }
  return rows;
}

/** A profile's address. @param {string} name */
export function profileHref(name) {
  return `/@/${encodeURIComponent(name)}`;
}

/**
 * @typedef {{ rules: string, speed: string, before: number, after: number, change: number }} GameRating
 * @typedef {{ room: string, round: number, color: string, opponent: string | null, result: string,
 *   reason: string, rules: string, clock: { initial?: number, increment?: number, days?: number } | null,
 *   rating: GameRating | null, at: number, review: string | null }} GameRow
 */

/**
 * The rounds of a game list answer (`{"games": [...]}`), anything not shaped like one
 * skipped; `opponent` is a name, `"deleted"` (the neutral name) or null (anonymous).
 * @param {unknown} json
 * @returns {GameRow[]}
 */
export function gameRows(json) {
  const games = /** @type {{ games?: unknown }} */ (json ?? {}).games;
  if (!Array.isArray(games)) return [];
  /** @type {GameRow[]} */
  const rows = [];
  for (const g of games) {
    if (!g || typeof g.room !== 'string' || typeof g.round !== 'number' || !['win', 'draw', 'loss'].includes(g.result)) continue;
    const r = g.rating;
    rows.push({
      room: g.room,
      round: g.round,
      color: g.color === 'dark' ? 'dark' : 'light',
      opponent: typeof g.opponent === 'string' ? g.opponent : null,
      result: g.result,
      reason: typeof g.reason === 'string' ? g.reason : '',
      rules: typeof g.rules === 'string' ? g.rules : '',
      clock: g.clock && typeof g.clock === 'object' ? g.clock : null,
      rating: r && typeof r.after === 'number' && typeof r.before === 'number'
        ? { rules: String(g.rules), speed: String(r.speed), before: r.before, after: r.after, change: Math.round(r.after - r.before) }
        : null,
      at: Number(g.at) || 0,
      review: typeof g.review === 'string' && g.review.startsWith('/r/') ? g.review : null,
    });
  }
  return rows;
}

/** A clock as a profile shows it: `3+2`, `10 min`, `3 d`, or null when untimed. @param {GameRow['clock']} c */
export function clockText(c) {
  if (!c) return null;
  if (typeof c.days === 'number') return `${c.days} d`;
  if (typeof c.initial !== 'number') return null;
  const min = c.initial % 60 === 0 ? String(c.initial / 60) : (c.initial / 60).toFixed(1);
  return `${min}+${c.increment ?? 0}`;
}

/** A rating change as shown: `+12`, `−7` (a true minus), `±0`. @param {number} change */
export function changeText(change) {
  const n = Math.round(change);
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : '\u00b10';
}

/**
 * One rating's history from the rounds of a record (newest first, as the list gives
 * them): the rating after each rated round of that rule set and speed, oldest first,
 * starting with the rating before the first.
 * @param {GameRow[]} games @param {string} rules @param {string} speed
 * @returns {{ at: number, rating: number }[]}
 */
export function ratingSeries(games, rules, speed) {
  const rated = games.filter((g) => g.rating && g.rating.rules === rules && g.rating.speed === speed).reverse();
  if (rated.length === 0) return [];
  const first = /** @type {GameRating} */ (rated[0].rating);
  return [{ at: rated[0].at, rating: Math.round(first.before) }, ...rated.map((g) => ({ at: g.at, rating: Math.round(/** @type {GameRating} */ (g.rating).after) }))];
}

/**
 * The chart of a series: an SVG path through its points, evenly spaced left to right in
 * a `width` × `height` box with `pad` around, the rating scale from `low` to `high`
 * (rounded out to 50 points, at least 100 apart).
 * @param {{ rating: number }[]} series @param {number} width @param {number} height @param {number} pad
 * @returns {{ d: string, low: number, high: number, points: { x: number, y: number }[] }}
 */
export function chartPath(series, width, height, pad) {
  if (series.length === 0) return { d: '', low: 0, high: 0, points: [] };
  const ratings = series.map((p) => p.rating);
  let low = Math.floor(Math.min(...ratings) / 50) * 50;
  let high = Math.ceil(Math.max(...ratings) / 50) * 50;
  if (high - low < 100) {
    const mid = (high + low) / 2;
    low = Math.floor((mid - 50) / 50) * 50;
    high = low + 100;
  }
  const w = width - 2 * pad;
  const h = height - 2 * pad;
  const step = series.length > 1 ? w / (series.length - 1) : 0;
  const points = series.map((p, i) => ({
    x: Math.round((pad + (series.length > 1 ? i * step : w / 2)) * 10) / 10,
    y: Math.round((pad + h - ((p.rating - low) / (high - low)) * h) * 10) / 10,
  }));
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${p.x} ${p.y}`).join(' ');
  return { d, low, high, points };
}
