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
use mill_core::{Bitboard, Color, MAX_LINES, MORRIS_24, MORRIS_24_CONST, Point, Position, Topology};

/// The most edge classes an adjacency needs on any supported board: at least the most
/// neighbours of a point (eight at the centre of Three Men's Morris), and the greedy
/// packing may need more (six on the Twelve board, whose points have at most four);
/// `adjacency_tests` checks every board.
const MAX_CLASSES: usize = 8;
/// The most groups of edges with one index difference (−31…31 without 0).
const MAX_GROUPS: usize = 62;

const MILL: i32 = 8;
const CAPTURE_NOW: i32 = 60;
const THREAT_STRONG: i32 = 40;
const THREAT: i32 = 10;
const OPEN_TWO: i32 = 4;
const RUNNING_MILL: i32 = 25;
const BLOCKED_PIECE: i32 = 3;
const NO_STEP: i32 = 150;
const PUMP_TO_MOVE: i32 = 50;
const PUMP: i32 = 35;

/// The weights that differ between levels: how much room to move counts.
///
/// Hard values mobility about as much as the field's leading engine does (five steps
/// are worth a piece while placing, two and a half while moving): with the classic
/// weights (a step worth a hundredth of a piece while placing) it built shapes, lost
/// its room to move, and lost almost every game it lost to a blockade decided while
/// placing (docs/PERFORMANCE.md, "Hard against Sanmill's engine"). Easy and Medium keep
/// the classic weights, so that they play as before and stay beatable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Weights {
    /// A step's worth at the start of placing; it grows to `mobility_moving` as the
    /// side's hand empties.
    mobility_placing: i32,
    /// A step's worth while moving.
    mobility_moving: i32,
}

impl Weights {
    /// Easy's and Medium's weights, and [`evaluate`]'s.
    pub(crate) const CLASSIC: Weights = Weights {
        mobility_placing: 1,
        mobility_moving: 4,
    };
    /// Hard's weights.
    pub(crate) const HARD: Weights = Weights {
        mobility_placing: 20,
        mobility_moving: 40,
    };
}

/// The board's adjacency as whole-set operations, so mobility needs no loop over
/// pieces.
///
/// The directed edges `p → q` are grouped by the index difference `q − p`: within a
/// group, "the points whose neighbour along the group is in `x`" is one mask and one
/// rotation of `x`. Groups are packed greedily into classes in which every point has at
/// most one edge; then a piece's free steps are the number of classes in which it has
/// an empty neighbour, and the steps of a whole side are a few popcounts.
///
/// Built by a `const fn`, so that the Nine board's ([`NINE_ADJACENCY`]) is a constant
/// whose loops unroll into immediate masks and rotations.
#[derive(Clone, Debug)]
pub(crate) struct Adjacency {
    /// (rotation to the right, mask of destinations), grouped by class; the first
    /// `group_count` are used.
    groups: [(u32, u32); MAX_GROUPS],
    group_count: u8,
    /// The end of each class in `groups`; the first `class_count` are used.
    class_ends: [u8; MAX_CLASSES],
    class_count: u8,
}

/// The Nine board's adjacency, for the evaluation's constant path (see [`evaluate_with`]).
const NINE_ADJACENCY: &Adjacency = &Adjacency::new(MORRIS_24_CONST);

