//! `mill arena`: matches between two players, each a level of this engine or an
//! external engine spoken to over UCI (`uci:<command line>`), from random openings
//! played once with each colour; the score with an Elo estimate and its 95 % interval.
//!
//! With `--jobs N` the games are shared among N workers, each with its own pair of
//! players (engines of this process on their own thread, or their own external
//! processes); results are gathered and printed in game order, so the output does not
//! depend on N (exactly so under node or depth limits).

use mill_core::{Action, Color, Game, Outcome, Position, Turn};
use mill_engine::tb::{Placing, Tablebase};
use mill_engine::{Clock, Engine, Level, Limits, StdClock};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// The tables an arena's engines are given: the endgame tables, and Six's placing
/// table when there is one.
type Tables = (Arc<Tablebase>, Option<Arc<Placing>>);

/// Who plays: a level of this engine or an external UCI engine.
#[derive(Clone, Debug)]
pub enum Spec {
    /// A level of this engine, in this process.
    Level(Level),
    /// An external engine: the command line that starts it, split at spaces.
    Uci(String),
}

impl std::str::FromStr for Spec {
    type Err = String;

    fn from_str(s: &str) -> Result<Spec, String> {
        match s.strip_prefix("uci:") {
            Some(command) if command.trim().is_empty() => Err("uci: needs a command line".into()),
            Some(command) => Ok(Spec::Uci(command.trim().to_string())),
            None => s
                .parse::<Level>()
                .map(Spec::Level)
                .map_err(|e| format!("{e}, or uci:<command line>")),
        }
    }
}

impl Spec {
    fn name(&self) -> String {
        match self {
            Spec::Level(level) => level.to_string(),
            Spec::Uci(command) => format!("uci:{command}"),
        }
    }
}

/// The match's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The players.
    pub a: Spec,
    /// The second player.
    pub b: Spec,
    /// UCI options (name, value) for each player, sent after the handshake; external
    /// engines only.
    pub options: [Vec<(String, String)>; 2],
    /// The position the openings start from (the start of the chosen variant).
    pub start: Position,
    /// Games to play.
    pub games: u32,
    /// Time per turn in milliseconds.
    pub movetime: Option<u64>,
    /// Time per turn of each player, where it differs from [`Settings::movetime`]: so
    /// that an engine that overruns its time can be matched at equal wall time.
    pub side_movetime: [Option<u64>; 2],
    /// Depth limit per turn.
    pub depth: Option<u32>,
    /// Node limit per turn.
    pub nodes: Option<u64>,
    /// Random placements opening each pair of games.
    pub opening: u32,
    /// The seed of the openings and of the levels' choices.
    pub seed: u64,
    /// Transposition table size per engine of this process, in megabytes.
    pub tt: usize,
    /// A tablebase directory for the Hard players of this process.
    pub tb: Option<std::path::PathBuf>,
    /// Print every game.
    pub verbose: bool,
    /// Print the running score to standard error after every game.
    pub progress: bool,
    /// Games played at once.
    pub jobs: u32,
    /// End games early when both players agree (see [`Adjudicator`]).
    pub adjudicate: bool,
}

impl Settings {
    /// The time per turn of player `side` (0: the first).
    fn movetime(&self, side: usize) -> Option<u64> {
        self.side_movetime[side].or(self.movetime)
    }
}

/// Reads `NAME=VALUE` options.
pub fn parse_options(words: &[String]) -> Result<Vec<(String, String)>, String> {
    words
        .iter()
        .map(|w| match w.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(format!("option {w:?}: expected NAME=VALUE")),
        })
        .collect()
}

/// One turn as a player chose it.
struct Played {
    turn: Turn,
    nodes: u64,
    tb_hits: u64,
    ms: u64,
    /// The player's last score for the turn, if it gave one.
    eval: Option<Eval>,
}

/// A player's judgement of the position it played from, for the side to move there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Eval {
    /// An ordinary score in hundredths of a piece (`score cp N`).
    Cp(i32),
    /// A forced win found (`score win N`).
    Win,
    /// A forced loss found (`score loss N`).
    Loss,
}

/// A draw is adjudicated after this many turns in a row with no removal, both sides out
/// of hand, in which both players scored the position within ±[`DRAW_SCORE`].
const DRAW_TURNS: u32 = 30;
/// Less than half a piece (Hard's contempt, 120, scores a repetition outside it).
const DRAW_SCORE: i32 = 40;
/// A win is adjudicated after this many turns in a row in which one player scored
/// itself [`WIN_SCORE`] or more ahead and the other itself as far behind.
const WIN_TURNS: u32 = 8;
/// Six pieces.
const WIN_SCORE: i32 = 600;

