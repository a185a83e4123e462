// The Command field's language (static/js/command.js): turns in notation split into the
// actions the rules take, queries in both languages, malformed lines refused with a
// message, and the spoken answers to queries — on snapshots from the real rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { actionParts, answerQuery, moversOf, parseCommand, refusalWords, stateWords, turnWords } from '../../static/js/command.js';
import { localGame } from '../../static/js/rules.js';
import { translator } from '../../static/js/i18n.js';
import { loadWasm, movingSnapshot, topology } from './helpers.mjs';

const en = translator('en');
const ru = translator('ru');

test('turns in notation become the actions the rules take, one at a time', () => {
  assert.deepEqual(parseCommand('d6'), { kind: 'turn', actions: ['d6'] });
  assert.deepEqual(parseCommand('a1-a4'), { kind: 'turn', actions: ['a1-a4'] });
  assert.deepEqual(parseCommand('f4-g4xb6'), { kind: 'turn', actions: ['f4-g4', 'xb6'] });
  assert.deepEqual(parseCommand('xd2'), { kind: 'turn', actions: ['xd2'] });
  assert.deepEqual(parseCommand('d7xa7xb6'), { kind: 'turn', actions: ['d7', 'xa7', 'xb6'] });
  // Case, spaces, a Cyrillic "х" and a typographic dash are forgiven.
  assert.deepEqual(parseCommand('  F4 – G4 х B6 '), { kind: 'turn', actions: ['f4-g4', 'xb6'] });
});

test('queries answer to English and Russian words', () => {
  assert.deepEqual(parseCommand('board'), { kind: 'query', query: 'board' });
  assert.deepEqual(parseCommand('Доска'), { kind: 'query', query: 'board' });
  assert.deepEqual(parseCommand('LAST'), { kind: 'query', query: 'last' });
  assert.deepEqual(parseCommand('ходы'), { kind: 'query', query: 'legal' });
  assert.deepEqual(parseCommand('pieces'), { kind: 'query', query: 'pieces' });
  assert.deepEqual(parseCommand('часы'), { kind: 'query', query: 'clock' });
  assert.deepEqual(parseCommand('?'), { kind: 'query', query: 'help' });
});

test('malformed lines are refused with a message', () => {
  assert.deepEqual(parseCommand(''), { kind: 'error', key: 'cmd.empty', params: {} });
  assert.deepEqual(parseCommand('   '), { kind: 'error', key: 'cmd.empty', params: {} });
  for (const bad of ['a1-', '-a4', 'a1--a4', 'a1-a4-a7', 'x', 'xx', 'd6x', '66', 'dd', 'a1a4', 'play d6', 'd6 please', 'a1-a4xb6-b4', 'ж', '<script>']) {
    const parsed = parseCommand(bad);
    assert.equal(parsed.kind, 'error', bad);
    assert.equal(parsed.kind === 'error' && parsed.key, 'cmd.unknown', bad);
    assert.match(en(parsed.key, parsed.params), /neither a turn nor a query/, bad);
    assert.match(ru(parsed.key, parsed.params), /не ход и не запрос/, bad);
  }
});

test('a turn in words: placement, move, removals', () => {
  assert.equal(turnWords('d6', en), 'places on d6');
  assert.equal(turnWords('d6-d5xa4', en), 'd6 to d5, closes a mill, removes a4');
  assert.equal(turnWords('d7xa7xb6', en), 'places on d7, closes a mill, removes a7 and b6');
  assert.equal(turnWords('d6-d5xa4', ru), 'd6 на d5, мельница, снимают a4');
  assert.deepEqual(actionParts('a1-a4'), { from: 'a1', to: 'a4' });
  assert.deepEqual(actionParts('xd2'), { remove: 'd2' });
});

test('refusals of the rules are said with their reason, from the code mill-core gives', async () => {
  const game = localGame(await loadWasm());
  for (const a of ['d6', 'a7', 'd5', 'a1']) assert.ok(game.play(a).ok);
  const occupied = game.play('d6');
  assert.equal(occupied.ok, false);
  assert.equal(refusalWords(occupied.error, 'd6', en), 'd6 is already taken');
  const moving = game.play('d6-d7');
  assert.equal(refusalWords(moving.error, 'd6-d7', en), 'You still have pieces to place: name a free point, such as d6');
  const removal = game.play('xa7');
  assert.equal(refusalWords(removal.error, 'xa7', ru), 'Мельницы нет, снимать нечего');
  // A code this module does not know is said with the rules' own message.
  assert.equal(refusalWords({ code: 'something-new', message: 'why' }, 'd6', en), 'd6: why');
  assert.equal(refusalWords({ code: 'not-adjacent', message: '' }, 'a4-g7', en), 'g7 is not next to a4');
});

