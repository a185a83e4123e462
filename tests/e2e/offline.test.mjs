// Installable and offline, through a real mill-server (MILL_SERVER_BIN) with endgame
// tables (MILL_BIN generates 3 v 3 of Nine and of Six): the manifest and its icons; after
// one visit the service worker (static/sw.js) keeps the release, so a reload with no
// network plays a whole game against the computer and the puzzles page solves a puzzle;
// it keeps a rule set's tables, compressed, only once Hard is played on it, and what it
// stores is bounded; a new release deployed while a page is open is offered with "A new
// version is ready", and the reload brings the new release whole — never a mix of files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { parseSet, turnActions } from '../../static/js/puzzles-logic.js';
import { clickAction, launch, openPage, PHONE, preloadStorage, ROOT, STATIC, startMillServer } from './helpers.mjs';

const millBin = () => process.env.MILL_BIN ?? join(ROOT, 'target', 'debug', 'mill');

let tables;
let browser;

before(async () => {
  if (!existsSync(millBin())) throw new Error(`mill not found at ${millBin()}: cargo build -p mill-cli, or set MILL_BIN`);
  tables = mkdtempSync(join(tmpdir(), 'mill-e2e-offline-tb-'));
  execFileSync(millBin(), ['tb', 'generate', '--dir', tables, '--max', '3'], { stdio: 'ignore' });
  execFileSync(millBin(), ['tb', 'generate', '--variant', 'six', '--dir', tables, '--max', '3'], { stdio: 'ignore' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (tables) rmSync(tables, { recursive: true, force: true });
});

/** Waits until the worker of the page is active: its release and the tables are kept. */
const workerReady = (page) =>
  page.evaluate(async () => {
    const worker = (await navigator.serviceWorker.ready).active;
    if (worker.state !== 'activated') await new Promise((resolve) => worker.addEventListener('statechange', () => worker.state === 'activated' && resolve()));
    return worker.state;
  });

/** The versions (`?v=`) of every file the page loaded, except the tables (versioned by their own bytes). */
const versionsLoaded = (page) =>
  page.evaluate(() => [
    ...new Set(
      performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name))
        .filter((u) => u.searchParams.has('v') && !u.pathname.startsWith('/tb/'))
        .map((u) => u.searchParams.get('v')),
    ),
  ]);

/** What the worker stores: each cache's files (path → bytes stored) and the origin's usage. */
const stored = (page) =>
  page.evaluate(async () => {
    const out = { usage: (await navigator.storage.estimate()).usage ?? 0, caches: {} };
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      const files = {};
      for (const request of await cache.keys()) files[new URL(request.url).pathname] = (await (await cache.match(request)).blob()).size;
      out.caches[name.startsWith('mill-release-') ? 'release' : name] = files;
    }
    return out;
  });

const total = (files = {}) => Object.values(files).reduce((a, b) => a + b, 0);

const said = (page) => page.evaluate(() => Number(document.getElementById('announce').dataset.count ?? 0));

/** Types a line into the Command field; resolves to what was said after it, once `until` is said. */
async function type(page, text, until = /./) {
  const since = await said(page);
  await page.locator('#command').fill(text);
  await page.locator('#command').press('Enter');
  await page.waitForFunction(
    ([n, source]) => {
      const region = document.getElementById('announce');
      const all = [...region.children].map((p) => p.textContent);
      return all.slice(Math.max(0, all.length - (Number(region.dataset.count) - n))).some((s) => new RegExp(source).test(s));
    },
    [since, until.source],
    { timeout: 30_000 },
  );
  return page.evaluate((n) => {
    const region = document.getElementById('announce');
    const all = [...region.children].map((p) => p.textContent);
    return all.slice(Math.max(0, all.length - (Number(region.dataset.count) - n)));
  }, since);
}

test('the manifest names the page, its colours and its icons, and they are served', async () => {
  const server = await startMillServer({ args: ['--tb-dir', tables] });
  try {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await openPage(context, `${server.url}/`);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    const manifest = await (await page.request.get(new URL(href, server.url).href)).json();
    assert.equal(manifest.short_name, 'Mill');
    assert.equal(manifest.display, 'standalone');
    assert.equal(manifest.start_url, '/');
    assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/);
    assert.match(manifest.background_color, /^#[0-9a-f]{6}$/);
    const sizes = manifest.icons.map((i) => `${i.sizes} ${i.purpose}`);
    for (const need of ['192x192 any', '512x512 any', '512x512 maskable']) assert.ok(sizes.includes(need), need);
    for (const icon of manifest.icons) {
      const response = await page.request.get(new URL(icon.src, server.url).href);
      assert.equal(response.headers()['content-type'], 'image/png');
      const png = await response.body();
      // The PNG header's width and height are the size the manifest says.
      const [w, h] = icon.sizes.split('x').map(Number);
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [w, h], icon.src);
    }
    // The worker's script is revalidated, never kept as immutable.
    const sw = await page.request.get(`${server.url}/sw.js?scope=root`);
    assert.equal(sw.headers()['cache-control'], 'no-cache');
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    await server.close();
  }
});

