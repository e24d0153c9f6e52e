//! The solver on three sets of mating positions, each proven at its shortest length (the
//! bound is that length, so every winning first move is listed too), with time, nodes and
//! nodes per second; then median, worst and total for each set:
//!
//! - **compositions**: every composition among the first 190 of 适情雅趣 (1570) with a forced
//!   win of at most 11 plies, 59 in all, most of them against a threat of mate
//!   (`data/shiqingyaqu.txt`, its first column of lengths);
//! - **连将杀**: every one of those 190 with a win by checks alone (`--checks-only`) of at most
//!   59 plies, 148 in all, proven by checks alone (its second column);
//! - **game positions**: positions from Fairy-Stockfish's self-play games in which it found
//!   the mate itself, and a few set up by hand (`data/solve.txt`).
//!
//! When Fairy-Stockfish is installed (Debian package `fairy-stockfish`, found on PATH or
//! in /usr/games), the positions of the first and last sets are given to it side by side
//! (`go mate N`, one thread, variant xiangqi): it finds one mate of that length, canju
//! proves the exact length and every winning first move. It has no checks-only search, so
//! the 连将杀 set is canju's alone. The peer is never a dependency of canju.
//!
//! canju solves the positions with one [`Solver`], whose transposition table is set up
//! before the timing starts, as the peer's hash table is before it is asked to search; no
//! proof reads what an earlier one stored.
//!
//! Each set runs under each rule set side by side (by default `none`, then `asian`, the
//! solver's and the trainer's default): the rule may change no verdict, length or winning
//! move on these positions (none of them is won by the rule), and the bench stops if one
//! does; the summary gives each rule set's total and its ratio to the first's.
//!
//! Run: `cargo bench --bench solve` (`-- --threads N` for canju's threads, default 1;
//! `-- --no-peer` to skip the peer; `-- --set compositions`, `-- --set checks` or
//! `-- --set games` for one set; `-- --rules none,check-only,asian` for the rule sets).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use canju::Position;
use canju::solver::{DEFAULT_HASH_MB, Options, Solution, Solver, Verdict};
use canju::tablebase::Rules;

struct Case {
    fen: String,
    plies: u32,
    label: String,
}

/// The positions of a data file that have a length in column `column` (counted from 0,
/// the FEN being column 0; "-" is no length); the last column is the label.
fn cases(text: &str, column: usize) -> Vec<Case> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let parts: Vec<&str> = l.split(';').map(str::trim).collect();
            let plies = parts[column].parse().ok()?;
            Some(Case {
                fen: parts[0].to_string(),
                plies,
                label: parts[parts.len() - 1].to_string(),
            })
        })
        .collect()
}

fn find_peer() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.push(PathBuf::from("/usr/games"));
    dirs.into_iter()
        .map(|d| d.join("fairy-stockfish"))
        .find(|p| p.is_file())
}

/// Runs the peer's `go mate N` on one position; returns its time and the mate it reported.
fn peer_mate(peer: &PathBuf, fen: &str, moves: u32) -> Option<(Duration, Option<i32>)> {
    let mut child = Command::new(peer)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut input = child.stdin.take()?;
    let mut output = BufReader::new(child.stdout.take()?);
    let mut line = String::new();
    let mut wait_for = |prefix: &str, output: &mut BufReader<_>| -> Option<Vec<String>> {
        let mut seen = Vec::new();
        loop {
            line.clear();
            if output.read_line(&mut line).ok()? == 0 {
                return None;
            }
            seen.push(line.trim().to_string());
            if line.starts_with(prefix) {
                return Some(seen);
            }
        }
    };
    writeln!(input, "uci").ok()?;
    wait_for("uciok", &mut output)?;
    writeln!(input, "setoption name UCI_Variant value xiangqi").ok()?;
    writeln!(input, "setoption name Threads value 1").ok()?;
    writeln!(input, "isready").ok()?;
    wait_for("readyok", &mut output)?;
    writeln!(input, "position fen {fen}").ok()?;
    let start = Instant::now();
    writeln!(input, "go mate {moves}").ok()?;
    let seen = wait_for("bestmove", &mut output)?;
    let elapsed = start.elapsed();
    let _ = writeln!(input, "quit");
    let _ = child.wait();
    let mate = seen
        .iter()
        .rev()
        .find_map(|l| l.split("score mate ").nth(1))
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok());
    Some((elapsed, mate))
}

/// One set of the bench.
struct Set {
    name: &'static str,
    /// Its `--set` value.
    key: &'static str,
    text: &'static str,
    /// The column of the lengths in `text`.
    column: usize,
    /// Wins by checks alone (连将杀), which the peer cannot be asked for.
    checks_only: bool,
}

/// The sets, in the order they run.
const SETS: &[Set] = &[
    Set {
        name: "compositions (适情雅趣)",
        key: "compositions",
        text: include_str!("data/shiqingyaqu.txt"),
        column: 1,
        checks_only: false,
    },
    Set {
        name: "连将杀 (适情雅趣, by checks alone)",
        key: "checks",
        text: include_str!("data/shiqingyaqu.txt"),
        column: 2,
        checks_only: true,
    },
    Set {
        name: "game positions",
        key: "games",
        text: include_str!("data/solve.txt"),
        column: 1,
        checks_only: false,
    },
];

