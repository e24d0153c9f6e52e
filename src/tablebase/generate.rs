//! The retrograde solver.
//!
//! One byte per position and side to move. After an initial forward pass (game ends,
//! captures into the already-built sub-tables, counts of quiet moves), the solver works in
//! layers of plies: from the positions lost in n−1 it walks un-moves back and marks their
//! predecessors won in n; from the positions won in n−1 it walks back and counts down the
//! predecessors' quiet moves not yet known to lose, and a predecessor whose count reaches
//! zero is lost (in 1 + its longest reply). Positions never decided are draws.
//!
//! Each layer is a parallel pass over the index in chunks. Every value written in a layer is
//! fixed by the previous layers alone, so the result is the same bytes for any number of
//! threads.
//!
//! Any distance: an entry decided in [`code::FAR_FROM`] plies or more holds a far code and
//! its distance goes into a side list (the far list), whose entries of a distance are that
//! layer's frontier. Such entries are the tail of a table, so the list stays small beside
//! the entries. A table whose distances all fit a byte gets its far entries back as plain
//! codes and is the same bytes as without the list; one that does not is written wide
//! (format 3, see [`super::far`]).

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

mod checkpoint;
mod conversion;
mod perpetual;
mod wide;

pub use checkpoint::{Checkpoints, Phase, Resumed};

pub use conversion::{ConversionFlags, conversion_flags};

use super::bits::Bits;
use super::format::{Clauses, Header, Rules, SideStats, TableError};
use super::index::{self, Layout, MAX_PIECES, Squares};
use super::probe::{Table, Tablebase};
use super::value::code;
use crate::game::material::Material;
use crate::game::movegen::{Attackers, Legality};
use crate::game::moves::{Move, MoveList};
use crate::game::piece::{Color, Piece};
use crate::game::position::Position;
use crate::game::square::Square;

/// Generation-only codes above the stored range: `COUNT + c` = undecided, c quiet moves not
/// yet known to lose for the mover; `UNCOUNTED` = undecided, can still lose, quiet moves
/// not counted yet (they are counted when the first of them is found to lose).
const COUNT: u8 = code::MAX_STORED + 1;
const UNCOUNTED: u8 = u8::MAX;
const MAX_COUNT: u32 = (UNCOUNTED - 1 - COUNT) as u32;

const CHUNK: u64 = 1 << 14;
/// Entries per bit of a layer's frontier: the walk looks inside the groups marked.
const GROUP: usize = 8;
/// Entries per 64-bit word of a frontier.
const GROUP_WORD: usize = 64 * GROUP;

/// The test hook that moves where the far list starts, so that small tables take the wide
/// path: `CANJU_WIDE_FROM=N` keeps every distance of at least N plies (N ≥ 2) in the far
/// list, and a table with such a distance is written wide.
const WIDE_FROM_VAR: &str = "CANJU_WIDE_FROM";

/// The entries decided in `far_from` plies or more while a table is built.
#[derive(Default)]
struct Far {
    /// The distance of every entry holding a far code, by key ([`super::far::key`]).
    plies: std::collections::HashMap<u64, u32>,
    /// Keys by the distance they were given: a layer's frontier beyond `far_from` (a key
    /// whose distance changed since is passed over).
    by_plies: std::collections::HashMap<u32, Vec<u64>>,
}

/// A capture leads into another table: which one, whether colours flip, and where each of
/// its slots comes from in this table's slot order.
struct CaptureTarget {
    table: Arc<Table>,
    flipped: bool,
    from_slot: Vec<usize>,
}

/// Progress reports from the solver.
pub trait Progress: Sync {
    /// `done` of `total` work units of the initial pass.
    fn init(&self, done: u64, total: u64);
    /// A layer finished: plies, positions decided so far.
    fn layer(&self, plies: u32, decided: u64);
    /// The perpetual-check pass (asian tables): a stage of the given side's wins by rule
    /// finished, with the positions it found (both sides to move).
    fn rule_stage(&self, _winner: Color, _stage: u32, _won: u64) {}
    /// A line for the user: the build resumed from a checkpoint, or a checkpoint could not
    /// be used or written.
    fn note(&self, _text: &str) {}
    /// Whether the build is to stop (its caller was interrupted): asked between chunks of
    /// the first pass, after each layer and after each stage of the rule's pass, so that a
    /// build stops within a fraction of a second on tables of the size Python builds, with
    /// [`TableError::Stopped`]; the checkpoints written so far resume it later.
    fn stopped(&self) -> bool {
        false
    }
}

/// [`TableError::Stopped`] when `progress` says the build is to stop.
pub(crate) fn check_stopped(progress: &dyn Progress, material: Material) -> Result<(), TableError> {
    if progress.stopped() {
        return Err(TableError::Stopped { material });
    }
    Ok(())
}

/// No progress output.
pub struct Silent;

impl Progress for Silent {
    fn init(&self, _: u64, _: u64) {}
    fn layer(&self, _: u32, _: u64) {}
}

/// A finished table in memory.
pub struct Solved {
    /// The header with the counts.
    pub header: Header,
    /// Red to move's entries.
    pub red: Vec<u8>,
    /// Black to move's entries.
    pub black: Vec<u8>,
    /// The distances that do not fit a byte (empty unless the table is wide).
    pub far: super::far::FarList,
}

