// The puzzles page's pure parts: the Glicko-2 rating (Glickman's worked example), the
// puzzle of the day (stable for a date), the next puzzle near the rating, judging a
// turn, and the page's words in both languages.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { afterPuzzle, parseRating, rate, START } from '../../static/js/puzzle-rating.js';
import { dailyPuzzle, dateKey, hintPoint, inTheme, isAnswer, nextPuzzle, parseSet, refutation, taskKey, themesOf, turnActions } from '../../static/js/puzzles-logic.js';
import { PUZZLES_TEXT, puzzlesTranslator } from '../../static/js/puzzles-text.js';

const shipped = parseSet(readFileSync(new URL('../../static/puzzles/nine.json', import.meta.url), 'utf8'));

/** A small set of made-up puzzles. */
const made = (id, rating, themes = ['ending']) => ({
  id,
  rules: 'nine',
  position: 'LL./.../D../...D.D/.../.../..L l 0 0 0 0',
  goal: 'win',
  solution: ['a7-b6'],
  also: [],
  theme: themes[0],
  themes,
  rating,
  source: 'tablebase',
});

test("Glicko-2 reproduces Glickman's worked example", () => {
  const after = rate({ rating: 1500, rd: 200, vol: 0.06 }, [
    { rating: 1400, rd: 30, score: 1 },
    { rating: 1550, rd: 100, score: 0 },
    { rating: 1700, rd: 300, score: 0 },
  ]);
  assert.ok(Math.abs(after.rating - 1464.06) < 0.05, `rating ${after.rating}`);
  assert.ok(Math.abs(after.rd - 151.52) < 0.05, `rd ${after.rd}`);
  assert.ok(Math.abs(after.vol - 0.05999) < 0.00001, `vol ${after.vol}`);
});

test('a solved puzzle raises the rating, a missed one lowers it, and the deviation shrinks', () => {
  const won = afterPuzzle(START, 1500, true);
  const lost = afterPuzzle(START, 1500, false);
  assert.ok(won.rating > START.rating && lost.rating < START.rating);
  assert.ok(won.rd < START.rd);
  // Beating a harder puzzle is worth more than beating an easier one.
  assert.ok(afterPuzzle(START, 1900, true).rating > afterPuzzle(START, 1100, true).rating);
  // A settled rating moves less than a newcomer's.
  const settled = { rating: 1500, rd: 60, vol: 0.06 };
  assert.ok(afterPuzzle(settled, 1500, true).rating - 1500 < won.rating - 1500);
});

test('a stored rating reads back; a damaged one is the newcomer’s', () => {
  const r = { rating: 1612.5, rd: 120, vol: 0.061 };
  assert.deepEqual(parseRating(JSON.stringify(r)), r);
  for (const bad of [null, '', '{', '{"rating":"x","rd":1,"vol":1}', '{"rating":1,"rd":-3,"vol":0.06}']) {
    assert.deepEqual(parseRating(bad), START);
  }
});

test('the puzzle of the day is the same for a date, whatever the order of the set', () => {
  assert.ok(shipped.length >= 50, `only ${shipped.length} shipped Nine puzzles`);
  const day = dailyPuzzle(shipped, '2026-12-01');
  assert.equal(dailyPuzzle([...shipped].reverse(), '2026-12-01'), day);
  assert.equal(dailyPuzzle(shipped, '2026-12-01'), day);
  // Other dates give other puzzles (not always the same one).
  const week = new Set(['2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05', '2026-12-06'].map((d) => dailyPuzzle(shipped, d)?.id));
  assert.ok(week.size >= 3, `only ${week.size} different puzzles in five days`);
  assert.equal(dailyPuzzle([], '2026-12-01'), null);
  assert.equal(dateKey(new Date(2026, 0, 5, 23, 59)), '2026-01-05');
});

test('the next puzzle is near the rating, in the theme, and not one already seen', () => {
  const set = [made('a', 900), made('b', 1200, ['fork']), made('c', 1500), made('d', 1510, ['fork', 'ending']), made('e', 2200), made('f', 100)];
  const first = () => 0;
  assert.equal(nextPuzzle(set, { rating: 1500, random: first })?.id, 'c');
  assert.equal(nextPuzzle(set, { rating: 1500, seen: new Set(['c']), random: first })?.id, 'd');
  assert.equal(nextPuzzle(set, { rating: 1500, theme: 'fork', random: first })?.id, 'd');
  assert.equal(nextPuzzle(set, { rating: 2300, exclude: 'e', random: first })?.id, 'd');
  // Every one seen: still a puzzle.
  assert.ok(nextPuzzle(set, { rating: 1500, seen: new Set(set.map((p) => p.id)) }));
  assert.equal(nextPuzzle(set, { rating: 1500, theme: 'blockade' }), null);
  // The draw stays among the nearest five.
  const last = () => 0.999;
  assert.equal(nextPuzzle(set, { rating: 3000, random: last })?.id, 'a', 'the fifth nearest, never the sixth');
  assert.equal(nextPuzzle(set, { rating: 0, random: first })?.id, 'f');
  assert.deepEqual(inTheme(set, 'fork').map((p) => p.id), ['b', 'd']);
  assert.deepEqual(themesOf(set), ['ending', 'fork']);
});

