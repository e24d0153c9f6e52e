//! The perpetual-check rule (长将作负) on top of a finished mate search: the pass that makes
//! a table of rule set `asian`.
//!
//! A forced mate never needs a repetition, so every mate the search found stands, with its
//! distance. Only drawn positions can change. For each colour W in turn, the pass finds the
//! positions W wins under the rule: W reaches mate, or the game goes on forever with the
//! loser L checking on every move from some point on while W does not (when both check on
//! every move it stays a draw; one check and one idle move is allowed). In game terms it is
//! a parity game on the drawn positions, a move's priority being whether it checks, and its
//! solution is built in stages:
//!
//! 1. The attractor: every position from which W forces a position already won (W to move
//!    with a move into a win; L to move with every move into a win). Computed backwards with
//!    a counter per L-to-move position of its moves not yet known to lose, as in the mate
//!    search.
//! 2. The trap: the greatest set of L-to-move positions where every move that does not
//!    check loses, and W answers every check from the set so that, within finitely many of
//!    its own checks, W makes a move that does not check and leads back into the set
//!    (νY. μZ: Y the trap, Z the positions from which W reaches a quiet move into Y while
//!    answering checks within Z). L there must check forever or lose. Only positions where
//!    every quiet escape of L loses can belong, so the search starts from those few.
//! 3. The trap's positions are won for W (a loss by rule for L), and step 1 runs again
//!    from them; the stages repeat until a trap comes out empty.
//!
//! Under the whole rule (`asian`) a stage finds two traps, the one above and the trap of
//! perpetual attack (长打: every move of L that is not 打 loses, and W comes back with an
//! idle move), but the stages of the first alone come first, until one finds nothing: they
//! need no test for 杀 or 捉, the costly part, and decide nearly every position the whole
//! rule does. Their wins are the whole rule's as well, and the stages that follow stop only
//! at its least solution, so no verdict depends on the order; the levels do.
//!
//! Levels: a rule verdict stores the stage that found it (0 for the first attractor, which
//! only captures into a sub-table's wins by rule can feed; k after the k-th trap, counted
//! through both phases under `asian`). The sets
//! of each stage are unique fixpoints, so the bytes do not depend on the number of threads.
//! There is no distance: a progress measure that lets the winner realise the win needs the
//! stage first and plies within it, which one-byte entries cannot hold.
//!
//! Memory, beyond the two sides' values: while W's stages run, L's values are kept aside
//! compressed and L's bytes hold the counters, with a candidate's marks in two bits of its
//! byte; a bit per entry of each side (L's positions to look at again, which holds the trap
//! while it is computed; W's positions whose moves into candidates are listed); the
//! generator's two `found` sets (`Retrograde`; a bit per entry, allocated for tables with
//! the rule only) serve as frontiers; and the candidates' rows and W's moves into them, with
//! 32-bit indices where a side has at most 2^32 entries and one byte for a row's length.
//! Large blocks are mapped on their own ([`map_large_allocations`]) so that they grow in
//! place and go back to the system when freed.
//! Counting is lazy when W wins nothing yet and in the second pass, and a pass is skipped
//! where L cannot check and no capture reaches a verdict by rule (armless defenders: most
//! of the 马兵对士象全 family).

use super::*;
use crate::tablebase::bits::Bits;

// While W's stages run, the loser's values are kept aside (compressed) and the loser's
// bytes hold the pass's own state:
/// Not drawn when the pass began: the value kept aside stands.
const SETTLED: u8 = 0;
/// Drawn, with 1..=MAX_OPEN moves not yet known to lose; plus [`CAND`] or [`CHECK_CAND`]
/// when a candidate for a trap.
const MAX_OPEN: u8 = 63;
/// In a drawn position's byte: a candidate for a trap, every move that is no hit loses.
const CAND: u8 = 64;
/// In a drawn position's byte: a candidate for a trap of perpetual check, every move that
/// does not check loses (under `asian`, where a hit need not check; such a position is a
/// candidate too).
const CHECK_CAND: u8 = 128;
/// Drawn, and a capture escapes into a position that does not lose: never forced.
const NEVER: u8 = 200;
/// Lost by rule at level k: `LOST + k`.
const LOST: u8 = 201;
/// Not drawn, and won in one ply: settled, and the loser, to move there, may have a mate
/// next move (what a threat of mate, 杀, needs), not asked yet; asked once, it becomes
/// [`MATE_THREAT`] or [`NO_MATE`] (see [`Retrograde::threatens_mate`]).
const MATES_NEXT: u8 = u8::MAX - 2;
/// Drawn, its moves not counted yet.
const TO_COUNT: u8 = u8::MAX - 1;
/// Not drawn: the loser, to move there, has no legal move (lost in 0 plies), mated when
/// in check (what [`Retrograde::mates_by_table`] reads).
const MATED: u8 = u8::MAX - 3;
/// A [`MATES_NEXT`] position once asked (settled): the loser, to move there, has a move
/// that mates.
const MATE_THREAT: u8 = u8::MAX - 4;
/// A [`MATES_NEXT`] position once asked (settled): the loser, to move there, wins in one
/// ply only by leaving the other side no move without check, which is no mate.
const NO_MATE: u8 = u8::MAX - 5;
/// Drawn, its moves not counted yet ([`TO_COUNT`]), and a move that is no 打 at all leads
/// into a position not won: found by the first look while the traps of perpetual check
/// alone come first, so that the whole rule's first look passes it by (W wins nothing in
/// between, so the move still escapes).
const FREE: u8 = u8::MAX - 6;
const _: () = assert!(CHECK_CAND + MAX_OPEN < NEVER);
const _: () = assert!(LOST as u32 + code::MAX_RULE_LEVEL < FREE as u32);

/// The points a side's advisors and elephants can stand on (its palace's five, its half's
/// seven), where alone they can capture.
fn guard_points(c: Color) -> u128 {
    static POINTS: std::sync::OnceLock<[u128; 2]> = std::sync::OnceLock::new();
    POINTS.get_or_init(|| {
        Color::ALL.map(|color| {
            crate::game::square::Square::all()
                .filter(|&sq| {
                    [
                        crate::game::piece::Kind::Advisor,
                        crate::game::piece::Kind::Elephant,
                    ]
                    .iter()
                    .any(|&kind| crate::game::piece::Piece { color, kind }.can_stand_on(sq))
                })
                .fold(0u128, |bits, sq| bits | 1u128 << sq.index())
        })
    })[c.index()]
}

/// Entries per block of the values kept aside.
const ASIDE_BLOCK: usize = 1 << 20;

/// Whether a code of a position with W to move (of this table, or of a sub-table after a
/// capture) is won for W: by mate or by rule (positions found in a stage get their level's
/// code at once).
#[inline]
fn won(c: u8) -> bool {
    code::wins(c)
}

/// Whether a loser's byte (during the winner's stages) is a drawn position whose moves can
/// still all come to lose.
#[inline]
fn open(c: u8) -> bool {
    c <= CHECK_CAND + MAX_OPEN && c & MAX_OPEN != 0
}

/// Whether a loser's byte (during the winner's stages) is a candidate for a trap.
#[inline]
fn is_cand(c: u8) -> bool {
    c & (CAND | CHECK_CAND) != 0
}

/// Whether a loser's byte (during the winner's stages) is a candidate for a trap of
/// perpetual check.
#[inline]
fn is_check_cand(c: u8) -> bool {
    c & CHECK_CAND != 0
}

/// What a winner's stages need besides the values: a set of each side's entries (the
/// solver's two `found` sets serve as the frontiers).
struct Work {
    /// L-to-move positions one of whose moves that do not check newly lost; between the
    /// candidates' update and the next attractor, the trap (the fixpoint's Y while it is
    /// computed).
    dirty: Bits,
    /// W-to-move positions whose moves into candidates [`WMoves`] lists (kept from stage to
    /// stage of one winner).
    listed: Bits,
}

/// The candidates for a trap, each with the drawn W positions its quiet moves lead to
/// (checks all: its other quiet moves lose), in compressed rows in no particular order.
/// Kept from stage to stage of one winner and pruned as positions are decided, so that a
/// candidate's moves are generated once. A candidate one of whose moves escapes into a
/// position the loser wins can never be trapped and gets no row.
///
/// A row is never empty: it holds every move of its candidate into a position not won
/// (a candidate with none is lost, and one with a move into a position the loser wins has
/// no row), and an entry leaves it only when the position it leads to is won, which
/// counts the candidate's moves down by one; so its rows end as it is decided. Where each
/// row starts is a bit an entry.
struct Rows<S> {
    nodes: Vec<S>,
    /// Bit `j % 64` of word `j / 64`: entry `j` of `adj` is the first of its row.
    first: Vec<u64>,
    /// Where every [`ROW_GROUP`]-th row starts in `adj`.
    start: Vec<u32>,
    adj: Vec<S>,
}

/// The row starts of [`Rows`] after a given entry, one after the other, read from its marks
/// (`Rows::first`). It holds no borrow of them, so that pruning can read the old marks
/// ahead of its writes.
struct Starts {
    /// The word being read, and what is left of it.
    w: usize,
    word: u64,
}

impl Starts {
    /// The starts after entry `at`.
    #[inline]
    fn after(first: &[u64], at: usize) -> Starts {
        let w = (at + 1) / 64;
        let word = first
            .get(w)
            .map_or(0, |&word| word & (u64::MAX << ((at + 1) % 64)));
        Starts { w, word }
    }

    /// The next row start, or `end` (where the last row ends) past the last.
    #[inline]
    fn next(&mut self, first: &[u64], end: usize) -> usize {
        while self.word == 0 {
            self.w += 1;
            match first.get(self.w) {
                Some(&word) => self.word = word,
                None => return end,
            }
        }
        let at = self.w * 64 + self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        at
    }
}

/// Rows per stored start in [`Rows`]: as many as a word has bits, so that a set of rows
/// is a word per group ([`Rows::sweep_rows`]).
const ROW_GROUP: usize = 64;

/// An entry index as [`Rows`] stores it: in 32 bits where the table's sides allow.
trait Slot: Copy + Ord + Send + Sync {
    fn of(index: u64) -> Self;
    fn index(self) -> u64;
}

impl Slot for u32 {
    #[inline]
    fn of(index: u64) -> u32 {
        index as u32
    }
    #[inline]
    fn index(self) -> u64 {
        self as u64
    }
}

impl Slot for u64 {
    #[inline]
    fn of(index: u64) -> u64 {
        index
    }
    #[inline]
    fn index(self) -> u64 {
        self
    }
}

impl<S: Slot> Rows<S> {
    fn new() -> Rows<S> {
        Rows {
            nodes: Vec::new(),
            first: Vec::new(),
            start: Vec::new(),
            adj: Vec::new(),
        }
    }

    /// Where the row `n` rows after the one starting at `at` starts (the end of `adj`
    /// past the last row).
    fn skip_rows(&self, at: usize, n: usize) -> usize {
        let mut starts = Starts::after(&self.first, at);
        (0..n).fold(at, |_, _| starts.next(&self.first, self.adj.len()))
    }

    /// Where row `k`'s entries start in `adj`.
    fn row_start(&self, k: usize) -> usize {
        let g = k / ROW_GROUP;
        self.skip_rows(self.start[g] as usize, k - g * ROW_GROUP)
    }

    /// Row `k`'s entries.
    #[cfg(test)]
    fn row(&self, k: usize) -> &[S] {
        let at = self.row_start(k);
        &self.adj[at..self.skip_rows(at, 1)]
    }

    /// Calls `f` with each row's node and entries, in parallel by groups of rows.
    #[cfg(test)]
    fn for_each_row(&self, f: impl Fn(S, &[S]) + Sync) {
        self.start.par_iter().enumerate().for_each(|(g, &at)| {
            let mut at = at as usize;
            for k in g * ROW_GROUP..((g + 1) * ROW_GROUP).min(self.nodes.len()) {
                let end = self.skip_rows(at, 1);
                f(self.nodes[k], &self.adj[at..end]);
                at = end;
            }
        });
    }

