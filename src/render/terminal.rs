//! The board as text for a terminal: Chinese characters (red in colour) with both sides'
//! file numbers, or plain ASCII letters with ICCS coordinates.

use crate::game::piece::Color;
use crate::game::position::Position;
use crate::game::square::{File, Rank, Square};

/// How to draw the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Chinese characters and file numbers (otherwise FEN letters and ICCS coordinates).
    pub chinese: bool,
    /// ANSI colours (red pieces red, black pieces bold).
    pub color: bool,
}

const RED_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const FULL_WIDTH_DIGITS: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];

/// Red's file number as a Chinese numeral (1 → 一).
pub fn red_numeral(n: u8) -> char {
    RED_NUMERALS[n as usize - 1]
}

/// Black's file number as a full-width digit (1 → １).
pub fn full_width_digit(n: u8) -> char {
    FULL_WIDTH_DIGITS[n as usize - 1]
}

/// Draws the board, black at the top, with a line saying who is to move (in Chinese with
/// Chinese characters, in English with ASCII letters).
pub fn board(pos: &Position, style: Style) -> String {
    let mut out = grid(pos, style);
    out.push_str(match (style.chinese, pos.turn()) {
        (true, Color::Red) => "红方走棋\n",
        (true, Color::Black) => "黑方走棋\n",
        (false, Color::Red) => "red to move\n",
        (false, Color::Black) => "black to move\n",
    });
    out
}

/// The board alone, black at the top, without the line saying who is to move (for a caller
/// that says it in its own language).
pub fn grid(pos: &Position, style: Style) -> String {
    if style.chinese {
        chinese(pos, style.color)
    } else {
        ascii(pos, style.color)
    }
}

fn paint(text: &str, color: Color, on: bool) -> String {
    if !on {
        return text.to_string();
    }
    match color {
        Color::Red => format!("\x1b[1;31m{text}\x1b[0m"),
        Color::Black => format!("\x1b[1;37;40m{text}\x1b[0m"),
    }
}

/// A piece's character: without colour, red's chariot, horse and cannon are written 俥 傌
/// 炮 and black's 車 馬 砲, so that the sides are told apart (the other pieces differ by
/// side already: 帅/将, 仕/士, 相/象, 兵/卒).
fn glyph(p: crate::game::piece::Piece, color: bool) -> char {
    use crate::game::piece::Kind;
    if color {
        return p.chinese();
    }
    match (p.color, p.kind) {
        (Color::Red, Kind::Chariot) => '俥',
        (Color::Red, Kind::Horse) => '傌',
        (Color::Red, Kind::Cannon) => '炮',
        (Color::Black, Kind::Chariot) => '車',
        (Color::Black, Kind::Horse) => '馬',
        (Color::Black, Kind::Cannon) => '砲',
        _ => p.chinese(),
    }
}

fn chinese(pos: &Position, color: bool) -> String {
    let mut out = String::new();
    // black's numbers, from black's right (file a) : 1..9 left to right
    let top: Vec<String> = File::all()
        .map(|f| full_width_digit(f.number_for(Color::Black)).to_string())
        .collect();
    out.push_str(&format!(" {}\n", top.join(" ")));
    for rank in Rank::all().rev() {
        let mut row = Vec::with_capacity(9);
        for file in File::all() {
            let s = Square::from_coords(file, rank);
            row.push(match pos.piece_at(s) {
                Some(p) => paint(&glyph(p, color).to_string(), p.color, color),
                None => "＋".to_string(),
            });
        }
        out.push_str(&format!(" {}  {}\n", row.join(" "), rank.index()));
        if rank.index() == 5 {
            out.push_str("    楚  河          汉  界\n");
        }
    }
    let bottom: Vec<String> = File::all()
        .map(|f| red_numeral(f.number_for(Color::Red)).to_string())
        .collect();
    out.push_str(&format!(" {}\n", bottom.join(" ")));
    // the coordinates' letters under the files (ICCS: a..i from red's left)
    let letters: Vec<String> = File::all()
        .map(|f| char::from(b'a' + f.index()).to_string())
        .collect();
    out.push_str(&format!(" {}\n", letters.join("  ")));
    out
}

fn ascii(pos: &Position, color: bool) -> String {
    let mut out = String::new();
    for rank in Rank::all().rev() {
        out.push_str(&format!("{} ", rank.index()));
        for file in File::all() {
            let s = Square::from_coords(file, rank);
            match pos.piece_at(s) {
                Some(p) => out.push_str(&paint(&p.fen_char().to_string(), p.color, color)),
                None => out.push('.'),
            }
            if file.index() < 8 {
                out.push(' ');
            }
        }
        out.push('\n');
        if rank.index() == 5 {
            out.push_str("  ~~~~~~~~~~~~~~~~~\n");
        }
    }
    out.push_str("  a b c d e f g h i\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_start_board() {
        let s = board(
            &Position::start(),
            Style {
                chinese: false,
                color: false,
            },
        );
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "9 r n b a k a b n r");
        assert_eq!(lines[11], "  a b c d e f g h i");
        assert_eq!(lines[12], "red to move");
    }

    #[test]
    fn chinese_start_board() {
        let s = board(
            &Position::start(),
            Style {
                chinese: true,
                color: false,
            },
        );
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], " １ ２ ３ ４ ５ ６ ７ ８ ９");
        assert_eq!(lines[6], "    楚  河          汉  界");
        assert_eq!(lines[12], " 九 八 七 六 五 四 三 二 一");
        assert_eq!(lines[13], " a  b  c  d  e  f  g  h  i");
        assert_eq!(lines[14], "红方走棋");
        // without colour, the sides' chariots, horses and cannons differ
        assert_eq!(lines[1], " 車 馬 象 士 将 士 象 馬 車  9");
        assert_eq!(lines[3], " ＋ 砲 ＋ ＋ ＋ ＋ ＋ 砲 ＋  7");
        assert_eq!(lines[9], " ＋ 炮 ＋ ＋ ＋ ＋ ＋ 炮 ＋  2");
        assert_eq!(lines[11], " 俥 傌 相 仕 帅 仕 相 傌 俥  0");
        // in colour, the usual simplified characters
        let s = board(
            &Position::start(),
            Style {
                chinese: true,
                color: true,
            },
        );
        assert!(s.contains("车") && !s.contains("俥"));
    }
}