test('a turn is judged against the solution; the last may be an accepted alternative', () => {
  const p = { ...made('x', 1000), solution: ['a4-a7', 'g7-d7', 'a7-a4xd7'], also: ['a7-a4xg1'] };
  assert.ok(isAnswer(p, 0, 'a4-a7'));
  assert.ok(!isAnswer(p, 0, 'a4-b4'));
  assert.ok(isAnswer(p, 2, 'a7-a4xg1'));
  assert.ok(!isAnswer(p, 0, 'a7-a4xg1'), 'alternatives only for the last turn');
  assert.deepEqual(turnActions('f4-g4xb6xd2'), ['f4-g4', 'xb6', 'xd2']);
  assert.deepEqual(turnActions('d6'), ['d6']);
  assert.equal(hintPoint(p, 0), 'a4');
  assert.equal(hintPoint({ ...p, solution: ['d6xa1'] }, 0), 'd6');
  assert.equal(taskKey(p), 'puzzles.task.light.win');
  assert.equal(taskKey({ ...p, goal: 'draw', position: '... d 0 0 0 0' }), 'puzzles.task.dark.draw');
});

test('a refutation says why the wrong turn loses when the engine\u2019s line shows it', () => {
  assert.deepEqual(refutation(['d7-d6'], true), { key: 'puzzles.status.wrongWins', params: {} });
  assert.deepEqual(refutation(['a4-a7xb2', 'd2-d3'], false), { key: 'puzzles.status.wrongMill', params: {} });
  // The answer threatens; whatever the solver does, a mill closes at the next turn.
  assert.deepEqual(refutation(['g4-g1', 'b4-b6', 'f4-g4xd6'], false), { key: 'puzzles.status.wrongThreat', params: { point: 'g4' } });
  assert.deepEqual(refutation(['e4', 'b6', 'd6xa1'], false).params, { point: 'd6' });
  // A line that shows no mill and no win: no reason.
  assert.deepEqual(refutation(['g4-g1', 'b4-b6', 'f4-f6'], false), { key: 'puzzles.status.wrong', params: {} });
  assert.deepEqual(refutation([], false), { key: 'puzzles.status.wrong', params: {} });
  const t = puzzlesTranslator('en');
  assert.equal(t('puzzles.status.wrongThreat', { turn: 'a1-a4', reply: 'g4-g1', point: 'g4' }), 'Not that one: after a1-a4 the opponent answers g4-g1 and closes a mill at g4 next turn.');
});

test('a set file keeps only puzzles', () => {
  const text = JSON.stringify([made('ok', 1000), { id: 'no-solution' }, { ...made('even', 1), solution: ['a1', 'a2'] }]);
  assert.deepEqual(parseSet(text).map((p) => p.id), ['ok']);
  for (const p of shipped) assert.equal(p.solution.length % 2, 1, p.id);
});

test('the page’s words: both languages, every key the page and the shipped themes use', () => {
  const { en, ru } = PUZZLES_TEXT;
  assert.deepEqual(Object.keys(ru).sort(), Object.keys(en).sort());
  const params = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(en)) assert.deepEqual(params(ru[key]), params(en[key]), key);
  for (const [key, text] of Object.entries(ru)) if (!/^\(\{/.test(text)) assert.match(text, /[а-яё]/i, key);
  const html = readFileSync(new URL('../../static/puzzles.html', import.meta.url), 'utf8');
  const used = new Set([...html.matchAll(/data-pt(?:-aria)?="([^"]+)"/g)].map((m) => m[1]));
  for (const p of shipped) for (const th of p.themes) used.add(`puzzles.theme.${th}`);
  for (const lang of ['en', 'ru']) {
    const t = puzzlesTranslator(lang);
    for (const key of used) assert.notEqual(t(key), key, `${lang}: ${key} missing`);
  }
});
