//! A puzzle attempt in progress: the player's moves judged one by one against perfect play,
//! canju's perfect defence after each, take-backs, hints and the solution. A front end (the
//! terminal's `puzzle play`, a page, an engine) holds one [`Attempt`] and shows what it
//! answers; the rules of the attempt (what solves a puzzle, what fails it, what a hint
//! reveals) live here alone.

use crate::game::moves::Move;
use crate::game::piece::{Color, Piece};
use crate::game::position::Position;
use crate::game::square::Square;
use crate::notation;

use super::{Feedback, Goal, Judge, Puzzle, PuzzleError};

/// Where an attempt stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The player is to move.
    Playing,
    /// The player's last move lost the goal (the move, named); only a take-back, the
    /// solution or leaving make sense.
    AfterMistake(super::Named),
    /// The goal was reached; `clean` when no mistake was made on the way.
    Solved {
        /// No mistake was made (and taken back) on the way.
        clean: bool,
    },
    /// The defence won.
    Failed,
}

/// How an attempt that has ended (or was left) counts for the player's progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Solved without a mistake, a hint or the solution on the way.
    Solved,
    /// Solved without a mistake, after a hint or the solution was shown.
    Helped,
    /// A mistake was made (even if taken back), or the defence won.
    Failed,
    /// Left before the end without a mistake.
    Quit,
}

impl Outcome {
    /// What the progress file records, or `None` for an attempt left without a mistake.
    pub fn finish(self) -> Option<super::progress::Finish> {
        use super::progress::Finish;
        match self {
            Outcome::Solved => Some(Finish::Clean),
            Outcome::Helped => Some(Finish::Helped),
            Outcome::Failed => Some(Finish::Failed),
            Outcome::Quit => None,
        }
    }
}

/// How a solved attempt was solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side to move (the defender) is in check with no legal move: 将死.
    Checkmated(Color),
    /// The side to move (the defender) has no legal move, not in check: 困毙 (a loss too).
    Stalemated(Color),
    /// A draw goal: the draw was held for the puzzle's length.
    DrawHolds,
    /// The defence left the player without a move.
    DefenceWins(Color),
    /// The side to move (the defender) has legal moves, and the perpetual-check rule
    /// (`check-only`) forbids every one: each would repeat a position while it checks on
    /// every move (长将作负, a loss).
    PerpetualCheck(Color),
    /// The same under the whole 长打 rule (`asian`): each would repeat a position while it
    /// checks, threatens mate or chases on every move (长打作负, a loss).
    PerpetualAttack(Color),
    /// A position came for the third time, neither side forced by the rule to deviate:
    /// a draw by repetition (不变作和), so a win goal is not reached.
    Repetition,
}

/// How many times a position comes before the game ends by repetition (a draw, 不变作和).
pub const REPETITION_ENDS: usize = 3;

/// The positions of a game so far (their keys, the puzzle's position first), for telling a
/// repetition: a position that comes again with the same side to move.
#[derive(Clone, Debug, Default)]
pub(crate) struct Seen(Vec<u64>);

impl Seen {
    /// A game from `start`.
    pub(crate) fn new(start: &Position) -> Seen {
        Seen(vec![start.key()])
    }

    /// How many times `pos` came before.
    pub(crate) fn before(&self, pos: &Position) -> usize {
        self.0.iter().filter(|&&k| k == pos.key()).count()
    }

    /// `pos` comes now.
    pub(crate) fn push(&mut self, pos: &Position) {
        self.0.push(pos.key());
    }

    /// Back to the first `plies` moves.
    pub(crate) fn truncate(&mut self, plies: usize) {
        self.0.truncate(plies + 1);
    }
}

/// A move of the player's that keeps the goal but brings back a position seen `before`
/// times: for a win goal the win made no progress, so it is no longer best (a draw goal's
/// repetition is the draw held).
pub(crate) fn judge_repetition(f: Feedback, goal: Goal, before: usize) -> Feedback {
    match f {
        Feedback::Best if goal.win && before > 0 => Feedback::Good { slower: 0 },
        f => f,
    }
}

