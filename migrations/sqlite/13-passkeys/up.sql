-- Passkeys (crates/mill-server/src/passkeys.rs, store/passkeys.rs): each is a WebAuthn
-- credential's id and public key (webauthn-rs's `Passkey` as JSON: the key, its
-- algorithm and signature counter; no secret: the private key never leaves the
-- authenticator), the account it signs in, and the user handle the authenticator keeps
-- for the account (one per account, the same for each of its passkeys).
CREATE TABLE passkeys (
    credential_id BLOB PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_handle   BLOB NOT NULL CHECK (length(user_handle) = 16),
    passkey       TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    used_at       INTEGER
) STRICT;
CREATE INDEX passkeys_account ON passkeys (account_id);
CREATE INDEX passkeys_user ON passkeys (user_handle);
-- Ceremonies under way: a sign-up, an added passkey or a sign-in started and not yet
-- finished. Kept here, not in one instance's memory, so that any instance can finish a
-- ceremony another started; keyed by the SHA-256 of the ceremony's token (the token
-- itself is only the page's), deleted when finished (whatever the outcome: a challenge
-- is used once) and by the purge job once expired. `state` is webauthn-rs's ceremony
-- state (the challenge and what the answer must match).
CREATE TABLE passkey_ceremonies (
    token_hash  BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
    purpose     TEXT NOT NULL CHECK (purpose IN ('sign-up', 'add', 'sign-in')),
    state       TEXT NOT NULL,
    -- sign-up: the name asked for
    name        TEXT,
    -- add: the signed-in account
    account_id  INTEGER REFERENCES accounts (id) ON DELETE CASCADE,
    user_handle BLOB,
    expires_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX passkey_ceremonies_expiry ON passkey_ceremonies (expires_at);
