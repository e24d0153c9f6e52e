//! Damaged table files are never used: every header byte flipped, bytes flipped across the
//! body, truncations at many lengths, a zeroed block under `probe`, a damaged sub-table
//! under `verify` and `gen`, and files of the older format.

use std::path::Path;

use crate::common::{TempDir, build_into};
use canju::game::material::Material;
use canju::tablebase::format::{self, TableError};
use canju::tablebase::{Table, Tablebase, verify};
use canju::{Color, Position};

/// Opens a file as a table of `material` and checks all of it, as `gen` and `verify` do.
fn open_and_check(path: &Path, material: &str) -> Result<(), TableError> {
    let t = Table::open(path, material.parse().unwrap())?;
    t.check_all()
}

/// The offset of the body in a sound file (where the first block starts).
fn body_offset(path: &Path) -> usize {
    format::parse(path, &std::fs::read(path).unwrap())
        .unwrap()
        .body
}

/// Writes `bytes` as a table file of its own and requires it to be refused, with an error
/// that names the file.
fn assert_refused(dir: &Path, material: &str, bytes: &[u8], what: &str) {
    let path = dir.join(format!("{material}.ctb"));
    std::fs::write(&path, bytes).unwrap();
    match open_and_check(&path, material) {
        Ok(()) => panic!("{what}: a damaged file passed"),
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains(&format!("{material}.ctb")), "{what}: {msg}");
            assert!(!msg.contains('\n'), "{what}: {msg}");
            assert!(
                !msg.contains("UnexpectedEnd") && !msg.contains("os error"),
                "{what}: decoder or OS internals: {msg}"
            );
        }
    }
}

#[test]
fn every_header_byte_and_bytes_across_the_body_are_checked() {
    let d = TempDir::new("damaged-bytes");
    build_into(&d, "KNPK");
    let good = std::fs::read(d.0.join("KNPK.ctb")).unwrap();
    let body = body_offset(&d.0.join("KNPK.ctb"));
    // the file has several blocks a side, so that block checks are exercised
    let t = Table::open(&d.0.join("KNPK.ctb"), "KNPK".parse().unwrap()).unwrap();
    assert!(t.block_count() >= 6, "{}", t.block_count());
    drop(t);
    let scratch = TempDir::new("damaged-bytes-scratch");
    // every byte before the body: magic, length, header, header checksum, padding, block
    // table; two different changes each
    for i in 0..body {
        for flip in [0x01u8, 0x80] {
            let mut b = good.clone();
            b[i] ^= flip;
            assert_refused(&scratch.0, "KNPK", &b, &format!("byte {i} ^ {flip:#x}"));
        }
    }
    // bytes across the body, in every block (compressed blocks are short: a step that
    // lands in each)
    let step = ((good.len() - body) / 40).max(1);
    let mut i = body;
    while i < good.len() {
        let mut b = good.clone();
        b[i] ^= 0x10;
        assert_refused(&scratch.0, "KNPK", &b, &format!("body byte {i}"));
        i += step;
    }
    let mut b = good.clone();
    *b.last_mut().unwrap() ^= 1;
    assert_refused(&scratch.0, "KNPK", &b, "last byte");
    // truncations at many lengths, and bytes appended
    let mut len = 0;
    while len < good.len() {
        assert_refused(
            &scratch.0,
            "KNPK",
            &good[..len],
            &format!("truncated to {len}"),
        );
        len = if len < 300 { len + 1 } else { len * 5 / 4 };
    }
    assert_refused(
        &scratch.0,
        "KNPK",
        &good[..good.len() - 1],
        "one byte short",
    );
    let mut b = good.clone();
    b.push(0);
    assert_refused(&scratch.0, "KNPK", &b, "one byte appended");
    // the sound file still passes
    std::fs::write(scratch.0.join("KNPK.ctb"), &good).unwrap();
    open_and_check(&scratch.0.join("KNPK.ctb"), "KNPK").unwrap();
}

