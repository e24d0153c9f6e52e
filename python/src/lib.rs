//! canju for Python: a thin skin over the library. Every function calls what the command
//! line calls and gives back what its `--json` prints, as Python dicts and lists; every
//! error is a `canju.CanjuError` with the library's own message.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use canju_lib::notation::{self, Notation, Style};
use canju_lib::puzzle::{self, Judge};
use canju_lib::solver::{self, Options, report::SolveReport};
use canju_lib::tablebase::{Rules, Tablebase, build, generate::Progress, report};
use canju_lib::theory::{self, Claim, Request};
use canju_lib::{Material, Move, Position};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyModule;

create_exception!(
    canju,
    CanjuError,
    PyException,
    "What canju refuses or cannot do: a malformed FEN, an illegal move, a table that is missing or damaged, a proof that was stopped. The message is the command line's."
);

/// Any of the library's errors as a `CanjuError` with its message.
fn err(e: impl std::fmt::Display) -> PyErr {
    CanjuError::new_err(e.to_string())
}

/// A serializable report as Python objects, through JSON (the shape `--json` prints).
fn to_py<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(err)?;
    py.import("json")?.call_method1("loads", (text,))
}

fn rules_arg(rules: &str) -> PyResult<Rules> {
    rules.parse::<Rules>().map_err(err)
}

fn notation_arg(notation: &str) -> PyResult<Notation> {
    notation.parse::<Notation>().map_err(err)
}

fn tables(dir: Option<PathBuf>, rules: &str) -> PyResult<Tablebase> {
    let dir = dir
        .or_else(|| std::env::var_os("CANJU_TB_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("tablebases"));
    Ok(Tablebase::with_rules(dir, rules_arg(rules)?))
}

fn position_arg(fen: &str) -> PyResult<Position> {
    fen.parse::<Position>().map_err(err)
}

/// The process's thread pool for the library's parallel work, made on first use and made
/// anew in a process forked from one that had made it: a forked child (`multiprocessing`
/// forks on Linux) has the parent's pool but none of its threads, and work sent there
/// would wait for ever.
fn pool() -> PyResult<Arc<rayon::ThreadPool>> {
    static POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((owner, pool)) = slot.as_ref()
        && *owner == pid
    {
        return Ok(pool.clone());
    }
    // (a parent's pool in a forked child: its threads are not here to be told to end, so
    // it is left as it is)
    if let Some(parents) = slot.take() {
        std::mem::forget(parents);
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("canju-{i}"))
            .build()
            .map_err(err)?,
    );
    *slot = Some((pid, pool.clone()));
    Ok(pool)
}

/// Runs `work` the way a Python library should:
/// - in this process's own thread pool ([`pool`]), never in one a forked child inherited
///   without its threads;
/// - while this thread, taking the GIL only for a moment at a time, looks for Ctrl-C: a
///   `KeyboardInterrupt` (or whatever a signal handler raises) sets `stop`, waits for the
///   work to notice it (a fraction of a second), and is raised.
fn interruptible<R: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    work: impl FnOnce() -> R + Send,
) -> PyResult<R> {
    let pool = pool()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let pool = &pool;
        scope.spawn(move || {
            let _ = tx.send(pool.install(work));
        });
        let mut rx = rx;
        loop {
            // (the receiver goes with the wait and comes back: it is not to be shared)
            let (got, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
            rx = back;
            match got {
                Ok(r) => return Ok(r),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(err("the work ended without an answer"));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Err(interrupt) = py.check_signals() {
                stop.store(true, Relaxed);
                // (the work stops at its next look at the flag; its answer is dropped)
                let _ = py.detach(move || rx.recv());
                return Err(interrupt);
            }
        }
    })
}

/// The first exception a Python callback raised, kept to be raised once the work has
/// stopped.
#[derive(Clone, Default)]
struct Raised(Arc<Mutex<Option<PyErr>>>);

