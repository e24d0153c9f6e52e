//! What a repetition rule changes: a table of one rule set against the table of the same
//! material under a weaker one (`none` against `check-only` or `asian`, `check-only`
//! against `asian`), entry by entry.

use rayon::prelude::*;

use super::format::{Clauses, Rules, TableError};
use super::generate::ClauseValues;
use super::index;
use super::probe::Table;
use super::probe::Tablebase;
use super::value::code;
use crate::game::moves::Move;
use crate::game::piece::Color;
use crate::game::position::Position;

/// Counts for one side to move, mirror images counted separately.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleCounts {
    /// Draws without the rule that the side to move wins by rule.
    pub draw_to_win: u64,
    /// Draws without the rule that the side to move loses by rule.
    pub draw_to_loss: u64,
    /// The highest level among the verdicts by rule.
    pub levels: u32,
}

/// The changes, red to move first, and a few entries of each kind for examples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleDiff {
    /// Red to move, black to move.
    pub sides: [RuleCounts; 2],
    /// Per side to move: entries won by rule, the highest level first.
    pub win_examples: [Vec<u64>; 2],
    /// Per side to move: entries lost by rule, level 1 first (where the perpetual check is
    /// the loser's last resource), level 0 last.
    pub loss_examples: [Vec<u64>; 2],
}

impl std::ops::Add for RuleCounts {
    type Output = RuleCounts;
    fn add(self, q: RuleCounts) -> RuleCounts {
        RuleCounts {
            draw_to_win: self.draw_to_win + q.draw_to_win,
            draw_to_loss: self.draw_to_loss + q.draw_to_loss,
            levels: self.levels.max(q.levels),
        }
    }
}

fn weight_of(pair: usize) -> u64 {
    if index::pair_index_is_symmetric(pair as u64) {
        1
    } else {
        2
    }
}

/// Whether `stronger` decides everything `weaker` does, and more: `none` is the weakest,
/// `asian` (the whole 长打 rule, which contains perpetual check) the strongest.
pub fn extends(stronger: Rules, weaker: Rules) -> bool {
    let rank = |r: Rules| match r {
        Rules::None => 0,
        Rules::CheckOnly => 1,
        Rules::Asian => 2,
    };
    rank(stronger) > rank(weaker)
}

/// Compares a table with the table of the same material under a weaker rule set (the
/// "baseline"). Every entry must agree except draws that became verdicts by rule (a mate
/// is a mate under any rule) and verdicts by rule whose level changed (the same side
/// wins); anything else is an error naming the entry. `examples` entries of each kind that
/// were draws are kept.
pub fn compare(baseline: &Table, asian: &Table, examples: usize) -> Result<RuleDiff, TableError> {
    let (weaker, stronger) = (baseline.header().rule_set(), asian.header().rule_set());
    if !extends(stronger, weaker) {
        return Err(TableError::Mismatch {
            path: asian.path().to_path_buf(),
            what: "rule set",
            found: format!("{stronger} against {weaker}"),
            expected: "a rule set against a weaker one (asian or check-only against none, asian against check-only)".into(),
        });
    }
    same_endgame(baseline, asian)?;
    let per_pair = (asian.layout().size() / index::GENERAL_PAIR_COUNT) as usize;
    let mut out = RuleDiff::default();
    for turn in Color::ALL {
        let a = asian.checked_side(turn)?;
        let b = baseline.checked_side(turn)?;
        let (counts, first) = a
            .par_chunks(per_pair)
            .zip(b.par_chunks(per_pair))
            .enumerate()
            .map(|(pair, (a, b))| {
                let weight = weight_of(pair);
                let mut c = RuleCounts::default();
                for (j, (&x, &y)) in a.iter().zip(b).enumerate() {
                    if x == y {
                        continue;
                    }
                    let index = (pair * per_pair + j) as u64;
                    // a verdict by rule may change its level, never its side
                    let releveled = code::is_rule(y)
                        && code::is_rule(x)
                        && code::is_rule_win(x) == code::is_rule_win(y);
                    if releveled {
                        continue;
                    }
                    if y != code::DRAW || !code::is_rule(x) {
                        return (c, Some(index));
                    }
                    if code::is_rule_win(x) {
                        c.draw_to_win += weight;
                    } else {
                        c.draw_to_loss += weight;
                    }
                    c.levels = c.levels.max(code::rule_level(x));
                }
                (c, None)
            })
            .reduce(|| (RuleCounts::default(), None), add_and_first);
        if let Some(index) = first {
            return Err(TableError::Unsupported(format!(
                "{}: entry {index} ({turn} to move) is {} there but {} in {}: the tables disagree beyond the rule; verify both",
                asian.path().display(),
                describe(asian, turn, index, a[index as usize]),
                describe(baseline, turn, index, b[index as usize]),
                baseline.path().display()
            )));
        }
        out.sides[turn.index()] = counts;
        if examples > 0 {
            let mut wins: Vec<(u32, u64)> = Vec::new();
            let mut losses: Vec<(u32, u64)> = Vec::new();
            for (i, (&x, &y)) in a.iter().zip(b.iter()).enumerate() {
                if y != code::DRAW {
                    continue;
                }
                let level = code::rule_level(x);
                if code::is_rule_win(x) {
                    keep(&mut wins, (u32::MAX - level, i as u64), examples);
                } else if code::is_rule_loss(x) {
                    let key = if level == 0 { u32::MAX } else { level };
                    keep(&mut losses, (key, i as u64), examples);
                }
            }
            out.win_examples[turn.index()] = wins.into_iter().map(|(_, i)| i).collect();
            out.loss_examples[turn.index()] = losses.into_iter().map(|(_, i)| i).collect();
        }
    }
    Ok(out)
}

