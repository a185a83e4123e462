// Owns the wiring of Vs computer: its game (saved apart from same device's), the engine's
// Worker, and the level and side choices; and starting a game against the computer from
// a record or a position (startComputerFrom, behind the Import dialog in this mode). What
// the computer does and when is computer.js.

import { createComputer, engineWorker, loadSettings, randomSeed, saveSettings } from './computer.js';
import { confirmNewGame } from './dialog.js';
import { radios } from './dom.js';
import { refreshLocal } from './local.js';
import { keepTablesOffline } from './offline.js';
import { loadText, localGame } from './rules.js';
import { forgetGame, gameSlot, loadGame, saveGame } from './storage.js';
import { chosenRules, rememberRules } from './variant.js';

/** @typedef {import('./page-state.js').App} App */

/** @param {number} ms */
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens the saved vs-computer game, or a new one, and lets the computer move if it is its turn.
 * @param {App} app
 */
export async function startComputer(app) {
  const mod = await app.rules();
  if (!mod) return;
  const { page, storage } = app;
  const game = localGame(mod);
  const rules = chosenRules(storage);
  const slot = gameSlot('computer', rules);
  const saved = loadGame(storage, slot);
  if (saved && !game.importRecord(saved).ok) forgetGame(storage, slot);
  if (!saved || game.rulesName() !== rules) game.startRules(rules);
  // One worker for the page's lifetime; it starts on the first search.
  page.engine ??= engineWorker();
  const computer = createComputer({
    game,
    engine: page.engine,
    settings: loadSettings(storage, randomSeed()),
    wait,
    newSeed: randomSeed,
    onChange: () => page.computer === computer && refreshLocal(app),
    onSave: (record, settings) => {
      saveGame(storage, slot, record);
      saveSettings(storage, settings);
    },
    onError: () => app.setNotice('computer.error'),
    onTables: keepTablesOffline,
  });
  page.mode = 'computer';
  page.game = game;
  page.computer = computer;
  app.ensureBoard(game.topology);
  app.showScreen('game');
  refreshLocal(app);
  computer.start();
}

/**
 * Starts a game against the computer from `text` and plays on from where it stands: a
 * game record (its turns kept, so Undo and review reach back into them), a position
 * string (any rule set), or MFEN (read under `options.rules`, a rule-set name; absent:
 * the chosen rules). The person plays `options.human`: 'light', 'dark', or 'to-move'
 * (the default) for the side to move in the loaded game, so the person continues it and
 * the computer answers; with the other side the computer moves first. The game becomes
 * the saved vs-computer game of its rule set, and that rule set the chosen one, so a
 * reload opens it; the level stays. Switches to this mode when elsewhere.
 *
 * Resolves to the rules' answer: on error (a bad record names its turn or line; MFEN
 * names the rule sets it reads under) nothing changed, the game on screen included.
 *
 * @param {App} app
 * @param {string} text
 * @param {{ human?: import('./types.js').Side | 'to-move', rules?: string }} [options]
 * @returns {Promise<import('./rules.js').Reply>}
 */
export async function startComputerFrom(app, text, options = {}) {
  const mod = await app.rules();
  if (!mod) return { ok: false, error: { code: 'no-rules', message: app.page.t('error.wasm') } };
  const { storage } = app;
  const game = localGame(mod);
  const start = game.startRules(options.rules ?? chosenRules(storage));
  if (!start.ok) return start;
  const reply = loadText(game, text, options.rules);
  if (!reply.ok) return reply;
  const turn = game.snapshot().turn;
  const human = options.human === 'light' || options.human === 'dark' ? options.human : turn;
  const rules = game.rulesName();
  rememberRules(storage, rules);
  saveGame(storage, gameSlot('computer', rules), game.exportRecord());
  // A fresh seed: a new game, not the previous one's choices.
  saveSettings(storage, { ...loadSettings(storage, randomSeed()), human, seed: randomSeed() });
  if (location.pathname !== '/' || location.hash !== '#computer') history.pushState(null, '', '/#computer');
  // The route leaves whatever is on screen (a computer thinking stops) and opens the saved game.
  await app.route();
  return reply;
}

/**
 * The level and side choices; once, at start-up.
 * @param {App} app
 */
export function bindComputerControls(app) {
  const { page } = app;
  for (const input of radios('computer-level')) {
    // 'click', not 'change': choosing the level already chosen retries a stuck computer.
    input.addEventListener('click', () => {
      app.setNotice(null);
      page.computer?.setLevel(input.value);
    });
  }
  for (const input of radios('computer-side')) {
    input.addEventListener('change', async () => {
      const c = page.computer;
      if (!c) return;
      // Changing colours starts a new game: ask first when there is a game to lose (the
      // choice shows the current colour until the answer is yes).
      if (c.canUndo()) {
        app.render();
        if (!(await confirmNewGame(page.t('computer.sideConfirm'))) || page.computer !== c) return;
      }
      app.setNotice(null);
      c.setHuman(input.value);
    });
  }
}
