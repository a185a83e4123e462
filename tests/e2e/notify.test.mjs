// Turn notifications online: the tab title while the tab is in the background, a sound for
// the turn and for a mill (through a recording stand-in for WebAudio), a buzz, and the
// mute switch remembered across a reload.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { clickAction, openPage, PHONE, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

/** Makes the tab's visibility settable (window.setHidden) and records notes and buzzes. */
function recordNotifications() {
  let hidden = false;
  Object.defineProperty(document, 'visibilityState', { get: () => (hidden ? 'hidden' : 'visible') });
  Object.defineProperty(document, 'hidden', { get: () => hidden });
  window.setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  window.notes = [];
  window.buzzes = [];
  navigator.vibrate = (pattern) => (window.buzzes.push(pattern), true);
  window.AudioContext = class {
    state = 'running';
    currentTime = 0;
    destination = {};
    resume() {
      return Promise.resolve();
    }
    createOscillator() {
      const osc = { frequency: {}, connect: (g) => g, start: () => window.notes.push(osc.frequency.value), stop() {} };
      return osc;
    }
    createGain() {
      return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (d) => d };
    }
  };
}

test('your turn and the end show in a background tab\'s title, with a sound and a buzz; mute is remembered', async () => {
  const lightContext = await env.browser.newContext({ viewport: PHONE });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const darkContext = await env.browser.newContext({ viewport: PHONE });
  await darkContext.addInitScript(recordNotifications);
  const dark = await openPage(darkContext, light.url());
  await dark.waitForFunction(() => document.getElementById('status').textContent === 'Waiting for Light to move');
  assert.equal(await dark.title(), 'Mill');
  assert.equal(await dark.locator('#sound').getAttribute('aria-pressed'), 'true', 'sound is on by default');

  // Dark looks away; Light plays: Dark's tab says it is Dark's turn, with two notes and a buzz.
  await dark.evaluate(() => window.setHidden(true));
  await clickAction(light, 'd6');
  await dark.waitForFunction(() => document.title === '● Your turn · Mill');
  assert.equal(await dark.evaluate(() => window.notes.length), 2);
  assert.deepEqual(await dark.evaluate(() => window.buzzes), [120]);
  await dark.evaluate(() => window.setHidden(false));
  assert.equal(await dark.title(), 'Mill', 'looking at the tab clears the title');

  // Muted: the next turn is silent and still buzz-free; the switch survives a reload.
  await dark.locator('#sound').click();
  assert.equal(await dark.locator('#sound').getAttribute('aria-pressed'), 'false');
  await clickAction(dark, 'a1');
  await clickAction(light, 'd5');
  await dark.waitForFunction(() => document.getElementById('status').textContent === 'Your turn: place a piece');
  assert.equal(await dark.evaluate(() => window.notes.length), 2, 'muted, yet a note played');
  await dark.reload();
  await dark.locator('#sound[aria-pressed="false"]').waitFor();

  // The game ends while Dark's tab is hidden (Light resigns): the title says so.
  await dark.waitForFunction(() => document.getElementById('status').textContent === 'Your turn: place a piece');
  await dark.evaluate(() => window.setHidden(true));
  light.on('dialog', (d) => d.accept());
  await light.locator('#resign').click();
  await dark.waitForFunction(() => document.title === '● Game over · Mill');
  assert.equal(await dark.locator('#result-title').innerText(), 'You won');
  assert.deepEqual(dark.errors, []);
  await lightContext.close();
  await darkContext.close();
});

test('a mill closed sounds its own notes', async () => {
  const lightContext = await env.browser.newContext({ viewport: PHONE });
  await lightContext.addInitScript(recordNotifications);
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const darkContext = await env.browser.newContext({ viewport: PHONE });
  const dark = await openPage(darkContext, light.url());
  const turn = (page) => page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Your turn'));
  for (const [page, a] of [[light, 'a1'], [dark, 'b2'], [light, 'd1'], [dark, 'd2']]) {
    await turn(page);
    await clickAction(page, a);
  }
  await turn(light);
  const before = await light.evaluate(() => window.notes.slice());
  await clickAction(light, 'g1');
  await light.waitForFunction((n) => window.notes.length > n, before.length);
  assert.deepEqual((await light.evaluate(() => window.notes)).slice(before.length), [392, 523], 'the mill\'s notes');
  await lightContext.close();
  await darkContext.close();
});