    /// Calls `f` with the bit, node and entries of each row of group `g` (its entries
    /// starting at `at`) whose bit is set in `word`.
    #[inline]
    fn walk_group(&self, g: usize, at: u32, word: u64, mut f: impl FnMut(u32, S, &[S])) {
        let base = g * ROW_GROUP;
        let (mut left, mut at, mut k) = (word, at as usize, base);
        let mut starts = Starts::after(&self.first, at);
        let last = self.adj.len();
        while left != 0 {
            let bit = left.trailing_zeros();
            left &= left - 1;
            let next = base + bit as usize;
            for _ in k..next {
                at = starts.next(&self.first, last);
            }
            let end = starts.next(&self.first, last);
            f(bit, self.nodes[next], &self.adj[at..end]);
            at = end;
            k = next + 1;
        }
    }

    /// Calls `f` with the node and entries of each row whose bit is set in `words` (a word
    /// per group of [`ROW_GROUP`] rows), in parallel by groups.
    #[cfg(test)]
    fn for_each_row_in(&self, words: &[u64], f: impl Fn(S, &[S]) + Sync) {
        self.start.par_iter().enumerate().for_each(|(g, &at)| {
            self.walk_group(g, at, words[g], |_, n, row| f(n, row));
        });
    }

    /// Calls `f` with the entries of each row whose bit is set in `words`, in parallel by
    /// groups, and clears the bits of the rows for which it returns true, adding their
    /// nodes to the set of `marks` (with `true`) or taking them out of it (`false`);
    /// returns whether it did for any.
    fn sweep_rows(
        &self,
        words: &mut [u64],
        marks: Option<(&Bits, bool)>,
        f: impl Fn(&[S]) -> bool + Sync,
    ) -> bool {
        self.start
            .par_iter()
            .zip(words.par_iter_mut())
            .enumerate()
            .map(|(g, (&at, word))| {
                let before = *word;
                let mut writes = marks.map(|(bits, set)| WordWrites::new(bits, set));
                self.walk_group(g, at, before, |bit, n, row| {
                    if f(row) {
                        *word &= !(1 << bit);
                        if let Some(writes) = &mut writes {
                            writes.put(n.index());
                        }
                    }
                });
                *word != before
            })
            .reduce(|| false, |a, b| a || b)
    }

    /// Adds the nodes of the rows whose bit is set in `words` to `marks` (with `set`) or
    /// takes them out, in parallel by groups.
    fn mark_rows(&self, words: &[u64], marks: &Bits, set: bool) {
        self.start.par_iter().enumerate().for_each(|(g, &at)| {
            let mut writes = WordWrites::new(marks, set);
            self.walk_group(g, at, words[g], |_, n, _| writes.put(n.index()));
        });
    }

    /// Sets the groups' starts from the rows' first entries.
    fn restart(&mut self) {
        self.start.clear();
        self.start
            .reserve_exact(self.nodes.len().div_ceil(ROW_GROUP));
        // the rows k.. start in word w: those whose number is a multiple of ROW_GROUP
        // begin a group
        let mut k: usize = 0;
        for (w, &word) in self.first.iter().enumerate() {
            let here = word.count_ones() as usize;
            let mut g = k.next_multiple_of(ROW_GROUP);
            while g < k + here {
                let mut pick = word;
                for _ in 0..g - k {
                    pick &= pick - 1;
                }
                self.start
                    .push((w * 64 + pick.trailing_zeros() as usize) as u32);
                g += ROW_GROUP;
            }
            k += here;
        }
        debug_assert_eq!(k, self.nodes.len(), "a row start for every node");
    }

    /// Among the rows from the `first` on, drops those of nodes that fail `keep_node` and
    /// the entries that fail `keep_adj`. A row that keeps its node keeps an entry (see
    /// [`Rows`]).
    fn prune(
        &mut self,
        first: usize,
        keep_node: impl Fn(u64) -> bool + Sync,
        keep_adj: impl Fn(u64) -> bool + Sync,
    ) {
        if first >= self.nodes.len() {
            return;
        }
        let base = self.row_start(first);
        // the tests first, in parallel, one bit each
        let nodes = keep_bits(&self.nodes[first..], keep_node);
        let adj = keep_bits(&self.adj[base..], keep_adj);
        let (mut n, mut e) = (first, base);
        // row k's entries start where row k − 1's ended before compaction; its marks are
        // read before any is written there (a row is written at or before where it was)
        let mut from = base;
        // the next row start after `from`, read ahead of any write (writes stay below it)
        let mut starts = Starts::after(&self.first, base);
        let last = self.adj.len();
        let mut k = first;
        while k < self.nodes.len() {
            // a group of rows kept whole (most of them, once few positions are decided a
            // stage) moves at once, its marks with it (`self.start` still holds where the
            // groups began)
            let g = k / ROW_GROUP;
            if k == g * ROW_GROUP && k + ROW_GROUP <= self.nodes.len() {
                let end = self.start.get(g + 1).map_or(last, |&at| at as usize);
                if all_set(&nodes, k - first, k - first + ROW_GROUP)
                    && all_set(&adj, from - base, end - base)
                {
                    if n != k {
                        self.nodes.copy_within(k..k + ROW_GROUP, n);
                    }
                    if e != from {
                        self.adj.copy_within(from..end, e);
                        copy_bits(&mut self.first, from, e, end - from);
                    }
                    (n, e, from, k) = (n + ROW_GROUP, e + end - from, end, k + ROW_GROUP);
                    starts = Starts::after(&self.first, end);
                    continue;
                }
            }
            // one row
            let row_k = k;
            k += 1;
            let to = starts.next(&self.first, last);
            let row = from..to;
            from = to;
            if !bit(&nodes, row_k - first) {
                continue;
            }
            self.nodes[n] = self.nodes[row_k];
            let at = e;
            for j in row {
                if bit(&adj, j - base) {
                    self.adj[e] = self.adj[j];
                    e += 1;
                }
            }
            assert!(
                e > at,
                "a candidate kept with every check of its row decided"
            );
            write_bits(&mut self.first, at, 1, 1);
            let mut j = at + 1;
            while j < e {
                let c = (e - j).min(64);
                write_bits(&mut self.first, j, c, 0);
                j += c;
            }
            n += 1;
        }
        self.nodes.truncate(n);
        self.adj.truncate(e);
        self.first.truncate(e.div_ceil(64));
        if !e.is_multiple_of(64) {
            self.first[e / 64] &= (1 << (e % 64)) - 1;
        }
        self.restart();
    }

    /// Adds rows gathered by several threads.
    fn append(&mut self, parts: Vec<Rows<S>>) -> Result<(), String> {
        let total = self.adj.len() + parts.iter().map(|p| p.adj.len()).sum::<usize>();
        if u32::try_from(total).is_err() {
            return Err(format!(
                "{total} checks of trap candidates, more than the generator's rows hold"
            ));
        }
        // exactly what the rows need: growth by doubling would hold up to twice that
        let nodes = parts.iter().map(|p| p.nodes.len()).sum::<usize>();
        self.nodes.reserve_exact(nodes);
        self.adj.reserve_exact(total - self.adj.len());
        self.first
            .reserve_exact(total.div_ceil(64) - self.first.len());
        // the parts' memory goes back to the system as they are copied, so that the rows
        // are not held twice over
        let mut give_back = GiveBack::default();
        for part in parts {
            let at = self.adj.len();
            self.nodes.extend_from_slice(&part.nodes);
            self.adj.extend_from_slice(&part.adj);
            // the part's marks, shifted to where its entries now are
            self.first.resize(self.adj.len().div_ceil(64), 0);
            let shift = at % 64;
            for (w, &word) in part.first.iter().enumerate() {
                let to = at / 64 + w;
                self.first[to] |= word << shift;
                if shift > 0 && word >> (64 - shift) != 0 {
                    self.first[to + 1] |= word >> (64 - shift);
                }
            }
            let bytes = (part.adj.len() + part.nodes.len()) * std::mem::size_of::<S>();
            drop(part);
            give_back.freed(bytes);
        }
        self.restart();
        Ok(())
    }

    /// The memory its vectors hold.
    fn bytes(&self) -> usize {
        (self.nodes.capacity() + self.adj.capacity()) * std::mem::size_of::<S>()
            + self.first.capacity() * 8
            + self.start.capacity() * 4
    }

    /// Gives back the room its vectors grew beyond what they hold.
    fn shrink(&mut self) {
        self.nodes.shrink_to_fit();
        self.first.shrink_to_fit();
        self.start.shrink_to_fit();
        self.adj.shrink_to_fit();
    }

    /// Adds a row: `node` and the indices in `adj`, at least one (see [`Rows`]).
    fn push(&mut self, node: u64, adj: &[u64]) {
        assert!(!adj.is_empty(), "a candidate's row with no check in it");
        let at = self.adj.len();
        if self.nodes.len().is_multiple_of(ROW_GROUP) {
            self.start.push(at as u32);
        }
        self.nodes.push(S::of(node));
        self.adj.extend(adj.iter().map(|&a| S::of(a)));
        self.first.resize(self.adj.len().div_ceil(64), 0);
        self.first[at / 64] |= 1 << (at % 64);
    }
}

/// Every one of `n` rows, a bit a row (as [`keep_bits`] gives them).
fn all_rows(n: usize) -> Vec<u64> {
    let mut words = vec![u64::MAX; n.div_ceil(64)];
    if !n.is_multiple_of(64) {
        words[n / 64] = (1 << (n % 64)) - 1;
    }
    words
}

/// Whether each index passes `keep`, one bit each (bit `k % 64` of word `k / 64`).
fn keep_bits<S: Slot>(items: &[S], keep: impl Fn(u64) -> bool + Sync) -> Vec<u64> {
    keep_among(items, &all_rows(items.len()), keep)
}

/// Which of the items whose bit is set in `among` (as [`keep_bits`] gives them) pass
/// `keep`, in the same form.
fn keep_among<S: Slot>(items: &[S], among: &[u64], keep: impl Fn(u64) -> bool + Sync) -> Vec<u64> {
    items
        .par_chunks(64)
        .zip(among)
        .map(|(chunk, &word)| {
            let (mut left, mut kept) = (word, 0);
            while left != 0 {
                let b = left.trailing_zeros();
                left &= left - 1;
                kept |= u64::from(keep(chunk[b as usize].index())) << b;
            }
            kept
        })
        .collect()
}

#[inline]
fn bit(words: &[u64], k: usize) -> bool {
    words[k / 64] >> (k % 64) & 1 != 0
}

/// Adds the positions of `items` to `bits`, in parallel. Runs of them in one word (the
/// rows' nodes come in ascending runs, a stage's at a time) take one write.
fn set_all<S: Slot>(bits: &Bits, items: &[S]) {
    items.par_chunks(1 << 12).for_each(|chunk| {
        let mut writes = WordWrites::new(bits, true);
        for &item in chunk {
            writes.put(item.index());
        }
    });
}

/// Writes to a bit set gathered a word at a time: positions that come in ascending runs
/// (the rows' nodes) fall several to a word and take one atomic write, and none where
/// the word already says so. The last word is written when it is dropped.
struct WordWrites<'a> {
    bits: &'a Bits,
    /// Sets the bits, or clears them.
    set: bool,
    word: usize,
    mask: u64,
}

impl<'a> WordWrites<'a> {
    fn new(bits: &'a Bits, set: bool) -> Self {
        WordWrites {
            bits,
            set,
            word: 0,
            mask: 0,
        }
    }

    #[inline]
    fn put(&mut self, i: u64) {
        let word = (i / 64) as usize;
        if word != self.word {
            self.flush();
            self.word = word;
        }
        self.mask |= 1 << (i % 64);
    }

    fn flush(&mut self) {
        let mask = std::mem::take(&mut self.mask);
        if mask == 0 {
            return;
        }
        let word = &self.bits.0[self.word];
        let now = word.load(Relaxed);
        if self.set && now & mask != mask {
            word.fetch_or(mask, Relaxed);
        } else if !self.set && now & mask != 0 {
            word.fetch_and(!mask, Relaxed);
        }
    }
}

