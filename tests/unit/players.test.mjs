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

import { changeText, chartPath, clockText, gameRows, ratingSeries } from '../../static/js/players-logic.js';

const answer = { games: [
  { room: 'r2', round: 1, color: 'dark', opponent: 'deleted', result: 'loss', reason: 'pieces', rules: 'nine',
    clock: { initial: 180, increment: 2 }, rated: true, rating: { speed: 'blitz', before: 1662.3, after: 1600.1, change: -62 }, at: 3, review: null },
  { room: 'r9', round: 2, color: 'light', opponent: null, result: 'draw', reason: 'agreement', rules: 'six',
    clock: null, rated: false, rating: null, at: 2, review: '/r/r9/review/2' },
  { room: 'r1', round: 1, color: 'light', opponent: 'liam', result: 'win', reason: 'resignation', rules: 'nine',
    clock: { days: 3 }, rated: true, rating: { speed: 'blitz', before: 1500, after: 1662.3, change: 162 }, at: 1, review: 'javascript:x' },
  { room: 'bad', round: 1, result: 'maybe' },
] };

test('a game list is read from the answer; only review links on this site are kept', () => {
  const rows = gameRows(answer);
  assert.equal(rows.length, 3);
  assert.equal(rows[0].opponent, 'deleted');
  assert.equal(rows[1].opponent, null);
  assert.equal(rows[1].review, '/r/r9/review/2');
  assert.equal(rows[2].review, null);
  assert.deepEqual(rows[0].rating, { rules: 'nine', speed: 'blitz', before: 1662.3, after: 1600.1, change: -62 });
  assert.equal(rows[1].rating, null);
  assert.equal(clockText(rows[0].clock), '3+2');
  assert.equal(clockText(rows[2].clock), '3 d');
  assert.equal(clockText(null), null);
  assert.equal(clockText({ initial: 90, increment: 0 }), '1.5+0');
  assert.equal(changeText(12.4), '+12');
  assert.equal(changeText(-7), '\u22127');
  assert.equal(changeText(0.2), '\u00b10');
});

test("a rating's history runs oldest first from the rating before its first round", () => {
  const series = ratingSeries(gameRows(answer), 'nine', 'blitz');
  assert.deepEqual(series, [{ at: 1, rating: 1500 }, { at: 1, rating: 1662 }, { at: 3, rating: 1600 }]);
  assert.deepEqual(ratingSeries(gameRows(answer), 'six', 'blitz'), []);
  const c = chartPath(series, 320, 160, 20);
  assert.equal(c.low, 1500);
  assert.equal(c.high, 1700);
  assert.equal(c.points.length, 3);
  assert.deepEqual(c.points[0], { x: 20, y: 140 });
  assert.equal(c.points[2].x, 300);
  assert.match(c.d, /^M20 140 L160 [0-9.]+ L300 [0-9.]+$/);
  // A flat history still has a 100-point scale.
  const flat = chartPath([{ rating: 1500 }], 320, 160, 20);
  assert.equal(flat.high - flat.low, 100);
  assert.equal(flat.points[0].x, 160);
});
