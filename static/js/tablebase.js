// The endgame tables for the engine worker (engine-worker.js). Which class files a game could
// use is the wasm's to say (tablebase_wanted: both sides out of hand, in the tables or one
// removal before them); where they are is the server's manifest (/tb/manifest.json,
// mill-server's assets.rs: rule set, class, URL, size per file). Each file is fetched once
// per worker (its URL carries its hash, so the browser's cache serves it again after a
// worker restart) and loaded into the wasm (load_tablebase). Any failure — no manifest, a
// 404, a wrong size, a bad file, a timeout — only means the engine searches without it.
//
// The Perfect level asks for the whole game (prepare's `whole`): where the manifest lists
// a placing table for the game's rule set (Six: six-placing.mtp), every class of that rule
// set is fetched and loaded, then the placing table (load_placing); Perfect then plays
// every position from them. Nothing of it is fetched for another level or rule set.
//
// What the page downloads is the server's to decide, per file: it serves the classes up to
// its download limit (16 MiB unless set: Nine's to 4 v 4, and 3 v 5) and lists the bigger
// ones (Nine's and Twelve's 4 v 5, 5 v 4, 5 v 5: 44 to 132 MB, too big for a phone) under
// `probed`. For a position of such a class the worker asks the server instead
// (GET /api/tb/probe, docs/PROTOCOL.md "Endgame tables"): `probe` gives its answer (the
// value, the distance, the best turn), kept per position, or null when the server cannot
// be asked (offline, rate-limited, not covered), and the engine then searches as before.

/** Where mill-server lists its tables. */
export const TABLEBASE_MANIFEST = '/tb/manifest.json';

/** Where mill-server answers positions of the tables it does not serve for download. */
export const TABLEBASE_PROBE = '/api/tb/probe';

/** Answers of the probe endpoint a worker keeps (by position). */
export const PROBE_ANSWERS = 512;

/** A table that takes longer than this to arrive is given up (the search goes on without). */
export const FETCH_TIMEOUT_MS = 15_000;

/**
 * @typedef {object} TableEntry  one file of the manifest
 * @property {string} rules  the rule set, as mill-core names it ("nine", "six+per-mill")
 * @property {string} class  "<m>v<o>": pieces of the side to move, of the other
 * @property {string} url  versioned URL
 * @property {number} bytes  the file's size
 */

/**
 * @typedef {object} PlacingEntry  a placing table of the manifest (a rule set solved whole)
 * @property {string} rules
 * @property {string} class  "placing"
 * @property {string} url
 * @property {number} bytes
 */

/**
 * @typedef {object} ProbedEntry  a class the server answers but does not serve (manifest's `probed`)
 * @property {string} rules
 * @property {string} class  "<m>v<o>"
 */

/**
 * @typedef {object} ProbeAnswer  GET /api/tb/probe's answer (docs/PROTOCOL.md)
 * @property {string} variant
 * @property {string} position
 * @property {'win' | 'draw' | 'loss'} value  for the side to move
 * @property {number | null} distance  turns to the end under best play
 * @property {string} best  the tables' turn in notation
 * @property {string[]} bestActions  its actions
 * @property {string[]} bestTurns
 * @property {{ turn: string, value: 'win' | 'draw' | 'loss', distance: number | null }[]} turns
 */

/**
 * @typedef {object} TablesStatus  what the worker did, for tests and figures
 * @property {number} manifests  manifests fetched
 * @property {{ rules: string, class: string, bytes: number, fetchMs: number, loadMs: number }[]} loaded
 * @property {{ url: string, reason: string }[]} failed
 * @property {{ position: string, ok: boolean, status: number }[]} probes  the server asked, in order
 */

/**
 * The sizes of a class name: "4v3" → [4, 3].
 * @param {string} name @returns {number[]}
 */
const sides = (name) => name.split('v').map(Number);

/**
 * Reads a probe endpoint's answer; null when it is not one.
 * @param {any} body @returns {ProbeAnswer | null}
 */
export function probeAnswer(body) {
  const values = ['win', 'draw', 'loss'];
  if (!values.includes(body?.value) || typeof body?.best !== 'string' || !Array.isArray(body?.bestActions)) return null;
  if (body.value !== 'draw' && !Number.isInteger(body.distance)) return null;
  return body;
}

/** The tables' score for a result of the side to move (mill-engine's MATE less the distance). */
const MATE = 30_000;
/** @param {{ value: string, distance: number | null }} a @returns {number} */
const moverScore = (a) => (a.value === 'win' ? MATE - (a.distance ?? 0) : a.value === 'loss' ? -(MATE - (a.distance ?? 0)) : 0);

/**
 * A search's reply made from the server's answer.
 * @param {ProbeAnswer} a @param {number} elapsedMs
 */
