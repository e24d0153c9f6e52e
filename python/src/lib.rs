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
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyModule, PyString, PyTuple, PyType};
use serde_json::Value as Json;

create_exception!(
    canju,
    CanjuError,
    PyException,
    "What canju refuses or cannot do: a malformed FEN, an illegal move, a table that is missing or damaged, a proof that was stopped. The message is the command line's. Every error canju raises is one."
);

/// The kinds of error below `CanjuError`, each a subclass of it (and of the built-in
/// exception it is a kind of, where there is one), made when the module is.
#[derive(Clone, Copy)]
enum Kind {
    /// A value canju cannot read: a malformed FEN, an illegal or unknown move, a name of
    /// no rule set, notation or material, a number out of range (also a `ValueError`).
    Input,
    /// An argument of the wrong type (also a `TypeError`).
    Type,
    /// A table missing, damaged, or of another rule set.
    Tables,
}

static KINDS: [PyOnceLock<Py<PyType>>; 3] =
    [PyOnceLock::new(), PyOnceLock::new(), PyOnceLock::new()];

/// The classes of [`Kind`]: name, extra base, doc.
const KIND_CLASSES: [(&str, &str, &str); 3] = [
    (
        "InvalidInputError",
        "ValueError",
        "A value canju cannot read: a malformed FEN, an illegal or unknown move, a name of no rule set, notation or material, a number out of range.",
    ),
    (
        "ArgumentTypeError",
        "TypeError",
        "An argument of the wrong type (a number where a FEN is wanted, a str where a list of moves is).",
    ),
    (
        "TablebaseError",
        "",
        "A table that is missing, damaged, or of another rule set than the one asked for.",
    ),
];

/// Makes the classes of [`Kind`] and adds them to the module.
fn add_kinds(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let builtins = py.import("builtins")?;
    let base = py.get_type::<CanjuError>();
    for (k, (name, extra, doc)) in KIND_CLASSES.iter().enumerate() {
        let bases = if extra.is_empty() {
            PyTuple::new(py, [base.clone().into_any()])?
        } else {
            PyTuple::new(py, [base.clone().into_any(), builtins.getattr(*extra)?])?
        };
        let namespace = PyDict::new(py);
        namespace.set_item("__doc__", *doc)?;
        namespace.set_item("__module__", "canju")?;
        let class = builtins
            .getattr("type")?
            .call1((*name, bases, namespace))?
            .cast_into::<PyType>()?;
        let _ = KINDS[k].set(py, class.clone().unbind());
        m.add(*name, class)?;
    }
    Ok(())
}

/// An error of a [`Kind`] with a message.
fn error_of(kind: Kind, e: impl std::fmt::Display) -> PyErr {
    let msg = e.to_string();
    Python::attach(|py| match KINDS[kind as usize].get(py) {
        Some(class) => PyErr::from_type(class.bind(py).clone(), msg),
        None => CanjuError::new_err(msg),
    })
}

/// Any of the library's errors as a `CanjuError` with its message.
fn err(e: impl std::fmt::Display) -> PyErr {
    CanjuError::new_err(e.to_string())
}

/// A value canju cannot read: `InvalidInputError`.
fn bad(e: impl std::fmt::Display) -> PyErr {
    error_of(Kind::Input, e)
}

/// A table's error: `TablebaseError`.
fn table_err(e: impl std::fmt::Display) -> PyErr {
    error_of(Kind::Tables, e)
}

/// An argument of the wrong type: `ArgumentTypeError`, naming the argument and the type
/// given.
fn wrong_type(name: &str, want: &str, v: &Bound<'_, PyAny>) -> PyErr {
    let given = v
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    error_of(Kind::Type, format!("{name}: {want}, not {given}"))
}

/// A `str` argument.
fn text(name: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if !v.is_instance_of::<PyString>() {
        return Err(wrong_type(name, "a str", v));
    }
    v.extract::<String>()
        .map_err(|_| bad(format!("{name}: not valid UTF-8")))
}

