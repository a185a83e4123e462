//! Two `mill-server` processes on one PostgreSQL database (MILL_TEST_PG_URL, see
//! scripts/with-postgres; without it there is nothing to test and these return at once):
//! the seats of one room on different instances play; of two racing commands the
//! database keeps one; one instance is killed with SIGKILL mid-game and its player
//! carries on through the other; every acknowledged command is stored exactly once.

mod common;

use std::net::SocketAddr;
use std::path::Path;

use common::{Client, Rng, http, legal_action, sigkill};
use serde_json::{Value, json};
use tokio::process::{Child, Command};

async fn spawn(dir: &Path, url: &str) -> (Child, SocketAddr) {
    common::spawn_server(dir, url, &[]).await
}

/// The answer to command `id`, or `None` if the socket is replaced (by a socket of the
/// same seat on another instance) before it comes; the socket is then closed with 4000.
async fn answer_unless_replaced(c: &mut Client, id: &str) -> Option<Value> {
    loop {
        let v = c.recv().await;
        match v["type"].as_str() {
            Some("ack" | "error") if v["id"] == id => return Some(v),
            Some("replaced") => {
                let (_, code) = c.until_closed().await;
                assert_eq!(code, Some(4000));
                return None;
            }
            _ => {}
        }
    }
}

async fn count(db: &Path, sql: &str, params: &[&str]) -> i64 {
    common::sql(db, sql, params).await
}

/// Two instances on one fresh PostgreSQL database named after `name`, in `dir`.
async fn two_instances(
    dir: &Path,
    name: &str,
) -> (std::path::PathBuf, (Child, SocketAddr), (Child, SocketAddr)) {
    std::fs::write(dir.join("index.html"), "<!doctype html><title>Mill</title>").unwrap();
    let db = dir.join(name);
    let mill_server::store::DbTarget::Postgres(url) = common::target(&db).await else {
        unreachable!("only called under MILL_TEST_PG_URL")
    };
    let a = spawn(dir, &url).await;
    let b = spawn(dir, &url).await;
    (db, a, b)
}

/// A room created on `a` and joined on `b`: (room, [light key, dark key]).
async fn room_across(a: SocketAddr, b: SocketAddr) -> (String, [String; 2]) {
    let (status, created) = http(a, "POST", "/api/rooms").await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let (status, joined) = http(b, "POST", &format!("/api/rooms/{room}/join")).await;
    assert_eq!(status, 200, "{joined}");
    let keys = [
        created["key"].as_str().unwrap().to_string(),
        joined["key"].as_str().unwrap().to_string(),
    ];
    (room, keys)
}

