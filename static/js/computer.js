// Owns the Vs computer mode: the person's side and the level, when the computer moves,
// and how its turn is shown (the placement or move first, a pause, then the removal).
// The search itself runs in a Web Worker (engine-worker.js); the turn is played through
// the same WasmGame as the board, so the page still holds no rules of its own. Hard's
// requests name the server's endgame tables, which the worker fetches when the game
// reaches them (tablebase.js).
//
// Pure helpers at the top (unit-tested); createComputer() is the controller, with its
// game, engine, timer and storage passed in (unit-tested on the real rules in node);
// the Worker wrapper is engine.js (re-exported here), which review's analysis shares.

import { isComputerToMove } from './computer-status.js';
import { TABLEBASE_MANIFEST } from './tablebase.js';

/** Perfect plays Three Men's Morris from its solved table (the chooser offers it for Three only); elsewhere it plays as Hard. */
export const LEVELS = Object.freeze(['beginner', 'easy', 'medium', 'hard', 'perfect']);

/** The levels that play endings from the endgame tables (the worker fetches them for these only). */
export const TABLEBASE_LEVELS = Object.freeze(['hard', 'perfect']);
export const SIDES = Object.freeze(['light', 'dark']);

/**
 * The time each level may think, in ms. Beginner does not search; Easy and Medium stop at
 * their depth far sooner.
 */
export const MOVETIME_MS = Object.freeze({ beginner: 100, easy: 300, medium: 600, hard: 1000, perfect: 1000 });

/** The shortest time the computer seems to think, so a fast answer does not look like a jump. */
export const MIN_THINK_MS = 450;
/** The pause between the computer's placement or move and its removal. */
export const REMOVAL_PAUSE_MS = 700;

/**
 * @typedef {object} Settings  what vs computer remembers between visits
 * @property {string} level  one of LEVELS
 * @property {import('./types.js').Side} human  the person's side
 * @property {number} seed  the game's 32-bit seed
 */

export const SETTINGS_KEY = 'computer.settings';
export const DEFAULT_LEVEL = 'medium';

// What the panels show of this mode before the computer's code loads (later.js).
export { computerStatus, isComputerToMove, resultForPerson } from './computer-status.js';
export { engineWorker } from './engine.js';

/** A seed for a new game: 32 random bits, from crypto when there is one. */
export function randomSeed(crypto = globalThis.crypto) {
  if (crypto?.getRandomValues) return crypto.getRandomValues(new Uint32Array(1))[0];
  return Math.floor(Math.random() * 2 ** 32);
}

/**
 * The seed of one search: the game's seed mixed with the number of actions played, so
 * each move of a game differs from the next, and a reloaded game asks the same question
 * with the same seed.
 */
