//! `canju theory`: a saying or a material measured over its table, as text, Markdown or
//! JSON, with an optional heatmap.

use std::path::{Path, PathBuf};

use canju::game::piece::{Color, Kind};
use canju::notation::{self, Notation, Style};
use canju::tablebase::Tablebase;
use canju::theory::{self, Claim, Counts, Lore, Report, Request};
use canju::{Move, Position};

use super::common::{
    generate_quietly, progress_bar, table_dir, table_error, thousands, thread_pool,
};
use super::{CliError, CliResult};

pub struct TheoryArgs<'a> {
    pub claim: &'a str,
    pub rules: canju::tablebase::Rules,
    pub json: bool,
    pub markdown: bool,
    pub limit: usize,
    pub lore: &'a Option<String>,
    pub heatmap: &'a Option<String>,
    pub side: &'a Option<String>,
    pub output: &'a Option<PathBuf>,
    pub dir: &'a Option<PathBuf>,
    pub threads: Option<usize>,
}

/// Most counter-examples a report lists.
const MAX_LIMIT: usize = 1000;

/// Reads `--heatmap`'s piece kind (see [`Kind::from_name`]).
fn kind_arg(text: &str) -> Result<Kind, CliError> {
    Kind::from_name(text).ok_or_else(|| {
        CliError::input(format!(
            "--heatmap '{}': not a piece (a letter such as N or P, a name such as horse, or 马, 兵 …)",
            text.trim()
        ))
    })
}

/// A theory error as a command-line error.
fn theory_error(e: theory::TheoryError) -> CliError {
    match e {
        theory::TheoryError::Table(t) => table_error(t),
        theory::TheoryError::Claim(c) => CliError::input(c),
        e @ theory::TheoryError::Stopped => CliError {
            code: 1,
            message: e.to_string(),
        },
    }
}

fn side_arg(text: &str) -> Result<Color, CliError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "red" | "r" | "w" | "红" => Ok(Color::Red),
        "black" | "b" | "黑" => Ok(Color::Black),
        _ => Err(CliError::input(format!(
            "--side '{text}': red (the stronger side) or black (the defence)"
        ))),
    }
}

/// `canju theory --list`: the sayings, with their material, claimed verdict and scope.
pub fn list() -> CliResult {
    for s in theory::SAYINGS {
        let m: canju::game::material::Material = s.material.parse().map_err(CliError::input)?;
        outln!(
            "{}  {} ({})  lore: {} ({}), {}",
            s.text,
            m.chinese(),
            s.material,
            s.lore,
            s.lore.chinese(),
            s.scope.english()
        );
        if !s.aliases.is_empty() {
            outln!("    also: {}", s.aliases.join(", "));
        }
    }
    Ok(())
}

