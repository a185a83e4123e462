//! The engine finds forced wins in short tactical positions, never returns an illegal
//! turn, is deterministic under a seed, and varies its play between seeds.

use mill_core::{Color, Game, Position, Turn};
use mill_engine::{Engine, Level, Limits, NoClock, PIECE, SearchError, SearchResult};

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

#[test]
fn mill_in_one_wins_at_once_at_every_level_but_easy() {
    // Dark is down to three pieces; Light steps g4-g1 closing a1 d1 g1 and wins.
    let p = position("D../.D./D../.....L/.../.../LL. l 0 0 0 0");
    for level in [Level::Medium, Level::Hard] {
        let r = search(&p, Limits::new(level, 1).with_depth(4));
        assert_eq!(r.win_in(), Some(1), "{level}: {r:?}");
        assert!(
            notation(&p, r.turn).starts_with("g4-g1x"),
            "{level}: {}",
            notation(&p, r.turn)
        );
    }
}

#[test]
fn placing_mill_in_one_is_taken() {
    // a1 d1 are Light's, g1 is free: g1 closes the mill and removes a Dark piece.
    let p = position(".../.../.../....../.../DD./LL. l 7 7 0 0");
    for level in [Level::Medium, Level::Hard] {
        let r = search(&p, Limits::new(level, 5).with_depth(3));
        assert!(
            notation(&p, r.turn).starts_with("g1x"),
            "{level}: {}",
            notation(&p, r.turn)
        );
        assert!(r.score > PIECE / 2, "{level}: {}", r.score);
    }
}

#[test]
fn blockade_wins() {
    // Dark's four pieces can only go to g4; f4-g4 blocks them all.
    let p = position("DDD/.L./.../L...L./.../.../DL. l 0 0 0 0");
    let r = search(&p, Limits::new(Level::Hard, 2).with_depth(3));
    assert_eq!(notation(&p, r.turn), "f4-g4");
    assert_eq!(r.win_in(), Some(1));
    let after = p.play(r.turn).unwrap();
    assert!(matches!(
        after.outcome(),
        Some(mill_core::Outcome::Win {
            winner: Color::Light,
            ..
        })
    ));
}

#[test]
fn double_threat_wins_a_piece_against_best_defence() {
    // Light (a1, g7) can make two mill threats at once (a7, or d1 then a7): Dark
    // cannot block both. Both sides play Hard at depth 5; after a few turns Dark is a
    // piece down and Light is not.
    let p = position("..L/.../.D./....../.../.D./L.. l 6 6 0 0");
    let first = search(&p, Limits::new(Level::Hard, 3).with_depth(5));
    assert!(
        first.score >= PIECE * 3 / 4,
        "Light should see a piece won: {first:?}"
    );
    let mut game = Game::from_position(p);
    let mut engine = Engine::new(1);
    for _ in 0..6 {
        let r = engine
            .best_turn(&game, &Limits::new(Level::Hard, 3).with_depth(5), &mut NoClock)
            .unwrap();
        game.play(r.turn).unwrap();
    }
    let total = |p: &Position, c| p.on_board(c) + p.in_hand(c);
    let now = game.position();
    assert_eq!(
        total(now, Color::Light),
        total(&p, Color::Light),
        "{:?}",
        game.record()
    );
    assert!(
        total(now, Color::Dark) < total(&p, Color::Dark),
        "{:?}",
        game.record()
    );
}

#[test]
fn prefers_the_faster_win() {
    // Light can win now (g4-g1 closes a mill against three pieces); slower wins exist
    // too. The score must say win in 1.
    let p = position("D../.D./D../.....L/.../.../LL. l 0 0 0 0");
    let r = search(&p, Limits::new(Level::Hard, 9).with_depth(6));
    assert_eq!(r.win_in(), Some(1));
}

#[test]
fn sees_its_own_loss() {
    // Dark to move, three pieces against Light's ready mill on g1 that Dark cannot
    // block in time? Dark flies and can block g1: then no forced loss in one.
    let p = position("D../.D./D../.....L/.../.../LL. d 0 0 0 0");
    let r = search(&p, Limits::new(Level::Hard, 9).with_depth(4));
    assert!(
        notation(&p, r.turn).ends_with("-g1"),
        "Dark must block g1: {}",
        notation(&p, r.turn)
    );
}

