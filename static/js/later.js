// Owns the game page's parts that a board does not need, loaded on first use instead of
// before the first board (the bytes of a cold visit): review and its analysis (review.js,
// analysis.js), records' Copy and Import (records.js), the screen-reader mode
// (screen-reader.js, announce.js, command.js), the game against the computer
// (vs-computer.js, computer.js, tablebase.js), online play (online.js, net.js). Each is one dynamic import(), made once; a
// button that needs a part loads it on its first click and is then answered by the
// part's own handler, bound as it loaded.

import { $ } from './dom.js';

/**
 * @template T
 * @typedef {object} Part  a module loaded once, on first use
 * @property {() => Promise<T>} load  imports it (again after a failed try)
 * @property {() => T | null} now  the module once loaded, else null
 * @property {(hook: (mod: T) => void) => void} ready  runs `hook` once it has loaded (at once if it has)
 */

/**
 * @template T
 * @param {() => Promise<T>} importer
 * @returns {Part<T>}
 */
export function onDemand(importer) {
  /** @type {Promise<T> | null} */
  let loading = null;
  /** @type {T | null} */
  let loaded = null;
  /** @type {((mod: T) => void)[]} */
  const hooks = [];
  return {
    load() {
      loading ??= importer().then((mod) => {
        loaded = mod;
        for (const hook of hooks) hook(mod);
        return mod;
      });
      // A failed load may be a passing network error: the next use tries again.
      loading.catch(() => (loading = null));
      return loading;
    },
    now: () => loaded,
    ready(hook) {
      hooks.push(hook);
      if (loaded) hook(loaded);
    },
  };
}

export const reviewPart = onDemand(() => import('./review.js'));
export const recordsPart = onDemand(() => import('./records.js'));
export const screenReaderPart = onDemand(() => import('./screen-reader.js'));
export const computerPart = onDemand(() => import('./vs-computer.js'));
export const onlinePart = onDemand(() => import('./online.js'));

/**
 * The first click on any of these buttons loads `part` and is then given again, to the
 * handler the part bound as it loaded; until then each click waits for the load. A failed
 * load leaves the buttons waiting for the next click, and calls `failed`.
 * @param {Part<unknown>} part @param {string[]} ids @param {() => void} [failed]
 */
export function loadOnClick(part, ids, failed = () => {}) {
  /** @param {Event} event */
  const first = (event) => {
    const button = /** @type {HTMLElement} */ (event.currentTarget);
    event.stopImmediatePropagation();
    for (const id of ids) $(id).removeEventListener('click', first);
    part.load().then(
      () => button.click(),
      () => {
        for (const id of ids) $(id).addEventListener('click', first);
        failed();
      },
    );
  };
  for (const id of ids) $(id).addEventListener('click', first);
}
