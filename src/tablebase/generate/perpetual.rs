//! The perpetual-check rule (长将作负) on top of a finished mate search: the pass that makes
//! a table of rule set `asian`.
//!
//! A forced mate never needs a repetition, so every mate the search found stands, with its
//! distance. Only drawn positions can change. For each colour W in turn, the pass finds the
//! positions W wins under the rule: W reaches mate, or the game goes on forever with the
//! loser L checking on every move from some point on while W does not (when both check on
//! every move it stays a draw; one check and one idle move is allowed). In game terms it is
//! a parity game on the drawn positions, a move's priority being whether it checks, and its
//! solution is built in stages:
//!
//! 1. The attractor: every position from which W forces a position already won (W to move
//!    with a move into a win; L to move with every move into a win). Computed backwards with
//!    a counter per L-to-move position of its moves not yet known to lose, as in the mate
//!    search.
//! 2. The trap: the greatest set of L-to-move positions where every move that does not
//!    check loses, and W answers every check from the set so that, within finitely many of
//!    its own checks, W makes a move that does not check and leads back into the set
//!    (νY. μZ: Y the trap, Z the positions from which W reaches a quiet move into Y while
//!    answering checks within Z). L there must check forever or lose. Only positions where
//!    every quiet escape of L loses can belong, so the search starts from those few.
//! 3. The trap's positions are won for W (a loss by rule for L), and step 1 runs again
//!    from them; the stages repeat until a trap comes out empty.
//!
//! Levels: a rule verdict stores the stage that found it (0 for the first attractor, which
//! only captures into a sub-table's wins by rule can feed; k after the k-th trap). The sets
//! of each stage are unique fixpoints, so the bytes do not depend on the number of threads.
//! There is no distance: a progress measure that lets the winner realise the win needs the
//! stage first and plies within it, which one-byte entries cannot hold.

use super::*;
use crate::tablebase::bits::Bits;

/// Won by rule for the side to move in the stage being computed (generation only).
const PENDING_WIN: u8 = u8::MAX - 1;
/// Lost by rule for the side to move in the stage being computed (generation only).
const PENDING_LOSS: u8 = u8::MAX;
/// In the per-position counter: a capture escapes into a position that does not lose, so
/// the position can never be forced.
const NEVER: u8 = u8::MAX;

/// In a W position's move list: the move checks.
const CHECK_BIT: u32 = 1 << 31;

/// The candidates for a trap and the positions their checks lead to, with the moves
/// between them, in compressed rows (local numbers).
struct TrapGraph {
    l_nodes: Vec<u64>,
    l_off: Vec<u32>,
    /// Per candidate, the W positions its checks lead to.
    l_adj: Vec<u32>,
    /// Per candidate: a move escapes into a position the loser wins.
    l_bad: Vec<bool>,
    w_nodes: Vec<u64>,
    w_off: Vec<u32>,
    /// Per W position, its moves into candidates, [`CHECK_BIT`] set for checks.
    w_adj: Vec<u32>,
}

/// What a winner's stages need besides the values.
struct Work {
    /// Per L-to-move entry: its moves not yet known to lose, or [`NEVER`].
    counter: Vec<AtomicU8>,
    /// L-to-move positions where every move that does not check loses (only grows).
    cand: Bits,
    /// L-to-move positions one of whose moves newly lost since their last look.
    dirty: Bits,
    trap: Bits,
}

/// The candidates of the last stage's trap, still drawn, in index order, in compressed
/// rows: per candidate, the drawn W positions its quiet moves lead to (they can only
/// become won later), and whether a move escapes into a position the loser wins (that
/// stays so). Kept from stage to stage of one winner, so that a candidate's moves are
/// generated once.
#[derive(Default)]
struct Checks {
    nodes: Vec<u64>,
    off: Vec<usize>,
    adj: Vec<u64>,
    bad: Vec<bool>,
}

