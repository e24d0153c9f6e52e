//! `canju moves`, `canju apply`, `canju show` and the default job.

use std::ffi::OsString;
use std::io::IsTerminal;

use canju::game::threat;
use canju::notation::{self, Notation, Style};
use canju::render::terminal;

use super::{CliError, CliResult, position_arg};

pub fn board_style(ascii: bool) -> terminal::Style {
    let tty = std::io::stdout().is_terminal();
    // NO_COLOR (no-color.org): Chinese characters still, the sides told apart by 俥/車
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    terminal::Style {
        chinese: !ascii && tty,
        color: tty && !no_color,
    }
}

pub fn show(fen: &Option<OsString>, ascii: bool) -> CliResult {
    let pos = position_arg(fen)?;
    out!("{}", terminal::board(&pos, board_style(ascii)));
    if let Some(u) = pos.unreachable_piece() {
        outln!("a composed position: {u}");
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct MoveTexts {
    iccs: String,
    wxf: String,
    chinese: String,
    #[serde(flatten)]
    attack: threat::AttackReport,
}

/// A move's attack in a few words: "捉 马 c5", "将", "闲".
fn attack_words(a: &threat::Attack) -> String {
    let mut s = a.kind().chinese().to_string();
    for c in &a.chases {
        s.push_str(&format!(" {}{}", c.piece.chinese(), c.target));
    }
    s
}

pub fn moves(
    fen: &Option<OsString>,
    notation: Notation,
    ascii_digits: bool,
    attacks: bool,
    json: bool,
) -> CliResult {
    let pos = position_arg(fen)?;
    let style = Style { ascii_digits };
    let legal = pos.legal_moves();
    let namer = notation::MoveNamer::new(&pos);
    if json {
        let list: Vec<MoveTexts> = legal
            .iter()
            .map(|&m| MoveTexts {
                iccs: namer.name(m, Notation::Iccs, style),
                wxf: namer.name(m, Notation::Wxf, style),
                chinese: namer.name(m, Notation::Chinese, style),
                attack: threat::attack_of(&pos, m).report(),
            })
            .collect();
        super::print_json(&list)?;
    } else {
        for &m in legal.iter() {
            let name = namer.name(m, notation, style);
            if attacks {
                outln!("{name}  {}", attack_words(&threat::attack_of(&pos, m)));
            } else {
                outln!("{name}");
            }
        }
    }
    Ok(())
}

pub fn apply(fen: &Option<OsString>, moves: &[String]) -> CliResult {
    let mut pos = position_arg(fen)?;
    for (i, text) in moves.iter().enumerate() {
        let m = notation::parse_move(&pos, text)
            .map_err(|e| CliError::input(format!("move {} {e}", i + 1)))?;
        pos.play_unchecked(m);
    }
    outln!("{pos}");
    Ok(())
}

/// `canju diagram`: an SVG picture of a position, to a file (`-` for standard output).
pub fn diagram(
    fen: &Option<OsString>,
    output: &std::path::Path,
    arrows: &[String],
    marks: &[String],
    flip: bool,
) -> CliResult {
    let pos = position_arg(fen)?;
    let mut options = canju::render::svg::Options {
        flip,
        ..Default::default()
    };
    for a in arrows {
        let m = notation::parse_move(&pos, a)
            .or_else(|_| {
                // an arrow may show a move of the side not to move, or any step in ICCS
                let t = a.trim();
                let sq = |s: &str| s.parse::<canju::Square>().ok();
                match (t.get(0..2).and_then(sq), t.get(2..4).and_then(sq)) {
                    (Some(f), Some(to)) if t.len() == 4 => Ok(canju::Move::new(f, to)),
                    _ => Err(()),
                }
            })
            .map_err(|_| {
                CliError::input(format!(
                    "--arrow '{a}': not a move here (any notation) nor two points like h2e2"
                ))
            })?;
        options.arrows.push(m);
    }
    for m in marks {
        let s = m.trim().parse::<canju::Square>().map_err(|_| {
            CliError::input(format!(
                "--mark '{m}': a point like e9 (file a-i, rank 0-9)"
            ))
        })?;
        options.marks.push(s);
    }
    let svg = canju::render::svg::diagram(&pos, &options);
    if output.as_os_str() == "-" {
        out!("{svg}");
        return Ok(());
    }
    canju::files::write_atomically(output, &[svg.as_bytes()])
        .map_err(|e| super::file_error(output, &e))?;
    outln!("{}", output.display());
    Ok(())
}