/// Whether `table` is of the same material as `baseline`, with the same distances beyond a
/// byte (mates stand under every rule).
fn same_endgame(baseline: &Table, table: &Table) -> Result<(), TableError> {
    if baseline.header().material != table.header().material {
        return Err(TableError::Mismatch {
            path: table.path().to_path_buf(),
            what: "material",
            found: table.header().material.clone(),
            expected: baseline.header().material.clone(),
        });
    }
    if table.far_list() != baseline.far_list() {
        return Err(TableError::Unsupported(format!(
            "{}: its far list of distances beyond a byte differs from that of {}: the tables disagree beyond the rule; verify both",
            table.path().display(),
            baseline.path().display()
        )));
    }
    Ok(())
}

/// Two parts' counts added, with the first entry either part found wrong.
fn add_and_first<C: std::ops::Add<Output = C>, I: Ord>(
    (p, e): (C, Option<I>),
    (q, f): (C, Option<I>),
) -> (C, Option<I>) {
    let first = match (e, f) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    (p + q, first)
}

/// Keeps the `n` smallest keys, sorted.
fn keep(list: &mut Vec<(u32, u64)>, item: (u32, u64), n: usize) {
    if list.len() == n && list.last().is_some_and(|&l| l <= item) {
        return;
    }
    let at = list.partition_point(|&l| l < item);
    list.insert(at, item);
    list.truncate(n);
}

fn describe(table: &Table, turn: Color, index: u64, c: u8) -> String {
    match table.value_of(turn, index, c) {
        Some(v) => v.to_string(),
        None if c == code::ILLEGAL => "illegal".into(),
        None => format!("code {c}"),
    }
}

/// The verdicts by rule of an asian table alone, per side to move.
pub fn rule_counts(table: &Table) -> Result<[RuleCounts; 2], TableError> {
    let per_pair = (table.layout().size() / index::GENERAL_PAIR_COUNT) as usize;
    let mut out = [RuleCounts::default(); 2];
    for turn in Color::ALL {
        let side = table.checked_side(turn)?;
        out[turn.index()] = side
            .par_chunks(per_pair)
            .enumerate()
            .map(|(pair, chunk)| {
                let weight = weight_of(pair);
                let mut c = RuleCounts::default();
                for &x in chunk {
                    if code::is_rule_win(x) {
                        c.draw_to_win += weight;
                    } else if code::is_rule_loss(x) {
                        c.draw_to_loss += weight;
                    } else {
                        continue;
                    }
                    c.levels = c.levels.max(code::rule_level(x));
                }
                c
            })
            .reduce(RuleCounts::default, |p, q| p + q);
    }
    Ok(out)
}

