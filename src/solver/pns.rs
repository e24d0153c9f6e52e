//! Proof-number search: the long proofs.
//!
//! The depth-first search of [`super::search`] proves "the attacker mates within `d`
//! plies" by trying every move of both sides to the full depth, and its cost grows with
//! the width of the tree to the power of the depth: eight moves of quiet play are about as
//! far as it reaches. Compositions run longer, but their trees are narrow where it matters:
//! the defender has few answers to a check, and a quiet move of the attacker's that does
//! not parry the defender's own threat is refuted at once. A proof-number search (df-pn,
//! the depth-first form of Allis's proof-number search, as the tsume-shogi solvers use)
//! spends its effort where the proof is cheapest to finish: at each node it keeps a proof
//! number (how many leaves must still be proven for the node to be proven) and a disproof
//! number, and it always expands the most-proving leaf.
//!
//! It stays exact:
//!
//! - Every node carries its bound in plies, so "proven" means "the attacker mates within
//!   the bound" and "disproven" means it cannot, exactly as the depth-first search asks; the
//!   search graph has no cycles (the bound falls by one each ply), so nothing depends on the
//!   path by which a node was reached.
//! - A node near its bound (at most [`LEAF`] plies) is answered by the depth-first search,
//!   which is exact and fast there; a node whose material a table holds is answered by the
//!   table.
//! - The shortest win is found from the top: the first proof within the bound gives an
//!   upper bound on the length (a proof tree's longest line), and the search is asked again
//!   two plies shorter until it proves that no shorter win exists. Its answer is then the
//!   exact shortest length, the same as the depth-first search's wherever both finish.
//!
//! The transposition table keeps, for each position, the shortest win proven from it (valid
//! for every bound at least that long), the longest bound it was disproven within (valid
//! for every bound at most that long), and the proof and disproof numbers of the bound
//! last searched.

use crate::game::moves::Move;
use crate::game::piece::Color;
use crate::game::position::Position;

use super::search::{Searcher, Stop};

/// A proof or disproof number that means "solved": the node is disproven (as a proof number)
/// or proven (as a disproof number).
const INF: u32 = 1 << 28;
/// The largest proof or disproof number of a node not yet solved.
const LIMIT: u32 = INF - 1;
/// Nodes at most this many plies from their bound are answered by the depth-first search.
pub(super) const LEAF: u32 = 3;
/// No win proven (as a length), or a disproof that holds at every bound (as a bound).
const NONE: u16 = u16::MAX;
/// A move searched below a node may run until its number passes the second best's by a
/// quarter (the "1 + ε" thresholds of Pawlewicz and Lew): with the plain threshold (one
/// more than the second best) a search whose two best moves are close swaps between them
/// at every step and re-searches both from their tops.
const EPSILON_DIVISOR: u32 = 4;
/// The first proof-number nodes a bound is given in [`ProofNumbers::shortest`] before the
/// search turns to the other bound (see there); doubled at each turn.
const FIRST_BUDGET: u64 = 20_000;

/// The proof number a quiet move of the attacker's starts with. A check starts with the
/// number of the defender's answers to it (they are few, and each must be proven); a quiet
/// move leaves the defender many, and is tried after the checks with few answers.
const QUIET: u32 = 3;

/// What is known of a node: its proof and disproof numbers, the shortest win proven from it
/// (an upper bound on its distance, [`NONE`] if none), and the bound below which it is
/// proven that there is none (`refuted`: no win within any bound less than it; [`NONE`]:
/// none at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Val {
    pub pn: u32,
    pub dn: u32,
    pub mate: u16,
    pub refuted: u16,
}

impl Val {
    fn proven(mate: u32) -> Val {
        Val {
            pn: 0,
            dn: INF,
            mate: mate as u16,
            refuted: 0,
        }
    }

    fn refuted(below: u16) -> Val {
        Val {
            pn: INF,
            dn: 0,
            mate: NONE,
            refuted: below,
        }
    }

    /// A table's exact distance (`None`: the attacker never wins), at `bound`.
    fn exact(distance: Option<u32>, bound: u32) -> Val {
        match distance {
            Some(n) if n <= bound => Val {
                refuted: n as u16,
                ..Val::proven(n)
            },
            Some(n) => Val {
                mate: n as u16,
                ..Val::refuted(n as u16)
            },
            None => Val::refuted(NONE),
        }
    }

