//! The extended rule options (other piece counts, the draws and what a full board does),
//! each played: every test fails if its option stops changing the game it names.

mod common;
use common::*;
use mill_core::{Color, DrawReason, Game, Outcome, PlayError, Position, PositionError, Rules, WinReason};

/// Every point of the 24-point board, the first `light` of them Light's, the rest Dark's.
fn full_board(rest: &str) -> Position {
    // No three in a line for either side: the rings alternate, shifted by one.
    let light = [
        "a7", "g7", "g1", "a1", "d6", "f4", "d2", "b4", "c5", "e5", "e3", "c3",
    ];
    let dark = [
        "d7", "g4", "d1", "a4", "b6", "f6", "f2", "b2", "d5", "e4", "d3", "c4",
    ];
    setup(&light, &dark, rest)
}

fn win(winner: Color, reason: WinReason) -> Option<Outcome> {
    Some(Outcome::Win { winner, reason })
}

fn draw(reason: DrawReason) -> Option<Outcome> {
    Some(Outcome::Draw { reason })
}

#[test]
fn a_full_board_with_pieces_still_to_place_ends_as_the_rules_say() {
    // Thirteen a side: twelve each fill the board and a piece is left in each hand.
    for (rules, outcome) in [
        ("nine+pieces-13", win(Color::Dark, WinReason::NoPlacement)),
        ("nine+pieces-13+no-placement-draw", draw(DrawReason::NoPlacement)),
        (
            "nine+pieces-13+full-light-loses",
            win(Color::Dark, WinReason::BoardFull),
        ),
        ("nine+pieces-13+full-draw", draw(DrawReason::BoardFull)),
    ] {
        let p = full_board(&format!("l 1 1 0 0 {rules}"));
        assert_eq!(p.outcome(), outcome, "{rules}");
        assert!(
            p.legal_actions().is_empty() && p.legal_turns().is_empty(),
            "{rules}"
        );
    }
    // Light loses on a full board whoever is to move.
    let p = full_board("d 0 1 0 0 nine+pieces-13+full-light-loses");
    assert_eq!(p.outcome(), win(Color::Dark, WinReason::BoardFull));
    // Under the usual rules no side has the pieces to fill the board.
    let usual = full_board("l 0 0 0 0 nine+pieces-12")
        .to_string()
        .replace(" nine+pieces-12", "");
    assert_eq!(
        usual.parse::<Position>(),
        Err(PositionError::TooManyPieces(Color::Light))
    );
}

#[test]
fn a_full_board_after_placing_is_a_blockade_unless_the_rules_say_otherwise() {
    let blocked = full_board("l 0 0 0 0 nine+pieces-12");
    assert_eq!(blocked.outcome(), win(Color::Dark, WinReason::Blocked));
    let drawn = full_board("l 0 0 0 0 nine+pieces-12+full-draw");
    assert_eq!(drawn.outcome(), draw(DrawReason::BoardFull));
    // Twelve Men's Morris as ever.
    let twelve = full_board("l 0 0 0 0 twelve");
    assert_eq!(twelve.outcome(), draw(DrawReason::BoardFull));
}

#[test]
fn the_last_placement_that_fills_the_board_ends_the_game() {
    let rules = Rules::parse("nine+pieces-13+full-light-loses").unwrap();
    // The board lacks only c4, which Dark fills (its last but one piece).
    let light = [
        "a7", "g7", "g1", "a1", "d6", "f4", "d2", "b4", "c5", "e5", "e3", "c3",
    ];
    let dark = ["d7", "g4", "d1", "a4", "b6", "f6", "f2", "b2", "d5", "e4", "d3"];
    let p = setup(&light, &dark, &format!("d 1 2 0 0 {rules}"));
    assert_eq!(p.outcome(), None);
    let mut g = Game::from_position(p);
    g.play(turn(g.position(), "c4")).unwrap();
    assert_eq!(g.outcome(), win(Color::Dark, WinReason::BoardFull));
}

#[test]
fn without_a_no_progress_limit_moves_are_not_counted_and_never_draw() {
    let start = setup(
        &["b6", "a4", "a1", "g1"],
        &["e4", "g4", "d3", "d2"],
        "l 0 0 0 0 nine+quiet-0",
    );
    let mut g = Game::from_position(start);
    let shuffle = ["b6-d6", "d3-c3", "d6-b6", "c3-d3"];
    // Two cycles: the fifth boundary is the start again, a third time at the ninth.
    for (i, t) in shuffle.iter().cycle().take(8).enumerate() {
        g.play(turn(g.position(), t)).unwrap();
        assert_eq!(g.position().quiet_turns(), 0, "turn {i}");
    }
    // Repetition is still seen, though the count that bounds the search stays at 0.
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), draw(DrawReason::Threefold));
    // The count a position string carries stands as it is, even while placing.
    let held: Position = ".../.../.../....../.../.../D.L l 8 8 0 250 nine+quiet-0"
        .parse()
        .unwrap();
    assert_eq!(held.quiet_turns(), 250);
    let after = held.play(turn(&held, "d1")).unwrap();
    assert_eq!(after.quiet_turns(), 250);
    assert_eq!(after.outcome(), None);
}

