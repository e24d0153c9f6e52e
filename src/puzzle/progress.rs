//! The player's progress: a small JSON file in the data directory (`$CANJU_HOME`, else
//! `$XDG_DATA_HOME/canju`, else `~/.local/share/canju`). A damaged file is reported and
//! kept aside under another name, never silently lost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One puzzle's record.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub solved: bool,
    /// Attempts that ended in a mistake.
    pub failed: u32,
    pub attempts: u32,
}

/// Everything recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
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

/// Reads the progress file: empty progress when there is none; when it is damaged (bad
/// JSON, bytes that are not UTF-8), it is renamed aside under the file's lock and the
/// message says where it went. A path that is not a regular file is an error.
pub fn load(path: &Path) -> Result<(Progress, Option<String>), String> {
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
fn read(path: &Path) -> Result<Option<Progress>, String> {
    let bytes = match crate::files::read_regular(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Some(Progress::default()));
        }
        Err(e) => return Err(io_error(path, &e)),
    };
    Ok(serde_json::from_slice(&bytes).ok())
}

fn io_error(path: &Path, e: &std::io::Error) -> String {
    format!(
        "{}: {}",
        path.display(),
        crate::tablebase::format::io_message(e)
    )
}

fn lock(path: &Path) -> Result<crate::files::Lock, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, &e))?;
    }
    crate::files::Lock::exclusive(path).map_err(|e| io_error(path, &e))
}

/// Renames a damaged file to the first free `NAME.damaged-N`; the message says where.
fn set_aside(path: &Path) -> Result<String, String> {
    let aside = (1..1000)
        .map(|i| path.with_extension(format!("json.damaged-{i}")))
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .ok_or_else(|| {
            format!(
                "{}: damaged, and no name free to keep it aside",
                path.display()
            )
        })?;
    std::fs::rename(path, &aside).map_err(|e| {
        format!(
            "{}: damaged, and it cannot be kept aside: {}",
            path.display(),
            crate::tablebase::format::io_message(&e)
        )
    })?;
    Ok(format!(
        "{} was damaged; it is kept as {} and progress starts afresh",
        path.display(),
        aside.display()
    ))
}

/// Writes the progress file whole (a temporary file renamed into place). To record an
/// attempt while other processes may record theirs, use [`update`].
pub fn save(path: &Path, p: &Progress) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, &e))?;
    }
    let text = serde_json::to_string_pretty(p).map_err(|e| e.to_string())?;
    crate::files::write_atomically(path, &[text.as_bytes()]).map_err(|e| io_error(path, &e))
}

/// Changes the progress file under its lock: reads what is there now (setting a damaged
/// file aside), applies `change`, writes the result. Two processes (two terminals, the
/// page and a terminal) that update at once take turns, and neither loses the other's
/// records. Returns the progress as written and the warning about a damaged file, if any.
pub fn update(
    path: &Path,
    change: impl FnOnce(&mut Progress),
) -> Result<(Progress, Option<String>), String> {
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
        assert!(warn.unwrap().contains("damaged"));
        assert!(dir.join("progress.json.damaged-1").exists());
        // bytes that are not UTF-8 are damage too, set aside by an update as well
        std::fs::write(&path, b"{\"puzzles\": {\"\xff\": 1}}").unwrap();
        let (q, warn) = update(&path, |p| p.record("mate-003", true)).unwrap();
        assert_eq!(q.puzzles.len(), 1);
        assert!(warn.unwrap().contains("damaged-2"));
        assert_eq!(load(&path).unwrap().0, q);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
