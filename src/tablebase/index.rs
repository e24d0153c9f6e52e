//! Position ↔ index for one material signature.
//!
//! Every piece stands only on the points it can ever reach (general 9, advisor 5,
//! elephant 7, soldier 55, others 90); like pieces form one group indexed as a combination.
//! The two generals together take one of 45 placements that are canonical under the
//! left-right mirror: a position whose generals are not canonical is mirrored first. When
//! both generals stand on the centre file both mirror images are stored.
//!
//! index = general pair × group₁ × group₂ × …, mixed radix, the same for both sides to move.

use strength_reduce::StrengthReducedU64;

use crate::game::material::Material;
use crate::game::piece::{Color, Kind, Piece};
use crate::game::square::Square;

/// Version of this index scheme, recorded in every table header.
pub const INDEX_SCHEME: u32 = 1;

const NO: u8 = u8::MAX;

/// Binomial coefficients C(n, k) for n < 91, k ≤ 5.
static BINOMIAL: [[u64; 6]; 91] = {
    let mut t = [[0u64; 6]; 91];
    let mut n = 0;
    while n < 91 {
        t[n][0] = 1;
        let mut k = 1;
        while k < 6 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// General pairs: for red general square × black general square, the pair index (0..45)
/// and whether the position must be mirrored first; `NO` for impossible pairs.
static GENERAL_PAIRS: [[(u8, bool); 90]; 90] = {
    let mut t = [[(NO, false); 90]; 90];
    let mut next = 0u8;
    // canonical pairs first, in square order; then the mirrored pairs point at their twin
    let mut pass = 0;
    while pass < 2 {
        let mut r = 0;
        while r < 90 {
            let mut b = 0;
            while b < 90 {
                let (rf, rr) = (r % 9, r / 9);
                let (bf, br) = (b % 9, b / 9);
                let in_palaces = rf >= 3 && rf <= 5 && rr <= 2 && bf >= 3 && bf <= 5 && br >= 7;
                let canonical = rf < 4 || (rf == 4 && bf <= 4);
                if in_palaces && pass == 0 && canonical {
                    t[r][b] = (next, false);
                    next += 1;
                } else if in_palaces && pass == 1 && !canonical {
                    t[r][b] = (t[rr * 9 + (8 - rf)][br * 9 + (8 - bf)].0, true);
                }
                b += 1;
            }
            r += 1;
        }
        pass += 1;
    }
    t
};

/// Number of canonical general pairs.
pub const GENERAL_PAIR_COUNT: u64 = 45;

/// Whether both generals stand on the centre file (the pair is its own mirror image).
#[inline]
pub fn pair_is_symmetric(red_general: Square, black_general: Square) -> bool {
    red_general.file().index() == 4 && black_general.file().index() == 4
}

/// Whether a position with these generals is stored mirrored.
#[inline]
pub fn needs_mirror(red_general: Square, black_general: Square) -> bool {
    GENERAL_PAIRS[red_general.index()][black_general.index()].1
}

/// Where one kind of piece of one side may stand, both ways.
#[derive(Clone, Debug)]
struct Placement {
    squares: Vec<Square>,
    /// The place of a square, as it stands (`[0]`) and mirrored (`[1]`).
    place_of: [[u8; 90]; 2],
}

impl Placement {
    fn new(piece: Piece) -> Placement {
        let squares: Vec<Square> = Square::all().filter(|&s| piece.can_stand_on(s)).collect();
        let mut place_of = [[NO; 90]; 2];
        for (i, s) in squares.iter().enumerate() {
            place_of[0][s.index()] = i as u8;
            place_of[1][s.mirror().index()] = i as u8;
        }
        Placement { squares, place_of }
    }
}

#[derive(Clone, Debug)]
struct Group {
    /// First slot of the group in the piece list.
    first: usize,
    count: usize,
    placement: Placement,
    size: u64,
    /// `size` prepared for fast division (decoding divides by it at every index).
    divisor: StrengthReducedU64,
    /// For groups of up to three pieces: the places of each combination index.
    decode: Vec<[u8; 3]>,
    /// The product of the sizes of the groups after this one.
    stride: u64,
}

impl Group {
    /// The combination index of the group's squares (mirrored first if asked).
    #[inline(always)]
    fn comb(&self, on: &[Square], mirror: bool) -> u64 {
        let place_of = &self.placement.place_of[mirror as usize];
        let place = |s: Square| {
            let p = place_of[s.index()];
            debug_assert!(p != NO);
            p as u64
        };
        match self.count {
            1 => place(on[0]),
            2 => pair_comb(place(on[0]), place(on[1])),
            _ => {
                let mut places = [0u8; 5];
                for (j, &s) in on.iter().enumerate() {
                    places[j] = place(s) as u8;
                }
                let places = &mut places[..self.count];
                places.sort_unstable();
                places
                    .iter()
                    .enumerate()
                    .map(|(j, &p)| BINOMIAL[p as usize][j + 1])
                    .sum()
            }
        }
    }
}

/// The combination index of two distinct places, in either order.
#[inline(always)]
fn pair_comb(a: u64, b: u64) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    hi * (hi - 1) / 2 + lo
}

/// See [`Layout::slot_moves`].
pub struct SlotMoves<'a> {
    layout: &'a Layout,
    squares: &'a [Square],
    slot: usize,
    by: By<'a>,
}

