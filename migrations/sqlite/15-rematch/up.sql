-- Rematch (issue #32; crates/mill-server/src/table.rs, docs/PROTOCOL.md "Rematch"): when a
-- round of a room made by quick pairing is over, either seat may offer a rematch, the
-- other accept (offer too) or decline, in a new room with the same rules and clock and
-- the colours swapped.
--
-- A room made by quick pairing, or a rematch of one, is `paired`: only its rounds may be
-- rematched (an invite room's players ask for a new round instead). Of the rooms made
-- before this migration, the rated ones that are no arena's game were made by rated
-- pairing (invite rooms are casual; an arena pairs its players again by itself), so they
-- are paired; a casual room made by pairing cannot be told from an invite room (an
-- answered seek leaves no row) and stays unpaired.
ALTER TABLE rooms ADD COLUMN paired INTEGER NOT NULL DEFAULT 0 CHECK (paired IN (0, 1));
UPDATE rooms SET paired = 1
WHERE id IN (SELECT room_id FROM rated_rooms)
  AND id NOT IN (SELECT room_id FROM arena_games);

-- New kinds: 'offer-rematch' and 'decline-rematch'. An 'offer-rematch' carries the
-- SHA-256 of the seat key its sender's page made for the new room (the key itself is
-- never stored): the event that completes the rematch creates the new room with both
-- hashes in its own transaction, and the new room's id is computed from the old room's
-- and the round's (keys.rs `rematch_room_id`), so of two completing events at one place
-- the log keeps one, and the rooms' primary key creates the room once.
--
-- SQLite cannot change a CHECK in place, so the log is copied into a table with the new
-- list and column, keeping every row's id (its append order), as 03 and 06 did.
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
                                            'offer-rematch', 'decline-rematch',
                                            'timeout', 'abort', 'away', 'back')),
    action    TEXT CHECK ((kind = 'action') = (action IS NOT NULL)),
    client_id TEXT NOT NULL,
    at        INTEGER NOT NULL,
    light_ms  INTEGER CHECK (light_ms >= 0),
    dark_ms   INTEGER CHECK (dark_ms >= 0),
    lag_ms    INTEGER CHECK (lag_ms IS NULL OR (lag_ms >= 0 AND light_ms IS NOT NULL)),
    key_hash  BLOB CHECK (key_hash IS NULL OR length(key_hash) = 32),
    CHECK ((light_ms IS NULL) = (dark_ms IS NULL)),
    CHECK ((kind = 'offer-rematch') = (key_hash IS NOT NULL))
) STRICT;

INSERT INTO events_new (id, room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms)
SELECT id, room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms
FROM events
ORDER BY id;

DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
-- The index of 06 went with the old table.
CREATE INDEX events_room ON events (room_id, round, seq, seat, client_id);
