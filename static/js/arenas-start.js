// Owns the start screen's arenas: the list (GET /api/arenas, read while the start screen
// is in view: running now, starting soon, recently finished, each a link to its page)
// and, for a signed-in player (the list's `me`), the form that creates one
// (POST /api/arenas) and then opens its page.

import { ARENA_CLOCKS, ARENA_RULES, arenaGroups, arenaHref, clockName, createBody, localInput, whenText } from './arena-logic.js';
import { arenaTranslator } from './arena-text.js';
import { $ } from './dom.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./arena-logic.js').Arena} Arena */

/** How often the list is read while the start screen is in view. */
const EVERY_MS = 15_000;

const state = {
  /** @type {ReturnType<typeof arenaGroups> | null} */ groups: null,
  failed: false,
  /** The signed-in name, null for a visitor. @type {string | null} */ me: null,
  /** The language the static words were last written in. @type {string | null} */ lang: null,
  /** The form's note: an i18n key. @type {string | null} */ error: null,
  busy: false,
};

const inView = () => !$('start').hidden && document.visibilityState === 'visible' && navigator.onLine !== false;

/** @param {App} app */
async function refresh(app) {
  try {
    const res = await fetch('/api/arenas', { cache: 'no-store' });
    if (!res.ok) throw new Error(String(res.status));
    const body = await res.json();
    state.groups = arenaGroups(body);
    state.me = typeof body?.me === 'string' ? body.me : null;
    state.failed = false;
  } catch {
    state.failed = !state.groups;
  }
  viewArenas(app);
}

/** @param {string} tag @param {string} [className] @param {string} [text] */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * One arena of the list: its name (the link), its game, clock and players, and when.
 * @param {Arena} a @param {'running' | 'upcoming' | 'finished'} group @param {import('./types.js').Translate} t @param {string} lang
 */
function entry(a, group, t, lang) {
  const li = el('li');
  const link = /** @type {HTMLAnchorElement} */ (el('a', 'arena-link', a.name));
  link.href = arenaHref(a.id);
  const now = Date.now();
  const when =
    group === 'running' ? t('arenas.endsAt', { time: whenText(a.ends, lang, now) })
    : group === 'upcoming' ? t('arenas.startsAt', { time: whenText(a.starts, lang, now) })
    : t('arenas.endedAt', { time: whenText(a.ends, lang, now) });
  const meta = el('span', 'lobby-since', `${t('arenas.meta', { rules: t(`variant.${a.variant.split('+')[0]}`), clock: clockName(a.clock), players: t('arena.players.#', { n: a.players }) })} · ${when}`);
  li.append(link, meta);
  return li;
}

/** Fills a list with options, keeping its choice. @param {HTMLSelectElement} list @param {string[]} values @param {(v: string) => string} word */
function fill(list, values, word) {
  const chosen = list.value;
  list.replaceChildren(
    ...values.map((v) => {
      const o = /** @type {HTMLOptionElement} */ (el('option', '', word(v)));
      o.value = v;
      return o;
    }),
  );
  if (values.includes(chosen)) list.value = chosen;
}

/**
 * Draws the list and the form (the start screen's redraw calls it).
 * @param {App} app
 */
export function viewArenas(app) {
  const lang = app.page.lang;
  const t = arenaTranslator(lang);
  if (state.lang !== lang) {
    state.lang = lang;
    for (const node of /** @type {NodeListOf<HTMLElement>} */ ($('arenas').querySelectorAll('[data-at]'))) node.textContent = t(node.dataset.at ?? '');
    fill(/** @type {HTMLSelectElement} */ ($('arena-form-rules')), [...ARENA_RULES], (v) => t(`variant.${v}`));
    fill(/** @type {HTMLSelectElement} */ ($('arena-form-clock')), ARENA_CLOCKS.map((c) => c.id), (v) => v);
  }
  const g = state.groups;
  const lists = $('arenas-lists');
  /** @type {HTMLElement[]} */
  const parts = [];
  for (const group of /** @type {const} */ (['running', 'upcoming', 'finished'])) {
    const arenas = g?.[group] ?? [];
    if (!arenas.length) continue;
    const list = el('ul', 'lobby-list arenas-list');
    list.append(...arenas.slice(0, 5).map((a) => entry(a, group, t, lang)));
    parts.push(el('h3', '', t(`arenas.${group}`)), list);
  }
  lists.replaceChildren(...parts);
  const empty = !!g && !g.running.length && !g.upcoming.length && !g.finished.length;
  $('arenas-status').textContent = state.failed ? t('arenas.failed') : empty ? t('arenas.none') : '';
  $('arenas-sign-in').hidden = !g || !!state.me;
  $('arenas-create').hidden = !state.me;
  $('arena-form-at').hidden = !(/** @type {HTMLInputElement} */ ($('arena-form-later')).checked);
  $('arena-form-at-label').hidden = $('arena-form-at').hidden;
  $('arena-form-error').textContent = state.error ? t(state.error) : state.busy ? t('arena.create.working') : '';
  /** @type {HTMLButtonElement} */ ($('arena-form-submit')).disabled = state.busy;
}

/** @param {App} app */
async function create(app) {
  const value = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ ($(id)).value;
  const made = createBody(
    {
      name: value('arena-form-name'),
      rules: value('arena-form-rules'),
      clock: value('arena-form-clock'),
      minutes: value('arena-form-minutes'),
      start: /** @type {HTMLInputElement} */ ($('arena-form-later')).checked ? 'later' : 'now',
      at: value('arena-form-at'),
      rated: /** @type {HTMLInputElement} */ ($('arena-form-rated')).checked,
    },
    Date.now(),
  );
  if ('error' in made) {
    state.error = made.error;
    viewArenas(app);
    return;
  }
  state.error = null;
  state.busy = true;
  viewArenas(app);
  try {
    const res = await fetch('/api/arenas', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(made.body) });
    const body = await res.json().catch(() => ({}));
    if (res.status === 201 && typeof body.id === 'string') {
      location.assign(arenaHref(body.id));
      return;
    }
    const key = `arena.error.${body.code}`;
    state.error = arenaTranslator(app.page.lang)(key) !== key ? key : 'arena.error.network';
  } catch {
    state.error = 'arena.error.network';
  } finally {
    state.busy = false;
    viewArenas(app);
  }
}

/**
 * Reads the list while the start screen is in view, and binds the form; once.
 * @param {App} app
 */
export function bindArenas(app) {
  $('arena-form').addEventListener('submit', (event) => {
    event.preventDefault();
    create(app);
  });
  for (const id of ['arena-form-now', 'arena-form-later']) $(id).addEventListener('change', () => viewArenas(app));
  // "Later" starts at the next full hour unless another time is typed.
  $('arena-form-later').addEventListener('change', () => {
    const at = /** @type {HTMLInputElement} */ ($('arena-form-at'));
    if (!at.value) at.value = localInput(Math.ceil((Date.now() + 60_000) / 3_600_000) * 3_600_000);
  });
  let wasInView = false;
  const tick = () => {
    const now = inView();
    if (now) refresh(app);
    wasInView = now;
  };
  setInterval(tick, EVERY_MS);
  new MutationObserver(() => {
    if (inView() && !wasInView) tick();
    else if (!inView()) wasInView = false;
  }).observe($('start'), { attributes: true, attributeFilter: ['hidden'] });
  document.addEventListener('visibilitychange', () => {
    if (inView() && !wasInView) tick();
  });
  viewArenas(app);
  if (inView()) tick();
}
