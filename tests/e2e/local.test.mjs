// Same-device play in a real browser: no server needed (a static file server stands in).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  actionsOf,
  axeSerious,
  clickAction,
  DESKTOP,
  openPage,
  PHONE,
  preloadStorage,
  point,
  readBoard,
  shot,
  statusText,
  useBrowserAndServer,
} from './helpers.mjs';

// Light closes the e-file mill on its fifth placement and removes b4; after the placing
// Light has no move, so Dark wins by blockade (checked with `mill replay`).
const BLOCKADE_GAME = 'b2 b4 d3 c3 e3 c5 e4 d2 e5xb4 b4 d5 d6 f2 d7 f4 f6 g7 g4';

const env = useBrowserAndServer({ mill: false });

/** Waits for the board to have no pieces (the answer to the dialog arrives with its `close` event). */
const boardEmptied = (page) => page.waitForFunction(() => !document.querySelector('#board-host .has-piece'));

/** Whether the "start a new game?" dialog is open. */
const confirmOpen = (page) => page.evaluate(() => document.getElementById('confirm-new').open);

async function startLocal(viewport = PHONE, locale = 'en-US') {
  const context = await env.browser.newContext({ viewport, locale });
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  return { context, page };
}

test('a full same-device game played by clicks, to a win', async () => {
  const { context, page } = await startLocal();
  await shot(page, 'local-01-start-phone');
  assert.equal(await statusText(page), 'Light: place a piece');
  assert.equal((await readBoard(page)).canPlace.length, 24);
  assert.match(await page.locator('.card.active').getAttribute('data-side'), /light/);

  const actions = actionsOf(BLOCKADE_GAME);
  for (const [i, action] of actions.entries()) {
    if (action === 'xb4') {
      // The mill is closed: only the unprotected Dark pieces are offered, and nothing else works.
      assert.equal(await statusText(page), 'Light closed a mill: remove a Dark piece');
      const board = await readBoard(page);
      assert.deepEqual(board.canRemove.sort(), ['b4', 'c3', 'c5', 'd2']);
      assert.deepEqual(board.canPlace, []);
      await shot(page, 'local-02-removal-phone');
      for (const p of ['e3', 'a1']) await point(page, p).click({ force: true });
      assert.deepEqual((await readBoard(page)).pieces, board.pieces, 'an illegal click changed the board');
    }
    await clickAction(page, action);
    const board = await readBoard(page);
    const target = action.startsWith('x') ? null : action;
    if (target) assert.ok(board.pieces[target], `${action} (#${i + 1}) was not played`);
    else assert.equal(board.pieces.b4, undefined);
  }

  // Light is blocked: Dark wins, and the page says so and why.
  await page.locator('#result').waitFor();
  assert.equal(await page.locator('#result-title').innerText(), 'Dark wins');
  assert.equal(await page.locator('#result-reason').innerText(), 'Light has no legal move.');
  assert.equal(await page.locator('.card.winner').getAttribute('data-side'), 'dark');
  assert.equal(await page.locator('#record li').count(), 9);
  assert.match(await page.locator('#record').innerText(), /e5xb4/);
  const board = await readBoard(page);
  assert.deepEqual(board.canPlace, []);
  assert.deepEqual(board.lastTo, ['g4']);
  await shot(page, 'local-03-won-phone');
  assert.deepEqual(await axeSerious(page), [], 'game-over screen');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a closed mill is highlighted until the removal, then stays marked with the last turn', async () => {
  const { context, page } = await startLocal(DESKTOP);
  for (const a of ['a1', 'b2', 'd1', 'd2']) await clickAction(page, a);
  let board = await readBoard(page);
  assert.deepEqual(board.mills, []);
  assert.deepEqual(board.inMill, []);

  await clickAction(page, 'g1');
  board = await readBoard(page);
  assert.deepEqual(board.freshMills, ['a1 d1 g1']);
  assert.deepEqual(board.inMill.sort(), ['a1', 'd1', 'g1']);
  // The band runs from a1 to g1 across the board, drawn under the pieces.
  const line = page.locator('#board-host .mill-line');
  const ends = await line.evaluate((l) => ({ y1: l.getAttribute('y1'), y2: l.getAttribute('y2'), x1: +l.getAttribute('x1'), x2: +l.getAttribute('x2') }));
  const a1 = await point(page, 'a1').getAttribute('transform');
  const g1 = await point(page, 'g1').getAttribute('transform');
  assert.equal(a1, `translate(${ends.x1} ${ends.y1})`);
  assert.equal(g1, `translate(${ends.x2} ${ends.y2})`);
  assert.equal(await point(page, 'd1').getAttribute('aria-label'), 'd1, Light piece, in the mill just closed');
  await shot(page, 'local-09-mill-closed-desktop');

  await clickAction(page, 'xd2');
  board = await readBoard(page);
  assert.deepEqual(board.mills, ['a1 d1 g1'], 'the mill stays marked with the last turn');
  assert.deepEqual(board.freshMills, []);
  await shot(page, 'local-10-mill-settled-desktop');

  // Dark's reply closes nothing: the mark goes with the turn; undo brings it back.
  await clickAction(page, 'd2');
  assert.deepEqual((await readBoard(page)).mills, []);
  await page.locator('#undo').click();
  assert.deepEqual((await readBoard(page)).mills, ['a1 d1 g1']);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('moving: a piece is selected, its destinations shown, another piece changes the selection', async () => {
  const { context, page } = await startLocal(DESKTOP);
  // The same placements as above but Light keeps a move: Dark never places on d5 and f4.
  for (const a of actionsOf('a4 g1 a7 b4 b2 c4 d1 c5 d2 d7 d3xg1 g1 e4 e3 e5 f2 f6 g4')) await clickAction(page, a);
  assert.equal(await statusText(page), 'Light: pick a piece to move');
  let board = await readBoard(page);
  assert.ok(board.canSelect.includes('a4'), JSON.stringify(board.canSelect));
  await point(page, 'a4').click();
  board = await readBoard(page);
  assert.deepEqual(board.selected, ['a4']);
  assert.deepEqual(board.target, ['a1']);
  assert.equal(await statusText(page), 'Light: move to a highlighted point');
  await shot(page, 'local-04-selected-desktop');
  const other = board.canSelect.find((p) => p !== 'a4');
  await point(page, other).click();
  assert.deepEqual((await readBoard(page)).selected, [other]);
  await point(page, 'a4').click();
  await point(page, 'a1').click();
  board = await readBoard(page);
  assert.equal(board.pieces.a1, 'light');
  assert.equal(board.pieces.a4, undefined);
  assert.deepEqual(board.lastFrom, ['a4']);
  assert.equal(await statusText(page), 'Dark: pick a piece to move');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('reload restores the game; undo and new game work', async () => {
  const { context, page } = await startLocal();
  for (const a of ['a1', 'b2', 'd1', 'd2', 'g1']) await clickAction(page, a);
  assert.match(await statusText(page), /remove a Dark piece/);
  await page.reload();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  let board = await readBoard(page);
  assert.deepEqual(board.pieces, { a1: 'light', b2: 'dark', d1: 'light', d2: 'dark', g1: 'light' });
  assert.deepEqual(board.canRemove.sort(), ['b2', 'd2']);
  await clickAction(page, 'xd2');
  assert.equal(await statusText(page), 'Dark: place a piece');
  assert.equal(await point(page, 'd2').getAttribute('aria-label'), 'd2, empty, can place, last move');
  await shot(page, 'local-07-after-removal-phone');

  await page.locator('#undo').click();
  board = await readBoard(page);
  assert.equal(board.pieces.d2, 'dark');
  assert.deepEqual(board.canRemove.sort(), ['b2', 'd2']);
  await page.locator('#undo').click();
  assert.equal((await readBoard(page)).pieces.g1, undefined);

  // Back at the start screen, "Same device" offers to continue; it resumes the game.
  await page.locator('#menu').click();
  assert.equal(await page.locator('#start-local-hint').innerText(), 'Continue the saved game');
  await page.locator('#start-local').click();
  assert.equal((await readBoard(page)).pieces.a1, 'light');

  await page.locator('#new-game').click();
  await page.locator('#confirm-new-ok').click();
  await boardEmptied(page);
  assert.deepEqual((await readBoard(page)).pieces, {});
  assert.equal(await page.locator('#undo').isDisabled(), true);
  await page.reload();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  assert.deepEqual((await readBoard(page)).pieces, {});
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('New game during a game asks first (keyboard-friendly); an empty or finished game starts over at once', async () => {
  const { context, page } = await startLocal(DESKTOP);
  // An empty game: nothing to lose, nothing asked.
  await page.locator('#new-game').click();
  assert.equal(await confirmOpen(page), false);

  for (const a of ['a1', 'b2', 'd1']) await clickAction(page, a);
  await page.locator('#new-game').click();
  const dialog = page.getByRole('dialog', { name: 'Start a new game?' });
  await dialog.waitFor();
  assert.equal(await page.locator('#confirm-new-text').innerText(), 'The game in progress will be lost.');
  // The safe answer has the focus; Escape keeps the game.
  assert.equal(await page.evaluate(() => document.activeElement.id), 'confirm-new-keep');
  await shot(page, 'local-11-confirm-new-desktop');
  assert.deepEqual(await axeSerious(page), [], 'the dialog');
  await page.keyboard.press('Escape');
  assert.equal(await confirmOpen(page), false);
  assert.equal(Object.keys((await readBoard(page)).pieces).length, 3);
  // "Keep playing" by Enter keeps it too, and the focus goes back to the button.
  await page.locator('#new-game').click();
  await dialog.waitFor();
  await page.keyboard.press('Enter');
  assert.equal(await confirmOpen(page), false);
  assert.equal(Object.keys((await readBoard(page)).pieces).length, 3);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'new-game');
  // Tab to "Start over" and Enter: a new game.
  await page.keyboard.press('Enter');
  await dialog.waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'confirm-new-ok');
  await page.keyboard.press('Enter');
  await boardEmptied(page);
  assert.deepEqual((await readBoard(page)).pieces, {});
  assert.equal(await page.locator('#record li').count(), 0);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('New game after a finished game does not ask; the question is in Russian too', async () => {
  // A saved game that Light has just won: g4-g1 closes a1 d1 g1 and takes Dark's third piece.
  const start = 'L../D../.D./....DL/.../.../LL. l 0 0 0 0';
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'ru-RU' });
  await preloadStorage(context, { 'mill.game.local': JSON.stringify({ start, actions: ['g4-g1', 'xb6'] }) });
  const page = await openPage(context, `${env.server.url}/#local`);
  await page.locator('#result').waitFor();
  // The game began at a position of its own: it restarts there, without asking either.
  await page.locator('#restart-import').click();
  assert.equal(await confirmOpen(page), false);
  assert.equal(await page.locator('#result').isVisible(), false);
  assert.equal(await page.locator('#record li').count(), 0);

  await clickAction(page, 'g4-g1');
  await page.locator('#new-game').click();
  const dialog = page.getByRole('dialog', { name: 'Начать новую партию?' });
  await dialog.waitFor();
  assert.equal(await page.locator('#confirm-new-text').innerText(), 'Текущая партия будет потеряна.');
  assert.equal(await page.locator('#confirm-new-ok').innerText(), 'Начать заново');
  await shot(page, 'local-12-confirm-new-russian-phone');
  // A click on the dimmed backdrop is a "no".
  await page.mouse.click(5, 5);
  assert.equal(await confirmOpen(page), false);
  assert.equal((await readBoard(page)).pieces.g1, 'light');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('with storage unavailable the page still plays and says games are not kept', async () => {
  const context = await env.browser.newContext({ viewport: PHONE });
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException('blocked', 'SecurityError');
      },
    });
  });
  const page = await openPage(context, `${env.server.url}/`);
  assert.match(await page.locator('#notice').innerText(), /does not keep games/);
  await page.locator('#start-local').click();
  await clickAction(page, 'd6');
  assert.equal((await readBoard(page)).pieces.d6, 'light');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Russian from the browser language, and the switch back to English', async () => {
  const { context, page } = await startLocal(PHONE, 'ru-RU');
  assert.equal(await statusText(page), 'Светлые: поставьте фишку');
  assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
  assert.equal(await point(page, 'd6').getAttribute('aria-label'), 'd6, пусто, можно поставить');
  await shot(page, 'local-05-russian-phone');
  await page.locator('#lang').click();
  assert.equal(await statusText(page), 'Light: place a piece');
  await page.reload();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  assert.equal(await statusText(page), 'Light: place a piece');
  await context.close();
});

test('touch: taps place pieces on a phone', async () => {
  const context = await env.browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#start-local').tap();
  await point(page, 'd6').tap();
  await point(page, 'a1').tap();
  const board = await readBoard(page);
  assert.deepEqual(board.pieces, { d6: 'light', a1: 'dark' });
  assert.deepEqual(board.lastTo, ['a1']);
  await shot(page, 'local-06-touch-phone');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('when the WebAssembly cannot load, the start screen says so instead of a broken board', async () => {
  const context = await env.browser.newContext({ viewport: PHONE });
  await context.route('**/pkg/mill_board_bg.wasm', (route) => route.abort());
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#start-local').click();
  await page.locator('#notice').waitFor();
  assert.match(await page.locator('#notice').innerText(), /could not start/);
  assert.equal(await page.locator('#start').isVisible(), true);
  assert.equal(await page.locator('#board-host [data-point]').count(), 0);
  await context.close();
});

test('on a phone, playing does not scroll the page away from the board', async () => {
  const { context, page } = await startLocal(PHONE);
  for (const a of actionsOf('b2 b4 d3 c3 e3 c5 e4 d2 e5xb4 b4 d5 d6')) await clickAction(page, a);
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  await context.close();
});

test('flying: a side with three pieces may go to any free point', async () => {
  // A saved game that starts from a position where Light has three pieces left.
  const start = 'LDL/.D./.../.D..D./.../L../... l 0 0 0 0';
  const context = await env.browser.newContext({ viewport: PHONE });
  await context.addInitScript((start) => {
    if (!localStorage.getItem('mill.game.local')) {
      localStorage.setItem('mill.game.local', JSON.stringify({ start, actions: [] }));
    }
  }, start);
  const page = await openPage(context, `${env.server.url}/#local`);
  await page.locator('#board-host [data-point="a1"]').waitFor();
  assert.equal(await statusText(page), 'Light is flying: pick any own piece');
  assert.match(await page.locator('.card[data-side="light"] .phase').innerText(), /flying/);
  await point(page, 'a7').click();
  const board = await readBoard(page);
  assert.equal(board.target.length, 24 - 7, 'every free point is offered');
  assert.equal(await statusText(page), 'Light is flying: pick any free point');
  await shot(page, 'local-08-flying-phone');
  await point(page, 'e3').click();
  assert.equal((await readBoard(page)).pieces.e3, 'light');
  assert.equal(await statusText(page), 'Dark: pick a piece to move');
  assert.deepEqual(page.errors, []);
  await context.close();
});
