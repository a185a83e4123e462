// The variant chooser's pure parts: rule-set names from position strings, rule sets in
// words (both languages), and one save slot per mode and rule set.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { translator } from '../../static/js/i18n.js';
import { DEFAULT_RULES } from '../../static/js/rules.js';
import { gameSlot } from '../../static/js/storage.js';
import { describeRules, optionWords, rulesOfPosition } from '../../static/js/variant.js';
import { loadWasm } from './helpers.mjs';

test("the page's default rule set is mill-core's default game's, a variant with its usual options", async () => {
  const mod = await loadWasm();
  const rules = JSON.parse(new mod.WasmGame().rules());
  assert.equal(DEFAULT_RULES, rules.rules);
  assert.equal(DEFAULT_RULES, rules.variant);
  assert.equal(rulesOfPosition(JSON.parse(new mod.WasmGame().snapshot()).position), DEFAULT_RULES);
});

test('a position string names its rule set in its seventh part, or is nine', () => {
  assert.equal(rulesOfPosition('.../.../.../....../.../.../... l 9 9 0 0'), 'nine');
  assert.equal(rulesOfPosition('.../.../... l 3 3 0 0 three'), 'three');
  assert.equal(rulesOfPosition(' .../.../..../.../... l 6 6 0 0 six+per-mill '), 'six+per-mill');
});

test('rule sets in words, with the options that differ from the usual ones', () => {
  const en = translator('en');
  const ru = translator('ru');
  assert.equal(describeRules('three', en), "Three Men's Morris");
  assert.equal(describeRules('twelve', ru), 'Мельница на 12 фишек');
  assert.equal(
    describeRules('nine+per-mill+protect-off+fly-0', en),
    "Nine Men's Morris · one removal per mill · mills do not protect · no flying",
  );
  assert.equal(describeRules('six+fly-4', ru), 'Мельница на 6 фишек · прыжки с 4 фишками');
  assert.equal(describeRules('nine+dark-first', en), "Nine Men's Morris · Dark places first");
  assert.equal(describeRules('nine+dark-first', ru), 'Мельница на 9 фишек · первыми ставят тёмные');
  for (const v of ['three', 'six', 'nine', 'twelve']) assert.notEqual(describeRules(v, ru), describeRules(v, en));
});

test('each mode keeps one saved game per rule set; the default one keeps the old slot', () => {
  assert.equal(gameSlot('local', 'nine'), 'local');
  assert.equal(gameSlot('computer', 'nine'), 'computer');
  assert.equal(gameSlot('local', 'six+per-mill'), 'local.six+per-mill');
  assert.notEqual(gameSlot('local', 'three'), gameSlot('computer', 'three'));
});

test("the start screen's note says only the options that differ: the chooser already names the game", () => {
  const en = translator('en');
  const ru = translator('ru');
  for (const v of ['three', 'six', 'nine', 'twelve']) assert.deepEqual(optionWords(v, en), [], v);
  assert.deepEqual(optionWords('nine+per-mill+fly-0', en), ['one removal per mill', 'no flying']);
  assert.deepEqual(optionWords('six+fly-4', ru), ['прыжки с 4 фишками']);
  // The words never name the game itself.
  for (const rules of ['nine+dark-first', 'twelve+per-mill', 'six+protect-off']) {
    for (const t of [en, ru]) assert.ok(!optionWords(rules, t).join(' ').includes(t(`variant.${rules.split('+')[0]}`)), rules);
  }
});
