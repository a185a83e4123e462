// A 1280×800 desktop, in English and Russian: the boards of the puzzles page and of
// screen-reader play are whole in view at the top of the page (not cut off at the
// bottom), as the game's are; the start screen names the chosen game once (its
// chooser), and offers no time control while offline ("Play with a friend" needs the
// network). Screenshots: tests/artifacts/desktop-<screen>-<lang>.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DESKTOP, openPage, preloadStorage, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: false });

async function open(locale, path, saved = {}) {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale });
  await preloadStorage(context, saved);
  const page = await openPage(context, `${env.server.url}${path}`);
  return { context, page };
}

/** The board's box against the window, the page scrolled to its top. */
async function boardInView(page) {
  await page.locator('#board-host [data-point]').first().waitFor();
  return page.evaluate(() => {
    window.scrollTo(0, 0);
    const box = document.querySelector('#board-host').getBoundingClientRect();
    return { top: Math.round(box.top), bottom: Math.round(box.bottom), width: Math.round(box.width), height: innerHeight };
  });
}

for (const locale of ['en-US', 'ru-RU']) {
  const lang = locale.slice(0, 2);

  test(`at 1280×800 the whole board is in view: same device, screen-reader play, puzzles (${lang})`, async () => {
    for (const [name, path, saved] of [
      ['local', '/#local', {}],
      ['screen-reader-local', '/#local', { 'mill.screen-reader': 'on' }],
      ['screen-reader-computer', '/#computer', { 'mill.screen-reader': 'on' }],
      ['puzzles', '/puzzles', {}],
    ]) {
      const { context, page } = await open(locale, path, saved);
      const box = await boardInView(page);
      await shot(page, `desktop-${name}-${lang}`);
      assert.ok(box.bottom <= box.height, `${name}: the board ends at ${box.bottom}px, below the ${box.height}px window`);
      // Not by shrinking it to nothing: a board a person can play on.
      assert.ok(box.width >= 400, `${name}: the board is ${box.width}px wide`);
      assert.deepEqual(page.errors, []);
      await context.close();
    }
  });

  test(`the start screen names the chosen game once, and offers no time control offline (${lang})`, async () => {
    const { context, page } = await open(locale, '/');
    await page.locator('#clock-preset option').first().waitFor({ state: 'attached' });
    /** How often the start screen's visible words name `name`, the chooser and the lobby (which names the game it seeks) aside. */
    const named = (name) =>
      page.evaluate((n) => {
        const walker = document.createTreeWalker(document.getElementById('start'), NodeFilter.SHOW_TEXT);
        let count = 0;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const el = node.parentElement;
          if (!el || el.closest('select, #lobby') || !el.checkVisibility()) continue;
          count += node.textContent.split(n).length - 1;
        }
        return count;
      }, name);
    // Its name, with either apostrophe.
    const names = lang === 'en' ? ["Nine Men's Morris", 'Nine Men’s Morris'] : ['Мельница на 9 фишек'];
    assert.ok(names.includes(await page.locator('#variant option:checked').innerText()));
    const namings = async () => (await Promise.all(names.map(named))).reduce((a, b) => a + b, 0);
    assert.equal(await namings(), 0, 'only the chooser names the game');
    // Options that differ from the usual rules are said under the chooser, without the name again.
    await page.locator('#rule-options summary').click();
    await page.locator('#opt-removals').selectOption('per-mill');
    await page.locator('#variant-note', { hasText: lang === 'en' ? 'one removal per mill' : 'по взятию за мельницу' }).waitFor();
    assert.equal(await namings(), 0, 'the note names only the options');
    await shot(page, `desktop-start-${lang}`);

    assert.equal(await page.locator('#clock-choice').isVisible(), true, 'online, the time control is offered');
    await context.setOffline(true);
    await page.waitForFunction(() => document.body.dataset.network === 'offline');
    assert.equal(await page.locator('#clock-choice').isVisible(), false, 'offline, no time control');
    assert.equal(await page.locator('#start-friend .offline-hint').isVisible(), true, 'the friend game says it needs the network');
    await shot(page, `desktop-start-offline-${lang}`);
    await context.setOffline(false);
    await page.waitForFunction(() => document.body.dataset.network === 'online');
    assert.equal(await page.locator('#clock-choice').isVisible(), true, 'back online, offered again');
    assert.deepEqual(page.errors, []);
    await context.close();
  });
}
