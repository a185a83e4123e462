-- The writer checks the two keys PostgreSQL's constraints hold, (room, round, seq) and
-- (room, seat, client id), before it appends an event, and a retry whose client id has
-- left the room's memory is looked up by them. One index on the room's rows covers
-- both lookups without reading the log, and still gives a room's events for loading:
-- it replaces the room_id index of migration 04, so a group commit still touches one
-- index page per room. It is not UNIQUE: a database written before these checks may
-- hold a client id twice (a retry applied twice), and must still open.
DROP INDEX events_room;
CREATE INDEX events_room ON events (room_id, round, seq, seat, client_id);
