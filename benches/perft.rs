//! perft(5) from the start position: single-thread move generation speed.
//!
//! Run: `cargo bench --bench perft`

use canju::Position;
use canju::game::perft::perft;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(30));
    let mut pos = Position::start();
    group.throughput(Throughput::Elements(133_312_995));
    group.bench_function("start_depth5", |b| b.iter(|| perft(&mut pos, 5)));
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
