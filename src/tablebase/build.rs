//! Building a material's tables and everything it falls into, smallest first, skipping
//! tables that are already present and sound.

use std::time::Instant;

use super::format::{Header, TableError, legacy, write};
use super::generate::{Progress, solve};
use super::index::MAX_PIECES;
use super::probe::Tablebase;
use crate::material::Material;

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
    pub material: Material,
    pub outcome: Outcome,
    pub header: Header,
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
                return Err(TableError::Unsupported(format!(
                    "{m} needs the table of {sub} ({}), which is not in {}: build it first (canju gen {sub} --no-deps), or drop --no-deps",
                    sub.chinese(),
                    tb.dir().display()
                )));
            }
        }
    }
    build_table(m, tb, progress)
}

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

/// Builds one table, or checks and keeps (or converts) the one present.
fn build_table(
    m: Material,
    tb: &Tablebase,
    progress: &dyn Fn(&Material) -> Box<dyn Progress>,
) -> Result<Report, TableError> {
    let path = tb.path_of(&m);
    let start = Instant::now();
    if path.exists() {
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
    remove_stale_temporaries(&path);
    let p = progress(&m);
    let solved = solve(m, tb, p.as_ref())?;
    drop(p);
    write(&path, &solved.header, &solved.red, &solved.black)?;
    tb.forget(&m);
    Ok(Report {
        material: m,
        outcome: Outcome::Built,
        header: solved.header,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Removes temporary files that a killed run left for this table (`NAME.ctb.tmpPID`, where
/// process PID no longer runs). Only where /proc tells which processes run.
fn remove_stale_temporaries(path: &std::path::Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let prefix = format!("{}.tmp", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file.strip_prefix(&prefix) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !std::path::Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
