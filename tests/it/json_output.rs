//! `--json` means the whole of standard output is one JSON document: every command that
//! takes `--json` is run in the states that print extra lines (tables built first, a
//! damaged progress file set aside, a checkpoint resumed), and its standard output must
//! parse as a single JSON value, with the extra lines on standard error.

use std::process::{Command, Output};

use crate::common::TempDir;

fn canju(home: &TempDir) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_canju"));
    c.env_remove("CANJU_TB_DIR")
        .env("CANJU_HOME", home.0.join("home"));
    c
}

/// Standard output as one JSON value (the command succeeded), or a failure that shows
/// both streams.
fn one_json(o: &Output, what: &str) -> serde_json::Value {
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{what}: exit {:?}: {err}", o.status);
    serde_json::from_str(&out).unwrap_or_else(|e| {
        panic!("{what}: standard output is not one JSON value ({e}):\n{out}\nstderr:\n{err}")
    })
}

#[test]
fn every_json_command_prints_json_alone_even_when_it_builds_first() {
    let d = TempDir::new("json-only");
    let dir = d.arg().to_string();
    let run = |args: &[&str]| canju(&d).args(args).output().unwrap();

    // a build left half-done: the next build resumes its checkpoint and says so on stderr
    let o = canju(&d)
        .args(["gen", "KNK", "--dir", &dir, "--checkpoint-minutes", "0"])
        .env("CANJU_CHECKPOINT_EXIT_AFTER", "1")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        std::fs::read_dir(&d.0).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".work")),
        "a checkpoint was left"
    );
    let o = run(&[
        "probe",
        "--fen",
        "3k5/9/9/9/9/9/9/9/4N4/4K4 w",
        "--json",
        "--generate",
        "--dir",
        &dir,
    ]);
    let j = one_json(&o, "probe --generate (resuming a checkpoint)");
    assert_eq!(j["material"], "KNK");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("KNK") && err.contains("built"), "{err}");

    // commands that build what they lack before they report
    for (args, what) in [
        (
            vec!["diff", "KCK", "--json"],
            "diff (builds both rule sets)",
        ),
        (
            vec!["theory", "单马胜单士", "--json"],
            "theory (builds KNKA)",
        ),
        (vec!["stats", "KNKA", "--json"], "stats"),
        (
            vec![
                "solve",
                "--fen",
                "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w",
                "--max-moves",
                "3",
                "--json",
            ],
            "solve",
        ),
        (vec!["moves", "--json"], "moves"),
    ] {
        let mut a = args.clone();
        if !matches!(args[0], "moves") {
            a.extend(["--dir", &dir]);
        }
        one_json(&run(&a), what);
    }

    // a damaged progress file is set aside with a warning on stderr
    let home = d.0.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("progress.json"), b"\xff\xfe not json").unwrap();
    let o = run(&["puzzle", "list", "--json"]);
    one_json(&o, "puzzle list (damaged progress)");
    assert!(String::from_utf8_lossy(&o.stderr).contains("damaged"));
    assert!(home.join("progress.json.damaged-1").exists());

    // a puzzle judged by tables that are built first (KNKA's, in a directory of its own);
    // a mistake exits 1, a solve 0: either way the output is the JSON alone
    let fresh = d.0.join("fresh");
    let o = run(&[
        "puzzle",
        "check",
        "endgame-001",
        "e6c7",
        "--json",
        "--dir",
        fresh.to_str().unwrap(),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    let j: serde_json::Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("puzzle check: not one JSON value ({e}):\n{out}"));
    assert_eq!(j["id"], "endgame-001");
    assert!(String::from_utf8_lossy(&o.stderr).contains("building the tables of KNKA"));
}
