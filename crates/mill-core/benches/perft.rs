//! Perft speed from the start and from a moving-phase position, and in the other
//! variants and a rule option. The node counts are
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
    // The other variants (counts from their perft data files).
    for (name, text, depth, count) in [
        ("three start depth 7", ".../.../... l 3 3 0 0 three", 7, 199_296),
        (
            "six start depth 5",
            ".../.../..../.../... l 6 6 0 0 six",
            5,
            531_648,
        ),
        (
            "twelve moving depth 5",
            "LLD/.LL/LDD/LLDLDL/DLD/DDL/D.D l 0 0 0 6 twelve",
            5,
            515_569,
        ),
        (
            "nine per-mill depth 5",
            "DDL/L.L/LD./....../LD./DLL/.DD l 2 2 0 0 nine+per-mill",
            5,
            892_061,
        ),
    ] {
        let p: Position = text.parse().expect("valid position");
        group.bench_function(name, |b| {
            b.iter(|| assert_eq!(perft(black_box(&p), depth), count))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