    pub fn is_proven(&self) -> bool {
        self.pn == 0
    }

    pub fn is_disproven(&self) -> bool {
        self.dn == 0
    }
}

/// One slot of the transposition table.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    pn: u32,
    dn: u32,
    /// The nodes spent on this position (0: the slot is empty), for replacement.
    work: u32,
    /// The bound `pn` and `dn` belong to.
    bound: u16,
    mate: u16,
    refuted: u16,
}

impl Entry {
    /// What the entry says of its position at `bound`, if anything.
    fn at(&self, bound: u32) -> Option<Val> {
        let (mate, refuted) = (self.mate, self.refuted);
        if mate != NONE && u32::from(mate) <= bound {
            return Some(Val {
                mate,
                refuted,
                ..Val::proven(0)
            });
        }
        if refuted == NONE || bound < u32::from(refuted) {
            return Some(Val {
                mate,
                ..Val::refuted(refuted)
            });
        }
        (u32::from(self.bound) == bound).then_some(Val {
            pn: self.pn,
            dn: self.dn,
            mate,
            refuted,
        })
    }
}

/// Positions in buckets of four slots; a new position replaces the slot of the four on which
/// the least work was spent. The table starts at 1 MB and grows four times at a step, up to
/// its size, each time half its slots are taken: a short proof never pays for the memory of
/// a long one.
pub(crate) struct PnTable {
    slots: Vec<Entry>,
    mask: usize,
    /// Slots taken.
    used: usize,
    /// The most slots it grows to.
    most: usize,
}

const BUCKET: usize = 4;
/// The slots a table starts with (1 MB).
const FIRST_SLOTS: usize = (1 << 20) / std::mem::size_of::<Entry>();

impl PnTable {
    /// A table of at most about `mb` MB (at least a few thousand slots).
    pub(crate) fn new(mb: usize) -> PnTable {
        let want = ((mb << 20) / std::mem::size_of::<Entry>()).max(4096);
        // (a power of two, at most what was asked for)
        let most = 1 << want.ilog2();
        let n = FIRST_SLOTS.next_power_of_two().min(most);
        PnTable {
            slots: vec![Entry::default(); n],
            mask: n - 1,
            used: 0,
            most,
        }
    }

    /// Forgets every position (and gives back what the table grew to).
    pub(crate) fn clear(&mut self) {
        let n = FIRST_SLOTS.next_power_of_two().min(self.most);
        if self.slots.len() == n {
            self.slots.fill(Entry::default());
        } else {
            self.slots = vec![Entry::default(); n];
        }
        self.mask = n - 1;
        self.used = 0;
    }

    fn bucket(&self, key: u64) -> std::ops::Range<usize> {
        let first = (key as usize) & self.mask & !(BUCKET - 1);
        first..first + BUCKET
    }

    fn get(&self, key: u64) -> Option<&Entry> {
        self.slots[self.bucket(key)]
            .iter()
            .find(|e| e.work != 0 && e.key == key)
    }

    /// Four times the slots (or up to the most), every entry moved.
    fn grow(&mut self) {
        let n = (self.slots.len() * 4).min(self.most);
        let old = std::mem::replace(&mut self.slots, vec![Entry::default(); n]);
        self.mask = n - 1;
        self.used = 0;
        for e in old.into_iter().filter(|e| e.work != 0) {
            let range = self.bucket(e.key);
            let slots = &mut self.slots[range];
            let i = (0..BUCKET)
                .min_by_key(|&i| slots[i].work)
                .expect("a bucket has slots");
            self.used += usize::from(slots[i].work == 0);
            slots[i] = e;
        }
    }

