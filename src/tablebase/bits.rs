//! One bit per table entry, shared between threads.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

/// A set of entries of one side to move, one bit each.
pub(crate) struct Bits(pub(crate) Vec<AtomicU64>);

impl Bits {
    pub(crate) fn new(entries: u64) -> Bits {
        Bits(
            (0..entries.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }

    #[inline]
    pub(crate) fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize].load(Relaxed) & (1 << (i % 64)) != 0
    }

    /// Adds entry `i`; returns whether this call added it. A member already is left
    /// alone without a write, so that threads setting the same bits over and over (the
    /// trap's sweeps) do not take the cache line from each other.
    #[inline]
    pub(crate) fn set(&self, i: u64) -> bool {
        let word = &self.0[(i / 64) as usize];
        let b = 1 << (i % 64);
        word.load(Relaxed) & b == 0 && word.fetch_or(b, Relaxed) & b == 0
    }

    pub(crate) fn clear(&self) {
        self.0.par_iter().for_each(|w| w.store(0, Relaxed));
    }

    pub(crate) fn count(&self) -> u64 {
        self.0
            .par_iter()
            .map(|w| w.load(Relaxed).count_ones() as u64)
            .sum()
    }

    pub(crate) fn copy_from(&self, other: &Bits) {
        self.0
            .par_iter()
            .zip(other.0.par_iter())
            .for_each(|(a, b)| a.store(b.load(Relaxed), Relaxed));
    }

    /// Whether some member is not one of `other`'s.
    pub(crate) fn any_beyond(&self, other: &Bits) -> bool {
        self.0
            .par_iter()
            .zip(other.0.par_iter())
            .any(|(a, b)| a.load(Relaxed) & !b.load(Relaxed) != 0)
    }

    /// Adds every member of `other`.
    pub(crate) fn add(&self, other: &Bits) {
        self.0
            .par_iter()
            .zip(other.0.par_iter())
            .for_each(|(a, b)| {
                a.fetch_or(b.load(Relaxed), Relaxed);
            });
    }
}
