//! The main job, and the theory section (`docs/theory.md`) with its pictures under `docs/theory/`:
//! this test builds the tables by running the main job (README's first command) in a
//! temporary directory, checks what it prints, then runs every command the theory section
//! shows and compares the output with `docs/theory.md` and the committed SVG files, so that they
//! cannot drift from what canju prints. To rewrite them after a change:
//!
//! ```sh
//! CANJU_UPDATE_DOCS=1 cargo test --release --test it docs::
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TempDir;

/// The sayings the README answers: the saying, the piece of its heatmap, a file name.
const SHOWN: &[(&str, &str, &str)] = &[
    ("马卒难破士相全", "兵", "ma-zu"),
    ("单车难胜士象全", "车", "dan-che"),
    ("缺士怕马", "马", "que-shi"),
    ("单马不破双象", "马", "dan-ma"),
];

const BEGIN: &str = "<!-- theory:begin (written by tests/it/docs.rs: CANJU_UPDATE_DOCS=1 cargo test --release --test it docs::) -->";
const END: &str = "<!-- theory:end -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn canju(args: &[&str], tables: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_canju"))
        .args(args)
        .env("CANJU_TB_DIR", tables)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "canju {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Compares a generated file with the committed one, or rewrites it.
fn check(path: &Path, generated: &str, update: bool, stale: &mut Vec<String>) {
    if update {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, generated).unwrap();
    } else if std::fs::read_to_string(path).ok().as_deref() != Some(generated) {
        stale.push(path.display().to_string());
    }
}

#[test]
fn main_job_and_the_readme_theory_section() {
    let update = std::env::var_os("CANJU_UPDATE_DOCS").is_some();
    let dir = TempDir::new("docs");
    let tables = dir.0.join("tables");
    // the main job: builds 马兵对士象全 and measures its saying
    let out = canju(&[], &tables);
    assert!(
        out.contains("KNPKAABB (马兵对士象全), rules asian: 36 tables, 36 built"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("马卒难破士相全（马兵对士象全）：守方先走且士象归位时")),
        "{out}"
    );
    assert!(out.contains("longest win, red to move: 65 moves"), "{out}");
    assert!(out.contains("Next: `canju theory 马卒难破士相全`"), "{out}");
    assert!(out.contains("`canju puzzle play`"), "{out}");
    // short: the report is a command away, not printed whole
    assert!(
        out.lines().count() < 30,
        "{} lines: {out}",
        out.lines().count()
    );
    assert!(!out.contains("definitions:"), "{out}");
    // the theory section
    let scratch = dir.0.join("svg");
    std::fs::create_dir_all(&scratch).unwrap();
    let mut section = String::new();
    let mut stale = Vec::new();
    for &(saying, piece, slug) in SHOWN {
        let markdown = canju(&["theory", saying, "--markdown"], &tables);
        let heat_file = scratch.join(format!("{slug}-heatmap.svg"));
        canju(
            &[
                "theory",
                saying,
                "--heatmap",
                piece,
                "-o",
                heat_file.to_str().unwrap(),
            ],
            &tables,
        );
        // the example: the first counter-example with its best move, else the longest win
        let json: serde_json::Value = serde_json::from_str(&canju(
            &["theory", saying, "--json", "--limit", "1"],
            &tables,
        ))
        .unwrap();
        let (fen, arrow, what) = match json["counterexamples"].get(0) {
            Some(c) => (
                c["fen"].as_str().unwrap().to_string(),
                c["best_move"].as_str().map(str::to_string),
                format!(
                    "the first counter-example ({})",
                    c["value"].as_str().unwrap()
                ),
            ),
            None => (
                json["longest"]["fen"].as_str().unwrap().to_string(),
                json["longest"]["line"][0].as_str().map(str::to_string),
                format!(
                    "the longest win ({} plies)",
                    json["longest"]["plies"].as_u64().unwrap()
                ),
            ),
        };
        let example_file = scratch.join(format!("{slug}.svg"));
        let mut diagram_args = vec!["diagram", "--fen", &fen];
        if let Some(a) = &arrow {
            diagram_args.extend(["--arrow", a]);
        }
        let example_path = example_file.to_str().unwrap().to_string();
        diagram_args.extend(["-o", &example_path]);
        canju(&diagram_args, &tables);
        for (file, name) in [
            (&heat_file, format!("{slug}-heatmap.svg")),
            (&example_file, format!("{slug}.svg")),
        ] {
            let svg = std::fs::read_to_string(file).unwrap();
            check(
                &root().join("docs/theory").join(&name),
                &svg,
                update,
                &mut stale,
            );
        }
        let arrow_arg = arrow.map(|a| format!(" --arrow {a}")).unwrap_or_default();
        section.push_str(&format!(
            "## {saying}\n\n`canju theory {saying}`\n\n{markdown}\
             | heatmap | example |\n|---|---|\n\
             | ![{saying}: heatmap](theory/{slug}-heatmap.svg) | ![{saying}: example](theory/{slug}.svg) |\n\n\
             Heatmap: `canju theory {saying} --heatmap {piece} -o docs/theory/{slug}-heatmap.svg`. \
             Example, {what}: `canju diagram --fen '{fen}'{arrow_arg} -o docs/theory/{slug}.svg`.\n\n"
        ));
    }
    let readme_path = root().join("docs/theory.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let (Some(b), Some(e)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("docs/theory.md has no theory section markers ({BEGIN} … {END})");
    };
    let rewritten = format!("{}{BEGIN}\n\n{section}{}", &readme[..b], &readme[e..]);
    check(&readme_path, &rewritten, update, &mut stale);
    assert!(
        stale.is_empty(),
        "out of date: {}; run CANJU_UPDATE_DOCS=1 cargo test --release --test it docs::",
        stale.join(", ")
    );
}
