// The engine worker's endgame tables (tablebase.js): which files it fetches for a game (the
// real rules decide, through the WebAssembly build's tablebase_wanted), once each, and that
// every failure leaves it searching as before. The server and the loading into the wasm are
// stand-ins here; tests/e2e/tablebase.test.mjs runs the real ones.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createTables, judgedFromServer, playedFromServer, TABLEBASE_MANIFEST } from '../../static/js/tablebase.js';
import { loadWasm } from './helpers.mjs';

let mod;

before(async () => {
  mod = await loadWasm();
});

const MANIFEST = {
  tables: [
    { rules: 'nine', class: '3v3', url: '/tb/nine-3v3.mtb?v=a', bytes: 8 },
    { rules: 'nine', class: '3v4', url: '/tb/nine-3v4.mtb?v=b', bytes: 8 },
    { rules: 'nine', class: '4v3', url: '/tb/nine-4v3.mtb?v=c', bytes: 8 },
    { rules: 'nine', class: '4v4', url: '/tb/nine-4v4.mtb?v=d', bytes: 8 },
    { rules: 'six', class: '3v3', url: '/tb/six-3v3.mtb?v=e', bytes: 8 },
    { rules: 'nine', class: 'junk', url: '/tb/x', bytes: 1 },
  ],
};

const record = (start) => JSON.stringify({ start, actions: [] });
const THREE_THREE = record('..D/.../.L./L...../.../.D./L.D d 0 0 0 0');
const FOUR_THREE = record('L.D/.L./D../L...../D../.../..L d 0 0 0 0');
const FIVE_FIVE = record('L.D/.L./D.L/LD..D./.../.../L.D l 0 0 0 0');
const PLACING = record('.../.../.../....../.../.../... l 9 9 0 0');

/** A server from a table of URL → answer (an object: JSON; a number: that many bytes; 'hang'). */
function server(answers) {
  const asked = [];
  const fetch = async (url, { signal } = {}) => {
    asked.push(url);
    const answer = answers[url];
    if (answer === 'hang') {
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('timed out'))));
    }
    if (answer === undefined) return new Response('no such table\n', { status: 404 });
    // A file's bytes say which manifest entry it is, so the stand-in loader knows.
    if (typeof answer === 'number') return new Response(new Uint8Array(answer).fill(MANIFEST.tables.findIndex((e) => e.url === url)));
    return new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } });
  };
  return { fetch, asked };
}

/** The real tablebase_wanted; loading only remembered (its `loaded` answer follows what was loaded). */
function tables(fetch, { refuse = false, timeoutMs } = {}) {
  const loaded = new Set();
  const wanted = (rec, max) => {
    const reply = JSON.parse(mod.tablebase_wanted(rec, max));
    reply.loaded = reply.classes.filter((c) => loaded.has(c));
    return JSON.stringify(reply);
  };
  const loads = [];
  const load = (bytes) => {
    loads.push(bytes.length);
    if (refuse) return JSON.stringify({ ok: false, error: { code: 'bad-table', message: 'Not a tablebase file.' } });
    loaded.add(MANIFEST.tables[bytes[0]]?.class ?? '?');
    return JSON.stringify({ ok: true });
  };
  let t = 0;
  return { t: createTables({ fetch, wanted, load, now: () => (t += 5), timeoutMs }), loads, loaded };
}

const files = (urls) => Object.fromEntries(urls.map((u) => [u, 8]));

test('an ending fetches the classes its search can reach, of its own rule set, once', async () => {
  const s = server({ [TABLEBASE_MANIFEST]: MANIFEST, ...files(MANIFEST.tables.map((e) => e.url)) });
  const { t, loads } = tables(s.fetch);
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  assert.deepEqual(s.asked, [TABLEBASE_MANIFEST, '/tb/nine-3v3.mtb?v=a']);
  assert.deepEqual(loads, [8]);
  assert.deepEqual(t.status.loaded.map((l) => [l.rules, l.class, l.bytes]), [['nine', '3v3', 8]]);
  assert.ok(t.status.loaded[0].fetchMs > 0 && t.status.loaded[0].loadMs > 0);
  // The next turn asks for nothing: the manifest is kept, the class is loaded.
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  assert.equal(s.asked.length, 2);
  assert.deepEqual(t.status.failed, []);
});

test('one removal before the tables, the classes the search reaches come too', async () => {
  const s = server({ [TABLEBASE_MANIFEST]: MANIFEST, ...files(MANIFEST.tables.map((e) => e.url)) });
  const { t } = tables(s.fetch);
  await t.prepare(FOUR_THREE, TABLEBASE_MANIFEST);
  assert.deepEqual(s.asked.slice(1).sort(), ['/tb/nine-3v3.mtb?v=a', '/tb/nine-3v4.mtb?v=b', '/tb/nine-4v3.mtb?v=c']);
});

