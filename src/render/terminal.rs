//! The board as text for a terminal: Chinese characters (red in colour) with both sides'
//! file numbers, or plain ASCII letters with ICCS coordinates.

use crate::game::moves::Move;
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
    board_seen(pos, style, View::default())
}

/// [`board`] seen as `view` says (turned for black, the last move marked).
pub fn board_seen(pos: &Position, style: Style, view: View) -> String {
    let mut out = grid_seen(pos, style, view);
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
    grid_seen(pos, style, View::default())
}

/// How the board is seen: from whose side, and the move just played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The board turned, black at the bottom (a puzzle where black moves first, 黑先).
    pub black_below: bool,
    /// The last move, marked: the point it left as ＊ (`*` in letters), the piece that made
    /// it in reverse video where colours are on.
    pub last: Option<Move>,
    /// In letters: each side's file numbers too (1..9 from its own right, as WXF counts
    /// them) on its own edge, for a player who writes WXF (the Chinese board always has
    /// them).
    pub numbers: bool,
}

/// [`grid`] seen as `view` says.
pub fn grid_seen(pos: &Position, style: Style, view: View) -> String {
    if style.chinese {
        chinese(pos, style.color, view)
    } else {
        ascii(pos, style.color, view)
    }
}

/// The sides whose file numbers stand at the top and below, as seen: each on its own edge.
fn edges(view: View) -> (Color, Color) {
    if view.black_below {
        (Color::Red, Color::Black)
    } else {
        (Color::Black, Color::Red)
    }
}

/// The ranks top to bottom and the files left to right, as seen.
fn order(view: View) -> (Vec<Rank>, Vec<File>) {
    let (mut ranks, mut files): (Vec<Rank>, Vec<File>) =
        (Rank::all().rev().collect(), File::all().collect());
    if view.black_below {
        ranks.reverse();
        files.reverse();
    }
    (ranks, files)
}

