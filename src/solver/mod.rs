//! The composition solver: exact forced mates beyond the tables.
//!
//! For the side to move (the attacker) it proves the shortest forced win within a bound
//! (checkmate or stalemate of the opponent: both lose in Xiangqi), every first move that
//! keeps a forced win within the bound with its own exact length, and a principal
//! variation in which the defender resists longest; or it proves that no forced win
//! exists within the bound. It is a proof, not a playing engine's guess: every legal move
//! of both sides is searched (quiet ones too), and nothing is pruned by judgement.
//!
//! The search deepens two plies at a time. Each pass asks of every first move not yet
//! known to win whether the attacker mates within the pass's depth after it; the first
//! pass in which a move succeeds is its exact length, since the pass before proved it
//! could not mate sooner. Bounds proven at any node are kept in a transposition table keyed
//! by the Zobrist key; a node whose material a table in the table directory holds is
//! decided by the table (its distance counts exactly). Repetitions cannot make a win: a
//! depth-bounded proof ends every line in a mate within the bound.
//!
//! ```
//! use canju::Position;
//! use canju::solver::{Options, Verdict, solve};
//!
//! // 双车错: the two chariots mate in two moves (three plies)
//! let pos: Position = "4k4/9/9/9/9/9/9/9/R8/R2K5 w".parse().unwrap();
//! let s = solve(&pos, &Options::new(3), None).unwrap();
//! assert_eq!(s.verdict, Verdict::Win { plies: 3 });
//! assert_eq!(s.pv.len(), 3);
//! // every first move that mates within three moves, with its own length
//! assert!(s.winning_moves.iter().all(|w| w.plies <= 5));
//! ```

mod checks;
mod long;
mod ordering;
mod pns;
pub mod report;
pub mod rule;
mod search;
pub(crate) mod tt;
mod witness;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::game::moves::Move;
use crate::game::position::Position;
use crate::tablebase::{Rules, TableError, Tablebase};
pub use long::{Length, LongProof};
use pns::PnTable;
pub use rule::History;
use search::{Heuristics, Searcher, Shared, Stop};
use tt::Tt;

/// The longest bound the solver takes, in moves of the attacker.
pub const MAX_MOVES: u32 = 60;
/// The bound `canju solve` and the server use when none is given, in moves.
pub const DEFAULT_MAX_MOVES: u32 = 6;
/// The transposition table's size when none is asked for, in MB.
pub const DEFAULT_HASH_MB: usize = 64;

/// What the solver is asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The bound: wins of at most this many moves of the attacker (2n − 1 plies).
    pub max_moves: u32,
    /// Stop when this much time has passed (the answer is then what was proven).
    pub time: Option<Duration>,
    /// Stop after about this many nodes (checked every 1,024 nodes of each thread).
    pub max_nodes: Option<u64>,
    /// Stop when this is set (Ctrl-C).
    pub stop: Arc<AtomicBool>,
    /// Transposition table size in MB: the most it grows to (the transposition table grows by fours from 1 MB). A
    /// [`Solver`] has a table of its own and does not read this.
    pub hash_mb: usize,
    /// Live counters for a progress display.
    pub live: Arc<Live>,
    /// 连将杀: every move of the attacker's must give check, as many compositions
    /// stipulate. The answer is then the shortest forced win made of checks alone (never
    /// shorter than the shortest win, which may need a quiet move), the first moves that
    /// start one, and its line; a stalemate by a quiet move does not count, and the
    /// tables are not read (their distances allow quiet moves).
    pub checks_only: bool,
    /// 将死 only: the win must end in checkmate; a stalemate (困毙, which wins under the
    /// rules) does not count, for compositions whose composer intends the mate. The tables
    /// are not read (their distances count stalemates).
    pub mate_only: bool,
    /// How the proof is searched. Both methods give the same answers; they differ in what
    /// they reach in a given time.
    pub method: Method,
    /// The rules the game is played under: [`Rules::None`] (the default here: every line of
    /// a proof ends in mate, and endless play is no win), or [`Rules::Asian`], under which a
    /// move that completes a perpetual check (长将) is forbidden and a side left with
    /// forbidden moves alone loses, so that a defence that holds only by checking forever
    /// fails (see [`rule`]). Tables of other rules than these are not read under `Asian`.
    pub rules: Rules,
    /// The game's positions before the one solved (its last position must be the one
    /// solved; otherwise, and by default, the proof starts a fresh line there), so that the
    /// rule counts a repetition of them.
    pub history: History,
    /// Only these first moves are searched (a GUI's `go searchmoves`); `None`: every legal
    /// move. A listed move that is not legal here is never searched.
    pub first_moves: Option<Vec<Move>>,
    /// Prove the shortest win and a first move that makes it (the first in move order, and
    /// any other whose win was found meanwhile, each with its exact length), not every
    /// winning first move's length: an engine's question. No first move is searched as deep
    /// as a win found. Depth-first proofs only.
    pub shortest_only: bool,
}

/// How a proof is searched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Depth-first passes, two plies deeper each, every move of both sides to the full
    /// depth, on every core: the quickest for short proofs and for proving that there is
    /// no win.
    #[default]
    DepthFirst,
    /// Proof-number search (df-pn) on one core: it spends its effort where the proof is
    /// cheapest to finish, and reaches long wins whose tree is narrow (the defender's
    /// answers to checks, quiet moves that parry its threats). The shortest length is still
    /// proven exactly: a proof within the bound, then two plies shorter until one is
    /// disproven.
    ProofNumber,
}

impl std::str::FromStr for Method {
    type Err = String;

    fn from_str(s: &str) -> Result<Method, String> {
        match s {
            "depth-first" | "df" | "alpha-beta" => Ok(Method::DepthFirst),
            "proof-number" | "pn" | "dfpn" | "df-pn" => Ok(Method::ProofNumber),
            _ => Err(format!(
                "the method '{s}': depth-first or proof-number (df-pn)"
            )),
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::DepthFirst => "depth-first",
            Method::ProofNumber => "proof-number",
        })
    }
}