#[test]
fn no_turn_mid_turn_or_after_the_end() {
    let mut engine = Engine::new(0);
    let limits = Limits::new(Level::Hard, 0).with_depth(2);
    let mid = position(".../.../.../....../.../DD./LLL l 6 7 1 0");
    assert_eq!(
        engine.search(&mid, &[], &limits, &mut NoClock),
        Err(SearchError::MidTurn)
    );
    // Light is blocked.
    let over = position("LLL/.D./.../D....D/.../.../LD. l 0 0 0 0");
    assert!(over.outcome().is_some());
    assert_eq!(
        engine.search(&over, &[], &limits, &mut NoClock),
        Err(SearchError::GameOver)
    );
    // The position occurred twice before: a third time is a draw. (Four quiet turns: the
    // turns between equal positions are moves without a removal.)
    let p = position("L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 4");
    let h = p.hash();
    assert_eq!(
        engine.search(&p, &[h, 1, h, 2], &limits, &mut NoClock),
        Err(SearchError::GameOver)
    );
    assert!(engine.search(&p, &[h, 1], &limits, &mut NoClock).is_ok());
}

/// A tiny seeded generator for the random games of the tests.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn every_level_returns_legal_turns_in_random_positions() {
    let mut rng = 12345u64;
    let mut engine = Engine::new(1);
    let mut checked = 0;
    for game_number in 0..12 {
        let mut game = Game::default();
        let mut ply = 0u64;
        while !game.is_over() && ply < 120 {
            let turns = game.legal_turns();
            if ply % 7 == game_number % 7 {
                let level = Level::ALL[(ply % Level::ALL.len() as u64) as usize];
                let limits = Limits::new(level, ply).with_nodes(3_000);
                let r = engine.best_turn(&game, &limits, &mut NoClock).unwrap();
                assert!(
                    turns.contains(&r.turn),
                    "{level} played an illegal turn in {}",
                    game.position()
                );
                assert_eq!(r.pv.first(), Some(&r.turn));
                checked += 1;
            }
            let turn = turns[(next(&mut rng) % turns.len() as u64) as usize];
            game.play(turn).unwrap();
            ply += 1;
        }
    }
    assert!(checked > 100, "only {checked} positions checked");
}

#[test]
fn same_seed_same_result() {
    let p = position("..D/.L./.D./.L.DL./.../.D./L.. l 5 5 0 0");
    for level in Level::ALL {
        let limits = Limits::new(level, 42).with_depth(4);
        let a = search(&p, limits);
        let mut engine = Engine::new(1);
        // A used engine gives the same answer as a fresh one.
        let _ = engine.search(
            &position(".../.../.../....../.../.../... l 9 9 0 0"),
            &[],
            &limits,
            &mut NoClock,
        );
        let b = engine.search(&p, &[], &limits, &mut NoClock).unwrap();
        assert_eq!(a, b, "{level}");
        let nodes = search(&p, Limits::new(level, 42).with_nodes(5_000));
        assert_eq!(
            nodes,
            search(&p, Limits::new(level, 42).with_nodes(5_000)),
            "{level}"
        );
    }
}

#[test]
fn every_level_varies_its_opening_with_the_seed() {
    let start = Position::default();
    for (level, depth, at_least) in [(Level::Easy, 2, 6), (Level::Medium, 3, 2), (Level::Hard, 4, 2)] {
        let mut seen: Vec<String> = (0..24)
            .map(|seed| {
                notation(
                    &start,
                    search(&start, Limits::new(level, seed).with_depth(depth)).turn,
                )
            })
            .collect();
        seen.sort();
        seen.dedup();
        assert!(seen.len() >= at_least, "{level} opened with only {seen:?}");
    }
}

#[test]
fn easy_makes_mistakes_that_hard_does_not() {
    // Over 100 seeds, Easy sometimes leaves a mill in one (g1) untaken; Hard never.
    let p = position(".../.../.../....../.../DD./LL. l 7 7 0 0");
    let missed = |level: Level| {
        (0..100)
            .filter(|&seed| {
                !notation(&p, search(&p, Limits::new(level, seed).with_depth(2)).turn).starts_with("g1x")
            })
            .count()
    };
    assert_eq!(missed(Level::Hard), 0);
    let easy = missed(Level::Easy);
    assert!(
        (5..=60).contains(&easy),
        "Easy missed the mill {easy} times in 100"
    );
}

