// Owns review mode, one for every game: a finished online round opened by its share link
// (/r/<room>/review/<n>, the round's record from GET /api/rooms/<room>/rounds/<n>, no
// secrets in it), and the game on screen (same device, vs computer, an imported record,
// or an online round in progress) opened by "Review the game". The positions after each
// action are replayed through the rules in WebAssembly, never in JS; they are stepped
// through by buttons, ←/→/Home/End, the move list and the evaluation graph, while the
// engine judges them in its own worker (analysis.js). Read-only: the board never takes a
// click here; it shows the engine's better turn where a turn was marked.

import { ANALYSIS_NODES, betterHint, createAnalysis, describeJudgement, drawGraph, GLYPHS, markTurns, turnAtX, turnEnds, turnOf } from './analysis.js';
import { blankSnapshot, recordRows } from './board.js';
import { formatClock } from './clock.js';
import { reviewTurnTimes } from './clock-view.js';
import { $, $button } from './dom.js';
import { engineWorker } from './engine.js';
import { recordHeader } from './game-record.js';
import { localGame } from './rules.js';
import { rulesOfPosition } from './variant.js';

// The addresses of review live where the page finds them before review loads.
export { reviewFromHash, reviewFromPath, reviewLink } from './review-links.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./page-state.js').PageState} PageState */
/** @typedef {import('./page-state.js').Review} Review */
/** @typedef {import('./page-state.js').ReviewSource} ReviewSource */
/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./rules.js').LocalGame} LocalGame */

/**
 * @typedef {object} GameRecord  a game to review: where it started, every action, and
 *   (online) the result a resignation or agreed draw gave it
 * @property {string} start  the position it started from
 * @property {string[]} actions  every action in order
 * @property {{ winner: import('./types.js').Side | null, reason: string } | null} [result]
 * @property {RecordClock | null} [clock]  a timed game's clocks, when known
 */

/**
 * @typedef {object} RecordClock  a timed round's clocks in its record
 * @property {import('./clock.js').TimeControl} control  the room's time control
 * @property {Array<{ light: number, dark: number } | null>} times  both clocks after each
 *   action (index = actions played − 1), null where not known
 */

/**
 * @typedef {GameRecord & { room: string, round: number, record: string[] }} RoundRecord
 *   the server's record of a finished round (docs/PROTOCOL.md)
 */

/**
 * Reviews a record on its own, with no game behind it ("Back to the game" opens the
 * same-device game).
 * @param {App} app @param {GameRecord} record
 */
export function openRecordReview(app, record) {
  return startReview(app, { kind: 'game', from: 'local' }, async () => record);
}

/**
 * The position before the first action and after each one, as snapshots, from the rules.
 * The last carries the record's result, which a resignation or an agreed draw leaves out
 * of the board itself. Throws when the record does not replay.
 * @param {LocalGame} game @param {GameRecord} record @returns {Snapshot[]}
 */
export function reviewPositions(game, record) {
  game.restart();
  if (game.snapshot().position !== record.start) {
    const loaded = game.loadPosition(record.start);
    if (!loaded.ok) throw new Error(loaded.error?.message ?? 'bad start');
  }
  const positions = [game.snapshot()];
  for (const action of record.actions) {
    const played = game.play(action);
    if (!played.ok) throw new Error(`${action}: ${played.error?.message ?? 'refused'}`);
    positions.push(game.snapshot());
  }
  if (record.result) {
    const { winner, reason } = record.result;
    const last = positions[positions.length - 1];
    positions[positions.length - 1] = {
      ...last,
      outcome: last.outcome ?? (winner ? { kind: 'win', winner, reason } : { kind: 'draw', reason }),
    };
  }
  return positions;
}

/**
 * The game's record up to each position the engine judges, as export_record JSON.
 * @param {GameRecord} record @param {Snapshot[]} positions @param {number[]} ends @returns {string[]}
 */
export function recordsAt(record, positions, ends) {
  return ends.map((i) => JSON.stringify({ start: record.start, actions: record.actions.slice(0, positions[i].actions) }));
}

/**
 * The positions stepping stops at: the start and the end of every complete turn (a
 * removal is part of its turn, not a step of its own), and the last position when the
 * game ends mid-turn (a placement still owing its removal).
 * @param {Snapshot[]} positions @param {number[]} ends  analysis.js's turnEnds
 * @returns {number[]}
 */
