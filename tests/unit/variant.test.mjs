// The variant chooser's pure parts: rule-set names from position strings, rule sets in
// words (both languages), and one save slot per mode and rule set.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { translator } from '../../static/js/i18n.js';
import { DEFAULT_RULES } from '../../static/js/rules.js';
import { gameSlot } from '../../static/js/storage.js';
import { describeRules, rulesOfPosition } from '../../static/js/variant.js';
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
  for (const v of ['three', 'six', 'nine', 'twelve']) assert.notEqual(describeRules(v, ru), describeRules(v, en));
});

test('each mode keeps one saved game per rule set; the default one keeps the old slot', () => {
  assert.equal(gameSlot('local', 'nine'), 'local');
  assert.equal(gameSlot('computer', 'nine'), 'computer');
  assert.equal(gameSlot('local', 'six+per-mill'), 'local.six+per-mill');
  assert.notEqual(gameSlot('local', 'three'), gameSlot('computer', 'three'));
});
