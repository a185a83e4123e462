-- Quick pairing (POST /api/pair, crates/mill-server/src/rooms/pairing.rs), as SQLite's
-- 07-seeks: the seekers waiting for an opponent, on any instance. A pairing is one
-- transaction that holds the pool's advisory lock (so two arrivals in one pool are
-- decided one after the other, whichever instances they reach), claims the oldest open
-- seek of another seeker, creates the room with both seats and names the room and seat in
-- the claimed row; NOTIFY mill_seeks '<seek id>' tells the waiting instance at commit. A
-- seek belongs to the instance holding its request, and goes with it when that instance
-- is taken for dead.
CREATE TABLE seeks (
    id              TEXT PRIMARY KEY,
    seeker          TEXT NOT NULL,
    instance_id     TEXT NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    pool            TEXT NOT NULL,
    variant         TEXT NOT NULL,
    clock_initial   INTEGER,
    clock_increment INTEGER,
    clock_days      INTEGER,
    key_hash        BYTEA NOT NULL CHECK (length(key_hash) = 32),
    created_at      BIGINT NOT NULL,
    room_id         TEXT REFERENCES rooms (id) ON DELETE CASCADE,
    seat            TEXT CHECK (seat IN ('light', 'dark')),
    CHECK ((room_id IS NULL) = (seat IS NULL))
);
CREATE INDEX seeks_open ON seeks (pool, created_at) WHERE room_id IS NULL;
CREATE INDEX seeks_seeker ON seeks (seeker);
CREATE INDEX seeks_instance ON seeks (instance_id);
