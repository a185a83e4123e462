//! What the real `mill-server` binary writes to its log: at `RUST_LOG=trace` a whole
//! game leaves no seat key, no key hash and no query string in it, on SQLite and (under
//! scripts/with-postgres) on PostgreSQL, whose driver logs statements' parameters;
//! `--log-format json` writes one JSON object per line.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;

use common::{Client, Rng, http, legal_action};
use mill_server::keys::hash_key;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

async fn spawn(dir: &Path, log: &Path, rust_log: &str, extra: &[&str]) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mill-server"))
        .args(["--addr", "127.0.0.1:0", "--rooms-per-minute", "0"])
        .args(["--messages-per-second", "100000"])
        .args(extra)
        .arg("--db")
        .arg(common::db_arg(&dir.join("logs.db")).await)
        .arg("--static-dir")
        .arg(dir)
        .env("RUST_LOG", rust_log)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .kill_on_drop(true)
        .spawn()
        .expect("start mill-server");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(common::PATIENCE, lines.next_line())
        .await
        .expect("server starts")
        .unwrap()
        .expect("a line");
    let addr = line
        .strip_prefix("Mill is running at http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .parse()
        .unwrap();
    (child, addr)
}

async fn stop(mut child: Child) {
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
    }
    let _ = tokio::time::timeout(common::PATIENCE, child.wait()).await;
    let _ = child.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_at_trace_level_logs_no_seat_key_no_key_hash_and_no_query_string() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let (child, addr) = spawn(dir.path(), &log, "trace", &[]).await;

    let (status, body) = http(addr, "GET", "/api/health?token=QUERYSECRET42").await;
    assert_eq!(status, 200, "{body}");
    let (_, created) = http(addr, "POST", "/api/rooms").await;
    let room = created["room"].as_str().unwrap().to_string();
    let light_key = created["key"].as_str().unwrap().to_string();
    let (_, joined) = http(addr, "POST", &format!("/api/rooms/{room}/join")).await;
    let dark_key = joined["key"].as_str().unwrap().to_string();
    let mut light = Client::hello(addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    let mut rng = Rng::new(11);
    let mut played = 0;
    while light.last["result"].is_null() {
        let a = legal_action(&light.last, |n| rng.below(n)).expect("legal while playing");
        let light_moves = light.last["turn"] == "light";
        let ack = if light_moves {
            light.play(&a).await
        } else {
            dark.play(&a).await
        };
        let v = ack["version"].clone();
        light.state_where(|s| s["version"] == v).await;
        dark.state_where(|s| s["version"] == v).await;
        played += 1;
        assert!(played < 2000, "a game ends");
        // A reconnect in the middle sends the key once more.
        if played == 10 {
            dark.close().await;
            dark = Client::hello(addr, &room, Some(&dark_key)).await;
        }
    }
    light.close().await;
    dark.close().await;
    stop(child).await;

    let text = std::fs::read_to_string(&log).unwrap();
    // The log really was at trace level and saw the game.
    assert!(text.contains("TRACE"), "trace lines were written");
    assert!(text.contains("room created"), "the game is in the log");
    assert!(text.lines().count() > 50, "{text}");
    for (name, secret) in [
        ("light key", &light_key),
        ("dark key", &dark_key),
        ("query", &"QUERYSECRET42".to_string()),
    ] {
        assert!(!text.contains(secret.as_str()), "the {name} is in the log");
    }
    for (name, key) in [("light", &light_key), ("dark", &dark_key)] {
        for shown in spellings(&hash_key(key)) {
            assert!(
                !text.contains(&shown),
                "the {name} key's hash is in the log as {shown}"
            );
        }
    }
}

/// The ways a log line could show a hash: hex either case (also as PostgreSQL's `\x`
/// bytea text) and Rust's `Debug` of its bytes, `[12, 250, …]`. Only a long enough
/// prefix is looked for, so a line cut short still counts.
fn spellings(hash: &[u8; 32]) -> Vec<String> {
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    let debug = format!("{:?}", &hash[..]);
    vec![
        hex[..24].to_string(),
        hex[..24].to_uppercase(),
        debug[..debug.len() / 2].to_string(),
    ]
}

#[tokio::test]
async fn json_logs_are_one_object_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let (child, addr) = spawn(dir.path(), &log, "debug", &["--log-format", "json"]).await;
    let (status, _) = http(addr, "POST", "/api/rooms").await;
    assert_eq!(status, 201);
    stop(child).await;
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 3, "{text}");
    let mut messages = Vec::new();
    for line in lines {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v["level"].is_string(), "{line}");
        assert!(v["timestamp"].is_string(), "{line}");
        messages.push(v["message"].as_str().unwrap_or_default().to_string());
    }
    assert!(messages.iter().any(|m| m == "room created"), "{messages:?}");
    assert!(messages.iter().any(|m| m == "stopped"), "{messages:?}");
}
