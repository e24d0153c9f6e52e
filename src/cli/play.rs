//! Playing a puzzle: the player types moves in any notation (or `hint`, `undo`,
//! `solution`, `board`, `quit`); canju judges each move by perfect play and answers with
//! perfect defence ([`canju::puzzle::attempt`]). On a terminal it prompts; otherwise it
//! reads the same commands line by line, so a script can play a whole puzzle.

use std::io::{BufRead, IsTerminal};

use canju::Position;
use canju::puzzle::attempt::{Attempt, AttemptError, Ending, Outcome, Status};
use canju::puzzle::words::{self, Lang};
use canju::puzzle::{Feedback, Judge, Puzzle};

use super::CliError;
use super::common::puzzle_error;

fn draw_board(pos: &Position) {
    out!(
        "{}",
        canju::render::terminal::board(pos, super::board::board_style(false))
    );
}

/// Plays a puzzle from standard input, speaking `lang`; the outcome counts for the
/// player's progress.
pub fn play(p: &Puzzle, judge: &Judge, lang: Lang) -> Result<Outcome, CliError> {
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let player = p.goal.side;
    let zh = lang == Lang::Zh;
    let mut a = Attempt::new(p, judge);
    draw_board(a.position());
    outln!("{} · {}", p.entry.id, p.entry.title);
    if zh {
        outln!("目标：{}", p.goal_words(lang));
    } else {
        outln!("goal: {}", p.goal_words(lang));
    }
    if let Some(rules) = judge.rules() {
        if zh {
            outln!("棋规：{}", rules.describe_zh());
        } else {
            outln!("rules: {}", rules.describe());
        }
    }
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            match (a.status(), zh) {
                (Status::AfterMistake(m), true) => {
                    out!("{m} 是错着（undo 悔棋, solution 答案, board 棋盘, quit 退出）> ")
                }
                (Status::AfterMistake(m), false) => {
                    out!("{m} was a mistake (undo, solution, board, quit)> ")
                }
                (_, true) => out!(
                    "{}走（着法, hint 提示, undo 悔棋, solution 答案, board 棋盘, quit 退出）> ",
                    words::side(lang, player)
                ),
                (_, false) => out!(
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
                let h = a.hint().map_err(puzzle_error)?;
                outln!("{}", words::hint(lang, &h));
                continue;
            }
            "undo" => {
                if a.undo() {
                    draw_board(a.position());
                } else if zh {
                    outln!("没有可悔的着法");
                } else {
                    outln!("nothing to take back");
                }
                continue;
            }
            "solution" => {
                let line = a.solution().map_err(puzzle_error)?;
                match (line.is_empty(), zh) {
                    (true, true) => outln!("答案：此处已无着法能达成目标（undo 悔棋）"),
                    (true, false) => {
                        outln!("solution: no move keeps the goal from here (undo)")
                    }
                    (false, true) => outln!("答案：{}", line.join(" ")),
                    (false, false) => outln!("solution: {}", line.join(" ")),
                }
                continue;
            }
            _ => {}
        }
        if let Status::AfterMistake(m) = a.status() {
            if zh {
                outln!("{t}：{m} 已失去目标，请先悔棋（undo）");
            } else {
                outln!("{t}: {m} lost the goal; take it back first (undo)");
            }
            continue;
        }
        let r = match a.play_text(t) {
            Ok(r) => r,
            Err(AttemptError::Move(e)) => {
                outln!("{e}");
                continue;
            }
            Err(AttemptError::Puzzle(e)) => return Err(puzzle_error(e)),
            Err(e @ AttemptError::NotPlayersMove) => return Err(CliError::input(e)),
        };
        outln!("{}", words::judgement(lang, p.goal, &r));
        if r.feedback == Feedback::Mistake {
            continue;
        }
        if let Some(d) = &r.defence {
            outln!("{}", words::reply(lang, p.goal, !player, d));
        }
        match r.ending {
            Some(end) => {
                if !matches!(end, Ending::DrawHolds) {
                    draw_board(a.position());
                }
                outln!("{}", words::ending(lang, end));
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
