//! Quick pairing over HTTP (`POST /api/pair`, `DELETE /api/pair/{seek}`, `GET
//! /api/seeks`): on one server (SQLite, or PostgreSQL under scripts/with-postgres), and on
//! two instances sharing one PostgreSQL database (skipped without MILL_TEST_PG_URL).
//! Nothing here is timed: waits are bounded only against hangs.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::SocketAddr;
use std::time::Duration;

use common::{Client, Server, http, request};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// A server whose seekers wait `wait` for an opponent, with no cap on connections from
/// the test's one address.
async fn server(dir: &tempfile::TempDir, wait: Duration) -> Server {
    Server::start_with(&dir.path().join("pair.db"), |c| {
        c.pair_wait = wait;
        c.max_conns_per_ip = 0;
    })
    .await
}

fn body(variant: &str, clock: Value, seeker: &str, seek: &str) -> String {
    json!({ "variant": variant, "clock": clock, "seeker": seeker, "seek": seek }).to_string()
}

/// A pair request, answered.
async fn pair(addr: SocketAddr, body: String) -> (u16, Value) {
    request(addr, "POST", "/api/pair", &body).await
}

/// A pair request left open (the connection closes when the stream is dropped).
async fn hold(addr: SocketAddr, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /api/pair HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// The lobby, once `f` holds of it.
async fn lobby_where(addr: SocketAddr, f: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    for _ in 0..500 {
        let (status, lobby) = http(addr, "GET", "/api/seeks").await;
        assert_eq!(status, 200, "{lobby}");
        let seeks = lobby["seeks"].as_array().unwrap().clone();
        if f(&seeks) {
            return seeks;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the lobby never came to the expected state");
}

fn id(prefix: &str, n: usize) -> String {
    format!("{prefix}-{n:08}")
}

#[tokio::test]
async fn two_seekers_share_one_new_ordinary_room_one_seat_each_and_play() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(&dir, Duration::from_secs(20)).await;
    let clock = json!({"initial": 180, "increment": 2});
    let first = tokio::spawn(pair(s.addr, body("six", clock.clone(), &id("a", 1), &id("s", 1))));
    // the first waits in the lobby, with no secret in sight
    let seeks = lobby_where(s.addr, |l| l.len() == 1).await;
    assert_eq!(seeks[0]["variant"], "six");
    assert_eq!(seeks[0]["clock"], clock);
    assert!(seeks[0]["waiting"].as_i64().unwrap() >= 0);
    let keys: BTreeMap<_, _> = seeks[0].as_object().unwrap().iter().collect();
    assert_eq!(
        keys.keys().map(|k| k.as_str()).collect::<Vec<_>>(),
        ["clock", "rated", "variant", "waiting"]
    );
    // An anonymous casual seek: no name, no rating.
    assert_eq!(seeks[0]["rated"], false);

    let (s2, b) = pair(s.addr, body("six", clock.clone(), &id("b", 1), &id("s", 2))).await;
    let (s1, a) = first.await.unwrap();
    assert_eq!((s1, s2), (201, 201), "{a} {b}");
    assert_eq!(
        (a["outcome"].as_str(), b["outcome"].as_str()),
        (Some("paired"), Some("paired"))
    );
    assert_eq!(a["room"], b["room"]);
    assert_ne!(a["seat"], b["seat"]);
    assert_ne!(a["key"], b["key"]);
    assert_eq!(a["protocol"], 1);
    assert!(
        a["invite"]
            .as_str()
            .unwrap()
            .ends_with(a["room"].as_str().unwrap())
    );
    lobby_where(s.addr, |l| l.is_empty()).await;

    let room = a["room"].as_str().unwrap();
    let (_, info) = http(s.addr, "GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["variant"], "six");
    assert_eq!(info["seats"]["light"]["taken"], true);
    assert_eq!(info["seats"]["dark"]["taken"], true);
    assert_eq!(info["clock"]["control"], clock, "{info}");

    // an ordinary room: both seats connect with their keys and play
    let (light, dark) = if a["seat"] == "light" { (&a, &b) } else { (&b, &a) };
    let mut light = Client::hello(s.addr, room, light["key"].as_str()).await;
    let mut dark = Client::hello(s.addr, room, dark["key"].as_str()).await;
    light
        .state_where(|st| st["seats"]["dark"]["online"] == true)
        .await;
    dark.state_where(|st| st["seats"]["light"]["online"] == true)
        .await;
    light.send(light.message("action", "l1", Some("d2"))).await;
    assert_eq!(light.answer("l1").await["type"], "ack");
    dark.state_where(|st| st["version"] == 1).await;
    dark.send(dark.message("action", "d1", Some("b4"))).await;
    assert_eq!(dark.answer("d1").await["type"], "ack");
    s.stop().await;
}

#[tokio::test]
async fn only_the_same_rules_and_clock_meet_and_the_rest_hear_no_opponent() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(&dir, Duration::from_millis(1500)).await;
    // {"initial": 60} is 60+0; the others differ by rules, options, clock or its absence.
    let asks = [
        ("nine", json!({"initial": 60})),
        ("nine", json!({"initial": 60, "increment": 0})),
        ("nine", json!({"initial": 60, "increment": 1})),
        ("nine+fly-0", json!({"initial": 60})),
        ("six", json!({"initial": 60})),
        ("nine", json!(null)),
        ("nine", json!({"days": 3})),
        ("nine", json!({"days": 2})),
    ];
    let tasks: Vec<_> = asks
        .iter()
        .enumerate()
        .map(|(n, (v, c))| tokio::spawn(pair(s.addr, body(v, c.clone(), &id("p", n), &id("s", n)))))
        .collect();
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    assert_eq!(answers[0].0, 201, "{:?}", answers[0]);
    assert_eq!(answers[1].0, 201, "{:?}", answers[1]);
    assert_eq!(answers[0].1["room"], answers[1].1["room"]);
    for (status, v) in &answers[2..] {
        assert_eq!(
            (*status, v["outcome"].as_str()),
            (200, Some("no-opponent")),
            "{v}"
        );
    }
    lobby_where(s.addr, |l| l.is_empty()).await;
    s.stop().await;
}

#[tokio::test]
async fn a_seeker_never_meets_itself_and_a_new_seek_withdraws_its_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(&dir, Duration::from_secs(20)).await;
    let untimed = json!(null);
    // two tabs of one browser: the same seeker id
    let old = tokio::spawn(pair(
        s.addr,
        body("nine", untimed.clone(), "browser-1", "tab-1-seek"),
    ));
    lobby_where(s.addr, |l| l.len() == 1).await;
    let new = tokio::spawn(pair(
        s.addr,
        body("nine", untimed.clone(), "browser-1", "tab-2-seek"),
    ));
    let (status, v) = old.await.unwrap();
    assert_eq!((status, v["code"].as_str()), (409, Some("seek-withdrawn")), "{v}");
    lobby_where(s.addr, |l| l.len() == 1).await;
    // another browser takes the newer seek
    let (status, other) = pair(s.addr, body("nine", untimed, "browser-2", "b2-seek-1")).await;
    let (status_new, v) = new.await.unwrap();
    assert_eq!((status, status_new), (201, 201), "{other} {v}");
    assert_eq!(other["room"], v["room"]);
    s.stop().await;
}

#[tokio::test]
async fn a_withdrawn_seeker_is_never_paired() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(&dir, Duration::from_millis(1500)).await;
    let clock = json!({"initial": 300, "increment": 3});

    // withdrawn by closing its request
    let held = hold(s.addr, &body("nine", clock.clone(), "closer-1", "closer-seek")).await;
    lobby_where(s.addr, |l| l.len() == 1).await;
    drop(held);
    lobby_where(s.addr, |l| l.is_empty()).await;

    // withdrawn by DELETE /api/pair/{seek}
    let cancelled = tokio::spawn(pair(
        s.addr,
        body("nine", clock.clone(), "cancel-1", "cancel-seek"),
    ));
    lobby_where(s.addr, |l| l.len() == 1).await;
    let (status, _) = http(s.addr, "DELETE", "/api/pair/cancel-seek").await;
    assert_eq!(status, 204);
    let (status, v) = cancelled.await.unwrap();
    assert_eq!((status, v["code"].as_str()), (409, Some("seek-withdrawn")), "{v}");
    // cancelling again, or what never was, changes nothing
    assert_eq!(http(s.addr, "DELETE", "/api/pair/cancel-seek").await.0, 204);
    assert_eq!(http(s.addr, "DELETE", "/api/pair/x").await.0, 204);

    // the next seeker of that pool finds nobody
    let (status, v) = pair(s.addr, body("nine", clock, "late-001", "late-seek")).await;
    assert_eq!((status, v["outcome"].as_str()), (200, Some("no-opponent")), "{v}");
    let rooms = common::sql(&dir.path().join("pair.db"), "SELECT count(*) FROM rooms", &[]).await;
    assert_eq!(rooms, 0, "no room was made");
    s.stop().await;
}

