//! `mill puzzles` end to end: a small set generated from tables made here (three pieces a
//! side), the same again under the same seed, listed as JSON lines, verified, and a
//! tampered set refused.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mill(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mill"))
        .args(args)
        .output()
        .expect("mill runs")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "mill failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mill-puzzles-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn generate(tables: &Path, out: &Path) -> String {
    let (t, o) = (tables.to_str().unwrap(), out.to_str().unwrap());
    ok(&mill(&[
        "puzzles", "generate", "--wins", "6", "--draws", "2", "--engine", "1", "--games", "3", "--depth",
        "3", "--seed", "5", "--tables", t, "--dir", o,
    ]));
    std::fs::read_to_string(out.join("nine.json")).unwrap()
}

#[test]
fn generate_list_verify_and_refuse_a_tampered_set() {
    let root = temp("cli");
    let tables = root.join("tb");
    ok(&mill(&[
        "tb",
        "generate",
        "--dir",
        tables.to_str().unwrap(),
        "--max",
        "3",
    ]));
    let first = generate(&tables, &root.join("a"));
    let again = generate(&tables, &root.join("b"));
    assert_eq!(first, again, "the same seed gives the same set");

    let set = root.join("a");
    let listed = ok(&mill(&[
        "puzzles",
        "list",
        "--json",
        "--dir",
        set.to_str().unwrap(),
    ]));
    let puzzles: Vec<Value> = listed.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(puzzles.len() >= 8, "{listed}");
    for p in &puzzles {
        for key in ["id", "position", "theme", "goal"] {
            assert!(p[key].is_string(), "{key} in {p}");
        }
        assert!(p["rating"].is_u64());
        let solution = p["solution"].as_array().unwrap();
        assert_eq!(solution.len() % 2, 1, "the solver's turn first and last: {p}");
    }
    assert!(puzzles.iter().any(|p| p["goal"] == "draw"));
    assert!(puzzles.iter().any(|p| p["source"] == "tablebase"));

    let verified = ok(&mill(&[
        "puzzles",
        "verify",
        "--dir",
        set.to_str().unwrap(),
        "--tables",
        tables.to_str().unwrap(),
    ]));
    assert!(
        verified.contains(&format!("{} puzzles verified", puzzles.len())),
        "{verified}"
    );

    // Another legal first turn in place of a table puzzle's answer: refused.
    let table_puzzle = puzzles.iter().find(|p| p["source"] == "tablebase").unwrap();
    let position = table_puzzle["position"].as_str().unwrap();
    let answer = table_puzzle["solution"][0].as_str().unwrap();
    let legal = ok(&mill(&["legal", "--position", position]));
    let step = |t: &str| t.split('x').next().unwrap().to_string();
    let other = legal.lines().find(|t| step(t) != step(answer)).unwrap();
    let tampered_dir = root.join("tampered");
    std::fs::create_dir_all(&tampered_dir).unwrap();
    let mut wrong = table_puzzle.clone();
    wrong["solution"] = serde_json::json!([other]);
    wrong["also"] = serde_json::json!([]);
    std::fs::write(tampered_dir.join("nine.json"), format!("[\n{wrong}\n]\n")).unwrap();
    let o = mill(&[
        "puzzles",
        "verify",
        "--dir",
        tampered_dir.to_str().unwrap(),
        "--tables",
        tables.to_str().unwrap(),
    ]);
    assert!(!o.status.success(), "a wrong answer passed");
    // A rating that does not follow from the line: refused.
    let mut rated = table_puzzle.clone();
    rated["rating"] = serde_json::json!(rated["rating"].as_u64().unwrap() + 1);
    std::fs::write(tampered_dir.join("nine.json"), format!("[\n{rated}\n]\n")).unwrap();
    let o = mill(&[
        "puzzles",
        "verify",
        "--dir",
        tampered_dir.to_str().unwrap(),
        "--tables",
        tables.to_str().unwrap(),
    ]);
    assert!(!o.status.success(), "a changed rating passed");
    // Shipped once (nine-939e5983): a line that stands the start for the third time
    // before its last turn, so the game is drawn where the puzzle still asks a turn.
    let repeating = r#"{"also":[],"goal":"draw","id":"nine-939e5983","position":".../.../.../DL..../.../.DL/DL. l 0 0 0 0","rating":2490,"rules":"nine","solution":["f2-a7","a1-b2","a7-f2","b2-a1","f2-a7","a1-b2","a7-f2","b2-a1","f2-a7"],"source":"tablebase","tempting":10,"theme":"hold-the-draw","themes":["hold-the-draw","defence","long","flying-ending"]}"#;
    std::fs::write(tampered_dir.join("nine.json"), format!("[\n{repeating}\n]\n")).unwrap();
    let o = mill(&[
        "puzzles",
        "verify",
        "--dir",
        tampered_dir.to_str().unwrap(),
        "--tables",
        tables.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "a line the rules end early passed");
    assert!(said.contains("nine-939e5983: the rules end the game"), "{said}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_reader_that_stops_early_ends_the_list_quietly() {
    // `mill puzzles list --json | head`: the shipped set is far more than a pipe holds,
    // so the list is still writing when the reader goes.
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/puzzles");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mill"))
        .args(["puzzles", "list", "--json", "--dir", set.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mill runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('{'), "{first}");
    // The reading end is closed here, with most of the list unwritten.
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "exit {:?}: {stderr}", o.status);
    assert!(stderr.is_empty(), "{stderr}");
}
