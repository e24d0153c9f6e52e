//! Building a mid-size table: KNPKAB (马兵对单士单象, 31 M entries) from its sub-tables,
//! on all cores. The sub-tables are built once before timing.
//!
//! Run: `cargo bench --bench generate`

use canju::game::material::Material;
use canju::tablebase::Tablebase;
use canju::tablebase::build::build;
use canju::tablebase::generate::{Silent, solve};
use criterion::{Criterion, criterion_group, criterion_main};

fn bench_generate(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("canju-bench-gen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tb = Tablebase::new(&dir);
    let target: Material = "KNPKAB".parse().unwrap();
    for m in target.captures() {
        build(m, &tb, &|_| Box::new(Silent), &mut |_| {}).unwrap();
    }
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(40));
    group.bench_function("KNPKAB", |b| {
        b.iter(|| solve(target, &tb, &Silent).unwrap().header.sides[0].win)
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench_generate);
criterion_main!(benches);
