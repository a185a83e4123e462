// Review judges an ending the page cannot download by asking the server: mill-server holds
// Nine's tables to four a side but serves none of them for download (`--tb-download-max`,
// as it keeps Nine's 5 v 5 for itself), so the review's worker asks GET /api/tb/probe for
// each position of the game, and the turn that threw away the win is marked by the
// tables' values. The tables are those the test command leaves in tb/ (Nine's to 4 v 4),
// or made here by `mill tb generate --max 4` when tb/ has none.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { clickAction, launch, openPage, ROOT, startMillServer } from './helpers.mjs';

// Four Light pieces against three, Light to move: b4-a4 closes a7 a4 a1 and wins at once;
// a1-d1 lets the win go (the tables call it a draw). Neither side flies with four, so the
// worker's own three-a-side solver knows neither position.
const WON = 'L../..D/..L/.L..../.../.D./L.D l 0 0 0 0';

const millBin = () => process.env.MILL_BIN ?? join(ROOT, 'target', 'debug', 'mill');

let made = null;
let server;
let browser;

before(async () => {
  let tables = join(ROOT, 'tb');
  if (!['3v3', '3v4', '4v3', '4v4'].every((c) => existsSync(join(tables, `nine-${c}.mtb`)))) {
    if (!existsSync(millBin())) throw new Error(`mill not found at ${millBin()}: cargo build -p mill-cli, or set MILL_BIN`);
    made = mkdtempSync(join(tmpdir(), 'mill-e2e-tb4-'));
    execFileSync(millBin(), ['tb', 'generate', '--variant', 'nine', '--dir', made, '--max', '4'], { stdio: 'ignore' });
    tables = made;
  }
  server = await startMillServer({ args: ['--tb-dir', tables, '--tb-download-max', '1000', '--tb-probes-per-minute', '0'] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (made) rmSync(made, { recursive: true, force: true });
});

/** The server's own answer for a position, from node. */
async function serverAnswer(position) {
  const response = await fetch(`${server.url}/api/tb/probe?variant=nine&position=${encodeURIComponent(position)}`);
  assert.equal(response.status, 200);
  return response.json();
}

test('review marks a four-a-side turn that threw away the win from the server’s tables', async () => {
  const manifest = await (await fetch(`${server.url}/tb/manifest.json`)).json();
  assert.deepEqual(manifest.tables, [], 'nothing to download');
  assert.deepEqual(manifest.probed.filter((e) => e.rules === 'nine').map((e) => e.class).sort(), ['3v3', '3v4', '4v3', '4v4']);
  const answer = await serverAnswer(WON);
  assert.equal(answer.value, 'win');
  assert.equal(answer.turns.find((t) => t.turn === 'a1-d1')?.value, 'draw', 'the tables call a1-d1 a draw');
  const context = await browser.newContext({ locale: 'en-US' });
  const requests = [];
  context.on('request', (r) => r.serviceWorker() || requests.push(new URL(r.url()).pathname + new URL(r.url()).search));
  const page = await openPage(context, `${server.url}/`);
  await page.locator('#start-local').click();
  await page.locator('#board-host [data-point="a1"]').waitFor();
  await page.locator('#import-record').click();
  await page.locator('#import-text').fill(WON);
  await page.locator('#import-load').click();
  await page.waitForFunction(() => !document.getElementById('import-dialog').open);
  await clickAction(page, 'a1-d1');
  await page.locator('#review-open').click();
  const mark = page.locator('#record button.turn[data-mark]');
  await mark.waitFor({ timeout: 30_000 });
  assert.equal(await mark.getAttribute('data-mark'), 'blunder');
  const words = 'The tables say this threw away the win';
  assert.ok((await mark.textContent()).includes(words), await mark.textContent());
  // Both positions were asked of the server, and no table was downloaded.
  const probes = requests.filter((p) => p.startsWith('/api/tb/probe'));
  const asked = probes.map((p) => new URLSearchParams(p.split('?')[1]).get('position'));
  assert.ok(asked.includes(WON), JSON.stringify(probes));
  assert.ok(asked.length >= 2, JSON.stringify(probes));
  assert.deepEqual(requests.filter((p) => p.startsWith('/tb/') && !p.startsWith('/tb/manifest.json')), []);
  assert.deepEqual(page.errors, []);
  await context.close();
});
