//! [`Value`]: what a table says about a position, and the one-byte codes that store it.

use std::fmt;

/// The value of a position for the side to move, with distance to mate in plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move mates in this many plies (odd).
    Win(u32),
    /// The side to move is mated in this many plies (even; 0 = no legal move now).
    Loss(u32),
    Draw,
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

    /// Plies to mate, if decided.
    pub fn plies(self) -> Option<u32> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw => None,
        }
    }

    pub fn verdict(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }

    /// The value for the side that played into a position of this value (one ply more).
    pub fn for_mover(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Ordering key for the side to move choosing among its moves' values (bigger is
    /// better): quicker wins, then draws, then longer losses.
    pub fn preference(self) -> i64 {
        match self {
            Value::Win(n) => 1_000_000 - n as i64,
            Value::Draw => 0,
            Value::Loss(n) => -1_000_000 + n as i64,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n} plies ({} moves)", n.div_ceil(2)),
            Value::Loss(n) => write!(f, "loss in {n} plies"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

/// Stored byte codes: 0 draw, 1 illegal, 2 + n decided in n plies.
pub mod code {
    pub const DRAW: u8 = 0;
    pub const ILLEGAL: u8 = 1;
    /// Longest distance a one-byte entry holds.
    pub const MAX_PLIES: u32 = 189;
    /// Codes above this never appear in a finished table.
    pub const MAX_STORED: u8 = 2 + MAX_PLIES as u8;

    #[inline(always)]
    pub const fn decided(plies: u32) -> u8 {
        2 + plies as u8
    }

    /// Plies of a decided code.
    #[inline(always)]
    pub const fn plies(code: u8) -> u32 {
        code as u32 - 2
    }

    #[inline(always)]
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
}

/// The value a finished table's code stands for (`None` for illegal or foreign codes).
pub fn value_of_code(c: u8) -> Option<Value> {
    match c {
        code::DRAW => Some(Value::Draw),
        c if code::is_decided(c) => Some(Value::from_plies(code::plies(c))),
        _ => None,
    }
}
