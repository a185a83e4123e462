// Owns what a click or a key press on the board means, given a snapshot of the game.
// Pure functions, no DOM: the snapshot (from mill-core via WebAssembly, or from the server)
// says which points are legal; this module only maps clicks onto those lists. It holds no
// rules: a point that is not in the snapshot's lists never produces an action.
//
// Shapes (typed in types.js, explained in static/js/README.md):
//   topology: { files, ranks, points: [{name, file, rank}], segments, neighbours, lines }
//   snapshot: { turn, phase, inHand, onBoard, pieces, pendingRemovals, selectable,
//               destinations, removable, record, lastTurn, closedMills, actions,
//               outcome, position }
//   ui:       { selected: point name | null, focus: point name | null }

export const EMPTY_UI = Object.freeze({ selected: null, focus: null });

export const other = (side) => (side === 'light' ? 'dark' : 'light');

/**
 * An empty board with nothing to click: shown while the real state is on its way. The
 * pieces in hand and the phases come from `start`, the start of the rules in play (a
 * fresh local game's snapshot), so no number of pieces is written here; without it,
 * nothing is in hand.
 * @param {import('./types.js').Snapshot} [start]
 * @returns {import('./types.js').Snapshot}
 */
export function blankSnapshot(start) {
  return {
    position: '',
    turn: 'light',
    phase: start ? { ...start.phase } : { light: 'placing', dark: 'placing' },
    inHand: start ? { ...start.inHand } : { light: 0, dark: 0 },
    onBoard: { light: 0, dark: 0 },
    pieces: {},
    pendingRemovals: 0,
    selectable: [],
    destinations: {},
    removable: [],
    record: [],
    lastTurn: [],
    closedMills: [],
    actions: 0,
    outcome: null,
  };
}

/**
 * mill-core's view of a game (`GameView`: the server's `state`, or WasmGame.snapshot()
 * for local play; the same fields either way) as the page's snapshot shape
 * (static/js/README.md, types.js). Only renames and reshapes: every fact comes from the view.
 * @param {import('./types.js').GameView} view @returns {import('./types.js').Snapshot}
 */
export function snapshotFromView(view) {
  /** @type {Record<string, import('./types.js').Side>} */
  const pieces = {};
  for (const side of /** @type {const} */ (['light', 'dark'])) {
    for (const p of view.pieces?.[side] ?? []) pieces[p] = side;
  }
  const legal = view.legal ?? { selectable: [], destinations: {}, removable: [] };
  return {
    position: view.position,
    turn: view.turn,
    phase: view.phase,
    inHand: view.in_hand,
    onBoard: view.on_board,
    pieces,
    pendingRemovals: view.pending_removals ?? 0,
    selectable: legal.selectable ?? [],
    destinations: legal.destinations ?? {},
    removable: legal.removable ?? [],
    record: view.record ?? [],
    lastTurn: view.last_turn_actions ?? [],
    closedMills: view.closed_mills ?? [],
    actions: (view.actions ?? []).length,
    outcome: view.outcome ?? null,
  };
}

/** What a point is right now, for drawing and for its accessible name. */
export function pointState(snapshot, ui, name, canAct = true) {
  const piece = snapshot.pieces[name] ?? null;
  const live = canAct && !snapshot.outcome;
  const removing = snapshot.pendingRemovals > 0;
  const selectedTargets = ui.selected ? snapshot.destinations[ui.selected] ?? [] : [];
  const marks = lastTurnMarks(snapshot);
  const inMill = (snapshot.closedMills ?? []).some((line) => line.includes(name));
  return {
    name,
    piece,
    canPlace: live && !removing && !piece && snapshot.selectable.includes(name),
    canSelect: live && !removing && !!piece && name in snapshot.destinations,
    selected: live && ui.selected === name,
    target: live && !removing && selectedTargets.includes(name),
    canRemove: live && removing && snapshot.removable.includes(name),
    lastFrom: marks.from === name,
    lastTo: marks.to === name,
    lastRemoved: marks.removed.includes(name),
    inMill,
  };
}

