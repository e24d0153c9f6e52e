//! Distances beyond a byte: the far list forced onto small tables (the test hook
//! `CANJU_WIDE_FROM`) must give every entry the value the narrow build gives it, verify,
//! resume after a stop to the same bytes, and refuse damage.

use crate::common::{TempDir, canju};
use canju::game::material::Material;
use canju::game::piece::Color;
use canju::tablebase::far::{FarList, key};
use canju::tablebase::{Rules, Table};
use std::process::{Command, Output};

/// The far list starts at this many plies in the forced builds.
const WIDE_FROM: &str = "9";

fn build(dir: &TempDir, material: &str, rules: &str, wide: bool, extra: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_canju"));
    c.args(["gen", material, "--rules", rules, "--dir", dir.arg()])
        .args(["--threads", "2"])
        .env_remove("CANJU_TB_DIR")
        .env_remove("CANJU_WIDE_FROM");
    if wide {
        c.env("CANJU_WIDE_FROM", WIDE_FROM);
    }
    for (k, v) in extra {
        c.env(k, v).args(["--checkpoint-minutes", "0"]);
    }
    c.output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn open(dir: &TempDir, material: &str, rules: Rules) -> Table {
    let m: Material = material.parse().unwrap();
    let path = dir.0.join(canju::tablebase::format::file_name(&m, rules));
    Table::open(&path, m).unwrap()
}

/// Every entry of every table of the family has the same value in both directories;
/// returns how many tables of `wide` are wide.
fn assert_same_values(narrow: &TempDir, wide: &TempDir, family: &str, rules: Rules) -> usize {
    let m: Material = family.parse().unwrap();
    let mut wide_tables = 0;
    for sub in m.build_order() {
        let name = sub.to_string();
        let (a, b) = (open(narrow, &name, rules), open(wide, &name, rules));
        assert!(!a.is_wide(), "{name} is wide without the hook");
        wide_tables += usize::from(b.is_wide());
        if b.is_wide() {
            assert_eq!(
                b.header().format_version,
                canju::tablebase::format::FORMAT_WIDE
            );
        }
        assert_eq!(a.header().sides, b.header().sides, "{name}: header counts");
        for turn in Color::ALL {
            for i in 0..a.header().entries {
                let (ca, cb) = (a.code(turn, i).unwrap(), b.code(turn, i).unwrap());
                assert_eq!(
                    a.value_of(turn, i, ca),
                    b.value_of(turn, i, cb),
                    "{name} entry {i}, {turn} to move"
                );
            }
        }
    }
    wide_tables
}

#[test]
fn the_far_list_forced_on_small_tables_gives_the_narrow_values_and_verifies() {
    for (family, rules, rule) in [
        ("KRKN", "none", Rules::None),
        ("KRKN", "asian", Rules::Asian),
    ] {
        let narrow = TempDir::new(&format!("narrow-{rules}"));
        let wide = TempDir::new(&format!("wide-{rules}"));
        let o = build(&narrow, family, rules, false, &[]);
        assert!(o.status.success(), "{}", err(&o));
        let o = build(&wide, family, rules, true, &[]);
        assert!(o.status.success(), "{}", err(&o));
        let n = assert_same_values(&narrow, &wide, family, rule);
        assert!(n >= 2, "{family} {rules}: {n} wide tables");
        let top = open(&wide, family, rule);
        assert!(top.far_list().len() > 1000, "{}", top.far_list().len());
        // the independent checker reads every far entry through the list
        let o = canju(&[
            "verify",
            family,
            "--with-deps",
            "--rules",
            rules,
            "--dir",
            wide.arg(),
        ]);
        assert!(o.status.success(), "{}", err(&o));
        // what a user sees: the longest win, probed, in both
        let fen = "3k5/9/9/9/9/9/9/4n4/9/R3K4 w";
        let probe = |d: &TempDir| {
            let o = canju(&["probe", "--fen", fen, "--rules", rules, "--dir", d.arg()]);
            assert!(o.status.success(), "{}", err(&o));
            String::from_utf8(o.stdout).unwrap()
        };
        assert_eq!(probe(&narrow), probe(&wide));
    }
}

#[test]
fn a_stopped_wide_build_resumes_to_the_same_bytes() {
    let reference = TempDir::new("wide-ref");
    let o = build(&reference, "KRKN", "none", true, &[]);
    assert!(o.status.success(), "{}", err(&o));
    let d = TempDir::new("wide-ckpt");
    let mut runs = 0;
    loop {
        runs += 1;
        assert!(runs < 100, "the build does not get anywhere");
        let o = build(
            &d,
            "KRKN",
            "none",
            true,
            &[("CANJU_CHECKPOINT_EXIT_AFTER", "3")],
        );
        if o.status.success() {
            break;
        }
        assert!(
            err(&o).contains("stopped after checkpoint 3"),
            "{}",
            err(&o)
        );
    }
    assert!(runs > 5, "{runs} runs");
    for sub in "KRKN".parse::<Material>().unwrap().build_order() {
        let name = canju::tablebase::format::file_name(&sub, Rules::None);
        let same = std::fs::read(reference.0.join(&name)).unwrap()
            == std::fs::read(d.0.join(&name)).unwrap();
        assert!(same, "{name} differs after the resumed build");
    }
}

/// `canju verify KNK` fails in one line that says `what`.
fn verify_fails_with(d: &TempDir, what: &str) {
    let o = canju(&["verify", "KNK", "--rules", "none", "--dir", d.arg()]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let e = err(&o);
    assert!(e.contains(what) && e.trim_end().lines().count() == 1, "{e}");
}

#[test]
fn a_damaged_or_inconsistent_far_list_is_named() {
    let d = TempDir::new("wide-bad");
    let o = build(&d, "KNK", "none", true, &[]);
    assert!(o.status.success(), "{}", err(&o));
    let path = d.0.join("KNK.ctb");
    let good = std::fs::read(&path).unwrap();
    let t = open(&d, "KNK", Rules::None);
    let list = t.far_list().clone();
    assert!(list.len() > 10);
    drop(t);

    // a flipped bit in the list, a cut trailer
    let mut bad = good.clone();
    let at = bad.len() - 20;
    bad[at] ^= 4;
    std::fs::write(&path, &bad).unwrap();
    verify_fails_with(&d, "far list checksum mismatch");
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    let o = canju(&[
        "probe",
        "--fen",
        "3k5/9/9/9/9/9/9/9/9/N3K4 w",
        "--rules",
        "none",
        "--dir",
        d.arg(),
    ]);
    assert!(!o.status.success());
    assert!(err(&o).contains("KNK.ctb"), "{}", err(&o));

    // a list that lacks an entry, and one with an entry whose code is not far, with every
    // checksum right: only the verifier can tell
    let write = |list: &FarList| {
        std::fs::write(&path, &good).unwrap();
        let t = open(&d, "KNK", Rules::None);
        t.load_all().unwrap();
        let sides = [
            t.checked_side(Color::Red).unwrap().to_vec(),
            t.checked_side(Color::Black).unwrap().to_vec(),
        ];
        let header = t.header().clone();
        drop(t);
        canju::tablebase::format::write_with_far(&path, &header, &sides[0], &sides[1], list)
            .unwrap();
    };
    let entries: Vec<(u64, u32)> = list.iter().collect();
    write(&FarList::from_entries(entries[1..].to_vec()));
    verify_fails_with(&d, "far code the far list lacks");
    // an entry of the list given to an entry that holds a plain code
    let mut moved = entries.clone();
    let t = open(&d, "KNK", Rules::None);
    let spare = (0..t.header().entries)
        .find(|&i| {
            let c = t.code(Color::Red, i).unwrap();
            c != canju::tablebase::value::code::ILLEGAL
                && !canju::tablebase::value::code::is_far(c)
                && list.get(Color::Red, i).is_none()
        })
        .unwrap();
    drop(t);
    moved.push((key(Color::Red, spare), entries[0].1));
    write(&FarList::from_entries(moved));
    verify_fails_with(&d, "the far list gives it");
}
