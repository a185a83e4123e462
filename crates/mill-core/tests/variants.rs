//! One test per rule that differs between the variants and the rule options: Three,
//! Six and Twelve Men's Morris, removals per mill, protection off, the flying threshold.

mod common;
use common::*;
use mill_core::{
    Action, Color, DrawReason, Game, Outcome, Phase, PlayError, Position, PositionError, RemovalRule, Rules,
    Variant, WinReason,
};

fn win(winner: Color, reason: WinReason) -> Option<Outcome> {
    Some(Outcome::Win { winner, reason })
}

#[test]
fn start_positions_and_their_strings() {
    let cases = [
        (Variant::Three, ".../.../... l 3 3 0 0 three", 9),
        (Variant::Six, ".../.../..../.../... l 6 6 0 0 six", 16),
        (Variant::Nine, ".../.../.../....../.../.../... l 9 9 0 0", 24),
        (
            Variant::Twelve,
            ".../.../.../....../.../.../... l 12 12 0 0 twelve",
            24,
        ),
    ];
    for (variant, text, points) in cases {
        let p = Position::new(variant);
        assert_eq!(p.to_string(), text);
        assert_eq!(pos(text), p);
        assert_eq!(p.variant(), variant);
        assert_eq!(p.topology().len(), points);
        assert_eq!(p.legal_turns().len(), points);
    }
    // Options other than the defaults are part of the string.
    let r = Rules::parse("nine+per-mill+protect-off+fly-0").unwrap();
    let p = Position::start(r);
    assert_eq!(
        p.to_string(),
        ".../.../.../....../.../.../... l 9 9 0 0 nine+per-mill+protect-off+fly-0"
    );
    assert_eq!(pos(&p.to_string()).rules(), r);
    // A board that does not fit the named variant is refused, part by part.
    assert_eq!(
        ".../.../.../....../.../.../... l 9 9 0 0 six".parse::<Position>(),
        Err(PositionError::RankCount {
            expected: 5,
            found: 7
        })
    );
    assert_eq!(
        ".../.../... l 9 9 0 0 three".parse::<Position>(),
        Err(PositionError::TooManyPieces(Color::Light))
    );
    assert!(matches!(
        ".../.../... l 3 3 0 0 ten".parse::<Position>(),
        Err(PositionError::Rules(_))
    ));
    assert!(matches!(
        ".../.../... l 3 3 0 0 three extra".parse::<Position>(),
        Err(PositionError::FieldCount(8))
    ));
}

#[test]
fn three_closing_a_line_while_placing_wins_at_once() {
    let g = game_in("three", &["a1", "a4", "d1", "d4"]);
    let p = *g.position();
    assert_eq!(p.play(turn(&p, "g1xa4")), Err(PlayError::UnexpectedRemoval));
    let end = p.play(turn(&p, "g1")).unwrap();
    assert_eq!(end.pending_removals(), 0, "no removal");
    assert_eq!(end.outcome(), win(Color::Light, WinReason::Mill));
    assert!(end.legal_turns().is_empty());
    assert_eq!(end.count_turns(), 0);
    assert_eq!(end.play_action(action(&end, "g7")), Err(PlayError::GameOver));
    assert_eq!(
        end.outcome().unwrap().to_string(),
        "light wins (mill)",
        "the result line's wording"
    );
    // The diagonals are lines too.
    let d = game_in("three", &["a1", "d1", "d4", "g1"]);
    let end = d.position().play(turn(d.position(), "g7")).unwrap();
    assert_eq!(end.outcome(), win(Color::Light, WinReason::Mill));
}

