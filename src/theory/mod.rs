//! Endgame lore as measured statements. A claim (a material, or a saying such as
//! 马卒难破士相全 that names one) is measured over every legal position of its table: wins,
//! draws and losses of the stronger side for each side to move, the same split by the
//! defence's formation, the attacking soldier's rank and the attacking general's file,
//! counter-examples to the lore, and a verdict.
//!
//! In the stored form the stronger side is red (at the bottom) and the defence black, so
//! every definition below is written from red's side: ranks 0..9 from red's back rank.
//! Mirror images are counted separately, as in the tables' statistics.

pub mod sayings;

use std::cmp::Reverse;
use std::fmt;

use rayon::prelude::*;
use serde::Serialize;

use crate::game::material::Material;
use crate::game::moves::Move;
use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::Position;
use crate::game::square::Square;
use crate::tablebase::index::{self, Decoder, Layout, MAX_PIECES, Squares};
use crate::tablebase::value::code;
use crate::tablebase::{Table, TableError, Tablebase, Value};

pub use sayings::{SAYINGS, Saying};

/// What a saying claims for the stronger side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lore {
    /// The stronger side wins.
    Win,
    /// The defence holds.
    Draw,
}

impl Lore {
    /// 胜 or 和.
    pub fn chinese(self) -> &'static str {
        match self {
            Lore::Win => "胜",
            Lore::Draw => "和棋",
        }
    }
}

/// A text that is no verdict.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a verdict: use win or draw")]
pub struct ParseLoreError(pub String);

impl std::str::FromStr for Lore {
    type Err = ParseLoreError;
    fn from_str(s: &str) -> Result<Lore, ParseLoreError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "win" | "胜" | "必胜" => Ok(Lore::Win),
            "draw" | "和" | "和棋" => Ok(Lore::Draw),
            _ => Err(ParseLoreError(s.to_string())),
        }
    }
}

/// Where the stronger side's soldier stands, by rank (red's ranks 0..9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SoldierClass {
    /// 未过河兵: on its own half (ranks 3–4).
    OwnHalf,
    /// 高兵: across the river but not yet on the palace's ranks (ranks 5–6).
    High,
    /// 低兵: on the palace's top or middle rank (ranks 7–8).
    Low,
    /// 底兵 (老兵): on the last rank (rank 9).
    Bottom,
}

impl SoldierClass {
    /// Every class, own half first.
    pub const ALL: [SoldierClass; 4] = [
        SoldierClass::OwnHalf,
        SoldierClass::High,
        SoldierClass::Low,
        SoldierClass::Bottom,
    ];

    /// The class of a red soldier on `s`.
    pub fn of(s: Square) -> SoldierClass {
        match s.rank().index() {
            0..=4 => SoldierClass::OwnHalf,
            5..=6 => SoldierClass::High,
            7..=8 => SoldierClass::Low,
            _ => SoldierClass::Bottom,
        }
    }

    /// The class in Chinese (未过河兵, 高兵, 低兵, 底兵).
    pub fn chinese(self) -> &'static str {
        match self {
            SoldierClass::OwnHalf => "未过河兵",
            SoldierClass::High => "高兵",
            SoldierClass::Low => "低兵",
            SoldierClass::Bottom => "底兵",
        }
    }

    /// The precise definition, in English.
    pub fn definition(self) -> &'static str {
        match self {
            SoldierClass::OwnHalf => "on its own side of the river (ranks 3–4)",
            SoldierClass::High => "across the river, not yet on the palace's ranks (ranks 5–6)",
            SoldierClass::Low => "on the palace's top or middle rank (ranks 7–8)",
            SoldierClass::Bottom => "on the last rank (rank 9; also called 老兵)",
        }
    }

    /// Its ranks, counted from red's back rank.
    pub fn ranks(self) -> &'static str {
        match self {
            SoldierClass::OwnHalf => "ranks 3–4",
            SoldierClass::High => "ranks 5–6",
            SoldierClass::Low => "ranks 7–8",
            SoldierClass::Bottom => "rank 9",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The definitions behind the conditions, one line each, for output and docs/theory.md.
pub const DEFINITIONS: &[&str] = &[
    "red is the stronger side (at the bottom), black the defence; ranks 0–9 from red's back rank",
    "defence in home formation (士象归位): the black general on its start point e9 or beside it (d9, f9, e8), every black advisor on d9 or f9, every black elephant on c9 or g9",
    "soldier classes (one red soldier): 未过河兵 on its own half (ranks 3–4); 高兵 across the river, not yet on the palace's ranks (ranks 5–6); 低兵 on the palace's top or middle rank (ranks 7–8); 底兵 (老兵) on the last rank (rank 9)",
    "red general on the centre file (帅占中): the red general stands on file e (e0, e1 or e2)",
    "positions are legal positions with mirror images counted separately; win/draw/loss are the stronger side's results under perfect play",
    "verdict: the lore holds when every position in its scope agrees, holds with exceptions when at least 75% do, and fails otherwise",
];

impl Report {
    /// The definitions the report's text uses: the home formation only where the defence
    /// has advisors or elephants, the soldier classes only where the stronger side has one
    /// soldier, the verdict's thresholds only where a saying states a verdict.
    pub fn definitions(&self) -> Vec<&'static str> {
        let has = |group: &str| self.conditions.iter().any(|c| c.group == group);
        DEFINITIONS
            .iter()
            .enumerate()
            .filter(|&(i, _)| match i {
                1 => has("formation"),
                2 => has("soldier"),
                3 => has("general"),
                5 => self.lore_verdict.is_some(),
                _ => true,
            })
            .map(|(_, d)| *d)
            .collect()
    }
}

