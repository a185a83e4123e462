//! `mill tb`: generate, probe and verify the endgame tablebase (mill-engine's `tb`).
//! The tables are files in a directory, one per material: `<rules>-<m>v<o>.mtb`
//! (`nine-4v4.mtb`; build artefacts: `mill tb generate` makes them, `mill-server`
//! serves them to the page).

use mill_core::{Position, Rules};
use mill_engine::tb::{Tablebase, Value};
use std::path::Path;
use std::time::Instant;

/// The directory used when none is given.
pub const DEFAULT_DIR: &str = "tb";

/// Solves every class of `rules` up to `max` pieces a side and writes them to `dir`.
pub fn generate(dir: &Path, max: u8, rules: impl Into<Rules>) -> Result<(), String> {
    let rules: Rules = rules.into();
    Tablebase::supports(rules)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let start = Instant::now();
    let tb = Tablebase::generate(rules, max, &mut |line| {
        eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64());
    })?;
    let mut total = 0;
    for (m, o, n) in tb.classes() {
        let bytes = tb.class_bytes(m, o).ok_or("a class vanished")?;
        let path = dir.join(mill_engine::tb::file_name(rules, m, o));
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

/// Loads every class file of `rules` found in `dir` (none found: an error).
pub fn load(dir: &Path, rules: impl Into<Rules>) -> Result<Tablebase, String> {
    let rules: Rules = rules.into();
    let mut tb = Tablebase::new(rules);
    let prefix = format!("{rules}-");
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut found = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        // `nine-` does not match `nine+per-mill-…`: each rule set has its own files.
        if name.starts_with(&prefix) && name.ends_with(".mtb") {
            let bytes = std::fs::read(entry.path()).map_err(|e| format!("cannot read {name}: {e}"))?;
            tb.load_class(&bytes).map_err(|e| format!("{name}: {e}"))?;
            found += 1;
        }
    }
    if found == 0 {
        return Err(format!(
            "no tablebase of {rules} in {}: run mill tb generate --dir {}{}",
            dir.display(),
            dir.display(),
            if rules.is_default() {
                String::new()
            } else {
                " with the rule flags".to_string()
            }
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
    let tb = load(dir, pos.rules())?;
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

/// Checks every stored value of `rules`' tables against its successors.
pub fn verify(dir: &Path, rules: impl Into<Rules>) -> Result<(), String> {
    let rules: Rules = rules.into();
    let tb = load(dir, rules)?;
    let start = Instant::now();
    let n = tb.verify(&mut |line| eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64()))?;
    println!("{n} positions verified in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