/// The retrograde solver of one table: its layout, the sub-tables captures lead into, and
/// the arrays of the passes over the index.
struct Retrograde<'a> {
    layout: Layout,
    pieces: Vec<Piece>,
    black_general: usize,
    /// Per captured slot (None for the generals).
    captures: Vec<Option<CaptureTarget>>,
    values: [&'a [AtomicU8]; 2],
    /// The groups of [`GROUP`] entries that hold the positions the current layer walks
    /// back from, one bit a group, per side to move (empty once the mate search is done:
    /// see [`Retrograde::release_layer_sets`]).
    frontier: [Bits; 2],
    /// The groups given the next layer's frontier while the current layer runs (entries
    /// decided in the current layer's own number of plies), one bit a group, per side to
    /// move.
    next: [Bits; 2],
    /// Two sets of entries, one bit each, per side to move, for the perpetual-check pass
    /// (empty in a table without the rule).
    found: [&'a Bits; 2],
    /// Per chunk, the decided codes stored in it ahead of their layer (both sides): by the
    /// forward pass, or by a layer with a longer distance than its own (a loss whose
    /// longest reply is a capture). A layer scans only the chunks whose summary holds its
    /// code; elsewhere its frontier is what the previous layer marked in `next`.
    ahead: Vec<[AtomicU64; 4]>,
    /// The attackers each side has (indexed by colour), for quick legality tests.
    attackers: [Attackers; 2],
    failure: Mutex<Option<TableError>>,
    failed: AtomicBool,
    max_plies: AtomicU32,
    /// Whether the sub-tables hold verdicts by rule (asian tables).
    rules: Rules,
    /// Under [`Rules::Asian`], the kinds of 打 counted (all but for a measurement).
    clauses: Clauses,
    /// Set while a pass of the whole rule looks for the traps of perpetual check alone
    /// first (see `perpetual`): no move is 杀 or 捉 meanwhile.
    checks_first: AtomicBool,
    /// Distances from here on are kept in `far` ([`code::FAR_FROM`] but for tests).
    far_from: u32,
    far: Mutex<Far>,
}

struct Scratch {
    pos: Position,
    squares: Squares,
    /// Whether `pos` holds the placement in `squares` as [`Retrograde::set_up`] decoded it
    /// last, with `decode` reusing it: then the next set-up moves only what changed.
    placed: bool,
    decode: index::DecodeCache,
    moves: MoveList,
    /// Predecessor indices of the entry being walked back from (reused, not reallocated).
    parents: Vec<u64>,
    /// The un-move that leads from each of `parents` to that entry, in the same order.
    unmoves: Vec<Move>,
    /// A row of indices being gathered (reused, not reallocated).
    row: Vec<u64>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            pos: Position::scratch(),
            squares: [Square::new(0).expect("a0"); MAX_PIECES],
            placed: false,
            decode: index::DecodeCache::default(),
            moves: MoveList::new(),
            parents: Vec::with_capacity(256),
            unmoves: Vec::with_capacity(256),
            row: Vec::with_capacity(64),
        }
    }
}

/// Views a byte vector as atomics for shared writing.
fn atomic_view(bytes: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the same size, alignment and bit validity as u8, and the
    // exclusive borrow guarantees no other access for the lifetime of the view.
    unsafe { &*(bytes as *mut [u8] as *const [AtomicU8]) }
}

/// Builds the table of a canonical material; its capture sub-tables must be in `tb`.
///
/// On Linux with glibc, a build under a rule set with a perpetual rule asks the allocator,
/// for the rest of the process, to map every allocation of a megabyte or more on its own
/// (`mallopt(M_MMAP_THRESHOLD)`), so that the pass's large vectors grow in place and go back
/// to the system when freed.
pub fn solve(
    material: Material,
    tb: &Tablebase,
    progress: &dyn Progress,
) -> Result<Solved, TableError> {
    solve_resumable(material, tb, progress, None)
}

/// [`solve`], writing checkpoints as it goes and, when `checkpoints` holds one that fits,
/// resuming from it (and saying so through `progress`). The table is the same bytes
/// however often the build was stopped and resumed.
pub fn solve_resumable(
    material: Material,
    tb: &Tablebase,
    progress: &dyn Progress,
    checkpoints: Option<&Checkpoints>,
) -> Result<Solved, TableError> {
    let layout = Layout::new(material).ok_or_else(|| {
        TableError::Unsupported(format!("{material}: more than {MAX_PIECES} pieces"))
    })?;
    let size = layout.size() as usize;
    let mut red = vec![0u8; size];
    let mut black = vec![0u8; size];
    let resumed = match checkpoints.map(|c| (c, c.load(&mut red, &mut black))) {
        None | Some((_, Ok(None))) => None,
        Some((c, Ok(Some(r)))) => {
            progress.note(&format!(
                "{material}: resuming after {} from its checkpoint {}",
                r.phase,
                c.path().display()
            ));
            Some(r)
        }
        Some((c, Err(why))) => {
            progress.note(&format!(
                "{material}: the checkpoint {} is of no use ({why}); starting over",
                c.path().display()
            ));
            c.remove();
            red.fill(0);
            black.fill(0);
            None
        }
    };
    let far = with_solver(
        material,
        tb,
        &mut red,
        &mut black,
        Clauses::WHOLE,
        |solver| {
            let from = resumed.as_ref().map(|r| r.phase);
            if let Some(r) = resumed {
                solver.max_plies.store(r.max_plies, Relaxed);
                solver.summarize_ahead();
                solver.resume_far(r.far);
            }
            if from.is_none_or(|p| p < Phase::Mated) {
                let checkpoint = solver.checkpointer(checkpoints, progress);
                solver.run(progress, from, &checkpoint)?;
                // undecided positions are draws when endless play is a draw; under the
                // perpetual-check rule, black's keep their counters for the pass with red as
                // the winner, which starts from them (it makes them draws)
                let keep = usize::from(solver.rules.judges_repetition());
                for side in &solver.values[..2 - keep] {
                    solver.undecided_to_draws(side);
                }
                checkpoint(Phase::Mated)?;
            }
            if solver.rules.judges_repetition() {
                solver.release_layer_sets();
                let checkpoint = solver.checkpointer(checkpoints, progress);
                let red_done = from == Some(Phase::RedRuleWins);
                solver.apply_perpetual_check(progress, red_done, &checkpoint)?;
            }
            Ok(solver.far_entries())
        },
    )?;
    let far_from = wide_from();
    finish(material, red, black, far, far_from, tb.rules())
}

