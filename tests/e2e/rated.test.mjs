// A rated game between two accounts in a real browser against the real server: each
// signs up (over the API, in a browser context of its own), chooses Rated in Play online
// with the same game and clock, and they are paired; the cards name both with their
// ratings (linked to their profiles), one resigns, both see the ratings' change on the
// cards and in the result box, and the winner's profile lists the game. Also: Rated is
// shown disabled with a link to sign in for an anonymous visitor, the lobby names a
// signed-in seeker, the header's account link, the phone width (360 px) and axe.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, clickAction, DESKTOP, openPage, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });
const NARROW = { width: 360, height: 740 };

/** A browser of its own on the start screen, signed up as `name` (or anonymous). */
async function visitor(name, viewport = NARROW, locale = 'en-US') {
  const context = await env.browser.newContext({ viewport, locale });
  const page = await openPage(context, `${env.server.url}/`);
  if (name) {
    const status = await page.evaluate(async (name) => {
      const res = await fetch('/api/account', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, password: 'a fine passphrase' }) });
      return res.status;
    }, name);
    assert.equal(status, 201);
    await page.reload();
  }
  await page.locator('#lobby-presets button').first().waitFor();
  return { context, page };
}

const preset = (page, id) => page.locator(`#lobby-presets button[data-preset="${id}"]`);
const card = (page, side) => page.locator(`.card[data-side="${side}"]`);

/** Which of two paired pages plays Light. */
async function bySeat(a, b) {
  const note = async (p) => {
    await p.locator('#seat-note').filter({ hasText: /You play/ }).waitFor();
    return p.locator('#seat-note').innerText();
  };
  return (await note(a)) === 'You play Light' ? [a, b] : [b, a];
}

/** Nothing of the page is wider than the window (no sideways scrolling). */
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test('an anonymous visitor sees Rated disabled, with a way to sign in', async () => {
  const v = await visitor(null);
  const { page } = v;
  assert.equal(await page.locator('#lobby-rated').isDisabled(), true);
  assert.equal(await page.locator('#lobby-rated-hint a').isVisible(), true);
  assert.equal(await page.locator('#lobby-rated-hint a').getAttribute('href'), '/account');
  assert.equal(await page.locator('#account-link-name').innerText(), 'Sign in');
  assert.equal(await page.locator('#account-link').getAttribute('href'), '/account');
  assert.equal(await overflow(page), 0);
  assert.deepEqual(await axeSerious(page), []);
  // Russian too.
  await page.click('#lang');
  assert.equal(await page.locator('#account-link-name').innerText(), 'Войти');
  assert.equal(await page.locator('#lobby-rated-hint a').innerText(), 'Войдите, чтобы играть на рейтинг');
  assert.equal(await overflow(page), 0);
  assert.deepEqual(page.errors, []);
  await v.context.close();
});

