//! Pictures of positions: the terminal board.

pub mod terminal;
