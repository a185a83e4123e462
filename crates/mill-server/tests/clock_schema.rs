//! The clocks' columns and event kinds in both schemas (migrations/sqlite/06-clocks,
//! migrations/postgres/04-clocks): what a timed room and its events may store, and that
//! the database refuses what `POST /api/rooms` and timecontrol.rs never make. SQLite
//! always; PostgreSQL under scripts/with-postgres (its migrations read from the files, in
//! order, on a database of their own).

mod common;

/// Statements that must be accepted, in order, then statements that must each be refused.
const ACCEPTED: &[&str] = &[
    "INSERT INTO rooms (id, variant, created_at, active_at) VALUES ('plain', 'nine', 1, 1)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
     VALUES ('live', 'nine', 1, 1, 300, 3)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
     VALUES ('bullet', 'nine', 1, 1, 15, 0)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_days) VALUES ('post', 'nine', 1, 1, 14)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
     VALUES ('plain', 1, 0, 'light', 'action', 'd6', 'c1', 5)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms)
     VALUES ('live', 1, 0, 'light', 'action', 'd6', 'c1', 5, 300000, 300000, 0)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms)
     VALUES ('live', 1, 1, 'dark', 'timeout', NULL, '~timeout-1-1', 9, 1000, 0, 0)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms)
     VALUES ('live', 2, 0, 'light', 'abort', NULL, '~abort-2-0', 9, 300000, 300000)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms)
     VALUES ('live', 3, 0, 'dark', 'away', NULL, '~away-3-0', 9, 300000, 300000)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms)
     VALUES ('live', 3, 1, 'dark', 'back', NULL, '~back-3-1', 9, 300000, 300000)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms)
     VALUES ('live', 3, 2, 'light', 'claim-win', NULL, 'c9', 9, 300000, 300000)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms)
     VALUES ('live', 4, 0, 'light', 'call-draw', NULL, 'c10', 9, 300000, 300000)",
];

const REFUSED: &[&str] = &[
    // Time controls out of range, or of both kinds, or half of one.
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
     VALUES ('r1', 'nine', 1, 1, 14, 0)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
     VALUES ('r2', 'nine', 1, 1, 10801, 0)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
     VALUES ('r3', 'nine', 1, 1, 60, 181)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_days) VALUES ('r4', 'nine', 1, 1, 0)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_days) VALUES ('r5', 'nine', 1, 1, 15)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment, clock_days)
     VALUES ('r6', 'nine', 1, 1, 60, 0, 3)",
    "INSERT INTO rooms (id, variant, created_at, active_at, clock_increment) VALUES ('r7', 'nine', 1, 1, 2)",
    // Stamps: both remaining times or neither, never negative, a lag only with them.
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms)
     VALUES ('live', 9, 0, 'light', 'resign', NULL, 'x1', 9, 1000)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms)
     VALUES ('live', 9, 0, 'light', 'resign', NULL, 'x2', 9, -1, 1000)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, lag_ms)
     VALUES ('live', 9, 0, 'light', 'resign', NULL, 'x3', 9, 10)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms)
     VALUES ('live', 9, 0, 'light', 'action', 'd6', 'x4', 9, 1000, 1000, -5)",
    // Kinds: only the commands and the clock's own events; a clock event has no action.
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
     VALUES ('live', 9, 0, 'light', 'flag', NULL, 'x5', 9)",
    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
     VALUES ('live', 9, 0, 'light', 'timeout', 'd6', 'x6', 9)",
];

#[test]
fn sqlite_stores_the_clocks_and_refuses_what_no_clock_makes() {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    mill_server::store::sqlite_migrations()
        .to_latest(&mut conn)
        .unwrap();
    for sql in ACCEPTED {
        conn.execute(sql, []).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    for sql in REFUSED {
        assert!(conn.execute(sql, []).is_err(), "accepted: {sql}");
    }
    // The events written before the clocks keep their place and have no stamp.
    let (kind, stamp): (String, Option<i64>) = conn
        .query_row(
            "SELECT kind, light_ms FROM events WHERE room_id = 'plain' ORDER BY id LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((kind.as_str(), stamp), ("action", None));
}

#[tokio::test]
async fn postgres_stores_the_clocks_and_refuses_what_no_clock_makes() {
    let Ok(admin) = std::env::var("MILL_TEST_PG_URL") else {
        return; // SQLite only outside scripts/with-postgres.
    };
    let (client, task) = common::empty_pg_database(&admin, "mill_clock_schema").await;
    let files = common::pg_migrations();
    for file in files {
        let sql = std::fs::read_to_string(&file).unwrap();
        client
            .batch_execute(&sql)
            .await
            .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
    }
    for sql in ACCEPTED {
        client
            .batch_execute(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }
    for sql in REFUSED {
        assert!(client.batch_execute(sql).await.is_err(), "accepted: {sql}");
    }
    drop(client);
    let _ = task.await;
}
