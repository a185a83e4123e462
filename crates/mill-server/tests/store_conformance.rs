//! One conformance suite for every store: each test runs against the in-memory store the
//! room logic's unit tests use, SQLite and, when MILL_TEST_PG_URL is set
//! (scripts/with-postgres), PostgreSQL too, through the one interface the rooms use (the
//! `mill_server::store::Store` trait), so the stores cannot drift apart. Without
//! PostgreSQL its run is skipped with a notice.

mod common;

use mill_core::Color::{self, Dark, Light};
use mill_server::protocol::ClockEventKind;
use mill_server::protocol::Command;
use std::sync::Arc;

use mill_server::store::{Append, Appended, DbError, DbTarget, Entry, Memory, Store, StoredEvent};
use mill_server::timecontrol::{Stamp, TimeControl};

/// Where a store keeps its data: the tests that damage rows need a database.
enum Kept {
    Memory,
    Db(DbTarget),
}

/// A store of each kind, each on a database of its own: (name, store, where it keeps
/// its data).
async fn stores(dir: &tempfile::TempDir) -> Vec<(&'static str, Arc<dyn Store>, Kept)> {
    let mut out: Vec<(&'static str, Arc<dyn Store>, Kept)> = Vec::new();
    out.push(("memory", Arc::new(Memory::new()), Kept::Memory));
    let sqlite = DbTarget::Sqlite(dir.path().join("conformance.db"));
    let store = mill_server::store::open(&sqlite).await.unwrap().0;
    out.push(("SQLite", store, Kept::Db(sqlite)));
    if common::on_postgres() {
        let pg = common::target(&dir.path().join("conformance-pg")).await;
        let store = mill_server::store::open(&pg).await.unwrap().0;
        out.push(("PostgreSQL", store, Kept::Db(pg)));
    } else {
        eprintln!(
            "store_conformance: MILL_TEST_PG_URL is not set; PostgreSQL skipped (run under scripts/with-postgres)"
        );
    }
    out
}

/// Runs raw SQL on a backend's database (to damage rows as a broken disk or a bad
/// hand edit would), with its CHECK constraints out of the way.
async fn raw(target: &DbTarget, sql: &str) {
    match target {
        DbTarget::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.busy_timeout(common::PATIENCE).unwrap();
            conn.pragma_update(None, "ignore_check_constraints", true)
                .unwrap();
            conn.execute_batch(sql).unwrap();
        }
        DbTarget::Postgres(url) => {
            let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
            let task = tokio::spawn(conn);
            client
                .batch_execute(
                    "DO $$ DECLARE c record; BEGIN
                       FOR c IN SELECT conrelid::regclass AS t, conname FROM pg_constraint
                                WHERE conrelid IN ('events'::regclass, 'seats'::regclass) AND contype = 'c'
                       LOOP EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.t, c.conname); END LOOP;
                     END $$;",
                )
                .await
                .unwrap();
            client.batch_execute(sql).await.unwrap();
            drop(client);
            let _ = task.await;
        }
    }
}

fn event(round: u32, seq: u32, seat: Color, command: Command, client_id: &str) -> StoredEvent {
    StoredEvent {
        round,
        seq,
        seat,
        command: command.into(),
        client_id: client_id.to_string(),
        at: 1000 + i64::from(seq),
        stamp: None,
    }
}

fn append(room: &str, e: StoredEvent) -> Append {
    Append {
        room: room.to_string(),
        event: e,
        ends: None,
        rematch: None,
    }
}

/// A room `id` with both seats taken.
async fn room(store: &Arc<dyn Store>, id: &str) {
    store.create_room(id, &[1; 32], 10, "nine", None).await.unwrap();
    assert!(store.join(id, &[2; 32], 20).await.unwrap());
}

#[tokio::test]
async fn appended_events_load_back_in_order_with_their_seats_and_kinds() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, _) in stores(&dir).await {
        store.create_room("r1", &[1; 32], 10, "six", None).await.unwrap();
        assert!(store.join("r1", &[2; 32], 20).await.unwrap(), "{name}");
        assert!(
            !store.join("r1", &[3; 32], 21).await.unwrap(),
            "{name}: the seat is taken once"
        );
        let events = [
            event(1, 0, Light, Command::Action("d6".into()), "l1"),
            event(1, 1, Dark, Command::OfferDraw, "d1"),
            event(1, 2, Light, Command::DeclineDraw, "l2"),
            event(1, 3, Light, Command::Resign, "l3"),
        ];
        for e in &events {
            assert_eq!(
                store.append(append("r1", e.clone())).await.unwrap(),
                Appended::Stored,
                "{name}"
            );
        }
        let starts = append("r1", event(1, 4, Dark, Command::NewRound, "d3"));
        assert_eq!(store.append(starts).await.unwrap(), Appended::Stored, "{name}");
        assert_eq!(
            store
                .append(append(
                    "r1",
                    event(2, 0, Dark, Command::Action("a1".into()), "d4")
                ))
                .await
                .unwrap(),
            Appended::Stored,
            "{name}"
        );
        let room = store.load_room("r1").await.unwrap().expect(name);
        assert_eq!(room.variant, "six", "{name}");
        assert_eq!(
            (room.light_key, room.dark_key),
            (Some([1; 32]), Some([2; 32])),
            "{name}"
        );
        assert_eq!(&room.events[..4], &events[..], "{name}");
        assert_eq!(room.events.len(), 6, "{name}");
        assert_eq!((room.events[5].round, room.events[5].seq), (2, 0), "{name}");
        assert_eq!(room.active_at, 1004, "{name}: the last event counts as activity");
        assert!(store.load_room("nowhere").await.unwrap().is_none(), "{name}");
    }
}

