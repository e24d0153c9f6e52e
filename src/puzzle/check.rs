//! A whole line of a puzzle judged at once: `canju puzzle check` and the server's
//! `/api/puzzle/ID/check`. The player's moves alone (canju answers for the defender), or
//! the full line with the defender's moves (any legal defence is accepted).

use serde::Serialize;

use crate::game::moves::Move;
use crate::game::position::Position;
use crate::notation::{self, Notation, Style};

use super::attempt::{
    AttemptError, Ending, Hint, Played, REPETITION_ENDS, Seen, file_word, judge_repetition,
};
use super::words::{self, Lang};
use super::{Feedback, Judge, Named, Puzzle};

/// A text in both of the trainer's languages, for a page that switches between them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Said {
    /// 中文.
    pub zh: String,
    /// English.
    pub en: String,
}

impl Said {
    /// The text `say` gives in each language.
    pub fn both(say: impl Fn(Lang) -> String) -> Said {
        Said {
            zh: say(Lang::Zh),
            en: say(Lang::En),
        }
    }
}

/// One move of a checked line.
#[derive(Clone, Debug, Serialize)]
pub struct CheckedMove {
    /// The move in Chinese notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The move in WXF notation.
    pub wxf: String,
    /// The move in ICCS coordinates.
    pub iccs: String,
    /// For a good move that is not the best: how many moves slower the win is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slower: Option<u32>,
    /// `player` or `defender`.
    pub by: &'static str,
    /// `best`, `good` or `mistake`.
    pub feedback: &'static str,
    /// Why a mistake lost the goal, when a rule is the reason (English).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The same reason in Chinese.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_zh: Option<&'static str>,
    /// For the player's move: how the position stands for the player after it (`win`,
    /// `draw`, `loss`, `rule-win`, `rule-loss`, or `no-win` beyond the tables within the
    /// plies left). A mistake's `win` is a win longer than the plies left (a few moves
    /// longer at most, where no table holds the position).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<&'static str>,
    /// With `now`: the plies to mate of a `win` or `loss` (to the rule's end of a rule
    /// result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now_plies: Option<u32>,
    /// Plies of the puzzle's budget left before the move.
    pub plies_left: u32,
    /// For the player's move: how many times the position it made came before (a
    /// repetition, never best in a win); left out when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub repeats: usize,
    /// The judgement in a player's words (the player's moves), or the reply labelled by
    /// its role (the defender's): what the terminal trainer prints for it.
    pub said: Said,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    /// How the game ended, if it did: `checkmate` (将死) or `stalemate` (困毙) of the
    /// defender, `draw-held`, or `defence-won`.
    pub ending: Option<&'static str>,
    /// The ending in a player's words.
    pub ending_said: Option<Said>,
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
    // the moves played, which the judge follows (the perpetual-check rule counts the game)
    let mut line: Vec<Move> = Vec::new();
    // the game's positions: the third time one comes, the game is drawn
    let mut seen = Seen::new(&pos);
    let mut repetition = false;
    while let Some(t) = given.next() {
        // the player's move
        let m = notation::parse_move(&pos, t).map_err(AttemptError::Move)?;
        judge.follow(&p.position, &line);
        let super::Judgement { feedback: f, now } =
            judge.assess(&pos, m, p.goal, left).map_err(fail)?;
        let mut child = pos.clone();
        child.play_unchecked(m);
        let repeats = seen.before(&child);
        let f = judge_repetition(f, p.goal, repeats);
        seen.push(&child);
        let (reason, refuted) = if f == Feedback::Mistake {
            let after = left.saturating_sub(1);
            let reason = judge.rule_reason(&child, p.goal, after).map_err(fail)?;
            (
                reason,
                judge.refutation(&child, player, after).map_err(fail)?,
            )
        } else {
            (None, None)
        };
        let played = Played {
            mv: Named::of(&pos, m),
            feedback: f,
            now,
            reason,
            refutation: refuted.map(|r| Named::of(&child, r)),
            defence: None,
            ending: None,
            repeats,
        };
        out.push(CheckedMove {
            mv: played.mv.chinese.clone(),
            wxf: played.mv.wxf.clone(),
            iccs: m.to_string(),
            slower: match f {
                Feedback::Good { slower } => Some(slower),
                _ => None,
            },
            by: "player",
            feedback: f.name(),
            reason: reason.map(|r| r.en),
            reason_zh: reason.map(|r| r.zh),
            now: Some(now.name()),
            now_plies: now.plies(),
            plies_left: left,
            repeats,
            said: Said::both(|lang| words::judgement(lang, p.goal, &played)),
        });
        pos = child;
        line.push(m);
        judge.follow(&p.position, &line);
        left = left.saturating_sub(1);
        if f == Feedback::Mistake {
            refutation = refuted.map(|r| (pos.clone(), r));
            failed = true;
            break;
        }
        if seen.before(&pos) >= REPETITION_ENDS {
            repetition = true;
            break;
        }
        if pos.legal_moves().is_empty() || judge.allowed_moves(&pos).is_empty() {
            break;
        }
        // the defender's move: the next given one if it is legal here (and not one the rule
        // forbids), else canju's
        let allowed = judge.allowed_moves(&pos);
        let next_is_defence = given
            .peek()
            .is_some_and(|t| notation::parse_move(&pos, t).is_ok_and(|d| allowed.contains(&d)));
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
        let named = Named::of(&pos, d);
        out.push(CheckedMove {
            said: Said::both(|lang| words::reply(lang, p.goal, !player, &named)),
            mv: named.chinese.clone(),
            wxf: named.wxf.clone(),
            iccs: d.to_string(),
            slower: None,
            by: "defender",
            feedback: if Some(d) == best { "best" } else { "good" },
            reason: None,
            reason_zh: None,
            now: None,
            now_plies: None,
            plies_left: left,
            repeats: 0,
        });
        pos.play_unchecked(d);
        line.push(d);
        seen.push(&pos);
        left = left.saturating_sub(1);
        if seen.before(&pos) >= REPETITION_ENDS {
            repetition = true;
            break;
        }
    }
    judge.follow(&p.position, &line);
    // (the defender left with moves the rule forbids alone has lost: 长将作负)
    let by_rule = pos.turn() != player
        && !pos.legal_moves().is_empty()
        && judge.allowed_moves(&pos).is_empty();
    // a draw by repetition: a win not reached, a draw held
    let failed = failed || repetition && p.goal.win;
    let solved = !failed
        && (repetition && !p.goal.win
            || if p.goal.win {
                (pos.legal_moves().is_empty() || by_rule) && pos.turn() != player
            } else {
                // every ply played, the player's and the defence's, against the draw's length
                out.len() as u32 >= p.draw_plies()
            });
    let no_move = pos.legal_moves().is_empty();
    let ending = match () {
        _ if repetition && p.goal.win => Some(Ending::Repetition),
        _ if failed => None,
        _ if no_move && pos.turn() == player => Some(Ending::DefenceWins(player)),
        _ if solved && no_move && pos.is_check() => Some(Ending::Checkmated(pos.turn())),
        _ if solved && no_move => Some(Ending::Stalemated(pos.turn())),
        _ if solved && by_rule => Some(Ending::by_rule(judge.rules(), pos.turn())),
        _ if solved => Some(Ending::DrawHolds),
        _ => None,
    };
    Ok(LineCheck {
        id: p.entry.id.clone(),
        rules: judge.rules().map_or("none", |r| r.name()),
        solved,
        moves: out,
        refutation: refutation.as_ref().map(|(pos, m)| text(pos, *m)),
        ending: ending.map(Ending::name),
        ending_said: ending.map(|e| Said::both(|lang| words::ending(lang, e))),
        failed,
    })
}

