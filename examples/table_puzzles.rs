//! Writes `puzzles/endgames.toml`: practical endgames found in the tables (wins of a chosen
//! length and hard draws where at most two moves hold), each with its main line by the
//! tables. Run: `cargo run --release --example table_puzzles -- TABLE_DIR` (the tables of
//! every material below are built there first when missing).

use std::fmt::Write as _;

use canju::game::material::Material;
use canju::notation::{Notation, Style, format_move};
use canju::puzzle::{self, Goal, Judge, Wanted};
use canju::tablebase::build::build;
use canju::tablebase::generate::Silent;
use canju::tablebase::{Rules, Tablebase};
use rand::SeedableRng;

const CN: [&str; 10] = ["零", "一", "两", "三", "四", "五", "六", "七", "八", "九"];

fn moves_text(n: u32) -> String {
    match n {
        0..=9 => CN[n as usize].to_string(),
        10 => "十".into(),
        11..=19 => format!("十{}", CN[(n - 10) as usize].replace('两', "二")),
        _ => format!(
            "{}十{}",
            CN[(n / 10) as usize].replace('两', "二"),
            if n.is_multiple_of(10) {
                String::new()
            } else {
                CN[(n % 10) as usize].replace('两', "二")
            }
        ),
    }
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tablebases".into());
    // the rules players play under: a defence that holds only by perpetual check is no draw
    let tb = Tablebase::with_rules(&dir, Rules::Asian);
    let judge = Judge::new(Some(&tb));
    // material, wins wanted (count, min moves, max moves), hard draws wanted, tag
    let plan: &[(&str, usize, u32, u32, usize, &str)] = &[
        ("KNKA", 6, 6, 19, 0, "单马胜单士"),
        ("KCAKAA", 6, 5, 15, 0, "炮仕胜双士"),
        ("KNPKAAB", 6, 8, 30, 2, "马兵对单缺象"),
        ("KRKNAA", 6, 5, 20, 2, "车对马双士"),
        ("KRKAABB", 6, 5, 20, 0, "单车对士象全"),
        ("KNPKAABB", 6, 10, 40, 6, "马兵对士象全"),
    ];
    let mut text = String::from(
        "# 实用残局: practical endgames found in canju's tables (rule set asian) and checked\n\
         # with them: wins with their main line (the quickest win against the longest\n\
         # resistance) and defences where at most two moves hold the draw.\n\n",
    );
    let mut n = 0;
    for &(sig, wins, min, max, draws, tag) in plan {
        let m: Material = sig.parse().unwrap();
        build(m.canonical(), &tb, &|_| Box::new(Silent), &mut |_| {}).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64 + 2026);
        let mut seen = std::collections::HashSet::new();
        for (count, wanted) in [(wins, Wanted::Win { min, max }), (draws, Wanted::HardDraw)] {
            let mut made = 0;
            let mut tries = 0;
            while made < count && tries < 200 {
                tries += 1;
                let Some(pos) = puzzle::pick(&tb, m, wanted, &mut rng, 5_000_000).unwrap() else {
                    break;
                };
                if !seen.insert(pos.to_string()) {
                    continue;
                }
                // flip every other one, so that black plays some of them
                let pos = if made % 2 == 1 {
                    pos.color_flipped()
                } else {
                    pos
                };
                let win = matches!(wanted, Wanted::Win { .. });
                let goal = Goal {
                    side: pos.turn(),
                    win,
                };
                let line = judge
                    .main_line(&pos, goal, puzzle::TABLE_BUDGET, if win { 200 } else { 6 })
                    .unwrap();
                if win && line.len().is_multiple_of(2) {
                    continue;
                }
                let mut p = pos.clone();
                let mut moves = Vec::new();
                for &mv in &line {
                    moves.push(format!(
                        "\"{}\"",
                        format_move(&p, mv, Notation::Chinese, Style::default())
                    ));
                    p.play_unchecked(mv);
                }
                n += 1;
                made += 1;
                let full = (line.len() as u32).div_ceil(2);
                let title = if win {
                    format!("{} · {}步胜", m.chinese(), moves_text(full))
                } else {
                    format!("{} · 守和", m.chinese())
                };
                let difficulty = if !win {
                    4
                } else {
                    match full {
                        0..=5 => 2,
                        6..=10 => 3,
                        11..=20 => 4,
                        _ => 5,
                    }
                };
                writeln!(text, "[[puzzle]]").unwrap();
                writeln!(text, "id = \"endgame-{n:03}\"").unwrap();
                writeln!(text, "title = \"{title}\"").unwrap();
                writeln!(text, "source = \"found in the {} table\"", m.canonical()).unwrap();
                writeln!(text, "fen = \"{pos}\"").unwrap();
                writeln!(text, "goal = \"{goal}\"").unwrap();
                writeln!(text, "line = [{}]", moves.join(", ")).unwrap();
                writeln!(
                    text,
                    "tags = [\"实用残局\", \"{tag}\", \"{}\"]",
                    if win { "胜法" } else { "守和" }
                )
                .unwrap();
                writeln!(text, "difficulty = {difficulty}\n").unwrap();
            }
        }
    }
    std::fs::write("puzzles/endgames.toml", text).unwrap();
    eprintln!("{n} puzzles written to puzzles/endgames.toml");
}
