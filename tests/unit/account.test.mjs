// The account pages' pure parts (static/js/account-logic.js) and their words in both
// languages (static/js/account-text.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorText, profileName, ratingRows, shownRating } from '../../static/js/account-logic.js';
import { ACCOUNT_TEXT, accountTranslator } from '../../static/js/account-text.js';

test('refusals get their own words, and unknown codes a general sentence with the code', () => {
  assert.deepEqual(errorText('bad-credentials'), { key: 'account.error.bad-credentials', params: {} });
  assert.deepEqual(errorText('internal'), { key: 'account.error.other', params: { code: 'internal' } });
  assert.deepEqual(errorText(undefined), { key: 'account.error.other', params: { code: 'unknown' } });
  for (const lang of /** @type {const} */ (['en', 'ru'])) {
    const t = accountTranslator(lang);
    for (const code of ['name-taken', 'bad-name', 'weak-password', 'bad-credentials', 'throttled', 'cross-site']) {
      const { key } = errorText(code);
      assert.notEqual(t(key), key, `${lang} ${code}`);
    }
  }
});

test('both languages have every word', () => {
  assert.deepEqual(Object.keys(ACCOUNT_TEXT.ru).sort(), Object.keys(ACCOUNT_TEXT.en).sort());
  for (const [key, text] of Object.entries(ACCOUNT_TEXT.ru)) assert.ok(text.length > 0, key);
  // Shared words come through from i18n.js.
  assert.equal(accountTranslator('ru')('variant.nine').length > 0, true);
  assert.equal(accountTranslator('en')('account.signedIn', { name: 'Ann' }), 'Signed in as Ann.');
});

test('ratings become rows by game, then from the fastest speed to the slowest', () => {
  const rows = ratingRows({
    six: { blitz: { rating: 1480.4, rd: 80.2, vol: 0.06, games: 30, provisional: false } },
    nine: {
      correspondence: { rating: 1500, rd: 350, vol: 0.06, games: 0, provisional: true },
      bullet: { rating: 1662.3, rd: 290.3, vol: 0.06, games: 1, provisional: true },
      nonsense: { rating: 1 },
    },
    broken: 3,
  });
  assert.deepEqual(rows.map((r) => `${r.rules} ${r.speed}`), ['nine bullet', 'nine correspondence', 'six blitz']);
  assert.equal(shownRating(rows[0]), '1662?');
  assert.equal(shownRating(rows[2]), '1480');
  assert.equal(rows[2].rd, 80);
  assert.deepEqual(ratingRows(null), []);
});

test('a profile address names a player only in a name\'s shape', () => {
  assert.equal(profileName('/@/Ann_Lee'), 'Ann_Lee');
  assert.equal(profileName('/@/ann/'), 'ann');
  assert.equal(profileName('/@/a'), null);
  assert.equal(profileName('/@/ann/games'), null);
  assert.equal(profileName('/@/анна'), null);
});

test('every word the two pages name is there in both languages', async () => {
  const { readFileSync } = await import('node:fs');
  for (const file of ['account.html', 'profile.html', 'players.html']) {
    const html = readFileSync(new URL(`../../static/${file}`, import.meta.url), 'utf8');
    const used = new Set([...html.matchAll(/data-pt="([^"]+)"/g)].map((m) => m[1]));
    assert.ok(used.size > 3, file);
    for (const lang of /** @type {const} */ (['en', 'ru'])) {
      const t = accountTranslator(lang);
      for (const key of used) assert.notEqual(t(key), key, `${lang}: ${key} missing in ${file}`);
    }
  }
  for (const speed of ['bullet', 'blitz', 'rapid', 'classical', 'correspondence']) {
    assert.notEqual(accountTranslator('ru')(`speed.${speed}`), `speed.${speed}`);
  }
});
