// The live region's words (static/js/announce.js): between two moments of the page, one
// announcement per completed turn, held back until its removal; the mill that owes it;
// whose turn; the end and why; takebacks; online offers and presence — on snapshots of a
// real game in the rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { announcementsOf, hearingOf, settle } from '../../static/js/announce.js';
import { translator } from '../../static/js/i18n.js';
import { localGame } from '../../static/js/rules.js';
import { loadWasm } from './helpers.mjs';

const en = translator('en');
const ru = translator('ru');

/** A hearing of a local game: `seat` is the person's side (vs computer), null on one device. */
const hear = (snap, extra = {}) => ({ game: 'local', review: false, seat: null, snap, online: null, draw: null, takeback: null, ...extra });

/** Plays actions one at a time, collecting what the announcer says after each. */
function listen(game, actions, t = en, extra = {}) {
  let last = hear(game.snapshot(), extra);
  const said = [];
  for (const action of actions) {
    const reply = game.play(action);
    assert.ok(reply.ok, `${action}: ${JSON.stringify(reply)}`);
    const now = hear(game.snapshot(), extra);
    said.push(...announcementsOf(last, now, t));
    last = now;
  }
  return said;
}

test('a first look says where the game stands; nothing is said twice for one moment', async () => {
  const game = localGame(await loadWasm());
  const first = hear(game.snapshot());
  assert.deepEqual(announcementsOf(null, first, en), ['Light to move']);
  assert.deepEqual(announcementsOf(first, hear(game.snapshot()), en), []);
  assert.deepEqual(announcementsOf(first, null, en), []);
});

test('each turn once, with its mover; a mill is told when closed and the turn when its removal is made', async () => {
  const game = localGame(await loadWasm());
  const said = listen(game, ['d6', 'a7', 'd5', 'a1', 'd7', 'xa7']);
  assert.deepEqual(said, [
    'Light: places on d6. Dark to move',
    'Dark: places on a7. Light to move',
    'Light: places on d5. Dark to move',
    'Dark: places on a1. Light to move',
    'Light closed a mill and must remove a piece',
    'Light: places on d7, closes a mill, removes a7. Dark to move',
  ]);
  // The placement that closed the mill is said once, with its removal.
  assert.equal(said.filter((s) => s.includes('d7')).length, 1);
});

test('the person hears "your turn" and their own mill as an instruction, in Russian too', async () => {
  const game = localGame(await loadWasm());
  const said = listen(game, ['d6', 'a7', 'd5', 'a1', 'd7', 'xa7'], ru, { seat: 'light' });
  assert.equal(said[0], 'Светлые: ставят на d6. Ход: Тёмные');
  assert.equal(said[1], 'Тёмные: ставят на a7. Ваш ход');
  assert.equal(said[4], 'Мельница! Снимите фишку: Тёмные');
  assert.equal(said[5], 'Светлые: ставят на d7, мельница, снимают a7. Ход: Тёмные');
});

test("the other side's mill is heard once, whole, when its removal is made: the computer, an online opponent", async () => {
  // Vs computer the person plays Light; Dark (the computer) closes a mill with a7 a4 a1.
  let game = localGame(await loadWasm());
  let said = listen(game, ['d6', 'a7', 'd5', 'a4', 'g7', 'a1', 'xd6'], en, { seat: 'light' });
  assert.deepEqual(said.slice(-2), ['Light: places on g7. Dark to move', 'Dark: places on a1, closes a mill, removes d6. Your turn']);
  assert.equal(said.filter((s) => /closed a mill/.test(s)).length, 0, 'no "closed a mill" before the whole turn');
  // Online the same, for the opponent's mill; and a spectator hears each turn whole too.
  game = localGame(await loadWasm());
  const online = { game: 'online:r:1', online: { light: 'online', dark: 'online' } };
  said = listen(game, ['d6', 'a7', 'd5', 'a4', 'g7', 'a1', 'xd6'], ru, { ...online, seat: 'light' });
  assert.deepEqual(said.slice(-1), ['Тёмные: ставят на a1, мельница, снимают d6. Ваш ход']);
  assert.equal(said.length, 6);
  game = localGame(await loadWasm());
  said = listen(game, ['d6', 'a7', 'd5', 'a4', 'g7', 'a1', 'xd6'], en, { ...online, seat: null });
  assert.equal(said.length, 6);
  assert.equal(said.at(-1), 'Dark: places on a1, closes a mill, removes d6. Light to move');
});

test('several turns at once (a reply arriving with the person\'s turn) are each said, in order', async () => {
  const game = localGame(await loadWasm());
  const before = hear(game.snapshot(), { seat: 'light' });
  for (const a of ['d6', 'a7']) game.play(a);
  assert.deepEqual(announcementsOf(before, hear(game.snapshot(), { seat: 'light' }), en), ['Light: places on d6. Dark: places on a7. Your turn']);
});

