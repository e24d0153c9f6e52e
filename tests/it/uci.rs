//! `canju uci` driven as a GUI drives an engine: a conversation over pipes, each answer
//! waited for line by line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::common::{TempDir, build_tables};

/// The engine, its input, and its output lines as they come.
struct Engine {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start(dir: &str) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_canju"))
            .args(["uci", "--dir", dir])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            input,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// The lines up to and including the first that starts with `last`.
    fn until(&self, last: &str) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(30)) {
                Ok(l) => {
                    let done = l.starts_with(last);
                    got.push(l);
                    if done {
                        return got;
                    }
                }
                Err(e) => panic!("no '{last}' ({e}); so far: {got:?}"),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_gui_conversation_tables_solver_fallback_and_stop() {
    let dir = TempDir::new("uci");
    build_tables(
        &canju::tablebase::Tablebase::with_rules(&dir.0, canju::tablebase::Rules::Asian),
        "KNKA",
    );
    let mut e = Engine::start(dir.arg());

    // the handshake, its options
    e.send("uci");
    let hello = e.until("uciok");
    assert!(hello[0].starts_with("id name canju"), "{hello:?}");
    for option in ["TablebaseDir", "Threads", "Hash", "Rules"] {
        assert!(
            hello
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "{option}: {hello:?}"
        );
    }
    e.send("setoption name Threads value 2");
    e.send("isready");
    assert_eq!(e.until("readyok"), ["readyok"]);

    // table material: the tables' perfect move at once, with the distance as a mate score
    e.send("ucinewgame");
    e.send("position fen 3a5/4k4/9/4N4/9/9/9/9/9/3K5 w - - 0 1");
    e.send("go wtime 60000 btime 60000");
    let answer = e.until("bestmove");
    assert!(
        answer
            .iter()
            .any(|l| l.starts_with("info depth") && l.contains("score mate 6 pv e6c7")),
        "{answer:?}"
    );
    assert_eq!(answer.last().unwrap(), "bestmove e6c7");
    // a bare general each: a draw, cp 0
    e.send("position fen 4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1");
    e.send("go depth 5");
    let answer = e.until("bestmove");
    assert!(
        answer.iter().any(|l| l.contains("score cp 0")),
        "{answer:?}"
    );

    // beyond the tables: the solver's proof (马后炮, mate in 3), moves played from it
    e.send("position fen 3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1 moves e0e1 e8f7");
    e.send("go mate 2");
    let answer = e.until("bestmove");
    assert!(
        answer
            .iter()
            .any(|l| l.contains("score mate 2") && l.contains("pv g0d0 f7e8 c5d7")),
        "{answer:?}"
    );
    assert_eq!(answer.last().unwrap(), "bestmove g0d0");

    // nothing proven: a labelled fallback, still a legal move
    e.send("position startpos");
    e.send("go depth 2");
    let answer = e.until("bestmove");
    assert!(
        answer
            .iter()
            .any(|l| l.starts_with("info string fallback:")),
        "{answer:?}"
    );
    let best = answer
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .to_string();
    let start = canju::Position::start();
    assert!(canju::notation::parse_move(&start, &best).is_ok(), "{best}");

    // out of time (not stopped by the GUI): the fallback still checks its move
    e.send("position startpos moves h2e2");
    e.send("go movetime 200");
    let answer = e.until("bestmove");
    assert!(
        answer
            .iter()
            .any(|l| l.contains("after which the opponent has no mate in one")),
        "{answer:?}"
    );

    // infinite until stop: nothing before it, the answer soon after it
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    assert!(e.lines.try_iter().all(|l| !l.starts_with("bestmove")));
    let asked = Instant::now();
    e.send("stop");
    let answer = e.until("bestmove");
    let took = asked.elapsed();
    // (the engine answers within a few milliseconds; a loaded machine gets some slack)
    assert!(
        took < Duration::from_millis(1000),
        "stop took {took:?}: {answer:?}"
    );

    // bad input: said, and the engine goes on
    e.send("position fen not-a-fen");
    e.send("frobnicate");
    e.send("go depth x");
    e.send("isready");
    let said = e.until("readyok");
    assert!(
        said.iter()
            .any(|l| l.starts_with("info string position fen:")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|l| l == "info string unknown command: frobnicate"),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|l| l.starts_with("info string go: dropped depth x (not a number)")),
        "{said:?}"
    );
    // (the go with a bad word searched with the defaults: its answer)
    e.send("stop");
    e.until("bestmove");
    // a position already mated: no move
    e.send("position fen 3k1a3/4a4/3N5/9/9/9/9/9/4K4/3C5 b - - 5 3");
    e.send("go");
    let answer = e.until("bestmove");
    assert_eq!(answer.last().unwrap(), "bestmove (none)", "{answer:?}");
    e.send("quit");
    let status = e.child.wait().unwrap();
    assert!(status.success());
}

