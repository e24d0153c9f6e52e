//! The rules engine: the board ([`square`]), the sides and pieces ([`color`], [`piece`]),
//! positions ([`position`]) and their FEN text ([`fen`]), attack tables ([`attacks`]),
//! legal moves and un-moves ([`movegen`], [`moves`]), perft ([`perft`]) and material
//! signatures ([`material`]). Everything else in canju stands on this module, and it
//! stands on nothing else in canju.

pub mod attacks;
pub mod color;
pub mod fen;
pub mod material;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod piece;
pub mod position;
pub mod square;
