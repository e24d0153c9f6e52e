//! [`Position`]: the board, the side to move, make/unmake and the Zobrist key.

use std::fmt;

use crate::game::moves::Move;
use crate::game::piece::{Color, Kind, Piece};
use crate::game::square::Square;

/// A Xiangqi position. Built through FEN ([`crate::game::fen`]) or [`Setup`], which check
/// legality; once built, moves keep it legal.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [Option<Piece>; 90],
    pub(crate) turn: Color,
    pub(crate) generals: [Square; 2],
    /// Occupied points of each side, bit `i` for square index `i`.
    pub(crate) occupied: [u128; 2],
    pub(crate) key: u64,
    /// Plies since the last capture (FEN field 5).
    pub(crate) halfmoves: u32,
    /// Move number, starting at 1 and counted up after black moves (FEN field 6).
    pub(crate) fullmoves: u32,
}

/// What [`Position::play_unchecked`] needs to take a move back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    /// The piece the move captured, if any.
    pub captured: Option<Piece>,
    halfmoves: u32,
    fullmoves: u32,
}

/// The largest ply count and move number a position keeps (and FEN reads): counting stops
/// there, so that every FEN canju writes is one it reads.
pub const MAX_MOVE_COUNTER: u32 = 999_999;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Zobrist keys: one per piece per square, fixed across runs.
static ZOBRIST: [[u64; 90]; 14] = {
    let mut t = [[0u64; 90]; 14];
    let mut state = 0x6361_6E6A_7520_7862; // "canju xb"
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            let (ns, v) = splitmix(state);
            state = ns;
            t[p][s] = v;
            s += 1;
        }
        p += 1;
    }
    t
};

/// XORed into the key when black is to move.
const ZOBRIST_BLACK: u64 = splitmix(0x7369_6465).1;

#[inline(always)]
pub(crate) const fn bit(sq: Square) -> u128 {
    1u128 << sq.index()
}

/// `1 << i` for every square, looked up rather than shifted (a 128-bit shift by a variable
/// amount takes several instructions).
static BITS: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = 1 << i;
        i += 1;
    }
    t
};

/// The mask of one point, looked up.
#[inline(always)]
pub(crate) fn point_bit(i: usize) -> u128 {
    BITS[i]
}

#[inline(always)]
fn zobrist(p: Piece, sq: Square) -> u64 {
    ZOBRIST[p.index()][sq.index()]
}

/// The standard starting position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

