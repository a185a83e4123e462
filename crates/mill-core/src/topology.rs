//! The board as data: points with grid coordinates, the segments joining them, and the
//! lines of three that make a mill.
//!
//! A topology is built at compile time from lists of point names, so a new board is a
//! new table, not new code. Every board fits a 7×7 grid (files `a`–`g`, ranks `1`–`7`)
//! and has at most 32 points.

use crate::bitboard::{Bitboard, Point};

/// The most points a board may have (one `u32` bitboard).
pub const MAX_POINTS: usize = 32;
const MAX_SEGMENTS: usize = 64;
/// The most mill lines a board may have (line sets fit a `u32` of line indices).
pub const MAX_LINES: usize = 32;
/// The most mill lines that may pass through one point.
pub const MAX_LINES_THROUGH: usize = 4;
const GRID: usize = 7;
const NO_POINT: u8 = u8::MAX;

/// Names of every grid cell, indexed by `rank * 7 + file`.
const GRID_NAMES: [&str; GRID * GRID] = [
    "a1", "b1", "c1", "d1", "e1", "f1", "g1", //
    "a2", "b2", "c2", "d2", "e2", "f2", "g2", //
    "a3", "b3", "c3", "d3", "e3", "f3", "g3", //
    "a4", "b4", "c4", "d4", "e4", "f4", "g4", //
    "a5", "b5", "c5", "d5", "e5", "f5", "g5", //
    "a6", "b6", "c6", "d6", "e6", "f6", "g6", //
    "a7", "b7", "c7", "d7", "e7", "f7", "g7", //
];

/// A board: its points, adjacency and mill lines.
#[derive(Debug)]
pub struct Topology {
    len: u8,
    coords: [(u8, u8); MAX_POINTS],
    grid: [u8; GRID * GRID],
    neighbours: [u32; MAX_POINTS],
    segments: [(u8, u8); MAX_SEGMENTS],
    segment_count: u8,
    lines: [Bitboard; MAX_LINES],
    line_count: u8,
    /// Padded with `u32::MAX`, which no set of a board's points ever contains.
    lines_through: [[u32; MAX_LINES_THROUGH]; MAX_POINTS],
    lines_through_count: [u8; MAX_POINTS],
    /// Every point of the board as a set.
    all: u32,
}

/// `"d6"` → `(3, 5)`; panics (at compile time, in table definitions) on a bad name.
const fn parse_name(name: &str) -> (u8, u8) {
    let b = name.as_bytes();
    assert!(b.len() == 2, "point names are a file letter and a rank digit");
    assert!(b[0] >= b'a' && b[0] < b'a' + GRID as u8, "file out of range");
    assert!(b[1] >= b'1' && b[1] < b'1' + GRID as u8, "rank out of range");
    (b[0] - b'a', b[1] - b'1')
}

impl Topology {
    /// Builds a topology from point names, segments (pairs of adjacent points) and mill
    /// lines. Meant for `const` tables: invalid data fails the build.
    pub const fn build(points: &[&str], segments: &[(&str, &str)], lines: &[[&str; 3]]) -> Topology {
        // Fewer than 32, so that no set of points is `u32::MAX` (the padding of
        // `lines_through`).
        assert!(points.len() < MAX_POINTS);
        assert!(segments.len() <= MAX_SEGMENTS);
        assert!(lines.len() <= MAX_LINES);
        let mut t = Topology {
            len: points.len() as u8,
            coords: [(0, 0); MAX_POINTS],
            grid: [NO_POINT; GRID * GRID],
            neighbours: [0; MAX_POINTS],
            segments: [(0, 0); MAX_SEGMENTS],
            segment_count: segments.len() as u8,
            lines: [Bitboard(0); MAX_LINES],
            line_count: lines.len() as u8,
            lines_through: [[u32::MAX; MAX_LINES_THROUGH]; MAX_POINTS],
            lines_through_count: [0; MAX_POINTS],
            all: 0,
        };
        let mut i = 0;
        while i < points.len() {
            t.all |= 1 << i;
            let (file, rank) = parse_name(points[i]);
            let cell = rank as usize * GRID + file as usize;
            assert!(t.grid[cell] == NO_POINT, "a point is listed twice");
            t.grid[cell] = i as u8;
            t.coords[i] = (file, rank);
            i += 1;
        }
        let mut s = 0;
        while s < segments.len() {
            let a = t.index_of(segments[s].0);
            let b = t.index_of(segments[s].1);
            assert!(a != b);
            t.neighbours[a as usize] |= 1 << b;
            t.neighbours[b as usize] |= 1 << a;
            t.segments[s] = (a, b);
            s += 1;
        }
        let mut l = 0;
        while l < lines.len() {
            let mut mask = 0u32;
            let mut k = 0;
            while k < 3 {
                mask |= 1 << t.index_of(lines[l][k]);
                k += 1;
            }
            assert!(mask.count_ones() == 3, "a line has three distinct points");
            t.lines[l] = Bitboard(mask);
            let mut k = 0;
            while k < 3 {
                let p = t.index_of(lines[l][k]) as usize;
                let n = t.lines_through_count[p] as usize;
                assert!(n < MAX_LINES_THROUGH);
                t.lines_through[p][n] = mask;
                t.lines_through_count[p] += 1;

                k += 1;
            }
            l += 1;
        }
        t
    }

