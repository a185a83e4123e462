//! Game records and MFEN: the examples, every kind of malformed input, and round trips
//! over random games.

mod common;

use common::{Rng, game_of, pos};
use mill_core::record::TurnProblem;
use mill_core::{
    Color, DrawReason, Game, Header, Mfen, MfenError, NINE, Outcome, PlayError, Position, Record,
    RecordError, Rules, Variant, WinReason,
};
use proptest::prelude::*;

/// Light to move g4-g1, closing a1 d1 g1 against a flying Dark of three pieces.
const WON_START: &str = ".../L../D.D/.....L/.D./.../LL. l 0 0 0 0";

const START_MFEN: &str = "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -";

fn turn_error(text: &str) -> (usize, String, String, TurnProblem) {
    match Record::parse(text) {
        Err(RecordError::Turn {
            number,
            label,
            text,
            problem,
        }) => (number, label, text, problem),
        other => panic!("expected a turn error for {text:?}, got {other:?}"),
    }
}

fn header_error(text: &str) -> (usize, String) {
    match Record::parse(text) {
        Err(RecordError::Header { line, problem }) => (line, problem),
        other => panic!("expected a header error for {text:?}, got {other:?}"),
    }
}

fn result_error(text: &str) -> String {
    match Record::parse(text) {
        Err(e @ RecordError::Result(_)) => {
            assert_eq!(e.code(), "bad-result");
            e.to_string()
        }
        other => panic!("expected a result error for {text:?}, got {other:?}"),
    }
}

// ---------------------------------------------------------------- records

#[test]
fn a_record_carries_variant_date_players_result_and_turns() {
    let game = game_of(&["a1", "b2", "d1", "d2", "g1xd2", "f4"]);
    let header = Header {
        date: Some("2026.12.01".into()),
        light: Some("Anna".into()),
        dark: Some("Computer \"hard\"".into()),
        other: vec![("Site".into(), "127.0.0.1".into())],
    };
    let text = Record::new(game.clone(), header.clone()).to_string();
    assert_eq!(
        text,
        "[Variant \"nine\"]\n[Date \"2026.12.01\"]\n[Light \"Anna\"]\n[Dark \"Computer \\\"hard\\\"\"]\n\
         [Result \"*\"]\n[Site \"127.0.0.1\"]\n\n1. a1 b2 2. d1 d2 3. g1xd2 f4 *\n"
    );
    let back = Record::parse(&text).unwrap();
    assert_eq!(back.header, header);
    assert_eq!(back.game.record(), game.record());
    assert_eq!(back.game.position(), game.position());
}

#[test]
fn a_record_without_header_or_numbers_is_read_as_nine() {
    let r = Record::parse("a1 b2 d1 d2 g1xd2").unwrap();
    assert_eq!(r.game.record(), ["a1", "b2", "d1", "d2", "g1xd2"]);
    assert_eq!(r.game.position().variant(), Variant::Nine);
    assert_eq!(r.header, Header::default());
    // Comments and line breaks are only spacing.
    let r = Record::parse("1. a1 {a corner} b2\n2. d1 d2 3. g1xd2").unwrap();
    assert_eq!(r.game.record().len(), 5);
}

#[test]
fn results_decided_by_players_survive_a_round_trip() {
    for (result, expected) in [
        (
            "1-0",
            Outcome::Win {
                winner: Color::Light,
                reason: WinReason::Resignation,
            },
        ),
        (
            "0-1",
            Outcome::Win {
                winner: Color::Dark,
                reason: WinReason::Resignation,
            },
        ),
        (
            "1/2-1/2",
            Outcome::Draw {
                reason: DrawReason::Agreement,
            },
        ),
    ] {
        let r = Record::parse(&format!("1. a1 b2 {result}")).unwrap();
        assert_eq!(r.game.outcome(), Some(expected));
        let again = Record::parse(&r.to_string()).unwrap();
        assert_eq!(again.game.outcome(), Some(expected));
        assert!(r.to_string().contains(&format!("[Result \"{result}\"]")));
    }
}