#[tokio::test]
async fn of_two_commands_racing_for_one_place_the_database_keeps_one() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, _) in stores(&dir).await {
        room(&store, "r1").await;
        let (a, b) = tokio::join!(
            store.append(append(
                "r1",
                event(1, 0, Light, Command::Action("d6".into()), "x")
            )),
            store.append(append(
                "r1",
                event(1, 0, Light, Command::Action("a1".into()), "y")
            )),
        );
        let mut outcomes = [a.unwrap(), b.unwrap()];
        outcomes.sort_by_key(|o| *o != Appended::Stored);
        assert_eq!(outcomes, [Appended::Stored, Appended::PlaceTaken], "{name}");
        let room = store.load_room("r1").await.unwrap().unwrap();
        assert_eq!(room.events.len(), 1, "{name}");
        // The loser's id was not stored: it may be used again.
        let loser = if room.events[0].client_id == "x" { "y" } else { "x" };
        assert_eq!(store.find("r1", Light, loser).await.unwrap(), None, "{name}");
    }
}

#[tokio::test]
async fn a_retried_client_id_is_stored_once_and_found_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, _) in stores(&dir).await {
        room(&store, "r1").await;
        let first = event(1, 0, Light, Command::Action("d6".into()), "x");
        assert_eq!(
            store.append(append("r1", first.clone())).await.unwrap(),
            Appended::Stored
        );
        assert_eq!(
            store
                .append(append("r1", event(1, 1, Dark, Command::Action("d2".into()), "y")))
                .await
                .unwrap(),
            Appended::Stored
        );
        // The same id again, wherever the retry would go: the first one answers.
        for seq in [1, 2] {
            assert_eq!(
                store
                    .append(append(
                        "r1",
                        event(1, seq, Light, Command::Action("a1".into()), "x")
                    ))
                    .await
                    .unwrap(),
                Appended::Duplicate { round: 1, seq: 0 },
                "{name}"
            );
        }
        assert_eq!(
            store.find("r1", Light, "x").await.unwrap(),
            Some((1, 0)),
            "{name}"
        );
        assert_eq!(store.find("r1", Dark, "y").await.unwrap(), Some((1, 1)), "{name}");
        // Ids are per seat and per room.
        assert_eq!(store.find("r1", Dark, "x").await.unwrap(), None, "{name}");
        assert_eq!(
            store
                .append(append("r1", event(1, 2, Dark, Command::Action("a7".into()), "x")))
                .await
                .unwrap(),
            Appended::Stored,
            "{name}"
        );
        room(&store, "r2").await;
        assert_eq!(store.find("r2", Light, "x").await.unwrap(), None, "{name}");
        let stored = store.load_room("r1").await.unwrap().unwrap();
        assert_eq!(stored.events.len(), 3, "{name}");
        assert_eq!(stored.events[0], first, "{name}");
    }
}

#[tokio::test]
async fn a_damaged_row_is_reported_as_corrupt_and_other_rooms_load() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, kept) in stores(&dir).await {
        // Rows are damaged on a disk or by hand; memory holds the room logic's own types.
        let Kept::Db(target) = kept else { continue };
        room(&store, "r1").await;
        room(&store, "r2").await;
        room(&store, "r3").await;
        store
            .append(append(
                "r2",
                event(1, 0, Light, Command::Action("d6".into()), "x"),
            ))
            .await
            .unwrap();
        raw(
            &target,
            "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
             VALUES ('r1', 1, 0, 'light', 'action', NULL, 'bad', 5);
             INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
             VALUES ('r3', 1, 0, 'light', 'teleport', NULL, 'bad', 5);",
        )
        .await;
        for id in ["r1", "r3"] {
            match store.load_room(id).await {
                Err(DbError::Corrupt(why)) => assert!(why.contains(id), "{name}: {why}"),
                other => panic!("{name}: {id} loaded as {other:?}"),
            }
        }
        assert_eq!(
            store.load_room("r2").await.unwrap().unwrap().events.len(),
            1,
            "{name}"
        );
    }
}