/// What the clauses of 长打 beyond 长将 decide, for one side to move (mirror images
/// counted): the draws of perpetual check alone (`check-only`) that the whole rule decides,
/// split by whether 杀 alone (a chase idle) and 捉 alone (a threat of mate idle) decide them
/// the same way. From [`by_clause`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ClauseCounts {
    /// Decided by the whole rule (won or lost by the side to move).
    pub whole: u64,
    /// Of those, decided the same way by 杀 alone and by 捉 alone.
    pub either: u64,
    /// Decided the same way by 杀 alone, not by 捉 alone.
    pub mate_threats: u64,
    /// Decided the same way by 捉 alone, not by 杀 alone.
    pub chases: u64,
    /// Decided by neither alone: the loser's moves must count 杀 and 捉 both.
    pub together: u64,
    /// Draws under the whole rule that one clause alone decides: the winner's own way
    /// back is 杀 or 捉, idle for that clause alone but 打 under the whole rule.
    pub beyond_whole: u64,
    /// Decided the other way by a clause alone (also counted above).
    pub opposite: u64,
}

impl std::ops::Add for ClauseCounts {
    type Output = ClauseCounts;
    fn add(self, q: ClauseCounts) -> ClauseCounts {
        ClauseCounts {
            whole: self.whole + q.whole,
            either: self.either + q.either,
            mate_threats: self.mate_threats + q.mate_threats,
            chases: self.chases + q.chases,
            together: self.together + q.together,
            beyond_whole: self.beyond_whole + q.beyond_whole,
            opposite: self.opposite + q.opposite,
        }
    }
}

/// What [`by_clause`] finds: counts per side to move, and the first entries of each kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClauseSplit {
    /// Red to move, black to move.
    pub sides: [ClauseCounts; 2],
    /// Per side to move, the first `examples` entries decided by 杀 alone (not 捉 alone),
    /// by 捉 alone (not 杀 alone), by neither alone, and drawn under the whole rule but
    /// decided by a clause alone.
    pub examples: [[Vec<u64>; 4]; 2],
}

/// A verdict for the side to move among the draws of a weaker rule: None a draw,
/// Some(true) a win by rule, Some(false) a loss by rule; Err when the code is neither.
fn rule_verdict(c: u8) -> Result<Option<bool>, ()> {
    if c == code::DRAW {
        Ok(None)
    } else if code::is_rule(c) {
        Ok(Some(code::is_rule_win(c)))
    } else {
        Err(())
    }
}

/// Where a draw of perpetual check falls among [`ClauseCounts`]' kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClauseKind {
    /// Decided by the whole rule, the same way by both clauses alone.
    Either,
    /// Decided by the whole rule, the same way by 杀 alone only.
    MateThreats,
    /// Decided by the whole rule, the same way by 捉 alone only.
    Chases,
    /// Decided by the whole rule, by neither clause alone.
    Together,
    /// A draw under the whole rule that a clause alone decides.
    BeyondWhole,
}

/// The kind of a draw of perpetual check, from its codes under the whole rule and with 杀
/// alone and 捉 alone, and whether a clause alone decides it the other way; None when all
/// three leave it drawn, Err when a code is no verdict by rule.
fn clause_kind(whole: u8, mate_threats: u8, chases: u8) -> Result<Option<(ClauseKind, bool)>, ()> {
    let (x, by_m, by_c) = (
        rule_verdict(whole)?,
        rule_verdict(mate_threats)?,
        rule_verdict(chases)?,
    );
    let Some(win) = x else {
        let decided = by_m.is_some() || by_c.is_some();
        return Ok(decided.then_some((ClauseKind::BeyondWhole, false)));
    };
    let kind = match (by_m == x, by_c == x) {
        (true, true) => ClauseKind::Either,
        (true, false) => ClauseKind::MateThreats,
        (false, true) => ClauseKind::Chases,
        (false, false) => ClauseKind::Together,
    };
    let opposite = by_m == Some(!win) || by_c == Some(!win);
    Ok(Some((kind, opposite)))
}

