//! Game records as text: a short header of tags, then the turns in notation, then the
//! result. For example:
//!
//! ```text
//! [Variant "nine"]
//! [Date "2026.12.01"]
//! [Light "Anna"]
//! [Dark "Computer (hard)"]
//! [Result "1-0"]
//! [Termination "resignation"]
//!
//! 1. a1 b2 2. d1 d2 3. g1xd2 f4 1-0
//! ```
//!
//! - A tag is `[Name "value"]` on a line of its own; `\"` and `\\` escape inside the
//!   value. `Variant` is the rule set as [`Rules`]' `Display` writes it (`nine`,
//!   `six`, `twelve+per-mill`; `nine` when absent). `Date` is
//!   `YYYY.MM.DD` (`?` for unknown digits). `Light` and `Dark` are the players.
//!   `Result` is `1-0` (Light won), `0-1` (Dark won), `1/2-1/2` (draw) or `*` (not
//!   over, or aborted). `Termination` says why it ended, in the names of
//!   [`WinReason`]/[`DrawReason`] (`pieces`, `blocked`, `mill`, `resignation`,
//!   `timeout`, `abandoned`, `threefold`, `hundred-turns`, `board-full`,
//!   `agreement`; and for rule sets with extended options `no-placement`, and a
//!   `threefold` or `hundred-turns` draw claimed where the rules leave it to a claim),
//!   or `aborted` with `*`. `TimeControl`, written for a game played on
//!   a clock, is `300+3` (initial seconds + increment seconds), `1/259200` (a turn
//!   every three days, in seconds) or `-`; it is kept as any other tag. `Start` is the position the game began from, as a
//!   position string or MFEN, when it is not the variant's empty board. Other tags are
//!   kept as they are.
//! - The turns follow, numbered by rounds: `3.` before Light's turn of round 3, `3...`
//!   before a Dark turn that opens the record (under `dark-first` rules a round opens
//!   with Dark's turn, and `3...` is Light's). Numbers are optional when reading, but
//!   must be right when present. `{…}` is a comment. The result may close the turns
//!   and must then agree with the header.
//! - Reading replays every turn under the rules: a malformed record is refused with a
//!   [`RecordError`] naming the line of a bad tag, or the turn (its number in the record
//!   and its text) and what is wrong with it.
//! - A game that started with a removal owed records that removal first, as `xd2`. A
//!   turn not finished yet (its removal still owed) is not part of the record.

use crate::color::Color;
use crate::error::{NotationError, PlayError};
use crate::game::Game;
use crate::mfen::Mfen;
use crate::notation::Notation;
use crate::outcome::{DrawReason, Outcome, WinReason};
use crate::position::Position;
use crate::rules::{NINE, Rules};
use crate::turn::Action;
use core::fmt;

/// The header of a record apart from what the game itself says (variant, start,
/// result).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `YYYY.MM.DD`, `?` for unknown digits.
    pub date: Option<String>,
    /// Light's player.
    pub light: Option<String>,
    /// Dark's player.
    pub dark: Option<String>,
    /// Any other tags, in their order.
    pub other: Vec<(String, String)>,
}

/// A game with its header: what a record file holds.
#[derive(Clone, Debug)]
pub struct Record {
    /// Date, players and other tags.
    pub header: Header,
    /// The game, replayed from its start: turns, position, outcome.
    pub game: Game,
}

/// What is wrong with a turn of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnProblem {
    /// The text is not a turn.
    Notation(NotationError),
    /// The turn is not legal in the position it is played in.
    Illegal(PlayError),
    /// A round number that is not this turn's.
    MoveNumber {
        /// The number this turn has, like `4.` or `4...`.
        expected: String,
        /// What the record wrote.
        found: String,
    },
    /// A result closes the turns, but more text follows it.
    AfterResult,
    /// A comment `{` that is never closed.
    UnclosedComment,
}

impl fmt::Display for TurnProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnProblem::Notation(e) => write!(f, "{e}"),
            TurnProblem::Illegal(e) => write!(f, "illegal: {e}"),
            TurnProblem::MoveNumber { expected, found } => {
                write!(f, "numbered {found} but it is {expected}")
            }
            TurnProblem::AfterResult => f.write_str("the result must be the last thing in the record"),
            TurnProblem::UnclosedComment => f.write_str("a comment opened with { is never closed"),
        }
    }
}

/// Why a record was refused. Nothing is played from a refused record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// A header line that is not `[Name "value"]`, or a tag whose value is wrong.
    Header {
        /// The line, counted from 1.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// A turn that cannot be read or played.
    Turn {
        /// The turn's place in the record, counted from 1 (both sides' turns).
        number: usize,
        /// Its round label, like `3.` or `3...`.
        label: String,
        /// The turn as written.
        text: String,
        /// What is wrong.
        problem: TurnProblem,
    },
    /// The result written disagrees with the turns or with itself.
    Result(String),
}

