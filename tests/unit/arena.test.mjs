// The arenas' pure parts (static/js/arena-logic.js) and words (static/js/arena-text.js):
// the list, the countdown, the sheet of points, the games to watch, the buttons, the
// podium, the news a screen reader hears, and the body of a new arena.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
  arenaFromPath,
  arenaGroups,
  arenaNews,
  clockName,
  controls,
  countdownText,
  createBody,
  localInput,
  localToRfc3339,
  mineIn,
  ownRow,
  parseArena,
  phaseAt,
  podium,
  sheet,
  shownRows,
  topGames,
} from '../../static/js/arena-logic.js';
import { ARENA_TEXT, arenaTranslator } from '../../static/js/arena-text.js';

const T0 = Date.parse('2026-12-06T20:00:00Z');

const game = (room, opponent, result, points) => ({ room, opponent, result, points });
const row = (rank, name, score, extra = {}) => ({ rank, name, score, fire: false, performance: null, state: 'joined', playing: null, games: [], ...extra });

function arenaJson(extra = {}) {
  return {
    id: 'a1b2c3d4e5f6',
    name: 'Evening',
    variant: 'nine',
    clock: { initial: 180, increment: 2 },
    rated: true,
    status: 'started',
    starts: '2026-12-06T20:00:00Z',
    ends: '2026-12-06T21:00:00Z',
    players: 3,
    games: { played: 3, playing: 1 },
    standings: [
      row(1, 'Ann', 6, { fire: true, playing: 'room4', games: [game('room1', 'Bob', 'win', 2), game('room2', 'Cat', 'win', 2), game('room3', 'Bob', 'win', 2), game('room4', 'Cat', null, 0)] }),
      row(2, 'Cat', 1, { playing: 'room4', games: [game('room2', 'Ann', 'loss', 0), game('room5', 'Bob', 'draw', 1), game('room4', 'Ann', null, 0)] }),
      row(3, 'Bob', 1, { state: 'paused', games: [game('room1', 'Ann', 'loss', 0), game('room3', 'Ann', 'loss', 0), game('room5', 'Cat', 'draw', 1), game('room6', null, null, 0)] }),
    ],
    ...extra,
  };
}

test('an arena address names its id; nothing else does', () => {
  assert.equal(arenaFromPath('/arena/a1b2c3d4e5f6'), 'a1b2c3d4e5f6');
  assert.equal(arenaFromPath('/arena/a1b2c3d4e5f6/'), 'a1b2c3d4e5f6');
  assert.equal(arenaFromPath('/arena/short'), null);
  assert.equal(arenaFromPath('/arena/A1B2C3D4E5F6'), null);
  assert.equal(arenaFromPath('/r/a1b2c3d4e5f6'), null);
});

test('an arena is read with its times and standings; a wrong shape is none', () => {
  const a = parseArena(arenaJson());
  assert.equal(a.starts, T0);
  assert.equal(a.ends, T0 + 3_600_000);
  assert.equal(a.standings.length, 3);
  assert.equal(a.standings[2].state, 'paused');
  assert.equal(a.standings[2].games[3].opponent, null);
  assert.deepEqual(a.games, { played: 3, playing: 1 });
  assert.equal(parseArena(null), null);
  assert.equal(parseArena({ id: 'x', name: 'y', starts: 'soon', ends: 'later' }), null);
  // A list's entry has no standings.
  const listed = parseArena({ ...arenaJson(), standings: undefined });
  assert.deepEqual(listed.standings, []);
});

test('the list is grouped: running by end, upcoming by start, finished latest first', () => {
  const at = (h) => new Date(T0 + h * 3_600_000).toISOString();
  const json = {
    arenas: [
      { ...arenaJson(), id: 'run000000002', status: 'started', ends: at(2) },
      { ...arenaJson(), id: 'run000000001', status: 'started', ends: at(1) },
      { ...arenaJson(), id: 'soon00000002', status: 'created', starts: at(5), ends: at(6) },
      { ...arenaJson(), id: 'soon00000001', status: 'created', starts: at(3), ends: at(4) },
      { ...arenaJson(), id: 'done00000001', status: 'finished', starts: at(-3), ends: at(-2) },
      { ...arenaJson(), id: 'done00000002', status: 'finished', starts: at(-2), ends: at(-1) },
      { nonsense: true },
    ],
  };
  const g = arenaGroups(json);
  assert.deepEqual(g.running.map((a) => a.id), ['run000000001', 'run000000002']);
  assert.deepEqual(g.upcoming.map((a) => a.id), ['soon00000001', 'soon00000002']);
  assert.deepEqual(g.finished.map((a) => a.id), ['done00000002', 'done00000001']);
  assert.deepEqual(arenaGroups({}), { running: [], upcoming: [], finished: [] });
});

