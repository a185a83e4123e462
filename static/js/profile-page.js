// Wiring of a player's profile, /@/{name}: the name and each rating by game and speed
// (GET /api/players/{name}), or "no such player".

import { profileName, ratingRows, shownRating } from './account-logic.js';
import { accountTranslator } from './account-text.js';
import { pickLanguage } from './i18n.js';
import { safeStorage } from './storage.js';
import { bindThemeSwitch } from './theme.js';

/** @typedef {import('./account-logic.js').RatingRow} RatingRow */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const storage = safeStorage(() => window.localStorage);
const theme = bindThemeSwitch(/** @type {HTMLButtonElement} */ ($('theme')), storage);
let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = accountTranslator(lang);

const state = {
  /** The name as the server spells it, once known. @type {string | null} */ name: profileName(location.pathname),
  /** @type {'loading' | 'shown' | 'missing' | 'failed'} */ phase: 'loading',
  /** @type {RatingRow[]} */ rows: [],
};

/** A rule set's name for people: the variant's, with any options after it. @param {string} rules */
function gameName(rules) {
  const [base, ...options] = rules.split('+');
  const name = t(`variant.${base}`);
  return options.length ? `${name} (${options.join(', ')})` : name;
}

function draw() {
  const missing = state.phase === 'missing' || !state.name;
  $('profile-name').textContent = missing ? '' : state.name ?? '';
  document.title = missing ? t('profile.doc.notFound') : t('profile.doc.title', { name: state.name ?? '' });
  $('profile-status').textContent =
    missing ? t('profile.notFound') : state.phase === 'failed' ? t('account.error.network') : '';
  $('profile-ratings').hidden = state.phase !== 'shown';
  $('profile-none').hidden = state.rows.length > 0;
  $('profile-table').hidden = state.rows.length === 0;
  const body = /** @type {HTMLTableSectionElement} */ ($('profile-table').querySelector('tbody'));
  body.replaceChildren(...state.rows.map((row) => {
    const tr = document.createElement('tr');
    const cell = (/** @type {string} */ text, /** @type {string} */ cls = '') => {
      const td = document.createElement('td');
      td.textContent = text;
      if (cls) td.className = cls;
      tr.append(td);
      return td;
    };
    cell(gameName(row.rules));
    cell(t(`speed.${row.speed}`));
    const rating = cell(`${shownRating(row)} `, 'num');
    const rd = document.createElement('span');
    rd.className = 'provisional';
    rd.textContent = row.provisional ? `${t('profile.rd', { rd: row.rd })} · ${t('profile.provisional')}` : t('profile.rd', { rd: row.rd });
    rating.append(rd);
    cell(String(row.games), 'num');
    return tr;
  }));
}

function applyLanguage() {
  t = accountTranslator(lang);
  document.documentElement.lang = lang;
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-pt]'))) node.textContent = t(node.dataset.pt ?? '');
  $('lang').lang = lang === 'en' ? 'ru' : 'en';
  theme.refresh((next) => t(next === 'light' ? 'theme.toLight' : 'theme.toDark'));
  draw();
}

async function load() {
  if (!state.name) {
    state.phase = 'missing';
    return;
  }
  try {
    const res = await fetch(`/api/players/${encodeURIComponent(state.name)}`);
    if (res.status === 404) {
      state.phase = 'missing';
      return;
    }
    const json = await res.json();
    state.name = String(json.name);
    state.rows = ratingRows(json.ratings);
    state.phase = 'shown';
  } catch {
    state.phase = 'failed';
  }
}

$('lang').addEventListener('click', () => {
  lang = lang === 'en' ? 'ru' : 'en';
  storage.set('lang', lang);
  applyLanguage();
});
applyLanguage();
load().finally(() => {
  draw();
  document.body.dataset.ready = 'true';
});