#[tokio::test]
async fn seats_on_two_instances_play_through_a_sigkill_and_nothing_is_applied_twice() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (db, (mut a, a_addr), (mut b, b_addr)) = two_instances(dir.path(), "two.db").await;

    // Created on A, joined on B; Light plays through A, Dark through B.
    let (room, keys) = room_across(a_addr, b_addr).await;
    let (status, again) = http(a_addr, "POST", &format!("/api/rooms/{room}/join")).await;
    assert_eq!(
        (status, again["code"].clone()),
        (409, json!("room-full")),
        "one Dark seat"
    );
    let mut light = Client::hello(a_addr, &room, Some(&keys[0])).await;
    let mut dark = Client::hello(b_addr, &room, Some(&keys[1])).await;
    // presence crosses instances
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;

    // A race for the first place of the round: Light's seat opened on B too sends a
    // different first action at the moment A's sends its own. The database keeps one;
    // and B's socket, the newer, replaces A's, which may hear that before its answer.
    let mut light_b = Client::hello(b_addr, &room, Some(&keys[0])).await;
    light.send(light.message("action", "race-a", Some("a1"))).await;
    light_b
        .send(light_b.message("action", "race-b", Some("d7")))
        .await;
    let rb = light_b.answer("race-b").await;
    let ra = answer_unless_replaced(&mut light, "race-a").await;
    let winner: Vec<(String, String)> = ["race-a", "race-b"]
        .into_iter()
        .zip(["a1", "d7"])
        .filter(|(id, _)| {
            [&Some(rb.clone()), &ra]
                .iter()
                .any(|v| v.as_ref().is_some_and(|v| v["id"] == *id && v["type"] == "ack"))
        })
        .map(|(id, a)| (id.to_string(), a.to_string()))
        .collect();
    assert!(winner.len() <= 1, "never both: {rb} {ra:?}");
    for answer in [Some(&rb), ra.as_ref()].into_iter().flatten() {
        assert!(answer["type"] == "ack" || answer["code"] == "stale", "{answer}");
    }
    let stored = count(
        &db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND client_id IN ('race-a', 'race-b')",
        &[&room],
    )
    .await;
    assert_eq!(stored, 1, "the database keeps exactly one: {rb} {ra:?}");
    let (winner, action) =
        if count(&db, "SELECT count(*) FROM events WHERE client_id = 'race-a'", &[]).await == 1 {
            ("race-a", "a1")
        } else {
            ("race-b", "d7")
        };
    let mut acked: Vec<(String, u64, Option<String>)> = Vec::new(); // (id, version after, action)
    acked.push((winner.into(), 1, Some(action.into())));
    if ra.is_some() {
        let (_, code) = light.until_closed().await;
        assert_eq!(code, Some(4000), "B's socket took the seat");
    }
    // Light comes back on A, which replaces its socket on B in turn.
    let mut light = Client::hello(a_addr, &room, Some(&keys[0])).await;
    let (seen, code) = light_b.until_closed().await;
    assert_eq!(code, Some(4000), "{seen:?}");
    assert!(seen.iter().any(|v| v["type"] == "replaced"), "{seen:?}");
    light.state_where(|s| s["version"] == 1).await;
    dark.state_where(|s| s["version"] == 1).await;

    let mut rng = Rng::new(7);
    let mut seats = [light, dark];
    let mut n = 0;
    let mut killed = false;
    loop {
        let state = seats[0].last.clone();
        if !state["result"].is_null() {
            break;
        }
        n += 1;
        let mover = usize::from(state["turn"] == "dark");
        if n == 60 {
            // Enough: Light resigns, which ends the round.
            let id = format!("resign-{n}");
            seats[0].send(seats[0].message("resign", &id, None)).await;
            let ack = seats[0].answer(&id).await;
            assert_eq!(ack["type"], "ack", "{ack}");
            acked.push((id, ack["version"].as_u64().unwrap(), None));
            for seat in seats.iter_mut() {
                seat.state_where(|s| !s["result"].is_null()).await;
            }
            break;
        }
        let action = legal_action(&state, |k| rng.below(k)).expect("a legal action");
        let id = format!("c{n}");
        let msg = seats[mover].message("action", &id, Some(&action));
        seats[mover].send(msg.clone()).await;
        if n == 20 && !killed {
            // SIGKILL A with Light's command maybe in flight; Light reconnects to B and
            // retries it with the same id: stored once, acknowledged.
            killed = true;
            sigkill(&mut a).await;
            seats[0] = Client::hello(b_addr, &room, Some(&keys[0])).await;
            if mover == 0 {
                let fresh = seats[0].last.clone();
                // the same command again, on the version it was made on
                seats[0].send(msg.clone()).await;
                let ack = seats[0].answer(&id).await;
                assert_eq!(ack["type"], "ack", "retry after the kill: {ack} (state {fresh})");
                acked.push((id.clone(), ack["version"].as_u64().unwrap(), Some(action.clone())));
            } else {
                let ack = seats[1].answer(&id).await;
                assert_eq!(ack["type"], "ack", "{ack}");
                acked.push((id.clone(), ack["version"].as_u64().unwrap(), Some(action.clone())));
            }
        } else {
            let ack = seats[mover].answer(&id).await;
            assert_eq!(ack["type"], "ack", "{ack}");
            acked.push((id.clone(), ack["version"].as_u64().unwrap(), Some(action.clone())));
        }
        let v = state["version"].as_u64().unwrap() + 1;
        for seat in seats.iter_mut() {
            seat.state_where(|s| s["version"] == v).await;
        }
    }
    assert!(killed, "the game lasted past the kill");
    let result = seats[0].last["result"].clone();
    assert!(!result.is_null());
    assert_eq!(seats[1].last["result"], result, "both see the same end");
    sigkill(&mut b).await;

    // Every acknowledged command is stored, in its place, exactly once, and nothing else.
    let stored = count(&db, "SELECT count(*) FROM events WHERE room_id = $1", &[&room]).await;
    assert_eq!(stored, acked.len() as i64, "one row per acknowledged command");
    for (id, version, action) in &acked {
        let rows = count(
            &db,
            "SELECT count(*) FROM events WHERE room_id = $1 AND client_id = $2",
            &[&room, id],
        )
        .await;
        assert_eq!(rows, 1, "{id}");
        if let Some(action) = action {
            let in_place = count(
                &db,
                "SELECT count(*) FROM (SELECT client_id, action, row_number() OVER (ORDER BY seq) AS n
                   FROM events WHERE room_id = $1 AND round = 1 AND kind = 'action') t
                 WHERE CAST(n AS TEXT) = $2 AND client_id = $3 AND action = $4",
                &[&room, &version.to_string(), id, action],
            )
            .await;
            assert_eq!(in_place, 1, "{id} at version {version}");
        }
    }
}

