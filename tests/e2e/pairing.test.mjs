// "Play online" (static/js/lobby.js) through a real mill-server: two browsers press the
// same quick-pairing button and land in one game, which they play; a third sees the seek
// in the lobby before it is taken, and takes another with one click; Cancel withdraws.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, clickAction, DESKTOP, openPage, PHONE, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** A page on the start screen of a browser of its own (its own seeker id). */
async function visitor(viewport = PHONE) {
  const context = await env.browser.newContext({ viewport });
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#lobby-presets button').first().waitFor();
  return { context, page };
}

const preset = (page, id) => page.locator(`#lobby-presets button[data-preset="${id}"]`);
const lobbyItems = (page) => page.locator('#lobby-list li');
const openSeeks = (page) => page.evaluate(() => fetch('/api/seeks').then((r) => r.json()).then((b) => b.seeks));

/** Which of two paired pages plays Light. */
async function bySeat(a, b) {
  const note = async (p) => {
    await p.locator('#seat-note').filter({ hasText: /You play/ }).waitFor();
    return p.locator('#seat-note').innerText();
  };
  return (await note(a)) === 'You play Light' ? [a, b] : [b, a];
}

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();

test('two browsers pressing the same time control meet in one game and play it; a third saw the seek', async () => {
  const a = await visitor();
  const c = await visitor(DESKTOP);
  assert.equal(await c.page.locator('#lobby-empty').isVisible(), true);

  await preset(a.page, '3+2').click();
  await a.page.locator('#lobby-waiting').waitFor();
  assert.match(await a.page.locator('#lobby-waiting-text').innerText(), /^Waiting for an opponent… Nine Men.s Morris, 3\+2$/);
  // The page's own seek is not offered to itself.
  assert.equal(await lobbyItems(a.page).count(), 0);

  // The third visitor sees it in the lobby (read every few seconds) before it is taken.
  await lobbyItems(c.page).first().waitFor();
  assert.match(await lobbyItems(c.page).first().innerText(), /Nine Men.s Morris · 3\+2/);
  await shot(c.page, 'pairing-00-lobby-desktop');
  assert.deepEqual(await axeSerious(c.page), []);

  const b = await visitor();
  await preset(b.page, '3+2').click();
  await a.page.waitForURL(/\/r\/[a-z0-9]+$/);
  await b.page.waitForURL(/\/r\/[a-z0-9]+$/);
  assert.equal(a.page.url(), b.page.url(), 'one room');

  const [light, dark] = await bySeat(a.page, b.page);
  await light.locator('#status').filter({ hasText: 'Your turn: place a piece' }).waitFor();
  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');
  await clickAction(dark, 'a1');
  await waitPiece(light, 'a1', 'dark');
  await clickAction(light, 'd5');
  await waitPiece(dark, 'd5', 'light');
  // A timed room: the clocks show.
  assert.equal(await light.locator('.card[data-side="light"] .clock').isVisible(), true);
  await shot(dark, 'pairing-01-paired-game-phone');

  // Taken: gone from the lobby.
  await c.page.locator('#lobby-empty').waitFor({ state: 'visible' });
  for (const p of [a.page, b.page, c.page]) assert.deepEqual(p.errors, []);
  for (const v of [a, b, c]) await v.context.close();
});

test('a seek in the lobby is taken with one click, and Cancel withdraws a seek', async () => {
  const a = await visitor();
  const c = await visitor();

  // Cancel: the seek leaves the lobby and the page says nothing more.
  await preset(a.page, '1+0').click();
  await a.page.locator('#lobby-waiting').waitFor();
  await lobbyItems(c.page).first().waitFor();
  await a.page.locator('#lobby-cancel').click();
  assert.equal(await a.page.locator('#lobby-waiting').isVisible(), false);
  await c.page.waitForFunction(() => document.getElementById('lobby-list').childElementCount === 0);
  assert.deepEqual(await openSeeks(c.page), []);

  // Russian, untimed, taken from the lobby with one click.
  await a.page.locator('#lang').click();
  await preset(a.page, 'untimed').click();
  assert.match(await a.page.locator('#lobby-waiting-text').innerText(), /^Ждём соперника…/);
  await lobbyItems(c.page).first().waitFor();
  await lobbyItems(c.page).first().locator('button').click();
  await a.page.waitForURL(/\/r\/[a-z0-9]+$/);
  await c.page.waitForURL(/\/r\/[a-z0-9]+$/);
  assert.equal(a.page.url(), c.page.url());
  // one seat each (the Russian page says so in Russian)
  await c.page.locator('#seat-note').filter({ hasText: /^You play (Light|Dark)$/ }).waitFor();
  await a.page.locator('#seat-note').filter({ hasText: /^Вы играете/ }).waitFor();
  for (const p of [a.page, c.page]) assert.deepEqual(p.errors, []);
  for (const v of [a, c]) await v.context.close();
});
