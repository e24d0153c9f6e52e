//! Checkpoints of a table's build, so that a killed build continues from its last finished
//! phase instead of from the start.
//!
//! A build's whole state between two phases is its two arrays of entries (one byte per
//! position and side to move), its far list (distances beyond a byte, usually none) and
//! the longest distance noted so far: every phase is a
//! function of those alone (the chunks' summaries of codes stored ahead are recomputed from
//! the entries). So a checkpoint is a file `NAME.ctb.work` beside the table: a header with
//! the phase, what the build started from (the sub-tables' identities), and a CRC-32 per
//! block of entries, then both arrays raw. It is written atomically (a temporary file,
//! synced and renamed), at most once per interval, after a phase; a build that finds one
//! that fits resumes from it and says so, and removes it once the table is written. One
//! that does not fit (another canju, other sub-tables, damaged) is reported and removed,
//! and the build starts over: a checkpoint can cost time, never a wrong entry.

use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering::Relaxed};
use std::time::{Duration, Instant};

use bincode::{Decode, Encode};

use super::super::format::TableError;
use super::super::probe::Tablebase;
use crate::game::material::Material;

const MAGIC: [u8; 8] = *b"CANJUWRK";
/// The layout of checkpoint files and the meaning of the generator's working codes: a
/// change to either must change this number.
const VERSION: u32 = 3;
/// The longest header a checkpoint may have (its far list is in it).
const MAX_HEAD: usize = 256 << 20;
/// Entries per checksummed block.
const BLOCK: usize = 1 << 20;
/// Where the test hook's variable is read: stop the build with an error right after the
/// N-th checkpoint this process writes (as a kill would, but at a known point).
const EXIT_AFTER_VAR: &str = "CANJU_CHECKPOINT_EXIT_AFTER";

/// The last finished phase of a build, in the order a build goes through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// The forward pass (game ends, captures into the sub-tables).
    Init,
    /// The retrograde layers up to this many plies.
    Layer(u32),
    /// The mate search: its undecided positions are draws now.
    Mated,
    /// The perpetual-check rule with red as the winner (asian tables).
    RedRuleWins,
}

impl Phase {
    fn code(self) -> (u8, u32) {
        match self {
            Phase::Init => (0, 0),
            Phase::Layer(p) => (1, p),
            Phase::Mated => (2, 0),
            Phase::RedRuleWins => (3, 0),
        }
    }

    fn from_code(kind: u8, plies: u32) -> Option<Phase> {
        Some(match kind {
            0 => Phase::Init,
            1 => Phase::Layer(plies),
            2 => Phase::Mated,
            3 => Phase::RedRuleWins,
            _ => return None,
        })
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Init => write!(f, "the forward pass"),
            Phase::Layer(p) => write!(f, "retrograde ply {p}"),
            Phase::Mated => write!(f, "the mate search"),
            Phase::RedRuleWins => write!(f, "red's wins by rule"),
        }
    }
}

#[derive(Encode, Decode)]
struct WorkHeader {
    version: u32,
    /// The generator's source fingerprint ([`crate::SOURCE_FINGERPRINT`]).
    source: String,
    material: String,
    rules: String,
    entries: u64,
    fingerprint: u32,
    phase: u8,
    plies: u32,
    max_plies: u32,
    block: u32,
    checksums: Vec<u32>,
    /// The far list: (key, plies).
    far: Vec<(u64, u32)>,
}

/// Where a resumed build stands.
#[derive(Clone, Debug)]
pub struct Resumed {
    /// The phase the build had reached.
    pub phase: Phase,
    /// The longest distance noted so far.
    pub max_plies: u32,
    /// The far list so far: (key, plies).
    pub far: Vec<(u64, u32)>,
}

/// The checkpoints of one table's build.
pub struct Checkpoints {
    path: PathBuf,
    every: Duration,
    material: String,
    rules: String,
    entries: u64,
    fingerprint: u32,
    /// The source fingerprint written, and required of a checkpoint to resume.
    source: String,
    last: Mutex<Instant>,
    written: AtomicU32,
    exit_after: Option<u32>,
    /// A write failed (a full disk, say): the build goes on without checkpoints.
    off: AtomicBool,
}

