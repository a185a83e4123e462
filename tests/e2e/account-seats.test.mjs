// A signed-in player goes on with a rated game from another browser: the seat is bound to
// the account, so a second browser context that only signs in (no key in its storage)
// sees the game under "Your games in progress", opens it, takes the seat and plays on;
// another account's browser watches. Real server (MILL_SERVER_BIN), real Chromium.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, clickAction, DESKTOP, openPage, preloadStorage, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();

/** The request `path` with a JSON body from the page (its cookies go with it). */
const post = (page, path, body) =>
  page.evaluate(
    async ([p, b]) => {
      const res = await fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    [path, body],
  );

test('a second browser signed in as the player takes the seat of a rated game and plays on', async () => {
  const url = env.server.url;
  const annPhone = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const bobContext = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const ann1 = await openPage(annPhone, `${url}/`);
  const bob0 = await openPage(bobContext, `${url}/`);
  const passphrase = 'a fine passphrase';
  assert.equal((await post(ann1, '/api/account', { name: 'ann_seat', password: passphrase })).status, 201);
  assert.equal((await post(bob0, '/api/account', { name: 'bob_seat', password: passphrase })).status, 201);
  const ask = (seeker) => ({ variant: 'nine', clock: { initial: 600, increment: 5 }, rated: true, seeker });
  const [ann, bob] = await Promise.all([post(ann1, '/api/pair', ask('seeker-ann-e2e')), post(bob0, '/api/pair', ask('seeker-bob-e2e'))]);
  assert.equal(ann.status, 201, JSON.stringify(ann));
  assert.equal(bob.status, 201, JSON.stringify(bob));
  const room = ann.body.room;
  const annSeat = ann.body.seat;
  const light = annSeat === 'light' ? 'ann' : 'bob';

  // Bob plays in his browser with the key it keeps.
  await preloadStorage(bobContext, { [`seat.${room}`]: JSON.stringify({ seat: bob.body.seat, key: bob.body.key }) });
  const bobPage = await openPage(bobContext, `${url}/r/${room}`);

  // Ann's second browser: signed in, no key. The start screen lists the game.
  const laptop = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const ann2 = await openPage(laptop, `${url}/`);
  assert.equal((await post(ann2, '/api/session', { name: 'ann_seat', password: passphrase })).status, 200);
  await ann2.reload();
  const link = ann2.locator(`#my-games-list a[href="/r/${room}"]`);
  await link.waitFor();
  assert.match(await link.innerText(), /Nine Men's Morris.*10\+5.*against bob_seat/);
  assert.match(await ann2.locator('#my-games').innerText(), /Your games in progress/);
  assert.deepEqual(await axeSerious(ann2), []);
  assert.equal(await ann2.evaluate((r) => localStorage.getItem(`seat.${r}`), room), null, 'no key on this device');
  await link.click();
  await ann2.waitForURL(new RegExp(`/r/${room}$`));
  const side = annSeat === 'light' ? 'Light' : 'Dark';
  await ann2.locator('#seat-note', { hasText: `You play ${side}` }).waitFor();

  // Both play on: Light, then Dark.
  const [lightPage, darkPage] = light === 'ann' ? [ann2, bobPage] : [bobPage, ann2];
  await lightPage.locator('#status', { hasText: 'Your turn' }).waitFor();
  await clickAction(lightPage, 'd6');
  await waitPiece(darkPage, 'd6', 'light');
  await darkPage.locator('#status', { hasText: 'Your turn' }).waitFor();
  await clickAction(darkPage, 'a1');
  await waitPiece(lightPage, 'a1', 'dark');
  // Still no key stored on the laptop: the seat came from the account.
  assert.equal(await ann2.evaluate((r) => localStorage.getItem(`seat.${r}`), room), null);

  // Another account's browser, with no key either, watches.
  const carol = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const carolPage = await openPage(carol, `${url}/`);
  assert.equal((await post(carolPage, '/api/account', { name: 'carol_seat', password: passphrase })).status, 201);
  await carolPage.goto(`${url}/r/${room}`);
  await waitPiece(carolPage, 'a1', 'dark');
  await carolPage.locator('#status', { hasText: /Watching/ }).waitFor();
  assert.equal(await ann2.locator('#seat-note').innerText(), `You play ${side}`);
  for (const c of [annPhone, bobContext, laptop, carol]) await c.close();
});