/// `--adjudicate`: ends a game whose result both players already agree on, as engine
/// testers do to save time. A win when the player who just moved announced a forced
/// win and its opponent's last search announced the forced loss (or the other way
/// round), or after [`WIN_TURNS`] turns in which both scored the same side far ahead;
/// a draw after [`DRAW_TURNS`] quiet turns of moving with both players' scores near
/// even. The verbose line says which.
#[derive(Default)]
struct Adjudicator {
    last: [Option<Eval>; 2],
    flat: u32,
    /// Turns in a row in which both scores put one side far ahead, and which side
    /// (0: the first player).
    lopsided: (u32, usize),
}

impl Adjudicator {
    /// After `side` (0: the first player, playing `colour`) played a turn it judged
    /// `eval`, the adjudicated result of `game`, if any: the winner (`None`: a draw).
    fn after(
        &mut self,
        game: &Game,
        side: usize,
        colour: Color,
        eval: Option<Eval>,
    ) -> Option<Option<Color>> {
        self.last[side] = eval;
        let (mine, theirs) = (self.last[side], self.last[1 - side]);
        match (mine, theirs) {
            (Some(Eval::Win), Some(Eval::Loss)) => return Some(Some(colour)),
            (Some(Eval::Loss), Some(Eval::Win)) => return Some(Some(!colour)),
            _ => {}
        }
        // Whether both players' scores put one side far ahead, and which (0: the first
        // player).
        let far = |e: Option<Eval>, sign: i32| matches!(e, Some(Eval::Cp(cp)) if cp * sign >= WIN_SCORE);
        let ahead = if far(mine, 1) && far(theirs, -1) {
            Some(side)
        } else if far(mine, -1) && far(theirs, 1) {
            Some(1 - side)
        } else {
            None
        };
        self.lopsided = match ahead {
            Some(a) if self.lopsided.1 == a => (self.lopsided.0 + 1, a),
            Some(a) => (1, a),
            None => (0, 0),
        };
        if self.lopsided.0 >= WIN_TURNS {
            return Some(Some(if self.lopsided.1 == side { colour } else { !colour }));
        }
        let p = game.position();
        let moving = p.in_hand(Color::Light) == 0 && p.in_hand(Color::Dark) == 0;
        let near_even = |e: Option<Eval>| matches!(e, Some(Eval::Cp(cp)) if cp.abs() <= DRAW_SCORE);
        if moving && near_even(mine) && near_even(theirs) {
            self.flat += 1;
        } else {
            self.flat = 0;
        }
        (self.flat >= DRAW_TURNS && u32::from(p.quiet_turns()) >= DRAW_TURNS).then_some(None)
    }
}

/// A player of the match.
enum Player {
    Local {
        engine: Engine,
        limits: Limits,
        wall: bool,
    },
    Uci(UciEngine),
}

impl Player {
    fn start(
        side: usize,
        spec: &Spec,
        options: &[(String, String)],
        settings: &Settings,
        wall: bool,
        tb: Option<&Tables>,
    ) -> Result<Player, String> {
        if matches!(spec, Spec::Level(_)) && !options.is_empty() {
            return Err(format!("{}: options are for uci: players only", spec.name()));
        }
        Ok(match spec {
            Spec::Level(level) => Player::Local {
                engine: {
                    let mut engine = Engine::new(settings.tt);
                    engine.set_tablebase(tb.map(|t| t.0.clone()));
                    engine.set_placing_table(tb.and_then(|t| t.1.clone()));
                    engine
                },
                limits: Limits {
                    level: *level,
                    movetime_ms: settings.movetime(side),
                    depth: settings.depth,
                    nodes: settings.nodes,
                    seed: 0,
                },
                wall,
            },
            Spec::Uci(command) => {
                let mut engine = UciEngine::start(command, settings.movetime(side))?;
                let rules = settings.start.rules();
                // Nine Men's Morris under its usual rules is every engine's default: an
                // engine that knows no other still plays it.
                if rules != *mill_core::Variant::Nine.rules() {
                    engine.send(&format!("setoption name Variant value {rules}"))?;
                }
                for (name, value) in options {
                    engine.send(&format!("setoption name {name} value {value}"))?;
                }
                // An engine that refuses an option says so before readyok.
                engine.send("isready")?;
                let lines = engine.wait_for("readyok", HANDSHAKE)?;
                if let Some(e) = lines.iter().find(|l| l.starts_with("info string error")) {
                    return Err(format!("{command}: {e}"));
                }
                Player::Uci(engine)
            }
        })
    }

    fn new_game(&mut self) -> Result<(), String> {
        match self {
            Player::Local { .. } => Ok(()),
            Player::Uci(uci) => uci.new_game(),
        }
    }

