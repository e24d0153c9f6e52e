//! `canju serve`: the tables, the solver, the puzzles and the theory reports as a JSON API
//! on a local HTTP server (axum on tokio). Every request is bounded: inputs are checked
//! for size and sense before any work, proofs and theory counts run on blocking threads
//! under a small semaphore with a time limit, and nothing but the table directory is read.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value as JsonValue, json};
use tokio::sync::Semaphore;

use canju::Position;
use canju::material::Material;
use canju::notation::{self, Notation, Style};
use canju::puzzle::Puzzle;
use canju::solver::{self, Options};
use canju::tablebase::format::gen_command;
use canju::tablebase::index::MAX_PIECES;
use canju::tablebase::{Rules, TableError, Tablebase};
use canju::theory::{self, Claim, Request};

use super::tb::table_dir;
use super::{CliError, CliResult};

pub struct ServeArgs<'a> {
    pub host: &'a str,
    pub port: u16,
    pub dir: &'a Option<PathBuf>,
    pub open: bool,
    pub rules: Rules,
    pub cache_mb: usize,
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

struct AppState {
    /// The tables under the server's rule set: puzzles, proofs, theory, and probes that
    /// name no rule set.
    tb: Tablebase,
    /// The same directory's tables under the other rule set, for probes that ask for it.
    other: Tablebase,
    puzzles: Vec<Puzzle>,
    heavy: Semaphore,
    theory_cache: Mutex<HashMap<String, Arc<JsonValue>>>,
    /// One writer of the progress file at a time.
    progress_lock: Mutex<()>,
}

type Shared = Arc<AppState>;

/// An API error: a status and a message, sent as `{"error": message}`.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

type ApiResult = Result<Json<JsonValue>, ApiError>;

fn bad(message: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, message.to_string())
}

/// A failure of the server itself (a task that panicked, JSON that did not serialize).
fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

fn theory_status(e: theory::TheoryError) -> ApiError {
    match e {
        theory::TheoryError::Table(t) => table_status(t),
        theory::TheoryError::Claim(c) => bad(c),
    }
}

fn table_status(e: TableError) -> ApiError {
    match e {
        TableError::Missing { .. } => ApiError(StatusCode::NOT_FOUND, e.to_string()),
        e => internal(e),
    }
}

fn cli_status(e: CliError) -> ApiError {
    if e.code == 2 {
        bad(e.message)
    } else {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.message)
    }
}

/// The query's parameters, or a 400 that says which one is wrong.
fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(q)| q).map_err(|e| bad(e.body_text()))
}

fn text_arg<'a>(name: &str, text: &'a Option<String>) -> Result<&'a str, ApiError> {
    match text.as_deref() {
        None | Some("") => Err(bad(format!("'{name}' is missing"))),
        Some(t) if t.len() > MAX_TEXT => Err(bad(format!(
            "'{name}' is {} bytes long; at most {MAX_TEXT}",
            t.len()
        ))),
        Some(t) => Ok(t),
    }
}

fn fen_arg(fen: &Option<String>) -> Result<Position, ApiError> {
    let t = text_arg("fen", fen)?;
    t.parse::<Position>().map_err(|e| bad(format!("fen: {e}")))
}

/// Holds a permit for a proof or a count, or answers 503 at once.
fn heavy_permit(state: &AppState) -> Result<tokio::sync::SemaphorePermit<'_>, ApiError> {
    state.heavy.try_acquire().map_err(|_| {
        ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{HEAVY_AT_ONCE} proofs or counts are running; try again in a moment"),
        )
    })
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
) -> Result<Json<super::tb::ProbeJson>, ApiError> {
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
    let tb = match q.rules.as_deref().map(str::parse::<Rules>) {
        None => &state.tb,
        Some(Ok(r)) if r == state.tb.rules() => &state.tb,
        Some(Ok(_)) => &state.other,
        Some(Err(e)) => return Err(bad(format!("rules: {e}"))),
    };
    Ok(Json(
        super::tb::probe_json(tb, &pos, false).map_err(table_status)?,
    ))
}