#[test]
fn ucci_is_the_same_engine_with_its_own_handshake() {
    let dir = TempDir::new("ucci");
    build_tables(
        &canju::tablebase::Tablebase::with_rules(&dir.0, canju::tablebase::Rules::Asian),
        "KNKA",
    );
    let mut e = Engine::start(dir.arg());
    e.send("ucci");
    let hello = e.until("ucciok");
    assert!(hello[0].starts_with("id name canju"), "{hello:?}");
    // UCCI's syntax: no `name`, the bounds before the default, its standard names
    for option in [
        "option usemillisec type check default false",
        "option threads type spin min 1 max 256 default 1",
        "option hashsize type spin min 1 max 16384 default 64",
    ] {
        assert!(hello.contains(&option.to_string()), "{option}: {hello:?}");
    }
    assert!(
        hello.iter().all(|l| !l.starts_with("option name")),
        "{hello:?}"
    );
    e.send("setoption Hash 16");
    e.send("setoption hashsize 16");
    e.send("position fen 3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1");
    // (the clock in seconds: five of them are time enough)
    e.send("go time 5 increment 0");
    assert_eq!(e.until("bestmove").last().unwrap(), "bestmove e0e1");
    // banmoves: not to be played in this position; the next `position` lifts them
    e.send("banmoves e0e1");
    e.send("go depth 3");
    assert_eq!(e.until("bestmove").last().unwrap(), "bestmove g0g1");
    e.send("position fen 3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1");
    e.send("go depth 3");
    assert_eq!(e.until("bestmove").last().unwrap(), "bestmove e0e1");
    // probe: the tables' move and exact value, without a search; nothing off the tables
    e.send("probe fen 3a5/4k4/9/4N4/9/9/9/9/9/3K5 w - - 0 1");
    assert_eq!(
        e.until("pophash"),
        ["pophash bestmove e6c7 lowerbound 9989 depth 127 upperbound 9989 depth 127"]
    );
    e.send("probe startpos");
    assert_eq!(e.until("pophash"), ["pophash"]);
    e.send("bye");
    assert_eq!(e.until("bye"), ["bye"]);
    assert!(e.child.wait().unwrap().success());
}

/// Under the rule (the engine's default), a defence that can only check forever fails: the
/// solver's mate is proven by the rule and says so; the GUI's moves before the position
/// count as the game's history. Under `Rules none` the same position is no forced win.
#[test]
fn the_engine_proves_wins_by_the_perpetual_check_rule() {
    // no tables: the solver decides (车对马, the horse can only check)
    let dir = TempDir::new("uci-rule");
    let mut e = Engine::start(dir.arg());
    e.send("uci");
    e.until("uciok");
    let fen = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1";
    // the horse's checks have already gone round once: the position is the start again
    e.send(&format!("position fen {fen} moves d0d1 b1c3 d1d0 c3b1"));
    e.send("go mate 8");
    let got = e.until("bestmove");
    // (fresh, the win takes 8 moves; the history can only shorten it)
    let mate = got
        .iter()
        .find_map(|l| l.split("score mate ").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse::<u32>().ok());
    assert!(mate.is_some_and(|n| n <= 8), "{got:?}");
    assert!(
        got.iter()
            .any(|l| l.contains("rules asian") && l.contains("长打作负")),
        "{got:?}"
    );
    e.send("setoption name Rules value none");
    e.send(&format!("position fen {fen}"));
    e.send("go mate 8");
    let got = e.until("bestmove");
    assert!(
        got.iter().any(|l| l.contains("proven: no forced win")),
        "{got:?}"
    );
    e.send("quit");
}

