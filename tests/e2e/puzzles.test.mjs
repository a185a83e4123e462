// The puzzles page (/puzzles) in a real browser: a puzzle solved by clicks (the defence
// played back), a wrong turn answered and retried, the hint, the puzzle of the day the
// same in two contexts, the rating after a solve, the link from the start screen, the
// phone width, the dark theme, Russian and axe. The puzzles are the shipped set's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { dailyPuzzle, dateKey, parseSet, turnActions } from '../../static/js/puzzles-logic.js';
import { axeSerious, clickAction, DESKTOP, openPage, PHONE, readBoard, ROOT, shot, statusText, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: !!process.env.MILL_SERVER_BIN });
const nine = parseSet(readFileSync(join(ROOT, 'static/puzzles/nine.json'), 'utf8'));

/** The first table puzzle whose line has a defence in it (three turns or more). */
const long = nine.find((p) => p.source === 'tablebase' && p.solution.length >= 3);
/** A puzzle whose answer is a move (so another piece can make a wrong one). */
const moving = nine.find((p) => p.source === 'tablebase' && p.solution[0].includes('-'));

async function openPuzzles(context, hash = '') {
  const page = await openPage(context);
  // The first visit of a fresh server may wait for its files (a loaded machine).
  await page.goto(`${env.server.url}/puzzles${hash}`, { timeout: 30_000 });
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

const phase = (page) => page.evaluate(() => document.body.dataset.phase);
const shown = (page) => page.evaluate(() => document.body.dataset.puzzle);
const waitPhase = (page, value) => page.locator(`body[data-phase="${value}"]`).waitFor();

/** Plays the solver's turns of the solution by clicks, waiting for each defence. */
async function solve(page, puzzle) {
  for (let i = 0; i < puzzle.solution.length; i += 2) {
    for (const action of turnActions(puzzle.solution[i])) await clickAction(page, action);
    if (i + 1 < puzzle.solution.length) await waitPhase(page, 'solving');
  }
}

test('a puzzle is solved by clicks, the defence answers, and the rating goes up', async () => {
  assert.ok(long, 'a shipped puzzle with a defence');
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const page = await openPuzzles(context, `#${long.id}`);
  assert.equal(await shown(page), long.id);
  assert.match(await page.locator('#puzzle-task').innerText(), /Light to play and (win|hold the draw)/);
  assert.equal(await page.locator('#puzzle-rating').innerText(), '1500');
  const before = await readBoard(page);
  await solve(page, long);
  await waitPhase(page, 'solved');
  assert.match(await statusText(page), /Solved/);
  // The defender's turn was played on the board: its destination holds a Dark piece.
  const defence = turnActions(long.solution[1])[0].split('-').pop();
  const after = await readBoard(page);
  assert.notDeepEqual(after.pieces, before.pieces);
  assert.ok(Number(await page.locator('#puzzle-rating').innerText()) > 1500, 'the rating rose');
  assert.ok(defence);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('mill.puzzles.rating') ?? 'null'));
  assert.ok(stored.rating > 1500 && stored.rd < 250);
  // Next: another puzzle.
  await page.locator('#puzzle-next').click();
  await waitPhase(page, 'solving');
  assert.notEqual(await shown(page), long.id);
  await shot(page, 'puzzles-solved-next');
  // The rating stays after a reload.
  await page.reload();
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(Number(await page.locator('#puzzle-rating').innerText()), Math.round(stored.rating));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a wrong turn is shown wrong and refuted, then Retry sets the position again', async () => {
  assert.ok(moving, 'a shipped puzzle answered by a move');
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const page = await openPuzzles(context, `#${moving.id}`);
  const start = await readBoard(page);
  const answerFrom = moving.solution[0].split('-')[0];
  // Another piece of the solver's, and its first destination.
  const other = start.canSelect.find((p) => p !== answerFrom);
  assert.ok(other, `another piece to move in ${moving.position}`);
  await clickAction(page, other);
  const { target } = await readBoard(page);
  await clickAction(page, target[0]);
  const mid = await readBoard(page);
  if (mid.canRemove.length > 0) await clickAction(page, `x${mid.canRemove[0]}`);
  await waitPhase(page, 'wrong');
  assert.equal(await page.locator('#puzzle-rating').innerText().then(Number) < 1500, true, 'a miss lowers the rating');
  // The refutation comes from the engine in its worker; then the status names it.
  await page.locator('#status', { hasText: 'the opponent answers' }).waitFor({ timeout: 20_000 });
  assert.match(await statusText(page), /Not that one/);
  assert.ok(await page.locator('#puzzle-retry').isVisible());
  await shot(page, 'puzzles-wrong');
  await page.locator('#puzzle-retry').click();
  await waitPhase(page, 'solving');
  assert.deepEqual((await readBoard(page)).pieces, start.pieces, 'back to the position');
  // Solution plays the line out.
  await page.locator('#puzzle-solution').click();
  await waitPhase(page, 'shown');
  assert.match(await statusText(page), new RegExp(`The solution: ${moving.solution[0]}`));
  assert.deepEqual(page.errors, []);
  await context.close();
});

