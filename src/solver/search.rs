//! The proof search: does the attacker force mate within `d` plies? A depth-first
//! AND/OR search with every legal move of both sides (quiet moves included: a line that
//! stops checking must still parry the defender's threats, and a quiet move may win by
//! stalemate), bounds kept in the shared transposition table, and the tables deciding
//! every node whose material they hold.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use super::checks::{CheckFilter, check_candidates, moves_touching};
pub use super::ordering::Heuristics;
use super::ordering::{MAX_PLY, NO_KILLER, move_index, pick, piece_value};
use super::rule::Path;
use super::tt::{Bounds, Tt};
use super::witness::Witnesses;
use crate::game::material::Material;
use crate::game::moves::{Move, MoveList};
use crate::game::piece::Color;
use crate::game::position::{Position, Undo};
use crate::game::square::Square;
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
    /// The most pieces of any table present ([`Tablebase::most_pieces_present`]): a
    /// position with more is never looked up.
    pub table_pieces: usize,
    pub attacker: Color,
    /// The kinds of piece the attacker has at the root: a superset of what it has at any
    /// node, since pieces are only ever taken (a test of whether the defender's general
    /// is attacked by kinds the attacker no longer has finds nothing, as it should).
    pub attacker_kinds: crate::game::movegen::Attackers,
    /// The same of the defender's.
    pub defender_kinds: crate::game::movegen::Attackers,
    pub stop: &'a AtomicBool,
    pub deadline: Option<Instant>,
    pub max_nodes: Option<u64>,
    pub nodes: &'a AtomicU64,
    pub heuristics: &'a Heuristics,
    /// Every move of the attacker's must give check (连将杀): its other moves are never
    /// tried, and a stalemate by a quiet move does not count.
    pub checks_only: bool,
    /// Only a checkmate wins: a stalemate (困毙) ends the game without the win asked for.
    pub mate_only: bool,
    /// The perpetual-check rule applies (`--rules asian`, see [`super::rule`]): a move
    /// that completes a perpetual check is forbidden, and a side left with forbidden moves
    /// alone has lost.
    pub rule: bool,
    /// The rule set itself (what a repetition forbids: a perpetual check, or any 长打).
    pub rules: crate::tablebase::Rules,
    /// Positions the attacker may not move into (without the rule: a proof by checks alone
    /// that must hold under it, see [`super::mate_distance`]).
    pub avoid: Vec<u64>,
}

impl<'a> Shared<'a> {
    /// What a proof's threads share: `attacker`'s wins in `pos` as `options` asks for them
    /// (`tb` already filtered by [`super::Options`]'s rules), counted in `nodes`, ordered by
    /// `heuristics`, stopped by the options' flag, node limit and `deadline`.
    pub fn new(
        tt: &'a Tt,
        tb: Option<&'a Tablebase>,
        pos: &Position,
        attacker: Color,
        options: &'a super::Options,
        counters: (&'a AtomicU64, &'a Heuristics),
        deadline: Option<Instant>,
    ) -> Shared<'a> {
        Shared {
            tt,
            tb,
            table_pieces: tb.map_or(0, Tablebase::most_pieces_present),
            attacker,
            attacker_kinds: pos.attacker_kinds_of(attacker),
            defender_kinds: pos.attacker_kinds_of(!attacker),
            stop: &options.stop,
            deadline,
            max_nodes: options.max_nodes,
            nodes: counters.0,
            heuristics: counters.1,
            checks_only: options.checks_only,
            mate_only: options.mate_only,
            rule: options.rule(),
            rules: options.rules,
            avoid: Vec::new(),
        }
    }
}

/// One thread's search state: the tables it has looked up, its move lists.
pub struct Searcher<'a> {
    shared: &'a Shared<'a>,
    tables: HashMap<Material, Option<Arc<Table>>, BuildHasherDefault<MaterialHasher>>,
    nodes: u64,
    /// Scored move lists, one per ply, reused.
    scored: Vec<Vec<(u32, Move)>>,
    /// The last three disjoint witnesses a mate-in-one test found.
    spare: Option<[Move; 3]>,
    /// The last piece with three witness moves apart but for its own point that a
    /// mate-in-one test found, and those moves (see [`Witnesses::still_robust`]).
    robust: Option<[Move; 3]>,
    /// Per move of the attacker's (by [`move_index`]), the defender's answer that last
    /// escaped it in a mate-in-one test, as a killer is kept.
    escapes: Box<[u16]>,
    /// The moves a leaf under the rule plays beyond the mate test, kept from leaf to leaf.
    returning: Vec<Move>,
    /// The line from the game's start to the node searched (kept under the rule only).
    pub(super) path: Path,
    /// Under the rule, what the last "no mate" [`Searcher::mates_within`] answered depends
    /// on above its node.
    dep: Dep,
}

/// A quick hash for the few materials a search meets (the standard one, built against
/// crafted keys, costs more than the lookup is worth at every node): FNV-1a.
#[derive(Default)]
struct MaterialHasher(u64);

impl Hasher for MaterialHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// What a "no mate within d" found under the rule depends on above the node it was found
/// at: the earliest positions of the line that a move of its subtree was compared with in
/// a way that could come out otherwise on another line (`usize::MAX`: none). Such a result
/// with nothing above its node is the same on every line that reaches the node, and is
/// kept under the node's plain key ([`Searcher::mates_within`]).
///
/// - `attacker`: where the cycle of an attacker's move the rule forbade starts (on a line
///   without that earlier position the move would be allowed, and might win);
/// - `defender`: how far back the defender's refutations could be compared: a refutation
///   that is a hit could be forbidden on a line where the position it reaches stood
///   earlier, as far back as the defender's run of hits goes. A refutation that is no hit
///   (or cannot be undone) is never forbidden, and ends every run of the defender's from
///   below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dep {
    attacker: usize,
    defender: usize,
}

