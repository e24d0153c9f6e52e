//! `canju uci`: canju as an engine for Xiangqi GUIs, over UCI (and UCCI, whose handshake is
//! `ucci` / `ucciok` and whose last word is `bye`). A thin skin over the library: in table
//! material the tables' perfect moves, elsewhere the mate solver's proof, and where neither
//! decides a labelled fallback. Moves are ICCS coordinates (`h2e2`, ranks 0–9 from red's
//! side), as Pikafish and UCCI write them.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use canju::game::material::Material;
use canju::solver::rule::Path;
use canju::solver::{History, MAX_MOVES, Options, Solver, Verdict};
use canju::tablebase::{Rules, Tablebase, Value};
use canju::{GameEnd, Move, Position};

use super::CliResult;

/// The solver's bound when `go` names none (`depth`, `mate`), in moves.
const DEFAULT_BOUND: u32 = 10;
/// The time a bare `go` (no limit at all) thinks, at most.
const DEFAULT_TIME: Duration = Duration::from_secs(10);
/// The most time the fallback spends looking for a move that allows no mate in one.
const FALLBACK_TIME: Duration = Duration::from_millis(200);
/// The longest line shown from the tables, in plies.
const TABLE_PV: usize = 24;

/// Lines to the GUI, one at a time, flushed (the search thread and the reader share it).
#[derive(Clone)]
struct Out(Arc<Mutex<std::io::Stdout>>);

impl Out {
    fn send(&self, line: &str) {
        let mut o = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // (a GUI that has gone away: nothing more to say to it)
        let _ = writeln!(o, "{line}").and_then(|_| o.flush());
    }
}

/// `go`'s words followed by a number.
const NUMBERED: [&str; 13] = [
    "depth",
    "mate",
    "nodes",
    "movetime",
    "time",
    "increment",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "opptime",
    "oppincrement",
];
/// `go`'s other words.
const OTHERS: [&str; 4] = ["infinite", "ponder", "searchmoves", "draw"];

/// What `go` asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Limits {
    depth: Option<u32>,
    mate: Option<u32>,
    movetime: Option<Duration>,
    time_left: Option<Duration>,
    increment: Duration,
    infinite: bool,
    /// `go ponder`: the search runs, and `bestmove` waits for `ponderhit` or `stop`.
    ponder: bool,
    nodes: Option<u64>,
}

impl Limits {
    /// Reads `go`'s words; those of the other side's clock are read but not used. A limit
    /// whose number is missing or not a number is dropped, the others kept: the dropped
    /// ones are given back, each as the GUI wrote it.
    fn parse(words: &[&str], red_to_move: bool) -> (Limits, Vec<String>) {
        let mut l = Limits::default();
        let mut dropped = Vec::new();
        let mut i = 0;
        let ms = Duration::from_millis;
        while i < words.len() {
            let word = words[i];
            let takes_number = NUMBERED.contains(&word);
            if !takes_number {
                // (the words after searchmoves are moves, read by `search_moves`)
                match word {
                    "infinite" => l.infinite = true,
                    "ponder" => l.ponder = true,
                    _ => {}
                }
                i += 1;
                continue;
            }
            let text = words.get(i + 1).copied();
            let Some(n) = text.and_then(|w| w.parse::<u64>().ok()) else {
                dropped.push(match text {
                    // (a word of go's own: the number is missing, and the word is read next)
                    Some(w) if !NUMBERED.contains(&w) && !OTHERS.contains(&w) => {
                        i += 2;
                        format!("{word} {w} (not a number)")
                    }
                    _ => {
                        i += 1;
                        format!("{word} (no number)")
                    }
                });
                continue;
            };
            i += 2;
            match word {
                "depth" => l.depth = Some(n.clamp(1, u64::from(MAX_MOVES)) as u32),
                "mate" => l.mate = Some(n.clamp(1, u64::from(MAX_MOVES)) as u32),
                "nodes" => l.nodes = Some(n),
                "movetime" => l.movetime = Some(ms(n)),
                // (UCCI: `go time T increment I` for the side to move)
                "time" => l.time_left = Some(ms(n)),
                "increment" => l.increment = ms(n),
                "wtime" | "btime" if (word == "wtime") == red_to_move => {
                    l.time_left = Some(ms(n));
                }
                "winc" | "binc" if (word == "winc") == red_to_move => l.increment = ms(n),
                _ => {}
            }
        }
        (l, dropped)
    }

    /// The limits with the clock's numbers read as seconds (UCCI's unit), not
    /// milliseconds.
    fn in_seconds(mut self) -> Limits {
        self.time_left = self.time_left.map(|t| t * 1000);
        self.increment *= 1000;
        self
    }

