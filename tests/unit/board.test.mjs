import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  accessibleName,
  blankSnapshot,
  clickPoint,
  closedMillLines,
  EMPTY_UI,
  lastTurnMarks,
  moveFocus,
  newGameNeedsConfirm,
  reconcile,
  recordRows,
  statusOf,
} from '../../static/js/board.js';
import { translator } from '../../static/js/i18n.js';
import { movingSnapshot, snapshot, topology } from './helpers.mjs';

test('placing: a click on a free legal point places there', () => {
  const r = clickPoint(snapshot(), EMPTY_UI, 'd6');
  assert.equal(r.action, 'd6');
  assert.equal(r.ui.selected, null);
});

test('placing: a point the snapshot does not offer does nothing', () => {
  const s = snapshot({ pieces: { d6: 'dark' }, selectable: ['a1'] });
  assert.equal(clickPoint(s, EMPTY_UI, 'd6').action, null);
  assert.equal(clickPoint(s, EMPTY_UI, 'g7').action, null);
});

test('moving: select a piece, then a highlighted destination moves it', () => {
  const s = movingSnapshot();
  const first = clickPoint(s, EMPTY_UI, 'a1');
  assert.equal(first.action, null);
  assert.equal(first.ui.selected, 'a1');
  const second = clickPoint(s, first.ui, 'a4');
  assert.equal(second.action, 'a1-a4');
  assert.equal(second.ui.selected, null);
});

test('moving: a non-destination drops the selection and plays nothing', () => {
  const s = movingSnapshot();
  const { ui } = clickPoint(s, EMPTY_UI, 'a1');
  for (const p of ['g1', 'b2', 'g7', 'd7']) {
    const r = clickPoint(s, ui, p);
    assert.equal(r.action, null, p);
    assert.equal(r.ui.selected, null, p);
  }
});

test('moving: a blocked own piece cannot be selected; clicking the selection again drops it', () => {
  const s = movingSnapshot();
  assert.equal(clickPoint(s, EMPTY_UI, 'b2').ui.selected, null);
  const { ui } = clickPoint(s, EMPTY_UI, 'a1');
  assert.equal(clickPoint(s, ui, 'a1').ui.selected, null);
});

test('moving: clicking another movable piece changes the selection', () => {
  const s = movingSnapshot({ selectable: ['a1', 'b2'], destinations: { a1: ['a4'], b2: ['b4', 'd2'] } });
  const { ui } = clickPoint(s, EMPTY_UI, 'a1');
  const r = clickPoint(s, ui, 'b2');
  assert.equal(r.ui.selected, 'b2');
  assert.equal(clickPoint(s, r.ui, 'd2').action, 'b2-d2');
  assert.equal(clickPoint(s, r.ui, 'a4').action, null);
});

test('removal: only removable pieces answer, with an x action', () => {
  const s = movingSnapshot({ pendingRemovals: 1, selectable: ['g7'], destinations: {}, removable: ['g7'] });
  assert.equal(clickPoint(s, EMPTY_UI, 'g7').action, 'xg7');
  assert.equal(clickPoint(s, EMPTY_UI, 'a1').action, null);
  assert.equal(clickPoint(s, EMPTY_UI, 'd7').action, null);
});

test('a read-only board or a finished game never produces an action', () => {
  assert.equal(clickPoint(snapshot(), EMPTY_UI, 'd6', false).action, null);
  const over = snapshot({ outcome: { kind: 'draw', reason: 'threefold' } });
  assert.equal(clickPoint(over, EMPTY_UI, 'd6').action, null);
});

test('reconcile drops a selection the new snapshot no longer allows', () => {
  const ui = { selected: 'a1', focus: 'a1' };
  assert.equal(reconcile(ui, movingSnapshot()).selected, 'a1');
  assert.equal(reconcile(ui, movingSnapshot({ destinations: {} })).selected, null);
  assert.equal(reconcile(ui, movingSnapshot({ pendingRemovals: 1 })).selected, null);
});

