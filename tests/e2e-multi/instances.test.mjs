// Two browsers play through nginx (deploy/nginx.conf, round-robin) in front of two
// mill-server instances on one PostgreSQL database. Mid-game the instance holding the
// most sockets is killed with SIGKILL and started again; later the other one, which by
// then holds both sockets, is killed too. Each time the pages carry on by themselves
// through nginx to the survivor; they finish the game, and every acknowledged action is
// in the round's record.
// Needs MILL_TEST_PG_URL (run it as `scripts/with-postgres node --test tests/e2e-multi/`);
// without it there is nothing to test and it is skipped.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { test } from 'node:test';

import { clickAction, DESKTOP, launch, millServerBin, openPage, readBoard, shot, startMillServer } from '../e2e/helpers.mjs';
import { freePort, startNginx } from './nginx.mjs';

const ADMIN = process.env.MILL_TEST_PG_URL;

// Three Men's Morris, placing and then moving, ending in Light's line g1 g4 g7; one
// action per turn. The kills come after KILLS[0] and KILLS[1] turns.
const GAME = 'd4 a7 g7 d7 g4 a1 g4-g1 a1-d1 g1-g4 d1-a1 d4-d1 a7-a4 g4-d4 a4-a7 d4-g4 d7-d4 d1-g1'.split(' ');
const KILLS = [6, 12];
const FINAL = { a7: 'dark', g7: 'light', d4: 'dark', g4: 'light', a1: 'dark', g1: 'light' };

/** Polls `f` until it is truthy; a guard against a hang, not a timing assertion. */
async function until(f, what, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await f();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A database of its own in the cluster behind MILL_TEST_PG_URL; its URL. */
function freshDatabase() {
  const name = `mill_e2e_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [ADMIN, '-q', '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE ${name}`]);
  return `${ADMIN.slice(0, ADMIN.lastIndexOf('/'))}/${name}`;
}

/** Every WebSocket a page opens, and whether it has closed. */
function trackSockets(page) {
  page.sockets = [];
  page.on('websocket', (ws) => {
    const entry = { closed: false };
    ws.on('close', () => (entry.closed = true));
    page.sockets.push(entry);
  });
}

async function openSockets(instance) {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  return Number(/^mill_sockets (\d+)$/m.exec(text)?.[1] ?? NaN);
}

const waitPiece = (page, name, side) => page.locator(`#board-host [data-point="${name}"].${side}`).waitFor();
const online = (page) => page.evaluate(() => document.body.dataset.offline === 'false');

test('two browsers through nginx in front of two instances finish a game across a SIGKILL', { skip: !ADMIN && 'needs MILL_TEST_PG_URL (scripts/with-postgres)' }, async (t) => {
  assert.ok(existsSync(millServerBin()), `mill-server not found at ${millServerBin()}: cargo build -p mill-server, or set MILL_SERVER_BIN`);
  const db = freshDatabase();
  // Invite links name nginx, as --public-url does in a deployment.
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const args = ['--public-url', publicUrl, '--max-conns-per-ip', '0', '--rooms-per-minute', '0'];
  const instances = [];
  let nginx = null;
  let browser = null;
  let light = null;
  let dark = null;
  try {
    instances.push(await startMillServer({ db, args }));
    instances.push(await startMillServer({ db, args }));
    nginx = await startNginx(
      instances.map((s) => s.url.replace('http://', '')),
      port,
    );
    assert.equal(nginx.url, publicUrl);
    browser = await launch();

    const lightContext = await browser.newContext({ viewport: DESKTOP });
    light = await openPage(lightContext);
    trackSockets(light);
    await light.goto(`${nginx.url}/`);
    await light.locator('#variant').selectOption('three');
    await light.locator('#start-friend').click();
    await light.waitForURL(/\/r\/[a-z0-9]+$/);
    const room = new URL(light.url()).pathname.split('/').pop();
    const darkContext = await browser.newContext({ viewport: DESKTOP });
    dark = await openPage(darkContext);
    trackSockets(dark);
    // The friend opens the invite link, which names nginx.
    const invite = await light.locator('#invite-link').inputValue();
    assert.equal(invite, `${publicUrl}/r/${room}`);
    await dark.goto(invite);
    await until(async () => (await online(light)) && (await online(dark)), 'both pages connected');
    const pages = [light, dark];
    let firstVictim = -1;

    for (const [i, action] of GAME.entries()) {
      const kill = KILLS.indexOf(i);
      if (kill >= 0) {
        // First the instance with the most of the two sockets, then the other one.
        const counts = await Promise.all(instances.map(openSockets));
        assert.equal(counts[0] + counts[1], 2, `both sockets are open: ${counts}`);
        const victim = kill === 0 ? (counts[0] >= counts[1] ? 0 : 1) : 1 - firstVictim;
        if (kill === 1) assert.equal(counts[victim], 2, 'both pages moved to the survivor of the first kill');
        firstVictim = victim;
        const open = pages.map((p) => p.sockets.length - 1);
        const addr = instances[victim].url.replace('http://', '');
        await instances[victim].kill(); // no goodbye to the sockets
        // Its sockets close, and their pages come back through nginx by themselves.
        await until(() => pages.filter((p, k) => p.sockets[open[k]].closed).length === counts[victim], 'the killed sockets to close');
        for (const [k, page] of pages.entries()) {
          if (page.sockets[open[k]].closed) {
            await until(() => page.sockets.length > open[k] + 1, 'a new socket');
          }
          await until(() => online(page), 'the page back online');
        }
        t.diagnostic(`after ${i} turns killed instance ${victim}, holding ${counts[victim]} of the 2 sockets; sockets opened: light ${light.sockets.length}, dark ${dark.sockets.length}`);
        await shot(light, `e2e-multi-0${kill + 1}-after-kill`);
        // Back on the same address, as a restart would be (nginx still names it).
        await instances[victim].close();
        instances[victim] = await startMillServer({ addr, db, args });
      }
      const side = i % 2 === 0 ? 'light' : 'dark';
      const mover = side === 'light' ? light : dark;
      await clickAction(mover, action);
      // Acknowledged: the opponent's page shows it (the server sends a state only after
      // the commit), and so does the mover's.
      const to = action.split('-').pop();
      await waitPiece(dark === mover ? light : dark, to, side);
      await waitPiece(mover, to, side);
    }

    for (const page of pages) {
      await page.locator('#result').waitFor();
      assert.deepEqual((await readBoard(page)).pieces, FINAL);
    }
    assert.equal(await light.locator('#result-title').innerText(), 'You won');
    assert.equal(await dark.locator('#result-title').innerText(), 'You lost');
    await shot(dark, 'e2e-multi-03-finished');
    // Every acknowledged action is stored, in order, and nothing else.
    const res = await fetch(`${nginx.url}/api/rooms/${room}/rounds/1`);
    assert.equal(res.status, 200);
    const record = await res.json();
    assert.deepEqual(record.actions, GAME);
    assert.equal(record.variant, 'three');
    const wsErrors = /WebSocket|ERR_CONNECTION|502|Bad Gateway/;
    assert.deepEqual(light.errors.filter((e) => !wsErrors.test(e)), []);
    assert.deepEqual(dark.errors.filter((e) => !wsErrors.test(e)), []);
  } catch (e) {
    if (nginx) console.error(`nginx logs:\n${nginx.errorLog()}`);
    for (const p of [light, dark]) if (p) console.error(`page errors: ${p.errors}`);
    for (const s of instances) console.error(`instance ${s.url}:\n${s.log()}`);
    throw e;
  } finally {
    await browser?.close();
    await nginx?.close();
    for (const s of instances) await s.close();
  }
});