    /// The time the search may take.
    fn budget(&self) -> Option<Duration> {
        if self.infinite {
            return None;
        }
        if let Some(t) = self.movetime {
            return Some(t);
        }
        if let Some(left) = self.time_left {
            // a twentieth of the clock and half the increment, never more than half the clock
            return Some((left / 20 + self.increment / 2).min(left / 2));
        }
        if self.depth.is_some() || self.mate.is_some() || self.nodes.is_some() {
            return None;
        }
        Some(DEFAULT_TIME)
    }
}

/// The engine's settings (`setoption`).
struct Settings {
    dir: PathBuf,
    rules: Rules,
    threads: usize,
    hash_mb: usize,
    /// The conversation began with `ucci`.
    ucci: bool,
    /// UCCI's `usemillisec`: `go time` and `increment` in milliseconds, not seconds.
    millis: bool,
}

/// The two flags of a search: `asked`, set when the GUI says `stop` (or `quit`, or a new
/// command that ends the search); `search`, the solver's own, which it also sets itself when
/// its time runs out, so that a search out of time is not taken for a GUI's `stop`.
#[derive(Clone, Default)]
struct Stop {
    asked: Arc<AtomicBool>,
    search: Arc<AtomicBool>,
    /// `ponderhit` came: a `go ponder` search answers when it is done.
    ponderhit: Arc<AtomicBool>,
}

impl Stop {
    fn now(&self) {
        self.asked.store(true, Ordering::Relaxed);
        self.search.store(true, Ordering::Relaxed);
    }

    fn asked(&self) -> bool {
        self.asked.load(Ordering::Relaxed)
    }
}

/// A search under way: its stop flags and the thread that answers `bestmove`.
struct Search {
    stop: Stop,
    handle: JoinHandle<Solver>,
}

