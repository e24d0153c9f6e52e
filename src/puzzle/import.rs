//! Reading compositions from other formats: xiangqi PGN with a FEN tag (moves in Chinese,
//! WXF or ICCS) and DhtmlXQ (`[DhtmlXQ_binit]`, `[DhtmlXQ_movelist]`). Each game becomes a
//! puzzle entry; checking it under perfect play is the caller's part.

use std::path::{Path, PathBuf};

use crate::files;
use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::{Position, Setup};
use crate::game::square::Square;
use crate::notation::{self, Notation, Style};

use super::proof::{ProofOptions, prove, prove_long, stated};
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

/// Reads every game of a file in any of the formats canju knows: a DhtmlXQ register (JSON
/// with `"details"`), DhtmlXQ (the text has `[DhtmlXQ`), a FEN list with `[FEN_INDEX]`
/// tags, or PGN.
pub fn read(text: &str) -> (Vec<Game>, Vec<Rejected>) {
    // a byte-order mark, as Windows editors write them, is not part of the text
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('{') {
        read_register(text)
    } else if text.contains("[DhtmlXQ") {
        read_dhtmlxq(text)
    } else if text.contains("[FEN_INDEX") {
        read_fen_index(text)
    } else {
        read_pgn(text)
    }
}

/// The result a composition's title states, as PGN writes it: `正和`, or a parenthesis
/// saying `和` or `难胜`, a draw; `红胜`, or a parenthesis saying `胜`, a win for red (who
/// moves first in every classical collection); `None` when the title says neither
/// ("（车马对车双士）" names the material only).
pub fn stated_result(title: &str) -> Option<&'static str> {
    if title.contains("正和") {
        return Some("1/2-1/2");
    }
    if title.contains("红胜") || title.contains("红先胜") {
        return Some("1-0");
    }
    // 适情雅趣's endings: "（马双兵和双卒双士）", "（单车巧胜马双象）", "（车卒难胜单车）"
    let said = &title[title.find(['（', '('])?..];
    if said.contains("难胜") || (said.contains('和') && !said.contains('胜')) {
        Some("1/2-1/2")
    } else if said.contains('胜') {
        Some("1-0")
    } else {
        None
    }
}

/// A FEN list as kuiba1949/xiangqi-tools keeps 适情雅趣's 551 compositions: per position
/// `[FEN_INDEX "…"]`, `[EVENT "BOOK_EDITION 第NNN局 TITLE"]` and `[FEN "…"]`, no moves. The
/// title's parenthesis, when it has one, states the result ([`stated_result`]).
pub fn read_fen_index(text: &str) -> (Vec<Game>, Vec<Rejected>) {
    let mut games = Vec::new();
    let mut rejected = Vec::new();
    let starts: Vec<usize> = text.match_indices("[FEN_INDEX").map(|(i, _)| i).collect();
    for (i, &start) in starts.iter().enumerate() {
        let number = i + 1;
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let g = &text[start..end];
        let index = tag(g, "FEN_INDEX").unwrap_or("");
        let Some(fen) = tag(g, "FEN") else {
            rejected.push(Rejected {
                number,
                reason: format!("{index}: no FEN tag"),
            });
            continue;
        };
        let position: Position = match fen.parse() {
            Ok(p) => p,
            Err(e) => {
                rejected.push(Rejected {
                    number,
                    reason: format!("{index}: {e}"),
                });
                continue;
            }
        };
        // "适情雅趣_李浭551局新版 第001局 气吞关右": the book, its edition, the title
        let event = tag(g, "EVENT").unwrap_or("");
        let (head, rest) = event.split_once(' ').unwrap_or((event, ""));
        let (book, edition) = head.split_once('_').unwrap_or((head, ""));
        let title = if rest.is_empty() {
            book.to_string()
        } else {
            format!("{book} {rest}")
        };
        let edition = if edition.is_empty() {
            String::new()
        } else {
            format!(" ({edition})")
        };
        games.push(Game {
            number,
            result: stated_result(rest).map(str::to_string),
            title: Some(title),
            source: Some(format!("{book}{edition}, {index}")),
            position,
            moves: Vec::new(),
        });
    }
    (games, rejected)
}

