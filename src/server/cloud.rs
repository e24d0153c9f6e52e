//! The Xiangqi cloud database's query API (`/chessdb.php?action=…&board=FEN`), answered
//! offline from canju's tables and a bounded proof, so that a tool written for the cloud
//! database changes only its host; and a tablebase endpoint shaped like lichess's
//! (`/xiangqi?fen=FEN`), the convention chess tools already parse.
//!
//! Scores follow the cloud database's conventions, for the side to move (a move's score is
//! the mover's after it): a mate in n plies is 30000 − n, being mated in n plies −(30000 −
//! n), a draw 0. A win by the 长打 rule has no distance to mate: ±25000, the cloud database's
//! score for a tablebase win without one.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value as JsonValue, json};

use canju::game::material::Material;
use canju::notation::{self, Notation, Style};
use canju::solver::{self, Options, Verdict};
use canju::tablebase::{Rules, Tablebase, Value};
use canju::{GameEnd, Move, Position};

/// A mate's score, less the plies to it.
pub(super) const MATE: i64 = 30000;
/// The score of a win by rule (no distance to mate).
pub(super) const RULE_WIN: i64 = 25000;
/// The bound of the proof where no table holds the position, in moves.
pub(super) const PROOF_MOVES: u32 = 5;
/// The time that proof may take.
pub(super) const PROOF_TIME: Duration = Duration::from_secs(2);
/// The longest principal variation given, in plies.
const PV_PLIES: usize = 24;

/// The query string of `/chessdb.php`.
#[derive(Deserialize)]
pub(super) struct CloudQuery {
    pub action: Option<String>,
    pub board: Option<String>,
    /// Moves not to be played: `move:c3c4|move:b2e2`.
    pub ban: Option<String>,
    /// `1`: the answer as JSON.
    pub json: Option<String>,
}

/// The actions answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    QueryAll,
    QueryBest,
    Query,
    QuerySearch,
    QueryPv,
    QueryScore,
}

impl Action {
    pub fn parse(s: &str) -> Option<Action> {
        Some(match s {
            "queryall" => Action::QueryAll,
            "querybest" => Action::QueryBest,
            "query" => Action::Query,
            "querysearch" => Action::QuerySearch,
            "querypv" => Action::QueryPv,
            "queryscore" => Action::QueryScore,
            _ => return None,
        })
    }
}

/// One move as the cloud database lists it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Entry {
    pub mv: Move,
    pub score: i64,
    /// 2 the best, 1 good (the same outcome as the best), 0 bad.
    pub rank: u8,
    /// Outcome for the mover: `W`, `D` or `L`; with the plies to mate where known.
    pub outcome: char,
    pub plies: Option<u32>,
}

impl Entry {
    fn note(&self) -> String {
        let mark = match self.rank {
            2 => '!',
            1 => '*',
            _ => '?',
        };
        match self.plies {
            Some(p) => format!("{mark} ({}-{p})", self.outcome),
            None => format!("{mark} ({})", self.outcome),
        }
    }

    fn winrate(&self) -> &'static str {
        match self.outcome {
            'W' => "100.00",
            'L' => "0.00",
            _ => "50.00",
        }
    }
}

/// What is known of a position.
#[derive(Debug)]
pub(super) enum Known {
    Checkmate,
    Stalemate,
    /// Neither a table nor the bounded proof decides it.
    Unknown,
    /// Moves with their scores, best first, and the principal variation. `egtb`: from the
    /// tables (every legal move not banned), else from the proof (its winning moves).
    Moves {
        entries: Vec<Entry>,
        pv: Vec<Move>,
        egtb: bool,
    },
}

/// The cloud database's score of a value for the side to move.
pub(super) fn score(v: Value) -> i64 {
    match v {
        Value::Win(n) => MATE - i64::from(n),
        Value::Loss(n) => i64::from(n) - MATE,
        Value::Draw => 0,
        Value::RuleWin(_) => RULE_WIN,
        Value::RuleLoss(_) => -RULE_WIN,
    }
}