    fn play(&mut self, game: &Game, seed: u64, settings: &Settings) -> Result<Played, String> {
        match self {
            Player::Local { engine, limits, wall } => {
                let limits = Limits { seed, ..*limits };
                let mut clock = if *wall {
                    ArenaClock::Wall(StdClock::start())
                } else {
                    ArenaClock::cpu()
                };
                let r = engine
                    .best_turn(game, &limits, &mut clock)
                    .map_err(|e| format!("no turn to play: {e}"))?;
                Ok(Played {
                    eval: Some(match r.win_in() {
                        Some(n) if n > 0 => Eval::Win,
                        Some(_) => Eval::Loss,
                        None => Eval::Cp(r.score),
                    }),
                    turn: r.turn,
                    nodes: r.nodes,
                    tb_hits: r.tb_hits,
                    ms: r.elapsed_ms,
                })
            }
            Player::Uci(uci) => uci.play(game, settings),
        }
    }
}

/// An external engine over UCI: one process for the whole match.
struct UciEngine {
    command: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Its time per turn (`go movetime`).
    movetime: Option<u64>,
}

/// How long an engine may take to answer `uci` or `isready`.
const HANDSHAKE: Duration = Duration::from_secs(30);

impl UciEngine {
    fn start(command: &str, movetime: Option<u64>) -> Result<UciEngine, String> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or("uci: needs a command line")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no standard input")?;
        let stdout = child.stdout.take().ok_or("no standard output")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = UciEngine {
            command: command.to_string(),
            child,
            stdin,
            lines,
            movetime,
        };
        engine.send("uci")?;
        engine.wait_for("uciok", HANDSHAKE)?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("{}: cannot write: {e}", self.command))
    }

    /// Lines until one that is `word` or starts with `word `; returns them all.
    fn wait_for(&mut self, word: &str, patience: Duration) -> Result<Vec<String>, String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(patience) {
                Ok(line) => {
                    let done = if word == "bestmove" {
                        bestmove_in(&line).is_some()
                    } else {
                        line == word || line.starts_with(&format!("{word} "))
                    };
                    seen.push(line);
                    if done {
                        return Ok(seen);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("{}: no {word} within {patience:?}", self.command));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("{}: the engine exited before {word}", self.command));
                }
            }
        }
    }

    fn new_game(&mut self) -> Result<(), String> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.wait_for("readyok", HANDSHAKE).map(drop)
    }

    /// One turn: `go` for its step, and again for each removal the step earns.
    fn play(&mut self, game: &Game, settings: &Settings) -> Result<Played, String> {
        let t = game.position().topology();
        // `startpos` when the game began at its variant's start: every engine reads that
        // (another engine's position strings need not be ours).
        let start = if *game.start() == Position::new(game.start().variant()) {
            "startpos".to_string()
        } else {
            game.start().to_string()
        };
        let mut tokens: Vec<String> = game.actions().iter().map(|a| a.to_text(t)).collect();
        let mut after = game.clone();
        let mut actions = Vec::new();
        let mut clock = StdClock::start();
        let mut info = Info::default();
        let mut go = String::from("go");
        if let Some(ms) = self.movetime {
            go += &format!(" movetime {ms}");
        }
        if let Some(d) = settings.depth {
            go += &format!(" depth {d}");
        }
        if let Some(n) = settings.nodes {
            go += &format!(" nodes {n}");
        }
        // Generous: a slow engine loses on time only when clearly stuck.
        let patience = Duration::from_millis(self.movetime.unwrap_or(10_000).saturating_mul(10) + 10_000);
        loop {
            self.send(&format!("position {start} moves {}", tokens.join(" ")))?;
            self.send(&go)?;
            let lines = self.wait_for("bestmove", patience)?;
            for line in &lines {
                info.read(line);
            }
            let best = lines.last().map(String::as_str).unwrap_or_default();
            let token = bestmove_in(best).unwrap_or_default().to_string();
            let action =
                Action::parse(&token, t).map_err(|e| format!("{}: bestmove {token:?}: {e}", self.command))?;
            after
                .play_action(action)
                .map_err(|e| format!("{}: bestmove {token:?} is illegal: {e}", self.command))?;
            actions.push(action);
            tokens.push(token);
            if after.position().pending_removals() == 0 {
                break;
            }
        }
        let turn = after
            .turns()
            .last()
            .copied()
            .ok_or_else(|| format!("{}: no complete turn", self.command))?;
        debug_assert_eq!(turn.actions().collect::<Vec<_>>(), actions);
        Ok(Played {
            turn,
            nodes: info.nodes,
            tb_hits: info.tb_hits,
            ms: clock.elapsed_ms(),
            eval: info.eval,
        })
    }
}

/// The turn a `bestmove` line names: the word after `bestmove`, which starts the line
/// under UCI; Sanmill's engine ends its last `info` line with it instead
/// (`info depth 7 score cp 4 nodes 98020 bestmove f4`).
fn bestmove_in(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace();
    words.by_ref().find(|&w| w == "bestmove")?;
    Some(words.next().unwrap_or_default())
}

