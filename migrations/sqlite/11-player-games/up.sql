-- The player's record (store/accounts.rs `record_round_*`, `GET /api/players/{name}/games`):
-- each finished round (won, drawn or lost; not aborted) of a seat held by an account, one
-- row per account, written in the transaction that stores the round's result. It keeps
-- no key to `rooms`, so it outlives the purge of idle rooms that takes `seat_accounts`
-- and `rated_rounds` with them; `room_id` and `round` only make the review link while
-- the room is there.
CREATE TABLE player_games (
    -- the order rounds were recorded in: the list's order and its paging cursor
    id              INTEGER PRIMARY KEY,
    account_id      INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    room_id         TEXT NOT NULL,
    round           INTEGER NOT NULL,
    color           TEXT NOT NULL CHECK (color IN ('light', 'dark')),
    -- the opponent's account: NULL for an anonymous opponent, or (opponent_signed = 1)
    -- for one whose account has been deleted since (shown under the name "deleted")
    opponent_id     INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
    opponent_signed INTEGER NOT NULL CHECK (opponent_signed IN (0, 1)),
    result          TEXT NOT NULL CHECK (result IN ('win', 'draw', 'loss')),
    reason          TEXT NOT NULL,
    rules           TEXT NOT NULL,
    clock_initial   INTEGER,
    clock_increment INTEGER,
    clock_days      INTEGER,
    -- rated rounds only: the rating's speed and this player's rating before and after
    speed           TEXT CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence')),
    rating_before   REAL,
    rating_after    REAL,
    at              INTEGER NOT NULL,
    UNIQUE (account_id, room_id, round)
) STRICT;
-- A player's list, newest first (the index holds the rowid: account_id, id).
CREATE INDEX player_games_account ON player_games (account_id);
-- The opponent's side, for the deletion's SET NULL.
CREATE INDEX player_games_opponent ON player_games (opponent_id);
-- The leaderboard (`GET /api/players?rules=&speed=`): one rule set and speed's ratings,
-- best first.
CREATE INDEX ratings_board ON ratings (rules, speed, rating);
