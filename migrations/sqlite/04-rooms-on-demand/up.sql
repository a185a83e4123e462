-- Rooms are loaded when a socket or a request first asks for them, not all at start-up,
-- so one room's events must be found without reading the whole log. An index on
-- room_id alone (SQLite adds the rowid, which is the append order) gives exactly that:
-- `WHERE room_id = ? ORDER BY id` walks the room's events in the order they were
-- committed. It costs one more B-tree page per event in a group commit; the log
-- itself stays append-only.
CREATE INDEX events_room ON events (room_id);
