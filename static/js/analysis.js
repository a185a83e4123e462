// Owns the engine's judgement of a game under review: which positions are judged (the
// start and the end of every complete turn), asking the engine for each in turn with a
// fixed budget of nodes, so a review says the same each time (in its own Web Worker, so the page never freezes; stopped when the
// review is left), each turn's mark by the drop it caused, and the evaluation graph.
//
// The engine (crates/mill-wasm/src/analysis.rs) answers every position from Light's
// side: `value` from −1 (Dark wins) to +1 (Light wins), with the side to move. This
// module only compares two answers; it knows no rules.
//
// Marks: a turn's drop is how much its mover's value fell from the position before the
// turn to the position after it (in value units, 2 = from a won game to a lost one):
//   good        the drop is under INACCURACY, or the turn is the engine's own choice
//   inaccuracy  drop ≥ 0.10 (about a third of a piece in a level game)
//   mistake     drop ≥ 0.20
//   blunder     drop ≥ 0.30 (a whole piece in a level game, a won game thrown away)
// As value = tanh(score / 3 pieces), the same lost piece weighs less once a game is
// decided. The engine's best turn always counts as good: the two searches behind a drop
// see the game from different depths, and a drop there is the search's noise.

import { lastTurnMarks } from './board.js';
import { TABLEBASE_MANIFEST } from './tablebase.js';

/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').Snapshot} Snapshot */

/**
 * The search's budget for each position, in nodes (positions visited), not time: the same
 * game is judged the same way each time it is reviewed, on any device, however busy.
 */
export const ANALYSIS_NODES = 300_000;

/** The thresholds of the marks, in value units (see the top of this file). */
export const THRESHOLDS = Object.freeze({ inaccuracy: 0.1, mistake: 0.2, blunder: 0.3 });

/** @typedef {'good' | 'inaccuracy' | 'mistake' | 'blunder'} Mark */

/** The graph's drawing box; the page scales it to the panel's width. */
export const GRAPH = Object.freeze({ width: 300, height: 90 });
/** Room at the graph's sides, in its drawing's units. */
const GRAPH_XPAD = 6;

/** The glyph each mark shows beside its turn. @type {Readonly<Record<Mark, string>>} */
export const GLYPHS = Object.freeze({ good: '', inaccuracy: '?!', mistake: '?', blunder: '??' });

/**
 * @typedef {object} Judgement  the engine's answer for one position (analyse in the wasm)
 * @property {boolean} ok
 * @property {Side} toMove
 * @property {number} score  Light's, in evaluation units (100 a piece)
 * @property {number} value  from −1 (Dark wins) to +1 (Light wins)
 * @property {number | null} winIn  a forced result in turns, positive when Light wins
 * @property {boolean} over  the game has ended in this position
 * @property {boolean} [tablebase]  the value is the endgame tablebase's (exact)
 * @property {string | null} best  the engine's turn in notation; null when over
 * @property {string[]} actions  that turn's actions (["f4-g4", "xb6"])
 * @property {string[]} pv  the line it expects
 * @property {number} depth
 * @property {{ code: string, message: string }} [error]  when not ok
 */

/**
 * What the endgame tables say a turn did, where they cover both its positions: it threw
 * away a won game (into a draw or a loss), or let a drawn one slip into a loss.
 * @typedef {'threw-win' | 'let-draw'} TablesVerdict
 */

/**
 * @typedef {object} TurnMark  one complete turn, judged
 * @property {Mark} mark
 * @property {number} drop  how much the mover's value fell (≥ 0)
 * @property {TablesVerdict | null} tables  the tables' verdict, when they cover the turn
 * @property {Side} mover
 * @property {string | null} better  the engine's turn instead, when the mark is not good
 * @property {string[]} betterActions  its actions, to show on the board
 */

/**
 * The mark of a drop; the engine's own turn is always good.
 * @param {number} drop @param {boolean} playedBest @returns {Mark}
 */
export function classify(drop, playedBest = false) {
  if (playedBest || !(drop >= THRESHOLDS.inaccuracy)) return 'good';
  if (drop >= THRESHOLDS.blunder) return 'blunder';
  if (drop >= THRESHOLDS.mistake) return 'mistake';
  return 'inaccuracy';
}

/**
 * How much the mover's value fell over one turn, from the judgements before and after
 * it (never negative: a turn cannot do better than the position allowed).
 * @param {Judgement} before @param {Judgement} after @returns {number}
 */
export function dropOf(before, after) {
  const fall = before.toMove === 'light' ? before.value - after.value : after.value - before.value;
  return Math.max(0, fall);
}

