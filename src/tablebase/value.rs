//! [`Value`]: what a table says about a position, and the one-byte codes that store it.

use std::fmt;

/// The value of a position for the side to move, with distance to mate in plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move mates in this many plies (odd).
    Win(u32),
    /// The side to move is mated in this many plies (even; 0 = no legal move now).
    Loss(u32),
    /// Neither side can force mate.
    Draw,
    /// Won under the perpetual-check rule (长将作负): the opponent escapes mate only by
    /// checking forever. There is no distance to mate; the number is the level: 0 when a
    /// capture reaches a sub-table's win by rule, else how many perpetual-check traps of this
    /// material the loser can still break out of with a quiet move, plus one (level 1: the
    /// loser's every way out of the checks ends in mate).
    RuleWin(u32),
    /// Lost under the perpetual-check rule, with the level (see [`Value::RuleWin`]).
    RuleLoss(u32),
}

impl Value {
    /// From the plies to mate: odd is a win for the side to move, even a loss.
    pub fn from_plies(n: u32) -> Value {
        if n % 2 == 1 {
            Value::Win(n)
        } else {
            Value::Loss(n)
        }
    }

    /// Whether the verdict rests on the perpetual-check rule.
    pub fn by_rule(self) -> bool {
        matches!(self, Value::RuleWin(_) | Value::RuleLoss(_))
    }

    /// Whether the side to move wins (by mate or by rule).
    pub fn is_win(self) -> bool {
        matches!(self, Value::Win(_) | Value::RuleWin(_))
    }

    /// Whether the side to move loses (by mate or by rule).
    pub fn is_loss(self) -> bool {
        matches!(self, Value::Loss(_) | Value::RuleLoss(_))
    }

    /// The same verdict without the rule: a rule win or loss is a draw when endless play
    /// is a draw.
    pub fn baseline(self) -> Value {
        if self.by_rule() { Value::Draw } else { self }
    }

