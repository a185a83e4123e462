//! Accounts and sessions over HTTP (docs/PROTOCOL.md, "Accounts"), on SQLite, or on
//! PostgreSQL under scripts/with-postgres: sign-up, sign-in, sign-out, sign out
//! everywhere, deletion, `GET /api/me`, a player's page; a wrong password and an
//! unknown name answered alike; throttled failures; cross-site requests refused; what
//! the database keeps (hashes only).

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::{Answer, Server, call, sql};
use serde_json::json;
use sha2::Digest;

fn creds(name: &str, password: &str) -> String {
    json!({ "name": name, "password": password }).to_string()
}

fn cookie(token: &str) -> String {
    format!("mill_session={token}")
}

struct Site {
    server: Server,
    db: PathBuf,
    _dir: tempfile::TempDir,
}

async fn site() -> Site {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("accounts.db");
    let server = Server::start_with(&db, |c| c.max_conns_per_ip = 0).await;
    Site {
        server,
        db,
        _dir: dir,
    }
}

impl Site {
    async fn call(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        call(self.server.addr, method, path, headers, body).await
    }

    async fn sign_up(&self, name: &str, password: &str) -> String {
        let a = self
            .call("POST", "/api/account", &[], &creds(name, password))
            .await;
        assert_eq!(a.status, 201, "{a:?}");
        assert_eq!(a.body, json!({ "name": name }));
        a.session()
    }

    async fn sign_in(&self, name: &str, password: &str) -> Answer {
        self.call("POST", "/api/session", &[], &creds(name, password))
            .await
    }

    async fn me(&self, token: &str) -> Answer {
        self.call("GET", "/api/me", &[("Cookie", &cookie(token))], "")
            .await
    }

