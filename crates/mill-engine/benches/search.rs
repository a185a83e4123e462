//! Search speed: nodes per second and the depth reached in a fixed time, in typical
//! placing and moving positions, at the Hard level (noise included, as played).
//!
//! `cargo bench -p mill-engine --bench search [-- MOVETIME_MS [TT_MB]]`
//! (defaults: 1000 ms, 32 MB). Prints one line per position; the figures in
//! docs/PERFORMANCE.md come from here.

use mill_core::Position;
use mill_engine::{Engine, Level, Limits, StdClock};

const POSITIONS: [(&str, &str); 4] = [
    ("placing: start", ".../.../.../....../.../.../... l 9 9 0 0"),
    ("placing: 8 placed", "..D/.L./.D./.L.DL./.../.D./L.. l 5 5 0 0"),
    ("moving: 9 v 9", "L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 0"),
    ("flying: 3 v 5", "L../.D./.D./D....L/.../.D./L.D l 0 0 0 0"),
];

fn main() {
    // `cargo bench` passes `--bench`; take the numbers that follow, if any.
    let numbers: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let movetime = numbers.first().copied().unwrap_or(1000);
    let tt_mb = numbers.get(1).copied().unwrap_or(32) as usize;
    let mut engine = Engine::new(tt_mb);
    println!(
        "hard level, movetime {movetime} ms, table {} MB",
        engine.tt_bytes() >> 20
    );
    println!(
        "{:<20} {:>6} {:>12} {:>8} {:>12}  best",
        "position", "depth", "nodes", "ms", "nodes/s"
    );
    for (name, text) in POSITIONS {
        let position: Position = text.parse().expect("valid position");
        let limits = Limits::new(Level::Hard, 1).with_movetime(Some(movetime));
        let mut clock = StdClock::start();
        let r = engine
            .search(&position, &[], &limits, &mut clock)
            .expect("a turn");
        let nps = r.nodes * 1000 / r.elapsed_ms.max(1);
        println!(
            "{:<20} {:>6} {:>12} {:>8} {:>12}  {} ({})",
            name,
            r.depth,
            r.nodes,
            r.elapsed_ms,
            nps,
            r.turn.to_notation(position.topology()),
            r.score
        );
    }
}
