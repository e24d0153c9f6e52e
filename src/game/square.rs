//! Points of the board: [`File`], [`Rank`] and [`Square`], with ICCS names.
//!
//! Files `a`..`i` run left to right as red sees the board, ranks `0`..`9` from red's
//! back rank to black's. A square's index is `rank * 9 + file` (a0 = 0, i9 = 89).

use std::fmt;
use std::str::FromStr;

use super::color::Color;

/// A file (column), `a`..`i` from red's left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct File(u8);

/// A rank (row), `0`..`9` from red's back rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

/// One of the 90 points of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl File {
    /// Files on the board.
    pub const COUNT: usize = 9;

    /// The file with this index (0 = `a`), if it exists.
    pub const fn new(index: u8) -> Option<File> {
        if index < 9 { Some(File(index)) } else { None }
    }

    /// 0 for file a .. 8 for file i.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The file seen in a mirror (a ↔ i).
    pub const fn mirror(self) -> File {
        File(8 - self.0)
    }

    /// The file number a player of `color` uses: 1..9 counted from that player's right.
    pub const fn number_for(self, color: Color) -> u8 {
        match color {
            Color::Red => 9 - self.0,
            Color::Black => self.0 + 1,
        }
    }

    /// The file that a player of `color` calls `number` (1..9 from that player's right).
    pub const fn from_number(color: Color, number: u8) -> Option<File> {
        if number == 0 || number > 9 {
            return None;
        }
        Some(match color {
            Color::Red => File(9 - number),
            Color::Black => File(number - 1),
        })
    }

    /// Its letter, `a`..`i`.
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }

    /// Every file, a first.
    pub fn all() -> impl DoubleEndedIterator<Item = File> + Clone {
        (0..9).map(File)
    }
}

impl Rank {
    /// Ranks on the board.
    pub const COUNT: usize = 10;

    /// The rank of an index 0..9.
    pub const fn new(index: u8) -> Option<Rank> {
        if index < 10 { Some(Rank(index)) } else { None }
    }

    /// 0 for red's back rank .. 9 for black's.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The rank seen from the other side of the board (0 ↔ 9).
    pub const fn flip(self) -> Rank {
        Rank(9 - self.0)
    }

    /// The rank counted from `color`'s own back rank (0..9).
    pub const fn relative_to(self, color: Color) -> u8 {
        match color {
            Color::Red => self.0,
            Color::Black => 9 - self.0,
        }
    }

    /// Its digit, `0`..`9`.
    pub const fn char(self) -> char {
        (b'0' + self.0) as char
    }

    /// Every rank, 0 first.
    pub fn all() -> impl DoubleEndedIterator<Item = Rank> + Clone {
        (0..10).map(Rank)
    }
}

impl Square {
    /// Points on the board.
    pub const COUNT: usize = 90;

    /// The point of a file and a rank.
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 9 + file.0)
    }

    /// The square with this index (0..90), if it exists.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 90 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// # Safety-free contract
    /// `index` must be below 90; checked in debug builds.
    pub(crate) const fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 90);
        Square(index)
    }

    /// `rank * 9 + file`: 0 (a0) .. 89 (i9).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Its file.
    pub const fn file(self) -> File {
        File(self.0 % 9)
    }

    /// Its rank.
    pub const fn rank(self) -> Rank {
        Rank(self.0 / 9)
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = (self.0 % 9) as i8 + df;
        let r = (self.0 / 9) as i8 + dr;
        if f >= 0 && f < 9 && r >= 0 && r < 10 {
            Some(Square((r * 9 + f) as u8))
        } else {
            None
        }
    }

    /// Left-right mirror image (a ↔ i, rank kept).
    pub const fn mirror(self) -> Square {
        Square::from_coords(self.file().mirror(), self.rank())
    }

    /// Seen from the other side: ranks flipped, file kept (used for the colour flip).
    pub const fn flip(self) -> Square {
        Square::from_coords(self.file(), self.rank().flip())
    }

    /// Whether the square lies in `color`'s half of the board (before the river for that side).
    pub const fn on_own_half(self, color: Color) -> bool {
        self.rank().relative_to(color) <= 4
    }

    /// Whether the square lies in `color`'s palace.
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.0 % 9;
        f >= 3 && f <= 5 && self.rank().relative_to(color) <= 2
    }

    /// Every point, a0 first, rank by rank.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator + Clone {
        (0..90).map(Square)
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

/// A square name that is not `a0`..`i9`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a square (expected a file a-i and a rank 0-9, like e0)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() == 2 {
            let f = b[0].to_ascii_lowercase();
            if (b'a'..=b'i').contains(&f) && b[1].is_ascii_digit() {
                return Ok(Square((b[1] - b'0') * 9 + (f - b'a')));
            }
        }
        Err(ParseSquareError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
        assert_eq!("a0".parse::<Square>().unwrap().index(), 0);
        assert_eq!("i9".parse::<Square>().unwrap().index(), 89);
        assert_eq!("E2".parse::<Square>().unwrap().to_string(), "e2");
        assert!("j0".parse::<Square>().is_err());
        assert!("a10".parse::<Square>().is_err());
    }

    #[test]
    fn mirror_and_flip_are_involutions() {
        for sq in Square::all() {
            assert_eq!(sq.mirror().mirror(), sq);
            assert_eq!(sq.flip().flip(), sq);
        }
        assert_eq!("a0".parse::<Square>().unwrap().mirror().to_string(), "i0");
        assert_eq!("a0".parse::<Square>().unwrap().flip().to_string(), "a9");
    }

    #[test]
    fn file_numbers_from_each_side() {
        let a = File::new(0).unwrap();
        assert_eq!(a.number_for(Color::Red), 9);
        assert_eq!(a.number_for(Color::Black), 1);
        for f in File::all() {
            for c in [Color::Red, Color::Black] {
                assert_eq!(File::from_number(c, f.number_for(c)), Some(f));
            }
        }
    }

    #[test]
    fn palaces() {
        let inside: Vec<String> = Square::all()
            .filter(|s| s.in_palace(Color::Black))
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            inside,
            ["d7", "e7", "f7", "d8", "e8", "f8", "d9", "e9", "f9"]
        );
    }
}
