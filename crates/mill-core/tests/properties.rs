//! Properties over random legal games and random junk input.

mod common;
use common::*;
use mill_core::{Action, Bitboard, Color, Game, Notation, Point, Position, Rules, Turn};
use proptest::prelude::*;
use std::collections::HashSet;

/// Rule sets the random games are played under: every variant, and the options (the
/// extended ones too: more pieces, moves while placing, draws by claim).
const RULE_SETS: [&str; 12] = [
    "three",
    "six",
    "nine",
    "twelve",
    "nine+per-mill",
    "twelve+per-mill+protect-off",
    "six+per-mill+fly-0",
    "nine+protect-off+fly-4",
    "twelve+per-mill+protect-off+fly-0",
    "nine+placing-moves",
    "nine+pieces-13+quiet-0+repetition-claim",
    "twelve+pieces-13+per-mill+placing-moves+full-light-loses",
];

/// A turn as the rules see it: the step and the set of pieces it removes (the order of
/// removals is only how it is written).
fn key(t: &Turn) -> (Action, Bitboard) {
    (t.first_action(), t.removals().iter().copied().collect())
}

/// Every complete turn reachable by clicking actions, as the turn generator would list it.
fn turns_from_actions(p: &Position) -> HashSet<(Action, Bitboard)> {
    fn extend(p: Position, partial: Turn, out: &mut HashSet<(Action, Bitboard)>) {
        if p.pending_removals() == 0 {
            out.insert(key(&partial));
            return;
        }
        for a in p.legal_actions() {
            let Action::Remove { at } = a else {
                panic!("only removals while pending")
            };
            extend(p.play_action(a).unwrap(), partial.with_removal(at).unwrap(), out);
        }
    }
    let mut out = HashSet::new();
    for a in p.legal_actions() {
        let partial = match a {
            Action::Place { to } => Turn::place(to),
            Action::Move { from, to } => Turn::step(from, to),
            Action::Remove { .. } => panic!("no removal at a turn boundary"),
        };
        extend(p.play_action(a).unwrap(), partial, &mut out);
    }
    out
}

