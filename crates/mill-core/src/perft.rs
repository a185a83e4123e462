//! Perft: counting the sequences of complete turns to a given depth, the standard check
//! that move generation is right (and a measure of its speed).
//!
//! A game ends where a result is reached: a finished position has no successors.
//! Threefold repetition is tracked along the path, as in a real game.

use crate::position::Position;
use crate::turn::TurnList;

/// The number of sequences of `depth` complete turns from `position`. With a removal
/// per mill, the same step with the same set of removed pieces is one turn, whatever
/// the order of its removals.
pub fn perft(position: &Position, depth: u32) -> u64 {
    let mut history = Vec::with_capacity(depth as usize + 1);
    history.push(position.hash());
    // One turn list per level, reused: the search never copies a list.
    let mut lists = vec![TurnList::new(); depth.saturating_sub(1) as usize];
    walk(position, depth, &mut history, &mut lists)
}

fn walk(position: &Position, depth: u32, history: &mut Vec<u64>, lists: &mut [TurnList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return position.count_turns();
    }
    let Some((list, deeper)) = lists.split_first_mut() else {
        return 0;
    };
    position.legal_turns_into(list);
    let mut total = 0;
    for &turn in list.iter() {
        let next = position.play_unchecked(turn);
        history.push(next.hash());
        if !next.rules().repetition_draws(next.occurrences(history)) {
            total += walk(&next, depth - 1, history, deeper);
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
    // Known not to be over from here on: skip the checks the public calls repeat.
    if depth == 1 {
        return position.count_actions_in_play();
    }
    let mut total = 0;
    position.for_each_action_in_play(|action| {
        if let Ok(next) = position.play_action_in_play(action) {
            total += perft_actions(&next, depth - 1);
        }
    });
    total
}