/// Runs the engine on standard input until `quit` (or `bye`, or the end of input).
pub fn run(dir: PathBuf, rules: Rules) -> CliResult {
    let out = Out(Arc::new(Mutex::new(std::io::stdout())));
    let mut settings = Settings {
        dir,
        rules,
        threads: 1,
        hash_mb: 64,
        ucci: false,
        millis: false,
    };
    let mut pos = Position::start();
    let mut history = History::default();
    let mut solver = Some(Solver::new(settings.hash_mb));
    let mut search: Option<Search> = None;
    // UCCI's `banmoves` for the current position
    let mut banned: Vec<Move> = Vec::new();
    // (join the search under way, getting its solver back)
    let finish = |search: &mut Option<Search>, solver: &mut Option<Solver>| {
        if let Some(s) = search.take() {
            s.stop.now();
            let back = s.handle.join().unwrap_or_else(|_| Solver::new(64));
            *solver = Some(back);
        }
    };
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match stdin.read_until(b'\n', &mut raw) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        let bytes = raw.trim_ascii_end();
        let line = match std::str::from_utf8(bytes) {
            Ok(line) => line,
            Err(e) => {
                // a path in the system's own bytes (GBK from a Chinese GUI) is a path all
                // the same; anything else cannot be read, and the GUI is told so
                if let Some(dir) = raw_tablebase_dir(bytes) {
                    finish(&mut search, &mut solver);
                    settings.dir = dir;
                } else {
                    out.send(&format!(
                        "info string a line that is not UTF-8 was ignored (byte {} of {}: {}…); canju reads its commands as UTF-8",
                        e.valid_up_to() + 1,
                        bytes.len(),
                        String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
                    ));
                }
                continue;
            }
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&command) = words.first() else {
            continue;
        };
        match command {
            "uci" | "ucci" => {
                settings.ucci = command == "ucci";
                out.send(&format!("id name canju {}", env!("CARGO_PKG_VERSION")));
                out.send("id author the canju developers");
                let rules = settings.rules.name();
                if settings.ucci {
                    // UCCI's own syntax: no `name`, bounds and choices before the default;
                    // its standard names where it has one (hashsize, threads, usemillisec)
                    out.send(&format!(
                        "option tablebasedir type string default {}",
                        settings.dir.display()
                    ));
                    out.send("option usemillisec type check default false");
                    out.send("option threads type spin min 1 max 256 default 1");
                    out.send("option hashsize type spin min 1 max 16384 default 64");
                    out.send(&format!(
                        "option rules type combo var asian var check-only var none default {rules}"
                    ));
                    out.send("ucciok");
                } else {
                    out.send(&format!(
                        "option name TablebaseDir type string default {}",
                        settings.dir.display()
                    ));
                    out.send("option name Ponder type check default false");
                    out.send("option name Threads type spin default 1 min 1 max 256");
                    out.send("option name Hash type spin default 64 min 1 max 16384");
                    out.send(&format!(
                        "option name Rules type combo default {rules} var asian var check-only var none"
                    ));
                    out.send("uciok");
                }
            }
            "isready" => out.send("readyok"),
            "ucinewgame" => {
                finish(&mut search, &mut solver);
                renew(&mut solver, settings.hash_mb);
            }
            "setoption" => {
                finish(&mut search, &mut solver);
                match set_option(&mut settings, &words[1..]) {
                    Ok(changed) => {
                        if changed == Changed::Hash {
                            renew(&mut solver, settings.hash_mb);
                        }
                        if changed == Changed::Tables
                            && let Some(note) = tables_note(&settings.dir, settings.rules)
                        {
                            out.send(&format!("info string {note}"));
                        }
                    }
                    Err(e) => out.send(&format!("info string {e}")),
                }
            }
            "position" => {
                finish(&mut search, &mut solver);
                match read_game(&words[1..]) {
                    Ok((p, h)) => {
                        (pos, history) = (p, h);
                        banned.clear();
                    }
                    Err(e) => out.send(&format!("info string {e}; the position is unchanged")),
                }
            }
            // UCCI: moves the engine must not play in this position (a repetition the
            // GUI's rules forbid), until the next `position`
            "banmoves" => {
                finish(&mut search, &mut solver);
                let (moves, unknown) = legal_moves_named(&pos, words[1..].iter().copied());
                banned = moves;
                if !unknown.is_empty() {
                    out.send(&format!(
                        "info string banmoves: {} not legal here; the others are banned",
                        unknown.join(", ")
                    ));
                }
            }
            // UCCI: what the engine knows of a position without searching it: the
            // tables' value and move, or nothing
            "probe" => match read_game(&words[1..]) {
                Ok((p, _)) => out.send(&probe_answer(
                    &Tablebase::with_rules(&settings.dir, settings.rules),
                    &p,
                )),
                Err(e) => out.send(&format!("info string {e}")),
            },
            "go" => {
                finish(&mut search, &mut solver);
                let (mut limits, dropped) =
                    Limits::parse(&words[1..], pos.turn() == canju::Color::Red);
                if settings.ucci && !settings.millis {
                    // (UCCI's clock is in seconds unless `usemillisec` is set)
                    limits = limits.in_seconds();
                }
                if !dropped.is_empty() {
                    out.send(&format!(
                        "info string go: dropped {}; the other limits hold",
                        dropped.join(", ")
                    ));
                }
                let (mut first_moves, unknown) = search_moves(&pos, &words[1..]);
                if !banned.is_empty() {
                    let from = first_moves.unwrap_or_else(|| pos.legal_moves().to_vec());
                    first_moves = Some(from.into_iter().filter(|m| !banned.contains(m)).collect());
                }
                if !unknown.is_empty() {
                    out.send(&format!(
                        "info string go searchmoves: {} not legal here; searching the others",
                        unknown.join(", ")
                    ));
                }
                let stop = Stop::default();
                let job = Job {
                    pos: pos.clone(),
                    history: history.clone(),
                    limits,
                    first_moves,
                    tb: Tablebase::with_rules(&settings.dir, settings.rules),
                    threads: settings.threads,
                    stop: stop.clone(),
                    out: out.clone(),
                };
                let mut s = solver
                    .take()
                    .unwrap_or_else(|| Solver::new(settings.hash_mb));
                let handle = std::thread::spawn(move || {
                    job.think(&mut s);
                    s
                });
                search = Some(Search { stop, handle });
            }
            "stop" => finish(&mut search, &mut solver),
            // the pondered move was played: the search goes on, and answers when done
            "ponderhit" => {
                if let Some(s) = &search {
                    s.stop.ponderhit.store(true, Ordering::Relaxed);
                }
            }
            "quit" => break,
            "bye" => {
                out.send("bye");
                break;
            }
            // (register, debug and the rest: nothing to do)
            "register" | "debug" => {}
            other => out.send(&format!("info string unknown command: {other}")),
        }
    }
    finish(&mut search, &mut solver);
    Ok(())
}

/// A new solver with a hash table of `mb` MB in place of the old one, whose table is freed
/// first: never two tables at once.
fn renew(solver: &mut Option<Solver>, mb: usize) {
    *solver = None;
    *solver = Some(Solver::new(mb));
}

