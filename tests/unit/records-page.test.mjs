// The page's side of records in and out (records.js): what pasted text is taken for, the
// record's date and header. Reading and writing records is the wasm's (records.test.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { translator } from '../../static/js/i18n.js';
import { onlineRecord, recordDate, recordHeader, recordToWrite } from '../../static/js/game-record.js';
import { importFailure, importKind, mfenRulesChoice } from '../../static/js/records.js';

test('pasted text is taken for MFEN, a position string or a record', () => {
  assert.equal(importKind('MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -'), 'mfen');
  assert.equal(importKind('  .../.../.../....../.../.../... l 9 9 0 0\n'), 'position');
  assert.equal(importKind('1. a1 b2 2. d1 d2'), 'record');
  assert.equal(importKind('[Variant "nine"]\n\n1. a1 b2 *'), 'record');
  // Six turns are a record, not a position.
  assert.equal(importKind('a1 b2 d1 d2 g1xd2 f4'), 'record');
  assert.equal(importKind(''), 'record');
  assert.equal(importKind(' {"format":"MSTATE/1.0","events":[]}\n'), 'mstate');
  assert.equal(importKind('{"format":"MRS/1.0"}'), 'record', 'a manifest is not a game');
});

test('the date is written YYYY.MM.DD', () => {
  assert.equal(recordDate(new Date(2026, 0, 5)), '2026.01.05');
  assert.equal(recordDate(new Date(2026, 11, 31)), '2026.12.31');
});

test('vs computer the header names the computer and its level', () => {
  const t = translator('en');
  const computer = (human) => ({ mode: 'computer', t, computer: { settings: { level: 'hard', human } } });
  assert.equal(recordHeader(computer('light')).dark, 'computer (Hard)');
  assert.equal(recordHeader(computer('light')).light, undefined);
  assert.equal(recordHeader(computer('dark')).light, 'computer (Hard)');
  const local = recordHeader({ mode: 'local', t, computer: null });
  assert.deepEqual(Object.keys(local), ['date']);
  assert.match(local.date, /^\d{4}\.\d{2}\.\d{2}$/);
});

test('a position string with its rule set is a position too', () => {
  assert.equal(importKind('.../.../... l 3 3 0 0 three'), 'position');
  assert.equal(importKind('.../.../..../.../... d 6 6 0 0 six+per-mill'), 'position');
  // Seven turns with a slash-free first field stay a record.
  assert.equal(importKind('a1 b2 d1 d2 g1xd2 f4 a4'), 'record');
});

test('online, the header names the room and the round; a shared round under review too', () => {
  const t = translator('en');
  const online = recordHeader({ mode: 'online', t, computer: null, online: { state: { room: 'Ab3x', round: 2 } } });
  assert.deepEqual(online.tags, [
    ['Room', 'Ab3x'],
    ['Round', '2'],
  ]);
  assert.equal(online.light, undefined);
  const timed = recordHeader({ mode: 'online', t, computer: null, online: { state: { room: 'Ab3x', round: 2, clock: { control: { initial: 300, increment: 3 } } } } });
  assert.deepEqual(timed.tags, [
    ['Room', 'Ab3x'],
    ['Round', '2'],
    ['TimeControl', '300+3'],
  ]);
  const review = recordHeader({ mode: 'review', t, computer: null, review: { source: { kind: 'round', roomId: 'Zz', round: 7 } } });
  assert.deepEqual(review.tags, [
    ['Room', 'Zz'],
    ['Round', '7'],
  ]);
  const game = recordHeader({ mode: 'review', t, computer: null, review: { source: { kind: 'game', from: 'local' } } });
  assert.equal(game.tags, undefined);
  // The game that was on screen keeps the header it had there.
  const header = { date: '2000.01.01', dark: 'computer (Hard)', tags: [['Room', 'Q']] };
  const kept = recordHeader({ mode: 'review', t, computer: null, review: { source: { kind: 'game', from: 'online', header } } });
  assert.deepEqual({ ...kept, date: 'today' }, { ...header, date: 'today' });
  assert.match(kept.date, /^\d{4}\.\d{2}\.\d{2}$/);
});