test('after one visit, with no network: reload, a whole game against the computer', async () => {
  const server = await startMillServer({ args: ['--tb-dir', tables] });
  try {
    const context = await browser.newContext({ viewport: PHONE });
    await preloadStorage(context, { 'mill.screen-reader': 'on', 'mill.computer.settings': JSON.stringify({ level: 'easy', human: 'light', seed: 9 }) });
    const page = await openPage(context, `${server.url}/`);
    assert.equal(await workerReady(page), 'activated');
    assert.ok((await page.evaluate(() => caches.keys())).some((n) => n.startsWith('mill-release-')));

    await context.setOffline(true);
    await page.reload();
    await page.locator('#start-computer').waitFor();
    // Online play needs the server: its API is never answered by the worker.
    const api = await page.evaluate(() => fetch('/api/health').then(() => 'answered', () => 'failed'));
    assert.equal(api, 'failed');

    // Online play says plainly that it needs the network, and stops saying so when it is back.
    assert.equal(await page.locator('#start-friend .offline-hint').isVisible(), true);
    assert.equal(await page.locator('#start-friend .offline-hint').innerText(), 'Needs the network: you are offline');
    await context.setOffline(false);
    await page.locator('#start-friend .offline-hint').waitFor({ state: 'hidden' });
    await context.setOffline(true);
    await page.locator('#start-friend .offline-hint').waitFor();
    await page.locator('#variant').selectOption('three');
    await page.locator('#start-computer').click();
    await page.locator('#command').waitFor();
    let over = false;
    for (let i = 0; i < 80 && !over; i++) {
      const legal = (await type(page, 'legal')).at(-1);
      const m = /^You can: (place on|move|remove) ([a-g][1-7])(?: to ([a-g][1-7]))?/.exec(legal);
      assert.ok(m, legal);
      const action = m[1] === 'remove' ? `x${m[2]}` : m[1] === 'move' ? `${m[2]}-${m[3]}` : m[2];
      const heard = await type(page, action, /Your turn|Game over|You closed a mill/);
      over = heard.some((s) => s.includes('Game over'));
    }
    assert.ok(over, 'the game ended with no network');
    assert.equal(await page.locator('#result').isVisible(), true);
    // The rules page too.
    await page.goto(`${server.url}/rules`);
    await page.locator('h1').first().waitFor();
    assert.deepEqual(page.errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|net::/.test(e)), []);
    await context.close();
  } finally {
    await server.close();
  }
});

test('what the worker stores: the release after one visit, a rule set\u2019s tables (compressed) once Hard is played on it', async () => {
  const server = await startMillServer({ args: ['--tb-dir', tables] });
  try {
    const context = await browser.newContext({ viewport: PHONE });
    // Hard, the person Dark: the computer opens as soon as the game starts.
    await preloadStorage(context, { 'mill.computer.settings': JSON.stringify({ level: 'hard', human: 'dark', seed: 3 }) });
    const page = await openPage(context, `${server.url}/`);
    assert.equal(await workerReady(page), 'activated');
    const first = await stored(page);
    // One visit keeps the release (the pages, their code, the WebAssembly, the puzzle
    // sets) and no endgame table of any rule set.
    assert.deepEqual(Object.keys(first.caches), ['release'], JSON.stringify(Object.keys(first.caches)));
    for (const path of ['/', '/rules', '/puzzles', '/pkg/mill_wasm_bg.wasm', '/puzzles/nine.json']) assert.ok(path in first.caches.release, path);
    assert.ok(first.usage < 3_000_000, `${first.usage} bytes after one visit`);
    // A puzzle set is stored compressed, and served whole.
    assert.ok(first.caches.release['/puzzles/nine.json'] < readFileSync(join(STATIC, 'puzzles/nine.json')).length / 3);
    const manifest = await page.evaluate(() => fetch('/tb/manifest.json').then((r) => r.json()));
    const nine = manifest.tables.filter((t) => t.rules === 'nine');
    assert.ok(nine.length > 0 && manifest.tables.some((t) => t.rules === 'six'));

    // A game against the computer at Hard on Nine: Nine's tables are kept, Six's are not.
    await page.locator('#start-computer').click();
    await page.locator('#board-host [data-point]').first().waitFor();
    await page.waitForFunction(
      async (want) => {
        const cache = await caches.open('mill-tables');
        const have = (await cache.keys()).map((r) => new URL(r.url).pathname);
        return want.every((p) => have.includes(p));
      },
      nine.map((t) => new URL(t.url, 'http://x').pathname),
      { timeout: 30_000 },
    );
    const after = await stored(page);
    const kept = Object.keys(after.caches['mill-tables']).filter((p) => p.endsWith('.mtb')).sort();
    assert.deepEqual(kept, nine.map((t) => new URL(t.url, 'http://x').pathname).sort());
    const raw = nine.reduce((a, t) => a + t.bytes, 0);
    assert.ok(total(after.caches['mill-tables']) < raw / 4, `tables stored in ${total(after.caches['mill-tables'])} bytes, ${raw} whole`);
    assert.ok(after.usage - first.usage < raw / 2, `${after.usage - first.usage} bytes more after the game`);
    console.log(`# stored after one visit: ${first.usage} bytes (release ${total(first.caches.release)}); after Hard on Nine: ${after.usage} (tables ${total(after.caches['mill-tables'])}, ${raw} whole)`);

    // With no network (the page reloaded: the worker's now) the kept table is served whole.
    await context.setOffline(true);
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const offline = await page.evaluate(async (entry) => {
      const manifest = await (await fetch('/tb/manifest.json')).json();
      const bytes = (await (await fetch(entry.url)).arrayBuffer()).byteLength;
      return { bytes, listed: manifest.tables.length };
    }, nine[0]);
    assert.deepEqual(offline, { bytes: nine[0].bytes, listed: manifest.tables.length });
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    await server.close();
  }
});

