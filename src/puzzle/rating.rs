//! Ratings: the player's and each puzzle's, by Glicko-2 (Glickman, "Example of the Glicko-2
//! system", the system lichess rates its puzzles with), from the `skillratings` crate. An
//! attempt is a game between the player and the puzzle: a clean solve is the player's
//! win, anything else (a mistake, a hint, the solution shown) the puzzle's.
//!
//! A puzzle nobody has played yet starts at a rating derived from what canju measures of it
//! ([`seed`]): how many moves its solution takes, how many of them are quiet, and how many
//! moves the player must choose among at the start.

use serde::{Deserialize, Serialize};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use super::Puzzle;

/// A Glicko-2 rating: the rating, its deviation (how unsure it is) and its volatility.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating (1500 for a newcomer).
    pub rating: f64,
    /// The rating deviation (350 for a newcomer).
    pub deviation: f64,
    /// The volatility (0.06 for a newcomer).
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::from(Glicko2Rating::new())
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(g: Glicko2Rating) -> Rating {
        Rating {
            rating: g.rating,
            deviation: g.deviation,
            volatility: g.volatility,
        }
    }
}

impl From<Rating> for Glicko2Rating {
    fn from(r: Rating) -> Glicko2Rating {
        Glicko2Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

impl Rating {
    /// A rating at `rating` with a newcomer's deviation and volatility.
    pub fn at(rating: f64) -> Rating {
        Rating {
            rating,
            ..Rating::default()
        }
    }

    /// The rating rounded, as lists show it.
    pub fn shown(&self) -> i32 {
        self.rating.round() as i32
    }

    /// A value read from a file that is no rating (not finite, a deviation not positive).
    pub fn is_sound(&self) -> bool {
        self.rating.is_finite()
            && self.deviation.is_finite()
            && self.deviation > 0.0
            && self.volatility.is_finite()
            && self.volatility > 0.0
    }
}

/// The Glicko-2 system's constant τ and tolerance (Glickman's suggested τ = 0.5).
fn config() -> Glicko2Config {
    Glicko2Config::new()
}

/// An attempt as one game between the player and the puzzle, for the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Game {
    /// Solved clean.
    Won,
    /// Solved with help.
    Drawn,
    /// Failed.
    Lost,
}

/// The player's and the puzzle's ratings after an attempt, one game between them: solved
/// clean is the player's win, solved with help a draw, failed a loss.
pub fn after_attempt(player: Rating, puzzle: Rating, game: Game) -> (Rating, Rating) {
    let outcome = match game {
        Game::Won => Outcomes::WIN,
        Game::Drawn => Outcomes::DRAW,
        Game::Lost => Outcomes::LOSS,
    };
    let (p, q) = glicko2(&player.into(), &puzzle.into(), &outcome, &config());
    (p.into(), q.into())
}

/// The lowest and highest starting rating.
pub const SEED_RANGE: (f64, f64) = (600.0, 3000.0);

/// What a puzzle's starting rating is made of, as measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measure {
    /// The player's moves in the main line (the quickest win against the longest
    /// resistance; for a draw, the line it must hold).
    pub moves: u32,
    /// Those of them that neither check nor capture: the hard ones to find.
    pub quiet: u32,
    /// The moves the player may choose among at the start (checks alone in a 连将杀).
    pub choices: u32,
}

/// Measures a puzzle for its starting rating.
pub fn measure(p: &Puzzle) -> Measure {
    let mut pos = p.position.clone();
    let choices = pos
        .legal_moves()
        .iter()
        .filter(|&&m| !p.entry.checks || pos.gives_check(m))
        .count() as u32;
    let (mut moves, mut quiet) = (0, 0);
    for (i, &m) in p.line.iter().enumerate() {
        if i % 2 == 0 {
            moves += 1;
            if !pos.gives_check(m) && pos.piece_at(m.to()).is_none() {
                quiet += 1;
            }
        }
        pos.play_unchecked(m);
    }
    Measure {
        moves,
        quiet,
        choices,
    }
}

/// A puzzle's starting rating from its measure: 700, plus 100 a move of the solution (up to
/// 20), 80 a quiet move, 5 a choice at the start, within [`SEED_RANGE`].
pub fn seed_of(m: Measure) -> f64 {
    let r = 700.0
        + 100.0 * f64::from(m.moves.min(20))
        + 80.0 * f64::from(m.quiet)
        + 5.0 * f64::from(m.choices);
    r.clamp(SEED_RANGE.0, SEED_RANGE.1)
}

