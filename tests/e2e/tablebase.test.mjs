// Hard plays an ending from the endgame tables in a real browser: mill-server serves the
// tables (generated here, 3 v 3 only, by `mill tb generate --max 3`), the vs-computer game
// starts from a saved game in such an ending, and the engine's worker fetches the class,
// loads it and plays the tables' turn. Without tables (the static stand-in server, no
// manifest) the same game is searched as before. A server whose download limit leaves the
// class out (`--tb-download-max`, as Nine's 5 v 5 is left out) lists it as probed, and the
// worker asks GET /api/tb/probe instead: the computer plays the server's turn. Review marks
// a turn that threw away the win by the tables' values, in English and Russian.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { clickAction, launch, openPage, preloadStorage, ROOT, startMillServer, startStaticServer } from './helpers.mjs';
import { loadWasm } from '../unit/helpers.mjs';

// Light to move would win at once (g1-g7 closes a7 d7 g7); Dark, the computer, is to move
// and the tables choose its defence.
const ENDING = 'LL./.../D../...D.D/.../.../..L d 0 0 0 0';
const SETTINGS = { level: 'hard', human: 'light', seed: 5 };

const millBin = () => process.env.MILL_BIN ?? join(ROOT, 'target', 'debug', 'mill');

let dir;
let server;
let probing;
let browser;
let table;

