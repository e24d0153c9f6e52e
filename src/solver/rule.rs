//! The repetition rule (长将作负 under `check-only`, 长打作负 under `asian`) in the proof
//! search.
//!
//! Under a rule set that judges repetitions a proof is a proof in the game players play: a
//! move that completes a repetition is forbidden to its mover when, in the cycle since the
//! position last occurred, every move of the mover's "hit" and not every move of the other
//! side's did. A hit is a check under `check-only`, and any 打 (a check, a threat of mate,
//! a chase: [`crate::game::threat`]) under `asian`. When both sides hit on every move
//! (解将还将) the repetition is allowed and the game is a draw; one hit and one idle move
//! (一将一闲, 一打一闲) is allowed. The side whose
//! every legal move is forbidden must play one and loses by the rule, as a side without a
//! legal move loses. The search keeps the line from the root (and the game's moves before
//! it, [`History`]) as a [`Path`], and asks it of each move.
//!
//! No repetition reaches back across a capture or a soldier's step forward (an
//! irreversible move), so what the rule makes of a node's subtree depends on the line only
//! back to the last irreversible move: a node's transposition-table key is its Zobrist key
//! mixed with the keys of the line since then ([`Path::tt_key`]), its plain key right
//! after an irreversible move. Its bounds are then exact for every line that reaches it
//! with the same key, and the key of the position after any move is known without playing
//! it ([`Path::child_tt_key`]). Whether a move was 打 matters only to a move that repeats a
//! position, so under `asian` it is worked out only then, from the line's moves, and kept.

use crate::game::moves::Move;
use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::Position;
use crate::game::square::Square;
use crate::tablebase::{RankedMove, Rules, TableError, Tablebase};

/// One position of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    /// The position's Zobrist key.
    key: u64,
    /// The move into the position gave check.
    check: bool,
    /// The move into the position was a hit (a check under `check-only`, 打 under
    /// `asian`), if that is known yet: under `asian` a quiet move's 打 is worked out only
    /// when a repetition asks for it ([`Path::hit_at`]).
    hit: Option<bool>,
    /// The move into the position can never be undone (a capture, a soldier's step
    /// forward), or the line starts here: no position before it recurs after it.
    fresh: bool,
    /// The mix of the keys of the line from its start through this position
    /// ([`Path::range`] takes a stretch of it).
    prefix: u64,
    /// The earliest position a run of hits through this one reaches back to, two plies a
    /// step (itself if the move into it was no hit), once worked out.
    run_end: Option<usize>,
    /// The move into the position and the piece that made it (none at the line's start).
    moved: Option<(Move, Piece)>,
}

/// The base of the line's mix: the keys k₀ … kₙ of a stretch mix to Σ kᵢ·Bⁿ⁻ⁱ (wrapping),
/// order-sensitive, a single position's to its own key, and a stretch's mix is the
/// difference of two prefixes'.
const B: u64 = 0x9e37_79b9_7f4a_7c15;

/// Counts `by` more of `piece` on `point` in a tally of where pieces stand.
fn count(net: &mut Vec<(u8, Piece, i8)>, point: u8, piece: Piece, by: i8) {
    match net.iter_mut().find(|e| e.0 == point && e.1 == piece) {
        Some(e) => e.2 += by,
        None => net.push((point, piece, by)),
    }
}

/// The one move of `mover`'s that, with one move of the other side's, undoes a line of
/// reversible moves whose `net` tally (where pieces stand more at its end than at its
/// start) it is, if there is one: each side's moves displaced exactly one piece, net,
/// which the move puts back.
fn move_back(net: &[(u8, Piece, i8)], mover: Color) -> Option<Move> {
    let (mut now, mut then, mut others) = (None, None, 0);
    for &(point, piece, by) in net.iter().filter(|e| e.2 != 0) {
        if piece.color != mover {
            others += 1;
            continue;
        }
        let slot = if by > 0 { &mut now } else { &mut then };
        if slot.is_some() || by.abs() != 1 {
            return None;
        }
        *slot = Some((point, piece));
    }
    match (now, then) {
        (Some((from, a)), Some((to, b))) if a == b && others == 2 => Some(Move::new(
            Square::new_unchecked(from),
            Square::new_unchecked(to),
        )),
        _ => None,
    }
}

/// Whether `m` can never be undone: a capture, or a soldier's step forward.
pub fn irreversible(pos: &Position, m: Move) -> bool {
    pos.piece_at(m.to()).is_some()
        || pos
            .piece_at(m.from())
            .is_some_and(|p| p.kind == Kind::Soldier && m.from().rank() != m.to().rank())
}

/// One position of a game's history: its key, and what the move into it was under each
/// rule set that judges repetitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Past {
    key: u64,
    /// The move into it gave check.
    check: bool,
    /// The move into it was 打 (将, 杀 or 捉).
    attack: bool,
    fresh: bool,
    moved: Option<(Move, Piece)>,
}

/// The positions of a game before the position a proof starts from, so that a repetition
/// of one of them counts as the rule counts it (a proof from a FEN starts with none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    steps: Vec<Past>,
}

impl History {
    /// The positions of a game from `start` through `moves` (each legal where it is
    /// played), the last being the position the proof starts from.
    pub fn new(start: &Position, moves: &[Move]) -> History {
        let mut history = History::default();
        let mut pos = start.clone();
        history.start(&pos);
        for &m in moves {
            history.push(&pos, m);
            pos.play_unchecked(m);
        }
        history
    }

    /// Starts the history afresh at `pos`.
    fn start(&mut self, pos: &Position) {
        self.steps = vec![Past {
            key: pos.key(),
            check: pos.is_check(),
            attack: pos.is_check(),
            fresh: true,
            moved: None,
        }];
    }

    /// Adds the position after `m`, played in `pos`: the history's last position (an
    /// empty history starts at `pos`).
    pub fn push(&mut self, pos: &Position, m: Move) {
        if self.steps.last().is_none_or(|s| s.key != pos.key()) {
            self.start(pos);
        }
        let fresh = irreversible(pos, m);
        let attack =
            crate::game::threat::is_attack_answering(pos, m, super::checks::checkmates_in_one);
        let moved = pos.piece_at(m.from()).map(|p| (m, p));
        let mut after = pos.clone();
        after.play_unchecked(m);
        self.steps.push(Past {
            key: after.key(),
            check: after.is_check(),
            attack,
            fresh,
            moved,
        });
    }

