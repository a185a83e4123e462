//! `mill tb`: generate, probe and verify the endgame tablebase (mill-engine's `tb`).
//! The tables are files in a directory, one per material: `<variant>-<m>v<o>.mtb`
//! (build artefacts: `mill tb generate` makes them).

use mill_core::{Position, Variant};
use mill_engine::tb::{Tablebase, Value};
use std::path::Path;
use std::time::Instant;

/// The directory used when none is given.
pub const DEFAULT_DIR: &str = "tb";

fn file_name(variant: Variant, m: u8, o: u8) -> String {
    format!("{}-{m}v{o}.mtb", variant.rules().name)
}

/// Solves every class up to `max` pieces a side and writes them to `dir`.
pub fn generate(dir: &Path, max: u8) -> Result<(), String> {
    let variant = Variant::Nine;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let start = Instant::now();
    let tb = Tablebase::generate(variant, max, &mut |line| {
        eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64());
    })?;
    let mut total = 0;
    for (m, o, n) in tb.classes() {
        let bytes = tb.class_bytes(m, o).ok_or("a class vanished")?;
        let path = dir.join(file_name(variant, m, o));
        std::fs::write(&path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        total += bytes.len();
        println!("{m}v{o}: {n} positions, {} bytes", bytes.len());
    }
    println!(
        "{} classes, {} symmetries, {total} bytes, {:.1} s",
        tb.classes().len(),
        tb.symmetries(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Loads every class file of the variant found in `dir` (none found: an error).
pub fn load(dir: &Path, variant: Variant) -> Result<Tablebase, String> {
    let mut tb = Tablebase::new(variant);
    let prefix = format!("{}-", variant.rules().name);
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut found = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with(&prefix) && name.ends_with(".mtb") {
            let bytes = std::fs::read(entry.path()).map_err(|e| format!("cannot read {name}: {e}"))?;
            tb.load_class(&bytes).map_err(|e| format!("{name}: {e}"))?;
            found += 1;
        }
    }
    if found == 0 {
        return Err(format!(
            "no tablebase in {}: run mill tb generate --dir {}",
            dir.display(),
            dir.display()
        ));
    }
    Ok(tb)
}

fn describe(v: Value) -> String {
    match v {
        Value::Win(n) => format!("win in {n}"),
        Value::Loss(n) => format!("loss in {n}"),
        Value::Draw => "draw".to_string(),
    }
}

/// Prints the result of `position` (`win in N` / `loss in N` / `draw`), the distance
/// to the next removal and the best turn.
pub fn probe(dir: &Path, position: &str) -> Result<(), String> {
    let pos: Position = position
        .parse()
        .map_err(|e| format!("bad position string: {e}"))?;
    let tb = load(dir, pos.variant())?;
    let (turn, probe) = tb.best_turn(&pos).ok_or_else(|| {
        format!(
            "{pos}: not in the tables (both sides out of hand, no removal pending, pieces within the tables)"
        )
    })?;
    println!("{}", describe(probe.result));
    println!(
        "next removal: {} (quiet turns played: {})",
        describe(probe.dtz),
        pos.quiet_turns()
    );
    println!("best turn: {}", turn.to_notation(pos.topology()));
    Ok(())
}

/// Checks every stored value against its successors.
pub fn verify(dir: &Path) -> Result<(), String> {
    let tb = load(dir, Variant::Nine)?;
    let start = Instant::now();
    let n = tb.verify(&mut |line| eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64()))?;
    println!("{n} positions verified in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
