//! One test per rule of docs/RULES.md and per worked example: each fails if the rule breaks.

mod common;
use common::*;
use mill_core::{Action, Color, DrawReason, Game, Outcome, Phase, PlayError, Position, WinReason};

#[test]
fn worked_example_closing_a_mill_requires_the_removal_in_the_same_turn() {
    // Light a1 d1, g1 empty, Dark d2 outside any mill; Light to move.
    let p = play_all(Position::default(), &["a1", "d2", "d1", "b4"]);
    let mid = p.play_action(action(&p, "g1")).unwrap();
    assert_eq!(mid.pending_removals(), 1);
    assert_eq!(
        mid.turn(),
        Color::Light,
        "the turn does not pass before the removal"
    );
    assert_eq!(mid.outcome(), None);
    assert_eq!(names(&mid, mid.selectable()), ["b4", "d2"]);
    assert_eq!(
        mid.play_action(action(&mid, "b2")),
        Err(PlayError::RemovalPending)
    );
    let done = mid.play_action(action(&mid, "xd2")).unwrap();
    assert_eq!(done.turn(), Color::Dark);
    assert_eq!(done.pending_removals(), 0);
    assert_eq!(done.piece_at(pt(&p, "d2")), None);
    // The same as one turn in notation.
    assert_eq!(p.play(turn(&p, "g1xd2")).unwrap(), done);
    assert_eq!(p.play(turn(&p, "g1")), Err(PlayError::RemovalMissing));
    assert_eq!(p.play(turn(&p, "b2xd2")), Err(PlayError::UnexpectedRemoval));
}

#[test]
fn two_mills_closed_at_once_remove_only_one_piece() {
    // Light d1 g1 and a4 a7: placing on a1 closes a1-d1-g1 and a1-a4-a7 at once.
    let light = setup(&["d1", "g1", "a4", "a7"], &["d2", "b6", "f6", "c5"], "l 5 5 0 0");
    let mid = light.play_action(action(&light, "a1")).unwrap();
    assert_eq!(mid.pending_removals(), 1, "two mills, one removal");
    let done = mid.play_action(action(&mid, "xd2")).unwrap();
    assert_eq!(done.turn(), Color::Dark, "after one removal the turn passes");
    assert_eq!(done.on_board(Color::Dark), 3);
    let closing: Vec<_> = light
        .legal_turns()
        .into_iter()
        .filter(|t| t.to() == pt(&light, "a1"))
        .collect();
    assert_eq!(closing.len(), 4, "one turn per removable piece");
    assert!(closing.iter().all(|t| t.removals().len() == 1));
    assert_eq!(
        light.play(turn(&light, "a1xd2xb6")),
        Err(PlayError::UnexpectedRemoval)
    );
}

#[test]
fn protected_pieces_only_when_every_piece_stands_in_a_mill() {
    // Dark: b2 b4 b6 (a mill) and d7 outside; Light a1 d1 to close g1.
    let p = setup(&["a1", "d1", "c3", "e5"], &["b2", "b4", "b6", "d7"], "l 5 5 0 0");
    let mid = p.play_action(action(&p, "g1")).unwrap();
    assert_eq!(names(&mid, mid.removable()), ["d7"]);
    assert_eq!(mid.play_action(action(&mid, "xb4")), Err(PlayError::Protected));
    assert!(mid.play_action(action(&mid, "xd7")).is_ok());
    // Without d7 every Dark piece stands in a mill: any may go.
    let p = setup(&["a1", "d1", "c3"], &["b2", "b4", "b6"], "l 6 6 0 0");
    let mid = p.play_action(action(&p, "g1")).unwrap();
    assert_eq!(names(&mid, mid.removable()), ["b2", "b4", "b6"]);
    assert!(mid.play_action(action(&mid, "xb4")).is_ok());
    // Own pieces are never removable.
    assert_eq!(
        mid.play_action(action(&mid, "xa1")),
        Err(PlayError::NotOpponentPiece)
    );
    assert_eq!(mid.play_action(action(&mid, "xe5")), Err(PlayError::Empty));
}

