// Wiring of the puzzles page (/puzzles): the set of the chosen game (static/puzzles/
// <rules>.json), the board (widget.js on a WasmGame: every legal click is the rules'),
// the person's turn judged against the solution (puzzles-logic.js), the defence played
// back, a wrong turn answered by the engine (computer.js's worker), Retry, Solution,
// Hint, Next, the theme filter, the puzzle of the day, the rating (puzzle-rating.js,
// kept in localStorage) and "Open in review".
//
// The page's state is `state` below; `document.body.dataset.phase` mirrors its phase and
// `dataset.puzzle` the puzzle's id (the browser tests read them).

import { pickLanguage } from './i18n.js';
import { engineWorker } from './computer.js';
import { afterPuzzle, parseRating } from './puzzle-rating.js';
import { dailyPuzzle, dateKey, hintPoint, isAnswer, nextPuzzle, parseSet, refutation, taskKey, themesOf, turnActions } from './puzzles-logic.js';
import { puzzlesTranslator } from './puzzles-text.js';
import { bindOffline } from './offline.js';
import { loadRules, localGame } from './rules.js';
import { safeStorage } from './storage.js';
import { bindThemeSwitch } from './theme.js';
import { mountBoard } from './widget.js';

/** @typedef {import('./puzzles-logic.js').Puzzle} Puzzle */

const RATING_KEY = 'puzzles.rating';
const SEEN_KEY = 'puzzles.seen';
const VARIANT_KEY = 'puzzles.variant';
/** The pause before each of the opponent's actions, so the eye can follow. */
const REPLY_MS = 450;
/** The engine's time for the refutation of a wrong turn. */
const REFUTE_MS = 400;

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const storage = safeStorage(() => window.localStorage);
const theme = bindThemeSwitch(/** @type {HTMLButtonElement} */ ($('theme')), storage);
let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = puzzlesTranslator(lang);
const engine = engineWorker();

/**
 * @typedef {'loading' | 'solving' | 'answering' | 'wrong' | 'solved' | 'shown' | 'empty'} Phase
 *   loading: the set or the rules are coming; solving: the person's turn; answering: the
 *   opponent's defence is being played; wrong: a wrong turn, refuted; solved; shown: the
 *   solution was played out; empty: no puzzle to show
 */
const state = {
  /** @type {Puzzle[]} */ set: [],
  rules: 'nine',
  theme: 'all',
  /** @type {Puzzle | null} */ puzzle: null,
  /** The index in the solution of the solver's next turn. */
  ply: 0,
  /** @type {Phase} */ phase: 'loading',
  /** Whether this puzzle's result has gone into the rating. */
  rated: false,
  daily: '',
  /** @type {{ key: string, params?: Record<string, string | number>, tone?: string }} */
  status: { key: 'puzzles.status.loading', tone: 'wait' },
  rating: parseRating(storage.get(RATING_KEY)),
  /** @type {number | null} */ change: null,
  /** Counts puzzles loaded: a reply arriving for an earlier one is dropped. */
  serial: 0,
};

/** Whether the person's latest input was a key (then focus moved by the page shows its ring). */
let keyboardUsed = false;
document.addEventListener('keydown', () => (keyboardUsed = true), true);
document.addEventListener('pointerdown', () => (keyboardUsed = false), true);

/** @type {ReturnType<typeof localGame> | null} */
let game = null;
/** @type {ReturnType<typeof mountBoard> | null} */
let board = null;
let boardRules = '';

function seen() {
  try {
    const list = JSON.parse(storage.get(SEEN_KEY) ?? '[]');
    return new Set(Array.isArray(list) ? list.map(String) : []);
  } catch {
    return new Set();
  }
}

function markSeen(id) {
  const list = [...seen()].filter((x) => x !== id);
  list.push(id);
  storage.set(SEEN_KEY, JSON.stringify(list.slice(-3000)));
}

// ---------------------------------------------------------------- drawing

function setStatus(key, params = {}, tone = '') {
  state.status = { key, params, tone };
  draw();
  // What answers the person's turn is shown, not left below the board on a phone.
  if (!['puzzles.status.find', 'puzzles.status.loading'].includes(key)) reveal($('status'));
}

