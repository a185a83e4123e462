// Owns the page working offline and installed: a service worker (registered by
// offline.js, scope `/`) that keeps one release of the page — the HTML of `/`, `/rules`
// and `/puzzles`, every versioned file they reach (modules, styles, the WebAssembly,
// icons, the puzzle sets) — so that after one visit Same device, Vs computer, review of
// the game on screen, the rules page, the puzzles and Import work with no network.
//
// The endgame tables (Hard's endings) are kept per rule set, and only once the person
// plays Hard against the computer on it (the page posts { keepTables: <rules> }). The
// Cache API keeps a body as the browser decoded it, so a table that travels as a few KB
// of brotli would take its whole size (the 4 v 4 class of Nine: 14.7 MB); tables and
// puzzle sets are therefore stored gzip-compressed (CompressionStream) and unpacked as
// they are served.
//
// One release at a time, never a mix: the server gives every file of a release the same
// `?v=<version>` (crates/mill-server/src/assets.rs) and rewrites the quoted file names in
// this script too, so RELEASE_MARK below carries this release's version and the script's
// bytes change with every release. The browser then installs the new worker beside the
// old one; it fills a cache of its own and waits until the page says "reload"
// (offline.js), then takes over and the old release's cache is deleted.
//
// Never touched: /api (rooms, commands, the WebSocket) — those requests are not even
// looked at, so a command is never cached or replayed.

/// <reference lib="webworker" />

// The server rewrites this to '/favicon.svg?v=<version>'; a server that does not version
// its files (a plain file server) gets a worker that keeps nothing.
const RELEASE_MARK = '/favicon.svg';
const VERSION = new URL(RELEASE_MARK, self.location.href).searchParams.get('v');
const PREFIX = 'mill-release-';
const RELEASE = `${PREFIX}${VERSION}`;
/** Endgame tables are versioned by their own bytes and outlive releases. */
const TABLES = 'mill-tables';
const TABLES_MANIFEST = '/tb/manifest.json';
/** The pages kept; any other navigation outside /api falls back to the game page. */
const PAGES = ['/', '/rules', '/puzzles'];
/** The header that marks a stored body as gzip-compressed by this worker. */
const PACKED = 'x-mill-packed';
/** What is stored compressed: the tables and the puzzle sets (data that compresses tenfold and more). */
const packs = (/** @type {string} */ url) => /^\/(tb\/.+\.mtb|puzzles\/.+\.json)$/.test(new URL(url).pathname);

/**
 * The response with its body gzip-compressed for storing, marked with PACKED.
 * @param {Response} response @returns {Promise<Response>}
 */
async function pack(response) {
  const headers = new Headers(response.headers);
  for (const h of ['content-encoding', 'content-length']) headers.delete(h);
  headers.set(PACKED, 'gzip');
  const body = /** @type {ReadableStream<Uint8Array>} */ (response.body).pipeThrough(new CompressionStream('gzip'));
  return new Response(await new Response(body).blob(), { status: response.status, statusText: response.statusText, headers });
}

/**
 * A stored response as it was served: a packed body unpacked on the way.
 * @param {Response} stored @returns {Response}
 */
function unpack(stored) {
  if (stored.headers.get(PACKED) !== 'gzip' || !stored.body) return stored;
  const headers = new Headers(stored.headers);
  headers.delete(PACKED);
  return new Response(stored.body.pipeThrough(new DecompressionStream('gzip')), { status: stored.status, statusText: stored.statusText, headers });
}

/**
 * Stores `response` for `url` (packed where that pays).
 * @param {Cache} cache @param {string} url @param {Response} response
 */
async function store(cache, url, response) {
  await cache.put(url, packs(url) ? await pack(response) : response);
}

const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

