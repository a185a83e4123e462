-- Time while the server was not running is nobody's (crates/mill-server/src/timecontrol.rs,
-- `Clocks::skip`). `alive` holds the last moment a server wrote that it was running (Unix
-- ms, every second, and at a clean stop); a start, or a database that took no write for
-- a while, finds the gap since then and records it in `outages`. Every room's clocks
-- skip the outages after the time they count from (at load, in replay, and in memory when
-- one is recorded), so a crash or a database outage is charged to nobody.
CREATE TABLE alive (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at INTEGER NOT NULL
) STRICT;

CREATE TABLE outages (
    since INTEGER PRIMARY KEY,
    until INTEGER NOT NULL,
    CHECK (until > since)
) STRICT;