test('a point the board lacks is named, in both languages, as the rules refused it', async () => {
  const game = localGame(await loadWasm());
  for (const a of ['e3', 'a1']) assert.ok(game.play(a).ok);
  // d4 is the middle of Nine's board, not a point: the rules say which name they lack.
  const refused = game.play('e3-d4');
  assert.equal(refused.ok, false);
  assert.equal(refusalWords(refused.error, 'e3-d4', en), 'd4 is not a point of this board');
  assert.equal(refusalWords(refused.error, 'e3-d4', ru), 'Точки d4 нет на этой доске');
  assert.equal(refusalWords(game.play('xd4').error, 'xd4', en), 'd4 is not a point of this board');
  assert.equal(refusalWords(game.play('z9-a1').error, 'z9-a1', en), 'z9 is not a point of this board');
});

test('queries: board, pieces, last turn, legal turns, clocks, help', async () => {
  const game = localGame(await loadWasm());
  for (const a of ['d6', 'a7', 'd5', 'a1', 'd7']) assert.ok(game.play(a).ok);
  let snap = game.snapshot();
  const ctx = { snap, topology, seat: null };
  const board = answerQuery('board', ctx, en);
  assert.match(board, /^Light, 3: d5, d6, d7\. Dark, 2: a1, a7\. Empty, 19: /);
  assert.equal(answerQuery('pieces', ctx, en), 'Light: 6 in hand, 3 on the board. Dark: 7 in hand, 2 on the board');
  assert.equal(answerQuery('last', ctx, en), 'Dark: places on a1. Light closed a mill and must remove a piece');
  assert.equal(answerQuery('legal', ctx, en), 'Light can: remove a1, a7');
  assert.equal(answerQuery('legal', { ...ctx, seat: 'light' }, en), 'You can: remove a1, a7');
  assert.equal(answerQuery('clock', ctx, en), 'This game has no clocks');
  assert.match(answerQuery('help', ctx, en), /f4-g4xb6/);
  assert.ok(game.play('xa7').ok);
  snap = game.snapshot();
  assert.equal(answerQuery('last', { snap, topology }, en), 'Light: places on d7, closes a mill, removes a7. Dark to move');
  assert.match(answerQuery('legal', { snap, topology }, ru), /^Тёмные могут: поставить на /);
  assert.equal(answerQuery('board', { snap: null, topology }, en), 'No game on screen');
});

test('moving turns are listed from the snapshot, each piece with its destinations', () => {
  const snap = movingSnapshot({ selectable: ['a1', 'b2'], destinations: { a1: ['a4', 'd1'], b2: ['b4'] } });
  assert.equal(answerQuery('legal', { snap, topology }, en), 'Light can: move a1 to a4 or d1; b2 to b4');
  assert.equal(answerQuery('legal', { snap: { ...snap, outcome: { kind: 'draw', reason: 'threefold' } }, topology }, en), 'The game is over');
});

test('who played each completed turn, and where the game stands', async () => {
  const game = localGame(await loadWasm());
  for (const a of ['d6', 'a7', 'd5']) assert.ok(game.play(a).ok);
  const snap = game.snapshot();
  assert.deepEqual(moversOf(snap), ['light', 'dark', 'light']);
  assert.equal(stateWords(snap, null, en), 'Dark to move');
  assert.equal(stateWords(snap, 'dark', en), 'Your turn');
  assert.equal(stateWords(snap, 'dark', ru), 'Ваш ход');
  const over = { ...snap, outcome: { kind: 'win', winner: 'light', reason: 'pieces' } };
  assert.equal(stateWords(over, null, en), 'Game over: Light wins. Dark has fewer than three pieces left.');
  // The clock's ends: a loss on time, and an aborted round, which is no draw.
  assert.equal(stateWords({ ...snap, outcome: { kind: 'win', winner: 'dark', reason: 'timeout' } }, null, en), 'Game over: Dark wins. Light ran out of time.');
  assert.equal(stateWords({ ...snap, outcome: { kind: 'aborted' } }, 'light', en), 'Game over: Game called off. The first move was not made in time; nobody wins.');
  assert.equal(stateWords({ ...snap, outcome: { kind: 'aborted' } }, null, ru), `Партия окончена: ${ru('clock.result.aborted')}. ${ru('reason.aborted')}`);
});