pub fn run(a: TheoryArgs) -> CliResult {
    let mut claim = Claim::parse(a.claim).map_err(CliError::input)?;
    if let Some(l) = a.lore {
        claim.lore = Some(
            l.parse::<Lore>()
                .map_err(|e| CliError::input(format!("--lore: {e}")))?,
        );
    }
    if a.limit > MAX_LIMIT {
        return Err(CliError::input(format!(
            "--limit {}: at most {MAX_LIMIT} counter-examples",
            a.limit
        )));
    }
    if a.json && a.markdown {
        return Err(CliError::input("--json and --markdown: choose one"));
    }
    let heat = match (a.heatmap, a.output) {
        (Some(k), Some(_)) => {
            let kind = kind_arg(k)?;
            if !theory::can_map(&claim.material, kind) {
                return Err(CliError::input(format!(
                    "--heatmap: the stronger side of {} ({}) has no {}; it can map {}",
                    claim.material,
                    claim.material.chinese(),
                    kind.name(),
                    theory::heat_kinds_text(&claim.material)
                )));
            }
            let side = match a.side {
                Some(s) => side_arg(s)?,
                None => claim.scope.side_to_move.unwrap_or(Color::Red),
            };
            Some((kind, side))
        }
        (Some(_), None) => {
            return Err(CliError::input(
                "--heatmap needs -o FILE.svg (or -o - for standard output)",
            ));
        }
        (None, Some(_)) => return Err(CliError::input("-o is for --heatmap's picture")),
        (None, None) => {
            if a.side.is_some() {
                return Err(CliError::input("--side is the heatmap's side to move"));
            }
            None
        }
    };
    claim.check_scope().map_err(CliError::input)?;
    let tb = Tablebase::with_rules(table_dir(a.dir)?, a.rules);
    generate_quietly(claim.material, &tb, a.threads)?;
    let pool = thread_pool(a.threads)?;
    let bar = progress_bar("counting");
    let report = pool
        .install(|| {
            theory::measure(
                &claim,
                &tb,
                &Request {
                    limit: a.limit,
                    heat,
                    stop: None,
                },
                &|done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                },
            )
        })
        .map_err(theory_error)?;
    bar.finish_and_clear();
    let to_stdout = a.output.as_deref().is_some_and(|o| o.as_os_str() == "-");
    if let (Some(h), Some(out)) = (&report.heat, a.output) {
        let svg = theory::heatmap_svg(&report, h, theory::Words::Both);
        if to_stdout {
            out!("{svg}");
        } else {
            write_file(out, &svg)?;
        }
    }
    if to_stdout {
        // the picture is the output
        return Ok(());
    }
    if a.json {
        super::print_json(&report)?;
    } else if a.markdown {
        out!("{}", markdown(&report));
    } else {
        print_text(&report);
    }
    if let Some(out) = a.output
        && !a.json
    {
        outln!("heatmap: {}", out.display());
    }
    Ok(())
}

fn write_file(path: &Path, text: &str) -> CliResult {
    canju::files::write_atomically(path, &[text.as_bytes()])
        .map_err(|e| super::file_error(path, &e))
}

/// Display width of a text: CJK characters take two columns.
fn width(s: &str) -> usize {
    s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

fn pad(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

fn row(label: &str, c: &Counts) -> String {
    format!(
        "  {} {:>14} {:>8.2}% {:>8.2}% {:>8.2}%",
        pad(label, 48),
        thousands(c.legal),
        c.percent(c.win),
        c.percent(c.draw),
        c.percent(c.loss)
    )
}

fn mover(c: Color) -> &'static str {
    match c {
        Color::Red => "red (the stronger side) to move",
        Color::Black => "black (the defence) to move",
    }
}

fn line_text(fen: &str, line: &[String]) -> String {
    let Ok(pos) = fen.parse::<Position>() else {
        return String::new();
    };
    let mut p = pos.clone();
    let mut moves: Vec<Move> = Vec::new();
    for t in line {
        let Ok(m) = notation::parse_move(&p, t) else {
            break;
        };
        p.play_unchecked(m);
        moves.push(m);
    }
    notation::format_line(&pos, &moves, Notation::Chinese, Style::default())
}

/// Breaks a numbered line before a move number once a line is `max` columns wide.
fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for token in text.split(' ') {
        let current = lines.last_mut().expect("one line");
        if token.ends_with('.') && width(current) > max {
            lines.push(String::new());
        }
        let current = lines.last_mut().expect("one line");
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(token);
    }
    lines
}

fn best_move_text(fen: &str, iccs: &Option<String>) -> String {
    let (Ok(pos), Some(t)) = (fen.parse::<Position>(), iccs) else {
        return "-".into();
    };
    match notation::parse_move(&pos, t) {
        Ok(m) => format!(
            "{} ({t})",
            notation::format_move(&pos, m, Notation::Chinese, Style::default())
        ),
        Err(_) => t.clone(),
    }
}

