// Wiring of an arena's page, /arena/{id}: the arena (GET /api/arenas/{id}), then its
// socket (GET /api/arenas/{id}/ws), which pushes the standings as they change and, to a
// signed-in player, each game as it is paired — the game then opens by itself, its seat
// key kept where the game page keeps seat keys (storage.js), never in the address. The
// countdown, the buttons (join, withdraw, pause, resume), the games to watch, the
// standings table and the podium are drawn from arena-logic.js; in screen-reader mode
// the standings' news is said in the live region.

import { arenaFromPath, arenaNews, clockName, controls, countdownText, mineIn, parseArena, parseRow, phaseAt, podium, roomHref, sheet, shownRows, STANDINGS_PAGE, topGames } from './arena-logic.js';
import { arenaTranslator } from './arena-text.js';
import { pickLanguage } from './i18n.js';
import { profileHref } from './players-logic.js';
import { rememberSeat, safeStorage, SCREEN_READER_KEY, seatFor } from './storage.js';
import { bindThemeSwitch } from './theme.js';

/** @typedef {import('./arena-logic.js').Arena} Arena */
/** @typedef {import('./arena-logic.js').ArenaStatus} ArenaStatus */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const storage = safeStorage(() => window.localStorage);
const theme = bindThemeSwitch(/** @type {HTMLButtonElement} */ ($('theme')), storage);
let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = arenaTranslator(lang);
const id = arenaFromPath(location.pathname);
const JSON_POST = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
/** The live region keeps this many recent announcements. */
const KEEP = 20;

const state = {
  /** @type {Arena | null} */ arena: null,
  /** @type {'loading' | 'shown' | 'missing' | 'failed'} */ phase: 'loading',
  /** The signed-in name (`me` of GET /api/arenas/{id}), null for a visitor. @type {string | null} */ me: null,
  /** The server's clock minus the page's (from the Date header), ms. */ offset: 0,
  /** A note under the buttons: an i18n key, or a refusal's words. @type {{ key: string, params?: Record<string, string | number>, tone?: string } | null} */ note: null,
  /** The socket is down and being opened again. */ offline: false,
  /** The room a `paired` message opens. @type {string | null} */ opening: null,
  busy: false,
  srOn: storage.get(SCREEN_READER_KEY) === 'on',
  /** The status last drawn (a change redraws the buttons). @type {ArenaStatus | null} */ shownStatus: null,
  /** The page of the standings in view, from 1. */ page: 1,
};

/** Says `text` in the live region (screen-reader mode). */
let said = 0;
function say(/** @type {string} */ text) {
  const region = $('announce');
  const p = document.createElement('p');
  p.textContent = text;
  region.append(p);
  region.dataset.count = String(++said);
  while (region.childElementCount > KEEP) region.firstElementChild?.remove();
}

/** @param {string} tag @param {string} [className] @param {string} [text] */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const rulesName = (/** @type {string} */ variant) => t(`variant.${variant.split('+')[0]}`);

function statusNow() {
  return state.arena ? phaseAt(state.arena, Date.now(), state.offset) : null;
}

function drawTimer() {
  const phase = statusNow();
  const box = $('arena-timer-box');
  box.hidden = !phase;
  if (!phase) return;
  $('arena-timer-label').textContent = t(phase.status === 'created' ? 'arena.startsIn' : phase.status === 'started' ? 'arena.endsIn' : 'arena.finished');
  $('arena-timer').textContent = phase.status === 'finished' ? '' : countdownText(phase.left);
  if (phase.status !== state.shownStatus) draw();
}

