//! `canju serve`: the tables, the solver, the puzzles and the theory reports as a JSON API
//! on a local HTTP server (axum over hyper on tokio). Every request is bounded:
//! - inputs are checked for size and sense, and the tables a request needs for being
//!   there, before any work;
//! - work that computes (proofs, judging, hints, theory counts) runs on blocking threads,
//!   at most [`HEAVY_AT_ONCE`] at a time (more get a 503 at once, so short requests never
//!   wait behind them), under a time limit that counts from its start and a node limit;
//!   it stops when its client goes away, its time is up or the server is stopped, and its
//!   slot is freed only when it has really ended;
//! - a connection idle or slow to send a request's head is closed after a timeout, the
//!   connections at once are bounded by the descriptors the process may open, and a whole
//!   request by [`REQUEST_SECONDS`];
//! - every error is a JSON body `{"error": …}`, whatever produced it.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Value as JsonValue, json};
use tokio::sync::Semaphore;

use canju::Position;
use canju::notation::{self, Notation, Style};
use canju::puzzle::attempt::AttemptError;
use canju::puzzle::{Puzzle, listing};
use canju::solver::report::SolveReport;
use canju::solver::{self, Options};
use canju::tablebase::index::MAX_PIECES;
use canju::tablebase::report::{self, ProbeReport};
use canju::tablebase::{Rules, Tablebase};
use canju::theory::{self, Claim, Request};

mod cloud;
mod conn;
mod error;

use crate::remedy::gen_command;

use error::ApiError;
pub use error::Error;

/// What the server is started with.
pub struct Config {
    /// The host to listen on (localhost unless told otherwise).
    pub host: String,
    /// The port (0: any free one).
    pub port: u16,
    /// The table directory.
    pub dir: PathBuf,
    /// Open the page in the desktop's browser.
    pub open: bool,
    /// The rule set of the tables.
    pub rules: Rules,
    /// Memory for decompressed table blocks, in MB.
    pub cache_mb: usize,
    /// How long a connection may be idle, take to send a request's head, or leave an
    /// answer unread.
    pub idle_timeout: Duration,
    /// Names the server answers to besides its own address and `localhost` (and `host`
    /// when it is a name): a request with another `Host` is refused.
    pub allow_hosts: Vec<String>,
}

/// Proofs and theory counts running at once; more are refused with 503 until one ends.
const HEAVY_AT_ONCE: usize = 2;
/// The solver's time limit per request: the default and the most a request may ask.
const SOLVE_DEFAULT_SECONDS: f64 = 5.0;
const SOLVE_MAX_SECONDS: f64 = 20.0;
/// The solver's node limit per request (about 40 s of work on one core at its slowest).
const SOLVE_MAX_NODES: u64 = 200_000_000;
/// The solver's transposition table per request, in MB.
const SOLVE_HASH_MB: usize = 16;
/// The longest FEN, claim or move text a request may send, in bytes.
const MAX_TEXT: usize = 200;
/// Most moves a puzzle check may send.
const MAX_MOVES_SENT: usize = 64;
/// Theory reports kept in memory (the cache starts over when full).
const THEORY_CACHE_ENTRIES: usize = 256;
/// Largest request body, in bytes.
const MAX_BODY: usize = 16 * 1024;
/// The longest request target (path and query) answered, in bytes; a longer one is a 414.
pub(crate) const MAX_URI: usize = 8 * 1024;
/// Time limit of a puzzle check or hint (each search in it also has the node limit).
const JUDGE_SECONDS: u64 = 30;
/// Time limit of a theory count or heatmap.
const THEORY_SECONDS: u64 = 60;
/// The most any request may take, from its head read to its answer (a body that never
/// comes, say); above every work's own limit.
const REQUEST_SECONDS: u64 = 90;
/// After a proof's own time limit, how long it has to stop before the request gives up on it.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// How long Ctrl-C waits for requests in flight (their work is told to stop at once).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

struct AppState {
    /// The tables under the server's rule set: puzzles, proofs, theory, and probes that
    /// name no rule set.
    tb: Tablebase,
    /// The same directory's tables under the other rule sets, for probes that ask for one.
    others: Vec<Tablebase>,
    puzzles: Vec<Puzzle>,
    heavy: Arc<Semaphore>,
    /// The stop flags of the work running now, by job number: set all at shutdown.
    jobs: Mutex<HashMap<u64, Arc<AtomicBool>>>,
    next_job: AtomicU64,
    /// The server is stopping: no new work starts.
    closing: AtomicBool,
    theory_cache: Mutex<HashMap<String, Arc<JsonValue>>>,
}

type Shared = Arc<AppState>;

type ApiResult = Result<Json<JsonValue>, ApiError>;

/// The query's parameters, or a 400 that says which one is wrong.
fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(q)| q)
        .map_err(|e| ApiError::bad(e.body_text()))
}

fn text_arg<'a>(name: &str, text: &'a Option<String>) -> Result<&'a str, ApiError> {
    match text.as_deref() {
        None | Some("") => Err(ApiError::bad(format!("'{name}' is missing"))),
        Some(t) if t.len() > MAX_TEXT => Err(ApiError::bad(format!(
            "'{name}' is {} bytes long; at most {MAX_TEXT}",
            t.len()
        ))),
        Some(t) => Ok(t),
    }
}

fn fen_arg(fen: &Option<String>) -> Result<Position, ApiError> {
    Ok(text_arg("fen", fen)?.parse::<Position>()?)
}

/// Sets a stop flag when dropped: the handler's future is dropped when its client
/// disconnects (or the whole request times out), and the work it started then stops.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Relaxed);
    }
}

/// Removes a job's stop flag from the server's list when the work ends.
struct JobEntry(Shared, u64);