impl RecordError {
    /// A stable machine-readable code: `bad-header`, `bad-turn` or `bad-result`.
    pub fn code(&self) -> &'static str {
        match self {
            RecordError::Header { .. } => "bad-header",
            RecordError::Turn { .. } => "bad-turn",
            RecordError::Result(_) => "bad-result",
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Header { line, problem } => write!(f, "line {line}: {problem}"),
            RecordError::Turn {
                number,
                label,
                text,
                problem,
            } => write!(f, "turn {number} ({label} {text}): {problem}"),
            RecordError::Result(s) => write!(f, "result: {s}"),
        }
    }
}

impl std::error::Error for RecordError {}

fn result_text(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "*",
        Some(Outcome::Win {
            winner: Color::Light, ..
        }) => "1-0",
        Some(Outcome::Win {
            winner: Color::Dark, ..
        }) => "0-1",
        Some(Outcome::Draw { .. }) => "1/2-1/2",
        Some(Outcome::Aborted) => "*",
    }
}

fn is_result(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

fn reason_name(outcome: Outcome) -> &'static str {
    outcome.reason_name()
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ")
}

/// `[Name "value"]` → (name, value).
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(' ')?;
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let rest = rest.trim_start().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next().filter(|c| matches!(c, '\\' | '"'))?),
            '"' => return None,
            c => value.push(c),
        }
    }
    Some((name.to_string(), value))
}

fn valid_date(date: &str) -> bool {
    let b = date.as_bytes();
    b.len() == 10
        && b[4] == b'.'
        && b[7] == b'.'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit() || *c == b'?')
}

/// The round of the record's `index`-th turn (from 0) when the first is `first`'s and
/// each round opens with `opener`'s turn (the side the rules let place first), and
/// whether that turn opens its round.
fn round_of(index: usize, first: Color, opener: Color) -> (usize, bool) {
    let k = index + usize::from(first != opener);
    (k / 2 + 1, k % 2 == 0)
}

fn label(index: usize, first: Color, opener: Color) -> String {
    match round_of(index, first, opener) {
        (round, true) => format!("{round}."),
        (round, false) => format!("{round}..."),
    }
}

/// The record's turns as action groups: each placement or move with its removals; a
/// removal owed at the start is a group of its own.
fn turn_texts(game: &Game) -> Vec<String> {
    let t = game.position().topology();
    let mut groups: Vec<String> = Vec::new();
    let mut position = *game.start();
    for &action in game.actions() {
        match action {
            Action::Remove { at } => {
                if groups.is_empty() {
                    groups.push(String::new());
                }
                if let Some(last) = groups.last_mut() {
                    last.push('x');
                    last.push_str(t.name(at));
                }
            }
            other => groups.push(other.to_text(t)),
        }
        // The actions were legal when played, so this cannot fail.
        position = position.play_action(action).unwrap_or(position);
    }
    // A turn still waiting for its removal is not complete yet.
    if position.pending_removals() > 0 && !game.actions().is_empty() {
        groups.pop();
    }
    groups
}

impl Record {
    /// A record of `game` with `header`.
    pub fn new(game: Game, header: Header) -> Record {
        Record { header, game }
    }