/// How [`SlotMoves`] finds an entry: from the index without the moving piece's group (or,
/// for a general, without the generals' pair), adding back the group with the piece on its
/// new point.
enum By<'a> {
    /// A group of one piece.
    Single { base: u64, g: &'a Group },
    /// A group of two: the other piece's place.
    Pair { base: u64, other: u64, g: &'a Group },
    /// A larger group, ranked anew with the piece moved.
    Group { base: u64, g: &'a Group },
    /// A general: whether it is red's, and the other general's point.
    Generals { base: u64, red: bool, other: Square },
}

impl SlotMoves<'_> {
    /// The entry after the piece moves to the empty point `to`.
    #[inline(always)]
    pub fn index_to(&self, to: Square) -> u64 {
        let place = |g: &Group, s: Square| u64::from(g.placement.place_of[0][s.index()]);
        match self.by {
            By::Single { base, g } => base + place(g, to) * g.stride,
            By::Pair { base, other, g } => base + pair_comb(place(g, to), other) * g.stride,
            By::Group { base, g } => base + self.group_with(g, to) * g.stride,
            By::Generals { base, red, other } => {
                let (rk, bk) = if red { (to, other) } else { (other, to) };
                match GENERAL_PAIRS[rk.index()][bk.index()] {
                    (pair, false) => base + u64::from(pair) * self.layout.pair_stride,
                    // a pair stored mirrored moves every piece
                    (_, true) => self.mirrored(to),
                }
            }
        }
    }

    /// The rank of a group of three or more with the piece on `to`.
    #[inline(never)]
    fn group_with(&self, g: &Group, to: Square) -> u64 {
        let mut moved = [to; 5];
        moved[..g.count].copy_from_slice(&self.squares[g.first..g.first + g.count]);
        moved[self.slot - g.first] = to;
        g.comb(&moved[..g.count], false)
    }

    /// The whole index of the placement with the general on `to`, whose pair is stored
    /// mirrored.
    #[inline(never)]
    fn mirrored(&self, to: Square) -> u64 {
        let n = self.squares.len();
        let mut moved = [to; MAX_PIECES];
        moved[..n].copy_from_slice(self.squares);
        moved[self.slot] = to;
        self.layout.index(&moved[..n])
    }
}

/// The places (ascending) of combination `comb` of `count` items, by search.
fn unrank(mut comb: u64, count: usize, n: usize, out: &mut [u8]) {
    let mut top = n;
    for j in (0..count).rev() {
        // the largest p < top with C(p, j+1) <= comb, by binary search
        let (mut lo, mut hi) = (j, top - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if BINOMIAL[mid][j + 1] <= comb {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        comb -= BINOMIAL[lo][j + 1];
        out[j] = lo as u8;
        top = lo;
    }
}

/// The index layout of one material signature.
#[derive(Clone, Debug)]
pub struct Layout {
    material: Material,
    pieces: Vec<Piece>,
    black_general: usize,
    groups: Vec<Group>,
    /// The group of each slot (`usize::MAX` for the generals).
    group_of: [usize; MAX_PIECES],
    size: u64,
    /// The entries of one general pair (the product of the groups' sizes).
    pair_stride: u64,
}

/// The squares of a position's pieces in the layout's slot order.
pub type Squares = [Square; MAX_PIECES];

/// Most pieces a table may have (both generals included).
pub const MAX_PIECES: usize = 10;

impl Layout {
    /// The layout for a material, taken as given (callers pass canonical material for
    /// stored tables). Returns `None` for more than [`MAX_PIECES`] pieces.
    pub fn new(material: Material) -> Option<Layout> {
        let pieces = material.pieces();
        if pieces.len() > MAX_PIECES {
            return None;
        }
        let black_general = pieces
            .iter()
            .position(|p| p.color == Color::Black)
            .expect("black general");
        let mut groups = Vec::new();
        let mut i = 0;
        while i < pieces.len() {
            let p = pieces[i];
            let count = pieces[i..].iter().take_while(|&&q| q == p).count();
            if p.kind != Kind::General {
                let placement = Placement::new(p);
                let n = placement.squares.len();
                let size = BINOMIAL[n][count];
                let decode = if (2..=3).contains(&count) {
                    (0..size)
                        .map(|c| {
                            let mut out = [0u8; 3];
                            unrank(c, count, n, &mut out);
                            out
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                groups.push(Group {
                    first: i,
                    count,
                    placement,
                    size,
                    divisor: StrengthReducedU64::new(size),
                    decode,
                    stride: 0,
                });
            }
            i += count;
        }
        let mut stride = 1;
        for g in groups.iter_mut().rev() {
            g.stride = stride;
            stride *= g.size;
        }
        let size = groups.iter().map(|g| g.size).product::<u64>() * GENERAL_PAIR_COUNT;
        let mut group_of = [usize::MAX; MAX_PIECES];
        for (k, g) in groups.iter().enumerate() {
            group_of[g.first..g.first + g.count].fill(k);
        }
        Some(Layout {
            material,
            pieces,
            black_general,
            groups,
            group_of,
            size,
            pair_stride: stride,
        })
    }

    /// The material the layout indexes.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Entries per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The pieces in slot order.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The slot of black's general in a placement.
    pub fn black_general_slot(&self) -> usize {
        self.black_general
    }

    /// The index of a placement given in slot order. Squares must be on points their
    /// pieces can stand on (true of any legal position with this material).
    #[inline]
    pub fn index(&self, squares: &[Square]) -> u64 {
        let (rk, bk) = (squares[0], squares[self.black_general]);
        let (pair, mirror) = GENERAL_PAIRS[rk.index()][bk.index()];
        debug_assert!(pair != NO);
        let mut idx = pair as u64;
        for g in &self.groups {
            idx = idx * g.size + g.comb(&squares[g.first..g.first + g.count], mirror);
        }
        idx
    }

    /// The index after the piece in `slot` moves to `to` (a quiet move), from the index
    /// and placement (canonical orientation) before: only that piece's group changes, or
    /// for a general the pair alone unless the new pair is stored mirrored.
    #[inline(always)]
    pub fn index_after_move(&self, index: u64, squares: &[Square], slot: usize, to: Square) -> u64 {
        self.slot_moves(index, squares, slot).index_to(to)
    }

    /// The entries the piece in `slot` reaches by quiet moves: what depends only on the
    /// placement before is worked out here once, for many moves of one piece.
    #[inline(always)]
    pub fn slot_moves<'a>(
        &'a self,
        index: u64,
        squares: &'a [Square],
        slot: usize,
    ) -> SlotMoves<'a> {
        let by = if self.is_general_slot(slot) {
            let bk = self.black_general;
            let (before, before_mirror) = GENERAL_PAIRS[squares[0].index()][squares[bk].index()];
            debug_assert!(before != NO && !before_mirror);
            By::Generals {
                base: index - u64::from(before) * self.pair_stride,
                red: slot == 0,
                other: squares[if slot == 0 { bk } else { 0 }],
            }
        } else {
            let g = &self.groups[self.group_of[slot]];
            let place = |s: Square| u64::from(g.placement.place_of[0][s.index()]);
            match g.count {
                1 => By::Single {
                    base: index - place(squares[slot]) * g.stride,
                    g,
                },
                2 => {
                    let other = place(squares[2 * g.first + 1 - slot]);
                    By::Pair {
                        base: index - pair_comb(place(squares[slot]), other) * g.stride,
                        other,
                        g,
                    }
                }
                _ => By::Group {
                    base: index - g.comb(&squares[g.first..g.first + g.count], false) * g.stride,
                    g,
                },
            }
        };
        SlotMoves {
            layout: self,
            squares,
            slot,
            by,
        }
    }

    /// The position of an entry with `turn` to move (generals in canonical orientation),
    /// or `None` when two pieces would share a point.
    pub fn position(&self, index: u64, turn: Color) -> Option<crate::game::position::Position> {
        let mut sq: Squares = [Square::new(0)?; MAX_PIECES];
        self.squares(index, &mut sq)?;
        let mut pos = crate::game::position::Position::scratch();
        let n = self.pieces.len();
        pos.set_placement(&self.pieces, &sq[..n], turn);
        Some(pos)
    }

    /// How many values [`Layout::without_slot`] takes for `slot`, or `None` for a piece
    /// one of two or more alike (whose entries are ranked together).
    pub fn without_slot_size(&self, slot: usize) -> Option<u64> {
        if self.is_general_slot(slot) {
            return Some(self.pair_stride);
        }
        let g = &self.groups[self.group_of[slot]];
        (g.count == 1).then(|| self.size / g.size)
    }

    /// The entry `index` with the piece in `slot` left out (both generals for a general),
    /// numbered densely below [`Layout::without_slot_size`]: the same for two entries in
    /// the same orientation that differ only in where that piece stands (the generals), and
    /// different for any two that differ elsewhere. Not defined for a slot
    /// `without_slot_size` gives no size for.
    #[inline]
    pub fn without_slot(&self, index: u64, slot: usize) -> u64 {
        if self.is_general_slot(slot) {
            return index % self.pair_stride;
        }
        let g = &self.groups[self.group_of[slot]];
        debug_assert_eq!(g.count, 1);
        // the groups before this one count above its stride, those after it below
        index / (g.size * g.stride) * g.stride + index % g.stride
    }

    /// [`Layout::without_slot`] of a general for the mirror image of the placement
    /// `squares` (any orientation): a general's move may lead to a position stored mirrored.
    pub fn without_generals_mirrored(&self, squares: &[Square]) -> u64 {
        self.groups.iter().fold(0, |idx, g| {
            idx * g.size + g.comb(&squares[g.first..g.first + g.count], true)
        })
    }

    /// Whether a slot holds a general.
    #[inline]
    pub fn is_general_slot(&self, slot: usize) -> bool {
        slot == 0 || slot == self.black_general
    }

    /// The placement of an index in slot order, or `None` when two pieces would share a
    /// point. The generals are in canonical orientation.
    #[inline]
    pub fn squares(&self, index: u64, out: &mut Squares) -> Option<()> {
        if index >= self.size {
            return None;
        }
        match self.groups.last() {
            None => self.place_rest(index, out).map(|_| ()),
            Some(last) => {
                let (rest, comb) = StrengthReducedU64::div_rem(index, last.divisor);
                let mut used = self.place_rest(rest, out)?;
                self.place_group(last, comb, out, &mut used).then_some(())
            }
        }
    }

    /// Places one group's combination; false if a point is taken.
    #[inline(always)]
    fn place_group(&self, g: &Group, comb: u64, out: &mut Squares, used: &mut u128) -> bool {
        let mut places = [0u8; 5];
        match g.count {
            1 => places[0] = comb as u8,
            2 | 3 => places[..3].copy_from_slice(&g.decode[comb as usize]),
            _ => unrank(comb, g.count, g.placement.squares.len(), &mut places),
        }
        for j in 0..g.count {
            let s = g.placement.squares[places[j] as usize];
            let bit = 1u128 << s.index();
            if *used & bit != 0 {
                return false;
            }
            *used |= bit;
            out[g.first + j] = s;
        }
        true
    }

    /// Places the generals and every group but the last from `rest` (the index without
    /// the last group's digit); returns the points taken, or `None` on a clash.
    #[inline]
    fn place_rest(&self, mut rest: u64, out: &mut Squares) -> Option<u128> {
        let mut used: u128 = 0;
        let skip = if self.groups.is_empty() { 0 } else { 1 };
        for g in self.groups.iter().rev().skip(skip) {
            let (quotient, comb) = StrengthReducedU64::div_rem(rest, g.divisor);
            rest = quotient;
            if !self.place_group(g, comb, out, &mut used) {
                return None;
            }
        }
        let (rk, bk) = general_pair(rest as u8);
        for (slot, s) in [(0, rk), (self.black_general, bk)] {
            let bit = 1u128 << s.index();
            if used & bit != 0 {
                return None;
            }
            used |= bit;
            out[slot] = s;
        }
        Some(used)
    }
}

/// Remembers the placement of every piece but the last group from the previous decode,
/// so that runs of nearby indices (which share it) decode quickly.
#[derive(Clone, Copy, Debug, Default)]
pub struct DecodeCache(Option<(u64, Option<u128>)>);

/// Decodes runs of consecutive indices: the pieces other than the last group are placed
/// once for every run that shares them.
pub struct Decoder<'a> {
    layout: &'a Layout,
    cache: DecodeCache,
}

impl<'a> Decoder<'a> {
    /// A decoder of `layout`'s indices.
    pub fn new(layout: &'a Layout) -> Decoder<'a> {
        Decoder {
            layout,
            cache: DecodeCache::default(),
        }
    }

    /// Like [`Layout::squares`]; `out` must be left as this decoder wrote it between calls.
    #[inline]
    pub fn squares(&mut self, index: u64, out: &mut Squares) -> Option<()> {
        self.layout.squares_cached(index, out, &mut self.cache)
    }
}

impl Layout {
    /// Like [`Layout::squares`], reusing the placement of all but the last group from the
    /// previous call with the same cache when they agree; `out` must be left as the
    /// previous call with this cache wrote it.
    #[inline]
    pub fn squares_cached(
        &self,
        index: u64,
        out: &mut Squares,
        cache: &mut DecodeCache,
    ) -> Option<()> {
        let Some(last) = self.groups.last() else {
            return self.squares(index, out);
        };
        if index >= self.size {
            return None;
        }
        let (rest, comb) = StrengthReducedU64::div_rem(index, last.divisor);
        let mask = match cache.0 {
            Some((r, m)) if r == rest => m,
            _ => {
                let m = self.place_rest(rest, out);
                cache.0 = Some((rest, m));
                m
            }
        };
        let mut used = mask?;
        self.place_group(last, comb, out, &mut used).then_some(())
    }
}

/// The squares of canonical general pair `pair`.
#[inline]
pub fn general_pair(pair: u8) -> (Square, Square) {
    let (r, b) = PAIR_SQUARES[pair as usize];
    (Square::new_unchecked(r), Square::new_unchecked(b))
}

/// The squares of each canonical general pair, red then black.
static PAIR_SQUARES: [(u8, u8); GENERAL_PAIR_COUNT as usize] = {
    let mut t = [(0u8, 0u8); GENERAL_PAIR_COUNT as usize];
    let mut r = 0;
    while r < 90 {
        let mut b = 0;
        while b < 90 {
            let (i, m) = GENERAL_PAIRS[r][b];
            if i != NO && !m {
                t[i as usize] = (r as u8, b as u8);
            }
            b += 1;
        }
        r += 1;
    }
    t
};

/// Whether the canonical general pair `pair` is its own mirror image.
pub fn pair_index_is_symmetric(pair: u64) -> bool {
    let (r, b) = general_pair(pair as u8);
    pair_is_symmetric(r, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_five_general_pairs() {
        let mut seen = std::collections::HashSet::new();
        let mut symmetric = 0;
        for r in Square::all() {
            for b in Square::all() {
                let (i, m) = GENERAL_PAIRS[r.index()][b.index()];
                if i != NO {
                    seen.insert(i);
                    if !m && pair_is_symmetric(r, b) {
                        symmetric += 1;
                    }
                    assert_eq!(GENERAL_PAIRS[r.mirror().index()][b.mirror().index()].0, i);
                }
            }
        }
        assert_eq!(seen.len(), 45);
        assert_eq!(symmetric, 9);
    }

    #[test]
    fn decoder_agrees_with_squares() {
        for name in ["KNPKAB", "KPPKB", "KK", "KRK"] {
            let l = Layout::new(name.parse().unwrap()).unwrap();
            let mut a = [Square::new(0).unwrap(); MAX_PIECES];
            let mut b = [Square::new(0).unwrap(); MAX_PIECES];
            let mut d = Decoder::new(&l);
            let step = (l.size() / 50_000).max(1);
            let n = l.pieces().len();
            for i in (0..l.size())
                .step_by(step as usize)
                .chain(0..l.size().min(5000))
            {
                let x = l.squares(i, &mut a);
                let y = d.squares(i, &mut b);
                assert_eq!(x, y, "{name} {i}");
                if x.is_some() {
                    assert_eq!(a[..n], b[..n], "{name} {i}");
                }
            }
        }
    }

    /// So do the entries of [`Layout::slot_moves`].
    #[test]
    fn index_after_move_matches_a_full_index() {
        // groups of one, two and three pieces; the generals' moves included (to a pair
        // stored as it is and to one stored mirrored)
        for (material, step) in [("KNPKAABB", 7919), ("KPPPKA", 997)] {
            index_after_move_matches_a_full_index_in(material, step);
        }
    }

    fn index_after_move_matches_a_full_index_in(material: &str, step: usize) {
        let l = Layout::new(material.parse().unwrap()).unwrap();
        let n = l.pieces().len();
        let mut sq = [Square::new(0).unwrap(); MAX_PIECES];
        let mut checked = 0;
        for i in (0..l.size()).step_by(step) {
            if l.squares(i, &mut sq).is_none() {
                continue;
            }
            for slot in 0..n {
                let piece = l.pieces()[slot];
                let entries = l.slot_moves(i, &sq[..n], slot);
                for to in Square::all() {
                    if !piece.can_stand_on(to) || sq[..n].contains(&to) {
                        continue;
                    }
                    let mut moved = sq;
                    moved[slot] = to;
                    let full = l.index(&moved[..n]);
                    assert_eq!(l.index_after_move(i, &sq[..n], slot, to), full);
                    assert_eq!(entries.index_to(to), full);
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000);
    }

    /// [`Layout::without_slot`] keeps everything but the piece left out: the entries a move
    /// of that piece leads to share it (a general's, mirrored where the pair is stored
    /// mirrored), and with where the piece stands it gives the entry back.
    #[test]
    fn without_slot_leaves_out_one_piece() {
        for (material, step) in [("KNPKAABB", 7919), ("KRPKR", 101), ("KPPPKA", 997)] {
            let l = Layout::new(material.parse().unwrap()).unwrap();
            let n = l.pieces().len();
            let mut sq = [Square::new(0).unwrap(); MAX_PIECES];
            let mut after = sq;
            let (mut same, mut mirrored) = (0, 0);
            for i in (0..l.size()).step_by(step) {
                if l.squares(i, &mut sq).is_none() {
                    continue;
                }
                for slot in 0..n {
                    let Some(size) = l.without_slot_size(slot) else {
                        assert!(l.groups[l.group_of[slot]].count > 1, "{material} {slot}");
                        continue;
                    };
                    let key = l.without_slot(i, slot);
                    assert!(key < size, "{material} {i} {slot}");
                    if !l.is_general_slot(slot) {
                        let g = &l.groups[l.group_of[slot]];
                        let place = i / g.stride % g.size;
                        let whole = key / g.stride * g.size * g.stride + place * g.stride;
                        assert_eq!(whole + key % g.stride, i, "{material} {slot}");
                    }
                    for to in Square::all() {
                        let piece = l.pieces()[slot];
                        if !piece.can_stand_on(to) || sq[..n].contains(&to) {
                            continue;
                        }
                        let mut moved = sq;
                        moved[slot] = to;
                        let (rk, bk) = (moved[0], moved[l.black_general]);
                        if GENERAL_PAIRS[rk.index()][bk.index()].0 == NO {
                            continue;
                        }
                        let j = l.index(&moved[..n]);
                        l.squares(j, &mut after).unwrap();
                        if l.without_slot(j, slot) == key {
                            same += 1;
                        } else {
                            assert!(l.is_general_slot(slot), "{material} {i} {slot} {to}");
                            assert_eq!(l.without_generals_mirrored(&after[..n]), key);
                            mirrored += 1;
                        }
                    }
                }
            }
            assert!(
                same > 10_000 && mirrored > 100,
                "{material}: {same} {mirrored}"
            );
        }
    }

    #[test]
    fn sizes() {
        let l = Layout::new("KNPKAABB".parse().unwrap()).unwrap();
        assert_eq!(l.size(), 45 * 90 * 55 * 10 * 21);
        let l = Layout::new("KK".parse().unwrap()).unwrap();
        assert_eq!(l.size(), 45);
    }

    #[test]
    fn index_round_trips_on_every_entry_of_small_tables() {
        for name in ["KRK", "KAAK", "KPPKB", "KNKAA"] {
            let l = Layout::new(name.parse().unwrap()).unwrap();
            let mut sq = [Square::new(0).unwrap(); MAX_PIECES];
            let mut valid = 0;
            for i in 0..l.size() {
                if l.squares(i, &mut sq).is_some() {
                    assert_eq!(l.index(&sq[..l.pieces().len()]), i, "{name} {i}");
                    valid += 1;
                }
            }
            assert!(valid > 0);
        }
    }
}
