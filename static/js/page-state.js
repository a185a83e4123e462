// Owns the game page's state: one shape, created whole here, read by the views
// (panels.js) and changed by the modes (local.js, vs-computer.js, online.js). Nothing
// adds fields to it later; a new piece of state is a new field here, with its comment.

/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./types.js').Topology} Topology */
/** @typedef {import('./types.js').ServerState} ServerState */
/** @typedef {import('./types.js').Translate} Translate */
/** @typedef {import('./rules.js').LocalGame} LocalGame */
/** @typedef {import('./rules.js').WasmModule} WasmModule */
/** @typedef {import('./storage.js').SafeStorage} SafeStorage */
/** @typedef {import('./storage.js').SeatKey} SeatKey */
/** @typedef {ReturnType<typeof import('./widget.js').mountBoard>} Board */
/** @typedef {ReturnType<typeof import('./computer.js').createComputer>} Computer */
/** @typedef {ReturnType<typeof import('./engine.js').engineWorker>} Engine */
/** @typedef {ReturnType<typeof import('./net.js').connectRoom>} RoomConnection */

/** @typedef {'local' | 'online' | 'computer' | 'review'} Mode  how the game on screen is played (review: any game, read-only, review.js) */

/** @typedef {'connecting' | 'open' | 'reconnecting' | 'closed'} Connection  the room's socket (net.js) */

/**
 * @typedef {object} Notice  the banner above the page; either an i18n key or ready text
 * @property {string | null} key  an i18n key, translated when drawn (follows a language switch)
 * @property {string | null} text  text already in words (a server's or the rules' message)
 */

/**
 * @typedef {object} OnlineState  the room this page has open
 * @property {string} roomId  from the path /r/<id>
 * @property {Side | null} seat  the seat this page plays, null while watching
 * @property {string | null} key  that seat's secret key (never in the URL or logs)
 * @property {ServerState | null} state  the server's latest `state` message
 * @property {boolean} fresh  `state` came after the latest `welcome` (older ones may be stale)
 * @property {Connection} connection  the socket's status
 * @property {boolean} replaced  another tab took the seat; "Play here" takes it back
 * @property {string | null} gone  an i18n key when the room cannot be played any more
 * @property {(() => string) | null} ids  makes command ids (protocol.js's commandIds)
 * @property {RoomConnection | null} conn  the socket, once the seat is known
 * @property {Map<number, RoundResult | null>} rounds  finished earlier rounds' results by
 *   number, from GET /api/rooms/<id>/rounds/<n> (the `state` carries only the current
 *   round's); null while that round's record is on its way or failed to come
 * @property {number} clockOffset  the page's clock minus the server's, from the latest state's `clock.at` (clock.js's serverOffset); 0 untimed
 * @property {{ variant: string, clock: import('./clock.js').TimeControl | null, rated?: boolean } | null} paired  the rules and clock this
 *   seat was sought with, when quick pairing gave it (a finished round offers another search)
 * @property {'declined' | 'lapsed' | null} rematchNote  what became of the latest rematch offer
 *   (protocol.js's rematchChange), said until the next one or the next round
 * @property {boolean} rematchMine  the latest rematch command (decline or withdraw) was this page's
 * @property {{ id: string, round: number, stale: boolean } | null} rematchSent  this page's
 *   `offer-rematch` until its ack or refusal; a `stale` one is sent again after the next state
 * @property {Map<string, { light: number, dark: number }>} clockTimes  both clocks of the
 *   latest state seen at each `round:version` of a timed room, for review's time left after
 *   each turn (clock.js's turnTimes takes only the mover's, which is stopped there)
 */

/** @typedef {{ winner: Side | null, reason: string }} RoundResult  a round's result, as the server writes it */

