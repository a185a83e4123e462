// Online games on a clock (issue 20), through a real mill-server (MILL_SERVER_BIN, default
// target/debug/mill-server) with a fresh database: the time-control choice, two browsers
// and a spectator on a 15-second clock that one side lets run out (the server flags it with
// nobody sending anything), the low-time look and its words for the screen reader, review's
// time left after each turn, the record's TimeControl tag, and the claim after the
// opponent's page is closed (which waits for the server to answer claims).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { axeSerious, clickAction, DESKTOP, openPage, PHONE, preloadStorage, shot, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** Waits until the status line reads `text` (a string or a RegExp). */
async function waitStatus(page, text, timeout = 10_000) {
  await page.waitForFunction(
    ([source, flags, plain]) => {
      const s = document.getElementById('status')?.textContent ?? '';
      return plain !== null ? s === plain : new RegExp(source, flags).test(s);
    },
    text instanceof RegExp ? [text.source, text.flags, null] : ['', '', text],
    { timeout },
  );
}

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();

/** The clock a card shows: its text and its classes (null when hidden). */
const cardClock = (page, side) =>
  page.evaluate((s) => {
    const el = document.querySelector(`.card[data-side="${s}"] .clock`);
    return !el || el.hidden ? null : { text: el.textContent, running: el.classList.contains('running'), low: el.classList.contains('low') };
  }, side);

/** The start screen with a time control chosen (a preset id, or custom minutes and seconds added). */
async function chooseClock(page, preset, custom = null) {
  await page.locator('#clock-preset').selectOption(preset);
  if (custom) {
    await page.locator('#clock-minutes').fill(custom.minutes);
    await page.locator('#clock-increment').fill(custom.increment);
  }
}

/**
 * Light creates a timed room (`preset`, `custom`), Dark opens the invite link, a spectator
 * watches; all three connected. `lightStorage` preloads Light's storage.
 */
async function timedRoom({ preset, custom = null, viewport = PHONE, lightStorage = {} }) {
  const lightContext = await env.browser.newContext({ viewport });
  await lightContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url });
  await preloadStorage(lightContext, lightStorage);
  const light = await openPage(lightContext, `${env.server.url}/`);
  await chooseClock(light, preset, custom);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  await waitStatus(light, 'Waiting for your friend to open the link');
  const invite = light.url();
  const darkContext = await env.browser.newContext({ viewport });
  const dark = await openPage(darkContext, invite);
  await waitStatus(light, 'Your turn: place a piece');
  await waitStatus(dark, 'Waiting for Light to move');
  const watchContext = await env.browser.newContext({ viewport });
  const watcher = await openPage(watchContext, invite);
  await waitStatus(watcher, 'Watching · Light to move');
  return { light, dark, watcher, invite, contexts: [lightContext, darkContext, watchContext] };
}