/// The position after a line of a puzzle (both sides' moves, any notation), with the plies
/// of the budget left and the player's moves played.
fn after_line(p: &Puzzle, moves: &[String]) -> Result<(Position, u32, u32), AttemptError> {
    let mut pos = p.position.clone();
    for t in moves {
        let m = notation::parse_move(&pos, t).map_err(AttemptError::Move)?;
        pos.play_unchecked(m);
    }
    let played = moves.len() as u32;
    Ok((pos, p.budget().saturating_sub(played), played))
}

/// A hint for the player after a line: the piece to move first, then the move, each in
/// both languages (the terminal gives the first at the first `hint`, the second at the
/// next).
#[derive(Clone, Debug, Serialize)]
pub struct LineHint {
    /// The best move in ICCS coordinates, or none when no move keeps the goal.
    pub iccs: Option<String>,
    /// The best move in Chinese notation.
    pub chinese: Option<String>,
    /// The point of the piece to move.
    pub from: Option<String>,
    /// "move the horse on file 七": the first hint.
    pub piece: Said,
    /// "the best move is 马七进六": the second.
    #[serde(rename = "move")]
    pub mv: Said,
}

/// The player's best move after `moves` (the line so far, both sides), as a two-step hint.
pub fn hint_after(p: &Puzzle, judge: &Judge, moves: &[String]) -> Result<LineHint, AttemptError> {
    let (pos, left, _) = after_line(p, moves)?;
    if pos.turn() != p.goal.side {
        return Err(AttemptError::NotPlayersMove);
    }
    let best = judge
        .best_move(&pos, p.goal, left)
        .map_err(AttemptError::Puzzle)?;
    let Some(m) = best else {
        let lost = Said::both(|lang| words::hint(lang, &Hint::Lost));
        return Ok(LineHint {
            iccs: None,
            chinese: None,
            from: None,
            piece: lost.clone(),
            mv: lost,
        });
    };
    let piece = pos.piece_at(m.from()).expect("a piece on the move's point");
    let named = Named::of(&pos, m);
    let first = Hint::Piece {
        piece,
        file: file_word(piece.color, m.from()),
        square: m.from(),
    };
    let chinese = named.chinese.clone();
    let second = Hint::Move(named);
    Ok(LineHint {
        iccs: Some(m.to_string()),
        chinese: Some(chinese),
        from: Some(m.from().to_string()),
        piece: Said::both(|lang| words::hint(lang, &first)),
        mv: Said::both(|lang| words::hint(lang, &second)),
    })
}

/// One move of a solution.
#[derive(Clone, Debug, Serialize)]
pub struct SolutionMove {
    /// ICCS coordinates.
    pub iccs: String,
    /// Chinese notation.
    pub chinese: String,
    /// WXF notation.
    pub wxf: String,
}

/// The main line from after `moves` (the player's best moves, the defender's longest
/// resistance), as `solution` in the terminal gives it; empty when no move keeps the goal.
pub fn solution_after(
    p: &Puzzle,
    judge: &Judge,
    moves: &[String],
) -> Result<Vec<SolutionMove>, AttemptError> {
    let (pos, left, played) = after_line(p, moves)?;
    if pos.turn() != p.goal.side {
        return Err(AttemptError::NotPlayersMove);
    }
    let length = if p.goal.win {
        left
    } else {
        p.draw_plies().saturating_sub(played).max(2)
    };
    let line = judge
        .main_line(&pos, p.goal, left, length)
        .map_err(AttemptError::Puzzle)?;
    let mut q = pos;
    Ok(line
        .into_iter()
        .map(|m| {
            let named = Named::of(&q, m);
            q.play_unchecked(m);
            SolutionMove {
                iccs: m.to_string(),
                chinese: named.chinese,
                wxf: named.wxf,
            }
        })
        .collect())
}