/// The deviation a puzzle starts with: smaller than a newcomer's 350, because its starting
/// rating is measured, not guessed, so that one player's first attempts move the puzzle
/// less than they move the player.
pub const SEED_DEVIATION: f64 = 150.0;

/// A puzzle's starting rating.
pub fn seed(p: &Puzzle) -> Rating {
    Rating {
        deviation: SEED_DEVIATION,
        ..Rating::at(seed_of(measure(p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::glicko2::glicko2_rating_period;

    /// Glickman's worked example ("Example of the Glicko-2 system", 2013): a player rated
    /// 1500 (RD 200, σ 0.06) beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700
    /// (RD 300); with τ = 0.5 the new rating is 1464.06, RD 151.52, σ 0.05999.
    #[test]
    fn glickmans_example() {
        let r = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let new = glicko2_rating_period(
            &r(1500.0, 200.0),
            &[
                (r(1400.0, 30.0), Outcomes::WIN),
                (r(1550.0, 100.0), Outcomes::LOSS),
                (r(1700.0, 300.0), Outcomes::LOSS),
            ],
            &config(),
        );
        assert!((new.rating - 1464.06).abs() < 0.01, "{}", new.rating);
        assert!((new.deviation - 151.52).abs() < 0.01, "{}", new.deviation);
        assert!(
            (new.volatility - 0.05999).abs() < 0.00001,
            "{}",
            new.volatility
        );
    }

    #[test]
    fn an_attempt_moves_both_ratings_the_right_way() {
        let (player, puzzle) = (Rating::default(), Rating::at(1500.0));
        let (p, q) = after_attempt(player, puzzle, Game::Won);
        assert!(p.rating > 1500.0 && q.rating < 1500.0);
        assert!(p.deviation < 350.0);
        let (p, q) = after_attempt(player, puzzle, Game::Lost);
        assert!(p.rating < 1500.0 && q.rating > 1500.0);
        // equal ratings and deviations: the changes mirror each other
        assert!(((1500.0 - p.rating) - (q.rating - 1500.0)).abs() < 1e-9);
        // solving a much harder puzzle gains more than solving an easy one
        let (hard, _) = after_attempt(player, Rating::at(2000.0), Game::Won);
        let (easy, _) = after_attempt(player, Rating::at(1000.0), Game::Won);
        assert!(hard.rating - 1500.0 > easy.rating - 1500.0);
    }

    /// Solved with help is a draw: between equals it moves neither rating (the deviation
    /// shrinks), against a stronger puzzle the player gains less than by a clean solve,
    /// against a weaker one the player loses less than by a failure.
    #[test]
    fn a_helped_solve_is_a_draw() {
        let player = Rating::default();
        let (p, q) = after_attempt(player, Rating::default(), Game::Drawn);
        assert!((p.rating - 1500.0).abs() < 1e-9 && (q.rating - 1500.0).abs() < 1e-9);
        assert!(p.deviation < player.deviation);
        let strong = Rating::at(1900.0);
        let (helped, _) = after_attempt(player, strong, Game::Drawn);
        let (clean, _) = after_attempt(player, strong, Game::Won);
        assert!(helped.rating > 1500.0 && helped.rating < clean.rating);
        let weak = Rating::at(1100.0);
        let (helped, _) = after_attempt(player, weak, Game::Drawn);
        let (failed, _) = after_attempt(player, weak, Game::Lost);
        assert!(helped.rating < 1500.0 && helped.rating > failed.rating);
    }

    #[test]
    fn seeds_grow_with_what_is_measured() {
        let base = Measure {
            moves: 1,
            quiet: 0,
            choices: 40,
        };
        assert_eq!(seed_of(base), 1000.0);
        assert!(seed_of(Measure { moves: 5, ..base }) > seed_of(base));
        assert!(seed_of(Measure { quiet: 1, ..base }) > seed_of(base));
        assert_eq!(
            seed_of(Measure {
                moves: 99,
                quiet: 99,
                choices: 99
            }),
            SEED_RANGE.1
        );
        // the built-in puzzles: a mate in one seeds below a long 连将杀
        let all = crate::puzzle::load_builtin().unwrap();
        let get = |id: &str| all.iter().find(|p| p.entry.id == id).unwrap();
        let m1 = measure(get("mate-001"));
        assert_eq!(m1.moves, 1);
        let long = measure(get("checks-002"));
        assert_eq!(long.moves, 20);
        assert!(seed(get("mate-001")).rating < seed(get("checks-002")).rating);
        assert!(all.iter().all(|p| {
            let r = seed(p).rating;
            (SEED_RANGE.0..=SEED_RANGE.1).contains(&r)
        }));
    }
}