#[tokio::test]
async fn an_unknown_seat_colour_is_refused_when_reading() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, kept) in stores(&dir).await {
        let Kept::Db(target) = kept else { continue };
        room(&store, "r1").await;
        room(&store, "r2").await;
        store.create_room("r3", &[1; 32], 10, "nine", None).await.unwrap();
        raw(
            &target,
            "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
             VALUES ('r1', 1, 0, 'purple', 'action', 'd6', 'x', 5);
             INSERT INTO seats (room_id, color, key_hash, created_at)
             VALUES ('r3', 'purple', (SELECT key_hash FROM seats WHERE room_id = 'r3'), 5);",
        )
        .await;
        for id in ["r1", "r3"] {
            match store.load_room(id).await {
                Err(DbError::Corrupt(why)) => assert!(why.contains("purple"), "{name}: {why}"),
                other => panic!("{name}: {id} loaded as {other:?}"),
            }
        }
        assert!(store.load_room("r2").await.unwrap().is_some(), "{name}");
    }
}

#[tokio::test]
async fn purge_deletes_only_rooms_still_idle_with_all_their_rows() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, _) in stores(&dir).await {
        room(&store, "old").await;
        room(&store, "new").await;
        store
            .append(append(
                "old",
                event(1, 0, Light, Command::Action("d6".into()), "x"),
            ))
            .await
            .unwrap();
        store
            .append(append(
                "new",
                event(1, 0, Light, Command::Action("d6".into()), "x"),
            ))
            .await
            .unwrap();
        // "new" plays on: active after the cutoff.
        store.touch("new", 5000);
        store.flush().await.unwrap();
        let mut idle = store.idle_rooms(2000, 10).await.unwrap();
        idle.sort();
        // Touches are not waited for on every backend: wait until it shows.
        for _ in 0..100 {
            if idle == ["old"] {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            idle = store.idle_rooms(2000, 10).await.unwrap();
            idle.sort();
        }
        assert_eq!(idle, ["old"], "{name}");
        // Asked to delete both, it deletes only the one still idle.
        let gone = store.purge(vec!["old".into(), "new".into()], 2000).await.unwrap();
        assert_eq!(gone, ["old"], "{name}");
        assert!(store.load_room("old").await.unwrap().is_none(), "{name}");
        assert_eq!(
            store.find("old", Light, "x").await.unwrap(),
            None,
            "{name}: its events went too"
        );
        assert_eq!(
            store.load_room("new").await.unwrap().unwrap().events.len(),
            1,
            "{name}"
        );
        // Purged twice (another instance at once): nothing more.
        assert!(
            store.purge(vec!["old".into()], 2000).await.unwrap().is_empty(),
            "{name}"
        );
    }
}

/// An action moves the room's `active_at` only once it lags by a minute (one row write
/// less per commit); the purge must still see the room's latest event.
#[tokio::test]
async fn a_room_with_an_event_after_the_cutoff_is_never_purged() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, _) in stores(&dir).await {
        room(&store, "busy").await;
        // Two actions ten seconds apart: the second is within the slack, so the row's
        // activity time may stay at the first.
        let mut first = event(1, 0, Light, Command::Action("d6".into()), "a");
        first.at = 100_000;
        store.append(append("busy", first)).await.unwrap();
        let mut second = event(1, 1, Dark, Command::Action("f4".into()), "b");
        second.at = 110_000;
        store.append(append("busy", second)).await.unwrap();
        store.flush().await.unwrap();
        let cutoff = 105_000;
        assert!(
            store.idle_rooms(cutoff, 10).await.unwrap().is_empty(),
            "{name}: its last event is after the cutoff"
        );
        assert!(
            store.purge(vec!["busy".into()], cutoff).await.unwrap().is_empty(),
            "{name}: not purged"
        );
        let loaded = store.load_room("busy").await.unwrap().unwrap();
        assert_eq!(
            loaded.active_at, 110_000,
            "{name}: loaded with its exact activity time"
        );
        // Past the last event it is idle, and goes.
        assert_eq!(store.idle_rooms(110_001, 10).await.unwrap(), ["busy"], "{name}");
        assert_eq!(
            store.purge(vec!["busy".into()], 110_001).await.unwrap(),
            ["busy"],
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_time_control_and_the_clock_stamps_load_back() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, _) in stores(&dir).await {
        let live = TimeControl::Live {
            initial: 180,
            increment: 2,
        };
        let days = TimeControl::Correspondence { days: 3 };
        store
            .create_room("t1", &[1; 32], 10, "nine", Some(live))
            .await
            .unwrap();
        store
            .create_room("t2", &[1; 32], 10, "nine", Some(days))
            .await
            .unwrap();
        assert!(store.join("t1", &[2; 32], 20).await.unwrap(), "{name}");
        let stamp = Stamp {
            light_ms: 179_000,
            dark_ms: 180_000,
            lag_ms: 40,
        };
        let mut turn = event(1, 0, Light, Command::Action("d6".into()), "l1");
        turn.stamp = Some(stamp);
        let mut flag = event(1, 1, Dark, Command::Resign, "~timeout-1");
        flag.command = Entry::Clock(ClockEventKind::Timeout);
        flag.stamp = Some(Stamp {
            light_ms: 179_000,
            dark_ms: 0,
            lag_ms: 0,
        });
        for e in [&turn, &flag] {
            assert_eq!(
                store.append(append("t1", e.clone())).await.unwrap(),
                Appended::Stored,
                "{name}"
            );
        }
        let t1 = store.load_room("t1").await.unwrap().expect(name);
        assert_eq!(t1.clock, Some(live), "{name}");
        assert_eq!(t1.dark_at, Some(20), "{name}");
        assert_eq!(t1.events, vec![turn, flag], "{name}");
        let t2 = store.load_room("t2").await.unwrap().expect(name);
        assert_eq!(t2.clock, Some(days), "{name}");
        assert_eq!(t2.dark_at, None, "{name}");
        room(&store, "u1").await;
        assert_eq!(
            store.load_room("u1").await.unwrap().unwrap().clock,
            None,
            "{name}"
        );
    }
}

