//! `mill puzzles`: generate the puzzle set (mill-engine's `puzzles`), list it, verify it.
//!
//! The set is data in the repository, one file per rule set, `static/puzzles/<rules>.json`,
//! which the server serves and the page reads: a JSON array with one puzzle an line, so
//! that a diff shows puzzles. `scripts/gen-puzzles` makes the shipped set.

use clap::{Args, Subcommand};
use mill_core::{Notation, Position, Rules, Turn};
use mill_engine::Engine;
use mill_engine::puzzles::{self, EngineCheck, Goal, Puzzle, Source, Theme};
use mill_engine::tb::Tablebase;
use serde_json::{Value as Json, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::RuleArgs;

/// Where the shipped set lives.
pub const DEFAULT_DIR: &str = "static/puzzles";

#[derive(Subcommand)]
pub enum PuzzlesCommand {
    /// Generate puzzles of one rule set into <dir>/<rules>.json (replacing it).
    ///
    /// Endings come from the endgame tables (--tables; positions where exactly one step
    /// keeps the win, or holds the draw), middle-game and placing puzzles from seeded
    /// engine self-play checked by a deep search (every other step at least --margin
    /// worse at --depth). The same flags and seed give the same file.
    Generate(GenerateArgs),
    /// Print the set: one line a puzzle (id, rating, theme, position, solution), or
    /// with --json one JSON object a line.
    List {
        /// The directory of the set.
        #[arg(long, default_value = DEFAULT_DIR)]
        dir: PathBuf,
        /// One JSON object a line (the stored form).
        #[arg(long)]
        json: bool,
    },
    /// Re-check every puzzle of the set: each table puzzle's uniqueness against the
    /// tables, each engine puzzle's margin by the deep search, each line played out under
    /// the rules' draw rules, a wrong turn to avoid, and the lines, themes and ratings.
    Verify {
        /// The directory of the set.
        #[arg(long, default_value = DEFAULT_DIR)]
        dir: PathBuf,
        /// The endgame tables' directory.
        #[arg(long, default_value = crate::tb::DEFAULT_DIR)]
        tables: PathBuf,
        /// Check only every Nth puzzle of each file (1: all).
        #[arg(long, default_value_t = 1)]
        every: usize,
        /// Check only table puzzles (engine puzzles take a deep search each).
        #[arg(long)]
        tables_only: bool,
    },
}

#[derive(Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Puzzles from the tables where the side to move wins.
    #[arg(long, default_value_t = 100)]
    wins: usize,
    /// Puzzles from the tables where the side to move holds the draw.
    #[arg(long, default_value_t = 20)]
    draws: usize,
    /// Puzzles from engine games (win material).
    #[arg(long, default_value_t = 20)]
    engine: usize,
    /// The seed of every choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The endgame tables' directory (`mill tb generate`); without tables of the rule
    /// set, only engine puzzles are made.
    #[arg(long, default_value = crate::tb::DEFAULT_DIR)]
    tables: PathBuf,
    /// Positions looked at per class of the tables, at most.
    #[arg(long, default_value_t = 400_000)]
    scan: usize,
    /// Self-play games for engine puzzles, at most.
    #[arg(long, default_value_t = 200)]
    games: usize,
    /// The deep search's depth in turns (engine puzzles).
    #[arg(long, default_value_t = puzzles::ENGINE_DEPTH)]
    depth: u32,
    /// How much worse (100 a piece) every other step must be (engine puzzles).
    #[arg(long, default_value_t = puzzles::ENGINE_MARGIN)]
    margin: i32,
    /// The directory to write to.
    #[arg(long, default_value = DEFAULT_DIR)]
    dir: PathBuf,
}

/// Runs one `mill puzzles` command.
pub fn run(command: PuzzlesCommand) -> Result<(), String> {
    match command {
        PuzzlesCommand::Generate(args) => generate(&args),
        PuzzlesCommand::List { dir, json } => list(&dir, json),
        PuzzlesCommand::Verify {
            dir,
            tables,
            every,
            tables_only,
        } => verify(&dir, &tables, every.max(1), tables_only),
    }
}

