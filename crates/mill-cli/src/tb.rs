//! `mill tb`: generate, probe and verify the endgame tablebase (mill-engine's `tb`).
//! The tables are files in a directory, one per material: `<rules>-<m>v<o>.mtb`
//! (`nine-4v4.mtb`; build artefacts: `mill tb generate` makes them, `mill-server`
//! serves them to the page).

use mill_core::{Position, Rules};
use mill_engine::tb::files::{self, Access};
use mill_engine::tb::{Placing, Tablebase, Value, Whole};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// The directory used when none is given.
pub const DEFAULT_DIR: &str = "tb";

/// Solves every class of `rules` up to `max` pieces a side and writes them to `dir`.
pub fn generate(dir: &Path, max: u8, rules: impl Into<Rules>) -> Result<(), String> {
    write_tables(dir, max, rules.into()).map(|_| ())
}

/// [`generate`], the tables kept.
fn write_tables(dir: &Path, max: u8, rules: Rules) -> Result<Tablebase, String> {
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
    Ok(tb)
}

/// Solves the whole game of `rules` (Three Men's Morris) and writes its one file to
/// `dir`, written to a temporary name first and renamed.
pub fn generate_whole(dir: &Path, rules: impl Into<Rules>) -> Result<(), String> {
    let rules: Rules = rules.into();
    if Placing::supports(rules).is_ok() {
        return generate_placing(dir, rules);
    }
    Whole::supports(rules)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let start = Instant::now();
    let whole = Whole::generate(rules)?;
    let solved = start.elapsed().as_secs_f64();
    let bytes = whole.to_bytes();
    let path = dir.join(Whole::file_name(rules));
    let partial = path.with_extension("partial");
    std::fs::write(&partial, &bytes).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let (reached, longest) = whole.reachable();
    let start_value = whole
        .probe(&Position::start(rules))
        .ok_or("the empty board is not in its own table")?;
    println!(
        "{}: {} positions ({reached} reachable from the empty board), {} bytes, {solved:.3} s",
        Whole::file_name(rules),
        whole.positions(),
        bytes.len()
    );
    println!(
        "the empty board: {}; the longest forced win: {longest} turns",
        describe(start_value)
    );
    Ok(())
}

/// Solves Six whole: its endgame tables to six a side (the moving positions), written
/// as `mill tb generate --max 6` writes them, then its placing positions from the empty
/// board, one file written to a temporary name first and renamed.
fn generate_placing(dir: &Path, rules: Rules) -> Result<(), String> {
    let tb = Arc::new(write_tables(dir, rules.pieces, rules)?);
    let start = Instant::now();
    let placing = Placing::generate(tb, &Position::start(rules), &mut |line| {
        eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64());
    })?;
    let solved = start.elapsed().as_secs_f64();
    let bytes = placing.to_bytes();
    let path = dir.join(Placing::file_name(rules));
    let partial = path.with_extension("partial");
    std::fs::write(&partial, &bytes).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let start_value = placing
        .probe(&Position::start(rules))
        .ok_or("the empty board is not in its own table")?;
    println!(
        "{}: {} placing positions reachable from the empty board, {} bytes, {solved:.1} s",
        Placing::file_name(rules),
        placing.positions(),
        bytes.len()
    );
    println!(
        "the empty board: {}; the longest forced win: {} turns from a placing position, {} from a moving one",
        describe(start_value),
        placing.longest_win(),
        placing.longest_moving_win()
    );
    Ok(())
}

/// Reads the placing table of `rules` and its endgame tables from `dir`.
pub fn load_placing(dir: &Path, rules: impl Into<Rules>) -> Result<Placing, String> {
    let rules: Rules = rules.into();
    let path = dir.join(Placing::file_name(rules));
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read {}: {e} (run mill tb generate --all --variant {} --dir {})",
            path.display(),
            rules.variant,
            dir.display()
        )
    })?;
    let tb = load(dir, rules)?;
    Placing::from_bytes(&bytes, tb).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads the whole-game table of `rules` from `dir`.
pub fn load_whole(dir: &Path, rules: impl Into<Rules>) -> Result<Whole, String> {
    let rules: Rules = rules.into();
    let path = dir.join(Whole::file_name(rules));
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read {}: {e} (run mill tb generate --all --variant {} --dir {})",
            path.display(),
            rules.variant,
            dir.display()
        )
    })?;
    let whole = Whole::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(whole)
}

