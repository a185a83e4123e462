// The players' pages' pure parts (static/js/players-logic.js): the leaderboard's choice
// and rows, a profile's game list and rating chart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boardChoice, boardSearch, leaderRows, profileHref } from '../../static/js/players-logic.js';

test('a leaderboard address names its rules and speed; anything else is Nine, blitz', () => {
  assert.deepEqual(boardChoice('?rules=six&speed=rapid'), { rules: 'six', speed: 'rapid' });
  assert.deepEqual(boardChoice(''), { rules: 'nine', speed: 'blitz' });
  assert.deepEqual(boardChoice('?rules=chess&speed=warp'), { rules: 'nine', speed: 'blitz' });
  assert.equal(boardSearch({ rules: 'twelve', speed: 'correspondence' }), '?rules=twelve&speed=correspondence');
  assert.deepEqual(boardChoice(boardSearch({ rules: 'three', speed: 'bullet' })), { rules: 'three', speed: 'bullet' });
});

test('leaderboard rows are read from the answer, whole points, odd entries skipped', () => {
  const rows = leaderRows({ players: [
    { rank: 1, name: 'tina', rating: 1700.4, rd: 60.2, games: 30 },
    { rank: 2, name: 42, rating: 1600 },
    { rank: 2, name: 'uma', rating: 1599.6, rd: 109.9, games: 12 },
  ] });
  assert.deepEqual(rows, [
    { rank: 1, name: 'tina', rating: 1700, rd: 60, games: 30 },
    { rank: 2, name: 'uma', rating: 1600, rd: 110, games: 12 },
  ]);
  assert.deepEqual(leaderRows(null), []);
  assert.deepEqual(leaderRows({ players: 'x' }), []);
  assert.equal(profileHref('Ann_Lee-2'), '/@/Ann_Lee-2');
});
