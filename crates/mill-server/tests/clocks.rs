//! Rooms on a clock over real sockets, on SQLite (and on PostgreSQL under
//! scripts/with-postgres): the server's own flag with nobody sending, a late turn
//! refused, the increment, a restart keeping both clocks (also after SIGKILL), the
//! abort, the disconnection rule (the pause while the opponent is away, one's own
//! clock running while away) and the claims after the grace, and on two instances the
//! race of a turn and the flag. Time moves only when the test moves the injectable
//! clock, so no assertion depends on the machine's speed (the SIGKILL test runs the
//! real binary on the real clock and asserts only what does not depend on it).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Client, Server, request, sql};
use mill_server::{Clock, ManualClock};
use serde_json::{Value, json};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

async fn start(db: &std::path::Path, clock: &Arc<ManualClock>) -> Server {
    let clock = clock.clone();
    Server::start_with(db, move |c| {
        c.clock = clock;
        // No ping, so no round trip measured and no lag given back: the clocks are
        // exactly what the test moved them by.
        c.ping_every = Duration::from_secs(3600);
    })
    .await
}

/// Waits (by polling the database, with a guard against a hang) until `query` counts
/// at least `n`.
async fn stored_at_least(db: &std::path::Path, query: &str, params: &[&str], n: i64, guard: Duration) -> i64 {
    let until = std::time::Instant::now() + guard;
    loop {
        let got = sql(db, query, params).await;
        if got >= n {
            return got;
        }
        assert!(std::time::Instant::now() < until, "{query}: {got} < {n}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `kind` events of `seat` in `room`.
async fn events_of(db: &std::path::Path, room: &str, kind: &str, seat: &str) -> i64 {
    events_since(db, room, kind, seat, 0).await
}

/// `kind` events of `seat` in `room` stored at `since` (Unix ms) or later. (A seat that
/// joins before its socket connects is away for that moment: these come earlier.)
async fn events_since(db: &std::path::Path, room: &str, kind: &str, seat: &str, since: i64) -> i64 {
    sql(
        db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND kind = $2 AND seat = $3
           AND at >= CAST(CAST($4 AS TEXT) AS BIGINT)",
        &[room, kind, seat, &since.to_string()],
    )
    .await
}

/// Waits until `room` has a `kind` event of `seat` stored at `since` or later.
async fn stored_since(db: &std::path::Path, room: &str, kind: &str, seat: &str, since: i64, guard: Duration) {
    let until = std::time::Instant::now() + guard;
    while events_since(db, room, kind, seat, since).await < 1 {
        assert!(
            std::time::Instant::now() < until,
            "no {kind} of {seat} since {since}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A timed room with both seats connected: (room, light, dark).
async fn timed_table(server: &Server, clock: Value) -> (String, Client, Client) {
    let (status, body) = request(
        server.addr,
        "POST",
        "/api/rooms",
        &json!({ "clock": clock }).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let room = body["room"].as_str().unwrap().to_string();
    let light_key = body["key"].as_str().unwrap().to_string();
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    (room, light, dark)
}

/// `mover` plays `action`; both wait for the state after it. Returns that state. (On
/// two instances a seat's presence stored by the other one may take the place the
/// action was sent for: it is answered `stale` at its own version, and sent again.)
async fn step(mover: &mut Client, other: &mut Client, action: &str) -> Value {
    let ack = loop {
        let id = mover.command("action", json!({ "action": action })).await;
        let answer = mover.answer(&id).await;
        if answer["type"] == "error"
            && answer["code"] == "stale"
            && answer["version"] == mover.last["version"]
        {
            continue;
        }
        assert_eq!(answer["type"], "ack", "{answer}");
        break answer;
    };
    let version = ack["version"].clone();
    other.state_where(|s| s["version"] == version).await;
    mover.state_where(|s| s["version"] == version).await
}

fn secs(clock: &ManualClock, ms: u64) {
    clock.advance(Duration::from_millis(ms));
}

#[tokio::test]
async fn a_clock_out_of_bounds_is_refused() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    for bad in [
        json!({"initial": 14, "increment": 0}),
        json!({"initial": 10801, "increment": 0}),
        json!({"initial": 60, "increment": 181}),
        json!({"days": 15}),
        json!({"initial": 60, "increment": 0, "days": 1}),
        json!("fast"),
    ] {
        let (status, body) = request(
            server.addr,
            "POST",
            "/api/rooms",
            &json!({ "clock": bad }).to_string(),
        )
        .await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["code"], "bad-clock", "{bad}: {body}");
    }
    // an untimed room carries no clock
    let (room, _) = server.create().await;
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert!(info["clock"].is_null(), "{info}");
    server.stop().await;
}

#[tokio::test]
async fn the_server_flags_a_15_second_clock_with_nobody_sending() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 0})).await;
    assert_eq!(light.last["clock"]["light"], 15_000, "{}", light.last);
    // First turns start the clocks; then Light's runs.
    step(&mut light, &mut dark, "d6").await;
    let s = step(&mut dark, &mut light, "d2").await;
    assert_eq!(s["clock"]["running"], "light", "{s}");
    assert_eq!(s["clock"]["light"], 15_000, "{s}");
    // 15 s and the lag quota (a quarter second for this control) pass; nobody sends.
    secs(&clock, 15_000);
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["clock"]["light"], 0, "{info}");
    assert!(
        info["over"] == false,
        "not yet: the lag quota is still given: {info}"
    );
    secs(&clock, 300);
    for c in [&mut light, &mut dark] {
        let end = c.state_where(|s| !s["result"].is_null()).await;
        assert_eq!(end["result"]["reason"], "timeout", "{end}");
        assert_eq!(end["result"]["winner"], "dark", "{end}");
        assert_eq!(end["clock"]["light"], 0, "{end}");
        assert!(end["clock"]["running"].is_null(), "{end}");
    }
    server.stop().await;
    let stored = sql(
        &db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND kind = 'timeout' AND seat = 'light'",
        &[&room],
    )
    .await;
    assert_eq!(stored, 1, "the flag is a stored event");
}

