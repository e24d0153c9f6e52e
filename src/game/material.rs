//! Material signatures: which pieces each side has, e.g. `KNPKAABB` (马兵对士象全).
//!
//! Read from letters (FEN `KNPKAABB` or WXF `KHPKAAEE`, any case) or Chinese names
//! (`马卒对士相全`, `单车对士象全`, `炮仕对光将`). The canonical form lists each side's pieces in
//! the order K R N C P A B, the stronger side first; that side is stored as red.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::Position;

/// Piece kinds in signature order (after the general).
pub const SIGNATURE_ORDER: [Kind; 6] = [
    Kind::Chariot,
    Kind::Horse,
    Kind::Cannon,
    Kind::Soldier,
    Kind::Advisor,
    Kind::Elephant,
];

/// One side's pieces besides its general: a count per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Side {
    counts: [u8; 7],
}

impl Side {
    /// How many pieces of this kind the side has.
    pub fn count(&self, kind: Kind) -> u8 {
        self.counts[kind.index()]
    }

    /// Adds a piece; counts stop at 255 (never wrap), and a count above the rules'
    /// limit is refused by the parsers.
    pub fn add(&mut self, kind: Kind) {
        let c = &mut self.counts[kind.index()];
        *c = c.saturating_add(1);
    }

    /// Adds a piece if the side may have one more of its kind.
    fn add_checked(&mut self, kind: Kind, text: &str) -> Result<(), MaterialError> {
        if self.count(kind) >= kind.max_count() {
            return Err(MaterialError::TooMany {
                text: shown(text),
                kind: kind.name(),
                max: kind.max_count(),
            });
        }
        self.add(kind);
        Ok(())
    }

    /// Pieces besides the general.
    pub fn len(&self) -> usize {
        SIGNATURE_ORDER
            .iter()
            .map(|&k| self.count(k) as usize)
            .sum()
    }

    /// No pieces besides the general.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this side has a piece that can cross the river (and so ever give check).
    pub fn has_attackers(&self) -> bool {
        [Kind::Chariot, Kind::Horse, Kind::Cannon, Kind::Soldier]
            .iter()
            .any(|&k| self.count(k) > 0)
    }

    /// Attacking strength first, then defence, for choosing the side stored as red.
    fn strength(&self) -> (u32, u32) {
        let attack = 9 * self.count(Kind::Chariot) as u32
            + 4 * self.count(Kind::Horse) as u32
            + 4 * self.count(Kind::Cannon) as u32
            + self.count(Kind::Soldier) as u32;
        let defence = (self.count(Kind::Advisor) + self.count(Kind::Elephant)) as u32;
        (attack, defence)
    }

    /// The side's letters (`K` and its pieces in signature order) as bytes, for comparing
    /// without allocating: the first `len` bytes of the array.
    fn letters(&self) -> ([u8; 32], usize) {
        let mut out = [0u8; 32];
        out[0] = b'K';
        let mut len = 1;
        for k in SIGNATURE_ORDER {
            for _ in 0..self.count(k) {
                if len < out.len() {
                    out[len] = k.fen_char() as u8;
                    len += 1;
                }
            }
        }
        (out, len)
    }

    /// Kinds in signature order with counts (only those present).
    pub fn groups(&self) -> impl Iterator<Item = (Kind, u8)> + '_ {
        SIGNATURE_ORDER
            .iter()
            .map(|&k| (k, self.count(k)))
            .filter(|&(_, n)| n > 0)
    }
}

/// The pieces of both sides. [`Material::canonical`] gives the form tables are stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Material {
    /// Red's pieces.
    pub red: Side,
    /// Black's pieces.
    pub black: Side,
}