impl Drop for JobEntry {
    fn drop(&mut self) {
        self.0.jobs.lock().expect("lock").remove(&self.1);
    }
}

/// Runs work that computes: on a blocking thread, holding one of the [`HEAVY_AT_ONCE`]
/// slots (none free: a 503 at once) until the work has really ended, with a stop flag that
/// is set when the client goes away, when `limit` has passed since the work started, or
/// when the server stops. The work must check the flag; the answer waits `limit` plus
/// [`STOP_GRACE`] at most.
async fn run_heavy<T: Send + 'static>(
    state: &Shared,
    limit: Duration,
    work: impl FnOnce(Arc<AtomicBool>) -> T + Send + 'static,
) -> Result<T, ApiError> {
    if state.closing.load(Relaxed) {
        return Err(ApiError::closing());
    }
    let permit = state.heavy.clone().try_acquire_owned().map_err(|_| {
        ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{HEAVY_AT_ONCE} proofs or counts are running; try again in a moment"),
        )
    })?;
    let stop = Arc::new(AtomicBool::new(false));
    let _on_drop = StopOnDrop(stop.clone());
    let job = state.next_job.fetch_add(1, Relaxed);
    state.jobs.lock().expect("lock").insert(job, stop.clone());
    let entry = JobEntry(state.clone(), job);
    if state.closing.load(Relaxed) {
        return Err(ApiError::closing());
    }
    let flag = stop.clone();
    let task = tokio::task::spawn_blocking(move || {
        let _held = (permit, entry);
        work(flag)
    });
    let deadline = tokio::time::sleep(limit);
    tokio::pin!(task, deadline);
    tokio::select! {
        joined = &mut task => return joined.map_err(ApiError::internal),
        () = &mut deadline => stop.store(true, Relaxed),
    }
    match tokio::time::timeout(STOP_GRACE, task).await {
        Ok(joined) => joined.map_err(ApiError::internal),
        Err(_) => Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the work did not stop within {} s of its time limit ({} s); its slot stays taken until it does",
                STOP_GRACE.as_secs(),
                limit.as_secs_f64()
            ),
        )),
    }
}

#[derive(Deserialize)]
struct FenQuery {
    fen: Option<String>,
    /// asian or none (default: the server's rule set).
    rules: Option<String>,
}

/// `GET /api/probe?fen=…[&rules=asian|none]`: the tables' value of a position and of every
/// legal move, under the rule set asked for (default: the server's).
async fn probe(
    State(state): State<Shared>,
    q: Result<Query<FenQuery>, QueryRejection>,
) -> Result<Json<ProbeReport>, ApiError> {
    let q = query(q)?;
    let pos = fen_arg(&q.fen)?;
    if pos.piece_count() > MAX_PIECES {
        return Err(ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "{} pieces: the tables hold at most {MAX_PIECES}; /api/solve proves mates in any position",
                pos.piece_count()
            ),
        ));
    }
    let tb = state.tables_named(q.rules.as_deref())?;
    Ok(Json(report::probe(tb, &pos, false)?))
}

/// `GET /chessdb.php?action=A&board=FEN[&ban=move:M|…][&json=1]`: the Xiangqi cloud
/// database's query API, answered from the tables and a bounded proof (see
/// [`cloud`]), in its own words: `invalid board`, `checkmate`, `unknown`, … as text with
/// status 200, as it answers them.
async fn chessdb(
    State(state): State<Shared>,
    q: Result<Query<cloud::CloudQuery>, QueryRejection>,
) -> Response {
    let q = match query(q) {
        Ok(q) => q,
        Err(e) => return e.into_response(),
    };
    let as_json = q.json.as_deref() == Some("1");
    let reply = |body: String| {
        let kind = if as_json {
            "application/json"
        } else {
            "text/plain; charset=utf-8"
        };
        ([(axum::http::header::CONTENT_TYPE, kind)], body).into_response()
    };
    let Some(action) = q.action.as_deref().and_then(cloud::Action::parse) else {
        return ApiError::bad(format!(
            "action {}: queryall, querybest, query, querysearch, querypv or queryscore",
            q.action.as_deref().unwrap_or("(none)")
        ))
        .into_response();
    };
    let Some(pos) = q.board.as_deref().and_then(cloud::read_board) else {
        return reply(if as_json {
            json!({ "status": "invalid board" }).to_string()
        } else {
            "invalid board".to_string()
        });
    };
    let ban = cloud::read_ban(&pos, q.ban.as_deref());
    let rules = state.tb.rules();
    let known = if cloud::needs_proof(&state.tb, &pos) {
        let (st, p) = (state.clone(), pos.clone());
        let limit = cloud::PROOF_TIME + STOP_GRACE;
        match run_heavy(&state, limit, move |stop| {
            cloud::look_up(st.tables(rules), rules, &p, &ban, stop)
        })
        .await
        {
            Ok(k) => k,
            Err(e) => return e.into_response(),
        }
    } else {
        cloud::look_up(
            &state.tb,
            rules,
            &pos,
            &ban,
            Arc::new(AtomicBool::new(false)),
        )
    };
    reply(cloud::answer(action, &pos, &known, as_json))
}

/// `GET /xiangqi?fen=FEN[&rules=asian|none]`: the tables' answer shaped as lichess's
/// tablebase server answers (`category`, `dtm`, each move's `category` and `dtm`).
async fn lichess_tablebase(
    State(state): State<Shared>,
    q: Result<Query<FenQuery>, QueryRejection>,
) -> ApiResult {
    let q = query(q)?;
    let pos = fen_arg(&q.fen)?;
    let tb = state.tables_named(q.rules.as_deref())?;
    Ok(Json(cloud::lichess(tb, &pos)))
}

#[derive(Deserialize)]
struct SolveQuery {
    fen: Option<String>,
    max_moves: Option<u32>,
    time: Option<f64>,
    checks_only: Option<bool>,
    mate_only: Option<bool>,
    method: Option<String>,
    rules: Option<String>,
}

