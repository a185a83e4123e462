//! The `mill` command line: perft, game replay, legal turns and format conversion
//! (`convert`) over `mill-core`; the computer's choice (`bestmove`) and engine matches
//! (`arena`) over `mill-engine`.

#![forbid(unsafe_code)]

use clap::{Args, Parser, Subcommand, ValueEnum};
use mill_core::{Game, Header, Mfen, NINE, Notation, Options, Position, Record, RemovalRule, Rules, Variant};
use mill_engine::{Engine, Level, Limits, StdClock};
use std::io::Read;
use std::process::ExitCode;

mod arena;
mod mif;
mod puzzles;
mod tb;
mod uci;

#[derive(Parser)]
#[command(
    name = "mill",
    version,
    about = "Nine Men's Morris (and Three, Six, Twelve) tools: perft, replay, legal turns, format conversion, the computer's turn, UCI, engine matches, endgame tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The game and its rule options, shared by every command. Without them a command plays
/// the position string's rules, or Nine Men's Morris.
#[derive(Args, Clone, Copy, Debug, Default)]
struct RuleArgs {
    /// The game: three, six, nine or twelve Men's Morris (default: nine, or the
    /// position string's).
    #[arg(long, value_enum)]
    variant: Option<VariantArg>,
    /// Removals for closing several mills at once: one (default) or per-mill.
    #[arg(long, value_enum)]
    removals: Option<RemovalsArg>,
    /// Whether pieces in mills are protected while others stand free: on (default) or off.
    #[arg(long, value_enum)]
    protect: Option<ProtectArg>,
    /// After placing, a side with this many pieces or fewer flies; 0 for never
    /// (default: 3, or 4 in twelve, 0 in three).
    #[arg(long = "fly-at", value_name = "N")]
    fly_at: Option<u8>,
    /// The side that places first: light (default) or dark.
    #[arg(long, value_enum)]
    first: Option<FirstArg>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FirstArg {
    Light,
    Dark,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum VariantArg {
    Three,
    Six,
    Nine,
    Twelve,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RemovalsArg {
    One,
    PerMill,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProtectArg {
    On,
    Off,
}

impl RuleArgs {
    /// The rule set the flags name, or `None` when no flag was given.
    fn rules(&self) -> Result<Option<&'static Rules>, String> {
        if self.variant.is_none()
            && self.removals.is_none()
            && self.protect.is_none()
            && self.fly_at.is_none()
            && self.first.is_none()
        {
            return Ok(None);
        }
        let variant = match self.variant.unwrap_or(VariantArg::Nine) {
            VariantArg::Three => Variant::Three,
            VariantArg::Six => Variant::Six,
            VariantArg::Nine => Variant::Nine,
            VariantArg::Twelve => Variant::Twelve,
        };
        let default = variant.default_options();
        let options = Options {
            first: match self.first {
                None => default.first,
                Some(FirstArg::Light) => mill_core::Color::Light,
                Some(FirstArg::Dark) => mill_core::Color::Dark,
            },
            removals: match self.removals {
                None => default.removals,
                Some(RemovalsArg::One) => RemovalRule::One,
                Some(RemovalsArg::PerMill) => RemovalRule::PerMill,
            },
            protect: self
                .protect
                .map_or(default.protect, |p| matches!(p, ProtectArg::On)),
            fly_at: self.fly_at.unwrap_or(default.fly_at),
            ..default
        };
        Rules::of_table(variant, options)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

#[derive(Subcommand)]
enum Command {
    /// Count sequences of complete turns to each depth from 1 to DEPTH.
    Perft {
        /// The deepest depth to count.
        depth: u32,
        /// Start from this position string instead of the start position.
        #[arg(long)]
        position: Option<String>,
        /// Count every action as a ply (a removal is its own ply).
        #[arg(long)]
        actions: bool,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Play a game record and print the final position and the result.
    Replay {
        /// The record file; `-` or nothing reads standard input.
        file: Option<String>,
        /// Start from this position string instead of the start position.
        #[arg(long)]
        position: Option<String>,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Convert between position strings, MFEN and game records.
    ///
    /// The input is a position string (`.../.../.../....../.../.../... l 9 9 0 0`), an
    /// MFEN record (`MFEN/1.0 mill24-state-v1 ...`) or a game record (tags and turns,
    /// see `docs/RULES.md`); its kind is recognised unless --from says it. A record
    /// converts to its final position; a position converts to a record that starts
    /// from it. Errors name the part, line or turn at fault.
    #[command(
        after_help = "Examples:\n  mill convert --text '.../.../.../....../.../.../... l 9 9 0 0' --to mfen\n  mill convert game.txt --to mfen\n  echo '1. a1 b2 2. d1 d2' | mill convert --to record --light Anna --date 2026.12.01"
    )]
    Convert {
        /// The input file; `-` or nothing reads standard input.
        file: Option<String>,
        /// The input itself instead of a file.
        #[arg(long, conflicts_with = "file")]
        text: Option<String>,
        /// What the input is.
        #[arg(long, value_enum, default_value_t = Format::Auto)]
        from: Format,
        /// What to print.
        #[arg(long, value_enum)]
        to: Output,
        /// The rule set the input is read under (`nine`, `six`, `twelve+per-mill`,
        /// `nine+dark-first`, …). MFEN carries none, so MFEN input needs it (it is
        /// refused with `manifest-missing` otherwise, never guessed); a six-part
        /// position string is read under it, or Nine's usual rules.
        #[arg(long)]
        variant: Option<String>,
        /// For a record: the date, YYYY.MM.DD.
        #[arg(long)]
        date: Option<String>,
        /// For a record: Light's player.
        #[arg(long)]
        light: Option<String>,
        /// For a record: Dark's player.
        #[arg(long)]
        dark: Option<String>,
    },
    /// List the legal turns, one per line, in notation; while a removal is owed, the
    /// ways to finish the turn (`xd2`, or `xd2xf4` for two removals).
    Legal {
        /// The position string (default: the start position).
        #[arg(long)]
        position: Option<String>,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Print the computer's turn in notation (search details go to standard error).
    Bestmove {
        /// beginner, easy, medium or hard.
        #[arg(long, default_value = "hard")]
        level: Level,
        /// The position string (default: the start position).
        #[arg(long)]
        position: Option<String>,
        /// Turns played before (from the start or from --position), separated by
        /// spaces: they are the history that repetitions are scored against.
        #[arg(long)]
        moves: Option<String>,
        /// Time for the turn in milliseconds (default: the level's, 1000).
        #[arg(long)]
        movetime: Option<u64>,
        /// The deepest iteration, in turns (no time limit unless --movetime is given).
        #[arg(long)]
        depth: Option<u32>,
        /// Node limit (no time limit unless --movetime is given).
        #[arg(long)]
        nodes: Option<u64>,
        /// The seed of the level's random choices.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Transposition table size in megabytes.
        #[arg(long, default_value_t = 32)]
        tt: usize,
        #[command(flatten)]
        rules: RuleArgs,
        /// A tablebase directory (`mill tb generate`) for Hard.
        #[arg(long)]
        tb: Option<std::path::PathBuf>,
    },
    /// Speak UCI on standard input and output (see docs/UCI.md).
    Uci,
    /// The Mill Interchange Format 1.0: convert, validate, and the interoperability
    /// adapter (see docs/MIF.md).
    Mif {
        #[command(subcommand)]
        command: mif::MifCommand,
    },
    /// The endgame tablebase: generate, probe, verify.
    Tb {
        #[command(subcommand)]
        command: TbCommand,
    },
    /// Puzzles: generate the set, list it, verify it (see `mill puzzles generate --help`).
    Puzzles {
        #[command(subcommand)]
        command: puzzles::PuzzlesCommand,
    },
    /// Play engine-vs-engine games from varied openings and print wins, draws, losses.
    Arena {
        /// The first player: a level, or `uci:<command line>` for an external engine
        /// (e.g. `uci:/tmp/mill-old uci`).
        #[arg(long)]
        a: arena::Spec,
        /// The second player, likewise.
        #[arg(long)]
        b: arena::Spec,
        /// Games to play (in pairs: each opening once with each colour).
        #[arg(long, default_value_t = 100)]
        games: u32,
        /// Time per turn in milliseconds for both players: CPU time of the searching
        /// thread where Linux provides it (fair on a loaded machine) when both are
        /// levels, wall time when an external engine plays (default: none, each level
        /// searches to its own depth; Hard and external engines then need --movetime,
        /// --depth or --nodes).
        #[arg(long)]
        movetime: Option<u64>,
        /// Time per turn of the first player alone, in place of --movetime: to match
        /// an engine that overruns its time at equal wall time per turn.
        #[arg(long = "a-movetime")]
        a_movetime: Option<u64>,
        /// Time per turn of the second player alone, likewise.
        #[arg(long = "b-movetime")]
        b_movetime: Option<u64>,
        /// Depth limit for both engines (each level still caps its own depth).
        #[arg(long)]
        depth: Option<u32>,
        /// Node limit per turn for both engines.
        #[arg(long)]
        nodes: Option<u64>,
        /// Random placements (turns) that open each game pair.
        #[arg(long, default_value_t = 2)]
        opening: u32,
        /// The seed of the openings and of the engines' choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Transposition table size in megabytes, per engine.
        #[arg(long, default_value_t = 16)]
        tt: usize,
        /// A tablebase directory (`mill tb generate`) for the Hard players of this process.
        #[arg(long)]
        tb: Option<std::path::PathBuf>,
        /// Print every game's record and result.
        #[arg(long)]
        verbose: bool,
        /// Print the running score (wins, draws, losses, Elo) to standard error after
        /// every game, so that an interrupted match still gives a figure.
        #[arg(long)]
        progress: bool,
        /// Games played at once, each by its own pair of players (threads here,
        /// processes for external engines); the output is the same, in game order.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
        jobs: u32,
        /// An option for the first player if it is an external engine, as NAME=VALUE
        /// (sent as `setoption name NAME value VALUE`); repeatable.
        #[arg(long = "a-option", value_name = "NAME=VALUE")]
        a_option: Vec<String>,
        /// An option for the second player, likewise.
        #[arg(long = "b-option", value_name = "NAME=VALUE")]
        b_option: Vec<String>,
        /// End a game early when both players agree on its result: a forced win one
        /// announces and the other concedes, or 30 quiet turns of moving with both
        /// scores within ±40 (a draw).
        #[arg(long)]
        adjudicate: bool,
        #[command(flatten)]
        rules: RuleArgs,
    },
}

#[derive(Subcommand)]
enum TbCommand {
    /// Solve every position with both sides out of hand and up to --max pieces each, or
    /// with --all the whole game from its empty board (Three or Six Men's Morris).
    Generate {
        /// The directory for the tables.
        #[arg(long, default_value = tb::DEFAULT_DIR)]
        dir: std::path::PathBuf,
        /// Pieces per side, at most.
        #[arg(long, default_value_t = 4)]
        max: u8,
        /// Solve every position reachable from the empty board, placing included:
        /// `--variant three` writes one file, `three-whole.mtw`; `--variant six` its
        /// endgame tables to six a side and its placing positions, `six-placing.mtp`.
        #[arg(long, conflicts_with = "max")]
        all: bool,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Print `win in N`, `loss in N` or `draw`, the next removal and the best turn.
    Probe {
        /// The position string; repeat it to probe several with the tables opened once,
        /// or give `-` to read one position a line from standard input.
        #[arg(long, required = true)]
        position: Vec<String>,
        /// The directory of the tables.
        #[arg(long, default_value = tb::DEFAULT_DIR)]
        dir: std::path::PathBuf,
    },
    /// Check every stored value against its successors.
    Verify {
        /// The directory of the tables.
        #[arg(long, default_value = tb::DEFAULT_DIR)]
        dir: std::path::PathBuf,
        #[command(flatten)]
        rules: RuleArgs,
    },
}

/// The text formats `mill convert` reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Recognise the input: MFEN, else a position string, else a record.
    Auto,
    /// The project's position string.
    Position,
    /// MFEN/1.0, the Mill Interchange Format's position.
    Mfen,
    /// A game record: tags, then turns.
    Record,
}

/// What `mill convert` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Output {
    /// The (final) position as a position string.
    Position,
    /// The (final) position as MFEN/1.0, with the game's outcome.
    Mfen,
    /// The game as a record: tags, then turns.
    Record,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mill: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The position to start from: the position string, read under the flags' rules when
/// it does not name its own (a string that names other rules than the flags is
/// refused), or the start position of the flags' rules.
fn parse_position(text: Option<&str>, args: &RuleArgs) -> Result<Position, String> {
    let rules = args.rules()?;
    let Some(text) = text else {
        return Ok(rules.map_or_else(Position::default, Position::start));
    };
    let names_rules = text.split_whitespace().count() == 7;
    let parsed: Position = match rules {
        Some(r) if !names_rules => format!("{text} {r}").parse(),
        _ => text.parse(),
    }
    .map_err(|e| format!("bad position string: {e}"))?;
    match rules {
        Some(r) if parsed.rules() != r => Err(format!(
            "the position string is played under {} but the flags say {r}",
            parsed.rules()
        )),
        _ => Ok(parsed),
    }
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Uci => uci::run(),
        Command::Mif { command } => mif::run(command),
        Command::Puzzles { command } => puzzles::run(command),
        Command::Tb { command } => match command {
            TbCommand::Generate { dir, max, all, rules } => {
                let rules = rules.rules()?.unwrap_or(NINE);
                if all {
                    tb::generate_whole(&dir, rules)
                } else {
                    tb::generate(&dir, max, rules)
                }
            }
            TbCommand::Probe { position, dir } => {
                let positions = if position == ["-"] {
                    std::io::stdin()
                        .lines()
                        .map(|l| l.map_err(|e| format!("cannot read standard input: {e}")))
                        .filter(|l| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
                        .collect::<Result<Vec<_>, _>>()?
                } else {
                    position
                };
                tb::probe(&dir, &positions)
            }
            TbCommand::Verify { dir, rules } => tb::verify(&dir, rules.rules()?.unwrap_or(NINE)),
        },
        Command::Perft {
            depth,
            position,
            actions,
            rules,
        } => {
            let pos = parse_position(position.as_deref(), &rules)?;
            for d in 1..=depth {
                let n = if actions {
                    mill_core::perft::perft_actions(&pos, d)
                } else {
                    mill_core::perft::perft(&pos, d)
                };
                println!("{d} {n}");
            }
            Ok(())
        }
        Command::Legal { position, rules } => {
            let pos = parse_position(position.as_deref(), &rules)?;
            let t = pos.topology();
            if pos.pending_removals() > 0 {
                for choice in pos.removal_choices() {
                    let text: String = choice.iter().map(|&at| format!("x{}", t.name(at))).collect();
                    println!("{text}");
                }
            } else {
                for turn in pos.legal_turns() {
                    println!("{}", turn.to_notation(t));
                }
            }
            Ok(())
        }
        Command::Bestmove {
            level,
            position,
            moves,
            movetime,
            depth,
            nodes,
            seed,
            tt,
            rules,
            tb,
        } => {
            let mut game = Game::from_position(parse_position(position.as_deref(), &rules)?);
            for (number, token) in record_tokens(moves.as_deref().unwrap_or("")).enumerate() {
                play_token(&mut game, number + 1, token)?;
            }
            let limits = Limits {
                level,
                movetime_ms: match (movetime, depth, nodes) {
                    (Some(ms), _, _) => Some(ms),
                    (None, None, None) => Some(level.default_movetime_ms()),
                    _ => None,
                },
                depth,
                nodes,
                seed,
            };
            let mut engine = Engine::new(tt);
            if let Some(dir) = tb {
                let rules = game.position().rules();
                if mill_engine::tb::Placing::supports(rules).is_ok()
                    && dir.join(mill_engine::tb::Placing::file_name(rules)).exists()
                {
                    // Six solved whole: Perfect plays from it, Hard from its endgames.
                    let placing = tb::load_placing(&dir, rules)?;
                    engine.set_tablebase(Some(placing.tablebase().clone()));
                    engine.set_placing_table(Some(std::sync::Arc::new(placing)));
                } else {
                    engine.set_tablebase(Some(tb::load(&dir, rules)?));
                }
            }
            let result = engine
                .best_turn(&game, &limits, &mut StdClock::start())
                .map_err(|e| format!("no turn to play: {e}"))?;
            let t = game.position().topology();
            let pv: Vec<String> = result.pv.iter().map(|turn| turn.to_notation(t)).collect();
            eprintln!(
                "info level {level} depth {} score {} nodes {} tbhits {} time {} ms pv {}",
                result.depth,
                match result.win_in() {
                    Some(n) => format!("win-in {n}"),
                    None => result.score.to_string(),
                },
                result.nodes,
                result.tb_hits,
                result.elapsed_ms,
                pv.join(" ")
            );
            println!("{}", result.turn.to_notation(t));
            Ok(())
        }
        Command::Arena {
            a,
            b,
            games,
            movetime,
            a_movetime,
            b_movetime,
            depth,
            nodes,
            opening,
            seed,
            tt,
            tb,
            verbose,
            progress,
            jobs,
            a_option,
            b_option,
            adjudicate,
            rules,
        } => arena::run(&arena::Settings {
            a,
            b,
            options: [arena::parse_options(&a_option)?, arena::parse_options(&b_option)?],
            start: parse_position(None, &rules)?,
            games,
            movetime,
            side_movetime: [a_movetime, b_movetime],
            depth,
            nodes,
            opening,
            seed,
            tt,
            tb,
            verbose,
            progress,
            jobs,
            adjudicate,
        }),
        Command::Convert {
            file,
            text,
            from,
            to,
            variant,
            date,
            light,
            dark,
        } => {
            let input = match text {
                Some(text) => text,
                None => read_record(file.as_deref())?,
            };
            let variant = variant
                .map(|v| Rules::parse(&v).map_err(|e| e.to_string()))
                .transpose()?;
            let (mut record, start_ply) = read_any(&input, from, variant)?;
            for (slot, value) in [
                (&mut record.header.date, date),
                (&mut record.header.light, light),
                (&mut record.header.dark, dark),
            ] {
                if value.is_some() {
                    *slot = value;
                }
            }
            match to {
                Output::Position => println!("{}", record.game.position()),
                Output::Mfen => {
                    let mfen = match start_ply {
                        Some(ply) => Mfen::of_game(&record.game, ply),
                        None => Mfen::from_game(&record.game),
                    };
                    println!("{}", mfen.write().map_err(|e| e.to_string())?);
                }
                Output::Record => {
                    // Check what is written, so that a bad --date is refused here.
                    let text = record.to_string();
                    Record::parse(&text).map_err(|e| format!("bad record header: {e}"))?;
                    print!("{text}");
                }
            }
            Ok(())
        }
        Command::Replay {
            file,
            position,
            rules,
        } => {
            let text = read_record(file.as_deref())?;
            let mut game = Game::from_position(parse_position(position.as_deref(), &rules)?);
            for (number, token) in record_tokens(&text).enumerate() {
                play_token(&mut game, number + 1, token)?;
            }
            println!("{}", game.position());
            match game.outcome() {
                Some(outcome) => println!("result: {outcome}"),
                None => println!("result: ongoing"),
            }
            Ok(())
        }
    }
}

/// Reads a position string, MFEN or record as a record (a position is a record with
/// no turns that starts there; MFEN keeps its outcome), with MFEN's count of
/// placements and moves, which a record does not hold. MFEN names no rules: without
/// `variant` it is refused (`manifest-missing`), as the Mill Interchange Format asks.
fn read_any(input: &str, from: Format, variant: Option<Rules>) -> Result<(Record, Option<u64>), String> {
    let text = input.trim();
    let looks_like_position = {
        let fields: Vec<&str> = text.split_whitespace().collect();
        (fields.len() == 6 || fields.len() == 7) && fields[0].contains('/')
    };
    let from = match from {
        Format::Auto if text.starts_with("MFEN/") => Format::Mfen,
        Format::Auto if looks_like_position => Format::Position,
        Format::Auto => Format::Record,
        other => other,
    };
    let start = |position: Position| Record::new(Game::from_position(position), Header::default());
    match from {
        Format::Position => Position::from_str_variant(text, variant.unwrap_or(*NINE))
            .map(|p| (start(p), None))
            .map_err(|e| format!("bad position string: {e}")),
        Format::Mfen => {
            let variant = variant.ok_or(
                "MFEN names no rules (manifest-missing): say which with --variant, e.g. --variant nine",
            )?;
            let mfen = Mfen::parse(text, variant).map_err(|e| format!("bad MFEN ({}): {e}", e.code()))?;
            let mut record = start(mfen.position);
            // A result the board shows comes back with the board; a declared one is declared.
            if let Some(outcome) = mfen.outcome.filter(|o| o.is_declared()) {
                record.game.declare(outcome).map_err(|e| e.to_string())?;
            }
            Ok((record, Some(mfen.primary_ply)))
        }
        Format::Record | Format::Auto => Record::parse(text)
            .map(|r| (r, None))
            .map_err(|e| format!("bad record: {e}")),
    }
}

/// Plays one turn of a record, or says which turn is wrong and why.
fn play_token(game: &mut Game, number: usize, token: &str) -> Result<(), String> {
    let topology = game.position().topology();
    let turn = token
        .parse::<Notation>()
        .and_then(|n| n.to_turn(topology))
        .map_err(|e| format!("turn {number} ({token}): {e}"))?;
    game.play(turn)
        .map_err(|e| format!("turn {number} ({token}): illegal: {e}"))
}

fn read_record(file: Option<&str>) -> Result<String, String> {
    match file {
        None | Some("-") => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(s)
        }
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}")),
    }
}

/// The turns of a record: separated by white space, `#` starts a comment to the end of
/// the line.
fn record_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
}