/// Splits what the whole rule decides beyond perpetual check by its clauses: `check_only`
/// and `asian` are the material's two tables, `mate_threats` and `chases` its values with
/// 杀 alone and with 捉 alone counted ([`crate::tablebase::generate::solve_with_clauses`]).
/// Every entry the weaker table decides must be decided the same way by the other three
/// (a verdict by rule may change its level); anything else is an error naming the entry.
/// Keeps `examples` entries of each kind per side to move.
pub fn by_clause(
    check_only: &Table,
    asian: &Table,
    mate_threats: &ClauseValues,
    chases: &ClauseValues,
    examples: usize,
) -> Result<ClauseSplit, TableError> {
    let rules = (check_only.header().rule_set(), asian.header().rule_set());
    if rules != (Rules::CheckOnly, Rules::Asian) {
        return Err(TableError::Mismatch {
            path: asian.path().to_path_buf(),
            what: "rule set",
            found: format!("{} against {}", rules.1, rules.0),
            expected: "asian against check-only".into(),
        });
    }
    same_endgame(check_only, asian)?;
    let size = asian.layout().size() as usize;
    if mate_threats.clauses != Clauses::MATE_THREATS
        || chases.clauses != Clauses::CHASES
        || [
            &mate_threats.red,
            &mate_threats.black,
            &chases.red,
            &chases.black,
        ]
        .iter()
        .any(|v| v.len() != size)
    {
        return Err(TableError::Unsupported(format!(
            "{}: the values by clause are not those of 杀 alone and 捉 alone over its {size} entries",
            asian.header().material
        )));
    }
    let per_pair = size / index::GENERAL_PAIR_COUNT as usize;
    let mut out = ClauseSplit::default();
    for turn in Color::ALL {
        let base = check_only.checked_side(turn)?;
        let whole = asian.checked_side(turn)?;
        let (m, c) = match turn {
            Color::Red => (&mate_threats.red, &chases.red),
            Color::Black => (&mate_threats.black, &chases.black),
        };
        let (counts, bad) = (0..index::GENERAL_PAIR_COUNT as usize)
            .into_par_iter()
            .map(|pair| {
                let weight = weight_of(pair);
                let mut n = ClauseCounts::default();
                for i in pair * per_pair..(pair + 1) * per_pair {
                    let b = base[i];
                    if b != code::DRAW {
                        // a verdict by rule may change its level, never its side; the rest
                        // is the same bytes
                        let same = |x: u8| x == b || same_verdict(x, b);
                        if !(same(whole[i]) && same(m[i]) && same(c[i])) {
                            return (n, Some(i));
                        }
                        continue;
                    }
                    let Ok(kind) = clause_kind(whole[i], m[i], c[i]) else {
                        return (n, Some(i));
                    };
                    let Some((kind, opposite)) = kind else {
                        continue;
                    };
                    let count = match kind {
                        ClauseKind::Either => &mut n.either,
                        ClauseKind::MateThreats => &mut n.mate_threats,
                        ClauseKind::Chases => &mut n.chases,
                        ClauseKind::Together => &mut n.together,
                        ClauseKind::BeyondWhole => &mut n.beyond_whole,
                    };
                    *count += weight;
                    if kind != ClauseKind::BeyondWhole {
                        n.whole += weight;
                    }
                    if opposite {
                        n.opposite += weight;
                    }
                }
                (n, None)
            })
            .reduce(|| (ClauseCounts::default(), None), add_and_first);
        if let Some(i) = bad {
            return Err(TableError::Unsupported(format!(
                "{}: entry {i} ({turn} to move) is {} under check-only, {} under asian, code {} with 杀 alone and code {} with 捉 alone: they disagree beyond the rule",
                asian.path().display(),
                describe(check_only, turn, i as u64, base[i]),
                describe(asian, turn, i as u64, whole[i]),
                m[i],
                c[i]
            )));
        }
        out.sides[turn.index()] = counts;
        if examples > 0 {
            let lists = &mut out.examples[turn.index()];
            for i in 0..size {
                if base[i] != code::DRAW {
                    continue;
                }
                let kind = match clause_kind(whole[i], m[i], c[i]) {
                    Ok(Some((ClauseKind::MateThreats, _))) => 0,
                    Ok(Some((ClauseKind::Chases, _))) => 1,
                    Ok(Some((ClauseKind::Together, _))) => 2,
                    Ok(Some((ClauseKind::BeyondWhole, _))) => 3,
                    _ => continue,
                };
                if lists[kind].len() < examples {
                    lists[kind].push(i as u64);
                }
                if lists.iter().all(|l| l.len() == examples) {
                    break;
                }
            }
        }
    }
    Ok(out)
}

