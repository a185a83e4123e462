//! A signed-in player's seats are bound to the account (docs/PROTOCOL.md, "Your games on
//! another device"): `GET /api/me/games` lists the account's games in progress, and on
//! a room's socket a `hello` with `"account": true` from a connection whose session
//! cookie is that account's takes its seat without the key. Another account's cookie
//! is refused with `not-seated`, no session with `sign-in-required` (close 4012), and
//! another site's page gets no account at all. On SQLite, or on PostgreSQL under
//! scripts/with-postgres.

mod common;

use std::net::SocketAddr;

use common::{Client, Server, call_as};
use serde_json::{Value, json};

async fn sign_up(addr: SocketAddr, name: &str) -> String {
    let body = json!({ "name": name, "password": "a fine passphrase" }).to_string();
    let a = call_as(addr, "POST", "/api/account", None, &body).await;
    assert_eq!(a.status, 201, "{}", a.body);
    a.token.expect("a session cookie")
}

async fn my_games(addr: SocketAddr, token: &str) -> Vec<Value> {
    let a = call_as(addr, "GET", "/api/me/games", Some(token), "").await;
    let (status, body) = (a.status, a.body);
    assert_eq!(status, 200, "{body}");
    assert!(body["name"].is_string(), "{body}");
    body["games"].as_array().unwrap().clone()
}

/// A socket of `room` with these headers that says hello with `"account": true`.
async fn account_hello(addr: SocketAddr, room: &str, headers: &[(&str, &str)]) -> Client {
    let mut c = Client::connect_with(addr, room, headers).await;
    c.send(json!({ "type": "hello", "protocol": 1, "account": true }))
        .await;
    c
}

#[tokio::test]
async fn a_signed_in_player_goes_on_with_a_rated_game_on_another_device() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(&dir.path().join("seats.db"), |c| c.max_conns_per_ip = 0).await;
    let addr = server.addr;
    let (ann, bob, cat) = (
        sign_up(addr, "ann").await,
        sign_up(addr, "bob").await,
        sign_up(addr, "cat").await,
    );
    assert!(my_games(addr, &ann).await.is_empty());
    // Not signed in: nobody's games, answered without a refusal.
    let a = call_as(addr, "GET", "/api/me/games", None, "").await;
    assert_eq!((a.status, a.body), (200, json!({ "name": null, "games": [] })));

    // Ann and Bob are paired for a rated game; each plays on a device holding the key.
    let ask = |who: &str| {
        json!({ "variant": "nine", "clock": { "initial": 180, "increment": 2 }, "rated": true,
                "seeker": format!("seeker-{who}") })
        .to_string()
    };
    let (ann2, ask_ann) = (ann.clone(), ask("ann"));
    let first = tokio::spawn(async move { call_as(addr, "POST", "/api/pair", Some(&ann2), &ask_ann).await });
    let second = call_as(addr, "POST", "/api/pair", Some(&bob), &ask("bob")).await;
    let first = first.await.unwrap();
    let (status, bob_seat, first_status, ann_seat) = (second.status, second.body, first.status, first.body);
    assert_eq!((first_status, status), (201, 201), "{ann_seat} {bob_seat}");
    let room = ann_seat["room"].as_str().unwrap().to_string();
    let seat = ann_seat["seat"].as_str().unwrap().to_string();
    let mut ann_phone = Client::hello(addr, &room, ann_seat["key"].as_str()).await;
    let mut bob_device = Client::hello(addr, &room, bob_seat["key"].as_str()).await;
    assert_eq!(ann_phone.seat, seat.as_str());
    ann_phone
        .state_where(|s| s["seats"]["dark"]["online"] == true && s["seats"]["light"]["online"] == true)
        .await;

    // The list names the game, with no key in it.
    let games = my_games(addr, &ann).await;
    assert_eq!(games.len(), 1, "{games:?}");
    let g = &games[0];
    assert_eq!(g["room"], room.as_str());
    assert_eq!(g["seat"], seat.as_str());
    assert_eq!(g["opponent"], "bob");
    assert_eq!(
        (g["rules"].as_str(), g["rated"].as_bool(), g["started"].as_bool()),
        (Some("nine"), Some(true), Some(true))
    );
    assert_eq!(g["clock"], json!({ "initial": 180, "increment": 2 }));
    assert!(g.get("key").is_none(), "{g}");
    assert_eq!(my_games(addr, &bob).await[0]["opponent"], "ann");
    assert!(my_games(addr, &cat).await.is_empty());

    // Ann's phone goes; her laptop, signed in but without the key, takes her seat.
    ann_phone.close().await;
    let cookie = format!("mill_session={ann}");
    let mut laptop = account_hello(addr, &room, &[("cookie", &cookie)]).await;
    let welcome = laptop.expect("welcome").await;
    assert_eq!(welcome["seat"], seat.as_str(), "{welcome}");
    laptop.last = laptop.expect("state").await;
    // And plays on: Light moves first, then Dark.
    let (light, dark) = if seat == "light" {
        (&mut laptop, &mut bob_device)
    } else {
        (&mut bob_device, &mut laptop)
    };
    light
        .state_where(|s| s["seats"]["dark"]["online"] == true && s["seats"]["light"]["online"] == true)
        .await;
    light.play("d6").await;
    dark.state_where(|s| s["version"] == 1).await;
    dark.play("a1").await;
    light.state_where(|s| s["version"] == 2).await;

    // Cat's cookie holds no seat here: a coded refusal, and the socket closes.
    let cat_cookie = format!("mill_session={cat}");
    let mut cat_socket = account_hello(addr, &room, &[("cookie", &cat_cookie)]).await;
    let (seen, code) = cat_socket.until_closed().await;
    assert_eq!(seen[0]["code"], "not-seated", "{seen:?}");
    assert_eq!(code, Some(4012));
    // Cat may still watch, as anyone may (a hello without a key and without "account").
    let watcher = Client::connect_with(addr, &room, &[("cookie", &cat_cookie)]).await;
    let mut watcher = watcher;
    watcher.send(json!({ "type": "hello", "protocol": 1 })).await;
    assert_eq!(watcher.expect("welcome").await["seat"], Value::Null);
    // Without a session, or from another site's page with Ann's cookie: no account.
    for headers in [
        vec![],
        vec![
            ("cookie", cookie.as_str()),
            ("origin", "https://elsewhere.example"),
        ],
    ] {
        let mut socket = account_hello(addr, &room, &headers).await;
        let (seen, code) = socket.until_closed().await;
        assert_eq!(seen[0]["code"], "sign-in-required", "{headers:?}: {seen:?}");
        assert_eq!(code, Some(4012));
    }
    // The seat's holder was never replaced by any of them: the game goes on.
    let (light, dark) = if seat == "light" {
        (&mut laptop, &mut bob_device)
    } else {
        (&mut bob_device, &mut laptop)
    };
    light.play("d7").await;
    dark.state_where(|s| s["version"] == 3).await;

    // Once the round is over it is no longer in progress.
    bob_device.state_where(|s| s["version"] == 3).await;
    bob_device.ok("resign").await;
    laptop.state_where(|s| s["result"] != Value::Null).await;
    assert!(my_games(addr, &ann).await.is_empty());
    server.stop().await;
}
