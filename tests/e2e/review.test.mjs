// Review of any game with the engine's analysis, in a real browser: a same-device game and
// an imported record are opened by "Review the game", stepped through by the move list,
// the graph and ←/→/Home/End; the engine judges every position in its worker (the graph
// fills in, the turn that left a mill to the opponent is marked and its better turn shows
// on the board); "Back to the game" returns to play. axe on the review screen, both languages.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionsOf, axeSerious, clickAction, DESKTOP, openPage, PHONE, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: false });

// Light threatens a7 and Dark g4; Light's d6 does neither, and Dark closes g4 and takes a1.
const GAME = 'a1 g7 a4 g1 d6 g4xa1';

const waitStatus = (page, text) =>
  page.waitForFunction((want) => document.getElementById('status')?.textContent === want, text);

async function startLocal(viewport, colorScheme = 'light') {
  const context = await env.browser.newContext({ viewport, locale: 'en-US', colorScheme });
  const page = await openPage(context, `${env.server.url}/`);
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  return { context, page };
}

/** Waits until the engine has judged every position of the game under review. */
async function waitJudged(page, total) {
  await page.waitForFunction((n) => document.getElementById('analysis-progress')?.textContent === `All ${n} positions judged`, total, {
    timeout: 30_000,
  });
}

const graph = (page) =>
  page.evaluate(() => {
    const svg = document.getElementById('eval-graph');
    const line = svg.querySelector('.graph-line')?.getAttribute('points') ?? '';
    return {
      points: line ? line.split(' ').length : 0,
      marks: [...svg.querySelectorAll('.graph-mark')].map((c) => `${c.dataset.turn}:${c.getAttribute('class').split(' ')[1]}`),
      current: Number(svg.querySelector('.graph-current')?.getAttribute('x1')),
    };
  });

const turns = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('#record button.turn')].map((b) => ({
      text: b.firstChild.textContent,
      mark: b.dataset.mark ?? '',
      current: b.hasAttribute('aria-current'),
    })),
  );

const hint = (page) => page.evaluate(() => document.querySelector('#board-host .hints')?.dataset.hint ?? '');