/** Scrolls `node` into view, a little clear of the edge, when it is not (the least scroll that shows it). @param {HTMLElement} node */
function reveal(node) {
  const margin = 12;
  const box = node.getBoundingClientRect();
  const below = box.bottom + margin - window.innerHeight;
  const above = box.top - margin;
  const by = below > 0 ? Math.min(below, Math.max(above, 0)) : Math.min(above, 0);
  if (Math.abs(by) < 1) return;
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  window.scrollBy({ top: by, behavior: still ? 'auto' : 'smooth' });
}

function draw() {
  // Whether the board takes clicks follows the phase.
  board?.redraw();
  document.body.dataset.phase = state.phase;
  document.body.dataset.puzzle = state.puzzle?.id ?? '';
  const status = $('status');
  status.textContent = t(state.status.key, state.status.params);
  if (state.status.tone) status.dataset.tone = state.status.tone;
  else delete status.dataset.tone;
  const p = state.puzzle;
  $('puzzle-task').textContent = p ? t(taskKey(p)) : '';
  $('puzzle-about').textContent = p ? `${t('puzzles.puzzleRating', { id: p.id, rating: p.rating })} · ${p.themes.map((x) => t(`puzzles.theme.${x}`)).join(', ')}` : '';
  $('puzzle-source').textContent = p ? t(`puzzles.source.${p.source}`) : '';
  $('puzzle-rating').textContent = String(Math.round(state.rating.rating));
  const change = state.change;
  $('puzzle-rating-change').textContent = change === null ? '' : t('puzzles.ratingChange', { delta: `${change >= 0 ? '+' : ''}${change}` });
  const badge = $('puzzle-daily-badge');
  badge.hidden = !(p && state.daily && p.id === state.daily);
  badge.textContent = t('puzzles.dailyBadge', { date: dateKey(new Date()) });
  const solving = state.phase === 'solving';
  /** @type {HTMLButtonElement} */ ($('puzzle-hint')).disabled = !solving;
  /** @type {HTMLButtonElement} */ ($('puzzle-solution')).disabled = !(solving || state.phase === 'wrong');
  $('puzzle-retry').hidden = state.phase !== 'wrong';
  /** @type {HTMLButtonElement} */ ($('puzzle-next')).disabled = state.set.length === 0;
  const review = /** @type {HTMLAnchorElement} */ ($('puzzle-review'));
  review.hidden = !p;
  if (p) {
    const actions = p.solution.flatMap(turnActions);
    review.href = `/#review=${encodeURIComponent(JSON.stringify({ start: p.position, actions }))}`;
  }
}

function applyLanguage() {
  t = puzzlesTranslator(lang);
  document.documentElement.lang = lang;
  document.title = t('doc.title');
  document.querySelector('meta[name="description"]')?.setAttribute('content', t('doc.description'));
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-pt]'))) node.textContent = t(node.dataset.pt ?? '');
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-pt-aria]'))) node.setAttribute('aria-label', t(node.dataset.ptAria ?? ''));
  // The switch is written in the other language; say so for screen readers.
  $('lang').lang = lang === 'en' ? 'ru' : 'en';
  theme.refresh((next) => t(next === 'light' ? 'theme.toLight' : 'theme.toDark'));
  board?.setTranslator(t);
  fillThemes();
  draw();
}

function fillThemes() {
  const select = /** @type {HTMLSelectElement} */ ($('puzzle-theme'));
  const themes = ['all', ...themesOf(state.set)];
  if (!themes.includes(state.theme)) state.theme = 'all';
  select.replaceChildren(
    ...themes.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = t(`puzzles.theme.${name}`);
      option.selected = name === state.theme;
      return option;
    }),
  );
}

// ---------------------------------------------------------------- the board

function refresh() {
  if (game && board) board.set(game.snapshot());
}

/** Loads the puzzle's position, with the line played up to the solver's turn `ply`. */
function setUp(ply) {
  const p = /** @type {Puzzle} */ (state.puzzle);
  const g = /** @type {ReturnType<typeof localGame>} */ (game);
  const reply = g.loadPosition(p.position);
  if (!reply.ok) throw new Error(reply.error?.message ?? 'bad position');
  for (const turn of p.solution.slice(0, ply)) for (const action of turnActions(turn)) g.play(action);
  board?.setHint(null);
  board?.clearSelection();
  refresh();
}

