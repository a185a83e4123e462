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
/// Built by a `const fn`, so that the Nine board's ([`NINE_ADJACENCY`]) is a constant:
/// its masks and rotations become immediates.
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

/// How many points of a set each line of a board holds, two bits a line (a line has
/// three points, so a count never carries into the next): the sum of one table entry
/// per byte of the set. Finding both sides' mills and twos is then a few operations on
/// two such counts instead of a pass over every line.
#[derive(Clone, Debug)]
pub(crate) struct LineCounts([[u64; 256]; 4]);

/// The low bit of every two-bit count of a [`LineCounts`] value.
const LOW_BITS: u64 = 0x5555_5555_5555_5555;

impl LineCounts {
    pub(crate) fn new(t: &Topology) -> Box<LineCounts> {
        let mut of_point = [0u64; 32];
        for (i, line) in t.lines().iter().enumerate().take(MAX_LINES) {
            for p in *line {
                of_point[p.index() % 32] += 1 << (2 * i);
            }
        }
        let mut counts = Box::new(LineCounts([[0; 256]; 4]));
        for (byte, table) in counts.0.iter_mut().enumerate() {
            for value in 1..256 {
                // The entry without the lowest point, plus that point's lines.
                let point = 8 * byte + (value as u32).trailing_zeros() as usize;
                table[value] = table[value & (value - 1)] + of_point[point];
            }
        }
        counts
    }

    /// The count of `points` on every line.
    #[inline(always)]
    pub(crate) fn of(&self, points: u32) -> u64 {
        let [a, b, c, d] = points.to_le_bytes();
        self.0[0][usize::from(a)]
            + self.0[1][usize::from(b)]
            + self.0[2][usize::from(c)]
            + self.0[3][usize::from(d)]
    }
}

/// The lines (as a set of line indices) whose two-bit fields have their low bit in `x`.
#[inline(always)]
pub(crate) fn line_set(x: u64) -> u32 {
    let mut x = x & LOW_BITS;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
    x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
    (x | x >> 16) as u32
}

/// From two sides' [`LineCounts`]: the lines where the first has `n` pieces (1 to 3; 0
/// would also take the fields past the board's last line) and the second none, as
/// fields with their low bit set (see [`line_set`]).
#[inline(always)]
pub(crate) fn lines_with(first: u64, second: u64, n: u32) -> u64 {
    let (high, low) = ((first >> 1) & LOW_BITS, first & LOW_BITS);
    let want_high = if n & 2 != 0 { high } else { !high };
    let want_low = if n & 1 != 0 { low } else { !low };
    let none = !((second >> 1) | second) & LOW_BITS;
    want_high & want_low & none
}

/// The evaluation of `position` for the side to move (positive: better for it).
/// Meant for positions at a turn boundary that are not over.
pub fn evaluate(position: &Position) -> i32 {
    let t = position.topology();
    evaluate_with(
        position,
        &Adjacency::new(t),
        &LineCounts::new(t),
        &Weights::CLASSIC,
    )
}

/// [`evaluate`] with the board's adjacency and line counts computed once by the caller.
#[inline]
pub(crate) fn evaluate_with(
    position: &Position,
    adjacency: &Adjacency,
    counts: &LineCounts,
    weights: &Weights,
) -> i32 {
    let t = position.topology();
    // The Nine board, by far the most played, from the constant copy: the compiler
    // knows its lines and edges.
    if core::ptr::eq(t, &MORRIS_24) {
        evaluate_on(position, NINE_ADJACENCY, counts, MORRIS_24_CONST, weights)
    } else {
        evaluate_on(position, adjacency, counts, t, weights)
    }
}

/// [`evaluate_with`] on the board `t` (the position's).
#[inline(always)]
fn evaluate_on(
    position: &Position,
    adjacency: &Adjacency,
    counts: &LineCounts,
    t: &Topology,
    weights: &Weights,
) -> i32 {
    let us = position.turn();
    // Both sides' mills and twos from the pieces each line holds.
    let light = position.pieces(Color::Light).0;
    let dark = position.pieces(Color::Dark).0;
    let lines = t.lines();
    let (light_counts, dark_counts) = (counts.of(light), counts.of(dark));
    let mut shapes = [
        Shapes {
            mills: line_set(lines_with(light_counts, 0, 3)),
            mill_mask: 0,
            twos: line_set(lines_with(light_counts, dark_counts, 2)),
        },
        Shapes {
            mills: line_set(lines_with(dark_counts, 0, 3)),
            mill_mask: 0,
            twos: line_set(lines_with(dark_counts, light_counts, 2)),
        },
    ];
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
pub(crate) fn line_union(lines: &[Bitboard], set: u32) -> u32 {
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
            evaluate_with(
                &p,
                &Adjacency::new(p.topology()),
                &LineCounts::new(p.topology()),
                w,
            )
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

    #[test]
    fn line_counts_find_the_lines_a_pass_over_them_finds_on_every_board() {
        for t in [&MORRIS_9, &MORRIS_16, &MORRIS_24, &MORRIS_24_DIAGONALS] {
            let counts = LineCounts::new(t);
            let mut state = 7u64;
            for _ in 0..4000 {
                state = crate::mix(state);
                // Sparse and dense sets alike.
                let a = state as u32 & (state >> 16) as u32 & t.all().0;
                let b = (state >> 32) as u32 & t.all().0 & !a;
                let (ca, cb) = (counts.of(a), counts.of(b));
                for n in 1..=3 {
                    let mut expected = 0u32;
                    for (i, line) in t.lines().iter().enumerate() {
                        let l = line.0;
                        if (l & a).count_ones() == n && l & b == 0 {
                            expected |= 1 << i;
                        }
                    }
                    assert_eq!(line_set(lines_with(ca, cb, n)), expected, "{a:#x} {b:#x} {n}");
                }
            }
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