impl Raised {
    fn keep(&self, e: PyErr) {
        let mut first = self.0.lock().unwrap_or_else(|p| p.into_inner());
        first.get_or_insert(e);
    }

    fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A build's progress that only tells it to stop when `stop` is set.
struct StopOnly(Arc<AtomicBool>);

impl Progress for StopOnly {
    fn init(&self, _: u64, _: u64) {}
    fn layer(&self, _: u32, _: u64) {}
    fn stopped(&self) -> bool {
        self.0.load(Relaxed)
    }
}

/// A position: the board, the side to move, and what FEN says of it.
#[pyclass(name = "Position", module = "canju", frozen)]
#[derive(Clone)]
struct PyPosition {
    pos: Position,
}

#[pymethods]
impl PyPosition {
    /// A position from its FEN (`"4k4/9/9/9/9/9/9/9/9/R2K5 w"`); the starting position
    /// without one.
    #[new]
    #[pyo3(signature = (fen = None))]
    fn new(fen: Option<&str>) -> PyResult<PyPosition> {
        Ok(PyPosition {
            pos: match fen {
                Some(f) => position_arg(f)?,
                None => Position::start(),
            },
        })
    }

    /// The FEN.
    #[getter]
    fn fen(&self) -> String {
        self.pos.to_string()
    }

    /// The side to move: `"red"` or `"black"`.
    #[getter]
    fn turn(&self) -> String {
        self.pos.turn().to_string()
    }

    /// Whether the side to move is in check.
    #[getter]
    fn in_check(&self) -> bool {
        self.pos.is_check()
    }

    /// How the game has ended here, if it has: `"checkmate"` (将死) or `"stalemate"`
    /// (困毙: no legal move, which loses too); `None` while the side to move has a move.
    #[getter]
    fn ending(&self) -> Option<&'static str> {
        match self.pos.game_end() {
            Some(canju_lib::GameEnd::Checkmate { .. }) => Some("checkmate"),
            Some(canju_lib::GameEnd::Stalemate { .. }) => Some("stalemate"),
            None => None,
        }
    }

    /// The legal moves, in `"iccs"` (`h2e2`), `"wxf"` (`C2.5`) or `"chinese"` (炮二平五).
    #[pyo3(signature = (notation = "iccs"))]
    fn legal_moves(&self, notation: &str) -> PyResult<Vec<String>> {
        let n = notation_arg(notation)?;
        Ok(self
            .pos
            .legal_moves()
            .iter()
            .map(|&m| notation::format_move(&self.pos, m, n, Style::default()))
            .collect())
    }

    /// A move given in any of the three notations, written in `notation`.
    #[pyo3(signature = (text, notation = "iccs"))]
    fn move_name(&self, text: &str, notation: &str) -> PyResult<String> {
        let m = self.parse(text)?;
        Ok(notation::format_move(
            &self.pos,
            m,
            notation_arg(notation)?,
            Style::default(),
        ))
    }

    /// The position after the moves given (each in any notation, legal where it is played).
    #[pyo3(signature = (*moves))]
    fn play(&self, moves: Vec<String>) -> PyResult<PyPosition> {
        let mut pos = self.pos.clone();
        for (i, text) in moves.iter().enumerate() {
            let m = notation::parse_move(&pos, text)
                .map_err(|e| err(format!("move {} ({text}): {e}", i + 1)))?;
            pos.play_unchecked(m);
        }
        Ok(PyPosition { pos })
    }

    /// The board as text (Chinese characters when `chinese`).
    #[pyo3(signature = (chinese = true))]
    fn board(&self, chinese: bool) -> String {
        canju_lib::render::terminal::board(
            &self.pos,
            canju_lib::render::terminal::Style {
                chinese,
                color: false,
            },
        )
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}')", self.pos)
    }

    fn __eq__(&self, other: &PyPosition) -> bool {
        self.pos.to_string() == other.pos.to_string()
    }
}