impl Drop for WordWrites<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The `c` bits (at most 64) of `words` from bit `at` on, as the low bits of a word.
#[inline]
fn read_bits(words: &[u64], at: usize, c: usize) -> u64 {
    let (w, o) = (at / 64, at % 64);
    let mut v = words[w] >> o;
    if o + c > 64 {
        v |= words[w + 1] << (64 - o);
    }
    v & low_mask(c)
}

/// Sets the `c` bits (at most 64) of `words` from bit `at` on to the low bits of `v`.
#[inline]
fn write_bits(words: &mut [u64], at: usize, c: usize, v: u64) {
    let (w, o, mask) = (at / 64, at % 64, low_mask(c));
    let v = v & mask;
    words[w] = words[w] & !(mask << o) | v << o;
    if o + c > 64 {
        let high = low_mask(o + c - 64);
        words[w + 1] = words[w + 1] & !high | v >> (64 - o);
    }
}

/// The word with the low `c` bits set (`c` at most 64).
#[inline]
fn low_mask(c: usize) -> u64 {
    if c == 64 { u64::MAX } else { (1 << c) - 1 }
}

/// Whether bits `lo..hi` of `words` are all set.
fn all_set(words: &[u64], lo: usize, hi: usize) -> bool {
    let mut at = lo;
    while at < hi {
        let c = (hi - at).min(64);
        if read_bits(words, at, c) != low_mask(c) {
            return false;
        }
        at += c;
    }
    true
}

/// Copies `len` bits of `words` from bit `from` on to bit `to` on, `to` not after
/// `from` (each piece is read before a write can reach it).
fn copy_bits(words: &mut [u64], from: usize, to: usize, len: usize) {
    debug_assert!(to <= from);
    let mut i = 0;
    while i < len {
        let c = (len - i).min(64);
        let v = read_bits(words, from + i, c);
        write_bits(words, to + i, c, v);
        i += c;
    }
}

/// The moves of the W positions the candidates' checks lead to into candidates, as
/// (W position, candidate) pairs, by kind; those W positions are [`Work::listed`]. Kept
/// from stage to stage of one winner like [`Rows`].
struct WMoves<S> {
    /// Moves that are no hit: no check, and under `asian` not 打 either.
    quiet: Vec<(S, S)>,
    checks: Vec<(S, S)>,
    /// Under `asian`: moves that are 打 without checking (杀, 捉).
    chases: Vec<(S, S)>,
    /// By slot, for W's pieces (but one of several alike): the positions listed so far
    /// with that piece left out ([`crate::tablebase::index::Layout::without_slot`]; with
    /// the generals left out, mirrored as well). A candidate that is not here with that
    /// piece left out has no listed predecessor by a move of that piece, whose un-moves are
    /// then not walked.
    listed_without: Vec<Option<Bits>>,
}

/// How many parts [`Retrograde::update_w_moves`] gathers the new moves in, one after the
/// other: each part is held twice over (gathered, and copied) for a moment.
const MOVE_BATCHES: usize = 8;

impl<S: Copy> WMoves<S> {
    /// Gives back the room its lists grew beyond what they hold.
    fn shrink(&mut self) {
        self.quiet.shrink_to_fit();
        self.checks.shrink_to_fit();
        self.chases.shrink_to_fit();
    }

    /// Adds the moves gathered by several threads.
    fn add(&mut self, parts: Vec<MovePairs<S>>) {
        // exactly the room the lists need: growth by doubling would hold up to twice that
        self.quiet
            .reserve_exact(parts.iter().map(|a| a.0.len()).sum());
        self.checks
            .reserve_exact(parts.iter().map(|a| a.1.len()).sum());
        self.chases
            .reserve_exact(parts.iter().map(|a| a.2.len()).sum());
        // the parts' memory goes back to the system as they are copied
        let mut give_back = GiveBack::default();
        for (quiet, checks, chases) in parts {
            self.quiet.extend_from_slice(&quiet);
            self.checks.extend_from_slice(&checks);
            self.chases.extend_from_slice(&chases);
            let pairs = quiet.len() + checks.len() + chases.len();
            drop((quiet, checks, chases));
            give_back.freed(pairs * std::mem::size_of::<(S, S)>());
        }
        give_back_freed_memory();
    }

    /// The memory its vectors hold.
    fn bytes(&self) -> usize {
        (self.quiet.capacity() + self.checks.capacity() + self.chases.capacity())
            * std::mem::size_of::<(S, S)>()
    }
}

/// Quiet moves and checks into candidates, gathered by one thread.
type MovePairs<S> = (Vec<(S, S)>, Vec<(S, S)>, Vec<(S, S)>);

/// The pairs gathered, without their room to grow.
fn compact_pairs<S>(mut pairs: MovePairs<S>) -> MovePairs<S> {
    pairs.0.shrink_to_fit();
    pairs.1.shrink_to_fit();
    pairs.2.shrink_to_fit();
    pairs
}

/// What a chunk of a parallel pass gathers, made compact as soon as the chunk is done (so
/// that the chunks' growth room is never held all at once).
trait Gathered: Send {
    fn compact(&mut self) {}
}

impl Gathered for () {}

impl<S: Slot> Gathered for Rows<S> {
    fn compact(&mut self) {
        self.shrink();
    }
}

/// The chunks' rows, the empty ones left out.
fn non_empty<S: Slot>(parts: Vec<Rows<S>>) -> Vec<Rows<S>> {
    parts.into_iter().filter(|r| !r.nodes.is_empty()).collect()
}

/// How a loser's position escapes by a quiet move into a position not won (see
/// [`Retrograde::quiet_escape`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// By none: every such move is a hit (or there is none).
    None,
    /// By a move that does not check, each such move 打 all the same.
    Quiet,
    /// By a move that is no hit at all.
    Free,
}

/// What [`Retrograde::open_moves`] finds about a loser's position.
struct Open {
    /// Its moves into positions not won for W.
    count: u8,
    /// One of them is no hit (does not check; under `asian`, is not 打).
    quiet_escape: bool,
    /// One of them does not check (asked under `asian` only).
    check_escape: bool,
    /// One of them leads to a position L wins: it can never be trapped.
    loser_wins: bool,
}

/// A side's values kept aside, compressed in blocks, while its bytes hold a pass's state.
struct Aside(Vec<Vec<u8>>);