/// Whether two codes of the same entry are the same verdict by rule (whatever the level).
fn same_verdict(x: u8, y: u8) -> bool {
    code::is_rule(x) && code::is_rule(y) && code::is_rule_win(x) == code::is_rule_win(y)
}

/// Best play from a position until a position repeats or the game ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleLine {
    /// The moves of the line.
    pub moves: Vec<Move>,
    /// Whether each move gives check.
    pub checks: Vec<bool>,
    /// What each move attacks (将, 杀, 捉 or 闲).
    pub attacks: Vec<crate::game::threat::AttackKind>,
    /// The ply whose position the line's last position repeats (0 = the start).
    pub repeats_from: Option<usize>,
}

/// Plays the best move by the tables of `tb` (quickest win, longest resistance) from
/// `pos` until a position repeats, the game ends or `max_plies` are played. Among equally
/// good wins by rule the winner takes a move that does not check and leaves the loser
/// nothing but checks, if there is one, so that the repetition shows the cycle the rule
/// decides.
pub fn rule_line(tb: &Tablebase, pos: &Position, max_plies: usize) -> Result<RuleLine, TableError> {
    let mut seen = std::collections::HashMap::new();
    let mut p = pos.clone();
    let rules = tb.rules();
    let mut line = RuleLine {
        moves: Vec::new(),
        checks: Vec::new(),
        attacks: Vec::new(),
        repeats_from: None,
    };
    while line.moves.len() < max_plies {
        if let Some(&at) = seen.get(&p.key()) {
            line.repeats_from = Some(at);
            break;
        }
        seen.insert(p.key(), line.moves.len());
        let ranked = tb.rank_moves(&p)?;
        let Some(first) = ranked.first().copied() else {
            break;
        };
        let mut best = first;
        if first.value.by_rule() && first.value.is_win() {
            for r in ranked.iter().take_while(|r| r.value == first.value) {
                if !rules.counts(&p, r.mv) {
                    let mut c = p.clone();
                    c.play_unchecked(r.mv);
                    if only_hits_hold(tb, &c)? {
                        best = *r;
                        break;
                    }
                }
            }
        }
        line.attacks
            .push(crate::game::threat::attack_of(&p, best.mv).kind());
        p.play_unchecked(best.mv);
        line.moves.push(best.mv);
        line.checks.push(p.is_check());
    }
    Ok(line)
}

