//! `canju diff`: what the perpetual-check rule changes in an endgame.

use std::path::PathBuf;

use canju::Color;
use canju::Material;
use canju::notation::{self, Notation, Style};
use canju::tablebase::diff::{DiffExample, clause_report, report};
use canju::tablebase::format::Clauses;
use canju::tablebase::{Rules, Tablebase};

use super::common::{
    generate_quietly, material_arg, progress_for, table_dir, table_error, thousands, thread_pool,
};
use super::{CliError, CliResult};

pub struct DiffArgs<'a> {
    pub material: &'a str,
    pub rules: Rules,
    pub against: Option<Rules>,
    pub by_clause: bool,
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
    let against = a.against.unwrap_or(if a.by_clause {
        Rules::CheckOnly
    } else {
        Rules::None
    });
    if a.by_clause && (a.rules, against) != (Rules::Asian, Rules::CheckOnly) {
        return Err(CliError::input(format!(
            "--by-clause --rules {} --against {against}: the clauses split what the whole rule (asian) decides beyond perpetual check (check-only)",
            a.rules
        )));
    }
    if !canju::tablebase::diff::extends(a.rules, against) {
        return Err(CliError::input(format!(
            "--rules {} --against {against}: compare a rule set with a weaker one (asian or check-only against none, asian against check-only)",
            a.rules
        )));
    }
    let dir = table_dir(a.dir)?;
    let baseline = Tablebase::with_rules(&dir, against);
    let asian = Tablebase::with_rules(&dir, a.rules);
    generate_quietly(m, &baseline, a.threads)?;
    generate_quietly(m, &asian, a.threads)?;
    if a.by_clause {
        return by_clause(&a, m, &baseline, &asian);
    }
    let out = report(&baseline, &asian, m, a.examples, MAX_LINE).map_err(table_error)?;
    if a.json {
        return super::print_json(&out);
    }
    outln!(
        "{m} ({}): rules {} against {}",
        m.chinese(),
        a.rules.describe(),
        against.describe()
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
        print_example(e, against, a.rules, a.notation);
    }
    Ok(())
}

/// `canju diff --by-clause`: what 杀 alone, 捉 alone and both decide beyond 长将.
fn by_clause(a: &DiffArgs, m: Material, check_only: &Tablebase, asian: &Tablebase) -> CliResult {
    let pool = thread_pool(a.threads)?;
    let progress = |c: Clauses| {
        let p = progress_for(&m);
        let (hits, idle) = if c.chases {
            ("将 and 捉", "杀")
        } else {
            ("将 and 杀", "捉")
        };
        p.note(&format!(
            "{m}: solving again in memory, {hits} as 打 and {idle} idle"
        ));
        p
    };
    let out = pool
        .install(|| clause_report(check_only, asian, m, &progress, a.examples, MAX_LINE))
        .map_err(table_error)?;
    if a.json {
        return super::print_json(&out);
    }
    outln!(
        "{m} ({}): what 长杀 and 长捉 decide beyond 长将 (each clause alone counted with 将; captures lead into the whole rule's tables)",
        m.chinese()
    );
    for (turn, c) in [
        (Color::Red, &out.red_to_move),
        (Color::Black, &out.black_to_move),
    ] {
        if c.whole == 0 {
            outln!("{turn} to move: the whole rule decides none of check-only's draws");
        } else {
            outln!(
                "{turn} to move: the whole rule decides {} of check-only's draws: {} by 捉 alone (长捉), {} by 杀 alone (长杀), {} by either, {} only by both together",
                thousands(c.whole),
                thousands(c.chases),
                thousands(c.mate_threats),
                thousands(c.either),
                thousands(c.together)
            );
        }
        if c.beyond_whole > 0 {
            outln!(
                "  and {} draws of the whole rule decided by one clause alone (the winner's own 杀 or 捉 is 打 under the whole rule)",
                thousands(c.beyond_whole)
            );
        }
        if c.opposite > 0 {
            outln!(
                "  {} of them decided the other way by one clause alone",
                thousands(c.opposite)
            );
        }
    }
    for e in &out.examples {
        let by = match e.clause {
            "mate-threats" => "by 杀 alone, not by 捉 alone",
            "chases" => "by 捉 alone, not by 杀 alone",
            "together" => "by neither clause alone",
            _ => "drawn under the whole rule, decided by a clause alone",
        };
        let x = &e.example;
        outln!();
        outln!("{} ({} to move), {}, {by}", x.fen, x.side_to_move, x.kind);
        print_example(x, Rules::CheckOnly, Rules::Asian, a.notation);
    }
    Ok(())
}

/// An example's verdicts, its line under the stronger rule and each move's class.
fn print_example(e: &DiffExample, against: Rules, rules: Rules, notation: Notation) {
    outln!("  {against}: draw; {rules}: {}", e.asian);
    if e.rule_line.moves.is_empty() {
        return;
    }
    let text = notation::format_line(&e.position, &e.rule_line.moves, notation, Style::default());
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
