//! The player's progress: a small JSON file in the data directory (`$CANJU_HOME`, else
//! `$XDG_DATA_HOME/canju`, else `~/.local/share/canju`). A damaged file is reported and
//! kept aside under another name, never silently lost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One puzzle's record.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// Solved at least once.
    pub solved: bool,
    /// Attempts that ended in a mistake.
    pub failed: u32,
    /// Attempts recorded.
    pub attempts: u32,
}

/// Everything recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// Each puzzle's record, by id.
    pub puzzles: BTreeMap<String, Record>,
    /// Puzzles solved in a row.
    pub streak: u32,
}

impl Progress {
    /// Records an attempt at a puzzle.
    pub fn record(&mut self, id: &str, solved: bool) {
        let r = self.puzzles.entry(id.to_string()).or_default();
        r.attempts = r.attempts.saturating_add(1);
        if solved {
            r.solved = true;
            self.streak = self.streak.saturating_add(1);
        } else {
            r.failed = r.failed.saturating_add(1);
            self.streak = 0;
        }
    }

    /// The puzzle to do next among `all`: the first failed and not yet solved, else the
    /// first not solved; `None` when every one is solved.
    pub fn next<'a>(&self, all: &'a [super::Puzzle]) -> Option<&'a super::Puzzle> {
        let unsolved = |p: &&super::Puzzle| self.get(&p.entry.id).is_none_or(|r| !r.solved);
        all.iter()
            .filter(unsolved)
            .find(|p| self.get(&p.entry.id).is_some_and(|r| r.failed > 0))
            .or_else(|| all.iter().find(unsolved))
    }

    /// A puzzle's record.
    pub fn get(&self, id: &str) -> Option<&Record> {
        self.puzzles.get(id)
    }
}

/// The progress file's path.
pub fn default_path() -> Option<PathBuf> {
    let nonempty = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let dir = nonempty("CANJU_HOME")
        .or_else(|| nonempty("XDG_DATA_HOME").map(|d| d.join("canju")))
        .or_else(|| nonempty("HOME").map(|h| h.join(".local/share/canju")))?;
    Some(dir.join("progress.json"))
}

/// Why the progress file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ProgressError {
    /// Reading, writing or locking a path failed.
    #[error("{path}: {}", crate::tablebase::format::io_message(source))]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file was damaged and could not be set aside (no free name, or the rename
    /// failed).
    #[error("{path}: damaged, and {}", match source { Some(e) => format!("it cannot be kept aside: {}", crate::tablebase::format::io_message(e)), None => "no name free to keep it aside".to_string() })]
    CannotSetAside {
        /// The damaged file.
        path: PathBuf,
        /// Why the rename failed, when it was tried.
        #[source]
        source: Option<std::io::Error>,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ProgressError + '_ {
    move |source| ProgressError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A damaged progress file was renamed aside; progress starts afresh.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{damaged} was damaged; it is kept as {kept} and progress starts afresh")]
pub struct SetAside {
    /// The progress file.
    pub damaged: PathBuf,
    /// Where its bytes are kept.
    pub kept: PathBuf,
}

/// Reads the progress file: empty progress when there is none; when it is damaged (bad
/// JSON, bytes that are not UTF-8), it is renamed aside under the file's lock and the
/// second value says where it went. A path that is not a regular file is an error.
pub fn load(path: &Path) -> Result<(Progress, Option<SetAside>), ProgressError> {
    match read(path)? {
        Some(p) => Ok((p, None)),
        None => {
            // set it aside under the lock, unless another writer has mended it meanwhile
            let _lock = lock(path)?;
            match read(path)? {
                Some(p) => Ok((p, None)),
                None => set_aside(path).map(|m| (Progress::default(), Some(m))),
            }
        }
    }
}

/// The file's progress: `Some(empty)` when there is no file, `None` when it is damaged.
fn read(path: &Path) -> Result<Option<Progress>, ProgressError> {
    let bytes = match crate::files::read_regular(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Some(Progress::default()));
        }
        Err(e) => return Err(io(path)(e)),
    };
    Ok(serde_json::from_slice(&bytes).ok())
}

fn lock(path: &Path) -> Result<crate::files::Lock, ProgressError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    crate::files::Lock::exclusive(path).map_err(io(path))
}

