// An online room of another variant, through a real mill-server (MILL_SERVER_BIN,
// default target/debug/mill-server): created as Six Men's Morris on the start screen,
// joined from a second browser, which is told what is being played.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { clickAction, DESKTOP, openPage, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();

test('a room created as Six Men\'s Morris is joined from a second browser and played as Six', async () => {
  const lightContext = await env.browser.newContext({ viewport: DESKTOP });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#variant').selectOption('six');
  // The choice is kept once the rules have read it (the start screen's note names only options).
  await light.waitForFunction(() => localStorage.getItem('mill.rules') === 'six');
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const room = new URL(light.url()).pathname.split('/').pop();
  const info = await (await fetch(`${env.server.url}/api/rooms/${room}`)).json();
  assert.equal(info.variant, 'six');

  const darkContext = await env.browser.newContext({ viewport: DESKTOP, locale: 'ru-RU' });
  const dark = await openPage(darkContext, light.url());
  // The friend's page says what is played and shows Six's sixteen points.
  await dark.waitForFunction(() => document.getElementById('game-rules').textContent === 'Мельница на 6 фишек');
  await dark.waitForFunction(() => document.querySelectorAll('#board-host [data-point]').length === 16);
  assert.equal(await light.locator('#game-rules').innerText(), "Six Men's Morris");
  assert.equal(await light.locator('.card[data-side="light"] .in-hand b').innerText(), '6');
  await light.waitForFunction(() => document.querySelectorAll('#board-host .can-place').length === 16);
  await clickAction(light, 'b4');
  await waitPiece(dark, 'b4', 'light');
  await dark.waitForFunction(() => document.querySelectorAll('#board-host .can-place').length === 15);
  await clickAction(dark, 'd2');
  await waitPiece(light, 'd2', 'dark');
  await shot(dark, 'variants-04-six-online-ru');
  const board = await readBoard(light);
  assert.deepEqual(board.pieces, { b4: 'light', d2: 'dark' });
  assert.equal(await dark.locator('.card[data-side="dark"] .in-hand b').innerText(), '5');
  assert.deepEqual(light.errors, []);
  assert.deepEqual(dark.errors, []);
  await lightContext.close();
  await darkContext.close();
});