impl Options {
    /// The options of a proof within `max_moves` moves, with the defaults otherwise.
    pub fn new(max_moves: u32) -> Options {
        Options {
            max_moves,
            time: None,
            max_nodes: None,
            stop: Arc::new(AtomicBool::new(false)),
            hash_mb: DEFAULT_HASH_MB,
            live: Arc::new(Live::default()),
            checks_only: false,
            mate_only: false,
            method: Method::DepthFirst,
            rules: Rules::None,
            history: History::default(),
            first_moves: None,
            shortest_only: false,
        }
    }

    /// Whether the perpetual-check rule applies.
    pub fn rule(&self) -> bool {
        self.rules.judges_repetition()
    }

    /// The tables a proof may read: none for a proof by checks alone or of checkmates only
    /// (their distances allow quiet moves and count stalemates), none of the baseline's
    /// under the rule (their draws may be wins by the rule).
    fn tables<'a>(&self, tb: Option<&'a Tablebase>) -> Option<&'a Tablebase> {
        tb.filter(|t| {
            !self.checks_only && !self.mate_only && (!self.rule() || t.rules() == self.rules)
        })
    }
}

/// Counters a progress display may read while the solver runs.
#[derive(Debug, Default)]
pub struct Live {
    /// Nodes searched so far.
    pub nodes: AtomicU64,
    /// The depth (plies) of the deepest pass under way.
    pub depth: AtomicU32,
    /// First moves proven to win so far.
    pub proven: AtomicU32,
}

/// The solver's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The attacker forces a win; the shortest takes this many plies.
    /// A forced win, this many plies to mate.
    Win {
        /// Plies to mate, the winner's and the loser's.
        plies: u32,
    },
    /// Proven: no forced win within the bound.
    None,
    /// Stopped before an answer; no win within `searched` plies was proven.
    Unknown,
    /// A forced win within this many plies was proven, and none within `searched_plies`;
    /// stopped before the shortest was established (by proof-number search only).
    WinWithin {
        /// The most plies the proven win takes.
        plies: u32,
    },
}

/// A first move that keeps a forced win, with its exact length in plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WinningMove {
    /// The first move.
    pub mv: Move,
    /// Plies to mate after it, counting it.
    pub plies: u32,
    /// Under the perpetual-check rule: whether the win within this length needs the rule
    /// (`Some(true)`: without it the defender would hold, or last longer, by checking
    /// forever) or stands without it (`Some(false)`); `None` without the rule, or when the
    /// proof was stopped before this was asked.
    pub by_rule: Option<bool>,
}

/// Everything the solver found.
#[derive(Clone, Debug)]
pub struct Solution {
    /// What was proven.
    pub verdict: Verdict,
    /// The bound in plies (2 × max_moves − 1).
    pub max_plies: u32,
    /// Every first move was searched to this depth in plies: the list of winning moves is
    /// complete up to it (equal to `max_plies` unless stopped).
    pub searched_plies: u32,
    /// First moves that win, shortest first (ties in move generation order).
    pub winning_moves: Vec<WinningMove>,
    /// The principal variation: the shortest win, the defender resisting longest.
    pub pv: Vec<Move>,
    /// The side to move has no legal move at all (it has already lost).
    pub no_legal_move: bool,
    /// The proof was of wins made of checks alone ([`Options::checks_only`]).
    pub checks_only: bool,
    /// The proof was of checkmates only ([`Options::mate_only`]).
    pub mate_only: bool,
    /// How the proof was searched.
    pub method: Method,
    /// The rules the proof was made under.
    pub rules: Rules,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
}

impl Solution {
    /// How the main line ends: `checkmate` (将死), `stalemate` (困毙), or
    /// `perpetual-check` (长将作负, under `check-only`) or `perpetual-attack` (长打作负, under
    /// `asian`): the loser has legal moves and the rule forbids them all; `None` without a
    /// line, or when the line was cut short. `root` is the position solved.
    pub fn ending(&self, root: &Position) -> Option<&'static str> {
        let (Verdict::Win { plies } | Verdict::WinWithin { plies }) = self.verdict else {
            return None;
        };
        let end = self.pv.iter().fold(root.clone(), |mut p, &m| {
            p.play_unchecked(m);
            p
        });
        let lost_by_rule = || match self.verdict {
            // (an exact line ends there only so)
            Verdict::Win { .. } => self.pv.len() as u32 == plies,
            // (a line within a bound may end before it: the rule is asked directly)
            _ => {
                let history = History::new(root, &self.pv);
                let forbidden = rule::Path::forbidden_moves(self.rules, &history, &end).len();
                forbidden > 0 && forbidden == end.legal_moves().len()
            }
        };
        match end.game_end() {
            Some(crate::game::movegen::GameEnd::Checkmate { .. }) => Some("checkmate"),
            Some(crate::game::movegen::GameEnd::Stalemate { .. }) => Some("stalemate"),
            None if self.rules.judges_repetition() && !self.pv.is_empty() && lost_by_rule() => {
                Some(if self.rules == Rules::Asian {
                    "perpetual-attack"
                } else {
                    "perpetual-check"
                })
            }
            None => None,
        }
    }

    /// A proof's first moves (those that check, with [`Options::checks_only`]) and its
    /// solution before any is searched: no win yet, every move searched to the bound.
    fn start(
        pos: &Position,
        options: &Options,
        max_plies: u32,
        method: Method,
    ) -> (Vec<Move>, Solution) {
        let legal_moves = pos.legal_moves();
        let roots = legal_moves
            .iter()
            .copied()
            .filter(|&m| !options.checks_only || pos.gives_check(m))
            .filter(|m| options.first_moves.as_ref().is_none_or(|f| f.contains(m)))
            .collect();
        let solution = Solution {
            verdict: Verdict::None,
            max_plies,
            searched_plies: max_plies,
            winning_moves: Vec::new(),
            pv: Vec::new(),
            no_legal_move: legal_moves.is_empty(),
            checks_only: options.checks_only,
            mate_only: options.mate_only,
            method,
            rules: options.rules,
            nodes: 0,
            seconds: 0.0,
        };
        (roots, solution)
    }
}