test('far from the tables, in the placing, or under rules with no tables, nothing is fetched', async () => {
  const s = server({ [TABLEBASE_MANIFEST]: MANIFEST, ...files(MANIFEST.tables.map((e) => e.url)) });
  const { t } = tables(s.fetch);
  for (const rec of [FIVE_FIVE, PLACING, record('..D/.../.L./L...../.../.D./L.D d 0 0 0 0 nine+protect-off')]) {
    await t.prepare(rec, TABLEBASE_MANIFEST);
  }
  assert.deepEqual(s.asked, [TABLEBASE_MANIFEST]);
  assert.deepEqual(t.status.loaded, []);
});

test('a missing manifest or table, a wrong size, a bad file or a hung fetch only means no table', async () => {
  // No manifest (the tests' static server, a server without tables).
  let s = server({});
  let t = tables(s.fetch).t;
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  assert.deepEqual(s.asked, [TABLEBASE_MANIFEST]);
  assert.match(t.status.failed[0].reason, /404/);
  // A table that is not there is tried once per worker.
  s = server({ [TABLEBASE_MANIFEST]: MANIFEST });
  t = tables(s.fetch).t;
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  assert.deepEqual(s.asked, [TABLEBASE_MANIFEST, '/tb/nine-3v3.mtb?v=a']);
  assert.deepEqual(t.status.failed.map((f) => f.url), ['/tb/nine-3v3.mtb?v=a']);
  // Cut short on the way.
  s = server({ [TABLEBASE_MANIFEST]: MANIFEST, '/tb/nine-3v3.mtb?v=a': 5 });
  t = tables(s.fetch).t;
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  assert.match(t.status.failed[0].reason, /5 bytes, the manifest says 8/);
  // The wasm refuses it.
  s = server({ [TABLEBASE_MANIFEST]: MANIFEST, '/tb/nine-3v3.mtb?v=a': 8 });
  const refused = tables(s.fetch, { refuse: true });
  await refused.t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  assert.deepEqual(refused.loads, [8]);
  assert.deepEqual(refused.t.status.loaded, []);
  assert.match(refused.t.status.failed[0].reason, /Not a tablebase file/);
  // It never arrives: given up after the timeout.
  s = server({ [TABLEBASE_MANIFEST]: MANIFEST, '/tb/nine-3v3.mtb?v=a': 'hang' });
  t = tables(s.fetch, { timeoutMs: 30 }).t;
  // (Node's timeout signal does not keep the process alive by itself.)
  const alive = setTimeout(() => {}, 5000);
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  clearTimeout(alive);
  assert.equal(t.status.failed.length, 1);
  // A manifest that is not one.
  s = server({ [TABLEBASE_MANIFEST]: { tables: 'none' } });
  t = tables(s.fetch).t;
  await t.prepare(THREE_THREE, TABLEBASE_MANIFEST);
  assert.deepEqual(s.asked, [TABLEBASE_MANIFEST]);
});

test('the real wasm refuses bytes that are not a table, and its answer stays readable', () => {
  const reply = JSON.parse(mod.load_tablebase(new Uint8Array([1, 2, 3])));
  assert.equal(reply.ok, false);
  assert.equal(reply.error.code, 'bad-table');
  const wanted = JSON.parse(mod.tablebase_wanted('{', 4));
  assert.equal(wanted.error.code, 'bad-record');
});

test("Perfect on Six fetches every class of Six and then its placing table, once; other levels and rule sets do not", async () => {
  const six = ['3v3', '3v4', '4v3', '4v4'].map((c, i) => ({ rules: 'six', class: c, url: `/tb/six-${c}.mtb?v=${i}`, bytes: 4 + i }));
  const placing = { rules: 'six', url: '/tb/six-placing.mtp?v=p', bytes: 20 };
  const manifest = { tables: [...MANIFEST.tables.slice(0, 4), ...six], placing: [placing, { rules: 'nine' }] };
  const sizes = Object.fromEntries([...manifest.tables, placing].map((e) => [e.url, e.bytes]));
  const asked = [];
  const fetch = async (url) => {
    asked.push(url);
    if (url === TABLEBASE_MANIFEST) return new Response(JSON.stringify(manifest));
    return sizes[url] ? new Response(new Uint8Array(sizes[url])) : new Response('', { status: 404 });
  };
  const order = [];
  let held = false;
  const wanted = (rec, max) => JSON.stringify({ ...JSON.parse(mod.tablebase_wanted(rec, max)), loaded: [], placing: held });
  const t = createTables({
    fetch,
    wanted,
    load: (bytes) => (order.push(bytes.length), JSON.stringify({ ok: true })),
    loadPlacing: (bytes) => ((held = true), order.push(`placing ${bytes.length}`), JSON.stringify({ ok: true })),
  });
  const sixStart = record('.../.../D.../.../... l 6 5 0 0 six');
  // Hard on Six's placing, or Perfect on Nine: nothing of it.
  await t.prepare(sixStart, TABLEBASE_MANIFEST);
  await t.prepare(PLACING, TABLEBASE_MANIFEST, true);
  assert.deepEqual(asked, [TABLEBASE_MANIFEST]);
  await t.prepare(sixStart, TABLEBASE_MANIFEST, true);
  assert.deepEqual(asked.slice(1).sort(), [...six.map((e) => e.url), placing.url].sort());
  // The classes largest first, the placing table last, over them.
  assert.deepEqual(order, [7, 6, 5, 4, 'placing 20']);
  assert.deepEqual(t.status.loaded.at(-1).class, 'placing');
  // Held: the next turn asks for nothing.
  await t.prepare(sixStart, TABLEBASE_MANIFEST, true);
  assert.equal(asked.length, 6);
  assert.deepEqual(t.status.failed, []);
});

