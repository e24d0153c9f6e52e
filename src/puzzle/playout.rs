//! A stated draw (正和) played out: a line from the composition to a position the tables
//! decide. Each move is one after which the other side has no forced win within a few
//! moves (and not a move into a position the tables call lost for the mover), captures
//! first, since they bring the material down to what a table holds. A side left without
//! such a move has erred earlier: the line goes back to that side's previous move and tries
//! its next one (depth first, within the time), as it does when the line reaches a table
//! position won for a side. The tables give the end position's exact value: a draw there
//! is the book's draw reached by a line in which neither side let the other force a win
//! within the bound. It is a line, not a proof that the composition is a draw: a side may
//! have a longer win that the line passes by (the audit's own search for the stated
//! side's win says how far that was ruled out). At the composition itself, though, "every
//! move loses within the bound" is a proof that the side to move loses.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::game::material::Material;
use crate::game::moves::Move;
use crate::game::piece::{Color, Kind};
use crate::game::position::Position;
use crate::notation::{self, Notation, Style};
use crate::solver::{Options, SolveError, Solver};
use crate::tablebase::index::MAX_PIECES;
use crate::tablebase::{TableError, Tablebase, Value};

/// The longest line played out, in plies.
pub const MAX_LINE_PLIES: usize = 300;

/// How a line ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineEnd {
    /// At a position the tables call a draw.
    TableDraw,
    /// At a position the tables call a win for red.
    TableRedWins,
    /// At a position the tables call a win for black.
    TableBlackWins,
    /// At the composition itself, every move of the side to move is proven to lose within
    /// the bound: a proof that it loses.
    NoSafeMove,
    /// Every line tried ran into a dead end (a side left with no safe move that does not
    /// repeat a position of the line, or a position the tables call lost for it).
    NoLine,
    /// The time ran out first.
    Time,
    /// [`MAX_LINE_PLIES`] plies without reaching a table.
    TooLong,
    /// The side that moved last mated (or stalemated) the other.
    GameOver,
}

impl LineEnd {
    /// In a few words.
    pub fn describe(self) -> &'static str {
        match self {
            LineEnd::TableDraw => "a table draw",
            LineEnd::TableRedWins => "a table win for red",
            LineEnd::TableBlackWins => "a table win for black",
            LineEnd::NoSafeMove => "every move of the side to move lost within the bound",
            LineEnd::NoLine => "a dead end on every line tried",
            LineEnd::Time => "the end of its time",
            LineEnd::TooLong => "no table within the longest line",
            LineEnd::GameOver => "a mate on the board",
        }
    }
}

/// A line played out, and where it ended.
#[derive(Clone, Debug, Serialize)]
pub struct PlayedLine {
    /// The moves in Chinese notation, both sides'.
    pub line: Vec<String>,
    /// How it ended.
    pub end: LineEnd,
    /// The material at its end, in Chinese (e.g. 车对士象全).
    pub material: String,
    /// Where it ended.
    pub fen: String,
    /// No move of the line lets the other side force a win within this many moves.
    pub safe_within: u32,
}

/// What a line is allowed.
#[derive(Clone, Debug)]
pub struct LineOptions {
    /// A move is safe when the other side has no forced win within this many moves after
    /// it.
    pub safe_moves: u32,
    /// The time the whole line may take.
    pub seconds: f64,
    /// The rules the safety proofs are made under (those of the tables read).
    pub rules: crate::tablebase::Rules,
}

/// A piece's worth, for the order captures are tried in (the most valuable victim first).
fn worth(kind: Kind) -> u32 {
    match kind {
        Kind::Chariot => 9,
        Kind::Cannon => 5,
        Kind::Horse => 4,
        Kind::Advisor | Kind::Elephant => 2,
        Kind::Soldier => 1,
        Kind::General => 0,
    }
}

