//! Looks for forced mutual perpetual check (解将还将) in rule tables: drawn positions where
//! every move of the side to move (L) that holds the draw gives check, and where the other
//! side (W) can answer each of those checks by a move that comes back to such a position,
//! forever. There L is kept checking on every move; the position is nevertheless drawn,
//! so W can do it only by checking on every move itself. That is the one place where the
//! rule's "both sides check on every move: a draw" clause decides a verdict: without it,
//! these positions would be lost for L.
//!
//! ```sh
//! canju gen KRAKRA --dir D
//! cargo run --release --example mutual_checks -- D KRAKRA
//! ```
//!
//! Arguments: the table directory (asian tables of the materials and what they fall into),
//! then one or more materials. Prints, per material, the drawn positions whose holding
//! moves all check, how many of them lie in the greatest set where W keeps L checking,
//! and up to five of those as FENs. With `VALIDATE=1` in the environment, the losses by
//! rule are taken as well, and the set must then hold the real perpetual-check traps (a
//! check that the search is not blind).

use std::collections::{HashMap, HashSet};

use canju::Color;
use canju::game::material::Material;
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
        let all = found.len();
        let mut graph: HashMap<Key, Node> = found.into_iter().collect();
        // the greatest set where the checker is kept checking: drop positions with an
        // escape, or one of whose holding checks W cannot answer by a move back inside
        loop {
            let inside: HashSet<Key> = graph.keys().copied().collect();
            let before = graph.len();
            graph.retain(|_, node| {
                !node.escapes
                    && node
                        .answers
                        .iter()
                        .all(|next| next.iter().any(|k| inside.contains(k)))
            });
            if graph.len() == before {
                break;
            }
        }
        let drawn = graph.values().filter(|node| node.drawn).count();
        println!(
            "{material}: {all} positions whose holding moves all check; {} where the other side can keep them checking, {drawn} of them drawn (only by checking on every move itself)",
            graph.len()
        );
        let mut keys: Vec<&Key> = graph
            .iter()
            .filter(|(_, n)| n.drawn)
            .map(|(k, _)| k)
            .collect();
        keys.sort();
        for key in keys.into_iter().take(5) {
            println!("  {}", graph[key].fen);
        }
    }
}

/// A drawn position (L to move) whose holding moves all give check.
struct Node {
    /// Some holding check leaves the material (a capture): L escapes the cycle.
    escapes: bool,
    /// Drawn (not lost by rule: `VALIDATE` takes those too).
    drawn: bool,
    /// Per holding check, the positions of the same material (L to move) that W's quiet
    /// moves lead to from there.
    answers: Vec<Vec<Key>>,
    fen: String,
}

/// The drawn positions whose holding moves all give check, each with W's answers to
/// those checks and its FEN.
///
/// Such a position is drawn in a rule table, so W cannot win it by the rule; yet if W can
/// answer every holding check by a move that comes back to such a position, forever, then
/// L is kept checking on every move. Both things hold only where every such answer of W
/// checks too, from some point on: mutual perpetual check (解将还将), which the rule calls a
/// draw. A table built without that clause would call these positions lost for L.
fn forced_checks(tb: &Tablebase, layout: &Layout, material: Material) -> Vec<(Key, Node)> {
    let n = layout.pieces().len();
    let validate = std::env::var_os("VALIDATE").is_some();
    let key_of = |pos: &canju::Position| -> Option<Key> {
        let pl = placement(pos).ok()?;
        (pl.material == material).then(|| (pl.turn, layout.index(&pl.squares[..n])))
    };
    [Color::Red, Color::Black]
        .into_par_iter()
        .flat_map(|turn| {
            (0..layout.size()).into_par_iter().filter_map(move |index| {
                let pos = layout.position(index, turn)?;
                let value = tb.probe(&pos).ok()?;
                if pos.in_check(!turn) || !(value == Value::Draw || validate && value.by_rule()) {
                    return None;
                }
                let ranked = tb.rank_moves(&pos).ok()?;
                let mut node = Node {
                    escapes: false,
                    drawn: value == Value::Draw,
                    answers: Vec::new(),
                    fen: pos.to_string(),
                };
                let holds = |v: Value| v == Value::Draw || validate && v.by_rule();
                for r in ranked.iter().filter(|r| holds(r.value)) {
                    let mut child = pos.clone();
                    child.play_unchecked(r.mv);
                    if !child.is_check() {
                        return None;
                    }
                    if key_of(&child).is_none() {
                        node.escapes = true;
                        continue;
                    }
                    let answers = child
                        .legal_moves()
                        .iter()
                        .filter_map(|&m| {
                            let mut next = child.clone();
                            next.play_unchecked(m);
                            key_of(&next)
                        })
                        .collect();
                    node.answers.push(answers);
                }
                (!node.answers.is_empty() || node.escapes).then_some(((turn, index), node))
            })
        })
        .collect()
}
