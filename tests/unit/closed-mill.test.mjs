// The closed mill on the real rules: mill-wasm's snapshot (static/pkg, from
// scripts/build-wasm) loaded in node, read by board.js as the board draws it.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { closedMillLines } from '../../static/js/board.js';
import { localGame } from '../../static/js/rules.js';
import { loadWasm } from './helpers.mjs';

let mod;

before(async () => {
  mod = await loadWasm();
});

function play(game, actions) {
  for (const a of actions) assert.deepEqual(game.play(a), { ok: true }, a);
  return game.snapshot();
}

test('a placement closing a1 d1 g1: fresh until the removal, settled after, gone after the reply', () => {
  const game = localGame(mod);
  let s = play(game, ['a1', 'b2', 'd1', 'd2']);
  assert.deepEqual(closedMillLines(game.topology, s), []);
  s = play(game, ['g1']);
  assert.deepEqual(closedMillLines(game.topology, s), [{ points: ['a1', 'd1', 'g1'], from: 'a1', to: 'g1', fresh: true }]);
  s = play(game, ['xd2']);
  assert.deepEqual(closedMillLines(game.topology, s), [{ points: ['a1', 'd1', 'g1'], from: 'a1', to: 'g1', fresh: false }]);
  s = play(game, ['d2']);
  assert.deepEqual(closedMillLines(game.topology, s), []);
});

test('one piece closing two mills marks both lines', () => {
  const game = localGame(mod);
  const s = play(game, ['a1', 'b2', 'a4', 'b4', 'd7', 'd2', 'g7', 'c5', 'a7']);
  assert.deepEqual(
    closedMillLines(game.topology, s).map((l) => l.points.join(' ')).sort(),
    ['a1 a4 a7', 'a7 d7 g7'],
  );
});
