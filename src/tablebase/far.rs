//! The far list of a wide table: the exact distances of the entries whose distance to mate a
//! byte does not hold.
//!
//! An entry decided in more plies than a one-byte code holds stores a far code
//! ([`FAR_LOSS`](super::value::code::FAR_LOSS) or
//! [`FAR_WIN`](super::value::code::FAR_WIN), by parity), and its distance is here, keyed
//! by side to move and index. Such entries are the tail of a table's distances, few beside the
//! rest, so a sorted list read by binary search is all they need. A table with a far list is
//! written in format 3 (format 2 with the list after the body, see
//! [`crate::tablebase::format`]); a table without one stays format 2, byte for byte.

use crate::game::piece::Color;

/// Bytes of one entry of the stored list: u64 LE key, u32 LE plies.
pub const ENTRY_BYTES: usize = 12;
/// Bytes after the list: u64 LE count, u32 LE CRC-32 of the list and the count.
pub const TRAILER_BYTES: usize = 12;

/// Entries with their exact distances, sorted by key (side to move, then index).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FarList {
    keys: Vec<u64>,
    plies: Vec<u32>,
}

/// The key of an entry: black to move after every red-to-move entry.
#[inline]
pub fn key(turn: Color, index: u64) -> u64 {
    ((turn.index() as u64) << 63) | index
}

/// The side to move and index of a key.
pub fn unkey(key: u64) -> (Color, u64) {
    let turn = if key >> 63 == 0 {
        Color::Red
    } else {
        Color::Black
    };
    (turn, key & !(1 << 63))
}

impl FarList {
    /// A list from (key, plies) pairs in any order; the keys must be distinct.
    pub fn from_entries(mut entries: Vec<(u64, u32)>) -> FarList {
        entries.sort_unstable_by_key(|e| e.0);
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        FarList {
            keys: entries.iter().map(|e| e.0).collect(),
            plies: entries.iter().map(|e| e.1).collect(),
        }
    }

    /// Entries in the list.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// No entry in the list.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The distance of an entry, if the list holds it.
    #[inline]
    pub fn get(&self, turn: Color, index: u64) -> Option<u32> {
        self.keys
            .binary_search(&key(turn, index))
            .ok()
            .map(|k| self.plies[k])
    }

    /// (key, plies) in key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.keys.iter().copied().zip(self.plies.iter().copied())
    }

    /// The longest win (odd distance) with the first entry reaching it, per side to move.
    pub fn longest_wins(&self) -> [(u32, u64); 2] {
        let mut out = [(0, 0); 2];
        for (k, p) in self.iter() {
            let (turn, index) = unkey(k);
            let best = &mut out[turn.index()];
            if p % 2 == 1 && p > best.0 {
                *best = (p, index);
            }
        }
        out
    }

    /// The stored bytes: the entries, then the count and the CRC-32 of both.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * ENTRY_BYTES + TRAILER_BYTES);
        for (k, p) in self.iter() {
            out.extend_from_slice(&k.to_le_bytes());
            out.extend_from_slice(&p.to_le_bytes());
        }
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// The stored length of a list that ends a file of `file_len` bytes, from its trailer
    /// (`None` when the file is too short to hold the list its trailer counts).
    pub fn stored_len(bytes: &[u8]) -> Option<usize> {
        let n = bytes.len();
        let t = n.checked_sub(TRAILER_BYTES)?;
        let count = u64::from_le_bytes(bytes[t..t + 8].try_into().ok()?);
        let len = (count as u128 * ENTRY_BYTES as u128 + TRAILER_BYTES as u128)
            .try_into()
            .ok()?;
        (len <= n).then_some(len)
    }

    /// Reads a stored list (exactly its bytes, trailer included), checking its checksum,
    /// its order, its keys against `entries` per side and that every distance is one a
    /// far code holds.
    pub fn decode(bytes: &[u8], entries: u64) -> Result<FarList, FarListError> {
        let t = bytes
            .len()
            .checked_sub(TRAILER_BYTES)
            .ok_or(FarListError::Short)?;
        let crc = u32::from_le_bytes(bytes[t + 8..].try_into().expect("4 bytes"));
        if crc32fast::hash(&bytes[..t + 8]) != crc {
            return Err(FarListError::Checksum);
        }
        if !t.is_multiple_of(ENTRY_BYTES)
            || u64::from_le_bytes(bytes[t..t + 8].try_into().expect("8 bytes"))
                != (t / ENTRY_BYTES) as u64
        {
            return Err(FarListError::Count);
        }
        let mut list = FarList::default();
        for e in bytes[..t].chunks_exact(ENTRY_BYTES) {
            let k = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
            let p = u32::from_le_bytes(e[8..].try_into().expect("4 bytes"));
            if list.keys.last().is_some_and(|&last| last >= k) {
                return Err(FarListError::Order);
            }
            if unkey(k).1 >= entries {
                return Err(FarListError::Entry {
                    entry: unkey(k).1,
                    entries,
                });
            }
            if p < 2 {
                return Err(FarListError::Distance(p));
            }
            list.keys.push(k);
            list.plies.push(p);
        }
        Ok(list)
    }
}

/// What is wrong with a stored far list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FarListError {
    /// Shorter than its trailer.
    #[error("the far list is cut short")]
    Short,
    /// Its checksum does not match its bytes.
    #[error("far list checksum mismatch")]
    Checksum,
    /// Its count does not match its length.
    #[error("the far list's count does not match its length")]
    Count,
    /// Its keys are not in increasing order.
    #[error("the far list is out of order")]
    Order,
    /// A key names an entry beyond the table.
    #[error("the far list names entry {entry} of {entries}")]
    Entry {
        /// The entry named.
        entry: u64,
        /// Entries per side to move.
        entries: u64,
    },
    /// A distance no far code holds.
    #[error("the far list holds a distance of {0} plies")]
    Distance(u32),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_reads_back_what_was_stored_and_refuses_damage() {
        let list = FarList::from_entries(vec![
            (key(Color::Black, 7), 201),
            (key(Color::Red, 9), 190),
            (key(Color::Red, 3), 255),
        ]);
        assert_eq!(list.get(Color::Red, 3), Some(255));
        assert_eq!(list.get(Color::Black, 7), Some(201));
        assert_eq!(list.get(Color::Black, 3), None);
        assert_eq!(list.longest_wins(), [(255, 3), (201, 7)]);
        let bytes = list.encode();
        assert_eq!(FarList::stored_len(&bytes), Some(bytes.len()));
        assert_eq!(FarList::decode(&bytes, 10).unwrap(), list);
        // an index beyond the table, a flipped bit, a cut
        assert_eq!(
            FarList::decode(&bytes, 8).unwrap_err(),
            FarListError::Entry {
                entry: 9,
                entries: 8
            }
        );
        let mut bad = bytes.clone();
        bad[9] ^= 1;
        assert_eq!(
            FarList::decode(&bad, 10).unwrap_err(),
            FarListError::Checksum
        );
        assert!(FarList::decode(&bytes[1..], 10).is_err());
        assert_eq!(FarList::stored_len(&bytes[..5]), None);
        let empty = FarList::default().encode();
        assert_eq!(FarList::decode(&empty, 0).unwrap(), FarList::default());
    }
}