#[derive(Deserialize)]
struct SolveQuery {
    fen: Option<String>,
    max_moves: Option<u32>,
    time: Option<f64>,
    checks_only: Option<bool>,
}

/// `GET /api/solve?fen=…&max_moves=…&time=…&checks_only=…`: the solver, with a time limit.
async fn solve(
    State(state): State<Shared>,
    q: Result<Query<SolveQuery>, QueryRejection>,
) -> ApiResult {
    let q = query(q)?;
    let pos = fen_arg(&q.fen)?;
    let max_moves = q.max_moves.unwrap_or(solver::DEFAULT_MAX_MOVES);
    if max_moves == 0 || max_moves > solver::MAX_MOVES {
        return Err(bad(format!(
            "max_moves {max_moves}: between 1 and {}",
            solver::MAX_MOVES
        )));
    }
    let seconds = q.time.unwrap_or(SOLVE_DEFAULT_SECONDS);
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= SOLVE_MAX_SECONDS) {
        return Err(bad(format!(
            "time {seconds}: seconds above 0, at most {SOLVE_MAX_SECONDS}"
        )));
    }
    let _permit = heavy_permit(&state)?;
    let mut options = Options::new(max_moves);
    options.time = Some(Duration::from_secs_f64(seconds));
    options.max_nodes = Some(SOLVE_MAX_NODES);
    options.hash_mb = SOLVE_HASH_MB;
    options.checks_only = q.checks_only.unwrap_or(false);
    let stop = options.stop.clone();
    let st = state.clone();
    let task = tokio::task::spawn_blocking(move || {
        solver::solve(&pos, &options, Some(&st.tb)).map(|s| (pos, s))
    });
    // the proof stops itself at its deadline; this is a second guard
    let joined = tokio::time::timeout(Duration::from_secs_f64(seconds + 10.0), task).await;
    let (pos, s) = match joined {
        Ok(Ok(r)) => r.map_err(|e| match e {
            solver::SolveError::Table(t) => table_status(t),
            e => bad(e),
        })?,
        Ok(Err(e)) => return Err(internal(e)),
        Err(_) => {
            stop.store(true, Relaxed);
            return Err(ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                "the proof did not stop in time".into(),
            ));
        }
    };
    let j = serde_json::to_value(super::solve::solution_json(&pos, &s, state.tb.rules()))
        .map_err(internal)?;
    Ok(Json(j))
}

