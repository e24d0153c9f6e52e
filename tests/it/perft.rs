//! The perft suite in tests/data/perft.epd: published node counts for several positions.
//! Counts up to 20 million nodes run in the normal test run; the rest with `--ignored`.

use canju::Position;
use canju::game::perft::perft;

const SHALLOW_LIMIT: u64 = 20_000_000;

struct Case {
    fen: String,
    depth: u32,
    nodes: u64,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/perft.epd");
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim().to_string();
        for p in parts {
            let p = p.trim();
            let (d, n) = p.split_once(' ').expect("';Dn count'");
            out.push(Case {
                fen: fen.clone(),
                depth: d.trim_start_matches('D').parse().unwrap(),
                nodes: n.trim().parse().unwrap(),
            });
        }
    }
    assert!(out.len() >= 20, "the suite has its cases");
    out
}

fn run(filter: impl Fn(&Case) -> bool) -> usize {
    let mut ran = 0;
    for case in cases().iter().filter(|c| filter(c)) {
        let mut pos: Position = case.fen.parse().unwrap();
        let got = perft(&mut pos, case.depth);
        assert_eq!(got, case.nodes, "perft({}) of {}", case.depth, case.fen);
        assert_eq!(
            pos.to_string(),
            case.fen,
            "perft leaves the position as it was"
        );
        ran += 1;
    }
    ran
}

#[test]
fn perft_shallow() {
    assert!(run(|c| c.nodes <= SHALLOW_LIMIT) > 10);
}

#[test]
#[ignore = "deep perft: minutes in debug, seconds in release (cargo test --release -- --ignored)"]
fn perft_deep() {
    assert!(run(|c| c.nodes > SHALLOW_LIMIT) > 0);
}
