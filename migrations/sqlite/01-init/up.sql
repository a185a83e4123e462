-- Rooms, their two seats, their rounds, and every confirmed event of every round.
-- Times are Unix milliseconds. A room's state is rebuilt by replaying its events
-- through mill-core, so nothing derived (positions, results) is stored.

CREATE TABLE rooms (
    id         TEXT PRIMARY KEY,
    variant    TEXT NOT NULL DEFAULT 'nine',
    created_at INTEGER NOT NULL,
    -- last action or connection; the purge job deletes rooms idle for too long
    active_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE seats (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    color      TEXT NOT NULL CHECK (color IN ('light', 'dark')),
    -- SHA-256 of the seat key; the key itself is never stored
    key_hash   BLOB NOT NULL CHECK (length(key_hash) = 32),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (room_id, color)
) STRICT;

CREATE TABLE rounds (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL CHECK (number >= 1),
    started_at INTEGER NOT NULL,
    PRIMARY KEY (room_id, number)
) STRICT;

CREATE TABLE events (
    room_id   TEXT NOT NULL,
    round     INTEGER NOT NULL,
    -- order of the event within its round, from 0
    seq       INTEGER NOT NULL CHECK (seq >= 0),
    seat      TEXT NOT NULL CHECK (seat IN ('light', 'dark')),
    kind      TEXT NOT NULL CHECK (kind IN ('action', 'offer-draw', 'accept-draw',
                                            'decline-draw', 'resign', 'new-round')),
    -- the action's text form ("d6", "a1-a4", "xd2") when kind = 'action'
    action    TEXT CHECK ((kind = 'action') = (action IS NOT NULL)),
    client_id TEXT NOT NULL,
    at        INTEGER NOT NULL,
    PRIMARY KEY (room_id, round, seq),
    FOREIGN KEY (room_id, round) REFERENCES rounds (room_id, number) ON DELETE CASCADE
) STRICT;

-- A retried command (same client id) is answered from memory and never stored twice.
CREATE UNIQUE INDEX events_client_id ON events (room_id, seat, client_id);