/// `GET /api/solve?fen=…&max_moves=…&time=…&checks_only=…&mate_only=…&method=…&rules=…`:
/// the solver, with a time limit (`method`: `depth-first`, the default, or `proof-number`;
/// `rules`: the server's tables' rule set by default, `asian` (a defence by perpetual
/// check fails) or `none`).
async fn solve(
    State(state): State<Shared>,
    q: Result<Query<SolveQuery>, QueryRejection>,
) -> ApiResult {
    let q = query(q)?;
    let pos = fen_arg(&q.fen)?;
    let max_moves = q.max_moves.unwrap_or(solver::DEFAULT_MAX_MOVES);
    if max_moves == 0 || max_moves > solver::MAX_MOVES {
        return Err(ApiError::bad(format!(
            "max_moves {max_moves}: between 1 and {}",
            solver::MAX_MOVES
        )));
    }
    let seconds = q.time.unwrap_or(SOLVE_DEFAULT_SECONDS);
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= SOLVE_MAX_SECONDS) {
        return Err(ApiError::bad(format!(
            "time {seconds}: seconds above 0, at most {SOLVE_MAX_SECONDS}"
        )));
    }
    let mut options = Options::new(max_moves);
    // the time counts from the proof's start, which is when it gets its slot
    options.time = Some(Duration::from_secs_f64(seconds));
    options.max_nodes = Some(SOLVE_MAX_NODES);
    options.hash_mb = SOLVE_HASH_MB;
    options.checks_only = q.checks_only.unwrap_or(false);
    options.mate_only = q.mate_only.unwrap_or(false);
    if let Some(m) = &q.method {
        options.method = m
            .parse()
            .map_err(|e| ApiError::bad(format!("method: {e}")))?;
    }
    options.rules = match q.rules.as_deref().map(str::parse::<Rules>) {
        None => state.tb.rules(),
        Some(Ok(r)) => r,
        Some(Err(e)) => return Err(ApiError::bad(format!("rules: {e}"))),
    };
    let st = state.clone();
    // the proof stops itself at its time limit and answers what it proved; the stop flag
    // is for a client that leaves, and a second guard
    let limit = Duration::from_secs_f64(seconds) + STOP_GRACE;
    let (pos, s) = run_heavy(&state, limit, move |stop| {
        options.stop = stop.clone();
        let tb = st.tables(options.rules);
        let solved = solver::solve(&pos, &options, Some(tb));
        // stopped from outside (the server is stopping): what it proved so far is not
        // the answer the request asked for (the flag alone does not say so: the proof
        // sets it too when its own time runs out, and then answers what it proved)
        if st.closing.load(Relaxed) {
            return Err(ApiError::closing());
        }
        solved.map(|s| (pos, s)).map_err(ApiError::from)
    })
    .await??;
    let j = serde_json::to_value(SolveReport::new(&pos, &s)).map_err(ApiError::internal)?;
    Ok(Json(j))
}

