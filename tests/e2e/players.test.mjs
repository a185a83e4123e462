// The players' pages in a real browser against the real server: the leaderboard
// /players (a table per rules and speed, links to profiles) and a profile /@/{name}
// with its results, rating chart (and its table) and game list (the neutral name of a
// deleted account, a purged room's round without a review link, paging), in English
// and Russian, with axe. The record and the established ratings are written into the
// server's SQLite file (sqlite3) before the pages are opened: reaching RD < 110 takes
// dozens of rated rounds, which crates/mill-server/tests/players.rs covers on the API.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { axeSerious, openPage, DESKTOP, PHONE, useBrowserAndServer } from './helpers.mjs';

const env = useBrowserAndServer({ mill: true });

const ownErrors = (page) => page.errors.filter((e) => !/Failed to load resource/.test(e));

/** Runs SQL on the server's database (WAL: beside the running server). */
const sql = (text) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', join(env.server.dir, 'mill.db'), text]);

async function signUp(page, name) {
  const status = await page.evaluate(async (name) => {
    const res = await fetch('/api/account', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, password: 'a fine passphrase' }) });
    return res.status;
  }, name);
  assert.equal(status, 201);
}

test('the leaderboard and a profile with its chart and games', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const page = await openPage(context);
  await page.goto(`${env.server.url}/players`, { timeout: 30_000 });
  await page.locator('body[data-ready="true"]').waitFor();
  assert.match(await page.locator('#board-status').innerText(), /Nobody is on this leaderboard yet/);
  for (const name of ['Ann_e2e', 'Bob_e2e', 'Cat_e2e']) await signUp(page, name);
  const now = Date.now();
  const day = 86_400_000;
  sql(`
    INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
      SELECT id, 'nine', 'blitz', CASE name_key WHEN 'ann_e2e' THEN 1712.4 WHEN 'bob_e2e' THEN 1650 ELSE 1900 END,
             CASE name_key WHEN 'cat_e2e' THEN 200 ELSE 70 END, 0.06, 40, ${now - day} FROM accounts;
    INSERT INTO rooms (id, created_at, active_at) VALUES ('roomlive1', ${now}, ${now});
  `);
  // Ann's record, oldest first: three rated rounds against Bob (the first room purged
  // since), one against an account deleted since, one casual against an anonymous
  // player, and 20 more casual ones so the list has a second page.
  const rows = [
    `('roomgone1', 1, 'light', (SELECT id FROM accounts WHERE name_key = 'bob_e2e'), 1, 'win', 'pieces', 'nine', 180, 2, NULL, 'blitz', 1500, 1662.3, ${now - 5 * day})`,
    `('roomlive1', 1, 'dark', (SELECT id FROM accounts WHERE name_key = 'bob_e2e'), 1, 'loss', 'resignation', 'nine', 180, 2, NULL, 'blitz', 1662.3, 1640.1, ${now - 4 * day})`,
    `('roomlive1', 2, 'light', NULL, 1, 'win', 'timeout', 'nine', 180, 2, NULL, 'blitz', 1640.1, 1712.4, ${now - 3 * day})`,
  ];
  for (let i = 0; i < 21; i++) {
    rows.push(`('roomcas${i}', 1, 'light', NULL, 0, 'draw', 'agreement', 'six', NULL, NULL, NULL, NULL, NULL, NULL, ${now - 2 * day + i})`);
  }
  sql(`INSERT INTO player_games (room_id, round, color, opponent_id, opponent_signed, result, reason, rules,
         clock_initial, clock_increment, clock_days, speed, rating_before, rating_after, at, account_id)
       SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9, column10, column11,
              column12, column13, column14, column15, (SELECT id FROM accounts WHERE name_key = 'ann_e2e')
       FROM (VALUES ${rows.join(', ')});`);

  await page.reload();
  await page.locator('body[data-ready="true"]').waitFor();
  await page.locator('#board-table:not([hidden])').waitFor();
  const board = await page.locator('#board-table tbody tr').allInnerTexts();
  assert.equal(board.length, 2, board.join('\n'));
  assert.match(board[0], /^1\s+Ann_e2e\s+1712/);
  assert.match(board[1], /^2\s+Bob_e2e\s+1650/);
  assert.equal(await page.locator('#board-caption').innerText(), "Nine Men's Morris · Blitz");
  assert.deepEqual(await axeSerious(page), []);
  // Another board, kept in the address.
  await page.selectOption('#board-speed', 'rapid');
  await page.waitForURL(/\/players\?rules=nine&speed=rapid$/);
  await page.locator('#board-status', { hasText: 'Nobody' }).waitFor();
  await page.selectOption('#board-speed', 'blitz');
  await page.locator('#board-table:not([hidden])').waitFor();

  // To the profile.
  await page.click('#board-table a[href="/@/Ann_e2e"]');
  await page.waitForURL(/\/@\/Ann_e2e$/);
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await page.locator('#profile-results-text').innerText(), '2 won, 21 drawn, 1 lost');
  // The chart: four points (the start and three rated rounds), and its table.
  assert.equal(await page.locator('#profile-chart-svg circle').count(), 4);
  assert.match(await page.locator('#profile-chart-svg path').getAttribute('d'), /^M[0-9.]+ [0-9.]+( L[0-9.]+ [0-9.]+){3}$/);
  assert.match(await page.locator('#profile-chart-caption').innerText(), /from 1500 to 1712 over 3 rated games/);
  assert.equal(await page.locator('#profile-chart-table tbody tr').count(), 4);
  // The games: newest first; the deleted account's neutral name; the purged room's round
  // has no review link; a second page on demand.
  const games = page.locator('#profile-games-table tbody tr');
  assert.equal(await games.count(), 24);
  await page.locator('#profile-more').waitFor({ state: 'hidden' });
  const texts = await games.allInnerTexts();
  assert.match(texts[0], /anonymous\s+Drawn\s+Six Men's Morris · untimed\s+casual\s+room closed/);
  assert.match(texts[21], /deleted player\s+Won\s+Nine Men's Morris · 3\+2\s+1712 \(\+72\)\s+Review/);
  assert.match(texts[22], /Bob_e2e\s+Lost\s+.*1640 \(\u221222\)\s+Review/);
  assert.match(texts[23], /Bob_e2e\s+Won\s+.*1662 \(\+162\)\s+room closed/);
  assert.equal(await games.nth(22).locator('a[href="/r/roomlive1/review/1"]').count(), 1);
  assert.equal(await games.nth(22).locator('a[href="/@/Bob_e2e"]').count(), 1);
  assert.deepEqual(await axeSerious(page), []);

  // Russian.
  await page.click('#lang');
  assert.equal(await page.locator('#profile-results-text').innerText(), 'побед: 2, ничьих: 21, поражений: 1');
  assert.match(await games.nth(21).innerText(), /удалённый игрок\s+Победа/);
  assert.deepEqual(await axeSerious(page), []);
  assert.deepEqual(ownErrors(page), []);
  await context.close();
});

test('the profile at a phone width', async () => {
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'en-US' });
  const page = await openPage(context);
  await page.goto(`${env.server.url}/@/ann_e2e`, { timeout: 30_000 });
  await page.locator('body[data-ready="true"]').waitFor();
  // The first page loads 100 rounds; a smaller record has no "Older games".
  assert.equal(await page.locator('#profile-more').isVisible(), false);
  assert.equal(await page.locator('#profile-name').innerText(), 'Ann_e2e');
  assert.deepEqual(await axeSerious(page), []);
  await context.close();
});