#[test]
fn probe_never_reads_a_value_from_a_damaged_block() {
    let d = TempDir::new("damaged-probe");
    let tb = build_into(&d, "KNPK");
    let path = d.0.join("KNPK.ctb");
    let t = tb.table("KNPK".parse().unwrap()).unwrap();
    let entries = t.header().entries;
    let block = t.header().block_entries as u64;
    drop(t);
    tb.forget(&"KNPK".parse().unwrap());
    // zero the stored bytes of the second block of black's entries
    let mut bytes = std::fs::read(&path).unwrap();
    let parsed = format::parse(&path, &bytes).unwrap();
    let r = parsed.blocks[(parsed.header.blocks_per_side() + 1) as usize];
    let start = parsed.body + r.offset as usize;
    for b in &mut bytes[start..start + r.length as usize] {
        *b = 0;
    }
    let _ = entries;
    std::fs::write(&path, &bytes).unwrap();
    let fresh = Tablebase::new(&d.0);
    let t = fresh.table("KNPK".parse().unwrap()).unwrap();
    let blocks = t.header().blocks_per_side();
    // every entry of that block is an error naming the file and the block
    for i in (block..2 * block).step_by(101) {
        let e = t.code(Color::Black, i).unwrap_err().to_string();
        assert!(
            e.contains("KNPK.ctb") && e.contains(&format!("block {}", blocks + 1)),
            "{e}"
        );
        assert!(e.contains("black to move"), "{e}");
    }
    // other blocks still answer
    assert!(t.code(Color::Black, 0).is_ok());
    assert!(t.code(Color::Red, block + 5).is_ok());
    // and a position in the damaged block, probed, is an error, not a draw
    let layout = t.layout();
    let mut squares = [canju::Square::new(0).unwrap(); canju::tablebase::index::MAX_PIECES];
    let mut hit = 0;
    for i in block..2 * block {
        if layout.squares(i, &mut squares).is_none() {
            continue;
        }
        let mut pos = Position::scratch();
        pos.set_placement(layout.pieces(), &squares[..4], Color::Black);
        if pos.in_check(Color::Red) {
            continue;
        }
        let Ok(pos) = pos.to_string().parse::<Position>() else {
            continue;
        };
        let e = fresh.probe(&pos).unwrap_err().to_string();
        assert!(e.contains("damaged"), "{e}");
        hit += 1;
        if hit > 20 {
            break;
        }
    }
    assert!(hit > 0);
}

#[test]
fn a_damaged_sub_table_is_named_as_the_damaged_file() {
    let d = TempDir::new("damaged-sub");
    let tb = build_into(&d, "KNPKA");
    drop(tb);
    let sub = d.0.join("KNPK.ctb");
    let mut bytes = std::fs::read(&sub).unwrap();
    let n = bytes.len();
    bytes[n - 1000] ^= 0x04;
    std::fs::write(&sub, &bytes).unwrap();
    // verify of the parent blames the sub-table's file
    let tb = Tablebase::new(&d.0);
    let parent = tb.table("KNPKA".parse().unwrap()).unwrap();
    let e = verify::verify(&parent, &tb, &|_, _| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("KNPK.ctb") && e.contains("damaged"), "{e}");
    assert!(!e.contains("KNPKA: entry"), "{e}");
    // building the parent again refuses to use it
    std::fs::remove_file(d.0.join("KNPKA.ctb")).unwrap();
    let tb = Tablebase::new(&d.0);
    let m: Material = "KNPKA".parse().unwrap();
    let e = canju::tablebase::build::build(
        m,
        &tb,
        &|_| Box::new(canju::tablebase::generate::Silent),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("KNPK.ctb") && e.contains("damaged"), "{e}");
    assert!(!d.0.join("KNPKA.ctb").exists());
}