/// Why the solver could not answer.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// A bound in moves out of range.
    #[error("a bound of {0} moves: between 1 and {MAX_MOVES}")]
    Bound(u32),
    #[error(transparent)]
    /// A table could not be read.
    Table(#[from] TableError),
    #[error("stopped before an answer")]
    /// Stopped (its time, its node limit, or its stop flag) before an answer.
    Stopped,
    #[error("not a legal position: {0}'s general is in check with the other side to move")]
    /// The side not to move is in check: not a position to solve.
    Illegal(crate::game::piece::Color),
}

impl crate::tablebase::HasRemedy for SolveError {
    fn remedy(&self) -> Option<crate::tablebase::Remedy> {
        match self {
            SolveError::Table(t) => t.remedy(),
            _ => None,
        }
    }
}

/// The solver searches legal positions only (the mate test relies on it): one whose side
/// not to move is in check is refused.
fn legal(pos: &Position) -> Result<(), SolveError> {
    let other = !pos.turn();
    if pos.in_check(other) {
        return Err(SolveError::Illegal(other));
    }
    Ok(())
}

/// A solver that keeps its transposition table from one proof to the next, as an engine
/// keeps its hash table between searches: for a caller that solves many positions (the
/// benchmark, an engine), it spares each proof the cost of fresh memory (the system's
/// zeroing of new pages, 6% of the time on the solver bench). Its answers are those of
/// [`solve`] and [`mate_distance`]: no proof reads what an earlier one stored (see
/// `Tt::renew`).
///
/// ```
/// use canju::Position;
/// use canju::solver::{Options, Solver, Verdict};
///
/// let mut solver = Solver::new(16);
/// // 双车错 in three plies, then a stalemate (困毙) in one, with the same table
/// for (fen, plies) in [
///     ("4k4/9/9/9/9/9/9/9/R8/R2K5 w", 3),
///     ("5k3/9/9/6N2/9/P8/9/9/9/4K4 w", 1),
/// ] {
///     let pos: Position = fen.parse().unwrap();
///     let s = solver.solve(&pos, &Options::new(2), None).unwrap();
///     assert_eq!(s.verdict, Verdict::Win { plies });
/// }
/// ```
pub struct Solver {
    tt: Tt,
    /// The proof-number search's table, set up when first needed.
    pn: Option<PnTable>,
    hash_mb: usize,
}

impl Solver {
    /// A solver with a transposition table of about `hash_mb` MB, set up now.
    pub fn new(hash_mb: usize) -> Solver {
        Solver {
            tt: Tt::full(hash_mb),
            pn: None,
            hash_mb,
        }
    }

    fn pn_table(&mut self) -> &mut PnTable {
        let mb = self.hash_mb;
        let t = self.pn.get_or_insert_with(|| PnTable::new(mb));
        t.clear();
        t
    }

    /// The shortest forced win of the side to move within `options.max_moves`, by
    /// proof-number search whatever `options.method` says, with a winning line: for a
    /// caller that wants the length and a line but not every winning first move (an audit
    /// of compositions). `none_within`: it is known that there is no win within that many
    /// plies (0 if nothing is known), so the search starts beyond it.
    pub fn shortest_win(
        &mut self,
        pos: &Position,
        options: &Options,
        none_within: u32,
        tb: Option<&Tablebase>,
    ) -> Result<LongProof, SolveError> {
        self.tt.renew();
        self.pn_table();
        let table = self.pn.as_mut().expect("set up above");
        long::shortest_win(&self.tt, table, pos, options, none_within, tb)
    }

    /// As [`Solver::mate_distance`], by proof-number search, for wins beyond the
    /// depth-first search's reach (a composition of fifteen moves): `Some(n)` when
    /// `attacker` forces mate from `pos` (either side to move) within `max_plies`, with
    /// `exact` the shortest length `n`, else `n` an upper bound on it (the longest line of
    /// the proof found, much quicker to get than the shortest); `None` when it is proven
    /// that there is none. An error when stopped (the time, the node limit, the stop flag)
    /// before that is known, or when a table is damaged.
    ///
    /// This solver's tables keep what each proof learned for the next: for a caller that
    /// asks about many positions of one composition (a puzzle's judge), whose proofs share
    /// most of their trees. Every call must ask about the same `attacker` under the same
    /// rules and stipulation (`checks_only`, `mate_only`), which what the tables hold
    /// depends on; a new solver for another.
    pub fn long_distance(
        &mut self,
        pos: &Position,
        attacker: crate::game::piece::Color,
        max_plies: u32,
        exact: bool,
        options: &Options,
        tb: Option<&Tablebase>,
    ) -> Result<Option<u32>, SolveError> {
        self.tt.renew();
        let mb = self.hash_mb;
        let table = self.pn.get_or_insert_with(|| PnTable::new(mb));
        long::distance(
            &self.tt, table, pos, attacker, max_plies, exact, options, tb,
        )
    }

    /// As [`solve`], with this solver's table (`options.hash_mb` is not read).
    pub fn solve(
        &mut self,
        pos: &Position,
        options: &Options,
        tb: Option<&Tablebase>,
    ) -> Result<Solution, SolveError> {
        self.tt.renew();
        if options.method == Method::ProofNumber {
            self.pn_table();
            let table = self.pn.as_mut().expect("set up above");
            return long::solve(&self.tt, table, pos, options, tb);
        }
        rule_then_baseline(options, |o| {
            self.tt.renew();
            solve_with(&self.tt, pos, o, tb)
        })
    }

    /// As [`mate_distance`], with this solver's table (`options.hash_mb` is not read).
    pub fn mate_distance(
        &mut self,
        pos: &Position,
        attacker: crate::game::piece::Color,
        max_plies: u32,
        options: &Options,
        tb: Option<&Tablebase>,
    ) -> Result<Option<u32>, SolveError> {
        self.tt.renew();
        mate_distance_with(&self.tt, pos, attacker, max_plies, options, tb)
    }
}

