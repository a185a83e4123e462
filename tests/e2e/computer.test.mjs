// Vs computer in a real browser: the engine runs in a Web Worker from the WebAssembly
// build; no server is needed (a static file server stands in).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, DESKTOP, openPage, PHONE, point, preloadStorage, readBoard, shot, statusText, topology, useBrowserAndServer } from './helpers.mjs';

const START = '.../.../.../....../.../.../... l 9 9 0 0';

const env = useBrowserAndServer({ mill: false });

/** A fresh browser on the start screen; `saved` preloads local storage (key → value). */
async function open({ viewport = PHONE, locale = 'en-US', saved = {} } = {}) {
  const context = await env.browser.newContext({ viewport, locale });
  // The page seeds each game from crypto.getRandomValues; a fixed sequence here makes
  // every run of these tests play the same games, so a failure can be reproduced.
  await context.addInitScript(() => {
    let x = 0x9e3779b9;
    crypto.getRandomValues = (array) => {
      for (let i = 0; i < array.length; i++) {
        x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
        array[i] = x >>> 0;
      }
      return array;
    };
  });
  await preloadStorage(context, saved);
  const page = await openPage(context, `${env.server.url}/`);
  return { context, page };
}

async function startComputer(page) {
  await page.locator('#start-computer').click();
  await page.locator('#board-host [data-point="a1"]').waitFor();
}

/** Waits until the computer has finished its turn (the status is no longer a waiting one). */
async function computerDone(page) {
  await page.waitForFunction(() => document.querySelector('#status')?.dataset.tone !== 'wait', null, { timeout: 20_000 });
}

const recordTurns = (page) =>
  page.evaluate(() => [...document.querySelectorAll('#record li')].flatMap((li) => [...li.children].slice(1).map((s) => s.textContent).filter(Boolean)));

const saved = (page, key) => page.evaluate((k) => localStorage.getItem(k), key);

const countSide = (pieces, side) => Object.values(pieces).filter((s) => s === side).length;

/** The person's action now: a removal if one is owed, else a free point in a fixed order. */
async function personAction(page) {
  const board = await readBoard(page);
  if (board.canRemove.length) return `x${board.canRemove[0]}`;
  const order = ['d6', 'b4', 'f2', 'd3', 'a7', 'g1', 'c5', 'e3', 'g4', 'a1', 'd7', 'f4', 'b6', 'd1', 'c4', 'e5', 'a4', 'g7', 'b2', 'f6', 'c3', 'd2', 'e4', 'd5'];
  return order.find((p) => board.canPlace.includes(p));
}

/** Checks that the computer's latest turn, seen as board before → after, is one legal-looking Dark turn. */
function assertComputerTurn(before, after, turn, side = 'dark') {
  const person = side === 'dark' ? 'light' : 'dark';
  const [head, ...removed] = turn.split('x');
  assert.ok(!head.includes('-'), `a placement was expected, got ${turn}`);
  assert.equal(before.pieces[head], undefined, `${turn}: ${head} was not free`);
  assert.equal(after.pieces[head], side, `${turn}: ${head} is not ${side}`);
  assert.equal(countSide(after.pieces, side), countSide(before.pieces, side) + 1);
  for (const r of removed) {
    assert.equal(before.pieces[r], person, `${turn}: removed ${r} was not the person's`);
    assert.equal(after.pieces[r], undefined);
  }
  assert.equal(countSide(after.pieces, person), countSide(before.pieces, person) - removed.length);
}

