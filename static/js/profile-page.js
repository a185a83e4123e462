// Wiring of a player's profile, /@/{name}: the name and each rating by game and speed,
// the results (GET /api/players/{name}), a chart of a rating over time (our own inline
// SVG, with a table beside it as its text alternative) and the game list linking to
// review, paged (GET /api/players/{name}/games), or "no such player".

import { profileName, ratingRows, shownRating } from './account-logic.js';
import { accountTranslator } from './account-text.js';
import { pickLanguage } from './i18n.js';
import { changeText, chartPath, clockText, gameRows, ratingSeries } from './players-logic.js';
import { safeStorage } from './storage.js';
import { bindThemeSwitch } from './theme.js';

/** @typedef {import('./account-logic.js').RatingRow} RatingRow */
/** @typedef {import('./players-logic.js').GameRow} GameRow */

const SVG = 'http://www.w3.org/2000/svg';
/** Rounds the first page loads (the chart draws from the loaded rounds). */
const FIRST_PAGE = 100;

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const storage = safeStorage(() => window.localStorage);
const theme = bindThemeSwitch(/** @type {HTMLButtonElement} */ ($('theme')), storage);
let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = accountTranslator(lang);

const state = {
  /** The name as the server spells it, once known. @type {string | null} */ name: profileName(location.pathname),
  /** @type {'loading' | 'shown' | 'missing' | 'failed'} */ phase: 'loading',
  /** @type {RatingRow[]} */ rows: [],
  /** @type {{ win: number, draw: number, loss: number } | null} */ results: null,
  /** @type {GameRow[]} */ games: [],
  /** The next page's cursor. @type {string | null} */ next: null,
  /** The rating the chart shows, `rules speed`. @type {string} */ chart: '',
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
  drawResults();
  drawChart();
  drawGames();
}

/** The date of a round, in the page's language. @param {number} at */
function dateText(at) {
  return new Date(at).toLocaleDateString(lang === 'ru' ? 'ru-RU' : 'en-GB', { year: 'numeric', month: 'short', day: 'numeric' });
}

/** An opponent's name as shown: a name, the neutral name, or "anonymous". @param {string | null} o */
function opponentText(o) {
  return o === null ? t('profile.anonymous') : o === 'deleted' ? t('profile.deleted') : o;
}

function drawResults() {
  $('profile-results').hidden = state.phase !== 'shown' || !state.results;
  if (state.results) $('profile-results-text').textContent = t('profile.results.text', state.results);
}

function drawChart() {
  const boards = state.rows.filter((r) => ratingSeries(state.games, r.rules, r.speed).length > 1);
  $('profile-chart').hidden = state.phase !== 'shown' || boards.length === 0;
  if (boards.length === 0) return;
  if (!boards.some((r) => `${r.rules} ${r.speed}` === state.chart)) {
    state.chart = `${boards[0].rules} ${boards[0].speed}`;
  }
  const list = /** @type {HTMLSelectElement} */ ($('profile-chart-choice'));
  list.replaceChildren(...boards.map((r) => {
    const o = document.createElement('option');
    o.value = `${r.rules} ${r.speed}`;
    o.textContent = `${gameName(r.rules)} · ${t(`speed.${r.speed}`)}`;
    o.selected = o.value === state.chart;
    return o;
  }));
  const [rules, speed] = state.chart.split(' ');
  const series = ratingSeries(state.games, rules, speed);
  const { d, low, high, points } = chartPath(series, 320, 160, 20);
  const svg = $('profile-chart-svg');
  const el = (/** @type {string} */ name, /** @type {Record<string, string | number>} */ attrs) => {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    return node;
  };
  const label = (/** @type {number} */ y, /** @type {number} */ value) => {
    const text = el('text', { x: 2, y: y - 3, class: 'chart-label' });
    text.textContent = String(value);
    return text;
  };
  svg.replaceChildren(
    el('line', { x1: 20, y1: 20, x2: 300, y2: 20, class: 'chart-grid' }),
    el('line', { x1: 20, y1: 140, x2: 300, y2: 140, class: 'chart-grid' }),
    label(20, high),
    label(140, low),
    el('path', { d, class: 'chart-line' }),
    ...points.map((p) => el('circle', { cx: p.x, cy: p.y, r: 2.5, class: 'chart-dot' })),
  );
  $('profile-chart-caption').textContent = t('profile.chart.caption', {
    board: `${gameName(rules)} · ${t(`speed.${speed}`)}`,
    first: series[0].rating,
    last: series[series.length - 1].rating,
    n: series.length - 1,
    low,
    high,
  });
  const body = /** @type {HTMLTableSectionElement} */ ($('profile-chart-table').querySelector('tbody'));
  body.replaceChildren(...series.map((p) => {
    const tr = document.createElement('tr');
    const when = document.createElement('td');
    when.textContent = dateText(p.at);
    const rating = document.createElement('td');
    rating.className = 'num';
    rating.textContent = String(p.rating);
    tr.append(when, rating);
    return tr;
  }));
}

