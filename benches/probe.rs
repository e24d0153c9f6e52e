//! Probing one position from a warm, memory-mapped table (KNPKAB), and ranking all moves
//! of a position (every child probed).
//!
//! Run: `cargo bench --bench probe`

use canju::Position;
use canju::material::Material;
use canju::tablebase::Tablebase;
use canju::tablebase::build::build;
use canju::tablebase::generate::Silent;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bench_probe(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("canju-bench-probe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tb = Tablebase::new(&dir);
    let m: Material = "KNPKAB".parse().unwrap();
    build(m, &tb, &|_| Box::new(Silent), &mut |_| {}).unwrap();
    let pos: Position = "3k5/4a4/4b4/9/9/9/4P4/9/4N4/4K4 w".parse().unwrap();
    tb.probe(&pos).unwrap(); // map the table
    let mut group = c.benchmark_group("probe");
    group.bench_function("one position", |b| {
        b.iter(|| tb.probe(black_box(&pos)).unwrap())
    });
    group.bench_function("rank all moves", |b| {
        b.iter(|| tb.rank_moves(black_box(&pos)).unwrap().len())
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench_probe);
criterion_main!(benches);
