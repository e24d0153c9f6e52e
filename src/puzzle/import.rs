//! Reading compositions from other formats: xiangqi PGN with a FEN tag (moves in Chinese,
//! WXF or ICCS) and DhtmlXQ (`[DhtmlXQ_binit]`, `[DhtmlXQ_movelist]`). Each game becomes a
//! puzzle entry; checking it under perfect play is the caller's part.

use crate::notation::{self, Notation, Style};
use crate::piece::{Color, Kind, Piece};
use crate::position::{Position, Setup};
use crate::square::Square;

/// A game read from a file: where it starts, its moves and its tags.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1-based number of the game in the file.
    pub number: usize,
    pub title: Option<String>,
    pub source: Option<String>,
    pub position: Position,
    pub moves: Vec<crate::moves::Move>,
    /// "1-0", "0-1", "1/2-1/2" when given.
    pub result: Option<String>,
}

/// A game that could not be read, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub number: usize,
    pub reason: String,
}

/// Reads every game of a file in either format (DhtmlXQ when the text has `[DhtmlXQ`).
pub fn read(text: &str) -> (Vec<Game>, Vec<Rejected>) {
    // a byte-order mark, as Windows editors write them, is not part of the text
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains("[DhtmlXQ") {
        read_dhtmlxq(text)
    } else {
        read_pgn(text)
    }
}

fn split_games_pgn(text: &str) -> Vec<String> {
    // a game starts at a tag line that follows move text (or at the first tag)
    let mut games = Vec::new();
    let mut current = String::new();
    let mut in_moves = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') && in_moves {
            games.push(std::mem::take(&mut current));
            in_moves = false;
        }
        if !t.is_empty() && !t.starts_with('[') {
            in_moves = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        games.push(current);
    }
    games
}

fn tag<'a>(game: &'a str, name: &str) -> Option<&'a str> {
    game.lines().find_map(|l| {
        let t = l.trim();
        let inner = t.strip_prefix('[')?.strip_suffix(']')?;
        let (key, value) = inner.split_once(char::is_whitespace)?;
        if key.eq_ignore_ascii_case(name) {
            Some(value.trim().trim_matches('"'))
        } else {
            None
        }
    })
}

/// Xiangqi PGN: tags, then move text with move numbers, comments in braces, and a result.
pub fn read_pgn(text: &str) -> (Vec<Game>, Vec<Rejected>) {
    let mut games = Vec::new();
    let mut rejected = Vec::new();
    for (i, g) in split_games_pgn(text).iter().enumerate() {
        let number = i + 1;
        let reject = |reason: String| Rejected { number, reason };
        let Some(fen) = tag(g, "FEN") else {
            rejected.push(reject("no FEN tag".into()));
            continue;
        };
        let position: Position = match fen.parse() {
            Ok(p) => p,
            Err(e) => {
                rejected.push(reject(format!("FEN: {e}")));
                continue;
            }
        };
        // move text: without tags and comments
        let mut body = String::new();
        let mut depth = 0;
        for line in g.lines().filter(|l| !l.trim_start().starts_with('[')) {
            for c in line.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth = (depth - 1).max(0),
                    _ if depth == 0 => body.push(c),
                    _ => {}
                }
            }
            body.push(' ');
        }
        let mut pos = position.clone();
        let mut moves = Vec::new();
        let mut result = tag(g, "Result").map(str::to_string);
        let mut bad = None;
        for token in body.split_whitespace() {
            if ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
                result = Some(token.to_string()).filter(|r| r != "*").or(result);
                continue;
            }
            // move numbers: "1." "12..." or "1.炮二平五"
            let t = token.trim_start_matches(|c: char| c.is_ascii_digit());
            let t = if t.len() < token.len() && t.starts_with('.') {
                t.trim_start_matches('.')
            } else {
                token
            };
            if t.is_empty() {
                continue;
            }
            match notation::parse_move(&pos, t) {
                Ok(m) => {
                    pos.play_unchecked(m);
                    moves.push(m);
                }
                Err(e) => {
                    bad = Some(format!("move {} '{t}': {e}", moves.len() + 1));
                    break;
                }
            }
        }
        if let Some(reason) = bad {
            rejected.push(reject(reason));
            continue;
        }
        games.push(Game {
            number,
            title: tag(g, "Event").map(str::to_string),
            source: tag(g, "Site")
                .or_else(|| tag(g, "Annotator"))
                .map(str::to_string),
            position,
            moves,
            result,
        });
    }
    (games, rejected)
}

/// The pieces of `[DhtmlXQ_binit]` in order: red 车马相仕帅仕相马车炮炮兵兵兵兵兵, then black.
const BINIT_ORDER: [Kind; 16] = [
    Kind::Chariot,
    Kind::Horse,
    Kind::Elephant,
    Kind::Advisor,
    Kind::General,
    Kind::Advisor,
    Kind::Elephant,
    Kind::Horse,
    Kind::Chariot,
    Kind::Cannon,
    Kind::Cannon,
    Kind::Soldier,
    Kind::Soldier,
    Kind::Soldier,
    Kind::Soldier,
    Kind::Soldier,
];

/// A DhtmlXQ point: x the file from red's left (0–8), y the row from black's side (0–9).
fn dhtml_square(x: u8, y: u8) -> Option<Square> {
    if x > 8 || y > 9 {
        return None;
    }
    Square::new((9 - y) * 9 + x)
}

