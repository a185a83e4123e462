// The page's module graph, read from the sources: each page lists its modules as
// <link rel="modulepreload"> so the browser fetches them in parallel (a module the page
// imports but does not list would load one round trip late); the graph has no circle; and
// each part later.js loads on first use brings only its own code, not another part's.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const STATIC = new URL('../../static/', import.meta.url);
const read = (path) => readFileSync(new URL(path, STATIC), 'utf8');

/**
 * The source without its comments, so that a JSDoc type (`import('./types.js').Side`) is
 * not taken for an import. Strings and template literals are kept whole (a `//` in a URL
 * stays); a regular expression literal holding a quote would confuse this, and none does.
 */
function withoutComments(source) {
  let out = '';
  for (let i = 0; i < source.length; ) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
      out += ' ';
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * A module's imports of other modules of static/js: `static` (import … from, import '…',
 * export … from: loaded before the module runs) and `dynamic` (import('…'): on first use).
 */
function importsOf(source) {
  const code = withoutComments(source);
  const names = (re) => [...code.matchAll(re)].map((m) => m[1]);
  return {
    static: [
      ...new Set([
        ...names(/(?:^|[;\n])\s*(?:import|export)\s[^'"`;]*?\sfrom\s*'\.\/([\w-]+\.js)'/g),
        ...names(/(?:^|[;\n])\s*import\s*'\.\/([\w-]+\.js)'/g),
      ]),
    ],
    dynamic: [...new Set(names(/(?<![\w$.])import\(\s*'\.\/([\w-]+\.js)'\s*\)/g))],
  };
}

const FILES = readdirSync(new URL('js/', STATIC)).filter((file) => file.endsWith('.js'));
/** Every module of static/js and its imports. */
const GRAPH = new Map(FILES.map((file) => [file, importsOf(read(`js/${file}`))]));

/** Every module reached by static imports from `entry` (a file of static/js), `entry` included. */
function closure(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    assert.ok(GRAPH.has(file), `${file} is imported but not in static/js`);
    seen.add(file);
    for (const next of GRAPH.get(file).static) visit(next);
  };
  visit(entry);
  return seen;
}

/** The same as /js/ paths, as the pages list them. */
const importGraph = (entry) => [...closure(entry)].map((file) => `/js/${file}`);

/** A circle among `files` by `edges` (file → files), as the files along it, or null when there is none. */
function findCircle(files, edges) {
  const state = new Map(); // file → 'open' (on the path) | 'done'
  const path = [];
  const visit = (file) => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const next of edges(file)) {
      const circle = visit(next);
      if (circle) return circle;
    }
    path.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of files) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return null;
}

test('the import reader sees static, re-exported and dynamic imports, and no type in a comment', () => {
  const found = importsOf(`import { a } from './a.js';
import {
  b,
} from './b.js';
import './side.js';
export { c } from './c.js';
/** @typedef {import('./types.js').Side} Side */
const x = (/** @type {import('./t.js').T} */ y) => y; // import('./line.js')
const url = 'http://example.org/'; const part = () => import('./part.js');`);
  assert.deepEqual(found.static.sort(), ['a.js', 'b.js', 'c.js', 'side.js']);
  assert.deepEqual(found.dynamic, ['part.js']);
  // The circle finder finds one through a dynamic import, and none where there is none.
  const edges = { 'a.js': ['b.js'], 'b.js': ['c.js'], 'c.js': ['a.js'] };
  assert.deepEqual(findCircle(Object.keys(edges), (file) => edges[file]), ['a.js', 'b.js', 'c.js', 'a.js']);
  assert.equal(findCircle(['a.js', 'b.js'], (file) => (file === 'a.js' ? ['b.js'] : [])), null);
});

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

function preloads(html) {
  return new Set([...read(html).matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]));
}

// A circle through the lazy parts (later.js ⇢ review.js → … → later.js) would make one part
// load another's code, and the order modules run in depend on who imported first.
test('static/js has no circle of imports, static or on first use', () => {
  const circle = findCircle(GRAPH.keys(), (file) => [...GRAPH.get(file).static, ...GRAPH.get(file).dynamic]);
  assert.equal(circle && circle.join(' → '), null);
});

/**
 * The parts later.js loads on first use, by the module it imports, with the code that is
 * theirs alone: no other part, nor the first board, loads it.
 */
const PARTS = {
  'review.js': ['review.js', 'analysis.js'],
  'records.js': ['records.js'],
  'screen-reader.js': ['screen-reader.js', 'announce.js', 'command.js'],
  'vs-computer.js': ['vs-computer.js', 'computer.js'],
  'online.js': ['online.js', 'net.js'],
};

test('later.js loads each part on first use, by one dynamic import', () => {
  assert.deepEqual(GRAPH.get('later.js').dynamic.sort(), Object.keys(PARTS).sort());
});

// The parts later.js loads on first use stay out of the first board's module graph, and
// no page preloads a module its graph does not reach (it would move bytes before the board).
test('the game page loads review, records, the screen-reader mode, the computer and online play only on first use', () => {
  const graph = closure('main.js');
  for (const part of [...Object.values(PARTS).flat(), 'tablebase.js', 'engine.js']) {
    assert.ok(!graph.has(part), `${part} is in main.js's static import graph`);
  }
});

for (const [part, own] of Object.entries(PARTS)) {
  test(`opening ${part} loads none of the other parts' code`, () => {
    const loads = closure(part);
    for (const file of own) assert.ok(loads.has(file), `${file} is ${part}'s own code`);
    const others = Object.entries(PARTS)
      .filter(([other]) => other !== part)
      .flatMap(([, files]) => files);
    assert.deepEqual(
      others.filter((file) => loads.has(file)),
      [],
      `${part}'s static imports reach another part's code`,
    );
    // A part gets the others through main.js's wiring, never by importing the loader.
    assert.ok(!loads.has('later.js'), `${part} imports later.js`);
    assert.ok(!loads.has('main.js') && !loads.has('panels.js'), `${part} imports the page's wiring or panels`);
  });
}

test("review's analysis judges in the engine's worker without the computer's controller", () => {
  const loads = closure('review.js');
  assert.ok(loads.has('engine.js'));
  assert.ok(!loads.has('computer.js') && !loads.has('vs-computer.js'));
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