    fn path(&self) -> &Path {
        &self.db
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_up_sign_in_and_sign_out() {
    let site = site().await;
    let a = site
        .call(
            "POST",
            "/api/account",
            &[],
            &creds("Ann_Lee", "correct horse battery"),
        )
        .await;
    assert_eq!(a.status, 201, "{a:?}");
    assert_eq!(a.body, json!({ "name": "Ann_Lee" }));
    let set = a.header("set-cookie").unwrap();
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
        assert!(set.contains(attribute), "{set}");
    }
    // Served over plain http (no https --public-url): not Secure.
    assert!(!set.contains("Secure"), "{set}");
    let first = a.session();
    assert_eq!(first.len(), 64);

    let me = site.me(&first).await;
    assert_eq!(me.status, 200, "{me:?}");
    assert_eq!(me.body, json!({ "name": "Ann_Lee", "ratings": {} }));

    // Names are unique without regard to case.
    let taken = site
        .call("POST", "/api/account", &[], &creds("ann_lee", "another good one"))
        .await;
    assert_eq!(
        (taken.status, taken.body["code"].as_str()),
        (409, Some("name-taken"))
    );
    assert!(taken.header("set-cookie").is_none());
    for (name, password, code) in [
        ("an", "correct horse battery", "bad-name"),
        ("ann lee", "correct horse battery", "bad-name"),
        ("deleted", "correct horse battery", "bad-name"),
        ("bob", "short", "weak-password"),
        ("bob", "password123", "weak-password"),
        ("bob", "QWERTYUIOP", "weak-password"),
        ("bobby_b", "Bobby_B", "weak-password"),
    ] {
        let a = site
            .call("POST", "/api/account", &[], &creds(name, password))
            .await;
        assert_eq!(
            (a.status, a.body["code"].as_str()),
            (400, Some(code)),
            "{name} {password}: {a:?}"
        );
    }
    let a = site.call("POST", "/api/account", &[], "{\"name\": 3}").await;
    assert_eq!((a.status, a.body["code"].as_str()), (400, Some("malformed")));
    assert_eq!(sql(site.path(), "SELECT count(*) FROM accounts", &[]).await, 1);

    // Sign-in, in any case of the name, gives a new session and ends the one the request
    // came with.
    let signed = site
        .call(
            "POST",
            "/api/session",
            &[("Cookie", &cookie(&first))],
            &creds("ANN_LEE", "correct horse battery"),
        )
        .await;
    assert_eq!(signed.status, 200, "{signed:?}");
    assert_eq!(signed.body, json!({ "name": "Ann_Lee" }));
    let second = signed.session();
    assert_ne!(second, first);
    assert_eq!(site.me(&first).await.status, 401);
    assert_eq!(site.me(&second).await.status, 200);

    // Sign-out ends the session and clears the cookie.
    let out = site
        .call("DELETE", "/api/session", &[("Cookie", &cookie(&second))], "")
        .await;
    assert_eq!(out.status, 204);
    assert_eq!(out.session(), "");
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    let me = site.me(&second).await;
    assert_eq!(
        (me.status, me.body["code"].as_str()),
        (401, Some("sign-in-required"))
    );
    let nobody = site.call("GET", "/api/me", &[], "").await;
    assert_eq!(nobody.status, 401);

    // The database keeps hashes only.
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM accounts WHERE password_hash LIKE $1",
            &["$argon2id$v=19$m=19456,t=2,p=1$%"]
        )
        .await,
        1
    );
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM accounts WHERE password_hash LIKE '%horse%'",
            &[]
        )
        .await,
        0
    );
    let third = site.sign_in("ann_lee", "correct horse battery").await.session();
    let hash_hex: String = sha2::Sha256::digest(third.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let hex = if common::on_postgres() {
        "encode(token_hash, 'hex')"
    } else {
        "lower(hex(token_hash))"
    };
    assert_eq!(
        sql(
            site.path(),
            &format!("SELECT count(*) FROM sessions WHERE {hex} = $1"),
            &[&hash_hex]
        )
        .await,
        1
    );
    assert_eq!(
        sql(
            site.path(),
            &format!("SELECT count(*) FROM sessions WHERE {hex} = $1"),
            &[&third]
        )
        .await,
        0
    );
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_password_and_an_unknown_name_are_answered_alike() {
    let site = site().await;
    site.sign_up("carol", "a fine passphrase").await;
    let mut wrong = Vec::new();
    let mut unknown = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        let a = site.sign_in("carol", "not the passphrase").await;
        wrong.push(started.elapsed());
        let started = Instant::now();
        let b = site.sign_in("nobody_here", "not the passphrase").await;
        unknown.push(started.elapsed());
        assert_eq!(a.status, 401);
        assert_eq!(a.body, b.body);
        assert_eq!(a.body["code"], "bad-credentials");
        assert_eq!(a.status, b.status);
        assert!(a.header("set-cookie").is_none() && b.header("set-cookie").is_none());
    }
    // The same work: an unknown name is checked against a dummy hash of the same cost.
    // (Loose, for a loaded machine: without the dummy hash the unknown name answers in
    // well under a tenth of the time.)
    let (w, u) = (wrong.iter().min().unwrap(), unknown.iter().min().unwrap());
    assert!(*u * 4 > *w, "wrong password {w:?}, unknown name {u:?}");
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn failed_sign_ins_are_throttled_per_name_and_per_address() {
    let site = site().await;
    site.sign_up("dave", "a fine passphrase").await;
    site.sign_up("erin", "another passphrase").await;
    for _ in 0..5 {
        assert_eq!(site.sign_in("dave", "wrong guess!").await.status, 401);
    }
    // The name is throttled, even for the right password.
    let a = site.sign_in("DAVE", "a fine passphrase").await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (429, Some("throttled")),
        "{a:?}"
    );
    assert!(a.header("set-cookie").is_none());
    // Another name from the same address is not, yet.
    assert_eq!(site.sign_in("erin", "another passphrase").await.status, 200);
    // Failures for names that do not exist count against the address too.
    for i in 5..20 {
        assert_eq!(
            site.sign_in(&format!("ghost{i}"), "wrong guess!").await.status,
            401
        );
    }
    let a = site.sign_in("erin", "another passphrase").await;
    assert_eq!((a.status, a.body["code"].as_str()), (429, Some("throttled")));
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cross_site_requests_are_refused() {
    let site = site().await;
    let addr = site.server.addr;
    let token = site.sign_up("frank", "a fine passphrase").await;
    let evil = [("Origin", "https://evil.example"), ("Cookie", &cookie(&token))];
    for (method, path, body) in [
        ("POST", "/api/session", creds("frank", "a fine passphrase")),
        ("POST", "/api/account", creds("frank2", "a fine passphrase")),
        ("DELETE", "/api/session", String::new()),
        ("DELETE", "/api/sessions", String::new()),
        (
            "DELETE",
            "/api/account",
            json!({ "password": "a fine passphrase" }).to_string(),
        ),
    ] {
        let a = site.call(method, path, &evil, &body).await;
        assert_eq!(
            (a.status, a.body["code"].as_str()),
            (403, Some("cross-site")),
            "{method} {path}"
        );
        assert!(a.header("set-cookie").is_none());
    }
    // Without Origin, a browser's Sec-Fetch-Site says where the request came from.
    let a = site
        .call(
            "DELETE",
            "/api/session",
            &[("Sec-Fetch-Site", "cross-site"), ("Cookie", &cookie(&token))],
            "",
        )
        .await;
    assert_eq!(a.status, 403);
    let a = site
        .call(
            "DELETE",
            "/api/session",
            &[("Origin", "null"), ("Cookie", &cookie(&token))],
            "",
        )
        .await;
    assert_eq!(a.status, 403);
    // Nothing changed.
    assert_eq!(site.me(&token).await.status, 200);
    assert_eq!(sql(site.path(), "SELECT count(*) FROM accounts", &[]).await, 1);
    // The page's own origin passes.
    let own = format!("http://{addr}");
    let a = site
        .call(
            "POST",
            "/api/session",
            &[("Origin", &own), ("Sec-Fetch-Site", "same-origin")],
            &creds("frank", "a fine passphrase"),
        )
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_out_everywhere_ends_every_session() {
    let site = site().await;
    let first = site.sign_up("gina", "a fine passphrase").await;
    let second = site.sign_in("gina", "a fine passphrase").await.session();
    let other = site.sign_up("hank", "a fine passphrase").await;
    assert_eq!(site.me(&first).await.status, 200);
    assert_eq!(site.me(&second).await.status, 200);
    let a = site.call("DELETE", "/api/sessions", &[], "").await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("sign-in-required"))
    );
    let a = site
        .call("DELETE", "/api/sessions", &[("Cookie", &cookie(&second))], "")
        .await;
    assert_eq!(a.status, 204);
    assert_eq!(site.me(&first).await.status, 401);
    assert_eq!(site.me(&second).await.status, 401);
    // Another account's session is not touched.
    assert_eq!(site.me(&other).await.status, 200);
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn deleting_an_account_asks_for_the_password_and_frees_the_name() {
    let site = site().await;
    let token = site.sign_up("Ivy", "a fine passphrase").await;
    let p = site.call("GET", "/api/players/ivy", &[], "").await;
    assert_eq!(p.status, 200);
    assert_eq!(
        p.body,
        json!({ "name": "Ivy", "ratings": {}, "results": { "win": 0, "draw": 0, "loss": 0 } })
    );
    let none = site.call("GET", "/api/players/nobody", &[], "").await;
    assert_eq!(
        (none.status, none.body["code"].as_str()),
        (404, Some("unknown-player"))
    );
    let bad = site.call("GET", "/api/players/no%20body", &[], "").await;
    assert_eq!(bad.status, 404);

    let a = site
        .call(
            "DELETE",
            "/api/account",
            &[("Cookie", &cookie(&token))],
            &json!({ "password": "wrong one!" }).to_string(),
        )
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("bad-credentials"))
    );
    assert_eq!(site.me(&token).await.status, 200);
    let a = site
        .call(
            "DELETE",
            "/api/account",
            &[],
            &json!({ "password": "a fine passphrase" }).to_string(),
        )
        .await;
    assert_eq!(a.status, 401);
    let a = site
        .call(
            "DELETE",
            "/api/account",
            &[("Cookie", &cookie(&token))],
            &json!({ "password": "a fine passphrase" }).to_string(),
        )
        .await;
    assert_eq!(a.status, 204, "{a:?}");
    assert_eq!(site.me(&token).await.status, 401);
    assert_eq!(site.call("GET", "/api/players/ivy", &[], "").await.status, 404);
    assert_eq!(site.sign_in("ivy", "a fine passphrase").await.status, 401);
    assert_eq!(sql(site.path(), "SELECT count(*) FROM sessions", &[]).await, 0);
    // The name is free again.
    site.sign_up("ivy", "another passphrase").await;
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn expired_sessions_are_not_honoured() {
    let site = site().await;
    let token = site.sign_up("jack", "a fine passphrase").await;
    assert_eq!(site.me(&token).await.status, 200);
    sql(site.path(), "UPDATE sessions SET expires_at = 1", &[]).await;
    assert_eq!(site.me(&token).await.status, 401);
    site.server.stop().await;
}

