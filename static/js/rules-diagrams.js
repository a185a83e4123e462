// Owns the rules page's positions: every live diagram, as mill-core position strings plus
// the actions played on load. Pure data, no DOM; the words live in rules-text.js under
// the keys named here. Each position was checked with
// `cargo run -q -p mill-cli -- legal --position "…"`, and tests/unit/rules-diagrams.test.mjs
// loads every one into the WebAssembly rules.
//
//   { id, tabs: [{ key, position, setup?, caption }], notes?, quiz? }
//
// `setup`: actions played right after loading, so the board shows them as the last turn
// (exercise 3 starts "after Light's f6-f4"). `notes`: keys that replace the generic
// mill / turn-passed notes for that diagram. `quiz`: the board stays read-only and the
// reader picks pieces of `quiz.side` instead (exercise 3).

export const DIAGRAMS = [
  // The other games of the family (their boards come from the position's rule set; all
  // tabs of one diagram are of one variant).
  {
    id: 'three',
    tabs: [
      { key: 'tab.placing', position: 'LL./.D./D.. l 1 1 0 0 three', caption: 'three.caption.placing' },
      { key: 'tab.moving', position: '.DL/L../LDD l 0 0 0 0 three', caption: 'three.caption.moving' },
    ],
  },
  {
    id: 'six',
    tabs: [{ key: 'tab.start', position: '.../.../..../.../... l 6 6 0 0 six', caption: 'six.caption' }],
  },
  {
    id: 'twelve',
    tabs: [
      { key: 'tab.placing', position: 'D../.../.../....../.../L../LD. l 10 10 0 0 twelve', caption: 'twelve.caption.diagonal' },
      { key: 'twelve.tab.full', position: 'DD./DLL/LDD/LLDLD./LDL/DLD/DLL l 1 1 0 0 twelve', caption: 'twelve.caption.full' },
    ],
  },
  {
    id: 'board',
    tabs: [{ key: 'tab.start', position: '.../.../.../....../.../.../... l 9 9 0 0', caption: 'board.caption' }],
  },
  {
    id: 'removal',
    tabs: [{ key: 'tab.moving', position: '..L/DD./..D/D...L./DL./L../..L l 0 0 0 4', caption: 'removal.caption' }],
  },
  {
    id: 'protected',
    tabs: [
      { key: 'protected.tab.outside', position: '.D./D../L../.D...L/..L/D../..L l 5 5 0 0', caption: 'protected.caption.outside' },
      { key: 'protected.tab.all', position: '.../D../L../.D...L/..L/D../..L l 5 5 0 0', caption: 'protected.caption.all' },
    ],
  },
  {
    id: 'flying',
    tabs: [
      { key: 'flying.tab.light', position: 'L../D../D../.....D/..D/..L/LD. l 0 0 0 6', caption: 'flying.caption.light' },
      { key: 'flying.tab.dark', position: 'L../D../D../.....D/..D/..L/LD. d 0 0 0 6', caption: 'flying.caption.dark' },
    ],
  },
  {
    id: 'losing',
    tabs: [
      { key: 'losing.tab.pieces', position: '.../L.D/D../.....L/.LD/.../LL. l 0 0 0 12', caption: 'losing.caption.pieces' },
      { key: 'losing.tab.blocked', position: 'DDD/.L./.../DL...L/..L/.../.L. l 0 0 0 20', caption: 'losing.caption.blocked' },
    ],
  },
  {
    id: 'draws',
    tabs: [
      { key: 'draws.tab.hundred', position: '..D/L../D../....L./.LD/.D./L.. l 0 0 0 99', caption: 'draws.caption.hundred' },
      { key: 'draws.tab.threefold', position: '..D/L../D../....L./.LD/.D./L.. l 0 0 0 0', caption: 'draws.caption.threefold' },
    ],
  },
  {
    // The guide's worked position: Light a1 d1, g1 empty, Dark's d2 in no mill (and a
    // Dark mill on the 6th rank, so the board visibly refuses protected pieces).
    id: 'worked',
    tabs: [{ key: 'tab.placing', position: '.../DDD/..L/..L.../.../.D./LL. l 5 5 0 0', caption: 'worked.caption' }],
    notes: { mill: 'worked.note.mill', passed: 'worked.note.passed' },
  },
  {
    id: 'ex1',
    tabs: [
      { key: 'tab.placing', position: 'L../.D./.../..L.D./.../.../... l 7 7 0 0', caption: 'ex1.caption.placing' },
      { key: 'tab.moving', position: '..L/D../.L./DLD.../..D/DDL/LL. l 0 0 0 0', caption: 'ex1.caption.moving' },
      { key: 'tab.flying', position: 'L.D/.D./..D/D....L/.../D.L/... l 0 0 0 0', caption: 'ex1.caption.flying' },
    ],
    summary: true,
  },
  {
    // Lines a1-d1 and g4-g7 share the empty g1.
    id: 'ex2',
    tabs: [
      { key: 'ex2.tab.light', position: '..L/..D/D../.D...L/.../.D./LL. l 5 5 0 0', caption: 'ex2.caption' },
      // The guide's follow-up: the opponent moves first and takes the shared point.
      { key: 'ex2.tab.dark', position: '..L/..D/.../.D...L/.../.D./LL. d 5 6 0 0', caption: 'ex2.caption.dark' },
    ],
    notes: { mill: 'ex2.note.mill', passed: 'ex2.note.passed' },
  },
  {
    // Light's f6-f4 shuts in f2; Dark is left with a4-a1 and c5-d5.
    id: 'ex3',
    tabs: [{ key: 'tab.moving', position: 'DDD/.LL/D../DLL..L/.../.LD/... l 0 0 0 10', setup: ['f6-f4'], caption: 'ex3.caption' }],
    quiz: { side: 'dark' },
  },
];

export const diagramById = (id) => DIAGRAMS.find((d) => d.id === id) ?? null;
