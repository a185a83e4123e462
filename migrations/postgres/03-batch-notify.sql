-- Events are written in batches (pg.rs, the group-commit writer), and the writer sends
-- one NOTIFY per batch naming every room it changed: "<room>,<room>,… <origin>". Its
-- connections say so with the setting mill.notify = 'batch'; for them the events
-- trigger stays quiet. Connections without it (an instance of an older version during
-- a rolling upgrade) still announce each event as before. The Light seat, inserted
-- with its room, is no longer announced.
CREATE OR REPLACE FUNCTION mill_notify_room() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    room TEXT;
BEGIN
    IF TG_TABLE_NAME = 'events' AND current_setting('mill.notify', true) = 'batch' THEN
        RETURN NULL;
    END IF;
    -- The Light seat comes with its room, in the same transaction: no instance can
    -- hold the room without it, so there is nothing to announce (and every NOTIFY
    -- costs a turn on the notification-queue lock through its commit).
    -- (Nested: NEW has a color only on seats.)
    IF TG_TABLE_NAME = 'seats' THEN
        IF NEW.color = 'light' THEN
            RETURN NULL;
        END IF;
    END IF;
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