impl Retrograde<'_> {
    /// Applies the perpetual-check rule to the finished mate search, both colours as the
    /// winner in turn (black alone when `red_done`: a resumed build); `checkpoint` runs
    /// after red's turn.
    pub(super) fn apply_perpetual_check(
        &self,
        progress: &dyn Progress,
        red_done: bool,
        checkpoint: &dyn Fn(super::Phase) -> Result<(), TableError>,
    ) -> Result<(), TableError> {
        map_large_allocations();
        let size = self.layout.size();
        let work = Work {
            dirty: Bits::new(size),
            listed: Bits::new(size),
        };
        // a capture can only reach a verdict by rule where its sub-table holds some: which
        // colours' pieces, when taken, lead there
        let mut sub_rules = [false; 2];
        for (target, piece) in self.captures.iter().zip(&self.pieces) {
            if let Some(target) = target {
                sub_rules[piece.color.index()] |= target.table.any_code(code::is_rule)?;
            }
        }
        for winner in Color::ALL {
            if winner == Color::Red && red_done {
                continue;
            }
            if size <= 1 << 32 {
                self.rule_wins::<u32>(winner, &work, sub_rules, progress)?;
            } else {
                self.rule_wins::<u64>(winner, &work, sub_rules, progress)?;
            }
            if winner == Color::Red {
                checkpoint(super::Phase::RedRuleWins)?;
            }
        }
        Ok(())
    }

    /// Calls `f` with each pseudo-legal quiet move of the position in `s` (entry `index`)
    /// and the index of the position it leads to, until `f` returns false. An illegal move
    /// leads to an entry coded [`code::ILLEGAL`] (the mover's general attacked): `f` tells
    /// the legal ones by the value it looks at.
    #[inline]
    fn each_quiet_move(
        &self,
        s: &mut Scratch,
        index: u64,
        mut f: impl FnMut(&mut Scratch, crate::game::moves::Move, u64) -> bool,
    ) {
        let turn = s.pos.turn();
        let n = self.pieces.len();
        let squares = s.squares;
        // piece by piece, so that an early stop spares the other pieces' moves; what a
        // piece's entries share is worked out once
        for slot in 0..n {
            if self.pieces[slot].color != turn {
                continue;
            }
            s.moves.clear();
            s.pos.pseudo_moves_from(squares[slot], &mut s.moves);
            if s.moves.is_empty() {
                continue;
            }
            let moves = self.layout.slot_moves(index, &squares[..n], slot);
            for k in 0..s.moves.len() {
                let m = s.moves[k];
                if s.pos.piece_at(m.to()).is_some() {
                    continue;
                }
                if !f(s, m, moves.index_to(m.to())) {
                    return;
                }
            }
        }
    }

    /// Whether a move of the position in `s` is a hit: the kind of move the rule set
    /// forbids to repeat forever (a check under `check-only`; 将, 杀 or 捉 under `asian`).
    /// `child` is the entry it leads to (a quiet move), `w` the winner of the pass.
    #[inline]
    fn hits(&self, s: &mut Scratch, m: crate::game::moves::Move, child: u64, w: Color) -> bool {
        self.hit_kind(s, m, child, w, true) != Some(false)
    }

    /// What a quiet move of the position in `s` is, made and taken back once: `None` when
    /// it checks, else whether it is 打 all the same (杀 or 捉 of a kind the pass counts,
    /// see [`Clauses`]; never under rule sets other than `asian`), asked only with
    /// `attack` (false without). `child` is the entry it leads to and `w` the winner of the
    /// pass: the threat of mate is looked for only where the mover, to move again there,
    /// wins in one ply (see [`Self::threatens_mate`]).
    #[inline]
    fn hit_kind(
        &self,
        s: &mut Scratch,
        m: crate::game::moves::Move,
        child: u64,
        w: Color,
        attack: bool,
    ) -> Option<bool> {
        let clauses = if attack {
            self.clauses()
        } else {
            Clauses::CHECKS
        };
        self.hit_kind_by(s, m, child, w, clauses)
    }

    /// [`Self::hit_kind`] with the kinds of 打 given: `None` when the move checks, else
    /// whether it is 杀 or 捉 of a kind `clauses` counts (never under rule sets other than
    /// `asian`).
    #[inline]
    fn hit_kind_by(
        &self,
        s: &mut Scratch,
        m: crate::game::moves::Move,
        child: u64,
        w: Color,
        clauses: Clauses,
    ) -> Option<bool> {
        let squares = &s.squares;
        let mover = s.pos.turn();
        let against = self.attackers[mover.index()];
        // a side of advisors and elephants at most (besides its general) neither checks nor
        // threatens mate, and chases only with a capture by an advisor or an elephant, whose
        // targets stand where they can go: with no piece of the other side there, no move
        // of it is 打 (a general's own threats are not, and it uncovers an elephant only)
        if against == Attackers::NONE && s.pos.occupied[(!mover).index()] & guard_points(mover) == 0
        {
            return Some(false);
        }
        let Clauses {
            mate_threats,
            chases,
        } = clauses;
        // a side with no piece that gives check (advisors and elephants at most) mates nothing
        let mate_threats = mate_threats && against != Attackers::NONE;
        let asked = self.rules == Rules::Asian && clauses.beyond_check();
        let mates = |threat: &mut crate::game::position::Position| {
            mate_threats
                && self.threatens_mate(mover, child, w, || {
                    self.mates_by_table(threat, squares, m, w)
                })
        };
        crate::game::threat::quiet_hit_knowing(
            &mut s.pos,
            m,
            |after| after.in_check_against(!mover, against),
            asked.then_some((chases, mates)),
        )
    }

    /// Whether the side to move in `threat` has a move that mates, where `threat` is the
    /// position whose placement is `squares` (of this table's pieces) after the quiet move
    /// `m`, its mover to move again: what [`crate::game::threat::mates_in_one`] answers,
    /// read off the values where it can. A check that takes nothing leads to an entry of
    /// this table, mated when lost there in 0 plies (an illegal move leads to an entry coded
    /// illegal); a check that captures leads to a sub-table, and is made and asked.
    fn mates_by_table(
        &self,
        threat: &mut crate::game::position::Position,
        squares: &Squares,
        m: crate::game::moves::Move,
        w: Color,
    ) -> bool {
        let n = self.pieces.len();
        let mover = threat.turn();
        let values = self.values[(!mover).index()];
        let mut after = *squares;
        let slot_of = |squares: &Squares, sq| squares[..n].iter().position(|&q| q == sq);
        let Some(k) = slot_of(&after, m.from()) else {
            return crate::game::threat::mates_in_one(threat);
        };
        after[k] = m.to();
        let mut moves = crate::game::moves::MoveList::new();
        threat.pseudo_moves(&mut moves);
        moves.iter().any(|&t| {
            if !threat.gives_check(t) {
                return false;
            }
            if threat.piece_at(t.to()).is_some() {
                if !threat.legality().move_is_legal(threat, t) {
                    return false;
                }
                let undo = threat.play_unchecked(t);
                let mated = !threat.has_legal_move_knowing(true);
                threat.undo(t, undo);
                return mated;
            }
            let Some(j) = slot_of(&after, t.from()) else {
                return false;
            };
            let mut to = after;
            to[j] = t.to();
            let c = values[self.layout.index(&to[..n]) as usize].load(Relaxed);
            if !mover == w {
                c == code::decided(0)
            } else {
                c == MATED
            }
        })
    }

    /// The kinds of 打 besides 将 that count now: none while the traps of perpetual check
    /// alone are looked for first.
    #[inline]
    fn clauses(&self) -> Clauses {
        if self.checks_first.load(Relaxed) {
            Clauses::CHECKS
        } else {
            self.clauses
        }
    }

    /// Whether `mover`, to move in entry `child`, has a move that mates, which `mates`
    /// (the position made and its moves looked at) answers. Only where it wins in one ply
    /// is it asked (every position with a mate does; the few that win by leaving the
    /// other side no move do too). The winner's values are its codes; the loser's are
    /// aside, and its bytes mark these positions [`MATES_NEXT`], which keep the answer once
    /// asked ([`MATE_THREAT`] or [`NO_MATE`]: the loser's moves are looked at stage after
    /// stage, and lead to the same positions).
    #[inline]
    fn threatens_mate(
        &self,
        mover: Color,
        child: u64,
        w: Color,
        mates: impl FnOnce() -> bool,
    ) -> bool {
        let cell = &self.values[mover.index()][child as usize];
        let c = cell.load(Relaxed);
        if mover == w {
            return c == code::decided(1) && mates();
        }
        match c {
            MATE_THREAT => true,
            MATES_NEXT => {
                // (threads that ask at once find the same answer)
                let mates = mates();
                cell.store(if mates { MATE_THREAT } else { NO_MATE }, Relaxed);
                mates
            }
            _ => false,
        }
    }

    /// Asks for the byte [`Self::threatens_mate`] reads, ahead of a test for 打 that may read
    /// it, so that the cache miss overlaps the test's first steps.
    #[inline]
    fn prefetch_mate_byte(&self, mover: Color, child: u64) {
        if self.rules == Rules::Asian
            && !self.checks_first.load(Relaxed)
            && self.attackers[mover.index()] != Attackers::NONE
        {
            crate::prefetch::prefetch(self.values[mover.index()][child as usize].as_ptr());
        }
    }

    /// Whether a move of colour `c` can ever be a hit: under `check-only`, when it has a
    /// piece that gives check; under `asian`, when it has anything besides its general (an
    /// advisor or an elephant can chase, a soldier can threaten mate).
    fn may_hit(&self, c: Color) -> bool {
        if self.rules == Rules::Asian {
            self.pieces
                .iter()
                .any(|p| p.color == c && p.kind != crate::game::piece::Kind::General)
        } else {
            self.attackers[c.index()] != Attackers::NONE
        }
    }

    /// Runs `f` on every member of `bits` whose position can be set up, in parallel.
    pub(super) fn for_members(
        &self,
        bits: &Bits,
        turn: Color,
        f: impl Fn(&mut Scratch, u64) + Sync + Send,
    ) {
        self.fold_members(
            bits,
            || (),
            |s, i, _| {
                if self.set_up(s, i, turn) {
                    f(s, i);
                }
            },
        );
    }

    /// Runs `f` on every member of `bits`, not set up (for a caller that sets the position
    /// up itself, or needs none), in parallel.
    fn each_member(&self, bits: &Bits, f: impl Fn(&mut Scratch, u64) + Sync + Send) {
        self.fold_members(bits, || (), |s, i, _| f(s, i));
    }

    /// The words of a bit set over this table's entries that hold chunk `chunk`'s bits.
    fn chunk_words(&self, chunk: u64) -> std::ops::Range<usize> {
        const _: () = assert!(CHUNK.is_multiple_of(64), "a word of bits in one chunk");
        let start = (chunk * CHUNK / 64) as usize;
        let end = ((chunk + 1) * CHUNK).min(self.layout.size()).div_ceil(64) as usize;
        start..end
    }

    /// Takes every member out of `bits` (left clear) and runs `f` on it, not set up, in
    /// parallel; returns the sum of what `f` returns. `f` must not touch `bits`.
    fn drain_members(
        &self,
        bits: &Bits,
        f: impl Fn(&mut Scratch, u64) -> u64 + Sync + Send,
    ) -> u64 {
        (0..self.chunks())
            .into_par_iter()
            .map_init(Scratch::new, |s, chunk| {
                let mut sum = 0;
                for w in self.chunk_words(chunk) {
                    let mut word = bits.0[w].load(Relaxed);
                    if word == 0 {
                        continue;
                    }
                    bits.0[w].store(0, Relaxed);
                    while word != 0 {
                        let i = w as u64 * 64 + word.trailing_zeros() as u64;
                        word &= word - 1;
                        sum += f(s, i);
                    }
                }
                sum
            })
            .sum()
    }

    /// Runs `f` on every member of `bits` in parallel, each chunk of entries gathering
    /// into its own `R` (made by `new`); returns them in index order.
    fn fold_members<R: Gathered>(
        &self,
        bits: &Bits,
        new: impl Fn() -> R + Sync + Send,
        f: impl Fn(&mut Scratch, u64, &mut R) + Sync + Send,
    ) -> Vec<R> {
        (0..self.chunks())
            .into_par_iter()
            .map_init(Scratch::new, |s, chunk| {
                let mut out = new();
                for w in self.chunk_words(chunk) {
                    let mut word = bits.0[w].load(Relaxed);
                    while word != 0 {
                        let i = w as u64 * 64 + word.trailing_zeros() as u64;
                        word &= word - 1;
                        f(s, i, &mut out);
                    }
                }
                out.compact();
                out
            })
            .collect()
    }

    /// Runs `f` on every entry of `turn`'s side whose code is `c`, in parallel.
    fn for_code(&self, turn: Color, c: u8, f: impl Fn(&mut Scratch, u64) + Sync + Send) {
        self.fold_cells(turn, |x| x == c, || (), |s, i, _| f(s, i));
    }

    /// Runs `f` on every entry of `turn`'s side whose code passes `pick`, set up in the
    /// scratch, in parallel, each chunk of entries gathering into its own `R` (made by
    /// `new`).
    fn fold_cells<R: Gathered>(
        &self,
        turn: Color,
        pick: impl Fn(u8) -> bool + Sync + Send,
        new: impl Fn() -> R + Sync + Send,
        f: impl Fn(&mut Scratch, u64, &mut R) + Sync + Send,
    ) -> Vec<R> {
        let cells = self.values[turn.index()];
        (0..self.chunks())
            .into_par_iter()
            .map_init(Scratch::new, |s, chunk| {
                let mut out = new();
                let start = chunk * CHUNK;
                for i in start..(start + CHUNK).min(self.layout.size()) {
                    if pick(cells[i as usize].load(Relaxed)) && self.set_up(s, i, turn) {
                        f(s, i, &mut out);
                    }
                }
                out.compact();
                out
            })
            .collect()
    }

    fn rule_wins<S: Slot>(
        &self,
        w: Color,
        work: &Work,
        sub_rules: [bool; 2],
        progress: &dyn Progress,
    ) -> Result<(), TableError> {
        let l = !w;
        // black's positions the mate search left undecided still hold their counters (see
        // `solve_resumable`) when red's pass begins
        let mut counted_before = l == Color::Black;
        if sub_rules == [false; 2] && !self.may_hit(l) {
            // L never hits, and no capture reaches a verdict by rule: W wins nothing new
            if counted_before {
                self.undecided_to_draws(self.values[l.index()]);
            }
            return Ok(());
        }
        let started = std::time::Instant::now();
        let trace = std::env::var_os("CANJU_TRACE").is_some();
        // a position counted by the mate search holds its count of moves into positions W
        // does not win by mate (all its captures lose), which is this pass's count until W
        // wins something by rule
        let aside = self.put_aside(l, counted_before)?;
        if trace {
            eprintln!(
                "  {l}'s values aside: {} MB; peak so far {} MB",
                aside.0.iter().map(Vec::len).sum::<usize>() >> 20,
                crate::system::peak_memory().unwrap_or(0) >> 20,
            );
        }
        // W to move, a capture (of one of L's pieces) into a loss by rule of a sub-table
        let captured = AtomicU64::new(0);
        if sub_rules[l.index()] {
            self.for_code(w, code::DRAW, |s, i| {
                let legality = self.generate_captures(s);
                for k in 0..s.moves.len() {
                    let m = s.moves[k];
                    if legality.move_is_legal(&s.pos, m)
                        && code::loses(self.capture_code_with_rule(s, m))
                    {
                        self.values[w.index()][i as usize].store(code::rule(0, true), Relaxed);
                        captured.fetch_add(1, Relaxed);
                        return;
                    }
                }
            });
            if captured.load(Relaxed) > 0 && counted_before {
                self.forget_counts(l);
                counted_before = false;
            }
        }
        let frontier_l = self.found[l.index()];
        let frontier_w = self.found[w.index()];
        frontier_l.clear();
        frontier_w.clear();
        let mut rows = Rows::<S>::new();
        let mut w_moves = WMoves::<S> {
            quiet: Vec::new(),
            checks: Vec::new(),
            chases: Vec::new(),
            listed_without: (0..self.pieces.len())
                .map(|slot| {
                    let size = self.layout.without_slot_size(slot);
                    size.filter(|_| self.pieces[slot].color == w).map(Bits::new)
                })
                .collect(),
        };
        let mut stage = 0;
        // under the whole rule, the traps of perpetual check alone come first: they need
        // neither 杀 nor 捉, which are costly to tell, and their wins are the whole rule's
        // as well. Not where L has no piece that gives check (advisors and elephants at
        // most, which may chase): its first stage would find no trap (a position whose
        // every move loses is lost at level 0) after a look at every drawn position of L's
        self.checks_first.store(
            self.rules == Rules::Asian
                && self.clauses.beyond_check()
                && self.attackers[l.index()] != Attackers::NONE,
            Relaxed,
        );
        let (mut t_count, mut t_update, mut t_attract, mut t_trap) = (0.0, 0.0, 0.0, 0.0);
        let t = std::time::Instant::now();
        work.dirty.clear();
        work.listed.clear();
        // Every counter is needed once a win of this pass is walked back from, which may
        // never happen: count lazily (a look for an escape now, the count when a trap is
        // first found) when W wins nothing yet, and in the second pass, whose loser the
        // mate search left uncounted and whose winner, the defender, seldom wins by rule
        // (black's pass on KRPKR finds nothing: 0.16 → 0.12 s). In the first pass the
        // mate search's counts make the look the same either way.
        let eager = counted_before
            && (captured.load(Relaxed) > 0
                || self.values[w.index()]
                    .par_iter()
                    .any(|c| code::wins(c.load(Relaxed))));
        let (zeros, mut fresh) = self.count_moves::<S>(w, frontier_l, eager, counted_before);
        self.check_failed()?;
        let mut counted = eager;
        if zeros > 0 || captured.load(Relaxed) > 0 {
            self.count_rest(l);
            self.check_failed()?;
            counted = true;
            // level 0: wins through captures into a sub-table's wins by rule
            self.attract(w, 0, work, frontier_l, frontier_w);
            self.check_failed()?;
        }
        t_count += t.elapsed().as_secs_f64();
        // the first candidates' rows (from the count), then those of the candidates each
        // attractor made
        loop {
            let t = std::time::Instant::now();
            // the rows of positions decided since the last trap go before the new ones are
            // gathered, so that the two are never held at full size together
            self.prune_rows(w, &mut rows, 0);
            rows.shrink();
            give_back_freed_memory();
            fresh.extend(self.update_candidates::<S>(w, work));
            work.dirty.clear();
            t_update += t.elapsed().as_secs_f64();
            let t = std::time::Instant::now();
            let new = fresh.iter().map(|r| r.nodes.len()).sum::<usize>();
            let trapped =
                self.trap(w, work, &mut rows, &mut w_moves, std::mem::take(&mut fresh))?;
            if trace {
                eprintln!(
                    "  {w} wins, stage {}: {new} new candidates, {} in rows ({} MB), {} moves, {} W moves into candidates ({} MB), {trapped} trapped; peak {} MB",
                    stage + 1,
                    rows.nodes.len(),
                    rows.bytes() >> 20,
                    rows.adj.len(),
                    w_moves.quiet.len() + w_moves.checks.len(),
                    w_moves.bytes() >> 20,
                    crate::system::peak_memory().unwrap_or(0) >> 20,
                );
            }
            t_trap += t.elapsed().as_secs_f64();
            if trapped == 0 {
                if !self.checks_first.swap(false, Relaxed) {
                    break;
                }
                // no trap of perpetual check is left: from here on 杀 and 捉 are 打 as well
                if let Some(rows) = self.begin_whole_rule::<S>(w, work, &mut w_moves, counted)? {
                    fresh = rows;
                }
                continue;
            }
            stage += 1;
            if stage > code::MAX_RULE_LEVEL {
                return Err(TableError::Unsupported(format!(
                    "{}: more than {} levels of perpetual-check traps do not fit one-byte entries",
                    self.layout.material(),
                    code::MAX_RULE_LEVEL
                )));
            }
            if !counted {
                let t = std::time::Instant::now();
                self.count_rest(l);
                self.check_failed()?;
                counted = true;
                t_count += t.elapsed().as_secs_f64();
            }
            frontier_l.clear();
            let lost = LOST + stage as u8;
            self.each_member(&work.dirty, |_, i| {
                self.values[l.index()][i as usize].store(lost, Relaxed);
                frontier_l.set(i);
            });
            work.dirty.clear();
            let t = std::time::Instant::now();
            let won = trapped + self.attract(w, stage, work, frontier_l, frontier_w);
            self.check_failed()?;
            t_attract += t.elapsed().as_secs_f64();
            progress.rule_stage(w, stage, won);
            super::check_stopped(progress, self.layout.material())?;
        }
        drop((rows, w_moves));
        self.take_back(l, aside)?;
        if trace {
            eprintln!(
                "{}: {w} wins by rule: {stage} levels in {:.2} s; counts {t_count:.2} s, candidates' updates {t_update:.2} s, attractor {t_attract:.2} s, traps {t_trap:.2} s",
                self.layout.material(),
                started.elapsed().as_secs_f64(),
            );
        }
        Ok(())
    }

    /// Turns a winner's pass from the stages of perpetual check alone to the whole rule's,
    /// once the first find no trap: every position of L with a move that does not check
    /// into a draw, not a candidate yet, is to be looked at again (`work.dirty`; a
    /// candidate of perpetual check is one of 长打 too), and W's moves into candidates are
    /// to be listed anew, in three kinds. Where L was counted lazily (`counted` false),
    /// the positions left uncounted are counted now; their rows are returned.
    fn begin_whole_rule<S: Slot>(
        &self,
        w: Color,
        work: &Work,
        w_moves: &mut WMoves<S>,
        counted: bool,
    ) -> Result<Option<Vec<Rows<S>>>, TableError> {
        let l = !w;
        let cells = self.values[l.index()];
        work.dirty.clear();
        cells.par_iter().enumerate().for_each(|(i, c)| {
            let c = c.load(Relaxed);
            if open(c) && !is_cand(c) {
                work.dirty.set(i as u64);
            }
        });
        w_moves.quiet = Vec::new();
        w_moves.checks = Vec::new();
        w_moves.chases = Vec::new();
        for b in w_moves.listed_without.iter().flatten() {
            b.clear();
        }
        work.listed.clear();
        if std::env::var_os("CANJU_TRACE").is_some() {
            eprintln!("  {w} wins: no trap of perpetual check left; 杀 and 捉 from here on");
        }
        if counted {
            return Ok(None);
        }
        // the positions left uncounted had a move that does not check into a draw, which
        // may be 打; W has won nothing since the count, so none of them is lost, and those
        // with a move that is no 打 at all ([`FREE`]) still have it
        let (zeros, rows) = self.count_moves::<S>(w, self.found[l.index()], false, false);
        self.check_failed()?;
        debug_assert_eq!(zeros, 0);
        cells.par_iter().for_each(|c| {
            if c.load(Relaxed) == FREE {
                c.store(TO_COUNT, Relaxed);
            }
        });
        Ok(Some(rows))
    }

    /// Keeps `side`'s values aside, compressed, and turns its bytes into the pass's state:
    /// [`TO_COUNT`] for drawn positions, [`SETTLED`] for the rest. With `counters`, the
    /// positions the mate search left undecided with a counter (black's when red's pass
    /// begins, see [`super::solve_resumable`]) are draws aside and keep their count here.
    fn put_aside(&self, side: Color, counters: bool) -> Result<Aside, TableError> {
        let cells = self.values[side.index()];
        let blocks: Result<Vec<Vec<u8>>, std::io::Error> = cells
            .par_chunks(ASIDE_BLOCK)
            .map_init(Vec::new, |buf, block| {
                buf.clear();
                // (one pass: the value aside, and the state in its place)
                buf.extend(block.iter().map(|c| {
                    let value = c.load(Relaxed);
                    let state = match value {
                        code::DRAW => TO_COUNT,
                        UNCOUNTED if counters => TO_COUNT,
                        n if counters && n > COUNT => n - COUNT,
                        n if n == code::decided(1) => MATES_NEXT,
                        n if n == code::decided(0) => MATED,
                        _ => SETTLED,
                    };
                    c.store(state, Relaxed);
                    if counters && value >= COUNT {
                        code::DRAW
                    } else {
                        value
                    }
                }));
                zstd::bulk::compress(buf, 1)
            })
            .collect();
        blocks.map(Aside).map_err(|e| {
            TableError::Unsupported(format!(
                "{}: keeping the values aside: {e}",
                self.layout.material()
            ))
        })
    }

    /// Gives `side` its values back, with the losses by rule the pass found.
    fn take_back(&self, side: Color, aside: Aside) -> Result<(), TableError> {
        let cells = self.values[side.index()];
        let material = self.layout.material();
        cells
            .par_chunks(ASIDE_BLOCK)
            .zip(aside.0.par_iter())
            .try_for_each(|(block, stored)| {
                let values = zstd::bulk::decompress(stored, ASIDE_BLOCK)
                    .ok()
                    .filter(|v| v.len() == block.len())
                    .ok_or_else(|| {
                        TableError::Unsupported(format!(
                            "{material}: the values kept aside do not decompress"
                        ))
                    })?;
                for (c, &value) in block.iter().zip(&values) {
                    let state = c.load(Relaxed);
                    let back = if (LOST..=LOST + code::MAX_RULE_LEVEL as u8).contains(&state) {
                        debug_assert_eq!(value, code::DRAW);
                        code::rule((state - LOST) as u32, false)
                    } else {
                        value
                    };
                    c.store(back, Relaxed);
                }
                Ok(())
            })
    }

    /// Counts, for every drawn L-to-move position, its moves into positions not yet won
    /// for W (its counter), and notes the candidates for a trap (every move that does not
    /// check is lost, no capture escapes). Positions with no such move are lost and go to
    /// `frontier`; returns how many.
    ///
    /// Unless `eager`, a position with a move that does not check into a position not won
    /// for W is left uncounted ([`TO_COUNT`]): it is no candidate, and its counter is
    /// needed only once a win of this pass is walked back from, which may never happen
    /// ([`Self::count_rest`]).
    fn count_moves<S: Slot>(
        &self,
        w: Color,
        frontier: &Bits,
        eager: bool,
        counted_before: bool,
    ) -> (u64, Vec<Rows<S>>) {
        let l = !w;
        let zeros = AtomicU64::new(0);
        let cells = self.values[l.index()];
        let pick = |c: u8| c == TO_COUNT || counted_before && open(c);
        let rows = self.fold_cells(l, pick, Rows::new, |s, i, rows| {
            let cell = &cells[i as usize];
            let c = cell.load(Relaxed);
            if open(c) {
                // counted by the mate search (its captures all lose)
                return self.look_again(s, i, c, w, rows);
            }
            // not needed yet: a candidate needs a look all the same
            if !eager {
                match self.quiet_escape(s, i, w) {
                    Escape::Free if self.checks_first.load(Relaxed) => {
                        cell.store(FREE, Relaxed);
                        return;
                    }
                    Escape::None => {}
                    _ => return,
                }
            }
            match self.open_moves(s, i, w, eager, true) {
                None => cell.store(NEVER, Relaxed),
                Some(o) if o.count == 0 => {
                    // lost at level 0: every move leads to a win of W
                    cell.store(LOST, Relaxed);
                    frontier.set(i);
                    zeros.fetch_add(1, Relaxed);
                }
                Some(o) => {
                    let check_cand = self.rules == Rules::Asian && !o.check_escape;
                    let cand = if check_cand {
                        CHECK_CAND
                    } else if !o.quiet_escape {
                        CAND
                    } else {
                        0
                    };
                    cell.store(o.count | cand, Relaxed);
                    if cand != 0 && !o.loser_wins {
                        rows.push(i, &s.row);
                    }
                }
            }
        });
        let rows = non_empty(rows);
        (zeros.load(Relaxed), rows)
    }

    /// How the L-to-move position in `s` (entry `index`) escapes by a quiet move into a
    /// position not won for W: by one that is no hit now, and whether by one that is no 打
    /// at all. While the traps of perpetual check alone come first under `asian`, a move
    /// that does not check is looked at as the whole rule will (the same make and take
    /// back), so that the whole rule's first look can pass by the positions that escape
    /// it too ([`FREE`]).
    fn quiet_escape(&self, s: &mut Scratch, index: u64, w: Color) -> Escape {
        let whole = self.checks_first.load(Relaxed);
        let mut escape = Escape::None;
        self.each_quiet_move(s, index, |s, m, child| {
            let c = self.values[w.index()][child as usize].load(Relaxed);
            if won(c) || c == code::ILLEGAL {
                return true;
            }
            if !whole {
                self.prefetch_mate_byte(!w, child);
                if !self.hits(s, m, child, w) {
                    escape = Escape::Free;
                }
                return escape == Escape::None;
            }
            match self.hit_kind_by(s, m, child, w, self.clauses) {
                None => true,
                Some(false) => {
                    escape = Escape::Free;
                    false
                }
                Some(true) => {
                    // no check, but 打: look on for a move that is no 打 at all
                    escape = Escape::Quiet;
                    true
                }
            }
        });
        escape
    }

    /// The moves of the L-to-move position in `s` (entry `index`) into positions not won
    /// for W, or None when a capture escapes into a position that is not won for W. With
    /// `escapes`, whether one of them does not check; with `want_row`, the drawn positions
    /// they lead to go to `s.row`.
    fn open_moves(
        &self,
        s: &mut Scratch,
        index: u64,
        w: Color,
        escapes: bool,
        want_row: bool,
    ) -> Option<Open> {
        // the captures first: one that escapes settles it
        let legality = self.generate_captures(s);
        for k in 0..s.moves.len() {
            let m = s.moves[k];
            if legality.move_is_legal(&s.pos, m) && !won(self.capture_code_with_rule(s, m)) {
                return None;
            }
        }
        let mut open = Open {
            count: 0,
            quiet_escape: false,
            check_escape: false,
            loser_wins: false,
        };
        let asian = self.rules == Rules::Asian;
        let mut row = std::mem::take(&mut s.row);
        row.clear();
        let mut count = 0u32;
        self.each_quiet_move(s, index, |s, m, child| {
            let c = self.values[w.index()][child as usize].load(Relaxed);
            if won(c) || c == code::ILLEGAL {
                return true;
            }
            count += 1;
            if escapes && !open.quiet_escape {
                self.prefetch_mate_byte(!w, child);
            }
            let want_escape = escapes && !open.quiet_escape;
            if (want_escape || asian && !open.check_escape)
                && let Some(hit) = self.hit_kind(s, m, child, w, want_escape)
            {
                open.check_escape = true;
                if want_escape && !hit {
                    open.quiet_escape = true;
                }
            }
            if c != code::DRAW {
                open.loser_wins = true;
            } else if want_row {
                row.push(child);
            }
            true
        });
        s.row = row;
        if count > MAX_OPEN as u32 {
            self.fail(TableError::Unsupported(format!(
                "{}: entry {index} has {count} moves, more than the rule pass counts ({MAX_OPEN})",
                self.layout.material()
            )));
            return None;
        }
        open.count = count as u8;
        Some(open)
    }

    /// Sets L's counts from the mate search back to uncounted: they no longer hold once W
    /// wins something by rule.
    fn forget_counts(&self, l: Color) {
        self.values[l.index()].par_iter().for_each(|c| {
            if open(c.load(Relaxed)) {
                c.store(TO_COUNT, Relaxed);
            }
        });
    }

    /// Counts the moves of the drawn L-to-move positions [`Self::count_moves`] left
    /// uncounted (a capture may escape, but none of them is lost).
    fn count_rest(&self, l: Color) {
        let pick = |c: u8| c == TO_COUNT || c == FREE;
        self.fold_cells(
            l,
            pick,
            || (),
            |s, i, _| {
                let c = self
                    .open_moves(s, i, !l, false, false)
                    .map_or(NEVER, |o| o.count);
                self.values[l.index()][i as usize].store(c, Relaxed);
            },
        );
    }

    /// Looks again at the positions one of whose moves that do not check newly lost: a
    /// candidate for a trap once none of them is left. Returns the new candidates' rows.
    fn update_candidates<S: Slot>(&self, w: Color, work: &Work) -> Vec<Rows<S>> {
        let l = !w;
        let asian = self.rules == Rules::Asian;
        let rows = self.fold_members(&work.dirty, Rows::new, |s, i, rows| {
            let c = self.values[l.index()][i as usize].load(Relaxed);
            // under `asian`, a candidate may still become one of perpetual check
            let done = is_cand(c) && (!asian || is_check_cand(c));
            if !done && open(c) && self.set_up(s, i, l) {
                self.look_again(s, i, c, w, rows);
            }
        });
        non_empty(rows)
    }

    /// Looks again at L's counted position `i` (set up in `s`, its cell holding `c`): marks
    /// it a candidate (of perpetual check) when no move that is no hit (that does not
    /// check) leads into a position not won, and gives it a row when it becomes a candidate
    /// and each of those moves leads into a draw.
    fn look_again<S: Slot>(&self, s: &mut Scratch, i: u64, c: u8, w: Color, rows: &mut Rows<S>) {
        let l = !w;
        let cell = &self.values[l.index()][i as usize];
        // a move into a position not won that is no hit; one that does not check
        let (mut escapes, mut check_escapes) =
            (is_cand(c), self.rules != Rules::Asian || is_check_cand(c));
        let mut loser_wins = false;
        let mut row = std::mem::take(&mut s.row);
        row.clear();
        // the count says how many moves lead into positions not won: once that many are
        // seen, the rest lead into wins of W
        let mut unseen = c & MAX_OPEN;
        self.each_quiet_move(s, i, |s, m, child| {
            let c = self.values[w.index()][child as usize].load(Relaxed);
            if won(c) || c == code::ILLEGAL {
                return true;
            }
            if !escapes {
                self.prefetch_mate_byte(l, child);
            }
            if let Some(hit) = self.hit_kind(s, m, child, w, !escapes) {
                check_escapes = true;
                if !escapes && !hit {
                    escapes = true;
                }
                if escapes {
                    return false;
                }
            }
            if c == code::DRAW {
                row.push(child);
            } else {
                loser_wins = true;
            }
            unseen -= 1;
            unseen > 0
        });
        if !check_escapes {
            cell.store(c & MAX_OPEN | CHECK_CAND, Relaxed);
        } else if !escapes {
            cell.store(c & MAX_OPEN | CAND, Relaxed);
        }
        if !escapes && !loser_wins {
            rows.push(i, &row);
        }
        s.row = row;
    }

    /// Closes the set won for W under forcing: walks back from the newly won positions
    /// (the L-to-move positions newly lost, in `frontier_l`) until none is added, giving
    /// each position it adds its code at `level`; returns how many it added. Both
    /// frontiers are left clear.
    fn attract(
        &self,
        w: Color,
        level: u32,
        work: &Work,
        frontier_l: &Bits,
        frontier_w: &Bits,
    ) -> u64 {
        let l = !w;
        let (win, lost) = (code::rule(level, true), LOST + level as u8);
        let mut added = 0;
        // each frontier is emptied as it is walked back from, so that it is ready to take
        // the next one; the walks count what they add
        frontier_w.clear();
        loop {
            // newly lost L-to-move positions: their W-to-move predecessors win
            let parents_w = self.values[w.index()];
            // (`collect_parents` sets each position up)
            let won = self.drain_members(frontier_l, |s, i| {
                let found = self.collect_parents(s, i, l, parents_w);
                let mut won = 0;
                for &p in &found {
                    // (most are won already: a load first spares the exclusive access)
                    let cell = &parents_w[p as usize];
                    if cell.load(Relaxed) == code::DRAW
                        && cell
                            .compare_exchange(code::DRAW, win, Relaxed, Relaxed)
                            .is_ok()
                    {
                        frontier_w.set(p);
                        won += 1;
                    }
                }
                s.parents = found;
                won
            });
            if won == 0 {
                return added;
            }
            added += won;
            // newly won W-to-move positions: one more move of each predecessor loses
            let parents_l = self.values[l.index()];
            let lost_now = self.drain_members(frontier_w, |s, i| {
                let found = self.collect_parents(s, i, w, parents_l);
                // L's move into i checks when W stands in check in i (the position in `s`,
                // set up by `collect_parents`; with no parents it is never asked): a lost
                // check does not change whether L is a candidate for a trap
                let quiet =
                    !found.is_empty() && !s.pos.in_check_against(w, self.attackers[l.index()]);
                let mut lost_now = 0;
                for &p in &found {
                    let cell = &parents_l[p as usize];
                    let mut c = cell.load(Relaxed);
                    debug_assert!(c != TO_COUNT && c != FREE, "counted before any walk");
                    while open(c) {
                        let last = c & MAX_OPEN == 1;
                        let next = if last { lost } else { c - 1 };
                        match cell.compare_exchange(c, next, Relaxed, Relaxed) {
                            Ok(_) => {
                                if last {
                                    frontier_l.set(p);
                                    lost_now += 1;
                                } else if quiet {
                                    work.dirty.set(p);
                                }
                                break;
                            }
                            Err(now) => c = now,
                        }
                    }
                }
                s.parents = found;
                lost_now
            });
            if lost_now == 0 {
                return added;
            }
            added += lost_now;
        }
    }

    /// The trap (νY. μZ, see the module's text) among the candidates; leaves it in
    /// `work.dirty` (clear when called) and returns its size. The candidates' rows and the
    /// W positions' moves into candidates are brought up to date first, so that the
    /// fixpoint's sweeps do not generate moves. The solver's two `found` sets hold Z (L to
    /// move) and the W positions that reach Z (W to move) meanwhile.
    fn trap<S: Slot>(
        &self,
        w: Color,
        work: &Work,
        rows: &mut Rows<S>,
        w_moves: &mut WMoves<S>,
        fresh: Vec<Rows<S>>,
    ) -> Result<u64, TableError> {
        let l = !w;
        let first_new = self.add_rows(w, rows, fresh)?;
        give_back_freed_memory();
        let (z, zw) = (self.found[l.index()], self.found[w.index()]);
        let y = &work.dirty;
        y.clear();
        set_all(y, &rows.nodes);
        // the W positions the candidates' checks lead to, and their moves into candidates
        zw.clear();
        rows.adj.par_iter().for_each(|&a| {
            zw.set(a.index());
        });
        let t = std::time::Instant::now();
        self.update_w_moves(w, w_moves, &rows.nodes[first_new..], y, zw, &work.listed);
        let t_moves = t.elapsed().as_secs_f64();
        let tt = std::time::Instant::now();
        // A row one of whose W positions has no move into a candidate at all is in no trap
        // (of either kind: each is among the candidates): such rows, most of them once the
        // stages go on, leave Y first, so that neither fixpoint looks at them again.
        let (mut sweeps, live) = (
            1,
            live_rows(
                rows,
                &[&w_moves.quiet, &w_moves.checks, &w_moves.chases],
                (y, all_rows(rows.nodes.len())),
                z,
            ),
        );
        let trapped = if self.rules == Rules::Asian && !self.checks_first.load(Relaxed) {
            // the trap of perpetual check (长将: whatever the winner's answers attack, as long
            // as they do not all check), among the candidates whose every move that does not
            // check loses
            let cells = self.values[l.index()];
            let check_rows = keep_among(&rows.nodes, &live, |n| {
                is_check_cand(cells[n as usize].load(Relaxed))
            });
            let others: Vec<u64> = live
                .iter()
                .zip(&check_rows)
                .map(|(live, check)| live & !check)
                .collect();
            rows.mark_rows(&others, y, false);
            // its smaller Y leaves more rows dead
            let check_rows = live_rows(
                rows,
                &[&w_moves.quiet, &w_moves.chases, &w_moves.checks],
                (y, check_rows),
                z,
            );
            let (n, by_check) = greatest_trap(
                rows,
                &[&w_moves.quiet, &w_moves.chases],
                &[&w_moves.checks],
                (y, check_rows),
                (z, zw),
            );
            sweeps += 1 + n;
            // kept a bit a row while the trap of perpetual attack (长打), where the winner's
            // way back is 闲, is computed among all the candidates left
            rows.mark_rows(&live, y, true);
            let (n, mut by_attack) = greatest_trap(
                rows,
                &[&w_moves.quiet],
                &[&w_moves.checks, &w_moves.chases],
                (y, live),
                (z, zw),
            );
            sweeps += n;
            // both are won: the loser checks forever against a winner who does not, or
            // attacks forever against a winner who does not
            rows.mark_rows(&by_check, y, true);
            for (a, b) in by_attack.iter_mut().zip(&by_check) {
                *a |= b;
            }
            by_attack
        } else {
            let (n, rows_in) = greatest_trap(
                rows,
                &[&w_moves.quiet],
                &[&w_moves.checks],
                (y, live),
                (z, zw),
            );
            sweeps += n;
            rows_in
        };
        if std::env::var_os("CANJU_TRACE").is_some() {
            eprintln!(
                "    the winner's moves into candidates: {t_moves:.3} s; the trap's fixpoint: {sweeps} sweeps, {:.3} s",
                tt.elapsed().as_secs_f64()
            );
        }
        Ok(trapped.iter().map(|w| u64::from(w.count_ones())).sum())
    }

    /// Brings the candidates' rows up to date: drops the positions decided since and adds
    /// the new candidates' rows. Returns where the new rows start.
    fn add_rows<S: Slot>(
        &self,
        w: Color,
        rows: &mut Rows<S>,
        fresh: Vec<Rows<S>>,
    ) -> Result<usize, TableError> {
        let first_new = rows.nodes.len();
        rows.append(fresh)
            .map_err(|e| TableError::Unsupported(format!("{}: {e}", self.layout.material())))?;
        self.prune_rows(w, rows, first_new);
        Ok(first_new)
    }

    /// Drops, from the rows from the `first` on, the positions decided and the moves into
    /// positions no longer drawn.
    fn prune_rows<S: Slot>(&self, w: Color, rows: &mut Rows<S>, first: usize) {
        let l = !w;
        rows.prune(
            first,
            |n| open(self.values[l.index()][n as usize].load(Relaxed)),
            |a| self.values[w.index()][a as usize].load(Relaxed) == code::DRAW,
        );
    }

    /// Notes W's position `p` (set up in `s`) as listed, with each of its pieces left out in
    /// turn; with its generals left out, mirrored as well (a general's move may lead to a
    /// position stored mirrored).
    fn note_listed(&self, s: &Scratch, p: u64, listed_without: &[Option<Bits>]) {
        let n = self.pieces.len();
        for (slot, without) in listed_without.iter().enumerate() {
            if let Some(without) = without {
                without.set(self.layout.without_slot(p, slot));
                if self.layout.is_general_slot(slot) {
                    without.set(self.layout.without_generals_mirrored(&s.squares[..n]));
                }
            }
        }
    }

    /// Brings the W positions' moves into candidates up to date for this stage's W
    /// positions `reached` and candidates `y` (`fresh` the new ones): drops the moves of
    /// positions decided or no longer reached and the moves into positions no longer
    /// candidates; adds, by move generation, the moves of the W positions not `listed`
    /// before, and, walking back from the new candidates, the moves into them of the
    /// positions already listed. `listed` becomes `reached`; `reached` is left clear.
    fn update_w_moves<S: Slot>(
        &self,
        w: Color,
        w_moves: &mut WMoves<S>,
        fresh: &[S],
        y: &Bits,
        reached: &Bits,
        listed: &Bits,
    ) {
        let l = !w;
        let keep = |&(p, d): &(S, S)| reached.get(p.index()) && y.get(d.index());
        let without = std::mem::take(&mut w_moves.listed_without);
        let listed_without = &without;
        w_moves.quiet.retain(keep);
        w_moves.checks.retain(keep);
        w_moves.chases.retain(keep);
        w_moves.shrink();
        // by groups of 64 words: the positions reached and not listed
        let words = reached.0.len();
        let forward = |s: &mut Scratch, g: usize| {
            let mut out: MovePairs<S> = (Vec::new(), Vec::new(), Vec::new());
            for k in g * 64..((g + 1) * 64).min(words) {
                let mut word = reached.0[k].load(Relaxed) & !listed.0[k].load(Relaxed);
                while word != 0 {
                    let p = k as u64 * 64 + word.trailing_zeros() as u64;
                    word &= word - 1;
                    if !self.set_up(s, p, w) {
                        continue;
                    }
                    self.note_listed(s, p, listed_without);
                    self.each_quiet_move(s, p, |s, m, child| {
                        if y.get(child) {
                            let pair = (S::of(p), S::of(child));
                            match self.hit_kind(s, m, child, w, true) {
                                None => out.1.push(pair),
                                Some(true) => out.2.push(pair),
                                Some(false) => out.0.push(pair),
                            }
                        }
                        true
                    });
                }
            }
            compact_pairs(out)
        };
        let backward = |s: &mut Scratch, chunk: &[S]| {
            let mut out: MovePairs<S> = (Vec::new(), Vec::new(), Vec::new());
            for &d in chunk {
                let d = d.index();
                if !y.get(d) {
                    continue;
                }
                // the pieces of W by whose moves a listed position may lead into d
                let walk = (0..self.pieces.len()).fold(0u32, |walk, slot| {
                    let may = self.pieces[slot].color == w
                        && listed_without[slot]
                            .as_ref()
                            .is_none_or(|b| b.get(self.layout.without_slot(d, slot)));
                    walk | u32::from(may) << slot
                });
                if walk == 0 || !self.set_up(s, d, l) {
                    continue;
                }
                // W's move into d checks when L stands in check in d; whether it is 打
                // needs the position before it
                let check = s.pos.in_check_against(l, self.attackers[w.index()]);
                // the predecessors already listed and reached this stage (no other is
                // looked at: their values are not needed)
                let (mut found, mut unmoves) = (
                    std::mem::take(&mut s.parents),
                    std::mem::take(&mut s.unmoves),
                );
                found.clear();
                unmoves.clear();
                self.for_each_parent_where(
                    s,
                    d,
                    l,
                    |slot| walk >> slot & 1 != 0,
                    |p, u| {
                        if reached.get(p) && listed.get(p) {
                            found.push(p);
                            unmoves.push(u);
                        }
                    },
                );
                for (&p, &u) in found.iter().zip(&unmoves) {
                    let pair = (S::of(p), S::of(d));
                    if check {
                        out.1.push(pair);
                    } else if self.rules == Rules::Asian && {
                        // (on the position before the move, taken back in place)
                        self.at_parent(s, u, |s| self.hit_kind(s, u, d, w, true)) == Some(true)
                    } {
                        out.2.push(pair);
                    } else {
                        out.0.push(pair);
                    }
                }
                (s.parents, s.unmoves) = (found, unmoves);
            }
            compact_pairs(out)
        };
        // a part at a time, so that the moves gathered are not held twice over for long
        let groups = words.div_ceil(64);
        let per = groups.div_ceil(MOVE_BATCHES).max(1);
        for first in (0..groups).step_by(per) {
            w_moves.add(
                (first..(first + per).min(groups))
                    .into_par_iter()
                    .map_init(Scratch::new, forward)
                    .collect(),
            );
        }
        for part in fresh.chunks(fresh.len().div_ceil(MOVE_BATCHES).max(1)) {
            w_moves.add(
                part.par_chunks(4096)
                    .map_init(Scratch::new, backward)
                    .collect(),
            );
        }
        listed.copy_from(reached);
        reached.clear();
        w_moves.listed_without = without;
    }
}

