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

mod search;
pub mod tt;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::moves::Move;
use crate::position::Position;
use crate::tablebase::{TableError, Tablebase};
use search::{Searcher, Shared, Stop};
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
    /// Transposition table size in MB.
    pub hash_mb: usize,
    /// Live counters for a progress display.
    pub live: Arc<Live>,
}

impl Options {
    pub fn new(max_moves: u32) -> Options {
        Options {
            max_moves,
            time: None,
            max_nodes: None,
            stop: Arc::new(AtomicBool::new(false)),
            hash_mb: DEFAULT_HASH_MB,
            live: Arc::new(Live::default()),
        }
    }
}

/// Counters a progress display may read while the solver runs.
#[derive(Debug, Default)]
pub struct Live {
    /// Nodes searched so far.
    pub nodes: AtomicU64,
    /// The depth (plies) of the pass under way.
    pub depth: AtomicU32,
    /// First moves proven to win so far.
    pub proven: AtomicU32,
}

/// The solver's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The attacker forces a win; the shortest takes this many plies.
    Win { plies: u32 },
    /// Proven: no forced win within the bound.
    None,
    /// Stopped before an answer; no win within `searched` plies was proven.
    Unknown,
}

/// A first move that keeps a forced win, with its exact length in plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WinningMove {
    pub mv: Move,
    pub plies: u32,
}

/// Everything the solver found.
#[derive(Clone, Debug)]
pub struct Solution {
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
    pub nodes: u64,
    pub seconds: f64,
}

/// Why the solver could not answer.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error("--max-moves {0}: between 1 and {MAX_MOVES}")]
    Bound(u32),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("stopped before an answer")]
    Stopped,
}

/// Solves a position for the side to move; `tb` lends the tables that are present.
pub fn solve(
    pos: &Position,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Solution, SolveError> {
    if options.max_moves == 0 || options.max_moves > MAX_MOVES {
        return Err(SolveError::Bound(options.max_moves));
    }
    let start = Instant::now();
    let max_plies = 2 * options.max_moves - 1;
    let tt = Tt::new(options.hash_mb);
    let nodes = AtomicU64::new(0);
    let shared = Shared {
        tt: &tt,
        tb,
        table_pieces: tb.map_or(0, Tablebase::most_pieces_present),
        attacker: pos.turn(),
        stop: &options.stop,
        deadline: options.time.map(|t| start + t),
        max_nodes: options.max_nodes,
        nodes: &nodes,
    };
    let roots: Vec<Move> = pos.legal_moves().to_vec();
    let mut solution = Solution {
        verdict: Verdict::None,
        max_plies,
        searched_plies: 0,
        winning_moves: Vec::new(),
        pv: Vec::new(),
        no_legal_move: roots.is_empty(),
        nodes: 0,
        seconds: 0.0,
    };
    if roots.is_empty() {
        solution.searched_plies = max_plies;
        solution.seconds = start.elapsed().as_secs_f64();
        return Ok(solution);
    }
    // the exact length of each first move, once proven
    let mut lengths: Vec<Option<u32>> = vec![None; roots.len()];
    let mut stopped = false;
    let mut d = 1;
    while d <= max_plies {
        options.live.depth.store(d, Relaxed);
        let pending: Vec<usize> = (0..roots.len()).filter(|&i| lengths[i].is_none()).collect();
        let results: Vec<(usize, Result<bool, Stop>)> = pending
            .par_iter()
            .map_init(
                || (Searcher::new(&shared), pos.clone()),
                |(searcher, scratch), &i| {
                    let m = roots[i];
                    let undo = scratch.play_unchecked(m);
                    let r = searcher.mates_within(scratch, d - 1, 1);
                    scratch.undo(m, undo);
                    searcher.flush_nodes();
                    options.live.nodes.store(nodes.load(Relaxed), Relaxed);
                    (i, r)
                },
            )
            .collect();
        for (i, r) in results {
            match r {
                Ok(true) => {
                    lengths[i] = Some(d);
                    options.live.proven.fetch_add(1, Relaxed);
                }
                Ok(false) => {}
                Err(Stop::Interrupted) => stopped = true,
                Err(Stop::Table(e)) => return Err(e.into()),
            }
        }
        if stopped {
            break;
        }
        solution.searched_plies = d;
        d += 2;
    }
    let mut winning: Vec<WinningMove> = roots
        .iter()
        .zip(&lengths)
        .filter_map(|(&mv, l)| l.map(|plies| WinningMove { mv, plies }))
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
        let pv_shared = Shared {
            stop: &pv_stop,
            deadline: Some(Instant::now() + Duration::from_secs(5)),
            max_nodes: None,
            ..shared
        };
        let mut searcher = Searcher::new(&pv_shared);
        solution.pv = principal_variation(&mut searcher, pos, solution.winning_moves[0].mv, plies)?;
        searcher.flush_nodes();
    }
    solution.nodes = nodes.load(Relaxed);
    options.live.nodes.store(solution.nodes, Relaxed);
    solution.seconds = start.elapsed().as_secs_f64();
    Ok(solution)
}

/// The exact number of plies in which `attacker` forces mate from `pos` (either side to
/// move), if it is at most `max_plies`; `None` when it is proven that it cannot within
/// that. An error when stopped or when a table is damaged.
pub fn mate_distance(
    pos: &Position,
    attacker: crate::piece::Color,
    max_plies: u32,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Option<u32>, SolveError> {
    let tt = Tt::new(options.hash_mb);
    let nodes = AtomicU64::new(0);
    let start = Instant::now();
    let shared = Shared {
        tt: &tt,
        tb,
        table_pieces: tb.map_or(0, Tablebase::most_pieces_present),
        attacker,
        stop: &options.stop,
        deadline: options.time.map(|t| start + t),
        max_nodes: options.max_nodes,
        nodes: &nodes,
    };
    let mut searcher = Searcher::new(&shared);
    let mut p = pos.clone();
    let r = searcher.distance(&mut p, max_plies);
    searcher.flush_nodes();
    match r {
        Ok(d) => Ok(d),
        Err(Stop::Interrupted) => Err(SolveError::Stopped),
        Err(Stop::Table(e)) => Err(e.into()),
    }
}

/// The line from a winning first move: the defender takes the reply that resists longest
/// (the first such in move generation order), the attacker the quickest mate (likewise).
/// Ends early, without error, if the search is stopped.
fn principal_variation(
    searcher: &mut Searcher,
    root: &Position,
    first: Move,
    plies: u32,
) -> Result<Vec<Move>, SolveError> {
    let mut pos = root.clone();
    let mut line = vec![first];
    pos.play_unchecked(first);
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
            let mut child = pos.clone();
            child.play_unchecked(m);
            let Some(dist) = step(searcher.distance(&mut child, left - 1))? else {
                return Ok(line);
            };
            let dist = dist.unwrap_or(left - 1);
            if best.is_none_or(|(_, b)| dist > b) {
                best = Some((m, dist));
            }
        }
        let Some((reply, dist)) = best else {
            break; // mated
        };
        pos.play_unchecked(reply);
        line.push(reply);
        left = dist;
        if left == 0 {
            break;
        }
        // the attacker: the quickest mate
        let mut chosen = None;
        for &m in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            match step(searcher.distance(&mut child, left - 1))? {
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
        pos.play_unchecked(m);
        line.push(m);
        left -= 1;
    }
    Ok(line)
}