    /// Reads a record and replays it. Refused records name the line or the turn.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let mut header = Header::default();
        let mut seen: Vec<String> = Vec::new();
        let mut rules_tag: Option<Rules> = None;
        let mut start_text: Option<(usize, String)> = None;
        let mut result_tag: Option<(usize, String)> = None;
        let mut termination: Option<(usize, String)> = None;
        let mut movetext = String::new();
        let mut in_header = true;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if in_header && line.is_empty() {
                continue;
            }
            if in_header && line.starts_with('[') {
                let bad = |problem: String| RecordError::Header {
                    line: line_no,
                    problem,
                };
                let (name, value) = parse_tag(line)
                    .ok_or_else(|| bad(format!("{line:?} is not a tag: write [Name \"value\"]")))?;
                if seen.contains(&name) {
                    return Err(bad(format!("tag {name} appears twice")));
                }
                seen.push(name.clone());
                match name.as_str() {
                    "Variant" => {
                        let rules =
                            Rules::parse(&value).map_err(|e| bad(format!("variant {value:?}: {e}")))?;
                        rules_tag = Some(rules);
                    }
                    "Date" => {
                        if !valid_date(&value) {
                            return Err(bad(format!("date {value:?} is not YYYY.MM.DD")));
                        }
                        header.date = Some(value);
                    }
                    "Light" => header.light = Some(value),
                    "Dark" => header.dark = Some(value),
                    "Start" => start_text = Some((line_no, value)),
                    "Result" => {
                        if !is_result(&value) {
                            return Err(bad(format!("result {value:?} is not 1-0, 0-1, 1/2-1/2 or *")));
                        }
                        result_tag = Some((line_no, value));
                    }
                    "Termination" => termination = Some((line_no, value)),
                    _ => header.other.push((name, value)),
                }
                continue;
            }
            in_header = false;
            movetext.push_str(raw);
            movetext.push('\n');
        }

        let start = match &start_text {
            None => Position::start(rules_tag.unwrap_or(*NINE)),
            Some((line, s)) => {
                let rules = rules_tag.unwrap_or(*NINE);
                let parsed = if s.starts_with("MFEN/") {
                    Mfen::parse(s, rules)
                        .map(|m| m.position)
                        .map_err(|e| e.to_string())
                } else if s.split_whitespace().count() == 6 {
                    // A position string without its rule set is one of the record's.
                    format!("{s} {rules}")
                        .parse::<Position>()
                        .map_err(|e| e.to_string())
                } else {
                    s.parse::<Position>().map_err(|e| e.to_string())
                };
                let bad = |problem: String| RecordError::Header { line: *line, problem };
                let position = parsed.map_err(|e| bad(format!("start position: {e}")))?;
                if rules_tag.is_some_and(|r| r != position.rules()) {
                    return Err(bad(format!(
                        "the start position is {}, the variant {rules}",
                        position.rules()
                    )));
                }
                position
            }
        };
        let mut game = Game::from_position(start);
        let first = start.turn();
        let opener = start.rules().first;
        let t = start.topology();

        // Tokens, with comments taken out.
        let mut tokens: Vec<&str> = Vec::new();
        let mut rest = movetext.as_str();
        while let Some(open) = rest.find('{') {
            tokens.extend(rest[..open].split_whitespace());
            match rest[open..].find('}') {
                Some(close) => rest = &rest[open + close + 1..],
                None => {
                    let index = game_turn_count(&tokens);
                    return Err(RecordError::Turn {
                        number: index + 1,
                        label: label(index, first, opener),
                        text: "{".into(),
                        problem: TurnProblem::UnclosedComment,
                    });
                }
            }
        }
        tokens.extend(rest.split_whitespace());

        let mut index = 0;
        let mut result_token: Option<&str> = None;
        for token in tokens {
            let err = |index: usize, problem: TurnProblem| RecordError::Turn {
                number: index + 1,
                label: label(index, first, opener),
                text: token.to_string(),
                problem,
            };
            if result_token.is_some() {
                return Err(err(index, TurnProblem::AfterResult));
            }
            if is_result(token) {
                result_token = Some(token);
                continue;
            }
            if let Some(number) = token.strip_suffix('.') {
                let expected = label(index, first, opener);
                let number = number.trim_end_matches('.');
                if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
                    if token != expected {
                        return Err(err(
                            index,
                            TurnProblem::MoveNumber {
                                expected,
                                found: token.to_string(),
                            },
                        ));
                    }
                    continue;
                }
            }
            let played = if index == 0 && start.pending_removals() > 0 && token.starts_with('x') {
                // The removal owed at the start: every action is checked before any is
                // kept, so a bad one leaves the game as it was.
                let mut trial = game.clone();
                let all = token.split('x').skip(1).try_for_each(|r| {
                    let action = Action::parse(&format!("x{r}"), t).map_err(TurnProblem::Notation)?;
                    trial.play_action(action).map_err(TurnProblem::Illegal)
                });
                all.map(|()| game = trial)
            } else {
                token
                    .parse::<Notation>()
                    .and_then(|n| n.to_turn(t))
                    .map_err(TurnProblem::Notation)
                    .and_then(|turn| game.play(turn).map_err(TurnProblem::Illegal))
            };
            played.map_err(|problem| err(index, problem))?;
            index += 1;
        }

        // The result: the header's, the closing token's, and the board's must agree.
        if let (Some((_, tag)), Some(token)) = (&result_tag, result_token)
            && tag != token
        {
            return Err(RecordError::Result(format!(
                "the header says {tag} but the turns end with {token}"
            )));
        }
        let written = result_tag.as_ref().map(|(_, s)| s.as_str()).or(result_token);
        if let Some((line, reason)) = &termination {
            let mut known: Vec<&str> = WinReason::ALL.iter().map(|r| r.name()).collect();
            known.extend(DrawReason::ALL.iter().map(|r| r.name()));
            known.push(Outcome::ABORTED);
            // `abandoned` names a won and a drawn game alike: list it once.
            let mut seen = Vec::new();
            known.retain(|r| {
                !seen.contains(r) && {
                    seen.push(*r);
                    true
                }
            });
            if !known.contains(&reason.as_str()) {
                return Err(RecordError::Header {
                    line: *line,
                    problem: format!("termination {reason:?} is not one of {}", known.join(", ")),
                });
            }
        }
        let termination = termination.map(|(_, s)| s);
        match game.outcome() {
            Some(outcome) => {
                if let Some(w) = written
                    && w != result_text(Some(outcome))
                {
                    return Err(RecordError::Result(format!(
                        "the turns end the game ({outcome}) but the result says {w}"
                    )));
                }
                if let Some(reason) = &termination
                    && reason != reason_name(outcome)
                {
                    return Err(RecordError::Result(format!(
                        "the turns end the game ({outcome}) but the termination says {reason}"
                    )));
                }
            }
            None => {
                // A result the board has not reached is declared: a resignation or an
                // agreement unless the termination names another (a timeout, an
                // abandoned game, an abort with `*`).
                let declared = match (written, termination.as_deref()) {
                    (Some("1-0"), reason) => Some((
                        Some(Color::Light),
                        reason.unwrap_or(WinReason::Resignation.name()),
                    )),
                    (Some("0-1"), reason) => {
                        Some((Some(Color::Dark), reason.unwrap_or(WinReason::Resignation.name())))
                    }
                    (Some("1/2-1/2"), reason) => Some((None, reason.unwrap_or(DrawReason::Agreement.name()))),
                    (_, Some(reason)) if reason == Outcome::ABORTED => Some((None, reason)),
                    (_, Some(r)) => {
                        return Err(RecordError::Result(format!(
                            "the termination says {r} but the game is not over"
                        )));
                    }
                    (_, None) => None,
                };
                if let Some((winner, reason)) = declared {
                    // A draw the rules leave to a claim (threefold, hundred turns) was
                    // claimed, if the game allows claiming it.
                    let claimed = game
                        .claimable()
                        .into_iter()
                        .find(|r| winner.is_none() && r.name() == reason);
                    match claimed {
                        Some(draw) => game
                            .claim_draw(draw)
                            .map_err(|e| RecordError::Result(e.to_string()))?,
                        None => {
                            let outcome = Outcome::from_names(winner, reason)
                                .filter(|o| o.is_declared())
                                .ok_or_else(|| {
                                    RecordError::Result(format!(
                                        "the game is not over on the board, so it cannot have ended by {reason}"
                                    ))
                                })?;
                            game.declare(outcome)
                                .map_err(|e| RecordError::Result(e.to_string()))?;
                        }
                    }
                }
            }
        }
        Ok(Record { header, game })
    }
}