fn seek(
    id: &str,
    seeker: &str,
    variant: &str,
    clock: Option<TimeControl>,
    waiting: Color,
) -> mill_server::store::Seek {
    mill_server::store::Seek {
        id: id.to_string(),
        seeker: seeker.to_string(),
        variant: variant.to_string(),
        clock,
        key_hash: mill_server::keys::hash_key(id),
        at: 1000,
        room: mill_server::keys::new_room_id(),
        waiting_color: waiting,
        account: None,
        rated: false,
        address: format!("address of {seeker}"),
        address_cap: 0,
        rating: None,
    }
}

/// A rated seek at `at` of account `account`, whose blitz rating in Nine is `rating`
/// (given to the memory store, which keeps no ratings; the databases read theirs).
fn rated(id: &str, account: i64, rating: f64, at: i64, waiting: Color) -> mill_server::store::Seek {
    let mut s = seek(
        id,
        &format!("seeker-{account}"),
        "nine",
        Some(TimeControl::Live {
            initial: 180,
            increment: 2,
        }),
        waiting,
    );
    s.account = Some(account);
    s.rated = true;
    s.at = at;
    s.rating = Some(rating);
    s
}

fn recheck(id: &str, at: i64, color: Color) -> mill_server::store::Recheck {
    mill_server::store::Recheck {
        id: id.to_string(),
        at,
        room: mill_server::keys::new_room_id(),
        color,
        rating: None,
    }
}

