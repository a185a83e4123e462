// Owns loading the rules (mill-core compiled to WebAssembly, static/pkg/) and wrapping a
// WasmGame in plain JS objects. Every legal point the page shows in local play comes
// from here. The page loads the small build first (pkg/mill_board.js: the rules, the game
// view and its saved-game JSON); the full build (pkg/mill_wasm.js, the same mill-core with
// records, MFEN, MIF's MSTATE and the engine) only when a record is copied or imported
// (loadFullRules; the engine's workers load it themselves).

import { snapshotFromView } from './board.js';

/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./types.js').Topology} Topology */

/**
 * @typedef {object} WasmGameHandle  mill-wasm's WasmGame: JSON text in and out
 * @property {() => string} topology
 * @property {() => string} snapshot
 * @property {(action: string) => string} play
 * @property {() => boolean} undo
 * @property {() => void} restart
 * @property {() => string} export_record
 * @property {(json: string) => string} import_record
 * @property {(position: string) => string} load_position
 * @property {(headerJson: string) => string} [record_text]  the full build only
 * @property {(text: string) => string} [load_record_text]  the full build only
 * @property {() => string} [mfen]  the full build only
 * @property {(text: string, rules?: string) => string} [load_mfen]  the full build only
 * @property {() => string} [mstate]  the full build only
 * @property {(text: string) => string} [load_mstate]  the full build only
 * @property {(rules: string) => string} start_rules
 * @property {() => string} rules
 * @property {() => number | undefined} start_ply_read
 * @property {(ply: number | undefined) => void} set_start_ply
 * @property {() => void} free
 *
 * @typedef {object} WasmModule  the wasm-bindgen exports of static/pkg/mill_board.js (the
 *   board build; mill_wasm.js, the full build, has these too, `convert_position`, and its
 *   WasmGame's records, MFEN and MSTATE)
 * @property {() => Promise<unknown>} default  instantiates the module
 * @property {new () => WasmGameHandle} WasmGame
 * @property {(rules: string) => string} rules_info  what a rule-set name means (variant.js)
 * @property {() => string} variants  every variant with its usual rules
 * @property {(text: string, rules?: string) => string} [convert_position]  a position string or MFEN in both forms (the full build only)
 *
 * @typedef {{ ok: boolean, error?: { code: string, message: string, point?: string, turn?: number, reason?: string, line?: number, fits?: string[] } }} Reply
 *   the answer to play, import_record, load_position and the record and MFEN calls:
 *   `error` when not ok (with the record's `turn` or `line` at fault; for MFEN the rule
 *   sets it does read under, `fits`), and then nothing changed
 *
 * @typedef {{ date?: string, light?: string, dark?: string, tags?: [string, string][] }} RecordHeader
 *   a text record's header fields (crates/mill-core/src/record.rs); the date YYYY.MM.DD;
 *   `tags` further tags in order, e.g. [["Room", "Ab3x"], ["Round", "2"]]
 *
 * @typedef {Reply & { text?: string }} TextReply  `text` when ok
 *
 * @typedef {object} LocalGame  a game played through the rules in this browser
 * @property {Topology} topology
 * @property {() => Snapshot} snapshot
 * @property {(action: string) => Reply} play
 * @property {() => boolean} undo  false when there is nothing to take back
 * @property {() => void} restart
 * @property {() => string} exportRecord  `{"start": position, "actions": [texts]}`
 * @property {(json: string) => Reply} importRecord
 * @property {(position: string) => Reply} loadPosition
 *   (recordText, loadRecordText, mfen, loadMfen, mstate, loadMstate need the full build
 *   loaded, loadFullRules; else a `rules-unavailable` error)
 * @property {(header: RecordHeader) => TextReply} recordText  the game as a text record
 * @property {(text: string) => Reply} loadRecordText  replaces the game with a text record's
 * @property {() => TextReply} mfen  the position as MFEN (Mill Interchange Format 1.0)
 * @property {() => TextReply} mstate  the whole game as MIF's MSTATE/1.0 (one line of JSON)
 * @property {(text: string) => Reply} loadMstate  replaces the game with an MSTATE document's
 * @property {(text: string, rules?: string) => Reply} loadMfen  a new game from an MFEN position, read under
 *   `rules` (a rule-set name; absent: the game's own)
 * @property {(rules: string) => Reply} startRules  a new game from the start under a rule set ("six+per-mill")
 * @property {() => string} rulesName  the canonical name of the game's rule set
 * @property {() => import('./variant.js').RulesInfo} rulesInfo  what the game's rule set is
 */

/**
 * The rule set of mill-core's default game, known before the WebAssembly has loaded: Nine
 * Men's Morris with its usual options. A position string without a seventh part is under
 * it, the variant chooser starts on it, and its games keep the save slots of the time
 * before the variants. tests/unit/variant.test.mjs checks it against the WebAssembly.
 */
export const DEFAULT_RULES = 'nine';

// A variable, not a literal, so the type checker does not look for the generated file
// (wasm-bindgen runs with --no-typescript); WasmModule above is its type.
const WASM_MODULE = '/pkg/mill_board.js';
const FULL_MODULE = '/pkg/mill_wasm.js';

/** @type {Promise<WasmModule> | null} */
let ready = null;
/** @type {WasmModule | null} the module once loaded, for the views that cannot wait */
let loaded = null;

/** The rules' module if it has loaded, else null. @returns {WasmModule | null} */
export function loadedRules() {
  return loaded;
}

/**
 * Loads the WebAssembly module once. Resolves to the wasm-bindgen exports.
 * @returns {Promise<WasmModule>}
 */
