// Owns what the puzzles page decides without the DOM: which puzzle is the day's, which
// comes next (near the person's rating, in the chosen theme), whether a turn played is
// the answer, and a turn's text as the board's actions. The set itself is data
// (static/puzzles/<rules>.json, made by `mill puzzles generate`); the rules are the wasm's.

/**
 * @typedef {object} Puzzle  one puzzle as `mill puzzles list --json` prints it
 * @property {string} id
 * @property {string} rules  the rule set's name (`nine`, `six`, …)
 * @property {string} position  the position string, the solver to move
 * @property {'win' | 'draw' | 'gain'} goal  win the game, hold the draw, win material
 * @property {string[]} solution  the solver's turns and the defender's, alternately, the solver's first and last
 * @property {string[]} also  other turns accepted in place of the last one
 * @property {string} theme  the main theme
 * @property {string[]} themes  every theme, the main one first
 * @property {number} rating
 * @property {'tablebase' | 'engine'} source
 */

/**
 * A date's text, YYYY-MM-DD, in the browser's own calendar: everyone whose calendar
 * shows that date gets the same puzzle.
 * @param {Date} date @returns {string}
 */
export function dateKey(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** 32-bit FNV-1a of a text. @param {string} text @returns {number} */
export function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The puzzle of the day: the set ordered by id, the date's hash picking one. The same
 * for a date and a set, whatever order the set came in.
 * @param {Puzzle[]} set @param {string} key  dateKey's text @returns {Puzzle | null}
 */
export function dailyPuzzle(set, key) {
  if (set.length === 0) return null;
  const sorted = [...set].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sorted[hash32(key) % sorted.length];
}

/**
 * The puzzles of a theme ('' or 'all': every one).
 * @param {Puzzle[]} set @param {string} theme @returns {Puzzle[]}
 */
export function inTheme(set, theme) {
  return !theme || theme === 'all' ? set : set.filter((p) => p.themes.includes(theme));
}

/**
 * The themes present in a set, by how many puzzles have each (most first).
 * @param {Puzzle[]} set @returns {string[]}
 */
export function themesOf(set) {
  const counts = new Map();
  for (const p of set) for (const t of p.themes) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([t]) => t);
}

/** How many of the nearest puzzles the next one is drawn from. */
export const NEAREST = 5;

/**
 * The next puzzle: in the theme, not yet seen (all seen: any), among the NEAREST
 * closest to `rating`, drawn by `random` (0 ≤ x < 1).
 * @param {Puzzle[]} set @param {{ rating: number, theme?: string, seen?: Set<string>, exclude?: string, random?: () => number }} options
 * @returns {Puzzle | null}
 */
export function nextPuzzle(set, { rating, theme = 'all', seen = new Set(), exclude = '', random = Math.random }) {
  const pool = inTheme(set, theme).filter((p) => p.id !== exclude);
  const fresh = pool.filter((p) => !seen.has(p.id));
  const from = fresh.length > 0 ? fresh : pool;
  if (from.length === 0) return null;
  const near = [...from].sort((a, b) => Math.abs(a.rating - rating) - Math.abs(b.rating - rating) || (a.id < b.id ? -1 : 1)).slice(0, NEAREST);
  return near[Math.min(near.length - 1, Math.floor(random() * near.length))];
}

/**
 * A turn's text as the board's actions: `f4-g4xb6` → ['f4-g4', 'xb6'], `d6` → ['d6'].
 * @param {string} turn @returns {string[]}
 */
export function turnActions(turn) {
  const [first, ...removals] = turn.split('x');
  return [first, ...removals.map((r) => `x${r}`)];
}

/**
 * Whether `played` is the answer at the solver's turn `ply` (an index into the
 * solution): the solution's turn, or for the last one any accepted alternative.
 * @param {Puzzle} puzzle @param {number} ply @param {string} played @returns {boolean}
 */
export function isAnswer(puzzle, ply, played) {
  if (played === puzzle.solution[ply]) return true;
  return ply === puzzle.solution.length - 1 && puzzle.also.includes(played);
}

/**
 * Why a wrong turn loses, as the engine's answer to it shows: its line (`pv`, the answer
 * first, in notation) and whether the answer won the game. The answer wins, or closes a
 * mill, or its line closes one at the opponent's next turn (the threat the wrong turn
 * allowed: `point`, where that mill closes); else no reason is given.
 * @param {string[]} pv @param {boolean} won @returns {{ key: string, params: Record<string, string> }}
 */
export function refutation(pv, won) {
  const [reply = '', , next = ''] = pv;
  if (won) return { key: 'puzzles.status.wrongWins', params: {} };
  if (reply.includes('x')) return { key: 'puzzles.status.wrongMill', params: {} };
  if (next.includes('x')) return { key: 'puzzles.status.wrongThreat', params: { point: turnActions(next)[0].split('-').pop() ?? '' } };
  return { key: 'puzzles.status.wrong', params: {} };
}

/**
 * What the hint shows at the solver's turn `ply`: the piece that moves (a move or a
 * flight), or the point to place on.
 * @param {Puzzle} puzzle @param {number} ply @returns {string}
 */
export function hintPoint(puzzle, ply) {
  const [step] = turnActions(puzzle.solution[ply] ?? '');
  return step.split('-')[0];
}

/**
 * The words of the task: which side plays and what for.
 * @param {Puzzle} puzzle @returns {string}  a key of the page's words
 */
export function taskKey(puzzle) {
  const side = puzzle.position.split(' ')[1] === 'd' ? 'dark' : 'light';
  return `puzzles.task.${side}.${puzzle.goal}`;
}

/**
 * Parses a set file (a JSON array); anything that is not a puzzle is left out.
 * @param {string} text @returns {Puzzle[]}
 */
export function parseSet(text) {
  const list = JSON.parse(text);
  if (!Array.isArray(list)) return [];
  return list.filter(
    (p) => p && typeof p.id === 'string' && typeof p.position === 'string' && Array.isArray(p.solution) && p.solution.length % 2 === 1 && Array.isArray(p.themes) && typeof p.rating === 'number',
  ).map((p) => ({ ...p, also: Array.isArray(p.also) ? p.also : [] }));
}