test('the time control is offered with the friend game: presets, untimed first, custom fields', async () => {
  for (const [viewport, name] of [
    [PHONE, 'phone'],
    [DESKTOP, 'desktop'],
  ]) {
    const context = await env.browser.newContext({ viewport });
    const page = await openPage(context, `${env.server.url}/`);
    await page.locator('#clock-preset').waitFor();
    assert.equal(await page.locator('#clock-choice').isVisible(), true);
    assert.deepEqual(
      await page.locator('#clock-preset option').allTextContents(),
      ['Untimed', '1+0', '3+2', '5+3', '10+5', '15+10', '3 days per turn', 'Custom…'],
    );
    assert.equal(await page.locator('#clock-preset').inputValue(), 'untimed', 'untimed unless chosen');
    assert.equal(await page.locator('#clock-custom').isVisible(), false);
    // The choice is named beside "Play with a friend", the only mode it is for.
    assert.equal(await page.locator('#start-friend-clock').isVisible(), false, 'untimed: nothing');
    await page.locator('#clock-preset').selectOption('3d');
    assert.equal(await page.locator('#start-friend-clock').textContent(), '3 days per turn');
    await page.locator('#clock-preset').selectOption('custom');
    assert.equal(await page.locator('#clock-custom').isVisible(), true);
    assert.equal(await page.locator('#start-friend-clock').textContent(), '5+3');
    await page.locator('#clock-minutes').fill('1.5');
    assert.equal(await page.locator('#start-friend-clock').textContent(), '1:30+3');
    await shot(page, `clocks-00-choice-${name}-dark`);
    assert.deepEqual(await axeSerious(page), []);
    await page.locator('#theme').click();
    await shot(page, `clocks-00-choice-${name}-light`);
    assert.deepEqual(await axeSerious(page), []);
    // Russian: the same choice in its words.
    await page.locator('#lang').click();
    assert.equal(await page.locator('label[for="clock-preset"]').textContent(), 'Часы');
    assert.equal(await page.locator('#clock-preset option').first().textContent(), 'Без часов');
    assert.equal(await page.locator('#start-friend-clock').textContent(), '1:30+3');
    await shot(page, `clocks-00-choice-${name}-ru`);
    assert.deepEqual(page.errors, []);
    await context.close();
  }
  // A custom time that is no number is refused on the page, before any room is made.
  const context = await env.browser.newContext({ viewport: PHONE });
  const page = await openPage(context, `${env.server.url}/`);
  await chooseClock(page, 'custom', { minutes: '', increment: '2' });
  await page.locator('#start-friend').click();
  await page.locator('#clock-custom-error', { hasText: 'Give the minutes and the seconds added as numbers.' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/');
  // A time outside the server's bounds (under 15 s) is said where it is typed, before anything is sent.
  await chooseClock(page, 'custom', { minutes: '0.1', increment: '0' });
  await page.locator('#start-friend').click();
  await page.locator('#clock-custom-error', { hasText: 'A clock may have 15 seconds to 3 hours each, and 0 to 180 seconds added per turn.' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/');
  assert.deepEqual(page.errors, [], 'nothing sent, so no 400 in the console');
  await context.close();
});

test('a 15-second game: both pages and a spectator see the clocks run, the low time, and the loss on time', async () => {
  const { light, dark, watcher, invite, contexts } = await timedRoom({
    preset: 'custom',
    custom: { minutes: '0.25', increment: '0' },
    lightStorage: { 'mill.screen-reader': 'on' },
  });
  // Before the first turns nobody's clock runs; Light is told how long it has for its first.
  for (const page of [light, dark, watcher]) {
    assert.deepEqual(await cardClock(page, 'light'), { text: '0:15', running: false, low: false });
    assert.deepEqual(await cardClock(page, 'dark'), { text: '0:15', running: false, low: false });
  }
  assert.match(await light.locator('#first-turn').textContent(), /^Make your first move within \d+ s, or the game is called off$/);
  assert.match(await dark.locator('#first-turn').textContent(), /^Light: make the first move within \d+ s/);
  await shot(light, 'clocks-01-first-turn-phone');

  // The first turns are not charged; then Light's clock runs, and nobody sends anything.
  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');
  await clickAction(dark, 'a1');
  await waitPiece(light, 'a1', 'dark');
  for (const page of [light, dark, watcher]) {
    await page.waitForFunction(() => document.querySelector('.card[data-side="light"] .clock')?.classList.contains('running'));
    assert.equal((await cardClock(page, 'dark')).running, false, 'one clock runs');
    assert.equal(await page.locator('#first-turn').isVisible(), false, 'no first turn due');
  }
  // The clocks query says both.
  await light.locator('#command').fill('clock');
  await light.locator('#command').press('Enter');
  await light.locator('#announce p', { hasText: /^Light: .* left\. Dark: 0:15 left\. Light's clock is running$/ }).waitFor();

  // Under ten seconds: tenths, the low-time look on every page, and the words once.
  for (const page of [light, dark, watcher]) {
    await page.waitForFunction(() => document.querySelector('.card[data-side="light"] .clock')?.classList.contains('low'), null, { timeout: 15_000 });
    assert.match((await cardClock(page, 'light')).text, /^\d\.\d$/);
  }
  await light.locator('#announce p', { hasText: 'Less than ten seconds left on your clock' }).waitFor();
  await shot(light, 'clocks-02-low-time-phone');
  await light.locator('#theme').click();
  await shot(watcher, 'clocks-02-low-time-watcher-phone');

  // The server flags Light: each page says it from its side.
  await light.locator('#result-title', { hasText: 'You lost on time' }).waitFor({ timeout: 20_000 });
  await dark.locator('#result-title', { hasText: 'You won on time' }).waitFor();
  await watcher.locator('#result-title', { hasText: 'Light lost on time' }).waitFor();
  assert.equal(await watcher.locator('#result-reason').textContent(), 'Light ran out of time.');
  for (const page of [light, dark, watcher]) {
    assert.deepEqual(await cardClock(page, 'light'), { text: '0.0', running: false, low: false }, 'stopped at zero');
    assert.equal((await cardClock(page, 'dark')).text, '0:15');
  }
  assert.equal(
    await light.locator('#announce p', { hasText: /time/i }).count() >= 1,
    true,
    'the end is heard',
  );
  assert.equal(await light.locator('#announce p', { hasText: 'Less than ten seconds left on your clock' }).count(), 1, 'said once');
  await shot(light, 'clocks-03-lost-on-time-phone');
  await shot(watcher, 'clocks-03-watcher-result-phone');
  assert.deepEqual(await axeSerious(watcher), []);
  // Russian words for the spectator.
  await watcher.locator('#lang').click();
  await watcher.locator('#result-title', { hasText: 'Светлые проиграли по времени' }).waitFor();
  assert.equal(await watcher.locator('#result-reason').innerText(), 'Светлые: время истекло.', 'said once, not twice');

  // The record names the time control; review shows each turn's time left.
  await light.locator('#copy-record').click();
  await light.waitForFunction(async () => (await navigator.clipboard.readText()).includes('[TimeControl "15+0"]'));
  await light.locator('#review-open').click();
  await light.locator('#record button.turn .turn-time').first().waitFor();
  assert.equal((await cardClock(light, 'light')).text, '0.0', 'the end: lost on time');
  assert.deepEqual(await light.locator('#record button.turn .turn-time').allTextContents(), ['0:15', '0:15'], 'first turns are free');
  // Its name says it in words (the figure beside the turn is hidden from screen readers).
  await light.locator('#record').getByRole('button', { name: /^d6 ?, 0:15 left$/ }).click();
  assert.deepEqual(await cardClock(light, 'light'), { text: '0:15', running: false, low: false });
  await shot(light, 'clocks-04-review-phone');

  // The round's share link: its record names the room's time control too.
  const shared = await openPage(contexts[0], `${invite}/review/1`);
  await shared.locator('#record button.turn').first().waitFor();
  await shared.locator('#copy-record').click();
  await shared.waitForFunction(async () => (await navigator.clipboard.readText()).includes('[TimeControl "15+0"]'));
  assert.deepEqual(shared.errors, []);

  for (const page of [light, dark, watcher]) assert.deepEqual(page.errors, []);
  for (const c of contexts) await c.close();
});

test('a claim after the opponent\'s page is closed', async () => {
  const { light, dark, watcher, invite, contexts } = await timedRoom({ preset: '3+2' });
  assert.equal((await cardClock(light, 'light')).text, '3:00');
  await clickAction(light, 'd6');
  await waitPiece(dark, 'd6', 'light');
  await clickAction(dark, 'a1');
  await waitPiece(light, 'a1', 'dark');
  await waitStatus(light, 'Your turn: place a piece');
  assert.equal(await light.locator('#claim').isVisible(), false, 'nothing to claim while both are here');

  // Dark's page closes on Light's turn (its browser keeps the seat's key).
  await dark.close();
  await light.locator('.card[data-side="dark"] .presence', { hasText: 'away' }).waitFor();
  // The server says from when Light may claim (state.clock.claim_at) once it keeps the
  // absence; no box means the claim is missing, and the test fails.
  await light.locator('#claim').waitFor({ state: 'visible', timeout: 10_000 });
  assert.match(await light.locator('#claim-text').textContent(), /^Your opponent is away: you may end the game in \d+ s$/);
  assert.equal(await light.locator('#claim-win').isDisabled(), true, 'not before the grace');
  await shot(light, 'clocks-05-claim-wait-phone');
  // After the grace (40 s for 3+2) the buttons are live.
  await light.locator('#claim-win:enabled').waitFor({ timeout: 60_000 });
  assert.equal(await light.locator('#claim-text').textContent(), 'Your opponent has left: claim the win, call a draw, or keep waiting');
  await shot(light, 'clocks-06-claim-ready-phone');
  await light.locator('#claim-win').click();
  await light.locator('#result-title', { hasText: 'Your opponent left: you won' }).waitFor();
  await watcher.locator('#result-title', { hasText: 'Dark left the game and lost' }).waitFor();
  assert.equal(await light.locator('#claim').isVisible(), false);
  // Dark comes back to its seat and reads its loss.
  const darkAgain = await openPage(contexts[1], invite);
  await darkAgain.locator('#result-title', { hasText: 'You left the game and lost' }).waitFor();
  for (const page of [light, watcher, darkAgain]) assert.deepEqual(page.errors, []);
  for (const c of contexts) await c.close().catch(() => {});
});
