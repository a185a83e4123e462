//! Turn ordering: the hints (table move, killers, history) and the threats that put a
//! turn first, and the cheap tests the search asks of a side's steps.

use super::*;

/// Whether the pieces `mine` have at most `limit` steps onto the `empty` points. Counted
/// piece by piece and given up once over the limit: most sides have several steps, so
/// a piece or two decide, where the evaluation's whole-board shifts ([`Adjacency`])
/// cost the same every time (they were a tenth of the search's instructions in the
/// moving phase, where every node asks).
#[inline]
pub(super) fn steps_at_most(t: &Topology, mine: u32, empty: u32, limit: u32) -> bool {
    let mut steps = 0;
    for p in mill_core::Bitboard(mine) {
        steps += (t.neighbours(p).0 & empty).count_ones();
        if steps > limit {
            return false;
        }
    }
    true
}

/// What earlier searches say about a node's turns, for [`order`]: the table's turn
/// (packed, 0 for none), the killers and the history.
#[derive(Clone, Copy)]
pub(super) struct Hints<'h> {
    pub(super) tt_turn: u32,
    pub(super) killers: [u32; 2],
    pub(super) history: &'h History,
}

/// Ordering scores into `scores`, one per turn of `turns`.
pub(super) fn order(
    pos: &Position,
    turns: &TurnList,
    scores: &mut Scores,
    hints: Hints<'_>,
    counts: &LineCounts,
) {
    // The Nine board from its constant copy (see `evaluate_with`).
    let t = pos.topology();
    if core::ptr::eq(t, &MORRIS_24) {
        order_on(pos, turns, scores, hints, MORRIS_24_CONST, counts);
    } else {
        order_on(pos, turns, scores, hints, t, counts);
    }
}

/// [`order`] on the position's board `t`.
#[inline(always)]
pub(super) fn order_on(
    pos: &Position,
    turns: &TurnList,
    scores: &mut Scores,
    hints: Hints<'_>,
    t: &Topology,
    counts: &LineCounts,
) {
    let Hints {
        tt_turn,
        killers,
        history,
    } = hints;
    scores.clear();
    let topology = t;
    let us = pos.turn();
    let mine = pos.pieces(us).0;
    let theirs = pos.pieces(!us).0;
    let empty = t.all().0 & !(mine | theirs);
    // The opponent's twos: their empty points (to block) and their pieces (to remove);
    // the empty points of lines where we have one piece and they none (a placement
    // there makes a two).
    let (my_counts, their_counts) = (counts.of(mine), counts.of(theirs));
    let their_two_lines = line_union(t.lines(), line_set(lines_with(their_counts, my_counts, 2)));
    let their_points = their_two_lines & empty;
    let their_two_pieces = their_two_lines & theirs;
    let my_singles = line_union(t.lines(), line_set(lines_with(my_counts, their_counts, 1))) & empty;
    for turn in turns {
        let packed = pack(turn);
        let to = turn.to();
        scores.push(if packed == tt_turn {
            ORDER_TT
        } else if let Some(&r) = turn.removals().first() {
            let mut s = ORDER_CAPTURE;
            if their_two_pieces & (1 << r.index()) != 0 {
                s += 1000;
            }
            s + (t.neighbours(r).0 & empty).count_ones() as i32 * 10
        } else if their_points & (1 << to.index()) != 0 {
            ORDER_BLOCK
        } else if match turn.from() {
            None => my_singles & (1 << to.index()) != 0,
            Some(_) => threatens(turn, mine, theirs, topology),
        } {
            ORDER_THREAT
        } else if packed == killers[0] {
            ORDER_KILLER + 1
        } else if packed == killers[1] {
            ORDER_KILLER
        } else {
            let from = turn.from().map_or(MAX_POINTS, |p| p.index());
            history[from][to.index()]
        });
    }
}

/// Whether a quiet turn makes a two with an empty third point: by arriving on a line
/// (placing or stepping), or by stepping out of a standing mill to close it again.
#[inline]
fn threatens(turn: &Turn, mine: u32, theirs: u32, topology: &Topology) -> bool {
    let to = turn.to();
    let from_bit = turn.from().map_or(0, |p| 1u32 << p.index());
    let after = (mine & !from_bit) | to.bit().0;
    let arrives = topology
        .lines_through(to)
        .iter()
        .any(|&l| l & theirs == 0 && two_bits(l & after));
    arrives
        || turn.from().is_some_and(|p| {
            topology
                .lines_through(p)
                .iter()
                .any(|&l| l & mine == l && l & to.bit().0 == 0)
        })
}

/// The index of the first greatest score (0 for an empty slice).
#[inline]
pub(super) fn first_max(scores: &[i32]) -> usize {
    let mut best = i32::MIN;
    let mut at = 0;
    for (k, &v) in scores.iter().enumerate() {
        if v > best {
            best = v;
            at = k;
        }
    }
    at
}
