//! The verifier's own computation of the verdicts by rule: forward sweeps over every entry
//! until nothing changes (see the parent module's text).

use std::sync::atomic::AtomicBool;

use super::*;
use crate::tablebase::bits::Bits;
use crate::tablebase::index::DecodeCache;

/// A successor of a position: whether it is won for the winner being checked, where it
/// is in this table (None after a capture), whether the move into it checks, and whether
/// it is 打 (a check, a threat of mate or a chase; asked under `asian` only, and the same
/// as `checks` otherwise). The last two are asked only where a sweep needs them (see
/// [`Ask`]); elsewhere they are false.
#[derive(Clone, Copy)]
struct Child {
    won: bool,
    index: Option<u64>,
    checks: bool,
    attacks: bool,
}

/// What a trap holds the loser to: checking on every move (长将), or 打 on every move
/// (长打, under `asian`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hit {
    Check,
    Attack,
}

impl Hit {
    fn of(self, c: &Child) -> bool {
        match self {
            Hit::Check => c.checks,
            Hit::Attack => c.attacks,
        }
    }
}

/// What a sweep asks of each move besides where it leads: whether it is a hit of the kind
/// given (nothing, without one), for the moves into positions not won and (when `into` is
/// given) in that set. A move into a won position needs no more: every test
/// looks at `won` first.
#[derive(Clone, Copy)]
struct Ask<'b> {
    hit: Option<Hit>,
    into: Option<&'b Bits>,
}

impl Ask<'_> {
    fn hits(hit: Hit) -> Ask<'static> {
        Ask {
            hit: Some(hit),
            into: None,
        }
    }

    /// Whether the move into a position not won is to be classified.
    fn classify(&self, index: Option<u64>) -> Option<Hit> {
        let hit = self.hit?;
        match (self.into, index) {
            (Some(set), Some(i)) if !set.get(i) => None,
            _ => Some(hit),
        }
    }
}

struct Fixpoint<'a> {
    table: &'a Table,
    tb: &'a Tablebase,
    winner: Color,
    /// Per side to move: the entries won for the winner (the winner to move wins, the
    /// loser to move loses).
    won: [Bits; 2],
    /// Per side to move: the entries the table calls won by rule for the winner.
    claimed: [Bits; 2],
    /// The kinds of attacker each side has (for the rules engine's quicker tests).
    kinds: [Attackers; 2],
    /// The table's rule set: what a hit is (a check, or any 打).
    rules: crate::tablebase::Rules,
    failure: Mutex<Option<TableError>>,
}

/// In the reason of a verdict by rule found at another level than the table's.
const AT_LEVEL: &str = " at level ";

/// Recomputes the winner's verdicts by rule and compares them with the table's.
pub(super) fn check(table: &Table, tb: &Tablebase, winner: Color) -> Result<(), VerifyError> {
    let asian = table.header().rule_set() == crate::tablebase::Rules::Asian;
    match check_numbered(table, tb, winner, asian) {
        // a table of the whole rule built before the stages of perpetual check came first
        // (canju before 2026-12-07) has the same verdicts at other levels: it is right if
        // they are the stages' of that time, both traps at every stage
        Err(e)
            if asian
                && matches!(&e, VerifyError::Disagreement { reason, .. } if reason.contains(AT_LEVEL)) =>
        {
            check_numbered(table, tb, winner, false).map_err(|_| e)
        }
        found => found,
    }
}

