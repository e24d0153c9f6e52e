//! Puzzle collections and answer checking against perfect play.
//!
//! A collection is a TOML file of `[[puzzle]]` tables (see `puzzles/README.md`). Every
//! answer is judged by perfect play: the tables where the position's material has one, the
//! composition solver elsewhere (win goals, within the stipulation). Any move that keeps
//! the goal is accepted; the defender answers with the longest resistance, the first such
//! move in generation order, so that a session is reproducible.

pub mod attempt;
pub mod audit;
pub mod check;
pub mod import;
pub mod listing;
pub mod playout;
pub mod progress;
pub mod proof;
pub mod rating;
pub mod train;
pub mod words;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::game::moves::Move;
use crate::game::piece::Color;
use crate::game::position::Position;
use crate::notation;
use crate::solver::{self, Options, SolveError};
use crate::tablebase::index::MAX_PIECES;
use crate::tablebase::{TableError, Tablebase, Value};

/// The largest stipulation a puzzle may have, in moves.
pub const MAX_STIPULATION: u32 = 15;
/// The longest stipulation of a 连将杀 (`checks = true`), in moves: checks alone leave the
/// proofs small.
pub const MAX_CHECKS_STIPULATION: u32 = 30;
/// The longest stipulation of a long composition (`long = true`), in moves: the bound of
/// the proof-number search that proves it.
pub const MAX_LONG_STIPULATION: u32 = 40;
/// The time each search of a long composition's judge may take, in seconds: a move off
/// the proven line is judged within it, or the judge says it could not.
pub const LONG_SECONDS: u64 = 20;
/// The time each search may take when a long composition is verified, in seconds.
const LONG_VERIFY_SECONDS: u64 = 600;
/// The bound used for win goals without a stipulation, in moves.
pub const DEFAULT_BOUND: u32 = 7;

/// What the side to move must achieve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    /// The side that must reach the goal (the side to move).
    pub side: Color,
    /// A win (true) or a draw (false).
    pub win: bool,
}

/// A text that is no goal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("goal '{0}': expected 红先胜, 红先和, 黑先胜 or 黑先和")]
pub struct ParseGoalError(pub String);

impl FromStr for Goal {
    type Err = ParseGoalError;

    fn from_str(s: &str) -> Result<Goal, ParseGoalError> {
        let bad = || ParseGoalError(s.to_string());
        let side = match s.chars().next() {
            Some('红') => Color::Red,
            Some('黑') => Color::Black,
            _ => return Err(bad()),
        };
        let win = match s.chars().skip(1).collect::<String>().as_str() {
            "先胜" => true,
            "先和" => false,
            _ => return Err(bad()),
        };
        Ok(Goal { side, win })
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}先{}",
            self.side.chinese(),
            if self.win { "胜" } else { "和" }
        )
    }
}

/// A puzzle as written in a collection file.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// A unique id (`mate-003`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its title in English, where a Chinese name has one (马后炮: "Horse behind cannon");
    /// otherwise the English title is made from the Chinese one ([`Puzzle::title`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_en: Option<String>,
    /// Where it comes from (book, number).
    pub source: String,
    /// Its position.
    pub fen: String,
    /// Its goal: 红先胜, 红先和, 黑先胜 or 黑先和.
    pub goal: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// A win's stipulation in moves, if it has one.
    pub moves: Option<u32>,
    /// The main line, in any notation.
    pub line: Vec<String>,
    #[serde(default)]
    /// Free tags (patterns, themes).
    pub tags: Vec<String>,
    /// 1 (easiest) to 5.
    pub difficulty: u8,
    /// 连将杀: every move of the player's must give check (a win goal with `moves` only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub checks: bool,
    /// 将死 only: the win must end in checkmate, a stalemate (困毙) does not count (a win
    /// goal only), for composed mates and patterns whose point is the mate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mate: bool,
    /// A long composition: a win beyond the depth-first search's reach (up to
    /// [`MAX_LONG_STIPULATION`] moves), judged by proof-number search. Its line is the
    /// proven one (the quickest moves, the longest resistance), which the judge follows
    /// without searching; a move off it is searched (a win goal with `moves` only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub long: bool,
}

#[derive(Debug, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(rename = "puzzle", default)]
    puzzles: Vec<Entry>,
}

/// A title's part in English: a book and its number (适情雅趣 第077局: "Shiqing Yaqu no.
/// 77"), a result (六步胜: "win in 6", 三步杀, 一步困毙, 守和, 红胜), a material's Chinese name
/// (its signature, `material`); None for a name English does not have (a composition's
/// poetic name, 八蛮献宝).
fn title_part_en(part: &str, material: &str) -> Option<String> {
    let books = [
        ("适情雅趣", "Shiqing Yaqu"),
        ("烂柯神机", "Lanke Shenji"),
        ("实战杀局", "Mates from games"),
    ];
    if let Some((_, en)) = books.iter().find(|(zh, _)| *zh == part) {
        return Some(en.to_string());
    }
    if let Some(n) = part
        .strip_prefix('第')
        .and_then(|r| r.strip_suffix('局').or_else(|| r.strip_suffix('题')))
        .and_then(|n| n.parse::<u32>().ok())
    {
        return Some(format!("no. {n}"));
    }
    for (ending, what) in [
        ("步胜", "win in"),
        ("步杀", "mate in"),
        ("步困毙", "stalemate in"),
    ] {
        if let Some(n) = part.strip_suffix(ending).and_then(words::chinese_number) {
            return Some(format!("{what} {n}"));
        }
    }
    if part.starts_with("红胜") || part.ends_with("(红胜)") {
        return Some("red wins".to_string());
    }
    if part == "守和" {
        return Some("holding the draw".to_string());
    }
    // a material's name: 马兵对士象全, 车对马双士
    (part.contains('对')
        && part
            .chars()
            .all(|c| "帅仕相马车炮兵将士象卒单双全缺对".contains(c)))
    .then(|| material.to_string())
}

/// A puzzle read and checked for form: its position, goal and line parsed.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// The entry as written.
    pub entry: Entry,
    /// The collection (its file's stem).
    pub collection: String,
    /// The position of `entry.fen`.
    pub position: Position,
    /// The goal of `entry.goal`.
    pub goal: Goal,
    /// The main line, both sides' moves.
    pub line: Vec<Move>,
}

/// The bound on wins judged by the tables when a puzzle has no stipulation: every win a
/// one-byte table holds.
pub const TABLE_BUDGET: u32 = crate::tablebase::value::code::MAX_PLIES;

