// The rules page (/rules) in a real browser: the worked position, the three exercises, the
// language switch, keyboard play and the way back to the game. Runs against mill-server
// when MILL_SERVER_BIN is set (as scripts/test does), else against a small static server
// with the same routes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { moveFocus } from '../../static/js/board.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { ARTIFACTS, axeSerious, DESKTOP, openPage, PHONE, topology, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: !!process.env.MILL_SERVER_BIN });

async function openRules({ viewport = PHONE, locale = 'en-US' } = {}) {
  const context = await env.browser.newContext({ viewport, locale });
  const page = await openPage(context, `${env.server.url}/rules`);
  await page.locator('body[data-ready="true"]').waitFor();
  return { context, page };
}

/** A screenshot of one part of the page (the whole page is too long to look at). */
async function snap(locator, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await locator.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

const figure = (page, id) => page.locator(`figure[data-diagram="${id}"]`);
const point = (page, id, name) => figure(page, id).locator(`[data-point="${name}"]`);
const part = (page, id, role) => figure(page, id).locator(`[data-role="${role}"]`);
const text = (page, id, role) => part(page, id, role).innerText();

/** One diagram's board as drawn: pieces and the points of each highlight. */
function readDiagram(page, id) {
  return page.evaluate((id) => {
    const out = { pieces: {}, canPlace: [], canSelect: [], target: [], canRemove: [], picked: [] };
    for (const g of document.querySelectorAll(`figure[data-diagram="${id}"] [data-point]`)) {
      const name = g.dataset.point;
      if (g.classList.contains('light')) out.pieces[name] = 'light';
      if (g.classList.contains('dark')) out.pieces[name] = 'dark';
      for (const [cls, key] of [
        ['can-place', 'canPlace'],
        ['can-select', 'canSelect'],
        ['target', 'target'],
        ['can-remove', 'canRemove'],
        ['quiz-picked', 'picked'],
      ]) {
        if (g.classList.contains(cls)) out[key].push(name);
      }
    }
    for (const list of Object.values(out)) if (Array.isArray(list)) list.sort();
    return out;
  }, id);
}

/** Arrow keys that take the board's focus from `from` to `to`, by the board's own geometry. */
function arrowPath(from, to) {
  const seen = new Map([[from, []]]);
  const queue = [from];
  while (queue.length) {
    const here = queue.shift();
    if (here === to) return seen.get(here);
    for (const key of ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']) {
      const next = moveFocus(topology, here, key);
      if (!seen.has(next)) {
        seen.set(next, [...seen.get(here), key]);
        queue.push(next);
      }
    }
  }
  throw new Error(`no arrow path from ${from} to ${to}`);
}

/** Moves the keyboard focus within a diagram's board to `name` with arrow keys. */
async function focusByKeys(page, id, name) {
  const focused = () => page.evaluate(() => document.activeElement?.dataset?.point ?? null);
  let here = await focused();
  if (!here) throw new Error('the board does not have the focus');
  for (const key of arrowPath(here, name)) await page.keyboard.press(key);
  here = await focused();
  assert.equal(here, name, 'arrow keys reach the point');
}

test('worked position: g1 demands a removal of d2 only, then the turn passes; Show answer explains', async () => {
  const { context, page } = await openRules();
  await figure(page, 'worked').scrollIntoViewIfNeeded();
  assert.equal(await text(page, 'worked', 'status'), 'Light: place a piece');
  let board = await readDiagram(page, 'worked');
  assert.equal(board.canPlace.length, 16);
  assert.ok(board.canPlace.includes('g1'));
  assert.deepEqual(board.canRemove, []);

  await point(page, 'worked', 'g1').click();
  assert.equal(await text(page, 'worked', 'status'), 'Light closed a mill: remove a Dark piece');
  board = await readDiagram(page, 'worked');
  assert.equal(board.pieces.g1, 'light');
  assert.deepEqual(board.canRemove, ['d2'], 'only the piece outside the mill is offered');
  assert.deepEqual(board.canPlace, [], 'nothing else can be played until the removal');
  assert.match(await text(page, 'worked', 'note'), /offers only d2.*b6, d6,? and f6/);
  await snap(page.locator('#worked'), 'rules-01-worked-removal-phone');

  // A protected piece and an empty point do nothing: the turn is still Light's.
  await point(page, 'worked', 'b6').click({ force: true });
  await point(page, 'worked', 'a4').click({ force: true });
  assert.equal(await figure(page, 'worked').getAttribute('data-pending'), '1');
  assert.equal((await readDiagram(page, 'worked')).pieces.b6, 'dark');

  await point(page, 'worked', 'd2').click();
  assert.equal(await text(page, 'worked', 'status'), 'Dark: place a piece');
  board = await readDiagram(page, 'worked');
  assert.equal(board.pieces.d2, undefined);
  assert.equal(board.canPlace.length, 16, 'Dark may now place on every empty point');
  assert.match(await text(page, 'worked', 'note'), /turn is complete and Dark may now place/);

  const answer = page.locator('#worked-answer');
  assert.equal(await answer.isVisible(), false, 'the answer starts hidden');
  await page.locator('#worked-show').click();
  assert.equal(await answer.isVisible(), true);
  assert.match(await answer.innerText(), /g1xd2/);
  assert.match(await answer.innerText(), /protected/);
  assert.equal(await page.locator('#worked-show').getAttribute('aria-expanded'), 'true');
  assert.equal(await page.locator('#worked-show').innerText(), 'Hide answer');
  await snap(page.locator('.worked-answer'), 'rules-02-worked-answer-phone');

  // Reset puts the position back.
  await part(page, 'worked', 'reset').click();
  board = await readDiagram(page, 'worked');
  assert.equal(board.pieces.g1, undefined);
  assert.equal(board.pieces.d2, 'dark');
  assert.equal(await text(page, 'worked', 'status'), 'Light: place a piece');
  assert.equal(await part(page, 'worked', 'note').isVisible(), false);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('exercise 1: placing, moving and flying each highlight their legal actions', async () => {
  const { context, page } = await openRules();
  const tabs = part(page, 'ex1', 'tab');
  assert.equal(await tabs.count(), 3);

  assert.equal(await tabs.nth(0).getAttribute('aria-pressed'), 'true');
  let board = await readDiagram(page, 'ex1');
  assert.equal(board.canPlace.length, 20);
  assert.equal(await text(page, 'ex1', 'summary'), 'Light can place on 20 empty points.');

  await tabs.nth(1).click();
  assert.equal(await tabs.nth(1).getAttribute('aria-pressed'), 'true');
  board = await readDiagram(page, 'ex1');
  assert.deepEqual(board.canPlace, []);
  assert.deepEqual(board.canSelect, ['d1', 'd5', 'f2', 'g7'], 'a1 and b4 are blocked');
  assert.equal(await text(page, 'ex1', 'status'), 'Light: pick a piece to move');
  await point(page, 'ex1', 'd1').click();
  assert.deepEqual((await readDiagram(page, 'ex1')).target, ['g1']);
  assert.equal(await text(page, 'ex1', 'status'), 'Light: move to a highlighted point');
  await point(page, 'ex1', 'a1').click({ force: true }); // blocked (aria-disabled): nothing is picked up
  assert.deepEqual((await readDiagram(page, 'ex1')).target, []);

  await tabs.nth(2).click();
  board = await readDiagram(page, 'ex1');
  assert.deepEqual(board.canSelect, ['a7', 'f2', 'g4']);
  assert.equal(await text(page, 'ex1', 'status'), 'Light is flying: pick any own piece');
  await point(page, 'ex1', 'a7').click();
  board = await readDiagram(page, 'ex1');
  assert.equal(board.target.length, 16, 'a flying piece may land on every empty point');
  await snap(page.locator('#ex1'), 'rules-03-ex1-flying-phone');
  await point(page, 'ex1', 'e3').click();
  board = await readDiagram(page, 'ex1');
  assert.equal(board.pieces.e3, 'light', 'the flight was played');
  assert.equal(await text(page, 'ex1', 'status'), 'Dark: pick a piece to move');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('exercise 2: one placement closes two mills, one removal, then Dark — played with the keyboard', async () => {
  const { context, page } = await openRules();
  // Into the board with Tab from the tab bar-less diagram's status line is not focusable,
  // so start from the board's one tabbable point, as Tab would land on it.
  await figure(page, 'ex2').locator('[data-point][tabindex="0"]').focus();
  await focusByKeys(page, 'ex2', 'g1');
  await page.keyboard.press('Enter');
  assert.equal(await text(page, 'ex2', 'status'), 'Light closed a mill: remove a Dark piece');
  const board = await readDiagram(page, 'ex2');
  assert.equal(board.pieces.g1, 'light');
  assert.deepEqual(board.canRemove, ['b4', 'c5', 'd2', 'f6']);
  assert.match(await text(page, 'ex2', 'note'), /still one removal/);
  await snap(figure(page, 'ex2'), 'rules-04-ex2-two-mills-phone');

  await focusByKeys(page, 'ex2', 'd2');
  await page.keyboard.press('Enter');
  assert.equal(await text(page, 'ex2', 'status'), 'Dark: place a piece', 'one removal and the turn has passed');
  const after = await readDiagram(page, 'ex2');
  assert.equal(after.pieces.d2, undefined);
  assert.deepEqual(after.canRemove, [], 'no second removal');
  assert.equal(Object.values(after.pieces).filter((c) => c === 'dark').length, 3);
  assert.match(await text(page, 'ex2', 'note'), /turn has passed to Dark/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('exercise 3: the blockade quiz refuses a wrong list and accepts a4 and c5', async () => {
  const { context, page } = await openRules();
  await figure(page, 'ex3').scrollIntoViewIfNeeded();
  let board = await readDiagram(page, 'ex3');
  assert.deepEqual(board.canSelect, [], 'the answer is not shown before the reader answers');
  assert.equal(await text(page, 'ex3', 'summary'), '');
  const pick = (name) => figure(page, 'ex3').locator(`input[data-pick="${name}"]`);
  assert.equal(await figure(page, 'ex3').locator('input[data-pick]').count(), 6, 'every Dark piece can be picked');

  // Checking nothing, then a list with a blocked piece: both refused.
  await part(page, 'ex3', 'check').click();
  assert.equal(await part(page, 'ex3', 'feedback').getAttribute('data-tone'), 'wrong');
  await pick('a4').check();
  await point(page, 'ex3', 'c5').click(); // picking on the board works too
  await point(page, 'ex3', 'f2').click();
  assert.deepEqual((await readDiagram(page, 'ex3')).picked, ['a4', 'c5', 'f2']);
  assert.equal(await pick('c5').isChecked(), true);
  await part(page, 'ex3', 'check').click();
  assert.equal(await part(page, 'ex3', 'feedback').getAttribute('data-tone'), 'wrong');
  assert.match(await text(page, 'ex3', 'feedback'), /no empty neighbour/);
  assert.deepEqual((await readDiagram(page, 'ex3')).canSelect, [], 'still no answer on the board');
  await snap(figure(page, 'ex3'), 'rules-05-ex3-wrong-phone');

  // A list that misses one: refused.
  await point(page, 'ex3', 'f2').click();
  await pick('c5').uncheck();
  await part(page, 'ex3', 'check').click();
  assert.match(await text(page, 'ex3', 'feedback'), /missing/);

  await pick('c5').check();
  await part(page, 'ex3', 'check').click();
  assert.equal(await part(page, 'ex3', 'feedback').getAttribute('data-tone'), 'right');
  assert.match(await text(page, 'ex3', 'feedback'), /a4 and c5 can move/);
  board = await readDiagram(page, 'ex3');
  assert.deepEqual(board.canSelect, ['a4', 'c5'], 'the board now shows mill-core’s answer');
  assert.equal(await part(page, 'ex3', 'check').isDisabled(), true);
  await snap(figure(page, 'ex3'), 'rules-06-ex3-right-phone');

  // The board is live now: Dark plays c5-d5.
  await point(page, 'ex3', 'c5').click();
  assert.deepEqual((await readDiagram(page, 'ex3')).target, ['d5']);
  await point(page, 'ex3', 'd5').click();
  assert.equal((await readDiagram(page, 'ex3')).pieces.d5, 'dark');

  // Reset starts the quiz over.
  await part(page, 'ex3', 'reset').click();
  assert.deepEqual((await readDiagram(page, 'ex3')).canSelect, []);
  assert.equal(await part(page, 'ex3', 'check').isDisabled(), false);
  assert.equal(await pick('a4').isChecked(), false);

  // Picking works from the keyboard as well: the pieces are buttons while the quiz is open.
  await figure(page, 'ex3').locator('[data-point][tabindex="0"]').focus();
  await focusByKeys(page, 'ex3', 'a4');
  assert.equal(await point(page, 'ex3', 'a4').getAttribute('aria-disabled'), 'false');
  await page.keyboard.press('Enter');
  assert.equal(await pick('a4').isChecked(), true);
  assert.equal(await point(page, 'ex3', 'a4').getAttribute('aria-pressed'), 'true');
  assert.match(await point(page, 'ex3', 'a4').getAttribute('aria-label'), /in your answer/);
  assert.equal(await text(page, 'ex3', 'status'), 'Dark to move: which pieces can?');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the ways to lose and to draw end the game on their boards', async () => {
  const { context, page } = await openRules();
  await part(page, 'losing', 'tab').nth(1).click();
  await point(page, 'losing', 'd1').click();
  await point(page, 'losing', 'a1').click();
  assert.equal(await text(page, 'losing', 'status'), 'Light wins. Dark has no legal move.');
  await part(page, 'draws', 'tab').nth(0).click();
  await point(page, 'draws', 'a1').click();
  await point(page, 'draws', 'a4').click();
  assert.equal(await text(page, 'draws', 'status'), 'Draw. 100 turns in a row without a removal.');
  assert.deepEqual((await readDiagram(page, 'draws')).canSelect, [], 'a finished game offers nothing');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('language: Russian from the browser, switchable, remembered; English on desktop', async () => {
  const { context, page } = await openRules({ viewport: DESKTOP, locale: 'ru-RU' });
  assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
  assert.equal(await page.locator('h1').innerText(), 'Как играть в Мельницу');
  assert.equal(await text(page, 'worked', 'status'), 'Светлые: поставьте фишку');
  assert.equal(await page.locator('#lang').innerText(), 'English');
  await point(page, 'worked', 'g1').click();
  assert.match(await text(page, 'worked', 'note'), /предлагает только d2/);
  await page.screenshot({ path: join(ARTIFACTS, 'rules-07-ru-desktop-top.png') });
  await snap(page.locator('#worked'), 'rules-08-ru-desktop-worked');

  await page.locator('#lang').click();
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
  assert.equal(await page.locator('h1').innerText(), 'How to play Mill');
  assert.equal(await text(page, 'worked', 'status'), 'Light closed a mill: remove a Dark piece', 'the board keeps its game');
  assert.match(await text(page, 'worked', 'note'), /offers only d2/);
  assert.equal(await page.title(), 'How to play Mill — rules with live boards');

  await page.reload();
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await page.locator('h1').innerText(), 'How to play Mill', 'the choice is remembered');
  await snap(page.locator('#ex1'), 'rules-09-en-desktop-ex1');
  await snap(page.locator('#ex3'), 'rules-10-en-desktop-ex3');
  await snap(page.locator('#myths'), 'rules-11-en-desktop-myths');
  await snap(page.locator('#faq'), 'rules-12-en-desktop-faq');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('"Start a game" leads to the start screen; no serious accessibility problems', async () => {
  const { context, page } = await openRules();
  assert.deepEqual(await axeSerious(page), []);
  await page.locator('.cta [data-role="start-game"]').click();
  await page.waitForURL(`${env.server.url}/`);
  await page.locator('#start-local').waitFor();
  assert.equal(await page.locator('#start-local').isVisible(), true);
  await context.close();
});

test('the start screen and the game link to the rules page', async () => {
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'en-US' });
  const page = await openPage(context, `${env.server.url}/`);
  const link = page.locator('#rules-link');
  await link.waitFor();
  assert.equal((await link.textContent()).trim(), 'How to play', 'the link is named for screen readers');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the header fits a phone (overflows by ${overflow}px)`);
  // Russian words are longer: the header must still fit.
  await page.locator('#lang').click();
  const overflowRu = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflowRu <= 0, `the Russian header fits a phone (overflows by ${overflowRu}px)`);
  await page.locator('#lang').click();
  await page.locator('#start-local').click();
  assert.ok(await link.isVisible(), 'the link stays in the header during a game');
  await link.click();
  await page.locator('body[data-ready="true"]').waitFor();
  assert.match(page.url(), /\/rules$/);
  await context.close();
});
