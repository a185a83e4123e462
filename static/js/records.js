// Owns records in and out on the game page: "Copy record", "Copy MFEN" and "Copy MIF game"
// (the game as a text record, the position as MFEN, the game as the Mill Interchange
// Format's MSTATE that other Mill programs read; all written by mill-core through the
// wasm) for every
// game on screen — same device, vs computer, online (players and spectators: the round as
// the server's state has it, with its room, round and result) and under review (the
// position shown, for MFEN) — and the Import dialog, which reads a record, a position
// string, MFEN or an MSTATE game into the same-device game, or starts a vs-computer game from it
// (vs-computer.js's startComputerFrom, handed in by main.js: this part never imports
// another part, later.js). What a record says is the rules' business: a bad
// one comes back as the rules' error, naming the turn or line, and the game stays as it
// was. MFEN does not name its rules, so the dialog asks which (the 24-point rule sets:
// the rules' `mfenRefused` says why Three's and Six's boards have none).

import { $, $button, $dialog, radios } from './dom.js';
import { confirmNewGame } from './dialog.js';
import { recordHeader, recordToWrite } from './game-record.js';
import { gameInProgress, refreshLocal } from './local.js';
import { importable } from './page-state.js';
import { importKind, loadFullRules, loadText, localGame } from './rules.js';
import { gameSlot, saveGame } from './storage.js';
import { describeRules, rememberRules } from './variant.js';

export { importKind };
/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./page-state.js').PageState} PageState */
/** @typedef {import('./rules.js').RecordHeader} RecordHeader */
/** @typedef {import('./rules.js').Reply} Reply */
/** @typedef {import('./rules.js').LocalGame} LocalGame */
/** @typedef {import('./review.js').GameRecord} GameRecord */
/** @typedef {import('./variant.js').RulesInfo} RulesInfo */

/**
 * The game to write a record or MFEN of: the page's own game, or one replayed through the
 * rules from recordToWrite. Null when there is none or it does not replay.
 * @param {App} app @param {boolean} upToShown @returns {Promise<LocalGame | null>}
 */
async function gameToWrite(app, upToShown) {
  const { page } = app;
  // Records are written by the full build (rules.js): loaded now, once; if it fails, the
  // game's answer says so (`rules-unavailable`).
  await loadFullRules().catch(() => null);
  if ((page.mode === 'local' || page.mode === 'computer') && page.game) return page.game;
  const mod = await app.rules();
  if (!mod) return null;
  const game = localGame(mod);
  const startOf = (/** @type {string} */ rules) => (game.startRules(rules).ok ? game.snapshot().position : '');
  const record = recordToWrite(page, startOf, upToShown);
  if (!record) return null;
  // The rules' record has no clocks: those stay the page's (the TimeControl tag says which).
  const { result, clock: _clock, ...rest } = record;
  return game.importRecord(JSON.stringify(result ? { ...rest, result } : rest)).ok ? game : null;
}

/**
 * Loads `text` (a record, position string or MFEN, read under `options.rules` when it is
 * MFEN) into the same-device game; on success saves and redraws it. Returns the rules'
 * answer.
 * @param {App} app @param {string} text @param {{ rules?: string }} [options]
 * @returns {Reply}
 */
export function importText(app, text, options = {}) {
  const { page } = app;
  const game = page.game;
  const reply = loadText(game, text, options.rules);
  if (reply.ok) {
    // A record may be of another rule set: it becomes the chosen one, and its game the saved one.
    const rules = game.rulesName();
    rememberRules(app.storage, rules);
    saveGame(app.storage, gameSlot('local', rules), game.exportRecord());
    app.setNotice(null);
    refreshLocal(app);
  }
  return reply;
}

/**
 * The rule sets the dialog offers for MFEN: the game's own first (when its board has
 * MFEN), then each variant's usual rules that have it. `game` and `variants` are
 * mill-wasm's RulesInfo.
 * @param {RulesInfo} game @param {RulesInfo[]} variants @returns {string[]}
 */
export function mfenRulesChoice(game, variants) {
  const names = [game, ...variants].filter((r) => !r.mfenRefused).map((r) => r.rules);
  return [...new Set(names)];
}

/**
 * The Import dialog's message for a refusal, in the page's words from the rules' codes
 * (the turn or line at fault named; no code or English text of the rules shown), and for
 * MFEN what to do: another board has no MFEN, or the rule sets it would read under.
 * @param {NonNullable<Reply['error']>} error @param {import('./types.js').Translate} t
 */
export function importFailure(error, t) {
  const words = [t('records.importFailed'), failureWords(error, t)];
  if (error.code === 'unrepresentable-under-profile') words.push(t('records.mfenNoBoard'));
  if (error.fits?.length) words.push(t('records.mfenFits', { rules: error.fits.map((r) => describeRules(r, t)).join(', ') }));
  return words.join(' ');
}

/** What a refusal's code means, in words. @param {NonNullable<Reply['error']>} error @param {import('./types.js').Translate} t */
function failureWords(error, t) {
  switch (error.code) {
    case 'bad-turn': {
      const key = `records.why.${error.reason ?? ''}`;
      const why = t(key) === key ? t('records.why.other') : t(key);
      return t('records.error.turn', { turn: error.turn ?? '?', why });
    }
    case 'bad-header':
      return t('records.error.header', { line: error.line ?? '?' });
    case 'bad-result':
      return t('records.error.result');
    case 'bad-position':
      return t('records.error.position');
    case 'bad-rules':
      return t('records.error.rules');
    case 'rules-unavailable':
      return t('error.wasm');
    // A MIF game (MSTATE) whose checkpoints its own events do not reach, or whose
    // manifest names rules we do not play (docs/MIF.md).
    case 'checkpoint-mismatch':
    case 'repetition-history-mismatch':
    case 'claims-mismatch':
      return t('records.error.mstate');
    case 'unsupported-ruleset':
      return t('records.error.ruleset');
    default:
      // MFEN's own codes (syntax, an extension these rules lack, an inconsistent state, …).
      return t('records.error.mfen');
  }
}