impl Solver<'_> {
    /// Applies the perpetual-check rule to the finished mate search, both colours as the
    /// winner in turn.
    pub(super) fn apply_perpetual_check(&self, progress: &dyn Progress) -> Result<(), TableError> {
        let size = self.layout.size();
        let work = Work {
            counter: (0..size).map(|_| AtomicU8::new(0)).collect(),
            cand: Bits::new(size),
            dirty: Bits::new(size),
            trap: Bits::new(size),
        };
        for winner in Color::ALL {
            self.rule_wins(winner, &work, progress)?;
        }
        Ok(())
    }

    /// Whether a code of a position with `turn` to move is won for `winner` (by mate, by
    /// rule, or found so in this pass).
    #[inline]
    fn won_for(&self, winner: Color, turn: Color, c: u8) -> bool {
        if turn == winner {
            code::wins(c) || c == PENDING_WIN
        } else {
            code::loses(c) || c == PENDING_LOSS
        }
    }

    /// The index of the position after a quiet move of the position in `s` (entry `index`).
    #[inline]
    fn quiet_child(&self, s: &Scratch, index: u64, m: crate::moves::Move) -> u64 {
        let n = self.pieces.len();
        let slot = s.squares[..n]
            .iter()
            .position(|&q| q == m.from())
            .expect("a moving piece");
        if self.layout.is_general_slot(slot) {
            let mut child = s.squares;
            child[slot] = m.to();
            self.layout.index(&child[..n])
        } else {
            self.layout
                .index_after_move(index, &s.squares[..n], slot, m.to())
        }
    }

    /// Calls `f` with each legal quiet move of the position in `s` (entry `index`) and the
    /// index of the position it leads to, until `f` returns false.
    #[inline]
    fn each_quiet_move(
        &self,
        s: &mut Scratch,
        index: u64,
        mut f: impl FnMut(&mut Scratch, crate::moves::Move, u64) -> bool,
    ) {
        let legality = self.generate_moves(s);
        for k in 0..s.moves.len() {
            let m = s.moves[k];
            if s.pos.piece_at(m.to()).is_some() || !legality.move_is_legal(&s.pos, m) {
                continue;
            }
            let child = self.quiet_child(s, index, m);
            if !f(s, m, child) {
                return;
            }
        }
    }

    /// Whether a move of the position in `s` gives check.
    #[inline]
    fn gives_check(&self, s: &mut Scratch, m: crate::moves::Move) -> bool {
        let mover = s.pos.turn();
        let undo = s.pos.play_unchecked(m);
        let check = s
            .pos
            .in_check_against(!mover, self.attackers[mover.index()]);
        s.pos.undo(m, undo);
        check
    }

    /// Runs `f` on every member of `bits` whose position can be set up, in parallel.
    pub(super) fn for_members(
        &self,
        bits: &Bits,
        turn: Color,
        f: impl Fn(&mut Scratch, u64) + Sync + Send,
    ) {
        (0..self.chunks())
            .into_par_iter()
            .for_each_init(Scratch::new, |s, chunk| {
                let start = (chunk * CHUNK / 64) as usize;
                let end = (((chunk + 1) * CHUNK).min(self.layout.size())).div_ceil(64) as usize;
                for w in start..end {
                    let mut word = bits.0[w].load(Relaxed);
                    while word != 0 {
                        let i = w as u64 * 64 + word.trailing_zeros() as u64;
                        word &= word - 1;
                        if self.set_up(s, i, turn) {
                            f(s, i);
                        }
                    }
                }
            });
    }

    /// Runs `f` on every entry of `turn`'s side whose code is `c`, in parallel.
    fn for_code(&self, turn: Color, c: u8, f: impl Fn(&mut Scratch, u64) + Sync + Send) {
        let cells = self.values[turn.index()];
        (0..self.chunks())
            .into_par_iter()
            .for_each_init(Scratch::new, |s, chunk| {
                let start = chunk * CHUNK;
                let end = (start + CHUNK).min(self.layout.size());
                for i in start..end {
                    if cells[i as usize].load(Relaxed) == c && self.set_up(s, i, turn) {
                        f(s, i);
                    }
                }
            });
    }

    fn rule_wins(&self, w: Color, work: &Work, progress: &dyn Progress) -> Result<(), TableError> {
        let l = !w;
        let mut checks = Checks::default();
        let size = self.layout.size();
        // W to move, a capture into a loss by rule of a sub-table
        self.for_code(w, code::DRAW, |s, i| {
            let legality = self.generate_moves(s);
            for k in 0..s.moves.len() {
                let m = s.moves[k];
                if s.pos.piece_at(m.to()).is_some()
                    && legality.move_is_legal(&s.pos, m)
                    && self.won_for(w, l, self.capture_code_with_rule(s, m))
                {
                    self.values[w.index()][i as usize].store(PENDING_WIN, Relaxed);
                    return;
                }
            }
        });
        let frontier_l = Bits::new(size);
        let frontier_w = Bits::new(size);
        let mut stage = 0;
        let trace = std::env::var_os("CANJU_TRACE").is_some();
        let (mut t_count, mut t_update, mut t_attract, mut t_trap) = (0.0, 0.0, 0.0, 0.0);
        let t = std::time::Instant::now();
        work.dirty.clear();
        let zeros = self.count_moves(w, work, &frontier_l);
        self.check_failed()?;
        if zeros > 0 {
            self.attract(w, work, &frontier_l, &frontier_w);
        }
        t_count += t.elapsed().as_secs_f64();
        // level 0: wins through captures into a sub-table's wins by rule
        self.finish_level(w, 0)?;
        loop {
            let t = std::time::Instant::now();
            self.update_candidates(w, work);
            work.dirty.clear();
            t_update += t.elapsed().as_secs_f64();
            let t = std::time::Instant::now();
            let trapped = self.trap(w, work, &mut checks);
            if trace {
                eprintln!(
                    "  {w} wins, stage {}: {} candidates, {trapped} trapped",
                    stage + 1,
                    work.cand.count(),
                );
            }
            t_trap += t.elapsed().as_secs_f64();
            if trapped == 0 {
                break;
            }
            stage += 1;
            if stage > code::MAX_RULE_LEVEL {
                return Err(TableError::Unsupported(format!(
                    "{}: more than {} levels of perpetual-check traps do not fit one-byte entries",
                    self.layout.material(),
                    code::MAX_RULE_LEVEL
                )));
            }
            self.for_members(&work.trap, l, |_, i| {
                self.values[l.index()][i as usize].store(PENDING_LOSS, Relaxed);
                frontier_l.set(i);
            });
            let t = std::time::Instant::now();
            self.attract(w, work, &frontier_l, &frontier_w);
            t_attract += t.elapsed().as_secs_f64();
            let won = self.finish_level(w, stage)?;
            progress.rule_stage(w, stage, won);
        }
        if trace {
            eprintln!(
                "{}: {w} wins by rule: {stage} levels; counts {t_count:.2} s, candidates' updates {t_update:.2} s, attractor {t_attract:.2} s, traps {t_trap:.2} s",
                self.layout.material(),
            );
        }
        Ok(())
    }

    /// Counts, for every drawn L-to-move position, its moves into positions not yet won for
    /// W (its counter), notes the candidates for a trap (every move that does not check is
    /// lost, no capture escapes) and the positions their checks lead to. Positions with no
    /// such move are lost and go to `frontier`; returns how many.
    fn count_moves(&self, w: Color, work: &Work, frontier: &Bits) -> u64 {
        let l = !w;
        work.cand.clear();
        let zeros = AtomicU64::new(0);
        self.for_code(l, code::DRAW, |s, i| {
            let legality = self.generate_moves(s);
            let mut count = 0u32;
            let mut escape = false;
            let mut quiet_escape = false;
            for k in 0..s.moves.len() {
                let m = s.moves[k];
                if !legality.move_is_legal(&s.pos, m) {
                    continue;
                }
                if s.pos.piece_at(m.to()).is_some() {
                    if !self.won_for(w, w, self.capture_code_with_rule(s, m)) {
                        escape = true;
                        break;
                    }
                    continue;
                }
                let child = self.quiet_child(s, i, m);
                if self.won_for(w, w, self.values[w.index()][child as usize].load(Relaxed)) {
                    continue;
                }
                count += 1;
                if !quiet_escape && !self.gives_check(s, m) {
                    quiet_escape = true;
                }
            }
            let cell = &work.counter[i as usize];
            if escape {
                cell.store(NEVER, Relaxed);
            } else if count == 0 {
                self.values[l.index()][i as usize].store(PENDING_LOSS, Relaxed);
                frontier.set(i);
                zeros.fetch_add(1, Relaxed);
            } else if count >= NEVER as u32 {
                self.fail(TableError::Unsupported(format!(
                    "{}: entry {i} has {count} moves, outside the generator's counters",
                    self.layout.material()
                )));
            } else {
                cell.store(count as u8, Relaxed);
                if !quiet_escape {
                    work.cand.set(i);
                }
            }
        });
        zeros.load(Relaxed)
    }

    /// Looks again at the positions one of whose moves newly lost: a candidate for a trap
    /// once none of its moves that do not check is left.
    fn update_candidates(&self, w: Color, work: &Work) {
        let l = !w;
        self.for_members(&work.dirty, l, |s, i| {
            if work.cand.get(i)
                || self.values[l.index()][i as usize].load(Relaxed) != code::DRAW
                || work.counter[i as usize].load(Relaxed) == NEVER
            {
                return;
            }
            let mut escapes = false;
            self.each_quiet_move(s, i, |s, m, child| {
                let c = self.values[w.index()][child as usize].load(Relaxed);
                escapes = !self.won_for(w, w, c) && !self.gives_check(s, m);
                !escapes
            });
            if !escapes {
                work.cand.set(i);
            }
        });
    }

    /// Gives the positions won for W in this stage their codes at `level`; returns how many.
    fn finish_level(&self, w: Color, level: u32) -> Result<u64, TableError> {
        let won = AtomicU64::new(0);
        for (turn, pending, win) in [(w, PENDING_WIN, true), (!w, PENDING_LOSS, false)] {
            self.values[turn.index()].par_iter().for_each(|c| {
                if c.load(Relaxed) == pending {
                    c.store(code::rule(level, win), Relaxed);
                    won.fetch_add(1, Relaxed);
                }
            });
        }
        self.check_failed()?;
        Ok(won.load(Relaxed))
    }

    /// Closes the set won for W under forcing: walks back from the newly won positions
    /// until none is added.
    fn attract(&self, w: Color, work: &Work, frontier_l: &Bits, frontier_w: &Bits) {
        let l = !w;
        loop {
            // newly lost L-to-move positions: their W-to-move predecessors win
            frontier_w.clear();
            let parents_w = self.values[w.index()];
            self.for_members(frontier_l, l, |s, i| {
                let found = self.collect_parents(s, i, l, parents_w);
                for &p in &found {
                    if parents_w[p as usize]
                        .compare_exchange(code::DRAW, PENDING_WIN, Relaxed, Relaxed)
                        .is_ok()
                    {
                        frontier_w.set(p);
                    }
                }
                s.parents = found;
            });
            if frontier_w.count() == 0 {
                frontier_l.clear();
                return;
            }
            // newly won W-to-move positions: one more move of each predecessor loses
            frontier_l.clear();
            let parents_l = self.values[l.index()];
            self.for_members(frontier_w, w, |s, i| {
                // L's move into i checks when W stands in check in i: a lost check does
                // not change whether L is a candidate for a trap
                let quiet = !s.pos.in_check_against(w, self.attackers[l.index()]);
                let found = self.collect_parents(s, i, w, parents_l);
                for &p in &found {
                    if parents_l[p as usize].load(Relaxed) != code::DRAW {
                        continue;
                    }
                    let cell = &work.counter[p as usize];
                    let mut c = cell.load(Relaxed);
                    while c != NEVER && c != 0 {
                        match cell.compare_exchange(c, c - 1, Relaxed, Relaxed) {
                            Ok(_) => {
                                if c == 1 {
                                    parents_l[p as usize].store(PENDING_LOSS, Relaxed);
                                    frontier_l.set(p);
                                } else if quiet {
                                    work.dirty.set(p);
                                }
                                break;
                            }
                            Err(now) => c = now,
                        }
                    }
                }
                s.parents = found;
            });
            if frontier_l.count() == 0 {
                return;
            }
        }
    }

    /// The trap (νY. μZ, see the module's text) among the candidates; leaves it in
    /// `work.trap` and returns its size. The candidates, the positions their checks lead
    /// to and the moves between them are gathered into a compact graph first, so that the
    /// fixpoint's sweeps do not generate moves.
    fn trap(&self, w: Color, work: &Work, checks: &mut Checks) -> u64 {
        let graph = self.trap_graph(w, work, checks);
        let nl = graph.l_nodes.len();
        let mut y: Vec<bool> = graph.l_bad.iter().map(|&b| !b).collect();
        loop {
            let mut z = vec![false; nl];
            loop {
                let zw: Vec<bool> = (0..graph.w_nodes.len())
                    .into_par_iter()
                    .map(|j| {
                        graph.w_adj[graph.w_off[j] as usize..graph.w_off[j + 1] as usize]
                            .iter()
                            .any(|&e| {
                                let d = (e & !CHECK_BIT) as usize;
                                y[d] && (e & CHECK_BIT == 0 || z[d])
                            })
                    })
                    .collect();
                let next: Vec<bool> = (0..nl)
                    .into_par_iter()
                    .map(|i| {
                        y[i] && graph.l_adj[graph.l_off[i] as usize..graph.l_off[i + 1] as usize]
                            .iter()
                            .all(|&c| zw[c as usize])
                    })
                    .collect();
                if next == z {
                    break;
                }
                z = next;
            }
            if z == y {
                break;
            }
            y = z;
        }
        work.trap.clear();
        let mut size = 0;
        for (i, &t) in y.iter().enumerate() {
            if t {
                work.trap.set(graph.l_nodes[i]);
                size += 1;
            }
        }
        size
    }

    /// The candidates still drawn (L to move), the drawn positions their checks lead to
    /// (W to move), and the moves: each candidate's checks, each W position's moves into a
    /// candidate with whether they check.
    fn trap_graph(&self, w: Color, work: &Work, checks: &mut Checks) -> TrapGraph {
        let l = !w;
        let l_nodes: Vec<u64> = self.members(&work.cand, |i| {
            self.values[l.index()][i as usize].load(Relaxed) == code::DRAW
        });
        // the candidates' checks: from the last stage's rows where they are there (keeping
        // the successors still drawn), by move generation for the new candidates
        let cached: &Checks = checks;
        let parts: Vec<(Vec<u32>, Vec<u64>, Vec<bool>)> = l_nodes
            .par_chunks(4096)
            .map_init(Scratch::new, |s, chunk| {
                let (mut lens, mut adj, mut bad) = (Vec::new(), Vec::new(), Vec::new());
                for &i in chunk {
                    let before = adj.len();
                    if let Ok(k) = cached.nodes.binary_search(&i) {
                        adj.extend(cached.adj[cached.off[k]..cached.off[k + 1]].iter().filter(
                            |&&child| {
                                self.values[w.index()][child as usize].load(Relaxed) == code::DRAW
                            },
                        ));
                        lens.push((adj.len() - before) as u32);
                        bad.push(cached.bad[k]);
                        continue;
                    }
                    let mut escapes = false;
                    if self.set_up(s, i, l) {
                        self.each_quiet_move(s, i, |_, _, child| {
                            let c = self.values[w.index()][child as usize].load(Relaxed);
                            if c == code::DRAW {
                                adj.push(child);
                            } else if !self.won_for(w, w, c) {
                                escapes = true;
                            }
                            true
                        });
                    }
                    lens.push((adj.len() - before) as u32);
                    bad.push(escapes);
                }
                (lens, adj, bad)
            })
            .collect();
        // kept for the next stage
        checks.nodes.clone_from(&l_nodes);
        checks.off.clear();
        checks.off.push(0);
        checks.adj.clear();
        checks.bad.clear();
        for (lens, adj, bad) in &parts {
            let mut at = checks.off.last().copied().unwrap_or(0);
            for &n in lens {
                at += n as usize;
                checks.off.push(at);
            }
            checks.adj.extend_from_slice(adj);
            checks.bad.extend_from_slice(bad);
        }
        let mut w_nodes: Vec<u64> = parts.iter().flat_map(|p| p.1.iter().copied()).collect();
        w_nodes.par_sort_unstable();
        w_nodes.dedup();
        let local_w = |x: u64| w_nodes.binary_search(&x).expect("a listed W position") as u32;
        let mut l_off = vec![0u32];
        let mut l_adj = Vec::new();
        let mut l_bad = Vec::new();
        for (lens, adj, bad) in &parts {
            let mut at = 0;
            for &n in lens {
                l_adj.extend(adj[at..at + n as usize].iter().map(|&x| local_w(x)));
                at += n as usize;
                l_off.push(l_adj.len() as u32);
            }
            l_bad.extend_from_slice(bad);
        }
        drop(parts);
        // the W positions' moves into candidates
        let parts: Vec<(Vec<u32>, Vec<u32>)> = w_nodes
            .par_chunks(4096)
            .map_init(Scratch::new, |s, chunk| {
                let (mut lens, mut adj) = (Vec::new(), Vec::new());
                for &i in chunk {
                    let before = adj.len();
                    if self.set_up(s, i, w) {
                        self.each_quiet_move(s, i, |s, m, child| {
                            // the candidates' bits first: most moves lead elsewhere
                            if !work.cand.get(child) {
                                return true;
                            }
                            if let Ok(d) = l_nodes.binary_search(&child) {
                                let check = if self.gives_check(s, m) { CHECK_BIT } else { 0 };
                                adj.push(d as u32 | check);
                            }
                            true
                        });
                    }
                    lens.push((adj.len() - before) as u32);
                }
                (lens, adj)
            })
            .collect();
        let mut w_off = vec![0u32];
        let mut w_adj = Vec::new();
        for (lens, adj) in &parts {
            let mut at = 0;
            for &n in lens {
                w_adj.extend_from_slice(&adj[at..at + n as usize]);
                at += n as usize;
                w_off.push(w_adj.len() as u32);
            }
        }
        TrapGraph {
            l_nodes,
            l_off,
            l_adj,
            l_bad,
            w_nodes,
            w_off,
            w_adj,
        }
    }

    /// The members of a set that pass a test, in index order.
    fn members(&self, bits: &Bits, keep: impl Fn(u64) -> bool + Sync) -> Vec<u64> {
        bits.0
            .par_iter()
            .enumerate()
            .flat_map_iter(|(w, word)| {
                let mut word = word.load(Relaxed);
                let mut out = Vec::new();
                while word != 0 {
                    let i = w as u64 * 64 + word.trailing_zeros() as u64;
                    word &= word - 1;
                    if keep(i) {
                        out.push(i);
                    }
                }
                out
            })
            .collect()
    }
}