/// Why a material name was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    #[error("empty material name")]
    /// Nothing to read.
    Empty,
    #[error("'{0}': expected two sides, each starting with its general K (like KNPKAABB)")]
    /// Not two sides (one general each, or 对 between them).
    Sides(String),
    #[error("'{text}': unknown piece '{piece}' (letters K A B/E N/H R C P, or Chinese names)")]
    /// A letter or character that names no piece.
    UnknownPiece {
        /// The whole text.
        text: String,
        /// The piece as written.
        piece: String,
    },
    #[error("'{text}': a side has more than {max} {kind}s, at most {max} allowed")]
    /// More pieces of a kind than a side starts with.
    TooMany {
        /// The whole text.
        text: String,
        /// The kind.
        kind: &'static str,
        /// The most a side has.
        max: u8,
    },
    #[error(
        "'{text}': '{word}' describes where a piece stands, not material; name the pieces only (like 兵对单士)"
    )]
    /// A word that names a class of positions, not material (高兵, 底兵 …).
    PositionClass {
        /// The whole text.
        text: String,
        /// The word.
        word: String,
    },
    #[error("'{0}': expected two sides joined by 对 or vs (like 马卒对士相全)")]
    /// Two sides without 对 or a second K between them.
    NoSeparator(String),
}

impl Material {
    /// The material of two sides.
    pub fn new(red: Side, black: Side) -> Material {
        Material { red, black }
    }

    /// The material on a position's board.
    pub fn of(pos: &Position) -> Material {
        let mut m = Material::new(Side::default(), Side::default());
        for (_, p) in pos.pieces() {
            if p.kind != Kind::General {
                m.side_mut(p.color).add(p.kind);
            }
        }
        m
    }

    /// One side's pieces.
    pub fn side(&self, color: Color) -> &Side {
        match color {
            Color::Red => &self.red,
            Color::Black => &self.black,
        }
    }

    fn side_mut(&mut self, color: Color) -> &mut Side {
        match color {
            Color::Red => &mut self.red,
            Color::Black => &mut self.black,
        }
    }

    /// Colours swapped.
    pub fn flipped(&self) -> Material {
        Material::new(self.black, self.red)
    }

