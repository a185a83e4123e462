//! `mill uci`: the engine over standard input and output, in the UCI dialect that other
//! Mill engines and tools speak (see docs/UCI.md).
//!
//! Moves are action tokens, one per action: a placement `d6`, a move `a1-a4`, a removal
//! `xd2`. `bestmove` is one action token too: when the best turn closes a mill the step
//! is answered first, and once the step has been played (`position … moves … f4-g4`)
//! the next `go` answers its removal at once from the same search.
//!
//! The search runs on its own thread with a stop flag, so `stop`, `isready` and `quit`
//! are answered while it thinks. Malformed or illegal input gets `info string error …`
//! and changes nothing.

use mill_core::{Action, Game, Notation, Position, Rules, Turn, Variant};
use mill_engine::tb::{Placing, Tablebase};
use mill_engine::{Clock, Engine, Level, Limits, SearchResult, StdClock};
use std::io::BufRead;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

/// The variants `setoption name Variant` lists (it also takes their rule options, as
/// `six+per-mill`).
const VARIANTS: &[Variant] = &Variant::ALL;
const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: usize = 4096;
/// The bounds of `setoption name Contempt`, in hundredths of a piece.
const MAX_CONTEMPT: i32 = 500;
/// "No time limit" for the search, which still reads the clock to see a `stop`.
const FOREVER_MS: u64 = u64::MAX / 4;

/// The search's clock: milliseconds since `go`, or "time is up" once `stop` was sent.
struct StopClock {
    start: StdClock,
    stop: Arc<AtomicBool>,
}

impl Clock for StopClock {
    fn elapsed_ms(&mut self) -> u64 {
        if self.stop.load(Ordering::Relaxed) {
            u64::MAX
        } else {
            self.start.elapsed_ms()
        }
    }
}

/// A search under way on its own thread; the thread gives the engine back and the
/// turn it chose.
struct Running {
    handle: JoinHandle<(Engine, Option<Turn>)>,
    stop: Arc<AtomicBool>,
    infinite: bool,
    /// The position searched, for the plan of the turn that comes back.
    position: Position,
}

/// The session's state between commands.
struct Session {
    /// The variant and its rule options (`setoption name Variant`).
    rules: Rules,
    level: Level,
    hash_mb: usize,
    seed: u64,
    game: Game,
    engine: Option<Engine>,
    running: Option<Running>,
    /// The last turn answered and the position it was chosen in: its removals are the
    /// answers to the `go`s that follow its step.
    plan: Option<(Position, Turn)>,
    /// The tablebase loaded with `setoption name Tablebase`.
    tb: Option<Arc<Tablebase>>,
    /// Six solved whole, loaded with the tablebase when its directory has the placing
    /// table of the session's rules (Perfect plays from it).
    placing: Option<Arc<Placing>>,
    /// Hard's contempt for repetitions (`setoption name Contempt`).
    contempt: i32,
    /// `setoption name PlacingForesight` ([`Engine::set_placing_foresight`]).
    placing_foresight: bool,
}

/// Runs the session until `quit` (which stops a search) or the end of the input
/// (which lets a timed search finish).
pub fn run() -> Result<(), String> {
    let mut session = Session::new();
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        if !session.command(line.trim()) {
            session.finish_search(true);
            return Ok(());
        }
    }
    // The end of the input: a timed search still answers (`printf 'go\n' | mill uci`).
    if session.running.as_ref().is_some_and(|r| r.infinite) {
        session.finish_search(true);
    }
    session.finish_search(false);
    Ok(())
}

fn error(message: impl AsRef<str>) {
    println!("info string error {}", message.as_ref());
}

impl Session {
    fn new() -> Session {
        Session {
            rules: *Variant::Nine.rules(),
            level: Level::Hard,
            hash_mb: DEFAULT_HASH_MB,
            seed: 0,
            game: Game::new(Variant::Nine),
            engine: None,
            running: None,
            plan: None,
            tb: None,
            placing: None,
            contempt: Level::Hard.contempt(),
            placing_foresight: false,
        }
        .with_fresh_engine()
    }