fn digits(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| c.to_digit(10).map(|d| d as u8)).collect()
}

/// DhtmlXQ blocks: `[DhtmlXQ_binit]…[/DhtmlXQ_binit]` (64 digits, `99` for a piece off
/// the board), `[DhtmlXQ_movelist]…` (four digits a move), `[DhtmlXQ_title]`; the side to
/// move is red unless `[DhtmlXQ_firstside]` says 1.
pub fn read_dhtmlxq(text: &str) -> (Vec<Game>, Vec<Rejected>) {
    let block = |game: &str, name: &str| -> Option<String> {
        let open = format!("[DhtmlXQ_{name}]");
        let close = format!("[/DhtmlXQ_{name}]");
        let start = game.find(&open)? + open.len();
        let end = game[start..].find(&close)? + start;
        Some(game[start..end].trim().to_string())
    };
    let mut games = Vec::new();
    let mut rejected = Vec::new();
    // one game per [DhtmlXQ] … [/DhtmlXQ] (or the whole text)
    let parts: Vec<&str> = if text.contains("[/DhtmlXQ]") {
        text.split("[/DhtmlXQ]")
            .filter(|p| p.contains("[DhtmlXQ"))
            .collect()
    } else {
        vec![text]
    };
    for (i, g) in parts.iter().enumerate() {
        let number = i + 1;
        let reject = |reason: &str| Rejected {
            number,
            reason: reason.to_string(),
        };
        let Some(init) = block(g, "binit") else {
            rejected.push(reject("no [DhtmlXQ_binit]"));
            continue;
        };
        let Some(d) = digits(&init).filter(|d| d.len() == 64) else {
            rejected.push(reject("[DhtmlXQ_binit] is not 64 digits"));
            continue;
        };
        let turn = match block(g, "firstside").as_deref() {
            Some("1") => Color::Black,
            _ => Color::Red,
        };
        let mut setup = Setup::empty(turn);
        let mut problem = None;
        for (k, pair) in d.chunks(2).enumerate() {
            if pair == [9, 9] {
                continue;
            }
            let color = if k < 16 { Color::Red } else { Color::Black };
            match dhtml_square(pair[0], pair[1]) {
                Some(s) if setup.piece_at(s).is_some() => {
                    problem.get_or_insert(format!(
                        "[DhtmlXQ_binit] puts two pieces on {s} (pieces {} and {})",
                        d.chunks(2).position(|q| q == pair).map_or(0, |i| i + 1),
                        k + 1
                    ));
                }
                Some(s) => {
                    setup.put(s, Piece::new(color, BINIT_ORDER[k % 16]));
                }
                None => {
                    problem.get_or_insert("[DhtmlXQ_binit] has a point off the board".into());
                }
            }
        }
        if let Some(reason) = problem {
            rejected.push(reject(&reason));
            continue;
        }
        let position = match setup.into_position() {
            Ok(p) => p,
            Err(e) => {
                rejected.push(Rejected {
                    number,
                    reason: format!("position: {e}"),
                });
                continue;
            }
        };
        let list = block(g, "movelist").unwrap_or_default();
        let Some(md) = digits(&list).filter(|d| d.len() % 4 == 0) else {
            rejected.push(reject("[DhtmlXQ_movelist] is not groups of four digits"));
            continue;
        };
        let mut pos = position.clone();
        let mut moves = Vec::new();
        let mut bad = None;
        for (j, q) in md.chunks(4).enumerate() {
            let (Some(from), Some(to)) = (dhtml_square(q[0], q[1]), dhtml_square(q[2], q[3]))
            else {
                bad = Some(format!("move {}: a point off the board", j + 1));
                break;
            };
            let m = crate::moves::Move::new(from, to);
            if !pos.is_legal(m) {
                let text = m.to_string();
                bad = Some(format!("move {} ({text}) is not legal", j + 1));
                break;
            }
            pos.play_unchecked(m);
            moves.push(m);
        }
        if let Some(reason) = bad {
            rejected.push(Rejected { number, reason });
            continue;
        }
        games.push(Game {
            number,
            title: block(g, "title"),
            source: block(g, "event").or_else(|| block(g, "author")),
            position,
            moves,
            result: None,
        });
    }
    (games, rejected)
}

/// The Chinese text of a game's moves.
pub fn chinese_line(game: &Game) -> Vec<String> {
    let mut p = game.position.clone();
    game.moves
        .iter()
        .map(|&m| {
            let t = notation::format_move(&p, m, Notation::Chinese, Style::default());
            p.play_unchecked(m);
            t
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dhtmlxq_start_position() {
        let text = "[DhtmlXQ][DhtmlXQ_binit]8979695949392919097717866646260600102030405060708012720323436383[/DhtmlXQ_binit][DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist][/DhtmlXQ]";
        let (games, rejected) = read(text);
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!(games[0].position, Position::start());
        assert_eq!(chinese_line(&games[0]), ["炮二平五", "马８进７"]);
    }

    #[test]
    fn pgn_with_numbers_comments_and_mixed_notation() {
        let text = "[Event \"t\"]\n[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\"]\n\n1. C2.5 {central cannon} h9g7 2.马二进三 *\n";
        let (games, rejected) = read(text);
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!(games[0].moves.len(), 3);
        assert_eq!(games[0].title.as_deref(), Some("t"));
    }
}