#[tokio::test]
async fn seeks_are_checked_and_throttled_like_room_creation() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start_with(&dir.path().join("pair.db"), |c| {
        c.pair_wait = Duration::from_millis(200);
        c.rooms_per_minute = 2;
    })
    .await;
    for (b, code) in [
        (json!({"variant": "ten"}), "bad-rules"),
        (json!({"clock": {"initial": 5}}), "bad-clock"),
        (json!({"seeker": "no spaces allowed"}), "bad-seek"),
        (json!({"seek": "short"}), "bad-seek"),
        (json!({"seeker": 12345678}), "bad-seek"),
    ] {
        let (status, v) = pair(s.addr, b.to_string()).await;
        assert_eq!((status, v["code"].as_str()), (400, Some(code)), "{b} {v}");
    }
    // a name or any other text is not a field of a seek: ignored, never stored or shown
    let (status, v) = pair(s.addr, json!({"name": "<b>hi</b>"}).to_string()).await;
    assert_eq!((status, v["outcome"].as_str()), (200, Some("no-opponent")), "{v}");
    let (status, _) = pair(s.addr, String::new()).await;
    assert_eq!(status, 200);
    let (status, v) = pair(s.addr, String::new()).await;
    assert_eq!((status, v["code"].as_str()), (429, Some("rate-limited")), "{v}");
    s.stop().await;
}