impl Adjacency {
    pub(crate) const fn new(t: &Topology) -> Adjacency {
        // Destinations by difference q - p + 32.
        let mut by_diff = [0u32; 64];
        let mut p = 0;
        while p < t.len() {
            let Some(point) = Point::from_index(p) else {
                unreachable!()
            };
            let mut rest = t.neighbours(point).0;
            while rest != 0 {
                let q = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                by_diff[q + 32 - p] |= 1 << q;
            }
            p += 1;
        }
        // Classes as they fill: the origins each holds, and its groups.
        let mut origins = [0u32; MAX_CLASSES];
        let mut class_groups = [[(0u32, 0u32); MAX_GROUPS]; MAX_CLASSES];
        let mut class_sizes = [0usize; MAX_CLASSES];
        let mut classes = 0;
        let mut diff = 0;
        while diff < by_diff.len() {
            let to = by_diff[diff];
            if to != 0 {
                let rotation = (diff as i32 - 32).rem_euclid(32) as u32;
                let from = to.rotate_right(rotation);
                let mut c = 0;
                while c < classes && origins[c] & from != 0 {
                    c += 1;
                }
                assert!(c < MAX_CLASSES, "more edge classes than MAX_CLASSES");
                if c == classes {
                    classes += 1;
                }
                origins[c] |= from;
                class_groups[c][class_sizes[c]] = (rotation, to);
                class_sizes[c] += 1;
            }
            diff += 1;
        }
        let mut adjacency = Adjacency {
            groups: [(0, 0); MAX_GROUPS],
            group_count: 0,
            class_ends: [0; MAX_CLASSES],
            class_count: classes as u8,
        };
        let mut c = 0;
        while c < classes {
            let mut g = 0;
            while g < class_sizes[c] {
                adjacency.groups[adjacency.group_count as usize] = class_groups[c][g];
                adjacency.group_count += 1;
                g += 1;
            }
            adjacency.class_ends[c] = adjacency.group_count;
            c += 1;
        }
        adjacency
    }

    /// Per class, the points with a neighbour in `x` along that class.
    #[inline(always)]
    fn towards(&self, x: u32) -> ArrayVec<u32, MAX_CLASSES> {
        let mut out = ArrayVec::new();
        let mut start = 0;
        for &end in &self.class_ends[..self.class_count as usize] {
            let mut set = 0;
            for &(rotation, to) in &self.groups[start..end as usize] {
                set |= (x & to).rotate_right(rotation);
            }
            out.push(set);
            start = end as usize;
        }
        out
    }

    /// Every point next to a point of `x`.
    #[inline(always)]
    fn spread(&self, x: u32) -> u32 {
        self.groups[..self.group_count as usize]
            .iter()
            .fold(0, |set, &(rotation, to)| set | (x & to).rotate_right(rotation))
    }
}

/// The evaluation of `position` for the side to move (positive: better for it).
/// Meant for positions at a turn boundary that are not over.
pub fn evaluate(position: &Position) -> i32 {
    evaluate_with(position, &Adjacency::new(position.topology()), &Weights::CLASSIC)
}

/// [`evaluate`] with the board's adjacency computed once by the caller.
#[inline]
pub(crate) fn evaluate_with(position: &Position, adjacency: &Adjacency, weights: &Weights) -> i32 {
    let t = position.topology();
    // The Nine board, by far the most played, from the constant copy: its line loops
    // unroll.
    if core::ptr::eq(t, &MORRIS_24) {
        evaluate_on(position, NINE_ADJACENCY, MORRIS_24_CONST, weights)
    } else {
        evaluate_on(position, adjacency, t, weights)
    }
}

/// [`evaluate_with`] on the board `t` (the position's).
#[inline(always)]
fn evaluate_on(position: &Position, adjacency: &Adjacency, t: &Topology, weights: &Weights) -> i32 {
    let us = position.turn();
    // One pass over the lines finds both sides' mills and twos, without branches (which
    // way a line goes is unpredictable).
    let light = position.pieces(Color::Light).0;
    let dark = position.pieces(Color::Dark).0;
    let lines = t.lines();
    let mut shapes = [Shapes::default(), Shapes::default()];
    for (i, line) in lines.iter().enumerate().take(MAX_LINES) {
        let l = line.0;
        let (a, b) = (l & light, l & dark);
        shapes[0].mills |= ((a == l) as u32) << i;
        shapes[1].mills |= ((b == l) as u32) << i;
        shapes[0].twos |= (((b == 0) & two_bits(a)) as u32) << i;
        shapes[1].twos |= (((a == 0) & two_bits(b)) as u32) << i;
    }
    for s in &mut shapes {
        s.mill_mask = line_union(lines, s.mills);
    }
    // Mobility of both sides from one set of shifts of the empty points.
    let empty = position.empty().0;
    let towards_empty = adjacency.towards(empty);
    let free = towards_empty.iter().fold(0, |set, &x| set | x);
    let mobility = |mine: u32| -> (i32, i32) {
        // Two classes per 64-bit popcount: half the popcounts on targets without
        // a popcount instruction (the default x86-64), where each is a dozen operations.
        let steps = towards_empty
            .chunks(2)
            .map(|pair| {
                let low = (mine & pair[0]) as u64;
                let high = pair.get(1).map_or(0, |&x| (mine & x) as u64);
                (high << 32 | low).count_ones() as i32
            })
            .sum();
        (steps, (mine & !free).count_ones() as i32)
    };
    let mob = [mobility(light), mobility(dark)];
    side(position, t, adjacency, us, true, &shapes[us.index()]) + room(position, weights, us, mob[us.index()])
        - side(position, t, adjacency, !us, false, &shapes[(!us).index()])
        - room(position, weights, !us, mob[(!us).index()])
}

