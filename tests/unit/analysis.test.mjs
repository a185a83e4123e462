// Review's analysis: the marks by the drop a turn caused, which positions are judged, the
// graph's geometry and the run that judges them one by one — and, on the real engine in
// the wasm, that a turn which throws a mill away is marked and the better turn named.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import {
  betterHint,
  classify,
  createAnalysis,
  describeJudgement,
  dropOf,
  graphGeometry,
  markTurns,
  tablesVerdict,
  THRESHOLDS,
  turnAtX,
  turnEnds,
} from '../../static/js/analysis.js';
import { recordsAt, reviewPositions } from '../../static/js/review.js';
import { localGame } from '../../static/js/rules.js';
import { loadWasm } from './helpers.mjs';
import { TABLEBASE_MANIFEST } from '../../static/js/tablebase.js';

let mod;

before(async () => {
  mod = await loadWasm();
});

const START = '.../.../.../....../.../.../... l 9 9 0 0';

/** A judgement as the engine gives it, from Light's side. */
const judged = (toMove, value, best = null, actions = []) => ({
  ok: true,
  toMove,
  value,
  score: Math.round(Math.atanh(Math.max(-0.999, Math.min(0.999, value))) * 300),
  winIn: null,
  over: false,
  best,
  actions,
  pv: best ? [best] : [],
  depth: 4,
});

test('a drop is marked by the documented thresholds, and the engine’s own turn is good', () => {
  assert.deepEqual(THRESHOLDS, { inaccuracy: 0.1, mistake: 0.2, blunder: 0.3 });
  assert.equal(classify(0), 'good');
  assert.equal(classify(0.099), 'good');
  assert.equal(classify(0.1), 'inaccuracy');
  assert.equal(classify(0.199), 'inaccuracy');
  assert.equal(classify(0.2), 'mistake');
  assert.equal(classify(0.3), 'blunder');
  assert.equal(classify(2), 'blunder');
  assert.equal(classify(1.5, true), 'good', 'the engine’s choice');
  assert.equal(classify(Number.NaN), 'good', 'no figure, no mark');
});

/** An exact judgement of the tables: `winIn` positive when Light wins, 0 a draw. */
const exact = (toMove, winIn) => ({ ...judged(toMove, Math.sign(winIn)), tablebase: true, winIn: winIn || null });

test('the tables mark a turn that threw away the win or let the draw slip, for either side', () => {
  // Light wins in 9, plays a turn after which the tables say draw: the win thrown away.
  assert.equal(tablesVerdict(exact('light', 9), exact('dark', 0)), 'threw-win');
  // ... or a loss (Dark now wins in 6).
  assert.equal(tablesVerdict(exact('light', 9), exact('dark', -6)), 'threw-win');
  // Dark's win (winIn negative) kept: nothing to say; thrown into a draw: marked.
  assert.equal(tablesVerdict(exact('dark', -9), exact('light', -8)), null);
  assert.equal(tablesVerdict(exact('dark', -9), exact('light', 0)), 'threw-win');
  // A draw kept, and a draw lost, for Dark and for Light.
  assert.equal(tablesVerdict(exact('dark', 0), exact('light', 0)), null);
  assert.equal(tablesVerdict(exact('dark', 0), exact('light', 7)), 'let-draw');
  assert.equal(tablesVerdict(exact('light', 0), exact('dark', -3)), 'let-draw');
  // A lost position stays lost whatever is played.
  assert.equal(tablesVerdict(exact('light', -5), exact('dark', -2)), null);
  // The game over after the turn is exact too: Light's win thrown into a drawn end.
  assert.equal(tablesVerdict(exact('light', 3), { ...judged('dark', 0), over: true }), 'threw-win');
  assert.equal(tablesVerdict(exact('light', 1), { ...judged('dark', 1), over: true }), null);
  // Outside the tables on either side: no verdict (the search's figures are not exact).
  assert.equal(tablesVerdict(judged('light', 0.9), exact('dark', 0)), null);
  assert.equal(tablesVerdict(exact('light', 9), judged('dark', 0)), null);
  assert.equal(tablesVerdict(exact('light', 9), null), null);
  // In the marks: such a turn is a blunder even when the search called it its own.
  const marks = markTurns(['a1-a4', 'g7-g4'], [
    { ...exact('light', 9), best: 'a1-a4' },
    { ...exact('dark', 0), best: 'g7-g4' },
    exact('light', 0),
  ]);
  assert.equal(marks[0].tables, 'threw-win');
  assert.equal(marks[0].mark, 'blunder');
  assert.equal(marks[1].tables, null);
  assert.equal(marks[1].mark, 'good');
});