/// What an engine's `info` lines said last about its search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Info {
    nodes: u64,
    tb_hits: u64,
    eval: Option<Eval>,
}

impl Info {
    /// Takes in one line of the engine's; lines other than `info …` change nothing.
    fn read(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"info") {
            return;
        }
        for pair in words.windows(2) {
            match pair {
                ["nodes", n] => self.nodes = n.parse().unwrap_or(self.nodes),
                ["tbhits", n] => self.tb_hits = n.parse().unwrap_or(self.tb_hits),
                ["win", n] if words.contains(&"score") => {
                    self.eval = n
                        .parse::<i64>()
                        .ok()
                        .map(|n| if n > 0 { Eval::Win } else { Eval::Loss });
                }
                ["loss", n] if words.contains(&"score") => {
                    self.eval = n.parse::<i64>().ok().map(|_| Eval::Loss);
                }
                ["cp", n] => self.eval = n.parse().ok().map(Eval::Cp),
                _ => {}
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        for _ in 0..100 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How one game ended, from the first player's side.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Score {
    Win,
    Draw,
    Loss,
}

/// One finished game, as a worker reports it.
struct GameResult {
    score: Score,
    turns: usize,
    /// Turns each side chose (the opening's are nobody's).
    played: [u64; 2],
    nodes: [u64; 2],
    ms: [u64; 2],
    tb_hits: [u64; 2],
    announced_win: [bool; 2],
    /// Whether `--adjudicate` ended the game.
    adjudicated: bool,
    /// How it ended, for the list of losses.
    ending: Ending,
    /// The `--verbose` line.
    line: Option<String>,
}

/// How a game ended: why, and when, counted from the end of the placing phase.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ending {
    /// The outcome's reason (`blocked`, `pieces`, `threefold`, …), `adjudicated` or
    /// `unfinished`.
    reason: String,
    /// Turns played after both hands were empty (`None`: the game ended while placing).
    after_placing: Option<usize>,
}

impl Ending {
    /// `game`'s ending; `adjudicated` says whether the arena ended it.
    fn of(game: &Game, adjudicated: bool) -> Ending {
        let reason = if adjudicated {
            "adjudicated".to_string()
        } else {
            match game.outcome() {
                Some(Outcome::Win { reason, .. }) => reason.name().to_string(),
                Some(Outcome::Draw { reason }) => reason.name().to_string(),
                // Only an online clock aborts a game; an arena game never is.
                Some(Outcome::Aborted) => "aborted".to_string(),
                None => "unfinished".to_string(),
            }
        };
        // The first position (the start counts as 0) with both hands empty.
        let placed = |p: &Position| p.in_hand(Color::Light) == 0 && p.in_hand(Color::Dark) == 0;
        let mut replay = Game::from_position(*game.start());
        let mut placing_end = placed(replay.position()).then_some(0);
        for (i, turn) in game.turns().iter().enumerate() {
            if placing_end.is_some() || replay.play(*turn).is_err() {
                break;
            }
            if placed(replay.position()) {
                placing_end = Some(i + 1);
            }
        }
        Ending {
            reason,
            after_placing: placing_end.map(|end| game.turns().len() - end),
        }
    }
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.after_placing {
            None => write!(f, "{} while placing", self.reason),
            Some(n) => write!(f, "{} {n} turns after placing", self.reason),
        }
    }
}

