//! The `mill` command line: perft, game replay and legal turns over `mill-core`.

use clap::{Parser, Subcommand};
use mill_core::{Game, Notation, Position};
use std::io::Read;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mill",
    version,
    about = "Nine Men's Morris tools: perft, replay, legal turns"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    },
    /// Play a game record and print the final position and the result.
    Replay {
        /// The record file; `-` or nothing reads standard input.
        file: Option<String>,
        /// Start from this position string instead of the start position.
        #[arg(long)]
        position: Option<String>,
    },
    /// List the legal turns, one per line, in notation.
    Legal {
        /// The position string (default: the start position).
        #[arg(long)]
        position: Option<String>,
    },
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

fn parse_position(text: Option<&str>) -> Result<Position, String> {
    match text {
        None => Ok(Position::default()),
        Some(s) => s.parse().map_err(|e| format!("bad position string: {e}")),
    }
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Perft {
            depth,
            position,
            actions,
        } => {
            let pos = parse_position(position.as_deref())?;
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
        Command::Legal { position } => {
            let pos = parse_position(position.as_deref())?;
            let t = pos.topology();
            for turn in pos.legal_turns() {
                println!("{}", turn.to_notation(t));
            }
            Ok(())
        }
        Command::Replay { file, position } => {
            let text = read_record(file.as_deref())?;
            let mut game = Game::from_position(parse_position(position.as_deref())?);
            for (number, token) in record_tokens(&text).enumerate() {
                let number = number + 1;
                let topology = game.position().topology();
                let turn = token
                    .parse::<Notation>()
                    .and_then(|n| n.to_turn(topology))
                    .map_err(|e| format!("turn {number} ({token}): {e}"))?;
                game.play(turn)
                    .map_err(|e| format!("turn {number} ({token}): illegal: {e}"))?;
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
