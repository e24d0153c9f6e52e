//! Chinese notation: 炮二平五, 马８进７, 前车进一, 中兵平四, 二兵进一, 前七进一.
//! Simplified and traditional characters; red numbers 一..九, black 1..9 (ASCII or
//! full-width), each side counting files from its own right.

use crate::game::piece::{Color, Kind, Piece};
use crate::notation::describe::{Description, Direction, Selector};
use crate::notation::{Reason, Style};

const CHINESE_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// A number 1..9 written any way: 一..九, 1..9 or １..９.
fn numeral(c: char) -> Option<u8> {
    if let Some(i) = CHINESE_NUMERALS.iter().position(|&n| n == c) {
        return Some(i as u8 + 1);
    }
    if let Some(d) = c.to_digit(10) {
        return (d >= 1).then_some(d as u8);
    }
    let full = c as u32;
    if (0xFF11..=0xFF19).contains(&full) {
        return Some((full - 0xFF10) as u8);
    }
    None
}

fn place(c: char) -> Option<Selector> {
    match c {
        '前' => Some(Selector::Front),
        '中' => Some(Selector::Middle),
        '后' | '後' => Some(Selector::Back),
        _ => None,
    }
}

/// Reads a Chinese move text into a description.
pub(crate) fn parse(text: &str) -> Result<Description, Reason> {
    let c: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if c.len() != 4 {
        return Err(Reason::Unreadable);
    }
    let direction = match c[2] {
        '进' | '進' => Direction::Forward,
        '退' => Direction::Backward,
        '平' => Direction::Sideways,
        _ => return Err(Reason::Unreadable),
    };
    let number = numeral(c[3]).ok_or(Reason::Unreadable)?;
    let (kind, selector) = if let Some(kind) = Kind::from_chinese(c[0]) {
        // 炮二: piece then file
        let file = numeral(c[1]).ok_or(Reason::Unreadable)?;
        (Some(kind), Selector::File(file))
    } else if let Some(sel) = place(c[0]) {
        if let Some(kind) = Kind::from_chinese(c[1]) {
            (Some(kind), sel) // 前车
        } else if let Some(file) = numeral(c[1]) {
            // 前七: soldiers on two files
            let sel = match sel {
                Selector::Front => Selector::FileFront(file),
                Selector::Middle => Selector::FileMiddle(file),
                _ => Selector::FileBack(file),
            };
            (None, sel)
        } else {
            return Err(Reason::UnknownPiece(c[1].to_string()));
        }
    } else if let Some(k) = numeral(c[0]) {
        // 二兵: the k-th from the front
        let kind =
            Kind::from_chinese(c[1]).ok_or_else(|| Reason::UnknownPiece(c[1].to_string()))?;
        if k > 5 {
            return Err(Reason::Unreadable);
        }
        (Some(kind), Selector::Ordinal(k))
    } else {
        return Err(Reason::UnknownPiece(c[0].to_string()));
    };
    Ok(Description {
        kind,
        selector,
        direction,
        number,
    })
}

/// A file or step number as `color` writes it.
fn number(n: u8, color: Color, style: Style) -> char {
    match color {
        Color::Red => CHINESE_NUMERALS[n as usize - 1],
        Color::Black if style.ascii_digits => (b'0' + n) as char,
        Color::Black => char::from_u32(0xFF10 + n as u32).unwrap_or('?'),
    }
}

/// Writes a description in Chinese for the side `color`.
pub(crate) fn write(d: &Description, color: Color, style: Style) -> String {
    let piece = Piece::new(color, d.kind.unwrap_or(Kind::Soldier)).chinese();
    let head: String = match d.selector {
        Selector::File(n) | Selector::FileOrMiddle(n) => {
            format!("{piece}{}", number(n, color, style))
        }
        Selector::Front | Selector::WxfPlus | Selector::Foremost => format!("前{piece}"),
        Selector::Middle => format!("中{piece}"),
        Selector::Back | Selector::WxfMinus | Selector::Rearmost => format!("后{piece}"),
        Selector::Ordinal(k) => format!("{}{piece}", CHINESE_NUMERALS[k as usize - 1]),
        Selector::FileFront(n) => format!("前{}", number(n, color, style)),
        Selector::FileMiddle(n) => format!("中{}", number(n, color, style)),
        Selector::FileBack(n) => format!("后{}", number(n, color, style)),
    };
    let dir = match d.direction {
        Direction::Forward => '进',
        Direction::Backward => '退',
        Direction::Sideways => '平',
    };
    format!("{head}{dir}{}", number(d.number, color, style))
}
