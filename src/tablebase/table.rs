//! One table file: memory-mapped, checked block by block as it is read, decompressed on
//! demand into a small cache of recent blocks (or whole, for passes over the table), and
//! probed by index.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{
    AtomicBool, AtomicU64, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::sync::{Mutex, OnceLock};

use memmap2::Mmap;
use rayon::prelude::*;

use super::far::FarList;
use super::format::{self, BlockRef, Header, Rules, TableError};
use super::index::{Layout, MAX_PIECES, Squares};
use super::value::{Value, code, value_of_code};
use crate::game::material::Material;
use crate::game::piece::{Color, Kind, Piece};
use crate::game::position::Position;
use crate::game::square::Square;

/// One table file, mapped read-only. Every block of the body is checked against its
/// checksum the first time it is read; a damaged block is an error naming the file and the
/// block, never a value. Compressed blocks are decompressed on demand into a small cache
/// of recent blocks, or all at once for passes over the whole table ([`Table::load_all`]).
pub struct Table {
    path: PathBuf,
    header: Header,
    layout: Layout,
    map: Mmap,
    /// The file itself, for checking all blocks with plain reads (which, unlike touching
    /// the mapping, leave no pages resident in this process).
    file: fs::File,
    body: usize,
    blocks: Vec<BlockRef>,
    /// One bit per block: checked and sound.
    checked: Vec<AtomicU64>,
    /// Every block checked and sound.
    all_checked: AtomicBool,
    block_shift: u32,
    /// Compressed tables: both sides' entries, red's first, once [`Table::load_all`] ran.
    decoded: OnceLock<Vec<u8>>,
    /// Compressed tables: decompressed blocks kept for probes.
    cache: BlockCache,
    /// Distinguishes this table in the threads' block caches ([`Table::code_read`]).
    id: u64,
    /// A wide table's distances that do not fit a byte (empty when the table is narrow).
    far: FarList,
}

/// The number given to the next table opened.
static NEXT_TABLE_ID: AtomicU64 = AtomicU64::new(0);

/// Slots of a thread's cache of decompressed blocks for whole-table passes: 256 blocks,
/// 1 MB of 4,096-entry blocks.
const THREAD_SLOTS: usize = 256;

/// Blocks a set of the decompressed-block cache holds.
const CACHE_WAYS: usize = 32;
/// The decompressed-block cache of a table by default: 8 MB (2,048 blocks of 4,096
/// entries). [`Tablebase::with_cache_mb`](super::probe::Tablebase::with_cache_mb) sets
/// another size.
pub const DEFAULT_CACHE_MB: usize = 8;

/// A compressed table's decompressed blocks, kept for probes.
enum BlockCache {
    /// Room for every block within the cache's size: each block is decompressed once, on
    /// first use, and then read without a lock (a probe is one load more than a raw table's).
    Whole(Vec<OnceLock<Box<[u8]>>>),
    /// Less room than the table: recently used blocks in sets chosen by block number, the
    /// least recently used of a set replaced.
    Sets(Vec<Mutex<CacheSet>>),
}

/// One set of the cache: blocks with their number and when they were last used, the
/// numbers apart so that a lookup scans a few cache lines.
#[derive(Default)]
struct CacheSet {
    clock: u64,
    numbers: Vec<usize>,
    used: Vec<u64>,
    entries: Vec<Box<[u8]>>,
}

thread_local! {
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
    /// A thread's cache of decompressed blocks, direct-mapped: (table id and block, entries).
    static THREAD_BLOCKS: std::cell::RefCell<Vec<(u64, Vec<u8>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// A thread's buffer for a block's stored bytes read from the file.
    static STORED_BLOCK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({})", self.path.display())
    }
}

/// Opens a path for reading only if it is a regular file: a directory, a FIFO, a socket
/// or a device is an error, and opening never blocks (a FIFO with no writer).
pub fn open_regular(path: &Path) -> Result<fs::File, TableError> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| TableError::io(path, e))?;
    let meta = file.metadata().map_err(|e| TableError::io(path, e))?;
    if !meta.is_file() {
        return Err(TableError::NotAFile {
            path: path.to_path_buf(),
            kind: crate::files::kind_of(&meta),
        });
    }
    Ok(file)
}

