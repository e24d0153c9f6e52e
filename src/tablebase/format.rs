//! The table file, format 2: a checksummed header, a table of body blocks with a checksum
//! each, then the blocks.
//!
//! ```text
//! offset 0   "CANJUTB\0"
//!        8   u32 LE: header length L
//!       12   header (bincode, L bytes; its first field is the format version)
//!   12 + L   u32 LE: CRC-32 of bytes 0 .. 12 + L (magic, length and header)
//!            zero padding to a 64-byte boundary
//!            block table: for each block, red to move first, then black to move:
//!              u64 LE offset from the body's start, u32 LE stored length, u32 LE CRC-32
//!              of the stored bytes (16 bytes a block); its CRC-32 is in the header
//!            zero padding to a 64-byte boundary
//!     body   the blocks, one after another
//!            format 3 only: the far list (see [`super::far`]): per entry a u64 LE key
//!              (side to move << 63 | index) and u32 LE plies, sorted by key; then u64 LE
//!              the count and u32 LE the CRC-32 of the list and the count
//! ```
//!
//! Format 3 is a wide table: one whose longest distance does not fit a byte. It is format
//! 2 with the far list after the body: every entry holding a far code (see
//! [`super::value::code::FAR_WIN`]) is in the list, with its distance. A table that fits a
//! byte is written in format 2, the same bytes as before wide tables existed.
//!
//! Each side's entries are cut into blocks of `block_entries` entries (the last one
//! shorter); blocks never span the two sides. With codec `zstd` (what canju writes) each
//! block is one zstd frame of its entries, the blocks one after another in the block
//! table's order; with codec `raw` (tables of earlier canju versions, still read) a block
//! is its entries, one byte each, read in place from the mapped file. Every byte of the
//! file is covered by a checksum: the header's own, the block table's (in the header),
//! each block's stored bytes (in the block table), and the padding must be zero.
//!
//! Files are written to a temporary name, synced and renamed when complete, so an
//! interrupted run never leaves a file that looks finished. Files of format 1 (one CRC over
//! the whole body, header unchecked) are recognised and converted by `canju gen`.

use std::fs;
use std::path::Path;

use rayon::prelude::*;

pub use super::error::{TableError, io_message};
use super::far::{self, FarList};
pub use super::rules::{Clauses, ParseRulesError, Rules, file_name};
use crate::game::material::Material;

/// The first bytes of every table file.
pub const MAGIC: [u8; 8] = *b"CANJUTB\0";
/// The format canju writes (tables whose distances all fit a byte).
pub const FORMAT_VERSION: u32 = 2;
/// The format of wide tables: [`FORMAT_VERSION`] with a far list after the body.
pub const FORMAT_WIDE: u32 = 3;
/// Entries per body block of the tables canju writes: small enough that a probe of a
/// block not in the cache decompresses it in about 4 µs (files of earlier versions have
/// 65,536 and are read as they are).
pub const BLOCK_ENTRIES: u32 = 1 << 12;
/// Body blocks stored as they are.
pub const CODEC_RAW: u8 = 0;
/// Body blocks each compressed into one zstd frame.
pub const CODEC_ZSTD: u8 = 1;
/// The zstd level canju writes with (see docs/tablebases.md: 13.8% of the raw bytes on the 马兵对士象全
/// family, about 5 µs to decompress a block, half the compression time of level 9 for 3%
/// more bytes; `examples/codec_study.rs` measures). Any level reads the same.
pub const ZSTD_LEVEL: i32 = 5;
const ALIGN: usize = 64;
const BLOCK_REF_BYTES: usize = 16;
/// The largest header canju reads (a real one is about 150 bytes).
const MAX_HEADER: usize = 65536;

/// Counts for one side to move, with mirror images counted separately.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct SideStats {
    /// Legal positions.
    pub legal: u64,
    /// Won for the side to move.
    pub win: u64,
    /// Drawn.
    pub draw: u64,
    /// Lost for the side to move.
    pub loss: u64,
    /// The longest win in plies (0 when there is no win).
    pub longest: u32,
    /// An index reaching the longest win.
    pub longest_index: u64,
}

/// The table header.
#[derive(Clone, Debug, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Header {
    /// The file format ([`FORMAT_VERSION`] or [`FORMAT_WIDE`]).
    pub format_version: u32,
    /// The rule set's header name (`baseline` or `asian`).
    pub rules: String,
    /// The table's material.
    pub material: String,
    /// The index scheme's version.
    pub index_scheme: u32,
    /// Bytes per entry.
    pub entry_width: u8,
    /// Entries per side to move.
    pub entries: u64,
    /// Red to move, black to move.
    pub sides: [SideStats; 2],
    /// How blocks are stored ([`CODEC_ZSTD`], or [`CODEC_RAW`] in older files).
    pub codec: u8,
    /// Entries per block (the last block of a side may be shorter).
    pub block_entries: u32,
    /// CRC-32 of the block table.
    pub block_table_checksum: u32,
}