/// `GET /api/puzzles`: every built-in puzzle, with the recorded progress (shared with
/// the command line's).
async fn puzzles(State(state): State<Shared>) -> ApiResult {
    let progress = tokio::task::spawn_blocking(recorded_progress)
        .await
        .unwrap_or_default();
    let list: Vec<JsonValue> = state
        .puzzles
        .iter()
        .map(|p| {
            puzzle_json(p).map(|mut j| {
                let r = progress.get(&p.entry.id);
                j["progress"] = json!(listing::mark(r));
                j["rating"] = json!(progress.puzzle_rating(p).shown());
                j["due"] = json!(r.and_then(|r| r.due()));
                j
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Json(JsonValue::Array(list)))
}

#[derive(Deserialize)]
struct ProgressQuery {
    /// The next puzzle from this collection only.
    collection: Option<String>,
    /// The next puzzle with this tag only.
    tag: Option<String>,
}

/// `GET /api/progress?collection=C&tag=T`: the player's rating, streak and counts, and
/// the puzzle to do next (among those of the collection and tag, when given): a review
/// that is due, else the untried puzzle rated nearest the player, as `canju puzzle play`
/// with no id chooses.
async fn player_progress(
    State(state): State<Shared>,
    q: Result<Query<ProgressQuery>, QueryRejection>,
) -> ApiResult {
    use canju::puzzle::progress::Why;
    let q = query(q)?;
    let progress = tokio::task::spawn_blocking(recorded_progress)
        .await
        .unwrap_or_default();
    let now = canju::puzzle::progress::now();
    let count = |m: &str| {
        state
            .puzzles
            .iter()
            .filter(|p| listing::mark(progress.get(&p.entry.id)) == Some(m))
            .count()
    };
    let due = state
        .puzzles
        .iter()
        .filter(|p| {
            progress
                .get(&p.entry.id)
                .and_then(|r| r.due())
                .is_some_and(|d| d <= now)
        })
        .count();
    let chosen: Vec<Puzzle> = state
        .puzzles
        .iter()
        .filter(|p| {
            q.collection
                .as_deref()
                .is_none_or(|c| c.is_empty() || p.collection == c)
        })
        .filter(|p| {
            q.tag
                .as_deref()
                .is_none_or(|t| t.is_empty() || p.entry.tags.iter().any(|x| x == t))
        })
        .cloned()
        .collect();
    let next = progress.next(&chosen, now).map(|(p, why)| {
        json!({
            "id": p.entry.id,
            "why": match why { Why::Due => "due", Why::New => "new" },
        })
    });
    let me = progress.player_rating();
    Ok(Json(json!({
        "rating": me.shown(),
        "rating_deviation": me.deviation.round(),
        "streak": progress.streak,
        "clean": count("clean"),
        "helped": count("helped"),
        "failed": count("failed"),
        "due": due,
        "next": next,
        "next_review": progress.next_review(),
    })))
}

fn puzzle_json(p: &Puzzle) -> Result<JsonValue, ApiError> {
    serde_json::to_value(p.details()).map_err(ApiError::internal)
}

/// The recorded progress (none when there is no file or it cannot be read).
fn recorded_progress() -> canju::puzzle::progress::Progress {
    canju::puzzle::progress::default_path()
        .and_then(|path| canju::puzzle::progress::load(&path).ok())
        .map(|(p, _)| p)
        .unwrap_or_default()
}

fn find_puzzle<'a>(state: &'a AppState, id: &str) -> Result<&'a Puzzle, ApiError> {
    if id.len() > MAX_TEXT {
        return Err(ApiError::bad(format!(
            "the puzzle id is {} bytes long; at most {MAX_TEXT}",
            id.len()
        )));
    }
    state
        .puzzles
        .iter()
        .find(|p| p.entry.id == id)
        .ok_or_else(|| {
            ApiError(
                StatusCode::NOT_FOUND,
                format!(
                    "no puzzle '{id}' (GET /api/puzzles lists the {})",
                    state.puzzles.len()
                ),
            )
        })
}

/// `GET /api/puzzles/{id}`.
async fn puzzle(State(state): State<Shared>, Path(id): Path<String>) -> ApiResult {
    Ok(Json(puzzle_json(find_puzzle(&state, &id)?)?))
}

#[derive(Deserialize)]
struct CheckBody {
    moves: Vec<String>,
}

/// `POST /api/puzzles/{id}/check` with `{"moves": […]}` in any notation: the feedback of
/// `canju puzzle check --json`.
async fn check(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Result<Json<CheckBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult {
    let Json(body) = body.map_err(|e| {
        ApiError(
            e.status(),
            format!("the body must be {{\"moves\": [...]}}: {}", e.body_text()),
        )
    })?;
    let p = find_puzzle(&state, &id)?;
    if body.moves.is_empty() || body.moves.len() > MAX_MOVES_SENT {
        return Err(ApiError::bad(format!(
            "moves: between 1 and {MAX_MOVES_SENT}"
        )));
    }
    if let Some(m) = body.moves.iter().find(|m| m.len() > MAX_TEXT) {
        return Err(ApiError::bad(format!(
            "a move of {} bytes; at most {MAX_TEXT}",
            m.len()
        )));
    }
    puzzle_tables(&state, p)?;
    let st = state.clone();
    let p = p.clone();
    let checked = run_heavy(&state, Duration::from_secs(JUDGE_SECONDS), move |stop| {
        let judge = canju::puzzle::Judge::for_puzzle(Some(&st.tb), &p)
            .with_limits(stop.clone(), Some(SOLVE_MAX_NODES));
        // (the flag is read here: once the handler returns, it is set for good)
        canju::puzzle::check::check_line(&p, &judge, &body.moves).map_err(|e| {
            if stop.load(Relaxed) {
                ApiError::stopped()
            } else {
                ApiError::from(e)
            }
        })
    })
    .await??;
    let j = serde_json::to_value(&checked).map_err(ApiError::internal)?;
    Ok(Json(j))
}

/// A 409 naming the `canju gen` command when a puzzle is judged by tables that are not
/// built: the server builds no tables.
fn puzzle_tables(state: &AppState, p: &Puzzle) -> Result<(), ApiError> {
    match p.table_to_build(&state.tb) {
        Some(m) => Err(ApiError::conflict(format!(
            "puzzle {} is judged by the tables of {m}, which are not built: run {}",
            p.entry.id,
            gen_command(&state.tb.path_of(&m))
        ))),
        None => Ok(()),
    }
}

#[derive(Deserialize)]
struct TheoryQuery {
    claim: Option<String>,
    limit: Option<usize>,
}

/// `GET /api/theory?claim=…&limit=…`: `canju theory --json`, over tables already built.
async fn theory_report(
    State(state): State<Shared>,
    q: Result<Query<TheoryQuery>, QueryRejection>,
) -> ApiResult {
    let q = query(q)?;
    let text = text_arg("claim", &q.claim)?;
    let limit = q.limit.unwrap_or(5);
    if limit > 100 {
        return Err(ApiError::bad(format!("limit {limit}: at most 100")));
    }
    let claim = Claim::parse(text).map_err(ApiError::bad)?;
    claim.check_scope().map_err(ApiError::bad)?;
    let key = format!("{}|{limit}", claim.text);
    if let Some(j) = state.theory_cache.lock().expect("lock").get(&key) {
        return Ok(Json((**j).clone()));
    }
    // every table the claim's material falls into must be there: the server builds none
    missing_tables(&state, &claim)?;
    let st = state.clone();
    let report = run_heavy(&state, Duration::from_secs(THEORY_SECONDS), move |stop| {
        let request = Request {
            limit,
            heat: None,
            stop: Some(stop),
        };
        theory::measure(&claim, &st.tb, &request, &|_, _| {})
    })
    .await?
    .map_err(ApiError::from)?;
    let j = Arc::new(serde_json::to_value(&report).map_err(ApiError::internal)?);
    let mut cache = state.theory_cache.lock().expect("lock");
    if cache.len() >= THEORY_CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(key, j.clone());
    drop(cache);
    Ok(Json((*j).clone()))
}

/// Plays a list of moves (any notation) from a position; a 400 names the first illegal one.
fn play_moves(mut pos: Position, moves: &[String]) -> Result<Position, ApiError> {
    if moves.len() > 400 {
        return Err(ApiError::bad(format!("{} moves; at most 400", moves.len())));
    }
    for (i, t) in moves.iter().enumerate() {
        if t.len() > MAX_TEXT {
            return Err(ApiError::bad(format!(
                "move {} is {} bytes long; at most {MAX_TEXT}",
                i + 1,
                t.len()
            )));
        }
        let m = notation::parse_move(&pos, t)
            .map_err(|e| ApiError::bad(format!("move {}: {e}", i + 1)))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

fn list_arg(text: &Option<String>) -> Vec<String> {
    text.as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[derive(Deserialize)]
struct MovesQuery {
    fen: Option<String>,
    /// Moves to play first, comma-separated, any notation.
    play: Option<String>,
    /// Each move's attack as well (将, 杀, 捉 or 闲).
    attacks: Option<bool>,
}

/// `GET /api/moves?fen=…&play=m1,m2&attacks=true`: the position after the moves, its legal
/// moves (with what each attacks, when asked), and whether the game is over.
async fn moves(q: Result<Query<MovesQuery>, QueryRejection>) -> ApiResult {
    let q = query(q)?;
    let played = list_arg(&q.play);
    let pos = play_moves(fen_arg(&q.fen)?, &played)?;
    let style = Style::default();
    let namer = notation::MoveNamer::new(&pos);
    let legal: Vec<JsonValue> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut j = json!({
                "iccs": m.to_string(),
                "chinese": namer.name(m, Notation::Chinese, style),
                "wxf": namer.name(m, Notation::Wxf, style),
            });
            if q.attacks == Some(true) {
                let report = canju::game::threat::attack_of(&pos, m).report();
                if let (Some(j), Ok(JsonValue::Object(r))) =
                    (j.as_object_mut(), serde_json::to_value(report))
                {
                    j.extend(r);
                }
            }
            j
        })
        .collect();
    let end = match pos.game_end() {
        Some(canju::GameEnd::Checkmate { .. }) => json!("checkmate"),
        Some(canju::GameEnd::Stalemate { .. }) => json!("stalemate"),
        None => JsonValue::Null,
    };
    Ok(Json(json!({
        "fen": pos.to_string(),
        "side_to_move": pos.turn().name(),
        "in_check": pos.is_check(),
        "pieces": pos.piece_count(),
        "moves": legal,
        "game_over": end,
        // (a composed position: why the tables have no value for it)
        "unreachable": pos.unreachable_piece().map(|u| u.to_string()),
    })))
}

#[derive(Deserialize)]
struct BoardQuery {
    fen: Option<String>,
    flip: Option<bool>,
    /// Arrows, comma-separated ICCS moves.
    arrow: Option<String>,
    /// Circled points, comma-separated.
    mark: Option<String>,
    /// The last move played (ICCS), tinted.
    last: Option<String>,
    /// `en`: red's file numbers as digits (the page in English).
    lang: Option<String>,
}

fn svg_response(svg: String) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "image/svg+xml; charset=utf-8",
        )],
        svg,
    )
        .into_response()
}