export function playedFromServer(a, elapsedMs) {
  return { ok: true, turn: a.best, actions: a.bestActions, score: moverScore(a), depth: 0, nodes: 0, elapsedMs, pv: [a.best], tbHits: 1, server: true };
}

/**
 * Review's judgement made from the server's answer, from Light's side (as analyse gives it),
 * over the search's own (kept for what the answer does not say).
 * @param {any} judged  analyse_nodes's reply @param {ProbeAnswer} a
 */
export function judgedFromServer(judged, a) {
  const sign = judged.toMove === 'light' ? 1 : -1;
  const mover = a.value === 'win' ? 1 : a.value === 'loss' ? -1 : 0;
  return {
    ...judged,
    score: sign * moverScore(a),
    value: sign * mover,
    winIn: mover === 0 ? null : sign * mover * (a.distance ?? 0),
    tablebase: true,
    best: a.best,
    actions: a.bestActions,
    pv: [a.best],
    server: true,
  };
}

/**
 * The worker's tables.
 *
 *   fetch:  the global fetch
 *   wanted(record, max): tablebase_wanted's JSON ({ok, rules, classes, loaded})
 *   load(bytes):  load_tablebase's JSON ({ok, class} | {ok: false, error})
 *   loadPlacing(bytes):  load_placing's JSON ({ok, class: "placing"} | {ok: false, error})
 *
 * @param {object} options
 * @param {(url: string, init?: RequestInit) => Promise<Response>} options.fetch
 * @param {(record: string, max: number) => string} options.wanted
 * @param {(bytes: Uint8Array) => string} options.load
 * @param {(bytes: Uint8Array) => string} [options.loadPlacing]
 * @param {() => number} [options.now]
 * @param {number} [options.timeoutMs]
 * @param {string} [options.probeUrl]  the server's probe endpoint
 */