/// Polls `sql` (a count) until it is `want`; a guard against a hang, not a timing test.
async fn eventually(db: &Path, sql: &str, params: &[&str], want: i64) {
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    loop {
        let n = count(db, sql, params).await;
        if n == want {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{sql}: {n}, not {want}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_seat_opened_on_another_instance_replaces_its_socket_and_stays_online_once() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (db, (mut a, a_addr), (mut b, b_addr)) = two_instances(dir.path(), "replace.db").await;
    let (room, keys) = room_across(a_addr, b_addr).await;
    let mut light = Client::hello(a_addr, &room, Some(&keys[0])).await;
    let mut dark = Client::hello(b_addr, &room, Some(&keys[1])).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    let light_rows = "SELECT count(*) FROM presence WHERE room_id = $1 AND seat = 'light'";

    // Light's seat opened on B (a phone after a laptop): A's socket is told and closed
    // with 4000, as a second tab on one instance would be.
    let mut newer = Client::hello(b_addr, &room, Some(&keys[0])).await;
    assert_eq!(newer.seat, "light");
    let (seen, code) = light.until_closed().await;
    assert_eq!(code, Some(4000), "{seen:?}");
    assert!(seen.iter().any(|v| v["type"] == "replaced"), "{seen:?}");
    // One socket holds the seat: one presence row, and nobody sees it twice or away.
    eventually(&db, light_rows, &[&room], 1).await;
    for addr in [a_addr, b_addr] {
        let (_, info) = http(addr, "GET", &format!("/api/rooms/{room}")).await;
        assert_eq!(info["seats"]["light"]["online"], true, "{addr}: {info}");
        assert_eq!(info["spectators"], 0, "{addr}: {info}");
    }
    // The seat plays through its new socket, and Dark never saw Light go away.
    let ack = newer.play("d6").await;
    assert_eq!(ack["version"], 1);
    let state = dark.state_where(|s| s["version"] == 1).await;
    assert_eq!(state["seats"]["light"]["online"], true, "{state}");
    let mut watcher = Client::hello(a_addr, &room, None).await;
    assert_eq!(watcher.last["seats"]["light"]["online"], true, "{}", watcher.last);
    assert_eq!(watcher.last["spectators"], 1, "{}", watcher.last);

    // And back: the seat opened on A again replaces B's socket; A's sockets see the
    // seat online throughout.
    let mut again = Client::hello(a_addr, &room, Some(&keys[0])).await;
    let (seen, code) = newer.until_closed().await;
    assert_eq!(code, Some(4000), "{seen:?}");
    eventually(&db, light_rows, &[&room], 1).await;
    dark.play("a1").await;
    for c in [&mut again, &mut watcher] {
        let state = c.state_where(|s| s["version"] == 2).await;
        assert_eq!(state["seats"]["light"]["online"], true, "{state}");
        assert_eq!(state["spectators"], 1, "{state}");
    }
    assert!(
        [&again, &watcher, &dark]
            .iter()
            .all(|c| c.last["seats"]["light"]["online"] == true),
        "the replaced socket's close took nobody offline"
    );

    // Two sockets on one instance still replace each other, and the other instance
    // keeps seeing one Light online.
    let third = Client::hello(a_addr, &room, Some(&keys[0])).await;
    let (_, code) = again.until_closed().await;
    assert_eq!(code, Some(4000));
    eventually(&db, light_rows, &[&room], 1).await;
    let (_, info) = http(b_addr, "GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["seats"]["light"]["online"], true, "{info}");
    // Light's last socket leaves: now it is offline everywhere.
    third.close().await;
    eventually(&db, light_rows, &[&room], 0).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == false).await;
    sigkill(&mut a).await;
    sigkill(&mut b).await;
}

#[tokio::test]
async fn a_seat_joined_on_one_instance_is_known_at_once_on_the_other() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_db, (mut a, a_addr), (mut b, b_addr)) = two_instances(dir.path(), "join.db").await;
    for _ in 0..5 {
        // A holds the room in memory (it was created there) when the friend joins
        // through B and says hello through A straight away, before A may have heard of
        // the join: A looks in the database rather than call the key wrong.
        let (room, keys) = room_across(a_addr, b_addr).await;
        let dark = Client::hello(a_addr, &room, Some(&keys[1])).await;
        assert_eq!(dark.seat, "dark");
        let mut light = Client::hello(a_addr, &room, Some(&keys[0])).await;
        light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    }
    sigkill(&mut a).await;
    sigkill(&mut b).await;
}

