//! `GET /api/tb/probe` (docs/PROTOCOL.md, "Endgame tables"): the server's answer is the
//! engine's own probe of the same files; bad input gets its coded 400, a position outside
//! the tables 404, too many probes from one address 429; a table over the download limit
//! is not served but listed as probed, and still answered.

mod common;

use std::path::{Path, PathBuf};

use common::Server;
use mill_core::{Color, Position, Variant};
use mill_engine::tb::{Tablebase, Value, files};
use mill_server::Config;
use serde_json::Value as Json;

/// A position of 3 v 3, in the tables.
const ENDING: &str = "LL./.../D../...D.D/.../.../..L d 0 0 0 0";

/// Nine's tables to three a side (3 v 3 only), written to `dir` as `mill tb generate`
/// writes them.
fn write_tables(dir: &Path) -> Tablebase {
    let tb = Tablebase::generate(Variant::Nine, 3, &mut |_| {}).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    for (m, o, _) in tb.classes() {
        let path = dir.join(mill_engine::tb::file_name(Variant::Nine, m, o));
        std::fs::write(path, tb.class_bytes(m, o).unwrap()).unwrap();
    }
    tb
}

/// Nine's tables to three a side written to `tb` in `tmp`, and a server on them with
/// probes unlimited, then `tune`d (given the tables' folder); returns the folder too.
async fn server_on_tables(tmp: &Path, tune: impl FnOnce(&mut Config, &Path)) -> (Server, PathBuf) {
    let dir = tmp.join("tb");
    write_tables(&dir);
    let tb_dir = dir.clone();
    let server = Server::start_with(&tmp.join("mill.db"), move |c| {
        tune(c, &tb_dir);
        c.tb_dir = Some(tb_dir);
    })
    .await;
    (server, dir)
}

/// The query string's form of `text`: everything but letters, digits and `-._~` escaped.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn probe_path(variant: &str, position: &str) -> String {
    format!("/api/tb/probe?variant={variant}&position={}", encode(position))
}

fn value_of(v: Value) -> (&'static str, Option<u64>) {
    match v {
        Value::Win(d) => ("win", Some(u64::from(d))),
        Value::Loss(d) => ("loss", Some(u64::from(d))),
        Value::Draw => ("draw", None),
    }
}

/// Positions of 3 v 3 spread over the class, some with Dark to move, some with quiet
/// turns played (so that the hundred turns cut some wins), each in the tables.
fn positions(tb: &Tablebase) -> Vec<Position> {
    let class = tb.class_positions(3, 3).unwrap();
    let mut out = Vec::new();
    let mut i = 7;
    while out.len() < 24 && i < class.len() {
        if let Some(p) = class.get(i) {
            let text = p.to_string();
            let mut parts: Vec<String> = text.split(' ').map(String::from).collect();
            if out.len() % 2 == 1 {
                // The same board with Dark to move, its pieces the other way round.
                let board: String = parts[0]
                    .chars()
                    .map(|c| match c {
                        'L' => 'D',
                        'D' => 'L',
                        c => c,
                    })
                    .collect();
                parts[0] = board;
                parts[1] = "d".into();
            }
            if out.len() % 3 == 2 {
                parts[5] = "90".into();
            }
            let p: Position = parts.join(" ").parse().unwrap();
            if p.outcome().is_none() {
                out.push(p);
            }
        }
        i += class.len() / 40;
    }
    out
}