    /// The key of the last position, the one a proof with this history starts from.
    pub fn last_key(&self) -> Option<u64> {
        self.steps.last().map(|s| s.key)
    }

    /// No positions.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Where a proof from `root` with this history has `attacker` checking on every move
    /// of its own since the game's last irreversible move, the keys of the positions since
    /// then before the root (none when the history does not end at the root); `None` where
    /// a move of the attacker's in that stretch gave no check.
    pub(crate) fn checked_window(&self, root: &Position, attacker: Color) -> Option<Vec<u64>> {
        if self.last_key() != Some(root.key()) {
            return Some(Vec::new());
        }
        let mut earlier = Vec::new();
        for (i, p) in self.steps.iter().enumerate().rev() {
            if i + 1 < self.steps.len() {
                earlier.push(p.key);
            }
            if p.fresh {
                break;
            }
            if p.moved.is_none_or(|(_, piece)| piece.color == attacker) && !p.check {
                return None;
            }
        }
        Some(earlier)
    }
}

/// The line from the game's start (or the proof's root) to the node being searched.
#[derive(Clone, Debug)]
pub struct Path {
    /// The rule set: without a repetition rule the path keeps nothing and every key is
    /// plain.
    rules: Rules,
    steps: Vec<Step>,
    /// Whether moves were 打, by a tag of the position's key and the move (allocated at the
    /// first question).
    attacks: Vec<(u64, bool)>,
    /// [`Path::returning_moves`]'s tally of where pieces stand, kept from leaf to leaf.
    net: Vec<(u8, Piece, i8)>,
    /// Where the cycle of the last move found forbidden starts ([`Path::cycle_start`]).
    cycle_start: usize,
}

/// Entries of [`Path`]'s memory of which moves were 打 (a power of two).
const ATTACK_MEMORY: usize = 1 << 17;

impl Path {
    /// A path that applies `rules`.
    pub fn new(rules: Rules) -> Path {
        Path {
            rules,
            steps: Vec::with_capacity(256),
            attacks: Vec::new(),
            net: Vec::new(),
            cycle_start: 0,
        }
    }

    /// Whether a repetition rule applies.
    #[inline]
    pub fn on(&self) -> bool {
        self.rules.judges_repetition()
    }

    /// Starts the line at `root`, after `history` (whose last position is the root; an
    /// empty history starts the line at the root).
    pub fn reset(&mut self, history: &History, root: &Position) {
        self.steps.clear();
        if !self.on() {
            return;
        }
        if history.last_key() == Some(root.key()) {
            let asian = self.rules == Rules::Asian;
            for p in &history.steps {
                let hit = if asian { p.attack } else { p.check };
                self.push_known(p.key, p.check, hit, p.fresh, p.moved);
            }
        } else {
            self.push_known(root.key(), root.is_check(), root.is_check(), true, None);
        }
    }

    /// The number of positions on the line (0 without the rule).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the line is empty (always, without the rule).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Cuts the line back to `len` positions.
    pub fn truncate(&mut self, len: usize) {
        self.steps.truncate(len);
    }

    /// Adds `pos`, reached by a move that was `irreversible`, a check or not and a hit or
    /// not, and says whether that move is forbidden by the rule (the caller then pops
    /// it). Without the rule, nothing is kept and no move is forbidden.
    #[cfg(test)]
    pub fn push(&mut self, pos: &Position, irreversible: bool, check: bool, hit: bool) -> bool {
        if !self.on() {
            return false;
        }
        self.push_step(pos.key(), check, hit, irreversible)
    }

    /// Plays `m` on `pos` and adds the position after it, and says whether the move is
    /// forbidden (it stays played and on the line either way); the undo takes it back.
    #[inline]
    pub fn play(&mut self, pos: &mut Position, m: Move) -> (crate::game::position::Undo, bool) {
        self.play_knowing(pos, m, None)
    }

    /// [`Path::play`] for a caller that may know already whether `m` gives check.
    #[inline]
    pub fn play_knowing(
        &mut self,
        pos: &mut Position,
        m: Move,
        check: Option<bool>,
    ) -> (crate::game::position::Undo, bool) {
        if !self.on() {
            return (pos.play_unchecked(m), false);
        }
        let fresh = irreversible(pos, m);
        let moved = pos.piece_at(m.from()).map(|p| (m, p));
        let undo = pos.play_unchecked(m);
        let check = check.unwrap_or_else(|| pos.is_check());
        // a check is 打; whether a quiet move was is asked only of a repetition (and after
        // an irreversible move no repetition reaches back past it: it never matters)
        let hit = match self.rules {
            Rules::CheckOnly => Some(check),
            _ => (check || fresh).then_some(true),
        };
        self.add(pos.key(), check, hit, fresh, moved);
        (undo, self.forbidden_last(Some(pos)))
    }

    /// Whether a move into a position of `key` (a move that was `irreversible` or not),
    /// played after the line's last position, and after one more move not on the line when
    /// `pending` gives whether that one was irreversible, could complete a repetition: the
    /// position stands earlier on the line with the same side to move and no irreversible
    /// move since. A move the rule forbids always does ([`Path::forbidden_last`] asks what
    /// the moves of the cycle were only then), so a move for which this is false is never
    /// forbidden, and whether it or the moves before it were 打 need not be known.
    #[inline]
    pub fn may_repeat(&self, pending: Option<bool>, key: u64, irreversible: bool) -> bool {
        if !self.on() || irreversible || pending == Some(true) {
            return false;
        }
        // the distance back from the new position: positions at an even distance have its
        // side to move
        let first = 1 + usize::from(pending.is_some());
        for (distance, s) in (first..).zip(self.steps.iter().rev()) {
            if distance % 2 == 0 && s.key == key {
                return true;
            }
            if s.fresh {
                return false;
            }
        }
        false
    }

