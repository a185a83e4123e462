import assert from 'node:assert/strict';
import { test } from 'node:test';

import { reasonText } from '../../static/js/board.js';
import { clockResult } from '../../static/js/clock.js';
import { DICTIONARIES, LANGUAGES, pickLanguage, pluralKey, translator } from '../../static/js/i18n.js';

test('the language comes from a saved choice, then the browser, then English', () => {
  assert.equal(pickLanguage(null, ['ru-RU', 'en']), 'ru');
  assert.equal(pickLanguage(null, ['de-DE', 'en-GB']), 'en');
  assert.equal(pickLanguage(null, ['de-DE']), 'en');
  assert.equal(pickLanguage('en', ['ru']), 'en');
  assert.equal(pickLanguage('xx', ['RU']), 'ru');
  assert.equal(pickLanguage(undefined, []), 'en');
});

test('Russian has every English key and no extra ones', () => {
  const en = Object.keys(DICTIONARIES.en).sort();
  const ru = Object.keys(DICTIONARIES.ru).sort();
  assert.deepEqual(ru, en);
  for (const key of en) assert.ok(DICTIONARIES.ru[key].trim(), key);
});

test('both languages use the same placeholders in each text', () => {
  const names = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(DICTIONARIES.en)) {
    assert.deepEqual(names(DICTIONARIES.ru[key]), names(DICTIONARIES.en[key]), key);
  }
});

test('translate fills placeholders and shows unknown keys as themselves', () => {
  const t = translator('en');
  assert.equal(t('status.place', { side: 'Dark' }), 'Dark: place a piece');
  assert.equal(t('no.such.key'), 'no.such.key');
  assert.equal(translator('ru')('result.win', { side: 'Светлые' }), 'Победа: Светлые');
});

test('counts take the plural form of their language', () => {
  const ru = translator('ru');
  const en = translator('en');
  const viewers = (lang, t, n) => t(pluralKey(lang, 'online.viewers', n), { n });
  assert.deepEqual([1, 3, 5, 21, 22, 11].map((n) => viewers('ru', ru, n)), ['1 зритель', '3 зрителя', '5 зрителей', '21 зритель', '22 зрителя', '11 зрителей']);
  assert.deepEqual([1, 2].map((n) => viewers('en', en, n)), ['1 watching', '2 watching']);
});

test('every result line reads right for the loser, the winner and anyone else, in both languages', () => {
  const WINS = ['pieces', 'blocked', 'resignation'];
  const DRAWS = ['threefold', 'hundred-turns', 'agreement', 'board-full'];
  for (const lang of LANGUAGES) {
    const t = translator(lang);
    const you = lang === 'en' ? /\b(You|you)\b/ : /(Вы|вас)/;
    const opponent = lang === 'en' ? /opponent/i : /соперник/i;
    for (const winner of ['light', 'dark']) {
      const loser = winner === 'light' ? 'dark' : 'light';
      const names = new RegExp(`${t(`color.${loser}`)}|${t(`color.of.${loser}`)}`, 'i');
      const winnerName = new RegExp(`${t(`color.${winner}`)}|${t(`color.of.${winner}`)}`, 'i');
      for (const reason of WINS) {
        const outcome = { kind: 'win', winner, reason };
        const lost = reasonText(outcome, loser, t);
        const won = reasonText(outcome, winner, t);
        const watched = reasonText(outcome, null, t);
        for (const line of [lost, won, watched]) assert.doesNotMatch(line, /[{}]|reason\./, line);
        assert.match(lost, you, `${lang} ${reason}: the loser reads about himself: ${lost}`);
        assert.doesNotMatch(lost, opponent, lost);
        assert.match(won, opponent, `${lang} ${reason}: the winner reads about the opponent: ${won}`);
        assert.match(won, names, won);
        assert.doesNotMatch(watched, you, watched);
        assert.doesNotMatch(watched, opponent, `${lang} ${reason}: a spectator has no opponent: ${watched}`);
        assert.match(watched, names, watched);
        assert.doesNotMatch(watched, winnerName, watched);
      }
      // Three in a row wins: the same line for everyone.
      const mill = { kind: 'win', winner, reason: 'mill' };
      assert.equal(reasonText(mill, loser, t), reasonText(mill, null, t));
    }
    for (const reason of DRAWS) {
      const outcome = { kind: 'draw', reason };
      const line = reasonText(outcome, null, t);
      assert.doesNotMatch(line, /[{}]|reason\./, line);
      assert.equal(reasonText(outcome, 'light', t), line);
      assert.equal(reasonText(outcome, 'dark', t), line);
    }
  }
});

test('the result box never says the same thing twice: a clock result\'s title and its reason differ, for players and spectators', () => {
  const plain = (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  for (const lang of LANGUAGES) {
    const t = translator(lang);
    for (const reason of ['timeout', 'abandoned']) {
      for (const winner of ['light', 'dark']) {
        const outcome = { kind: 'win', winner, reason };
        for (const seat of [null, 'light', 'dark']) {
          const r = clockResult(outcome, seat);
          const title = t(r.key, { side: t(`color.${r.side}`) });
          const why = reasonText(outcome, seat, t);
          assert.notEqual(plain(title), plain(why), `${lang} ${reason} ${winner} seen by ${seat ?? 'a spectator'}: "${title}" / "${why}"`);
        }
      }
    }
  }
});
