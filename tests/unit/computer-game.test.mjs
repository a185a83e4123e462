// The Vs computer controller (computer.js) on the real rules and engine: the WebAssembly
// build (static/pkg, from scripts/build-wasm) loaded in node. The engine runs in-process
// instead of a Worker; the pause before a removal is a promise the test releases.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createComputer, MIN_THINK_MS, REMOVAL_PAUSE_MS } from '../../static/js/computer.js';
import { localGame } from '../../static/js/rules.js';
import { TABLEBASE_MANIFEST } from '../../static/js/tablebase.js';
import { loadWasm } from './helpers.mjs';

let mod;

before(async () => {
  mod = await loadWasm();
});

/** The real engine, answering at once (Easy and Medium stop at their depth). */
function realEngine() {
  const requests = [];
  return {
    requests,
    cancelled: 0,
    search(request) {
      requests.push(request);
      return Promise.resolve(JSON.parse(mod.best_turn(request.record, request.level, request.seed, request.movetime)));
    },
    cancel() {
      this.cancelled += 1;
    },
  };
}

/** An engine whose replies the test gives by hand. */
function manualEngine() {
  const calls = [];
  return {
    calls,
    cancelled: 0,
    search(request) {
      return new Promise((resolve) => calls.push({ request, resolve }));
    },
    cancel() {
      this.cancelled += 1;
      calls.at(-1)?.resolve({ ok: false, error: { code: 'cancelled', message: 'cancelled' } });
    },
  };
}

