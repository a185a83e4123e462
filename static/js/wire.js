// Generated from crates/mill-server/src/protocol.rs; do not edit. After changing the
// protocol's enums, regenerate it with
//   MILL_WRITE_WIRE=1 cargo test -p mill-server --test protocol_sources
// (the same test fails while this file differs from what the enums give).

/** The protocol version this page speaks. */
export const PROTOCOL = 1;

/** Types of the messages a client sends. */
export const CLIENT_TYPES = Object.freeze({
  HELLO: 'hello',
  ACTION: 'action',
  OFFER_DRAW: 'offer-draw',
  ACCEPT_DRAW: 'accept-draw',
  DECLINE_DRAW: 'decline-draw',
  RESIGN: 'resign',
  NEW_ROUND: 'new-round',
  OFFER_TAKEBACK: 'offer-takeback',
  ACCEPT_TAKEBACK: 'accept-takeback',
  DECLINE_TAKEBACK: 'decline-takeback',
  CLAIM_WIN: 'claim-win',
  CALL_DRAW: 'call-draw',
  OFFER_REMATCH: 'offer-rematch',
  DECLINE_REMATCH: 'decline-rematch',
  SYNC: 'sync',
  PING: 'ping',
});

/** Types of the messages the server sends. */
export const SERVER_TYPES = Object.freeze({
  WELCOME: 'welcome',
  STATE: 'state',
  ACK: 'ack',
  ERROR: 'error',
  REPLACED: 'replaced',
  PONG: 'pong',
});

/** The server's error codes; an action the rules refuse carries mill-core's code instead. */
export const ERROR_CODES = Object.freeze({
  MALFORMED: 'malformed',
  UNKNOWN_TYPE: 'unknown-type',
  TOO_LARGE: 'too-large',
  HELLO_REQUIRED: 'hello-required',
  ALREADY_HELLO: 'already-hello',
  PROTOCOL_MISMATCH: 'protocol-mismatch',
  UNKNOWN_ROOM: 'unknown-room',
  ROOM_DAMAGED: 'room-damaged',
  BAD_KEY: 'bad-key',
  ROOM_FULL: 'room-full',
  SPECTATOR: 'spectator',
  STALE: 'stale',
  OPPONENT_AWAY: 'opponent-away',
  NOT_YOUR_TURN: 'not-your-turn',
  GAME_OVER: 'game-over',
  ROUND_NOT_OVER: 'round-not-over',
  NO_DRAW_OFFER: 'no-draw-offer',
  ALREADY_OFFERED: 'already-offered',
  NO_TAKEBACK_OFFER: 'no-takeback-offer',
  NOTHING_TO_TAKE_BACK: 'nothing-to-take-back',
  OPPONENT_PLAYED: 'opponent-played',
  BAD_ACTION: 'bad-action',
  RATE_LIMITED: 'rate-limited',
  UNKNOWN_ROUND: 'unknown-round',
  BAD_RULES: 'bad-rules',
  BAD_CLOCK: 'bad-clock',
  BAD_SEEK: 'bad-seek',
  SEEK_WITHDRAWN: 'seek-withdrawn',
  SEEK_TAKEN: 'seek-taken',
  TOO_MANY_SEEKS: 'too-many-seeks',
  OUT_OF_TIME: 'out-of-time',
  NO_CLAIM: 'no-claim',
  NOT_FOUND: 'not-found',
  METHOD_NOT_ALLOWED: 'method-not-allowed',
  NOT_WEBSOCKET: 'not-websocket',
  HELLO_TIMEOUT: 'hello-timeout',
  TOO_MANY_CONNECTIONS: 'too-many-connections',
  SERVER_BUSY: 'server-busy',
  BODY_TOO_LARGE: 'body-too-large',
  TIMEOUT: 'timeout',
  NAME_TAKEN: 'name-taken',
  BAD_NAME: 'bad-name',
  WEAK_PASSWORD: 'weak-password',
  BAD_CREDENTIALS: 'bad-credentials',
  THROTTLED: 'throttled',
  CROSS_SITE: 'cross-site',
  SIGN_IN_REQUIRED: 'sign-in-required',
  UNKNOWN_PLAYER: 'unknown-player',
  RATED_ROUND: 'rated-round',
  PASSKEY_UNAVAILABLE: 'passkey-unavailable',
  CEREMONY_EXPIRED: 'ceremony-expired',
  PASSKEY_REFUSED: 'passkey-refused',
  BAD_ARENA: 'bad-arena',
  UNKNOWN_ARENA: 'unknown-arena',
  ARENA_FINISHED: 'arena-finished',
  NOT_IN_ARENA: 'not-in-arena',
  NOT_PAIRED: 'not-paired',
  NO_REMATCH_OFFER: 'no-rematch-offer',
  REMATCH_AGREED: 'rematch-agreed',
  BAD_POSITION: 'bad-position',
  NOT_IN_TABLES: 'not-in-tables',
  NOT_SEATED: 'not-seated',
  INTERNAL: 'internal',
});

/** The `outcome` of a quick-pairing answer (`POST /api/pair`): an opponent came, or nobody did. */
export const PAIR_OUTCOMES = Object.freeze({
  PAIRED: 'paired',
  NO_OPPONENT: 'no-opponent',
});

/** Types of the messages an arena socket sends (`GET /api/arenas/{id}/ws`). */
export const ARENA_MESSAGES = Object.freeze({
  STANDINGS: 'standings',
  OWN_STANDING: 'own-standing',
  PAIRED: 'paired',
});

/** The bounds of a time control (`bad-clock` beyond them), from timecontrol.rs. */
export const CLOCK_BOUNDS = Object.freeze({
  MIN_INITIAL_SECS: 15,
  MAX_INITIAL_SECS: 10800,
  MAX_INCREMENT_SECS: 180,
  MIN_DAYS: 1,
  MAX_DAYS: 14,
});

/** WebSocket close codes. */
export const CLOSE_CODES = Object.freeze({
  NORMAL: 1000,
  GOING_AWAY: 1001,
  POLICY: 1008,
  TOO_BIG: 1009,
  REPLACED: 4000,
  PROTOCOL_MISMATCH: 4001,
  BAD_KEY: 4003,
  UNKNOWN_ROOM: 4004,
  HELLO_TIMEOUT: 4008,
  ROOM_FULL: 4009,
  ROOM_DAMAGED: 4010,
  TOO_SLOW: 4011,
  NOT_SEATED: 4012,
});

/** Close codes after which the page must not reconnect by itself. */
export const FINAL_CLOSE_CODES = Object.freeze([4000, 4001, 4003, 4004, 4009, 4010, 4012]);
