// "Play online" when nobody comes (static/js/lobby.js, issue 34): a lone search through a
// real mill-server whose pairing wait is three seconds. The time waited is counted, the
// end is said where the waiting line was (in view, not in the banner at the top) with
// Keep waiting, Invite a friend and Play the computer; the page's own seek is never
// offered back to it; and nobody coming is no HTTP error in the console.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { axeSerious, DESKTOP, launch, openPage, PHONE, shot, startMillServer } from './helpers.mjs';

let server;
let browser;
before(async () => {
  server = await startMillServer({ args: ['--pair-secs', '3'] });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function visitor(viewport) {
  const context = await browser.newContext({ viewport });
  const page = await openPage(context, `${server.url}/`);
  await page.locator('#lobby-presets button').first().waitFor();
  return { context, page };
}

const preset = (page, id) => page.locator(`#lobby-presets button[data-preset="${id}"]`);

/** Whether the element lies wholly inside the window as it is scrolled now. */
const inWindow = (page, selector) =>
  page.evaluate((sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
  }, selector);

/**
 * Watches the lobby's list from now on: resolves to every text it showed, read every
 * 50 ms, until `stop()`.
 */
async function watchList(page) {
  await page.evaluate(() => {
    window.__listed = [];
    window.__watch = setInterval(() => {
      for (const li of document.querySelectorAll('#lobby-list li')) window.__listed.push(li.textContent);
    }, 50);
  });
  return () => page.evaluate(() => (clearInterval(window.__watch), window.__listed));
}

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
]) {
  test(`${name}: a lone search counts its wait, ends in place with three choices, and never lists itself`, async () => {
    const { context, page } = await visitor(viewport);
    const stop = await watchList(page);
    await preset(page, '1+0').click();
    await page.locator('#lobby-waiting').waitFor();
    assert.match(await page.locator('#lobby-waiting-text').innerText(), /^Waiting for an opponent… Nine Men.s Morris, 1\+0$/);
    // the time waited, counting
    await page.locator('#lobby-elapsed').filter({ hasText: '0:01' }).waitFor();
    assert.equal(await page.locator('#lobby-elapsed').getAttribute('role'), 'timer');
    assert.equal(await page.locator('#lobby-after').isVisible(), false);
    assert.deepEqual(await axeSerious(page), []);

    // nobody comes: said where the waiting line was, in view, with what to do next
    const ended = page.locator('#lobby-waiting-text').filter({ hasText: /^Nobody came for Nine Men.s Morris, 1\+0 in 0:0[34]\.$/ });
    await ended.waitFor({ timeout: 6000 });
    assert.equal(await page.locator('#notice').isVisible(), false, 'not in the banner');
    assert.equal(await page.locator('#lobby-cancel').isVisible(), false);
    assert.equal(await page.locator('#lobby-elapsed').isVisible(), false);
    for (const [id, text] of [
      ['lobby-again', 'Keep waiting'],
      ['lobby-invite', 'Invite a friend'],
      ['lobby-computer', 'Play the computer'],
    ]) {
      assert.equal(await page.locator(`#${id}`).innerText(), text);
      assert.ok(await inWindow(page, `#${id}`), `${id} is in view`);
    }
    assert.ok(await inWindow(page, '#lobby-waiting-text'), 'the outcome is in view');
    // the keyboard is on the next step
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'lobby-again');
    await shot(page, `lobby-00-nobody-came-${name}`);
    assert.deepEqual(await axeSerious(page), []);

    // the lobby is read at least once more (every 3 s): the expired seek is never offered
    await page.waitForTimeout(3500);
    assert.deepEqual(await stop(), [], 'the page never listed its own seek');
    assert.equal(await page.locator('#lobby-empty').isVisible(), true);
    // a search nobody came to is no error: nothing in the console (no 404)
    assert.deepEqual(page.errors, []);
    await context.close();
  });
}