#[test]
fn the_clocks_results_survive_a_round_trip_with_the_time_control() {
    for (result, termination, expected) in [
        (
            "0-1",
            "timeout",
            Outcome::Win {
                winner: Color::Dark,
                reason: WinReason::Timeout,
            },
        ),
        (
            "1-0",
            "abandoned",
            Outcome::Win {
                winner: Color::Light,
                reason: WinReason::Abandoned,
            },
        ),
        (
            "1/2-1/2",
            "abandoned",
            Outcome::Draw {
                reason: DrawReason::Abandoned,
            },
        ),
        ("*", "aborted", Outcome::Aborted),
    ] {
        let text = format!(
            "[Result \"{result}\"]\n[Termination \"{termination}\"]\n[TimeControl \"300+3\"]\n\n1. a1 {result}"
        );
        let r = Record::parse(&text).unwrap();
        assert_eq!(r.game.outcome(), Some(expected), "{text}");
        let written = r.to_string();
        assert!(
            written.contains(&format!("[Termination \"{termination}\"]")),
            "{written}"
        );
        assert!(
            written.contains("[TimeControl \"300+3\"]"),
            "kept as any other tag: {written}"
        );
        let again = Record::parse(&written).unwrap();
        assert_eq!(again.game.outcome(), Some(expected));
    }
    // A result and a termination that do not make one are refused.
    for (result, termination) in [("1/2-1/2", "timeout"), ("1-0", "aborted"), ("*", "timeout")] {
        let text = format!("[Result \"{result}\"]\n[Termination \"{termination}\"]\n\n1. a1 {result}");
        assert!(Record::parse(&text).is_err(), "{text}");
    }
    // Without a termination `*` is still a game not over.
    assert_eq!(Record::parse("1. a1 *").unwrap().game.outcome(), None);
}

#[test]
fn a_game_from_a_set_up_position_records_its_start() {
    let start = pos("L.D/.LD/D.L/LD..DL/L.D/.D./L.D d 0 0 0 7");
    let mut game = Game::from_position(start);
    let t = start.topology();
    let turn = game.legal_turns()[0];
    game.play(turn).unwrap();
    let text = Record::new(game.clone(), Header::default()).to_string();
    assert!(text.contains(&format!("[Start \"{start}\"]")), "{text}");
    assert!(text.contains(&format!("1... {}", turn.to_notation(t))), "{text}");
    let back = Record::parse(&text).unwrap();
    assert_eq!(back.game.start(), &start);
    assert_eq!(back.game.position(), game.position());
    // The start may also be given as MFEN.
    let mfen = start.to_mfen().unwrap();
    let r = Record::parse(&format!("[Start \"{mfen}\"]\n\n1... {}", turn.to_notation(t))).unwrap();
    assert_eq!(r.game.position(), game.position());
}

#[test]
fn a_game_that_started_mid_turn_records_the_removal_first() {
    let start = pos(".../.../.../....../.../D../LLL l 6 7 1 0");
    let mut game = Game::from_position(start);
    let b2 = start.topology().point("b2").unwrap();
    game.play_action(mill_core::Action::Remove { at: b2 }).unwrap();
    let text = Record::new(game.clone(), Header::default()).to_string();
    assert!(text.contains("1. xb2 *"), "{text}");
    let back = Record::parse(&text).unwrap();
    assert_eq!(back.game.position(), game.position());
}

#[test]
fn an_unfinished_turn_is_left_out() {
    let mut game = game_of(&["a1", "b2", "d1", "d2"]);
    let g1 = game.position().topology().point("g1").unwrap();
    game.play_action(mill_core::Action::Place { to: g1 }).unwrap();
    let text = Record::new(game, Header::default()).to_string();
    assert!(text.ends_with("1. a1 b2 2. d1 d2 *\n"), "{text}");
}

#[test]
fn a_bad_turn_is_named_by_number_label_and_text() {
    let (n, label, text, problem) = turn_error("1. a1 b2 2. d1 d2 3. g1xd3");
    assert_eq!((n, label.as_str(), text.as_str()), (5, "3.", "g1xd3"));
    assert_eq!(problem, TurnProblem::Illegal(PlayError::Empty));

    let (n, label, text, problem) = turn_error("1. a1 b2 2. d1 zz9");
    assert_eq!((n, label.as_str(), text.as_str()), (4, "2...", "zz9"));
    assert!(matches!(problem, TurnProblem::Notation(_)), "{problem:?}");

    let (n, _, _, problem) = turn_error("1. a1 a1");
    assert_eq!((n, problem), (2, TurnProblem::Illegal(PlayError::Occupied)));

    // A mill closed without its removal, and a removal not earned.
    let (n, _, _, problem) = turn_error("a1 b2 d1 d2 g1");
    assert_eq!((n, problem), (5, TurnProblem::Illegal(PlayError::RemovalMissing)));
    let (n, _, _, problem) = turn_error("a1 b2xa1");
    assert_eq!(
        (n, problem),
        (2, TurnProblem::Illegal(PlayError::UnexpectedRemoval))
    );

    let err = Record::parse("1. a1 b2 2. d1 d2 3. g1xd3").unwrap_err();
    assert_eq!(err.code(), "bad-turn");
    assert_eq!(
        err.to_string(),
        "turn 5 (3. g1xd3): illegal: there is no piece on that point"
    );
}