#[test]
fn a_forced_turn_is_answered_at_once() {
    // Light's only turn is a1-a4: no need to think for a second.
    let p = position(".DL/LD./.../.D..DD/.../.DL/LD. l 0 0 0 0");
    assert_eq!(p.legal_turns().len(), 1, "the test position must have one turn");
    let r = search(&p, Limits::new(Level::Hard, 0).with_nodes(2_000_000));
    assert!(r.depth <= 2, "{r:?}");
    assert!(r.nodes < 10_000, "{r:?}");
}

#[test]
fn repetition_is_sought_when_behind_and_avoided_when_ahead() {
    // The first legal turn leads back to a position that occurred twice already:
    // playing it draws by threefold repetition.
    let check = |s: &str| {
        let p = position(s);
        let turn = p.legal_turns()[0];
        let q = p.play(turn).unwrap();
        let history = [q.hash(), p.hash(), q.hash()];
        let r = Engine::new(1)
            .search(
                &p,
                &history,
                &Limits::new(Level::Hard, 0).with_depth(4),
                &mut NoClock,
            )
            .unwrap();
        (notation(&p, turn), notation(&p, r.turn), r.score)
    };
    // Light has four pieces against six: the draw is its best result (scored a little
    // below even: Hard's contempt for repetitions).
    let (draw, chosen, score) = check("L.L/.D./..D/.D..D./D../.D./L.L l 0 0 0 10");
    assert_eq!(chosen, draw);
    assert!((-PIECE / 2..=0).contains(&score), "{score}");
    // Light has six against four: it plays on.
    let (draw, chosen, score) = check("L.L/.L./..D/.L..D./D../.L./L.L l 0 0 0 10");
    assert_ne!(chosen, draw);
    assert!(score > 0, "{score}");
}

#[test]
fn contempt_is_hards_own_unless_set() {
    // Light, four pieces against six, can only draw: by threefold repetition with its
    // first legal turn. The draw scores minus the contempt for Hard, even for Medium.
    let p = position("L.L/.D./..D/.D..D./D../.D./L.L l 0 0 0 10");
    let q = p.play(p.legal_turns()[0]).unwrap();
    let history = [q.hash(), p.hash(), q.hash()];
    let score = |level: Level, contempt: Option<i32>| {
        let mut engine = Engine::new(1);
        engine.set_contempt(contempt);
        engine
            .search(&p, &history, &Limits::new(level, 0).with_depth(4), &mut NoClock)
            .unwrap()
            .score
    };
    assert_eq!(Level::Hard.contempt(), 30);
    assert_eq!(score(Level::Hard, None), -30);
    assert_eq!(score(Level::Hard, Some(0)), 0);
    assert_eq!(score(Level::Hard, Some(50)), -50);
    assert_eq!(score(Level::Medium, Some(50)), score(Level::Medium, None));
}

#[test]
fn progress_is_reported_after_every_iteration() {
    let p = position("..D/.L./.D./.L.DL./.../.D./L.. l 5 5 0 0");
    let mut depths = Vec::new();
    let r = Engine::new(1)
        .search_reporting(
            &p,
            &[],
            &Limits::new(Level::Hard, 1).with_depth(5),
            &mut NoClock,
            &mut |r| {
                assert_eq!(r.pv.first(), Some(&r.turn));
                depths.push(r.depth);
            },
        )
        .unwrap();
    assert_eq!(depths, [1, 2, 3, 4, 5]);
    assert_eq!(r, search(&p, Limits::new(Level::Hard, 1).with_depth(5)));
}

#[test]
fn a_kept_table_makes_the_next_search_of_a_game_cheaper() {
    let p = position("..D/.L./.D./.L.DL./.../.D./L.. l 5 5 0 0");
    let limits = Limits::new(Level::Hard, 1).with_depth(7);
    let mut engine = Engine::new(4);
    let first = engine.search(&p, &[], &limits, &mut NoClock).unwrap();
    // Without keeping, the same search costs the same.
    assert_eq!(engine.search(&p, &[], &limits, &mut NoClock).unwrap(), first);
    engine.keep_table(true);
    let _ = engine.search(&p, &[], &limits, &mut NoClock).unwrap();
    let again = engine.search(&p, &[], &limits, &mut NoClock).unwrap();
    assert!(
        again.nodes < first.nodes / 2,
        "{} vs {}",
        again.nodes,
        first.nodes
    );
    // A new game forgets it.
    engine.new_game();
    assert_eq!(
        engine.search(&p, &[], &limits, &mut NoClock).unwrap().nodes,
        first.nodes
    );
}

