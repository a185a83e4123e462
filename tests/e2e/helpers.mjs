// Shared set-up for the real-browser tests: a static server with mill-server's routes (for
// the tests that need no server), mill-server itself (online play), headless Chromium via
// playwright-core, screenshots into tests/artifacts/, and helpers that read the page.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const STATIC = join(ROOT, 'static');
export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
export const topology = JSON.parse(readFileSync(join(ROOT, 'tests/unit/fixtures/topology.json'), 'utf8'));

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

export function requireWasmBuild() {
  if (!existsSync(join(STATIC, 'pkg', 'mill_wasm_bg.wasm'))) {
    throw new Error('static/pkg/ is missing: run scripts/build-wasm before the browser tests');
  }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/** Serves static/ like mill-server does (/, /r/<room>, /rules), on 127.0.0.1, a free port. */
export async function startStaticServer() {
  requireWasmBuild();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    // What the start screen and the game page ask the server at every load; this server
    // has no arenas, nobody waiting and nobody signed in.
    const answers = {
      '/api/arenas': '{"arenas":[],"me":null}',
      '/api/seeks': '{"seeks":[],"protocol":1}',
      '/api/session': '{"name":null}',
      '/api/me/games': '{"name":null,"games":[]}',
    };
    if (Object.hasOwn(answers, path)) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(answers[path]);
      return;
    }
    let file;
    if (path === '/' || /^\/r\/[^/]+\/?$/.test(path)) file = 'index.html';
    else if (path === '/rules') file = 'rules.html';
    else if (path === '/puzzles') file = 'puzzles.html';
    else file = normalize(path).replace(/^[/\\]+/, '');
    const full = join(STATIC, file);
    if (!full.startsWith(STATIC + sep) || !existsSync(full)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":"not-found","message":"No such file."}');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(full)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(readFileSync(full));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

export function millServerBin() {
  return process.env.MILL_SERVER_BIN ?? join(ROOT, 'target', 'debug', 'mill-server');
}

/**
 * Starts mill-server with a fresh database on a free port (or on `addr` with the database
 * in `dir`, to restart a server); resolves once it prints its URL. `db` (a postgres://
 * URL) replaces the SQLite file; `args` are more flags; `staticDir` the page's files (default static/).
 */
export async function startMillServer({ addr = '127.0.0.1:0', dir = null, db = null, args = [], staticDir = STATIC } = {}) {
  requireWasmBuild();
  const ownDir = !dir;
  dir ??= mkdtempSync(join(tmpdir(), 'mill-e2e-'));
  const child = spawn(millServerBin(), ['--addr', addr, '--db', db ?? join(dir, 'mill.db'), '--static-dir', staticDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
  });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`mill-server did not start:\n${out}\n${log}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Mill is running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`mill-server exited (${code}):\n${out}\n${log}`)));
  });
  return {
    url,
    dir,
    log: () => log,
    /** Kills the server outright (SIGKILL: no goodbye to the sockets), as a crash would; keeps the database. */
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.on('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
    /** Stops the server (SIGTERM: it closes sockets with 1001); keeps the database if asked. */
    async close({ keepDb = false } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.on('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (ownDir && !keepDb) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The set-up every browser test file shares: before its tests, a server (mill-server with a
 * fresh database when `mill` is true, else the static stand-in) and headless Chromium;
 * after them, both closed. Call it at the top level of a test file. The returned object's
 * `server` and `browser` are getters, filled in once the `before` hook has run:
 *
 *   const env = useBrowserAndServer({ mill: true });
 *   test('…', async () => { const context = await env.browser.newContext(); … env.server.url … });
 */
export function useBrowserAndServer({ mill = false } = {}) {
  if (mill && !existsSync(millServerBin())) {
    throw new Error(`mill-server not found at ${millServerBin()}: build it (cargo build -p mill-server) or set MILL_SERVER_BIN`);
  }
  let server;
  let browser;
  before(async () => {
    server = mill ? await startMillServer() : await startStaticServer();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      return server;
    },
    get browser() {
      return browser;
    },
  };
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A new page that records console errors and uncaught exceptions into `page.errors`. */
export async function openPage(context, url) {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(m.text());
  });
  if (url) await page.goto(url);
  return page;
}

export async function shot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Finished animations jump to their end (a dialog caught fading in looks transparent).
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/**
 * The board as the page shows it: pieces by point, the points of each highlight, and the
 * mill lines drawn (`mills`: "a1 d1 g1" strings, `freshMills` those still owing a removal).
 */
export function readBoard(page) {
  return page.evaluate(() => {
    const out = { pieces: {}, canPlace: [], canSelect: [], selected: [], target: [], canRemove: [], lastTo: [], lastFrom: [], inMill: [] };
    const lines = [...document.querySelectorAll('#board-host .mill-line')];
    out.mills = lines.map((l) => l.dataset.points).sort();
    out.freshMills = lines.filter((l) => l.classList.contains('fresh')).map((l) => l.dataset.points).sort();
    for (const g of document.querySelectorAll('#board-host [data-point]')) {
      const name = g.dataset.point;
      if (g.classList.contains('light')) out.pieces[name] = 'light';
      if (g.classList.contains('dark')) out.pieces[name] = 'dark';
      for (const [cls, key] of [
        ['can-place', 'canPlace'],
        ['can-select', 'canSelect'],
        ['selected', 'selected'],
        ['target', 'target'],
        ['can-remove', 'canRemove'],
        ['last-to', 'lastTo'],
        ['last-from', 'lastFrom'],
        ['in-mill', 'inMill'],
      ]) {
        if (g.classList.contains(cls)) out[key].push(name);
      }
    }
    return out;
  });
}

export const statusText = (page) => page.locator('#status').innerText();

export const point = (page, name) => page.locator(`#board-host [data-point="${name}"]`);

/** Plays one action ("d6", "a1-a4", "xd2") by clicking points. */
export async function clickAction(page, action) {
  if (action.startsWith('x')) return point(page, action.slice(1)).click();
  if (action.includes('-')) {
    const [from, to] = action.split('-');
    await point(page, from).click();
    return point(page, to).click();
  }
  return point(page, action).click();
}

/** Notation of a game ("e5xb4 b4 …") as actions ("e5", "xb4", "b4", …). */
export function actionsOf(record) {
  return record
    .trim()
    .split(/\s+/)
    .flatMap((turn) => {
      const [head, ...removals] = turn.split('x');
      return [head, ...removals.map((r) => `x${r}`)];
    });
}

/** The WCAG 2.2 AA rules axe adds to its default set (target-size among them, off by default). */
export const WCAG_TAGS = Object.freeze(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']);

/**
 * Runs axe-core in the page, its default rules and the WCAG 2.2 AA ones; returns the
 * serious and critical violations.
 */
export async function axeSerious(page) {
  // Colours still fading (a theme switch, a card turning active) are not what a person
  // reads: let every finite CSS transition or animation end before judging contrast.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime)))
        .map((a) => a.finished.catch(() => {})),
    ),
  );
  await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
  const violations = await page.evaluate(async (tags) => {
    const usual = await window.axe.run(document, { resultTypes: ['violations'] });
    const wcag = await window.axe.run(document, { resultTypes: ['violations'], runOnly: { type: 'tag', values: tags } });
    const seen = new Set(usual.violations.map((v) => v.id));
    return [...usual.violations, ...wcag.violations.filter((v) => !seen.has(v.id))];
  }, WCAG_TAGS);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Preloads local storage (key → value) for every page of `context`, once per tab: a
 * reload then sees what the page itself saved, not the preloaded values again.
 */
export async function preloadStorage(context, saved) {
  if (!Object.keys(saved).length) return;
  await context.addInitScript((entries) => {
    if (!sessionStorage.getItem('seeded')) {
      for (const [k, v] of Object.entries(entries)) localStorage.setItem(k, v);
      sessionStorage.setItem('seeded', '1');
    }
  }, saved);
}
