//! The table file: magic, a bincode header, then one byte per entry for red to move and
//! then for black to move, starting at a 64-byte boundary.
//!
//! ```text
//! "CANJUTB\0"  u32 LE header length  header (bincode)  zero padding  body
//! ```
//!
//! Files are written to a temporary name and renamed when complete, so an interrupted run
//! never leaves a file that looks finished.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::material::Material;

pub const MAGIC: [u8; 8] = *b"CANJUTB\0";
pub const FORMAT_VERSION: u32 = 1;
/// The rule set tables are built with: endless play is a draw, no repetition rulings,
/// stalemate loses, flying general forbidden, no move limit.
pub const RULES: &str = "baseline";
const ALIGN: usize = 64;

/// Counts for one side to move, with mirror images counted separately.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct SideStats {
    pub legal: u64,
    pub win: u64,
    pub draw: u64,
    pub loss: u64,
    /// The longest win in plies (0 when there is no win).
    pub longest: u32,
    /// An index reaching the longest win.
    pub longest_index: u64,
}

/// The table header.
#[derive(Clone, Debug, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Header {
    pub format_version: u32,
    pub rules: String,
    pub material: String,
    pub index_scheme: u32,
    /// Bytes per entry.
    pub entry_width: u8,
    /// Entries per side to move.
    pub entries: u64,
    /// Red to move, black to move.
    pub sides: [SideStats; 2],
    /// CRC-32 of the body.
    pub body_checksum: u32,
}

/// What is wrong with a table file or directory.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a canju table (bad magic)")]
    NotATable { path: PathBuf },
    #[error("{path}: truncated or padded: {actual} bytes, expected {expected}")]
    Size {
        path: PathBuf,
        actual: u64,
        expected: u64,
    },
    #[error("{path}: unreadable header: {reason}")]
    Header { path: PathBuf, reason: String },
    #[error("{path}: {what} is {found}, this canju reads {expected}")]
    Mismatch {
        path: PathBuf,
        what: &'static str,
        found: String,
        expected: String,
    },
    #[error(
        "{path}: body checksum mismatch (the file is corrupted; delete it and run canju gen again)"
    )]
    Checksum { path: PathBuf },
    #[error("{path}: corrupted entry {index} (code {code})")]
    Entry { path: PathBuf, index: u64, code: u8 },
    #[error("no {material} table in {dir}: run `canju gen {material}`{hint}")]
    Missing {
        material: String,
        dir: PathBuf,
        hint: String,
    },
    #[error("{0}")]
    Unsupported(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
        .with_limit::<65536>()
}

/// The file name of a table.
pub fn file_name(material: &Material) -> String {
    format!("{material}.ctb")
}

/// Writes a complete table: header and body, atomically (temporary file, sync, rename).
pub fn write(path: &Path, header: &Header, red: &[u8], black: &[u8]) -> Result<(), TableError> {
    let head =
        bincode::encode_to_vec(header, bincode_config()).map_err(|e| TableError::Header {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    let mut prefix = Vec::with_capacity(ALIGN * 4);
    prefix.extend_from_slice(&MAGIC);
    prefix.extend_from_slice(&(head.len() as u32).to_le_bytes());
    prefix.extend_from_slice(&head);
    while prefix.len() % ALIGN != 0 {
        prefix.push(0);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io(dir))?;
    let tmp = path.with_extension(format!("ctb.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(&prefix)?;
        f.write_all(red)?;
        f.write_all(black)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(TableError::Io {
            path: path.to_path_buf(),
            source: e,
        });
    }
    Ok(())
}

/// Reads and checks the header of a mapped file; returns it with the body's offset.
pub fn read_header(path: &Path, bytes: &[u8]) -> Result<(Header, usize), TableError> {
    if bytes.len() < 12 || bytes[..8] != MAGIC {
        return Err(TableError::NotATable {
            path: path.to_path_buf(),
        });
    }
    let len = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
    let end = 12usize.saturating_add(len);
    if end > bytes.len() {
        return Err(TableError::Size {
            path: path.to_path_buf(),
            actual: bytes.len() as u64,
            expected: end as u64,
        });
    }
    let (header, used): (Header, usize) =
        bincode::decode_from_slice(&bytes[12..end], bincode_config()).map_err(|e| {
            TableError::Header {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }
        })?;
    if used != len {
        return Err(TableError::Header {
            path: path.to_path_buf(),
            reason: format!("{} bytes of {len} used", used),
        });
    }
    let mismatch = |what, found: String, expected: String| TableError::Mismatch {
        path: path.to_path_buf(),
        what,
        found,
        expected,
    };
    if header.format_version != FORMAT_VERSION {
        return Err(mismatch(
            "format version",
            header.format_version.to_string(),
            FORMAT_VERSION.to_string(),
        ));
    }
    if header.rules != RULES {
        return Err(mismatch(
            "rule set",
            header.rules.clone(),
            RULES.to_string(),
        ));
    }
    if header.index_scheme != super::index::INDEX_SCHEME {
        return Err(mismatch(
            "index scheme",
            header.index_scheme.to_string(),
            super::index::INDEX_SCHEME.to_string(),
        ));
    }
    if header.entry_width != 1 {
        return Err(mismatch(
            "entry width",
            header.entry_width.to_string(),
            "1".to_string(),
        ));
    }
    let body = end.div_ceil(ALIGN) * ALIGN;
    let expected = (body as u64).saturating_add(header.entries.saturating_mul(2));
    if bytes.len() as u64 != expected {
        return Err(TableError::Size {
            path: path.to_path_buf(),
            actual: bytes.len() as u64,
            expected,
        });
    }
    Ok((header, body))
}

/// CRC-32 of a table body (red entries then black entries).
pub fn checksum(red: &[u8], black: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(red);
    h.update(black);
    h.finalize()
}