#[tokio::test]
async fn a_late_turn_is_refused_and_changes_nothing() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 0})).await;
    step(&mut light, &mut dark, "d6").await;
    let before = step(&mut dark, &mut light, "d2").await;
    // Later than Light's 15 s, within the lag quota: the periodic check has not
    // flagged it yet, the turn itself is late (no lag measured to give back).
    secs(&clock, 15_100);
    let id = light.command("action", json!({"action": "f4"})).await;
    let err = light.error().await;
    assert_eq!(err["id"], id.as_str(), "{err}");
    assert_eq!(err["code"], "out-of-time", "{err}");
    let end = light.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(end["result"]["reason"], "timeout", "{end}");
    assert_eq!(end["result"]["winner"], "dark", "{end}");
    assert_eq!(
        end["position"], before["position"],
        "the late action is not on the board"
    );
    dark.state_where(|s| s["result"]["reason"] == "timeout").await;
    server.stop().await;
    let late = sql(
        &db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND client_id = $2",
        &[&room, &id],
    )
    .await;
    assert_eq!(late, 0, "the late command is not stored");
    let flags = sql(
        &db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND kind = 'timeout'",
        &[&room],
    )
    .await;
    assert_eq!(flags, 1);
}

#[tokio::test]
async fn the_increment_comes_after_the_turn_and_a_restart_keeps_both_clocks() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 5})).await;
    step(&mut light, &mut dark, "d6").await;
    step(&mut dark, &mut light, "d2").await;
    secs(&clock, 3_000);
    let s = step(&mut light, &mut dark, "f4").await;
    // 15 s − 3 s + 5 s; Dark's clock runs from here.
    assert_eq!(s["clock"]["light"], 17_000, "{s}");
    assert_eq!(s["clock"]["dark"], 15_000, "{s}");
    assert_eq!(s["clock"]["running"], "dark", "{s}");
    secs(&clock, 2_000);
    let s = step(&mut dark, &mut light, "b4").await;
    assert_eq!(s["clock"]["dark"], 18_000, "{s}");
    assert_eq!(s["clock"]["running"], "light", "{s}");
    light.close().await;
    dark.close().await;
    server.stop().await;

    // A new server on the same database finds the same clocks: the second the server
    // was stopped is nobody's, and Light's clock runs again from the start.
    secs(&clock, 1_000);
    let server = start(&db, &clock).await;
    let (status, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["clock"]["dark"], 18_000, "{info}");
    assert_eq!(
        info["clock"]["light"], 17_000,
        "not charged while stopped: {info}"
    );
    assert_eq!(info["clock"]["running"], "light", "{info}");
    secs(&clock, 1_000);
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["clock"]["light"], 16_000, "Light's clock runs on: {info}");
    // And its flag still falls, by the server's own check.
    secs(&clock, 20_000);
    let mut watcher = Client::hello(server.addr, &room, None).await;
    let end = watcher.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(end["result"]["reason"], "timeout", "{end}");
    assert_eq!(end["result"]["winner"], "dark", "{end}");
    watcher.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_finished_rounds_record_has_both_clocks_after_each_action_and_keeps_them_over_a_restart() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 5})).await;
    step(&mut light, &mut dark, "d6").await;
    step(&mut dark, &mut light, "d2").await;
    secs(&clock, 3_000);
    step(&mut light, &mut dark, "f4").await;
    secs(&clock, 2_000);
    step(&mut dark, &mut light, "b4").await;
    // A takeback drops the taken-back turn's times; the turn played instead has its own.
    secs(&clock, 1_000);
    step(&mut light, &mut dark, "a7").await;
    light.ok("offer-takeback").await;
    dark.ok("accept-takeback").await;
    light.state_where(|s| s["version"] == 4).await;
    secs(&clock, 4_000);
    step(&mut light, &mut dark, "g7").await;
    dark.ok("resign").await;
    light.state_where(|s| !s["result"].is_null()).await;
    let times = |light: i64, dark: i64| json!({"light": light, "dark": dark});
    let expected = json!({
        "control": {"initial": 15, "increment": 5},
        "times": [
            times(15_000, 15_000),
            times(15_000, 15_000),
            times(17_000, 15_000),
            times(17_000, 18_000),
            times(22_000, 18_000),
        ],
    });
    let path = format!("/api/rooms/{room}/rounds/1");
    let (status, rec) = server.http("GET", &path).await;
    assert_eq!(status, 200, "{rec}");
    assert_eq!(rec["actions"], json!(["d6", "d2", "f4", "b4", "g7"]), "{rec}");
    assert_eq!(rec["clock"], expected, "{rec}");
    light.close().await;
    dark.close().await;
    server.stop().await;

    // Replayed from the stored events, the record is the same.
    let server = start(&db, &clock).await;
    let (status, again) = server.http("GET", &path).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["clock"], expected, "{again}");
    server.stop().await;
}

