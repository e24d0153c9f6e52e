//! Classes of endgames for batch builds: `armless:N`, every endgame in which one side has
//! one to N attacking pieces (车马炮兵) with any advisors and elephants, and the other side
//! advisors and elephants only (the set FelicityEgtb covers, for N = 2); `pieces:N`, every
//! endgame of at most N pieces, generals included; and a bound on the table size. A class is
//! listed with every table its members fall into, in build order.

use std::fmt;
use std::str::FromStr;

use super::index::{Layout, MAX_PIECES};
use crate::game::material::{Material, Side};
use crate::game::piece::Kind;

/// The attacking kinds, in signature order.
const ATTACKERS: [Kind; 4] = [Kind::Chariot, Kind::Horse, Kind::Cannon, Kind::Soldier];

/// A class of endgames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// One side with 1..=N attacking pieces and any defenders, the other defenders only.
    /// One side with 1 to `attackers` of 车马炮兵, the other advisors and elephants only.
    Armless {
        /// The most attacking pieces.
        attackers: u8,
    },
    /// Every endgame of at most `most` pieces, both generals included.
    Pieces {
        /// The most pieces.
        most: u8,
    },
}

/// A text that names no class of endgames.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseClassError {
    /// Not `armless:N` or `pieces:N`.
    #[error(
        "'{0}': not a class of endgames (armless:N, e.g. armless:2: one side with 1 to N of 车马炮兵, the other advisors and elephants only; pieces:N, every endgame of at most N pieces)"
    )]
    NotAClass(String),
    /// `pieces:N` with N out of range.
    #[error("'{0}': pieces:N takes N from 2 to {MAX_PIECES} pieces, both generals included")]
    Pieces(String),
    /// `armless:N` with N out of range.
    #[error(
        "'{0}': armless:N takes N from 1 to 4 attacking pieces (with both generals a table holds at most {MAX_PIECES} pieces)"
    )]
    Attackers(String),
}

impl FromStr for Class {
    type Err = ParseClassError;

    fn from_str(s: &str) -> Result<Class, ParseClassError> {
        let t = s.trim().to_ascii_lowercase();
        if let Some(n) = t.strip_prefix("pieces:") {
            return match n.parse::<u8>() {
                Ok(n) if (2..=MAX_PIECES as u8).contains(&n) => Ok(Class::Pieces { most: n }),
                _ => Err(ParseClassError::Pieces(s.to_string())),
            };
        }
        let Some(n) = t.strip_prefix("armless:") else {
            return Err(ParseClassError::NotAClass(s.to_string()));
        };
        match n.parse::<u8>() {
            Ok(n @ 1..=4) => Ok(Class::Armless { attackers: n }),
            _ => Err(ParseClassError::Attackers(s.to_string())),
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Class::Armless { attackers } => write!(f, "armless:{attackers}"),
            Class::Pieces { most } => write!(f, "pieces:{most}"),
        }
    }
}

/// The members of a class (canonical, without repeats, in build order), and how many of
/// its endgames were left out because they hold more pieces than a table.
pub fn members(class: Class) -> (Vec<Material>, usize) {
    let attackers = match class {
        Class::Armless { attackers } => attackers,
        Class::Pieces { most } => return (up_to(most as usize - 2), 0),
    };
    let mut attack_sides = Vec::new();
    piece_sets(
        &ATTACKERS,
        attackers as usize,
        0,
        &mut Side::default(),
        &mut attack_sides,
    );
    let defences = defence_sides();
    let mut out: Vec<Material> = Vec::new();
    let mut too_big = 0;
    for a in &attack_sides {
        for extra in &defences {
            let mut strong = *a;
            for (k, n) in extra.groups() {
                for _ in 0..n {
                    strong.add(k);
                }
            }
            for weak in &defences {
                let m = Material::new(strong, *weak).canonical();
                if out.contains(&m) {
                    continue;
                }
                if m.piece_count() > MAX_PIECES {
                    too_big += 1;
                    continue;
                }
                out.push(m);
            }
        }
    }
    out.sort_by_key(|m| (m.piece_count(), m.to_string()));
    (out, too_big)
}