/// Solves a position for the side to move; `tb` lends the tables that are present.
pub fn solve(
    pos: &Position,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Solution, SolveError> {
    if options.method == Method::ProofNumber {
        let mut table = PnTable::new(options.hash_mb);
        return long::solve(&Tt::new(options.hash_mb), &mut table, pos, options, tb);
    }
    rule_then_baseline(options, |o| solve_with(&Tt::new(o.hash_mb), pos, o, tb))
}

/// The part of a depth-first proof's time under the rule that is kept for the baseline's.
const BASELINE_SHARE: u32 = 4;

/// A depth-first proof under the rule, with a time limit: the rule's proof in three
/// quarters of the time; when that runs out before an answer, the baseline's (no rule) in
/// the rest. The rule's transposition table is keyed by the line back over a run of checks,
/// so where every line is a run of checks (a proof by checks alone) it finds few
/// transpositions, and the baseline's proof can be a thousand times quicker. Its shortest
/// win is a win under the rule too, and the rule's shortest is no longer: the rule only
/// takes moves from the defender, and the attacker's moves along the baseline's line never
/// repeat a position (the distance falls by one each ply), so none of them is forbidden.
/// The answer is then [`Verdict::WinWithin`], with the baseline's winning first moves (each
/// wins within its length under the rule, by the same argument) and its line. A stop before
/// the rule's time is up (Ctrl-C, the node limit) ends it as before.
fn rule_then_baseline(
    options: &Options,
    mut run: impl FnMut(&Options) -> Result<Solution, SolveError>,
) -> Result<Solution, SolveError> {
    let Some(time) = options.time.filter(|_| options.rule()) else {
        return run(options);
    };
    let start = Instant::now();
    let mut first = options.clone();
    first.time = Some(time - time / BASELINE_SHARE);
    let s = run(&first)?;
    let timed_out = start.elapsed() >= time - time / BASELINE_SHARE;
    if s.verdict != Verdict::Unknown || !timed_out {
        return Ok(s);
    }
    // (the time's stop set the flag; a Ctrl-C from here on sets it again)
    options.stop.store(false, Relaxed);
    let mut baseline = options.clone();
    baseline.rules = Rules::None;
    baseline.history = History::default();
    baseline.time = Some(time.saturating_sub(start.elapsed()));
    let b = match run(&baseline) {
        Ok(b) => b,
        Err(SolveError::Stopped) => return Ok(s),
        Err(e) => return Err(e),
    };
    let Verdict::Win { plies } = b.verdict else {
        return Ok(s);
    };
    Ok(Solution {
        verdict: Verdict::WinWithin { plies },
        winning_moves: b
            .winning_moves
            .into_iter()
            .map(|w| WinningMove {
                by_rule: Some(false),
                ..w
            })
            .collect(),
        pv: b.pv,
        nodes: s.nodes + b.nodes,
        seconds: start.elapsed().as_secs_f64(),
        ..s
    })
}

fn solve_with(
    tt: &Tt,
    pos: &Position,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Solution, SolveError> {
    if options.max_moves == 0 || options.max_moves > MAX_MOVES {
        return Err(SolveError::Bound(options.max_moves));
    }
    legal(pos)?;
    if let Some(baseline) = checks_by_baseline(pos, options) {
        // (the baseline's proof is the rule's: see `checks_by_baseline`)
        let mut s = solve_with(tt, pos, &baseline, tb)?;
        s.rules = options.rules;
        if s.searched_plies == s.max_plies {
            for w in &mut s.winning_moves {
                w.by_rule = Some(false);
            }
        }
        return Ok(s);
    }
    solve_searching(tt, pos, options, tb)
}

/// [`solve_with`]'s proof by its own search (the bound and the position checked).
fn solve_searching(
    tt: &Tt,
    pos: &Position,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Solution, SolveError> {
    let start = Instant::now();
    let max_plies = 2 * options.max_moves - 1;
    let nodes = AtomicU64::new(0);
    let heuristics = Heuristics::new();
    let tb = options.tables(tb);
    let shared = Shared::new(
        tt,
        tb,
        pos,
        pos.turn(),
        options,
        (&nodes, &heuristics),
        options.time.map(|t| start + t),
    );
    let (roots, mut solution) = Solution::start(pos, options, max_plies, Method::DepthFirst);
    solution.searched_plies = 0;
    if roots.is_empty() {
        solution.searched_plies = max_plies;
        solution.seconds = start.elapsed().as_secs_f64();
        return Ok(solution);
    }
    // the first moves' searches, shallow to deep (see `Passes`)
    let mut passes = Passes::new(roots.len(), max_plies);
    passes.shortest_only = options.shortest_only;
    let workers = rayon::current_num_threads().clamp(1, roots.len());
    rayon::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|_| {
                // one searcher a thread for the whole proof
                let mut searcher = Searcher::new(&shared);
                let mut scratch = pos.clone();
                searcher.path.reset(&options.history, pos);
                while let Some((d, i)) = passes.next() {
                    options.live.depth.fetch_max(d, Relaxed);
                    // (should the search panic, the other threads must not wait for this
                    // task forever: the guard stops the proof as it unwinds)
                    let guard = Abandon(&passes);
                    let m = roots[i];
                    // (a first move the rule forbids, after the game's history, never wins)
                    let r = match searcher.enter(&mut scratch, m) {
                        Some(undo) => {
                            let r = searcher.mates_within(&mut scratch, d - 1, 1);
                            searcher.leave(&mut scratch, m, undo);
                            r
                        }
                        None => Ok(false),
                    };
                    std::mem::forget(guard);
                    searcher.flush_nodes();
                    options.live.nodes.store(nodes.load(Relaxed), Relaxed);
                    if matches!(r, Ok(true)) {
                        options.live.proven.fetch_add(1, Relaxed);
                    }
                    passes.done(d, i, r);
                }
            });
        }
    });
    let Finished {
        lengths,
        searched_plies,
        stopped,
        error,
    } = passes.finish();
    if let Some(e) = error {
        return Err(e.into());
    }
    solution.searched_plies = searched_plies;
    let mut winning: Vec<WinningMove> = roots
        .iter()
        .zip(&lengths)
        .filter_map(|(&mv, l)| {
            l.map(|plies| WinningMove {
                mv,
                plies,
                by_rule: None,
            })
        })
        .collect();
    winning.sort_by_key(|w| w.plies);
    solution.verdict = match (winning.first(), stopped) {
        (Some(w), _) => Verdict::Win { plies: w.plies },
        (None, false) => Verdict::None,
        (None, true) => Verdict::Unknown,
    };
    solution.winning_moves = winning;
    if let Verdict::Win { plies } = solution.verdict {
        // the line is searched even after a stop, briefly: the bounds it needs are known
        let pv_stop = AtomicBool::new(false);
        let pv_heuristics = Heuristics::new();
        let pv_shared = Shared {
            stop: &pv_stop,
            deadline: Some(Instant::now() + Duration::from_secs(5)),
            max_nodes: None,
            // (the line's own, so that it does not depend on the threads' order)
            heuristics: &pv_heuristics,
            ..shared
        };
        let mut searcher = Searcher::new(&pv_shared);
        searcher.path.reset(&options.history, pos);
        solution.pv = principal_variation(&mut searcher, pos, solution.winning_moves[0].mv, plies)?;
        searcher.flush_nodes();
    }
    if options.rule() && !stopped {
        let deadline = options.time.map(|t| start + t);
        mark_wins_by_rule(
            &mut solution.winning_moves,
            pos,
            options,
            tb,
            &nodes,
            deadline,
        )?;
    }
    solution.nodes = nodes.load(Relaxed);
    options.live.nodes.store(solution.nodes, Relaxed);
    solution.seconds = start.elapsed().as_secs_f64();
    Ok(solution)
}