    /// The moves of the side to move in `pos`, the line's last position, after which an
    /// answer of the other side's could be forbidden (at most one a position it could
    /// repeat, in no particular order). An answer is forbidden only where it repeats a
    /// position its mover reached by an unbroken run of hits, with no irreversible move
    /// since: the positions two, four, … plies back while the other side's moves into the
    /// last, the one two back, … may have been hits. The move and the answer together take
    /// the line back to such a position, so the move is the one that puts the side to
    /// move's only displaced piece back where it stood there (and the answer does the same
    /// for the other side's): a position the line's moves since displaced more pieces of
    /// either side than one can be repeated by no move and answer. So where every answer
    /// to a move is forbidden, the move is among these.
    /// They go into `out` (cleared first).
    pub fn returning_moves(&mut self, pos: &Position, out: &mut Vec<Move>) {
        out.clear();
        if !self.on() {
            return;
        }
        let s = &self.steps;
        let mover = pos.turn();
        // (point, piece) and how many more of it stand there at the line's end than at
        // the position reached so far on the way back (a buffer kept for the next leaf)
        let net = &mut self.net;
        net.clear();
        let mut j = s.len() - 1;
        // the other side's run of hits: its moves into the last position, the one two
        // back, …
        while j >= 2 && s[j].hit != Some(false) && !s[j].fresh && !s[j - 1].fresh {
            for step in &s[j - 1..=j] {
                let Some((m, piece)) = step.moved else {
                    return;
                };
                count(net, m.from().index() as u8, piece, -1);
                count(net, m.to().index() as u8, piece, 1);
            }
            j -= 2;
            if let Some(m) = move_back(net, mover)
                && !out.contains(&m)
            {
                out.push(m);
            }
        }
    }

    /// Adds a position whose move in is known to have been a hit or not, and says whether
    /// that move is forbidden (for lines of keys).
    #[cfg(test)]
    fn push_step(&mut self, key: u64, check: bool, hit: bool, fresh: bool) -> bool {
        self.push_known(key, check, hit, fresh, None);
        self.forbidden_last(None)
    }

    fn push_known(
        &mut self,
        key: u64,
        check: bool,
        hit: bool,
        fresh: bool,
        moved: Option<(Move, Piece)>,
    ) {
        self.add(key, check, Some(hit), fresh, moved);
    }

    /// Adds a position.
    #[inline]
    fn add(
        &mut self,
        key: u64,
        check: bool,
        hit: Option<bool>,
        fresh: bool,
        moved: Option<(Move, Piece)>,
    ) {
        let prefix = self
            .steps
            .last()
            .map_or(0, |last| last.prefix.wrapping_mul(B))
            .wrapping_add(key);
        self.steps.push(Step {
            key,
            check,
            hit,
            fresh: fresh || self.steps.is_empty(),
            prefix,
            run_end: None,
            moved,
        });
    }

    /// Takes the last position off the line.
    #[inline]
    pub fn pop(&mut self) {
        if self.on() {
            self.steps.pop();
        }
    }

    /// The mix of the keys of positions `from` through `to` (a single position's: its key).
    #[inline]
    fn range(&self, from: usize, to: usize) -> u64 {
        self.stretch(from, self.steps[to].prefix, to + 1 - from)
    }

    /// The mix of the `len` keys from position `from` on, of a line whose prefix through
    /// the last of them is `prefix`.
    #[inline]
    fn stretch(&self, from: usize, prefix: u64, len: usize) -> u64 {
        let before = match from {
            0 => 0,
            _ => self.steps[from - 1].prefix,
        };
        prefix.wrapping_sub(before.wrapping_mul(B.wrapping_pow(len as u32)))
    }

    /// [`Path::run_end`] as far as the hits known so far tell, a move whose 打 is not known
    /// yet counting as a hit (no threat test): as far back as the run could reach. A key
    /// mixed back to it covers every position a later move could be compared with; two
    /// lines that mix the same stretch in agree on every hit in it, whichever of them was
    /// worked out.
    fn loose_run_end(&self, mut j: usize) -> usize {
        while j >= 2
            && !self.steps[j].fresh
            && !self.steps[j - 1].fresh
            && self.steps[j].hit != Some(false)
        {
            j -= 2;
        }
        j
    }

    /// The earliest position a run of hits through position `j` reaches: from a position
    /// compared with a later one, on to the position two plies back while the move into
    /// the one passed was a hit and no move between was irreversible. `now` is the line's
    /// last position (for a hit not yet known).
    fn run_end(&mut self, j: usize, now: &Position) -> usize {
        if let Some(end) = self.steps[j].run_end {
            return end;
        }
        let end = if j >= 2
            && !self.steps[j].fresh
            && !self.steps[j - 1].fresh
            && self.hit_at(j, Some(now))
        {
            self.run_end(j - 2, now)
        } else {
            j
        };
        self.steps[j].run_end = Some(end);
        end
    }

    /// The transposition-table key of the last position (`pos`) for a search of `bound`
    /// plies from it: its Zobrist key, mixed with the line back to the earliest position a
    /// move within the bound could repeat ([`Path::forbidden_last`]). Each side's moves are
    /// compared with the positions two, four, … plies back, for as long as that side's
    /// moves into the positions passed were hits and no move was irreversible: the side to
    /// move may repeat the position before this one whenever the move into this one can be
    /// undone, and those its run of hits reaches from there; the other side, those its run
    /// through this one reaches. A position is compared whether or not the move into it was
    /// a hit: a run ends after it. Of those, only the positions the subtree can reach
    /// count ([`Path::reach_start`]): one that stands more pieces of a side away from this
    /// one than that side has moves within the bound is never repeated below. The bounds a
    /// node stores are then exact for every line that reaches it with the same key, at
    /// every bound up to the one each key was made for; a node whose subtree can repeat no
    /// position of the line keeps its plain key, and then its entries are shared by every
    /// line that reaches it.
    pub fn tt_key(&mut self, pos: &Position, bound: u32) -> u64 {
        self.tt_key_from(pos, bound).0
    }

    /// [`Path::tt_key`], and the index of the earliest position it mixes in (the last
    /// position's own when the key is plain).
    pub fn tt_key_from(&mut self, pos: &Position, bound: u32) -> (u64, usize) {
        if !self.on() {
            return (pos.key(), self.steps.len().saturating_sub(1));
        }
        let c = self.steps.len() - 1;
        let mut from = self.loose_run_end(c);
        if c >= 1 && !self.steps[c].fresh {
            from = from.min(self.loose_run_end(c - 1));
        }
        let from = self.reach_start(from, None, pos.turn(), bound);
        (self.range(from, c), from)
    }

    /// The earliest position of the line that a move of the side to move in `pos`, the
    /// line's last position, could be compared with ([`Path::forbidden_last`]): the one
    /// before it, and those its run of hits reaches from there; the last position's own
    /// index when the move into it cannot be undone (nothing before it recurs).
    pub fn mover_reach(&mut self, pos: &Position) -> usize {
        let c = self.steps.len() - 1;
        if c == 0 || self.steps[c].fresh {
            return c;
        }
        self.run_end(c - 1, pos)
    }

