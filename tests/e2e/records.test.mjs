// Records in and out on the game page, in a real browser: Copy record, then Import it into
// a new game gives the same game; Copy MFEN and back; Copy MIF game (MSTATE) and back; a malformed record is refused with
// the turn named and changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionsOf, axeSerious, clickAction, openPage, PHONE, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: false });

const GAME = 'a1 b2 d1 d2 g1xd2 f4';

async function startLocal() {
  const context = await env.browser.newContext({
    viewport: PHONE,
    locale: 'en-US',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  return { context, page };
}

const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());
const moves = (page) => page.locator('#record').innerText();

async function newGame(page) {
  await page.locator('#new-game').click();
  await page.locator('#confirm-new-ok').click();
  await page.waitForFunction(() => !document.querySelector('#board-host .has-piece'));
}

async function importText(page, text) {
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill(text);
  await page.locator('#import-load').click();
}

test('a copied record imported into a new game is the same game', async () => {
  const { context, page } = await startLocal();
  for (const action of actionsOf(GAME)) await clickAction(page, action);
  const before = await readBoard(page);
  const movesBefore = await moves(page);

  await page.locator('#copy-record').click();
  await page.locator('#record-copied', { hasText: 'The record is copied.' }).waitFor();
  const record = await clipboard(page);
  assert.match(record, /^\[Variant "nine"\]\n\[Date "\d{4}\.\d{2}\.\d{2}"\]\n/);
  assert.match(record, /\n1\. a1 b2 2\. d1 d2 3\. g1xd2 f4 \*\n$/);

  await newGame(page);
  assert.equal(await page.locator('#record li').count(), 0);
  await importText(page, record);
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.deepEqual((await readBoard(page)).pieces, before.pieces);
  assert.equal(await moves(page), movesBefore);
  assert.equal(await page.locator('#record-copied').innerText(), 'The game is loaded.');

  // The imported game is the saved game: a reload keeps it.
  await page.reload();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  assert.deepEqual((await readBoard(page)).pieces, before.pieces);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a record of another variant brings its own board, and a reload keeps it', async () => {
  const { context, page } = await startLocal();
  await importText(page, '[Variant "six"]\n\n1. a1 b2 2. d1');
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.equal(await page.locator('#board-host [data-point]').count(), 16);
  assert.deepEqual((await readBoard(page)).pieces, { a1: 'light', b2: 'dark', d1: 'light' });
  await page.reload();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  assert.equal(await page.locator('#board-host [data-point]').count(), 16);
  assert.deepEqual((await readBoard(page)).pieces, { a1: 'light', b2: 'dark', d1: 'light' });
  await page.locator('#copy-record').click();
  await page.locator('#record-copied', { hasText: 'The record is copied.' }).waitFor();
  assert.match(await clipboard(page), /^\[Variant "six"\]\n/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a malformed record names the turn and changes nothing', async () => {
  const { context, page } = await startLocal();
  for (const action of actionsOf('a1 b2')) await clickAction(page, action);
  const before = await readBoard(page);
  await importText(page, '1. a1 b2 2. d1 d1');
  const error = page.locator('#import-error');
  // The words come once the record formats have loaded (they load on first use).
  await page.locator('#import-error', { hasText: /\S/ }).waitFor();
  assert.equal(await error.innerText(), 'Nothing was loaded: turn 4: that point is already taken.');
  assert.equal(await page.evaluate(() => document.getElementById('import-dialog').open), true);
  await shot(page, 'records-01-import-error-phone');
  assert.deepEqual(await axeSerious(page), [], 'import dialog with an error');
  await page.locator('#import-cancel').click();
  assert.deepEqual((await readBoard(page)).pieces, before.pieces);
  assert.equal(await page.locator('#record li').count(), 1);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('MIF game round trip: copy the game as MSTATE, import it into a new game', async () => {
  const { context, page } = await startLocal();
  for (const action of actionsOf(GAME)) await clickAction(page, action);
  const before = await readBoard(page);
  const movesBefore = await moves(page);
  await page.locator('#copy-mstate').click();
  await page.locator('#record-copied', { hasText: 'MSTATE' }).waitFor();
  const text = await clipboard(page);
  const doc = JSON.parse(text);
  assert.equal(doc.format, 'MSTATE/1.0');
  assert.equal(doc.ruleset.manifest.id, 'x-mill-nine');
  assert.equal(doc.events.length, 7, 'six placements and a removal');
  assert.equal(doc.current, 'MFEN/1.0 mill24-state-v1 ....WWW./...B..B./........ w p p 6,6 - 0 6 -');

  await newGame(page);
  await importText(page, text);
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.deepEqual((await readBoard(page)).pieces, before.pieces);
  assert.equal(await moves(page), movesBefore);
  // A tampered checkpoint is refused (MIF's checkpoint-mismatch, said in words) and changes nothing.
  await importText(page, text.replace(' 0 6 -"', ' 0 7 -"'));
  await page.locator('#import-error', { hasText: 'contradicts itself' }).waitFor();
  await page.locator('#import-cancel').click();
  assert.deepEqual((await readBoard(page)).pieces, before.pieces);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('MFEN round trip: copy the position, import it into a new game', async () => {
  const { context, page } = await startLocal();
  for (const action of actionsOf('a1 b2 d1 d2 g1')) await clickAction(page, action);
  const before = await readBoard(page);
  assert.deepEqual(before.canRemove.sort(), ['b2', 'd2']);
  await page.locator('#copy-mfen').click();
  await page.locator('#record-copied', { hasText: 'MFEN' }).waitFor();
  const mfen = await clipboard(page);
  assert.equal(mfen, 'MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 w:mill:b:b:1:006000:b 0 5 -');

  await newGame(page);
  await importText(page, mfen);
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  const after = await readBoard(page);
  assert.deepEqual(after.pieces, before.pieces);
  // The removal is still owed, with the same choice.
  assert.deepEqual(after.canRemove.sort(), ['b2', 'd2']);
  // A position string works too, and bad MFEN is refused with its reason.
  await importText(page, 'MFEN/1.0 mill24-state-v1 ......../......../........ w m m 9,9 - 0 0 -');
  await page.locator('#import-error', { hasText: 'Nothing was loaded' }).waitFor();
  await page.locator('#import-text').fill('.../.../.../....../.../D../LLL d 6 7 0 0');
  await page.locator('#import-load').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.deepEqual(Object.keys((await readBoard(page)).pieces).sort(), ['a1', 'b2', 'd1', 'g1']);
  assert.deepEqual(page.errors, []);
  await context.close();
});

/** Vs computer on a fresh page, with a fixed random sequence so the computer's choices repeat. */
async function startComputerMode({ locale = 'en-US', colorScheme = 'dark' } = {}) {
  const context = await env.browser.newContext({ viewport: PHONE, locale, colorScheme });
  await context.addInitScript(() => {
    let x = 0x2545f491;
    crypto.getRandomValues = (array) => {
      for (let i = 0; i < array.length; i++) {
        x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
        array[i] = x >>> 0;
      }
      return array;
    };
  });
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#start-computer').click();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  await page.waitForFunction(() => document.querySelector('#status')?.dataset.tone !== 'wait');
  return { context, page };
}

const computerDone = (page) =>
  page.waitForFunction(() => document.querySelector('#status')?.dataset.tone !== 'wait', null, { timeout: 20_000 });

// A moving-phase position, Light to move, seven pieces each (the README's example).
const ENDGAME = 'L.D/.L./D.L/LD..DL/L.D/.D./L.D l 0 0 0 0';

test('vs computer, an imported position is played on: the person takes Dark and the computer moves Light from it', async () => {
  const { context, page } = await startComputerMode();
  await page.locator('#import-record').click();
  // Records' code loads on the first click (later.js), then the dialog opens.
  await page.waitForFunction(() => document.getElementById('import-dialog').open);
  // The side choice belongs to this mode; MFEN's rule choice shows only for MFEN.
  assert.equal(await page.locator('#import-side').isVisible(), true);
  assert.equal(await page.locator('#import-side input[value="to-move"]').isChecked(), true);
  await page.locator('#import-text').fill(ENDGAME);
  assert.equal(await page.locator('#import-mfen').isVisible(), false);
  await page.locator('#import-side label', { hasText: 'Dark' }).click();
  assert.deepEqual(await axeSerious(page), [], 'import dialog vs computer, English, dark theme');
  await shot(page, 'records-03-import-vs-computer-dark-phone');
  await page.locator('#import-load').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  // The computer's code loads on first use: its turn is in the record once it has played.
  await page.locator('#record li').first().waitFor();
  await computerDone(page);

  // The computer (Light) moved one piece of the position; now it is Dark's, the person's, turn.
  const board = await readBoard(page);
  const lights = Object.entries(board.pieces).filter(([, s]) => s === 'light').map(([p]) => p);
  const before = ['a7', 'd6', 'e5', 'a4', 'g4', 'c3', 'a1'];
  assert.equal(lights.filter((p) => !before.includes(p)).length, 1, `one Light piece moved: ${lights}`);
  assert.equal(await page.locator('#record li').count(), 1);
  assert.equal(await page.locator('#status').innerText(), 'Your turn: pick a piece to move');
  assert.equal(await page.locator('input[name="computer-side"][value="dark"]').isChecked(), true);
  assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('mill.computer.settings'))).human, 'dark');
  // A reload opens the same game, the person still Dark.
  await page.reload();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  assert.deepEqual((await readBoard(page)).pieces, board.pieces);
  assert.equal(await page.locator('#status').innerText(), 'Your turn: pick a piece to move');
  assert.deepEqual(page.errors, []);
  await context.close();
});

const TWELVE_MFEN = 'MFEN/1.0 mill24-state-v1 W......./......../........ b p p 11,12 - 0 1 -';

test('MFEN of Twelve: the dialog says it fits Twelve, and read as Twelve the person plays the side to move', async () => {
  const { context, page } = await startComputerMode({ locale: 'ru-RU', colorScheme: 'light' });
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill(TWELVE_MFEN);
  await page.locator('#import-mfen').waitFor();
  // Offered: the game's rules (Nine) first, then Twelve; Three and Six are explained, not offered.
  const offered = await page.locator('#import-rules option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(offered, ['nine', 'twelve']);
  assert.match(await page.locator('#import-mfen .import-note').innerText(), /только доску на 24 точки/);
  await page.locator('#import-load').click();
  const error = page.locator('#import-error');
  await page.locator('#import-error', { hasText: /\S/ }).waitFor();
  assert.match(await error.innerText(), /^Ничего не загружено: [^A-Za-z]+ Это читается как Мельница на 12 фишек: выберите это выше\.$/);
  await shot(page, 'records-02-mfen-fits-twelve-ru-light-phone');
  assert.deepEqual(await axeSerious(page), [], 'import dialog, MFEN refused, Russian, light theme');

  await page.locator('#import-rules').selectOption('twelve');
  await page.locator('#import-load').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.match(await page.locator('#game-rules').innerText(), /12 фишек/);
  // Dark is to move in the record, and the person plays it: the computer waits.
  assert.equal(await page.locator('input[name="computer-side"][value="dark"]').isChecked(), true);
  assert.deepEqual((await readBoard(page)).pieces, { a7: 'light' });
  assert.equal(await page.locator('#status').innerText(), 'Ваш ход: поставьте фишку');
  await clickAction(page, 'd6');
  await computerDone(page);
  assert.equal(Object.values((await readBoard(page)).pieces).filter((s) => s === 'light').length, 2, 'the computer answered');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('on a Six game, MFEN is read as Nine or Twelve, and Copy MFEN says why Six has none', async () => {
  const { context, page } = await startLocal();
  await importText(page, '[Variant "six"]\n\n1. a1');
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  // Six's board has no MFEN: no button that could only fail.
  await page.locator('#copy-record').waitFor();
  assert.equal(await page.locator('#copy-mfen').isVisible(), false);
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill('MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -');
  assert.deepEqual(await page.locator('#import-rules option').evaluateAll((os) => os.map((o) => o.value)), ['nine', 'twelve']);
  assert.equal(await page.locator('#import-side').isVisible(), false, 'no side to choose on the same device');
  assert.deepEqual(await axeSerious(page), [], 'import dialog with the MFEN rule choice, English, light theme');
  await page.locator('#import-load').click();
  // The Six game has a turn played: Import asks before replacing it.
  await page.locator('#confirm-new-ok').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.equal(await page.locator('#board-host [data-point]').count(), 24);
  assert.match(await page.locator('#game-rules').innerText(), /Nine/);
  assert.deepEqual(page.errors, []);
  await context.close();
});
