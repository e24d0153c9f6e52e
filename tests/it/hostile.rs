//! The binary under hostile use: closed and full output, absurd arguments, special files
//! where tables should be, damaged headers, and the messages each gets.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::TempDir;

fn canju() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_canju"));
    c.env_remove("CANJU_TB_DIR");
    c
}

fn run(args: &[&str]) -> Output {
    canju().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit code `code` and exactly one line on standard error, with no panic and no OS or
/// decoder internals; returns the line.
fn one_line_error(o: &Output, code: i32) -> String {
    let e = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "stderr: {e} stdout: {}",
        stdout(o)
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    for bad in [
        "panicked",
        "os error",
        "UnexpectedEnd",
        "LimitExceeded",
        "Utf8 {",
    ] {
        assert!(!e.contains(bad), "{e}");
    }
    e
}

/// Runs a command and kills it if it has not ended within `limit`; returns its output and
/// whether it ended by itself.
fn run_within(args: &[&str], limit: Duration) -> (Output, bool) {
    let mut child = canju()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let ended = loop {
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (child.wait_with_output().unwrap(), ended)
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [
        &["moves"][..],
        &["moves", "--json"],
        &["show"],
        &["perft", "2", "--divide"],
        &["deps", "KNPKAABB"],
    ] {
        let mut child = canju()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // close the reading end at once, as `| head -0` would
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_full_output_is_an_error() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    for args in [&["show"][..], &["moves"], &["deps", "KRK"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = canju().args(args).stdout(full).output().unwrap();
        let e = one_line_error(&o, 1);
        assert!(e.contains("standard output: no space left"), "{e}");
    }
}

#[test]
fn perft_depth_is_bounded_and_depth_zero_is_one_node() {
    let e = one_line_error(&run(&["perft", "30000"]), 2);
    assert!(e.contains("perft depth 30000: at most 20"), "{e}");
    for args in [&["perft", "0"][..], &["perft", "0", "--divide"]] {
        let o = run(args);
        assert!(o.status.success());
        assert_eq!(stdout(&o), "1\n", "{args:?}");
    }
}

#[test]
fn threads_are_bounded() {
    for n in ["0", "100000"] {
        for command in ["gen", "plan"] {
            let e = one_line_error(
                &run(&[command, "KRK", "--threads", n, "--dir", "/nonexistent"]),
                2,
            );
            assert!(
                e.contains(&format!("--threads {n}: between 1 and 256")),
                "{command}: {e}"
            );
        }
    }
}

/// A number refused names the bound it broke, the upper one too.
#[test]
fn refused_numbers_name_their_real_bounds() {
    for (args, bound) in [
        (&["solve", "--time", "1e12"][..], "at most 10000000"),
        (&["solve", "--time", "0"], "above 0"),
        (&["solve", "--max-moves", "61"], "between 1 and 60"),
        (&["solve", "--hash", "0"], "between 1 and 16384 MB"),
        (&["theory", "KCK", "--limit", "5000"], "at most 1000"),
    ] {
        let e = one_line_error(&run(args), 2);
        assert!(e.contains(bound), "{args:?}: {e}");
    }
}

#[test]
fn info_answers_at_once_for_any_material() {
    let d = TempDir::new("hostile-info");
    let (o, ended) = run_within(
        &["info", "KRRKRAABB", "--dir", d.arg()],
        Duration::from_secs(20),
    );
    assert!(ended, "info did not end");
    let text = stdout(&o);
    assert!(text.contains("index size:"), "{text}");
    assert!(text.contains("--count"), "{text}");
}

#[test]
fn special_files_are_not_tables() {
    let d = TempDir::new("hostile-special");
    // a directory in place of a table
    std::fs::create_dir(d.0.join("KRK.asian.ctb")).unwrap();
    let e = one_line_error(&run(&["stats", "KRK", "--dir", d.arg()]), 1);
    assert!(
        e.contains("KRK.asian.ctb: a directory, not a table file"),
        "{e}"
    );
    std::fs::remove_dir(d.0.join("KRK.asian.ctb")).unwrap();
    // a named pipe in place of a table: refused at once, not read for ever
    let fifo = d.0.join("KRK.asian.ctb");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w";
        for args in [
            &["stats", "KRK", "--dir", d.arg()][..],
            &["probe", "--fen", fen, "--dir", d.arg()],
            &["verify", "KRK", "--dir", d.arg()],
            &["gen", "KRK", "--dir", d.arg()],
        ] {
            let (o, ended) = run_within(args, Duration::from_secs(20));
            assert!(ended, "{args:?} hung on a named pipe");
            let e = one_line_error(&o, 1);
            assert!(e.contains("a named pipe, not a table file"), "{e}");
        }
    }
    // a regular file as the table directory
    let file = d.0.join("plain");
    std::fs::write(&file, b"x").unwrap();
    let e = one_line_error(&run(&["gen", "KRK", "--dir", file.to_str().unwrap()]), 1);
    assert!(e.contains("a regular file, not a directory"), "{e}");
    // an empty --dir
    let e = one_line_error(&run(&["stats", "KRK", "--dir", ""]), 2);
    assert!(e.contains("--dir"), "{e}");
}

#[test]
fn an_empty_table_dir_variable_means_the_default() {
    let d = TempDir::new("hostile-env");
    let o = canju()
        .args(["stats", "KRK"])
        .env("CANJU_TB_DIR", "")
        .current_dir(&d.0)
        .output()
        .unwrap();
    let e = one_line_error(&o, 1);
    assert!(e.contains("no KRK table in tablebases"), "{e}");
    let o = canju()
        .args(["gen", "KK"])
        .env("CANJU_TB_DIR", "")
        .current_dir(&d.0)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(d.0.join("tablebases/KK.asian.ctb").exists());
}

#[test]
fn damaged_header_fields_are_refused_by_every_command() {
    let d = TempDir::new("hostile-header");
    assert!(run(&["gen", "KRK", "--dir", d.arg()]).status.success());
    let path = d.0.join("KRK.asian.ctb");
    let good = std::fs::read(&path).unwrap();
    let len = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
    let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w";
    // a byte in the counts and longest win, in the middle of the header
    for i in [12 + len / 2, 12 + len - 10, 12 + len + 1] {
        let mut b = good.clone();
        b[i] ^= 0x20;
        std::fs::write(&path, &b).unwrap();
        for args in [
            &["stats", "KRK", "--dir", d.arg()][..],
            &["probe", "--fen", fen, "--dir", d.arg()],
            &["verify", "KRK", "--dir", d.arg()],
            &["gen", "KRK", "--dir", d.arg()],
            &["info", "KRK", "--dir", d.arg()],
        ] {
            let e = one_line_error(&run(args), 1);
            assert!(
                e.contains("KRK.asian.ctb: damaged header"),
                "{args:?} byte {i}: {e}"
            );
        }
    }
    // zeroed body blocks: probe refuses instead of reading a draw
    let mut b = good.clone();
    let parsed = canju::tablebase::format::parse(&path, &good).unwrap();
    for r in &parsed.blocks {
        let start = parsed.body + r.offset as usize;
        for x in &mut b[start..start + r.length as usize] {
            *x = 0;
        }
    }
    std::fs::write(&path, &b).unwrap();
    let e = one_line_error(&run(&["probe", "--fen", fen, "--dir", d.arg()]), 1);
    assert!(
        e.contains("KRK.asian.ctb: block") && e.contains("damaged"),
        "{e}"
    );
}

#[test]
fn verify_names_a_damaged_sub_table() {
    let d = TempDir::new("hostile-sub");
    assert!(run(&["gen", "KNKA", "--dir", d.arg()]).status.success());
    let sub = d.0.join("KNK.asian.ctb");
    let mut b = std::fs::read(&sub).unwrap();
    let n = b.len();
    b[n - 10] ^= 1;
    std::fs::write(&sub, &b).unwrap();
    let e = one_line_error(&run(&["verify", "KNKA", "--dir", d.arg()]), 1);
    assert!(e.contains("KNK.asian.ctb: block"), "{e}");
    assert!(!e.contains("KNKA: entry"), "{e}");
}

#[test]
fn hostile_text_arguments() {
    let e = one_line_error(&run(&["deps", "Ⱥ马vs兵"]), 2);
    assert!(e.contains("unknown piece 'Ⱥ'"), "{e}");
    let many = format!("K{}K", "R".repeat(256));
    let e = one_line_error(&run(&["gen", &many, "--dir", "/nonexistent"]), 2);
    assert!(e.contains("more than 2 chariots"), "{e}");
    let e = one_line_error(&run(&["show", "--fen", "4k4/9/9/9/9/9/9/9/9/4K4 b"]), 2);
    assert!(e.contains("generals face each other on file e"), "{e}");
    assert!(!e.contains("is to move"), "{e}");
}

#[test]
fn bad_arguments_are_one_line_errors() {
    for args in [
        &["perft"][..],
        &["perft", "-3"],
        &["gen"],
        &["nosuchcommand"],
        &["moves", "--notation", "klingon"],
        &["show", "--no-such-flag"],
    ] {
        let e = one_line_error(&run(args), 2);
        assert!(e.starts_with("canju: error: "), "{args:?}: {e}");
    }
    let o = run(&["--help"]);
    assert!(o.status.success() && stdout(&o).contains("Usage"));
}

#[test]
fn every_fen_canju_writes_is_one_it_reads() {
    // move numbers at the top of the range stop there instead of running past it
    let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 b - - 999999 999999";
    let o = run(&["apply", "--fen", fen, "e9f9", "a0a1", "f9e9"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = stdout(&o).trim().to_string();
    assert!(written.ends_with(" 999999 999999"), "{written}");
    for args in [
        &["show", "--fen", &written][..],
        &["apply", "--fen", &written, "a1a2"],
        &["moves", "--fen", &written],
    ] {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
}
