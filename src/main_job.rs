//! canju's main job, what `canju` with no arguments does: build 马兵对士象全
//! (`KNPKAABB`) and every table it falls into when missing, then measure the saying
//! 马卒难破士相全 over them. A front end shows the build's progress and the report.

use std::time::Instant;

use crate::game::material::Material;
use crate::tablebase::Tablebase;
use crate::tablebase::build::{self, Outcome, Report};
use crate::tablebase::generate::Progress;
use crate::theory::{self, Claim, Request, TheoryError};

/// The main job's endgame: 马兵对士象全.
pub const MATERIAL: &str = "KNPKAABB";
/// The saying it measures.
pub const SAYING: &str = "马卒难破士相全";
/// Counter-examples the report keeps per kind.
const EXAMPLES: usize = 3;

/// What the main job did and found.
pub struct MainJob {
    /// The endgame built.
    pub material: Material,
    /// Each table's build (or check, when it was present), in build order.
    pub builds: Vec<Report>,
    /// Tables built now.
    pub built: usize,
    /// Seconds the builds took.
    pub seconds: f64,
    /// The saying measured.
    pub saying: theory::Report,
    /// Puzzles built into canju, for the next step.
    pub puzzles: usize,
}

/// Runs the main job in `tb` (the current rayon pool builds): `progress` follows each
/// table's build, `each` gets each table's report as it is done.
pub fn run(
    tb: &Tablebase,
    progress: &dyn Fn(&Material) -> Box<dyn Progress>,
    each: &mut (dyn FnMut(&Report) + Send),
) -> Result<MainJob, TheoryError> {
    let material: Material = MATERIAL.parse().expect("the main job's material");
    let material = material.canonical();
    build::check_fits(material, tb)?;
    let start = Instant::now();
    let builds = build::build(material, tb, progress, each)?;
    let seconds = start.elapsed().as_secs_f64();
    let claim = Claim::parse(SAYING)?;
    let saying = theory::measure(
        &claim,
        tb,
        &Request {
            limit: EXAMPLES,
            ..Request::default()
        },
        &|_, _| {},
    )?;
    Ok(MainJob {
        material,
        built: builds
            .iter()
            .filter(|r| r.outcome == Outcome::Built)
            .count(),
        builds,
        seconds,
        saying,
        puzzles: crate::puzzle::load_builtin().map_or(0, |p| p.len()),
    })
}
