//! Helpers shared by the integration tests.
#![allow(dead_code)]

use mill_core::{Action, Bitboard, Game, Notation, Point, Position, Rules, Turn};

pub fn pos(s: &str) -> Position {
    s.parse()
        .unwrap_or_else(|e| panic!("bad test position {s:?}: {e}"))
}

pub fn pt(p: &Position, name: &str) -> Point {
    p.topology()
        .point(name)
        .unwrap_or_else(|| panic!("no point {name}"))
}

pub fn turn(p: &Position, text: &str) -> Turn {
    text.parse::<Notation>().unwrap().to_turn(p.topology()).unwrap()
}

pub fn action(p: &Position, text: &str) -> Action {
    Action::parse(text, p.topology()).unwrap()
}

pub fn names(p: &Position, bb: Bitboard) -> Vec<&'static str> {
    let mut v: Vec<_> = bb.iter().map(|x| p.topology().name(x)).collect();
    v.sort_unstable();
    v
}

pub fn play_all(p: Position, turns: &[&str]) -> Position {
    turns.iter().fold(p, |p, t| {
        p.play(turn(&p, t)).unwrap_or_else(|e| panic!("{t} in {p}: {e}"))
    })
}

pub fn game_of(turns: &[&str]) -> Game {
    let mut g = Game::default();
    for t in turns {
        let tu = turn(g.position(), t);
        g.play(tu).unwrap_or_else(|e| panic!("{t}: {e}"));
    }
    g
}

/// A tiny deterministic generator, so random games are reproducible from a seed.
#[derive(Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A position from lists of points: `setup(&["a1", "d1"], &["d2"], "l 7 8 0 0")`.
pub fn setup(light: &[&str], dark: &[&str], rest: &str) -> Position {
    const RANKS: [&[&str]; 7] = [
        &["a7", "d7", "g7"],
        &["b6", "d6", "f6"],
        &["c5", "d5", "e5"],
        &["a4", "b4", "c4", "e4", "f4", "g4"],
        &["c3", "d3", "e3"],
        &["b2", "d2", "f2"],
        &["a1", "d1", "g1"],
    ];
    let board: Vec<String> = RANKS
        .iter()
        .map(|rank| {
            rank.iter()
                .map(|p| {
                    if light.contains(p) {
                        'L'
                    } else if dark.contains(p) {
                        'D'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect();
    pos(&format!("{} {rest}", board.join("/")))
}

/// A position of any rule set from lists of points:
/// `setup_in("six", &["a1"], &["d2"], "l 5 5 0 0")` (the rule set is appended).
pub fn setup_in(rules: &str, light: &[&str], dark: &[&str], rest: &str) -> Position {
    let r = Rules::parse(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
    let t = r.topology();
    let mut ranks: Vec<String> = Vec::new();
    for rank in (0..7).rev() {
        let row: String = (0..7)
            .filter_map(|file| t.point_at(file, rank))
            .map(|p| {
                let name = t.name(p);
                if light.contains(&name) {
                    'L'
                } else if dark.contains(&name) {
                    'D'
                } else {
                    '.'
                }
            })
            .collect();
        if !row.is_empty() {
            ranks.push(row);
        }
    }
    for name in light.iter().chain(dark) {
        assert!(t.point(name).is_some(), "{name} is not on the {rules} board");
    }
    pos(&format!("{} {rest} {rules}", ranks.join("/")))
}

/// A game of `rules` after the given turns.
pub fn game_in(rules: &str, turns: &[&str]) -> Game {
    let mut g = Game::from_position(Position::start(Rules::parse(rules).unwrap()));
    for t in turns {
        let tu = turn(g.position(), t);
        g.play(tu).unwrap_or_else(|e| panic!("{t}: {e}"));
    }
    g
}
