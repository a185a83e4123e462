// An arena in a real browser against the real server: two accounts (signed up over the
// API, each in its own browser context) open an arena created over the API (starting
// now, a few minutes long, a one-minute clock), join it on its page, and are paired by
// themselves: their game pages open with no click (the seat key kept in storage, never in
// the address). One resigns; a watcher's arena page shows the table change live (the
// winner 2 points), both players are moved on to their next game, and back on the arena
// page each sees the table with their own row highlighted. The start screen lists the
// arena and offers the signed-in player the create form; the arena page passes axe in
// English and Russian.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, openPage, shot, DESKTOP, PHONE, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** A visitor's browser logs the refused requests a test makes on purpose; nothing else. */
const ownErrors = (page) => page.errors.filter((e) => !/Failed to load resource/.test(e));

async function signUp(page, name) {
  const status = await page.evaluate(async (name) => {
    const res = await fetch('/api/account', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, password: 'a fine passphrase' }) });
    return res.status;
  }, name);
  assert.equal(status, 201);
}

/** The standings as the page shows them: name and score of each row, in order. */
const table = (page) =>
  page.locator('#arena-table tbody tr').evaluateAll((rows) => rows.map((r) => `${r.querySelector('th a')?.textContent} ${r.querySelector('td.score')?.textContent}`));

const ROOM = /\/r\/([a-z0-9]{12})$/;