    fn with_fresh_engine(mut self) -> Session {
        self.engine = Some(self.fresh_engine());
        self
    }

    /// A new engine with the session's table size, tablebase and contempt.
    fn fresh_engine(&self) -> Engine {
        let mut engine = Engine::new(self.hash_mb);
        engine.keep_table(true);
        engine.set_tablebase(self.usable_tb());
        engine.set_placing_table(self.usable_placing());
        engine.set_contempt(Some(self.contempt));
        engine.set_placing_foresight(self.placing_foresight);
        engine
    }

    /// The loaded tablebase if it was solved under the session's rules (each rule set
    /// has its own tables).
    fn usable_tb(&self) -> Option<Arc<Tablebase>> {
        self.tb.clone().filter(|tb| tb.rules() == self.rules)
    }

    /// The loaded placing table if it was solved under the session's rules.
    fn usable_placing(&self) -> Option<Arc<Placing>> {
        self.placing.clone().filter(|p| p.rules() == self.rules)
    }

    /// Handles one line; `false` on `quit`.
    fn command(&mut self, line: &str) -> bool {
        let mut words = line.split_whitespace();
        let Some(name) = words.next() else {
            return true;
        };
        let rest: Vec<&str> = words.collect();
        // A finished search gives its engine back before anything else is done.
        if self.running.as_ref().is_some_and(|r| r.handle.is_finished()) {
            self.finish_search(false);
        }
        match name {
            "quit" => return false,
            "isready" => println!("readyok"),
            "stop" => self.finish_search(true),
            "uci" => self.uci(),
            _ if self.running.as_ref().is_some_and(|r| r.infinite) => {
                error(format!("{name}: a search is running: send stop first"));
            }
            _ => {
                // A timed search ends by itself: wait for it, as a GUI waits for bestmove.
                self.finish_search(false);
                match name {
                    "ucinewgame" => self.new_game(),
                    "setoption" => self.setoption(&rest),
                    "position" => self.position(&rest),
                    "go" => self.go(&rest),
                    "d" => println!("info string position {}", self.game.position()),
                    other => error(format!("unknown command {other:?}")),
                }
            }
        }
        true
    }

    fn uci(&self) {
        println!("id name mill {}", env!("CARGO_PKG_VERSION"));
        println!("id author the Mill authors");
        let levels: Vec<String> = Level::ALL.iter().map(|l| format!("var {l}")).collect();
        println!(
            "option name Level type combo default {} {}",
            Level::Hard,
            levels.join(" ")
        );
        println!("option name Hash type spin default {DEFAULT_HASH_MB} min 0 max {MAX_HASH_MB}");
        let variants: Vec<String> = VARIANTS
            .iter()
            .map(|v| format!("var {}", v.rules().name))
            .collect();
        println!(
            "option name Variant type combo default {} {}",
            Variant::Nine.rules().name,
            variants.join(" ")
        );
        println!(
            "option name Contempt type spin default {} min -{MAX_CONTEMPT} max {MAX_CONTEMPT}",
            Level::Hard.contempt()
        );
        println!("option name PlacingForesight type check default false");
        println!("option name Seed type spin default 0 min 0 max 4294967295");
        println!("option name Tablebase type string default <empty>");
        println!("uciok");
    }

    fn new_game(&mut self) {
        if let Some(engine) = self.engine.as_mut() {
            engine.new_game();
        }
        self.game = Game::from_position(Position::start(self.rules));
        self.plan = None;
    }

    /// Waits for the running search (stopping it first if `stop`), prints its
    /// `bestmove` (the thread does) and takes the engine back.
    fn finish_search(&mut self, stop: bool) {
        let Some(running) = self.running.take() else {
            return;
        };
        if stop {
            running.stop.store(true, Ordering::Relaxed);
        }
        match running.handle.join() {
            Ok((engine, turn)) => {
                self.engine = Some(engine);
                self.plan = turn.map(|t| (running.position, t));
            }
            Err(_) => {
                error("the search failed; the engine starts afresh");
                self.engine = Some(self.fresh_engine());
                self.plan = None;
            }
        }
    }