/// The position of `board`: a FEN, with or without its counters, optionally followed by
/// `moves m1 m2 …`, as the cloud database reads it. `None` when it is not a legal position.
pub(super) fn read_board(board: &str) -> Option<Position> {
    let (fen, moves) = match board.split_once(" moves ") {
        Some((f, m)) => (f, m),
        None => (board, ""),
    };
    let mut pos: Position = fen.trim().parse().ok()?;
    for text in moves.split_whitespace() {
        let m = notation::parse_move(&pos, text).ok()?;
        if !pos.is_legal(m) {
            return None;
        }
        pos.play_unchecked(m);
    }
    Some(pos)
}

/// The banned moves of a `ban` parameter (`move:c3c4|move:b2e2`; a bare `c3c4` too).
pub(super) fn read_ban(pos: &Position, ban: Option<&str>) -> Vec<Move> {
    ban.unwrap_or("")
        .split('|')
        .filter_map(|w| {
            let w = w.trim();
            let w = w.strip_prefix("move:").unwrap_or(w);
            notation::parse_move(pos, w).ok()
        })
        .collect()
}

/// Whether the tables of `tb` hold the position.
fn in_tables(tb: &Tablebase, pos: &Position) -> bool {
    pos.unreachable_piece().is_none()
        && tb
            .table_if_present(Material::of(pos).canonical())
            .ok()
            .flatten()
            .is_some()
}

/// Whether answering for `pos` needs the proof: no table holds it and it is not over.
pub(super) fn needs_proof(tb: &Tablebase, pos: &Position) -> bool {
    pos.game_end().is_none() && !in_tables(tb, pos)
}

/// Ranks of entries sorted best first: 2 for the best score, 1 for the same outcome, 0.
fn ranked(mut entries: Vec<Entry>) -> Vec<Entry> {
    let (best, best_outcome) = match entries.first() {
        Some(e) => (e.score, e.outcome),
        None => return entries,
    };
    for e in &mut entries {
        e.rank = if e.score == best {
            2
        } else if e.outcome == best_outcome {
            1
        } else {
            0
        };
    }
    entries
}

/// What the tables, else a proof within [`PROOF_MOVES`] moves (stopped by `stop` or its
/// time), know of `pos` with `ban`'s moves left out.
pub(super) fn look_up(
    tb: &Tablebase,
    rules: Rules,
    pos: &Position,
    ban: &[Move],
    stop: Arc<AtomicBool>,
) -> Known {
    match pos.game_end() {
        Some(GameEnd::Checkmate { .. }) => return Known::Checkmate,
        Some(GameEnd::Stalemate { .. }) => return Known::Stalemate,
        None => {}
    }
    if in_tables(tb, pos)
        && let Ok(moves) = tb.rank_moves(pos)
    {
        let entries: Vec<Entry> = moves
            .iter()
            .filter(|r| !ban.contains(&r.mv))
            .map(|r| Entry {
                mv: r.mv,
                score: score(r.value),
                rank: 0,
                outcome: if r.value.is_win() {
                    'W'
                } else if r.value.is_loss() {
                    'L'
                } else {
                    'D'
                },
                plies: r.value.plies(),
            })
            .collect();
        if entries.is_empty() {
            return Known::Unknown;
        }
        let pv = table_line(tb, pos, entries[0].mv);
        return Known::Moves {
            entries: ranked(entries),
            pv,
            egtb: true,
        };
    }
    let legal = pos.legal_moves();
    let mut options = Options::new(PROOF_MOVES);
    options.time = Some(PROOF_TIME);
    // (the server's bounds on every proof: nodes and the transposition table's size)
    options.max_nodes = Some(super::SOLVE_MAX_NODES);
    options.hash_mb = super::SOLVE_HASH_MB;
    options.rules = rules;
    options.stop = stop;
    options.first_moves = Some(legal.iter().copied().filter(|m| !ban.contains(m)).collect());
    match solver::solve(pos, &options, Some(tb)) {
        Ok(s) if matches!(s.verdict, Verdict::Win { .. }) => {
            let mut wins = s.winning_moves.clone();
            wins.sort_by_key(|w| w.plies);
            let entries = wins
                .iter()
                .map(|w| Entry {
                    mv: w.mv,
                    score: MATE - i64::from(w.plies),
                    rank: 0,
                    outcome: 'W',
                    plies: Some(w.plies),
                })
                .collect();
            Known::Moves {
                entries: ranked(entries),
                pv: s.pv.clone(),
                egtb: false,
            }
        }
        _ => Known::Unknown,
    }
}