/// The seekers of `pools` (each `count` times), sent at once to `addrs` in turn; checks
/// that every pool's seekers are paired two by two into rooms of their own pool, nobody
/// twice, with exactly one seeker left (`no-opponent`) in each pool of odd count.
async fn crowd(addrs: &[SocketAddr], pools: &[(&str, Value, usize)]) {
    let mut tasks = Vec::new();
    let mut n = 0;
    for (p, (variant, clock, count)) in pools.iter().enumerate() {
        for _ in 0..*count {
            let addr = addrs[n % addrs.len()];
            let b = body(variant, clock.clone(), &id("crowd", n), &id("seek", n));
            tasks.push((p, tokio::spawn(pair(addr, b))));
            n += 1;
        }
    }
    let mut rooms: HashMap<String, Vec<(usize, String)>> = HashMap::new();
    let mut left = vec![0; pools.len()];
    for (p, t) in tasks {
        let (status, v) = t.await.unwrap();
        match status {
            201 => rooms
                .entry(v["room"].as_str().unwrap().to_string())
                .or_default()
                .push((p, v["seat"].as_str().unwrap().to_string())),
            200 if v["outcome"] == "no-opponent" => left[p] += 1,
            _ => panic!("{status} {v}"),
        }
    }
    for (room, seats) in &rooms {
        assert_eq!(seats.len(), 2, "room {room}: {seats:?}");
        assert_eq!(seats[0].0, seats[1].0, "one pool per room: {room}");
        let colours: HashSet<&str> = seats.iter().map(|s| s.1.as_str()).collect();
        assert_eq!(colours.len(), 2, "one seat each: {room}");
        let (variant, clock, _) = &pools[seats[0].0];
        let (_, info) = http(addrs[0], "GET", &format!("/api/rooms/{room}")).await;
        assert_eq!(info["variant"], *variant, "{info}");
        assert_eq!(info["clock"]["control"], *clock, "{info}");
    }
    for (p, (_, _, count)) in pools.iter().enumerate() {
        let paired = rooms.values().filter(|s| s[0].0 == p).count();
        assert_eq!(paired, count / 2, "pool {p}");
        assert_eq!(
            left[p],
            count % 2,
            "pool {p}: nobody left waiting while a match was there"
        );
    }
}