/// A point's text: its piece (marked when the last move ended there) or `empty` (`left`
/// where the last move left).
fn point(
    pos: &Position,
    s: Square,
    view: View,
    text: impl Fn(crate::game::piece::Piece) -> String,
    empty: &str,
    left: &str,
    color: bool,
) -> String {
    match pos.piece_at(s) {
        Some(p) if color && view.last.is_some_and(|m| m.to() == s) => {
            format!("\x1b[7m{}\x1b[0m", text(p))
        }
        Some(p) => text(p),
        None if view.last.is_some_and(|m| m.from() == s) => left.to_string(),
        None => empty.to_string(),
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

fn chinese(pos: &Position, color: bool, view: View) -> String {
    let (ranks, files) = order(view);
    let numbers = |side: Color| -> String {
        let n: Vec<String> = files
            .iter()
            .map(|f| match side {
                Color::Red => red_numeral(f.number_for(Color::Red)).to_string(),
                Color::Black => full_width_digit(f.number_for(Color::Black)).to_string(),
            })
            .collect();
        format!(" {}\n", n.join(" "))
    };
    // each side's file numbers on its own edge, from its right
    let (top, below) = edges(view);
    let mut out = numbers(top);
    for (i, &rank) in ranks.iter().enumerate() {
        let row: Vec<String> = files
            .iter()
            .map(|&file| {
                let text = |p: crate::game::piece::Piece| {
                    paint(&glyph(p, color).to_string(), p.color, color)
                };
                point(
                    pos,
                    Square::from_coords(file, rank),
                    view,
                    text,
                    "＋",
                    "＊",
                    color,
                )
            })
            .collect();
        out.push_str(&format!(" {}  {}\n", row.join(" "), rank.index()));
        if i == 4 {
            out.push_str(if view.black_below {
                "    汉  界          楚  河\n"
            } else {
                "    楚  河          汉  界\n"
            });
        }
    }
    out.push_str(&numbers(below));
    // the coordinates' letters under the files (ICCS: a..i from red's left)
    let letters: Vec<String> = files
        .iter()
        .map(|f| char::from(b'a' + f.index()).to_string())
        .collect();
    out.push_str(&format!(" {}\n", letters.join("  ")));
    out
}

fn ascii(pos: &Position, color: bool, view: View) -> String {
    let (ranks, files) = order(view);
    let mut out = String::new();
    // each side's file numbers on its own edge, from its right
    let numbers = |side: Color| -> String {
        let n: Vec<String> = files
            .iter()
            .map(|f| f.number_for(side).to_string())
            .collect();
        format!("  {}\n", n.join(" "))
    };
    let (top, below) = edges(view);
    if view.numbers {
        out.push_str(&numbers(top));
    }
    for (i, &rank) in ranks.iter().enumerate() {
        out.push_str(&format!("{} ", rank.index()));
        let row: Vec<String> = files
            .iter()
            .map(|&file| {
                let text =
                    |p: crate::game::piece::Piece| paint(&p.fen_char().to_string(), p.color, color);
                point(
                    pos,
                    Square::from_coords(file, rank),
                    view,
                    text,
                    ".",
                    "*",
                    color,
                )
            })
            .collect();
        out.push_str(&row.join(" "));
        out.push('\n');
        if i == 4 {
            out.push_str("  ~~~~~~~~~~~~~~~~~\n");
        }
    }
    let letters: Vec<String> = files
        .iter()
        .map(|f| char::from(b'a' + f.index()).to_string())
        .collect();
    out.push_str(&format!("  {}\n", letters.join(" ")));
    if view.numbers {
        out.push_str(&numbers(below));
    }
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

    /// Turned for black, the board is the same board rotated half a turn (each row's
    /// points in the other order, the rows upside down), with its letters and numbers; the
    /// last move's point of departure is marked and the piece stands where it went.
    #[test]
    fn a_board_turned_for_black_is_rotated_and_marks_the_last_move() {
        let plain = Style {
            chinese: false,
            color: false,
        };
        let mut pos = Position::start();
        let m = Move::new("h2".parse().unwrap(), "e2".parse().unwrap());
        pos.play_unchecked(m);
        let upright = grid(&pos, plain);
        let turned = grid_seen(
            &pos,
            plain,
            View {
                black_below: true,
                last: Some(m),
                numbers: false,
            },
        );
        let points = |line: &str| -> Vec<String> {
            line.split_whitespace()
                .skip(1)
                .map(str::to_string)
                .collect()
        };
        let rows = |text: &str| -> Vec<Vec<String>> {
            text.lines()
                .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
                .map(points)
                .collect()
        };
        let mut rotated = rows(&upright);
        rotated.reverse();
        for row in &mut rotated {
            row.reverse();
        }
        let marked = rows(&turned);
        // (h2 left, marked; the cannon on e2)
        assert_eq!(marked[2][1], "*");
        assert_eq!(rotated[2][1], ".");
        rotated[2][1] = "*".to_string();
        assert_eq!(marked, rotated);
        let lines: Vec<&str> = turned.lines().collect();
        assert_eq!(lines[0], "0 R N B A K A B N R");
        assert_eq!(lines[11], "  i h g f e d c b a");
        // with each side's numbers (WXF), upright and turned: each side's on its own edge,
        // from its own right
        let numbered = |black_below| {
            grid_seen(
                &pos,
                plain,
                View {
                    black_below,
                    last: None,
                    numbers: true,
                },
            )
        };
        let upright = numbered(false);
        let lines: Vec<&str> = upright.lines().collect();
        assert_eq!(lines[0], "  1 2 3 4 5 6 7 8 9");
        assert_eq!(lines[12], "  a b c d e f g h i");
        assert_eq!(lines[13], "  9 8 7 6 5 4 3 2 1");
        let turned = numbered(true);
        let lines: Vec<&str> = turned.lines().collect();
        assert_eq!(lines[0], "  1 2 3 4 5 6 7 8 9");
        assert_eq!(lines[12], "  i h g f e d c b a");
        assert_eq!(lines[13], "  9 8 7 6 5 4 3 2 1");

        // in Chinese: red's numbers above, black's below, each from its own right
        let chinese = grid_seen(
            &pos,
            Style {
                chinese: true,
                color: false,
            },
            View {
                black_below: true,
                last: Some(m),
                numbers: false,
            },
        );
        let lines: Vec<&str> = chinese.lines().collect();
        assert_eq!(lines[0], " 一 二 三 四 五 六 七 八 九");
        assert_eq!(lines[12], " ９ ８ ７ ６ ５ ４ ３ ２ １");
        assert!(
            lines[3].contains('＊') && lines[3].ends_with(" 2"),
            "{chinese}"
        );
        assert_eq!(lines.iter().filter(|l| l.contains('＊')).count(), 1);
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
