-- Optional accounts (crates/mill-server/src/accounts.rs, store/accounts.rs): a name, a
-- password's argon2id hash (a PHC string: algorithm, parameters, salt and hash; never
-- the password), the sessions as SHA-256 hashes of their tokens (never a token), and one
-- Glicko-2 rating per rule set and speed (ratings.rs). Anonymous play needs none of it.
CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY,
    -- as the player typed it; unique without regard to case through name_key
    name          TEXT NOT NULL,
    name_key      TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    created_at    INTEGER NOT NULL
) STRICT;
CREATE TABLE sessions (
    token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_account ON sessions (account_id);
CREATE TABLE ratings (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    rules      TEXT NOT NULL,
    speed      TEXT NOT NULL CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence')),
    rating     REAL NOT NULL,
    rd         REAL NOT NULL,
    vol        REAL NOT NULL,
    games      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, rules, speed)
) STRICT;
-- The account holding a seat, for seats taken while signed in (NULL once the account
-- is deleted: its games stay, under a neutral name).
CREATE TABLE seat_accounts (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    color      TEXT NOT NULL CHECK (color IN ('light', 'dark')),
    account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
    PRIMARY KEY (room_id, color)
) STRICT;
CREATE INDEX seat_accounts_account ON seat_accounts (account_id);
-- Rated rooms (made by rated pairing only), with the rating their rounds change.
CREATE TABLE rated_rooms (
    room_id TEXT PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    rules   TEXT NOT NULL,
    speed   TEXT NOT NULL CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence'))
) STRICT;
-- Each rated round's change, written in the transaction that stores its result; its key
-- is why a round changes the ratings once.
CREATE TABLE rated_rounds (
    room_id      TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    round        INTEGER NOT NULL,
    light_before REAL NOT NULL,
    light_after  REAL NOT NULL,
    dark_before  REAL NOT NULL,
    dark_after   REAL NOT NULL,
    at           INTEGER NOT NULL,
    PRIMARY KEY (room_id, round)
) STRICT;
-- The account behind a seek, for rated pairing (and so an account never meets itself).
ALTER TABLE seeks ADD COLUMN account_id INTEGER;
