// Every position on the rules page, played through the real rules: mill-core compiled to
// WebAssembly (static/pkg, built by scripts/build-wasm), loaded into Node. Pins what each
// diagram is there to show, so a changed position string cannot silently teach nothing.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { DIAGRAMS, diagramById } from '../../static/js/rules-diagrams.js';
import { checkMovers, highlightSummary } from '../../static/js/rules-logic.js';
import { localGame } from '../../static/js/rules.js';
import { loadWasm } from './helpers.mjs';

let mod;

before(async () => {
  mod = await loadWasm();
});

/** A game at a diagram's tab, with its setup played. */
function open(id, tab = 0) {
  const game = localGame(mod);
  const spec = diagramById(id).tabs[tab];
  const reply = game.loadPosition(spec.position);
  assert.deepEqual(reply, { ok: true }, `${id}/${tab}: ${spec.position}`);
  for (const action of spec.setup ?? []) assert.deepEqual(game.play(action), { ok: true }, `${id} setup ${action}`);
  return game;
}

function play(game, ...actions) {
  for (const a of actions) assert.deepEqual(game.play(a), { ok: true }, `play ${a}`);
  return game.snapshot();
}

test('every diagram position loads, and no game is over before the reader plays', () => {
  for (const d of DIAGRAMS) {
    d.tabs.forEach((_, i) => {
      const s = open(d.id, i).snapshot();
      assert.equal(s.outcome, null, `${d.id}/${i} starts finished`);
      assert.ok(s.selectable.length > 0, `${d.id}/${i} has nothing to click`);
    });
  }
});

test('a broken position is refused with a message and changes nothing', () => {
  const game = open('worked');
  const before = game.snapshot().position;
  const reply = game.loadPosition('LLL/.../... l 9 9 0 0');
  assert.equal(reply.ok, false);
  assert.equal(reply.error.code, 'bad-position');
  assert.equal(game.snapshot().position, before);
});

test('worked position: g1 closes a mill, only d2 may go, then Dark places', () => {
  const game = open('worked');
  let s = play(game, 'g1');
  assert.equal(s.turn, 'light');
  assert.equal(s.pendingRemovals, 1);
  assert.deepEqual(s.removable, ['d2']);
  assert.equal(game.play('xb6').ok, false, 'a protected piece is refused');
  s = play(game, 'xd2');
  assert.equal(s.turn, 'dark');
  assert.equal(s.pendingRemovals, 0);
  assert.equal(s.phase.dark, 'placing');
  assert.deepEqual(s.record, ['g1xd2']);
});

test('exercise 1: placing, moving and flying highlight 20 points, 4 pieces and 3 flyers', () => {
  assert.deepEqual(highlightSummary(open('ex1', 0).snapshot()).params, { side: 'light', n: 20 });
  const moving = open('ex1', 1).snapshot();
  assert.equal(moving.phase.light, 'moving');
  assert.deepEqual(Object.keys(moving.destinations).sort(), ['d1', 'd5', 'f2', 'g7']);
  const flying = open('ex1', 2).snapshot();
  assert.equal(flying.phase.light, 'flying');
  assert.equal(flying.phase.dark, 'moving');
  assert.deepEqual(highlightSummary(flying).params, { side: 'light', n: 3, free: 16 });
});

test('exercise 2: g1 closes two mills and still removes one piece', () => {
  const game = open('ex2');
  let s = play(game, 'g1');
  assert.equal(s.pendingRemovals, 1);
  assert.deepEqual(s.removable.sort(), ['b4', 'c5', 'd2', 'f6']);
  s = play(game, 'xd2');
  assert.equal(s.turn, 'dark');
  assert.equal(s.pendingRemovals, 0);
  assert.equal(s.onBoard.dark, 3);
});

test('exercise 2, Dark first: Dark may take the shared point, and then no Light placement closes a mill', () => {
  const game = open('ex2', 1);
  assert.ok(game.snapshot().selectable.includes('g1'));
  const s = play(game, 'g1');
  assert.equal(s.turn, 'light');
  for (const p of s.selectable) {
    const g = open('ex2', 1);
    play(g, 'g1', p);
    assert.equal(g.snapshot().pendingRemovals, 0, `Light ${p} closes a mill`);
  }
});

test('exercise 3: after f6-f4 exactly a4 and c5 can move, and the check agrees', () => {
  const s = open('ex3').snapshot();
  assert.equal(s.turn, 'dark');
  assert.deepEqual(s.lastTurn, ['f6-f4']);
  assert.equal(checkMovers(s, ['a4', 'c5'], 'dark').ok, true);
  assert.equal(checkMovers(s, ['a4', 'c5', 'f2'], 'dark').ok, false);
  assert.equal(checkMovers(s, ['c5'], 'dark').ok, false);
});

test('the protected-pieces boards: d7 alone while it stands outside, then any of the mill', () => {
  assert.deepEqual(play(open('protected', 0), 'g7').removable, ['d7']);
  assert.deepEqual(play(open('protected', 1), 'g7').removable.sort(), ['b2', 'b4', 'b6']);
});

test('flying: Light flies f2 to a4 into a mill; Dark, with five, steps', () => {
  const s = play(open('flying', 0), 'f2-a4');
  assert.equal(s.pendingRemovals, 1);
  const dark = open('flying', 1).snapshot();
  assert.equal(dark.phase.dark, 'moving');
  assert.deepEqual(dark.destinations.d1, ['g1', 'd2']);
});

test('losing: down to two pieces, and a blockade, both end the game for Light', () => {
  let s = play(open('losing', 0), 'g4-g1', 'xc5');
  assert.deepEqual(s.outcome, { kind: 'win', winner: 'light', reason: 'pieces' });
  s = play(open('losing', 1), 'd1-a1');
  assert.deepEqual(s.outcome, { kind: 'win', winner: 'light', reason: 'blocked' });
});

test('draws: the hundredth quiet turn, and the third repetition', () => {
  let s = play(open('draws', 0), 'a1-a4');
  assert.deepEqual(s.outcome, { kind: 'draw', reason: 'hundred-turns' });
  const game = open('draws', 1);
  s = play(game, 'a1-a4', 'g7-g4', 'a4-a1', 'g4-g7');
  assert.equal(s.outcome, null, 'twice is not yet a draw');
  s = play(game, 'a1-a4', 'g7-g4', 'a4-a1', 'g4-g7');
  assert.deepEqual(s.outcome, { kind: 'draw', reason: 'threefold' });
});
