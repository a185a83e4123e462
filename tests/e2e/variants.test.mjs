// The variant chooser in a real browser: a Three Men's Morris game won by a line, and a
// Twelve Men's Morris game with a diagonal mill, on same device (a static file server
// stands in for mill-server).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionsOf, clickAction, DESKTOP, openPage, readBoard, shot, statusText, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: false });

/** Chooses a variant on the start screen and opens a same-device game of it. */
async function startLocalVariant(variant, locale = 'en-US') {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale });
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#variant').selectOption(variant);
  await page.waitForFunction((v) => document.getElementById('variant').value === v, variant);
  await page.locator('#rule-options').evaluate((d) => (d.open = true));
  await shot(page, `variants-00-start-${variant}`);
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  return { context, page };
}

/** The board's drawn segments as "a1-b2" (each pair sorted). */
const segments = (page) =>
  page.evaluate(() => {
    const at = new Map(
      [...document.querySelectorAll('#board-host [data-point]')].map((g) => {
        const [x, y] = g.getAttribute('transform').match(/translate\((\S+) (\S+)\)/).slice(1);
        return [`${Number(x)},${Number(y)}`, g.dataset.point];
      }),
    );
    return [...document.querySelectorAll('#board-host .lines line')].map((l) =>
      [at.get(`${Number(l.getAttribute('x1'))},${Number(l.getAttribute('y1'))}`), at.get(`${Number(l.getAttribute('x2'))},${Number(l.getAttribute('y2'))}`)]
        .sort()
        .join('-'),
    );
  });

test('Three Men\'s Morris: nine points, no options, and the first line wins', async () => {
  const { context, page } = await startLocalVariant('three');
  const board = await readBoard(page);
  assert.equal(board.canPlace.length, 9);
  assert.deepEqual(board.canPlace.sort(), ['a1', 'a4', 'a7', 'd1', 'd4', 'd7', 'g1', 'g4', 'g7']);
  assert.equal(await page.locator('#game-rules').innerText(), "Three Men's Morris");
  // Light a1 d4, Dark a4 d1, Light g7: the diagonal a1-d4-g7.
  for (const action of actionsOf('a1 a4 d4 d1')) await clickAction(page, action);
  await shot(page, 'variants-01-three');
  await clickAction(page, 'g7');
  await page.locator('#result').waitFor({ state: 'visible' });
  assert.match(await page.locator('#result-title').innerText(), /Light/);
  assert.equal(await page.locator('#result-reason').innerText(), 'Three in a row: the first line wins.');
  assert.equal((await readBoard(page)).canPlace.length, 0, 'nothing to play after the win');
  await shot(page, 'variants-02-three-won');
  // The game is saved under its variant: back on the start screen Nine is untouched.
  await page.locator('#menu').click();
  await page.locator('#variant').selectOption('nine');
  await page.locator('#start-local').click();
  await page.waitForFunction(() => document.querySelectorAll('#board-host .can-place').length === 24);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Twelve Men\'s Morris: diagonals drawn, a diagonal mill removes, twelve pieces each', async () => {
  const { context, page } = await startLocalVariant('twelve', 'ru-RU');
  const drawn = await segments(page);
  assert.equal(drawn.length, 40);
  for (const diagonal of ['a1-b2', 'b2-c3', 'a7-b6', 'f6-g7', 'f2-g1']) assert.ok(drawn.includes(diagonal), diagonal);
  assert.equal(await page.locator('#game-rules').innerText(), 'Мельница на 12 фишек');
  assert.equal(await page.locator('.card[data-side="light"] .in-hand b').innerText(), '12');
  for (const action of actionsOf('a1 d1 b2 d2')) await clickAction(page, action);
  await clickAction(page, 'c3');
  const board = await readBoard(page);
  assert.deepEqual(board.freshMills, ['a1 b2 c3']);
  assert.deepEqual(board.canRemove.sort(), ['d1', 'd2']);
  await shot(page, 'variants-03-twelve-diagonal');
  await clickAction(page, 'xd1');
  assert.equal((await readBoard(page)).pieces.d1, undefined);
  assert.equal(await page.locator('.card[data-side="dark"] .on-board b').innerText(), '1');
  assert.match(await statusText(page), /./);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the rules page has a live board for Three, Six and Twelve Men\'s Morris', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP });
  const page = await openPage(context, `${env.server.url}/rules`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  const points = (id) => page.locator(`[data-diagram="${id}"] [data-point]`).count();
  assert.equal(await points('three'), 9);
  assert.equal(await points('six'), 16);
  assert.equal(await points('twelve'), 24);
  assert.equal(await page.locator('[data-diagram="twelve"] .lines line').count(), 40);
  // Three: g7 closes the top row, and the game is over at once.
  await page.locator('[data-diagram="three"] [data-point="g7"]').click();
  await page.waitForFunction(() => /Light wins/.test(document.querySelector('[data-diagram="three"] [data-role="status"]').textContent));
  await page.locator('#three').scrollIntoViewIfNeeded();
  await shot(page, 'variants-05-rules-three');
  assert.deepEqual(page.errors, []);
  await context.close();
});
