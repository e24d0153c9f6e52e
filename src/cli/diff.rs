//! `canju diff`: what the perpetual-check rule changes in an endgame.

use std::path::PathBuf;

use canju::Color;
use canju::notation::{self, Notation, Style};
use canju::tablebase::diff::{RuleCounts, RuleLine, compare, rule_line};
use canju::tablebase::{Rules, Tablebase};

use super::common::{generate_quietly, material_arg, table_dir, table_error, thousands};
use super::tb::verdict_text;
use super::{CliError, CliResult};

pub struct DiffArgs<'a> {
    pub material: &'a str,
    pub examples: usize,
    pub notation: Notation,
    pub json: bool,
    pub dir: &'a Option<PathBuf>,
    pub threads: Option<usize>,
}

/// The most examples of each kind `--examples` takes.
const MAX_EXAMPLES: usize = 100;
/// The longest line shown for an example, in plies.
const MAX_LINE: usize = 60;

#[derive(serde::Serialize)]
struct SideJson {
    /// Draws without the rule that the side to move wins by rule.
    draw_to_win: u64,
    /// Draws without the rule that the side to move loses by rule (it is the one that
    /// would have to check forever).
    draw_to_loss: u64,
    /// The highest level of a verdict by rule.
    levels: u32,
}

#[derive(serde::Serialize, Clone)]
struct MoveJson {
    iccs: String,
    chinese: String,
    check: bool,
}

#[derive(serde::Serialize, Clone)]
struct ExampleJson {
    fen: String,
    side_to_move: &'static str,
    kind: &'static str,
    baseline: &'static str,
    asian: String,
    /// Best play under the rule until a position repeats (or the game ends).
    line: Vec<MoveJson>,
    /// The ply at which the repeated position first stood (0 = the example itself).
    repeats_from: Option<usize>,
}

#[derive(serde::Serialize)]
struct DiffJson {
    material: String,
    material_chinese: String,
    red_to_move: SideJson,
    black_to_move: SideJson,
    examples: Vec<ExampleJson>,
}

fn side_json(c: &RuleCounts) -> SideJson {
    SideJson {
        draw_to_win: c.draw_to_win,
        draw_to_loss: c.draw_to_loss,
        levels: c.levels,
    }
}

pub fn run(a: DiffArgs) -> CliResult {
    let m = material_arg(a.material)?;
    if a.examples > MAX_EXAMPLES {
        return Err(CliError::input(format!(
            "--examples {}: at most {MAX_EXAMPLES}",
            a.examples
        )));
    }
    let dir = table_dir(a.dir)?;
    let baseline = Tablebase::new(&dir);
    let asian = Tablebase::with_rules(&dir, Rules::Asian);
    generate_quietly(m, &baseline, a.threads)?;
    generate_quietly(m, &asian, a.threads)?;
    let bt = baseline.table(m).map_err(table_error)?;
    let at = asian.table(m).map_err(table_error)?;
    let diff = compare(&bt, &at, a.examples).map_err(table_error)?;
    let mut examples = Vec::new();
    for turn in Color::ALL {
        for (kind, list) in [
            ("draw → win", &diff.win_examples[turn.index()]),
            ("draw → loss", &diff.loss_examples[turn.index()]),
        ] {
            for &index in list {
                let Some(pos) = at.layout().position(index, turn) else {
                    continue;
                };
                let value = at.value(turn, index).map_err(table_error)?;
                let line = rule_line(&asian, &pos, MAX_LINE).map_err(table_error)?;
                let mut q = pos.clone();
                let moves = line
                    .moves
                    .iter()
                    .zip(&line.checks)
                    .map(|(&mv, &check)| {
                        let j = MoveJson {
                            iccs: mv.to_string(),
                            chinese: notation::format_move(
                                &q,
                                mv,
                                Notation::Chinese,
                                Style::default(),
                            ),
                            check,
                        };
                        q.play_unchecked(mv);
                        j
                    })
                    .collect();
                let repeats_from = line.repeats_from;
                examples.push((
                    pos.clone(),
                    line,
                    ExampleJson {
                        fen: pos.to_string(),
                        side_to_move: turn.name(),
                        kind,
                        baseline: "draw",
                        asian: verdict_text(value),
                        line: moves,
                        repeats_from,
                    },
                ));
            }
        }
    }
    let out = DiffJson {
        material: m.to_string(),
        material_chinese: m.chinese(),
        red_to_move: side_json(&diff.sides[0]),
        black_to_move: side_json(&diff.sides[1]),
        examples: examples.iter().map(|(_, _, e)| e).cloned().collect(),
    };
    if a.json {
        super::print_json(&out)?;
        return Ok(());
    }
    outln!(
        "{m} ({}): the perpetual-check rule (asian) against none",
        m.chinese()
    );
    for turn in Color::ALL {
        let c = &diff.sides[turn.index()];
        outln!(
            "{turn} to move: {} draws become wins for {turn}, {} become losses; levels up to {}",
            thousands(c.draw_to_win),
            thousands(c.draw_to_loss),
            c.levels
        );
    }
    for (pos, line, e) in &examples {
        outln!();
        outln!("{} ({} to move), {}", e.fen, e.side_to_move, e.kind);
        outln!("  none: draw; asian: {}", e.asian);
        let RuleLine { moves, checks, .. } = line;
        let text = notation::format_line(pos, moves, a.notation, Style::default());
        outln!("  best play: {text}");
        if let Some(from) = e.repeats_from {
            let cycle = &checks[from..];
            let checker = |parity: usize| {
                cycle
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| (from + k) % 2 == parity)
                    .all(|(_, &c)| c)
            };
            let side = |parity: usize| {
                if parity == 0 {
                    e.side_to_move.to_string()
                } else {
                    (!pos.turn()).name().to_string()
                }
            };
            let who: Vec<String> = (0..2).filter(|&p| checker(p)).map(side).collect();
            outln!(
                "  the position after ply {from} returns after ply {}; {}",
                moves.len(),
                match who.len() {
                    1 => format!("{} checks on every move of the cycle (长将)", who[0]),
                    2 => "both sides check on every move (解将还将)".to_string(),
                    _ => "neither side checks on every move".to_string(),
                }
            );
        }
    }
    Ok(())
}
