//! A solution as a front end shows or serializes it: `canju solve --json` and the
//! server's `/api/solve`.

use serde::Serialize;

use crate::game::moves::Move;
use crate::game::position::Position;
use crate::notation::{self, Notation, Style};
use crate::tablebase::Rules;

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
        }
    }
}

/// A proof's result, ready to serialize.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// The position solved.
    pub fen: String,
    /// `win`, `none` (proven: no forced win within the bound) or `unknown` (stopped).
    pub verdict: &'static str,
    /// Plies to mate, for a win.
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
    /// How the main line ends: `checkmate` (将死) or `stalemate` (困毙); `null` when
    /// there is no win (or the line was cut short by a stop).
    pub ending: Option<&'static str>,
    /// Every winning first move with its length.
    pub winning_moves: Vec<MoveTexts>,
    /// The main line.
    pub pv: Vec<MoveTexts>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
    /// The rule set of the tables read (a forced mate wins under every rule set).
    pub rules: &'static str,
}

impl SolveReport {
    /// The report of `s`, a solution of `pos` found with tables of `rules`.
    pub fn new(pos: &Position, s: &Solution, rules: Rules) -> SolveReport {
        let (verdict, plies) = match s.verdict {
            Verdict::Win { plies } => ("win", Some(plies)),
            Verdict::None => ("none", None),
            Verdict::Unknown => ("unknown", None),
        };
        let mut line = Vec::new();
        let mut p = pos.clone();
        for &m in &s.pv {
            line.push(MoveTexts::new(&p, m, None));
            p.play_unchecked(m);
        }
        let ending = match p.game_end() {
            _ if s.pv.is_empty() => None,
            Some(crate::game::movegen::GameEnd::Checkmate { .. }) => Some("checkmate"),
            Some(crate::game::movegen::GameEnd::Stalemate { .. }) => Some("stalemate"),
            None => None,
        };
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
                .map(|w| MoveTexts::new(pos, w.mv, Some(w.plies)))
                .collect(),
            pv: line,
            nodes: s.nodes,
            seconds: s.seconds,
            rules: rules.name(),
        }
    }
}
