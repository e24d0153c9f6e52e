//! A solution as a front end shows or serializes it: `canju solve --json` and the
//! server's `/api/solve`.

use serde::Serialize;

use crate::game::moves::Move;
use crate::game::position::Position;
use crate::notation::{self, Notation, Style};

use super::{Solution, Verdict};

/// A move in the three notations.
#[derive(Clone, Debug, Serialize)]
pub struct MoveTexts {
    /// ICCS coordinates (`h2e2`).
    pub iccs: String,
    /// WXF (`C2.5`).
    pub wxf: String,
    /// Chinese (`炮二平五`).
    pub chinese: String,
    /// For a winning first move: plies to mate after it is played, counting it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plies: Option<u32>,
    /// For a winning first move under the perpetual-check rule: whether its win within
    /// that length needs the rule (`true`) or stands without it (`false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_rule: Option<bool>,
    /// In the main line: the position after this move repeats one before it (the game's
    /// history included).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub repeats: bool,
    /// In the main line under the rule: the moves (ICCS) the rule forbade the mover here,
    /// each of which would have completed a perpetual check (长将作负: it must change).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<String>,
}

impl MoveTexts {
    /// `m` (legal in `pos`) in the three notations.
    pub fn new(pos: &Position, m: Move, plies: Option<u32>) -> MoveTexts {
        let style = Style::default();
        MoveTexts {
            iccs: notation::format_move(pos, m, Notation::Iccs, style),
            wxf: notation::format_move(pos, m, Notation::Wxf, style),
            chinese: notation::format_move(pos, m, Notation::Chinese, style),
            plies,
            by_rule: None,
            repeats: false,
            forbidden: Vec::new(),
        }
    }
}

/// A proof's result, ready to serialize.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// The position solved.
    pub fen: String,
    /// `win`, `none` (proven: no forced win within the bound), `unknown` (stopped), or
    /// `win-within` (a forced win within `plies` proven, the shortest not established:
    /// proof-number search stopped by its time).
    pub verdict: &'static str,
    /// Plies to mate, for a win (the most, for `win-within`).
    pub plies: Option<u32>,
    /// Moves of the winning side, for a win.
    pub moves: Option<u32>,
    /// The bound, in moves.
    pub max_moves: u32,
    /// Plies proven complete.
    pub searched_plies: u32,
    /// Every move of the attacker had to give check (连将杀).
    pub checks_only: bool,
    /// Only a checkmate counted (将死; a stalemate, 困毙, did not).
    pub mate_only: bool,
    /// How the proof was searched: `depth-first` or `proof-number` (the answers are the
    /// same).
    pub method: String,
    /// How the main line ends: `checkmate` (将死), `stalemate` (困毙), or
    /// `perpetual-check` (长将作负: the loser has legal moves, and the rule forbids every
    /// one); `null` when there is no win (or the line was cut short by a stop).
    pub ending: Option<&'static str>,
    /// Every winning first move with its length.
    pub winning_moves: Vec<MoveTexts>,
    /// The main line.
    pub pv: Vec<MoveTexts>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
    /// The rules the proof was made under: `asian` (a defence by perpetual check fails:
    /// 长将作负) or `none` (every line ends in mate; endless play is no win).
    pub rules: &'static str,
}

impl SolveReport {
    /// The report of `s`, a solution of `pos` (under the rules the solution names).
    pub fn new(pos: &Position, s: &Solution) -> SolveReport {
        let (verdict, plies) = match s.verdict {
            Verdict::Win { plies } => ("win", Some(plies)),
            Verdict::None => ("none", None),
            Verdict::Unknown => ("unknown", None),
            Verdict::WinWithin { plies } => ("win-within", Some(plies)),
        };
        let mut line = Vec::new();
        let mut p = pos.clone();
        let repeats =
            crate::solver::rule::Path::repetitions(&crate::solver::History::default(), pos, &s.pv);
        let forbidden = if s.rules.judges_repetition() {
            crate::solver::rule::Path::forbidden_along(
                s.rules,
                &crate::solver::History::default(),
                pos,
                &s.pv,
            )
        } else {
            vec![Vec::new(); s.pv.len()]
        };
        for ((&m, again), kept) in s.pv.iter().zip(repeats).zip(forbidden) {
            line.push(MoveTexts {
                repeats: again,
                forbidden: kept.iter().map(|k| k.iccs()).collect(),
                ..MoveTexts::new(&p, m, None)
            });
            p.play_unchecked(m);
        }
        let ending = s.ending(pos);
        SolveReport {
            ending,
            mate_only: s.mate_only,
            method: s.method.to_string(),
            fen: pos.to_string(),
            verdict,
            plies,
            moves: plies.map(|n| n.div_ceil(2)),
            max_moves: s.max_plies.div_ceil(2),
            searched_plies: s.searched_plies,
            checks_only: s.checks_only,
            winning_moves: s
                .winning_moves
                .iter()
                .map(|w| MoveTexts {
                    by_rule: w.by_rule,
                    ..MoveTexts::new(pos, w.mv, Some(w.plies))
                })
                .collect(),
            pv: line,
            nodes: s.nodes,
            seconds: s.seconds,
            rules: s.rules.name(),
        }
    }
}