/// [`check`] with the stages numbered one way: with `checks_first` (tables of the whole
/// rule), the trap of perpetual check alone at each stage until one finds none, then both
/// traps at each stage; without, both traps at every stage (the trap of perpetual check
/// alone under `check-only`).
fn check_numbered(
    table: &Table,
    tb: &Tablebase,
    winner: Color,
    checks_first: bool,
) -> Result<(), VerifyError> {
    let size = table.layout().size();
    let loser = !winner;
    let f = Fixpoint::new(table, tb, winner);
    let prev = [Bits::new(size), Bits::new(size)];
    let mut level = 0;
    // under the whole rule, the stages of perpetual check alone come first, until one
    // finds no trap; from there on each stage's trap is both kinds together
    let asian = f.rules == crate::tablebase::Rules::Asian;
    let mut checks_first = checks_first && asian;
    let nothing_claimed = f.claimed[0].count() == 0 && f.claimed[1].count() == 0;
    let mut trap: Option<Bits> = None;
    loop {
        prev[0].copy_from(&f.won[0]);
        prev[1].copy_from(&f.won[1]);
        if let Some(t) = &trap {
            f.won[loser.index()].add(t);
        }
        f.attract(level);
        f.failed()?;
        // every position won in this stage holds a verdict by rule at this level (looked
        // for entry by entry only where the stage won something)
        if f.won
            .iter()
            .zip(&prev)
            .any(|(won, before)| won.any_beyond(before))
        {
            f.first_wrong(|turn, i, c| {
                (f.won[turn.index()].get(i) && !prev[turn.index()].get(i))
                    .then(|| {
                        let want = code::rule(level, turn == winner);
                        (c != want).then(|| {
                            format!("the perpetual-check fixpoint finds it won for {winner}{AT_LEVEL}{level}")
                        })
                    })
                    .flatten()
            })?;
        }
        // both traps come from one look at the loser's positions where both are wanted:
        // after the stages of perpetual check alone, and from the start where the table
        // claims no verdict by rule (so that none is expected)
        let t = if asian && (!checks_first || nothing_claimed) {
            let (t, attack) = greatest_traps(&f, winner);
            f.failed()?;
            if checks_first && t.count() == 0 {
                checks_first = false;
            }
            if !checks_first {
                t.add(&attack);
            }
            t
        } else {
            // a loser with no piece that gives check (advisors and elephants at most) is
            // held to perpetual check nowhere: every position of it whose moves all lose is
            // lost by mate (checked entry by entry) or forced by rule (claimed, and taken by
            // the attractor), and the trap of 长打 holds any other
            let t = if f.kinds[loser.index()] == Attackers::NONE {
                Bits::new(size)
            } else {
                greatest_trap(&f, winner, Hit::Check)
            };
            f.failed()?;
            if checks_first && t.count() == 0 {
                checks_first = false;
            }
            if asian && !checks_first {
                // the whole rule: the loser checks forever against a winner who does not,
                // or attacks forever against a winner who does not; both traps are won
                t.add(&greatest_trap(&f, winner, Hit::Attack));
                f.failed()?;
            }
            t
        };
        if t.count() == 0 {
            break;
        }
        level += 1;
        trap = Some(t);
    }
    // and nothing else is (looked for entry by entry only where a claim is not won)
    if !f
        .claimed
        .iter()
        .zip(&f.won)
        .any(|(claimed, won)| claimed.any_beyond(won))
    {
        return Ok(());
    }
    f.first_wrong(|turn, i, c| {
        let claims = if turn == winner {
            code::is_rule_win(c)
        } else {
            code::is_rule_loss(c)
        };
        (claims && !f.won[turn.index()].get(i))
            .then(|| format!("the perpetual-check fixpoint finds it not won for {winner}"))
    })
}

impl<'a> Fixpoint<'a> {
    /// The fixpoint for `winner` on a table checked entry by entry: the claims by rule,
    /// and the mates as the positions won so far.
    fn new(table: &'a Table, tb: &'a Tablebase, winner: Color) -> Fixpoint<'a> {
        let layout = table.layout();
        let size = layout.size();
        let loser = !winner;
        let f = Fixpoint {
            table,
            tb,
            winner,
            won: [Bits::new(size), Bits::new(size)],
            claimed: [Bits::new(size), Bits::new(size)],
            kinds: {
                let m = layout.material();
                [Attackers::of(&m.red), Attackers::of(&m.black)]
            },
            rules: table.header().rule_set(),
            failure: Mutex::new(None),
        };
        // the entries the table calls won by rule for this winner, and the mates (checked
        // entry by entry already)
        let sides = table.sides_checked();
        let (w, l) = (sides[winner.index()], sides[loser.index()]);
        (0..size).into_par_iter().for_each(|i| {
            let (cw, cl) = (w[i as usize], l[i as usize]);
            if code::is_rule_win(cw) {
                f.claimed[winner.index()].set(i);
            } else if code::is_win(cw) {
                f.won[winner.index()].set(i);
            }
            if code::is_rule_loss(cl) {
                f.claimed[loser.index()].set(i);
            } else if code::is_loss(cl) {
                f.won[loser.index()].set(i);
            }
        });
        f
    }
}