#[test]
fn wrong_move_numbers_are_refused() {
    let (n, _, text, problem) = turn_error("1. a1 b2 3. d1");
    assert_eq!((n, text.as_str()), (3, "3."));
    assert_eq!(
        problem,
        TurnProblem::MoveNumber {
            expected: "2.".into(),
            found: "3.".into()
        }
    );
    // Dark's turn cannot be numbered as Light's.
    let (n, _, _, problem) = turn_error("1. a1 1. b2");
    assert_eq!(n, 2);
    assert!(matches!(problem, TurnProblem::MoveNumber { .. }));
}

#[test]
fn text_after_the_result_and_open_comments_are_refused() {
    let (n, _, text, problem) = turn_error("1. a1 b2 * d1");
    assert_eq!((n, text.as_str(), problem), (3, "d1", TurnProblem::AfterResult));
    let (n, _, _, problem) = turn_error("1. a1 b2 {never closed d1");
    assert_eq!((n, problem), (3, TurnProblem::UnclosedComment));
}

#[test]
fn bad_header_lines_are_named_by_line() {
    let (line, problem) = header_error("[Variant \"nine\"]\n[Date 2026.12.01]\n\n1. a1");
    assert_eq!(line, 2);
    assert!(problem.contains("not a tag"), "{problem}");
    let (line, problem) = header_error("[Light \"a\"]\n[Light \"b\"]\n");
    assert_eq!(line, 2);
    assert!(problem.contains("twice"), "{problem}");
    let (line, problem) = header_error("[Variant \"fifteen\"]\n");
    assert_eq!(line, 1);
    assert!(problem.contains("fifteen"), "{problem}");
    let (line, _) = header_error("\n[Date \"1st of May\"]\n");
    assert_eq!(line, 2);
    let (_, problem) = header_error("[Start \"LLL/.../... l 9 9 0 0\"]\n");
    assert!(problem.starts_with("start position:"), "{problem}");
    let (_, problem) = header_error("[Result \"2-0\"]\n");
    assert!(problem.contains("2-0"), "{problem}");
    let (_, problem) = header_error("[Termination \"boredom\"]\n");
    assert!(problem.contains("boredom"), "{problem}");
    let (_, problem) = header_error("[Light \"a \\q\"]\n");
    assert!(problem.contains("not a tag"), "{problem}");
    assert_eq!(
        Record::parse("[Light \"a\"]\n[Light \"b\"]").unwrap_err().code(),
        "bad-header"
    );
}

#[test]
fn results_that_contradict_the_turns_are_refused() {
    // Light wins on the board: closing a1 d1 g1 leaves Dark with two pieces.
    let won = format!("[Start \"{WON_START}\"]\n\n1. g4-g1xc5");
    let won = won.as_str();
    let r = Record::parse(won).unwrap();
    assert_eq!(
        r.game.outcome(),
        Some(Outcome::Win {
            winner: Color::Light,
            reason: WinReason::Pieces
        })
    );
    assert!(result_error(&format!("{won} 0-1")).contains("light wins (pieces)"));
    assert!(result_error(&format!("{won} *")).contains("result says *"));
    result_error(&format!("[Termination \"resignation\"]\n{won}"));
    // The header and the closing token disagree.
    result_error("[Result \"1-0\"]\n\n1. a1 b2 0-1");
    // A reason that only the board can give, on a game the board has not ended.
    result_error("[Result \"1-0\"]\n[Termination \"pieces\"]\n\n1. a1 b2");
    result_error("[Termination \"agreement\"]\n\n1. a1 b2");
    // Turns after the end of the game.
    let (n, _, _, problem) = turn_error(&format!("{won} d3-d2"));
    assert_eq!((n, problem), (2, TurnProblem::Illegal(PlayError::GameOver)));
}

