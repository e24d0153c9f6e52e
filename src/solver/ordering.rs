//! Move ordering: the killer moves and history counts every search thread shares, the
//! pieces' values for ordering captures, and the pick of the best-scored move.

use std::sync::atomic::{AtomicU16, AtomicU32, Ordering::Relaxed};

use crate::game::moves::Move;
use crate::game::piece::Kind;
use crate::game::square::Square;

/// The deepest ply with a slot of its own (killers, the search's scored moves); deeper plies
/// share the last.
pub(super) const MAX_PLY: usize = 256;

/// The move-ordering memory every search thread shares: killer moves per ply (moves that
/// decided a node at that distance from the root) and history counts per side and move.
/// Racy by design: a lost update only changes which move is tried first.
pub struct Heuristics {
    killers: Box<[[AtomicU16; 2]]>,
    history: Box<[AtomicU32]>,
}

pub(super) const NO_KILLER: u16 = u16::MAX;

impl Heuristics {
    pub fn new() -> Heuristics {
        Heuristics {
            killers: (0..=MAX_PLY)
                .map(|_| [AtomicU16::new(NO_KILLER), AtomicU16::new(NO_KILLER)])
                .collect(),
            history: (0..2 * 8100).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    #[inline]
    pub(super) fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply.min(MAX_PLY)].each_ref().map(|k| {
            let k = k.load(Relaxed);
            (k != NO_KILLER).then(|| {
                Move::new(
                    Square::new_unchecked((k >> 8) as u8),
                    Square::new_unchecked(k as u8),
                )
            })
        })
    }

    #[inline]
    pub(super) fn history(&self, side: usize, m: Move) -> u32 {
        self.history[side * 8100 + move_index(m)].load(Relaxed)
    }

    /// A move that decided its node: the first killer of its ply, and history credit.
    pub(super) fn reward(&self, side: usize, m: Move, d: u32, ply: usize) {
        let code = (m.from().index() as u16) << 8 | m.to().index() as u16;
        let k = &self.killers[ply.min(MAX_PLY)];
        let first = k[0].load(Relaxed);
        if first != code {
            k[1].store(first, Relaxed);
            k[0].store(code, Relaxed);
        }
        let h = &self.history[side * 8100 + move_index(m)];
        h.store(h.load(Relaxed).saturating_add(d * d), Relaxed);
    }
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics::new()
    }
}

pub(super) fn piece_value(kind: Kind) -> u32 {
    match kind {
        Kind::Chariot => 90,
        Kind::Cannon => 45,
        Kind::Horse => 40,
        Kind::Advisor | Kind::Elephant => 20,
        Kind::Soldier => 15,
        Kind::General => 0,
    }
}

#[inline]
pub(super) fn move_index(m: Move) -> usize {
    m.from().index() * 90 + m.to().index()
}

/// Moves the best-scored entry to the front and returns its move (selection, so that a
/// node cut off early does not pay for sorting everything).
#[inline]
pub(super) fn pick(scored: &mut [(u32, Move)]) -> Move {
    let mut best = 0;
    for i in 1..scored.len() {
        if scored[i].0 > scored[best].0 {
            best = i;
        }
    }
    scored.swap(0, best);
    scored[0].1
}
