// Three rounds in one room between two players and a spectator, through a real mill-server,
// in both languages: each result line right for the loser, the winner and the spectator
// (a blockade, a resignation, an agreed draw), the round and score line from the second
// round on, a note of the last round cleared by the new one, and no console error for
// the spectator (whose page does not ask for a seat in a full room).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { clickAction, DESKTOP, openPage, PHONE, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

// Dark wins by blockade after Light's 18th turn is answered (the game screens.test.mjs shows).
const BLOCKADE = 'b2 b4 d3 c3 e3 c5 e4 d2 e5xb4 b4 d5 d6 f2 d7 f4 f6 g7 g4';

const text = (page, id) => page.evaluate((id) => document.getElementById(id)?.textContent ?? '', id);
const waitText = (page, id, want) =>
  page.waitForFunction(([id, want]) => document.getElementById(id)?.textContent === want, [id, want]);
/** The turns the move list shows. */
const turnsShown = (page) => page.evaluate(() => [...document.querySelectorAll('#record li > span:not(.n)')].filter((s) => s.textContent).length);

async function setLang(page, lang) {
  if ((await page.evaluate(() => document.documentElement.lang)) !== lang) await page.locator('#lang').click();
  await page.waitForFunction((lang) => document.documentElement.lang === lang, lang);
}

/** Plays a game's turns, each by its side's page, every page following each turn. */
async function play(pages, record) {
  const turns = record.split(/\s+/);
  for (const [i, turn] of turns.entries()) {
    const page = i % 2 === 0 ? pages.light : pages.dark;
    const [head, ...removals] = turn.split('x');
    for (const action of [head, ...removals.map((r) => `x${r}`)]) {
      await page.waitForFunction(() => document.querySelector('#board-host .can-place, #board-host .can-select, #board-host .can-remove'));
      await clickAction(page, action);
    }
    for (const p of Object.values(pages)) await p.waitForFunction((n) => [...document.querySelectorAll('#record li > span:not(.n)')].filter((s) => s.textContent).length === n, i + 1);
  }
}

/** The result box on each page, in `lang`. */
async function results(pages, lang) {
  const out = {};
  for (const [name, page] of Object.entries(pages)) {
    await setLang(page, lang);
    await page.locator('#result').waitFor();
    out[name] = `${await text(page, 'result-title')} / ${await text(page, 'result-reason')}`;
  }
  return out;
}

async function newRound(pages, round) {
  await pages.light.locator('#new-round').click();
  await pages.dark.locator('#new-round').click();
  for (const page of Object.values(pages)) {
    await page.waitForFunction(() => !document.getElementById('result') || document.getElementById('result').hidden);
    assert.equal(await turnsShown(page), 0, `round ${round} starts empty`);
  }
}

