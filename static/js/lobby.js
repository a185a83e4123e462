// Owns "Play online" on the start screen: quick pairing (`POST /api/pair`, held until a
// seeker with the same rules and clock arrives) from one button per time control, for the
// rule set chosen above; "Waiting for an opponent…" with the time waited and Cancel, and in
// its place the search's end when nobody came (Keep waiting, Invite a friend, Play the
// computer); and the lobby of open seeks (`GET /api/seeks`, read every few seconds while
// the start screen is in view, never this page's own), each taken with one click, a
// signed-in seeker's named with the rating. Rated or casual: rated only for a signed-in
// person (signed-in.js) and on a clock; otherwise the choice is shown disabled, with a
// link to sign in. The time
// controls and their words are clock.js's; the rule set is variant.js's. docs/PROTOCOL.md
// says what the server does.

import { seekerText } from './cards-logic.js';
import { PRESETS, controlText } from './clock.js';
import { $, $button, $input } from './dom.js';
import { signedIn } from './signed-in.js';
import { rememberSeat } from './storage.js';
import { chosenRules, describeRules } from './variant.js';
import { ERROR_CODES, PAIR_OUTCOMES } from './wire.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./clock.js').TimeControl} TimeControl */
/** @typedef {{ variant: string, clock: TimeControl | null, waiting: number, rated?: boolean, name?: string, rating?: number, provisional?: boolean }} OpenSeek  one row of `GET /api/seeks` */

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
 * @typedef {object} OwnSeek  a seek this page made, as far as the lobby is concerned
 * @property {string} variant
 * @property {TimeControl | null} clock
 * @property {boolean} [rated]
 * @property {number} until  page time (ms) it ended; Infinity while it is open
 */

/** How many of this page's ended seeks the lobby keeps hiding (older ones are long gone). */
const OWN_KEPT = 8;

/**
 * The lobby as shown: every open seek but this page's own. A listed seek of the pool
 * (rules and clock) of one of this page's seeks, begun before that seek ended, is that
 * seek: another seeker's would have been paired with it, and a newer seek of this browser
 * withdraws its older one. So a list read a moment before this page's seek ended (the
 * lobby is read every few seconds) never offers the person their own expired seek, while
 * someone who comes to that pool afterwards is listed. When a seek began is judged from
 * when the list was read (`readAt`, page time) less how long it had waited: never earlier
 * than it really began.
 * @param {OpenSeek[]} seeks @param {number} readAt @param {OwnSeek[]} own
 */
export function othersSeeks(seeks, readAt, own) {
  return seeks.filter((s) => {
    const began = readAt - (s.waiting ?? 0);
    return !own.some(
      (m) => m.variant === s.variant && sameClock(m.clock, s.clock) && !!m.rated === !!s.rated && began <= m.until,
    );
  });
}

