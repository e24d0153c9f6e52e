//! What the commands share: the arguments many take (the table directory, the thread
//! pool, a material), progress bars, number formats, building tables with progress, and
//! turning the library's errors into the command line's.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use canju::Color;
use canju::game::material::Material;
use canju::system::peak_memory;
use canju::tablebase::Tablebase;
use canju::tablebase::build::{Outcome, Report, build};
use canju::tablebase::generate::Progress;
use canju::tablebase::index::Layout;

use super::CliError;

/// The table directory: `--dir`, else `CANJU_TB_DIR` (unless empty), else `tablebases`.
pub fn table_dir(dir: &Option<PathBuf>) -> Result<PathBuf, CliError> {
    if let Some(d) = dir {
        if d.as_os_str().is_empty() {
            return Err(CliError::input("--dir: an empty path; name a directory"));
        }
        return Ok(d.clone());
    }
    Ok(canju::tablebase::default_dir())
}

/// The most worker threads `--threads` takes.
pub const MAX_THREADS: usize = 256;

pub fn material_arg(text: &str) -> Result<Material, CliError> {
    let m: Material = text.parse().map_err(CliError::input)?;
    if Layout::new(m.canonical()).is_none() {
        return Err(CliError::input(format!(
            "'{text}': more pieces than canju's tables hold (10 with both generals)"
        )));
    }
    Ok(m.canonical())
}

pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 || n > MAX_THREADS {
            return Err(CliError::input(format!(
                "--threads {n}: between 1 and {MAX_THREADS} (this machine has {} cores)",
                std::thread::available_parallelism().map_or(1, |n| n.get())
            )));
        }
        b = b.num_threads(n);
    }
    b.build()
        .map_err(|e| CliError::input(format!("thread pool: {e}")))
}

struct Bar {
    bar: ProgressBar,
    start: Instant,
    /// The layers have begun (the bar shows a spinner from then on).
    layers: std::sync::atomic::AtomicBool,
}

impl Progress for Bar {
    fn init(&self, done: u64, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(done);
    }

    fn layer(&self, plies: u32, decided: u64) {
        if !self.layers.swap(true, std::sync::atomic::Ordering::Relaxed) {
            // the forward pass is done; the layers' count is not known in advance
            self.bar.set_style(
                ProgressStyle::with_template("{prefix:>10} {spinner} {msg}").expect("template"),
            );
        }
        self.bar.set_message(format!(
            "retrograde ply {plies}: {decided} positions decided, {:.0} s",
            self.start.elapsed().as_secs_f64()
        ));
    }

    fn rule_stage(&self, winner: Color, stage: u32, won: u64) {
        self.bar.set_message(format!(
            "perpetual-check rule: {winner} wins, level {stage}: {won} positions, {:.0} s",
            self.start.elapsed().as_secs_f64()
        ));
    }

    fn note(&self, text: &str) {
        self.bar.suspend(|| errln!("{text}"));
    }
}

pub fn progress_for(material: &Material) -> Box<dyn Progress> {
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(1);
        b.set_style(
            ProgressStyle::with_template("{prefix:>10} forward pass {bar:30} {percent:>3}%")
                .expect("template"),
        );
        b.enable_steady_tick(Duration::from_millis(200));
        b
    } else {
        ProgressBar::hidden()
    };
    bar.set_prefix(material.to_string());
    Box::new(Bar {
        bar,
        start: Instant::now(),
        layers: std::sync::atomic::AtomicBool::new(false),
    })
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count in a few characters: 9,999, 12.3k, 4.56M.
pub fn short(n: u64) -> String {
    match n {
        0..10_000 => n.to_string(),
        10_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

pub fn summary(r: &Report) -> String {
    let h = &r.header;
    let side = |c: Color| {
        let s = &h.sides[c.index()];
        format!(
            "{c} W {} D {} L {}",
            short(s.win),
            short(s.draw),
            short(s.loss)
        )
    };
    let legal: u64 = h.sides.iter().map(|s| s.legal).sum();
    let longest = h.sides.iter().map(|s| s.longest).max().unwrap_or(0);
    let wide = if h.format_version == canju::tablebase::format::FORMAT_WIDE {
        " (a wide table: distances beyond one byte)"
    } else {
        ""
    };
    format!(
        "{:<9} {:<7} {} positions: {}, {}; longest win {longest}{wide}; {:.2} s; {} MiB",
        r.material.to_string(),
        match r.outcome {
            Outcome::Built => "built",
            Outcome::Present => "present",
            Outcome::Converted => "converted",
        },
        short(legal),
        side(Color::Red),
        side(Color::Black),
        r.seconds,
        peak_memory().map_or("?".to_string(), |b| (b / (1 << 20)).to_string())
    )
}

/// Builds a material's tables with progress and summaries; returns the reports.
pub fn generate(
    material: Material,
    tb: &Tablebase,
    threads: Option<usize>,
) -> Result<Vec<Report>, CliError> {
    generate_with(material, tb, threads, &mut |r| outln!("{}", summary(r)))
}

/// Like [`generate`], with each table's summary line on standard error, and only for the
/// tables it built or converted: for commands whose standard output is a report. The lines
/// come under one that names the material and the rule set, since such a command may build
/// a material's tables under two.
pub fn generate_quietly(
    material: Material,
    tb: &Tablebase,
    threads: Option<usize>,
) -> Result<Vec<Report>, CliError> {
    let mut first = true;
    generate_with(material, tb, threads, &mut |r| {
        if r.outcome == Outcome::Present {
            return;
        }
        if std::mem::take(&mut first) {
            errln!(
                "building the tables of {material} ({}, rules {}) first",
                material.chinese(),
                tb.rules()
            );
        }
        errln!("{}", summary(r))
    })
}

fn generate_with(
    material: Material,
    tb: &Tablebase,
    threads: Option<usize>,
    each: &mut (dyn FnMut(&Report) + Send),
) -> Result<Vec<Report>, CliError> {
    canju::tablebase::build::check_fits(material, tb).map_err(table_error)?;
    let pool = thread_pool(threads)?;
    pool.install(|| build(material, tb, &progress_for, each))
        .map_err(table_error)
}

/// A progress bar on standard error when it is a terminal, hidden otherwise.
pub fn progress_bar(what: &str) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(1);
        b.set_style(
            ProgressStyle::with_template("{prefix:>10} {bar:30} {percent:>3}% {eta}")
                .expect("template"),
        );
        b.set_prefix(what.to_string());
        b
    } else {
        ProgressBar::hidden()
    }
}

/// A failure of the library's (a table, a file, a search) as the command line reports it,
/// with what fixes it: exit code 1.
pub fn table_error(e: impl std::fmt::Display + canju::tablebase::HasRemedy) -> CliError {
    CliError {
        code: 1,
        message: crate::remedy::message(&e),
    }
}

/// A puzzle judge's failure.
pub fn puzzle_error(e: canju::puzzle::PuzzleError) -> CliError {
    table_error(e)
}
