import assert from 'node:assert/strict';
import { test } from 'node:test';

import { backoffDelay, command, commandIds, lastPlayedBy, newSeatKey, onlineView, rematchChange, roomScore, scoreText, snapshotFromState } from '../../static/js/protocol.js';

// The example `state` from docs/PROTOCOL.md.
const state = {
  type: 'state',
  room: 'k7q2mx9rd4tf',
  round: 1,
  version: 13,
  variant: 'nine',
  position: 'L.D/.L./.../...DL./.../.../... d 6 7 0 0',
  turn: 'dark',
  phase: { light: 'placing', dark: 'placing' },
  in_hand: { light: 6, dark: 7 },
  on_board: { light: 3, dark: 2 },
  pieces: { light: ['a7', 'd6', 'f4'], dark: ['g7', 'e4'] },
  pending_removals: 0,
  quiet_turns: 0,
  legal: { selectable: ['a1', 'a4'], destinations: {}, removable: [] },
  actions: ['d6', 'g7', 'a7', 'e4', 'f4'],
  record: ['d6', 'g7', 'a7', 'e4', 'f4'],
  last_action: 'f4',
  last_turn: 'f4',
  last_turn_actions: ['f4'],
  closed_mills: [],
  seats: { light: { taken: true, online: true }, dark: { taken: true, online: true } },
  offers: { draw: null, new_round: [] },
  result: null,
  outcome: null,
};

test('a server state becomes the same snapshot shape as the wasm one', () => {
  const s = snapshotFromState(state);
  assert.equal(s.turn, 'dark');
  assert.deepEqual(s.inHand, { light: 6, dark: 7 });
  assert.deepEqual(s.pieces, { a7: 'light', d6: 'light', f4: 'light', g7: 'dark', e4: 'dark' });
  assert.deepEqual(s.selectable, ['a1', 'a4']);
  assert.deepEqual(s.lastTurn, ['f4']);
  assert.equal(s.actions, 5);
  assert.equal(s.outcome, null);
});

test('the mill the latest turn closed comes through; an older server without the field gives none', () => {
  const closing = snapshotFromState({ ...state, pending_removals: 1, turn: 'light', closed_mills: [['a7', 'd7', 'g7']] });
  assert.deepEqual(closing.closedMills, [['a7', 'd7', 'g7']]);
  const { closed_mills: _, ...older } = state;
  assert.deepEqual(snapshotFromState(older).closedMills, []);
});

test('a finished round has no legal clicks and an outcome', () => {
  const won = snapshotFromState({
    ...state,
    legal: null,
    result: { winner: 'light', reason: 'resignation' },
    outcome: { kind: 'win', winner: 'light', reason: 'resignation' },
  });
  assert.deepEqual(won.selectable, []);
  assert.deepEqual(won.outcome, { kind: 'win', winner: 'light', reason: 'resignation' });
  const drawn = snapshotFromState({
    ...state,
    legal: null,
    result: { winner: null, reason: 'agreement' },
    outcome: { kind: 'draw', reason: 'agreement' },
  });
  assert.deepEqual(drawn.outcome, { kind: 'draw', reason: 'agreement' });
});

test('commands carry a unique id and the round and version they were made on', () => {
  const next = commandIds(() => 0.5);
  const a = command('action', state, next(), { action: 'd2' });
  const b = command('resign', state, next());
  assert.deepEqual(a, { type: 'action', id: a.id, round: 1, version: 13, action: 'd2' });
  assert.notEqual(a.id, b.id);
  assert.ok(a.id.length >= 1 && a.id.length <= 64);
});

test('reconnect back-off grows and stays under ten seconds', () => {
  const mid = () => 0.5;
  assert.equal(backoffDelay(0, mid), 500);
  assert.equal(backoffDelay(1, mid), 1000);
  assert.equal(backoffDelay(3, mid), 4000);
  assert.equal(backoffDelay(50, mid), 10000);
  assert.ok(backoffDelay(50, () => 0.999) <= 11500);
});