#[test]
fn removal_is_skipped_when_the_opponent_has_no_piece_on_the_board() {
    let p = pos(".../.../.../....../.../.../LL. l 7 7 0 0");
    let done = p.play_action(action(&p, "g1")).unwrap();
    assert_eq!(done.pending_removals(), 0);
    assert_eq!(done.turn(), Color::Dark);
    assert_eq!(
        p.legal_turns()
            .iter()
            .filter(|t| !t.removals().is_empty())
            .count(),
        0
    );
}

#[test]
fn flying_only_with_exactly_three_pieces_after_placing() {
    // Light has 3 on board, nothing in hand: flies.
    let p = pos("L../.../.../...D.D/.D./.D./L.L l 0 0 0 0");
    assert_eq!(p.phase(Color::Light), Phase::Flying);
    assert_eq!(p.phase(Color::Dark), Phase::Moving);
    assert_eq!(p.destinations(pt(&p, "a7")), p.empty());
    assert!(p.play_action(action(&p, "a7-e5")).is_ok());
    // Dark (4 pieces) still steps.
    let d = pos("L../.../.../...D.D/.D./.D./L.L d 0 0 0 0");
    assert_eq!(names(&d, d.destinations(pt(&d, "d3"))), ["c3", "e3"]);
    assert_eq!(d.play_action(action(&d, "d3-c5")), Err(PlayError::NotAdjacent));
    // Four pieces: no flying.
    let p4 = pos("L../.../.../L..D.D/.D./.D./L.L l 0 0 0 0");
    assert_eq!(p4.phase(Color::Light), Phase::Moving);
    assert_eq!(p4.play_action(action(&p4, "a7-e5")), Err(PlayError::NotAdjacent));
    // Three on board with pieces in hand: still placing, cannot move at all.
    let placing = setup(&["a7", "a1", "g1"], &["d3", "d2", "f4"], "l 2 2 0 0");
    assert_eq!(placing.phase(Color::Light), Phase::Placing);
    // `flies` says the same as the phases, for the engine and the tablebase.
    assert!(p.flies(Color::Light) && !p.flies(Color::Dark));
    assert!(!p4.flies(Color::Light) && !placing.flies(Color::Light));
    assert_eq!(
        placing.play_action(action(&placing, "a7-e5")),
        Err(PlayError::StillPlacing)
    );
    assert!(placing.destinations(pt(&placing, "a7")).is_empty());
}

#[test]
fn too_few_pieces_counts_the_pieces_in_hand() {
    // Dark: 1 on board + 1 in hand = 2 < 3: Light has won, even during placing.
    let p = setup(&["a1", "d1", "g1"], &["d2"], "l 1 1 0 0");
    assert_eq!(
        p.outcome(),
        Some(Outcome::Win {
            winner: Color::Light,
            reason: WinReason::Pieces
        })
    );
    assert!(p.legal_turns().is_empty());
    assert_eq!(p.play_action(action(&p, "b2")), Err(PlayError::GameOver));
    // 2 on board + 1 in hand = 3: play goes on.
    let q = setup(&["a1", "d1", "g1"], &["b2", "d2"], "l 1 1 0 0");
    assert_eq!(q.outcome(), None);
    // The removal that takes Dark below three ends the game at once.
    let t = setup(&["a1", "d1", "g4"], &["b2", "d2", "f2"], "l 0 0 0 0");
    let end = t.play(turn(&t, "g4-g1xd2")).unwrap();
    assert_eq!(end.on_board(Color::Dark), 2);
    assert_eq!(
        end.outcome(),
        Some(Outcome::Win {
            winner: Color::Light,
            reason: WinReason::Pieces
        })
    );
}

#[test]
fn blockade_loses_only_after_placing() {
    // Dark's a1 is shut in by Light's d1 and a4, but Dark still has pieces to place.
    let placing = setup(&["d1", "a4"], &["a1"], "d 7 8 0 0");
    assert_eq!(placing.outcome(), None);
    // After placing: Dark's pieces (a1, g1) are all blocked.
    let b = setup(&["d1", "a4", "g4", "d7"], &["a1", "g1", "a7", "g7"], "d 0 0 0 0");
    assert_eq!(
        b.outcome(),
        Some(Outcome::Win {
            winner: Color::Light,
            reason: WinReason::Blocked
        })
    );
    assert!(b.legal_turns().is_empty());
    // A flying side is never blocked.
    let fly = setup(&["d1", "a4", "g4", "d7"], &["a1", "g1", "a7"], "d 0 0 0 0");
    assert_eq!(fly.phase(Color::Dark), Phase::Flying);
    assert_eq!(fly.outcome(), None);
}

