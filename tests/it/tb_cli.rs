//! `canju gen`, `deps`, `info`, `probe`, `stats`, `verify` driven as a user would,
//! including damaged table files.

use crate::common::canju;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("canju-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        TempDir(p)
    }
    fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn out(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn one_line_error(o: &Output, code: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout {} stderr {}",
        out(o),
        err(o)
    );
    let e = err(o);
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[test]
fn gen_builds_dependencies_first_then_keeps_them() {
    let d = TempDir::new("gen");
    let o = canju(&["gen", "车对光将", "--dir", d.arg(), "--threads", "2"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("KK ") && lines[0].contains(" built "));
    assert!(lines[1].starts_with("KRK ") && lines[1].contains("longest win"));
    assert!(lines[2].starts_with("KRK (车对光将), rules asian: 2 tables, 2 built"));
    assert!(
        err(&o).is_empty(),
        "no progress bar when piped: {}",
        err(&o)
    );
    let o = canju(&["gen", "KRK", "--dir", d.arg()]);
    assert!(out(&o).contains("2 tables, 0 built"), "{}", out(&o));
    assert!(d.0.join("KRK.asian.ctb").exists());
    assert!(
        std::fs::read_dir(&d.0)
            .unwrap()
            .all(|e| e.unwrap().path().extension().unwrap() == "ctb")
    );
}

#[test]
fn bad_material_names_are_one_line_errors() {
    for (name, needle) in [
        ("高兵对单士", "describes where a piece stands"),
        ("三马对士象全", "more than 2 horses"),
        ("KXK", "unknown piece 'X'"),
        ("KRRNNCCPPPPPKRRNNCCPPPPP", "more pieces than"),
    ] {
        let o = canju(&["deps", name]);
        let e = one_line_error(&o, 2);
        assert!(e.contains(needle), "{name}: {e}");
    }
}

#[test]
fn deps_lists_build_order() {
    let o = canju(&["deps", "KNPKAABB"]);
    let text = out(&o);
    let names: Vec<&str> = text.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(names.len(), 36);
    assert_eq!(names[0], "KK");
    assert_eq!(*names.last().unwrap(), "KNPKAABB");
    assert!(text.contains("KNPKAABB 马兵对士象全"));
}

#[test]
fn info_counts_legal_positions() {
    // without a table and without --count: sizes at once, no counting
    let d = TempDir::new("info");
    let o = canju(&["info", "KRK", "--dir", d.arg()]);
    let text = out(&o);
    assert!(
        text.contains("index size: 4,050 per side to move"),
        "{text}"
    );
    assert!(text.contains("run `canju info KRK --count`"), "{text}");
    // with a table: the counts from its header
    assert!(canju(&["gen", "KRK", "--dir", d.arg()]).status.success());
    let o = canju(&["info", "KRK", "--dir", d.arg()]);
    assert!(
        out(&o).contains("legal positions, red to move: 3,834"),
        "{}",
        out(&o)
    );
    let o = canju(&["info", "KRK", "--count"]);
    let text = out(&o);
    assert!(
        text.contains("index size: 4,050 per side to move"),
        "{text}"
    );
    assert!(
        text.contains("legal positions, red to move: 3,834"),
        "{text}"
    );
    assert!(
        text.contains("legal positions, black to move: 4,914"),
        "{text}"
    );
}

#[test]
fn probe_stats_and_verify() {
    let d = TempDir::new("probe");
    // no table yet: the error says what to run
    let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w";
    let o = canju(&["probe", "--fen", fen, "--dir", d.arg()]);
    let e = one_line_error(&o, 1);
    assert!(
        e.contains(&format!("run `canju gen KRK --dir {}`", d.arg())),
        "{e}"
    );
    // --generate builds it
    let o = canju(&[
        "probe",
        "--fen",
        fen,
        "--dir",
        d.arg(),
        "--generate",
        "--json",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value =
        serde_json::from_str(&out(&o)[out(&o).find('{').unwrap()..]).unwrap();
    assert_eq!(v["side_to_move"], "red");
    assert_eq!(v["verdict"], "win");
    assert_eq!(v["plies"], 3);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves[0]["verdict"], "win");
    assert_eq!(moves[0]["plies"], 3);
    for m in moves {
        assert!(m["iccs"].is_string() && m["wxf"].is_string() && m["chinese"].is_string());
    }
    // colour flip: black holds the chariot
    let o = canju(&[
        "probe",
        "--fen",
        "r2k5/9/9/9/9/9/9/9/9/4K4 b",
        "--dir",
        d.arg(),
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["side_to_move"], "black");
    assert_eq!(v["verdict"], "win");
    // stats
    let o = canju(&["stats", "KRK", "--dir", d.arg(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["material"], "KRK");
    assert_eq!(v["rules"], "asian");
    assert_eq!(v["red_to_move"]["legal"], 3834);
    assert_eq!(
        v["red_to_move"]["win"].as_u64().unwrap()
            + v["red_to_move"]["draw"].as_u64().unwrap()
            + v["red_to_move"]["loss"].as_u64().unwrap(),
        3834
    );
    assert!(v["red_to_move"]["longest_fen"].is_string());
    assert!(v["black_to_move"]["longest_fen"].is_null());
    // verify
    let o = canju(&["verify", "KRK", "--dir", d.arg()]);
    assert!(
        out(&o).contains("positions checked, all agree; checksum ok"),
        "{}",
        out(&o)
    );
    // CANJU_TB_DIR is honoured
    let o = Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(["stats", "KRK"])
        .env("CANJU_TB_DIR", &d.0)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
}

fn damaged(d: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let path = d.join("KRK.asian.ctb");
    let mut bytes = std::fs::read(&path).unwrap();
    f(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
}

#[test]
fn damaged_tables_are_one_line_errors() {
    let d = TempDir::new("damaged");
    assert!(canju(&["gen", "KRK", "--dir", d.arg()]).status.success());
    let good = std::fs::read(d.0.join("KRK.asian.ctb")).unwrap();
    let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w";
    let restore = || std::fs::write(d.0.join("KRK.asian.ctb"), &good).unwrap();

    damaged(&d.0, |b| b.truncate(b.len() - 100));
    let e = one_line_error(&canju(&["probe", "--fen", fen, "--dir", d.arg()]), 1);
    assert!(
        e.contains("KRK.asian.ctb") && e.contains("truncated"),
        "{e}"
    );

    restore();
    damaged(&d.0, |b| b.truncate(5));
    let e = one_line_error(&canju(&["stats", "KRK", "--dir", d.arg()]), 1);
    assert!(e.contains("not a canju table"), "{e}");

    restore();
    damaged(&d.0, |b| b[0] = b'X');
    let e = one_line_error(&canju(&["probe", "--fen", fen, "--dir", d.arg()]), 1);
    assert!(e.contains("not a canju table"), "{e}");

    restore();
    damaged(&d.0, |b| b[12] = 99); // format version
    let e = one_line_error(&canju(&["probe", "--fen", fen, "--dir", d.arg()]), 1);
    assert!(e.contains("format version is 99"), "{e}");

    restore();
    damaged(&d.0, |b| {
        let n = b.len();
        b[n - 7] ^= 0x40;
    });
    let e = one_line_error(&canju(&["verify", "KRK", "--dir", d.arg()]), 1);
    assert!(e.contains("checksum mismatch"), "{e}");
    let e = one_line_error(&canju(&["gen", "KRK", "--dir", d.arg()]), 1);
    assert!(e.contains("checksum mismatch"), "{e}");

    restore();
    std::fs::copy(d.0.join("KK.asian.ctb"), d.0.join("KRK.asian.ctb")).unwrap();
    let e = one_line_error(&canju(&["stats", "KRK", "--dir", d.arg()]), 1);
    assert!(e.contains("material is KK"), "{e}");

    // a position with more pieces than any table: an error, not a crash
    let e = one_line_error(&canju(&["probe", "--dir", d.arg()]), 1);
    assert!(e.contains("32 pieces"), "{e}");
    let e = one_line_error(&canju(&["probe", "--generate", "--dir", d.arg()]), 2);
    assert!(e.contains("32 pieces"), "{e}");

    let e = one_line_error(
        &canju(&["stats", "KRK", "--dir", "/nonexistent/canju/tables"]),
        1,
    );
    assert!(e.contains("does not exist"), "{e}");
}

#[test]
fn a_killed_run_leaves_no_table_that_looks_complete() {
    let d = TempDir::new("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(["gen", "KNPKAB", "--dir", d.arg(), "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    // every table file present is complete and sound
    for entry in std::fs::read_dir(&d.0).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ctb") {
            // KPKAB.asian.ctb: the material before the first dot
            let file = path.file_name().unwrap().to_str().unwrap();
            let name = file.split('.').next().unwrap().to_string();
            let o = canju(&["verify", &name, "--dir", d.arg()]);
            assert!(o.status.success(), "{name}: {}", err(&o));
        }
    }
    // and a new run finishes the job
    let o = canju(&["gen", "KNPKAB", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o).contains("KNPKAB (马兵对士象), rules asian: 16 tables"),
        "{}",
        out(&o)
    );
}

#[test]
fn a_build_that_cannot_fit_is_refused_up_front() {
    // 303 GB of entries for the largest table, 728 GB at the peak of its build with the whole rule: more memory than any test machine has
    let dir = std::env::temp_dir().join(format!("canju-too-big-{}", std::process::id()));
    for args in [
        vec!["gen", "KRRNNKAABB", "--dir", dir.to_str().unwrap()],
        vec![
            "gen",
            "KRRNNKAABB",
            "--no-deps",
            "--dir",
            dir.to_str().unwrap(),
        ],
        vec!["theory", "KRRNNKAABB", "--dir", dir.to_str().unwrap()],
    ] {
        let o = canju(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains(
                "KRRNNKAABB cannot be built here: KRRNNKAABB needs about 727.6 GB of memory"
            ),
            "{err}"
        );
    }
    assert!(!dir.exists(), "nothing was written");
}

#[test]
fn verify_with_deps_checks_the_whole_family() {
    let d = TempDir::new("verify-family");
    assert!(canju(&["gen", "KNKA", "--dir", d.arg()]).status.success());
    let o = canju(&["verify", "KNKA", "--with-deps", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    // KK, KAK, KNK, KNKA, then the summary
    assert_eq!(lines.len(), 5, "{text}");
    for (line, t) in lines.iter().zip(["KK ", "KAK ", "KNK ", "KNKA "]) {
        assert!(line.starts_with(t) && line.contains("all agree"), "{text}");
    }
    assert!(
        lines[4].starts_with("KNKA (马对士, rules asian): 4 tables verified"),
        "{text}"
    );
    // a damaged sub-table fails the family, named
    let sub = d.0.join("KNK.asian.ctb");
    let mut b = std::fs::read(&sub).unwrap();
    let n = b.len();
    b[n - 3] ^= 0x08;
    std::fs::write(&sub, &b).unwrap();
    let e = one_line_error(
        &canju(&["verify", "KNKA", "--with-deps", "--dir", d.arg()]),
        1,
    );
    assert!(e.contains("KNK.asian.ctb"), "{e}");
}

#[test]
fn gen_lists_and_builds_a_class_of_endgames() {
    let d = TempDir::new("gen-class");
    let list = || {
        canju(&[
            "gen",
            "armless:1",
            "--max-entries",
            "20K",
            "--list",
            "--dir",
            d.arg(),
        ])
    };
    // the list: every table in build order, with sizes, and a summary; nothing built
    let o = list();
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 12, "{text}");
    assert!(
        lines[0].starts_with("KK ") && lines[0].contains("to build"),
        "{text}"
    );
    assert!(
        lines[11].starts_with("# armless:1: 8 endgames, 11 tables"),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(&d.0).map_or(0, |r| r.count()), 0);
    // the build: one summary line a table and one for the job
    let o = canju(&["gen", "armless:1", "--max-entries", "20K", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("armless:1, rules asian: 8 endgames, 11 tables, 11 built"),
        "{text}"
    );
    // the same bytes as a table built alone
    let alone = TempDir::new("gen-class-alone");
    assert!(
        canju(&["gen", "KNK", "--dir", alone.arg()])
            .status
            .success()
    );
    assert_eq!(
        std::fs::read(d.0.join("KNK.asian.ctb")).unwrap(),
        std::fs::read(alone.0.join("KNK.asian.ctb")).unwrap()
    );
    // a saved list builds the same, here nothing left to build
    let o = list();
    assert!(
        out(&o).lines().take(11).all(|l| l.contains(" built ")),
        "{}",
        out(&o)
    );
    assert!(
        out(&o).contains("0 to build (rules asian), about 0.0 s"),
        "{}",
        out(&o)
    );
    let file = d.0.join("list.txt");
    std::fs::write(&file, out(&o)).unwrap();
    let at = format!("@{}", file.display());
    let o = canju(&["gen", &at, "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("11 tables, 0 built"), "{}", out(&o));
    // bad requests are one-line errors
    for args in [
        vec!["gen", "armless:9", "--list"],
        vec!["gen", "armless:1", "--no-deps", "--dir", d.arg()],
        vec!["gen", "KNK", "--max-entries", "1M", "--dir", d.arg()],
        vec![
            "gen",
            "armless:1",
            "--max-entries",
            "lots",
            "--dir",
            d.arg(),
        ],
        vec!["gen", "armless:1", "--max-entries", "10", "--dir", d.arg()],
        vec!["gen", "@/no/such/list", "--dir", d.arg()],
    ] {
        one_line_error(&canju(&args), 2);
    }
}

/// Runs `canju gen` with the test hook that stops it right after its `n`-th checkpoint.
fn gen_stopping_after(dir: &TempDir, material: &str, n: u32) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(["gen", material, "--rules", "asian", "--dir", dir.arg()])
        .args(["--checkpoint-minutes", "0", "--threads", "2"])
        .env("CANJU_CHECKPOINT_EXIT_AFTER", n.to_string())
        .env_remove("CANJU_TB_DIR")
        .output()
        .unwrap()
}

/// Asserts that each named file is the same bytes in both directories.
fn assert_same_files(reference: &Path, dir: &Path, names: &[String], when: &str) {
    for name in names {
        let same =
            std::fs::read(reference.join(name)).unwrap() == std::fs::read(dir.join(name)).unwrap();
        assert!(same, "{name} differs {when}");
    }
}

fn files_of(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_stopped_build_resumes_from_its_checkpoint_to_the_same_bytes() {
    let reference = TempDir::new("ckpt-ref");
    let o = canju(&[
        "gen",
        "KRKNAA",
        "--rules",
        "asian",
        "--dir",
        reference.arg(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    // stopped after every few phases (the first time after the very first), each run
    // resuming where the last one stopped, until the family is built
    let d = TempDir::new("ckpt");
    let mut resumed_after = std::collections::BTreeSet::new();
    let mut runs = 0;
    loop {
        runs += 1;
        assert!(runs < 200, "the build does not get anywhere");
        let o = gen_stopping_after(&d, "KRKNAA", if runs == 1 { 1 } else { 5 });
        let e = err(&o);
        for line in e.lines() {
            if let Some(rest) = line.split(": resuming after ").nth(1) {
                let phase = rest.split(" from its checkpoint").next().unwrap();
                let kind = if phase.starts_with("retrograde ply") {
                    "retrograde ply"
                } else {
                    phase
                };
                resumed_after.insert(kind.to_string());
                assert!(rest.contains(".ctb.work"), "{line}");
            }
        }
        if o.status.success() {
            break;
        }
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(
            e.lines()
                .last()
                .unwrap()
                .contains("stopped after checkpoint"),
            "{e}"
        );
    }
    assert_eq!(
        resumed_after.into_iter().collect::<Vec<_>>(),
        [
            "red's wins by rule",
            "retrograde ply",
            "the forward pass",
            "the mate search"
        ]
    );
    let names = files_of(&reference.0);
    assert_eq!(
        files_of(&d.0),
        names,
        "checkpoints left behind, or tables missing"
    );
    assert_same_files(&reference.0, &d.0, &names, &format!("after {runs} runs"));

    // a damaged checkpoint is reported and the build starts over, to the same bytes
    let d = TempDir::new("ckpt-damaged");
    let o = gen_stopping_after(&d, "KRKN", 25);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let work = d.0.join("KRKN.asian.ctb.work");
    let mut bytes = std::fs::read(&work).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&work, bytes).unwrap();
    let o = canju(&["gen", "KRKN", "--rules", "asian", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("KRKN.asian.ctb.work is of no use (block")
            && err(&o).contains("damaged (checksum mismatch)); starting over"),
        "{}",
        err(&o)
    );
    assert!(!work.exists());
    let built = files_of(&d.0);
    assert_same_files(&reference.0, &d.0, &built, "after a damaged checkpoint");

    // a checkpoint of another build (here: of the other rule set's table) is not used
    std::fs::remove_file(d.0.join("KRKN.asian.ctb")).unwrap();
    let o = gen_stopping_after(&d, "KRKN", 3);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    std::fs::rename(work, d.0.join("KRKN.ctb.work")).unwrap();
    let o = canju(&["gen", "KRKN", "--rules", "none", "--dir", d.arg()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("KRKN.ctb.work is of no use (it is of KRKN (rules asian"),
        "{}",
        err(&o)
    );
    assert!(!files_of(&d.0).iter().any(|f| f.ends_with(".work")));

    // a checkpoint that can be neither read nor written (a directory in its place): the
    // build says so and goes on without, to the same bytes
    let d = TempDir::new("ckpt-unwritable");
    std::fs::create_dir_all(d.0.join("KRKN.asian.ctb.work")).unwrap();
    let o = gen_stopping_after(&d, "KRKN", 1000);
    assert!(o.status.success(), "{}", err(&o));
    let e = err(&o);
    assert!(
        e.contains("KRKN.asian.ctb.work is of no use (is a directory)"),
        "{e}"
    );
    assert!(
        e.contains("no more checkpoints of this build (is a directory)"),
        "{e}"
    );
    let top = ["KRKN.asian.ctb".to_string()];
    assert_same_files(&reference.0, &d.0, &top, "without checkpoints");

    let e = one_line_error(
        &canju(&["gen", "KRK", "--dir", d.arg(), "--checkpoint-minutes=-1"]),
        2,
    );
    assert!(e.contains("--checkpoint-minutes '-1'"), "{e}");
}