/// The positions a claim speaks of; `Scope::default()` is every legal position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Only this side to move (red: the stronger side).
    pub side_to_move: Option<Color>,
    /// Only the defence in home formation.
    pub home: bool,
    /// Only the stronger side's (single) soldier in this class.
    pub soldier: Option<SoldierClass>,
}

impl Scope {
    /// The scope in Chinese.
    pub fn chinese(&self) -> String {
        let mut parts = Vec::new();
        match self.side_to_move {
            Some(Color::Black) => parts.push("守方先走"),
            Some(Color::Red) => parts.push("攻方先走"),
            None => {}
        }
        if self.home {
            parts.push("士象归位");
        }
        if let Some(c) = self.soldier {
            parts.push(c.chinese());
        }
        if parts.is_empty() {
            "所有局面".to_string()
        } else {
            parts.join("且")
        }
    }

    /// The scope in English.
    pub fn english(&self) -> String {
        let mut parts = Vec::new();
        match self.side_to_move {
            Some(Color::Black) => parts.push("the defence to move".to_string()),
            Some(Color::Red) => parts.push("the stronger side to move".to_string()),
            None => {}
        }
        if self.home {
            parts.push("the defence in home formation".to_string());
        }
        if let Some(c) = self.soldier {
            parts.push(format!("the soldier {}", c.definition()));
        }
        if parts.is_empty() {
            "over all positions".to_string()
        } else {
            format!("with {}", parts.join(" and "))
        }
    }

    fn contains(&self, turn: Color, f: &Features) -> bool {
        self.side_to_move.is_none_or(|c| c == turn)
            && (!self.home || f.home)
            && self.soldier.is_none_or(|c| f.soldier == Some(c))
    }
}

/// What is claimed: a material, the saying it came from, the claimed verdict and the
/// positions the claim speaks of.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The text as given.
    pub text: String,
    /// The material in stored form (stronger side first).
    pub material: Material,
    /// The saying, when the claim is one.
    pub saying: Option<&'static Saying>,
    /// The verdict claimed.
    pub lore: Option<Lore>,
    /// The positions it speaks of.
    pub scope: Scope,
}

/// A claim canju cannot measure: neither a saying it knows nor a material, or a material
/// larger than any table.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ClaimError(String);