/// `GET /api/puzzles`: every built-in puzzle, with the recorded progress (shared with
/// the command line's).
async fn puzzles(State(state): State<Shared>) -> ApiResult {
    let marks = tokio::task::spawn_blocking(progress_marks)
        .await
        .unwrap_or_default();
    let list: Vec<JsonValue> = state
        .puzzles
        .iter()
        .map(|p| {
            puzzle_json(p).map(|mut j| {
                j["progress"] = json!(marks.get(&p.entry.id));
                j
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Json(JsonValue::Array(list)))
}

fn puzzle_json(p: &Puzzle) -> Result<JsonValue, ApiError> {
    let mut j = serde_json::to_value(super::puzzle::list_json(p)).map_err(internal)?;
    j["goal_text"] = json!(p.goal_text());
    j["side_to_move"] = json!(p.position.turn().name());
    let mut pos = p.position.clone();
    let mut line = Vec::new();
    for &m in &p.line {
        line.push(notation::format_move(
            &pos,
            m,
            Notation::Chinese,
            Style::default(),
        ));
        pos.play_unchecked(m);
    }
    j["line_chinese"] = json!(line);
    Ok(j)
}

/// The recorded result of each puzzle: "solved", "failed" or absent.
fn progress_marks() -> HashMap<String, &'static str> {
    let Ok((_, progress)) = super::puzzle::progress() else {
        return HashMap::new();
    };
    progress
        .puzzles
        .iter()
        .filter_map(|(id, r)| {
            let mark = if r.solved {
                "solved"
            } else if r.failed > 0 {
                "failed"
            } else {
                return None;
            };
            Some((id.clone(), mark))
        })
        .collect()
}

fn find_puzzle<'a>(state: &'a AppState, id: &str) -> Result<&'a Puzzle, ApiError> {
    if id.len() > MAX_TEXT {
        return Err(bad("the puzzle id is too long"));
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
        return Err(bad(format!("moves: between 1 and {MAX_MOVES_SENT}")));
    }
    if let Some(m) = body.moves.iter().find(|m| m.len() > MAX_TEXT) {
        return Err(bad(format!("a move of {} bytes", m.len())));
    }
    // a puzzle the tables judge needs them built; the server does not build tables
    let needs_tables = p.in_table_reach() && !(p.goal.win && p.entry.moves.is_some());
    if needs_tables {
        let m = Material::of(&p.position).canonical();
        if !state.tb.path_of(&m).exists() {
            return Err(ApiError(
                StatusCode::CONFLICT,
                format!(
                    "puzzle {id} is judged by the tables of {m}, which are not built: run {}",
                    gen_command(&state.tb.path_of(&m))
                ),
            ));
        }
    }
    let _permit = heavy_permit(&state)?;
    let st = state.clone();
    let p = p.clone();
    let task =
        tokio::task::spawn_blocking(move || super::puzzle::judge_moves(&p, &st.tb, &body.moves));
    let checked = tokio::time::timeout(Duration::from_secs(60), task)
        .await
        .map_err(|_| {
            ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                "judging took too long".into(),
            )
        })?
        .map_err(internal)?
        .map_err(cli_status)?;
    let j = serde_json::to_value(&checked.json).map_err(internal)?;
    Ok(Json(j))
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
        return Err(bad(format!("limit {limit}: at most 100")));
    }
    let claim = Claim::parse(text).map_err(bad)?;
    claim.check_scope().map_err(bad)?;
    let key = format!("{}|{limit}", claim.text);
    if let Some(j) = state.theory_cache.lock().expect("lock").get(&key) {
        return Ok(Json((**j).clone()));
    }
    // every table the claim's material falls into must be there: the server builds none
    missing_tables(&state, &claim)?;
    let _permit = heavy_permit(&state)?;
    let st = state.clone();
    let report = tokio::task::spawn_blocking(move || {
        theory::measure(&claim, &st.tb, &Request { limit, heat: None }, &|_, _| {})
    })
    .await
    .map_err(internal)?
    .map_err(theory_status)?;
    let j = Arc::new(serde_json::to_value(&report).map_err(internal)?);
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
        return Err(bad("at most 400 moves"));
    }
    for (i, t) in moves.iter().enumerate() {
        if t.len() > MAX_TEXT {
            return Err(bad(format!("move {} is too long", i + 1)));
        }
        let m = notation::parse_move(&pos, t)
            .map_err(|e| bad(format!("move {}: '{t}': {e}", i + 1)))?;
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
}

/// `GET /api/moves?fen=…&play=m1,m2`: the position after the moves, its legal moves, and
/// whether the game is over.
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
            json!({
                "iccs": m.to_string(),
                "chinese": namer.name(m, Notation::Chinese, style),
                "wxf": namer.name(m, Notation::Wxf, style),
            })
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

