//! canju (残局): a Xiangqi endgame library.
//!
//! The rules engine ([`Position`], FEN, legal moves and un-moves, perft) is the base that
//! the tablebase generator and the trainer stand on. Coordinates follow ICCS: files `a`..`i`
//! from red's left, ranks `0`..`9` from red's back rank.

pub mod fen;
pub mod material;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod piece;
pub mod position;
pub mod square;
pub mod tablebase;
mod tables;

pub use fen::FenError;
pub use movegen::{Attackers, GameEnd, IllegalMove, Legality};
pub use moves::{Move, MoveList};
pub use piece::{Color, Kind, Piece};
pub use position::{Position, START_FEN, Setup};
pub use square::{File, Rank, Square};
pub mod notation;
pub mod render;
