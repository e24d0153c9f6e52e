//! Training positions: a random position of a table, of a chosen kind, served as a
//! puzzle (`canju train`).

use rand::SeedableRng;

use crate::game::material::Material;
use crate::game::piece::Color;
use crate::tablebase::Tablebase;

use super::{Judge, Puzzle, PuzzleError, Wanted, load_str, pick};

/// What kind of training position to find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrainRequest {
    /// The table's material (canonical: the stronger side is red).
    pub material: Material,
    /// A win to play out (`true`), or a hard draw to hold.
    pub win: bool,
    /// For a win: its length in moves, from and to (1 to 95).
    pub moves: (u32, u32),
    /// The side the player takes; by default the stronger side for a win, the weaker for
    /// a draw.
    pub side: Option<Color>,
    /// The random seed: the same seed gives the same position.
    pub seed: u64,
}

/// The longest win a training position can ask for, in moves.
pub const MAX_TRAIN_MOVES: u32 = 95;

/// Positions tried before giving up.
const TRIES: u32 = 2_000_000;

/// A training puzzle from `request.material`'s table (which must be built), with its main
/// line; `None` when no position of the kind asked for was found.
pub fn training_puzzle(
    tb: &Tablebase,
    request: &TrainRequest,
) -> Result<Option<Puzzle>, PuzzleError> {
    let TrainRequest {
        material: m,
        win,
        moves: (min, max),
        side,
        seed,
    } = *request;
    let flip = match side {
        None => false,
        Some(Color::Red) => !win,
        Some(Color::Black) => win,
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let wanted = if win {
        Wanted::Win { min, max }
    } else {
        Wanted::HardDraw
    };
    let Some(pos) = pick(tb, m, wanted, &mut rng, TRIES)? else {
        return Ok(None);
    };
    let pos = if flip { pos.color_flipped() } else { pos };
    let goal = format!(
        "{}先{}",
        pos.turn().chinese(),
        if win { "胜" } else { "和" }
    );
    let text = format!(
        "[[puzzle]]\nid = \"train-{seed}\"\ntitle = \"{} 训练\"\nsource = \"found in the {m} table\"\nfen = \"{pos}\"\ngoal = \"{goal}\"\nline = []\ndifficulty = 3\n",
        m.chinese()
    );
    let mut p = load_str(std::path::Path::new("train.toml"), &text)?.remove(0);
    let judge = Judge::new(Some(tb));
    // the line a draw must hold for, and the main line for `solution`
    p.line = judge.main_line(&p.position, p.goal, p.budget(), 8)?;
    Ok(Some(p))
}