test('two accounts play a rated game: names, ratings, the change, and the profile', async () => {
  const a = await visitor('Rhea_e2e');
  const b = await visitor('Sven_e2e_long_name1', DESKTOP);
  const c = await visitor(null, DESKTOP);
  // The header names who is signed in, and does not push a 360 px phone sideways.
  assert.equal(await a.page.locator('#account-link-name').innerText(), 'Rhea_e2e');
  assert.equal(await overflow(a.page), 0);

  // Rated is a choice once signed in; untimed cannot be rated.
  assert.equal(await a.page.locator('#lobby-rated').isDisabled(), false);
  assert.equal(await a.page.locator('#lobby-rated-hint').isVisible(), false);
  await a.page.locator('label:has(#lobby-rated)').click();
  assert.equal(await preset(a.page, 'untimed').isDisabled(), true);
  await preset(a.page, '3+2').click();
  assert.match(await a.page.locator('#lobby-waiting-text').innerText(), /^Waiting for an opponent… Nine Men.s Morris, 3\+2, rated$/);

  // Someone else sees the seek named, with its rating, and rated (and cannot take it anonymously).
  const row = c.page.locator('#lobby-list li').first();
  await row.waitFor();
  assert.match(await row.innerText(), /Nine Men.s Morris · 3\+2 rated/i);
  assert.match(await row.locator('.lobby-who').innerText(), /^Rhea_e2e 1500\?$/);
  assert.equal(await row.locator('button').isDisabled(), true);
  assert.deepEqual(await axeSerious(c.page), []);

  await b.page.locator('label:has(#lobby-rated)').click();
  await preset(b.page, '3+2').click();
  await a.page.waitForURL(/\/r\/[a-z0-9]+$/);
  await b.page.waitForURL(/\/r\/[a-z0-9]+$/);
  assert.equal(a.page.url(), b.page.url(), 'one room');
  const room = new URL(a.page.url()).pathname.split('/')[2];

  const [light, dark] = await bySeat(a.page, b.page);
  const lightName = light === a.page ? 'Rhea_e2e' : 'Sven_e2e_long_name1';
  const darkName = light === a.page ? 'Sven_e2e_long_name1' : 'Rhea_e2e';
  for (const p of [light, dark]) {
    await card(p, 'dark').locator('.player-name').filter({ hasText: darkName }).waitFor();
    assert.equal(await card(p, 'light').locator('.player-name').innerText(), lightName);
    assert.equal(await card(p, 'light').locator('.player-name').getAttribute('href'), `/@/${lightName}`);
    assert.equal(await card(p, 'dark').locator('.player-name').getAttribute('href'), `/@/${darkName}`);
    assert.equal(await card(p, 'light').locator('.player-rating').innerText(), '1500?');
    assert.equal(await card(p, 'dark').locator('.player-rating').innerText(), '1500?');
    assert.equal(await card(p, 'light').locator('.player-change').isVisible(), false);
  }
  await light.locator('#status').filter({ hasText: 'Your turn: place a piece' }).waitFor();
  await clickAction(light, 'd6');
  await dark.locator('#board-host [data-point="d6"].light').waitFor();
  // No takebacks in a rated game is the server's; the phone width holds the long name.
  assert.equal(await overflow(a.page), 0);
  await shot(a.page, 'rated-00-cards-phone');
  assert.deepEqual(await axeSerious(a.page), []);

  // Dark resigns: both see the change on the cards and in the result box.
  dark.once('dialog', (d) => d.accept());
  await dark.locator('#resign').click();
  for (const p of [light, dark]) {
    await card(p, 'light').locator('.player-change').filter({ hasText: /^\+\d+$/ }).waitFor();
    await card(p, 'dark').locator('.player-change').filter({ hasText: /^\u2212\d+$/ }).waitFor();
  }
  const up = Number((await card(light, 'light').locator('.player-change').innerText()).slice(1));
  const down = Number((await card(light, 'dark').locator('.player-change').innerText()).slice(1));
  assert.ok(up > 0 && down > 0);
  assert.equal(await card(light, 'light').locator('.player-rating').innerText(), `${1500 + up}?`);
  assert.equal(await card(dark, 'dark').locator('.player-rating').innerText(), `${1500 - down}?`);
  assert.equal(await light.locator('#result-rating').innerText(), `Your rating: ${1500 + up}? (+${up})`);
  assert.equal(await dark.locator('#result-rating').innerText(), `Your rating: ${1500 - down}? (\u2212${down})`);
  await shot(a.page, 'rated-01-change-phone');
  for (const p of [light, dark]) assert.deepEqual(await axeSerious(p), []);
  assert.equal(await overflow(a.page), 0);

  // The winner's profile lists the game, rated, against the loser.
  await light.click(`.card[data-side="light"] .player-name`);
  await light.waitForURL(new RegExp(`/@/${lightName}$`));
  await light.locator('body[data-ready="true"]').waitFor();
  const games = light.locator('#profile-games-table tbody tr');
  await games.first().waitFor();
  assert.equal(await games.count(), 1);
  const rowText = await games.first().innerText();
  assert.match(rowText, new RegExp(darkName));
  assert.match(rowText, new RegExp(`\\+${up}`));
  assert.equal(await games.first().locator(`a[href="/r/${room}/review/1"]`).count(), 1);
  for (const p of [a.page, b.page, c.page]) assert.deepEqual(p.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  for (const v of [a, b, c]) await v.context.close();
});
