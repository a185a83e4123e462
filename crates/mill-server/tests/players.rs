//! The player's record (docs/PROTOCOL.md, "Players"), on SQLite, or on PostgreSQL under
//! scripts/with-postgres: `GET /api/players/{name}/games` (newest first, paged), the
//! results in `GET /api/players/{name}`, kept past the purge of the rooms; a deleted
//! account's rounds shown under the neutral name.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use common::{Answer, Server, call_as, sql};
use serde_json::{Value, json};

struct Site {
    server: Server,
    db: PathBuf,
    _dir: tempfile::TempDir,
}

async fn site() -> Site {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("players.db");
    let server = Server::start_with(&db, |c| c.max_conns_per_ip = 0).await;
    Site {
        server,
        db,
        _dir: dir,
    }
}

impl Site {
    async fn get(&self, path: &str) -> Answer {
        call_as(self.server.addr, "GET", path, None, "").await
    }

    async fn sign_up(&self, name: &str) -> String {
        let a = call_as(
            self.server.addr,
            "POST",
            "/api/account",
            None,
            &json!({ "name": name, "password": "a fine passphrase" }).to_string(),
        )
        .await;
        assert_eq!(a.status, 201, "{a:?}");
        a.token.expect("a session cookie")
    }

    fn path(&self) -> &Path {
        &self.db
    }

    /// `name`'s record, all of it (`limit` 100).
    async fn games(&self, name: &str) -> Vec<Value> {
        let a = self.get(&format!("/api/players/{name}/games?limit=100")).await;
        assert_eq!(a.status, 200, "{a:?}");
        assert_eq!(a.body["next"], Value::Null);
        a.body["games"].as_array().unwrap().clone()
    }
}

/// Two players (signed in when a token is given) paired, rated or not, their seats
/// connected: (room, light client, dark client, light's token, dark's token).
async fn paired(
    site: &Site,
    a: Option<&str>,
    b: Option<&str>,
    rated: bool,
) -> (
    String,
    common::Client,
    common::Client,
    Option<String>,
    Option<String>,
) {
    let addr = site.server.addr;
    let ask = |seeker: &str| {
        json!({ "variant": "nine", "clock": { "initial": 180, "increment": 2 }, "rated": rated,
                "seeker": format!("seeker-{seeker}") })
        .to_string()
    };
    let (ta, tb) = (a.map(str::to_string), b.map(str::to_string));
    let (ta2, ask_a, ask_b) = (ta.clone(), ask("a"), ask("b"));
    let first = tokio::spawn(async move { call_as(addr, "POST", "/api/pair", ta2.as_deref(), &ask_a).await });
    let second = call_as(addr, "POST", "/api/pair", tb.as_deref(), &ask_b).await;
    let first = first.await.unwrap();
    assert_eq!((first.status, second.status), (201, 201), "{first:?} {second:?}");
    let room = first.body["room"].as_str().unwrap().to_string();
    let (light, dark, tl, td) = if first.body["seat"] == "light" {
        (&first, &second, ta, tb)
    } else {
        (&second, &first, tb, ta)
    };
    let mut l = common::Client::hello(addr, &room, light.body["key"].as_str()).await;
    let mut d = common::Client::hello(addr, &room, dark.body["key"].as_str()).await;
    l.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    d.state_where(|s| s["seats"]["light"]["online"] == true).await;
    (room, l, d, tl, td)
}

/// Light plays one turn and Dark resigns: Light wins round `round`. The states that
/// tell each seat the result.
async fn light_wins(light: &mut common::Client, dark: &mut common::Client, round: u64) -> (Value, Value) {
    light
        .state_where(|s| s["round"] == round && s["version"] == 0)
        .await;
    light.play("d2").await;
    dark.state_where(|s| s["round"] == round && s["version"] == 1)
        .await;
    dark.ok("resign").await;
    let l = light
        .state_where(|s| s["round"] == round && !s["result"].is_null())
        .await;
    let d = dark
        .state_where(|s| s["round"] == round && !s["result"].is_null())
        .await;
    (l, d)
}