impl Puzzle {
    /// Its tags in the language ([`words::tag`]).
    pub fn tags(&self, lang: words::Lang) -> Vec<String> {
        self.entry
            .tags
            .iter()
            .map(|t| words::tag(lang, t))
            .collect()
    }

    /// Its title in the language: the entry's own in Chinese; in English its `title_en`,
    /// else the parts of the Chinese title English has words for (the book and number, the
    /// result, the material as its signature), else the collection and the material.
    pub fn title(&self, lang: words::Lang) -> String {
        if lang == words::Lang::Zh {
            return self.entry.title.clone();
        }
        if let Some(t) = &self.entry.title_en {
            return t.clone();
        }
        let material = crate::game::material::Material::of(&self.position).to_string();
        let parts: Vec<String> = self
            .entry
            .title
            .split([' ', '·'])
            .filter(|p| !p.is_empty())
            .filter_map(|p| title_part_en(p, &material))
            .collect();
        if parts.is_empty() {
            return format!("{} · {material}", words::collection(lang, &self.collection));
        }
        // (a book and its number read as one: "Shiqing Yaqu no. 77")
        parts.join(" · ").replace(" · no.", " no.")
    }

    /// The bound on the win in plies: the stipulation; without one, every table win when
    /// the material is within table reach, else the default bound.
    pub fn budget(&self) -> u32 {
        match self.entry.moves {
            Some(n) => 2 * n - 1,
            None if self.position.piece_count() <= MAX_PIECES => TABLE_BUDGET,
            None => 2 * DEFAULT_BOUND - 1,
        }
    }

    /// How long a draw must hold, in plies of both sides: the main line's length, and at
    /// least one move each. The one definition of a draw puzzle solved, for every front end.
    pub fn draw_plies(&self) -> u32 {
        (self.line.len() as u32).max(2)
    }

    /// The goal in English: "red to move and win within 3 moves, checking with every move".
    pub fn goal_text(&self) -> String {
        self.goal_words(words::Lang::En)
    }

