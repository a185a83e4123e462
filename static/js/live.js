// Owns the live diagram: a board loaded from a position string, for the rules page and
// anything else that shows a position. Two modes:
//   'try'      — the reader plays the side to move; the rules (WebAssembly) answer, and
//                only legal actions are offered, exactly as in a game;
//   'readonly' — pieces and last move only, no clicks.
//
//   const diagram = await mountPosition(el, { position: '.../... l 7 7 0 0', t });
//   diagram.reset();          // back to the position
//   diagram.snapshot();       // what the board shows now
//   diagram.play('g1');       // play an action programmatically (e.g. "Show answer")

import { loadRules, localGame } from './rules.js';
import { mountBoard } from './widget.js';

/**
 * @param {Element} container
 * @param {object} options
 * @param {string} options.position  the position string to show
 * @param {'try' | 'readonly'} [options.mode]
 * @param {import('./types.js').Translate} options.t
 * @param {(snapshot: import('./types.js').Snapshot) => void} [options.onChange]  after every change
 */
export async function mountPosition(container, { position, mode = 'try', t, onChange = () => {} }) {
  const game = localGame(await loadRules());
  const loaded = game.loadPosition(position);
  if (!loaded.ok) throw new Error(`${loaded.error.code}: ${loaded.error.message}`);
  const board = mountBoard(container, {
    topology: game.topology,
    t,
    canAct: () => mode === 'try',
    onAction: (action) => play(action),
  });
  const refresh = () => {
    const snapshot = game.snapshot();
    board.set(snapshot);
    onChange(snapshot);
    return snapshot;
  };
  function play(action) {
    const reply = game.play(action);
    refresh();
    return reply;
  }
  refresh();
  return {
    board,
    play,
    snapshot: () => game.snapshot(),
    reset() {
      game.restart();
      refresh();
    },
    undo() {
      game.undo();
      refresh();
    },
    setTranslator: (next) => board.setTranslator(next),
  };
}