#[tokio::test]
async fn a_side_that_does_not_start_aborts_the_round() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 60, "increment": 0})).await;
    assert_eq!(light.last["clock"]["first_turn"], 30_000, "{}", light.last);
    assert!(light.last["clock"]["running"].is_null(), "{}", light.last);
    step(&mut light, &mut dark, "d6").await;
    // Dark has 30 s from Light's first turn to make its own.
    secs(&clock, 29_000);
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["over"], false, "{info}");
    assert_eq!(info["clock"]["first_turn"], 1_000, "{info}");
    secs(&clock, 1_000);
    for c in [&mut light, &mut dark] {
        let end = c.state_where(|s| !s["result"].is_null()).await;
        assert_eq!(end["result"]["reason"], "aborted", "{end}");
        assert!(end["result"]["winner"].is_null(), "{end}");
    }
    server.stop().await;
    let stored = sql(
        &db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND kind = 'abort' AND seat = 'dark'",
        &[&room],
    )
    .await;
    assert_eq!(stored, 1);
}

/// On two instances sharing PostgreSQL, Light's turn acknowledged in time on one and the
/// flag seen by the other's periodic check (its clock runs ahead) race for the round's
/// next place: exactly one of them stands, every time, and both instances agree.
#[tokio::test]
async fn a_turn_racing_the_flag_on_two_instances_stands_alone_or_loses_alone() {
    if !common::on_postgres() {
        eprintln!("clocks: MILL_TEST_PG_URL is not set; the two-instance race is skipped");
        return;
    }
    let dir = tmp();
    let db = dir.path().join("m.db");
    let behind = Arc::new(ManualClock::new());
    let ahead = Arc::new(ManualClock::new());
    let a = start(&db, &behind).await;
    let b = start(&db, &ahead).await;
    let (mut turns, mut flags) = (0, 0);
    const RACES: u64 = 24;
    for i in 0..RACES {
        let (room, mut light, mut dark) = timed_table(&a, json!({"initial": 15, "increment": 0})).await;
        step(&mut light, &mut dark, "d6").await;
        step(&mut dark, &mut light, "d2").await;
        let mut watcher = Client::hello(b.addr, &room, None).await;
        watcher.state_where(|s| s["version"] == 2).await;
        // Light's deadline is 15.25 s after its turn began (A's time): A stays before
        // it, B goes past it.
        let offset = ahead.now_ms() - behind.now_ms();
        secs(&behind, 14_000);
        secs(&ahead, (14_000 + (1_500 - offset).max(0)) as u64);
        // B's check runs every 100 ms: sending after a varying pause lets either side
        // reach the place first (which one does is not asserted, only that one does).
        tokio::time::sleep(Duration::from_millis((i % 8) * 20)).await;
        let id = light.command("action", json!({"action": "f4"})).await;
        let answer = light.answer(&id).await;
        let stood = answer["type"] == "ack";
        let end_a = light
            .state_where(|s| {
                if stood {
                    s["version"] == 3
                } else {
                    !s["result"].is_null()
                }
            })
            .await;
        let end_b = watcher
            .state_where(|s| {
                if stood {
                    s["version"] == 3
                } else {
                    !s["result"].is_null()
                }
            })
            .await;
        let at_place = sql(
            &db,
            "SELECT count(*) FROM events WHERE room_id = $1 AND round = 1 AND seq = 2",
            &[&room],
        )
        .await;
        assert_eq!(at_place, 1, "one event at the contested place");
        let timeouts = sql(
            &db,
            "SELECT count(*) FROM events WHERE room_id = $1 AND kind = 'timeout'",
            &[&room],
        )
        .await;
        let turn = sql(
            &db,
            "SELECT count(*) FROM events WHERE room_id = $1 AND client_id = $2",
            &[&room, &id],
        )
        .await;
        if stood {
            turns += 1;
            assert_eq!((turn, timeouts), (1, 0), "{answer}");
            assert!(
                end_a["result"].is_null() && end_b["result"].is_null(),
                "{end_a} {end_b}"
            );
        } else {
            flags += 1;
            assert_eq!(answer["type"], "error", "{answer}");
            assert_eq!((turn, timeouts), (0, 1), "{answer}");
            for end in [&end_a, &end_b] {
                assert_eq!(end["result"]["reason"], "timeout", "{end}");
            }
        }
        watcher.close().await;
        light.close().await;
        dark.close().await;
    }
    eprintln!("clocks: of {RACES} races the turn stood {turns} times, the flag {flags}");
    a.stop().await;
    b.stop().await;
}

