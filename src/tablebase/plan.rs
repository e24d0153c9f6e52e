//! A build's plan before it starts: every table a target needs in build order, which are
//! present, and what the others will take (entries, time, memory and disk, with the
//! machine's own facts behind the check that they fit).

use serde::Serialize;

use crate::game::material::Material;
use crate::game::piece::{Color, Kind};

use super::Tablebase;
use super::class;
use super::format::Rules;

/// Seconds to build a table, roughly, on this project's machine with 2 threads: 5 ns an
/// entry for every move its pieces typically have ([`typical_moves`]), twice that with the
/// perpetual-check rule. The work of a build is walking un-moves back and counting moves,
/// so a table's time follows its pieces' mobility far more than its size. Refitted after
/// the passes got faster (2026-12-02, without the rule): 马兵对士象全 6.0–6.5 ns an entry and
/// typical move, KRPKRAA 3.9, KRPKRAB 4.2, KRPKRABB 3.9, KRPKRAABB 3.7, each within 1.35×
/// of 5. The fit before (7 ns, on ten tables of earlier versions) put the 车兵对车士象全
/// family at 53 min, built in 29.
pub fn estimate_seconds(m: &Material, rules: Rules) -> f64 {
    let e = class::entries(m) as f64;
    // (measured: perpetual check alone about 2× none's time, the whole 长打 rule about 3×)
    let rule = match rules {
        Rules::None => 1.0,
        Rules::CheckOnly => 2.0,
        Rules::Asian => 3.0,
    };
    e * 5e-9 * typical_moves(m) * rule
}

/// The moves a material's pieces typically have, both sides and both generals counted: a
/// chariot on an open board 17, a cannon 13, a horse 6, a general 2.5, the others 2.
pub fn typical_moves(m: &Material) -> f64 {
    let of = |k: Kind| match k {
        Kind::Chariot => 17.0,
        Kind::Cannon => 13.0,
        Kind::Horse => 6.0,
        Kind::General => 2.5,
        Kind::Advisor | Kind::Elephant | Kind::Soldier => 2.0,
    };
    Color::ALL
        .iter()
        .map(|&c| {
            of(Kind::General)
                + m.side(c)
                    .groups()
                    .map(|(k, n)| of(k) * n as f64)
                    .sum::<f64>()
        })
        .sum()
}

/// What one table's build asks of a cluster's scheduler, from canju's own estimates: the
/// threads, the memory (the build's peak per entry, [`super::build::memory_tenths_per_entry`],
/// plus room for the program and the sub-tables' blocks) and the time ([`estimate_seconds`]
/// scaled to the threads, with a margin, since a scheduler stops a job that runs past its
/// time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct JobResources {
    /// Worker threads.
    pub threads: usize,
    /// Memory, in MB (10^6 bytes, as Slurm and Snakemake's `mem_mb` count).
    pub mem_mb: u64,
    /// Wall time, in minutes.
    pub runtime_minutes: u64,
}

/// The memory a job needs beside its table's arrays, in MB: the program, a thread's 1 MB
/// of sub-table blocks, one batch of compressed blocks while the file is written.
pub const JOB_BASE_MB: u64 = 256;

/// How many times the estimate a job is given before a scheduler stops it, and the
/// minutes added to every job (starting the program, reading the sub-tables).
pub const RUNTIME_MARGIN: (f64, u64) = (3.0, 5);

impl JobResources {
    /// The resources of building `m` under `rules` with `threads` threads.
    pub fn of(m: &Material, rules: Rules, threads: usize) -> JobResources {
        let threads = threads.max(1);
        let bytes = 2 * class::entries(m) * super::build::memory_tenths_per_entry(rules) / 10;
        // (the estimate is for 2 threads; the passes scale about linearly)
        let seconds = estimate_seconds(m, rules) * 2.0 / threads as f64;
        JobResources {
            threads,
            mem_mb: bytes.div_ceil(1_000_000) + JOB_BASE_MB,
            runtime_minutes: (seconds * RUNTIME_MARGIN.0 / 60.0).ceil() as u64 + RUNTIME_MARGIN.1,
        }
    }
}

/// One table of a plan.
#[derive(Clone, Debug, Serialize)]
pub struct PlannedTable {
    /// The table's material.
    pub material: Material,
    /// Entries per side to move.
    pub entries: u64,
    /// Its file is present already.
    pub present: bool,
    /// Seconds to build it with 2 threads, roughly ([`estimate_seconds`]).
    pub estimate_seconds: f64,
}

/// Every table a list of endgames needs, in build order (each once, smallest first).
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The endgames asked for.
    pub members: Vec<Material>,
    /// Every table they need, in build order.
    pub tables: Vec<PlannedTable>,
    /// The rule set of the tables.
    pub rules: Rules,
}

impl Plan {
    /// The plan of building `members` (and what they fall into) into `tb`.
    pub fn of(members: &[Material], tb: &Tablebase) -> Plan {
        let tables = class::build_list(members)
            .into_iter()
            .map(|m| PlannedTable {
                material: m,
                entries: class::entries(&m),
                present: tb.path_of(&m).exists(),
                estimate_seconds: estimate_seconds(&m, tb.rules()),
            })
            .collect();
        Plan {
            members: members.to_vec(),
            tables,
            rules: tb.rules(),
        }
    }

    /// Entries per side to move over every table of the plan.
    pub fn entries(&self) -> u64 {
        self.tables.iter().map(|t| t.entries).sum()
    }

    /// The tables still to build.
    pub fn to_build(&self) -> impl Iterator<Item = &PlannedTable> {
        self.tables.iter().filter(|t| !t.present)
    }

    /// Seconds to build what is missing, roughly, with 2 threads.
    pub fn seconds_to_build(&self) -> f64 {
        self.to_build().map(|t| t.estimate_seconds).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jobs_resources_follow_its_table() {
        let big: Material = "KRPKRAABB".parse().unwrap();
        let small: Material = "KK".parse().unwrap();
        let r = JobResources::of(&big, Rules::Asian, 2);
        // 2 × 4,209,975,000 entries at 2.4 bytes each, and the base
        assert_eq!(r.mem_mb, 20_208 + JOB_BASE_MB);
        let none = JobResources::of(&big, Rules::None, 2);
        assert!(none.mem_mb < r.mem_mb && none.runtime_minutes < r.runtime_minutes);
        let eight = JobResources::of(&big, Rules::Asian, 8);
        assert_eq!(eight.mem_mb, r.mem_mb);
        assert!(eight.runtime_minutes < r.runtime_minutes);
        // the margin over the estimate
        let estimate = estimate_seconds(&big, Rules::Asian) / 60.0;
        assert!(r.runtime_minutes as f64 >= 3.0 * estimate);
        let k = JobResources::of(&small, Rules::Asian, 1);
        assert_eq!(
            (k.mem_mb, k.runtime_minutes),
            (JOB_BASE_MB + 1, RUNTIME_MARGIN.1 + 1)
        );
    }
}