impl Ending {
    /// The ending by rule for the defender `c` under `rules`.
    pub fn by_rule(rules: Option<crate::tablebase::Rules>, c: Color) -> Ending {
        if rules == Some(crate::tablebase::Rules::Asian) {
            Ending::PerpetualAttack(c)
        } else {
            Ending::PerpetualCheck(c)
        }
    }
}

impl Ending {
    /// `checkmate`, `stalemate`, `draw-held` or `defence-won`, as JSON names it.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Checkmated(_) => "checkmate",
            Ending::Stalemated(_) => "stalemate",
            Ending::DrawHolds => "draw-held",
            Ending::DefenceWins(_) => "defence-won",
            Ending::PerpetualCheck(_) => "perpetual-check",
            Ending::PerpetualAttack(_) => "perpetual-attack",
            Ending::Repetition => "repetition",
        }
    }
}

/// What one of the player's moves brought.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The move, named as it stood before it was played.
    pub mv: super::Named,
    /// Its judgement by perfect play.
    pub feedback: Feedback,
    /// How the position stands for the player after the move.
    pub now: super::Outlook,
    /// For a mistake: why it lost the goal, when a rule (perpetual check, 连将杀's checks)
    /// is the reason.
    pub reason: Option<super::Reason>,
    /// For a mistake: the defender's refutation, when there is one.
    pub refutation: Option<super::Named>,
    /// canju's defence that followed, when the attempt goes on.
    pub defence: Option<super::Named>,
    /// How many times the position the move made came before in the game (a repetition:
    /// no progress, never best in a win).
    pub repeats: usize,
    /// The attempt ended with this move (or with the defence that followed it).
    pub ending: Option<Ending>,
}

/// A hint: the first asks which piece to move; the second names the move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// Move this piece, which stands on `square`; `file` is its file as its own side
    /// counts it (red 一..九 from red's right, black １..９ from black's right).
    Piece {
        /// The piece to move.
        piece: Piece,
        /// Its file in its owner's words.
        file: &'static str,
        /// Where it stands.
        square: Square,
    },
    /// The move to play.
    Move(super::Named),
    /// No move keeps the goal from here.
    Lost,
    /// The last move was a mistake: take it back first.
    TakeBackFirst,
}

/// One player's attempt at a puzzle.
#[derive(Clone)]
pub struct Attempt<'p, 'j> {
    puzzle: &'p Puzzle,
    judge: &'j Judge<'j>,
    /// Positions before each of the player's moves, with the budget then.
    history: Vec<(Position, u32)>,
    /// Every move played so far, both sides', which the judge follows (the
    /// perpetual-check rule counts the game's repetitions).
    moves: Vec<Move>,
    /// The game's positions, for its repetitions.
    seen: Seen,
    pos: Position,
    left: u32,
    hints: u32,
    /// A hint that named a piece or a move, or the solution, was shown.
    helped: bool,
    mistaken: bool,
    wrong: Option<super::Named>,
    played: u32,
    status: Status,
}

/// A file as its owner counts it: red 一..九 from its right, black １..９ from its right.
pub fn file_word(color: Color, square: Square) -> &'static str {
    let f = square.file().index() as usize;
    match color {
        Color::Red => ["九", "八", "七", "六", "五", "四", "三", "二", "一"][f],
        Color::Black => ["１", "２", "３", "４", "５", "６", "７", "８", "９"][f],
    }
}

impl<'p, 'j> Attempt<'p, 'j> {
    /// An attempt at `puzzle`, judged by `judge`, from its first position.
    pub fn new(puzzle: &'p Puzzle, judge: &'j Judge<'j>) -> Attempt<'p, 'j> {
        Attempt {
            puzzle,
            judge,
            history: Vec::new(),
            moves: Vec::new(),
            seen: Seen::new(&puzzle.position),
            pos: puzzle.position.clone(),
            left: puzzle.budget(),
            hints: 0,
            helped: false,
            mistaken: false,
            wrong: None,
            played: 0,
            status: Status::Playing,
        }
    }