    /// Where it comes from, in the language: as written in Chinese; in English the books by
    /// their English names and numbers, a part English has no words for (a composition's
    /// poetic name) left out: "Lanke Shenji, no. 1".
    pub fn source(&self, lang: words::Lang) -> String {
        let s = &self.entry.source;
        if lang == words::Lang::Zh {
            return s.clone();
        }
        let s = s
            .replace("适情雅趣", "Shiqing Yaqu")
            .replace("烂柯神机", "Lanke Shenji")
            .replace("李浭551局新版", "Li Geng's new 551-problem edition")
            .replace("李浭", "Li Geng");
        let cjk = |t: &str| t.chars().any(|c| ('\u{3000}'..='\u{9fff}').contains(&c));
        s.split(", ")
            .filter_map(|part| {
                if !cjk(part) {
                    return Some(part.to_string());
                }
                // 第77局 …: the number; 1-八蛮献宝-红胜: the number
                let rest = part.strip_prefix('第').unwrap_or(part);
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let after = &rest[digits.len()..];
                let after = after.strip_prefix('局').unwrap_or(after);
                if digits.is_empty() {
                    return None;
                }
                let n: u32 = digits.parse().ok()?;
                Some(match after.trim_start() {
                    tail if tail.starts_with('(') && !cjk(tail) => format!("no. {n} {tail}"),
                    _ => format!("no. {n}"),
                })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The goal as a player reads it, in `lang`: "红先胜（限3步，每步将军（连将杀））".
    pub fn goal_words(&self, lang: words::Lang) -> String {
        words::goal(
            lang,
            self.goal,
            self.entry.moves,
            self.entry.checks,
            self.entry.mate,
        )
    }

    /// The table this puzzle needs built before it is judged, when it is missing from
    /// `tb`: a puzzle within table reach without a stipulation (long table wins) or with a
    /// draw goal. A win within a stipulation is the solver's, with tables only where they
    /// are already built.
    pub fn table_to_build(&self, tb: &Tablebase) -> Option<crate::game::material::Material> {
        if !self.in_table_reach() || (self.goal.win && self.entry.moves.is_some()) {
            return None;
        }
        let m = crate::game::material::Material::of(&self.position).canonical();
        (!tb.path_of(&m).exists()).then_some(m)
    }

    /// Whether the position's material is within table reach.
    pub fn in_table_reach(&self) -> bool {
        self.position.piece_count() <= MAX_PIECES
    }
}

/// What `canju train` asks of a table: a win of `min..=max` moves for the stronger side
/// to move, or a hard draw for the weaker side to move (at most two moves hold).
#[derive(Clone, Copy, Debug)]
pub enum Wanted {
    /// A win for the side to move, of `min` to `max` moves.
    Win {
        /// The shortest win wanted, in moves.
        min: u32,
        /// The longest, in moves.
        max: u32,
    },
    /// A draw for the side to move where at most two moves hold it.
    HardDraw,
}

/// A random position from a built table that fits what is wanted, with the stronger side
/// as red (the caller flips colours for the other side). `None` after `tries` samples.
pub fn pick(
    tb: &Tablebase,
    material: crate::game::material::Material,
    wanted: Wanted,
    rng: &mut impl rand::Rng,
    tries: u32,
) -> Result<Option<Position>, PuzzleError> {
    let table = tb.table(material.canonical())?;
    let layout = table.layout();
    let n = layout.pieces().len();
    let mut squares = [crate::game::square::Square::new_unchecked(0); MAX_PIECES];
    let turn = match wanted {
        Wanted::Win { .. } => Color::Red,
        Wanted::HardDraw => Color::Black,
    };
    for _ in 0..tries {
        let index = rng.random_range(0..layout.size());
        if layout.squares(index, &mut squares).is_none() {
            continue;
        }
        let c = table.code(turn, index)?;
        let Some(v) = table.value_of(turn, index, c) else {
            continue;
        };
        let fits = match (wanted, v) {
            (Wanted::Win { min, max }, Value::Win(p)) => (min..=max).contains(&p.div_ceil(2)),
            (Wanted::HardDraw, Value::Draw) => true,
            _ => false,
        };
        if !fits {
            continue;
        }
        let mut pos = Position::scratch();
        pos.set_placement(layout.pieces(), &squares[..n], turn);
        // through FEN, so that only positions the rules accept come out
        let Ok(pos) = pos.to_string().parse::<Position>() else {
            continue;
        };
        if let Wanted::HardDraw = wanted {
            let ranked = tb.rank_moves(&pos)?;
            let holding = ranked.iter().filter(|r| r.value == Value::Draw).count();
            if holding == 0 || holding > 2 || ranked.len() < 3 {
                continue;
            }
        }
        return Ok(Some(pos));
    }
    Ok(None)
}

/// What is wrong with a collection or a puzzle.
#[derive(Debug, thiserror::Error)]
pub enum PuzzleError {
    /// A collection file or directory could not be read.
    #[error("{path}: {}", crate::tablebase::format::io_message(source))]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A collection file is not UTF-8 text.
    #[error("{path}: not UTF-8 text (byte {byte})")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Where its first bad byte is.
        byte: usize,
    },
    /// A collection file is not TOML of the collection's form.
    #[error("{path}: {message}")]
    Toml {
        /// The file.
        path: PathBuf,
        /// What the TOML reader says.
        message: String,
        /// The TOML reader's error.
        #[source]
        source: Box<toml::de::Error>,
    },
    #[error("{path}: puzzle '{id}': {message}")]
    /// A puzzle of a collection that does not hold together (its FEN, goal or line).
    Puzzle {
        /// The collection's file.
        path: PathBuf,
        /// The puzzle's id.
        id: String,
        /// What is wrong.
        message: String,
    },
    #[error("puzzle '{0}' is in no collection")]
    /// No puzzle has this id.
    Unknown(String),
    #[error(transparent)]
    /// A table could not be read.
    Table(#[from] TableError),
    /// The solver refused the position.
    #[error(transparent)]
    Solver(SolveError),
    /// A search was stopped (its node limit, or its stop flag) before it could judge.
    #[error("the search was stopped before it could judge (its node or time limit)")]
    Stopped,
}

impl From<SolveError> for PuzzleError {
    fn from(e: SolveError) -> PuzzleError {
        match e {
            SolveError::Table(t) => PuzzleError::Table(t),
            SolveError::Stopped => PuzzleError::Stopped,
            e => PuzzleError::Solver(e),
        }
    }
}

impl crate::tablebase::HasRemedy for PuzzleError {
    fn remedy(&self) -> Option<crate::tablebase::Remedy> {
        match self {
            PuzzleError::Table(t) => t.remedy(),
            _ => None,
        }
    }
}

/// The collections that come with canju (`puzzles/` of its source), built in.
pub const BUILTIN: &[(&str, &str)] = &[
    ("endgames", include_str!("../../puzzles/endgames.toml")),
    ("mates", include_str!("../../puzzles/mates.toml")),
    ("patterns", include_str!("../../puzzles/patterns.toml")),
    (
        "compositions",
        include_str!("../../puzzles/compositions.toml"),
    ),
    ("checks", include_str!("../../puzzles/checks.toml")),
    (
        "shiqingyaqu",
        include_str!("../../puzzles/shiqingyaqu.toml"),
    ),
    ("lanke", include_str!("../../puzzles/lanke.toml")),
];

/// The built-in collections, read and checked for form.
pub fn load_builtin() -> Result<Vec<Puzzle>, PuzzleError> {
    let mut all = Vec::new();
    for (name, text) in BUILTIN {
        let path = PathBuf::from(format!("puzzles/{name}.toml"));
        add_unique(&mut all, load_str(&path, text)?, &path)?;
    }
    Ok(all)
}

fn add_unique(all: &mut Vec<Puzzle>, more: Vec<Puzzle>, path: &Path) -> Result<(), PuzzleError> {
    for p in more {
        if all.iter().any(|q| q.entry.id == p.entry.id) {
            return Err(PuzzleError::Puzzle {
                path: path.to_path_buf(),
                id: p.entry.id.clone(),
                message: "the id is used twice".into(),
            });
        }
        all.push(p);
    }
    Ok(())
}

/// Reads one collection file; every puzzle's form is checked (FEN, goal, line).
pub fn load_file(path: &Path) -> Result<Vec<Puzzle>, PuzzleError> {
    let bytes = crate::files::read_regular(path).map_err(|source| PuzzleError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| PuzzleError::NotUtf8 {
        path: path.to_path_buf(),
        byte: e.utf8_error().valid_up_to(),
    })?;
    load_str(path, text.strip_prefix('\u{feff}').unwrap_or(&text))
}

/// Reads a collection from its text; `path` names it (its stem is the collection's name).
pub fn load_str(path: &Path, text: &str) -> Result<Vec<Puzzle>, PuzzleError> {
    let file: File = toml::from_str(text).map_err(|e| PuzzleError::Toml {
        path: path.to_path_buf(),
        message: e.message().to_string(),
        source: Box::new(e),
    })?;
    let collection = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("puzzles")
        .to_string();
    file.puzzles
        .into_iter()
        .map(|entry| {
            let bad = |message: String| PuzzleError::Puzzle {
                path: path.to_path_buf(),
                id: entry.id.clone(),
                message,
            };
            let position: Position = entry.fen.parse().map_err(|e| bad(format!("fen: {e}")))?;
            let goal: Goal = entry
                .goal
                .parse()
                .map_err(|e: ParseGoalError| bad(e.to_string()))?;
            if goal.side != position.turn() {
                return Err(bad(format!(
                    "goal {goal} but {} is to move",
                    position.turn()
                )));
            }
            let most = if entry.long {
                MAX_LONG_STIPULATION
            } else if entry.checks {
                MAX_CHECKS_STIPULATION
            } else {
                MAX_STIPULATION
            };
            if let Some(n) = entry.moves
                && (n == 0 || n > most)
            {
                return Err(bad(format!("moves = {n}: between 1 and {most}")));
            }
            if entry.long && !(goal.win && entry.moves.is_some()) {
                return Err(bad(
                    "long = true needs a win goal and a number of moves".into()
                ));
            }
            if entry.mate && !goal.win {
                return Err(bad("mate = true (将死 only) needs a win goal".into()));
            }
            if entry.checks && !(goal.win && entry.moves.is_some()) {
                return Err(bad(
                    "checks = true (连将杀) needs a win goal and a number of moves".into(),
                ));
            }
            if !(1..=5).contains(&entry.difficulty) {
                return Err(bad(format!(
                    "difficulty {}: between 1 and 5",
                    entry.difficulty
                )));
            }
            let mut p = position.clone();
            let mut line = Vec::new();
            for (i, text) in entry.line.iter().enumerate() {
                let m = notation::parse_move(&p, text)
                    .map_err(|e| bad(format!("line move {}: {e}", i + 1)))?;
                p.play_unchecked(m);
                line.push(m);
            }
            Ok(Puzzle {
                entry,
                collection: collection.clone(),
                position,
                goal,
                line,
            })
        })
        .collect()
}

/// Reads every `*.toml` collection of a directory, in file name order; ids must be unique.
pub fn load_dir(dir: &Path) -> Result<Vec<Puzzle>, PuzzleError> {
    let entries = std::fs::read_dir(dir).map_err(|source| PuzzleError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        // a *.toml that is not a regular file is an error when read, never skipped in silence
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut all: Vec<Puzzle> = Vec::new();
    for f in files {
        let more = load_file(&f)?;
        add_unique(&mut all, more, &f)?;
    }
    Ok(all)
}

/// Why a puzzle does not hold under perfect play ([`Judge::verify`]).
#[derive(Debug, thiserror::Error)]
pub enum Unsound {
    /// Judging failed (a table, the solver).
    #[error(transparent)]
    Judge(#[from] PuzzleError),
    /// A win goal without a forced win within the bound.
    #[error("no forced win within {budget} plies ({outlook:?})")]
    NoWin {
        /// The bound, in plies.
        budget: u32,
        /// How the position stands instead.
        outlook: Outlook,
    },
    /// A draw goal in a position that is not a draw.
    #[error("not a draw under perfect play ({0:?})")]
    NotADraw(Outlook),
    /// The stipulation is not the shortest win.
    #[error("the stipulation says {stated} moves, the shortest win takes {shortest}")]
    Stipulation {
        /// Moves stated.
        stated: u32,
        /// Moves of the shortest win.
        shortest: u32,
    },
    /// A move of the player's in the stored line loses the goal.
    #[error("line move {ply}: {mv} loses the goal")]
    LineMistake {
        /// Its ply in the line, from 1.
        ply: usize,
        /// The move.
        mv: Move,
    },
    /// A defender's move in a long composition's line is not its longest resistance.
    #[error("line move {ply}: {mv} is not the defender's longest resistance")]
    LineDefence {
        /// Its ply in the line, from 1.
        ply: usize,
        /// The move.
        mv: Move,
    },
    /// A win's line does not end in mate.
    #[error("the line does not end in mate")]
    LineNotMate,
    /// A win's line is not as long as the shortest win.
    #[error("the line has {plies} plies, the shortest win {shortest}")]
    LineLength {
        /// Plies in the line.
        plies: usize,
        /// Plies of the shortest win.
        shortest: u32,
    },
}

/// How a position stands for the player, by perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outlook {
    /// The player forces mate in this many plies.
    Win(u32),
    /// Neither side forces a win.
    Draw,
    /// The player is mated in this many plies.
    Loss(u32),
    /// The player wins only by the perpetual-check rule (tables with it): the opponent
    /// can hold off mate by checking forever, which the rule forbids. Not a mate goal.
    RuleWin(u32),
    /// The player loses by the perpetual-check rule: only checking forever would hold.
    RuleLoss(u32),
    /// No forced win for the player within the bound (beyond the tables, where draws and
    /// losses are not told apart).
    NoWin,
}

impl Outlook {
    /// `win`, `draw`, `loss`, `rule-win`, `rule-loss` or `no-win`, as JSON names it.
    pub fn name(self) -> &'static str {
        match self {
            Outlook::Win(_) => "win",
            Outlook::Draw => "draw",
            Outlook::Loss(_) => "loss",
            Outlook::RuleWin(_) => "rule-win",
            Outlook::RuleLoss(_) => "rule-loss",
            Outlook::NoWin => "no-win",
        }
    }

    /// The plies it counts, if any.
    pub fn plies(self) -> Option<u32> {
        match self {
            Outlook::Win(n) | Outlook::Loss(n) | Outlook::RuleWin(n) | Outlook::RuleLoss(n) => {
                Some(n)
            }
            Outlook::Draw | Outlook::NoWin => None,
        }
    }
}

/// A reason in both languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reason {
    /// 中文.
    pub zh: &'static str,
    /// English.
    pub en: &'static str,
}

impl Reason {
    /// The reason in `lang`.
    pub fn text(self, lang: words::Lang) -> &'static str {
        match lang {
            words::Lang::Zh => self.zh,
            words::Lang::En => self.en,
        }
    }
}

/// A move as the trainer names it: Chinese notation for Chinese text, WXF for English
/// text (the notation English-speaking players write), so that a line keeps to one
/// language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// 炮二平五.
    pub chinese: String,
    /// C2.5.
    pub wxf: String,
}

