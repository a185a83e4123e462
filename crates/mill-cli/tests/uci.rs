//! `mill uci` driven over pipes as a GUI would: handshake, options, positions with
//! action tokens, a mill answered as step then removal, stop during an infinite
//! search, and bad input refused with nothing changed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Long enough for any answer on a loaded machine; only a guard against a hang.
const PATIENCE: Duration = Duration::from_secs(60);

struct Uci {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Uci {
    fn start() -> Uci {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mill"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("mill runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Uci { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn line(&self) -> String {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no answer from mill uci"),
            Err(RecvTimeoutError::Disconnected) => panic!("mill uci closed its output"),
        }
    }

    /// Every line up to and including the first that starts with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self.line();
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    fn bestmove(&self) -> (String, Vec<String>) {
        let lines = self.until("bestmove ");
        let best = lines.last().unwrap()["bestmove ".len()..].to_string();
        (best, lines)
    }

    /// The position the session holds now (the `d` debug command).
    fn shown(&mut self) -> String {
        self.send("d");
        let line = self.line();
        line.strip_prefix("info string position ")
            .unwrap_or_else(|| panic!("unexpected {line:?}"))
            .to_string()
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

/// The word after `name` in an `info` line.
fn info_field<'a>(line: &'a str, name: &str) -> &'a str {
    line.split_whitespace()
        .skip_while(|w| *w != name)
        .nth(1)
        .unwrap_or_else(|| panic!("no {name} in {line}"))
}

#[test]
fn handshake_lists_the_options_and_answers_isready() {
    let mut uci = Uci::start();
    uci.send("uci");
    let lines = uci.until("uciok");
    assert!(lines[0].starts_with("id name "), "{lines:?}");
    let level = lines
        .iter()
        .find(|l| l.starts_with("option name Level type combo"))
        .expect("a Level option");
    for name in ["beginner", "easy", "medium", "hard"] {
        assert!(level.contains(&format!("var {name}")), "{level}");
    }
    assert!(lines.iter().any(|l| l.starts_with("option name Hash type spin")));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Variant type combo"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "option name Contempt type spin default 120 min -500 max 500"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "option name PlacingForesight type check default false"),
        "{lines:?}"
    );
    uci.send("isready");
    assert_eq!(uci.line(), "readyok");
    uci.quit();
}

#[test]
fn a_mill_is_answered_as_its_step_then_its_removal() {
    let mut uci = Uci::start();
    uci.send("setoption name Level value medium");
    // Light has a1 and a4: a7 closes the a-file.
    uci.send("position startpos moves a1 g7 a4 g1");
    uci.send("go depth 3");
    let (best, lines) = uci.bestmove();
    assert_eq!(best, "a7", "{lines:?}");
    let info = lines
        .iter()
        .rfind(|l| l.starts_with("info depth"))
        .expect("an info line");
    for field in [" score cp ", " nodes ", " nps ", " pv a7 x"] {
        assert!(info.contains(field), "{info}");
    }
    // Then the whole search's count, no fewer nodes than its last iteration's.
    let nodes = |line: &str| -> u64 { info_field(line, "nodes").parse().unwrap() };
    let total = &lines[lines.len() - 2];
    assert!(total.starts_with("info nodes "), "{lines:?}");
    assert!(nodes(total) >= nodes(info), "{total} after {info}");
    uci.send("position startpos moves a1 g7 a4 g1 a7");
    uci.send("go depth 3");
    let (removal, lines) = uci.bestmove();
    assert!(["xg7", "xg1"].contains(&removal.as_str()), "{lines:?}");
    // The answer is legal: the game takes it, and Dark is to move with 8 pieces left.
    uci.send(&format!("position startpos moves a1 g7 a4 g1 a7 {removal}"));
    assert!(uci.shown().ends_with(" d 6 7 0 0"));
    uci.quit();
}

#[test]
fn a_position_given_mid_turn_gets_a_removal() {
    let mut uci = Uci::start();
    uci.send("setoption name Level value hard");
    // Light has just closed a1 d1 g1 and owes a removal; Dark's b2 d2 threaten f2.
    uci.send("position .../.../.../....../.../DD./LLL l 6 7 1 0");
    uci.send("go depth 3");
    let (removal, lines) = uci.bestmove();
    assert!(["xb2", "xd2"].contains(&removal.as_str()), "{lines:?}");
    uci.quit();
}

#[test]
fn bad_input_gets_an_error_and_changes_nothing() {
    let mut uci = Uci::start();
    uci.send("position startpos moves d6");
    let before = uci.shown();
    for bad in [
        "position startpos moves d6 d6",
        "position startpos moves zz",
        "position LLL/... l 9 9 0 0",
        "position",
        "setoption name Level value expert",
        "setoption name Hash value lots",
        "setoption name Variant value chess",
        "setoption name Variant value nine+fly-9",
        "setoption name Variant value three+per-mill",
        "setoption name Contempt value lots",
        "setoption name Contempt value 501",
        "setoption name PlacingForesight value maybe",
        "setoption name Colour value red",
        "setoption name Tablebase value /nonexistent/tables",
        "go wtime 1000",
        "go depth",
        "frobnicate",
    ] {
        uci.send(bad);
        let line = uci.line();
        assert!(line.starts_with("info string error "), "{bad}: {line}");
        assert_eq!(uci.shown(), before, "{bad}");
    }
    // The level is still the default (hard) and the engine still answers.
    uci.send("go depth 2");
    let (best, _) = uci.bestmove();
    assert!(!best.is_empty() && !best.starts_with('x'), "{best}");
    uci.quit();
}

#[test]
fn stop_ends_an_infinite_search_and_isready_is_answered_during_it() {
    let mut uci = Uci::start();
    uci.send("position startpos");
    uci.send("go infinite");
    let first = uci.line();
    assert!(first.starts_with("info depth 1 "), "{first}");
    uci.send("isready");
    let lines = uci.until("readyok");
    assert!(lines.iter().all(|l| !l.starts_with("bestmove")), "{lines:?}");
    // A command other than stop is refused while the search runs.
    uci.send("position startpos moves d6");
    let lines = uci.until("info string error");
    assert!(lines.iter().all(|l| !l.starts_with("bestmove")), "{lines:?}");
    uci.send("stop");
    let (best, lines) = uci.bestmove();
    assert!(!best.is_empty() && best != "(none)", "{best}");
    // Every time printed is the wall time since go, also after stop (not the stopped
    // clock's u64::MAX), and nps follows from it.
    for line in lines.iter().filter(|l| l.starts_with("info ")) {
        let words: Vec<&str> = line.split(' ').collect();
        let time_at = words.iter().position(|w| *w == "time").expect(line);
        let ms: u64 = words[time_at + 1].parse().expect(line);
        assert!(ms < PATIENCE.as_millis() as u64 * 10, "{line}");
    }
    assert!(uci.shown().ends_with(" l 9 9 0 0"));
    uci.quit();
}

#[test]
fn a_finished_game_has_no_best_move() {
    let mut uci = Uci::start();
    // Dark has two pieces left: Light has won.
    uci.send("position L../.L./..L/D....D/.../.../... d 0 0 0 0");
    uci.send("go depth 1");
    assert_eq!(uci.line(), "info string error go: the game is over");
    assert_eq!(uci.line(), "bestmove (none)");
    uci.quit();
}

#[test]
fn contempt_is_what_hard_scores_a_repetition_below_even() {
    let mut uci = Uci::start();
    // Light (a7 g7 a1 g1) against six: a7-d7 repeats the position a third time, its
    // best result. Dark to move first; the moves go round the cycle twice.
    let cycle = "position .LL/.D./..D/.D..D./D../.D./L.L d 0 0 0 10 moves \
                 d2-d1 d7-a7 d1-d2 a7-d7 d2-d1 d7-a7 d1-d2";
    let score = |uci: &mut Uci| {
        uci.send(cycle);
        uci.send("go depth 4");
        let (best, lines) = uci.bestmove();
        assert_eq!(best, "a7-d7", "{lines:?}");
        let info = lines.iter().rfind(|l| l.starts_with("info depth")).unwrap();
        info_field(info, "cp").to_string()
    };
    assert_eq!(score(&mut uci), "-120");
    uci.send("setoption name Contempt value 0");
    assert_eq!(score(&mut uci), "0");
    uci.send("setoption name Contempt value 75");
    assert_eq!(score(&mut uci), "-75");
    // A new table (Hash) keeps the contempt set.
    uci.send("setoption name Hash value 1");
    assert_eq!(score(&mut uci), "-75");
    uci.quit();
}

#[test]
fn the_variant_option_takes_rule_options() {
    let mut uci = Uci::start();
    uci.send("setoption name Variant value six");
    uci.send("position startpos");
    let six = uci.shown();
    assert!(six.contains(" 6 6 0 0"), "{six}");
    // Protection off: Dark's mill b2 b4 b6 may take a1 from Light's mill a1 a4 a7
    // though g7 and g1 stand free.
    let moves = "a1 b2 a4 b4 a7 xb4 f2 g7 b4 g1 b6";
    uci.send("setoption name Variant value nine+protect-off");
    uci.send(&format!("position startpos moves {moves}"));
    uci.send("go depth 1");
    let (removal, lines) = uci.bestmove();
    assert!(removal.starts_with('x'), "{lines:?}");
    uci.send(&format!("position startpos moves {moves} {removal}"));
    assert!(uci.shown().contains(" l 4 4 0 0 nine+protect-off"), "{removal}");
    uci.send(&format!("position startpos moves {moves} xa1"));
    let shown = uci.shown();
    assert!(shown.contains("/..L l 4 4 0 0 nine+protect-off"), "{shown}");
    // Under the usual rules a1 is protected: refused.
    uci.send("setoption name Variant value NINE");
    uci.send(&format!("position startpos moves {moves} xa1"));
    let line = uci.line();
    assert!(
        line.starts_with("info string error position: move 12 (xa1): "),
        "{line}"
    );
    uci.quit();
}
