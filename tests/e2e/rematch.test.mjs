// A rematch after a round of quick pairing (docs/PROTOCOL.md "Rematch"; static/js/online.js):
// two browsers paired on a clock finish a round, one offers a rematch, the other accepts,
// and both pages move by themselves to one new room, colours swapped, on the same clock,
// each with its new seat key kept in its own storage (never in the URL). A declined offer,
// and one whose opponent left, are said to have lapsed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, clickAction, openPage, PHONE, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

async function visitor() {
  const context = await env.browser.newContext({ viewport: PHONE });
  /** The codes of the refusals the server sent this page. */
  const refusals = [];
  context.on('page', (p) =>
    p.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        const message = JSON.parse(String(frame.payload));
        if (message.type === 'error') refusals.push(message.code);
      }),
    ),
  );
  const page = await openPage(context, `${env.server.url}/`);
  page.on('dialog', (d) => d.accept());
  await page.locator('#lobby-presets button').first().waitFor();
  return { context, page, refusals };
}

const seatNote = async (page) => {
  await page.locator('#seat-note').filter({ hasText: /You play/ }).waitFor();
  return page.locator('#seat-note').innerText();
};
// The new room's seat, once its state has come (a loaded machine may show the old room's
// note for a moment after the move): times out, failing, if it never says `text`.
const seatBecomes = async (page, text) => {
  await page.locator('#seat-note').filter({ hasText: text }).waitFor();
  return page.locator('#seat-note').innerText();
};

/** Two pages paired on `preset`: [light, dark] and the room's URL. */
async function paired(preset) {
  const a = await visitor();
  const b = await visitor();
  await a.page.locator(`#lobby-presets button[data-preset="${preset}"]`).click();
  await a.page.locator('#lobby-waiting').waitFor();
  await b.page.locator(`#lobby-presets button[data-preset="${preset}"]`).click();
  await a.page.waitForURL(/\/r\/[a-z0-9]+$/);
  await b.page.waitForURL(/\/r\/[a-z0-9]+$/);
  assert.equal(a.page.url(), b.page.url(), 'one room');
  const [light, dark] = (await seatNote(a.page)) === 'You play Light' ? [a, b] : [b, a];
  return { light, dark, url: a.page.url() };
}

const roomOf = (url) => new URL(url).pathname.split('/')[2];
const stored = (page) => page.evaluate(() => Object.fromEntries(Object.entries(localStorage)));

test('an accepted rematch takes both pages to one new room, colours swapped, on the same clock', async () => {
  const { light, dark, url } = await paired('3+2');
  await light.page.locator('#status').filter({ hasText: 'Your turn: place a piece' }).waitFor();
  // No rematch while the round is played.
  assert.equal(await light.page.locator('#offer-rematch').isVisible(), false);
  await clickAction(light.page, 'd6');
  await dark.page.locator('#board-host [data-point="d6"].light').waitFor();
  await dark.page.locator('#resign').click();
  await light.page.locator('#offer-rematch').waitFor();
  assert.equal(await light.page.locator('#offer-rematch').innerText(), 'Rematch');
  await light.page.locator('#offer-rematch').click();

  // The offering side waits (and may cancel); the other is asked.
  await light.page.locator('#rematch-waiting').waitFor();
  assert.equal(await light.page.locator('#cancel-rematch').isVisible(), true);
  await dark.page.locator('#rematch-offer').waitFor();
  assert.match(await dark.page.locator('#rematch-offer-text').innerText(), /^Your opponent offers a rematch/);
  assert.equal(await dark.page.locator('#offer-rematch').isVisible(), false);
  await shot(dark.page, 'rematch-00-offered-phone');
  assert.deepEqual(await axeSerious(dark.page), []);

  await dark.page.locator('#accept-rematch').click();
  const moved = (p) => p.waitForURL((u) => u.href !== url && /\/r\/[a-z0-9]+$/.test(u.pathname));
  await moved(light.page);
  await moved(dark.page);
  assert.equal(light.page.url(), dark.page.url(), 'one new room');
  const room = roomOf(light.page.url());
  assert.notEqual(room, roomOf(url));
  // Colours swapped: Dark starts as Light.
  assert.equal(await seatBecomes(light.page, 'You play Dark'), 'You play Dark');
  assert.equal(await seatBecomes(dark.page, 'You play Light'), 'You play Light');
  await dark.page.locator('#status').filter({ hasText: 'Your turn: place a piece' }).waitFor();
  // The same clock, both seats taken, round 1.
  const info = await light.page.evaluate((id) => fetch(`/api/rooms/${id}`).then((r) => r.json()), room);
  assert.deepEqual(info.clock.control, { initial: 180, increment: 2 });
  assert.equal(info.variant, 'nine');
  assert.deepEqual([info.round, info.seats.light.taken, info.seats.dark.taken], [1, true, true]);
  // Each page keeps its own new key where it keeps seat keys; none is in the URL.
  for (const [p, seat] of [
    [light.page, 'dark'],
    [dark.page, 'light'],
  ]) {
    const kept = JSON.parse((await stored(p))[`mill.seat.${room}`]);
    assert.equal(kept.seat, seat);
    assert.match(kept.key, /^[0-9a-f]{64}$/);
    assert.ok(!p.url().includes(kept.key));
  }
  // The new room plays: the old Dark player starts.
  await clickAction(dark.page, 'a1');
  await light.page.locator('#board-host [data-point="a1"].light').waitFor();
  await shot(light.page, 'rematch-01-new-room-phone');
  for (const v of [light, dark]) assert.deepEqual(v.page.errors, []);
  for (const v of [light, dark]) await v.context.close();
});

