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