/// `GET /api/board.svg?fen=…&arrow=h2e2&mark=e9&last=h2e2&flip=true&lang=en`: the diagram
/// `canju diagram` draws (the last move tinted), with a click target on every point; red's
/// file numbers as digits with `lang=en`.
async fn board_svg(q: Result<Query<BoardQuery>, QueryRejection>) -> Result<Response, ApiError> {
    let q = query(q)?;
    let pos = fen_arg(&q.fen)?;
    let mut o = canju::render::svg::Options {
        flip: q.flip.unwrap_or(false),
        digits: match q.lang.as_deref() {
            None | Some("zh") => false,
            Some("en") => true,
            Some(other) => return Err(ApiError::bad(format!("lang '{other}': zh or en"))),
        },
        ..Default::default()
    };
    let two_points = |what: &str, a: &str| {
        let from = a.get(0..2).and_then(|s| s.parse().ok());
        let to = a.get(2..4).and_then(|s| s.parse().ok());
        match (from, to, a.len()) {
            (Some(f), Some(t), 4) => Ok(canju::Move::new(f, t)),
            _ => Err(ApiError::bad(format!("{what} '{a}': two points like h2e2"))),
        }
    };
    for a in list_arg(&q.arrow).iter().take(8) {
        o.arrows.push(two_points("arrow", a)?);
    }
    if let Some(l) = q.last.as_deref().filter(|l| !l.is_empty()) {
        o.last = Some(two_points("last", l)?);
    }
    for m in list_arg(&q.mark).iter().take(90) {
        o.marks.push(
            m.parse()
                .map_err(|_| ApiError::bad(format!("mark '{m}': a point like e9")))?,
        );
    }
    Ok(svg_response(canju::render::svg::diagram(&pos, &o)))
}

/// `GET /api/sayings`: the sayings `/api/theory` knows.
async fn sayings() -> Json<JsonValue> {
    Json(JsonValue::Array(
        theory::SAYINGS
            .iter()
            .map(|s| {
                json!({
                    "text": s.text,
                    "material": s.material,
                    "lore": s.lore,
                    "scope": s.scope.english(),
                    "scope_chinese": s.scope.chinese(),
                    "english": s.english,
                })
            })
            .collect(),
    ))
}

#[derive(Deserialize)]
struct HeatQuery {
    claim: Option<String>,
    piece: Option<String>,
    side: Option<String>,
    lang: Option<String>,
}