    /// Plies to mate, if decided by mate.
    pub fn plies(self) -> Option<u32> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw | Value::RuleWin(_) | Value::RuleLoss(_) => None,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn verdict(self) -> &'static str {
        match self {
            Value::Win(_) | Value::RuleWin(_) => "win",
            Value::Loss(_) | Value::RuleLoss(_) => "loss",
            Value::Draw => "draw",
        }
    }

    /// The value for the side that played into a position of this value (one ply more).
    pub fn for_mover(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::RuleWin(k) => Value::RuleLoss(k),
            Value::RuleLoss(k) => Value::RuleWin(k),
            Value::Draw => Value::Draw,
        }
    }

    /// Ordering key for the side to move choosing among its moves' values (bigger is
    /// better): quicker mates, then wins by rule (lower level first), then draws, then
    /// losses by rule (higher level first), then longer losses to mate.
    pub fn preference(self) -> i64 {
        match self {
            Value::Win(n) => 2_000_000 - n as i64,
            Value::RuleWin(n) => 1_000_000 - n as i64,
            Value::Draw => 0,
            Value::RuleLoss(n) => -1_000_000 + n as i64,
            Value::Loss(n) => -2_000_000 + n as i64,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n} plies ({} moves)", n.div_ceil(2)),
            Value::Loss(n) => write!(f, "loss in {n} plies"),
            Value::RuleWin(k) => write!(f, "win by rule (level {k})"),
            Value::RuleLoss(k) => write!(f, "loss by rule (level {k})"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

impl Value {
    /// The value in a player's words, the rule named where it decides: what `canju probe`
    /// and `canju diff` print. A verdict by rule is worded for perpetual check (长将作负);
    /// [`Value::describe_under`] words it for the table's rule set.
    pub fn describe(self) -> String {
        self.describe_under(super::Rules::CheckOnly)
    }

    /// [`Value::describe`] for a table of `rules`: under `asian` a verdict by rule is a
    /// perpetual attack's (长打作负: checks, threats of mate or chases).
    pub fn describe_under(self, rules: super::Rules) -> String {
        let asian = rules == super::Rules::Asian;
        match self {
            Value::RuleWin(k) if asian => format!(
                "win by rule (长打作负: the defender can only check, threaten mate or chase forever), level {k}"
            ),
            Value::RuleLoss(k) if asian => format!(
                "loss by rule (长打作负: only checking, threatening mate or chasing forever holds off mate), level {k}"
            ),
            Value::RuleWin(k) => {
                format!("win by rule (长将作负: the defender can only check forever), level {k}")
            }
            Value::RuleLoss(k) => {
                format!("loss by rule (长将作负: only checking forever holds off mate), level {k}")
            }
            Value::Win(n) => format!("win in {n} plies ({} moves)", n.div_ceil(2)),
            Value::Loss(0) => "loss: no legal move (mated or stalemated)".to_string(),
            Value::Loss(n) => format!("loss in {n} plies"),
            Value::Draw => "draw".to_string(),
        }
    }

    /// The value in a Chinese player's words, counting moves (步) as players do: "23步胜",
    /// "12步被杀", "和棋", "长将作负：胜".
    pub fn describe_zh(self) -> String {
        self.describe_zh_under(super::Rules::CheckOnly)
    }

    /// [`Value::describe_zh`] for a table of `rules` (长打作负 under `asian`).
    pub fn describe_zh_under(self, rules: super::Rules) -> String {
        let asian = rules == super::Rules::Asian;
        match self {
            Value::RuleWin(k) if asian => {
                format!("胜（长打作负：对方只能长将、长杀或长捉，第{k}层）")
            }
            Value::RuleLoss(k) if asian => {
                format!("负（长打作负：只有长将、长杀或长捉才能免于被杀，第{k}层）")
            }
            Value::RuleWin(k) => format!("胜（长将作负：对方只能长将，第{k}层）"),
            Value::RuleLoss(k) => format!("负（长将作负：只有长将才能免于被杀，第{k}层）"),
            Value::Win(n) => format!("{}步胜", n.div_ceil(2)),
            Value::Loss(0) => "负：无着可走（被将死或困毙）".to_string(),
            Value::Loss(n) => format!("{}步被杀", n.div_ceil(2)),
            Value::Draw => "和棋".to_string(),
        }
    }
}

/// Stored byte codes: 0 draw, 1 illegal, 2 + n decided by mate in n plies (n ≤ 189; in a
/// wide table the last two are far codes, their distances in the table's far list),
/// 192 + 2k a loss and 193 + 2k a win by the perpetual-check rule at level k (k ≤ 30;
/// tables built with the asian rule set only).
pub mod code {
    /// A draw (or an entry not yet decided, while generating).
    pub const DRAW: u8 = 0;
    /// An index that is no legal position.
    pub const ILLEGAL: u8 = 1;
    /// Longest distance a one-byte entry holds.
    pub const MAX_PLIES: u32 = 189;
    /// Codes above this never appear in a finished table.
    pub const MAX_STORED: u8 = 2 + MAX_PLIES as u8;

    /// The two codes an entry holds when its distance is kept in a wide table's far list
    /// (see [`crate::tablebase::format`], format 3), a loss and a win: the last two
    /// distances a one-byte entry holds. In a narrow table they are losses in 188 and wins
    /// in 189 plies as usual; in a wide table every entry holding them is in the far list,
    /// which gives its distance. Either way they keep their parity, so whatever asks only
    /// whether a code wins or loses reads them right.
    pub const FAR_LOSS: u8 = MAX_STORED - 1;
    /// The far code of a win (see [`FAR_LOSS`]).
    pub const FAR_WIN: u8 = MAX_STORED;
    /// The shortest distance the generator keeps in its far list: from here on, entries
    /// hold [`FAR_LOSS`] or [`FAR_WIN`] while a table is built.
    pub const FAR_FROM: u32 = MAX_PLIES - 1;

    /// Whether a code is one of the two far codes.
    #[inline(always)]
    pub const fn is_far(code: u8) -> bool {
        code == FAR_LOSS || code == FAR_WIN
    }

    /// The far code of a distance: a loss when even, a win when odd.
    #[inline(always)]
    pub const fn far(plies: u32) -> u8 {
        if plies % 2 == 1 { FAR_WIN } else { FAR_LOSS }
    }

    #[inline(always)]
    /// The code of a position decided in `plies`.
    pub const fn decided(plies: u32) -> u8 {
        2 + plies as u8
    }

    /// Plies of a decided code.
    #[inline(always)]
    pub const fn plies(code: u8) -> u32 {
        code as u32 - 2
    }

    #[inline(always)]
    /// A code that holds a distance.
    pub const fn is_decided(code: u8) -> bool {
        code >= 2 && code <= MAX_STORED
    }

    /// A decided code that is a win for the side to move (odd plies).
    #[inline(always)]
    pub const fn is_win(code: u8) -> bool {
        is_decided(code) && code % 2 == 1
    }

    /// A decided code that is a loss for the side to move (even plies).
    #[inline(always)]
    pub const fn is_loss(code: u8) -> bool {
        is_decided(code) && code.is_multiple_of(2)
    }

    /// The first code of a verdict by rule.
    pub const RULE_BASE: u8 = MAX_STORED + 1;
    /// The highest level a one-byte rule entry holds.
    pub const MAX_RULE_LEVEL: u32 = 30;
    /// The last code a finished table may hold.
    pub const MAX_RULE: u8 = RULE_BASE + 2 * MAX_RULE_LEVEL as u8 + 1;

    /// The code of a verdict by rule at `level`, a win or a loss for the side to move.
    #[inline(always)]
    pub const fn rule(level: u32, win: bool) -> u8 {
        RULE_BASE + 2 * level as u8 + win as u8
    }

    #[inline(always)]
    /// A code of a value by the perpetual-check rule.
    pub const fn is_rule(code: u8) -> bool {
        code >= RULE_BASE && code <= MAX_RULE
    }

    /// The level of a rule code.
    #[inline(always)]
    pub const fn rule_level(code: u8) -> u32 {
        ((code - RULE_BASE) / 2) as u32
    }

    /// A rule code that is a win for the side to move.
    #[inline(always)]
    pub const fn is_rule_win(code: u8) -> bool {
        is_rule(code) && (code - RULE_BASE) % 2 == 1
    }

    /// A rule code that is a loss for the side to move.
    #[inline(always)]
    pub const fn is_rule_loss(code: u8) -> bool {
        is_rule(code) && (code - RULE_BASE).is_multiple_of(2)
    }

    /// Whether the side to move wins, by mate or by rule.
    #[inline(always)]
    pub const fn wins(code: u8) -> bool {
        is_win(code) || is_rule_win(code)
    }

    /// Whether the side to move loses, by mate or by rule.
    #[inline(always)]
    pub const fn loses(code: u8) -> bool {
        is_loss(code) || is_rule_loss(code)
    }
}

/// The value a finished table's code stands for (`None` for illegal or foreign codes).
pub fn value_of_code(c: u8) -> Option<Value> {
    match c {
        code::DRAW => Some(Value::Draw),
        c if code::is_decided(c) => Some(Value::from_plies(code::plies(c))),
        c if code::is_rule_win(c) => Some(Value::RuleWin(code::rule_level(c))),
        c if code::is_rule(c) => Some(Value::RuleLoss(code::rule_level(c))),
        _ => None,
    }
}