/// Light and Dark have made their first turns (d6, d2): both clocks have started and
/// Light's runs.
async fn started(light: &mut Client, dark: &mut Client) -> Value {
    step(light, dark, "d6").await;
    step(dark, light, "d2").await
}

#[tokio::test]
async fn the_claim_comes_after_the_grace_and_not_before() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    // 1+0: the grace is its shortest, 40 s.
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 60, "increment": 0})).await;
    started(&mut light, &mut dark).await;
    secs(&clock, 1);
    let gone_at = clock.now_ms();
    dark.close().await;
    let s = light.state_where(|s| !s["clock"]["claim_at"].is_null()).await;
    assert_eq!(s["clock"]["claim_at"], gone_at + 40_000, "{s}");
    assert_eq!(s["seats"]["dark"]["online"], false, "{s}");
    let refused = |v: &Value| v["type"] == "error" && v["code"] == "no-claim";
    let id = light.command("claim-win", json!({})).await;
    let answer = light.answer(&id).await;
    assert!(refused(&answer), "at once: {answer}");
    secs(&clock, 39_999);
    for kind in ["claim-win", "call-draw"] {
        let id = light.command(kind, json!({})).await;
        let answer = light.answer(&id).await;
        assert!(refused(&answer), "a millisecond early: {answer}");
    }
    assert_eq!(light.last["result"], Value::Null);
    secs(&clock, 1);
    let id = light.command("claim-win", json!({})).await;
    let answer = light.answer(&id).await;
    assert_eq!(answer["type"], "ack", "{answer}");
    let end = light.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(end["result"]["winner"], "light", "{end}");
    assert_eq!(end["result"]["reason"], "abandoned", "{end}");
    assert!(end["clock"]["claim_at"].is_null(), "nothing more to claim: {end}");
    // The same command again is acknowledged again and changes nothing.
    let again = light.message("claim-win", &id, None);
    light.send(again).await;
    let answer = light.answer(&id).await;
    assert_eq!(
        (answer["type"].as_str(), answer["duplicate"].as_bool()),
        (Some("ack"), Some(true)),
        "{answer}"
    );
    light.close().await;
    server.stop().await;
    assert_eq!(events_of(&db, &room, "claim-win", "light").await, 1);
    assert_eq!(
        events_since(&db, &room, "away", "dark", gone_at).await,
        1,
        "Dark's absence is stored"
    );
}

