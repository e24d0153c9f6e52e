//! Playing a puzzle: the player types moves in any notation (or `hint`, `undo`,
//! `solution`, `board`, `quit`); canju judges each move by perfect play and answers with
//! perfect defence ([`canju::puzzle::attempt`]). On a terminal it prompts; otherwise it
//! reads the same commands line by line, so a script can play a whole puzzle.

use std::io::{BufRead, IsTerminal};

use canju::Position;
use canju::puzzle::attempt::{Attempt, AttemptError, Ending, Hint, Outcome, Status};
use canju::puzzle::{Feedback, Judge, Puzzle};

use super::CliError;
use super::common::puzzle_error;

fn draw_board(pos: &Position) {
    out!(
        "{}",
        canju::render::terminal::board(pos, super::board::board_style(false))
    );
}

/// Plays a puzzle from standard input; the outcome counts for the player's progress.
pub fn play(p: &Puzzle, judge: &Judge) -> Result<Outcome, CliError> {
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let player = p.goal.side;
    let mut a = Attempt::new(p, judge);
    draw_board(a.position());
    outln!("{} · {}", p.entry.id, p.entry.title);
    outln!("goal: {}", p.goal_text());
    if let Some(rules) = judge.rules() {
        outln!("rules: {}", rules.describe());
    }
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            match a.status() {
                Status::AfterMistake(m) => {
                    out!("{m} was a mistake (undo, solution, board, quit)> ")
                }
                _ => out!(
                    "{} to move (a move, hint, undo, solution, board, quit)> ",
                    player
                ),
            }
            crate::output::flush();
        }
        let Some(line) = lines.next() else {
            return Ok(a.outcome());
        };
        let line = line.map_err(|e| CliError::input(format!("standard input: {e}")))?;
        let t = line.trim();
        match t {
            "" => continue,
            "quit" | "q" | "exit" => return Ok(a.outcome()),
            "board" => {
                draw_board(a.position());
                continue;
            }
            "hint" => {
                match a.hint().map_err(puzzle_error)? {
                    Hint::TakeBackFirst => outln!("hint: take the mistake back first (undo)"),
                    Hint::Piece {
                        piece,
                        file,
                        square,
                    } => outln!(
                        "hint: move the {} on file {file} ({square})",
                        piece.chinese()
                    ),
                    Hint::Move(m) => outln!("hint: {m}"),
                    Hint::Lost => outln!("hint: no move keeps the goal from here (undo)"),
                }
                continue;
            }
            "undo" => {
                if a.undo() {
                    draw_board(a.position());
                } else {
                    outln!("nothing to take back");
                }
                continue;
            }
            "solution" => {
                let line = a.solution().map_err(puzzle_error)?;
                if line.is_empty() {
                    outln!("solution: no move keeps the goal from here (undo)");
                } else {
                    outln!("solution: {}", line.join(" "));
                }
                continue;
            }
            _ => {}
        }
        if let Status::AfterMistake(m) = a.status() {
            outln!("{t}: {m} lost the goal; take it back first (undo)");
            continue;
        }
        let r = match a.play_text(t) {
            Ok(r) => r,
            Err(AttemptError::Move(e)) => {
                outln!("{e}");
                continue;
            }
            Err(AttemptError::Puzzle(e)) => return Err(puzzle_error(e)),
        };
        let text = &r.text;
        match r.feedback {
            Feedback::Best => outln!("{text}: best"),
            Feedback::Good { slower } => outln!(
                "{text}: good: still winning, {slower} move{} slower than the best",
                if slower == 1 { "" } else { "s" }
            ),
            Feedback::Mistake => {
                let why = r
                    .reason
                    .map_or(String::new(), |reason| format!(": {reason}"));
                match &r.refutation {
                    Some(refutation) => outln!(
                        "{text}: mistake: the goal is gone{why}; refutation {refutation} (undo to try again)"
                    ),
                    None => outln!("{text}: mistake: the goal is gone{why} (undo to try again)"),
                }
                continue;
            }
        }
        if let Some(d) = &r.defence {
            outln!("defence: {d}");
        }
        match r.ending {
            Some(Ending::Checkmated(side)) => {
                draw_board(a.position());
                outln!("solved: 将死, {side} is checkmated");
            }
            Some(Ending::Stalemated(side)) => {
                draw_board(a.position());
                outln!(
                    "solved: 困毙, {side} has no move left (not in check: a stalemate, which loses)"
                );
            }
            Some(Ending::DrawHolds) => outln!("solved: the draw holds"),
            Some(Ending::DefenceWins(side)) => {
                draw_board(a.position());
                outln!("the defence wins: {side} has no move left");
            }
            // no defence and no end: the judge found no reply
            None if r.defence.is_none() => return Ok(Outcome::Quit),
            None => {
                if interactive {
                    draw_board(a.position());
                }
                continue;
            }
        }
        return Ok(a.outcome());
    }
}