/// A table's values under the whole rule with one of its clauses left out (see
/// [`solve_with_clauses`]): a measurement, never a table to write.
pub struct ClauseValues {
    /// The kinds of 打 counted.
    pub clauses: Clauses,
    /// Red to move's entries, coded as a table's.
    pub red: Vec<u8>,
    /// Black to move's entries.
    pub black: Vec<u8>,
}

/// Solves a canonical material under the whole 长打 rule counting only the kinds of 打 in
/// `clauses` (and 将), with the capture sub-tables from `tb`, which must be of rule set
/// `asian`: what 杀 alone or 捉 alone decides. Its sub-tables' verdicts stay those of the
/// whole rule. No checkpoint is written and nothing is kept on disk.
pub fn solve_with_clauses(
    material: Material,
    tb: &Tablebase,
    progress: &dyn Progress,
    clauses: Clauses,
) -> Result<ClauseValues, TableError> {
    if tb.rules() != Rules::Asian {
        return Err(TableError::Unsupported(format!(
            "{material}: the clauses of 长打 are those of rule set asian, not {}",
            tb.rules()
        )));
    }
    let layout = Layout::new(material).ok_or_else(|| {
        TableError::Unsupported(format!("{material}: more than {MAX_PIECES} pieces"))
    })?;
    let size = layout.size() as usize;
    let (mut red, mut black) = (vec![0u8; size], vec![0u8; size]);
    let far = with_solver(material, tb, &mut red, &mut black, clauses, |solver| {
        solver.run(progress, None, &|_: Phase| Ok(()))?;
        solver.undecided_to_draws(solver.values[Color::Red.index()]);
        solver.release_layer_sets();
        solver.apply_perpetual_check(progress, false, &|_: Phase| Ok(()))?;
        Ok(solver.far_entries())
    })?;
    let solved = finish(material, red, black, far, wide_from(), tb.rules())?;
    Ok(ClauseValues {
        clauses,
        red: solved.red,
        black: solved.black,
    })
}

/// Runs `f` on a solver of a canonical material over the given values (one byte per
/// entry, red to move and black to move), with the capture sub-tables from `tb`.
fn with_solver<R>(
    material: Material,
    tb: &Tablebase,
    red: &mut [u8],
    black: &mut [u8],
    clauses: Clauses,
    f: impl FnOnce(&mut Retrograde) -> Result<R, TableError>,
) -> Result<R, TableError> {
    let layout = Layout::new(material).ok_or_else(|| {
        TableError::Unsupported(format!("{material}: more than {MAX_PIECES} pieces"))
    })?;
    let pieces = layout.pieces().to_vec();
    let black_general = layout.black_general_slot();
    let mut captures = Vec::new();
    for (j, p) in pieces.iter().enumerate() {
        if p.kind == crate::game::piece::Kind::General {
            captures.push(None);
            continue;
        }
        let rest: Vec<usize> = (0..pieces.len()).filter(|&i| i != j).collect();
        let child = material.without(*p);
        let flipped = !child.is_canonical();
        let table = tb.table(child.canonical())?;
        // a sub-table is trusted only once every block of it has been checked; its entries
        // are read through the threads' caches of decompressed blocks from then on, so that
        // it is never held decompressed whole
        table.check_all()?;
        // slot order of the sub-table: its red side first
        let first = if flipped { Color::Black } else { Color::Red };
        let from_slot: Vec<usize> = [first, !first]
            .iter()
            .flat_map(|&c| {
                rest.iter()
                    .copied()
                    .filter(|&i| pieces[i].color == c)
                    .collect::<Vec<_>>()
            })
            .collect();
        captures.push(Some(CaptureTarget {
            table,
            flipped,
            from_slot,
        }));
    }
    let size = layout.size() as usize;
    let layout_size_chunks = layout.size().div_ceil(CHUNK) as usize;
    // the perpetual-check pass alone needs a bit per entry
    let bits = if tb.rules().judges_repetition() {
        size
    } else {
        0
    };
    let found_red = Bits::new(bits as u64);
    let found_black = Bits::new(bits as u64);
    let groups = size.div_ceil(GROUP) as u64;
    let mut solver = Retrograde {
        layout,
        pieces,
        black_general,
        captures,
        values: [atomic_view(red), atomic_view(black)],
        found: [&found_red, &found_black],
        frontier: [Bits::new(groups), Bits::new(groups)],
        next: [Bits::new(groups), Bits::new(groups)],
        ahead: (0..layout_size_chunks)
            .map(|_| std::array::from_fn(|_| AtomicU64::new(0)))
            .collect(),
        attackers: [Attackers::of(&material.red), Attackers::of(&material.black)],
        failure: Mutex::new(None),
        failed: AtomicBool::new(false),
        max_plies: AtomicU32::new(0),
        rules: tb.rules(),
        clauses,
        checks_first: AtomicBool::new(false),
        far_from: wide_from(),
        far: Mutex::new(Far::default()),
    };
    f(&mut solver)
}

/// Asks the processor to start loading the cells about to be updated, so that their
/// cache misses overlap instead of following one another.
#[inline(always)]
fn prefetch(cells: &[AtomicU8], indices: &[u64]) {
    for &i in indices {
        if let Some(cell) = cells.get(i as usize) {
            crate::prefetch::prefetch(cell.as_ptr());
        }
    }
}

