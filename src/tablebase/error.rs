//! What goes wrong with tables: [`TableError`], with the data a front end needs to word
//! it and its [`Remedy`] (what to run to fix it), and [`Shortfall`] for a build that does
//! not fit the machine.

use std::path::{Path, PathBuf};

use super::rules::{Rules, file_name, file_name_of};
use crate::game::material::Material;
use crate::system::size;

/// Why a build does not fit this machine, with the numbers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Shortfall {
    /// The largest table's arrays need more memory than is available.
    #[error("{material} needs about {} of memory at its peak, and {} is available", size(*need), size(*available))]
    Memory {
        /// The table with the largest peak.
        material: Material,
        /// Its peak, in bytes.
        need: u64,
        /// Memory available, in bytes.
        available: u64,
    },
    /// The files to write need more disk than is free.
    #[error("the {tables} tables to build take about {} on disk, and {} is free", size(*need), size(*free))]
    Disk {
        /// Tables to build.
        tables: usize,
        /// Bytes they take, at most.
        need: u64,
        /// Bytes free.
        free: u64,
    },
}

/// What is wrong with a table file or directory. Every variant names the file (or the
/// directory) and carries what a front end needs to word it; [`HasRemedy::remedy`] says
/// what fixes it.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// Reading or writing a file failed; the cause is kept as the error's source.
    #[error("{path}: {}", io_message(source))]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A build that cannot fit this machine's memory or disk.
    #[error("{what} cannot be built here: {shortfall}")]
    DoesNotFit {
        /// The material, class or list asked for.
        what: String,
        /// What is short, with the numbers.
        #[source]
        shortfall: Shortfall,
    },
    /// The file does not start with a table's magic bytes.
    #[error("{path}: not a canju table (bad magic)")]
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// The path is something other than a regular file (a directory, a pipe, a device).
    #[error("{path}: {kind}, not a table file")]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is, in words ("a directory").
        kind: &'static str,
    },
    /// The file is shorter or longer than its header says.
    #[error("{path}: truncated or padded: {actual} bytes, expected {expected}")]
    Size {
        /// The file.
        path: PathBuf,
        /// Its size.
        actual: u64,
        /// The size its header gives.
        expected: u64,
    },
    /// The header is damaged: a checksum or a field that does not hold.
    #[error("{path}: damaged header ({reason})")]
    Header {
        /// The file.
        path: PathBuf,
        /// What does not hold.
        reason: String,
    },
    /// A header field names something this canju does not read (a format, a material or a
    /// rule set other than the one asked for).
    #[error("{path}: {what} is {found}, this canju reads {expected}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The field.
        what: &'static str,
        /// Its value in the file.
        found: String,
        /// What was expected.
        expected: String,
    },
    /// A perpetual-check table (`check-only`, `asian` in its header: the name it had before
    /// the whole 长打 rule) under the whole rule's file name: building the material again
    /// renames it to its own name and builds the whole rule's table.
    #[error(
        "{path}: a perpetual-check table (rules check-only; its header says asian, the name before the whole 长打 rule): `canju gen {material}` renames it {renamed} and builds the whole rule's table"
    )]
    CheckOnlyAsAsian {
        /// The file.
        path: PathBuf,
        /// Its material.
        material: String,
        /// The name it is given.
        renamed: String,
    },
    /// A table of an older file format: building it again converts it.
    #[error("{path}: table format {found} from an older canju (this one reads {reads})")]
    OldFormat {
        /// The file.
        path: PathBuf,
        /// Its format.
        found: u32,
        /// The format this canju reads.
        reads: u32,
    },
    /// A block's checksum does not match its bytes.
    #[error(
        "{path}: block {block} ({side} to move, entries {first}..={last}) is damaged (checksum mismatch)"
    )]
    Block {
        /// The file.
        path: PathBuf,
        /// The block's number.
        block: u64,
        /// `red` or `black`: the side to move of its entries.
        side: &'static str,
        /// Its first entry.
        first: u64,
        /// Its last entry.
        last: u64,
    },
    /// An entry holds a code no table writes.
    #[error("{path}: corrupted entry {index} (code {code})")]
    Entry {
        /// The file.
        path: PathBuf,
        /// The entry's index.
        index: u64,
        /// The code found.
        code: u8,
    },
    /// The table is not built.
    #[error("no {material} table{rules} in {dir}{place}", rules = match rules { Rules::None => " without repetition rulings (rules none)", Rules::CheckOnly => " under the perpetual-check rule alone (rules check-only)", Rules::Asian => "" }, place = dir_state.note(dir))]
    Missing {
        /// The table's material.
        material: String,
        /// The directory looked in.
        dir: PathBuf,
        /// The rule set asked for.
        rules: Rules,
        /// What the directory is: a missing table in a missing directory says so.
        dir_state: DirState,
    },
    /// `build_without_deps`: a table a capture leads into is not built.
    #[error("{material} needs the table of {sub} ({}), which is not in {}", sub.chinese(), dir.display())]
    MissingSubTable {
        /// The table to build.
        material: Material,
        /// The table it needs first.
        sub: Material,
        /// The table directory.
        dir: PathBuf,
        /// The rule set of the build.
        rules: Rules,
    },
    /// The build was told to stop (its caller was interrupted) before the table was
    /// written; the checkpoints written so far resume it.
    #[error(
        "the build of {material} was stopped before its table was written; building it again resumes from its last checkpoint"
    )]
    Stopped {
        /// The table being built.
        material: Material,
    },
    /// Something tables cannot do (more pieces than a table holds, say), in words.
    #[error("{0}")]
    Unsupported(String),
    /// A composed position: a piece stands where no game can put it, and the tables index
    /// only the placements a game reaches (the solver searches such positions instead).
    #[error("no table value: {0} (the tables hold only positions a game can reach)")]
    Unreachable(crate::game::position::Unreachable),
}

