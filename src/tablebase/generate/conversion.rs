//! The natural move limit (自然限着): which wins by mate need more than a number of plies
//! (120: the CXA's 60 moves) before the next capture or mate.
//!
//! For a position decided by mate, its conversion distance is the number of plies to the
//! next capture or mate when the winner picks among its winning moves the one that
//! shortens it and the loser picks among all its moves the one that lengthens it; a capture
//! counts its own ply and ends the count, a mated position has 0. The pass runs backwards
//! in layers over one table, like the mate search, but stops at the limit: positions it
//! has not reached by then are over the limit. A win over the limit is a draw in practice
//! under the natural move limit (unless the winner can do better by converting into a win
//! that is itself within the limit in the next table, which this flag does not look at).

use super::*;
use crate::tablebase::bits::Bits;

const UNSET: u8 = u8::MAX;

/// The positions of one table whose win or loss by mate is over the move limit.
pub struct ConversionFlags {
    /// The limit in plies the flags are counted against.
    pub limit: u32,
    /// Per side to move, one bit per entry.
    pub(crate) over: [Bits; 2],
    /// Per side to move: wins over the limit, losses over the limit (mirror images counted).
    pub counts: [[u64; 2]; 2],
}

impl ConversionFlags {
    /// Whether the entry's win or loss by mate needs more than the limit to the next
    /// capture or mate.
    pub fn over(&self, turn: Color, index: u64) -> bool {
        self.over[turn.index()].get(index)
    }

    /// The bitmaps as little-endian words, red to move then black to move.
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.over
            .iter()
            .flat_map(|b| b.0.iter().map(|w| w.load(Relaxed)))
    }

    /// Flags from stored words (as [`ConversionFlags::words`] gives them) and counts.
    pub fn from_words(
        layout: &Layout,
        limit: u32,
        counts: [[u64; 2]; 2],
        words: &[u64],
    ) -> Option<ConversionFlags> {
        let per_side = layout.size().div_ceil(64) as usize;
        if words.len() != 2 * per_side {
            return None;
        }
        let over = [Bits::new(layout.size()), Bits::new(layout.size())];
        for (k, side) in over.iter().enumerate() {
            for (w, &x) in side.0.iter().zip(&words[k * per_side..(k + 1) * per_side]) {
                w.store(x, Relaxed);
            }
        }
        Some(ConversionFlags {
            limit,
            over,
            counts,
        })
    }
}

/// The conversion flags of a table (mate verdicts only; draws and verdicts by rule are
/// never flagged), computed from its values and its capture sub-tables in `tb`.
pub fn conversion_flags(
    table: &crate::tablebase::Table,
    tb: &Tablebase,
    limit: u32,
) -> Result<ConversionFlags, TableError> {
    let material: Material = table.header().material.parse().map_err(|_| {
        TableError::Unsupported(format!("{}: unreadable material", table.path().display()))
    })?;
    let mut red = table.checked_side(Color::Red)?.to_vec();
    let mut black = table.checked_side(Color::Black)?.to_vec();
    let flags = with_solver(material, tb, &mut red, &mut black, Clauses::WHOLE, |s| {
        s.conversion(limit)
    })?;
    Ok(flags)
}