impl Fixpoint<'_> {
    /// The disagreement at the lowest entry for which `wrong` gives a reason.
    fn first_wrong(
        &self,
        wrong: impl Fn(Color, u64, u8) -> Option<String> + Sync,
    ) -> Result<(), VerifyError> {
        let layout = self.table.layout();
        let found = (0..layout.size()).into_par_iter().find_map_first(|i| {
            Color::ALL.iter().find_map(|&turn| {
                let c = self.table.code_of_checked(turn, i);
                if c == code::ILLEGAL {
                    return None;
                }
                wrong(turn, i, c).map(|reason| (i, turn, c, reason))
            })
        });
        match found {
            None => Ok(()),
            Some((index, side, c, reason)) => Err(VerifyError::Disagreement {
                material: self.table.header().material.clone(),
                index,
                side,
                stored: describe(self.table, side, index, c),
                reason,
                fen: layout
                    .position(index, side)
                    .map_or_else(|| "(no position)".into(), |p| p.to_string()),
            }),
        }
    }

    fn failed(&self) -> Result<(), TableError> {
        match self.failure.lock().expect("lock").take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether the position has a legal quiet move that is no hit of the kind given (no
    /// check, or no 打) and leads into a position not won: then it is in no trap. A quick
    /// look that leaves captures out (a position that escapes only by a capture is looked
    /// at in full). As in the entry-by-entry check, piece by piece from each one's target
    /// points, a quiet move's entry is its piece's slot moved, and the move is illegal
    /// exactly when that entry is marked illegal (every mark was checked against the rules
    /// engine entry by entry before); the hit is the rules engine's test on the board as
    /// it would stand (the other general is not attacked in a legal entry, as that test
    /// needs).
    fn escapes(&self, pos: &mut Position, at: (u64, &[Square]), hit: Hit) -> bool {
        let won = &self.won[(!pos.turn()).index()];
        !self.each_quiet(pos, at, None, |pos, m, child| {
            if won.get(child) {
                return true;
            }
            let escape = match hit {
                Hit::Check => !pos.gives_check(m),
                // (made and taken back in place; a threat of mate is looked for only
                // where the table says the mover, to move again, wins in one ply)
                Hit::Attack => self.quiet_attack(pos, m, child) == Some(false),
            };
            !escape
        })
    }

    /// Calls `quiet` with each legal quiet move of the side to move in `pos` and the entry
    /// it leads to, until it returns false (then false): piece by piece from the rules
    /// engine's target points, each entry from the index, and a move legal exactly when its
    /// entry is not marked illegal (every mark was checked against the rules engine entry
    /// by entry before). The pseudo-legal captures go to `captures`, when given.
    fn each_quiet(
        &self,
        pos: &mut Position,
        (index, squares): (u64, &[Square]),
        mut captures: Option<&mut MoveList>,
        mut quiet: impl FnMut(&mut Position, Move, u64) -> bool,
    ) -> bool {
        let layout = self.table.layout();
        let turn = pos.turn();
        let theirs = self.table.sides_checked()[(!turn).index()];
        let occupied = pos.occupancy();
        for (slot, (&from, piece)) in squares.iter().zip(layout.pieces()).enumerate() {
            if piece.color != turn {
                continue;
            }
            let (mut targets, mut takes) = pos.targets(from.index(), occupied);
            if let Some(list) = captures.as_deref_mut() {
                while takes != 0 {
                    let to = Square::new_unchecked(takes.trailing_zeros() as u8);
                    takes &= takes - 1;
                    list.push(Move::new(from, to));
                }
            }
            if targets == 0 {
                continue;
            }
            let moves = layout.slot_moves(index, squares, slot);
            while targets != 0 {
                let to = Square::new_unchecked(targets.trailing_zeros() as u8);
                targets &= targets - 1;
                let child = moves.index_to(to);
                if theirs[child as usize] != code::ILLEGAL
                    && !quiet(pos, Move::new(from, to), child)
                {
                    return false;
                }
            }
        }
        true
    }

    /// The successors of the position, classified as `ask` says: quiet moves read as
    /// [`Self::escapes`] reads them, then the legal captures, valued through the probing
    /// path.
    fn children(
        &self,
        pos: &mut Position,
        at: (u64, &[Square]),
        out: &mut Vec<Child>,
        ask: Ask,
    ) -> Result<(), TableError> {
        let next = !pos.turn();
        let won_next = &self.won[next.index()];
        let mut captures = MoveList::new();
        self.each_quiet(pos, at, Some(&mut captures), |pos, m, ci| {
            let won = won_next.get(ci);
            let (checks, attacks) = match ask.classify(Some(ci)).filter(|_| !won) {
                None => (false, false),
                Some(Hit::Attack) if self.rules == crate::tablebase::Rules::Asian => {
                    match self.quiet_attack(pos, m, ci) {
                        None => (true, true),
                        Some(attack) => (false, attack),
                    }
                }
                Some(_) => {
                    let checks = pos.gives_check(m);
                    (checks, checks)
                }
            };
            out.push(Child {
                won,
                index: Some(ci),
                checks,
                attacks,
            });
            true
        });
        let legality = pos.legality_against(self.kinds[next.index()]);
        for &m in captures.iter() {
            if !legality.move_is_legal(pos, m) {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let v = self.tb.probe(&child)?;
            let won = if next == self.winner {
                v.is_win()
            } else {
                v.is_loss()
            };
            let (mut checks, mut attacks) = (false, false);
            if let Some(hit) = ask.classify(None).filter(|_| !won) {
                // (the rules engine's test on the board as it would stand; the generator
                // plays the move and asks whether the general is attacked)
                checks = pos.gives_check(m);
                attacks = checks
                    || hit == Hit::Attack
                        && self.rules == crate::tablebase::Rules::Asian
                        && crate::game::threat::is_attack(pos, m);
            }
            out.push(Child {
                won,
                index: None,
                checks,
                attacks,
            });
        }
        Ok(())
    }

    /// What the legal quiet move `m` of `pos`, into entry `child`, is: `None` when it
    /// checks, else whether it is 打 all the same (杀 or 捉). Made and taken back in place;
    /// a threat of mate is looked for only where the mover, to move again there, wins in
    /// one ply by the table, whose distances the entry-by-entry check has proved already.
    fn quiet_attack(&self, pos: &mut Position, m: Move, child: u64) -> Option<bool> {
        let turn = pos.turn();
        let against = self.kinds[turn.index()];
        // (a side with no piece that gives check mates nothing: its table is not read)
        crate::game::threat::quiet_hit_knowing(
            pos,
            m,
            |after| after.in_check_against(!turn, against),
            Some((true, |threat: &mut Position| {
                against != Attackers::NONE
                    && self.table.code_of_checked(turn, child) == code::decided(1)
                    && crate::game::threat::mates_in_one(threat)
            })),
        )
    }

    /// Adds, until nothing changes, the winner's positions with a move into a won one and
    /// the loser's positions whose moves all lead into won ones.
    ///
    /// Only the entries the table calls won by rule are swept: an entry forced into a win
    /// that the table calls a draw (or the other side's win) has already failed the
    /// entry-by-entry check, whose one-ply minimax over the stored values would have given a
    /// win. What the sweeps establish is that every claimed win is forced, stage by stage,
    /// and not held up by a cycle of claims.
    fn attract(&self, level: u32) {
        // the entries claimed at this stage's level first, until nothing changes there;
        // then one sweep of every claim, which on a right table changes nothing more (the
        // claims only order the sweeps: the fixpoint is every claim's)
        let size = self.table.layout().size();
        let sides = self.table.sides_checked();
        let focus = [Bits::new(size), Bits::new(size)];
        for turn in Color::ALL {
            let (claimed, codes) = (&self.claimed[turn.index()], sides[turn.index()]);
            (0..size).into_par_iter().for_each(|i| {
                if claimed.get(i) && code::rule_level(codes[i as usize]) == level {
                    focus[turn.index()].set(i);
                }
            });
        }
        loop {
            while self.attract_sweep(&focus) {}
            if !self.attract_sweep(&self.claimed) {
                return;
            }
        }
    }

    /// One sweep of the attractor over the positions of `only` (per side to move) not won
    /// yet: whether it won any.
    fn attract_sweep(&self, only: &[Bits; 2]) -> bool {
        let changed = AtomicBool::new(false);
        for turn in Color::ALL {
            let won = &self.won[turn.index()];
            self.each_position(
                turn,
                Some(&only[turn.index()]),
                SubTables::new,
                |pos, at, subs| match self.forced(pos, at, subs) {
                    Ok(true) => {
                        won.set(at.0);
                        if !changed.load(Relaxed) {
                            changed.store(true, Relaxed);
                        }
                    }
                    Ok(false) => {}
                    Err(e) => self.fail(e),
                },
            );
        }
        changed.load(Relaxed)
    }

    /// Whether the position is forced into a win now: the winner to move has a legal move
    /// into a position won, the loser's every legal move (one at least) leads into one.
    /// Quiet moves first, read as [`Self::escapes`] reads them (the first that decides
    /// ends the look); a capture's value from its sub-table through the probing path.
    fn forced(
        &self,
        pos: &mut Position,
        at: (u64, &[Square]),
        subs: &mut SubTables,
    ) -> Result<bool, TableError> {
        let turn = pos.turn();
        let attacker = turn == self.winner;
        let won = &self.won[(!turn).index()];
        let mut any = false;
        let mut captures = MoveList::new();
        let undecided = self.each_quiet(pos, at, Some(&mut captures), |_, _, child| {
            any = true;
            won.get(child) != attacker
        });
        if !undecided {
            return Ok(attacker);
        }
        let legality = pos.legality_against(self.kinds[(!turn).index()]);
        for &m in captures.iter() {
            if !legality.move_is_legal(pos, m) {
                continue;
            }
            any = true;
            let undo = pos.play_unchecked(m);
            let v = subs.probe(self.tb, pos);
            pos.undo(m, undo);
            let v = v?;
            let into_win = if attacker { v.is_loss() } else { v.is_win() };
            if into_win == attacker {
                return Ok(attacker);
            }
        }
        Ok(!attacker && any)
    }
}

/// What the trap needs of the position graph: its entries per side, and a sweep that calls
/// `f` on every position of `turn` not yet won (of `only`, when given) with its successors,
/// classified as `ask` says. With `cornered` (a kind of hit), the sweep may leave out
/// positions with a move that is no such hit and does not lead into a won position (the
/// fixpoint finds most of them at a glance, without their successors).
trait Graph: Sync {
    fn size(&self) -> u64;
    fn sweep_in(
        &self,
        turn: Color,
        only: Option<&Bits>,
        cornered: Option<Hit>,
        ask: Ask,
        f: impl Fn(u64, &[Child]) + Sync,
    );
}

impl Graph for Fixpoint<'_> {
    fn size(&self) -> u64 {
        self.table.layout().size()
    }

    fn sweep_in(
        &self,
        turn: Color,
        only: Option<&Bits>,
        cornered: Option<Hit>,
        ask: Ask,
        f: impl Fn(u64, &[Child]) + Sync,
    ) {
        self.each_position(turn, only, Vec::new, |pos, at, children| {
            if cornered.is_some_and(|hit| self.escapes(pos, at, hit)) {
                return;
            }
            children.clear();
            match self.children(pos, at, children, ask) {
                Ok(()) => f(at.0, children),
                Err(e) => self.fail(e),
            }
        });
    }
}

impl Fixpoint<'_> {
    /// Calls `f` with every legal position of `turn` not yet won (of `only`, when given),
    /// set up, with its entry and the pieces' points, in parallel; `scratch` makes each
    /// thread's own scratch space.
    fn each_position<T: Send>(
        &self,
        turn: Color,
        only: Option<&Bits>,
        scratch: impl Fn() -> T + Sync + Send,
        f: impl Fn(&mut Position, (u64, &[Square]), &mut T) + Sync,
    ) {
        let layout = self.table.layout();
        let n = layout.pieces().len();
        let chunks = layout.size().div_ceil(CHUNK);
        (0..chunks).into_par_iter().for_each_init(
            || {
                (
                    [Square::new(0).expect("a0"); MAX_PIECES],
                    Position::scratch(),
                    scratch(),
                )
            },
            |(squares, pos, mine), chunk| {
                let start = chunk * CHUNK;
                let end = (start + CHUNK).min(layout.size());
                let mut decode = DecodeCache::default();
                // the placement `pos` holds, once it holds one of this chunk's
                let mut on_board: Option<Squares> = None;
                let mut next = start;
                while next < end {
                    let mut i = next;
                    if let Some(b) = only {
                        // (the members only: a word at a time past the others)
                        let word = b.0[(i / 64) as usize].load(Relaxed) >> (i % 64);
                        if word == 0 {
                            next = (i / 64 + 1) * 64;
                            continue;
                        }
                        i += u64::from(word.trailing_zeros());
                        if i >= end {
                            break;
                        }
                    }
                    next = i + 1;
                    if self.won[turn.index()].get(i)
                        || self.table.code_of_checked(turn, i) == code::ILLEGAL
                        || layout.squares_cached(i, squares, &mut decode).is_none()
                    {
                        continue;
                    }
                    let before = on_board.as_ref().map(|b| &b[..n]);
                    pos.replace_placement(layout.pieces(), before, &squares[..n], turn);
                    on_board = Some(*squares);
                    f(pos, (i, &squares[..n]), mine);
                }
            },
        );
    }

    /// Keeps the first failure.
    fn fail(&self, e: TableError) {
        self.failure.lock().expect("lock").get_or_insert(e);
    }
}

