//! The proof search: does the attacker force mate within `d` plies? A depth-first
//! AND/OR search with every legal move of both sides (quiet moves included: a line that
//! stops checking must still parry the defender's threats, and a quiet move may win by
//! stalemate), bounds kept in the shared transposition table, and the tables deciding
//! every node whose material they hold.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use super::tt::{Bounds, Tt};
use crate::material::Material;
use crate::moves::{Move, MoveList};
use crate::piece::{Color, Kind};
use crate::position::Position;
use crate::tablebase::index::MAX_PIECES;
use crate::tablebase::probe::placement;
use crate::tablebase::{Table, TableError, Tablebase, Value};

/// Why a search stopped before its answer.
#[derive(Debug)]
pub enum Stop {
    /// The time limit passed or the caller asked to stop.
    Interrupted,
    /// A table the search read is damaged.
    Table(TableError),
}

/// What every search thread shares.
pub struct Shared<'a> {
    pub tt: &'a Tt,
    pub tb: Option<&'a Tablebase>,
    pub attacker: Color,
    pub stop: &'a AtomicBool,
    pub deadline: Option<Instant>,
    pub max_nodes: Option<u64>,
    pub nodes: &'a AtomicU64,
}

const MAX_PLY: usize = 256;

/// One thread's search state: killer moves per ply, history counts, the tables it has
/// looked up.
pub struct Searcher<'a> {
    shared: &'a Shared<'a>,
    killers: Vec<[Option<Move>; 2]>,
    history: Box<[[u32; 8100]; 2]>,
    tables: HashMap<Material, Option<Arc<Table>>>,
    nodes: u64,
    /// Scored move lists, one per ply, reused.
    scored: Vec<Vec<(u32, Move)>>,
}

/// The attacker mates within this many plies, or never: the tables' exact value of a
/// position for the attacker.
fn table_distance(v: Value, attacker_to_move: bool) -> Option<u32> {
    match (v, attacker_to_move) {
        (Value::Win(n), true) | (Value::Loss(n), false) => Some(n),
        _ => None,
    }
}

fn piece_value(kind: Kind) -> u32 {
    match kind {
        Kind::Chariot => 90,
        Kind::Cannon => 45,
        Kind::Horse => 40,
        Kind::Advisor | Kind::Elephant => 20,
        Kind::Soldier => 15,
        Kind::General => 0,
    }
}

#[inline]
fn move_index(m: Move) -> usize {
    m.from().index() * 90 + m.to().index()
}

