//! How both front ends word a library error: its message, then what fixes it (a
//! `canju gen` command), in one place. The library's errors carry the data
//! ([`canju::tablebase::Remedy`]); the words naming this program's commands are here.

use std::fmt::Display;

use canju::tablebase::format::gen_command;
use canju::tablebase::{HasRemedy, Remedy};

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
