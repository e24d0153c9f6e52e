//! Probing: a [`Tablebase`] collection of tables (each a [`Table`], mapped on first use)
//! that finds the table for any position (either colour holding the stronger side), and
//! move ranking.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::format::{self, Rules, TableError};
pub use super::table::{DEFAULT_CACHE_MB, Placement, Table, placement};
use super::value::Value;
use crate::game::material::Material;
use crate::game::moves::Move;
use crate::game::position::Position;

/// How often a build writes a checkpoint unless told otherwise: a build shorter than this
/// writes none.
pub const DEFAULT_CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// A directory of tables under one rule set, each mapped on first use and kept.
pub struct Tablebase {
    dir: PathBuf,
    rules: Rules,
    tables: RwLock<HashMap<Material, Arc<Table>>>,
    /// Each compressed table's decompressed-block cache, in MB.
    cache_mb: usize,
    /// How often a build into this directory writes a checkpoint.
    checkpoint_every: std::time::Duration,
}

/// A legal move with its value for the side that plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedMove {
    /// The move.
    pub mv: Move,
    /// Its value for the side that plays it.
    pub value: Value,
}

impl Tablebase {
    /// The tables without repetition rulings in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Tablebase {
        Tablebase::with_rules(dir, Rules::None)
    }

    /// The tables of a rule set in `dir`.
    pub fn with_rules(dir: impl Into<PathBuf>, rules: Rules) -> Tablebase {
        Tablebase {
            dir: dir.into(),
            rules,
            tables: RwLock::new(HashMap::new()),
            cache_mb: DEFAULT_CACHE_MB,
            checkpoint_every: DEFAULT_CHECKPOINT_EVERY,
        }
    }

    /// The same collection, with builds into it writing a checkpoint (after a phase) at
    /// most this often: a killed build resumes from its last one. Zero: after every phase.
    pub fn with_checkpoint_every(mut self, every: std::time::Duration) -> Tablebase {
        self.checkpoint_every = every;
        self
    }

    /// How often a build into this directory writes a checkpoint.
    pub fn checkpoint_every(&self) -> std::time::Duration {
        self.checkpoint_every
    }

    /// The same collection with each table's decompressed-block cache at most `mb` MB (a
    /// server probing many positions keeps whole tables decompressed with enough).
    pub fn with_cache_mb(mut self, mb: usize) -> Tablebase {
        self.cache_mb = mb;
        self
    }

    /// The table directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The rule set of the tables this reads and builds.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The path of a material's table file.
    pub fn path_of(&self, material: &Material) -> PathBuf {
        self.dir.join(format::file_name(material, self.rules))
    }

    /// The table of a canonical material, mapped on first use.
    pub fn table(&self, material: Material) -> Result<Arc<Table>, TableError> {
        if let Some(t) = self.tables.read().expect("lock").get(&material) {
            return Ok(t.clone());
        }
        let path = self.path_of(&material);
        if !path.exists() {
            return Err(TableError::Missing {
                material: material.to_string(),
                dir: self.dir.clone(),
                rules: self.rules,
                dir_state: super::DirState::of(&self.dir),
            });
        }
        let table = Arc::new(Table::open_with_cache(&path, material, self.cache_mb)?);
        let found = Rules::from_header(&table.header().rules);
        if found == Some(Rules::CheckOnly) && self.rules == Rules::Asian {
            return Err(TableError::CheckOnlyAsAsian {
                path,
                material: material.to_string(),
                renamed: super::rules::file_name(&material, Rules::CheckOnly),
            });
        }
        if table.header().rule_set() != self.rules {
            return Err(TableError::Mismatch {
                path,
                what: "rule set",
                found: table.header().rules.clone(),
                expected: self.rules.header_name().to_string(),
            });
        }
        self.tables
            .write()
            .expect("lock")
            .insert(material, table.clone());
        Ok(table)
    }

    /// Makes sure the directory can take tables: created if missing, an error naming it if
    /// it is something else than a directory.
    pub fn prepare_dir(&self) -> Result<(), TableError> {
        if self.dir.as_os_str().is_empty() {
            return Err(TableError::Unsupported(
                "the table directory is an empty path".into(),
            ));
        }
        match fs::metadata(&self.dir) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(m) => Err(TableError::Unsupported(format!(
                "{}: {}, not a directory for tables",
                self.dir.display(),
                crate::files::kind_of(&m)
            ))),
            Err(_) => fs::create_dir_all(&self.dir).map_err(|e| TableError::io(&self.dir, e)),
        }
    }

    /// Forgets a mapped table (after it was rebuilt).
    pub fn forget(&self, material: &Material) {
        self.tables.write().expect("lock").remove(material);
    }

    /// The most pieces (generals included) of any table of this rule set whose file is in
    /// the directory now: 0 when there is none, or no directory. A position with more
    /// pieces has no table here, which a search can tell without working out its material.
    pub fn most_pieces_present(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        entries
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                let stem = name.split('.').next()?;
                let material: Material = stem.parse().ok()?;
                (format::file_name(&material, self.rules) == name).then(|| material.piece_count())
            })
            .max()
            .unwrap_or(0)
    }

    /// The table of a canonical material if its file is there (`None` when it is not;
    /// an error when it is there but damaged or foreign).
    pub fn table_if_present(&self, material: Material) -> Result<Option<Arc<Table>>, TableError> {
        match self.table(material) {
            Ok(t) => Ok(Some(t)),
            Err(TableError::Missing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The value of a position for the side to move.
    pub fn probe(&self, pos: &Position) -> Result<Value, TableError> {
        let pl = placement(pos)?;
        let table = self.table(pl.material)?;
        table.probe(&pl)
    }

    /// Every legal move with its value for the mover, best first (quickest win, then
    /// draws, then longest resistance); ties keep move-generation order.
    pub fn rank_moves(&self, pos: &Position) -> Result<Vec<RankedMove>, TableError> {
        // every child's table and entry first, each entry's memory asked for as it is found
        // (so that the misses of random entries overlap), then the values
        let legal = pos.legal_moves();
        let mut tables: Vec<(Material, Arc<Table>)> = Vec::with_capacity(4);
        let mut entries = Vec::with_capacity(legal.len());
        for &m in legal.iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let pl = placement(&child)?;
            let t = match tables.iter().position(|(mat, _)| *mat == pl.material) {
                Some(t) => t,
                None => {
                    tables.push((pl.material, self.table(pl.material)?));
                    tables.len() - 1
                }
            };
            let index = tables[t].1.index_of(&pl);
            tables[t].1.prefetch(pl.turn, index);
            entries.push((m, t, pl.turn, index));
        }
        let mut out = entries
            .into_iter()
            .map(|(mv, t, turn, index)| {
                let value = tables[t].1.value(turn, index)?.for_mover();
                Ok(RankedMove { mv, value })
            })
            .collect::<Result<Vec<_>, TableError>>()?;
        out.sort_by_key(|r| std::cmp::Reverse(r.value.preference()));
        Ok(out)
    }
}