    /// Keeps what is known of `key` at `bound`, with what was known before of its wins and
    /// disproofs (those hold at every bound).
    fn put(&mut self, key: u64, bound: u32, v: Val, work: u64) {
        if self.used * 2 >= self.slots.len() && self.slots.len() < self.most {
            self.grow();
        }
        let range = self.bucket(key);
        let slots = &mut self.slots[range];
        let i = slots
            .iter()
            .position(|e| e.work != 0 && e.key == key)
            .unwrap_or_else(|| {
                (0..BUCKET)
                    .min_by_key(|&i| slots[i].work)
                    .expect("a bucket has slots")
            });
        let e = &mut slots[i];
        self.used += usize::from(e.work == 0);
        let (mate, refuted, work) = if e.work != 0 && e.key == key {
            (
                e.mate.min(v.mate),
                if e.refuted == NONE || v.refuted == NONE {
                    NONE
                } else {
                    e.refuted.max(v.refuted)
                },
                u64::from(e.work) + work,
            )
        } else {
            (v.mate, v.refuted, work)
        };
        *e = Entry {
            key,
            pn: v.pn,
            dn: v.dn,
            work: work.clamp(1, u64::from(u32::MAX)) as u32,
            bound: bound as u16,
            mate,
            refuted,
        };
    }
}

/// A move of a node being searched, with what is known of the position after it.
#[derive(Clone, Copy, Debug)]
struct Kid {
    mv: Move,
    v: Val,
}

/// What a proof of the shortest win found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shortest {
    /// The shortest forced win takes exactly this many plies.
    Exact(u32),
    /// No forced win within the bound.
    None,
    /// Stopped first; no forced win within this many plies was proven (0: nothing).
    Stopped(u32),
    /// Stopped first, with a forced win proven within `plies` (the shortest not
    /// established) and none within `none_within`.
    AtMost { plies: u32, none_within: u32 },
}

/// How one bound's search ended.
enum Outcome {
    Proven(u32),
    Disproven,
    /// Its budget of nodes ran out.
    Budget,
}

/// A proof-number search: the depth-first searcher answers the nodes near their bound
/// and reads the tables.
pub(super) struct ProofNumbers<'s, 'a> {
    searcher: &'s mut Searcher<'a>,
    table: &'s mut PnTable,
    attacker: Color,
    checks_only: bool,
    mate_only: bool,
    /// Each ply's moves, reused.
    kids: Vec<Vec<Kid>>,
    nodes: u64,
    /// The node count at which the search under way gives up ([`Outcome::Budget`]).
    limit: u64,
    /// Where a progress display reads the nodes and the bound under way.
    live: Option<&'s super::Live>,
}

impl<'s, 'a> ProofNumbers<'s, 'a> {
    /// A search for `attacker`'s wins as `options` asks for them (by checks alone, by
    /// checkmate only), its nodes near their bound answered by `searcher`.
    pub(super) fn new(
        searcher: &'s mut Searcher<'a>,
        table: &'s mut PnTable,
        attacker: Color,
        options: &super::Options,
    ) -> ProofNumbers<'s, 'a> {
        ProofNumbers {
            searcher,
            table,
            attacker,
            checks_only: options.checks_only,
            mate_only: options.mate_only,
            kids: Vec::new(),
            nodes: 0,
            limit: u64::MAX,
            live: None,
        }
    }

    /// Reports the nodes searched and the bound under way to `live` as it goes.
    pub(super) fn with_live(mut self, live: &'s super::Live) -> Self {
        self.live = Some(live);
        self
    }

