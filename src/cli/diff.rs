//! `canju diff`: what the perpetual-check rule changes in an endgame.

use std::path::PathBuf;

use canju::Color;
use canju::notation::{self, Notation, Style};
use canju::tablebase::diff::report;
use canju::tablebase::{Rules, Tablebase};

use super::common::{generate_quietly, material_arg, table_dir, table_error, thousands};
use super::{CliError, CliResult};

pub struct DiffArgs<'a> {
    pub material: &'a str,
    pub rules: Rules,
    pub against: Rules,
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
    if !canju::tablebase::diff::extends(a.rules, a.against) {
        return Err(CliError::input(format!(
            "--rules {} --against {}: compare a rule set with a weaker one (asian or check-only against none, asian against check-only)",
            a.rules, a.against
        )));
    }
    let dir = table_dir(a.dir)?;
    let baseline = Tablebase::with_rules(&dir, a.against);
    let asian = Tablebase::with_rules(&dir, a.rules);
    generate_quietly(m, &baseline, a.threads)?;
    generate_quietly(m, &asian, a.threads)?;
    let out = report(&baseline, &asian, m, a.examples, MAX_LINE).map_err(table_error)?;
    if a.json {
        return super::print_json(&out);
    }
    outln!(
        "{m} ({}): rules {} against {}",
        m.chinese(),
        a.rules.describe(),
        a.against.describe()
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
        outln!("  {}: draw; {}: {}", a.against, a.rules, e.asian);
        let text = notation::format_line(
            &e.position,
            &e.rule_line.moves,
            a.notation,
            Style::default(),
        );
        outln!("  best play: {text}");
        let classes: Vec<&str> = e.rule_line.attacks.iter().map(|k| k.chinese()).collect();
        outln!("  each move: {}", classes.join(" "));
        if let (Some(from), Some(sides)) = (e.repeats_from, e.cycle_kinds()) {
            let said: Vec<String> = sides
                .iter()
                .map(|(side, kind)| match kind {
                    Some("长将") => format!("{side} checks on every move (长将)"),
                    Some(_) => format!("{side} attacks on every move (长打)"),
                    None => format!("{side} does not attack on every move"),
                })
                .collect();
            outln!(
                "  the position after ply {from} returns after ply {}; {}",
                e.rule_line.moves.len(),
                said.join(", ")
            );
        }
    }
    Ok(())
}