// ---------------------------------------------------------------- MFEN

#[test]
fn mfen_of_the_start_and_of_a_removal_owed() {
    assert_eq!(Position::default().to_mfen().unwrap(), START_MFEN);
    assert_eq!(
        Position::from_mfen(START_MFEN, NINE).unwrap(),
        Position::default()
    );

    // a1 b2 d1 d2 g1: Light closed a1 d1 g1 and owes a removal; d2 and b2 can go.
    let mut game = game_of(&["a1", "b2", "d1", "d2"]);
    let g1 = game.position().topology().point("g1").unwrap();
    game.play_action(mill_core::Action::Place { to: g1 }).unwrap();
    let text = Mfen::from_game(&game).write().unwrap();
    assert_eq!(
        text,
        "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 w:mill:b:b:1:006000:b 0 5 -"
    );
    let back = Mfen::parse(&text, NINE).unwrap();
    assert_eq!(back.position, *game.position());
    assert_eq!(back.primary_ply, 5);

    // The draft's own example of a removal owed: a7 d7 g7 against a1 and b2.
    let draft = "MFEN/1.0 mill24-state-v1 WWW...B./......B./........ w p r 6,7 w:mill:b:b:1:004040:b 0 5 -";
    let m = Mfen::parse(draft, NINE).unwrap();
    assert_eq!(m.position, pos("LLL/.../.../....../.../D../D.. l 6 7 1 0"));
    assert_eq!(m.write().unwrap(), draft);

    // The phase follows the side to move: with its hand empty it is m, removal or not.
    let last_placed = pos(".../LL./.../....L./.../.../DDD d 0 0 1 0");
    let text = last_placed.to_mfen().unwrap();
    assert!(text.contains(" b m r 0,0 b:mill:b:w:1:"), "{text}");
    assert_eq!(Position::from_mfen(&text, NINE).unwrap(), last_placed);
    let wrong = text.replace(" b m r ", " b p r ");
    assert_eq!(mfen_error(&wrong).code(), "inconsistent");
}

#[test]
fn mfen_of_a_finished_game() {
    let won = Record::parse(&format!("[Start \"{WON_START}\"]\n\n1. g4-g1xc5"))
        .unwrap()
        .game;
    let text = Mfen::from_game(&won).write().unwrap();
    assert_eq!(
        text,
        "MFEN/1.0 mill24-state-v1 ....WWW./W......./..B..B.. - o o 0,0 - 0 19 w:fewer-than-minimum"
    );
    let back = Mfen::parse(&text, NINE).unwrap();
    assert_eq!(back.position, *won.position());
    assert_eq!(back.outcome, won.outcome());

    let mut resigned = game_of(&["a1", "b2"]);
    resigned.resign(Color::Dark).unwrap();
    let text = Mfen::from_game(&resigned).write().unwrap();
    assert!(text.ends_with(" w:resignation"), "{text}");
    let back = Mfen::parse(&text, NINE).unwrap();
    assert_eq!(back.position, *resigned.position());
    assert_eq!(back.outcome, resigned.outcome());

    // The clock's results in MIF's private forms; an abort, which MIF cannot say, is the
    // position still to be played.
    let mut flagged = game_of(&["a1", "b2"]);
    flagged.time_out(Color::Light).unwrap();
    let text = Mfen::from_game(&flagged).write().unwrap();
    assert!(text.ends_with(" b:x-timeout"), "{text}");
    assert_eq!(Mfen::parse(&text, NINE).unwrap().outcome, flagged.outcome());
    let mut left = game_of(&["a1", "b2"]);
    left.draw_abandoned().unwrap();
    let text = Mfen::from_game(&left).write().unwrap();
    assert!(text.ends_with(" d:x-abandoned"), "{text}");
    assert_eq!(Mfen::parse(&text, NINE).unwrap().outcome, left.outcome());
    let mut aborted = game_of(&["a1"]);
    aborted.abort().unwrap();
    let text = Mfen::from_game(&aborted).write().unwrap();
    assert_eq!(text, Mfen::from_game(&game_of(&["a1"])).write().unwrap());
    assert_eq!(Mfen::parse(&text, NINE).unwrap().outcome, None);
}