export function loadRules() {
  ready ??= import(WASM_MODULE).then(async (mod) => {
    await mod.default();
    loaded = mod;
    return mod;
  });
  // A failed load may be a passing network error: let the next call try again.
  ready.catch(() => (ready = null));
  return ready;
}

/** @type {Promise<WasmModule> | null} */
let fullReady = null;
/** @type {WasmModule | null} the full build once loaded */
let fullLoaded = null;

/**
 * Loads the full build once (for records, MFEN, MSTATE: Copy and Import call it first). Resolves to its
 * wasm-bindgen exports.
 * @returns {Promise<WasmModule>}
 */
export function loadFullRules() {
  fullReady ??= import(FULL_MODULE).then(async (mod) => {
    await mod.default();
    fullLoaded = mod;
    return mod;
  });
  fullReady.catch(() => (fullReady = null));
  return fullReady;
}

/** The answer when a record is asked for before the full build loaded. @type {Reply} */
const FULL_UNAVAILABLE = {
  ok: false,
  error: { code: 'rules-unavailable', message: 'The rules for records could not be loaded.' },
};

/**
 * Runs `read` on the game in the full build (records, MFEN, MSTATE are only there): on
 * `game` itself when it is the full build's, else on a copy carried whole — its actions,
 * result and start's count — which is then freed.
 * @template T
 * @param {WasmGameHandle} game @param {(full: WasmGameHandle) => T} read
 * @returns {T | Reply}
 */
function viaFull(game, read) {
  if (game.mfen) return read(game);
  if (!fullLoaded) return FULL_UNAVAILABLE;
  const copy = new fullLoaded.WasmGame();
  try {
    const carried = /** @type {Reply} */ (JSON.parse(copy.import_record(game.export_record())));
    if (!carried.ok) return carried;
    copy.set_start_ply(game.start_ply_read());
    return read(copy);
  } finally {
    copy.free();
  }
}

/**
 * Loads through the full build as viaFull, then carries the loaded game back into `game`;
 * on an error nothing changes.
 * @template {Reply} T
 * @param {WasmGameHandle} game @param {(full: WasmGameHandle) => T} load
 * @returns {T | Reply}
 */
function loadViaFull(game, load) {
  if (game.mfen) return load(game);
  return viaFull(game, (copy) => {
    const reply = load(copy);
    if (!reply.ok) return reply;
    // The same mill-core replays it: the record carried back always loads.
    const carried = /** @type {Reply} */ (JSON.parse(game.import_record(copy.export_record())));
    if (!carried.ok) return carried;
    game.set_start_ply(copy.start_ply_read());
    return reply;
  });
}

/**
 * A local game on a fresh WasmGame.
 * @param {WasmModule} mod
 * @returns {LocalGame}
 */
export function localGame(mod) {
  const game = new mod.WasmGame();
  const parse = (text) => JSON.parse(text);
  return {
    // The board changes with the rule set (a new game, an import).
    get topology() {
      return JSON.parse(game.topology());
    },
    snapshot: () => snapshotFromView(parse(game.snapshot())),
    play: (action) => parse(game.play(action)),
    undo: () => game.undo(),
    restart: () => game.restart(),
    exportRecord: () => game.export_record(),
    importRecord: (json) => parse(game.import_record(json)),
    loadPosition: (text) => parse(game.load_position(text)),
    recordText: (header) => viaFull(game, (g) => parse(/** @type {NonNullable<WasmGameHandle['record_text']>} */ (g.record_text)(JSON.stringify(header)))),
    loadRecordText: (text) => loadViaFull(game, (g) => parse(/** @type {NonNullable<WasmGameHandle['load_record_text']>} */ (g.load_record_text)(text))),
    mfen: () => viaFull(game, (g) => parse(/** @type {NonNullable<WasmGameHandle['mfen']>} */ (g.mfen)())),
    loadMfen: (text, rules) => loadViaFull(game, (g) => parse(/** @type {NonNullable<WasmGameHandle['load_mfen']>} */ (g.load_mfen)(text, rules))),
    mstate: () => viaFull(game, (g) => parse(/** @type {NonNullable<WasmGameHandle['mstate']>} */ (g.mstate)())),
    loadMstate: (text) => loadViaFull(game, (g) => parse(/** @type {NonNullable<WasmGameHandle['load_mstate']>} */ (g.load_mstate)(text))),
    startRules: (rules) => parse(game.start_rules(rules)),
    rulesName: () => parse(game.rules()).rules,
    rulesInfo: () => parse(game.rules()),
  };
}

/**
 * What pasted text is: MFEN (its signature), an MSTATE game (MIF's JSON, naming its
 * format), a position string (six fields, the board with '/', or seven with the rule
 * set), else a game record.
 * @param {string} text @returns {'mfen' | 'mstate' | 'position' | 'record'}
 */
export function importKind(text) {
  const s = text.trim();
  if (s.startsWith('MFEN/')) return 'mfen';
  if (s.startsWith('{') && s.includes('"MSTATE/1.0"')) return 'mstate';
  const fields = s.split(/\s+/);
  if ((fields.length === 6 || fields.length === 7) && fields[0].includes('/') && /^[ld]$/.test(fields[1]) && !s.includes('[')) return 'position';
  return 'record';
}

/**
 * Replaces `game` with one read from `text`, whatever importKind says it is: a game
 * record, a position string, or MFEN read under `mfenRules` (a rule-set name; absent:
 * the game's own). On error nothing changes.
 * @param {LocalGame} game @param {string} text @param {string} [mfenRules] @returns {Reply}
 */
export function loadText(game, text, mfenRules) {
  const kind = importKind(text);
  if (kind === 'mfen') return game.loadMfen(text, mfenRules);
  if (kind === 'mstate') return game.loadMstate(text);
  if (kind === 'position') return game.loadPosition(text);
  return game.loadRecordText(text);
}
