-- The lobby bounded per address, as SQLite's 12-seek-addresses: each seek's seeker's
-- address as an opaque key (a hash, never the address), counted per address under the
-- address's advisory lock, and the lobby shared out by it.
ALTER TABLE seeks ADD COLUMN address TEXT NOT NULL DEFAULT '';
CREATE INDEX seeks_address ON seeks (address) WHERE room_id IS NULL;
