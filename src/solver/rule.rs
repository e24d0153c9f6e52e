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
//! A forbidden move lands on a position reached by a hit of the mover's, and every move
//! of the mover's since that position must have been a hit too. So an earlier position
//! can matter to a node's subtree only while one side's unbroken run of hits reaches back
//! to it, with no capture and no advance of a soldier (which no line can undo) in between.
//! A node's transposition-table key is its Zobrist key mixed with the keys of the line
//! back to the earliest such position ([`Path::tt_key`]): the bounds a node stores are then
//! exact for every line that reaches it with the same key, and a node that no run of hits
//! reaches (most of them) keeps its plain key, shared with every transposition.

use crate::game::moves::Move;
use crate::game::piece::Kind;
use crate::game::position::Position;
use crate::tablebase::{RankedMove, Rules, TableError, Tablebase};

/// One position of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    /// The position's Zobrist key.
    key: u64,
    /// The move into the position gave check.
    check: bool,
    /// The move into the position was a hit: a check under `check-only`, 打 under `asian`.
    hit: bool,
    /// The move into the position can never be undone (a capture, a soldier's step
    /// forward), or the line starts here: no position before it recurs after it.
    fresh: bool,
    /// The key of the position's bounds in the transposition table.
    tt_key: u64,
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
        }];
    }

    /// Adds the position after `m`, played in `pos`: the history's last position (an
    /// empty history starts at `pos`).
    pub fn push(&mut self, pos: &Position, m: Move) {
        if self.steps.last().is_none_or(|s| s.key != pos.key()) {
            self.start(pos);
        }
        let fresh = irreversible(pos, m);
        let attack = crate::game::threat::is_attack(pos, m);
        let mut after = pos.clone();
        after.play_unchecked(m);
        self.steps.push(Past {
            key: after.key(),
            check: after.is_check(),
            attack,
            fresh,
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
}

/// The line from the game's start (or the proof's root) to the node being searched.
#[derive(Clone, Debug)]
pub struct Path {
    /// The rule set: without a repetition rule the path keeps nothing and every key is
    /// plain.
    rules: Rules,
    steps: Vec<Step>,
    /// Under `asian`: whether moves were 打, by a tag of the position's key and the move
    /// (a search plays the same moves again and again on its way down the tree).
    attacks: Vec<(u64, bool)>,
}

/// Entries of [`Path`]'s memory of which moves were 打 (a power of two).
const ATTACK_MEMORY: usize = 1 << 15;

/// An order-sensitive mix of the keys of a line.
fn mix(keys: &[Step]) -> u64 {
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    for s in keys {
        h = (h ^ s.key)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(27);
    }
    h
}

impl Path {
    /// A path that applies `rules`.
    pub fn new(rules: Rules) -> Path {
        Path {
            rules,
            steps: Vec::with_capacity(256),
            attacks: if rules == Rules::Asian {
                vec![(0, false); ATTACK_MEMORY]
            } else {
                Vec::new()
            },
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
            self.steps.extend(history.steps.iter().map(|p| Step {
                key: p.key,
                check: p.check,
                hit: if asian { p.attack } else { p.check },
                fresh: p.fresh,
                tt_key: 0,
            }));
        } else {
            self.steps.push(Step {
                key: root.key(),
                check: root.is_check(),
                hit: root.is_check(),
                fresh: true,
                tt_key: 0,
            });
        }
        let last = self.steps.len() - 1;
        self.steps[last].tt_key = self.tt_key_of(last);
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
    /// not, and says whether that move is forbidden by
    /// the rule (the caller then takes it back and pops it). Without the rule, nothing is
    /// kept and no move is forbidden.
    #[inline]
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
        let irr = irreversible(pos, m);
        // a check is seen after the move; 打 needs the position before it
        // (a capture or a soldier's step forward starts afresh: no repetition goes back
        // past it, so whether it is 打 never matters)
        let attack = (self.rules == Rules::Asian).then(|| irr || self.is_attack(pos, m));
        let undo = pos.play_unchecked(m);
        let check = pos.is_check();
        (undo, self.push(pos, irr, check, attack.unwrap_or(check)))
    }

    /// Whether the legal move `m` of `pos` is 打, remembered by the position's key and the
    /// move.
    fn is_attack(&mut self, pos: &Position, m: Move) -> bool {
        let mv = (m.from().index() as u64) << 8 | m.to().index() as u64;
        // a tag that is never 0 (the empty entry)
        let tag = (pos.key() ^ mv.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
        let slot = &mut self.attacks[(tag >> 17) as usize & (ATTACK_MEMORY - 1)];
        if slot.0 == tag {
            return slot.1;
        }
        let attack = crate::game::threat::is_attack(pos, m);
        *slot = (tag, attack);
        attack
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

    /// Adds a position by its key and flags, and says whether the move into it is forbidden.
    fn push_step(&mut self, key: u64, check: bool, hit: bool, fresh: bool) -> bool {
        self.steps.push(Step {
            key,
            check,
            hit,
            fresh,
            tt_key: 0,
        });
        let last = self.steps.len() - 1;
        self.steps[last].tt_key = self.tt_key_of(last);
        self.forbidden_last()
    }

    /// Takes the last position off the line.
    #[inline]
    pub fn pop(&mut self) {
        if self.on() {
            self.steps.pop();
        }
    }

    /// The transposition-table key of the last position (`pos`): its Zobrist key, mixed
    /// with the line back to the earliest position a run of checks still reaches.
    #[inline]
    pub fn tt_key(&self, pos: &Position) -> u64 {
        match self.steps.last() {
            Some(s) if self.on() => s.tt_key,
            _ => pos.key(),
        }
    }

    /// Whether the key of the position after any move of the side to move is its plain
    /// Zobrist key, and no such move is forbidden: neither side's last move gave check (no
    /// run of checks reaches back past the child). Then a child's bounds may be looked up
    /// by [`Position::key_after`].
    pub fn children_plain(&self) -> bool {
        let n = self.steps.len();
        !self.on() || n < 2 || (!self.steps[n - 1].hit && !self.steps[n - 2].hit)
    }

    /// Whether, after a move of the side to move, the other side's answers could be
    /// forbidden: its last move (into this position) gave check.
    #[inline]
    pub fn may_forbid_after_reply(&self) -> bool {
        let n = self.steps.len();
        self.on() && n >= 3 && self.steps[n - 1].hit
    }

    /// Whether a move of the side to move could be forbidden: its last move gave check.
    #[inline]
    pub fn may_forbid(&self) -> bool {
        let n = self.steps.len();
        self.on() && n >= 4 && self.steps[n - 2].hit && !self.steps[n - 1].fresh
    }

    /// The earliest position that a later repetition could go back to from position `c`
    /// (`c` itself when none before it can).
    fn reach(&self, c: usize) -> usize {
        let s = &self.steps;
        let mut earliest = c;
        // a run walks back two plies at a time over positions reached by checks
        let walk = |mut j: usize, earliest: &mut usize| {
            while j >= 2 && !s[j].fresh && !s[j - 1].fresh {
                j -= 2;
                if !s[j].hit {
                    break;
                }
                *earliest = (*earliest).min(j);
            }
        };
        // the side that moved into c: its run through c
        if s[c].hit {
            walk(c, &mut earliest);
        }
        // the other side: its run through c − 1
        if c >= 1 && !s[c].fresh && s[c - 1].hit {
            earliest = earliest.min(c - 1);
            walk(c - 1, &mut earliest);
        }
        earliest
    }

    fn tt_key_of(&self, c: usize) -> u64 {
        let from = self.reach(c);
        if from == c {
            self.steps[c].key
        } else {
            self.steps[c].key ^ mix(&self.steps[from..c])
        }
    }

    /// Whether the move into the last position is forbidden: it completes a repetition of
    /// the nearest earlier occurrence of that position, every move of the mover's since
    /// then (this one included) was a hit, and either not every move of the other side's
    /// was, or the mover checked on every move and the other side did not (the rule's
    /// "除出现解将还将外，均不许可单方面长将": a perpetual check must change even against a
    /// perpetual chase or threat of mate).
    fn forbidden_last(&self) -> bool {
        let s = &self.steps;
        let n = s.len();
        let top = s[n - 1];
        if !top.hit || top.fresh || n < 5 {
            return false;
        }
        // positions with the same side to move: n − 3, n − 5, …, reached by the mover;
        // between them n − 2, n − 4, …, reached by the other side
        let (mut other_all_hits, mut other_all_checks) = (true, true);
        let mut mover_all_checks = top.check;
        let mut j = n - 1;
        while j >= 2 {
            // the other side's move into j − 1
            other_all_hits &= s[j - 1].hit;
            other_all_checks &= s[j - 1].check;
            if s[j - 1].fresh {
                return false;
            }
            j -= 2;
            if s[j].key == top.key {
                return !other_all_hits || mover_all_checks && !other_all_checks;
            }
            if !s[j].hit || s[j].fresh {
                return false;
            }
            mover_all_checks &= s[j].check;
        }
        false
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
        assert_eq!(path.tt_key(&pos), pos.key());
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
            hit: false,
            fresh: true,
            tt_key: 100,
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

    /// A position reached while a run of checks goes on keys its bounds with the line; one
    /// that no run reaches keeps its plain key.
    #[test]
    fn keys_hold_the_line_only_within_a_run_of_checks() {
        let mut path = Path::new(Rules::CheckOnly);
        let pos: Position = "5k3/9/9/9/9/7r1/9/9/9/4K4 b".parse().unwrap();
        path.reset(&History::default(), &pos);
        path.push_step(1, false, false, false);
        path.push_step(2, false, false, false);
        assert_eq!(path.steps.last().unwrap().tt_key, 2);
        path.push_step(3, true, true, false);
        path.push_step(4, false, false, false);
        path.push_step(5, true, true, false);
        // position 5 (a check, after the check into 3): the line from 3 on counts
        assert_ne!(path.steps.last().unwrap().tt_key, 5);
        path.push_step(6, false, false, false);
        // position 6: the other side's run goes back through 5 and 3
        assert_ne!(path.steps.last().unwrap().tt_key, 6);
        path.push_step(7, false, false, false);
        path.push_step(8, false, false, false);
        // two quiet moves: no run reaches back
        assert_eq!(path.steps.last().unwrap().tt_key, 8);
    }

    /// Without the rule the path keeps nothing and every key is plain.
    #[test]
    fn without_the_rule_nothing_is_kept() {
        let mut path = Path::new(Rules::None);
        let pos: Position = "5k3/9/9/9/9/7r1/9/9/9/4K4 b".parse().unwrap();
        path.reset(&History::default(), &pos);
        assert!(!path.push(&pos, false, false, false));
        assert!(path.is_empty());
        assert_eq!(path.tt_key(&pos), pos.key());
    }
}