/** @param {App} app @param {string} text @param {string} doneKey */
async function copy(app, text, doneKey) {
  const note = $('record-copied');
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = app.page.t(doneKey);
  } catch {
    note.textContent = app.page.t('records.copyFailed');
  }
}

/**
 * The record tools' buttons and the Import dialog; once, as this part loads.
 * @param {App} app
 * @param {object} hooks
 * @param {typeof import('./vs-computer.js').startComputerFrom} hooks.startComputerFrom
 *   starts a vs-computer game from a text (the computer's part, loaded by then in that mode)
 */
export function bindRecordTools(app, { startComputerFrom }) {
  const { page } = app;
  const dialog = $dialog('import-dialog');
  const area = /** @type {HTMLTextAreaElement} */ ($('import-text'));
  const error = $('import-error');
  const rulesSelect = /** @type {HTMLSelectElement} */ ($('import-rules'));
  const showKind = () => {
    $('import-mfen').hidden = importKind(area.value) !== 'mfen';
  };

  $('copy-record').addEventListener('click', async () => {
    const game = await gameToWrite(app, false);
    const reply = game?.recordText(recordHeader(page));
    if (reply?.ok) copy(app, reply.text, 'records.copied');
    else if (reply?.error?.code === 'rules-unavailable') $('record-copied').textContent = page.t('error.wasm');
  });
  $('copy-mfen').addEventListener('click', async () => {
    const game = await gameToWrite(app, true);
    const reply = game?.mfen();
    if (!reply) return;
    if (reply.ok) copy(app, reply.text, 'records.copiedMfen');
    else if (reply.error?.code === 'rules-unavailable') $('record-copied').textContent = page.t('error.wasm');
    // Three's and Six's boards have none (the button is hidden there; this is the fallback).
    else $('record-copied').textContent = page.t('records.mfenNoBoardCopy');
  });
  $('copy-mstate').addEventListener('click', async () => {
    const game = await gameToWrite(app, false);
    const reply = game?.mstate();
    if (!reply) return;
    if (reply.ok) copy(app, reply.text, 'records.copiedMstate');
    else if (reply.error?.code === 'rules-unavailable') $('record-copied').textContent = page.t('error.wasm');
    // Three's and Six's boards have none: the rules' words and code say so.
    else $('record-copied').textContent = `${reply.error.message} [${reply.error.code}]`;
  });
  $('import-record').addEventListener('click', async () => {
    if (!importable(page) || dialog.open || !page.game) return;
    const mod = await app.rules();
    if (!mod || !importable(page)) return;
    area.value = '';
    error.textContent = '';
    // MFEN names no rules: offer the game's, else the variants' usual ones, on the 24-point board.
    const own = page.game.rulesInfo();
    const variants = /** @type {RulesInfo[]} */ (JSON.parse(mod.variants()));
    rulesSelect.replaceChildren(
      ...mfenRulesChoice(own, variants).map((rules) => {
        const option = document.createElement('option');
        option.value = rules;
        option.textContent = describeRules(rules, page.t);
        return option;
      }),
    );
    $('import-side').hidden = page.mode !== 'computer';
    for (const input of radios('import-side')) input.checked = input.value === 'to-move';
    showKind();
    dialog.showModal();
    area.focus();
  });
  area.addEventListener('input', showKind);
  $('import-cancel').addEventListener('click', () => dialog.close());
  const load = $button('import-load');
  load.addEventListener('click', async () => {
    if (!importable(page)) return void dialog.close();
    const text = area.value;
    const rules = importKind(text) === 'mfen' ? rulesSelect.value : undefined;
    // Records are read by the full build (rules.js): loaded first; if it fails, Load says so.
    await loadFullRules().catch(() => null);
    if (!(await mayReplace(app, text, rules))) return;
    if (!importable(page)) return void dialog.close();
    let reply;
    if (page.mode === 'computer') {
      const side = radios('import-side').find((input) => input.checked)?.value ?? 'to-move';
      // One game at a time: a second click while this one opens does nothing.
      load.disabled = true;
      try {
        reply = await startComputerFrom(app, text, { human: /** @type {import('./types.js').Side | 'to-move'} */ (side), rules });
      } finally {
        load.disabled = false;
      }
    } else reply = importText(app, text, { rules });
    if (reply.ok) {
      dialog.close();
      $('record-copied').textContent = page.t('records.imported');
    } else {
      error.textContent = importFailure(reply.error, page.t);
      area.focus();
    }
  });
}

/**
 * Import asks before it replaces a game in progress, as New game does; a text that does
 * not load is not asked about (Load then says why). True to go on.
 * @param {App} app @param {string} text @param {string | undefined} rules
 */
async function mayReplace(app, text, rules) {
  const { page } = app;
  if (!gameInProgress(page) || !page.game) return true;
  const mod = await app.rules();
  if (!mod || !page.game) return false;
  const probe = localGame(mod);
  probe.startRules(page.game.rulesName());
  if (!loadText(probe, text, rules).ok) return true;
  return confirmNewGame(page.t('records.importConfirm'));
}
