// Sharing a finished online round: the Share button's link opens it read-only for review,
// stepped by buttons and keys, through a real mill-server (MILL_SERVER_BIN).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, clickAction, DESKTOP, openPage, PHONE, point, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const waitStatus = (page, text) =>
  page.waitForFunction((want) => document.getElementById('status')?.textContent === want, text);

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();

test('a resigned round is shared by a link that opens it for review, read-only', async () => {
  const lightContext = await env.browser.newContext({ viewport: DESKTOP });
  await lightContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const room = new URL(light.url()).pathname.split('/')[2];
  const darkContext = await env.browser.newContext({ viewport: DESKTOP });
  const dark = await openPage(darkContext, light.url());
  await waitStatus(dark, 'Waiting for Light to move');
  assert.equal(await light.locator('#share-round').isVisible(), false, 'nothing to share while playing');
  for (const [page, other, a, side] of [
    [light, dark, 'a1', 'light'],
    [dark, light, 'b2', 'dark'],
    [light, dark, 'a4', 'light'],
  ]) {
    await clickAction(page, a);
    await waitPiece(other, a, side);
  }
  // A round in progress is reviewed from the room, and "Back to the game" returns to it.
  await dark.locator('#review-open').click();
  await waitStatus(dark, 'Review · turn 3 / 3');
  assert.deepEqual((await readBoard(dark)).pieces, { a1: 'light', b2: 'dark', a4: 'light' });
  await dark.locator('#review-back').click();
  await dark.locator('#resign').waitFor();
  assert.deepEqual((await readBoard(dark)).pieces, { a1: 'light', b2: 'dark', a4: 'light' });
  dark.once('dialog', (d) => d.accept());
  await dark.locator('#resign').click();
  const share = light.locator('#share-round');
  await share.waitFor();
  await share.click();
  await light.waitForFunction(() => document.getElementById('share-round').textContent === 'Link copied');
  const link = await light.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, `${env.server.url}/r/${room}/review/1`);
  assert.ok(!link.includes(await light.evaluate(() => JSON.stringify(localStorage)).then((s) => /[0-9a-f]{64}/.exec(s)?.[0] ?? 'no key')), 'no seat key in the link');

  // Someone else opens the link: the final position, the result, and no seat controls.
  const viewerContext = await env.browser.newContext({ viewport: PHONE });
  const viewer = await openPage(viewerContext, link);
  await waitStatus(viewer, 'Review · round 1 · turn 3 / 3');
  assert.deepEqual((await readBoard(viewer)).pieces, { a1: 'light', b2: 'dark', a4: 'light' });
  assert.equal(await viewer.locator('#result').isVisible(), true);
  for (const id of ['#online-controls', '#local-controls', '#invite']) {
    assert.equal(await viewer.locator(id).isVisible(), false, id);
  }
  assert.equal(await viewer.locator('#review-next').isDisabled(), true);
  assert.equal(await viewer.locator('#review-back').isVisible(), false, 'a shared round has no game to go back to');
  // The engine judges the round: the start and three turn ends on the graph.
  await viewer.waitForFunction(() => document.getElementById('analysis-progress')?.textContent === 'All 4 positions judged', null, { timeout: 30_000 });
  assert.equal((await viewer.locator('#eval-graph .graph-line').getAttribute('points')).split(' ').length, 4);
  await shot(viewer, 'share-01-review-phone');
  assert.deepEqual(await axeSerious(viewer), []);
  // Buttons and keys step through the positions; the board takes no click.
  await viewer.locator('#review-prev').click();
  await waitStatus(viewer, 'Review · round 1 · turn 2 / 3');
  assert.deepEqual((await readBoard(viewer)).pieces, { a1: 'light', b2: 'dark' });
  assert.equal(await viewer.locator('#result').isVisible(), false);
  await viewer.keyboard.press('Home');
  await waitStatus(viewer, 'Review · round 1 · turn 0 / 3');
  assert.deepEqual((await readBoard(viewer)).pieces, {});
  await point(viewer, 'd6').click({ force: true });
  assert.deepEqual((await readBoard(viewer)).pieces, {}, 'read-only');
  // Arrows step even with the focus on the board.
  await viewer.keyboard.press('ArrowRight');
  await waitStatus(viewer, 'Review · round 1 · turn 1 / 3');
  await viewer.keyboard.press('End');
  await waitStatus(viewer, 'Review · round 1 · turn 3 / 3');
  // In Russian too.
  await viewer.locator('#lang').click();
  await waitStatus(viewer, 'Просмотр · партия 1 · ход 3 / 3');
  assert.deepEqual(await axeSerious(viewer), []);

  // A round still being played, or one that does not exist, says why.
  const early = await openPage(viewerContext, `${env.server.url}/r/${room}/review/2`);
  await early.waitForFunction(() => /Эту партию не показать|This round cannot be shown/.test(document.getElementById('status')?.textContent ?? ''));
  for (const page of [light, dark, viewer, early]) assert.deepEqual(page.errors.filter((e) => !/404|409/.test(e)), []);
  await Promise.all([lightContext.close(), darkContext.close(), viewerContext.close()]);
});
