//! The endgame tablebase: generated for three pieces a side (small enough for a test),
//! every value checked against its successors by mill-core, the file form read back,
//! and Hard, given the tables, never spoils a won ending against the tables' best
//! defence and searches a drawn one among its drawing turns.

use mill_core::{Game, Position, Rules, Variant};
use mill_engine::tb::{FileHeader, Tablebase, Value};
use mill_engine::{Engine, Level, Limits, NoClock};
use std::sync::{Arc, OnceLock};

fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| Tablebase::generate(Variant::Nine, 3, &mut |_| {}).expect("generated"))
}

fn position(s: &str) -> Position {
    s.parse()
        .unwrap_or_else(|e| panic!("bad test position {s:?}: {e}"))
}

#[test]
fn every_value_agrees_with_its_successors() {
    let tb = tables();
    assert_eq!(tb.symmetries(), 16);
    assert_eq!(tb.classes().len(), 1);
    let checked = tb.verify(&mut |_| {}).expect("consistent");
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn the_file_form_reads_back_the_same() {
    let tb = tables();
    let bytes = tb.class_bytes(3, 3).unwrap();
    let mut back = Tablebase::new(Variant::Nine);
    assert_eq!(back.load_class(&bytes), Ok((3, 3)));
    let p = position("LL./.../D../...D.D/.../.../..L l 0 0 0 0");
    assert_eq!(back.probe(&p), tb.probe(&p));
    let mut cut = bytes.clone();
    cut.truncate(bytes.len() - 1);
    assert!(Tablebase::new(Variant::Nine).load_class(&cut).is_err());
    assert!(Tablebase::new(Variant::Nine).load_class(b"not a table").is_err());
    // A corrupted value is caught by the verifier.
    let mut bad = bytes.clone();
    let header = bytes.len() - 4 * tb.classes()[0].2;
    for b in &mut bad[header..header + 400] {
        *b ^= 0x5a;
    }
    let mut corrupt = Tablebase::new(Variant::Nine);
    corrupt.load_class(&bad).unwrap();
    assert!(corrupt.verify(&mut |_| {}).is_err());
}

#[test]
fn known_endings() {
    let tb = tables();
    // Light flies g1-g7 closing a7 d7 g7 and takes one of Dark's three: won at once.
    let p = position("LL./.../D../...D.D/.../.../..L l 0 0 0 0");
    let probe = tb.probe(&p).unwrap();
    assert_eq!(probe.result, Value::Win(1));
    let (turn, _) = tb.best_turn(&p).unwrap();
    assert!(turn.to_notation(p.topology()).starts_with("g1-g7x"));
    // With Dark to move the same board is in the tables too, and the best turn is legal.
    let q = position("LL./.../D../...D.D/.../.../..L d 0 0 0 0");
    let (turn, _) = tb.best_turn(&q).unwrap();
    assert!(q.legal_turns().contains(&turn));
    // The quiet-turn rule: the same won position with 100 quiet turns left to none.
    let late = position("LL./.../D../...D.D/.../.../..L l 0 0 0 99");
    assert_eq!(tb.probe(&late).unwrap().result, Value::Win(1));
}

/// A tiny seeded generator.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random 3 v 3 position of the Nine board with Light to move (`None` when the draw
/// put a piece twice on one point).
fn random_three_a_side(rng: &mut u64) -> Option<Position> {
    let t = Position::default().topology();
    let mut board = ['.'; 24];
    let mut placed = 0;
    while placed < 6 {
        let i = (next(rng) % 24) as usize;
        if board[i] == '.' {
            board[i] = if placed < 3 { 'L' } else { 'D' };
            placed += 1;
        }
    }
    let mut ranks: Vec<u8> = t.points().map(|p| t.coords(p).1).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    ranks.dedup();
    let rows: Vec<String> = ranks
        .iter()
        .map(|&r| {
            (0..7)
                .filter_map(|f| t.point_at(f, r))
                .map(|p| board[p.index()])
                .collect()
        })
        .collect();
    format!("{} l 0 0 0 0", rows.join("/")).parse().ok()
}

/// The 3 v 3 tables, and an engine that has them.
fn hard_with_tables() -> (Arc<Tablebase>, Engine) {
    let tb = Arc::new(tables().clone());
    let mut engine = Engine::new(1);
    engine.set_tablebase(Some(Arc::clone(&tb)));
    (tb, engine)
}

#[test]
fn hard_searches_a_drawn_ending_among_its_drawing_turns() {
    let (tb, mut engine) = hard_with_tables();
    let mut rng = 7u64;
    let mut played = 0;
    let mut tries = 0;
    while played < 12 {
        tries += 1;
        assert!(tries < 100_000, "too few drawn positions with a losing turn");
        let Some(start) = random_three_a_side(&mut rng) else {
            continue;
        };
        if start.is_over() || tb.probe(&start).map(|p| p.result) != Some(Value::Draw) {
            continue;
        }
        let values = tb.turn_values(&start).unwrap();
        // Only positions where some turn loses, so that the choice matters.
        if !values.iter().any(|(_, v)| matches!(v, Value::Loss(_))) {
            continue;
        }
        let game = Game::from_position(start);
        let limits = Limits::new(Level::Hard, played).with_depth(2);
        let result = engine.best_turn(&game, &limits, &mut NoClock).unwrap();
        // Searched, not answered from the tables at once,
        assert!(result.depth > 1, "{start}: answered from the tables");
        // and never a turn that throws the draw away.
        let value = values.iter().find(|(t, _)| *t == result.turn).unwrap().1;
        assert_eq!(value, Value::Draw, "{start}: {:?}", result.turn);
        played += 1;
    }
}

#[test]
fn hard_never_spoils_a_won_ending_against_best_defence() {
    let (tb, mut engine) = hard_with_tables();
    let mut rng = 99u64;
    let mut played = 0;
    while played < 30 {
        let Some(start) = random_three_a_side(&mut rng) else {
            continue;
        };
        let Some(probe) = tb.probe(&start) else { continue };
        // Only positions won by more than a turn: the win must be played out.
        if !matches!(probe.result, Value::Win(n) if n > 1) || start.is_over() {
            continue;
        }
        // With fewer quiet turns left than the next removal needs, it is a draw.
        if let Value::Win(d) = probe.dtz
            && d > 1
        {
            let text = start.to_string();
            let cursed = position(&format!("{} {}", text.rsplit_once(' ').unwrap().0, 101 - d));
            assert_eq!(tb.probe(&cursed).unwrap().result, Value::Draw, "{cursed}");
            let just = position(&format!("{} {}", text.rsplit_once(' ').unwrap().0, 100 - d));
            assert!(matches!(tb.probe(&just).unwrap().result, Value::Win(_)), "{just}");
        }
        let mut game = Game::from_position(start);
        let winner = start.turn();
        let mut turns = 0;
        while !game.is_over() {
            let turn = if game.position().turn() == winner {
                let limits = Limits::new(Level::Hard, turns).with_depth(2);
                engine.best_turn(&game, &limits, &mut NoClock).unwrap().turn
            } else {
                tb.best_turn(game.position()).expect("in the tables").0
            };
            game.play(turn).unwrap();
            turns += 1;
            assert!(turns < 300, "no end from {start}");
        }
        assert_eq!(
            game.outcome().and_then(|o| o.winner()),
            Some(winner),
            "Hard spoiled {start}: {}",
            game.record().join(" ")
        );
        played += 1;
    }
}

#[test]
fn tables_answer_only_the_rule_set_they_were_solved_for() {
    let tb = tables();
    let bytes = tb.class_bytes(3, 3).unwrap();
    let (header, values) = FileHeader::read(&bytes).unwrap();
    assert_eq!(header.rules, Variant::Nine.rules());
    assert_eq!((header.m, header.o, header.positions), (3, 3, tb.classes()[0].2));
    assert_eq!(values.len(), 4 * header.positions);
    assert_eq!(header.file_name(), "nine-3v3.mtb");
    // The same board without protected mills or without flying is another game: the
    // nine tables do not answer it, and its own tables do not take nine's file.
    let board = "LL./.../D../...D.D/.../.../..L l 0 0 0 0";
    assert!(tb.probe(&position(board)).is_some());
    for other in ["nine+protect-off", "nine+fly-0"] {
        let p = position(&format!("{board} {other}"));
        assert_eq!(p.rules().to_string(), other);
        assert_eq!(tb.probe(&p), None, "{other}");
        assert_eq!(tb.best_turn(&p), None, "{other}");
        let rules = Rules::parse(other).unwrap();
        let err = Tablebase::new(rules).load_class(&bytes).unwrap_err();
        assert!(err.contains("a table of nine"), "{err}");
        assert_eq!(
            mill_engine::tb::file_name(rules, 4, 3),
            format!("{other}-4v3.mtb")
        );
    }
    // A header naming no rule set, or impossible material, is refused.
    let mut unknown = bytes.clone();
    unknown[9..13].copy_from_slice(b"nune");
    assert!(FileHeader::read(&unknown).unwrap_err().contains("nune"));
    let mut material = bytes.clone();
    material[13] = 2;
    assert!(
        FileHeader::read(&material)
            .unwrap_err()
            .contains("impossible material")
    );
}

#[test]
fn rule_sets_the_solver_cannot_solve_are_refused() {
    let three = Rules::parse("three").unwrap();
    assert!(Tablebase::supports(three).is_err());
    assert!(
        Tablebase::generate(three, 3, &mut |_| {})
            .unwrap_err()
            .contains("three")
    );
    // A removal per mill: only while no step can close two mills.
    let per_mill = Rules::parse("nine+per-mill").unwrap();
    assert_eq!(Tablebase::supports(per_mill), Ok(()));
    let err = Tablebase::generate(per_mill, 5, &mut |_| {}).unwrap_err();
    assert!(
        err.contains("nine+per-mill") && err.contains("at most 4"),
        "{err}"
    );
    assert_eq!(
        Tablebase::supports(Rules::parse("six+protect-off").unwrap()),
        Ok(())
    );
}

#[test]
fn a_removal_per_mill_is_solved_and_verified_where_no_step_closes_two() {
    let per_mill = Rules::parse("nine+per-mill").unwrap();
    let tb = Tablebase::generate(per_mill, 3, &mut |_| {}).expect("generated");
    assert_eq!(tb.rules(), per_mill);
    // mill-core's own turns, with their removal per mill, agree with every value.
    assert!(tb.verify(&mut |_| {}).expect("consistent") > 100_000);
    // And they are the one-removal values: with three a side no step closes two mills.
    let board = "LL./.../D../...D.D/.../.../..L l 0 0 0 0";
    let p = position(&format!("{board} nine+per-mill"));
    assert_eq!(tb.probe(&p).unwrap(), tables().probe(&position(board)).unwrap());
    assert_eq!(tables().probe(&p), None);
    let bytes = tb.class_bytes(3, 3).unwrap();
    assert_eq!(
        FileHeader::read(&bytes).unwrap().0.file_name(),
        "nine+per-mill-3v3.mtb"
    );
}