/// Renames a damaged file to the first free `NAME.damaged-N`.
fn set_aside(path: &Path) -> Result<SetAside, ProgressError> {
    let aside = (1..1000)
        .map(|i| path.with_extension(format!("json.damaged-{i}")))
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .ok_or_else(|| ProgressError::CannotSetAside {
            path: path.to_path_buf(),
            source: None,
        })?;
    std::fs::rename(path, &aside).map_err(|e| ProgressError::CannotSetAside {
        path: path.to_path_buf(),
        source: Some(e),
    })?;
    Ok(SetAside {
        damaged: path.to_path_buf(),
        kept: aside,
    })
}

/// Writes the progress file whole (a temporary file renamed into place). To record an
/// attempt while other processes may record theirs, use [`update`].
pub fn save(path: &Path, p: &Progress) -> Result<(), ProgressError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let text = serde_json::to_string_pretty(p).expect("progress serializes");
    crate::files::write_atomically(path, &[text.as_bytes()]).map_err(io(path))
}

/// Changes the progress file under its lock: reads what is there now (setting a damaged
/// file aside), applies `change`, writes the result. Two processes (two terminals, the
/// page and a terminal) that update at once take turns, and neither loses the other's
/// records. Returns the progress as written and where a damaged file went, if it was.
pub fn update(
    path: &Path,
    change: impl FnOnce(&mut Progress),
) -> Result<(Progress, Option<SetAside>), ProgressError> {
    let _lock = lock(path)?;
    let (mut p, warning) = match read(path)? {
        Some(p) => (p, None),
        None => (Progress::default(), Some(set_aside(path)?)),
    };
    change(&mut p);
    save(path, &p)?;
    Ok((p, warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_puzzle_is_a_failed_one_then_the_first_unsolved() {
        let all = crate::puzzle::load_builtin().unwrap();
        let id = |i: usize| all[i].entry.id.clone();
        let mut p = Progress::default();
        assert_eq!(p.next(&all).unwrap().entry.id, id(0));
        p.record(&id(0), true);
        p.record(&id(5), false);
        assert_eq!(p.next(&all).unwrap().entry.id, id(5));
        // failed, then solved: no longer first
        p.record(&id(5), true);
        assert_eq!(p.next(&all).unwrap().entry.id, id(1));
        for q in &all {
            p.record(&q.entry.id, true);
        }
        assert!(p.next(&all).is_none());
    }

    #[test]
    fn round_trip_and_damage() {
        let dir = std::env::temp_dir().join(format!("canju-progress-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("progress.json");
        let (mut p, warn) = load(&path).unwrap();
        assert!(warn.is_none() && p.puzzles.is_empty());
        p.record("mate-001", false);
        p.record("mate-001", true);
        p.record("mate-002", true);
        assert_eq!(p.streak, 2);
        let mut full = Progress {
            streak: u32::MAX,
            ..Progress::default()
        };
        full.puzzles.insert(
            "x".into(),
            Record {
                solved: false,
                failed: u32::MAX,
                attempts: u32::MAX,
            },
        );
        full.record("x", false);
        full.record("y", true);
        assert_eq!(full.puzzles["x"].failed, u32::MAX, "counters saturate");
        assert_eq!(full.puzzles["x"].attempts, u32::MAX);
        full.streak = u32::MAX;
        full.record("y", true);
        assert_eq!(full.streak, u32::MAX);
        save(&path, &p).unwrap();
        assert_eq!(load(&path).unwrap().0, p);
        std::fs::write(&path, b"{ not json").unwrap();
        let (q, warn) = load(&path).unwrap();
        assert!(q.puzzles.is_empty());
        assert_eq!(warn.unwrap().kept, dir.join("progress.json.damaged-1"));
        assert!(dir.join("progress.json.damaged-1").exists());
        // bytes that are not UTF-8 are damage too, set aside by an update as well
        std::fs::write(&path, b"{\"puzzles\": {\"\xff\": 1}}").unwrap();
        let (q, warn) = update(&path, |p| p.record("mate-003", true)).unwrap();
        assert_eq!(q.puzzles.len(), 1);
        assert!(warn.unwrap().to_string().contains("damaged-2"));
        assert_eq!(load(&path).unwrap().0, q);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
