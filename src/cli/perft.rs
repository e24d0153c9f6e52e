//! `canju perft`.

use std::ffi::OsString;
use std::time::Instant;

use super::{CliError, CliResult, position_arg};

/// The deepest perft canju runs. Deeper counts take longer than anyone waits from any
/// position with a few moves a side, and can overflow a 64-bit count.
pub const MAX_DEPTH: u32 = 20;

pub fn run(fen: &Option<OsString>, depth: u32, divide: bool) -> CliResult {
    if depth > MAX_DEPTH {
        return Err(CliError::input(format!(
            "perft depth {depth}: at most {MAX_DEPTH} (deeper trees take longer than anyone waits and can overflow the count)"
        )));
    }
    let mut pos = position_arg(fen)?;
    let start = Instant::now();
    let nodes = if divide && depth > 0 {
        let split = canju::game::perft::divide(&mut pos, depth);
        for (m, n) in &split {
            outln!("{m}: {n}");
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        // at depth 0 the tree is the position alone: no move to divide by
        canju::game::perft::perft(&mut pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    errln!(
        "perft({depth}): {nodes} nodes in {secs:.3} s ({:.1} M nodes/s)",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    outln!("{nodes}");
    Ok(())
}
