//! What canju proves of a collection's stated results: for each composition, the shortest
//! forced win within the solver's bound (by any moves, else by checks alone, 连将杀), or
//! the tables' exact value where the material has one; then whether that is the result the
//! book states (a stated win proven, a stated win not found within the bound, a stated draw
//! refuted by a win: a cook, 破局). A stated draw that no win refutes is played out to a
//! position the tables decide ([`super::playout`]).

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::solver::{SolveError, Solver};
use crate::tablebase::{TableError, Tablebase, Value};

use super::import::Game;

use super::playout::{LineEnd, LineOptions, PlayedLine, chinese, play_out, table_value};
use super::proof::{ProofOptions, prove, prove_long, stated};

/// What was found: a forced win, and how it was proven.
#[derive(Clone, Debug, Serialize)]
pub struct Win {
    /// Plies to mate (or to the stalemate that ends it); 0 for a win by rule.
    pub plies: u32,
    /// `tables` (exact), `rule` (the tables' win by the perpetual-check rule), `search`
    /// (the shortest win by any moves), `checks` (no win by any moves within the bound;
    /// the shortest by checks alone) or `long` (none within either bound; the shortest by
    /// any moves within the long proof's bound, by proof-number search) or `into-tables`
    /// (none found by the proofs; a first move into a table's material that the tables
    /// then win, the shortest not established).
    pub by: &'static str,
    /// The main line in Chinese notation (empty when the tables proved it, or when its
    /// search ran out of time).
    pub line: Vec<String>,
    /// Under the perpetual-check rule (asian tables), whether the stated win holds only by
    /// the rule (长将作负: without it the defender would hold, or last longer, by checking
    /// forever); `null` when not asked (no rule, the tables, or out of time).
    pub by_rule: Option<bool>,
    /// Whether `plies` is the shortest win's length; `false`: a win within that many plies
    /// is proven, and the time ran out before the shortest was established (the long
    /// proof's; or under the rule, the first two's, which then give the baseline's shortest
    /// win: the rule's is at most as long).
    pub shortest: bool,
}

/// How a composition's stated result stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Finding {
    /// A stated win, proven.
    Proven,
    /// A stated win, with no forced win found within the bounds (or the time).
    WinNotFound,
    /// A stated win that does not hold: the tables say so.
    WinRefuted,
    /// A stated draw that a forced win refutes: a cook (破局).
    Cook,
    /// A stated draw, confirmed by the tables.
    DrawConfirmed,
    /// A stated draw, with no forced win found within the bounds, and a line played out
    /// from it to a position the tables call a draw ([`super::playout`]).
    DrawPlayedOut,
    /// A stated draw, with no forced win found within the bounds.
    DrawNotRefuted,
    /// A stated draw where every move of the side to move is proven to lose (the line
    /// played out found no move safe within its bound, [`LineEnd::NoSafeMove`]).
    DrawLost,
    /// No stated result; a forced win found.
    UnstatedWin,
    /// No stated result; no forced win found.
    UnstatedNoWin,
    /// The same diagram as an earlier composition of the collection.
    Duplicate,
}

impl Finding {
    /// All findings, in report order.
    pub const ALL: [Finding; 11] = [
        Finding::Proven,
        Finding::WinNotFound,
        Finding::WinRefuted,
        Finding::Cook,
        Finding::DrawConfirmed,
        Finding::DrawPlayedOut,
        Finding::DrawNotRefuted,
        Finding::DrawLost,
        Finding::UnstatedWin,
        Finding::UnstatedNoWin,
        Finding::Duplicate,
    ];

    /// The finding in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Finding::Proven => "stated win, proven",
            Finding::WinNotFound => "stated win, not found within the bound",
            Finding::WinRefuted => "stated win, refuted by the tables",
            Finding::Cook => "stated draw, refuted by a win (破局)",
            Finding::DrawConfirmed => "stated draw, confirmed by the tables",
            Finding::DrawPlayedOut => "stated draw, no win found, played out to a table draw",
            Finding::DrawNotRefuted => "stated draw, no win found within the bound",
            Finding::DrawLost => "stated draw, refuted: the side to move loses",
            Finding::UnstatedWin => "no stated result, a win found",
            Finding::UnstatedNoWin => "no stated result, no win found",
            Finding::Duplicate => "the same diagram as an earlier one",
        }
    }
}

/// One composition's audit.
#[derive(Clone, Debug, Serialize)]
pub struct AuditEntry {
    /// Its number in the file.
    pub number: usize,
    /// Its title.
    pub title: String,
    /// Where it starts.
    pub fen: String,
    /// Pieces on the board.
    pub pieces: usize,
    /// The stated result for the side to move: `win`, `draw`, or `null`.
    pub stated: Option<&'static str>,
    /// The stated result was not in the transcription but assumed for the collection.
    pub assumed: bool,
    /// The forced win found, if any.
    pub win: Option<Win>,
    /// What the tables say, when the material has a table (`win`, `draw`, `loss`).
    pub tables: Option<&'static str>,
    /// Every proof ran to its bound (`false`: a proof ran out of time, so "not found"
    /// means "not found in the time").
    pub complete: bool,
    /// The longest bound, in moves, within which it is proven that there is no forced win
    /// by any moves (none when no proof by any moves finished).
    pub no_win_within: Option<u32>,
    /// For a stated draw that neither the tables nor a win decide: a line played out to a
    /// position the tables decide ([`super::playout`]).
    pub draw_line: Option<PlayedLine>,
    /// How the stated result stands.
    pub finding: Finding,
    /// The earlier composition with the same diagram.
    pub same_as: Option<usize>,
    /// Seconds taken.
    pub seconds: f64,
}

