//! Reports a front end shows or serializes: a probed position with every move ranked, a
//! table's statistics, what a table is before it is built, and the verification of a
//! family of tables. Each is a plain serde-serializable value; the command line prints it
//! as text or JSON, the server as JSON.

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use crate::game::material::Material;
use crate::game::piece::Color;
use crate::game::position::Position;
use crate::notation::{self, Notation, Style};

use super::format::Rules;
use super::index::Layout;
use super::limit::{self, over_limit};
use super::{TableError, Tablebase, Value, stats, verify};

/// The level of a verdict by rule.
fn rule_level(v: Value) -> Option<u32> {
    match v {
        Value::RuleWin(n) | Value::RuleLoss(n) => Some(n),
        _ => None,
    }
}

/// A legal move of a probed position and its value.
#[derive(Clone, Debug, Serialize)]
pub struct ProbedMove {
    /// The move.
    #[serde(skip)]
    pub mv: crate::game::moves::Move,
    /// Its value for the side that plays it.
    #[serde(skip)]
    pub value: Value,
    /// The move in ICCS coordinates (`h2e2`).
    pub iccs: String,
    /// The move in WXF notation (`C2.5`).
    pub wxf: String,
    /// The move in Chinese notation (`炮二平五`).
    pub chinese: String,
    /// The verdict for the side that moved: win, draw or loss.
    pub verdict: &'static str,
    /// Plies to mate after the move, for a win or a loss by mate.
    pub plies: Option<u32>,
    /// A verdict of the perpetual-check rule, with its level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_rule: Option<u32>,
    /// The position after the move needs more than 120 plies to the next capture or mate.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub beyond_move_limit: bool,
}

/// A probed position: `canju probe --json` and the server's `/api/probe`.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    /// The position's value for the side to move.
    #[serde(skip)]
    pub value: Value,
    /// The position's FEN.
    pub fen: String,
    /// `red` or `black`.
    pub side_to_move: &'static str,
    /// The table's material (`KNPKAABB`).
    pub material: String,
    /// The material in Chinese (马兵对士象全).
    pub material_chinese: String,
    /// The rule set of the table.
    pub rules: String,
    /// The verdict for the side to move: win, draw or loss.
    pub verdict: &'static str,
    /// Plies to mate, for a win or a loss by mate.
    pub plies: Option<u32>,
    /// A verdict of the perpetual-check rule, with its level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_rule: Option<u32>,
    /// More than 120 plies to the next capture or mate: a draw under the 60-move limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub beyond_move_limit: bool,
    /// Every legal move, best first.
    pub moves: Vec<ProbedMove>,
}

/// Probes a position and every legal move (best first). `limit`: also flag wins and losses
/// beyond the 60-move limit (computing a table's flags on first need; a server, which must
/// answer at once, leaves them out).
pub fn probe(tb: &Tablebase, pos: &Position, limit: bool) -> Result<ProbeReport, TableError> {
    // the value first: a position larger than any table is refused for that, before its
    // table is looked for
    let value = tb.probe(pos)?;
    let material = Material::of(pos).canonical();
    let table = tb.table(material)?;
    let moves = tb.rank_moves(pos)?;
    let style = Style::default();
    let namer = notation::MoveNamer::new(pos);
    let over = |p: &Position| -> Result<bool, TableError> {
        if limit { over_limit(tb, p) } else { Ok(false) }
    };
    let move_over: Vec<bool> = moves
        .iter()
        .map(|r| {
            let mut c = pos.clone();
            c.play_unchecked(r.mv);
            over(&c)
        })
        .collect::<Result<_, _>>()?;
    Ok(ProbeReport {
        value,
        fen: pos.to_string(),
        side_to_move: pos.turn().name(),
        material: material.to_string(),
        material_chinese: material.chinese(),
        rules: rules_name(&table.header().rules),
        verdict: value.verdict(),
        plies: value.plies(),
        by_rule: rule_level(value),
        beyond_move_limit: over(pos)?,
        moves: moves
            .iter()
            .zip(move_over)
            .map(|(r, beyond_move_limit)| ProbedMove {
                mv: r.mv,
                value: r.value,
                iccs: r.mv.to_string(),
                wxf: namer.name(r.mv, Notation::Wxf, style),
                chinese: namer.name(r.mv, Notation::Chinese, style),
                verdict: r.value.verdict(),
                plies: r.value.plies(),
                by_rule: rule_level(r.value),
                beyond_move_limit,
            })
            .collect(),
    })
}

/// One side to move's counts in [`StatsReport`].
#[derive(Clone, Debug, Serialize)]
pub struct SideReport {
    /// Legal positions.
    pub legal: u64,
    /// Won for the side to move.
    pub win: u64,
    /// Drawn.
    pub draw: u64,
    /// Lost for the side to move.
    pub loss: u64,
    /// Of the wins, those by the perpetual-check rule (asian tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub win_by_rule: Option<u64>,
    /// Of the losses, those by the perpetual-check rule (asian tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_by_rule: Option<u64>,
    /// Wins by mate needing more than 120 plies to the next capture or mate.
    pub win_beyond_move_limit: u64,
    /// Losses by mate needing more than 120 plies to the next capture or mate.
    pub loss_beyond_move_limit: u64,
    /// The longest win, in plies.
    pub longest: u32,
    /// A position of the longest win.
    pub longest_fen: Option<String>,
}

/// A table's statistics: `canju stats`.
#[derive(Clone, Debug, Serialize)]
pub struct StatsReport {
    /// The table's material.
    pub material: String,
    /// Its rule set.
    pub rules: String,
    /// Entries whose distance is kept in the far list (0 unless the table is wide).
    pub far_entries: usize,
    /// Red to move.
    pub red_to_move: SideReport,
    /// Black to move.
    pub black_to_move: SideReport,
}

