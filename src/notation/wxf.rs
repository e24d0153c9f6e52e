//! WXF notation: piece letter, file (or `+`/`-` for tandem pieces), direction
//! (`+` forward, `-` back, `.` or `=` sideways), number. `C2.5`, `H8+7`, `R+.3`, `P3.4`, `3+.4`.

use crate::game::piece::Kind;
use crate::notation::Reason;
use crate::notation::describe::{Description, Direction, Selector};

fn digit(c: char) -> Option<u8> {
    c.to_digit(10).filter(|&d| d >= 1).map(|d| d as u8)
}

/// Reads a WXF move text into a description.
pub(crate) fn parse(text: &str) -> Result<Description, Reason> {
    let c: Vec<char> = text.chars().collect();
    if c.len() != 4 {
        return Err(Reason::Unreadable);
    }
    let direction = match c[2] {
        '+' => Direction::Forward,
        '-' => Direction::Backward,
        '.' | '=' => Direction::Sideways,
        _ => return Err(Reason::Unreadable),
    };
    let number = digit(c[3]).ok_or(Reason::Unreadable)?;
    let (kind, selector) = match (c[0], c[1]) {
        ('+', '+') => (Some(Kind::Soldier), Selector::Foremost),
        ('-', '-') => (Some(Kind::Soldier), Selector::Rearmost),
        (a, b) if digit(a).is_some() => {
            let file = digit(a).unwrap_or(0);
            match b {
                '+' => (None, Selector::FileFront(file)),
                '-' => (None, Selector::FileBack(file)),
                '3' => (None, Selector::FileMiddle(file)),
                _ => return Err(Reason::Unreadable),
            }
        }
        (a, b) if a.is_ascii_alphabetic() => {
            let kind = Kind::from_letter(a).ok_or_else(|| Reason::UnknownPiece(a.to_string()))?;
            let selector = match b {
                '+' => Selector::WxfPlus,
                '-' => Selector::WxfMinus,
                '3' if kind == Kind::Soldier => Selector::FileOrMiddle(3),
                _ => Selector::File(digit(b).ok_or(Reason::Unreadable)?),
            };
            (Some(kind), selector)
        }
        _ => return Err(Reason::Unreadable),
    };
    Ok(Description {
        kind,
        selector,
        direction,
        number,
    })
}

/// Writes a description in WXF.
pub(crate) fn write(d: &Description) -> String {
    let letter = d.kind.unwrap_or(Kind::Soldier).wxf_char();
    let head = match d.selector {
        Selector::File(n) | Selector::FileOrMiddle(n) => format!("{letter}{n}"),
        Selector::WxfPlus | Selector::Front => format!("{letter}+"),
        Selector::WxfMinus | Selector::Back => format!("{letter}-"),
        Selector::Foremost => "++".to_string(),
        Selector::Rearmost => "--".to_string(),
        Selector::Middle => format!("{letter}3"),
        Selector::FileFront(n) => format!("{n}+"),
        Selector::FileBack(n) => format!("{n}-"),
        Selector::FileMiddle(n) => format!("{n}3"),
        // No WXF form: spelled as the file form, which the caller's read-back rejects.
        Selector::Ordinal(k) => format!("{letter}{k}"),
    };
    let dir = match d.direction {
        Direction::Forward => '+',
        Direction::Backward => '-',
        Direction::Sideways => '.',
    };
    format!("{head}{dir}{}", d.number)
}
