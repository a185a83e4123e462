// The live diagram (static/js/live.js) that the rules page mounts: a board from a
// position string, in try-it or read-only mode. Mounted into the game page's document.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openPage, PHONE, point, readBoard, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: false });

// The rules guide's worked position: Light on a1 and d1, g1 empty, Dark on b6 and d2.
const WORKED = '.../D../.../....../.../.D./LL. l 7 7 0 0';

async function mount(page, position, mode) {
  return page.evaluate(
    async ([position, mode]) => {
      const { mountPosition } = await import('/js/live.js');
      const { translator } = await import('/js/i18n.js');
      document.querySelector('main').innerHTML = '<div id="board-host" style="max-width:420px"></div>';
      try {
        window.diagram = await mountPosition(document.getElementById('board-host'), { position, mode, t: translator('en') });
        return 'ok';
      } catch (e) {
        return String(e.message);
      }
    },
    [position, mode],
  );
}

test('try-it: the worked position asks for a removal after g1, offering only removable pieces', async () => {
  const context = await env.browser.newContext({ viewport: PHONE });
  const page = await openPage(context, `${env.server.url}/`);
  assert.equal(await mount(page, WORKED, 'try'), 'ok');
  let board = await readBoard(page);
  assert.deepEqual(board.pieces, { a1: 'light', d1: 'light', b6: 'dark', d2: 'dark' });
  assert.ok(board.canPlace.includes('g1'));
  await point(page, 'g1').click();
  board = await readBoard(page);
  assert.deepEqual(board.canRemove.sort(), ['b6', 'd2']);
  assert.deepEqual(board.canPlace, []);
  await shot(page, 'live-01-worked-position-phone');
  await point(page, 'd2').click();
  board = await readBoard(page);
  assert.equal(board.pieces.d2, undefined);
  assert.equal(await page.evaluate(() => window.diagram.snapshot().turn), 'dark');
  await page.evaluate(() => window.diagram.reset());
  assert.deepEqual((await readBoard(page)).pieces, { a1: 'light', d1: 'light', b6: 'dark', d2: 'dark' });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('read-only: pieces are shown and nothing can be clicked; a bad position string is refused', async () => {
  const context = await env.browser.newContext({ viewport: PHONE });
  const page = await openPage(context, `${env.server.url}/`);
  assert.equal(await mount(page, WORKED, 'readonly'), 'ok');
  const board = await readBoard(page);
  assert.deepEqual(board.canPlace, []);
  await point(page, 'g1').click({ force: true });
  assert.equal((await readBoard(page)).pieces.g1, undefined);
  assert.match(await mount(page, 'LLL/ nonsense', 'try'), /^bad-position: /);
  await context.close();
});