/// Where the far list starts: [`code::FAR_FROM`], or lower when the test hook asks.
fn wide_from() -> u32 {
    std::env::var(WIDE_FROM_VAR)
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(code::FAR_FROM, |n| n.clamp(2, code::FAR_FROM))
}

impl Retrograde<'_> {
    fn fail(&self, e: TableError) {
        self.failed.store(true, Relaxed);
        let mut f = self.failure.lock().expect("lock");
        if f.is_none() {
            *f = Some(e);
        }
    }

    /// Gives back the mate search's layer sets ([`Retrograde::frontier`] and
    /// [`Retrograde::next`]) once it is done: the rule pass does not use them, and its
    /// peak is the build's.
    fn release_layer_sets(&mut self) {
        self.frontier = [Bits::new(0), Bits::new(0)];
        self.next = [Bits::new(0), Bits::new(0)];
    }

    /// What a build calls after each phase: writes a checkpoint when `checkpoints` is
    /// given.
    fn checkpointer<'s>(
        &'s self,
        checkpoints: Option<&'s Checkpoints>,
        progress: &'s dyn Progress,
    ) -> impl Fn(Phase) -> Result<(), TableError> + 's {
        move |phase: Phase| match checkpoints {
            Some(c) => c.after(
                phase,
                self.max_plies.load(Relaxed),
                self.values,
                &|| self.far_entries(),
                &|t| progress.note(t),
            ),
            None => Ok(()),
        }
    }

    /// Stores a code for `turn` to move, found by the layer of `plies`, and notes where the
    /// layer of its code will find it: in `next` when it is decided in `plies` (the next
    /// layer's frontier, unless that layer reads the far list), else in its chunk's summary.
    #[inline]
    fn store(&self, turn: Color, index: u64, c: u8, plies: u32) {
        self.values[turn.index()][index as usize].store(c, Relaxed);
        let (word, bit) = if plies < self.far_from && c == code::decided(plies) {
            let group = index as usize / GROUP;
            (&self.next[turn.index()].0[group / 64], 1u64 << (group % 64))
        } else {
            (
                &self.ahead[(index / CHUNK) as usize][(c / 64) as usize],
                1u64 << (c % 64),
            )
        };
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    fn chunks(&self) -> u64 {
        self.layout.size().div_ceil(CHUNK)
    }

    /// Makes the undecided positions of a side (with a counter of quiet moves, or not yet
    /// counted) draws.
    fn undecided_to_draws(&self, side: &[AtomicU8]) {
        side.par_iter().for_each(|c| {
            if c.load(Relaxed) >= COUNT {
                c.store(code::DRAW, Relaxed);
            }
        });
    }

    /// Sets every chunk's summary from the entries, every code counting as stored ahead
    /// (a resumed build, whose `next` is empty).
    fn summarize_ahead(&self) {
        self.ahead
            .par_iter()
            .enumerate()
            .for_each(|(chunk, words)| {
                let start = chunk * CHUNK as usize;
                let end = (start + CHUNK as usize).min(self.layout.size() as usize);
                let mut seen = [0u64; 4];
                for side in &self.values {
                    for c in &side[start..end] {
                        let c = c.load(Relaxed);
                        seen[(c / 64) as usize] |= 1 << (c % 64);
                    }
                }
                for (word, bits) in words.iter().zip(seen) {
                    word.store(bits, Relaxed);
                }
            });
    }

    /// The mate search: the forward pass, then the layers; from the phase after `from`
    /// when resuming. `checkpoint` runs after each phase.
    fn run(
        &self,
        progress: &dyn Progress,
        from: Option<Phase>,
        checkpoint: &dyn Fn(Phase) -> Result<(), TableError>,
    ) -> Result<(), TableError> {
        let total = self.chunks();
        let done = AtomicU64::new(0);
        // CANJU_TRACE=1 prints the time of each phase (for tuning)
        let trace = std::env::var_os("CANJU_TRACE").is_some();
        let t0 = std::time::Instant::now();
        if from.is_none() {
            (0..total)
                .into_par_iter()
                .for_each_init(Scratch::new, |s, chunk| {
                    if self.failed.load(Relaxed) || progress.stopped() {
                        return;
                    }
                    self.init_chunk(s, chunk);
                    let d = done.fetch_add(1, Relaxed) + 1;
                    if d.is_multiple_of(64) || d == total {
                        progress.init(d, total);
                    }
                });
            self.check_failed()?;
            check_stopped(progress, self.layout.material())?;
            checkpoint(Phase::Init)?;
        }
        let t_init = t0.elapsed().as_secs_f64();
        let (mut t_scan, mut t_walk) = (0.0, 0.0);
        let mut plies = match from {
            Some(Phase::Layer(p)) => p + 1,
            _ => 1u32,
        };
        let decided = AtomicU64::new(0);
        while plies <= self.max_plies.load(Relaxed) + 1 {
            let t1 = std::time::Instant::now();
            let want = code::decided(plies - 1);
            let far = (plies > self.far_from).then(|| self.far_frontier(plies - 1));
            if far.is_none() {
                // (most chunks only copy bits: a task of one costs more than its work)
                (0..total as usize)
                    .into_par_iter()
                    .with_min_len(16)
                    .for_each(|chunk| self.frontier_chunk(chunk as u64, want));
            }
            let t2 = std::time::Instant::now();
            match far {
                Some(keys) => {
                    decided.fetch_add(keys.len() as u64, Relaxed);
                    keys.par_iter().for_each_init(Scratch::new, |s, &k| {
                        let (turn, i) = super::far::unkey(k);
                        let parents = &self.values[(!turn).index()];
                        self.walk_back(s, i, turn, parents, plies);
                    })
                }
                None => (0..total)
                    .into_par_iter()
                    .for_each_init(Scratch::new, |s, chunk| {
                        let n = self.layer_chunk(s, chunk, want, plies);
                        decided.fetch_add(n, Relaxed);
                    }),
            }
            t_scan += (t2 - t1).as_secs_f64();
            t_walk += t2.elapsed().as_secs_f64();
            self.check_failed()?;
            progress.layer(plies, decided.load(Relaxed));
            check_stopped(progress, self.layout.material())?;
            checkpoint(Phase::Layer(plies))?;
            plies += 1;
        }
        if trace {
            eprintln!(
                "{}: init {t_init:.2} s, scans {t_scan:.2} s, walks {t_walk:.2} s, {} layers; peak {} MB",
                self.layout.material(),
                plies - 1,
                crate::system::peak_memory().unwrap_or(0) >> 20,
            );
        }
        Ok(())
    }

    fn check_failed(&self) -> Result<(), TableError> {
        match self.failure.lock().expect("lock").take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn note_plies(&self, n: u32) {
        self.max_plies.fetch_max(n, Relaxed);
    }

    fn init_chunk(&self, s: &mut Scratch, chunk: u64) {
        let start = chunk * CHUNK;
        let end = (start + CHUNK).min(self.layout.size());
        let n = self.pieces.len();
        let mut decoder = index::Decoder::new(&self.layout);
        // (this pass places `s.pos` its own way)
        s.placed = false;
        let mut placed = s.squares;
        // the placement `s.pos` holds, once it holds one of this chunk's
        let mut on_board: Option<Squares> = None;
        let mut seen = [0u64; 4];
        for i in start..end {
            let ok = decoder.squares(i, &mut placed);
            s.squares = placed;
            if ok.is_none() {
                for side in &self.values {
                    side[i as usize].store(code::ILLEGAL, Relaxed);
                }
                continue;
            }
            // (nothing below moves a piece of `s.pos`)
            let before = on_board.as_ref().map(|b| &b[..n]);
            s.pos
                .replace_placement(&self.pieces, before, &placed[..n], Color::Red);
            on_board = Some(placed);
            // whether each general is attacked: an illegal entry for the other side to
            // move, a check for its own side
            let attacked =
                Color::ALL.map(|c| s.pos.in_check_against(c, self.attackers[(!c).index()]));
            for turn in Color::ALL {
                if turn == Color::Black {
                    s.pos.pass_turn();
                }
                let c = if attacked[(!turn).index()] {
                    code::ILLEGAL
                } else {
                    self.initial_code(s, i, turn, attacked[turn.index()])
                };
                self.values[turn.index()][i as usize].store(c, Relaxed);
                seen[(c / 64) as usize] |= 1 << (c % 64);
            }
        }
        for (word, bits) in self.ahead[chunk as usize].iter().zip(seen) {
            word.fetch_or(bits, Relaxed);
        }
    }

    /// The code of a legal position before any layer: a game end, a capture that wins,
    /// a capture that holds the draw, a loss when every move is a losing capture, or
    /// `UNCOUNTED`.
    fn initial_code(&self, s: &mut Scratch, index: u64, turn: Color, in_check: bool) -> u8 {
        s.moves.clear();
        s.pos.pseudo_captures(&mut s.moves);
        let legality = s
            .pos
            .legality_knowing(self.attackers[(!turn).index()], in_check);
        let mut any_capture = false;
        let mut best_loss: Option<u32> = None;
        let mut holds = false;
        let mut longest_win = 0u32;
        // captures all need a look
        for k in 0..s.moves.len() {
            let m = s.moves[k];
            if !legality.move_is_legal(&s.pos, m) {
                continue;
            }
            any_capture = true;
            let (c, p) = self.capture_entry(s, m);
            if code::is_loss(c) {
                best_loss = Some(best_loss.map_or(p, |b| b.min(p)));
            } else if code::is_win(c) {
                longest_win = longest_win.max(p);
            } else {
                holds = true;
            }
        }
        if let Some(l) = best_loss {
            self.note_plies(l + 1);
            return self.decided_code(turn, index, l + 1);
        }
        if holds {
            return code::DRAW;
        }
        // one legal quiet move is enough to know
        if s.pos.has_legal_quiet_move(&legality) {
            UNCOUNTED
        } else if !any_capture {
            code::decided(0)
        } else {
            self.note_plies(longest_win + 1);
            self.decided_code(turn, index, longest_win + 1)
        }
    }

    /// The number of legal quiet moves of the position in `s` (set up by the caller).
    fn quiet_moves(&self, s: &mut Scratch) -> u32 {
        s.pos
            .count_legal_quiet_moves_against(self.attackers[(!s.pos.turn()).index()])
    }

    /// Fills `s.moves` with the pseudo-legal moves of the position in `s` and returns what
    /// tests their legality.
    #[inline]
    fn generate_moves(&self, s: &mut Scratch) -> Legality {
        s.moves.clear();
        s.pos.pseudo_moves(&mut s.moves);
        s.pos
            .legality_against(self.attackers[(!s.pos.turn()).index()])
    }

    /// Fills `s.moves` with the pseudo-legal captures of the position in `s` and returns
    /// what tests their legality.
    #[inline]
    fn generate_captures(&self, s: &mut Scratch) -> Legality {
        s.moves.clear();
        s.pos.pseudo_captures(&mut s.moves);
        s.pos
            .legality_against(self.attackers[(!s.pos.turn()).index()])
    }

    /// Decodes an entry into the scratch position.
    fn set_up(&self, s: &mut Scratch, index: u64, turn: Color) -> bool {
        let n = self.pieces.len();
        if !s.placed {
            s.decode = index::DecodeCache::default();
        }
        let before = s.squares;
        if (self.layout)
            .squares_cached(index, &mut s.squares, &mut s.decode)
            .is_none()
        {
            // (`squares` is as the decoder left it, `pos` as it was)
            s.placed = false;
            return false;
        }
        let before = s.placed.then_some(&before[..n]);
        s.pos
            .replace_placement(&self.pieces, before, &s.squares[..n], turn);
        s.placed = true;
        true
    }

    /// The code, for the side to move after it, of the position a capture leads to, as
    /// the mate search sees it: a verdict by rule is a draw there.
    fn capture_code(&self, s: &Scratch, m: crate::game::moves::Move) -> u8 {
        self.capture_entry(s, m).0
    }

    /// [`Retrograde::capture_code`] with the distance of a decided code (from the sub-table's
    /// far list when it is wide; 0 when not decided).
    fn capture_entry(&self, s: &Scratch, m: crate::game::moves::Move) -> (u8, u32) {
        let (c, p) = self.capture_entry_with_rule(s, m);
        if code::is_rule(c) {
            (code::DRAW, 0)
        } else {
            (c, p)
        }
    }

    /// The stored code, for the side to move after it, of the position a capture leads
    /// to, verdicts by rule included.
    fn capture_code_with_rule(&self, s: &Scratch, m: crate::game::moves::Move) -> u8 {
        self.capture_entry_with_rule(s, m).0
    }

    /// [`Retrograde::capture_code_with_rule`] with the distance of a decided code.
    fn capture_entry_with_rule(&self, s: &Scratch, m: crate::game::moves::Move) -> (u8, u32) {
        let n = self.pieces.len();
        let squares = &s.squares[..n];
        let captured = squares
            .iter()
            .position(|&q| q == m.to())
            .expect("a captured piece");
        let mover = squares
            .iter()
            .position(|&q| q == m.from())
            .expect("a moving piece");
        let target = self.captures[captured]
            .as_ref()
            .expect("generals are never captured");
        let mut child = [Square::new(0).expect("a0"); MAX_PIECES];
        for (k, &from) in target.from_slot.iter().enumerate() {
            let sq = if from == mover { m.to() } else { squares[from] };
            child[k] = if target.flipped { sq.flip() } else { sq };
        }
        let turn = s.pos.turn();
        let child_turn = if target.flipped { turn } else { !turn };
        let layout = target.table.layout();
        let index = layout.index(&child[..target.from_slot.len()]);
        let c = match target.table.code_read(child_turn, index) {
            Ok(c) => c,
            Err(e) => {
                self.fail(e);
                return (code::DRAW, 0);
            }
        };
        if code::is_decided(c) {
            return match target.table.plies_of(child_turn, index, c) {
                Ok(p) => (c, p),
                Err(e) => {
                    self.fail(e);
                    (code::DRAW, 0)
                }
            };
        }
        if c != code::DRAW && !(self.rules.judges_repetition() && code::is_rule(c)) {
            self.fail(TableError::Entry {
                path: target.table.path().to_path_buf(),
                index,
                code: c,
            });
        }
        (c, 0)
    }

    /// Sets one chunk's frontier for the layer that walks back from `want` (both sides):
    /// the groups the previous layer marked in `next`, unless the chunk's summary says
    /// that entries were given `want` ahead of time, when the chunk is scanned for every
    /// group holding it. Clears the chunk's `next` and its summary's `want`. Runs while
    /// nothing writes values, as its own pass.
    fn frontier_chunk(&self, chunk: u64, want: u8) {
        let start = (chunk * CHUNK) as usize;
        let end = ((chunk + 1) * CHUNK).min(self.layout.size()) as usize;
        let words = start / GROUP_WORD..end.div_ceil(GROUP_WORD);
        let summary = &self.ahead[chunk as usize][(want / 64) as usize];
        let bit = 1u64 << (want % 64);
        let scan = summary.load(Relaxed) & bit != 0;
        if scan {
            summary.fetch_and(!bit, Relaxed);
        }
        for turn in Color::ALL {
            let frontier = &self.frontier[turn.index()];
            let next = &self.next[turn.index()];
            if !scan {
                for w in words.clone() {
                    frontier.0[w].store(next.0[w].swap(0, Relaxed), Relaxed);
                }
                continue;
            }
            let cells = &self.values[turn.index()][start..end];
            // SAFETY: this is a pass of its own, between rayon barriers, during which
            // nothing writes the values; reading the bytes plainly lets the compare vectorise.
            let side: &[u8] =
                unsafe { std::slice::from_raw_parts(cells.as_ptr() as *const u8, cells.len()) };
            let pattern = u64::from_ne_bytes([want; 8]);
            for (w, block) in words.clone().zip(side.chunks(GROUP_WORD)) {
                let mut bits = 0u64;
                for (g, group) in block.chunks(GROUP).enumerate() {
                    if group.len() == GROUP {
                        // skip eight bytes at once unless one of them equals `want`
                        let x = u64::from_ne_bytes(group.try_into().expect("8 bytes")) ^ pattern;
                        if (x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080) == 0
                        {
                            continue;
                        }
                    }
                    bits |= u64::from(group.contains(&want)) << g;
                }
                frontier.0[w].store(bits, Relaxed);
                next.0[w].store(0, Relaxed);
            }
        }
    }

    /// Walks back from the positions holding `want` in the groups of the frontier in one
    /// chunk; returns how many. The layer's writes never make an entry `want` nor change
    /// one that is: wins in `plies` overwrite no loss, and a loss found now is at least
    /// `plies` long.
    fn layer_chunk(&self, s: &mut Scratch, chunk: u64, want: u8, plies: u32) -> u64 {
        let mut walked = 0;
        let start = (chunk * CHUNK) as usize;
        let end = ((chunk + 1) * CHUNK).min(self.layout.size()) as usize;
        for turn in Color::ALL {
            let frontier = &self.frontier[turn.index()];
            let cells = &self.values[turn.index()];
            let parents = &self.values[(!turn).index()];
            for w in start / GROUP_WORD..end.div_ceil(GROUP_WORD) {
                let mut bits = frontier.0[w].load(Relaxed);
                while bits != 0 {
                    let first = (w * 64 + bits.trailing_zeros() as usize) * GROUP;
                    bits &= bits - 1;
                    for i in first..(first + GROUP).min(end) {
                        if cells[i].load(Relaxed) == want {
                            walked += 1;
                            self.walk_back(s, i as u64, turn, parents, plies);
                        }
                    }
                }
            }
        }
        walked
    }

    /// Walks back from one entry decided in `plies` − 1.
    #[inline]
    fn walk_back(&self, s: &mut Scratch, i: u64, turn: Color, parents: &[AtomicU8], plies: u32) {
        if plies % 2 == 1 {
            self.mark_wins(s, i, turn, parents, plies);
        } else {
            self.count_down(s, i, turn, parents, plies);
        }
    }

    /// The predecessor events of `child` (see [`Retrograde::for_each_parent`]) in the scratch
    /// list, their cells already on their way into the cache, and their un-moves in
    /// `s.unmoves` (the position in `s` stays the child's). Hand the list back to
    /// `s.parents` when done with it.
    fn collect_parents(
        &self,
        s: &mut Scratch,
        child: u64,
        turn: Color,
        parents: &[AtomicU8],
    ) -> Vec<u64> {
        let mut found = std::mem::take(&mut s.parents);
        let mut unmoves = std::mem::take(&mut s.unmoves);
        found.clear();
        unmoves.clear();
        self.for_each_parent(s, child, turn, |p, u| {
            found.push(p);
            unmoves.push(u);
        });
        prefetch(parents, &found);
        s.unmoves = unmoves;
        found
    }

    /// A loss in plies-1 at `child`: every predecessor wins in `plies` unless it already
    /// wins sooner.
    fn mark_wins(
        &self,
        s: &mut Scratch,
        child: u64,
        turn: Color,
        parents: &[AtomicU8],
        plies: u32,
    ) {
        let far = plies >= self.far_from;
        let win = if far {
            code::FAR_WIN
        } else {
            code::decided(plies)
        };
        self.note_plies(plies);
        let found = self.collect_parents(s, child, turn, parents);
        for &p in &found {
            let c = parents[p as usize].load(Relaxed);
            if c == code::DRAW || c >= COUNT || (code::is_win(c) && c > win) {
                if c == code::FAR_WIN {
                    // a longer win by a capture, kept in the far list, gives way
                    self.forget_far(!turn, p);
                }
                if far {
                    self.note_far(!turn, p, plies);
                }
                self.store(!turn, p, win, plies);
            } else if far && c == code::FAR_WIN {
                self.note_far(!turn, p, plies);
            }
        }
        s.parents = found;
    }

    /// A win in plies-1 at `child`: one more quiet move of each predecessor is known to
    /// lose; a predecessor with none left is lost.
    fn count_down(
        &self,
        s: &mut Scratch,
        child: u64,
        turn: Color,
        parents: &[AtomicU8],
        plies: u32,
    ) {
        let found = self.collect_parents(s, child, turn, parents);
        for (k, &p) in found.iter().enumerate() {
            let cell = &parents[p as usize];
            let mut c = cell.load(Relaxed);
            loop {
                let next = if c == UNCOUNTED {
                    // first time a move of this predecessor is known to lose: count them
                    let quiet = self.at_parent(s, s.unmoves[k], |s| self.quiet_moves(s));
                    if quiet == 0 || quiet > MAX_COUNT {
                        self.fail(TableError::Unsupported(format!(
                            "{}: entry {p} has {quiet} quiet moves, outside the generator's counters",
                            self.layout.material()
                        )));
                        break;
                    }
                    COUNT + quiet as u8 - 1
                } else if c > COUNT {
                    c - 1
                } else {
                    break; // decided, or a draw held by a capture
                };
                match cell.compare_exchange(c, next, Relaxed, Relaxed) {
                    Ok(_) => {
                        if next == COUNT {
                            let loss =
                                self.at_parent(s, s.unmoves[k], |s| self.loss_plies(s, plies));
                            self.note_plies(loss);
                            let c = self.decided_code(!turn, p, loss);
                            self.store(!turn, p, c, plies);
                        }
                        break;
                    }
                    Err(now) => c = now,
                }
            }
        }
        s.parents = found;
    }

    /// Runs `f` on the predecessor of the position in `s` that un-move `u` leads to (its
    /// placement in `s.squares`, in the orientation of the child's), then puts the child
    /// back. A predecessor stored as its mirror image has the same moves and values.
    #[inline]
    fn at_parent<R>(&self, s: &mut Scratch, u: Move, f: impl FnOnce(&mut Scratch) -> R) -> R {
        let n = self.pieces.len();
        let slot = s.squares[..n]
            .iter()
            .position(|&q| q == u.to())
            .expect("the un-moved piece");
        s.squares[slot] = u.from();
        s.pos.unplay_unchecked(u);
        let r = f(s);
        // the un-move read forwards is the predecessor's quiet move back to the child
        s.pos.play_unchecked(u);
        s.squares[slot] = u.to();
        r
    }

    /// The loss distance of the position in `s`, whose quiet moves all lose, the last of
    /// them found at this layer: the longest of that and its captures' replies.
    fn loss_plies(&self, s: &mut Scratch, plies: u32) -> u32 {
        let legality = self.generate_captures(s);
        let mut longest = plies;
        for k in 0..s.moves.len() {
            let m = s.moves[k];
            if legality.move_is_legal(&s.pos, m) {
                longest = longest.max(self.capture_entry(s, m).1 + 1);
            }
        }
        longest
    }

    /// Calls `f` once for every (predecessor, move) pair that leads into the position
    /// class of `index` (its board and, when stored for both, the mirror image), with the
    /// predecessor's index: the same count as the predecessor's quiet moves into it.
    fn for_each_parent(&self, s: &mut Scratch, idx: u64, turn: Color, f: impl FnMut(u64, Move)) {
        self.for_each_parent_where(s, idx, turn, |_| true, f);
    }

    /// [`Retrograde::for_each_parent`] by the moves of the pieces whose slots `walk` picks.
    #[inline(always)]
    fn for_each_parent_where(
        &self,
        s: &mut Scratch,
        idx: u64,
        turn: Color,
        walk: impl Fn(usize) -> bool,
        mut f: impl FnMut(u64, Move),
    ) {
        let n = self.pieces.len();
        if !self.set_up(s, idx, turn) {
            return;
        }
        let legality = s
            .pos
            .unmove_legality_against(self.attackers[(!s.pos.turn()).index()]);
        let bk = self.black_general;
        let child_symmetric = index::pair_is_symmetric(s.squares[0], s.squares[bk]);
        // the pieces of the side that just moved, one slot at a time
        let movers = if turn == Color::Red { bk..n } else { 0..bk };
        for slot in movers {
            if !walk(slot) {
                continue;
            }
            s.moves.clear();
            s.pos.pseudo_unmoves_of(s.squares[slot], &mut s.moves);
            for k in 0..s.moves.len() {
                let u = s.moves[k];
                if legality.unmove_is_legal(&s.pos, u) {
                    self.parents_by(s, (idx, child_symmetric), slot, u, &mut f);
                }
            }
        }
    }

    /// The predecessors [`Retrograde::for_each_parent`] finds by un-move `u` of the piece in
    /// `slot`.
    #[inline(always)]
    fn parents_by(
        &self,
        s: &Scratch,
        (idx, child_symmetric): (u64, bool),
        slot: usize,
        u: Move,
        f: &mut impl FnMut(u64, Move),
    ) {
        let n = self.pieces.len();
        let bk = self.black_general;
        let pred_index = self
            .layout
            .index_after_move(idx, &s.squares[..n], slot, u.from());
        if !self.layout.is_general_slot(slot) {
            // the generals stay, so does the orientation: only one group changes
            return f(pred_index, u);
        }
        let mut pred = s.squares;
        pred[slot] = u.from();
        let pred_symmetric = index::pair_is_symmetric(pred[0], pred[bk]);
        match (child_symmetric, pred_symmetric) {
            (false, false) | (true, true) => f(pred_index, u),
            (false, true) => {
                f(pred_index, u);
                let mut mirrored = pred;
                for q in mirrored[..n].iter_mut() {
                    *q = q.mirror();
                }
                f(self.layout.index(&mirrored[..n]), u);
            }
            (true, false) => {
                if !index::needs_mirror(pred[0], pred[bk]) {
                    f(pred_index, u);
                }
            }
        }
    }
}

/// Fills in the header's statistics of finished codes (wins and losses by rule count as
/// wins and losses; the longest win is the longest mate).
fn finish(
    material: Material,
    mut red: Vec<u8>,
    mut black: Vec<u8>,
    far: Vec<(u64, u32)>,
    far_from: u32,
    rules: Rules,
) -> Result<Solved, TableError> {
    let far = wide::settle_far(far, far_from, [&mut red, &mut black]);
    let layout = Layout::new(material).expect("checked before");
    let per_pair = layout.size() / index::GENERAL_PAIR_COUNT;
    let mut sides = [SideStats::default(); 2];
    for (k, values) in [&red, &black].into_iter().enumerate() {
        let stats: SideStats = values
            .par_chunks(per_pair as usize)
            .enumerate()
            .map(|(pair, chunk)| {
                let weight = if index::pair_index_is_symmetric(pair as u64) {
                    1
                } else {
                    2
                };
                let mut st = SideStats::default();
                for (j, &c) in chunk.iter().enumerate() {
                    match c {
                        code::ILLEGAL => continue,
                        code::DRAW => st.draw += weight,
                        x if code::is_rule_win(x) => st.win += weight,
                        x if code::is_rule_loss(x) => st.loss += weight,
                        x if code::is_win(x) => {
                            st.win += weight;
                            let p = code::plies(x);
                            if p > st.longest {
                                st.longest = p;
                                st.longest_index = pair as u64 * per_pair + j as u64;
                            }
                        }
                        _ => st.loss += weight,
                    }
                    st.legal += weight;
                }
                st
            })
            .reduce(SideStats::default, |a, b| SideStats {
                legal: a.legal + b.legal,
                win: a.win + b.win,
                draw: a.draw + b.draw,
                loss: a.loss + b.loss,
                // the first index among the longest, for determinism
                longest: a.longest.max(b.longest),
                longest_index: if b.longest > a.longest {
                    b.longest_index
                } else {
                    a.longest_index
                },
            });
        sides[k] = stats;
    }
    // a wide table's far entries are its longest: their wins replace what the codes say
    for (side, (longest, index)) in sides.iter_mut().zip(far.longest_wins()) {
        if longest > 0 {
            side.longest = longest;
            side.longest_index = index;
        }
    }
    let mut header = Header::new(&material, layout.size(), sides, rules);
    if !far.is_empty() {
        header.format_version = super::format::FORMAT_WIDE;
    }
    Ok(Solved {
        header,
        red,
        black,
        far,
    })
}
