-- The lobby bounded per address (rooms/pairing.rs): each seek keeps its seeker's address
-- as an opaque key (a hash of the IPv4 address or of the IPv6 /64, never the address),
-- so that what one address holds open is bounded (--max-seeks-per-address) and the
-- lobby, when full, is shared out by address. Seeks last as long as their request.
ALTER TABLE seeks ADD COLUMN address TEXT NOT NULL DEFAULT '';
CREATE INDEX seeks_address ON seeks (address) WHERE room_id IS NULL;