export function moveSeed(gameSeed, actions) {
  let h = (gameSeed >>> 0) ^ Math.imul((actions >>> 0) + 1, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Saved settings, checked field by field; anything unreadable falls back to the default.
 * @param {string | null} text @param {number} [seed] @returns {Settings}
 */
export function parseSettings(text, seed = 0) {
  let raw = null;
  try {
    raw = text ? JSON.parse(text) : null;
  } catch {
    raw = null;
  }
  /** @type {Settings} */
  const settings = { level: DEFAULT_LEVEL, human: 'light', seed: seed >>> 0 };
  if (LEVELS.includes(raw?.level)) settings.level = raw.level;
  if (SIDES.includes(raw?.human)) settings.human = raw.human;
  if (Number.isInteger(raw?.seed) && raw.seed >= 0 && raw.seed < 2 ** 32) settings.seed = raw.seed;
  return settings;
}

export function loadSettings(storage, seed) {
  return parseSettings(storage.get(SETTINGS_KEY), seed);
}

export function saveSettings(storage, settings) {
  const { level, human, seed } = settings;
  return storage.set(SETTINGS_KEY, JSON.stringify({ level, human, seed }));
}

/**
 * How many actions the computer plays before the person's first turn: none when the
 * game starts on the person's move, else its first turn's (a placement or move and its
 * removals, or a removal owed at the start). `start` is the game's start position string
 * (its second field the side to move); `firstTurn` the record's first complete turn in
 * notation, or null before there is one (then nothing is the person's yet: Infinity).
 * A game from the empty board with the person as Dark gives 1, the computer's placement.
 * @param {string} start @param {string | null | undefined} firstTurn @param {string} human
 */
export function openingActions(start, firstTurn, human) {
  const toMove = start.trim().split(/\s+/)[1] === 'd' ? 'dark' : 'light';
  if (toMove === human) return 0;
  if (!firstTurn) return Infinity;
  const removals = firstTurn.split('x').length - 1;
  return (firstTurn.startsWith('x') ? 0 : 1) + removals;
}

/**
 * Whether Undo has a turn of the person's to take back: more actions than the computer's
 * `opening` ones (openingActions; by default the empty board's: Light opens, so a person
 * playing Dark has nothing to take back until after the computer's first placement).
 */
export function canTakeBack(snapshot, human, opening = human === 'light' ? 0 : 1) {
  return !!snapshot && snapshot.actions > opening;
}

/**
 * The controller.
 *
 *   game:     the WasmGame wrapper from rules.js (snapshot, play, undo, restart, exportRecord)
 *   engine:   { search(request) → Promise<reply>, cancel() }  (engineWorker() in the page)
 *   settings: { level, human, seed }
 *   wait(ms): a promise resolved after ms (setTimeout in the page)
 *   newSeed(): a seed for the next game
 *   onChange(): the game or the busy state changed: redraw
 *   onSave(recordJson, settings): keep the game and settings (local storage)
 *   onError(error): the engine failed ({code, message})
 *   onTables(rules): the person plays a level that uses the endgame tables, on this rule set
 *
 * @param {object} options
 * @param {import('./rules.js').LocalGame} options.game
 * @param {{ search: (request: object) => Promise<any>, cancel: () => void }} options.engine
 * @param {Settings} options.settings
 * @param {(ms: number) => Promise<unknown>} options.wait
 * @param {() => number} options.newSeed
 * @param {() => void} [options.onChange]
 * @param {(recordJson: string, settings: Settings) => void} [options.onSave]
 * @param {(error: { code: string, message: string }) => void} [options.onError]
 * @param {(rules: string) => void} [options.onTables]
 */
export function createComputer({ game, engine, settings, wait, newSeed, onChange = () => {}, onSave = () => {}, onError = () => {}, onTables = () => {} }) {
  const s = { ...settings };
  // Bumped by every cancel: a search or a pause from an older generation does nothing.
  let generation = 0;
  let busy = null; // null | 'thinking' | 'showing'
  let last = null; // the latest search reply, for figures (depth, nodes)
  let failed = false; // the latest search or its turn failed: the computer waits for a retry

  const snapshot = () => game.snapshot();
  const save = () => onSave(game.exportRecord(), { ...s });
  /** The computer's actions before the person's first turn (a game may start from any position). */
  const opening = (snap = snapshot()) => openingActions(JSON.parse(game.exportRecord()).start, snap.record[0], s.human);

  function cancel() {
    generation += 1;
    if (busy === 'thinking') engine.cancel();
    busy = null;
  }

  /** A computer's turn left half-shown (a reload or a cancel during the pause) is taken back. */
  function rollBackPartialTurn() {
    let snap = snapshot();
    while (snap.pendingRemovals > 0 && snap.turn !== s.human && game.undo()) snap = snapshot();
  }

  /** If the computer has the move, searches and then shows its turn action by action. */
  async function move() {
    failed = false;
    if (TABLEBASE_LEVELS.includes(s.level)) onTables(game.rulesName());
    rollBackPartialTurn();
    const snap = snapshot();
    if (!isComputerToMove(snap, s.human)) {
      onChange();
      return;
    }
    const gen = ++generation;
    busy = 'thinking';
    onChange();
    const request = {
      record: game.exportRecord(),
      level: s.level,
      seed: moveSeed(s.seed, snap.actions),
      movetime: MOVETIME_MS[s.level],
      ...(TABLEBASE_LEVELS.includes(s.level) ? { tablebase: TABLEBASE_MANIFEST } : {}),
    };
    const [reply] = await Promise.all([engine.search(request), wait(MIN_THINK_MS)]);
    if (gen !== generation) return;
    if (!reply?.ok) {
      busy = null;
      failed = reply?.error?.code !== 'cancelled';
      onChange();
      if (failed) onError(reply?.error ?? { code: 'engine', message: 'no reply' });
      return;
    }
    last = reply;
    busy = 'showing';
    for (const [i, action] of reply.actions.entries()) {
      if (i > 0) {
        await wait(REMOVAL_PAUSE_MS);
        if (gen !== generation) return;
      }
      const played = game.play(action);
      if (!played.ok) {
        // The engine and the board disagree: take the half turn back and say so.
        rollBackPartialTurn();
        busy = null;
        failed = true;
        onChange();
        onError(played.error);
        return;
      }
      onChange();
    }
    busy = null;
    save();
    onChange();
  }

  function canAct() {
    return busy === null && !isComputerToMove(snapshot(), s.human);
  }

  /**
   * A new game with a new seed: from the rule set's start, or with `fromImport` again
   * from the position the game was imported at (restart).
   * @param {boolean} [fromImport]
   */
  function newGame(fromImport = false) {
    cancel();
    if (fromImport) game.restart();
    else game.startRules(game.rulesName());
    s.seed = newSeed() >>> 0;
    save();
    return move();
  }

  return {
    get settings() {
      return { ...s };
    },
    get busy() {
      return busy;
    },
    /** The latest search reply (turn, depth, nodes, elapsedMs), for figures. */
    get lastSearch() {
      return last;
    },
    /** The computer's last attempt failed (onError said why); choosing a level tries again. */
    get failed() {
      return failed;
    },
    /** The person may click the board: their move, nothing of the computer's under way. */
    canAct,
    /** Undo is offered even while the computer thinks or shows its turn: it cancels that. */
    canUndo() {
      const snap = snapshot();
      return canTakeBack(snap, s.human, opening(snap));
    },
    /** The computer's actions before the person's first turn: no game of the person's to lose yet. */
    get opening() {
      return opening();
    },
    /** Begins (or resumes after a reload): the computer moves if it is its turn. */
    start() {
      return move();
    },
    /** One action of the person's ("d6", "a1-a4", "xd2"); resolves once the computer has answered. */
    async play(action) {
      if (!canAct()) return { ok: false, error: { code: 'not-your-turn', message: 'Wait for the computer.' } };
      const reply = game.play(action);
      if (reply.ok) save();
      onChange();
      if (reply.ok) await move();
      return reply;
    },
    /** Takes back the person's last turn together with the computer's reply. */
    undo() {
      cancel();
      rollBackPartialTurn();
      const snap = snapshot();
      if (canTakeBack(snap, s.human, opening(snap))) {
        while (game.undo()) {
          const snap = snapshot();
          if (snap.turn === s.human && snap.pendingRemovals === 0) break;
        }
      }
      save();
      return move();
    },
    /** A new game from the rule set's start. */
    newGame: () => newGame(),
    /** The imported game again, from the position it was imported at. */
    restartImport: () => newGame(true),
    /**
     * Keeps the game. A search under way starts again at the new level (as does one that
     * failed); a turn already being shown finishes, and the level applies from the next.
     */
    setLevel(level) {
      if (!LEVELS.includes(level)) return Promise.resolve();
      // The same level again is how the person asks a stuck computer to try again.
      if (level === s.level) return failed && busy === null ? move() : Promise.resolve();
      s.level = level;
      save();
      if (busy === 'showing') {
        onChange();
        return Promise.resolve();
      }
      cancel();
      return move();
    },
    /** The person takes the other colour: a new game (Light opens, so as Dark the computer begins). */
    setHuman(side) {
      if (!SIDES.includes(side) || side === s.human) return Promise.resolve();
      s.human = side;
      return newGame();
    },
    /** Leaving the mode: nothing of the computer's runs on. */
    stop() {
      cancel();
    },
  };
}
