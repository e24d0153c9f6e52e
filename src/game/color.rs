//! The two sides, [`Color`].

use std::fmt;
use std::ops::Not;

/// The two sides. Red moves first and sits on ranks 0..4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Color {
    /// 红: moves first, from ranks 0..4.
    Red = 0,
    /// 黑: from ranks 5..9.
    Black = 1,
}

impl Color {
    /// Both sides, red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// 0 for red, 1 for black: an index into per-side arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other side.
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// The rank direction in which this side's soldiers advance (+1 for red).
    pub const fn forward(self) -> i8 {
        match self {
            Color::Red => 1,
            Color::Black => -1,
        }
    }

    /// The side's name in English, lower case (as used in JSON).
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }

    /// The side's name in Chinese (红 / 黑).
    pub const fn chinese(self) -> &'static str {
        match self {
            Color::Red => "红",
            Color::Black => "黑",
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
