// Shared fixtures for the unit tests: the topology mill-wasm gives (kept current by a
// test in crates/mill-wasm) and a way to build snapshots by hand.
import { existsSync, readFileSync } from 'node:fs';

import { blankSnapshot } from '../../static/js/board.js';

export const topology = JSON.parse(readFileSync(new URL('./fixtures/topology.json', import.meta.url), 'utf8'));

/** The start position as the wasm would describe it: every point free to place on. */
export function snapshot(overrides = {}) {
  return {
    ...blankSnapshot(),
    position: '.../.../.../....../.../.../... l 9 9 0 0',
    inHand: { light: 9, dark: 9 },
    selectable: topology.points.map((p) => p.name),
    ...overrides,
  };
}

/** A moving-phase snapshot: Light a1 (can go to a4, d1), b2 (stuck); Dark g7. */
export function movingSnapshot(overrides = {}) {
  return snapshot({
    phase: { light: 'moving', dark: 'moving' },
    inHand: { light: 0, dark: 0 },
    onBoard: { light: 2, dark: 1 },
    pieces: { a1: 'light', b2: 'light', g7: 'dark' },
    selectable: ['a1'],
    destinations: { a1: ['a4', 'd1'] },
    actions: 20,
    ...overrides,
  });
}

export const t = (key, params = {}) => `${key}${Object.keys(params).length ? JSON.stringify(params) : ''}`;

/**
 * The page's WebAssembly build (static/pkg, from scripts/build-wasm) loaded into Node:
 * the real rules and engine, for tests that must not rely on hand-made snapshots.
 */
export async function loadWasm() {
  const pkg = new URL('../../static/pkg/', import.meta.url);
  if (!existsSync(new URL('mill_wasm_bg.wasm', pkg))) {
    throw new Error('static/pkg/ is missing: run scripts/build-wasm before these tests');
  }
  const mod = await import(new URL('mill_wasm.js', pkg));
  mod.initSync({ module: readFileSync(new URL('mill_wasm_bg.wasm', pkg)) });
  return mod;
}