impl Claim {
    /// Reads a saying (any known form) or a material (any form `gen` reads).
    pub fn parse(text: &str) -> Result<Claim, ClaimError> {
        if let Some(s) = sayings::find(text) {
            let material: Material = s.material.parse().expect("sayings name materials");
            return Ok(Claim {
                text: s.text.to_string(),
                material,
                saying: Some(s),
                lore: Some(s.lore),
                scope: s.scope,
            });
        }
        let shown: String = text.chars().take(40).collect();
        match text.parse::<Material>() {
            Ok(m) if m.piece_count() > MAX_PIECES => Err(ClaimError(format!(
                "'{shown}': {} pieces; canju's tables hold at most {MAX_PIECES} (both generals included)",
                m.piece_count()
            ))),
            Ok(m) => Ok(Claim {
                text: text.trim().to_string(),
                material: m.canonical(),
                saying: None,
                lore: None,
                scope: Scope::default(),
            }),
            Err(e) => Err(ClaimError(format!(
                "'{shown}' is neither a saying canju knows nor a material ({e}); sayings: {}",
                SAYINGS
                    .iter()
                    .map(|s| s.text)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Whether the claim has conditions of its own: home formation needs a defence with
    /// advisors or elephants, a soldier class one soldier.
    pub fn check_scope(&self) -> Result<(), ClaimError> {
        if self.scope.home && !has_formation(&self.material) {
            return Err(ClaimError(format!(
                "{}: the defence has no advisor or elephant, so it has no home formation",
                self.material
            )));
        }
        if self.scope.soldier.is_some() && soldier_count(&self.material) != 1 {
            return Err(ClaimError(format!(
                "{}: a soldier class needs exactly one soldier on the stronger side",
                self.material
            )));
        }
        Ok(())
    }
}

/// What the defence has of its advisors and elephants, e.g. "士象全 (full advisors and
/// elephants)" or "缺1士 (missing one advisor)".
pub fn defence_text(m: &Material) -> String {
    let d = m.side(Color::Black);
    let (a, b) = (
        2u8.saturating_sub(d.count(Kind::Advisor)),
        2u8.saturating_sub(d.count(Kind::Elephant)),
    );
    let word = |n: u8, one: &str, two: &str| match n {
        1 => format!("one {one}"),
        _ => format!("two {two}"),
    };
    match (a, b) {
        (0, 0) => "士象全 (full advisors and elephants)".to_string(),
        (2, 2) => "光将 (a bare general: no advisor, no elephant)".to_string(),
        (a, 0) => format!("缺{a}士 (missing {})", word(a, "advisor", "advisors")),
        (0, b) => format!("缺{b}象 (missing {})", word(b, "elephant", "elephants")),
        (a, b) => format!(
            "缺{a}士{b}象 (missing {} and {})",
            word(a, "advisor", "advisors"),
            word(b, "elephant", "elephants")
        ),
    }
}

fn has_formation(m: &Material) -> bool {
    let d = m.side(Color::Black);
    d.count(Kind::Advisor) + d.count(Kind::Elephant) > 0
}

fn soldier_count(m: &Material) -> u8 {
    m.side(Color::Red).count(Kind::Soldier)
}

/// Legal positions and the stronger side's results among them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Legal positions.
    pub legal: u64,
    /// Won by the stronger side.
    pub win: u64,
    /// Drawn.
    pub draw: u64,
    /// Lost by the stronger side.
    pub loss: u64,
}

impl Counts {
    fn add(&mut self, outcome: Outcome, weight: u64) {
        self.legal += weight;
        match outcome {
            Outcome::Win => self.win += weight,
            Outcome::Draw => self.draw += weight,
            Outcome::Loss => self.loss += weight,
        }
    }

    fn merge(&mut self, o: &Counts) {
        self.legal += o.legal;
        self.win += o.win;
        self.draw += o.draw;
        self.loss += o.loss;
    }

    /// A share of the legal positions, in percent.
    pub fn percent(&self, n: u64) -> f64 {
        if self.legal == 0 {
            0.0
        } else {
            100.0 * n as f64 / self.legal as f64
        }
    }

    fn agreeing(&self, lore: Lore) -> u64 {
        match lore {
            Lore::Win => self.win,
            Lore::Draw => self.draw,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Win,
    Draw,
    Loss,
}

/// The stronger side's result in a position with `turn` to move whose code is `c` (a
/// verdict by the perpetual-check rule counts as a win or loss).
fn outcome(turn: Color, c: u8) -> Outcome {
    match (turn, code::wins(c), code::loses(c)) {
        (_, false, false) => Outcome::Draw,
        (Color::Red, true, _) | (Color::Black, _, true) => Outcome::Win,
        _ => Outcome::Loss,
    }
}

/// The conditions a position is split by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Features {
    home: bool,
    soldier: Option<SoldierClass>,
    centre: bool,
}

/// The defence's home points for each kind (black's side: rank 9 is its back rank).
fn home_points(kind: Kind) -> &'static [(u8, u8)] {
    match kind {
        // its start point or beside it
        Kind::General => &[(4, 9), (3, 9), (5, 9), (4, 8)],
        Kind::Advisor => &[(3, 9), (5, 9)],
        Kind::Elephant => &[(2, 9), (6, 9)],
        _ => &[],
    }
}

fn on(points: &[(u8, u8)], s: Square) -> bool {
    points
        .iter()
        .any(|&(f, r)| s.file().index() == f && s.rank().index() == r)
}

/// The features of a placement (slot order of the layout).
fn features(pieces: &[Piece], squares: &[Square], one_soldier: bool) -> Features {
    let mut home = true;
    let mut soldier = None;
    let mut centre = false;
    for (p, &s) in pieces.iter().zip(squares) {
        match (p.color, p.kind) {
            (Color::Red, Kind::General) => centre = s.file().index() == 4,
            (Color::Red, Kind::Soldier) if one_soldier => soldier = Some(SoldierClass::of(s)),
            (Color::Black, k) => {
                if matches!(k, Kind::General | Kind::Advisor | Kind::Elephant) {
                    home &= on(home_points(k), s);
                }
            }
            _ => {}
        }
    }
    Features {
        home,
        soldier,
        centre,
    }
}

/// One condition's counts for one side to move.
#[derive(Clone, Debug, Serialize)]
pub struct ConditionCounts {
    /// What the condition is, e.g. "defence in home formation" or "soldier 高兵".
    pub name: String,
    /// The same in Chinese, e.g. "士象归位".
    pub name_zh: String,
    /// The group it belongs to (its members split the legal positions).
    pub group: &'static str,
    #[serde(serialize_with = "color_name")]
    /// The side to move.
    pub side_to_move: Color,
    #[serde(flatten)]
    /// Its counts.
    pub counts: Counts,
}

fn color_name<S: serde::Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.name())
}

fn as_text<T: fmt::Display, S: serde::Serializer>(t: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(t)
}

fn kind_letter<S: serde::Serializer>(k: &Kind, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&k.fen_char().to_ascii_uppercase())
}

/// A position that contradicts the lore.
#[derive(Clone, Debug, Serialize)]
pub struct Counterexample {
    /// The position.
    pub fen: String,
    /// The table's value for the side to move, e.g. "black to move: loses in 100 plies".
    pub value: String,
    /// The same in Chinese, e.g. "黑方走：50步被杀".
    pub value_zh: String,
    /// The best move (ICCS), when the side to move has one.
    pub best_move: Option<String>,
    /// Whether the defence stands in home formation.
    pub home: bool,
}

/// The longest win of the stronger side (with it to move) and its best line.
#[derive(Clone, Debug, Serialize)]
pub struct Longest {
    /// The position.
    pub fen: String,
    /// Plies to mate.
    pub plies: u32,
    /// The line in ICCS, best moves for both sides by the tables.
    pub line: Vec<String>,
}

/// How a claim fares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Every position in scope agrees.
    Holds,
    /// At least three in four agree.
    HoldsWithExceptions,
    /// Fewer than three in four agree.
    Fails,
}

