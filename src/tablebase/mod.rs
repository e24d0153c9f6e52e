//! Endgame tablebases: index layout, the retrograde generator, the file format, probing,
//! statistics and the independent verifier.

mod bits;
pub mod build;
pub mod class;
pub mod diff;
mod error;
pub mod far;
pub mod format;
pub mod generate;
pub mod index;
pub mod limit;
pub mod plan;
pub mod probe;
pub mod report;
pub mod rules;
pub mod stats;
mod table;
pub mod value;
pub mod verify;

pub use error::{DirState, HasRemedy, Remedy, Shortfall, TableError, io_message};
pub use format::{Header, Rules, SideStats};
pub use probe::{RankedMove, Table, Tablebase};
pub use value::Value;

/// The table directory when none is named: `$CANJU_TB_DIR` (unless empty), else
/// `tablebases` in the working directory.
pub fn default_dir() -> std::path::PathBuf {
    std::env::var_os("CANJU_TB_DIR")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("tablebases"))
}