#[test]
fn three_moves_to_neighbours_only_and_a_line_made_by_moving_wins() {
    // Placing over without a line, Light to move.
    let p = setup_in("three", &["a1", "g1", "d4"], &["d1", "a7", "g4"], "l 0 0 0 0");
    assert_eq!(p.outcome(), None);
    assert_eq!(p.phase(Color::Light), Phase::Moving, "three never flies");
    // d4 reaches all eight points around it; the corners only their three neighbours.
    assert_eq!(names(&p, p.destinations(pt(&p, "d4"))), ["a4", "d7", "g7"]);
    assert_eq!(names(&p, p.destinations(pt(&p, "a1"))), ["a4"]);
    assert_eq!(p.play_action(action(&p, "a1-d7")), Err(PlayError::NotAdjacent));
    let q = setup_in("three", &["a1", "g1", "a4"], &["d1", "a7", "d7"], "l 0 0 0 0");
    let end = q.play(turn(&q, "a4-d4")).unwrap();
    assert_eq!(end.outcome(), None, "a1 d4 g1 is no line");
    let r = setup_in("three", &["a1", "g7", "a4"], &["d1", "a7", "g1"], "l 0 0 0 0");
    let end = r.play(turn(&r, "a4-d4")).unwrap();
    assert_eq!(
        end.outcome(),
        win(Color::Light, WinReason::Mill),
        "a1 d4 g7 by moving"
    );
    // A position where the side to move already stands in a line cannot arise.
    assert_eq!(
        "LLL/.D./D.D l 0 0 0 0 three".parse::<Position>(),
        Err(PositionError::ImpossibleLine)
    );
    assert_eq!(
        pos("LLL/.D./D.D d 0 0 0 0 three").outcome(),
        win(Color::Light, WinReason::Mill)
    );
}

#[test]
fn six_connectors_join_the_squares_but_make_no_mill() {
    // Light d7 d6 on a connector, then a4 b4 on another: no removal ever.
    let g = game_in("six", &["d7", "a1", "d6", "g1", "a4"]);
    let p = *g.position();
    assert_eq!(p.turn(), Color::Dark);
    let q = p.play(turn(&p, "f2")).unwrap();
    let after = q.play(turn(&q, "b4")).unwrap();
    assert_eq!(after.pending_removals(), 0);
    assert_eq!(after.turn(), Color::Dark);
    // A side of a square is a mill.
    let s = setup_in("six", &["a1", "d1"], &["b2", "f6"], "l 4 4 0 0");
    let mid = s.play_action(action(&s, "g1")).unwrap();
    assert_eq!(mid.pending_removals(), 1);
    // The connectors are segments: d1-d2 is a move, d1-b2 is not.
    let m = setup_in(
        "six",
        &["d1", "a4", "g4", "d7"],
        &["b6", "f6", "f2", "a1"],
        "l 0 0 0 0",
    );
    assert!(m.play_action(action(&m, "d1-d2")).is_ok());
    assert_eq!(m.play_action(action(&m, "d1-b2")), Err(PlayError::NotAdjacent));
    assert!(Action::parse("d1-d3", m.topology()).is_err(), "d3 is no point");
}

#[test]
fn six_flies_at_three_and_loses_below_three() {
    let p = setup_in("six", &["a1", "d1", "a4"], &["b2", "f2", "f6", "b6"], "l 0 0 0 0");
    assert_eq!(p.phase(Color::Light), Phase::Flying);
    assert!(p.play_action(action(&p, "a4-f4")).is_ok());
    let end = p.play(turn(&p, "a4-g1xb2")).unwrap();
    assert_eq!(end.outcome(), None);
    let q = setup_in("six", &["a1", "d1", "a4"], &["b2", "f2", "b6"], "l 0 0 0 0");
    let end = q.play(turn(&q, "a4-g1xf2")).unwrap();
    assert_eq!(end.outcome(), win(Color::Light, WinReason::Pieces));
}

#[test]
fn twelve_diagonals_are_segments_and_mills() {
    let p = setup_in("twelve", &["a1", "b2"], &["d1", "d2"], "l 10 10 0 0");
    let mid = p.play_action(action(&p, "c3")).unwrap();
    assert_eq!(mid.pending_removals(), 1, "a1 b2 c3 is a mill");
    // The same shape on the nine board is no mill.
    let n = setup(&["a1", "b2"], &["d1", "d2"], "l 7 7 0 0");
    assert_eq!(n.play_action(action(&n, "c3")).unwrap().pending_removals(), 0);
    // A piece steps along a diagonal.
    let m = setup_in(
        "twelve",
        &["a1", "d1", "g1", "a4", "c4", "e4", "g4", "d5", "b6"],
        &["d2", "f2", "d3", "b4", "f4", "c5", "e5", "d6", "f6"],
        "l 0 0 0 0",
    );
    assert_eq!(names(&m, m.destinations(pt(&m, "a1"))), ["b2"]);
    assert_eq!(
        m.play_action(action(&m, "g1-e3")),
        Err(PlayError::NotAdjacent),
        "f2 lies between"
    );
}