/// The greatest set Y of the loser's positions not won where the loser's every move that
/// is not a check leads into a won position, and from which the winner, answering every
/// check, reaches within finitely many checks of its own a move that does not check and
/// leads back into Y (νY. μZ). Where the winner can answer only by checking, forever (both
/// sides check on every move, 解将还将), nothing is in it.
fn greatest_trap(g: &impl Graph, winner: Color, hit: Hit) -> Bits {
    let size = g.size();
    // only positions where every move that does not check is won can be in it, and
    // only the positions their checks lead to answer
    let y = Bits::new(size);
    let answers = Bits::new(size);
    g.sweep_in(!winner, None, Some(hit), Ask::hits(hit), |i, children| {
        cornered(i, children, hit, &y, &answers);
    });
    trap_within(g, winner, hit, y, &answers)
}

/// The greatest traps of perpetual check and of 长打 together ([`greatest_trap`] of each),
/// from one look at the loser's positions: a position with a move that is no 打 into a
/// position not won has one that does not check as well, so it is in neither.
fn greatest_traps(g: &impl Graph, winner: Color) -> (Bits, Bits) {
    let size = g.size();
    let sets = [(); 4].map(|_| Bits::new(size));
    let [y_check, answers_check, y_attack, answers_attack] = &sets;
    g.sweep_in(
        !winner,
        None,
        Some(Hit::Attack),
        Ask::hits(Hit::Attack),
        |i, children| {
            cornered(i, children, Hit::Check, y_check, answers_check);
            cornered(i, children, Hit::Attack, y_attack, answers_attack);
        },
    );
    let [y_check, answers_check, y_attack, answers_attack] = sets;
    (
        trap_within(g, winner, Hit::Check, y_check, &answers_check),
        trap_within(g, winner, Hit::Attack, y_attack, &answers_attack),
    )
}