/** The board of the puzzle's rule set (a new one when the rules change the board). */
function ensureBoard(rules) {
  if (board && boardRules === rules) return;
  const g = /** @type {ReturnType<typeof localGame>} */ (game);
  const host = $('board-host');
  host.replaceChildren();
  board = mountBoard(host, {
    topology: g.topology,
    t,
    canAct: () => state.phase === 'solving',
    onAction: (action) => played(action),
  });
  boardRules = rules;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Plays a turn's actions one by one, with pauses; false when the puzzle changed meanwhile. */
async function playOut(turnActionsList, serial) {
  for (const action of turnActionsList) {
    await pause(REPLY_MS);
    if (serial !== state.serial) return false;
    game?.play(action);
    refresh();
  }
  return true;
}

// ---------------------------------------------------------------- solving

/** @param {Puzzle} p @param {{ daily?: boolean }} [options] */
function open(p, { daily = false } = {}) {
  state.serial += 1;
  state.puzzle = p;
  state.ply = 0;
  state.rated = false;
  state.change = null;
  state.phase = 'solving';
  if (daily) state.daily = p.id;
  const g = /** @type {ReturnType<typeof localGame>} */ (game);
  // The rule set first, so that the board drawn is the puzzle's.
  g.loadPosition(p.position);
  ensureBoard(p.rules);
  setUp(0);
  history.replaceState(null, '', daily ? '#daily' : `#${p.id}`);
  setStatus('puzzles.status.find');
  board?.focus({ ring: keyboardUsed });
}

/** The person's rating after this puzzle, once per puzzle. @param {boolean} solved */
function rate(solved) {
  if (state.rated || !state.puzzle) return;
  state.rated = true;
  const before = state.rating.rating;
  state.rating = afterPuzzle(state.rating, state.puzzle.rating, solved);
  state.change = Math.round(state.rating.rating) - Math.round(before);
  storage.set(RATING_KEY, JSON.stringify(state.rating));
  markSeen(state.puzzle.id);
}

/** An action the person played on the board. @param {string} action */
function played(action) {
  if (state.phase !== 'solving' || !game || !state.puzzle) return;
  const reply = game.play(action);
  refresh();
  if (!reply.ok) return setStatus('puzzles.status.refused', { message: reply.error?.message ?? '' }, 'alert');
  const snap = game.snapshot();
  if (snap.pendingRemovals > 0) return setStatus('puzzles.status.remove', {}, 'remove');
  const turn = snap.record[snap.record.length - 1] ?? '';
  const p = state.puzzle;
  if (!isAnswer(p, state.ply, turn)) return wrong(turn);
  state.ply += 1;
  if (state.ply >= p.solution.length) {
    state.phase = 'solved';
    rate(true);
    return setStatus('puzzles.status.solved', {}, 'result');
  }
  defend(p.solution[state.ply]);
}

/** The opponent's defence from the solution. @param {string} reply */
async function defend(reply) {
  const serial = state.serial;
  state.phase = 'answering';
  setStatus('puzzles.status.right', {}, 'wait');
  if (!(await playOut(turnActions(reply), serial))) return;
  state.ply += 1;
  state.phase = 'solving';
  setStatus('puzzles.status.keepGoing', { reply });
}

/** A turn that is not the answer: shown wrong, the engine's reply played. @param {string} turn */
async function wrong(turn) {
  const serial = state.serial;
  state.phase = 'wrong';
  rate(false);
  const snap = /** @type {ReturnType<typeof localGame>} */ (game).snapshot();
  if (snap.outcome) return setStatus('puzzles.status.wrongAlone', { turn }, 'alert');
  setStatus('puzzles.status.thinking', { turn }, 'alert');
  const answer = await engine.search({
    record: /** @type {ReturnType<typeof localGame>} */ (game).exportRecord(),
    level: 'hard',
    seed: 1,
    movetime: REFUTE_MS,
    tablebase: '/tb/manifest.json',
  });
  if (serial !== state.serial || state.phase !== 'wrong') return;
  if (!answer?.ok) return setStatus('puzzles.status.wrongAlone', { turn }, 'alert');
  if (!(await playOut(answer.actions, serial))) return;
  const after = /** @type {ReturnType<typeof localGame>} */ (game).snapshot();
  const winner = after.outcome?.winner;
  const why = refutation(answer.pv ?? [answer.turn], !!winner && winner !== after.turn);
  setStatus(why.key, { turn, reply: answer.turn, ...why.params }, 'alert');
}

function retry() {
  if (state.phase !== 'wrong') return;
  state.serial += 1;
  state.phase = 'solving';
  setUp(state.ply);
  setStatus('puzzles.status.find');
  board?.focus({ ring: keyboardUsed });
}

async function showSolution() {
  const p = state.puzzle;
  if (!p || !(state.phase === 'solving' || state.phase === 'wrong')) return;
  rate(false);
  state.serial += 1;
  const serial = state.serial;
  state.phase = 'shown';
  setUp(state.ply);
  const rest = p.solution.slice(state.ply);
  setStatus('puzzles.status.shown', { line: rest.join(' ') }, 'result');
  for (const turn of rest) if (!(await playOut(turnActions(turn), serial))) return;
}

function hint() {
  const p = state.puzzle;
  if (!p || state.phase !== 'solving') return;
  rate(false);
  const point = hintPoint(p, state.ply);
  board?.setHint({ from: null, to: point, removed: [] });
  setStatus('puzzles.status.hint', { point });
}

function next() {
  const p = nextPuzzle(state.set, { rating: state.rating.rating, theme: state.theme, seen: seen(), exclude: state.puzzle?.id ?? '' });
  if (!p) {
    state.puzzle = null;
    state.phase = 'empty';
    return setStatus('puzzles.status.none', {}, 'wait');
  }
  open(p);
}

// ---------------------------------------------------------------- the sets

/** @type {Map<string, Puzzle[]>} */
const sets = new Map();

/** The set files, each named whole so that the server versions it and the offline worker keeps it. */
const SET_FILES = /** @type {Record<string, string>} */ ({
  nine: '/puzzles/nine.json',
  six: '/puzzles/six.json',
  twelve: '/puzzles/twelve.json',
  three: '/puzzles/three.json',
});

/** @param {string} rules @returns {Promise<Puzzle[]>} */
async function fetchSet(rules) {
  const known = sets.get(rules);
  if (known) return known;
  const res = await fetch(SET_FILES[rules] ?? `/puzzles/${rules}.json`);
  if (!res.ok) throw new Error(String(res.status));
  const set = parseSet(await res.text());
  sets.set(rules, set);
  return set;
}

/** @param {string} rules */
async function chooseRules(rules) {
  state.rules = rules;
  /** @type {HTMLSelectElement} */ ($('puzzle-variant')).value = rules;
  storage.set(VARIANT_KEY, rules);
  state.set = await fetchSet(rules);
  fillThemes();
}

async function daily() {
  const nine = await fetchSet('nine');
  const p = dailyPuzzle(nine, dateKey(new Date()));
  if (!p) return;
  if (state.rules !== 'nine') await chooseRules('nine');
  open(p, { daily: true });
}

async function start() {
  draw();
  try {
    game = localGame(await loadRules());
    const wanted = location.hash.slice(1);
    const fromId = wanted && wanted !== 'daily' ? wanted.replace(/-[0-9a-f]{8}$/, '') : '';
    const saved = storage.get(VARIANT_KEY) ?? 'nine';
    await chooseRules(fromId || (wanted === 'daily' ? 'nine' : saved));
  } catch (error) {
    state.phase = 'empty';
    return setStatus('puzzles.status.failed', { message: String(/** @type {Error} */ (error)?.message ?? error) }, 'alert');
  }
  const hash = location.hash.slice(1);
  const byId = state.set.find((p) => p.id === hash);
  if (hash === 'daily') await daily();
  else if (byId) open(byId);
  else next();
  document.body.dataset.ready = 'true';
}

// ---------------------------------------------------------------- controls

$('lang').addEventListener('click', () => {
  lang = lang === 'en' ? 'ru' : 'en';
  storage.set('lang', lang);
  applyLanguage();
});
$('puzzle-hint').addEventListener('click', hint);
$('puzzle-retry').addEventListener('click', retry);
$('puzzle-solution').addEventListener('click', showSolution);
$('puzzle-next').addEventListener('click', next);
$('puzzle-daily').addEventListener('click', () => daily());
$('puzzle-theme').addEventListener('change', (event) => {
  state.theme = /** @type {HTMLSelectElement} */ (event.target).value;
  next();
});
$('puzzle-variant').addEventListener('change', async (event) => {
  try {
    await chooseRules(/** @type {HTMLSelectElement} */ (event.target).value);
    next();
  } catch (error) {
    setStatus('puzzles.status.failed', { message: String(/** @type {Error} */ (error)?.message ?? error) }, 'alert');
  }
});

applyLanguage();
// The offline worker is registered once the first puzzle is up (a first visit may be here).
bindOffline(start());