/// An `int` argument within `low..=high` (a bool is no number here).
fn int_in(name: &str, v: &Bound<'_, PyAny>, low: i64, high: i64) -> PyResult<i64> {
    if v.is_instance_of::<PyBool>() || !v.is_instance_of::<PyInt>() {
        return Err(wrong_type(name, "an int", v));
    }
    match v.extract::<i64>() {
        Ok(n) if (low..=high).contains(&n) => Ok(n),
        _ => Err(bad(format!("{name} {v}: between {low} and {high}"))),
    }
}

/// A `bool` argument.
fn flag(name: &str, v: &Bound<'_, PyAny>) -> PyResult<bool> {
    v.cast::<PyBool>()
        .map(|b| b.is_true())
        .map_err(|_| wrong_type(name, "a bool", v))
}

/// A path argument (`str` or `os.PathLike`), or None.
fn path_opt(name: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PathBuf>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .extract::<PathBuf>()
            .map(Some)
            .map_err(|_| wrong_type(name, "a str or os.PathLike", v)),
    }
}

/// A list (or other iterable, not a str) of moves.
fn move_list(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if v.is_instance_of::<PyString>() {
        return Err(wrong_type(name, "a list of moves", v));
    }
    let items = v
        .try_iter()
        .map_err(|_| wrong_type(name, "a list of moves", v))?;
    items
        .enumerate()
        .map(|(i, item)| text(&format!("{name}[{i}]"), &item?))
        .collect()
}

/// A serializable report as Python objects, through JSON (the shape `--json` prints),
/// with `fill` giving the keys it may leave out their defaults: every dict of a report has
/// the same keys every time.
fn to_py<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
    fill: &[Fill],
) -> PyResult<Bound<'py, PyAny>> {
    let mut json = serde_json::to_value(value).map_err(err)?;
    complete(&mut json, fill);
    let text = serde_json::to_string(&json).map_err(err)?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Keys a report's dicts may leave out, and what they are when left out: in every dict
/// (at any depth) that has the key `marker`, each of `defaults` is set where missing.
struct Fill {
    marker: &'static str,
    defaults: &'static [(&'static str, Default)],
}

/// A left-out key's value.
#[derive(Clone, Copy)]
enum Default {
    Null,
    False,
    EmptyList,
}

fn complete(v: &mut Json, fill: &[Fill]) {
    match v {
        Json::Object(map) => {
            for f in fill {
                if map.contains_key(f.marker) {
                    for (key, d) in f.defaults {
                        map.entry(*key).or_insert(match d {
                            Default::Null => Json::Null,
                            Default::False => Json::Bool(false),
                            Default::EmptyList => Json::Array(Vec::new()),
                        });
                    }
                }
            }
            for child in map.values_mut() {
                complete(child, fill);
            }
        }
        Json::Array(items) => items.iter_mut().for_each(|c| complete(c, fill)),
        _ => {}
    }
}

/// `probe`'s dicts: the position's and each move's.
const PROBE_FILL: &[Fill] = &[Fill {
    marker: "verdict",
    defaults: &[
        ("by_rule", Default::Null),
        ("beyond_move_limit", Default::False),
    ],
}];
/// `solve`'s moves.
const SOLVE_FILL: &[Fill] = &[Fill {
    marker: "iccs",
    defaults: &[
        ("plies", Default::Null),
        ("by_rule", Default::False),
        ("repeats", Default::False),
        ("forbidden", Default::EmptyList),
    ],
}];
/// `check_puzzle`'s moves.
const CHECK_FILL: &[Fill] = &[Fill {
    marker: "feedback",
    defaults: &[
        ("slower", Default::Null),
        ("reason", Default::Null),
        ("reason_zh", Default::Null),
        ("now", Default::Null),
        ("now_plies", Default::Null),
    ],
}];
/// `puzzles`' entries.
const PUZZLE_FILL: &[Fill] = &[Fill {
    marker: "goal",
    defaults: &[
        ("moves", Default::Null),
        ("checks", Default::False),
        ("mate", Default::False),
        ("long", Default::False),
    ],
}];
/// `theory`'s report and its tables' sides.
const THEORY_FILL: &[Fill] = &[
    Fill {
        marker: "counterexamples",
        defaults: &[("heat", Default::Null)],
    },
    Fill {
        marker: "win_beyond_move_limit",
        defaults: &[
            ("win_by_rule", Default::Null),
            ("loss_by_rule", Default::Null),
        ],
    },
];

