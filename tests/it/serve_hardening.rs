//! `canju serve` under hostile use, on a real server on 127.0.0.1: work its client
//! abandoned stops and frees its slot, short requests are not starved by long ones, idle
//! and half-sent connections are closed, a client that never reads is dropped, a flood of
//! idle sockets under a low descriptor limit is shed for a real client, a request for
//! another host name (DNS rebinding) is refused, Ctrl-C ends it promptly in the middle of
//! a proof, and every error body is JSON, hyper's own answers to unreadable heads too.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::{Server, TempDir};

/// A search that runs for as long as it is let: the start position, mates within 10 moves.
const LONG_SOLVE: &str = "/api/solve?fen=rnbakabnr%2F9%2F1c5c1%2Fp1p1p1p1p%2F9%2F9%2FP1P1P1P1P%2F1C5C1%2F9%2FRNBAKABNR%20w&max_moves=10&time=20";

use crate::common::{http as request, http_answer as answer, http_send as send};

/// The server's CPU time over `span`, in clock ticks.
fn ticks_over(server: &Server, span: Duration) -> u64 {
    let a = server.cpu_ticks();
    std::thread::sleep(span);
    server.cpu_ticks() - a
}

#[test]
fn abandoned_work_stops_and_frees_its_slot() {
    let dir = TempDir::new("serve-abandon");
    let server = Server::start(&dir.0, &dir.0.join("home"));
    let a = server.addr.as_str();
    // both slots busy with proofs that would run 20 s
    let first = send(a, "GET", LONG_SOLVE, "");
    let second = send(a, "GET", LONG_SOLVE, "");
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        ticks_over(&server, Duration::from_millis(500)) > 20,
        "the proofs are running"
    );
    // a third is refused at once; short requests are answered meanwhile
    let t = Instant::now();
    let (status, _, body) = request(a, "GET", LONG_SOLVE, "");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("\"error\""), "{body}");
    let (status, _, body) = request(a, "GET", "/api/sayings", "");
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = request(a, "GET", "/api/puzzles/mate-001", "");
    assert_eq!(status, 200, "{body}");
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "short requests waited {:?} behind the proofs",
        t.elapsed()
    );
    // the clients leave: the proofs stop, and the CPU goes back to idle within seconds
    drop(first);
    drop(second);
    let start = Instant::now();
    loop {
        let busy = ticks_over(&server, Duration::from_millis(500));
        if busy <= 5 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the server still used {busy} ticks in half a second, {:?} after its clients left",
            start.elapsed()
        );
    }
    // the slots are free again: a short proof is answered
    let (status, _, body) = request(
        a,
        "GET",
        "/api/solve?fen=3k1a3%2F4a4%2F9%2F9%2F2N6%2F9%2F9%2F9%2F9%2F4K1C2%20w&max_moves=3",
        "",
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"verdict\":\"win\""), "{body}");
}