test('the drop is the mover’s, whichever side moved, and never negative', () => {
  // Light moves: Light's value falls from +0.4 to 0.
  assert.ok(Math.abs(dropOf(judged('light', 0.4), judged('dark', 0)) - 0.4) < 1e-9);
  // Dark moves: Light's value rises from 0 to +0.25, Dark's falls by as much.
  assert.ok(Math.abs(dropOf(judged('dark', 0), judged('light', 0.25)) - 0.25) < 1e-9);
  // A mover who did better than the search before expected loses nothing.
  assert.equal(dropOf(judged('light', 0), judged('dark', 0.3)), 0);
  assert.equal(dropOf(judged('dark', 0), judged('light', -0.3)), 0);
});

test('turns are marked once both their positions are judged, with the better turn when not good', () => {
  const record = ['d6', 'a1', 'g7'];
  const j = [
    judged('light', 0.05, 'd6', ['d6']),
    judged('dark', 0.05, 'd2', ['d2']),
    judged('light', 0.5, 'a7xd2', ['a7', 'xd2']),
    null,
  ];
  const marks = markTurns(record, j);
  assert.equal(marks.length, 3);
  assert.deepEqual(marks[0], { mark: 'good', drop: 0, tables: null, mover: 'light', better: null, betterActions: [] });
  assert.equal(marks[1].mark, 'blunder', 'Dark let Light gain 0.45');
  assert.equal(marks[1].mover, 'dark');
  assert.equal(marks[1].better, 'd2');
  assert.equal(marks[2], null, 'the position after it is not judged yet');
  // A failed judgement marks nothing either.
  assert.equal(markTurns(['d6'], [judged('light', 0), { ok: false }])[0], null);
  // The better turn on the board: a placement with its removal, or a move.
  assert.deepEqual(betterHint({ ...marks[1], better: 'a7xd2', betterActions: ['a7', 'xd2'] }), { from: null, to: 'a7', removed: ['d2'] });
  assert.deepEqual(betterHint({ ...marks[1], better: 'a1-a4', betterActions: ['a1-a4'] }), { from: 'a1', to: 'a4', removed: [] });
  assert.equal(betterHint(marks[0]), null);
  assert.equal(betterHint(null), null);
});

test('the positions judged are the start and the end of each complete turn, not mid-turn', () => {
  const game = localGame(mod);
  const positions = reviewPositions(game, { start: START, actions: ['a1', 'g7', 'a4', 'g1', 'a7', 'xg1', 'g4'] });
  assert.equal(positions.length, 8);
  const ends = turnEnds(positions);
  assert.deepEqual(ends, [0, 1, 2, 3, 4, 6, 7], 'a7 waits for its removal: position 5 is mid-turn');
  const records = recordsAt({ start: START, actions: ['a1', 'g7', 'a4', 'g1', 'a7', 'xg1', 'g4'] }, positions, ends);
  assert.deepEqual(JSON.parse(records[5]), { start: START, actions: ['a1', 'g7', 'a4', 'g1', 'a7', 'xg1'] });
  assert.deepEqual(JSON.parse(records[0]).actions, []);
});

test('the graph puts Light up, spreads the turns over the width and maps a click to the nearest turn', () => {
  const g = graphGeometry([judged('light', 0), judged('dark', 1), null, judged('dark', -1)], 300, 90, 5, 0);
  assert.deepEqual(g.xs, [0, 100, 200, 300]);
  assert.equal(g.y(1), 5);
  assert.equal(g.y(-1), 85);
  assert.equal(g.y(0), 45);
  assert.equal(g.y(7), 5, 'clamped');
  assert.equal(g.line, '0.0,45.0 100.0,5.0 300.0,85.0', 'a position not judged yet is left out');
  assert.equal(g.area, '0.0,45.0 0.0,45.0 100.0,5.0 300.0,85.0 300.0,45.0');
  assert.equal(graphGeometry([], 300, 90).line, '');
  assert.deepEqual(graphGeometry([null, null, null], 300, 90, 4, 10).xs, [10, 150, 290], 'room at the sides');
  assert.equal(turnAtX(0, 300, 4, 0), 0);
  assert.equal(turnAtX(140, 300, 4, 0), 1);
  assert.equal(turnAtX(260, 300, 4, 0), 3);
  assert.equal(turnAtX(999, 300, 4, 0), 3);
  assert.equal(turnAtX(-5, 300, 4, 0), 0);
  assert.equal(turnAtX(50, 300, 1), 0);
  // Drawn at 600 px with 6 of 300 units at each side: 12 px, then 576 px for 3 steps of 192.
  assert.equal(turnAtX(12, 600, 4, 6), 0);
  assert.equal(turnAtX(12 + 192 * 2 + 90, 600, 4, 6), 2);
  assert.equal(turnAtX(12 + 192 * 2 + 100, 600, 4, 6), 3);
});