/// Whether every move of the side to move that is no hit under the tables' rule set (no
/// check; under `asian`, not 打) loses.
fn only_hits_hold(tb: &Tablebase, pos: &Position) -> Result<bool, TableError> {
    for &m in pos.legal_moves().iter() {
        if tb.rules().counts(pos, m) {
            continue;
        }
        let mut c = pos.clone();
        c.play_unchecked(m);
        if !tb.probe(&c)?.for_mover().is_loss() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A position whose verdict the rule changes, with the line that shows the cycle.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DiffExample {
    /// The position.
    #[serde(skip)]
    pub position: Position,
    /// Best play under the rule, with the checks.
    #[serde(skip)]
    pub rule_line: RuleLine,
    /// Its FEN.
    pub fen: String,
    /// `red` or `black`.
    pub side_to_move: &'static str,
    /// `draw → win` or `draw → loss`, for the side to move (in [`ClauseReport`]'s
    /// examples of a draw under the whole rule, what a clause alone makes of it).
    pub kind: &'static str,
    /// Its verdict without the rule: always `draw`.
    pub baseline: &'static str,
    /// Its verdict under the rule, in words ([`Value::describe`](super::value::Value::describe)).
    pub asian: String,
    /// Best play under the rule until a position repeats (or the game ends).
    pub line: Vec<LineMove>,
    /// The ply at which the repeated position first stood (0 = the example itself).
    pub repeats_from: Option<usize>,
}

/// A move of an example's line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LineMove {
    /// In ICCS coordinates.
    pub iccs: String,
    /// In Chinese notation.
    pub chinese: String,
    /// It gives check.
    pub check: bool,
    /// What it attacks: `check`, `mate-threat`, `chase` or `idle`.
    pub attack: &'static str,
    /// The same in Chinese: 将, 杀, 捉 or 闲.
    pub attack_zh: &'static str,
}

/// The example of entry `index` (`turn` to move) of `table`, a table of `tb`, with its line
/// under `tb`'s rule of at most `max_line` plies; None for an entry that is no position.
fn example(
    tb: &Tablebase,
    table: &Table,
    turn: Color,
    index: u64,
    kind: &'static str,
    max_line: usize,
) -> Result<Option<DiffExample>, TableError> {
    let Some(pos) = table.layout().position(index, turn) else {
        return Ok(None);
    };
    let value = table.value(turn, index)?;
    let line = rule_line(tb, &pos, max_line)?;
    let mut q = pos.clone();
    let moves = line
        .moves
        .iter()
        .zip(&line.checks)
        .zip(&line.attacks)
        .map(|((&mv, &check), &attack)| {
            let j = LineMove {
                iccs: mv.to_string(),
                chinese: crate::notation::format_move(
                    &q,
                    mv,
                    crate::notation::Notation::Chinese,
                    crate::notation::Style::default(),
                ),
                check,
                attack: attack.name(),
                attack_zh: attack.chinese(),
            };
            q.play_unchecked(mv);
            j
        })
        .collect();
    Ok(Some(DiffExample {
        fen: pos.to_string(),
        side_to_move: turn.name(),
        kind,
        baseline: "draw",
        asian: value.describe_under(tb.rules()),
        line: moves,
        repeats_from: line.repeats_from,
        position: pos,
        rule_line: line,
    }))
}

impl DiffExample {
    /// Whether the line's cycle shows `loser` playing 长将 or 长打.
    pub fn shows_the_rule(&self, loser: Color) -> bool {
        self.cycle_kinds()
            .is_some_and(|sides| sides.iter().any(|&(c, k)| c == loser && k.is_some()))
    }

    /// What each side does on every move of the line's cycle, when it repeats: for the side
    /// to move at the example first, then the other, `长将` (checks on every move), `长打`
    /// (打 on every move, not all checks) or None.
    pub fn cycle_kinds(&self) -> Option<[(Color, Option<&'static str>); 2]> {
        let from = self.repeats_from?;
        let cycle = &self.rule_line.attacks[from..];
        let of = |parity: usize| {
            let moves = cycle
                .iter()
                .enumerate()
                .filter(|(k, _)| (from + k) % 2 == parity)
                .map(|(_, &a)| a);
            let side = if parity == 0 {
                self.position.turn()
            } else {
                !self.position.turn()
            };
            let all_checks = moves
                .clone()
                .all(|a| a == crate::game::threat::AttackKind::Check);
            let all_hits = moves.clone().all(|a| a.is_attack());
            let kind = if all_checks {
                Some("长将")
            } else if all_hits {
                Some("长打")
            } else {
                None
            };
            (side, kind)
        };
        Some([of(0), of(1)])
    }
}

/// One side to move's counts in a [`DiffReport`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct DiffSide {
    /// Draws without the rule that the side to move wins by rule.
    pub draw_to_win: u64,
    /// Draws without the rule that the side to move loses by rule (it is the one that
    /// would have to check forever).
    pub draw_to_loss: u64,
    /// The highest level of a verdict by rule.
    pub levels: u32,
}

/// What the perpetual-check rule changes in an endgame: `canju diff`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DiffReport {
    /// The material.
    pub material: String,
    /// The material in Chinese.
    pub material_chinese: String,
    /// Red to move's counts.
    pub red_to_move: DiffSide,
    /// Black to move's counts.
    pub black_to_move: DiffSide,
    /// Examples, red to move first, wins before losses.
    pub examples: Vec<DiffExample>,
}

