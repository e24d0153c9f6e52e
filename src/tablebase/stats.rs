//! Counting legal positions of a layout without a table.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::index::{self, Layout, MAX_PIECES, Squares};
use crate::game::piece::Color;
use crate::game::position::Position;
use crate::game::square::Square;

/// Legal positions for red to move and for black to move, mirror images counted
/// separately.
pub fn count_legal(layout: &Layout) -> [u64; 2] {
    count_legal_with_progress(layout, &|_, _| {})
}

/// [`count_legal`], reporting (done, total) general placements as it goes.
pub fn count_legal_with_progress(
    layout: &Layout,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> [u64; 2] {
    let done = AtomicU64::new(0);
    let per_pair = layout.size() / index::GENERAL_PAIR_COUNT;
    let counts = [AtomicU64::new(0), AtomicU64::new(0)];
    let n = layout.pieces().len();
    (0..index::GENERAL_PAIR_COUNT)
        .into_par_iter()
        .for_each(|pair| {
            let weight = if index::pair_index_is_symmetric(pair) {
                1
            } else {
                2
            };
            let mut squares: Squares = [Square::new(0).expect("a0"); MAX_PIECES];
            let mut pos = Position::scratch();
            let mut local = [0u64; 2];
            for i in pair * per_pair..(pair + 1) * per_pair {
                if layout.squares(i, &mut squares).is_none() {
                    continue;
                }
                for turn in Color::ALL {
                    pos.set_placement(layout.pieces(), &squares[..n], turn);
                    if !pos.in_check(!turn) {
                        local[turn.index()] += weight;
                    }
                }
            }
            for c in 0..2 {
                counts[c].fetch_add(local[c], Relaxed);
            }
            let d = done.fetch_add(1, Relaxed) + 1;
            progress(d, index::GENERAL_PAIR_COUNT);
        });
    [counts[0].load(Relaxed), counts[1].load(Relaxed)]
}