/// Plays game `g` from `start`: the first player has Light in even games.
fn play_game(
    players: &mut [Player; 2],
    g: u32,
    start: &Game,
    settings: &Settings,
    names: &[String; 2],
) -> Result<GameResult, String> {
    let a_colour = if g % 2 == 0 { Color::Light } else { Color::Dark };
    for p in players.iter_mut() {
        p.new_game()?;
    }
    let mut game = start.clone();
    let mut turn_number = 0u64;
    let (mut nodes, mut ms, mut tb_hits, mut played_turns) = ([0u64; 2], [0u64; 2], [0u64; 2], [0u64; 2]);
    let mut announced_win = [false; 2];
    let mut adjudicator = Adjudicator::default();
    let mut adjudicated = None;
    while !game.is_over() && game.turns().len() < 2000 {
        let side = usize::from(game.position().turn() != a_colour);
        let seed = settings.seed ^ (u64::from(g) << 32) ^ (turn_number << 1) ^ side as u64;
        let played = players[side].play(&game, seed, settings)?;
        played_turns[side] += 1;
        nodes[side] += played.nodes;
        tb_hits[side] += played.tb_hits;
        ms[side] += played.ms;
        announced_win[side] |= played.eval == Some(Eval::Win);
        game.play(played.turn)
            .map_err(|e| format!("{} played an illegal turn: {e}", names[side]))?;
        turn_number += 1;
        let colour = if side == 0 { a_colour } else { !a_colour };
        if settings.adjudicate
            && !game.is_over()
            && let Some(result) = adjudicator.after(&game, side, colour, played.eval)
        {
            adjudicated = Some(result);
            break;
        }
    }
    let winner = match adjudicated {
        Some(result) => result,
        None => match game.outcome() {
            Some(Outcome::Win { winner, .. }) => Some(winner),
            _ => None,
        },
    };
    let score = match winner {
        Some(w) if w == a_colour => Score::Win,
        Some(_) => Score::Loss,
        None => Score::Draw,
    };
    let line = settings.verbose.then(|| {
        let result = match adjudicated {
            Some(Some(winner)) => format!("{} wins (adjudicated: both engines agree)", winner.name()),
            Some(None) => {
                format!("draw (adjudicated: both engines within ±{DRAW_SCORE} for {DRAW_TURNS} quiet turns)")
            }
            None => game
                .outcome()
                .map_or("unfinished (2000 turns)".to_string(), |o| o.to_string()),
        };
        format!(
            "game {} ({} light): {}; {}",
            g + 1,
            names[usize::from(a_colour != Color::Light)],
            result,
            game.record().join(" ")
        )
    });
    Ok(GameResult {
        score,
        turns: game.turns().len(),
        played: played_turns,
        nodes,
        ms,
        tb_hits,
        announced_win,
        adjudicated: adjudicated.is_some(),
        ending: Ending::of(&game, adjudicated.is_some()),
        line,
    })
}