/// Candidates looked at for each example shown by [`report`].
const SHOWN_OF: usize = 4;

/// Compares `m`'s tables in `baseline` (rules none) and `asian` (both built), with up to
/// `examples` examples of each kind per side to move, each with its line of at most
/// `max_line` plies: of `SHOWN_OF` (4) times as many candidates, those whose line ends in the
/// loser's 长将 or 长打 first.
pub fn report(
    baseline: &Tablebase,
    asian: &Tablebase,
    m: crate::game::material::Material,
    examples: usize,
    max_line: usize,
) -> Result<DiffReport, TableError> {
    let bt = baseline.table(m)?;
    let at = asian.table(m)?;
    // a win by rule has no distance, so a line by the tables may go round a cycle the rule
    // does not decide (the winner taking a move that wins, but not the way on)
    let diff = compare(&bt, &at, examples.saturating_mul(SHOWN_OF))?;
    let mut out = Vec::new();
    for turn in Color::ALL {
        for (kind, list, loser) in [
            ("draw → win", &diff.win_examples[turn.index()], !turn),
            ("draw → loss", &diff.loss_examples[turn.index()], turn),
        ] {
            let first = out.len();
            for &index in list {
                out.extend(example(asian, &at, turn, index, kind, max_line)?);
            }
            // a stable sort: in index order within each group
            out[first..].sort_by_key(|e| !e.shows_the_rule(loser));
            out.truncate(first + examples.min(out.len() - first));
        }
    }
    let side = |c: &RuleCounts| DiffSide {
        draw_to_win: c.draw_to_win,
        draw_to_loss: c.draw_to_loss,
        levels: c.levels,
    };
    Ok(DiffReport {
        material: m.to_string(),
        material_chinese: m.chinese(),
        red_to_move: side(&diff.sides[0]),
        black_to_move: side(&diff.sides[1]),
        examples: out,
    })
}

/// An example of [`ClauseReport`]: a position the whole rule decides, and by which clause.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClauseExample {
    /// `mate-threats` (杀 alone decides it, 捉 alone does not), `chases` (the other way
    /// round), `together` (neither alone) or `beyond-whole` (a draw under the whole rule
    /// that a clause alone decides).
    pub clause: &'static str,
    /// The position, with its line under the whole rule.
    #[serde(flatten)]
    pub example: DiffExample,
}

/// What each clause of 长打 beyond 长将 decides in an endgame: `canju diff --by-clause`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClauseReport {
    /// The material.
    pub material: String,
    /// The material in Chinese.
    pub material_chinese: String,
    /// Red to move's counts.
    pub red_to_move: ClauseCounts,
    /// Black to move's counts.
    pub black_to_move: ClauseCounts,
    /// Examples, red to move first, by clause.
    pub examples: Vec<ClauseExample>,
}