    /// The searcher under this search (for its node count).
    pub(super) fn searcher(&mut self) -> &mut Searcher<'a> {
        self.searcher
    }

    /// What the table knows of `pos` (the position the searcher's path ends in) at `bound`,
    /// without searching.
    pub(super) fn known(&mut self, pos: &Position, bound: u32) -> Option<Val> {
        let key = self.searcher.path.tt_key(pos, bound);
        self.table.get(key).and_then(|e| e.at(bound))
    }

    /// Whether the attacker mates within `bound` plies from `pos` (either side to move):
    /// the root's value once it is proven or disproven.
    pub(super) fn solve(&mut self, pos: &mut Position, bound: u32) -> Result<Val, Stop> {
        let bound = self.parity(pos, bound);
        match bound {
            None => Ok(Val::refuted(1)),
            Some(bound) => {
                let key = self.searcher.path.tt_key(pos, bound);
                if let Some(v) = self.table.get(key).and_then(|e| e.at(bound))
                    && (v.is_proven() || v.is_disproven())
                {
                    return Ok(v);
                }
                self.mid(pos, bound, INF, INF, 0)
            }
        }
    }

    /// The shortest forced win within `bound` plies, none being shorter than `from`.
    ///
    /// Two searches take turns, each spending about as many nodes as the other:
    ///
    /// - **From below:** the bounds from `from` up, two plies at a time, until one is
    ///   proven (a bound disproven before it, the win is exactly that long). A short bound
    ///   keeps the search from wandering down long lines of checks that a longer one
    ///   allows, and what each bound learns (the disproofs below it) serves the next; but
    ///   each disproof costs several times the one before, and a win of twenty moves is out
    ///   of its reach.
    /// - **From the top:** whether there is a win within `bound` at all. A win of many
    ///   moves is often proven at once this way (the composition's own line of checks and
    ///   threats is the cheapest proof), and its proof tree's longest line is an upper
    ///   bound on the shortest: the search from below then stops there.
    ///
    /// Stopped after a win was proven from the top, the answer is [`Shortest::AtMost`].
    pub(super) fn shortest(
        &mut self,
        pos: &mut Position,
        from: u32,
        bound: u32,
    ) -> Result<Shortest, Stop> {
        let Some(top) = self.parity(pos, bound) else {
            return Ok(Shortest::None);
        };
        let Some(mut b) = self.parity(pos, from.max(1)) else {
            return Ok(Shortest::None);
        };
        // (with the defender to move the first bound is 0 or 2: it may be mated already)
        b = b.min(top);
        let mut none_within = 0;
        let mut upper: Option<u32> = None;
        // (the nodes each has spent; a bound from below that runs out of its budget is
        // tried again with twice as many, after the search from the top has had its turn)
        let (mut spent_top, mut spent_below) = (0u64, 0u64);
        let mut budget = FIRST_BUDGET;
        let stopped = |upper: Option<u32>, none_within: u32| match upper {
            Some(plies) => Shortest::AtMost { plies, none_within },
            None => Shortest::Stopped(none_within),
        };
        loop {
            if upper.is_none() && b < top && spent_top <= spent_below {
                let before = self.nodes;
                let turn = self.solve_within(pos, top, (spent_below - spent_top).max(FIRST_BUDGET));
                spent_top += self.nodes - before;
                match turn {
                    Ok(Outcome::Proven(n)) => upper = Some(n),
                    Ok(Outcome::Disproven) => return Ok(Shortest::None),
                    Ok(Outcome::Budget) => {}
                    Err(Stop::Interrupted) => return Ok(stopped(upper, none_within)),
                    Err(e) => return Err(e),
                }
            }
            if upper.is_some_and(|u| b >= u) {
                return Ok(Shortest::Exact(b));
            }
            if let Some(live) = self.live {
                live.depth.store(b, std::sync::atomic::Ordering::Relaxed);
            }
            // (once a win is known, or at the top, there is nothing to take turns with)
            let limit = if upper.is_some() || b >= top {
                u64::MAX
            } else {
                budget
            };
            let before = self.nodes;
            let turn = self.solve_within(pos, b, limit);
            spent_below += self.nodes - before;
            match turn {
                Ok(Outcome::Proven(_)) => return Ok(Shortest::Exact(b)),
                Ok(Outcome::Disproven) => {
                    none_within = b;
                    if b + 2 > top {
                        return Ok(Shortest::None);
                    }
                    b += 2;
                }
                Ok(Outcome::Budget) => budget = budget.saturating_mul(2),
                Err(Stop::Interrupted) => return Ok(stopped(upper, none_within)),
                Err(e) => return Err(e),
            }
        }
    }

    /// [`Self::solve`] at `bound`, giving up after `budget` nodes.
    fn solve_within(
        &mut self,
        pos: &mut Position,
        bound: u32,
        budget: u64,
    ) -> Result<Outcome, Stop> {
        self.limit = self.nodes.saturating_add(budget);
        let r = self.solve(pos, bound);
        let over = self.nodes > self.limit;
        self.limit = u64::MAX;
        match r {
            Ok(v) if v.is_proven() => Ok(Outcome::Proven(u32::from(v.mate))),
            Ok(v) => {
                debug_assert!(v.is_disproven());
                Ok(Outcome::Disproven)
            }
            Err(Stop::Interrupted) if over => Ok(Outcome::Budget),
            Err(e) => Err(e),
        }
    }

    /// The bound with the parity of a win from `pos` (odd with the attacker to move, even
    /// with the defender), `None` if there is no room for one.
    fn parity(&self, pos: &Position, bound: u32) -> Option<u32> {
        let attacker = pos.turn() == self.attacker;
        if attacker == bound.is_multiple_of(2) {
            bound.checked_sub(1)
        } else {
            Some(bound)
        }
    }

    /// Searches `pos` within `bound` (of the node's parity) until its proof number reaches
    /// `thpn` or its disproof number `thdn`, and returns its value.
    fn mid(
        &mut self,
        pos: &mut Position,
        bound: u32,
        thpn: u32,
        thdn: u32,
        ply: usize,
    ) -> Result<Val, Stop> {
        let key = self.searcher.path.tt_key(pos, bound);
        let before = self.nodes;
        self.nodes += 1;
        if bound <= LEAF {
            let v = if self.searcher.mates_within(pos, bound, ply)? {
                Val::proven(bound)
            } else {
                Val::refuted(bound as u16 + 1)
            };
            self.table.put(key, bound, v, 1);
            return Ok(v);
        }
        self.searcher.tick()?;
        if self.nodes > self.limit {
            return Err(Stop::Interrupted);
        }
        if self.nodes.is_multiple_of(4096)
            && let Some(live) = self.live
        {
            live.nodes.store(
                self.searcher.total_nodes(),
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        if let Some(distance) = self.searcher.probe(pos)? {
            let v = Val::exact(distance, bound);
            self.table.put(key, bound, v, 1);
            return Ok(v);
        }
        let attacker = pos.turn() == self.attacker;
        if self.kids.len() <= ply {
            self.kids.resize_with(ply + 1, Vec::new);
        }
        let mut kids = std::mem::take(&mut self.kids[ply]);
        kids.clear();
        // (under the rule a move that may repeat a position is played to learn whether it
        // is forbidden)
        let legal = pos.legal_moves();
        for &mv in legal.iter() {
            let check = attacker && pos.gives_check(mv);
            if attacker && self.checks_only && !check {
                continue;
            }
            let path = &self.searcher.path;
            if path.may_repeat(None, pos.key_after(mv), super::rule::irreversible(pos, mv)) {
                let Some(undo) = self.searcher.enter(pos, mv) else {
                    continue;
                };
                self.searcher.leave(pos, mv, undo);
            }
            let after = self.searcher.path.child_tt_key(pos, mv, bound - 1);
            let known = self.table.get(after).and_then(|e| e.at(bound - 1));
            let v = match known {
                Some(v) => v,
                None if check => {
                    // (a check's proof number: the defender's answers; none is a mate)
                    let undo = pos.play_unchecked(mv);
                    let answers = pos.legal_moves().len() as u32;
                    pos.undo(mv, undo);
                    if answers == 0 {
                        // (mated: the defender's node is won as it stands)
                        Val::proven(0)
                    } else {
                        Val {
                            pn: answers,
                            dn: 1,
                            ..Val::proven(0)
                        }
                    }
                }
                None => Val {
                    pn: if attacker { QUIET } else { 1 },
                    dn: 1,
                    ..Val::proven(0)
                },
            };
            kids.push(Kid { mv, v });
        }
        let v = if kids.is_empty() {
            // the side to move has no move (or no check, in a proof by checks alone, or only
            // moves the rule forbids): the attacker has lost (or cannot go on); the defender
            // is mated, or stalemated, or lost by the rule, which wins unless only mate
            // counts
            let mated = legal.is_empty() && pos.is_check();
            if attacker || (self.mate_only && !mated) {
                Val::refuted(NONE)
            } else {
                Val::proven(0)
            }
        } else {
            let r = self.expand(pos, &mut kids, bound, thpn, thdn, ply, attacker);
            let v = r.map(|()| summary(&kids, attacker));
            self.kids[ply] = kids;
            v?
        };
        self.table.put(key, bound, v, self.nodes - before);
        Ok(v)
    }

    /// The loop of a node with moves: the most-proving move is searched until the node's
    /// numbers reach their thresholds.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        pos: &mut Position,
        kids: &mut [Kid],
        bound: u32,
        thpn: u32,
        thdn: u32,
        ply: usize,
        attacker: bool,
    ) -> Result<(), Stop> {
        loop {
            let v = summary(kids, attacker);
            if v.pn >= thpn || v.dn >= thdn || v.is_proven() || v.is_disproven() {
                return Ok(());
            }
            // the attacker's move of the least proof number, the defender's of the least
            // disproof number; the thresholds let it run until it is no longer the best
            let (best, second) = select(kids, attacker);
            let k = kids[best].v;
            let (cpn, cdn) = if attacker {
                (
                    thpn.min(beyond(second)).min(INF),
                    (thdn - v.dn).saturating_add(k.dn).min(INF),
                )
            } else {
                (
                    (thpn - v.pn).saturating_add(k.pn).min(INF),
                    thdn.min(beyond(second)).min(INF),
                )
            };
            let mv = kids[best].mv;
            let undo = self
                .searcher
                .enter(pos, mv)
                .expect("a move the rule forbids is never a kid");
            let r = self.mid(pos, bound - 1, cpn, cdn, ply + 1);
            self.searcher.leave(pos, mv, undo);
            kids[best].v = r?;
        }
    }
}

