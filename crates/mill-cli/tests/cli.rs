//! The `mill` binary end to end: output formats, exit codes, error messages.

use mill_core::Game;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn mill(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mill"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mill runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn perft_prints_one_line_per_depth() {
    let o = mill(&["perft", "3"], "");
    assert!(o.status.success());
    assert_eq!(stdout(&o), "1 24\n2 552\n3 12144\n");
    let o = mill(&["perft", "1", "--position", "bad"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad position string"));
}

#[test]
fn legal_lists_turns_in_notation() {
    let o = mill(
        &["legal", "--position", "L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 0"],
        "",
    );
    assert!(o.status.success());
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 9);
    assert!(lines.contains(&"a1-d1".to_string()));
    // With a mill to close, every removal choice is its own turn.
    let o = mill(
        &["legal", "--position", ".../.../.../.D..../.../D../LL. l 7 7 0 0"],
        "",
    );
    let text = stdout(&o);
    assert!(text.contains("g1xb2\n") && text.contains("g1xb4\n"), "{text}");
}

#[test]
fn replay_prints_the_final_position_and_the_result() {
    // A random game played to its end with the library, replayed by the binary.
    let mut game = Game::default();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    while !game.is_over() {
        let turns = game.legal_turns();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        game.play(turns[(seed % turns.len() as u64) as usize]).unwrap();
    }
    let mut record = String::from("# a random game\n");
    for (i, t) in game.record().iter().enumerate() {
        record.push_str(t);
        record.push(if i % 2 == 1 { '\n' } else { ' ' });
    }
    let o = mill(&["replay", "-"], &record);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], game.position().to_string());
    assert_eq!(lines[1], format!("result: {}", game.outcome().unwrap()));
    assert!(lines[1].starts_with("result: "));
}

#[test]
fn replay_of_an_unfinished_game_is_ongoing() {
    let o = mill(&["replay"], "a1 d2 # comment\nd1 b4 g1xd2\n");
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        ".../.../.../.D..../.../.../LLL d 6 7 0 0\nresult: ongoing\n"
    );
}

