//! `mill bestmove` and `mill arena` as a user runs them.

use std::process::{Command, Output};

fn mill(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mill"))
        .args(args)
        .output()
        .expect("the mill binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn bestmove_closes_the_mill() {
    let o = mill(&[
        "bestmove",
        "--level",
        "hard",
        "--position",
        ".../.../.../....../.../DD./LL. l 7 7 0 0",
        "--depth",
        "3",
    ]);
    assert!(o.status.success(), "{o:?}");
    assert!(stdout(&o).starts_with("g1x"), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("depth 3"), "{o:?}");
}

#[test]
fn bestmove_is_legal_and_seeded() {
    let run = |seed: &str| {
        let o = mill(&["bestmove", "--level", "easy", "--seed", seed, "--moves", "d2 d6"]);
        assert!(o.status.success(), "{o:?}");
        stdout(&o)
    };
    let turn = run("7");
    assert_eq!(turn, run("7"));
    let legal = mill(&["legal", "--position", ".../.D./.../....../.../.L./... l 8 8 0 0"]);
    assert!(legal.status.success(), "{legal:?}");
    let legal = stdout(&legal);
    assert!(legal.lines().any(|l| l == turn), "{turn} not in {legal}");
}

#[test]
fn bestmove_rejects_bad_input() {
    for (args, message) in [
        (vec!["bestmove", "--level", "expert"], "unknown level"),
        (vec!["bestmove", "--position", "nonsense"], "bad position string"),
        (vec!["bestmove", "--moves", "a1 a1"], "turn 2 (a1)"),
        (
            vec![
                "bestmove",
                "--position",
                "LLL/.D./.../D....D/.../.../LD. l 0 0 0 0",
            ],
            "game is over",
        ),
    ] {
        let o = mill(&args);
        assert!(!o.status.success(), "{args:?} should fail");
        assert!(stdout(&o).is_empty(), "{args:?} printed a turn");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

#[test]
fn arena_counts_every_game() {
    let o = mill(&[
        "arena", "--a", "medium", "--b", "easy", "--games", "2", "--depth", "2", "--seed", "3",
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    let line = out.lines().next().unwrap_or_default();
    assert!(line.starts_with("medium vs easy: 2 games: "), "{out}");
    let numbers: Vec<u32> = line
        .split([' ', ':', ','])
        .filter_map(|w| w.parse().ok())
        .collect();
    // "2 games", then wins, draws, losses adding up to 2.
    assert_eq!(numbers[0], 2, "{line}");
    assert_eq!(numbers[1] + numbers[2] + numbers[3], 2, "{line}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("forced wins announced: medium in ")),
        "{out}"
    );
    let o = mill(&["arena", "--a", "hard", "--b", "easy", "--games", "2"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("need a limit per turn"));
}

#[test]
fn arena_plays_an_external_engine_over_uci() {
    let me = env!("CARGO_BIN_EXE_mill");
    let external = format!("uci:{me} uci");
    let o = mill(&[
        "arena",
        "--a",
        &external,
        "--b",
        "medium",
        "--games",
        "2",
        "--depth",
        "2",
        "--seed",
        "5",
        "--verbose",
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    let summary = out
        .lines()
        .find(|l| l.starts_with(&format!("{external} vs medium: 2 games: ")))
        .unwrap_or_else(|| panic!("{out}"));
    let numbers: Vec<u32> = summary
        .split([' ', ':', ','])
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers[1] + numbers[2] + numbers[3], 2, "{summary}");
    assert!(
        out.lines().any(|l| l.starts_with("Elo ") && l.contains("(95%: ")),
        "{out}"
    );
    assert!(out.contains("(wall time)"), "{out}");
    // Colours alternate: the external engine has Light in game 1 and Dark in game 2.
    assert!(out.contains(&format!("game 1 ({external} light)")), "{out}");
    assert!(out.contains("game 2 (medium light)"), "{out}");
    // Every game was played to its end by legal turns (the record replays).
    for line in out.lines().filter(|l| l.starts_with("game ")) {
        let record = line.split("; ").nth(1).unwrap_or_default();
        assert!(!record.is_empty(), "{line}");
    }

    // An engine that does not speak UCI stops the match with a clear error.
    let o = mill(&[
        "arena",
        "--a",
        "uci:/bin/true",
        "--b",
        "easy",
        "--games",
        "2",
        "--depth",
        "2",
    ]);
    assert!(!o.status.success());
    // (It exits before uciok, or even before reading uci.)
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("/bin/true: the engine exited before uciok") || err.contains("/bin/true: cannot write"),
        "{o:?}"
    );
}

#[test]
fn tb_generates_probes_and_verifies() {
    let dir = std::env::temp_dir().join(format!("mill-tb-test-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let o = mill(&["tb", "generate", "--dir", d, "--max", "3"]);
    assert!(o.status.success(), "{o:?}");
    assert!(stdout(&o).contains("3v3: 210140 positions"), "{}", stdout(&o));
    // Light flies g1-g7, closes a7 d7 g7 and takes one of Dark's three.
    let won = "LL./.../D../...D.D/.../.../..L l 0 0 0 0";
    let o = mill(&["tb", "probe", "--dir", d, "--position", won]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "win in 1", "{out}");
    assert!(lines.iter().any(|l| l.starts_with("best turn: g1-g7x")), "{out}");
    // Pieces in hand: not in the tables.
    let o = mill(&[
        "tb",
        "probe",
        "--dir",
        d,
        "--position",
        ".../.../.../....../.../.../... l 9 9 0 0",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not in the tables"));
    let o = mill(&["tb", "verify", "--dir", d]);
    assert!(o.status.success(), "{o:?}");
    assert!(stdout(&o).contains("positions verified"), "{}", stdout(&o));
    // Hard with the tables takes the win at once.
    let o = mill(&["bestmove", "--position", won, "--tb", d, "--depth", "2"]);
    assert!(o.status.success(), "{o:?}");
    assert!(stdout(&o).starts_with("g1-g7x"), "{}", stdout(&o));
    // Another rule set gets files of its own, next to nine's; one the solver cannot
    // solve is refused.
    let o = mill(&[
        "tb",
        "generate",
        "--dir",
        d,
        "--max",
        "3",
        "--variant",
        "six",
        "--protect",
        "off",
    ]);
    assert!(o.status.success(), "{o:?}");
    assert!(dir.join("six+protect-off-3v3.mtb").is_file());
    let o = mill(&["tb", "verify", "--dir", d, "--variant", "six", "--protect", "off"]);
    assert!(o.status.success(), "{o:?}");
    let o = mill(&["tb", "probe", "--dir", d, "--position", won]);
    assert!(o.status.success(), "{o:?}");
    let o = mill(&[
        "tb",
        "generate",
        "--dir",
        d,
        "--max",
        "5",
        "--removals",
        "per-mill",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("at most 4 pieces a side"),
        "{o:?}"
    );
    let o = mill(&["tb", "generate", "--dir", d, "--max", "3", "--variant", "three"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("a line wins at once"),
        "{o:?}"
    );
    // Nine's tables do not answer a position of nine without protected mills.
    let o = mill(&[
        "tb",
        "probe",
        "--dir",
        d,
        "--position",
        &format!("{won} nine+protect-off"),
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no tablebase of nine+protect-off"),
        "{o:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let o = mill(&["tb", "probe", "--dir", d, "--position", won]);
    assert!(!o.status.success());
}

#[test]
fn three_is_solved_whole_verified_and_probed() {
    let dir = std::env::temp_dir().join(format!("mill-tb-three-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let o = mill(&["tb", "generate", "--dir", d, "--variant", "three", "--all"]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(out.contains("three-whole.mtw: 3870 positions"), "{out}");
    assert!(out.contains("the empty board: win in 9"), "{out}");
    let o = mill(&["tb", "verify", "--dir", d, "--variant", "three"]);
    assert!(o.status.success(), "{o:?}");
    assert!(
        stdout(&o).starts_with("3870 positions verified"),
        "{}",
        stdout(&o)
    );
    // Several positions in one run: the empty board, and a line in one at the 99th
    // quiet turn and (too late) at the 100th.
    let o = mill(&[
        "tb",
        "probe",
        "--dir",
        d,
        "--position",
        ".../.../... l 3 3 0 0 three",
        "--position",
        "LL./D.L/D.D l 0 0 0 99 three",
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1..3], ["win in 9", "best turn: d4"], "{out}");
    assert_eq!(lines[4..6], ["win in 1", "best turn: g4-g7"], "{out}");
    // A value changed on disk is caught.
    let path = dir.join("three-whole.mtw");
    let mut bytes = std::fs::read(&path).unwrap();
    let start = 8 + 1 + 5 + 4;
    let word = (start..bytes.len())
        .step_by(2)
        .find(|&i| bytes[i] == 0 && bytes[i + 1] == 0)
        .unwrap();
    bytes[word] = 3; // a draw made a win in 0
    std::fs::write(&path, &bytes).unwrap();
    let o = mill(&["tb", "verify", "--dir", d, "--variant", "three"]);
    assert!(!o.status.success(), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("successors give"),
        "{o:?}"
    );
    // Perfect plays the table's turn.
    let o = mill(&["bestmove", "--variant", "three", "--level", "perfect"]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o).trim(), "d4");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arena_jobs_play_the_same_games_in_the_same_order() {
    let run = |jobs: &str| {
        let o = mill(&[
            "arena",
            "--a",
            "medium",
            "--b",
            "easy",
            "--games",
            "6",
            "--depth",
            "3",
            "--seed",
            "4",
            "--verbose",
            "--progress",
            "--jobs",
            jobs,
        ]);
        assert!(o.status.success(), "{o:?}");
        (stdout(&o), String::from_utf8_lossy(&o.stderr).to_string())
    };
    // Everything but the milliseconds measured.
    let timeless = |out: &str| -> String {
        let words: Vec<&str> = out.split(' ').collect();
        let kept: Vec<&str> = words
            .iter()
            .enumerate()
            .filter(|&(i, _)| !words.get(i + 1).is_some_and(|w| w.starts_with("ms")))
            .map(|(_, w)| *w)
            .collect();
        kept.join(" ")
    };
    let (one, progress) = run("1");
    let (three, _) = run("3");
    assert_eq!(timeless(&one), timeless(&three));
    let games: Vec<&str> = one.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 6, "{one}");
    for (i, line) in games.iter().enumerate() {
        assert!(line.starts_with(&format!("game {} (", i + 1)), "{one}");
    }
    // The running score after every game, the last one the match's.
    let after: Vec<&str> = progress.lines().filter(|l| l.starts_with("after ")).collect();
    assert_eq!(after.len(), 6, "{progress}");
    assert!(after[0].starts_with("after 1 of 6 games: "), "{progress}");
    let elo = one.lines().find(|l| l.starts_with("Elo ")).unwrap();
    assert!(
        after[5].starts_with("after 6 of 6 games: ") && after[5].contains(&format!("; {elo}; a turn: ")),
        "{progress}"
    );
}

#[test]
fn arena_tells_an_external_engine_the_variant_and_its_options() {
    let me = env!("CARGO_BIN_EXE_mill");
    let external = format!("uci:{me} uci");
    // Six Men's Morris has no a1 or d7: an engine left on nine would answer turns the
    // arena refuses. Both sides external, so two processes each play six.
    for rules in [
        &["--variant", "six"][..],
        &["--variant", "twelve", "--removals", "per-mill"][..],
    ] {
        let mut args = vec![
            "arena",
            "--a",
            &external,
            "--b",
            &external,
            "--games",
            "2",
            "--depth",
            "2",
            "--seed",
            "2",
            "--verbose",
        ];
        args.extend_from_slice(rules);
        let o = mill(&args);
        assert!(o.status.success(), "{rules:?}: {o:?}");
        let out = stdout(&o);
        assert!(out.contains(": 2 games: "), "{out}");
        assert_eq!(out.lines().filter(|l| l.starts_with("game ")).count(), 2, "{out}");
    }
    // Options reach the engine; one it refuses stops the match with its error.
    let o = mill(&[
        "arena",
        "--a",
        &external,
        "--b",
        "easy",
        "--games",
        "2",
        "--depth",
        "2",
        "--a-option",
        "Contempt=0",
        "--a-option",
        "Hash=1",
    ]);
    assert!(o.status.success(), "{o:?}");
    let o = mill(&[
        "arena",
        "--a",
        &external,
        "--b",
        "easy",
        "--games",
        "2",
        "--depth",
        "2",
        "--a-option",
        "Colour=red",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("info string error setoption: unknown option \"colour\""),
        "{err}"
    );
    let o = mill(&[
        "arena",
        "--a",
        "hard",
        "--b",
        "easy",
        "--games",
        "2",
        "--depth",
        "2",
        "--a-option",
        "Contempt=0",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("options are for uci: players only"),
        "{o:?}"
    );
    let o = mill(&[
        "arena",
        "--a",
        &external,
        "--b",
        "easy",
        "--games",
        "2",
        "--depth",
        "2",
        "--a-option",
        "Hash",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("expected NAME=VALUE"),
        "{o:?}"
    );
}