/// A collection's audit.
#[derive(Clone, Debug, Serialize)]
pub struct AuditReport {
    /// The bound of the proof by any moves.
    pub max_moves: u32,
    /// The bound of the proof by checks alone.
    pub checks_max_moves: u32,
    /// The time each proof was given.
    pub seconds_per_proof: f64,
    /// The bound of the long proof (proof-number search, any moves; 0: not tried).
    pub long_max_moves: u32,
    /// The time the long proof was given.
    pub long_seconds: f64,
    /// The compositions, in file order.
    pub entries: Vec<AuditEntry>,
    /// How many of each finding, in [`Finding::ALL`] order (those with none left out).
    pub counts: Vec<(Finding, usize)>,
    /// The median and the longest time of a composition, in seconds.
    pub median_seconds: f64,
    /// The longest.
    pub max_seconds: f64,
    /// Wall-clock seconds of the whole audit.
    pub seconds: f64,
}

/// Why an audit stopped.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A table could not be read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The solver failed (a damaged table, a stop asked for).
    #[error(transparent)]
    Solver(#[from] SolveError),
    /// A stated or assumed result that is neither a win nor a draw.
    #[error("{0}")]
    Assume(String),
}

/// A win that a first move into a table's material proves where the proofs found none: the
/// quickest such move after which the tables say the other side is lost (its whole length,
/// then, however long: no bound of the proofs' applies to a table). The first move changes
/// the material (a capture, or a composed piece leaving a point no game reaches), so no
/// position before it can come again, and the table's value, which is that of a fresh start,
/// is exact under the rule as well. Not known to be the shortest win: a move that stays out
/// of the tables may win sooner beyond the proofs' bounds.
fn into_tables(
    pos: &crate::game::position::Position,
    tb: &Tablebase,
) -> Result<Option<Win>, AuditError> {
    let mut best: Option<(u32, crate::game::moves::Move)> = None;
    for &m in pos.legal_moves().iter() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        if let Some(Value::Loss(n)) = table_value(Some(tb), &child)?
            && best.is_none_or(|(b, _)| n + 1 < b)
        {
            best = Some((n + 1, m));
        }
    }
    Ok(best.map(|(plies, m)| Win {
        plies,
        by: "into-tables",
        line: chinese(pos, &[m]),
        by_rule: Some(false),
        shortest: false,
    }))
}

