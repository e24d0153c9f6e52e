//! Pieces: [`Kind`] and [`Piece`] (a kind of a [`Color`]).

use std::fmt;

pub use super::color::Color;
use super::square::Square;

/// The seven kinds of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// 将/帅: stays in its palace.
    General = 0,
    /// 士/仕: diagonal steps in the palace.
    Advisor = 1,
    /// 象/相: two diagonal steps on its own half, unless blocked at the eye.
    Elephant = 2,
    /// 马: one step straight then one diagonal, unless its leg is blocked.
    Horse = 3,
    /// 车: slides along files and ranks.
    Chariot = 4,
    /// 炮: slides to move, jumps one piece to capture.
    Cannon = 5,
    /// 兵/卒: forward; sideways too once across the river.
    Soldier = 6,
}

impl Kind {
    /// Every kind, general first.
    pub const ALL: [Kind; 7] = [
        Kind::General,
        Kind::Advisor,
        Kind::Elephant,
        Kind::Horse,
        Kind::Chariot,
        Kind::Cannon,
        Kind::Soldier,
    ];

    /// 0 for the general .. 6 for the soldier: an index into per-kind arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The most pieces of this kind a side starts with.
    pub const fn max_count(self) -> u8 {
        match self {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }

    /// The FEN letter (upper case): K A B N R C P.
    pub const fn fen_char(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'B',
            Kind::Horse => 'N',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
        }
    }

    /// The WXF letter: K A E H R C P.
    pub const fn wxf_char(self) -> char {
        match self {
            Kind::Elephant => 'E',
            Kind::Horse => 'H',
            _ => self.fen_char(),
        }
    }

    /// Reads a FEN or WXF letter, either case (`B`/`E` elephant, `N`/`H` horse).
    pub const fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_uppercase() {
            'K' => Kind::General,
            'A' => Kind::Advisor,
            'B' | 'E' => Kind::Elephant,
            'N' | 'H' => Kind::Horse,
            'R' => Kind::Chariot,
            'C' => Kind::Cannon,
            'P' => Kind::Soldier,
            _ => return None,
        })
    }

    /// Reads a Chinese piece character, simplified or traditional, either side's form.
    pub fn from_chinese(c: char) -> Option<Kind> {
        Some(match c {
            '帅' | '帥' | '将' | '將' => Kind::General,
            '仕' | '士' => Kind::Advisor,
            '相' | '象' => Kind::Elephant,
            '马' | '馬' | '傌' => Kind::Horse,
            '车' | '車' | '俥' => Kind::Chariot,
            '炮' | '砲' | '包' => Kind::Cannon,
            '兵' | '卒' => Kind::Soldier,
            _ => return None,
        })
    }

    /// Reads a kind as a person writes it: a letter (K R N H C P A B E, any case), a
    /// Chinese character of either side, or an English name (horse, soldier …).
    pub fn from_name(text: &str) -> Option<Kind> {
        let t = text.trim();
        let mut chars = t.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Kind::from_letter(c.to_ascii_uppercase()).or(Kind::from_chinese(c));
        }
        Kind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(t))
    }

    /// Straight movers (general, chariot, cannon, soldier) count steps when moving
    /// forward or back; the others (advisor, elephant, horse) name the destination file.
    pub const fn moves_straight(self) -> bool {
        matches!(
            self,
            Kind::General | Kind::Chariot | Kind::Cannon | Kind::Soldier
        )
    }

    /// English name.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::General => "general",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Chariot => "chariot",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
        }
    }
}

