import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { reviewFromPath, reviewLink, reviewPositions, stepFor } from '../../static/js/review.js';
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

test('keys step through the positions and stop at both ends', () => {
  assert.equal(stepFor('ArrowRight', 0, 3), 1);
  assert.equal(stepFor('ArrowRight', 2, 3), 2);
  assert.equal(stepFor('ArrowLeft', 0, 3), 0);
  assert.equal(stepFor('ArrowLeft', 2, 3), 1);
  assert.equal(stepFor('Home', 2, 3), 0);
  assert.equal(stepFor('End', 0, 3), 2);
  assert.equal(stepFor('a', 0, 3), null);
});