#[test]
fn threefold_repetition_with_the_same_side_to_move() {
    let start = setup(&["b6", "a4", "a1", "g1"], &["e4", "g4", "d3", "d2"], "l 0 0 0 0");
    let mut g = Game::from_position(start);
    let shuffle = ["b6-d6", "d3-c3", "d6-b6", "c3-d3"];
    for t in shuffle {
        g.play(turn(g.position(), t)).unwrap();
    }
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None);
    // Halfway through the cycle the same pieces stand with the other side to move: no count.
    for t in &shuffle[..3] {
        g.play(turn(g.position(), t)).unwrap();
        assert_eq!(g.outcome(), None);
    }
    g.play(turn(g.position(), shuffle[3])).unwrap();
    assert_eq!(g.repetitions(), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: DrawReason::Threefold
        })
    );
    assert_eq!(
        g.play_action(action(g.position(), "a7-d7")),
        Err(PlayError::GameOver)
    );
}

#[test]
fn same_pieces_other_side_to_move_is_another_position() {
    let a = pos("L../.../.../L..D.D/.D./.D./L.L l 0 0 0 0");
    let b = pos("L../.../.../L..D.D/.D./.D./L.L d 0 0 0 0");
    assert_ne!(a.hash(), b.hash());
}

#[test]
fn hundred_turns_without_removal_counted_from_the_end_of_placing() {
    let p = pos("L../.../.../L..D.D/.D./.D./L.L l 0 0 0 99");
    let next = p.play(turn(&p, "a7-d7")).unwrap();
    assert_eq!(next.quiet_turns(), 100);
    assert_eq!(
        next.outcome(),
        Some(Outcome::Draw {
            reason: DrawReason::HundredTurns
        })
    );
    // A removal on the 100th turn restarts the count instead.
    let q = pos("L../.../.../L..D.D/.D./.D./.LL l 0 0 0 99");
    let q2 = q.play(turn(&q, "a4-a1xd2")).unwrap();
    assert_eq!(q2.quiet_turns(), 0);
    assert_eq!(q2.outcome(), None);
    // Placement turns never count; the first move after placing makes it 1.
    let mut g = Game::default();
    let mut rng = Rng(7);
    while g.position().in_hand(Color::Dark) > 0 {
        let turns = g.legal_turns();
        g.play(turns[rng.below(turns.len())]).unwrap();
        assert_eq!(g.position().quiet_turns(), 0);
    }
    if g.outcome().is_none() {
        let turns = g.legal_turns();
        let quiet = turns.iter().find(|t| t.removals().is_empty());
        if let Some(&t) = quiet {
            g.play(t).unwrap();
            assert_eq!(g.position().quiet_turns(), 1);
        }
    }
    // A position string may not claim a count above the limit. (During placing it may:
    // a side out of hand moves while the other still places, when the hands say so.)
    assert!(
        "L../.../.../L..D.D/.D./.D./L.L l 0 0 0 101"
            .parse::<Position>()
            .is_err()
    );
}

#[test]
fn reopening_and_closing_a_mill_again_earns_a_removal_but_a_standing_mill_does_not() {
    // Light's mill a1 d1 g1 stands; Dark's d2 and f4 are free.
    let p = setup(&["a1", "d1", "g1", "a7"], &["g7", "c4", "f4", "d2"], "l 0 0 0 0");
    // Moving another piece keeps the mill but earns nothing.
    let after = p.play(turn(&p, "a7-d7")).unwrap();
    assert_eq!(after.turn(), Color::Dark);
    assert_eq!(after.on_board(Color::Dark), p.on_board(Color::Dark));
    // Opening the mill (g1-g4) and closing it again (g4-g1) earns a removal.
    let opened = p.play(turn(&p, "g1-g4")).unwrap();
    let dark_moved = opened.play(turn(&opened, "g7-d7")).unwrap();
    let mid = dark_moved.play_action(action(&dark_moved, "g4-g1")).unwrap();
    assert_eq!(mid.pending_removals(), 1);
}

