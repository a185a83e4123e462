// axe with the WCAG 2.2 AA rules added (helpers.mjs's axeSerious: target-size and the rest)
// on every screen of the page, in English and Russian, light and dark: start (rule options
// open), same device with a mill closed, the New game question, the Import dialog (MFEN's
// rules asked, an error shown), a finished game, vs computer, review with the engine's
// marks, online waiting, playing, a spectator, a finished round with the score line, and
// the rules page. No serious or critical violation anywhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionsOf, axeSerious, clickAction, DESKTOP, openPage, PHONE, preloadStorage, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const START = '.../.../.../....../.../.../... l 9 9 0 0';
const FINISHED = JSON.stringify({ start: START, actions: actionsOf('b2 b4 d3 c3 e3 c5 e4 d2 e5xb4 b4 d5 d6 f2 d7 f4 f6 g7 g4') });

const COMBOS = [
  ['en-US', 'light', PHONE],
  ['en-US', 'dark', DESKTOP],
  ['ru-RU', 'light', DESKTOP],
  ['ru-RU', 'dark', PHONE],
];

for (const [locale, colorScheme, viewport] of COMBOS) {
  const tag = `${locale.slice(0, 2)} ${colorScheme} ${viewport.width}`;

  test(`every local screen passes axe with WCAG 2.2 AA: ${tag}`, async () => {
    const context = await env.browser.newContext({ viewport, locale, colorScheme });
    const page = await openPage(context, `${env.server.url}/`);
    const found = [];
    const check = async (screen) => {
      for (const v of await axeSerious(page)) found.push(`${screen}: ${v}`);
    };
    await page.locator('#start-local').waitFor();
    await page.locator('#rule-options summary').click();
    await check('start, rule options open');

    await page.locator('#start-local').click();
    for (const a of actionsOf('b2 b4 d3 c3 e3 c5 e4 d2 e5')) await clickAction(page, a);
    await page.locator('#board-host .mill-line.fresh').waitFor({ state: 'attached' });
    await check('same device, a mill closed');
    await page.locator('#new-game').click();
    await page.locator('#confirm-new').waitFor();
    await check('the New game question');
    await page.locator('#confirm-new-keep').click();

    await page.locator('#import-record').click();
    await page.locator('#import-text').fill('MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -');
    await page.locator('#import-rules').waitFor();
    await check('the Import dialog, MFEN');
    await page.locator('#import-text').fill('1. a1 a1');
    await page.locator('#import-load').click();
    await page.locator('#import-error').filter({ hasText: /\S/ }).waitFor();
    await check('the Import dialog, an error');
    await page.locator('#import-cancel').click();

    await page.locator('#review-open').click();
    await page.locator('#analysis-budget').filter({ hasText: /\d–\d/ }).waitFor({ timeout: 60_000 });
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await check('review');
    await page.locator('#review-back').click();
    await page.locator('#local-controls').waitFor();

    await page.locator('#menu').click();
    await page.locator('#start-computer').click();
    await page.locator('#board-host [data-point="d6"]').click();
    await page.waitForFunction(() => document.querySelectorAll('#record li span').length >= 3 && document.querySelector('#status').dataset.tone !== 'wait', null, {
      timeout: 20_000,
    });
    await check('vs computer');

    await page.goto(`${env.server.url}/rules`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    await check('the rules page');
    assert.deepEqual(found, []);
    assert.deepEqual(page.errors, []);
    await context.close();

    // A finished game with its result.
    const finished = await env.browser.newContext({ viewport, locale, colorScheme });
    await preloadStorage(finished, { 'mill.game.local': FINISHED });
    const over = await openPage(finished, `${env.server.url}/#local`);
    await over.locator('#result').waitFor();
    assert.deepEqual(await axeSerious(over), [], 'a finished game');
    await finished.close();
  });

  test(`every online screen passes axe with WCAG 2.2 AA: ${tag}`, async () => {
    const lightContext = await env.browser.newContext({ viewport, locale, colorScheme });
    const light = await openPage(lightContext, `${env.server.url}/`);
    await light.locator('#start-friend').click();
    await light.locator('#invite').waitFor();
    await light.waitForFunction(() => document.querySelector('#status').dataset.tone === 'wait' && /\/r\//.test(location.pathname));
    const found = [];
    const check = async (page, screen) => {
      for (const v of await axeSerious(page)) found.push(`${screen}: ${v}`);
    };
    await check(light, 'online, waiting for the friend');
    const darkContext = await env.browser.newContext({ viewport, locale, colorScheme });
    const dark = await openPage(darkContext, light.url());
    await dark.locator('#seat-note').filter({ hasText: /\S/ }).waitFor();
    const watchContext = await env.browser.newContext({ viewport, locale, colorScheme });
    const watcher = await openPage(watchContext, light.url());
    await watcher.locator('#seat-note').filter({ hasText: /\S/ }).waitFor();
    await clickAction(light, 'd6');
    await dark.locator('#board-host [data-point="d6"].light').waitFor();
    await check(dark, 'online, playing');
    await check(watcher, 'online, watching');
    dark.once('dialog', (d) => d.accept());
    await dark.locator('#resign').click();
    await light.locator('#new-round').waitFor();
    await check(light, 'online, round over');
    await light.locator('#new-round').click();
    await dark.locator('#new-round').click();
    await watcher.locator('#round-score').waitFor();
    await light.locator('#round-score').waitFor();
    await check(light, 'online, round 2 with the score');
    await check(watcher, 'online, round 2, watching');
    assert.deepEqual(found, []);
    for (const page of [light, dark, watcher]) assert.deepEqual(page.errors, []);
    await Promise.all([lightContext.close(), darkContext.close(), watchContext.close()]);
  });
}
