//! Distances beyond a byte while a table is built: the far list's entries, the layers
//! they feed, and the choice at the end between a narrow table and a wide one.

use super::*;
use crate::tablebase::far::{self, FarList};

impl Retrograde<'_> {
    /// The code of an entry decided in `plies`: its own code, or a far code with the
    /// distance kept in the far list.
    #[inline]
    pub(super) fn decided_code(&self, turn: Color, index: u64, plies: u32) -> u8 {
        if plies < self.far_from {
            return code::decided(plies);
        }
        self.note_far(turn, index, plies);
        code::far(plies)
    }

    /// Keeps an entry's distance in the far list, unless it holds a shorter one already.
    pub(super) fn note_far(&self, turn: Color, index: u64, plies: u32) {
        let key = far::key(turn, index);
        let mut f = self.far.lock().expect("lock");
        if f.plies.get(&key).is_some_and(|&p| p <= plies) {
            return;
        }
        f.plies.insert(key, plies);
        f.by_plies.entry(plies).or_default().push(key);
    }

    /// Drops an entry from the far list (it is given a distance that fits its byte).
    pub(super) fn forget_far(&self, turn: Color, index: u64) {
        self.far
            .lock()
            .expect("lock")
            .plies
            .remove(&far::key(turn, index));
    }

    /// The entries decided in `plies` (at least `far_from`): a layer's frontier, in key
    /// order, in place of the scan.
    pub(super) fn far_frontier(&self, plies: u32) -> Vec<u64> {
        let mut f = self.far.lock().expect("lock");
        let mut keys = f.by_plies.remove(&plies).unwrap_or_default();
        keys.retain(|k| f.plies.get(k) == Some(&plies));
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// The far list's entries as (key, plies), in key order.
    pub(super) fn far_entries(&self) -> Vec<(u64, u32)> {
        let f = self.far.lock().expect("lock");
        let mut v: Vec<(u64, u32)> = f.plies.iter().map(|(&k, &p)| (k, p)).collect();
        v.sort_unstable();
        v
    }

    /// Takes back the far list of a checkpoint.
    pub(super) fn resume_far(&self, entries: Vec<(u64, u32)>) {
        let mut f = self.far.lock().expect("lock");
        for (k, p) in entries {
            f.plies.insert(k, p);
            f.by_plies.entry(p).or_default().push(k);
        }
    }
}

/// The far list of a finished table and its entries' final codes: when every distance
/// fits a byte (below `far_from` when the test hook lowered it), the entries get their own
/// codes back and the list is empty, so the table is the bytes it always was; otherwise
/// the list is the table's far list (a wide table).
pub(super) fn settle_far(
    entries: Vec<(u64, u32)>,
    far_from: u32,
    sides: [&mut [u8]; 2],
) -> FarList {
    let fits = if far_from == code::FAR_FROM {
        code::MAX_PLIES
    } else {
        far_from - 1
    };
    if entries.iter().any(|&(_, p)| p > fits) {
        return FarList::from_entries(entries);
    }
    for (k, p) in entries {
        let (turn, index) = far::unkey(k);
        sides[turn.index()][index as usize] = code::decided(p);
    }
    FarList::default()
}