/// The path of `setoption name TablebaseDir value PATH` (or UCCI's `setoption TablebaseDir
/// PATH`) when the line is not UTF-8: the path's bytes as they are (on Unix a path is
/// bytes). `None` for any other line.
fn raw_tablebase_dir(line: &[u8]) -> Option<PathBuf> {
    let mut words = Vec::new();
    let mut at = 0;
    for word in line.split(|b| b.is_ascii_whitespace()) {
        if !word.is_empty() {
            words.push((at, word));
        }
        at += word.len() + 1;
    }
    let is = |i: usize, w: &str| {
        words
            .get(i)
            .is_some_and(|x| x.1.eq_ignore_ascii_case(w.as_bytes()))
    };
    let from = if !is(0, "setoption") {
        return None;
    } else if is(1, "name") && is(2, "tablebasedir") && is(3, "value") {
        words.get(4)?.0
    } else if is(1, "tablebasedir") {
        words.get(2)?.0
    } else {
        return None;
    };
    let value = line[from..].trim_ascii();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(value)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(value).ok().map(PathBuf::from)
    }
}

/// What a `setoption` changed that the engine must act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Changed {
    /// The hash size: a new transposition table.
    Hash,
    /// The table directory or the rule set: which tables are read.
    Tables,
    Other,
}

/// What a GUI's user should know about the tables the engine would read from `dir` under
/// `rules`: nothing when it holds one at least; else that the directory is missing, or
/// holds none of this rule set (and which rule set it does hold tables of).
fn tables_note(dir: &std::path::Path, rules: Rules) -> Option<String> {
    use canju::tablebase::DirState;
    let shown = dir.display();
    match DirState::of(dir) {
        DirState::Absent => {
            return Some(format!(
                "TablebaseDir {shown}: no such directory; the engine searches without tables"
            ));
        }
        DirState::NotADirectory => {
            return Some(format!(
                "TablebaseDir {shown}: not a directory; the engine searches without tables"
            ));
        }
        DirState::Present => {}
    }
    if Tablebase::with_rules(dir, rules).most_pieces_present() > 0 {
        return None;
    }
    let others: Vec<&str> = Rules::ALL
        .into_iter()
        .filter(|&r| r != rules && Tablebase::with_rules(dir, r).most_pieces_present() > 0)
        .map(Rules::name)
        .collect();
    Some(if others.is_empty() {
        format!(
            "TablebaseDir {shown}: no table in it (build some with `canju gen`); the engine searches without tables"
        )
    } else {
        format!(
            "TablebaseDir {shown}: no table of rules {} in it, only of rules {} (setoption name Rules value {}); the engine searches without tables",
            rules.name(),
            others.join(", "),
            others[0]
        )
    })
}

/// `setoption name NAME value VALUE` (UCI) or `setoption NAME VALUE` (UCCI); what changed.
fn set_option(s: &mut Settings, words: &[&str]) -> Result<Changed, String> {
    let (name, value) = match words.first() {
        Some(&"name") => {
            let at = words
                .iter()
                .position(|&w| w == "value")
                .unwrap_or(words.len());
            (
                words[1..at].join(" "),
                words.get(at + 1..).unwrap_or(&[]).join(" "),
            )
        }
        Some(name) => (name.to_string(), words[1..].join(" ")),
        None => return Err("setoption: which option?".to_string()),
    };
    match name.to_ascii_lowercase().as_str() {
        "tablebasedir" => {
            if value.is_empty() {
                return Err("TablebaseDir: an empty path".to_string());
            }
            s.dir = PathBuf::from(value);
            return Ok(Changed::Tables);
        }
        "threads" => s.threads = number_in(&value, 1, 256, "Threads")?,
        "usemillisec" => {
            s.millis = match value.as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(format!("usemillisec {value}: true or false")),
            }
        }
        "hash" | "hashsize" => {
            s.hash_mb = number_in(&value, 1, 16384, "Hash (MB)")?;
            return Ok(Changed::Hash);
        }
        "rules" => {
            s.rules = value.parse().map_err(|e| format!("Rules: {e}"))?;
            return Ok(Changed::Tables);
        }
        // (the GUI says whether it will ponder; canju ponders when asked either way)
        "ponder" => {}
        _ => return Err(format!("no option named '{name}'")),
    }
    Ok(Changed::Other)
}

/// An option's number, within `low..=high`.
fn number_in(value: &str, low: usize, high: usize, what: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (low..=high).contains(n))
        .ok_or(format!("{what} {value}: a number from {low} to {high}"))
}

/// `position startpos|fen FEN [moves m1 m2 …]`.
#[cfg(test)]
fn read_position(words: &[&str]) -> Result<Position, String> {
    read_game(words).map(|(pos, _)| pos)
}