#[test]
fn a_search_cut_short_plays_the_better_turn_its_last_iteration_found() {
    // Positions where one more turn of depth changes Hard's choice: a search that runs
    // out of nodes just before that iteration ends already plays the deeper choice
    // (before, the unfinished iteration was thrown away).
    let search = |p: &Position, limits: Limits| Engine::new(1).search(p, &[], &limits, &mut NoClock).unwrap();
    let mut checked = 0;
    let mut positions: Vec<Position> = [
        ".../.../.../....../.../.../... l 9 9 0 0",
        "..D/.L./.D./.L.DL./.../.D./L.. l 5 5 0 0",
        "L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 0",
        "L../.D./.D./D....L/.../.D./L.D l 0 0 0 0",
    ]
    .map(position)
    .to_vec();
    // And a few placings: the last legal turn, several times from the start.
    let mut p = positions[0];
    for _ in 0..6 {
        p = p.play(*p.legal_turns().last().unwrap()).unwrap();
        positions.push(p);
    }
    for p in positions {
        let s = p.to_string();
        for depth in 3..=9 {
            let shallow = search(&p, Limits::new(Level::Hard, 1).with_depth(depth - 1));
            let deep = search(&p, Limits::new(Level::Hard, 1).with_depth(depth));
            if shallow.turn == deep.turn || deep.nodes < shallow.nodes + 4096 {
                continue;
            }
            // Stopped within the last iteration (the limit is checked every 1024 nodes).
            let cut = search(&p, Limits::new(Level::Hard, 1).with_nodes(deep.nodes - 2048));
            assert_eq!(cut.depth, depth - 1, "{s}");
            assert!(cut.nodes < deep.nodes, "{s}");
            // The deeper choice may be settled in the iteration's last nodes (a fail
            // high searched again), after the cut: then there is nothing to check here.
            // A search that threw the unfinished iteration away would always play the
            // shallow turn, and count no position.
            if cut.turn != deep.turn {
                continue;
            }
            checked += 1;
            break;
        }
    }
    assert!(
        checked >= 2,
        "only {checked} positions play, cut short, the choice the unfinished iteration found"
    );
}

#[test]
fn the_clock_is_read_about_once_every_thousand_nodes() {
    // In the page the clock is `performance.now()` through JavaScript, far dearer than a
    // node: the search must not ask it per node. A search with time to spare, stopped
    // by a node limit, counts its clock's readings.
    let nodes = 300_000;
    let mut readings = 0u64;
    let mut clock = || {
        readings += 1;
        0
    };
    let p = Position::default();
    // (`with_nodes` drops the time limit: the time is set after it.)
    let limits = Limits::new(Level::Hard, 1)
        .with_nodes(nodes)
        .with_movetime(Some(60_000));
    let r = Engine::new(1)
        .search(&p, &[], &limits, &mut clock)
        .expect("a position with turns");
    assert!(r.nodes >= nodes / 2, "{r:?}");
    // Once every 1024 nodes, and a few times per iteration (whether to start the next).
    let most = r.nodes / 1024 + 4 * u64::from(r.depth) + 8;
    assert!(
        readings > r.nodes / 2048,
        "the time limit was hardly looked at: {readings} readings"
    );
    assert!(
        readings <= most,
        "{readings} readings of the clock in {} nodes, more than {most}",
        r.nodes
    );
}

#[test]
fn placing_foresight_searches_the_last_placement_of_a_boxed_in_side_deeper() {
    // Light's four corners are boxed in by Dark; Dark to place, then Light its last
    // piece: with the switch on, the lines where Light makes that placement are searched
    // a turn deeper; off (the default), the search is the one every other test pins.
    let p = position("LDL/.../.../D....D/.../.../LDL d 1 2 0 0");
    let run = |foresight: bool| {
        let mut engine = Engine::new(1);
        engine.set_placing_foresight(foresight);
        engine
            .search(&p, &[], &Limits::new(Level::Hard, 1).with_depth(4), &mut NoClock)
            .expect("a position with turns")
    };
    let (off, on) = (run(false), run(true));
    assert_eq!(
        off.nodes,
        search(&p, Limits::new(Level::Hard, 1).with_depth(4)).nodes
    );
    assert!(on.nodes > off.nodes, "on: {on:?}, off: {off:?}");
    assert!(p.legal_turns().contains(&on.turn));
}