test('the countdown runs to the start, then to the end, and never goes back', () => {
  const a = parseArena(arenaJson({ status: 'created' }));
  assert.deepEqual(phaseAt(a, T0 - 65_000), { status: 'created', left: 65_000 });
  assert.deepEqual(phaseAt(a, T0), { status: 'started', left: 3_600_000 });
  assert.deepEqual(phaseAt(a, T0 + 3_600_000), { status: 'finished', left: 0 });
  // The server's clock ahead of the page's by a second.
  assert.deepEqual(phaseAt(a, T0 - 1000, 1000), { status: 'started', left: 3_600_000 });
  // The server said finished: a page clock behind does not reopen it.
  assert.equal(phaseAt(parseArena(arenaJson({ status: 'finished' })), T0 + 60_000).status, 'finished');
  assert.equal(countdownText(65_000), '1:05');
  assert.equal(countdownText(64_001), '1:05');
  assert.equal(countdownText(3_723_000), '1:02:03');
  assert.equal(countdownText(0), '0:00');
  assert.equal(countdownText(-5), '0:00');
  assert.equal(clockName({ initial: 180, increment: 2 }), '3+2');
  assert.equal(clockName({ initial: 90, increment: 0 }), '1.5+0');
});

test('the sheet shows each game\'s points: double wins, draws, losses, the game in play, games that scored nothing', () => {
  const a = parseArena(arenaJson());
  const fire = row(1, 'Dan', 10, { playing: 'g5', games: [game('g1', 'X', 'win', 2), game('g2', 'Y', 'win', 2), game('g3', 'Z', 'win', 4), game('g4', 'X', 'draw', 2), game('g6', 'Y', 'draw', 0), game('g5', 'Z', null, 0)] });
  assert.deepEqual(sheet(fire).map((e) => `${e.text}:${e.kind}`), ['2:win', '2:win', '4:double', '2:draw', '0:void', '*:playing']);
  assert.deepEqual(sheet(a.standings[2]).map((e) => e.text), ['0', '0', '1', '–']);
  assert.equal(sheet(a.standings[2])[3].kind, 'void');
});

test('the games to watch are the leaders\' games in play, each once', () => {
  const a = parseArena(arenaJson());
  assert.deepEqual(topGames(a.standings), [{ room: 'room4', players: ['Ann', 'Cat'], ranks: [1, 2] }]);
  const many = [row(1, 'A', 9, { playing: 'r1', games: [game('r1', 'D', null, 0)] }), row(2, 'B', 8, { playing: 'r2', games: [game('r2', 'C', null, 0)] }), row(3, 'C', 7, { playing: 'r2', games: [game('r2', 'B', null, 0)] }), row(4, 'D', 1, { playing: 'r1', games: [game('r1', 'A', null, 0)] }), row(5, 'E', 0, { playing: 'r3', games: [game('r3', 'F', null, 0)] })];
  assert.deepEqual(topGames(many, 2).map((g) => g.room), ['r1', 'r2']);
  assert.deepEqual(topGames(many, 2)[0].ranks, [1, 4]);
  assert.deepEqual(topGames([]), []);
});

test('the buttons follow the player\'s state; a visitor gets a sign-in link; nothing once finished', () => {
  const a = parseArena(arenaJson());
  const shown = (c) => Object.keys(c).filter((k) => c[k]).sort();
  assert.deepEqual(shown(controls(a, 'started', null)), ['signIn']);
  assert.deepEqual(shown(controls(a, 'started', 'Eve')), ['join']);
  assert.deepEqual(shown(controls(a, 'started', 'ann')), ['pause', 'withdraw']);
  assert.deepEqual(shown(controls(a, 'created', 'Bob')), ['resume', 'withdraw']);
  const out = parseArena(arenaJson({ standings: [row(1, 'Ann', 0, { state: 'withdrawn' })] }));
  assert.deepEqual(shown(controls(out, 'started', 'Ann')), ['rejoin']);
  assert.deepEqual(shown(controls(a, 'finished', 'Ann')), []);
  assert.equal(ownRow(a.standings, 'CAT').rank, 2);
  assert.equal(ownRow(a.standings, null), null);
});