test('a judgement reads as a score in pieces, a forced result, or the end', () => {
  assert.deepEqual(describeJudgement({ ...judged('light', 0), score: 130 }), { key: 'analysis.score', params: { score: '+1.3' } });
  assert.deepEqual(describeJudgement({ ...judged('light', 0), score: -45 }), { key: 'analysis.score', params: { score: '−0.5' } });
  assert.deepEqual(describeJudgement({ ...judged('light', 0), score: 0 }), { key: 'analysis.score', params: { score: '±0.0' } });
  assert.deepEqual(describeJudgement({ ...judged('dark', -1), winIn: -7 }), { key: 'analysis.winIn', params: { side: 'dark', turns: 7 } });
  assert.deepEqual(describeJudgement({ ...judged('dark', -1), over: true }), { key: 'analysis.over', params: {} });
  assert.deepEqual(describeJudgement({ ...judged('light', 1), winIn: 3, tablebase: true }), { key: 'analysis.tablebaseWin', params: { side: 'light', turns: 3 } });
  assert.deepEqual(describeJudgement({ ...judged('light', 0), score: 0, tablebase: true }), { key: 'analysis.tablebaseDraw', params: {} });
});

test('the run judges the positions in order, one at a time, and stop() cancels the search under way', async () => {
  const asked = [];
  let cancelled = 0;
  let release = null;
  const analyst = {
    search(request) {
      asked.push(request);
      return new Promise((resolve) => {
        release = () => resolve(judged('light', asked.length / 10));
      });
    },
    cancel() {
      cancelled++;
      release?.();
    },
  };
  let updates = 0;
  const run = createAnalysis({ records: ['r0', 'r1', 'r2'], analyst, onJudged: () => updates++, nodes: 50 });
  assert.equal(run.done, 0);
  run.start();
  assert.deepEqual(asked, [{ kind: 'analyse', record: 'r0', nodes: 50, tablebase: TABLEBASE_MANIFEST }]);
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(run.done, 1);
  assert.equal(updates, 1);
  assert.equal(asked.length, 2, 'the next position once the first is judged');
  run.stop();
  await new Promise((r) => setImmediate(r));
  assert.equal(cancelled, 1);
  assert.equal(run.done, 1, 'the cancelled answer is not kept');
  assert.equal(asked.length, 2, 'nothing asked after stop');
  assert.equal(run.stopped, true);
  run.stop();
  assert.equal(cancelled, 1, 'stopping twice cancels once');
});

test('on the real engine, a turn that leaves a mill to the opponent is marked, with the block as the better turn', async () => {
  // Light threatens a7 (a1, a4); Dark threatens g4 (g7, g1). Light's d6 neither closes its
  // mill nor blocks Dark's: Dark closes g4 next.
  const record = { start: START, actions: ['a1', 'g7', 'a4', 'g1', 'd6'] };
  const positions = reviewPositions(localGame(mod), record);
  const ends = turnEnds(positions);
  const analyst = {
    search: async (request) => JSON.parse(mod.analyse_nodes(request.record, request.nodes)),
    cancel() {},
  };
  let finished;
  const done = new Promise((r) => (finished = r));
  const run = createAnalysis({
    records: recordsAt(record, positions, ends),
    analyst,
    nodes: 100_000,
    onJudged: () => run.done === ends.length && finished(),
  });
  run.start();
  await done;
  assert.ok(run.judged.every((j) => j.ok), JSON.stringify(run.judged));
  const marks = markTurns(positions.at(-1).record, run.judged);
  assert.equal(marks.length, 5);
  const d6 = marks[4];
  assert.equal(d6.mover, 'light');
  assert.notEqual(d6.mark, 'good', JSON.stringify({ d6, judged: run.judged.slice(-2) }));
  assert.ok(d6.drop >= THRESHOLDS.inaccuracy);
  assert.match(d6.better, /^(a7x|g4)/, 'close the mill or block Dark’s');
  assert.ok(run.judged[5].value < run.judged[4].value, 'Light’s value fell');
});

test('on the real engine, the same game is judged the same way twice (a budget of nodes, not time)', async () => {
  const record = { start: START, actions: ['a1', 'g7', 'a4', 'g1', 'd6', 'g4', 'xa1', 'd2'] };
  const positions = reviewPositions(localGame(mod), record);
  const ends = turnEnds(positions);
  const judgeAll = async () => {
    const analyst = { search: async (request) => JSON.parse(mod.analyse_nodes(request.record, request.nodes)), cancel() {} };
    let finished;
    const done = new Promise((r) => (finished = r));
    const run = createAnalysis({ records: recordsAt(record, positions, ends), analyst, nodes: 30_000, onJudged: () => run.done === ends.length && finished() });
    run.start();
    await done;
    return run.judged.map((j) => ({ best: j.best, score: j.score, depth: j.depth, nodes: j.nodes }));
  };
  const first = await judgeAll();
  assert.ok(first.every((j) => j.depth >= 1), JSON.stringify(first));
  assert.deepEqual(await judgeAll(), first);
});