test('the online view allows play only on your turn with both seats present', () => {
  assert.equal(onlineView(state, 'dark', 'open').canAct, true);
  assert.equal(onlineView(state, 'light', 'open').canAct, false);
  assert.equal(onlineView(state, 'dark', 'reconnecting').canAct, false);
  const away = { ...state, seats: { light: { taken: true, online: false }, dark: { taken: true, online: true } } };
  assert.equal(onlineView(away, 'dark', 'open').canAct, false);
  assert.equal(onlineView(away, 'dark', 'open').opponentOnline, false);
  const alone = { ...state, seats: { light: { taken: true, online: true }, dark: { taken: false, online: false } } };
  assert.equal(onlineView(alone, 'light', 'open').friendJoined, false);
  assert.equal(onlineView(state, null, 'open').canAct, false); // spectator
});

test('draw offers and new rounds are offered to the right seat', () => {
  const offered = { ...state, offers: { draw: 'light', new_round: [] } };
  assert.equal(onlineView(offered, 'dark', 'open').drawOfferedToMe, true);
  assert.equal(onlineView(offered, 'light', 'open').drawOfferedByMe, true);
  assert.equal(onlineView(offered, 'light', 'open').canOfferDraw, false);
  const over = { ...state, legal: null, result: { winner: null, reason: 'agreement' }, offers: { draw: null, new_round: ['dark'] } };
  assert.equal(onlineView(over, 'dark', 'open').askedNewRound, true);
  assert.equal(onlineView(over, 'dark', 'open').canAskNewRound, false);
  assert.equal(onlineView(over, 'light', 'open').canAskNewRound, true);
  assert.equal(onlineView(over, 'light', 'open').opponentAskedNewRound, true);
  assert.equal(onlineView(over, 'light', 'open').canResign, false);
});

test('a spectator is offered no draw and sees no draw offered by it', () => {
  const view = onlineView(state, null, 'open');
  assert.equal(state.offers?.draw ?? null, null);
  assert.equal(view.drawOfferedByMe, false);
  assert.equal(view.canOfferDraw, false);
  assert.equal(view.drawOfferedToMe, false);
  assert.equal(view.canResign, false);
});

test('only the side whose turn was the last thing played may ask for it back', () => {
  // Light played f4 last; Dark is to move.
  assert.equal(lastPlayedBy(state), 'light');
  assert.equal(onlineView(state, 'light', 'open').canAskTakeback, true);
  assert.equal(onlineView(state, 'dark', 'open').canAskTakeback, false);
  assert.equal(onlineView(state, null, 'open').canAskTakeback, false, 'a spectator asks nothing');
  assert.equal(onlineView(state, 'light', 'reconnecting').canAskTakeback, false);
  // Mid-turn, owing a removal, the side to move played last.
  const removing = { ...state, turn: 'light', pending_removals: 1 };
  assert.equal(lastPlayedBy(removing), 'light');
  assert.equal(onlineView(removing, 'light', 'open').canAskTakeback, true);
  assert.equal(lastPlayedBy({ ...state, actions: [], turn: 'light' }), null);
  const asked = { ...state, offers: { draw: null, new_round: [], takeback: 'light', declined: null } };
  assert.equal(onlineView(asked, 'light', 'open').canAskTakeback, false);
  assert.equal(onlineView(asked, 'light', 'open').takebackAskedByMe, true);
  assert.equal(onlineView(asked, 'dark', 'open').takebackAskedToMe, true);
  assert.equal(onlineView(asked, null, 'open').takebackAskedToMe, false);
  const over = { ...asked, result: { winner: 'light', reason: 'resignation' } };
  assert.equal(onlineView(over, 'dark', 'open').takebackAskedToMe, false);
});

test('a declined offer is told to the side that made it, not to the one that declined', () => {
  const declined = { ...state, offers: { draw: null, new_round: [], declined: { offer: 'draw', by: 'dark' } } };
  assert.equal(onlineView(declined, 'light', 'open').declinedMine, 'draw');
  assert.equal(onlineView(declined, 'dark', 'open').declinedMine, null);
  assert.equal(onlineView(declined, null, 'open').declinedMine, null);
  const takeback = { ...state, offers: { draw: null, new_round: [], declined: { offer: 'takeback', by: 'light' } } };
  assert.equal(onlineView(takeback, 'dark', 'open').declinedMine, 'takeback');
  // An older server sends neither field.
  assert.equal(onlineView(state, 'light', 'open').declinedMine, null);
  assert.equal(onlineView(state, 'dark', 'open').takebackAskedToMe, false);
});