test('Vs computer: several turns by clicks, each answered with a legal turn; the level changes and the game stays; a reload restores it', async () => {
  const { context, page } = await open();
  await shot(page, 'computer-01-start-phone');
  assert.match(await page.locator('#start-computer').innerText(), /Vs computer/);
  await startComputer(page);
  assert.equal(await statusText(page), 'Your turn: place a piece');
  assert.equal(await page.locator('.card[data-side="dark"] .you').textContent(), 'computer');
  assert.equal(await page.locator('input[name="computer-level"][value="medium"]').isChecked(), true);
  assert.equal(await page.locator('input[name="computer-side"][value="light"]').isChecked(), true);
  assert.equal(await page.locator('#undo').isDisabled(), true);

  for (let turn = 0; turn < 4; turn++) {
    const action = await personAction(page);
    const before = await readBoard(page);
    await point(page, action).click();
    // The computer thinks (at least a moment): the board offers nothing and the status says so.
    const thinking = await page.evaluate(() => ({
      tone: document.querySelector('#status').dataset.tone,
      text: document.querySelector('#status').textContent,
      offered: document.querySelectorAll('#board-host .can-place, #board-host .can-remove').length,
    }));
    assert.deepEqual(thinking, { tone: 'wait', text: 'The computer (Dark) is thinking…', offered: 0 });
    await computerDone(page);
    const after = await readBoard(page);
    before.pieces[action] = 'light';
    const turns = await recordTurns(page);
    assert.equal(turns.length, 2 * (turn + 1), `record after turn ${turn + 1}: ${turns}`);
    assert.equal(turns.at(-2), action);
    assertComputerTurn(before, after, turns.at(-1));
    assert.match(await statusText(page), /^Your turn/);
  }
  await shot(page, 'computer-02-four-turns-phone');
  const turns = await recordTurns(page);

  // Harder: the game is kept, the choice saved apart from the game.
  await page.locator('label:has(input[value="hard"])').click();
  assert.equal(await page.locator('input[name="computer-level"][value="hard"]').isChecked(), true);
  assert.deepEqual(await recordTurns(page), turns);
  assert.equal(JSON.parse(await saved(page, 'mill.computer.settings')).level, 'hard');

  // Undo takes back the person's turn and the computer's reply.
  await page.locator('#undo').click();
  assert.deepEqual(await recordTurns(page), turns.slice(0, -2));
  assert.match(await statusText(page), /^Your turn: place/);
  assert.equal(JSON.parse(await saved(page, 'mill.game.computer')).actions.length, turns.length - 2);

  // A reload comes back to the same vs-computer game, level and side; the same-device save is untouched.
  assert.equal(await saved(page, 'mill.game.local'), null);
  await page.reload();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  await computerDone(page);
  assert.deepEqual(await recordTurns(page), turns.slice(0, -2));
  assert.equal(await page.locator('input[name="computer-level"][value="hard"]').isChecked(), true);
  assert.equal(await page.evaluate(() => location.hash), '#computer');
  assert.equal(await saved(page, 'mill.game.local'), null);

  assert.deepEqual(await axeSerious(page), []);

  // The start screen offers to continue it.
  await page.locator('#menu').click();
  assert.equal(await page.locator('#start-computer-hint').innerText(), 'Continue the saved game');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the computer’s removal is shown as a step after its move', async () => {
  // Dark (the computer) to move: d1-g1 closes g7-g4-g1; its only other move, g4-g1, does
  // nothing. Medium takes the mill with every seed; a removal must come as a second step.
  const record = JSON.stringify({ start: 'DLD/.../.../DL..LD/.../.L./LD. d 0 0 0 0', actions: [] });
  const { context, page } = await open({
    saved: { 'mill.game.computer': record, 'mill.computer.settings': JSON.stringify({ level: 'medium', human: 'light', seed: 1 }) },
  });
  await startComputer(page);
  // Between the move and the removal the board shows Dark's piece on g1 and every Light one still there.
  await page.waitForFunction(() => /closed a mill/.test(document.querySelector('#status').textContent), null, { timeout: 20_000 });
  const middle = await readBoard(page);
  assert.equal(middle.pieces.g1, 'dark');
  assert.equal(middle.pieces.d1, undefined);
  assert.equal(countSide(middle.pieces, 'light'), 5);
  assert.deepEqual(middle.canRemove, [], 'the person was offered the computer’s removal');
  assert.equal(await statusText(page), 'The computer closed a mill');
  await shot(page, 'computer-03-removal-step-phone');
  await computerDone(page);
  const after = await readBoard(page);
  assert.equal(countSide(after.pieces, 'light'), 4);
  const turn = (await recordTurns(page)).at(-1);
  assert.match(turn, /^d1-g1x(a1|d2|f4|d7|b4)$/);
  assert.equal(after.pieces[turn.slice(-2)], undefined);
  assert.match(await statusText(page), /^Your turn: pick a piece/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('moving: the person moves a piece by clicks and the computer answers with a step along a line', async () => {
  // Both sides have placed their nine pieces (the engine played itself at Medium, seed 4).
  const actions = 'd6 d5 b6 f6 b2 b4 c5 f2 f4 g4 g1 d1 d3 a4 c4 c3 a7 e3'.split(' ');
  const { context, page } = await open({
    saved: {
      'mill.game.computer': JSON.stringify({ start: START, actions }),
      'mill.computer.settings': JSON.stringify({ level: 'easy', human: 'light', seed: 11 }),
    },
  });
  await startComputer(page);
  assert.equal(await statusText(page), 'Your turn: pick a piece to move');
  for (let turn = 0; turn < 2; turn++) {
    let board = await readBoard(page);
    const from = board.canSelect[0];
    await point(page, from).click();
    board = await readBoard(page);
    assert.deepEqual(board.selected, [from]);
    await point(page, board.target[0]).click();
    // A mill closed by the person: remove before the turn passes.
    board = await readBoard(page);
    if (board.canRemove.length) await point(page, board.canRemove[0]).click();
    const before = await readBoard(page);
    await computerDone(page);
    if (await page.locator('#result').isVisible()) break;
    const after = await readBoard(page);
    const reply = (await recordTurns(page)).at(-1);
    const [step, ...removed] = reply.split('x');
    const [dfrom, to] = step.split('-');
    assert.ok(to, `a move was expected, got ${reply}`);
    assert.equal(before.pieces[dfrom], 'dark', `${reply}: ${dfrom} was not Dark's`);
    assert.equal(before.pieces[to], undefined, `${reply}: ${to} was not free`);
    assert.ok(topology.neighbours[dfrom].includes(to), `${reply}: ${to} is not next to ${dfrom}`);
    assert.equal(after.pieces[to], 'dark');
    assert.equal(after.pieces[dfrom], undefined);
    for (const r of removed) assert.equal(after.pieces[r], undefined);
    assert.deepEqual(after.lastTo, [to]);
    assert.match(await statusText(page), /^Your turn/);
  }
  await shot(page, 'computer-09-moving-phone');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('playing Dark makes the computer open; Undo then waits for the person’s own turn', async () => {
  const { context, page } = await open({ viewport: DESKTOP });
  await startComputer(page);
  await page.locator('label:has(input[name="computer-side"][value="dark"])').click();
  await computerDone(page);
  const turns = await recordTurns(page);
  assert.equal(turns.length, 1);
  const board = await readBoard(page);
  assert.equal(board.pieces[turns[0]], 'light');
  assert.equal(await statusText(page), 'Your turn: place a piece');
  assert.equal(await page.locator('.card[data-side="light"] .you').textContent(), 'computer');
  assert.equal(await page.locator('#undo').isDisabled(), true);
  await shot(page, 'computer-04-dark-desktop');

  // Changing colours with a game under way asks first; saying no keeps everything.
  await point(page, await personAction(page)).click();
  await computerDone(page);
  assert.equal((await recordTurns(page)).length, 3);
  await page.locator('label:has(input[name="computer-side"][value="light"])').click();
  await page.getByRole('dialog', { name: 'Start a new game?' }).waitFor();
  assert.equal(await page.locator('#confirm-new-text').innerText(), 'Changing colours starts a new game: the game in progress will be lost.');
  await page.locator('#confirm-new-keep').click();
  assert.equal((await recordTurns(page)).length, 3);
  assert.equal(await page.locator('input[name="computer-side"][value="dark"]').isChecked(), true);
  const violations = await axeSerious(page);
  assert.deepEqual(violations, []);
  // Saying yes changes colours and starts over.
  await page.locator('label:has(input[name="computer-side"][value="light"])').click();
  await page.locator('#confirm-new-ok').click();
  await page.waitForFunction(() => document.querySelectorAll('#record li').length === 0);
  assert.equal(await page.locator('input[name="computer-side"][value="light"]').isChecked(), true);
  assert.equal(await statusText(page), 'Your turn: place a piece');
  assert.deepEqual(page.errors, []);
  await context.close();
});

/** Counts the page's animation frames during each request to a Worker and its reply. */
function countFramesDuringSearches() {
  const Native = window.Worker;
  const log = { searching: false, frames: 0, done: [] };
  window.engineFrames = log;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => {
        log.searching = false;
        log.done.push(log.frames);
      });
    }
    postMessage(...args) {
      log.searching = true;
      log.frames = 0;
      super.postMessage(...args);
    }
  };
  const frame = () => {
    if (log.searching) log.frames += 1;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

test('Three Men’s Morris offers Perfect, which opens with d4 (the one winning first placement); Nine does not offer it', async () => {
  const { context, page } = await open({ viewport: DESKTOP });
  await startComputer(page);
  assert.equal(await page.locator('#computer-level-perfect').isVisible(), false);
  await context.close();

  const three = await open({ viewport: DESKTOP });
  await three.page.locator('#variant').selectOption('three');
  await startComputer(three.page);
  assert.equal(await three.page.locator('#computer-level-perfect').isVisible(), true);
  assert.equal(await three.page.locator('#computer-level-perfect').innerText(), 'Perfect');
  await three.page.locator('label:has(input[name="computer-level"][value="perfect"])').click();
  await three.page.locator('label:has(input[name="computer-side"][value="dark"])').click();
  await computerDone(three.page);
  // Corners draw and edges lose (docs/TABLES.md): the table's player takes the centre.
  assert.deepEqual(await recordTurns(three.page), ['d4']);
  assert.equal(JSON.parse(await saved(three.page, 'mill.computer.settings')).level, 'perfect');
  assert.deepEqual(await axeSerious(three.page), []);
  await three.context.close();
});

test('the page stays responsive while the computer thinks, and Undo cancels the search', async () => {
  const { context, page } = await open({
    saved: { 'mill.computer.settings': JSON.stringify({ level: 'hard', human: 'light', seed: 7 }) },
  });
  await page.addInitScript(countFramesDuringSearches);
  await page.reload();
  await startComputer(page);
  await point(page, 'd6').click();
  // Undo in the middle of Hard's search (clicked in the page, so nothing runs in between):
  // the position goes back at once and the search's late answer never lands.
  const undo = await page.evaluate(() => {
    const status = document.querySelector('#status');
    const before = { tone: status.dataset.tone, disabled: document.querySelector('#undo').disabled };
    document.querySelector('#undo').click();
    return { before, after: status.textContent, records: document.querySelectorAll('#record li').length };
  });
  assert.deepEqual(undo, { before: { tone: 'wait', disabled: false }, after: 'Your turn: place a piece', records: 0 });

  // In Russian this time; the status says the computer thinks.
  await page.locator('#lang').click();
  await point(page, 'b4').click();
  assert.equal(await page.evaluate(() => document.querySelector('#status').textContent), 'Компьютер (Тёмные) думает…');
  await shot(page, 'computer-05-thinking-ru-phone');
  await computerDone(page);
  // The page kept drawing frames while the worker searched (a search on the page's own
  // thread would have let none through until it was over).
  const frames = await page.evaluate(() => window.engineFrames.done);
  assert.equal(frames.length, 1, `one search answered, got ${frames}`);
  assert.ok(frames[0] > 0, 'no frame was drawn during the search');
  const turns = await recordTurns(page);
  assert.equal(turns.length, 2);
  assert.equal(turns[0], 'b4');
  const pieces = (await readBoard(page)).pieces;
  assert.equal(pieces.b4, 'light');
  assert.equal(countSide(pieces, 'light'), 1, 'the undone d6 came back');
  assert.equal(countSide(pieces, 'dark'), 1, 'the cancelled search still played');
  await shot(page, 'computer-06-ru-phone');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the person’s winning turn ends the game with “You win!”', async () => {
  // The same-device tests' blockade game: Dark's last placement, g4, leaves Light no move.
  // The person plays Dark here; the computer (Light) has made every other turn.
  const actions = 'b2 b4 d3 c3 e3 c5 e4 d2 e5 xb4 b4 d5 d6 f2 d7 f4 f6 g7'.split(' ');
  const { context, page } = await open({
    viewport: DESKTOP,
    saved: {
      'mill.game.computer': JSON.stringify({ start: START, actions }),
      'mill.computer.settings': JSON.stringify({ level: 'easy', human: 'dark', seed: 3 }),
    },
  });
  await startComputer(page);
  assert.equal(await statusText(page), 'Your turn: place a piece');
  await point(page, 'g4').click();
  await page.locator('#result').waitFor();
  assert.equal(await page.locator('#result-title').innerText(), 'You win!');
  assert.equal(await page.locator('#result-reason').innerText(), 'Your opponent (Light) has no legal move.');
  assert.equal(await page.locator('.card.winner').getAttribute('data-side'), 'dark');
  await shot(page, 'computer-08-you-win-desktop');
  // Undo takes the winning turn back (there is no computer reply to it).
  await page.locator('#undo').click();
  assert.equal(await page.locator('#result').isHidden(), true);
  assert.equal(await statusText(page), 'Your turn: place a piece');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('when the computer’s worker cannot start, the page says so and a level change tries again', async () => {
  const { context, page } = await open();
  await context.route('**/js/engine-worker.js', (route) => route.abort());
  await startComputer(page);
  await point(page, 'd6').click();
  await page.locator('#notice').waitFor();
  assert.match(await page.locator('#notice').innerText(), /^The computer could not move: /);
  assert.deepEqual(await recordTurns(page), ['d6']);
  assert.equal(await statusText(page), 'The computer (Dark) is stuck: choose a level to try again');
  assert.equal(await page.locator('#status').getAttribute('data-tone'), 'alert');
  await shot(page, 'computer-10-worker-failed-phone');
  // The worker is reachable again: choosing the same level asks once more, and the computer moves.
  await context.unroute('**/js/engine-worker.js');
  await page.locator('label:has(input[value="medium"])').click();
  await computerDone(page);
  assert.equal((await recordTurns(page)).length, 2);
  assert.match(await statusText(page), /^Your turn: place/);
  assert.equal(await page.locator('#notice').isHidden(), true);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('keyboard only: start Vs computer, place with Enter, the computer answers, the level changes with the arrow keys', async () => {
  const { context, page } = await open({ viewport: DESKTOP });
  const active = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset?.point || document.activeElement?.name || null);
  for (let i = 0; i < 25 && (await active()) !== 'start-computer'; i++) await page.keyboard.press('Tab');
  assert.equal(await active(), 'start-computer');
  await page.keyboard.press('Enter');
  await page.locator('#board-host [data-point="a1"]').waitFor();
  for (let i = 0; i < 12 && !(await page.evaluate(() => document.activeElement?.dataset?.point)); i++) await page.keyboard.press('Tab');
  const first = await page.evaluate(() => document.activeElement.dataset.point);
  assert.ok(first, 'Tab never reached the board');
  await page.keyboard.press('Enter');
  await computerDone(page);
  let turns = await recordTurns(page);
  assert.equal(turns.length, 2);
  assert.equal(turns[0], first);
  // The focus stays on the board through the computer's turn: the next point is an arrow away.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.point), first);
  const board = await readBoard(page);
  let next = first;
  for (const key of ['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp']) {
    await page.keyboard.press(key);
    next = await page.evaluate(() => document.activeElement?.dataset?.point);
    if (board.canPlace.includes(next)) break;
  }
  assert.ok(board.canPlace.includes(next), `no free point next to ${first}`);
  await page.keyboard.press(' ');
  await computerDone(page);
  turns = await recordTurns(page);
  assert.deepEqual(turns.slice(0, 3), [first, turns[1], next]);
  assert.equal(turns.length, 4);

  // The level: Tab to the chosen radio, an arrow key picks the next level; the game stays.
  for (let i = 0; i < 30 && (await active()) !== 'computer-level'; i++) await page.keyboard.press('Tab');
  assert.equal(await active(), 'computer-level');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('input[name="computer-level"][value="hard"]').isChecked(), true);
  assert.deepEqual(await recordTurns(page), turns);
  assert.equal(JSON.parse(await saved(page, 'mill.computer.settings')).level, 'hard');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('New game starts over, and the computer screen looks right on a desktop', async () => {
  const { context, page } = await open({ viewport: DESKTOP });
  await startComputer(page);
  await point(page, 'd6').click();
  await computerDone(page);
  assert.equal((await recordTurns(page)).length, 2);
  await shot(page, 'computer-07-desktop');
  const before = JSON.parse(await saved(page, 'mill.computer.settings')).seed;
  // A game under way: New game asks first; "Keep playing" keeps it, "Start over" starts over.
  await page.locator('#new-game').click();
  await page.getByRole('dialog', { name: 'Start a new game?' }).waitFor();
  await page.locator('#confirm-new-keep').click();
  assert.equal((await recordTurns(page)).length, 2);
  await page.locator('#new-game').click();
  await page.locator('#confirm-new-ok').click();
  await page.waitForFunction(() => document.querySelectorAll('#record li').length === 0);
  assert.deepEqual(await recordTurns(page), []);
  assert.equal(await statusText(page), 'Your turn: place a piece');
  assert.equal(JSON.parse(await saved(page, 'mill.game.computer')).actions.length, 0);
  assert.notEqual(JSON.parse(await saved(page, 'mill.computer.settings')).seed, before, 'a new game got the old seed');
  assert.deepEqual(page.errors, []);
  await context.close();
});
