//! `canju serve`: the JSON API against a server started on a free port, with a plain HTTP
//! client over TCP: answers checked against the library, bad input answered with 4xx, and
//! a burst of concurrent requests leaving the server up.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use crate::common::{Server, TempDir, build_tables as build};
use canju::Position;
use canju::tablebase::{Tablebase, Value};

/// One HTTP/1.1 request; the status and the body.
fn request(addr: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let status: u16 = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    // chunked bodies: keep the JSON between the first '{' or '[' and the last '}' or ']'
    let start = body.find(['{', '[']).unwrap_or(0);
    let end = body.rfind(['}', ']']).map_or(body.len(), |e| e + 1);
    (status, body[start..end.max(start)].to_string())
}

fn get(addr: &str, path: &str) -> (u16, serde_json::Value) {
    let (status, body) = request(addr, "GET", path, None);
    let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
    (status, json)
}

/// Percent-encodes a query value.
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn the_api_answers_and_refuses_bad_input() {
    let dir = TempDir::new("serve");
    // the server's default rule set: asian
    let tb = Tablebase::with_rules(&dir.0, canju::tablebase::Rules::Asian);
    build(&tb, "KNKA");
    let server = Server::start(&dir.0, &dir.0.join("home"));
    let a = server.addr.as_str();

    // probe: the value and every move's, as the library has them
    let fen = "3a5/4k4/9/4N4/9/9/9/9/9/3K5 w - - 0 1";
    let (status, j) = get(a, &format!("/api/probe?fen={}", enc(fen)));
    assert_eq!(status, 200, "{j}");
    let pos: Position = fen.parse().unwrap();
    let Value::Win(n) = tb.probe(&pos).unwrap() else {
        panic!("a win")
    };
    assert_eq!(j["verdict"], "win");
    assert_eq!(j["plies"], n);
    assert_eq!(j["rules"], "asian");
    let (status, named) = get(a, &format!("/api/probe?fen={}&rules=asian", enc(fen)));
    assert_eq!((status, &named), (200, &j));
    assert_eq!(j["material"], "KNKA");
    let ranked = tb.rank_moves(&pos).unwrap();
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), ranked.len());
    for (m, r) in moves.iter().zip(&ranked) {
        assert_eq!(m["iccs"], r.mv.to_string());
        assert_eq!(m["verdict"], r.value.verdict());
        assert_eq!(m["plies"].as_u64().map(|x| x as u32), r.value.plies());
        assert!(m["chinese"].is_string() && m["wxf"].is_string());
    }

    // solve
    let (status, j) = get(
        a,
        &format!(
            "/api/solve?fen={}&max_moves=3",
            enc("3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w")
        ),
    );
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["verdict"], "win");
    assert_eq!(j["plies"], 5);
    assert_eq!(j["pv"].as_array().unwrap().len(), 5);
    assert_eq!(j["checks_only"], false);
    // 连将杀: this 马后炮 opens with a quiet move (帅五进一), so by checks alone there is none
    let (status, j) = get(
        a,
        &format!(
            "/api/solve?fen={}&max_moves=3&checks_only=true",
            enc("3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w")
        ),
    );
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["verdict"], "none");
    assert_eq!(j["checks_only"], true);
    // the proof-number search: the same answer
    let (status, j) = get(
        a,
        &format!(
            "/api/solve?fen={}&max_moves=3&method=proof-number",
            enc("3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w")
        ),
    );
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["verdict"], "win");
    assert_eq!(j["plies"], 5);
    assert_eq!(j["method"], "proof-number");
    // out of time: what was proven, not an error
    let (status, j) = get(
        a,
        &format!(
            "/api/solve?fen={}&max_moves=12&time=0.3&rules=none",
            enc("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
        ),
    );
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["verdict"], "unknown");
    // under the rule, 适情雅趣 第077局 by checks alone: with no game before it the baseline's
    // proof is the rule's, a win in 41 plies, within the time
    let (status, j) = get(
        a,
        &format!(
            "/api/solve?fen={}&max_moves=22&checks_only=true&time=2&rules=asian",
            enc("4ka1c1/9/3a5/9/4c1r1r/9/1RR6/9/3p1p3/C3K4 w")
        ),
    );
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["verdict"], "win");
    assert_eq!(j["plies"], 41);
    assert_eq!(j["ending"], "checkmate");

    // puzzles
    let (status, j) = get(a, "/api/puzzles");
    assert_eq!(status, 200);
    let all = canju::puzzle::load_builtin().unwrap();
    assert_eq!(j.as_array().unwrap().len(), all.len());
    let (status, j) = get(a, "/api/puzzles/pattern-002");
    assert_eq!(status, 200);
    assert_eq!(j["id"], "pattern-002");
    let (status, body) = request(
        a,
        "POST",
        "/api/puzzles/pattern-002/check",
        Some(r#"{"moves": ["帅五进一"]}"#),
    );
    assert_eq!(status, 200, "{body}");
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["moves"][0]["feedback"], "best");
    assert_eq!(j["moves"][1]["by"], "defender");
    // a mistake gets its refutation
    let (status, body) = request(
        a,
        "POST",
        "/api/puzzles/pattern-002/check",
        Some(r#"{"moves": ["c5b7"]}"#),
    );
    assert_eq!(status, 200, "{body}");
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["moves"][0]["feedback"], "mistake");
    assert_eq!(j["solved"], false);

    // theory over tables that are there, and 409 (naming the command) for tables that are not
    let (status, j) = get(a, &format!("/api/theory?claim={}", enc("单马胜单士")));
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["material"], "KNKA");
    assert!(j["verdict"]["zh"].as_str().unwrap().contains("马对士"));
    let (status, j) = get(a, &format!("/api/theory?claim={}", enc("马卒难破士相全")));
    assert_eq!(status, 409, "{j}");
    assert!(j["error"].as_str().unwrap().contains("canju gen KNPKAABB"));

    // bad input: 4xx with a JSON message, never a crash
    let long = "9/".repeat(200);
    for (path, want) in [
        ("/api/probe".to_string(), 400),
        ("/api/probe?fen=nonsense".into(), 400),
        (format!("/api/probe?fen={}", enc(&long)), 400),
        (
            format!(
                "/api/probe?fen={}",
                enc("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
            ),
            422,
        ),
        (
            format!("/api/probe?fen={}", enc("3k5/9/9/9/9/9/9/9/9/R3K4 w")),
            409,
        ),
        (format!("/api/probe?fen={}&rules=chinese", enc(fen)), 400),
        // the tables without the rule are not built here
        (format!("/api/probe?fen={}&rules=none", enc(fen)), 409),
        (format!("/api/solve?fen={}&max_moves=0", enc(fen)), 400),
        (format!("/api/solve?fen={}&max_moves=99999", enc(fen)), 400),
        (format!("/api/solve?fen={}&time=-1", enc(fen)), 400),
        (format!("/api/solve?fen={}&time=1e9", enc(fen)), 400),
        (format!("/api/solve?fen={}&max_moves=abc", enc(fen)), 400),
        (
            format!("/api/solve?fen={}&checks_only=maybe", enc(fen)),
            400,
        ),
        (format!("/api/solve?fen={}&method=guess", enc(fen)), 400),
        ("/api/puzzles/no-such-puzzle".into(), 404),
        (format!("/api/theory?claim={}", enc("马跑了")), 400),
        ("/api/theory?claim=KCK&limit=100000".into(), 400),
        ("/nowhere".into(), 404),
        ("/../../etc/passwd".into(), 404),
    ] {
        let (status, body) = request(a, "GET", &path, None);
        assert_eq!(status, want, "{path}: {body}");
        let j: serde_json::Value = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"));
        assert!(j["error"].is_string(), "{path}: {body}");
    }
    for (body, want) in [
        ("not json", 400),
        (r#"{"moves": []}"#, 400),
        (r#"{"moves": ["马跳到天上"]}"#, 400),
        (r#"{"wrong": 1}"#, 422),
    ] {
        let (status, text) = request(a, "POST", "/api/puzzles/pattern-002/check", Some(body));
        assert_eq!(status, want, "{body}: {text}");
    }
    let huge = format!(r#"{{"moves": ["{}"]}}"#, "x".repeat(100_000));
    let (status, _) = request(a, "POST", "/api/puzzles/pattern-002/check", Some(&huge));
    assert_eq!(status, 413);

    // a burst: 64 clients at once, every answer right, the server still up
    let handles: Vec<_> = (0..64)
        .map(|_| {
            let a = server.addr.clone();
            let path = format!("/api/probe?fen={}", enc(fen));
            std::thread::spawn(move || {
                (0..10)
                    .map(|_| request(&a, "GET", &path, None).0)
                    .collect::<Vec<u16>>()
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap().iter().all(|&s| s == 200));
    }
    let (status, j) = get(a, "/api");
    assert_eq!(status, 200);
    assert_eq!(j["rules"], "asian", "{j}");
}

#[test]
fn the_server_binds_to_localhost_and_names_a_busy_port() {
    let dir = TempDir::new("serve-port");
    let server = Server::start(&dir.0, &dir.0.join("home"));
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(["serve", "--port", &port, "--dir", dir.0.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{err}"
    );
}

/// The cloud database's answer as text: its lines of `key:value` fields separated by `,`,
/// moves by `|`.
fn cloud(a: &str, query: &str) -> (u16, String) {
    let (status, body) = request(a, "GET", &format!("/chessdb.php?{query}"), None);
    (status, body.trim().to_string())
}

fn fields(entry: &str) -> Vec<(&str, &str)> {
    entry
        .split(',')
        .map(|f| {
            f.split_once(':')
                .unwrap_or_else(|| panic!("no key in {f:?} of {entry:?}"))
        })
        .collect()
}

/// The Xiangqi cloud database's query API (`/chessdb.php`) and a lichess-shaped tablebase
/// endpoint, answered offline: their formats as published, their values the tables' and the
/// proof's.
#[test]
fn the_cloud_database_api_and_the_lichess_shape_answer_offline() {
    let dir = TempDir::new("serve-cloud");
    let tb = Tablebase::with_rules(&dir.0, canju::tablebase::Rules::Asian);
    build(&tb, "KNKA");
    let server = Server::start(&dir.0, &dir.0.join("home"));
    let a = server.addr.as_str();
    // the cloud database's FENs carry no counters
    let fen = "3a5/4k4/9/4N4/9/9/9/9/9/3K5 w";
    let pos: Position = fen.parse().unwrap();
    let board = enc(fen);

    // queryall: every legal move, best first, with the fields in the published order; a
    // mate in n plies scores 30000 - n for the mover
    let (status, all) = cloud(a, &format!("action=queryall&board={board}"));
    assert_eq!(status, 200, "{all}");
    let entries: Vec<Vec<(&str, &str)>> = all.split('|').map(fields).collect();
    assert_eq!(entries.len(), pos.legal_moves().len(), "{all}");
    let ranked = tb.rank_moves(&pos).unwrap();
    let mut last = i64::MAX;
    for (e, r) in entries.iter().zip(&ranked) {
        let keys: Vec<&str> = e.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["move", "score", "rank", "note", "winrate"], "{e:?}");
        assert_eq!(e[0].1, r.mv.to_string());
        let score: i64 = e[1].1.parse().unwrap();
        let (want, winrate) = match r.value {
            Value::Win(n) => (30000 - i64::from(n), "100.00"),
            Value::Loss(n) => (i64::from(n) - 30000, "0.00"),
            Value::Draw => (0, "50.00"),
            other => panic!("no verdict by rule in KNKA: {other:?}"),
        };
        assert_eq!((score, e[4].1), (want, winrate), "{e:?}");
        assert!(score <= last);
        last = score;
        assert!(["0", "1", "2"].contains(&e[2].1), "{e:?}");
    }
    assert_eq!(entries[0][2].1, "2");
    let best = entries[0][0].1;
    let best_score = entries[0][1].1;

    // querybest from the tables is marked egtb; querypv and queryscore agree with it
    assert_eq!(
        cloud(a, &format!("action=querybest&board={board}")).1,
        format!("egtb:{best}")
    );
    let (_, pv) = cloud(a, &format!("action=querypv&board={board}"));
    let f = fields(&pv);
    assert_eq!(
        (f[0], f[1].0, f[2].0),
        (("score", best_score), "depth", "pv"),
        "{pv}"
    );
    let line: Vec<&str> = f[2].1.split('|').collect();
    assert_eq!(line[0], best);
    assert_eq!(f[1].1, line.len().to_string());
    let mut p = pos.clone();
    for m in &line {
        let m = canju::notation::parse_move(&p, m).unwrap();
        assert!(p.is_legal(m), "{pv}");
        p.play_unchecked(m);
    }
    assert_eq!(
        cloud(a, &format!("action=queryscore&board={board}")).1,
        format!("eval:{best_score}")
    );
    // a banned move is left out; the board may carry moves played from the FEN
    let (_, banned) = cloud(a, &format!("action=queryall&board={board}&ban=move:{best}"));
    assert!(!banned.contains(&format!("move:{best},")), "{banned}");
    assert_eq!(banned.split('|').count(), entries.len() - 1);
    let (_, after) = cloud(
        a,
        &format!(
            "action=queryscore&board={}",
            enc(&format!("{fen} moves {best}"))
        ),
    );
    let after: i64 = after.strip_prefix("eval:").unwrap().parse().unwrap();
    assert_eq!(after, -(best_score.parse::<i64>().unwrap() + 1));
    // json=1: the same, as the JSON the cloud database gives
    let (status, body) = request(
        a,
        "GET",
        &format!("/chessdb.php?action=queryall&board={board}&json=1"),
        None,
    );
    assert_eq!(status, 200);
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["status"], "ok");
    assert_eq!(j["moves"][0]["uci"], best);
    assert_eq!(j["moves"][0]["score"].to_string(), best_score);

    // no table: the bounded proof (马后炮, a mate in 3 = 5 plies); nothing known of the start
    let (_, proof) = cloud(
        a,
        &format!(
            "action=querybest&board={}",
            enc("3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w")
        ),
    );
    assert_eq!(proof, "move:e0e1");
    let (_, score) = cloud(
        a,
        &format!(
            "action=queryscore&board={}",
            enc("3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w")
        ),
    );
    assert_eq!(score, "eval:29995");
    let start = enc(canju::START_FEN);
    assert_eq!(
        cloud(a, &format!("action=querybest&board={start}")).1,
        "nobestmove"
    );
    assert_eq!(
        cloud(a, &format!("action=queryall&board={start}")).1,
        "unknown"
    );
    // the cloud database's own words for a bad board and a game that is over
    assert_eq!(
        cloud(a, "action=queryall&board=not-a-board").1,
        "invalid board"
    );
    assert_eq!(
        cloud(
            a,
            &format!(
                "action=queryall&board={}",
                enc("3k1a3/4a4/3N5/9/9/9/9/9/4K4/3C5 b")
            )
        )
        .1,
        "checkmate"
    );
    // an action it does not know: a 400 that names the ones it does
    let (status, j) = get(a, &format!("/chessdb.php?action=queue&board={board}"));
    assert_eq!(status, 400, "{j}");

    // the lichess shape: the position's category and dtm (plies, signed for the side to
    // move), each move's for the side to move after it
    let (status, j) = get(a, &format!("/xiangqi?fen={board}"));
    assert_eq!(status, 200, "{j}");
    let Value::Win(n) = tb.probe(&pos).unwrap() else {
        panic!("a win")
    };
    assert_eq!(
        (j["category"].as_str(), j["dtm"].as_i64()),
        (Some("win"), Some(i64::from(n)))
    );
    assert_eq!(j["checkmate"], false);
    let first = &j["moves"][0];
    assert_eq!(first["uci"], best);
    assert_eq!(first["category"], "loss");
    assert_eq!(first["dtm"].as_i64(), Some(1 - i64::from(n)));
    assert_eq!(j["moves"].as_array().unwrap().len(), entries.len());
    let (status, j) = get(a, &format!("/xiangqi?fen={start}"));
    assert_eq!(
        (status, j["category"].as_str()),
        (200, Some("unknown")),
        "{j}"
    );
    let (status, j) = get(a, "/xiangqi?fen=bad");
    assert_eq!(status, 400, "{j}");
}
