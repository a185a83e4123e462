// Wiring of the leaderboard, /players: one rule set and speed at a time (chosen in two
// lists, kept in the address), its best established ratings (GET /api/players?rules=&speed=)
// as a table linking to each profile.

import { accountTranslator } from './account-text.js';
import { pickLanguage } from './i18n.js';
import { BOARD_RULES, BOARD_SPEEDS, boardChoice, boardSearch, leaderRows, profileHref } from './players-logic.js';
import { safeStorage } from './storage.js';
import { bindThemeSwitch } from './theme.js';

/** @typedef {import('./players-logic.js').LeaderRow} LeaderRow */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const storage = safeStorage(() => window.localStorage);
const theme = bindThemeSwitch(/** @type {HTMLButtonElement} */ ($('theme')), storage);
let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = accountTranslator(lang);
const rulesList = /** @type {HTMLSelectElement} */ ($('board-rules'));
const speedList = /** @type {HTMLSelectElement} */ ($('board-speed'));

const state = {
  choice: boardChoice(location.search),
  /** @type {'loading' | 'shown' | 'failed'} */ phase: 'loading',
  /** @type {LeaderRow[]} */ rows: [],
};

/** Fills a list with options (values and words), keeping its choice. */
function fill(/** @type {HTMLSelectElement} */ list, /** @type {string[]} */ values, /** @type {(v: string) => string} */ word, /** @type {string} */ chosen) {
  list.replaceChildren(...values.map((v) => {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = word(v);
    o.selected = v === chosen;
    return o;
  }));
}

function draw() {
  const title = `${t(`variant.${state.choice.rules}`)} · ${t(`speed.${state.choice.speed}`)}`;
  document.title = t('board.doc.title', { board: title });
  fill(rulesList, BOARD_RULES, (v) => t(`variant.${v}`), state.choice.rules);
  fill(speedList, BOARD_SPEEDS, (v) => t(`speed.${v}`), state.choice.speed);
  $('board-caption').textContent = title;
  $('board-status').textContent =
    state.phase === 'failed' ? t('account.error.network')
    : state.phase === 'loading' ? t('account.working')
    : state.rows.length === 0 ? t('board.none') : '';
  const table = $('board-table');
  table.hidden = state.phase !== 'shown' || state.rows.length === 0;
  const body = /** @type {HTMLTableSectionElement} */ (table.querySelector('tbody'));
  body.replaceChildren(...state.rows.map((row) => {
    const tr = document.createElement('tr');
    const rank = document.createElement('td');
    rank.className = 'num';
    rank.textContent = String(row.rank);
    const player = document.createElement('th');
    player.scope = 'row';
    const link = document.createElement('a');
    link.href = profileHref(row.name);
    link.textContent = row.name;
    player.append(link);
    const rating = document.createElement('td');
    rating.className = 'num';
    rating.textContent = `${row.rating} `;
    const rd = document.createElement('span');
    rd.className = 'provisional';
    rd.textContent = t('profile.rd', { rd: row.rd });
    rating.append(rd);
    const games = document.createElement('td');
    games.className = 'num';
    games.textContent = String(row.games);
    tr.append(rank, player, rating, games);
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

let asked = 0;
async function load() {
  const mine = ++asked;
  state.phase = 'loading';
  draw();
  try {
    const res = await fetch(`/api/players${boardSearch(state.choice)}`);
    if (!res.ok) throw new Error(String(res.status));
    const rows = leaderRows(await res.json());
    if (mine !== asked) return;
    state.rows = rows;
    state.phase = 'shown';
  } catch {
    if (mine !== asked) return;
    state.phase = 'failed';
  }
  draw();
}

function choose() {
  state.choice = { rules: rulesList.value, speed: speedList.value };
  history.replaceState(null, '', `/players${boardSearch(state.choice)}`);
  load();
}
rulesList.addEventListener('change', choose);
speedList.addEventListener('change', choose);
$('board-form').addEventListener('submit', (e) => e.preventDefault());
$('lang').addEventListener('click', () => {
  lang = lang === 'en' ? 'ru' : 'en';
  storage.set('lang', lang);
  applyLanguage();
});
applyLanguage();
load().finally(() => {
  document.body.dataset.ready = 'true';
});
