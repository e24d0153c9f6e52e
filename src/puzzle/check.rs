//! A whole line of a puzzle judged at once: `canju puzzle check` and the server's
//! `/api/puzzle/ID/check`. The player's moves alone (canju answers for the defender), or
//! the full line with the defender's moves (any legal defence is accepted).

use serde::Serialize;

use crate::game::moves::Move;
use crate::game::position::Position;
use crate::notation::{self, Notation, Style};

use super::attempt::AttemptError;
use super::{Feedback, Judge, Puzzle};

/// One move of a checked line.
#[derive(Clone, Debug, Serialize)]
pub struct CheckedMove {
    /// The move in Chinese notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The move in ICCS coordinates.
    pub iccs: String,
    /// For a good move that is not the best: how many moves slower the win is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slower: Option<u32>,
    /// `player` or `defender`.
    pub by: &'static str,
    /// `best`, `good` or `mistake`.
    pub feedback: &'static str,
    /// Why a mistake lost the goal, when the perpetual-check rule is the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// Plies of the puzzle's budget left before the move.
    pub plies_left: u32,
}

/// A puzzle's line judged against perfect play.
#[derive(Clone, Debug, Serialize)]
pub struct LineCheck {
    /// The puzzle's id.
    pub id: String,
    /// The rule set of the tables that judged the moves.
    pub rules: &'static str,
    /// The line reaches the goal with no mistake.
    pub solved: bool,
    /// Every move judged, the defender's included.
    pub moves: Vec<CheckedMove>,
    /// After a mistake: the defender's refutation (Chinese notation), when there is one.
    pub refutation: Option<String>,
    /// A move of the player lost the goal (the line stops there).
    #[serde(skip)]
    pub failed: bool,
}

impl LineCheck {
    /// The last move judged (Chinese notation), or "" for an empty line.
    pub fn last_move(&self) -> &str {
        self.moves.last().map_or("", |m| m.mv.as_str())
    }
}

/// Judges the given moves of a puzzle (the player's alone, or the whole line with the
/// defender's) against perfect play.
pub fn check_line(p: &Puzzle, judge: &Judge, moves: &[String]) -> Result<LineCheck, AttemptError> {
    let player = p.goal.side;
    let mut pos: Position = p.position.clone();
    let mut left = p.budget();
    let mut out = Vec::new();
    let mut refutation: Option<(Position, Move)> = None;
    let mut given = moves.iter().peekable();
    let style = Style::default();
    let text = |pos: &Position, m: Move| notation::format_move(pos, m, Notation::Chinese, style);
    let mut failed = false;
    let fail = AttemptError::Puzzle;
    while let Some(t) = given.next() {
        // the player's move
        let m = notation::parse_move(&pos, t).map_err(AttemptError::Move)?;
        let f = judge.judge(&pos, m, p.goal, left).map_err(fail)?;
        let mut child = pos.clone();
        child.play_unchecked(m);
        let reason = if f == Feedback::Mistake {
            judge
                .rule_reason(&child, p.goal, left.saturating_sub(1))
                .map_err(fail)?
        } else {
            None
        };
        out.push(CheckedMove {
            mv: text(&pos, m),
            iccs: m.to_string(),
            slower: match f {
                Feedback::Good { slower } => Some(slower),
                _ => None,
            },
            by: "player",
            feedback: f.name(),
            reason,
            plies_left: left,
        });
        pos.play_unchecked(m);
        left = left.saturating_sub(1);
        if f == Feedback::Mistake {
            if let Some(r) = judge.refutation(&pos, player, left).map_err(fail)? {
                refutation = Some((pos.clone(), r));
            }
            failed = true;
            break;
        }
        if pos.legal_moves().is_empty() {
            break;
        }
        // the defender's move: the next given one if it is legal here, else canju's
        let next_is_defence = given
            .peek()
            .is_some_and(|t| notation::parse_move(&pos, t).is_ok());
        let d = if next_is_defence {
            let t = given.next().expect("peeked");
            notation::parse_move(&pos, t).expect("checked")
        } else {
            match judge.defence(&pos, player, left).map_err(fail)? {
                Some(d) => d,
                None => break,
            }
        };
        let best = judge.defence(&pos, player, left).map_err(fail)?;
        out.push(CheckedMove {
            mv: text(&pos, d),
            iccs: d.to_string(),
            slower: None,
            by: "defender",
            feedback: if Some(d) == best { "best" } else { "good" },
            reason: None,
            plies_left: left,
        });
        pos.play_unchecked(d);
        left = left.saturating_sub(1);
    }
    let solved = !failed
        && if p.goal.win {
            pos.legal_moves().is_empty() && pos.turn() != player
        } else {
            // every ply played, the player's and the defence's, against the draw's length
            out.len() as u32 >= p.draw_plies()
        };
    Ok(LineCheck {
        id: p.entry.id.clone(),
        rules: judge.rules().map_or("none", |r| r.name()),
        solved,
        moves: out,
        refutation: refutation.as_ref().map(|(pos, m)| text(pos, *m)),
        failed,
    })
}
