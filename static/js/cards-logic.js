// Pure parts of what the player cards, the lobby and the header show of accounts: a
// seat's name, rating and a rated round's change from the server's `state`
// (docs/PROTOCOL.md, "seats"), a signed-in seeker in the lobby, the header's account
// link. No DOM, no fetch (unit-tested in tests/unit/cards.test.mjs).

/**
 * @typedef {object} SeatAccount  what a seat's `state` says of the account holding it
 * @property {string} [name]
 * @property {number} [rating]
 * @property {boolean} [provisional]
 * @property {number} [change]
 */

/**
 * @typedef {object} PlayerCard  what a card shows of an account seat
 * @property {string} name  the account's name
 * @property {string} profile  its profile's address, `/@/{name}`
 * @property {string | null} rating  `1532`, or `1532?` while provisional; null untimed
 * @property {string | null} change  `+12`, `−8` (a minus sign), `±0`; null before a rated round ended
 */

/** A name the server could have given (accounts.rs: 3–20 letters, digits, _ or -). */
const NAME = /^[A-Za-z0-9_-]{3,20}$/;

/**
 * The rating as the profile writes it (account-logic.js `shownRating`): `1532?` while
 * provisional, as lichess does.
 * @param {number} rating @param {boolean} provisional
 */
export function ratingText(rating, provisional) {
  return `${Math.round(rating)}${provisional ? '?' : ''}`;
}

/** A rating change as the cards write it: `+12`, `−8` (U+2212), `±0`. @param {number} change */
export function changeText(change) {
  const n = Math.round(change);
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return '\u00b10';
}

/**
 * The card of a seat held by an account, or null for an anonymous seat (or anything the
 * page cannot trust to be a name).
 * @param {SeatAccount | null | undefined} seat
 * @returns {PlayerCard | null}
 */
export function playerCard(seat) {
  if (!seat || typeof seat.name !== 'string' || !NAME.test(seat.name)) return null;
  const rating = typeof seat.rating === 'number' && Number.isFinite(seat.rating) ? ratingText(seat.rating, seat.provisional === true) : null;
  const change = typeof seat.change === 'number' && Number.isFinite(seat.change) ? changeText(seat.change) : null;
  return { name: seat.name, profile: `/@/${encodeURIComponent(seat.name)}`, rating, change };
}

/**
 * A signed-in seeker in the lobby (`GET /api/seeks`: `name`, `rating`, `provisional`):
 * `ann 1532?`, `ann` for an untimed seek, null for an anonymous one.
 * @param {SeatAccount | null | undefined} seek
 */
export function seekerText(seek) {
  const card = playerCard(seek ? { name: seek.name, rating: seek.rating, provisional: seek.provisional } : null);
  if (!card) return null;
  return card.rating ? `${card.name} ${card.rating}` : card.name;
}

/**
 * Who `GET /api/session` (or `GET /api/me`) says is signed in: the name, or null
 * (`{"name": null}`, a 401, a failure, a body that is not an account).
 * @param {number} status @param {unknown} body
 */
export function signedInName(status, body) {
  if (status !== 200 || !body || typeof body !== 'object') return null;
  const name = /** @type {{ name?: unknown }} */ (body).name;
  return typeof name === 'string' && NAME.test(name) ? name : null;
}