impl Dep {
    /// Nothing above the node.
    const NONE: Dep = Dep {
        attacker: usize::MAX,
        defender: usize::MAX,
    };

    fn min(self, other: Dep) -> Dep {
        Dep {
            attacker: self.attacker.min(other.attacker),
            defender: self.defender.min(other.defender),
        }
    }

    /// Whether the result stands on every line that reaches the node at index `c`.
    fn within(self, c: usize) -> bool {
        self.attacker >= c && self.defender >= c
    }
}

/// A node's transposition-table keys under the rule ([`Searcher::look_up`]): its plain
/// key, and the line's (the same without the rule, or where nothing before the node can
/// recur within the depth).
#[derive(Clone, Copy, Debug)]
struct Keys {
    plain: u64,
    path: u64,
    /// The node's index on the line.
    c: usize,
}

impl Keys {
    /// Where a "no mate" that depends on `dep` is kept: under the plain key when it
    /// stands on every line, else under the line's.
    fn for_no_mate(&self, dep: Dep) -> u64 {
        if dep.within(self.c) {
            self.plain
        } else {
            self.path
        }
    }
}

/// What the transposition table says of a node.
enum LookUp {
    /// It decides the node: mate within the depth or not, and what a "no mate" depends on.
    Decided(bool, Dep),
    /// It does not: the node's keys, and what it knows.
    Open(Keys, Bounds),
}

/// A move's score in a node's order: the transposition table's move, then checks, captures
/// (by the value taken), killers, history. A check's score says so ([`gives_check`]): what
/// the others add up to stays below [`CHECK`].
const TT_MOVE: u32 = 10_000_000;
const CHECK: u32 = 2_000_000;
const CAPTURE: u32 = 1_000_000;
const KILLER: u32 = 500_000;
const HISTORY_MAX: u32 = 99_999;
const _: () = assert!(HISTORY_MAX + CAPTURE + 1000 * 90 + KILLER < CHECK);
const _: () = assert!(TT_MOVE > CHECK + HISTORY_MAX + CAPTURE + 1000 * 90 + KILLER);

/// Whether a move of this score gives check.
#[inline]
fn gives_check(score: u32) -> bool {
    score % TT_MOVE >= CHECK
}

/// How trying a node's moves ended.
enum Tried {
    /// This move decided the node.
    Decided(Move),
    /// Every legal move was tried and none decided it.
    Exhausted,
    /// The side to move has no legal move.
    NoLegalMove,
    /// The side to move has legal moves, and the perpetual-check rule forbids them all.
    OnlyForbidden,
}

/// The attacker mates within this many plies (`Some(Some(n))`), or never (`Some(None)`):
/// the tables' value of a position for the attacker; `None` when the table does not
/// decide it: a win by the perpetual-check rule, which has no distance, is searched
/// when the solver applies the rule (without it, it is no win).
fn table_distance(v: Value, attacker_to_move: bool, rule: bool) -> Option<Option<u32>> {
    match (v, attacker_to_move) {
        (Value::Win(n), true) | (Value::Loss(n), false) => Some(Some(n)),
        (Value::RuleWin(_), true) | (Value::RuleLoss(_), false) if rule => None,
        _ => Some(None),
    }
}

