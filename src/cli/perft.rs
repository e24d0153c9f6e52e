//! `canju perft`.

use std::ffi::OsString;
use std::time::Instant;

use super::{CliResult, position_arg};

pub fn run(fen: &Option<OsString>, depth: u32, divide: bool) -> CliResult {
    let mut pos = position_arg(fen)?;
    let start = Instant::now();
    let nodes = if divide {
        let split = canju::perft::divide(&mut pos, depth);
        for (m, n) in &split {
            println!("{m}: {n}");
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        canju::perft::perft(&mut pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft({depth}): {nodes} nodes in {secs:.3} s ({:.1} M nodes/s)",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    println!("{nodes}");
    Ok(())
}
