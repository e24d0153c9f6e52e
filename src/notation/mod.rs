//! Move notation: ICCS (`h2e2`), WXF (`C2.5`) and Chinese (炮二平五), read and written.
//!
//! [`parse_move`] detects the notation by itself. WXF and Chinese texts are read into a
//! [`Description`] (which piece, which way, how far) and matched against the moves of the
//! position, so every accepted variant resolves the same way; [`format_move`] writes the
//! first preferred form that no other legal move matches (so that it reads back to the same
//! move), and [`MoveNamer`] does the same for many moves of one position.

mod chinese;
mod describe;
pub(crate) mod iccs;
mod wxf;

use std::fmt;
use std::str::FromStr;

use crate::game::moves::{Move, MoveList};
use crate::game::piece::Color;
use crate::game::position::Position;

pub use describe::{Description, Direction, Selector};

/// The notations canju reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Coordinates, `h2e2`.
    Iccs,
    /// Western Xiangqi Federation, `C2.5`.
    Wxf,
    /// Chinese, 炮二平五.
    Chinese,
}

impl Notation {
    /// The three notations.
    pub const ALL: [Notation; 3] = [Notation::Iccs, Notation::Wxf, Notation::Chinese];

    /// Its name on the command line (`iccs`, `wxf`, `chinese`).
    pub fn name(self) -> &'static str {
        match self {
            Notation::Iccs => "iccs",
            Notation::Wxf => "wxf",
            Notation::Chinese => "chinese",
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A text that names no notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown notation '{0}' (expected iccs, wxf or chinese)")]
pub struct ParseNotationError(pub String);

impl FromStr for Notation {
    type Err = ParseNotationError;
    fn from_str(s: &str) -> Result<Notation, ParseNotationError> {
        match s.to_ascii_lowercase().as_str() {
            "iccs" | "ucci" => Ok(Notation::Iccs),
            "wxf" => Ok(Notation::Wxf),
            "chinese" | "cn" | "zh" => Ok(Notation::Chinese),
            _ => Err(ParseNotationError(s.to_string())),
        }
    }
}

/// Options for writing moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Black's numbers in ASCII (马8进7) instead of full-width (马８进７).
    pub ascii_digits: bool,
}

/// Why a move text was not accepted, with the text itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}': {reason}")]
pub struct NotationError {
    /// The text as given.
    pub text: String,
    /// Why it was not accepted.
    pub reason: Reason,
}

/// What is wrong with a move text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Reason {
    #[error("not a move in ICCS (h2e2), WXF (C2.5) or Chinese (炮二平五) notation")]
    /// Not a move in any notation.
    Unreadable,
    #[error("'{0}' is not a piece")]
    /// Names no piece.
    UnknownPiece(String),
    #[error("{0}")]
    /// No piece of the side to move stands where the text says.
    NoSuchPiece(String),
    #[error("illegal here: {0}")]
    /// The move breaks the rules here.
    Illegal(String),
    #[error("ambiguous: it could be {}", .0.join(", "))]
    /// More than one move fits the text: these.
    Ambiguous(Vec<String>),
}

/// Reads a move in any notation (detected from the text) and checks it is legal here.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let t = text.trim();
    let err = |reason| NotationError {
        text: text.to_string(),
        reason,
    };
    if let Some(m) = iccs::parse(t) {
        return check_legal(pos, m).map_err(err);
    }
    let desc = if t.is_ascii() {
        wxf::parse(t)
    } else {
        chinese::parse(t)
    };
    let desc = desc.map_err(err)?;
    describe::resolve(pos, &desc).map_err(err)
}

/// Reads a move in one given notation.
pub fn parse_move_as(
    pos: &Position,
    text: &str,
    notation: Notation,
) -> Result<Move, NotationError> {
    let t = text.trim();
    let err = |reason| NotationError {
        text: text.to_string(),
        reason,
    };
    match notation {
        Notation::Iccs => {
            let m = iccs::parse(t).ok_or(Reason::Unreadable).map_err(err)?;
            check_legal(pos, m).map_err(err)
        }
        Notation::Wxf => describe::resolve(pos, &wxf::parse(t).map_err(err)?).map_err(err),
        Notation::Chinese => describe::resolve(pos, &chinese::parse(t).map_err(err)?).map_err(err),
    }
}