pub fn print_text(r: &Report) {
    let title = if r.claim == r.material.to_string() || r.lore_verdict.is_none() {
        format!("{} ({})", r.material_chinese, r.material)
    } else {
        format!("{} — {} ({})", r.claim, r.material_chinese, r.material)
    };
    outln!("{title}, rules: {}; defence: {}", r.rules, r.defence);
    match r.lore_verdict {
        Some(l) => outln!(
            "lore: {l} ({}) for the stronger side; scope: {} ({})",
            l.chinese(),
            r.scope,
            r.scope_chinese
        ),
        None => outln!(
            "lore: none ('{}' is a material, not a saying canju knows; --lore win|draw states one)",
            r.claim
        ),
    }
    for c in Color::ALL {
        outln!();
        outln!(
            "  {} {:>14} {:>9} {:>9} {:>9}",
            pad(mover(c), 48),
            "positions",
            "win",
            "draw",
            "loss"
        );
        if let Some(s) = r.sides.iter().find(|s| s.side_to_move == c) {
            outln!("{}", row("all", &s.counts));
        }
        for cond in r.conditions.iter().filter(|x| x.side_to_move == c) {
            outln!("{}", row(&cond.name, &cond.counts));
        }
    }
    if r.lore_verdict.is_some() {
        outln!();
        outln!(
            "{}",
            row(&format!("in scope: {}", r.scope_chinese), &r.in_scope)
        );
    }
    if let Some(l) = &r.longest {
        outln!();
        outln!(
            "longest win, red to move: {} plies ({} moves): {}",
            l.plies,
            l.plies.div_ceil(2),
            l.fen
        );
        for text in wrap(&line_text(&l.fen, &l.line), 96) {
            outln!("  {text}");
        }
    }
    if let Some(lore) = r.lore_verdict {
        outln!();
        let what = match lore {
            Lore::Draw => "wins of the stronger side where the lore says draw",
            Lore::Win => "positions the stronger side does not win where the lore says win",
        };
        outln!(
            "counter-examples in scope: {} {what}{}",
            thousands(r.counterexample_count),
            if r.counterexamples.is_empty() {
                String::new()
            } else {
                "; the most instructive first (defence at home, defence to move, longest win), one per placement of the stronger side's pieces:"
                    .to_string()
            }
        );
        for c in &r.counterexamples {
            outln!(
                "  {}  {}; best {}{}",
                c.fen,
                c.value,
                best_move_text(&c.fen, &c.best_move),
                if c.home { " [士象归位]" } else { "" }
            );
        }
    }
    outln!();
    outln!("verdict: {}", r.verdict.zh);
    outln!("         {}", r.verdict.en);
    outln!();
    outln!("definitions:");
    for d in r.definitions() {
        outln!("  - {d}");
    }
}

fn md_row(label: &str, c: &Counts) -> String {
    format!(
        "| {label} | {} | {:.2}% | {:.2}% | {:.2}% |\n",
        thousands(c.legal),
        c.percent(c.win),
        c.percent(c.draw),
        c.percent(c.loss)
    )
}

/// The report as Markdown: the verdict, a table per side to move, the longest win and the
/// counter-examples.
fn markdown(r: &Report) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "**{}** — {} (`{}`), rules: {}; defence: {}\n\n",
        r.claim, r.material_chinese, r.material, r.rules, r.defence
    ));
    s.push_str(&format!("> {}\n>\n> {}\n\n", r.verdict.zh, r.verdict.en));
    for c in Color::ALL {
        s.push_str(&format!(
            "| {} | positions | win | draw | loss |\n|---|---:|---:|---:|---:|\n",
            mover(c)
        ));
        if let Some(x) = r.sides.iter().find(|x| x.side_to_move == c) {
            s.push_str(&md_row("all", &x.counts));
        }
        for cond in r.conditions.iter().filter(|x| x.side_to_move == c) {
            s.push_str(&md_row(&cond.name, &cond.counts));
        }
        s.push('\n');
    }
    if let Some(l) = &r.longest {
        s.push_str(&format!(
            "Longest win ({} plies, red to move): `{}`\n\n",
            l.plies, l.fen
        ));
    }
    if r.lore_verdict.is_some() && !r.counterexamples.is_empty() {
        s.push_str(&format!(
            "Counter-examples in scope ({}): {} in all; the first {}:\n\n",
            r.scope_chinese,
            thousands(r.counterexample_count),
            r.counterexamples.len()
        ));
        for c in &r.counterexamples {
            s.push_str(&format!(
                "- `{}` — {}; best {}\n",
                c.fen,
                c.value,
                best_move_text(&c.fen, &c.best_move)
            ));
        }
        s.push('\n');
    }
    s
}