#[tokio::test]
async fn rated_seeks_pair_the_closest_rating_within_a_window_that_widens_with_the_wait() {
    use mill_server::store::SeekState::{Paired, Waiting};
    let dir = tempfile::tempdir().unwrap();
    for (name, store, kept) in stores(&dir).await {
        // Ann 1500, Bob 1510, Cat 2000 (blitz, Nine); Dan has no rating yet: 1500.
        let players = [
            (1, "ann", Some(1500.0)),
            (2, "bob", Some(1510.0)),
            (3, "cat", Some(2000.0)),
            (4, "dan", None),
            (5, "eve", Some(3200.0)),
        ];
        if let Kept::Db(target) = &kept {
            let mut sql = String::new();
            for (id, who, rating) in players {
                sql += &format!(
                    "INSERT INTO accounts (id, name, name_key, created_at) VALUES ({id}, '{who}', '{who}', 0);"
                );
                if let Some(r) = rating {
                    sql += &format!(
                        "INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
                         VALUES ({id}, 'nine', 'blitz', {r}, 80, 0.06, 30, 0);"
                    );
                }
            }
            raw(target, &sql).await;
        }
        // Cat waits first, then Bob: 490 apart, beyond the ±100 at once.
        assert_eq!(
            store.seek(rated("cat1", 3, 2000.0, 1000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.seek(rated("bob1", 2, 1510.0, 1000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        // Ann (1500) a second later: Cat waited longest, but Bob is within the window
        // and Cat (±150 after a second) is not.
        let ann = rated("ann1", 1, 1500.0, 2000, Dark);
        let room = ann.room.clone();
        assert_eq!(
            store.seek(ann).await.unwrap(),
            Paired {
                room: room.clone(),
                seat: Light
            },
            "{name}: 1500 meets 1510"
        );
        assert_eq!(
            store.seek_state("bob1").await.unwrap(),
            Paired {
                room: room.clone(),
                seat: Dark
            },
            "{name}"
        );
        assert_eq!(
            store.seek_state("cat1").await.unwrap(),
            Waiting,
            "{name}: 2000 still waits"
        );
        let stored = store.load_room(&room).await.unwrap().unwrap();
        assert_eq!(
            stored.dark_key,
            Some(mill_server::keys::hash_key("bob1")),
            "{name}"
        );

        // Dan (1500, no rating yet) and Cat (2000): 500 apart, not at once…
        assert_eq!(
            store.seek(rated("dan1", 4, 1500.0, 2000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.recheck(recheck("dan1", 2000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        // …nor while the older (Cat, since 1000) has waited under 8 s (window < 500)…
        assert_eq!(
            store.recheck(recheck("dan1", 8999, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.recheck(recheck("cat1", 8999, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        // …but once it has waited 8 s (±500), whichever of them looks again.
        let again = recheck("dan1", 9000, Dark);
        let room = again.room.clone();
        assert_eq!(
            store.recheck(again).await.unwrap(),
            Paired {
                room: room.clone(),
                seat: Dark
            },
            "{name}: paired once the window reached them"
        );
        assert_eq!(
            store.seek_state("cat1").await.unwrap(),
            Paired {
                room: room.clone(),
                seat: Light
            },
            "{name}"
        );
        let stored = store.load_room(&room).await.unwrap().unwrap();
        assert_eq!(
            stored.light_key,
            Some(mill_server::keys::hash_key("cat1")),
            "{name}"
        );
        assert_eq!(
            stored.dark_key,
            Some(mill_server::keys::hash_key("dan1")),
            "{name}"
        );
        assert_eq!(stored.dark_at, Some(9000), "{name}");
        // Paired once: looking again finds it paired, and pairs nothing more.
        assert_eq!(
            store.recheck(recheck("cat1", 9000, Dark)).await.unwrap(),
            Paired {
                room: room.clone(),
                seat: Light
            },
            "{name}"
        );
        // Each request takes its own row, as after a pairing on arrival.
        assert!(
            matches!(store.withdraw("dan1", false).await.unwrap(), Paired { .. }),
            "{name}"
        );
        assert!(
            matches!(store.withdraw("cat1", false).await.unwrap(), Paired { .. }),
            "{name}"
        );

        // An account never meets itself however long it waits; a casual seek's look
        // changes nothing.
        assert_eq!(
            store.seek(rated("cat2", 3, 2000.0, 10_000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.seek(rated("cat3", 3, 2000.0, 10_000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        let mut own = rated("cat4", 3, 2000.0, 10_000, Light);
        own.seeker = "another tab of cat".into();
        assert_eq!(store.seek(own).await.unwrap(), Waiting, "{name}");
        assert_eq!(
            store.recheck(recheck("cat4", 100_000, Light)).await.unwrap(),
            Waiting,
            "{name}: never itself"
        );
        let live = Some(TimeControl::Live {
            initial: 180,
            increment: 2,
        });
        assert_eq!(
            store.seek(seek("z1", "zed", "nine", live, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.recheck(recheck("z1", 100_000, Light)).await.unwrap(),
            Waiting,
            "{name}: casual"
        );
        for id in ["cat2", "cat3", "cat4", "z1"] {
            store.withdraw(id, true).await.unwrap();
        }
        // Eve (3200) and Ann: 1700 apart, beyond ±1599 after 29.999 s; anyone after 30 s.
        assert_eq!(
            store.seek(rated("eve1", 5, 3200.0, 10_000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.seek(rated("ann2", 1, 1500.0, 11_000, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.recheck(recheck("ann2", 39_999, Light)).await.unwrap(),
            Waiting,
            "{name}: ±1599 after 29.999 s"
        );
        assert!(
            matches!(
                store.recheck(recheck("ann2", 40_000, Light)).await.unwrap(),
                Paired { .. }
            ),
            "{name}: anyone after 30 s"
        );
    }
}

#[tokio::test]
async fn seeks_pair_once_within_their_pool_never_with_themselves_and_withdrawn_never() {
    use mill_server::store::SeekState::{Gone, Paired, Waiting};
    let dir = tempfile::tempdir().unwrap();
    let live = Some(TimeControl::Live {
        initial: 180,
        increment: 2,
    });
    for (name, store, _) in stores(&dir).await {
        // Open seeks of other pools, and of the same seeker, are not opponents.
        assert_eq!(
            store
                .seek(seek("a1", "alice", "nine", live, Light))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.seek(seek("b1", "bob", "six", live, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store
                .seek(seek("c1", "carol", "nine", None, Light))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );
        let days = Some(TimeControl::Correspondence { days: 3 });
        assert_eq!(
            store.seek(seek("d1", "dave", "nine", days, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        // Alice again: her first seek is withdrawn, the new one waits.
        assert_eq!(
            store
                .seek(seek("a2", "alice", "nine", live, Light))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(store.seek_state("a1").await.unwrap(), Gone, "{name}");
        let open = store.open_seeks(10).await.unwrap();
        assert_eq!(open.len(), 4, "{name}: {open:?}");
        assert_eq!(
            open.iter()
                .filter(|s| s.variant == "nine" && s.clock == live)
                .count(),
            1,
            "{name}"
        );

        // Eve pairs with Alice's open seek; the waiting seeker got the colour drawn.
        let eve = seek("e1", "eve", "nine", live, Dark);
        let room = eve.room.clone();
        assert_eq!(
            store.seek(eve).await.unwrap(),
            Paired {
                room: room.clone(),
                seat: Light
            },
            "{name}"
        );
        assert_eq!(
            store.seek_state("a2").await.unwrap(),
            Paired {
                room: room.clone(),
                seat: Dark
            },
            "{name}"
        );
        // The room is an ordinary room with both seats, the pool's rules and clock.
        let stored = store.load_room(&room).await.unwrap().unwrap();
        assert_eq!((stored.variant.as_str(), stored.clock), ("nine", live), "{name}");
        assert_eq!(
            stored.light_key,
            Some(mill_server::keys::hash_key("e1")),
            "{name}"
        );
        assert_eq!(stored.dark_key, Some(mill_server::keys::hash_key("a2")), "{name}");
        assert_eq!(stored.dark_at, Some(1000), "{name}");
        // Paired once: the next seeker of that pool waits.
        assert_eq!(
            store
                .seek(seek("f1", "frank", "nine", live, Light))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );

        // A withdrawn seek is never paired; a paired one is not withdrawn by a cancel.
        assert_eq!(store.withdraw("f1", true).await.unwrap(), Waiting, "{name}");
        assert_eq!(store.withdraw("f1", true).await.unwrap(), Gone, "{name}");
        assert_eq!(
            store.seek(seek("g1", "gina", "nine", live, Light)).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.withdraw("a2", true).await.unwrap(),
            Gone,
            "{name}: paired, kept"
        );
        assert!(
            matches!(store.withdraw("a2", false).await.unwrap(), Paired { .. }),
            "{name}"
        );
        let open: Vec<_> = store.open_seeks(10).await.unwrap();
        assert_eq!(open.len(), 4, "{name}: six, untimed, days, gina: {open:?}");
    }
}

#[tokio::test]
async fn the_lobby_is_shared_out_by_address_and_one_address_holds_at_most_its_cap() {
    use mill_server::store::SeekState::{Crowded, Gone, Paired, Waiting};
    let dir = tempfile::tempdir().unwrap();
    let live = Some(TimeControl::Live {
        initial: 180,
        increment: 2,
    });
    for (name, store, _) in stores(&dir).await {
        // Four addresses flood first (no bound on what each holds), each seek in a pool of
        // its own so nobody pairs; an honest seeker comes last.
        for host in 0..4 {
            for n in 0..30 {
                let mut s = seek(
                    &format!("f{host}-{n:03}"),
                    &format!("flood{host}-{n}"),
                    "nine",
                    None,
                    Light,
                );
                s.variant = ["nine", "six", "twelve", "three"][host].to_string();
                s.clock = Some(TimeControl::Live {
                    initial: 60 + n,
                    increment: 0,
                });
                s.at = 1000 + (host as i64) * 100 + i64::from(n);
                s.address = format!("flooder {host}");
                assert_eq!(store.seek(s).await.unwrap(), Waiting, "{name}");
            }
        }
        let mut honest = seek("honest-1", "honest", "nine+dark-first", live, Light);
        honest.at = 5000;
        honest.address = "honest address".into();
        assert_eq!(store.seek(honest).await.unwrap(), Waiting, "{name}");
        let lobby = store.open_seeks(100).await.unwrap();
        assert_eq!(lobby.len(), 100, "{name}");
        assert!(
            lobby.iter().any(|s| s.variant == "nine+dark-first"),
            "{name}: the honest seek is listed"
        );
        // Shared out: 99 flood places, about a quarter each; shown oldest first.
        for host in ["nine", "six", "twelve", "three"] {
            let n = lobby.iter().filter(|s| s.variant == host).count();
            assert!((24..=25).contains(&n), "{name}: {host} has {n}");
        }
        assert!(lobby.windows(2).all(|w| w[0].since <= w[1].since), "{name}");

        // An address holds at most its cap of open seeks: one more that would wait is
        // refused and changes nothing (not even its seeker's older seek elsewhere).
        let capped = |id: &str, seeker: &str, variant: &str| {
            let mut s = seek(id, seeker, variant, live, Light);
            s.address = "a busy house".into();
            s.address_cap = 2;
            s
        };
        assert_eq!(
            store.seek(capped("h1", "h-one", "six")).await.unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(
            store.seek(capped("h2", "h-two", "six+dark-first")).await.unwrap(),
            Waiting,
            "{name}"
        );
        let mut elsewhere = seek("h3-old", "h-three", "twelve", live, Light);
        elsewhere.address = "another house".into();
        assert_eq!(store.seek(elsewhere).await.unwrap(), Waiting, "{name}");
        assert_eq!(
            store.seek(capped("h3", "h-three", "three")).await.unwrap(),
            Crowded,
            "{name}"
        );
        assert_eq!(store.seek_state("h3").await.unwrap(), Gone, "{name}");
        assert_eq!(store.seek_state("h3-old").await.unwrap(), Waiting, "{name}");
        // A seeker of that address renewing its own seek is not counted against itself.
        assert_eq!(
            store
                .seek(capped("h2-b", "h-two", "six+dark-first"))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(store.seek_state("h2").await.unwrap(), Gone, "{name}");
        // One that pairs at once holds nothing open: never refused.
        assert!(
            matches!(
                store.seek(capped("h4", "h-four", "six")).await.unwrap(),
                Paired { .. }
            ),
            "{name}"
        );
        assert!(
            matches!(store.seek_state("h1").await.unwrap(), Paired { .. }),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_newer_seek_takes_the_place_of_a_paired_one_not_yet_answered() {
    use mill_server::store::SeekState::{Gone, Paired, Waiting};
    let dir = tempfile::tempdir().unwrap();
    let live = Some(TimeControl::Live {
        initial: 300,
        increment: 0,
    });
    for (name, store, _) in stores(&dir).await {
        assert_eq!(
            store
                .seek(seek("r-a1", "ann", "nine", live, Light))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );
        assert!(
            matches!(
                store.seek(seek("r-b1", "ben", "nine", live, Dark)).await.unwrap(),
                Paired { .. }
            ),
            "{name}"
        );
        assert!(
            matches!(store.seek_state("r-a1").await.unwrap(), Paired { .. }),
            "{name}"
        );
        // Ann seeks again before her first request took its pairing: that pairing is
        // withdrawn, so her first request hears so and she holds one room at most.
        assert_eq!(
            store
                .seek(seek("r-a2", "ann", "nine", live, Light))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );
        assert_eq!(store.withdraw("r-a1", false).await.unwrap(), Gone, "{name}");
        assert_eq!(store.seek_state("r-a2").await.unwrap(), Waiting, "{name}");
    }
}

/// A rematch's offer (with the hash of the sender's new key) at `seq` of round 1, and,
/// with `makes`, the room it completes (keys for Light and Dark there).
fn rematch_event(seq: u32, seat: Color, cid: &str, key: u8, makes: Option<(&str, u8, u8)>) -> Append {
    let mut a = append(
        "",
        event(
            1,
            seq,
            seat,
            Command::OfferRematch(mill_server::protocol::KeyHash([key; 32])),
            cid,
        ),
    );
    a.rematch = makes.map(|(room, light, dark)| mill_server::store::Rematch {
        room: room.to_string(),
        variant: "six".into(),
        clock: Some(TimeControl::Live {
            initial: 300,
            increment: 3,
        }),
        light_key: [light; 32],
        dark_key: [dark; 32],
    });
    a
}

#[tokio::test]
async fn a_rematch_completed_at_once_on_two_instances_makes_one_room() {
    use mill_server::store::SeekState::{Paired, Waiting};
    let dir = tempfile::tempdir().unwrap();
    let clock = Some(TimeControl::Live {
        initial: 300,
        increment: 3,
    });
    for (name, store, kept) in stores(&dir).await {
        // Another instance on the same database (PostgreSQL); one store elsewhere.
        let other: Arc<dyn Store> = match &kept {
            Kept::Db(target @ DbTarget::Postgres(_)) => mill_server::store::open(target).await.unwrap().0,
            _ => store.clone(),
        };
        // A room made by pairing is paired; one made by an invite is not.
        assert_eq!(
            store
                .seek(seek("rm-a", "rm-alice", "six", clock, Light))
                .await
                .unwrap(),
            Waiting,
            "{name}"
        );
        let Paired { room: old, .. } = store
            .seek(seek("rm-b", "rm-bob", "six", clock, Light))
            .await
            .unwrap()
        else {
            panic!("{name}: paired");
        };
        assert!(store.load_room(&old).await.unwrap().unwrap().paired, "{name}");
        room(&store, "invite1").await;
        assert!(
            !store.load_room("invite1").await.unwrap().unwrap().paired,
            "{name}"
        );
        let with_room = |mut a: Append| {
            a.room = old.clone();
            a
        };
        store
            .append(with_room(append(
                "",
                event(1, 0, Light, Command::Resign, "l-resign"),
            )))
            .await
            .unwrap();
        assert_eq!(
            store
                .append(with_room(rematch_event(1, Light, "l-offer", 7, None)))
                .await
                .unwrap(),
            Appended::Stored,
            "{name}"
        );
        // Two events completing the same rematch at one place, through two instances:
        // one is stored with its room, the other changes nothing.
        let new = mill_server::keys::rematch_room_id(&old, 1);
        let (a, b) = tokio::join!(
            store.append(with_room(rematch_event(
                2,
                Dark,
                "d-accept",
                8,
                Some((&new, 8, 7))
            ))),
            other.append(with_room(rematch_event(
                2,
                Dark,
                "d-accept-2",
                9,
                Some((&new, 9, 7))
            ))),
        );
        let outcomes = [a.unwrap(), b.unwrap()];
        let won = outcomes
            .iter()
            .position(|o| *o == Appended::Stored)
            .expect("one stored");
        assert_eq!(outcomes[1 - won], Appended::PlaceTaken, "{name}: {outcomes:?}");
        let winner_key = [8u8, 9][won];
        let made = store.load_room(&new).await.unwrap().expect("the new room");
        assert_eq!(
            made.light_key,
            Some([winner_key; 32]),
            "{name}: the stored event's keys"
        );
        assert_eq!(made.dark_key, Some([7; 32]), "{name}");
        assert!(made.dark_at.is_some(), "{name}: both seats taken");
        assert_eq!((made.variant.as_str(), made.clock), ("six", clock), "{name}");
        assert!(made.paired && made.events.is_empty(), "{name}");
        // The old room's log keeps the hashes of the new keys, and only them.
        let events = store.load_room(&old).await.unwrap().unwrap().events;
        let kinds: Vec<(&str, Option<[u8; 32]>)> = events
            .iter()
            .map(|e| (e.command.kind_str(), e.command.key_hash().copied()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("resign", None),
                ("offer-rematch", Some([7; 32])),
                ("offer-rematch", Some([winner_key; 32]))
            ],
            "{name}"
        );
        // The retry of the stored one is a duplicate, not a second room.
        let cid = ["d-accept", "d-accept-2"][won];
        assert_eq!(
            other
                .append(with_room(rematch_event(
                    5,
                    Dark,
                    cid,
                    winner_key,
                    Some((&new, winner_key, 7))
                )))
                .await
                .unwrap(),
            Appended::Duplicate { round: 1, seq: 2 },
            "{name}"
        );
        // An event that would make the same room again fails whole: the room stays as
        // it was and the event is not stored.
        let again = store
            .append(with_room(rematch_event(
                3,
                Dark,
                "d-again",
                5,
                Some((&new, 5, 5)),
            )))
            .await;
        assert!(again.is_err(), "{name}: {again:?}");
        assert_eq!(
            store.load_room(&old).await.unwrap().unwrap().events.len(),
            3,
            "{name}"
        );
        assert_eq!(
            store.load_room(&new).await.unwrap().unwrap().light_key,
            Some([winner_key; 32]),
            "{name}"
        );
    }
}

/// Runs `sql` on a database store's own database and returns the rows' text columns
/// joined by `,`, one string a row (for the checks of the rows the accounts keep).
async fn rows(target: &DbTarget, sql: &str) -> Vec<String> {
    match target {
        DbTarget::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.busy_timeout(common::PATIENCE).unwrap();
            if !sql.trim_start().starts_with("SELECT") {
                conn.execute_batch(sql).unwrap();
                return Vec::new();
            }
            let mut stmt = conn.prepare(sql).unwrap();
            let n = stmt.column_count();
            stmt.query_map([], |r| {
                Ok((0..n)
                    .map(|i| match r.get_ref(i).unwrap() {
                        rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                        rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                        other => format!("{other:?}"),
                    })
                    .collect::<Vec<_>>()
                    .join(","))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
        }
        DbTarget::Postgres(url) => {
            let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
            let task = tokio::spawn(conn);
            let out = client
                .simple_query(sql)
                .await
                .unwrap()
                .into_iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(r) => Some(
                        (0..r.len())
                            .map(|i| r.get(i).unwrap_or("").to_string())
                            .collect::<Vec<_>>()
                            .join(","),
                    ),
                    _ => None,
                })
                .collect();
            drop(client);
            let _ = task.await;
            out
        }
    }
}

#[tokio::test]
async fn a_rematch_keeps_the_accounts_colours_swapped_and_is_rated_when_both_seats_were_bound() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, kept) in stores(&dir).await {
        // The memory store keeps no accounts.
        let Kept::Db(target) = kept else { continue };
        room(&store, "rated1").await;
        room(&store, "halfbound").await;
        rows(
            &target,
            "INSERT INTO accounts (id, name, name_key, created_at) VALUES (901, 'Ann', 'ann', 1), (902, 'Ben', 'ben', 1);
             INSERT INTO seat_accounts (room_id, color, account_id)
               VALUES ('rated1', 'light', 901), ('rated1', 'dark', 902), ('halfbound', 'light', 901);
             INSERT INTO rated_rooms (room_id, rules, speed) VALUES ('rated1', 'six', 'rapid'), ('halfbound', 'six', 'rapid');",
        )
        .await;
        for old in ["rated1", "halfbound"] {
            let new = mill_server::keys::rematch_room_id(old, 1);
            let with_room = |mut a: Append| {
                a.room = old.to_string();
                a
            };
            store
                .append(with_room(append(
                    "",
                    event(1, 0, Light, Command::Resign, "resign"),
                )))
                .await
                .unwrap();
            store
                .append(with_room(rematch_event(1, Light, "offer", 7, None)))
                .await
                .unwrap();
            assert_eq!(
                store
                    .append(with_room(rematch_event(2, Dark, "accept", 8, Some((&new, 8, 7)))))
                    .await
                    .unwrap(),
                Appended::Stored,
                "{name}"
            );
        }
        let rated = mill_server::keys::rematch_room_id("rated1", 1);
        let half = mill_server::keys::rematch_room_id("halfbound", 1);
        let seats = |room: &str| {
            format!("SELECT color, account_id FROM seat_accounts WHERE room_id = '{room}' ORDER BY color")
        };
        // Ann played Light and now plays Dark; Ben the other way round.
        assert_eq!(
            rows(&target, &seats(&rated)).await,
            ["dark,901", "light,902"],
            "{name}"
        );
        assert!(store.load_room(&rated).await.unwrap().unwrap().rated, "{name}");
        assert_eq!(
            rows(
                &target,
                &format!("SELECT rules, speed FROM rated_rooms WHERE room_id = '{rated}'")
            )
            .await,
            ["six,rapid"],
            "{name}"
        );
        // One seat without an account: bound as it was, and casual.
        assert_eq!(rows(&target, &seats(&half)).await, ["dark,901"], "{name}");
        assert!(!store.load_room(&half).await.unwrap().unwrap().rated, "{name}");
    }
}