impl Level {
    fn of(agree: u64, total: u64) -> Level {
        if agree == total {
            Level::Holds
        } else if agree * 4 >= total * 3 {
            Level::HoldsWithExceptions
        } else {
            Level::Fails
        }
    }

    /// The verdict in Chinese.
    pub fn chinese(self) -> &'static str {
        match self {
            Level::Holds => "成立",
            Level::HoldsWithExceptions => "大体成立，有例外",
            Level::Fails => "不成立",
        }
    }

    /// The verdict in English.
    pub fn english(self) -> &'static str {
        match self {
            Level::Holds => "the lore holds",
            Level::HoldsWithExceptions => "the lore holds with exceptions",
            Level::Fails => "the lore fails",
        }
    }
}

/// The verdict on a claim.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// `None` when no verdict was claimed (a bare material).
    pub level: Option<Level>,
    /// The share of the positions in scope that agree with the lore, in percent.
    pub share: Option<f64>,
    /// In Chinese.
    pub zh: String,
    /// In English.
    pub en: String,
}

/// Per board point, for one kind of the stronger side's pieces and one side to move: the
/// legal positions with such a piece there, and how many of them the stronger side wins.
#[derive(Clone, Debug, Serialize)]
pub struct Heat {
    #[serde(serialize_with = "kind_letter")]
    /// The piece of the stronger side mapped.
    pub kind: Kind,
    #[serde(serialize_with = "color_name")]
    /// The side to move counted.
    pub side_to_move: Color,
    /// Indexed by square (`Square::index`).
    pub legal: Vec<u64>,
    /// Positions won, by the piece's point.
    pub win: Vec<u64>,
}

impl Heat {
    /// The win share at a point, if the piece ever stands there.
    pub fn share(&self, s: Square) -> Option<f64> {
        let n = self.legal[s.index()];
        (n > 0).then(|| self.win[s.index()] as f64 / n as f64)
    }
}

/// Everything measured about a claim.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The claim as asked.
    pub claim: String,
    #[serde(serialize_with = "as_text")]
    /// Its material.
    pub material: Material,
    /// The material in Chinese.
    pub material_chinese: String,
    /// The verdict the saying states, if it states one.
    pub lore_verdict: Option<Lore>,
    /// What the defence has of its advisors and elephants.
    pub defence: String,
    /// The positions the claim speaks of, in words.
    pub scope: String,
    /// The scope in Chinese.
    pub scope_chinese: String,
    /// The rule set of the table.
    pub rules: String,
    /// Counts per side to move.
    pub sides: Vec<SideCounts>,
    /// Counts per condition of the scope.
    pub conditions: Vec<ConditionCounts>,
    /// The counts over the claim's scope.
    pub in_scope: Counts,
    /// The longest win.
    pub longest: Option<Longest>,
    /// Positions that go against the claim.
    pub counterexamples: Vec<Counterexample>,
    /// Counter-examples in all, among the positions in scope (the list shows the first
    /// `limit`).
    pub counterexample_count: u64,
    /// What the numbers say of the claim.
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The heatmap, when asked for.
    pub heat: Option<Heat>,
}

