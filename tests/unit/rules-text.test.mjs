// The rules page's words: both languages complete, every key the page and its diagrams
// use exists, parameters match, and the translator falls back to the game's shared words.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { DIAGRAMS } from '../../static/js/rules-diagrams.js';
import { listOf, RULES_TEXT, rulesTranslator } from '../../static/js/rules-text.js';

const html = readFileSync(new URL('../../static/rules.html', import.meta.url), 'utf8');
const params = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('English and Russian have the same keys and the same parameters', () => {
  const en = RULES_TEXT.en;
  const ru = RULES_TEXT.ru;
  assert.deepEqual(Object.keys(ru).sort(), Object.keys(en).sort());
  for (const key of Object.keys(en)) {
    assert.deepEqual(params(ru[key]), params(en[key]), `parameters of ${key}`);
    assert.notEqual(ru[key].trim(), '', `${key} is empty in Russian`);
  }
});

test('the Russian text is Russian, not a copy of the English', () => {
  const cyrillic = /[а-яё]/i;
  for (const [key, text] of Object.entries(RULES_TEXT.ru)) {
    assert.match(text, cyrillic, `${key} has no Russian words`);
  }
});

test('every key in rules.html and in the diagrams exists in both languages', () => {
  const used = new Set();
  for (const m of html.matchAll(/data-rt(?:-html|-aria)?="([^"]+)"/g)) used.add(m[1]);
  for (const d of DIAGRAMS) {
    for (const tab of d.tabs) used.add(tab.key).add(tab.caption);
    for (const key of Object.values(d.notes ?? {})) used.add(key);
  }
  assert.ok(used.size > 40, `only ${used.size} keys found: the page is not being read`);
  for (const lang of ['en', 'ru']) {
    for (const key of used) assert.ok(key in RULES_TEXT[lang], `${lang}: ${key} missing`);
  }
});

test('the page has every section issue 6 asks for, each with a diagram where it teaches a rule', () => {
  for (const id of ['board', 'removal', 'protected', 'flying', 'losing', 'draws', 'myths', 'worked', 'practice', 'faq']) {
    assert.match(html, new RegExp(`id="${id}"`), `section ${id}`);
  }
  for (const d of DIAGRAMS) assert.match(html, new RegExp(`data-diagram="${d.id}"`), `diagram ${d.id} has a place`);
  assert.match(html, /href="\/"[^>]*data-role="start-game"/, 'a "Start a game" link to the start screen');
});

test('the translator fills parameters and falls back to the game words', () => {
  const en = rulesTranslator('en');
  const ru = rulesTranslator('ru');
  assert.equal(en('note.quiet', { next: 'Dark' }), 'No mill, so the turn passed straight to Dark.');
  assert.equal(en('color.dark'), 'Dark');
  assert.equal(ru('color.dark'), 'Тёмные');
  assert.equal(ru('status.place', { side: 'Светлые' }), 'Светлые: поставьте фишку');
  assert.equal(en('no.such.key'), 'no.such.key');
  assert.equal(rulesTranslator('de')('hero.title'), RULES_TEXT.en['hero.title']);
});

test('listOf joins point names in the language of the page', () => {
  assert.equal(listOf(['a4', 'c5'], 'en'), 'a4 and c5');
  assert.equal(listOf(['a4', 'c5'], 'ru'), 'a4 и c5');
  assert.equal(listOf(['d2'], 'en'), 'd2');
  assert.equal(listOf([], 'en'), '');
});