/// The tables' line from `pos` starting with `first`: each side's best move after it.
fn table_line(tb: &Tablebase, pos: &Position, first: Move) -> Vec<Move> {
    let mut line = vec![first];
    let mut p = pos.clone();
    p.play_unchecked(first);
    while line.len() < PV_PLIES {
        let Some(next) = tb.rank_moves(&p).ok().and_then(|r| r.first().map(|r| r.mv)) else {
            break;
        };
        line.push(next);
        p.play_unchecked(next);
    }
    line
}

/// The answer to `action` for a position known as `known` (`pos` names its moves), as
/// the cloud database writes it: text, or JSON with `json`.
pub(super) fn answer(action: Action, pos: &Position, known: &Known, as_json: bool) -> String {
    let status = match known {
        Known::Checkmate => Some("checkmate"),
        Known::Stalemate => Some("stalemate"),
        Known::Unknown => Some(match action {
            Action::QueryBest | Action::Query | Action::QuerySearch => "nobestmove",
            _ => "unknown",
        }),
        Known::Moves { .. } => None,
    };
    if let Some(status) = status {
        return if as_json {
            json!({ "status": status }).to_string()
        } else {
            status.to_string()
        };
    }
    let Known::Moves { entries, pv, egtb } = known else {
        unreachable!("the other cases answered above")
    };
    let namer = notation::MoveNamer::new(pos);
    let wxf = |m: Move| namer.name(m, Notation::Wxf, Style::default());
    let best = &entries[0];
    let kind = if *egtb { "egtb" } else { "move" };
    match (action, as_json) {
        (Action::QueryAll, false) => entries
            .iter()
            .map(|e| {
                format!(
                    "move:{},score:{},rank:{},note:{},winrate:{}",
                    e.mv,
                    e.score,
                    e.rank,
                    e.note(),
                    e.winrate()
                )
            })
            .collect::<Vec<_>>()
            .join("|"),
        (Action::QueryAll, true) => json!({
            "status": "ok",
            "moves": entries.iter().map(|e| json!({
                "uci": e.mv.to_string(),
                "san": wxf(e.mv),
                "score": e.score,
                "rank": e.rank,
                "note": e.note(),
                "winrate": e.winrate(),
            })).collect::<Vec<JsonValue>>(),
        })
        .to_string(),
        (Action::QueryBest | Action::Query, false) => format!("{kind}:{}", best.mv),
        (Action::QueryBest | Action::Query, true) => {
            json!({ "status": "ok", kind: best.mv.to_string() }).to_string()
        }
        (Action::QuerySearch, false) => entries
            .iter()
            .filter(|e| e.rank == 2)
            .map(|e| format!("search:{}", e.mv))
            .collect::<Vec<_>>()
            .join("|"),
        (Action::QuerySearch, true) => json!({
            "status": "ok",
            "search_moves": entries.iter().filter(|e| e.rank == 2)
                .map(|e| json!({ "uci": e.mv.to_string(), "san": wxf(e.mv) }))
                .collect::<Vec<JsonValue>>(),
        })
        .to_string(),
        (Action::QueryPv, false) => format!(
            "score:{},depth:{},pv:{}",
            best.score,
            pv.len(),
            pv.iter().map(Move::to_string).collect::<Vec<_>>().join("|")
        ),
        (Action::QueryPv, true) => json!({
            "status": "ok",
            "score": best.score,
            "depth": pv.len(),
            "pv": pv.iter().map(Move::to_string).collect::<Vec<_>>(),
        })
        .to_string(),
        (Action::QueryScore, false) => format!("eval:{}", best.score),
        (Action::QueryScore, true) => json!({ "status": "ok", "eval": best.score }).to_string(),
    }
}

