// Owns loading the rules (mill-core compiled to WebAssembly, static/pkg/) and wrapping a
// WasmGame in plain JS objects. Every legal point the page shows in local play comes
// from here.

import { snapshotFromView } from './protocol.js';

let ready = null;

/** Loads the WebAssembly module once. Resolves to the wasm-bindgen exports. */
export function loadRules() {
  ready ??= import('/pkg/mill_wasm.js').then(async (mod) => {
    await mod.default();
    return mod;
  });
  // A failed load may be a passing network error: let the next call try again.
  ready.catch(() => (ready = null));
  return ready;
}

/** A local game: { topology, snapshot(), play(text), undo(), restart(), exportRecord(), importRecord(json), loadPosition(text) }. */
export function localGame(mod) {
  const game = new mod.WasmGame();
  const topology = JSON.parse(game.topology());
  const parse = (text) => JSON.parse(text);
  return {
    topology,
    snapshot: () => snapshotFromView(parse(game.snapshot())),
    play: (action) => parse(game.play(action)),
    undo: () => game.undo(),
    restart: () => game.restart(),
    exportRecord: () => game.export_record(),
    importRecord: (json) => parse(game.import_record(json)),
    loadPosition: (text) => parse(game.load_position(text)),
  };
}