test('a declined rematch, and one whose opponent left, are said to have lapsed', async () => {
  const { light, dark, url } = await paired('1+0');
  await light.page.locator('#resign').waitFor();
  await light.page.locator('#resign').click();
  await dark.page.locator('#offer-rematch').waitFor();
  await dark.page.locator('#offer-rematch').click();
  await light.page.locator('#rematch-offer').waitFor();
  await light.page.locator('#decline-rematch').click();
  await dark.page.locator('#rematch-note').filter({ hasText: 'Your opponent declined the rematch' }).waitFor();
  await light.page.locator('#rematch-offer').waitFor({ state: 'hidden' });
  assert.equal(await light.page.locator('#rematch-note').innerText(), '', 'the one who declined is told nothing');
  // Offered again: the opponent leaves, and the offer lapses.
  await dark.page.locator('#offer-rematch').click();
  await light.page.locator('#rematch-offer').waitFor();
  await light.context.close();
  await dark.page.locator('#rematch-note').filter({ hasText: 'The rematch offer lapsed' }).waitFor();
  await dark.page.locator('#rematch-waiting').waitFor({ state: 'hidden' });
  // With the opponent gone, no new offer can be made; nobody moved.
  assert.equal(await dark.page.locator('#offer-rematch').isDisabled(), true);
  assert.equal(dark.page.url(), url);
  assert.deepEqual(dark.page.errors, []);
  await dark.context.close();
});

test('both pressing Rematch at once land in one new room', async () => {
  const { light, dark, url } = await paired('3+2');
  await light.page.locator('#resign').waitFor();
  await light.page.locator('#resign').click();
  for (const p of [light.page, dark.page]) await p.locator('#offer-rematch:not([disabled])').waitFor();
  // Crossing offers: one is stored, the other completes the rematch. Both are pressed in
  // the page at once (a pointer click waits for the button to stay put). Whoever's page
  // has already shown the opponent's offer presses what stands there instead, Accept, as
  // a person would: a disabled Rematch does nothing.
  const press = (p) =>
    p.evaluate(() => {
      const offer = /** @type {HTMLButtonElement} */ (document.getElementById('offer-rematch'));
      const shown = offer.hidden || offer.disabled ? document.getElementById('accept-rematch') : offer;
      /** @type {HTMLButtonElement} */ (shown).click();
      return shown.id;
    });
  const pressed = await Promise.all([press(light.page), press(dark.page)]);
  assert.ok(pressed.includes('offer-rematch'), `one of them pressed Rematch: ${pressed}`);
  const moved = (p) => p.waitForURL((u) => u.href !== url && /\/r\/[a-z0-9]+$/.test(u.pathname));
  await moved(light.page);
  await moved(dark.page);
  assert.equal(light.page.url(), dark.page.url(), 'one new room');
  assert.equal(await seatBecomes(light.page, 'You play Dark'), 'You play Dark');
  assert.equal(await seatBecomes(dark.page, 'You play Light'), 'You play Light');
  for (const v of [light, dark]) assert.deepEqual(v.page.errors, []);
  // Neither page sent anything the server refused: a crossing offer is an agreement.
  for (const v of [light, dark]) assert.deepEqual(v.refusals, []);
  for (const v of [light, dark]) await v.context.close();
});