    fn setoption(&mut self, words: &[&str]) {
        // setoption name <Name> [value <Value>]; names are case-insensitive.
        let Some(value_at) = words.iter().position(|w| w.eq_ignore_ascii_case("value")) else {
            return error("setoption: expected setoption name <name> value <value>");
        };
        if words.first().is_none_or(|w| !w.eq_ignore_ascii_case("name")) || value_at < 2 {
            return error("setoption: expected setoption name <name> value <value>");
        }
        let name = words[1..value_at].join(" ");
        let value = words[value_at + 1..].join(" ");
        match name.to_ascii_lowercase().as_str() {
            "level" => match value.parse::<Level>() {
                Ok(level) => self.level = level,
                Err(e) => error(format!("setoption Level: {e}")),
            },
            "hash" => match value.parse::<usize>() {
                Ok(mb) if mb <= MAX_HASH_MB => {
                    self.hash_mb = mb;
                    self.engine = Some(self.fresh_engine());
                }
                _ => error(format!(
                    "setoption Hash: expected megabytes from 0 to {MAX_HASH_MB}, not {value:?}"
                )),
            },
            "tablebase" => {
                let dir = std::path::Path::new(&value);
                let loaded = if value.is_empty() || value == "<empty>" {
                    Ok((None, None))
                } else if Placing::supports(self.rules).is_ok()
                    && dir.join(Placing::file_name(self.rules)).exists()
                {
                    crate::tb::load_placing(dir, self.rules)
                        .map(|p| (Some(p.tablebase().clone()), Some(Arc::new(p))))
                } else {
                    crate::tb::load(dir, self.rules).map(|tb| (Some(tb), None))
                };
                match loaded {
                    Ok((tb, placing)) => {
                        self.tb = tb;
                        self.placing = placing;
                        let (usable, placing) = (self.usable_tb(), self.usable_placing());
                        if let Some(engine) = self.engine.as_mut() {
                            engine.set_tablebase(usable);
                            engine.set_placing_table(placing);
                        }
                    }
                    Err(e) => error(format!("setoption Tablebase: {e}")),
                }
            }
            "seed" => match value.parse::<u64>() {
                Ok(seed) => self.seed = seed,
                Err(_) => error(format!("setoption Seed: expected a whole number, not {value:?}")),
            },
            "contempt" => match value.parse::<i32>() {
                Ok(c) if (-MAX_CONTEMPT..=MAX_CONTEMPT).contains(&c) => {
                    self.contempt = c;
                    if let Some(engine) = self.engine.as_mut() {
                        engine.set_contempt(Some(c));
                    }
                }
                _ => error(format!(
                    "setoption Contempt: expected a whole number from -{MAX_CONTEMPT} to {MAX_CONTEMPT}, not {value:?}"
                )),
            },
            "placingforesight" => match value.to_ascii_lowercase().as_str() {
                v @ ("true" | "false") => {
                    self.placing_foresight = v == "true";
                    if let Some(engine) = self.engine.as_mut() {
                        engine.set_placing_foresight(self.placing_foresight);
                    }
                }
                _ => error(format!(
                    "setoption PlacingForesight: expected true or false, not {value:?}"
                )),
            },
            "variant" => match Rules::parse(&value.to_ascii_lowercase()) {
                Ok(rules) => {
                    self.rules = rules;
                    let usable = self.usable_tb();
                    if let Some(engine) = self.engine.as_mut() {
                        engine.set_tablebase(usable);
                    }
                    self.new_game();
                }
                Err(e) => {
                    let names: Vec<&str> = VARIANTS.iter().map(|v| v.rules().name).collect();
                    error(format!(
                        "setoption Variant: {e}: expected {} with options like +per-mill, +protect-off, +fly-N",
                        names.join(", ")
                    ))
                }
            },
            other => error(format!("setoption: unknown option {other:?}")),
        }
    }

