// Owns the colour theme: the system's light or dark setting by default (style.css reads
// it through `color-scheme` and `light-dark()`, with no script needed), or the one the
// person chose with the switch, remembered in this browser and set as <html data-theme>.

export const THEME_KEY = 'theme';

/** @typedef {'light' | 'dark'} Theme */

/** @param {string | null} text @returns {Theme | null} a remembered choice, or null to follow the system */
export const parseTheme = (text) => (text === 'light' || text === 'dark' ? text : null);

/**
 * Wires a theme switch: applies the remembered choice, then each press flips to the other
 * theme. `label(theme)` gives the button's words for the theme a press switches to.
 * @param {HTMLButtonElement} button
 * @param {import('./storage.js').SafeStorage} storage
 * @returns {{ refresh: (label: (next: Theme) => string) => void }}
 */
export function bindThemeSwitch(button, storage) {
  const root = document.documentElement;
  const system = window.matchMedia('(prefers-color-scheme: light)');
  /** @type {Theme | null} */
  let chosen = parseTheme(storage.get(THEME_KEY));
  /** @type {(next: Theme) => string} */
  let words = (next) => next;
  /** @returns {Theme} */
  const current = () => chosen ?? (system.matches ? 'light' : 'dark');

  function show() {
    if (chosen) root.dataset.theme = chosen;
    else delete root.dataset.theme;
    const next = current() === 'light' ? 'dark' : 'light';
    button.dataset.next = next;
    button.setAttribute('aria-label', words(next));
    button.title = words(next);
  }

  button.addEventListener('click', () => {
    chosen = current() === 'light' ? 'dark' : 'light';
    storage.set(THEME_KEY, chosen);
    show();
  });
  system.addEventListener('change', show);
  show();
  return {
    refresh(label) {
      words = label;
      show();
    },
  };
}