#[tokio::test]
async fn while_the_opponent_is_away_the_present_side_is_not_flagged_and_may_call_a_draw() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 0})).await;
    started(&mut light, &mut dark).await;
    secs(&clock, 2_000);
    // Light is to move; Dark leaves: Light's board is inactive and its clock stops.
    dark.close().await;
    let s = light.state_where(|s| s["clock"]["running"].is_null()).await;
    assert_eq!(s["clock"]["light"], 13_000, "{s}");
    // Four times Light's time passes: no flag (its deadline is gone while paused).
    secs(&clock, 60_000);
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["over"], false, "{info}");
    assert_eq!(info["clock"]["light"], 13_000, "{info}");
    assert!(info["clock"]["running"].is_null(), "{info}");
    assert_eq!(events_of(&db, &room, "timeout", "light").await, 0);
    // The grace (40 s) is over: Light calls it a draw.
    let id = light.command("call-draw", json!({})).await;
    let answer = light.answer(&id).await;
    assert_eq!(answer["type"], "ack", "{answer}");
    let end = light.state_where(|s| !s["result"].is_null()).await;
    assert!(end["result"]["winner"].is_null(), "{end}");
    assert_eq!(end["result"]["reason"], "abandoned", "{end}");
    assert_eq!(end["clock"]["light"], 13_000, "{end}");
    light.close().await;
    server.stop().await;
    assert_eq!(events_of(&db, &room, "call-draw", "light").await, 1);
}

#[tokio::test]
async fn a_side_to_move_that_leaves_keeps_its_clock_running_and_is_flagged() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 0})).await;
    started(&mut light, &mut dark).await;
    // Light, to move, leaves: its own clock runs on, and Dark's claim waits.
    secs(&clock, 1);
    let gone_at = clock.now_ms();
    light.close().await;
    let s = dark
        .state_where(|s| s["seats"]["light"]["online"] == false && !s["clock"]["claim_at"].is_null())
        .await;
    assert_eq!(s["clock"]["running"], "light", "{s}");
    secs(&clock, 15_300);
    let end = dark.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(end["result"]["reason"], "timeout", "{end}");
    assert_eq!(end["result"]["winner"], "dark", "{end}");
    dark.close().await;
    server.stop().await;
    assert_eq!(events_since(&db, &room, "away", "light", gone_at).await, 1);
    assert_eq!(events_of(&db, &room, "timeout", "light").await, 1);
}

#[tokio::test]
async fn the_pause_ends_when_the_opponent_is_back() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (status, body) = request(
        server.addr,
        "POST",
        "/api/rooms",
        &json!({"clock": {"initial": 15, "increment": 0}}).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let room = body["room"].as_str().unwrap().to_string();
    let light_key = body["key"].as_str().unwrap().to_string();
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    started(&mut light, &mut dark).await;
    secs(&clock, 1);
    let gone_at = clock.now_ms();
    dark.close().await;
    light.state_where(|s| s["clock"]["running"].is_null()).await;
    secs(&clock, 30_000);
    // Dark is back: Light's 15 s count from now, and its flag falls 15 s on.
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    let s = light.state_where(|s| s["clock"]["running"] == "light").await;
    assert_eq!(
        s["clock"]["light"], 14_999,
        "the millisecond before Dark left: {s}"
    );
    assert!(s["clock"]["claim_at"].is_null(), "{s}");
    secs(&clock, 15_300);
    let end = dark.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(end["result"]["reason"], "timeout", "{end}");
    light.close().await;
    dark.close().await;
    server.stop().await;
    assert_eq!(events_since(&db, &room, "back", "dark", gone_at).await, 1);
}

