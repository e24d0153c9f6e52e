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
        r.attempts += 1;
        if solved {
            r.solved = true;
            self.streak += 1;
        } else {
            r.failed += 1;
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

/// Reads the progress file: empty progress when there is none; when it is damaged, it is
/// renamed aside and the message says where it went.
pub fn load(path: &Path) -> Result<(Progress, Option<String>), String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((Progress::default(), None));
        }
        Err(e) => {
            return Err(format!(
                "{}: {}",
                path.display(),
                crate::tablebase::format::io_message(&e)
            ));
        }
    };
    match serde_json::from_str(&text) {
        Ok(p) => Ok((p, None)),
        Err(_) => {
            let aside = (1..1000)
                .map(|i| path.with_extension(format!("json.damaged-{i}")))
                .find(|p| !p.exists())
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
            Ok((
                Progress::default(),
                Some(format!(
                    "{} was damaged; it is kept as {} and progress starts afresh",
                    path.display(),
                    aside.display()
                )),
            ))
        }
    }
}

/// Writes the progress file (a temporary file renamed into place).
pub fn save(path: &Path, p: &Progress) -> Result<(), String> {
    let io = |e: std::io::Error| {
        format!(
            "{}: {}",
            path.display(),
            crate::tablebase::format::io_message(&e)
        )
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let text = serde_json::to_string_pretty(p).map_err(|e| e.to_string())?;
    crate::files::write_atomically(path, &[text.as_bytes()]).map_err(io)
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
        save(&path, &p).unwrap();
        assert_eq!(load(&path).unwrap().0, p);
        std::fs::write(&path, b"{ not json").unwrap();
        let (q, warn) = load(&path).unwrap();
        assert!(q.puzzles.is_empty());
        assert!(warn.unwrap().contains("damaged"));
        assert!(dir.join("progress.json.damaged-1").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
