-- Online games on a clock (crates/mill-server/src/timecontrol.rs). A room may have a time
-- control: a live one (initial and increment seconds) or a correspondence one (days per
-- turn); all three NULL is an untimed room, as every room before this migration.
-- The ranges are the ones `POST /api/rooms` accepts.
ALTER TABLE rooms ADD COLUMN clock_initial INTEGER
    CHECK (clock_initial BETWEEN 15 AND 10800);
-- (A CHECK passes on NULL but fails on false, so each says what NULL means itself.)
ALTER TABLE rooms ADD COLUMN clock_increment INTEGER
    CHECK (clock_increment IS NULL OR (clock_increment BETWEEN 0 AND 180 AND clock_initial IS NOT NULL));
ALTER TABLE rooms ADD COLUMN clock_days INTEGER
    CHECK (clock_days IS NULL OR (clock_days BETWEEN 1 AND 14 AND clock_initial IS NULL));

-- Each event of a timed round carries both sides' remaining milliseconds as of its `at`
-- and the lag given back to the turn it completed (0 for any other event); NULL in an
-- untimed room. Replaying a round's events with these rebuilds its clocks after a
-- restart, on another instance, and for review.
--
-- New kinds: the commands 'claim-win' and 'call-draw', and the events the server stores
-- by itself: 'timeout' and 'abort' (the seat that ran out of time or did not start),
-- 'away' and 'back' (the seat whose absence stops the other side's clock, and its
-- return). Their client ids start with '~', which no page may send, so a server event
-- never meets a command's id. Whatever two writers could both decide (a turn and the
-- flag at the same place in the round) is decided by the log's (round, seq): the server
-- assigns seq, and the room's one writer keeps one of them.
--
-- SQLite cannot change a CHECK in place, so the log is copied into a table with the new
-- list and columns, keeping every row's id (its append order), as 03 did.
CREATE TABLE events_new (
    id        INTEGER PRIMARY KEY,
    room_id   TEXT NOT NULL,
    round     INTEGER NOT NULL CHECK (round >= 1),
    seq       INTEGER NOT NULL CHECK (seq >= 0),
    seat      TEXT NOT NULL CHECK (seat IN ('light', 'dark')),
    kind      TEXT NOT NULL CHECK (kind IN ('action', 'offer-draw', 'accept-draw',
                                            'decline-draw', 'resign', 'new-round',
                                            'offer-takeback', 'accept-takeback',
                                            'decline-takeback', 'claim-win', 'call-draw',
                                            'timeout', 'abort', 'away', 'back')),
    action    TEXT CHECK ((kind = 'action') = (action IS NOT NULL)),
    client_id TEXT NOT NULL,
    at        INTEGER NOT NULL,
    light_ms  INTEGER CHECK (light_ms >= 0),
    dark_ms   INTEGER CHECK (dark_ms >= 0),
    lag_ms    INTEGER CHECK (lag_ms IS NULL OR (lag_ms >= 0 AND light_ms IS NOT NULL)),
    CHECK ((light_ms IS NULL) = (dark_ms IS NULL))
) STRICT;

INSERT INTO events_new (id, room_id, round, seq, seat, kind, action, client_id, at)
SELECT id, room_id, round, seq, seat, kind, action, client_id, at
FROM events
ORDER BY id;

DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
-- The index of 05 went with the old table.
CREATE INDEX events_room ON events (room_id, round, seq, seat, client_id);