#[test]
fn a_shorter_no_progress_limit_draws_sooner() {
    let start = setup(
        &["b6", "a4", "a1", "g1"],
        &["e4", "g4", "d3", "d2"],
        "l 0 0 0 0 nine+quiet-4",
    );
    let p = play_all(start, &["b6-d6", "d3-c3", "d6-b6"]);
    assert_eq!(p.outcome(), None);
    let p = play_all(p, &["c3-d3"]);
    assert_eq!(p.outcome(), draw(DrawReason::HundredTurns));
    assert!(p.legal_turns().is_empty());
}

#[test]
fn a_claimed_repetition_is_the_side_to_moves_to_claim() {
    let start = setup(
        &["b6", "a4", "a1", "g1"],
        &["e4", "g4", "d3", "d2"],
        "l 0 0 0 0 nine+repetition-claim",
    );
    let mut g = Game::from_position(start);
    let shuffle = ["b6-d6", "d3-c3", "d6-b6", "c3-d3"];
    for t in shuffle.iter().cycle().take(8) {
        assert!(g.claimable().is_empty());
        g.play(turn(g.position(), t)).unwrap();
    }
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), None, "the game goes on until the draw is claimed");
    assert_eq!(g.claimable(), [DrawReason::Threefold]);
    assert_eq!(
        g.claim_draw(DrawReason::HundredTurns),
        Err(PlayError::NothingToClaim)
    );
    assert_eq!(g.outcome(), None, "a refused claim changes nothing");
    g.claim_draw(DrawReason::Threefold).unwrap();
    assert_eq!(g.outcome(), draw(DrawReason::Threefold));
    assert_eq!(g.claim_draw(DrawReason::Threefold), Err(PlayError::GameOver));
    assert!(g.undo(), "a claim is taken back like a declaration");
    assert_eq!(g.outcome(), None);
    // Not claimed, the right passes with the next turn.
    g.play(turn(g.position(), "a4-a7")).unwrap();
    assert!(g.claimable().is_empty());
    assert_eq!(
        g.claim_draw(DrawReason::Threefold),
        Err(PlayError::NothingToClaim)
    );
}

#[test]
fn a_claimed_no_progress_draw_lets_play_go_on() {
    let start = setup(
        &["b6", "a4", "a1", "g1"],
        &["e4", "g4", "d3", "d2"],
        "l 0 0 0 0 nine+quiet-2+quiet-claim",
    );
    let mut g = Game::from_position(start);
    g.play(turn(g.position(), "b6-d6")).unwrap();
    assert!(g.claimable().is_empty());
    g.play(turn(g.position(), "d3-c3")).unwrap();
    assert_eq!(g.claimable(), [DrawReason::HundredTurns]);
    g.play(turn(g.position(), "d6-b6")).unwrap();
    assert_eq!(g.position().quiet_turns(), 3, "the count runs past the limit");
    assert_eq!(g.outcome(), None);
    assert_eq!(g.claimable(), [DrawReason::HundredTurns]);
    g.claim_draw(DrawReason::HundredTurns).unwrap();
    assert_eq!(g.outcome(), draw(DrawReason::HundredTurns));
    // A position past the limit is one these rules reach.
    let past: Position = "L.L/.D./.../LL.DDD/.../.D./L.. l 0 0 0 9 nine+quiet-2+quiet-claim"
        .parse()
        .unwrap();
    assert_eq!(past.outcome(), None);
    assert_eq!(
        "L.L/.D./.../LL.DDD/.../.D./L.. l 0 0 0 9 nine+quiet-2".parse::<Position>(),
        Err(PositionError::ImpossibleQuiet)
    );
}

