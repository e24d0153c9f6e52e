//! ICCS / UCCI coordinates: `h2e2`, also `H2-E2`.

use crate::game::moves::Move;
use crate::game::square::Square;

/// Reads `h2e2` or `H2-E2` (any case). Legality is checked by the caller.
pub(crate) fn parse(text: &str) -> Option<Move> {
    let t: String = text.chars().filter(|&c| c != '-').collect();
    if t.len() != 4 || !t.is_ascii() || text.matches('-').count() > 1 {
        return None;
    }
    let from: Square = t[..2].parse().ok()?;
    let to: Square = t[2..].parse().ok()?;
    Some(Move::new(from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(parse("h2e2").unwrap().to_string(), "h2e2");
        assert_eq!(parse("H2-E2").unwrap().to_string(), "h2e2");
        assert!(parse("h2e").is_none());
        assert!(parse("C2.5").is_none());
        assert!(parse("C2-5").is_none());
        assert!(parse("j2e2").is_none());
    }
}
