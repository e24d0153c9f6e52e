//! Probing compressed tables (KNPKAABB, 1,428 blocks, built first): one position again and again (its block cached), a
//! set of positions spread over 64 blocks (all cached: warm), positions spread over every
//! block of the table so that each probe decompresses its block (cold cache: the file's
//! pages are in memory, the decompressed blocks are not), and ranking all moves of a
//! position (every child probed).
//!
//! Run: `cargo bench --bench probe`

use canju::Position;
use canju::game::material::Material;
use canju::tablebase::Tablebase;
use canju::tablebase::build::build;
use canju::tablebase::generate::Silent;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// Legal positions of a table, the first found in each of `blocks` blocks spread evenly
/// over red-to-move's entries.
fn spread(tb: &Tablebase, m: Material, blocks: u64) -> Vec<Position> {
    let table = tb.table(m).unwrap();
    let layout = table.layout();
    let n = layout.pieces().len();
    let per = table.header().block_entries as u64;
    let count = table.header().blocks_per_side();
    let mut squares = [canju::Square::new(0).unwrap(); canju::tablebase::index::MAX_PIECES];
    let mut out = Vec::new();
    for k in 0..blocks.min(count) {
        let b = k * count / blocks.min(count);
        for i in b * per..((b + 1) * per).min(table.header().entries) {
            if layout.squares(i, &mut squares).is_none() {
                continue;
            }
            let mut pos = Position::scratch();
            pos.set_placement(layout.pieces(), &squares[..n], canju::Color::Red);
            if let Ok(pos) = pos.to_string().parse::<Position>() {
                out.push(pos);
                break;
            }
        }
    }
    out
}

fn bench_probe(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("canju-bench-probe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tb = Tablebase::new(&dir);
    let m: Material = "KNPKAABB".parse().unwrap();
    build(m, &tb, &|_| Box::new(Silent), &mut |_| {}).unwrap();
    let warm = spread(&tb, m, 64);
    let cold = spread(&tb, m, u64::MAX);
    let pos = warm[0].clone();
    for p in &warm {
        tb.probe(p).unwrap();
    }
    let mut group = c.benchmark_group("probe");
    group.bench_function("one position", |b| {
        b.iter(|| tb.probe(black_box(&pos)).unwrap())
    });
    let mut k = 0;
    group.bench_function("64 blocks, warm", |b| {
        b.iter(|| {
            k = (k + 1) % warm.len();
            tb.probe(black_box(&warm[k])).unwrap()
        })
    });
    let mut k = 0;
    group.bench_function(format!("{} blocks, cold", cold.len()), |b| {
        b.iter(|| {
            // consecutive positions lie in consecutive blocks: the cache's 128 slots
            // never hold the next one's
            k = (k + 1) % cold.len();
            tb.probe(black_box(&cold[k])).unwrap()
        })
    });
    group.bench_function("rank all moves", |b| {
        b.iter(|| tb.rank_moves(black_box(&pos)).unwrap().len())
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench_probe);
criterion_main!(benches);