/// `GET /api/theory/heatmap.svg?claim=…&piece=P&side=black&lang=en`: the heatmap of `canju
/// theory --heatmap`, over tables already built; its title and legend in Chinese, in
/// English with `lang=en`, both with `lang=both`.
async fn heatmap_svg(
    State(state): State<Shared>,
    q: Result<Query<HeatQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let claim = Claim::parse(text_arg("claim", &q.claim)?).map_err(ApiError::bad)?;
    let piece = text_arg("piece", &q.piece)?;
    let kind = canju::Kind::from_name(piece).ok_or_else(|| {
        ApiError::bad(format!(
            "piece '{piece}': a letter such as N, a name such as horse, or a character such as 马"
        ))
    })?;
    let side = match q.side.as_deref() {
        None => claim.scope.side_to_move.unwrap_or(canju::Color::Red),
        Some("red") => canju::Color::Red,
        Some("black") => canju::Color::Black,
        Some(o) => return Err(ApiError::bad(format!("side '{o}': red or black"))),
    };
    let words = match q.lang.as_deref() {
        None | Some("zh") => theory::Words::Chinese,
        Some("en") => theory::Words::English,
        Some("both") => theory::Words::Both,
        Some(o) => return Err(ApiError::bad(format!("lang '{o}': zh, en or both"))),
    };
    missing_tables(&state, &claim)?;
    let st = state.clone();
    let report = run_heavy(&state, Duration::from_secs(THEORY_SECONDS), move |stop| {
        let request = Request {
            limit: 0,
            heat: Some((kind, side)),
            stop: Some(stop),
        };
        theory::measure(&claim, &st.tb, &request, &|_, _| {})
    })
    .await?
    .map_err(ApiError::from)?;
    let heat = report
        .heat
        .as_ref()
        .ok_or_else(|| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "no heatmap".into()))?;
    Ok(svg_response(theory::heatmap_svg(&report, heat, words)))
}

/// A 409 naming the `canju gen` command when a claim's tables are not all built.
fn missing_tables(state: &AppState, claim: &Claim) -> Result<(), ApiError> {
    for m in claim.material.build_order() {
        if !state.tb.path_of(&m).exists() {
            return Err(ApiError::conflict(format!(
                "the tables of {} are not all built ({m} is missing): run {}",
                claim.material,
                gen_command(&state.tb.path_of(&claim.material))
            )));
        }
    }
    Ok(())
}

/// The judge's answer after a line of a puzzle, as `hint` and `solution` ask it: the body
/// checked, the tables there, the work bounded in time and nodes.
async fn after_line<T: Serialize + Send + 'static>(
    state: Shared,
    id: String,
    body: Result<Json<CheckBody>, axum::extract::rejection::JsonRejection>,
    answer: fn(&Puzzle, &canju::puzzle::Judge, &[String]) -> Result<T, AttemptError>,
) -> ApiResult {
    let Json(body) = body.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let p = find_puzzle(&state, &id)?;
    if body.moves.len() > MAX_MOVES_SENT || body.moves.iter().any(|m| m.len() > MAX_TEXT) {
        return Err(ApiError::bad(format!(
            "moves: at most {MAX_MOVES_SENT}, each at most {MAX_TEXT} bytes"
        )));
    }
    puzzle_tables(&state, p)?;
    let st = state.clone();
    let p = p.clone();
    let out = run_heavy(&state, Duration::from_secs(JUDGE_SECONDS), move |stop| {
        let judge = canju::puzzle::Judge::for_puzzle(Some(&st.tb), &p)
            .with_limits(stop.clone(), Some(SOLVE_MAX_NODES));
        answer(&p, &judge, &body.moves).map_err(|e| {
            if stop.load(Relaxed) {
                ApiError::stopped()
            } else {
                ApiError::from(e)
            }
        })
    })
    .await??;
    Ok(Json(serde_json::to_value(out).map_err(ApiError::internal)?))
}

/// `POST /api/puzzles/{id}/hint` with `{"moves": […]}` (the line so far, both sides):
/// the player's best move from there, with the two hints the terminal gives (the piece,
/// then the move) in both languages.
async fn hint(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Result<Json<CheckBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult {
    after_line(state, id, body, canju::puzzle::check::hint_after).await
}

/// `POST /api/puzzles/{id}/solution` with `{"moves": […]}`: the main line from there (the
/// player's best moves, the defender's longest resistance), as `solution` in the terminal.
async fn solution(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Result<Json<CheckBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult {
    after_line(state, id, body, |p, judge, moves| {
        canju::puzzle::check::solution_after(p, judge, moves).map(|line| json!({ "line": line }))
    })
    .await
}

#[derive(Deserialize)]
struct ResultBody {
    #[serde(default)]
    solved: bool,
    /// A hint or the solution was shown on the way.
    #[serde(default)]
    helped: bool,
    /// A hint or the solution is being shown now: the attempt is recorded as with help at
    /// once, whether or not the player goes on (the page then records nothing at its end).
    #[serde(default)]
    help: bool,
}

/// `POST /api/puzzles/{id}/result` with `{"solved": true|false, "helped": true|false}`
/// (or `{"help": true}` the moment a hint or the solution is shown): records an attempt in
/// the progress file the command line uses (with a hint or the solution shown it is
/// "helped", not "clean"; a replay before the puzzle is due again is practice, which moves
/// no rating); answers with the ratings after it and the player's change.
async fn record_result(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Result<Json<ResultBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult {
    use canju::puzzle::progress::{self, Finish};
    let Json(body) = body.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let id = find_puzzle(&state, &id)?.entry.id.clone();
    let finish = match (body.help, body.solved, body.helped) {
        (true, _, _) | (false, true, true) => Finish::Helped,
        (false, false, _) => Finish::Failed,
        (false, true, false) => Finish::Clean,
    };
    let answer = tokio::task::spawn_blocking(move || {
        let p = state
            .puzzles
            .iter()
            .find(|p| p.entry.id == id)
            .expect("found above");
        let Some(path) = progress::default_path() else {
            return Err("no home directory to keep progress in".to_string());
        };
        let now = progress::now();
        progress::update(&path, |pr| pr.record(p, finish, now))
            .map(|(after, recorded, _)| {
                let record = after.get(&p.entry.id);
                json!({
                    "recorded": true,
                    "result": finish.name(),
                    "practice": recorded.practice,
                    "rating_change": recorded.change(),
                    "rating": after.player_rating().shown(),
                    "rating_deviation": after.player_rating().deviation.round(),
                    "puzzle_rating": after.puzzle_rating(p).shown(),
                    "due": record.and_then(|r| r.due()),
                })
            })
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::internal)?;
    Ok(Json(answer))
}

/// `GET /api`: what the API offers.
async fn index(State(state): State<Shared>) -> Json<JsonValue> {
    Json(json!({
        "name": "canju",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": state.tb.rules().name(),
        "endpoints": [
            "GET /api/probe?fen=FEN&rules=asian|none",
            "GET /api/solve?fen=FEN&max_moves=N&time=SECONDS&checks_only=true&mate_only=true",
            "GET /api/puzzles",
            "GET /api/progress?collection=C&tag=T",
            "GET /api/puzzles/{id}",
            "POST /api/puzzles/{id}/check {\"moves\": [...]}",
            "GET /api/theory?claim=CLAIM&limit=N",
            "GET /api/theory/heatmap.svg?claim=CLAIM&piece=P&side=red|black",
            "GET /api/sayings",
            "GET /api/moves?fen=FEN&play=m1,m2",
            "GET /api/board.svg?fen=FEN&arrow=h2e2&mark=e9&last=h2e2&flip=true",
            "POST /api/puzzles/{id}/hint {\"moves\": [...]}",
            "POST /api/puzzles/{id}/solution {\"moves\": [...]}",
            "POST /api/puzzles/{id}/result {\"solved\": true, \"helped\": false} or {\"help\": true}",
            "GET /chessdb.php?action=queryall|querybest|query|querysearch|querypv|queryscore&board=FEN&ban=move:M|move:M&json=1",
            "GET /xiangqi?fen=FEN&rules=asian|none",
        ],
    }))
}

/// The page, embedded in the binary: it works offline.
async fn page_html() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        include_str!("../../web/index.html"),
    )
        .into_response()
}

async fn page_js() -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/javascript; charset=utf-8",
        )],
        include_str!("../../web/app.js"),
    )
        .into_response()
}

