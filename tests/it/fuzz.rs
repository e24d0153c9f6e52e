//! The fuzz harness, run in CI for a bounded number of cases: arbitrary text as material
//! names, as moves and as import files (PGN, DhtmlXQ), arbitrary damage to table files,
//! and arbitrary query strings sent to a running server. Nothing may panic; every damaged
//! table must be refused; every bad query gets a 4xx with a JSON body. (FEN text is fuzzed
//! in `properties.rs`.)

use crate::common;

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::common::{TempDir, build_into};
use canju::game::material::Material;
use canju::notation::parse_move;
use canju::tablebase::Table;
use canju::{Kind, Position};
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
        common::clean_at_exit(&d, None);
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

/// Text that looks like a PGN or DhtmlXQ file: tags, FENs, moves in three notations,
/// DhtmlXQ blocks of digits, byte-order marks, comments and results, in any order.
fn import_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("[FEN \"3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1\"]\n".to_string()),
            Just(
                "[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\"]\n"
                    .to_string()
            ),
            Just("[Result \"1-0\"]\n".to_string()),
            Just("[Result \"1/2-1/2\"]\n".to_string()),
            Just("[Event \"x\"]\n".to_string()),
            Just("\u{feff}".to_string()),
            Just("\n".to_string()),
            Just("1. ".to_string()),
            Just("帅五进一 ".to_string()),
            Just("h2e2 ".to_string()),
            Just("C2.5 ".to_string()),
            Just("{a comment} ".to_string()),
            Just("1-0 ".to_string()),
            Just("[DhtmlXQ]".to_string()),
            Just("[/DhtmlXQ]".to_string()),
            Just("[DhtmlXQ_binit]".to_string()),
            Just("[/DhtmlXQ_binit]".to_string()),
            Just("[DhtmlXQ_movelist]".to_string()),
            Just("[/DhtmlXQ_movelist]".to_string()),
            Just("[DhtmlXQ_firstside]1[/DhtmlXQ_firstside]".to_string()),
            "[0-9]{1,70}",
            ".{0,8}",
        ],
        0..30,
    )
    .prop_map(|parts| parts.concat())
}

/// Reads a file's text as `canju puzzle import` does: no panic, and every game it keeps
/// replays legally from its position.
fn check_import(text: &str) -> Result<(), TestCaseError> {
    let (games, rejected) = canju::puzzle::import::read(text);
    for g in &games {
        let mut pos = g.position.clone();
        for &m in &g.moves {
            prop_assert!(pos.legal_moves().contains(&m), "{m} on {pos}");
            pos.play_unchecked(m);
        }
    }
    for r in &rejected {
        prop_assert!(!r.reason.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn import_text_never_panics(text in ".*") {
        check_import(&text)?;
    }

    #[test]
    fn import_like_text_never_panics(text in import_like()) {
        check_import(&text)?;
    }
}

/// A server shared by the query-string cases.
fn server() -> &'static (TempDir, common::Server) {
    static S: OnceLock<(TempDir, common::Server)> = OnceLock::new();
    S.get_or_init(|| {
        let d = TempDir::new("fuzz-server");
        let s = common::Server::start(&d.0, &d.0.join("home"));
        common::clean_at_exit(&d, Some(&s));
        (d, s)
    })
}

/// Query strings: raw bytes percent-encoded or not, parameter names the API knows, and
/// values of every shape.
fn query_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("fen=".to_string()),
            Just("fen=3k5%2F9%2F9%2F9%2F9%2F9%2F9%2F9%2F4N4%2F4K4%20w".to_string()),
            Just("max_moves=".to_string()),
            Just("time=".to_string()),
            Just("checks_only=".to_string()),
            Just("rules=".to_string()),
            Just("play=".to_string()),
            Just("claim=".to_string()),
            Just("limit=".to_string()),
            Just("arrow=".to_string()),
            Just("mark=".to_string()),
            Just("&".to_string()),
            Just("=".to_string()),
            Just("%".to_string()),
            Just("%FF".to_string()),
            Just("%E9%A9%AC".to_string()),
            Just("%00".to_string()),
            "[0-9]{1,25}",
            "-?[0-9]\\.[0-9]e[0-9]{1,3}",
            "[a-z0-9/+._~-]{0,12}",
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(250))]

    #[test]
    fn api_query_strings_get_an_answer_never_a_crash(
        query in query_like(),
        endpoint in 0usize..6,
    ) {
        let path = [
            "/api/probe",
            "/api/solve",
            "/api/moves",
            "/api/board.svg",
            "/api/theory",
            "/api/theory/heatmap.svg",
        ][endpoint];
        // a proof asked for by the fuzzer is cut short: its own time limit comes first
        let target = if endpoint == 1 {
            format!("{path}?time=0.05&{query}")
        } else {
            format!("{path}?{query}")
        };
        let (status, _, body) = common::http(&server().1.addr, "GET", &target, "");
        prop_assert!((200..500).contains(&status) || status == 503, "{target}: {status} {body}");
        if status >= 400 {
            let j: serde_json::Value = serde_json::from_str(&body)
                .map_err(|e| TestCaseError::fail(format!("{target}: {e}: {body}")))?;
            prop_assert!(j["error"].is_string(), "{target}: {body}");
        }
    }
}