/// The trap's fixpoint νY. μZ on the candidates' graph: `rows` are L's candidates, each
/// with the W positions its checks lead to; `quiet` and `checks` are W's moves from those
/// into candidates, as (W position, candidate) pairs, that do not check and that do. `y`
/// holds the candidates on entry and the trap on return: the greatest set from which W
/// answers every check of L, within finitely many checks of its own (Z), with a move that
/// does not check back into the set. Where W can answer only by checking, forever (both
/// sides check on every move, 解将还将), nothing is trapped. The rows of the candidates in
/// `y` come with it, a bit a row (a word per group of rows); taking out first the rows that
/// can never join Z ([`live_rows`]) spares the rounds' sweeps, and changes no answer. `z`
/// (L) and `zw` (W) are work sets, left clear. Returns the number of sweeps and the trap's
/// rows, a bit a row.
fn greatest_trap<S: Slot>(
    rows: &Rows<S>,
    quiet: &[&[(S, S)]],
    checks: &[&[(S, S)]],
    (y, mut in_y): (&Bits, Vec<u64>),
    (z, zw): (&Bits, &Bits),
) -> (u32, Vec<u64>) {
    let mut sweeps = 0;
    loop {
        z.clear();
        // W positions with a quiet move into Y (fixed while Z grows), then those with a
        // check into Z as it grows (Z only grows, so they are only added to)
        zw.clear();
        for quiet in quiet {
            quiet.par_iter().for_each(|&(p, d)| {
                if y.get(d.index()) {
                    zw.set(p.index());
                }
            });
        }
        // the rows of Y not in Z yet: the only ones a sweep looks at
        let mut outside = in_y.clone();
        loop {
            sweeps += 1;
            let grew = rows.sweep_rows(&mut outside, Some((z, true)), |row| {
                row.iter().all(|&a| zw.get(a.index()))
            });
            // the W positions with a check into Z (Z is a part of Y); when none is new, no
            // row can join, and the sweep that would find so is spared
            let zw_grew = grew
                && checks.iter().fold(false, |any, checks| {
                    let added = checks
                        .par_iter()
                        .filter(|&&(p, d)| z.get(d.index()) && zw.set(p.index()))
                        .count();
                    any || added > 0
                });
            if !zw_grew {
                break;
            }
        }
        // Y becomes Z: the rows in Y and not in Z leave it
        if outside.iter().all(|&w| w == 0) {
            break;
        }
        rows.mark_rows(&outside, y, false);
        for (a, b) in in_y.iter_mut().zip(&outside) {
            *a &= !b;
        }
    }
    z.clear();
    zw.clear();
    (sweeps, in_y)
}

