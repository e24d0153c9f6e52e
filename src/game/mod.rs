//! The rules engine: the board's points, the sides and pieces, positions and their FEN
//! text ([`fen`]), attack tables, legal moves and un-moves, perft ([`perft`]) and material
//! signatures ([`material`]). Everything else in canju stands on this module, and it
//! stands on nothing else in canju.
//!
//! Its types are re-exported at the crate's root ([`crate::Position`], [`crate::Move`],
//! [`crate::Square`], [`crate::Piece`], [`crate::Color`], …); the modules that hold them
//! (`square`, `color`, `position`, `moves`, `movegen`, `attacks`) are the crate's own.

pub(crate) mod attacks;
pub(crate) mod color;
pub mod fen;
pub mod material;
pub(crate) mod movegen;
pub(crate) mod moves;
pub mod perft;
pub mod piece;
pub(crate) mod position;
pub(crate) mod square;
pub mod threat;
