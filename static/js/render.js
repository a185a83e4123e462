// Owns the SVG board: built once from the rules' topology, then updated from a snapshot.
// Draws and labels; decides nothing (board.js says what each point is).

import { accessibleName, closedMillLines, defaultFocus, lastTurnMarks, pointState } from './board.js';

const SVG = 'http://www.w3.org/2000/svg';
const CELL = 100;
// Room around the outer square for a whole piece plus the coordinates.
const MARGIN = 88;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

let uid = 0;

/** Builds the board in `container`. Returns { svg, update, focusPoint }. */
export function createBoardView(container, topology, { label = 'Board' } = {}) {
  const id = `mb${++uid}`;
  const width = 2 * MARGIN + (topology.files - 1) * CELL;
  const height = 2 * MARGIN + (topology.ranks - 1) * CELL;
  const at = new Map(
    topology.points.map((p) => [p.name, { x: MARGIN + p.file * CELL, y: MARGIN + (topology.ranks - 1 - p.rank) * CELL }]),
  );

  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'board',
    role: 'group',
    'aria-label': label,
    // Chromium makes an <svg> a Tab stop of its own; the points are the board's one stop.
    tabindex: '-1',
  });
  const defs = el('defs', {}, svg);
  defs.innerHTML = `
    <radialGradient id="${id}-light" cx="38%" cy="32%" r="75%">
      <stop offset="0%" stop-color="#ffffff"/><stop offset="55%" stop-color="#f1e9da"/><stop offset="100%" stop-color="#c9bba2"/>
    </radialGradient>
    <radialGradient id="${id}-dark" cx="38%" cy="32%" r="75%">
      <stop offset="0%" stop-color="#6b6f78"/><stop offset="50%" stop-color="#33363d"/><stop offset="100%" stop-color="#17181c"/>
    </radialGradient>
    <linearGradient id="${id}-wood" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0%" stop-color="#e8c88f"/><stop offset="100%" stop-color="#d5a960"/>
    </linearGradient>
    <filter id="${id}-shadow" x="-30%" y="-30%" width="160%" height="160%">
      <feDropShadow dx="0" dy="5" stdDeviation="4" flood-color="#000" flood-opacity="0.35"/>
    </filter>`;
  el('rect', { class: 'board-bg', x: 6, y: 6, width: width - 12, height: height - 12, rx: 28, fill: `url(#${id}-wood)` }, svg);

  // Coordinates from the point names themselves: letters below, numbers on the left.
  const coords = el('g', { class: 'coords', 'aria-hidden': 'true' }, svg);
  const files = new Map();
  const ranks = new Map();
  for (const p of topology.points) {
    files.set(p.file, p.name[0]);
    ranks.set(p.rank, p.name.slice(1));
  }
  for (const [file, letter] of files) {
    el('text', { x: MARGIN + file * CELL, y: height - 20, 'text-anchor': 'middle' }, coords).textContent = letter;
  }
  for (const [rank, digit] of ranks) {
    el('text', { x: 28, y: MARGIN + (topology.ranks - 1 - rank) * CELL + 7, 'text-anchor': 'middle' }, coords).textContent =
      digit;
  }

  const lines = el('g', { class: 'lines', 'aria-hidden': 'true' }, svg);
  for (const [a, b] of topology.segments) {
    const p = at.get(a);
    const q = at.get(b);
    el('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y }, lines);
  }

  // The mill the latest turn closed: a band along its line, under the pieces.
  const mills = el('g', { class: 'mills', 'aria-hidden': 'true' }, svg);
  let millsKey = '';

  const layer = el('g', { class: 'points' }, svg);
  const points = new Map();
  for (const p of topology.points) {
    const { x, y } = at.get(p.name);
    const g = el('g', { class: 'pt', 'data-point': p.name, role: 'button', tabindex: '-1', transform: `translate(${x} ${y})` }, layer);
    el('circle', { class: 'hit', r: 48 }, g);
    el('circle', { class: 'dot', r: 9 }, g);
    el('circle', { class: 'last-from', r: 22 }, g);
    el('circle', { class: 'ring', r: 42 }, g);
    const piece = el('g', { class: 'piece' }, g);
    el('circle', { class: 'piece-body light', r: 34, fill: `url(#${id}-light)`, filter: `url(#${id}-shadow)` }, piece);
    el('circle', { class: 'piece-body dark', r: 34, fill: `url(#${id}-dark)`, filter: `url(#${id}-shadow)` }, piece);
    el('circle', { class: 'piece-inlay', r: 20 }, piece);
    el('circle', { class: 'hint', r: 14 }, g);
    el('path', { class: 'cross', d: 'M-14 -14 L14 14 M14 -14 L-14 14' }, g);
    el('circle', { class: 'focus-ring', r: 47 }, g);
    points.set(p.name, g);
  }
  container.appendChild(svg);

  let lastMoveKey = null;

  function update(snapshot, ui, { t, canAct = true }) {
    svg.setAttribute('aria-label', t('board.label'));
    svg.classList.toggle('inactive', !canAct || !!snapshot.outcome);
    const focus = defaultFocus(topology, snapshot, ui);
    for (const [name, g] of points) {
      const s = pointState(snapshot, ui, name, canAct);
      const cls = g.classList;
      cls.toggle('has-piece', !!s.piece);
      cls.toggle('light', s.piece === 'light');
      cls.toggle('dark', s.piece === 'dark');
      cls.toggle('can-place', s.canPlace);
      cls.toggle('can-select', s.canSelect);
      cls.toggle('selected', s.selected);
      cls.toggle('target', s.target);
      cls.toggle('can-remove', s.canRemove);
      cls.toggle('last-from', s.lastFrom);
      cls.toggle('last-to', s.lastTo);
      cls.toggle('last-removed', s.lastRemoved && !s.piece);
      cls.toggle('in-mill', s.inMill);
      const actionable = s.canPlace || s.canSelect || s.target || s.canRemove;
      cls.toggle('actionable', actionable);
      g.setAttribute('aria-label', accessibleName(snapshot, ui, name, t, canAct));
      g.setAttribute('aria-disabled', String(!actionable));
      if (s.selected) g.setAttribute('aria-pressed', 'true');
      else g.removeAttribute('aria-pressed');
      g.setAttribute('tabindex', name === focus ? '0' : '-1');
    }
    drawMills(snapshot);
    animateLastMove(snapshot);
  }

  function drawMills(snapshot) {
    const lines = closedMillLines(topology, snapshot);
    const key = lines.map((l) => `${l.points.join(' ')}:${l.fresh}`).join('|');
    if (key === millsKey) return;
    millsKey = key;
    mills.replaceChildren();
    for (const line of lines) {
      const p = at.get(line.from);
      const q = at.get(line.to);
      el(
        'line',
        { class: `mill-line ${line.fresh ? 'fresh' : 'settled'}`, 'data-points': line.points.join(' '), x1: p.x, y1: p.y, x2: q.x, y2: q.y },
        mills,
      );
      // While the removal is owed, a glow around each piece of the mill too: on a phone
      // the band alone barely shows between pieces that stand close.
      if (line.fresh) {
        for (const name of line.points) {
          const c = at.get(name);
          el('circle', { class: 'mill-halo', cx: c.x, cy: c.y, r: 46 }, mills);
        }
      }
    }
  }

  // Slides the piece that just moved from its old point, so a move reads as a move.
  function animateLastMove(snapshot) {
    const marks = lastTurnMarks(snapshot);
    const key = `${snapshot.actions}:${marks.from}-${marks.to}`;
    if (key === lastMoveKey) return;
    const first = lastMoveKey === null;
    lastMoveKey = key;
    if (first || !marks.from || !marks.to || (snapshot.lastTurn ?? []).length > 1) return;
    const piece = points.get(marks.to)?.querySelector('.piece');
    const from = at.get(marks.from);
    const to = at.get(marks.to);
    if (!piece || !from || !to || typeof piece.animate !== 'function') return;
    piece.animate(
      [{ transform: `translate(${from.x - to.x}px, ${from.y - to.y}px)` }, { transform: 'translate(0px, 0px)' }],
      { duration: 220, easing: 'ease-out' },
    );
  }

  /** @param {string} name @param {FocusOptions} [options] */
  function focusPoint(name, options) {
    points.get(name)?.focus(options);
  }

  return { svg, update, focusPoint };
}