/// `position startpos|fen FEN [moves m1 m2 …]`: the position, and the game's positions up
/// to it, so that the perpetual-check rule counts a repetition of them.
fn read_game(words: &[&str]) -> Result<(Position, History), String> {
    let at = words
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(words.len());
    let mut pos = match words.first() {
        Some(&"startpos") => Position::start(),
        Some(&"fen") => {
            let fen = words[1..at].join(" ");
            fen.parse::<Position>()
                .map_err(|e| format!("position fen: {e}"))?
        }
        _ => return Err("position: startpos or fen FEN, then moves".to_string()),
    };
    let start = pos.clone();
    let mut moves = Vec::new();
    for (i, text) in words.get(at + 1..).unwrap_or(&[]).iter().enumerate() {
        let m = canju::notation::parse_move(&pos, text)
            .map_err(|e| format!("position: move {} {e}", i + 1))?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok((pos, History::new(&start, &moves)))
}

/// UCCI's `pophash` for a position: the tables' best move and exact value as a lower and
/// an upper bound (mate scores as 10000 less the plies to mate, a draw 0, at depth 127:
/// exact however deep a search would go); a value by the rule has no such score, and only
/// its move is given. Nothing but `pophash` where no table holds the position.
fn probe_answer(tb: &Tablebase, pos: &Position) -> String {
    let ranked = match tb.rank_moves(pos) {
        Ok(r) => r,
        Err(_) => return "pophash".to_string(),
    };
    let Some(best) = ranked.first() else {
        return "pophash".to_string();
    };
    let score = match best.value {
        Value::Win(n) => Some(10000 - i64::from(n)),
        Value::Loss(n) => Some(i64::from(n) - 10000),
        Value::Draw => Some(0),
        Value::RuleWin(_) | Value::RuleLoss(_) => None,
    };
    match score {
        Some(v) => format!(
            "pophash bestmove {} lowerbound {v} depth 127 upperbound {v} depth 127",
            best.mv
        ),
        None => format!("pophash bestmove {}", best.mv),
    }
}

/// Nodes a second, from nodes in `ms` milliseconds.
fn nps(nodes: u64, ms: u128) -> u128 {
    u128::from(nodes) * 1000 / ms.max(1)
}

/// The moves after `go … searchmoves` (up to the next word of `go`'s own), those legal
/// here, and the words that are no legal move here.
fn search_moves(pos: &Position, words: &[&str]) -> (Option<Vec<Move>>, Vec<String>) {
    let Some(at) = words.iter().position(|&w| w == "searchmoves") else {
        return (None, Vec::new());
    };
    let listed = words[at + 1..]
        .iter()
        .take_while(|w| !NUMBERED.contains(w) && !OTHERS.contains(w));
    let (moves, unknown) = legal_moves_named(pos, listed.copied());
    (Some(moves), unknown)
}

/// The legal moves among `words`, and the words that are no legal move here.
fn legal_moves_named<'w>(
    pos: &Position,
    words: impl Iterator<Item = &'w str>,
) -> (Vec<Move>, Vec<String>) {
    let legal = pos.legal_moves();
    let (mut moves, mut unknown) = (Vec::new(), Vec::new());
    for w in words {
        match canju::notation::parse_move(pos, w) {
            Ok(m) if legal.contains(&m) => moves.push(m),
            _ => unknown.push(w.to_string()),
        }
    }
    (moves, unknown)
}

/// One `go`: everything the search thread needs.
struct Job {
    pos: Position,
    /// The game's positions up to `pos`.
    history: History,
    limits: Limits,
    /// `go searchmoves`: only these first moves.
    first_moves: Option<Vec<Move>>,
    tb: Tablebase,
    threads: usize,
    stop: Stop,
    out: Out,
}

impl Job {
    fn think(&self, solver: &mut Solver) {
        let best = self.best_move(solver);
        // `go infinite` answers only when told to stop; `go ponder` when told to stop or
        // that the pondered move was played
        while (self.limits.infinite
            || self.limits.ponder && !self.stop.ponderhit.load(Ordering::Relaxed))
            && !self.stop.asked()
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        self.out.send(&match best {
            Some(m) => format!("bestmove {m}"),
            None => "bestmove (none)".to_string(),
        });
    }

    fn best_move(&self, solver: &mut Solver) -> Option<Move> {
        let pos = &self.pos;
        if let Some(end) = pos.game_end() {
            self.out.send(&format!(
                "info string the game is over: {}",
                match end {
                    GameEnd::Checkmate { .. } => "checkmate (将死)",
                    GameEnd::Stalemate { .. } => "no legal move (困毙)",
                }
            ));
            return None;
        }
        match self.tables_move() {
            Ok(Some(m)) => return Some(m),
            Ok(None) => {}
            Err(e) => self
                .out
                .send(&format!("info string the tables: {e}; searching instead")),
        }
        self.solvers_move(solver)
    }

