//! `canju puzzle list | show | check`.

use std::path::PathBuf;

use canju::notation::{self, Notation, Style};
use canju::puzzle::{self, Feedback, Judge, Puzzle};
use canju::tablebase::Tablebase;
use canju::{Move, Position};

use super::tb::table_dir;
use super::{CliError, CliResult};

/// The collections: `--puzzles DIR` (every `*.toml` in it), else the built-in ones.
pub fn collections(dir: &Option<PathBuf>) -> Result<Vec<Puzzle>, CliError> {
    let r = match dir {
        Some(d) => puzzle::load_dir(d),
        None => puzzle::load_builtin(),
    };
    r.map_err(|e| CliError {
        code: 1,
        message: e.to_string(),
    })
}

fn find<'a>(all: &'a [Puzzle], id: &str) -> Result<&'a Puzzle, CliError> {
    all.iter().find(|p| p.entry.id == id).ok_or_else(|| {
        CliError::input(format!(
            "no puzzle '{id}' (`canju puzzle list` shows the {} there are)",
            all.len()
        ))
    })
}

#[derive(serde::Serialize)]
struct ListJson<'a> {
    id: &'a str,
    title: &'a str,
    collection: &'a str,
    source: &'a str,
    fen: &'a str,
    goal: &'a str,
    moves: Option<u32>,
    line: Vec<String>,
    tags: &'a [String],
    difficulty: u8,
}

