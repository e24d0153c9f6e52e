//! `canju theory`: the counts are checked against the tables' statistics and against
//! independent enumerations of positions (the home formation, a heatmap), the
//! counter-examples against the tables, and the command against bad input.

use std::collections::HashMap;

use crate::common::{TempDir, build_tables as build, canju};
use canju::tablebase::{Tablebase, Value};
use canju::theory::{self, Claim, Counts, Level, Lore, Request};
use canju::{Color, Kind, Position, Square};

/// A FEN from pieces on points (a FEN letter and a point each).
fn fen_of(pieces: &[(char, Square)], turn: Color) -> String {
    let mut board = [None; 90];
    for &(c, s) in pieces {
        board[s.index()] = Some(c);
    }
    let mut ranks = Vec::new();
    for rank in (0..10).rev() {
        let mut text = String::new();
        let mut empty = 0;
        for file in 0..9 {
            match board[rank * 9 + file] {
                Some(c) => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        ranks.push(text);
    }
    let side = if turn == Color::Red { "w" } else { "b" };
    format!("{} {side} - - 0 1", ranks.join("/"))
}

fn sq(text: &str) -> Square {
    text.parse().unwrap()
}

/// The stronger side's (red's) result in a position.
fn red_result(v: Value, turn: Color) -> &'static str {
    match (v, turn) {
        (Value::Draw, _) => "draw",
        (Value::Win(_), Color::Red) | (Value::Loss(_), Color::Black) => "win",
        _ => "loss",
    }
}

fn add(c: &mut Counts, result: &str) {
    c.legal += 1;
    match result {
        "win" => c.win += 1,
        "draw" => c.draw += 1,
        _ => c.loss += 1,
    }
}

#[test]
fn conditions_add_up_and_home_formation_matches_an_enumeration() {
    let dir = TempDir::new("theory-kpkaabb");
    let tb = Tablebase::new(&dir.0);
    build(&tb, "KPKAABB");
    let mut claim = Claim::parse("兵对士象全").unwrap();
    claim.lore = Some(Lore::Draw);
    let r = theory::measure(
        &claim,
        &tb,
        &Request {
            limit: 20,
            heat: None,
            stop: None,
        },
        &|_, _| {},
    )
    .unwrap();
    // the totals are the tables' statistics
    let table = tb.table(claim.material).unwrap();
    for (i, side) in r.sides.iter().enumerate() {
        let h = &table.header().sides[i];
        let (win, loss) = if i == 0 {
            (h.win, h.loss)
        } else {
            (h.loss, h.win)
        };
        assert_eq!(
            (
                side.counts.legal,
                side.counts.win,
                side.counts.draw,
                side.counts.loss
            ),
            (h.legal, win, h.draw, loss),
            "{:?}",
            side.side_to_move
        );
    }
    // every group of conditions splits the totals
    for side in &r.sides {
        for group in ["formation", "soldier", "general"] {
            let mut sum = Counts::default();
            for c in r
                .conditions
                .iter()
                .filter(|c| c.group == group && c.side_to_move == side.side_to_move)
            {
                sum.legal += c.counts.legal;
                sum.win += c.counts.win;
                sum.draw += c.counts.draw;
                sum.loss += c.counts.loss;
            }
            assert_eq!(sum, side.counts, "{group}, {:?} to move", side.side_to_move);
        }
    }
    // the home formation, enumerated directly: black's general on e9, d9, f9 or e8 with
    // both advisors on d9 and f9 and both elephants on c9 and g9; red's general anywhere in
    // its palace and the soldier on any point
    let palace: Vec<Square> = ["d0", "e0", "f0", "d1", "e1", "f1", "d2", "e2", "f2"]
        .iter()
        .map(|s| sq(s))
        .collect();
    let mut home: HashMap<Color, Counts> = HashMap::new();
    for turn in [Color::Red, Color::Black] {
        let counts = home.entry(turn).or_default();
        for bk in ["e9", "d9", "f9", "e8"].map(sq) {
            for &rk in &palace {
                for p in Square::all() {
                    let pieces = [
                        ('K', rk),
                        ('P', p),
                        ('k', bk),
                        ('a', sq("d9")),
                        ('a', sq("f9")),
                        ('b', sq("c9")),
                        ('b', sq("g9")),
                    ];
                    let mut used: Vec<Square> = pieces.iter().map(|x| x.1).collect();
                    used.sort_unstable();
                    used.dedup();
                    if used.len() < pieces.len() {
                        continue;
                    }
                    // an illegal position is refused, and a soldier where no game puts
                    // it is a composition's placement, outside the table
                    let Ok(pos) = fen_of(&pieces, turn).parse::<Position>() else {
                        continue;
                    };
                    if pos.unreachable_piece().is_some() {
                        continue;
                    }
                    let v = tb.probe(&pos).unwrap();
                    add(counts, red_result(v, turn));
                }
            }
        }
        let measured = r
            .conditions
            .iter()
            .find(|c| c.side_to_move == turn && c.name.starts_with("defence in home formation"))
            .unwrap();
        assert!(counts.legal > 0);
        assert_eq!(measured.counts, *counts, "{turn:?} to move");
    }
    // each listed counter-example is a win of the stronger side, and they are different
    assert!(r.counterexample_count > 0);
    assert!(!r.counterexamples.is_empty());
    let mut fens = std::collections::HashSet::new();
    for c in &r.counterexamples {
        assert!(fens.insert(c.fen.clone()));
        let pos: Position = c.fen.parse().unwrap();
        let v = tb.probe(&pos).unwrap();
        assert_eq!(red_result(v, pos.turn()), "win", "{}", c.fen);
        match c.best_move.as_deref() {
            Some(m) => assert!(canju::notation::parse_move(&pos, m).is_ok()),
            None => assert!(pos.legal_moves().is_empty(), "{}", c.fen),
        }
    }
    // the longest win is the table's, and its line ends in mate
    let l = r.longest.as_ref().unwrap();
    assert_eq!(l.plies, table.header().sides[0].longest);
    let mut pos: Position = l.fen.parse().unwrap();
    assert_eq!(l.line.len() as u32, l.plies);
    for m in &l.line {
        let m = canju::notation::parse_move(&pos, m).unwrap();
        pos.play(m).unwrap();
    }
    assert!(pos.game_end().is_some());
}

#[test]
fn a_heatmap_equals_shares_counted_directly() {
    let dir = TempDir::new("theory-knka");
    let tb = Tablebase::new(&dir.0);
    build(&tb, "KNKA");
    let claim = Claim::parse("单马胜单士").unwrap();
    assert_eq!(claim.material.to_string(), "KNKA");
    for turn in [Color::Red, Color::Black] {
        let r = theory::measure(
            &claim,
            &tb,
            &Request {
                limit: 3,
                heat: Some((Kind::Horse, turn)),
                stop: None,
            },
            &|_, _| {},
        )
        .unwrap();
        let heat = r.heat.as_ref().unwrap();
        // every position: red's general, the horse, black's general and advisor
        let mut legal = [0u64; 90];
        let mut win = [0u64; 90];
        let red_palace = ["d0", "e0", "f0", "d1", "e1", "f1", "d2", "e2", "f2"].map(sq);
        let black_palace = ["d7", "e7", "f7", "d8", "e8", "f8", "d9", "e9", "f9"].map(sq);
        for rk in red_palace {
            for bk in black_palace {
                for a in ["d9", "f9", "e8", "d7", "f7"].map(sq) {
                    for n in Square::all() {
                        let pieces = [('K', rk), ('N', n), ('k', bk), ('a', a)];
                        let mut used: Vec<Square> = pieces.iter().map(|x| x.1).collect();
                        used.sort_unstable();
                        used.dedup();
                        if used.len() < 4 {
                            continue;
                        }
                        let Ok(pos) = fen_of(&pieces, turn).parse::<Position>() else {
                            continue;
                        };
                        let v = tb.probe(&pos).unwrap();
                        legal[n.index()] += 1;
                        if red_result(v, turn) == "win" {
                            win[n.index()] += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(heat.legal, legal.to_vec(), "{turn:?} to move");
        assert_eq!(heat.win, win.to_vec(), "{turn:?} to move");
        for s in Square::all() {
            let expected =
                (legal[s.index()] > 0).then(|| win[s.index()] as f64 / legal[s.index()] as f64);
            assert_eq!(heat.share(s), expected);
        }
    }
}

#[test]
fn a_lore_that_always_holds_and_one_that_fails() {
    let dir = TempDir::new("theory-kck");
    let tb = Tablebase::new(&dir.0);
    build(&tb, "KCK");
    build(&tb, "KPK");
    let request = Request {
        limit: 5,
        heat: None,
        stop: None,
    };
    let r = theory::measure(
        &Claim::parse("孤炮难鸣").unwrap(),
        &tb,
        &request,
        &|_, _| {},
    )
    .unwrap();
    assert_eq!(r.verdict.level, Some(Level::Holds));
    assert_eq!(r.counterexample_count, 0);
    assert!(
        r.verdict.zh.contains("100.00% 和棋 — 成立"),
        "{}",
        r.verdict.zh
    );
    // a bare general is 光将, and only the definitions that apply are given
    assert!(r.defence.starts_with("光将"), "{}", r.defence);
    let defs = r.definitions().join("\n");
    assert!(!defs.contains("home formation"), "{defs}");
    assert!(!defs.contains("soldier classes"), "{defs}");
    assert!(
        defs.contains("centre file") && defs.contains("verdict:"),
        "{defs}"
    );
    // claimed as a win, the same material fails, with every position a counter-example
    let mut claim = Claim::parse("KCK").unwrap();
    claim.lore = Some(Lore::Win);
    let r = theory::measure(&claim, &tb, &request, &|_, _| {}).unwrap();
    assert_eq!(r.verdict.level, Some(Level::Fails));
    let all: u64 = r.sides.iter().map(|s| s.counts.legal).sum();
    assert_eq!(r.counterexample_count, all);
    // 老兵无用 speaks of the soldier on the last rank only
    let r = theory::measure(
        &Claim::parse("老卒无功").unwrap(),
        &tb,
        &request,
        &|_, _| {},
    )
    .unwrap();
    assert!(r.definitions().join(" ").contains("soldier classes"));
    let bottom: u64 = r
        .conditions
        .iter()
        .filter(|c| c.name.contains("底兵"))
        .map(|c| c.counts.legal)
        .sum();
    assert_eq!(r.in_scope.legal, bottom);
    // a soldier on the last rank never wins alone, though a soldier elsewhere does
    assert_eq!(r.counterexample_count, 0);
    assert_eq!(r.verdict.level, Some(Level::Holds));
    assert!(r.sides[0].counts.win > 0);
}

#[test]
fn the_command_text_json_markdown_and_heatmap() {
    let dir = TempDir::new("theory-cli");
    let d = dir.0.to_str().unwrap();
    let out = canju(&["theory", "炮仕胜光将", "--dir", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("炮仕胜光将 — 炮仕对光将 (KCAK)"), "{text}");
    assert!(
        text.contains("verdict: 炮仕胜光将（炮仕对光将）：攻方先走时"),
        "{text}"
    );
    assert!(text.contains("longest win, red to move:"), "{text}");
    // JSON
    let out = canju(&[
        "theory", "KCAK", "--lore", "win", "--json", "--dir", d, "--limit", "2",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["material"], "KCAK");
    assert_eq!(v["lore_verdict"], "win");
    assert_eq!(v["sides"][0]["side_to_move"], "red");
    for key in ["legal", "win", "draw", "loss"] {
        assert!(v["sides"][1][key].is_u64(), "{key}");
    }
    assert!(v["conditions"].as_array().unwrap().len() >= 4);
    assert!(v["counterexamples"].as_array().unwrap().len() <= 2);
    assert!(v["verdict"]["zh"].as_str().unwrap().contains("炮仕对光将"));
    assert!(v["longest"]["fen"].is_string());
    // Markdown
    let out = canju(&["theory", "KCAK", "--markdown", "--dir", d]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("|---|---:|---:|---:|---:|"), "{md}");
    // a heatmap: a well-formed SVG with a coloured cell on every point the cannon can take;
    // each cell's win share when that piece stands there, by point
    let svg_path = dir.0.join("heat.svg");
    let heat = |piece: &str| -> Vec<(String, f64)> {
        let out = canju(&[
            "theory",
            "KCAK",
            "--heatmap",
            piece,
            "-o",
            svg_path.to_str().unwrap(),
            "--dir",
            d,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("heat"))
            .map(|n| {
                (
                    n.attribute("data-square").unwrap().to_string(),
                    n.attribute("data-share").unwrap().parse().unwrap(),
                )
            })
            .collect()
    };
    let cells = heat("炮");
    assert_eq!(cells.len(), 90);
    for (_, share) in &cells {
        assert!((0.0..=1.0).contains(share));
    }
    // the general's heatmap: every side has its general, on the palace's nine points
    let won: Vec<String> = heat("K")
        .into_iter()
        .filter(|(_, share)| *share > 0.0)
        .map(|(square, _)| square)
        .collect();
    assert!(!won.is_empty() && won.len() <= 9, "{won:?}");
}

#[test]
fn bad_claims_and_arguments_are_one_line_errors() {
    let dir = TempDir::new("theory-bad");
    let d = dir.0.to_str().unwrap();
    for (args, expected) in [
        (
            vec!["theory", "马跑了"],
            "neither a saying canju knows nor a material",
        ),
        (
            vec!["theory", "KRRNNCCKAABB"],
            "12 pieces; canju's tables hold at most 10",
        ),
        (
            vec!["theory"],
            "the following required arguments were not provided: <CLAIM>",
        ),
        (
            vec!["theory", "KCK", "--list"],
            "cannot be used with '--list'",
        ),
        (
            vec!["theory", "KCK", "--heatmap", "炮"],
            "--heatmap needs -o",
        ),
        (vec!["theory", "KCK", "-o", "x.svg"], "-o is for --heatmap"),
        (
            vec!["theory", "KCK", "--lore", "maybe"],
            "--lore: 'maybe' is not a verdict",
        ),
        (vec!["theory", "KCK", "--limit", "5000"], "at most 1000"),
        (vec!["theory", "KCK", "--json", "--markdown"], "choose one"),
        (
            vec!["theory", "KCK", "--side", "red"],
            "--side is the heatmap's",
        ),
        (
            vec!["theory", "KCK", "--heatmap", "queen", "-o", "x.svg"],
            "--heatmap 'queen': not a piece",
        ),
        (
            vec!["theory", "KCK", "--heatmap", "N", "-o", "x.svg", "--dir", d],
            "the stronger side of KCK (炮对光将) has no horse; it can map general (帅, K), cannon (炮, C)",
        ),
    ] {
        let out = canju(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

#[test]
fn the_sayings_are_listed() {
    let o = canju(&["theory", "--list"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for s in theory::SAYINGS {
        assert!(
            text.contains(&format!("{}  ", s.text)) && text.contains(&format!("({})", s.material)),
            "{}: {text}",
            s.text
        );
    }
}