/// The root's work list: "does first move `i` win within `d` plies?", handed out shallowest
/// first (then in move order), a move's next depth queued when a depth fails. With one
/// thread that is pass after pass over the moves; with more, a thread that finds no task of
/// the pass under way starts the next pass's instead of waiting for the others (a move's
/// depths still come in order, so each length found is that move's shortest).
struct Passes {
    state: Mutex<PassState>,
    wake: Condvar,
    max_plies: u32,
    /// No task deeper than the shortest win found is handed out ([`Options::shortest_only`]).
    shortest_only: bool,
}

struct PassState {
    queue: BinaryHeap<Reverse<(u32, usize)>>,
    /// Tasks handed out and not yet done.
    running: usize,
    lengths: Vec<Option<u32>>,
    /// The deepest depth each move was proven not to win within (0: none yet).
    failed: Vec<u32>,
    stopped: bool,
    error: Option<TableError>,
}

/// Stops the passes if dropped, which happens only when a task unwinds.
struct Abandon<'a>(&'a Passes);

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.running -= 1;
        st.stopped = true;
        drop(st);
        self.0.wake.notify_all();
    }
}

/// What the root's passes proved.
struct Finished {
    lengths: Vec<Option<u32>>,
    searched_plies: u32,
    stopped: bool,
    error: Option<TableError>,
}

