// Online takeback by consent and the declined-offer notice, in two browser contexts
// through a real mill-server (MILL_SERVER_BIN, default target/debug/mill-server).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, clickAction, DESKTOP, openPage, PHONE, point, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const waitStatus = (page, text) =>
  page.waitForFunction((want) => document.getElementById('status')?.textContent === want, text);

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();

/** Light creates a room, Dark opens the invite link; both are connected. */
async function startRoom(viewport) {
  const lightContext = await env.browser.newContext({ viewport });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const darkContext = await env.browser.newContext({ viewport });
  const dark = await openPage(darkContext, light.url());
  await waitStatus(dark, 'Waiting for Light to move');
  return { light, dark, close: () => Promise.all([lightContext.close(), darkContext.close()]) };
}

test('a takeback Dark allows puts Light\'s piece back in hand, on both boards', async () => {
  const { light, dark, close } = await startRoom(PHONE);
  const ask = light.locator('#offer-takeback');
  assert.equal(await ask.isVisible(), false, 'nothing to take back before the first move');
  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');
  assert.equal(await dark.locator('#offer-takeback').isVisible(), false, 'Dark has not played');
  await ask.click();
  await light.waitForFunction(() => document.getElementById('offer-takeback').textContent === 'Takeback asked');
  assert.equal(await ask.isDisabled(), true);
  const prompt = dark.locator('#takeback-offer');
  await prompt.waitFor();
  assert.equal(await dark.locator('#takeback-offer-text').innerText(), 'Light asks to take back their last move');
  await shot(dark, 'takeback-01-asked-phone');
  assert.deepEqual(await axeSerious(dark), []);
  await dark.locator('#accept-takeback').click();
  for (const page of [light, dark]) {
    await page.waitForFunction(() => !document.querySelector('#board-host [data-point="d6"].light'));
    assert.deepEqual((await readBoard(page)).pieces, {});
  }
  await prompt.waitFor({ state: 'hidden' });
  await waitStatus(dark, 'Waiting for Light to move');
  // Light plays again from the start, elsewhere.
  await clickAction(light, 'a1');
  await waitPiece(dark, 'a1', 'light');
  assert.deepEqual(light.errors, []);
  assert.deepEqual(dark.errors, []);
  await close();
});

test('a declined takeback is told to Light in Russian; Light\'s move stays', async () => {
  const { light, dark, close } = await startRoom(DESKTOP);
  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');
  await clickAction(dark, 'd2');
  await waitPiece(light, 'd2', 'dark');
  // Dark's move was the last one: Light can no longer ask for d6 back.
  assert.equal(await light.locator('#offer-takeback').isVisible(), false);
  await light.locator('#lang').click();
  await dark.locator('#offer-takeback').click();
  await light.locator('#takeback-offer').waitFor();
  assert.equal(await light.locator('#takeback-offer-text').innerText(), 'Тёмные просят вернуть свой последний ход');
  await light.locator('#decline-takeback').click();
  const note = dark.locator('#declined-note');
  await note.waitFor();
  assert.equal(await note.innerText(), 'Light declined your takeback');
  await shot(dark, 'takeback-02-declined-desktop');
  assert.deepEqual(await axeSerious(light), []);
  assert.equal((await readBoard(light)).pieces.d2, 'dark', 'nothing was undone');
  // The notice goes with the next move.
  await clickAction(light, 'a1');
  await waitPiece(dark, 'a1', 'light');
  await note.waitFor({ state: 'hidden' });
  await close();
});

test('the side that offered a draw is told when it is declined', async () => {
  const { light, dark, close } = await startRoom(DESKTOP);
  await light.locator('#offer-draw').click();
  await dark.locator('#draw-offer').waitFor();
  await dark.locator('#decline-draw').click();
  const note = light.locator('#declined-note');
  await note.waitFor();
  assert.equal(await note.innerText(), 'Dark declined your draw offer');
  assert.equal(await dark.locator('#declined-note').isVisible(), false, 'not to the side that declined');
  assert.equal(await point(light, 'a1').isVisible(), true);
  await close();
});
