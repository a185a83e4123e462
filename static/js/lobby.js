// Owns "Play online" on the start screen: quick pairing (`POST /api/pair`, held until a
// seeker with the same rules and clock arrives) from one button per time control, for the
// rule set chosen above; "Waiting for an opponent…" with Cancel; and the lobby of open
// seeks (`GET /api/seeks`, read every few seconds while the start screen is in view), each
// taken with one click. The time controls and their words are clock.js's; the rule set is
// variant.js's. docs/PROTOCOL.md says what the server does.

import { PRESETS, controlText } from './clock.js';
import { $, $button } from './dom.js';
import { rememberSeat } from './storage.js';
import { chosenRules, describeRules } from './variant.js';
import { ERROR_CODES, PAIR_OUTCOMES } from './wire.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./clock.js').TimeControl} TimeControl */
/** @typedef {{ variant: string, clock: TimeControl | null, waiting: number }} OpenSeek  one row of `GET /api/seeks` */

/** How often the lobby is read while the start screen is in view. */
export const LOBBY_EVERY_MS = 3000;
/** Where this browser's seeker id is kept (shared by its tabs, so they never meet). */
export const SEEKER_KEY = 'pair.seeker';

/** The time controls offered for quick pairing: the create-room presets but "custom". */
export const PAIR_PRESETS = Object.freeze(PRESETS.filter((p) => p.clock !== 'custom'));

/** A random token (`POST /api/pair` takes 8 to 64 letters, digits, - or _). */
export function newToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * This browser's seeker id, made once and kept.
 * @param {import('./storage.js').SafeStorage} storage
 */
export function seekerId(storage) {
  const kept = storage.get(SEEKER_KEY);
  if (kept && /^[A-Za-z0-9_-]{8,64}$/.test(kept)) return kept;
  const made = newToken();
  storage.set(SEEKER_KEY, made);
  return made;
}

/** Whether two time controls are the same (60 is 60+0). @param {TimeControl | null} a @param {TimeControl | null} b */
export function sameClock(a, b) {
  if (!a || !b) return !a && !b;
  if ('days' in a || 'days' in b) return 'days' in a && 'days' in b && a.days === b.days;
  return a.initial === b.initial && (a.increment ?? 0) === (b.increment ?? 0);
}

/**
 * The lobby as shown: every open seek but this page's own (one of its rules and clock:
 * another seeker's would have been paired with it already).
 * @param {OpenSeek[]} seeks @param {{ variant: string, clock: TimeControl | null } | null} mine
 */
export function othersSeeks(seeks, mine) {
  if (!mine) return seeks;
  let skipped = false;
  return seeks.filter((s) => {
    if (!skipped && s.variant === mine.variant && sameClock(s.clock, mine.clock)) {
      skipped = true;
      return false;
    }
    return true;
  });
}

/**
 * @typedef {object} Seeking  this page's seek in flight
 * @property {string} id
 * @property {string} variant
 * @property {TimeControl | null} clock
 * @property {AbortController} abort
 */

/** @type {Seeking | null} */
let seeking = null;
/** @type {OpenSeek[]} */
let lastSeeks = [];

/** A time control in words. @param {App} app @param {TimeControl | null} clock */
function clockWords(app, clock) {
  const { key, params } = controlText(clock);
  return app.page.t(key, params);
}

/** Withdraws this page's seek: the held request is aborted and the seek deleted. */
function withdraw() {
  const s = seeking;
  seeking = null;
  if (!s) return;
  s.abort.abort();
  // keepalive: the withdrawal goes out even while the page closes
  fetch(`/api/pair/${encodeURIComponent(s.id)}`, { method: 'DELETE', keepalive: true }).catch(() => {});
}

/**
 * Seeks an opponent for `variant` on `clock`; on a pairing, takes the seat and opens the
 * room as "Play with a friend" does.
 * @param {App} app @param {string} variant @param {TimeControl | null} clock
 */
