//! The player's progress: a small JSON file in the data directory (`$CANJU_HOME`, else
//! `$XDG_DATA_HOME/canju`, else `~/.local/share/canju`). A damaged file is reported and
//! kept aside under another name, never silently lost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::rating::{self, Rating};

/// How an attempt ended, as progress records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Finish {
    /// Solved with no mistake, no hint and no solution shown.
    Clean,
    /// Solved with no mistake, after a hint or the solution was shown.
    Helped,
    /// A mistake (even one taken back), or the defence won.
    Failed,
}

impl Finish {
    /// `clean`, `helped` or `failed`, as lists and JSON show it.
    pub fn name(self) -> &'static str {
        match self {
            Finish::Clean => "clean",
            Finish::Helped => "helped",
            Finish::Failed => "failed",
        }
    }

    /// From its name.
    pub fn from_name(s: &str) -> Option<Finish> {
        [Finish::Clean, Finish::Helped, Finish::Failed]
            .into_iter()
            .find(|f| f.name() == s)
    }
}

/// The waits of spaced repetition, in seconds: a puzzle failed or solved with help comes
/// back after 10 minutes, then (each time it is solved clean) after 1, 3, 7 and 21 days;
/// solved clean after the last wait, it is learned and leaves the review.
pub const REVIEW_WAITS: [u64; 5] = [600, 86_400, 3 * 86_400, 7 * 86_400, 21 * 86_400];

/// A puzzle under review: when it is due, and how far along the waits it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Review {
    /// The index in [`REVIEW_WAITS`] of the wait now running.
    pub step: u8,
    /// When it is due, in seconds since 1970.
    pub due: u64,
}

/// One puzzle's record.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// Solved at least once (clean or with help).
    pub solved: bool,
    /// Attempts solved clean.
    #[serde(default)]
    pub clean: u32,
    /// Attempts solved with help.
    #[serde(default)]
    pub helped: u32,
    /// Attempts that ended in a mistake.
    pub failed: u32,
    /// Attempts recorded.
    pub attempts: u32,
    /// How the last attempt ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Finish>,
    /// The puzzle's rating once it has been played (before, its seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<Rating>,
    /// When it comes back, if it is under review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<Review>,
    /// Replays before it was due again: practice, which moves neither rating nor review.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub practice: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What recording an attempt did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recorded {
    /// A replay of a puzzle already recorded and not due for review: practice, counted
    /// apart; ratings, review and streak as they were.
    pub practice: bool,
    /// The player's rating before.
    pub player_before: Rating,
    /// The player's rating after.
    pub player_after: Rating,
}

impl Recorded {
    /// The player's rating change as shown (`+12`, `−8`, `±0`), rounded as ratings are.
    pub fn change(&self) -> i32 {
        self.player_after.shown() - self.player_before.shown()
    }
}

impl Record {
    /// How the last attempt ended; for a record written before canju told help apart,
    /// solved counts as clean.
    pub fn last_finish(&self) -> Option<Finish> {
        self.last.or(if self.solved {
            Some(Finish::Clean)
        } else if self.failed > 0 {
            Some(Finish::Failed)
        } else {
            None
        })
    }

    /// When it is due for review: its review's time; a failed and never solved record
    /// from before the review existed is due at once.
    pub fn due(&self) -> Option<u64> {
        match self.review {
            Some(r) => Some(r.due),
            None if self.last.is_none() && self.failed > 0 && !self.solved => Some(0),
            None => None,
        }
    }
}

/// Everything recorded.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// Each puzzle's record, by id.
    pub puzzles: BTreeMap<String, Record>,
    /// Puzzles solved clean in a row.
    pub streak: u32,
    /// The player's rating.
    #[serde(default)]
    pub player: Rating,
}

/// Why a puzzle is served next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// It failed (or needed help) before, and its wait is over.
    Due,
    /// Never tried; the untried puzzle whose rating is nearest the player's.
    New,
}

/// The time now, in seconds since 1970.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Finish {
    /// The attempt as a game between the player and the puzzle.
    pub fn game(self) -> rating::Game {
        match self {
            Finish::Clean => rating::Game::Won,
            Finish::Helped => rating::Game::Drawn,
            Finish::Failed => rating::Game::Lost,
        }
    }
}

