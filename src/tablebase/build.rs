//! Building a material's tables and everything it falls into, smallest first, skipping
//! tables that are already present and sound.

use std::time::Instant;

use super::error::{Shortfall, TableError};
use super::format::{Header, Rules, legacy, write_with_far};
use super::generate::{Checkpoints, Progress, solve_resumable};
use super::index::MAX_PIECES;
use super::probe::Tablebase;
use crate::game::material::Material;

/// What happened to one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Generated now.
    Built,
    /// A sound table was already present (header, block table and every block checked).
    Present,
    /// A sound table of an older file format was present and was rewritten in this one.
    Converted,
}

/// What happened to one table.
#[derive(Clone, Debug)]
pub struct Report {
    /// The table.
    pub material: Material,
    /// What happened to it.
    pub outcome: Outcome,
    /// Its header (counts, longest win).
    pub header: Header,
    /// Seconds it took.
    pub seconds: f64,
}

/// Builds the tables `material` needs (its captures' tables first) into the tablebase's
/// directory. Existing tables are checked (header, size, checksum) and kept.
pub fn build(
    material: Material,
    tb: &Tablebase,
    progress: &dyn Fn(&Material) -> Box<dyn Progress>,
    report: &mut dyn FnMut(&Report),
) -> Result<Vec<Report>, TableError> {
    check_size(&material)?;
    tb.prepare_dir()?;
    let mut out = Vec::new();
    for m in material.build_order() {
        let r = build_table(m, tb, progress)?;
        report(&r);
        out.push(r);
    }
    Ok(out)
}

/// Builds one table whose capture sub-tables are already built (a job of a plan that
/// builds a family in parallel, e.g. on a cluster); a missing sub-table is an error that
/// names it. A sound table already present is checked and kept.
pub fn build_without_deps(
    material: Material,
    tb: &Tablebase,
    progress: &dyn Fn(&Material) -> Box<dyn Progress>,
) -> Result<Report, TableError> {
    check_size(&material)?;
    tb.prepare_dir()?;
    let m = material.canonical();
    if !tb.path_of(&m).exists() {
        for sub in m.captures() {
            if !tb.path_of(&sub).exists() {
                return Err(TableError::MissingSubTable {
                    material: m,
                    sub,
                    dir: tb.dir().to_path_buf(),
                    rules: tb.rules(),
                });
            }
        }
    }
    build_table(m, tb, progress)
}

/// What building a material's missing tables takes, known before any work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// Tables not yet in the directory.
    pub missing: Vec<Material>,
    /// Bytes of the files to write (one byte per entry and side to move, plus headers). A
    /// build's checkpoints are not counted: one that cannot be written is skipped with a
    /// note, and the build goes on.
    pub disk_bytes: u64,
    /// The largest table to build, and the memory its build takes at its peak (see
    /// [`memory_tenths_per_entry`]).
    pub largest: Option<(Material, u64)>,
}

/// Peak memory of a build, in tenths of a byte per entry (both sides to move counted):
/// without a repetition rule, with perpetual check alone, with the whole 长打 rule.
/// Measured: 0.98–1.054 bytes without the rule on large tables (the two arrays of values, a
/// layer's frontier bits, the sub-tables' blocks), 1.7–1.97 with perpetual check (the rule's
/// pass adds its sets of entries and the candidates' rows), 2.25–2.37 with the whole rule
/// (two more sets, and the winner's moves that chase; BENCHMARKS.md).
pub fn memory_tenths_per_entry(rules: Rules) -> u64 {
    match rules {
        Rules::None => 11,
        Rules::CheckOnly => 20,
        Rules::Asian => 24,
    }
}

/// The tables `material` still needs in `tb`, and their size on disk and in memory.
pub fn requirements(material: Material, tb: &Tablebase) -> Result<Requirements, TableError> {
    check_size(&material)?;
    requirements_of(&material.build_order(), tb)
}