impl Header {
    /// The header of a table of this canju's format, rule set and index scheme; the block
    /// table's checksum is filled in when the file is written.
    pub fn new(material: &Material, entries: u64, sides: [SideStats; 2], rules: Rules) -> Header {
        Header {
            format_version: FORMAT_VERSION,
            rules: rules.header_name().to_string(),
            material: material.to_string(),
            index_scheme: super::index::INDEX_SCHEME,
            entry_width: 1,
            entries,
            sides,
            codec: CODEC_ZSTD,
            block_entries: BLOCK_ENTRIES,
            block_table_checksum: 0,
        }
    }

    /// The rule set the table was built with (parsing refuses unknown names).
    pub fn rule_set(&self) -> Rules {
        Rules::from_header(&self.rules).unwrap_or_default()
    }

    /// Blocks per side to move.
    pub fn blocks_per_side(&self) -> u64 {
        self.entries.div_ceil(self.block_entries.max(1) as u64)
    }
}

/// Where a block of a table lies: its offset from the body's start, its stored length
/// and the CRC-32 of its stored bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRef {
    /// Its offset from the body's start.
    pub offset: u64,
    /// Its stored length in bytes.
    pub length: u32,
    /// The CRC-32 of its stored bytes.
    pub checksum: u32,
}

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
        .with_limit::<MAX_HEADER>()
}