test("a spectator of the old room is shown the way to the rematch, by a link without a key, and watches it there", async () => {
  const { light, dark, url } = await paired('3+2');
  const watcherContext = await env.browser.newContext({ viewport: PHONE });
  const watcher = await openPage(watcherContext, url);
  const watching = () => watcher.locator('#seat-note').filter({ hasText: 'you are watching this game' }).waitFor();
  await watching();
  await light.page.locator('#resign').waitFor();
  await light.page.locator('#resign').click();
  await dark.page.locator('#offer-rematch:not([disabled])').click();
  await light.page.locator('#rematch-offer').waitFor();
  // An offer alone is between the players: nothing to follow yet.
  assert.equal(await watcher.locator('#watch-rematch').isVisible(), false);
  await light.page.locator('#accept-rematch').click();
  const moved = (p) => p.waitForURL((u) => u.href !== url && /\/r\/[a-z0-9]+$/.test(u.pathname));
  await moved(light.page);
  await moved(dark.page);
  const room = roomOf(light.page.url());

  // The spectator stays, told in the status line (a live region) and shown the link.
  const link = watcher.locator('#watch-rematch');
  await link.waitFor();
  assert.equal(watcher.url(), url, 'a spectator is not moved by itself');
  assert.equal(await watcher.locator('#rematch-note').getAttribute('role'), 'status');
  assert.equal(await watcher.locator('#rematch-note').innerText(), 'The players agreed to a rematch, in a new room');
  assert.equal(await link.innerText(), 'Watch the rematch');
  assert.equal(await link.getAttribute('href'), `/r/${room}`, "the room's address, nothing else");
  for (const p of [watcher, light.page, dark.page]) assert.equal(await p.locator('#offer-rematch').isVisible(), false);
  await shot(watcher, 'rematch-02-watch-link-phone');
  assert.deepEqual(await axeSerious(watcher), []);
  // In Russian too.
  await watcher.locator('#lang').click();
  await watcher.locator('#watch-rematch').filter({ hasText: 'Смотреть реванш' }).waitFor();
  assert.equal(await watcher.locator('#rematch-note').innerText(), 'Игроки договорились о реванше в новой комнате');
  await watcher.locator('#lang').click();
  await link.filter({ hasText: 'Watch the rematch' }).waitFor();

  // Followed by the keyboard: the new room, watched, its board playing.
  await link.focus();
  await watcher.keyboard.press('Enter');
  await watcher.waitForURL(`${env.server.url}/r/${room}`);
  await watching();
  // The link went with the old room: the focus is where the game is watched, not lost.
  await watcher.waitForFunction(() => document.activeElement !== null && document.activeElement !== document.body);
  await dark.page.locator('#status').filter({ hasText: 'Your turn: place a piece' }).waitFor();
  await clickAction(dark.page, 'a1');
  await watcher.locator('#board-host [data-point="a1"].light').waitFor();
  assert.equal(await watcher.locator('#watch-rematch-box').isVisible(), false, 'the new room has no rematch yet');
  assert.equal(await watcher.locator('#resign').isVisible(), false, 'a spectator has no seat');
  const kept = await stored(watcher);
  assert.equal(kept[`mill.seat.${room}`], undefined, 'no seat kept for the spectator');
  assert.ok(!Object.keys(kept).some((k) => k.startsWith('mill.rematch.')), 'nor a rematch key');
  const info = await watcher.evaluate((id) => fetch(`/api/rooms/${id}`).then((r) => r.json()), room);
  assert.equal(info.spectators, 1, 'it watches the new room');
  await shot(watcher, 'rematch-03-watching-the-rematch-phone');
  for (const p of [watcher, light.page, dark.page]) assert.deepEqual(p.errors, []);
  for (const c of [watcherContext, light.context, dark.context]) await c.close();
});
