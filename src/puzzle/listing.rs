//! A puzzle as a list shows it (`canju puzzle list --json`, the server's `/api/puzzles`),
//! and a recorded result's mark.

use serde::Serialize;

use crate::notation::{Notation, Style, format_move};

use super::Puzzle;
use super::progress::Record;

/// A puzzle's entry as a list shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Summary<'a> {
    /// The puzzle's id.
    pub id: &'a str,
    /// Its title.
    pub title: &'a str,
    /// Its title in English ([`Puzzle::title`]).
    pub title_en: String,
    /// The collection it belongs to.
    pub collection: &'a str,
    /// Where it comes from.
    pub source: &'a str,
    /// Its position.
    pub fen: &'a str,
    /// Its goal as written (`红先胜`).
    pub goal: &'a str,
    /// Its stipulation in moves, if any.
    pub moves: Option<u32>,
    /// 连将杀: every move of the player's must give check.
    pub checks: bool,
    /// 杀法: only checkmate (将死) counts as the win, not stalemate (困毙).
    pub mate: bool,
    /// A long composition: judged by proof-number search along its proven line.
    pub long: bool,
    /// The main line, in ICCS coordinates.
    pub line: Vec<String>,
    /// Its tags.
    pub tags: &'a [String],
    /// Its tags in English, in the same order ([`super::words::tag`]).
    pub tags_en: Vec<String>,
    /// Its difficulty, 1 to 5.
    pub difficulty: u8,
}

/// A puzzle with what a page shows of it beyond the list.
#[derive(Clone, Debug, Serialize)]
pub struct Details<'a> {
    /// The list's entry.
    #[serde(flatten)]
    pub summary: Summary<'a>,
    /// The goal in English words, with the stipulation.
    pub goal_text: String,
    /// The goal in Chinese words.
    pub goal_zh: String,
    /// `red` or `black`.
    pub side_to_move: &'static str,
    /// The main line in Chinese notation.
    pub line_chinese: Vec<String>,
}

impl Puzzle {
    /// The puzzle as a list shows it.
    pub fn summary(&self) -> Summary<'_> {
        Summary {
            id: &self.entry.id,
            title: &self.entry.title,
            title_en: self.title(super::words::Lang::En),
            collection: &self.collection,
            source: &self.entry.source,
            fen: &self.entry.fen,
            goal: &self.entry.goal,
            moves: self.entry.moves,
            checks: self.entry.checks,
            mate: self.entry.mate,
            long: self.entry.long,
            line: self.line.iter().map(|m| m.to_string()).collect(),
            tags: &self.entry.tags,
            tags_en: self.tags(super::words::Lang::En),
            difficulty: self.entry.difficulty,
        }
    }

    /// The puzzle as a page shows it.
    pub fn details(&self) -> Details<'_> {
        let mut pos = self.position.clone();
        let mut line = Vec::new();
        for &m in &self.line {
            line.push(format_move(&pos, m, Notation::Chinese, Style::default()));
            pos.play_unchecked(m);
        }
        Details {
            summary: self.summary(),
            goal_text: self.goal_text(),
            goal_zh: self.goal_words(super::words::Lang::Zh),
            side_to_move: self.position.turn().name(),
            line_chinese: line,
        }
    }
}

/// A puzzle's recorded result, its last attempt's: `clean`, `helped`, `failed`, or none
/// when it was never tried.
pub fn mark(r: Option<&Record>) -> Option<&'static str> {
    r.and_then(Record::last_finish)
        .map(super::progress::Finish::name)
}
