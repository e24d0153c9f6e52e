//! `canju plan`: a material's tables as a DAG of independent jobs (each table needs only
//! the tables its captures lead into), printed as a Makefile or a Snakemake workflow, so
//! that an existing engine runs them in parallel, on one machine or on a cluster.

use std::path::PathBuf;

use canju::game::material::Material;
use canju::tablebase::format::{Rules, file_name};
use canju::tablebase::plan::JobResources;

use super::common::{material_arg, table_dir};
use super::{CliError, CliResult};

/// Characters a path or program may hold in a plan: make, Snakemake and the shell read
/// them as they are (make splits targets at `:`, the shell expands `~`, and a leading `-`
/// would be read as an option).
const PLAIN: &str = "letters, digits and / . _ - + @, not starting with -";

/// Why a path or program cannot stand in a plan, if it cannot.
fn not_plain(text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("it is empty".into());
    }
    if text.starts_with('-') {
        return Some("it starts with '-', which the jobs would read as an option".into());
    }
    text.chars()
        .find(|&c| !(c.is_alphanumeric() || "/._-+@".contains(c)))
        .map(|c| match c {
            ':' => "it holds ':', where make splits a rule's targets from its prerequisites".into(),
            c if c.is_whitespace() => {
                "it holds a space, where make and the shell split words".into()
            }
            c => format!("it holds '{c}', which make or the shell would read as syntax"),
        })
}

pub fn run(
    sig: &str,
    format: &str,
    dir: &Option<PathBuf>,
    bin: &str,
    threads: Option<usize>,
    rules: Rules,
) -> CliResult {
    let m = material_arg(sig)?;
    let dir = table_dir(dir)?;
    let dir_text = dir.to_string_lossy().into_owned();
    if let Some(why) = not_plain(&dir_text) {
        return Err(CliError::input(format!(
            "--dir '{dir_text}': {why}; a plan names it in make and shell lines, so use {PLAIN}"
        )));
    }
    if let Some(why) = not_plain(bin) {
        return Err(CliError::input(format!(
            "--bin '{bin}': {why}; use {PLAIN}"
        )));
    }
    if let Some(t) = threads.filter(|&t| t == 0 || t > 256) {
        return Err(CliError::input(format!("--threads {t}: between 1 and 256")));
    }
    let jobs: Vec<(Material, Vec<Material>)> = m
        .build_order()
        .into_iter()
        .map(|t| (t, t.captures()))
        .collect();
    // the rule set always named, so that a job means the same whatever the default
    let threads_arg =
        threads.map_or(String::new(), |t| format!(" --threads {t}")) + &format!(" --rules {rules}");
    let head = format!(
        "canju plan {m} ({}): {} tables, one job each; a job needs the tables its captures lead into",
        m.chinese(),
        jobs.len()
    );
    match format {
        "make" => {
            outln!("# {head}.");
            outln!("# Run: make -f THIS_FILE -j 2 (each job uses the threads it is given)");
            outln!("CANJU := {bin}");
            outln!("DIR := {dir_text}");
            outln!();
            outln!(".PHONY: all");
            outln!("all: $(DIR)/{}", file_name(&m, rules));
            for (t, subs) in &jobs {
                let deps: Vec<String> = subs
                    .iter()
                    .map(|s| format!("$(DIR)/{}", file_name(s, rules)))
                    .collect();
                outln!();
                outln!(
                    "$(DIR)/{}:{}{}",
                    file_name(t, rules),
                    if deps.is_empty() { "" } else { " " },
                    deps.join(" ")
                );
                outln!("\t$(CANJU) gen {t} --no-deps --dir $(DIR){threads_arg}");
            }
        }
        "snakemake" => {
            outln!("# {head}.");
            outln!(
                "# Run: snakemake -s THIS_FILE --cores 2 (or on Slurm: --executor slurm --jobs N);\n\
                 # each job asks for the threads, memory (MB) and minutes canju estimates for it"
            );
            outln!();
            outln!("rule all:");
            outln!("    input: \"{dir_text}/{}\"", file_name(&m, rules));
            for (t, subs) in &jobs {
                outln!();
                outln!("rule table_{t}:");
                if !subs.is_empty() {
                    let deps: Vec<String> = subs
                        .iter()
                        .map(|s| format!("\"{dir_text}/{}\"", file_name(s, rules)))
                        .collect();
                    outln!("    input: {}", deps.join(", "));
                }
                outln!("    output: \"{dir_text}/{}\"", file_name(t, rules));
                let r = JobResources::of(t, rules, threads.unwrap_or(2));
                outln!("    threads: {}", r.threads);
                outln!(
                    "    resources: mem_mb={}, runtime={}",
                    r.mem_mb,
                    r.runtime_minutes
                );
                outln!(
                    "    shell: \"{bin} gen {t} --no-deps --dir {dir_text} --threads {{threads}} --rules {rules}\""
                );
            }
        }
        other => {
            return Err(CliError::input(format!(
                "--format '{other}': make or snakemake"
            )));
        }
    }
    Ok(())
}
