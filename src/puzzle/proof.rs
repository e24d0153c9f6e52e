//! The proof behind a composition's stated win: the shortest forced win within a bound,
//! by any moves or by checks alone, with its line. `puzzle audit` and `puzzle import` both
//! prove with it.

use std::time::Duration;

use crate::game::moves::Move;
use crate::game::piece::Color;
use crate::game::position::Position;
use crate::solver::{Length, Options, SolveError, Solver};
use crate::tablebase::{Rules, Tablebase};

/// A proof's options: the bound, the time, and the rules of the tables it reads (the
/// perpetual-check rule with asian tables, as the command line gives them by default).
fn proof_options(max_moves: u32, seconds: f64, tb: Option<&Tablebase>) -> Options {
    let mut options = Options::new(max_moves);
    options.time = Some(Duration::from_secs_f64(seconds));
    options.rules = tb.map_or(Rules::None, Tablebase::rules);
    options
}

/// The part of a proof's time that a search beside it gets: the baseline's proof under the
/// rule, when the rule's ran out of time, and the question whether a win needs the rule.
const SHARE: u32 = 4;

/// Under the rule, whether a win of `plies` found for the side to move needs the rule:
/// `Some(false)` when the baseline proves a win as long (never shorter: the rule only takes
/// moves from the defender), `Some(true)` when it proves none, `None` without the rule or
/// when its time ran out.
fn needs_rule(
    solver: &mut Solver,
    pos: &Position,
    plies: u32,
    options: &Options,
    long: bool,
    tb: Option<&Tablebase>,
) -> Result<Option<bool>, SolveError> {
    if !options.rule() {
        return Ok(None);
    }
    let mut none = options.clone();
    none.rules = Rules::None;
    none.max_moves = plies.div_ceil(2);
    // (a share of the proof's time, so that a composition's audit stays within its bounds)
    none.time = options.time.map(|t| t / SHARE);
    let found = if long {
        match solver
            .shortest_win(pos, &none, plies.saturating_sub(1), tb)?
            .length
        {
            Length::Exact(n) | Length::AtMost { plies: n, .. } => Some(n <= plies),
            Length::None => Some(false),
            Length::Unknown(_) => None,
        }
    } else {
        match solver.mate_distance(pos, pos.turn(), plies, &none, tb) {
            Ok(d) => Some(d.is_some()),
            Err(SolveError::Stopped) => None,
            Err(e) => return Err(e),
        }
    };
    Ok(found.map(|without| !without))
}

/// How far and how long each composition is searched.
#[derive(Clone, Debug)]
pub struct ProofOptions {
    /// The bound of the proof by any moves, in moves of the side to move.
    pub max_moves: u32,
    /// The bound of the proof by checks alone (连将杀), tried when the first finds no win.
    pub checks_max_moves: u32,
    /// The time each proof may take.
    pub seconds: f64,
    /// The result taken for a composition whose transcription states none ("1-0" for a
    /// book of wins), marked as assumed in the report.
    pub assume: Option<String>,
    /// Transposition table of each worker, in MB.
    pub hash_mb: usize,
    /// The bound of the long proof (by proof-number search, any moves), tried when neither
    /// of the first two finds a win; 0 skips it.
    pub long_max_moves: u32,
    /// The time the long proof may take.
    pub long_seconds: f64,
    /// A stated draw that no win refutes is played out to a table position
    /// ([`super::playout`]), each move safe from a forced loss within this many moves;
    /// 0 skips it.
    pub draw_safe_moves: u32,
    /// The time that line may take.
    pub draw_seconds: f64,
}

impl Default for ProofOptions {
    fn default() -> ProofOptions {
        ProofOptions {
            max_moves: 8,
            checks_max_moves: 30,
            seconds: 10.0,
            assume: None,
            hash_mb: 64,
            long_max_moves: 40,
            long_seconds: 60.0,
            draw_safe_moves: 3,
            draw_seconds: 10.0,
        }
    }
}

/// The stated result for the side to move (`win`, `draw`, `loss`) of a composition whose
/// transcription gives `result` (as PGN writes it), and whether it was `assume`d because the
/// transcription gives none.
pub(crate) fn stated(
    result: Option<&str>,
    turn: Color,
    assume: Option<&str>,
) -> Result<(Option<&'static str>, bool), String> {
    let (result, assumed) = match (result, assume) {
        (Some(r), _) => (Some(r), false),
        (None, Some(a)) => (Some(a), true),
        (None, None) => (None, false),
    };
    let red = turn == Color::Red;
    let s = match result {
        None => None,
        Some("1/2-1/2") => Some("draw"),
        Some("1-0") => Some(if red { "win" } else { "loss" }),
        Some("0-1") => Some(if red { "loss" } else { "win" }),
        Some(other) => {
            return Err(format!(
                "the result '{other}': 1-0 (a win for red), 0-1 or 1/2-1/2 (a draw)"
            ));
        }
    };
    Ok((s, assumed))
}

