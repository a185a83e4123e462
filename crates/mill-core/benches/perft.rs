//! Perft speed from the start and from a moving-phase position. The node counts are
//! asserted, so a change that is fast but wrong cannot pass as an improvement.

use criterion::{Criterion, criterion_group, criterion_main};
use mill_core::Position;
use mill_core::perft::{perft, perft_actions};
use std::hint::black_box;

const MOVING: &str = "L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 0";

fn bench(c: &mut Criterion) {
    let start = Position::default();
    let moving: Position = MOVING.parse().expect("valid position");
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("start depth 5", |b| {
        b.iter(|| assert_eq!(perft(black_box(&start), 5), 5_140_800))
    });
    group.bench_function("start actions depth 6", |b| {
        b.iter(|| assert_eq!(perft_actions(black_box(&start), 6), 96_223_680))
    });
    group.bench_function("moving depth 6", |b| {
        b.iter(|| assert_eq!(perft(black_box(&moving), 6), 2_522_804))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