impl StatsReport {
    /// The side to move's counts.
    pub fn side(&self, c: Color) -> &SideReport {
        match c {
            Color::Red => &self.red_to_move,
            Color::Black => &self.black_to_move,
        }
    }
}

/// The statistics of `m`'s table in `tb`. The 60-move-limit counts need the table's flags:
/// `computing_flags` is called before they are computed (the first time, for a table with
/// wins that long; they are kept for next time).
pub fn stats(
    tb: &Tablebase,
    m: Material,
    computing_flags: &dyn Fn(),
) -> Result<StatsReport, TableError> {
    let table = tb.table(m)?;
    let h = table.header();
    let by_rule = match tb.rules() {
        Rules::None => None,
        Rules::CheckOnly | Rules::Asian => Some(super::diff::rule_counts(&table)?),
    };
    // a loss is at most one ply longer than the longest win: without a mate distance
    // beyond the limit, nothing can be beyond it
    let longest = h.sides.iter().map(|s| s.longest).max().unwrap_or(0);
    let over = if longest + 1 > limit::MOVE_LIMIT_PLIES {
        computing_flags();
        limit::flags(&table, tb)?.counts
    } else {
        [[0; 2]; 2]
    };
    let side = |c: Color| {
        let s = &h.sides[c.index()];
        SideReport {
            win_beyond_move_limit: over[c.index()][0],
            loss_beyond_move_limit: over[c.index()][1],
            win_by_rule: by_rule.map(|r| r[c.index()].draw_to_win),
            loss_by_rule: by_rule.map(|r| r[c.index()].draw_to_loss),
            legal: s.legal,
            win: s.win,
            draw: s.draw,
            loss: s.loss,
            longest: s.longest,
            longest_fen: (s.longest > 0)
                .then(|| {
                    table
                        .layout()
                        .position(s.longest_index, c)
                        .map(|p| p.to_string())
                })
                .flatten(),
        }
    };
    Ok(StatsReport {
        material: h.material.clone(),
        rules: rules_name(&h.rules),
        far_entries: table.far_list().len(),
        red_to_move: side(Color::Red),
        black_to_move: side(Color::Black),
    })
}

/// What a material's table is: `canju info`.
#[derive(Clone, Debug, Serialize)]
pub struct InfoReport {
    /// The material.
    pub material: Material,
    /// Its pieces, both generals included.
    pub pieces: usize,
    /// Entries per side to move.
    pub index_size: u64,
    /// Tables a build of it makes, itself included.
    pub tables_to_build: usize,
    /// Where its file is (or would be).
    pub path: PathBuf,
    /// The file is present.
    pub built: bool,
    /// Legal positions per side to move (red, black): from the table when it is built,
    /// counted when asked, else not known.
    pub legal: Option<[u64; 2]>,
}

/// What `m`'s table is. `count`: when the table is not built, count its legal positions
/// (a pass over the index, reported to `progress` as done and total).
pub fn info(
    tb: &Tablebase,
    m: Material,
    count: bool,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<InfoReport, TableError> {
    let layout = Layout::new(m).ok_or_else(|| too_many_pieces(&m))?;
    let path = tb.path_of(&m);
    let built = path.exists();
    let legal = if built {
        let h = tb.table(m)?.header().clone();
        Some([h.sides[0].legal, h.sides[1].legal])
    } else if count {
        Some(stats::count_legal_with_progress(&layout, progress))
    } else {
        None
    };
    Ok(InfoReport {
        material: m,
        pieces: m.piece_count(),
        index_size: layout.size(),
        tables_to_build: m.build_order().len(),
        path,
        built,
        legal,
    })
}

fn too_many_pieces(m: &Material) -> TableError {
    TableError::Unsupported(format!(
        "{m}: {} pieces; canju's tables hold at most {} (both generals included)",
        m.piece_count(),
        super::index::MAX_PIECES
    ))
}

/// One table checked by [`verify_family`].
#[derive(Clone, Debug, Serialize)]
pub struct Verified {
    /// The table's material.
    pub material: Material,
    /// Positions checked.
    pub positions: u64,
    /// Seconds it took.
    pub seconds: f64,
}

/// Verifies `family` (one table, or a table and every table it falls into) with the
/// independent verifier, each table in full. Every table must be present before any work
/// starts (a missing one is named at once). `progress(material, done, total)` follows each
/// table; `each` gets each table's result as it is done. Memory is let go after each table.
pub fn verify_family(
    tb: &Tablebase,
    family: &[Material],
    progress: &(dyn Fn(&Material, u64, u64) + Sync),
    each: &mut dyn FnMut(&Verified),
) -> Result<u64, verify::VerifyError> {
    for t in family {
        tb.table(*t)?;
        tb.forget(t);
    }
    let mut total = 0;
    for t in family {
        let start = Instant::now();
        let table = tb.table(*t)?;
        let positions = verify::verify(&table, tb, &|done, all| progress(t, done, all))?;
        total += positions;
        each(&Verified {
            material: *t,
            positions,
            seconds: start.elapsed().as_secs_f64(),
        });
        // the table and its sub-tables were decompressed whole: let that memory go
        drop(table);
        tb.forget(t);
        for sub in t.captures() {
            tb.forget(&sub);
        }
    }
    Ok(total)
}

/// The rule set a header names, as the command line names it (`none`, `asian`); a name no
/// rule set has is kept as it is.
fn rules_name(header: &str) -> String {
    Rules::from_header(header).map_or_else(|| header.to_string(), |r| r.name().to_string())
}