/// The threshold of the best move: a little beyond the second best's number (see
/// [`EPSILON_DIVISOR`]).
fn beyond(second: u32) -> u32 {
    second
        .saturating_add(second / EPSILON_DIVISOR)
        .saturating_add(1)
}

/// The node's value from its moves': the attacker's proof number is the least of its
/// moves', its disproof number their sum; the defender's the other way round. A proven
/// node's win is its quickest move's (the attacker's) or its slowest (the defender's), one
/// ply longer; a disproven node's bound likewise.
fn summary(kids: &[Kid], attacker: bool) -> Val {
    let (mut least, mut sum) = (INF, 0u32);
    let (mut mate_min, mut mate_max) = (NONE, 0u16);
    let (mut ref_min, mut ref_max) = (NONE, 0u16);
    let mut all_proven = true;
    for k in kids {
        let (one, other) = if attacker {
            (k.v.pn, k.v.dn)
        } else {
            (k.v.dn, k.v.pn)
        };
        least = least.min(one);
        sum = if other >= INF || sum >= INF {
            INF
        } else {
            (sum + other).min(LIMIT)
        };
        if k.v.is_proven() {
            mate_min = mate_min.min(k.v.mate);
            mate_max = mate_max.max(k.v.mate);
        } else {
            all_proven = false;
        }
        if k.v.is_disproven() {
            ref_min = ref_min.min(k.v.refuted);
            ref_max = ref_max.max(k.v.refuted);
        } else {
            ref_min = 0;
        }
    }
    let plus = |x: u16| if x == NONE { NONE } else { x + 1 };
    let (pn, dn) = if attacker { (least, sum) } else { (sum, least) };
    let mut v = Val {
        pn,
        dn,
        mate: NONE,
        refuted: 0,
    };
    if pn == 0 {
        // (the attacker's quickest proven move; every move of the defender's is proven)
        v.mate = plus(if attacker {
            mate_min
        } else {
            debug_assert!(all_proven);
            mate_max
        });
    }
    if dn == 0 {
        // (every move of the attacker's is disproven; the defender's most lasting
        // disproven move)
        v.refuted = plus(if attacker { ref_min } else { ref_max });
    }
    v
}