fn align(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

/// Blocks encoded at a time while a table is written: 64 MB of entries, so that a table
/// is never held compressed whole beside its entries.
const WRITE_BATCH: usize = 1 << 14;

/// Encodes blocks with the codec, in parallel (one compressor a thread).
fn encode_batch(path: &Path, blocks: &[&[u8]], codec: u8) -> Result<Vec<Vec<u8>>, TableError> {
    blocks
        .par_iter()
        .map_init(
            || (zstd::bulk::Compressor::new(ZSTD_LEVEL), Vec::new()),
            |(compressor, scratch), b| match (codec, compressor) {
                (CODEC_ZSTD, Ok(c)) => {
                    scratch.resize(zstd::zstd_safe::compress_bound(b.len()), 0);
                    let n = c.compress_to_buffer(b, &mut scratch[..])?;
                    Ok(scratch[..n].to_vec())
                }
                (CODEC_ZSTD, Err(e)) => Err(std::io::Error::other(e.to_string())),
                _ => Ok(b.to_vec()),
            },
        )
        .collect::<Result<_, std::io::Error>>()
        .map_err(|e| TableError::Unsupported(format!("{}: compression: {e}", path.display())))
}

fn encode_block_table(refs: &[BlockRef]) -> Vec<u8> {
    let mut out = Vec::with_capacity(refs.len() * BLOCK_REF_BYTES);
    for r in refs {
        out.extend_from_slice(&r.offset.to_le_bytes());
        out.extend_from_slice(&r.length.to_le_bytes());
        out.extend_from_slice(&r.checksum.to_le_bytes());
    }
    out
}

/// Writes a complete table with compressed blocks: header, block table and body,
/// atomically (temporary file, sync, rename). The header's block fields are set here.
pub fn write(path: &Path, header: &Header, red: &[u8], black: &[u8]) -> Result<(), TableError> {
    write_with_codec(path, header, red, black, CODEC_ZSTD)
}

/// [`write()`] with a chosen codec ([`CODEC_RAW`] writes the layout of earlier versions).
pub fn write_with_codec(
    path: &Path,
    header: &Header,
    red: &[u8],
    black: &[u8],
    codec: u8,
) -> Result<(), TableError> {
    write_table(path, header, [red, black], &FarList::default(), codec)
}

/// [`write()`] of a table whose far list may hold entries: a wide table (format 3) when it
/// does, the same file as [`write()`] when it is empty.
pub fn write_with_far(
    path: &Path,
    header: &Header,
    red: &[u8],
    black: &[u8],
    far: &FarList,
) -> Result<(), TableError> {
    write_table(path, header, [red, black], far, CODEC_ZSTD)
}

fn write_table(
    path: &Path,
    header: &Header,
    [red, black]: [&[u8]; 2],
    far: &FarList,
    codec: u8,
) -> Result<(), TableError> {
    let mut header = header.clone();
    header.codec = codec;
    header.block_entries = BLOCK_ENTRIES;
    header.format_version = if far.is_empty() {
        FORMAT_VERSION
    } else {
        FORMAT_WIDE
    };
    let n = header.entries;
    if red.len() as u64 != n || black.len() as u64 != n {
        return Err(TableError::Unsupported(format!(
            "{}: table body of {} and {} entries, the header says {n}",
            path.display(),
            red.len(),
            black.len()
        )));
    }
    // the body first, a batch of blocks at a time, after room for the header and the block
    // table (whose lengths do not depend on what they hold); then those two
    let blocks: Vec<&[u8]> = [red, black]
        .iter()
        .flat_map(|side| side.chunks(BLOCK_ENTRIES as usize))
        .collect();
    let head_len = encode_header(path, &header)?.len();
    let body = align(align(12 + head_len + 4) + blocks.len() * BLOCK_REF_BYTES);
    let far_bytes = far.encode();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(|e| TableError::io(dir, e))?;
    let mut failure = None;
    crate::files::write_atomically_with(path, |f| {
        use std::io::{Seek, SeekFrom, Write};
        f.seek(SeekFrom::Start(body as u64))?;
        let mut refs = Vec::with_capacity(blocks.len());
        let mut offset = 0u64;
        for batch in blocks.chunks(WRITE_BATCH) {
            let stored = match encode_batch(path, batch, codec) {
                Ok(s) => s,
                Err(e) => {
                    failure = Some(e);
                    return Err(std::io::Error::other("compression"));
                }
            };
            for b in &stored {
                refs.push(BlockRef {
                    offset,
                    length: b.len() as u32,
                    checksum: crc32fast::hash(b),
                });
                offset += b.len() as u64;
            }
            f.write_all(&stored.concat())?;
        }
        if !far.is_empty() {
            f.write_all(&far_bytes)?;
        }
        let table = encode_block_table(&refs);
        header.block_table_checksum = crc32fast::hash(&table);
        let head = match encode_header(path, &header) {
            Ok(h) => h,
            Err(e) => {
                failure = Some(e);
                return Err(std::io::Error::other("header"));
            }
        };
        debug_assert_eq!(head.len(), head_len);
        let mut prefix = Vec::with_capacity(body);
        prefix.extend_from_slice(&MAGIC);
        prefix.extend_from_slice(&(head.len() as u32).to_le_bytes());
        prefix.extend_from_slice(&head);
        let header_crc = crc32fast::hash(&prefix);
        prefix.extend_from_slice(&header_crc.to_le_bytes());
        prefix.resize(align(prefix.len()), 0);
        prefix.extend_from_slice(&table);
        prefix.resize(align(prefix.len()), 0);
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&prefix)
    })
    .map_err(|e| failure.take().unwrap_or_else(|| TableError::io(path, e)))
}

/// The bincode bytes of a header.
fn encode_header(path: &Path, header: &Header) -> Result<Vec<u8>, TableError> {
    bincode::encode_to_vec(header, bincode_config()).map_err(|e| {
        TableError::Unsupported(format!(
            "{}: the header cannot be encoded: {e}",
            path.display()
        ))
    })
}

/// A checked header with where the file's parts lie.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The file's header.
    pub header: Header,
    /// Red's blocks then black's.
    pub blocks: Vec<BlockRef>,
    /// Offset of the body in the file.
    pub body: usize,
    /// A wide table's far list (empty in format 2).
    pub far: FarList,
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

