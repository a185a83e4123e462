import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  PRESETS,
  chosenClock,
  claimIn,
  clockResult,
  clocksAt,
  controlText,
  crossedLow,
  formatClock,
  isLow,
  recordTag,
  serverOffset,
} from '../../static/js/clock.js';
import { DICTIONARIES, translator } from '../../static/js/i18n.js';
import { blankSnapshot, statusOf } from '../../static/js/board.js';

/** A `state.clock` as the server sends it (docs/PROTOCOL.md). */
function clock(over = {}) {
  return { light: 60_000, dark: 60_000, running: 'light', at: 1_000_000, first_turn: null, claim_at: null, control: { initial: 60, increment: 0 }, ...over };
}

test('the presets are the issue\'s, each with the clock it sends', () => {
  assert.deepEqual(
    PRESETS.map((p) => p.id),
    ['untimed', '1+0', '3+2', '5+3', '10+5', '15+10', '3d', 'custom'],
  );
  assert.deepEqual(chosenClock('5+3'), { clock: { initial: 300, increment: 3 } });
  assert.deepEqual(chosenClock('untimed'), { clock: null });
  assert.deepEqual(chosenClock('3d'), { clock: { days: 3 } });
  assert.deepEqual(chosenClock('nonsense'), { clock: null }, 'an unknown id is untimed');
  assert.deepEqual(chosenClock('custom', { minutes: '0.25', increment: '' }), { clock: { initial: 15, increment: 0 } });
  assert.deepEqual(chosenClock('custom', { minutes: '7', increment: '4' }), { clock: { initial: 420, increment: 4 } });
  // The bounds are the server's (bad-clock); only what is no number stays here.
  assert.deepEqual(chosenClock('custom', { minutes: '999', increment: '0' }), { clock: { initial: 59_940, increment: 0 } });
  assert.equal(chosenClock('custom', { minutes: 'five' }).error, 'clock.custom.bad');
  assert.equal(chosenClock('custom', {}).error, 'clock.custom.bad');
});

test('a remaining time is written with tenths below ten seconds, never negative', () => {
  assert.equal(formatClock(3_723_000), '1:02:03');
  assert.equal(formatClock(300_000), '5:00');
  assert.equal(formatClock(61_999), '1:01');
  assert.equal(formatClock(10_000), '0:10');
  assert.equal(formatClock(9_999), '9.9');
  assert.equal(formatClock(9_050), '9.0');
  assert.equal(formatClock(99), '0.0');
  assert.equal(formatClock(-500), '0.0');
  assert.equal(formatClock(3 * 86_400_000 - 1), '2 d 23 h');
  assert.equal(formatClock(86_400_000 + 3_600_000, { day: 'д', hour: 'ч' }), '1 д 01 h'.replace('h', 'ч'));
  assert.ok(isLow(9_999) && !isLow(10_000));
});

test('the running clock counts down from the state\'s server time by the page\'s clock', () => {
  const c = clock({ running: 'dark', dark: 30_000, light: 42_000 });
  // The page's clock is 5 s ahead of the server's; the state arrived 5 s + 40 ms later.
  const offset = serverOffset(c, c.at + 5_040);
  assert.equal(offset, 5_040);
  const at = (ms) => clocksAt(c, offset, c.at + offset + ms);
  assert.deepEqual(at(0), { light: 42_000, dark: 30_000 });
  assert.deepEqual(at(1_500), { light: 42_000, dark: 28_500 });
  assert.deepEqual(at(40_000), { light: 42_000, dark: 0 }, 'never below zero; the server flags');
  assert.deepEqual(at(-100), { light: 42_000, dark: 30_000 }, 'a tick before the state changes nothing');
  // Worked out from the state each time: a thousand ticks leave no drift.
  let last = at(0);
  for (let i = 1; i <= 1000; i++) last = at(i * 7);
  assert.deepEqual(last, at(7000));
  assert.equal(last.dark, 23_000);
  // Nothing runs before the first turns, while paused, once over.
  assert.deepEqual(clocksAt(clock({ running: null }), 0, 9e12), { light: 60_000, dark: 60_000 });
});