    const fn index_of(&self, name: &str) -> u8 {
        let (file, rank) = parse_name(name);
        let index = self.grid[rank as usize * GRID + file as usize];
        assert!(index != NO_POINT, "segment or line names an unknown point");
        index
    }

    /// How many points the board has.
    #[inline]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the board has no points (never true for a real board).
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every point of the board as a set.
    #[inline]
    pub const fn all(&self) -> Bitboard {
        Bitboard(self.all)
    }

    /// The points of the board in index order.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        (0..self.len).map(Point)
    }

    /// Whether `point` exists on this board.
    #[inline]
    pub const fn contains(&self, point: Point) -> bool {
        point.0 < self.len
    }

    /// The point's name, like `d6`. Points of another, larger board are named `??`.
    pub fn name(&self, point: Point) -> &'static str {
        if !self.contains(point) {
            return "??";
        }
        let (file, rank) = self.coords[point.index()];
        GRID_NAMES[rank as usize * GRID + file as usize]
    }

    /// The point with this name, like `d6`, if the board has it.
    pub fn point(&self, name: &str) -> Option<Point> {
        let b = name.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        self.point_at(file, rank)
    }

    /// The point at grid coordinates (file 0–6 from `a`, rank 0–6 from `1`), if any.
    pub fn point_at(&self, file: u8, rank: u8) -> Option<Point> {
        if file as usize >= GRID || rank as usize >= GRID {
            return None;
        }
        match self.grid[rank as usize * GRID + file as usize] {
            NO_POINT => None,
            index => Some(Point(index)),
        }
    }

    /// Grid coordinates of a point: (file 0–6 from `a`, rank 0–6 from `1`, bottom up).
    pub fn coords(&self, point: Point) -> (u8, u8) {
        self.coords[point.index() % MAX_POINTS]
    }

    /// The points one segment away from `point`.
    #[inline]
    pub const fn neighbours(&self, point: Point) -> Bitboard {
        Bitboard(self.neighbours[point.index() % MAX_POINTS])
    }

    /// The segments of the board, each once.
    pub fn segments(&self) -> impl Iterator<Item = (Point, Point)> + '_ {
        self.segments[..self.segment_count as usize]
            .iter()
            .map(|&(a, b)| (Point(a), Point(b)))
    }

    /// The lines of three points that make a mill.
    #[inline]
    pub const fn lines(&self) -> &[Bitboard] {
        self.lines.split_at(self.line_count as usize).0
    }

    /// The most mill lines through any one point (the most mills one piece can close).
    pub fn max_lines_through(&self) -> usize {
        self.lines_through_count[..self.len()]
            .iter()
            .copied()
            .max()
            .unwrap_or(0) as usize
    }

    /// The mill lines through `point`, as bit masks (at most [`MAX_LINES_THROUGH`]).
    #[inline]
    pub fn lines_through(&self, point: Point) -> &[u32] {
        let i = point.index() % MAX_POINTS;
        &self.lines_through[i][..self.lines_through_count[i] as usize]
    }

    /// The pieces of `pieces` that stand in a complete line of `pieces`.
    #[inline]
    pub fn in_mills(&self, pieces: u32) -> u32 {
        let mut out = 0;
        for line in self.lines() {
            if pieces & line.0 == line.0 {
                out |= line.0;
            }
        }
        out
    }

    /// How many complete lines of `pieces` pass through `point`.
    #[inline]
    pub fn mills_through(&self, pieces: u32, point: Point) -> u8 {
        // All four slots, padding included: no loop bound to load, no branch.
        let mut n = 0;
        for &line in &self.lines_through[point.index() % MAX_POINTS] {
            n += (pieces & line == line) as u8;
        }
        n
    }
}

/// The board of Nine Men's Morris: three nested squares joined at the middles of
/// their sides.
const POINTS_24: [&str; 24] = [
    "a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4", //
    "e4", "f4", "g4", "c5", "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7",
];

