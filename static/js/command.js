// Owns the Command field's language (screen-reader play): what a typed line means — a turn
// in the project's notation (`d6`, `a1-a4`, `f4-g4xb6`, `xd2`) split into the actions the
// rules take one at a time, or a query (board, last turn, legal turns, pieces, clocks,
// help) — and the spoken answers to queries and refusals. Pure: no DOM, no rules. Whether
// a turn is legal is only ever asked of mill-core (screen-reader.js plays it on a copy of
// the game first); this module reads the snapshot's lists, which come from mill-core too.

import { other, reasonText } from './board.js';

/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').Topology} Topology */
/** @typedef {import('./types.js').Translate} Translate */

/** @typedef {'board' | 'last' | 'legal' | 'pieces' | 'clock' | 'help'} Query */

/**
 * @typedef {{ kind: 'turn', actions: string[] } | { kind: 'query', query: Query } | { kind: 'error', key: string, params: Record<string, string> }} Command
 *   a parsed line: a turn as its actions in order, a query, or why the line means nothing
 *   (an i18n key with its parameters)
 */

/** Every word a query answers to, English and Russian, lower case. */
export const QUERY_WORDS = /** @type {Record<Query, string[]>} */ ({
  board: ['board', 'b', 'доска', 'д'],
  last: ['last', 'l', 'последний', 'последний ход', 'п'],
  legal: ['legal', 'moves', 'm', 'ходы', 'х'],
  pieces: ['pieces', 'p', 'фишки', 'ф'],
  clock: ['clock', 'clocks', 'time', 'c', 'часы', 'время', 'ч'],
  help: ['help', 'h', '?', 'помощь', 'справка'],
});

const POINT = '[a-z][0-9]{1,2}';
const TURN = new RegExp(`^(?:(${POINT})(?:-(${POINT}))?)?((?:x${POINT})*)$`);

/**
 * A typed line as a command. Forgiving about case, spaces, a Cyrillic "х" for the capture
 * sign and typographic dashes; strict about everything else.
 * @param {string} text @returns {Command}
 */
