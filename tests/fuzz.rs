//! The fuzz harness, run in CI for a bounded number of cases: arbitrary text as material
//! names and as moves, and arbitrary damage to table files. Nothing may panic; every
//! damaged table must be refused. (FEN text is fuzzed in `properties.rs`.)

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use canju::material::Material;
use canju::notation::parse_move;
use canju::tablebase::Table;
use canju::{Kind, Position};
use common::{TempDir, build_into};
use proptest::prelude::*;

/// Text that looks like material names: letters, Chinese piece names, counts, separators,
/// and characters whose case changes their byte length.
fn material_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("K"),
            Just("k"),
            Just("R"),
            Just("N"),
            Just("H"),
            Just("C"),
            Just("P"),
            Just("A"),
            Just("B"),
            Just("E"),
            Just("X"),
            Just("车"),
            Just("马"),
            Just("炮"),
            Just("兵"),
            Just("卒"),
            Just("士"),
            Just("象"),
            Just("相"),
            Just("对"),
            Just("vs"),
            Just("VS"),
            Just("双"),
            Just("三"),
            Just("五"),
            Just("单缺士"),
            Just("士象全"),
            Just("光将"),
            Just("高"),
            Just(" "),
            Just("Ⱥ"),
            Just("ẞ"),
            Just("İ"),
            Just("ﬀ"),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

fn check_material(text: &str) {
    if let Ok(m) = text.parse::<Material>() {
        for color in canju::Color::ALL {
            for k in Kind::ALL.iter().skip(1) {
                assert!(m.side(color).count(*k) <= k.max_count(), "{text}: {m}");
            }
        }
        // what canju writes, it reads back
        let again: Material = m.to_string().parse().unwrap();
        assert_eq!(again, m, "{text}");
        let again: Material = m.chinese().parse().unwrap();
        assert_eq!(again.canonical(), m.canonical(), "{text}");
    }
}

/// Text that looks like moves in the three notations, and noise.
fn move_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("炮"),
            Just("马"),
            Just("车"),
            Just("兵"),
            Just("前"),
            Just("后"),
            Just("中"),
            Just("二"),
            Just("五"),
            Just("九"),
            Just("平"),
            Just("进"),
            Just("退"),
            Just("８"),
            Just("C"),
            Just("H"),
            Just("R"),
            Just("P"),
            Just("+"),
            Just("-"),
            Just("."),
            Just("="),
            Just("2"),
            Just("5"),
            Just("9"),
            Just("h"),
            Just("e"),
            Just("a"),
            Just("0"),
            Just(" "),
            Just("Ⱥ"),
            Just("\u{0}"),
        ],
        0..10,
    )
    .prop_map(|parts| parts.concat())
}

fn positions() -> &'static Vec<Position> {
    static P: OnceLock<Vec<Position>> = OnceLock::new();
    P.get_or_init(|| common::sample_positions(7, 20))
}

/// A sound table file with several blocks a side, built once.
fn sound_table() -> &'static (TempDir, Vec<u8>) {
    static T: OnceLock<(TempDir, Vec<u8>)> = OnceLock::new();
    T.get_or_init(|| {
        let d = TempDir::new("fuzz-tables");
        build_into(&d, "KNPK");
        let bytes = std::fs::read(d.0.join("KNPK.ctb")).unwrap();
        (d, bytes)
    })
}

/// Writes damaged bytes under a file name of their own and requires refusal.
fn check_refused(bytes: &[u8], case: u64) {
    let (dir, good) = sound_table();
    if bytes == good.as_slice() {
        return;
    }
    let sub: PathBuf = dir.0.join(format!("case{case}"));
    std::fs::create_dir_all(&sub).unwrap();
    let path = sub.join("KNPK.ctb");
    std::fs::write(&path, bytes).unwrap();
    let result = Table::open(&path, "KNPK".parse().unwrap()).and_then(|t| t.check_all());
    let _ = std::fs::remove_dir_all(&sub);
    match result {
        Ok(()) => panic!("a damaged table passed"),
        Err(e) => assert!(e.to_string().contains("KNPK.ctb"), "{e}"),
    }
}

#[derive(Debug, Clone)]
enum Damage {
    Flip { at: usize, mask: u8 },
    Overwrite { at: usize, bytes: Vec<u8> },
    Truncate { len: usize },
    Append { bytes: Vec<u8> },
    Swap { a: usize, b: usize, len: usize },
}

fn damage() -> impl Strategy<Value = Damage> {
    let n = sound_table().1.len();
    prop_oneof![
        (0..n, 1u8..=255).prop_map(|(at, mask)| Damage::Flip { at, mask }),
        (0..n, proptest::collection::vec(any::<u8>(), 1..200))
            .prop_map(|(at, bytes)| Damage::Overwrite { at, bytes }),
        (0..n).prop_map(|len| Damage::Truncate { len }),
        proptest::collection::vec(any::<u8>(), 1..100).prop_map(|bytes| Damage::Append { bytes }),
        (0..n, 0..n, 1usize..300).prop_map(|(a, b, len)| Damage::Swap { a, b, len }),
    ]
}

fn apply(d: &Damage) -> Vec<u8> {
    let mut b = sound_table().1.clone();
    let n = b.len();
    match d {
        Damage::Flip { at, mask } => b[*at] ^= mask,
        Damage::Overwrite { at, bytes } => {
            for (i, x) in bytes.iter().enumerate() {
                if at + i < n {
                    b[at + i] = *x;
                }
            }
        }
        Damage::Truncate { len } => b.truncate(*len),
        Damage::Append { bytes } => b.extend_from_slice(bytes),
        Damage::Swap { a, b: c, len } => {
            let len = (*len).min(n - a).min(n - c);
            let first = b[*a..a + len].to_vec();
            let second = b[*c..c + len].to_vec();
            b[*a..a + len].copy_from_slice(&second);
            b[*c..c + len].copy_from_slice(&first);
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn material_names_never_panic(text in ".*") {
        check_material(&text);
    }

    #[test]
    fn material_like_names_never_panic(text in material_like()) {
        check_material(&text);
    }

    #[test]
    fn move_text_never_panics(text in move_like(), which in 0usize..1000) {
        let ps = positions();
        let pos = &ps[which % ps.len()];
        if let Ok(m) = parse_move(pos, &text) {
            prop_assert!(pos.legal_moves().contains(&m), "{text} on {pos}");
        }
    }

    #[test]
    fn any_move_text_never_panics(text in ".{0,12}", which in 0usize..1000) {
        let ps = positions();
        let pos = &ps[which % ps.len()];
        if let Ok(m) = parse_move(pos, &text) {
            prop_assert!(pos.legal_moves().contains(&m), "{text} on {pos}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn every_damaged_table_is_refused(d in damage(), case in any::<u64>()) {
        check_refused(&apply(&d), case);
    }

    #[test]
    fn random_bytes_are_not_tables(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        magic in any::<bool>(),
        case in any::<u64>(),
    ) {
        let mut b = bytes;
        if magic {
            let mut m = canju::tablebase::format::MAGIC.to_vec();
            m.extend_from_slice(&b);
            b = m;
        }
        check_refused(&b, case);
    }
}