export async function seek(app, variant, clock) {
  withdraw();
  const me = { id: newToken(), variant, clock, abort: new AbortController() };
  seeking = me;
  app.setNotice(null);
  view(app);
  try {
    const res = await fetch('/api/pair', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ variant, clock, seeker: seekerId(app.storage), seek: me.id }),
      signal: me.abort.signal,
    });
    const body = await res.json().catch(() => ({}));
    if (seeking !== me) return; // cancelled, or replaced by another press
    seeking = null;
    if (res.status === 201 && body.outcome === PAIR_OUTCOMES.PAIRED) {
      const seat = { seat: body.seat, key: body.key };
      app.page.seats.set(body.room, seat);
      rememberSeat(app.storage, body.room, seat);
      history.pushState(null, '', `/r/${body.room}`);
      await app.route();
      app.page.board?.focus();
      return;
    }
    if (res.ok && body.outcome === PAIR_OUTCOMES.NO_OPPONENT) app.setNotice('lobby.noOpponent');
    else if (body.code === ERROR_CODES.SEEK_WITHDRAWN) app.setNotice('lobby.withdrawn');
    else app.setNotice(null, app.page.t('lobby.error', { message: body.message ?? res.status }));
  } catch (error) {
    if (seeking !== me) return; // aborted by Cancel
    seeking = null;
    app.setNotice(null, app.page.t('lobby.error', { message: String(/** @type {Error} */ (error)?.message ?? error) }));
  } finally {
    view(app);
  }
}

/** Whether the start screen is in view and the network up (the lobby is read only then). */
const inView = () => !$('start').hidden && document.visibilityState === 'visible' && navigator.onLine !== false;

/** Reads the lobby once. @param {App} app */
async function refresh(app) {
  try {
    const res = await fetch('/api/seeks', { cache: 'no-store' });
    if (!res.ok) return;
    const body = await res.json();
    lastSeeks = Array.isArray(body?.seeks) ? body.seeks : [];
  } catch {
    // offline or the server away: keep the last list
  }
  view(app);
}

/**
 * Draws the presets, the waiting line and the lobby.
 * @param {App} app
 */
export function view(app) {
  const { t } = app.page;
  const rules = chosenRules(app.storage);
  const presets = $('lobby-presets');
  if (presets.childElementCount !== PAIR_PRESETS.length) {
    presets.replaceChildren(
      ...PAIR_PRESETS.map((p) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'lobby-preset';
        b.dataset.preset = p.id;
        b.addEventListener('click', () => seek(app, chosenRules(app.storage), /** @type {TimeControl | null} */ (p.clock)));
        return b;
      }),
    );
  }
  for (const b of Array.from(presets.children)) {
    const el = /** @type {HTMLButtonElement} */ (b);
    el.textContent = t(`clock.preset.${el.dataset.preset}`);
  }
  $('lobby-rules').textContent = describeRules(rules, t);

  const waiting = $('lobby-waiting');
  waiting.hidden = !seeking;
  if (seeking) {
    $('lobby-waiting-text').textContent = t('lobby.waiting', {
      game: describeRules(seeking.variant, t),
      clock: clockWords(app, seeking.clock),
    });
  }

  const shown = othersSeeks(lastSeeks, seeking);
  $('lobby-empty').hidden = shown.length > 0;
  $('lobby-list').replaceChildren(
    ...shown.map((s) => {
      const li = document.createElement('li');
      const game = describeRules(s.variant, t);
      const clock = clockWords(app, s.clock);
      const what = document.createElement('span');
      what.className = 'lobby-what';
      what.textContent = `${game} · ${clock}`;
      const since = document.createElement('span');
      since.className = 'lobby-since';
      since.textContent = t('lobby.waited', { seconds: Math.floor((s.waiting ?? 0) / 1000) });
      const take = document.createElement('button');
      take.type = 'button';
      take.className = 'primary';
      take.textContent = t('lobby.accept');
      take.setAttribute('aria-label', t('lobby.acceptLabel', { game, clock }));
      take.addEventListener('click', () => seek(app, s.variant, s.clock));
      li.append(what, since, take);
      return li;
    }),
  );
}

/**
 * Binds "Play online"; once, at start-up. The lobby is read every few seconds while the
 * start screen is in view (at once when it comes into view); a seek is withdrawn when the
 * person leaves the start screen or the page.
 * @param {App} app
 */
export function bindLobby(app) {
  $button('lobby-cancel').addEventListener('click', () => {
    withdraw();
    view(app);
  });
  let wasInView = false;
  const tick = () => {
    const now = inView();
    if (now) refresh(app);
    wasInView = now;
  };
  setInterval(tick, LOBBY_EVERY_MS);
  new MutationObserver(() => {
    // Leaving the start screen gives the search up; coming back reads the lobby at once.
    if ($('start').hidden && seeking) {
      withdraw();
      view(app);
    }
    if (inView() && !wasInView) tick();
  }).observe($('start'), { attributes: true, attributeFilter: ['hidden'] });
  document.addEventListener('visibilitychange', () => {
    if (inView() && !wasInView) tick();
  });
  window.addEventListener('pagehide', withdraw);
  view(app);
  if (inView()) tick();
}
