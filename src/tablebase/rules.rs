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
    /// The perpetual-check rule alone (`check-only`): the side that checks on every move of
    /// an endless game loses, unless the other side also checks on every move (解将还将, a
    /// draw); one check and one idle move (一将一闲) is allowed. Every other endless game is
    /// a draw. Its header name is `asian`, the name these tables had before the whole rule
    /// was built, so tables built then are read as what they are.
    CheckOnly,
    /// The whole 长打 rule of the 棋例 (`asian`): the side whose every move of an endless
    /// game is 打 (将 a check, 杀 a threat of mate, 捉 a chase, as
    /// [`crate::game::threat`] defines them) loses, unless the other side's every move is
    /// 打 too (a draw). One 打 and one idle move (一打一闲) is allowed, and so is everything
    /// that is not 打 (长兑, 长献, 长拦, 长跟, the general's and the soldiers' threats).
    Asian,
}

impl Rules {
    /// The three rule sets.
    pub const ALL: [Rules; 3] = [Rules::None, Rules::CheckOnly, Rules::Asian];

    /// The name written in table headers.
    pub fn header_name(self) -> &'static str {
        match self {
            Rules::None => "baseline",
            Rules::CheckOnly => "asian",
            Rules::Asian => "asian-changda",
        }
    }

    /// Whether some endless games are decided (a loss for the side that attacks on every
    /// move): every rule set but [`Rules::None`].
    pub fn judges_repetition(self) -> bool {
        self != Rules::None
    }

    /// Whether a move counts in a repetition as the rule set's forbidden kind: a check
    /// under [`Rules::CheckOnly`], any 打 (check, threat of mate, chase) under
    /// [`Rules::Asian`], nothing under [`Rules::None`]. `pos` is the position before the
    /// legal move `m`.
    pub fn counts(
        self,
        pos: &crate::game::position::Position,
        m: crate::game::moves::Move,
    ) -> bool {
        match self {
            Rules::None => false,
            Rules::CheckOnly => pos.gives_check(m),
            Rules::Asian => crate::game::threat::is_attack(pos, m),
        }
    }

    /// What the side that must change is told, in Chinese: 长将作负 or 长打作负.
    pub fn forbidden_zh(self) -> &'static str {
        match self {
            Rules::Asian => "长打作负",
            _ => "长将作负",
        }
    }

    /// The rule that decides a verdict by rule, in English with its Chinese name: the 长打
    /// rule under `asian`, the perpetual-check rule under `check-only`.
    pub fn rule_en(self) -> &'static str {
        match self {
            Rules::Asian => "the 长打 rule (长打作负)",
            _ => "the perpetual-check rule (长将作负)",
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
            Rules::CheckOnly => "check-only",
            Rules::Asian => "asian",
        }
    }

    /// What the rule set means, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Rules::None => "none: endless play is a draw",
            Rules::CheckOnly => "check-only: perpetual check (长将) loses",
            Rules::Asian => "asian: perpetual attack (长打: 长将, 长杀, 长捉) loses",
        }
    }

    /// The rule set in English words alone, for a player (the trainer's English).
    pub fn describe_en(self) -> &'static str {
        match self {
            Rules::None => "no limit: endless play is a draw",
            Rules::CheckOnly => "check-only: perpetual check loses",
            Rules::Asian => "asian: perpetual attack (check, threat of mate or chase) loses",
        }
    }

    /// The rule set in Chinese, for a player.
    pub fn describe_zh(self) -> &'static str {
        match self {
            Rules::None => "不限着：循环不变作和",
            Rules::CheckOnly => "只禁长将：长将作负",
            Rules::Asian => "亚洲棋规：长打（长将、长杀、长捉）作负",
        }
    }
}

/// Which kinds of 打 besides 将 the whole rule ([`Rules::Asian`]) counts: both, as the rule
/// does and every table is built; or one of them, to measure what each clause decides
/// (`canju diff --by-clause`, [`crate::tablebase::generate::solve_with_clauses`]). A move
/// that is 杀 and 捉 at once is 打 under either clause alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clauses {
    /// 杀: a threat of mate is 打.
    pub mate_threats: bool,
    /// 捉: a chase is 打.
    pub chases: bool,
}

impl Clauses {
    /// The whole rule: 将, 杀 and 捉.
    pub const WHOLE: Clauses = Clauses {
        mate_threats: true,
        chases: true,
    };
    /// 将 and 杀; a chase is idle.
    pub const MATE_THREATS: Clauses = Clauses {
        mate_threats: true,
        chases: false,
    };
    /// 将 and 捉; a threat of mate is idle.
    pub const CHASES: Clauses = Clauses {
        mate_threats: false,
        chases: true,
    };
    /// 将 alone; a threat of mate and a chase are idle (what the generator counts while it
    /// runs the stages of perpetual check first).
    pub const CHECKS: Clauses = Clauses {
        mate_threats: false,
        chases: false,
    };

    /// Whether anything besides 将 is 打.
    pub fn beyond_check(self) -> bool {
        self.mate_threats || self.chases
    }
}

/// A rule set is written as its name (`asian`, `check-only`, `none`).
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
    "unknown rule set '{0}': use asian (perpetual attack loses), check-only (perpetual check alone loses) or none (endless play is a draw)"
)]
pub struct ParseRulesError(pub String);

impl std::str::FromStr for Rules {
    type Err = ParseRulesError;
    fn from_str(s: &str) -> Result<Rules, ParseRulesError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "baseline" => Ok(Rules::None),
            "check-only" | "checkonly" | "check" => Ok(Rules::CheckOnly),
            "asian" | "axf" | "changda" => Ok(Rules::Asian),
            _ => Err(ParseRulesError(s.to_string())),
        }
    }
}

/// The file name of a table: `KNPKAABB.ctb` without repetition rulings,
/// `KNPKAABB.check.ctb` with the perpetual-check rule alone and `KNPKAABB.asian.ctb` with
/// the whole 长打 rule, so all three can share a directory.
pub fn file_name(material: &Material, rules: Rules) -> String {
    file_name_of(&material.to_string(), rules)
}

/// [`file_name`] for a material given by name.
pub(crate) fn file_name_of(material: &str, rules: Rules) -> String {
    match rules {
        Rules::None => format!("{material}.ctb"),
        Rules::CheckOnly => format!("{material}.check.ctb"),
        Rules::Asian => format!("{material}.asian.ctb"),
    }
}