impl Position {
    /// The standard starting position.
    pub fn start() -> Position {
        START_FEN.parse().expect("the start FEN is valid")
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The piece on a square.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The square of `color`'s general.
    #[inline]
    pub fn general(&self, color: Color) -> Square {
        self.generals[color.index()]
    }

    /// The Zobrist key of the placement and the side to move.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Plies since the last capture.
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number (starts at 1, increases after black's move).
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The number of pieces on the board, generals included.
    pub fn piece_count(&self) -> usize {
        (self.occupied[0].count_ones() + self.occupied[1].count_ones()) as usize
    }

    /// All pieces on the board with their squares, from a0 to i9.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        // (the occupied points' bits, lowest first: a0 to i9 without visiting empty ones)
        let mut bits = self.occupied[0] | self.occupied[1];
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let p = self.board[i].expect("an occupied point holds a piece");
            Some((Square::new(i as u8).expect("a point of the board"), p))
        })
    }

    /// The first piece (from a0 on) that stands where no game can put it: a composition's
    /// placement, such as a 卒 on its own back rank (see [`Piece::may_be_set_on`]). `None`
    /// for every position a game can reach; the tables index only those.
    pub fn unreachable_piece(&self) -> Option<Unreachable> {
        self.pieces()
            .find(|&(s, p)| !p.can_stand_on(s))
            .map(|(square, piece)| Unreachable { square, piece })
    }

    /// Plays a move that must be legal in this position (as produced by
    /// [`Position::legal_moves`]) and returns what is needed to take it back.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let (from, to) = (m.from(), m.to());
        let piece = self.board[from.index()].expect("a piece on the move's origin");
        let captured = self.board[to.index()];
        let undo = Undo {
            captured,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        };
        let mut key = self.key ^ zobrist(piece, from) ^ zobrist(piece, to) ^ ZOBRIST_BLACK;
        if let Some(c) = captured {
            key ^= zobrist(c, to);
            self.halfmoves = 0;
        } else if self.halfmoves < MAX_MOVE_COUNTER {
            self.halfmoves += 1;
        }
        self.board[to.index()] = Some(piece);
        self.board[from.index()] = None;
        self.occupied[piece.color.index()] ^= bit(from) | bit(to);
        if let Some(c) = captured {
            self.occupied[c.color.index()] ^= bit(to);
        }
        if piece.kind == Kind::General {
            self.generals[piece.color.index()] = to;
        }
        if self.turn == Color::Black && self.fullmoves < MAX_MOVE_COUNTER {
            self.fullmoves += 1;
        }
        self.turn = !self.turn;
        self.key = key;
        undo
    }

    /// The Zobrist key of the position after a pseudo-legal move, without playing it.
    #[inline]
    pub fn key_after(&self, m: Move) -> u64 {
        let (from, to) = (m.from(), m.to());
        let piece = self.board[from.index()].expect("a piece on the move's origin");
        let mut key = self.key ^ zobrist(piece, from) ^ zobrist(piece, to) ^ ZOBRIST_BLACK;
        if let Some(c) = self.board[to.index()] {
            key ^= zobrist(c, to);
        }
        key
    }

    /// Takes back a move played with [`Position::play_unchecked`].
    #[inline]
    pub fn undo(&mut self, m: Move, undo: Undo) {
        let (from, to) = (m.from(), m.to());
        let piece = self.board[to.index()].expect("the moved piece on the move's target");
        let mut key = self.key ^ zobrist(piece, from) ^ zobrist(piece, to) ^ ZOBRIST_BLACK;
        if let Some(c) = undo.captured {
            key ^= zobrist(c, to);
        }
        self.board[from.index()] = Some(piece);
        self.board[to.index()] = undo.captured;
        self.occupied[piece.color.index()] ^= bit(from) | bit(to);
        if let Some(c) = undo.captured {
            self.occupied[c.color.index()] ^= bit(to);
        }
        if piece.kind == Kind::General {
            self.generals[piece.color.index()] = from;
        }
        self.turn = !self.turn;
        self.fullmoves = undo.fullmoves;
        self.halfmoves = undo.halfmoves;
        self.key = key;
    }

    /// Takes back a non-capturing move that led here: the piece on `m.to()` goes back to
    /// `m.from()` (which must be empty) and the turn passes back to its side. `m` must come
    /// from [`Position::unmoves`].
    pub fn unplay_unchecked(&mut self, m: Move) {
        let (from, to) = (m.from(), m.to());
        let piece = self.board[to.index()].expect("a piece on the un-move's target");
        debug_assert!(self.board[from.index()].is_none());
        self.board[from.index()] = Some(piece);
        self.board[to.index()] = None;
        self.occupied[piece.color.index()] ^= bit(from) | bit(to);
        if piece.kind == Kind::General {
            self.generals[piece.color.index()] = from;
        }
        self.key ^= zobrist(piece, from) ^ zobrist(piece, to) ^ ZOBRIST_BLACK;
        self.turn = !self.turn;
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_sub(1).max(1);
        }
        self.halfmoves = self.halfmoves.saturating_sub(1);
    }

    /// Replaces every piece: `pieces[i]` goes on `squares[i]`, `turn` is to move. For
    /// table work, where one scratch position is reused for millions of placements; the
    /// placement is not validated.
    pub fn set_placement(&mut self, pieces: &[Piece], squares: &[Square], turn: Color) {
        for side in self.occupied {
            let mut bits = side;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.board[i] = None;
            }
        }
        let mut occupied = [0u128; 2];
        let mut key = if turn == Color::Black {
            ZOBRIST_BLACK
        } else {
            0
        };
        for (&p, &s) in pieces.iter().zip(squares) {
            self.board[s.index()] = Some(p);
            occupied[p.color.index()] |= BITS[s.index()];
            key ^= zobrist(p, s);
            if p.kind == Kind::General {
                self.generals[p.color.index()] = s;
            }
        }
        self.occupied = occupied;
        self.key = key;
        self.turn = turn;
        self.halfmoves = 0;
        self.fullmoves = 1;
    }

    /// [`Position::set_placement`] for a position that holds `pieces` on `before` (as that
    /// call or this one left it; `None` when it holds nothing known): only the pieces whose
    /// point changed are moved, which is what a pass over a table's consecutive entries
    /// mostly needs.
    pub fn replace_placement(
        &mut self,
        pieces: &[Piece],
        before: Option<&[Square]>,
        after: &[Square],
        turn: Color,
    ) {
        let Some(before) = before else {
            return self.set_placement(pieces, after, turn);
        };
        let mut key = self.key;
        // every piece leaves before any arrives, so that two may trade points
        for ((&p, &b), &a) in pieces.iter().zip(before).zip(after) {
            if a != b {
                debug_assert_eq!(self.board[b.index()], Some(p));
                self.board[b.index()] = None;
                self.occupied[p.color.index()] ^= BITS[b.index()];
                key ^= zobrist(p, b);
            }
        }
        for ((&p, &b), &a) in pieces.iter().zip(before).zip(after) {
            if a != b {
                self.board[a.index()] = Some(p);
                self.occupied[p.color.index()] |= BITS[a.index()];
                key ^= zobrist(p, a);
                if p.kind == Kind::General {
                    self.generals[p.color.index()] = a;
                }
            }
        }
        if turn != self.turn {
            key ^= ZOBRIST_BLACK;
        }
        self.key = key;
        self.turn = turn;
        self.halfmoves = 0;
        self.fullmoves = 1;
    }

    /// A position with no pieces at all, only for [`Position::set_placement`] to fill.
    pub fn scratch() -> Position {
        Position::from_parts([None; 90], Color::Red, 0, 1)
    }

    /// The same position seen from the other side: ranks mirrored, colours and the side to
    /// move swapped. Values of a position and its colour flip are the same.
    pub fn color_flipped(&self) -> Position {
        let mut board = [None; 90];
        for (s, p) in self.pieces() {
            board[s.flip().index()] = Some(Piece::new(!p.color, p.kind));
        }
        Position::from_parts(board, !self.turn, self.halfmoves, self.fullmoves)
    }

    /// Gives the turn to the other side in place (a "pass", which the rules do not allow:
    /// for analysis only; the side not to move may then be in check). A second call
    /// restores the position exactly.
    pub fn pass_turn(&mut self) {
        self.turn = !self.turn;
        self.key ^= ZOBRIST_BLACK;
    }

    /// The left-right mirror image (files a ↔ i). Values are unchanged.
    pub fn mirrored(&self) -> Position {
        let mut board = [None; 90];
        for (s, p) in self.pieces() {
            board[s.mirror().index()] = Some(p);
        }
        Position::from_parts(board, self.turn, self.halfmoves, self.fullmoves)
    }

    /// Assembles a position from a board whose generals are both present (not checked
    /// further; callers validate).
    pub(crate) fn from_parts(
        board: [Option<Piece>; 90],
        turn: Color,
        halfmoves: u32,
        fullmoves: u32,
    ) -> Position {
        let mut generals = [Square::new_unchecked(0); 2];
        let mut occupied = [0u128; 2];
        let mut key = if turn == Color::Black {
            ZOBRIST_BLACK
        } else {
            0
        };
        for s in Square::all() {
            if let Some(p) = board[s.index()] {
                key ^= zobrist(p, s);
                occupied[p.color.index()] |= bit(s);
                if p.kind == Kind::General {
                    generals[p.color.index()] = s;
                }
            }
        }
        Position {
            board,
            turn,
            generals,
            occupied,
            key,
            halfmoves,
            fullmoves,
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

/// Builds a position piece by piece and checks it with the same rules as FEN.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The pieces by point index (`Square::index`).
    pub board: [Option<Piece>; 90],
    /// The side to move.
    pub turn: Color,
}

impl Setup {
    /// An empty board with `turn` to move.
    pub fn empty(turn: Color) -> Setup {
        Setup {
            board: [None; 90],
            turn,
        }
    }

    /// Puts `piece` on `sq` (replacing what was there).
    pub fn put(&mut self, sq: Square, piece: Piece) -> &mut Setup {
        self.board[sq.index()] = Some(piece);
        self
    }

    /// The piece put on a point so far.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Checks the setup (counts, placement, the side not to move not in check).
    pub fn into_position(self) -> Result<Position, PositionError> {
        validate(self.board, self.turn, 0, 1)
    }
}

/// Why a placement of pieces is not a position canju plays: a step after reading a FEN (or
/// setting up a board, [`crate::Setup`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A side without its general.
    #[error("{0} has no general")]
    NoGeneral(Color),
    #[error("{color} has {count} {kind}s, at most {max} allowed")]
    /// More pieces of a kind than a side starts with.
    TooMany {
        /// The side.
        color: Color,
        /// The kind.
        kind: &'static str,
        /// How many it has.
        count: usize,
        /// The most it may have.
        max: u8,
    },
    #[error("{color} {kind} on {square}: it can never stand there")]
    /// A piece on a point its kind can never reach.
    Placement {
        /// Its side.
        color: Color,
        /// Its kind.
        kind: &'static str,
        /// The point.
        square: Square,
    },
    #[error(
        "the generals face each other on file {0} with nothing between them (flying general: a position no game reaches)"
    )]
    /// The generals face each other on an open file.
    GeneralsFacing(crate::game::square::File),
    #[error("{checked} is in check, but {to_move} is to move")]
    /// The side that has just moved is in check.
    SideNotToMoveInCheck {
        /// The side in check.
        checked: Color,
        /// The side to move.
        to_move: Color,
    },
}

