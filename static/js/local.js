// Owns "Same device": a game played through the WebAssembly rules in this browser and
// saved in local storage, and the local controls (Undo, New game), which vs computer
// shares (vs-computer.js hands them to its controller).

import { newGameNeedsConfirm } from './board.js';
import { confirmNewGame } from './dialog.js';
import { $ } from './dom.js';
import { localGame } from './rules.js';
import { forgetGame, gameSlot, loadGame, saveGame } from './storage.js';
import { chosenRules } from './variant.js';

/** @typedef {import('./page-state.js').App} App */

/**
 * Opens the saved same-device game, or a new one.
 * @param {App} app
 */
export async function startLocal(app) {
  const mod = await app.rules();
  if (!mod) return;
  const { page, storage } = app;
  const game = localGame(mod);
  // The saved game of the chosen variant and options, or a new one under them.
  const rules = chosenRules(storage);
  const slot = gameSlot('local', rules);
  const saved = loadGame(storage, slot);
  if (saved && !game.importRecord(saved).ok) forgetGame(storage, slot);
  if (!saved || game.rulesName() !== rules) game.startRules(rules);
  page.mode = 'local';
  page.game = game;
  app.ensureBoard(game.topology);
  app.showScreen('game');
  refreshLocal(app);
}

/**
 * One action from the board, e.g. "d6", "a1-a4", "xd2".
 * @param {App} app @param {string} action
 */
export function playLocal(app, action) {
  const reply = app.page.game.play(action);
  if (!reply.ok) app.setNotice(null, reply.error.message);
  saveLocal(app);
  refreshLocal(app);
}

/** @param {App} app */
function saveLocal(app) {
  const { game } = app.page;
  saveGame(app.storage, gameSlot('local', game.rulesName()), game.exportRecord());
}

/**
 * Shows the local game's current snapshot (same device and vs computer).
 * @param {App} app
 */
export function refreshLocal(app) {
  const { page } = app;
  page.snapshot = page.game.snapshot();
  // An import may have brought another variant's board.
  app.ensureBoard(page.game.topology);
  page.board.set(page.snapshot);
  app.render();
}

/**
 * Undo and New game, for same device and vs computer; once, at start-up.
 * @param {App} app
 */
export function bindLocalControls(app) {
  const { page } = app;
  $('undo').addEventListener('click', () => {
    if (page.mode === 'computer') return void page.computer.undo();
    if (page.mode !== 'local') return;
    page.game.undo();
    saveLocal(app);
    refreshLocal(app);
  });

  /** New game: the rule set's start; `fromImport`: the imported position again. @param {boolean} fromImport */
  const startOver = async (fromImport) => {
    const { mode, game, computer } = page;
    if (mode !== 'local' && mode !== 'computer') return;
    // Vs computer the computer's opening turn (the person playing Dark, or a game imported
    // on the computer's move) is no game to lose.
    if (gameInProgress(page) && !(await confirmNewGame(page.t('newGame.confirmText')))) return;
    // The page may have moved on while the question was open.
    if (page.mode !== mode || page.game !== game) return;
    app.setNotice(null);
    if (mode === 'computer') return void (fromImport ? computer.restartImport() : computer.newGame());
    if (fromImport) game.restart();
    else game.startRules(game.rulesName());
    saveLocal(app);
    refreshLocal(app);
  };
  $('new-game').addEventListener('click', () => startOver(false));
  $('restart-import').addEventListener('click', () => startOver(true));
}

/**
 * Whether replacing the game on screen (same device, vs computer) would lose a game in
 * progress: played beyond the computer's opening turn, and not over.
 * @param {import('./page-state.js').PageState} page
 */
export function gameInProgress(page) {
  const opening = page.mode === 'computer' && page.computer ? page.computer.opening : 0;
  return newGameNeedsConfirm(page.snapshot, opening);
}

/**
 * The position a same-device or vs-computer game was imported at, or null when it starts
 * where its rule set does (then New game and a restart are the same).
 * @param {import('./rules.js').LocalGame} game @returns {string | null}
 */
export function importedStart(game) {
  const { start } = JSON.parse(game.exportRecord());
  return start !== game.rulesInfo().start ? start : null;
}
