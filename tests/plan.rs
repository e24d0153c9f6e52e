//! `canju plan` and `canju gen --no-deps`: the Makefile of a small family, run by make with
//! two jobs at once, gives tables byte-identical to `canju gen`. `.ci/run` installs make
//! when it is missing; without it this test fails and says so, unless `CANJU_SKIP_MAKE=1`
//! asks to skip it (which it prints).

use std::process::{Command, Output};

mod common;

use common::{TempDir, canju};

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_make_plan_builds_the_same_bytes_as_gen() {
    let dir = TempDir::new("plan");
    let planned = dir.0.join("planned");
    let direct = dir.0.join("direct");
    let o = canju(&[
        "plan",
        "KNPKA",
        "--dir",
        planned.to_str().unwrap(),
        "--bin",
        env!("CARGO_BIN_EXE_canju"),
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let makefile = dir.0.join("plan.mk");
    std::fs::write(&makefile, text(&o)).unwrap();
    // one rule per table of the family, each a `gen --no-deps`
    let family = text(&canju(&["deps", "KNPKA"]));
    let tables: Vec<&str> = family
        .split_whitespace()
        .filter(|w| w.starts_with('K'))
        .collect();
    assert!(tables.len() >= 8, "{family}");
    let plan = text(&o);
    for t in &tables {
        assert!(plan.contains(&format!("gen {t} --no-deps")), "{t}: {plan}");
    }
    let Ok(make) = Command::new("make").arg("--version").output() else {
        if std::env::var_os("CANJU_SKIP_MAKE").is_some() {
            println!("SKIPPED: make is not installed (CANJU_SKIP_MAKE is set)");
            return;
        }
        panic!("make is needed for this test: install it (.ci/run does), or set CANJU_SKIP_MAKE=1");
    };
    assert!(make.status.success());
    let run = Command::new("make")
        .args(["-f", makefile.to_str().unwrap(), "-j", "2"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let o = canju(&[
        "gen",
        "KNPKA",
        "--dir",
        direct.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert!(o.status.success());
    let mut names: Vec<String> = std::fs::read_dir(&direct)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), tables.len());
    for name in &names {
        let a = std::fs::read(planned.join(name)).unwrap();
        let b = std::fs::read(direct.join(name)).unwrap();
        assert!(a == b, "{name} differs");
    }
    // make again: nothing left to do
    let again = Command::new("make")
        .args(["-f", makefile.to_str().unwrap(), "-q"])
        .status()
        .unwrap();
    assert!(again.success());
}

#[test]
fn no_deps_names_the_missing_table_and_plans_refuse_bad_input() {
    let dir = TempDir::new("plan-bad");
    let d = dir.0.to_str().unwrap();
    let o = canju(&["gen", "KNPK", "--no-deps", "--dir", d]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("KNPK needs the table of"), "{err}");
    // KK needs nothing
    let o = canju(&["gen", "KK", "--no-deps", "--dir", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // a Snakemake plan: one rule per table and `all`
    let o = canju(&["plan", "KNPK", "--format", "snakemake", "--dir", d]);
    let plan = text(&o);
    assert_eq!(plan.matches("\nrule ").count(), 5, "{plan}");
    assert!(plan.contains("shell: \"canju gen KNPK --no-deps --dir"));
    for (args, want) in [
        (
            vec!["plan", "KNPK", "--format", "ninja"],
            "--format 'ninja'",
        ),
        (vec!["plan", "KNPK", "--dir", "a dir"], "--dir 'a dir'"),
        (vec!["plan", "KNPK", "--bin", "canju; rm -rf /"], "--bin"),
        (vec!["plan", "KNNNK"], "KNNNK"),
    ] {
        let o = canju(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