/**
 * The result of a judged position for `side`: 1 won, 0 drawn, −1 lost; null unless it is
 * exact (the tables' value, or the game over).
 * @param {Judgement} j @param {Side} side @returns {number | null}
 */
export function exactResult(j, side) {
  /** @type {number} */
  let light;
  if (j.over) light = Math.sign(j.value);
  else if (j.tablebase) light = Math.sign(j.winIn ?? 0);
  else return null;
  return side === 'light' ? light : -light;
}

/**
 * The tables' verdict on one turn, from the judgements before and after it: both must be
 * exact (the position before in the tables, the one after in them or the game over).
 * A won position left won, or a lost one, has none.
 * @param {Judgement | null | undefined} before @param {Judgement | null | undefined} after
 * @returns {TablesVerdict | null}
 */
export function tablesVerdict(before, after) {
  if (!before?.ok || !after?.ok || before.over || !before.tablebase) return null;
  const was = exactResult(before, before.toMove);
  const now = exactResult(after, before.toMove);
  if (was === null || now === null) return null;
  if (was > 0 && now < 1) return 'threw-win';
  if (was === 0 && now < 0) return 'let-draw';
  return null;
}

/**
 * The positions the engine judges: the start, and the end of every complete turn, as
 * indices into the review's positions (one per action); entry k ends turn k. A position
 * waiting for its removal is mid-turn and not judged.
 * @param {Snapshot[]} positions @returns {number[]}
 */
export function turnEnds(positions) {
  /** @type {number[]} */
  const ends = [];
  positions.forEach((snap, i) => {
    if (snap.pendingRemovals === 0 && ends.length === snap.record.length) ends.push(i);
  });
  return ends;
}

/**
 * The turn a position belongs to on the graph: the complete turns before it.
 * @param {Snapshot} snap @returns {number}
 */
export const turnOf = (snap) => snap.record.length;

/**
 * Each complete turn's mark, once both of its positions are judged (else null).
 * @param {string[]} record  the turns in notation @param {(Judgement | null)[]} judged  by turn end
 * @returns {(TurnMark | null)[]}  entry k - 1 for turn k
 */
export function markTurns(record, judged) {
  return record.map((turn, i) => {
    const before = judged[i];
    const after = judged[i + 1];
    if (!before?.ok || !after?.ok) return null;
    const drop = dropOf(before, after);
    const tables = tablesVerdict(before, after);
    // The tables' verdict is exact: such a turn is a blunder whatever the search's noise.
    const mark = tables ? 'blunder' : classify(drop, before.best === turn);
    const bad = mark !== 'good';
    return { mark, drop, tables, mover: before.toMove, better: bad ? before.best : null, betterActions: bad ? before.actions : [] };
  });
}

/**
 * The better turn to draw on the board: from, to and the removals, or null.
 * @param {TurnMark | null | undefined} mark @returns {{ from: string | null, to: string | null, removed: string[] } | null}
 */
export function betterHint(mark) {
  if (!mark?.better) return null;
  return lastTurnMarks(/** @type {Snapshot} */ ({ lastTurn: mark.betterActions }));
}

/**
 * A judgement in words' parts: "+1.3", "−0.5", or a forced result.
 * @param {Judgement} j @returns {{ key: string, params: Record<string, string | number> }}
 */
export function describeJudgement(j) {
  if (j.over) return { key: 'analysis.over', params: {} };
  if (j.tablebase) {
    if (!j.winIn) return { key: 'analysis.tablebaseDraw', params: {} };
    return { key: 'analysis.tablebaseWin', params: { side: j.winIn > 0 ? 'light' : 'dark', turns: Math.abs(j.winIn) } };
  }
  if (j.winIn !== null && j.winIn !== undefined) {
    return { key: 'analysis.winIn', params: { side: j.winIn > 0 ? 'light' : 'dark', turns: Math.abs(j.winIn) } };
  }
  const pieces = j.score / 100;
  const text = `${pieces > 0 ? '+' : pieces < 0 ? '−' : '±'}${Math.abs(pieces).toFixed(1)}`;
  return { key: 'analysis.score', params: { score: text } };
}

/**
 * The graph's geometry, pure: x for each turn end, y for each value (Light up), as
 * numbers in a `width` × `height` box with `pad` above and below and `xpad` at the sides
 * (so the first and last turns' dots are whole).
 * @param {(Judgement | null)[]} judged  by turn end @param {number} width @param {number} height
 * @param {number} [pad] @param {number} [xpad]
 * @returns {{ xs: number[], line: string, area: string, y: (value: number) => number }}
 */