impl<'a> Searcher<'a> {
    pub fn new(shared: &'a Shared<'a>) -> Searcher<'a> {
        Searcher {
            shared,
            tables: HashMap::default(),
            nodes: 0,
            scored: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            spare: None,
            robust: None,
            escapes: vec![NO_KILLER; 8100].into_boxed_slice(),
            returning: Vec::new(),
            dep: Dep::NONE,
            path: Path::new(if shared.rule {
                shared.rules
            } else {
                crate::tablebase::Rules::None
            }),
        }
    }

    /// Plays `m` and adds the position to the line; `None`, with nothing played, when the
    /// perpetual-check rule forbids the move.
    #[inline]
    pub(super) fn enter(&mut self, pos: &mut Position, m: Move) -> Option<Undo> {
        self.enter_knowing(pos, m, None)
    }

    /// [`Searcher::enter`] where whether `m` gives check may be known already.
    #[inline]
    fn enter_knowing(&mut self, pos: &mut Position, m: Move, check: Option<bool>) -> Option<Undo> {
        if !self.path.on() {
            if !self.shared.avoid.is_empty()
                && pos.turn() == self.shared.attacker
                && self.shared.avoid.contains(&pos.key_after(m))
            {
                return None;
            }
            return Some(pos.play_unchecked(m));
        }
        let (undo, forbidden) = self.path.play_knowing(pos, m, check);
        if forbidden {
            self.path.pop();
            pos.undo(m, undo);
            return None;
        }
        Some(undo)
    }

    /// Takes back a move [`Searcher::enter`] played.
    #[inline]
    pub(super) fn leave(&mut self, pos: &mut Position, m: Move, undo: Undo) {
        pos.undo(m, undo);
        self.path.pop();
    }

    /// Whether the defender (to move) has lost here: it has no legal move (checkmate, or
    /// stalemate unless only mate counts), or the rule forbids every one (unless only mate
    /// counts: the game ends by the rule, not by mate).
    fn defender_lost_now(&mut self, pos: &mut Position) -> bool {
        // (the check test only where it decides, as the baseline's node does it)
        if !self.path.may_forbid() {
            return !pos.has_legal_move() && (!self.shared.mate_only || pos.is_check());
        }
        // a move that repeats nothing is allowed: found without listing them all
        let path = &self.path;
        let (allowed, any) = pos.legal_move_where(|m| {
            !path.may_repeat(None, pos.key_after(m), super::rule::irreversible(pos, m))
        });
        if !any {
            return !self.shared.mate_only || pos.is_check();
        }
        if allowed || self.shared.mate_only {
            return false;
        }
        let moves = pos.legal_moves();
        !self.some_move_allowed(pos, &moves)
    }

    /// Whether the rule leaves the side to move in `pos`, the line's last position, one of
    /// its legal `moves`. A move that repeats no position of the line is never forbidden:
    /// it is allowed without asking whether the moves of a cycle were 打, which only a
    /// repetition needs.
    fn some_move_allowed(&mut self, pos: &mut Position, moves: &MoveList) -> bool {
        for &m in moves.iter() {
            let irreversible = super::rule::irreversible(pos, m);
            if !self.path.may_repeat(None, pos.key_after(m), irreversible) {
                return true;
            }
            if let Some(undo) = self.enter(pos, m) {
                self.leave(pos, m, undo);
                return true;
            }
        }
        false
    }

    /// The mate-in-one test where the defender's answers may be forbidden by the rule (its
    /// last move was a hit). A mate or stalemate is never forbidden (the position could not
    /// have occurred before: the game would have ended there), so the plain test finds
    /// those; beyond them the attacker wins here only by a move after which every answer
    /// is forbidden, which each repeats a position of the defender's run of hits, and
    /// such a move is one of the few that, with an answer, take the line back to one
    /// ([`Path::returning_moves`]): only those are played and their answers asked of the
    /// line.
    ///
    /// "No mate" here depends on the defender's run of hits through the move into this
    /// position (the answers it could repeat), which the defender's node above cuts where
    /// that move was no hit, and on the cycles of the returning moves the rule forbids.
    fn mate_in_one_by_rule(&mut self, pos: &mut Position) -> bool {
        if self.mate_in_one(pos) {
            return true;
        }
        let c = self.path.len() - 1;
        self.dep = Dep {
            attacker: usize::MAX,
            defender: c.saturating_sub(1),
        };
        // (when only mate counts, a defender without an allowed move has not lost)
        if self.shared.mate_only {
            return false;
        }
        let mut returning = std::mem::take(&mut self.returning);
        self.path.returning_moves(pos, &mut returning);
        let mut forbidden_from = usize::MAX;
        let won = returning
            .iter()
            .any(|&m| self.leaves_no_answer(pos, m, &mut forbidden_from));
        self.returning = returning;
        self.dep.attacker = forbidden_from;
        won
    }

    /// Whether the attacker's move `m` (any move) is legal here, allowed by the rule, and
    /// leaves the defender no allowed answer.
    /// A move the rule forbids lowers `forbidden_from` to where its cycle starts.
    fn leaves_no_answer(
        &mut self,
        pos: &mut Position,
        m: Move,
        forbidden_from: &mut usize,
    ) -> bool {
        if !pos.is_pseudo_legal(m)
            || !pos.is_legal_pseudo(m)
            || self.shared.checks_only && !pos.gives_check(m)
        {
            return false;
        }
        self.nodes += 1;
        // (on the board first: a defender with an answer that repeats no position of the
        // line has not lost, whether or not the rule allows the move, and the line need
        // not be asked)
        let once = Some(super::rule::irreversible(pos, m));
        let undo = pos.play_unchecked(m);
        let path = &self.path;
        let (free, _) = pos.legal_move_where(|a| {
            !path.may_repeat(once, pos.key_after(a), super::rule::irreversible(pos, a))
        });
        pos.undo(m, undo);
        if free {
            return false;
        }
        let Some(undo) = self.enter(pos, m) else {
            *forbidden_from = (*forbidden_from).min(self.path.cycle_start());
            return false;
        };
        let lost = self.defender_lost_now(pos);
        self.leave(pos, m, undo);
        lost
    }

    /// What tests the legality of the side to move's moves, against the kinds of piece the
    /// other side had at the root (a superset of what it has: pieces are only taken).
    #[inline]
    fn legality(&self, pos: &Position) -> crate::game::movegen::Legality {
        pos.legality_against(if pos.turn() == self.shared.attacker {
            self.shared.defender_kinds
        } else {
            self.shared.attacker_kinds
        })
    }

    /// Whether every move of the attacker's must give check (连将杀).
    pub fn checks_only(&self) -> bool {
        self.shared.checks_only
    }

    /// The nodes searched by every thread, this one's not yet added included.
    pub fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Relaxed) + self.nodes
    }

    /// Adds this thread's node count to the shared one.
    pub fn flush_nodes(&mut self) {
        let total = self.shared.nodes.fetch_add(self.nodes, Relaxed) + self.nodes;
        self.nodes = 0;
        self.shared.tt.grow_after(total);
    }

    pub(super) fn tick(&mut self) -> Result<(), Stop> {
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
    pub(super) fn probe(&mut self, pos: &Position) -> Result<Option<Option<u32>>, Stop> {
        let Some(tb) = self.shared.tb else {
            return Ok(None);
        };
        if pos.piece_count() > self.shared.table_pieces.min(MAX_PIECES) {
            return Ok(None);
        }
        // (the material first, which is cheap: most materials have no table, and the
        // placement is worked out only for those that do)
        let material = Material::of(pos).canonical();
        let table = match self.tables.get(&material) {
            Some(t) => t.clone(),
            None => {
                let t = tb.table_if_present(material).map_err(Stop::Table)?;
                self.tables.insert(material, t.clone());
                t
            }
        };
        let Some(table) = table else {
            return Ok(None);
        };
        let pl = match placement(pos) {
            Ok(pl) => pl,
            // (a composed placement: searched, never indexed)
            Err(crate::tablebase::TableError::Unreachable(_)) => return Ok(None),
            Err(e) => return Err(Stop::Table(e)),
        };
        let v = table.probe(&pl).map_err(Stop::Table)?;
        Ok(table_distance(
            v,
            pos.turn() == self.shared.attacker,
            self.shared.rule,
        ))
    }

    /// Whether the attacker forces mate within `d` plies from `pos` (either side to move).
    /// `ply` is the distance from the search's root, for killer moves.
    pub fn mates_within(&mut self, pos: &mut Position, d: u32, ply: usize) -> Result<bool, Stop> {
        let attacker = pos.turn() == self.shared.attacker;
        // mates come in odd plies with the attacker to move, even with the defender
        self.dep = Dep::NONE;
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
            // table, whose random access costs more than the answer (under the rule, after a
            // check of the defender's its answers may be forbidden: then move by move)
            if self.path.on() {
                return Ok(self.mate_in_one_by_rule(pos));
            }
            return Ok(self.mate_in_one(pos));
        }
        let (keys, known) = match self.look_up(pos, d) {
            LookUp::Decided(mates, dep) => {
                self.dep = dep;
                return Ok(mates);
            }
            LookUp::Open(keys, known) => (keys, known),
        };
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
            // (a table's value stands on every line)
            self.shared.tt.put(keys.plain, b);
            self.dep = Dep::NONE;
            return Ok(dist.is_some_and(|n| n <= d));
        }
        if !attacker && d >= 2 {
            // the defender's remembered refutations first, before generating its moves:
            // usually one of them escapes again
            if let Some((m, remembered)) = self.quick_refutation(pos, d, ply, known, keys)? {
                let key = keys.for_no_mate(self.dep);
                let now = self.shared.tt.get(key).with_no_mate_within(d);
                // (a killer's refutation is not kept as the position's move: it holds at
                // depth 2, but the deeper passes find a better first try by ordering)
                if remembered {
                    self.shared.tt.put(key, now.with_best(m));
                    self.shared.heuristics.reward(pos.turn().index(), m, d, ply);
                } else {
                    self.shared.tt.put(key, now);
                }
                return Ok(false);
            }
        }
        let mut list = MoveList::new();
        pos.pseudo_moves(&mut list);
        self.node(pos, &list, d, ply, known, keys)
    }

    /// What the transposition table knows of `pos` at depth `d`, and the node's keys.
    /// Without the rule the key is the plain one. Under it, a "no mate" kept under the
    /// plain key stands on every line, and is looked up first; then the line's key
    /// ([`Path::tt_key`]), under which wins and the "no mate"s that depend on the line are
    /// kept, valid back to the earliest position it mixes in.
    fn look_up(&mut self, pos: &Position, d: u32) -> LookUp {
        let plain = pos.key();
        let known = self.shared.tt.get(plain);
        if known.mates_within(d) || known.no_mate_within(d) {
            return LookUp::Decided(known.mates_within(d), Dep::NONE);
        }
        let (path, from, c) = if self.path.on() {
            let (path, from) = self.path.tt_key_from(pos, d);
            (path, from, self.path.len() - 1)
        } else {
            (plain, 0, 0)
        };
        let keys = Keys { plain, path, c };
        if path == plain {
            return LookUp::Open(keys, known);
        }
        let on_line = self.shared.tt.get(path);
        if on_line.mates_within(d) || on_line.no_mate_within(d) {
            let dep = Dep {
                attacker: from,
                defender: from,
            };
            return LookUp::Decided(on_line.mates_within(d), dep);
        }
        // (the line's entry's move where the plain one has none)
        let known = match (known.best(), on_line.best()) {
            (None, Some(m)) => known.with_best(m),
            _ => known,
        };
        LookUp::Open(keys, known)
    }

    /// The defender's remembered refutation, tried before its moves are generated, if it
    /// is legal here and the attacker has no mate within `d − 1` after it: the
    /// transposition table's move (then `true`), or else at depth 2 the killer of this
    /// ply, which refutes the attacker's sibling moves about 99% of the time and costs
    /// only a mate-in-one test when it does not.
    fn quick_refutation(
        &mut self,
        pos: &mut Position,
        d: u32,
        ply: usize,
        known: Bounds,
        keys: Keys,
    ) -> Result<Option<(Move, bool)>, Stop> {
        // (deeper, the killers were measured too: tried before captures they cost three
        // times the nodes)
        let (m, remembered) = match known.best() {
            Some(m) => (m, true),
            None if d == 2 => match self.shared.heuristics.killers(ply)[0] {
                Some(m) => (m, false),
                None => return Ok(None),
            },
            None => return Ok(None),
        };
        if !pos.is_pseudo_legal(m) || !pos.is_legal_pseudo(m) {
            return Ok(None);
        }
        let Some(undo) = self.enter(pos, m) else {
            return Ok(None);
        };
        let r = self.mates_within(pos, d - 1, ply + 1);
        self.leave(pos, m, undo);
        if r? {
            return Ok(None);
        }
        self.dep = self.refutation_dep(pos, m, self.dep, keys);
        Ok(Some((m, remembered)))
    }

    /// What "no mate" at a defender's node (the line's last position, `pos`, of `keys`)
    /// refuted by its move `m` depends on above it, the subtree after `m` depending on
    /// `below` ([`Dep`]).
    ///
    /// Whether a quiet `m` is 打 (a threat test) is asked only where the answer changes
    /// where a result is kept: here, when the node's keys differ, or above, when a hit would
    /// reach further back than the position before this one (its parent's, which the
    /// parent's own key holds either way).
    fn refutation_dep(&mut self, pos: &Position, m: Move, below: Dep, keys: Keys) -> Dep {
        if !self.path.on() || super::rule::irreversible(pos, m) {
            return Dep::NONE;
        }
        let if_hit = Dep {
            attacker: below.attacker,
            defender: below.defender.min(self.path.mover_reach(pos)),
        };
        let parent = keys.c.saturating_sub(1);
        if keys.path == keys.plain && if_hit.defender >= parent {
            return if_hit;
        }
        if !self.path.move_hits(pos, m) {
            return Dep {
                attacker: below.attacker,
                defender: usize::MAX,
            };
        }
        if_hit
    }

    /// Whether the side to move (the attacker) has a move after which the other side has
    /// no legal move (checkmate, or stalemate, which loses too).
    ///
    /// A move is played only when it may end the game: when it checks (the candidates come
    /// from [`check_candidates`]), or when it gives no check (and so can only stalemate)
    /// and none of the defender's witness moves (see [`Witnesses`]) survives it.
    fn mate_in_one(&mut self, pos: &mut Position) -> bool {
        // (the mover's own legality only once a move is worth a closer look)
        let mut legality = None;
        let kinds = self.shared.attacker_kinds;
        // (the defender is not in check: every position searched is legal, the root's
        // legality being tested by `solve` and `mate_distance`)
        pos.pass_turn();
        debug_assert!(!pos.is_check(), "an illegal position searched: {pos}");
        // (sensitive to every kind of piece and to the other general, whatever the
        // attacker has: its general may come to the file a witness would leave)
        let general = pos.general(pos.turn());
        let sensitive = crate::game::movegen::sensitive_points_of(general);
        let mut witnesses = if self.shared.checks_only || self.shared.mate_only {
            // (连将杀, or 将死 only: only a check may end it, so no stalemate is looked for)
            Witnesses::stalemate_not_sought()
        } else {
            self.witnesses_of(pos, sensitive)
        };
        pos.pass_turn();
        // only the moves that may check, found from where each kind of piece checks, and
        // those that may take every witness away (none with three disjoint witnesses)
        let mut list = MoveList::new();
        let unsure = check_candidates(pos, &mut list);
        let checks_end = list.len();
        if !witnesses.spare {
            moves_touching(pos, witnesses.must_touch(), &mut list);
            // (a robust piece kept from another node leaves only the moves that take it:
            // should there be any, they are looked at with all the witnesses)
            if witnesses.kept_robust && list.len() > checks_end {
                list.truncate(checks_end);
                pos.pass_turn();
                witnesses = Witnesses::of(pos, sensitive);
                pos.pass_turn();
                if !witnesses.spare {
                    moves_touching(pos, witnesses.must_touch(), &mut list);
                }
            }
        }
        for (i, &m) in list.iter().enumerate() {
            let touched = (1u128 << m.from().index()) | (1u128 << m.to().index());
            // (whether it checks, on the board as it would stand, without playing it; among
            // the moves that may stalemate, a check was a candidate check already, and one
            // that a witness survives cannot stalemate)
            let check = if i < unsure {
                pos.gives_check(m)
            } else if i < checks_end {
                true
            } else if witnesses.survive(touched)
                || pos.gives_check(m)
                || witnesses.step_survives(pos, m)
            {
                continue;
            } else {
                false
            };
            if !check && i < checks_end {
                continue;
            }
            if !legality
                .get_or_insert_with(|| self.legality(pos))
                .move_is_legal(pos, m)
            {
                continue;
            }
            self.nodes += 1;
            let undo = pos.play_unchecked(m);
            // (a move that got this far either checks or may stalemate; whether it
            // checks is known exactly)
            // (the answer that escaped this move last time usually does again)
            let last = self.escapes[move_index(m)];
            let again = last != NO_KILLER && {
                let e = Move::new(
                    Square::new_unchecked((last >> 8) as u8),
                    Square::new_unchecked(last as u8),
                );
                pos.is_pseudo_legal(e) && pos.is_legal_pseudo_against(e, kinds)
            };
            let mated = !again
                && match pos.some_legal_move_against(kinds, check) {
                    Some(e) => {
                        self.escapes[move_index(m)] =
                            (e.from().index() as u16) << 8 | e.to().index() as u16;
                        false
                    }
                    None => true,
                };
            pos.undo(m, undo);
            if mated {
                return true;
            }
        }
        false
    }

    /// The defender's witnesses in `null` (the defender to move): the last leaf's three
    /// disjoint witnesses or its robust piece, which usually serve again, else found anew
    /// and remembered.
    #[inline(always)]
    fn witnesses_of(&mut self, null: &Position, sensitive: u128) -> Witnesses {
        if let Some(w) = self
            .spare
            .and_then(|moves| Witnesses::still_spare(null, sensitive, moves))
            .or_else(|| {
                self.robust
                    .and_then(|moves| Witnesses::still_robust(null, sensitive, moves))
            })
        {
            return w;
        }
        let w = Witnesses::of(null, sensitive);
        // (a robust piece is kept only where three disjoint witnesses are not to be had, as
        // when the defender has few pieces: elsewhere trying it first costs more than it
        // saves)
        if w.spare {
            self.spare = Some(w.spare_moves);
            self.robust = None;
        } else if let Some(moves) = w.robust {
            self.robust = Some(moves);
        }
        w
    }

    /// An inner node: the attacker needs one move that mates within `d − 1` after it; the
    /// defender needs one move that escapes (a refutation), or else it is mated within `d`.
    /// `list` holds the pseudo-legal moves; each is tested for legality only when its turn
    /// comes, since a node is often decided by its first move.
    fn node(
        &mut self,
        pos: &mut Position,
        list: &MoveList,
        d: u32,
        ply: usize,
        known: Bounds,
        keys: Keys,
    ) -> Result<bool, Stop> {
        let attacker = pos.turn() == self.shared.attacker;
        if !attacker && d == 0 {
            // (a stalemate is no mate when only mate counts)
            let lost = self.defender_lost_now(pos);
            if lost {
                self.shared
                    .tt
                    .put(keys.path, Bounds::NONE.with_mate_within(0));
            } else {
                // (the move it has left could be forbidden on another line)
                self.dep = Dep {
                    attacker: usize::MAX,
                    defender: if self.path.on() {
                        self.path.mover_reach(pos)
                    } else {
                        usize::MAX
                    },
                };
                let key = keys.for_no_mate(self.dep);
                self.shared.tt.put(key, known.with_no_mate_within(0));
            }
            return Ok(lost);
        }
        // four plies and more from the end, a defender's move into a position the table
        // already knows the attacker cannot win within d − 1 from refutes at once, where
        // the move tried first would cost a subtree (an enhanced transposition cutoff; the
        // move is credited as a killer, not kept as the position's move)
        if !attacker
            && d >= 4
            && let Some(m) = self.refuted_by_table(pos, list, d)
        {
            // (the position after it is known on every line)
            self.dep = self.refutation_dep(pos, m, Dep::NONE, keys);
            let key = keys.for_no_mate(self.dep);
            let now = self.shared.tt.get(key).with_no_mate_within(d);
            self.shared.tt.put(key, now);
            self.shared.heuristics.reward(pos.turn().index(), m, d, ply);
            return Ok(false);
        }
        // move order: the table's move, checks (the attacker's), captures of the most
        // valuable piece, killers, history
        let mut scored = std::mem::take(&mut self.scored[ply.min(MAX_PLY)]);
        scored.clear();
        let tt_move = known.best();
        let killers = self.shared.heuristics.killers(ply);
        let side = pos.turn().index();
        let checks = CheckFilter::new(pos);
        for &m in list.iter() {
            let mut s = self.shared.heuristics.history(side, m).min(HISTORY_MAX);
            if Some(m) == tt_move {
                s += TT_MOVE;
            }
            if checks.may_check(pos, m) && pos.gives_check(m) {
                s += CHECK;
            } else if attacker && self.shared.checks_only {
                // (连将杀: the attacker's other moves are not tried at all)
                continue;
            }
            if let Some(v) = pos.piece_at(m.to()) {
                s += CAPTURE + 1000 * piece_value(v.kind);
            }
            if killers.contains(&Some(m)) {
                s += KILLER;
            }
            scored.push((s, m));
        }
        // the attacker looks for a move after which the mate holds, the defender for one
        // after which it does not
        let result = self.first_deciding(pos, &mut scored, d, ply, attacker, keys);
        self.scored[ply.min(MAX_PLY)] = scored;
        let result = result?;
        if !attacker && matches!(result, Tried::OnlyForbidden) {
            // (a defender whose every move is forbidden has lost, unless only mate counts:
            // then "no mate", which a line that allows one of its moves may not share)
            self.dep = Dep {
                attacker: 0,
                defender: 0,
            };
        }
        // a "no mate" (the attacker's moves all fail, or the defender's refutes) where the
        // line allows, a mate under the line's key
        let no_mate = match result {
            Tried::NoLegalMove | Tried::OnlyForbidden => attacker,
            Tried::Decided(_) => !attacker,
            Tried::Exhausted => attacker,
        };
        let key = if no_mate {
            keys.for_no_mate(self.dep)
        } else {
            keys.path
        };
        let now = self.shared.tt.get(key);
        let mates = match result {
            ended @ (Tried::NoLegalMove | Tried::OnlyForbidden) => {
                // the side to move has lost (no legal move, or only moves the rule forbids):
                // mate in 0 if it is the defender, never if not (nor if only mate counts and
                // the defender is not checkmated)
                let mated = !attacker
                    && (!self.shared.mate_only
                        || matches!(ended, Tried::NoLegalMove) && pos.is_check());
                let b = if mated {
                    Bounds::NONE.with_mate_within(0)
                } else {
                    Bounds::NONE.with_never()
                };
                self.shared.tt.put(key, b);
                mated
            }
            Tried::Decided(m) => {
                let b = if attacker {
                    now.with_mate_within(d)
                } else {
                    now.with_no_mate_within(d)
                };
                self.shared.tt.put(key, b.with_best(m));
                self.shared.heuristics.reward(side, m, d, ply);
                attacker
            }
            Tried::Exhausted => {
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

    /// A legal move of the defender's, not forbidden by the rule, after which the
    /// transposition table already knows that the attacker has no mate within `d − 1`.
    /// Under the rule only the children's plain keys are asked: a "no mate" kept under one
    /// holds on every line.
    fn refuted_by_table(&mut self, pos: &mut Position, list: &MoveList, d: u32) -> Option<Move> {
        // (every child's slot fetched first, so that the misses overlap)
        for &m in list.iter() {
            self.shared.tt.prefetch(pos.key_after(m));
        }
        let mut legality = None;
        list.iter().copied().find(|&m| {
            self.shared.tt.get(pos.key_after(m)).no_mate_within(d - 1)
                && legality
                    .get_or_insert_with(|| self.legality(pos))
                    .move_is_legal(pos, m)
                && self.allowed(pos, m)
        })
    }

    /// Whether the rule allows the legal move `m` here (a move that repeats nothing is
    /// allowed without being played).
    fn allowed(&mut self, pos: &mut Position, m: Move) -> bool {
        if !self
            .path
            .may_repeat(None, pos.key_after(m), super::rule::irreversible(pos, m))
        {
            return true;
        }
        match self.enter(pos, m) {
            Some(undo) => {
                self.leave(pos, m, undo);
                true
            }
            None => false,
        }
    }

    /// Tries the legal moves among the scored ones, best first, for the first after which
    /// "mate within `d − 1`" is `want`.
    fn first_deciding(
        &mut self,
        pos: &mut Position,
        scored: &mut [(u32, Move)],
        d: u32,
        ply: usize,
        want: bool,
        keys: Keys,
    ) -> Result<Tried, Stop> {
        let legality = self.legality(pos);
        let mut any_legal = false;
        let mut any_allowed = false;
        let n = scored.len();
        if want {
            // the attacker tries every move where it fails, which is most nodes: one sort
            // costs less than picking the best each time
            scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        }
        // the attacker's children's entries a few moves ahead, so that their misses overlap
        const AHEAD: usize = 4;
        // (the plain keys: under the rule the line's key is asked only where the plain one
        // does not decide)
        if want {
            for &(_, m) in scored.iter().take(AHEAD) {
                self.shared.tt.prefetch(pos.key_after(m));
            }
        }
        // what a "no mate" found here depends on above ([`Dep`]): for the attacker's, every
        // move's; for the defender's, its refutation's
        let mut dep = Dep::NONE;
        for i in 0..n {
            let (score, m) = if want {
                if let Some(&(_, next)) = scored.get(i + AHEAD) {
                    self.shared.tt.prefetch(pos.key_after(next));
                }
                scored[i]
            } else {
                let m = pick(&mut scored[i..n]);
                (scored[i].0, m)
            };
            if !legality.move_is_legal(pos, m) {
                continue;
            }
            any_legal = true;
            let Some(undo) = self.enter_knowing(pos, m, Some(gives_check(score))) else {
                if want {
                    dep.attacker = dep.attacker.min(self.path.cycle_start());
                }
                continue;
            };
            any_allowed = true;
            if !want && d > 2 {
                self.shared.tt.prefetch(pos.key());
            }
            let r = self.mates_within(pos, d - 1, ply + 1);
            self.leave(pos, m, undo);
            if r? == want {
                if !want {
                    self.dep = self.refutation_dep(pos, m, self.dep, keys);
                }
                return Ok(Tried::Decided(m));
            }
            if want {
                dep = dep.min(self.dep);
            }
        }
        self.dep = dep;
        Ok(if any_allowed {
            Tried::Exhausted
        } else if any_legal {
            Tried::OnlyForbidden
        } else {
            Tried::NoLegalMove
        })
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

#[cfg(test)]
mod tests {
    use super::super::checks::footprint;
    use super::*;

    /// Positions reached by seeded random play from the solver benchmark's mating
    /// positions, the opening and a few thin endgames (where the defender has few spare
    /// moves and stalemates happen).
    fn sample_positions() -> Vec<Position> {
        let mut starts: Vec<String> = include_str!("../../benches/data/solve.txt")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| l.split(';').next().unwrap().trim().to_string())
            .collect();
        starts.extend(
            [
                "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
                "3k5/9/9/9/9/9/9/9/4A4/2R1K4 w - - 0 1",
                "3k5/9/4P4/9/9/9/9/9/9/4K4 w - - 0 1",
                "3ak4/4a4/9/9/9/9/9/9/4p4/3K5 b - - 0 1",
                "5k3/3P5/9/9/9/9/9/9/9/4K4 w - - 0 1",
                "2bak4/4a4/4b4/9/9/9/9/4N4/9/3K1C3 w - - 0 1",
                // 炮九退三 stalemates: it blocks the leg of black's last horse move
                "5k3/8R/9/9/9/C3R4/9/9/9/nN1K5 w - - 0 1",
                // 帅五平六 stalemates: black's horse, off the file, would let the generals face
                "3k5/9/5N3/9/3n5/9/9/9/9/4K4 w - - 0 1",
                // black's cannon has three moves apart but for its own point (to a5, to a0,
                // taking c4): 马八退九 (the screen leaves b4 for a2, in the way to a0) or
                // 相七退九 (the target leaves c4 for a2) takes two of them away at once, so
                // two would not make the cannon a witness
                "3k5/9/9/9/9/cNB6/9/9/9/4K4 b - - 0 1",
                // thin endgames where the attacker has no chariot or cannon
                "4k4/9/9/9/2n6/9/4P4/4N4/9/3K5 w - - 0 1",
                "3ak4/9/9/9/4n4/9/2P6/9/9/4K4 w - - 0 1",
                "5k3/9/3N5/2p6/9/9/9/9/9/3K5 w - - 0 1",
            ]
            .map(String::from),
        );
        let mut next = crate::game::movegen::xorshift(0x2545_f491_4f6c_dd1d);
        let mut out = Vec::new();
        for fen in &starts {
            for _ in 0..12 {
                let mut pos: Position = fen.parse().unwrap();
                for _ in 0..24 {
                    out.push(pos.clone());
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    // checks twice as likely, so that mates come up
                    let checks: Vec<Move> = legal
                        .iter()
                        .copied()
                        .filter(|&m| {
                            let mut p = pos.clone();
                            p.play_unchecked(m);
                            p.is_check()
                        })
                        .collect();
                    let m = if !checks.is_empty() && next().is_multiple_of(2) {
                        checks[(next() % checks.len() as u64) as usize]
                    } else {
                        legal[(next() % legal.len() as u64) as usize]
                    };
                    pos.play_unchecked(m);
                }
            }
        }
        out
    }

    /// Three witnesses kept from one position and found still good in the next are legal
    /// moves there, with pairwise disjoint points off the general's sensitive ones.
    #[test]
    fn kept_witnesses_are_witnesses() {
        let (mut kept, mut tried) = (0, 0);
        let mut last: Option<[Move; 3]> = None;
        for pos in sample_positions() {
            if pos.is_check() {
                continue;
            }
            let sensitive = crate::game::movegen::sensitive_points_of(pos.general(pos.turn()));
            if let Some(moves) = last {
                tried += 1;
                if let Some(w) = Witnesses::still_spare(&pos, sensitive, moves) {
                    kept += 1;
                    let legal = pos.legal_moves();
                    let mut used = sensitive;
                    for m in w.spare_moves {
                        assert!(legal.contains(&m), "{m:?} in {pos}");
                        let f = footprint(pos.piece_at(m.from()).unwrap().kind, m);
                        assert_eq!(f & used, 0, "{m:?} in {pos}");
                        used |= f;
                    }
                }
            }
            let w = Witnesses::of(&pos, sensitive);
            if w.spare {
                last = Some(w.spare_moves);
            }
        }
        eprintln!("{kept} of {tried} kept");
        assert!(kept > 1000 && kept < tried, "{kept} of {tried}");
    }

    /// A robust piece (found, or kept from the position before and found still good) is a
    /// witness by itself: after every move of the other side's that gives no check and
    /// does not take it, one of its three moves is still legal. Tested by playing them all.
    #[test]
    fn robust_pieces_are_witnesses() {
        let (mut found, mut kept, mut tried, mut answers) = (0, 0, 0, 0);
        let mut last: Option<[Move; 3]> = None;
        for pos in sample_positions() {
            if pos.is_check() {
                continue;
            }
            let sensitive = crate::game::movegen::sensitive_points_of(pos.general(pos.turn()));
            let fresh = Witnesses::of(&pos, sensitive).robust;
            let again = last.filter(|&moves| {
                tried += 1;
                Witnesses::still_robust(&pos, sensitive, moves).is_some()
            });
            kept += again.is_some() as u32;
            found += fresh.is_some() as u32;
            for moves in [fresh, again].into_iter().flatten() {
                let piece = moves[0].from();
                let legal = pos.legal_moves();
                assert!(
                    moves.iter().all(|m| legal.contains(m)),
                    "{moves:?} in {pos}"
                );
                let mut other = pos.clone();
                other.pass_turn();
                for &m in other.legal_moves().iter() {
                    let mut after = other.clone();
                    after.play_unchecked(m);
                    if m.to() == piece || after.is_check() {
                        continue;
                    }
                    let left = after.legal_moves();
                    assert!(
                        moves.iter().any(|w| left.contains(w)),
                        "{m:?} takes all of {moves:?} away in {pos}"
                    );
                    answers += 1;
                }
            }
            if fresh.is_some() {
                last = fresh;
            }
        }
        eprintln!("{found} found, {kept} of {tried} kept, {answers} answers checked");
        assert!(found > 100 && kept > 100 && answers > 10_000);
    }

    /// The quick mate-in-one test agrees with playing every legal move and asking whether
    /// the other side has a legal move left; the check filter passes every check.
    #[test]
    fn mate_in_one_matches_brute_force() {
        let tt = Tt::new(1);
        let stop = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let (mut mates, mut stalemates, mut total) = (0, 0, 0);
        let heuristics = Heuristics::new();
        let shared = Shared {
            tt: &tt,
            tb: None,
            table_pieces: 0,
            // (the mate-in-one test asks the side to move, whichever it is, and its kinds of
            // piece may be any superset of what it has: here every kind)
            attacker: Color::Red,
            attacker_kinds: crate::game::movegen::Attackers::ALL,
            defender_kinds: crate::game::movegen::Attackers::ALL,
            stop: &stop,
            deadline: None,
            max_nodes: None,
            nodes: &nodes,
            heuristics: &heuristics,
            checks_only: false,
            mate_only: false,
            rule: false,
            rules: crate::tablebase::Rules::None,
            avoid: Vec::new(),
        };
        // one searcher for all, as in a search: the witnesses and answers it remembers
        // from one position are tried on the next (the positions come in game order)
        let mut searcher = Searcher::new(&shared);
        for mut pos in sample_positions() {
            let mut by_check = false;
            let mut by_stalemate = false;
            let filter = CheckFilter::new(&pos);
            // the moves listed as touching points are those that do (here a few sample sets)
            let mut all = MoveList::new();
            pos.pseudo_moves(&mut all);
            for points in [0, 1u128 << pos.general(!pos.turn()).index(), 0x1ff << 36] {
                let mut some = MoveList::new();
                moves_touching(&pos, points, &mut some);
                let touching = |m: &Move| {
                    ((1u128 << m.from().index()) | (1u128 << m.to().index())) & points != 0
                };
                let mut expected: Vec<Move> = all.iter().copied().filter(touching).collect();
                let mut found: Vec<Move> = some.iter().copied().collect();
                expected.sort();
                found.sort();
                assert_eq!(found, expected, "{pos}");
            }
            let mut candidates = MoveList::new();
            let unsure = check_candidates(&pos, &mut candidates);
            assert!(candidates.iter().all(|m| all.contains(m)), "{pos}");
            // (those past the first `unsure` are checks)
            for &m in &candidates[unsure..] {
                assert!(pos.gives_check(m), "{m:?} in {pos}");
            }
            for &m in pos.legal_moves().iter() {
                let mut p = pos.clone();
                p.play_unchecked(m);
                // the filter never lets a check through unplayed, nor does the test on
                // the board as it would stand, and every check is a candidate
                assert!(!p.is_check() || filter.may_check(&pos, m), "{m:?} in {pos}");
                assert!(!p.is_check() || candidates.contains(&m), "{m:?} in {pos}");
                assert_eq!(p.is_check(), pos.gives_check(m), "{m:?} in {pos}");
                if !p.has_legal_move() {
                    if p.is_check() {
                        by_check = true;
                    } else {
                        by_stalemate = true;
                    }
                }
            }
            let fast = searcher.mate_in_one(&mut pos);
            assert_eq!(fast, by_check || by_stalemate, "{pos}");
            // and with exactly the kinds the side to move has, as at a search's root
            let exact = Shared {
                attacker: pos.turn(),
                attacker_kinds: pos.attacker_kinds_of(pos.turn()),
                defender_kinds: pos.attacker_kinds_of(!pos.turn()),
                avoid: Vec::new(),
                ..shared
            };
            let fast = Searcher::new(&exact).mate_in_one(&mut pos);
            assert_eq!(fast, by_check || by_stalemate, "{pos}");
            // by checks alone (连将杀), a stalemate does not count
            let checks = Shared {
                checks_only: true,
                ..exact
            };
            let fast = Searcher::new(&checks).mate_in_one(&mut pos);
            assert_eq!(fast, by_check, "{pos}");
            mates += by_check as u32;
            stalemates += (by_stalemate && !by_check) as u32;
            total += 1;
        }
        // (shown with --nocapture; docs/solver.md quotes them)
        eprintln!(
            "{total} positions, {mates} with a mate in one, {stalemates} with only a stalemate"
        );
        assert!(total > 10_000, "{total} positions");
        assert!(mates > 100, "{mates} mates in one among {total}");
        assert!(stalemates > 0, "no stalemate in one among {total}");
    }
}
