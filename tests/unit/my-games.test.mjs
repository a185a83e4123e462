// The signed-in player's games in progress (static/js/my-games-logic.js): the answer of
// GET /api/me/games checked into links, and whether a room is one of them.
import assert from 'node:assert/strict';
import test from 'node:test';

import { fetchMyGames, holdsRoom, myGamesFrom } from '../../static/js/my-games-logic.js';

const game = {
  room: 'k7q2mx9rd4tf',
  seat: 'dark',
  rules: 'nine',
  clock: { initial: 180, increment: 2 },
  opponent: 'bob',
  rated: true,
  round: 1,
  started: true,
};

test('the games of an answer are read, and what is not a game is left out', () => {
  assert.deepEqual(myGamesFrom({ name: 'ann', games: [game] }), [
    { room: 'k7q2mx9rd4tf', seat: 'dark', rules: 'nine', clock: { initial: 180, increment: 2 }, opponent: 'bob', rated: true, started: true },
  ]);
  assert.deepEqual(myGamesFrom({ name: null, games: [] }), []);
  assert.deepEqual(myGamesFrom(null), []);
  assert.deepEqual(myGamesFrom({ games: 'no' }), []);
  for (const bad of [
    { ...game, room: '../../api' },
    { ...game, room: 'ABCDEFGHIJKL' },
    { ...game, seat: 'blue' },
    { ...game, rules: 7 },
    { ...game, opponent: 3 },
    null,
  ]) {
    assert.deepEqual(myGamesFrom({ games: [bad] }), [], JSON.stringify(bad));
  }
  const [anonymous] = myGamesFrom({ games: [{ ...game, opponent: null, clock: undefined, rated: 'yes', started: false }] });
  assert.deepEqual(
    [anonymous.opponent, anonymous.clock, anonymous.rated, anonymous.started],
    [null, null, false, false],
  );
});

test('a room is held when it is among the games', () => {
  const games = myGamesFrom({ games: [game] });
  assert.ok(holdsRoom(games, 'k7q2mx9rd4tf'));
  assert.ok(!holdsRoom(games, 'aaaaaaaaaaaa'));
  assert.ok(!holdsRoom([], 'k7q2mx9rd4tf'));
});

test('no games when not signed in, offline or refused', async () => {
  const answer = (status, body) => async () => ({ ok: status < 300, status, json: async () => body });
  assert.deepEqual(await fetchMyGames(answer(200, { name: null, games: [] })), []);
  assert.deepEqual(await fetchMyGames(answer(500, { games: [game] })), []);
  assert.deepEqual(
    await fetchMyGames(async () => {
      throw new TypeError('offline');
    }),
    [],
  );
  const asked = [];
  const games = await fetchMyGames(async (url, init) => {
    asked.push([url, init.credentials]);
    return { ok: true, status: 200, json: async () => ({ name: 'ann', games: [game] }) };
  });
  assert.equal(games.length, 1);
  assert.deepEqual(asked, [['/api/me/games', 'same-origin']]);
});