/// A DhtmlXQ register as chasoft/community-xiangqi-games-database keeps a collection's
/// diagrams: JSON whose `"details"` maps `NNN-TITLE-RESULT` to `{"preview": BINIT,
/// "description": "TITLE RESULT"}` (red to move). Keys of one number with the same diagram
/// are one composition, read once; the collection's name is the readme's first heading.
pub fn read_register(text: &str) -> (Vec<Game>, Vec<Rejected>) {
    let mut games = Vec::new();
    let mut rejected = Vec::new();
    let doc: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            rejected.push(Rejected {
                number: 1,
                reason: format!("not a register: {e}"),
            });
            return (games, rejected);
        }
    };
    let meta = &doc["meta"];
    let book = meta["readme"]
        .as_str()
        .and_then(|r| r.lines().find_map(|l| l.strip_prefix("# ")))
        .or_else(|| meta["title"].as_str())
        .unwrap_or("")
        .trim()
        .to_string();
    let Some(details) = doc["details"].as_object() else {
        rejected.push(Rejected {
            number: 1,
            reason: "not a register: no \"details\" object".into(),
        });
        return (games, rejected);
    };
    let mut seen: Vec<(String, String)> = Vec::new();
    for (i, (key, entry)) in details.iter().enumerate() {
        let number = i + 1;
        let reject = |reason: String| Rejected {
            number,
            reason: format!("{key}: {reason}"),
        };
        let Some(preview) = entry["preview"].as_str() else {
            rejected.push(reject("no preview".into()));
            continue;
        };
        let n: String = key.chars().take_while(char::is_ascii_digit).collect();
        // the same diagram under a second spelling of its key
        if seen.iter().any(|(m, p)| *m == n && p == preview) {
            continue;
        }
        seen.push((n.clone(), preview.to_string()));
        let Some(d) = digits(preview).filter(|d| d.len() == 64) else {
            rejected.push(reject("the preview is not 64 digits".into()));
            continue;
        };
        let position = match binit_position(&d, Color::Red) {
            Ok(p) => p,
            Err(e) => {
                rejected.push(reject(e));
                continue;
            }
        };
        let description = entry["description"].as_str().unwrap_or(key).trim();
        games.push(Game {
            number,
            result: stated_result(description).map(str::to_string),
            title: Some(format!("{book} 第{n}局 {description}")),
            source: Some(format!("{book}, {key}")),
            position,
            moves: Vec::new(),
        });
    }
    (games, rejected)
}

/// The games of a PGN text. A game starts at a tag line that follows move text, at a tag
/// line after a blank line that ends a game's tags with its `[FEN …]` (a game of tags
/// alone, as collections of compositions write them: the position, the result, no moves),
/// or at a tag the game has
/// already (a second `[FEN …]`): never two games merged into one.
fn split_games_pgn(text: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut current = String::new();
    let mut in_moves = false;
    let mut tags_ended = false;
    let mut keys: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            let key = tag_key(t);
            let repeated = key.as_ref().is_some_and(|k| keys.contains(k));
            if in_moves || tags_ended || repeated {
                games.push(std::mem::take(&mut current));
                in_moves = false;
                tags_ended = false;
                keys.clear();
            }
            keys.extend(key);
        } else if t.is_empty() {
            // (a blank line inside a header without a position yet does not end a game)
            tags_ended |= keys.iter().any(|k| k == "FEN");
        } else {
            in_moves = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        games.push(current);
    }
    games.retain(|g| !g.trim().is_empty());
    games
}