test('the low-time sound comes once, when the person\'s clock goes under ten seconds', () => {
  assert.equal(crossedLow(10_050, 9_950), true);
  assert.equal(crossedLow(9_950, 9_850), false, 'once, not every tick');
  assert.equal(crossedLow(null, 5_000), false, 'not on the first look');
  assert.equal(crossedLow(60_000, 59_900), false);
});

test('the claim is counted down to the server\'s claim time', () => {
  const c = clock({ claim_at: 1_040_000 });
  assert.equal(claimIn(c, 0, 1_000_000), 40_000);
  assert.equal(claimIn(c, 2_000, 1_030_000), 12_000);
  assert.equal(claimIn(c, 0, 1_050_000), 0);
  assert.equal(claimIn(clock(), 0, 1_050_000), null, 'nobody away');
  assert.equal(claimIn(null, 0, 0), null, 'untimed');
});

test('a time control is named in both languages and in a record\'s header', () => {
  for (const lang of ['en', 'ru']) {
    const t = translator(lang);
    const say = (control) => {
      const { key, params } = controlText(control);
      return t(key, params);
    };
    assert.equal(say({ initial: 300, increment: 3 }), '5+3');
    assert.equal(say({ initial: 90, increment: 0 }), '1:30+0');
    assert.match(say({ days: 3 }), /3/);
    assert.notEqual(say(null), 'clock.untimed');
  }
  assert.equal(recordTag({ initial: 300, increment: 3 }), '300+3');
  assert.equal(recordTag({ days: 3 }), '1/259200');
  assert.equal(recordTag(null), '-');
});

test('the clock\'s results read right to each seat and to a spectator', () => {
  const timeout = { kind: 'win', winner: 'dark', reason: 'timeout' };
  const en = translator('en');
  const ru = translator('ru');
  const line = (t, r) => t(r.key, { side: r.side ? t(`color.${r.side}`) : '' });
  const spectator = clockResult(timeout, null);
  assert.deepEqual(spectator, { key: 'clock.result.timeout', side: 'light' });
  assert.equal(line(en, spectator), 'Light lost on time');
  assert.equal(line(ru, clockResult({ kind: 'win', winner: 'light', reason: 'timeout' }, null)), 'Тёмные: время истекло');
  assert.equal(line(en, clockResult(timeout, 'light')), 'You lost on time');
  assert.equal(line(en, clockResult(timeout, 'dark')), 'You won on time');
  const left = { kind: 'win', winner: 'light', reason: 'abandoned' };
  assert.equal(clockResult(left, 'dark').key, 'clock.result.abandoned.lost');
  assert.equal(clockResult(left, 'light').key, 'clock.result.abandoned.won');
  assert.equal(line(en, clockResult(left, null)), 'Dark left the game and lost');
  assert.equal(clockResult({ kind: 'draw', reason: 'abandoned' }, 'light').key, 'clock.result.abandonedDraw');
  assert.equal(clockResult({ kind: 'aborted' }, 'dark').key, 'clock.result.aborted');
  // Other results are not the clock's.
  assert.equal(clockResult({ kind: 'win', winner: 'dark', reason: 'resignation' }, 'light'), null);
  assert.equal(clockResult(null, 'light'), null);
  // Every key these name exists in both languages.
  for (const lang of ['en', 'ru']) {
    for (const key of ['clock.result.timeout', 'clock.result.timeout.lost', 'clock.result.timeout.won', 'clock.result.abandoned', 'clock.result.abandoned.lost', 'clock.result.abandoned.won', 'clock.result.abandonedDraw', 'clock.result.aborted', 'reason.timeout', 'reason.abandoned', 'reason.aborted', ...PRESETS.map((p) => `clock.preset.${p.id}`)]) {
      assert.ok(DICTIONARIES[lang][key], `${lang}: ${key}`);
    }
  }
});

test('an aborted round is no draw on the status line', () => {
  const snap = { ...blankSnapshot(), outcome: /** @type {any} */ ({ kind: 'aborted' }) };
  assert.equal(statusOf(snap, { selected: null }, 'light').key, 'clock.result.aborted');
  const drawn = { ...blankSnapshot(), outcome: /** @type {any} */ ({ kind: 'draw', reason: 'abandoned' }) };
  assert.equal(statusOf(drawn, { selected: null }).key, 'result.draw');
});
