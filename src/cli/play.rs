//! Playing a puzzle: the player types moves in any notation (or `hint`, `undo`,
//! `solution`, `board`, `quit`); canju judges each move by perfect play and answers with
//! perfect defence. On a terminal it prompts; otherwise it reads the same commands line by
//! line, so a script can play a whole puzzle.

use std::io::{BufRead, IsTerminal};

use canju::notation::{self, Notation, Style};
use canju::puzzle::{Feedback, Judge, Puzzle};
use canju::{Move, Position};

use super::CliError;

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Solved,
    /// A mistake was made (and not taken back before the end).
    Failed,
    /// The player left before the end.
    Quit,
}

/// How a session that reached its goal ended: solved, unless a mistake was made on the way.
fn ended(mistaken: bool) -> Outcome {
    if mistaken {
        Outcome::Failed
    } else {
        Outcome::Solved
    }
}

fn chinese(pos: &Position, m: Move) -> String {
    notation::format_move(pos, m, Notation::Chinese, Style::default())
}

fn draw_board(pos: &Position) {
    out!(
        "{}",
        canju::render::terminal::board(pos, super::board::board_style(false))
    );
}

/// Plays a puzzle from standard input.
pub fn play(p: &Puzzle, judge: &Judge) -> Result<Outcome, CliError> {
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let fail = |e: canju::puzzle::PuzzleError| CliError {
        code: 1,
        message: e.to_string(),
    };
    let player = p.goal.side;
    // positions before each of the player's moves, with the budget then
    let mut history: Vec<(Position, u32)> = Vec::new();
    let mut pos = p.position.clone();
    let mut left = p.budget();
    let mut hints = 0;
    let mut mistaken = false;
    // the last move the player made, when it was a mistake not yet taken back: the board
    // then shows the defender to move, and only undo, solution, board and quit make sense
    let mut wrong: Option<String> = None;
    // a draw goal is reached by keeping the draw through the stored line's length
    let draw_plies = p.draw_plies();
    let mut played = 0u32;
    draw_board(&pos);
    outln!("{} · {}", p.entry.id, p.entry.title);
    outln!("goal: {}", p.goal_text());
    if let Some(rules) = judge.rules() {
        outln!("rules: {}", rules.describe());
    }
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            match &wrong {
                Some(m) => out!("{m} was a mistake (undo, solution, board, quit)> "),
                None => out!(
                    "{} to move (a move, hint, undo, solution, board, quit)> ",
                    player
                ),
            }
            super::output::flush();
        }
        let quit = if mistaken {
            Outcome::Failed
        } else {
            Outcome::Quit
        };
        let Some(line) = lines.next() else {
            return Ok(quit);
        };
        let line = line.map_err(|e| CliError::input(format!("standard input: {e}")))?;
        let t = line.trim();
        match t {
            "" => continue,
            "quit" | "q" | "exit" => return Ok(quit),
            "board" => {
                draw_board(&pos);
                continue;
            }
            "hint" if wrong.is_some() => {
                outln!("hint: take the mistake back first (undo)");
                continue;
            }
            "hint" => {
                match judge.best_move(&pos, p.goal, left).map_err(fail)? {
                    Some(m) if hints == 0 => {
                        let piece = pos.piece_at(m.from()).expect("a piece");
                        // the file as the mover counts it: red 一..九 from its right, black 1..9
                        let f = m.from().file().index() as usize;
                        let file = match piece.color {
                            canju::Color::Red => {
                                ["九", "八", "七", "六", "五", "四", "三", "二", "一"][f]
                            }
                            canju::Color::Black => {
                                ["１", "２", "３", "４", "５", "６", "７", "８", "９"][f]
                            }
                        };
                        outln!(
                            "hint: move the {} on file {file} ({})",
                            piece.chinese(),
                            m.from()
                        );
                        hints += 1;
                    }
                    Some(m) => outln!("hint: {}", chinese(&pos, m)),
                    None => outln!("hint: no move keeps the goal from here (undo)"),
                }
                continue;
            }
            "undo" => {
                match history.pop() {
                    Some((before, budget)) => {
                        if wrong.take().is_some() {
                            // only the mistaken move was played: no reply to take back
                            played = played.saturating_sub(1);
                        } else {
                            played = played.saturating_sub(2);
                        }
                        pos = before;
                        left = budget;
                        hints = 0;
                        draw_board(&pos);
                    }
                    None => outln!("nothing to take back"),
                }
                continue;
            }
            "solution" => {
                // after a mistake, the line from the position before it
                let (pos, left, played) = match (&wrong, history.last()) {
                    (Some(_), Some((before, budget))) => {
                        (before, *budget, played.saturating_sub(1))
                    }
                    _ => (&pos, left, played),
                };
                let line = judge
                    .main_line(
                        pos,
                        p.goal,
                        left,
                        if p.goal.win {
                            left
                        } else {
                            draw_plies.saturating_sub(played).max(2)
                        },
                    )
                    .map_err(fail)?;
                let mut q = pos.clone();
                let mut text = Vec::new();
                for m in line {
                    text.push(chinese(&q, m));
                    q.play_unchecked(m);
                }
                if text.is_empty() {
                    outln!("solution: no move keeps the goal from here (undo)");
                } else {
                    outln!("solution: {}", text.join(" "));
                }
                continue;
            }
            _ => {}
        }
        if let Some(m) = &wrong {
            outln!("{t}: {m} lost the goal; take it back first (undo)");
            continue;
        }
        let m = match notation::parse_move(&pos, t) {
            Ok(m) => m,
            Err(e) => {
                outln!("{e}");
                continue;
            }
        };
        let f = judge.judge(&pos, m, p.goal, left).map_err(fail)?;
        history.push((pos.clone(), left));
        let text = chinese(&pos, m);
        pos.play_unchecked(m);
        left = left.saturating_sub(1);
        played += 1;
        hints = 0;
        match f {
            Feedback::Best => outln!("{text}: best"),
            Feedback::Good { slower } => outln!(
                "{text}: good: still winning, {slower} move{} slower than the best",
                if slower == 1 { "" } else { "s" }
            ),
            Feedback::Mistake => {
                mistaken = true;
                wrong = Some(text.clone());
                let why = match judge.rule_reason(&pos, p.goal, left).map_err(fail)? {
                    Some(reason) => format!(": {reason}"),
                    None => String::new(),
                };
                let r = judge.refutation(&pos, player, left).map_err(fail)?;
                match r {
                    Some(r) => outln!(
                        "{text}: mistake: the goal is gone{why}; refutation {} (undo to try again)",
                        chinese(&pos, r)
                    ),
                    None => outln!("{text}: mistake: the goal is gone{why} (undo to try again)"),
                }
                continue;
            }
        }
        if pos.legal_moves().is_empty() {
            draw_board(&pos);
            outln!("solved: {} has no move left", pos.turn());
            return Ok(ended(mistaken));
        }
        if !p.goal.win && played >= draw_plies {
            outln!("solved: the draw holds");
            return Ok(ended(mistaken));
        }
        let Some(d) = judge.defence(&pos, player, left).map_err(fail)? else {
            return Ok(Outcome::Quit);
        };
        outln!("defence: {}", chinese(&pos, d));
        pos.play_unchecked(d);
        left = left.saturating_sub(1);
        played += 1;
        if pos.legal_moves().is_empty() {
            draw_board(&pos);
            outln!("the defence wins: {} has no move left", pos.turn());
            return Ok(Outcome::Failed);
        }
        if !p.goal.win && played >= draw_plies {
            outln!("solved: the draw holds");
            return Ok(ended(mistaken));
        }
        if interactive {
            draw_board(&pos);
        }
    }
}