test('two players join an arena, are paired by themselves, finish a game and see the table change', async () => {
  const contexts = await Promise.all([0, 1, 2].map(() => env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' })));
  const [ann, bob, watcher] = await Promise.all(contexts.map((c) => openPage(c)));
  for (const page of [ann, bob, watcher]) await page.goto(`${env.server.url}/players`);
  await signUp(ann, 'Ann_arena');
  await signUp(bob, 'Bob_arena');
  const created = await ann.evaluate(async () => {
    const body = { name: 'Browser arena', variant: 'nine', clock: { initial: 60, increment: 0 }, minutes: 5, starts: null, rated: false };
    const res = await fetch('/api/arenas', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const arena = created.body.id;
  const arenaUrl = `${env.server.url}/arena/${arena}`;

  // The start screen lists it; the signed-in player may create another, the visitor is asked to sign in.
  await ann.goto(env.server.url);
  await ann.locator(`#arenas-lists a[href="/arena/${arena}"]`, { hasText: 'Browser arena' }).waitFor();
  await ann.locator('#arenas-create:not([hidden])').waitFor();
  assert.equal(await ann.locator('#arenas-lists h3').first().innerText(), 'Running now');
  await ann.locator('#arenas-create summary').click();
  await ann.locator('#arena-form-later').check();
  await ann.locator('#arena-form-at:not([hidden])').waitFor();
  await ann.locator('#arenas').scrollIntoViewIfNeeded();
  await shot(ann, 'arena-00-start-create-desktop');
  assert.deepEqual(await axeSerious(ann), []);
  // A wrong length is said beside the form, and nothing is sent.
  await ann.fill('#arena-form-name', 'Another');
  await ann.fill('#arena-form-minutes', '400');
  await ann.locator('#arena-form-submit').click();
  assert.equal(await ann.locator('#arena-form-error').innerText(), 'The length is a whole number of minutes, 1 to 360.');
  await watcher.goto(env.server.url);
  await watcher.locator(`#arenas-lists a[href="/arena/${arena}"]`).waitFor();
  await watcher.locator('#arenas-sign-in:not([hidden])').waitFor();
  assert.equal(await watcher.locator('#arenas-create').isHidden(), true);

  // The watcher follows the arena page; the visitor's way in is a sign-in link.
  await watcher.goto(arenaUrl);
  await watcher.locator('body[data-ready="true"]').waitFor();
  assert.equal(await watcher.locator('#arena-name').innerText(), 'Browser arena');
  await watcher.locator('#arena-sign-in:not([hidden])').waitFor();
  assert.match(await watcher.locator('#arena-timer-label').innerText(), /Ends in/);
  assert.match(await watcher.locator('#arena-timer').innerText(), /^[45]:\d\d$/);

  // Both join on the page; their games open by themselves, the same room for both.
  for (const page of [ann, bob]) {
    await page.goto(arenaUrl);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.locator('#arena-join:not([hidden])').click();
  }
  await Promise.all([ann.waitForURL(ROOM, { timeout: 15_000 }), bob.waitForURL(ROOM, { timeout: 15_000 })]);
  const room = ROOM.exec(ann.url())[1];
  assert.equal(ROOM.exec(bob.url())[1], room, 'paired together');
  for (const page of [ann, bob]) {
    const kept = await page.evaluate((room) => JSON.parse(localStorage.getItem(`mill.seat.${room}`)), room);
    assert.equal(kept.arena, arena, 'the seat key is kept with its arena');
    assert.match(kept.key, /^[0-9a-f]{64}$/);
    assert.ok(!page.url().includes(kept.key), 'never in the address');
    await page.locator('#arena-follow:not([hidden]) a#arena-back', { hasText: 'Back to the arena' }).waitFor();
    assert.equal(await page.locator('#arena-back').getAttribute('href'), `/arena/${arena}`);
  }
  // The watcher sees both in one game, the game to watch.
  await watcher.locator(`#arena-watch a[href="/r/${room}"]`).waitFor();
  assert.deepEqual((await table(watcher)).sort(), ['Ann_arena 0', 'Bob_arena 0']);

  // The watcher listens in screen-reader mode: the standings' news is said.
  await watcher.locator('#sr-mode').click();
  assert.equal(await watcher.locator('#sr-mode').getAttribute('aria-pressed'), 'true');

  // Ann resigns: Bob scores 2, live on the watcher's page.
  await ann.locator('#resign:not([hidden])').waitFor();
  ann.once('dialog', (d) => d.accept());
  await ann.locator('#resign').click();
  await bob.locator('#result-title', { hasText: 'You won' }).waitFor();
  await watcher.waitForFunction(() => document.querySelector('#arena-table tbody tr td.score')?.textContent === '2');
  assert.deepEqual(await table(watcher), ['Bob_arena 2', 'Ann_arena 0']);
  await watcher.locator('#announce p', { hasText: 'Bob_arena leads with 2 points.' }).waitFor();
  const sheet = await watcher.locator('#arena-table tbody tr').first().locator('td.sheet a').first();
  assert.equal(await sheet.innerText(), '2');
  assert.equal(await sheet.getAttribute('aria-label'), 'won against Ann_arena: 2');

  // Both are moved on to their next game (only they wait: they meet again).
  const next = await Promise.all(
    [ann, bob].map(async (page) => {
      await page.waitForURL((url) => ROOM.test(url.pathname) && !url.pathname.endsWith(room), { timeout: 20_000 });
      return ROOM.exec(page.url())[1];
    }),
  );
  assert.equal(next[0], next[1]);

  // Back on the arena page: the table, their own row highlighted, a way to their game.
  for (const [page, name, score] of [[ann, 'Ann_arena', '0'], [bob, 'Bob_arena', '2']]) {
    await page.locator('#arena-back').click();
    await page.waitForURL(arenaUrl);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.locator('#arena-table tbody tr').first().waitFor();
    assert.deepEqual(await table(page), ['Bob_arena 2', 'Ann_arena 0']);
    const own = page.locator('#arena-table tr.own');
    assert.equal(await own.count(), 1);
    assert.equal(await own.getAttribute('aria-current'), 'true');
    assert.equal(await own.locator('th a').innerText(), name);
    assert.equal(await own.locator('td.score').innerText(), score);
    assert.equal(await page.locator('#arena-play').getAttribute('href'), `/r/${next[0]}`);
    await page.locator('#arena-pause:not([hidden])').waitFor();
    await page.locator('#arena-withdraw:not([hidden])').waitFor();
  }
  assert.match(await bob.locator('#arena-caption').innerText(), /Browser arena: 2 players; games played: 1, in play: 1/);

  // Pause and resume change the buttons.
  await bob.locator('#arena-pause').click();
  await bob.locator('#arena-resume:not([hidden])').waitFor();
  assert.match(await bob.locator('#arena-state').innerText(), /Paused/);
  await bob.locator('#arena-resume').click();
  await bob.locator('#arena-pause:not([hidden])').waitFor();

  // axe, in English and in Russian.
  await shot(bob, 'arena-01-standings-desktop');
  assert.deepEqual(await axeSerious(bob), []);
  await bob.locator('#lang').click();
  await bob.locator('html[lang="ru"]').waitFor();
  assert.equal(await bob.locator('#arena-table thead th').first().innerText(), 'Место');
  assert.match(await bob.locator('#arena-caption').innerText(), /Browser arena: 2 игрока/);
  assert.deepEqual(await axeSerious(bob), []);
  assert.deepEqual(await axeSerious(watcher), []);
  await watcher.setViewportSize(PHONE);
  await shot(watcher, 'arena-02-watcher-phone');

  for (const page of [ann, bob, watcher]) assert.deepEqual(ownErrors(page), []);
  await Promise.all(contexts.map((c) => c.close()));
});

test('an arena page with no such arena says so', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'ru-RU' });
  const page = await openPage(context, `${env.server.url}/arena/zzzzzzzzzzzz`);
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await page.locator('#arena-name').innerText(), 'Арены с таким адресом нет.');
  assert.equal(await page.title(), 'Такой арены нет — Мельница');
  assert.deepEqual(await axeSerious(page), []);
  await context.close();
});

test('a finished arena shows its podium and no more buttons', async () => {
  const contexts = await Promise.all([0, 1].map(() => env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' })));
  const [cat, dan] = await Promise.all(contexts.map((c) => openPage(c)));
  for (const page of [cat, dan]) await page.goto(`${env.server.url}/players`);
  await signUp(cat, 'Cat_arena');
  await signUp(dan, 'Dan_arena');
  // One minute long: the shortest arena there is.
  const id = await cat.evaluate(async () => {
    const body = { name: 'Minute arena', clock: { initial: 60, increment: 0 }, minutes: 1 };
    const res = await fetch('/api/arenas', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()).id;
  });
  for (const page of [cat, dan]) {
    await page.goto(`${env.server.url}/arena/${id}`);
    await page.locator('#arena-join:not([hidden])').click();
  }
  await Promise.all([cat.waitForURL(ROOM, { timeout: 15_000 }), dan.waitForURL(ROOM, { timeout: 15_000 })]);
  // Both pause (their game goes on): nobody is paired again before the end.
  for (const page of [cat, dan]) {
    const status = await page.evaluate((id) => fetch(`/api/arenas/${id}/pause`, { method: 'POST' }).then((r) => r.status), id);
    assert.equal(status, 200);
  }
  cat.once('dialog', (d) => d.accept());
  await cat.locator('#resign:not([hidden])').click();
  await dan.locator('#result-title', { hasText: 'You won' }).waitFor();
  // Back to the arena, then the end.
  await dan.goto(`${env.server.url}/arena/${id}`);
  await dan.locator('#arena-resume:not([hidden])').waitFor();
  await dan.locator('#arena-podium-box:not([hidden])').waitFor({ timeout: 90_000 });
  assert.deepEqual(await dan.locator('#arena-podium li').allInnerTexts(), ['Dan_arena: 2 points', 'Cat_arena: 0 points']);
  assert.equal(await dan.locator('#arena-timer-label').innerText(), 'Finished');
  assert.equal(await dan.locator('#arena-state').innerText(), 'This arena is over.');
  for (const button of ['join', 'rejoin', 'resume', 'pause', 'withdraw']) assert.equal(await dan.locator(`#arena-${button}`).isHidden(), true, button);
  await shot(dan, 'arena-03-podium-desktop');
  assert.deepEqual(await axeSerious(dan), []);
  await dan.locator('#lang').click();
  assert.equal(await dan.locator('#arena-podium-title').innerText(), 'Призёры');
  assert.deepEqual(await axeSerious(dan), []);
  for (const page of [cat, dan]) assert.deepEqual(ownErrors(page), []);
  await Promise.all(contexts.map((c) => c.close()));
});