/// The tables' value of a position, when its material has a table there (`None` for a
/// composed placement, a material without a table, or more pieces than a table holds).
pub(super) fn table_value(
    tb: Option<&Tablebase>,
    pos: &Position,
) -> Result<Option<Value>, TableError> {
    let Some(tb) = tb else { return Ok(None) };
    if pos.piece_count() > MAX_PIECES || pos.unreachable_piece().is_some() {
        return Ok(None);
    }
    let material = Material::of(pos).canonical();
    if tb.table_if_present(material)?.is_none() {
        return Ok(None);
    }
    tb.probe(pos).map(Some)
}

/// A line in Chinese notation.
pub(super) fn chinese(pos: &Position, line: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    line.iter()
        .map(|&m| {
            let text = notation::format_move(&p, m, Notation::Chinese, Style::default());
            p.play_unchecked(m);
            text
        })
        .collect()
}

/// The end a table's value makes, for a position with `turn` to move.
fn table_end(v: Value, turn: Color) -> LineEnd {
    let mover_wins = match v {
        Value::Draw => return LineEnd::TableDraw,
        Value::Win(_) | Value::RuleWin(_) => true,
        Value::Loss(_) | Value::RuleLoss(_) => false,
    };
    if mover_wins == (turn == Color::Red) {
        LineEnd::TableRedWins
    } else {
        LineEnd::TableBlackWins
    }
}

/// One move of the line being played: the position before it, the moves of its side in
/// the order tried, and the next one to try if the line comes back here.
struct Frame {
    pos: Position,
    moves: Vec<Move>,
    next: usize,
}

/// Plays a line out from `start` (see the module's text). When the side to move has no
/// safe move, the line goes back to that side's previous move and tries its next safe one
/// (depth first, within the time), as it does when every safe move repeats a position of
/// the line.
pub fn play_out(
    solver: &mut Solver,
    start: &Position,
    options: &LineOptions,
    tb: &Tablebase,
) -> Result<PlayedLine, SolveError> {
    let deadline = Instant::now() + Duration::from_secs_f64(options.seconds);
    let mut frames: Vec<Frame> = Vec::new();
    let mut pos = start.clone();
    let mut moves = ordered(&pos);
    let mut next = 0;
    // whether a move of the composition's was found safe (else, when every one was proven
    // unsafe, it loses)
    let mut root_safe = false;
    let mut root_unknown = false;
    // the first line that reached a table (a win for a side), reported if no draw is found
    let mut decided: Option<(Vec<Move>, LineEnd, Position)> = None;
    let line_of =
        |frames: &[Frame]| -> Vec<Move> { frames.iter().map(|f| f.moves[f.next - 1]).collect() };
    let end = loop {
        let dead_end = if let Some(v) = table_value(Some(tb), &pos)? {
            let end = table_end(v, pos.turn());
            if end == LineEnd::TableDraw {
                break end;
            }
            // a win for a side: the other side's last move (it did not move into a lost
            // table position, safe_move sees to that) let it in; that side tries another
            if decided.is_none() {
                decided = Some((line_of(&frames), end, pos.clone()));
            }
            true
        } else if pos.game_end().is_some() {
            break LineEnd::GameOver;
        } else if frames.len() >= MAX_LINE_PLIES {
            break LineEnd::TooLong;
        } else {
            let path: Vec<u64> = frames.iter().map(|f| f.pos.key()).collect();
            let choice = safe_move(solver, &pos, &moves[next..], &path, options, tb, deadline)?;
            if frames.is_empty() {
                root_safe |= matches!(choice, Choice::Move(_));
            }
            match choice {
                Choice::Move(i) => {
                    let m = moves[next + i];
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    frames.push(Frame {
                        pos: std::mem::replace(&mut pos, after),
                        moves: std::mem::take(&mut moves),
                        next: next + i + 1,
                    });
                    moves = ordered(&pos);
                    next = 0;
                    false
                }
                Choice::Time => break LineEnd::Time,
                Choice::Unknown => {
                    root_unknown |= frames.is_empty();
                    true
                }
                Choice::None => true,
            }
        };
        if dead_end {
            // back to the previous move of the side that has no way on here (the side to
            // move, or the loser of a table position), to try its next safe one; from the
            // first reply, back to the composition's first move
            let back = match frames.len() {
                0 => {
                    break if root_safe || root_unknown {
                        LineEnd::NoLine
                    } else {
                        LineEnd::NoSafeMove
                    };
                }
                1 => 1,
                _ => 2,
            };
            frames.truncate(frames.len() - (back - 1));
            let f = frames.pop().expect("a frame to go back to");
            pos = f.pos;
            moves = f.moves;
            next = f.next;
        }
    };
    let (line, end, pos) = match (end, decided) {
        (LineEnd::TableDraw | LineEnd::GameOver | LineEnd::TooLong, _) | (_, None) => {
            (line_of(&frames), end, pos)
        }
        (_, Some(d)) => d,
    };
    Ok(PlayedLine {
        line: chinese(start, &line),
        end,
        material: Material::of(&pos).chinese(),
        fen: pos.to_string(),
        safe_within: options.safe_moves,
    })
}

