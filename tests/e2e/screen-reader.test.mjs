// Screen-reader play in a real browser, no server (a static file server stands in): the
// switch, the live region (#announce) and the Command field (#command). Games are played
// only by typing; after every turn the live region is read.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { turnWords } from '../../static/js/command.js';
import { translator } from '../../static/js/i18n.js';
import { axeSerious, openPage, PHONE, preloadStorage, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const START = '.../.../.../....../.../.../... l 9 9 0 0';

const env = useBrowserAndServer({ mill: false });

async function open({ locale = 'en-US', saved = {} } = {}) {
  const context = await env.browser.newContext({ viewport: PHONE, locale });
  await preloadStorage(context, saved);
  const page = await openPage(context, `${env.server.url}/`);
  return { context, page };
}

/** How many announcements the live region has made so far. */
const said = (page) => page.evaluate(() => Number(document.getElementById('announce').dataset.count ?? 0));

/** The announcements made after the first `since`. */
const heardSince = (page, since) =>
  page.evaluate((n) => {
    const region = document.getElementById('announce');
    const all = [...region.children].map((p) => p.textContent);
    const total = Number(region.dataset.count ?? 0);
    return all.slice(Math.max(0, all.length - (total - n)));
  }, since);

/** Types a line into the Command field and waits for the first thing said after it. */
async function type(page, text) {
  const before = await said(page);
  await page.locator('#command').fill(text);
  await page.locator('#command').press('Enter');
  await page.waitForFunction((n) => Number(document.getElementById('announce').dataset.count ?? 0) > n, before);
  return before;
}

/** Waits until something said after `since` matches `pattern`; returns all said since. */
async function hear(page, since, pattern, timeout = 20_000) {
  await page.waitForFunction(
    ([n, source]) => {
      const region = document.getElementById('announce');
      const all = [...region.children].map((p) => p.textContent);
      const total = Number(region.dataset.count ?? 0);
      return all.slice(Math.max(0, all.length - (total - n))).some((s) => new RegExp(source).test(s));
    },
    [since, pattern.source],
    { timeout },
  ).catch(async (error) => {
    throw new Error(`${pattern} not heard; heard ${JSON.stringify(await heardSince(page, since))}: ${error.message}`);
  });
  return heardSince(page, since);
}

/** Asks a query and returns its spoken answer. */
async function ask(page, query) {
  const since = await type(page, query);
  return (await heardSince(page, since))[0];
}

const recordTurns = (page) =>
  page.evaluate(() => [...document.querySelectorAll('#record li')].flatMap((li) => [...li.children].slice(1).map((s) => s.textContent).filter(Boolean)));

/** The turn announcements in what was said: "Light: places on d6" parts. */
const turnsIn = (lines) => lines.flatMap((line) => line.split('. ').filter((part) => /^(Light|Dark): /.test(part)));

test('the switch shows the Command field, turns sounds off and is remembered', async () => {
  const { context, page } = await open();
  assert.equal(await page.locator('#command-form').isHidden(), true);
  assert.equal(await page.locator('#sr-mode').getAttribute('aria-pressed'), 'false');
  await page.locator('#sr-mode').click();
  // The mode's code loads on the switch's first click, which it then answers.
  await page.locator('#sr-mode[aria-pressed="true"]').waitFor();
  assert.equal(await page.locator('#sound').getAttribute('aria-pressed'), 'false', 'sounds talk over speech: off');
  await page.locator('#start-local').click();
  await page.locator('#command').waitFor();
  assert.equal(await page.locator('#status').getAttribute('aria-live'), 'off');
  await page.reload();
  await page.locator('#command').waitFor();
  assert.equal(await page.locator('#sr-mode').getAttribute('aria-pressed'), 'true');
  assert.deepEqual(await axeSerious(page), []);
  await page.locator('#sr-mode').click();
  assert.equal(await page.locator('#command-form').isHidden(), true);
  assert.equal(await page.locator('#status').getAttribute('aria-live'), 'polite');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('same device by typing: a turn with its removal is said once; refusals give the reason and change nothing; queries', async () => {
  const { context, page } = await open({ saved: { 'mill.screen-reader': 'on' } });
  await page.locator('#start-local').click();
  await page.locator('#command').waitFor();
  for (const turn of ['d6', 'a7', 'd5', 'a1']) await type(page, turn);
  // A refusal: the reason, and the board is unchanged.
  const board = await readBoard(page);
  let since = await type(page, 'a7');
  assert.deepEqual(await heardSince(page, since), ['a7 is already taken']);
  since = await type(page, 'd6-d7');
  assert.deepEqual(await heardSince(page, since), ['You still have pieces to place: name a free point, such as d6']);
  // A name the board lacks: the rules refuse it, the page names the point.
  since = await type(page, 'e3-d4');
  assert.deepEqual(await heardSince(page, since), ['d4 is not a point of this board']);
  // The removal is checked before anything is played: a whole turn is refused whole.
  since = await type(page, 'd7xd6');
  assert.deepEqual(await heardSince(page, since), ['d6 is not an opponent piece']);
  since = await type(page, 'move it');
  assert.deepEqual(await heardSince(page, since), ['“move it” is neither a turn nor a query. Type help for the list']);
  assert.equal(await page.locator('#command').inputValue(), 'move it', 'a refused line stays to be corrected');
  assert.deepEqual(await readBoard(page), board);
  // The whole turn in one line.
  since = await type(page, 'd7xa7');
  assert.deepEqual(await heardSince(page, since), ['Light: places on d7, closes a mill, removes a7. Dark to move']);
  assert.equal(await page.locator('#command').inputValue(), '');
  assert.equal((await readBoard(page)).pieces.a7, undefined);
  // A placement closing a mill, then the removal typed after it.
  since = await type(page, 'g7');
  since = await type(page, 'b6');
  assert.deepEqual(await heardSince(page, since), ['Light: places on b6. Dark to move']);
  since = await type(page, 'b6');
  assert.deepEqual(await heardSince(page, since), ['b6 is already taken']);
  for (const turn of ['g1', 'b2']) await type(page, turn);
  since = await type(page, 'g4');
  assert.deepEqual(await heardSince(page, since), ['Dark closed a mill and must remove a piece']);
  since = await type(page, 'xd6');
  assert.deepEqual(await heardSince(page, since), ['d6 stands in a mill: remove another piece']);
  since = await type(page, 'xb2');
  assert.deepEqual(await heardSince(page, since), ['Dark: places on g4, closes a mill, removes b2. Light to move']);
  // Queries.
  assert.equal(await ask(page, 'pieces'), 'Light: 4 in hand, 4 on the board. Dark: 4 in hand, 4 on the board');
  assert.equal(await ask(page, 'last'), 'Dark: places on g4, closes a mill, removes b2. Light to move');
  assert.match(await ask(page, 'board'), /^Light, 4: b6, d5, d6, d7\. Dark, 4: a1, g1, g4, g7\. Empty, 16: /);
  assert.match(await ask(page, 'legal'), /^Light can: place on /);
  assert.equal(await ask(page, 'clock'), 'This game has no clocks');
  assert.match(await ask(page, 'help'), /f4-g4xb6/);
  await shot(page, 'screen-reader-01-local-phone');
  assert.deepEqual(await axeSerious(page), []);
  // Both themes.
  await page.locator('#theme').click();
  assert.deepEqual(await axeSerious(page), []);
  // Review: stepping is heard too — a step back by a whole turn (review steps by turns), the start.
  since = await said(page);
  await page.locator('#review-open').click();
  assert.deepEqual(await hear(page, since, /./), ['Dark: places on g4, closes a mill, removes b2. Light to move']);
  since = await said(page);
  await page.locator('#review-prev').click();
  assert.deepEqual(await hear(page, since, /./), ['Position after Light: places on b2. Dark to move']);
  since = await said(page);
  await page.locator('#review-next').click();
  assert.deepEqual(await hear(page, since, /./), ['Dark: places on g4, closes a mill, removes b2. Light to move']);
  since = await said(page);
  await page.locator('#review-first').click();
  assert.deepEqual(await hear(page, since, /./), ['Start position. Light to move']);
  since = await type(page, 'd4');
  assert.deepEqual(await heardSince(page, since), ['This is a review: the board is read-only, queries work']);
  assert.equal(await ask(page, 'pieces'), 'Light: 9 in hand, 0 on the board. Dark: 9 in hand, 0 on the board');
  assert.deepEqual(page.errors, []);
  await context.close();
});

/** The person's next action from the spoken list of legal turns (the first offered). */
function firstLegal(answer) {
  const m = /^You can: (place on|move|remove) (.*)$/.exec(answer);
  assert.ok(m, answer);
  const first = m[2].split(/[;,]/)[0].trim();
  if (m[1] === 'remove') return `x${first}`;
  if (m[1] === 'move') {
    const [from, to] = first.split(' to ');
    return `${from}-${to.split(' or ')[0]}`;
  }
  return first;
}

test('a whole game against the computer played only through the Command field, every turn heard once', async () => {
  const { context, page } = await open({
    saved: { 'mill.screen-reader': 'on', 'mill.computer.settings': JSON.stringify({ level: 'easy', human: 'light', seed: 5 }) },
  });
  await page.locator('#variant').selectOption('three');
  const start = await said(page);
  await page.locator('#start-computer').click();
  await page.locator('#command').waitFor();
  await hear(page, start, /^Your turn$/);
  const heard = [];
  let over = false;
  for (let i = 0; i < 80 && !over; i++) {
    const action = firstLegal(await ask(page, 'legal'));
    const since = await type(page, action);
    const now = await hear(page, since, /Your turn|Game over|You closed a mill/);
    heard.push(...now);
    over = now.some((s) => s.includes('Game over'));
    // After a removal or a plain turn, the person's turn is said exactly once.
    assert.ok(now.filter((s) => /Your turn|Game over/.test(s)).length <= 1, JSON.stringify(now));
    // A typed turn is never refused here: it came from the legal list.
    assert.ok(!now.some((s) => /not|taken|neither/.test(s)), JSON.stringify(now));
  }
  assert.ok(over, 'the game ended');
  assert.equal(await page.locator('#result').isVisible(), true);
  // Every turn of the record was announced once, in order, with its mover.
  const turns = await recordTurns(page);
  const en = translator('en');
  const expected = turns.map((turn, i) => `${i % 2 === 0 ? 'Light' : 'Dark'}: ${turnWords(turn, en)}`);
  assert.deepEqual(turnsIn(heard), expected);
  // Typing after the end is refused with the reason.
  const since = await type(page, 'a1');
  assert.deepEqual(await heardSince(page, since), ['The game is over']);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('vs computer: a removal typed with its move, and the reply heard', async () => {
  const { context, page } = await open({
    saved: {
      'mill.screen-reader': 'on',
      'mill.game.computer': JSON.stringify({ start: START, actions: ['d6', 'a7', 'd5', 'a1'] }),
      'mill.computer.settings': JSON.stringify({ level: 'medium', human: 'light', seed: 1 }),
    },
  });
  const start = await said(page);
  await page.locator('#start-computer').click();
  await hear(page, start, /^Your turn$/);
  const since = await type(page, 'd7xa7');
  const now = await hear(page, since, /Your turn$/);
  assert.equal(now[0], 'Light: places on d7, closes a mill, removes a7. Dark to move');
  assert.match(now.at(-1), /^Dark: places on [a-g][1-7]\. Your turn$/);
  assert.equal(turnsIn(now).filter((s) => s.includes('d7')).length, 1, 'the turn is said once');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Russian: the field is «Команда», turns and queries are answered in Russian', async () => {
  const { context, page } = await open({ locale: 'ru-RU', saved: { 'mill.screen-reader': 'on' } });
  await page.locator('#start-local').click();
  await page.locator('#command').waitFor();
  assert.equal(await page.locator('label[for="command"]').innerText(), 'Команда');
  assert.equal(await page.locator('#sr-mode').getAttribute('aria-label'), 'Режим экранного диктора');
  let since = await type(page, 'd6');
  assert.deepEqual(await heardSince(page, since), ['Светлые: ставят на d6. Ход: Тёмные']);
  since = await type(page, 'd6');
  assert.deepEqual(await heardSince(page, since), ['d6 уже занята']);
  since = await type(page, 'e3-d4');
  assert.deepEqual(await heardSince(page, since), ['Точки d4 нет на этой доске']);
  assert.equal(await ask(page, 'фишки'), 'Светлые: в руке 8, на доске 1. Тёмные: в руке 9, на доске 0');
  assert.match(await ask(page, 'ходы'), /^Тёмные могут: поставить на /);
  since = await type(page, 'абв');
  assert.deepEqual(await heardSince(page, since), ['«абв» — не ход и не запрос. Список: «помощь»']);
  assert.deepEqual(await axeSerious(page), []);
  assert.deepEqual(page.errors, []);
  await context.close();
});

/** The focused element: its id, or a turn button of the move list as `turn:<text>`. */
const focusOf = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    // A turn's own text is its first node (the engine's mark and the time may follow).
    if (el.matches('#record button.turn')) return `turn:${el.firstChild?.textContent}${el.getAttribute('aria-current') ? ' (current)' : ''}`;
    if (el.closest('#board-host')) return 'board';
    return el.id || el.tagName;
  });

test('a new game puts the focus on the Command field in this mode, on the board without it', async () => {
  let { context, page } = await open({ saved: { 'mill.screen-reader': 'on' } });
  await page.locator('#start-local').click();
  await page.locator('#command').waitFor();
  await page.waitForFunction(() => document.activeElement?.id === 'command').catch(() => {});
  assert.equal(await focusOf(page), 'command', 'same device');
  await page.locator('#menu').click();
  await page.locator('#start-computer').click();
  await page.waitForFunction(() => document.activeElement?.id === 'command').catch(() => {});
  assert.equal(await focusOf(page), 'command', 'vs computer');
  await context.close();
  ({ context, page } = await open());
  await page.locator('#start-local').click();
  await page.waitForFunction(() => !!document.activeElement?.closest('#board-host')).catch(() => {});
  assert.equal(await focusOf(page), 'board', 'without the mode the board has it');
  await context.close();
});

test("activating a turn in review's move list keeps the focus on that turn", async () => {
  const { context, page } = await open({ saved: { 'mill.screen-reader': 'on' } });
  await page.locator('#start-local').click();
  await page.locator('#command').waitFor();
  for (const turn of ['d6', 'a7', 'd5', 'a1']) await type(page, turn);
  await page.locator('#review-open').click();
  await page.locator('#record button.turn').first().waitFor();
  // By keyboard: Enter, then Space, on a turn of the list.
  const a7 = page.locator('#record button.turn', { hasText: 'a7' });
  await a7.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#record [aria-current]')?.firstChild?.textContent === 'a7');
  assert.equal(await focusOf(page), 'turn:a7 (current)');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focusOf(page), 'turn:d6', 'the focus is still in the list: the turn before it is one Shift+Tab away');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('#record [aria-current]')?.firstChild?.textContent === 'd6');
  assert.equal(await focusOf(page), 'turn:d6 (current)');
  // By a click as well.
  await page.locator('#record button.turn', { hasText: 'd5' }).click();
  await page.waitForFunction(() => document.querySelector('#record [aria-current]')?.firstChild?.textContent === 'd5');
  assert.equal(await focusOf(page), 'turn:d5 (current)');
  assert.deepEqual(page.errors, []);
  await context.close();
});