/// Writes a legal move of `pos` in a notation (a move that is not legal is written in
/// ICCS). To write many moves of one position, [`MoveNamer`] generates its moves once.
pub fn format_move(pos: &Position, m: Move, notation: Notation, style: Style) -> String {
    match notation {
        Notation::Iccs => m.to_string(),
        _ => MoveNamer::new(pos).name(m, notation, style),
    }
}

/// Writes moves of one position: its legal moves, and what the notations can say of each,
/// are found once (a probe names every move of a position in two notations).
pub struct MoveNamer<'a> {
    pos: &'a Position,
    legal: Vec<(Move, describe::Facts)>,
}

impl<'a> MoveNamer<'a> {
    /// A namer for the moves of `pos`.
    pub fn new(pos: &'a Position) -> MoveNamer<'a> {
        let legal = pos
            .legal_moves()
            .iter()
            .map(|&m| (m, describe::facts(pos, m)))
            .collect();
        MoveNamer { pos, legal }
    }

    /// A legal move of the position in a notation, as [`format_move`] writes it.
    pub fn name(&self, m: Move, notation: Notation, style: Style) -> String {
        let pos = self.pos;
        match notation {
            Notation::Iccs => m.to_string(),
            Notation::Wxf => describe::write_unique(pos, &self.legal, m, wxf::write, notation),
            Notation::Chinese => describe::write_unique(
                pos,
                &self.legal,
                m,
                |d| chinese::write(d, pos.turn(), style),
                notation,
            ),
        }
    }
}

/// Writes a line of legal moves from `pos`, numbered in pairs from its first move
/// ("1. 车一进一 将5平4 2. …").
pub fn format_line(pos: &Position, moves: &[Move], notation: Notation, style: Style) -> String {
    let mut p = pos.clone();
    let mut text = String::new();
    for (i, &m) in moves.iter().enumerate() {
        if i % 2 == 0 {
            if i > 0 {
                text.push(' ');
            }
            text.push_str(&format!("{}. ", i / 2 + 1));
        } else {
            text.push(' ');
        }
        text.push_str(&format_move(&p, m, notation, style));
        p.play_unchecked(m);
    }
    text
}

fn check_legal(pos: &Position, m: Move) -> Result<Move, Reason> {
    let Some(piece) = pos.piece_at(m.from()) else {
        return Err(Reason::NoSuchPiece(format!("no piece on {}", m.from())));
    };
    if piece.color != pos.turn() {
        return Err(Reason::Illegal(format!(
            "the piece on {} is {}'s, and {} is to move",
            m.from(),
            piece.color,
            pos.turn()
        )));
    }
    let mut pseudo = MoveList::new();
    pos.pseudo_moves(&mut pseudo);
    if !pseudo.contains(&m) {
        return Err(Reason::Illegal(format!(
            "the {} on {} cannot move to {}",
            piece.kind.name(),
            m.from(),
            m.to()
        )));
    }
    if !pos.is_legal_pseudo(m) {
        return Err(Reason::Illegal(why_illegal(pos, m)));
    }
    Ok(m)
}

/// Explains why a pseudo-legal move is not legal: facing generals or check.
pub(crate) fn why_illegal(pos: &Position, m: Move) -> String {
    let mut after = pos.clone();
    after.play_unchecked(m);
    let us: Color = pos.turn();
    if after.generals_facing() {
        format!("{m} leaves the generals facing each other (flying general)")
    } else if pos.is_check() {
        format!("{m} does not answer the check on {us}'s general")
    } else {
        format!("{m} leaves {us}'s general in check")
    }
}

#[cfg(test)]
mod tests;
