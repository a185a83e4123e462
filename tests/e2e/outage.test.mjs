// Online play while the server is down: the board is visibly inactive, presence is
// "unknown", a click says why nothing happens, and play resumes by itself once the server
// is back. The server is killed outright (SIGKILL), as a crash would.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';

import { clickAction, launch, openPage, PHONE, point, readBoard, shot, startMillServer } from './helpers.mjs';

const waitStatus = (page, text) => page.waitForFunction((text) => document.getElementById('status')?.textContent === text, text);
const presences = (page) => page.locator('.card .presence').allInnerTexts();

test('killed server: the board waits and says why; play resumes by itself when it is back', async () => {
  const server = await startMillServer();
  const addr = server.url.replace('http://', '');
  const browser = await launch();
  let again = null;
  try {
    const lightContext = await browser.newContext({ viewport: PHONE });
    const light = await openPage(lightContext, `${server.url}/`);
    await light.locator('#start-friend').click();
    await light.waitForURL(/\/r\/[a-z0-9]+$/);
    const dark = await openPage(await browser.newContext({ viewport: PHONE }), light.url());
    await waitStatus(light, 'Your turn: place a piece');
    assert.deepEqual(await presences(light), ['online', 'online']);
    assert.ok((await readBoard(light)).canPlace.length > 0);

    await server.kill();
    await waitStatus(light, 'Connection lost. Reconnecting…');
    await light.waitForFunction(() => document.body.dataset.offline === 'true');
    assert.deepEqual(await presences(light), ['unknown', 'unknown'], 'presence from before the outage is not news');
    assert.deepEqual((await readBoard(light)).canPlace, [], 'no rings on a board that cannot play');
    const filter = await light.evaluate(() => getComputedStyle(document.querySelector('#board-host .board')).filter);
    assert.match(filter, /grayscale/, 'the board looks inactive');
    await point(light, 'd6').click({ force: true }); // aria-disabled: Playwright would wait for it to be enabled
    await light.locator('#notice').waitFor();
    assert.equal(await light.locator('#notice').innerText(), 'No connection to the server: the game goes on once it is back.');
    assert.equal((await readBoard(light)).pieces.d6, undefined, 'the click played nothing');
    await shot(light, 'outage-01-server-down-phone');

    again = await startMillServer({ addr, dir: server.dir });
    await waitStatus(light, 'Your turn: place a piece');
    await light.waitForFunction(() => document.body.dataset.offline === 'false');
    assert.equal(await light.locator('#notice').isVisible(), false, 'the note goes with the outage');
    assert.deepEqual(await presences(light), ['online', 'online']);
    await clickAction(light, 'd6');
    await dark.locator('#board-host [data-point="d6"].light').waitFor();
    await waitStatus(dark, 'Your turn: place a piece');
    assert.deepEqual(light.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(e)), []);
  } finally {
    await browser.close();
    await again?.close();
    await server.close();
    rmSync(server.dir, { recursive: true, force: true });
  }
});