fn generate(args: &GenerateArgs) -> Result<(), String> {
    let rules = args.rules.rules()?.unwrap_or(mill_core::NINE);
    let start = Instant::now();
    let say = &mut |line: &str| eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64());
    let mut set = Vec::new();
    if args.wins + args.draws > 0 {
        match Tablebase::supports(rules).and_then(|()| crate::tb::load(&args.tables, rules)) {
            Ok(tb) => {
                set.extend(puzzles::tablebase_puzzles(
                    &tb,
                    Goal::Win,
                    args.wins,
                    args.seed,
                    args.scan,
                    say,
                ));
                set.extend(puzzles::tablebase_puzzles(
                    &tb,
                    Goal::Draw,
                    args.draws,
                    args.seed,
                    args.scan,
                    say,
                ));
            }
            Err(e) => eprintln!("no puzzles from the tables: {e}"),
        }
    }
    let check = EngineCheck {
        depth: args.depth,
        margin: args.margin,
    };
    set.extend(puzzles::engine_puzzles(
        rules,
        args.engine,
        args.seed,
        args.games,
        check,
        say,
    ));
    let mut seen = std::collections::HashSet::new();
    set.retain(|p| seen.insert(p.id.clone()));
    std::fs::create_dir_all(&args.dir).map_err(|e| format!("cannot create {}: {e}", args.dir.display()))?;
    let path = args.dir.join(format!("{rules}.json"));
    std::fs::write(&path, to_file(&set)).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "{}: {} puzzles, {:.1} s",
        path.display(),
        set.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The stored form of one puzzle.
pub fn to_json(p: &Puzzle) -> Json {
    let mut o = json!({
        "id": p.id,
        "rules": p.position.rules().to_string(),
        "position": p.position.to_string(),
        "goal": p.goal.name(),
        "solution": p.solution(),
        "also": p.also_notation(),
        "theme": p.themes[0].name(),
        "themes": p.themes.iter().map(|t| t.name()).collect::<Vec<_>>(),
        "rating": p.rating,
        "tempting": p.tempting,
    });
    match p.source {
        Source::Tablebase => o["source"] = json!("tablebase"),
        Source::Engine(check) => {
            o["source"] = json!("engine");
            o["depth"] = json!(check.depth);
            o["margin"] = json!(check.margin);
        }
    }
    o
}

/// A file of the set: a JSON array, one puzzle a line.
fn to_file(set: &[Puzzle]) -> String {
    let mut out = String::from("[\n");
    for (i, p) in set.iter().enumerate() {
        out.push_str(&to_json(p).to_string());
        out.push_str(if i + 1 < set.len() { ",\n" } else { "\n" });
    }
    out.push_str("]\n");
    out
}

fn turns(position: &Position, texts: &Json) -> Result<Vec<Turn>, String> {
    let list = texts.as_array().ok_or("not a list of turns")?;
    let mut p = *position;
    let mut out = Vec::new();
    for t in list {
        let text = t.as_str().ok_or("a turn that is not text")?;
        let n: Notation = text.parse().map_err(|e| format!("{text}: {e}"))?;
        let turn = n.to_turn(p.topology()).map_err(|e| format!("{text}: {e}"))?;
        out.push(turn);
        // Alternatives are read from the position before the last turn; play only the
        // legal ones forward (verification says what is not legal).
        if let Ok(next) = p.play(turn) {
            p = next;
        }
    }
    Ok(out)
}

