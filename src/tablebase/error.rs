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

/// What is wrong with a table file or directory.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// Reading or writing a file failed; the cause is kept as the error's source.
    #[error("{path}: {}", io_message(source))]
    Io {
        path: PathBuf,
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
    #[error("{path}: not a canju table (bad magic)")]
    NotATable { path: PathBuf },
    #[error("{path}: {kind}, not a table file")]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path}: truncated or padded: {actual} bytes, expected {expected}")]
    Size {
        path: PathBuf,
        actual: u64,
        expected: u64,
    },
    #[error("{path}: damaged header ({reason})")]
    Header { path: PathBuf, reason: String },
    #[error("{path}: {what} is {found}, this canju reads {expected}")]
    Mismatch {
        path: PathBuf,
        what: &'static str,
        found: String,
        expected: String,
    },
    #[error("{path}: table format {found} from an older canju (this one reads {reads})")]
    OldFormat {
        path: PathBuf,
        found: u32,
        /// The format this canju reads.
        reads: u32,
    },
    #[error(
        "{path}: block {block} ({side} to move, entries {first}..={last}) is damaged (checksum mismatch)"
    )]
    Block {
        path: PathBuf,
        block: u64,
        side: &'static str,
        first: u64,
        last: u64,
    },
    #[error("{path}: corrupted entry {index} (code {code})")]
    Entry { path: PathBuf, index: u64, code: u8 },
    #[error("no {material} table{rules} in {dir}{place}", rules = if *rules == Rules::None { " without the perpetual-check rule (rules none)" } else { "" }, place = dir_state.note(dir))]
    Missing {
        material: String,
        dir: PathBuf,
        rules: Rules,
        /// What the directory is: a missing table in a missing directory says so.
        dir_state: DirState,
    },
    /// `build_without_deps`: a table a capture leads into is not built.
    #[error("{material} needs the table of {sub} ({}), which is not in {}", sub.chinese(), dir.display())]
    MissingSubTable {
        material: Material,
        sub: Material,
        dir: PathBuf,
        rules: Rules,
    },
    #[error("{0}")]
    Unsupported(String),
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
/// line names a `canju gen` command; see [`gen_command`]).
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
