//! Points of a board and sets of points (bitboards).
//!
//! A [`Point`] is an index into its variant's [`Topology`](crate::Topology); every
//! supported board has at most 32 points, so a set of points is one `u32`.

/// A point of the board: an index `0..topology.len()`.
///
/// Names (`a1`, `d6`, …) belong to the topology: see
/// [`Topology::name`](crate::Topology::name) and [`Topology::point`](crate::Topology::point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub(crate) u8);

impl Point {
    /// The point's index, `0..topology.len()`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The point with this index, if it can exist on some board (`< 32`).
    /// Whether it exists on a given board is the topology's to say.
    pub const fn from_index(index: usize) -> Option<Point> {
        if index < 32 {
            Some(Point(index as u8))
        } else {
            None
        }
    }

    /// This point as a one-element set.
    #[inline]
    pub const fn bit(self) -> Bitboard {
        Bitboard(1 << self.0)
    }
}

/// A set of points, one bit per point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u32);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// Whether `point` is in the set.
    #[inline]
    pub const fn contains(self, point: Point) -> bool {
        self.0 & (1 << point.0) != 0
    }

    /// How many points are in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The points of the set, lowest index first.
    #[inline]
    pub const fn iter(self) -> Points {
        Points(self.0)
    }

    /// The lowest point of the set, if any.
    #[inline]
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(self.0.trailing_zeros() as u8))
        }
    }
}

impl core::ops::BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl core::ops::BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl IntoIterator for Bitboard {
    type Item = Point;
    type IntoIter = Points;
    fn into_iter(self) -> Points {
        self.iter()
    }
}

impl FromIterator<Point> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Bitboard {
        Bitboard(iter.into_iter().fold(0, |bb, p| bb | 1 << p.0))
    }
}

/// Iterator over the points of a [`Bitboard`].
#[derive(Clone, Debug)]
pub struct Points(u32);

impl Iterator for Points {
    type Item = Point;
    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Point(index as u8))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Points {}