fn audit_one(
    solver: &mut Solver,
    game: &Game,
    options: &ProofOptions,
    tb: Option<&Tablebase>,
) -> Result<AuditEntry, AuditError> {
    let start = Instant::now();
    let pos = &game.position;
    let (stated, assumed) = stated(
        game.result.as_deref(),
        pos.turn(),
        options.assume.as_deref(),
    )
    .map_err(AuditError::Assume)?;
    let win;
    let mut complete = true;
    let mut no_win_within = None;
    let value = table_value(tb, pos)?;
    let tables = value.map(|v| match v {
        Value::Win(_) | Value::RuleWin(_) => "win",
        Value::Draw => "draw",
        Value::Loss(_) | Value::RuleLoss(_) => "loss",
    });
    if let Some(v) = value {
        win = match v {
            Value::Win(plies) => Some(Win {
                plies,
                by: "tables",
                line: Vec::new(),
                by_rule: Some(false),
                shortest: true,
            }),
            Value::RuleWin(_) => Some(Win {
                plies: 0,
                by: "rule",
                line: Vec::new(),
                by_rule: Some(true),
                shortest: true,
            }),
            _ => None,
        };
    } else {
        let proof = prove(solver, pos, options.max_moves, false, options.seconds, tb)?;
        complete &= proof.complete;
        if proof.complete && proof.win.is_none() {
            no_win_within = Some(options.max_moves);
        }
        let mut found = proof.win.map(|(plies, line)| Win {
            plies,
            by: "search",
            line: chinese(pos, &line),
            by_rule: proof.by_rule,
            shortest: proof.shortest,
        });
        if found.is_none() && options.checks_max_moves > 0 {
            let proof = prove(
                solver,
                pos,
                options.checks_max_moves,
                true,
                options.seconds,
                tb,
            )?;
            complete &= proof.complete;
            found = proof.win.map(|(plies, line)| Win {
                plies,
                by: "checks",
                line: chinese(pos, &line),
                by_rule: proof.by_rule,
                shortest: proof.shortest,
            });
        }
        if found.is_none() && options.long_max_moves > 0 {
            let known = no_win_within.map_or(0, |m| 2 * m - 1);
            let proof = prove_long(
                solver,
                pos,
                options.long_max_moves,
                known,
                options.long_seconds,
                tb,
            )?;
            if proof.win.is_some() {
                // (a win found settles what the first two could not finish)
                complete = true;
                if !proof.shortest && proof.none_within > known {
                    no_win_within = Some(proof.none_within.div_ceil(2));
                }
            } else {
                complete &= proof.complete;
                if proof.none_within > known {
                    no_win_within = Some(proof.none_within.div_ceil(2));
                }
            }
            found = proof.win.map(|(plies, line)| Win {
                plies,
                by: "long",
                line: chinese(pos, &line),
                by_rule: proof.by_rule,
                shortest: proof.shortest,
            });
        }
        if found.is_none()
            && let Some(tb) = tb
        {
            found = into_tables(pos, tb)?;
        }
        win = found;
    }
    let exact = tables.is_some();
    let draw_line = match (stated, &win, tb) {
        (Some("draw"), None, Some(tb)) if !exact && options.draw_safe_moves > 0 => {
            let line = LineOptions {
                safe_moves: options.draw_safe_moves,
                seconds: options.draw_seconds,
                rules: tb.rules(),
            };
            Some(play_out(solver, pos, &line, tb)?)
        }
        _ => None,
    };
    let line_end = draw_line.as_ref().map(|l| l.end);
    let finding = match (stated, win.is_some()) {
        (Some("win"), true) => Finding::Proven,
        (Some("win"), false) if exact => Finding::WinRefuted,
        (Some("win"), false) => Finding::WinNotFound,
        (Some(_), true) => Finding::Cook,
        (Some(_), false) if exact => Finding::DrawConfirmed,
        (Some(_), false) if line_end == Some(LineEnd::TableDraw) => Finding::DrawPlayedOut,
        (Some(_), false) if line_end == Some(LineEnd::NoSafeMove) => Finding::DrawLost,
        (Some(_), false) => Finding::DrawNotRefuted,
        (None, true) => Finding::UnstatedWin,
        (None, false) => Finding::UnstatedNoWin,
    };
    Ok(AuditEntry {
        number: game.number,
        title: game.title.clone().unwrap_or_default(),
        fen: pos.to_string(),
        pieces: pos.piece_count(),
        stated,
        assumed,
        win,
        tables,
        complete,
        no_win_within,
        draw_line,
        finding,
        same_as: None,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Audits a collection's compositions (on rayon's pool, each worker with a solver of its
/// own), calling `done` as each is finished; the report keeps the file's order.
pub fn audit(
    games: &[Game],
    options: &ProofOptions,
    tb: Option<&Tablebase>,
    done: &(dyn Fn(&AuditEntry) + Sync),
) -> Result<AuditReport, AuditError> {
    let start = Instant::now();
    // a diagram met before is not searched again
    let first_of = |i: usize| {
        games[..i]
            .iter()
            .find(|g| g.position == games[i].position)
            .map(|g| g.number)
    };
    let mut entries: Vec<AuditEntry> = (0..games.len())
        .into_par_iter()
        .map_init(
            || Solver::new(options.hash_mb),
            |solver, i| -> Result<AuditEntry, AuditError> {
                let g = &games[i];
                let e = match first_of(i) {
                    Some(n) => {
                        let (stated, assumed) = stated(
                            g.result.as_deref(),
                            g.position.turn(),
                            options.assume.as_deref(),
                        )
                        .map_err(AuditError::Assume)?;
                        AuditEntry {
                            number: g.number,
                            title: g.title.clone().unwrap_or_default(),
                            fen: g.position.to_string(),
                            pieces: g.position.piece_count(),
                            stated,
                            assumed,
                            win: None,
                            tables: None,
                            complete: true,
                            no_win_within: None,
                            draw_line: None,
                            finding: Finding::Duplicate,
                            same_as: Some(n),
                            seconds: 0.0,
                        }
                    }
                    None => audit_one(solver, g, options, tb)?,
                };
                done(&e);
                Ok(e)
            },
        )
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.number);
    let counts = Finding::ALL
        .iter()
        .map(|&f| (f, entries.iter().filter(|e| e.finding == f).count()))
        .filter(|&(_, n)| n > 0)
        .collect();
    let mut times: Vec<f64> = entries
        .iter()
        .filter(|e| e.same_as.is_none())
        .map(|e| e.seconds)
        .collect();
    times.sort_by(f64::total_cmp);
    Ok(AuditReport {
        max_moves: options.max_moves,
        checks_max_moves: options.checks_max_moves,
        seconds_per_proof: options.seconds,
        long_max_moves: options.long_max_moves,
        long_seconds: options.long_seconds,
        counts,
        median_seconds: times.get(times.len() / 2).copied().unwrap_or(0.0),
        max_seconds: times.last().copied().unwrap_or(0.0),
        entries,
        seconds: start.elapsed().as_secs_f64(),
    })
}

impl crate::tablebase::HasRemedy for AuditError {
    fn remedy(&self) -> Option<crate::tablebase::Remedy> {
        match self {
            AuditError::Table(e) => e.remedy(),
            AuditError::Solver(e) => e.remedy(),
            AuditError::Assume(_) => None,
        }
    }
}
