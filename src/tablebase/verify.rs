//! The independent checker. It trusts nothing the generator did: for every entry it
//! rebuilds the position, generates the legal moves with the rules engine, reads every
//! successor (quiet moves in this table, captures through the full probing path) and checks
//! that the stored value is the one-ply minimax of its successors' values, that game ends
//! are losses in 0, and that illegal entries are exactly the illegal placements.
//!
//! A table of rule set `asian` is checked the same way entry by entry (a verdict by rule is
//! the one-ply minimax of its successors' levels, a capture into a sub-table's win by rule
//! counting as level 0), and then its verdicts by rule are recomputed from scratch by a plain
//! forward fixpoint over the whole table that shares nothing with the generator's backward
//! search: sweeps until nothing changes for the positions forced into a win, and the
//! perpetual-check trap as the greatest set of the loser's positions from which it cannot
//! leave except by checking while the winner keeps answering without always checking back.
//! Every verdict by rule must be found, at the stage its level says, and nothing else.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::format::TableError;
use super::index::{Layout, MAX_PIECES, Squares};
use super::probe::{Table, Tablebase};
use super::value::{Value, code, value_of_code};
use crate::game::movegen::Attackers;
use crate::game::moves::{Move, MoveList};
use crate::game::piece::Color;
use crate::game::position::Position;
use crate::game::square::Square;

/// What a verification found wrong.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    /// A table could not be read.
    Table(#[from] TableError),
    #[error("{material}: entry {index} ({side} to move) stores {stored} but {reason}: {fen}")]
    /// An entry's value does not follow from its successors.
    Disagreement {
        /// The table.
        material: String,
        /// The entry.
        index: u64,
        /// Its side to move.
        side: Color,
        /// The value stored.
        stored: String,
        /// What its successors give instead.
        reason: String,
        /// The position.
        fen: String,
    },
}

impl super::HasRemedy for VerifyError {
    fn remedy(&self) -> Option<super::Remedy> {
        match self {
            VerifyError::Table(t) => t.remedy(),
            // a table that disagrees with the rules is built again
            VerifyError::Disagreement { .. } => None,
        }
    }
}

const CHUNK: u64 = 1 << 14;