/// One side to move's totals.
#[derive(Clone, Debug, Serialize)]
pub struct SideCounts {
    #[serde(serialize_with = "color_name")]
    /// The side to move.
    pub side_to_move: Color,
    #[serde(flatten)]
    /// Its counts.
    pub counts: Counts,
}

/// What to measure besides the totals.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Counter-examples to list.
    pub limit: usize,
    /// A heatmap for this kind of the stronger side's pieces, with this side to move.
    pub heat: Option<(Kind, Color)>,
    /// When set (a server's client left, or its time is up), the count stops and the
    /// measure ends with [`TheoryError::Stopped`].
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// A counter-example found while counting, before it is written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    /// Most instructive first: smaller is better.
    rank: (Reverse<bool>, Reverse<bool>, Reverse<u32>),
    turn: usize,
    index: u64,
    /// The stronger side's non-general pieces, for listing varied examples.
    attackers: u128,
}

#[derive(Clone)]
struct Acc {
    sides: [Counts; 2],
    formation: [[Counts; 2]; 2],
    soldier: [[Counts; 4]; 2],
    centre: [[Counts; 2]; 2],
    in_scope: Counts,
    heat: Option<(Vec<u64>, Vec<u64>)>,
    candidates: Vec<Candidate>,
    counterexamples: u64,
}

impl Acc {
    fn new(heat: bool) -> Acc {
        Acc {
            sides: Default::default(),
            formation: Default::default(),
            soldier: Default::default(),
            centre: Default::default(),
            in_scope: Counts::default(),
            heat: heat.then(|| (vec![0; 90], vec![0; 90])),
            candidates: Vec::new(),
            counterexamples: 0,
        }
    }

    fn merge(mut self, o: Acc, keep: usize) -> Acc {
        for t in 0..2 {
            self.sides[t].merge(&o.sides[t]);
            for i in 0..2 {
                self.formation[t][i].merge(&o.formation[t][i]);
                self.centre[t][i].merge(&o.centre[t][i]);
            }
            for i in 0..4 {
                self.soldier[t][i].merge(&o.soldier[t][i]);
            }
        }
        self.in_scope.merge(&o.in_scope);
        if let (Some((l, w)), Some((ol, ow))) = (&mut self.heat, &o.heat) {
            for i in 0..90 {
                l[i] += ol[i];
                w[i] += ow[i];
            }
        }
        self.candidates.extend(o.candidates);
        trim(&mut self.candidates, keep);
        self.counterexamples += o.counterexamples;
        self
    }
}

/// Keeps the `keep` best candidates, in order.
fn trim(c: &mut Vec<Candidate>, keep: usize) {
    if c.len() > keep {
        c.sort_unstable();
        c.truncate(keep);
    }
}