fn notation_arg(notation: &Bound<'_, PyAny>) -> PyResult<Notation> {
    text("notation", notation)?.parse::<Notation>().map_err(bad)
}

fn position_arg(fen: &Bound<'_, PyAny>) -> PyResult<Position> {
    text("fen", fen)?.parse::<Position>().map_err(bad)
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
    fn new(fen: Option<&Bound<'_, PyAny>>) -> PyResult<PyPosition> {
        Ok(PyPosition {
            pos: match fen {
                Some(f) if !f.is_none() => position_arg(f)?,
                _ => Position::start(),
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
    #[pyo3(signature = (notation = None))]
    fn legal_moves(&self, notation: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
        let n = notation_or_iccs(notation)?;
        Ok(self
            .pos
            .legal_moves()
            .iter()
            .map(|&m| notation::format_move(&self.pos, m, n, Style::default()))
            .collect())
    }

    /// A move given in any of the three notations, written in `notation`.
    #[pyo3(signature = (text, notation = None))]
    fn move_name(
        &self,
        text: &Bound<'_, PyAny>,
        notation: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let m = self.parse(&self::text("text", text)?)?;
        Ok(notation::format_move(
            &self.pos,
            m,
            notation_or_iccs(notation)?,
            Style::default(),
        ))
    }

    /// The position after the moves given (each in any notation, legal where it is played).
    #[pyo3(signature = (*moves))]
    fn play(&self, moves: &Bound<'_, PyTuple>) -> PyResult<PyPosition> {
        let moves = move_list("moves", moves)?;
        let mut pos = self.pos.clone();
        for (i, text) in moves.iter().enumerate() {
            let m = notation::parse_move(&pos, text)
                .map_err(|e| bad(format!("move {} ({text}): {e}", i + 1)))?;
            pos.play_unchecked(m);
        }
        Ok(PyPosition { pos })
    }

    /// The board as text (Chinese characters when `chinese`).
    #[pyo3(signature = (chinese = None))]
    fn board(&self, chinese: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let chinese = match chinese {
            Some(c) => flag("chinese", c)?,
            None => true,
        };
        Ok(canju_lib::render::terminal::board(
            &self.pos,
            canju_lib::render::terminal::Style {
                chinese,
                color: false,
            },
        ))
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}')", self.pos)
    }

    /// Equal when the FENs are (board, side to move and counters); a position is never
    /// equal to anything else.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPosition>()
            .is_ok_and(|o| self.pos.to_string() == o.get().pos.to_string())
    }

    fn __ne__(&self, other: &Bound<'_, PyAny>) -> bool {
        !self.__eq__(other)
    }

    /// The hash of the FEN, as equality is the FEN's: a position is a dict key or a set
    /// member.
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.pos.to_string().hash(&mut h);
        h.finish()
    }
}

impl PyPosition {
    fn parse(&self, text: &str) -> PyResult<Move> {
        notation::parse_move(&self.pos, text).map_err(bad)
    }
}

/// A notation argument, `iccs` when not given.
fn notation_or_iccs(notation: Option<&Bound<'_, PyAny>>) -> PyResult<Notation> {
    match notation {
        Some(n) if !n.is_none() => notation_arg(n),
        _ => Ok(Notation::Iccs),
    }
}

/// A `str` argument with a default.
fn text_or(name: &str, v: Option<&Bound<'_, PyAny>>, default: &str) -> PyResult<String> {
    match v {
        Some(v) if !v.is_none() => text(name, v),
        _ => Ok(default.to_string()),
    }
}

/// The rule set of a `rules` argument, `asian` when not given.
fn tables_of(
    dir: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tablebase> {
    let dir = path_opt("dir", dir)?
        .or_else(|| std::env::var_os("CANJU_TB_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("tablebases"));
    let rules = text_or("rules", rules, "asian")?
        .parse::<Rules>()
        .map_err(bad)?;
    Ok(Tablebase::with_rules(dir, rules))
}

/// The value of a position in the tables and of every legal move, best first: what
/// `canju probe --json` prints.
#[pyfunction]
#[pyo3(signature = (fen, dir = None, rules = None))]
fn probe<'py>(
    py: Python<'py>,
    fen: &Bound<'py, PyAny>,
    dir: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let pos = position_arg(fen)?;
    let tb = tables_of(dir, rules)?;
    let stop = AtomicBool::new(false);
    let r = interruptible(py, &stop, || report::probe(&tb, &pos, false))?.map_err(table_err)?;
    to_py(py, &r, PROBE_FILL)
}

/// The shortest forced win within `max_moves` moves, every winning first move and the
/// line: what `canju solve --json` prints. Tables under `dir` decide the positions they
/// hold; `rules="asian"` (a defence that only checks, threatens mate or chases forever
/// fails: 长打作负), `"check-only"` (only checking forever fails) or `"none"`.
#[pyfunction]
#[pyo3(signature = (fen, max_moves = None, rules = None, checks_only = None, mate_only = None, method = None, time = None, dir = None))]
#[allow(clippy::too_many_arguments)]
fn solve<'py>(
    py: Python<'py>,
    fen: &Bound<'py, PyAny>,
    max_moves: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
    checks_only: Option<&Bound<'py, PyAny>>,
    mate_only: Option<&Bound<'py, PyAny>>,
    method: Option<&Bound<'py, PyAny>>,
    time: Option<&Bound<'py, PyAny>>,
    dir: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let pos = position_arg(fen)?;
    let max_moves = match max_moves {
        Some(n) if !n.is_none() => int_in("max_moves", n, 1, i64::from(solver::MAX_MOVES))? as u32,
        _ => 6,
    };
    let mut options = Options::new(max_moves);
    let tb = tables_of(dir, rules)?;
    options.rules = tb.rules();
    options.checks_only = checks_only
        .map(|v| flag("checks_only", v))
        .transpose()?
        .unwrap_or(false);
    options.mate_only = mate_only
        .map(|v| flag("mate_only", v))
        .transpose()?
        .unwrap_or(false);
    options.method = text_or("method", method, "depth-first")?
        .parse()
        .map_err(bad)?;
    options.time = match time {
        Some(t) if !t.is_none() => {
            if t.is_instance_of::<PyBool>()
                || !(t.is_instance_of::<PyFloat>() || t.is_instance_of::<PyInt>())
            {
                return Err(wrong_type("time", "a number of seconds", t));
            }
            match t.extract::<f64>() {
                Ok(t) if t.is_finite() && t > 0.0 && t <= 1e7 => Some(Duration::from_secs_f64(t)),
                _ => {
                    return Err(bad(format!(
                        "time {t}: a number of seconds above 0, at most 10000000 (115 days)"
                    )));
                }
            }
        }
        _ => None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    options.stop = stop.clone();
    let s = interruptible(py, &stop, || solver::solve(&pos, &options, Some(&tb)))?.map_err(
        |e| match e {
            solver::SolveError::Table(t) => table_err(t),
            solver::SolveError::Bound(_) => bad(e),
            other => err(other),
        },
    )?;
    to_py(py, &SolveReport::new(&pos, &s), SOLVE_FILL)
}

/// Every built-in puzzle, as `canju puzzle list --json` lists it (without progress).
#[pyfunction]
fn puzzles(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let all = puzzle::load_builtin().map_err(err)?;
    let list: Vec<_> = all.iter().map(|p| p.summary()).collect();
    to_py(py, &list, PUZZLE_FILL)
}

/// Judges a line of moves of the puzzle `id` (the player's alone, or both sides') against
/// perfect play: what `canju puzzle check --json` prints.
#[pyfunction]
#[pyo3(signature = (id, moves, dir = None, rules = None))]
fn check_puzzle<'py>(
    py: Python<'py>,
    id: &Bound<'py, PyAny>,
    moves: &Bound<'py, PyAny>,
    dir: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let id = text("id", id)?;
    let moves = move_list("moves", moves)?;
    let all = puzzle::load_builtin().map_err(err)?;
    let p = all
        .iter()
        .find(|p| p.entry.id == id)
        .ok_or_else(|| bad(format!("no puzzle '{id}' (canju.puzzles() lists them)")))?;
    let tb = tables_of(dir, rules)?;
    let stop = Arc::new(AtomicBool::new(false));
    let r = interruptible(py, &stop, || {
        let judge = Judge::for_puzzle(Some(&tb), p).with_limits(stop.clone(), None);
        puzzle::check::check_line(p, &judge, &moves)
    })?
    .map_err(err)?;
    to_py(py, &r, CHECK_FILL)
}

/// A saying or a material measured over its table (built first if missing): what `canju
/// theory CLAIM --json` prints.
#[pyfunction(name = "theory")]
#[pyo3(signature = (claim, dir = None, rules = None, examples = None))]
fn theory_report<'py>(
    py: Python<'py>,
    claim: &Bound<'py, PyAny>,
    dir: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
    examples: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let claim = Claim::parse(&text("claim", claim)?).map_err(bad)?;
    claim.check_scope().map_err(bad)?;
    let examples = match examples {
        Some(n) if !n.is_none() => int_in("examples", n, 0, 1_000_000)? as usize,
        _ => 3,
    };
    let tb = tables_of(dir, rules)?;
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
    to_py(py, &r, THEORY_FILL)
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
#[pyo3(signature = (material, dir = None, rules = None, progress = None))]
fn build_tables<'py>(
    py: Python<'py>,
    material: &Bound<'py, PyAny>,
    dir: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m: Material = text("material", material)?.parse().map_err(bad)?;
    let tb = tables_of(dir, rules)?;
    let progress = match progress {
        Some(p) if !p.is_none() => {
            if !p.is_callable() {
                return Err(wrong_type("progress", "a callable", p));
            }
            Some(p.clone().unbind())
        }
        _ => None,
    };
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
    let reports = built.map_err(table_err)?;
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
    to_py(py, &rows, &[])
}

/// canju: Xiangqi endgames for Python.
#[pymodule]
fn canju(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPosition>()?;
    m.add("CanjuError", m.py().get_type::<CanjuError>())?;
    add_kinds(m)?;
    m.add_function(wrap_pyfunction!(probe, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(puzzles, m)?)?;
    m.add_function(wrap_pyfunction!(check_puzzle, m)?)?;
    m.add_function(wrap_pyfunction!(theory_report, m)?)?;
    m.add_function(wrap_pyfunction!(build_tables, m)?)?;
    m.add("START_FEN", canju_lib::START_FEN)?;
    m.add(
        "__all__",
        [
            "ArgumentTypeError",
            "CanjuError",
            "InvalidInputError",
            "Position",
            "START_FEN",
            "TablebaseError",
            "build_tables",
            "check_puzzle",
            "probe",
            "puzzles",
            "solve",
            "theory",
        ],
    )?;
    Ok(())
}