function drawGames() {
  $('profile-games').hidden = state.phase !== 'shown';
  $('profile-games-none').hidden = state.games.length > 0;
  $('profile-games-table').hidden = state.games.length === 0;
  $('profile-more').hidden = state.next === null;
  const body = /** @type {HTMLTableSectionElement} */ ($('profile-games-table').querySelector('tbody'));
  body.replaceChildren(...state.games.map((g) => {
    const tr = document.createElement('tr');
    const cell = (/** @type {string} */ text, /** @type {string} */ cls = '') => {
      const td = document.createElement('td');
      td.textContent = text;
      if (cls) td.className = cls;
      tr.append(td);
      return td;
    };
    cell(dateText(g.at));
    const opp = cell('');
    if (g.opponent !== null && g.opponent !== 'deleted') {
      const a = document.createElement('a');
      a.href = `/@/${encodeURIComponent(g.opponent)}`;
      a.textContent = g.opponent;
      opp.append(a);
    } else {
      opp.textContent = opponentText(g.opponent);
    }
    cell(t(`result.${g.result}`));
    cell(`${gameName(g.rules)} · ${clockText(g.clock) ?? t('profile.untimed')}`);
    if (g.rating) {
      const td = cell(`${Math.round(g.rating.after)} `, 'num');
      const change = document.createElement('span');
      change.className = g.rating.change > 0 ? 'change-up' : g.rating.change < 0 ? 'change-down' : '';
      change.textContent = `(${changeText(g.rating.change)})`;
      td.append(change);
    } else {
      cell(t('profile.casual'));
    }
    const review = cell('');
    if (g.review) {
      const a = document.createElement('a');
      a.href = g.review;
      a.textContent = t('profile.review.open');
      a.setAttribute('aria-label', t('profile.review.label', { opponent: opponentText(g.opponent) }));
      review.append(a);
    } else {
      review.textContent = t('profile.review.gone');
    }
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
    const r = json.results;
    state.results = r ? { win: Number(r.win) || 0, draw: Number(r.draw) || 0, loss: Number(r.loss) || 0 } : null;
    await loadGames(FIRST_PAGE);
    state.phase = 'shown';
  } catch {
    state.phase = 'failed';
  }
}

/** Loads a page of the game list after the rounds already loaded. @param {number} limit */
async function loadGames(limit) {
  const after = state.next ? `&before=${encodeURIComponent(state.next)}` : '';
  const res = await fetch(`/api/players/${encodeURIComponent(state.name ?? '')}/games?limit=${limit}${after}`);
  if (!res.ok) throw new Error(String(res.status));
  const json = await res.json();
  state.games = [...state.games, ...gameRows(json)];
  state.next = typeof json.next === 'string' ? json.next : null;
}

$('profile-more').addEventListener('click', async () => {
  const shown = state.games.length;
  try {
    await loadGames(20);
  } catch {
    $('profile-status').textContent = t('account.error.network');
    return;
  }
  draw();
  // Focus goes to the first new row's first link or cell, so a keyboard user goes on from there.
  const first = /** @type {HTMLElement | null} */ ($('profile-games-table').querySelectorAll('tbody tr')[shown]?.querySelector('a') ?? null);
  first?.focus();
});
$('profile-chart-choice').addEventListener('change', (e) => {
  state.chart = /** @type {HTMLSelectElement} */ (e.target).value;
  drawChart();
});
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
