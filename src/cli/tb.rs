//! `canju gen`, `deps`, `info`, `probe`, `stats`, `verify`.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use canju::material::Material;
use canju::notation::{self, Notation, Style};
use canju::tablebase::build::{Outcome, Report, build};
use canju::tablebase::generate::Progress;
use canju::tablebase::index::Layout;
use canju::tablebase::limit::over_limit;
use canju::tablebase::{Rules, Tablebase, Value, class, stats, verify};
use canju::{Color, Position};

use super::{CliError, CliResult, position_arg};

/// The table directory: `--dir`, else `CANJU_TB_DIR` (unless empty), else `tablebases`.
pub fn table_dir(dir: &Option<PathBuf>) -> Result<PathBuf, CliError> {
    if let Some(d) = dir {
        if d.as_os_str().is_empty() {
            return Err(CliError::input("--dir: an empty path; name a directory"));
        }
        return Ok(d.clone());
    }
    Ok(std::env::var_os("CANJU_TB_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("tablebases")))
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

pub fn table_error(e: impl std::fmt::Display) -> CliError {
    CliError {
        code: 1,
        message: e.to_string(),
    }
}

/// Peak resident memory of this process, in bytes (Linux).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
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

fn progress_for(material: &Material) -> Box<dyn Progress> {
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
fn short(n: u64) -> String {
    match n {
        0..10_000 => n.to_string(),
        10_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

fn summary(r: &Report) -> String {
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
/// tables it built or converted: for commands whose standard output is a report.
pub fn generate_quietly(
    material: Material,
    tb: &Tablebase,
    threads: Option<usize>,
) -> Result<Vec<Report>, CliError> {
    generate_with(material, tb, threads, &mut |r| {
        if r.outcome != Outcome::Present {
            errln!("{}", summary(r))
        }
    })
}

fn generate_with(
    material: Material,
    tb: &Tablebase,
    threads: Option<usize>,
    each: &mut (dyn FnMut(&Report) + Send),
) -> Result<Vec<Report>, CliError> {
    check_fits(material, tb)?;
    let pool = thread_pool(threads)?;
    pool.install(|| build(material, tb, &progress_for, each))
        .map_err(table_error)
}

pub struct GenArgs<'a> {
    pub target: &'a str,
    pub list: bool,
    pub max_entries: &'a Option<String>,
    pub dir: &'a Option<PathBuf>,
    pub threads: Option<usize>,
    pub no_deps: bool,
    pub rules: Rules,
    pub checkpoint_minutes: Option<String>,
}

/// `--checkpoint-minutes`: a number of minutes, at least 0.
fn checkpoint_arg(text: &Option<String>) -> Result<Option<Duration>, CliError> {
    let Some(t) = text else {
        return Ok(None);
    };
    match t.trim().parse::<f64>() {
        Ok(m) if m.is_finite() && (0.0..=1e6).contains(&m) => {
            Ok(Some(Duration::from_secs_f64(m * 60.0)))
        }
        _ => Err(CliError::input(format!(
            "--checkpoint-minutes '{t}': a number of minutes from 0 (after every phase) up"
        ))),
    }
}

/// What `gen` was asked to build: one material, the members of a class, or the materials
/// of a file.
enum Targets {
    One(Material),
    Many {
        name: String,
        members: Vec<Material>,
    },
}

/// Reads `gen`'s target: `@FILE`, a class (`armless:2`) or a material.
fn targets_arg(text: &str, max_entries: &Option<String>) -> Result<Targets, CliError> {
    let limit = match max_entries {
        None => None,
        Some(t) => Some(entries_arg(t)?),
    };
    let keep = |m: &Material| limit.is_none_or(|n| class::entries(m) <= n);
    if let Some(path) = text.strip_prefix('@') {
        let body = canju::files::read_regular(std::path::Path::new(path))
            .map_err(|e| {
                CliError::input(format!(
                    "{path}: {}",
                    canju::tablebase::format::io_message(&e)
                ))
            })
            .and_then(|b| {
                String::from_utf8(b).map_err(|_| CliError::input(format!("{path}: not UTF-8 text")))
            })?;
        let mut members = Vec::new();
        for (i, line) in body.lines().enumerate() {
            let Some(word) = line
                .split('#')
                .next()
                .and_then(|l| l.split_whitespace().next())
            else {
                continue;
            };
            let m = material_arg(word)
                .map_err(|e| CliError::input(format!("{path}:{}: {}", i + 1, e.message)))?;
            if keep(&m) && !members.contains(&m) {
                members.push(m);
            }
        }
        if members.is_empty() {
            return Err(CliError::input(format!("{path}: no material in it")));
        }
        return Ok(Targets::Many {
            name: path.to_string(),
            members,
        });
    }
    if text.to_ascii_lowercase().starts_with("armless") {
        let c: class::Class = text.parse().map_err(CliError::input)?;
        let (members, _) = class::members(c);
        let members: Vec<Material> = members.into_iter().filter(|m| keep(m)).collect();
        if members.is_empty() {
            return Err(CliError::input(format!(
                "{c}: no endgame of the class has a table that small"
            )));
        }
        return Ok(Targets::Many {
            name: c.to_string(),
            members,
        });
    }
    if max_entries.is_some() {
        return Err(CliError::input(
            "--max-entries: only with a class (armless:N) or a list (@FILE)",
        ));
    }
    Ok(Targets::One(material_arg(text)?))
}

/// A count of entries: digits, or with K, M or G (thousand, million, billion).
fn entries_arg(text: &str) -> Result<u64, CliError> {
    let t = text.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1_000),
        Some((i, 'm' | 'M')) => (&t[..i], 1_000_000),
        Some((i, 'g' | 'G')) => (&t[..i], 1_000_000_000),
        _ => (t, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| {
            CliError::input(format!(
                "--max-entries {text}: a number of entries, like 500M or 2G"
            ))
        })
}

/// Seconds to build a table, roughly, on this project's machine with 2 threads: 5 ns an
/// entry for every move its pieces typically have ([`typical_moves`]), twice that with the
/// perpetual-check rule. The work of a build is walking un-moves back and counting moves,
/// so a table's time follows its pieces' mobility far more than its size. Refitted after
/// the passes got faster (2026-12-02, without the rule): 马兵对士象全 6.0–6.5 ns an entry and
/// typical move, KRPKRAA 3.9, KRPKRAB 4.2, KRPKRABB 3.9, KRPKRAABB 3.7, each within 1.35×
/// of 5. The fit before (7 ns, on ten tables of earlier versions) put the 车兵对车士象全
/// family at 53 min, built in 29.
fn estimate_seconds(m: &Material, rules: Rules) -> f64 {
    let e = class::entries(m) as f64;
    let rule = if rules == Rules::Asian { 2.0 } else { 1.0 };
    e * 5e-9 * typical_moves(m) * rule
}

/// The moves a material's pieces typically have, both sides and both generals counted: a
/// chariot on an open board 17, a cannon 13, a horse 6, a general 2.5, the others 2.
fn typical_moves(m: &Material) -> f64 {
    use canju::piece::{Color, Kind};
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

fn duration_text(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// `gen --list`: every table the build needs, in build order, and the totals.
fn print_list(name: &str, members: &[Material], tb: &Tablebase) {
    let list = class::build_list(members);
    let mut to_build = 0;
    let (mut entries, mut seconds) = (0u64, 0.0);
    for m in &list {
        let present = tb.path_of(m).exists();
        let e = class::entries(m);
        entries += e;
        let est = estimate_seconds(m, tb.rules());
        if !present {
            to_build += 1;
            seconds += est;
        }
        outln!(
            "{:<12} {:>15}  {:<9} {:>8}  {}",
            m.to_string(),
            thousands(e),
            if present { "built" } else { "to build" },
            if present {
                String::new()
            } else {
                duration_text(est)
            },
            m.chinese()
        );
    }
    outln!(
        "# {name}: {} endgame{}, {} tables with what they fall into, {} entries per side to move; {to_build} to build (rules {}), about {} with 2 threads",
        members.len(),
        if members.len() == 1 { "" } else { "s" },
        list.len(),
        thousands(entries),
        tb.rules(),
        duration_text(seconds)
    );
}

pub fn gen_cmd(a: GenArgs) -> CliResult {
    let mut tb = Tablebase::with_rules(table_dir(a.dir)?, a.rules);
    if let Some(every) = checkpoint_arg(&a.checkpoint_minutes)? {
        tb = tb.with_checkpoint_every(every);
    }
    let (threads, no_deps) = (a.threads, a.no_deps);
    let m = match targets_arg(a.target, a.max_entries)? {
        Targets::One(m) if a.list => {
            print_list(&m.to_string(), &[m], &tb);
            return Ok(());
        }
        Targets::One(m) => m,
        Targets::Many { name, members } if a.list => {
            print_list(&name, &members, &tb);
            return Ok(());
        }
        Targets::Many { .. } if no_deps => {
            return Err(CliError::input(
                "--no-deps builds one table; a class or a list builds every table it needs",
            ));
        }
        Targets::Many { name, members } => return generate_many(&name, &members, &tb, threads),
    };
    if no_deps {
        check_fits(m, &tb)?;
        let pool = thread_pool(threads)?;
        let r = pool
            .install(|| canju::tablebase::build::build_without_deps(m, &tb, &progress_for))
            .map_err(table_error)?;
        outln!("{}", summary(&r));
        return Ok(());
    }
    generate_all(m, &tb, threads)
}

/// Memory the system can give now (MemAvailable), where /proc tells.
fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Free bytes on the file system of `dir` (or of its nearest existing ancestor).
fn disk_free(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let mut d = dir.to_path_buf();
    while !d.exists() {
        d = d.parent()?.to_path_buf();
        if d.as_os_str().is_empty() {
            d = PathBuf::from(".");
        }
    }
    let c = std::ffi::CString::new(d.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string and a zeroed out-parameter of the right type.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    (rc == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

/// Refuses, with the numbers, a build that cannot fit this machine's memory or disk.
fn check_fits(m: Material, tb: &Tablebase) -> CliResult {
    let r = canju::tablebase::build::requirements(m, tb).map_err(table_error)?;
    r.fits(memory_available(), disk_free(tb.dir()))
        .map_err(|why| CliError {
            code: 1,
            message: format!("{m} cannot be built here: {why}"),
        })
}

/// Builds every table a class or list needs, smallest first (each once), after checking
/// that they fit; one summary line a table and one for the job.
fn generate_many(
    name: &str,
    members: &[Material],
    tb: &Tablebase,
    threads: Option<usize>,
) -> CliResult {
    let list = class::build_list(members);
    let r = canju::tablebase::build::requirements_of(&list, tb).map_err(table_error)?;
    r.fits(memory_available(), disk_free(tb.dir()))
        .map_err(|why| CliError {
            code: 1,
            message: format!("{name} cannot be built here: {why}"),
        })?;
    let pool = thread_pool(threads)?;
    let start = Instant::now();
    let mut built = 0;
    for m in &list {
        let r = pool
            .install(|| canju::tablebase::build::build_without_deps(*m, tb, &progress_for))
            .map_err(table_error)?;
        built += usize::from(r.outcome == Outcome::Built);
        outln!("{}", summary(&r));
    }
    outln!(
        "{name}, rules {}: {} endgames, {} tables, {built} built, {:.2} s in all, peak {} MiB",
        tb.rules(),
        members.len(),
        list.len(),
        start.elapsed().as_secs_f64(),
        peak_memory().map_or("?".to_string(), |b| (b / (1 << 20)).to_string())
    );
    Ok(())
}

/// Builds a material's tables and closes with one line for the whole job.
fn generate_all(m: Material, tb: &Tablebase, threads: Option<usize>) -> CliResult {
    let start = Instant::now();
    let reports = generate(m, tb, threads)?;
    let built = reports
        .iter()
        .filter(|r| r.outcome == Outcome::Built)
        .count();
    outln!(
        "{m} ({}), rules {}: {} table{}, {built} built, {:.2} s in all, peak {} MiB",
        m.chinese(),
        tb.rules(),
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64(),
        peak_memory().map_or("?".to_string(), |b| (b / (1 << 20)).to_string())
    );
    Ok(())
}

pub fn deps_cmd(sig: &str) -> CliResult {
    let m = material_arg(sig)?;
    for d in m.build_order() {
        outln!("{d} {}", d.chinese());
    }
    Ok(())
}

/// `canju info`: what a material's table is, at once; the legal positions from the table
/// when it is built, or counted on request (`--count`, with progress).
pub fn info_cmd(
    sig: &str,
    dir: &Option<PathBuf>,
    count: bool,
    threads: Option<usize>,
    rules: Rules,
) -> CliResult {
    let m = material_arg(sig)?;
    let layout = Layout::new(m).expect("checked");
    let dir = table_dir(dir)?;
    let tb = Tablebase::with_rules(&dir, rules);
    outln!("material: {m} ({})", m.chinese());
    outln!("pieces: {}", m.piece_count());
    outln!("index size: {} per side to move", thousands(layout.size()));
    outln!(
        "table: {} uncompressed (one byte per entry and side to move), stored compressed in about an eighth of that",
        bytes_text(2 * layout.size())
    );
    outln!("tables to build with it: {}", m.build_order().len());
    let path = tb.path_of(&m);
    let legal = if path.exists() {
        let table = tb.table(m).map_err(table_error)?;
        outln!("table: {} (built)", path.display());
        let h = table.header();
        Some([h.sides[0].legal, h.sides[1].legal])
    } else {
        outln!("table: not built in {}", dir.display());
        None
    };
    let legal = match (legal, count) {
        (Some(l), _) => Some(l),
        (None, true) => {
            let pool = thread_pool(threads)?;
            let bar = progress_bar("counting");
            let l = pool.install(|| {
                stats::count_legal_with_progress(&layout, &|done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                })
            });
            bar.finish_and_clear();
            Some(l)
        }
        (None, false) => None,
    };
    match legal {
        Some(l) => {
            outln!("legal positions, red to move: {}", thousands(l[0]));
            outln!("legal positions, black to move: {}", thousands(l[1]));
        }
        None => outln!("legal positions: run `canju info {m} --count` to count them"),
    }
    Ok(())
}

/// A byte count in B, KB, MB or GB.
fn bytes_text(n: u64) -> String {
    match n {
        0..10_000 => format!("{n} B"),
        10_000..10_000_000 => format!("{:.0} KB", n as f64 / 1e3),
        10_000_000..10_000_000_000 => format!("{:.0} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
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

#[derive(serde::Serialize)]
struct SideJson {
    legal: u64,
    win: u64,
    draw: u64,
    loss: u64,
    /// Of the wins, those by the perpetual-check rule (asian tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    win_by_rule: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loss_by_rule: Option<u64>,
    /// Wins by mate needing more than 120 plies to the next capture or mate.
    win_beyond_move_limit: u64,
    loss_beyond_move_limit: u64,
    longest: u32,
    longest_fen: Option<String>,
}

#[derive(serde::Serialize)]
struct StatsJson {
    material: String,
    rules: String,
    /// Entries whose distance is kept in the far list (0 unless the table is wide).
    far_entries: usize,
    red_to_move: SideJson,
    black_to_move: SideJson,
}

pub fn stats_cmd(sig: &str, dir: &Option<PathBuf>, json: bool, rules: Rules) -> CliResult {
    let m = material_arg(sig)?;
    let tb = Tablebase::with_rules(table_dir(dir)?, rules);
    let table = tb.table(m).map_err(table_error)?;
    let h = table.header();
    let by_rule = match rules {
        Rules::None => None,
        Rules::Asian => Some(canju::tablebase::diff::rule_counts(&table).map_err(table_error)?),
    };
    // a loss is at most one ply longer than the longest win: without a mate distance
    // beyond the limit, nothing can be beyond it
    let longest = h.sides.iter().map(|s| s.longest).max().unwrap_or(0);
    let over = if longest + 1 > canju::tablebase::limit::MOVE_LIMIT_PLIES {
        if !json {
            errln!("computing the 60-move-limit flags of {m} (kept for next time)");
        }
        canju::tablebase::limit::flags(&table, &tb)
            .map_err(table_error)?
            .counts
    } else {
        [[0; 2]; 2]
    };
    let side = |c: Color| {
        let s = &h.sides[c.index()];
        SideJson {
            win_beyond_move_limit: over[c.index()][0],
            loss_beyond_move_limit: over[c.index()][1],
            win_by_rule: by_rule.map(|r| r[c.index()].draw_to_win),
            loss_by_rule: by_rule.map(|r| r[c.index()].draw_to_loss),
            legal: s.legal,
            win: s.win,
            draw: s.draw,
            loss: s.loss,
            longest: s.longest,
            longest_fen: (s.longest > 0)
                .then(|| {
                    table
                        .layout()
                        .position(s.longest_index, c)
                        .map(|p| p.to_string())
                })
                .flatten(),
        }
    };
    let out = StatsJson {
        material: h.material.clone(),
        rules: h.rules.clone(),
        far_entries: table.far_list().len(),
        red_to_move: side(Color::Red),
        black_to_move: side(Color::Black),
    };
    if json {
        super::print_json(&out)?;
        return Ok(());
    }
    outln!(
        "{} ({}), rules: {}",
        out.material,
        m.chinese(),
        rules.describe()
    );
    if out.far_entries > 0 {
        outln!(
            "a wide table: {} entries with distances beyond one byte, in its far list",
            thousands(out.far_entries as u64)
        );
    }
    for (name, s) in [
        ("red to move", &out.red_to_move),
        ("black to move", &out.black_to_move),
    ] {
        let pct = |x: u64| 100.0 * x as f64 / s.legal.max(1) as f64;
        outln!(
            "{name}: {} legal; win {} ({:.2}%), draw {} ({:.2}%), loss {} ({:.2}%)",
            thousands(s.legal),
            thousands(s.win),
            pct(s.win),
            thousands(s.draw),
            pct(s.draw),
            thousands(s.loss),
            pct(s.loss)
        );
        if let (Some(w), Some(l)) = (s.win_by_rule, s.loss_by_rule) {
            outln!(
                "  by the perpetual-check rule: win {} ({:.2}%), loss {} ({:.2}%); the rest by mate",
                thousands(w),
                pct(w),
                thousands(l),
                pct(l)
            );
        }
        outln!(
            "  beyond the 60-move limit (自然限着: more than 120 plies to the next capture or mate): {} wins, {} losses",
            thousands(s.win_beyond_move_limit),
            thousands(s.loss_beyond_move_limit)
        );
        if let Some(fen) = &s.longest_fen {
            outln!(
                "  longest win: {} plies ({} moves): {fen}",
                s.longest,
                s.longest.div_ceil(2)
            );
        }
    }
    Ok(())
}

pub fn verify_cmd(
    sig: &str,
    dir: &Option<PathBuf>,
    threads: Option<usize>,
    with_deps: bool,
    rules: Rules,
) -> CliResult {
    let m = material_arg(sig)?;
    let tb = Tablebase::with_rules(table_dir(dir)?, rules);
    let pool = thread_pool(threads)?;
    let family = if with_deps { m.build_order() } else { vec![m] };
    // every table present before any work: a missing one is named at once
    for t in &family {
        tb.table(*t).map_err(table_error)?;
        tb.forget(t);
    }
    let start = Instant::now();
    let mut total = 0;
    for t in &family {
        let one = Instant::now();
        let table = tb.table(*t).map_err(table_error)?;
        let bar = progress_bar(&format!("verifying {t}"));
        let result = pool.install(|| {
            verify::verify(&table, &tb, &|done, total| {
                bar.set_length(total);
                bar.set_position(done);
            })
        });
        bar.finish_and_clear();
        let checked = result.map_err(table_error)?;
        total += checked;
        outln!(
            "{t} (rules {rules}): {} positions checked, all agree; checksum ok; {:.2} s",
            thousands(checked),
            one.elapsed().as_secs_f64()
        );
        // the table and its sub-tables were decompressed whole: let that memory go
        drop(table);
        tb.forget(t);
        for sub in t.captures() {
            tb.forget(&sub);
        }
    }
    if with_deps {
        outln!(
            "{m} ({}, rules {rules}): {} tables verified, {} positions, all agree; {:.2} s",
            m.chinese(),
            family.len(),
            thousands(total),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

#[derive(serde::Serialize)]
pub struct MoveJson {
    iccs: String,
    wxf: String,
    chinese: String,
    verdict: &'static str,
    plies: Option<u32>,
    /// A verdict of the perpetual-check rule, with its level.
    #[serde(skip_serializing_if = "Option::is_none")]
    by_rule: Option<u32>,
    /// The position after the move needs more than 120 plies to the next capture or mate.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    beyond_move_limit: bool,
}

/// A probed position: `canju probe --json` and the server's `/api/probe`.
#[derive(serde::Serialize)]
pub struct ProbeJson {
    fen: String,
    side_to_move: &'static str,
    material: String,
    material_chinese: String,
    rules: String,
    verdict: &'static str,
    plies: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_rule: Option<u32>,
    /// More than 120 plies to the next capture or mate: a draw under the 60-move limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    beyond_move_limit: bool,
    moves: Vec<MoveJson>,
}

/// Probes a position and every legal move (best first) into [`ProbeJson`].
/// `limit`: also flag wins and losses beyond the 60-move limit (computing a table's flags
/// on first need; the server, which must answer at once, leaves them out).
pub fn probe_json(
    tb: &Tablebase,
    pos: &Position,
    limit: bool,
) -> Result<ProbeJson, canju::tablebase::TableError> {
    let material = Material::of(pos).canonical();
    let table = tb.table(material)?;
    let value = tb.probe(pos)?;
    let moves = tb.rank_moves(pos)?;
    let style = Style::default();
    let namer = notation::MoveNamer::new(pos);
    let over = |p: &Position| -> Result<bool, canju::tablebase::TableError> {
        if limit { over_limit(tb, p) } else { Ok(false) }
    };
    let move_over: Vec<bool> = moves
        .iter()
        .map(|r| {
            let mut c = pos.clone();
            c.play_unchecked(r.mv);
            over(&c)
        })
        .collect::<Result<_, _>>()?;
    Ok(ProbeJson {
        fen: pos.to_string(),
        side_to_move: pos.turn().name(),
        material: material.to_string(),
        material_chinese: material.chinese(),
        rules: table.header().rules.clone(),
        verdict: value.verdict(),
        plies: value.plies(),
        by_rule: rule_level(value),
        beyond_move_limit: over(pos)?,
        moves: moves
            .iter()
            .zip(move_over)
            .map(|(r, beyond_move_limit)| MoveJson {
                iccs: r.mv.to_string(),
                wxf: namer.name(r.mv, Notation::Wxf, style),
                chinese: namer.name(r.mv, Notation::Chinese, style),
                verdict: r.value.verdict(),
                plies: r.value.plies(),
                by_rule: rule_level(r.value),
                beyond_move_limit,
            })
            .collect(),
    })
}

/// The level of a verdict by rule.
fn rule_level(v: Value) -> Option<u32> {
    match v {
        Value::RuleWin(n) | Value::RuleLoss(n) => Some(n),
        _ => None,
    }
}

/// Describes a value for people: 红胜 in n moves, etc.
pub fn verdict_text(v: Value) -> String {
    match v {
        Value::RuleWin(k) => {
            format!("win by rule (长将作负: the defender can only check forever), level {k}")
        }
        Value::RuleLoss(k) => {
            format!("loss by rule (长将作负: only checking forever holds off mate), level {k}")
        }
        Value::Win(n) => format!("win in {n} plies ({} moves)", n.div_ceil(2)),
        Value::Loss(0) => "loss: no legal move (mated or stalemated)".to_string(),
        Value::Loss(n) => format!("loss in {n} plies"),
        Value::Draw => "draw".to_string(),
    }
}

pub struct ProbeArgs<'a> {
    pub fen: &'a Option<OsString>,
    pub notation: Notation,
    pub json: bool,
    pub generate: bool,
    pub dir: &'a Option<PathBuf>,
    pub threads: Option<usize>,
    pub rules: Rules,
}

pub fn probe_cmd(a: ProbeArgs) -> CliResult {
    let pos = position_arg(a.fen)?;
    let tb = Tablebase::with_rules(table_dir(a.dir)?, a.rules);
    if a.generate {
        let m = Material::of(&pos).canonical();
        if Layout::new(m).is_none() {
            return Err(CliError::input(format!(
                "no table for {m}: {} pieces, canju's tables hold at most 10",
                m.piece_count()
            )));
        }
        // under --json, standard output is the JSON alone: the summaries go to stderr
        if a.json {
            generate_quietly(m, &tb, a.threads)?;
        } else {
            generate(m, &tb, a.threads)?;
        }
    }
    if a.json {
        let out = probe_json(&tb, &pos, true).map_err(table_error)?;
        super::print_json(&out)?;
        return Ok(());
    }
    let value = tb.probe(&pos).map_err(table_error)?;
    let moves = tb.rank_moves(&pos).map_err(table_error)?;
    out!(
        "{}",
        canju::render::terminal::board(&pos, super::board::board_style(false))
    );
    outln!("rules: {}", a.rules.describe());
    print_probe(&tb, &pos, value, &moves, a.notation)
}

/// Prints a probed position: verdict and ranked moves, with the wins and losses beyond
/// the 60-move limit marked.
fn print_probe(
    tb: &Tablebase,
    pos: &Position,
    value: Value,
    moves: &[canju::tablebase::RankedMove],
    notation: Notation,
) -> CliResult {
    let limit = |p: &Position| -> Result<&'static str, CliError> {
        Ok(if over_limit(tb, p).map_err(table_error)? {
            LIMIT_NOTE
        } else {
            ""
        })
    };
    outln!("{pos}");
    outln!(
        "{} to move: {}{}",
        pos.turn(),
        verdict_text(value),
        limit(pos)?
    );
    for r in moves {
        let text = notation::format_move(pos, r.mv, notation, Style::default());
        // pad by display width: Chinese characters take two columns
        let width: usize = text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
        let pad = " ".repeat(10usize.saturating_sub(width));
        let mut child = pos.clone();
        child.play_unchecked(r.mv);
        outln!("  {text}{pad}{}{}", verdict_text(r.value), limit(&child)?);
    }
    Ok(())
}

/// How a win or loss beyond the natural move limit is marked.
const LIMIT_NOTE: &str =
    "; beyond the 60-move limit (自然限着): more than 120 plies to the next capture or mate";

/// The default job: build 马兵对士象全 (KNPKAABB) and every table it falls into if missing,
/// then measure the saying 马卒难破士相全 over them and name the commands to go on with.
pub fn main_job() -> CliResult {
    let m = material_arg("KNPKAABB")?;
    let dir = table_dir(&None)?;
    // what a player sees: the rules players play under
    let tb = Tablebase::with_rules(&dir, Rules::Asian);
    outln!(
        "canju: 马兵对士象全 (KNPKAABB) tables in {}, rules {}",
        dir.display(),
        Rules::Asian.describe()
    );
    generate_all(m, &tb, None)?;
    outln!();
    super::theory::main_job_report(&tb)?;
    outln!();
    let puzzles = canju::puzzle::load_builtin().map_or(0, |p| p.len());
    outln!(
        "Next: `canju puzzle play` for a puzzle ({puzzles} built in), `canju train KNPKAABB` for a position from this table, `canju theory 单车难胜士象全` for another saying, `canju solve --fen FEN` for a composition."
    );
    Ok(())
}
