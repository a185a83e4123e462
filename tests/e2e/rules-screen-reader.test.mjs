// The rules page's exercises in screen-reader mode, in a real browser: the live region
// (#announce) says what an exercise asks when the reader arrives at its board, and the
// result of every attempt (the turn and what it did, the quiz's verdict); English and
// Russian. The mode is the game page's remembered switch.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openPage, PHONE, preloadStorage, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: !!process.env.MILL_SERVER_BIN });

async function openRules({ locale = 'en-US', saved = { 'mill.screen-reader': 'on' } } = {}) {
  const context = await env.browser.newContext({ viewport: PHONE, locale });
  await preloadStorage(context, saved);
  const page = await openPage(context, `${env.server.url}/rules`);
  await page.locator('body[data-ready="true"]').waitFor();
  return { context, page };
}

const figure = (page, id) => page.locator(`figure[data-diagram="${id}"]`);
const point = (page, id, name) => figure(page, id).locator(`[data-point="${name}"]`);
const part = (page, id, role) => figure(page, id).locator(`[data-role="${role}"]`);

/** How many announcements the live region has made so far. */
const said = (page) => page.evaluate(() => Number(document.getElementById('announce').dataset.count ?? 0));

/** Everything said after the first `since` announcements. */
const heardSince = (page, since) =>
  page.evaluate((n) => {
    const region = document.getElementById('announce');
    const all = [...region.children].map((p) => p.textContent);
    const total = Number(region.dataset.count ?? 0);
    return all.slice(Math.max(0, all.length - (total - n)));
  }, since);

/** Waits until something said after `since` matches `pattern`; returns all said since. */
async function hear(page, since, pattern) {
  await page
    .waitForFunction(
      ([n, source]) => {
        const region = document.getElementById('announce');
        const all = [...region.children].map((p) => p.textContent);
        const total = Number(region.dataset.count ?? 0);
        return all.slice(Math.max(0, all.length - (total - n))).some((s) => new RegExp(source).test(s));
      },
      [since, pattern.source],
      { timeout: 10_000 },
    )
    .catch(async (error) => {
      throw new Error(`${pattern} not heard; heard ${JSON.stringify(await heardSince(page, since))}: ${error.message}`);
    });
  return heardSince(page, since);
}

test('in screen-reader mode an exercise says what it asks, then each attempt: the turn, its removal, the quiz verdict', async () => {
  const { context, page } = await openRules();
  assert.equal(await page.locator('#sr-mode').getAttribute('aria-pressed'), 'true', 'the game page’s remembered switch');
  assert.equal(await part(page, 'ex2', 'status').getAttribute('aria-live'), 'off', 'the live region speaks, not both');

  // Arriving at exercise 2's board: its task.
  let since = await said(page);
  await figure(page, 'ex2').locator('[data-point][tabindex="0"]').focus();
  let heard = await hear(page, since, /Two mills with one piece/);
  assert.equal(heard.length, 1, 'said once');
  assert.match(heard[0], /^2\. Two mills with one piece\. Light to move, placing\. Place on g1\./);

  // The attempt: g1 closes two mills; the mill owes a removal, and the exercise's point.
  since = await said(page);
  await point(page, 'ex2', 'g1').click();
  heard = await hear(page, since, /must remove/);
  assert.equal(heard.length, 1, 'one announcement for the attempt (the board already had the focus)');
  assert.match(heard[0], /Light closed a mill and must remove a piece\. Two mills with one piece — and still one removal\. Offered: /);

  // The removal completes the turn: said whole, once, with whose turn it is now.
  since = await said(page);
  await point(page, 'ex2', 'd2').click();
  heard = await hear(page, since, /removes d2/);
  assert.deepEqual(heard, ['Light: places on g1, closes a mill, removes d2. Dark to move. One piece removed, and the turn has passed to Dark: two mills, one removal.']);

  // Exercise 3, the quiz: an empty answer, a wrong one, the right one.
  await figure(page, 'ex3').scrollIntoViewIfNeeded();
  since = await said(page);
  await part(page, 'ex3', 'check').click();
  heard = await hear(page, since, /Select at least one piece/);
  await figure(page, 'ex3').locator('input[data-pick="a4"]').check();
  since = await said(page);
  await part(page, 'ex3', 'check').click();
  await hear(page, since, /Not quite: a Dark piece that can move is missing/);
  await figure(page, 'ex3').locator('input[data-pick="c5"]').check();
  since = await said(page);
  await part(page, 'ex3', 'check').click();
  heard = await hear(page, since, /^Right: a4 and c5 can move/);
  assert.equal(heard.length, 1);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Russian: the task and the attempts are said in Russian', async () => {
  const { context, page } = await openRules({ locale: 'ru-RU' });
  let since = await said(page);
  await figure(page, 'ex2').locator('[data-point][tabindex="0"]').focus();
  let heard = await hear(page, since, /Две мельницы одной фишкой/);
  assert.match(heard[0], /^2\. Две мельницы одной фишкой\. Ход светлых, расстановка\. Поставьте фишку на g1\./);
  since = await said(page);
  await point(page, 'ex2', 'g1').click();
  await point(page, 'ex2', 'd2').click();
  heard = await hear(page, since, /снимают d2/);
  assert.ok(heard.includes('Светлые: ставят на g1, мельница, снимают d2. Ход: Тёмные. Одна фишка снята, и ход перешёл к тёмным: две мельницы — одно взятие.'), JSON.stringify(heard));
  since = await said(page);
  await part(page, 'ex3', 'check').click();
  await hear(page, since, /Отметьте хотя бы одну фишку/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('without the mode nothing is said; the switch turns it on and is remembered', async () => {
  const { context, page } = await openRules({ saved: {} });
  assert.equal(await page.locator('#sr-mode').getAttribute('aria-pressed'), 'false');
  assert.equal(await part(page, 'ex2', 'status').getAttribute('aria-live'), 'polite', 'the diagrams speak for themselves');
  await point(page, 'ex2', 'g1').click();
  assert.equal(await said(page), 0);
  await page.locator('#sr-mode').click();
  assert.equal(await page.locator('#sr-mode').getAttribute('aria-pressed'), 'true');
  await page.reload();
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await page.locator('#sr-mode').getAttribute('aria-pressed'), 'true');
  const since = await said(page);
  await figure(page, 'ex1').locator('[data-point][tabindex="0"]').focus();
  await hear(page, since, /^1\. Placing, moving, flying\. Placing: every empty point is a legal placement\./);
  assert.deepEqual(page.errors, []);
  await context.close();
});
