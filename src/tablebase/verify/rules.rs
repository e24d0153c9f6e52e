//! The verifier's own computation of the verdicts by rule: forward sweeps over every entry
//! until nothing changes (see the parent module's text).

use std::sync::atomic::AtomicBool;

use super::*;
use crate::tablebase::bits::Bits;

/// A successor of a position: whether it is won for the winner being checked, where it
/// is in this table (None after a capture), and whether the move into it checks.
#[derive(Clone, Copy)]
struct Child {
    won: bool,
    index: Option<u64>,
    checks: bool,
}

struct Fixpoint<'a> {
    table: &'a Table,
    tb: &'a Tablebase,
    winner: Color,
    /// Per side to move: the entries won for the winner (the winner to move wins, the
    /// loser to move loses).
    won: [Bits; 2],
    failure: Mutex<Option<TableError>>,
}

/// Recomputes the winner's verdicts by rule and compares them with the table's.
pub(super) fn check(table: &Table, tb: &Tablebase, winner: Color) -> Result<(), VerifyError> {
    let layout = table.layout();
    let size = layout.size();
    let loser = !winner;
    let f = Fixpoint {
        table,
        tb,
        winner,
        won: [Bits::new(size), Bits::new(size)],
        failure: Mutex::new(None),
    };
    // the mates, checked entry by entry already
    (0..size).into_par_iter().for_each(|i| {
        if code::is_win(table.code_of_checked(winner, i)) {
            f.won[winner.index()].set(i);
        }
        if code::is_loss(table.code_of_checked(loser, i)) {
            f.won[loser.index()].set(i);
        }
    });
    let trapped = Bits::new(size);
    loop {
        f.attract();
        let trap = f.trap();
        f.failed()?;
        if trap.count() == 0 {
            break;
        }
        trapped.add(&trap);
        f.won[loser.index()].add(&trap);
    }
    // compare, the lowest index first
    for i in 0..size {
        for turn in Color::ALL {
            let c = table.code_of_checked(turn, i);
            if c == code::ILLEGAL {
                continue;
            }
            let stored = if turn == winner {
                code::wins(c)
            } else {
                code::loses(c)
            };
            let found = f.won[turn.index()].get(i);
            let trap_found = turn == loser && trapped.get(i);
            let trap_stored = turn == loser && c == code::rule(0);
            if stored != found || trap_found != trap_stored {
                let reason = if stored != found {
                    format!(
                        "the perpetual-check fixpoint finds it {} for {winner}",
                        if found { "won" } else { "not won" }
                    )
                } else {
                    format!(
                        "the perpetual-check fixpoint finds {loser} {}trapped there",
                        if trap_found { "" } else { "not " }
                    )
                };
                return Err(VerifyError::Disagreement {
                    material: table.header().material.clone(),
                    index: i,
                    side: turn,
                    stored: describe(c),
                    reason,
                    fen: layout
                        .position(i, turn)
                        .map_or_else(|| "(no position)".into(), |p| p.to_string()),
                });
            }
        }
    }
    Ok(())
}

impl Fixpoint<'_> {
    fn failed(&self) -> Result<(), TableError> {
        match self.failure.lock().expect("lock").take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs `f` on every legal entry of `turn`'s side not yet won, with its successors.
    fn sweep(&self, turn: Color, f: impl Fn(u64, &[Child]) + Sync) {
        let layout = self.table.layout();
        let n = layout.pieces().len();
        let chunks = layout.size().div_ceil(CHUNK);
        (0..chunks).into_par_iter().for_each_init(
            || {
                (
                    [Square::new(0).expect("a0"); MAX_PIECES],
                    Position::scratch(),
                    Vec::new(),
                )
            },
            |(squares, pos, children), chunk| {
                let start = chunk * CHUNK;
                let end = (start + CHUNK).min(layout.size());
                for i in start..end {
                    if self.won[turn.index()].get(i)
                        || self.table.code_of_checked(turn, i) == code::ILLEGAL
                        || layout.squares(i, squares).is_none()
                    {
                        continue;
                    }
                    pos.set_placement(layout.pieces(), &squares[..n], turn);
                    children.clear();
                    if let Err(e) = self.children(pos, &squares[..n], children) {
                        let mut slot = self.failure.lock().expect("lock");
                        slot.get_or_insert(e);
                        return;
                    }
                    f(i, children);
                }
            },
        );
    }

    fn children(
        &self,
        pos: &Position,
        squares: &[Square],
        out: &mut Vec<Child>,
    ) -> Result<(), TableError> {
        let layout = self.table.layout();
        let next = !pos.turn();
        for &m in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let checks = child.is_check();
            if pos.piece_at(m.to()).is_some() {
                let v = self.tb.probe(&child)?;
                let won = if next == self.winner {
                    v.is_win()
                } else {
                    v.is_loss()
                };
                out.push(Child {
                    won,
                    index: None,
                    checks,
                });
            } else {
                let mut cs: Squares = [Square::new(0).expect("a0"); MAX_PIECES];
                cs[..squares.len()].copy_from_slice(squares);
                let slot = squares
                    .iter()
                    .position(|&s| s == m.from())
                    .expect("the moving piece");
                cs[slot] = m.to();
                let ci = layout.index(&cs[..squares.len()]);
                out.push(Child {
                    won: self.won[next.index()].get(ci),
                    index: Some(ci),
                    checks,
                });
            }
        }
        Ok(())
    }

    /// Adds, until nothing changes, the winner's positions with a move into a won one and
    /// the loser's positions whose moves all lead into won ones.
    fn attract(&self) {
        loop {
            let changed = AtomicBool::new(false);
            for turn in Color::ALL {
                let won = &self.won[turn.index()];
                self.sweep(turn, |i, children| {
                    let forced = if turn == self.winner {
                        children.iter().any(|c| c.won)
                    } else {
                        !children.is_empty() && children.iter().all(|c| c.won)
                    };
                    if forced {
                        won.set(i);
                        changed.store(true, Relaxed);
                    }
                });
            }
            if !changed.load(Relaxed) {
                return;
            }
        }
    }

    /// The greatest set Y of the loser's positions not won where the loser's every move
    /// that is not a check leads into a won position, and from which the winner, answering
    /// every check, reaches within finitely many checks of its own a move that does not
    /// check and leads back into Y (νY. μZ).
    fn trap(&self) -> Bits {
        let size = self.table.layout().size();
        let (w, l) = (self.winner, !self.winner);
        let y = Bits::new(size);
        self.sweep(l, |i, _| y.set(i));
        let z = Bits::new(size);
        let zw = Bits::new(size);
        let z_next = Bits::new(size);
        loop {
            z.clear();
            let mut z_count = 0;
            loop {
                zw.clear();
                self.sweep(w, |i, children| {
                    let keeps = children.iter().any(|c| {
                        c.won || c.index.is_some_and(|d| y.get(d) && (!c.checks || z.get(d)))
                    });
                    if keeps {
                        zw.set(i);
                    }
                });
                z_next.clear();
                self.sweep(l, |i, children| {
                    if !y.get(i) {
                        return;
                    }
                    let held = children
                        .iter()
                        .all(|c| c.won || (c.checks && c.index.is_some_and(|d| zw.get(d))));
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
}