export function reviewStops(positions, ends) {
  const last = positions.length - 1;
  return last >= 0 && ends[ends.length - 1] !== last ? [...ends, last] : [...ends];
}

/**
 * Where a step key leads from the position `at`, among the stops (reviewStops, in
 * order): ←/→ the stop before or after, Home and End the first and last; null for
 * other keys or no stops.
 * @param {string} key @param {number} at @param {number[]} stops @returns {number | null}
 */
export function stepFor(key, at, stops) {
  if (stops.length === 0) return null;
  const first = stops[0];
  const last = stops[stops.length - 1];
  switch (key) {
    case 'ArrowLeft':
      return [...stops].reverse().find((i) => i < at) ?? first;
    case 'ArrowRight':
      return stops.find((i) => i > at) ?? last;
    case 'Home':
      return first;
    case 'End':
      return last;
    default:
      return null;
  }
}

/**
 * The turn counter: the position `at` as the turns played to reach it, out of the
 * game's turns (a turn left without its removal at the end counts as one).
 * @param {number} at @param {number[]} stops @returns {{ at: number, total: number }}
 */
export function turnCounter(at, stops) {
  const k = stops.filter((i) => i <= at).length - 1;
  return { at: Math.max(0, k), total: Math.max(0, stops.length - 1) };
}

/**
 * The game on screen as a record to review, or null when there is none (nothing played,
 * or an online state not yet come).
 * @param {PageState} page @param {string} startPosition  a new game's start (online rounds start there)
 * @returns {GameRecord | null}
 */
export function recordOnScreen(page, startPosition) {
  if ((page.mode === 'local' || page.mode === 'computer') && page.game) {
    const { start, actions } = JSON.parse(page.game.exportRecord());
    return { start, actions, result: null };
  }
  const o = page.mode === 'online' ? page.online : null;
  const state = o?.state;
  if (!o || !state) return null;
  // A timed round's clocks after each action, as far as this page saw them.
  const clock = state.clock
    ? { control: state.clock.control, times: state.actions.map((_, i) => o.clockTimes.get(`${state.round}:${i + 1}`) ?? null) }
    : null;
  return { start: startPosition, actions: state.actions, result: state.result, clock };
}

/**
 * A round record's `clock` as the page uses it, or null: untimed, or a server that does
 * not send one (docs/PROTOCOL.md, the round's record).
 * @param {unknown} clock @param {number} actions  how many actions the record has
 * @returns {RecordClock | null}
 */
export function recordClock(clock, actions) {
  const c = /** @type {any} */ (clock);
  if (!c || typeof c !== 'object' || !c.control || typeof c.control !== 'object' || !Array.isArray(c.times)) return null;
  /** @type {RecordClock['times']} */
  const times = [];
  for (let i = 0; i < actions; i += 1) {
    const t = c.times[i];
    times.push(t && Number.isFinite(t.light) && Number.isFinite(t.dark) ? { light: t.light, dark: t.dark } : null);
  }
  return { control: c.control, times };
}

/**
 * Opens a shared round for review: fetches its record, replays it, shows its last position.
 * @param {App} app @param {string} roomId @param {number} round
 */
export function openReview(app, roomId, round) {
  return startReview(app, { kind: 'round', roomId, round }, async () => {
    const room = encodeURIComponent(roomId);
    // Room info names the room's time control (every round plays on it), for the
    // record's TimeControl tag when the round's record has no clock of its own.
    const info = fetch(`/api/rooms/${room}`)
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
    const res = await fetch(`/api/rooms/${room}/rounds/${round}`).catch(() => null);
    if (!res) throw new Error('network');
    const body = await res.json().catch(() => ({}));
    // The server's code (review.why.* says it in words), never its English message.
    if (!res.ok) throw new Error(typeof body.code === 'string' ? body.code : 'network');
    const actions = Array.isArray(body.actions) ? body.actions.length : 0;
    const control = (await info)?.clock?.control;
    const clock = recordClock(body.clock, actions) ?? (control ? recordClock({ control, times: [] }, actions) : null);
    return { ...body, clock };
  });
}

/**
 * "Review the game": leaves the game on screen (it stays saved, or goes on online) and
 * reviews what has been played. "Back to the game" opens it again.
 * @param {App} app
 */
