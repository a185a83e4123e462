// Each page lists its modules as <link rel="modulepreload"> so the browser fetches them in
// parallel; a module the page imports but does not list would load one round trip late.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const STATIC = new URL('../../static/', import.meta.url);
const read = (path) => readFileSync(new URL(path, STATIC), 'utf8');

/** Every module reached by static imports from `entry` (a path under static/js/). */
function importGraph(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, spec] of read(`js/${file}`).matchAll(/^\s*import\s[^'"]*?from\s+'\.\/([\w-]+\.js)'/gm)) visit(spec);
  };
  visit(entry);
  return [...seen].map((file) => `/js/${file}`);
}

function preloads(html) {
  return new Set([...read(html).matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]));
}

for (const [html, entry] of [
  ['index.html', 'main.js'],
  ['rules.html', 'rules-page.js'],
]) {
  test(`${html} preloads every module ${entry} imports`, () => {
    const listed = preloads(html);
    const graph = importGraph(entry);
    assert.ok(graph.length > 5, `the import graph of ${entry} was read`);
    assert.deepEqual(graph.filter((m) => !listed.has(m)), []);
  });
}

// The parts later.js loads on first use stay out of the first board's module graph, and
// no page preloads a module its graph does not reach (it would move bytes before the board).
test('the game page loads review, records, the screen-reader mode, the computer and online play only on first use', () => {
  const graph = importGraph('main.js');
  for (const part of ['review.js', 'analysis.js', 'records.js', 'screen-reader.js', 'announce.js', 'command.js', 'vs-computer.js', 'computer.js', 'tablebase.js', 'online.js', 'net.js']) {
    assert.ok(!graph.includes(`/js/${part}`), `${part} is in main.js's static import graph`);
  }
  const later = read('js/later.js');
  for (const part of ['review.js', 'records.js', 'screen-reader.js', 'vs-computer.js', 'online.js']) assert.ok(later.includes(`import('./${part}')`), part);
});

for (const [html, entry] of [
  ['index.html', 'main.js'],
  ['rules.html', 'rules-page.js'],
]) {
  test(`${html} preloads no module outside ${entry}'s import graph`, () => {
    const graph = new Set(importGraph(entry));
    assert.deepEqual([...preloads(html)].filter((m) => m.startsWith('/js/') && !graph.has(m)), []);
  });
}
