-- Optional accounts, as SQLite's 09-accounts: names (unique without regard to case
-- through name_key), argon2id password hashes as PHC strings, sessions as SHA-256 hashes
-- of their tokens, one Glicko-2 rating per rule set and speed.
CREATE TABLE accounts (
    id            BIGSERIAL PRIMARY KEY,
    name          TEXT NOT NULL,
    name_key      TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    created_at    BIGINT NOT NULL
);
CREATE TABLE sessions (
    token_hash BYTEA PRIMARY KEY CHECK (length(token_hash) = 32),
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE TABLE ratings (
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    rules      TEXT NOT NULL,
    speed      TEXT NOT NULL CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence')),
    rating     DOUBLE PRECISION NOT NULL,
    rd         DOUBLE PRECISION NOT NULL,
    vol        DOUBLE PRECISION NOT NULL,
    games      INTEGER NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, rules, speed)
);
CREATE TABLE seat_accounts (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    color      TEXT NOT NULL CHECK (color IN ('light', 'dark')),
    account_id BIGINT REFERENCES accounts (id) ON DELETE SET NULL,
    PRIMARY KEY (room_id, color)
);
CREATE INDEX seat_accounts_account ON seat_accounts (account_id);
CREATE TABLE rated_rooms (
    room_id TEXT PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    rules   TEXT NOT NULL,
    speed   TEXT NOT NULL CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence'))
);
CREATE TABLE rated_rounds (
    room_id      TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    round        INTEGER NOT NULL,
    light_before DOUBLE PRECISION NOT NULL,
    light_after  DOUBLE PRECISION NOT NULL,
    dark_before  DOUBLE PRECISION NOT NULL,
    dark_after   DOUBLE PRECISION NOT NULL,
    at           BIGINT NOT NULL,
    PRIMARY KEY (room_id, round)
);
ALTER TABLE seeks ADD COLUMN account_id BIGINT;