/**
 * @typedef {{ kind: 'round', roomId: string, round: number } | { kind: 'game', from: 'local' | 'computer' | 'online', header?: import('./rules.js').RecordHeader }} ReviewSource
 *   what is reviewed: a finished online round by its share link /r/<id>/review/<n>, or
 *   the game that was on screen ("Back to the game" opens it again), with the header its
 *   record had there (the computer's name, the room and round)
 */

/**
 * @typedef {object} Review  a game under review, read-only (review.js)
 * @property {ReviewSource} source
 * @property {import('./review.js').GameRecord | null} record  the game reviewed, once it replays (Copy record writes it)
 * @property {Snapshot[]} positions  before the first action and after each one; empty until loaded
 * @property {number[]} ends  the positions the engine judges (the start, each complete turn's end), as indices into `positions`
 * @property {number} at  the position shown, an index into `positions`
 * @property {string | null} error  why the game cannot be shown, as a code (i18n `review.why.<code>`: the server's error code, `replay`, `network`)
 * @property {ReturnType<typeof import('./analysis.js').createAnalysis> | null} analysis  the engine judging `ends` in its worker; stopped on leaving
 */

/**
 * @typedef {object} PageState  everything the game page shows, in one place
 * @property {import('./types.js').Lang} lang  the page's language
 * @property {Translate} t  the words in that language
 * @property {Mode | null} mode  null on the start screen
 * @property {LocalGame | null} game  same device and vs computer: the game in the rules (wasm)
 * @property {Board | null} board  the board component, mounted on the first game
 * @property {Topology | null} topology  the board's geometry, known once the rules load
 * @property {Snapshot | null} snapshot  what the board shows now
 * @property {OnlineState | null} online  play with a friend: the room
 * @property {Review | null} review  a shared round under review
 * @property {Computer | null} computer  vs computer: the controller (computer.js)
 * @property {Engine | null} engine  the computer's Web Worker, started once per page load
 * @property {Map<string, SeatKey>} seats  seat keys by room, so a page without storage keeps its seat until closed
 * @property {Notice | null} notice  the banner, or null
 */

/**
 * The page as it loads: the start screen, nothing played.
 * @param {import('./types.js').Lang} lang @param {Translate} t @returns {PageState}
 */
export function createPageState(lang, t) {
  return {
    lang,
    t,
    mode: null,
    game: null,
    board: null,
    topology: null,
    snapshot: null,
    online: null,
    review: null,
    computer: null,
    engine: null,
    seats: new Map(),
    notice: null,
  };
}

/** The modes whose game can be imported into: same device, and vs computer (a new game from it). */
export const importable = (/** @type {PageState} */ page) => page.mode === 'local' || page.mode === 'computer';

/**
 * A room being opened: no seat, no state, connecting.
 * @param {string} roomId @returns {OnlineState}
 */
export function createOnlineState(roomId) {
  return { roomId, seat: null, key: null, state: null, fresh: false, connection: 'connecting', replaced: false, gone: null, ids: null, conn: null, rounds: new Map(), clockOffset: 0, clockTimes: new Map(), paired: null, rematchNote: null, rematchMine: false, rematchSent: null };
}

/**
 * @typedef {object} App  what main.js hands the modes: the state and the page's shared services
 * @property {PageState} page
 * @property {SafeStorage} storage  local storage that never throws
 * @property {() => void} render  redraws every panel from `page`
 * @property {(key: string | null, text?: string | null) => void} setNotice  the banner (null, null clears it)
 * @property {(name: 'start' | 'game') => void} showScreen
 * @property {(topology: Topology) => void} ensureBoard  mounts the board once
 * @property {() => void} focusPlay  puts the keyboard focus where the game is played: the
 *   Command field in screen-reader mode, else the board
 * @property {() => void} leave  leaves the game on screen (closes its room, stops the computer and the review's engine)
 * @property {() => Promise<WasmModule | null>} rules  the WebAssembly rules, or null (the start screen then says why)
 * @property {() => Promise<void>} route  opens what the address says
 */