    /// Whether the legal, reversible move `m` of `pos` is a hit under the rule set (a
    /// check; under `asian` any 打).
    pub fn move_hits(&mut self, pos: &Position, m: Move) -> bool {
        pos.gives_check(m) || self.rules == Rules::Asian && self.is_attack(pos, m)
    }

    /// The earliest position the last move found forbidden was compared with (where its
    /// cycle starts).
    pub fn cycle_start(&self) -> usize {
        self.cycle_start
    }

    /// The transposition-table key the position after the legal move `m` of `pos` (the
    /// line's last position) will have for a search of `bound` plies from it
    /// ([`Path::tt_key`]), known without playing the move: a quiet move counts as a hit, as
    /// its 打 is not known yet (should playing it work out that it is none, the key after
    /// it is shorter).
    pub fn child_tt_key(&mut self, pos: &Position, m: Move, bound: u32) -> u64 {
        let key = pos.key_after(m);
        if !self.on() || irreversible(pos, m) {
            return key;
        }
        let c = self.steps.len() - 1;
        // the other side may repeat this position, and what its run through this one
        // reaches; the mover, what its run through the one before reaches if the move is a
        // hit
        let mut from = c.min(self.loose_run_end(c));
        if c >= 1 && !self.steps[c].fresh {
            let further = self.loose_run_end(c - 1);
            if further < from && (self.rules != Rules::CheckOnly || pos.gives_check(m)) {
                from = further;
            }
        }
        let moved = pos.piece_at(m.from()).map(|p| (m, p));
        let from = self.reach_start(from, Some(moved), !pos.turn(), bound);
        if from > c {
            return key;
        }
        let prefix = self.steps[c].prefix.wrapping_mul(B).wrapping_add(key);
        self.stretch(from, prefix, c + 2 - from)
    }

    /// The earliest position from `from` on that a search of `bound` plies could repeat,
    /// from a node whose side to move is `turn`: the line's last position, or, with
    /// `extra`, the position after that move (not on the line yet). A position whose move
    /// in is unknown counts as reachable, and so do those before it. Without one, the
    /// node's own index (the line's length with `extra`): nothing before it can repeat.
    ///
    /// A move within the bound lands at most `bound + 1` plies below the node (the
    /// defender's answers to the last move are asked whether the rule forbids them all), on
    /// a position with the same side to move as an earlier one only at the same parity.
    /// Each move displaces one piece of its side (none is captured in a repetition's
    /// cycle), so a position that a side's pieces stand `n` away from (counted as pieces on
    /// points where the node has more of that kind than it) needs at least `n` moves of
    /// that side.
    fn reach_start(
        &mut self,
        from: usize,
        extra: Option<Option<(Move, Piece)>>,
        turn: Color,
        bound: u32,
    ) -> usize {
        let c = self.steps.len() - 1;
        let node = c + usize::from(extra.is_some());
        let mut earliest = node;
        let net = &mut self.net;
        net.clear();
        let reach = bound.saturating_add(1);
        let apply = |net: &mut Vec<(u8, Piece, i8)>, moved: Option<(Move, Piece)>| {
            let Some((m, piece)) = moved else {
                return false;
            };
            count(net, m.to().index() as u8, piece, 1);
            count(net, m.from().index() as u8, piece, -1);
            true
        };
        // the position at index j, compared with the node: the moves into j + 1 … node
        // taken back
        let mut j = node;
        while j > from {
            let moved = match (j == node, extra) {
                (true, Some(moved)) => moved,
                _ => self.steps[j].moved,
            };
            j -= 1;
            if !apply(net, moved) {
                return from;
            }
            let away = (node - j) as u32;
            // the deepest landing at this parity
            let deepest = if reach % 2 == away % 2 {
                reach
            } else {
                reach - 1
            };
            if deepest == 0 || (away.is_multiple_of(2) && deepest < 2) {
                continue;
            }
            let (mut own, mut other) = (0u32, 0u32);
            for &(_, piece, by) in net.iter().filter(|e| e.2 > 0) {
                if piece.color == turn {
                    own += by as u32;
                } else {
                    other += by as u32;
                }
            }
            if own <= deepest.div_ceil(2) && other <= deepest / 2 {
                earliest = j;
            }
        }
        earliest
    }

    /// Whether a move of the side to move could be forbidden: it could complete a cycle of
    /// four plies or more with no irreversible move in it, its last move in the cycle a
    /// hit.
    #[inline]
    pub fn may_forbid(&self) -> bool {
        let n = self.steps.len();
        self.on()
            && n >= 4
            && self.steps[n - 2].hit != Some(false)
            && !self.steps[n - 1].fresh
            && !self.steps[n - 2].fresh
            && !self.steps[n - 3].fresh
    }

    /// Whether the move into step `i` was a hit: known, or worked out (and kept) from the
    /// position before it, found by taking back the line's moves from `now`, the last
    /// position. Only a move of the search's own is unknown, and the line's moves after it
    /// are all the search's, reversible, and known.
    fn hit_at(&mut self, i: usize, now: Option<&Position>) -> bool {
        let step = self.steps[i];
        if let Some(hit) = step.hit {
            return hit;
        }
        let (Some(now), Some((m, _))) = (now, step.moved) else {
            debug_assert!(false, "a hit unknown off the search's line");
            return false;
        };
        let mut before = now.clone();
        for later in self.steps[i..].iter().rev() {
            let Some((back, _)) = later.moved else {
                debug_assert!(false, "a move unknown on the search's line");
                return false;
            };
            before.play_unchecked(Move::new(back.to(), back.from()));
        }
        debug_assert_eq!(before.key(), self.steps[i - 1].key);
        let hit = self.is_attack(&before, m);
        self.steps[i].hit = Some(hit);
        hit
    }

