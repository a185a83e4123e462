//! Keeps the load generator working: a tiny run of `mill-load` against the real
//! server binary must play actions without errors. (Figures come from real runs, in
//! docs/PERFORMANCE.md; nothing here is timed.)

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn mill_load_plays_random_legal_games_without_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_mill-server"))
        .args(["--addr", "127.0.0.1:0", "--rooms-per-minute", "0"])
        .arg("--db")
        .arg(dir.path().join("load.db"))
        .args(["--messages-per-second", "1000"])
        .arg("--static-dir")
        .arg(dir.path())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("Mill is running at http://")
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_mill-load"))
        .args([
            "--addr",
            &addr,
            "--rooms",
            "4",
            "--seconds",
            "2",
            "--think-ms",
            "20",
        ])
        .output()
        .unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("set up 4 rooms (8 sockets)"), "{text}");
    assert!(text.contains("| errors 0 | sockets dropped 0"), "{text}");
    let actions: u64 = text
        .split(" actions in ")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("an action count in {text}"));
    assert!(actions > 0, "{text}");
}
