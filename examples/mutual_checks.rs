//! Looks for forced mutual perpetual check (解将还将) in rule tables: drawn positions where
//! every move that holds the draw gives check, closed under play (from each such position
//! some holding check leads to another one with the other side to move, which must check
//! in turn). Such a cycle is the only place where the rule's "both sides check on every move:
//! a draw" clause decides a verdict.
//!
//! ```sh
//! canju gen KRAKRA --dir D
//! cargo run --release --example mutual_checks -- D KRAKRA
//! ```
//!
//! Arguments: the table directory (asian tables of the materials and what they fall into),
//! then one or more materials. Prints, per material, the drawn positions whose holding
//! moves all check, how many of them lie in a closed set of forced checks, and up to five
//! of those as FENs.

use std::collections::{HashMap, HashSet};

use canju::Color;
use canju::material::Material;
use canju::tablebase::index::Layout;
use canju::tablebase::probe::placement;
use canju::tablebase::{Rules, Tablebase, Value};
use rayon::prelude::*;

/// A position of the material's table: side to move and entry.
type Key = (Color, u64);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, materials)) = args.split_first().filter(|(_, m)| !m.is_empty()) else {
        eprintln!("usage: mutual_checks DIR MATERIAL...");
        std::process::exit(2);
    };
    let tb = Tablebase::with_rules(dir, Rules::Asian);
    for text in materials {
        let material: Material = match text.parse::<Material>() {
            Ok(m) => m.canonical(),
            Err(e) => {
                eprintln!("{text}: {e}");
                std::process::exit(2);
            }
        };
        let Some(layout) = Layout::new(material) else {
            eprintln!("{text}: too many pieces for a table");
            std::process::exit(2);
        };
        if let Err(e) = tb.table(material) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        let found = forced_checks(&tb, &layout, material);
        let mut graph: HashMap<Key, Vec<Key>> = HashMap::new();
        let mut fens = HashMap::new();
        for (key, next, fen) in found {
            graph.insert(key, next);
            fens.insert(key, fen);
        }
        let all = graph.len();
        // the greatest closed set: drop positions none of whose holding checks stays inside
        loop {
            let inside: HashSet<Key> = graph.keys().copied().collect();
            let before = graph.len();
            graph.retain(|_, next| next.iter().any(|k| inside.contains(k)));
            if graph.len() == before {
                break;
            }
        }
        println!(
            "{material}: {all} drawn positions whose holding moves all check; {} in a closed set of forced checks",
            graph.len()
        );
        for key in graph.keys().take(5) {
            println!("  {}", fens[key]);
        }
    }
}

/// The drawn positions whose holding moves all give check, each with the positions of the
/// same material those checks lead to and its FEN.
fn forced_checks(
    tb: &Tablebase,
    layout: &Layout,
    material: Material,
) -> Vec<(Key, Vec<Key>, String)> {
    let n = layout.pieces().len();
    [Color::Red, Color::Black]
        .into_par_iter()
        .flat_map(|turn| {
            (0..layout.size()).into_par_iter().filter_map(move |index| {
                let pos = layout.position(index, turn)?;
                if pos.in_check(!turn) || tb.probe(&pos).ok()? != Value::Draw {
                    return None;
                }
                let ranked = tb.rank_moves(&pos).ok()?;
                let mut next = Vec::new();
                let mut holding = 0;
                for r in ranked.iter().filter(|r| r.value == Value::Draw) {
                    holding += 1;
                    let mut child = pos.clone();
                    child.play_unchecked(r.mv);
                    if !child.is_check() {
                        return None;
                    }
                    let pl = placement(&child).ok()?;
                    if pl.material == material {
                        next.push((pl.turn, layout.index(&pl.squares[..n])));
                    }
                }
                (holding > 0).then(|| ((turn, index), next, pos.to_string()))
            })
        })
        .collect()
}
