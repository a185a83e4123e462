// Keyboard-only play and the accessibility audit.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { moveFocus } from '../../static/js/board.js';
import { actionsOf, axeSerious, DESKTOP, openPage, PHONE, readBoard, shot, topology, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: false });

const KEYS = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'];

/** The shortest arrow-key path between two points, by the page's own geometry rule. */
function arrowPath(from, to) {
  const prev = new Map([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const p = queue.shift();
    if (p === to) break;
    for (const key of KEYS) {
      const q = moveFocus(topology, p, key);
      if (!prev.has(q)) {
        prev.set(q, [p, key]);
        queue.push(q);
      }
    }
  }
  const keys = [];
  for (let p = to; prev.get(p); p = prev.get(p)[0]) keys.unshift(prev.get(p)[1]);
  return keys;
}

const focusedPoint = (page) => page.evaluate(() => document.activeElement?.dataset?.point ?? null);

async function goTo(page, name) {
  const from = await focusedPoint(page);
  for (const key of arrowPath(from, name)) await page.keyboard.press(key);
  assert.equal(await focusedPoint(page), name);
}

async function press(page, name, key = 'Enter') {
  await goTo(page, name);
  await page.keyboard.press(key);
}

test('a game placed, moved and removed with the keyboard only', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP });
  const page = await openPage(context, `${env.server.url}/`);
  // Tab to "Same device" and start.
  // (The header's links and the start screen's controls come first: at most 25 stops.)
  for (let i = 0; i < 25 && (await page.evaluate(() => document.activeElement?.id)) !== 'start-local'; i++) {
    await page.keyboard.press('Tab');
  }
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'start-local');
  await page.keyboard.press('Enter');
  await page.locator('#board-host [data-point="a1"]').waitFor();
  // Tab reaches the board.
  for (let i = 0; i < 10 && !(await focusedPoint(page)); i++) await page.keyboard.press('Tab');
  assert.ok(await focusedPoint(page), 'Tab never reached the board');
  await shot(page, 'keyboard-01-focus-desktop');

  // Placing, with a mill and its removal (Enter and Space both act).
  const actions = actionsOf('a4 g1 a7 b4 b2 c4 d1 c5 d2 d7 d3xg1 g1 e4 e3 e5 f2 f6 g4');
  for (const [i, a] of actions.entries()) await press(page, a.replace(/^x/, ''), i % 2 ? ' ' : 'Enter');
  let board = await readBoard(page);
  assert.equal(Object.keys(board.pieces).length, 17);
  assert.equal(board.pieces.g1, 'dark');

  // Moving: select a4, Escape clears, select again, move to a1.
  await press(page, 'a4');
  assert.deepEqual((await readBoard(page)).selected, ['a4']);
  await page.keyboard.press('Escape');
  assert.deepEqual((await readBoard(page)).selected, []);
  await press(page, 'a4');
  const label = await page.locator('[data-point="a1"]').getAttribute('aria-label');
  assert.equal(label, 'a1, empty, can move here');
  await shot(page, 'keyboard-02-selected-desktop');
  await press(page, 'a1');
  board = await readBoard(page);
  assert.equal(board.pieces.a1, 'light');
  assert.equal(board.pieces.a4, undefined);
  assert.equal(await page.locator('[data-point="a1"]').getAttribute('aria-label'), 'a1, Light piece, last move');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('accessibility audit: no serious violations on the start screen and the game', async () => {
  for (const [locale, viewport] of [
    ['en-US', PHONE],
    ['ru-RU', DESKTOP],
  ]) {
    const context = await env.browser.newContext({ viewport, locale });
    const page = await openPage(context, `${env.server.url}/`);
    await page.locator('#start-local').waitFor();
    await shot(page, `start-${locale}-${viewport.width}`);
    assert.deepEqual(await axeSerious(page), [], `start screen (${locale})`);
    await page.locator('#start-local').click();
    await page.locator('#board-host [data-point="a1"]').waitFor();
    for (const a of ['a1', 'b2', 'd1', 'd2', 'g1']) await page.locator(`[data-point="${a}"]`).click();
    await shot(page, `game-${locale}-${viewport.width}`);
    assert.deepEqual(await axeSerious(page), [], `game screen (${locale})`);
    await context.close();
  }
});