    /// Whether the red side is the one stored first (the stronger, ties broken by letters).
    pub fn is_canonical(&self) -> bool {
        match self.red.strength().cmp(&self.black.strength()) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => {
                let ((r, rn), (b, bn)) = (self.red.letters(), self.black.letters());
                r[..rn] >= b[..bn]
            }
        }
    }

    /// The stored form: the stronger side as red.
    pub fn canonical(&self) -> Material {
        if self.is_canonical() {
            *self
        } else {
            self.flipped()
        }
    }

    /// Total pieces including both generals.
    pub fn piece_count(&self) -> usize {
        2 + self.red.len() + self.black.len()
    }

    /// All pieces in table order: red general, red pieces (K R N C P A B), black general,
    /// black pieces.
    pub fn pieces(&self) -> Vec<Piece> {
        let mut out = [Piece::new(Color::Red, Kind::General); 32];
        let n = self.pieces_into(&mut out);
        out[..n].to_vec()
    }

    /// [`Material::pieces`] without allocating: fills `out` and returns how many there are
    /// (at most 32; a material beyond the board's 32 pieces is cut there).
    pub fn pieces_into(&self, out: &mut [Piece; 32]) -> usize {
        let mut n = 0;
        for color in Color::ALL {
            let kinds = std::iter::once((Kind::General, 1)).chain(self.side(color).groups());
            for (k, count) in kinds {
                for _ in 0..count {
                    if n < out.len() {
                        out[n] = Piece::new(color, k);
                        n += 1;
                    }
                }
            }
        }
        n
    }

    /// This material after `piece` is captured (colours kept as they are). The piece must
    /// be present and not a general.
    pub fn without(&self, piece: Piece) -> Material {
        let mut m = *self;
        m.side_mut(piece.color).counts[piece.kind.index()] -= 1;
        m
    }

    /// The materials one capture away (canonical, deduplicated, in signature order).
    pub fn captures(&self) -> Vec<Material> {
        let mut out: Vec<Material> = Vec::new();
        for color in Color::ALL {
            for (k, _) in self.side(color).groups() {
                let c = self.without(Piece::new(color, k)).canonical();
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        out
    }

    /// Every material reachable by captures, this one included, smallest first: the order
    /// in which tables must be built. Canonical forms, deterministic order.
    pub fn build_order(&self) -> Vec<Material> {
        let mut all = vec![self.canonical()];
        let mut i = 0;
        while i < all.len() {
            for c in all[i].captures() {
                if !all.contains(&c) {
                    all.push(c);
                }
            }
            i += 1;
        }
        all.sort_by_key(|m| (m.piece_count(), m.to_string()));
        all
    }

    /// The Chinese name, e.g. 马兵对士象全.
    pub fn chinese(&self) -> String {
        format!(
            "{}对{}",
            side_chinese(&self.red, Color::Red),
            side_chinese(&self.black, Color::Black)
        )
    }
}

fn side_chinese(side: &Side, color: Color) -> String {
    if side.is_empty() {
        return match color {
            Color::Red => "光帅".into(),
            Color::Black => "光将".into(),
        };
    }
    let mut s = String::new();
    let attackers = [Kind::Chariot, Kind::Horse, Kind::Cannon, Kind::Soldier];
    for k in attackers {
        let n = side.count(k);
        let ch = Piece::new(color, k).chinese();
        match n {
            0 => {}
            1 => s.push(ch),
            2 => {
                s.push('双');
                s.push(ch);
            }
            _ => {
                s.push(['三', '四', '五'][n as usize - 3]);
                s.push(ch);
            }
        }
    }
    let (a, b) = (side.count(Kind::Advisor), side.count(Kind::Elephant));
    let adv = Piece::new(color, Kind::Advisor).chinese();
    let ele = Piece::new(color, Kind::Elephant).chinese();
    match (a, b) {
        (0, 0) => {}
        (2, 2) => s.push_str(&format!("{adv}{ele}全")),
        (1, 2) => s.push_str(&format!("单缺{adv}")),
        (2, 1) => s.push_str(&format!("单缺{ele}")),
        _ => {
            for (n, ch) in [(a, adv), (b, ele)] {
                match n {
                    1 => s.push(ch),
                    2 => {
                        s.push('双');
                        s.push(ch);
                    }
                    _ => {}
                }
            }
        }
    }
    s
}

/// A material is written as its signature (`KNPKAABB`).
impl serde::Serialize for Material {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ((r, rn), (b, bn)) = (self.red.letters(), self.black.letters());
        // (the letters are ASCII)
        let text = |l: &[u8]| l.iter().map(|&c| c as char).collect::<String>();
        write!(f, "{}{}", text(&r[..rn]), text(&b[..bn]))
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    /// Reads letters or a Chinese name. The sides keep the order given (use
    /// [`Material::canonical`] for the stored form).
    fn from_str(s: &str) -> Result<Material, MaterialError> {
        let t = s.trim();
        if t.is_empty() {
            return Err(MaterialError::Empty);
        }
        let m = if t.is_ascii() && !t.to_ascii_lowercase().contains("vs") {
            parse_letters(t)?
        } else {
            parse_chinese(t)?
        };
        Ok(m)
    }
}

/// The user's text as quoted in a message: cut after 40 characters.
fn shown(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push('…');
        s
    }
}

fn parse_letters(t: &str) -> Result<Material, MaterialError> {
    let up = t.to_ascii_uppercase();
    let chars: Vec<char> = up.chars().collect();
    if chars.first() != Some(&'K') || chars.iter().filter(|&&c| c == 'K').count() != 2 {
        return Err(MaterialError::Sides(shown(t)));
    }
    let mut sides = [Side::default(), Side::default()];
    let mut current = 0usize;
    for (i, &c) in chars.iter().enumerate() {
        match Kind::from_letter(c) {
            Some(Kind::General) => current = if i == 0 { 0 } else { 1 },
            Some(k) => sides[current].add_checked(k, t)?,
            None => {
                return Err(MaterialError::UnknownPiece {
                    text: shown(t),
                    piece: c.to_string(),
                });
            }
        }
    }
    Ok(Material::new(sides[0], sides[1]))
}