/**
 * A click (or Enter) on a point. Returns the new ui and the action to play, if any, in
 * the rules' text form: "d6" (place), "a1-a4" (move), "xd2" (remove).
 */
export function clickPoint(snapshot, ui, name, canAct = true) {
  const s = pointState(snapshot, ui, name, canAct);
  const focus = name;
  if (s.canRemove) return { ui: { selected: null, focus }, action: `x${name}` };
  if (s.canPlace) return { ui: { selected: null, focus }, action: name };
  if (s.target) return { ui: { selected: null, focus }, action: `${ui.selected}-${name}` };
  if (s.canSelect) return { ui: { selected: ui.selected === name ? null : name, focus }, action: null };
  // Not a legal point: nothing happens but the selection is dropped, so the next click
  // starts fresh.
  return { ui: { selected: null, focus }, action: null };
}

/** Keeps a selection only while the snapshot still lets that piece move. */
export function reconcile(ui, snapshot) {
  const keep = ui.selected && !snapshot.outcome && snapshot.pendingRemovals === 0 && ui.selected in snapshot.destinations;
  return keep ? ui : { ...ui, selected: null };
}

/** Points of the latest turn: where a piece came from, where it went, what was removed. */
export function lastTurnMarks(snapshot) {
  const marks = { from: null, to: null, removed: [] };
  for (const text of snapshot.lastTurn ?? []) {
    if (text.startsWith('x')) marks.removed.push(text.slice(1));
    else if (text.includes('-')) [marks.from, marks.to] = text.split('-');
    else marks.to = text;
  }
  return marks;
}

/**
 * The mill lines the latest turn closed, ready to draw: each line's points in board
 * order, its two ends (a line is straight: the ends are its first and last point along
 * it), and whether it is fresh — closed just now, its removal still to be made — or only
 * marks the last turn.
 */
export function closedMillLines(topology, snapshot) {
  const where = new Map(topology.points.map((p) => [p.name, p]));
  const fresh = snapshot.pendingRemovals > 0 && !snapshot.outcome;
  const lines = [];
  for (const line of snapshot.closedMills ?? []) {
    const points = line.map((name) => where.get(name)).filter(Boolean);
    if (points.length < 2 || points.length !== line.length) continue;
    points.sort((a, b) => a.file - b.file || a.rank - b.rank);
    const names = points.map((p) => p.name);
    lines.push({ points: names, from: names[0], to: names.at(-1), fresh });
  }
  return lines;
}

const DIRECTIONS = {
  ArrowUp: [0, 1],
  ArrowDown: [0, -1],
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
};

export const isArrowKey = (key) => key in DIRECTIONS;

/**
 * The point an arrow key moves the focus to, along the board's geometry: first a
 * neighbour joined by a line in that direction, else the nearest point that way
 * (preferring the same file or rank). Stays put at the edge.
 */
export function moveFocus(topology, from, key) {
  const dir = DIRECTIONS[key];
  const here = topology.points.find((p) => p.name === from);
  if (!here) return topology.points[0]?.name ?? null;
  if (!dir) return from;
  const neighbours = topology.neighbours[from] ?? [];
  let best = from;
  let bestScore = Infinity;
  for (const p of topology.points) {
    const dx = p.file - here.file;
    const dy = p.rank - here.rank;
    const along = dx * dir[0] + dy * dir[1];
    if (along <= 0) continue;
    const across = Math.abs(dx * dir[1]) + Math.abs(dy * dir[0]);
    const score = (neighbours.includes(p.name) ? 0 : 100) + along + 3 * across;
    if (score < bestScore) {
      bestScore = score;
      best = p.name;
    }
  }
  return best;
}

/** Where the focus goes when the board first gets it: the selection, a legal point, or the middle. */
export function defaultFocus(topology, snapshot, ui) {
  if (ui.focus) return ui.focus;
  if (ui.selected) return ui.selected;
  const legal = snapshot.pendingRemovals > 0 ? snapshot.removable : snapshot.selectable;
  return legal[0] ?? topology.points[0]?.name ?? null;
}