test('a same-device game is reviewed: steps by the move list, keys and graph; marks and the better turn', async () => {
  const { context, page } = await startLocal(DESKTOP);
  assert.equal(await page.locator('#review-open').isVisible(), false, 'nothing to review before a turn');
  for (const action of actionsOf(GAME)) await clickAction(page, action);
  const played = await readBoard(page);
  await page.locator('#review-open').click();
  await waitStatus(page, 'Review · turn 6 / 6');
  assert.equal(await page.locator('#analysis').isVisible(), true);
  for (const id of ['#local-controls', '#import-record', '#review-open']) assert.equal(await page.locator(id).isVisible(), false, id);
  // The game reviewed can still be copied (records.js), not replaced.
  assert.equal(await page.locator('#copy-record').isVisible(), true);
  assert.deepEqual((await readBoard(page)).pieces, played.pieces);

  // Seven positions judged (the start and six turn ends; g4 waiting for its removal is not one).
  await waitJudged(page, 7);
  const g = await graph(page);
  assert.equal(g.points, 7);
  const list = await turns(page);
  assert.deepEqual(list.map((t) => t.text), ['a1', 'g7', 'a4', 'g1', 'd6', 'g4xa1']);
  assert.deepEqual(list.map((t) => t.current), [false, false, false, false, false, true]);
  const d6 = list[4];
  assert.match(d6.mark, /^(inaccuracy|mistake|blunder)$/, JSON.stringify(list));
  assert.ok(g.marks.includes(`5:${d6.mark}`), JSON.stringify(g));
  await shot(page, 'review-01-local-desktop');

  // The move list: a click on g1 shows the position after it.
  await page.locator('#record button.turn', { hasText: 'g1' }).click();
  await waitStatus(page, 'Review · turn 4 / 6');
  assert.deepEqual((await readBoard(page)).pieces, { a1: 'light', g7: 'dark', a4: 'light', g1: 'dark' });
  assert.ok((await graph(page)).current < g.current, 'the graph marks the turn shown');
  // → shows d6, the marked turn: its mark in words and the better turn on the board.
  await page.keyboard.press('ArrowRight');
  await waitStatus(page, 'Review · turn 5 / 6');
  const mark = await page.locator('#analysis-mark').innerText();
  assert.match(mark, /^Light d6: (inaccuracy|mistake|blunder)\. Better: (a7x\w\d|g4)$/);
  const better = mark.split('Better: ')[1];
  assert.equal(await hint(page), better.startsWith('a7x') ? `a7 ${better.slice(3)}` : 'g4');
  const glyph = { inaccuracy: '?!', mistake: '?', blunder: '??' }[d6.mark];
  assert.equal(await page.locator('#record button.turn[aria-current]').textContent(), `d6${glyph}, ${d6.mark}`, 'the glyph, and the mark in words');
  await shot(page, 'review-02-marked-turn-desktop');
  assert.deepEqual(await axeSerious(page), [], 'a marked turn, light theme');
  // → again: the whole of g4xa1, its removal included (a removal is no step of its own).
  await page.keyboard.press('ArrowRight');
  await waitStatus(page, 'Review · turn 6 / 6');
  assert.deepEqual((await readBoard(page)).pieces, played.pieces);
  await page.keyboard.press('ArrowLeft');
  await waitStatus(page, 'Review · turn 5 / 6');
  assert.equal((await readBoard(page)).pieces.a1, 'light', 'back before g4xa1 in one step');
  await page.keyboard.press('Home');
  await waitStatus(page, 'Review · turn 0 / 6');
  assert.deepEqual((await readBoard(page)).pieces, {});
  assert.match(await page.locator('#analysis-eval').innerText(), /^Evaluation [+−±]\d\.\d \(plus: Light is better\) · engine’s turn \w\d+ \(depth \d+\)$/);
  await page.keyboard.press('End');
  await waitStatus(page, 'Review · turn 6 / 6');
  // The graph: a click near its left end shows the first turn's position.
  const box = await page.locator('#eval-graph').boundingBox();
  await page.mouse.click(box.x + box.width / 6 + 2, box.y + box.height / 2);
  await waitStatus(page, 'Review · turn 1 / 6');
  assert.deepEqual((await readBoard(page)).pieces, { a1: 'light' });
  // Read-only: a click on the board plays nothing.
  await page.locator('#board-host [data-point="d2"]').click({ force: true });
  assert.deepEqual((await readBoard(page)).pieces, { a1: 'light' });

  assert.deepEqual(await axeSerious(page), [], 'review screen, English');
  await page.locator('#lang').click();
  await waitStatus(page, 'Просмотр · ход 1 / 6');
  assert.equal(await page.locator('#analysis-progress').innerText(), 'Оценены все позиции: 7');
  assert.deepEqual(await axeSerious(page), [], 'review screen, Russian');
  await page.locator('#lang').click();

  // Back to the game: the same game, playable again.
  await page.locator('#review-back').click();
  await page.locator('#local-controls').waitFor();
  assert.deepEqual((await readBoard(page)).pieces, played.pieces);
  assert.equal(await page.locator('#analysis').isVisible(), false);
  assert.equal(await hint(page), '');
  assert.equal(await page.locator('#record button').count(), 0, 'the move list is plain again');
  await clickAction(page, 'd1');
  assert.equal((await readBoard(page)).pieces.d1, 'light');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('an imported record is reviewed on a phone, the engine stopping when the review is left', async () => {
  const { context, page } = await startLocal(PHONE, 'dark');
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill('[Variant "nine"]\n\n1. a1 g7 2. a4 g1 3. d6 g4xa1 4. d1 d7 *\n');
  await page.locator('#import-load').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  await page.locator('#review-open').click();
  await waitStatus(page, 'Review · turn 8 / 8');
  await waitJudged(page, 9);
  const list = await turns(page);
  assert.deepEqual(list.map((t) => t.text), ['a1', 'g7', 'a4', 'g1', 'd6', 'g4xa1', 'd1', 'd7']);
  assert.notEqual(list[4].mark, '', 'd6 is marked');
  assert.equal((await graph(page)).points, 9);
  // Keys and the move list step through the positions.
  await page.keyboard.press('ArrowLeft');
  await waitStatus(page, 'Review · turn 7 / 8');
  await page.locator('#record button.turn', { hasText: 'd6' }).click();
  await waitStatus(page, 'Review · turn 5 / 8');
  assert.notEqual(await page.locator('#analysis-mark').innerText(), '');
  assert.deepEqual(await axeSerious(page), [], 'a marked turn, dark theme');
  await page.locator('#record button.turn', { hasText: 'a4' }).click();
  await waitStatus(page, 'Review · turn 3 / 8');
  assert.deepEqual((await readBoard(page)).pieces, { a1: 'light', g7: 'dark', a4: 'light' });
  await page.locator('#review-first').click();
  await waitStatus(page, 'Review · turn 0 / 8');
  await shot(page, 'review-03-imported-phone');
  assert.deepEqual(await axeSerious(page), []);

  // Leaving while the engine still works stops it: a fresh review, left at once.
  await page.locator('#review-back').click();
  await page.locator('#local-controls').waitFor();
  await page.locator('#review-open').click();
  await waitStatus(page, 'Review · turn 8 / 8');
  await page.locator('#review-back').click();
  await page.locator('#local-controls').waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.locator('#analysis').isVisible(), false);
  assert.equal(await page.locator('#status').innerText(), 'Light: place a piece');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('an ending of three pieces a side is judged by the endgame tablebase', async () => {
  const { context, page } = await startLocal(DESKTOP);
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill('.L./..D/.../.....L/.D./D../L.. l 0 0 0 0');
  await page.locator('#import-load').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  await clickAction(page, 'a1-a4');
  await page.locator('#review-open').click();
  await waitStatus(page, 'Review · turn 1 / 1');
  // The worker solves the three-a-side tables first: seconds, once.
  await waitJudged(page, 2);
  assert.match(await page.locator('#analysis-eval').innerText(), /^Tablebase: (a draw with best play|(Light|Dark) wins \(turns left: \d+\))( · engine’s turn \S+ \(depth \d+\))?$/);
  await page.keyboard.press('Home');
  await waitStatus(page, 'Review · turn 0 / 1');
  assert.match(await page.locator('#analysis-eval').innerText(), /^Tablebase: /);
  assert.deepEqual(page.errors, []);
  await context.close();
});