test('Keep waiting searches again; Invite a friend opens a room of that game and clock; Play the computer', async () => {
  const { context, page } = await visitor(DESKTOP);
  await preset(page, '3+2').click();
  await page.locator('#lobby-again').waitFor({ timeout: 6000 });

  // Keep waiting: the same search again, counted from zero
  await page.locator('#lobby-again').click();
  assert.match(await page.locator('#lobby-waiting-text').innerText(), /^Waiting for an opponent… Nine Men.s Morris, 3\+2$/);
  assert.equal(await page.locator('#lobby-elapsed').innerText(), '0:00');
  assert.equal(await page.locator('#lobby-after').isVisible(), false);
  await page.locator('#lobby-again').waitFor({ timeout: 6000 });

  // Invite a friend: a room on 3+2, its link to send
  const created = page.waitForRequest((r) => r.url().endsWith('/api/rooms') && r.method() === 'POST');
  await page.locator('#lobby-invite').click();
  assert.deepEqual(JSON.parse((await created).postData()), { variant: 'nine', clock: { initial: 180, increment: 2 } });
  await page.waitForURL(/\/r\/[a-z0-9]+$/);
  await page.locator('#invite').waitFor();

  // back on the start screen: Play the computer
  await page.locator('#menu').click();
  await preset(page, 'untimed').click();
  await page.locator('#lobby-computer').waitFor({ timeout: 6000 });
  await page.locator('#lobby-computer').click();
  await page.waitForURL(/#computer$/);
  await page.locator('#computer-controls').waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Russian: the wait and its end in Russian words', async () => {
  const { context, page } = await visitor(PHONE);
  await page.locator('#lang').click();
  await preset(page, '5+3').click();
  assert.match(await page.locator('#lobby-waiting-text').innerText(), /^Ждём соперника…/);
  assert.match(await page.locator('#lobby-elapsed').getAttribute('aria-label'), /^Ждём 0:0\d$/);
  await page.locator('#lobby-again').waitFor({ timeout: 6000 });
  assert.match(await page.locator('#lobby-waiting-text').innerText(), /^За 0:0[34] никто не пришёл: /);
  assert.deepEqual(
    await page.locator('#lobby-after button').allInnerTexts(),
    ['Ждать дальше', 'Пригласить друга', 'Играть с компьютером'],
  );
  await shot(page, 'lobby-01-nobody-came-phone-ru');
  assert.deepEqual(page.errors, []);
  await context.close();
});

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
]) {
  for (const locale of ['en-GB', 'ru-RU']) {
    test(`${name}, ${locale}: "Play online" and who is waiting are on the first screen, with the three modes`, async () => {
      const context = await browser.newContext({ viewport, locale });
      const page = await context.newPage();
      // Someone is waiting (the lobby's answer, fixed so the layout is judged alone).
      await page.route('**/api/seeks', (route) =>
        route.fulfill({
          contentType: 'application/json',
          body: JSON.stringify({ seeks: [{ variant: 'nine', clock: { initial: 180, increment: 2 }, waiting: 9000 }], protocol: 1 }),
        }),
      );
      await page.goto(`${server.url}/`);
      await page.locator('#lobby-list li button').waitFor();
      assert.equal(await page.evaluate(() => window.scrollY), 0);
      for (const sel of ['#lobby-title', '#lobby-presets', '#lobby-list li', '#start-local', '#start-friend', '#start-computer']) {
        assert.ok(await inWindow(page, sel), `${sel} is on the first screen`);
      }
      await shot(page, `lobby-02-first-screen-${name}-${locale}`);
      await context.close();
    });
  }
}

test('a custom clock under 15 s is said where it is typed, and nothing is sent', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await openPage(context, `${server.url}/`);
  const sent = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/rooms')) sent.push(r.postData());
  });
  await page.locator('#clock-preset').selectOption('custom');
  await page.locator('#clock-minutes').fill('0.1');
  await page.locator('#clock-minutes').press('Tab');
  const error = page.locator('#clock-custom-error');
  await error.filter({ hasText: /^A clock may have 15 seconds to 3 hours each/ }).waitFor();
  assert.equal(await page.locator('#clock-minutes').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#start-friend-clock').isVisible(), false, 'no badge for a time that cannot be');
  await shot(page, 'lobby-03-custom-clock-too-short');

  // "Play with a friend" sends nothing: the keyboard goes back to the minutes
  await page.locator('#start-friend').click();
  await page.waitForTimeout(300);
  assert.deepEqual(sent, []);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'clock-minutes');
  assert.equal(await page.locator('#notice').isVisible(), false, 'not in the banner');
  assert.ok(await inWindow(page, '#clock-custom-error'));

  // too many seconds added, in Russian
  await page.locator('#lang').click();
  await page.locator('#clock-minutes').fill('5');
  assert.equal(await error.innerText(), '', 'cleared once right');
  await page.locator('#clock-increment').fill('200');
  await page.locator('#clock-increment').press('Tab');
  await error.filter({ hasText: /^На часах может быть от 15 секунд/ }).waitFor();
  await page.locator('#lang').click();

  // 15 s is a clock: the room is made
  await page.locator('#clock-increment').fill('0');
  await page.locator('#clock-minutes').fill('0.25');
  await page.locator('#start-friend').click();
  await page.waitForURL(/\/r\/[a-z0-9]+$/);
  assert.deepEqual(sent.map((b) => JSON.parse(b).clock), [{ initial: 15, increment: 0 }]);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a paired round called off (nobody moved) offers another search with the same settings, not Share; so does a finished one', async () => {
  const a = await visitor(PHONE);
  const b = await visitor(DESKTOP);
  await preset(a.page, '1+0').click();
  await a.page.locator('#lobby-elapsed').waitFor();
  await preset(b.page, '1+0').click();
  await a.page.waitForURL(/\/r\/[a-z0-9]+$/);
  await b.page.waitForURL(/\/r\/[a-z0-9]+$/);
  const first = a.page.url();

  // Nobody moves: 30 s later the round is called off.
  for (const p of [a.page, b.page]) await p.locator('#result-title').filter({ hasText: 'Game called off' }).waitFor({ timeout: 45_000 });
  for (const p of [a.page, b.page]) {
    assert.equal(await p.locator('#find-opponent').isVisible(), true);
    assert.equal(await p.locator('#share-round').isVisible(), false, 'nothing to share: no turn was played');
    assert.equal(await p.locator('#review-open').isVisible(), false);
  }
  await shot(a.page, 'lobby-04-called-off-phone');

  // Both search again: the start screen's waiting line says the same game and clock; they meet anew.
  await a.page.locator('#find-opponent').click();
  await a.page.waitForURL((u) => u.pathname === '/');
  assert.match(await a.page.locator('#lobby-waiting-text').innerText(), /^Waiting for an opponent… Nine Men.s Morris, 1\+0$/);
  assert.ok(await inWindow(a.page, '#lobby-waiting'), 'the waiting line is in view');
  await b.page.locator('#find-opponent').click();
  await a.page.waitForURL((u) => u.pathname.startsWith('/r/') && u.href !== first);
  await b.page.waitForURL((u) => u.pathname.startsWith('/r/') && u.href !== first);
  assert.equal(a.page.url(), b.page.url());

  // A round with a turn played and then resigned: Share and another search.
  const light = (await a.page.locator('#seat-note').filter({ hasText: /You play/ }).innerText()) === 'You play Light' ? a.page : b.page;
  await light.locator('#status').filter({ hasText: 'Your turn: place a piece' }).waitFor();
  await light.locator('#board-host [data-point="d6"]').click();
  await light.locator('#resign').waitFor();
  light.once('dialog', (d) => d.accept());
  await light.locator('#resign').click();
  for (const p of [a.page, b.page]) {
    await p.locator('#find-opponent').waitFor();
    assert.equal(await p.locator('#share-round').isVisible(), true);
  }
  for (const p of [a.page, b.page]) assert.deepEqual(p.errors, []);
  await a.context.close();
  await b.context.close();
});