export function graphGeometry(judged, width, height, pad = 4, xpad = GRAPH_XPAD) {
  const n = judged.length;
  const xs = judged.map((_, k) => (n <= 1 ? width / 2 : xpad + (k * (width - 2 * xpad)) / (n - 1)));
  const y = (/** @type {number} */ value) => pad + ((1 - Math.max(-1, Math.min(1, value))) / 2) * (height - 2 * pad);
  /** @type {string[]} */
  const pts = [];
  judged.forEach((j, k) => {
    if (j?.ok) pts.push(`${xs[k].toFixed(1)},${y(j.value).toFixed(1)}`);
  });
  const mid = y(0).toFixed(1);
  const firstX = pts.length ? pts[0].split(',')[0] : '0';
  const lastX = pts.length ? pts[pts.length - 1].split(',')[0] : '0';
  return {
    xs,
    line: pts.join(' '),
    area: pts.length ? `${firstX},${mid} ${pts.join(' ')} ${lastX},${mid}` : '',
    y,
  };
}

/**
 * The turn end nearest to a click at `x` on a graph drawn `width` wide over `count` turn
 * ends, `xpad` of the drawing's GRAPH.width at each side.
 * @param {number} x @param {number} width @param {number} count @param {number} [xpad]
 * @returns {number}
 */
export function turnAtX(x, width, count, xpad = GRAPH_XPAD) {
  if (count <= 1 || width <= 0) return 0;
  const side = (xpad / GRAPH.width) * width;
  const inner = width - 2 * side;
  return Math.max(0, Math.min(count - 1, Math.round(((x - side) / inner) * (count - 1))));
}

/**
 * @typedef {object} Analyst  the worker that judges positions (computer.js's engineWorker)
 * @property {(request: object) => Promise<any>} search
 * @property {() => void} cancel
 */

/**
 * Judges the positions one after the other, calling `onJudged` after each, until all
 * are done or `stop()` is called (which cancels the search under way).
 * @param {{ records: string[], analyst: Analyst, onJudged: () => void, nodes?: number }} options
 *   records: the game's record (export_record JSON) up to each turn end; nodes: each search's budget
 */
export function createAnalysis({ records, analyst, onJudged, nodes = ANALYSIS_NODES }) {
  /** @type {(Judgement | null)[]} */
  const judged = records.map(() => null);
  let stopped = false;
  let next = 0;

  async function run() {
    while (!stopped && next < records.length) {
      const k = next++;
      const reply = await analyst.search({ kind: 'analyse', record: records[k], nodes, tablebase: TABLEBASE_MANIFEST });
      if (stopped) return;
      judged[k] = reply?.ok ? reply : { ...reply, ok: false };
      onJudged();
    }
  }

  return {
    judged,
    /** Starts judging (once). */
    start() {
      run().catch((error) => console.warn('Mill: analysis stopped', error));
    },
    /** Stops judging and cancels the search under way. */
    stop() {
      if (stopped) return;
      stopped = true;
      analyst.cancel();
    },
    /** How many positions are judged so far. */
    get done() {
      return judged.filter(Boolean).length;
    },
    get stopped() {
      return stopped;
    },
  };
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Draws the evaluation graph into `svg`: Light's value over the game (up: Light better),
 * the marked turns as dots, the turn shown as a line.
 * @param {SVGSVGElement} svg @param {(Judgement | null)[]} judged  by turn end
 * @param {(TurnMark | null)[]} marks  by turn @param {number} current  the turn end shown
 */
export function drawGraph(svg, judged, marks, current) {
  const { width, height } = GRAPH;
  const g = graphGeometry(judged, width, height);
  const node = (/** @type {string} */ name, /** @type {Record<string, string | number>} */ attrs) => {
    const n = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    return n;
  };
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const children = [
    node('rect', { class: 'graph-dark', x: 0, y: g.y(0), width, height: height - g.y(0) }),
    node('line', { class: 'graph-mid', x1: 0, y1: g.y(0), x2: width, y2: g.y(0) }),
  ];
  if (g.area) children.push(node('polygon', { class: 'graph-area', points: g.area }));
  if (g.line) children.push(node('polyline', { class: 'graph-line', points: g.line }));
  marks.forEach((m, i) => {
    const j = judged[i + 1];
    if (!m || m.mark === 'good' || !j?.ok) return;
    children.push(node('circle', { class: `graph-mark ${m.mark}`, 'data-turn': i + 1, cx: g.xs[i + 1], cy: g.y(j.value), r: 3.5 }));
  });
  const x = g.xs[current] ?? 0;
  children.push(node('line', { class: 'graph-current', x1: x, y1: 0, x2: x, y2: height }));
  svg.replaceChildren(...children);
}
