// The signed-in player's games in progress (`GET /api/me/games`, docs/PROTOCOL.md "Your
// games on another device") read without the DOM: the answer checked into a list, and
// whether a room is one of them (then the page takes its seat by the account, with no
// key on this device).

/** @typedef {import('./clock.js').TimeControl} TimeControl */
/**
 * One game in progress of the signed-in account.
 * @typedef {{ room: string, seat: 'light' | 'dark', rules: string, clock: TimeControl | null,
 *   opponent: string | null, rated: boolean, started: boolean }} MyGame
 */

const ROOM = /^[a-z0-9]{12}$/;

/**
 * The games of a `GET /api/me/games` answer; anything not of its shape is left out (an
 * older server, a damaged answer): no games rather than a wrong link.
 * @param {unknown} body
 * @returns {MyGame[]}
 */
export function myGamesFrom(body) {
  const games = /** @type {any} */ (body)?.games;
  if (!Array.isArray(games)) return [];
  return games
    .filter(
      (g) =>
        g &&
        typeof g.room === 'string' &&
        ROOM.test(g.room) &&
        (g.seat === 'light' || g.seat === 'dark') &&
        typeof g.rules === 'string' &&
        (g.opponent === null || typeof g.opponent === 'string'),
    )
    .map((g) => ({
      room: g.room,
      seat: g.seat,
      rules: g.rules,
      clock: g.clock ?? null,
      opponent: g.opponent,
      rated: g.rated === true,
      started: g.started !== false,
    }));
}

/** Whether `roomId` is among the games. @param {MyGame[]} games @param {string} roomId */
export function holdsRoom(games, roomId) {
  return games.some((g) => g.room === roomId);
}

/**
 * The account's games in progress, as the server says (the session cookie goes with the
 * request); none when not signed in, offline, or on any failure.
 * @param {typeof fetch} [fetchImpl]
 * @returns {Promise<MyGame[]>}
 */
export async function fetchMyGames(fetchImpl = globalThis.fetch) {
  if (globalThis.navigator?.onLine === false) return [];
  try {
    const res = await fetchImpl('/api/me/games', { credentials: 'same-origin', cache: 'no-store' });
    if (!res.ok) return [];
    return myGamesFrom(await res.json());
  } catch {
    return [];
  }
}
