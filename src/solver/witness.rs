//! Stalemate witnesses: legal moves of the defender that an attacker's quiet move must
//! touch to take away, so that most quiet moves are known not to stalemate without being
//! played.

use crate::game::moves::{Move, MoveList};
use crate::game::piece::Kind;
use crate::game::position::Position;
use crate::game::square::Square;

use super::checks::footprint;

/// Some legal moves of the defender (to move in the position the witnesses are taken
/// from, not in check) with, for each, the points an attacker's move must touch to take it
/// away: while the attacker's move gives no check, a witness it touches nowhere stays a
/// legal move, so that move is no stalemate.
///
/// - A move by a piece other than the general that touches none of the general's sensitive
///   points for every kind of piece (its file and rank, its horse zone): its footprint (the
///   move stays possible while nothing on it changes, and it cannot expose the general,
///   whom the attacker's move left unattacked). The points are those for every kind, not
///   only the kinds the attacker has: the attacker's general may step onto the file that
///   the witness would leave.
/// - A step of the general to `s`: `s` and the points sensitive for a general there, with
///   the point it leaves (the step stays legal while none of them changes).
pub(super) struct Witnesses {
    pub(super) sets: [u128; Witnesses::MAX],
    pub(super) len: usize,
    /// Three of them are pairwise disjoint: a move, which changes two points, leaves one.
    pub(super) spare: bool,
    /// With `spare`, those three moves.
    pub(super) spare_moves: [Move; 3],
    /// The general's legal steps (when they were looked for: not with three disjoint
    /// witnesses, nor with eight others).
    pub(super) steps: u128,
    /// Three moves of one piece whose footprints share no point but the piece's own (found
    /// on the way; see [`Witnesses::still_robust`]).
    pub(super) robust: Option<[Move; 3]>,
    /// The robust piece alone, kept from another node ([`Witnesses::still_robust`]).
    pub(super) kept_robust: bool,
}

impl Witnesses {
    pub(super) const MAX: usize = 8;

    /// As if three disjoint witnesses were known: no quiet move is looked at (the
    /// checks-only search, where a stalemate by a quiet move does not count).
    pub(super) fn stalemate_not_sought() -> Witnesses {
        Witnesses {
            spare: true,
            ..Witnesses::none()
        }
    }

    pub(super) fn none() -> Witnesses {
        let nothing = Move::new(Square::new_unchecked(0), Square::new_unchecked(0));
        Witnesses {
            sets: [0; Witnesses::MAX],
            len: 0,
            spare: false,
            spare_moves: [nothing; 3],
            steps: 0,
            robust: None,
            kept_robust: false,
        }
    }