/// The move to search (the attacker's least proof number, the defender's least disproof
/// number; the first of equals) and the second least number.
fn select(kids: &[Kid], attacker: bool) -> (usize, u32) {
    let (mut best, mut first, mut second) = (0, INF, INF);
    for (i, k) in kids.iter().enumerate() {
        let n = if attacker { k.v.pn } else { k.v.dn };
        if n < first {
            second = first;
            first = n;
            best = i;
        } else if n < second {
            second = n;
        }
    }
    (best, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A win proven within n holds for every bound of at least n; a disproof within b for
    /// every bound of at most b; the numbers of a search only for its own bound; a slot
    /// keeps what was proven of its position when the numbers of another bound are stored.
    #[test]
    fn the_table_keeps_proofs_and_disproofs_for_the_bounds_they_hold() {
        let mut t = PnTable::new(1);
        let key = 0x1234_5678_9abc_def1;
        assert!(t.get(key).is_none());
        t.put(key, 9, Val::refuted(10), 5);
        let e = *t.get(key).unwrap();
        assert!(e.at(9).unwrap().is_disproven() && e.at(3).unwrap().is_disproven());
        assert!(e.at(11).is_none());
        // the numbers of bound 13, with the disproof below 10 kept
        let working = Val {
            pn: 4,
            dn: 7,
            ..Val::proven(0)
        };
        let working = Val {
            mate: NONE,
            ..working
        };
        t.put(key, 13, working, 5);
        let e = *t.get(key).unwrap();
        assert_eq!(e.at(13).map(|v| (v.pn, v.dn)), Some((4, 7)));
        assert!(e.at(9).unwrap().is_disproven());
        assert!(e.at(11).is_none() && e.at(15).is_none());
        // a win in 13 proven: every bound from 13 up
        t.put(key, 15, Val::proven(13), 5);
        let e = *t.get(key).unwrap();
        assert!(e.at(13).unwrap().is_proven() && e.at(41).unwrap().is_proven());
        assert!(e.at(9).unwrap().is_disproven());
        assert!(e.at(11).is_none());
        assert_eq!(e.work, 15);
        // a table's exact distance: both at once; none: disproven at every bound
        let v = Val::exact(Some(7), 5);
        assert!(v.is_disproven() && v.mate == 7 && v.refuted == 7);
        let v = Val::exact(Some(7), 9);
        assert!(v.is_proven() && v.mate == 7);
        let v = Val::exact(None, 99);
        assert!(v.is_disproven() && v.refuted == NONE);
        t.put(key ^ 1, 3, v, 1);
        assert!(t.get(key ^ 1).unwrap().at(119).unwrap().is_disproven());
    }

    /// The table grows from 1 MB to its size as it fills, keeping every entry it can.
    #[test]
    fn the_table_grows_and_keeps_what_it_holds() {
        let mut t = PnTable::new(16);
        let first = t.slots.len();
        let keys: Vec<u64> = (1..=first as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            t.put(k, 5, Val::proven(i as u32 % 5), 1);
        }
        assert!(t.slots.len() > first && t.slots.len() <= t.most);
        assert!(t.slots.len() * std::mem::size_of::<Entry>() <= 16 << 20);
        // (as many as there were slots for: the first table held half of them at most
        // before it grew, the grown one all)
        let kept = keys.iter().filter(|&&k| t.get(k).is_some()).count();
        assert!(kept > first * 9 / 10, "{kept} of {first}");
        t.clear();
        assert_eq!(t.slots.len(), first);
        assert!(keys.iter().all(|&k| t.get(k).is_none()));
    }

    /// The attacker's node: proven by its quickest proven move, disproven when every move
    /// is (below the least of their bounds, one ply more); the defender's the other way.
    #[test]
    fn a_node_sums_up_its_moves() {
        let mv = Move::new(
            crate::game::square::Square::new_unchecked(0),
            crate::game::square::Square::new_unchecked(1),
        );
        let kid = |v: Val| Kid { mv, v };
        let open = Val {
            pn: 2,
            dn: 3,
            mate: NONE,
            refuted: 0,
        };
        let kids = [kid(Val::proven(6)), kid(open), kid(Val::proven(4))];
        let v = summary(&kids, true);
        assert!(v.is_proven());
        assert_eq!(v.mate, 5);
        let v = summary(&kids, false);
        assert_eq!((v.pn, v.dn), (2, 3));
        let kids = [
            kid(Val::refuted(8)),
            kid(Val::refuted(NONE)),
            kid(Val::refuted(6)),
        ];
        let v = summary(&kids, true);
        assert!(v.is_disproven());
        assert_eq!(v.refuted, 7);
        let v = summary(&kids, false);
        assert!(v.is_disproven());
        assert_eq!(v.refuted, NONE);
        let kids = [kid(Val::proven(2)), kid(Val::proven(6))];
        let v = summary(&kids, false);
        assert!(v.is_proven());
        assert_eq!(v.mate, 7);
        // (numbers add up to the limit, never to "solved")
        let big = Val {
            pn: LIMIT,
            dn: LIMIT,
            mate: NONE,
            refuted: 0,
        };
        let v = summary(&[kid(big), kid(big)], true);
        assert_eq!((v.pn, v.dn), (LIMIT, LIMIT));
        assert!(!v.is_proven() && !v.is_disproven());
        assert_eq!(
            select(&[kid(open), kid(big), kid(Val::proven(1))], true),
            (2, 2)
        );
    }
}