/// The tables of a build list (every table it needs, as [`super::class::build_list`]
/// gives) still missing in `tb`, and their size on disk and in memory.
pub fn requirements_of(list: &[Material], tb: &Tablebase) -> Result<Requirements, TableError> {
    let mut r = Requirements {
        missing: Vec::new(),
        disk_bytes: 0,
        largest: None,
    };
    for &m in list {
        check_size(&m)?;
        if tb.path_of(&m).exists() {
            continue;
        }
        let entries = super::index::Layout::new(m)
            .map(|l| l.size())
            .unwrap_or_default();
        let bytes = 2 * entries;
        let memory = bytes.saturating_mul(memory_tenths_per_entry(tb.rules())) / 10;
        // an upper bound: every block stored uncompressed with a zstd frame's few bytes
        // around it (real tables take about an eighth), its 16 bytes in the block table,
        // and a page for the header
        let blocks = (2 * entries).div_ceil(super::format::BLOCK_ENTRIES as u64);
        r.disk_bytes += bytes + 32 * blocks + 4096;
        if r.largest.is_none_or(|(_, b)| memory > b) {
            r.largest = Some((m, memory));
        }
        r.missing.push(m);
    }
    Ok(r)
}

impl Requirements {
    /// Whether the build fits the memory and the free disk given (in bytes): the largest
    /// table's arrays must fit in memory, and every file, with room for the temporary copy
    /// of the largest while it is written, on the disk. `None` for a number not known.
    pub fn fits(&self, memory: Option<u64>, disk: Option<u64>) -> Result<(), Shortfall> {
        if let (Some((m, need)), Some(have)) = (self.largest, memory)
            && need > have
        {
            return Err(Shortfall::Memory {
                material: m,
                need,
                available: have,
            });
        }
        if let Some(have) = disk
            && self.disk_bytes > have
        {
            return Err(Shortfall::Disk {
                tables: self.missing.len(),
                need: self.disk_bytes,
                free: have,
            });
        }
        Ok(())
    }
}

/// Refuses, with the numbers, building `material` and what it needs when it cannot fit this
/// machine's memory or disk ([`crate::system`]).
pub fn check_fits(material: Material, tb: &Tablebase) -> Result<(), TableError> {
    fits_here(&material.to_string(), requirements(material, tb)?, tb)
}

/// Like [`check_fits`], for a build list named `name` (a class or a file of materials).
pub fn check_list_fits(name: &str, list: &[Material], tb: &Tablebase) -> Result<(), TableError> {
    fits_here(name, requirements_of(list, tb)?, tb)
}

fn fits_here(name: &str, r: Requirements, tb: &Tablebase) -> Result<(), TableError> {
    r.fits(
        crate::system::memory_available(),
        crate::system::disk_free(tb.dir()),
    )
    .map_err(|shortfall| TableError::DoesNotFit {
        what: name.to_string(),
        shortfall,
    })
}

pub use crate::system::size;

/// Refuses, before any work, a material with more pieces than a table holds (its smaller
/// sub-tables would otherwise be built first, for nothing).
fn check_size(material: &Material) -> Result<(), TableError> {
    if material.piece_count() > MAX_PIECES {
        return Err(TableError::Unsupported(format!(
            "{material}: {} pieces; canju's tables hold at most {MAX_PIECES} (both generals included)",
            material.piece_count()
        )));
    }
    Ok(())
}

/// Whether the table at `path` (the whole 长打 rule's file name) is a perpetual-check table
/// from before the whole rule was built, `asian` in its header: then it is renamed to its
/// rule set's file name (`SIG.check.ctb`), unless a table stands there already, and true
/// is returned.
fn moved_aside_as_check_only(
    path: &std::path::Path,
    m: &Material,
    tb: &Tablebase,
) -> Result<bool, TableError> {
    match tb.table(*m) {
        Err(TableError::CheckOnlyAsAsian { .. }) => {
            tb.forget(m);
            let to = path.with_file_name(super::rules::file_name(m, Rules::CheckOnly));
            if to.exists() {
                return Err(TableError::Unsupported(format!(
                    "{}: a perpetual-check table (rules check-only) under the whole rule's name, and {} is taken: remove one of them",
                    path.display(),
                    to.display()
                )));
            }
            std::fs::rename(path, &to).map_err(|e| {
                TableError::Unsupported(format!(
                    "{}: renaming the perpetual-check table to {}: {e}",
                    path.display(),
                    to.display()
                ))
            })?;
            Ok(true)
        }
        _ => {
            tb.forget(m);
            Ok(false)
        }
    }
}

