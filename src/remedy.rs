//! How both front ends word a library error: its message, then what fixes it (a
//! `canju gen` command), in one place. The library's errors carry the data
//! ([`canju::tablebase::Remedy`]); the words naming this program's commands are here.

use std::fmt::Display;

use std::path::Path;

use canju::tablebase::{HasRemedy, Remedy, Rules};

/// An error's message with its remedy, on one line.
pub fn message(e: &(impl Display + HasRemedy)) -> String {
    let mut text = e.to_string();
    if let Some(r) = e.remedy() {
        text.push_str(&remedy_text(&r));
    }
    text
}

/// A remedy as the command line words it, to follow an error's message.
fn remedy_text(r: &Remedy) -> String {
    match r {
        Remedy::Build { path } => format!(": run `{}`", gen_command(path)),
        Remedy::BuildAlone { path } => {
            format!(
                ": build it first (`{} --no-deps`), or drop --no-deps",
                gen_command(path)
            )
        }
        Remedy::Rebuild { path } => format!(
            "; delete the file and run `{}` to build it again",
            gen_command(path)
        ),
        Remedy::Convert { path } => format!("; run `{}` to convert it", gen_command(path)),
    }
}

/// The `canju gen` command that builds a table file where it is (`--dir` when the file is
/// not in the default directory; the rule set its file name says, asian being the command
/// line's default).
pub fn gen_command(path: &Path) -> String {
    let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("");
    let stem = name
        .split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("MATERIAL");
    let rules = rules_flag(if name.ends_with(".asian.ctb") {
        Rules::Asian
    } else if name.ends_with(".check.ctb") {
        Rules::CheckOnly
    } else {
        Rules::None
    });
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && dir != Path::new("tablebases") => {
            format!("canju gen {stem} --dir {}{rules}", dir.display())
        }
        _ => format!("canju gen {stem}{rules}"),
    }
}

/// The `--rules` argument a `canju` command needs for a rule set: none for asian, the
/// command line's default.
pub fn rules_flag(rules: Rules) -> &'static str {
    match rules {
        Rules::Asian => "",
        Rules::CheckOnly => " --rules check-only",
        Rules::None => " --rules none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rule set's file gets the command that builds that rule set's table.
    #[test]
    fn the_command_builds_the_files_rule_set() {
        for (file, command) in [
            ("tablebases/KRKP.asian.ctb", "canju gen KRKP"),
            (
                "/tmp/tb/KRKP.check.ctb",
                "canju gen KRKP --dir /tmp/tb --rules check-only",
            ),
            ("KRKP.ctb", "canju gen KRKP --rules none"),
        ] {
            assert_eq!(gen_command(Path::new(file)), command, "{file}");
        }
    }
}