/** Time waited as the waiting line shows it: `0:07`, `1:00`. @param {number} ms */
export function elapsedText(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * @typedef {object} Seeking  this page's seek in flight
 * @property {string} id
 * @property {string} variant
 * @property {TimeControl | null} clock
 * @property {boolean} rated
 * @property {number} since  page time it was sent
 * @property {AbortController} abort
 * @property {OwnSeek} own  its entry in `own`
 */

/**
 * @typedef {object} Ended  how this page's last search ended without a room, shown where
 *   the waiting line was until the next search
 * @property {string} variant
 * @property {TimeControl | null} clock
 * @property {boolean} rated
 * @property {number} waited  ms
 * @property {string | null} key  i18n key of what happened (`lobby.noOpponent`, `lobby.withdrawn`)
 * @property {string | null} message  or the failure's own words (`lobby.error`)
 */

/** @type {Seeking | null} */
let seeking = null;
/** @type {Ended | null} */
let ended = null;
/** @type {OwnSeek[]} */
const own = [];
/** @type {OpenSeek[]} */
let lastSeeks = [];
/** Page time the lobby was last read. */
let lastRead = 0;
/** @type {ReturnType<typeof setInterval> | null} */
let ticker = null;

/** A time control in words. @param {App} app @param {TimeControl | null} clock */
function clockWords(app, clock) {
  const { key, params } = controlText(clock);
  return app.page.t(key, params);
}

/** The search in flight is over (paired, withdrawn, failed): its seek is no longer open. */
function closeSeek() {
  const s = seeking;
  seeking = null;
  if (ticker !== null) clearInterval(ticker);
  ticker = null;
  if (s) s.own.until = Date.now();
  return s;
}

/** Withdraws this page's seek: the held request is aborted and the seek deleted. */
function withdraw() {
  const s = closeSeek();
  if (!s) return;
  s.abort.abort();
  // keepalive: the withdrawal goes out even while the page closes
  fetch(`/api/pair/${encodeURIComponent(s.id)}`, { method: 'DELETE', keepalive: true }).catch(() => {});
}

/**
 * Seeks an opponent for `variant` on `clock`; on a pairing, takes the seat and opens the
 * room as "Play with a friend" does. Nobody coming, or a failure, is said where the
 * waiting line was, with what to do next.
 * @param {App} app @param {string} variant @param {TimeControl | null} clock @param {boolean} [rated]
 */
export async function seek(app, variant, clock, rated = false) {
  withdraw();
  ended = null;
  const mine = { variant, clock, rated, until: Infinity };
  own.push(mine);
  if (own.length > OWN_KEPT) own.shift();
  const me = { id: newToken(), variant, clock, rated, since: Date.now(), abort: new AbortController(), own: mine };
  seeking = me;
  ticker = setInterval(() => viewElapsed(app), 1000);
  app.setNotice(null);
  view(app);
  /** @param {string | null} key @param {string | null} [message] */
  const end = (key, message = null) => {
    ended = { variant, clock, rated, waited: Date.now() - me.since, key, message };
  };
  try {
    const res = await fetch('/api/pair', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ variant, clock, rated, seeker: seekerId(app.storage), seek: me.id }),
      signal: me.abort.signal,
    });
    const body = await res.json().catch(() => ({}));
    if (seeking !== me) return; // cancelled, or replaced by another press
    closeSeek();
    if (res.status === 201 && body.outcome === PAIR_OUTCOMES.PAIRED) {
      // The seat remembers it came from quick pairing, so a finished round offers another search.
      const seat = { seat: body.seat, key: body.key, paired: { variant, clock, rated } };
      app.page.seats.set(body.room, seat);
      rememberSeat(app.storage, body.room, seat);
      history.pushState(null, '', `/r/${body.room}`);
      await app.route();
      app.focusPlay();
      return;
    }
    if (res.ok && body.outcome === PAIR_OUTCOMES.NO_OPPONENT) end('lobby.noOpponent');
    else if (body.code === ERROR_CODES.SEEK_WITHDRAWN) end('lobby.withdrawn');
    else end(null, String(body.message ?? res.status));
  } catch (error) {
    if (seeking !== me) return; // aborted by Cancel
    closeSeek();
    end(null, String(/** @type {Error} */ (error)?.message ?? error));
  } finally {
    if (!seeking) afterSearch(app);
  }
}

/**
 * A search ended without a room: the lobby is read again at once (its list may hold the
 * page's own seek), and the keyboard goes to "Keep waiting" if it was in the lobby.
 * @param {App} app
 */
function afterSearch(app) {
  const focusHere = document.activeElement === document.body || !!document.activeElement?.closest('#lobby');
  view(app);
  if (ended && !$('start').hidden) {
    $('lobby-waiting').scrollIntoView({ block: 'nearest' });
    if (focusHere) $button('lobby-again').focus({ preventScroll: true });
  }
  if (inView()) refresh(app);
}

/**
 * A new search with the settings of a finished paired round ("Find another opponent"):
 * the start screen, its waiting line in view.
 * @param {App} app @param {{ variant: string, clock: TimeControl | null, rated?: boolean }} settings
 */
export async function seekAgain(app, settings) {
  history.pushState(null, '', '/');
  await app.route();
  seek(app, settings.variant, settings.clock, !!settings.rated && !!signedIn());
  $('lobby').scrollIntoView({ block: 'nearest' });
  $button('lobby-cancel').focus();
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
    lastRead = Date.now();
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
        b.addEventListener('click', () => seek(app, chosenRules(app.storage), /** @type {TimeControl | null} */ (p.clock), ratedChosen()));
        return b;
      }),
    );
  }
  viewKind();
  const rated = ratedChosen();
  for (const b of Array.from(presets.children)) {
    const el = /** @type {HTMLButtonElement} */ (b);
    el.textContent = t(`clock.preset.${el.dataset.preset}`);
    // A rated game needs a clock (the server refuses an untimed one).
    el.disabled = rated && PAIR_PRESETS.find((p) => p.id === el.dataset.preset)?.clock === null;
  }
  $('lobby-rules').textContent = describeRules(rules, t);

  viewSearch(app);

  const shown = othersSeeks(lastSeeks, lastRead, own);
  $('lobby-empty').hidden = shown.length > 0;
  $('lobby-list').replaceChildren(
    ...shown.map((s) => {
      const li = document.createElement('li');
      const game = describeRules(s.variant, t);
      const clock = clockWords(app, s.clock);
      const what = document.createElement('span');
      what.className = 'lobby-what';
      what.textContent = `${game} · ${clock}`;
      if (s.rated) {
        const tag = document.createElement('span');
        tag.className = 'lobby-rated';
        tag.textContent = t('lobby.ratedSeek');
        what.append(' ', tag);
      }
      const who = seekerText(s);
      const seeker = document.createElement('span');
      seeker.className = 'lobby-who';
      seeker.hidden = !who;
      seeker.textContent = who ?? '';
      const since = document.createElement('span');
      since.className = 'lobby-since';
      since.textContent = t('lobby.waited', { seconds: Math.floor((s.waiting ?? 0) / 1000) });
      const take = document.createElement('button');
      take.type = 'button';
      take.className = 'primary';
      take.textContent = t('lobby.accept');
      const kind = s.rated ? t('lobby.ratedSeek') : t('lobby.casualSeek');
      take.setAttribute('aria-label', t(who ? 'lobby.acceptWhoLabel' : 'lobby.acceptLabel', { game, clock, kind, who: who ?? '' }));
      // A rated seek is only for a signed-in person (the hint above says how).
      take.disabled = !!s.rated && !signedIn();
      take.addEventListener('click', () => seek(app, s.variant, s.clock, !!s.rated));
      li.append(what, seeker, since, take);
      return li;
    }),
  );
}

