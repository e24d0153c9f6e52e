//! The transposition table of the mate solver: what has been proven about a position's
//! distance to mate, shared by all search threads without locks.
//!
//! An entry holds bounds on M, the number of plies in which the attacker forces mate from
//! the position with perfect play on both sides: `M ≤ hi` (a mate within `hi` was proven)
//! and `M > lo` (no mate within `lo`), with the best move found. Under the baseline rules M
//! depends on the position alone (not on the moves that led to it), so bounds proven
//! anywhere hold everywhere. Each slot is two atomic words, the key XOR-ed with the data
//! and the data, so that a slot torn by two writers reads as a miss, never as a wrong hit.
//!
//! A table may serve one proof after another ([`Tt::renew`]): each entry carries the number
//! of the proof that stored it, and an earlier proof's entries read as misses, so that a
//! reused table answers exactly as a fresh one would, without being cleared.

use std::sync::OnceLock;
use std::sync::atomic::{
    AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

use crate::game::moves::Move;
use crate::game::square::Square;

/// `hi` when no mate is known.
pub const UNKNOWN_HI: u8 = u8::MAX;
/// `lo` for "no mate at any depth" (a draw or a loss of the attacker by the tables, or
/// the attacker has no move).
pub const NEVER: u8 = u8::MAX;
const NO_MOVE: u16 = u16::MAX;

/// What is known of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// A mate within this many plies is proven ([`UNKNOWN_HI`]: none).
    pub hi: u8,
    /// No mate within this many plies is proven, stored plus one (0: nothing proven;
    /// [`NEVER`]: no mate ever).
    lo_plus_one: u8,
    best: u16,
}

impl Bounds {
    /// Nothing known.
    pub const NONE: Bounds = Bounds {
        hi: UNKNOWN_HI,
        lo_plus_one: 0,
        best: NO_MOVE,
    };

    /// Whether a mate within `d` plies is proven.
    #[inline]
    pub fn mates_within(&self, d: u32) -> bool {
        (self.hi as u32) <= d
    }

    /// Whether it is proven that there is no mate within `d` plies.
    #[inline]
    pub fn no_mate_within(&self, d: u32) -> bool {
        self.lo_plus_one == NEVER || (self.lo_plus_one as u32) > d
    }

    /// Also known: a mate within `d` plies.
    pub fn with_mate_within(mut self, d: u32) -> Bounds {
        self.hi = self.hi.min(d.min(UNKNOWN_HI as u32 - 1) as u8);
        self
    }

    /// Also known: no mate within `d` plies.
    pub fn with_no_mate_within(mut self, d: u32) -> Bounds {
        if self.lo_plus_one != NEVER {
            self.lo_plus_one = self.lo_plus_one.max((d + 1).min(NEVER as u32 - 1) as u8);
        }
        self
    }

    /// Also known: no mate at any depth.
    pub fn with_never(mut self) -> Bounds {
        self.lo_plus_one = NEVER;
        self
    }

    /// Also the best move found.
    pub fn with_best(mut self, m: Move) -> Bounds {
        self.best = (m.from().index() as u16) << 8 | m.to().index() as u16;
        self
    }

    /// The best move found, if one was stored.
    pub fn best(&self) -> Option<Move> {
        if self.best == NO_MOVE {
            return None;
        }
        let from = Square::new((self.best >> 8) as u8)?;
        let to = Square::new((self.best & 0xff) as u8)?;
        Some(Move::new(from, to))
    }

    /// The bounds and the proof's number, never zero (numbers start at one).
    fn pack(self, generation: u16) -> u64 {
        self.hi as u64
            | (self.lo_plus_one as u64) << 8
            | (self.best as u64) << 16
            | (generation as u64) << 32
    }

    fn unpack(data: u64) -> Bounds {
        Bounds {
            hi: data as u8,
            lo_plus_one: (data >> 8) as u8,
            best: (data >> 16) as u16,
        }
    }
}