async fn page_css() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../../web/app.css"),
    )
        .into_response()
}

/// Around every request: a request target over [`MAX_URI`] is a 414; a request that takes
/// over [`REQUEST_SECONDS`] is a 408 (and its work is told to stop); and every error answer
/// that is not JSON yet (axum's own 405, 413 and rejections of a path that is not UTF-8,
/// say) becomes `{"error": …}` with the same status, keeping its other headers (`Allow`).
async fn guard(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let target = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if target > MAX_URI {
        return ApiError(
            StatusCode::URI_TOO_LONG,
            format!("the request target is {target} bytes long; at most {MAX_URI}"),
        )
        .into_response();
    }
    let response =
        match tokio::time::timeout(Duration::from_secs(REQUEST_SECONDS), next.run(req)).await {
            Ok(r) => r,
            Err(_) => {
                return ApiError(
                    StatusCode::REQUEST_TIMEOUT,
                    format!("the request took over {REQUEST_SECONDS} s and was dropped"),
                )
                .into_response();
            }
        };
    let status = response.status();
    let json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096)
        .await
        .ok()
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_string());
    parts.headers.remove(axum::http::header::CONTENT_TYPE);
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    let mut answer = ApiError(status, text).into_response();
    for (name, value) in &parts.headers {
        answer.headers_mut().insert(name, value.clone());
    }
    answer
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        format!("no such endpoint: {} (GET /api lists them)", uri.path()),
    )
}

fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(page_html))
        .route("/app.js", get(page_js))
        .route("/app.css", get(page_css))
        .route("/api", get(index))
        .route("/api/moves", get(moves))
        .route("/api/board.svg", get(board_svg))
        .route("/api/sayings", get(sayings))
        .route("/api/theory/heatmap.svg", get(heatmap_svg))
        .route("/api/puzzles/{id}/hint", post(hint))
        .route("/api/puzzles/{id}/solution", post(solution))
        .route("/api/puzzles/{id}/result", post(record_result))
        .route("/api/probe", get(probe))
        .route("/api/solve", get(solve))
        .route("/api/puzzles", get(puzzles))
        .route("/api/progress", get(player_progress))
        .route("/api/puzzles/{id}", get(puzzle))
        .route("/api/puzzles/{id}/check", post(check))
        .route("/api/theory", get(theory_report))
        .route("/chessdb.php", get(chessdb))
        .route("/xiangqi", get(lichess_tablebase))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn(guard))
        .with_state(state)
}

/// Connections served at once: what the process's descriptor limit leaves after a reserve
/// for table files and the rest, between 4 and 1,024. More wait in the listen queue.
fn connection_limit() -> usize {
    const RESERVE: u64 = 64;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        limit.rlim_cur
    } else {
        1024
    };
    soft.saturating_sub(RESERVE).clamp(4, 1024) as usize
}

