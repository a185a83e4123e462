// Owns what the page keeps in this browser: saved local and vs-computer games, the seat
// keys of online rooms, and the room id in the path. No DOM; storage is passed in
// (window.localStorage in the page, a Map-backed fake in tests) and every access survives
// a storage that throws (private mode, disabled cookies, quota).

import { DEFAULT_RULES } from './rules.js';

const PREFIX = 'mill.';
/** Where the screen-reader mode's switch is remembered ('on' or 'off'), for the game page and the rules page. */
export const SCREEN_READER_KEY = 'screen-reader';
export const SAVE_KEYS = Object.freeze({ local: 'game.local', computer: 'game.computer' });

/**
 * The save slot of a mode's game under a rule set: one saved game per mode and rule set,
 * so choosing another variant never overwrites a game. The default rule set (Nine Men's
 * Morris) keeps the mode's own slot (`local`, `computer`); other rule sets get `local.six`,
 * `computer.twelve+per-mill`.
 * @param {'local' | 'computer'} mode @param {string} rules
 */
export function gameSlot(mode, rules) {
  return rules === DEFAULT_RULES ? mode : `${mode}.${rules}`;
}

/** @param {string} slot */
const saveKey = (slot) => SAVE_KEYS[slot] ?? `game.${slot}`;

/**
 * @typedef {object} SafeStorage  a storage wrapper that never throws; keys get the `mill.` prefix
 * @property {boolean} ok  whether saving works at all
 * @property {(key: string) => string | null} get
 * @property {(key: string, value: string) => boolean} set  false when nothing was saved
 * @property {(key: string) => void} remove
 *
 * @typedef {{ seat: 'light' | 'dark' | null, key: string, paired?: { variant: string, clock: import('./clock.js').TimeControl | null, rated?: boolean }, arena?: string }} SeatKey
 *   a seat of an online room and its secret; `paired`: the rules and clock it was sought with (and whether rated), when quick pairing gave it;
 *   `arena`: the arena whose pairing gave it (arena-page.js)
 */

/**
 * A storage wrapper that never throws; `ok` says whether saving works at all.
 * @param {() => Storage} getStorage
 * @returns {SafeStorage}
 */
export function safeStorage(getStorage) {
  let store = null;
  try {
    store = getStorage();
    const probe = `${PREFIX}probe`;
    store.setItem(probe, '1');
    store.removeItem(probe);
  } catch {
    store = null;
  }
  return {
    ok: store !== null,
    get(key) {
      try {
        return store ? store.getItem(PREFIX + key) : null;
      } catch {
        return null;
      }
    },
    set(key, value) {
      try {
        store?.setItem(PREFIX + key, value);
        return !!store;
      } catch {
        return false;
      }
    },
    remove(key) {
      try {
        store?.removeItem(PREFIX + key);
      } catch {
        // Nothing to do: the value is gone either way as far as the page is concerned.
      }
    },
  };
}

/** A saved local game (the record JSON from WasmGame.export_record), or null. */
export function loadGame(storage, mode) {
  const text = storage.get(saveKey(mode));
  if (!text) return null;
  try {
    const record = JSON.parse(text);
    if (typeof record?.start !== 'string' || !Array.isArray(record.actions)) return null;
    return text;
  } catch {
    return null;
  }
}

export function saveGame(storage, mode, recordJson) {
  return storage.set(saveKey(mode), recordJson);
}

export function forgetGame(storage, mode) {
  storage.remove(saveKey(mode));
}

/** True when a saved game has at least one action (worth offering "Continue"). */
export function hasProgress(storage, mode) {
  const text = loadGame(storage, mode);
  return !!text && JSON.parse(text).actions.length > 0;
}

/** The seat key this browser holds for an online room (returns to the seat on reopen). */
export function seatFor(storage, roomId) {
  const text = storage.get(`seat.${roomId}`);
  if (!text) return null;
  try {
    const seat = JSON.parse(text);
    return typeof seat?.key === 'string' ? seat : null;
  } catch {
    return null;
  }
}

export function rememberSeat(storage, roomId, seat) {
  storage.set(`seat.${roomId}`, JSON.stringify(seat));
}

/**
 * The key this browser made for the rematch of round `round` of room `roomId` (sent in its
 * `offer-rematch`), kept until the rematch's room is known: then it is that room's seat key.
 * @param {SafeStorage} storage @param {string} roomId @param {number} round @returns {string | null}
 */
export function rematchKeyFor(storage, roomId, round) {
  const text = storage.get(`rematch.${roomId}`);
  if (!text) return null;
  try {
    const kept = JSON.parse(text);
    return kept?.round === round && typeof kept.key === 'string' ? kept.key : null;
  } catch {
    return null;
  }
}

/** @param {SafeStorage} storage @param {string} roomId @param {number} round @param {string} key */
export function rememberRematchKey(storage, roomId, round, key) {
  storage.set(`rematch.${roomId}`, JSON.stringify({ round, key }));
}

/** @param {SafeStorage} storage @param {string} roomId */
export function forgetRematchKey(storage, roomId) {
  storage.remove(`rematch.${roomId}`);
}

/** Drops a seat key the server no longer knows (`bad-key`), so the next visit joins afresh. */
export function forgetSeat(storage, roomId) {
  storage.remove(`seat.${roomId}`);
}

/** The room id in a path like /r/AbC123 (the invite link), or null. */
export function roomFromPath(pathname) {
  const m = /^\/r\/([A-Za-z0-9_-]{1,64})\/?$/.exec(pathname);
  return m ? m[1] : null;
}