/// Every endgame with at most `extra` pieces besides the generals (canonical, in build
/// order).
fn up_to(extra: usize) -> Vec<Material> {
    let mut sides = vec![Side::default()];
    piece_sets(&Kind::ALL[1..], extra, 0, &mut Side::default(), &mut sides);
    let mut out: Vec<Material> = Vec::new();
    for red in &sides {
        for black in &sides {
            if red.len() + black.len() > extra {
                continue;
            }
            let m = Material::new(*red, *black).canonical();
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out.sort_by_key(|m| (m.piece_count(), m.to_string()));
    out
}

/// Every side of 1..=`left` more pieces of `kinds` than `side`, of kinds from `from` on (so
/// that each multiset comes once), within each kind's count.
fn piece_sets(kinds: &[Kind], left: usize, from: usize, side: &mut Side, out: &mut Vec<Side>) {
    for (i, &k) in kinds.iter().enumerate().skip(from) {
        if left == 0 || side.count(k) >= k.max_count() {
            continue;
        }
        let mut more = *side;
        more.add(k);
        out.push(more);
        piece_sets(kinds, left - 1, i, &mut more, out);
    }
}

/// The nine sides of advisors and elephants (none to two of each).
fn defence_sides() -> Vec<Side> {
    let mut out = Vec::new();
    for a in 0..=2 {
        for b in 0..=2 {
            let mut s = Side::default();
            for _ in 0..a {
                s.add(Kind::Advisor);
            }
            for _ in 0..b {
                s.add(Kind::Elephant);
            }
            out.push(s);
        }
    }
    out
}

/// Every table the given materials need, themselves included, in build order (fewer pieces
/// first, so that a table comes after all it falls into).
pub fn build_list(materials: &[Material]) -> Vec<Material> {
    let mut all: Vec<Material> = Vec::new();
    for m in materials {
        for d in m.build_order() {
            if !all.contains(&d) {
                all.push(d);
            }
        }
    }
    all.sort_by_key(|m| (m.piece_count(), m.to_string()));
    all
}

/// Index entries per side to move of a material's table.
pub fn entries(m: &Material) -> u64 {
    Layout::new(*m).map_or(0, |l| l.size())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_attacker_gives_felicitys_324_endgames_and_two_more() {
        // 4 attackers × 9 × 9 configurations of advisors and elephants: 324 (FelicityEgtb's
        // count of its one-attacker set, 3 to 11 pieces); the 4 of eleven pieces are left out
        let (one, out) = members(Class::Armless { attackers: 1 });
        assert_eq!((one.len(), out), (320, 4));
        // two: 10 more pairs of attackers, 810 endgames, of which those beyond ten pieces
        // are left out
        let (two, out) = members(Class::Armless { attackers: 2 });
        assert_eq!(two.len() + out - 324, 810);
        assert!(out > 0);
        assert!(two.iter().all(|m| m.piece_count() <= MAX_PIECES));
        for sig in ["KNPKAABB", "KRKAABB", "KCAKAA", "KPK", "KRRKAABB"] {
            let m: Material = sig.parse().unwrap();
            assert!(two.contains(&m.canonical()), "{sig}");
        }
        // both sides attacking, no attacker at all, three attackers
        for sig in ["KRKR", "KNKP", "KK", "KAKA", "KRNPK"] {
            let m: Material = sig.parse().unwrap();
            assert!(!two.contains(&m.canonical()), "{sig}");
        }
    }

    #[test]
    fn pieces_n_is_every_endgame_of_at_most_n_pieces() {
        // two pieces: KK; three: KK and a piece of 6 kinds; four: 49 endgames
        assert_eq!(members(Class::Pieces { most: 2 }).0.len(), 1);
        assert_eq!(members(Class::Pieces { most: 3 }).0.len(), 7);
        let (four, _) = members(Class::Pieces { most: 4 });
        // 1 + 6 + 21 (two on one side) + 21 (one on each side, an endgame and its mirror
        // image one) = 49
        assert_eq!(four.len(), 49);
        for sig in ["KRKR", "KPKP", "KNCK", "KAKB", "KK"] {
            let m: Material = sig.parse().unwrap();
            assert!(four.contains(&m.canonical()), "{sig}");
        }
        let (five, _) = members(Class::Pieces { most: 5 });
        assert_eq!(five.len(), 226);
        assert!(
            five.iter()
                .all(|m| m.piece_count() <= 5 && m.is_canonical())
        );
        assert_eq!(build_list(&five).len(), five.len());
    }

    #[test]
    fn build_lists_put_every_table_after_what_it_falls_into() {
        let (two, _) = members(Class::Armless { attackers: 2 });
        let list = build_list(&two);
        for (i, m) in list.iter().enumerate() {
            for c in m.captures() {
                assert!(list[..i].contains(&c), "{m} before {c}");
            }
        }
        // the sub-tables of a class include endgames with no attacker left
        assert!(list.contains(&"KAABBKAAB".parse::<Material>().unwrap().canonical()));
    }

    #[test]
    fn classes_are_read_and_written() {
        assert_eq!(
            "armless:2".parse::<Class>(),
            Ok(Class::Armless { attackers: 2 })
        );
        assert_eq!(Class::Armless { attackers: 3 }.to_string(), "armless:3");
        assert_eq!("pieces:5".parse::<Class>(), Ok(Class::Pieces { most: 5 }));
        assert_eq!(Class::Pieces { most: 4 }.to_string(), "pieces:4");
        for bad in [
            "armless",
            "armless:0",
            "armless:9",
            "all",
            "armless:x",
            "pieces:1",
            "pieces:99",
        ] {
            assert!(bad.parse::<Class>().is_err(), "{bad}");
        }
    }
}