/// A seat of a state: its name, rating, provisional flag and change (`null` if absent).
fn card(state: &Value, seat: &str) -> (Value, Value, Value, Value) {
    let s = &state["seats"][seat];
    (
        s["name"].clone(),
        s["rating"].clone(),
        s["provisional"].clone(),
        s["change"].clone(),
    )
}

/// The name a token signs in.
async fn name_of(site: &Site, token: &str) -> String {
    let a = call_as(site.server.addr, "GET", "/api/me", Some(token), "").await;
    a.body["name"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_record_keeps_rated_and_casual_rounds_past_the_purge() {
    let site = site().await;
    let (ta, tb) = (site.sign_up("kate").await, site.sign_up("liam").await);
    let (room, mut light, mut dark, tl, td) = paired(&site, Some(&ta), Some(&tb), true).await;
    let (winner, loser) = (
        name_of(&site, tl.as_deref().unwrap()).await,
        name_of(&site, td.as_deref().unwrap()).await,
    );
    // The state names both accounts, with their (starting, provisional) blitz ratings,
    // and says the room is rated; no change before a round has ended.
    let first = light.state_where(|s| s["version"] == 0).await;
    assert_eq!(first["rated"], true, "{first}");
    assert_eq!(
        card(&first, "light"),
        (json!(winner), json!(1500), json!(true), Value::Null)
    );
    assert_eq!(
        card(&first, "dark"),
        (json!(loser), json!(1500), json!(true), Value::Null)
    );
    let (ended_l, ended_d) = light_wins(&mut light, &mut dark, 1).await;
    // The state that tells the result tells each seat's change and new rating, the
    // same on both seats.
    let (w, l) = mill_server::ratings::Rating::after_round(
        Default::default(),
        Default::default(),
        mill_server::ratings::Score::Win,
    );
    let (wr, lr) = (w.rating.round() as i64, l.rating.round() as i64);
    assert!(wr - 1500 > 0 && lr - 1500 < 0);
    for ended in [&ended_l, &ended_d] {
        assert_eq!(
            card(ended, "light"),
            (json!(winner), json!(wr), json!(true), json!(wr - 1500)),
            "{ended}"
        );
        assert_eq!(
            card(ended, "dark"),
            (json!(loser), json!(lr), json!(true), json!(lr - 1500)),
            "{ended}"
        );
    }

    let won = site.games(&winner).await;
    assert_eq!(won.len(), 1, "{won:?}");
    let g = &won[0];
    assert_eq!(g["opponent"], loser.as_str());
    assert_eq!(g["result"], "win");
    assert_eq!(g["reason"], "resignation");
    assert_eq!(g["rules"], "nine");
    assert_eq!(g["color"], "light");
    assert_eq!(g["clock"], json!({ "initial": 180, "increment": 2 }));
    assert_eq!(g["rated"], true);
    assert_eq!(g["rating"]["speed"], "blitz");
    assert_eq!(g["rating"]["before"], 1500.0);
    let (win, loss) = mill_server::ratings::Rating::after_round(
        Default::default(),
        Default::default(),
        mill_server::ratings::Score::Win,
    );
    assert!(
        (g["rating"]["after"].as_f64().unwrap() - win.rating).abs() < 0.06,
        "{g}"
    );
    assert_eq!(g["rating"]["change"], (win.rating - 1500.0).round());
    assert_eq!(g["review"], format!("/r/{room}/review/1"));
    let lost = site.games(&loser).await;
    assert_eq!(lost.len(), 1);
    assert_eq!(
        (&lost[0]["opponent"], &lost[0]["result"]),
        (&json!(winner), &json!("loss"))
    );
    assert!((lost[0]["rating"]["after"].as_f64().unwrap() - loss.rating).abs() < 0.06);
    assert_eq!(lost[0]["color"], "dark");

    // A new round in the same (rated) room: recorded and rated once more.
    light.ok("new-round").await;
    dark.ok("new-round").await;
    // The last round's change is not the new round's.
    let fresh = dark.state_where(|s| s["round"] == 2 && s["version"] == 0).await;
    assert_eq!(
        card(&fresh, "light"),
        (json!(winner), json!(wr), json!(true), Value::Null)
    );
    let (ended, _) = light_wins(&mut light, &mut dark, 2).await;
    assert!(ended["seats"]["light"]["change"].as_i64().unwrap() > 0, "{ended}");
    assert!(ended["seats"]["dark"]["change"].as_i64().unwrap() < 0, "{ended}");
    let won = site.games(&winner).await;
    assert_eq!(won.len(), 2);
    assert_eq!(won[0]["review"], format!("/r/{room}/review/2"));
    assert_eq!(won[0]["rating"]["before"], won[1]["rating"]["after"]);

    // A casual round against an anonymous player.
    let (casual, mut light, mut dark, tl, _) = paired(&site, Some(&ta), None, false).await;
    let kate_light = tl.is_some();
    let (ended, _) = light_wins(&mut light, &mut dark, 1).await;
    // A casual room: not rated, no change; kate named with her blitz rating, the
    // anonymous seat without a name.
    let (kate_seat, anonymous) = if kate_light {
        ("light", "dark")
    } else {
        ("dark", "light")
    };
    assert_eq!(ended["rated"], false, "{ended}");
    let blitz = &site.get("/api/players/kate").await.body["ratings"]["nine"]["blitz"];
    assert_eq!(
        card(&ended, kate_seat),
        (
            json!("kate"),
            json!(blitz["rating"].as_f64().unwrap().round() as i64),
            blitz["provisional"].clone(),
            Value::Null
        ),
        "{ended}"
    );
    assert_eq!(
        card(&ended, anonymous),
        (Value::Null, Value::Null, Value::Null, Value::Null)
    );
    let kate = site.games("kate").await;
    assert_eq!(kate.len(), 3, "{kate:?}");
    let g = &kate[0];
    assert_eq!(g["opponent"], Value::Null, "{g}");
    assert_eq!(g["rated"], false);
    assert_eq!(g["rating"], Value::Null);
    assert_eq!(g["result"], if kate_light { "win" } else { "loss" });
    assert_eq!(g["review"], format!("/r/{casual}/review/1"));

    // The results count every round of the record.
    let p = site.get("/api/players/KATE").await;
    let kate_wins = if winner == "kate" { 2 } else { 0 } + u64::from(kate_light);
    assert_eq!(
        p.body["results"],
        json!({ "win": kate_wins, "draw": 0, "loss": 3 - kate_wins }),
        "{p:?}"
    );

    // The purge takes the rooms (and their seats' accounts and rated rounds) but not the
    // record; the review link is null once the room is gone.
    let ratings_before = site.get("/api/players/kate").await.body["ratings"].clone();
    for r in [&room, &casual] {
        assert_eq!(sql(site.path(), "DELETE FROM rooms WHERE id = $1", &[r]).await, 1);
    }
    assert_eq!(
        sql(site.path(), "SELECT count(*) FROM rated_rounds", &[]).await,
        0
    );
    let after = site.games("kate").await;
    assert_eq!(after.len(), 3);
    for (a, b) in after.iter().zip(&kate) {
        assert_eq!(a["review"], Value::Null, "{a}");
        let (mut a, mut b) = (a.clone(), b.clone());
        a["review"] = Value::Null;
        b["review"] = Value::Null;
        assert_eq!(a, b);
    }
    let p = site.get("/api/players/kate").await;
    assert_eq!(p.body["results"]["win"], kate_wins);
    assert_eq!(p.body["ratings"], ratings_before);
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_game_list_is_paged_newest_first() {
    let site = site().await;
    let ta = site.sign_up("olga").await;
    let (_, mut light, mut dark, tl, _) = paired(&site, Some(&ta), None, false).await;
    for round in 1..=5 {
        if round > 1 {
            light.ok("new-round").await;
            dark.ok("new-round").await;
        }
        light_wins(&mut light, &mut dark, round).await;
    }
    let mut seen = Vec::new();
    let mut path = "/api/players/olga/games?limit=2".to_string();
    loop {
        let a = site.get(&path).await;
        assert_eq!(a.status, 200, "{a:?}");
        let games = a.body["games"].as_array().unwrap();
        assert!(games.len() <= 2);
        seen.extend(games.iter().map(|g| g["round"].as_u64().unwrap()));
        match a.body["next"].as_str() {
            Some(next) => path = format!("/api/players/olga/games?limit=2&before={next}"),
            None => break,
        }
    }
    assert_eq!(seen, [5, 4, 3, 2, 1]);
    let expected = if tl.is_some() { "win" } else { "loss" };
    assert!(site.games("olga").await.iter().all(|g| g["result"] == expected));
    // The default page and bad queries.
    assert_eq!(
        site.get("/api/players/olga/games").await.body["games"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    for bad in [
        "limit=0",
        "limit=101",
        "limit=x",
        "before=-1",
        "before=",
        "page=2",
    ] {
        let a = site.get(&format!("/api/players/olga/games?{bad}")).await;
        assert_eq!(
            (a.status, a.body["code"].as_str()),
            (400, Some("malformed")),
            "{bad}: {a:?}"
        );
    }
    let a = site.get("/api/players/nobody/games").await;
    assert_eq!((a.status, a.body["code"].as_str()), (404, Some("unknown-player")));
    // A player with no rounds.
    site.sign_up("pete").await;
    assert_eq!(
        site.get("/api/players/pete").await.body["results"],
        json!({ "win": 0, "draw": 0, "loss": 0 })
    );
    assert_eq!(site.games("pete").await, Vec::<Value>::new());
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_accounts_rounds_stay_under_the_neutral_name() {
    let site = site().await;
    let (ta, tb) = (site.sign_up("rita").await, site.sign_up("sam").await);
    let (_, mut light, mut dark, _, _) = paired(&site, Some(&ta), Some(&tb), true).await;
    light_wins(&mut light, &mut dark, 1).await;
    let before = site.games("sam").await;
    assert_eq!(before[0]["opponent"], "rita");

    let a = call_as(
        site.server.addr,
        "DELETE",
        "/api/account",
        Some(&ta),
        &json!({ "password": "a fine passphrase" }).to_string(),
    )
    .await;
    assert_eq!(a.status, 204, "{a:?}");
    assert_eq!(site.get("/api/players/rita/games").await.status, 404);
    // Sam's round stays, rated, under the neutral name; the name taken again by someone
    // else does not take the old rounds with it.
    site.sign_up("rita").await;
    let after = site.games("sam").await;
    assert_eq!(after.len(), 1);
    assert_eq!(after[0]["opponent"], "deleted");
    assert_eq!(after[0]["rated"], true);
    assert_eq!(after[0]["rating"], before[0]["rating"]);
    assert_eq!(site.games("rita").await, Vec::<Value>::new());
    assert_eq!(
        sql(site.path(), "SELECT count(*) FROM player_games", &[]).await,
        1
    );
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_leaderboard_lists_recent_established_ratings_best_first() {
    let site = site().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let day = 24 * 3600 * 1000;
    // (name, rules, speed, rating, rd, last rated round)
    let ratings = [
        ("tina", "nine", "blitz", 1700.0, 60.0, now - day),
        ("uma", "nine", "blitz", 1600.0, 109.9, now - 29 * day),
        ("vic", "nine", "blitz", 1800.0, 110.0, now), // provisional
        ("walt", "nine", "blitz", 1900.0, 60.0, now - 31 * day), // not seen lately
        ("xena", "six", "blitz", 2000.0, 60.0, now),  // other rules
        ("yan", "nine", "rapid", 2000.0, 60.0, now),  // other speed
        ("zoe", "nine", "blitz", 1600.0, 80.0, now),  // a tie with uma, by name after her
    ];
    for (name, rules, speed, rating, rd, at) in ratings {
        site.sign_up(name).await;
        let n = sql(
            site.path(),
            &format!(
                "INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
                 SELECT id, '{rules}', '{speed}', {rating}, {rd}, 0.06, 30, {at} FROM accounts WHERE name_key = '{name}'"
            ),
            &[],
        )
        .await;
        assert_eq!(n, 1);
    }
    let a = site.get("/api/players?rules=nine&speed=blitz").await;
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(
        a.body,
        json!({ "rules": "nine", "speed": "blitz", "players": [
            { "rank": 1, "name": "tina", "rating": 1700.0, "rd": 60.0, "games": 30 },
            { "rank": 2, "name": "uma", "rating": 1600.0, "rd": 109.9, "games": 30 },
            { "rank": 3, "name": "zoe", "rating": 1600.0, "rd": 80.0, "games": 30 },
        ] })
    );
    let a = site.get("/api/players?speed=blitz&rules=six").await;
    assert_eq!(a.body["players"][0]["name"], "xena");
    let a = site.get("/api/players?rules=twelve&speed=blitz").await;
    assert_eq!(a.body["players"], json!([]));
    for bad in [
        "",
        "rules=nine",
        "speed=blitz",
        "rules=nine&speed=fast",
        "rules=ni%20ne&speed=blitz",
        "rules=nine&speed=blitz&page=2",
    ] {
        let a = site.get(&format!("/api/players?{bad}")).await;
        assert_eq!(
            (a.status, a.body["code"].as_str()),
            (400, Some("malformed")),
            "{bad}: {a:?}"
        );
    }
    site.server.stop().await;
}

/// Both accounts' `nine`/`blitz` rated games and ratings, and the lengths of their
/// records, as the server answers them: (light games, dark games, light rating, dark
/// rating, light's record, dark's record).
async fn rated_facts(addr: SocketAddr, tl: &str, td: &str) -> (u64, u64, f64, f64, usize, usize) {
    let me = |t: String| async move { call_as(addr, "GET", "/api/me", Some(&t), "").await.body };
    let (l, d) = (me(tl.to_string()).await, me(td.to_string()).await);
    let facts = |v: &Value| {
        let r = &v["ratings"]["nine"]["blitz"];
        (
            r["games"].as_u64().unwrap_or(0),
            r["rating"].as_f64().unwrap_or(0.0),
        )
    };
    let record = |v: Value| async move {
        let path = format!("/api/players/{}/games", v["name"].as_str().unwrap());
        let a = call_as(addr, "GET", &path, None, "").await;
        a.body["games"].as_array().map_or(0, Vec::len)
    };
    let ((lg, lr), (dg, dr)) = (facts(&l), facts(&d));
    (lg, dg, lr, dr, record(l).await, record(d).await)
}

/// The real server killed with SIGKILL right after a rated round's result is
/// acknowledged: after the restart both ratings have changed exactly once, the record
/// has the round once, and the room replayed (and restarted again) changes nothing more.
#[tokio::test(flavor = "multi_thread")]
async fn a_rated_result_survives_a_sigkill_and_rates_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kill.db");
    let db = common::db_arg(&path).await;
    let (mut child, addr) = common::spawn_server(dir.path(), &db, &[]).await;
    let site_call = |addr: SocketAddr, name: &'static str| async move {
        let a = call_as(
            addr,
            "POST",
            "/api/account",
            None,
            &json!({ "name": name, "password": "a fine passphrase" }).to_string(),
        )
        .await;
        assert_eq!(a.status, 201, "{a:?}");
        a.token.unwrap()
    };
    let (ta, tb) = (site_call(addr, "kira").await, site_call(addr, "leon").await);
    let ask = |s: &str| {
        json!({ "variant": "nine", "clock": { "initial": 180, "increment": 2 }, "rated": true, "seeker": s })
            .to_string()
    };
    let (ta2, ask_a) = (ta.clone(), ask("seeker-kira"));
    let first = tokio::spawn(async move { call_as(addr, "POST", "/api/pair", Some(&ta2), &ask_a).await });
    let second = call_as(addr, "POST", "/api/pair", Some(&tb), &ask("seeker-leon")).await;
    let first = first.await.unwrap();
    assert_eq!((first.status, second.status), (201, 201));
    let room = first.body["room"].as_str().unwrap().to_string();
    let (light, dark, tl, td) = if first.body["seat"] == "light" {
        (&first, &second, ta, tb)
    } else {
        (&second, &first, tb, ta)
    };
    let mut l = common::Client::hello(addr, &room, light.body["key"].as_str()).await;
    let mut d = common::Client::hello(addr, &room, dark.body["key"].as_str()).await;
    l.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    d.state_where(|s| s["seats"]["light"]["online"] == true).await;
    l.play("d2").await;
    d.state_where(|s| s["version"] == 1).await;
    // The resignation's ack says it is stored: kill at once.
    d.ok("resign").await;
    common::sigkill(&mut child).await;

    let (mut child, addr) = common::spawn_server(dir.path(), &db, &[]).await;
    let (win, loss) = mill_server::ratings::Rating::after_round(
        Default::default(),
        Default::default(),
        mill_server::ratings::Score::Win,
    );
    let facts = rated_facts(addr, &tl, &td).await;
    assert_eq!((facts.0, facts.1, facts.4, facts.5), (1, 1, 1, 1), "{facts:?}");
    assert!(
        (facts.2 - win.rating).abs() < 0.06 && (facts.3 - loss.rating).abs() < 0.06,
        "{facts:?}"
    );
    // The room replays with its result; both seats come back; nothing is rated again.
    let mut l = common::Client::hello(addr, &room, light.body["key"].as_str()).await;
    l.state_where(|s| !s["result"].is_null()).await;
    drop(l);
    common::sigkill(&mut child).await;
    let (_child, addr) = common::spawn_server(dir.path(), &db, &[]).await;
    assert_eq!(rated_facts(addr, &tl, &td).await, facts);
}

/// A rated round's two resignations racing: Light's through one instance and Dark's
/// through another (on PostgreSQL, two servers on one database; on SQLite, one server).
/// Whichever the database keeps ends the round; both ratings change exactly once, by
/// that result, and the record holds it once. Several rounds, fresh accounts each.
#[tokio::test(flavor = "multi_thread")]
async fn racing_results_on_two_instances_rate_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.db");
    let db = common::db_arg(&path).await;
    let (_a, addr_a) = common::spawn_server(dir.path(), &db, &[]).await;
    let second = if common::on_postgres() {
        Some(common::spawn_server(dir.path(), &db, &[]).await)
    } else {
        None
    };
    let addr_b = second.as_ref().map_or(addr_a, |(_, addr)| *addr);
    let (win, loss) = mill_server::ratings::Rating::after_round(
        Default::default(),
        Default::default(),
        mill_server::ratings::Score::Win,
    );
    for n in 0..4 {
        let sign_up = |name: String| async move {
            let a = call_as(
                addr_a,
                "POST",
                "/api/account",
                None,
                &json!({ "name": name, "password": "a fine passphrase" }).to_string(),
            )
            .await;
            assert_eq!(a.status, 201, "{a:?}");
            a.token.unwrap()
        };
        let (ta, tb) = (
            sign_up(format!("racer{n}a")).await,
            sign_up(format!("racer{n}b")).await,
        );
        let ask = |s: String| {
            json!({ "variant": "nine", "clock": { "initial": 180, "increment": 2 }, "rated": true, "seeker": s })
                .to_string()
        };
        let (ta2, ask_a) = (ta.clone(), ask(format!("seeker-race{n}a")));
        let first =
            tokio::spawn(async move { call_as(addr_a, "POST", "/api/pair", Some(&ta2), &ask_a).await });
        let other = call_as(
            addr_a,
            "POST",
            "/api/pair",
            Some(&tb),
            &ask(format!("seeker-race{n}b")),
        )
        .await;
        let first = first.await.unwrap();
        assert_eq!((first.status, other.status), (201, 201));
        let room = first.body["room"].as_str().unwrap().to_string();
        let (light, dark, tl, td) = if first.body["seat"] == "light" {
            (&first, &other, ta, tb)
        } else {
            (&other, &first, tb, ta)
        };
        let mut l = common::Client::hello(addr_a, &room, light.body["key"].as_str()).await;
        let mut d = common::Client::hello(addr_a, &room, dark.body["key"].as_str()).await;
        l.state_where(|s| s["seats"]["dark"]["online"] == true).await;
        d.state_where(|s| s["seats"]["light"]["online"] == true).await;
        l.play("d2").await;
        d.state_where(|s| s["version"] == 1).await;
        // Dark's seat moves to the other instance (its new socket replaces the first).
        let mut d = common::Client::hello(addr_b, &room, dark.body["key"].as_str()).await;
        d.state_where(|s| s["version"] == 1 && s["seats"]["light"]["online"] == true)
            .await;
        // Both at version 1: both resign at once.
        let (il, id) = (l.fresh_id(), d.fresh_id());
        let msg = |id: &str| json!({ "type": "resign", "id": id, "round": 1, "version": 1 });
        let (ml, md) = (msg(&il), msg(&id));
        tokio::join!(l.send(ml), d.send(md));
        let ended = l.state_where(|s| !s["result"].is_null()).await;
        d.state_where(|s| !s["result"].is_null()).await;
        let light_won = ended["result"]["winner"] == "light";
        // Each instance's state tells both changes, whichever stored the result (the
        // other reads them with the news).
        let (wc, lc) = (
            win.rating.round() as i64 - 1500,
            loss.rating.round() as i64 - 1500,
        );
        let (lchange, dchange) = if light_won { (wc, lc) } else { (lc, wc) };
        for c in [&mut l, &mut d] {
            let s = c
                .state_where(|s| !s["result"].is_null() && !s["seats"]["dark"]["change"].is_null())
                .await;
            assert_eq!(s["rated"], true, "{s}");
            assert_eq!(s["seats"]["light"]["change"], lchange, "{s}");
            assert_eq!(s["seats"]["dark"]["change"], dchange, "{s}");
            assert_eq!(s["seats"]["light"]["rating"], 1500 + lchange, "{s}");
        }
        let facts = rated_facts(addr_a, &tl, &td).await;
        assert_eq!((facts.0, facts.1, facts.4, facts.5), (1, 1, 1, 1), "{facts:?}");
        let (lr, dr) = if light_won {
            (win.rating, loss.rating)
        } else {
            (loss.rating, win.rating)
        };
        assert!(
            (facts.2 - lr).abs() < 0.06 && (facts.3 - dr).abs() < 0.06,
            "{facts:?} {ended}"
        );
    }
}

/// The lobby (`GET /api/seeks`) names a signed-in seeker with its rating for the seek's
/// rules and speed, and says whether the seek is rated; an anonymous seeker stays
/// anonymous.
#[tokio::test(flavor = "multi_thread")]
async fn the_lobby_names_signed_in_seekers_and_rated_seeks() {
    let site = site().await;
    let token = site.sign_up("nora").await;
    let addr = site.server.addr;
    let rated = tokio::spawn(async move {
        let ask =
            json!({ "variant": "nine", "clock": { "initial": 60 }, "rated": true, "seeker": "seeker-nora" });
        call_as(addr, "POST", "/api/pair", Some(&token), &ask.to_string()).await
    });
    let anonymous = tokio::spawn(async move {
        let ask = json!({ "variant": "six", "clock": null, "seeker": "seeker-anon" });
        call_as(addr, "POST", "/api/pair", None, &ask.to_string()).await
    });
    let seeks = loop {
        let lobby = site.get("/api/seeks").await;
        let seeks = lobby.body["seeks"].as_array().unwrap().clone();
        if seeks.len() == 2 {
            break seeks;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let nora = seeks.iter().find(|s| s["variant"] == "nine").unwrap();
    assert_eq!(nora["rated"], true, "{nora}");
    assert_eq!(nora["name"], "nora", "{nora}");
    assert_eq!(nora["rating"], 1500, "{nora}");
    assert_eq!(nora["provisional"], true, "{nora}");
    let anon = seeks.iter().find(|s| s["variant"] == "six").unwrap();
    assert_eq!(anon["rated"], false, "{anon}");
    for field in ["name", "rating", "provisional"] {
        assert!(anon.get(field).is_none(), "{anon}");
    }
    rated.abort();
    anonymous.abort();
    site.server.stop().await;
}
