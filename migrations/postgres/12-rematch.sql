-- Rematch, as SQLite's 15-rematch: rooms made by quick pairing (or a rematch of one) are
-- `paired`, the only rooms whose rounds may be rematched; two new kinds, 'offer-rematch'
-- (with the SHA-256 of the sender's key for the new room, never the key) and
-- 'decline-rematch'. The event completing a rematch creates the new room in the
-- transaction that stores it; the room's id is computed from the old room's and the
-- round's, so of two instances completing it at once the events' primary key keeps one
-- event and the rooms' primary key one room.
ALTER TABLE rooms ADD COLUMN paired BOOLEAN NOT NULL DEFAULT FALSE;
-- Of the rooms made before it, the rated ones that are no arena's game were made by rated
-- pairing: paired (a casual room made by pairing cannot be told from an invite room).
UPDATE rooms SET paired = TRUE
WHERE id IN (SELECT room_id FROM rated_rooms)
  AND id NOT IN (SELECT room_id FROM arena_games);

ALTER TABLE events
    ADD COLUMN key_hash BYTEA CHECK (length(key_hash) = 32),
    ADD CONSTRAINT events_rematch_key CHECK ((kind = 'offer-rematch') = (key_hash IS NOT NULL)),
    DROP CONSTRAINT events_kind_check,
    ADD CONSTRAINT events_kind_check CHECK (kind IN ('action', 'offer-draw', 'accept-draw',
                                                     'decline-draw', 'resign', 'new-round',
                                                     'offer-takeback', 'accept-takeback',
                                                     'decline-takeback', 'claim-win',
                                                     'call-draw', 'offer-rematch',
                                                     'decline-rematch', 'timeout', 'abort',
                                                     'away', 'back'));
