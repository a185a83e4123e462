// Play with a friend, through a real mill-server (MILL_SERVER_BIN, default
// target/debug/mill-server) on 127.0.0.1 with a fresh database.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';

import { axeSerious, clickAction, DESKTOP, openPage, PHONE, point, readBoard, shot, startMillServer, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** Waits until the status line reads `text` (a string or a RegExp). */
async function waitStatus(page, text) {
  await page.waitForFunction(
    ([source, flags, plain]) => {
      const s = document.getElementById('status')?.textContent ?? '';
      return plain !== null ? s === plain : new RegExp(source, flags).test(s);
    },
    text instanceof RegExp ? [text.source, text.flags, null] : ['', '', text],
  );
}

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();

/** Light creates a room, Dark opens the invite link; both are connected. */
async function startRoom(viewport = PHONE) {
  const lightContext = await env.browser.newContext({ viewport });
  await lightContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  await waitStatus(light, 'Waiting for your friend to open the link');
  const invite = await light.locator('#invite-link').inputValue();
  assert.equal(invite, light.url());
  await light.locator('#copy-invite').click();
  // The button confirms once the clipboard has taken the link.
  await light.waitForFunction(() => document.getElementById('copy-invite').textContent === 'Copied');
  assert.equal(await light.evaluate(() => navigator.clipboard.readText()), invite);
  await shot(light, `online-00-invite-${viewport.width}`);
  const darkContext = await env.browser.newContext({ viewport });
  const dark = await openPage(darkContext, invite);
  await waitStatus(light, 'Your turn: place a piece');
  await waitStatus(dark, 'Waiting for Light to move');
  return { light, dark, lightContext, darkContext, invite };
}

test('two browsers play through an invite link; a closed page comes back to its seat', async () => {
  const { light, dark, lightContext, darkContext, invite } = await startRoom();
  assert.equal(await dark.locator('#seat-note').innerText(), 'You play Dark');
  assert.equal(await light.locator('#invite').isVisible(), false, 'the invite stays up after the friend joined');
  await shot(dark, 'online-01-dark-waiting-phone');

  // Dark cannot act on Light's turn: the board offers nothing.
  assert.deepEqual((await readBoard(dark)).canPlace, []);
  await point(dark, 'a1').click({ force: true });
  assert.equal((await readBoard(dark)).pieces.a1, undefined);

  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');
  await waitStatus(dark, 'Your turn: place a piece');
  await clickAction(dark, 'a1');
  await waitPiece(light, 'a1', 'dark');
  await clickAction(light, 'd5');
  await waitPiece(dark, 'd5', 'light');
  await shot(light, 'online-02-light-playing-phone');

  // Light goes away: Dark is told and waits; Light reopens the link and is back in its seat.
  await light.close();
  await waitStatus(dark, 'Waiting for Light to reconnect');
  assert.equal(await dark.locator('.card[data-side="light"] .presence').innerText(), 'away');
  await shot(dark, 'online-03-opponent-away-phone');
  const back = await openPage(lightContext, invite);
  await waitStatus(back, 'Waiting for Dark to move');
  assert.equal(await back.locator('#seat-note').innerText(), 'You play Light');
  assert.deepEqual((await readBoard(back)).pieces, { d6: 'light', a1: 'dark', d5: 'light' });
  await waitStatus(dark, 'Your turn: place a piece');
  await clickAction(dark, 'a4');
  await waitPiece(back, 'a4', 'dark');
  await waitStatus(back, 'Your turn: place a piece');
  assert.deepEqual(back.errors, []);
  assert.deepEqual(dark.errors, []);
  await lightContext.close();
  await darkContext.close();
});

test('a mill closed online is highlighted on both boards, from the server\'s state', async () => {
  const { light, dark, lightContext, darkContext } = await startRoom(DESKTOP);
  for (const [page, other, a, side] of [
    [light, dark, 'a1', 'light'],
    [dark, light, 'b2', 'dark'],
    [light, dark, 'd1', 'light'],
    [dark, light, 'd2', 'dark'],
  ]) {
    await clickAction(page, a);
    await waitPiece(other, a, side);
  }
  await waitStatus(light, 'Your turn: place a piece');
  await clickAction(light, 'g1');
  await waitPiece(dark, 'g1', 'light');
  for (const page of [light, dark]) {
    await page.locator('#board-host .mill-line.fresh').waitFor({ state: 'attached' });
    assert.deepEqual((await readBoard(page)).freshMills, ['a1 d1 g1']);
  }
  await shot(dark, 'online-08-mill-closed-desktop');
  await clickAction(light, 'xd2');
  await waitStatus(dark, 'Your turn: place a piece');
  assert.deepEqual((await readBoard(dark)).mills, ['a1 d1 g1']);
  assert.deepEqual((await readBoard(dark)).freshMills, []);
  assert.deepEqual(light.errors, []);
  assert.deepEqual(dark.errors, []);
  await lightContext.close();
  await darkContext.close();
});

test('a second tab takes the seat; the first one says it was replaced and can take it back', async () => {
  const { light, dark, lightContext, darkContext, invite } = await startRoom(DESKTOP);
  const second = await openPage(darkContext, invite);
  await waitStatus(dark, 'This game was opened in another tab. This tab is no longer connected.');
  await waitStatus(second, 'Waiting for Light to move');
  assert.equal(await dark.locator('#take-back').isVisible(), true);
  await shot(dark, 'online-04-replaced-desktop');
  // The replaced tab does not reconnect by itself; the new one plays.
  await clickAction(light, 'g7');
  await waitPiece(second, 'g7', 'light');
  await clickAction(second, 'a7');
  await waitPiece(light, 'a7', 'dark');
  assert.equal((await readBoard(dark)).pieces.a7, undefined);
  // "Play here" takes the seat back, and now the second tab is the replaced one.
  await dark.locator('#take-back').click();
  await waitStatus(second, /another tab/);
  await waitStatus(dark, 'Waiting for Light to move');
  await waitPiece(dark, 'a7', 'dark');
  await lightContext.close();
  await darkContext.close();
});

test('draw offer, decline, accept; new round needs both; resign', async () => {
  const { light, dark, lightContext, darkContext } = await startRoom(DESKTOP);
  dark.on('dialog', (d) => d.accept());
  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');

  await light.locator('#offer-draw').click();
  await dark.locator('#draw-offer').waitFor();
  assert.equal(await dark.locator('#draw-offer-text').innerText(), 'Light offers a draw');
  await shot(dark, 'online-05-draw-offered-desktop');
  await dark.locator('#decline-draw').click();
  await dark.locator('#draw-offer').waitFor({ state: 'hidden' });
  await light.waitForFunction(() => !document.getElementById('offer-draw').disabled);
  // The one who offered is told.
  await light.locator('#declined-note').waitFor();
  assert.equal(await light.locator('#declined-note').innerText(), 'Dark declined your draw offer');
  assert.equal(await dark.locator('#declined-note').isVisible(), false);

  await light.locator('#offer-draw').click();
  await dark.locator('#accept-draw').click();
  for (const page of [light, dark]) {
    await page.locator('#result').waitFor();
    assert.equal(await page.locator('#result-title').innerText(), 'Draw');
    assert.equal(await page.locator('#result-reason').innerText(), 'The players agreed to a draw.');
  }

  await light.locator('#new-round').click();
  await light.locator('#new-round-note').waitFor();
  assert.match(await light.locator('#new-round-note').innerText(), /waiting for Dark/);
  await dark.waitForFunction(() => /Light asks for a new round/.test(document.getElementById('new-round-note').textContent));
  assert.equal((await readBoard(light)).pieces.d6, 'light', 'a new round started on one request');
  await dark.locator('#new-round').click();
  await waitStatus(light, 'Your turn: place a piece');
  assert.deepEqual((await readBoard(light)).pieces, {});
  assert.equal(await light.locator('#result').isVisible(), false);

  await waitStatus(dark, 'Waiting for Light to move');
  await dark.locator('#resign').click();
  await light.locator('#result').waitFor();
  assert.equal(await light.locator('#result-title').innerText(), 'You won');
  assert.equal(await light.locator('#status').innerText(), 'You won');
  assert.equal(await dark.locator('#result-title').innerText(), 'You lost');
  assert.equal(await light.locator('#result-reason').innerText(), 'Your opponent (Dark) resigned.');
  assert.equal(await dark.locator('#result-reason').innerText(), 'You resigned.');
  await shot(light, 'online-06-resigned-desktop');
  assert.deepEqual(light.errors, []);
  await lightContext.close();
  await darkContext.close();
});

test('a third browser on a full room watches, and the players see how many watch; the waiting screen passes the accessibility audit', async () => {
  const lightContext = await env.browser.newContext({ viewport: PHONE });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await waitStatus(light, 'Waiting for your friend to open the link');
  assert.deepEqual(await axeSerious(light), [], 'invite screen');
  const invite = light.url();
  const darkContext = await env.browser.newContext({ viewport: PHONE });
  const dark = await openPage(darkContext, invite);
  await waitStatus(dark, 'Waiting for Light to move');
  assert.equal(await light.locator('#viewers').isVisible(), false, 'nobody watches yet');
  const watcherContext = await env.browser.newContext({ viewport: PHONE });
  const watcher = await openPage(watcherContext, invite);
  await waitStatus(watcher, 'Watching · Light to move');
  // Watching is a mode, not a warning: no banner, a note, no seat controls.
  assert.equal(await watcher.locator('#notice').isVisible(), false);
  assert.equal(await watcher.locator('#seat-note').innerText(), 'Both seats are taken: you are watching this game.');
  for (const id of ['offer-draw', 'resign', 'new-round', 'draw-offer', 'invite', 'take-back']) {
    assert.equal(await watcher.locator(`#${id}`).isVisible(), false, `a spectator sees #${id}`);
  }
  for (const page of [light, dark, watcher]) {
    await page.waitForFunction(() => document.getElementById('viewers').textContent === '1 watching');
  }
  await shot(watcher, 'online-09-watching-phone');
  assert.deepEqual(await axeSerious(watcher), [], 'watching screen');
  await clickAction(light, 'd6');
  await waitPiece(watcher, 'd6', 'light');
  await waitStatus(watcher, 'Watching · Dark to move');
  assert.deepEqual((await readBoard(watcher)).canPlace, [], 'a spectator was offered a move');
  // A draw offer is shown to the one it is offered to, and to nobody as "offered" but its maker.
  await light.locator('#offer-draw').click();
  await dark.locator('#draw-offer').waitFor();
  assert.equal(await watcher.locator('#offer-draw').isVisible(), false);
  assert.equal(await watcher.locator('#draw-offer').isVisible(), false);
  await watcherContext.close();
  await light.waitForFunction(() => document.getElementById('viewers').hidden);
  for (const c of [lightContext, darkContext]) await c.close();
});

test('an unknown room is a "room is gone" page whose button starts a new game', async () => {
  const context = await env.browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const answer = await page.goto(`${env.server.url}/r/nosuchroom00`);
  assert.equal(answer.status(), 404);
  await page.getByRole('heading', { name: 'This room is gone' }).waitFor();
  await shot(page, 'online-06-room-gone-phone');
  await page.getByRole('button', { name: 'Start a new game' }).click();
  await page.waitForURL(`${env.server.url}/?`);
  await page.locator('#start-friend').waitFor();
  await context.close();
});

test('after the server restarts, both pages reconnect by themselves and play on', async () => {
  // A server of its own, so that restarting it does not disturb the other tests.
  const own = await startMillServer();
  const addr = own.url.replace('http://', '');
  const lightContext = await env.browser.newContext({ viewport: PHONE });
  const light = await openPage(lightContext, `${own.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const darkContext = await env.browser.newContext({ viewport: PHONE });
  const dark = await openPage(darkContext, light.url());
  await waitStatus(light, 'Your turn: place a piece');
  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');

  await own.close({ keepDb: true });
  await waitStatus(light, 'Connection lost. Reconnecting…');
  await shot(light, 'online-07-reconnecting-phone');
  const again = await startMillServer({ addr, dir: own.dir });
  try {
    await waitStatus(dark, 'Your turn: place a piece');
    await waitStatus(light, 'Waiting for Dark to move');
    await clickAction(dark, 'a1');
    await waitPiece(light, 'a1', 'dark');
    assert.deepEqual((await readBoard(light)).pieces, { d6: 'light', a1: 'dark' });
  } finally {
    await lightContext.close();
    await darkContext.close();
    await again.close();
    rmSync(own.dir, { recursive: true, force: true });
  }
});

test('a seat key the server does not know is dropped, and the page joins the free seat instead', async () => {
  const lightContext = await env.browser.newContext({ viewport: PHONE });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await waitStatus(light, 'Waiting for your friend to open the link');
  const invite = light.url();
  const room = invite.split('/r/')[1];
  // A browser holding a made-up key for this room (say, from a wiped server).
  const darkContext = await env.browser.newContext({ viewport: PHONE });
  await darkContext.addInitScript(
    ([room]) => {
      if (!localStorage.getItem(`mill.seat.${room}`)) {
        localStorage.setItem(`mill.seat.${room}`, JSON.stringify({ seat: 'dark', key: 'f'.repeat(64) }));
      }
    },
    [room],
  );
  const dark = await openPage(darkContext, invite);
  await waitStatus(dark, 'Waiting for Light to move');
  assert.equal(await dark.locator('#seat-note').innerText(), 'You play Dark');
  const kept = await dark.evaluate((room) => JSON.parse(localStorage.getItem(`mill.seat.${room}`)).key, room);
  assert.notEqual(kept, 'f'.repeat(64));
  await waitStatus(light, 'Your turn: place a piece');
  await lightContext.close();
  await darkContext.close();
});