before(async () => {
  if (!existsSync(millBin())) throw new Error(`mill not found at ${millBin()}: cargo build -p mill-cli, or set MILL_BIN`);
  dir = mkdtempSync(join(tmpdir(), 'mill-e2e-tb-'));
  execFileSync(millBin(), ['tb', 'generate', '--dir', dir, '--max', '3'], { stdio: 'ignore' });
  table = readFileSync(join(dir, 'nine-3v3.mtb'));
  server = await startMillServer({ args: ['--tb-dir', dir] });
  // The same tables, none of them small enough to download: the server answers for them.
  probing = await startMillServer({ args: ['--tb-dir', dir, '--tb-download-max', '1000'] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await probing?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The turn the tables give for `record`, by the same wasm in node with the same file loaded. */
async function tablesTurn(record) {
  const mod = await loadWasm();
  assert.equal(JSON.parse(mod.load_tablebase(new Uint8Array(table))).ok, true);
  const reply = JSON.parse(mod.best_turn(record, 'hard', 1, 1000));
  assert.equal(reply.depth, 1, JSON.stringify(reply));
  assert.equal(reply.tbHits, 1, JSON.stringify(reply));
  return reply.turn;
}

/** The vs-computer game in the ending, Hard as Dark; resolves once the computer has moved. */
async function playEnding(url) {
  const context = await browser.newContext();
  const requests = [];
  // The page's and its workers' requests; the service worker's own (keeping the release and
  // the tables for offline play, static/sw.js) are not the engine's.
  context.on('request', (r) => r.serviceWorker() || requests.push(new URL(r.url()).pathname));
  await preloadStorage(context, {
    'mill.game.computer': JSON.stringify({ start: ENDING, actions: [] }),
    'mill.computer.settings': JSON.stringify(SETTINGS),
  });
  const page = await openPage(context, `${url}/`);
  await page.locator('#start-computer').click();
  await page.waitForFunction(() => document.querySelectorAll('#record li').length > 0, null, { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector('#status')?.dataset.tone !== 'wait', null, { timeout: 30_000 });
  const turn = await page.locator('#record li').first().evaluate((li) => [...li.children].slice(1).map((s) => s.textContent).filter(Boolean).at(-1));
  const workers = page.workers();
  const status = workers.length ? await workers.at(-1).evaluate(() => self.millTables) : null;
  return { context, page, requests, turn, status };
}

test('Hard reaches an ending in the tables: the worker fetches the class, loads it and plays its turn', async () => {
  const expected = await tablesTurn(JSON.stringify({ start: ENDING, actions: [] }));
  const { context, page, requests, turn, status } = await playEnding(server.url);
  assert.equal(turn, expected);
  assert.deepEqual(
    requests.filter((p) => p.startsWith('/tb/')),
    ['/tb/manifest.json', '/tb/nine-3v3.mtb'],
  );
  assert.equal(status.manifests, 1);
  assert.deepEqual(status.failed, []);
  assert.deepEqual(status.loaded.map((l) => [l.rules, l.class, l.bytes]), [['nine', '3v3', table.length]]);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('without tables on the server the same ending is searched, and the game goes on', async () => {
  const plain = await startStaticServer();
  try {
    const { context, page, requests, turn, status } = await playEnding(plain.url);
    assert.ok(turn, 'the computer moved');
    assert.deepEqual(requests.filter((p) => p.startsWith('/tb/')), ['/tb/manifest.json']);
    assert.deepEqual(status.loaded, []);
    assert.match(status.failed[0].reason, /404/);
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    await plain.close();
  }
});

/** The server's own answer for a position (GET /api/tb/probe), from node. */
async function serverAnswer(url, position) {
  const response = await fetch(`${url}/api/tb/probe?variant=nine&position=${encodeURIComponent(position)}`);
  assert.equal(response.status, 200);
  return response.json();
}

test('a class too big to download is asked of the server: Hard plays the server’s turn', async () => {
  const manifest = await (await fetch(`${probing.url}/tb/manifest.json`)).json();
  assert.deepEqual(manifest.tables, []);
  assert.deepEqual(manifest.probed.map((e) => [e.rules, e.class]), [['nine', '3v3']]);
  const expected = await serverAnswer(probing.url, ENDING);
  const { context, page, requests, turn, status } = await playEnding(probing.url);
  assert.equal(turn, expected.best);
  const asked = requests.filter((p) => p.startsWith('/tb/') || p.startsWith('/api/tb/'));
  assert.deepEqual(asked, ['/tb/manifest.json', '/api/tb/probe'], 'no table downloaded');
  assert.deepEqual(status.loaded, []);
  assert.deepEqual(status.probes, [{ position: ENDING, ok: true, status: 200 }]);
  assert.deepEqual(page.errors, []);
  await context.close();
});

// Light to move wins at once (g1-g7 closes a7 d7 g7); g1-a1 lets Dark close a mill first.
const WON = 'LL./.../D../...D.D/.../.../..L l 0 0 0 0';

for (const [locale, words] of [
  ['en-US', 'The tables say this threw away the win'],
  ['ru-RU', 'По таблицам этот ход упустил выигрыш'],
]) {
  test(`review marks the turn that threw away the win by the tables (${locale})`, async () => {
    const answer = await serverAnswer(probing.url, WON);
    assert.equal(answer.value, 'win');
    assert.equal(answer.turns.find((t) => t.turn === 'g1-a1')?.value, 'loss', 'the tables call g1-a1 a loss');
    const context = await browser.newContext({ locale });
    const requests = [];
    context.on('request', (r) => r.serviceWorker() || requests.push(new URL(r.url()).pathname));
    const page = await openPage(context, `${probing.url}/`);
    await page.locator('#start-local').click();
    await page.locator('#board-host [data-point="a1"]').waitFor();
    await page.locator('#import-record').click();
    await page.locator('#import-text').fill(WON);
    await page.locator('#import-load').click();
    await page.waitForFunction(() => !document.getElementById('import-dialog').open);
    await clickAction(page, 'g1-a1');
    await page.locator('#review-open').click();
    // Both positions judged exactly: the turn is marked, and says what it did.
    const mark = page.locator('#record button.turn[data-mark]');
    await mark.waitFor({ timeout: 30_000 });
    assert.equal(await mark.getAttribute('data-mark'), 'blunder');
    assert.ok((await mark.textContent()).includes(words), await mark.textContent());
    await page.waitForFunction((w) => document.getElementById('analysis-mark')?.textContent.includes(w), words, { timeout: 30_000 });
    // Three a side the worker solves itself: the server is not asked what the worker knows.
    assert.deepEqual(requests.filter((p) => p.startsWith('/api/tb/')), []);
    assert.deepEqual(page.errors, []);
    await context.close();
  });
}
