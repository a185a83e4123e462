//! How a class's positions are indexed: the board's symmetries as lookup tables, and
//! the rank of a set of points among the sets of its size (and back).

use super::*;

/// The board's symmetries as byte lookup tables: the image of a bitboard is four
/// lookups.
#[derive(Clone, Debug)]
pub(super) struct Symmetries {
    pub(super) tables: Vec<[[u32; 256]; 4]>,
}

impl Symmetries {
    pub(super) fn of(t: &Topology) -> Symmetries {
        let points: Vec<usize> = t.points().map(|p| p.index()).collect();
        let n = points.len();
        let adjacent = |a: usize, b: usize| -> bool {
            mill_core::Point::from_index(a).is_some_and(|p| t.neighbours(p).0 & (1 << b) != 0)
        };
        // Points in breadth-first order, so that each has an earlier neighbour.
        let mut order = Vec::with_capacity(n);
        let mut seen = 0u32;
        for &start in &points {
            if seen & (1 << start) != 0 {
                continue;
            }
            seen |= 1 << start;
            order.push(start);
            let mut k = order.len() - 1;
            while k < order.len() {
                let p = order[k];
                for &q in &points {
                    if seen & (1 << q) == 0 && adjacent(p, q) {
                        seen |= 1 << q;
                        order.push(q);
                    }
                }
                k += 1;
            }
        }
        let lines: Vec<u32> = t.lines().iter().map(|l| l.0).collect();
        let mut found = Vec::new();
        let mut image = [usize::MAX; MAX_POINTS];
        /// What the search for automorphisms needs besides the partial image.
        struct Ctx<'c> {
            order: &'c [usize],
            points: &'c [usize],
            adjacent: &'c dyn Fn(usize, usize) -> bool,
            lines: &'c [u32],
        }
        fn extend(
            cx: &Ctx<'_>,
            k: usize,
            image: &mut [usize; MAX_POINTS],
            used: u32,
            found: &mut Vec<[usize; MAX_POINTS]>,
        ) {
            if k == cx.order.len() {
                let maps_lines = cx.lines.iter().all(|&l| {
                    let img = (0..MAX_POINTS)
                        .filter(|&i| l & (1 << i) != 0)
                        .fold(0u32, |s, i| s | 1 << image[i]);
                    cx.lines.contains(&img)
                });
                if maps_lines {
                    found.push(*image);
                }
                return;
            }
            let p = cx.order[k];
            for &c in cx.points {
                if used & (1 << c) != 0 {
                    continue;
                }
                let fits = cx.order[..k]
                    .iter()
                    .all(|&r| (cx.adjacent)(p, r) == (cx.adjacent)(c, image[r]));
                if fits {
                    image[p] = c;
                    extend(cx, k + 1, image, used | 1 << c, found);
                    image[p] = usize::MAX;
                }
            }
        }
        let cx = Ctx {
            order: &order,
            points: &points,
            adjacent: &adjacent,
            lines: &lines,
        };
        extend(&cx, 0, &mut image, 0, &mut found);
        let tables = found
            .iter()
            .map(|image| {
                let mut tab = [[0u32; 256]; 4];
                for (byte, table) in tab.iter_mut().enumerate() {
                    for (b, slot) in table.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let i = byte * 8 + bit;
                            if b & (1 << bit) != 0 && image[i] < MAX_POINTS {
                                *slot |= 1 << image[i];
                            }
                        }
                    }
                }
                tab
            })
            .collect();
        Symmetries { tables }
    }

    #[inline]
    pub(super) fn apply(tab: &[[u32; 256]; 4], x: u32) -> u32 {
        tab[0][(x & 0xff) as usize]
            | tab[1][(x >> 8 & 0xff) as usize]
            | tab[2][(x >> 16 & 0xff) as usize]
            | tab[3][(x >> 24) as usize]
    }

    /// The representative of (us, them)'s orbit: the least image, `us` compared first.
    #[inline]
    pub(super) fn canonical(&self, us: u32, them: u32) -> (u32, u32) {
        let mut best = (us, them);
        for tab in &self.tables {
            let u = Self::apply(tab, us);
            if u > best.0 {
                continue;
            }
            let t = Self::apply(tab, them);
            if (u, t) < best {
                best = (u, t);
            }
        }
        best
    }
}

/// Binomial coefficients C(n, k) for n ≤ 32, k ≤ 8.
pub(super) const BINOMIAL: [[u32; 9]; 33] = {
    let mut b = [[0u32; 9]; 33];
    let mut n = 0;
    while n <= 32 {
        b[n][0] = 1;
        let mut k = 1;
        while k <= 8 && k <= n {
            b[n][k] = b[n - 1][k - 1] + if k < n { b[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    b
};

/// The rank of `set` among the subsets of its size of `within` (colexicographic).
#[inline]
pub(super) fn rank_in(set: u32, within: u32) -> u32 {
    let mut rank = 0;
    let mut rest = set;
    let mut k = 1;
    while rest != 0 {
        let bit = rest.trailing_zeros();
        let below = (within & ((1u32 << bit) - 1)).count_ones() as usize;
        rank += BINOMIAL[below][k];
        rest &= rest - 1;
        k += 1;
    }
    rank
}

/// The `count`-subsets of `within`, in rank order.
pub(super) fn subsets(within: u32, count: u32) -> impl Iterator<Item = u32> {
    let slots: Vec<u32> = (0..32).filter(|i| within & (1 << i) != 0).collect();
    let width = slots.len() as u32;
    let mut mask: u64 = if count == 0 || count > width {
        0
    } else {
        (1u64 << count) - 1
    };
    let end = 1u64 << width;
    let done = count > width;
    std::iter::from_fn(move || {
        if done || (count == 0 && mask == u64::MAX) || mask >= end {
            return None;
        }
        let set = (0..width)
            .filter(|i| mask & (1 << i) != 0)
            .fold(0u32, |s, i| s | 1 << slots[i as usize]);
        if count == 0 {
            mask = u64::MAX;
        } else {
            // Gosper's hack: the next larger number with as many bits.
            let c = mask & mask.wrapping_neg();
            let r = mask + c;
            mask = (((r ^ mask) >> 2) / c) | r;
        }
        Some(set)
    })
}

/// The subset of `within` with `count` elements at `rank` (inverse of [`rank_in`]).
pub(super) fn unrank(mut rank: u32, within: u32, count: u32) -> u32 {
    let slots: Vec<u32> = (0..32).filter(|i| within & (1 << i) != 0).collect();
    let mut set = 0;
    let mut k = count as usize;
    let mut n = slots.len();
    while k > 0 {
        // The largest n' with C(n', k) <= rank.
        n -= 1;
        while BINOMIAL[n][k] > rank {
            n -= 1;
        }
        rank -= BINOMIAL[n][k];
        set |= 1 << slots[n];
        k -= 1;
    }
    set
}
