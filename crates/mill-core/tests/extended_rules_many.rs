//! Rule sets are plain values: one process makes and plays any number of rule sets with
//! extended options, in any order, and none is registered anywhere. (Before, a process
//! could make 96 of them and their handles depended on the order of first use.)

mod common;
use common::turn;
use mill_core::{
    BoardFull, Color, DrawBy, Game, NoPlacement, Options, Position, RemovalRule, Rules, Variant,
};

/// The `k`-th of many different extended rule sets: every option varied, the
/// no-progress limit (always set, and different for each `k`) keeping them apart.
fn extended(k: usize) -> Rules {
    let variant = [Variant::Six, Variant::Nine, Variant::Twelve][k % 3];
    let options = Options {
        first: if k % 2 == 0 { Color::Light } else { Color::Dark },
        removals: if k % 5 == 0 {
            RemovalRule::PerMill
        } else {
            RemovalRule::One
        },
        protect: k % 7 != 0,
        fly_at: (k % 5) as u8,
        pieces: 3 + (k % 13) as u8,
        quiet_limit: 1 + k as u16,
        quiet_draw: if k % 4 == 0 {
            DrawBy::Claim
        } else {
            DrawBy::Automatic
        },
        repetition_draw: if k % 6 == 0 {
            DrawBy::Claim
        } else {
            DrawBy::Automatic
        },
        board_full: [BoardFull::Off, BoardFull::Draw, BoardFull::LightLoses][k % 3],
        no_placement: if k % 8 == 0 {
            NoPlacement::Draw
        } else {
            NoPlacement::Loss
        },
        placing_moves: k % 9 == 0,
        placing_repeats: k % 18 != 0,
    };
    Rules::of(variant, options).expect("valid options")
}

/// Plays `rules` from the start, choosing turns by a seeded generator, until the game
/// ends or `plies` turns are played; every position keeps the rules it started with.
fn play(rules: Rules, seed: u64, plies: usize) -> Game {
    let mut game = Game::from_position(Position::start(rules));
    let mut state = seed | 1;
    for _ in 0..plies {
        if game.is_over() {
            break;
        }
        let turns = game.position().legal_turns();
        if turns.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let turn = turns[(state % turns.len() as u64) as usize];
        game.play(turn).expect("a legal turn");
        assert_eq!(game.position().rules(), rules);
    }
    game
}

#[test]
fn hundreds_of_extended_rule_sets_play_in_one_process_in_any_order() {
    const MANY: usize = 200;
    let all: Vec<Rules> = (0..MANY).map(extended).collect();
    for (i, a) in all.iter().enumerate() {
        assert!(a.is_extended(), "{a}");
        // Each is its own rule set, and its name reads back as it.
        assert!(all[..i].iter().all(|b| b != a), "{a} twice");
        assert_eq!(Rules::parse(&a.to_string()), Ok(*a));
    }
    // Played last to first, then first to last: the order in which rule sets are made
    // or played changes nothing.
    let backwards: Vec<String> = all
        .iter()
        .enumerate()
        .rev()
        .map(|(k, &r)| play(r, k as u64, 60).position().to_string())
        .collect();
    let forwards: Vec<String> = all
        .iter()
        .enumerate()
        .map(|(k, &r)| play(r, k as u64, 60).position().to_string())
        .collect();
    assert_eq!(backwards.into_iter().rev().collect::<Vec<_>>(), forwards);
    for (k, (text, &rules)) in forwards.iter().zip(&all).enumerate() {
        // The position string names its rule set, and reads back under it alone.
        let p: Position = text.parse().unwrap_or_else(|e| panic!("{k}: {text}: {e}"));
        assert_eq!(p.rules(), rules, "{text}");
        assert_eq!(p.rules().pieces, 3 + (k % 13) as u8);
        assert_eq!(p.to_string(), *text);
        assert!(Position::from_str_variant(text, rules).is_ok());
        let other = all[(k + 1) % MANY];
        assert!(Position::from_str_variant(text, other).is_err());
    }
}

#[test]
fn a_no_progress_limit_of_any_size_ends_the_game_it_names() {
    // Far beyond the old registry's room: limits 1 to 300, each its own rule set, each
    // drawing (automatically) after exactly that many quiet turns once placing is over.
    for limit in 1..=300u16 {
        // Repetitions are claimed, so the shuffle below ends by the no-progress draw.
        let rules = Rules::parse(&format!("nine+pieces-3+quiet-{limit}+repetition-claim")).unwrap();
        assert!(rules.is_extended() && rules.quiet_limit == limit);
        // Three pieces a side, placed where no line can close; then the two sides
        // shuffle one piece back and forth.
        let mut game = Game::from_position(Position::start(rules));
        for text in ["a7", "g7", "d6", "f6", "b2", "g1"] {
            let t = turn(game.position(), text);
            game.play(t).unwrap();
        }
        let shuffles = ["a7-a4", "g7-d7", "a4-a7", "d7-g7"];
        let mut quiet = 0u16;
        while !game.is_over() {
            let t = turn(game.position(), shuffles[quiet as usize % 4]);
            game.play(t).unwrap();
            quiet += 1;
            assert!(quiet <= limit, "limit {limit} not applied");
        }
        assert_eq!(quiet, limit);
        assert_eq!(game.position().quiet_turns(), limit);
        assert_eq!(
            game.outcome(),
            Some(mill_core::Outcome::Draw {
                reason: mill_core::DrawReason::HundredTurns
            })
        );
    }
}