impl Checkpoints {
    /// The checkpoints of `material`'s table (at `table_path`) built into `tb`, written
    /// after a phase when `every` has passed since the build started or since the last
    /// one (zero: after every phase). Identifies the build by the sub-tables it reads.
    pub fn new(
        table_path: &Path,
        material: Material,
        entries: u64,
        tb: &Tablebase,
        every: Duration,
    ) -> Result<Checkpoints, TableError> {
        let mut id = format!("canju {} state {VERSION};", env!("CARGO_PKG_VERSION"));
        for sub in material.captures() {
            let h = tb.table(sub)?.header().clone();
            id.push_str(&format!(
                "{} {} {} {} {};",
                h.material, h.rules, h.format_version, h.entries, h.block_table_checksum
            ));
        }
        Ok(Checkpoints {
            path: Checkpoints::path_for(table_path),
            every,
            material: material.to_string(),
            rules: tb.rules().header_name().to_string(),
            entries,
            fingerprint: crc32fast::hash(id.as_bytes()),
            source: crate::SOURCE_FINGERPRINT.to_string(),
            last: Mutex::new(Instant::now()),
            written: AtomicU32::new(0),
            exit_after: std::env::var(EXIT_AFTER_VAR)
                .ok()
                .and_then(|v| v.parse().ok()),
            off: AtomicBool::new(false),
        })
    }

    /// The checkpoint file of the table at `table_path`: `NAME.ctb.work` beside it.
    pub fn path_for(table_path: &Path) -> PathBuf {
        let mut name = table_path.file_name().unwrap_or_default().to_os_string();
        name.push(".work");
        table_path.with_file_name(name)
    }

    /// The checkpoint file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the checkpoint, if there is one, into the two arrays. `Ok(None)`: none;
    /// `Err(why)`: there is one, but it does not belong to this build or is damaged (the
    /// arrays may be overwritten then).
    pub fn load(&self, red: &mut [u8], black: &mut [u8]) -> Result<Option<Resumed>, String> {
        let mut f = match crate::files::open_regular(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(super::super::format::io_message(&e)),
        };
        let io = |e: std::io::Error| super::super::format::io_message(&e);
        let mut magic = [0u8; 8];
        f.read_exact(&mut magic).map_err(io)?;
        if magic != MAGIC {
            return Err("not a checkpoint (bad magic)".into());
        }
        let mut word = [0u8; 4];
        f.read_exact(&mut word).map_err(io)?;
        let len = u32::from_le_bytes(word) as usize;
        if len > MAX_HEAD {
            return Err("damaged header".into());
        }
        let mut head = vec![0u8; len];
        f.read_exact(&mut head).map_err(io)?;
        f.read_exact(&mut word).map_err(io)?;
        if crc32fast::hash(&head) != u32::from_le_bytes(word) {
            return Err("damaged header (checksum mismatch)".into());
        }
        let (h, _): (WorkHeader, usize) =
            bincode::decode_from_slice(&head, bincode::config::standard())
                .map_err(|e| format!("damaged header ({e})"))?;
        if h.version != VERSION {
            return Err(format!(
                "written by a canju whose checkpoints are version {}, this one's are {VERSION}",
                h.version
            ));
        }
        if h.source != self.source {
            return Err(format!(
                "written by another build of canju (source {}, this one's is {})",
                h.source, self.source
            ));
        }
        if (h.material.as_str(), h.rules.as_str(), h.entries)
            != (self.material.as_str(), self.rules.as_str(), self.entries)
        {
            return Err(format!(
                "it is of {} (rules {}, {} entries)",
                h.material, h.rules, h.entries
            ));
        }
        if h.fingerprint != self.fingerprint {
            return Err("the sub-tables changed since it was written".into());
        }
        let phase = Phase::from_code(h.phase, h.plies).ok_or("damaged header (phase)")?;
        let blocks = 2 * (self.entries as usize).div_ceil(BLOCK);
        if h.block as usize != BLOCK || h.checksums.len() != blocks {
            return Err("damaged header (blocks)".into());
        }
        let expected = 16 + len as u64 + 2 * self.entries;
        let actual = f.metadata().map_err(io)?.len();
        if actual != expected {
            return Err(format!(
                "truncated or padded: {actual} bytes, expected {expected}"
            ));
        }
        let mut k = 0;
        for side in [red, black] {
            for block in side.chunks_mut(BLOCK) {
                f.read_exact(block).map_err(io)?;
                if crc32fast::hash(block) != h.checksums[k] {
                    return Err(format!("block {k} is damaged (checksum mismatch)"));
                }
                k += 1;
            }
        }
        Ok(Some(Resumed {
            phase,
            max_plies: h.max_plies,
            far: h.far,
        }))
    }

