//! `canju diff`: what the perpetual-check rule changes in an endgame.

use std::path::PathBuf;

use canju::Color;
use canju::notation::{self, Notation, Style};
use canju::tablebase::diff::{CycleCheckers, report};
use canju::tablebase::{Rules, Tablebase};

use super::common::{generate_quietly, material_arg, table_dir, table_error, thousands};
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
    let out = report(&baseline, &asian, m, a.examples, MAX_LINE).map_err(table_error)?;
    if a.json {
        return super::print_json(&out);
    }
    outln!(
        "{m} ({}): the perpetual-check rule (asian) against none",
        m.chinese()
    );
    for (turn, c) in [
        (Color::Red, &out.red_to_move),
        (Color::Black, &out.black_to_move),
    ] {
        outln!(
            "{turn} to move: {} draws become wins for {turn}, {} become losses; levels up to {}",
            thousands(c.draw_to_win),
            thousands(c.draw_to_loss),
            c.levels
        );
    }
    for e in &out.examples {
        outln!();
        outln!("{} ({} to move), {}", e.fen, e.side_to_move, e.kind);
        outln!("  none: draw; asian: {}", e.asian);
        let text = notation::format_line(
            &e.position,
            &e.rule_line.moves,
            a.notation,
            Style::default(),
        );
        outln!("  best play: {text}");
        if let (Some(from), Some(who)) = (e.repeats_from, e.checkers()) {
            outln!(
                "  the position after ply {from} returns after ply {}; {}",
                e.rule_line.moves.len(),
                match who {
                    CycleCheckers::One(side) => {
                        format!("{side} checks on every move of the cycle (长将)")
                    }
                    CycleCheckers::Both => {
                        "both sides check on every move (解将还将)".to_string()
                    }
                    CycleCheckers::Neither => {
                        "neither side checks on every move".to_string()
                    }
                }
            );
        }
    }
    Ok(())
}
