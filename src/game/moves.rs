//! [`Move`]: a piece going from one point to another, and [`MoveList`], a fixed-capacity
//! list that generation fills without allocating.

use std::fmt;
use std::ops::Deref;

use crate::game::square::Square;

/// A move (or un-move) from one point to another. Which piece moves and what it captures
/// come from the position it is played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    from: Square,
    to: Square,
}

impl Move {
    /// The move from `from` to `to`.
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }

    /// The point the piece leaves.
    pub const fn from(self) -> Square {
        self.from
    }

    /// The point it goes to.
    pub const fn to(self) -> Square {
        self.to
    }

    /// The ICCS text, e.g. `h2e2`.
    pub fn iccs(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// Enough room for every pseudo-legal move of any position (the most known is well under 128).
pub const MAX_MOVES: usize = 160;

/// A list of moves held on the stack.
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MAX_MOVES],
}

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [Move::new(Square::new_unchecked(0), Square::new_unchecked(0)); MAX_MOVES],
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, m: Move) {
        debug_assert!(self.len < MAX_MOVES);
        // A position holds at most 16 pieces a side with bounded mobility; the capacity
        // exceeds the largest possible count, so this index never goes out of bounds.
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the first `len` moves.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Keeps the moves `keep` says yes to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self.moves[i];
            if keep(m) {
                self.moves[j] = m;
                j += 1;
            }
        }
        self.len = j;
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
