-- Events become an append-only log. Under load every commit used to touch a random
-- page in each of three B-trees (the table, its primary key and the client-id index)
-- plus the room's row, so a batch of N actions wrote ~3N pages to the WAL. Appended
-- by rowid with no index, a batch of N actions fills one or two pages.
--
-- What the indexes did moves to the server: it assigns (round, seq) and keeps every
-- applied client id in memory (rebuilt from this table on start-up); the purge job
-- deletes a room's events itself; a room's last activity is the later of
-- rooms.active_at (connections) and its last event.

CREATE TABLE events_log (
    id        INTEGER PRIMARY KEY,
    room_id   TEXT NOT NULL,
    round     INTEGER NOT NULL CHECK (round >= 1),
    seq       INTEGER NOT NULL CHECK (seq >= 0),
    seat      TEXT NOT NULL CHECK (seat IN ('light', 'dark')),
    kind      TEXT NOT NULL CHECK (kind IN ('action', 'offer-draw', 'accept-draw',
                                            'decline-draw', 'resign', 'new-round')),
    action    TEXT CHECK ((kind = 'action') = (action IS NOT NULL)),
    client_id TEXT NOT NULL,
    at        INTEGER NOT NULL
) STRICT;

INSERT INTO events_log (room_id, round, seq, seat, kind, action, client_id, at)
SELECT room_id, round, seq, seat, kind, action, client_id, at
FROM events
ORDER BY room_id, round, seq;

DROP TABLE events;
ALTER TABLE events_log RENAME TO events;