test('three rounds: result lines for each seat and a spectator in both languages, the round and score, no spectator error', async () => {
  const lightContext = await env.browser.newContext({ viewport: DESKTOP, locale: 'ru-RU', permissions: ['clipboard-read', 'clipboard-write'] });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const darkContext = await env.browser.newContext({ viewport: PHONE, locale: 'en-US' });
  const dark = await openPage(darkContext, light.url());
  await dark.locator('#seat-note', { hasText: 'You play Dark' }).waitFor();
  const watchContext = await env.browser.newContext({ viewport: PHONE, locale: 'ru-RU' });
  const watcher = await openPage(watchContext, light.url());
  await watcher.locator('#seat-note', { hasText: 'Оба места заняты' }).waitFor();
  const pages = { light, dark, watcher };
  assert.equal(await watcher.locator('#round-score').isVisible(), false, 'no round line in the first round');

  // Round 1: Light is blocked.
  await play(pages, BLOCKADE);
  assert.deepEqual(await results(pages, 'ru'), {
    light: 'Вы проиграли / У вас нет ходов.',
    dark: 'Вы победили / У соперника (Светлые) нет ходов.',
    watcher: 'Победа: Тёмные / У светлых нет ходов.',
  });
  assert.deepEqual(await results(pages, 'en'), {
    light: 'You lost / You have no legal move.',
    dark: 'You won / Your opponent (Light) has no legal move.',
    watcher: 'Dark wins / Light has no legal move.',
  });
  // A note of this round: the record copied.
  await light.locator('#copy-record').click();
  await waitText(light, 'record-copied', 'The record is copied.');

  // Round 2: the score of round 1, and the note gone.
  await newRound(pages, 2);
  await waitText(light, 'round-score', 'Round 2 · You 0 – 1');
  await waitText(dark, 'round-score', 'Round 2 · You 1 – 0');
  await waitText(watcher, 'round-score', 'Round 2 · Light 0 – 1 Dark');
  assert.equal(await text(light, 'record-copied'), '', 'the last round’s note is cleared');
  await play(pages, 'd6');
  dark.once('dialog', (d) => d.accept());
  await dark.locator('#resign').click();
  assert.deepEqual(await results(pages, 'ru'), {
    light: 'Вы победили / Соперник (Тёмные) сдался.',
    dark: 'Вы проиграли / Вы сдались.',
    watcher: 'Победа: Светлые / Тёмные сдались.',
  });
  assert.deepEqual(await results(pages, 'en'), {
    light: 'You won / Your opponent (Dark) resigned.',
    dark: 'You lost / You resigned.',
    watcher: 'Light wins / Dark resigned.',
  });
  // The round's own result counts once it is over.
  await waitText(light, 'round-score', 'Round 2 · You 1 – 1');

  // Round 3: a draw by agreement; the score in halves, in Russian too.
  await newRound(pages, 3);
  await waitText(dark, 'round-score', 'Round 3 · You 1 – 1');
  await play(pages, 'd6 a1');
  await light.locator('#offer-draw').click();
  await dark.locator('#accept-draw').click();
  assert.deepEqual(await results(pages, 'ru'), {
    light: 'Ничья / Ничья по соглашению.',
    dark: 'Ничья / Ничья по соглашению.',
    watcher: 'Ничья / Ничья по соглашению.',
  });
  await waitText(light, 'round-score', 'Партия 3 · Вы 1½ – 1½');
  await waitText(watcher, 'round-score', 'Партия 3 · Светлые 1½ – 1½ Тёмные');
  await setLang(dark, 'en');
  await waitText(dark, 'round-score', 'Round 3 · You 1½ – 1½');

  // The spectator's page asked for no seat: nothing went wrong in its console.
  for (const [name, page] of Object.entries(pages)) assert.deepEqual(page.errors, [], name);
  await Promise.all([lightContext.close(), darkContext.close(), watchContext.close()]);
});

/**
 * WebAudio as browsers give it before a person's gesture: suspended, resumed only once
 * there was one (headless Chromium counts the page as activated from the start, so the
 * gesture is recorded here); notes recorded.
 */
function strictAudio() {
  window.notes = [];
  let gestured = false;
  for (const type of ['pointerdown', 'keydown']) addEventListener(type, () => (gestured = true), true);
  window.AudioContext = class {
    state = 'suspended';
    currentTime = 0;
    destination = {};
    resume() {
      if (gestured) this.state = 'running';
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

test('10. the first turn before any touch is told by the title; the first touch lets the sound play from then on', async () => {
  const lightContext = await env.browser.newContext({ viewport: PHONE });
  const light = await openPage(lightContext, `${env.server.url}/`);
  await light.locator('#start-friend').click();
  await light.waitForURL(/\/r\/[a-z0-9]+$/);
  const darkContext = await env.browser.newContext({ viewport: PHONE });
  await darkContext.addInitScript(strictAudio);
  const dark = await openPage(darkContext, light.url());
  await waitText(dark, 'status', 'Waiting for Light to move');
  await clickAction(light, 'd6');
  await waitText(dark, 'status', 'Your turn: place a piece');
  // Nothing could sound: the title says it, though the tab is in view.
  await dark.waitForFunction(() => document.title === '● Your turn · Mill');
  assert.equal(await dark.evaluate(() => window.notes.length), 0);
  // The first touch (here, the move itself) starts the audio and answers the title.
  await clickAction(dark, 'a1');
  await dark.waitForFunction(() => document.title === 'Mill');
  await clickAction(light, 'd5');
  await waitText(dark, 'status', 'Your turn: place a piece');
  await dark.waitForFunction(() => window.notes.length === 2);
  assert.equal(await dark.title(), 'Mill');
  assert.deepEqual(dark.errors, []);
  await Promise.all([lightContext.close(), darkContext.close()]);
});