const SEGMENTS_24: [(&str, &str); 32] = [
    // outer square
    ("a1", "d1"),
    ("d1", "g1"),
    ("g1", "g4"),
    ("g4", "g7"),
    ("g7", "d7"),
    ("d7", "a7"),
    ("a7", "a4"),
    ("a4", "a1"),
    // middle square
    ("b2", "d2"),
    ("d2", "f2"),
    ("f2", "f4"),
    ("f4", "f6"),
    ("f6", "d6"),
    ("d6", "b6"),
    ("b6", "b4"),
    ("b4", "b2"),
    // inner square
    ("c3", "d3"),
    ("d3", "e3"),
    ("e3", "e4"),
    ("e4", "e5"),
    ("e5", "d5"),
    ("d5", "c5"),
    ("c5", "c4"),
    ("c4", "c3"),
    // the four joining lines
    ("d1", "d2"),
    ("d2", "d3"),
    ("a4", "b4"),
    ("b4", "c4"),
    ("e4", "f4"),
    ("f4", "g4"),
    ("d5", "d6"),
    ("d6", "d7"),
];

const LINES_24: [[&str; 3]; 16] = [
    ["a1", "d1", "g1"],
    ["b2", "d2", "f2"],
    ["c3", "d3", "e3"],
    ["a4", "b4", "c4"],
    ["e4", "f4", "g4"],
    ["c5", "d5", "e5"],
    ["b6", "d6", "f6"],
    ["a7", "d7", "g7"],
    ["a1", "a4", "a7"],
    ["b2", "b4", "b6"],
    ["c3", "c4", "c5"],
    ["d1", "d2", "d3"],
    ["d5", "d6", "d7"],
    ["e3", "e4", "e5"],
    ["f2", "f4", "f6"],
    ["g1", "g4", "g7"],
];

/// The board of Nine Men's Morris: three nested squares joined at the middles of
/// their sides.
pub static MORRIS_24: Topology = Topology::build(&POINTS_24, &SEGMENTS_24, &LINES_24);

/// [`MORRIS_24`] as a constant: code that runs for every position can test for the
/// Nine board (`core::ptr::eq(t, &MORRIS_24)`) and then read this one instead, whose
/// lines and adjacency the compiler knows: masks and shifts become immediates and
/// loops over them unroll (the search's evaluation and turn ordering do; about a tenth
/// fewer instructions a node).
pub const MORRIS_24_CONST: &Topology = &Topology::build(&POINTS_24, &SEGMENTS_24, &LINES_24);

const DIAGONALS: [[&str; 3]; 4] = [
    ["a1", "b2", "c3"],
    ["a7", "b6", "c5"],
    ["g7", "f6", "e5"],
    ["g1", "f2", "e3"],
];

const fn with_diagonal_segments() -> [(&'static str, &'static str); 40] {
    let mut out = [("", ""); 40];
    let mut i = 0;
    while i < 32 {
        out[i] = SEGMENTS_24[i];
        i += 1;
    }
    let mut d = 0;
    while d < 4 {
        out[32 + 2 * d] = (DIAGONALS[d][0], DIAGONALS[d][1]);
        out[33 + 2 * d] = (DIAGONALS[d][1], DIAGONALS[d][2]);
        d += 1;
    }
    out
}

