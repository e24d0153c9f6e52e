//! `canju moves`, `canju apply`, `canju show` and the default job.

use std::ffi::OsString;
use std::io::IsTerminal;

use canju::notation::{self, Notation, Style};
use canju::render::terminal;

use super::{CliError, CliResult, position_arg};

pub fn board_style(ascii: bool) -> terminal::Style {
    let tty = std::io::stdout().is_terminal();
    terminal::Style {
        chinese: !ascii && tty,
        color: tty,
    }
}

pub fn show(fen: &Option<OsString>, ascii: bool) -> CliResult {
    let pos = position_arg(fen)?;
    out!("{}", terminal::board(&pos, board_style(ascii)));
    Ok(())
}

#[derive(serde::Serialize)]
struct MoveTexts {
    iccs: String,
    wxf: String,
    chinese: String,
}

pub fn moves(
    fen: &Option<OsString>,
    notation: Notation,
    ascii_digits: bool,
    json: bool,
) -> CliResult {
    let pos = position_arg(fen)?;
    let style = Style { ascii_digits };
    let legal = pos.legal_moves();
    if json {
        let list: Vec<MoveTexts> = legal
            .iter()
            .map(|&m| MoveTexts {
                iccs: notation::format_move(&pos, m, Notation::Iccs, style),
                wxf: notation::format_move(&pos, m, Notation::Wxf, style),
                chinese: notation::format_move(&pos, m, Notation::Chinese, style),
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&list).map_err(CliError::input)?
        );
    } else {
        for &m in legal.iter() {
            outln!("{}", notation::format_move(&pos, m, notation, style));
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
