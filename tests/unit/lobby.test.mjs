// The pure parts of "Play online" (static/js/lobby.js): the presets, the seeker id, and
// which open seeks the lobby shows.
import assert from 'node:assert/strict';
import test from 'node:test';

import { PAIR_PRESETS, SEEKER_KEY, othersSeeks, sameClock, seekerId } from '../../static/js/lobby.js';

test('quick pairing offers every preset time control but the custom one', () => {
  assert.deepEqual(
    PAIR_PRESETS.map((p) => p.id),
    ['untimed', '1+0', '3+2', '5+3', '10+5', '15+10', '3d'],
  );
});

test('the seeker id is made once per browser and kept', () => {
  const kept = new Map();
  const storage = { get: (k) => kept.get(k) ?? null, set: (k, v) => kept.set(k, v) };
  const first = seekerId(storage);
  assert.match(first, /^[A-Za-z0-9_-]{8,64}$/);
  assert.equal(seekerId(storage), first);
  kept.set(SEEKER_KEY, 'not a token!');
  assert.notEqual(seekerId(storage), 'not a token!');
});

test('clocks are the same as the server pairs them', () => {
  assert.ok(sameClock(null, null));
  assert.ok(sameClock({ initial: 60 }, { initial: 60, increment: 0 }));
  assert.ok(!sameClock({ initial: 60, increment: 1 }, { initial: 60, increment: 0 }));
  assert.ok(!sameClock({ days: 3 }, null));
  assert.ok(sameClock({ days: 3 }, { days: 3 }));
  assert.ok(!sameClock({ days: 3 }, { initial: 180, increment: 0 }));
});

test('the lobby hides the page’s own seek once, and nothing else', () => {
  const seeks = [
    { variant: 'nine', clock: { initial: 180, increment: 2 }, waiting: 5 },
    { variant: 'nine', clock: null, waiting: 4 },
    { variant: 'six', clock: { initial: 180, increment: 2 }, waiting: 3 },
  ];
  assert.deepEqual(othersSeeks(seeks, null), seeks);
  assert.deepEqual(othersSeeks(seeks, { variant: 'nine', clock: { initial: 180, increment: 2 } }), seeks.slice(1));
  assert.deepEqual(othersSeeks(seeks, { variant: 'twelve', clock: null }), seeks);
});