/// Adds the loser's position `i` to `y` if its every move is won or a hit, and the
/// positions its hits lead to to `answers`.
fn cornered(i: u64, children: &[Child], hit: Hit, y: &Bits, answers: &Bits) {
    if children.iter().all(|c| c.won || hit.of(c)) {
        y.set(i);
        for c in children {
            if let (false, Some(d)) = (c.won, c.index) {
                answers.set(d);
            }
        }
    }
}

/// The greatest trap within `y`, the loser's cornered positions, whose hits lead to
/// `answers` (the fixpoint of [`greatest_trap`]).
fn trap_within(g: &impl Graph, winner: Color, hit: Hit, y: Bits, answers: &Bits) -> Bits {
    let size = g.size();
    let (w, l) = (winner, !winner);
    if y.count() == 0 {
        return y;
    }
    let z = Bits::new(size);
    let zw = Bits::new(size);
    let z_next = Bits::new(size);
    loop {
        z.clear();
        let mut z_count = 0;
        loop {
            zw.clear();
            let into_y = Ask {
                hit: Some(hit),
                into: Some(&y),
            };
            g.sweep_in(w, Some(answers), None, into_y, |i, children| {
                let keeps = children.iter().any(|c| {
                    c.won
                        || c.index
                            .is_some_and(|d| y.get(d) && (!hit.of(c) || z.get(d)))
                });
                if keeps {
                    zw.set(i);
                }
            });
            z_next.clear();
            g.sweep_in(l, Some(&y), None, Ask::hits(hit), |i, children| {
                let held = children
                    .iter()
                    .all(|c| c.won || (hit.of(c) && c.index.is_some_and(|d| zw.get(d))));
                if held {
                    z_next.set(i);
                }
            });
            let count = z_next.count();
            if count == z_count {
                break;
            }
            z_count = count;
            z.copy_from(&z_next);
        }
        if z_count == y.count() {
            return y;
        }
        y.copy_from(&z);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph made by hand: per side to move, positions with their successors.
    struct Hand([Vec<(u64, Vec<Child>)>; 2]);

    impl Graph for Hand {
        fn size(&self) -> u64 {
            16
        }

        fn sweep_in(
            &self,
            turn: Color,
            only: Option<&Bits>,
            _cornered: Option<Hit>,
            _ask: Ask,
            f: impl Fn(u64, &[Child]) + Sync,
        ) {
            for (i, children) in &self.0[turn.index()] {
                if only.is_none_or(|b| b.get(*i)) {
                    f(*i, children);
                }
            }
        }
    }

    /// A move into position `to` of the other side, checking or not.
    fn to(to: u64, checks: bool) -> Child {
        Child {
            won: false,
            index: Some(to),
            checks,
            attacks: checks,
        }
    }

    /// A move into a position won for the winner (the loser's other moves).
    const LOSES: Child = Child {
        won: true,
        index: None,
        checks: false,
        attacks: false,
    };

    /// The trap for red as the winner: black's positions (the loser) and red's answers.
    fn trapped(black: &[(u64, Vec<Child>)], red: &[(u64, Vec<Child>)]) -> Vec<u64> {
        let g = Hand([red.to_vec(), black.to_vec()]);
        let t = greatest_trap(&g, Color::Red, Hit::Check);
        (0..16).filter(|&i| t.get(i)).collect()
    }

    /// The quick look for an escape, by target points and the entries they reach, finds
    /// one exactly where the rules engine's legal moves hold one (a quiet move into a
    /// position not won that is no hit), for each side as the loser, on every legal entry
    /// of two endgames built under the whole rule (KRKN has verdicts by rule; in KNKA the
    /// advisor's side never checks, but may chase); and the traps of perpetual check and of
    /// 长打 found from one look at the loser's positions are those found one by one; and the
    /// attractor's quick look calls a position forced exactly where its successors do, and
    /// the sweeps' successors are the legal moves' (each classified as the rules engine
    /// classifies it).
    #[test]
    fn an_escape_is_what_the_legal_moves_say() {
        let dir = std::env::temp_dir().join(format!("canju-escapes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let tb = Tablebase::with_rules(&dir, crate::tablebase::Rules::Asian);
        let (mut found, mut none, mut traps, mut forced) = (0, 0, 0, 0);
        for sig in ["KRKN", "KNKA"] {
            let m: crate::game::material::Material = sig.parse().unwrap();
            crate::tablebase::build::build(
                m,
                &tb,
                &|_| Box::new(crate::tablebase::generate::Silent),
                &mut |_| {},
            )
            .unwrap();
            let table = tb.table(m).unwrap();
            table.load_all().unwrap();
            let layout = table.layout();
            let n = layout.pieces().len();
            for winner in Color::ALL {
                let f = Fixpoint::new(&table, &tb, winner);
                // (and the two traps from one look are each the trap on its own)
                let (check, attack) = greatest_traps(&f, winner);
                let members =
                    |b: &Bits| (0..layout.size()).filter(|&i| b.get(i)).collect::<Vec<_>>();
                assert_eq!(
                    members(&check),
                    members(&greatest_trap(&f, winner, Hit::Check))
                );
                assert_eq!(
                    members(&attack),
                    members(&greatest_trap(&f, winner, Hit::Attack))
                );
                traps += check.count() + attack.count();
                // the attractor's quick look says "forced" exactly where the successors do,
                // once the trap of perpetual check is won
                f.won[(!winner).index()].add(&check);
                let mut squares = [Square::new(0).unwrap(); MAX_PIECES];
                let mut subs = SubTables::new();
                for turn in Color::ALL {
                    for i in 0..layout.size() {
                        if table.code_of_checked(turn, i) == code::ILLEGAL
                            || f.won[turn.index()].get(i)
                            || layout.squares(i, &mut squares).is_none()
                        {
                            continue;
                        }
                        let mut pos = layout.position(i, turn).unwrap();
                        let at = (i, &squares[..n]);
                        // the successors by the rules engine's legal moves, classified as
                        // the sweep of the trap of 长打 asks
                        let next = !turn;
                        let mut reference: Vec<_> = pos
                            .legal_moves()
                            .iter()
                            .map(|&m| {
                                let (won, index) = if pos.piece_at(m.to()).is_some() {
                                    let mut child = pos.clone();
                                    child.play_unchecked(m);
                                    let v = tb.probe(&child).unwrap();
                                    (
                                        if next == winner {
                                            v.is_win()
                                        } else {
                                            v.is_loss()
                                        },
                                        None,
                                    )
                                } else {
                                    let ci = super::super::quiet_child(layout, at, m);
                                    (f.won[next.index()].get(ci), Some(ci))
                                };
                                let checks = !won && pos.gives_check(m);
                                let attacks = !won && crate::game::threat::is_attack(&pos, m);
                                (index, won, checks, attacks)
                            })
                            .collect();
                        let mut children = Vec::new();
                        f.children(&mut pos.clone(), at, &mut children, Ask::hits(Hit::Attack))
                            .unwrap();
                        let mut quick: Vec<_> = children
                            .iter()
                            .map(|c| (c.index, c.won, c.checks, c.attacks))
                            .collect();
                        reference.sort_unstable();
                        quick.sort_unstable();
                        assert_eq!(quick, reference, "{pos}");
                        let want = if turn == winner {
                            reference.iter().any(|c| c.1)
                        } else {
                            !reference.is_empty() && reference.iter().all(|c| c.1)
                        };
                        assert_eq!(f.forced(&mut pos, at, &mut subs).unwrap(), want, "{pos}");
                        forced += u32::from(want);
                    }
                }
                let loser = !winner;
                let mut squares = [Square::new(0).unwrap(); MAX_PIECES];
                for i in 0..layout.size() {
                    if table.code_of_checked(loser, i) == code::ILLEGAL
                        || f.won[loser.index()].get(i)
                        || layout.squares(i, &mut squares).is_none()
                    {
                        continue;
                    }
                    let pos = layout.position(i, loser).unwrap();
                    let at = (i, &squares[..n]);
                    for hit in [Hit::Check, Hit::Attack] {
                        let legal = pos.legal_moves();
                        let want = legal.iter().any(|&m| {
                            pos.piece_at(m.to()).is_none()
                                && !f.won[winner.index()]
                                    .get(super::super::quiet_child(layout, at, m))
                                && match hit {
                                    Hit::Check => !pos.gives_check(m),
                                    Hit::Attack => !crate::game::threat::is_attack(&pos, m),
                                }
                        });
                        let mut played = pos.clone();
                        assert_eq!(f.escapes(&mut played, at, hit), want, "{pos} {hit:?}");
                        // (each move is taken back)
                        assert_eq!(played, pos);
                        if want {
                            found += 1;
                        } else {
                            none += 1;
                        }
                    }
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        // (both answers occur: the test says something)
        assert!(
            found > 1000 && none > 100 && traps > 0 && forced > 100,
            "{found} {none} {traps} {forced}"
        );
    }

    /// The same cycles as the generator's own test, the verifier's fixpoint on its own.
    #[test]
    fn the_verifier_traps_a_quiet_answer_and_not_mutual_checks() {
        // 长将: black's check, red's quiet move back
        let black = vec![(0, vec![to(0, true), LOSES])];
        assert_eq!(trapped(&black, &[(0, vec![to(0, false)])]), [0]);
        // 解将还将: red answers only by checking back
        assert_eq!(
            trapped(&black, &[(0, vec![to(0, true)])]),
            Vec::<u64>::new()
        );
        let black2 = vec![(0, vec![to(0, true), LOSES]), (1, vec![to(1, true)])];
        assert_eq!(
            trapped(&black2, &[(0, vec![to(1, true)]), (1, vec![to(0, true)])]),
            Vec::<u64>::new()
        );
        // red checks back once, then answers quietly
        assert_eq!(
            trapped(&black2, &[(0, vec![to(1, true)]), (1, vec![to(0, false)])]),
            [0, 1]
        );
        // 一将一闲: black has a quiet move that holds: no trap
        let idle = vec![(0, vec![to(0, true), to(1, false)])];
        assert_eq!(
            trapped(&idle, &[(0, vec![to(0, false)]), (1, vec![])]),
            Vec::<u64>::new()
        );
    }
}