/// Reads one stored puzzle back.
pub fn from_json(o: &Json) -> Result<Puzzle, String> {
    let text = |k: &str| o[k].as_str().ok_or_else(|| format!("no {k}"));
    let rules = Rules::parse(text("rules")?).map_err(|e| e.to_string())?;
    let position =
        Position::from_str_variant(text("position")?, rules).map_err(|e| format!("position: {e}"))?;
    let goal = Goal::from_name(text("goal")?).ok_or("an unknown goal")?;
    let source = match text("source")? {
        "tablebase" => Source::Tablebase,
        "engine" => Source::Engine(EngineCheck {
            depth: o["depth"].as_u64().ok_or("no depth")? as u32,
            margin: o["margin"].as_i64().ok_or("no margin")? as i32,
        }),
        other => return Err(format!("an unknown source {other:?}")),
    };
    let line = turns(&position, &o["solution"])?;
    let mut before_last = position;
    for t in line.iter().take(line.len().saturating_sub(1)) {
        before_last = before_last.play(*t).map_err(|e| e.to_string())?;
    }
    let also = turns(&before_last, &o["also"])?;
    let themes = o["themes"]
        .as_array()
        .ok_or("no themes")?
        .iter()
        .map(|t| t.as_str().and_then(Theme::from_name).ok_or("an unknown theme"))
        .collect::<Result<Vec<_>, _>>()?;
    if themes.first().map(|t| t.name()) != Some(text("theme")?) {
        return Err("theme is not the first of themes".into());
    }
    Ok(Puzzle {
        id: text("id")?.to_string(),
        position,
        goal,
        source,
        line,
        also,
        themes,
        tempting: o["tempting"].as_u64().ok_or("no tempting")? as u32,
        rating: o["rating"].as_u64().ok_or("no rating")? as u32,
    })
}

/// The set's files, in name order, with their puzzles as stored.
fn read_set(dir: &Path) -> Result<Vec<(String, Vec<Json>)>, String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let text =
            std::fs::read_to_string(dir.join(&name)).map_err(|e| format!("cannot read {name}: {e}"))?;
        let list: Vec<Json> = serde_json::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
        out.push((name, list));
    }
    if out.is_empty() {
        return Err(format!("no puzzles in {}", dir.display()));
    }
    Ok(out)
}

fn list(dir: &Path, json: bool) -> Result<(), String> {
    let set = read_set(dir)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match write_list(&mut out, &set, json).and_then(|()| out.flush()) {
        // The reader stopped early (`mill puzzles list | head`): nothing more to say.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write the list: {e}")),
        Ok(()) => Ok(()),
    }
}

fn write_list(out: &mut impl Write, set: &[(String, Vec<Json>)], json: bool) -> std::io::Result<()> {
    for (_, puzzles) in set {
        for o in puzzles {
            if json {
                writeln!(out, "{o}")?;
            } else {
                let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
                let solution: Vec<&str> = o["solution"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Json::as_str).collect())
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{} {} {} {} | {} | {}",
                    s("id"),
                    o["rating"],
                    s("goal"),
                    s("theme"),
                    s("position"),
                    solution.join(" ")
                )?;
            }
        }
    }
    Ok(())
}

fn verify(dir: &Path, tables: &Path, every: usize, tables_only: bool) -> Result<(), String> {
    let start = Instant::now();
    let mut engine = Engine::new(16);
    let mut loaded: Vec<(Rules, Option<std::sync::Arc<Tablebase>>)> = Vec::new();
    let (mut checked, mut skipped) = (0, 0);
    for (name, set) in read_set(dir)? {
        let mut ids = std::collections::HashSet::new();
        for (i, o) in set.iter().enumerate() {
            let p = from_json(o).map_err(|e| format!("{name}, puzzle {}: {e}", i + 1))?;
            if !ids.insert(p.id.clone()) {
                return Err(format!("{name}: {} twice", p.id));
            }
            if to_json(&p) != *o {
                return Err(format!("{name}: {} is not in its stored form", p.id));
            }
            if i % every != 0 || (tables_only && p.source != Source::Tablebase) {
                skipped += 1;
                continue;
            }
            let rules = p.position.rules();
            if !loaded.iter().any(|(r, _)| *r == rules) {
                loaded.push((rules, crate::tb::load(tables, rules).ok()));
            }
            let tb = loaded
                .iter()
                .find(|(r, _)| *r == rules)
                .and_then(|(_, t)| t.as_deref());
            puzzles::verify(&p, tb, &mut engine)?;
            checked += 1;
        }
        eprintln!("{name}: verified ({:.1} s)", start.elapsed().as_secs_f64());
    }
    println!(
        "{checked} puzzles verified, {skipped} skipped, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