impl PyPosition {
    fn parse(&self, text: &str) -> PyResult<Move> {
        notation::parse_move(&self.pos, text).map_err(err)
    }
}

/// The value of a position in the tables and of every legal move, best first: what
/// `canju probe --json` prints.
#[pyfunction]
#[pyo3(signature = (fen, dir = None, rules = "asian"))]
fn probe<'py>(
    py: Python<'py>,
    fen: &str,
    dir: Option<PathBuf>,
    rules: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let pos = position_arg(fen)?;
    let tb = tables(dir, rules)?;
    let stop = AtomicBool::new(false);
    let r = interruptible(py, &stop, || report::probe(&tb, &pos, false))?.map_err(err)?;
    to_py(py, &r)
}

/// The shortest forced win within `max_moves` moves, every winning first move and the
/// line: what `canju solve --json` prints. Tables under `dir` decide the positions they
/// hold; `rules="asian"` (a defence that only checks, threatens mate or chases forever
/// fails: 长打作负), `"check-only"` (only checking forever fails) or `"none"`.
#[pyfunction]
#[pyo3(signature = (fen, max_moves = 6, rules = "asian", checks_only = false, mate_only = false, method = "depth-first", time = None, dir = None))]
#[allow(clippy::too_many_arguments)]
fn solve<'py>(
    py: Python<'py>,
    fen: &str,
    max_moves: u32,
    rules: &str,
    checks_only: bool,
    mate_only: bool,
    method: &str,
    time: Option<f64>,
    dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let pos = position_arg(fen)?;
    let mut options = Options::new(max_moves);
    options.rules = rules_arg(rules)?;
    options.checks_only = checks_only;
    options.mate_only = mate_only;
    options.method = method.parse().map_err(err)?;
    options.time = match time {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 && t <= 1e7 => Some(Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(err(format!(
                "time {t}: a number of seconds above 0, at most 10000000 (115 days)"
            )));
        }
    };
    let tb = tables(dir, rules)?;
    let stop = Arc::new(AtomicBool::new(false));
    options.stop = stop.clone();
    let s = interruptible(py, &stop, || solver::solve(&pos, &options, Some(&tb)))?.map_err(err)?;
    to_py(py, &SolveReport::new(&pos, &s))
}

/// Every built-in puzzle, as `canju puzzle list --json` lists it (without progress).
#[pyfunction]
fn puzzles(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let all = puzzle::load_builtin().map_err(err)?;
    let list: Vec<_> = all.iter().map(|p| p.summary()).collect();
    to_py(py, &list)
}

/// Judges a line of moves of the puzzle `id` (the player's alone, or both sides') against
/// perfect play: what `canju puzzle check --json` prints.
#[pyfunction]
#[pyo3(signature = (id, moves, dir = None, rules = "asian"))]
fn check_puzzle<'py>(
    py: Python<'py>,
    id: &str,
    moves: Vec<String>,
    dir: Option<PathBuf>,
    rules: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let all = puzzle::load_builtin().map_err(err)?;
    let p = all
        .iter()
        .find(|p| p.entry.id == id)
        .ok_or_else(|| err(format!("no puzzle '{id}' (canju.puzzles() lists them)")))?;
    let tb = tables(dir, rules)?;
    let stop = Arc::new(AtomicBool::new(false));
    let r = interruptible(py, &stop, || {
        let judge = Judge::for_puzzle(Some(&tb), p).with_limits(stop.clone(), None);
        puzzle::check::check_line(p, &judge, &moves)
    })?
    .map_err(err)?;
    to_py(py, &r)
}

