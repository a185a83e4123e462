// The page's rough edges as people meet them, one test each, in a real browser against a
// real mill-server: review's move list following the position and stepping by turns, the
// same analysis twice, New game after an import, Import asking before it replaces a game,
// result lines for each seat and a spectator in both languages, a Russian import error
// with no English in it, the focus after "Review the game", no console error for a
// spectator, the first turn sound, and the round and score line.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { snapshotFromView } from '../../static/js/board.js';
import { loadWasm } from '../unit/helpers.mjs';
import { actionsOf, clickAction, DESKTOP, openPage, PHONE, readBoard, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const waitStatus = (page, text) =>
  page.waitForFunction((want) => document.getElementById('status')?.textContent === want, text);

async function open(path = '/', { viewport = DESKTOP, locale = 'en-US', permissions = [] } = {}) {
  const context = await env.browser.newContext({ viewport, locale, permissions });
  const page = await openPage(context, `${env.server.url}${path}`);
  return { context, page };
}

async function importText(page, text) {
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill(text);
  await page.locator('#import-load').click();
}

/**
 * A game of `turns` turns through the real rules (the first legal action each time), as a
 * text record, with the index of a turn that removed a piece.
 */
async function longRecord(turns) {
  const mod = await loadWasm();
  // A small fixed generator: the same game every run; seeds are tried until one lasts.
  for (let seed = 1; seed < 200; seed += 1) {
    let x = seed;
    const pick = (n) => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (x >>> 8) % n;
    };
    const game = new mod.WasmGame();
    let snap = snapshotFromView(JSON.parse(game.snapshot()));
    while (!snap.outcome && !(snap.record.length >= turns && snap.pendingRemovals === 0)) {
      let action;
      if (snap.pendingRemovals > 0) action = `x${snap.removable[pick(snap.removable.length)]}`;
      else if (snap.phase[snap.turn] === 'placing') action = snap.selectable[pick(snap.selectable.length)];
      else {
        const froms = Object.keys(snap.destinations);
        const from = froms[pick(froms.length)];
        action = `${from}-${snap.destinations[from][pick(snap.destinations[from].length)]}`;
      }
      assert.equal(JSON.parse(game.play(action)).ok, true, action);
      snap = snapshotFromView(JSON.parse(game.snapshot()));
    }
    if (snap.outcome || !snap.record.some((turn) => turn.includes('x'))) continue;
    const reply = JSON.parse(game.record_text('{}'));
    assert.equal(reply.ok, true);
    return { text: reply.text, record: snap.record };
  }
  throw new Error('no seed gave a long enough game');
}

test('1. review: the move list follows the position shown, and ←/→ step by whole turns', async () => {
  const { text, record } = await longRecord(36);
  const removal = record.findIndex((turn) => turn.includes('x'));
  assert.ok(removal > 0, `the game has a removal: ${record.join(' ')}`);
  const { context, page } = await open('/');
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point]').first().waitFor();
  await importText(page, text);
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  await page.locator('#review-open').click();
  await waitStatus(page, `Review · turn ${record.length} / ${record.length}`);
  /** The current turn's button lies inside the list's visible box. */
  const currentInView = () =>
    page.evaluate(() => {
      const list = document.getElementById('record').getBoundingClientRect();
      const on = document.querySelector('#record [aria-current]');
      if (!on) return 'none';
      const r = on.getBoundingClientRect();
      return r.top >= list.top - 1 && r.bottom <= list.bottom + 1 ? on.firstChild.textContent : `off: ${r.top}..${r.bottom} in ${list.top}..${list.bottom}`;
    });
  assert.equal(await currentInView(), record.at(-1));
  assert.ok(await page.evaluate(() => document.getElementById('record').scrollTop > 0), 'the list starts at its end');
  await page.keyboard.press('Home');
  await waitStatus(page, `Review · turn 0 / ${record.length}`);
  await page.keyboard.press('ArrowRight');
  await waitStatus(page, `Review · turn 1 / ${record.length}`);
  assert.equal(await currentInView(), record[0], 'the first turn is highlighted and in view');
  // Step by step to the turn with a removal: one press takes it whole.
  for (let k = 1; k < removal; k += 1) await page.keyboard.press('ArrowRight');
  await waitStatus(page, `Review · turn ${removal} / ${record.length}`);
  await page.keyboard.press('ArrowRight');
  await waitStatus(page, `Review · turn ${removal + 1} / ${record.length}`);
  assert.equal(await currentInView(), record[removal]);
  assert.equal(await page.evaluate(() => document.querySelectorAll('#board-host .can-remove').length), 0, 'no removal left pending');
  // The turn counter's total is the turns of the record, not its actions.
  for (let k = 0; k < 12; k += 1) await page.keyboard.press('ArrowRight');
  assert.equal(await currentInView(), record[removal + 12]);
  assert.deepEqual(page.errors, []);
  await context.close();
});

