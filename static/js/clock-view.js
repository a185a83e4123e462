// Owns drawing the online clocks (clock.js does the arithmetic): the two clocks on the
// player cards, ticking every tenth of a second from the latest state's server time; the
// one low-time sound; the claim box with its countdown when the opponent is gone; the
// time-control choice when creating a room. Reads the page state, writes only its own
// elements.

import { CLOCKS_OFFERED, PRESETS, chosenClock, claimIn, clocksAt, crossedLow, formatClock, isLow } from './clock.js';
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
 * Both cards' clocks at page time `now`.
 * @param {PageState} page @param {number} [now]
 */
export function viewClocks(page, now = Date.now()) {
  const room = roomClock(page);
  const shown = room ? clocksAt(room.clock, room.o.clockOffset, now) : null;
  for (const side of /** @type {const} */ (['light', 'dark'])) {
    const el = find(document, `.card[data-side="${side}"] .clock`);
    el.hidden = !shown;
    if (!shown || !room) continue;
    const units = { day: page.t('clock.unit.day'), hour: page.t('clock.unit.hour') };
    const text = formatClock(shown[side], units);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('running', room.clock.running === side);
    el.classList.toggle('low', room.clock.running === side && isLow(shown[side]));
    el.setAttribute('aria-label', page.t('clock.remaining', { side: page.t(`color.${side}`), time: text }));
  }
  return shown;
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
 * Redraws the clocks and the claim every tenth of a second while they change, and plays
 * the low-time sound once when the person's own clock goes under ten seconds.
 * @param {() => PageState} getPage @param {() => void} lowTime  the notifier's sound (honours the switch)
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
  });
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
