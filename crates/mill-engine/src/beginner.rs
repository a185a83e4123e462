//! The `beginner` level: no search, three rules of thumb a beginner plays by.
//!
//! 1. Close a mill when a turn can, removing a random removable piece.
//! 2. Else put, move or fly a piece onto the empty third point of an opponent's line
//!    of two (a two whose third point is empty), to block it.
//! 3. Else any legal turn.
//!
//! Each choice among equals is random, from the seed and the position, so a seed
//! always gives the same game. Nothing here knows the board's size: the lines come
//! from the position's [`Topology`](mill_core::Topology).

use crate::mix;
use mill_core::{Position, Turn, TurnList};

/// The beginner's turn in `position`, which has `turns` (not empty), under `seed`.
pub(crate) fn choose(position: &Position, turns: &TurnList, seed: u64) -> Turn {
    let mut rng = mix(seed ^ position.hash() ^ 0x0042_4547_494e);
    let mut pick = |candidates: &[Turn]| {
        rng = mix(rng);
        candidates[(rng % candidates.len() as u64) as usize]
    };
    let closing: Vec<Turn> = turns
        .iter()
        .copied()
        .filter(|t| !t.removals().is_empty())
        .collect();
    let blocks = opponent_thirds(position);
    if !closing.is_empty() {
        // Pick the step first, then its removal, so a step with many removal choices
        // is not preferred over one with few.
        let step = pick(&closing);
        let same_step: Vec<Turn> = closing
            .iter()
            .copied()
            .filter(|t| t.from() == step.from() && t.to() == step.to())
            .collect();
        pick(&same_step)
    } else {
        let blocking: Vec<Turn> = turns
            .iter()
            .copied()
            .filter(|t| blocks & (1 << t.to().index()) != 0)
            .collect();
        if blocking.is_empty() {
            pick(turns)
        } else {
            pick(&blocking)
        }
    }
}

/// The empty third points of the opponent's lines of two, as a bitboard.
fn opponent_thirds(position: &Position) -> u32 {
    let them = position.pieces(!position.turn()).0;
    let empty = position.empty().0;
    position
        .topology()
        .lines()
        .iter()
        .filter(|line| (line.0 & them).count_ones() == 2 && line.0 & empty != 0)
        .fold(0, |set, line| set | (line.0 & empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn_text(s: &str, seed: u64) -> String {
        let p: Position = s.parse().unwrap();
        choose(&p, &p.legal_turns(), seed).to_notation(p.topology())
    }

    #[test]
    fn closes_a_mill_with_varied_removals() {
        // Light's a1 d1 with g1 free; Dark has three pieces to remove from.
        let mut removed = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let t = turn_text("D../.D./L../....../.../D../LL. l 6 6 0 0", seed);
            assert!(t.starts_with("g1x"), "{t}");
            removed.insert(t);
        }
        assert!(removed.len() >= 3, "{removed:?}");
    }

    #[test]
    fn blocks_an_opponent_two_by_placing_or_moving() {
        // Dark's b2 d2 with f2 empty: Light places there.
        for seed in 0..20 {
            assert_eq!(turn_text("..L/.../.../....../.../DD./L.. l 7 7 0 0", seed), "f2");
        }
        // Moving: Light's g4 can step to g1, the third point of Dark's a1 d1.
        let s = "L../..L/.L./LD.D.L/.L./.D./DD. l 0 0 0 0";
        for seed in 0..20 {
            assert_eq!(turn_text(s, seed), "g4-g1");
        }
    }

    #[test]
    fn otherwise_plays_varied_legal_turns() {
        let start = Position::default();
        let seen: std::collections::BTreeSet<String> =
            (0..30).map(|seed| turn_text(&start.to_string(), seed)).collect();
        assert!(seen.len() >= 10, "{seen:?}");
    }
}