/// Accepts and serves connections until `stopping` turns true, then lets the connections
/// in flight end (idle ones at once, the rest within [`SHUTDOWN_GRACE`]). A connection
/// that is idle, or slow to send a request's head, for `idle` is closed, and so is one
/// whose client reads nothing of an answer for as long; a failed accept (out of
/// descriptors, say) is retried after a pause, never the end of the server. At the
/// connection limit the connection idle longest is shed, so that a new client is answered
/// at once; only when every connection is answering a request does a new one wait. A
/// request whose `Host` is not this server's is refused with 403.
async fn serve_connections(
    listener: tokio::net::TcpListener,
    app: Router,
    idle: Duration,
    hosts: conn::HostCheck,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    use hyper::service::Service as _;
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(Semaphore::new(connection_limit()));
    let open = Arc::new(conn::Connections::default());
    let hosts = Arc::new(hosts);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // EMFILE, ENFILE, ECONNABORTED: pause, then go on
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stopping.changed() => break,
        };
        let permit = match slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                open.shed_idlest();
                tokio::select! {
                    p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
                    _ = stopping.changed() => break,
                }
            }
        };
        let local = stream
            .local_addr()
            .map_or(std::net::IpAddr::from([127, 0, 0, 1]), |a| a.ip());
        let this = open.open();
        let inner = hyper_util::service::TowerToHyperService::new(app.clone());
        let (all, me, hosts_) = (open.clone(), this.clone(), hosts.clone());
        let service = hyper::service::service_fn(
            move |req: axum::http::Request<hyper::body::Incoming>| {
                let busy = all.busy(&me);
                let host = req.headers().get(axum::http::header::HOST).cloned();
                let answer = hosts_
                    .allows(host.as_ref().map(|h| h.as_bytes()), local)
                    .then(|| inner.call(req));
                async move {
                    let _busy = busy;
                    match answer {
                    Some(answer) => answer.await,
                    None => Ok(ApiError(
                        StatusCode::FORBIDDEN,
                        format!(
                            "the request is addressed to {}, not to this server: it answers to its own address, localhost and the names given to --host or --allow-host (a page may not reach it by another name: DNS rebinding)",
                            host.as_ref()
                                .map(|h| format!("'{}'", String::from_utf8_lossy(h.as_bytes())))
                                .unwrap_or_default()
                        ),
                    )
                    .into_response()),
                }
                }
            },
        );
        let mut stop = stopping.clone();
        let all = open.clone();
        connections.spawn(async move {
            let _permit = permit;
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(idle)
                .max_header_size(conn::MAX_HEAD)
                .max_headers(conn::MAX_HEADERS)
                .max_buf_size(64 * 1024)
                .serve_connection(TokioIo::new(conn::Socket::new(stream, idle)), service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                // (shed: idle, so dropped at once)
                () = this.shed() => {}
                _ = stop.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            all.close(&this);
        });
        while connections.try_join_next().is_some() {}
    }
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
}

/// Waits for Ctrl-C (SIGINT) or SIGTERM.
async fn stop_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminated => {}
    }
}

/// Opens a page in the desktop's browser; says so when it cannot.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let opened = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok();
    if !opened {
        errln!("canju serve: could not start {opener}; open {url} yourself");
    }
}

/// Serves the page and the API until SIGINT or SIGTERM.
impl AppState {
    /// The tables of a request's `rules` parameter: the server's own without one; a 400
    /// for a name that is no rule set.
    fn tables_named(&self, rules: Option<&str>) -> Result<&Tablebase, ApiError> {
        match rules.map(str::parse::<Rules>) {
            None => Ok(&self.tb),
            Some(Ok(r)) => Ok(self.tables(r)),
            Some(Err(e)) => Err(ApiError::bad(format!("rules: {e}"))),
        }
    }

    /// The directory's tables under `rules`.
    fn tables(&self, rules: Rules) -> &Tablebase {
        if rules == self.tb.rules() {
            return &self.tb;
        }
        self.others
            .iter()
            .find(|t| t.rules() == rules)
            .expect("a tablebase for every rule set")
    }
}

/// The server's state: the tables of `dir` under both rule sets, and the built-in puzzles.
fn state(dir: &std::path::Path, rules: Rules, cache_mb: usize) -> Result<Shared, Error> {
    Ok(Arc::new(AppState {
        tb: Tablebase::with_rules(dir, rules).with_cache_mb(cache_mb),
        others: Rules::ALL
            .into_iter()
            .filter(|&r| r != rules)
            .map(|r| Tablebase::with_rules(dir, r).with_cache_mb(cache_mb))
            .collect(),
        puzzles: canju::puzzle::load_builtin()?,
        heavy: Arc::new(Semaphore::new(HEAVY_AT_ONCE)),
        jobs: Mutex::new(HashMap::new()),
        next_job: AtomicU64::new(0),
        closing: AtomicBool::new(false),
        theory_cache: Mutex::new(HashMap::new()),
    }))
}

pub fn run(a: Config) -> Result<(), Error> {
    let dir = a.dir.clone();
    let state = state(&dir, a.rules, a.cache_mb)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            what: "cannot start the server's runtime",
            source,
        })?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((a.host.as_str(), a.port))
            .await
            .map_err(|source| Error::Listen {
                host: a.host.clone(),
                port: a.port,
                source,
            })?;
        let addr: SocketAddr = listener.local_addr().map_err(|source| Error::Io {
            what: "the listening socket",
            source,
        })?;
        outln!(
            "canju serve: http://{addr}/ (page) and http://{addr}/api (tables in {}, rules {}); Ctrl-C stops",
            dir.display(),
            a.rules.describe()
        );
        crate::output::flush();
        if a.open {
            open_browser(&format!("http://{addr}/"));
        }
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let st = state.clone();
        tokio::spawn(async move {
            stop_signal().await;
            // no new work; the work in flight is told to stop; then the connections end
            st.closing.store(true, Relaxed);
            for stop in st.jobs.lock().expect("lock").values() {
                stop.store(true, Relaxed);
            }
            let _ = stop_tx.send(true);
        });
        let hosts = conn::HostCheck::new(
            std::iter::once(a.host.as_str()).chain(a.allow_hosts.iter().map(String::as_str)),
        );
        serve_connections(listener, router(state), a.idle_timeout, hosts, stop_rx).await;
        outln!("canju serve: stopped");
        Ok::<(), Error>(())
    })?;
    // work that has not noticed its stop flag yet is not waited for
    runtime.shutdown_timeout(Duration::from_millis(500));
    Ok(())
}

#[cfg(test)]
mod tests;
