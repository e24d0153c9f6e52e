//! The long proofs: [`super::solve`] and the shortest win by proof-number search
//! ([`super::pns`]), with the same answers as the depth-first passes wherever both finish.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use super::pns::{PnTable, ProofNumbers, Shortest};
use super::search::{Heuristics, Searcher, Shared, Stop};
use super::tt::Tt;
use super::{Options, Solution, SolveError, Verdict, WinningMove, legal};
use crate::game::moves::Move;
use crate::game::piece::Color;
use crate::game::position::Position;
use crate::tablebase::Tablebase;

/// The length of the shortest forced win a proof-number search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// Exactly this many plies: a win this long was proven, and none shorter.
    Exact(u32),
    /// Proven: no forced win within the bound.
    None,
    /// A forced win within `plies` was proven, and none within `none_within`; stopped
    /// before the shortest was established.
    AtMost {
        /// The proven win takes at most this many plies.
        plies: u32,
        /// No win within this many plies.
        none_within: u32,
    },
    /// Stopped before a win within the bound was proven or disproven; it was proven that
    /// there is none within this many plies (0: nothing was proven).
    Unknown(u32),
}

/// What [`super::Solver::shortest_win`] proved.
#[derive(Clone, Debug)]
pub struct LongProof {
    /// The length of the shortest forced win.
    pub length: Length,
    /// A winning line, both sides' moves: the defender resists longest and the attacker
    /// mates quickest (the first such move in move generation order, as
    /// [`super::Solution::pv`]). Cut short if the line's own time runs out. For
    /// [`Length::AtMost`], a line within that many plies: each attacker's move the one with
    /// the shortest win proven, each defender's the one with the longest.
    pub line: Vec<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
}

/// What a proof's searchers share that does not depend on its stop: the counters and the
/// ordering memory.
struct Frame {
    nodes: AtomicU64,
    heuristics: Heuristics,
    start: Instant,
}

impl Frame {
    fn new() -> Frame {
        Frame {
            nodes: AtomicU64::new(0),
            heuristics: Heuristics::new(),
            start: Instant::now(),
        }
    }

    fn shared<'a>(
        &'a self,
        tt: &'a Tt,
        pos: &Position,
        options: &'a Options,
        tb: Option<&'a Tablebase>,
    ) -> Shared<'a> {
        self.shared_for(tt, pos, pos.turn(), options, tb)
    }

    /// As [`Frame::shared`], with `attacker` the side that mates (either side to move).
    fn shared_for<'a>(
        &'a self,
        tt: &'a Tt,
        pos: &Position,
        attacker: Color,
        options: &'a Options,
        tb: Option<&'a Tablebase>,
    ) -> Shared<'a> {
        Shared::new(
            tt,
            options.tables(tb),
            pos,
            attacker,
            options,
            (&self.nodes, &self.heuristics),
            options.time.map(|t| self.start + t),
        )
    }
}

fn stop_error(e: Stop) -> SolveError {
    match e {
        Stop::Interrupted => SolveError::Stopped,
        Stop::Table(t) => t.into(),
    }
}

/// The bound in plies of `options`, checked.
fn max_plies(options: &Options) -> Result<u32, SolveError> {
    if options.max_moves == 0 || options.max_moves > super::MAX_MOVES {
        return Err(SolveError::Bound(options.max_moves));
    }
    Ok(2 * options.max_moves - 1)
}

