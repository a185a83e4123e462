// Owns records in and out on the game page: "Copy record" and "Copy MFEN" (the game as a
// text record, the position as MFEN, both written by mill-core through the wasm), and the
// Import dialog, which reads a record, a position string or MFEN into the same-device
// game. What a record says is the rules' business: a bad one comes back as the rules'
// error, naming the turn or line, and the game stays as it was.

import { $, $dialog } from './dom.js';
import { refreshLocal } from './local.js';
import { gameSlot, saveGame } from './storage.js';
import { rememberRules } from './variant.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./page-state.js').PageState} PageState */
/** @typedef {import('./rules.js').RecordHeader} RecordHeader */

/**
 * Today as a record's date, YYYY.MM.DD, in local time.
 * @param {Date} [now] @returns {string}
 */
export function recordDate(now = new Date()) {
  const two = (n) => String(n).padStart(2, '0');
  return `${now.getFullYear()}.${two(now.getMonth() + 1)}.${two(now.getDate())}`;
}

/**
 * What pasted text is: MFEN (its signature), a position string (six fields, the board
 * with '/'), else a game record.
 * @param {string} text @returns {'mfen' | 'position' | 'record'}
 */
export function importKind(text) {
  const s = text.trim();
  if (s.startsWith('MFEN/')) return 'mfen';
  const fields = s.split(/\s+/);
  if (fields.length === 6 && fields[0].includes('/') && !s.includes('[')) return 'position';
  return 'record';
}

/**
 * The header of the game on the page: today's date, and vs computer who the computer is.
 * @param {PageState} page @returns {RecordHeader}
 */
export function recordHeader(page) {
  /** @type {RecordHeader} */
  const header = { date: recordDate() };
  const vs = page.mode === 'computer' ? page.computer : null;
  if (vs) {
    const machine = `${page.t('card.computer')} (${page.t(`computer.level.${vs.settings.level}`)})`;
    if (vs.settings.human === 'light') header.dark = machine;
    else header.light = machine;
  }
  return header;
}

/**
 * Loads `text` (a record, position string or MFEN) into the same-device game; on success
 * saves and redraws it. Returns the rules' answer.
 * @param {App} app @param {string} text @returns {import('./rules.js').Reply}
 */
export function importText(app, text) {
  const { page } = app;
  const game = page.game;
  const kind = importKind(text);
  const reply =
    kind === 'mfen' ? game.loadMfen(text) : kind === 'position' ? game.loadPosition(text) : game.loadRecordText(text);
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

/** The record tools' buttons and the Import dialog; once, at start-up. @param {App} app */
export function bindRecordTools(app) {
  const { page } = app;
  const dialog = $dialog('import-dialog');
  const area = /** @type {HTMLTextAreaElement} */ ($('import-text'));
  const error = $('import-error');

  $('copy-record').addEventListener('click', () => {
    if (!page.game) return;
    const reply = page.game.recordText(recordHeader(page));
    if (reply.ok) copy(app, reply.text, 'records.copied');
  });
  $('copy-mfen').addEventListener('click', () => {
    if (!page.game) return;
    const reply = page.game.mfen();
    if (reply.ok) copy(app, reply.text, 'records.copiedMfen');
  });
  $('import-record').addEventListener('click', () => {
    if (page.mode !== 'local' || dialog.open) return;
    area.value = '';
    error.textContent = '';
    dialog.showModal();
    area.focus();
  });
  $('import-cancel').addEventListener('click', () => dialog.close());
  $('import-load').addEventListener('click', () => {
    if (page.mode !== 'local') return void dialog.close();
    const reply = importText(app, area.value);
    if (reply.ok) {
      dialog.close();
      $('record-copied').textContent = page.t('records.imported');
    } else {
      error.textContent = `${page.t('records.importFailed')} ${reply.error?.message ?? ''}`;
      area.focus();
    }
  });
}

/** Shows the tools where there is a game in this browser; Import in same device only. @param {PageState} page */
export function viewRecordTools(page) {
  const local = page.mode === 'local' || page.mode === 'computer';
  $('record-tools').hidden = !local;
  $('import-record').hidden = page.mode !== 'local';
  if (!local) $('record-copied').textContent = '';
}