/// How many turns `tokens` hold (numbers and results left out).
fn game_turn_count(tokens: &[&str]) -> usize {
    tokens
        .iter()
        .filter(|t| !is_result(t) && !t.ends_with('.'))
        .count()
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let game = &self.game;
        let rules = game.position().rules();
        let outcome = game.outcome();
        writeln!(f, "[Variant \"{}\"]", escape(&rules.to_string()))?;
        if let Some(date) = &self.header.date {
            writeln!(f, "[Date \"{}\"]", escape(date))?;
        }
        if let Some(light) = &self.header.light {
            writeln!(f, "[Light \"{}\"]", escape(light))?;
        }
        if let Some(dark) = &self.header.dark {
            writeln!(f, "[Dark \"{}\"]", escape(dark))?;
        }
        writeln!(f, "[Result \"{}\"]", result_text(outcome))?;
        if let Some(o) = outcome {
            writeln!(f, "[Termination \"{}\"]", reason_name(o))?;
        }
        if *game.start() != Position::start(rules) {
            writeln!(f, "[Start \"{}\"]", game.start())?;
        }
        for (name, value) in &self.header.other {
            writeln!(f, "[{name} \"{}\"]", escape(value))?;
        }
        writeln!(f)?;
        let first = game.start().turn();
        let opener = rules.first;
        let mut line = String::new();
        for (i, text) in turn_texts(game).iter().enumerate() {
            let piece = if i == 0 || round_of(i, first, opener).1 {
                format!("{} {text}", label(i, first, opener))
            } else {
                text.clone()
            };
            if !line.is_empty() && line.len() + 1 + piece.len() > 79 {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&piece);
        }
        let result = result_text(outcome);
        if !line.is_empty() && line.len() + 1 + result.len() > 79 {
            writeln!(f, "{line}")?;
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(result);
        writeln!(f, "{line}")
    }
}