/// Reads exactly `buf.len()` bytes at `offset`.
fn read_at(file: &fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file.try_clone()?;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

impl Table {
    /// Maps a table file and checks its header, block table, material and size. The body's
    /// blocks are checked as they are first read, or all at once by [`Table::check_all`].
    pub fn open(path: &Path, material: Material) -> Result<Table, TableError> {
        Table::open_with_cache(path, material, DEFAULT_CACHE_MB)
    }

    /// [`Table::open`] with a decompressed-block cache of at most `cache_mb` MB (compressed
    /// tables; no more than the table's own size).
    pub fn open_with_cache(
        path: &Path,
        material: Material,
        cache_mb: usize,
    ) -> Result<Table, TableError> {
        let file = open_regular(path)?;
        // SAFETY: the mapping is read-only and tables are never modified in place (they are
        // written under a temporary name and renamed). A file truncated by another process
        // while mapped could still fault; that is the usual caveat of memory-mapped reads.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| TableError::io(path, e))?;
        let format::Parsed {
            header,
            blocks,
            body,
            far,
        } = format::parse(path, &map)?;
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
        let checked = (0..blocks.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        let block_shift = header.block_entries.trailing_zeros();
        let cache = if header.codec == format::CODEC_RAW {
            BlockCache::Sets(Vec::new())
        } else {
            let capacity = (cache_mb << 20) / header.block_entries.max(1) as usize;
            if blocks.len() <= capacity {
                BlockCache::Whole((0..blocks.len()).map(|_| OnceLock::new()).collect())
            } else {
                let sets = capacity.div_ceil(CACHE_WAYS).max(1);
                BlockCache::Sets((0..sets).map(|_| Mutex::default()).collect())
            }
        };
        Ok(Table {
            id: NEXT_TABLE_ID.fetch_add(1, Relaxed),
            decoded: OnceLock::new(),
            cache,
            path: path.to_path_buf(),
            header,
            layout,
            map,
            file,
            body,
            blocks,
            checked,
            all_checked: AtomicBool::new(false),
            block_shift,
            far,
        })
    }

    /// The table's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Its index layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Number of body blocks (both sides).
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    fn block_bytes(&self, b: usize) -> &[u8] {
        let r = &self.blocks[b];
        let start = self.body + r.offset as usize;
        &self.map[start..start + r.length as usize]
    }

    /// Checks one block (by its number, red's blocks first) unless it was checked before.
    pub fn check_block(&self, b: usize) -> Result<(), TableError> {
        let (word, bit) = (&self.checked[b / 64], 1u64 << (b % 64));
        if word.load(Acquire) & bit != 0 {
            return Ok(());
        }
        if format::block_checksum_ok(self.block_bytes(b), &self.blocks[b]) {
            word.fetch_or(bit, Release);
            Ok(())
        } else {
            Err(self.block_error(b))
        }
    }

    /// Whether the blocks are compressed (else the entries lie in the mapped file).
    fn compressed(&self) -> bool {
        self.header.codec != format::CODEC_RAW
    }

    /// The entries a block holds.
    fn block_entries(&self, b: usize) -> usize {
        let per_side = self.header.blocks_per_side();
        let first = (b as u64 % per_side) << self.block_shift;
        (self.header.entries - first).min(1 << self.block_shift) as usize
    }

    /// Decompresses a block's stored bytes into `out`, which must be as long as the
    /// block's entries. A frame that does not decode to exactly that many entries is a
    /// damaged block. (Callers check the stored bytes' checksum first.)
    fn decode_block(&self, b: usize, stored: &[u8], out: &mut [u8]) -> Result<(), TableError> {
        let decoded = DECOMPRESSOR.with(|d| {
            let mut d = d.borrow_mut();
            if d.is_none() {
                *d = zstd::bulk::Decompressor::new().ok();
            }
            d.as_mut()
                .and_then(|d| d.decompress_to_buffer(stored, out).ok())
        });
        if decoded == Some(out.len()) {
            Ok(())
        } else {
            Err(self.block_error(b))
        }
    }

    /// Entry `i` of compressed block `b`, from the cache or decompressed (and cached).
    fn cached_entry(&self, b: usize, i: usize) -> Result<u8, TableError> {
        match &self.cache {
            BlockCache::Whole(slots) => {
                if let Some(block) = slots[b].get() {
                    return Ok(block[i]);
                }
                let fresh = self.decompressed(b)?;
                // two threads may decompress the same block at once; one copy is kept
                Ok(slots[b].get_or_init(|| fresh)[i])
            }
            BlockCache::Sets(sets) => {
                let set = &sets[b % sets.len()];
                {
                    let mut set = set.lock().unwrap_or_else(|e| e.into_inner());
                    set.clock += 1;
                    let now = set.clock;
                    if let Some(k) = set.numbers.iter().position(|&at| at == b) {
                        set.used[k] = now;
                        return Ok(set.entries[k][i]);
                    }
                }
                let fresh = self.decompressed(b)?;
                let value = fresh[i];
                let mut set = set.lock().unwrap_or_else(|e| e.into_inner());
                let now = set.clock;
                if set.numbers.contains(&b) {
                    // another thread decompressed it meanwhile
                    return Ok(value);
                }
                if set.numbers.len() < CACHE_WAYS {
                    set.numbers.push(b);
                    set.used.push(now);
                    set.entries.push(fresh);
                } else if let Some(k) = (0..set.used.len()).min_by_key(|&k| set.used[k]) {
                    set.numbers[k] = b;
                    set.used[k] = now;
                    set.entries[k] = fresh;
                }
                Ok(value)
            }
        }
    }

    /// Compressed block `b` checked and decompressed.
    fn decompressed(&self, b: usize) -> Result<Box<[u8]>, TableError> {
        self.check_block(b)?;
        let mut out = vec![0u8; self.block_entries(b)];
        self.decode_block(b, self.block_bytes(b), &mut out)?;
        Ok(out.into_boxed_slice())
    }

    /// Checks every block and, for a compressed table, decompresses all of it into memory
    /// for passes over the whole table (the generator's sub-tables, the verifier, counts);
    /// after this [`Table::checked_side`] and the generator's reads cost nothing more.
    pub fn load_all(&self) -> Result<(), TableError> {
        if !self.compressed() {
            return self.check_all();
        }
        if self.decoded.get().is_some() {
            return Ok(());
        }
        let n = self.header.entries as usize;
        let mut all = vec![0u8; 2 * n];
        let per_side = self.header.blocks_per_side() as usize;
        let be = 1usize << self.block_shift;
        // red's blocks fill the first half, black's the second
        let mut pieces: Vec<(usize, &mut [u8])> = Vec::with_capacity(self.blocks.len());
        let (red, black) = all.split_at_mut(n);
        for (side, half) in [red, black].into_iter().enumerate() {
            for (i, chunk) in half.chunks_mut(be).enumerate() {
                pieces.push((side * per_side + i, chunk));
            }
        }
        // each block's checksum and decompression in one pass over the mapped file; the
        // whole table stays in memory anyway
        pieces
            .into_par_iter()
            .map(|(b, out)| {
                self.check_block(b)
                    .and_then(|()| self.decode_block(b, self.block_bytes(b), out))
                    .map_err(|e| (b, e))
            })
            .collect::<Vec<_>>()
            .into_iter()
            .filter_map(Result::err)
            .min_by_key(|(b, _)| *b)
            .map_or(Ok(()), |(_, e)| Err(e))?;
        let _ = self.decoded.set(all);
        self.all_checked.store(true, Release);
        Ok(())
    }

    fn block_error(&self, b: usize) -> TableError {
        let per_side = self.header.blocks_per_side();
        let (side, i) = (b as u64 / per_side, b as u64 % per_side);
        let first = i << self.block_shift;
        let last = (first + self.blocks[b].length as u64).saturating_sub(1);
        TableError::Block {
            path: self.path.clone(),
            block: b as u64,
            side: if side == 0 { "red" } else { "black" },
            first,
            last,
        }
    }

    /// Checks every block of the body (in parallel); the lowest damaged block is the error.
    /// Reads the file rather than the mapping, so that a whole table checked (a sub-table
    /// before generation) does not stay resident in this process.
    pub fn check_all(&self) -> Result<(), TableError> {
        if self.all_checked.load(Acquire) {
            return Ok(());
        }
        let bad = (0..self.blocks.len())
            .into_par_iter()
            .map_init(Vec::new, |buf, b| (b, self.read_and_check(b, buf)))
            .filter_map(|(b, r)| r.err().map(|e| (b, e)))
            .min_by_key(|(b, _)| *b);
        match bad {
            Some((_, e)) => Err(e),
            None => {
                self.all_checked.store(true, Release);
                Ok(())
            }
        }
    }

    fn read_and_check(&self, b: usize, buf: &mut Vec<u8>) -> Result<(), TableError> {
        let (word, bit) = (&self.checked[b / 64], 1u64 << (b % 64));
        if word.load(Acquire) & bit != 0 {
            return Ok(());
        }
        let r = &self.blocks[b];
        buf.resize(r.length as usize, 0);
        read_at(&self.file, buf, self.body as u64 + r.offset)
            .map_err(|e| TableError::io(&self.path, e))?;
        if format::block_checksum_ok(buf, r) {
            word.fetch_or(bit, Release);
            Ok(())
        } else {
            Err(self.block_error(b))
        }
    }

    /// The entries for one side to move, after every block was checked (and, compressed,
    /// decompressed: see [`Table::load_all`]).
    pub fn checked_side(&self, turn: Color) -> Result<&[u8], TableError> {
        self.load_all()?;
        Ok(self.side_unchecked(turn))
    }

    /// A side's entries in place: in the mapped file (raw), or decompressed by
    /// [`Table::load_all`] (compressed; empty before it ran).
    #[inline]
    fn side_unchecked(&self, turn: Color) -> &[u8] {
        let n = self.header.entries as usize;
        if self.compressed() {
            return self.decoded.get().map_or(&[][..], |all| {
                &all[turn.index() * n..(turn.index() + 1) * n]
            });
        }
        let start = self.body + turn.index() * n;
        &self.map[start..start + n]
    }

    /// The stored code of an entry; its block is checked on first touch. In a wide table
    /// a far code's distance is in the far list: [`Table::value_of`] reads any code.
    #[inline]
    pub fn code(&self, turn: Color, index: u64) -> Result<u8, TableError> {
        if index >= self.header.entries {
            return Err(TableError::Unsupported(format!(
                "{}: entry {index} is beyond the table's {} entries",
                self.path.display(),
                self.header.entries
            )));
        }
        let b = turn.index() * self.header.blocks_per_side() as usize
            + (index >> self.block_shift) as usize;
        if self.compressed() {
            if let Some(all) = self.decoded.get() {
                return Ok(all[turn.index() * self.header.entries as usize + index as usize]);
            }
            return self.cached_entry(b, (index & ((1 << self.block_shift) - 1)) as usize);
        }
        self.check_block(b)?;
        Ok(self.side_unchecked(turn)[index as usize])
    }

    /// Both sides' codes (red to move, black to move) of a table loaded by
    /// [`Table::load_all`], for many reads in a row.
    pub(crate) fn sides_checked(&self) -> [&[u8]; 2] {
        debug_assert!(self.all_checked.load(Acquire));
        [
            self.side_unchecked(Color::Red),
            self.side_unchecked(Color::Black),
        ]
    }

    /// The stored code of an entry of a table loaded by [`Table::load_all`] (the
    /// generator's and the verifier's fast path).
    #[inline]
    pub(crate) fn code_of_checked(&self, turn: Color, index: u64) -> u8 {
        debug_assert!(self.all_checked.load(Acquire));
        self.side_unchecked(turn)[index as usize]
    }

    /// The stored code of an entry of a table whose blocks were all checked
    /// ([`Table::check_all`]), read through this thread's cache of decompressed blocks
    /// when the table is compressed and not loaded whole: the generator's reads of its
    /// sub-tables, which come in runs over nearby blocks.
    #[inline]
    pub(crate) fn code_read(&self, turn: Color, index: u64) -> Result<u8, TableError> {
        debug_assert!(self.all_checked.load(Acquire));
        if !self.compressed() || self.decoded.get().is_some() {
            return Ok(self.code_of_checked(turn, index));
        }
        let b = turn.index() * self.header.blocks_per_side() as usize
            + (index >> self.block_shift) as usize;
        let key = (self.id << 40) | b as u64;
        let at = (index & ((1 << self.block_shift) - 1)) as usize;
        THREAD_BLOCKS.with(|slots| {
            let mut slots = slots.borrow_mut();
            if slots.is_empty() {
                slots.resize_with(THREAD_SLOTS, || (u64::MAX, Vec::new()));
            }
            let slot = &mut slots[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize];
            if slot.0 != key {
                slot.0 = u64::MAX;
                slot.1.resize(self.block_entries(b), 0);
                self.read_block_into(b, &mut slot.1)?;
                slot.0 = key;
            }
            Ok(slot.1[at])
        })
    }

    /// Reads a compressed block with a plain read (no page of the file stays mapped in
    /// this process: a build's memory is its own entries, not its sub-tables' files),
    /// checks its checksum and decompresses it into `out`.
    fn read_block_into(&self, b: usize, out: &mut [u8]) -> Result<(), TableError> {
        let r = self.blocks[b];
        STORED_BLOCK.with(|buf| {
            let mut buf = buf.borrow_mut();
            buf.resize(r.length as usize, 0);
            read_at(&self.file, &mut buf, (self.body as u64) + r.offset)
                .map_err(|e| TableError::io(&self.path, e))?;
            if !format::block_checksum_ok(&buf, &r) {
                return Err(self.block_error(b));
            }
            self.decode_block(b, &buf, out)
        })
    }

    /// Whether some entry's code passes `test`, without keeping the table decompressed.
    pub(crate) fn any_code(&self, test: impl Fn(u8) -> bool + Sync) -> Result<bool, TableError> {
        self.check_all()?;
        if !self.compressed() || self.decoded.get().is_some() {
            return Ok(Color::ALL
                .iter()
                .any(|&turn| self.side_unchecked(turn).par_iter().any(|&c| test(c))));
        }
        (0..self.blocks.len())
            .into_par_iter()
            .map_init(Vec::new, |out, b| {
                out.resize(self.block_entries(b), 0);
                self.decode_block(b, self.block_bytes(b), out)?;
                Ok(out.iter().any(|&c| test(c)))
            })
            .try_reduce(|| false, |a, b| Ok(a || b))
    }

    /// The value of a placed position (from [`placement`]) in this table, which must be
    /// the table of its material.
    pub fn probe(&self, pl: &Placement) -> Result<Value, TableError> {
        self.value(pl.turn, self.index_of(pl))
    }

    /// The entry of a placement of this table's material.
    #[inline]
    pub fn index_of(&self, pl: &Placement) -> u64 {
        let n = self.layout.pieces().len();
        self.layout.index(&pl.squares[..n])
    }

    /// Asks the processor to start loading an entry about to be read (a hint: nothing is
    /// checked or decompressed, and an entry whose block is not at hand is left alone).
    #[inline]
    pub fn prefetch(&self, turn: Color, index: u64) {
        if index >= self.header.entries {
            return;
        }
        let n = self.header.entries as usize;
        let at = turn.index() * n + index as usize;
        if !self.compressed() {
            if let Some(byte) = self.map.get(self.body + at) {
                crate::prefetch::prefetch(byte);
            }
        } else if let Some(all) = self.decoded.get() {
            crate::prefetch::prefetch(&all[at]);
        } else if let BlockCache::Whole(slots) = &self.cache {
            let b = turn.index() * self.header.blocks_per_side() as usize
                + (index >> self.block_shift) as usize;
            if let Some(block) = slots[b].get() {
                let i = (index & ((1 << self.block_shift) - 1)) as usize;
                crate::prefetch::prefetch(&block[i]);
            }
        }
    }

    /// The value of an entry that belongs to a legal position.
    pub fn value(&self, turn: Color, index: u64) -> Result<Value, TableError> {
        let c = self.code(turn, index)?;
        self.value_of(turn, index, c)
            .ok_or_else(|| self.entry_error(index, c))
    }

    fn entry_error(&self, index: u64, c: u8) -> TableError {
        TableError::Entry {
            path: self.path.clone(),
            index,
            code: c,
        }
    }

    /// Whether the table is wide: some distances are in its far list.
    pub fn is_wide(&self) -> bool {
        !self.far.is_empty()
    }

    /// The far list (empty for a narrow table).
    pub fn far_list(&self) -> &FarList {
        &self.far
    }

    /// The value an entry's stored code `c` stands for, its distance from the far list
    /// when the table is wide and `c` a far code (`None` for illegal or foreign codes, a
    /// verdict by rule in a table without the rule, or a far code the list lacks).
    #[inline]
    pub fn value_of(&self, turn: Color, index: u64, c: u8) -> Option<Value> {
        if self.is_wide() && code::is_far(c) {
            return self
                .far
                .get(turn, index)
                .filter(|&p| code::far(p) == c)
                .map(Value::from_plies);
        }
        let foreign = code::is_rule(c) && self.header.rule_set() == Rules::None;
        value_of_code(c).filter(|_| !foreign)
    }

    /// The distance of a decided entry whose stored code is `c` (read from the far list when
    /// the table is wide and `c` is a far code; an error when the list lacks it).
    #[inline]
    pub(crate) fn plies_of(&self, turn: Color, index: u64, c: u8) -> Result<u32, TableError> {
        if self.is_wide() && code::is_far(c) {
            return match self.far.get(turn, index) {
                Some(p) if code::far(p) == c => Ok(p),
                _ => Err(self.entry_error(index, c)),
            };
        }
        Ok(code::plies(c))
    }
}

/// Where a position's pieces go in a table's slot order, and whether the position is seen
/// colour-flipped (black holds the stored first side).
pub struct Placement {
    /// The canonical material.
    pub material: Material,
    /// Colours were swapped to reach it.
    pub flipped: bool,
    /// The pieces' points in index order.
    pub squares: Squares,
    /// The side to move after the swap.
    pub turn: Color,
}

/// Finds the table material and slot placement of a position; an error when the position
/// has more pieces than any table holds, or a piece where no game can put it.
pub fn placement(pos: &Position) -> Result<Placement, TableError> {
    let material = Material::of(pos);
    if material.piece_count() > MAX_PIECES {
        return Err(TableError::Unsupported(format!(
            "no table for {material}: {} pieces, canju's tables hold at most {MAX_PIECES}",
            material.piece_count()
        )));
    }
    let flipped = !material.is_canonical();
    let canonical = if flipped {
        material.flipped()
    } else {
        material
    };
    let mut squares = [Square::new(0).expect("a0"); MAX_PIECES];
    let mut all = [Piece::new(Color::Red, Kind::General); 32];
    let count = canonical.pieces_into(&mut all);
    // the next free slot of each piece (like pieces take consecutive slots)
    let mut next = [[0u8; 7]; 2];
    for (i, p) in all[..count].iter().enumerate().rev() {
        next[p.color.index()][p.kind.index()] = i as u8;
    }
    for (s, p) in pos.pieces() {
        if !p.can_stand_on(s) {
            // (a composed placement: no table has an index for it)
            return Err(TableError::Unreachable(
                crate::game::position::Unreachable {
                    square: s,
                    piece: p,
                },
            ));
        }
        let (s, color) = if flipped {
            (s.flip(), !p.color)
        } else {
            (s, p.color)
        };
        let slot = &mut next[color.index()][p.kind.index()];
        squares[*slot as usize] = s;
        *slot += 1;
    }
    let turn = if flipped { !pos.turn() } else { pos.turn() };
    Ok(Placement {
        material: canonical,
        flipped,
        squares,
        turn,
    })
}