/// Under the rule, the tables' move respects the game's history: after the chariot has
/// chased the horse round a cycle (h7h0 d8d9 h0h7 d9d8), the tables' quickest win h7h0
/// would complete the perpetual chase and is forbidden; the engine plays the best move
/// left and scores it (mate 3, not the tables' mate 2). Without the rule it plays h7h0.
#[test]
fn the_tables_move_respects_the_games_history_under_the_rule() {
    let dir = TempDir::new("uci-history");
    for rules in [
        canju::tablebase::Rules::Asian,
        canju::tablebase::Rules::None,
    ] {
        build_tables(
            &canju::tablebase::Tablebase::with_rules(&dir.0, rules),
            "KRKN",
        );
    }
    let mut e = Engine::start(dir.arg());
    e.send("uci");
    e.until("uciok");
    let fen = "9/3k5/7R1/9/9/9/9/4K4/9/8n w - - 0 1";
    // fresh, the quickest win is h7h0 (mate 2)
    e.send(&format!("position fen {fen}"));
    e.send("go depth 3");
    let got = e.until("bestmove");
    assert_eq!(got.last().unwrap(), "bestmove h7h0", "{got:?}");
    assert!(got.iter().any(|l| l.contains("score mate 2")), "{got:?}");
    // after the cycle, h7h0 is forbidden
    e.send(&format!("position fen {fen} moves h7h0 d8d9 h0h7 d9d8"));
    e.send("go depth 3");
    let got = e.until("bestmove");
    let best = got.last().unwrap();
    assert_ne!(best, "bestmove h7h0", "{got:?}");
    assert!(
        got.iter().any(|l| l.contains("score mate 3")),
        "the score of the move played: {got:?}"
    );
    assert!(
        got.iter()
            .any(|l| l.contains("h7h0") && l.contains("rule forbids")),
        "{got:?}"
    );
    // the move played is a win in 3 from the position after the cycle
    let m = best.trim_start_matches("bestmove ");
    let after: canju::Position = fen.parse().unwrap();
    let mut p = after.clone();
    for text in ["h7h0", "d8d9", "h0h7", "d9d8", m] {
        let mv = canju::notation::parse_move(&p, text).unwrap();
        p.play_unchecked(mv);
    }
    let tb = canju::tablebase::Tablebase::with_rules(&dir.0, canju::tablebase::Rules::Asian);
    assert_eq!(tb.probe(&p).unwrap(), canju::tablebase::Value::Loss(4));
    // without the rule, repeating is no offence
    e.send("setoption name Rules value none");
    e.send(&format!("position fen {fen} moves h7h0 d8d9 h0h7 d9d8"));
    e.send("go depth 3");
    let got = e.until("bestmove");
    assert_eq!(got.last().unwrap(), "bestmove h7h0", "{got:?}");
    e.send("quit");
}

/// Lines that are not UTF-8 are answered, not the end of the conversation; a table
/// directory named in GBK (a Chinese GUI's path) is taken as the bytes it is. A `go` with
/// a number that does not parse keeps the limits that do and says what it dropped.
#[test]
fn lines_not_utf8_and_go_with_bad_numbers_are_answered() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("uci-gbk");
    // 残局 in GBK
    let gbk: &[u8] = b"\xb2\xd0\xbe\xd6";
    let tables = dir.0.join(std::ffi::OsStr::from_bytes(gbk));
    std::fs::create_dir_all(&tables).unwrap();
    build_tables(
        &canju::tablebase::Tablebase::with_rules(&tables, canju::tablebase::Rules::Asian),
        "KRKN",
    );
    let mut e = Engine::start(dir.arg());
    e.send("uci");
    e.until("uciok");
    // a line of garbage bytes: an info string, and the engine still answers
    e.input.write_all(b"position \xff\xfe startpos\n").unwrap();
    e.send("isready");
    let got = e.until("readyok");
    assert!(
        got.iter()
            .any(|l| l.starts_with("info string") && l.contains("not UTF-8")),
        "{got:?}"
    );
    // the GBK path: the tables there are read
    let mut line = b"setoption name TablebaseDir value ".to_vec();
    line.extend_from_slice(tables.as_os_str().as_bytes());
    line.push(b'\n');
    e.input.write_all(&line).unwrap();
    e.send("position fen 9/3k5/7R1/9/9/9/9/4K4/9/8n w - - 0 1");
    e.send("go depth 3");
    let got = e.until("bestmove");
    assert!(
        got.iter().any(|l| l.contains("the tables (KRKN")),
        "{got:?}"
    );
    // go with a number that does not parse: the rest hold, and it says what it dropped
    e.send("position fen 3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1");
    e.send("go mate x3 movetime 20000");
    let got = e.until("bestmove");
    assert!(
        got.iter()
            .any(|l| l.starts_with("info string go: dropped mate x3")),
        "{got:?}"
    );
    assert!(got.iter().any(|l| l.contains("score mate 3")), "{got:?}");
    // Hash changed twice: the engine goes on
    e.send("setoption name Hash value 256");
    e.send("setoption name Hash value 16");
    e.send("isready");
    e.until("readyok");
    e.send("quit");
}

