-- Takebacks by consent become events: 'offer-takeback', 'accept-takeback' and
-- 'decline-takeback' join the kinds. SQLite cannot change a CHECK in place, so the log
-- is copied into a table with the new list, keeping every row's id (its append order).

CREATE TABLE events_new (
    id        INTEGER PRIMARY KEY,
    room_id   TEXT NOT NULL,
    round     INTEGER NOT NULL CHECK (round >= 1),
    seq       INTEGER NOT NULL CHECK (seq >= 0),
    seat      TEXT NOT NULL CHECK (seat IN ('light', 'dark')),
    kind      TEXT NOT NULL CHECK (kind IN ('action', 'offer-draw', 'accept-draw',
                                            'decline-draw', 'resign', 'new-round',
                                            'offer-takeback', 'accept-takeback',
                                            'decline-takeback')),
    action    TEXT CHECK ((kind = 'action') = (action IS NOT NULL)),
    client_id TEXT NOT NULL,
    at        INTEGER NOT NULL
) STRICT;

INSERT INTO events_new (id, room_id, round, seq, seat, kind, action, client_id, at)
SELECT id, room_id, round, seq, seat, kind, action, client_id, at
FROM events
ORDER BY id;

DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
