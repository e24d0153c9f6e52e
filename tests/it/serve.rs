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
