-- Quick pairing (POST /api/pair, crates/mill-server/src/rooms/pairing.rs): the seekers
-- waiting for an opponent. A seek waits here with the hash of the seat key its seeker
-- will get; the seek that arrives next in the same pool (the same rules and the same time
-- control) claims it in one write: the room is created with both seats, and the waiting
-- row names the room and its seat, which the waiting request reads. A pairing is decided
-- once, by the one transaction that creates the room. Nothing here is free text: the
-- seeker id is a token the page keeps so that two tabs of one browser never meet, and it
-- is never shown.
CREATE TABLE seeks (
    id              TEXT PRIMARY KEY,
    seeker          TEXT NOT NULL,
    -- the variant and the time control as one key ('nine untimed', 'six 300+3', 'nine 3d')
    pool            TEXT NOT NULL,
    variant         TEXT NOT NULL,
    clock_initial   INTEGER,
    clock_increment INTEGER,
    clock_days      INTEGER,
    key_hash        BLOB NOT NULL CHECK (length(key_hash) = 32),
    created_at      INTEGER NOT NULL,
    -- set when paired: the room and the seat this seeker holds in it
    room_id         TEXT REFERENCES rooms (id) ON DELETE CASCADE,
    seat            TEXT CHECK (seat IN ('light', 'dark')),
    CHECK ((room_id IS NULL) = (seat IS NULL))
) STRICT;
CREATE INDEX seeks_open ON seeks (pool, created_at) WHERE room_id IS NULL;
CREATE INDEX seeks_seeker ON seeks (seeker);
