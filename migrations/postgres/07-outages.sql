-- Time while no server was running, or the database took no write, is nobody's, as
-- SQLite's 09-outages: `alive` is the last moment any instance wrote that it was running
-- (its one row is locked by each write, so of instances seeing one gap only the first
-- records it), `outages` the gaps found, which every instance's clocks skip.
CREATE TABLE alive (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at BIGINT NOT NULL
);

CREATE TABLE outages (
    since BIGINT PRIMARY KEY,
    until BIGINT NOT NULL,
    CHECK (until > since)
);
