// Perfect plays Six Men's Morris in a real browser from its tables: mill-server serves Six
// solved whole (`mill tb generate --variant six --all`: the endings to six a side and
// six-placing.mtp), a vs-computer game of Six at Perfect starts with the computer to move,
// and the engine's worker fetches every class and the placing table, loads them and plays
// the table's turn (the same turn as the same wasm in node with the same files).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { moveSeed } from '../../static/js/computer.js';
import { launch, openPage, preloadStorage, ROOT, startMillServer } from './helpers.mjs';
import { loadWasm } from '../unit/helpers.mjs';

const START = '.../.../..../.../... l 6 6 0 0 six';
const SETTINGS = { level: 'perfect', human: 'dark', seed: 5 };

const millBin = () => process.env.MILL_BIN ?? join(ROOT, 'target', 'debug', 'mill');

let dir;
let server;
let browser;

before(async () => {
  if (!existsSync(millBin())) throw new Error(`mill not found at ${millBin()}: cargo build -p mill-cli, or set MILL_BIN`);
  dir = mkdtempSync(join(tmpdir(), 'mill-e2e-six-'));
  execFileSync(millBin(), ['tb', 'generate', '--variant', 'six', '--all', '--dir', dir], { stdio: 'ignore' });
  server = await startMillServer({ args: ['--tb-dir', dir] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Perfect's turn for `record` by the same wasm in node with Six's files loaded. */
async function perfectTurn(record, seed) {
  const mod = await loadWasm();
  for (const name of readdirSync(dir).filter((n) => /^six-\dv\d\.mtb$/.test(n))) {
    assert.equal(JSON.parse(mod.load_tablebase(new Uint8Array(readFileSync(join(dir, name))))).ok, true, name);
  }
  const loaded = JSON.parse(mod.load_placing(new Uint8Array(readFileSync(join(dir, 'six-placing.mtp')))));
  assert.equal(loaded.ok, true, JSON.stringify(loaded));
  const reply = JSON.parse(mod.best_turn(record, 'perfect', seed, 1000));
  assert.deepEqual([reply.depth, reply.tbHits], [1, 1], JSON.stringify(reply));
  return reply.turn;
}

test('a Six game against Perfect: the worker fetches Six solved whole and answers from it', async () => {
  const record = JSON.stringify({ start: START, actions: [] });
  const context = await browser.newContext();
  const requests = [];
  context.on('request', (r) => r.serviceWorker() || requests.push(new URL(r.url()).pathname));
  await preloadStorage(context, { 'mill.computer.settings': JSON.stringify(SETTINGS) });
  const page = await openPage(context, `${server.url}/`);
  await page.locator('#variant').selectOption('six');
  await page.waitForFunction(() => document.getElementById('variant').value === 'six');
  await page.locator('#start-computer').click();
  await page.waitForFunction(() => document.querySelectorAll('#record li').length > 0, null, { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('#status')?.dataset.tone !== 'wait', null, { timeout: 60_000 });
  const turn = await page.locator('#record li').first().evaluate((li) => [...li.children].slice(1).map((s) => s.textContent).filter(Boolean).at(0));
  const status = await page.workers().at(-1).evaluate(() => self.millTables);
  assert.deepEqual(status.failed, []);
  assert.equal(status.loaded.length, 17);
  assert.deepEqual(status.loaded.at(-1).class, 'placing');
  // A new game draws its own seed (kept with the settings): Perfect's ties follow it.
  const { seed } = JSON.parse(await page.evaluate(() => localStorage.getItem('mill.computer.settings')));
  assert.equal(turn, await perfectTurn(record, moveSeed(seed, 0)), `seed ${seed}`);
  assert.equal(await page.locator('#computer-level-perfect').isHidden(), false);
  const tb = requests.filter((p) => p.startsWith('/tb/'));
  assert.ok(tb.includes('/tb/six-placing.mtp'), tb.join(' '));
  assert.equal(tb.filter((p) => p.endsWith('.mtb')).length, 16);
  assert.deepEqual(page.errors, []);
  await context.close();
});
