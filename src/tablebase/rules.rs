//! The rule sets a table is built under ([`Rules`]), and the file name each gives a
//! table, so that tables of both rule sets can share a directory.

use crate::game::material::Material;

/// The rule set a table is built with. Under both, stalemate loses, the generals may not
/// face each other and there is no move limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rules {
    /// Endless play is a draw: no repetition rulings (`baseline` in the header, `none` on
    /// the command line).
    #[default]
    None,
    /// The perpetual-check rule of the Asian (AXF) and Chinese (CXA) rules: the side that
    /// checks on every move of an endless game loses, unless the other side also checks on
    /// every move (解将还将, a draw); one check and one idle move (一将一闲) is allowed.
    /// Every other endless game is a draw.
    Asian,
}

impl Rules {
    /// Both rule sets.
    pub const ALL: [Rules; 2] = [Rules::None, Rules::Asian];

    /// The name written in table headers.
    pub fn header_name(self) -> &'static str {
        match self {
            Rules::None => "baseline",
            Rules::Asian => "asian",
        }
    }

    /// The rule set a header names.
    pub fn from_header(name: &str) -> Option<Rules> {
        Rules::ALL.into_iter().find(|r| r.header_name() == name)
    }

    /// The name on the command line and in output.
    pub fn name(self) -> &'static str {
        match self {
            Rules::None => "none",
            Rules::Asian => "asian",
        }
    }

    /// What the rule set means, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Rules::None => "none: endless play is a draw",
            Rules::Asian => "asian: perpetual check (长将) loses",
        }
    }

    /// The rule set in Chinese, for a player.
    pub fn describe_zh(self) -> &'static str {
        match self {
            Rules::None => "不限着：循环不变作和",
            Rules::Asian => "亚洲棋规：长将作负",
        }
    }
}

/// A rule set is written as its name (`asian`, `none`).
impl serde::Serialize for Rules {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl std::fmt::Display for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A text that names no rule set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown rule set '{0}': use none (endless play is a draw) or asian (perpetual check loses)"
)]
pub struct ParseRulesError(pub String);

impl std::str::FromStr for Rules {
    type Err = ParseRulesError;
    fn from_str(s: &str) -> Result<Rules, ParseRulesError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "baseline" => Ok(Rules::None),
            "asian" | "axf" => Ok(Rules::Asian),
            _ => Err(ParseRulesError(s.to_string())),
        }
    }
}

/// The file name of a table: `KNPKAABB.ctb` without repetition rulings,
/// `KNPKAABB.asian.ctb` with the perpetual-check rule, so both can share a directory.
pub fn file_name(material: &Material, rules: Rules) -> String {
    file_name_of(&material.to_string(), rules)
}

/// [`file_name`] for a material given by name.
pub(crate) fn file_name_of(material: &str, rules: Rules) -> String {
    match rules {
        Rules::None => format!("{material}.ctb"),
        Rules::Asian => format!("{material}.asian.ctb"),
    }
}
