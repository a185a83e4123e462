//! The arenas' storage (store/arena.rs) held to one behaviour on every store: the
//! in-memory one, SQLite, and PostgreSQL under scripts/with-postgres. Pairings use each
//! ticket once, never pair a player in a game, never before the start or from the end;
//! a result is written once, by the event ending the room's first round, and frees both
//! players; the standings are computed from what is stored.

mod common;

use std::sync::Arc;

use mill_core::Color::{self, Dark, Light};
use mill_core::{DrawReason, Outcome, WinReason};
use mill_server::arena::scoring::{self, Ending};
use mill_server::keys::hash_key;
use mill_server::protocol::Command;
use mill_server::store::accounts::{Accounts, NewSession};
use mill_server::store::arena::{Arenas, Member, Membership, NewArena, Ticket};
use mill_server::store::{Append, DbTarget, Memory, Store, StoredEvent};

/// Each kind of store, with four accounts (their ids) on the databases.
async fn stores(dir: &tempfile::TempDir) -> Vec<(&'static str, Arc<dyn Store>, Vec<i64>)> {
    let mut out: Vec<(&'static str, Arc<dyn Store>, Vec<i64>)> =
        vec![("memory", Arc::new(Memory::new()), vec![1, 2, 3, 4])];
    let mut targets = vec![("SQLite", DbTarget::Sqlite(dir.path().join("arena.db")))];
    if common::on_postgres() {
        targets.push(("PostgreSQL", common::target(&dir.path().join("arena-pg")).await));
    } else {
        eprintln!(
            "arena_store: MILL_TEST_PG_URL is not set; PostgreSQL skipped (run under scripts/with-postgres)"
        );
    }
    for (name, target) in targets {
        let store = mill_server::store::open(&target).await.unwrap().0;
        let accounts = Accounts::open(&target).await.unwrap();
        let mut ids = Vec::new();
        for n in 0..4 {
            let who = format!("player{n}");
            let session = NewSession {
                token_hash: hash_key(&who),
                at: 0,
                expires_at: i64::MAX,
            };
            ids.push(accounts.create(&who, &who, "x", session).await.unwrap().unwrap());
        }
        out.push((name, store, ids));
    }
    out
}

fn arena(id: &str, starts_at: i64, ends_at: i64) -> NewArena {
    NewArena {
        id: id.into(),
        name: format!("Arena {id}"),
        variant: "nine".into(),
        initial: 60,
        increment: 0,
        starts_at,
        ends_at,
        rated: false,
        created_by: None,
        created_at: 0,
    }
}

/// Ends round 1 of `room` with `outcome` after `turns` placing turns each.
async fn finish(store: &Arc<dyn Store>, room: &str, turns: u32, outcome: Outcome, at: i64) {
    const POINTS: [&str; 24] = [
        "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3", "d5", "d6", "d7", "e3", "e4",
        "e5", "f2", "f4", "f6", "g1", "g4", "g7",
    ];
    let mut seq = 0;
    let mut push = |seat: Color, command: Command, ends: Option<Outcome>| {
        let a = Append {
            room: room.into(),
            event: StoredEvent {
                round: 1,
                seq,
                seat,
                command: command.into(),
                client_id: format!("c{seq}"),
                at,
                stamp: None,
            },
            ends,
            rematch: None,
        };
        seq += 1;
        a
    };
    let mut events = Vec::new();
    for (n, point) in POINTS.iter().take(turns as usize).enumerate() {
        let seat = if n % 2 == 0 { Light } else { Dark };
        events.push(push(seat, Command::Action((*point).into()), None));
    }
    events.push(push(Light, Command::Resign, Some(outcome)));
    for e in events {
        assert_eq!(
            store.append(e).await.unwrap(),
            mill_server::store::Appended::Stored
        );
    }
}

#[tokio::test]
async fn arenas_pair_each_ticket_once_and_score_each_result_once() {
    let dir = tempfile::tempdir().unwrap();
    for (name, store, ids) in stores(&dir).await {
        let arenas = Arenas(store.clone());
        let [a, b, c, d] = [ids[0], ids[1], ids[2], ids[3]];
        arenas
            .create(arena("arenaone0001", 1_000, 100_000))
            .await
            .unwrap();
        arenas
            .create(arena("arenatwo0002", 50_000, 60_000))
            .await
            .unwrap();
        assert!(
            arenas.create(arena("arenaone0001", 1, 2)).await.is_err(),
            "{name}: one id, one arena"
        );
        let listed: Vec<String> = arenas
            .list(0, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(listed, ["arenaone0001", "arenatwo0002"], "{name}");
        assert_eq!(
            arenas.list(70_000, 10).await.unwrap().len(),
            1,
            "{name}: the finished one is left out"
        );
        assert_eq!(arenas.running(5_000).await.unwrap(), ["arenaone0001"], "{name}");
        assert!(arenas.get("nosucharena0").await.unwrap().is_none(), "{name}");

        let one = "arenaone0001";
        for (n, id) in ids.iter().enumerate() {
            let joined = arenas
                .member(one, *id, &format!("player{n}"), Membership::Join, 500)
                .await
                .unwrap();
            assert_eq!(joined, Member::Done, "{name}");
        }
        assert_eq!(
            arenas
                .member("nosucharena0", a, "p", Membership::Join, 500)
                .await
                .unwrap(),
            Member::NoArena
        );
        assert_eq!(
            arenas
                .member(one, a, "p", Membership::Join, 100_000)
                .await
                .unwrap(),
            Member::Finished,
            "{name}"
        );
        assert_eq!(
            arenas
                .member("arenatwo0002", a, "p", Membership::Pause, 500)
                .await
                .unwrap(),
            Member::NotJoined,
            "{name}"
        );
        assert_eq!(arenas.get(one).await.unwrap().unwrap().info.players, 4, "{name}");

        // Tickets: a player who has none is not paired.
        let key = |account: i64, n: u32| hash_key(&format!("key-{account}-{n}"));
        assert_eq!(
            arenas.ticket("arenatwo0002", a, key(a, 0)).await.unwrap(),
            Ticket::NotJoined
        );
        for id in [a, b, c] {
            assert_eq!(
                arenas.ticket(one, id, key(id, 0)).await.unwrap(),
                Ticket::Waiting,
                "{name}"
            );
        }
        assert!(
            arenas.pair(one, 500).await.unwrap().is_empty(),
            "{name}: not begun"
        );
        let made = arenas.pair(one, 2_000).await.unwrap();
        assert_eq!(made.len(), 1, "{name}: three waiting make one game");
        let first = made[0].clone();
        // The game's room names its arena; no other room does.
        assert_eq!(
            arenas.of_room(&first.room).await.unwrap().as_deref(),
            Some(one),
            "{name}"
        );
        assert_eq!(arenas.of_room("nosuchroom00").await.unwrap(), None, "{name}");
        // The ticket's key is the seat's.
        let room = store.load_room(&first.room).await.unwrap().unwrap();
        assert_eq!(room.light_key, Some(key(first.light, 0)), "{name}");
        assert_eq!(room.dark_key, Some(key(first.dark, 0)), "{name}");
        assert_eq!(
            room.clock,
            Some(mill_server::timecontrol::TimeControl::Live {
                initial: 60,
                increment: 0
            })
        );
        assert_eq!(
            arenas
                .ticket(one, first.light, key(first.light, 0))
                .await
                .unwrap(),
            Ticket::Paired(first.room.clone(), Light),
            "{name}"
        );
        assert_eq!(
            arenas.ticket(one, first.dark, key(first.dark, 0)).await.unwrap(),
            Ticket::Paired(first.room.clone(), Dark),
            "{name}"
        );
        // The players in a game are not paired again, new tickets or not.
        for id in [first.light, first.dark] {
            assert_eq!(
                arenas.ticket(one, id, key(id, 1)).await.unwrap(),
                Ticket::Waiting,
                "{name}"
            );
        }
        assert_eq!(
            arenas.ticket(one, d, key(d, 0)).await.unwrap(),
            Ticket::Waiting,
            "{name}"
        );
        let second = arenas.pair(one, 3_000).await.unwrap();
        assert_eq!(second.len(), 1, "{name}: the two free ones: {second:?}");
        let second = second[0].clone();
        let mut four = vec![first.light, first.dark, second.light, second.dark];
        four.sort();
        assert_eq!(four, {
            let mut v = ids.clone();
            v.sort();
            v
        });
        assert!(
            arenas.pair(one, 3_500).await.unwrap().is_empty(),
            "{name}: everyone is playing"
        );

        // Results: a win, and a draw after ten turns each.
        finish(
            &store,
            &first.room,
            4,
            Outcome::Win {
                winner: Light,
                reason: WinReason::Resignation,
            },
            4_000,
        )
        .await;
        finish(
            &store,
            &second.room,
            20,
            Outcome::Draw {
                reason: DrawReason::Agreement,
            },
            4_000,
        )
        .await;
        let data = arenas.get(one).await.unwrap().unwrap();
        let ended: Vec<Option<Ending>> = data.games.iter().map(|g| g.ending).collect();
        assert_eq!(ended, [Some(Ending::Light), Some(Ending::Draw)], "{name}");
        assert_eq!(data.games[0].turns, (2, 2), "{name}");
        assert_eq!(data.games[1].turns, (10, 10), "{name}");
        let rows = scoring::standings(&data.players, &data.games);
        let score = |id: i64| rows.iter().find(|r| r.account == id).unwrap().score;
        assert_eq!(
            [
                score(first.light),
                score(first.dark),
                score(second.light),
                score(second.dark)
            ],
            [2, 0, 1, 1],
            "{name}"
        );
        // A later round of the same room changes nothing.
        let again = Append {
            room: first.room.clone(),
            event: StoredEvent {
                round: 2,
                seq: 0,
                seat: Dark,
                command: Command::Resign.into(),
                client_id: "later".into(),
                at: 5_000,
                stamp: None,
            },
            ends: Some(Outcome::Win {
                winner: Light,
                reason: WinReason::Resignation,
            }),
            rematch: None,
        };
        store.append(again).await.unwrap();
        assert_eq!(
            arenas.get(one).await.unwrap().unwrap().games,
            data.games,
            "{name}"
        );

        // Free again: paired with someone new (everyone else waits).
        for id in [second.light, second.dark] {
            assert_eq!(
                arenas.ticket(one, id, key(id, 1)).await.unwrap(),
                Ticket::Waiting,
                "{name}"
            );
        }
        // A paused player is not paired; a withdrawn one neither.
        assert_eq!(
            arenas
                .member(one, first.dark, "x", Membership::Pause, 5_000)
                .await
                .unwrap(),
            Member::Done
        );
        let third = arenas.pair(one, 5_000).await.unwrap();
        assert_eq!(third.len(), 1, "{name}: {third:?}");
        let pair = [third[0].light, third[0].dark];
        assert!(!pair.contains(&first.dark), "{name}: paused");
        assert!(
            !(pair.contains(&second.light) && pair.contains(&second.dark)),
            "{name}: no rematch while someone else waits"
        );
        // Nobody is paired from the end on, and a dropped ticket is not used.
        assert_eq!(
            arenas
                .member(one, first.dark, "x", Membership::Join, 6_000)
                .await
                .unwrap(),
            Member::Done
        );
        let left = [a, b, c, d]
            .into_iter()
            .find(|id| *id != first.dark && !pair.contains(id))
            .unwrap();
        arenas.drop_ticket(one, left, key(left, 1)).await.unwrap();
        assert!(
            arenas.pair(one, 6_000).await.unwrap().is_empty(),
            "{name}: one ticket left"
        );
        assert_eq!(
            arenas.ticket(one, left, key(left, 2)).await.unwrap(),
            Ticket::Waiting
        );
        assert!(
            arenas.pair(one, 100_000).await.unwrap().is_empty(),
            "{name}: over"
        );
        // A ticket's hash is used once: setting a used one again answers its game.
        assert_eq!(
            arenas
                .ticket(one, first.light, key(first.light, 0))
                .await
                .unwrap(),
            Ticket::Paired(first.room.clone(), Light),
            "{name}"
        );
    }
}
