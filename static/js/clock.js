// Owns the page's side of online clocks (docs/PROTOCOL.md, "Clocks"): the time controls
// offered when creating a room, how a remaining time is written (tenths below 10 s), the
// clocks counted down from a state's server time without drifting, the low-time moment
// for the warning sound, the claim's countdown, and the result lines of the clock's
// results from a seat's or a spectator's side. Pure: no DOM, no timers; the page calls
// these with its own `Date.now()`. The server is the authority: nothing here flags anyone.

import { CLOCK_BOUNDS } from './wire.js';

/** @typedef {import('./types.js').Side} Side */

/**
 * @typedef {{ initial: number, increment: number } | { days: number }} TimeControl
 *   a room's time control, as `POST /api/rooms` takes it and `state.clock.control` gives it
 */

/**
 * @typedef {object} ClockState  a `state`'s `clock` (docs/PROTOCOL.md)
 * @property {number} light  Light's remaining milliseconds as of `at`
 * @property {number} dark  Dark's remaining milliseconds as of `at`
 * @property {Side | null} running  whose time runs, or null
 * @property {number} at  the server's time of the state (Unix ms)
 * @property {number | null} first_turn  ms the side to move has left for its first turn
 * @property {number | null} claim_at  server time from which the present seat may claim
 * @property {TimeControl} control
 */

/**
 * Whether the start screen offers a time control for "Play with a friend". The server's
 * rooms keep clocks (docs/PROTOCOL.md, "Clocks"); off, every room the page makes is untimed.
 */
export const CLOCKS_OFFERED = true;

/** The time below which a clock is drawn in the low-time colour and a short sound plays. */
export const LOW_TIME_MS = 10_000;

/**
 * The choices of the create-room menu, in order: their ids (also their i18n keys under
 * `clock.preset.`) and the `clock` each sends (`null`: untimed; `'custom'`: the person's).
 * @type {ReadonlyArray<{ id: string, clock: TimeControl | null | 'custom' }>}
 */
export const PRESETS = Object.freeze([
  { id: 'untimed', clock: null },
  { id: '1+0', clock: { initial: 60, increment: 0 } },
  { id: '3+2', clock: { initial: 180, increment: 2 } },
  { id: '5+3', clock: { initial: 300, increment: 3 } },
  { id: '10+5', clock: { initial: 600, increment: 5 } },
  { id: '15+10', clock: { initial: 900, increment: 10 } },
  { id: '3d', clock: { days: 3 } },
  { id: 'custom', clock: 'custom' },
]);

/**
 * The `clock` of a preset id, or of the custom fields (minutes may have a fraction:
 * 0.25 is 15 s). What is not a number gives null with `error` `clock.custom.bad`; a time
 * outside the server's bounds (wire.js's CLOCK_BOUNDS, generated from timecontrol.rs)
 * null with `clock.bad`, so it is said where it is typed, before anything is sent.
 * @param {string} id
 * @param {{ minutes?: string, increment?: string }} [custom]
 * @returns {{ clock: TimeControl | null, error?: string }}
 */
export function chosenClock(id, custom = {}) {
  const preset = PRESETS.find((p) => p.id === id) ?? PRESETS[0];
  if (preset.clock !== 'custom') return { clock: preset.clock };
  const minutes = Number(custom.minutes);
  const increment = Number(custom.increment || '0');
  if (!custom.minutes || !Number.isFinite(minutes) || !Number.isFinite(increment)) {
    return { clock: null, error: 'clock.custom.bad' };
  }
  const clock = { initial: Math.round(minutes * 60), increment: Math.round(increment) };
  const { MIN_INITIAL_SECS, MAX_INITIAL_SECS, MAX_INCREMENT_SECS } = CLOCK_BOUNDS;
  if (clock.initial < MIN_INITIAL_SECS || clock.initial > MAX_INITIAL_SECS || clock.increment < 0 || clock.increment > MAX_INCREMENT_SECS) {
    return { clock: null, error: 'clock.bad' };
  }
  return { clock };
}

/** Two digits. @param {number} n */
const pad = (n) => String(n).padStart(2, '0');