export function createTables({ fetch, wanted, load, loadPlacing = () => '{"ok":false}', now = () => performance.now(), timeoutMs = FETCH_TIMEOUT_MS, probeUrl = TABLEBASE_PROBE }) {
  /** @typedef {{ tables: TableEntry[], placing: PlacingEntry[], probed: ProbedEntry[] }} Manifest */
  /** @type {Map<string, Promise<Manifest>>} by manifest URL */
  const manifests = new Map();
  /** @type {Map<string, Promise<unknown>>} by table URL: under way, or failed (not tried again) */
  const files = new Map();
  /** @type {Map<string, Promise<ProbeAnswer | null>>} by variant and position, the oldest first */
  const answers = new Map();
  /** @type {TablesStatus} */
  const status = { manifests: 0, loaded: [], failed: [], probes: [] };

  const give = (url, reason) => {
    status.failed.push({ url, reason });
  };

  /** @param {string} url @returns {Promise<Manifest>} */
  async function readManifest(url) {
    try {
      status.manifests += 1;
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = await response.json();
      const file = (e) => typeof e?.rules === 'string' && typeof e?.url === 'string' && Number.isInteger(e?.bytes);
      const valid = (e) => file(e) && /^\d+v\d+$/.test(e?.class);
      return {
        tables: Array.isArray(body?.tables) ? body.tables.filter(valid) : [],
        placing: Array.isArray(body?.placing) ? body.placing.filter(file).map((e) => ({ ...e, class: 'placing' })) : [],
        probed: Array.isArray(body?.probed)
          ? body.probed.filter((e) => typeof e?.rules === 'string' && /^\d+v\d+$/.test(e?.class)).map((e) => ({ rules: e.rules, class: e.class }))
          : [],
      };
    } catch (error) {
      give(url, String(error?.message ?? error));
      return { tables: [], placing: [], probed: [] };
    }
  }

  /**
   * The file's bytes, or null (the failure noted).
   * @param {TableEntry} entry @returns {Promise<{ entry: TableEntry, bytes: Uint8Array, fetchMs: number } | null>}
   */
  async function fetchTable(entry) {
    try {
      const start = now();
      const response = await fetch(entry.url, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length !== entry.bytes) throw new Error(`${bytes.length} bytes, the manifest says ${entry.bytes}`);
      return { entry, bytes, fetchMs: now() - start };
    } catch (error) {
      give(entry.url, String(error?.message ?? error));
      return null;
    }
  }

  /** @param {{ entry: TableEntry, bytes: Uint8Array, fetchMs: number }} got */
  function loadTable({ entry, bytes, fetchMs }) {
    const start = now();
    const reply = JSON.parse(entry.class === 'placing' ? loadPlacing(bytes) : load(bytes));
    if (!reply.ok) {
      give(entry.url, reply.error?.message ?? 'not loaded');
      return;
    }
    status.loaded.push({ rules: entry.rules, class: entry.class, bytes: bytes.length, fetchMs, loadMs: now() - start });
    // Loaded: the wasm says so from now on (and asks again if a game of other rules
    // replaced it).
    files.delete(entry.url);
  }

  /**
   * Asks the server about one position; null when it cannot answer.
   * @param {string} variant @param {string} position @returns {Promise<ProbeAnswer | null>}
   */
  async function askServer(variant, position) {
    let code = 0;
    try {
      const url = `${probeUrl}?variant=${encodeURIComponent(variant)}&position=${encodeURIComponent(position)}`;
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      code = response.status;
      const answer = response.ok ? probeAnswer(await response.json()) : null;
      status.probes.push({ position, ok: answer !== null, status: code });
      return answer;
    } catch {
      status.probes.push({ position, ok: false, status: code });
      return null;
    }
  }

  return {
    status,
    /**
     * The server's answer for the game's position when its class is one the server
     * answers but does not serve (the manifest's `probed`) and the worker does not hold
     * it; else null (also when the server cannot be asked). Never rejects.
     * @param {string} record  the game, as WasmGame.export_record gives it
     * @param {string} manifestUrl
     * @returns {Promise<ProbeAnswer | null>}
     */
    async probe(record, manifestUrl) {
      try {
        if (!manifests.has(manifestUrl)) manifests.set(manifestUrl, readManifest(manifestUrl));
        const { probed } = await manifests.get(manifestUrl);
        if (!probed.length) return null;
        const game = JSON.parse(wanted(record, 0));
        if (!game.ok || typeof game.class !== 'string' || typeof game.position !== 'string') return null;
        if (!probed.some((e) => e.rules === game.rules && e.class === game.class)) return null;
        const key = `${game.rules} ${game.position}`;
        let answer = answers.get(key);
        if (answer) {
          // Used again: the newest.
          answers.delete(key);
        } else {
          answer = askServer(game.rules, game.position);
          while (answers.size >= PROBE_ANSWERS) answers.delete(answers.keys().next().value);
        }
        answers.set(key, answer);
        const got = await answer;
        // A failure is not kept: the next turn asks again.
        if (!got) answers.delete(key);
        return got;
      } catch {
        return null;
      }
    },
    /**
     * Loads the tables the game's position could use that the server has; resolves when
     * they are in (or failed), never rejects.
     * @param {string} record  the game, as WasmGame.export_record gives it
     * @param {string} manifestUrl
     * @param {boolean} [whole]  the Perfect level: the rule set solved whole where the server has it
     */
    async prepare(record, manifestUrl, whole = false) {
      try {
        if (!manifests.has(manifestUrl)) manifests.set(manifestUrl, readManifest(manifestUrl));
        const { tables: entries, placing } = await manifests.get(manifestUrl);
        if (!entries.length) return;
        const game = JSON.parse(wanted(record, 0));
        if (!game.ok) return;
        const mine = entries.filter((e) => e.rules === game.rules);
        if (!mine.length) return;
        const solved = whole ? placing.find((e) => e.rules === game.rules) : undefined;
        if (solved) {
          if (game.placing || files.has(solved.url)) return;
          // Every class not held yet, then the placing table over them.
          const held = new Set(JSON.parse(wanted(record, Math.max(...mine.flatMap((e) => sides(e.class))))).loaded ?? []);
          const fetches = [...mine.filter((e) => !held.has(e.class) && !files.has(e.url)), solved].map((e) => {
            const p = fetchTable(e);
            files.set(e.url, p);
            return p;
          });
          const got = (await Promise.all(fetches)).filter((g) => g !== null);
          const classes = got.filter((g) => g.entry.class !== 'placing').sort((a, b) => b.bytes.length - a.bytes.length);
          for (const g of classes) loadTable(g);
          const table = got.find((g) => g.entry.class === 'placing');
          if (table) loadTable(table);
          return;
        }
        const max = Math.max(...mine.flatMap((e) => sides(e.class)));
        const want = JSON.parse(wanted(record, max));
        if (!want.ok) return;
        const missing = mine.filter((e) => want.classes.includes(e.class) && !want.loaded.includes(e.class) && !files.has(e.url));
        const fetching = missing.map((e) => fetchTable(e));
        missing.forEach((e, i) => files.set(e.url, fetching[i]));
        // All fetched first, then loaded largest first: the wasm's memory only grows, and
        // a file's copy freed after the largest class is loaded holds the smaller ones.
        const got = (await Promise.all(fetching)).filter((g) => g !== null);
        got.sort((a, b) => b.bytes.length - a.bytes.length);
        for (const g of got) loadTable(g);
      } catch (error) {
        give(manifestUrl, String(error?.message ?? error));
      }
    },
  };
}
