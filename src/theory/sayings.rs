//! The endgame sayings canju knows: each with the material it speaks of, the verdict it
//! claims for the stronger side, and the positions it speaks of.

use super::{Lore, Scope, SoldierClass};
use crate::game::piece::Color;

/// One saying of the endgame lore.
#[derive(Clone, Copy, Debug)]
pub struct Saying {
    /// As players say it.
    pub text: &'static str,
    /// Other common forms (traditional characters are matched without being listed).
    pub aliases: &'static [&'static str],
    /// The material, stronger side first.
    pub material: &'static str,
    /// What the saying claims for the stronger side.
    pub lore: Lore,
    /// The positions the saying speaks of.
    pub scope: Scope,
    /// An English rendering.
    pub english: &'static str,
}

const DEFENCE_HOME: Scope = Scope {
    side_to_move: Some(Color::Black),
    home: true,
    soldier: None,
};
const STRONGER_TO_MOVE: Scope = Scope {
    side_to_move: Some(Color::Red),
    home: false,
    soldier: None,
};

/// The sayings, the first of them the one the main job measures.
pub const SAYINGS: &[Saying] = &[
    Saying {
        text: "马卒难破士相全",
        aliases: &["马兵难破士象全", "马卒难胜士相全"],
        material: "KNPKAABB",
        lore: Lore::Draw,
        scope: DEFENCE_HOME,
        english: "horse and soldier cannot break full advisors and elephants",
    },
    Saying {
        text: "单车难胜士象全",
        aliases: &["单车难破士象全", "单车和士象全"],
        material: "KRKAABB",
        lore: Lore::Draw,
        scope: DEFENCE_HOME,
        english: "a lone chariot cannot beat full advisors and elephants",
    },
    Saying {
        text: "缺士怕马",
        aliases: &["缺士怕马兵"],
        material: "KNPKABB",
        lore: Lore::Win,
        scope: STRONGER_TO_MOVE,
        english: "a defence missing an advisor fears the horse (here: horse and soldier against one advisor and two elephants)",
    },
    Saying {
        text: "缺象怕炮",
        aliases: &["缺相怕炮", "缺象怕炮兵"],
        material: "KCPKAAB",
        lore: Lore::Win,
        scope: STRONGER_TO_MOVE,
        english: "a defence missing an elephant fears the cannon (here: cannon and soldier against two advisors and one elephant)",
    },
    Saying {
        text: "炮仕胜光将",
        aliases: &["炮士胜光将", "炮仕胜单将", "炮士必胜光将"],
        material: "KCAK",
        lore: Lore::Win,
        scope: STRONGER_TO_MOVE,
        english: "cannon and advisor beat a bare general",
    },
    Saying {
        text: "孤炮难鸣",
        aliases: &["单炮难胜", "单炮不胜光将"],
        material: "KCK",
        lore: Lore::Draw,
        scope: STRONGER_TO_MOVE,
        english: "a lone cannon cannot win",
    },
    Saying {
        text: "老兵无用",
        aliases: &["老卒无功", "老兵无功", "老卒无用"],
        material: "KPK",
        lore: Lore::Draw,
        scope: Scope {
            side_to_move: None,
            home: false,
            soldier: Some(SoldierClass::Bottom),
        },
        english: "an old soldier (on the last rank) is useless",
    },
    Saying {
        text: "单马不破双象",
        aliases: &["单马难破双象", "马难破双象"],
        material: "KNKBB",
        lore: Lore::Draw,
        scope: Scope {
            side_to_move: Some(Color::Black),
            home: false,
            soldier: None,
        },
        english: "a lone horse cannot break two elephants",
    },
    Saying {
        text: "单马胜单士",
        aliases: &["马胜单士", "单马必胜单士"],
        material: "KNKA",
        lore: Lore::Win,
        scope: STRONGER_TO_MOVE,
        english: "a lone horse beats a lone advisor",
    },
];

/// A saying's text reduced for matching: simplified characters, one form for each piece
/// whichever side's name is used, no spaces or punctuation.
fn normalize(text: &str) -> String {
    text.chars()
        .filter(|c| {
            !c.is_whitespace() && !c.is_ascii_punctuation() && !"，。、！“”\"'".contains(*c)
        })
        .map(|c| match c {
            '卒' => '兵',
            '相' => '象',
            '仕' => '士',
            '帅' | '帥' | '將' => '将',
            '馬' => '马',
            '車' => '车',
            '砲' | '包' => '炮',
            '難' => '难',
            '勝' => '胜',
            '單' => '单',
            '無' => '无',
            '鳴' => '鸣',
            '雙' => '双',
            c => c,
        })
        .collect()
}

/// The saying a text names, if any.
pub fn find(text: &str) -> Option<&'static Saying> {
    let key = normalize(text);
    if key.is_empty() {
        return None;
    }
    SAYINGS
        .iter()
        .find(|s| normalize(s.text) == key || s.aliases.iter().any(|a| normalize(a) == key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::material::Material;

    #[test]
    fn every_saying_names_a_canonical_material() {
        for s in SAYINGS {
            let m: Material = s.material.parse().unwrap();
            assert_eq!(m, m.canonical(), "{}", s.text);
            assert!(find(s.text).is_some_and(|f| f.text == s.text));
            for a in s.aliases {
                assert!(find(a).is_some_and(|f| f.text == s.text), "{a}");
            }
        }
    }

    #[test]
    fn traditional_and_variant_forms_match() {
        assert_eq!(find("馬卒難破士相全").unwrap().material, "KNPKAABB");
        assert_eq!(find("马兵难破士象全").unwrap().material, "KNPKAABB");
        assert_eq!(find(" 炮士胜光帅 ").unwrap().material, "KCAK");
        assert_eq!(find("老卒無功").unwrap().material, "KPK");
        assert!(find("马兵对士象全").is_none());
        assert!(find("").is_none());
    }
}
