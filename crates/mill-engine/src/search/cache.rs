//! Scores as the transposition table keeps them (mate distances relative to the node),
//! and the evaluation cache.

use super::*;

#[inline]
pub(super) fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
pub(super) fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Evaluations of this search by position hash: a direct-mapped table of
/// 2^EVAL_CACHE_BITS entries, each the hash's high half (with its low bit set, so an
/// empty slot never matches) and the score. Cleared at every search, whose noise
/// and seed the scores include.
#[derive(Debug)]
pub(super) struct EvalCache {
    slots: Vec<u64>,
}

pub(super) const EVAL_CACHE_BITS: u32 = 16;

impl EvalCache {
    pub(super) fn new() -> EvalCache {
        EvalCache {
            slots: vec![0; 1 << EVAL_CACHE_BITS],
        }
    }

    pub(super) fn clear(&mut self) {
        self.slots.fill(0);
    }

    #[inline]
    pub(super) fn check(key: u64) -> u64 {
        (key | 1 << 32) >> 32 << 32
    }

    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<i32> {
        let slot = self.slots[key as usize & ((1 << EVAL_CACHE_BITS) - 1)];
        (slot & !0xffff_ffff == Self::check(key)).then_some(slot as u32 as i32)
    }

    #[inline]
    pub(super) fn put(&mut self, key: u64, score: i32) {
        self.slots[key as usize & ((1 << EVAL_CACHE_BITS) - 1)] = Self::check(key) | score as u32 as u64;
    }
}
