//! FEN: reading (strict, with a one-line reason for every rejection) and writing.
//!
//! Reads `B`/`E` for elephants and `N`/`H` for horses, side `w`/`r`/`b`, and the optional
//! trailing fields (`- - halfmoves fullmoves`). Writes the standard letters K A B N R C P.

use std::fmt;
use std::str::FromStr;

use crate::game::piece::{Color, Piece};
use crate::game::position::{Position, PositionError, validate};
use crate::game::square::{File, Rank, Square};

/// Why a FEN was rejected: its text could not be read, or it reads as a position that
/// cannot be played ([`PositionError`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Nothing but white space.
    #[error("empty FEN")]
    Empty,
    #[error("FEN is not valid UTF-8 at byte {0}")]
    /// FEN text that is not UTF-8: the byte where it stops being.
    NotUtf8(usize),
    #[error("FEN board has {0} ranks, expected 10 separated by '/'")]
    /// The board field does not have ten ranks.
    RankCount(usize),
    #[error("FEN rank {rank} has {files} files, expected 9")]
    /// A rank that does not add up to nine files.
    FileCount {
        /// The rank (9 first).
        rank: u8,
        /// Its files as written.
        files: usize,
    },
    #[error(
        "FEN rank {rank}: unknown piece letter '{letter}' (expected K A B/E N/H R C P, upper case red, lower case black, or digits 1-9)"
    )]
    /// A character that is no piece and no digit.
    UnknownLetter {
        /// The rank it is on.
        rank: u8,
        /// The character.
        letter: char,
    },
    #[error("FEN side to move '{0}' is not w, r or b")]
    /// A side to move other than w, r or b.
    Side(String),
    #[error("FEN field {field} '{text}' is not {expected}")]
    /// A trailing field that is not what FEN puts there.
    Field {
        /// The field's number, from 1.
        field: usize,
        /// Its text.
        text: String,
        /// What it should be.
        expected: &'static str,
    },
    #[error("FEN has {0} fields, at most 6 expected")]
    /// More than six fields.
    TooManyFields(usize),
    /// The text reads, but the position it gives cannot be played.
    #[error(transparent)]
    Position(#[from] PositionError),
}

impl FromStr for Position {
    type Err = FenError;

    fn from_str(s: &str) -> Result<Position, FenError> {
        parse(s)
    }
}

/// Reads a FEN from raw bytes (a command line argument may not be UTF-8).
pub fn parse_bytes(bytes: &[u8]) -> Result<Position, FenError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => parse(s),
        Err(e) => Err(FenError::NotUtf8(e.valid_up_to())),
    }
}

/// Reads a FEN string.
pub fn parse(fen: &str) -> Result<Position, FenError> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.is_empty() {
        return Err(FenError::Empty);
    }
    if fields.len() > 6 {
        return Err(FenError::TooManyFields(fields.len()));
    }
    let board = parse_board(fields[0])?;
    let turn = match fields.get(1).copied() {
        None | Some("w") | Some("r") | Some("W") | Some("R") => Color::Red,
        Some("b") | Some("B") => Color::Black,
        Some(other) => return Err(FenError::Side(other.to_string())),
    };
    for (i, f) in fields.iter().enumerate().skip(2).take(2) {
        if *f != "-" {
            return Err(FenError::Field {
                field: i + 1,
                text: f.to_string(),
                expected: "'-'",
            });
        }
    }
    let number = |i: usize, default: u32, min: u32| -> Result<u32, FenError> {
        match fields.get(i) {
            None => Ok(default),
            Some(t) => t
                .parse::<u32>()
                .ok()
                .filter(|&n| n >= min && n <= crate::game::position::MAX_MOVE_COUNTER)
                .ok_or_else(|| FenError::Field {
                    field: i + 1,
                    text: t.to_string(),
                    expected: if min == 0 {
                        "a ply count from 0 to 999999"
                    } else {
                        "a move number from 1 to 999999"
                    },
                }),
        }
    };
    let halfmoves = number(4, 0, 0)?;
    let fullmoves = number(5, 1, 1)?;
    Ok(validate(board, turn, halfmoves, fullmoves)?)
}

