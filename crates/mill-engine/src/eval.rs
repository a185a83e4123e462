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
//! - pumps: a standing mill with a piece that can step out and back while no opponent
//!   piece can step into the point it leaves, again a capture every second turn;
//! - mobility (steps available) and blocked pieces while moving, a little while placing,
//!   and a large penalty for a side with no step at all (a blockade about to win);
//! - flying sides: mobility does not count, and their opponents' single threats are
//!   always blockable.

use crate::PIECE;
use arrayvec::ArrayVec;
use mill_core::{Bitboard, Color, Position};

/// The most mill lines a supported board has.
const MAX_LINES: usize = 32;

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
const PUMP_TO_MOVE: i32 = 50;
const PUMP: i32 = 35;

/// The evaluation of `position` for the side to move (positive: better for it).
/// Meant for positions at a turn boundary that are not over.
pub fn evaluate(position: &Position) -> i32 {
    let us = position.turn();
    // One pass over the lines finds both sides' mills and twos.
    let light = position.pieces(Color::Light).0;
    let dark = position.pieces(Color::Dark).0;
    let mut shapes = [Shapes::default(), Shapes::default()];
    for line in position.topology().lines() {
        let l = line.0;
        let (a, b) = (l & light, l & dark);
        if a == l {
            shapes[0].mill(l);
        } else if b == l {
            shapes[1].mill(l);
        } else if b == 0 && two_bits(a) {
            shapes[0].twos.push(l);
        } else if a == 0 && two_bits(b) {
            shapes[1].twos.push(l);
        }
    }
    side(position, us, true, &shapes[us.index()]) - side(position, !us, false, &shapes[(!us).index()])
}

/// One side's standing mills and twos (two pieces, third point empty).
#[derive(Default)]
struct Shapes {
    mills: ArrayVec<u32, MAX_LINES>,
    mill_mask: u32,
    twos: ArrayVec<u32, MAX_LINES>,
}

impl Shapes {
    #[inline]
    fn mill(&mut self, line: u32) {
        self.mills.push(line);
        self.mill_mask |= line;
    }
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

/// Whether exactly two bits are set. Cheaper than `count_ones() == 2` on x86-64
/// builds without the POPCNT instruction (the default target).
#[inline]
pub(crate) fn two_bits(x: u32) -> bool {
    let rest = x & x.wrapping_sub(1);
    rest != 0 && rest & rest.wrapping_sub(1) == 0
}

/// How many bits of a small set are set (at most a few: a loop beats the SWAR
/// `count_ones` of x86-64 builds without POPCNT).
#[inline]
fn few_bits(mut x: u32) -> i32 {
    let mut n = 0;
    while x != 0 {
        x &= x - 1;
        n += 1;
    }
    n
}

/// The neighbours of the one point in `bit` (none if `bit` is empty).
#[inline]
fn neighbours_of_point(position: &Position, bit: u32) -> u32 {
    mill_core::Point::from_index(bit.trailing_zeros() as usize)
        .map_or(0, |p| position.topology().neighbours(p).0)
}

fn side(position: &Position, c: Color, to_move: bool, shapes: &Shapes) -> i32 {
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

    let mill_mask = shapes.mill_mask;
    score += shapes.mills.len() as i32 * MILL;
    let mut closable = 0u32;
    let mut running = 0;
    for &l in &shapes.twos {
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

    // Pumps: a standing mill with a piece that can step out and back while the
    // opponent cannot step into the point it leaves: a capture every second turn.
    if !placing && !flying && !they_reach_anywhere && mill_mask != 0 {
        let mut pumps = 0;
        for &m in &shapes.mills {
            let pumps_here = Bitboard(m).iter().any(|p| {
                let around = t.neighbours(p).0;
                around & empty & !m != 0 && around & theirs == 0
            });
            pumps += pumps_here as i32;
        }
        score += pumps * if to_move { PUMP_TO_MOVE } else { PUMP };
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
                let free = few_bits(t.neighbours(p).0 & empty);
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

    #[test]
    fn a_pump_counts() {
        // Dark's mill a1 d1 g1 can open (a4, d2 or g4) and close again with no Light
        // piece able to step in; with Light on a4, d2 and g4 it cannot. Mobility alone
        // explains about half the difference.
        let pump = eval(".L./..L/D.L/....../L../.../DDD d 0 0 0 0");
        let blocked = eval(".L./.../D../L....L/.../.L./DDD d 0 0 0 0");
        assert!(pump >= blocked + PUMP_TO_MOVE, "{pump} vs {blocked}");
    }
}