export function parseCommand(text) {
  const line = String(text ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  if (!line) return { kind: 'error', key: 'cmd.empty', params: {} };
  for (const [query, words] of Object.entries(QUERY_WORDS)) {
    if (words.includes(line)) return { kind: 'query', query: /** @type {Query} */ (query) };
  }
  const compact = line.replace(/ /g, '').replace(/[х×]/g, 'x').replace(/[‐-―−]/g, '-');
  const m = TURN.exec(compact);
  if (!m || !compact) return { kind: 'error', key: 'cmd.unknown', params: { text: String(text).trim() } };
  const [, from, to, removals] = m;
  /** @type {string[]} */
  const actions = [];
  if (from) actions.push(to ? `${from}-${to}` : from);
  for (const point of removals.split('x').slice(1)) actions.push(`x${point}`);
  return { kind: 'turn', actions };
}

/**
 * The parts of one action's text: a placement, a move or a removal.
 * @param {string} action @returns {{ place?: string, from?: string, to?: string, remove?: string }}
 */
export function actionParts(action) {
  if (action.startsWith('x')) return { remove: action.slice(1) };
  const [from, to] = action.split('-');
  return to ? { from, to } : { place: from };
}

/**
 * A turn in notation ("f4-g4xb6") in words: "f4 to g4, closes a mill, removes b6".
 * @param {string} turn @param {Translate} t
 */
export function turnWords(turn, t) {
  const parsed = parseCommand(turn);
  if (parsed.kind !== 'turn') return turn;
  /** @type {string[]} */
  const removed = [];
  let head = '';
  for (const action of parsed.actions) {
    const p = actionParts(action);
    if (p.remove) removed.push(p.remove);
    else if (p.place) head = t('say.place', { to: p.place });
    else head = t('say.move', { from: p.from ?? '', to: p.to ?? '' });
  }
  const parts = head ? [head] : [];
  if (removed.length) parts.push(t('say.removes', { points: removed.join(t('say.and')) }));
  return parts.join(', ');
}

/**
 * Who played each of the snapshot's completed turns, latest last: the turn before the one
 * in progress was the other side's, and so on back.
 * @param {Snapshot} snap @returns {Side[]}
 */
export function moversOf(snap) {
  const n = snap.record.length;
  /** @type {Side[]} */
  const sides = [];
  let side = /** @type {Side} */ (other(snap.turn));
  for (let i = n - 1; i >= 0; i--) {
    sides[i] = side;
    side = /** @type {Side} */ (other(side));
  }
  return sides;
}

/**
 * A refusal of the rules, said with its reason: the code mill-core gave for `action`, and
 * the point at fault when the rules name one (`off-board`: "d4 is not a point of this board").
 * @param {{ code: string, message: string, point?: string }} error @param {string} action @param {Translate} t
 */
export function refusalWords(error, action, t) {
  const p = actionParts(action);
  const point = error.point ?? p.remove ?? p.place ?? p.from ?? '';
  /** @type {Record<string, string>} */
  const params = { point, from: p.from ?? '', to: p.to ?? p.place ?? '', action };
  const key = `cmd.refused.${error.code}`;
  const said = t(key, params);
  return said === key ? t('cmd.refused', { action, message: error.message }) : said;
}

/**
 * The answer to a query about the game on screen.
 * @param {Query} query
 * @param {{ snap: Snapshot | null, topology: Topology | null, seat?: Side | null, clocks?: string | null }} game
 * @param {Translate} t
 */
export function answerQuery(query, { snap, topology, seat = null, clocks = null }, t) {
  if (query === 'help') return t('cmd.help');
  if (!snap || !snap.position) return t('cmd.noGame');
  const side = (/** @type {Side} */ s) => t(`color.${s}`);
  if (query === 'board') {
    // File by file, bottom up: a1, a4, a7, b2, …
    const points = topology ? [...topology.points].sort((p, q) => p.file - q.file || p.rank - q.rank).map((p) => p.name) : Object.keys(snap.pieces).sort();
    const of = (/** @type {Side} */ s) => points.filter((p) => snap.pieces[p] === s);
    const empty = points.filter((p) => !snap.pieces[p]);
    const list = (/** @type {string[]} */ names) => (names.length ? names.join(', ') : t('say.none'));
    return [
      t('cmd.board.side', { side: side('light'), n: of('light').length, points: list(of('light')) }),
      t('cmd.board.side', { side: side('dark'), n: of('dark').length, points: list(of('dark')) }),
      t('cmd.board.empty', { n: empty.length, points: list(empty) }),
    ].join('. ');
  }
  if (query === 'pieces') {
    return (/** @type {const} */ (['light', 'dark']))
      .map((s) => t('cmd.pieces', { side: side(s), hand: snap.inHand[s], board: snap.onBoard[s] }))
      .join('. ');
  }
  if (query === 'clock') return clocks ?? t('cmd.noClocks');
  if (query === 'last') {
    const n = snap.record.length;
    const last = n ? t('say.turn', { side: side(moversOf(snap)[n - 1]), words: turnWords(snap.record[n - 1], t) }) : t('cmd.noTurn');
    return [last, stateWords(snap, seat, t)].join('. ');
  }
  // legal
  if (snap.outcome) return t('say.over');
  const mover = snap.turn === seat ? t('cmd.legal.you') : t('cmd.legal.side', { side: side(snap.turn) });
  const moves = Object.entries(snap.destinations);
  let list;
  if (snap.pendingRemovals > 0) list = t('cmd.legal.remove', { points: snap.removable.join(', ') });
  else if (moves.length) list = t('cmd.legal.move', { moves: moves.map(([from, tos]) => t('cmd.legal.from', { from, to: tos.join(t('say.or')) })).join('; ') });
  else if (snap.selectable.length) list = t('cmd.legal.place', { points: snap.selectable.join(', ') });
  else list = t('say.none');
  return `${mover}: ${list}`;
}

/**
 * Where the game stands: whose turn, a removal owed, or the end and why.
 * @param {Snapshot} snap @param {Side | null} seat  the person's side, or null (same device, watching)
 * @param {Translate} t
 */
export function stateWords(snap, seat, t) {
  const side = (/** @type {Side} */ s) => t(`color.${s}`);
  const out = snap.outcome;
  if (out) {
    // An aborted round (an online clock's first turn not made) is no draw: nobody played it.
    const result =
      out.kind === 'win' && out.winner ? t('result.win', { side: side(out.winner) }) : out.kind === 'aborted' ? t('clock.result.aborted') : t('result.draw');
    // Worded for the person's seat (or of the sides), as the result panel says it.
    const reason = reasonText({ ...out, reason: out.reason ?? out.kind }, seat, t);
    return t('say.gameOver', { result, reason });
  }
  if (snap.pendingRemovals > 0) {
    return snap.turn === seat ? t('say.youRemove', { side: side(other(snap.turn)) }) : t('say.mustRemove', { side: side(snap.turn) });
  }
  return snap.turn === seat ? t('say.yourTurn') : t('say.toMove', { side: side(snap.turn) });
}
