//! Endgame tablebases: index layout, the retrograde generator, the file format, probing,
//! statistics and the independent verifier.

mod bits;
pub mod build;
pub mod class;
pub mod diff;
pub mod far;
pub mod format;
pub mod generate;
pub mod index;
pub mod limit;
pub mod probe;
pub mod stats;
pub mod value;
pub mod verify;

pub use format::{Header, Rules, SideStats, TableError};
pub use probe::{RankedMove, Table, Tablebase};
pub use value::Value;