/// The rows of `in_y` (a bit a row; their nodes are the set `y`) none of whose W positions
/// is without a move (one of `pairs`) into `y`: the rows that may be in a trap within Y, for
/// this Y or a smaller one. The others leave Y (and `y`) before the fixpoint's first round,
/// so that its sweeps do not look at them over and over. `z`, a work set, holds the W
/// positions with a move into `y` meanwhile.
fn live_rows<S: Slot>(
    rows: &Rows<S>,
    pairs: &[&[(S, S)]],
    (y, mut in_y): (&Bits, Vec<u64>),
    z: &Bits,
) -> Vec<u64> {
    z.clear();
    for pairs in pairs {
        pairs.par_iter().for_each(|&(p, d)| {
            if y.get(d.index()) {
                z.set(p.index());
            }
        });
    }
    rows.sweep_rows(&mut in_y, Some((y, false)), |row| {
        !row.iter().all(|&a| z.get(a.index()))
    });
    in_y
}

/// How many bytes of parts are copied into a whole between two calls of
/// [`give_back_freed_memory`]: what the copy holds twice over at most.
const GIVE_BACK_EVERY: usize = 1 << 20;

/// Gives memory back to the system every [`GIVE_BACK_EVERY`] bytes freed, while parts are
/// copied into a whole and dropped one by one.
#[derive(Default)]
struct GiveBack(usize);