/**
 * A remaining time as the cards show it: `1:05:09`, `4:59`, `0:10`, and below 10 s with
 * tenths, `9.9` … `0.0`; a day or more as days and hours through `units` (`2 d 03 h`).
 * Never negative. Tenths are cut, not rounded, so `0.0` shows only when time is out.
 * @param {number} ms
 * @param {{ day: string, hour: string }} [units]
 */
export function formatClock(ms, units = { day: 'd', hour: 'h' }) {
  const t = Math.max(0, Math.floor(ms));
  if (t < LOW_TIME_MS) return `${Math.floor(t / 1000)}.${Math.floor((t % 1000) / 100)}`;
  const s = Math.floor(t / 1000);
  const days = Math.floor(s / 86_400);
  if (days > 0) return `${days} ${units.day} ${pad(Math.floor((s % 86_400) / 3600))} ${units.hour}`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/**
 * The page's clock minus the server's, from a state received at `receivedAt` (page ms)
 * that the server made at `clock.at`. The network's delay makes the page think the state
 * older than it is, so its clocks run a little ahead of the server's, never behind.
 * @param {ClockState} clock @param {number} receivedAt
 */
export function serverOffset(clock, receivedAt) {
  return receivedAt - clock.at;
}

/**
 * Both clocks at page time `now`: the running side's counted down from the state's server
 * time by the page's own clock (never below 0), the other as the state says. Worked out
 * afresh from the state at each tick, so no error piles up however often it is called.
 * @param {ClockState} clock @param {number} offset  from serverOffset @param {number} now
 * @returns {{ light: number, dark: number }}
 */
export function clocksAt(clock, offset, now) {
  const shown = { light: clock.light, dark: clock.dark };
  if (clock.running) {
    const elapsed = Math.max(0, now - offset - clock.at);
    shown[clock.running] = Math.max(0, shown[clock.running] - elapsed);
  }
  return shown;
}

/** Whether a remaining time is drawn in the low-time look. @param {number} ms */
export function isLow(ms) {
  return ms < LOW_TIME_MS;
}

/**
 * Whether the person's own clock just went under 10 s between two ticks: the moment of
 * the one short warning sound (a correspondence clock never warns).
 * @param {number | null} before @param {number} now  the person's remaining ms
 */
export function crossedLow(before, now) {
  return before !== null && !isLow(before) && isLow(now);
}

/**
 * Milliseconds until the present seat may claim (0: now), or null when there is nothing
 * to claim; counted on the page's clock like the clocks.
 * @param {ClockState | null | undefined} clock @param {number} offset @param {number} now
 */
export function claimIn(clock, offset, now) {
  if (!clock || clock.claim_at === null || clock.claim_at === undefined) return null;
  return Math.max(0, clock.claim_at - (now - offset));
}

/**
 * Milliseconds the side to move has left to make its first turn before the round is
 * aborted (counted down like the clocks, never below 0), or null when no first turn is due.
 * @param {ClockState | null | undefined} clock @param {number} offset @param {number} now
 */
export function firstTurnIn(clock, offset, now) {
  if (!clock || clock.first_turn === null || clock.first_turn === undefined) return null;
  return Math.max(0, clock.first_turn - Math.max(0, now - offset - clock.at));
}

/**
 * Both clocks in words for the Command field's `clock` query and the screen reader:
 * "Light: 4:32 left. Dark: 5:00 left. Light's clock is running." (a first turn due says
 * how long is left for it instead of whose clock runs).
 * @param {ClockState} clock @param {{ light: number, dark: number }} shown  clocksAt's
 * @param {number | null} firstTurn  firstTurnIn's
 * @param {Side} turn  the side to move
 * @param {import('./types.js').Translate} t
 */
export function clocksSaid(clock, shown, firstTurn, turn, t) {
  const units = { day: t('clock.unit.day'), hour: t('clock.unit.hour') };
  const parts = (/** @type {const} */ (['light', 'dark'])).map((side) =>
    t('clock.remaining', { side: t(`color.${side}`), time: formatClock(shown[side], units) }),
  );
  if (firstTurn !== null) parts.push(t('clock.firstTurn', { side: t(`color.${turn}`), seconds: Math.ceil(firstTurn / 1000) }));
  else if (clock.running) parts.push(t('clock.runningSay', { sideOf: t(`color.of.${clock.running}`) }));
  return parts.join('. ');
}

/**
 * Each side's time left after each turn of a game under review, and so the clocks at any
 * position. `after[i]` is both clocks once `i + 1` actions were played (the server's
 * record, or what the page saw), null where unknown; `ends` the positions (actions played)
 * where turns end, the start first (analysis.js's turnEnds); `movers[k]` who played the
 * turn ending at `ends[k]` (k ≥ 1). Only the mover's clock is taken from a turn's end: its
 * own time is stopped there, the other side's is still running.
 * @param {Array<{ light: number, dark: number } | null | undefined>} after
 * @param {number[]} ends @param {Array<Side | null>} movers
 * @returns {Array<number | null>}  per turn (index k − 1 for the turn ending at ends[k]): its mover's time left
 */
export function turnTimes(after, ends, movers) {
  return ends.slice(1).map((end, j) => {
    const mover = movers[j + 1];
    const left = after[end - 1];
    return mover && left && Number.isFinite(left[mover]) ? left[mover] : null;
  });
}

/**
 * Both clocks as review shows them at position `at` (actions played): each side's time
 * left after its latest turn up to there, else the time control's start (a day per turn
 * counts the days). Null for a side whose time is not known.
 * @param {TimeControl} control @param {Array<number | null>} times  turnTimes's
 * @param {number[]} ends @param {Array<Side | null>} movers @param {number} at
 * @returns {{ light: number | null, dark: number | null }}
 */
export function reviewClocks(control, times, ends, movers, at) {
  const full = 'days' in control ? control.days * 86_400_000 : control.initial * 1000;
  /** @type {{ light: number | null, dark: number | null }} */
  const shown = { light: full, dark: full };
  ends.slice(1).forEach((end, j) => {
    const mover = movers[j + 1];
    if (end <= at && mover) shown[mover] = times[j] ?? null;
  });
  return shown;
}

/**
 * A time control in words' parts: an i18n key and its parameters (`5+3`, `3 days per turn`).
 * @param {TimeControl | null | undefined} control
 * @returns {{ key: string, params: Record<string, string | number> }}
 */
export function controlText(control) {
  if (!control) return { key: 'clock.untimed', params: {} };
  if ('days' in control) return { key: 'clock.days', params: { days: control.days } };
  const { initial, increment } = control;
  const minutes = initial % 60 === 0 ? String(initial / 60) : `${Math.floor(initial / 60)}:${pad(initial % 60)}`;
  return { key: 'clock.live', params: { minutes, increment } };
}

/**
 * PGN's `TimeControl` tag for a record's header: `300+3`, `1/259200`, `-` untimed.
 * @param {TimeControl | null | undefined} control
 */
export function recordTag(control) {
  if (!control) return '-';
  if ('days' in control) return `1/${control.days * 86_400}`;
  return `${control.initial}+${control.increment}`;
}

/**
 * The result line of a clock's result, as an i18n key and the side it names, from the
 * point of view of `seat` (`null`: a spectator or review), or null for any other result.
 * "Light lost on time" to a spectator, "You lost on time" / "You won on time" to a player;
 * an aborted round and an abandoned one likewise.
 * @param {import('./types.js').Outcome | null | undefined} outcome
 * @param {Side | null} seat
 * @returns {{ key: string, side: Side | null } | null}
 */
export function clockResult(outcome, seat) {
  if (!outcome) return null;
  if (outcome.kind === 'aborted') return { key: 'clock.result.aborted', side: null };
  if (outcome.reason !== 'timeout' && outcome.reason !== 'abandoned') return null;
  const reason = outcome.reason === 'timeout' ? 'timeout' : 'abandoned';
  if (outcome.kind === 'draw') return { key: 'clock.result.abandonedDraw', side: null };
  const loser = outcome.winner === 'light' ? 'dark' : 'light';
  if (!seat) return { key: `clock.result.${reason}`, side: loser };
  return { key: `clock.result.${reason}.${seat === loser ? 'lost' : 'won'}`, side: loser };
}