    /// Whether the legal move `m` of `pos` is 打, remembered by the position's key and the
    /// move (a proof-number search asks the same children again and again).
    fn is_attack(&mut self, pos: &Position, m: Move) -> bool {
        if self.attacks.is_empty() {
            self.attacks = vec![(0, false); ATTACK_MEMORY];
        }
        let mv = (m.from().index() as u64) << 8 | m.to().index() as u64;
        // a tag that is never 0 (the empty entry)
        let tag = (pos.key() ^ mv.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
        let slot = &mut self.attacks[(tag >> 17) as usize & (ATTACK_MEMORY - 1)];
        if slot.0 == tag {
            return slot.1;
        }
        let attack =
            crate::game::threat::is_attack_answering(pos, m, super::checks::checkmates_in_one);
        *slot = (tag, attack);
        attack
    }

    /// Whether the move into the last position (`now`, where the search plays its own
    /// moves) is forbidden: it completes a repetition of the nearest earlier occurrence of
    /// that position, every move of the mover's since then (this one included) was a hit,
    /// and either not every move of the other side's was, or the mover checked on every
    /// move and the other side did not (the rule's "除出现解将还将外，均不许可单方面长将": a
    /// perpetual check must change even against a perpetual chase or threat of mate).
    fn forbidden_last(&mut self, now: Option<&Position>) -> bool {
        let n = self.steps.len();
        let top = n - 1;
        if n < 5 || self.steps[top].fresh || self.steps[top].hit == Some(false) {
            return false;
        }
        // the nearest earlier position with the same side to move and no irreversible move
        // since: n − 3, n − 5, …
        let s = &self.steps;
        let mut j = top;
        let earlier = loop {
            if j < 2 || s[j].fresh || s[j - 1].fresh {
                return false;
            }
            j -= 2;
            if s[j].key == s[top].key {
                break j;
            }
        };
        // the mover's moves into top, top − 2, …, earlier + 2; the other side's into
        // top − 1, …, earlier + 1
        let mover_all_checks = (earlier + 2..=top).step_by(2).all(|i| s[i].check);
        let other_all_checks = (earlier + 1..top).step_by(2).all(|i| s[i].check);
        for i in (earlier + 2..=top).step_by(2) {
            if !self.hit_at(i, now) {
                return false;
            }
        }
        self.cycle_start = earlier;
        if mover_all_checks && !other_all_checks {
            return true;
        }
        !(earlier + 1..top).step_by(2).all(|i| self.hit_at(i, now))
    }

    /// The legal moves of the side to move in `pos`, the line's last position, that the
    /// rule forbids.
    fn forbidden_here(&mut self, pos: &mut Position) -> Vec<Move> {
        let mut out = Vec::new();
        if !self.may_forbid() {
            return out;
        }
        for &m in pos.legal_moves().iter() {
            let (undo, forbidden) = self.play(pos, m);
            if forbidden {
                out.push(m);
            }
            self.pop();
            pos.undo(m, undo);
        }
        out
    }

    /// The legal moves of the side to move in `pos` (the last position of `history`, or a
    /// fresh line) that `rules` forbid: each would complete a perpetual check (or attack).
    pub fn forbidden_moves(rules: Rules, history: &History, pos: &Position) -> Vec<Move> {
        let mut path = Path::new(rules);
        path.reset(history, pos);
        path.forbidden_here(&mut pos.clone())
    }

    /// The tables' moves in `pos`, the last position of a game with `history`, best first
    /// as [`Tablebase::rank_moves`] ranks them, less those the tables' rule set forbids the
    /// side to move there (each would complete its perpetual check or attack: the tables
    /// value every position as if it were reached afresh). Empty when the rule forbids
    /// every legal move: the side to move must play one and loses by the rule.
    pub fn table_moves(
        tb: &Tablebase,
        history: &History,
        pos: &Position,
    ) -> Result<Vec<RankedMove>, TableError> {
        let mut ranked = tb.rank_moves(pos)?;
        let forbidden = Path::forbidden_moves(tb.rules(), history, pos);
        ranked.retain(|r| !forbidden.contains(&r.mv));
        Ok(ranked)
    }

    /// For each move of a line, the other legal moves `rules` forbade its mover there
    /// (moves that would have completed a perpetual check or attack), after `history`.
    pub fn forbidden_along(
        rules: Rules,
        history: &History,
        start: &Position,
        line: &[Move],
    ) -> Vec<Vec<Move>> {
        let mut path = Path::new(rules);
        path.reset(history, start);
        let mut pos = start.clone();
        line.iter()
            .map(|&m| {
                let kept = path.forbidden_here(&mut pos);
                path.play(&mut pos, m);
                kept
            })
            .collect()
    }

    /// Whether the position after each move of a line repeats an earlier one (of the line
    /// or of the history), for a report: one flag a move.
    pub fn repetitions(history: &History, start: &Position, line: &[Move]) -> Vec<bool> {
        let mut seen: Vec<u64> = history.steps.iter().map(|s| s.key).collect();
        if seen.last() != Some(&start.key()) {
            seen = vec![start.key()];
        }
        let mut pos = start.clone();
        line.iter()
            .map(|&m| {
                pos.play_unchecked(m);
                let again = seen.contains(&pos.key());
                seen.push(pos.key());
                again
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(fen: &str, moves: &[&str]) -> (Position, Vec<Move>) {
        let mut pos: Position = fen.parse().unwrap();
        let start = pos.clone();
        let mut out = Vec::new();
        for s in moves {
            let m = crate::notation::parse_move(&pos, s).unwrap();
            pos.play_unchecked(m);
            out.push(m);
        }
        (start, out)
    }

    /// Plays a line through a path, returning which moves it called forbidden.
    fn forbidden(start: &Position, moves: &[Move]) -> Vec<bool> {
        let mut path = Path::new(Rules::CheckOnly);
        path.reset(&History::default(), start);
        let mut pos = start.clone();
        moves.iter().map(|&m| path.play(&mut pos, m).1).collect()
    }

    /// A chariot checks from the side and from the front in turn, the general steps up and
    /// down: the check that would repeat the first checked position is forbidden.
    /// A move the rule forbids always repeats a position of the line: `may_repeat`, asked
    /// before the move is added (and, for a move after one not yet on the line, before
    /// both are), is true for every move `forbidden_last` then forbids, on 20,000 random
    /// lines of few keys and every mix of checks, hits and irreversible moves.
    #[test]
    fn a_forbidden_move_always_may_repeat() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let (mut forbidden, mut cleared) = (0, 0);
        for _ in 0..20_000 {
            let mut path = Path::new(Rules::Asian);
            path.push_step(0, false, false, true);
            for _ in 0..rng.random_range(1..14) {
                let (key, check, fresh) = (
                    rng.random_range(0..4u64),
                    rng.random_bool(0.5),
                    rng.random_bool(0.1),
                );
                let hit = check || rng.random_bool(0.5);
                let one = path.may_repeat(None, key, fresh);
                // the same move after one more, not yet on the line
                let (key0, fresh0) = (rng.random_range(0..4u64), rng.random_bool(0.1));
                let two = path.may_repeat(Some(fresh0), key, fresh);
                let mut after = path.clone();
                let check0 = rng.random_bool(0.5);
                after.push_step(key0, check0, check0 || rng.random_bool(0.5), fresh0);
                if after.push_step(key, check, hit, fresh) {
                    assert!(two, "{:?}", after.steps);
                    forbidden += 1;
                }
                if path.push_step(key, check, hit, fresh) {
                    assert!(one, "{:?}", path.steps);
                    forbidden += 1;
                    path.pop();
                } else if !one {
                    cleared += 1;
                }
            }
        }
        // (both kinds occur: the test says something)
        assert!(forbidden > 100 && cleared > 1000, "{forbidden} {cleared}");
    }

    #[test]
    fn a_perpetual_check_is_forbidden_when_it_repeats() {
        // black's chariot checks along rank 0 and rank 1 by turns, red's general steps
        // between e0 and e1
        let fen = "5k3/9/9/9/9/7r1/9/9/9/4K4 b";
        let (start, moves) = line(fen, &["h4h0", "e0e1", "h0h1", "e1e0", "h1h0"]);
        let f = forbidden(&start, &moves);
        // the first moves are fine; the last repeats the position after the first check
        assert_eq!(&f[..4], &[false, false, false, false], "{f:?}");
        assert!(f[4], "{f:?}");
    }

    /// The same cycle with a capture in it is no repetition.
    #[test]
    fn nothing_repeats_across_a_capture() {
        let mut path = Path::new(Rules::CheckOnly);
        let pos: Position = "5k3/9/9/9/9/7r1/9/9/9/4K4 b".parse().unwrap();
        path.reset(&History::default(), &pos);
        // the same position pushed again, the second time marked irreversible
        assert!(!path.push(&pos, true, true, true));
        assert_eq!(path.tt_key(&pos, 9), pos.key());
    }

    /// A line of positions by key (a cycle of four repeating), with whether each move into
    /// one gave check; returns which moves the rule forbade.
    fn cycle(checks: &[bool], fresh_at: Option<usize>) -> Vec<bool> {
        let moves: Vec<(bool, bool)> = checks.iter().map(|&c| (c, c)).collect();
        line_of_keys(Rules::CheckOnly, &moves, fresh_at)
    }

    /// A line of positions by key (a cycle of four repeating) under `rules`, with whether
    /// each move into one checked and whether it was a hit; returns which moves the rule
    /// forbade.
    fn line_of_keys(rules: Rules, moves: &[(bool, bool)], fresh_at: Option<usize>) -> Vec<bool> {
        let mut path = Path::new(rules);
        path.steps.push(Step {
            key: 100,
            check: false,
            hit: Some(false),
            fresh: true,
            prefix: 100,
            run_end: None,
            moved: None,
        });
        moves
            .iter()
            .enumerate()
            .map(|(i, &(c, h))| path.push_step((i % 4) as u64, c, h, fresh_at == Some(i)))
            .collect()
    }

    /// 长将: the side checking on every move of the cycle may not complete it; the other side
    /// completing it is no fault of its own, and the checking side's next check is then the
    /// forbidden one.
    #[test]
    fn the_side_that_checks_on_every_move_must_change() {
        // moves 0, 2, 4 … are one side's (checks), 1, 3, 5 … the other's (quiet)
        let f = cycle(&[true, false, true, false, true], None);
        assert_eq!(f, [false, false, false, false, true]);
        // here the quiet side's move 4 completes the first repetition (position 0 again),
        // which is allowed; the checking side's next check (move 5) would repeat position 1
        // and is forbidden
        let f = cycle(&[false, true, false, true, false, true], None);
        assert_eq!(f, [false, false, false, false, false, true]);
    }

    /// 解将还将: both sides check on every move: the repetition is allowed (a draw).
    #[test]
    fn checks_answered_by_checks_may_repeat() {
        let f = cycle(&[true; 8], None);
        assert!(f.iter().all(|&x| !x), "{f:?}");
    }

    /// 一将一闲: a side that checks and idles by turns is never forbidden.
    #[test]
    fn one_check_one_idle_move_may_repeat() {
        // the first side's moves (0, 2, 4, 6, 8) check, idle, check, idle, check
        let f = cycle(
            &[true, false, false, false, true, false, false, false, true],
            None,
        );
        assert!(f.iter().all(|&x| !x), "{f:?}");
    }

    /// A cycle of four positions under the whole rule: each move a check (将), another 打
    /// (杀 or 捉: `A`) or idle (`I`); returns which moves the rule forbade.
    fn attack_cycle(moves: &str) -> Vec<bool> {
        let moves: Vec<(bool, bool)> = moves.chars().map(|c| (c == 'C', c != 'I')).collect();
        line_of_keys(Rules::Asian, &moves, None)
    }

    /// 长捉 (or 长杀): a side that chases on every move must change against one that does
    /// not; 一打一闲 may repeat; both sides chasing on every move is a draw.
    #[test]
    fn a_perpetual_chase_must_change() {
        // moves 0, 2, 4 are one side's (chases), 1, 3 the other's (idle)
        assert_eq!(attack_cycle("AIAIA"), [false, false, false, false, true]);
        // 一打一闲
        assert!(attack_cycle("AIIIAIIIA").iter().all(|&x| !x));
        // both sides chase (or check against chase) on every move
        assert!(attack_cycle("AAAAAAAA").iter().all(|&x| !x));
        // (chases against checks: the checks must change, see the next test)
        assert_eq!(
            attack_cycle("ACACAC"),
            [false, false, false, false, false, true]
        );
        // 二打一还打: the side whose two moves both attack must change against one whose
        // answers attack once and idle once
        assert_eq!(attack_cycle("AAAIA"), [false, false, false, false, true]);
    }

    /// 除解将还将外，不许单方面长将: a perpetual check must change even against a perpetual
    /// chase, and a chase answering checks is never the one forbidden.
    #[test]
    fn a_perpetual_check_must_change_against_a_perpetual_chase() {
        // the checking side (moves 0, 2, 4) completes the repetition: forbidden
        assert_eq!(attack_cycle("CACAC"), [false, false, false, false, true]);
        // the chasing side completes it: allowed (the checker is at fault)
        assert!(attack_cycle("ACACA").iter().all(|&x| !x));
        // checks answered by checks: 解将还将
        assert!(attack_cycle("CCCCCCCC").iter().all(|&x| !x));
        // a side that checks and chases by turns is 长打, not 长将: against chases too, a draw
        assert!(attack_cycle("CAAACAAA").iter().all(|&x| !x));
    }

    /// A real cycle: black's chariot chases the loose red horse along two files while the
    /// horse goes back and forth; the chase that would repeat is forbidden, as is nothing
    /// under the perpetual-check rule alone.
    #[test]
    fn a_chariot_chasing_a_loose_horse_must_change() {
        let fen = "3k3r1/9/9/9/9/9/9/9/9/4K3N w";
        let moves = ["i0g1", "h9g9", "g1i0", "g9i9", "i0g1", "i9g9"];
        let (start, line) = line(fen, &moves);
        let along = |rules| {
            let mut path = Path::new(rules);
            path.reset(&History::default(), &start);
            let mut pos = start.clone();
            line.iter()
                .map(|&m| path.play(&mut pos, m).1)
                .collect::<Vec<bool>>()
        };
        assert_eq!(
            along(Rules::Asian),
            [false, false, false, false, false, true]
        );
        assert!(along(Rules::CheckOnly).iter().all(|&x| !x));
        // each chariot move is 捉, each horse move 闲
        let mut pos = start.clone();
        for (k, &m) in line.iter().enumerate() {
            let kind = crate::game::threat::attack_of(&pos, m).kind();
            let want = if k % 2 == 1 {
                crate::game::threat::AttackKind::Chase
            } else {
                crate::game::threat::AttackKind::Idle
            };
            assert_eq!(kind, want, "move {k}: {m}");
            pos.play_unchecked(m);
        }
    }

    /// Nothing repeats across a capture or a soldier's step forward.
    #[test]
    fn an_irreversible_move_ends_the_cycle() {
        let f = cycle(&[true, false, true, false, true], Some(2));
        assert!(f.iter().all(|&x| !x), "{f:?}");
    }

    /// A position's key holds the line back as far as a later move could be compared with
    /// it: the position before it, and the positions runs of hits reach; right after an
    /// irreversible move it is the plain key.
    #[test]
    fn keys_hold_the_line_as_far_as_runs_of_hits_reach() {
        let pos: Position = "5k3/9/9/9/9/7r1/9/9/9/4K4 b".parse().unwrap();
        // (key, hit, irreversible)
        let key = |keys: &[(u64, bool, bool)]| {
            let mut path = Path::new(Rules::CheckOnly);
            for &(k, hit, fresh) in keys {
                path.push_step(k, hit, hit, fresh);
            }
            path.tt_key(&pos, 60)
        };
        assert_eq!(key(&[(1, false, true)]), 1);
        assert_eq!(key(&[(1, false, true), (2, false, true)]), 2);
        // the position before always counts (the side to move may go back to it)
        assert_ne!(key(&[(1, false, true), (2, false, false)]), 2);
        assert_ne!(
            key(&[(1, false, true), (2, false, false)]),
            key(&[(3, false, true), (2, false, false)])
        );
        // two quiet moves: nothing before the position before counts
        assert_eq!(
            key(&[(1, false, true), (2, false, false), (3, false, false)]),
            key(&[(9, false, true), (2, false, false), (3, false, false)])
        );
        // a hit into the last position: the position two back counts, and the one before
        // that too once the run goes on through it
        assert_ne!(
            key(&[(1, false, true), (2, false, false), (3, true, false)]),
            key(&[(9, false, true), (2, false, false), (3, true, false)])
        );
        assert_eq!(
            key(&[
                (1, false, true),
                (7, false, false),
                (2, false, false),
                (3, true, false)
            ]),
            key(&[
                (9, false, true),
                (7, false, false),
                (2, false, false),
                (3, true, false)
            ])
        );
        assert_ne!(
            key(&[
                (1, false, true),
                (7, false, false),
                (2, true, false),
                (3, true, false)
            ]),
            key(&[
                (9, false, true),
                (7, false, false),
                (2, true, false),
                (3, true, false)
            ])
        );
        // the same positions in another order
        assert_ne!(
            key(&[(1, false, true), (2, false, false), (3, false, false)]),
            key(&[(1, false, true), (3, false, false), (2, false, false)])
        );
    }

    /// Lines of legal moves played by seeded random choice from a few positions, with the
    /// path under `rules` alongside; `each` sees every position of every line, with the
    /// line's moves so far and the position each was played in.
    fn random_lines(
        rules: Rules,
        lines: usize,
        mut each: impl FnMut(&mut Path, &mut Position, &[(Position, Move)]),
    ) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let starts = [
            "5k3/9/9/9/9/7r1/9/9/9/4K4 b",
            "3k3r1/9/9/9/9/9/9/9/9/4K3N w",
            "3akab2/9/4b4/9/9/9/9/4B4/4A4/2RAK1C2 w",
            "4k4/4a4/3a5/9/9/9/9/2n6/4A4/3AK2R1 w",
            "2bak4/4a4/4b4/9/2n6/9/9/9/4A4/2RAK1C2 b",
        ];
        for line in 0..lines {
            let mut pos: Position = starts[line % starts.len()].parse().unwrap();
            let mut path = Path::new(rules);
            path.reset(&History::default(), &pos);
            let mut played = Vec::new();
            for _ in 0..rng.random_range(4..24) {
                each(&mut path, &mut pos, &played);
                let moves = pos.legal_moves();
                // (mostly quiet moves, so that lines repeat)
                let quiet: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|&m| !irreversible(&pos, m))
                    .collect();
                let pool: Vec<Move> = if quiet.is_empty() {
                    moves.iter().copied().collect()
                } else {
                    quiet
                };
                if pool.is_empty() {
                    break;
                }
                // (and often the move that undoes the one before last)
                let back = path
                    .steps
                    .len()
                    .checked_sub(2)
                    .and_then(|i| path.steps[i + 1].moved);
                let m = match back.map(|(m, _)| Move::new(m.to(), m.from())) {
                    Some(b) if rng.random_bool(0.5) && pool.contains(&b) => b,
                    _ => pool[rng.random_range(0..pool.len())],
                };
                played.push((pos.clone(), m));
                path.play(&mut pos, m);
            }
        }
    }

    /// A node's key reaches back to every position of the line that a move within its
    /// bound could repeat: walks of up to `bound + 1` reversible moves from each position
    /// of random lines (half of their moves undoing the one before last, so that they
    /// return) never land on a position of the stretch a run could reach that the key
    /// leaves out; and a node whose subtree can reach nothing keeps its plain key.
    #[test]
    fn keys_reach_every_position_the_bound_can_repeat() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let (mut landings, mut plain, mut trimmed) = (0, 0, 0);
        random_lines(Rules::Asian, 120, |path, pos, _| {
            let c = path.steps.len() - 1;
            for bound in 0..7u32 {
                // (as far back as a run could reach, by the hits known now: a known non-hit
                // ends a run whatever comes after)
                let mut start = path.loose_run_end(c);
                if c >= 1 && !path.steps[c].fresh {
                    start = start.min(path.loose_run_end(c - 1));
                }
                let (key, from) = path.tt_key_from(pos, bound);
                assert!(from >= start && from <= c);
                if from == c {
                    assert_eq!(key, pos.key());
                    plain += 1;
                } else if from > start {
                    trimmed += 1;
                }
                for _ in 0..12 {
                    let mut walk = Vec::new();
                    for _ in 0..=bound {
                        let moves = pos.legal_moves();
                        let quiet: Vec<Move> = moves
                            .iter()
                            .copied()
                            .filter(|&m| !irreversible(pos, m))
                            .collect();
                        if quiet.is_empty() {
                            break;
                        }
                        let n = path.steps.len();
                        let back = (n >= 2)
                            .then(|| path.steps[n - 1].moved)
                            .flatten()
                            .filter(|_| n - 1 > c || rng.random_bool(0.5));
                        let undo_two = (n >= 3).then(|| path.steps[n - 2].moved).flatten();
                        let m = match (back, undo_two) {
                            (_, Some((m, _)))
                                if rng.random_bool(0.5)
                                    && quiet.contains(&Move::new(m.to(), m.from())) =>
                            {
                                Move::new(m.to(), m.from())
                            }
                            _ => quiet[rng.random_range(0..quiet.len())],
                        };
                        let (undo, _) = path.play(pos, m);
                        walk.push((m, undo));
                        landings += 1;
                        let landed = pos.key();
                        for j in start..c {
                            assert!(
                                path.steps[j].key != landed || j >= from,
                                "a move {} plies below a node {c} of bound {bound} repeats \
                                 position {j}, before the key's {from}",
                                walk.len(),
                            );
                        }
                    }
                    while let Some((m, undo)) = walk.pop() {
                        path.pop();
                        pos.undo(m, undo);
                    }
                }
            }
        });
        assert!(
            landings > 10_000 && plain > 100 && trimmed > 100,
            "{landings} {plain} {trimmed}"
        );
    }