/// Checks a table entry by entry and its checksum; returns the number of legal positions
/// (entries, not counting mirror images) checked.
pub fn verify(
    table: &Table,
    tb: &Tablebase,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<u64, VerifyError> {
    table.load_all()?;
    // the sub-tables captures lead into are checked whole before any of their values is
    // trusted, so that damage there is reported as theirs
    let material: crate::game::material::Material =
        table.header().material.parse().map_err(|_| {
            TableError::Unsupported(format!("{}: unreadable material", table.path().display()))
        })?;
    for child in material.captures() {
        tb.table(child)?.load_all()?;
    }
    let layout = table.layout();
    let n = layout.pieces().len();
    let chunks = layout.size().div_ceil(CHUNK);
    let checked = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    // the lowest failing index wins, so the report does not depend on thread timing
    let first: Mutex<Option<(u64, VerifyError)>> = Mutex::new(None);
    // lock-free copy of the lowest failing index so far, read for every entry
    let lowest = AtomicU64::new(u64::MAX);
    let ranks = MoverRanks::of(table);
    // the kinds of attacker each side has, for the rules engine's quicker check tests
    let kinds = [Attackers::of(&material.red), Attackers::of(&material.black)];
    (0..chunks).into_par_iter().for_each(|chunk| {
        let start = chunk * CHUNK;
        let end = (start + CHUNK).min(layout.size());
        let mut squares: Squares = [Square::new(0).expect("a0"); MAX_PIECES];
        let mut pos = Position::scratch();
        let mut subs = SubTables::new();
        let mut decoder = super::index::Decoder::new(layout);
        let sides = table.sides_checked();
        // the placement `pos` holds, once it holds one
        let mut on_board: Option<Squares> = None;
        // whether each general is attacked in the placement `pos` holds
        let mut attacked = [false; 2];
        let mut count = 0;
        for index in start..end {
            if lowest.load(Relaxed) < index {
                return;
            }
            let placed = decoder.squares(index, &mut squares).is_some();
            // a board stored twice (both generals on the centre file) is checked once, in
            // its lower entry; the higher must store the same (the rules are symmetric)
            let twin = placed
                .then(|| mirror_twin(layout, &squares[..n]))
                .flatten()
                .filter(|&j| j < index);
            if placed && twin.is_none() {
                // one placement for both sides (black's turn only passes red's, which every
                // check leaves as it found it), and whether each general is attacked in it
                let before = on_board.as_ref().map(|b| &b[..n]);
                pos.replace_placement(layout.pieces(), before, &squares[..n], Color::Red);
                on_board = Some(squares);
                attacked = Color::ALL.map(|c| pos.in_check_against(c, kinds[(!c).index()]));
            }
            for turn in Color::ALL {
                let stored = sides[turn.index()][index as usize];
                let result = if let Some(j) = twin {
                    let theirs = sides[turn.index()][j as usize];
                    if theirs == stored {
                        Ok(stored != code::ILLEGAL)
                    } else {
                        Err(Failure::Wrong(
                            format!(
                                "its mirror image, entry {j}, stores {}",
                                describe(table, turn, j, theirs)
                            ),
                            layout.position(index, turn).map(|p| p.to_string()),
                        ))
                    }
                } else if placed {
                    if turn == Color::Black {
                        pos.pass_turn();
                    }
                    debug_assert_eq!(pos.turn(), turn);
                    check_fast(
                        (table, &ranks, sides),
                        tb,
                        (&mut pos, attacked, kinds[(!turn).index()]),
                        &squares[..n],
                        (index, stored),
                        &mut subs,
                    )
                } else if stored != code::ILLEGAL {
                    Err(Failure::Wrong(
                        "an entry with two pieces on one point must be illegal".into(),
                        None,
                    ))
                } else {
                    Ok(false)
                };
                match result {
                    Ok(legal) => count += legal as u64,
                    Err(failure) => {
                        let e = match failure {
                            Failure::Table(e) => VerifyError::Table(e),
                            Failure::Wrong(reason, fen) => VerifyError::Disagreement {
                                material: table.header().material.clone(),
                                index,
                                side: turn,
                                stored: describe(table, turn, index, stored),
                                reason,
                                fen: fen.unwrap_or_else(|| "(no position: pieces overlap)".into()),
                            },
                        };
                        let mut f = first.lock().expect("lock");
                        if f.as_ref().is_none_or(|(i, _)| index < *i) {
                            *f = Some((index, e));
                            lowest.fetch_min(index, Relaxed);
                        }
                        return;
                    }
                }
            }
        }
        checked.fetch_add(count, Relaxed);
        let d = done.fetch_add(1, Relaxed) + 1;
        progress(d, chunks);
    });
    if let Some((_, e)) = first.into_inner().expect("lock") {
        return Err(e);
    }
    check_far_list(table)?;
    if table.header().rule_set().judges_repetition() {
        for winner in Color::ALL {
            perpetual::check(table, tb, winner)?;
        }
    }
    Ok(checked.load(Relaxed))
}

mod perpetual;

/// Every entry of a wide table's far list must hold the far code of its distance (the
/// entries holding far codes were each read through the list, so the two are one set).
fn check_far_list(table: &Table) -> Result<(), VerifyError> {
    for (key, plies) in table.far_list().iter() {
        let (turn, index) = super::far::unkey(key);
        let stored = table.code_of_checked(turn, index);
        if stored != code::far(plies) {
            let fen = table.layout().position(index, turn).map(|p| p.to_string());
            return Err(VerifyError::Disagreement {
                material: table.header().material.clone(),
                index,
                side: turn,
                stored: describe(table, turn, index, stored),
                reason: format!("the far list gives it {}", Value::from_plies(plies)),
                fen: fen.unwrap_or_else(|| "(no position: pieces overlap)".into()),
            });
        }
    }
    Ok(())
}

fn describe(table: &Table, turn: Color, index: u64, c: u8) -> String {
    match c {
        code::ILLEGAL => "illegal".into(),
        c if table.is_wide() && code::is_far(c) && table.value_of(turn, index, c).is_none() => {
            "a far code the far list lacks".into()
        }
        c => match table.value_of(turn, index, c).or_else(|| value_of_code(c)) {
            Some(v) => v.to_string(),
            None => format!("the foreign code {c}"),
        },
    }
}

/// Why an entry failed: it disagrees with its successors (the reason and the FEN), or a
/// table it reads is damaged.
enum Failure {
    Wrong(String, Option<String>),
    Table(TableError),
}

/// The sub-tables a thread's captures have led into so far (a few), so that each capture
/// finds its table without the collection's lock.
struct SubTables(Vec<(crate::game::material::Material, std::sync::Arc<Table>)>);

impl SubTables {
    fn new() -> SubTables {
        SubTables(Vec::with_capacity(8))
    }

    /// The value, for the side to move there, of the position after a capture.
    fn probe(&mut self, tb: &Tablebase, child: &Position) -> Result<Value, TableError> {
        let pl = super::probe::placement(child)?;
        let t = match self.0.iter().position(|(m, _)| *m == pl.material) {
            Some(t) => t,
            None => {
                self.0.push((pl.material, tb.table(pl.material)?));
                self.0.len() - 1
            }
        };
        self.0[t].1.probe(&pl)
    }
}

/// The other entry of a board whose generals both stand on the centre file, which is stored
/// as it is and mirrored: the mirror image's entry (the same entry for a board that is its
/// own mirror image); `None` for every other board.
fn mirror_twin(layout: &Layout, squares: &[Square]) -> Option<u64> {
    let bk = layout.black_general_slot();
    if !super::index::pair_is_symmetric(squares[0], squares[bk]) {
        return None;
    }
    let mut mirrored = [Square::new(0).expect("a0"); MAX_PIECES];
    for (m, s) in mirrored.iter_mut().zip(squares) {
        *m = s.mirror();
    }
    Some(layout.index(&mirrored[..squares.len()]))
}

/// The entry a quiet move leads to: the placement with the moving piece on its new point.
fn quiet_child(layout: &Layout, (index, squares): (u64, &[Square]), m: Move) -> u64 {
    let slot = squares
        .iter()
        .position(|&s| s == m.from())
        .expect("the moving piece");
    layout.index_after_move(index, squares, slot, m.to())
}

/// The value, for the side to move after it, of a legal capture, read through the whole
/// probing path; a capture into a win by rule counts as level 0 of this material.
fn capture_value(
    tb: &Tablebase,
    pos: &mut Position,
    m: Move,
    subs: &mut SubTables,
) -> Result<Value, Failure> {
    let undo = pos.play_unchecked(m);
    let v = subs.probe(tb, pos);
    pos.undo(m, undo);
    Ok(match v.map_err(Failure::Table)? {
        Value::RuleWin(_) => Value::RuleWin(0),
        Value::RuleLoss(_) => Value::RuleLoss(0),
        v => v,
    })
}

/// [`check`], faster where the entry agrees: a quiet move's legality is read from the
/// entry it reaches (illegal exactly when the mover's general is left attacked), and only
/// captures are tested by the rules engine. Anything else, a disagreement above all, is
/// decided by [`check`], so that an entry is reported only if the rules engine alone
/// finds it wrong.
///
/// Sound because every entry's illegal mark is checked against the rules engine on its
/// own: if all marks are right, the two tests of legality are one; if one is wrong, its
/// entry fails.
fn check_fast(
    (table, ranks, sides): (&Table, &MoverRanks, [&[u8]; 2]),
    tb: &Tablebase,
    (pos, attacked, kinds): (&mut Position, [bool; 2], Attackers),
    squares: &[Square],
    (index, stored): (u64, u8),
    subs: &mut SubTables,
) -> Result<bool, Failure> {
    let slow = |pos: &mut Position, subs: &mut SubTables| {
        check(table, tb, pos, squares, (index, stored), subs)
    };
    let turn = pos.turn();
    if stored == code::ILLEGAL || attacked[(!turn).index()] {
        return slow(pos, subs);
    }
    // (no value for a code by rule in a table built without the rule: `check` says why)
    let Some(stored_value) = table.value_of(turn, index, stored) else {
        return slow(pos, subs);
    };
    let layout = table.layout();
    // piece by piece, from each one's target points (the rules engine's, as bits): a quiet
    // move's entry is its piece's slot moved, with no search for the slot
    let occupied = pos.occupancy();
    // the entries the quiet moves reach
    let theirs = sides[(!turn).index()];
    // (the rules engine's legality, for captures only, once one comes)
    let mut legality = None;
    // the mover's preference of its best move so far (none: lost in 0)
    let mut best = Value::Loss(0).preference();
    for (slot, (&from, piece)) in squares.iter().zip(layout.pieces()).enumerate() {
        if piece.color != turn {
            continue;
        }
        let (mut quiet, mut captures) = pos.targets(from.index(), occupied);
        let moves = layout.slot_moves(index, squares, slot);
        while quiet != 0 {
            let to = Square::new_unchecked(quiet.trailing_zeros() as u8);
            quiet &= quiet - 1;
            let ci = moves.index_to(to);
            let c = theirs[ci as usize];
            let rank = match ranks.0[c as usize] {
                Some(r) => r,
                // the move leaves the mover's general attacked
                None if c == code::ILLEGAL => continue,
                None => match table.value_of(!turn, ci, c) {
                    Some(v) => v.for_mover().preference(),
                    None => return slow(pos, subs),
                },
            };
            best = best.max(rank);
        }
        while captures != 0 {
            let to = Square::new_unchecked(captures.trailing_zeros() as u8);
            captures &= captures - 1;
            let m = Move::new(from, to);
            if !legality
                .get_or_insert_with(|| pos.legality_knowing(kinds, attacked[turn.index()]))
                .move_is_legal(pos, m)
            {
                continue;
            }
            let rank = capture_value(tb, pos, m, subs)?.for_mover().preference();
            best = best.max(rank);
        }
    }
    if best == stored_value.preference() {
        Ok(true)
    } else {
        slow(pos, subs)
    }
}

/// The mover's preference ([`Value::preference`]) of each code a quiet move can reach,
/// valued for the side to move there; `None` where the code has no value by itself:
/// illegal, foreign to the table's rule set, or a far code read through the far list.
struct MoverRanks([Option<i64>; 256]);

impl MoverRanks {
    fn of(table: &Table) -> MoverRanks {
        MoverRanks(std::array::from_fn(|c| {
            let c = c as u8;
            if table.is_wide() && code::is_far(c) {
                return None;
            }
            // (an entry's index matters to a far code alone)
            table
                .value_of(Color::Red, 0, c)
                .map(|v| v.for_mover().preference())
        }))
    }
}

/// Checks one entry; `Ok(true)` for a legal position that agrees, `Ok(false)` for an
/// illegal one correctly marked.
fn check(
    table: &Table,
    tb: &Tablebase,
    pos: &mut Position,
    squares: &[Square],
    (index, stored): (u64, u8),
    subs: &mut SubTables,
) -> Result<bool, Failure> {
    let illegal = pos.in_check(!pos.turn());
    if illegal {
        return if stored == code::ILLEGAL {
            Ok(false)
        } else {
            Err(Failure::Wrong(
                "the side not to move is in check".into(),
                Some(pos.to_string()),
            ))
        };
    }
    // a far code of a wide table reads its distance from the far list (and is no value
    // when the list lacks it); every other code is read as it is
    let stored_value = if table.is_wide() && code::is_far(stored) {
        table.value_of(pos.turn(), index, stored)
    } else {
        value_of_code(stored)
    };
    let Some(stored_value) = stored_value else {
        return Err(Failure::Wrong(
            "the position is legal".into(),
            Some(pos.to_string()),
        ));
    };
    let with_rule = table.header().rule_set().judges_repetition();
    if stored_value.by_rule() && !with_rule {
        return Err(Failure::Wrong(
            "the table is built without the perpetual-check rule".into(),
            Some(pos.to_string()),
        ));
    }
    let layout = table.layout();
    let moves = pos.legal_moves();
    let mut best: Option<Value> = None;
    for &m in moves.iter() {
        let child_value = if pos.piece_at(m.to()).is_some() {
            capture_value(tb, pos, m, subs)?
        } else {
            let ci = quiet_child(layout, (index, squares), m);
            let c = table.code_of_checked(!pos.turn(), ci);
            table
                .value_of(!pos.turn(), ci, c)
                .filter(|v| with_rule || !v.by_rule())
                .ok_or_else(|| {
                    Failure::Wrong(
                        format!("its move {m} reaches entry {ci}, which is not a legal value"),
                        Some(pos.to_string()),
                    )
                })?
        };
        let v = child_value.for_mover();
        if best.is_none_or(|b| v.preference() > b.preference()) {
            best = Some(v);
        }
    }
    let expected = best.unwrap_or(Value::Loss(0));
    if expected == stored_value {
        Ok(true)
    } else {
        Err(Failure::Wrong(
            format!("its moves give {expected}"),
            Some(pos.to_string()),
        ))
    }
}
