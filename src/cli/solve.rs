//! `canju solve`: exact forced mates for compositions.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use canju::Position;
use canju::notation::{self, Notation, Style};
use canju::solver::report::SolveReport;
use canju::solver::{self, Options, Solution, Verdict};
use canju::tablebase::{Rules, Tablebase};

use super::common::{table_dir, table_error, thousands, thread_pool};
use super::{CliError, CliResult, position_arg};

pub struct SolveArgs<'a> {
    pub fen: &'a Option<OsString>,
    pub max_moves: u32,
    pub threads: Option<usize>,
    pub time: Option<f64>,
    pub notation: Notation,
    pub json: bool,
    pub hash: usize,
    pub dir: &'a Option<PathBuf>,
    pub rules: Rules,
    pub checks_only: bool,
    pub mate_only: bool,
    pub method: solver::Method,
}

/// The most memory `--hash` takes, in MB.
pub const MAX_HASH_MB: usize = 16384;

/// "1 ply", "3 plies".
fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// 一步杀, 两步杀, 三步杀 … for a mate in n moves.
pub fn chinese_moves(n: u32) -> String {
    canju::puzzle::import::kill_name(n)
}

pub fn run(a: SolveArgs) -> CliResult {
    let pos = position_arg(a.fen)?;
    if a.max_moves == 0 || a.max_moves > solver::MAX_MOVES {
        return Err(CliError::input(format!(
            "--max-moves {}: between 1 and {}",
            a.max_moves,
            solver::MAX_MOVES
        )));
    }
    if a.hash == 0 || a.hash > MAX_HASH_MB {
        return Err(CliError::input(format!(
            "--hash {}: between 1 and {MAX_HASH_MB} MB",
            a.hash
        )));
    }
    let time = match a.time {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 && t <= 1e7 => Some(Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(CliError::input(format!(
                "--time {t}: a number of seconds above 0, at most 10000000 (115 days)"
            )));
        }
    };
    let dir = table_dir(a.dir)?;
    let tb = Tablebase::with_rules(&dir, a.rules);
    let pool = thread_pool(a.threads)?;
    let mut options = Options::new(a.max_moves);
    options.time = time;
    options.hash_mb = a.hash;
    options.checks_only = a.checks_only;
    options.mate_only = a.mate_only;
    options.method = a.method;
    options.rules = a.rules;
    let stop = options.stop.clone();
    // Ctrl-C stops the proof and reports what was proven (a second Ctrl-C is ignored
    // while the report is written)
    let _ = ctrlc::set_handler(move || stop.store(true, Relaxed));
    let done = Arc::new(AtomicBool::new(false));
    let reporter = live_progress(&options, done.clone());
    let result = pool.install(|| solver::solve(&pos, &options, Some(&tb)));
    done.store(true, Relaxed);
    if let Some(r) = reporter {
        let _ = r.join();
    }
    let s = result.map_err(|e| match e {
        solver::SolveError::Bound(_)
        | solver::SolveError::Stopped
        | solver::SolveError::Illegal(_) => CliError::input(e),
        solver::SolveError::Table(e) => table_error(e),
    })?;
    if a.json {
        print_json(&pos, &s)
    } else {
        print_text(&pos, &s, a.notation);
        Ok(())
    }
}

/// A progress line on a terminal once a proof takes more than a second.
fn live_progress(options: &Options, done: Arc<AtomicBool>) -> Option<std::thread::JoinHandle<()>> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let live = options.live.clone();
    Some(std::thread::spawn(move || {
        let start = Instant::now();
        let mut bar: Option<ProgressBar> = None;
        while !done.load(Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if start.elapsed() < Duration::from_secs(1) {
                continue;
            }
            let b = bar.get_or_insert_with(|| {
                let b = ProgressBar::new_spinner();
                b.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("template"));
                b
            });
            let nodes = live.nodes.load(Relaxed);
            let secs = start.elapsed().as_secs_f64();
            let proven = live.proven.load(Relaxed);
            b.set_message(format!(
                "searching {} plies: {} nodes, {proven} winning first move{} so far, {:.0} s (Ctrl-C stops)",
                live.depth.load(Relaxed),
                thousands(nodes),
                if proven == 1 { "" } else { "s" },
                secs
            ));
            b.tick();
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
    }))
}

