//! Reading compositions from other formats: xiangqi PGN with a FEN tag (moves in Chinese,
//! WXF or ICCS) and DhtmlXQ (`[DhtmlXQ_binit]`, `[DhtmlXQ_movelist]`). Each game becomes a
//! puzzle entry; checking it under perfect play is the caller's part.

use std::path::{Path, PathBuf};

use crate::files;
use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::{Position, Setup};
use crate::game::square::Square;
use crate::notation::{self, Notation, Style};

use super::{Entry, Goal, Judge, Puzzle, PuzzleError, load_str};

/// A game read from a file: where it starts, its moves and its tags.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1-based number of the game in the file.
    pub number: usize,
    /// Its title, when the file gives one.
    pub title: Option<String>,
    /// Its source, when the file gives one.
    pub source: Option<String>,
    /// Where it starts.
    pub position: Position,
    /// Its moves.
    pub moves: Vec<crate::game::moves::Move>,
    /// "1-0", "0-1", "1/2-1/2" when given.
    pub result: Option<String>,
}

/// A game that could not be read, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// 1-based number of the game in the file.
    pub number: usize,
    /// Why it was not read.
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
            let m = crate::game::moves::Move::new(from, to);
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

/// What an import added, and what it did not with the reasons.
#[derive(Clone, Debug)]
pub struct ImportReport {
    /// The collection file written (or that would have been).
    pub target: PathBuf,
    /// The ids of the puzzles added.
    pub added: Vec<String>,
    /// The games not added, by number.
    pub rejected: Vec<Rejected>,
}

/// Why an import could not be done at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The collection's name is not a plain word.
    #[error("the collection name '{0}': letters, digits, - and _ only")]
    CollectionName(String),
    /// A file could not be read or written.
    #[error("{path}: {}", crate::tablebase::format::io_message(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file is not UTF-8 text.
    #[error("{0}: not UTF-8 text")]
    NotUtf8(PathBuf),
    /// The collection there cannot be read.
    #[error(transparent)]
    Collection(#[from] PuzzleError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Imports the games of `text` (read from `source_name`) into the collection `collection`
/// of `dir` (`DIR/COLLECTION.toml`, made when missing): each game is checked under perfect
/// play by `judge` and added when it holds, after `build_tables` has built what its puzzle
/// needs ([`Puzzle::table_to_build`]); the others are listed with the reason. The
/// collection is locked from reading its ids to writing it whole.
pub fn import_into(
    text: &str,
    source_name: &str,
    collection: &str,
    dir: &Path,
    judge: &Judge,
    build_tables: &mut dyn FnMut(&Puzzle) -> Result<(), String>,
) -> Result<ImportReport, ImportError> {
    if collection.is_empty()
        || !collection
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ImportError::CollectionName(collection.to_string()));
    }
    let target = dir.join(format!("{collection}.toml"));
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    // what the import would replace must be a regular file (or nothing) before it is read
    files::check_writable(&target).map_err(io(&target))?;
    // one import into a collection at a time: the ids and the positions already there are
    // read under the lock, and the file is rewritten whole before it is let go
    let _lock = files::Lock::exclusive(&target).map_err(io(&target))?;
    let before = match files::read_regular(&target) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| ImportError::NotUtf8(target.clone()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(&target)(e)),
    };
    let existing = load_str(&target, before.strip_prefix('\u{feff}').unwrap_or(&before))?;
    let mut taken: Vec<String> = existing.iter().map(|p| p.entry.id.clone()).collect();
    let mut positions: Vec<(Position, String)> = existing
        .iter()
        .map(|p| (p.position.clone(), p.entry.id.clone()))
        .collect();
    let (games, mut rejected) = read(text);
    let mut added_text = String::new();
    let mut added = Vec::new();
    for g in games {
        let reject = |reason: String| Rejected {
            number: g.number,
            reason,
        };
        let mut end = g.position.clone();
        for &m in &g.moves {
            end.play_unchecked(m);
        }
        let mated = end.legal_moves().is_empty();
        let side = g.position.turn();
        let win_for_red = match g.result.as_deref() {
            Some("1-0") => Some(true),
            Some("0-1") => Some(false),
            _ => None,
        };
        let goal = match (g.result.as_deref(), win_for_red) {
            (Some("1/2-1/2"), _) => Goal { side, win: false },
            (_, Some(red)) if red == (side == Color::Red) => Goal { side, win: true },
            (_, Some(_)) => {
                rejected.push(reject("the result is a loss for the side to move".into()));
                continue;
            }
            (_, None) if mated && end.turn() != side => Goal { side, win: true },
            _ => {
                rejected.push(reject(
                    "no result, and the line does not end in mate".into(),
                ));
                continue;
            }
        };
        let stipulation = (goal.win && mated).then(|| (g.moves.len() as u32).div_ceil(2));
        let mut n = taken.len() + 1;
        while taken.contains(&format!("{collection}-{n:03}")) {
            n += 1;
        }
        let id = format!("{collection}-{n:03}");
        let entry = Entry {
            id: id.clone(),
            title: g
                .title
                .clone()
                .unwrap_or_else(|| format!("{collection} 第{n}题")),
            source: g
                .source
                .clone()
                .unwrap_or_else(|| format!("imported from {source_name}")),
            fen: g.position.to_string(),
            goal: goal.to_string(),
            moves: stipulation,
            line: chinese_line(&g),
            tags: vec![collection.to_string()],
            difficulty: stipulation.map_or(3, |m| m.clamp(1, 5) as u8),
            checks: false,
        };
        let one = match toml::to_string(&super::File {
            puzzles: vec![entry],
        }) {
            Ok(t) => t,
            Err(e) => {
                rejected.push(reject(e.to_string()));
                continue;
            }
        };
        let parsed = match load_str(&target, &one) {
            Ok(mut v) => v.remove(0),
            Err(e) => {
                rejected.push(reject(e.to_string()));
                continue;
            }
        };
        if let Err(e) = build_tables(&parsed) {
            rejected.push(reject(format!("its tables cannot be built: {e}")));
            continue;
        }
        if let Err(reason) = judge.verify(&parsed) {
            rejected.push(reject(reason.to_string()));
            continue;
        }
        if let Some((_, id)) = positions.iter().find(|(p, _)| *p == parsed.position) {
            rejected.push(reject(format!(
                "the position is already in the collection as {id}"
            )));
            continue;
        }
        positions.push((parsed.position.clone(), id.clone()));
        taken.push(id.clone());
        added_text.push('\n');
        added_text.push_str(&one);
        added.push(id);
    }
    if !added.is_empty() {
        let mut all = before;
        all.push_str(&added_text);
        files::write_atomically(&target, &[all.as_bytes()]).map_err(io(&target))?;
    }
    rejected.sort_by_key(|r| r.number);
    Ok(ImportReport {
        target,
        added,
        rejected,
    })
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
