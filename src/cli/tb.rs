//! `canju gen`, `deps`, `info`, `probe`, `stats`, `verify`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use canju::Position;
use canju::game::material::Material;
use canju::notation::{self, Notation, Style};
use canju::system::peak_memory;
use canju::tablebase::build::{self, Outcome, Report};
use canju::tablebase::index::Layout;
use canju::tablebase::plan::Plan;
use canju::tablebase::{Rules, Tablebase, class, report};

use super::common::{
    generate, generate_quietly, material_arg, progress_bar, progress_for, summary, table_dir,
    table_error, thousands, thread_pool,
};
use super::{CliError, CliResult, position_arg};

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
                String::from_utf8(canju::files::without_bom(&b).to_vec())
                    .map_err(|_| CliError::input(format!("{path}: not UTF-8 text")))
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
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("armless") || lower.starts_with("pieces:") {
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
            "--max-entries: only with a class (armless:N, pieces:N) or a list (@FILE)",
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

fn duration_text(s: f64) -> String {
    // (a sum of no estimates is -0.0, which would print as "-0.0 s")
    let s = if s > 0.0 { s } else { 0.0 };
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
    let plan = Plan::of(members, tb);
    for t in &plan.tables {
        outln!(
            "{:<12} {:>15}  {:<9} {:>8}  {}",
            t.material.to_string(),
            thousands(t.entries),
            if t.present { "built" } else { "to build" },
            if t.present {
                String::new()
            } else {
                duration_text(t.estimate_seconds)
            },
            t.material.chinese()
        );
    }
    outln!(
        "# {name}: {} endgame{}, {} tables with what they fall into, {} entries per side to move; {} to build (rules {}), about {} with 2 threads",
        members.len(),
        if members.len() == 1 { "" } else { "s" },
        plan.tables.len(),
        thousands(plan.entries()),
        plan.to_build().count(),
        plan.rules,
        duration_text(plan.seconds_to_build())
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
        build::check_fits(m, &tb).map_err(table_error)?;
        let pool = thread_pool(threads)?;
        let r = pool
            .install(|| canju::tablebase::build::build_without_deps(m, &tb, &progress_for))
            .map_err(table_error)?;
        outln!("{}", summary(&r));
        return Ok(());
    }
    generate_all(m, &tb, threads)
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
    build::check_list_fits(name, &list, tb).map_err(table_error)?;
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
    job_line(m, tb, &reports, start.elapsed().as_secs_f64());
    Ok(())
}

/// The closing line of a material's build.
pub fn job_line(m: Material, tb: &Tablebase, reports: &[Report], seconds: f64) {
    let built = reports
        .iter()
        .filter(|r| r.outcome == Outcome::Built)
        .count();
    outln!(
        "{m} ({}), rules {}: {} table{}, {built} built, {seconds:.2} s in all, peak {} MiB",
        m.chinese(),
        tb.rules(),
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        peak_memory().map_or("?".to_string(), |b| (b / (1 << 20)).to_string())
    );
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
    let dir = table_dir(dir)?;
    let tb = Tablebase::with_rules(&dir, rules);
    let pool = thread_pool(threads)?;
    let bar = progress_bar("counting");
    let info = pool
        .install(|| {
            report::info(&tb, m, count, &|done, total| {
                bar.set_length(total);
                bar.set_position(done);
            })
        })
        .map_err(table_error)?;
    bar.finish_and_clear();
    outln!("material: {m} ({})", m.chinese());
    outln!("pieces: {}", info.pieces);
    outln!(
        "index size: {} per side to move",
        thousands(info.index_size)
    );
    outln!(
        "table: {} uncompressed (one byte per entry and side to move), stored compressed in about an eighth of that",
        bytes_text(2 * info.index_size)
    );
    outln!("tables to build with it: {}", info.tables_to_build);
    if info.built {
        outln!("table: {} (built)", info.path.display());
    } else {
        outln!("table: not built in {}", dir.display());
    }
    match info.legal {
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

pub fn stats_cmd(sig: &str, dir: &Option<PathBuf>, json: bool, rules: Rules) -> CliResult {
    let m = material_arg(sig)?;
    let tb = Tablebase::with_rules(table_dir(dir)?, rules);
    let out = report::stats(&tb, m, &|| {
        if !json {
            errln!("computing the 60-move-limit flags of {m} (kept for next time)");
        }
    })
    .map_err(table_error)?;
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
                "  by {}: win {} ({:.2}%), loss {} ({:.2}%); the rest by mate",
                rules.rule_en(),
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
    let start = Instant::now();
    let bar: std::sync::Mutex<Option<(Material, indicatif::ProgressBar)>> = Default::default();
    let total = pool
        .install(|| {
            report::verify_family(
                &tb,
                &family,
                &|t, done, total| {
                    let mut b = bar.lock().expect("the bar");
                    if b.as_ref().is_none_or(|(m, _)| m != t) {
                        *b = Some((*t, progress_bar(&format!("verifying {t}"))));
                    }
                    let (_, bar) = b.as_ref().expect("made");
                    bar.set_length(total);
                    bar.set_position(done);
                },
                &mut |v| {
                    if let Some((_, b)) = bar.lock().expect("the bar").take() {
                        b.finish_and_clear();
                    }
                    outln!(
                        "{} (rules {rules}): {} positions checked, all agree; checksum ok; {:.2} s",
                        v.material,
                        thousands(v.positions),
                        v.seconds
                    );
                },
            )
        })
        .map_err(table_error);
    if let Some((_, b)) = bar.lock().expect("the bar").take() {
        b.finish_and_clear();
    }
    let total = total?;
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
    if let Some(u) = pos.unreachable_piece() {
        return Err(CliError::input(format!(
            "{pos}: no table value: {u}, and the tables hold only positions a game can reach; `canju solve` searches it"
        )));
    }
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
    let probed = report::probe(&tb, &pos, true).map_err(table_error)?;
    if a.json {
        return super::print_json(&probed);
    }
    out!(
        "{}",
        canju::render::terminal::board(&pos, super::board::board_style(false))
    );
    outln!("rules: {}", a.rules.describe());
    print_probe(&pos, &probed, a.notation);
    Ok(())
}

/// Prints a probed position: verdict and ranked moves, with the wins and losses beyond
/// the 60-move limit marked.
fn print_probe(pos: &Position, probed: &report::ProbeReport, notation: Notation) {
    let limit = |beyond: bool| if beyond { LIMIT_NOTE } else { "" };
    let rules: canju::tablebase::Rules = probed.rules.parse().unwrap_or_default();
    outln!("{pos}");
    outln!(
        "{} to move: {}{}",
        pos.turn(),
        probed.value.describe_under(rules),
        limit(probed.beyond_move_limit)
    );
    for m in &probed.moves {
        let text = notation::format_move(pos, m.mv, notation, Style::default());
        // pad by display width: Chinese characters take two columns
        let width: usize = text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
        let pad = " ".repeat(10usize.saturating_sub(width));
        outln!(
            "  {text}{pad}{}{}",
            m.value.describe_under(rules),
            limit(m.beyond_move_limit)
        );
    }
}

/// How a win or loss beyond the natural move limit is marked.
const LIMIT_NOTE: &str =
    "; beyond the 60-move limit (自然限着): more than 120 plies to the next capture or mate";