/// One side's standing mills and twos (two pieces, third point empty), as sets of
/// line indices.
#[derive(Default)]
struct Shapes {
    mills: u32,
    mill_mask: u32,
    twos: u32,
}

/// The points of the lines whose indices are in `set`.
#[inline]
fn line_union(lines: &[Bitboard], set: u32) -> u32 {
    let mut out = 0;
    let mut rest = set;
    while rest != 0 {
        out |= lines.get(rest.trailing_zeros() as usize).map_or(0, |l| l.0);
        rest &= rest - 1;
    }
    out
}

/// Whether exactly two bits are set. Cheaper than `count_ones() == 2` on x86-64
/// builds without the POPCNT instruction (the default target).
#[inline]
pub(crate) fn two_bits(x: u32) -> bool {
    let rest = x & x.wrapping_sub(1);
    (rest != 0) & (rest & rest.wrapping_sub(1) == 0)
}

/// The neighbours of the one point in `bit` (none if `bit` is empty).
#[inline]
fn neighbours_of_point(t: &Topology, bit: u32) -> u32 {
    mill_core::Point::from_index(bit.trailing_zeros() as usize).map_or(0, |p| t.neighbours(p).0)
}

/// How far placing has gone, in 64ths: the share of a side's pieces no longer in its
/// hand, from a table (no division in the evaluation).
#[inline]
fn placed_64ths(pieces: u8, hand: u8) -> u8 {
    const MAX: usize = 16;
    const TABLE: [[u8; MAX]; MAX] = {
        let mut t = [[0u8; MAX]; MAX];
        let mut pieces = 1;
        while pieces < MAX {
            let mut hand = 0;
            while hand <= pieces {
                t[pieces][hand] = ((pieces - hand) * 64 / pieces) as u8;
                hand += 1;
            }
            pieces += 1;
        }
        t
    };
    TABLE[usize::from(pieces) % MAX][usize::from(hand) % MAX]
}