impl Passes {
    fn new(moves: usize, max_plies: u32) -> Passes {
        Passes {
            state: Mutex::new(PassState {
                queue: (0..moves).map(|i| Reverse((1, i))).collect(),
                running: 0,
                lengths: vec![None; moves],
                failed: vec![0; moves],
                stopped: false,
                error: None,
            }),
            wake: Condvar::new(),
            max_plies,
            shortest_only: false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PassState> {
        // (a worker that panicked has already failed the proof; its state is still whole)
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next task, waiting while the others' running tasks may still queue one; `None`
    /// when the proof is over or stopped. (The wait is safe because a task never calls into
    /// rayon: a worker waiting here could otherwise be the one to steal, and sit above, the
    /// very job whose task it waits for.)
    fn next(&self) -> Option<(u32, usize)> {
        let mut st = self.lock();
        loop {
            if st.stopped || st.error.is_some() {
                return None;
            }
            if let Some(Reverse(task)) = st.queue.pop() {
                // (a task no shallower than a win found cannot make a shorter one)
                if self.shortest_only && st.lengths.iter().flatten().any(|&won| won <= task.0) {
                    continue;
                }
                st.running += 1;
                return Some(task);
            }
            if st.running == 0 {
                return None;
            }
            st = self.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Records a task's answer and queues the move's next depth if it failed.
    fn done(&self, d: u32, i: usize, r: Result<bool, Stop>) {
        let mut st = self.lock();
        st.running -= 1;
        match r {
            Ok(true) => st.lengths[i] = Some(d),
            Ok(false) => {
                st.failed[i] = d;
                if d + 2 <= self.max_plies {
                    st.queue.push(Reverse((d + 2, i)));
                }
            }
            Err(Stop::Interrupted) => st.stopped = true,
            Err(Stop::Table(e)) => {
                if st.error.is_none() {
                    st.error = Some(e);
                }
            }
        }
        drop(st);
        self.wake.notify_all();
    }

    /// The lengths proven, and the depth to which every first move was searched. After a
    /// stop, a win is kept only if it is at most two plies deeper than that depth, as a
    /// pass-by-pass search would have found it: then no other move can win sooner.
    fn finish(self) -> Finished {
        let st = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        let searched = st
            .lengths
            .iter()
            .zip(&st.failed)
            .filter(|(l, _)| l.is_none())
            .map(|(_, &f)| f)
            .min()
            .unwrap_or(self.max_plies);
        let lengths = if st.stopped {
            st.lengths
                .iter()
                .map(|l| l.filter(|&p| p <= searched + 2))
                .collect()
        } else {
            st.lengths
        };
        Finished {
            lengths,
            searched_plies: if st.stopped { searched } else { self.max_plies },
            stopped: st.stopped,
            error: st.error,
        }
    }
}

/// The exact number of plies in which `attacker` forces mate from `pos` (either side to
/// move), if it is at most `max_plies`; `None` when it is proven that it cannot within
/// that. An error when stopped or when a table is damaged. With
/// [`Options::checks_only`], mate by checks alone from here on.
pub fn mate_distance(
    pos: &Position,
    attacker: crate::game::piece::Color,
    max_plies: u32,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Option<u32>, SolveError> {
    let tt = Tt::new(options.hash_mb);
    mate_distance_with(&tt, pos, attacker, max_plies, options, tb)
}

fn mate_distance_with(
    tt: &Tt,
    pos: &Position,
    attacker: crate::game::piece::Color,
    max_plies: u32,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Option<u32>, SolveError> {
    legal(pos)?;
    if let Some(d) = checks_mate_distance(pos, attacker, max_plies, options)? {
        return Ok(d);
    }
    mate_distance_avoiding(tt, pos, attacker, max_plies, options, tb, Vec::new())
}

/// A proof by checks alone (连将杀) under the rule, settled by the baseline's search where
/// that gives the rule's answer (`None` where it cannot).
///
/// While the attacker checks on every move (as it must here, and did in the game's moves
/// since the last irreversible one), no move of the defender's is ever forbidden: in any
/// cycle the attacker checked throughout, so a repetition is never the defender's fault.
/// The rule then only takes moves from the attacker, and a win under it is a win without
/// it: the rule's distance is no shorter than the baseline's. And the baseline's win, with
/// the attacker kept from the game's earlier positions, is a win under the rule: a win
/// within d plies can always be played without repeating a position of its own (at a
/// repeated position play on as from its second occurrence, which is closer to the mate),
/// so no move of the attacker's completes a repetition. Where the two distances agree (or
/// the game has no earlier positions, or no win within the bound), that is the rule's
/// distance, found on plain keys, where the rule's own search keys its table by lines that
/// are all one run of checks and finds almost no transpositions.
fn checks_mate_distance(
    pos: &Position,
    attacker: crate::game::piece::Color,
    max_plies: u32,
    options: &Options,
) -> Result<Option<Option<u32>>, SolveError> {
    if !options.checks_only || !options.rule() {
        return Ok(None);
    }
    let Some(earlier) = options.history.checked_window(pos, attacker) else {
        return Ok(None);
    };
    let mut baseline = options.clone();
    baseline.rules = Rules::None;
    baseline.history = History::default();
    let tt = Tt::new(options.hash_mb);
    let Some(fewest) =
        mate_distance_avoiding(&tt, pos, attacker, max_plies, &baseline, None, Vec::new())?
    else {
        return Ok(Some(None));
    };
    if earlier.is_empty() {
        return Ok(Some(Some(fewest)));
    }
    let tt = Tt::new(options.hash_mb);
    let kept = mate_distance_avoiding(&tt, pos, attacker, fewest, &baseline, None, earlier)?;
    Ok((kept == Some(fewest)).then_some(kept))
}

/// The baseline's options for a whole proof by checks alone under the rule, where its
/// proof is the rule's: no earlier position of the game that the attacker could repeat
/// (no history, or the last move before the root irreversible). As in
/// [`checks_mate_distance`], no move of the defender's is ever forbidden while the attacker
/// checks on every move, so under the rule each first move wins in no fewer plies than
/// without it; and after each first move the baseline's win can be played without the
/// attacker repeating a position (the root, the only earlier one, has the attacker to
/// move, so only the defender can go back to it), so it wins in as few. The baseline's
/// line is a line under the rule too: along it the attacker's distance falls by one each
/// ply, so none of its moves repeats a position.
fn checks_by_baseline(pos: &Position, options: &Options) -> Option<Options> {
    if !options.checks_only || !options.rule() || options.method != Method::DepthFirst {
        return None;
    }
    if !options.history.checked_window(pos, pos.turn())?.is_empty() {
        return None;
    }
    let mut baseline = options.clone();
    baseline.rules = Rules::None;
    baseline.history = History::default();
    Some(baseline)
}

/// [`mate_distance`] on `tt`, the attacker kept from the positions of `avoid` (without
/// the rule).
fn mate_distance_avoiding(
    tt: &Tt,
    pos: &Position,
    attacker: crate::game::piece::Color,
    max_plies: u32,
    options: &Options,
    tb: Option<&Tablebase>,
    avoid: Vec<u64>,
) -> Result<Option<u32>, SolveError> {
    let nodes = AtomicU64::new(0);
    let start = Instant::now();
    let tb = options.tables(tb);
    let heuristics = Heuristics::new();
    let mut shared = Shared::new(
        tt,
        tb,
        pos,
        attacker,
        options,
        (&nodes, &heuristics),
        options.time.map(|t| start + t),
    );
    shared.avoid = avoid;
    let mut searcher = Searcher::new(&shared);
    searcher.path.reset(&options.history, pos);
    let mut p = pos.clone();
    let r = searcher.distance(&mut p, max_plies);
    searcher.flush_nodes();
    match r {
        Ok(d) => Ok(d),
        Err(Stop::Interrupted) => Err(SolveError::Stopped),
        Err(Stop::Table(e)) => Err(e.into()),
    }
}

/// Under the rule, asks of each winning first move whether its win within its length
/// stands without the rule ([`WinningMove::by_rule`]): a proof of the same length by the
/// baseline's search, on a table of its own (the rule's bounds are not the baseline's).
/// A stop leaves the rest unasked.
fn mark_wins_by_rule(
    wins: &mut [WinningMove],
    pos: &Position,
    options: &Options,
    tb: Option<&Tablebase>,
    nodes: &AtomicU64,
    deadline: Option<Instant>,
) -> Result<(), SolveError> {
    let tt = Tt::new(options.hash_mb.min(64));
    let heuristics = Heuristics::new();
    // (the baseline's mates are the asian tables' mates, with the same distances)
    let shared = Shared {
        rule: false,
        rules: Rules::None,
        ..Shared::new(
            &tt,
            tb,
            pos,
            pos.turn(),
            options,
            (nodes, &heuristics),
            deadline,
        )
    };
    let mut searcher = Searcher::new(&shared);
    let mut p = pos.clone();
    for w in wins.iter_mut() {
        let undo = p.play_unchecked(w.mv);
        let r = searcher.mates_within(&mut p, w.plies - 1, 1);
        p.undo(w.mv, undo);
        match r {
            Ok(without) => w.by_rule = Some(!without),
            Err(Stop::Interrupted) => break,
            Err(Stop::Table(e)) => return Err(e.into()),
        }
    }
    searcher.flush_nodes();
    Ok(())
}

/// The line from a winning first move: the defender takes the reply that resists longest
/// (the first such in move generation order), the attacker the quickest mate (likewise).
/// Under the rule the line is played on the searcher's path, so that a move the rule
/// forbids is never taken: where the defender's checks would repeat, it deviates, and where
/// every move it has is forbidden the line ends (it has lost by the rule). Ends early,
/// without error, if the search is stopped.
fn principal_variation(
    searcher: &mut Searcher,
    root: &Position,
    first: Move,
    plies: u32,
) -> Result<Vec<Move>, SolveError> {
    let mut pos = root.clone();
    let mut line = vec![first];
    let Some(_) = searcher.enter(&mut pos, first) else {
        return Ok(line);
    };
    let mut left = plies - 1;
    let step = |r: Result<Option<u32>, Stop>| -> Result<Option<Option<u32>>, SolveError> {
        match r {
            Ok(x) => Ok(Some(x)),
            Err(Stop::Interrupted) => Ok(None),
            Err(Stop::Table(e)) => Err(e.into()),
        }
    };
    while left > 0 {
        // the defender: the longest resistance
        let mut best: Option<(Move, u32)> = None;
        for &m in pos.legal_moves().iter() {
            let Some(undo) = searcher.enter(&mut pos, m) else {
                continue;
            };
            let r = searcher.distance(&mut pos, left - 1);
            searcher.leave(&mut pos, m, undo);
            let Some(dist) = step(r)? else {
                return Ok(line);
            };
            let dist = dist.unwrap_or(left - 1);
            if best.is_none_or(|(_, b)| dist > b) {
                best = Some((m, dist));
            }
        }
        let Some((reply, dist)) = best else {
            break; // mated, or left with moves the rule forbids
        };
        searcher.enter(&mut pos, reply);
        line.push(reply);
        left = dist;
        if left == 0 {
            break;
        }
        // the attacker: the quickest mate
        let mut chosen = None;
        for &m in pos.legal_moves().iter() {
            if searcher.checks_only() && !pos.gives_check(m) {
                continue;
            }
            let Some(undo) = searcher.enter(&mut pos, m) else {
                continue;
            };
            let r = searcher.distance(&mut pos, left - 1);
            searcher.leave(&mut pos, m, undo);
            match step(r)? {
                None => return Ok(line),
                Some(Some(n)) if n + 1 == left => {
                    chosen = Some(m);
                    break;
                }
                Some(_) => {}
            }
        }
        let Some(m) = chosen else {
            return Ok(line);
        };
        searcher.enter(&mut pos, m);
        line.push(m);
        left -= 1;
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 连将杀 under the rule: the distance the baseline's search settles on plain keys is the
    /// rule's own search's, on the compositions of the bench that mate by checks within
    /// 13 plies, from the composition and after a check and an answer of the game's (a
    /// history whose earlier positions the attacker must keep away from).
    #[test]
    fn checks_under_the_rule_settled_by_the_baseline_are_the_rules_own() {
        let text = include_str!("../../benches/data/shiqingyaqu.txt");
        let (mut compared, mut settled) = (0, 0);
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let cols: Vec<&str> = line.split(';').map(str::trim).collect();
            let Ok(plies) = cols[2].parse::<u32>() else {
                continue;
            };
            if plies > 13 {
                continue;
            }
            let start: Position = cols[0].parse().unwrap();
            let attacker = start.turn();
            let mut options = Options::new(5);
            options.checks_only = true;
            options.rules = Rules::Asian;
            options.hash_mb = 16;
            // (after the first check and the first answer, and after the last check and
            // the last answer: a history of two moves)
            let mut cases = vec![(start.clone(), History::default(), plies)];
            for pick in [0, usize::MAX] {
                let checks: Vec<Move> = start
                    .legal_moves()
                    .iter()
                    .copied()
                    .filter(|&m| start.gives_check(m))
                    .collect();
                let Some(&m) = checks.get(pick.min(checks.len().saturating_sub(1))) else {
                    continue;
                };
                let mut after = start.clone();
                after.play_unchecked(m);
                let answers = after.legal_moves();
                let Some(&r) = answers.get(pick.min(answers.len().saturating_sub(1))) else {
                    continue;
                };
                let mut root = after.clone();
                root.play_unchecked(r);
                cases.push((root, History::new(&start, &[m, r]), plies + 2));
            }
            for (root, history, bound) in cases {
                let mut o = options.clone();
                o.history = history;
                let quick = checks_mate_distance(&root, attacker, bound, &o).unwrap();
                let full = mate_distance_avoiding(
                    &Tt::new(16),
                    &root,
                    attacker,
                    bound,
                    &o,
                    None,
                    Vec::new(),
                )
                .unwrap();
                if let Some(quick) = quick {
                    assert_eq!(quick, full, "{root} after {:?}", o.history);
                    settled += 1;
                }
                compared += 1;
                // the whole proof from the composition: the same winning moves, lengths and
                // marks by the baseline as by the rule's own search
                if o.history.is_empty() {
                    o.max_moves = bound.div_ceil(2);
                    let quick = solve_with(&Tt::new(16), &root, &o, None).unwrap();
                    let full = solve_searching(&Tt::new(16), &root, &o, None).unwrap();
                    let moves = |s: &Solution| -> Vec<(Move, u32, Option<bool>)> {
                        s.winning_moves
                            .iter()
                            .map(|w| (w.mv, w.plies, w.by_rule))
                            .collect()
                    };
                    assert_eq!(quick.verdict, full.verdict, "{root}");
                    assert_eq!(moves(&quick), moves(&full), "{root}");
                    assert_eq!(quick.rules, Rules::Asian);
                    // (which is cheaper is no longer asked: since a "no mate" that nothing
                    // above decided is shared by every line, the rule's own search takes
                    // about the baseline's nodes here, 8.6 thousand each on the composition
                    // that made the old comparison a coin toss with two threads)
                }
            }
        }
        assert!(
            compared >= 150 && settled * 10 >= compared * 9,
            "{settled} of {compared}"
        );
    }

    /// Tasks come shallowest first, a move's next depth only after its last one failed;
    /// a stop keeps only the wins a pass-by-pass search would have kept.
    #[test]
    fn passes_hand_out_depths_in_order_and_a_stop_keeps_exact_wins() {
        let passes = Passes::new(3, 9);
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(passes.next().unwrap());
        }
        assert_eq!(got, [(1, 0), (1, 1), (1, 2)]);
        // move 1 wins at 1; moves 0 and 2 fail, then move 0 goes on alone for a while
        passes.done(1, 1, Ok(true));
        passes.done(1, 0, Ok(false));
        passes.done(1, 2, Ok(false));
        assert_eq!(passes.next(), Some((3, 0)));
        assert_eq!(passes.next(), Some((3, 2)));
        passes.done(3, 0, Ok(false));
        assert_eq!(passes.next(), Some((5, 0)));
        passes.done(5, 0, Ok(true));
        // move 2 was searched to 1 only when the stop came
        passes.done(3, 2, Err(Stop::Interrupted));
        assert_eq!(passes.next(), None);
        let f = passes.finish();
        assert!(f.stopped);
        assert_eq!(f.searched_plies, 1);
        // the win in 5 is dropped: move 2 might still win in 3
        assert_eq!(f.lengths, [None, Some(1), None]);

        // without a stop every move runs to its win or to the bound
        let passes = Passes::new(2, 3);
        while let Some((d, i)) = passes.next() {
            passes.done(d, i, Ok(i == 1 && d == 3));
        }
        let f = passes.finish();
        assert!(!f.stopped);
        assert_eq!(f.searched_plies, 3);
        assert_eq!(f.lengths, [None, Some(3)]);
    }

    /// Asked for the shortest win only, the passes hand out no task as deep as a win found,
    /// and a proof of the bench's positions (up to 5 plies) finds the same verdict, length
    /// and line as the whole proof, with winning moves that the whole proof lists with the
    /// same lengths.
    #[test]
    fn the_shortest_only_stops_at_the_first_win_of_the_shallowest_pass() {
        let mut passes = Passes::new(3, 9);
        passes.shortest_only = true;
        let mut got = Vec::new();
        while let Some((d, i)) = passes.next() {
            got.push((d, i));
            passes.done(d, i, Ok(i == 1 && d == 3 || i == 2 && d == 5));
        }
        // (move 2's depth 3 is not handed out once move 1 has won at 3)
        assert_eq!(got, [(1, 0), (1, 1), (1, 2), (3, 0), (3, 1)]);
        assert_eq!(passes.finish().lengths, [None, Some(3), None]);

        let data = include_str!("../../benches/data/solve.txt");
        for line in data
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let parts: Vec<&str> = line.split(';').map(str::trim).collect();
            let plies: u32 = parts[1].parse().unwrap();
            if plies > 5 {
                continue;
            }
            let pos: Position = parts[0].parse().unwrap();
            for rules in [Rules::None, Rules::Asian] {
                let mut o = Options::new(plies.div_ceil(2) + 1);
                o.rules = rules;
                let whole = solve(&pos, &o, None).unwrap();
                o.shortest_only = true;
                let short = solve(&pos, &o, None).unwrap();
                assert_eq!(short.verdict, whole.verdict, "{line}");
                assert_eq!(short.pv, whole.pv, "{line}");
                assert!(!short.winning_moves.is_empty());
                // (each move listed with its exact length; with two threads a move's deeper
                // task may have been under way when the shortest win was found)
                assert_eq!(short.winning_moves[0].plies, whole.winning_moves[0].plies);
                for w in &short.winning_moves {
                    assert!(
                        whole
                            .winning_moves
                            .iter()
                            .any(|x| x.mv == w.mv && x.plies == w.plies)
                    );
                }
            }
        }
    }

    /// A task that unwinds stops the proof, so that no other thread waits for it.
    #[test]
    fn an_abandoned_task_stops_the_passes() {
        let passes = Passes::new(2, 5);
        let first = passes.next().unwrap();
        let second = passes.next().unwrap();
        assert_eq!((first, second), ((1, 0), (1, 1)));
        passes.done(1, 1, Ok(false));
        drop(Abandon(&passes));
        assert_eq!(passes.next(), None);
        let f = passes.finish();
        assert!(f.stopped);
        assert_eq!(f.searched_plies, 0);
    }

    #[test]
    fn an_illegal_position_is_refused() {
        use crate::game::piece::{Color, Kind, Piece};
        use crate::game::square::Square;
        // black to move, and red's general stands in the black chariot's line (a FEN is
        // refused for that; a placement put together by hand is not)
        let mut pos = Position::scratch();
        let sq = |s: &str| s.parse::<Square>().unwrap();
        pos.set_placement(
            &[
                Piece::new(Color::Red, Kind::General),
                Piece::new(Color::Black, Kind::General),
                Piece::new(Color::Black, Kind::Chariot),
            ],
            &[sq("e0"), sq("d9"), sq("e5")],
            Color::Black,
        );
        let e = solve(&pos, &Options::new(2), None).unwrap_err();
        assert!(matches!(e, SolveError::Illegal(Color::Red)), "{e}");
        assert!(e.to_string().contains("not a legal position"), "{e}");
        assert!(mate_distance(&pos, Color::Black, 3, &Options::new(2), None).is_err());
        // the same men with red to move: legal, and red's general simply steps aside
        pos.pass_turn();
        assert!(solve(&pos, &Options::new(2), None).is_ok());
    }
}
