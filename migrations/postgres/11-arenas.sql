-- Arena tournaments, as SQLite's 14-arenas: arenas, their players (with the game in
-- play and the ticket of the player's open arena socket) and their games, each an
-- ordinary room. A pairing is one transaction under the arena's advisory lock, so two
-- instances running the pairing loop decide each pairing once; a ticket belongs to
-- the instance holding its socket (ticket_instance), and is not used once that
-- instance has no connection left (killed).
CREATE TABLE arenas (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    variant         TEXT NOT NULL,
    clock_initial   INTEGER NOT NULL,
    clock_increment INTEGER NOT NULL,
    starts_at       BIGINT NOT NULL,
    ends_at         BIGINT NOT NULL CHECK (ends_at > starts_at),
    rated           BOOLEAN NOT NULL,
    created_by      BIGINT,
    created_at      BIGINT NOT NULL
);
CREATE INDEX arenas_ends ON arenas (ends_at);
CREATE TABLE arena_players (
    arena_id        TEXT NOT NULL REFERENCES arenas (id) ON DELETE CASCADE,
    account_id      BIGINT NOT NULL,
    name            TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('joined', 'paused', 'withdrawn')),
    joined_at       BIGINT NOT NULL,
    room_id         TEXT,
    ticket_hash     BYTEA CHECK (length(ticket_hash) = 32),
    ticket_instance TEXT,
    PRIMARY KEY (arena_id, account_id)
);
CREATE TABLE arena_games (
    room_id        TEXT PRIMARY KEY,
    arena_id       TEXT NOT NULL REFERENCES arenas (id) ON DELETE CASCADE,
    light_id       BIGINT NOT NULL,
    dark_id        BIGINT NOT NULL CHECK (dark_id <> light_id),
    light_rating   DOUBLE PRECISION NOT NULL,
    dark_rating    DOUBLE PRECISION NOT NULL,
    light_key_hash BYTEA NOT NULL CHECK (length(light_key_hash) = 32),
    dark_key_hash  BYTEA NOT NULL CHECK (length(dark_key_hash) = 32),
    started_at     BIGINT NOT NULL,
    result         TEXT CHECK (result IN ('light', 'dark', 'draw', 'aborted')),
    light_turns    INTEGER,
    dark_turns     INTEGER,
    ended_at       BIGINT,
    CHECK ((result IS NULL) = (ended_at IS NULL))
);
CREATE INDEX arena_games_arena ON arena_games (arena_id, started_at);
