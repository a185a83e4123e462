// Owns one live diagram of the rules page: the game's board component (widget.js) bound
// to its own WasmGame, loaded from a position string, with tabs for its positions, a
// reset button, a status line, a note on what the last action did and a summary of the
// highlights. A quiz diagram (exercise 3) keeps the board read-only until the reader has
// picked the right pieces. Every legal point and every answer comes from mill-core.
//
//   const d = mountDiagram(figureElement, spec, { mod, t, lang, voice });   // spec: rules-diagrams.js
//   d.setLanguage(t, lang);
//
// `voice` (rules-page.js, the screen-reader mode) is told, in words, what an exercise asks
// when the reader arrives at its board or switches its position, and the result of every
// attempt: the turn played with what it did, a refusal, the quiz's verdict.

import { reasonText, statusOf } from './board.js';
import { checkMovers, highlightSummary, piecesOf, togglePick, turnNote } from './rules-logic.js';
import { localGame } from './rules.js';
import { listOf } from './rules-text.js';
import { mountBoard } from './widget.js';

const pointOf = (target) => target?.closest?.('[data-point]')?.getAttribute('data-point') ?? null;

function make(tag, attrs = {}, parent = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  if (parent) parent.appendChild(node);
  return node;
}

export function mountDiagram(figure, spec, { mod, t, lang, voice = null }) {
  const game = localGame(mod);
  const state = {
    t,
    lang,
    tab: 0,
    snapshot: null,
    note: null, // { kind, … } from turnNote, or { kind: 'refused', message }
    error: null,
    quiz: spec.quiz ? { picked: [], solved: false, feedback: null } : null,
  };

  figure.classList.add('diagram');
  figure.replaceChildren();

  // Tabs: one button per position, only when there is more than one.
  const tabButtons = [];
  let tabBar = null;
  if (spec.tabs.length > 1) {
    tabBar = make('div', { class: 'diagram-tabs', role: 'group' }, figure);
    spec.tabs.forEach((tab, i) => {
      const button = make('button', { type: 'button', class: 'diagram-tab', 'data-role': 'tab', 'data-tab': tab.key }, tabBar);
      button.addEventListener('click', () => {
        load(i);
        ask();
      });
      tabButtons.push(button);
    });
  }

  const status = make('p', { class: 'status diagram-status', role: 'status', 'aria-live': 'polite', 'data-role': 'status' }, figure);
  const boardHost = make('div', { class: 'diagram-board' }, figure);
  // The board of the diagram's variant: its first position names the rule set.
  game.loadPosition(spec.tabs[0].position);
  const board = mountBoard(boardHost, {
    topology: game.topology,
    t: state.t,
    onAction: play,
    canAct: () => !state.quiz || state.quiz.solved,
    onSelection: render,
  });

  const bar = make('div', { class: 'diagram-bar' }, figure);
  const summary = make('p', { class: 'diagram-summary', 'data-role': 'summary' }, bar);
  const reset = make('button', { type: 'button', class: 'diagram-reset', 'data-role': 'reset' }, bar);
  reset.addEventListener('click', () => {
    load(state.tab);
    ask();
  });
  // Arriving at the board from outside the diagram: what it asks, once per arrival.
  figure.addEventListener('focusin', (event) => {
    if (boardHost.contains(/** @type {Node} */ (event.target)) && !boardHost.contains(/** @type {Node | null} */ (event.relatedTarget))) ask();
  });
  const note = make('p', { class: 'diagram-note', 'aria-live': 'polite', 'data-role': 'note' }, figure);

  let quizUi = null;
  if (state.quiz) quizUi = buildQuiz();

  const caption = make('figcaption', { class: 'diagram-caption' }, figure);

  function load(index) {
    state.tab = index;
    state.note = null;
    state.error = null;
    const tab = spec.tabs[index];
    const reply = game.loadPosition(tab.position);
    if (!reply.ok) state.error = reply.error.message;
    for (const action of tab.setup ?? []) {
      const r = game.play(action);
      if (!r.ok) state.error = r.error.message;
    }
    state.snapshot = game.snapshot();
    if (state.quiz) state.quiz = { picked: [], solved: false, feedback: null };
    board.clearSelection();
    board.set(state.snapshot);
    render();
  }

  function play(action) {
    const before = state.snapshot;
    const reply = game.play(action);
    state.snapshot = game.snapshot();
    state.note = reply.ok ? turnNote(before, state.snapshot) : { kind: 'refused', message: reply.error.message };
    board.set(state.snapshot);
    render();
    if (voice?.on()) voice.say([...(reply.ok ? voice.turn(hearing(before), hearing(state.snapshot), state.t) : []), noteText()]);
  }

  /** The diagram's position as the screen-reader announcer compares it (announce.js). */
  function hearing(snap) {
    return { game: `${spec.id}:${state.tab}`, review: false, seat: null, snap, online: null, draw: null, takeback: null };
  }

  /** An exercise's task in words: its title and what its position asks. */
  function ask() {
    if (!voice?.on() || !/^ex\d/.test(spec.id)) return;
    const tr = state.t;
    voice.say([tr(`${spec.id}.title`), tr(spec.tabs[state.tab].caption), state.quiz && !state.quiz.solved ? '' : statusText(state.snapshot)]);
  }

  // ------------------------------------------------------------ the quiz (exercise 3)

  function buildQuiz() {
    const box = make('fieldset', { class: 'quiz', 'data-role': 'quiz' }, figure);
    const legend = make('legend', {}, box);
    const list = make('div', { class: 'quiz-picks' }, box);
    const actions = make('div', { class: 'quiz-actions' }, box);
    const submit = make('button', { type: 'button', class: 'primary', 'data-role': 'check' }, actions);
    const clear = make('button', { type: 'button', 'data-role': 'clear' }, actions);
    const feedback = make('p', { class: 'quiz-feedback', role: 'status', 'aria-live': 'polite', 'data-role': 'feedback' }, box);
    submit.addEventListener('click', check);
    clear.addEventListener('click', () => {
      if (state.quiz.solved) return;
      state.quiz = { picked: [], solved: false, feedback: null };
      render();
    });
    // Picking on the board: the board is read-only while the quiz is open, so its own
    // handlers do nothing with these clicks and keys; we read them here.
    board.element.addEventListener('click', (event) => pick(pointOf(event.target)));
    board.element.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ' || event.key === 'Spacebar') pick(pointOf(event.target));
    });
    // The board redraws its points' names and states on every event it handles (its
    // listeners run before ours): give the pickable pieces theirs back each time.
    for (const type of ['click', 'keydown', 'focusin']) board.element.addEventListener(type, markPickable);
    return { box, legend, list, submit, clear, feedback };
  }

  function pick(name) {
    const q = state.quiz;
    if (!name || q.solved || state.snapshot.pieces[name] !== spec.quiz.side) return;
    q.picked = togglePick(q.picked, name);
    q.feedback = null;
    render();
  }

  function check() {
    const q = state.quiz;
    if (q.solved) return;
    if (q.picked.length === 0) {
      q.feedback = { key: 'ex3.pick', tone: 'wrong' };
    } else {
      const result = checkMovers(state.snapshot, q.picked, spec.quiz.side);
      if (result.ok) {
        q.solved = true;
        q.feedback = { key: 'ex3.right', tone: 'right', pieces: result.expected };
      } else {
        q.feedback = { key: result.extra.length ? 'ex3.wrongExtra' : 'ex3.wrongMissing', tone: 'wrong' };
      }
    }
    board.redraw();
    render();
    if (voice?.on()) voice.say([state.t(q.feedback.key, { pieces: listOf(q.feedback.pieces ?? [], state.lang) })]);
  }

  // While the quiz is open the board is read-only, so it marks every point disabled; the
  // pieces the reader may pick are buttons all the same, pressed when picked.
  function markPickable() {
    const q = state.quiz;
    const open = !q.solved;
    const tr = state.t;
    for (const g of board.element.querySelectorAll('[data-point]')) {
      const name = g.dataset.point;
      const pickable = open && state.snapshot.pieces[name] === spec.quiz.side;
      const picked = pickable && q.picked.includes(name);
      g.classList.toggle('quiz-pickable', pickable);
      g.classList.toggle('quiz-picked', picked);
      if (!pickable) continue;
      g.setAttribute('aria-disabled', 'false');
      g.setAttribute('aria-pressed', String(picked));
      const piece = tr('point.piece', { side: tr(`color.${spec.quiz.side}`) });
      g.setAttribute('aria-label', `${name}, ${piece}, ${tr(picked ? 'ex3.point.picked' : 'ex3.point.pickable')}`);
    }
  }

  function renderQuiz() {
    const { t: tr, lang: lg } = state;
    const q = state.quiz;
    const ui = quizUi;
    ui.legend.textContent = tr('ex3.listLabel');
    ui.submit.textContent = tr('ex3.submit');
    ui.clear.textContent = tr('ex3.clear');
    ui.submit.disabled = q.solved;
    ui.clear.disabled = q.solved;
    const candidates = piecesOf(state.snapshot, spec.quiz.side);
    if (ui.list.dataset.pieces !== candidates.join(' ')) {
      ui.list.replaceChildren();
      for (const name of candidates) {
        const label = make('label', { class: 'quiz-pick' }, ui.list);
        const input = make('input', { type: 'checkbox', 'data-pick': name }, label);
        make('span', { text: name }, label);
        input.addEventListener('change', () => pick(name));
      }
      ui.list.dataset.pieces = candidates.join(' ');
    }
    for (const input of ui.list.querySelectorAll('input')) {
      input.checked = q.picked.includes(input.dataset.pick);
      input.disabled = q.solved;
    }
    markPickable();
    const fb = q.feedback;
    ui.feedback.dataset.tone = fb?.tone ?? '';
    ui.feedback.textContent = fb ? tr(fb.key, { pieces: listOf(fb.pieces ?? [], lg) }) : tr('ex3.picked', { pieces: q.picked.length ? listOf(q.picked, lg) : tr('ex3.none') });
  }

  // ------------------------------------------------------------ drawing

  function statusText(s) {
    const tr = state.t;
    if (s.outcome) {
      const o = s.outcome;
      const head = o.kind === 'win' ? tr('result.win', { side: tr(`color.${o.winner}`) }) : tr('result.draw');
      return `${head}. ${reasonText(o, null, tr)}`;
    }
    const st = statusOf(s, board.ui);
    return tr(st.key, { ...st.params, side: tr(`color.${st.params.side}`) });
  }

  function noteText() {
    const tr = state.t;
    const n = state.note;
    if (!n) return '';
    const color = (side) => tr(`color.${side}`);
    switch (n.kind) {
      case 'refused':
        return tr('diagram.refused', { message: n.message });
      case 'mill': {
        const params = { side: color(n.side), offered: listOf(n.offered, state.lang), protected: listOf(n.protected, state.lang) };
        if (spec.notes?.mill) return tr(spec.notes.mill, params);
        const head = tr(`note.mill.${n.victim}`, params);
        return n.protected.length ? `${head} ${tr('note.protected', params)}` : head;
      }
      case 'passed':
        return tr(spec.notes?.passed ?? 'note.passed', { next: color(n.next) });
      case 'quiet':
        return tr('note.quiet', { next: color(n.next) });
      default:
        return '';
    }
  }

  function render() {
    const tr = state.t;
    const s = state.snapshot;
    tabBar?.setAttribute('aria-label', tr('diagram.tabs'));
    tabButtons.forEach((button, i) => {
      button.textContent = tr(spec.tabs[i].key);
      button.setAttribute('aria-pressed', String(i === state.tab));
    });
    reset.textContent = tr('diagram.reset');
    reset.setAttribute('aria-label', tr('diagram.resetLabel'));
    caption.textContent = tr(spec.tabs[state.tab].caption);
    if (!s) return;
    if (state.error) {
      status.textContent = tr('diagram.error', { message: state.error });
      status.dataset.tone = 'alert';
    } else if (state.quiz && !state.quiz.solved) {
      status.textContent = tr('ex3.status');
      status.dataset.tone = 'act';
    } else {
      status.textContent = statusText(s);
      status.dataset.tone = s.outcome ? 'result' : s.pendingRemovals > 0 ? 'remove' : 'act';
    }
    const hideSummary = state.quiz && !state.quiz.solved;
    if (hideSummary) {
      summary.textContent = '';
    } else {
      const sum = highlightSummary(s);
      summary.textContent = tr(sum.key, { ...sum.params, side: sum.params.side ? tr(`color.${sum.params.side}`) : '' });
    }
    note.textContent = noteText();
    note.dataset.tone = state.note?.kind ?? '';
    note.hidden = !state.note;
    if (state.quiz) renderQuiz();
    figure.dataset.turn = s.turn;
    figure.dataset.pending = String(s.pendingRemovals);
  }

  load(0);

  return {
    setLanguage(t, lang) {
      state.t = t;
      state.lang = lang;
      board.setTranslator(t);
      render();
    },
    get snapshot() {
      return state.snapshot;
    },
  };
}