impl Progress {
    /// Records an attempt at `puzzle` that ended at `now` (seconds since 1970): its counts,
    /// both ratings (a clean solve is the player's win, a solve with help a draw, a
    /// failure a loss), and its place in the review. A replay of a puzzle already recorded
    /// and not due for review is practice: counted apart, and nothing else moves (six
    /// replays of a pattern would otherwise farm rating and push its review out).
    pub fn record(&mut self, puzzle: &super::Puzzle, finish: Finish, now: u64) -> Recorded {
        let player = self.player_rating();
        let seeded = self.puzzle_rating(puzzle);
        let r = self.puzzles.entry(puzzle.entry.id.clone()).or_default();
        let recorded_before = r.attempts > 0 || r.last_finish().is_some();
        if recorded_before && r.due().is_none_or(|due| due > now) {
            r.practice = r.practice.saturating_add(1);
            return Recorded {
                practice: true,
                player_before: player,
                player_after: player,
            };
        }
        r.attempts = r.attempts.saturating_add(1);
        r.last = Some(finish);
        match finish {
            Finish::Clean => r.clean = r.clean.saturating_add(1),
            Finish::Helped => r.helped = r.helped.saturating_add(1),
            Finish::Failed => r.failed = r.failed.saturating_add(1),
        }
        if finish != Finish::Failed {
            r.solved = true;
        }
        let (p, q) = rating::after_attempt(player, seeded, finish.game());
        r.rating = Some(q);
        self.player = p;
        r.review = match (finish, r.review) {
            (Finish::Clean, None) => None,
            (Finish::Clean, Some(old)) => {
                let step = usize::from(old.step) + 1;
                REVIEW_WAITS.get(step).map(|wait| Review {
                    step: step as u8,
                    due: now.saturating_add(*wait),
                })
            }
            (Finish::Helped | Finish::Failed, _) => Some(Review {
                step: 0,
                due: now.saturating_add(REVIEW_WAITS[0]),
            }),
        };
        self.streak = match finish {
            Finish::Clean => self.streak.saturating_add(1),
            _ => 0,
        };
        Recorded {
            practice: false,
            player_before: player,
            player_after: self.player_rating(),
        }
    }

    /// The player's rating (a damaged value read from the file is a newcomer's).
    pub fn player_rating(&self) -> Rating {
        Some(self.player)
            .filter(Rating::is_sound)
            .unwrap_or_default()
    }

    /// A puzzle's rating: as played, else its seed.
    pub fn puzzle_rating(&self, p: &super::Puzzle) -> Rating {
        self.get(&p.entry.id)
            .and_then(|r| r.rating)
            .filter(Rating::is_sound)
            .unwrap_or_else(|| rating::seed(p))
    }

    /// The puzzle to do next among `all` at `now`: the one longest due for review, else the
    /// untried one whose rating is nearest the player's (the first in `all` among equals);
    /// `None` when nothing is due and every puzzle has been tried.
    pub fn next<'a>(&self, all: &'a [super::Puzzle], now: u64) -> Option<(&'a super::Puzzle, Why)> {
        let due = all
            .iter()
            .filter_map(|p| Some((self.get(&p.entry.id)?.due()?, p)))
            .filter(|(due, _)| *due <= now)
            .min_by_key(|(due, _)| *due);
        if let Some((_, p)) = due {
            return Some((p, Why::Due));
        }
        let me = self.player_rating().rating;
        all.iter()
            .filter(|p| self.get(&p.entry.id).is_none_or(|r| r.attempts == 0))
            .map(|p| ((self.puzzle_rating(p).rating - me).abs(), p))
            .fold(
                None,
                |best: Option<(f64, &super::Puzzle)>, (d, p)| match best {
                    Some((bd, _)) if bd <= d => best,
                    _ => Some((d, p)),
                },
            )
            .map(|(_, p)| (p, Why::New))
    }

    /// When the next review falls due, if any puzzle is under review.
    pub fn next_review(&self) -> Option<u64> {
        self.puzzles.values().filter_map(Record::due).min()
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
    Ok(serde_json::from_slice(crate::files::without_bom(&bytes)).ok())
}

