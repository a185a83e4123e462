-- PostgreSQL schema: the same rooms, seats and events as SQLite, plus what several
-- instances need to share one database. Times are Unix milliseconds, as in SQLite.

CREATE TABLE rooms (
    id         TEXT PRIMARY KEY,
    variant    TEXT NOT NULL DEFAULT 'nine',
    created_at BIGINT NOT NULL,
    -- last action or connection; the purge job deletes rooms idle for too long
    active_at  BIGINT NOT NULL
);

CREATE TABLE seats (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    color      TEXT NOT NULL CHECK (color IN ('light', 'dark')),
    -- SHA-256 of the seat key; the key itself is never stored
    key_hash   BYTEA NOT NULL CHECK (length(key_hash) = 32),
    created_at BIGINT NOT NULL,
    -- one key per seat: of two instances joining at once, one wins
    PRIMARY KEY (room_id, color)
);

CREATE TABLE events (
    room_id   TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    round     INTEGER NOT NULL CHECK (round >= 1),
    seq       INTEGER NOT NULL CHECK (seq >= 0),
    seat      TEXT NOT NULL CHECK (seat IN ('light', 'dark')),
    kind      TEXT NOT NULL CHECK (kind IN ('action', 'offer-draw', 'accept-draw',
                                            'decline-draw', 'resign', 'new-round',
                                            'offer-takeback', 'accept-takeback',
                                            'decline-takeback')),
    action    TEXT CHECK ((kind = 'action') = (action IS NOT NULL)),
    client_id TEXT NOT NULL,
    at        BIGINT NOT NULL,
    -- Of two instances placing an event at the same place, the database keeps one:
    -- the other is answered `stale`.
    PRIMARY KEY (room_id, round, seq),
    -- A retried command is stored once, whichever instance the retry reaches.
    UNIQUE (room_id, seat, client_id)
);

-- Running server processes; one row each, refreshed every few seconds.
CREATE TABLE instances (
    id      TEXT PRIMARY KEY,
    seen_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Which instance holds a socket for which seat, for "online" across instances. Rows
-- of an instance that stops refreshing go with it (see the heartbeat in pg.rs).
CREATE TABLE presence (
    room_id     TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seat        TEXT NOT NULL CHECK (seat IN ('light', 'dark')),
    instance_id TEXT NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    PRIMARY KEY (room_id, seat, instance_id)
);
CREATE INDEX presence_instance ON presence (instance_id);

-- Every change to a room is announced on channel mill_rooms as "<room> <origin>", where
-- origin is the writing connection's application_name (the instance id), so an
-- instance can skip its own events. Presence changes carry no origin: every
-- instance, the writer included, looks again.
CREATE FUNCTION mill_notify_room() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    room TEXT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        room := OLD.room_id;
    ELSE
        room := NEW.room_id;
    END IF;
    IF TG_TABLE_NAME = 'presence' THEN
        PERFORM pg_notify('mill_rooms', room || ' *');
    ELSE
        PERFORM pg_notify('mill_rooms', room || ' ' || current_setting('application_name'));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_notify AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION mill_notify_room();
CREATE TRIGGER seats_notify AFTER INSERT ON seats
    FOR EACH ROW EXECUTE FUNCTION mill_notify_room();
CREATE TRIGGER presence_notify AFTER INSERT OR DELETE ON presence
    FOR EACH ROW EXECUTE FUNCTION mill_notify_room();