#[tokio::test]
async fn an_instance_taken_for_dead_publishes_its_seats_again() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (db, (mut a, a_addr), (mut b, b_addr)) = two_instances(dir.path(), "stall.db").await;
    let (room, keys) = room_across(a_addr, b_addr).await;
    let _light = Client::hello(a_addr, &room, Some(&keys[0])).await;
    let mut dark = Client::hello(b_addr, &room, Some(&keys[1])).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    // What the others do to an instance whose heartbeat stopped for 30 s (a long
    // stall): its row goes, and its presence with it.
    let gone = count(
        &db,
        "DELETE FROM instances WHERE id IN
           (SELECT instance_id FROM presence WHERE room_id = $1 AND seat = 'light')",
        &[&room],
    )
    .await;
    assert_eq!(gone, 1);
    dark.state_where(|s| s["seats"]["light"]["online"] == false).await;
    // A's next heartbeat finds itself gone, comes back and publishes its seats again.
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    eventually(
        &db,
        "SELECT count(*) FROM presence WHERE room_id = $1 AND seat = 'light'",
        &[&room],
        1,
    )
    .await;
    sigkill(&mut a).await;
    sigkill(&mut b).await;
}

#[tokio::test]
async fn mill_load_spreads_each_room_over_two_instances() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (db, (mut a, a_addr), (mut b, b_addr)) = two_instances(dir.path(), "load.db").await;
    let out = Command::new(env!("CARGO_BIN_EXE_mill-load"))
        .args(["--addr", &a_addr.to_string(), "--addr", &b_addr.to_string()])
        .args(["--rooms", "4", "--seconds", "2", "--think-ms", "20"])
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("set up 4 rooms (8 sockets)"), "{text}");
    assert!(
        text.contains("| errors 0 | sockets dropped 0"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let actions = common::measured_actions(&text);
    assert!(actions > 0, "{text}");
    sigkill(&mut a).await;
    sigkill(&mut b).await;
    // Every measured action crossed instances and is stored (set-up and the last,
    // unmeasured actions come on top).
    let stored = common::sql(&db, "SELECT count(*) FROM events WHERE kind = 'action'", &[]).await;
    assert!(stored >= actions, "{stored} stored, {actions} measured");
}

/// The count in a Prometheus text line `name value`.
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn events_of_many_rooms_share_commits_and_each_is_decided_on_its_own() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    const ROOMS: usize = 24;
    const MOVES: usize = 8;
    let dir = tempfile::tempdir().unwrap();
    let (db, (mut a, a_addr), (mut b, b_addr)) = two_instances(dir.path(), "batch.db").await;

    // Each room: Light on A, Dark on B.
    let mut rooms = Vec::new();
    for _ in 0..ROOMS {
        let (room, keys) = room_across(a_addr, b_addr).await;
        let light = Client::hello(a_addr, &room, Some(&keys[0])).await;
        let dark = Client::hello(b_addr, &room, Some(&keys[1])).await;
        let mut seats = [light, dark];
        for seat in seats.iter_mut() {
            seat.state_where(|s| {
                s["seats"]["light"]["online"] == true && s["seats"]["dark"]["online"] == true
            })
            .await;
        }
        rooms.push((room, seats));
    }
    let mut acked: Vec<Vec<String>> = vec![Vec::new(); ROOMS];

    // The database refuses every event of one room (a trigger standing for any refusal
    // particular to one event): that must not take the events of the other rooms in
    // the same batch with it.
    let victim = rooms[0].0.clone();
    common::sql(
        &db,
        &format!(
            "CREATE FUNCTION refuse_victim() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN IF NEW.room_id = '{victim}' THEN RAISE EXCEPTION 'refused for the test'; END IF;
             RETURN NEW; END $$"
        ),
        &[],
    )
    .await;
    common::sql(
        &db,
        "CREATE TRIGGER refuse_victim BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_victim()",
        &[],
    )
    .await;

    // Every room moves at once, MOVES times: each round of moves goes through one
    // instance (the movers'), so their events wait in one queue together.
    let mut rng = Rng::new(13);
    for step in 0..MOVES {
        let mut sent = Vec::new();
        for (n, (room, seats)) in rooms.iter_mut().enumerate() {
            let state = seats[0].last.clone();
            if !state["result"].is_null() || (n == 0 && step > 0) {
                continue;
            }
            let mover = usize::from(state["turn"] == "dark");
            let action = legal_action(&state, |k| rng.below(k)).expect("a legal action");
            let id = format!("{room}-{step}");
            let msg = seats[mover].message("action", &id, Some(&action));
            seats[mover].send(msg).await;
            sent.push((n, mover, id, state["version"].as_u64().unwrap() + 1));
        }
        for (n, mover, id, version) in sent {
            let seats = &mut rooms[n].1;
            let answer = seats[mover].answer(&id).await;
            if n == 0 {
                assert_eq!(answer["type"], "error", "the refused room's event: {answer}");
                assert_eq!(answer["code"], "internal", "{answer}");
                continue;
            }
            assert_eq!(answer["type"], "ack", "{answer}");
            acked[n].push(id);
            for seat in seats.iter_mut() {
                seat.state_where(|s| s["version"] == version).await;
            }
        }
    }

    // The events did share commits (else this test would not be about batching).
    for addr in [a_addr, b_addr] {
        let (_, text) = http(addr, "GET", "/metrics").await;
        let text = text.as_str().unwrap_or_default().to_string();
        let commits = metric(&text, "mill_commit_events_count");
        let events = metric(&text, "mill_commit_events_sum");
        assert!(
            commits > 0.0 && events > commits,
            "some commit held several events: {events} events in {commits} commits"
        );
    }
    sigkill(&mut a).await;
    sigkill(&mut b).await;

    // Every acknowledged command is stored exactly once, and nothing else.
    assert_eq!(
        count(&db, "SELECT count(*) FROM events WHERE room_id = $1", &[&victim]).await,
        0
    );
    for (n, (room, _)) in rooms.iter().enumerate().skip(1) {
        let stored = count(&db, "SELECT count(*) FROM events WHERE room_id = $1", &[room]).await;
        assert_eq!(stored, acked[n].len() as i64, "{room}: one row per ack");
        for id in &acked[n] {
            let rows = count(
                &db,
                "SELECT count(*) FROM events WHERE room_id = $1 AND client_id = $2",
                &[room, id],
            )
            .await;
            assert_eq!(rows, 1, "{room} {id}");
        }
    }
}