#[test]
fn idle_and_half_sent_connections_are_closed() {
    let dir = TempDir::new("serve-idle");
    let server = Server::start_with(&dir.0, &dir.0.join("home"), &["--idle-timeout", "1"], None);
    let a = server.addr.as_str();
    // a head that never ends
    let mut half = TcpStream::connect(a).unwrap();
    write!(half, "GET /api HTTP/1.1\r\nHost: x\r\n").unwrap();
    // a connection that never says anything
    let idle = TcpStream::connect(a).unwrap();
    for mut s in [half, idle] {
        let t = Instant::now();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "closed after {:?}",
            t.elapsed()
        );
    }
    // a kept-alive connection is closed once idle, after its answer
    let mut s = TcpStream::connect(a).unwrap();
    write!(s, "GET /api HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    let t = Instant::now();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    assert!(String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 200"));
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn a_flood_of_idle_sockets_under_a_low_descriptor_limit_leaves_the_server_up() {
    let dir = TempDir::new("serve-flood");
    let server = crowded_server(&dir);
    let a = server.addr.as_str();
    // more sockets than the server may hold descriptors, each silent
    let flood: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect(a).ok())
        .collect();
    assert!(flood.len() >= 200, "{} connected", flood.len());
    // a real request is answered at once: the idlest connections are shed for it
    answered_at_once(a);
    // and a kept-alive client mid-conversation is not the one shed: it is the newest idle,
    // and fewer clients come after it than the flood left open before it (about a hundred
    // under the limit of 128 descriptors: a hundred more made it the one shed whenever the
    // flood's shed sockets were slow to close, as on a loaded machine)
    let mut kept = TcpStream::connect(a).unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let more: Vec<TcpStream> = (0..40).filter_map(|_| TcpStream::connect(a).ok()).collect();
    write!(
        kept,
        "GET /api/sayings HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = kept.read_to_end(&mut raw);
    assert!(
        String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    drop((flood, more));
    // and the server is still up and quick
    for _ in 0..20 {
        let (status, _, _) = request(a, "GET", "/api/sayings", "");
        assert_eq!(status, 200);
    }
}

#[test]
fn a_client_that_never_reads_is_dropped_after_the_timeout() {
    let dir = TempDir::new("serve-unread");
    let server = Server::start_with(&dir.0, &dir.0.join("home"), &["--idle-timeout", "1"], None);
    let a = server.addr.as_str();
    // 20,000 requests sent at once, answers never read: the server's writes fill the
    // socket's buffers and stop, and after the timeout the connection is dropped
    let mut s = TcpStream::connect(a).unwrap();
    let one = "GET /api HTTP/1.1\r\nHost: localhost\r\n\r\n";
    s.write_all(one.repeat(20_000).as_bytes()).unwrap();
    let t = Instant::now();
    let closed = loop {
        std::thread::sleep(Duration::from_millis(250));
        if s.write_all(one.as_bytes()).is_err() {
            break true;
        }
        if t.elapsed() > Duration::from_secs(30) {
            break false;
        }
    };
    assert!(closed, "still open after {:?}", t.elapsed());
    // the server goes on answering others
    let (status, _, _) = request(a, "GET", "/api/sayings", "");
    assert_eq!(status, 200);

    // under a low descriptor limit, more clients that never read than it may hold, with
    // a long timeout: a real client is still answered at once
    let server = crowded_server(&dir);
    let a = server.addr.as_str();
    let readers_never: Vec<TcpStream> = (0..150)
        .filter_map(|_| {
            let mut s = TcpStream::connect(a).ok()?;
            s.write_all(one.repeat(200).as_bytes()).ok()?;
            Some(s)
        })
        .collect();
    assert!(readers_never.len() >= 100, "{}", readers_never.len());
    answered_at_once(a);
}

/// A server allowed 128 descriptors, whose idle connections would stay for a minute: at
/// its connection limit it must shed the idlest instead.
fn crowded_server(dir: &TempDir) -> Server {
    Server::start_with(
        &dir.0,
        &dir.0.join("home"),
        &["--idle-timeout", "60"],
        Some(128),
    )
}

/// A real request to `a` is answered, within seconds.
fn answered_at_once(a: &str) {
    let t = Instant::now();
    let (status, _, body) = request(a, "GET", "/api", "");
    assert_eq!(status, 200, "{body}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn requests_addressed_to_another_name_are_refused() {
    let dir = TempDir::new("serve-rebind");
    let server = Server::start_with(
        &dir.0,
        &dir.0.join("home"),
        &["--allow-host", "canju.example"],
        None,
    );
    let a = server.addr.as_str();
    let port = a.rsplit(':').next().unwrap();
    let ask = |host: &str, head: &str| {
        let body = r#"{"solved": true, "helped": false}"#;
        let mut s = TcpStream::connect(a).unwrap();
        write!(
            s,
            "{head}\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        crate::common::http_answer(s)
    };
    // a page of evil.example whose name now points at 127.0.0.1: it may neither read nor
    // write the progress, nor start a proof
    for head in [
        "GET /api/progress HTTP/1.1",
        "POST /api/puzzles/pattern-002/result HTTP/1.1",
        "GET /api/solve?fen=3k5%2F9%2F9%2F9%2F9%2F9%2F9%2F9%2F9%2FR3K4%20w HTTP/1.1",
        "GET / HTTP/1.1",
    ] {
        let (status, head_text, body) = ask(&format!("evil.example:{port}"), head);
        assert_eq!(status, 403, "{head}: {body}");
        assert!(
            head_text
                .to_ascii_lowercase()
                .contains("content-type: application/json")
        );
        let j: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(
            j["error"].as_str().unwrap().contains("DNS rebinding"),
            "{j}"
        );
    }
    assert!(
        !dir.0.join("home").join("progress.json").exists(),
        "the refused request wrote the progress"
    );
    // its own names are answered
    for host in [
        a.to_string(),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "canju.example".to_string(),
    ] {
        let (status, _, body) = ask(&host, "GET /api/sayings HTTP/1.1");
        assert_eq!(status, 200, "{host}: {body}");
    }
}

#[test]
fn a_request_head_over_the_limit_is_answered_in_json() {
    let dir = TempDir::new("serve-head");
    let server = Server::start(&dir.0, &dir.0.join("home"));
    let a = server.addr.as_str();
    for (head, want, says) in [
        (
            format!(
                "GET /api HTTP/1.1\r\nHost: localhost\r\nX-Big: {}\r\n\r\n",
                "a".repeat(200_000)
            ),
            431,
            "at most 32768 bytes",
        ),
        (
            format!(
                "GET /api HTTP/1.1\r\nHost: localhost\r\n{}\r\n",
                (0..150)
                    .map(|i| format!("X-{i}: 1\r\n"))
                    .collect::<String>()
            ),
            431,
            "100 header fields",
        ),
        (
            "NOT HTTP AT ALL\r\n\r\n".to_string(),
            400,
            "could not be read",
        ),
    ] {
        let mut s = TcpStream::connect(a).unwrap();
        let _ = s.write_all(head.as_bytes());
        let (status, head_text, body) = crate::common::http_answer(s);
        assert_eq!(status, want, "{body}");
        assert!(
            head_text
                .to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{head_text}"
        );
        let j: serde_json::Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"));
        assert!(j["error"].as_str().unwrap().contains(says), "{j}");
    }
}

#[test]
fn ctrl_c_stops_the_server_promptly_in_the_middle_of_a_proof() {
    let dir = TempDir::new("serve-sigint");
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let mut server = Server::start(&dir.0, &dir.0.join("home"));
        let inflight = send(&server.addr, "GET", LONG_SOLVE, "");
        std::thread::sleep(Duration::from_millis(500));
        let t = Instant::now();
        let status = server.signal_and_wait(signal, Duration::from_secs(5));
        assert!(status.is_some(), "still running 5 s after signal {signal}");
        assert!(status.unwrap().success());
        assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
        // the proof in flight was stopped, not answered as if it had run its course
        let (code, _, body) = answer(inflight);
        assert!(code == 0 || code == 503, "{code}: {body}");
    }
}

#[test]
fn every_error_body_is_json() {
    let dir = TempDir::new("serve-errors");
    let server = Server::start(&dir.0, &dir.0.join("home"));
    let a = server.addr.as_str();
    let long = format!("/api/probe?fen={}", "a".repeat(20_000));
    let big_body = format!(r#"{{"moves": ["{}"]}}"#, "x".repeat(40_000));
    for (method, path, body, want) in [
        ("GET", "/nowhere", "", 404),
        ("POST", "/api/probe", "", 405),
        ("DELETE", "/api/puzzles", "", 405),
        (
            "POST",
            "/api/puzzles/pattern-002/check",
            big_body.as_str(),
            413,
        ),
        ("GET", long.as_str(), "", 414),
        ("GET", "/api/puzzles/%FF%FE", "", 400),
        ("GET", "/api/probe?fen=%FF", "", 400),
        ("GET", "/api/solve?fen=%C0%80", "", 400),
        (
            "GET",
            "/api/probe?fen=3k5%2F9%2F9%2F9%2F9%2F9%2F9%2F9%2F9%2FR3K4%20w",
            "",
            409,
        ),
        (
            "GET",
            "/api/theory?claim=%E9%A9%AC%E5%8D%92%E9%9A%BE%E7%A0%B4%E5%A3%AB%E7%9B%B8%E5%85%A8",
            "",
            409,
        ),
        ("POST", "/api/puzzles/pattern-002/check", "{", 400),
        (
            "POST",
            "/api/puzzles/endgame-001/hint",
            r#"{"moves": []}"#,
            409,
        ),
    ] {
        let (status, head, text) = request(a, method, path, body);
        assert_eq!(
            status,
            want,
            "{method} {}: {text}",
            &path[..path.len().min(60)]
        );
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{method} {path}: {head}"
        );
        let j: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text}"));
        assert!(j["error"].as_str().is_some_and(|e| !e.is_empty()), "{text}");
        if want == 405 {
            assert!(head.to_ascii_lowercase().contains("allow:"), "{head}");
        }
        if want == 409 {
            assert!(j["error"].as_str().unwrap().contains("canju gen"), "{text}");
        }
    }
}
