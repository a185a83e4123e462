// Owns the shapes the page's modules pass each other, as JSDoc types checked by the
// TypeScript compiler (`npx tsc -p .`, in scripts/test). Nothing runs here: other modules
// name these with `@typedef {import('./types.js').Snapshot} Snapshot`.

/** @typedef {'light' | 'dark'} Side  a player's colour; Light opens */

/** @typedef {'en' | 'ru'} Lang  the page's languages */

/** @typedef {'placing' | 'moving' | 'flying'} Phase  what a side does on its turn */

/** @typedef {{ light: T, dark: T }} BySide<T> @template T */

/**
 * @typedef {object} Point  one point of the board, placed on a grid
 * @property {string} name  its name in notation, e.g. "d6"
 * @property {number} file  column, 0 = file a (left)
 * @property {number} rank  row, 0 = rank 1 (bottom)
 */

/**
 * @typedef {object} Topology  the board's geometry, from mill-core (WasmGame.topology)
 * @property {number} files  grid width
 * @property {number} ranks  grid height
 * @property {Point[]} points  every point, in mill-core's order
 * @property {[string, string][]} segments  the drawn lines, as pairs of adjacent points
 * @property {Record<string, string[]>} neighbours  the points adjacent to each point
 * @property {string[][]} lines  every mill line, each as its points
 */

/**
 * @typedef {object} Outcome  how a game ended
 * @property {'win' | 'draw' | 'aborted'} kind  'aborted': called off before it began (online clocks), no winner
 * @property {Side} [winner]  set when kind is 'win'
 * @property {string} [reason]  'pieces', 'blocked', 'resignation', 'threefold', 'hundred-turns', 'agreement',
 *   the clock's 'timeout' and 'abandoned'; absent when aborted
 */

/**
 * @typedef {object} Snapshot  what the board draws and may offer: board.js's
 *   snapshotFromView of mill-core's GameView, locally (WasmGame.snapshot) and online
 * @property {string} position  mill-core's position string ('' on the blank board)
 * @property {Side} turn  side to move, also the side that must remove
 * @property {BySide<Phase>} phase  each side's phase
 * @property {BySide<number>} inHand  pieces not yet placed
 * @property {BySide<number>} onBoard  pieces on the board
 * @property {Record<string, Side>} pieces  the occupied points
 * @property {number} pendingRemovals  > 0: the side to move must remove before the turn passes
 * @property {string[]} selectable  points the side to move may click now
 * @property {Record<string, string[]>} destinations  for each own piece that can move, where to
 * @property {string[]} removable  opponent pieces that may be removed now
 * @property {string[]} record  completed turns in notation
 * @property {string[]} lastTurn  the latest turn's actions, e.g. ["f4-g4", "xb6"]
 * @property {string[][]} closedMills  the mill lines that turn closed
 * @property {number} actions  number of actions played
 * @property {Outcome | null} outcome  null while the game goes on
 */

/**
 * @typedef {object} SeatPresence  a seat of an online room, as the server sees it
 * @property {boolean} taken  someone holds the seat's key
 * @property {boolean} online  a socket holds the seat now
 */

/**
 * @typedef {object} GameView  mill-core's view of a game (crates/mill-core/src/view.rs):
 *   what WasmGame.snapshot() gives, and the game part of the server's `state`
 *   (docs/PROTOCOL.md); board.js's snapshotFromView makes a Snapshot of it
 * @property {string} variant  the rule set, e.g. "nine"
 * @property {string} position  mill-core's position string
 * @property {Side} turn
 * @property {BySide<Phase>} phase
 * @property {BySide<number>} in_hand
 * @property {BySide<number>} on_board
 * @property {BySide<string[]>} pieces  the points each side occupies
 * @property {number} pending_removals
 * @property {number} quiet_turns
 * @property {{ selectable: string[], destinations: Record<string, string[]>, removable: string[] } | null} legal  null once the game is over
 * @property {string[]} actions  every action, in text form
 * @property {string[]} record  completed turns in notation
 * @property {string | null} last_turn  the latest turn in notation
 * @property {string[]} last_turn_actions  its actions, in text form
 * @property {string[][]} closed_mills  the mill lines the latest turn closed
 * @property {Outcome | null} outcome  null while the game goes on
 */

/**
 * @typedef {object} RoomFacts  what the server's `state` adds to the game view
 * @property {'state'} type
 * @property {string} room  the room id
 * @property {number} round  copied into every command
 * @property {number} version  copied into every command; the number of actions of the round
 * @property {string | null} last_action  kept for older pages (last_turn_actions says more)
 * @property {BySide<SeatPresence & import('./cards-logic.js').SeatAccount>} seats  with, for a seat held by an account, its name, rating and a rated round's change
 * @property {boolean} [rated]  made by rated pairing
 * @property {number} [spectators]  how many watch
 * @property {{ draw: Side | null, new_round: Side[], takeback?: Side | null, declined?: { offer: 'draw' | 'takeback' | 'rematch', by: Side } | null, rematch_open?: boolean, rematch?: Side | null, rematch_room?: string | null }} offers  standing offers; `declined`: the offer the round's latest event declined; `rematch_open`: a paired room, whose finished rounds may be rematched; `rematch`: the side offering a rematch; `rematch_room`: the rematch's room once agreed
 * @property {{ winner: Side | null, reason: string } | null} result  kept for older pages (outcome)
 * @property {import('./clock.js').ClockState | null} [clock]  the clocks as of this state; null untimed
 */

/** @typedef {GameView & RoomFacts} ServerState  the server's `state` message (docs/PROTOCOL.md) */

/**
 * @typedef {(key: string, params?: Record<string, string | number>) => string} Translate
 *   the page's words in the chosen language (i18n.js's translator)
 */

export {};