/// A proof's outcome: the shortest win with its line (both sides' moves), if one was
/// found, and whether the proof ran to its bound (not stopped by the time).
pub(crate) struct Proof {
    pub win: Option<(u32, Vec<Move>)>,
    /// Whether the win's length is the shortest (else a win within it was proven, and the
    /// time ran out before the shortest was established).
    pub shortest: bool,
    /// Under the rule, whether the win needs it ([`needs_rule`]).
    pub by_rule: Option<bool>,
    pub complete: bool,
    /// No forced win within this many plies was proven (by the long proof).
    pub none_within: u32,
}

/// The shortest forced win within `max_moves` by proof-number search, with its line, when
/// it is known that there is none within `none_within` plies.
pub(crate) fn prove_long(
    solver: &mut Solver,
    pos: &Position,
    max_moves: u32,
    none_within: u32,
    seconds: f64,
    tb: Option<&Tablebase>,
) -> Result<Proof, SolveError> {
    let options = proof_options(max_moves, seconds, tb);
    let p = solver.shortest_win(pos, &options, none_within, tb)?;
    let bound = 2 * max_moves - 1;
    let shortest = !matches!(p.length, Length::AtMost { .. });
    let (win, complete, none_within) = match p.length {
        Length::Exact(n) => (Some((n, p.line)), true, n - 1),
        Length::AtMost { plies, none_within } => (Some((plies, p.line)), false, none_within),
        Length::None => (None, true, bound),
        Length::Unknown(n) => (None, false, n),
    };
    let by_rule = match &win {
        Some((n, _)) => needs_rule(solver, pos, *n, &options, true, tb)?,
        None => None,
    };
    Ok(Proof {
        win,
        shortest,
        by_rule,
        complete,
        none_within,
    })
}

/// The shortest forced win within `max_moves` (by checks alone if `checks`), with its line
/// (empty when the time ran out while it was worked out). Under the rule, when its search
/// runs out of time, the baseline's shortest win (searched in a share of the time, and
/// quicker to find: its
/// transposition table is not keyed by the line) is a win under the rule as well, and no
/// longer: the attacker's moves along it never repeat a position, so the rule forbids none
/// of them, and it only takes moves from the defender. That win is then given as a win
/// within its length, the shortest under the rule not established.
pub(crate) fn prove(
    solver: &mut Solver,
    pos: &Position,
    max_moves: u32,
    checks: bool,
    seconds: f64,
    tb: Option<&Tablebase>,
) -> Result<Proof, SolveError> {
    let mut options = proof_options(max_moves, seconds, tb);
    options.checks_only = checks;
    let not_found = |complete| Proof {
        win: None,
        shortest: true,
        by_rule: None,
        complete,
        none_within: 0,
    };
    let d = match solver.mate_distance(pos, pos.turn(), 2 * max_moves - 1, &options, tb) {
        Ok(d) => d,
        Err(SolveError::Stopped) if options.rule() => {
            let mut none = options.clone();
            none.rules = crate::tablebase::Rules::None;
            // (a stop of its own: the first search's time has set the shared one; a share
            // of the time)
            none.stop = Default::default();
            none.time = options.time.map(|t| t / SHARE);
            return match solver.mate_distance(pos, pos.turn(), 2 * max_moves - 1, &none, tb) {
                Ok(Some(plies)) => {
                    none.max_moves = plies.div_ceil(2);
                    let line = match solver.solve(pos, &none, tb) {
                        Ok(s) => s.pv,
                        Err(SolveError::Stopped) => Vec::new(),
                        Err(e) => return Err(e),
                    };
                    Ok(Proof {
                        win: Some((plies, line)),
                        shortest: false,
                        by_rule: Some(false),
                        complete: true,
                        none_within: 0,
                    })
                }
                Ok(None) | Err(SolveError::Stopped) => Ok(not_found(false)),
                Err(e) => Err(e),
            };
        }
        Err(SolveError::Stopped) => return Ok(not_found(false)),
        Err(e) => return Err(e),
    };
    let Some(plies) = d else {
        return Ok(not_found(true));
    };
    // the line: a proof bounded at the length just found (every first move of that length)
    options.max_moves = plies.div_ceil(2);
    let line = match solver.solve(pos, &options, tb) {
        Ok(s) => s.pv,
        Err(SolveError::Stopped) => Vec::new(),
        Err(e) => return Err(e),
    };
    let by_rule = needs_rule(solver, pos, plies, &options, false, tb)?;
    Ok(Proof {
        win: Some((plies, line)),
        shortest: true,
        by_rule,
        complete: true,
        none_within: 0,
    })
}