/** Whether the element is wholly inside the viewport. */
const inView = (page, selector) =>
  page.evaluate((sel) => {
    const box = document.querySelector(sel).getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
  }, selector);

test('on a phone the answer to a turn is in view, and no ring marks a piece until the keyboard is used', async () => {
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'en-US', hasTouch: true });
  const page = await openPuzzles(context, `#${moving.id}`);
  // The board has the focus (one Tab stop), but nothing drawn on a piece looks like a hint.
  assert.ok(await page.evaluate(() => document.activeElement?.closest('#board-host') !== null), 'the focus is on the board');
  assert.equal(await page.evaluate(() => document.querySelectorAll('#board-host :focus-visible').length), 0, 'no focus ring at load');
  // A wrong turn: "Not that one…" is shown without the person scrolling for it.
  const start = await readBoard(page);
  const answerFrom = moving.solution[0].split('-')[0];
  await clickAction(page, start.canSelect.find((p) => p !== answerFrom));
  await clickAction(page, (await readBoard(page)).target[0]);
  const mid = await readBoard(page);
  if (mid.canRemove.length > 0) await clickAction(page, `x${mid.canRemove[0]}`);
  await page.locator('#status', { hasText: 'the opponent answers' }).waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => {
    const box = document.getElementById('status').getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  });
  assert.ok(await inView(page, '#status'), 'the refutation is in view');
  await shot(page, 'puzzles-wrong-phone');
  // Retry by the keyboard: the focus goes back to the board, now with its ring.
  await page.locator('#puzzle-retry').focus();
  await page.keyboard.press('Enter');
  await waitPhase(page, 'solving');
  assert.equal(await page.evaluate(() => document.querySelectorAll('#board-host :focus-visible').length), 1, 'a ring once the keyboard is used');
  // Solved from the top of the page: "Solved!" is brought into view.
  await page.evaluate(() => window.scrollTo(0, 0));
  await solve(page, moving);
  await waitPhase(page, 'solved');
  await page.waitForFunction(() => {
    const box = document.getElementById('status').getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  });
  assert.match(await statusText(page), /Solved/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the hint marks the piece that moves', async () => {
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'en-US' });
  const page = await openPuzzles(context, `#${moving.id}`);
  await page.locator('#puzzle-hint').click();
  const from = moving.solution[0].split('-')[0];
  const hint = await page.evaluate(() => document.querySelector('#board-host .hints')?.dataset.hint ?? '');
  assert.equal(hint, from);
  assert.match(await statusText(page), new RegExp(`look at ${from}`));
  await shot(page, 'puzzles-hint-phone');
  // Phone width: nothing sticks out sideways.
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
  assert.equal(wide, false);
  await context.close();
});

test('the puzzle of the day is the same in two browsers', async () => {
  const expected = dailyPuzzle(nine, dateKey(new Date()));
  const a = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const b = await env.browser.newContext({ viewport: PHONE, locale: 'ru-RU' });
  const pa = await openPuzzles(a, '#daily');
  const pb = await openPuzzles(b);
  await pb.locator('#puzzle-daily').click();
  await pb.locator(`body[data-puzzle="${expected.id}"]`).waitFor();
  assert.equal(await shown(pa), expected.id);
  assert.equal(await shown(pb), expected.id);
  assert.ok(await pa.locator('#puzzle-daily-badge').isVisible());
  // In Russian the task is Russian.
  assert.match(await pb.locator('#puzzle-task').innerText(), /Ход (светлых|тёмных)/);
  await a.close();
  await b.close();
});

test('the start screen links to the puzzles; both themes pass axe', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US', colorScheme: 'dark' });
  const page = await openPage(context);
  await page.goto(`${env.server.url}/`, { timeout: 30_000 });
  await page.locator('#puzzles-link').click();
  await page.waitForURL(/\/puzzles/);
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await phase(page), 'solving');
  assert.deepEqual(await axeSerious(page), []);
  await shot(page, 'puzzles-dark');
  await page.locator('#theme').click();
  assert.deepEqual(await axeSerious(page), []);
  // Keyboard: Tab reaches the board and Enter on a point acts like a click.
  await page.locator('#board-host [data-point]').first().focus();
  assert.ok(await page.evaluate(() => document.activeElement?.closest('#board-host') !== null));
  // "Open in review" carries the position and the line to the game page's review.
  const href = await page.locator('#puzzle-review').getAttribute('href');
  assert.match(href ?? '', /^\/#review=/);
  await page.locator('#puzzle-review').click();
  await page.locator('#review-controls').waitFor({ state: 'visible' });
  assert.deepEqual(page.errors, []);
  await context.close();
});