/// 200 seekers in five pools (one of odd size).
fn crowd_pools() -> Vec<(&'static str, Value, usize)> {
    vec![
        ("nine", json!(null), 50),
        ("nine", json!({"initial": 180, "increment": 2}), 40),
        ("six", json!({"initial": 180, "increment": 2}), 40),
        ("twelve", json!({"days": 3}), 40),
        ("three", json!({"initial": 60, "increment": 0}), 30),
    ]
}

#[tokio::test]
async fn two_hundred_seekers_at_once_make_exactly_the_right_rooms() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(&dir, Duration::from_secs(3)).await;
    let mut pools = crowd_pools();
    pools[4].2 = 29; // one left over
    crowd(&[s.addr], &pools).await;
    lobby_where(s.addr, |l| l.is_empty()).await;
    s.stop().await;
}

// Two instances on one PostgreSQL database.

async fn two_instances(
    dir: &std::path::Path,
    name: &str,
    wait: &str,
) -> [(tokio::process::Child, SocketAddr); 2] {
    std::fs::write(dir.join("index.html"), "<!doctype html><title>Mill</title>").unwrap();
    let url = common::db_arg(&dir.join(name)).await;
    let a = common::spawn_server(dir, &url, &["--pair-secs", wait]).await;
    let b = common::spawn_server(dir, &url, &["--pair-secs", wait]).await;
    [a, b]
}

#[tokio::test]
async fn seekers_on_two_instances_meet_and_withdraw_across_them() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let [(_a, a), (_b, b)] = two_instances(dir.path(), "pair-two", "1.5").await;
    let clock = json!({"initial": 300, "increment": 5});

    // one on each instance: one room
    let first = tokio::spawn(pair(a, body("nine", clock.clone(), "alice-01", "alice-seek-1")));
    // the lobby of either instance shows it
    lobby_where(b, |l| l.len() == 1).await;
    let (s2, y) = pair(b, body("nine", clock.clone(), "bob-0001", "bob-seek-1")).await;
    let (s1, x) = first.await.unwrap();
    assert_eq!((s1, s2), (201, 201), "{x} {y}");
    assert_eq!(x["room"], y["room"]);
    assert_ne!(x["seat"], y["seat"]);
    // both seats play through their own instances
    let room = x["room"].as_str().unwrap();
    let (light, dark) = if x["seat"] == "light" {
        ((a, &x), (b, &y))
    } else {
        ((b, &y), (a, &x))
    };
    let mut l = Client::hello(light.0, room, light.1["key"].as_str()).await;
    let mut d = Client::hello(dark.0, room, dark.1["key"].as_str()).await;
    l.state_where(|st| st["seats"]["dark"]["online"] == true).await;
    // A seat's presence stored by the other instance (a timed room's `away`/`back`) may
    // take the place the action was sent for: it is answered `stale`, and sent again.
    for attempt in 0.. {
        let id = format!("l1-{attempt}");
        l.send(l.message("action", &id, Some("d2"))).await;
        let answer = l.answer(&id).await;
        if answer["type"] == "error" && answer["code"] == "stale" && attempt < 5 {
            continue;
        }
        assert_eq!(answer["type"], "ack", "{answer}");
        break;
    }
    d.state_where(|st| st["version"] == 1).await;

    // cancelled on the other instance: withdrawn, never paired
    let cancelled = tokio::spawn(pair(a, body("nine", clock.clone(), "carol-01", "carol-seek-1")));
    lobby_where(b, |l| l.len() == 1).await;
    assert_eq!(http(b, "DELETE", "/api/pair/carol-seek-1").await.0, 204);
    let (status, v) = cancelled.await.unwrap();
    assert_eq!((status, v["code"].as_str()), (409, Some("seek-withdrawn")), "{v}");
    // closed on A: withdrawn everywhere
    let held = hold(a, &body("nine", clock.clone(), "dave-001", "dave-seek-1")).await;
    lobby_where(b, |l| l.len() == 1).await;
    drop(held);
    lobby_where(b, |l| l.is_empty()).await;
    let (status, v) = pair(b, body("nine", clock, "erin-001", "erin-seek-1")).await;
    assert_eq!((status, v["outcome"].as_str()), (200, Some("no-opponent")), "{v}");
}