/// Plays the match and prints its result.
pub fn run(settings: &Settings) -> Result<(), String> {
    if settings.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let any_uci = matches!(settings.a, Spec::Uci(_)) || matches!(settings.b, Spec::Uci(_));
    if settings.depth.is_none() && settings.nodes.is_none() {
        let needs = |side: usize, s: &Spec| {
            settings.movetime(side).is_none() && matches!(s, Spec::Level(Level::Hard) | Spec::Uci(_))
        };
        if needs(0, &settings.a) || needs(1, &settings.b) {
            return Err("hard and uci engines need a limit per turn: --movetime, --depth or --nodes".into());
        }
    }
    // An external engine's time can only be measured on the wall clock: then both sides
    // get wall time, so that the time per turn is equal.
    let wall = any_uci;
    let tb = match &settings.tb {
        // The tables of the rule set played (`mill tb generate` with the same rule flags).
        // Six solved whole when the directory has its placing table: Perfect plays from it.
        Some(dir) => {
            let rules = settings.start.rules();
            if Placing::supports(rules).is_ok() && dir.join(Placing::file_name(rules)).exists() {
                let placing = crate::tb::load_placing(dir, rules)?;
                Some((placing.tablebase().clone(), Some(Arc::new(placing))))
            } else {
                Some((crate::tb::load(dir, rules)?, None))
            }
        }
        None => None,
    };
    let names = [settings.a.name(), settings.b.name()];
    // Every opening first, from the seed alone: game g plays opening g / 2.
    let mut rng = settings.seed;
    let openings: Vec<Game> = (0..settings.games.div_ceil(2))
        .map(|_| random_opening(settings.start, settings.opening, &mut rng))
        .collect();
    let (mut wins, mut draws, mut losses) = (0u32, 0u32, 0u32);
    let (mut turns_total, mut nodes, mut ms, mut played) = (0usize, [0u64; 2], [0u64; 2], [0u64; 2]);
    let mut tb_hits = [0u64; 2];
    let (mut seen_wins, mut slipped) = ([0u32; 2], [0u32; 2]);
    let mut adjudicated = 0u32;
    // Each player's lost games (1-based) and how they ended.
    let mut lost: [Vec<(u32, Ending)>; 2] = [Vec::new(), Vec::new()];
    let next = AtomicU32::new(0);
    let abort = AtomicBool::new(false);
    let (tx, results) = channel::<(u32, Result<GameResult, String>)>();
    let outcome = std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..settings.jobs.min(settings.games) {
            let tx = tx.clone();
            let (next, abort, openings, names, tb) = (&next, &abort, &openings, &names, tb.as_ref());
            scope.spawn(move || {
                let start =
                    |i: usize, spec: &Spec| Player::start(i, spec, &settings.options[i], settings, wall, tb);
                let mut players = match start(0, &settings.a).and_then(|a| Ok([a, start(1, &settings.b)?])) {
                    Ok(players) => players,
                    Err(e) => {
                        let _ = tx.send((next.fetch_add(1, Ordering::Relaxed), Err(e)));
                        return;
                    }
                };
                while !abort.load(Ordering::Relaxed) {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= settings.games {
                        break;
                    }
                    let result = play_game(&mut players, g, &openings[g as usize / 2], settings, names);
                    let failed = result.is_err();
                    if tx.send((g, result)).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Results arrive in any order; they are counted and printed in game order.
        let mut waiting = BTreeMap::new();
        let mut done = 0u32;
        for (g, result) in &results {
            let result = match result {
                Ok(r) => r,
                Err(e) => {
                    abort.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            };
            waiting.insert(g, result);
            while let Some(r) = waiting.remove(&done) {
                done += 1;
                turns_total += r.turns;
                adjudicated += u32::from(r.adjudicated);
                for side in 0..2 {
                    played[side] += r.played[side];
                    nodes[side] += r.nodes[side];
                    ms[side] += r.ms[side];
                    tb_hits[side] += r.tb_hits[side];
                }
                // A side that announced a forced win and did not win let it slip.
                for (side, won) in [(0, r.score == Score::Win), (1, r.score == Score::Loss)] {
                    if r.announced_win[side] {
                        seen_wins[side] += 1;
                        slipped[side] += u32::from(!won);
                    }
                }
                match r.score {
                    Score::Win => wins += 1,
                    Score::Draw => draws += 1,
                    Score::Loss => losses += 1,
                }
                match r.score {
                    Score::Win => lost[1].push((done, r.ending)),
                    Score::Loss => lost[0].push((done, r.ending)),
                    Score::Draw => {}
                }
                if let Some(line) = r.line {
                    println!("{line}");
                }
                if settings.progress {
                    let per_turn = |side: usize| {
                        let n = played[side].max(1);
                        format!("{} ms, {} nodes", ms[side] / n, nodes[side] / n)
                    };
                    eprintln!(
                        "after {done} of {} games: {wins} wins, {draws} draws, {losses} losses for {}; {}; a turn: {} against {}",
                        settings.games,
                        names[0],
                        elo_line(wins, draws, losses),
                        per_turn(0),
                        per_turn(1)
                    );
                }
            }
        }
        if done < settings.games {
            return Err("a worker stopped before the match was played".into());
        }
        Ok(())
    });
    outcome?;
    let games = settings.games;
    println!(
        "{} vs {}: {} games: {} wins, {} draws, {} losses for {} (score {:.1}%)",
        names[0],
        names[1],
        games,
        wins,
        draws,
        losses,
        names[0],
        100.0 * (f64::from(wins) + 0.5 * f64::from(draws)) / f64::from(games)
    );
    println!("{}", elo_line(wins, draws, losses));
    println!(
        "average game {:.1} turns; {}: {} nodes in {} ms; {}: {} nodes in {} ms ({} time)",
        turns_total as f64 / f64::from(games),
        names[0],
        nodes[0],
        ms[0],
        names[1],
        nodes[1],
        ms[1],
        if wall { "wall" } else { "CPU" }
    );
    // Hits as this process's Hard players count them, or as external engines report
    // them (`info … tbhits N`).
    if tb.is_some() || tb_hits.iter().any(|&h| h > 0) {
        println!(
            "tablebase hits: {}: {} ({:.2}% of nodes), {}: {} ({:.2}% of nodes)",
            names[0],
            tb_hits[0],
            100.0 * tb_hits[0] as f64 / nodes[0].max(1) as f64,
            names[1],
            tb_hits[1],
            100.0 * tb_hits[1] as f64 / nodes[1].max(1) as f64
        );
    }
    let per_turn = |side: usize| ms[side] as f64 / played[side].max(1) as f64;
    println!(
        "time a turn: {}: {:.0} ms, {}: {:.0} ms ({} time)",
        names[0],
        per_turn(0),
        names[1],
        per_turn(1),
        if wall { "wall" } else { "CPU" }
    );
    for side in 0..2 {
        println!("{}", losses_line(&names[side], &lost[side]));
    }
    println!(
        "forced wins announced: {} in {} games ({} not won), {} in {} games ({} not won)",
        names[0], seen_wins[0], slipped[0], names[1], seen_wins[1], slipped[1]
    );
    if settings.adjudicate {
        println!("adjudicated: {adjudicated} of {games} games");
    }
    Ok(())
}

/// One player's lost games: how many by each reason, then each game (1-based) and how
/// it ended.
fn losses_line(name: &str, lost: &[(u32, Ending)]) -> String {
    let mut by_reason: BTreeMap<&str, u32> = BTreeMap::new();
    for (_, ending) in lost {
        *by_reason.entry(ending.reason.as_str()).or_default() += 1;
    }
    let counts: Vec<String> = by_reason.iter().map(|(r, n)| format!("{n} {r}")).collect();
    let games: Vec<String> = lost.iter().map(|(g, e)| format!("game {g}: {e}")).collect();
    if lost.is_empty() {
        format!("losses of {name}: none")
    } else {
        format!(
            "losses of {name}: {} ({}); {}",
            lost.len(),
            counts.join(", "),
            games.join("; ")
        )
    }
}

/// The Elo difference that a score fraction `p` means (±∞ at 1 and 0).
fn elo(p: f64) -> f64 {
    if p <= 0.0 {
        f64::NEG_INFINITY
    } else if p >= 1.0 {
        f64::INFINITY
    } else {
        // + 0.0 turns the -0 of an even score into 0.
        -400.0 * (1.0 / p - 1.0).log10() + 0.0
    }
}

/// `Elo +X (95%: lo to hi)` for the first player: the score's normal approximation
/// from the games' own spread (wins 1, draws ½, losses 0).
fn elo_line(wins: u32, draws: u32, losses: u32) -> String {
    let n = f64::from(wins + draws + losses);
    let (w, d, l) = (f64::from(wins) / n, f64::from(draws) / n, f64::from(losses) / n);
    let p = w + d / 2.0;
    let variance = w * (1.0 - p).powi(2) + d * (0.5 - p).powi(2) + l * p.powi(2);
    let margin = 1.96 * (variance / n).sqrt();
    let show = |x: f64| {
        if x.is_infinite() {
            if x > 0.0 {
                "+inf".to_string()
            } else {
                "-inf".to_string()
            }
        } else {
            format!("{x:+.0}")
        }
    };
    format!(
        "Elo {} (95%: {} to {})",
        show(elo(p)),
        show(elo(p - margin)),
        show(elo(p + margin))
    )
}

/// CPU time of the calling thread in nanoseconds, where Linux says.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The clock of this process's engines: CPU time of the searching thread (fair on a
/// loaded machine) when both players are local, else wall time.
enum ArenaClock {
    Cpu(u64),
    Wall(StdClock),
}

impl ArenaClock {
    fn cpu() -> ArenaClock {
        match cpu_ns() {
            Some(ns) => ArenaClock::Cpu(ns),
            None => ArenaClock::Wall(StdClock::start()),
        }
    }
}

impl Clock for ArenaClock {
    fn elapsed_ms(&mut self) -> u64 {
        match self {
            ArenaClock::Cpu(start) => cpu_ns().map_or(0, |now| now.saturating_sub(*start) / 1_000_000),
            ArenaClock::Wall(clock) => clock.elapsed_ms(),
        }
    }
}

/// A game opened by `plies` random turns, seeded.
fn random_opening(from: Position, plies: u32, rng: &mut u64) -> Game {
    let mut game = Game::from_position(from);
    for _ in 0..plies {
        let turns = game.legal_turns();
        if turns.is_empty() {
            break;
        }
        *rng = rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let turn = turns[(z % turns.len() as u64) as usize];
        game.play(turn).expect("a legal turn");
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_even_and_lopsided_scores() {
        assert_eq!(elo_line(10, 0, 10), "Elo +0 (95%: -163 to +163)");
        assert!(elo_line(10, 0, 0).starts_with("Elo +inf (95%: +inf"));
        let line = elo_line(60, 20, 20);
        // 70 % is about +147 Elo.
        assert!(line.starts_with("Elo +147 (95%: "), "{line}");
    }

    #[test]
    fn info_lines_give_nodes_tablebase_hits_and_announced_wins() {
        let mut info = Info::default();
        info.read("info depth 3 score cp 12 nodes 900 nps 9000 tbhits 0 time 100 pv d6");
        info.read("info depth 4 score win 3 nodes 2500 nps 9000 tbhits 7 time 280 pv d6 b4");
        assert_eq!(
            info,
            Info {
                nodes: 2500,
                tb_hits: 7,
                eval: Some(Eval::Win)
            }
        );
        info.read("info string error nodes lots");
        info.read("bestmove d6 nodes 1");
        assert_eq!(info.nodes, 2500);
        info.read("info depth 5 score loss 4 nodes 4000");
        assert_eq!(info.eval, Some(Eval::Loss));
        assert_eq!(info.tb_hits, 7);
        info.read("info depth 6 score cp -35 nodes 5000");
        assert_eq!(info.eval, Some(Eval::Cp(-35)));
    }

    #[test]
    fn bestmove_is_read_at_the_start_of_a_line_or_at_the_end_of_an_info_line() {
        assert_eq!(bestmove_in("bestmove d6"), Some("d6"));
        assert_eq!(bestmove_in("bestmove a1-a4 ponder d2"), Some("a1-a4"));
        assert_eq!(
            bestmove_in("info depth 7 score cp 4 nodes 98020 bestmove f4"),
            Some("f4")
        );
        assert_eq!(bestmove_in("info depth 7 score cp 4 nodes 98020"), None);
        assert_eq!(bestmove_in("info string bestmoves are chosen"), None);
        let mut info = Info::default();
        info.read("info depth 7 score cp 4 nodes 98020 bestmove f4");
        assert_eq!((info.nodes, info.eval), (98020, Some(Eval::Cp(4))));
    }

    #[test]
    fn endings_say_why_and_how_long_after_placing() {
        let start = Position::new(mill_core::Variant::Nine);
        let mut rng = 5;
        let placing = random_opening(start, 4, &mut rng);
        let ending = Ending::of(&placing, false);
        assert_eq!(ending.to_string(), "unfinished while placing");
        // Nine placements each, then three turns of moving.
        let moving = random_opening(start, 21, &mut rng);
        assert!(!moving.is_over());
        assert_eq!(moving.turns().len(), 21);
        assert_eq!(
            Ending::of(&moving, true).to_string(),
            "adjudicated 3 turns after placing"
        );
        // A game that starts with both hands empty counts from its first turn.
        let later = random_opening(*moving.position(), 2, &mut rng);
        assert_eq!(Ending::of(&later, false).after_placing, Some(2));
    }

    #[test]
    fn losses_are_counted_by_reason_and_listed() {
        let blocked = |n| Ending {
            reason: "blocked".into(),
            after_placing: Some(n),
        };
        let pieces = Ending {
            reason: "pieces".into(),
            after_placing: Some(40),
        };
        assert_eq!(losses_line("hard", &[]), "losses of hard: none");
        assert_eq!(
            losses_line("hard", &[(3, blocked(1)), (8, pieces), (9, blocked(0))]),
            "losses of hard: 3 (2 blocked, 1 pieces); game 3: blocked 1 turns after placing; \
             game 8: pieces 40 turns after placing; game 9: blocked 0 turns after placing"
        );
    }

    #[test]
    fn adjudication_needs_both_players_to_agree() {
        let moving: Position = "L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 0".parse().unwrap();
        let game = Game::from_position(moving);
        // A win announced by one side alone, or conceded alone, is played out.
        let mut a = Adjudicator::default();
        assert_eq!(a.after(&game, 0, Color::Light, Some(Eval::Win)), None);
        assert_eq!(a.after(&game, 1, Color::Dark, Some(Eval::Cp(-200))), None);
        // The second player now concedes: the first (Light) wins.
        assert_eq!(
            a.after(&game, 1, Color::Dark, Some(Eval::Loss)),
            Some(Some(Color::Light))
        );
        // Scores near even end the game only after enough turns, and only once the
        // position has had as many quiet turns.
        for (quiet, expect) in [(40, Some(None)), (10, None)] {
            let game = Game::from_position(
                format!("L.D/.LD/D.L/LD..DL/L.D/.D./L.D l 0 0 0 {quiet}")
                    .parse()
                    .unwrap(),
            );
            let mut a = Adjudicator::default();
            // The first turn has only one player's score: it does not count.
            for i in 0..DRAW_TURNS {
                let side = i as usize % 2;
                assert_eq!(
                    a.after(&game, side, Color::Light, Some(Eval::Cp(30))),
                    None,
                    "turn {i}"
                );
            }
            assert_eq!(
                a.after(&game, 0, Color::Light, Some(Eval::Cp(-30))),
                expect,
                "{quiet} quiet turns"
            );
        }
        // Both scoring Dark (the second player here) far ahead for enough turns; the
        // first turn has only one player's score and does not count.
        let mut a = Adjudicator::default();
        for i in 0..=WIN_TURNS {
            let side = i as usize % 2;
            let (colour, cp) = if side == 0 {
                (Color::Light, -WIN_SCORE - 50)
            } else {
                (Color::Dark, WIN_SCORE)
            };
            let expect = (i == WIN_TURNS).then_some(Some(Color::Dark));
            assert_eq!(
                a.after(&game, side, colour, Some(Eval::Cp(cp))),
                expect,
                "turn {i}"
            );
        }
        // One score of half a piece or more starts the count again.
        let mut a = Adjudicator {
            flat: DRAW_TURNS - 1,
            ..Adjudicator::default()
        };
        assert_eq!(
            a.after(&game, 0, Color::Light, Some(Eval::Cp(DRAW_SCORE + 1))),
            None
        );
        assert_eq!(a.flat, 0);
    }

    #[test]
    fn specs_are_levels_or_uci_commands() {
        assert!(matches!("hard".parse::<Spec>(), Ok(Spec::Level(Level::Hard))));
        assert!(matches!("uci:/bin/mill uci".parse::<Spec>(), Ok(Spec::Uci(c)) if c == "/bin/mill uci"));
        assert!("uci:".parse::<Spec>().is_err());
        assert!("expert".parse::<Spec>().is_err());
    }
}