function drawControls(/** @type {Arena} */ arena, /** @type {ArenaStatus} */ status) {
  const c = controls(arena, status, state.me);
  for (const [key, button] of /** @type {const} */ ([
    ['join', 'arena-join'],
    ['rejoin', 'arena-rejoin'],
    ['resume', 'arena-resume'],
    ['pause', 'arena-pause'],
    ['withdraw', 'arena-withdraw'],
  ])) {
    const b = /** @type {HTMLButtonElement} */ ($(button));
    b.hidden = !c[key];
    b.disabled = state.busy;
  }
  $('arena-sign-in').hidden = !c.signIn;
  const mine = mineIn(arena, state.me);
  // A game of the player's in play whose seat this browser holds: a way back to it.
  const play = /** @type {HTMLAnchorElement} */ ($('arena-play'));
  const room = state.opening ?? mine?.playing ?? null;
  play.hidden = !room || !seatFor(storage, room);
  if (room) play.href = roomHref(room);
  const stateKey =
    status === 'finished' ? 'arena.state.over'
    : !mine ? (state.me ? 'arena.state.out' : null)
    : mine.state === 'withdrawn' ? 'arena.state.withdrawn'
    : mine.state === 'paused' ? 'arena.state.paused'
    : mine.playing ? 'arena.state.playing'
    : status === 'created' ? 'arena.state.joinedSoon'
    : 'arena.state.joined';
  $('arena-state').textContent = stateKey ? t(stateKey) : '';
  $('arena-controls').hidden = false;
}

function drawStandings(/** @type {Arena} */ arena) {
  $('arena-standings-box').hidden = false;
  $('arena-none').hidden = arena.standings.length > 0;
  const table = $('arena-table');
  table.hidden = arena.standings.length === 0;
  $('arena-caption').textContent = t('arena.caption', {
    name: arena.name,
    players: t('arena.players.#', { n: arena.players }),
    played: arena.games.played,
    playing: arena.games.playing,
  });
  const { rows, apart } = shownRows(arena, state.me);
  const body = /** @type {HTMLTableSectionElement} */ (table.querySelector('tbody'));
  const gap = () => {
    const tr = el('tr', 'gap');
    const td = el('td', '', t('arena.apart'));
    td.setAttribute('colspan', '5');
    tr.append(td);
    return tr;
  };
  body.replaceChildren(...rows.map((row) => standingRow(row, row.name.toLowerCase() === state.me?.toLowerCase())), ...(apart ? [gap(), standingRow(apart, true)] : []));
  const pager = $('arena-pager');
  pager.hidden = arena.pages <= 1;
  pager.setAttribute('aria-label', t('arena.pages'));
  const from = (arena.page - 1) * STANDINGS_PAGE + 1;
  $('arena-page-of').textContent = t('arena.page.of', { page: arena.page, pages: arena.pages, from, to: Math.min(arena.ranked, from + STANDINGS_PAGE - 1), ranked: arena.ranked });
  /** @type {HTMLButtonElement} */ ($('arena-page-prev')).disabled = arena.page <= 1;
  /** @type {HTMLButtonElement} */ ($('arena-page-next')).disabled = arena.page >= arena.pages;
}

/** One row of the standings table. @param {import('./arena-logic.js').StandingRow} row @param {boolean} own */
function standingRow(row, own) {
  const tr = el('tr');
  tr.dataset.name = row.name;
  if (own) {
    tr.className = 'own';
    tr.setAttribute('aria-current', 'true');
  }
  const rank = el('td', 'num', String(row.rank));
  const player = el('th');
  player.setAttribute('scope', 'row');
  const link = /** @type {HTMLAnchorElement} */ (el('a', '', row.name));
  link.href = profileHref(row.name);
  player.append(link);
  if (own) player.append(el('span', 'note', `(${t('arena.you')})`));
  if (row.state !== 'joined') player.append(el('span', 'note', t(row.state === 'paused' ? 'arena.paused' : 'arena.withdrawn')));
  const fire = el('td', 'fire');
  if (row.fire) {
    const mark = el('span', '', '🔥');
    mark.setAttribute('aria-hidden', 'true');
    fire.append(mark, el('span', 'visually-hidden', t('arena.fire')));
  }
  const games = el('td', 'sheet');
  const list = el('span', 'sheet-list');
  for (const entry of sheet(row)) {
    const a = /** @type {HTMLAnchorElement} */ (el('a', entry.kind, entry.text));
    a.href = roomHref(entry.room);
    const opponent = entry.opponent ?? t('arena.sheet.unknown');
    a.setAttribute('aria-label', t(`arena.sheet.${entry.kind}`, { opponent, points: entry.text }));
    list.append(a);
  }
  games.append(list);
  const score = el('td', 'num score', String(row.score));
  tr.append(rank, player, fire, games, score);
  return tr;
}

