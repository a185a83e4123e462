//! Perft: counting the sequences of complete turns to a given depth, the standard check
//! that move generation is right (and a measure of its speed).
//!
//! A game ends where a result is reached: a finished position has no successors.
//! Threefold repetition is tracked along the path, as in a real game.

use crate::position::Position;

/// The number of sequences of `depth` complete turns from `position`.
pub fn perft(position: &Position, depth: u32) -> u64 {
    let mut history = Vec::with_capacity(depth as usize + 1);
    history.push(position.hash());
    walk(position, depth, &mut history)
}

fn walk(position: &Position, depth: u32, history: &mut Vec<u64>) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return position.count_turns();
    }
    let mut total = 0;
    for turn in position.legal_turns() {
        let next = position.play_unchecked(turn);
        history.push(next.hash());
        if !next.rules().repetition_draws(next.occurrences(history)) {
            total += walk(&next, depth - 1, history);
        }
        history.pop();
    }
    total
}

/// Like [`perft`] but every action is a ply: a placement or move is one ply and each
/// removal another (the way some other programs count). Leaves are counted without
/// being played.
pub fn perft_actions(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if position.is_over() {
        return 0;
    }
    if depth == 1 {
        return position.count_actions();
    }
    let mut total = 0;
    position.for_each_action(|action| {
        if let Ok(next) = position.play_action(action) {
            total += perft_actions(&next, depth - 1);
        }
    });
    total
}