test('a page of a large arena shows its rows and the player\'s own row apart, which also drives the buttons and the news', () => {
  const page2 = (own, extra = {}) =>
    parseArena(arenaJson({ page: 2, pages: 3, ranked: 120, own, standings: [row(51, 'Dan', 4), row(52, 'Eve', 4)], ...extra }));
  const a = page2(row(7, 'Ann', 10, { state: 'paused' }));
  assert.deepEqual([a.page, a.pages, a.ranked], [2, 3, 120]);
  // The own row stands on page 1: shown after the page, and it is the player's.
  assert.deepEqual(shownRows(a, 'ann').rows.map((r) => r.name), ['Dan', 'Eve']);
  assert.equal(shownRows(a, 'ann').apart?.rank, 7);
  assert.equal(mineIn(a, 'Ann').state, 'paused');
  assert.deepEqual(Object.keys(controls(a, 'started', 'Ann')).filter((k) => controls(a, 'started', 'Ann')[k]).sort(), ['resume', 'withdraw']);
  // On the page already: not repeated; another name's `own` is not the player's.
  const onPage = page2(row(52, 'Eve', 4));
  assert.equal(shownRows(onPage, 'Eve').apart, null);
  assert.equal(mineIn(onPage, 'Dan').rank, 51);
  assert.equal(mineIn(onPage, 'Zed'), null);
  assert.equal(shownRows(a, null).apart, null);
  // An arena without paging fields is one page of its rows.
  const plain = parseArena(arenaJson());
  assert.deepEqual([plain.page, plain.pages, plain.ranked, plain.own], [1, 1, 3, null]);
  // Off page 1 nobody is told who leads, and a finished arena has no podium there.
  const t = arenaTranslator('en');
  const moved = page2(row(5, 'Ann', 12));
  assert.deepEqual(arenaNews(a, moved, 'Ann', t), ['You are number 5 with 12 points.']);
  assert.deepEqual(podium(page2(null, { status: 'finished' }), 'finished'), []);
});

test('the podium is the first three of a finished arena who finished a game', () => {
  const a = parseArena(arenaJson());
  assert.deepEqual(podium(a, 'started'), []);
  assert.deepEqual(podium(a, 'finished').map((r) => r.name), ['Ann', 'Cat', 'Bob']);
  const few = parseArena(arenaJson({ standings: [row(1, 'Ann', 2, { games: [game('r', 'Bob', 'win', 2)] }), row(2, 'Bob', 0, { games: [game('r', 'Ann', 'loss', 0)] }), row(3, 'Cat', 0)] }));
  assert.deepEqual(podium(few, 'finished').map((r) => r.name), ['Ann', 'Bob']);
});

test('a screen reader hears the start, the end with its winner, the player\'s own place and a new leader', () => {
  const t = arenaTranslator('en');
  const before = parseArena(arenaJson({ status: 'created', standings: [row(1, 'Ann', 0), row(2, 'Bob', 0)] }));
  const started = parseArena(arenaJson({ status: 'started', standings: [row(1, 'Ann', 0), row(2, 'Bob', 0)] }));
  assert.deepEqual(arenaNews(before, started, 'Bob', t), ['The arena has started.']);
  assert.deepEqual(arenaNews(null, started, 'Bob', t), []);
  const bobWins = parseArena(arenaJson({ standings: [row(1, 'Bob', 2), row(2, 'Ann', 0)] }));
  assert.deepEqual(arenaNews(started, bobWins, 'Bob', t), ['You are number 1 with 2 points.']);
  assert.deepEqual(arenaNews(started, bobWins, 'Ann', t), ['You are number 2 with 0 points.', 'Bob leads with 2 points.']);
  assert.deepEqual(arenaNews(started, bobWins, null, t), ['Bob leads with 2 points.']);
  assert.deepEqual(arenaNews(bobWins, bobWins, 'Bob', t), []);
  const over = parseArena(arenaJson({ status: 'finished', standings: [row(1, 'Bob', 2), row(2, 'Ann', 0)] }));
  assert.deepEqual(arenaNews(bobWins, over, 'Ann', t), ['The arena is over. Bob wins with 2 points.']);
  assert.deepEqual(arenaNews(bobWins, over, 'Ann', arenaTranslator('ru')), ['Арена завершена. Победитель — Bob, очков: 2.']);
});