test('last turn marks: placement, move, and removal', () => {
  assert.deepEqual(lastTurnMarks(snapshot({ lastTurn: ['d6'] })), { from: null, to: 'd6', removed: [] });
  assert.deepEqual(lastTurnMarks(snapshot({ lastTurn: ['f4-g4', 'xb6'] })), { from: 'f4', to: 'g4', removed: ['b6'] });
  assert.deepEqual(lastTurnMarks(snapshot()), { from: null, to: null, removed: [] });
});

test('arrow keys follow the lines, then the nearest point that way', () => {
  const cases = [
    ['a1', 'ArrowUp', 'a4'],
    ['a1', 'ArrowRight', 'd1'],
    ['a1', 'ArrowLeft', 'a1'],
    ['a1', 'ArrowDown', 'a1'],
    ['d2', 'ArrowUp', 'd3'],
    ['d3', 'ArrowUp', 'd5'],
    ['c4', 'ArrowRight', 'e4'],
    ['b4', 'ArrowUp', 'b6'],
    ['b6', 'ArrowUp', 'a7'],
    ['g7', 'ArrowLeft', 'd7'],
    ['d7', 'ArrowDown', 'd6'],
  ];
  for (const [from, key, to] of cases) assert.equal(moveFocus(topology, from, key), to, `${from} ${key}`);
});

test('every point can reach every other point with arrow keys', () => {
  const names = topology.points.map((p) => p.name);
  const seen = new Set(['a1']);
  const queue = ['a1'];
  while (queue.length) {
    const p = queue.shift();
    for (const key of ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']) {
      const q = moveFocus(topology, p, key);
      if (!seen.has(q)) {
        seen.add(q);
        queue.push(q);
      }
    }
  }
  assert.deepEqual([...seen].sort(), [...names].sort());
});

test('status says what to do in each situation', () => {
  assert.equal(statusOf(snapshot(), EMPTY_UI).key, 'status.place');
  assert.equal(statusOf(movingSnapshot(), EMPTY_UI).key, 'status.move');
  assert.equal(statusOf(movingSnapshot(), { selected: 'a1' }).key, 'status.moveTo');
  const flying = movingSnapshot({ phase: { light: 'flying', dark: 'moving' } });
  assert.equal(statusOf(flying, EMPTY_UI).key, 'status.fly');
  assert.equal(statusOf(flying, { selected: 'a1' }).key, 'status.flyTo');
  const removing = movingSnapshot({ pendingRemovals: 1 });
  assert.deepEqual(statusOf(removing, EMPTY_UI).key, 'status.remove.dark');
  assert.deepEqual(statusOf(removing, EMPTY_UI, 'dark').key, 'status.waitRemove');
  assert.deepEqual(statusOf(snapshot(), EMPTY_UI, 'dark').key, 'status.waitMove');
  const won = statusOf(snapshot({ outcome: { kind: 'win', winner: 'dark', reason: 'blocked' } }), EMPTY_UI);
  assert.equal(won.key, 'result.win');
  assert.equal(won.params.side, 'dark');
  assert.equal(won.loser, 'light');
});

test('accessible names say the point, its piece and what it can do', () => {
  const t = translator('en');
  const s = movingSnapshot({ lastTurn: ['d1-a1'] });
  assert.equal(accessibleName(s, EMPTY_UI, 'a1', t), 'a1, Light piece, can move, last move');
  assert.equal(accessibleName(s, EMPTY_UI, 'b2', t), 'b2, Light piece');
  assert.equal(accessibleName(s, { selected: 'a1' }, 'a4', t), 'a4, empty, can move here');
  assert.equal(accessibleName(snapshot(), EMPTY_UI, 'd6', t), 'd6, empty, can place');
  const removing = movingSnapshot({ pendingRemovals: 1, removable: ['g7'] });
  assert.equal(accessibleName(removing, EMPTY_UI, 'g7', t), 'g7, Dark piece, can be removed');
  const ru = translator('ru');
  assert.equal(accessibleName(removing, EMPTY_UI, 'g7', ru), 'g7, фишка: Тёмные, можно снять');
});