    /// The tables' best move, when the position's material has a table present.
    fn tables_move(&self) -> Result<Option<Move>, canju::tablebase::TableError> {
        let pos = &self.pos;
        if pos.unreachable_piece().is_some() {
            return Ok(None);
        }
        if self
            .tb
            .table_if_present(Material::of(pos).canonical())?
            .is_none()
        {
            return Ok(None);
        }
        // the tables' moves less those the rule forbids after the game's history: the
        // tables value each position as if reached afresh, and a repetition of the game's
        // positions that completes a perpetual attack is not the mover's to play
        let mut allowed = Path::table_moves(&self.tb, &self.history, pos)?;
        allowed.retain(|r| self.searched(r.mv));
        let Some(first) = allowed.first().copied() else {
            // every legal move (searched) completes a forbidden repetition: one must be
            // played, and the side to move loses by the rule
            let ranked = self.tb.rank_moves(pos)?;
            let Some(m) = ranked.iter().map(|r| r.mv).find(|&m| self.searched(m)) else {
                return Ok(None);
            };
            self.out
                .send(&format!("info depth 1 score cp -10000 pv {m}"));
            self.out.send(&format!(
                "info string every {} repeats the game's position and completes a perpetual attack the rule forbids ({}): {}; {m} is played",
                if self.first_moves.is_some() {
                    "move searched (go searchmoves, banmoves)"
                } else {
                    "legal move"
                },
                self.tb.rules().name(),
                if self.first_moves.is_some() {
                    "each of them loses by the rule"
                } else {
                    "the side to move loses by the rule"
                }
            ));
            return Ok(Some(m));
        };
        let unrestricted = self.tb.rank_moves(pos)?;
        if let Some(best) = unrestricted.iter().find(|r| self.searched(r.mv))
            && best.mv != first.mv
            && best.value != first.value
        {
            self.out.send(&format!(
                "info string the tables' best move {} ({}) would repeat the game's position and complete a perpetual attack the rule forbids; the best move left is {} ({})",
                best.mv,
                best.value.describe_under(self.tb.rules()),
                first.mv,
                first.value.describe_under(self.tb.rules())
            ));
        }
        let value = first.value;
        let mut line = vec![first.mv];
        let mut history = self.history.clone();
        let mut p = pos.clone();
        history.push(&p, first.mv);
        p.play_unchecked(first.mv);
        while line.len() < TABLE_PV {
            if value == Value::Draw && line.len() >= 8 {
                break;
            }
            let Some(next) = Path::table_moves(&self.tb, &history, &p)?
                .first()
                .map(|r| r.mv)
            else {
                break;
            };
            line.push(next);
            history.push(&p, next);
            p.play_unchecked(next);
        }
        let pv: Vec<String> = line.iter().map(Move::to_string).collect();
        let score = match value {
            Value::Win(n) => format!("mate {}", n.div_ceil(2)),
            Value::Loss(n) => format!("mate -{}", n / 2),
            Value::Draw => "cp 0".to_string(),
            Value::RuleWin(_) => "cp 10000".to_string(),
            Value::RuleLoss(_) => "cp -10000".to_string(),
        };
        if let Value::RuleWin(level) | Value::RuleLoss(level) = value {
            let (rule, forever) = if self.tb.rules() == Rules::Asian {
                (
                    "the whole 长打 rule (长打作负)",
                    "checking, threatening mate or chasing",
                )
            } else {
                ("the perpetual-check rule (长将作负)", "checking")
            };
            self.out.send(&format!(
                "info string {} by {rule}, level {level}: the loser escapes mate only by {forever} forever; the tables hold no distance to mate, so the score is not a mate score",
                if value.is_win() { "won" } else { "lost" }
            ));
        }
        self.out.send(&format!(
            "info depth {} score {score} pv {}",
            line.len().max(1),
            pv.join(" ")
        ));
        self.out.send(&format!(
            "info string the tables ({}, rules {}): {}",
            Material::of(pos).canonical(),
            self.tb.rules().name(),
            value.describe_under(self.tb.rules())
        ));
        Ok(line.first().copied())
    }

    /// Whether `go` lets the search play `m` first (every move without `searchmoves`).
    fn searched(&self, m: Move) -> bool {
        self.first_moves.as_ref().is_none_or(|f| f.contains(&m))
    }

    fn options(&self, max_moves: u32, time: Option<Duration>) -> Options {
        let mut o = Options::new(max_moves);
        o.rules = self.tb.rules();
        o.history = self.history.clone();
        o.stop = self.stop.search.clone();
        o.time = time;
        o.max_nodes = self.limits.nodes;
        // (a GUI asks for a move and its mate: the other winning moves' lengths are not
        // needed)
        o.shortest_only = true;
        o
    }