/// Builds one table, or checks and keeps (or converts) the one present.
fn build_table(
    m: Material,
    tb: &Tablebase,
    progress: &dyn Fn(&Material) -> Box<dyn Progress>,
) -> Result<Report, TableError> {
    let path = tb.path_of(&m);
    let start = Instant::now();
    // what killed runs left: temporary files (of the table, its checkpoint and its flags),
    // and a checkpoint of a table built since
    let work = Checkpoints::path_for(&path);
    remove_stale_temporaries(&path);
    if path.exists() && tb.rules() == Rules::Asian && moved_aside_as_check_only(&path, &m, tb)? {
        // a perpetual-check table under the whole rule's name, from before the whole rule:
        // it now has its own name, and the whole rule's table is built below
    } else if path.exists() {
        let _ = std::fs::remove_file(&work);
        let (header, outcome) = match tb.table(m) {
            Ok(table) => {
                table.check_all()?;
                (table.header().clone(), Outcome::Present)
            }
            Err(TableError::OldFormat { .. }) => (legacy::convert(&path, &m)?, Outcome::Converted),
            Err(e) => return Err(e),
        };
        let r = Report {
            material: m,
            outcome,
            header,
            seconds: start.elapsed().as_secs_f64(),
        };
        // unmap it: reading it all for the checksum need not stay in memory
        tb.forget(&m);
        return Ok(r);
    }
    let entries = super::index::Layout::new(m)
        .map(|l| l.size())
        .unwrap_or_default();
    let checkpoints = Checkpoints::new(&path, m, entries, tb, tb.checkpoint_every())?;
    let p = progress(&m);
    let solved = solve_resumable(m, tb, p.as_ref(), Some(&checkpoints))?;
    drop(p);
    write_with_far(
        &path,
        &solved.header,
        &solved.red,
        &solved.black,
        &solved.far,
    )?;
    checkpoints.remove();
    tb.forget(&m);
    // the sub-tables were opened for the build (their thread caches hold decompressed
    // blocks): close them
    for sub in m.captures() {
        tb.forget(&sub);
    }
    Ok(Report {
        material: m,
        outcome: Outcome::Built,
        header: solved.header,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Removes the temporary files that a killed or timed-out run left for this file or any
/// file named after it (the table `NAME.ctb`, its checkpoint `NAME.ctb.work`, its move-limit
/// flags): every `NAME….tmpPID-N` (the writer's names, [`crate::files::temporary_name`]),
/// or `NAME….tmpPID` from before, whose process PID no longer runs. Only where /proc tells
/// which processes run.
fn remove_stale_temporaries(path: &std::path::Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let name = name.to_string_lossy();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if !file.starts_with(name.as_ref()) {
            continue;
        }
        let Some(pid) = stale_temporary_pid(&file) else {
            continue;
        };
        if !std::path::Path::new("/proc").join(pid.to_string()).exists()
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The process that wrote a temporary file, from its name: `….tmpPID-N` or `….tmpPID`.
fn stale_temporary_pid(file: &str) -> Option<u32> {
    let (_, tail) = file.rsplit_once(".tmp")?;
    let pid = match tail.split_once('-') {
        Some((pid, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => pid,
        Some(_) => return None,
        None => tail,
    };
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_of_dead_writers_are_found_by_every_name_the_writer_uses() {
        assert_eq!(stale_temporary_pid("KRKN.asian.ctb.tmp4242-0"), Some(4242));
        assert_eq!(
            stale_temporary_pid("KRKN.asian.ctb.work.tmp4242-17"),
            Some(4242)
        );
        assert_eq!(stale_temporary_pid("KRKN.asian.ctb.tmp4242"), Some(4242));
        for not in [
            "KRKN.asian.ctb",
            "KRKN.asian.ctb.tmp",
            "KRKN.asian.ctb.tmpx-1",
            "a.tmp12-",
            "a.tmp-3",
        ] {
            assert_eq!(stale_temporary_pid(not), None, "{not}");
        }
        let dir = std::env::temp_dir().join(format!("canju-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // a pid that runs (this process) and one that cannot (above the kernel's maximum)
        let mine = std::process::id();
        let dead = 4_194_305;
        let names = [
            (format!("KRKN.asian.ctb.tmp{dead}-0"), false),
            (format!("KRKN.asian.ctb.work.tmp{dead}-3"), false),
            (format!("KRKN.asian.ctb.flags.tmp{dead}"), false),
            (format!("KRKN.asian.ctb.tmp{mine}-0"), true),
            (format!("KRKNA.asian.ctb.tmp{dead}-0"), true),
            ("KRKN.asian.ctb".to_string(), true),
        ];
        for (n, _) in &names {
            std::fs::write(dir.join(n), b"x").unwrap();
        }
        remove_stale_temporaries(&dir.join("KRKN.asian.ctb"));
        for (n, kept) in &names {
            assert_eq!(dir.join(n).exists(), *kept, "{n}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn req(largest: u64, disk: u64) -> Requirements {
        Requirements {
            missing: vec!["KRPKRAABB".parse().unwrap()],
            disk_bytes: disk,
            largest: Some(("KRPKRAABB".parse().unwrap(), largest)),
        }
    }

    #[test]
    fn a_build_that_does_not_fit_is_refused_with_the_numbers() {
        assert!(
            req(8_400_000_000, 19_000_000_000)
                .fits(Some(24_000_000_000), Some(100_000_000_000))
                .is_ok()
        );
        let e = req(8_400_000_000, 19_000_000_000)
            .fits(Some(6_000_000_000), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("8.4 GB of memory") && e.contains("6.0 GB is available"),
            "{e}"
        );
        let e = req(1, 19_000_000_000)
            .fits(None, Some(10_000_000_000))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("19.0 GB on disk") && e.contains("10.0 GB is free"),
            "{e}"
        );
        // a small build on a nearly full disk shows its real sizes, not "0.0 GB"
        let e = req(1, 3_400_000)
            .fits(None, Some(812))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("3.4 MB on disk") && e.contains("812 bytes is free"),
            "{e}"
        );
        // unknown numbers are not a refusal
        assert!(req(u64::MAX, u64::MAX).fits(None, None).is_ok());
    }

    #[test]
    fn requirements_count_the_missing_tables() {
        let dir = std::env::temp_dir().join(format!("canju-req-{}", std::process::id()));
        let tb = Tablebase::new(&dir);
        let m: Material = "KNPK".parse().unwrap();
        let r = requirements(m, &tb).unwrap();
        assert_eq!(r.missing.len(), m.build_order().len());
        assert_eq!(r.largest.unwrap().0, m);
        // every file, the largest's two sides among them
        let entries = crate::tablebase::index::Layout::new(m).unwrap().size();
        assert!(r.disk_bytes > 2 * entries);
        // the rule's pass takes more memory than the values alone, and the check counts it
        assert_eq!(r.largest.unwrap().1, 2 * entries * 11 / 10);
        let check = Tablebase::with_rules(&dir, Rules::CheckOnly);
        assert_eq!(
            requirements(m, &check).unwrap().largest.unwrap().1,
            4 * entries
        );
        let asian = Tablebase::with_rules(&dir, Rules::Asian);
        assert_eq!(
            requirements(m, &asian).unwrap().largest.unwrap().1,
            2 * entries * 24 / 10
        );
        let big: Material = "KRRNNCCKAABB".parse().unwrap();
        assert!(requirements(big, &tb).is_err());
    }
}
