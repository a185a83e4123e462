import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { turnEnds } from '../../static/js/analysis.js';
import { reviewFromPath, reviewLink, reviewPositions, reviewStops, stepFor, turnCounter } from '../../static/js/review.js';
import { localGame } from '../../static/js/rules.js';
import { loadWasm } from './helpers.mjs';

let mod;

before(async () => {
  mod = await loadWasm();
});

const START = '.../.../.../....../.../.../... l 9 9 0 0';

test('a review link names a room and a round from 1; nothing else is one', () => {
  assert.deepEqual(reviewFromPath('/r/k7q2mx9rd4tf/review/3'), { roomId: 'k7q2mx9rd4tf', round: 3 });
  assert.deepEqual(reviewFromPath('/r/k7q2mx9rd4tf/review/12/'), { roomId: 'k7q2mx9rd4tf', round: 12 });
  for (const path of ['/r/k7q2mx9rd4tf', '/r/k7q2mx9rd4tf/review/0', '/r/k7q2mx9rd4tf/review/', '/r/k7q2mx9rd4tf/review/x', '/r//review/1', '/review/1']) {
    assert.equal(reviewFromPath(path), null, path);
  }
  assert.equal(reviewLink('http://h:1', 'k7q2mx9rd4tf', 2), 'http://h:1/r/k7q2mx9rd4tf/review/2');
  assert.deepEqual(reviewFromPath(new URL(reviewLink('http://h:1', 'abc', 7)).pathname), { roomId: 'abc', round: 7 });
});

test('the positions come from the rules, one per action, the result on the last', () => {
  const game = localGame(mod);
  const record = {
    room: 'r',
    round: 1,
    start: START,
    actions: ['a1', 'b2', 'a4', 'b4', 'a7', 'xb2'],
    record: ['a1', 'b2', 'a4', 'b4', 'a7xb2'],
    result: { winner: 'dark', reason: 'resignation' },
  };
  const positions = reviewPositions(game, record);
  assert.equal(positions.length, 7);
  assert.equal(positions[0].position, START);
  assert.deepEqual(positions[0].pieces, {});
  assert.equal(positions[5].pendingRemovals, 1, 'the mill before its removal is a position of its own');
  assert.deepEqual(positions[6].pieces, { a1: 'light', a4: 'light', a7: 'light', b4: 'dark' });
  assert.equal(positions[5].outcome, null);
  assert.deepEqual(positions[6].outcome, { kind: 'win', winner: 'dark', reason: 'resignation' });
  const draw = reviewPositions(game, { ...record, actions: ['d6'], result: { winner: null, reason: 'agreement' } });
  assert.equal(draw.length, 2, 'the same game object starts over');
  assert.deepEqual(draw[1].outcome, { kind: 'draw', reason: 'agreement' });
});

test('a record that does not replay is an error, not a wrong board', () => {
  const game = localGame(mod);
  const bad = { room: 'r', round: 1, start: START, actions: ['a1', 'a1'], record: [], result: { winner: null, reason: 'agreement' } };
  assert.throws(() => reviewPositions(game, bad), /a1/);
  assert.throws(() => reviewPositions(game, { ...bad, start: 'nonsense', actions: [] }));
});

test('keys step through the turns, a removal with its turn, and stop at both ends', () => {
  // a7 closes the a-file mill and xb2 removes: one turn, two actions.
  const record = { start: START, actions: ['a1', 'b2', 'a4', 'b4', 'a7', 'xb2', 'd6'] };
  const positions = reviewPositions(localGame(mod), record);
  const stops = reviewStops(positions, turnEnds(positions));
  assert.deepEqual(stops, [0, 1, 2, 3, 4, 6, 7], 'the mill before its removal is no stop');
  assert.equal(stepFor('ArrowRight', 4, stops), 6, 'a7 and xb2 in one step');
  assert.equal(stepFor('ArrowLeft', 6, stops), 4);
  assert.equal(stepFor('ArrowRight', 7, stops), 7);
  assert.equal(stepFor('ArrowLeft', 0, stops), 0);
  assert.equal(stepFor('Home', 6, stops), 0);
  assert.equal(stepFor('End', 0, stops), 7);
  assert.equal(stepFor('a', 0, stops), null);
  assert.equal(stepFor('End', 0, []), null);
  // The counter counts turns: six turns, seven actions.
  assert.deepEqual(turnCounter(7, stops), { at: 6, total: 6 });
  assert.deepEqual(turnCounter(6, stops), { at: 5, total: 6 });
  assert.deepEqual(turnCounter(0, stops), { at: 0, total: 6 });
  // A game that ends owing its removal: that last position is a stop, its turn counted.
  const open = reviewPositions(localGame(mod), { start: START, actions: record.actions.slice(0, 5) });
  const openStops = reviewStops(open, turnEnds(open));
  assert.deepEqual(openStops, [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(turnCounter(5, openStops), { at: 5, total: 5 });
});