/// A piece: a kind and a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Piece {
    /// Its side.
    pub color: Color,
    /// Its kind.
    pub kind: Kind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    pub const fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// Dense index 0..14: red kinds 0..7, black kinds 7..14.
    pub const fn index(self) -> usize {
        self.color.index() * 7 + self.kind.index()
    }

    /// The FEN letter: upper case for red, lower case for black.
    pub const fn fen_char(self) -> char {
        let c = self.kind.fen_char();
        match self.color {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// Reads a FEN letter (`B`/`E`, `N`/`H` accepted); case gives the side.
    pub const fn from_fen_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        match Kind::from_letter(c) {
            Some(kind) => Some(Piece { color, kind }),
            None => None,
        }
    }

    /// The usual simplified character: 帅仕相马车炮兵 for red, 将士象马车炮卒 for black.
    pub const fn chinese(self) -> char {
        match (self.color, self.kind) {
            (Color::Red, Kind::General) => '帅',
            (Color::Red, Kind::Advisor) => '仕',
            (Color::Red, Kind::Elephant) => '相',
            (Color::Red, Kind::Soldier) => '兵',
            (Color::Black, Kind::General) => '将',
            (Color::Black, Kind::Advisor) => '士',
            (Color::Black, Kind::Elephant) => '象',
            (Color::Black, Kind::Soldier) => '卒',
            (_, Kind::Horse) => '马',
            (_, Kind::Chariot) => '车',
            (_, Kind::Cannon) => '炮',
        }
    }

    /// Whether this piece can ever stand on `sq` in a game (palace points for general and
    /// advisor, the seven elephant points, soldier points on or past its start rank). The
    /// tables index exactly these placements.
    pub const fn can_stand_on(self, sq: Square) -> bool {
        let f = sq.file().index();
        let r = sq.rank().relative_to(self.color);
        match self.kind {
            Kind::General => sq.in_palace(self.color),
            Kind::Advisor => matches!((f, r), (3, 0) | (5, 0) | (4, 1) | (3, 2) | (5, 2)),
            Kind::Elephant => matches!(
                (f, r),
                (2, 0) | (6, 0) | (0, 2) | (4, 2) | (8, 2) | (2, 4) | (6, 4)
            ),
            Kind::Soldier => r >= 5 || (r >= 3 && f.is_multiple_of(2)),
            Kind::Horse | Kind::Chariot | Kind::Cannon => true,
        }
    }
}

impl Piece {
    /// Whether a composition may set this piece on `sq`: every point a game reaches, and
    /// for a soldier every point of the board (composers set 卒 behind their start and on
    /// their own back rank, as blockers beside the general; the piece still moves by the
    /// ordinary rules: forward only, sideways once across the river). Generals stay in their
    /// palace, advisors on their five points and elephants on their seven: their moves are
    /// defined by those points (九宫 diagonals, the 田 of the elephant's own half), and no
    /// classical composition sets them anywhere else.
    pub const fn may_be_set_on(self, sq: Square) -> bool {
        match self.kind {
            Kind::Soldier => true,
            _ => self.can_stand_on(sq),
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.fen_char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(p: Piece) -> usize {
        Square::all().filter(|&s| p.can_stand_on(s)).count()
    }

    #[test]
    fn placement_counts_match_the_rules() {
        for c in Color::ALL {
            assert_eq!(count(Piece::new(c, Kind::General)), 9);
            assert_eq!(count(Piece::new(c, Kind::Advisor)), 5);
            assert_eq!(count(Piece::new(c, Kind::Elephant)), 7);
            assert_eq!(count(Piece::new(c, Kind::Soldier)), 55);
            assert_eq!(count(Piece::new(c, Kind::Horse)), 90);
        }
    }

    #[test]
    fn letters_round_trip() {
        for c in Color::ALL {
            for k in Kind::ALL {
                let p = Piece::new(c, k);
                assert_eq!(Piece::from_fen_char(p.fen_char()), Some(p));
                assert_eq!(Kind::from_letter(k.wxf_char()), Some(k));
                assert_eq!(Kind::from_chinese(p.chinese()), Some(k));
            }
        }
        assert_eq!(Kind::from_letter('E'), Some(Kind::Elephant));
        assert_eq!(Kind::from_letter('h'), Some(Kind::Horse));
        assert_eq!(Piece::from_fen_char('x'), None);
    }
}