export async function openGameReview(app) {
  const { page } = app;
  const from = page.mode;
  if (from !== 'local' && from !== 'computer' && from !== 'online') return;
  const mod = await app.rules();
  if (!mod || page.mode !== from) return;
  // An online round starts from its own rules' start, which the state's position names.
  const fresh = localGame(mod);
  const state = from === 'online' ? page.online?.state : null;
  if (state) fresh.startRules(rulesOfPosition(state.position));
  const record = recordOnScreen(page, fresh.snapshot().position);
  if (!record) return;
  // Its record keeps the header it had on screen (the computer's name, the room and round).
  const header = recordHeader(page);
  app.leave();
  await startReview(app, { kind: 'game', from, header }, async () => record);
}

/**
 * Review mode for a record `load` gives: the blank board meanwhile, then the last
 * position, and the engine judging every turn.
 * @param {App} app @param {ReviewSource} source @param {() => Promise<GameRecord>} load
 */
async function startReview(app, source, load) {
  const { page } = app;
  const mod = await app.rules();
  if (!mod) return;
  const game = localGame(mod);
  app.ensureBoard(game.topology);
  page.mode = 'review';
  /** @type {Review} */
  const review = { source, record: null, positions: [], ends: [], at: 0, error: null, analysis: null };
  page.review = review;
  page.snapshot = blankSnapshot(game.snapshot());
  page.board.set(page.snapshot);
  page.board.setHint(null);
  app.showScreen('game');
  app.render();
  /** @type {GameRecord | null} */
  let record = null;
  try {
    record = await load();
    try {
      review.positions = reviewPositions(game, record);
    } catch {
      throw new Error('replay');
    }
    review.ends = turnEnds(review.positions);
    review.at = review.positions.length - 1;
    review.record = record;
  } catch (error) {
    review.error = String(/** @type {Error} */ (error)?.message ?? error);
  }
  if (page.review !== review) return; // left meanwhile
  if (record && !review.error) {
    // The game's own board (Three's, Six's, Twelve's), now that its start is loaded.
    app.ensureBoard(game.topology);
    review.analysis = createAnalysis({
      records: recordsAt(record, review.positions, review.ends),
      analyst: engineWorker(),
      nodes: ANALYSIS_NODES,
      onJudged: () => page.review === review && show(app, review),
    });
    review.analysis.start();
  }
  show(app, review);
}

/**
 * Leaving review (for any screen): the engine stops and the board forgets its hint.
 * @param {PageState} page
 */
export function leaveReview(page) {
  page.review?.analysis?.stop();
  page.board?.setHint(null);
}

/** The turn marks so far. @param {Review} review @returns {ReturnType<typeof markTurns>} */
function marksOf(review) {
  const last = review.positions[review.positions.length - 1];
  if (!last || !review.analysis || review.ends.length === 0) return [];
  const first = review.positions[review.ends[0]].record.length;
  return markTurns(last.record.slice(first, first + review.ends.length - 1), review.analysis.judged);
}

/**
 * The turn end shown on the graph for the position at `at`: the one it is, or the last
 * before it (mid-turn).
 * @param {Review} review @param {number} at @returns {number}
 */
function endIndexAt(review, at) {
  let k = 0;
  review.ends.forEach((i, j) => {
    if (i <= at) k = j;
  });
  return k;
}

/** @param {App} app @param {Review} review */
function show(app, review) {
  const snap = review.positions[review.at];
  if (snap) {
    app.page.snapshot = snap;
    app.page.board.set(snap);
    const k = review.ends.indexOf(review.at);
    // At the end of a marked turn, the engine's better turn instead (from the position before it).
    app.page.board.setHint(k > 0 ? betterHint(marksOf(review)[k - 1]) : null);
  }
  app.render();
}

/** @param {App} app @param {number} at */
function goTo(app, at) {
  const review = app.page.mode === 'review' ? app.page.review : null;
  if (!review || at < 0 || at >= review.positions.length) return;
  review.at = at;
  show(app, review);
}

/**
 * The step buttons and keys, the move list's and the graph's clicks, "Review the game"
 * and "Back to the game"; once, at start-up.
 * @param {App} app
 */