    /// The solver's proof, else the fallback.
    fn solvers_move(&self, solver: &mut Solver) -> Option<Move> {
        let started = Instant::now();
        let budget = self.limits.budget();
        let bound = self
            .limits
            .mate
            .or(self.limits.depth)
            .unwrap_or(if self.limits.infinite {
                MAX_MOVES
            } else {
                DEFAULT_BOUND
            });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .ok();
        let tb = Some(&self.tb);
        let mut options = self.options(bound, budget);
        options.first_moves = self.first_moves.clone();
        let searching = AtomicBool::new(true);
        let solved = std::thread::scope(|scope| {
            scope.spawn(|| self.report_depths(&options.live, &searching, started));
            let solved = match &pool {
                Some(pool) => pool.install(|| solver.solve(&self.pos, &options, tb)),
                None => solver.solve(&self.pos, &options, tb),
            };
            searching.store(false, Ordering::Relaxed);
            solved
        });
        // (the solver stops itself when its time runs out, by the same flag: the fallback
        // still has its turn unless the GUI asked to stop)
        if !self.stop.asked() {
            self.stop.search.store(false, Ordering::Relaxed);
        }
        let ms = started.elapsed().as_millis();
        match solved {
            Ok(s) => {
                if let Verdict::Win { plies } = s.verdict {
                    let pv: Vec<String> = s.pv.iter().map(Move::to_string).collect();
                    self.out.send(&format!(
                        "info depth {} score mate {} nodes {} nps {} time {ms} pv {}",
                        plies.div_ceil(2),
                        plies.div_ceil(2),
                        s.nodes,
                        nps(s.nodes, ms),
                        pv.join(" ")
                    ));
                    let by_rule = s
                        .winning_moves
                        .first()
                        .is_some_and(|w| w.by_rule == Some(true));
                    self.out.send(&format!(
                        "info string a forced {} proven by canju's solver (rules {}{})",
                        if s.mate_only {
                            "mate"
                        } else {
                            "win (将死 or 困毙)"
                        },
                        s.rules,
                        match (by_rule, s.rules) {
                            (false, _) => "",
                            (true, Rules::Asian) =>
                                "; only by the whole 长打 rule: the opponent must stop checking, threatening mate or chasing (长打作负)",
                            (true, _) =>
                                "; only by the perpetual-check rule: the opponent must stop checking (长将作负)",
                        }
                    ));
                    return s.pv.first().copied();
                }
                let searched = s.searched_plies.div_ceil(2);
                self.out.send(&format!(
                    "info depth {searched} nodes {} nps {} time {ms}",
                    s.nodes,
                    nps(s.nodes, ms)
                ));
                self.out.send(&match s.verdict {
                    Verdict::None => {
                        format!("info string proven: no forced win within {bound} moves")
                    }
                    _ => {
                        format!("info string stopped: no forced win within {searched} moves proven")
                    }
                });
            }
            Err(canju::solver::SolveError::Stopped) => {
                self.out.send("info string stopped before the first answer");
            }
            Err(e) => self.out.send(&format!("info string the solver: {e}")),
        }
        self.fallback(solver)
    }

