//! `canju plan` and `canju gen --no-deps`: the Makefile of a small family, run by make with
//! two jobs at once, and its Snakefile, checked and run by Snakemake itself, give tables
//! byte-identical to `canju gen`. `.ci/run` installs make and Snakemake when they are
//! missing; without them these tests are skipped and say so, and under
//! `CANJU_REQUIRE_TOOLS` (which `.ci/run` sets) they fail (`common::tool_missing`;
//! `CANJU_SKIP_MAKE`, `CANJU_SKIP_SNAKEMAKE` skip them even there). `CANJU_SNAKEMAKE` names
//! the snakemake program when it is not on the path. The same Snakefile also runs on a
//! single-node Slurm cluster that `.ci/run` starts (`CANJU_SKIP_SLURM` gives the reason when
//! it could not).

use std::process::{Command, Output};

use crate::common;
use crate::common::{TempDir, canju};

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `canju plan KNPKA` in `format` into `planned`, each job one thread, the jobs run by the
/// binary under test.
fn plan_of_knpka(format: &str, planned: &std::path::Path) -> String {
    let o = canju(&[
        "plan",
        "KNPKA",
        "--format",
        format,
        "--dir",
        planned.to_str().unwrap(),
        "--bin",
        env!("CARGO_BIN_EXE_canju"),
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    text(&o)
}

/// Builds KNPKA with `canju gen` into `direct` and checks that `planned` holds the same
/// files, byte for byte; their names.
fn same_as_gen(planned: &std::path::Path, direct: &std::path::Path) -> Vec<String> {
    let o = canju(&[
        "gen",
        "KNPKA",
        "--dir",
        direct.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert!(o.status.success());
    let names = files(direct);
    assert_eq!(names, files(planned));
    for name in &names {
        let a = std::fs::read(planned.join(name)).unwrap();
        let b = std::fs::read(direct.join(name)).unwrap();
        assert!(a == b, "{name} differs");
    }
    names
}

#[test]
fn a_make_plan_builds_the_same_bytes_as_gen() {
    let dir = TempDir::new("plan");
    let planned = dir.0.join("planned");
    let direct = dir.0.join("direct");
    let plan = plan_of_knpka("make", &planned);
    let makefile = dir.0.join("plan.mk");
    std::fs::write(&makefile, &plan).unwrap();
    // one rule per table of the family, each a `gen --no-deps`
    let family = text(&canju(&["deps", "KNPKA"]));
    let tables: Vec<&str> = family
        .split_whitespace()
        .filter(|w| w.starts_with('K'))
        .collect();
    assert!(tables.len() >= 8, "{family}");
    for t in &tables {
        assert!(plan.contains(&format!("gen {t} --no-deps")), "{t}: {plan}");
    }
    let Ok(make) = Command::new("make").arg("--version").output() else {
        return common::tool_missing(
            "make is not installed",
            "CANJU_SKIP_MAKE",
            "install it (.ci/run does)",
        );
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
    assert_eq!(same_as_gen(&planned, &direct).len(), tables.len());
    // make again: nothing left to do
    let again = Command::new("make")
        .args(["-f", makefile.to_str().unwrap(), "-q"])
        .status()
        .unwrap();
    assert!(again.success());
}

/// The tables of `dir`, by name, sorted.
fn files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ctb"))
        .collect();
    names.sort();
    names
}

#[test]
fn a_snakemake_plan_asks_for_resources_and_builds_the_same_bytes_as_gen() {
    let dir = TempDir::new("snake");
    let planned = dir.0.join("planned");
    let direct = dir.0.join("direct");
    let plan = plan_of_knpka("snakemake", &planned);
    // every rule but `all` asks for its threads, memory and time, and passes the threads on
    let rules = plan.matches("\nrule table_").count();
    assert!(rules >= 8, "{plan}");
    assert_eq!(plan.matches("    threads: 1\n").count(), rules, "{plan}");
    assert_eq!(
        plan.matches("    resources: mem_mb=").count(),
        rules,
        "{plan}"
    );
    assert_eq!(plan.matches("--threads {threads}").count(), rules, "{plan}");
    let snakefile = dir.0.join("Snakefile");
    std::fs::write(&snakefile, &plan).unwrap();
    let program = std::env::var("CANJU_SNAKEMAKE").unwrap_or_else(|_| "snakemake".into());
    let Ok(version) = Command::new(&program).arg("--version").output() else {
        return common::tool_missing(
            "snakemake is not installed",
            "CANJU_SKIP_SNAKEMAKE",
            "install it (.ci/run does, with pip) or name it in CANJU_SNAKEMAKE",
        );
    };
    assert!(version.status.success());
    let snake = |extra: &[&str]| {
        let o = Command::new(&program)
            .args(["-s", snakefile.to_str().unwrap(), "--cores", "2", "--quiet"])
            .args(extra)
            .current_dir(&dir.0)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    // parsed and dry-run by Snakemake itself: every table a job, nothing built
    let dry = snake(&["--dry-run"]);
    assert!(!planned.exists() || files(&planned).is_empty(), "{dry}");
    snake(&[]);
    assert_eq!(same_as_gen(&planned, &direct).len(), rules);
}

/// On a Slurm cluster (`.ci/run` starts a single-node one: slurmctld, slurmd and munge on
/// this machine): the Snakefile run through `snakemake --executor slurm`, each table a job
/// submitted to Slurm with the threads, memory and minutes the plan asks for, gives the same
/// bytes as `canju gen`. Where no cluster could be set up, `CANJU_SKIP_SLURM` says why and
/// the test prints that it is skipped.
#[test]
fn a_snakemake_plan_runs_on_a_single_node_slurm_cluster() {
    if std::env::var_os("CANJU_SKIP_SLURM").is_some() {
        return common::tool_missing("the Slurm cluster test", "CANJU_SKIP_SLURM", "");
    }
    let sinfo = Command::new("sinfo").args(["-h", "-o", "%P %t"]).output();
    let partition = match &sinfo {
        Ok(o) if o.status.success() && !o.stdout.is_empty() => text(o)
            .split_whitespace()
            .next()
            .unwrap()
            .trim_end_matches('*')
            .to_string(),
        _ => {
            return common::tool_missing(
                &format!("no Slurm cluster answers (sinfo: {sinfo:?})"),
                "CANJU_SKIP_SLURM",
                ".ci/run starts a single-node one",
            );
        }
    };
    let dir = TempDir::new("slurm");
    let planned = dir.0.join("planned");
    let direct = dir.0.join("direct");
    let plan = plan_of_knpka("snakemake", &planned);
    let snakefile = dir.0.join("Snakefile");
    std::fs::write(&snakefile, &plan).unwrap();
    let program = std::env::var("CANJU_SNAKEMAKE").unwrap_or_else(|_| "snakemake".into());
    if Command::new(&program).arg("--version").output().is_err() {
        return common::tool_missing(
            "snakemake is not installed",
            "CANJU_SKIP_SNAKEMAKE",
            "install it and its Slurm executor plugin (.ci/run does, with pip)",
        );
    }
    let o = Command::new(&program)
        .args(["-s", snakefile.to_str().unwrap(), "--executor", "slurm"])
        .args(["--jobs", "2", "--latency-wait", "20"])
        // (the cluster keeps no accounting database: squeue tells the jobs' states)
        .args(["--slurm-status-command", "squeue"])
        .args(["--slurm-init-seconds-before-status-checks", "1"])
        .args([
            "--default-resources",
            &format!("slurm_partition={partition}"),
        ])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{out}");
    let rules = plan.matches("\nrule table_").count();
    // every table a Slurm job, with the memory and minutes the plan asked for
    assert_eq!(
        out.matches("has been submitted with SLURM jobid").count(),
        rules,
        "{out}"
    );
    assert!(out.contains("mem_mb=") && out.contains("runtime="), "{out}");
    assert_eq!(same_as_gen(&planned, &direct).len(), rules);
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
