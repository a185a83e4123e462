// Owns the wiring of Vs computer: its game (saved apart from same device's), the engine's
// Worker, and the level and side choices. What the computer does and when is computer.js.

import { createComputer, engineWorker, loadSettings, randomSeed, saveSettings } from './computer.js';
import { confirmNewGame } from './dialog.js';
import { radios } from './dom.js';
import { refreshLocal } from './local.js';
import { localGame } from './rules.js';
import { forgetGame, gameSlot, loadGame, saveGame } from './storage.js';
import { chosenRules } from './variant.js';

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
    onError: (error) => app.setNotice(null, page.t('computer.error', { message: error.message })),
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