enum Choice {
    /// The index of the first safe move among those given.
    Move(usize),
    /// Every move is proven to lose within the bound, or repeats a position of the line.
    None,
    /// As `None`, but a safety proof ran out of its time on some move.
    Unknown,
    Time,
}

/// A position's moves in the order a line tries them: captures (the most valuable victim
/// first, then the least valuable capturer), then checks, then the other pieces' moves,
/// the general's last.
fn ordered(pos: &Position) -> Vec<Move> {
    let mut list: Vec<Move> = pos.legal_moves().iter().copied().collect();
    // (the key once a move: it plays the move to test the check)
    list.sort_by_cached_key(|&m| {
        let victim = pos.piece_at(m.to()).map_or(0, |p| worth(p.kind));
        let mover = pos.piece_at(m.from()).map(|p| p.kind);
        (
            std::cmp::Reverse(victim),
            mover.map_or(0, worth),
            !pos.gives_check(m),
            mover == Some(Kind::General),
        )
    });
    list
}

/// The first of `moves` after which the other side has no forced win within the bound and
/// which does not repeat a position of the line (`path`, the positions before this one).
fn safe_move(
    solver: &mut Solver,
    pos: &Position,
    moves: &[Move],
    path: &[u64],
    options: &LineOptions,
    tb: &Tablebase,
    deadline: Instant,
) -> Result<Choice, SolveError> {
    let mover = pos.turn();
    let mut unknown = false;
    for (i, &m) in moves.iter().enumerate() {
        let now = Instant::now();
        if now >= deadline {
            return Ok(Choice::Time);
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        if path.contains(&after.key()) {
            continue;
        }
        if after.game_end().is_some() {
            // (a mate or a stalemate of the other side, which the search for a win has
            // found already when it is the composition's side: the line ends there)
            return Ok(Choice::Move(i));
        }
        // a position the tables decide is safe unless they say the mover loses there
        match table_value(Some(tb), &after) {
            Ok(Some(v)) => {
                let lost = table_end(v, after.turn())
                    == if mover == Color::Red {
                        LineEnd::TableBlackWins
                    } else {
                        LineEnd::TableRedWins
                    };
                if !lost {
                    return Ok(Choice::Move(i));
                }
                continue;
            }
            Ok(None) => {}
            Err(e) => return Err(SolveError::from(e)),
        }
        let mut o = Options::new(options.safe_moves);
        o.rules = options.rules;
        o.time = Some((deadline - now).min(Duration::from_secs(2)));
        match solver.mate_distance(
            &after,
            mover.other(),
            2 * options.safe_moves - 1,
            &o,
            Some(tb),
        ) {
            Ok(None) => return Ok(Choice::Move(i)),
            Ok(Some(_)) => {}
            Err(SolveError::Stopped) => unknown = true,
            Err(e) => return Err(e),
        }
    }
    Ok(if unknown {
        Choice::Unknown
    } else {
        Choice::None
    })
}
