//! `canju` with no arguments: the main job ([`canju::main_job`]) with progress, then its
//! report and the commands to go on with.

use canju::main_job;
use canju::tablebase::{Rules, Tablebase};

use super::CliResult;
use super::common::{progress_for, summary, table_dir, table_error, thread_pool};

/// Builds 马兵对士象全 (KNPKAABB) and every table it falls into if missing, then measures
/// the saying 马卒难破士相全 over them and names the commands to go on with.
pub fn run() -> CliResult {
    let dir = table_dir(&None)?;
    // what a player sees: the rules players play under
    let tb = Tablebase::with_rules(&dir, Rules::Asian);
    outln!(
        "canju: 马兵对士象全 ({}) tables in {}, rules {}",
        main_job::MATERIAL,
        dir.display(),
        Rules::Asian.describe()
    );
    let pool = thread_pool(None)?;
    let job = pool
        .install(|| main_job::run(&tb, &progress_for, &mut |r| outln!("{}", summary(r))))
        .map_err(table_error)?;
    super::tb::job_line(job.material, &tb, &job.builds, job.seconds);
    outln!();
    super::theory::print_text(&job.saying);
    outln!();
    outln!(
        "Next: `canju puzzle play` for a puzzle ({} built in), `canju train KNPKAABB` for a position from this table, `canju theory 单车难胜士象全` for another saying, `canju solve --fen FEN` for a composition.",
        job.puzzles
    );
    Ok(())
}