/// A piece standing where no game can put it (composers set such pieces; see
/// [`Piece::may_be_set_on`]). Displays as "black soldier on f9 stands where no game can put it".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreachable {
    /// Its point.
    pub square: Square,
    /// The piece.
    pub piece: Piece,
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} on {} stands where no game can put it",
            self.piece.color,
            self.piece.kind.name(),
            self.square
        )
    }
}

/// Checks a board for legality (as described in the crate's rules) and builds the position.
pub(crate) fn validate(
    board: [Option<Piece>; 90],
    turn: Color,
    halfmoves: u32,
    fullmoves: u32,
) -> Result<Position, PositionError> {
    let mut counts = [[0usize; 7]; 2];
    for s in Square::all() {
        if let Some(p) = board[s.index()] {
            counts[p.color.index()][p.kind.index()] += 1;
        }
    }
    for color in Color::ALL {
        if counts[color.index()][Kind::General.index()] == 0 {
            return Err(PositionError::NoGeneral(color));
        }
        for kind in Kind::ALL {
            let count = counts[color.index()][kind.index()];
            if count > kind.max_count() as usize {
                return Err(PositionError::TooMany {
                    color,
                    kind: kind.name(),
                    count,
                    max: kind.max_count(),
                });
            }
        }
    }
    for s in Square::all() {
        if let Some(p) = board[s.index()]
            && !p.may_be_set_on(s)
        {
            return Err(PositionError::Placement {
                color: p.color,
                kind: p.kind.name(),
                square: s,
            });
        }
    }
    let pos = Position::from_parts(board, turn, halfmoves, fullmoves);
    let other = !turn;
    if pos.generals_facing() {
        return Err(PositionError::GeneralsFacing(
            pos.general(Color::Red).file(),
        ));
    }
    if pos.in_check(other) {
        return Err(PositionError::SideNotToMoveInCheck {
            checked: other,
            to_move: turn,
        });
    }
    Ok(pos)
}