#[inline(always)]
/// One side's material, mills, twos, threats, running mills and pumps.
fn side(
    position: &Position,
    t: &Topology,
    adjacency: &Adjacency,
    c: Color,
    to_move: bool,
    shapes: &Shapes,
) -> i32 {
    let mine = position.pieces(c).0;
    let theirs = position.pieces(!c).0;
    let empty = t.all().0 & !(mine | theirs);
    let hand = position.in_hand(c);
    let on_board = position.on_board(c);
    let placing = hand > 0;
    let flying = position.flies(c);
    let they_reach_anywhere = position.in_hand(!c) > 0 || position.flies(!c);

    let mut score = (on_board as i32 + hand as i32) * PIECE;

    let lines = t.lines();
    let mill_mask = shapes.mill_mask;
    score += shapes.mills.count_ones() as i32 * MILL;
    let mut closable = 0u32;
    let mut running = 0;
    let mut twos = shapes.twos;
    while twos != 0 {
        let l = lines.get(twos.trailing_zeros() as usize).map_or(0, |l| l.0);
        twos &= twos - 1;
        let e = l & empty;
        let closers = if placing {
            1 // any placement closes it
        } else if flying {
            mine & !l
        } else {
            neighbours_of_point(t, e) & mine & !l
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
                closable & adjacency.spread(theirs)
            };
            // Two closable points or more, or one they cannot reach.
            if closable & (closable - 1) != 0 || closable & !blockable != 0 {
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
        let mut mills = shapes.mills;
        while mills != 0 {
            let m = lines.get(mills.trailing_zeros() as usize).map_or(0, |l| l.0);
            mills &= mills - 1;
            let pumps_here = Bitboard(m).iter().any(|p| {
                let around = t.neighbours(p).0;
                around & empty & !m != 0 && around & theirs == 0
            });
            pumps += pumps_here as i32;
        }
        score += pumps * if to_move { PUMP_TO_MOVE } else { PUMP };
    }

    score
}

/// One side's room to move: its steps and blocked pieces, by the level's weights (none
/// for a flying side).
fn room(position: &Position, weights: &Weights, c: Color, (steps, blocked): (i32, i32)) -> i32 {
    if position.flies(c) {
        return 0;
    }
    let hand = position.in_hand(c);
    if hand > 0 {
        // Mobility and blocked pieces count more as the hand empties: at the end of
        // placing they decide whether a side can move at all (blockades are decided
        // here). The weights grow from the placing ones to the moving ones.
        let phase = i32::from(placed_64ths(position.rules().pieces, hand));
        let mobility =
            weights.mobility_placing + (((weights.mobility_moving - weights.mobility_placing) * phase) >> 6);
        steps * mobility - ((blocked * BLOCKED_PIECE * phase) >> 6)
    } else {
        let mut score = steps * weights.mobility_moving - blocked * BLOCKED_PIECE;
        if steps == 0 {
            score -= NO_STEP;
        }
        score
    }
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
    fn hard_values_room_to_move_far_more_while_placing() {
        // Three Light pieces on points with four neighbours against three on points with
        // two, nothing else different: six steps. Hard counts that as more than a
        // piece; the classic weights as a few hundredths of one.
        let room = "D../.../..D/.L..L./.../.L./..D l 6 6 0 0";
        let cramped = "D../.../L.D/....../..L/.../L.D l 6 6 0 0";
        let with = |s: &str, w: &Weights| {
            let p = s.parse::<Position>().unwrap();
            evaluate_with(&p, &Adjacency::new(p.topology()), w)
        };
        let hard = with(room, &Weights::HARD) - with(cramped, &Weights::HARD);
        let classic = with(room, &Weights::CLASSIC) - with(cramped, &Weights::CLASSIC);
        assert!(hard > PIECE, "{hard}");
        assert!((0..PIECE / 4).contains(&classic), "{classic}");
        assert_eq!(
            classic,
            eval(room) - eval(cramped),
            "evaluate keeps the classic weights"
        );
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

#[cfg(test)]
mod adjacency_tests {
    use super::*;
    use mill_core::{MORRIS_9, MORRIS_16, MORRIS_24, MORRIS_24_DIAGONALS};

    #[test]
    fn classes_count_every_free_step_once_on_every_board() {
        for (t, classes) in [
            (&MORRIS_9, 8),
            (&MORRIS_16, 4),
            (&MORRIS_24, 4),
            (&MORRIS_24_DIAGONALS, 6),
        ] {
            let adjacency = classes_count_every_free_step_once(t);
            assert!(adjacency.class_count as usize <= classes, "{adjacency:?}");
        }
    }

    fn classes_count_every_free_step_once(t: &Topology) -> Adjacency {
        let adjacency = Adjacency::new(t);
        let mut state = 11u64;
        for _ in 0..2000 {
            state = crate::mix(state);
            let empty = state as u32 & t.all().0;
            let mine = (state >> 32) as u32 & t.all().0 & !empty;
            let towards = adjacency.towards(empty);
            let mut expected_steps = 0;
            let mut expected_blocked = 0;
            let mut expected_spread = 0;
            for p in t.points() {
                if empty & (1 << p.index()) != 0 {
                    expected_spread |= t.neighbours(p).0;
                }
                if mine & (1 << p.index()) == 0 {
                    continue;
                }
                let free = (t.neighbours(p).0 & empty).count_ones();
                expected_steps += free;
                expected_blocked += (free == 0) as u32;
            }
            let steps: u32 = towards.iter().map(|&x| (mine & x).count_ones()).sum();
            let free = towards.iter().fold(0, |s, &x| s | x);
            assert_eq!(steps, expected_steps, "empty {empty:#x} mine {mine:#x}");
            assert_eq!((mine & !free).count_ones(), expected_blocked);
            assert_eq!(adjacency.spread(empty), expected_spread);
        }
        adjacency
    }
}