test('the record written online is the round from its rules start, with the result', () => {
  const state = { position: '.../.../..../.../... l 5 5 0 0 six', actions: ['a1', 'b2'], result: { winner: 'dark', reason: 'resignation' } };
  const starts = [];
  const startOf = (rules) => (starts.push(rules), `start of ${rules}`);
  const record = recordToWrite({ mode: 'online', online: { state } }, startOf);
  assert.deepEqual(record, { start: 'start of six', actions: ['a1', 'b2'], result: { winner: 'dark', reason: 'resignation' } });
  assert.deepEqual(starts, ['six']);
  assert.deepEqual(onlineRecord({ ...state, result: null }, 's'), { start: 's', actions: ['a1', 'b2'], result: null });
  // Before the first state there is nothing to write.
  assert.equal(recordToWrite({ mode: 'online', online: { state: null } }, startOf), null);
});

test('under review, MFEN is of the position shown and the record is the whole game', () => {
  const record = { start: 'S', actions: ['a1', 'b2', 'd1'], result: { winner: 'light', reason: 'resignation' } };
  const positions = [0, 1, 2, 3].map((actions) => ({ actions }));
  const page = (at) => ({ mode: 'review', review: { record, positions, at } });
  assert.equal(recordToWrite(page(1), () => '', false), record);
  assert.deepEqual(recordToWrite(page(1), () => '', true), { start: 'S', actions: ['a1'], result: null });
  assert.equal(recordToWrite(page(3), () => '', true), record, 'the last position keeps the result');
  assert.equal(recordToWrite({ mode: 'review', review: { record: null, positions: [], at: 0 } }, () => ''), null);
});

test("MFEN is offered under the game's rules first, then the variants that have it", () => {
  const info = (rules, refused = false) => ({ rules, mfenRefused: refused ? { code: 'unrepresentable-under-profile', message: '' } : null });
  const variants = [info('three', true), info('six', true), info('nine'), info('twelve')];
  assert.deepEqual(mfenRulesChoice(info('twelve+per-mill'), variants), ['twelve+per-mill', 'nine', 'twelve']);
  assert.deepEqual(mfenRulesChoice(info('nine'), variants), ['nine', 'twelve']);
  assert.deepEqual(mfenRulesChoice(info('six', true), variants), ['nine', 'twelve']);
});

test('an import refusal is said in the page’s words, the turn or line named, no code or English of the rules', () => {
  const t = translator('en');
  const ru = translator('ru');
  const fits = importFailure({ code: 'bad-position', message: 'too many pieces', fits: ['twelve'] }, t);
  assert.equal(fits, 'Nothing was loaded: this position cannot be read under these rules. It reads as Twelve Men\'s Morris: choose that above.');
  const board = importFailure({ code: 'unrepresentable-under-profile', message: 'no board' }, ru);
  assert.match(board, /^Ничего не загружено: это не позиция MFEN, которую можно прочитать по этим правилам\. Для этой доски в MFEN нет формы/);
  const turn = { code: 'bad-turn', message: 'turn 2 (1... a1): illegal: that point is already taken', turn: 2, reason: 'occupied' };
  assert.equal(importFailure(turn, t), 'Nothing was loaded: turn 2: that point is already taken.');
  assert.equal(importFailure(turn, ru), 'Ничего не загружено: ход 2: эта точка уже занята.');
  assert.equal(importFailure({ ...turn, reason: 'something-new' }, ru), 'Ничего не загружено: ход 2: его нельзя сыграть в этой позиции.');
  assert.equal(importFailure({ code: 'bad-header', message: 'line 3: bad', line: 3 }, ru), 'Ничего не загружено: строка 3 заголовка записи не читается.');
  // Every code the rules give has its words in both languages, and no Latin letters in Russian.
  const codes = ['notation', 'move-number', 'after-result', 'unclosed-comment', 'game-over', 'removal-pending', 'no-removal-pending', 'occupied', 'empty-point', 'not-your-piece', 'not-adjacent', 'still-placing', 'nothing-in-hand', 'not-opponent-piece', 'protected', 'removal-missing', 'unexpected-removal', 'off-board'];
  for (const reason of codes) {
    const line = importFailure({ ...turn, reason }, ru);
    assert.doesNotMatch(line, /[A-Za-z]/, line);
    assert.notEqual(line, importFailure({ ...turn, reason: 'something-new' }, ru), reason);
  }
  for (const code of ['bad-result', 'bad-rules', 'syntax', 'unsupported-extension', 'obligation-target-mismatch']) {
    assert.doesNotMatch(importFailure({ code, message: 'English words' }, ru).replace('MFEN', ''), /[A-Za-z]/, code);
  }
});