fn mfen_error(text: &str) -> MfenError {
    match Mfen::parse(text, NINE) {
        Err(e) => e,
        Ok(m) => panic!("{text:?} was accepted as {m:?}"),
    }
}

#[test]
fn malformed_mfen_is_refused_with_a_code() {
    let cases: &[(&str, &str)] = &[
        (".../.../.../....../.../.../... l 9 9 0 0", "unsupported-format"),
        (
            "MFEN/2.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -",
            "unsupported-format",
        ),
        (
            "MFEN/1.0  mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -",
            "syntax",
        ),
        (
            " MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 - ",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0",
            "syntax",
        ),
        (
            "MFEN/1.0 mill16-state-v1 ......../......../........ w p p 9,9 - 0 0 -",
            "unsupported-profile",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......./........ w p p 9,9 - 0 0 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......X./......../........ w p p 9,9 - 0 0 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......w./......../........ w p p 9,9 - 0 0 -",
            "inconsistent",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ x p p 9,9 - 0 0 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w q p 9,9 - 0 0 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9;9 - 0 0 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 09,9 - 0 0 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 -1 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 - pc=0,0",
            "unsupported-extension",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 - x-mine=1",
            "unsupported-extension",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w m m 9,9 - 0 0 -",
            "inconsistent",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p r 9,9 - 0 0 -",
            "inconsistent",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ - p p 9,9 - 0 0 -",
            "inconsistent",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w o o 9,9 - 0 0 -",
            "inconsistent",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 w:agreement",
            "bad-outcome",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 10,9 - 0 0 -",
            "bad-position",
        ),
        // A removal owed: by the wrong side, of the wrong pieces, of an unknown kind.
        (
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 b:mill:b:w:1:006000:w 0 5 -",
            "side-obligation-actor-mismatch",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 w:mill:b:b:1:002000:b 0 5 -",
            "obligation-target-mismatch",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 w:custodian:b:b:1:006000:b 0 5 -",
            "inconsistent",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 w:mill:b:b:1:006000:b|w:mill:b:b:1:002000:b 0 5 -",
            "inconsistent",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 w:mill:b:b:1:0060G0:b 0 5 -",
            "syntax",
        ),
        (
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p p 6,7 w:mill:b:b:1:006000:b 0 5 -",
            "inconsistent",
        ),
        // Dark is down to two pieces: the game is over, not ongoing.
        (
            "MFEN/1.0 mill24-state-v1 W.W.W.W./.....BB./........ b m m 0,0 - 0 30 -",
            "automatic-terminal-ongoing",
        ),
        // A win the board does not show.
        (
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ - o o 6,6 - 0 6 w:fewer-than-minimum",
            "bad-outcome",
        ),
    ];
    for (text, code) in cases {
        let e = mfen_error(text);
        assert_eq!(e.code(), *code, "{text:?}: {e}");
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn records_and_mfen_of_other_variants() {
    let six = Rules::parse("six").unwrap();
    let mut game = Game::from_position(Position::start(six));
    let turn = game.legal_turns()[0];
    game.play(turn).unwrap();
    let text = Record::new(game.clone(), Header::default()).to_string();
    assert!(text.starts_with("[Variant \"six\"]\n"), "{text}");
    let back = Record::parse(&text).unwrap();
    assert_eq!(back.game.position(), game.position());
    assert_eq!(back.game.position().rules(), six);
    // MFEN describes only the 24-point board.
    assert_eq!(
        game.position().to_mfen().unwrap_err().code(),
        "unrepresentable-under-profile"
    );
    assert_eq!(
        Mfen::parse(START_MFEN, six).unwrap_err().code(),
        "unrepresentable-under-profile"
    );
    // Options are part of the variant's name, and a start position must be of it.
    let r = Record::parse("[Variant \"nine+per-mill\"]\n\n1. a1").unwrap();
    assert_eq!(r.game.position().rules().to_string(), "nine+per-mill");
    let (line, problem) =
        header_error("[Variant \"six\"]\n[Start \".../.../.../....../.../.../... l 9 9 0 0 nine\"]\n");
    assert_eq!(line, 2);
    assert!(problem.contains("variant six"), "{problem}");
    let (_, problem) = header_error("[Variant \"nine+sideways\"]\n");
    assert!(problem.contains("sideways"), "{problem}");
    // Twelve Men's Morris is on the 24-point board (with diagonals): MFEN fits.
    let twelve = Variant::Twelve.rules();
    let start = Position::start(twelve);
    let text = start.to_mfen().unwrap();
    assert!(text.contains(" w p p 12,12 "), "{text}");
    assert_eq!(Position::from_mfen(&text, twelve).unwrap(), start);
    // The same record under Nine's rules has too many pieces; of the variants, only
    // Twelve reads it, and only Nine and Twelve have MFEN at all.
    assert_eq!(Mfen::parse(&text, NINE).unwrap_err().code(), "bad-position");
    let usual = Variant::ALL.map(Variant::rules);
    assert_eq!(Mfen::readable_under(&text, usual), [twelve]);
    assert_eq!(Mfen::readable_under(START_MFEN, usual), [NINE, twelve]);
    let supported: Vec<_> = usual
        .iter()
        .map(|r| Mfen::supports(r).map_err(|e| e.code()))
        .collect();
    assert_eq!(
        supported,
        [
            Err("unrepresentable-under-profile"),
            Err("unrepresentable-under-profile"),
            Ok(()),
            Ok(())
        ]
    );
}

// ---------------------------------------------------------------- round trips

/// A random game of up to `len` turns under `rules`; sometimes a player resigns or both
/// agree.
fn random_game(seed: u64, len: usize, rules: Rules) -> Game {
    let mut rng = Rng(seed);
    let mut game = Game::from_position(Position::start(rules));
    for _ in 0..len {
        let turns = game.legal_turns();
        if turns.is_empty() {
            break;
        }
        game.play(turns[rng.below(turns.len())]).unwrap();
    }
    match rng.below(8) {
        0 if !game.is_over() => game.resign(game.position().turn()).unwrap(),
        1 if !game.is_over() => game.agree_draw().unwrap(),
        _ => {}
    }
    game
}

/// Every variant with its usual rules, and a few with options changed.
fn any_rules() -> impl Strategy<Value = Rules> {
    prop::sample::select(vec![
        "nine",
        "three",
        "six",
        "twelve",
        "nine+per-mill",
        "six+protect-off",
        "twelve+fly-0",
    ])
    .prop_map(|name| Rules::parse(name).unwrap())
}

/// The rule sets on the 24-point board, which MFEN describes.
fn board_24_rules() -> impl Strategy<Value = Rules> {
    prop::sample::select(vec![
        "nine",
        "twelve",
        "nine+per-mill",
        "nine+protect-off+fly-0",
        "twelve+per-mill",
    ])
    .prop_map(|name| Rules::parse(name).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn records_round_trip(seed in 1u64..u64::MAX, len in 0usize..140, rules in any_rules()) {
        let game = random_game(seed, len, rules);
        let header = Header { date: Some("2026.??.??".into()), light: Some("L [x]".into()), dark: None, other: vec![] };
        let text = Record::new(game.clone(), header.clone()).to_string();
        let back = Record::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back.header, &header);
        prop_assert_eq!(back.game.record(), game.record());
        prop_assert_eq!(back.game.position(), game.position());
        prop_assert_eq!(back.game.outcome(), game.outcome());
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn mfen_round_trips_at_every_action(seed in 1u64..u64::MAX, len in 0usize..140, rules in board_24_rules()) {
        let game = random_game(seed, len, rules);
        let mut replay = Game::from_position(Position::start(rules));
        for &action in game.actions() {
            replay.play_action(action).unwrap();
            for mfen in [Mfen::from_game(&replay), Mfen::from_position(replay.position())] {
                let text = mfen.write().unwrap();
                let back = Mfen::parse(&text, rules)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
                prop_assert_eq!(back, mfen, "{}", text);
            }
        }
        let last = Mfen::from_game(&game);
        let back = Mfen::parse(&last.write().unwrap(), rules).unwrap();
        prop_assert_eq!(back, last);
    }

    #[test]
    fn junk_records_and_mfen_are_refused_without_panicking(text in "[ -~\n]{0,120}") {
        let _ = Record::parse(&text);
        let _ = Mfen::parse(&text, NINE);
        let _ = Mfen::parse(&format!("MFEN/1.0 mill24-state-v1 {text}"), NINE);
    }
}
