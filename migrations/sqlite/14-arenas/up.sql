-- Arena tournaments (crates/mill-server/src/arena/, store/arena.rs). An arena runs from
-- starts_at to ends_at; its players join, pause or withdraw; every game is an ordinary
-- room (both seats created with the pairing) named in arena_games. Points are never
-- stored: the standings are computed from the games' stored results (arena/scoring.rs),
-- so after any crash they equal a recount. No foreign key to rooms: a game's result
-- outlives its room's purge.
CREATE TABLE arenas (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    variant         TEXT NOT NULL,
    clock_initial   INTEGER NOT NULL,
    clock_increment INTEGER NOT NULL,
    starts_at       INTEGER NOT NULL,
    ends_at         INTEGER NOT NULL CHECK (ends_at > starts_at),
    rated           INTEGER NOT NULL CHECK (rated IN (0, 1)),
    created_by      INTEGER,
    created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX arenas_ends ON arenas (ends_at);
-- A player: `joined` is paired, `paused` and `withdrawn` are not. room_id is the game
-- in play (one at most: a pairing sets it only where it is NULL, the game's result
-- clears it). ticket_hash is the hash of the seat key the player's open arena socket
-- holds for its next game (the key itself only in that server's memory); a pairing
-- uses it as the seat's key hash and clears it.
CREATE TABLE arena_players (
    arena_id    TEXT NOT NULL REFERENCES arenas (id) ON DELETE CASCADE,
    account_id  INTEGER NOT NULL,
    name        TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('joined', 'paused', 'withdrawn')),
    joined_at   INTEGER NOT NULL,
    room_id     TEXT,
    ticket_hash BLOB CHECK (length(ticket_hash) = 32),
    PRIMARY KEY (arena_id, account_id)
) STRICT;
CREATE TABLE arena_games (
    room_id        TEXT PRIMARY KEY,
    arena_id       TEXT NOT NULL REFERENCES arenas (id) ON DELETE CASCADE,
    light_id       INTEGER NOT NULL,
    dark_id        INTEGER NOT NULL CHECK (dark_id <> light_id),
    light_rating   REAL NOT NULL,
    dark_rating    REAL NOT NULL,
    light_key_hash BLOB NOT NULL CHECK (length(light_key_hash) = 32),
    dark_key_hash  BLOB NOT NULL CHECK (length(dark_key_hash) = 32),
    started_at     INTEGER NOT NULL,
    -- Set once, in the transaction that stores the event ending the room's first round.
    result         TEXT CHECK (result IN ('light', 'dark', 'draw', 'aborted')),
    light_turns    INTEGER,
    dark_turns     INTEGER,
    ended_at       INTEGER,
    CHECK ((result IS NULL) = (ended_at IS NULL))
) STRICT;
CREATE INDEX arena_games_arena ON arena_games (arena_id, started_at);
