//! The measurement behind canju's table codec: every table of a directory cut into blocks,
//! each block compressed on its own by zstd at several levels and by lz4, at several block
//! sizes; the stored share of the entries' bytes, the time to compress them all (one
//! thread) and the time to decompress one block.
//!
//! ```sh
//! canju gen KNPKAABB --rules none --dir /tmp/family
//! cargo run --release --example codec_study -- /tmp/family
//! ```

use std::time::Instant;

use canju::Color;
use canju::tablebase::Table;

/// Compresses one block.
type Pack = Box<dyn Fn(&[u8]) -> Vec<u8>>;
/// Decompresses one block into a buffer of its length.
type Unpack = Box<dyn FnMut(&[u8], &mut [u8])>;

/// A codec: compress one block, decompress one into a buffer of its length.
struct Codec {
    name: String,
    pack: Pack,
    unpack: Unpack,
}

fn codecs() -> Vec<Codec> {
    let mut all = vec![Codec {
        name: "lz4_flex".into(),
        pack: Box::new(lz4_flex::block::compress),
        unpack: Box::new(|c, out| {
            lz4_flex::block::decompress_into(c, out).expect("lz4");
        }),
    }];
    for level in [1, 3, 4, 5, 6, 9, 19] {
        let mut d = zstd::bulk::Decompressor::new().expect("zstd");
        all.push(Codec {
            name: format!("zstd {level}"),
            pack: Box::new(move |b| zstd::bulk::compress(b, level).expect("zstd")),
            unpack: Box::new(move |c, out| {
                d.decompress_to_buffer(c, out).expect("zstd");
            }),
        });
    }
    all
}

fn main() {
    let dir = std::env::args().nth(1).expect("a table directory");
    let mut names = std::fs::read_dir(&dir)
        .expect("a readable directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ctb"))
        .collect::<Vec<_>>();
    names.sort();
    let mut sides: Vec<Vec<u8>> = Vec::new();
    for path in &names {
        let file = path.file_name().and_then(|s| s.to_str()).unwrap_or("");
        let material = file.split('.').next().unwrap_or("");
        let table = Table::open(path, material.parse().expect("a material")).expect("a table");
        for c in [Color::Red, Color::Black] {
            sides.push(table.checked_side(c).expect("a sound table").to_vec());
        }
    }
    let raw: usize = sides.iter().map(Vec::len).sum();
    println!("{} tables, {raw} bytes of entries", names.len());
    println!("| codec, block entries | stored | compress all (1 thread) | decompress one block |");
    println!("|---|---:|---:|---:|");
    for block in [65_536usize, 16_384, 4_096] {
        let blocks: Vec<&[u8]> = sides.iter().flat_map(|s| s.chunks(block)).collect();
        for mut codec in codecs() {
            let t = Instant::now();
            let stored: Vec<Vec<u8>> = blocks.iter().map(|b| (codec.pack)(b)).collect();
            let packing = t.elapsed().as_secs_f64();
            let mut out = vec![0u8; block];
            let t = Instant::now();
            for (c, b) in stored.iter().zip(&blocks) {
                (codec.unpack)(c, &mut out[..b.len()]);
            }
            let unpacking = t.elapsed().as_secs_f64() / stored.len() as f64;
            let size: usize = stored.iter().map(Vec::len).sum();
            println!(
                "| {}, {block} | {:.1}% | {packing:.1} s | {:.1} µs |",
                codec.name,
                100.0 * size as f64 / raw as f64,
                unpacking * 1e6
            );
        }
    }
}