#[tokio::test]
async fn the_answer_is_the_engine_s_own_probe_of_the_same_files() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, dir) = server_on_tables(tmp.path(), |c, _| c.tb_probes_per_minute = 0).await;
    let engine = files::open(&dir, Variant::Nine, files::Access::Memory).unwrap();
    let list = positions(&engine);
    assert!(list.len() >= 20, "{}", list.len());
    let (mut wins, mut draws, mut dark) = (0, 0, 0);
    for p in &list {
        let (status, body) = server.http("GET", &probe_path("nine", &p.to_string())).await;
        assert_eq!(status, 200, "{p}: {body}");
        let probe = engine.probe(p).unwrap();
        let (value, distance) = value_of(probe.result);
        assert_eq!(body["value"], value, "{p}: {body}");
        assert_eq!(body["distance"].as_u64(), distance, "{p}: {body}");
        assert_eq!(body["position"], p.to_string());
        let (best, _) = engine.best_turn(p).unwrap();
        assert_eq!(body["best"], best.to_notation(p.topology()), "{p}");
        let turns = body["turns"].as_array().unwrap();
        assert_eq!(turns.len(), p.legal_turns().len(), "{p}");
        // The best turn keeps the position's result for the side that plays it. It is
        // the fastest to the next removal, not always the fastest to the end: a win by it
        // takes at least the position's distance, a loss at most.
        let best_entry = turns.iter().find(|t| t["turn"] == body["best"]).unwrap();
        assert_eq!(best_entry["value"], value, "{p}: {body}");
        let best_distance = best_entry["distance"].as_u64();
        match (value, distance) {
            ("win", Some(d)) => assert!(best_distance >= Some(d), "{p}: {body}"),
            ("loss", Some(d)) => assert!(best_distance <= Some(d), "{p}: {body}"),
            _ => assert_eq!(best_distance, None, "{p}: {body}"),
        }
        // Each turn's result is the engine's probe of the position it leads to.
        for entry in turns {
            let turn = p
                .legal_turns()
                .into_iter()
                .find(|t| t.to_notation(p.topology()) == entry["turn"])
                .unwrap();
            let child = p.play_unchecked(turn);
            let (want, want_distance) = match child.outcome() {
                Some(o) if o.winner() == Some(p.turn()) => ("win", Some(1)),
                Some(o) if o.winner().is_some() => ("loss", Some(1)),
                Some(_) => ("draw", None),
                None => match engine.probe(&child).unwrap().result {
                    Value::Win(d) => ("loss", Some(u64::from(d) + 1)),
                    Value::Loss(d) => ("win", Some(u64::from(d) + 1)),
                    Value::Draw => ("draw", None),
                },
            };
            assert_eq!(
                (entry["value"].as_str(), entry["distance"].as_u64()),
                (Some(want), want_distance),
                "{p}: {entry}"
            );
        }
        wins += usize::from(value == "win");
        draws += usize::from(value == "draw");
        dark += usize::from(p.turn() == Color::Dark);
    }
    assert!(
        wins > 0 && draws > 0 && dark > 0,
        "{wins} wins, {draws} draws, {dark} with Dark to move"
    );
    // The MFEN form of a position gets the same answer, from the cache or not.
    let p = &list[3];
    let (status, by_mfen) = server
        .http("GET", &probe_path("nine", &p.to_mfen().unwrap()))
        .await;
    let (_, by_string) = server.http("GET", &probe_path("nine", &p.to_string())).await;
    assert_eq!(status, 200, "{by_mfen}");
    assert_eq!(by_mfen, by_string);
    server.stop().await;
}

#[tokio::test]
async fn bad_input_gets_coded_400s_and_positions_outside_the_tables_404() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, _) = server_on_tables(tmp.path(), |c, _| c.tb_probes_per_minute = 0).await;
    for (path, status, code) in [
        (probe_path("ten", ENDING), 400, "bad-rules"),
        ("/api/tb/probe?variant=nine".to_string(), 400, "bad-position"),
        (probe_path("nine", "LL./.../D.. d 0 0 0 0"), 400, "bad-position"),
        (probe_path("nine", &"L".repeat(300)), 400, "bad-position"),
        // A position of Twelve's board asked for as Nine's.
        (
            probe_path("nine", &format!("{ENDING} twelve")),
            400,
            "bad-position",
        ),
        // The empty board: both hands full.
        (
            probe_path("nine", &Position::start(Variant::Nine).to_string()),
            404,
            "not-in-tables",
        ),
        // Twelve's rules: no table of them here.
        (probe_path("twelve", ENDING), 404, "not-in-tables"),
        // 4 v 3: no such class here.
        (
            probe_path("nine", "LL./.../D../.L.D.D/.../.../..L d 0 0 0 0"),
            404,
            "not-in-tables",
        ),
    ] {
        let (got, body) = server.http("GET", &path).await;
        assert_eq!(
            (got, body["code"].as_str()),
            (status, Some(code)),
            "{path}: {body}"
        );
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    }
    let (got, body) = server.http("GET", &probe_path("nine", ENDING)).await;
    assert_eq!(got, 200, "{body}");
    server.stop().await;
}

#[tokio::test]
async fn an_address_over_its_probes_a_minute_gets_429() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, _) = server_on_tables(tmp.path(), |c, _| c.tb_probes_per_minute = 3).await;
    let path = probe_path("nine", ENDING);
    for _ in 0..3 {
        let (status, body) = server.http("GET", &path).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = server.http("GET", &path).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("rate-limited")),
        "{body}"
    );
    // Rooms are another allowance: still open to the address.
    let (status, body) = server.http("POST", "/api/rooms").await;
    assert_eq!(status, 201, "{body}");
    server.stop().await;
}

#[tokio::test]
async fn a_table_over_the_download_limit_is_not_served_but_listed_and_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let size_of = |dir: &Path| std::fs::metadata(dir.join("nine-3v3.mtb")).unwrap().len();
    let (server, dir) = server_on_tables(tmp.path(), |c, dir| {
        c.tb_download_max = size_of(dir) - 1;
        c.tb_probes_per_minute = 0;
    })
    .await;
    let size = size_of(&dir);
    let (status, manifest) = server.http("GET", "/tb/manifest.json").await;
    assert_eq!(status, 200);
    assert_eq!(manifest["tables"], Json::Array(vec![]), "{manifest}");
    let probed = manifest["probed"].as_array().unwrap();
    assert_eq!(probed.len(), 1, "{manifest}");
    assert_eq!(probed[0]["rules"], "nine");
    assert_eq!(probed[0]["class"], "3v3");
    assert_eq!(probed[0]["bytes"].as_u64(), Some(size));
    let (status, _) = server.http("GET", "/tb/nine-3v3.mtb").await;
    assert_eq!(status, 404);
    let (status, body) = server.http("GET", &probe_path("nine", ENDING)).await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}