/// The shortest forced win of the side to move within `options.max_moves`, by proof-number
/// search, with its line; `none_within`: it is known that there is no win within that many
/// plies.
pub(super) fn shortest_win(
    tt: &Tt,
    table: &mut PnTable,
    pos: &Position,
    options: &Options,
    none_within: u32,
    tb: Option<&Tablebase>,
) -> Result<LongProof, SolveError> {
    let bound = max_plies(options)?;
    legal(pos)?;
    let frame = Frame::new();
    let shared = frame.shared(tt, pos, options, tb);
    let mut searcher = Searcher::new(&shared);
    searcher.path.reset(&options.history, pos);
    let mut pns =
        ProofNumbers::new(&mut searcher, table, pos.turn(), options).with_live(&options.live);
    let mut root = pos.clone();
    let length = match pns.shortest(&mut root, none_within + 1, bound) {
        Ok(Shortest::Exact(n)) => Length::Exact(n),
        Ok(Shortest::None) => Length::None,
        Ok(Shortest::Stopped(n)) => Length::Unknown(n.max(none_within)),
        Ok(Shortest::AtMost {
            plies,
            none_within: n,
        }) => Length::AtMost {
            plies,
            none_within: n.max(none_within),
        },
        Err(e) => return Err(stop_error(e)),
    };
    pns.searcher().flush_nodes();
    drop(pns);
    drop(searcher);
    let line = match length {
        Length::Exact(n) => line(&frame, tt, table, pos, options, tb, n, true)?,
        Length::AtMost { plies, .. } => line(&frame, tt, table, pos, options, tb, plies, false)?,
        _ => Vec::new(),
    };
    let nodes = frame.nodes.load(Relaxed);
    options.live.nodes.store(nodes, Relaxed);
    Ok(LongProof {
        length,
        line,
        nodes,
        seconds: frame.start.elapsed().as_secs_f64(),
    })
}