const fn with_diagonal_lines() -> [[&'static str; 3]; 20] {
    let mut out = [["", "", ""]; 20];
    let mut i = 0;
    while i < 16 {
        out[i] = LINES_24[i];
        i += 1;
    }
    let mut d = 0;
    while d < 4 {
        out[16 + d] = DIAGONALS[d];
        d += 1;
    }
    out
}

/// The board of Twelve Men's Morris: the Nine board plus the four diagonals joining the
/// corners of the squares, which are both segments and mills.
pub static MORRIS_24_DIAGONALS: Topology =
    Topology::build(&POINTS_24, &with_diagonal_segments(), &with_diagonal_lines());

/// The board of Six Men's Morris: two nested squares joined at the middles of their
/// sides; only the sides of the squares make mills.
pub static MORRIS_16: Topology = Topology::build(
    &[
        "a1", "d1", "g1", "b2", "d2", "f2", "a4", "b4", "f4", "g4", "b6", "d6", "f6", "a7", "d7", "g7",
    ],
    &[
        // outer square
        ("a1", "d1"),
        ("d1", "g1"),
        ("g1", "g4"),
        ("g4", "g7"),
        ("g7", "d7"),
        ("d7", "a7"),
        ("a7", "a4"),
        ("a4", "a1"),
        // middle square
        ("b2", "d2"),
        ("d2", "f2"),
        ("f2", "f4"),
        ("f4", "f6"),
        ("f6", "d6"),
        ("d6", "b6"),
        ("b6", "b4"),
        ("b4", "b2"),
        // the four connectors (no mills along them)
        ("a4", "b4"),
        ("d1", "d2"),
        ("g4", "f4"),
        ("d7", "d6"),
    ],
    &[
        ["a1", "d1", "g1"],
        ["g1", "g4", "g7"],
        ["g7", "d7", "a7"],
        ["a7", "a4", "a1"],
        ["b2", "d2", "f2"],
        ["f2", "f4", "f6"],
        ["f6", "d6", "b6"],
        ["b6", "b4", "b2"],
    ],
);

/// The board of Three Men's Morris: a 3×3 grid with both diagonals; every one of its
/// eight lines is a mill.
pub static MORRIS_9: Topology = Topology::build(
    &["a1", "d1", "g1", "a4", "d4", "g4", "a7", "d7", "g7"],
    &[
        // rows
        ("a1", "d1"),
        ("d1", "g1"),
        ("a4", "d4"),
        ("d4", "g4"),
        ("a7", "d7"),
        ("d7", "g7"),
        // columns
        ("a1", "a4"),
        ("a4", "a7"),
        ("d1", "d4"),
        ("d4", "d7"),
        ("g1", "g4"),
        ("g4", "g7"),
        // diagonals
        ("a1", "d4"),
        ("d4", "g7"),
        ("g1", "d4"),
        ("d4", "a7"),
    ],
    &[
        ["a1", "d1", "g1"],
        ["a4", "d4", "g4"],
        ["a7", "d7", "g7"],
        ["a1", "a4", "a7"],
        ["d1", "d4", "d7"],
        ["g1", "g4", "g7"],
        ["a1", "d4", "g7"],
        ["g1", "d4", "a7"],
    ],
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morris_board_shape() {
        let t = &MORRIS_24;
        assert_eq!(t.len(), 24);
        assert_eq!(t.segments().count(), 32);
        assert_eq!(t.lines().len(), 16);
        let directed: u32 = t.points().map(|p| t.neighbours(p).count()).sum();
        assert_eq!(directed, 64);
        for p in t.points() {
            assert_eq!(t.point(t.name(p)), Some(p));
            assert_eq!(t.lines_through(p).len(), 2, "every point is on two lines");
        }
        let d2 = t.point("d2").unwrap();
        let names: Vec<_> = t.neighbours(d2).iter().map(|p| t.name(p)).collect();
        assert_eq!(names, ["d1", "b2", "f2", "d3"]);
        assert_eq!(t.point("d4"), None);
        assert_eq!(t.point("h1"), None);
        assert_eq!(t.point(""), None);
    }

    #[test]
    fn the_constant_nine_board_is_the_nine_board() {
        assert_eq!(format!("{MORRIS_24:?}"), format!("{MORRIS_24_CONST:?}"));
    }

    fn shape(t: &Topology) -> (usize, usize, usize) {
        for (a, b) in t.segments() {
            assert!(t.neighbours(a).contains(b) && t.neighbours(b).contains(a));
        }
        let directed: u32 = t.points().map(|p| t.neighbours(p).count()).sum();
        assert_eq!(
            directed as usize,
            2 * t.segments().count(),
            "no segment listed twice"
        );
        (t.len(), t.segments().count(), t.lines().len())
    }

    #[test]
    fn the_other_boards_as_the_issue_gives_them() {
        assert_eq!(shape(&MORRIS_9), (9, 16, 8));
        assert_eq!(shape(&MORRIS_16), (16, 20, 8));
        assert_eq!(shape(&MORRIS_24_DIAGONALS), (24, 40, 20));
        assert_eq!(MORRIS_9.max_lines_through(), 4, "d4 is on four lines");
        assert_eq!(MORRIS_16.max_lines_through(), 2);
        assert_eq!(MORRIS_24.max_lines_through(), 2);
        assert_eq!(MORRIS_24_DIAGONALS.max_lines_through(), 3);
        let t = &MORRIS_24_DIAGONALS;
        let b2 = t.point("b2").unwrap();
        let names: Vec<_> = t.neighbours(b2).iter().map(|p| t.name(p)).collect();
        assert_eq!(names, ["a1", "d2", "c3", "b4"]);
        // Six: the connectors join the squares but make no line.
        let six = &MORRIS_16;
        let (a4, b4) = (six.point("a4").unwrap(), six.point("b4").unwrap());
        assert!(six.neighbours(a4).contains(b4));
        assert!(six.lines().iter().all(|l| !(l.contains(a4) && l.contains(b4))));
        assert_eq!(six.point("c3"), None);
    }
}