/// A table error or a claim the table cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum TheoryError {
    #[error(transparent)]
    /// A table could not be read.
    Table(#[from] TableError),
    #[error(transparent)]
    /// The claim cannot be measured.
    Claim(#[from] ClaimError),
    #[error("stopped before the count was done")]
    /// Stopped before the count was done.
    Stopped,
}

impl crate::tablebase::HasRemedy for TheoryError {
    fn remedy(&self) -> Option<crate::tablebase::Remedy> {
        match self {
            TheoryError::Table(t) => t.remedy(),
            _ => None,
        }
    }
}

/// Measures a claim over its table (which must be present and is checked in full first).
pub fn measure(
    claim: &Claim,
    tb: &Tablebase,
    request: &Request,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Report, TheoryError> {
    claim.check_scope()?;
    let table = tb.table(claim.material)?;
    table.check_all()?;
    if let Some((kind, _)) = request.heat
        && !can_map(&claim.material, kind)
    {
        return Err(TheoryError::Claim(ClaimError(format!(
            "{}: the stronger side has no {} for a heatmap; it can map {}",
            claim.material,
            kind_name(kind),
            heat_kinds_text(&claim.material)
        ))));
    }
    let acc = count(&table, claim, request, progress)?;
    report(claim, tb, &table, request, acc)
}

/// Whether a heatmap can map the stronger side's pieces of `kind`: it has some (its general
/// always: a material counts the pieces besides the generals).
pub fn can_map(m: &Material, kind: Kind) -> bool {
    kind == Kind::General || m.side(Color::Red).count(kind) > 0
}

/// The stronger side's kinds of piece a heatmap can map (the general included), in words:
/// "general (帅, K), horse (马, N), soldier (兵, P)".
pub fn heat_kinds_text(m: &Material) -> String {
    Kind::ALL
        .iter()
        .filter(|&&k| can_map(m, k))
        .map(|&k| {
            let name = kind_name(k);
            format!("{}, {})", &name[..name.len() - 1], k.wxf_char())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::General => "general (帅)",
        Kind::Advisor => "advisor (仕)",
        Kind::Elephant => "elephant (相)",
        Kind::Horse => "horse (马)",
        Kind::Chariot => "chariot (车)",
        Kind::Cannon => "cannon (炮)",
        Kind::Soldier => "soldier (兵)",
    }
}

/// Counts every legal position of the table, by general pair in parallel.
fn count(
    table: &Table,
    claim: &Claim,
    request: &Request,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Acc, TheoryError> {
    let layout: &Layout = table.layout();
    let sides = [
        table.checked_side(Color::Red)?,
        table.checked_side(Color::Black)?,
    ];
    let per_pair = layout.size() / index::GENERAL_PAIR_COUNT;
    let pieces = layout.pieces();
    let n = pieces.len();
    let one_soldier = soldier_count(&claim.material) == 1;
    let keep = (request.limit * 32).max(64);
    let done = std::sync::atomic::AtomicU64::new(0);
    let lore = claim.lore;
    let stopped = || {
        request
            .stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    };
    let acc = (0..index::GENERAL_PAIR_COUNT)
        .into_par_iter()
        .fold(
            || Acc::new(request.heat.is_some()),
            |mut acc, pair| {
                if stopped() {
                    return acc;
                }
                let mirrored = !index::pair_index_is_symmetric(pair);
                let weight = if mirrored { 2 } else { 1 };
                let mut squares: Squares = [Square::new(0).expect("a0"); MAX_PIECES];
                let mut decoder = Decoder::new(layout);
                for i in pair * per_pair..(pair + 1) * per_pair {
                    let codes = [sides[0][i as usize], sides[1][i as usize]];
                    if codes == [code::ILLEGAL; 2] || decoder.squares(i, &mut squares).is_none() {
                        continue;
                    }
                    let f = features(pieces, &squares[..n], one_soldier);
                    for turn in Color::ALL {
                        let c = codes[turn.index()];
                        if c == code::ILLEGAL {
                            continue;
                        }
                        let o = outcome(turn, c);
                        let t = turn.index();
                        acc.sides[t].add(o, weight);
                        acc.formation[t][usize::from(!f.home)].add(o, weight);
                        acc.centre[t][usize::from(!f.centre)].add(o, weight);
                        if let Some(s) = f.soldier {
                            acc.soldier[t][s.index()].add(o, weight);
                        }
                        let in_scope = claim.scope.contains(turn, &f);
                        if in_scope {
                            acc.in_scope.add(o, weight);
                        }
                        if let Some((kind, side)) = request.heat
                            && side == turn
                            && let Some((legal, win)) = &mut acc.heat
                        {
                            for (p, &s) in pieces.iter().zip(&squares[..n]) {
                                if p.color != Color::Red || p.kind != kind {
                                    continue;
                                }
                                let points: &[Square] =
                                    if mirrored { &[s, s.mirror()] } else { &[s] };
                                for q in points {
                                    legal[q.index()] += 1;
                                    if o == Outcome::Win {
                                        win[q.index()] += 1;
                                    }
                                }
                            }
                        }
                        // counter-examples are positions the claim speaks of
                        let against = in_scope
                            && match lore {
                                Some(Lore::Draw) => o == Outcome::Win,
                                Some(Lore::Win) => o != Outcome::Win,
                                None => false,
                            };
                        if against {
                            acc.counterexamples += weight;
                            // a win by rule has no mate distance: it ranks as the shortest
                            let plies = if lore == Some(Lore::Draw) && code::is_decided(c) {
                                // the far list was checked on opening; an entry it
                                // lacks (a verify tells) ranks as its code reads
                                table
                                    .plies_of(turn, i, c)
                                    .unwrap_or_else(|_| code::plies(c))
                            } else {
                                0
                            };
                            let attackers = pieces
                                .iter()
                                .zip(&squares[..n])
                                .filter(|(p, _)| p.color == Color::Red && p.kind != Kind::General)
                                .fold(0u128, |m, (_, s)| m | 1 << s.index());
                            acc.candidates.push(Candidate {
                                rank: (
                                    Reverse(f.home),
                                    Reverse(turn == Color::Black),
                                    Reverse(plies),
                                ),
                                turn: t,
                                index: i,
                                attackers,
                            });
                            if acc.candidates.len() >= 4 * keep {
                                trim(&mut acc.candidates, keep);
                            }
                        }
                    }
                }
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress(d, index::GENERAL_PAIR_COUNT);
                acc
            },
        )
        .reduce(|| Acc::new(request.heat.is_some()), |a, b| a.merge(b, keep));
    if stopped() {
        return Err(TheoryError::Stopped);
    }
    Ok(acc)
}

/// The tables' main line from `pos`: the best move for the side to move each time, up to
/// `max` plies or the end of the game.
pub fn table_line(tb: &Tablebase, pos: &Position, max: usize) -> Result<Vec<Move>, TableError> {
    let mut p = pos.clone();
    let mut line = Vec::new();
    while line.len() < max {
        let ranked = tb.rank_moves(&p)?;
        let Some(best) = ranked.first() else { break };
        p.play_unchecked(best.mv);
        line.push(best.mv);
    }
    Ok(line)
}

fn report(
    claim: &Claim,
    tb: &Tablebase,
    table: &Table,
    request: &Request,
    mut acc: Acc,
) -> Result<Report, TheoryError> {
    let layout = table.layout();
    let m = claim.material;
    let mut conditions = Vec::new();
    for turn in Color::ALL {
        let t = turn.index();
        let mut push = |(name, name_zh): (String, String), group: &'static str, counts: Counts| {
            conditions.push(ConditionCounts {
                name,
                name_zh,
                group,
                side_to_move: turn,
                counts,
            })
        };
        if has_formation(&m) {
            push(
                (
                    "defence in home formation (士象归位)".into(),
                    "士象归位".into(),
                ),
                "formation",
                acc.formation[t][0],
            );
            push(
                ("defence broken (士象不归位)".into(), "士象不归位".into()),
                "formation",
                acc.formation[t][1],
            );
        }
        if soldier_count(&m) == 1 {
            for c in SoldierClass::ALL {
                push(
                    (
                        format!("soldier {} ({})", c.chinese(), c.ranks()),
                        c.chinese().to_string(),
                    ),
                    "soldier",
                    acc.soldier[t][c.index()],
                );
            }
        }
        push(
            (
                "red general on the centre file (帅占中)".into(),
                "帅占中".into(),
            ),
            "general",
            acc.centre[t][0],
        );
        push(
            ("red general off the centre file".into(), "帅不占中".into()),
            "general",
            acc.centre[t][1],
        );
    }
    // the longest win, the stronger side to move
    let h = table.header();
    let red = &h.sides[Color::Red.index()];
    let longest = if red.longest > 0 {
        layout
            .position(red.longest_index, Color::Red)
            .map(|pos| -> Result<Longest, TableError> {
                let line = table_line(tb, &pos, red.longest as usize + 1)?;
                Ok(Longest {
                    fen: pos.to_string(),
                    plies: red.longest,
                    line: line.iter().map(|m| m.to_string()).collect(),
                })
            })
            .transpose()?
    } else {
        None
    };
    // counter-examples, most instructive first, one per placement of the attacking pieces
    acc.candidates.sort_unstable();
    let mut seen = std::collections::HashSet::new();
    let mut counterexamples = Vec::new();
    for c in &acc.candidates {
        if counterexamples.len() >= request.limit {
            break;
        }
        if !seen.insert(c.attackers) {
            continue;
        }
        let turn = Color::ALL[c.turn];
        let Some(pos) = layout.position(c.index, turn) else {
            continue;
        };
        let value = match table.value(turn, c.index)? {
            Value::Draw => format!("{turn} to move: draw"),
            Value::Win(n) => format!("{turn} to move: wins in {n} plies"),
            Value::Loss(n) => format!("{turn} to move: loses in {n} plies"),
            v @ (Value::RuleWin(_) | Value::RuleLoss(_)) => format!(
                "{turn} to move: {}",
                v.describe_under(table.header().rule_set())
            ),
        };
        let best = tb.rank_moves(&pos)?.first().map(|r| r.mv.to_string());
        let side_zh = match turn {
            Color::Red => "红方走",
            Color::Black => "黑方走",
        };
        counterexamples.push(Counterexample {
            fen: pos.to_string(),
            value,
            value_zh: format!(
                "{side_zh}：{}",
                table
                    .value(turn, c.index)?
                    .describe_zh_under(table.header().rule_set())
            ),
            best_move: best,
            home: c.rank.0.0,
        });
    }
    let verdict = verdict(claim, &acc);
    let heat = request.heat.and_then(|(kind, side)| {
        acc.heat.take().map(|(legal, win)| Heat {
            kind,
            side_to_move: side,
            legal,
            win,
        })
    });
    Ok(Report {
        claim: claim.text.clone(),
        material: m,
        material_chinese: m.chinese(),
        lore_verdict: claim.lore,
        defence: defence_text(&m),
        scope: claim.scope.english(),
        scope_chinese: claim.scope.chinese(),
        rules: h.rule_set().name().to_string(),
        sides: Color::ALL
            .iter()
            .map(|&c| SideCounts {
                side_to_move: c,
                counts: acc.sides[c.index()],
            })
            .collect(),
        conditions,
        in_scope: acc.in_scope,
        longest,
        counterexamples,
        counterexample_count: acc.counterexamples,
        verdict,
        heat,
    })
}

fn verdict(claim: &Claim, acc: &Acc) -> Verdict {
    let m = &claim.material;
    let s = &acc.in_scope;
    let Some(lore) = claim.lore else {
        let red = &acc.sides[0];
        let black = &acc.sides[1];
        return Verdict {
            level: None,
            share: None,
            zh: format!(
                "{}：攻方先走 {:.2}% 胜，{:.2}% 和；守方先走 {:.2}% 负，{:.2}% 和",
                m.chinese(),
                red.percent(red.win),
                red.percent(red.draw),
                black.percent(black.win),
                black.percent(black.draw)
            ),
            en: format!(
                "{} ({m}): with the stronger side to move {:.2}% wins, {:.2}% draws; with the defence to move {:.2}% wins, {:.2}% draws",
                m.chinese(),
                red.percent(red.win),
                red.percent(red.draw),
                black.percent(black.win),
                black.percent(black.draw)
            ),
        };
    };
    let agree = s.agreeing(lore);
    let level = Level::of(agree, s.legal);
    let share = s.percent(agree);
    let (against_zh, against_en, against) = match lore {
        Lore::Draw => ("攻方胜", "wins for the stronger side", s.win),
        Lore::Win => ("不胜", "positions not won", s.legal - s.win),
    };
    let name = match claim.saying {
        Some(_) => format!("{}（{}）", claim.text, m.chinese()),
        None => m.chinese(),
    };
    let english_name = match claim.saying {
        Some(saying) => format!("{} ({}, {m})", claim.text, saying.english),
        None => format!("{} ({m})", m.chinese()),
    };
    Verdict {
        level: Some(level),
        share: Some(share),
        zh: format!(
            "{name}：{}时 {share:.2}% {} — {}（{:.2}% {against_zh}）",
            claim.scope.chinese(),
            lore.chinese(),
            level.chinese(),
            s.percent(against)
        ),
        en: format!(
            "{english_name}: {}, {share:.2}% {} — {} ({:.2}% {against_en})",
            claim.scope.english(),
            match lore {
                Lore::Draw => "draws",
                Lore::Win => "wins for the stronger side",
            },
            level.english(),
            s.percent(against)
        ),
    }
}

impl fmt::Display for Lore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lore::Win => "win",
            Lore::Draw => "draw",
        })
    }
}