impl Named {
    /// `m` in `pos`, named both ways.
    pub fn of(pos: &Position, m: Move) -> Named {
        let namer = crate::notation::MoveNamer::new(pos);
        let style = crate::notation::Style::default();
        Named {
            chinese: namer.name(m, crate::notation::Notation::Chinese, style),
            wxf: namer.name(m, crate::notation::Notation::Wxf, style),
        }
    }

    /// The name for text in `lang`.
    pub fn text(&self, lang: words::Lang) -> &str {
        match lang {
            words::Lang::Zh => &self.chinese,
            words::Lang::En => &self.wxf,
        }
    }
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.chinese)
    }
}

/// The verdict on one move, with where it leaves the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The verdict.
    pub feedback: Feedback,
    /// How the position stands for the player after the move (within the budget left).
    pub now: Outlook,
}

/// The verdict on one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    /// As good as any move.
    Best,
    /// Keeps the win, this many moves slower than the best.
    Good {
        /// Moves slower than the best.
        slower: u32,
    },
    /// The goal is gone.
    Mistake,
}

impl Feedback {
    /// `best`, `good` or `mistake`.
    pub fn name(self) -> &'static str {
        match self {
            Feedback::Best => "best",
            Feedback::Good { .. } => "good",
            Feedback::Mistake => "mistake",
        }
    }
}

/// Perfect play: the tables where they reach, the solver elsewhere.
pub struct Judge<'a> {
    tb: Option<&'a Tablebase>,
    options: Options,
    /// The game so far (its first position and the moves played), which the
    /// perpetual-check rule counts: see [`Judge::follow`].
    game: std::sync::Mutex<Option<(Position, Vec<Move>)>>,
    /// A long composition's proven line, which the judge follows without searching.
    book: Option<Book>,
    /// A long composition's proof-number search, its tables kept from one search to the
    /// next (set up when first needed): the judge's searches are all about one
    /// composition, with one attacker, and share most of their trees.
    long_solver: std::sync::Mutex<Option<solver::Solver>>,
}

