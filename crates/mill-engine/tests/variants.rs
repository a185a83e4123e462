//! The engine plays every variant and rule option: legal turns at every level, the
//! winning line of Three Men's Morris, Twelve's diagonal mills and its full board.

use mill_core::{Game, Position, Rules, Turn};
use mill_engine::{Engine, Level, Limits, NoClock, PIECE, SearchResult};

fn position(s: &str) -> Position {
    s.parse()
        .unwrap_or_else(|e| panic!("bad test position {s:?}: {e}"))
}

fn search(p: &Position, limits: Limits) -> SearchResult {
    Engine::new(1)
        .search(p, &[], &limits, &mut NoClock)
        .expect("a position with turns")
}

fn notation(p: &Position, t: Turn) -> String {
    t.to_notation(p.topology())
}

fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn every_level_returns_legal_turns_in_every_variant() {
    let mut engine = Engine::new(1);
    for (i, rules) in [
        "three",
        "six",
        "twelve",
        "nine+per-mill",
        "twelve+per-mill+protect-off",
        "six+fly-0",
        "nine+fly-4",
    ]
    .into_iter()
    .enumerate()
    {
        let mut rng = 777 + i as u64;
        let mut checked = 0;
        for game_number in 0..4u64 {
            let mut game = Game::from_position(Position::start(Rules::parse(rules).unwrap()));
            let mut ply = 0u64;
            while !game.is_over() && ply < 80 {
                let turns = game.legal_turns();
                if ply % 3 == game_number % 3 {
                    let level = Level::ALL[(ply % 3) as usize];
                    let limits = Limits::new(level, ply).with_nodes(2_000);
                    let r = engine.best_turn(&game, &limits, &mut NoClock).unwrap();
                    assert!(
                        turns.contains(&r.turn),
                        "{level} played an illegal turn in {}",
                        game.position()
                    );
                    checked += 1;
                }
                let turn = turns[(next(&mut rng) % turns.len() as u64) as usize];
                game.play(turn).unwrap();
                ply += 1;
            }
        }
        assert!(checked > 10, "{rules}: only {checked} positions checked");
    }
}

#[test]
fn three_closes_its_line_and_wins() {
    // Placing: Light a1 d1, g1 free.
    let p = position("..D/.D./LL. l 1 1 0 0 three");
    // Moving: a4-d4 makes a1 d4 g7.
    let q = position(".DL/L../LDD l 0 0 0 0 three");
    for (p, turn) in [(p, "g1"), (q, "a4-d4")] {
        for level in [Level::Medium, Level::Hard] {
            let r = search(&p, Limits::new(level, 1).with_depth(4));
            assert_eq!(notation(&p, r.turn), turn, "{level} in {p}");
            assert_eq!(r.win_in(), Some(1), "{level}: {r:?}");
        }
    }
}

#[test]
fn three_blocks_the_opponent_line() {
    // Dark threatens a7 d7 g7 (g7 free) and Light has no line to close: it must block.
    let p = position("DD./.L./..L l 1 1 0 0 three");
    let r = search(&p, Limits::new(Level::Hard, 1).with_depth(4));
    assert_eq!(notation(&p, r.turn), "g7");
}

#[test]
fn twelve_takes_a_diagonal_mill() {
    // a1 b2 are Light's: c3 closes the diagonal mill. (Deeper, Hard may prefer to build
    // a double threat first; two turns deep the capture is the best it sees.)
    let p = position("D../.../.../....../.../L../LD. l 10 10 0 0 twelve");
    let r = search(&p, Limits::new(Level::Hard, 5).with_depth(2));
    assert!(
        notation(&p, r.turn).starts_with("c3x"),
        "{}",
        notation(&p, r.turn)
    );
    assert!(r.score > PIECE / 2, "{}", r.score);
}

#[test]
fn twelve_sees_the_full_board_as_a_draw() {
    // Two points left. One of Light's placements lets Dark close a mill on the last
    // point; the other leaves Dark only the placement that fills the board: a draw,
    // which the search scores 0 and prefers.
    let p = position("DD./DLL/LDD/LLDLD./LDL/DLD/DLL l 1 1 0 0 twelve");
    let r = search(&p, Limits::new(Level::Hard, 1).with_depth(4));
    assert_eq!(r.score, 0, "{r:?}");
    let after = p.play(r.turn).unwrap();
    let replies = after.legal_turns();
    assert_eq!(replies.len(), 1);
    let end = after.play(replies[0]).unwrap();
    assert_eq!(
        end.outcome(),
        Some(mill_core::Outcome::Draw {
            reason: mill_core::DrawReason::BoardFull
        })
    );
}