/// The languages of a heatmap's title and legend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    /// Chinese and English side by side (a file for any reader).
    Both,
    /// Chinese alone (the page in Chinese).
    Chinese,
    /// English alone (the page in English).
    English,
}

/// The heatmap's picture, titled with the material, the piece and the side to move, its
/// title and legend in `words`.
pub fn heatmap_svg(r: &Report, h: &Heat, words: Words) -> String {
    let piece = crate::Piece {
        color: Color::Red,
        kind: h.kind,
    };
    let (mover_zh, mover_en) = match h.side_to_move {
        Color::Red => ("攻方先走", "red to move"),
        Color::Black => ("守方先走", "black to move"),
    };
    let name = h.kind.name();
    let zh_title = format!("{} · {} · {mover_zh}", r.material_chinese, piece.chinese());
    let en_title = format!("{} · {name} · {mover_en}", r.material);
    let zh_caption = format!("红方胜的比例（%）：红方的{}在该点时", piece.chinese());
    let en_caption = format!("share of positions won by red with its {name} on the point");
    let (title, caption) = match words {
        Words::Both => (
            format!(
                "{} {} · {} {name} · {mover_zh} {mover_en}",
                r.material_chinese,
                r.material,
                piece.chinese()
            ),
            format!("红方胜的比例 % — {en_caption}"),
        ),
        Words::Chinese => (zh_title, zh_caption),
        Words::English => (en_title, en_caption),
    };
    crate::render::svg::heatmap(&crate::render::svg::Heatmap {
        shares: Square::all().map(|s| h.share(s)).collect(),
        title,
        caption,
        flip: false,
    })
}
