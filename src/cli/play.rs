//! Playing a puzzle: the player types moves in any notation (or `hint`, `undo`,
//! `solution`, `board`, `quit`); canju judges each move by perfect play and answers with
//! perfect defence ([`canju::puzzle::attempt`]). On a terminal it prompts; otherwise it
//! reads the same commands line by line, so a script can play a whole puzzle.

use std::io::{BufRead, IsTerminal};

use canju::Color;
use canju::puzzle::attempt::{Attempt, AttemptError, Ending, Outcome, Status};
use canju::puzzle::progress::Finish;
use canju::puzzle::words::{self, Lang};
use canju::puzzle::{Feedback, Judge, Puzzle, PuzzleError};

use super::CliError;
use super::common::puzzle_error;

/// The board as the player sees it (turned when the player is black, 黑先), the last move
/// marked, and its last line (who is to move) in the trainer's language.
fn draw_board(a: &Attempt, player: Color, lang: Lang) {
    let pos = a.position();
    let view = canju::render::terminal::View {
        black_below: player == Color::Black,
        last: a.last_move(),
        numbers: true,
    };
    out!(
        "{}",
        // (in English the letters' board, with ICCS coordinates and no Chinese labels)
        canju::render::terminal::grid_seen(pos, super::board::board_style(lang == Lang::En), view)
    );
    outln!("{}", words::to_move(lang, pos.turn()));
}

/// Plays a puzzle from standard input, speaking `lang`; the outcome counts for the
/// player's progress. `on_help` runs the first time a hint or the solution is shown (the
/// attempt is recorded then, whether or not the player goes on).
pub fn play(
    p: &Puzzle,
    judge: &Judge,
    lang: Lang,
    on_help: &mut dyn FnMut(Finish),
) -> Result<Outcome, CliError> {
    let mut recorded = false;
    // the first help shown records the attempt: with help, or failed after a mistake
    let mut help = |a: &Attempt, recorded: &mut bool| {
        if a.helped() && !std::mem::replace(recorded, true) {
            on_help(match a.outcome() {
                Outcome::Failed => Finish::Failed,
                _ => Finish::Helped,
            });
        }
    };
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let player = p.goal.side;
    let zh = lang == Lang::Zh;
    let mut a = Attempt::new(p, judge);
    draw_board(&a, player, lang);
    outln!("{} · {}", p.entry.id, p.title(lang));
    if zh {
        outln!("目标：{}", p.goal_words(lang));
    } else {
        outln!("goal: {}", p.goal_words(lang));
    }
    if let Some(rules) = judge.rules() {
        if zh {
            outln!("棋规：{}", rules.describe_zh());
        } else {
            outln!("rules: {}", rules.describe_en());
        }
    }
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            match (a.status(), zh) {
                (Status::AfterMistake(m), true) => {
                    out!("{m} 是错着（悔棋、答案、棋盘、退出）> ")
                }
                (Status::AfterMistake(m), false) => {
                    out!("{} was a mistake (undo, solution, board, quit)> ", m.wxf)
                }
                (_, true) => out!(
                    "{}走（着法，或 提示、悔棋、答案、棋盘、退出）> ",
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
            "quit" | "q" | "exit" | "退出" => return Ok(a.outcome()),
            "board" | "棋盘" => {
                draw_board(&a, player, lang);
                continue;
            }
            "hint" | "提示" => {
                let h = a.hint().map_err(puzzle_error)?;
                outln!("{}", words::hint(lang, &h));
                help(&a, &mut recorded);
                continue;
            }
            "undo" | "悔棋" => {
                if a.undo() {
                    draw_board(&a, player, lang);
                } else if zh {
                    outln!("没有可悔的着法");
                } else {
                    outln!("nothing to take back");
                }
                continue;
            }
            "solution" | "答案" => {
                let line = a.solution().map_err(puzzle_error)?;
                outln!("{}", words::solution(lang, &line));
                help(&a, &mut recorded);
                continue;
            }
            _ => {}
        }
        if let Status::AfterMistake(m) = a.status() {
            if zh {
                outln!("{t}：{m} 已失去目标，请先悔棋");
            } else {
                outln!("{t}: {} lost the goal; take it back first (undo)", m.wxf);
            }
            continue;
        }
        let r = match a.play_text(t) {
            Ok(r) => r,
            Err(AttemptError::Move(e)) => {
                outln!("{}", words::move_error(lang, a.position(), &e));
                continue;
            }
            Err(AttemptError::Puzzle(PuzzleError::Stopped)) => {
                // (a long composition's move off its proven line, not judged in the time:
                // the attempt is as it was)
                if zh {
                    outln!("{t}：未能在限时内判定这步棋（长局，偏离已证明的主线），请另走一步");
                } else {
                    outln!(
                        "{t}: canju could not judge this move in the time (a long composition, off its proven line); try another"
                    );
                }
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
                    draw_board(&a, player, lang);
                }
                let clean = !matches!(a.status(), Status::Solved { clean: false });
                outln!("{}", words::finished(lang, end, clean));
            }
            // no defence and no end: the judge found no reply
            None if r.defence.is_none() => return Ok(Outcome::Quit),
            None => {
                if interactive {
                    draw_board(&a, player, lang);
                }
                continue;
            }
        }
        return Ok(a.outcome());
    }
}
