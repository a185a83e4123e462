-- Online games on a clock (crates/mill-server/src/timecontrol.rs), as SQLite's
-- 06-clocks: a room's time control (live: initial and increment seconds; correspondence:
-- days per turn; all NULL: untimed, as every room before this migration), within the
-- ranges `POST /api/rooms` accepts.
ALTER TABLE rooms
    ADD COLUMN clock_initial INTEGER CHECK (clock_initial BETWEEN 15 AND 10800),
    ADD COLUMN clock_increment INTEGER CHECK (clock_increment BETWEEN 0 AND 180),
    ADD COLUMN clock_days INTEGER CHECK (clock_days BETWEEN 1 AND 14),
    ADD CONSTRAINT rooms_clock_kind CHECK (
        (clock_initial IS NULL) = (clock_increment IS NULL)
        AND NOT (clock_initial IS NOT NULL AND clock_days IS NOT NULL)
    );

-- Each event of a timed round carries both sides' remaining milliseconds as of its `at`
-- and the lag given back to the turn it completed (0 for any other event); NULL in an
-- untimed room.
--
-- New kinds: the commands 'claim-win' and 'call-draw', and the events the server stores
-- by itself: 'timeout' and 'abort' (the seat that ran out of time or did not start),
-- 'away' and 'back' (the seat whose absence stops the other side's clock, and its
-- return). Their client ids start with '~', which no page may send. A turn acknowledged
-- at the last moment on one instance and the flag seen on another are both written at
-- the round's next seq: the primary key (room_id, round, seq) keeps exactly one, and the
-- other instance is told it lost (its insert does nothing), so they never both stand.
ALTER TABLE events
    ADD COLUMN light_ms BIGINT CHECK (light_ms >= 0),
    ADD COLUMN dark_ms BIGINT CHECK (dark_ms >= 0),
    ADD COLUMN lag_ms BIGINT CHECK (lag_ms >= 0),
    ADD CONSTRAINT events_clock_stamp CHECK (
        (light_ms IS NULL) = (dark_ms IS NULL)
        AND (lag_ms IS NULL OR light_ms IS NOT NULL)
    ),
    DROP CONSTRAINT events_kind_check,
    ADD CONSTRAINT events_kind_check CHECK (kind IN ('action', 'offer-draw', 'accept-draw',
                                                     'decline-draw', 'resign', 'new-round',
                                                     'offer-takeback', 'accept-takeback',
                                                     'decline-takeback', 'claim-win',
                                                     'call-draw', 'timeout', 'abort',
                                                     'away', 'back'));
