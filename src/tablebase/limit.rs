//! The natural move limit (自然限着, 60 moves without a capture) as a flag on wins by mate,
//! kept next to each table in a small checked file and computed on first need.
//!
//! ```text
//! KNPKAABB.ctb.limit120:
//!   "CANJULIM", u32 version, u32 limit in plies, u32 the table's block-table checksum,
//!   u64 entries per side, 4 × u64 counts (red to move: wins, losses over the limit; black
//!   to move: the same), the bitmaps (red to move, then black, u64 LE words), u32 CRC-32 of
//!   everything before it
//! ```
//!
//! The table's block-table checksum ties the file to the exact table it was computed from:
//! a rebuilt or converted table makes it stale, and it is computed again.

use std::path::PathBuf;

use super::format::TableError;
use super::generate::{ConversionFlags, conversion_flags};
use super::probe::{Table, Tablebase};

/// The CXA's natural move limit: 60 moves, 120 plies without a capture.
pub const MOVE_LIMIT_PLIES: u32 = 120;
const MAGIC: [u8; 8] = *b"CANJULIM";
/// The layout of the file; the flags are also tied to the code that computed them
/// ([`crate::SOURCE_FINGERPRINT`], stored after the version).
const VERSION: u32 = 2;

/// The file the flags of a table are kept in.
pub fn flags_path(table: &Table) -> PathBuf {
    let mut p = table.path().as_os_str().to_os_string();
    p.push(format!(".limit{MOVE_LIMIT_PLIES}"));
    PathBuf::from(p)
}

/// The move-limit flags of a table: read from their file when it is there and matches the
/// table, else computed (from the table and its capture sub-tables) and written.
pub fn flags(table: &Table, tb: &Tablebase) -> Result<ConversionFlags, TableError> {
    let path = flags_path(table);
    if let Ok(bytes) = crate::files::read_regular(&path)
        && let Some(f) = parse(table, &bytes)
    {
        return Ok(f);
    }
    let f = conversion_flags(table, tb, MOVE_LIMIT_PLIES)?;
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&source_fingerprint().to_le_bytes());
    out.extend_from_slice(&f.limit.to_le_bytes());
    out.extend_from_slice(&table.header().block_table_checksum.to_le_bytes());
    out.extend_from_slice(&table.header().entries.to_le_bytes());
    for side in f.counts {
        for n in side {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
    for w in f.words() {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    crate::files::write_atomically(&path, &[&out]).map_err(|e| TableError::io(&path, e))?;
    Ok(f)
}

/// The source fingerprint as a number.
fn source_fingerprint() -> u64 {
    u64::from_str_radix(crate::SOURCE_FINGERPRINT, 16).unwrap_or(0)
}

/// The flags in a file's bytes, if they are whole, sound and of this table.
fn parse(table: &Table, bytes: &[u8]) -> Option<ConversionFlags> {
    const HEAD: usize = 8 + 4 + 8 + 4 + 4 + 8 + 32;
    if bytes.len() < HEAD + 4 || bytes[..8] != MAGIC {
        return None;
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return None;
    }
    let u32_at = |o: usize| u32::from_le_bytes(body[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(body[o..o + 8].try_into().expect("8 bytes"));
    if u32_at(8) != VERSION
        || u64_at(12) != source_fingerprint()
        || u32_at(20) != MOVE_LIMIT_PLIES
        || u32_at(24) != table.header().block_table_checksum
        || u64_at(28) != table.header().entries
    {
        return None;
    }
    let counts = [[u64_at(36), u64_at(44)], [u64_at(52), u64_at(60)]];
    if !(body.len() - HEAD).is_multiple_of(8) {
        return None;
    }
    let words: Vec<u64> = body[HEAD..]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    ConversionFlags::from_words(table.layout(), MOVE_LIMIT_PLIES, counts, &words)
}

/// Whether a position's win or loss by mate needs more than the move limit to the next
/// capture or mate. A mate distance within the limit answers at once (the count to the
/// next capture or mate is never longer); otherwise the table's flags are read, computed
/// first when missing.
pub fn over_limit(
    tb: &Tablebase,
    pos: &crate::game::position::Position,
) -> Result<bool, TableError> {
    let value = tb.probe(pos)?;
    if value.plies().is_none_or(|n| n <= MOVE_LIMIT_PLIES) {
        return Ok(false);
    }
    let pl = super::probe::placement(pos)?;
    let table = tb.table(pl.material)?;
    let n = table.layout().pieces().len();
    let index = table.layout().index(&pl.squares[..n]);
    Ok(flags(&table, tb)?.over(pl.turn, index))
}