/// The answer (ack or error) to command `id`, other messages skipped.
async fn answer_to(c: &mut Client, id: &str) -> Value {
    loop {
        let v = c.recv().await;
        if matches!(v["type"].as_str(), Some("ack" | "error")) && v["id"] == id {
            return v;
        }
    }
}

#[tokio::test]
async fn a_rematch_offered_on_one_instance_and_accepted_on_the_other_makes_one_room_for_both() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (db, (mut a, a_addr), (mut b, b_addr)) = two_instances(dir.path(), "rematch.db").await;
    // Paired across the instances: one seeker on each.
    let seek = |who: &str| {
        json!({"variant": "nine", "clock": {"initial": 300, "increment": 3},
               "seeker": format!("{who}-seeker"), "seek": format!("{who}-seek-1")})
        .to_string()
    };
    let (annie, bobby) = (seek("annie"), seek("bobby"));
    let ((s1, p1), (s2, p2)) = tokio::join!(common::request(a_addr, "POST", "/api/pair", &annie), async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        common::request(b_addr, "POST", "/api/pair", &bobby).await
    });
    assert_eq!((s1, s2), (201, 201), "{p1} {p2}");
    let room = p1["room"].as_str().unwrap().to_string();
    assert_eq!(p2["room"], room.as_str());
    // Each plays through the instance it sought on.
    let (on_a, on_b) = (p1["key"].as_str().unwrap(), p2["key"].as_str().unwrap());
    let mut ca = Client::hello(a_addr, &room, Some(on_a)).await;
    let mut cb = Client::hello(b_addr, &room, Some(on_b)).await;
    for c in [&mut ca, &mut cb] {
        c.state_where(|s| s["seats"]["light"]["online"] == true && s["seats"]["dark"]["online"] == true)
            .await;
    }
    let rooms_before = count(&db, "SELECT count(*) FROM rooms", &[]).await;
    ca.ok("resign").await;
    cb.state_where(|s| !s["result"].is_null()).await;
    ca.state_where(|s| !s["result"].is_null()).await;
    // Both offer at the same moment, each on its instance: one is stored first, and the
    // other completes the rematch, or (made on the state before) is stale and sent again.
    let keys = [
        mill_server::keys::new_seat_key(),
        mill_server::keys::new_seat_key(),
    ];
    let ia = ca.command("offer-rematch", json!({"key": keys[0]})).await;
    let ib = cb.command("offer-rematch", json!({"key": keys[1]})).await;
    let (ra, rb) = (answer_to(&mut ca, &ia).await, answer_to(&mut cb, &ib).await);
    assert!(
        ra["type"] == "ack" || rb["type"] == "ack",
        "one is stored: {ra} {rb}"
    );
    for (r, c, key) in [(ra, &mut ca, &keys[0]), (rb, &mut cb, &keys[1])] {
        assert!(r["type"] == "ack" || r["code"] == "stale", "{r}");
        if r["type"] != "ack" {
            c.state_where(|s| !s["offers"]["rematch"].is_null()).await;
            let id = c.command("offer-rematch", json!({"key": key})).await;
            assert_eq!(answer_to(c, &id).await["type"], "ack");
        }
    }
    let new_room = mill_server::keys::rematch_room_id(&room, 1);
    for c in [&mut ca, &mut cb] {
        let s = c.state_where(|s| !s["offers"]["rematch_room"].is_null()).await;
        assert_eq!(
            s["offers"]["rematch_room"],
            new_room.as_str(),
            "every instance names one room"
        );
    }
    assert_eq!(
        count(&db, "SELECT count(*) FROM rooms", &[]).await,
        rooms_before + 1,
        "exactly one room made"
    );
    // Each key opens the other colour, on either instance.
    let na = Client::hello(b_addr, &new_room, Some(&keys[0])).await;
    let nb = Client::hello(a_addr, &new_room, Some(&keys[1])).await;
    assert_ne!(na.seat, ca.seat);
    assert_ne!(nb.seat, cb.seat);
    assert_eq!(
        na.last["clock"]["control"],
        json!({"initial": 300, "increment": 3})
    );
    sigkill(&mut a).await;
    sigkill(&mut b).await;
}