// Three a side, both out of hand, Light to move.
const POSITION = '.L./..D/.../.....L/.D./D../L.. l 0 0 0 0';
const IMPORTED = { d7: 'light', f6: 'dark', g4: 'light', d3: 'dark', b2: 'dark', a1: 'light' };

test('3. New game after an import is the rule set’s start; the imported position has its own restart', async () => {
  for (const mode of ['local', 'computer']) {
    const { context, page } = await open('/');
    await page.locator(`#start-${mode}`).click();
    await page.locator('#board-host [data-point]').first().waitFor();
    assert.equal(await page.locator('#restart-import').isVisible(), false, `${mode}: nothing imported yet`);
    await importText(page, POSITION);
    await page.waitForFunction(() => !document.getElementById('import-dialog').open);
    assert.deepEqual((await readBoard(page)).pieces, IMPORTED, mode);
    // A turn from the imported position, then back to it.
    await clickAction(page, 'a1-d1');
    await page.locator('#restart-import').click();
    await page.locator('#confirm-new-ok').click();
    await page.waitForFunction(() => document.querySelector('#board-host [data-point="a1"]')?.classList.contains('light'));
    assert.deepEqual((await readBoard(page)).pieces, IMPORTED, `${mode}: restarted at the imported position`);
    // New game: the empty board of Nine Men's Morris, nine in hand each.
    await page.locator('#new-game').click();
    await page.waitForFunction(() => !document.querySelector('#board-host [data-point].light, #board-host [data-point].dark'));
    assert.deepEqual((await readBoard(page)).pieces, {}, `${mode}: New game starts from the empty board`);
    assert.equal(await page.locator('.card[data-side="light"] .in-hand b').innerText(), '9');
    assert.equal(await page.locator('#restart-import').isVisible(), false, `${mode}: nothing imported any more`);
    // And it stays so: the saved game is the new one.
    await page.reload();
    await page.locator('#board-host [data-point]').first().waitFor();
    assert.deepEqual((await readBoard(page)).pieces, {}, `${mode}: after a reload`);
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

test('4. Import asks before it replaces a game in progress; a text that does not load is not asked about', async () => {
  const { context, page } = await open('/', { viewport: PHONE });
  await page.locator('#start-local').click();
  for (const a of ['d6', 'a1']) await clickAction(page, a);
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill('1. a1 a1');
  await page.locator('#import-load').click();
  await page.locator('#import-error').filter({ hasText: /\S/ }).waitFor();
  assert.equal(await page.locator('#confirm-new').isVisible(), false, 'no question about a text that does not load');
  await page.locator('#import-text').fill(POSITION);
  await page.locator('#import-load').click();
  await page.locator('#confirm-new').waitFor();
  assert.equal(await page.locator('#confirm-new-text').innerText(), 'Loading this game replaces the game in progress, which will be lost.');
  await page.locator('#confirm-new-keep').click();
  assert.deepEqual((await readBoard(page)).pieces, { d6: 'light', a1: 'dark' }, 'kept');
  assert.equal(await page.locator('#import-dialog').isVisible(), true, 'the import stays open');
  await page.locator('#import-load').click();
  await page.locator('#confirm-new-ok').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.deepEqual((await readBoard(page)).pieces, IMPORTED);
  // A finished or empty game is replaced without a question.
  await page.locator('#new-game').click();
  await page.waitForFunction(() => !document.querySelector('#board-host [data-point].light, #board-host [data-point].dark'));
  await importText(page, POSITION);
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.equal(await page.locator('#confirm-new').isVisible(), false);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('2. review: the same game judged twice says the same, and says how deep it looked', async () => {
  const { context, page } = await open('/');
  await page.locator('#start-local').click();
  for (const a of actionsOf('a1 g7 a4 g1 d6 g4xa1 d1')) await clickAction(page, a);
  /** Everything the analysis says, position by position. */
  const judgement = async () => {
    await page.locator('#review-open').click();
    await page.waitForFunction(() => document.getElementById('analysis-progress')?.textContent === 'All 8 positions judged', null, { timeout: 60_000 });
    const said = [await page.locator('#analysis-budget').innerText(), await page.locator('#eval-graph .graph-line').getAttribute('points')];
    await page.keyboard.press('Home');
    for (let k = 0; k <= 7; k += 1) {
      await waitStatus(page, `Review · turn ${k} / 7`);
      said.push(`${k}: ${await page.locator('#analysis-eval').innerText()} | ${await page.locator('#analysis-mark').innerText()}`);
      await page.keyboard.press('ArrowRight');
    }
    await page.locator('#review-back').click();
    await page.locator('#local-controls').waitFor();
    return said;
  };
  const first = await judgement();
  assert.match(first[0], /^Each position: 300,000 nodes, the same every time; depth \d+–\d+$/);
  assert.ok(first.some((line) => /Better: /.test(line)), `d6 is marked with a better turn: ${first.join('\n')}`);
  assert.deepEqual(await judgement(), first);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('7. the focus follows "Review the game" and "Back to the game"; rule options are big enough targets', async () => {
  const { context, page } = await open('/', { viewport: PHONE });
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName.toLowerCase());
  // The protection checkbox: at least 24 × 24 px (WCAG 2.2 target size).
  await page.locator('#rule-options summary').click();
  const box = await page.locator('#opt-protect').boundingBox();
  assert.ok(box.width >= 24 && box.height >= 24, JSON.stringify(box));
  await page.locator('#start-local').click();
  for (const a of ['d6', 'a1']) await clickAction(page, a);
  await page.locator('#review-open').focus();
  await page.keyboard.press('Enter');
  await waitStatus(page, 'Review · turn 2 / 2');
  assert.equal(await focused(), 'review-prev');
  await page.keyboard.press('Enter');
  await waitStatus(page, 'Review · turn 1 / 2');
  await page.locator('#review-back').focus();
  await page.keyboard.press('Enter');
  await page.locator('#local-controls').waitFor();
  assert.equal(await focused(), 'review-open');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('8. the start screen’s three modes fit the screen; vs computer opens at the top and says “Your turn”', async () => {
  for (const [viewport, locale] of [
    [DESKTOP, 'en-US'],
    [DESKTOP, 'ru-RU'],
    [PHONE, 'en-US'],
    [PHONE, 'ru-RU'],
  ]) {
    const { context, page } = await open('/', { viewport, locale });
    await page.locator('#start-computer').waitFor();
    const bottom = await page.evaluate(() => document.getElementById('start-computer').getBoundingClientRect().bottom);
    assert.ok(bottom <= viewport.height, `${locale} ${viewport.width}: the third mode ends at ${bottom}px of ${viewport.height}`);
    // Even from a start screen scrolled down, the game opens with its header in view.
    await page.evaluate(() => window.scrollTo(0, 40));
    await page.locator('#start-computer').click();
    await page.locator('#board-host [data-point]').first().waitFor();
    await page.waitForFunction(() => document.querySelector('#status').dataset.tone === 'act');
    assert.equal(await page.evaluate(() => window.scrollY), 0, `${locale} ${viewport.width}`);
    assert.equal(await page.locator('#status').innerText(), locale === 'en-US' ? 'Your turn: place a piece' : 'Ваш ход: поставьте фишку');
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

test('6. a Russian import error has no English in it and names the turn; Copy MFEN only where the board has MFEN', async () => {
  const { context, page } = await open('/', { locale: 'ru-RU', viewport: PHONE });
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point]').first().waitFor();
  await importText(page, '1. a1 a1');
  const error = page.locator('#import-error');
  await error.filter({ hasText: /\S/ }).waitFor();
  assert.equal(await error.innerText(), 'Ничего не загружено: ход 2: эта точка уже занята.');
  for (const text of ['[Variant "nine"]\n[Date nope]\n\n1. a1', '1. a1 b2 2. d1 d2 3. g1', 'MFEN/1.0 mill24-state-v1 ......../......../........ w m m 9,9 - 0 0 -', 'LLL/.../... l 9 9 0 0']) {
    await page.locator('#import-text').fill(text);
    await page.evaluate(() => (document.getElementById('import-error').textContent = ''));
    await page.locator('#import-load').click();
    await page.waitForFunction(() => /Ничего не загружено/.test(document.getElementById('import-error').textContent));
    const words = (await error.innerText()).replace(/MFEN/g, '');
    assert.doesNotMatch(words, /[A-Za-z]|\[/, `no English and no code: ${words}`);
  }
  await page.locator('#import-cancel').click();
  assert.equal(await page.locator('#copy-mfen').isVisible(), true, 'Nine has MFEN');
  await importText(page, '[Variant "three"]\n\n1. a1');
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  assert.equal(await page.locator('#copy-mfen').isVisible(), false, 'Three has none');
  assert.deepEqual(page.errors, []);
  await context.close();
});