impl<'a> Searcher<'a> {
    pub fn new(shared: &'a Shared<'a>) -> Searcher<'a> {
        Searcher {
            shared,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: Box::new([[0; 8100]; 2]),
            tables: HashMap::new(),
            nodes: 0,
            scored: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
        }
    }

    /// Adds this thread's node count to the shared one.
    pub fn flush_nodes(&mut self) {
        self.shared.nodes.fetch_add(self.nodes, Relaxed);
        self.nodes = 0;
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.nodes += 1;
        // (mate-in-one tries add to the count between ticks, so test a threshold rather
        // than an exact multiple)
        if self.nodes >= 1024 {
            self.flush_nodes();
            if self.shared.stop.load(Relaxed) {
                return Err(Stop::Interrupted);
            }
            if self.shared.deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .shared
                    .max_nodes
                    .is_some_and(|n| self.shared.nodes.load(Relaxed) >= n)
            {
                self.shared.stop.store(true, Relaxed);
                return Err(Stop::Interrupted);
            }
        }
        Ok(())
    }

    /// The tables' distance for the attacker, when the position's material has a table.
    fn probe(&mut self, pos: &Position) -> Result<Option<Option<u32>>, Stop> {
        let Some(tb) = self.shared.tb else {
            return Ok(None);
        };
        if pos.piece_count() > MAX_PIECES {
            return Ok(None);
        }
        let pl = placement(pos).map_err(Stop::Table)?;
        let table = match self.tables.get(&pl.material) {
            Some(t) => t.clone(),
            None => {
                let t = tb.table_if_present(pl.material).map_err(Stop::Table)?;
                self.tables.insert(pl.material, t.clone());
                t
            }
        };
        let Some(table) = table else {
            return Ok(None);
        };
        let v = table.probe(&pl).map_err(Stop::Table)?;
        Ok(Some(table_distance(v, pos.turn() == self.shared.attacker)))
    }

    /// Whether the attacker forces mate within `d` plies from `pos` (either side to move).
    /// `ply` is the distance from the search's root, for killer moves.
    pub fn mates_within(&mut self, pos: &mut Position, d: u32, ply: usize) -> Result<bool, Stop> {
        let attacker = pos.turn() == self.shared.attacker;
        // mates come in odd plies with the attacker to move, even with the defender
        let d = if attacker == d.is_multiple_of(2) {
            match d.checked_sub(1) {
                Some(d) => d,
                None => return Ok(false),
            }
        } else {
            d
        };
        self.tick()?;
        if attacker && d == 1 {
            // a leaf: answered exactly and cheaply without the tables or the transposition
            // table, whose random access costs more than the answer
            return Ok(self.mate_in_one(pos));
        }
        let key = pos.key();
        let known = self.shared.tt.get(key);
        if known.mates_within(d) {
            return Ok(true);
        }
        if known.no_mate_within(d) {
            return Ok(false);
        }
        if let Some(dist) = self.probe(pos)? {
            let b = match dist {
                Some(n) => Bounds::NONE
                    .with_mate_within(n)
                    .with_no_mate_within(n.saturating_sub(1)),
                None => Bounds::NONE.with_never(),
            };
            let b = if dist == Some(0) {
                Bounds::NONE.with_mate_within(0)
            } else {
                b
            };
            self.shared.tt.put(key, b);
            return Ok(dist.is_some_and(|n| n <= d));
        }
        if !attacker && d >= 2 {
            // the defender's remembered refutations first, before generating its moves:
            // usually one of them escapes again
            if let Some(m) = self.quick_refutation(pos, d, ply, known)? {
                let now = self.shared.tt.get(key);
                self.shared
                    .tt
                    .put(key, now.with_no_mate_within(d).with_best(m));
                self.reward(pos.turn().index(), m, d, ply);
                return Ok(false);
            }
        }
        let mut list = MoveList::new();
        pos.pseudo_moves(&mut list);
        let legality = pos.legality();
        list.retain(|m| legality.move_is_legal(pos, m));
        if list.is_empty() {
            // the side to move has lost: mate in 0 if it is the defender, never if not
            let b = if attacker {
                Bounds::NONE.with_never()
            } else {
                Bounds::NONE.with_mate_within(0)
            };
            self.shared.tt.put(key, b);
            return Ok(!attacker);
        }
        self.node(pos, &list, d, ply, known, attacker)
    }

    /// The transposition table's move for the defender, if it is legal here and the
    /// attacker has no mate within `d − 1` after it.
    fn quick_refutation(
        &mut self,
        pos: &mut Position,
        d: u32,
        ply: usize,
        known: Bounds,
    ) -> Result<Option<Move>, Stop> {
        // (the killers were measured too: tried before captures they cost three times
        // the nodes)
        let Some(m) = known.best() else {
            return Ok(None);
        };
        if !pos.is_pseudo_legal(m) || !pos.is_legal_pseudo(m) {
            return Ok(None);
        }
        let undo = pos.play_unchecked(m);
        let r = self.mates_within(pos, d - 1, ply + 1);
        pos.undo(m, undo);
        Ok(if r? { None } else { Some(m) })
    }

    /// Whether the side to move (the attacker) has a move after which the other side has
    /// no legal move (checkmate, or stalemate, which loses too). A move that gives no check
    /// can only stalemate, which spare defender moves rule out at once.
    fn mate_in_one(&mut self, pos: &mut Position) -> bool {
        let mut list = MoveList::new();
        pos.pseudo_moves(&mut list);
        let legality = pos.legality();
        // the defender's general's sensitive points for every kind of attacker: a move that
        // touches none of them can neither give check nor uncover one
        pos.pass_turn();
        let sensitive = pos
            .legality_against(crate::movegen::Attackers::ALL)
            .sensitive_points();
        let spare = defender_has_spare_moves(pos, sensitive);
        pos.pass_turn();
        for &m in list.iter() {
            let touched = (1u128 << m.from().index()) | (1u128 << m.to().index());
            if spare && touched & sensitive == 0 {
                continue;
            }
            if !legality.move_is_legal(pos, m) {
                continue;
            }
            self.nodes += 1;
            let undo = pos.play_unchecked(m);
            let mated = (!spare || pos.is_check()) && !pos.has_legal_move();
            pos.undo(m, undo);
            if mated {
                return true;
            }
        }
        false
    }

    /// An inner node: the attacker needs one move that mates within `d − 1` after it; the
    /// defender needs one move that escapes (a refutation), or else it is mated within `d`.
    fn node(
        &mut self,
        pos: &mut Position,
        list: &MoveList,
        d: u32,
        ply: usize,
        known: Bounds,
        attacker: bool,
    ) -> Result<bool, Stop> {
        let key = pos.key();
        if !attacker && d == 0 {
            self.shared.tt.put(key, known.with_no_mate_within(0));
            return Ok(false);
        }
        // move order: the table's move, checks (the attacker's), captures of the most
        // valuable piece, killers, history
        let opponent = !pos.turn();
        let mut scored = std::mem::take(&mut self.scored[ply.min(MAX_PLY)]);
        scored.clear();
        let tt_move = known.best();
        let killers = self.killers[ply.min(MAX_PLY)];
        let side = pos.turn().index();
        for &m in list.iter() {
            let mut s = self.history[side][move_index(m)].min(99_999);
            if Some(m) == tt_move {
                s += 10_000_000;
            }
            if attacker {
                let undo = pos.play_unchecked(m);
                let check = pos.in_check(opponent);
                // the child's entry, fetched now so that it is in cache when searched
                self.shared.tt.prefetch(pos.key());
                pos.undo(m, undo);
                if check {
                    s += 2_000_000;
                }
            }
            if let Some(v) = pos.piece_at(m.to()) {
                s += 1_000_000 + 1000 * piece_value(v.kind);
            }
            if killers.contains(&Some(m)) {
                s += 500_000;
            }
            scored.push((s, m));
        }
        // the attacker looks for a move after which the mate holds, the defender for one
        // after which it does not
        let result = self.first_deciding(pos, &mut scored, d, ply, attacker);
        self.scored[ply.min(MAX_PLY)] = scored;
        let now = self.shared.tt.get(key);
        let mates = match result? {
            Some(m) => {
                let b = if attacker {
                    now.with_mate_within(d)
                } else {
                    now.with_no_mate_within(d)
                };
                self.shared.tt.put(key, b.with_best(m));
                self.reward(side, m, d, ply);
                attacker
            }
            None => {
                let b = if attacker {
                    now.with_no_mate_within(d)
                } else {
                    now.with_mate_within(d)
                };
                self.shared.tt.put(key, b);
                !attacker
            }
        };
        Ok(mates)
    }

    /// Tries the scored moves, best first; the first after which "mate within `d − 1`" is
    /// `want`.
    fn first_deciding(
        &mut self,
        pos: &mut Position,
        scored: &mut [(u32, Move)],
        d: u32,
        ply: usize,
        want: bool,
    ) -> Result<Option<Move>, Stop> {
        let n = scored.len();
        for i in 0..n {
            let m = pick(&mut scored[i..n]);
            let undo = pos.play_unchecked(m);
            self.shared.tt.prefetch(pos.key());
            let r = self.mates_within(pos, d - 1, ply + 1);
            pos.undo(m, undo);
            if r? == want {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// A move that decided its node: a killer at its ply and history credit.
    fn reward(&mut self, side: usize, m: Move, d: u32, ply: usize) {
        let k = &mut self.killers[ply.min(MAX_PLY)];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        let h = &mut self.history[side][move_index(m)];
        *h = h.saturating_add(d * d);
    }

    /// The exact number of plies in which the attacker mates from `pos`, if it is at most
    /// `max` (searched shallow to deep, so the first success is the distance).
    pub fn distance(&mut self, pos: &mut Position, max: u32) -> Result<Option<u32>, Stop> {
        let first = if pos.turn() == self.shared.attacker {
            1
        } else {
            0
        };
        let mut d = first;
        while d <= max {
            if self.mates_within(pos, d, 0)? {
                return Ok(Some(d));
            }
            d += 2;
        }
        Ok(None)
    }
}

/// The points a move's outcome depends on: where it starts and ends and every point it
/// passes (a chariot's or cannon's line, a horse's leg, an elephant's eye).
fn footprint(kind: Kind, m: Move) -> u128 {
    let (a, b) = (m.from().index(), m.to().index());
    let (fa, ra) = ((a % 9) as i32, (a / 9) as i32);
    let (fb, rb) = ((b % 9) as i32, (b / 9) as i32);
    let bit = |f: i32, r: i32| 1u128 << (r * 9 + f);
    let mut mask = bit(fa, ra) | bit(fb, rb);
    match kind {
        Kind::Horse => {
            let (df, dr) = (fb - fa, rb - ra);
            let leg = if df.abs() == 2 {
                (fa + df / 2, ra)
            } else {
                (fa, ra + dr / 2)
            };
            mask |= bit(leg.0, leg.1);
        }
        Kind::Elephant => mask |= bit((fa + fb) / 2, (ra + rb) / 2),
        _ => {
            let (sf, sr) = ((fb - fa).signum(), (rb - ra).signum());
            let (mut f, mut r) = (fa, ra);
            while (f, r) != (fb, rb) {
                mask |= bit(f, r);
                f += sf;
                r += sr;
            }
        }
    }
    mask
}

/// Whether the defender (to move in `null`, the position with the turn passed to it) surely
/// keeps a legal move after any move of
/// the attacker that does not give check: it has three moves, by pieces other than its
/// general, that touch none of its general's sensitive points (so that they stay legal
/// while the general is not in check, wherever the attacker's pieces stand) and whose
/// footprints are pairwise disjoint (so that one attacker move, which changes two points,
/// cannot spoil all three).
fn defender_has_spare_moves(null: &Position, sensitive: u128) -> bool {
    let general = null.general(null.turn());
    let mut list = MoveList::new();
    null.pseudo_moves(&mut list);
    let mut used = 0u128;
    let mut found = 0;
    for &m in list.iter() {
        if m.from() == general {
            continue;
        }
        let touched = (1u128 << m.from().index()) | (1u128 << m.to().index());
        if touched & sensitive != 0 {
            continue;
        }
        let Some(piece) = null.piece_at(m.from()) else {
            continue;
        };
        let f = footprint(piece.kind, m);
        if f & used == 0 {
            used |= f;
            found += 1;
            if found == 3 {
                return true;
            }
        }
    }
    false
}

/// Moves the best-scored entry to the front and returns its move (selection, so that a
/// node cut off early does not pay for sorting everything).
#[inline]
fn pick(scored: &mut [(u32, Move)]) -> Move {
    let mut best = 0;
    for i in 1..scored.len() {
        if scored[i].0 > scored[best].0 {
            best = i;
        }
    }
    scored.swap(0, best);
    scored[0].1
}