/// The class files of `rules` found in `dir` (none found: an error), opened once for the
/// process ([`files::shared`]): only each file's header is read here (and its length
/// checked); a class's values are read whole the first time a probe needs them and kept,
/// for a process that probes again and again (Hard's search in `uci`, `bestmove`, `arena`,
/// `puzzles`): it reads the classes its games reach, not all of them.
pub fn load(dir: &Path, rules: impl Into<Rules>) -> Result<Arc<Tablebase>, String> {
    files::shared(dir, rules, Access::Memory)
}

/// Prints a solved game's answer for `pos` (its value and best turn), headed by the
/// position when several are probed; `what` names the positions the table holds.
fn print_answer<T>(
    pos: &Position,
    many: bool,
    found: Option<(Value, (mill_core::Turn, T))>,
    what: &str,
) -> Result<(), String> {
    let Some((value, (turn, _))) = found else {
        return Err(format!("{pos}: not {what}, or over"));
    };
    if many {
        println!("position: {pos}");
    }
    println!("{}", describe(value));
    println!("best turn: {}", turn.to_notation(pos.topology()));
    Ok(())
}

fn describe(v: Value) -> String {
    match v {
        Value::Win(n) => format!("win in {n}"),
        Value::Loss(n) => format!("loss in {n}"),
        Value::Draw => "draw".to_string(),
    }
}

/// Prints the result of each position (`win in N` / `loss in N` / `draw`), the distance
/// to the next removal and the best turn; with several positions, each answer follows a
/// `position: …` line. The tables of a rule set are opened once and each class read once
/// for the whole run.
pub fn probe(dir: &Path, positions: &[String]) -> Result<(), String> {
    let mut opened: Vec<Arc<Tablebase>> = Vec::new();
    let mut placings: Vec<Placing> = Vec::new();
    for text in positions {
        let pos: Position = text.parse().map_err(|e| format!("bad position string: {e}"))?;
        if Whole::supports(pos.rules()).is_ok() {
            let whole = load_whole(dir, pos.rules())?;
            let found = whole.probe(&pos).zip(whole.best_turn(&pos, &[], 0));
            print_answer(
                &pos,
                positions.len() > 1,
                found,
                "a position of the game from its empty board",
            )?;
            continue;
        }
        if Placing::supports(pos.rules()).is_ok()
            && pos.in_hand(mill_core::Color::Light) + pos.in_hand(mill_core::Color::Dark) > 0
        {
            let k = match placings.iter().position(|p| p.rules() == pos.rules()) {
                Some(k) => k,
                None => {
                    placings.push(load_placing(dir, pos.rules())?);
                    placings.len() - 1
                }
            };
            let placing = &placings[k];
            let found = placing.probe(&pos).zip(placing.best_turn(&pos, &[], 0));
            print_answer(
                &pos,
                positions.len() > 1,
                found,
                "a placing position reached from the empty board",
            )?;
            continue;
        }
        let k = match opened.iter().position(|tb| tb.rules() == pos.rules()) {
            Some(k) => k,
            None => {
                opened.push(files::shared(dir, pos.rules(), Access::File)?);
                opened.len() - 1
            }
        };
        let tb = &opened[k];
        let (turn, probe) = tb.best_turn(&pos).ok_or_else(|| {
            format!(
                "{pos}: not in the tables (both sides out of hand, no removal pending, pieces within the tables)"
            )
        })?;
        if positions.len() > 1 {
            println!("position: {pos}");
        }
        println!("{}", describe(probe.result));
        println!(
            "next removal: {} (quiet turns played: {})",
            describe(probe.dtz),
            pos.quiet_turns()
        );
        println!("best turn: {}", turn.to_notation(pos.topology()));
    }
    Ok(())
}

/// Checks every stored value of `rules`' tables against its successors.
pub fn verify(dir: &Path, rules: impl Into<Rules>) -> Result<(), String> {
    let rules: Rules = rules.into();
    if Whole::supports(rules).is_ok() {
        let start = Instant::now();
        let n = load_whole(dir, rules)?.verify()?;
        println!("{n} positions verified in {:.3} s", start.elapsed().as_secs_f64());
        return Ok(());
    }
    if Placing::supports(rules).is_ok() && dir.join(Placing::file_name(rules)).exists() {
        let placing = load_placing(dir, rules)?;
        let start = Instant::now();
        let n = placing.verify(&mut |line| eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64()))?;
        println!(
            "{n} placing positions verified in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
    let tb = load(dir, rules)?;
    let start = Instant::now();
    let n = tb.verify(&mut |line| eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64()))?;
    println!("{n} positions verified in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