/// The name of a tag line's tag, in capitals: `[FEN "…"]` → `FEN`.
fn tag_key(line: &str) -> Option<String> {
    let inner = line.strip_prefix('[')?;
    let key = inner
        .split(|c: char| c.is_whitespace() || c == ']')
        .next()?;
    (!key.is_empty()).then(|| key.to_ascii_uppercase())
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

/// The position of a DhtmlXQ board (`binit`: 32 pairs of digits, file then rank from the
/// top, `99` for a piece off the board; red's pieces first, in [`BINIT_ORDER`]).
fn binit_position(d: &[u8], turn: Color) -> Result<Position, String> {
    let mut setup = Setup::empty(turn);
    for (k, pair) in d.chunks(2).enumerate() {
        if pair == [9, 9] {
            continue;
        }
        let color = if k < 16 { Color::Red } else { Color::Black };
        match dhtml_square(pair[0], pair[1]) {
            Some(s) if setup.piece_at(s).is_some() => {
                return Err(format!(
                    "[DhtmlXQ_binit] puts two pieces on {s} (pieces {} and {})",
                    d.chunks(2).position(|q| q == pair).map_or(0, |i| i + 1),
                    k + 1
                ));
            }
            Some(s) => {
                setup.put(s, Piece::new(color, BINIT_ORDER[k % 16]));
            }
            None => return Err("[DhtmlXQ_binit] has a point off the board".into()),
        }
    }
    setup.into_position().map_err(|e| format!("position: {e}"))
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
        let position = match binit_position(&d, turn) {
            Ok(p) => p,
            Err(reason) => {
                rejected.push(Rejected { number, reason });
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

/// 一步杀, 两步杀 … 三十步杀: the name of a mate in `n` moves.
pub fn kill_name(n: u32) -> String {
    const DIGITS: [&str; 10] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    let number = match n {
        2 => "两".to_string(),
        1..=9 => DIGITS[n as usize].to_string(),
        10 => "十".to_string(),
        11..=19 => format!("十{}", DIGITS[(n - 10) as usize]),
        20..=99 if n.is_multiple_of(10) => format!("{}十", DIGITS[(n / 10) as usize]),
        20..=99 => format!(
            "{}十{}",
            DIGITS[(n / 10) as usize],
            DIGITS[(n % 10) as usize]
        ),
        _ => n.to_string(),
    };
    format!("{number}步杀")
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
/// needs ([`Puzzle::table_to_build`]); the others are listed with the reason. A game
/// without moves whose stated (or `proof.assume`d) result is a win gets the solver's
/// line: the shortest forced win within `proof.max_moves`, else by checks alone within
/// `proof.checks_max_moves` (a 连将杀). A position already in any collection of `dir` is
/// not added again. The collection is locked from reading its ids to writing it whole.
pub fn import_into(
    text: &str,
    source_name: &str,
    collection: &str,
    dir: &Path,
    judge: &Judge,
    proof: &ProofOptions,
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
    let _lock = files::Lock::exclusive(&target).map_err(io(&files::Lock::path_for(&target)))?;
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
    // (the other collections of the directory: a position is served once; one that cannot
    // be read is not this import's concern)
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut others: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml") && *p != target)
            .collect();
        others.sort();
        for f in others {
            if let Ok(v) = super::load_file(&f) {
                positions.extend(v.into_iter().map(|p| (p.position, p.entry.id)));
            }
        }
    }
    let mut solver = None;
    let (games, mut rejected) = read(text);
    let mut added_text = String::new();
    let mut added = Vec::new();
    for mut g in games {
        let number = g.number;
        let reject = |reason: String| Rejected { number, reason };
        let mut checks = false;
        // (proven by the proof-number search: a long composition)
        let mut long = false;
        if g.moves.is_empty() {
            // no line given: the solver's, for a stated win
            let stated = match stated(
                g.result.as_deref(),
                g.position.turn(),
                proof.assume.as_deref(),
            ) {
                Ok((s, _)) => s,
                Err(e) => {
                    rejected.push(reject(e));
                    continue;
                }
            };
            if stated != Some("win") {
                rejected.push(reject(match stated {
                    None => "no moves and no stated result (an assumed one can be given)".into(),
                    Some(s) => format!(
                        "no moves, and a stated {s}: canju makes puzzles of stated wins, whose lines it proves"
                    ),
                }));
                continue;
            }
            let solver = solver.get_or_insert_with(|| crate::solver::Solver::new(proof.hash_mb));
            let mut found = None;
            let mut failed = None;
            // (no win within this many plies: proven by the first proof)
            let mut none_within = 0;
            for (bound, by_checks) in [(proof.max_moves, false), (proof.checks_max_moves, true)] {
                if bound == 0 || found.is_some() || failed.is_some() {
                    continue;
                }
                match prove(
                    solver,
                    &g.position,
                    bound,
                    by_checks,
                    proof.seconds,
                    judge.tables(),
                ) {
                    Ok(p) => {
                        if !by_checks && p.complete && p.win.is_none() {
                            none_within = 2 * bound - 1;
                        }
                        if let Some((_, line)) = p.win.filter(|(_, line)| !line.is_empty()) {
                            found = Some(line);
                            checks = by_checks;
                        }
                    }
                    Err(e) => failed = Some(e.to_string()),
                }
            }
            if found.is_none() && failed.is_none() && proof.long_max_moves > 0 {
                // beyond the depth-first proofs' reach: the proof-number search, for a
                // shortest win whose line it gives whole (a win within a length, the
                // shortest not established, is no stipulation to serve; nor is one only
                // the rule of repetition gives, which a judge without it would refuse)
                match prove_long(
                    solver,
                    &g.position,
                    proof.long_max_moves,
                    none_within,
                    proof.long_seconds,
                    judge.tables(),
                ) {
                    Ok(p) => match p.win {
                        Some((plies, line))
                            if p.shortest
                                && p.by_rule != Some(true)
                                && line.len() as u32 == plies =>
                        {
                            found = Some(line);
                            long = true;
                        }
                        Some((plies, _)) if p.by_rule == Some(true) => {
                            failed = Some(format!(
                                "a stated win, proven in {} moves only by {}, which a judge without it would refuse",
                                plies.div_ceil(2),
                                judge
                                    .rules()
                                    .unwrap_or(crate::tablebase::Rules::Asian)
                                    .rule_en()
                            ))
                        }
                        Some((plies, _)) if !p.shortest => {
                            failed = Some(format!(
                                "a stated win, proven within {} moves but its shortest not established in {} s (none within {}): no stipulation to hold a player to",
                                plies.div_ceil(2),
                                proof.long_seconds,
                                p.none_within.div_ceil(2)
                            ))
                        }
                        Some(_) => {
                            failed = Some(format!(
                                "a stated win, proven by proof-number search, but its line was not completed in {} s",
                                proof.long_seconds
                            ))
                        }
                        None if p.complete => {
                            failed = Some(format!(
                                "a stated win, but it is proven that there is no forced win within {} moves",
                                proof.long_max_moves
                            ))
                        }
                        None => {
                            failed = Some(format!(
                                "a stated win, but no forced win within {} moves ({} by checks alone) found in {} s a proof, nor within {} by proof-number search in {} s (none within {})",
                                proof.max_moves,
                                proof.checks_max_moves,
                                proof.seconds,
                                proof.long_max_moves,
                                proof.long_seconds,
                                p.none_within.div_ceil(2)
                            ))
                        }
                    },
                    Err(e) => failed = Some(e.to_string()),
                }
            }
            let Some(line) = found else {
                rejected.push(reject(failed.unwrap_or_else(|| {
                    format!(
                        "a stated win, but no forced win within {} moves ({} by checks alone) found in {} s a proof",
                        proof.max_moves, proof.checks_max_moves, proof.seconds
                    )
                })));
                continue;
            };
            g.moves = line;
            g.result = Some(
                if g.position.turn() == Color::Red {
                    "1-0"
                } else {
                    "0-1"
                }
                .into(),
            );
        }
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
            title_en: None,
            source: g
                .source
                .clone()
                .unwrap_or_else(|| format!("imported from {source_name}")),
            fen: g.position.to_string(),
            goal: goal.to_string(),
            moves: stipulation,
            line: chinese_line(&g),
            tags: {
                let mut tags = vec![collection.to_string()];
                if let Some(n) = stipulation {
                    tags.push(kill_name(n));
                }
                if checks {
                    tags.push("连将杀".into());
                }
                tags
            },
            difficulty: stipulation.map_or(3, |m| m.clamp(1, 5) as u8),
            checks,
            mate: false,
            long,
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
            rejected.push(reject(format!("the position is already puzzle {id}")));
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
    fn results_stated_in_titles() {
        assert_eq!(stated_result("八蛮献宝 红胜"), Some("1-0"));
        assert_eq!(stated_result("饵鱼充馔 红胜(1)"), Some("1-0"));
        assert_eq!(stated_result("马陵塞道(红胜)"), Some("1-0"));
        assert_eq!(stated_result("八面玲珑 正和"), Some("1/2-1/2"));
        assert_eq!(
            stated_result("第469局 单马独还（马双兵和双卒双士）"),
            Some("1/2-1/2")
        );
        assert_eq!(
            stated_result("第543局 固前遮后(双炮巧和单车）"),
            Some("1/2-1/2")
        );
        assert_eq!(
            stated_result("第482局 众寡不敌（车卒难胜单车）"),
            Some("1/2-1/2")
        );
        assert_eq!(
            stated_result("第450局 只马归命（单车巧胜马双象）"),
            Some("1-0")
        );
        assert_eq!(stated_result("第497局 士马疲劳（车马对车双士）"), None);
        assert_eq!(stated_result("第001局 气吞关右"), None);
        assert_eq!(stated_result("叠投巨饵"), None);
    }

    #[test]
    fn fen_index_lists() {
        let text = "[FEN_INDEX \"shiqingyaqu-551-013\"]\n[EVENT \"适情雅趣_李浭551局新版 第013局 目视横流\"]\n[FEN \"4k4/3P2P2/b2N2R2/7r1/2b6/9/9/3n5/4p3r/2R2K3 w - - 0 1\"]\n\n[FEN_INDEX \"x-2\"]\n[EVENT \"书 第2局 坏\"]\n[FEN \"4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\"]\n\n[FEN_INDEX \"x-3\"]\n[EVENT \"书 第3局 和（车和车）\"]\n[FEN \"4k4/9/9/9/9/r8/9/9/R8/3K5 w - - 0 1\"]\n";
        let (games, rejected) = read(text);
        assert_eq!(games.len(), 2, "{rejected:?}");
        assert_eq!(games[0].title.as_deref(), Some("适情雅趣 第013局 目视横流"));
        assert_eq!(
            games[0].source.as_deref(),
            Some("适情雅趣 (李浭551局新版), shiqingyaqu-551-013")
        );
        assert_eq!(games[0].result, None);
        assert!(games[0].moves.is_empty());
        assert_eq!(games[1].number, 3);
        assert_eq!(games[1].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(rejected.len(), 1);
        assert!(rejected[0].reason.starts_with("x-2: "), "{rejected:?}");
        assert!(rejected[0].reason.contains("generals face"), "{rejected:?}");
    }

    #[test]
    fn registers() {
        let text = r#"{"meta":{"title":"T","readme":"intro\n# 烂柯神机\n"},"details":{
            "018-车马相须-红胜":{"preview":"4525999959999999999999999999999999999941409999999999993848679999","description":"车马相须 红胜"},
            "003-巴黎会议(T字形)-红胜":{"preview":"4422999937999923636299329999999945474299529999995743469999999999","description":"巴黎会议(T字形) 红胜"},
            "003-巴黎会议-(T字形)-红胜":{"preview":"4422999937999923636299329999999945474299529999995743469999999999","description":"巴黎会议(T字形) 红胜"},
            "050-割地求和-正和":{"preview":"0031999949999999683280999999999999996099429982999940993847586999","description":"割地求和 正和"},
            "099-坏":{"preview":"12"}}}"#;
        let (games, rejected) = read(text);
        assert_eq!(games.len(), 3, "{rejected:?}");
        // (the keys in order; the second spelling of 003 read once)
        assert_eq!(
            games[0].title.as_deref(),
            Some("烂柯神机 第003局 巴黎会议(T字形) 红胜")
        );
        assert_eq!(games[0].result.as_deref(), Some("1-0"));
        assert_eq!(
            games[1].title.as_deref(),
            Some("烂柯神机 第018局 车马相须 红胜")
        );
        assert_eq!(games[1].result.as_deref(), Some("1-0"));
        assert_eq!(games[2].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(
            games[2].source.as_deref(),
            Some("烂柯神机, 050-割地求和-正和")
        );
        assert_eq!(rejected.len(), 1);
        assert!(rejected[0].reason.starts_with("099-坏: "), "{rejected:?}");
    }

    #[test]
    fn dhtmlxq_start_position() {
        let text = "[DhtmlXQ][DhtmlXQ_binit]8979695949392919097717866646260600102030405060708012720323436383[/DhtmlXQ_binit][DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist][/DhtmlXQ]";
        let (games, rejected) = read(text);
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!(games[0].position, Position::start());
        assert_eq!(chinese_line(&games[0]), ["炮二平五", "马８进７"]);
    }

    #[test]
    fn pgn_of_tags_alone_is_one_composition_per_game() {
        let one = "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1";
        let two = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1";
        // blank lines between games of tags alone
        let text = format!(
            "[Event \"第一局\"]\n[FEN \"{one}\"]\n[Result \"1-0\"]\n\n[Event \"第二局\"]\n[FEN \"{two}\"]\n[Result \"1-0\"]\n"
        );
        let (games, rejected) = read(&text);
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].title.as_deref(), Some("第一局"));
        assert_eq!(games[0].position, one.parse().unwrap());
        assert_eq!(games[1].position, two.parse().unwrap());
        // no blank line at all: the second FEN tag starts the second game
        let text = format!("[FEN \"{one}\"]\n[FEN \"{two}\"]\n");
        let (games, _) = read(&text);
        assert_eq!(games.len(), 2);
        // a blank line inside a header before its position does not split it
        let text = format!("[Event \"t\"]\n\n[FEN \"{one}\"]\n\n1. 炮三进一 *\n");
        let (games, rejected) = read(&text);
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].title.as_deref(), Some("t"));
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
