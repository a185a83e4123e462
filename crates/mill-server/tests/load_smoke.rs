//! Keeps the load generator working: a tiny run of `mill-load` against the real
//! server binary must play actions without errors. (Figures come from real runs, in
//! docs/PERFORMANCE.md; nothing here is timed.)

mod common;

use tokio::process::Command;

#[tokio::test]
async fn mill_load_plays_random_legal_games_without_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("load.db").display().to_string();
    let (mut server, addr) = common::spawn_server(dir.path(), &db, &[]).await;
    // Untimed rooms, then rooms on a clock (what --clocks compares).
    for clocks in [None, Some("600+5")] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mill-load"));
        cmd.args(["--addr", &addr.to_string()])
            .args(["--rooms", "4", "--seconds", "2", "--think-ms", "20"]);
        if let Some(c) = clocks {
            cmd.args(["--clocks", c]);
        }
        let out = cmd.output().await.unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{clocks:?}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("set up 4 rooms (8 sockets)"), "{text}");
        assert!(
            text.contains("| errors 0 | sockets dropped 0"),
            "{clocks:?}: {text}"
        );
        assert!(common::measured_actions(&text) > 0, "{text}");
    }
    common::sigkill(&mut server).await;
}
