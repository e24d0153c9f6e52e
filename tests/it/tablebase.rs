//! The generator against independent means: a plain forward fixpoint on small endgames,
//! facts from the books, the verifier, thread-count determinism, and index bijections.

use crate::common;

use crate::common::{TempDir, build_into};

use std::collections::HashMap;

use canju::game::material::Material;
use canju::tablebase::build::build;
use canju::tablebase::generate::Silent;
use canju::tablebase::index::{Layout, MAX_PIECES};
use canju::tablebase::{Tablebase, Value, verify};
use canju::{Color, Piece, Position, Square};
use proptest::prelude::*;

/// Every legal position of a material.
fn all_positions(material: &Material) -> Vec<Position> {
    let mut out = Vec::new();
    common::for_each_position(material, &mut |p| out.push(p));
    out
}

/// Values by repeating one-ply minimax over every position of a material and all it falls
/// into, until nothing changes. Shares nothing with the generator but the rules.
fn forward_fixpoint(material: &Material) -> HashMap<u64, (Position, Option<u32>)> {
    let mut positions = Vec::new();
    for m in material.build_order() {
        positions.extend(all_positions(&m));
        // the colour-flipped material too, since captures may leave black stronger
        positions.extend(all_positions(&m.flipped()));
    }
    let mut index: HashMap<u64, usize> = HashMap::new();
    for (i, p) in positions.iter().enumerate() {
        index.entry(p.key()).or_insert(i);
    }
    let children: Vec<Vec<usize>> = positions
        .iter()
        .map(|p| {
            p.legal_moves()
                .iter()
                .map(|&m| {
                    let mut c = p.clone();
                    c.play_unchecked(m);
                    index[&c.key()]
                })
                .collect()
        })
        .collect();
    let mut values: Vec<Option<u32>> = vec![None; positions.len()];
    loop {
        let mut changed = false;
        for i in 0..positions.len() {
            let kids = &children[i];
            let new = if kids.is_empty() {
                Some(0)
            } else {
                let best_loss = kids
                    .iter()
                    .filter_map(|&c| values[c].filter(|n| n % 2 == 0))
                    .min();
                if let Some(l) = best_loss {
                    Some(l + 1)
                } else if kids.iter().all(|&c| values[c].is_some_and(|n| n % 2 == 1)) {
                    kids.iter()
                        .map(|&c| values[c].unwrap())
                        .max()
                        .map(|w| w + 1)
                } else {
                    None
                }
            };
            if new != values[i] {
                values[i] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    index
        .into_iter()
        .map(|(k, i)| (k, (positions[i].clone(), values[i])))
        .collect()
}

fn as_value(plies: Option<u32>) -> Value {
    plies.map_or(Value::Draw, Value::from_plies)
}

#[test]
fn solver_matches_a_forward_fixpoint_on_small_endgames() {
    for name in ["KRK", "KNK", "KPK", "KCAK", "KNKA", "KPKA"] {
        let dir = TempDir::new(&format!("fixpoint-{name}"));
        let tb = build_into(&dir, name);
        let truth = forward_fixpoint(&name.parse().unwrap());
        let mut compared = 0;
        for (pos, plies) in truth.values() {
            let got = tb.probe(pos).unwrap_or_else(|e| panic!("{pos}: {e}"));
            assert_eq!(got, as_value(*plies), "{name}: {pos}");
            compared += 1;
        }
        assert!(compared > 1000, "{name}: {compared}");
    }
}

#[test]
fn facts_from_the_books() {
    let dir = TempDir::new("facts");
    let tb = build_into(&dir, "KCAK");
    build(
        "KCK".parse::<Material>().unwrap(),
        &tb,
        &|_| Box::new(Silent),
        &mut |_| {},
    )
    .unwrap();
    // a lone cannon never wins
    let kck = tb.table("KCK".parse().unwrap()).unwrap();
    for c in Color::ALL {
        assert_eq!(kck.header().sides[c.index()].win, 0);
        assert!(kck.header().sides[c.index()].legal > 0);
    }
    // 炮仕 beats the bare general from almost every position
    let kcak = tb.table("KCAK".parse().unwrap()).unwrap();
    let red = kcak.header().sides[0];
    assert!(red.win as f64 > 0.99 * red.legal as f64, "{red:?}");
    // a soldier on the last rank never wins (KPK)
    let dir2 = TempDir::new("facts-kpk");
    let tb2 = build_into(&dir2, "KPK");
    let kpk: Material = "KPK".parse().unwrap();
    let mut on_last = 0;
    for pos in all_positions(&kpk) {
        let soldier = pos
            .pieces()
            .find(|(_, p)| p.kind == canju::Kind::Soldier)
            .unwrap()
            .0;
        if soldier.rank().index() == 9 {
            on_last += 1;
            assert!(!matches!(tb2.probe(&pos).unwrap(), Value::Win(_)), "{pos}");
        }
    }
    assert!(on_last > 100);
}

#[test]
fn verifier_accepts_built_tables_and_rejects_a_tampered_one() {
    let dir = TempDir::new("verify");
    let tb = build_into(&dir, "KNKA");
    for name in ["KNKA", "KNK", "KAK"] {
        let t = tb.table(name.parse().unwrap()).unwrap();
        let n = verify::verify(&t, &tb, &|_, _| {}).unwrap();
        assert!(n > 0);
    }
    // Change one decided entry and write the file anew through the format (all checksums
    // sound): only the verifier's own check can find it, and it must name the position.
    let t = tb.table("KNKA".parse().unwrap()).unwrap();
    let red = t.checked_side(canju::Color::Red).unwrap().to_vec();
    let black = t.checked_side(canju::Color::Black).unwrap().to_vec();
    let header = t.header().clone();
    drop(t);
    let layout = tb.table("KNKA".parse().unwrap()).unwrap().layout().clone();
    let tampered = |red: &[u8]| {
        canju::tablebase::format::write(&dir.0.join("KNKA.ctb"), &header, red, &black).unwrap();
        let fresh = Tablebase::new(&dir.0);
        let t = fresh.table("KNKA".parse().unwrap()).unwrap();
        let e = verify::verify(&t, &fresh, &|_, _| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("KNKA: entry"), "{e}");
        assert!(e.contains(" w - - 0 1") || e.contains(" b - - 0 1"), "{e}");
    };
    let i = red.iter().position(|&c| c == 5).unwrap(); // a win in 3
    let mut wrong = red.clone();
    wrong[i] = 7; // now claims a win in 5
    tampered(&wrong);
    // The verifier reads a quiet move's legality from the entry the move reaches (see
    // verify::check_fast), so wrong illegal marks must be found all the same: a legal
    // position marked illegal, and an illegal one (black in check with red to move, its
    // pieces on distinct points) given a value.
    let mut wrong = red.clone();
    wrong[i] = 1;
    tampered(&wrong);
    let illegal = (0..red.len())
        .find(|&i| red[i] == 1 && layout.position(i as u64, canju::Color::Red).is_some())
        .unwrap();
    for value in [0u8, 5] {
        let mut wrong = red.clone();
        wrong[illegal] = value; // a draw, a win in 3
        tampered(&wrong);
    }
}

/// A board with both generals on the centre file is stored twice, as it is and mirrored;
/// the verifier checks the higher entry against the lower one only. So a change to the
/// higher one alone must be found, as a disagreement of the two when no lower entry finds
/// it first (the lowest failing entry is reported). A drawn board made a win in 1 is worse
/// for every predecessor's mover, so a predecessor with another drawing move still
/// agrees: among the first such boards of a drawish table, one must be reported so.
#[test]
fn verifier_checks_a_board_stored_twice_against_its_mirror_image() {
    let dir = TempDir::new("verify-twins");
    let tb = build_into(&dir, "KNKAB");
    let material: Material = "KNKAB".parse().unwrap();
    let t = tb.table(material).unwrap();
    let red = t.checked_side(canju::Color::Red).unwrap().to_vec();
    let black = t.checked_side(canju::Color::Black).unwrap().to_vec();
    let header = t.header().clone();
    let layout = t.layout().clone();
    drop(t);
    let n = layout.pieces().len();
    let bk = layout.black_general_slot();
    let twins = (0..red.len()).filter(|&i| {
        let mut sq = [Square::new(0).unwrap(); MAX_PIECES];
        if red[i] != 0 || layout.squares(i as u64, &mut sq).is_none() {
            return false;
        }
        let mut mirrored = sq;
        for s in &mut mirrored[..n] {
            *s = s.mirror();
        }
        canju::tablebase::index::pair_is_symmetric(sq[0], sq[bk])
            && layout.index(&mirrored[..n]) < i as u64
    });
    let reports: Vec<String> = twins
        .take(20)
        .map(|i| {
            let mut wrong = red.clone();
            wrong[i] = 3; // a win in 1
            canju::tablebase::format::write(&dir.0.join("KNKAB.ctb"), &header, &wrong, &black)
                .unwrap();
            let fresh = Tablebase::new(&dir.0);
            let t = fresh.table(material).unwrap();
            verify::verify(&t, &fresh, &|_, _| {})
                .unwrap_err()
                .to_string()
        })
        .collect();
    assert_eq!(reports.len(), 20);
    assert!(
        reports
            .iter()
            .any(|e| e.contains("its mirror image, entry")),
        "{reports:#?}"
    );
}

#[test]
fn one_thread_and_two_threads_write_the_same_bytes() {
    let mut outputs = Vec::new();
    for threads in [1, 2] {
        let dir = TempDir::new(&format!("threads{threads}"));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| build_into(&dir, "KNPKA"));
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        outputs.push(files);
    }
    // KNPKA and the 7 tables it falls into
    assert_eq!(outputs[0].len(), 8);
    assert!(outputs[0] == outputs[1], "1 and 2 threads differ");
}

#[test]
fn knpkaabb_is_mostly_a_draw() {
    // 马卒难破士相全: with red (马兵) to move, most legal positions are draws.
    let dir = TempDir::new("knpkaabb");
    let tb = build_into(&dir, "马兵对士象全");
    let t = tb.table("KNPKAABB".parse().unwrap()).unwrap();
    let red = t.header().sides[0];
    assert!(red.draw as f64 > 0.6 * red.legal as f64, "{red:?}");
    assert!(red.win > 0);
    // black (士象全) can never win
    assert_eq!(t.header().sides[1].win, 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// index → placement → index is the identity wherever the placement is possible.
    #[test]
    fn index_round_trips(
        name in prop::sample::select(vec!["KNPKAABB", "KRPKRAABB", "KPPPPKAA", "KPPPPPKB", "KCCKNN", "KRRKRR"]),
        seed in any::<u64>(),
    ) {
        let m: Material = name.parse().unwrap();
        let layout = Layout::new(m.canonical()).unwrap();
        let index = seed % layout.size();
        let mut sq = [Square::new(0).unwrap(); MAX_PIECES];
        if layout.squares(index, &mut sq).is_some() {
            prop_assert_eq!(layout.index(&sq[..layout.pieces().len()]), index);
        }
    }

    /// A random legal position's placement has an index that decodes to it (or to its
    /// mirror image when stored mirrored).
    #[test]
    fn positions_find_their_entry(seed in any::<u64>()) {
        let mut rng = common::Rng::new(seed);
        let pos = common::random_position(&mut rng, 9);
        let Ok(pl) = canju::tablebase::probe::placement(&pos) else { return Ok(()) };
        if let Some(layout) = Layout::new(pl.material) {
            let n = layout.pieces().len();
            let i = layout.index(&pl.squares[..n]);
            let mut back = [Square::new(0).unwrap(); MAX_PIECES];
            prop_assert!(layout.squares(i, &mut back).is_some());
            let set = |sq: &[Square]| {
                let mut v: Vec<(Piece, Square)> = layout.pieces().iter().copied().zip(sq.iter().copied()).collect();
                v.sort();
                v
            };
            let mirrored: Vec<Square> = pl.squares[..n].iter().map(|s| s.mirror()).collect();
            let decoded = set(&back[..n]);
            prop_assert!(decoded == set(&pl.squares[..n]) || decoded == set(&mirrored), "{}", pos);
        }
    }
}