test('the room score counts a win 1 and a draw ½ each, the current round once it is over', () => {
  const past = new Map([
    [1, { winner: 'dark', reason: 'blocked' }],
    [2, { winner: null, reason: 'agreement' }],
  ]);
  assert.deepEqual(roomScore(3, past, null), { light: 0.5, dark: 1.5, known: true });
  assert.deepEqual(roomScore(3, past, { winner: 'light' }), { light: 1.5, dark: 1.5, known: true });
  assert.deepEqual(roomScore(1, new Map(), null), { light: 0, dark: 0, known: true });
  // A round whose record has not come yet: the score is not known.
  assert.equal(roomScore(3, new Map([[1, null], [2, past.get(2)]]), null).known, false);
  assert.equal(roomScore(3, new Map([[2, past.get(2)]]), null).known, false);
  assert.deepEqual([0, 0.5, 1, 1.5, 2, 12.5].map(scoreText), ['0', '½', '1', '1½', '2', '12½']);
});

test('a rematch: offered only after a paired round, answered by the other seat, and what became of it', () => {
  const over = { ...state, result: { winner: 'light', reason: 'resignation' }, offers: { draw: null, new_round: [], rematch_open: true, rematch: null, rematch_room: null } };
  const withOffers = (offers) => ({ ...over, offers: { ...over.offers, ...offers } });
  assert.equal(onlineView(state, 'dark', 'open').mayRematch, false, 'not while the round is played');
  assert.equal(onlineView(withOffers({ rematch_open: false }), 'dark', 'open').mayRematch, false, 'not in an invite room');
  assert.equal(onlineView(over, null, 'open').mayRematch, false, 'not for a watcher');
  assert.equal(onlineView(over, 'dark', 'open').canOfferRematch, true);
  const away = { ...over, seats: { ...over.seats, light: { taken: true, online: false } } };
  assert.equal(onlineView(away, 'dark', 'open').canOfferRematch, false, 'the opponent must be here');
  const offered = withOffers({ rematch: 'light' });
  assert.deepEqual(
    [onlineView(offered, 'light', 'open').rematchOfferedByMe, onlineView(offered, 'dark', 'open').rematchOfferedToMe, onlineView(offered, 'dark', 'open').canOfferRematch],
    [true, true, false]
  );
  const agreed = withOffers({ rematch_room: 'abcdefghijkl' });
  assert.equal(onlineView(agreed, 'dark', 'open').rematchRoom, 'abcdefghijkl');
  // A spectator is not moved but shown the way there; a seat is moved, not shown it.
  assert.equal(onlineView(agreed, null, 'open').rematchRoom, null);
  assert.equal(onlineView(agreed, null, 'open').watchRematch, 'abcdefghijkl');
  assert.equal(onlineView(agreed, 'dark', 'open').watchRematch, null);
  assert.equal(onlineView(over, null, 'open').watchRematch, null, 'nothing before it is agreed');
  assert.equal(onlineView(agreed, 'dark', 'open').mayRematch, false);
  // Declined by the opponent; withdrawn or declined by this page; gone otherwise: lapsed.
  const declinedBy = (by) => withOffers({ declined: { offer: 'rematch', by } });
  assert.equal(rematchChange(offered, declinedBy('dark'), 'light', false), 'declined');
  assert.equal(rematchChange(offered, declinedBy('dark'), 'dark', true), null);
  assert.equal(rematchChange(offered, over, 'light', true), null);
  assert.equal(rematchChange(offered, over, 'light', false), 'lapsed');
  assert.equal(rematchChange(offered, over, 'dark', false), 'lapsed');
  assert.equal(rematchChange(offered, agreed, 'dark', false), null, 'agreed is no lapse');
  assert.equal(rematchChange(over, over, 'dark', false), null);
  assert.equal(rematchChange(offered, over, null, false), null);
  const key = newSeatKey();
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.notEqual(newSeatKey(), key);
});