    /// The position on the board now.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The last move played on the board (the defence's reply, or the player's own), if any.
    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().copied()
    }

    /// Where the attempt stands.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// How the attempt counts if it ends (or is left) now.
    pub fn outcome(&self) -> Outcome {
        match self.status {
            Status::Solved { clean: true } if self.helped => Outcome::Helped,
            Status::Solved { clean: true } => Outcome::Solved,
            Status::Solved { clean: false } | Status::Failed => Outcome::Failed,
            _ if self.mistaken => Outcome::Failed,
            _ => Outcome::Quit,
        }
    }

    /// Plays the player's move, given in any notation; canju answers with its defence.
    /// A move that cannot be read or is illegal is an error (the attempt is unchanged).
    pub fn play_text(&mut self, text: &str) -> Result<Played, AttemptError> {
        let m = notation::parse_move(&self.pos, text).map_err(AttemptError::Move)?;
        self.play(m).map_err(AttemptError::Puzzle)
    }

    /// Plays the player's (legal) move; canju answers with its defence. On an error (a
    /// search stopped by its time, a damaged table) the attempt is as it was before.
    pub fn play(&mut self, m: Move) -> Result<Played, PuzzleError> {
        let before = self.clone();
        let r = self.play_judged(m);
        if r.is_err() {
            *self = before;
            self.judge.follow(&self.puzzle.position, &self.moves);
        }
        r
    }

    fn play_judged(&mut self, m: Move) -> Result<Played, PuzzleError> {
        let (judge, goal, player) = (self.judge, self.puzzle.goal, self.puzzle.goal.side);
        judge.follow(&self.puzzle.position, &self.moves);
        let super::Judgement { feedback: f, now } = judge.assess(&self.pos, m, goal, self.left)?;
        self.history.push((self.pos.clone(), self.left));
        let named = super::Named::of(&self.pos, m);
        self.pos.play_unchecked(m);
        self.moves.push(m);
        let repeats = self.seen.before(&self.pos);
        let f = judge_repetition(f, goal, repeats);
        self.seen.push(&self.pos);
        judge.follow(&self.puzzle.position, &self.moves);
        self.left = self.left.saturating_sub(1);
        self.played += 1;
        self.hints = 0;
        let mut out = Played {
            mv: named,
            feedback: f,
            now,
            reason: None,
            refutation: None,
            defence: None,
            ending: None,
            repeats,
        };
        if f == Feedback::Mistake {
            self.mistaken = true;
            self.wrong = Some(out.mv.clone());
            self.status = Status::AfterMistake(out.mv.clone());
            out.reason = judge.rule_reason(&self.pos, goal, self.left)?;
            out.refutation = judge
                .refutation(&self.pos, player, self.left)?
                .map(|r| super::Named::of(&self.pos, r));
            return Ok(out);
        }
        if let Some(end) = self.reached() {
            out.ending = Some(end);
            return Ok(out);
        }
        let Some(d) = judge.defence(&self.pos, player, self.left)? else {
            return Ok(out);
        };
        out.defence = Some(super::Named::of(&self.pos, d));
        self.pos.play_unchecked(d);
        self.moves.push(d);
        self.seen.push(&self.pos);
        judge.follow(&self.puzzle.position, &self.moves);
        self.left = self.left.saturating_sub(1);
        self.played += 1;
        if self.pos.legal_moves().is_empty() {
            self.status = Status::Failed;
            out.ending = Some(Ending::DefenceWins(self.pos.turn()));
            return Ok(out);
        }
        out.ending = self.reached();
        Ok(out)
    }

    /// The goal reached after a move: the side to move has no move, or a draw held long
    /// enough.
    fn reached(&mut self) -> Option<Ending> {
        // the third time a position comes, the game is drawn (不变作和): a win goal is
        // not reached, a draw goal is held
        if self.seen.before(&self.pos) >= REPETITION_ENDS {
            let end = if self.puzzle.goal.win {
                self.status = Status::Failed;
                Ending::Repetition
            } else {
                self.status = Status::Solved {
                    clean: !self.mistaken,
                };
                Ending::DrawHolds
            };
            return Some(end);
        }
        let end = if self.pos.legal_moves().is_empty() {
            if self.pos.is_check() {
                Ending::Checkmated(self.pos.turn())
            } else {
                Ending::Stalemated(self.pos.turn())
            }
        } else if self.pos.turn() != self.puzzle.goal.side
            && self.judge.allowed_moves(&self.pos).is_empty()
        {
            Ending::by_rule(self.judge.rules(), self.pos.turn())
        } else if !self.puzzle.goal.win && self.played >= self.puzzle.draw_plies() {
            Ending::DrawHolds
        } else {
            return None;
        };
        self.status = Status::Solved {
            clean: !self.mistaken,
        };
        Some(end)
    }

    /// Takes back the player's last move (and the defence after it); false when there is
    /// nothing to take back.
    pub fn undo(&mut self) -> bool {
        let Some((before, budget)) = self.history.pop() else {
            return false;
        };
        // after a mistake only the mistaken move was played: no reply to take back
        let plies = if self.wrong.take().is_some() { 1 } else { 2 };
        self.played = self.played.saturating_sub(plies);
        self.moves
            .truncate(self.moves.len().saturating_sub(plies as usize));
        self.seen.truncate(self.moves.len());
        self.pos = before;
        self.left = budget;
        self.hints = 0;
        self.status = Status::Playing;
        true
    }

    /// Whether a hint or the solution has been shown in this attempt.
    pub fn helped(&self) -> bool {
        self.helped
    }

    /// A hint: the piece to move the first time, the move the second.
    pub fn hint(&mut self) -> Result<Hint, PuzzleError> {
        if self.wrong.is_some() {
            return Ok(Hint::TakeBackFirst);
        }
        self.judge.follow(&self.puzzle.position, &self.moves);
        let best = self
            .judge
            .best_move(&self.pos, self.puzzle.goal, self.left)?;
        if best.is_some() {
            self.helped = true;
        }
        Ok(match best {
            Some(m) if self.hints == 0 => {
                self.hints += 1;
                let piece = self
                    .pos
                    .piece_at(m.from())
                    .expect("a piece on the move's point");
                Hint::Piece {
                    piece,
                    file: file_word(piece.color, m.from()),
                    square: m.from(),
                }
            }
            Some(m) => Hint::Move(super::Named::of(&self.pos, m)),
            None => Hint::Lost,
        })
    }

    /// The main line from here (after a mistake, from the position before it); empty when
    /// no move keeps the goal. Once shown, a solve counts as helped.
    pub fn solution(&mut self) -> Result<Vec<super::Named>, PuzzleError> {
        self.helped = true;
        let (pos, left, played) = match (&self.wrong, self.history.last()) {
            (Some(_), Some((before, budget))) => (before, *budget, self.played.saturating_sub(1)),
            _ => (&self.pos, self.left, self.played),
        };
        let goal = self.puzzle.goal;
        let length = if goal.win {
            left
        } else {
            self.puzzle.draw_plies().saturating_sub(played).max(2)
        };
        // (after a mistake the line starts before it)
        let upto = self.moves.len() - usize::from(self.wrong.is_some());
        self.judge
            .follow(&self.puzzle.position, &self.moves[..upto]);
        let line = self.judge.main_line(pos, goal, left, length)?;
        let mut q = pos.clone();
        Ok(line
            .into_iter()
            .map(|m| {
                let t = super::Named::of(&q, m);
                q.play_unchecked(m);
                t
            })
            .collect())
    }
}

/// A move of the player that could not be played.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// The text is not a legal move here.
    #[error(transparent)]
    Move(notation::NotationError),
    /// Judging the move failed.
    #[error(transparent)]
    Puzzle(PuzzleError),
    /// A hint or the solution was asked for with the defender to move.
    #[error("it is the defender's move: a hint or the solution is for the player's")]
    NotPlayersMove,
}

impl crate::tablebase::HasRemedy for AttemptError {
    fn remedy(&self) -> Option<crate::tablebase::Remedy> {
        match self {
            AttemptError::Puzzle(p) => p.remedy(),
            AttemptError::Move(_) | AttemptError::NotPlayersMove => None,
        }
    }
}