/// How soon `attacker` forces mate from `pos` (either side to move) within `max_plies`, by
/// proof-number search: `Some(n)` when a win is proven (`exact`: `n` is the shortest
/// length, a win shorter than it being disproven; else `n` is the longest line of the
/// proof found, an upper bound on the shortest), `None` when it is proven that there is
/// none within `max_plies`. Stopped (by the time, the node limit or the stop flag) before
/// that is known, an error ([`SolveError::Stopped`]), never a verdict.
#[allow(clippy::too_many_arguments)]
pub(super) fn distance(
    tt: &Tt,
    table: &mut PnTable,
    pos: &Position,
    attacker: Color,
    max_plies: u32,
    exact: bool,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Option<u32>, SolveError> {
    legal(pos)?;
    let frame = Frame::new();
    let shared = frame.shared_for(tt, pos, attacker, options, tb);
    let mut searcher = Searcher::new(&shared);
    searcher.path.reset(&options.history, pos);
    let mut pns = ProofNumbers::new(&mut searcher, table, attacker, options);
    let mut root = pos.clone();
    let r = if exact {
        match pns.shortest(&mut root, 1, max_plies) {
            Ok(Shortest::Exact(n)) => Ok(Some(n)),
            Ok(Shortest::None) => Ok(None),
            Ok(Shortest::AtMost { .. } | Shortest::Stopped(_)) => Err(SolveError::Stopped),
            Err(e) => Err(stop_error(e)),
        }
    } else {
        match pns.solve(&mut root, max_plies) {
            Ok(v) if v.is_proven() => Ok(Some(u32::from(v.mate))),
            Ok(_) => Ok(None),
            Err(e) => Err(stop_error(e)),
        }
    };
    pns.searcher().flush_nodes();
    r
}

/// The time a proof's line gets after the proof: half the proof's own time, at least five
/// seconds (a line whose exact defence needs a disproof per reply may take longer than
/// five; a proof given minutes, as an import's, is worth a line of as long).
fn line_time(proof: Option<Duration>) -> Duration {
    let least = Duration::from_secs(5);
    proof.map_or(least, |t| (t / 2).max(least))
}

/// A winning line of `plies` from `pos` (`exact`: the shortest win's length; else a length
/// a win within was proven) (see [`LongProof::line`]), searched with a time of its own:
/// [`line_time`] (the bounds it needs are mostly known).
#[allow(clippy::too_many_arguments)]
fn line(
    frame: &Frame,
    tt: &Tt,
    table: &mut PnTable,
    pos: &Position,
    options: &Options,
    tb: Option<&Tablebase>,
    plies: u32,
    exact: bool,
) -> Result<Vec<Move>, SolveError> {
    let stop = AtomicBool::new(false);
    let mut shared = frame.shared(tt, pos, options, tb);
    shared.stop = &stop;
    shared.deadline = Some(Instant::now() + line_time(options.time));
    shared.max_nodes = None;
    let mut searcher = Searcher::new(&shared);
    searcher.path.reset(&options.history, pos);
    let mut pns = ProofNumbers::new(&mut searcher, table, pos.turn(), options);
    let mut line = Vec::new();
    let mut at = pos.clone();
    let mut left = plies;
    // (a stop ends the line where it is)
    let solved = |pns: &mut ProofNumbers, p: &mut Position, bound: u32| match pns.solve(p, bound) {
        Ok(v) => Ok(Some(v)),
        Err(Stop::Interrupted) => Ok(None),
        Err(e) => Err(stop_error(e)),
    };
    while left > 0 {
        let attacker = at.turn() == pos.turn();
        let mut chosen: Option<(Move, u32)> = None;
        if !exact {
            match line_step(&mut pns, &at, attacker, left, options.checks_only)? {
                Step::Stopped => return Ok(line),
                Step::End => break,
                Step::Move(m, next) => {
                    pns.searcher().enter(&mut at, m);
                    line.push(m);
                    left = next;
                    continue;
                }
            }
        }
        for &m in at.legal_moves().iter() {
            if attacker && options.checks_only && !at.gives_check(m) {
                continue;
            }
            // (a move the rule forbids is never taken)
            let mut child = at.clone();
            if pns.searcher().enter(&mut child, m).is_none() {
                continue;
            }
            let found = if attacker {
                // the quickest: the first move that mates within one ply less
                solved(&mut pns, &mut child, left - 1)?.map(|v| v.is_proven())
            } else if left < 3 {
                Some(true)
            } else {
                // the longest resistance: the first reply after which no mate is shorter
                // than one ply less
                solved(&mut pns, &mut child, left - 3)?.map(|v| v.is_disproven())
            };
            pns.searcher().path.pop();
            match found {
                None => return Ok(line),
                Some(true) => {
                    chosen = Some((m, left - 1));
                    break;
                }
                Some(false) => {}
            }
        }
        let Some((m, next)) = chosen else {
            break;
        };
        pns.searcher().enter(&mut at, m);
        line.push(m);
        left = next;
    }
    pns.searcher().flush_nodes();
    Ok(line)
}

/// The next move of a line within `left` plies (none proven shorter): see
/// [`LongProof::line`].
enum Step {
    Move(Move, u32),
    /// The line is over (the defender has no move left it may play).
    End,
    /// The line's time ran out.
    Stopped,
}

fn line_step(
    pns: &mut ProofNumbers,
    at: &Position,
    attacker: bool,
    left: u32,
    checks_only: bool,
) -> Result<Step, SolveError> {
    let mut chosen: Option<(Move, u32)> = None;
    let moves: Vec<Move> = at
        .legal_moves()
        .iter()
        .copied()
        .filter(|&m| !(attacker && checks_only && !at.gives_check(m)))
        .collect();
    if attacker {
        // the attacker's moves the table holds proven (the proof's own, as a rule): the
        // quickest of them; a move not known is searched only if none is
        for &m in &moves {
            let mut child = at.clone();
            if pns.searcher().enter(&mut child, m).is_none() {
                continue;
            }
            let v = pns.known(&child, left - 1);
            pns.searcher().path.pop();
            if let Some(v) = v.filter(|v| v.is_proven())
                && chosen.is_none_or(|(_, c)| u32::from(v.mate) < c)
            {
                chosen = Some((m, u32::from(v.mate)));
            }
        }
        if let Some((m, n)) = chosen {
            return Ok(Step::Move(m, n));
        }
    }
    for &m in &moves {
        let mut child = at.clone();
        if pns.searcher().enter(&mut child, m).is_none() {
            continue;
        }
        let r = pns.solve(&mut child, left - 1);
        pns.searcher().path.pop();
        let v = match r {
            Ok(v) => v,
            Err(Stop::Interrupted) => return Ok(Step::Stopped),
            Err(e) => return Err(stop_error(e)),
        };
        if !v.is_proven() {
            // (every reply to a move that wins is proven: a defender's move never is not)
            continue;
        }
        let n = u32::from(v.mate);
        let better = match chosen {
            None => true,
            Some((_, c)) if attacker => n < c,
            Some((_, c)) => n > c,
        };
        if better {
            chosen = Some((m, n));
            if attacker {
                break;
            }
        }
    }
    Ok(match chosen {
        Some((m, n)) => Step::Move(m, n),
        None => Step::End,
    })
}

/// [`super::solve`] by proof-number search: every first move's exact length within the
/// bound, shortest first, and the line of the first.
pub(super) fn solve(
    tt: &Tt,
    table: &mut PnTable,
    pos: &Position,
    options: &Options,
    tb: Option<&Tablebase>,
) -> Result<Solution, SolveError> {
    let max_plies = max_plies(options)?;
    legal(pos)?;
    let frame = Frame::new();
    let shared = frame.shared(tt, pos, options, tb);
    let (roots, mut solution) =
        Solution::start(pos, options, max_plies, super::Method::ProofNumber);
    let mut searcher = Searcher::new(&shared);
    searcher.path.reset(&options.history, pos);
    let mut pns =
        ProofNumbers::new(&mut searcher, table, pos.turn(), options).with_live(&options.live);
    // the root first: its shortest win is the verdict, and what its proof learns serves
    // the moves'
    let mut root = pos.clone();
    let shortest = match pns.shortest(&mut root, 1, max_plies) {
        Ok(Shortest::Stopped(_)) => None,
        Ok(s) => Some(s),
        Err(e) => return Err(stop_error(e)),
    };
    // then each move's exact length (none wins if the root does not; each win found is
    // exact, whatever stops the search later)
    let mut stopped = !matches!(shortest, Some(Shortest::Exact(_) | Shortest::None));
    let mut wins = Vec::new();
    if let Some(Shortest::Exact(least)) = shortest {
        for &mv in &roots {
            let mut child = pos.clone();
            // (a first move the rule forbids never wins)
            if pns.searcher().enter(&mut child, mv).is_none() {
                continue;
            }
            // (no move wins sooner than the root's shortest)
            let r = pns.shortest(&mut child, least - 1, max_plies - 1);
            pns.searcher().path.pop();
            match r {
                Ok(Shortest::Exact(n)) => {
                    options.live.proven.fetch_add(1, Relaxed);
                    wins.push(WinningMove {
                        mv,
                        plies: n + 1,
                        by_rule: None,
                    });
                }
                Ok(Shortest::None) => {}
                Ok(Shortest::Stopped(_) | Shortest::AtMost { .. }) => {
                    stopped = true;
                    break;
                }
                Err(e) => return Err(stop_error(e)),
            }
            pns.searcher().flush_nodes();
            options.live.nodes.store(frame.nodes.load(Relaxed), Relaxed);
        }
    }
    pns.searcher().flush_nodes();
    drop(pns);
    drop(searcher);
    wins.sort_by_key(|w| w.plies);
    // (after a stop the list may miss moves not yet searched; none of them wins sooner
    // than the root's shortest)
    solution.searched_plies = match (shortest, stopped) {
        (_, false) => max_plies,
        (Some(Shortest::Exact(n)), true) => n.saturating_sub(2),
        (Some(Shortest::AtMost { none_within, .. }), true) => none_within,
        _ => 0,
    };
    solution.verdict = match shortest {
        Some(Shortest::Exact(plies)) => Verdict::Win { plies },
        Some(Shortest::None) => Verdict::None,
        Some(Shortest::AtMost { plies, .. }) => Verdict::WinWithin { plies },
        _ => Verdict::Unknown,
    };
    solution.winning_moves = wins;
    match solution.verdict {
        Verdict::Win { plies } => {
            solution.pv = line(&frame, tt, table, pos, options, tb, plies, true)?;
        }
        Verdict::WinWithin { plies } => {
            solution.pv = line(&frame, tt, table, pos, options, tb, plies, false)?;
        }
        _ => {}
    }
    if options.rule() && !stopped {
        let deadline = options.time.map(|t| frame.start + t);
        super::mark_wins_by_rule(
            &mut solution.winning_moves,
            pos,
            options,
            options.tables(tb),
            &frame.nodes,
            deadline,
        )?;
    }
    solution.nodes = frame.nodes.load(Relaxed);
    options.live.nodes.store(solution.nodes, Relaxed);
    solution.seconds = frame.start.elapsed().as_secs_f64();
    Ok(solution)
}