/// The lichess-shaped answer for `pos` from the tables: the position's category and signed
/// distance to mate in plies (positive: the side to move mates), whether it is mate or
/// stalemate now, and every legal move with the category and distance of the position it
/// leads to, for the side to move there (a winning move's category is `loss`). A verdict
/// by the 长打 rule has no distance (`dtm` null) and names its rule set. A position no
/// table holds is `unknown`, its moves too.
pub(super) fn lichess(tb: &Tablebase, pos: &Position) -> JsonValue {
    let end = pos.game_end();
    let namer = notation::MoveNamer::new(pos);
    let dtm = |v: Value| match v {
        Value::Win(n) => json!(n),
        Value::Loss(n) => json!(-i64::from(n)),
        Value::Draw => json!(0),
        Value::RuleWin(_) | Value::RuleLoss(_) => JsonValue::Null,
    };
    let known = if end.is_none() && in_tables(tb, pos) {
        tb.probe(pos).ok().zip(tb.rank_moves(pos).ok())
    } else {
        None
    };
    let moves: Vec<JsonValue> = match &known {
        Some((_, ranked)) => ranked
            .iter()
            .map(|r| {
                // the value of the position the move leads to, for its side to move
                let after = match r.value {
                    Value::Win(n) => Value::Loss(n - 1),
                    Value::Loss(n) => Value::Win(n - 1),
                    Value::RuleWin(k) => Value::RuleLoss(k),
                    Value::RuleLoss(k) => Value::RuleWin(k),
                    Value::Draw => Value::Draw,
                };
                let mut child = pos.clone();
                child.play_unchecked(r.mv);
                let child_end = child.game_end();
                json!({
                    "uci": r.mv.to_string(),
                    "san": namer.name(r.mv, Notation::Wxf, Style::default()),
                    "chinese": namer.name(r.mv, Notation::Chinese, Style::default()),
                    "zeroing": pos.piece_at(r.mv.to()).is_some(),
                    "checkmate": matches!(child_end, Some(GameEnd::Checkmate { .. })),
                    "stalemate": matches!(child_end, Some(GameEnd::Stalemate { .. })),
                    "category": after.verdict(),
                    "dtm": dtm(after),
                    "by_rule": after.by_rule(),
                })
            })
            .collect(),
        None => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                json!({
                    "uci": m.to_string(),
                    "san": namer.name(m, Notation::Wxf, Style::default()),
                    "chinese": namer.name(m, Notation::Chinese, Style::default()),
                    "zeroing": pos.piece_at(m.to()).is_some(),
                    "category": "unknown",
                    "dtm": JsonValue::Null,
                })
            })
            .collect(),
    };
    let (cat, d, by_rule) = match (&end, &known) {
        // no legal move: lost now (将死 or 困毙), mated in 0 plies
        (Some(_), _) => ("loss", json!(0), false),
        (None, Some((v, _))) => (v.verdict(), dtm(*v), v.by_rule()),
        (None, None) => ("unknown", JsonValue::Null, false),
    };
    json!({
        "category": cat,
        "dtm": d,
        "checkmate": matches!(end, Some(GameEnd::Checkmate { .. })),
        "stalemate": matches!(end, Some(GameEnd::Stalemate { .. })),
        "insufficient_material": false,
        "by_rule": by_rule,
        "rules": tb.rules().name(),
        "moves": moves,
    })
}