/// A saying or a material measured over its table (built first if missing): what `canju
/// theory CLAIM --json` prints.
#[pyfunction(name = "theory")]
#[pyo3(signature = (claim, dir = None, rules = "asian", examples = 3))]
fn theory_report<'py>(
    py: Python<'py>,
    claim: &str,
    dir: Option<PathBuf>,
    rules: &str,
    examples: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let claim = Claim::parse(claim).map_err(err)?;
    claim.check_scope().map_err(err)?;
    let tb = tables(dir, rules)?;
    let stop = Arc::new(AtomicBool::new(false));
    let r = interruptible(py, &stop, || -> Result<theory::Report, String> {
        build::build(
            claim.material,
            &tb,
            &|_| Box::new(StopOnly(stop.clone())),
            &mut |_| {},
        )
        .map_err(|e| e.to_string())?;
        let request = Request {
            limit: examples,
            heat: None,
            stop: Some(stop.clone()),
        };
        theory::measure(&claim, &tb, &request, &|_, _| {}).map_err(|e| e.to_string())
    })?
    .map_err(err)?;
    to_py(py, &r)
}

/// Reports a build's progress to a Python callable: `progress(material, stage, done,
/// total)`, `stage` being `"start"` (positions decided so far of all) or `"layer"` (plies,
/// positions decided). An exception the callable raises stops the build, and is raised.
struct PyProgress {
    material: String,
    callback: Arc<Py<PyAny>>,
    stop: Arc<AtomicBool>,
    raised: Raised,
}

impl PyProgress {
    fn call(&self, stage: &str, a: u64, b: u64) {
        if self.stop.load(Relaxed) {
            return;
        }
        Python::attach(|py| {
            if let Err(e) = self.callback.call1(py, (&self.material, stage, a, b)) {
                self.raised.keep(e);
                self.stop.store(true, Relaxed);
            }
        });
    }
}

impl Progress for PyProgress {
    fn init(&self, done: u64, total: u64) {
        self.call("start", done, total);
    }

    fn layer(&self, plies: u32, decided: u64) {
        self.call("layer", plies as u64, decided);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }
}

/// Builds the tables of a material and of every endgame it falls into (smallest first)
/// into `dir`; tables already there are checked and kept. Returns one dict per table
/// (`material`, `outcome`, `seconds`). `progress`, if given, is called as `progress(material,
/// stage, a, b)`.
#[pyfunction]
#[pyo3(signature = (material, dir = None, rules = "asian", progress = None))]
fn build_tables<'py>(
    py: Python<'py>,
    material: &str,
    dir: Option<PathBuf>,
    rules: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m: Material = material.parse().map_err(err)?;
    let tb = tables(dir, rules)?;
    let callback = progress.map(Arc::new);
    let stop = Arc::new(AtomicBool::new(false));
    let raised = Raised::default();
    let built = interruptible(py, &stop, || {
        build::build(
            m.canonical(),
            &tb,
            &|m| match &callback {
                Some(cb) => Box::new(PyProgress {
                    material: m.to_string(),
                    callback: cb.clone(),
                    stop: stop.clone(),
                    raised: raised.clone(),
                }),
                None => Box::new(StopOnly(stop.clone())),
            },
            &mut |_| {},
        )
    })?;
    // an exception in the callback stopped the build: it is what the caller sees
    if let Some(e) = raised.take() {
        return Err(e);
    }
    let reports = built.map_err(err)?;
    let rows: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            serde_json::json!({
                "material": r.material.to_string(),
                "outcome": format!("{:?}", r.outcome).to_lowercase(),
                "seconds": r.seconds,
            })
        })
        .collect();
    to_py(py, &rows)
}

/// canju: Xiangqi endgames for Python.
#[pymodule]
fn canju(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPosition>()?;
    m.add("CanjuError", m.py().get_type::<CanjuError>())?;
    m.add_function(wrap_pyfunction!(probe, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(puzzles, m)?)?;
    m.add_function(wrap_pyfunction!(check_puzzle, m)?)?;
    m.add_function(wrap_pyfunction!(theory_report, m)?)?;
    m.add_function(wrap_pyfunction!(build_tables, m)?)?;
    m.add("START_FEN", canju_lib::START_FEN)?;
    Ok(())
}
