//! Probing: tables memory-mapped on demand, a [`Tablebase`] collection that finds the
//! table for any position (either colour holding the stronger side), and move ranking.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use memmap2::Mmap;

use super::format::{self, Header, TableError};
use super::index::{Layout, MAX_PIECES, Squares};
use super::value::{Value, code, value_of_code};
use crate::material::Material;
use crate::moves::Move;
use crate::piece::{Color, Piece};
use crate::position::Position;
use crate::square::Square;

/// One table file, mapped read-only.
pub struct Table {
    path: PathBuf,
    header: Header,
    layout: Layout,
    map: Mmap,
    body: usize,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({})", self.path.display())
    }
}

impl Table {
    /// Maps a table file and checks its header, material and size (not the checksum:
    /// see [`Table::verify_checksum`]).
    pub fn open(path: &Path, material: Material) -> Result<Table, TableError> {
        let io = |source| TableError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = fs::File::open(path).map_err(io)?;
        // SAFETY: the mapping is read-only and tables are never modified in place (they are
        // written under a temporary name and renamed). A file truncated by another process
        // while mapped could still fault; that is the usual caveat of memory-mapped reads.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let (header, body) = format::read_header(path, &map)?;
        if header.material != material.to_string() {
            return Err(TableError::Mismatch {
                path: path.to_path_buf(),
                what: "material",
                found: header.material.clone(),
                expected: material.to_string(),
            });
        }
        let layout = Layout::new(material).ok_or_else(|| {
            TableError::Unsupported(format!("{material}: more than {MAX_PIECES} pieces"))
        })?;
        if layout.size() != header.entries {
            return Err(TableError::Mismatch {
                path: path.to_path_buf(),
                what: "entry count",
                found: header.entries.to_string(),
                expected: layout.size().to_string(),
            });
        }
        Ok(Table {
            path: path.to_path_buf(),
            header,
            layout,
            map,
            body,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The entries for one side to move.
    #[inline]
    pub fn side(&self, turn: Color) -> &[u8] {
        let n = self.header.entries as usize;
        let start = self.body + turn.index() * n;
        &self.map[start..start + n]
    }

    /// The stored code of an entry.
    #[inline]
    pub fn code(&self, turn: Color, index: u64) -> u8 {
        self.side(turn)[index as usize]
    }

    /// The value of an entry that belongs to a legal position.
    pub fn value(&self, turn: Color, index: u64) -> Result<Value, TableError> {
        let c = self.code(turn, index);
        value_of_code(c).ok_or_else(|| TableError::Entry {
            path: self.path.clone(),
            index,
            code: c,
        })
    }

    /// Recomputes the body checksum and compares it with the header's.
    pub fn verify_checksum(&self) -> Result<(), TableError> {
        if format::checksum(self.side(Color::Red), self.side(Color::Black))
            == self.header.body_checksum
        {
            Ok(())
        } else {
            Err(TableError::Checksum {
                path: self.path.clone(),
            })
        }
    }
}

/// Where a position's pieces go in a table's slot order, and whether the position is seen
/// colour-flipped (black holds the stored first side).
pub struct Placement {
    pub material: Material,
    pub flipped: bool,
    pub squares: Squares,
    pub turn: Color,
}

/// Finds the table material and slot placement of a position; an error when the position
/// has more pieces than any table holds.
pub fn placement(pos: &Position) -> Result<Placement, TableError> {
    let material = Material::of(pos);
    if material.piece_count() > MAX_PIECES {
        return Err(TableError::Unsupported(format!(
            "no table for {material}: {} pieces, canju's tables hold at most {MAX_PIECES}",
            material.piece_count()
        )));
    }
    let flipped = !material.is_canonical();
    let canonical = material.canonical();
    let mut squares = [Square::new(0).expect("a0"); MAX_PIECES];
    let slots = canonical.pieces();
    let mut filled = [false; MAX_PIECES];
    for (s, p) in pos.pieces() {
        let (s, p) = if flipped {
            (s.flip(), Piece::new(!p.color, p.kind))
        } else {
            (s, p)
        };
        let slot = slots
            .iter()
            .enumerate()
            .position(|(i, &q)| q == p && !filled[i])
            .expect("the material has a slot for every piece");
        filled[slot] = true;
        squares[slot] = s;
    }
    let turn = if flipped { !pos.turn() } else { pos.turn() };
    Ok(Placement {
        material: canonical,
        flipped,
        squares,
        turn,
    })
}

/// A directory of tables, opened on demand and kept mapped.
pub struct Tablebase {
    dir: PathBuf,
    tables: RwLock<HashMap<Material, Arc<Table>>>,
}

/// A legal move with its value for the side that plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    pub value: Value,
}

impl Tablebase {
    pub fn new(dir: impl Into<PathBuf>) -> Tablebase {
        Tablebase {
            dir: dir.into(),
            tables: RwLock::new(HashMap::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of a material's table file.
    pub fn path_of(&self, material: &Material) -> PathBuf {
        self.dir.join(format::file_name(material))
    }

    /// The table of a canonical material, mapped on first use.
    pub fn table(&self, material: Material) -> Result<Arc<Table>, TableError> {
        if let Some(t) = self.tables.read().expect("lock").get(&material) {
            return Ok(t.clone());
        }
        let path = self.path_of(&material);
        if !path.exists() {
            let hint = if self.dir.is_dir() {
                String::new()
            } else if self.dir.exists() {
                format!(" ({} is not a directory)", self.dir.display())
            } else {
                format!(" (the directory {} does not exist)", self.dir.display())
            };
            return Err(TableError::Missing {
                material: material.to_string(),
                dir: self.dir.clone(),
                hint,
            });
        }
        let table = Arc::new(Table::open(&path, material)?);
        self.tables
            .write()
            .expect("lock")
            .insert(material, table.clone());
        Ok(table)
    }

    /// Forgets a mapped table (after it was rebuilt).
    pub fn forget(&self, material: &Material) {
        self.tables.write().expect("lock").remove(material);
    }

    /// The value of a position for the side to move.
    pub fn probe(&self, pos: &Position) -> Result<Value, TableError> {
        let pl = placement(pos)?;
        let table = self.table(pl.material)?;
        let n = table.layout().pieces().len();
        let index = table.layout().index(&pl.squares[..n]);
        let c = table.code(pl.turn, index);
        if c == code::ILLEGAL {
            return Err(TableError::Entry {
                path: table.path().to_path_buf(),
                index,
                code: c,
            });
        }
        table.value(pl.turn, index)
    }

    /// Every legal move with its value for the mover, best first (quickest win, then
    /// draws, then longest resistance); ties keep move-generation order.
    pub fn rank_moves(&self, pos: &Position) -> Result<Vec<RankedMove>, TableError> {
        let mut out = Vec::new();
        for &m in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let value = self.probe(&child)?.for_mover();
            out.push(RankedMove { mv: m, value });
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.value.preference()));
        Ok(out)
    }
}