/// What a proof answered, compared between rule sets: the verdict, and each winning first
/// move with its length and whether the rule decided it.
fn answer(s: &Solution) -> (Verdict, Vec<(String, u32, bool)>) {
    let mut moves: Vec<(String, u32, bool)> = s
        .winning_moves
        .iter()
        .map(|w| (w.mv.to_string(), w.plies, w.by_rule == Some(true)))
        .collect();
    moves.sort();
    (s.verdict, moves)
}

/// Proves every position of one set under each of `rules` side by side (and runs the peer
/// on it when there is one); returns the set's summary lines.
fn run_set(
    set: &Set,
    solver: &mut Solver,
    pool: &rayon::ThreadPool,
    peer: Option<&PathBuf>,
    rules: &[Rules],
) -> Vec<String> {
    let name = set.name;
    let peer = peer.filter(|_| !set.checks_only);
    println!();
    println!("{name}");
    let mut header = format!("{:>3} {:>5}", "#", "plies");
    for r in rules {
        header += &format!(" {:>10} {:>10}", format!("{r} s"), "nodes");
    }
    println!("{header} {:>7} {:>9}  position", "winners", "peer s");
    let mut times = vec![Vec::new(); rules.len()];
    let mut nodes = vec![0u64; rules.len()];
    let mut peer_total = 0.0f64;
    for (i, c) in cases(set.text, set.column).iter().enumerate() {
        let pos: Position = c.fen.parse().expect("a legal FEN");
        let moves = c.plies.div_ceil(2);
        let mut line = format!("{:>3} {:>5}", i + 1, c.plies);
        let mut first = None;
        let mut winners = 0;
        for (k, &r) in rules.iter().enumerate() {
            let mut options = Options::new(moves);
            options.checks_only = set.checks_only;
            options.rules = r;
            let s = pool.install(|| solver.solve(&pos, &options, None).expect("solves"));
            assert_eq!(
                s.verdict,
                Verdict::Win { plies: c.plies },
                "{} under {r}: the stored length is wrong",
                c.fen
            );
            let a = answer(&s);
            match &first {
                None => first = Some(a),
                Some(f) => assert_eq!(f, &a, "{}: {r} answers otherwise than {}", c.fen, rules[0]),
            }
            times[k].push(s.seconds);
            nodes[k] += s.nodes;
            winners = s.winning_moves.len();
            line += &format!(" {:>10.3} {:>10}", s.seconds, s.nodes);
        }
        let peer_text = match peer {
            Some(p) => match peer_mate(p, &c.fen, moves) {
                Some((t, mate)) => {
                    peer_total += t.as_secs_f64();
                    format!(
                        "{:.3}{}",
                        t.as_secs_f64(),
                        if mate == Some(moves as i32) { "" } else { "*" }
                    )
                }
                None => "failed".into(),
            },
            None => "-".into(),
        };
        println!("{line} {winners:>7} {peer_text:>9}  {}", c.label);
    }
    let base: f64 = times[0].iter().sum();
    let mut summaries = Vec::new();
    for (k, r) in rules.iter().enumerate() {
        let total: f64 = times[k].iter().sum();
        let mut sorted = times[k].clone();
        sorted.sort_by(f64::total_cmp);
        let mut summary = format!(
            "{name}, --rules {r}: canju {} positions, median {:.3} s, worst {:.3} s, total {:.2} s, {:.1} M nodes/s",
            sorted.len(),
            sorted[sorted.len() / 2],
            sorted[sorted.len() - 1],
            total,
            nodes[k] as f64 / total.max(1e-9) / 1e6
        );
        if k > 0 {
            summary += &format!(", {:.2}x {}'s time", total / base.max(1e-9), rules[0]);
        }
        if set.checks_only {
            summary += "; the peer has no checks-only search";
        } else if peer.is_some() {
            summary += &format!(
                "; peer total {peer_total:.2} s, canju/peer {:.2}",
                total / peer_total.max(1e-9)
            );
        }
        summaries.push(summary);
    }
    summaries
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value_of = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let threads = value_of("--threads")
        .and_then(|t| t.parse().ok())
        .unwrap_or(1usize);
    let only = value_of("--set").cloned();
    if let Some(set) = &only
        && !SETS.iter().any(|s| s.key == set)
    {
        eprintln!("--set {set}: no such set (compositions, checks, games)");
        std::process::exit(2);
    }
    let rules: Vec<Rules> = match value_of("--rules") {
        None => vec![Rules::None, Rules::Asian],
        Some(list) => match list.split(',').map(str::parse).collect() {
            Ok(rules) => rules,
            Err(e) => {
                eprintln!("--rules {list}: {e}");
                std::process::exit(2);
            }
        },
    };
    let use_peer = !args.iter().any(|a| a == "--no-peer");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let peer = if use_peer { find_peer() } else { None };
    match (&peer, use_peer) {
        (Some(p), _) => println!("peer: {} (one thread)", p.display()),
        (None, true) => println!("peer: fairy-stockfish is not installed; canju alone"),
        (None, false) => println!("peer: skipped"),
    }
    println!("canju: {threads} thread(s)");
    // (its table set up once, as the peer's is before it is asked to search)
    let mut solver = Solver::new(DEFAULT_HASH_MB);
    let mut summaries = Vec::new();
    for set in SETS {
        if only.as_deref().is_none_or(|o| o == set.key) {
            summaries.extend(run_set(set, &mut solver, &pool, peer.as_ref(), &rules));
        }
    }
    println!();
    for s in &summaries {
        println!("{s}");
    }
    if peer.is_some() && only.as_deref() != Some("checks") {
        println!("(* after a peer time: it reported another mate length than the stored one)");
    }
}