/// Light and Dark filling the Twelve board without a line of one colour.
const LIGHT_FULL: [&str; 12] = [
    "a4", "b4", "c3", "c5", "d1", "d2", "d6", "e3", "e4", "f6", "g1", "g7",
];
const DARK_FULL: [&str; 12] = [
    "a1", "a7", "b2", "b6", "c4", "d3", "d5", "d7", "e5", "f2", "f4", "g4",
];

#[test]
fn twelve_board_full_after_placing_is_a_draw_before_a_blockade() {
    let mut turns = Vec::new();
    for (l, d) in LIGHT_FULL.iter().zip(DARK_FULL) {
        turns.push(*l);
        turns.push(d);
    }
    let g = game_in("twelve", &turns);
    let p = *g.position();
    assert!(p.empty().is_empty());
    assert_eq!(p.turn(), Color::Light, "Light to move, and nowhere to go");
    let draw = Outcome::Draw {
        reason: DrawReason::BoardFull,
    };
    assert_eq!(p.outcome(), Some(draw));
    assert_eq!(g.outcome(), Some(draw));
    assert!(p.legal_turns().is_empty());
    assert_eq!(draw.to_string(), "draw (board-full)");
    assert_eq!(DrawReason::BoardFull.name(), "board-full");
    // One point short of full is play as usual: Dark places the last piece.
    let g23 = game_in("twelve", &turns[..23]);
    assert_eq!(g23.outcome(), None);
    assert_eq!(g23.legal_turns().len(), 1);
}

#[test]
fn twelve_flies_at_four() {
    let p = setup_in(
        "twelve",
        &["a1", "d1", "a4", "c4"],
        &["b2", "f2", "f6", "b6", "d6"],
        "l 0 0 0 0",
    );
    assert_eq!(p.phase(Color::Light), Phase::Flying);
    assert_eq!(p.phase(Color::Dark), Phase::Moving);
    assert!(p.play_action(action(&p, "c4-g7")).is_ok());
}

#[test]
fn fly_at_zero_never_flies_and_fly_at_four_flies_with_four() {
    let never = setup_in(
        "nine+fly-0",
        &["a1", "d1", "a4"],
        &["b2", "f2", "f6", "b6"],
        "l 0 0 0 0",
    );
    assert_eq!(never.phase(Color::Light), Phase::Moving);
    assert!(!never.flies(Color::Light) && !never.rules().flies_with(3));
    assert_eq!(
        never.play_action(action(&never, "a4-f4")),
        Err(PlayError::NotAdjacent)
    );
    // With three pieces and no move a side is blocked, not flying.
    let blocked = setup_in(
        "nine+fly-0",
        &["g1", "d2", "a7", "b4"],
        &["a1", "d1", "a4"],
        "d 0 0 0 0",
    );
    assert_eq!(blocked.outcome(), win(Color::Light, WinReason::Blocked));
    let four = setup_in(
        "nine+fly-4",
        &["a1", "d1", "a4", "c4"],
        &["b2", "f2", "f6", "b6"],
        "l 0 0 0 0",
    );
    assert_eq!(four.phase(Color::Light), Phase::Flying);
    assert!(four.flies(Color::Light) && four.flies(Color::Dark));
    assert!(four.rules().flies_with(4) && !four.rules().flies_with(5));
    assert!(four.play_action(action(&four, "c4-g7")).is_ok());
    assert_eq!(four.rules().to_string(), "nine+fly-4");
}