    /// `position startpos [moves …]` or `position [fen] <position string> [moves …]`.
    fn position(&mut self, words: &[&str]) {
        match parse_position(words, self.rules) {
            Ok(game) => self.game = game,
            Err(e) => error(format!("position: {e}")),
        }
    }

    fn go(&mut self, words: &[&str]) {
        let (limits, infinite) = match parse_go(words, self.level, self.seed, self.game.actions().len()) {
            Ok(x) => x,
            Err(e) => return error(format!("go: {e}")),
        };
        if self.game.is_over() {
            error("go: the game is over");
            println!("bestmove (none)");
            return;
        }
        let position = *self.game.position();
        let t = position.topology();
        if position.pending_removals() > 0 {
            let at = self
                .planned_removal(&position)
                .unwrap_or_else(|| self.choose_removal(&limits));
            println!("bestmove {}", Action::Remove { at }.to_text(t));
            return;
        }
        let Some(mut engine) = self.engine.take() else {
            return error("go: no engine");
        };
        let stop = Arc::new(AtomicBool::new(false));
        let game = self.game.clone();
        let thread_stop = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let start = StdClock::start();
            let mut clock = StopClock {
                start,
                stop: Arc::clone(&thread_stop),
            };
            // The time printed is the wall clock's: the search's clock reads "time is up"
            // (u64::MAX) once `stop` is sent, which is no time to print.
            let mut wall = start;
            let t = game.position().topology();
            let result =
                engine.search_reporting(game.position(), game.history(), &limits, &mut clock, &mut |r| {
                    println!("{}", info_line(r, t, wall.elapsed_ms()))
                });
            // An infinite search answers only when told to stop.
            while infinite && !thread_stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            match result {
                Ok(found) => {
                    // The whole search's count, the unfinished last iteration included
                    // (the lines above are the completed iterations').
                    println!(
                        "info nodes {} tbhits {} time {}",
                        found.nodes,
                        found.tb_hits,
                        wall.elapsed_ms()
                    );
                    println!("bestmove {}", found.turn.first_action().to_text(t));
                    (engine, Some(found.turn))
                }
                Err(e) => {
                    error(format!("go: {e}"));
                    println!("bestmove (none)");
                    (engine, None)
                }
            }
        });
        self.running = Some(Running {
            handle,
            stop,
            infinite,
            position,
        });
    }

    /// The next removal of the last turn answered, if `position` is that turn part-way.
    fn planned_removal(&self, position: &Position) -> Option<mill_core::Point> {
        let (from, turn) = self.plan.as_ref()?;
        let mut at = from.play_action(turn.first_action()).ok()?;
        for &r in turn.removals() {
            if at == *position {
                return Some(r);
            }
            at = at.play_action(Action::Remove { at: r }).ok()?;
        }
        None
    }

    /// A removal chosen without a plan (a position given mid-turn): each removal is
    /// tried and the opponent's best reply searched with a share of the limits.
    fn choose_removal(&mut self, limits: &Limits) -> mill_core::Point {
        let position = *self.game.position();
        let removable: Vec<mill_core::Point> = position.removable().iter().collect();
        if self.engine.is_none() {
            self.engine = Some(self.fresh_engine());
        }
        let Some(engine) = self.engine.as_mut() else {
            return removable[0];
        };
        let share = Limits {
            movetime_ms: limits
                .movetime_ms
                .map(|ms| (ms.min(2000) / removable.len().max(1) as u64).max(1)),
            depth: Some(limits.depth.unwrap_or(6).min(6)),
            ..*limits
        };
        let mut best = (i32::MIN, removable[0]);
        for &at in &removable {
            let Ok(child) = position.play_action(Action::Remove { at }) else {
                continue;
            };
            let score = if child.pending_removals() > 0 {
                0
            } else {
                match engine.search(&child, self.game.history(), &share, &mut StdClock::start()) {
                    Ok(r) => -r.score,
                    // The opponent has no turn: this removal ends the game.
                    Err(_) => i32::MAX,
                }
            };
            if score > best.0 {
                best = (score, at);
            }
        }
        best.1
    }
}

