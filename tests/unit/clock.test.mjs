import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  PRESETS,
  chosenClock,
  claimIn,
  clockResult,
  clocksAt,
  clocksSaid,
  controlText,
  crossedLow,
  firstTurnIn,
  formatClock,
  isLow,
  recordTag,
  reviewClocks,
  serverOffset,
  turnTimes,
} from '../../static/js/clock.js';
import { recordClock } from '../../static/js/review.js';
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
  // The server's bounds (wire.js, from timecontrol.rs) are checked where the time is typed.
  assert.deepEqual(chosenClock('custom', { minutes: '180', increment: '180' }), { clock: { initial: 10_800, increment: 180 } });
  for (const [minutes, increment] of [['0.1', '0'], ['0.2', '5'], ['0', '0'], ['-1', '0'], ['999', '0'], ['5', '181'], ['5', '-1']]) {
    assert.deepEqual(chosenClock('custom', { minutes, increment }), { clock: null, error: 'clock.bad' }, `${minutes}+${increment}`);
  }
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
  assert.equal(line(ru, clockResult({ kind: 'win', winner: 'light', reason: 'timeout' }, null)), 'Тёмные проиграли по времени');
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
    for (const key of ['clock.result.timeout', 'clock.result.timeout.lost', 'clock.result.timeout.won', 'clock.result.abandoned', 'clock.result.abandoned.lost', 'clock.result.abandoned.won', 'clock.result.abandonedDraw', 'clock.result.aborted', 'reason.timeout', 'reason.abandoned', 'reason.aborted', 'clock.bad', 'clock.firstTurn', 'clock.firstTurn.you', 'clock.runningSay', 'clock.lowSay', 'clock.turnLeft', 'clock.claim.win', 'clock.claim.draw', 'clock.claim.wait', 'clock.claim.ready', ...PRESETS.map((p) => `clock.preset.${p.id}`)]) {
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

test('the first turn is counted down to the abort like the clocks, and only while one is due', () => {
  const c = clock({ running: null, first_turn: 30_000 });
  assert.equal(firstTurnIn(c, 0, c.at), 30_000);
  assert.equal(firstTurnIn(c, 2_000, c.at + 2_000 + 12_500), 17_500, 'from the server\'s time of the state');
  assert.equal(firstTurnIn(c, 0, c.at + 45_000), 0, 'never below zero: the server aborts');
  assert.equal(firstTurnIn(c, 0, c.at - 500), 30_000);
  assert.equal(firstTurnIn(clock(), 0, 0), null, 'no first turn due');
  assert.equal(firstTurnIn(null, 0, 0), null, 'untimed');
});

test('the clocks are said in words: both times, then whose runs or the first turn due', () => {
  for (const lang of ['en', 'ru']) {
    const t = translator(lang);
    const running = clocksSaid(clock({ running: 'dark' }), { light: 272_000, dark: 9_450 }, null, 'dark', t);
    assert.ok(running.includes('4:32') && running.includes('9.4'), running);
    assert.ok(running.includes(t('clock.runningSay', { sideOf: t('color.of.dark') })), running);
    const first = clocksSaid(clock({ running: null }), { light: 60_000, dark: 60_000 }, 21_200, 'light', t);
    assert.ok(first.includes(t('clock.firstTurn', { side: t('color.light'), seconds: 22 })), first);
    assert.ok(!/\{|\}/.test(running + first), 'every parameter filled');
  }
  assert.equal(
    clocksSaid(clock({ running: 'light' }), { light: 61_000, dark: 300_000 }, null, 'light', translator('en')),
    "Light: 1:01 left. Dark: 5:00 left. Light's clock is running",
  );
});

test('review takes each turn\'s time left from its mover\'s clock at the turn\'s end', () => {
  // Actions: d6 (L), a1 (D), d5 (L), d7 closing a mill then xa1 (L: one turn of two actions), b2 (D).
  const after = [
    { light: 60_000, dark: 60_000 },
    { light: 60_000, dark: 60_000 },
    { light: 55_000, dark: 58_800 },
    { light: 51_000, dark: 57_000 }, // mid-turn: Light still running
    { light: 50_000, dark: 57_000 },
    null, // not seen by the page
  ];
  const ends = [0, 1, 2, 3, 5, 6];
  const movers = [null, 'light', 'dark', 'light', 'light', 'dark'];
  const times = turnTimes(after, ends, movers);
  assert.deepEqual(times, [60_000, 60_000, 55_000, 50_000, null]);
  const control = { initial: 60, increment: 0 };
  assert.deepEqual(reviewClocks(control, times, ends, movers, 0), { light: 60_000, dark: 60_000 }, 'the start: the full time');
  assert.deepEqual(reviewClocks(control, times, ends, movers, 3), { light: 55_000, dark: 60_000 });
  assert.deepEqual(reviewClocks(control, times, ends, movers, 4), { light: 55_000, dark: 60_000 }, 'mid-turn: the turn before');
  assert.deepEqual(reviewClocks(control, times, ends, movers, 5), { light: 50_000, dark: 60_000 });
  assert.deepEqual(reviewClocks(control, times, ends, movers, 6), { light: 50_000, dark: null }, 'a time not known is not guessed');
  assert.deepEqual(reviewClocks({ days: 2 }, [], [0], [null], 0), { light: 172_800_000, dark: 172_800_000 });
});

test('a round record\'s clock is taken only in its documented shape', () => {
  assert.equal(recordClock(undefined, 3), null, 'a server that sends none');
  assert.equal(recordClock(null, 3), null, 'untimed');
  assert.equal(recordClock({ control: { initial: 60, increment: 0 } }, 1), null, 'no times');
  assert.deepEqual(recordClock({ control: { days: 3 }, times: [{ light: 1, dark: 2 }, { light: 'x', dark: 2 }] }, 3), {
    control: { days: 3 },
    times: [{ light: 1, dark: 2 }, null, null],
  });
});
