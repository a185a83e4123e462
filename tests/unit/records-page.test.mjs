// The page's side of records in and out (records.js): what pasted text is taken for, the
// record's date and header. Reading and writing records is the wasm's (records.test.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { translator } from '../../static/js/i18n.js';
import { importKind, recordDate, recordHeader } from '../../static/js/records.js';

test('pasted text is taken for MFEN, a position string or a record', () => {
  assert.equal(importKind('MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -'), 'mfen');
  assert.equal(importKind('  .../.../.../....../.../.../... l 9 9 0 0\n'), 'position');
  assert.equal(importKind('1. a1 b2 2. d1 d2'), 'record');
  assert.equal(importKind('[Variant "nine"]\n\n1. a1 b2 *'), 'record');
  // Six turns are a record, not a position.
  assert.equal(importKind('a1 b2 d1 d2 g1xd2 f4'), 'record');
  assert.equal(importKind(''), 'record');
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