#[test]
fn replay_stops_at_the_first_bad_turn_with_its_number_and_reason() {
    let o = mill(&["replay"], "a1 d2 d1 b4 g1\n");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("turn 5 (g1)") && err.contains("must remove"),
        "{err}"
    );
    let o = mill(&["replay"], "a1 a1\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("turn 2 (a1): illegal: that point is already taken"));
    let o = mill(&["replay"], "a1 zz9\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("turn 2 (zz9)"));
    let o = mill(&["replay", "/nonexistent/record"], "");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn convert_between_position_strings_mfen_and_records() {
    let start = ".../.../.../....../.../.../... l 9 9 0 0";
    let start_mfen = "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -";
    let o = mill(&["convert", "--text", start, "--to", "mfen"], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout(&o), format!("{start_mfen}\n"));
    let o = mill(
        &[
            "convert",
            "--text",
            start_mfen,
            "--to",
            "position",
            "--variant",
            "nine",
        ],
        "",
    );
    assert_eq!(stdout(&o), format!("{start}\n"));

    // A record from standard input: its final position, as MFEN, and as a record.
    let record = "1. a1 b2 2. d1 d2 3. g1xd2\n";
    let o = mill(&["convert", "--to", "position"], record);
    assert_eq!(stdout(&o), ".../.../.../....../.../D../LLL d 6 7 0 0\n");
    let o = mill(&["convert", "-", "--to", "mfen"], record);
    assert_eq!(
        stdout(&o),
        "MFEN/1.0 mill24-state-v1 ....WWW./......B./........ b p p 6,7 - 0 5 -\n"
    );
    let o = mill(
        &[
            "convert",
            "--to",
            "record",
            "--light",
            "Anna",
            "--date",
            "2026.12.01",
        ],
        record,
    );
    assert_eq!(
        stdout(&o),
        "[Variant \"nine\"]\n[Date \"2026.12.01\"]\n[Light \"Anna\"]\n[Result \"*\"]\n\n1. a1 b2 2. d1 d2 3. g1xd2 *\n"
    );
    // A position becomes a record that starts there.
    let o = mill(
        &[
            "convert",
            "--text",
            ".../.../.../....../.../.../LLL d 6 7 0 0",
            "--to",
            "record",
        ],
        "",
    );
    assert!(stdout(&o).contains("[Start \".../.../.../....../.../.../LLL d 6 7 0 0\"]"));
}

#[test]
fn convert_names_what_is_wrong() {
    let err = |args: &[&str], input: &str| {
        let o = mill(args, input);
        assert_eq!(o.status.code(), Some(1), "{args:?} succeeded");
        assert!(o.stdout.is_empty());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = err(&["convert", "--to", "mfen"], "1. a1 b2 2. d1 d2 3. g1xd3\n");
    assert!(e.contains("turn 5 (3. g1xd3)"), "{e}");
    let e = err(&["convert", "--to", "mfen"], "[Date 12]\n1. a1\n");
    assert!(e.contains("line 1"), "{e}");
    let e = err(
        &["convert", "--text", "LLL/.../... l 9 9 0 0", "--to", "mfen"],
        "",
    );
    assert!(e.contains("bad position string"), "{e}");
    let e = err(
        &[
            "convert",
            "--text",
            "MFEN/1.0 mill24-state-v1 ......../......../........ w m m 9,9 - 0 0 -",
            "--to",
            "position",
            "--variant",
            "nine",
        ],
        "",
    );
    assert!(e.contains("inconsistent"), "{e}");
    let e = err(&["convert", "--to", "record", "--date", "May"], "a1\n");
    assert!(e.contains("date"), "{e}");
    let e = err(&["convert", "--to", "mfen", "--variant", "fifteen"], "a1\n");
    assert!(e.contains("fifteen"), "{e}");
    let o = mill(&["convert", "--help"], "");
    assert!(stdout(&o).contains("MFEN"));
}

#[test]
fn convert_mfen_to_mfen_keeps_the_count_of_placements_and_moves() {
    for mfen in [
        "MFEN/1.0 mill24-state-v1 WWW...../BBB...../........ w m m 0,0 - 0 40 -",
        "MFEN/1.0 mill24-state-v1 W......./B......./........ w p p 8,8 - 0 6 -",
        "MFEN/1.0 mill24-state-v1 W......./B......./........ w p p 8,8 - 0 2 -",
    ] {
        let o = mill(
            &[
                "convert",
                "--text",
                mfen,
                "--from",
                "mfen",
                "--to",
                "mfen",
                "--variant",
                "nine",
            ],
            "",
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), format!("{mfen}\n"));
    }
}

#[test]
fn convert_refuses_mfen_without_its_rules() {
    let mfen = "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -";
    for args in [
        &["convert", "--text", mfen, "--to", "position"][..],
        &["convert", "--text", mfen, "--from", "mfen", "--to", "mfen"][..],
    ] {
        let o = mill(args, "");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty());
        assert!(stderr(&o).contains("manifest-missing"), "{}", stderr(&o));
    }
    // A record names its rules, a six-part position string is Nine's: both still convert.
    let o = mill(&["convert", "--to", "mfen"], "1. a1 b2\n");
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn legal_lists_the_removals_while_one_is_owed() {
    let o = mill(
        &["legal", "--position", "LLL/.../.../....../.../.../DDD l 0 0 1 0"],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(
        lines,
        ["xa1", "xd1", "xg1"],
        "every Dark piece stands in the mill"
    );
    let perft = mill(
        &[
            "perft",
            "1",
            "--actions",
            "--position",
            "LLL/.../.../....../.../.../DDD l 0 0 1 0",
        ],
        "",
    );
    assert_eq!(stdout(&perft), format!("1 {}\n", lines.len()));
    // Two removals owed (a removal per mill): each set once, in an order that works.
    let o = mill(
        &[
            "legal",
            "--position",
            "LLL/.../.../L...../.../D../LDD l 0 0 2 0",
            "--removals",
            "per-mill",
        ],
        "",
    );
    let text = stdout(&o);
    let sets: Vec<&str> = text.lines().collect();
    assert_eq!(sets.len(), 3, "{text}{}", stderr(&o));
    assert!(sets.iter().all(|l| l.matches('x').count() == 2), "{text}");
}

#[test]
fn dark_first_rules_start_with_dark_and_read_mfen_with_black_to_move() {
    let mfen = "MFEN/1.0 mill24-state-v1 ......../......../........ b p p 9,9 - 0 0 -";
    let o = mill(
        &["convert", "--text", mfen, "--to", "position", "--variant", "nine"],
        "",
    );
    // The hands are read as given: Black to move under Nine is a position too, though
    // not Nine's start.
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), ".../.../.../....../.../.../... d 9 9 0 0");
    let o = mill(
        &[
            "convert",
            "--text",
            mfen,
            "--to",
            "position",
            "--variant",
            "nine+dark-first",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        ".../.../.../....../.../.../... d 9 9 0 0 nine+dark-first\n"
    );
    let o = mill(
        &["replay", "-", "--variant", "nine", "--first", "dark"],
        "a1 d2\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        ".../.../.../....../.../.L./D.. d 8 8 0 0 nine+dark-first\nresult: ongoing\n"
    );
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn every_command_takes_the_variant_and_the_rule_options() {
    let o = mill(&["perft", "3", "--variant", "three"], "");
    assert_eq!(stdout(&o), "1 9\n2 72\n3 504\n");
    let o = mill(&["perft", "2", "--variant", "six"], "");
    assert_eq!(stdout(&o), "1 16\n2 240\n");
    // The flags give a six-part position string its rules…
    let o = mill(
        &[
            "legal",
            "--variant",
            "three",
            "--position",
            "LL./.D./D.. l 1 1 0 0",
        ],
        "",
    );
    assert_eq!(stdout(&o), "d1\ng1\na4\ng4\ng7\n");
    // …and must agree with a seventh part.
    let o = mill(
        &[
            "legal",
            "--variant",
            "six",
            "--position",
            ".../.../... l 3 3 0 0 three",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("played under three but the flags say six"),
        "{}",
        stderr(&o)
    );
    let o = mill(
        &["perft", "1", "--variant", "three", "--removals", "per-mill"],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no removals"), "{}", stderr(&o));
    let o = mill(&["perft", "1", "--fly-at", "9"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("fly-at 9"), "{}", stderr(&o));
    let o = mill(&["perft", "1", "--variant", "ten"], "");
    assert_eq!(o.status.code(), Some(2), "clap refuses an unknown variant");
    // Per-mill: each set of removals once, in a playable order.
    let per_mill = [
        "legal",
        "--removals",
        "per-mill",
        "--position",
        "L../DDD/.../L...../.../.D./.LL l 5 5 0 0",
    ];
    let text = stdout(&mill(&per_mill, ""));
    let closing: Vec<&str> = text.lines().filter(|l| l.starts_with("a1x")).collect();
    assert_eq!(closing, ["a1xd2xb6", "a1xd2xd6", "a1xd2xf6"]);
    // Protection off: the mill's pieces may go while d2 stands free.
    let mut protect_off = per_mill;
    protect_off[1..3].copy_from_slice(&["--protect", "off"]);
    let text = stdout(&mill(&protect_off, ""));
    let closing: Vec<&str> = text.lines().filter(|l| l.starts_with("a1x")).collect();
    assert_eq!(closing, ["a1xd2", "a1xb6", "a1xd6", "a1xf6"]);
}

#[test]
fn replay_of_other_variants_and_the_new_results() {
    let o = mill(&["replay", "-", "--variant", "three"], "a1 a4 d1 d4 g1");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        ".../DD./LLL d 0 1 0 0 three\nresult: light wins (mill)\n"
    );
    // Any playable order of the removals is accepted; the other is refused.
    let position = [
        "--removals",
        "per-mill",
        "--position",
        "L../DDD/.../L...../.../.D./.LL l 5 5 0 0",
    ];
    let mut args = vec!["replay", "-"];
    args.extend(position);
    let o = mill(&args, "a1xd2xd6");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("L../D.D/.../L...../.../.../LLL d 4 5 0 0 nine+per-mill\n"));
    let o = mill(&args, "a1xd6xd2");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("turn 1 (a1xd6xd2): illegal"),
        "{}",
        stderr(&o)
    );
    // Twelve: a board filled by placing is drawn.
    let record = "a4 a1 b4 a7 c3 b2 c5 b6 d1 c4 d2 d3 d6 d5 e3 d7 e4 e5 f6 f2 g1 f4 g7 g4";
    let o = mill(&["replay", "-", "--variant", "twelve"], record);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with(" l 0 0 0 0 twelve\nresult: draw (board-full)\n"),
        "{}",
        stdout(&o)
    );
}