/// `info depth … score cp …|win N|loss N nodes … nps … time … pv …`, the line in action
/// tokens; `elapsed_ms` is the wall time since `go`.
fn info_line(r: &SearchResult, t: &mill_core::Topology, elapsed_ms: u64) -> String {
    let score = match r.win_in() {
        Some(n) if n > 0 => format!("win {n}"),
        Some(n) => format!("loss {}", -n),
        None => format!("cp {}", r.score),
    };
    let nps = r.nodes.saturating_mul(1000) / elapsed_ms.max(1);
    let pv: Vec<String> =
        r.pv.iter()
            .flat_map(|turn| turn.actions().map(|a| a.to_text(t)).collect::<Vec<_>>())
            .collect();
    format!(
        "info depth {} score {score} nodes {} nps {nps} tbhits {} time {} pv {}",
        r.depth,
        r.nodes,
        r.tb_hits,
        elapsed_ms,
        pv.join(" ")
    )
}

/// Reads `position …` into a new game; on error nothing is changed by the caller.
fn parse_position(words: &[&str], rules: Rules) -> Result<Game, String> {
    let moves_at = words.iter().position(|w| *w == "moves").unwrap_or(words.len());
    let (setup, moves) = (&words[..moves_at], words.get(moves_at + 1..).unwrap_or(&[]));
    let start = match setup {
        ["startpos"] => Position::start(rules),
        [] => return Err("expected startpos or a position string".into()),
        _ => {
            let text = match setup {
                ["fen", rest @ ..] => rest.join(" "),
                _ => setup.join(" "),
            };
            Position::from_str_variant(&text, rules)
                .map_err(|e| format!("bad position string {text:?}: {e}"))?
        }
    };
    let mut game = Game::from_position(start);
    for (i, token) in moves.iter().enumerate() {
        let t = game.position().topology();
        let action = Action::parse(token, t);
        let played = match action {
            Ok(action) => game.play_action(action).map_err(|e| format!("illegal: {e}")),
            // A whole turn in notation (`g1xd2`) is accepted too.
            Err(e) => match token.parse::<Notation>().and_then(|n| n.to_turn(t)) {
                Ok(turn) if !turn.removals().is_empty() => {
                    game.play(turn).map_err(|e| format!("illegal: {e}"))
                }
                _ => Err(e.to_string()),
            },
        };
        played.map_err(|e| format!("move {} ({token}): {e}", i + 1))?;
    }
    Ok(game)
}

/// Reads `go [movetime N] [depth N] [nodes N] [infinite]` into limits and whether the
/// search is infinite. Without any, the level's own time.
fn parse_go(words: &[&str], level: Level, seed: u64, actions: usize) -> Result<(Limits, bool), String> {
    let mut limits = Limits {
        level,
        movetime_ms: None,
        depth: None,
        nodes: None,
        seed: seed ^ (actions as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
    };
    let mut infinite = false;
    let mut i = 0;
    let number = |i: usize, what: &str| -> Result<u64, String> {
        words
            .get(i + 1)
            .and_then(|w| w.parse::<u64>().ok())
            .ok_or_else(|| format!("{what} needs a whole number"))
    };
    while i < words.len() {
        match words[i] {
            "movetime" => limits.movetime_ms = Some(number(i, "movetime")?.max(1)),
            "depth" => limits.depth = Some(number(i, "depth")?.clamp(1, 255) as u32),
            "nodes" => limits.nodes = Some(number(i, "nodes")?.max(1)),
            "infinite" => {
                infinite = true;
                i += 1;
                continue;
            }
            other => {
                return Err(format!(
                    "unknown limit {other:?}: expected movetime, depth, nodes or infinite"
                ));
            }
        }
        i += 2;
    }
    if !infinite && limits.movetime_ms.is_none() && limits.depth.is_none() && limits.nodes.is_none() {
        limits.movetime_ms = Some(level.default_movetime_ms());
    }
    // The clock is always read, so that `stop` ends any search.
    limits.movetime_ms = Some(limits.movetime_ms.unwrap_or(FOREVER_MS));
    Ok((limits, infinite))
}
