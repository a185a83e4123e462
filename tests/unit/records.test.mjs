// Records and MFEN through the page's WebAssembly build (static/pkg, from
// scripts/build-wasm) in node: what the page's Copy record / Import will call.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { loadWasm } from './helpers.mjs';

let mod;

before(async () => {
  mod = await loadWasm();
});

function played(actions) {
  const game = new mod.WasmGame();
  for (const a of actions) assert.equal(JSON.parse(game.play(a)).ok, true, a);
  return game;
}

test('a record copied from one game and imported into another gives the same game', () => {
  const game = played(['a1', 'b2', 'd1', 'd2', 'g1', 'xd2', 'f4']);
  const out = JSON.parse(game.record_text(JSON.stringify({ date: '2026.12.01', light: 'Аня', dark: 'Boris' })));
  assert.equal(out.ok, true);
  assert.match(out.text, /\[Light "Аня"\]/);
  assert.match(out.text, /1\. a1 b2 2\. d1 d2 3\. g1xd2 f4 \*/);
  const other = new mod.WasmGame();
  const back = JSON.parse(other.load_record_text(out.text));
  assert.deepEqual(back, { ok: true, header: { date: '2026.12.01', light: 'Аня', dark: 'Boris' } });
  assert.deepEqual(JSON.parse(other.snapshot()), JSON.parse(game.snapshot()));
});

test('a malformed record names its turn and leaves the game alone', () => {
  const game = played(['a1']);
  const before = game.snapshot();
  const reply = JSON.parse(game.load_record_text('1. a1 b2 2. d1 d2 3. g1xd3'));
  assert.equal(reply.ok, false);
  assert.equal(reply.error.code, 'bad-turn');
  assert.equal(reply.error.turn, 5);
  assert.match(reply.error.message, /turn 5 \(3\. g1xd3\)/);
  assert.equal(game.snapshot(), before);
});

test('MFEN round trip: export, import into a fresh game, same position', () => {
  const game = played(['a1', 'b2', 'd1', 'd2', 'g1']);
  const { ok, text } = JSON.parse(game.mfen());
  assert.equal(ok, true);
  assert.match(text, /^MFEN\/1\.0 mill24-state-v1 /);
  const other = new mod.WasmGame();
  assert.equal(JSON.parse(other.load_mfen(text)).ok, true);
  assert.equal(JSON.parse(other.snapshot()).position, JSON.parse(game.snapshot()).position);
  const converted = JSON.parse(mod.convert_position(JSON.parse(game.snapshot()).position));
  assert.equal(converted.mfen, text);
  const bad = JSON.parse(other.load_mfen('MFEN/1.0 mill24-state-v1 nonsense'));
  assert.equal(bad.ok, false);
  assert.equal(typeof bad.error.code, 'string');
});

test('a game copied as MIF (MSTATE) and imported into another gives the same game', () => {
  const game = played(['a1', 'b2', 'd1', 'd2', 'g1', 'xd2', 'f4']);
  const out = JSON.parse(game.mstate());
  assert.equal(out.ok, true);
  const doc = JSON.parse(out.text);
  assert.equal(doc.format, 'MSTATE/1.0');
  assert.equal(doc.ruleset.manifest.id, 'x-mill-nine');
  assert.deepEqual(doc.events[5], { seq: 6, actor: 'w', type: 'remove', target: { zone: 'board', at: 'd2' } });
  const other = new mod.WasmGame();
  assert.equal(JSON.parse(other.load_mstate(out.text)).ok, true);
  assert.deepEqual(JSON.parse(other.snapshot()), JSON.parse(game.snapshot()));
  // Another program's manifest with rules this page does not play: refused, game unchanged.
  const foreign = { ...doc, ruleset: { ...doc.ruleset, manifest: { ...doc.ruleset.manifest, placing: { ...doc.ruleset.manifest.placing, movementAllowed: true } } } };
  const before = other.snapshot();
  const refused = JSON.parse(other.load_mstate(JSON.stringify(foreign)));
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, 'semantic-digest-mismatch');
  assert.equal(other.snapshot(), before);
});

test('MFEN of Twelve: refused under Nine with the rule set it fits, read under Twelve when asked', () => {
  const twelve = 'MFEN/1.0 mill24-state-v1 W......./......../........ b p p 11,12 - 0 1 -';
  const game = played([]);
  const refused = JSON.parse(game.load_mfen(twelve));
  assert.equal(refused.error.code, 'bad-position');
  assert.deepEqual(refused.error.fits, ['twelve']);
  assert.equal(JSON.parse(game.load_mfen(twelve, 'twelve')).ok, true);
  assert.equal(JSON.parse(game.rules()).rules, 'twelve');
  assert.equal(JSON.parse(mod.convert_position(twelve, 'twelve')).mfen, twelve);
  assert.equal(JSON.parse(game.load_mfen(twelve, 'three')).error.code, 'unrepresentable-under-profile');
});

test('an online round with its resignation is written with its room, round and result', () => {
  const game = new mod.WasmGame();
  const start = JSON.parse(game.snapshot()).position;
  const round = { start, actions: ['a1', 'b2', 'd1'], result: { winner: 'light', reason: 'resignation' } };
  assert.equal(JSON.parse(game.import_record(JSON.stringify(round))).ok, true);
  const header = { date: '2026.12.01', tags: [['Room', 'Ab3x'], ['Round', '3']] };
  const { text } = JSON.parse(game.record_text(JSON.stringify(header)));
  assert.match(text, /\[Result "1-0"\]\n\[Termination "resignation"\]\n\[Room "Ab3x"\]\n\[Round "3"\]\n\n1\. a1 b2 2\. d1 1-0\n$/);
});