/// Splits what the whole rule decides in `m` beyond perpetual check by its clauses: solves
/// the material twice more, with 杀 alone and with 捉 alone counted (its captures lead into
/// the whole rule's sub-tables), and compares entry by entry ([`by_clause`]). `check_only`
/// and `asian` must hold the material's tables, built; `examples` per side to move and
/// clause, each with its line under the whole rule of at most `max_line` plies.
pub fn clause_report(
    check_only: &Tablebase,
    asian: &Tablebase,
    m: crate::game::material::Material,
    progress: &dyn Fn(Clauses) -> Box<dyn crate::tablebase::generate::Progress>,
    examples: usize,
    max_line: usize,
) -> Result<ClauseReport, TableError> {
    use crate::tablebase::generate::solve_with_clauses;
    let bt = check_only.table(m)?;
    let at = asian.table(m)?;
    let solve = |c: Clauses| solve_with_clauses(m, asian, progress(c).as_ref(), c);
    let mate_threats = solve(Clauses::MATE_THREATS)?;
    let chases = solve(Clauses::CHASES)?;
    let split = by_clause(
        &bt,
        &at,
        &mate_threats,
        &chases,
        examples.saturating_mul(SHOWN_OF),
    )?;
    let mut out = Vec::new();
    for turn in Color::ALL {
        for (clause, list) in ["mate-threats", "chases", "together", "beyond-whole"]
            .into_iter()
            .zip(&split.examples[turn.index()])
        {
            let first = out.len();
            for &index in list {
                let c = at.code(turn, index)?;
                let alone = |v: &ClauseValues| match turn {
                    Color::Red => v.red[index as usize],
                    Color::Black => v.black[index as usize],
                };
                let kind = if c != code::DRAW {
                    if code::is_rule_win(c) {
                        "draw → win"
                    } else {
                        "draw → loss"
                    }
                } else {
                    // a draw under the whole rule: what a clause alone makes of it
                    match (alone(&mate_threats), alone(&chases)) {
                        (y, _) if code::is_rule_win(y) => "draw; a win with 杀 alone",
                        (y, _) if code::is_rule_loss(y) => "draw; a loss with 杀 alone",
                        (_, y) if code::is_rule_win(y) => "draw; a win with 捉 alone",
                        _ => "draw; a loss with 捉 alone",
                    }
                };
                // a draw's line by the tables may take any drawing move, and shows nothing
                // of what the clause alone makes of it: none is given
                let plies = if c == code::DRAW { 0 } else { max_line };
                if let Some(example) = example(asian, &at, turn, index, kind, plies)? {
                    out.push(ClauseExample { clause, example });
                }
            }
            let shows = |e: &ClauseExample| {
                let loser = if e.example.kind == "draw → win" {
                    !turn
                } else {
                    turn
                };
                e.example.shows_the_rule(loser)
            };
            out[first..].sort_by_key(|e| !shows(e));
            out.truncate(first + examples.min(out.len() - first));
        }
    }
    Ok(ClauseReport {
        material: m.to_string(),
        material_chinese: m.chinese(),
        red_to_move: split.sides[0],
        black_to_move: split.sides[1],
        examples: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of [`ClauseCounts`], from the codes of one entry (a draw of perpetual
    /// check) under the whole rule, with 杀 alone and with 捉 alone.
    #[test]
    fn a_draw_of_perpetual_check_falls_in_one_kind() {
        let (d, win, loss) = (code::DRAW, code::rule(2, true), code::rule(0, false));
        let win_later = code::rule(5, true);
        let kind = |w, m, c| clause_kind(w, m, c).unwrap();
        assert_eq!(kind(d, d, d), None);
        // a verdict's level does not matter, its side does
        assert_eq!(kind(win, win_later, win), Some((ClauseKind::Either, false)));
        assert_eq!(kind(win, win, d), Some((ClauseKind::MateThreats, false)));
        assert_eq!(kind(loss, d, loss), Some((ClauseKind::Chases, false)));
        assert_eq!(kind(win, d, d), Some((ClauseKind::Together, false)));
        assert_eq!(kind(win, loss, d), Some((ClauseKind::Together, true)));
        assert_eq!(kind(win, win, loss), Some((ClauseKind::MateThreats, true)));
        assert_eq!(kind(d, d, win), Some((ClauseKind::BeyondWhole, false)));
        assert_eq!(kind(d, loss, d), Some((ClauseKind::BeyondWhole, false)));
        // a mate's code is no verdict by rule among perpetual check's draws
        assert!(clause_kind(code::decided(3), d, d).is_err());
        assert!(clause_kind(win, d, code::decided(4)).is_err());
    }
}