    pub(super) fn of(null: &Position, sensitive: u128) -> Witnesses {
        let mut w = Witnesses::none();
        let us = null.turn();
        let general = null.general(us);
        let mut list = MoveList::new();
        let mut used = 0u128;
        let mut disjoint = 0;
        // piece by piece, so that three disjoint witnesses end the search early; a piece
        // on a sensitive point has none
        let occupied = null.occupancy();
        let mut pieces = null.occupied[us.index()] & !sensitive;
        while pieces != 0 {
            let from = Square::new_unchecked(pieces.trailing_zeros() as u8);
            pieces &= pieces - 1;
            let kind = null.board[from.index()].expect("an occupied point").kind;
            // (the piece's target points as bits, off the sensitive ones, without listing
            // its moves: the first few usually settle it)
            let (quiet, captures) = null.targets(from.index(), occupied);
            let mut targets = (quiet | captures) & !sensitive;
            while targets != 0 {
                let to = Square::new_unchecked(targets.trailing_zeros() as u8);
                targets &= targets - 1;
                let f = footprint(kind, Move::new(from, to));
                if f & used == 0 {
                    used |= f;
                    w.spare_moves[disjoint] = Move::new(from, to);
                    disjoint += 1;
                    if disjoint == 3 {
                        w.spare = true;
                        return w;
                    }
                } else if w.len == Witnesses::MAX {
                    continue;
                }
                w.push(f);
            }
        }
        // no three disjoint witnesses: a piece with three moves whose footprints share
        // only its own point is a witness by itself (see `still_robust`); looked for in a
        // pass of its own, since in the first one it cost the nodes that end there 1%
        let mut pieces = null.occupied[us.index()] & !sensitive;
        'pieces: while pieces != 0 {
            let from = Square::new_unchecked(pieces.trailing_zeros() as u8);
            pieces &= pieces - 1;
            let kind = null.board[from.index()].expect("an occupied point").kind;
            let own = 1u128 << from.index();
            let (quiet, captures) = null.targets(from.index(), occupied);
            let mut targets = (quiet | captures) & !sensitive;
            let (mut apart, mut used) = (0, 0u128);
            let mut moves = [Move::new(from, from); 3];
            while targets != 0 {
                let to = Square::new_unchecked(targets.trailing_zeros() as u8);
                targets &= targets - 1;
                let f = footprint(kind, Move::new(from, to));
                if f & used & !own == 0 {
                    used |= f;
                    moves[apart] = Move::new(from, to);
                    apart += 1;
                    if apart == 3 {
                        w.robust = Some(moves);
                        w.push(own);
                        break 'pieces;
                    }
                }
            }
        }
        if w.len < Witnesses::MAX {
            let legality = null.legality();
            list.clear();
            null.pseudo_moves_from(general, &mut list);
            for &m in list.iter() {
                if legality.move_is_legal(null, m) {
                    w.push(
                        crate::game::movegen::sensitive_points_of(m.to())
                            | 1u128 << general.index(),
                    );
                    w.steps |= 1u128 << m.to().index();
                }
            }
        }
        w
    }

    /// Three disjoint witnesses found at another node, if they are witnesses here too
    /// (`null` and `sensitive` as for [`Witnesses::of`]): moves by the piece rules of the
    /// side to move's pieces other than the general, off the sensitive points, their
    /// points pairwise disjoint. Siblings in the search mostly share them.
    pub(super) fn still_spare(
        null: &Position,
        sensitive: u128,
        moves: [Move; 3],
    ) -> Option<Witnesses> {
        let mut used = 0;
        for m in moves {
            let piece = null.piece_at(m.from())?;
            if piece.color != null.turn() || piece.kind == Kind::General {
                return None;
            }
            let f = footprint(piece.kind, m);
            if f & (sensitive | used) != 0 || !null.is_pseudo_legal(m) {
                return None;
            }
            used |= f;
        }
        Some(Witnesses {
            spare: true,
            spare_moves: moves,
            ..Witnesses::none()
        })
    }

    /// Three moves of one piece found at another node (see [`Witnesses::of`]), if they are
    /// here too: the piece, not the general, is the side to move's and off the sensitive
    /// points, the moves are by the piece rules and end off them, and their footprints
    /// share no point but the piece's own. Then the piece alone is a witness: a move that
    /// gives no check and does not take the piece (a move of the other side's can touch
    /// its point no other way) leaves one of the three legal, since it touches at most
    /// two points. Only the moves that take the piece are left to look at.
    pub(super) fn still_robust(
        null: &Position,
        sensitive: u128,
        moves: [Move; 3],
    ) -> Option<Witnesses> {
        let from = moves[0].from();
        let piece = null.piece_at(from)?;
        let own = 1u128 << from.index();
        if piece.color != null.turn() || piece.kind == Kind::General || own & sensitive != 0 {
            return None;
        }
        let mut used = 0;
        for m in moves {
            let f = footprint(piece.kind, m);
            if m.from() != from
                || (1u128 << m.to().index()) & sensitive != 0
                || f & used & !own != 0
                || !null.is_pseudo_legal(m)
            {
                return None;
            }
            used |= f;
        }
        let mut w = Witnesses::none();
        w.push(own);
        w.kept_robust = true;
        Some(w)
    }

    pub(super) fn push(&mut self, set: u128) {
        if self.len < Witnesses::MAX {
            self.sets[self.len] = set;
            self.len += 1;
        } else if let Some(worst) = (0..self.len).max_by_key(|&i| self.sets[i].count_ones())
            && self.sets[worst].count_ones() > set.count_ones()
        {
            self.sets[worst] = set;
        }
    }

    /// Points that a move giving no check must touch to take every witness away: none when
    /// three witnesses are disjoint, every point when there is no witness.
    pub(super) fn must_touch(&self) -> u128 {
        if self.spare {
            0
        } else {
            self.sets[..self.len]
                .iter()
                .copied()
                .min_by_key(|f| f.count_ones())
                .unwrap_or(!0)
        }
    }

    /// Whether one of the general's steps stays legal after the attacker's move `m` (not
    /// a check), looked at exactly, on the board as it would stand.
    pub(super) fn step_survives(&self, pos: &Position, m: Move) -> bool {
        let mut steps = self.steps;
        while steps != 0 {
            let s = Square::new_unchecked(steps.trailing_zeros() as u8);
            steps &= steps - 1;
            if pos.general_step_safe_after(m, s) {
                return true;
            }
        }
        false
    }

    /// Whether some witness survives a move (not a check) that changes these points.
    #[inline]
    pub(super) fn survive(&self, touched: u128) -> bool {
        self.spare || self.sets[..self.len].iter().any(|&f| f & touched == 0)
    }
}