/// Where the main line shows a side kept from its checks under the rule: each move the
/// rule forbade (it would have completed a perpetual check), and the move played instead.
fn repetition_note(
    rules: Rules,
    pos: &Position,
    pv: &[canju::Move],
    notation: Notation,
) -> Option<String> {
    let kept = solver::rule::Path::forbidden_along(rules, &solver::History::default(), pos, pv);
    let style = Style::default();
    let mut p = pos.clone();
    let mut notes = Vec::new();
    for (i, (&m, forbidden)) in pv.iter().zip(&kept).enumerate() {
        if !forbidden.is_empty() {
            let names: Vec<String> = forbidden
                .iter()
                .map(|&f| notation::format_move(&p, f, notation, style))
                .collect();
            notes.push(format!(
                "at ply {} {} may not play {} (each would repeat a position while it {} on every move: {}) and plays {}",
                i + 1,
                p.turn(),
                names.join(", "),
                if rules == Rules::Asian { "attacks (打)" } else { "checks" },
                rules.forbidden_zh(),
                notation::format_move(&p, m, notation, style)
            ));
        }
        p.play_unchecked(m);
    }
    (!notes.is_empty()).then(|| notes.join("\n"))
}

fn print_json(pos: &Position, s: &Solution) -> CliResult {
    super::print_json(&SolveReport::new(pos, s))
}

fn print_text(pos: &Position, s: &Solution, notation: Notation) {
    out!(
        "{}",
        canju::render::terminal::board(pos, super::board::board_style(false))
    );
    outln!("{pos}");
    let side = pos.turn();
    let bound = s.max_plies.div_ceil(2);
    // (连将杀: the stipulation that every move of the attacker's checks)
    let (kind, by_checks) = if s.checks_only {
        ("连将杀 ", " by checks alone (连将杀)")
    } else {
        ("", "")
    };
    if s.checks_only {
        outln!("every move of {side}'s must give check (连将杀)");
    }
    if s.mate_only {
        outln!("only checkmate counts (将死): a stalemate (困毙) is not the win asked for");
    }
    match s.verdict {
        Verdict::Win { plies } => {
            let moves = plies.div_ceil(2);
            outln!(
                "win: {}先胜, {kind}{} ({}, {}; {} to move)",
                side.chinese(),
                chinese_moves(moves),
                count(plies, "ply", "plies"),
                count(moves, "move", "moves"),
                side
            );
        }
        Verdict::None if s.no_legal_move => outln!(
            "none: {side} to move has no legal move: it has already lost (mated or stalemated)"
        ),
        Verdict::None => outln!(
            "none: no forced win{by_checks} within {} ({}), proven",
            count(bound, "move", "moves"),
            count(s.max_plies, "ply", "plies")
        ),
        Verdict::Unknown => outln!(
            "unknown: stopped before an answer; no forced win within {} plies is proven",
            s.searched_plies
        ),
        Verdict::WinWithin { plies } => {
            let moves = plies.div_ceil(2);
            outln!(
                "win: {}先胜, {kind}a forced win within {} ({}; {} to move), proven; the shortest not established before the time ran out (none within {})",
                side.chinese(),
                count(moves, "move", "moves"),
                count(plies, "ply", "plies"),
                side,
                count(s.searched_plies, "ply", "plies")
            );
        }
    }
    let style = Style::default();
    if !s.winning_moves.is_empty() {
        if s.searched_plies >= s.max_plies {
            outln!("every winning first move{by_checks} within {bound} moves:");
        } else {
            outln!(
                "winning first moves (complete up to {} plies; stopped before {}):",
                s.searched_plies,
                s.max_plies
            );
        }
        for w in &s.winning_moves {
            let text = notation::format_move(pos, w.mv, notation, style);
            let width: usize = text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
            let pad = " ".repeat(10usize.saturating_sub(width));
            let rule = match w.by_rule {
                Some(true) => format!(", only by the rule: {}", s.rules.forbidden_zh()),
                _ => String::new(),
            };
            outln!(
                "  {text}{pad}{} ({}{rule})",
                count(w.plies, "ply", "plies"),
                count(w.plies.div_ceil(2), "move", "moves")
            );
        }
    }
    if !s.pv.is_empty() {
        let how = match s.ending(pos) {
            Some("checkmate") => " 将死 (checkmate)",
            Some("stalemate") => " 困毙 (stalemate: no legal move, not in check)",
            Some(_) => {
                " 长将作负 (every move left to the loser completes a perpetual check, which the rule forbids)"
            }
            None => "",
        };
        outln!(
            "line: {}{how}",
            notation::format_line(pos, &s.pv, notation, style)
        );
        if let Some(note) = repetition_note(s.rules, pos, &s.pv, notation) {
            outln!("{note}");
        }
    }
    let rule = match s.rules {
        Rules::CheckOnly => {
            "perpetual check loses (长将作负): a defence that only checks forever fails"
        }
        Rules::Asian => {
            "perpetual attack loses (长打作负): a defence that only checks, threatens mate or chases forever fails"
        }
        Rules::None => "endless play is no win: every line ends in mate",
    };
    outln!(
        "{} nodes in {:.2} s ({:.1} M nodes/s); rules {}: {rule}",
        thousands(s.nodes),
        s.seconds,
        s.nodes as f64 / s.seconds.max(1e-9) / 1e6,
        s.rules
    );
}