test('a new arena\'s body is checked before it is sent', () => {
  const now = T0;
  const form = { name: '  Friday  ', rules: 'six', clock: '1+0', minutes: '5', start: 'now', at: '', rated: true };
  assert.deepEqual(createBody(form, now), { body: { name: 'Friday', variant: 'six', clock: { initial: 60, increment: 0 }, minutes: 5, starts: null, rated: true } });
  assert.deepEqual(createBody({ ...form, name: '   ' }, now), { error: 'arena.create.badName' });
  assert.deepEqual(createBody({ ...form, name: 'x'.repeat(61) }, now), { error: 'arena.create.badName' });
  assert.deepEqual(createBody({ ...form, clock: '3d' }, now), { error: 'arena.create.badClock' });
  assert.deepEqual(createBody({ ...form, rules: 'chess' }, now), { error: 'arena.create.badRules' });
  for (const minutes of ['0', '361', '2.5', '', 'ten']) assert.deepEqual(createBody({ ...form, minutes }, now), { error: 'arena.create.badMinutes' }, minutes);
  const later = new Date(now + 3_600_000);
  const local = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}T${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const made = createBody({ ...form, start: 'later', at: local(later) }, now);
  assert.equal(Date.parse(made.body.starts), now + 3_600_000);
  assert.deepEqual(createBody({ ...form, start: 'later', at: local(new Date(now - 3_600_000)) }, now), { error: 'arena.create.badStart' });
  assert.deepEqual(createBody({ ...form, start: 'later', at: local(new Date(now + 8 * 86_400_000)) }, now), { error: 'arena.create.badStart' });
  assert.deepEqual(createBody({ ...form, start: 'later', at: '' }, now), { error: 'arena.create.badStart' });
  assert.equal(localToRfc3339('tomorrow'), null);
  // The form's default start reads back as the same moment.
  assert.equal(Date.parse(localToRfc3339(localInput(now + 3_600_000))), now + 3_600_000);
  assert.deepEqual(createBody({ ...form, start: 'later', at: localInput(now + 3_600_000) }, now).body.starts, new Date(now + 3_600_000).toISOString());
});

test('the arenas\' words are there in both languages, and every key the pages name is one of them', () => {
  assert.deepEqual(Object.keys(ARENA_TEXT.ru).sort(), Object.keys(ARENA_TEXT.en).sort());
  for (const lang of ['en', 'ru']) {
    for (const [key, text] of Object.entries(ARENA_TEXT[lang])) assert.ok(text.trim(), `${lang}: ${key} is empty`);
  }
  const html = readFileSync(new URL('../../static/arena.html', import.meta.url), 'utf8') + readFileSync(new URL('../../static/index.html', import.meta.url), 'utf8');
  const used = new Set([...html.matchAll(/data-at="([^"]+)"/g)].map((m) => m[1]));
  assert.ok(used.size > 5);
  for (const lang of ['en', 'ru']) {
    const t = arenaTranslator(lang);
    for (const key of used) assert.notEqual(t(key), key, `${lang}: ${key}`);
  }
  // Plurals: Russian's three forms, English's two.
  assert.equal(arenaTranslator('ru')('arena.players.#', { n: 1 }), '1 игрок');
  assert.equal(arenaTranslator('ru')('arena.players.#', { n: 3 }), '3 игрока');
  assert.equal(arenaTranslator('ru')('arena.players.#', { n: 5 }), '5 игроков');
  assert.equal(arenaTranslator('en')('arena.players.#', { n: 1 }), '1 player');
  assert.equal(arenaTranslator('en')('arena.players.#', { n: 2 }), '2 players');
  // The shared words come through.
  assert.equal(arenaTranslator('en')('variant.nine'), "Nine Men's Morris");
});
