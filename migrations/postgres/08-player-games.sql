-- The player's record, as SQLite's 11-player-games: each finished round of a seat held by
-- an account, one row per account, written in the transaction that stores the result;
-- no key to `rooms`, so it outlives the purge of idle rooms.
CREATE TABLE player_games (
    id              BIGSERIAL PRIMARY KEY,
    account_id      BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    room_id         TEXT NOT NULL,
    round           INTEGER NOT NULL,
    color           TEXT NOT NULL CHECK (color IN ('light', 'dark')),
    opponent_id     BIGINT REFERENCES accounts (id) ON DELETE SET NULL,
    opponent_signed BOOLEAN NOT NULL,
    result          TEXT NOT NULL CHECK (result IN ('win', 'draw', 'loss')),
    reason          TEXT NOT NULL,
    rules           TEXT NOT NULL,
    clock_initial   INTEGER,
    clock_increment INTEGER,
    clock_days      INTEGER,
    speed           TEXT CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence')),
    rating_before   DOUBLE PRECISION,
    rating_after    DOUBLE PRECISION,
    at              BIGINT NOT NULL,
    UNIQUE (account_id, room_id, round)
);
CREATE INDEX player_games_account ON player_games (account_id, id);
CREATE INDEX player_games_opponent ON player_games (opponent_id);
CREATE INDEX ratings_board ON ratings (rules, speed, rating);