/// The shared table: a power-of-two number of two-word slots. It starts small and grows in
/// steps of four times, up to its full size, as the proof turns out long (see
/// [`Tt::grow_after`]): a short proof touches a few hundred kilobytes, a medium one a few
/// megabytes, instead of paying for a large table's fresh pages, and a long one gets the
/// whole table on huge pages.
pub struct Tt {
    /// The tables of each size, smallest first; the largest one there is in use (once a
    /// table is there, it is whole, what the smaller one held moved into it).
    levels: Box<[OnceLock<Slots>]>,
    /// The index of the table in use.
    current: AtomicUsize,
    /// The slots of each table.
    sizes: Box<[usize]>,
    /// The number of the proof the table serves (see [`Tt::renew`]); never zero.
    generation: u16,
}

/// A power-of-two number of slots.
struct Slots {
    slots: Box<[[AtomicU64; 2]]>,
    mask: u64,
}

impl Slots {
    fn new(n: usize, huge: bool) -> Slots {
        Slots {
            slots: zeroed_slots(n, huge),
            mask: n as u64 - 1,
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &[AtomicU64; 2] {
        &self.slots[(key & self.mask) as usize]
    }
}

/// The first table's slots (1 MB): enough for the proofs that take a few milliseconds.
const SMALL_SLOTS: usize = 1 << 16;
/// Each table is this many times the size of the one before it.
const GROWTH: usize = 4;
/// A table gives way to the next once the proof has searched a node for every this many of
/// its slots, while it is still mostly free (later, the bounds lost to its collisions cost
/// the heaviest proofs 5% more nodes).
const SLOTS_PER_NODE: u64 = 4;
/// Tables from this size on ask for huge pages (smaller ones would not fill one).
const HUGE_FROM: usize = 1 << 18;

/// `n` empty slots from zeroed memory: the system hands out zero pages lazily, so a large
/// table costs nothing until it is used (writing every slot first took milliseconds, more
/// than a short proof).
fn zeroed_slots(n: usize, huge: bool) -> Box<[[AtomicU64; 2]]> {
    assert!(n > 0);
    let layout = std::alloc::Layout::array::<[AtomicU64; 2]>(n).expect("a table that fits");
    // SAFETY: the layout is not empty; all-zero bytes are a valid AtomicU64 (zero); the
    // memory comes from the global allocator with this layout, which is how the Box frees it.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut [AtomicU64; 2];
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let slots = Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n));
        if huge {
            ask_for_huge_pages(p as usize, n * std::mem::size_of::<[AtomicU64; 2]>());
        }
        slots
    }
}