#[test]
fn positions_before_the_start_count_toward_repetition() {
    let start = setup(
        &["b6", "a4", "a1", "g1"],
        &["e4", "g4", "d3", "d2"],
        "l 0 0 0 0 nine+repetition-claim",
    );
    let earlier = vec![start.hash(), 7, start.hash()];
    let g = Game::from_position_after(start, earlier.clone());
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.claimable(), [DrawReason::Threefold]);
    let mut forgotten = g.clone();
    forgotten.forget_prior();
    assert_eq!(forgotten.repetitions(), 1);
    // Under automatic rules the game is drawn at once.
    let usual = start.to_string().replace(" nine+repetition-claim", "");
    let usual: Position = usual.parse().unwrap();
    let g = Game::from_position_after(usual, vec![usual.hash(), usual.hash()]);
    assert_eq!(g.outcome(), draw(DrawReason::Threefold));
    // After a removal no earlier position can stand again.
    let mill = setup(
        &["a7", "d7", "g4", "a1"],
        &["g1", "d2", "f4", "b4"],
        "l 0 0 0 0 nine+repetition-claim",
    );
    let mut g = Game::from_position_after(mill, vec![mill.hash(); 2]);
    assert_eq!(g.repetitions(), 3);
    g.play(turn(g.position(), "g4-g7xd2")).unwrap();
    assert!(g.undo() && g.undo());
    assert_eq!(g.repetitions(), 3, "undo keeps the earlier positions");
    g.play(turn(g.position(), "g4-g7xd2")).unwrap();
    assert_eq!(g.repetitions(), 1);
}

#[test]
fn a_claimed_draw_is_written_and_read_back_in_a_record() {
    use mill_core::{Header, Record};
    let start = setup(
        &["b6", "a4", "a1", "g1"],
        &["e4", "g4", "d3", "d2"],
        "l 0 0 0 0 nine+repetition-claim",
    );
    let mut g = Game::from_position(start);
    for t in ["b6-d6", "d3-c3", "d6-b6", "c3-d3"].iter().cycle().take(8) {
        g.play(turn(g.position(), t)).unwrap();
    }
    g.claim_draw(DrawReason::Threefold).unwrap();
    let text = Record::new(g.clone(), Header::default()).to_string();
    assert!(text.contains("[Termination \"threefold\"]"), "{text}");
    let back = Record::parse(&text).unwrap();
    assert_eq!(back.game.outcome(), draw(DrawReason::Threefold));
    assert_eq!(back.game.actions(), g.actions());
    // A claim the game does not allow is refused: one turn fewer, no third occurrence.
    let short = text.replace(" c3-d3 1/2-1/2", " 1/2-1/2");
    assert!(Record::parse(&short).is_err(), "{short}");
}

#[test]
fn moves_while_placing_are_turns_beside_the_placements() {
    let start = setup(&["a7"], &["b6"], "l 8 8 0 0 nine+placing-moves");
    assert_eq!(
        start.legal_actions().len(),
        22 + 2,
        "22 placements, a7-d7 and a7-a4"
    );
    assert_eq!(start.legal_turns().len(), 24);
    assert_eq!(start.count_turns(), 24);
    assert_eq!(start.count_actions(), 24);
    assert_eq!(
        names(&start, start.selectable()).len(),
        23,
        "the empty points and a7"
    );
    let usual = setup(&["a7"], &["b6"], "l 8 8 0 0");
    assert_eq!(usual.legal_turns().len(), 22);
    assert_eq!(usual.play(turn(&usual, "a7-a4")), Err(PlayError::StillPlacing));
    // A move while placing counts toward no progress, and reads back so.
    let moved = start.play(turn(&start, "a7-a4")).unwrap();
    assert_eq!(moved.quiet_turns(), 1);
    assert_eq!(moved.to_string().parse::<Position>(), Ok(moved));
    // A move that closes a mill earns its removal: the turns and their count agree.
    let mill = setup(&["a7", "d7", "g4"], &["b6", "d2"], "l 6 7 0 0 nine+placing-moves");
    let turns = mill.legal_turns();
    assert!(turns.iter().any(|t| t.to_notation(mill.topology()) == "g4-g7xb6"));
    assert_eq!(mill.count_turns(), turns.len() as u64);
    let mut g = Game::from_position(mill);
    g.play(turn(g.position(), "g4-g7xd2")).unwrap();
    assert_eq!(g.position().pieces(Color::Dark).count(), 1);

    // The placing cycle repeats a placing position: counted, unless only moving
    // positions count.
    for (rules, drawn) in [
        ("nine+placing-moves", true),
        ("nine+placing-moves+repetition-moving", false),
    ] {
        let mut g = Game::from_position(setup(&["a7"], &["b6"], &format!("l 8 8 0 0 {rules}")));
        for t in ["a7-a4", "b6-b4", "a4-a7", "b4-b6"].iter().cycle().take(8) {
            g.play(turn(g.position(), t)).unwrap();
        }
        assert_eq!(g.outcome() == draw(DrawReason::Threefold), drawn, "{rules}");
    }
}