/** Quoted references carrying a version, in HTML, CSS or a module. */
const VERSIONED = /["'`]([^"'`\s<>]+\?v=[0-9A-Za-z_-]+)["'`]/g;

/**
 * Every file of this release the pages reach: the pages, then each versioned reference
 * in them, followed through modules and styles. Each is stored as it arrives.
 * @param {Cache} cache
 */
async function keepRelease(cache) {
  const seen = new Set();
  /** @param {string} url */
  async function keep(url) {
    if (seen.has(url)) return;
    seen.add(url);
    const response = await fetch(url, { cache: 'no-cache' });
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    const type = response.headers.get('content-type') ?? '';
    // Data is stored, not read for references.
    const text = /html|css|javascript|json/.test(type) && !packs(url) ? await response.clone().text() : null;
    await store(cache, url, response);
    if (text === null) return;
    const refs = [];
    if (type.includes('json') && url.includes('manifest')) {
      for (const icon of JSON.parse(text).icons ?? []) refs.push(new URL(icon.src, url).href);
    }
    for (const m of text.matchAll(VERSIONED)) refs.push(new URL(m[1], url).href);
    await Promise.all(refs.filter((r) => new URL(r).origin === sw.location.origin).map(keep));
  }
  await Promise.all(PAGES.map((p) => keep(new URL(p, sw.location.origin).href)));
}

/**
 * The server's endgame tables of one rule set (as the manifest names it: "nine"), each
 * once (a release does not fetch them again), and the manifest.
 * @param {string} rules
 */
async function keepTables(rules) {
  try {
    const response = await fetch(TABLES_MANIFEST, { cache: 'no-cache' });
    if (!response.ok) return;
    const cache = await caches.open(TABLES);
    await cache.put(TABLES_MANIFEST, response.clone());
    const { tables = [] } = await response.json();
    for (const table of tables.filter((t) => t?.rules === rules)) {
      const url = new URL(table.url, sw.location.origin).href;
      if (!(await cache.match(url))) {
        const file = await fetch(url);
        if (file.ok) await store(cache, url, file);
      }
    }
  } catch {
    // No tables offline: the engine searches without them, as it does when they are missing.
  }
}

sw.addEventListener('install', (event) => {
  if (!VERSION) return;
  event.waitUntil(caches.open(RELEASE).then(keepRelease));
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const old = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== RELEASE);
      await Promise.all(old.map((name) => caches.delete(name)));
      // A release replacing another takes over its pages (they reload on the change); a
      // first visit's page stays as it loaded.
      if (old.length) await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  if (event.data === 'take-over') sw.skipWaiting();
  else if (VERSION && typeof event.data?.keepTables === 'string') event.waitUntil(keepTables(event.data.keepTables));
});

/**
 * @param {Request} request
 * @param {string} cacheName
 */
async function cacheFirst(request, cacheName, keep = true) {
  const cache = await caches.open(cacheName);
  const kept = await cache.match(request);
  if (kept) return unpack(kept);
  const response = await fetch(request);
  if (keep && response.ok) await store(cache, request.url, response.clone());
  return response;
}

/** The network, and what is kept when there is none. @param {Request} request @param {string} cacheName */
async function networkFirst(request, cacheName, fallback = request.url) {
  try {
    const response = await fetch(request);
    if (response.ok && fallback === request.url) (await caches.open(cacheName)).put(request, response.clone());
    return response;
  } catch (error) {
    const kept = await (await caches.open(cacheName)).match(fallback);
    if (kept) return kept;
    throw error;
  }
}

sw.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (!VERSION || request.method !== 'GET' || url.origin !== sw.location.origin) return;
  if (url.pathname === '/api' || url.pathname.startsWith('/api/') || url.pathname === '/metrics') return;
  if (request.mode === 'navigate') {
    const page = url.pathname === '/rules' || url.pathname === '/puzzles' ? url.pathname : '/';
    const kept = new URL(page, url.origin).href;
    // The game and rules pages are this release's; a room's link is asked of the server
    // (it knows whether the room exists), with the game page when there is no network.
    if (url.pathname === '/' || url.pathname === '/rules' || url.pathname === '/puzzles' || url.pathname === '/index.html') {
      event.respondWith(caches.open(RELEASE).then((c) => c.match(kept)).then((r) => r ?? fetch(request)));
    } else {
      event.respondWith(networkFirst(request, RELEASE, kept));
    }
    return;
  }
  if (url.pathname === TABLES_MANIFEST) return event.respondWith(networkFirst(request, TABLES));
  // A table kept for its rule set; any other is the network's, not stored (keepTables stores a rule set's whole).
  if (url.pathname.startsWith('/tb/') && url.searchParams.has('v')) return event.respondWith(cacheFirst(request, TABLES, false));
  // This release's files from its cache; another release's are never mixed in.
  if (url.searchParams.get('v') === VERSION) return event.respondWith(cacheFirst(request, RELEASE));
});
