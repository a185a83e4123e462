// No screen scrolls sideways on a 360 px phone, in English or in Russian (whose words are
// longer): every screen of the game page (start, same device, its screen-reader mode, a
// finished game, vs computer, an online room waiting and played, the Import dialog, review
// of a game and of a shared round), the rules page and the puzzles page, and the 404 page.
// Each is kept as a screenshot (tests/artifacts/narrow-<screen>-<lang>.png) to look at.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionsOf, clickAction, openPage, preloadStorage, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const NARROW = { width: 360, height: 740 };
const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();
const START = '.../.../.../....../.../.../... l 9 9 0 0';
// Dark wins by blockade (the same game local.test.mjs plays by clicks).
const FINISHED = JSON.stringify({ start: START, actions: actionsOf('b2 b4 d3 c3 e3 c5 e4 d2 e5xb4 b4 d5 d6 f2 d7 f4 f6 g7 g4') });

/** How far the page scrolls sideways, and what sticks out past the right edge (to say why). */
function sideways(page) {
  return page.evaluate(() => {
    const over = document.documentElement.scrollWidth - innerWidth;
    const out = [];
    if (over > 0) {
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > innerWidth + 0.5 && el.getClientRects().length > 0) out.push(`${el.tagName.toLowerCase()}#${el.id}.${String(el.getAttribute('class') ?? '').replace(/ /g, '.')} to ${Math.round(r.right)}px`);
      }
    }
    return { over, out: out.slice(0, 6) };
  });
}

/** Checks the page as it is now; `name` names the screen in the message and the screenshot. */
async function noSideways(page, name, lang) {
  await shot(page, `narrow-${name}-${lang}`);
  const { over, out } = await sideways(page);
  assert.ok(over <= 0, `${name} (${lang}) is ${over}px wider than the 360px screen: ${out.join(', ')}`);
}

async function open(locale, path = '/', saved = {}) {
  const context = await env.browser.newContext({ viewport: NARROW, locale, permissions: ['clipboard-read', 'clipboard-write'] });
  await preloadStorage(context, saved);
  const page = await openPage(context, `${env.server.url}${path}`);
  return { context, page };
}

for (const locale of ['en-US', 'ru-RU']) {
  const lang = locale.slice(0, 2);

  test(`the game page's screens fit 360 px: ${lang}`, async () => {
    let { context, page } = await open(locale);
    await page.locator('#start-local').waitFor();
    // The time control's menu is filled as the page starts.
    await page.locator('#clock-preset option').first().waitFor({ state: 'attached' });
    await noSideways(page, 'start', lang);

    // Same device, mid-game, a mill just closed; then the screen-reader mode's Command field.
    await page.locator('#start-local').click();
    for (const a of actionsOf('b2 b4 d3 c3 e3 c5 e4 d2 e5')) await clickAction(page, a);
    await page.locator('#board-host .mill-line.fresh').waitFor({ state: 'attached' });
    await noSideways(page, 'local', lang);
    await page.locator('#sr-mode').click();
    await page.locator('#command').waitFor();
    await noSideways(page, 'local-screen-reader', lang);
    await page.locator('#sr-mode').click();
    await page.locator('#command').waitFor({ state: 'hidden' });

    // Review of that game.
    await page.locator('#review-open').click();
    await page.locator('#record button.turn').first().waitFor();
    await noSideways(page, 'review', lang);
    await context.close();

    // A finished game with its result, and the Import dialog.
    ({ context, page } = await open(locale, '/#local', { 'mill.game.local': FINISHED }));
    await page.locator('#result').waitFor();
    await noSideways(page, 'finished', lang);
    await page.locator('#import-record').click();
    await page.locator('#import-dialog[open]').waitFor();
    await noSideways(page, 'import', lang);
    await context.close();

    // Vs computer, after a turn each.
    ({ context, page } = await open(locale));
    await page.locator('#start-computer').click();
    await page.locator('#board-host [data-point="d6"]').click();
    await page.waitForFunction(() => document.querySelectorAll('#record li span').length >= 3 && document.querySelector('#status').dataset.tone !== 'wait', null, {
      timeout: 20_000,
    });
    await noSideways(page, 'computer', lang);
    assert.deepEqual(page.errors, []);
    await context.close();
  });

  test(`online play's screens fit 360 px: ${lang}`, async () => {
    const { context, page } = await open(locale);
    // A timed room, so the clocks are on the cards.
    await page.locator('#clock-preset').selectOption('3+2');
    await page.locator('#start-friend').click();
    await page.locator('#invite').waitFor();
    await page.waitForFunction(() => document.querySelector('#status').dataset.tone === 'wait' && /\/r\//.test(location.pathname));
    await noSideways(page, 'online-waiting', lang);
    const invite = new URL(page.url()).href;

    // The friend joins; a turn each; Light resigns and the round can be shared.
    const friendContext = await env.browser.newContext({ viewport: NARROW, locale });
    const friend = await openPage(friendContext, invite);
    await clickAction(page, 'd6');
    await waitPiece(friend, 'd6', 'light');
    await clickAction(friend, 'a1');
    await waitPiece(page, 'a1', 'dark');
    await noSideways(page, 'online-playing', lang);
    await noSideways(friend, 'online-playing-dark', lang);
    page.once('dialog', (dialog) => dialog.accept());
    await page.locator('#resign').click();
    await page.locator('#result').waitFor();
    await noSideways(page, 'online-over', lang);

    // The round's share link, under review.
    const shared = await openPage(friendContext, `${invite}/review/1`);
    await shared.locator('#record button.turn').first().waitFor();
    await noSideways(shared, 'shared-review', lang);
    assert.deepEqual(page.errors, []);
    await friendContext.close();
    await context.close();
  });

  test(`the rules, puzzles and 404 pages fit 360 px: ${lang}`, async () => {
    const { context, page } = await open(locale, '/rules');
    await page.locator('#rules-main [data-point]').first().waitFor();
    await noSideways(page, 'rules', lang);
    await page.locator('#sr-mode').click();
    await noSideways(page, 'rules-screen-reader', lang);
    await page.goto(`${env.server.url}/puzzles`);
    await page.locator('#board-host [data-point]').first().waitFor();
    await noSideways(page, 'puzzles', lang);
    await page.goto(`${env.server.url}/no-such-page`);
    await page.locator('h1').waitFor();
    await noSideways(page, 'not-found', lang);
    await context.close();
  });
}