/// A long composition's proven line: its positions, each with the budget it is reached
/// with (see [`Judge::for_puzzle`]).
struct Book {
    /// The key of the position before each move of the line, and the budget left there.
    keys: Vec<(u64, u32)>,
    line: Vec<Move>,
}

impl Book {
    fn of(p: &Puzzle) -> Book {
        let mut pos = p.position.clone();
        let mut left = p.budget();
        let mut keys = Vec::with_capacity(p.line.len());
        for &m in &p.line {
            keys.push((pos.key(), left));
            pos.play_unchecked(m);
            left = left.saturating_sub(1);
        }
        Book {
            keys,
            line: p.line.clone(),
        }
    }

    /// The line's move from `pos` reached with `budget` plies left, and the line's length
    /// from there, when `pos` is on the line.
    fn at(&self, pos: &Position, budget: u32) -> Option<(Move, u32)> {
        let key = pos.key();
        let i = self
            .keys
            .iter()
            .position(|&(k, b)| k == key && b == budget)?;
        Some((self.line[i], (self.line.len() - i) as u32))
    }
}

impl<'a> Judge<'a> {
    /// A judge reading the tables of `tb` (if any) and the solver beyond them, under the
    /// tables' rules: with asian tables the solver applies the perpetual-check rule too, so
    /// that a defence that only checks forever fails beyond the tables as within them.
    pub fn new(tb: Option<&'a Tablebase>) -> Judge<'a> {
        let mut options = Options::new(DEFAULT_BOUND);
        // many small proofs, each with a table of its own
        options.hash_mb = 8;
        options.rules = tb.map_or(crate::tablebase::Rules::None, Tablebase::rules);
        Judge {
            tb,
            options,
            game: std::sync::Mutex::new(None),
            book: None,
            long_solver: std::sync::Mutex::new(None),
        }
    }

    /// Tells the judge the game so far: from `start` through `moves`. Under the
    /// perpetual-check rule, a position it asks about that ends this game (or follows it by
    /// one move) is judged with the game as its history, so that a repetition of the game's
    /// positions counts as the rule counts it, and the defence never plays a move the rule
    /// forbids. Other positions are judged as a fresh start.
    pub fn follow(&self, start: &Position, moves: &[Move]) {
        let mut game = self.game.lock().unwrap_or_else(|e| e.into_inner());
        *game = Some((start.clone(), moves.to_vec()));
    }

    /// The game's positions that end at `pos`, when `pos` ends the followed game or
    /// follows it by one move.
    fn history_at(&self, pos: &Position) -> Option<solver::History> {
        if !self.options.rule() {
            return None;
        }
        let game = self.game.lock().unwrap_or_else(|e| e.into_inner());
        let (start, moves) = game.as_ref()?;
        let mut end = start.clone();
        for &m in moves {
            end.play_unchecked(m);
        }
        if end.key() == pos.key() {
            return Some(solver::History::new(start, moves));
        }
        let next = end
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| end.key_after(m) == pos.key())?;
        let mut line = moves.clone();
        line.push(next);
        Some(solver::History::new(start, &line))
    }

    /// The solver's options for a proof from `pos`: with the game's history where it ends
    /// there.
    fn options_at(&self, pos: &Position) -> Options {
        let mut options = self.options.clone();
        if let Some(h) = self.history_at(pos) {
            options.history = h;
        }
        options
    }

    /// The legal moves in `pos` the rule leaves to the side to move (all of them without the
    /// rule, or off the followed game).
    pub fn allowed_moves(&self, pos: &Position) -> Vec<Move> {
        let moves = pos.legal_moves();
        let forbidden = match self.history_at(pos) {
            Some(h) => solver::rule::Path::forbidden_moves(self.options.rules, &h, pos),
            None => Vec::new(),
        };
        moves
            .iter()
            .copied()
            .filter(|m| !forbidden.contains(m))
            .collect()
    }

    /// The tables' moves in `pos`, best first, less those the rule forbids there after the
    /// followed game (each would complete a perpetual attack of the mover's); all of them
    /// when it forbids every one (the mover must play one, and loses by the rule).
    fn table_moves(
        &self,
        tb: &Tablebase,
        pos: &Position,
    ) -> Result<Vec<crate::tablebase::RankedMove>, PuzzleError> {
        if let Some(h) = self.history_at(pos) {
            let allowed = solver::rule::Path::table_moves(tb, &h, pos)?;
            if !allowed.is_empty() {
                return Ok(allowed);
            }
        }
        Ok(tb.rank_moves(pos)?)
    }

    /// The judge of one puzzle: for a 连将杀 (`checks = true`), wins by checks alone, where
    /// a move of the player's that gives no check loses the goal and the tables are not
    /// read (their wins allow quiet moves); for 将死 only (`mate = true`), wins that end in
    /// checkmate, without the tables (their wins count stalemates); otherwise
    /// [`Judge::new`]'s.
    pub fn for_puzzle(tb: Option<&'a Tablebase>, p: &Puzzle) -> Judge<'a> {
        let mut judge = Judge::new(tb);
        if p.entry.checks {
            judge.tb = None;
            judge.options.checks_only = true;
        }
        if p.entry.mate {
            // (the tables' wins count stalemates)
            judge.tb = None;
            judge.options.mate_only = true;
        }
        if p.entry.long {
            judge.options.method = solver::Method::ProofNumber;
            judge.options.hash_mb = solver::DEFAULT_HASH_MB;
            judge.options.time = Some(std::time::Duration::from_secs(LONG_SECONDS));
            judge.book = Some(Book::of(p));
        }
        judge
    }

    /// The judge under `rules` instead of its tables' (or, without tables, of none): a
    /// judge without tables that applies the perpetual-check rule in its searches, as a
    /// long composition whose line was proven under the rule needs.
    pub fn with_rules(mut self, rules: crate::tablebase::Rules) -> Judge<'a> {
        self.options.rules = rules;
        self
    }

    /// Whether this judge is a long composition's (proof-number search, a proven line).
    fn long(&self) -> bool {
        self.options.method == solver::Method::ProofNumber
    }

    /// The proven line's move from `pos` reached with `budget` plies left and the line's
    /// length from there, when the judge has one and `pos` is on it.
    fn on_book(&self, pos: &Position, budget: u32) -> Option<(Move, u32)> {
        self.book.as_ref()?.at(pos, budget)
    }

