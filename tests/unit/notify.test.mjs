import assert from 'node:assert/strict';
import { test } from 'node:test';

import { blankSnapshot } from '../../static/js/board.js';
import { createNotifier, momentOf, newsOf } from '../../static/js/notify.js';
import { createOnlineState, createPageState } from '../../static/js/page-state.js';
import { translator } from '../../static/js/i18n.js';

/** A page in a room, seat `seat`, whose snapshot has `actions` played and `turn` to move. */
function onlinePage(seat, { actions, turn, pendingRemovals = 0, outcome = null, round = 1 }) {
  const page = createPageState('en', translator('en'));
  page.mode = 'online';
  page.online = { ...createOnlineState('room1'), seat, fresh: true, state: /** @type {any} */ ({ round }) };
  page.snapshot = { ...blankSnapshot(), position: 'x', actions, turn, pendingRemovals, outcome };
  return page;
}

test('news: the turn coming to the person, a mill, the end; nothing on the first look', () => {
  const start = momentOf(onlinePage('dark', { actions: 1, turn: 'dark' }));
  assert.deepEqual(newsOf(null, start), { yourTurn: false, mill: false, over: false }, 'a reload is no news');
  const waiting = momentOf(onlinePage('dark', { actions: 2, turn: 'light' }));
  const mine = momentOf(onlinePage('dark', { actions: 3, turn: 'dark' }));
  assert.equal(newsOf(waiting, mine).yourTurn, true);
  assert.equal(newsOf(mine, mine).yourTurn, false, 'a redraw is no news');
  const mill = momentOf(onlinePage('dark', { actions: 4, turn: 'light', pendingRemovals: 1 }));
  assert.deepEqual(newsOf(mine, mill), { yourTurn: false, mill: true, over: false });
  const over = momentOf(onlinePage('dark', { actions: 5, turn: 'dark', outcome: { kind: 'win', winner: 'light', reason: 'pieces' } }));
  assert.deepEqual(newsOf(mill, over), { yourTurn: false, mill: false, over: true });
  const resigned = momentOf(onlinePage('dark', { actions: 4, turn: 'light', pendingRemovals: 1, outcome: { kind: 'win', winner: 'dark', reason: 'resignation' } }));
  assert.deepEqual(newsOf(mill, resigned), { yourTurn: false, mill: false, over: true }, 'an end with no action');
  const nextRound = momentOf(onlinePage('dark', { actions: 6, turn: 'dark', round: 2 }));
  assert.equal(newsOf(waiting, nextRound).yourTurn, false, 'another round starts afresh');
  const spectator = (n, turn) => momentOf(onlinePage(null, { actions: n, turn }));
  assert.equal(newsOf(spectator(2, 'light'), spectator(3, 'dark')).yourTurn, false, 'a spectator has no turn');
});

test('the notifier: the title in a hidden tab, a sound unless muted, the switch remembered', () => {
  const saved = new Map();
  const storage = { ok: true, get: (k) => saved.get(k) ?? null, set: (k, v) => (saved.set(k, v), true), remove: (k) => saved.delete(k) };
  const listeners = {};
  const doc = { visibilityState: 'hidden', title: '', addEventListener: (type, f) => (listeners[type] = f) };
  const buzzes = [];
  const nav = { vibrate: (ms) => buzzes.push(ms) };
  const tones = [];
  class FakeAudio {
    state = 'running';
    currentTime = 0;
    destination = {};
    createOscillator() {
      const osc = { frequency: {}, connect: (g) => g, start: () => tones.push(osc.frequency.value), stop() {} };
      return osc;
    }
    createGain() {
      return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (d) => d };
    }
  }
  const n = createNotifier({ storage, doc: /** @type {any} */ (doc), nav: /** @type {any} */ (nav), Audio: /** @type {any} */ (FakeAudio) });
  n.update(onlinePage('dark', { actions: 2, turn: 'light' }));
  assert.equal(doc.title, 'Mill');
  n.update(onlinePage('dark', { actions: 3, turn: 'dark' }));
  assert.equal(doc.title, '● Your turn · Mill');
  assert.equal(tones.length, 2, 'two notes');
  assert.deepEqual(buzzes, [120]);
  doc.visibilityState = 'visible';
  listeners.visibilitychange();
  assert.equal(doc.title, 'Mill', 'looking at the tab clears the title');
  n.setMuted(true);
  assert.equal(saved.get('sound'), 'off');
  n.update(onlinePage('dark', { actions: 4, turn: 'light' }));
  n.update(onlinePage('dark', { actions: 5, turn: 'dark' }));
  assert.equal(tones.length, 2, 'muted: no more notes');
  assert.equal(createNotifier({ storage, doc: /** @type {any} */ (doc), nav: /** @type {any} */ (nav), Audio: /** @type {any} */ (FakeAudio) }).muted, true, 'the switch is remembered');
});
