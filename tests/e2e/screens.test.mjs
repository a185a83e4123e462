// The main screens on a phone and a desktop, in English and Russian, kept as screenshots in
// tests/artifacts/ (screens-<state>-<lang>-<width>.png) to look at. Each is also checked
// for the layout faults a screenshot shows: nothing wider than the screen, no clipped
// button or status text.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionsOf, clickAction, DESKTOP, openPage, PHONE, preloadStorage, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const START = '.../.../.../....../.../.../... l 9 9 0 0';
// Dark wins by blockade (the same game local.test.mjs plays by clicks).
const FINISHED = JSON.stringify({ start: START, actions: actionsOf('b2 b4 d3 c3 e3 c5 e4 d2 e5xb4 b4 d5 d6 f2 d7 f4 f6 g7 g4') });

/** Layout faults: horizontal overflow, and visible controls or texts cut off inside their box. */
function layoutFaults(page) {
  return page.evaluate(() => {
    const faults = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width) faults.push(`page is ${document.documentElement.scrollWidth}px wide in ${width}px`);
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    for (const el of document.querySelectorAll('button, a, #status, .card, .mode, .result, .invite, .segments span, h1, h2, p')) {
      if (!visible(el)) continue;
      const r = el.getBoundingClientRect();
      const id = el.id || el.className || el.tagName;
      if (r.right > width + 0.5 || r.left < -0.5) faults.push(`${id} sticks out of the screen (${Math.round(r.left)}…${Math.round(r.right)})`);
      // Text wider than its own box (cut off or spilling), except boxes that scroll or ellipsize on purpose.
      const style = getComputedStyle(el);
      if (el.scrollWidth > el.clientWidth + 1 && style.overflowX === 'visible' && style.textOverflow !== 'ellipsis') {
        faults.push(`${id}: content ${el.scrollWidth}px in ${el.clientWidth}px`);
      }
    }
    return faults;
  });
}

async function open(viewport, locale, path = '/', saved = {}) {
  const context = await env.browser.newContext({ viewport, locale });
  await preloadStorage(context, saved);
  const page = await openPage(context, `${env.server.url}${path}`);
  return { context, page };
}

for (const locale of ['en-US', 'ru-RU']) {
  const lang = locale.slice(0, 2);
  for (const viewport of [PHONE, DESKTOP]) {
    const tag = `${lang}-${viewport.width}`;
    test(`the main screens look right: ${tag}`, async () => {
      // Start.
      let { context, page } = await open(viewport, locale);
      await page.locator('#start-local').waitFor();
      await shot(page, `screens-1-start-${tag}`);
      assert.deepEqual(await layoutFaults(page), [], 'start');

      // Same device, mid-game, Light has just closed the e-file mill.
      await page.locator('#start-local').click();
      for (const a of actionsOf('b2 b4 d3 c3 e3 c5 e4 d2 e5')) await clickAction(page, a);
      await page.locator('#board-host .mill-line.fresh').waitFor({ state: 'attached' });
      await shot(page, `screens-2-mill-closed-${tag}`);
      assert.deepEqual(await layoutFaults(page), [], 'mill closed');
      await context.close();

      // Vs computer, after a turn each.
      ({ context, page } = await open(viewport, locale));
      await page.locator('#start-computer').click();
      await page.locator('#board-host [data-point="d6"]').click();
      await page.waitForFunction(() => document.querySelectorAll('#record li span').length >= 3 && document.querySelector('#status').dataset.tone !== 'wait', null, {
        timeout: 20_000,
      });
      await shot(page, `screens-3-computer-${tag}`);
      assert.deepEqual(await layoutFaults(page), [], 'vs computer');
      await context.close();

      // Online, waiting for the friend.
      ({ context, page } = await open(viewport, locale));
      await page.locator('#start-friend').click();
      await page.locator('#invite').waitFor();
      await page.waitForFunction(() => document.querySelector('#status').dataset.tone === 'wait' && /\/r\//.test(location.pathname));
      await shot(page, `screens-4-online-waiting-${tag}`);
      assert.deepEqual(await layoutFaults(page), [], 'online waiting');
      await context.close();

      // A finished game with its result.
      ({ context, page } = await open(viewport, locale, '/#local', { 'mill.game.local': FINISHED }));
      await page.locator('#result').waitFor();
      await shot(page, `screens-5-finished-${tag}`);
      assert.deepEqual(await layoutFaults(page), [], 'finished');
      assert.deepEqual(page.errors, []);
      await context.close();
    });
  }
}