impl GiveBack {
    /// A part of `bytes` was copied and dropped.
    fn freed(&mut self, bytes: usize) {
        self.0 += bytes;
        if self.0 >= GIVE_BACK_EVERY {
            give_back_freed_memory();
            self.0 = 0;
        }
    }
}

/// Asks the allocator to map every allocation of a megabyte or more on its own: such a
/// block then goes back to the system as soon as it is freed, and grows in place, where
/// glibc would otherwise, after the first large block freed, serve the pass's large
/// vectors from its heap and copy them to grow them (holding both for a while).
fn map_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        const M_MMAP_THRESHOLD: i32 = -3;
        // SAFETY: mallopt only changes the allocator's policy for later allocations.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 1 << 20);
        }
    }
}

/// Asks the allocator to return the memory freed so far to the system: the candidates' rows
/// are gathered in many small vectors, freed once joined, which the allocator would
/// otherwise keep for the rest of the build.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: glibc's malloc_trim only releases free memory; it touches no live object.
        unsafe {
            malloc_trim(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pruning_many_rows_moves_whole_groups_and_single_rows_alike() {
        // rows of 1–3 entries, enough for many groups; pruned in rounds, some of which drop
        // nothing in whole groups, checked against plain lists (a row keeps its first
        // entry, as a candidate kept always keeps one)
        let mut rows = Rows::<u32>::new();
        let mut firsts = std::collections::HashSet::new();
        let mut plain: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut next = 0u32;
        for node in 0..1000u32 {
            let len = 1 + (node * 7 % 3) as usize;
            let adj: Vec<u32> = (0..len).map(|j| next + j as u32).collect();
            firsts.insert(next);
            next += len as u32;
            rows.push(
                u64::from(node),
                &adj.iter().map(|&a| u64::from(a)).collect::<Vec<_>>(),
            );
            plain.push((node, adj));
        }
        for round in 1..6u32 {
            // drops only in some stretches, so that whole groups are kept around them
            let drop_node = |n: u64| n % 97 == u64::from(round * 13) && n > 300;
            let drop_adj = |a: u64| {
                a % 89 == u64::from(round * 7) && a < 1200 && !firsts.contains(&(a as u32))
            };
            let first = if round % 2 == 0 { 0 } else { 130 };
            rows.prune(first, |n| !drop_node(n), |a| !drop_adj(a));
            let mut kept = Vec::new();
            for (k, (node, adj)) in plain.drain(..).enumerate() {
                if k < first {
                    kept.push((node, adj));
                    continue;
                }
                if drop_node(u64::from(node)) {
                    continue;
                }
                let adj: Vec<u32> = adj
                    .into_iter()
                    .filter(|&a| !drop_adj(u64::from(a)))
                    .collect();
                kept.push((node, adj));
            }
            plain = kept;
            let got: Vec<(u32, Vec<u32>)> = (0..rows.nodes.len())
                .map(|k| (rows.nodes[k], rows.row(k).to_vec()))
                .collect();
            assert_eq!(got, plain, "round {round}");
        }
    }

    #[test]
    fn copying_bits_moves_them_and_leaves_the_rest() {
        let mut words = vec![0u64; 4];
        for i in (0..256).step_by(3) {
            words[i / 64] |= 1 << (i % 64);
        }
        let before = words.clone();
        copy_bits(&mut words, 70, 5, 130);
        for i in 0..256 {
            let want = if (5..135).contains(&i) {
                bit(&before, i + 65)
            } else {
                bit(&before, i)
            };
            assert_eq!(bit(&words, i), want, "bit {i}");
        }
        assert!(all_set(&[u64::MAX, 0b111], 10, 67));
        assert!(!all_set(&[u64::MAX, 0b101], 10, 67));
    }

    #[test]
    fn pruning_rows_keeps_each_row_its_own_entries() {
        let mut rows = Rows::<u32>::new();
        rows.push(10, &[1, 2, 3]);
        rows.push(11, &[4, 5]);
        rows.push(12, &[6]);
        rows.push(13, &[7, 8, 9]);
        rows.push(14, &[10]);
        // drop node 12 and the entries 2, 5 and 8
        rows.prune(0, |n| n != 12, |a| a % 3 != 2);
        let got: Vec<(u32, Vec<u32>)> = (0..rows.nodes.len())
            .map(|k| (rows.nodes[k], rows.row(k).to_vec()))
            .collect();
        assert_eq!(
            got,
            vec![
                (10, vec![1, 3]),
                (11, vec![4]),
                (13, vec![7, 9]),
                (14, vec![10]),
            ]
        );
        // from the second row on only
        rows.push(15, &[20, 23, 21]);
        rows.prune(2, |_| true, |a| a != 23);
        assert_eq!(rows.row(0), &[1, 3]);
        assert_eq!(rows.row(2), &[7, 9]);
        assert_eq!(rows.row(4), &[20, 21]);
    }

    /// The trap on small graphs made by hand (L's candidates 0.., W's positions 100..):
    /// the kinds of cycle the rule tells apart, where no position of a buildable endgame
    /// shows the last two (see `examples/mutual_checks.rs`).
    #[test]
    fn the_trap_needs_a_quiet_answer_of_the_winner_and_not_mutual_checks() {
        // (L's candidates with the W positions their checks lead to, W's quiet moves into
        // candidates, W's checks into candidates) → the trap
        let trap = |rows_of: &[(u32, &[u32])], quiet: &[(u32, u32)], checks: &[(u32, u32)]| {
            let mut rows = Rows::<u32>::new();
            for &(n, row) in rows_of {
                rows.push(n as u64, &row.iter().map(|&a| a as u64).collect::<Vec<_>>());
            }
            // with the dead rows taken out first, or left to the fixpoint: the same
            let [(y, in_trap), (_, unfiltered)] = [true, false].map(|filter| {
                let (y, z, zw) = (Bits::new(256), Bits::new(256), Bits::new(256));
                for &(n, _) in rows_of {
                    y.set(n as u64);
                }
                let mut in_y = all_rows(rows_of.len());
                if filter {
                    in_y = live_rows(&rows, &[quiet, checks], (&y, in_y), &z);
                }
                let (_, in_trap) = greatest_trap(&rows, &[quiet], &[checks], (&y, in_y), (&z, &zw));
                assert_eq!((z.count(), zw.count()), (0, 0), "work sets left clear");
                (y, in_trap)
            });
            assert_eq!(in_trap, unfiltered);
            let mut t: Vec<u32> = rows_of
                .iter()
                .map(|&(n, _)| n)
                .filter(|&n| y.get(n as u64))
                .collect();
            t.sort();
            // the trap's rows say the same as `y`
            let by_rows: Vec<u32> = (0..rows_of.len())
                .filter(|&k| bit(&in_trap, k))
                .map(|k| rows_of[k].0)
                .collect();
            assert_eq!(by_rows.len(), t.len());
            assert!(by_rows.iter().all(|n| t.contains(n)));
            t
        };
        // 长将: L's check is answered by a quiet move back: trapped
        assert_eq!(trap(&[(0, &[100])], &[(100, 0)], &[]), [0]);
        // 解将还将: W answers only by checking back, forever: a draw, nothing trapped
        assert_eq!(trap(&[(0, &[100])], &[], &[(100, 0)]), Vec::<u32>::new());
        assert_eq!(
            trap(&[(0, &[100]), (1, &[101])], &[], &[(100, 1), (101, 0)]),
            Vec::<u32>::new()
        );
        // W checks back once, then answers quietly: trapped (finitely many checks of W)
        assert_eq!(
            trap(&[(0, &[100]), (1, &[101])], &[(101, 0)], &[(100, 1)]),
            [0, 1]
        );
        // one of L's checks reaches a W position with no way back: L escapes there
        assert_eq!(
            trap(&[(0, &[100, 102])], &[(100, 0)], &[]),
            Vec::<u32>::new()
        );
        // one whose check W can answer only by going to a candidate that escapes, escapes
        // too (the outer round: Y shrinks twice)
        assert_eq!(
            trap(
                &[(0, &[100]), (1, &[101, 102]), (2, &[103])],
                &[(100, 0), (101, 1), (102, 5), (103, 1)],
                &[]
            ),
            [0]
        );
    }

    /// A candidate whose every move loses is lost, never a row: rows refuse to be empty,
    /// which is what lets them mark where each row starts instead of its length.
    #[test]
    fn the_guards_points_are_the_palace_and_the_elephants() {
        for (c, points) in [
            (
                Color::Red,
                [
                    "d0", "f0", "e1", "d2", "f2", "c0", "g0", "a2", "e2", "i2", "c4", "g4",
                ],
            ),
            (
                Color::Black,
                [
                    "d9", "f9", "e8", "d7", "f7", "c9", "g9", "a7", "e7", "i7", "c5", "g5",
                ],
            ),
        ] {
            let want = points.iter().fold(0u128, |bits, p| {
                bits | 1u128 << p.parse::<crate::game::square::Square>().unwrap().index()
            });
            assert_eq!(guard_points(c), want, "{c}");
        }
    }

    #[test]
    #[should_panic(expected = "a candidate's row with no check in it")]
    fn a_row_is_never_empty() {
        Rows::<u32>::new().push(3, &[]);
    }

    /// Rows over many groups of [`ROW_GROUP`], joined from parts and pruned twice, read
    /// alike by row number and by the parallel walk, and as a plain list of lists says; in
    /// 32-bit entries and in 64-bit ones above 2^32 (tables with more entries a side).
    #[test]
    fn rows_across_groups_match_a_plain_list() {
        rows_match_a_plain_list::<u32>(0);
        rows_match_a_plain_list::<u64>(10_000_000_000_000);
    }

    fn rows_match_a_plain_list<S: Slot>(base: u64) {
        type Plain = Vec<(u64, Vec<u64>)>;
        // rows of 1 to 7 entries (a row is never empty)
        let row_of = |k: u64| -> Vec<u64> { (0..=k % 7).map(|j| base + k * 10 + j).collect() };
        let read = |n: S, row: &[S]| (n.index(), row.iter().map(|a| a.index()).collect());
        let mut plain: Plain = Vec::new();
        let mut rows = Rows::<S>::new();
        let mut parts = Vec::new();
        for part in 0..3u64 {
            let mut p = Rows::<S>::new();
            for k in part * 150..(part + 1) * 150 {
                p.push(base + k, &row_of(k));
                plain.push((base + k, row_of(k)));
            }
            parts.push(p);
        }
        rows.append(parts).unwrap();
        let check = |rows: &Rows<S>, plain: &[(u64, Vec<u64>)]| {
            assert_eq!(rows.nodes.len(), plain.len());
            for (k, want) in plain.iter().enumerate() {
                assert_eq!(&read(rows.nodes[k], rows.row(k)), want, "row {k}");
            }
            let walked = std::sync::Mutex::new(Vec::new());
            rows.for_each_row(|n, row| walked.lock().unwrap().push(read(n, row)));
            let mut walked = walked.into_inner().unwrap();
            walked.sort();
            let mut sorted = plain.to_vec();
            sorted.sort();
            assert_eq!(walked, sorted);
        };
        check(&rows, &plain);
        // every row kept keeps its first entry
        let (keep_node, keep_adj) = (
            |n: u64| n % 5 != 3,
            |a: u64| a.is_multiple_of(10) || a % 3 != 1,
        );
        rows.prune(100, keep_node, keep_adj);
        let mut expected: Plain = plain[..100].to_vec();
        for (n, row) in &plain[100..] {
            if keep_node(*n) {
                let row = row.iter().copied().filter(|&a| keep_adj(a)).collect();
                expected.push((*n, row));
            }
        }
        check(&rows, &expected);
        rows.prune(0, |n| n % 2 == 0, |_| true);
        expected.retain(|(n, _)| n % 2 == 0);
        check(&rows, &expected);
        // more rows appended after a pruning, their marks shifted to where they land
        let mut more = Rows::<S>::new();
        for k in 1000..1070u64 {
            more.push(base + k, &row_of(k));
            expected.push((base + k, row_of(k)));
        }
        rows.append(vec![more]).unwrap();
        check(&rows, &expected);
        // the rows chosen by a bit each, walked and swept: the sweep clears the bits of
        // the rows its test passes, and only those
        let chosen = |k: usize| k % 3 != 1;
        let mut words = vec![0u64; expected.len().div_ceil(ROW_GROUP)];
        for k in (0..expected.len()).filter(|&k| chosen(k)) {
            words[k / 64] |= 1 << (k % 64);
        }
        let walked = std::sync::Mutex::new(Vec::new());
        rows.for_each_row_in(&words, |n, row| walked.lock().unwrap().push(read(n, row)));
        let mut walked = walked.into_inner().unwrap();
        walked.sort();
        let want: Plain = (0..expected.len())
            .filter(|&k| chosen(k))
            .map(|k| expected[k].clone())
            .collect();
        assert_eq!(walked, want);
        // (the test reads a row's first entry, ten times its number past `base`)
        let passes =
            |first: u64, len: usize| len.is_multiple_of(2) && (first - base).is_multiple_of(40);
        let test = |row: &[S]| passes(row[0].index(), row.len());
        // the nodes of the rows that pass, marked (where the nodes fit a small set)
        let marks = (base == 0).then(|| Bits::new(2000));
        assert!(rows.sweep_rows(&mut words, marks.as_ref().map(|m| (m, true)), test));
        for (k, (n, row)) in expected.iter().enumerate() {
            let set = words[k / 64] >> (k % 64) & 1 != 0;
            let passed = chosen(k) && passes(row[0], row.len());
            assert_eq!(set, chosen(k) && !passed, "row {k}");
            if let Some(marks) = &marks {
                assert_eq!(marks.get(*n), passed, "node {n}");
            }
        }
        assert!(!rows.sweep_rows(&mut words, None, test));
        // and marked or unmarked by a bit a row
        if let Some(marks) = &marks {
            rows.mark_rows(&words, marks, true);
            for (k, (n, _)) in expected.iter().enumerate() {
                // (the rows left in `words`, and those the sweep marked: all those chosen)
                assert_eq!(marks.get(*n), chosen(k), "node {n}");
            }
            rows.mark_rows(&all_rows(expected.len()), marks, false);
            assert_eq!(marks.count(), 0);
        }
    }
}