fn parse_board(text: &str) -> Result<[Option<Piece>; 90], FenError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != 10 {
        return Err(FenError::RankCount(rows.len()));
    }
    let mut board = [None; 90];
    for (i, row) in rows.iter().enumerate() {
        let rank = 9 - i as u8;
        let mut file = 0usize;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10).filter(|&d| d >= 1) {
                file += d as usize;
            } else if let Some(p) = Piece::from_fen_char(c).filter(|_| c.is_ascii_alphabetic()) {
                if file < 9 {
                    board[rank as usize * 9 + file] = Some(p);
                }
                file += 1;
            } else {
                return Err(FenError::UnknownLetter { rank, letter: c });
            }
            if file > 9 {
                break;
            }
        }
        if file != 9 {
            return Err(FenError::FileCount { rank, files: file });
        }
    }
    Ok(board)
}

/// Writes the FEN of a position (standard letters, `w`/`b`, all six fields).
pub fn write(pos: &Position) -> String {
    let mut out = String::with_capacity(80);
    for rank in Rank::all().rev() {
        let mut empty = 0;
        for file in File::all() {
            match pos.piece_at(Square::from_coords(file, rank)) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        out.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    out.push(p.fen_char());
                }
            }
        }
        if empty > 0 {
            out.push((b'0' + empty) as char);
        }
        if rank.index() > 0 {
            out.push('/');
        }
    }
    out.push_str(match pos.turn() {
        Color::Red => " w",
        Color::Black => " b",
    });
    out.push_str(&format!(" - - {} {}", pos.halfmoves(), pos.fullmoves()));
    out
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::position::START_FEN;

    fn err(fen: &str) -> String {
        parse(fen).unwrap_err().to_string()
    }

    #[test]
    fn start_position_round_trips() {
        let p: Position = START_FEN.parse().unwrap();
        assert_eq!(p.to_string(), START_FEN);
        assert_eq!(p.turn(), Color::Red);
    }

    #[test]
    fn alternative_letters_and_sides() {
        let a: Position = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r"
            .parse()
            .unwrap();
        assert_eq!(a.to_string(), START_FEN);
        let b: Position = "4k4/9/9/9/9/9/9/9/9/3K5 b".parse().unwrap();
        assert_eq!(b.turn(), Color::Black);
        assert_eq!(b.to_string(), "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1");
    }

    #[test]
    fn rejections_say_why() {
        assert_eq!(err(""), "empty FEN");
        assert!(err("4k4/9/9").contains("3 ranks"));
        assert!(err("4k4/10/9/9/9/9/9/9/9/4K4 w").contains("unknown piece letter '0'"));
        assert!(err("4k4/8/9/9/9/9/9/9/9/3K5 w").contains("rank 8 has 8 files"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/3X5 w").contains("unknown piece letter 'X'"));
        assert!(err("9/9/9/9/9/9/9/9/9/3K5 w").contains("black has no general"));
        assert!(err("3kk4/9/9/9/9/9/9/9/9/3K5 w").contains("black has 2 generals"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/K8 w").contains("red general on a0"));
        assert!(parse("4k4/9/9/9/9/9/9/9/4A4/3K5 w").is_ok());
        assert!(err("4k4/9/9/9/9/9/9/9/9/3KA4 w").contains("red advisor on e0"));
        assert!(err("4k4/9/9/9/9/9/9/9/B8/3K5 w").contains("red elephant on a1"));
        // a soldier where no game puts it is a composition's placement, read as set
        assert!(parse("4k4/9/9/9/9/9/9/9/P8/3K5 w").is_ok());
        assert!(parse("4k4/9/9/9/9/9/1P7/9/9/3K5 w").is_ok());
        assert!(err("4k4/9/9/9/9/9/9/9/9/4K4 w").contains("generals face"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/3K5 x").contains("side to move 'x'"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/3K5 w - - x 1").contains("field 5"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 0").contains("field 6"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 extra").contains("7 fields"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/RRR1K4 w").contains("red has 3 chariots, at most 2"));
        // black in check with red to move
        assert!(
            err("4k4/9/9/9/9/9/9/9/4R4/3K5 w").contains("black is in check, but red is to move")
        );
        assert!(parse("4k4/9/9/9/9/9/9/9/4R4/3K5 b").is_ok());
    }

    #[test]
    fn non_utf8_is_an_error() {
        assert_eq!(parse_bytes(b"4k4/\xff").unwrap_err(), FenError::NotUtf8(4));
    }
}