function drawWatch(/** @type {Arena} */ arena, /** @type {ArenaStatus} */ status) {
  const games = topGames(arena.standings);
  $('arena-watch-box').hidden = status === 'finished' && games.length === 0;
  $('arena-watch-none').hidden = games.length > 0;
  $('arena-watch').replaceChildren(
    ...games.map((g) => {
      const li = el('li');
      const a = /** @type {HTMLAnchorElement} */ (el('a', '', t('arena.watch.game', { a: g.players[0], ra: g.ranks[0], b: g.players[1] ?? t('arena.sheet.unknown') })));
      a.href = roomHref(g.room);
      li.append(a);
      return li;
    }),
  );
}

function drawPodium(/** @type {Arena} */ arena, /** @type {ArenaStatus} */ status) {
  const rows = podium(arena, status);
  $('arena-podium-box').hidden = rows.length === 0;
  $('arena-podium').replaceChildren(...rows.map((r) => el('li', '', t('arena.podium.place', { rank: r.rank, name: r.name, score: r.score }))));
}

function draw() {
  const arena = state.arena;
  const status = statusNow()?.status ?? null;
  state.shownStatus = status;
  document.title = arena ? t('arena.doc.title', { name: arena.name }) : state.phase === 'missing' ? t('arena.doc.none') : t('arena.kicker');
  $('arena-name').textContent = arena?.name ?? (state.phase === 'missing' ? t('arena.notFound') : '…');
  const status_ = $('arena-status');
  const note = state.note;
  status_.textContent =
    state.phase === 'loading' ? t('arena.loading')
    : state.phase === 'failed' ? t('arena.error.network')
    : state.phase === 'missing' ? ''
    : state.offline ? t('arena.offline')
    : note ? t(note.key, note.params)
    : '';
  status_.dataset.tone = note?.tone ?? '';
  if (!arena || !status) return;
  $('arena-facts').textContent = [
    rulesName(arena.variant),
    clockName(arena.clock),
    t(arena.rated ? 'arena.rated' : 'arena.casual'),
    t('arena.players.#', { n: arena.players }),
  ].join(' · ');
  drawControls(arena, status);
  drawPodium(arena, status);
  drawWatch(arena, status);
  drawStandings(arena);
}

function applyLanguage() {
  t = arenaTranslator(lang);
  document.documentElement.lang = lang;
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-at]'))) node.textContent = t(node.dataset.at ?? '');
  $('lang').lang = lang === 'en' ? 'ru' : 'en';
  $('sr-mode').setAttribute('aria-label', t('sr.label'));
  theme.refresh((next) => t(next === 'light' ? 'theme.toLight' : 'theme.toDark'));
  draw();
  drawTimer();
}

/** A new arena message (the first answer, or the socket's standings). @param {any} json */
function arrived(json) {
  const next = parseArena(json);
  if (!next) return;
  // A socket's standings carry no `own`: the player's row comes in its own message.
  if (!next.own && json?.type === 'standings') next.own = state.arena?.own ?? null;
  state.page = next.page;
  if (state.srOn) for (const text of arenaNews(state.arena, next, state.me, t)) say(text);
  state.arena = next;
  state.phase = 'shown';
  draw();
  drawTimer();
}

/** A game of the player's began: its seat key kept for the game page, which opens. @param {any} msg */
function paired(msg) {
  if (typeof msg.room !== 'string' || typeof msg.key !== 'string' || !id) return;
  rememberSeat(storage, msg.room, { seat: msg.seat === 'dark' ? 'dark' : 'light', key: msg.key, arena: id });
  state.opening = msg.room;
  state.note = { key: 'arena.paired' };
  draw();
  location.assign(roomHref(msg.room));
}

/** The player's own row moved. @param {any} msg */
function ownArrived(msg) {
  const row = parseRow(msg.row, 0);
  if (!row || !state.arena) return;
  const before = state.arena;
  const next = { ...before, own: row };
  if (state.srOn) for (const text of arenaNews(before, next, state.me, t)) say(text);
  state.arena = next;
  draw();
}

