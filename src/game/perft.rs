//! perft: counting the leaves of the legal move tree, the standard test of a move generator.

use crate::game::moves::{Move, MoveList};
use crate::game::position::Position;

/// The number of legal move sequences of length `depth` from `pos`.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let legality = pos.legality();
    if depth == 1 {
        // the last ply's moves are counted from the targets' bits, not listed
        return pos.count_legal_moves_with(&legality) as u64;
    }
    let mut list = MoveList::new();
    pos.pseudo_moves(&mut list);
    let mut nodes = 0;
    for &m in list.iter() {
        if legality.move_is_legal(pos, m) {
            let undo = pos.play_unchecked(m);
            nodes += perft(pos, depth - 1);
            pos.undo(m, undo);
        }
    }
    nodes
}

/// perft split by first move: each legal move with the count below it. At depth 0 there
/// is no first move: the list is empty (and [`perft`] is 1).
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&m| {
            let undo = pos.play_unchecked(m);
            let n = perft(pos, depth - 1);
            pos.undo(m, undo);
            (m, n)
        })
        .collect()
}