fn parse_chinese(t: &str) -> Result<Material, MaterialError> {
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let chars: Vec<char> = compact.chars().collect();
    let vs = chars
        .windows(2)
        .position(|w| w[0].eq_ignore_ascii_case(&'v') && w[1].eq_ignore_ascii_case(&'s'));
    let parts: Vec<String> = if let Some(i) = vs {
        vec![chars[..i].iter().collect(), chars[i + 2..].iter().collect()]
    } else {
        compact.split(['对', '對']).map(str::to_string).collect()
    };
    if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
        return Err(MaterialError::NoSeparator(shown(t)));
    }
    let red = parse_chinese_side(t, &parts[0])?;
    let black = parse_chinese_side(t, &parts[1])?;
    Ok(Material::new(red, black))
}

fn parse_chinese_side(whole: &str, text: &str) -> Result<Side, MaterialError> {
    let mut side = Side::default();
    let mut rest = text;
    // whole-word names first
    for (word, kinds) in [
        (
            "士象全",
            &[Kind::Advisor, Kind::Advisor, Kind::Elephant, Kind::Elephant][..],
        ),
        (
            "士相全",
            &[Kind::Advisor, Kind::Advisor, Kind::Elephant, Kind::Elephant],
        ),
        (
            "仕相全",
            &[Kind::Advisor, Kind::Advisor, Kind::Elephant, Kind::Elephant],
        ),
        (
            "仕象全",
            &[Kind::Advisor, Kind::Advisor, Kind::Elephant, Kind::Elephant],
        ),
        ("单缺士", &[Kind::Advisor, Kind::Elephant, Kind::Elephant]),
        ("单缺仕", &[Kind::Advisor, Kind::Elephant, Kind::Elephant]),
        ("单缺象", &[Kind::Advisor, Kind::Advisor, Kind::Elephant]),
        ("单缺相", &[Kind::Advisor, Kind::Advisor, Kind::Elephant]),
    ] {
        if let Some(i) = rest.find(word) {
            for &k in kinds {
                side.add_checked(k, whole)?;
            }
            let mut s = rest[..i].to_string();
            s.push_str(&rest[i + word.len()..]);
            return parse_pieces(whole, &s, side);
        }
    }
    for word in [
        "光将", "光帅", "光帥", "光將", "孤将", "孤帅", "单将", "单帅",
    ] {
        if rest == word {
            return Ok(side);
        }
        if let Some(stripped) = rest.strip_suffix(word) {
            rest = stripped;
        }
    }
    parse_pieces(whole, rest, side)
}