let retry = 0;
/** The socket open now (a page turn replaces it). @type {WebSocket | null} */
let socket = null;
function connect() {
  if (!id) return;
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const page = state.page > 1 ? `?page=${state.page}` : '';
  const ws = new WebSocket(`${proto}//${location.host}/api/arenas/${encodeURIComponent(id)}/ws${page}`);
  socket = ws;
  ws.addEventListener('open', () => {
    retry = 0;
    if (state.offline) {
      state.offline = false;
      draw();
    }
  });
  ws.addEventListener('message', (event) => {
    let msg;
    try {
      msg = JSON.parse(String(event.data));
    } catch {
      return;
    }
    if (socket !== ws) return;
    if (msg?.type === 'standings') arrived(msg);
    else if (msg?.type === 'own-standing') ownArrived(msg);
    else if (msg?.type === 'paired') paired(msg);
  });
  ws.addEventListener('close', () => {
    if (state.opening || socket !== ws) return;
    state.offline = state.phase === 'shown';
    draw();
    retry = Math.min(retry + 1, 5);
    setTimeout(connect, 1000 * retry);
  });
}

/** Joins, pauses or withdraws; the standings that follow show the change. @param {'join' | 'pause' | 'withdraw'} what */
async function act(what) {
  if (!id || state.busy) return;
  state.busy = true;
  state.note = null;
  draw();
  try {
    const res = await fetch(`/api/arenas/${encodeURIComponent(id)}/${what}`, JSON_POST);
    const body = await res.json().catch(() => ({}));
    if (!res.ok) {
      const code = String(body.code ?? res.status);
      const key = `arena.error.${code}`;
      state.note = t(key) === key ? { key: 'arena.error.other', params: { code }, tone: 'error' } : { key, tone: 'error' };
    } else {
      await load();
    }
  } catch {
    state.note = { key: 'arena.error.network', tone: 'error' };
  } finally {
    state.busy = false;
    draw();
  }
}

async function load() {
  if (!id) {
    state.phase = 'missing';
    return;
  }
  try {
    const asked = Date.now();
    const res = await fetch(`/api/arenas/${encodeURIComponent(id)}${state.page > 1 ? `?page=${state.page}` : ''}`);
    if (res.status === 404) {
      state.phase = 'missing';
      return;
    }
    if (!res.ok) throw new Error(String(res.status));
    const date = Date.parse(res.headers.get('date') ?? '');
    // The Date header has whole seconds: a correction under two seconds is noise.
    if (Number.isFinite(date) && Math.abs(date - asked) > 2000) state.offset = date - asked;
    const json = await res.json();
    // The caller's own name comes with the arena (a visitor's is null).
    state.me = typeof json?.me === 'string' ? json.me : null;
    arrived(json);
  } catch {
    if (!state.arena) state.phase = 'failed';
  }
}

function showSrMode() {
  $('sr-mode').setAttribute('aria-pressed', String(state.srOn));
}

/** Shows page `page` of the standings: its socket replaces the one open. @param {number} page */
function turnPage(page) {
  if (!state.arena || page < 1 || page > state.arena.pages || page === state.page) return;
  state.page = page;
  const old = socket;
  connect();
  old?.close();
}

$('arena-page-prev').addEventListener('click', () => turnPage(state.page - 1));
$('arena-page-next').addEventListener('click', () => turnPage(state.page + 1));
$('arena-join').addEventListener('click', () => act('join'));
$('arena-rejoin').addEventListener('click', () => act('join'));
$('arena-resume').addEventListener('click', () => act('join'));
$('arena-pause').addEventListener('click', () => act('pause'));
$('arena-withdraw').addEventListener('click', () => act('withdraw'));
$('sr-mode').addEventListener('click', () => {
  state.srOn = !state.srOn;
  storage.set(SCREEN_READER_KEY, state.srOn ? 'on' : 'off');
  showSrMode();
});
$('lang').addEventListener('click', () => {
  lang = lang === 'en' ? 'ru' : 'en';
  storage.set('lang', lang);
  applyLanguage();
});
showSrMode();
applyLanguage();
setInterval(drawTimer, 1000);
load()
  .then(() => {
    draw();
    if (state.phase === 'shown') connect();
  })
  .finally(() => {
    document.body.dataset.ready = 'true';
  });