#[tokio::test]
async fn two_hundred_seekers_over_two_instances_make_exactly_the_right_rooms() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let [(_a, a), (_b, b)] = two_instances(dir.path(), "pair-crowd", "3").await;
    let mut pools = crowd_pools();
    pools[1].2 = 39; // one left over
    crowd(&[a, b], &pools).await;
    lobby_where(a, |l| l.is_empty()).await;
}

/// One seeker, two pools at once, on two instances: the newer seek withdraws the older,
/// so the seeker never has two open seeks (and cannot be claimed twice). Repeated; the
/// two seeks of a try reach the two instances together. (Each pool used to be locked
/// on its own, and both seeks mostly stayed open.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeker_in_two_pools_at_once_keeps_one_open_seek() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let [(_a, a), (_b, b)] = two_instances(dir.path(), "pair-two-pools", "20").await;
    let clock = json!({"initial": 180, "increment": 2});
    let mut both_open = 0;
    for n in 0..20 {
        let seeker = id("two-pools", n);
        let (first, second) = (id("nine", n), id("six", n));
        let mut nine = tokio::spawn(pair(a, body("nine", clock.clone(), &seeker, &first)));
        let mut six = tokio::spawn(pair(b, body("six", clock.clone(), &seeker, &second)));
        // The newer seek withdraws the older at once: its request is answered
        // `seek-withdrawn` while the other waits. Both left open answer nothing.
        let answered = tokio::time::timeout(Duration::from_secs(5), async {
            tokio::select! {
                r = &mut nine => (true, r.unwrap()),
                r = &mut six => (false, r.unwrap()),
            }
        })
        .await;
        for seek in [&first, &second] {
            assert_eq!(http(a, "DELETE", &format!("/api/pair/{seek}")).await.0, 204);
        }
        match answered {
            Err(_) => {
                both_open += 1;
                nine.await.unwrap();
                six.await.unwrap();
            }
            Ok((nine_first, (status, v))) => {
                assert_eq!((status, v["code"].as_str()), (409, Some("seek-withdrawn")), "{v}");
                let (status, v) = if nine_first { six.await } else { nine.await }.unwrap();
                assert_eq!((status, v["code"].as_str()), (409, Some("seek-withdrawn")), "{v}");
            }
        }
    }
    assert_eq!(both_open, 0, "tries in which both seeks stayed open");
}

/// A seek id is its seeker's own: another seeker sending the same id (in another pool)
/// gets 409 `seek-taken`, and the first seek is untouched: still open, and paired
/// with the next arrival as usual. (It used to answer 500 `internal` and withdraw the
/// first seeker's seek.)
#[tokio::test]
async fn a_seek_id_reused_by_another_seeker_is_refused_and_touches_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(&dir, Duration::from_secs(20)).await;
    let clock = json!({"initial": 180, "increment": 2});
    let first = tokio::spawn(pair(
        s.addr,
        body("nine", clock.clone(), "alice-01", "shared-seek"),
    ));
    lobby_where(s.addr, |l| l.len() == 1).await;
    let (status, v) = pair(s.addr, body("six", clock.clone(), "mallory1", "shared-seek")).await;
    assert_eq!((status, v["code"].as_str()), (409, Some("seek-taken")), "{v}");
    // Also in the same pool, and after a moment: nothing was stored, nothing withdrawn.
    let (status, v) = pair(s.addr, body("nine", clock.clone(), "mallory1", "shared-seek")).await;
    assert_eq!((status, v["code"].as_str()), (409, Some("seek-taken")), "{v}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let seeks = lobby_where(s.addr, |_| true).await;
    assert_eq!(seeks.len(), 1, "the first seek is still open: {seeks:?}");
    assert_eq!(seeks[0]["variant"], "nine");
    let (status, y) = pair(s.addr, body("nine", clock, "bob-0001", "bob-seek-1")).await;
    let (s1, x) = first.await.unwrap();
    assert_eq!((s1, status), (201, 201), "{x} {y}");
    assert_eq!(x["room"], y["room"]);
    s.stop().await;
}