#[test]
fn the_engine_reports_its_progress_its_tables_and_honours_searchmoves_and_ponder() {
    let dir = TempDir::new("uci-progress");
    build_tables(
        &canju::tablebase::Tablebase::with_rules(&dir.0, canju::tablebase::Rules::Asian),
        "KNKA",
    );
    let mut e = Engine::start(dir.arg());
    e.send("uci");
    let hello = e.until("uciok");
    assert!(
        hello.contains(&"option name Ponder type check default false".to_string()),
        "{hello:?}"
    );

    // a table directory that is not there, one of another rule set: said when set
    e.send("setoption name TablebaseDir value /no/such/canju/dir");
    e.send(&format!("setoption name TablebaseDir value {}", dir.arg()));
    e.send("setoption name Rules value none");
    e.send("setoption name Rules value asian");
    e.send("isready");
    let said = e.until("readyok");
    assert!(
        said.iter().any(|l| l
            == "info string TablebaseDir /no/such/canju/dir: no such directory; the engine searches without tables"),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|l| l.contains("no table of rules none in it, only of rules asian")),
        "{said:?}"
    );
    // (the directory holds tables of the rule set asked for: nothing to say)
    assert_eq!(said.len(), 3, "{said:?}");

    // a search that takes a while says each depth it reaches, with nodes, nps and time
    e.send("position startpos");
    e.send("go depth 6 movetime 1500");
    let answer = e.until("bestmove");
    let depths: Vec<&String> = answer
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" nps ") && l.contains(" time "))
        .collect();
    assert!(depths.len() >= 2, "{answer:?}");
    // nothing proven: the fallback's move carries no score a GUI would draw as "equal"
    assert!(
        answer
            .iter()
            .all(|l| !l.contains("score cp") && !l.contains("score mate")),
        "{answer:?}"
    );
    assert!(
        answer
            .iter()
            .any(|l| l.starts_with("info string fallback:")),
        "{answer:?}"
    );

    // searchmoves: only those first moves (马后炮's mate in 3 starts e0e1; c5d7 mates in
    // no 3); a word that is no legal move is said
    e.send("position fen 3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1");
    e.send("go mate 3 searchmoves c5b7 e0e1 zz");
    let answer = e.until("bestmove");
    assert!(
        answer
            .iter()
            .any(|l| l == "info string go searchmoves: zz not legal here; searching the others"),
        "{answer:?}"
    );
    assert_eq!(answer.last().unwrap(), "bestmove e0e1", "{answer:?}");
    e.send("go mate 3 searchmoves c5b7");
    let answer = e.until("bestmove");
    assert!(
        answer.iter().all(|l| !l.contains("score mate")),
        "{answer:?}"
    );
    assert_eq!(answer.last().unwrap(), "bestmove c5b7", "{answer:?}");
    // the tables' move among the moves searched
    e.send("position fen 3a5/4k4/9/4N4/9/9/9/9/9/3K5 w - - 0 1");
    e.send("go searchmoves d0d1");
    let answer = e.until("bestmove");
    assert_eq!(answer.last().unwrap(), "bestmove d0d1", "{answer:?}");

    // go ponder: no bestmove until ponderhit
    e.send("go ponder depth 2");
    e.send("isready");
    let said = e.until("readyok");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        said.iter()
            .chain(&e.lines.try_iter().collect::<Vec<_>>())
            .all(|l| !l.starts_with("bestmove")),
        "{said:?}"
    );
    e.send("ponderhit");
    let answer = e.until("bestmove");
    assert!(
        answer.last().unwrap().starts_with("bestmove "),
        "{answer:?}"
    );
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