/// Reads and checks everything of a mapped file but the blocks' contents: magic, header
/// checksum, header fields and their consistency, padding, block table and its checksum,
/// and the file's size. The blocks are checked by [`block_checksum_ok`] when read.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Parsed, TableError> {
    let p = || path.to_path_buf();
    let damaged = |reason: String| TableError::Header { path: p(), reason };
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        return Err(TableError::NotATable { path: p() });
    }
    if bytes.len() < 16 {
        return Err(TableError::Size {
            path: p(),
            actual: bytes.len() as u64,
            expected: 16,
        });
    }
    // the first header field is the format version, in every format
    let version = le_u32(&bytes[12..16]);
    let len = le_u32(&bytes[8..12]) as usize;
    let crc_end = 12 + len.min(MAX_HEADER) + 4;
    let crc_ok = len <= MAX_HEADER
        && crc_end <= bytes.len()
        && crc32fast::hash(&bytes[..12 + len]) == le_u32(&bytes[12 + len..crc_end]);
    if !crc_ok {
        // a file of another format has no header checksum where this one has
        if version == 1 {
            return Err(TableError::OldFormat {
                path: p(),
                found: 1,
                reads: FORMAT_VERSION,
            });
        }
        if version != FORMAT_VERSION && version != FORMAT_WIDE {
            return Err(TableError::Mismatch {
                path: p(),
                what: "format version",
                found: version.to_string(),
                expected: format!("{FORMAT_VERSION} or {FORMAT_WIDE}"),
            });
        }
        if crc_end > bytes.len() {
            return Err(TableError::Size {
                path: p(),
                actual: bytes.len() as u64,
                expected: crc_end as u64,
            });
        }
        return Err(damaged("checksum mismatch".into()));
    }
    let (header, used): (Header, usize) =
        bincode::decode_from_slice(&bytes[12..12 + len], bincode_config())
            .map_err(|_| damaged("its fields cannot be read".into()))?;
    if used != len {
        return Err(damaged(format!("{} unread bytes", len - used)));
    }
    let mismatch = |what, found: String, expected: String| TableError::Mismatch {
        path: p(),
        what,
        found,
        expected,
    };
    let wide = header.format_version == FORMAT_WIDE;
    if header.format_version != FORMAT_VERSION && !wide {
        return Err(mismatch(
            "format version",
            header.format_version.to_string(),
            format!("{FORMAT_VERSION} or {FORMAT_WIDE}"),
        ));
    }
    if Rules::from_header(&header.rules).is_none() {
        return Err(mismatch(
            "rule set",
            header.rules.clone(),
            "baseline or asian".to_string(),
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
    if header.codec != CODEC_RAW && header.codec != CODEC_ZSTD {
        return Err(mismatch(
            "block codec",
            header.codec.to_string(),
            "0 (raw) or 1 (zstd)".to_string(),
        ));
    }
    if !header.block_entries.is_power_of_two() || header.block_entries < 64 {
        return Err(damaged(format!(
            "{} entries a block is not a power of two of at least 64",
            header.block_entries
        )));
    }
    check_stats(&header, wide).map_err(damaged)?;
    let blocks = header.blocks_per_side();
    let table_start = align(crc_end);
    let table_len = blocks
        .checked_mul(2 * BLOCK_REF_BYTES as u64)
        .filter(|&l| l <= bytes.len() as u64)
        .ok_or_else(|| TableError::Size {
            path: p(),
            actual: bytes.len() as u64,
            expected: table_start as u64 + blocks.saturating_mul(2 * BLOCK_REF_BYTES as u64),
        })? as usize;
    let table_end = table_start + table_len;
    let body = align(table_end);
    if body > bytes.len() {
        return Err(TableError::Size {
            path: p(),
            actual: bytes.len() as u64,
            expected: body as u64,
        });
    }
    let table = &bytes[table_start..table_end];
    if crc32fast::hash(table) != header.block_table_checksum {
        return Err(damaged("block table checksum mismatch".into()));
    }
    let refs: Vec<BlockRef> = table
        .chunks_exact(BLOCK_REF_BYTES)
        .map(|r| BlockRef {
            offset: le_u64(&r[0..8]),
            length: le_u32(&r[8..12]),
            checksum: le_u32(&r[12..16]),
        })
        .collect();
    // the body's length: raw, both sides' entries; compressed, the blocks' lengths
    let body_len = match header.codec {
        CODEC_RAW => header.entries.saturating_mul(2),
        _ => refs.iter().map(|r| r.length as u64).sum(),
    };
    // a wide table's far list follows the body; its trailer says how long it is
    let far_len = if wide {
        FarList::stored_len(bytes).unwrap_or(far::TRAILER_BYTES)
    } else {
        0
    };
    let expected = (body as u64)
        .saturating_add(body_len)
        .saturating_add(far_len as u64);
    if bytes.len() as u64 != expected {
        return Err(TableError::Size {
            path: p(),
            actual: bytes.len() as u64,
            expected,
        });
    }
    if bytes[crc_end..table_start].iter().any(|&b| b != 0)
        || bytes[table_end..body].iter().any(|&b| b != 0)
    {
        return Err(damaged("non-zero padding".into()));
    }
    // raw blocks lie in entry order, each exactly its entries long; compressed blocks one
    // after another, none empty, none longer than zstd's bound for its entries
    let be = header.block_entries as u64;
    let mut next = 0u64;
    for (i, r) in refs.iter().enumerate() {
        let (side, b) = (i as u64 / blocks, i as u64 % blocks);
        let first = b * be;
        let entries = be.min(header.entries - first);
        let in_place = match header.codec {
            CODEC_RAW => r.offset == side * header.entries + first && r.length as u64 == entries,
            _ => {
                r.offset == next
                    && r.length > 0
                    && r.length as usize <= zstd::zstd_safe::compress_bound(entries as usize)
            }
        };
        if !in_place {
            return Err(damaged(format!("block {i} is out of place")));
        }
        next += r.length as u64;
    }
    let far = if wide {
        let list = FarList::decode(&bytes[bytes.len() - far_len..], header.entries)
            .map_err(|e| damaged(e.to_string()))?;
        if list.is_empty() {
            return Err(damaged("a wide table with an empty far list".into()));
        }
        list
    } else {
        FarList::default()
    };
    Ok(Parsed {
        header,
        blocks: refs,
        body,
        far,
    })
}

/// The counts of a header must be those of a table: parts that add up, a longest win
/// that is a win that fits, an index inside the table.
fn check_stats(h: &Header, wide: bool) -> Result<(), String> {
    for (s, side) in h.sides.iter().zip(["red", "black"]) {
        let sum = s
            .win
            .checked_add(s.draw)
            .and_then(|x| x.checked_add(s.loss));
        if sum != Some(s.legal) || s.legal > h.entries.saturating_mul(2) {
            return Err(format!("{side}-to-move counts do not add up"));
        }
        let fits = wide || s.longest <= super::value::code::MAX_PLIES;
        // in an asian table a side may win only by rule, with no longest mate
        let longest_ok = if s.win == 0 {
            s.longest == 0
        } else {
            s.longest == 0 || (fits && s.longest % 2 == 1 && s.longest_index < h.entries)
        };
        if !longest_ok {
            return Err(format!("{side}-to-move longest win is not a table's"));
        }
    }
    Ok(())
}

/// Whether a block's stored bytes match their checksum.
pub fn block_checksum_ok(bytes: &[u8], r: &BlockRef) -> bool {
    crc32fast::hash(bytes) == r.checksum
}

/// Format 1: the header of tables written before block checksums. Read only to convert.
pub mod legacy {
    use super::*;

    #[derive(Clone, Debug, bincode::Decode)]
    struct HeaderV1 {
        format_version: u32,
        rules: String,
        material: String,
        index_scheme: u32,
        entry_width: u8,
        entries: u64,
        sides: [SideStats; 2],
        body_checksum: u32,
    }

    /// Converts a format-1 table file to the current format in place (through a
    /// temporary file), after checking its header and its body's checksum. Returns the
    /// new header.
    pub fn convert(path: &Path, material: &Material) -> Result<Header, TableError> {
        let bytes = crate::files::read_regular(path).map_err(|e| TableError::io(path, e))?;
        let bad = |reason: &str| TableError::Header {
            path: path.to_path_buf(),
            reason: format!("format 1: {reason}"),
        };
        if bytes.len() < 12 || bytes[..8] != MAGIC {
            return Err(TableError::NotATable {
                path: path.to_path_buf(),
            });
        }
        let len = le_u32(&bytes[8..12]) as usize;
        if len > MAX_HEADER || 12 + len > bytes.len() {
            return Err(bad("header length"));
        }
        let (h, used): (HeaderV1, usize) =
            bincode::decode_from_slice(&bytes[12..12 + len], bincode_config())
                .map_err(|_| bad("its fields cannot be read"))?;
        if used != len || h.format_version != 1 {
            return Err(bad("its fields cannot be read"));
        }
        if h.rules != Rules::None.header_name()
            || h.index_scheme != super::super::index::INDEX_SCHEME
            || h.entry_width != 1
            || h.material != material.to_string()
        {
            return Err(bad("not a table of this material and rule set"));
        }
        let body = align(12 + len);
        let expected = (body as u64).saturating_add(h.entries.saturating_mul(2));
        if bytes.len() as u64 != expected {
            return Err(TableError::Size {
                path: path.to_path_buf(),
                actual: bytes.len() as u64,
                expected,
            });
        }
        let n = h.entries as usize;
        let (red, black) = bytes[body..].split_at(n);
        let mut crc = crc32fast::Hasher::new();
        crc.update(red);
        crc.update(black);
        if crc.finalize() != h.body_checksum {
            return Err(bad("body checksum mismatch"));
        }
        let header = Header::new(material, h.entries, h.sides, Rules::None);
        check_stats(&header, false).map_err(|r| bad(&r))?;
        write(path, &header, red, black)?;
        Ok(header)
    }
}