// The classes the server answers but does not serve (its manifest's `probed`): the worker
// asks GET /api/tb/probe about the game's position, once per position, and reads the answer
// into a turn to play or a judgement for review.
const FIVE_FIVE_POSITION = 'L.D/.L./D.L/LD..D./.../.../L.D l 0 0 0 0';
const PROBED = { ...MANIFEST, probed: [{ rules: 'nine', class: '5v5', bytes: 131_000_000, positions: 32_000_000 }] };
const probeUrl = (position) => `/api/tb/probe?variant=nine&position=${encodeURIComponent(position)}`;
const ANSWER = {
  variant: 'nine',
  position: FIVE_FIVE_POSITION,
  value: 'win',
  distance: 13,
  nextRemoval: { value: 'win', distance: 3 },
  best: 'd6-d5',
  bestActions: ['d6-d5'],
  bestTurns: ['d6-d5'],
  turns: [{ turn: 'd6-d5', value: 'win', distance: 13 }],
};

test('a position of a class the server only answers is asked of it, once, and read', async () => {
  const s = server({ [TABLEBASE_MANIFEST]: PROBED, [probeUrl(FIVE_FIVE_POSITION)]: ANSWER });
  const { t } = tables(s.fetch);
  assert.deepEqual(await t.probe(FIVE_FIVE, TABLEBASE_MANIFEST), ANSWER);
  assert.deepEqual(await t.probe(FIVE_FIVE, TABLEBASE_MANIFEST), ANSWER);
  assert.deepEqual(s.asked, [TABLEBASE_MANIFEST, probeUrl(FIVE_FIVE_POSITION)], 'the answer is kept');
  assert.deepEqual(t.status.probes, [{ position: FIVE_FIVE_POSITION, ok: true, status: 200 }]);
  // A class the page downloads (3 v 3), the placing, another rule set: the server is not asked.
  for (const rec of [THREE_THREE, PLACING, record('L.D/.L./D.L/LD..D./.../.../L.D l 0 0 0 0 twelve')]) {
    assert.equal(await t.probe(rec, TABLEBASE_MANIFEST), null);
  }
  assert.equal(s.asked.length, 2);
  // A server that lists nothing under `probed` (an older one) is never asked.
  const old = server({ [TABLEBASE_MANIFEST]: MANIFEST, [probeUrl(FIVE_FIVE_POSITION)]: ANSWER });
  assert.equal(await tables(old.fetch).t.probe(FIVE_FIVE, TABLEBASE_MANIFEST), null);
  assert.deepEqual(old.asked, [TABLEBASE_MANIFEST]);
});

test('a refused or broken probe is no answer, and is asked again next time', async () => {
  const s = server({ [TABLEBASE_MANIFEST]: PROBED });
  const { t } = tables(s.fetch);
  assert.equal(await t.probe(FIVE_FIVE, TABLEBASE_MANIFEST), null);
  assert.equal(await t.probe(FIVE_FIVE, TABLEBASE_MANIFEST), null);
  assert.deepEqual(t.status.probes.map((p) => [p.ok, p.status]), [[false, 404], [false, 404]]);
  // Not an answer: no best turn.
  const bad = server({ [TABLEBASE_MANIFEST]: PROBED, [probeUrl(FIVE_FIVE_POSITION)]: { value: 'win', distance: 3 } });
  assert.equal(await tables(bad.fetch).t.probe(FIVE_FIVE, TABLEBASE_MANIFEST), null);
});

test('the server’s answer becomes the computer’s turn and review’s exact judgement, from Light’s side', () => {
  const played = playedFromServer(ANSWER, 12);
  assert.equal(played.turn, 'd6-d5');
  assert.deepEqual(played.actions, ['d6-d5']);
  assert.equal(played.score, 30_000 - 13);
  assert.equal(played.server, true);
  const searched = { ok: true, toMove: 'dark', score: 120, value: 0.3, winIn: null, over: false, tablebase: false, best: 'a1-a4', actions: ['a1-a4'], pv: ['a1-a4'], depth: 9 };
  // Dark to move wins in 13: Light's value −1, winIn −13.
  const j = judgedFromServer(searched, ANSWER);
  assert.deepEqual([j.value, j.winIn, j.tablebase, j.best, j.score], [-1, -13, true, 'd6-d5', -(30_000 - 13)]);
  const draw = judgedFromServer({ ...searched, toMove: 'light' }, { ...ANSWER, value: 'draw', distance: null });
  assert.deepEqual([draw.value, draw.winIn, draw.score], [0, null, 0]);
  const lost = judgedFromServer({ ...searched, toMove: 'light' }, { ...ANSWER, value: 'loss', distance: 8 });
  assert.deepEqual([lost.value, lost.winIn], [-1, -8]);
});