test('a closed mill: its line is drawn end to end, fresh while the removal is owed', () => {
  const pieces = { a1: 'light', d1: 'light', g1: 'light', b2: 'dark' };
  // The snapshot's order within a line is not the board's: the ends come from geometry.
  const owed = snapshot({ pieces, pendingRemovals: 1, lastTurn: ['g1'], closedMills: [['g1', 'a1', 'd1']] });
  assert.deepEqual(closedMillLines(topology, owed), [{ points: ['a1', 'd1', 'g1'], from: 'a1', to: 'g1', fresh: true }]);
  const done = snapshot({ pieces, lastTurn: ['g1', 'xd2'], closedMills: [['a1', 'd1', 'g1']], turn: 'dark' });
  assert.deepEqual(closedMillLines(topology, done), [{ points: ['a1', 'd1', 'g1'], from: 'a1', to: 'g1', fresh: false }]);
  // A vertical line runs bottom to top; two mills at once give two lines.
  const two = snapshot({ pendingRemovals: 1, closedMills: [['a7', 'a4', 'a1'], ['g7', 'd7', 'a7']] });
  assert.deepEqual(
    closedMillLines(topology, two).map((l) => [l.from, l.to]),
    [
      ['a1', 'a7'],
      ['a7', 'g7'],
    ],
  );
  // Older snapshots (no field) and unknown points draw nothing.
  assert.deepEqual(closedMillLines(topology, snapshot()), []);
  assert.deepEqual(closedMillLines(topology, snapshot({ closedMills: [['a1', 'zz', 'g1']] })), []);
  // The points of the mill say so to screen readers.
  const t = translator('en');
  assert.equal(accessibleName(done, EMPTY_UI, 'g1', t), 'g1, Light piece, last move, in the mill just closed');
  assert.equal(accessibleName(done, EMPTY_UI, 'b2', t), 'b2, Dark piece');
});

test('the record is shown in numbered pairs', () => {
  assert.deepEqual(recordRows(['d6', 'a1', 'g1xd2']), [
    { n: 1, light: 'd6', dark: 'a1' },
    { n: 2, light: 'g1xd2', dark: null },
  ]);
  assert.deepEqual(recordRows([]), []);
});

test('the blank snapshot offers nothing to click', () => {
  const s = blankSnapshot();
  for (const p of ['a1', 'd6', 'g7']) assert.equal(clickPoint(s, EMPTY_UI, p).action, null);
  assert.deepEqual(closedMillLines(topology, s), []);
});

test('the blank snapshot takes the pieces in hand from the start it is given', () => {
  const start = snapshot({ inHand: { light: 12, dark: 12 } });
  const s = blankSnapshot(start);
  assert.deepEqual(s.inHand, { light: 12, dark: 12 });
  assert.deepEqual(s.selectable, [], 'still nothing to click');
  assert.deepEqual(blankSnapshot().inHand, { light: 0, dark: 0 });
});

test('New game asks only while a game is under way', () => {
  assert.equal(newGameNeedsConfirm(snapshot()), false, 'empty');
  assert.equal(newGameNeedsConfirm(snapshot({ actions: 1 })), true);
  assert.equal(newGameNeedsConfirm(movingSnapshot({ pendingRemovals: 1 })), true);
  assert.equal(newGameNeedsConfirm(snapshot({ actions: 9, outcome: { kind: 'draw', reason: 'threefold' } })), false, 'over');
  // Vs computer with the person on Dark: the computer's opening placement is no game yet.
  assert.equal(newGameNeedsConfirm(snapshot({ actions: 1 }), 1), false);
  assert.equal(newGameNeedsConfirm(snapshot({ actions: 2 }), 1), true);
  assert.equal(newGameNeedsConfirm(null), false);
});
