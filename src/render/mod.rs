//! Pictures of positions: the terminal board and SVG diagrams.

pub mod svg;
pub mod terminal;