pub fn list(
    dir: &Option<PathBuf>,
    tag: &Option<String>,
    collection: &Option<String>,
    json: bool,
) -> CliResult {
    let all = collections(dir)?;
    let chosen: Vec<&Puzzle> = all
        .iter()
        .filter(|p| tag.as_ref().is_none_or(|t| p.entry.tags.contains(t)))
        .filter(|p| collection.as_ref().is_none_or(|c| &p.collection == c))
        .collect();
    if json {
        let out: Vec<ListJson> = chosen
            .iter()
            .map(|p| ListJson {
                id: &p.entry.id,
                title: &p.entry.title,
                collection: &p.collection,
                source: &p.entry.source,
                fen: &p.entry.fen,
                goal: &p.entry.goal,
                moves: p.entry.moves,
                line: p.line.iter().map(|m| m.to_string()).collect(),
                tags: &p.entry.tags,
                difficulty: p.entry.difficulty,
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(CliError::input)?
        );
        return Ok(());
    }
    for p in &chosen {
        let stip = p.entry.moves.map_or(String::new(), |n| format!(" in {n}"));
        outln!(
            "{:<12} {}{stip}  {}  ★{}  {}",
            p.entry.id,
            p.goal,
            p.entry.title,
            p.entry.difficulty,
            p.entry.tags.join(" ")
        );
    }
    if chosen.is_empty() {
        outln!("no puzzle matches");
    }
    Ok(())
}

pub fn show(dir: &Option<PathBuf>, id: &str) -> CliResult {
    let all = collections(dir)?;
    let p = find(&all, id)?;
    out!(
        "{}",
        canju::render::terminal::board(&p.position, super::board::board_style(false))
    );
    outln!("{}", p.entry.fen);
    outln!("{} · {} ({})", p.entry.id, p.entry.title, p.collection);
    match p.entry.moves {
        Some(n) => outln!(
            "goal: {} within {n} move{}",
            p.goal,
            if n == 1 { "" } else { "s" }
        ),
        None => outln!("goal: {}", p.goal),
    }
    outln!("source: {}", p.entry.source);
    outln!(
        "tags: {}  difficulty: {}",
        p.entry.tags.join(" "),
        p.entry.difficulty
    );
    Ok(())
}

#[derive(serde::Serialize)]
struct CheckedMove {
    #[serde(rename = "move")]
    mv: String,
    by: &'static str,
    feedback: &'static str,
    plies_left: u32,
}

#[derive(serde::Serialize)]
struct CheckJson {
    id: String,
    solved: bool,
    moves: Vec<CheckedMove>,
    refutation: Option<String>,
}

/// `canju puzzle check ID MOVE...`: the player's moves alone (canju answers for the
/// defender) or the full line with the defender's moves (any legal defence is accepted).
pub fn check(
    dir: &Option<PathBuf>,
    tables: &Option<PathBuf>,
    id: &str,
    moves: &[String],
    json: bool,
) -> CliResult {
    let all = collections(dir)?;
    let p = find(&all, id)?;
    let tb = Tablebase::new(table_dir(tables)?);
    let judge = Judge::new(Some(&tb));
    let fail = |e: puzzle::PuzzleError| CliError {
        code: 1,
        message: e.to_string(),
    };
    let player = p.goal.side;
    let mut pos: Position = p.position.clone();
    let mut left = p.budget();
    let mut out = Vec::new();
    let mut slowers: Vec<Option<u32>> = Vec::new();
    let mut refutation: Option<(Position, Move)> = None;
    let mut given = moves.iter().peekable();
    let style = Style::default();
    let text = |pos: &Position, m: Move| notation::format_move(pos, m, Notation::Chinese, style);
    let mut failed = false;
    while let Some(t) = given.next() {
        // the player's move
        let m =
            notation::parse_move(&pos, t).map_err(|e| CliError::input(format!("'{t}': {e}")))?;
        let f = judge.judge(&pos, m, p.goal, left).map_err(fail)?;
        slowers.push(match f {
            Feedback::Good { slower } => Some(slower),
            _ => None,
        });
        out.push(CheckedMove {
            mv: text(&pos, m),
            by: "player",
            feedback: f.name(),
            plies_left: left,
        });
        pos.play_unchecked(m);
        left = left.saturating_sub(1);
        if f == Feedback::Mistake {
            if let Some(r) = judge.defence(&pos, player, left).map_err(fail)? {
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
        slowers.push(None);
        out.push(CheckedMove {
            mv: text(&pos, d),
            by: "defender",
            feedback: if Some(d) == best { "best" } else { "good" },
            plies_left: left,
        });
        pos.play_unchecked(d);
        left = left.saturating_sub(1);
    }
    let solved = !failed
        && if p.goal.win {
            pos.legal_moves().is_empty() && pos.turn() != player
        } else {
            out.iter().filter(|m| m.by == "player").count() * 2 >= p.line.len()
        };
    let refutation_text = refutation.as_ref().map(|(pos, m)| text(pos, *m));
    let last_move = out.last().map_or(String::new(), |m| m.mv.clone());
    if json {
        let j = CheckJson {
            id: p.entry.id.clone(),
            solved,
            moves: out,
            refutation: refutation_text.clone(),
        };
        outln!(
            "{}",
            serde_json::to_string_pretty(&j).map_err(CliError::input)?
        );
    } else {
        for (m, slower) in out.iter().zip(&slowers) {
            let detail = match slower {
                Some(n) => format!(
                    "good: still winning, {n} move{} slower than the best",
                    if *n == 1 { "" } else { "s" }
                ),
                None => m.feedback.to_string(),
            };
            let width: usize = m.mv.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
            let pad = " ".repeat(10usize.saturating_sub(width));
            outln!("{:<8} {}{pad}{detail}", m.by, m.mv);
        }
        if let Some(r) = &refutation_text {
            outln!("refutation: {r}");
        }
        if solved {
            outln!("solved: {} ({})", p.entry.id, p.goal);
        } else if !failed {
            outln!("not solved yet: the line stops before the goal is reached");
        }
    }
    if solved {
        Ok(())
    } else {
        Err(CliError {
            code: 1,
            message: if failed {
                format!(
                    "{}: {} loses the goal{}",
                    p.entry.id,
                    last_move,
                    refutation_text.map_or(String::new(), |r| format!("; refutation: {r}"))
                )
            } else {
                format!("{}: not solved: the line ends before the goal", p.entry.id)
            },
        })
    }
}