/**
 * The status line: what to do now. `seat` is the side this screen plays (online), or
 * null when both sides play here. Returns {key, params} for i18n and a tone.
 */
export function statusOf(snapshot, ui, seat = null) {
  const side = snapshot.turn;
  if (snapshot.outcome) {
    const o = snapshot.outcome;
    if (o.kind === 'aborted') return { key: 'clock.result.aborted', params: {}, tone: 'result', reason: 'aborted' };
    return o.kind === 'win'
      ? { key: 'result.win', params: { side: o.winner }, tone: 'result', reason: o.reason, loser: other(o.winner) }
      : { key: 'result.draw', params: {}, tone: 'result', reason: o.reason };
  }
  if (seat && seat !== side) {
    return { key: snapshot.pendingRemovals > 0 ? 'status.waitRemove' : 'status.waitMove', params: { side }, tone: 'wait' };
  }
  if (snapshot.pendingRemovals > 0) return { key: `status.remove.${other(side)}`, params: { side }, tone: 'remove' };
  const phase = snapshot.phase[side];
  if (phase === 'placing') return { key: 'status.place', params: { side }, tone: 'act' };
  const flying = phase === 'flying';
  if (ui.selected) return { key: flying ? 'status.flyTo' : 'status.moveTo', params: { side }, tone: 'act' };
  return { key: flying ? 'status.fly' : 'status.move', params: { side }, tone: 'act' };
}

/** The reasons a win gives a loser, said to that side ("You resigned.") or of it. */
const PERSONAL_REASONS = Object.freeze(['pieces', 'blocked', 'resignation']);

/**
 * Why the game ended, in words, as `viewer` sees it: the side this screen plays (an online
 * seat, the person vs the computer), or null when both sides or a spectator look on. The
 * loser reads "You resigned.", the winner "Your opponent (Light) resigned.", anyone else
 * "Light resigned."; draws and a winning line read the same for all.
 * @param {import('./types.js').Outcome} outcome @param {import('./types.js').Side | null} viewer
 * @param {import('./types.js').Translate} t @returns {string}
 */
export function reasonText(outcome, viewer, t) {
  const loser = outcome.kind === 'win' && outcome.winner ? other(outcome.winner) : null;
  const params = loser ? { loser: t(`color.${loser}`), loserOf: t(`color.of.${loser}`) } : {};
  if (!loser || !PERSONAL_REASONS.includes(outcome.reason) || !viewer) return t(`reason.${outcome.reason}`, params);
  return t(`reason.${viewer === loser ? 'you' : 'opponent'}.${outcome.reason}`, params);
}

/** The accessible name of a point, e.g. "d6, Light piece, can move". */
export function accessibleName(snapshot, ui, name, t, canAct = true) {
  const s = pointState(snapshot, ui, name, canAct);
  const parts = [name, s.piece ? t('point.piece', { side: t(`color.${s.piece}`) }) : t('point.empty')];
  if (s.selected) parts.push(t('point.selected'));
  if (s.canPlace) parts.push(t('point.canPlace'));
  if (s.canSelect && !s.selected) parts.push(t('point.canMove'));
  if (s.target) parts.push(t('point.canMoveHere'));
  if (s.canRemove) parts.push(t('point.canRemove'));
  if (s.lastTo || s.lastFrom || s.lastRemoved) parts.push(t('point.lastMove'));
  if (s.inMill) parts.push(t('point.inMill'));
  return parts.join(', ');
}

/**
 * Whether "New game" must ask first: a game is under way (more than `opening` actions —
 * vs computer the computer's own first placement does not count — and not over).
 * An empty or finished game starts over at once.
 */
export function newGameNeedsConfirm(snapshot, opening = 0) {
  return !!snapshot && !snapshot.outcome && snapshot.actions > opening;
}

/** The record as numbered rows: [{n: 1, light: "d6", dark: "a1"}, …]. */
export function recordRows(record) {
  const rows = [];
  for (let i = 0; i < record.length; i += 2) {
    rows.push({ n: i / 2 + 1, light: record[i], dark: record[i + 1] ?? null });
  }
  return rows;
}