test('a takeback and a new game are said; so is the end of the game and why', async () => {
  const game = localGame(await loadWasm());
  for (const a of ['d6', 'a7']) game.play(a);
  const before = hear(game.snapshot());
  game.undo();
  assert.deepEqual(announcementsOf(before, hear(game.snapshot()), en), ['Turn taken back. Dark to move']);
  const mid = hear(game.snapshot());
  game.restart();
  assert.deepEqual(announcementsOf(mid, hear(game.snapshot()), en), ['New game. Light to move']);
  // The end: Three Men's Morris, a line closed wins.
  assert.ok(game.startRules('three').ok);
  const said = listen(game, ['a1', 'a4', 'd1', 'd4', 'g1']);
  assert.match(said.at(-1), /^Light: places on g1.*Game over: Light wins\./);
});

test('an end with no action (resignation) is said once', async () => {
  const game = localGame(await loadWasm());
  game.play('d6');
  const snap = game.snapshot();
  const before = hear(snap);
  const after = hear({ ...snap, outcome: { kind: 'win', winner: 'dark', reason: 'resignation' } });
  assert.deepEqual(announcementsOf(before, after, en), ['Game over: Dark wins. Light resigned.']);
  assert.deepEqual(announcementsOf(after, after, en), []);
});

test('online: an offer, a takeback request, the opponent leaving and coming back; not your own', async () => {
  const game = localGame(await loadWasm());
  game.play('d6');
  const snap = game.snapshot();
  const base = { game: 'online:r:1', seat: 'light', snap, online: { light: 'online', dark: 'online' } };
  const a = hear(snap, base);
  assert.deepEqual(announcementsOf(a, hear(snap, { ...base, draw: 'dark' }), en), ['Dark offers a draw']);
  assert.deepEqual(announcementsOf(a, hear(snap, { ...base, draw: 'light' }), en), []);
  assert.deepEqual(announcementsOf(a, hear(snap, { ...base, takeback: 'dark' }), en), ['Dark asks to take back their last turn']);
  const gone = hear(snap, { ...base, online: { light: 'online', dark: 'away' } });
  const empty = hear(snap, { ...base, online: { light: 'online', dark: 'empty' } });
  assert.deepEqual(announcementsOf(empty, a, en), ['Dark joined the game']);
  // The server takes the seat before the socket is up: taken-but-away, then online, is joining.
  const taking = settle(empty, hear(snap, { ...base, online: { light: 'online', dark: 'away' } }));
  assert.deepEqual(announcementsOf(empty, taking, en), []);
  assert.deepEqual(announcementsOf(taking, settle(taking, a), en), ['Dark joined the game']);
  assert.deepEqual(settle(a, gone), gone);
  assert.deepEqual(announcementsOf(a, gone, en), ['Dark went offline']);
  assert.deepEqual(announcementsOf(gone, a, ru), ['Тёмные снова в сети']);
  // A rematch offered to the person is news to them, in Russian too; their own is not.
  assert.deepEqual(announcementsOf(a, hear(snap, { ...base, rematch: 'dark' }), en), ['Your opponent offers a rematch']);
  assert.deepEqual(announcementsOf(a, hear(snap, { ...base, rematch: 'dark' }), ru), ['Соперник предлагает реванш']);
  assert.deepEqual(announcementsOf(a, hear(snap, { ...base, rematch: 'light' }), en), []);
  // Another round is another game: a first look.
  assert.deepEqual(announcementsOf(a, hear(snap, { ...base, game: 'online:r:2' }), en), ['Dark to move']);
});

test('review: stepping forward says the turn, a jump says the position, the start is named', async () => {
  const game = localGame(await loadWasm());
  const positions = [game.snapshot()];
  for (const a of ['d6', 'a7', 'd5']) {
    game.play(a);
    positions.push(game.snapshot());
  }
  const r = (i) => hear(positions[i], { game: 'review:game', review: true });
  assert.deepEqual(announcementsOf(null, r(3), en), ['Light: places on d5. Dark to move']);
  assert.deepEqual(announcementsOf(r(1), r(2), en), ['Dark: places on a7. Light to move']);
  assert.deepEqual(announcementsOf(r(3), r(1), en), ['Position after Light: places on d6. Dark to move']);
  assert.deepEqual(announcementsOf(r(2), r(0), en), ['Start position. Light to move']);
});

test('hearingOf reads the page: nothing without a game, the seat vs computer', async () => {
  const game = localGame(await loadWasm());
  const snap = game.snapshot();
  assert.equal(hearingOf({ mode: null, snapshot: snap }), null);
  const h = hearingOf({ mode: 'computer', snapshot: snap, computer: { settings: { human: 'dark' } } });
  assert.equal(h.seat, 'dark');
  assert.equal(h.game, 'computer');
  const online = hearingOf({
    mode: 'online',
    snapshot: snap,
    online: { roomId: 'abc', seat: 'dark', fresh: true, state: { round: 2, seats: { light: { taken: true, online: false }, dark: { taken: true, online: true } }, offers: { draw: 'light', new_round: [] } } },
  });
  assert.deepEqual([online.game, online.seat, online.online, online.draw], ['online:abc:2', 'dark', { light: 'away', dark: 'online' }, 'light']);
});
