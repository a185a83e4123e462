import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DICTIONARIES, pickLanguage, pluralKey, translator } from '../../static/js/i18n.js';

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
