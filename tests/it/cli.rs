//! The `canju` binary driven as a user would: output, errors and exit codes.

use std::ffi::OsStr;
use std::process::{Command, Output};

fn canju<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(args)
        .output()
        .expect("canju runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const KIWI: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

#[test]
fn perft_prints_the_count_last() {
    let o = canju(["perft", "--fen", KIWI, "3"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("43929"));
    let o = canju(["perft", "3", "--divide"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 45);
    assert_eq!(lines[44], "79666");
    let sum: u64 = lines[..44]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 79666);
}

#[test]
fn bad_fens_exit_2_with_one_line() {
    for fen in [
        "",
        "rnbakabnr",
        "4k4/9/9/9/9/9/9/9/9/4K4 w",
        "4k4/9/9/9/9/9/9/9/9/3KK4 w",
        "4k4/9/9/9/9/9/9/9/9/3K5 q",
        "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 2",
    ] {
        let o = canju(["perft", "--fen", fen, "1"]);
        assert_eq!(o.status.code(), Some(2), "{fen}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{fen}: {err}");
        assert!(err.starts_with("canju: error: --fen: "), "{err}");
        assert!(stdout(&o).is_empty());
    }
}

#[cfg(unix)]
#[test]
fn non_utf8_fen_exits_2() {
    use std::os::unix::ffi::OsStrExt;
    let o = canju([
        OsStr::new("show"),
        OsStr::new("--fen"),
        OsStr::from_bytes(b"4k4/\xff\xfe/9"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not valid UTF-8"));
}

#[test]
fn moves_lists_every_notation() {
    let o = canju(["moves", "--notation", "iccs"]);
    assert_eq!(stdout(&o).lines().count(), 44);
    let o = canju(["moves", "--notation", "wxf"]);
    assert!(stdout(&o).lines().any(|l| l == "C2.5"));
    let o = canju(["moves"]);
    assert!(stdout(&o).lines().any(|l| l == "炮二平五"));
    let o = canju(["moves", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 44);
    assert!(
        arr.iter()
            .any(|m| m["iccs"] == "h2e2" && m["wxf"] == "C2.5" && m["chinese"] == "炮二平五")
    );
    let o = canju(["moves", "--notation", "klingon"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn moves_say_what_each_attacks() {
    // 炮二平五 aims at the central 卒, which has not crossed the river: no chase (闲)
    let o = canju(["moves", "--attacks"]);
    assert!(
        stdout(&o).lines().any(|l| l == "炮二平五  闲"),
        "{}",
        stdout(&o)
    );
    // the chariot turns on a loose horse: 捉, and to the general's file or rank: 将
    let fen = "3k5/9/9/9/2n6/9/9/9/9/R3K4 w";
    let o = canju(["moves", "--fen", fen, "--attacks"]);
    let text = stdout(&o);
    assert!(text.lines().any(|l| l == "车九进五  捉 马c5"), "{text}");
    assert!(text.lines().any(|l| l == "车九平六  将"), "{text}");
    let o = canju(["moves", "--fen", fen, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let chase = v
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["iccs"] == "a0a5")
        .unwrap();
    assert_eq!(chase["attack"], "chase");
    assert_eq!(chase["attack_zh"], "捉");
    assert_eq!(chase["chases"][0]["target"], "c5");
    assert_eq!(chase["chases"][0]["piece"], "horse");
    assert_eq!(chase["chases"][0]["reason"], "unprotected");
}

#[test]
fn black_moves_use_full_width_digits_unless_asked() {
    let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
    let o = canju(["moves", "--fen", fen]);
    assert!(stdout(&o).lines().any(|l| l == "马８进７"));
    let o = canju(["moves", "--fen", fen, "--ascii-digits"]);
    assert!(stdout(&o).lines().any(|l| l == "马8进7"));
}

#[test]
fn apply_mixes_notations() {
    let o = canju(["apply", "炮二平五", "H8+7", "h0g2", "車９平８"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        "rnbakabr1/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3"
    );
}

#[test]
fn apply_names_the_bad_move_and_its_index() {
    let o = canju(["apply", "h2e2", "h0g2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1);
    assert!(err.contains("move 2 'h0g2'"), "{err}");
    let o = canju(["apply", "--fen", "4k4/9/9/9/9/9/9/9/4C4/4K4 w", "炮五平四"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("flying general"));
    let o = canju(["apply", "前兵进一"]);
    assert!(stderr(&o).contains("move 1 '前兵进一': red has no soldier in front"));
}

#[test]
fn show_draws_ascii_when_piped() {
    let o = canju(["show"]);
    let out = stdout(&o);
    assert!(out.starts_with("9 r n b a k a b n r\n"));
    assert!(out.contains("  a b c d e f g h i\n"));
    assert!(!out.contains('\x1b'));
}