/// A seek lives only as long as its waiting request: an instance killed with SIGKILL
/// while its seeker waits leaves a seek nobody will answer, and an arrival on the
/// other instance right after must not be paired with it (nor the lobby list it).
/// Repeated with a new instance each time. (Such seeks used to be paired for up to
/// ~30 s, until the dead instance's heartbeat was found old.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seeks_of_a_killed_instance_stop_being_pairable_at_once() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let [(a, a_addr), (_b, b)] = two_instances(dir.path(), "pair-killed", "1").await;
    let url = common::db_arg(&dir.path().join("pair-killed")).await;
    let (mut a, mut a_addr) = (a, a_addr);
    for n in 0..3 {
        let held = hold(
            a_addr,
            &body("nine", json!(null), &id("doomed", n), &id("doomed-seek", n)),
        )
        .await;
        lobby_where(b, |l| l.len() == 1).await;
        common::sigkill(&mut a).await;
        drop(held);
        // The database sees the dead process's sockets close within moments.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (status, v) = pair(
            b,
            body("nine", json!(null), &id("arrival", n), &id("arrival-seek", n)),
        )
        .await;
        assert_ne!(status, 201, "paired with a dead instance's seek (try {n}): {v}");
        assert!(v.get("room").is_none(), "{v}");
        lobby_where(b, |l| l.is_empty()).await;
        (a, a_addr) = common::spawn_server(dir.path(), &url, &["--pair-secs", "1"]).await;
    }
}

/// A pair request left open from `from` (a loopback address of the test's choosing).
async fn hold_from(addr: SocketAddr, from: std::net::Ipv4Addr, body: &str) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let request = format!(
        "POST /api/pair HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// The answer to a request sent on `stream` (its status and body).
async fn answer(mut stream: TcpStream) -> (u16, Value) {
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .expect("an answer")
            .unwrap();
        bytes.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&bytes);
        if let Some(at) = text.find("\r\n\r\n") {
            if let (Some(start), Some(end)) = (text[at..].find('{'), text.rfind('}')) {
                let status = text[9..12].parse().unwrap();
                return (status, serde_json::from_str(&text[at + start..=end]).unwrap());
            }
        }
        assert!(n > 0, "closed without an answer: {text}");
    }
}

#[tokio::test]
async fn four_addresses_flooding_the_lobby_within_default_limits_hide_no_honest_seek() {
    let dir = tempfile::tempdir().unwrap();
    // Every limit as shipped.
    let s = Server::start_with(&dir.path().join("flood.db"), |_| {}).await;
    let mut held = Vec::new();
    let mut refused = 0;
    for host in 2..6u8 {
        let from = std::net::Ipv4Addr::new(127, 0, 0, host);
        // As many as the address's allowance of seeks a minute lets through, each in a
        // pool of its own so that nobody pairs.
        for n in 0..30u32 {
            let clock = json!({"initial": 60 + n, "increment": host});
            let stream = hold_from(
                s.addr,
                from,
                &body(
                    "nine",
                    clock,
                    &id(&format!("f{host}"), n as usize),
                    &id(&format!("s{host}"), n as usize),
                ),
            )
            .await;
            held.push(stream);
        }
    }
    // Those past the address's bound are answered at once: 429 too-many-seeks. The 120
    // requests were sent back to back; let the server answer them all before looking
    // (a busy database may take longer than the look's short wait for the last ones).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut open = Vec::new();
    for stream in held {
        match tokio::time::timeout(Duration::from_millis(150), answer_peek(&stream)).await {
            Ok(true) => {
                let (status, reply) = answer(stream).await;
                assert_eq!(
                    (status, reply["code"].as_str()),
                    (429, Some("too-many-seeks")),
                    "{reply}"
                );
                refused += 1;
            }
            _ => open.push(stream),
        }
    }
    assert_eq!(refused, 4 * 20, "each address holds 10");
    let honest = hold_from(
        s.addr,
        std::net::Ipv4Addr::new(127, 0, 0, 9),
        &body(
            "six",
            json!({"initial": 300, "increment": 5}),
            &id("honest", 1),
            &id("hs", 1),
        ),
    )
    .await;
    let lobby = lobby_where(s.addr, |l| l.iter().any(|x| x["variant"] == "six")).await;
    assert_eq!(lobby.len(), 41, "the four addresses' 40 and the honest one");
    drop((open, honest));
}

/// Whether an answer has begun to arrive on `stream`.
async fn answer_peek(stream: &TcpStream) -> bool {
    let mut buf = [0u8; 1];
    stream.peek(&mut buf).await.map(|n| n > 0).unwrap_or(false)
}