impl Retrograde<'_> {
    fn conversion(&self, limit: u32) -> Result<ConversionFlags, TableError> {
        let size = self.layout.size();
        let dist: [Vec<AtomicU8>; 2] =
            std::array::from_fn(|_| (0..size).map(|_| AtomicU8::new(UNSET)).collect());
        let counter: [Vec<AtomicU8>; 2] =
            std::array::from_fn(|_| (0..size).map(|_| AtomicU8::new(0)).collect());
        // the first layer: mates, winning captures, losers whose every move captures
        (0..self.chunks())
            .into_par_iter()
            .for_each_init(Scratch::new, |s, chunk| {
                let start = chunk * CHUNK;
                let end = (start + CHUNK).min(size);
                for i in start..end {
                    for turn in Color::ALL {
                        let c = self.values[turn.index()][i as usize].load(Relaxed);
                        if !code::is_decided(c) || !self.set_up(s, i, turn) {
                            continue;
                        }
                        let legality = self.generate_moves(s);
                        let (mut quiet, mut legal, mut converts) = (0u32, false, false);
                        for k in 0..s.moves.len() {
                            let m = s.moves[k];
                            if !legality.move_is_legal(&s.pos, m) {
                                continue;
                            }
                            legal = true;
                            if s.pos.piece_at(m.to()).is_none() {
                                quiet += 1;
                            } else if code::is_loss(self.capture_code(s, m)) {
                                converts = true;
                            }
                        }
                        let d = &dist[turn.index()][i as usize];
                        if code::is_win(c) {
                            if converts {
                                d.store(1, Relaxed);
                            }
                        } else if !legal {
                            d.store(0, Relaxed);
                        } else if quiet == 0 {
                            d.store(1, Relaxed);
                        } else if quiet >= UNSET as u32 {
                            self.fail(TableError::Unsupported(format!(
                                "{}: entry {i} has {quiet} quiet moves, outside the counters",
                                self.layout.material()
                            )));
                        } else {
                            counter[turn.index()][i as usize].store(quiet as u8, Relaxed);
                        }
                    }
                }
            });
        self.check_failed()?;
        let found = [Bits::new(size), Bits::new(size)];
        for d in 1..=limit.min(UNSET as u32 - 1) {
            let mut any = false;
            for turn in Color::ALL {
                let f = &found[turn.index()];
                let cells = &dist[turn.index()];
                f.0.par_iter().enumerate().for_each(|(w, word)| {
                    let mut bits = 0u64;
                    for b in 0..64 {
                        let i = w * 64 + b;
                        if i < size as usize && cells[i].load(Relaxed) == (d - 1) as u8 {
                            bits |= 1 << b;
                        }
                    }
                    word.store(bits, Relaxed);
                });
                any |= f.count() > 0;
            }
            if !any {
                break;
            }
            for turn in Color::ALL {
                let parents = self.values[(!turn).index()];
                let pd = &dist[(!turn).index()];
                let pc = &counter[(!turn).index()];
                let f = &found[turn.index()];
                self.for_members(f, turn, |s, i| {
                    let child = self.values[turn.index()][i as usize].load(Relaxed);
                    let list = self.collect_parents(s, i, turn, parents);
                    for &p in &list {
                        let c = parents[p as usize].load(Relaxed);
                        let cell = &pd[p as usize];
                        if code::is_loss(child) && code::is_win(c) {
                            // a winning move into a loss: the first is the shortest
                            let _ = cell.compare_exchange(UNSET, d as u8, Relaxed, Relaxed);
                        } else if code::is_win(child)
                            && code::is_loss(c)
                            && cell.load(Relaxed) == UNSET
                            && pc[p as usize].fetch_sub(1, Relaxed) == 1
                        {
                            // the last of the loser's quiet moves: the longest
                            cell.store(d as u8, Relaxed);
                        }
                    }
                    s.parents = list;
                });
            }
        }
        let over = [Bits::new(size), Bits::new(size)];
        let per_pair = size / index::GENERAL_PAIR_COUNT;
        let mut counts = [[0u64; 2]; 2];
        for turn in Color::ALL {
            let t = turn.index();
            let side = &over[t];
            let c = (0..index::GENERAL_PAIR_COUNT)
                .into_par_iter()
                .map(|pair| {
                    let weight = if index::pair_index_is_symmetric(pair) {
                        1
                    } else {
                        2
                    };
                    let mut n = [0u64; 2];
                    for i in pair * per_pair..(pair + 1) * per_pair {
                        let c = self.values[t][i as usize].load(Relaxed);
                        if code::is_decided(c) && dist[t][i as usize].load(Relaxed) == UNSET {
                            side.set(i);
                            n[code::is_loss(c) as usize] += weight;
                        }
                    }
                    n
                })
                .reduce(|| [0, 0], |a, b| [a[0] + b[0], a[1] + b[1]]);
            counts[t] = c;
        }
        Ok(ConversionFlags {
            limit,
            over,
            counts,
        })
    }
}