#[test]
fn per_mill_double_mill_removes_two_with_protection_judged_before_each() {
    // Light closes a1-d1-g1 and a1-a4-a7 with one piece. Dark: a mill b6 d6 f6 and a
    // free piece d2.
    let p = setup_in(
        "nine+per-mill",
        &["d1", "g1", "a4", "a7"],
        &["b6", "d6", "f6", "d2"],
        "l 5 5 0 0",
    );
    let mid = p.play_action(action(&p, "a1")).unwrap();
    assert_eq!(mid.pending_removals(), 2);
    assert_eq!(
        names(&mid, mid.removable()),
        ["d2"],
        "the mill is protected at first"
    );
    let second = mid.play_action(action(&mid, "xd2")).unwrap();
    assert_eq!(second.turn(), Color::Light, "one removal still owed");
    assert_eq!(
        names(&second, second.removable()),
        ["b6", "d6", "f6"],
        "judged afresh: now every Dark piece stands in a mill"
    );
    let done = second.play_action(action(&second, "xd6")).unwrap();
    assert_eq!(done.turn(), Color::Dark);
    assert_eq!(done.on_board(Color::Dark), 2);
    // As turns: the playable order is accepted, the other refused; one turn per set.
    assert_eq!(p.play(turn(&p, "a1xd2xd6")), Ok(done));
    assert_eq!(p.play(turn(&p, "a1xd6xd2")), Err(PlayError::Protected));
    assert_eq!(p.play(turn(&p, "a1xd2")), Err(PlayError::RemovalMissing));
    let closing: Vec<String> = p
        .legal_turns()
        .iter()
        .filter(|t| t.to() == pt(&p, "a1"))
        .map(|t| t.to_notation(p.topology()))
        .collect();
    assert_eq!(closing, ["a1xd2xb6", "a1xd2xd6", "a1xd2xf6"]);
    // Under the standard rule the same placement removes one piece.
    let one = setup(&["d1", "g1", "a4", "a7"], &["b6", "d6", "f6", "d2"], "l 5 5 0 0");
    assert_eq!(one.play_action(action(&one, "a1")).unwrap().pending_removals(), 1);
    assert_eq!(one.rules().removals, RemovalRule::One);
}

#[test]
fn per_mill_lists_each_set_of_removals_once_and_accepts_any_playable_order() {
    let p = setup_in(
        "nine+per-mill",
        &["d1", "g1", "a4", "a7"],
        &["d2", "f4", "b6", "c5"],
        "l 5 5 0 0",
    );
    let closing: Vec<_> = p
        .legal_turns()
        .into_iter()
        .filter(|t| t.to() == pt(&p, "a1"))
        .collect();
    assert_eq!(closing.len(), 6, "C(4, 2) sets, not 12 orders");
    assert_eq!(p.count_turns(), p.legal_turns().len() as u64);
    let a = p.play(turn(&p, "a1xd2xf4")).unwrap();
    let b = p.play(turn(&p, "a1xf4xd2")).unwrap();
    assert_eq!(a, b);
}

#[test]
fn per_mill_skips_the_rest_when_the_opponent_runs_out_of_pieces() {
    // Dark has one piece on the board (three were removed): one removal, then the turn
    // ends.
    let p = setup_in("twelve+per-mill", &["d1", "g1", "a4", "a7"], &["f6"], "l 8 8 0 0");
    let mid = p.play_action(action(&p, "a1")).unwrap();
    assert_eq!(
        mid.pending_removals(),
        1,
        "nothing to remove beyond Dark's one piece"
    );
    let done = mid.play_action(action(&mid, "xf6")).unwrap();
    assert_eq!(done.turn(), Color::Dark);
    assert_eq!(p.play(turn(&p, "a1xf6")), Ok(done));
    // Two mills, two pieces, but the first removal leaves one: both may go.
    let q = setup_in(
        "twelve+per-mill",
        &["d1", "g1", "a4", "a7"],
        &["f6", "b4"],
        "l 8 8 0 0",
    );
    let mid = q.play_action(action(&q, "a1")).unwrap();
    assert_eq!(mid.pending_removals(), 2);
    let end = q.play(turn(&q, "a1xf6xb4")).unwrap();
    assert_eq!(end.on_board(Color::Dark), 0);
    assert_eq!(end.turn(), Color::Dark);
}

#[test]
fn twelve_per_mill_three_mills_at_once() {
    // b2 closes b2-d2-f2, b2-b4-b6 and a1-b2-c3.
    let p = setup_in(
        "twelve+per-mill",
        &["d2", "f2", "b4", "b6", "a1", "c3"],
        &["d7", "g7", "g4", "e4", "e5", "c5"],
        "l 6 6 0 0",
    );
    let mid = p.play_action(action(&p, "b2")).unwrap();
    assert_eq!(mid.pending_removals(), 3);
    let turns: Vec<_> = p
        .legal_turns()
        .into_iter()
        .filter(|t| t.to() == pt(&p, "b2"))
        .collect();
    assert_eq!(turns.len(), 20, "C(6, 3)");
    assert!(turns.iter().all(|t| t.removals().len() == 3));
}

