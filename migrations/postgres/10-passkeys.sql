-- Passkeys and their ceremonies under way, as SQLite's 13-passkeys (store/passkeys.rs).
CREATE TABLE passkeys (
    credential_id BYTEA PRIMARY KEY,
    account_id    BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_handle   BYTEA NOT NULL CHECK (length(user_handle) = 16),
    passkey       TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    used_at       BIGINT
);
CREATE INDEX passkeys_account ON passkeys (account_id);
CREATE INDEX passkeys_user ON passkeys (user_handle);
CREATE TABLE passkey_ceremonies (
    token_hash  BYTEA PRIMARY KEY CHECK (length(token_hash) = 32),
    purpose     TEXT NOT NULL CHECK (purpose IN ('sign-up', 'add', 'sign-in')),
    state       TEXT NOT NULL,
    name        TEXT,
    account_id  BIGINT REFERENCES accounts (id) ON DELETE CASCADE,
    user_handle BYTEA,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX passkey_ceremonies_expiry ON passkey_ceremonies (expires_at);