test('the puzzles after one visit, with no network: the page, its modules and its data, a puzzle solved', async () => {
  const server = await startMillServer({ args: ['--tb-dir', tables] });
  try {
    const set = parseSet(readFileSync(join(STATIC, 'puzzles/nine.json'), 'utf8'));
    const long = set.find((p) => p.source === 'tablebase' && p.solution.length >= 3);
    const context = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
    // The first visit is the puzzles page itself: it registers the worker.
    const page = await openPage(context, `${server.url}/puzzles`);
    await page.locator('body[data-ready="true"]').waitFor({ timeout: 30_000 });
    assert.equal(await workerReady(page), 'activated');
    await context.setOffline(true);
    await page.goto(`${server.url}/puzzles#${long.id}`);
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor({ timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.puzzle), long.id);
    assert.equal(await page.evaluate(() => navigator.onLine), false);
    for (let i = 0; i < long.solution.length; i += 2) {
      for (const action of turnActions(long.solution[i])) await clickAction(page, action);
      const want = i + 1 < long.solution.length ? 'solving' : 'solved';
      await page.locator(`body[data-phase="${want}"]`).waitFor({ timeout: 20_000 });
    }
    assert.match(await page.locator('#status').innerText(), /Solved/);
    // Another rule set's puzzles too.
    await page.locator('#puzzle-variant').selectOption('six');
    await page.locator('body[data-phase="solving"]').waitFor();
    assert.match(await page.evaluate(() => document.body.dataset.puzzle), /^six-/);
    assert.deepEqual(page.errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|net::/.test(e)), []);
    await context.close();
  } finally {
    await server.close();
  }
});

test('a new release deployed while a page is open: "A new version is ready", and the reload brings it whole', async () => {
  const files = mkdtempSync(join(tmpdir(), 'mill-e2e-release-'));
  cpSync(STATIC, files, { recursive: true });
  let server = await startMillServer({ staticDir: files });
  const addr = new URL(server.url).host;
  try {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await openPage(context, `${server.url}/`);
    await workerReady(page);
    // A second load is the worker's: the first release, whole.
    await page.reload();
    const [first] = await versionsLoaded(page);
    assert.deepEqual(await versionsLoaded(page), [first]);
    assert.equal(await page.locator('#update').isHidden(), true);

    // The next release: one file changed, the server restarted on the same address.
    appendFileSync(join(files, 'style.css'), '\n/* the next release */\n');
    await server.close({ keepDb: true });
    server = await startMillServer({ addr, dir: server.dir, staticDir: files });
    // The page stays on the old release, whole, until the person chooses to reload.
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await page.locator('#update').waitFor();
    assert.equal(await page.locator('#update').innerText(), 'A new version is ready Reload');
    assert.deepEqual(await versionsLoaded(page), [first]);
    await Promise.all([page.waitForEvent('load'), page.locator('#update-reload').click()]);
    await page.locator('#start-local').waitFor();
    const next = await versionsLoaded(page);
    assert.equal(next.length, 1, `one release: ${next}`);
    assert.notEqual(next[0], first);
    const caches = await page.evaluate(async () => (await caches.keys()).filter((n) => n.startsWith('mill-release-')));
    assert.deepEqual(caches, [`mill-release-${next[0]}`]);
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    await server.close();
    rmSync(files, { recursive: true, force: true });
  }
});
