// Owns the record of the game on screen, as the lazy parts that write or read it need it
// (records.js's Copy, review.js's header, screen-reader.js's copy of an online game): its
// header (date, the computer's name, room, round, time control) and, online and under
// review, the record itself. Pure: reads the page state, changes nothing. Kept below the
// parts loaded on first use (later.js) so that none of them imports another.

import { recordTag } from './clock.js';
import { rulesOfPosition } from './variant.js';

/** @typedef {import('./page-state.js').PageState} PageState */
/** @typedef {import('./rules.js').RecordHeader} RecordHeader */
/** @typedef {import('./review.js').GameRecord} GameRecord */

/**
 * Today as a record's date, YYYY.MM.DD, in local time.
 * @param {Date} [now] @returns {string}
 */
export function recordDate(now = new Date()) {
  const two = (n) => String(n).padStart(2, '0');
  return `${now.getFullYear()}.${two(now.getMonth() + 1)}.${two(now.getDate())}`;
}

/**
 * The header of the game on screen: today's date; vs computer who the computer is;
 * online (and a shared round under review) the room and round as tags.
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
  const state = page.mode === 'online' ? page.online?.state : null;
  if (state) header.tags = [['Room', state.room], ['Round', String(state.round)]];
  // A timed room's control, as PGN's TimeControl tag (`300+3`, `1/259200`).
  if (state?.clock) header.tags?.push(['TimeControl', recordTag(state.clock.control)]);
  const source = page.mode === 'review' ? page.review?.source : null;
  if (source?.kind === 'round') {
    header.tags = [['Room', source.roomId], ['Round', String(source.round)]];
    // Its time control, when the server's record of the round names one.
    const control = page.review?.record?.clock?.control;
    if (control) header.tags.push(['TimeControl', recordTag(control)]);
  }
  // The game that was on screen: the header it had there, dated today.
  if (source?.kind === 'game' && source.header) return { ...source.header, date: header.date };
  return header;
}

/**
 * An online round as a record: the server's state has every action and the result (a
 * resignation or agreed draw is not on the board); the round starts from its rules'
 * start position, `start`.
 * @param {import('./types.js').ServerState} state @param {string} start @returns {GameRecord}
 */
export function onlineRecord(state, start) {
  return { start, actions: state.actions, result: state.result ?? null };
}

/**
 * The record written for the game on screen, or null when there is none: online the
 * round so far, under review the game reviewed (`upToShown`: only up to the position
 * shown, for MFEN). Same device and vs computer write from their own game instead.
 * @param {PageState} page @param {(rules: string) => string} startOf  a rule set's start position
 * @param {boolean} [upToShown]
 * @returns {GameRecord | null}
 */
export function recordToWrite(page, startOf, upToShown = false) {
  const state = page.mode === 'online' ? page.online?.state : null;
  if (state) return onlineRecord(state, startOf(rulesOfPosition(state.position)));
  const review = page.mode === 'review' ? page.review : null;
  if (!review?.record || review.positions.length === 0) return null;
  const { record } = review;
  const shown = review.positions[review.at];
  if (!upToShown || !shown || review.at === review.positions.length - 1) return record;
  return { start: record.start, actions: record.actions.slice(0, shown.actions), result: null };
}
