//! `canju` with no arguments: the main job ([`canju::main_job`]) with one progress bar for
//! the family, then a short report (under 30 lines): the build's summary, the verdict on
//! 马卒难破士相全 with its key numbers, the longest win as a board with its first moves, and
//! the commands to go on with. The full report is `canju theory 马卒难破士相全`.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use canju::game::material::Material;
use canju::main_job;
use canju::tablebase::generate::Progress;
use canju::tablebase::{Rules, Tablebase};
use canju::theory::Report;
use indicatif::{ProgressBar, ProgressStyle};

use super::CliResult;
use super::common::{table_dir, table_error, thousands, thread_pool};

/// The first moves of the longest win shown.
const FIRST_MOVES: usize = 5;

/// One table's build, shown as the family bar's message.
struct InFamily {
    bar: ProgressBar,
    name: String,
    layers: AtomicBool,
}

impl Progress for InFamily {
    fn init(&self, done: u64, total: u64) {
        let pct = (done * 100).checked_div(total).unwrap_or(0);
        self.bar
            .set_message(format!("{}: forward pass {pct}%", self.name));
    }

    fn layer(&self, plies: u32, _decided: u64) {
        self.layers.store(true, Ordering::Relaxed);
        self.bar
            .set_message(format!("{}: retrograde ply {plies}", self.name));
    }

    fn rule_stage(&self, winner: canju::Color, stage: u32, _won: u64) {
        self.bar.set_message(format!(
            "{}: perpetual-check rule, {winner} level {stage}",
            self.name
        ));
    }

    fn note(&self, text: &str) {
        self.bar.suspend(|| errln!("{text}"));
    }
}

/// Builds 马兵对士象全 (KNPKAABB) and every table it falls into if missing, then measures
/// the saying 马卒难破士相全 over them and names the commands to go on with.
pub fn run() -> CliResult {
    let dir = table_dir(&None)?;
    // what a player sees: the rules players play under
    let tb = Tablebase::with_rules(&dir, Rules::Asian);
    let material: Material = main_job::MATERIAL.parse().expect("the main job's material");
    let family = material.canonical().build_order().len() as u64;
    outln!(
        "canju: 马兵对士象全 ({}) and the {} tables it falls into, in {}; rules {}",
        main_job::MATERIAL,
        family - 1,
        dir.display(),
        Rules::Asian.describe()
    );
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(family);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} tables  {msg}").expect("template"),
        );
        b.enable_steady_tick(Duration::from_millis(200));
        b
    } else {
        ProgressBar::hidden()
    };
    let progress = |m: &Material| -> Box<dyn Progress> {
        Box::new(InFamily {
            bar: bar.clone(),
            name: m.to_string(),
            layers: AtomicBool::new(false),
        })
    };
    let pool = thread_pool(None)?;
    let job = pool
        .install(|| main_job::run(&tb, &progress, &mut |_| bar.inc(1)))
        .map_err(table_error);
    bar.finish_and_clear();
    let job = job?;
    super::tb::job_line(job.material, &tb, &job.builds, job.seconds);
    outln!();
    verdict(&job.saying);
    outln!();
    outln!(
        "Next: `canju theory {}` for the full report (every class, counter-examples, definitions)",
        main_job::SAYING
    );
    outln!(
        "      `canju puzzle play` for a puzzle ({} built in) · `canju train KNPKAABB` for a position from this table",
        job.puzzles
    );
    outln!("      `canju solve --fen FEN` for a composition · `canju --help` for every command");
    Ok(())
}

/// The verdict with its three key numbers, and the longest win as a board.
fn verdict(r: &Report) {
    outln!("{}", r.verdict.zh);
    outln!("{}", r.verdict.en);
    let c = &r.in_scope;
    outln!(
        "  {} positions in scope ({}): {:.2}% drawn; {} won by red (counter-examples)",
        thousands(c.legal),
        r.scope_chinese,
        c.percent(c.draw),
        thousands(r.counterexample_count)
    );
    let Some(l) = &r.longest else {
        return;
    };
    let Ok(pos) = l.fen.parse::<canju::Position>() else {
        return;
    };
    outln!(
        "  longest win, red to move: {} moves, from this position:",
        l.plies.div_ceil(2)
    );
    out!(
        "{}",
        canju::render::terminal::board(&pos, super::board::board_style(false))
    );
    let mut q = pos.clone();
    let mut moves = Vec::new();
    for t in l.line.iter().take(2 * FIRST_MOVES) {
        let Ok(m) = canju::notation::parse_move(&q, t) else {
            break;
        };
        q.play_unchecked(m);
        moves.push(m);
    }
    outln!(
        "{} … ({} moves in all)",
        canju::notation::format_line(
            &pos,
            &moves,
            canju::notation::Notation::Chinese,
            canju::notation::Style::default()
        ),
        l.plies.div_ceil(2)
    );
    outln!("{}", l.fen);
}