/// `GET /api/board.svg?fen=…&arrow=h2e2&mark=e9&flip=true`: the diagram `canju diagram`
/// draws, with a click target on every point.
async fn board_svg(q: Result<Query<BoardQuery>, QueryRejection>) -> Result<Response, ApiError> {
    let q = query(q)?;
    let pos = fen_arg(&q.fen)?;
    let mut o = canju::render::svg::Options {
        flip: q.flip.unwrap_or(false),
        ..Default::default()
    };
    for a in list_arg(&q.arrow).iter().take(8) {
        let from = a.get(0..2).and_then(|s| s.parse().ok());
        let to = a.get(2..4).and_then(|s| s.parse().ok());
        match (from, to, a.len()) {
            (Some(f), Some(t), 4) => o.arrows.push(canju::Move::new(f, t)),
            _ => return Err(bad(format!("arrow '{a}': two points like h2e2"))),
        }
    }
    for m in list_arg(&q.mark).iter().take(90) {
        o.marks.push(
            m.parse()
                .map_err(|_| bad(format!("mark '{m}': a point like e9")))?,
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
}

/// `GET /api/theory/heatmap.svg?claim=…&piece=P&side=black`: the heatmap of `canju theory
/// --heatmap`, over tables already built.
async fn heatmap_svg(
    State(state): State<Shared>,
    q: Result<Query<HeatQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let claim = Claim::parse(text_arg("claim", &q.claim)?).map_err(bad)?;
    let piece = text_arg("piece", &q.piece)?;
    let kind = canju::Kind::from_name(piece).ok_or_else(|| {
        bad(format!(
            "piece '{piece}': a letter such as N, a name such as horse, or a character such as 马"
        ))
    })?;
    let side = match q.side.as_deref() {
        None => claim.scope.side_to_move.unwrap_or(canju::Color::Red),
        Some("red") => canju::Color::Red,
        Some("black") => canju::Color::Black,
        Some(o) => return Err(bad(format!("side '{o}': red or black"))),
    };
    missing_tables(&state, &claim)?;
    let _permit = heavy_permit(&state)?;
    let st = state.clone();
    let report = tokio::task::spawn_blocking(move || {
        theory::measure(
            &claim,
            &st.tb,
            &Request {
                limit: 0,
                heat: Some((kind, side)),
            },
            &|_, _| {},
        )
    })
    .await
    .map_err(internal)?
    .map_err(theory_status)?;
    let heat = report
        .heat
        .as_ref()
        .ok_or_else(|| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "no heatmap".into()))?;
    Ok(svg_response(super::theory::heatmap_svg(&report, heat)))
}

/// A 404 naming the `canju gen` command when a claim's tables are not all built.
fn missing_tables(state: &AppState, claim: &Claim) -> Result<(), ApiError> {
    for m in claim.material.build_order() {
        if !state.tb.path_of(&m).exists() {
            return Err(ApiError(
                StatusCode::NOT_FOUND,
                format!(
                    "the tables of {} are not all built ({m} is missing): run {}",
                    claim.material,
                    gen_command(&state.tb.path_of(&claim.material))
                ),
            ));
        }
    }
    Ok(())
}

/// `POST /api/puzzles/{id}/hint` with `{"moves": […]}` (the line so far, both sides):
/// the player's best move from there.
async fn hint(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Result<Json<CheckBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult {
    let Json(body) = body.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let p = find_puzzle(&state, &id)?;
    let pos = play_moves(p.position.clone(), &body.moves)?;
    if pos.turn() != p.goal.side {
        return Err(bad("it is the defender's move"));
    }
    let _permit = heavy_permit(&state)?;
    let st = state.clone();
    let budget = p.budget().saturating_sub(body.moves.len() as u32);
    let goal = p.goal;
    let p = p.clone();
    let task = tokio::task::spawn_blocking(move || {
        let judge = canju::puzzle::Judge::for_puzzle(Some(&st.tb), &p);
        judge.best_move(&pos, goal, budget).map(|m| (pos, m))
    });
    let (pos, best) = tokio::time::timeout(Duration::from_secs(60), task)
        .await
        .map_err(|_| {
            ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                "the hint took too long".into(),
            )
        })?
        .map_err(internal)?
        .map_err(internal)?;
    Ok(Json(match best {
        Some(m) => json!({
            "iccs": m.to_string(),
            "chinese": notation::format_move(&pos, m, Notation::Chinese, Style::default()),
        }),
        None => {
            json!({ "iccs": null, "chinese": null, "note": "no move keeps the goal from here" })
        }
    }))
}

#[derive(Deserialize)]
struct ResultBody {
    solved: bool,
}

/// `POST /api/puzzles/{id}/result` with `{"solved": true|false}`: records an attempt in
/// the progress file the command line uses.
async fn record_result(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Result<Json<ResultBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult {
    let Json(body) = body.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let id = find_puzzle(&state, &id)?.entry.id.clone();
    let st = state.clone();
    tokio::task::spawn_blocking(move || {
        let _guard = st.progress_lock.lock().expect("lock");
        let (path, mut progress) = super::puzzle::progress().map_err(|e| e.message)?;
        let Some(path) = path else {
            return Err("no home directory to keep progress in".to_string());
        };
        progress.record(&id, body.solved);
        canju::puzzle::progress::save(&path, &progress)
    })
    .await
    .map_err(internal)?
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    Ok(Json(json!({ "recorded": true })))
}

/// `GET /api`: what the API offers.
async fn index(State(state): State<Shared>) -> Json<JsonValue> {
    Json(json!({
        "name": "canju",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": state.tb.rules().name(),
        "endpoints": [
            "GET /api/probe?fen=FEN&rules=asian|none",
            "GET /api/solve?fen=FEN&max_moves=N&time=SECONDS&checks_only=true",
            "GET /api/puzzles",
            "GET /api/puzzles/{id}",
            "POST /api/puzzles/{id}/check {\"moves\": [...]}",
            "GET /api/theory?claim=CLAIM&limit=N",
            "GET /api/theory/heatmap.svg?claim=CLAIM&piece=P&side=red|black",
            "GET /api/sayings",
            "GET /api/moves?fen=FEN&play=m1,m2",
            "GET /api/board.svg?fen=FEN&arrow=h2e2&mark=e9&flip=true",
            "POST /api/puzzles/{id}/hint {\"moves\": [...]}",
            "POST /api/puzzles/{id}/result {\"solved\": true}",
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
        .route("/api/puzzles/{id}/result", post(record_result))
        .route("/api/probe", get(probe))
        .route("/api/solve", get(solve))
        .route("/api/puzzles", get(puzzles))
        .route("/api/puzzles/{id}", get(puzzle))
        .route("/api/puzzles/{id}/check", post(check))
        .route("/api/theory", get(theory_report))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
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

pub fn run(a: ServeArgs) -> CliResult {
    let dir = table_dir(a.dir)?;
    let puzzles = super::puzzle::collections(&None)?;
    let state = Arc::new(AppState {
        tb: Tablebase::with_rules(&dir, a.rules).with_cache_mb(a.cache_mb),
        other: Tablebase::with_rules(
            &dir,
            match a.rules {
                Rules::Asian => Rules::None,
                Rules::None => Rules::Asian,
            },
        )
        .with_cache_mb(a.cache_mb),
        puzzles,
        heavy: Semaphore::new(HEAVY_AT_ONCE),
        theory_cache: Mutex::new(HashMap::new()),
        progress_lock: Mutex::new(()),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError {
            code: 1,
            message: format!("cannot start the server's runtime: {e}"),
        })?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((a.host, a.port))
            .await
            .map_err(|e| {
                CliError::input(format!(
                    "cannot listen on {}:{}: {}",
                    a.host,
                    a.port,
                    canju::tablebase::format::io_message(&e)
                ))
            })?;
        let addr: SocketAddr = listener.local_addr().map_err(|e| CliError {
            code: 1,
            message: e.to_string(),
        })?;
        outln!(
            "canju serve: http://{addr}/ (page) and http://{addr}/api (tables in {}, rules {}); Ctrl-C stops",
            dir.display(),
            a.rules.describe()
        );
        super::output::flush();
        if a.open {
            open_browser(&format!("http://{addr}/"));
        }
        axum::serve(listener, router(state))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| CliError {
                code: 1,
                message: format!("the server stopped: {e}"),
            })?;
        outln!("canju serve: stopped");
        Ok(())
    })
}
