// Owns the "Start a new game?" dialog: one question at a time, answered where the answer
// is given (a button, Escape, the backdrop), not from the dialog's `close` event, which
// comes a task later and could reach the next question.

import { $, $dialog } from './dom.js';

/** @type {((yes: boolean) => void) | null} */
let pendingAnswer = null;

function answer(yes) {
  const resolve = pendingAnswer;
  pendingAnswer = null;
  if ($dialog('confirm-new').open) $dialog('confirm-new').close();
  resolve?.(yes);
}

/**
 * Asks in a modal dialog whether to drop the game in progress, saying why with `text`
 * (already translated). Resolves to true for "Start over"; false at once if a question is
 * already open.
 * @param {string} text @returns {Promise<boolean>}
 */
export function confirmNewGame(text) {
  const dialog = $dialog('confirm-new');
  if (dialog.open) return Promise.resolve(false);
  $('confirm-new-text').textContent = text;
  return new Promise((resolve) => {
    pendingAnswer = resolve;
    dialog.showModal();
  });
}

/** Wires the dialog's buttons and ways of closing; once, at start-up. */
export function bindConfirmDialog() {
  const dialog = $dialog('confirm-new');
  $('confirm-new-ok').addEventListener('click', () => answer(true));
  $('confirm-new-keep').addEventListener('click', () => answer(false));
  // Escape: the browser closes the dialog; that is a "no".
  dialog.addEventListener('cancel', () => answer(false));
  // A click on the dimmed backdrop (outside the box) is a "no".
  dialog.addEventListener('click', (event) => {
    if (event.target === event.currentTarget) answer(false);
  });
  // Closed any other way (Chromium may close on Escape without a cancel event): a "no" —
  // unless the dialog is open again, for a newer question this late event is not about.
  dialog.addEventListener('close', () => {
    if (!dialog.open) answer(false);
  });
}