#[test]
fn protect_off_lets_mill_pieces_go_while_others_stand_free() {
    let p = setup_in(
        "nine+protect-off",
        &["a1", "d1", "c3", "e5"],
        &["b2", "b4", "b6", "d7"],
        "l 5 5 0 0",
    );
    let mid = p.play_action(action(&p, "g1")).unwrap();
    assert_eq!(names(&mid, mid.removable()), ["b2", "b4", "b6", "d7"]);
    assert!(mid.play_action(action(&mid, "xb4")).is_ok());
    let on = setup(&["a1", "d1", "c3", "e5"], &["b2", "b4", "b6", "d7"], "l 5 5 0 0");
    let mid = on.play_action(action(&on, "g1")).unwrap();
    assert_eq!(mid.play_action(action(&mid, "xb4")), Err(PlayError::Protected));
}

#[test]
fn games_of_every_variant_record_and_undo() {
    let mut g = Game::from_position(Position::new(Variant::Three));
    for t in ["a1", "a4", "d1", "d4"] {
        g.play(turn(g.position(), t)).unwrap();
    }
    g.play(turn(g.position(), "g1")).unwrap();
    assert_eq!(g.outcome(), win(Color::Light, WinReason::Mill));
    assert_eq!(g.record(), ["a1", "a4", "d1", "d4", "g1"]);
    assert!(g.undo());
    assert_eq!(g.outcome(), None);
    assert_eq!(g.position().variant(), Variant::Three);
}

#[test]
fn records_carry_their_rule_set() {
    use mill_core::Record;
    let g = game_in("three", &["a1", "a4", "d1", "d4", "g1"]);
    let text = Record::new(g.clone(), Default::default()).to_string();
    assert!(text.starts_with("[Variant \"three\"]\n"), "{text}");
    let back = Record::parse(&text).unwrap();
    assert_eq!(back.game.position(), g.position());
    assert_eq!(back.game.outcome(), win(Color::Light, WinReason::Mill));
    let g = game_in("nine+per-mill+protect-off", &["a1", "b2"]);
    let text = Record::new(g.clone(), Default::default()).to_string();
    assert!(
        text.starts_with("[Variant \"nine+per-mill+protect-off\"]\n"),
        "{text}"
    );
    assert_eq!(Record::parse(&text).unwrap().game.position(), g.position());
    // A start position read under the record's rules.
    let six = "[Variant \"six\"]\n[Start \".../.../..../.../... l 6 6 0 0\"]\n\n1. a1 *\n";
    assert_eq!(
        Record::parse(six).unwrap().game.position().variant(),
        Variant::Six
    );
    assert_eq!(
        Position::from_str_variant(".../.../... l 3 3 0 0 three", Variant::Six),
        Err(PositionError::OtherRules {
            expected: *Variant::Six.rules(),
            found: *Variant::Three.rules(),
        })
    );
}

#[test]
fn dark_first_places_first_and_is_the_mirror_of_the_usual_game() {
    let rules = Rules::parse("nine+dark-first").unwrap();
    assert_eq!(rules.first, Color::Dark);
    let start = Position::start(rules);
    assert_eq!(start.turn(), Color::Dark);
    assert_eq!(
        start.to_string(),
        ".../.../.../....../.../.../... d 9 9 0 0 nine+dark-first"
    );
    // Placements alternate from Dark: Dark is one ahead on Light's turn.
    assert!(
        ".../.../.../....../.../.../D.. l 9 8 0 0 nine+dark-first"
            .parse::<Position>()
            .is_ok()
    );
    // A position string's hands are what each side has left, whoever is to move (as
    // MIF's are): the other side to move at the start is a position too.
    let light_first = ".../.../.../....../.../.../... l 9 9 0 0 nine+dark-first"
        .parse::<Position>()
        .unwrap();
    assert_eq!(light_first.turn(), Color::Light);
    // The same game with the colours' roles swapped: the same counts at every depth.
    let usual = Position::start(Variant::Nine.rules());
    for depth in 1..=3 {
        assert_eq!(
            mill_core::perft::perft(&start, depth),
            mill_core::perft::perft(&usual, depth)
        );
    }
    // A record under these rules numbers its rounds from Dark's turn and reads back.
    let mut game = Game::from_position(start);
    for t in ["a1", "d2", "d1"] {
        let next = turn(game.position(), t);
        game.play(next).unwrap();
    }
    let record = mill_core::Record::new(game.clone(), mill_core::Header::default()).to_string();
    assert!(record.contains("1. a1 d2 2. d1 *"), "{record}");
    assert_eq!(
        mill_core::Record::parse(&record).unwrap().game.position(),
        game.position()
    );
}