#[tokio::test]
async fn after_a_restart_a_paused_clock_stays_paused_until_then_and_the_flag_falls_with_nobody_there() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 5})).await;
    started(&mut light, &mut dark).await;
    secs(&clock, 3_000);
    step(&mut light, &mut dark, "f4").await;
    secs(&clock, 1_000);
    let s = step(&mut dark, &mut light, "b4").await;
    assert_eq!(
        (s["clock"]["light"].as_i64(), s["clock"]["dark"].as_i64()),
        (Some(17_000), Some(19_000)),
        "{s}"
    );
    secs(&clock, 2_000);
    // Dark leaves; Light (to move) is paused at 15 s, and the server stops with Light
    // still there (a shutdown is no player leaving).
    dark.close().await;
    light.state_where(|s| s["clock"]["running"].is_null()).await;
    server.stop().await;
    secs(&clock, 10_000);
    // Nobody comes back. The new server finds the room by itself, stores Light's
    // absence too, and Light's own clock runs from then: 15 s later it is flagged.
    let restart_at = clock.now_ms();
    let server = start(&db, &clock).await;
    stored_since(&db, &room, "away", "light", restart_at, common::PATIENCE).await;
    assert_eq!(events_of(&db, &room, "timeout", "light").await, 0);
    secs(&clock, 15_000 + 1_250);
    stored_at_least(
        &db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND kind = 'timeout' AND seat = 'light'",
        &[&room],
        1,
        common::PATIENCE,
    )
    .await;
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["over"], true, "{info}");
    assert_eq!(info["clock"]["dark"], 19_000, "Dark's clock kept: {info}");
    assert_eq!(info["clock"]["light"], 0, "{info}");
    server.stop().await;
}

/// The real binary is killed with SIGKILL mid-game: the new process finds both clocks
/// (the one not running exactly as stored) and flags the running one by itself, with
/// nobody connected. This one runs on the real clock: it waits out a 15-second control.
#[tokio::test]
async fn after_sigkill_both_clocks_are_kept_and_the_flag_falls_with_nobody_sending() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let db_arg = common::db_arg(&db).await;
    let (mut child, addr) = common::spawn_server(dir.path(), &db_arg, &[]).await;
    let (status, body) = request(
        addr,
        "POST",
        "/api/rooms",
        &json!({"clock": {"initial": 15, "increment": 5}}).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let room = body["room"].as_str().unwrap().to_string();
    let light_key = body["key"].as_str().unwrap().to_string();
    let (_, joined) = common::http(addr, "POST", &format!("/api/rooms/{room}/join")).await;
    let dark_key = joined["key"].as_str().unwrap().to_string();
    let mut light = Client::hello(addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    started(&mut light, &mut dark).await;
    step(&mut light, &mut dark, "f4").await;
    let before = step(&mut dark, &mut light, "b4").await;
    let dark_ms = before["clock"]["dark"].as_i64().unwrap();
    let light_ms = before["clock"]["light"].as_i64().unwrap();
    assert_eq!(before["clock"]["running"], "light", "{before}");
    common::sigkill(&mut child).await;
    drop((light, dark));

    let (mut child, addr) = common::spawn_server(dir.path(), &db_arg, &[]).await;
    let (status, info) = common::http(addr, "GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(
        info["clock"]["dark"], dark_ms,
        "the clock not running, as stored: {info}"
    );
    assert!(info["clock"]["light"].as_i64().unwrap() <= light_ms, "{info}");
    assert_eq!(info["version"], before["version"], "{info}");
    assert_eq!(info["over"], false, "{info}");
    // Nobody connects; the server's own check flags Light once its time is up.
    // (Asked over HTTP: the database file is not read from here while the binary
    // runs. The room is in memory since the start either way.)
    let t0 = std::time::Instant::now();
    loop {
        let (_, info) = common::http(addr, "GET", &format!("/api/rooms/{room}")).await;
        if info["over"] == true {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no flag in a minute: {info}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    common::sigkill(&mut child).await;
    assert_eq!(events_of(&db, &room, "timeout", "light").await, 1);
}

/// Where the flag would not fall at all without the start-up load: the room is never
/// asked for after the restart.
#[tokio::test]
async fn a_timed_room_nobody_asks_for_is_flagged_after_a_restart() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let server = start(&db, &clock).await;
    let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 15, "increment": 0})).await;
    started(&mut light, &mut dark).await;
    light.close().await;
    dark.close().await;
    server.stop().await;
    // The time it was stopped is nobody's; Light's 15 s run out after the start.
    secs(&clock, 20_000);
    let server = start(&db, &clock).await;
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(
        info["clock"]["light"], 15_000,
        "not charged while stopped: {info}"
    );
    secs(&clock, 16_000);
    stored_at_least(
        &db,
        "SELECT count(*) FROM events WHERE room_id = $1 AND kind = 'timeout' AND seat = 'light'",
        &[&room],
        1,
        common::PATIENCE,
    )
    .await;
    server.stop().await;
}