    /// While the solver searches, an `info depth D nodes N nps R time T` line each time it
    /// starts on a deeper bound: the searches within D moves have been started on every
    /// first move (with one thread, ended) without a win proven, so a GUI shows progress
    /// instead of silence. The line of the proof, or of the last depth, comes when the
    /// search ends.
    fn report_depths(&self, live: &canju::solver::Live, searching: &AtomicBool, started: Instant) {
        let mut shown = 0;
        while searching.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
            // (the deepest pass under way, in plies: the moves before it are done)
            let done = live
                .depth
                .load(Ordering::Relaxed)
                .div_ceil(2)
                .saturating_sub(1);
            if done > shown && searching.load(Ordering::Relaxed) {
                shown = done;
                let nodes = live.nodes.load(Ordering::Relaxed);
                let ms = started.elapsed().as_millis();
                self.out.send(&format!(
                    "info depth {done} nodes {nodes} nps {} time {ms}",
                    nps(nodes, ms)
                ));
            }
        }
    }

    /// Neither the tables nor a proof decided: the first legal move (in canju's move
    /// order) after which the solver proves the opponent has no mate in one; else the first
    /// legal move. Labelled as what it is: a legal move, not a judgement of strength.
    fn fallback(&self, solver: &mut Solver) -> Option<Move> {
        let mut legal = self.pos.legal_moves();
        legal.retain(|m| self.searched(m));
        if legal.is_empty() {
            self.out
                .send("info string go searchmoves: none of the moves is legal here");
            return None;
        }
        let quick = self.options(1, Some(Duration::from_millis(20)));
        // (a mate in one is proven or refuted in microseconds; the whole check is bounded
        // all the same, and a `stop` ends it)
        let deadline = Instant::now() + FALLBACK_TIME;
        let (mut safe, mut checked_all) = (None, true);
        for &m in legal.iter() {
            if Instant::now() >= deadline || self.stop.asked() {
                checked_all = false;
                break;
            }
            let mut p = self.pos.clone();
            p.play_unchecked(m);
            match solver.mate_distance(&p, p.turn(), 1, &quick, Some(&self.tb)) {
                Ok(None) => {
                    safe = Some(m);
                    break;
                }
                Ok(Some(_)) => {}
                Err(_) => {
                    checked_all = false;
                    break;
                }
            }
        }
        let (m, why) = match safe {
            Some(m) => (
                m,
                "the first legal move after which the opponent has no mate in one",
            ),
            None if checked_all => (
                legal[0],
                "the first legal move (every move allows a mate in one)",
            ),
            None => (
                legal[0],
                "the first legal move (stopped before the others were checked)",
            ),
        };
        // (no score: nothing is proven, and `cp 0` would be drawn as "equal")
        self.out.send(&format!("info depth 1 pv {m}"));
        self.out.send(&format!(
            "info string fallback: no table and no proven win; {m} is {why}, not a judgement of strength; no score"
        ));
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_reads_its_limits() {
        let l = Limits::parse(&["wtime", "60000", "btime", "1000", "winc", "2000"], true).0;
        assert_eq!(l.time_left, Some(Duration::from_secs(60)));
        assert_eq!(l.budget(), Some(Duration::from_millis(4000)));
        let l = Limits::parse(&["wtime", "60000", "btime", "1000"], false).0;
        assert_eq!(l.budget(), Some(Duration::from_millis(50)));
        let l = Limits::parse(&["mate", "3"], true).0;
        assert_eq!((l.mate, l.budget()), (Some(3), None));
        let l = Limits::parse(&["infinite"], true).0;
        assert!(l.infinite && l.budget().is_none());
        assert_eq!(Limits::parse(&[], true).0.budget(), Some(DEFAULT_TIME));
        // UCCI's clock in seconds (without usemillisec)
        let l = Limits::parse(&["time", "60", "increment", "2"], true)
            .0
            .in_seconds();
        assert_eq!(l.budget(), Some(Duration::from_millis(4000)));
        let l = Limits::parse(&["movetime", "250"], true).0;
        assert_eq!(l.budget(), Some(Duration::from_millis(250)));
        // a limit whose number does not parse is dropped, the others kept
        let (l, dropped) = Limits::parse(&["depth", "x", "movetime", "300"], true);
        assert_eq!(
            (l.depth, l.movetime),
            (None, Some(Duration::from_millis(300)))
        );
        assert_eq!(dropped, ["depth x (not a number)"]);
        let (l, dropped) = Limits::parse(&["wtime", "1e4", "mate", "2", "nodes"], true);
        assert_eq!((l.time_left, l.mate, l.nodes), (None, Some(2), None));
        assert_eq!(dropped, ["wtime 1e4 (not a number)", "nodes (no number)"]);
        let (l, dropped) = Limits::parse(&["movetime", "infinite"], true);
        assert!(l.infinite && l.movetime.is_none());
        assert_eq!(dropped, ["movetime (no number)"]);
    }

    #[test]
    fn options_in_both_syntaxes() {
        let mut s = Settings {
            dir: PathBuf::from("t"),
            rules: Rules::Asian,
            threads: 1,
            hash_mb: 64,
            ucci: false,
            millis: false,
        };
        assert_eq!(
            set_option(&mut s, &["name", "Threads", "value", "2"]),
            Ok(Changed::Other)
        );
        assert_eq!(s.threads, 2);
        assert_eq!(set_option(&mut s, &["Hash", "128"]), Ok(Changed::Hash));
        assert_eq!(s.hash_mb, 128);
        set_option(&mut s, &["name", "TablebaseDir", "value", "my", "tables"]).unwrap();
        assert_eq!(s.dir, PathBuf::from("my tables"));
        set_option(&mut s, &["name", "Rules", "value", "none"]).unwrap();
        assert_eq!(s.rules, Rules::None);
        assert!(set_option(&mut s, &["name", "Threads", "value", "0"]).is_err());
        assert!(set_option(&mut s, &["name", "Colour", "value", "red"]).is_err());
    }

    #[test]
    fn positions_with_moves() {
        let p = read_position(&["startpos", "moves", "h2e2", "h9g7"]).unwrap();
        assert_eq!(p.turn(), canju::Color::Red);
        let p =
            read_position(&["fen", "4k4/9/9/9/9/9/9/9/9/R2K5", "w", "-", "-", "0", "1"]).unwrap();
        assert_eq!(p.piece_count(), 3);
        assert!(
            read_position(&["startpos", "moves", "a0a5"])
                .unwrap_err()
                .contains("move 1")
        );
        assert!(read_position(&["nowhere"]).is_err());
    }
}