/// Whether an `info` line keeps to UCI's grammar: known keywords, each with the values
/// it takes (`score cp N | mate N [lowerbound|upperbound]`, `pv` and `currmove` ICCS
/// moves, `string` the rest of the line), nothing unknown or out of place.
fn check_info_grammar(line: &str) -> Result<(), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") || words.len() < 2 {
        return Err("not an info line with content".into());
    }
    let is_move = |w: &str| {
        let b = w.as_bytes();
        b.len() == 4
            && (b'a'..=b'i').contains(&b[0])
            && b[1].is_ascii_digit()
            && (b'a'..=b'i').contains(&b[2])
            && b[3].is_ascii_digit()
    };
    let number = |w: Option<&&str>, signed: bool| {
        w.is_some_and(|w| {
            let digits = if signed { w.trim_start_matches('-') } else { w };
            !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
        })
    };
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "string" => return Ok(()),
            "depth" | "seldepth" | "time" | "nodes" | "nps" | "multipv" | "hashfull" | "tbhits"
            | "currmovenumber" => {
                if !number(words.get(i + 1), false) {
                    return Err(format!("{} without a number", words[i]));
                }
                i += 2;
            }
            "score" => {
                match words.get(i + 1) {
                    Some(&"cp") | Some(&"mate") if number(words.get(i + 2), true) => i += 3,
                    _ => return Err("score without cp N or mate N".into()),
                }
                if matches!(words.get(i), Some(&"lowerbound") | Some(&"upperbound")) {
                    i += 1;
                }
            }
            "currmove" => {
                if !words.get(i + 1).is_some_and(|w| is_move(w)) {
                    return Err("currmove without a move".into());
                }
                i += 2;
            }
            "pv" => {
                i += 1;
                let start = i;
                while i < words.len() && is_move(words[i]) {
                    i += 1;
                }
                if i == start {
                    return Err("pv without moves".into());
                }
            }
            other => return Err(format!("unknown word '{other}'")),
        }
    }
    Ok(())
}

/// A GUI's session in the order Pikafish-speaking GUIs send it (handshake, options, a new
/// game, moves played from the start with a clock, an analysis of a position with `go
/// infinite` and `stop`, a table position, `quit`): every answer in its place and every
/// `info` line in UCI's grammar.
#[test]
fn a_scripted_gui_session_keeps_to_the_uci_grammar() {
    let dir = TempDir::new("uci-gui");
    build_tables(
        &canju::tablebase::Tablebase::with_rules(&dir.0, canju::tablebase::Rules::Asian),
        "KNKA",
    );
    let mut e = Engine::start(dir.arg());
    let mut infos = Vec::new();
    let mut keep = |lines: &[String]| {
        infos.extend(lines.iter().filter(|l| l.starts_with("info")).cloned());
    };
    e.send("uci");
    let hello = e.until("uciok");
    assert!(hello.iter().any(|l| l.starts_with("id name ")), "{hello:?}");
    for l in &hello[..hello.len() - 1] {
        assert!(l.starts_with("id ") || l.starts_with("option name "), "{l}");
    }
    e.send("setoption name Threads value 1");
    e.send("setoption name Hash value 16");
    e.send("setoption name Ponder value false");
    e.send("isready");
    keep(&e.until("readyok"));
    e.send("ucinewgame");
    e.send("isready");
    keep(&e.until("readyok"));
    // a game: the GUI sends the whole game each time, then the clocks
    e.send("position startpos moves h2e2 h9g7");
    e.send("go wtime 3000 btime 3000 winc 0 binc 0");
    let answer = e.until("bestmove");
    keep(&answer);
    let best = answer
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .to_string();
    let mut pos = canju::Position::start();
    for m in ["h2e2", "h9g7"] {
        let m = canju::notation::parse_move(&pos, m).unwrap();
        pos.play_unchecked(m);
    }
    assert!(canju::notation::parse_move(&pos, &best).is_ok(), "{best}");
    // analysis: go infinite until the GUI stops it
    e.send("position fen 3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    let answer = e.until("bestmove");
    keep(&answer);
    assert!(
        answer.iter().any(|l| l.contains("score mate 3")),
        "{answer:?}"
    );
    // a table position with a depth limit
    e.send("position fen 3a5/4k4/9/4N4/9/9/9/9/9/3K5 w - - 0 1");
    e.send("go depth 10");
    let answer = e.until("bestmove");
    keep(&answer);
    assert_eq!(answer.last().unwrap(), "bestmove e6c7");
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
    assert!(infos.len() >= 4, "{infos:?}");
    // (the grammar refuses what is not UCI)
    for wrong in [
        "info depth x",
        "info score cp",
        "info score mate 3 pv",
        "info colour red",
        "info",
    ] {
        assert!(check_info_grammar(wrong).is_err(), "{wrong}");
    }
    for l in &infos {
        if let Err(why) = check_info_grammar(l) {
            panic!("not UCI: {l}: {why}");
        }
    }
}
