//! The API called in-process, without a socket: each request goes through the router and
//! its middleware as a connection's would, and the answer's status and JSON are checked.
//! (`tests/it/serve*.rs` drive the real binary over HTTP for what only a socket shows.)

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

use super::*;

fn app(dir: &std::path::Path) -> Router {
    router(state(dir, Rules::Asian, 16).expect("the built-in puzzles load"))
}

/// A directory that holds no tables.
fn empty_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("canju-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

async fn call(app: &Router, method: &str, uri: &str, body: Option<&str>) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body.map_or(Body::empty(), |b| Body::from(b.to_string())))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("{uri}: not JSON: {}", String::from_utf8_lossy(&bytes)));
    (status, json)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn moves_are_listed_and_bad_input_is_a_400_naming_it() {
    let d = empty_dir("moves");
    let app = app(&d);
    runtime().block_on(async {
        let start = canju::START_FEN.replace(' ', "%20");
        let (s, j) = call(&app, "GET", &format!("/api/moves?fen={start}"), None).await;
        assert_eq!(s, StatusCode::OK, "{j}");
        assert_eq!(j["side_to_move"], "red");
        assert_eq!(j["moves"].as_array().unwrap().len(), 44, "{j}");
        let (s, j) = call(
            &app,
            "GET",
            &format!("/api/moves?fen={start}&play=h2e2,h9g7"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{j}");
        assert_eq!(j["side_to_move"], "red");
        assert!(
            j["moves"][0].get("attack").is_none(),
            "only when asked: {j}"
        );
        // what each move attacks, when asked: the chariot turning on a loose horse chases it
        let (s, j) = call(
            &app,
            "GET",
            "/api/moves?fen=3k5/9/9/9/2n6/9/9/9/9/R3K4%20w&attacks=true",
            None,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{j}");
        let chase = j["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["iccs"] == "a0a5")
            .unwrap()
            .clone();
        assert_eq!(chase["attack"], "chase", "{chase}");
        assert_eq!(chase["attack_zh"], "捉");
        assert_eq!(chase["chases"][0]["target"], "c5");
        // a malformed FEN and an illegal position: both the client's
        let (s, j) = call(&app, "GET", "/api/moves?fen=xyz", None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(j["error"].as_str().unwrap().starts_with("fen: "), "{j}");
        let (s, j) = call(
            &app,
            "GET",
            "/api/moves?fen=4k4/9/9/9/9/9/9/9/9/9%20w",
            None,
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(
            j["error"].as_str().unwrap().contains("red has no general"),
            "{j}"
        );
        let (s, j) = call(
            &app,
            "GET",
            &format!("/api/moves?fen={start}&play=a0a5"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(j["error"].as_str().unwrap().starts_with("move 1: "), "{j}");
    });
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_missing_table_is_a_409_naming_the_command_that_builds_it() {
    let d = empty_dir("missing");
    let app = app(&d);
    runtime().block_on(async {
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4%20w";
        let (s, j) = call(&app, "GET", &format!("/api/probe?fen={fen}"), None).await;
        assert_eq!(s, StatusCode::CONFLICT, "{j}");
        let e = j["error"].as_str().unwrap();
        assert!(
            e.contains("no KRK table") && e.contains("canju gen KRK --dir"),
            "{e}"
        );
        // a rule set that does not exist is the client's
        let (s, j) = call(
            &app,
            "GET",
            &format!("/api/probe?fen={fen}&rules=fide"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(
            j["error"].as_str().unwrap().contains("unknown rule set"),
            "{j}"
        );
    });
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn puzzles_are_listed_and_a_line_is_judged_by_the_same_service_as_the_command_line() {
    let d = empty_dir("puzzles");
    let app = app(&d);
    runtime().block_on(async {
        let (s, j) = call(&app, "GET", "/api/puzzles", None).await;
        assert_eq!(s, StatusCode::OK);
        let all = j.as_array().unwrap();
        assert!(all.len() >= 256, "{}", all.len());
        // a mate puzzle within a stipulation: the solver judges it, no table needed
        let p = all
            .iter()
            .find(|p| p["collection"] == "mates")
            .expect("a mate puzzle");
        let id = p["id"].as_str().unwrap();
        let line: Vec<&str> = p["line"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let body = serde_json::json!({ "moves": line }).to_string();
        let (s, j) = call(
            &app,
            "POST",
            &format!("/api/puzzles/{id}/check"),
            Some(&body),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{j}");
        assert_eq!(j["solved"], true, "{j}");
        // the library's own judgement of the same line
        let puzzle = canju::puzzle::load_builtin()
            .unwrap()
            .into_iter()
            .find(|q| q.entry.id == id)
            .unwrap();
        let tb = Tablebase::with_rules(&d, Rules::Asian);
        let judge = canju::puzzle::Judge::for_puzzle(Some(&tb), &puzzle);
        let moves: Vec<String> = line.iter().map(|m| m.to_string()).collect();
        let direct = canju::puzzle::check::check_line(&puzzle, &judge, &moves).unwrap();
        assert_eq!(serde_json::to_value(&direct).unwrap(), j);
        // a move that cannot be read is the client's
        let (s, j) = call(
            &app,
            "POST",
            &format!("/api/puzzles/{id}/check"),
            Some(r#"{"moves": ["z9z9"]}"#),
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{j}");
        let (s, _) = call(&app, "GET", "/api/puzzles/no-such-puzzle", None).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    });
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_proof_answers_with_the_solve_report() {
    let d = empty_dir("solve");
    let app = app(&d);
    runtime().block_on(async {
        // 双车错: a mate in 2 with the chariots on the rank and the file beside the general
        let fen = "3k5/9/9/9/9/9/9/9/R8/1R2K4%20w";
        let (s, j) = call(
            &app,
            "GET",
            &format!("/api/solve?fen={fen}&max_moves=3"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{j}");
        assert_eq!(j["verdict"], "win", "{j}");
        assert_eq!(j["rules"], "asian");
        let (s, j) = call(
            &app,
            "GET",
            &format!("/api/solve?fen={fen}&max_moves=0"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(j["error"].as_str().unwrap().contains("max_moves 0"), "{j}");
    });
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_composed_position_is_taken_and_probe_says_why_it_has_no_value() {
    let d = empty_dir("composed");
    let app = app(&d);
    runtime().block_on(async {
        // a black 卒 on its own back rank beside the general
        let fen = "3pk4/9/9/R8/9/9/9/9/4A4/4K4%20w%20-%20-%200%201";
        let (s, j) = call(&app, "GET", &format!("/api/moves?fen={fen}"), None).await;
        assert_eq!(s, StatusCode::OK, "{j}");
        assert_eq!(
            j["unreachable"],
            "black soldier on d9 stands where no game can put it"
        );
        let (s, j) = call(&app, "GET", &format!("/api/probe?fen={fen}"), None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{j}");
        assert!(
            j["error"]
                .as_str()
                .unwrap()
                .contains("no table value: black soldier on d9"),
            "{j}"
        );
        let (s, j) = call(
            &app,
            "GET",
            &format!("/api/solve?fen={fen}&max_moves=3"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{j}");
        assert_eq!(j["verdict"], "win", "{j}");
        assert_eq!(j["plies"], 5, "{j}");
        // (车九进二 … 仕五进四 leaves black no move, not in check: 困毙)
        assert_eq!(j["ending"], "stalemate", "{j}");
        let (s, j) = call(
            &app,
            "GET",
            &format!("/api/solve?fen={fen}&max_moves=4&mate_only=true"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{j}");
        assert_eq!(j["verdict"], "win", "{j}");
        assert_eq!(j["ending"], "checkmate", "{j}");
        // the start position is reachable
        let start = canju::START_FEN.replace(' ', "%20");
        let (_, j) = call(&app, "GET", &format!("/api/moves?fen={start}"), None).await;
        assert_eq!(j["unreachable"], Value::Null);
    });
}
