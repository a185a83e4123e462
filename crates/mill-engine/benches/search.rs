//! Search speed: nodes per second and the depth reached in a fixed time, in typical
//! placing, moving and flying positions, at the Hard level (noise included, as played),
//! and in the start and a moving position of Three, Six and Twelve Men's Morris.
//!
//! `cargo bench -p mill-engine --bench search [-- MOVETIME_MS [TT_MB [DEPTH]]]`
//! (defaults: 1000 ms, 16 MB, the size meant for the browser; with DEPTH, a fixed-depth search without time limit,
//! whose node counts are reproducible). Prints one line per position; the figures in
//! docs/PERFORMANCE.md come from here.
//!
//! The machine this project is built on is shared, so wall time overstates what a
//! search costs. On Linux the time limit and the rates are therefore measured in CPU
//! time of the searching thread (`/proc/thread-self/schedstat`); elsewhere, and when
//! that file is missing, in wall time. Both are printed.

use mill_core::Position;
use mill_engine::{Clock, Engine, Level, Limits};
use std::time::Instant;

const POSITIONS: [(&str, &str); 10] = [
    ("placing: start", ".../.../.../....../.../.../... l 9 9 0 0"),
    ("placing: 8 placed", "..D/.L./.D./.L.DL./.../.D./L.. l 5 5 0 0"),
    ("moving: 9 v 9", "L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 0"),
    ("flying: 3 v 5", "L../.D./.D./D....L/.../.D./L.D l 0 0 0 0"),
    // The other variants: their start, and a moving position from their perft files.
    ("three: start", ".../.../... l 3 3 0 0 three"),
    ("three: moving", ".../DLL/DLD l 0 0 0 0 three"),
    ("six: start", ".../.../..../.../... l 6 6 0 0 six"),
    ("six: moving", "DL./DLD/LL.L/D.D/DL. l 0 0 0 0 six"),
    (
        "twelve: start",
        ".../.../.../....../.../.../... l 12 12 0 0 twelve",
    ),
    (
        "twelve: moving",
        "LLD/.LL/LDD/LLDLDL/DLD/DDL/D.D l 0 0 0 6 twelve",
    ),
];

/// CPU time of this thread in nanoseconds, if the system says.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// A clock over the thread's CPU time, or wall time when that is not available.
struct BenchClock {
    cpu_start: Option<u64>,
    wall_start: Instant,
}

impl BenchClock {
    fn start() -> BenchClock {
        BenchClock {
            cpu_start: cpu_ns(),
            wall_start: Instant::now(),
        }
    }

    fn wall_ms(&self) -> u64 {
        self.wall_start.elapsed().as_millis() as u64
    }
}

impl Clock for BenchClock {
    fn elapsed_ms(&mut self) -> u64 {
        match (self.cpu_start, cpu_ns()) {
            (Some(start), Some(now)) => now.saturating_sub(start) / 1_000_000,
            _ => self.wall_ms(),
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; take the numbers that follow, if any.
    let numbers: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let movetime = numbers.first().copied().unwrap_or(1000);
    let tt_mb = numbers.get(1).copied().unwrap_or(16) as usize;
    let depth = numbers.get(2).map(|&d| d as u32);
    let mut engine = Engine::new(tt_mb);
    println!(
        "hard level, {movetime} ms per position ({} time), table {} MB",
        if cpu_ns().is_some() { "CPU" } else { "wall" },
        engine.tt_bytes() >> 20
    );
    println!(
        "{:<20} {:>6} {:>12} {:>8} {:>8} {:>12}  best",
        "position", "depth", "nodes", "ms", "wall ms", "nodes/s"
    );
    for (name, text) in POSITIONS {
        let position: Position = text.parse().expect("valid position");
        let limits = match depth {
            Some(d) => Limits::new(Level::Hard, 1).with_depth(d),
            None => Limits::new(Level::Hard, 1).with_movetime(Some(movetime)),
        };
        let mut clock = BenchClock::start();
        let r = engine
            .search(&position, &[], &limits, &mut clock)
            .expect("a turn");
        let ms = clock.elapsed_ms();
        let nps = r.nodes * 1000 / ms.max(1);
        println!(
            "{:<20} {:>6} {:>12} {:>8} {:>8} {:>12}  {} ({})",
            name,
            r.depth,
            r.nodes,
            ms,
            clock.wall_ms(),
            nps,
            r.turn.to_notation(position.topology()),
            r.score
        );
    }
}