    /// After a finished phase: writes a checkpoint when one is due. A write that fails
    /// turns checkpoints off with a note (the build goes on). Errs only when the test hook
    /// asks the build to stop here.
    pub(super) fn after(
        &self,
        phase: Phase,
        max_plies: u32,
        values: [&[AtomicU8]; 2],
        far: &dyn Fn() -> Vec<(u64, u32)>,
        note: &dyn Fn(&str),
    ) -> Result<(), TableError> {
        if self.off.load(Relaxed) {
            return Ok(());
        }
        {
            let mut last = self.last.lock().expect("lock");
            if last.elapsed() < self.every {
                return Ok(());
            }
            *last = Instant::now();
        }
        // SAFETY: checkpoints are written between the passes of a build, when no thread
        // writes the entries; AtomicU8 has the layout of u8.
        let sides: [&[u8]; 2] =
            values.map(|v| unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len()) });
        if let Err(e) = self.write(phase, max_plies, sides, far()) {
            self.off.store(true, Relaxed);
            note(&format!(
                "{}: no more checkpoints of this build ({e})",
                self.path.display()
            ));
            return Ok(());
        }
        let n = self.written.fetch_add(1, Relaxed) + 1;
        if self.exit_after == Some(n) {
            return Err(TableError::Unsupported(format!(
                "{}: stopped after checkpoint {n} ({phase}), as {EXIT_AFTER_VAR} asks",
                self.material
            )));
        }
        Ok(())
    }

    fn write(
        &self,
        phase: Phase,
        max_plies: u32,
        sides: [&[u8]; 2],
        far: Vec<(u64, u32)>,
    ) -> Result<(), String> {
        use rayon::prelude::*;
        let checksums: Vec<u32> = sides
            .iter()
            .flat_map(|s| s.chunks(BLOCK))
            .collect::<Vec<_>>()
            .par_iter()
            .map(|b| crc32fast::hash(b))
            .collect();
        let (kind, plies) = phase.code();
        let h = WorkHeader {
            version: VERSION,
            source: self.source.clone(),
            material: self.material.clone(),
            rules: self.rules.clone(),
            entries: self.entries,
            fingerprint: self.fingerprint,
            phase: kind,
            plies,
            max_plies,
            block: BLOCK as u32,
            checksums,
            far,
        };
        let head = bincode::encode_to_vec(&h, bincode::config::standard())
            .map_err(|e| format!("the header cannot be encoded: {e}"))?;
        if head.len() > MAX_HEAD {
            return Err(format!(
                "its header of {} bytes (the far list) is over the {MAX_HEAD} a checkpoint may have",
                head.len()
            ));
        }
        let mut prefix = Vec::with_capacity(16 + head.len());
        prefix.extend_from_slice(&MAGIC);
        prefix.extend_from_slice(&(head.len() as u32).to_le_bytes());
        prefix.extend_from_slice(&head);
        prefix.extend_from_slice(&crc32fast::hash(&head).to_le_bytes());
        crate::files::write_atomically(&self.path, &[&prefix, sides[0], sides[1]])
            .map_err(|e| super::super::format::io_message(&e))
    }

    /// Removes the checkpoint (the table is written, or the checkpoint is of no use): a
    /// regular file only; anything else at its path (a named pipe, a device, a link) is
    /// left as it is, and no checkpoint is written over it either.
    pub fn remove(&self) {
        if fs::symlink_metadata(&self.path).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_ordered_as_a_build_goes() {
        assert!(Phase::Init < Phase::Layer(1));
        assert!(Phase::Layer(1) < Phase::Layer(2));
        assert!(Phase::Layer(200) < Phase::Mated);
        assert!(Phase::Mated < Phase::RedRuleWins);
        for p in [
            Phase::Init,
            Phase::Layer(7),
            Phase::Mated,
            Phase::RedRuleWins,
        ] {
            let (k, n) = p.code();
            assert_eq!(Phase::from_code(k, n), Some(p));
        }
        assert_eq!(Phase::from_code(9, 0), None);
    }

    #[test]
    fn a_checkpoint_of_another_build_is_never_resumed() {
        let dir = std::env::temp_dir().join(format!("canju-ckpt-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let tb = Tablebase::new(&dir);
        let kk: Material = "KK".parse().unwrap();
        let entries = 300;
        let open =
            || Checkpoints::new(&dir.join("KK.ctb"), kk, entries, &tb, Duration::ZERO).unwrap();
        let values: Vec<AtomicU8> = (0..entries).map(|i| AtomicU8::new(i as u8)).collect();
        let write = |c: &Checkpoints| {
            c.after(Phase::Layer(3), 5, [&values, &values], &Vec::new, &|n| {
                panic!("{n}")
            })
            .unwrap()
        };
        // the same build resumes its own checkpoint
        let mine = open();
        write(&mine);
        let (mut red, mut black) = (vec![0; entries as usize], vec![0; entries as usize]);
        let r = open().load(&mut red, &mut black).unwrap().unwrap();
        assert_eq!((r.phase, r.max_plies), (Phase::Layer(3), 5));
        assert_eq!(red[7], 7);
        // one written by a build of other code is refused, and says why
        let mut other = open();
        other.source = "0123456789abcdef".into();
        write(&other);
        let why = open().load(&mut red, &mut black).unwrap_err();
        assert!(
            why.contains("another build of canju") && why.contains("0123456789abcdef"),
            "{why}"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