/// A table file in format 1 (before block checksums): magic, header length, the bincode
/// header (fixed-width little endian) with one CRC over the body, padding, body.
fn format_one(material: &str, t: &Table) -> Vec<u8> {
    let h = t.header();
    let red = t.checked_side(Color::Red).unwrap();
    let black = t.checked_side(Color::Black).unwrap();
    let mut head = Vec::new();
    head.extend_from_slice(&1u32.to_le_bytes());
    for s in [h.rules.as_str(), material] {
        head.extend_from_slice(&(s.len() as u64).to_le_bytes());
        head.extend_from_slice(s.as_bytes());
    }
    head.extend_from_slice(&h.index_scheme.to_le_bytes());
    head.push(1);
    head.extend_from_slice(&h.entries.to_le_bytes());
    for s in &h.sides {
        for x in [s.legal, s.win, s.draw, s.loss] {
            head.extend_from_slice(&x.to_le_bytes());
        }
        head.extend_from_slice(&s.longest.to_le_bytes());
        head.extend_from_slice(&s.longest_index.to_le_bytes());
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(red);
    crc.update(black);
    head.extend_from_slice(&crc.finalize().to_le_bytes());
    let mut out = format::MAGIC.to_vec();
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.resize(out.len().div_ceil(64) * 64, 0);
    out.extend_from_slice(red);
    out.extend_from_slice(black);
    out
}

#[test]
fn old_format_files_are_named_and_converted() {
    let d = TempDir::new("old-format");
    let tb = build_into(&d, "KRK");
    let path = d.0.join("KRK.ctb");
    let now = std::fs::read(&path).unwrap();
    let t = tb.table("KRK".parse().unwrap()).unwrap();
    let old = format_one("KRK", &t);
    drop(t);
    tb.forget(&"KRK".parse().unwrap());
    std::fs::write(&path, &old).unwrap();
    let e = Tablebase::new(&d.0)
        .table("KRK".parse().unwrap())
        .unwrap_err();
    assert!(
        e.to_string().contains("table format 1 from an older canju"),
        "{e}"
    );
    // what fixes it is data for the front ends to word (`canju gen KRK` on the command line)
    assert_eq!(
        canju::tablebase::HasRemedy::remedy(&e),
        Some(canju::tablebase::Remedy::Convert { path: path.clone() })
    );
    // conversion gives exactly the file this canju writes
    let reports = canju::tablebase::build::build(
        "KRK".parse().unwrap(),
        &Tablebase::new(&d.0),
        &|_| Box::new(canju::tablebase::generate::Silent),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(
        reports.last().unwrap().outcome,
        canju::tablebase::build::Outcome::Converted
    );
    assert_eq!(std::fs::read(&path).unwrap(), now);
    // a damaged old file is not converted
    let mut bad = old.clone();
    let n = bad.len();
    bad[n - 3] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let e = format::legacy::convert(&path, &"KRK".parse().unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("body checksum mismatch"), "{e}");
}

/// Tables of earlier versions store their blocks raw: they are still read, value for value
/// the same as the compressed file this canju writes, and they are ten times larger.
#[test]
fn raw_tables_of_earlier_versions_are_still_read() {
    let d = TempDir::new("raw-codec");
    let tb = build_into(&d, "KNPK");
    let m: Material = "KNPK".parse().unwrap();
    let t = tb.table(m).unwrap();
    assert_eq!(t.header().codec, format::CODEC_ZSTD);
    let red = t.checked_side(Color::Red).unwrap().to_vec();
    let black = t.checked_side(Color::Black).unwrap().to_vec();
    let header = t.header().clone();
    drop(t);
    tb.forget(&m);
    let compressed = std::fs::metadata(d.0.join("KNPK.ctb")).unwrap().len();
    let raw_dir = TempDir::new("raw-codec-old");
    let path = raw_dir.0.join("KNPK.ctb");
    format::write_with_codec(&path, &header, &red, &black, format::CODEC_RAW).unwrap();
    let raw_size = std::fs::metadata(&path).unwrap().len();
    assert!(raw_size > 5 * compressed, "{raw_size} {compressed}");
    let old = Tablebase::new(&raw_dir.0);
    let t = old.table(m).unwrap();
    assert_eq!(t.header().codec, format::CODEC_RAW);
    t.check_all().unwrap();
    // entry by entry, through the probing path (blocks on demand) and the whole sides
    let fresh = Tablebase::new(&d.0);
    let c = fresh.table(m).unwrap();
    for turn in [Color::Red, Color::Black] {
        for i in (0..header.entries).step_by(7) {
            assert_eq!(t.code(turn, i).unwrap(), c.code(turn, i).unwrap(), "{i}");
        }
    }
    assert_eq!(t.checked_side(Color::Red).unwrap(), &red[..]);
    assert_eq!(t.checked_side(Color::Black).unwrap(), &black[..]);
    // verify passes on the old file, its sub-tables compressed beside it
    for e in std::fs::read_dir(&d.0).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap() != "KNPK.ctb" {
            std::fs::copy(&p, raw_dir.0.join(p.file_name().unwrap())).unwrap();
        }
    }
    verify::verify(&t, &old, &|_, _| {}).unwrap();
}

/// Probing through a cache far smaller than the table (one set of 32 blocks for 110)
/// evicts and decompresses again and again; through a cache with room for every block,
/// each block is decompressed once and read without a lock. Every entry still reads as
/// the whole table decompressed at once.
#[test]
fn a_small_block_cache_reads_every_entry_right() {
    let d = TempDir::new("small-cache");
    build_into(&d, "KNPK");
    let m: Material = "KNPK".parse().unwrap();
    let whole = Tablebase::new(&d.0);
    let t = whole.table(m).unwrap();
    let small = Tablebase::new(&d.0).with_cache_mb(0);
    let s = small.table(m).unwrap();
    let roomy = Tablebase::new(&d.0).with_cache_mb(64);
    let r = roomy.table(m).unwrap();
    assert!(s.block_count() > 100, "{}", s.block_count());
    for turn in [Color::Red, Color::Black] {
        let side = t.checked_side(turn).unwrap();
        // forwards and backwards, so that sets fill, age and are replaced
        for i in (0..side.len()).chain((0..side.len()).rev()).step_by(3) {
            // a prefetch is only a hint, before the block is there or after
            r.prefetch(turn, i as u64);
            assert_eq!(s.code(turn, i as u64).unwrap(), side[i], "{turn:?} {i}");
            assert_eq!(r.code(turn, i as u64).unwrap(), side[i], "{turn:?} {i}");
        }
        r.prefetch(turn, side.len() as u64 + 5);
    }
}
