// The Vs computer mode's pure helpers: seeds, saved settings, whose move, Undo's reach,
// the status line. No WebAssembly needed (computer-game.test.mjs drives the controller).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  canTakeBack,
  openingActions,
  computerStatus,
  DEFAULT_LEVEL,
  isComputerToMove,
  LEVELS,
  loadSettings,
  MOVETIME_MS,
  moveSeed,
  parseSettings,
  randomSeed,
  resultForPerson,
  saveSettings,
  SETTINGS_KEY,
} from '../../static/js/computer.js';
import { safeStorage } from '../../static/js/storage.js';
import { snapshot } from './helpers.mjs';

function memoryStorage() {
  const map = new Map();
  return safeStorage(() => ({
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => map.set(k, String(v)),
    removeItem: (k) => map.delete(k),
  }));
}

test('a move seed is a 32-bit number fixed by the game seed and the move, and varies with both', () => {
  assert.equal(moveSeed(12345, 7), moveSeed(12345, 7));
  const seeds = new Set();
  for (let game = 0; game < 20; game++) {
    for (let actions = 0; actions < 20; actions++) {
      const s = moveSeed(game * 7919, actions);
      assert.ok(Number.isInteger(s) && s >= 0 && s < 2 ** 32, String(s));
      seeds.add(s);
    }
  }
  assert.equal(seeds.size, 400, 'two (game, move) pairs gave the same seed');
  assert.notEqual(moveSeed(2 ** 32 - 1, 0), moveSeed(0, 0));
});

test('a new game seed comes from crypto.getRandomValues when there is one', () => {
  const fake = { getRandomValues: (a) => ((a[0] = 0xdeadbeef), a) };
  assert.equal(randomSeed(fake), 0xdeadbeef);
  const s = randomSeed(null);
  assert.ok(Number.isInteger(s) && s >= 0 && s < 2 ** 32);
});

test('settings: saved values are checked one by one, anything else falls back to the defaults', () => {
  assert.deepEqual(parseSettings(null, 9), { level: DEFAULT_LEVEL, human: 'light', seed: 9 });
  assert.deepEqual(parseSettings('{not json', 9), { level: DEFAULT_LEVEL, human: 'light', seed: 9 });
  assert.deepEqual(parseSettings('{"level":"hard","human":"dark","seed":42}', 9), { level: 'hard', human: 'dark', seed: 42 });
  assert.deepEqual(parseSettings('{"level":"expert","human":"green","seed":-1}', 9), { level: DEFAULT_LEVEL, human: 'light', seed: 9 });
  assert.equal(parseSettings('{"seed":4294967296}', 3).seed, 3);
  assert.equal(parseSettings('{"seed":1.5}', 3).seed, 3);
  assert.equal(parseSettings('[1,2]', 3).level, DEFAULT_LEVEL);
});

test('settings round-trip through storage under their own key, apart from the saved games', () => {
  const storage = memoryStorage();
  assert.deepEqual(loadSettings(storage, 5), { level: DEFAULT_LEVEL, human: 'light', seed: 5 });
  assert.ok(saveSettings(storage, { level: 'easy', human: 'dark', seed: 77, extra: 'dropped' }));
  assert.deepEqual(JSON.parse(storage.get(SETTINGS_KEY)), { level: 'easy', human: 'dark', seed: 77 });
  assert.deepEqual(loadSettings(storage, 5), { level: 'easy', human: 'dark', seed: 77 });
  assert.equal(storage.get('game.local'), null);
  assert.equal(storage.get('game.computer'), null);
});

test('every level has a time, Hard about a second, the others less', () => {
  assert.deepEqual(Object.keys(MOVETIME_MS), LEVELS);
  assert.equal(MOVETIME_MS.hard, 1000);
  assert.ok(MOVETIME_MS.easy < MOVETIME_MS.hard && MOVETIME_MS.medium < MOVETIME_MS.hard);
});

test('the computer has the move when the side to move (or to remove) is not the person’s', () => {
  assert.equal(isComputerToMove(snapshot({ turn: 'light' }), 'light'), false);
  assert.equal(isComputerToMove(snapshot({ turn: 'dark' }), 'light'), true);
  assert.equal(isComputerToMove(snapshot({ turn: 'dark', pendingRemovals: 1 }), 'light'), true);
  assert.equal(isComputerToMove(snapshot({ turn: 'light' }), 'dark'), true);
  const over = snapshot({ turn: 'dark', outcome: { kind: 'win', winner: 'light', reason: 'pieces' } });
  assert.equal(isComputerToMove(over, 'light'), false);
  assert.equal(isComputerToMove(null, 'light'), false);
});

test('Undo has something to take back once the person has played an action', () => {
  assert.equal(canTakeBack(snapshot({ actions: 0 }), 'light'), false);
  assert.equal(canTakeBack(snapshot({ actions: 1 }), 'light'), true);
  // As Dark, the computer's opening placement alone is not the person's to take back.
  assert.equal(canTakeBack(snapshot({ actions: 1, turn: 'dark' }), 'dark'), false);
  assert.equal(canTakeBack(snapshot({ actions: 2 }), 'dark'), true);
  assert.equal(canTakeBack(null, 'light'), false);
  assert.equal(canTakeBack(snapshot({ actions: 2 }), 'light', 2), false, 'the computer opened with a mill');
});

test('the computer opens a game that starts on its move: its first turn, removals included', () => {
  const empty = '.../.../.../....../.../.../... l 9 9 0 0';
  assert.equal(openingActions(empty, null, 'light'), 0);
  assert.equal(openingActions(empty, 'd6', 'dark'), 1);
  assert.equal(openingActions(empty, null, 'dark'), Infinity);
  const darkToMove = 'L.D/.L./D.L/LD..DL/L.D/.D./L.D d 0 0 0 0';
  assert.equal(openingActions(darkToMove, 'g7-g4xa1', 'light'), 2);
  assert.equal(openingActions(darkToMove, 'g7-f7', 'dark'), 0);
  // A removal owed at the start is the computer's first turn.
  assert.equal(openingActions('.../.../... d 2 2 1 0 three', 'xa1', 'light'), 1);
});

test('the status says the computer thinks or removes; the person’s own turn keeps the usual status', () => {
  assert.equal(computerStatus(snapshot({ turn: 'light' }), 'light'), null);
  assert.deepEqual(computerStatus(snapshot({ turn: 'dark' }), 'light'), { key: 'computer.thinking', params: { side: 'dark' }, tone: 'wait' });
  assert.deepEqual(computerStatus(snapshot({ turn: 'light', pendingRemovals: 1 }), 'dark'), {
    key: 'computer.removing',
    params: { side: 'light' },
    tone: 'wait',
  });
  const over = snapshot({ turn: 'dark', outcome: { kind: 'draw', reason: 'threefold' } });
  assert.equal(computerStatus(over, 'light'), null);
  assert.deepEqual(computerStatus(snapshot({ turn: 'dark' }), 'light', true), { key: 'computer.failed', params: { side: 'dark' }, tone: 'alert' });
  assert.equal(computerStatus(snapshot({ turn: 'light' }), 'light', true), null);
});

test('the result is told from the person’s side', () => {
  const win = (winner) => snapshot({ outcome: { kind: 'win', winner, reason: 'pieces' } });
  assert.equal(resultForPerson(win('light'), 'light'), 'computer.youWin');
  assert.equal(resultForPerson(win('light'), 'dark'), 'computer.youLose');
  assert.equal(resultForPerson(snapshot({ outcome: { kind: 'draw', reason: 'threefold' } }), 'light'), null);
  assert.equal(resultForPerson(snapshot(), 'light'), null);
});
