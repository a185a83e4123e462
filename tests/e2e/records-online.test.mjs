// Copy record and Copy MFEN in an online room, through a real mill-server: the players
// and a spectator copy the round with its room, round and result (a resignation is not
// on the board, yet the record says it), and the copied record imports into a
// same-device game as the same game.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionsOf, axeSerious, clickAction, openPage, PHONE, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

async function contextWithClipboard(locale = 'en-US') {
  const context = await env.browser.newContext({ viewport: PHONE, locale });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url });
  return context;
}

/** Waits until the status line matches `re`. */
const waitStatus = (page, re) =>
  page.waitForFunction(([source]) => new RegExp(source).test(document.getElementById('status')?.textContent ?? ''), [re.source]);

test('players and a spectator copy the online round with its room, round and result; it imports as the same game', async () => {
  const lightContext = await contextWithClipboard();
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const room = new URL(light.url()).pathname.split('/')[2];
  const darkContext = await contextWithClipboard();
  const dark = await openPage(darkContext, light.url());
  await waitStatus(light, /^Your turn/);

  // Turns alternate between the two browsers; the mill's removal is Light's.
  const game = 'a1 b2 d1 d2 g1xd2 f4';
  for (const [i, turn] of game.split(' ').entries()) {
    const page = i % 2 === 0 ? light : dark;
    await waitStatus(page, /^Your turn/);
    for (const action of actionsOf(turn)) await clickAction(page, action);
  }
  await waitStatus(light, /^Your turn/);

  // The tools are there online, Import is not (the server holds the game).
  assert.equal(await light.locator('#copy-record').isVisible(), true);
  assert.equal(await light.locator('#import-record').isVisible(), false);

  // A spectator mid-game: the round so far, not over.
  const watcherContext = await contextWithClipboard('ru-RU');
  const watcher = await openPage(watcherContext, light.url());
  await waitStatus(watcher, /^Вы зритель/);
  await watcher.locator('#copy-record').click();
  await watcher.locator('#record-copied', { hasText: 'Запись партии скопирована.' }).waitFor();
  const live = await clipboard(watcher);
  assert.match(live, new RegExp(`^\\[Variant "nine"\\]\\n\\[Date "\\d{4}\\.\\d{2}\\.\\d{2}"\\]\\n\\[Result "\\*"\\]\\n\\[Room "${room}"\\]\\n\\[Round "1"\\]\\n`));
  assert.match(live, /\n1\. a1 b2 2\. d1 d2 3\. g1xd2 f4 \*\n$/);
  await watcher.locator('#copy-mfen').click();
  await watcher.locator('#record-copied', { hasText: 'MFEN' }).waitFor();
  assert.equal(await clipboard(watcher), 'MFEN/1.0 mill24-state-v1 ....WWW./...B..B./........ w p p 6,6 - 0 6 -');
  assert.deepEqual(await axeSerious(watcher), [], 'spectator with the record tools, in Russian');

  // Dark resigns: the record ends 1-0 by resignation, for both players and the spectator.
  dark.on('dialog', (d) => d.accept());
  await dark.locator('#resign').click();
  await light.locator('#result-reason', { hasText: 'Your opponent (Dark) resigned.' }).waitFor();
  await light.locator('#copy-record').click();
  await light.locator('#record-copied', { hasText: 'The record is copied.' }).waitFor();
  const record = await clipboard(light);
  assert.match(record, /\n\[Result "1-0"\]\n\[Termination "resignation"\]\n/);
  assert.match(record, new RegExp(`\\[Room "${room}"\\]\\n\\[Round "1"\\]\\n`));
  assert.match(record, /\n1\. a1 b2 2\. d1 d2 3\. g1xd2 f4 1-0\n$/);
  await shot(light, 'records-online-01-copied-after-resignation-phone');
  await watcher.locator('#result').waitFor();
  await watcher.locator('#copy-record').click();
  await watcher.waitForFunction(() => document.getElementById('record-copied').textContent !== '');
  await watcher.waitForFunction(async () => (await navigator.clipboard.readText()).includes('[Result "1-0"]'));

  // The round's share link, under review: the same record; MFEN of the position shown.
  const review = await openPage(lightContext, `${env.server.url}/r/${room}/review/1`);
  await review.locator('#record button.turn').first().waitFor();
  await review.locator('#copy-record').click();
  await review.waitForFunction(() => document.getElementById('record-copied').textContent !== '');
  assert.equal(await clipboard(review), record);
  await review.locator('#review-first').click();
  await review.locator('#review-next').click();
  await review.locator('#copy-mfen').click();
  await review.locator('#record-copied', { hasText: 'MFEN' }).waitFor();
  assert.equal(await clipboard(review), 'MFEN/1.0 mill24-state-v1 ......W./......../........ b p p 8,9 - 0 1 -');
  assert.equal(await review.locator('#import-record').isVisible(), false);

  // Imported on the same device: the same board, and the same result.
  const local = await openPage(lightContext, `${env.server.url}/`);
  await local.locator('#start-local').click();
  await local.locator('#board-host [data-point="a1"]').waitFor();
  await local.locator('#import-record').click();
  await local.locator('#import-text').fill(record);
  await local.locator('#import-load').click();
  await local.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.deepEqual((await readBoard(local)).pieces, (await readBoard(light)).pieces);
  // The same result, said of the sides (both play on this screen), not to a seat.
  assert.equal(await local.locator('#result-reason').innerText(), 'Dark resigned.');

  for (const page of [light, dark, review, local]) assert.deepEqual(page.errors, []);
  // The spectator's join was refused (409: both seats taken), which is how it came to watch.
  assert.deepEqual(watcher.errors.filter((e) => !/status of 409/.test(e)), []);
  await Promise.all([lightContext.close(), darkContext.close(), watcherContext.close()]);
});