fn parse_pieces(whole: &str, text: &str, mut side: Side) -> Result<Side, MaterialError> {
    let mut count: Option<u8> = None;
    for c in text.chars() {
        let n = match c {
            '单' | '單' | '一' => Some(1),
            '双' | '雙' | '二' | '两' | '兩' => Some(2),
            '三' => Some(3),
            '四' => Some(4),
            '五' => Some(5),
            _ => None,
        };
        if let Some(n) = n {
            count = Some(n);
            continue;
        }
        if "高低底老边中".contains(c) {
            return Err(MaterialError::PositionClass {
                text: shown(whole),
                word: c.to_string(),
            });
        }
        match Kind::from_chinese(c) {
            Some(Kind::General) => {}
            Some(k) => {
                for _ in 0..count.take().unwrap_or(1) {
                    side.add_checked(k, whole)?;
                }
            }
            None => {
                return Err(MaterialError::UnknownPiece {
                    text: shown(whole),
                    piece: c.to_string(),
                });
            }
        }
    }
    Ok(side)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        s.parse::<Material>().unwrap().canonical().to_string()
    }

    #[test]
    fn letters_and_chinese_names() {
        assert_eq!(canon("KNPKAABB"), "KNPKAABB");
        assert_eq!(canon("knpkaabb"), "KNPKAABB");
        assert_eq!(canon("KHPKAAEE"), "KNPKAABB");
        assert_eq!(canon("KAABBKPN"), "KNPKAABB");
        assert_eq!(canon("马卒对士相全"), "KNPKAABB");
        assert_eq!(canon("马兵 vs 士象全"), "KNPKAABB");
        assert_eq!(canon("单车对士象全"), "KRKAABB");
        assert_eq!(canon("车对马双士"), "KRKNAA");
        assert_eq!(canon("炮仕对光将"), "KCAK");
        assert_eq!(canon("双马对士象全"), "KNNKAABB");
        assert_eq!(canon("车兵对车士象全"), "KRPKRAABB");
        assert_eq!(canon("马兵对单缺士"), "KNPKABB");
        assert_eq!(canon("马兵对单缺象"), "KNPKAAB");
        assert_eq!(canon("車對馬雙士"), "KRKNAA");
    }

    #[test]
    fn bad_names_are_errors() {
        let e = |s: &str| s.parse::<Material>().unwrap_err().to_string();
        assert!(e("高兵对单士").contains("describes where a piece stands"));
        assert!(e("三马对士象全").contains("more than 2 horses, at most 2"));
        assert!(e("KNNNK").contains("more than 2 horses"));
        // counts never wrap: 256 chariots are not none
        let many = format!("K{}K", "R".repeat(256));
        assert!(e(&many).contains("more than 2 chariots"), "{}", e(&many));
        assert!(
            e(&many).chars().count() < 100,
            "the text is cut: {}",
            e(&many)
        );
        assert!(e("KPPPPPPK").contains("more than 5 soldiers"));
        assert!(e("车车车对士").contains("more than 2 chariots"));
        // case folding that changes byte lengths never splits a character
        assert!(e("Ⱥ马vs兵").contains("unknown piece 'Ⱥ'"));
        assert!(e("马VSȺ").contains("unknown piece 'Ⱥ'"));
        assert_eq!(
            "马兵 VS 士象全".parse::<Material>().unwrap().to_string(),
            "KNPKAABB"
        );
        assert!(e("KXK").contains("unknown piece 'X'"));
        assert!(e("NPKAABB").contains("two sides"));
        assert!(e("马兵士象全").contains("对 or vs"));
        assert!(e("狗对士").contains("unknown piece '狗'"));
        assert_eq!(e(""), "empty material name");
    }

    #[test]
    fn build_order_lists_every_capture_first() {
        let m: Material = "KNPKAABB".parse().unwrap();
        let order: Vec<String> = m.build_order().iter().map(|m| m.to_string()).collect();
        assert_eq!(order.last().unwrap(), "KNPKAABB");
        assert_eq!(order.first().unwrap(), "KK");
        for name in ["KNKAABB", "KPKAABB", "KNPKABB", "KNPKAAB", "KAABBK", "KNPK"] {
            assert!(order.contains(&name.to_string()), "{name} in {order:?}");
        }
        // each material comes after everything it captures into
        for (i, m) in m.build_order().iter().enumerate() {
            for c in m.captures() {
                let pos = order.iter().position(|x| *x == c.to_string()).unwrap();
                assert!(pos < i, "{c} before {m}");
            }
        }
    }

    #[test]
    fn chinese_names_are_written() {
        let m: Material = "KNPKAABB".parse().unwrap();
        assert_eq!(m.chinese(), "马兵对士象全");
        let m: Material = "KCAK".parse().unwrap();
        assert_eq!(m.chinese(), "炮仕对光将");
        let m: Material = "KRKNAA".parse().unwrap();
        assert_eq!(m.chinese(), "车对马双士");
    }
}