    /// By proof-number search: whether `player` mates from `pos` within `budget` plies
    /// (`exact`: in exactly how many; else within how many the proof found).
    fn long_distance(
        &self,
        pos: &Position,
        player: Color,
        budget: u32,
        exact: bool,
    ) -> Result<Option<u32>, PuzzleError> {
        if pos.legal_moves().is_empty() {
            // (mated, or stalemated where that counts)
            let won = pos.turn() != player && (!self.options.mate_only || pos.is_check());
            return Ok(won.then_some(0));
        }
        if budget == 0 {
            return Ok(None);
        }
        let options = self.options_at(pos);
        let mut solver = self.long_solver.lock().unwrap_or_else(|e| e.into_inner());
        let solver = solver.get_or_insert_with(|| solver::Solver::new(options.hash_mb));
        Ok(solver.long_distance(pos, player, budget, exact, &options, self.tb)?)
    }

    /// The judge with its searches bounded: each stops after about `max_nodes` nodes, and
    /// all stop once `stop` is set (a server sets it when its client leaves or its time
    /// is up); a stopped search is an error ([`SolveError::Stopped`]), never a verdict.
    pub fn with_limits(
        mut self,
        stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
        max_nodes: Option<u64>,
    ) -> Judge<'a> {
        self.options.stop = stop;
        self.options.max_nodes = max_nodes;
        self
    }

    /// Whether the player's move that led to `child` (the opponent to move) broke a
    /// 连将杀's rule by giving no check.
    pub fn gave_no_check(&self, child: &Position) -> bool {
        self.options.checks_only && !child.in_check(child.turn())
    }

    /// The tables the judge reads, if any.
    pub fn tables(&self) -> Option<&'a Tablebase> {
        self.tb
    }

    /// The rules the judge applies: the tables' (also when a 连将杀 or a mate-only puzzle
    /// reads no table), `None` when it was given no tables.
    pub fn rules(&self) -> Option<crate::tablebase::Rules> {
        Some(self.options.rules).filter(|_| self.tb.is_some() || self.options.rule())
    }

    /// The table value of a position, when its material has a table.
    fn table_value(&self, pos: &Position) -> Result<Option<Value>, PuzzleError> {
        let Some(tb) = self.tb else {
            return Ok(None);
        };
        if pos.piece_count() > MAX_PIECES {
            return Ok(None);
        }
        let pl = match crate::tablebase::probe::placement(pos) {
            Ok(pl) => pl,
            // (a composed placement: judged by search)
            Err(crate::tablebase::TableError::Unreachable(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        match tb.table_if_present(pl.material)? {
            Some(t) => Ok(Some(t.probe(&pl)?)),
            None => Ok(None),
        }
    }

    /// How `pos` stands for `player`, a win counted within `budget` plies.
    pub fn outlook(
        &self,
        pos: &Position,
        player: Color,
        budget: u32,
    ) -> Result<Outlook, PuzzleError> {
        if let Some(v) = self.table_value(pos)? {
            // the same distance, seen from the player's side
            let v = if pos.turn() == player {
                v
            } else {
                match v {
                    Value::Win(n) => Value::Loss(n),
                    Value::Loss(n) => Value::Win(n),
                    Value::RuleWin(k) => Value::RuleLoss(k),
                    Value::RuleLoss(k) => Value::RuleWin(k),
                    Value::Draw => Value::Draw,
                }
            };
            return Ok(match v {
                // a longer win than the budget allows is not the goal either
                Value::Win(n) if n <= budget => Outlook::Win(n),
                Value::Win(_) => Outlook::NoWin,
                Value::Draw => Outlook::Draw,
                Value::Loss(n) => Outlook::Loss(n),
                Value::RuleWin(k) => Outlook::RuleWin(k),
                Value::RuleLoss(k) => Outlook::RuleLoss(k),
            });
        }
        let distance = if self.long() {
            if let Some((_, length)) = self.on_book(pos, budget) {
                return Ok(Outlook::Win(length));
            }
            self.long_distance(pos, player, budget, true)?
        } else {
            solver::mate_distance(pos, player, budget, &self.options_at(pos), self.tb)?
        };
        Ok(match distance {
            Some(n) => Outlook::Win(n),
            None => Outlook::NoWin,
        })
    }

    /// Judges the player's move `m` in `pos` (the player to move) against the goal.
    pub fn judge(
        &self,
        pos: &Position,
        m: Move,
        goal: Goal,
        budget: u32,
    ) -> Result<Feedback, PuzzleError> {
        Ok(self.assess(pos, m, goal, budget)?.feedback)
    }

    /// Judges the player's move `m` in `pos` (the player to move) against the goal, with
    /// how the position stands for the player after it.
    pub fn assess(
        &self,
        pos: &Position,
        m: Move,
        goal: Goal,
        budget: u32,
    ) -> Result<Judgement, PuzzleError> {
        let player = pos.turn();
        let mut child = pos.clone();
        child.play_unchecked(m);
        if self.gave_no_check(&child) {
            return Ok(Judgement {
                feedback: Feedback::Mistake,
                now: Outlook::NoWin,
            });
        }
        let before = self.outlook(pos, player, budget)?;
        let after = self.outlook(&child, player, budget.saturating_sub(1))?;
        let feedback = match (goal.win, before, after) {
            (true, Outlook::Win(best), Outlook::Win(k)) => {
                if k < best {
                    Feedback::Best
                } else {
                    Feedback::Good {
                        slower: (k + 1 - best) / 2,
                    }
                }
            }
            (true, _, Outlook::Win(_)) => Feedback::Best,
            (true, _, _) => Feedback::Mistake,
            (false, _, Outlook::Win(_) | Outlook::Draw | Outlook::RuleWin(_)) => Feedback::Best,
            (false, _, _) => Feedback::Mistake,
        };
        // a mistake that leaves no win within the moves left may still leave a longer one:
        // the player is told so, never that the win is gone
        let now = match (feedback, goal.win, after) {
            (Feedback::Mistake, true, Outlook::NoWin) => self
                .win_beyond(&child, player, budget.saturating_sub(1))
                .map_or(after, Outlook::Win),
            _ => after,
        };
        Ok(Judgement { feedback, now })
    }

    /// The plies to a win of `player` in `pos` that takes more than `budget`: the tables'
    /// distance where they hold the position, else a proof a few moves longer, bounded in
    /// nodes (`None` when neither finds one, or the proof runs out).
    fn win_beyond(&self, pos: &Position, player: Color, budget: u32) -> Option<u32> {
        /// How much further than the moves left a win is looked for, in plies.
        const FURTHER: u32 = 6;
        /// The proof's node limit: a mistake's judgement waits for it.
        const NODES: u64 = 2_000_000;
        if let Ok(Some(v)) = self.table_value(pos) {
            let mover_wins = pos.turn() == player;
            return match v {
                Value::Win(n) if mover_wins && n > budget => Some(n),
                Value::Loss(n) if !mover_wins && n > budget => Some(n),
                _ => None,
            };
        }
        if self.long() {
            return None;
        }
        let mut options = self.options_at(pos);
        options.max_nodes = Some(options.max_nodes.map_or(NODES, |m| m.min(NODES)));
        solver::mate_distance(pos, player, budget + FURTHER, &options, self.tb)
            .ok()
            .flatten()
            .filter(|&n| n > budget)
    }

    /// Why a move that lost the goal lost it, when the perpetual-check rule (or, in a
    /// 连将杀, the rule that every move checks) is the reason: `child` is the position after
    /// the move, the opponent to move.
    pub fn rule_reason(
        &self,
        child: &Position,
        goal: Goal,
        budget: u32,
    ) -> Result<Option<Reason>, PuzzleError> {
        if self.gave_no_check(child) {
            return Ok(Some(Reason {
                zh: "没有将军，而连将杀每步都须将军",
                en: "it gives no check, and in 连将杀 every move must",
            }));
        }
        let asian = self.options.rules == crate::tablebase::Rules::Asian;
        Ok(match self.outlook(child, goal.side, budget)? {
            Outlook::RuleLoss(_) if asian => Some(Reason {
                zh: "长打作负：只有长将、长杀或长捉才能守住，而长打必须变着",
                en: "it loses by the 长打 rule (长打作负): only checking, threatening mate or chasing forever would hold, and the rule makes that side change",
            }),
            Outlook::RuleLoss(_) => Some(Reason {
                zh: "长将作负：只有长将才能守住",
                en: "it loses by the perpetual-check rule (长将作负): only checking forever would hold",
            }),
            Outlook::RuleWin(_) if goal.win && asian => Some(Reason {
                zh: "仍可凭长打作负取胜，但已无杀法",
                en: "it still wins by the 长打 rule (长打作负), but the forced mate is gone",
            }),
            Outlook::RuleWin(_) if goal.win => Some(Reason {
                zh: "仍可凭长将作负取胜，但已无杀法",
                en: "it still wins by the perpetual-check rule, but the forced mate is gone",
            }),
            _ => None,
        })
    }

    /// The reply that refutes the player's mistaken move, `child` being the position after
    /// it (the defender to move): the defender's best reply ([`Judge::defence`]), or none
    /// when the move lost by a 连将杀's rule, which no reply need refute.
    pub fn refutation(
        &self,
        child: &Position,
        player: Color,
        budget: u32,
    ) -> Result<Option<Move>, PuzzleError> {
        if self.gave_no_check(child) {
            return Ok(None);
        }
        self.defence(child, player, budget)
    }

    /// The defender's reply in `pos` (the defender to move) against `player`: the longest
    /// resistance (against a win) or the strongest move (tables), the first such in move
    /// generation order. `None` when the defender has no legal move.
    pub fn defence(
        &self,
        pos: &Position,
        player: Color,
        budget: u32,
    ) -> Result<Option<Move>, PuzzleError> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(None);
        }
        if self.table_value(pos)?.is_some()
            && let Some(tb) = self.tb
        {
            // the tables rank every move: quickest win, draws, longest resistance (less the
            // moves the rule forbids after the game)
            let ranked = self.table_moves(tb, pos)?;
            return Ok(ranked.first().map(|r| r.mv));
        }
        if self.long() {
            return self.long_defence(pos, player, budget);
        }
        // beyond the tables: the reply after which the player's mate is furthest away, a
        // reply that escapes it altogether first of all (never one the rule forbids: a
        // check that would repeat the game's positions while the defender checks on every
        // move)
        let mut best: Option<(Move, u32)> = None;
        for m in self.allowed_moves(pos) {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let d = match self.outlook(&child, player, budget.saturating_sub(1))? {
                Outlook::Win(n) => n,
                _ => u32::MAX,
            };
            if best.is_none_or(|(_, b)| d > b) {
                best = Some((m, d));
            }
        }
        Ok(best.map(|(m, _)| m))
    }

    /// A long composition's defence: the proven line's reply on it; off it, the first
    /// reply that escapes the mate within the budget, else the first after which no mate
    /// is quicker than the position's own distance less one ply (the longest resistance,
    /// as the depth-first judge picks it: a disproof per reply rather than a distance).
    fn long_defence(
        &self,
        pos: &Position,
        player: Color,
        budget: u32,
    ) -> Result<Option<Move>, PuzzleError> {
        if let Some((m, _)) = self.on_book(pos, budget) {
            return Ok(Some(m));
        }
        let moves = self.allowed_moves(pos);
        let within = match self.outlook(pos, player, budget)? {
            Outlook::Win(d) if d < 3 => return Ok(moves.first().copied()),
            Outlook::Win(d) => d - 3,
            _ => budget.saturating_sub(1),
        };
        for &m in &moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            if self.long_distance(&child, player, within, false)?.is_none() {
                return Ok(Some(m));
            }
        }
        Ok(moves.first().copied())
    }

    /// The player's best move in `pos` (the player to move): the quickest win, or a move
    /// that keeps the draw; the first such in move generation order (tables: in their
    /// ranking). `None` when no move keeps the goal.
    pub fn best_move(
        &self,
        pos: &Position,
        goal: Goal,
        budget: u32,
    ) -> Result<Option<Move>, PuzzleError> {
        let player = pos.turn();
        if self.table_value(pos)?.is_some()
            && let Some(tb) = self.tb
        {
            let ranked = self.table_moves(tb, pos)?;
            return Ok(ranked
                .first()
                .filter(|r| match r.value {
                    Value::Win(n) => n <= budget || !goal.win,
                    Value::Draw | Value::RuleWin(_) => !goal.win,
                    Value::Loss(_) | Value::RuleLoss(_) => false,
                })
                .map(|r| r.mv));
        }
        if let Some((m, _)) = self.on_book(pos, budget) {
            return Ok(Some(m));
        }
        let Outlook::Win(n) = self.outlook(pos, player, budget)? else {
            return Ok(None);
        };
        for m in self.allowed_moves(pos) {
            let mut child = pos.clone();
            child.play_unchecked(m);
            if self.gave_no_check(&child) {
                continue;
            }
            // (a long composition's: a win within one ply less is that long, none being
            // shorter; the proof's own bound is quicker to get than the distance)
            let keeps = if self.long() {
                self.long_distance(&child, player, n - 1, false)?.is_some()
            } else {
                self.outlook(&child, player, n - 1)? == Outlook::Win(n - 1)
            };
            if keeps {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// The main line from `pos` with the player to move: the player's best moves, the
    /// defender's longest resistance, up to `max_plies` or the end of the game.
    pub fn main_line(
        &self,
        pos: &Position,
        goal: Goal,
        budget: u32,
        max_plies: u32,
    ) -> Result<Vec<Move>, PuzzleError> {
        let player = pos.turn();
        let mut p = pos.clone();
        let mut left = budget;
        let mut line = Vec::new();
        // (the followed game, extended by the line as it is played, so that the rule counts
        // the line's own repetitions too; given back as it was)
        let followed = self.game.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let base = followed.as_ref().filter(|(start, moves)| {
            let mut end = start.clone();
            for &m in moves {
                end.play_unchecked(m);
            }
            end.key() == pos.key()
        });
        let result = (|| {
            while (line.len() as u32) < max_plies {
                if let Some((start, moves)) = base {
                    let mut game = moves.clone();
                    game.extend_from_slice(&line);
                    self.follow(start, &game);
                }
                let m = if p.turn() == player {
                    self.best_move(&p, goal, left)?
                } else {
                    self.defence(&p, player, left)?
                };
                let Some(m) = m else { break };
                p.play_unchecked(m);
                line.push(m);
                left = left.saturating_sub(1);
            }
            Ok::<(), PuzzleError>(())
        })();
        *self.game.lock().unwrap_or_else(|e| e.into_inner()) = followed;
        result.map(|()| line)
    }

    /// Checks a puzzle under perfect play: the goal holds within the stipulation, and the
    /// stored line keeps it at every move of the player, is legal, and ends in mate (win
    /// goals) or keeps the draw through its length (draw goals). Returns the shortest win
    /// in plies for win goals.
    pub fn verify(&self, p: &Puzzle) -> Result<Option<u32>, Unsound> {
        if (p.entry.checks && !self.options.checks_only)
            || (p.entry.mate && !self.options.mate_only)
            || (p.entry.long && !self.long())
        {
            return Judge::for_puzzle(self.tb, p)
                .with_rules(self.options.rules)
                .verify(p);
        }
        if p.entry.long {
            return self.verify_long(p);
        }
        let player = p.goal.side;
        let budget = p.budget();
        let start = self.outlook(&p.position, player, budget)?;
        let shortest = match (p.goal.win, start) {
            (true, Outlook::Win(n)) => Some(n),
            (true, o) => return Err(Unsound::NoWin { budget, outlook: o }),
            (false, Outlook::Draw) => None,
            (false, o) => return Err(Unsound::NotADraw(o)),
        };
        if let (Some(n), Some(moves)) = (shortest, p.entry.moves)
            && n.div_ceil(2) != moves
        {
            return Err(Unsound::Stipulation {
                stated: moves,
                shortest: n.div_ceil(2),
            });
        }
        let mut pos = p.position.clone();
        let mut left = budget;
        for (i, &m) in p.line.iter().enumerate() {
            if pos.turn() == player {
                let f = self.judge(&pos, m, p.goal, left)?;
                if f == Feedback::Mistake {
                    return Err(Unsound::LineMistake { ply: i + 1, mv: m });
                }
            }
            pos.play_unchecked(m);
            left = left.saturating_sub(1);
        }
        if p.goal.win {
            if !pos.legal_moves().is_empty() || (p.entry.mate && !pos.is_check()) {
                return Err(Unsound::LineNotMate);
            }
            if shortest.is_some_and(|n| p.line.len() as u32 != n) {
                return Err(Unsound::LineLength {
                    plies: p.line.len(),
                    shortest: shortest.unwrap_or(0),
                });
            }
        }
        Ok(shortest)
    }

    /// [`Judge::verify`] of a long composition, by proof-number search and never from its
    /// own line: the shortest win from the start is the stipulation and the line's length;
    /// after each of the player's moves of the line a win within one ply less is proven,
    /// and after each of the defender's no win within three plies less (its reply resists
    /// longest); the line ends in mate.
    fn verify_long(&self, p: &Puzzle) -> Result<Option<u32>, Unsound> {
        let mut judge = Judge::for_puzzle(self.tb, p).with_rules(self.options.rules);
        judge.book = None;
        judge.options.time = Some(std::time::Duration::from_secs(LONG_VERIFY_SECONDS));
        let player = p.goal.side;
        let budget = p.budget();
        let n = match judge.long_distance(&p.position, player, budget, true)? {
            Some(n) => n,
            None => {
                return Err(Unsound::NoWin {
                    budget,
                    outlook: Outlook::NoWin,
                });
            }
        };
        if let Some(moves) = p.entry.moves
            && n.div_ceil(2) != moves
        {
            return Err(Unsound::Stipulation {
                stated: moves,
                shortest: n.div_ceil(2),
            });
        }
        if p.line.len() as u32 != n {
            return Err(Unsound::LineLength {
                plies: p.line.len(),
                shortest: n,
            });
        }
        let mut pos = p.position.clone();
        for (i, &m) in p.line.iter().enumerate() {
            let ours = pos.turn() == player;
            pos.play_unchecked(m);
            judge.follow(&p.position, &p.line[..=i]);
            let left = n - 1 - i as u32;
            let holds = if ours {
                !judge.gave_no_check(&pos)
                    && if left == 0 {
                        pos.legal_moves().is_empty()
                    } else {
                        judge.long_distance(&pos, player, left, false)?.is_some()
                    }
            } else {
                left < 2
                    || judge
                        .long_distance(&pos, player, left - 2, false)?
                        .is_none()
            };
            if !holds {
                return Err(if ours {
                    Unsound::LineMistake { ply: i + 1, mv: m }
                } else {
                    Unsound::LineDefence { ply: i + 1, mv: m }
                });
            }
        }
        if !pos.legal_moves().is_empty() {
            return Err(Unsound::LineNotMate);
        }
        Ok(Some(n))
    }
}
