// Owns the live board component: an SVG board bound to a snapshot, reporting legal
// actions. The game page and the rules page mount the same component; it knows nothing
// of where snapshots come from (WebAssembly locally, the server online).
//
//   const board = mountBoard(el, { topology, t, onAction, canAct });
//   board.set(snapshot);     // redraw from a new snapshot
//   board.setTranslator(t);  // after a language switch
//   board.setHint(hint);     // a turn to suggest ({from, to, removed}), or null
//
// `onAction(text)` receives "d6", "a1-a4" or "xd2"; the owner plays it and calls set()
// with the next snapshot. `canAct()` false makes the board read-only (opponent's turn
// online, or a diagram that only shows). `onSelection(name|null)` reports a piece picked
// up or put down (the status line says "move to a highlighted point"). `onInactive(name)`
// reports a click on a read-only board, so the owner can say why nothing happens.

import { clickPoint, defaultFocus, EMPTY_UI, moveFocus, reconcile } from './board.js';
import { bindBoard } from './events.js';
import { createBoardView } from './render.js';

/**
 * @typedef {object} BoardOptions
 * @property {import('./types.js').Topology} topology  the board's geometry
 * @property {import('./types.js').Translate} t  the words for accessible names
 * @property {(action: string) => void} [onAction]  a legal action the person chose
 * @property {() => boolean} [canAct]  false: the board only shows
 * @property {(selected: string | null) => void} [onSelection]  a piece picked up or put down
 * @property {(name: string) => void} [onInactive]  a point was clicked while the board only shows
 */

/**
 * Mounts a board in `container`.
 * @param {Element} container @param {BoardOptions} options
 */
export function mountBoard(container, { topology, t, onAction = () => {}, canAct = () => true, onSelection = () => {}, onInactive = () => {} }) {
  const view = createBoardView(container, topology, { label: t('board.label') });
  let snapshot = null;
  let ui = { ...EMPTY_UI };
  let translate = t;

  function draw() {
    if (snapshot) view.update(snapshot, ui, { t: translate, canAct: canAct() });
  }

  bindBoard(view.svg, {
    activate(name) {
      if (!snapshot) return;
      if (!canAct()) onInactive(name);
      const result = clickPoint(snapshot, ui, name, canAct());
      const changed = result.ui.selected !== ui.selected;
      ui = result.ui;
      draw();
      if (result.action) onAction(result.action);
      else if (changed) onSelection(ui.selected);
    },
    arrow(name, key) {
      ui = { ...ui, focus: moveFocus(topology, name, key) };
      draw();
      view.focusPoint(ui.focus);
    },
    escape() {
      if (!ui.selected) return;
      ui = { ...ui, selected: null };
      draw();
      onSelection(null);
    },
    focused(name) {
      if (ui.focus !== name) {
        ui = { ...ui, focus: name };
        draw();
      }
    },
  });

  return {
    element: view.svg,
    set(next) {
      snapshot = next;
      ui = reconcile(ui, next);
      draw();
    },
    setHint(hint) {
      view.drawHint(hint);
    },
    setTranslator(next) {
      translate = next;
      draw();
    },
    redraw: draw,
    /**
     * Moves the keyboard focus onto the board (its one Tab stop), without scrolling;
     * `ring: false` draws no focus ring until the keyboard is used (a ring on a piece
     * the person did not choose reads as a hint).
     */
    focus({ ring = true } = {}) {
      const options = /** @type {FocusOptions} */ ({ preventScroll: true, ...(ring ? {} : { focusVisible: false }) });
      if (snapshot) view.focusPoint(defaultFocus(topology, snapshot, ui), options);
    },
    clearSelection() {
      ui = { ...ui, selected: null };
      draw();
    },
    get ui() {
      return ui;
    },
  };
}