    /// The key of the position after a move, known without playing it, is the key the
    /// position has once played.
    #[test]
    fn a_childs_key_is_known_before_the_move() {
        let (mut seen, mut known) = (0, 0);
        for rules in [Rules::CheckOnly, Rules::Asian] {
            random_lines(rules, 200, |path, pos, _| {
                for &m in pos.legal_moves().iter() {
                    let before = path.child_tt_key(pos, m, 8);
                    let hits: Vec<Option<bool>> = path.steps.iter().map(|s| s.hit).collect();
                    let (undo, _) = path.play(pos, m);
                    // (unless playing it worked out that a quiet move was no hit: a known
                    // non-hit ends a run, and the key after it is shorter)
                    let learnt = path.steps.iter().zip(&hits).any(|(s, h)| s.hit != *h)
                        || path.steps.last().unwrap().hit == Some(false);
                    if !learnt {
                        assert_eq!(before, path.tt_key(pos, 8));
                        known += 1;
                    }
                    path.pop();
                    pos.undo(m, undo);
                    seen += 1;
                }
            });
        }
        assert!(seen > 10_000 && known > seen / 4, "{seen} {known}");
    }

    /// Whether a move is forbidden comes out the same when each move's 打 is worked out
    /// only where a repetition asks (as the search does) as when it is known for every
    /// move from the start.
    #[test]
    fn hits_worked_out_late_forbid_what_hits_known_early_do() {
        let mut forbidden = 0;
        random_lines(Rules::Asian, 600, |path, pos, played| {
            // the same line, each hit known
            let mut known = Path::new(Rules::Asian);
            known.reset(&History::default(), played.first().map_or(&*pos, |p| &p.0));
            for (before, m) in played {
                let mut after = before.clone();
                after.play_unchecked(*m);
                let hit = crate::game::threat::is_attack(before, *m);
                let fresh = irreversible(before, *m);
                known.push_known(after.key(), after.is_check(), hit || fresh, fresh, None);
            }
            for &m in pos.legal_moves().iter() {
                let (undo, late) = path.play(pos, m);
                path.pop();
                pos.undo(m, undo);
                let mut after = pos.clone();
                let hit = crate::game::threat::is_attack(&after, m);
                let fresh = irreversible(&after, m);
                after.play_unchecked(m);
                known.push_known(after.key(), after.is_check(), hit || fresh, fresh, None);
                let early = known.forbidden_last(None);
                known.pop();
                assert_eq!(late, early, "{pos} {m}");
                forbidden += usize::from(late);
            }
        });
        assert!(forbidden > 20, "{forbidden}");
    }