fn check_position(p: &Position, captured: [u8; 2]) {
    // Piece counts are conserved.
    for c in Color::ALL {
        assert_eq!(
            p.on_board(c) + p.in_hand(c) + captured[c.index()],
            p.rules().pieces,
            "{c} pieces in {p}"
        );
    }
    // Position strings round-trip.
    let text = p.to_string();
    assert_eq!(&text.parse::<Position>().unwrap(), p, "{text}");
    // Turns and actions agree; the counter agrees with the list.
    let turns = p.legal_turns();
    let set: HashSet<(Action, Bitboard)> = turns.iter().map(key).collect();
    assert_eq!(set.len(), turns.len(), "each distinct turn once");
    if p.outcome().is_none() {
        assert_eq!(set, turns_from_actions(p), "turns vs actions in {p}");
    } else {
        assert!(turns.is_empty());
        assert!(p.selectable().is_empty());
    }
    assert_eq!(p.count_turns(), turns.len() as u64);
    for t in &turns {
        // Notation round-trips through text and back to the same turn.
        let text = t.to_notation(p.topology());
        let n: Notation = text.parse().unwrap();
        assert_eq!(n.to_string(), text);
        assert_eq!(n.to_turn(p.topology()).unwrap(), *t);
        // Checked and unchecked play agree.
        assert_eq!(p.play(*t).unwrap(), p.play_unchecked(*t));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_games_keep_every_invariant(seed in 1u64..u64::MAX, rules in 0..RULE_SETS.len()) {
        let mut rng = Rng(seed);
        let start = Position::start(Rules::parse(RULE_SETS[rules]).unwrap());
        let mut game = Game::from_position(start);
        let mut by_actions = Game::from_position(start);
        let mut captured = [0u8; 2];
        for _ in 0..160 {
            let p = *game.position();
            check_position(&p, captured);
            // The repetition counter looks back only over quiet turns, every other one:
            // it finds what a scan of the whole history finds.
            let history = game.history();
            let all = history.iter().filter(|&&h| h == p.hash()).count();
            prop_assert_eq!(p.occurrences(history), all);
            let turns = game.legal_turns();
            if turns.is_empty() {
                prop_assert!(game.outcome().is_some());
                break;
            }
            let t = turns[rng.below(turns.len())];
            captured[(!p.turn()).index()] += t.removals().len() as u8;
            game.play(t).unwrap();
            for a in t.actions() {
                by_actions.play_action(a).unwrap();
            }
            prop_assert_eq!(game.position(), by_actions.position());
            prop_assert_eq!(game.outcome(), by_actions.outcome());
        }
        prop_assert_eq!(game.record(), by_actions.record());
    }

    #[test]
    fn junk_input_is_refused_without_panicking(
        seed in 1u64..u64::MAX,
        text in "\\PC{0,40}",
        raw in proptest::collection::vec((0u8..3, 0usize..40, 0usize..40), 1..30),
    ) {
        let _ = text.parse::<Position>();
        let _ = text.parse::<Notation>();
        let _ = Rules::parse(&text);
        let start = Position::start(Rules::parse(RULE_SETS[(seed % RULE_SETS.len() as u64) as usize]).unwrap());
        let _ = Action::parse(&text, start.topology());
        let _ = format!("{} {text}", start).parse::<Position>();
        let mut rng = Rng(seed);
        let mut game = Game::from_position(start);
        for _ in 0..rng.below(30) {
            let turns = game.legal_turns();
            if turns.is_empty() { break; }
            game.play(turns[rng.below(turns.len())]).unwrap();
        }
        for (kind, a, b) in raw {
            let (Some(a), Some(b)) = (Point::from_index(a), Point::from_index(b)) else { continue };
            let action = match kind {
                0 => Action::Place { to: a },
                1 => Action::Move { from: a, to: b },
                _ => Action::Remove { at: a },
            };
            let before = game.clone();
            if game.play_action(action).is_err() {
                prop_assert_eq!(game.position(), before.position());
                prop_assert_eq!(game.actions(), before.actions());
            }
        }
    }
}

#[test]
fn position_string_errors_name_the_part() {
    use mill_core::PositionError as E;
    let bad = [
        ("", E::FieldCount(0)),
        (".../.../.../....../.../.../... l 9 9 0", E::FieldCount(5)),
        (
            ".../.../.../....../.../... l 9 9 0 0",
            E::RankCount {
                expected: 7,
                found: 6,
            },
        ),
        (
            "..../.../.../....../.../.../... l 9 9 0 0",
            E::RankLength {
                rank: 7,
                expected: 3,
                found: 4,
            },
        ),
        (".x./.../.../....../.../.../... l 9 9 0 0", E::BoardChar('x')),
        (".../.../.../....../.../.../... w 9 9 0 0", E::Turn("w".into())),
        (
            ".../.../.../....../.../.../... l nine 9 0 0",
            E::LightHand("nine".into()),
        ),
        (
            ".../.../.../....../.../.../... l 9 -1 0 0",
            E::DarkHand("-1".into()),
        ),
        (".../.../.../....../.../.../... l 9 9 ? 0", E::Pending("?".into())),
        (".../.../.../....../.../.../... l 9 9 0 q", E::Quiet("q".into())),
        (
            "L../.../.../....../.../.../... l 9 9 0 0",
            E::TooManyPieces(Color::Light),
        ),
        ("L../.../.../....../.../.../... l 8 9 1 0", E::ImpossiblePending),
    ];
    for (text, expected) in bad {
        let err = text.parse::<Position>().unwrap_err();
        assert_eq!(err, expected, "{text:?}");
        assert!(!err.to_string().is_empty());
    }
}

#[test]
fn notation_syntax_errors() {
    for bad in [
        "",
        "d",
        "d0",
        "dd6",
        "a1-",
        "-a1",
        "a1xx",
        "a1-a4-a7",
        "A1",
        "a1xb2xc3xd4xe5xf6",
    ] {
        assert!(bad.parse::<Notation>().is_err(), "{bad:?}");
    }
    let t = Position::default().topology();
    assert!(
        "d4".parse::<Notation>().unwrap().to_turn(t).is_err(),
        "d4 is no point"
    );
    assert!(Action::parse("a1xb2", t).is_err());
    assert!(Action::parse("xb2", t).is_ok());
    for good in ["d6", "a1-a4", "g1xd2", "f4-g4xb6"] {
        assert_eq!(good.parse::<Notation>().unwrap().to_string(), good);
    }
}
