//! The transposition table: a fixed number of two-entry buckets allocated once.
//!
//! Every search starts a new generation, and entries of older generations are treated
//! as empty (and replaced first), so a search never depends on what earlier searches
//! left behind: results are reproducible without clearing the memory each time.

use mill_core::{Point, Turn};

/// How a stored score relates to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    turn: u32,
    score: i16,
    depth: u8,
    /// Bound in the low 2 bits (0: empty), generation in the high 6.
    meta: u8,
}

/// What a probe finds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    pub turn: u32,
    pub score: i32,
    pub depth: u32,
    pub bound: Bound,
}

/// Two entries, aligned so that a bucket never straddles two cache lines (a probe
/// costs one memory access, not two).
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(32))]
struct Bucket([Entry; 2]);

#[derive(Debug)]
pub(crate) struct Table {
    buckets: Vec<Bucket>,
    mask: usize,
    generation: u8,
}

const GENERATIONS: u8 = 64;

impl Table {
    /// A table of about `mb` megabytes (a power of two of buckets, at least 1024).
    pub fn new(mb: usize) -> Table {
        let bytes = mb.saturating_mul(1 << 20);
        let per_bucket = core::mem::size_of::<Bucket>();
        let mut n = 1024usize;
        while n.saturating_mul(2).saturating_mul(per_bucket) <= bytes {
            n *= 2;
        }
        Table {
            buckets: vec![Bucket::default(); n],
            mask: n - 1,
            generation: 0,
        }
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * core::mem::size_of::<Bucket>()
    }

    /// Starts a new search: earlier entries stop counting.
    pub fn new_search(&mut self) {
        self.generation += 1;
        if self.generation == GENERATIONS {
            // Wrapped: old entries could pass for current ones, so really clear.
            self.generation = 1;
            self.buckets.fill(Bucket::default());
        }
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key >> 32) as usize & self.mask
    }

    #[inline]
    fn current(&self, e: &Entry) -> bool {
        e.meta & 3 != 0 && e.meta >> 2 == self.generation
    }

    pub fn probe(&self, key: u64) -> Option<Hit> {
        let bucket = &self.buckets[self.index(key)].0;
        bucket
            .iter()
            .find(|e| e.key == key && self.current(e))
            .map(|e| Hit {
                turn: e.turn,
                score: e.score as i32,
                depth: e.depth as u32,
                bound: match e.meta & 3 {
                    1 => Bound::Exact,
                    2 => Bound::Lower,
                    _ => Bound::Upper,
                },
            })
    }

    pub fn store(&mut self, key: u64, turn: u32, score: i32, depth: u32, bound: Bound) {
        let generation = self.generation;
        let i = self.index(key);
        let bucket = &mut self.buckets[i].0;
        let is_current = |e: &Entry| e.meta & 3 != 0 && e.meta >> 2 == generation;
        // The same position, else a stale or empty slot, else the shallower entry.
        let slot = if let Some(s) = bucket.iter().position(|e| e.key == key && is_current(e)) {
            s
        } else if let Some(s) = bucket.iter().position(|e| !is_current(e)) {
            s
        } else if bucket[0].depth <= bucket[1].depth {
            0
        } else {
            1
        };
        let e = &mut bucket[slot];
        // Keep a deeper result for the same position unless this one is exact.
        if e.key == key && is_current(e) && e.depth as u32 > depth + 2 && bound != Bound::Exact {
            return;
        }
        let keep_turn = if turn == 0 && e.key == key { e.turn } else { turn };
        *e = Entry {
            key,
            turn: keep_turn,
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.min(255) as u8,
            meta: (generation << 2) | bound as u8,
        };
    }
}

/// A turn packed in 32 bits for the table and the killer slots (0: no turn): the
/// origin, the destination and up to three removals, 6 bits each, stored plus one.
#[inline]
pub(crate) fn pack(turn: &Turn) -> u32 {
    let from = turn.from().map_or(0, |p| p.index() as u32 + 1);
    let mut packed = from | (turn.to().index() as u32 + 1) << 6;
    for (i, r) in turn.removals().iter().take(3).enumerate() {
        packed |= (r.index() as u32 + 1) << (12 + 6 * i);
    }
    packed
}

/// The turn a packed turn stands for (`None` for 0 or a malformed value). Whether
/// it is legal is for [`Position::play`](mill_core::Position::play) to say.
#[inline]
pub(crate) fn unpack(packed: u32) -> Option<Turn> {
    let point = |bits: u32| Point::from_index((bits & 63).checked_sub(1)? as usize);
    let to = point(packed >> 6)?;
    let mut turn = match packed & 63 {
        0 => Turn::place(to),
        _ => Turn::step(point(packed)?, to),
    };
    for i in 0..3 {
        let bits = (packed >> (12 + 6 * i)) & 63;
        if bits == 0 {
            break;
        }
        turn = turn.with_removal(point(bits)?)?;
    }
    Some(turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mill_core::Position;

    #[test]
    fn probe_finds_only_the_current_search() {
        let mut t = Table::new(1);
        t.new_search();
        t.store(42, 7, -123, 5, Bound::Lower);
        let hit = t.probe(42).unwrap();
        assert_eq!(
            (hit.turn, hit.score, hit.depth, hit.bound),
            (7, -123, 5, Bound::Lower)
        );
        assert!(t.probe(43).is_none());
        t.new_search();
        assert!(t.probe(42).is_none(), "an earlier search's entry must not count");
    }

    #[test]
    fn three_removals_fit_every_rule_set() {
        for variant in mill_core::Variant::ALL {
            let mut options = variant.default_options();
            options.removals = mill_core::RemovalRule::PerMill;
            if let Ok(rules) = mill_core::Rules::of(variant, options) {
                assert!(rules.max_removals() <= 3, "{rules}");
            }
        }
    }

    #[test]
    fn packing_tells_turns_apart() {
        let p: Position = ".../.../.../....../.../DD./LL. l 7 7 0 0".parse().unwrap();
        let turns = p.legal_turns();
        let mut packed: Vec<u32> = turns.iter().map(pack).collect();
        assert!(packed.iter().all(|&x| x != 0));
        for (t, &p) in turns.iter().zip(&packed) {
            assert_eq!(unpack(p), Some(*t));
        }
        assert_eq!(unpack(0), None);
        packed.sort_unstable();
        packed.dedup();
        assert_eq!(packed.len(), turns.len());
    }
}
