// Owns the board's input: pointer (mouse, touch, pen) and keyboard. Turns DOM events into
// four intents — activate a point, move the focus, clear the selection, focus landed on a
// point — and leaves their meaning to the caller.

import { isArrowKey } from './board.js';

const pointOf = (target) => target?.closest?.('[data-point]')?.getAttribute('data-point') ?? null;

export function bindBoard(svg, { activate, arrow, escape, focused }) {
  // `click` covers mouse, touch and pen alike, and fires once per tap.
  svg.addEventListener('click', (event) => {
    const name = pointOf(event.target);
    if (name) activate(name, 'pointer');
  });
  svg.addEventListener('keydown', (event) => {
    const name = pointOf(event.target);
    if (!name) return;
    if (isArrowKey(event.key)) {
      event.preventDefault();
      arrow(name, event.key);
    } else if (event.key === 'Enter' || event.key === ' ' || event.key === 'Spacebar') {
      event.preventDefault();
      activate(name, 'keyboard');
    } else if (event.key === 'Escape') {
      escape();
    }
  });
  svg.addEventListener('focusin', (event) => {
    const name = pointOf(event.target);
    if (name) focused(name);
  });
  // A mouse click focuses the point too; only keyboard focus should show the ring, which
  // :focus-visible takes care of.
}
