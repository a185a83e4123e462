// The pure parts of "Play online" (static/js/lobby.js): the presets, the seeker id, and
// which open seeks the lobby shows.
import assert from 'node:assert/strict';
import test from 'node:test';

import { PAIR_PRESETS, SEEKER_KEY, elapsedText, othersSeeks, sameClock, seekerId } from '../../static/js/lobby.js';

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

test('the lobby never lists the page’s own seek, open or just ended, and nothing else', () => {
  const now = 100_000;
  const seeks = [
    { variant: 'nine', clock: { initial: 180, increment: 2 }, waiting: 5_000 },
    { variant: 'nine', clock: null, waiting: 4_000 },
    { variant: 'six', clock: { initial: 180, increment: 2 }, waiting: 3_000 },
  ];
  const blitz = { variant: 'nine', clock: { initial: 180, increment: 2 } };
  assert.deepEqual(othersSeeks(seeks, now, []), seeks);
  // open: its pool's seek is its own
  assert.deepEqual(othersSeeks(seeks, now, [{ ...blitz, until: Infinity }]), seeks.slice(1));
  // ended after the list was read (nobody came): still its own, never offered back to it
  assert.deepEqual(othersSeeks(seeks, now, [{ ...blitz, until: now + 2_000 }]), seeks.slice(1));
  // ended before the list was read, though the list still has it (read in flight)
  assert.deepEqual(othersSeeks(seeks, now, [{ ...blitz, until: now - 1_000 }]), seeks.slice(1));
  // someone who came to that pool after it ended is listed
  assert.deepEqual(othersSeeks(seeks, now, [{ ...blitz, until: now - 6_000 }]), seeks);
  // another pool's seek is never hidden by it (rules, clock; 60 is 60+0)
  assert.deepEqual(othersSeeks(seeks, now, [{ variant: 'twelve', clock: null, until: Infinity }]), seeks);
  assert.deepEqual(othersSeeks(seeks, now, [{ variant: 'nine', clock: { initial: 180 }, until: Infinity }]), seeks);
  assert.deepEqual(
    othersSeeks(seeks, now, [{ variant: 'nine', clock: null, until: Infinity }, { ...blitz, until: now }]),
    seeks.slice(2),
  );
});

test('the time waited reads as minutes and seconds', () => {
  assert.equal(elapsedText(0), '0:00');
  assert.equal(elapsedText(7_999), '0:07');
  assert.equal(elapsedText(60_000), '1:00');
  assert.equal(elapsedText(125_000), '2:05');
  assert.equal(elapsedText(-5), '0:00');
});