    /// Every move after which an answer of the other side's is forbidden is among the
    /// returning moves (so is every move after which each answer is).
    #[test]
    fn a_move_after_which_an_answer_is_forbidden_returns() {
        let mut found = 0;
        for rules in [Rules::CheckOnly, Rules::Asian] {
            random_lines(rules, 400, |path, pos, _| {
                let mut returning = Vec::new();
                path.returning_moves(pos, &mut returning);
                for &m in pos.legal_moves().iter() {
                    let (undo, forbidden) = path.play(pos, m);
                    let answered = !forbidden
                        && pos.legal_moves().iter().any(|&r| {
                            let (u, f) = path.play(pos, r);
                            path.pop();
                            pos.undo(r, u);
                            f
                        });
                    path.pop();
                    pos.undo(m, undo);
                    if answered {
                        assert!(returning.contains(&m), "{pos} {m} {returning:?}");
                        found += 1;
                    }
                }
            });
        }
        assert!(found > 20, "{found}");
    }

    /// Without the rule the path keeps nothing and every key is plain.
    #[test]
    fn without_the_rule_nothing_is_kept() {
        let mut path = Path::new(Rules::None);
        let pos: Position = "5k3/9/9/9/9/7r1/9/9/9/4K4 b".parse().unwrap();
        path.reset(&History::default(), &pos);
        assert!(!path.push(&pos, false, false, false));
        assert!(path.is_empty());
        assert_eq!(path.tt_key(&pos, 9), pos.key());
    }
}