/// Two signed-in players paired (rated or not), their seats connected: (room, light
/// client, dark client, light's token, dark's token).
async fn paired(
    site: &Site,
    a: &str,
    b: &str,
    rated: bool,
) -> (String, common::Client, common::Client, String, String) {
    let ta = site.sign_up(a, "a fine passphrase").await;
    let tb = site.sign_up(b, "a fine passphrase").await;
    let ask = |seeker: &str| {
        json!({ "variant": "nine", "clock": { "initial": 180, "increment": 2 }, "rated": rated,
                "seeker": format!("seeker-{seeker}") })
        .to_string()
    };
    let addr = site.server.addr;
    let (ca, cb) = (cookie(&ta), cookie(&tb));
    let (ask_a, ask_b) = (ask(a), ask(b));
    let first =
        tokio::spawn(async move { call(addr, "POST", "/api/pair", &[("Cookie", &ca)], &ask_a).await });
    let second = call(addr, "POST", "/api/pair", &[("Cookie", &cb)], &ask_b).await;
    let first = first.await.unwrap();
    assert_eq!((first.status, second.status), (201, 201), "{first:?} {second:?}");
    assert_eq!(first.body["room"], second.body["room"]);
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

#[tokio::test(flavor = "multi_thread")]
async fn a_rated_round_changes_both_ratings_once_and_a_casual_one_none() {
    let site = site().await;
    let addr = site.server.addr;
    // A rated seek needs an account, and a clock.
    let ask =
        json!({ "variant": "nine", "clock": { "initial": 180, "increment": 2 }, "rated": true }).to_string();
    let a = call(addr, "POST", "/api/pair", &[], &ask).await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("sign-in-required")),
        "{a:?}"
    );

    let (room, mut light, mut dark, tl, td) = paired(&site, "kate", "liam", true).await;
    let a = call(
        addr,
        "POST",
        "/api/pair",
        &[("Cookie", &cookie(&tl))],
        &json!({ "variant": "nine", "rated": true }).to_string(),
    )
    .await;
    assert_eq!((a.status, a.body["code"].as_str()), (400, Some("bad-clock")));
    // Both seats are bound to the accounts.
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM seat_accounts WHERE room_id = $1 AND account_id IS NOT NULL",
            &[&room]
        )
        .await,
        2
    );
    light.play("d2").await;
    // No takebacks in a rated game.
    light.state_where(|s| s["version"] == 1).await;
    light.command("offer-takeback", json!({})).await;
    assert_eq!(light.error().await["code"], "rated-round");
    dark.state_where(|s| s["version"] == 1).await;
    dark.ok("resign").await;
    light.state_where(|s| !s["result"].is_null()).await;

    let (win, loss) = mill_server::ratings::Rating::after_round(
        Default::default(),
        Default::default(),
        mill_server::ratings::Score::Win,
    );
    let me = site.me(&tl).await.body;
    let mine = &me["ratings"]["nine"]["blitz"];
    assert_eq!(mine["games"], 1, "{me}");
    assert!(
        (mine["rating"].as_f64().unwrap() - win.rating).abs() < 0.06,
        "{me}"
    );
    assert!((mine["rating"].as_f64().unwrap() - 1662.3).abs() < 0.2, "{me}");
    assert_eq!(mine["provisional"], true);
    let theirs = site.me(&td).await.body;
    assert!(
        (theirs["ratings"]["nine"]["blitz"]["rating"].as_f64().unwrap() - loss.rating).abs() < 0.06,
        "{theirs}"
    );
    assert_eq!(theirs["ratings"]["nine"]["blitz"]["games"], 1);
    assert_eq!(
        sql(site.path(), "SELECT count(*) FROM rated_rounds", &[]).await,
        1
    );
    // The public page shows the same.
    let p = site
        .call(
            "GET",
            &format!("/api/players/{}", me["name"].as_str().unwrap()),
            &[],
            "",
        )
        .await;
    assert_eq!(p.body["ratings"], me["ratings"]);

    // Whatever comes after the result (a new round asked for) changes nothing more.
    light.ok("new-round").await;
    assert_eq!(site.me(&tl).await.body["ratings"]["nine"]["blitz"]["games"], 1);

    // A casual pairing of two signed-in players: seats bound, no rating.
    let (room, mut light, mut dark, tl, td) = paired(&site, "mona", "nick", false).await;
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM seat_accounts WHERE room_id = $1",
            &[&room]
        )
        .await,
        2
    );
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM rated_rooms WHERE room_id = $1",
            &[&room]
        )
        .await,
        0
    );
    light.play("d2").await;
    dark.state_where(|s| s["version"] == 1).await;
    dark.ok("resign").await;
    light.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(site.me(&tl).await.body["ratings"], json!({}));
    assert_eq!(site.me(&td).await.body["ratings"], json!({}));
    assert_eq!(
        sql(site.path(), "SELECT count(*) FROM rated_rounds", &[]).await,
        1
    );

    // A deleted account's seats stay, under no account.
    let a = site
        .call(
            "DELETE",
            "/api/account",
            &[("Cookie", &cookie(&tl))],
            &json!({ "password": "a fine passphrase" }).to_string(),
        )
        .await;
    assert_eq!(a.status, 204);
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM seat_accounts WHERE room_id = $1 AND account_id IS NULL",
            &[&room]
        )
        .await,
        1
    );
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_in_players_created_and_joined_seats_are_bound() {
    let site = site().await;
    let ta = site.sign_up("olga", "a fine passphrase").await;
    let tb = site.sign_up("pete", "a fine passphrase").await;
    let made = site
        .call("POST", "/api/rooms", &[("Cookie", &cookie(&ta))], "")
        .await;
    assert_eq!(made.status, 201, "{made:?}");
    let room = made.body["room"].as_str().unwrap().to_string();
    let joined = site
        .call(
            "POST",
            &format!("/api/rooms/{room}/join"),
            &[("Cookie", &cookie(&tb))],
            "",
        )
        .await;
    assert_eq!(joined.status, 200);
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM seat_accounts WHERE room_id = $1",
            &[&room]
        )
        .await,
        2
    );
    // Anonymous rooms bind nothing.
    let (anon, _) = site.server.create().await;
    assert_eq!(
        sql(
            site.path(),
            "SELECT count(*) FROM seat_accounts WHERE room_id = $1",
            &[&anon]
        )
        .await,
        0
    );
    site.server.stop().await;
}