fn lock(path: &Path) -> Result<crate::files::Lock, ProgressError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    crate::files::Lock::exclusive(path).map_err(io(&crate::files::Lock::path_for(path)))
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
/// records. Returns the progress as written, what `change` returned, and where a damaged
/// file went, if it was.
pub fn update<R>(
    path: &Path,
    change: impl FnOnce(&mut Progress) -> R,
) -> Result<(Progress, R, Option<SetAside>), ProgressError> {
    let _lock = lock(path)?;
    let (mut p, warning) = match read(path)? {
        Some(p) => (p, None),
        None => (Progress::default(), Some(set_aside(path)?)),
    };
    let r = change(&mut p);
    save(path, &p)?;
    Ok((p, r, warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bom_is_read_past_and_a_lock_error_names_the_lock_file() {
        let dir = std::env::temp_dir().join(format!("canju-progress-bom-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("progress.json");
        let p = Progress {
            streak: 3,
            ..Progress::default()
        };
        let text = serde_json::to_string(&p).unwrap();
        std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
        let (read, aside) = load(&path).unwrap();
        assert_eq!((read.streak, aside), (3, None), "a BOM is no damage");
        let (updated, (), aside) = update(&path, |p| p.streak += 1).unwrap();
        assert_eq!((updated.streak, aside), (4, None));
        // a lock file that cannot be one: the error names it
        std::fs::remove_file(dir.join("progress.json.lock")).unwrap();
        std::fs::create_dir(dir.join("progress.json.lock")).unwrap();
        let e = update(&path, |_| {}).unwrap_err().to_string();
        assert!(e.contains("progress.json.lock"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_next_puzzle_is_a_due_review_else_the_nearest_rating() {
        let all = crate::puzzle::load_builtin().unwrap();
        let mut p = Progress::default();
        let t0 = 1_800_000_000;
        // a newcomer (1500) gets the untried puzzle rated nearest 1500
        let (first, why) = p.next(&all, t0).unwrap();
        assert_eq!(why, Why::New);
        let gap = |q: &crate::puzzle::Puzzle| (p.puzzle_rating(q).rating - 1500.0).abs();
        assert!(all.iter().all(|q| gap(q) >= gap(first)));
        // a failed puzzle comes back after ten minutes, not before
        let failed = &all[5];
        p.record(failed, Finish::Failed, t0);
        assert_ne!(p.next(&all, t0 + 599).unwrap().0.entry.id, failed.entry.id);
        let (due, why) = p.next(&all, t0 + 600).unwrap();
        assert_eq!(
            (due.entry.id.as_str(), why),
            (failed.entry.id.as_str(), Why::Due)
        );
        // solved clean: back in a day, then 3, 7 and 21 days, then learned
        let mut t = t0 + 600;
        for wait in &REVIEW_WAITS[1..] {
            p.record(failed, Finish::Clean, t);
            assert_eq!(p.get(&failed.entry.id).unwrap().due(), Some(t + wait));
            t += wait;
        }
        p.record(failed, Finish::Clean, t);
        assert_eq!(p.get(&failed.entry.id).unwrap().review, None, "learned");
        // a learned puzzle played again is practice: it stays learned
        assert!(p.record(failed, Finish::Helped, t).practice);
        assert_eq!(p.get(&failed.entry.id).unwrap().review, None);
        // solved with help: back to the start of the waits
        let helped = &all[6];
        p.record(helped, Finish::Helped, t);
        assert_eq!(p.get(&helped.entry.id).unwrap().due(), Some(t + 600));
        assert_eq!(p.next_review(), Some(t + 600));
        // every puzzle tried and nothing due: nothing to serve
        let mut q = Progress::default();
        for x in &all {
            q.record(x, Finish::Clean, t0);
        }
        assert!(q.next(&all, t0 + 10_000_000).is_none());
    }

    #[test]
    fn help_and_mistakes_are_not_clean_solves() {
        let all = crate::puzzle::load_builtin().unwrap();
        let x = &all[0];
        let mut p = Progress::default();
        p.record(x, Finish::Helped, 0);
        let r = p.get(&x.entry.id).unwrap();
        assert!(r.solved && r.clean == 0 && r.helped == 1);
        assert_eq!(r.last_finish(), Some(Finish::Helped));
        assert_eq!(p.streak, 0, "a solve with help is no clean solve");
        // help is a draw: between what a clean solve and a failure would have given
        let seed = Progress::default().puzzle_rating(x);
        let (clean, _) = rating::after_attempt(Rating::default(), seed, Finish::Clean.game());
        let (failed, _) = rating::after_attempt(Rating::default(), seed, Finish::Failed.game());
        let helped = p.player_rating().rating;
        assert!(failed.rating < helped && helped < clean.rating);
        // the review, when due, is a game again
        let before = p.player_rating().rating;
        p.record(x, Finish::Clean, 600);
        assert!(p.player_rating().rating > before);
        assert_eq!(p.streak, 1);
        // records from before help was told apart read as before
        let old: Progress =
            serde_json::from_str(r#"{"puzzles":{"a":{"solved":true,"failed":0,"attempts":1},"b":{"solved":false,"failed":2,"attempts":2}},"streak":1}"#)
                .unwrap();
        assert_eq!(old.get("a").unwrap().last_finish(), Some(Finish::Clean));
        assert_eq!(old.get("b").unwrap().last_finish(), Some(Finish::Failed));
        assert_eq!(
            old.get("b").unwrap().due(),
            Some(0),
            "an old failure is due"
        );
        assert_eq!(old.player, Rating::default());
        for f in [Finish::Clean, Finish::Helped, Finish::Failed] {
            assert_eq!(Finish::from_name(f.name()), Some(f));
        }
    }

    /// A replay of a puzzle already recorded, before it is due again, is practice: six
    /// clean replays of a pattern move neither the player's rating nor the puzzle's review,
    /// and a replay after a solve with help leaves it helped.
    #[test]
    fn replays_before_they_are_due_are_practice() {
        let all = crate::puzzle::load_builtin().unwrap();
        let x = &all[0];
        let mut p = Progress::default();
        let first = p.record(x, Finish::Helped, 1000);
        assert!(!first.practice && first.player_after != first.player_before);
        let after_first = p.clone();
        for k in 0..6 {
            let r = p.record(x, Finish::Clean, 1000 + 60 * k);
            assert!(r.practice && r.change() == 0, "{r:?}");
        }
        let r = p.get(&x.entry.id).unwrap();
        let was = after_first.get(&x.entry.id).unwrap();
        assert_eq!((r.practice, r.attempts, r.clean), (6, 1, 0));
        assert_eq!(r.last_finish(), Some(Finish::Helped), "never turned clean");
        assert_eq!((r.review, r.rating), (was.review, was.rating));
        assert_eq!(
            (p.player, p.streak),
            (after_first.player, after_first.streak)
        );
        // due again: a game, which moves the rating and the review
        let due = r.due().unwrap();
        let review = p.record(x, Finish::Clean, due);
        assert!(!review.practice && review.change() != 0);
        assert!(p.get(&x.entry.id).unwrap().due().unwrap() > due);
    }

    #[test]
    fn round_trip_and_damage() {
        let dir = std::env::temp_dir().join(format!("canju-progress-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("progress.json");
        let all = crate::puzzle::load_builtin().unwrap();
        let (x, y) = (&all[0], &all[1]);
        let (mut p, warn) = load(&path).unwrap();
        assert!(warn.is_none() && p.puzzles.is_empty());
        p.record(x, Finish::Failed, 5);
        p.record(x, Finish::Clean, 605);
        p.record(y, Finish::Clean, 607);
        assert_eq!(p.streak, 2);
        let mut full = Progress {
            streak: u32::MAX,
            ..Progress::default()
        };
        full.puzzles.insert(
            x.entry.id.clone(),
            Record {
                failed: u32::MAX,
                attempts: u32::MAX,
                ..Record::default()
            },
        );
        full.record(x, Finish::Failed, u64::MAX);
        full.record(y, Finish::Clean, 0);
        let rx = &full.puzzles[&x.entry.id];
        assert_eq!(rx.failed, u32::MAX, "counters saturate");
        assert_eq!(rx.attempts, u32::MAX);
        assert_eq!(rx.due(), Some(u64::MAX), "times saturate");
        full.streak = u32::MAX;
        full.record(y, Finish::Clean, 0);
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
        let (q, _, warn) = update(&path, |p| p.record(y, Finish::Clean, 0)).unwrap();
        assert_eq!(q.puzzles.len(), 1);
        assert!(warn.unwrap().to_string().contains("damaged-2"));
        assert_eq!(load(&path).unwrap().0, q);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