test('a room of "Play with a friend" offers no search when its round ends', async () => {
  const a = await visitor(DESKTOP);
  await a.page.locator('#start-friend').click();
  await a.page.waitForURL(/\/r\/[a-z0-9]+$/);
  const b = await browser.newContext({ viewport: PHONE });
  const bp = await openPage(b, a.page.url());
  await a.page.locator('#status').filter({ hasText: 'Your turn: place a piece' }).waitFor();
  await a.page.locator('#board-host [data-point="d6"]').click();
  a.page.once('dialog', (d) => d.accept());
  await a.page.locator('#resign').click();
  await a.page.locator('#share-round').waitFor();
  await bp.locator('#share-round').waitFor();
  assert.equal(await a.page.locator('#find-opponent').isVisible(), false);
  assert.equal(await bp.locator('#find-opponent').isVisible(), false);
  await a.context.close();
  await b.close();
});

/** The number of lines the element's text takes. */
const lines = (page, selector) =>
  page.evaluate((sel) => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(sel));
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  }, selector);

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
]) {
  test(`${name}: both player cards are laid out alike, and the claim's buttons keep their words on one line`, async () => {
    const a = await visitor(viewport);
    await a.page.locator('#start-friend').click();
    await a.page.waitForURL(/\/r\/[a-z0-9]+$/);
    const b = await browser.newContext({ viewport });
    const bp = await openPage(b, a.page.url());
    for (const p of [a.page, bp]) await p.locator('.card[data-side="dark"] .presence.online').waitFor();
    for (const lang of ['en', 'ru']) {
      if (lang === 'ru') await a.page.locator('#lang').click();
      // The presence sits at the same height in both cards, whichever is "you".
      const tops = await a.page.evaluate(() =>
        ['light', 'dark'].map((side) => {
          const card = document.querySelector(`.card[data-side="${side}"]`);
          return Math.round(card.querySelector('.presence').getBoundingClientRect().top - card.getBoundingClientRect().top);
        }),
      );
      assert.equal(tops[0], tops[1], `${lang}: presence at ${tops}`);
      // The claim box as a seat sees it while the countdown runs: its buttons disabled.
      const words = await a.page.evaluate(() => {
        document.getElementById('claim').hidden = false;
        for (const id of ['claim-win', 'call-draw']) document.getElementById(id).disabled = true;
        return [document.getElementById('claim-win').textContent, document.getElementById('call-draw').textContent];
      });
      assert.equal(await lines(a.page, '#claim-win'), 1, `${lang}: "${words[0]}" on one line`);
      assert.equal(await lines(a.page, '#call-draw'), 1, `${lang}: "${words[1]}" on one line`);
      await shot(a.page, `lobby-05-cards-claim-${name}-${lang}`);
    }
    await a.context.close();
    await b.close();
  });
}
