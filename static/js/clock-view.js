// Owns drawing the online clocks (clock.js does the arithmetic): the two clocks on the
// player cards, ticking every tenth of a second from the latest state's server time, and
// under review each side's time left at the position shown; the first turn's countdown;
// the one low-time sound and its words for the screen reader; the claim box with its
// countdown when the opponent is gone; the time-control choice when creating a room.
// Reads the page state, writes only its own elements.

import { CLOCKS_OFFERED, PRESETS, chosenClock, claimIn, clocksAt, clocksSaid, controlText, crossedLow, firstTurnIn, formatClock, isLow, reviewClocks, turnTimes } from './clock.js';
import { $, $input, find } from './dom.js';

/** @typedef {import('./page-state.js').PageState} PageState */
/** @typedef {import('./types.js').Side} Side */

/** How often the clocks are redrawn while one runs or a claim is counted down. */
const TICK_MS = 100;

/** The clock of the room on screen, or null (not online, untimed, no state yet). @param {PageState} page */
function roomClock(page) {
  const o = page.mode === 'online' ? page.online : null;
  return o?.state?.clock ? { o, clock: o.state.clock } : null;
}

/**
 * Both cards' clocks at page time `now`: online the room's, ticking; under review the
 * times left at the position shown (reviewClock). Returns the online ones, or null.
 * @param {PageState} page @param {number} [now]
 */
export function viewClocks(page, now = Date.now()) {
  const room = roomClock(page);
  const shown = room ? clocksAt(room.clock, room.o.clockOffset, now) : null;
  const review = shown ? null : reviewClock(page);
  const units = { day: page.t('clock.unit.day'), hour: page.t('clock.unit.hour') };
  for (const side of /** @type {const} */ (['light', 'dark'])) {
    const el = find(document, `.card[data-side="${side}"] .clock`);
    const ms = shown ? shown[side] : review ? review[side] : null;
    el.hidden = ms === null;
    if (ms === null) continue;
    const text = formatClock(ms, units);
    if (el.textContent !== text) el.textContent = text;
    const running = !!room && room.clock.running === side;
    el.classList.toggle('running', running);
    el.classList.toggle('low', running && isLow(ms));
    el.setAttribute('aria-label', page.t('clock.remaining', { side: page.t(`color.${side}`), time: text }));
  }
  viewFirstTurn(page, now);
  return shown;
}

/**
 * Under review of a timed game: both sides' time left at the position shown (a side
 * whose time is not known: null), else null.
 * @param {PageState} page @returns {{ light: number | null, dark: number | null } | null}
 */
export function reviewClock(page) {
  const review = page.mode === 'review' ? page.review : null;
  const clock = review?.record?.clock;
  // No time known (the server's record has none, the page saw none): no clocks shown.
  if (!review || !clock || review.positions.length === 0 || !clock.times.some(Boolean)) return null;
  const { times, movers } = reviewTurnTimes(review);
  const shown = reviewClocks(clock.control, times, review.ends, movers, review.at);
  // The last position of a game lost on time: the loser's clock at zero.
  const result = review.record?.result;
  if (review.at === review.positions.length - 1 && result?.reason === 'timeout' && result.winner) {
    shown[result.winner === 'light' ? 'dark' : 'light'] = 0;
  }
  return shown;
}

/**
 * The reviewed game's time left after each turn (clock.js's turnTimes), and who played
 * each turn; empty for an untimed game.
 * @param {import('./page-state.js').Review} review
 */
export function reviewTurnTimes(review) {
  /** @type {Array<Side | null>} */
  const movers = review.ends.map((_, k) => (k === 0 ? null : review.positions[review.ends[k - 1]]?.turn ?? null));
  const after = review.record?.clock?.times;
  return { movers, times: after ? turnTimes(after, review.ends, movers) : [] };
}

/**
 * The first turn's countdown, under the status line: while the side to move has not made
 * its first turn in a timed room, how long it has before the round is called off.
 * @param {PageState} page @param {number} now
 */
function viewFirstTurn(page, now) {
  const room = roomClock(page);
  const left = room && !room.o.state?.result ? firstTurnIn(room.clock, room.o.clockOffset, now) : null;
  const line = $('first-turn');
  line.hidden = left === null;
  if (left === null || !room?.o.state) return;
  const turn = room.o.state.turn;
  const seconds = Math.ceil(left / 1000);
  const text = room.o.seat === turn ? page.t('clock.firstTurn.you', { seconds }) : page.t('clock.firstTurn', { side: page.t(`color.${turn}`), seconds });
  if (line.textContent !== text) line.textContent = text;
}

/**
 * Both clocks in words (the Command field's `clock` query), or null in a game without
 * clocks.
 * @param {PageState} page @param {number} [now]
 */
export function clocksWords(page, now = Date.now()) {
  const room = roomClock(page);
  if (room?.o.state) {
    const shown = clocksAt(room.clock, room.o.clockOffset, now);
    const first = room.o.state.result ? null : firstTurnIn(room.clock, room.o.clockOffset, now);
    return clocksSaid(room.clock, shown, first, room.o.state.turn, page.t);
  }
  const review = reviewClock(page);
  if (!review) return null;
  const units = { day: page.t('clock.unit.day'), hour: page.t('clock.unit.hour') };
  return (/** @type {const} */ (['light', 'dark']))
    .map((side) => {
      const ms = review[side];
      return page.t('clock.remaining', { side: page.t(`color.${side}`), time: ms === null ? '?' : formatClock(ms, units) });
    })
    .join('. ');
}