export function bindReviewControls(app) {
  const go = (/** @type {string} */ key) => {
    const review = app.page.mode === 'review' ? app.page.review : null;
    if (!review || review.positions.length === 0) return false;
    const to = stepFor(key, review.at, reviewStops(review.positions, review.ends));
    if (to === null) return false;
    goTo(app, to);
    return true;
  };
  for (const [id, key] of [
    ['review-first', 'Home'],
    ['review-prev', 'ArrowLeft'],
    ['review-next', 'ArrowRight'],
    ['review-last', 'End'],
  ]) {
    $(id).addEventListener('click', () => go(key));
  }
  // Captured before the board's own keys: a board under review takes no move, so its
  // arrows step through the round instead of moving the focus. Text fields keep theirs.
  document.addEventListener(
    'keydown',
    (event) => {
      const target = /** @type {Element | null} */ (event.target);
      if (target?.closest?.('input, textarea, select, dialog')) return;
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (go(event.key)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    { capture: true },
  );
  $('record').addEventListener('click', (event) => {
    const button = /** @type {Element | null} */ (event.target)?.closest?.('button[data-at]');
    if (button instanceof HTMLElement) goTo(app, Number(button.dataset.at));
  });
  $('eval-graph').addEventListener('click', (event) => {
    const review = app.page.review;
    const svg = /** @type {SVGSVGElement} */ (event.currentTarget);
    const box = svg.getBoundingClientRect();
    if (!review || review.ends.length === 0) return;
    const k = turnAtX(/** @type {MouseEvent} */ (event).clientX - box.left, box.width, review.ends.length);
    goTo(app, review.ends[k]);
  });
  // The button pressed hides with the screen it was on: the focus goes on to what the
  // person does next (stepping back through the game; on return, reviewing it again),
  // not to the page's <body>.
  $('review-open').addEventListener('click', async () => {
    await openGameReview(app);
    if (app.page.mode === 'review') $button('review-prev').focus();
  });
  $('review-back').addEventListener('click', async () => {
    await app.route();
    if (!$('review-open').hidden) $button('review-open').focus();
    else app.focusPlay();
  });
}

/**
 * The move list under review: every turn of the game, each a button to its position,
 * with its mark; the turn shown is the current one.
 * @param {PageState} page
 */
export function viewReviewRecord(page) {
  const review = /** @type {Review} */ (page.review);
  const list = $('record');
  const last = review.positions[review.positions.length - 1];
  const record = last?.record ?? [];
  const marks = marksOf(review);
  const first = review.ends.length ? review.positions[review.ends[0]].record.length : 0;
  const shown = review.positions[review.at];
  const current = shown ? turnOf(shown) : 0; // turns complete at the position shown
  // A timed game: each turn's mover's time left after it.
  const { times } = reviewTurnTimes(review);
  const units = { day: page.t('clock.unit.day'), hour: page.t('clock.unit.hour') };
  const turnButton = (/** @type {string} */ text, /** @type {number} */ index) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'turn';
    button.dataset.turn = String(index);
    const end = review.ends[index + 1 - first];
    button.dataset.at = String(end ?? review.positions.length - 1);
    button.append(text);
    const mark = marks[index - first];
    if (mark && mark.mark !== 'good') {
      button.dataset.mark = mark.mark;
      const glyph = document.createElement('span');
      glyph.className = 'glyph';
      glyph.setAttribute('aria-hidden', 'true');
      glyph.textContent = GLYPHS[mark.mark];
      const words = document.createElement('span');
      words.className = 'visually-hidden';
      words.textContent = `, ${page.t(`mark.${mark.mark}`)}${mark.tables ? `, ${page.t(`tables.${mark.tables}`)}` : ''}`;
      button.append(glyph, words);
    }
    const left = times[index - first];
    if (left !== null && left !== undefined) {
      const time = document.createElement('span');
      time.className = 'turn-time';
      const text = formatClock(left, units);
      time.textContent = text;
      time.setAttribute('aria-hidden', 'true');
      const words = document.createElement('span');
      words.className = 'visually-hidden';
      words.textContent = `, ${page.t('clock.turnLeft', { time: text })}`;
      button.append(time, words);
    }
    if (index + 1 === current) button.setAttribute('aria-current', 'step');
    return button;
  };
  const rows = recordRows(record);
  // The list is drawn afresh: a turn's button that had the focus (the one just activated)
  // gives it to its new self, not to the page's <body>.
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && list.contains(active) ? active.dataset.turn : undefined;
  list.replaceChildren(
    ...rows.map((row, r) => {
      const li = document.createElement('li');
      const n = document.createElement('span');
      n.className = 'n';
      n.textContent = `${row.n}.`;
      li.append(n, turnButton(row.light, 2 * r));
      if (row.dark !== null && row.dark !== undefined) li.append(turnButton(row.dark, 2 * r + 1));
      else li.append(document.createElement('span'));
      return li;
    }),
  );
  $('record-empty').hidden = rows.length > 0;
  if (focused !== undefined) /** @type {HTMLElement | null} */ (list.querySelector(`[data-turn="${focused}"]`))?.focus({ preventScroll: true });
  // Its turns are buttons: the keyboard reaches (and scrolls) the list through them.
  list.removeAttribute('tabindex');
  // The current turn in view inside the list only (not the page: a phone would jump).
  // Measured against the list's own box: offsetTop counts from the positioned ancestor.
  const on = /** @type {HTMLElement | null} */ (list.querySelector('[aria-current]'));
  if (on) {
    const box = list.getBoundingClientRect();
    const row = /** @type {HTMLElement} */ (on.closest('li') ?? on).getBoundingClientRect();
    const top = row.top - box.top + list.scrollTop;
    const bottom = row.bottom - box.top + list.scrollTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  } else if (current === 0) list.scrollTop = 0;
}

/**
 * Under review, the step buttons, "Back to the game", and the engine's panel: progress,
 * the graph, the position's evaluation and the mark of the turn that led to it (which of
 * them shows, and "Review the game", is panels.js's, drawn before review loads).
 * @param {PageState} page
 */
export function viewReview(page) {
  const { t } = page;
  const review = page.mode === 'review' ? page.review : null;
  if (!review) return;
  const last = review.positions.length - 1;
  $button('review-first').disabled = review.at <= 0;
  $button('review-prev').disabled = review.at <= 0;
  $button('review-next').disabled = review.at >= last;
  $button('review-last').disabled = review.at >= last;
  $('review-back').hidden = review.source.kind !== 'game';
  if (review.positions.length === 0) return;

  const analysis = review.analysis;
  const judged = analysis?.judged ?? [];
  const marks = marksOf(review);
  const k = endIndexAt(review, review.at);
  const progress = $('analysis-progress');
  const done = analysis?.done ?? 0;
  progress.textContent = done < judged.length ? t('analysis.progress', { done, total: judged.length }) : t('analysis.done', { total: judged.length });
  // How far it looked: the budget (the same each time) and the depths it reached.
  const depths = judged.flatMap((j) => (j?.ok && !j.over && !j.tablebase ? [j.depth] : []));
  $('analysis-budget').textContent = t('analysis.budget', {
    nodes: ANALYSIS_NODES.toLocaleString(page.lang),
    depth: depths.length ? `${Math.min(...depths)}–${Math.max(...depths)}` : '…',
  });
  drawGraph(/** @type {SVGSVGElement} */ (/** @type {unknown} */ ($('eval-graph'))), judged, marks, k);
  $('eval-graph').setAttribute('aria-label', t('analysis.graph'));

  // The position shown: its evaluation and the engine's turn from here.
  const j = review.ends[k] === review.at ? judged[k] : null;
  const evalLine = $('analysis-eval');
  if (review.ends[k] !== review.at) evalLine.textContent = t('analysis.midTurn');
  else if (!j) evalLine.textContent = t('analysis.waiting');
  else if (!j.ok) evalLine.textContent = t('analysis.failed');
  else {
    const d = describeJudgement(j);
    const params = { ...d.params, ...(d.params.side ? { side: t(`color.${d.params.side}`) } : {}) };
    const words = t(d.key, params);
    evalLine.textContent = j.best ? `${words} · ${t('analysis.best', { turn: j.best, depth: j.depth })}` : words;
  }
  // The turn that led here, judged.
  const markLine = $('analysis-mark');
  const mark = review.ends[k] === review.at && k > 0 ? marks[k - 1] : null;
  markLine.dataset.mark = mark?.mark ?? '';
  if (!mark) markLine.textContent = '';
  else {
    const first = review.positions[review.ends[0]].record.length;
    const turn = review.positions[last].record[first + k - 1];
    const params = { side: t(`color.${mark.mover}`), turn, mark: t(`mark.${mark.mark}`), better: mark.better ?? '' };
    const said = t(mark.better ? 'analysis.turnBetter' : 'analysis.turn', params);
    // Where the tables cover the turn, what it did to the game's value, exactly.
    markLine.textContent = mark.tables ? `${said}. ${t(`tables.${mark.tables}`)}` : said;
  }
}