/// What a table directory is, for a table missing from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirState {
    /// A directory: only the table is missing.
    Present,
    /// Something that is not a directory.
    NotADirectory,
    /// Nothing.
    Absent,
}

impl DirState {
    /// What `dir` is now.
    pub fn of(dir: &Path) -> DirState {
        if dir.is_dir() {
            DirState::Present
        } else if dir.exists() {
            DirState::NotADirectory
        } else {
            DirState::Absent
        }
    }

    fn note(self, dir: &Path) -> String {
        match self {
            DirState::Present => String::new(),
            DirState::NotADirectory => format!(" ({} is not a directory)", dir.display()),
            DirState::Absent => format!(" (the directory {} does not exist)", dir.display()),
        }
    }
}

/// What fixes a table error: data for a front end to put in its own words (the command
/// line names a `canju gen` command for it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remedy {
    /// Build the table whose file would be at `path`.
    Build {
        /// The table file's path.
        path: PathBuf,
    },
    /// Build this table alone first (its own captures' tables present).
    BuildAlone {
        /// The table's file.
        path: PathBuf,
    },
    /// Delete the damaged file and build it again.
    Rebuild {
        /// The damaged file.
        path: PathBuf,
    },
    /// Rewrite a table of an older format in this one (building it converts it).
    Convert {
        /// The old file.
        path: PathBuf,
    },
}

/// An error that may have a [`Remedy`]: a table error, or an error that carries one.
pub trait HasRemedy {
    /// What fixes this error, when something the user can run does.
    fn remedy(&self) -> Option<Remedy>;
}

impl HasRemedy for TableError {
    fn remedy(&self) -> Option<Remedy> {
        match self {
            TableError::Size { path, .. }
            | TableError::Header { path, .. }
            | TableError::Block { path, .. }
            | TableError::Entry { path, .. } => Some(Remedy::Rebuild { path: path.clone() }),
            TableError::OldFormat { path, .. } => Some(Remedy::Convert { path: path.clone() }),
            TableError::Missing {
                material,
                dir,
                rules,
                ..
            } => Some(Remedy::Build {
                path: dir.join(file_name_of(material, *rules)),
            }),
            TableError::MissingSubTable {
                sub, dir, rules, ..
            } => Some(Remedy::BuildAlone {
                path: dir.join(file_name(sub, *rules)),
            }),
            _ => None,
        }
    }
}

impl TableError {
    /// An I/O error on a path (shown in plain words, kept as the source).
    pub fn io(path: &Path, e: std::io::Error) -> TableError {
        TableError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

/// An I/O error in plain words, without the OS error number.
pub fn io_message(e: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    match e.kind() {
        NotFound => "does not exist".into(),
        PermissionDenied => "permission denied".into(),
        AlreadyExists => "already exists".into(),
        StorageFull => "no space left on the device".into(),
        NotADirectory => "a path component is not a directory".into(),
        IsADirectory => "is a directory".into(),
        ReadOnlyFilesystem => "read-only file system".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}
