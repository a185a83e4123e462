// Keyboard focus, accessible names and the two colour themes, on the pages as people use
// them: where the focus lands after choosing a mode, the board as one Tab stop, a long
// move list reachable by keyboard, a wrapping status that does not move the board, axe on
// every screen in both languages and both themes, and the theme switch remembered.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { snapshotFromView } from '../../static/js/board.js';
import { loadWasm } from '../unit/helpers.mjs';
import { axeSerious, DESKTOP, openPage, PHONE, preloadStorage, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer();

/** A long game played to its end through the real rules: the first legal action each time. */
async function longFinishedGame() {
  const mod = await loadWasm();
  const game = new mod.WasmGame();
  for (let i = 0; i < 400; i += 1) {
    const snap = snapshotFromView(JSON.parse(game.snapshot()));
    if (snap.outcome) break;
    let action;
    if (snap.pendingRemovals > 0) action = `x${snap.removable[0]}`;
    else if (snap.phase[snap.turn] === 'placing') action = snap.selectable[i % snap.selectable.length];
    else {
      const from = Object.keys(snap.destinations)[0];
      action = `${from}-${snap.destinations[from][0]}`;
    }
    assert.equal(JSON.parse(game.play(action)).ok, true, action);
  }
  const snap = snapshotFromView(JSON.parse(game.snapshot()));
  assert.ok(snap.outcome, 'the game ended');
  assert.ok(snap.record.length > 24, `a long game (${snap.record.length} turns)`);
  return game.export_record();
}

async function open(path, { viewport = PHONE, locale = 'en-US', colorScheme = 'light', saved = {} } = {}) {
  const context = await env.browser.newContext({ viewport, locale, colorScheme });
  await preloadStorage(context, saved);
  const page = await openPage(context, `${env.server.url}${path}`);
  return { context, page };
}

const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a?.getAttribute('data-point') ? `point ${a.getAttribute('data-point')}` : a?.id || a?.tagName.toLowerCase();
  });

test('choosing a mode puts the focus on the board, and the board is one Tab stop', async () => {
  const { context, page } = await open('/');
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point]').first().waitFor();
  assert.match(await focused(page), /^point /, 'the focus stayed on the page');
  // Tab round the page twice: the board is one stop (its points are reached with the arrows).
  const stops = [];
  for (let i = 0; i < 40 && stops.filter((x) => x.startsWith('point ')).length < 2; i += 1) {
    await page.keyboard.press('Tab');
    stops.push(await focused(page));
  }
  assert.ok(!stops.includes('svg'), `the <svg> is a Tab stop: ${stops.join(', ')}`);
  const points = stops.flatMap((x, i) => (x.startsWith('point ') ? [i] : []));
  assert.equal(points.length, 2, `the board was not reached twice: ${stops.join(', ')}`);
  assert.ok(points[1] - points[0] > 1, `two board stops in a row: ${stops.join(', ')}`);

  // Vs computer too; and with the keyboard: Enter on the mode, then the arrow keys play on.
  await page.locator('#menu').click();
  await page.locator('#start-computer').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.hasAttribute('data-point'));
  await context.close();
});

test('a long finished game: the move list scrolls and is reachable by keyboard; no serious axe finding', async () => {
  const record = await longFinishedGame();
  for (const locale of ['en-US', 'ru-RU']) {
    for (const viewport of [PHONE, DESKTOP]) {
      const { context, page } = await open('/#local', { viewport, locale, saved: { 'mill.game.local': record } });
      await page.locator('#result').waitFor();
      const list = await page.evaluate(() => {
        const l = document.getElementById('record');
        return { scrolls: l.scrollHeight > l.clientHeight, tabIndex: l.tabIndex };
      });
      assert.equal(list.scrolls, true, 'the list overflows its box');
      assert.equal(list.tabIndex, 0, 'a scrolling list is a Tab stop');
      assert.deepEqual(await axeSerious(page), [], `game over ${locale} ${viewport.width}`);
      await context.close();
    }
  }
});

test('on a phone, a status that wraps to two lines does not move the board', async () => {
  const { context, page } = await open('/#local');
  await page.locator('#board-host [data-point]').first().waitFor();
  const top = () => page.evaluate(() => document.getElementById('board-host').getBoundingClientRect().top);
  const before = await top();
  const lines = await page.evaluate(() => {
    const s = document.getElementById('status');
    s.textContent = 'Your turn, you are flying: pick any free point on the board';
    const range = document.createRange();
    range.selectNodeContents(s);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });
  assert.equal(lines, 2, 'the text wraps');
  assert.equal(await top(), before);
  await context.close();
});

test('the Russian rules page: every accessible name holds its visible text', async () => {
  const { context, page } = await open('/rules', { locale: 'ru-RU', viewport: DESKTOP });
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  assert.deepEqual(await axeSerious(page), []);
  await context.close();
});

test('the theme follows the system, the switch pins the other one and is remembered, on both pages', async () => {
  const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const isLight = (rgb) => {
    const [r, g, b] = rgb.match(/\d+/g).map(Number);
    return r + g + b > 600;
  };
  for (const colorScheme of ['light', 'dark']) {
    const { context, page } = await open('/#local', { colorScheme });
    await page.locator('#board-host [data-point]').first().waitFor();
    assert.equal(isLight(await background(page)), colorScheme === 'light', `follows a ${colorScheme} system`);
    assert.deepEqual(await axeSerious(page), [], `${colorScheme} game`);
    const other = colorScheme === 'light' ? 'dark' : 'light';
    assert.equal(await page.locator('#theme').getAttribute('aria-label'), other === 'light' ? 'Light theme' : 'Dark theme');
    await page.locator('#theme').click();
    await page.waitForFunction((other) => document.documentElement.dataset.theme === other, other);
    assert.equal(isLight(await background(page)), other === 'light', `switched to ${other}`);
    assert.deepEqual(await axeSerious(page), [], `${other} game after the switch`);
    await page.reload();
    await page.locator('#board-host [data-point]').first().waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), other, 'remembered');
    // The rules page wears the same choice.
    await page.goto(`${env.server.url}/rules`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    assert.equal(isLight(await background(page)), other === 'light', 'the rules page follows the choice');
    assert.deepEqual(await axeSerious(page), [], `${other} rules page`);
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});