/**
 * The claim box: to a seat whose opponent is away in a live timed game, the countdown to
 * the claim, then the two buttons.
 * @param {PageState} page @param {number} [now]
 */
export function viewClaim(page, now = Date.now()) {
  const room = roomClock(page);
  const o = room?.o;
  const opponent = o?.seat === 'light' ? 'dark' : 'light';
  const away = !!o?.seat && !!o.state?.seats?.[opponent]?.taken && !o.state?.seats?.[opponent]?.online;
  const left = room && away && !o?.state?.result ? claimIn(room.clock, room.o.clockOffset, now) : null;
  const box = $('claim');
  box.hidden = left === null;
  if (left === null) return;
  const ready = left === 0 && o?.connection === 'open';
  const text = ready ? page.t('clock.claim.ready') : page.t('clock.claim.wait', { seconds: Math.ceil(left / 1000) });
  const p = $('claim-text');
  if (p.textContent !== text) p.textContent = text;
  for (const id of ['claim-win', 'call-draw']) /** @type {HTMLButtonElement} */ ($(id)).disabled = !ready;
}

/**
 * Redraws the clocks and the claim every tenth of a second while they change, and calls
 * `lowTime` once when the person's own clock goes under ten seconds (the notifier's
 * sound, which honours the switch, and the screen reader's words).
 * @param {() => PageState} getPage @param {() => void} lowTime
 */
export function startClockTicker(getPage, lowTime) {
  /** @type {number | null} */
  let mine = null;
  return setInterval(() => {
    const page = getPage();
    const room = roomClock(page);
    if (!room) {
      mine = null;
      return;
    }
    const shown = viewClocks(page);
    viewClaim(page);
    const seat = room.o.seat;
    const own = seat && room.clock.running === seat && shown ? shown[seat] : null;
    if (own !== null && crossedLow(mine, own)) lowTime();
    mine = own;
  }, TICK_MS);
}

/**
 * The time-control choice on the start screen (shown once rooms keep clocks), its
 * options in the page's words.
 * @param {PageState} page
 */
export function bindClockChoice(page) {
  const select = /** @type {HTMLSelectElement} */ ($('clock-preset'));
  select.replaceChildren(
    ...PRESETS.map(({ id }) => {
      const option = document.createElement('option');
      option.value = id;
      option.dataset.i18n = `clock.preset.${id}`;
      option.textContent = page.t(`clock.preset.${id}`);
      return option;
    }),
  );
  $('clock-choice').hidden = !CLOCKS_OFFERED;
  select.addEventListener('change', () => {
    $('clock-custom').hidden = select.value !== 'custom';
    viewClockBadge(page);
    viewClockError(page);
  });
  for (const id of ['clock-minutes', 'clock-increment']) {
    // While typing a wrong time is only cleared once right; a finished entry is judged.
    $(id).addEventListener('input', () => {
      viewClockBadge(page);
      if (!clockRequest().error) viewClockError(page);
    });
    $(id).addEventListener('change', () => viewClockError(page));
  }
}

/**
 * What is wrong with the custom time, said under its fields (and the fields marked), or
 * nothing; `focus` puts the keyboard in the minutes, as "Play with a friend" does when
 * the time is wrong. Whether there was something wrong.
 * @param {PageState} page @param {{ focus?: boolean }} [opts]
 */
export function viewClockError(page, { focus = false } = {}) {
  const { error } = clockRequest();
  const text = error ? page.t(error) : '';
  const line = $('clock-custom-error');
  if (line.textContent !== text) line.textContent = text;
  for (const id of ['clock-minutes', 'clock-increment']) {
    if (error) $(id).setAttribute('aria-invalid', 'true');
    else $(id).removeAttribute('aria-invalid');
  }
  if (error && focus) $input('clock-minutes').focus();
  return !!error;
}

/**
 * The time control chosen, beside "Play with a friend" (the only mode it is for): `5+3`,
 * `3 days per turn`; nothing while untimed or a custom time is not a number.
 * @param {PageState} page
 */
export function viewClockBadge(page) {
  const badge = $('start-friend-clock');
  const { body } = clockRequest();
  badge.hidden = !body.clock;
  if (!body.clock) return;
  const { key, params } = controlText(body.clock);
  badge.textContent = page.t(key, params);
}

/**
 * The `clock` field for `POST /api/rooms` from the choice, or `{}` (untimed, or clocks
 * not offered yet); `error` when the custom fields are not numbers.
 * @returns {{ body: { clock?: import('./clock.js').TimeControl }, error?: string }}
 */
export function clockRequest() {
  if (!CLOCKS_OFFERED) return { body: {} };
  const id = /** @type {HTMLSelectElement} */ ($('clock-preset')).value;
  const { clock, error } = chosenClock(id, { minutes: $input('clock-minutes').value, increment: $input('clock-increment').value });
  if (error) return { body: {}, error };
  return { body: clock ? { clock } : {} };
}