/** A timer the test controls: the thinking minimum passes at once, removal pauses wait for release(). */
function manualTimer() {
  const pauses = [];
  return {
    pauses,
    wait(ms) {
      if (ms === MIN_THINK_MS) return Promise.resolve();
      assert.equal(ms, REMOVAL_PAUSE_MS);
      return new Promise((resolve) => pauses.push(resolve));
    },
    release() {
      pauses.shift()();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

const noPauses = () => ({ wait: () => Promise.resolve() });

function setup({ engine = realEngine(), settings = {}, record = null, timer = noPauses() } = {}) {
  const game = localGame(mod);
  if (record) assert.equal(game.importRecord(record).ok, true);
  const saves = [];
  const errors = [];
  const tables = [];
  let seeds = 100;
  const computer = createComputer({
    game,
    engine,
    settings: { level: 'easy', human: 'light', seed: 1, ...settings },
    wait: (ms) => timer.wait(ms),
    newSeed: () => seeds++,
    onSave: (recordJson, s) => saves.push({ record: JSON.parse(recordJson), settings: s }),
    onError: (e) => errors.push(e),
    onTables: (rules) => tables.push(rules),
  });
  return { game, computer, engine, timer, saves, errors, tables, snap: () => game.snapshot() };
}

const record = (actions) => JSON.stringify({ start: '.../.../.../....../.../.../... l 9 9 0 0', actions });

test('after the person’s placement the computer answers with a legal placement, and the game is saved', async () => {
  const { computer, engine, snap, saves } = setup();
  assert.equal(computer.canAct(), true);
  const reply = await computer.play('d6');
  assert.equal(reply.ok, true);
  const s = snap();
  assert.equal(s.turn, 'light');
  assert.equal(s.record.length, 2);
  assert.equal(s.record[0], 'd6');
  assert.equal(s.pieces[s.record[1]], 'dark', `the computer's turn ${s.record[1]} is not on the board`);
  assert.equal(engine.requests.length, 1);
  assert.equal(engine.requests[0].level, 'easy');
  // Only Hard plays from the endgame tables: the others never make the worker fetch them.
  assert.equal(engine.requests[0].tablebase, undefined);
  assert.deepEqual(JSON.parse(engine.requests[0].record).actions, ['d6']);
  assert.deepEqual(saves.at(-1).record.actions, ['d6', s.record[1]]);
  assert.equal(computer.canAct(), true);
  assert.equal(computer.busy, null);
});

test('playing Hard asks for the rule set\u2019s endgame tables to be kept offline; the other levels do not', async () => {
  const easy = setup();
  await easy.computer.play('d6');
  assert.deepEqual(easy.tables, []);
  const hard = setup({ settings: { level: 'hard' } });
  await hard.computer.start();
  assert.deepEqual(hard.tables, ['nine']);
  await hard.computer.setLevel('medium');
  const six = setup({ settings: { level: 'easy' } });
  six.game.startRules('six');
  await six.computer.setLevel('hard');
  assert.deepEqual(six.tables, ['six']);
});

test('several turns in a row: every computer turn is legal and the person moves again after it', async () => {
  const { computer, snap } = setup({ settings: { level: 'medium' } });
  for (let i = 0; i < 5; i++) {
    let s = snap();
    const action = s.pendingRemovals > 0 ? `x${s.removable[0]}` : s.selectable.find((p) => !s.pieces[p]);
    await computer.play(action);
    s = snap();
    if (s.outcome) break;
    assert.equal(s.turn, 'light');
  }
  assert.ok(snap().record.length >= 8);
});

test('the computer’s removal comes after a pause, as a second step', async () => {
  const engine = manualEngine();
  const { computer, timer, snap, saves } = setup({ engine, timer: manualTimer() });
  // The computer places g7 and g4; after Light's c3 it closes g7-g4-g1 and removes a1.
  const played = computer.play('a1');
  await tick();
  engine.calls[0].resolve({ ok: true, turn: 'g7', actions: ['g7'] });
  await played;
  const p2 = computer.play('b2');
  await tick();
  engine.calls[1].resolve({ ok: true, turn: 'g4', actions: ['g4'] });
  await p2;
  const p3 = computer.play('c3');
  await tick();
  assert.equal(computer.busy, 'thinking');
  assert.equal(computer.canAct(), false);
  engine.calls[2].resolve({ ok: true, turn: 'g1xa1', actions: ['g1', 'xa1'] });
  await tick();
  // The placement is shown, the removal not yet: Dark owes it, the person cannot click.
  let s = snap();
  assert.equal(computer.busy, 'showing');
  assert.equal(s.pieces.g1, 'dark');
  assert.equal(s.pieces.a1, 'light');
  assert.equal(s.pendingRemovals, 1);
  assert.equal(computer.canAct(), false);
  assert.equal(timer.pauses.length, 1);
  // A level change now lets the turn being shown finish; the level applies from the next.
  await computer.setLevel('hard');
  assert.equal(computer.busy, 'showing');
  assert.equal(engine.cancelled, 0);
  const savedBefore = saves.length;
  timer.release();
  await p3;
  s = snap();
  assert.equal(s.pieces.a1, undefined);
  assert.equal(s.record.at(-1), 'g1xa1');
  assert.equal(s.turn, 'light');
  assert.equal(computer.canAct(), true);
  // Saved once, after the whole turn: a reload never finds half a computer turn.
  assert.equal(saves.length, savedBefore + 1);
  assert.equal(saves.at(-1).record.actions.at(-1), 'xa1');
  assert.equal(saves.at(-1).settings.level, 'hard');
  computer.play('d1');
  await tick();
  assert.equal(engine.calls[3].request.level, 'hard');
  assert.equal(engine.calls[3].request.tablebase, TABLEBASE_MANIFEST);
});

test('Undo takes back the person’s last turn together with the computer’s reply', async () => {
  const { computer, snap } = setup();
  await computer.play('d6');
  await computer.play(snap().selectable.find((p) => !snap().pieces[p]));
  const before = snap().record;
  assert.equal(before.length, 4);
  await computer.undo();
  assert.deepEqual(snap().record, before.slice(0, 2));
  assert.equal(snap().turn, 'light');
  await computer.undo();
  assert.deepEqual(snap().record, []);
  assert.equal(computer.canUndo(), false);
  // Nothing left: Undo changes nothing.
  await computer.undo();
  assert.equal(snap().actions, 0);
});

test('Undo during a search cancels it: the late answer is never played', async () => {
  const engine = manualEngine();
  const { computer, snap } = setup({ engine });
  const played = computer.play('d6');
  await tick();
  assert.equal(computer.busy, 'thinking');
  assert.equal(computer.canUndo(), true, 'Undo is offered during the search');
  await computer.undo();
  assert.equal(engine.cancelled, 1);
  await played;
  // The first search's answer arrives after all: it belongs to a cancelled generation.
  engine.calls[0].resolve({ ok: true, turn: 'a1', actions: ['a1'] });
  await tick();
  assert.equal(snap().actions, 0);
  assert.equal(computer.busy, null);
  assert.equal(computer.canAct(), true);
});

test('New game during the removal pause starts over with a new seed and nothing of the old turn', async () => {
  const engine = manualEngine();
  const { computer, timer, snap, saves } = setup({ engine, record: record(['a1', 'g7', 'b2', 'g4']), timer: manualTimer() });
  const played = computer.play('c3');
  await tick();
  engine.calls[0].resolve({ ok: true, turn: 'g1xa1', actions: ['g1', 'xa1'] });
  await tick();
  assert.equal(snap().pendingRemovals, 1);
  await computer.newGame();
  assert.equal(snap().actions, 0);
  assert.equal(computer.settings.seed, 100);
  timer.release();
  await played;
  assert.equal(snap().actions, 0, 'the old removal was played into the new game');
  assert.deepEqual(saves.at(-1).record.actions, []);
});

test('playing Dark makes the computer open; its opening alone is not undone', async () => {
  const { computer, snap, engine } = setup({});
  await computer.setHuman('dark');
  let s = snap();
  assert.equal(s.actions, 1);
  assert.equal(s.turn, 'dark');
  assert.equal(s.pieces[s.record[0]], 'light');
  assert.equal(engine.requests.length, 1);
  assert.equal(computer.canUndo(), false);
  await computer.undo();
  assert.equal(snap().actions, 1);
  // After the person's reply and the computer's answer, Undo goes back to the person's move.
  await computer.play(s.selectable.find((p) => !s.pieces[p]));
  s = snap();
  assert.equal(s.actions, 3);
  await computer.undo();
  assert.equal(snap().actions, 1);
  assert.equal(snap().turn, 'dark');
});

test('from a position on the computer’s move, its first turn alone is not undone, and Undo stops at the person’s', async () => {
  // Dark to move in the moving phase; the person plays Light, so the computer opens.
  const start = 'L.D/.L./D.L/LD..DL/L.D/.D./L.D d 0 0 0 0';
  const { computer, snap } = setup({ record: JSON.stringify({ start, actions: [] }) });
  assert.equal(computer.opening, Infinity, 'nothing is the person\'s before the computer has moved');
  await computer.start();
  let s = snap();
  assert.equal(s.turn, 'light');
  const opening = computer.opening;
  assert.equal(opening, s.actions, 'the computer\'s whole first turn');
  assert.equal(computer.canUndo(), false);
  const from = Object.keys(s.destinations)[0];
  await computer.play(`${from}-${s.destinations[from][0]}`);
  s = snap();
  if (s.pendingRemovals > 0) await computer.play(`x${s.removable[0]}`);
  assert.equal(computer.canUndo(), true);
  await computer.undo();
  assert.equal(snap().actions, opening);
  assert.equal(snap().turn, 'light');
});

test('the seed of each search depends on the game seed and the move, so games differ', async () => {
  const a = setup({ settings: { seed: 1 } });
  const b = setup({ settings: { seed: 2 } });
  await a.computer.play('d6');
  await a.computer.play(a.snap().selectable.find((p) => !a.snap().pieces[p]));
  await b.computer.play('d6');
  const [s1, s2] = a.engine.requests.map((r) => r.seed);
  assert.notEqual(s1, s2);
  assert.notEqual(s1, b.engine.requests[0].seed);
});

test('changing the level keeps the game; a search under way starts again at the new level', async () => {
  const engine = manualEngine();
  const { computer, snap, saves } = setup({ engine });
  computer.play('d6');
  await tick();
  computer.setLevel('medium');
  await tick();
  assert.equal(engine.cancelled, 1);
  assert.equal(engine.calls.length, 2);
  assert.equal(engine.calls[1].request.level, 'medium');
  assert.equal(engine.calls[1].request.record, engine.calls[0].request.record);
  engine.calls[1].resolve({ ok: true, turn: 'a1', actions: ['a1'] });
  await tick();
  assert.deepEqual(snap().record, ['d6', 'a1']);
  assert.equal(saves.at(-1).settings.level, 'medium');
  // Without a search under way, only the setting changes.
  await computer.setLevel('hard');
  assert.equal(engine.calls.length, 2);
  assert.deepEqual(snap().record, ['d6', 'a1']);
  assert.equal(computer.settings.level, 'hard');
  await computer.setLevel('expert');
  assert.equal(computer.settings.level, 'hard');
});

test('a reload during the computer’s removal pause takes the half turn back and searches again', async () => {
  // Saved with Dark's g1 placed and its removal still owed (an older save or a crash).
  const { computer, snap, engine } = setup({
    record: record(['a1', 'g7', 'b2', 'g4', 'c3', 'g1']),
    settings: { level: 'medium' },
  });
  assert.equal(snap().pendingRemovals, 1);
  await computer.start();
  assert.deepEqual(JSON.parse(engine.requests[0].record).actions, ['a1', 'g7', 'b2', 'g4', 'c3']);
  const s = snap();
  assert.equal(s.record.length, 6);
  assert.equal(s.pendingRemovals, 0);
  assert.equal(s.turn, 'light');
  // A whole new turn: its placement is on the board and nothing is owed.
  assert.equal(s.pieces[s.record[5].split('x')[0]], 'dark');
});

test('the person cannot play while the computer thinks, and an engine error is reported', async () => {
  const engine = manualEngine();
  const { computer, snap, errors } = setup({ engine });
  const played = computer.play('d6');
  await tick();
  const refused = await computer.play('a1');
  assert.equal(refused.ok, false);
  assert.equal(snap().actions, 1);
  engine.calls[0].resolve({ ok: false, error: { code: 'bad-record', message: 'broken' } });
  await played;
  assert.deepEqual(errors, [{ code: 'bad-record', message: 'broken' }]);
  assert.equal(computer.busy, null);
  assert.equal(computer.failed, true);
  assert.equal(computer.canAct(), false);
  // Choosing the same level again retries.
  computer.setLevel('easy');
  await tick();
  assert.equal(engine.calls.length, 2, 'a failed search is tried again when the level is chosen');
  assert.equal(computer.failed, false);
  assert.equal(engine.calls[1].request.level, 'easy');
  // An illegal turn from the engine is refused by the rules and reported, not half played.
  engine.calls[1].resolve({ ok: true, turn: 'd6', actions: ['d6'] });
  await tick();
  assert.equal(errors.at(-1).code, 'occupied', JSON.stringify(errors));
  assert.equal(snap().actions, 1);
  assert.equal(computer.failed, true);
  // Another level retries too, and a good answer is played.
  computer.setLevel('medium');
  await tick();
  assert.equal(engine.calls.length, 3);
  engine.calls[2].resolve({ ok: true, turn: 'a1', actions: ['a1'] });
  await tick();
  assert.deepEqual(snap().record, ['d6', 'a1']);
  assert.equal(computer.failed, false);
  assert.equal(computer.canAct(), true);
});
