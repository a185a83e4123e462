//! The rooms made before the rematch's migration (migrations/sqlite/15-rematch,
//! migrations/postgres/12-rematch; marked by 17-rematch-rated and 14-rematch-rated): the
//! rated ones that are no arena's game were made by
//! rated pairing and become `paired` (their rounds may be rematched); an arena's game and
//! a casual room (made by an invite, or by casual pairing, which left no trace) do not.
//! The store the run is on (`common::on_postgres`): SQLite's migrations on a file in
//! memory, or PostgreSQL's files applied in order on a database of their own, with the
//! rooms written between the arenas' migration and the rematch's.

/// The rooms as the schema before the rematch held them, `blob` a 32-byte key hash in
/// the database's own syntax.
fn before_rematch(blob: &str) -> Vec<String> {
    vec![
        "INSERT INTO rooms (id, variant, created_at, active_at) VALUES ('invite', 'nine', 1, 1)".into(),
        "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
         VALUES ('rated', 'nine', 1, 1, 180, 2)"
            .into(),
        "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
         VALUES ('arena-game', 'nine', 1, 1, 180, 2)"
            .into(),
        "INSERT INTO rated_rooms (room_id, rules, speed) VALUES ('rated', 'nine', 'blitz')".into(),
        "INSERT INTO rated_rooms (room_id, rules, speed) VALUES ('arena-game', 'nine', 'blitz')".into(),
        "INSERT INTO arenas (id, name, variant, clock_initial, clock_increment, starts_at, ends_at, rated, created_at)
         VALUES ('a1', 'Blitz', 'nine', 180, 2, 1, 100, TRUE, 1)"
            .into(),
        format!(
            "INSERT INTO arena_games (room_id, arena_id, light_id, dark_id, light_rating, dark_rating,
                                      light_key_hash, dark_key_hash, started_at)
             VALUES ('arena-game', 'a1', 1, 2, 1500, 1500, {blob}, {blob}, 1)"
        ),
    ]
}

const PAIRED: &str = "SELECT id FROM rooms WHERE paired ORDER BY id";

mod common;

#[tokio::test]
async fn the_rated_rooms_of_pairing_before_the_rematch_become_paired_and_nothing_else() {
    match std::env::var("MILL_TEST_PG_URL") {
        Ok(admin) if common::on_postgres() => on_postgres(&admin).await,
        _ => on_sqlite(),
    }
}

fn on_sqlite() {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    let migrations = mill_server::store::sqlite_migrations();
    migrations.to_version(&mut conn, 14).unwrap();
    for sql in before_rematch("zeroblob(32)") {
        conn.execute(&sql, []).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    migrations.to_latest(&mut conn).unwrap();
    let paired: Vec<String> = conn
        .prepare(PAIRED)
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(paired, ["rated"]);
    // A room made afterwards is unpaired unless its maker says so.
    conn.execute(
        "INSERT INTO rooms (id, variant, created_at, active_at) VALUES ('later', 'nine', 2, 2)",
        [],
    )
    .unwrap();
    let later: bool = conn
        .query_row("SELECT paired FROM rooms WHERE id = 'later'", [], |r| r.get(0))
        .unwrap();
    assert!(!later);
}

async fn on_postgres(admin: &str) {
    let (client, task) = common::empty_pg_database(admin, "mill_rematch_schema").await;
    let files = common::pg_migrations();
    let rematch = files
        .iter()
        .position(|f| f.ends_with("12-rematch.sql"))
        .expect("the rematch's migration");
    for (n, file) in files.iter().enumerate() {
        if n == rematch {
            for sql in before_rematch("decode(repeat('00', 32), 'hex')") {
                client
                    .batch_execute(&sql)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
            }
        }
        let sql = std::fs::read_to_string(file).unwrap();
        client
            .batch_execute(&sql)
            .await
            .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
    }
    let paired: Vec<String> = client
        .query(PAIRED, &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(paired, ["rated"]);
    drop(client);
    let _ = task.await;
}
