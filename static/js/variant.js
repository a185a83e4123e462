// Owns the variant chooser on the start screen (Three, Six, Nine or Twelve Men's Morris
// and the rule options behind it), the rule set it names, and the line over the move
// list that says what is being played. What a rule set means is mill-core's: names are
// checked and made canonical by the WebAssembly's `rules_info`, never here.

import { $ } from './dom.js';
import { DEFAULT_RULES } from './rules.js';

/** @typedef {import('./page-state.js').App} App */

/**
 * @typedef {object} RulesInfo  mill-wasm's RulesJson
 * @property {string} rules  the canonical name, e.g. "six+per-mill"
 * @property {string} variant  "three" | "six" | "nine" | "twelve"
 * @property {number} pieces
 * @property {number} flyAt
 * @property {string} removals  "one" | "per-mill"
 * @property {boolean} protect
 * @property {boolean} millWins
 * @property {boolean} hasOptions
 * @property {{ flyAt: number, removals: string, protect: boolean }} defaults
 * @property {string} start
 * @property {{ code: string, message: string } | null} mfenRefused  why positions under
 *   these rules have no MFEN form (Three's and Six's boards), or null
 */

const KEY = 'rules';

/**
 * The rule set chosen on the start screen (a canonical name), {@link DEFAULT_RULES} until one is chosen.
 * @param {import('./storage.js').SafeStorage} storage
 */
export function chosenRules(storage) {
  return storage.get(KEY) || DEFAULT_RULES;
}

/**
 * Makes `rules` (a canonical name) the chosen rule set, as the chooser does: an imported
 * game's, so that the next visit opens it.
 * @param {import('./storage.js').SafeStorage} storage @param {string} rules
 */
export function rememberRules(storage, rules) {
  storage.set(KEY, rules);
}

/**
 * The rule-set name of a position string: its seventh part, or {@link DEFAULT_RULES}.
 * @param {string} position
 */
export function rulesOfPosition(position) {
  return position.trim().split(/\s+/)[6] ?? DEFAULT_RULES;
}

/**
 * A rule set in words: "Six Men's Morris" and the options that differ, e.g.
 * "Six Men's Morris · one removal per mill · no flying".
 * @param {string} rules @param {(key: string, vars?: object) => string} t
 */
export function describeRules(rules, t) {
  return [t(`variant.${rules.split('+')[0]}`), ...optionWords(rules, t)].join(' · ');
}

/**
 * The options of a rule set that differ from its variant's usual ones, in words (none for
 * a variant's own rules): what the start screen's note adds to the chooser, which already
 * names the game.
 * @param {string} rules @param {(key: string, vars?: object) => string} t @returns {string[]}
 */
export function optionWords(rules, t) {
  const [, ...options] = rules.split('+');
  /** @type {string[]} */
  const words = [];
  for (const option of options) {
    if (option === 'per-mill') words.push(t('variant.says.per-mill'));
    else if (option === 'one') words.push(t('variant.says.one'));
    else if (option === 'protect-off') words.push(t('variant.says.protect-off'));
    else if (option === 'protect-on') words.push(t('variant.says.protect-on'));
    else if (option === 'fly-0') words.push(t('variant.says.no-flying'));
    else if (option.startsWith('fly-')) words.push(t('variant.says.fly', { n: option.slice(4) }));
    else if (option === 'dark-first') words.push(t('variant.says.dark-first'));
  }
  return words;
}

/**
 * The name the controls spell, every option written out (mill-core drops the defaults).
 * @returns {string}
 */
function spelled() {
  const variant = /** @type {HTMLSelectElement} */ ($('variant')).value;
  if (variant === 'three') return 'three';
  const removals = /** @type {HTMLSelectElement} */ ($('opt-removals')).value;
  const protect = /** @type {HTMLInputElement} */ ($('opt-protect')).checked ? 'protect-on' : 'protect-off';
  const fly = /** @type {HTMLSelectElement} */ ($('opt-fly')).value;
  return `${variant}+${removals}+${protect}+fly-${fly}`;
}

/**
 * Shows a rule set in the controls.
 * @param {RulesInfo} info
 */
function showInControls(info) {
  /** @type {HTMLSelectElement} */ ($('variant')).value = info.variant;
  /** @type {HTMLSelectElement} */ ($('opt-removals')).value = info.removals;
  /** @type {HTMLInputElement} */ ($('opt-protect')).checked = info.protect;
  /** @type {HTMLSelectElement} */ ($('opt-fly')).value = String(info.flyAt);
  // Three Men's Morris has no removals, so no options: the first line wins.
  $('rule-options').hidden = !info.hasOptions;
}

/**
 * Binds the chooser; once, at start-up. The choice is kept in storage and applies to
 * the next game started in any mode.
 * @param {App} app
 */
export function bindVariantChooser(app) {
  const { storage } = app;
  // Until the WebAssembly says what the chosen rule set means, the chooser shows the
  // default one (whose name is its variant's, its options being the usual ones).
  /** @type {HTMLSelectElement} */ ($('variant')).value = DEFAULT_RULES;
  /** @type {((text: string) => { ok: boolean, rules?: RulesInfo, error?: { message: string } }) | null} */
  let info = null;
  const ready = app.rules().then((mod) => {
    if (!mod) return;
    info = (text) => JSON.parse(mod.rules_info(text));
    const answer = info(chosenRules(storage));
    if (answer.ok) showInControls(answer.rules);
    else storage.remove(KEY);
    app.render();
  });
  /** @param {boolean} variantChanged */
  const changed = async (variantChanged) => {
    await ready;
    if (!info) return;
    // A new variant starts from its own usual options.
    const variant = /** @type {HTMLSelectElement} */ ($('variant')).value;
    const answer = info(variantChanged ? variant : spelled());
    if (!answer.ok) return void app.setNotice(null, answer.error.message);
    storage.set(KEY, answer.rules.rules);
    showInControls(answer.rules);
    app.render();
  };
  $('variant').addEventListener('change', () => changed(true));
  for (const id of ['opt-removals', 'opt-protect', 'opt-fly']) $(id).addEventListener('change', () => changed(false));
}

/**
 * The chooser's note and the line over the move list.
 * @param {import('./page-state.js').PageState} page @param {import('./storage.js').SafeStorage} storage
 */
export function viewRules(page, storage) {
  // The chooser names the game; the note says only the options that differ from its usual rules.
  const note = $('variant-note');
  note.textContent = optionWords(chosenRules(storage), page.t).join(' · ');
  note.hidden = !note.textContent;
  const line = $('game-rules');
  const rules = page.snapshot ? rulesOfPosition(page.snapshot.position) : null;
  line.hidden = !rules;
  line.textContent = rules ? describeRules(rules, page.t) : '';
}