/** Whether Rated is chosen (and may be: signed in). */
function ratedChosen() {
  return !!signedIn() && $input('lobby-rated').checked;
}

/** Rated or casual: Rated only for a signed-in person, else disabled beside a sign-in link. */
function viewKind() {
  const rated = $input('lobby-rated');
  const can = !!signedIn();
  rated.disabled = !can;
  if (!can && rated.checked) {
    rated.checked = false;
    /** @type {HTMLInputElement} */ (document.querySelector('input[name="lobby-kind"][value="casual"]')).checked = true;
  }
  $('lobby-rated-hint').hidden = can;
}

/**
 * The search: while it waits, what it waits for, the time waited and Cancel; once it
 * ended without a room, what happened and what to do next, in the same place.
 * @param {App} app
 */
function viewSearch(app) {
  const { t } = app.page;
  const box = $('lobby-waiting');
  const shown = seeking ?? ended;
  box.hidden = !shown;
  if (!shown) return;
  const words = { game: describeRules(shown.variant, t), clock: clockWords(app, shown.clock) };
  let text;
  if (seeking) text = t(seeking.rated ? 'lobby.waitingRated' : 'lobby.waiting', words);
  else if (ended?.key) text = t(ended.key, { ...words, time: elapsedText(ended.waited) });
  else text = t('lobby.error', { message: ended?.message ?? '' });
  const line = $('lobby-waiting-text');
  // Only a changed text is written: the line is a live region.
  if (line.textContent !== text) line.textContent = text;
  box.classList.toggle('ended', !seeking);
  $('lobby-cancel').hidden = !seeking;
  $('lobby-after').hidden = !!seeking;
  viewElapsed(app);
}

/** The time waited, beside the waiting line (a timer: not read out every second). @param {App} app */
function viewElapsed(app) {
  const el = $('lobby-elapsed');
  el.hidden = !seeking;
  if (!seeking) return;
  const time = elapsedText(Date.now() - seeking.since);
  el.textContent = time;
  el.setAttribute('aria-label', app.page.t('lobby.elapsed', { time }));
}

/**
 * Binds "Play online"; once, at start-up. The lobby is read every few seconds while the
 * start screen is in view (at once when it comes into view); a seek is withdrawn when the
 * person leaves the start screen or the page. `inviteFriend` opens a room of the given
 * rules and clock for a friend (online.js's "Play with a friend", which main.js loads on
 * first use: the lobby is on the first screen, online play is not).
 * @param {App} app
 * @param {{ inviteFriend: (settings: { variant: string, clock: TimeControl | null }) => Promise<unknown> }} hooks
 */
export function bindLobby(app, { inviteFriend }) {
  $button('lobby-cancel').addEventListener('click', () => {
    withdraw();
    view(app);
  });
  $button('lobby-again').addEventListener('click', () => {
    if (ended) seek(app, ended.variant, ended.clock, ended.rated && !!signedIn());
  });
  for (const input of Array.from(document.querySelectorAll('input[name="lobby-kind"]'))) {
    input.addEventListener('change', () => view(app));
  }
  $button('lobby-invite').addEventListener('click', () => {
    if (ended) inviteFriend({ variant: ended.variant, clock: ended.clock });
  });
  $button('lobby-computer').addEventListener('click', async () => {
    history.pushState(null, '', '/#computer');
    await app.route();
    app.focusPlay();
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
