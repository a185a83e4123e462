// Screen-reader play online, through a real mill-server (MILL_SERVER_BIN, default
// target/debug/mill-server): two browsers play only by typing in the Command field; each
// reads its live region after every turn. A turn with its removal is sent one action at a
// time as the server takes each, and heard once, whole, by both players and a spectator.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openPage, PHONE, preloadStorage, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** How many announcements the live region has made so far. */
const said = (page) => page.evaluate(() => Number(document.getElementById('announce').dataset.count ?? 0));

/** The announcements made after the first `since`. */
const heardSince = (page, since) =>
  page.evaluate((n) => {
    const region = document.getElementById('announce');
    const all = [...region.children].map((p) => p.textContent);
    const total = Number(region.dataset.count ?? 0);
    return all.slice(Math.max(0, all.length - (total - n)));
  }, since);

/** Types a line into the Command field and waits for the first thing said after it. */
async function type(page, text) {
  const before = await said(page);
  await page.locator('#command').fill(text);
  await page.locator('#command').press('Enter');
  await page.waitForFunction((n) => Number(document.getElementById('announce').dataset.count ?? 0) > n, before);
  return before;
}

/** Waits until something said after `since` matches `pattern`; returns all said since. */
async function hear(page, since, pattern, timeout = 20_000) {
  await page.waitForFunction(
    ([n, source]) => {
      const region = document.getElementById('announce');
      const all = [...region.children].map((p) => p.textContent);
      const total = Number(region.dataset.count ?? 0);
      return all.slice(Math.max(0, all.length - (total - n))).some((s) => new RegExp(source).test(s));
    },
    [since, pattern.source],
    { timeout },
  ).catch(async (error) => {
    throw new Error(`${pattern} not heard; heard ${JSON.stringify(await heardSince(page, since))}: ${error.message}`);
  });
  return heardSince(page, since);
}

/** Asks a query and returns its spoken answer. */
async function ask(page, query) {
  const since = await type(page, query);
  return (await heardSince(page, since))[0];
}

/** A browser with screen-reader mode on. */
async function open(url, locale = 'en-US') {
  const context = await env.browser.newContext({ viewport: PHONE, locale });
  await preloadStorage(context, { 'mill.screen-reader': 'on' });
  const page = await openPage(context, url);
  return { context, page };
}

test('an online game by typing: both players and a spectator hear each turn once, offers and presence', async () => {
  const host = await open(`${env.server.url}/`);
  const light = host.page;
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const url = light.url();
  let lightSince = await said(light);
  const guest = await open(url);
  const dark = guest.page;
  await hear(light, lightSince, /^Dark joined the game$/);
  await dark.locator('#command').waitFor();
  // Dark cannot type on Light's turn.
  let darkSince = await type(dark, 'a1');
  assert.deepEqual(await heardSince(dark, darkSince), ['Not your turn: Light to move']);

  const plan = [
    [light, 'd6', 'Light: places on d6'],
    [dark, 'a7', 'Dark: places on a7'],
    [light, 'd5', 'Light: places on d5'],
    [dark, 'a1', 'Dark: places on a1'],
    // One line, two actions: the server takes the placement, then the removal.
    [light, 'd7xa7', 'Light: places on d7, closes a mill, removes a7'],
  ];
  const watcher = await open(url);
  const spectator = watcher.page;
  await spectator.locator('#command').waitFor();
  let spectatorSince = await said(spectator);
  for (const [player, turn, words] of plan) {
    const opponent = player === light ? dark : light;
    const opponentSince = await said(opponent);
    const since = await type(player, turn);
    const mine = await hear(player, since, new RegExp(`^${words}\\.`));
    const theirs = await hear(opponent, opponentSince, /Your turn$/);
    assert.deepEqual(mine, [`${words}. ${player === light ? 'Dark' : 'Light'} to move`], turn);
    // The opponent may first hear the mill that owes a removal; the turn itself once, whole.
    assert.equal(theirs.at(-1), `${words}. Your turn`, turn);
    assert.deepEqual(theirs.slice(0, -1), turn.includes('x') && theirs.length > 1 ? ['Light closed a mill and must remove a piece'] : [], turn);
  }
  const watched = await hear(spectator, spectatorSince, /removes a7/);
  assert.equal(watched.at(-1), 'Light: places on d7, closes a mill, removes a7. Dark to move');
  assert.equal((await heardSince(spectator, spectatorSince)).filter((s) => s.includes('d7')).length, 1);
  assert.equal(await ask(spectator, 'last'), 'Light: places on d7, closes a mill, removes a7. Dark to move');

  // A refusal online is the rules' reason, and nothing is sent.
  darkSince = await type(dark, 'd6');
  assert.deepEqual(await heardSince(dark, darkSince), ['d6 is already taken']);

  // A draw offer is heard by the other player; leaving and coming back too.
  lightSince = await said(light);
  darkSince = await said(dark);
  await dark.locator('#offer-draw').click();
  assert.deepEqual(await hear(light, lightSince, /offers a draw/), ['Dark offers a draw']);
  await light.locator('#decline-draw').click();
  lightSince = await said(light);
  await dark.close();
  await hear(light, lightSince, /^Dark went offline$/);
  const again = await openPage(guest.context, url);
  await hear(light, lightSince, /^Dark is back online$/);
  assert.equal(await ask(again, 'last'), 'Light: places on d7, closes a mill, removes a7. Your turn');
  assert.deepEqual(light.errors, []);
  // The spectator's join was refused (409: both seats taken), which is how it came to watch.
  assert.deepEqual(spectator.errors.filter((e) => !/status of 409/.test(e)), []);
  assert.deepEqual(again.errors, []);
  for (const c of [host, guest, watcher]) await c.context.close();
});