#[test]
fn illegal_actions_are_refused_with_a_reason_and_change_nothing() {
    let p = pos("L../.../.../L..D.D/.D./.D./L.L l 0 0 0 0");
    let cases = [
        ("d6", PlayError::NothingInHand),
        ("a7-a4", PlayError::Occupied),
        ("d2-d1", PlayError::NotYourPiece),
        ("b2-b4", PlayError::Empty),
        ("a4-b6", PlayError::NotAdjacent),
        ("xd2", PlayError::NoRemovalPending),
    ];
    for (text, err) in cases {
        assert_eq!(p.play_action(action(&p, text)), Err(err), "{text}");
        assert!(!err.to_string().is_empty());
    }
    let placing = Position::default();
    assert_eq!(
        placing.play_action(action(&placing, "a1-a4")),
        Err(PlayError::StillPlacing)
    );
    let mut g = Game::default();
    g.play_action(action(g.position(), "d6")).unwrap();
    let before = g.clone();
    assert_eq!(
        g.play_action(action(g.position(), "d6")),
        Err(PlayError::Occupied)
    );
    assert_eq!(g.position(), before.position());
    assert_eq!(g.actions(), before.actions());
}

#[test]
fn resignation_and_agreement_end_the_game_and_undo_takes_back() {
    let mut g = game_of(&["a1", "d2", "d1"]);
    g.resign(Color::Dark).unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::Light,
            reason: WinReason::Resignation
        })
    );
    assert_eq!(g.resign(Color::Light), Err(PlayError::GameOver));
    assert!(g.undo());
    assert_eq!(g.outcome(), None);
    assert!(g.undo());
    assert_eq!(g.record(), ["a1", "d2"]);
    g.agree_draw().unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: DrawReason::Agreement
        })
    );
    let mut fresh = Game::default();
    assert!(!fresh.undo());
}

#[test]
fn game_record_holds_complete_turns_with_their_removals() {
    let mut g = game_of(&["a1", "d2", "d1", "b4"]);
    g.play_action(action(g.position(), "g1")).unwrap();
    assert_eq!(g.record().len(), 4, "a turn in progress is not in the record yet");
    g.play_action(action(g.position(), "xd2")).unwrap();
    assert_eq!(g.record(), ["a1", "d2", "d1", "b4", "g1xd2"]);
    assert_eq!(
        g.last_action(),
        Some(Action::Remove {
            at: pt(g.position(), "d2")
        })
    );
    assert!(g.undo());
    assert_eq!(g.position().pending_removals(), 1);
}

#[test]
fn hands_are_what_each_side_has_left_whoever_is_to_move() {
    // A side with nothing left in hand moves while the other still places; its moves
    // count toward the no-progress draw. Not reachable by alternate placements from the
    // start, and a position all the same (MIF's hands are authoritative).
    let p = setup(&["a1", "d1", "g7", "b4"], &["b2"], "l 0 3 0 0");
    assert_eq!(p.phase(Color::Light), Phase::Moving);
    assert_eq!(p.phase(Color::Dark), Phase::Placing);
    let after = p.play(turn(&p, "g7-g4")).unwrap();
    assert_eq!(after.quiet_turns(), 1);
    assert_eq!(after.to_string().parse::<Position>(), Ok(after));
    assert!(
        after.legal_turns().iter().all(|t| t.from().is_none()),
        "Dark places"
    );
    // The other side to move at the start, and a removal owed after placements out of
    // step: positions too.
    let dark: Position = ".../.../.../....../.../.../... d 9 9 0 0".parse().unwrap();
    assert_eq!(dark.legal_turns().len(), 24);
    let owed = setup(&["a7", "d7", "g7"], &["c5"], "l 6 8 1 0");
    assert_eq!(names(&owed, owed.removable()), ["c5"]);
}