/// Asks the kernel to back the whole 2 MB pages inside `[start, start + len)` with huge
/// pages (`madvise(MADV_HUGEPAGE)`, honoured when transparent huge pages are in `madvise`
/// or `always` mode; elsewhere it does nothing). The table is read at random, so with 4 KB
/// pages nearly every probe misses the TLB, and every first touch of a page is a fault:
/// two threads faulting in one table queue on the kernel's lock (0.27 s of system time
/// beside 1.0 s of user time on the heaviest bench proof). Measured in docs/solver.md's solver
/// section.
fn ask_for_huge_pages(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let lo = start.next_multiple_of(HUGE);
        let hi = (start + len) / HUGE * HUGE;
        if hi > lo {
            // SAFETY: the range lies inside memory this process owns (the table just
            // allocated); MADV_HUGEPAGE changes only how the kernel backs it, never its
            // contents, and an error (huge pages unavailable) leaves it as it was.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

impl Tt {
    /// A table of about `megabytes` MB (at least 1024 slots).
    pub fn new(megabytes: usize) -> Tt {
        Tt::starting_at(megabytes, false)
    }

    /// A table of about `megabytes` MB at its smallest size, or at its full size (the
    /// smaller ones then never made).
    fn starting_at(megabytes: usize, at_full: bool) -> Tt {
        let want = ((megabytes.max(1) << 20) / 16).max(1024);
        // the largest power of two that fits
        let full = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        let mut sizes = vec![full.min(SMALL_SLOTS)];
        while let Some(&last) = sizes.last().filter(|&&n| n < full) {
            sizes.push((last * GROWTH).min(full));
        }
        let levels: Box<[OnceLock<Slots>]> = sizes.iter().map(|_| OnceLock::new()).collect();
        let first = if at_full { sizes.len() - 1 } else { 0 };
        let _ = levels[first].set(Slots::new(sizes[first], sizes[first] >= HUGE_FROM));
        Tt {
            levels,
            current: AtomicUsize::new(first),
            sizes: sizes.into_boxed_slice(),
            generation: 1,
        }
    }

    /// A table of about `megabytes` MB at its full size from the start, its memory
    /// touched now rather than during the proofs: for a caller that solves one position
    /// after another with it (see [`Tt::renew`]), as an engine sets up its hash table
    /// before it is asked to search.
    pub fn full(megabytes: usize) -> Tt {
        let tt = Tt::starting_at(megabytes, true);
        // (one write a page: until written, the pages are the system's shared zero page)
        let slots = &tt.table().slots;
        for s in slots
            .iter()
            .step_by(4096 / std::mem::size_of::<[AtomicU64; 2]>())
        {
            s[1].store(0, Relaxed);
        }
        tt
    }

    /// Makes the table ready for another proof: what earlier proofs stored reads as
    /// missing from now on. (Once in 65,535 proofs the numbers run out and the table is
    /// cleared instead.)
    pub fn renew(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for level in self.levels.iter_mut().filter_map(OnceLock::get_mut) {
                for s in level.slots.iter_mut() {
                    *s = [AtomicU64::new(0), AtomicU64::new(0)];
                }
            }
            self.generation = 1;
        }
    }

    #[inline]
    fn table(&self) -> &Slots {
        // (a level is made current only once it is whole)
        let level = self.current.load(Acquire);
        self.levels[level]
            .get()
            .expect("the current table is there")
    }

    #[inline]
    fn slot(&self, key: u64) -> &[AtomicU64; 2] {
        self.table().slot(key)
    }

    /// Grows the table by a step once `nodes` (the proof's count so far) calls for it,
    /// moving what it holds. Entries another thread stores in the smaller table meanwhile
    /// may be lost: a lost bound costs work, never a wrong answer.
    pub fn grow_after(&self, nodes: u64) {
        let level = self.current.load(Acquire);
        let Some(&next_size) = self.sizes.get(level + 1) else {
            return;
        };
        if nodes.saturating_mul(SLOTS_PER_NODE) < self.sizes[level] as u64 {
            return;
        }
        let from = self.levels[level]
            .get()
            .expect("the current table is there");
        self.levels[level + 1].get_or_init(|| {
            let to = Slots::new(next_size, next_size >= HUGE_FROM);
            for s in from.slots.iter() {
                let (k, data) = (s[0].load(Relaxed), s[1].load(Relaxed));
                // (an empty slot, or an earlier proof's entry, is not this proof's)
                if (data >> 32) as u16 == self.generation {
                    let t = to.slot(k ^ data);
                    t[0].store(k, Relaxed);
                    t[1].store(data, Relaxed);
                }
            }
            to
        });
        self.current.fetch_max(level + 1, Release);
    }

    /// What is known of a position (nothing when its slot holds another).
    #[inline]
    pub fn get(&self, key: u64) -> Bounds {
        let s = self.slot(key);
        let (k, data) = (s[0].load(Relaxed), s[1].load(Relaxed));
        if k ^ data == key && (data >> 32) as u16 == self.generation {
            Bounds::unpack(data)
        } else {
            Bounds::NONE
        }
    }

    /// Stores what is known of a position, replacing the slot's content (callers merge by
    /// starting from [`Tt::get`]).
    #[inline]
    pub fn put(&self, key: u64, b: Bounds) {
        let data = b.pack(self.generation);
        let s = self.slot(key);
        s[0].store(key ^ data, Relaxed);
        s[1].store(data, Relaxed);
    }

    /// Prefetches a position's slot.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(self.slot(key).as_ptr());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_merge_and_round_trip() {
        let tt = Tt::new(1);
        let key = 0x1234_5678_9abc_def0;
        assert_eq!(tt.get(key), Bounds::NONE);
        let b = Bounds::NONE.with_no_mate_within(4).with_mate_within(9);
        tt.put(key, b);
        let got = tt.get(key);
        assert!(got.no_mate_within(4) && !got.no_mate_within(5));
        assert!(got.mates_within(9) && !got.mates_within(8));
        // another key in the same slot is a miss
        assert_eq!(tt.get(key ^ (1 << 40)), Bounds::NONE);
        let never = Bounds::NONE.with_never().with_no_mate_within(3);
        assert!(never.no_mate_within(250));
        let m = Move::new(Square::new(3).unwrap(), Square::new(89).unwrap());
        assert_eq!(Bounds::NONE.with_best(m).best(), Some(m));
    }

    /// A renewed table answers as a fresh one: what an earlier proof stored is a miss, in
    /// the table as it is and once it has grown; when the proofs' numbers run out the
    /// table is cleared, so that an entry from 65,535 proofs back cannot pass for new.
    #[test]
    fn a_renewed_table_forgets_the_earlier_proofs() {
        let mut tt = Tt::new(64);
        let (a, b) = (0x0123_4567_89ab_cdef_u64, 0xfedc_ba98_7654_3210_u64);
        let bound = Bounds::NONE.with_mate_within(7).with_no_mate_within(4);
        tt.put(a, bound);
        tt.renew();
        assert_eq!(tt.get(a), Bounds::NONE);
        tt.put(b, bound);
        assert_eq!(tt.get(b), bound);
        // growing moves only this proof's entries
        tt.grow_after(u64::MAX);
        assert_eq!((tt.get(a), tt.get(b)), (Bounds::NONE, bound));
        // the numbers run out: the table is cleared, and numbering starts again at one
        let first = Bounds::NONE.with_never();
        tt.generation = 1;
        tt.put(a, first);
        tt.generation = u16::MAX;
        tt.renew();
        assert_eq!(tt.generation, 1);
        assert_eq!(tt.get(a), Bounds::NONE);
        assert_eq!(tt.get(b), Bounds::NONE);
    }

    /// A full table is whole from the start and never grows.
    #[test]
    fn a_full_table_starts_at_its_size() {
        let tt = Tt::full(64);
        assert_eq!(tt.table().slots.len(), 1 << 22);
        tt.grow_after(u64::MAX);
        assert_eq!(tt.table().slots.len(), 1 << 22);
        let small = Tt::full(1);
        assert_eq!(small.table().slots.len(), 1 << 16);
        let key = 99;
        small.put(key, Bounds::NONE.with_mate_within(3));
        assert!(small.get(key).mates_within(3));
    }

    /// What a table holds is still there once the table has grown, step by step, and keys
    /// that shared a slot get slots of their own.
    #[test]
    fn growing_keeps_the_entries() {
        let tt = Tt::new(64);
        assert_eq!(tt.sizes[..], [1 << 16, 1 << 18, 1 << 20, 1 << 22]);
        let keys: Vec<u64> = (1..=5000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let bound = |i: usize| Bounds::NONE.with_no_mate_within(i as u32 % 200);
        for (i, &k) in keys.iter().enumerate() {
            tt.put(k, bound(i));
        }
        let before: Vec<Bounds> = keys.iter().map(|&k| tt.get(k)).collect();
        tt.grow_after(10);
        assert_eq!(tt.table().slots.len(), 1 << 16, "grown before its time");
        // one step at a time, each when the proof has a node for every four slots
        for (nodes, slots) in [(1 << 14, 1 << 18), (1 << 14, 1 << 18), (1 << 16, 1 << 20)] {
            tt.grow_after(nodes);
            assert_eq!(tt.table().slots.len(), slots, "after {nodes} nodes");
        }
        tt.grow_after(u64::MAX);
        tt.grow_after(u64::MAX);
        assert_eq!(tt.table().slots.len(), 1 << 22);
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(tt.get(k), before[i], "key {i}");
        }
        // a colliding key overwrote a small slot; in the full table both fit
        let (a, b) = (7u64, 7 + (SMALL_SLOTS as u64));
        tt.put(a, bound(1));
        tt.put(b, bound(2));
        assert_eq!((tt.get(a), tt.get(b)), (bound(1), bound(2)));
        // a table no larger than the first one never grows
        let one = Tt::new(1);
        one.grow_after(u64::MAX);
        assert_eq!(one.levels.len(), 1);
        assert_eq!(one.table().slots.len(), 1 << 16);
        // nor past its full size, which need not be a step's
        let two = Tt::new(2);
        assert_eq!(two.sizes[..], [1 << 16, 1 << 17]);
    }
}