/// On two instances sharing PostgreSQL: Dark leaves from B while Light plays on A. The
/// absence is stored once whichever instance sees it first, and A shows the pause and
/// the claim's time as B does; Dark back on B ends the pause on A.
#[tokio::test]
async fn on_two_instances_an_absence_is_stored_once_and_seen_alike() {
    if !common::on_postgres() {
        eprintln!("clocks: MILL_TEST_PG_URL is not set; the two-instance absence is skipped");
        return;
    }
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = Arc::new(ManualClock::new());
    let a = start(&db, &clock).await;
    let b = start(&db, &clock).await;
    for _ in 0..4 {
        let (status, body) = request(
            a.addr,
            "POST",
            "/api/rooms",
            &json!({"clock": {"initial": 60, "increment": 0}}).to_string(),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let room = body["room"].as_str().unwrap().to_string();
        let light_key = body["key"].as_str().unwrap().to_string();
        let dark_key = b.join(&room).await;
        let mut light = Client::hello(a.addr, &room, Some(&light_key)).await;
        let mut dark = Client::hello(b.addr, &room, Some(&dark_key)).await;
        light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
        dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
        started(&mut light, &mut dark).await;
        secs(&clock, 1);
        let gone_at = clock.now_ms();
        dark.close().await;
        let s = light
            .state_where(|s| s["clock"]["running"].is_null() && !s["clock"]["claim_at"].is_null())
            .await;
        assert_eq!(s["clock"]["claim_at"], gone_at + 40_000, "{s}");
        let mut watcher = Client::hello(b.addr, &room, None).await;
        let w = watcher.state_where(|s| !s["clock"]["claim_at"].is_null()).await;
        assert_eq!(w["clock"]["claim_at"], s["clock"]["claim_at"], "{w}");
        assert!(w["clock"]["running"].is_null(), "{w}");
        assert_eq!(
            events_since(&db, &room, "away", "dark", gone_at).await,
            1,
            "stored once"
        );
        secs(&clock, 5_000);
        let dark = Client::hello(b.addr, &room, Some(&dark_key)).await;
        let s = light.state_where(|s| s["clock"]["running"] == "light").await;
        assert_eq!(
            s["clock"]["light"], 59_999,
            "the millisecond before Dark left: {s}"
        );
        assert_eq!(
            events_since(&db, &room, "back", "dark", gone_at).await,
            1,
            "stored once"
        );
        for c in [light, dark, watcher] {
            c.close().await;
        }
    }
    a.stop().await;
    b.stop().await;
}

/// Time while the server was not running is nobody's: the real binary is killed with
/// SIGKILL on Light's turn and started again 6 s later; Light's clock lost no more
/// than the moments it ran (before the kill, since the restart), not the outage.
/// (Light used to be charged the whole outage.)
#[tokio::test]
async fn a_crash_is_charged_to_nobody_and_the_clock_runs_again_from_the_restart() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let db_arg = common::db_arg(&db).await;
    let (mut child, addr) = common::spawn_server(dir.path(), &db_arg, &[]).await;
    let (status, body) = request(
        addr,
        "POST",
        "/api/rooms",
        &json!({"clock": {"initial": 60, "increment": 0}}).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let room = body["room"].as_str().unwrap().to_string();
    let light_key = body["key"].as_str().unwrap().to_string();
    let (_, joined) = common::http(addr, "POST", &format!("/api/rooms/{room}/join")).await;
    let dark_key = joined["key"].as_str().unwrap().to_string();
    let mut light = Client::hello(addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    started(&mut light, &mut dark).await;
    step(&mut light, &mut dark, "f4").await;
    let before = step(&mut dark, &mut light, "b4").await;
    let light_ms = before["clock"]["light"].as_i64().unwrap();
    assert_eq!(before["clock"]["running"], "light", "{before}");
    let ran = std::time::Instant::now();
    common::sigkill(&mut child).await;
    drop((light, dark));
    let outage = std::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(6)).await;
    let outage = outage.elapsed();

    let (mut child, addr) = common::spawn_server(dir.path(), &db_arg, &[]).await;
    let (status, info) = common::http(addr, "GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200, "{info}");
    let charged = light_ms - info["clock"]["light"].as_i64().unwrap();
    // What ran: from the state to the kill, the start, this request (and at most the
    // note of life's second before the kill); the outage itself is over 6 s.
    let ran = ran.elapsed() - outage;
    assert!(
        charged <= ran.as_millis() as i64 + 1_000,
        "Light was charged {charged} ms for {} ms of running and {} ms of outage: {info}",
        ran.as_millis(),
        outage.as_millis()
    );
    assert_eq!(info["clock"]["running"], "light", "{info}");
    common::sigkill(&mut child).await;
}

/// On PostgreSQL: the database is out for 8 s (its connections cut and refused) while
/// both players stay connected, Light to move. Nothing can be stored meanwhile, so that
/// time is nobody's: once the database is back, Light's turn is charged only the time
/// before and after it. (Light used to be charged the whole outage.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_is_charged_to_nobody() {
    if !common::on_postgres() {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (_room, mut light, mut dark) = timed_table(&server, json!({"initial": 60, "increment": 0})).await;
    started(&mut light, &mut dark).await;
    step(&mut light, &mut dark, "f4").await;
    let before = step(&mut dark, &mut light, "b4").await;
    let light_ms = before["clock"]["light"].as_i64().unwrap();
    let ran = std::time::Instant::now();
    let mill_server::store::DbTarget::Postgres(url) = common::target(&db).await else {
        unreachable!()
    };
    let name = url.rsplit('/').next().unwrap().to_string();
    let admin = std::env::var("MILL_TEST_PG_URL").unwrap();
    let (client, conn) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    client
        .batch_execute(&format!(
            "ALTER DATABASE {name} ALLOW_CONNECTIONS false;
             SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .await
        .unwrap();
    let outage = std::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(8)).await;
    client
        .batch_execute(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"))
        .await
        .unwrap();
    let outage = outage.elapsed();
    drop(client);
    let _ = task.await;
    // Light plays as soon as the database takes it.
    let s = loop {
        let id = light.command("action", json!({ "action": "a7" })).await;
        let answer = light.answer(&id).await;
        if answer["type"] == "ack" {
            break light.state_where(|s| s["version"] == answer["version"]).await;
        }
        assert_eq!(answer["code"], "internal", "{answer}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let charged = light_ms - s["clock"]["light"].as_i64().unwrap();
    let ran = ran.elapsed() - outage;
    assert!(
        charged <= ran.as_millis() as i64 + 1_000,
        "Light was charged {charged} ms for {} ms of running and {} ms of outage: {s}",
        ran.as_millis(),
        outage.as_millis()
    );
    server.stop().await;
}

/// A closed socket is an absence at once: Dark closes its socket (a close frame, then
/// the end of the stream) on Light's turn, and Light's clock stops from that moment,
/// not when the server next looks. Timed from the close, on the real clock.
#[tokio::test]
async fn the_present_side_is_paused_from_the_moment_the_opponents_socket_closes() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    for how in ["close frame", "end of stream"] {
        let (room, mut light, mut dark) = timed_table(&server, json!({"initial": 60, "increment": 0})).await;
        started(&mut light, &mut dark).await;
        step(&mut light, &mut dark, "f4").await;
        step(&mut dark, &mut light, "b4").await;
        let closed_at = mill_server::SystemClock.now_ms();
        match how {
            "close frame" => dark.close().await,
            _ => drop(dark),
        }
        let paused = light.state_where(|s| s["clock"]["running"].is_null()).await;
        let away_at = sql(
            &db,
            "SELECT max(at) FROM events WHERE room_id = $1 AND kind = 'away' AND seat = 'dark'",
            &[&room],
        )
        .await;
        assert!(
            away_at - closed_at < 500,
            "{how}: Dark's absence counted {} ms after its socket closed: {paused}",
            away_at - closed_at
        );
        light.close().await;
    }
    server.stop().await;
}
