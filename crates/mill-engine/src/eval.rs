//! The static evaluation: how good a quiet position is for the side to move.
//!
//! Terms, per side, in units where a piece is [`PIECE`](crate::PIECE):
//! - material: pieces on the board plus pieces in hand;
//! - mills standing, and "twos" (two pieces of a line with the third point empty);
//! - which twos can be closed next turn (a placement, a flight, or a piece next to the
//!   empty point), and whether the opponent can block them: a closable two for the side
//!   to move is a capture in hand, two of them (or one the opponent cannot reach) for the
//!   side not to move is a capture next turn;
//! - running mills: a piece of a standing mill next to the empty point of another two,
//!   which captures every second turn by stepping back and forth;
//! - mobility (steps available) and blocked pieces while moving, a little while placing,
//!   and a large penalty for a side with no step at all (a blockade about to win);
//! - flying sides: mobility does not count, and their opponents' single threats are
//!   always blockable.

use crate::PIECE;
use mill_core::{Color, Position};

const MILL: i32 = 8;
const CAPTURE_NOW: i32 = 60;
const THREAT_STRONG: i32 = 40;
const THREAT: i32 = 10;
const OPEN_TWO: i32 = 4;
const RUNNING_MILL: i32 = 25;
const MOBILITY_PLACING: i32 = 1;
const MOBILITY_MOVING: i32 = 4;
const BLOCKED_PIECE: i32 = 3;
const NO_STEP: i32 = 150;

/// The evaluation of `position` for the side to move (positive: better for it).
/// Meant for positions at a turn boundary that are not over.
pub fn evaluate(position: &Position) -> i32 {
    let us = position.turn();
    side(position, us, true) - side(position, !us, false)
}

/// Every point next to a point of `set`.
#[inline]
fn spread(position: &Position, set: u32) -> u32 {
    let t = position.topology();
    let mut out = 0;
    let mut rest = set;
    while rest != 0 {
        let i = rest.trailing_zeros();
        rest &= rest - 1;
        if let Some(p) = mill_core::Point::from_index(i as usize) {
            out |= t.neighbours(p).0;
        }
    }
    out
}

/// The neighbours of the one point in `bit` (none if `bit` is empty).
#[inline]
fn neighbours_of_point(position: &Position, bit: u32) -> u32 {
    mill_core::Point::from_index(bit.trailing_zeros() as usize)
        .map_or(0, |p| position.topology().neighbours(p).0)
}

fn side(position: &Position, c: Color, to_move: bool) -> i32 {
    let t = position.topology();
    let rules = position.rules();
    let mine = position.pieces(c).0;
    let theirs = position.pieces(!c).0;
    let empty = t.all().0 & !(mine | theirs);
    let hand = position.in_hand(c);
    let on_board = position.on_board(c);
    let placing = hand > 0;
    let flying = !placing && on_board <= rules.fly_at;
    let they_reach_anywhere = position.in_hand(!c) > 0 || position.on_board(!c) <= rules.fly_at;

    let mut score = (on_board as i32 + hand as i32) * PIECE;

    // Mills first (running mills need them), then twos.
    let mut mill_mask = 0u32;
    for line in t.lines() {
        if line.0 & mine == line.0 {
            mill_mask |= line.0;
            score += MILL;
        }
    }
    let mut closable = 0u32;
    let mut running = 0;
    for line in t.lines() {
        let l = line.0;
        if l & theirs != 0 || (l & mine).count_ones() != 2 {
            continue;
        }
        let e = l & empty;
        let closers = if placing {
            1 // any placement closes it
        } else if flying {
            mine & !l
        } else {
            neighbours_of_point(position, e) & mine & !l
        };
        if closers == 0 {
            score += OPEN_TWO;
            continue;
        }
        closable |= e;
        if !placing && !flying && closers & mill_mask != 0 {
            running += 1;
        }
    }
    score += running * RUNNING_MILL;
    if closable != 0 {
        if to_move {
            score += CAPTURE_NOW;
        } else {
            let blockable = if they_reach_anywhere {
                closable
            } else {
                closable & spread(position, theirs)
            };
            if closable.count_ones() >= 2 || closable & !blockable != 0 {
                score += THREAT_STRONG;
            } else {
                score += THREAT;
            }
        }
    }

    // Mobility.
    if !flying {
        let mut steps = 0i32;
        let mut blocked = 0i32;
        let mut rest = mine;
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            if let Some(p) = mill_core::Point::from_index(i as usize) {
                let free = (t.neighbours(p).0 & empty).count_ones() as i32;
                steps += free;
                blocked += (free == 0) as i32;
            }
        }
        if placing {
            score += steps * MOBILITY_PLACING;
        } else {
            score += steps * MOBILITY_MOVING - blocked * BLOCKED_PIECE;
            if steps == 0 {
                score -= NO_STEP;
            }
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(s: &str) -> i32 {
        evaluate(&s.parse::<Position>().unwrap())
    }

    #[test]
    fn start_is_balanced_for_the_side_to_move() {
        assert_eq!(eval(".../.../.../....../.../.../... l 9 9 0 0"), 0);
    }

    #[test]
    fn a_piece_up_is_better() {
        // After a7 b6 d7 d6 g7xd6 Light has a mill and a piece more.
        let dark_view = eval("LLL/D../.../....../.../.../... d 6 7 0 0");
        assert!(dark_view < -PIECE / 2, "Dark is a piece down, got {dark_view}");
    }

    #[test]
    fn a_closable_mill_for_the_side_to_move_counts() {
        let open = eval(".../.../.../....../.../DD./LL. l 7 7 0 0");
        let blocked = eval(".../.../.../....../.../D../LLD l 7 7 0 0");
        assert!(open > 0, "{open}");
        assert!(open > blocked + CAPTURE_NOW / 2, "{open} vs {blocked}");
    }
}
