// The rules page's pure decisions (static/js/rules-logic.js), from hand-built snapshots.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { byBoardOrder, checkMovers, highlightSummary, piecesOf, togglePick, turnNote } from '../../static/js/rules-logic.js';
import { movingSnapshot, snapshot } from './helpers.mjs';

// Dark to move after a blockade: a4 and c5 can move, a7 and f2 cannot.
const blockade = () =>
  movingSnapshot({
    turn: 'dark',
    pieces: { a7: 'dark', a4: 'dark', c5: 'dark', f2: 'dark', d2: 'light', f4: 'light' },
    selectable: ['a4', 'c5'],
    destinations: { a4: ['a1'], c5: ['d5'] },
  });

test('checkMovers accepts exactly the pieces with destinations, in any order', () => {
  const r = checkMovers(blockade(), ['c5', 'a4'], 'dark');
  assert.deepEqual(r, { ok: true, expected: ['a4', 'c5'], missing: [], extra: [] });
  assert.equal(checkMovers(blockade(), ['a4', 'c5', 'a4'], 'dark').ok, true, 'a piece picked twice counts once');
});

test('checkMovers refuses a list with a blocked piece or a missing one', () => {
  const extra = checkMovers(blockade(), ['a4', 'c5', 'f2'], 'dark');
  assert.equal(extra.ok, false);
  assert.deepEqual(extra.extra, ['f2']);
  assert.deepEqual(extra.missing, []);
  const missing = checkMovers(blockade(), ['a4'], 'dark');
  assert.equal(missing.ok, false);
  assert.deepEqual(missing.missing, ['c5']);
  assert.equal(checkMovers(blockade(), [], 'dark').ok, false);
  assert.equal(checkMovers(blockade(), ['a7'], 'dark').ok, false);
});

test('checkMovers will not judge a snapshot where the side is not to move', () => {
  assert.throws(() => checkMovers(blockade(), ['a4'], 'light'), /not light's turn/);
  assert.throws(() => checkMovers({ ...blockade(), pendingRemovals: 1 }, ['a4'], 'dark'), /not dark's turn/);
});

test('turnNote: a mill asks for a removal and names the offered and protected pieces', () => {
  const before = snapshot({ actions: 8 });
  const after = snapshot({
    actions: 9,
    pendingRemovals: 1,
    pieces: { a1: 'light', d1: 'light', g1: 'light', b6: 'dark', d6: 'dark', f6: 'dark', d2: 'dark' },
    removable: ['d2'],
    selectable: ['d2'],
  });
  assert.deepEqual(turnNote(before, after), {
    kind: 'mill',
    side: 'light',
    victim: 'dark',
    offered: ['d2'],
    protected: ['b6', 'd6', 'f6'],
  });
});

test('turnNote: the removal passes the turn; a quiet turn passes at once', () => {
  const removing = snapshot({ actions: 9, pendingRemovals: 1, removable: ['d2'] });
  const passed = snapshot({ actions: 10, turn: 'dark' });
  assert.deepEqual(turnNote(removing, passed), { kind: 'passed', side: 'light', next: 'dark' });
  const quiet = snapshot({ actions: 9, turn: 'dark' });
  assert.deepEqual(turnNote(snapshot({ actions: 8 }), quiet), { kind: 'quiet', side: 'light', next: 'dark' });
});

test('turnNote says nothing when nothing was played or the game ended', () => {
  const s = snapshot({ actions: 4 });
  assert.equal(turnNote(s, s), null);
  assert.equal(turnNote(null, s), null);
  const over = snapshot({ actions: 5, turn: 'dark', outcome: { kind: 'win', winner: 'light', reason: 'blocked' } });
  assert.equal(turnNote(s, over), null);
});

test('highlightSummary counts what the snapshot highlights in each phase', () => {
  assert.deepEqual(highlightSummary(snapshot({ selectable: ['a1', 'd1', 'g1'] })), {
    key: 'summary.placing',
    params: { side: 'light', n: 3 },
  });
  assert.deepEqual(highlightSummary(movingSnapshot({ destinations: { a1: ['a4', 'd1'], b2: ['d2'] } })), {
    key: 'summary.moving',
    params: { side: 'light', n: 2, moves: 3 },
  });
  const flying = movingSnapshot({
    phase: { light: 'flying', dark: 'moving' },
    destinations: { a1: ['b2', 'c3', 'd3'], g7: ['b2', 'c3', 'd3'] },
  });
  assert.deepEqual(highlightSummary(flying), { key: 'summary.flying', params: { side: 'light', n: 2, free: 3 } });
  assert.deepEqual(highlightSummary(snapshot({ pendingRemovals: 1, removable: ['d2', 'b4'] })), {
    key: 'summary.removing',
    params: { side: 'light', n: 2 },
  });
  assert.equal(highlightSummary(snapshot({ outcome: { kind: 'draw', reason: 'threefold' } })).key, 'summary.over');
});

test('piecesOf and togglePick keep points in reading order (rank 7 first, a to g)', () => {
  assert.deepEqual(piecesOf(blockade(), 'dark'), ['a7', 'c5', 'a4', 'f2']);
  assert.deepEqual(['a1', 'g7', 'b4', 'a4'].sort(byBoardOrder), ['g7', 'a4', 'b4', 'a1']);
  let picked = [];
  picked = togglePick(picked, 'f2');
  picked = togglePick(picked, 'a7');
  assert.deepEqual(picked, ['a7', 'f2']);
  assert.deepEqual(togglePick(picked, 'a7'), ['f2']);
});
