//! Positions as MFEN, the one-line position format of the Mill Interchange Format 1.0
//! (MIF) that other Mill programs read and write, with state profile `mill24-state-v1`.
//!
//! An MFEN record is eleven space-separated fields and optional extensions:
//!
//! ```text
//! MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -
//! ```
//!
//! 1. the signature `MFEN/1.0`; 2. the state profile `mill24-state-v1`;
//! 3. the board as three rings of eight points, outer ring first, each ring clockwise
//!    from its top-left corner (`a7 d7 g7 g4 g1 d1 a1 a4`, then `b6 …`, then `c5 …`),
//!    `W` a White piece, `B` a Black one, `.` empty;
//! 4. the side to move, `w` or `b` (`-` once the game is over);
//! 5. the phase of the side to move: `p` while it has pieces in hand, else `m`; `o` over;
//! 6. what the side to move does now: `p` place, `m` move, `r` remove, `o` nothing;
//! 7. the pieces in hand, White's and Black's, as `9,9`;
//! 8. the removals owed: `-`, or one obligation
//!    `actor:mill:b:victim:count:targets:next` whose `targets` are the removable points
//!    as six hex digits (bit *i* for point *i* of the ring order above);
//! 9. the no-progress counter; 10. how many placements and moves have been made;
//! 11. the outcome, `-` or `w:`/`b:`/`d:` with a reason (`fewer-than-minimum`,
//!     `no-legal-move`, `repetition`, `no-progress`, `agreement`, `resignation`,
//!     `board-full`; and MIF's private forms for what it has no name for: `x-mill`, a
//!     line that wins, `x-timeout`, a side out of time, `x-abandoned`, a game won or
//!     drawn after one side left). MIF has no aborted game: an aborted game's MFEN is
//!     its position, still to be played.
//!
//! MFEN carries no rules: the caller says which [`Rules`] it is read under (any rule
//! set on the 24-point board: Nine or Twelve Men's Morris, with any options). Light is
//! MIF's White (`w`), Dark its Black (`b`); which of them places first is the rules'
//! [`Rules::first`] (`dark-first` for MIF's `turn.initial` `b`). The project's rules need none of
//! the standard extensions (`lm`, `pc`, `ul`), so a record carrying one, or anything
//! MIF does not define, is refused rather than guessed at, as the format asks.
//!
//! Mapping to this crate: the no-progress counter is [`Position::quiet_turns`]. The
//! phase follows the side to move, as MIF synchronises it with the active player: a
//! side that has just placed its last piece and owes a removal is already `m`. A bare
//! [`Position`] does not know how many placements and moves led to it: it writes the
//! smallest count consistent with it (placements made plus quiet turns, plus one if
//! needed for the side to move); a [`Game`] writes the real count, counted on from the
//! count its start was read with ([`Mfen::of_game`]). A finished game's MFEN names no
//! side to move: reading one, the count decides it (the side that places first makes
//! the odd-numbered placements and moves), unless the result is the board's only with
//! the other side to move. The hands are read as they are, whoever is to move (MIF's
//! hands are authoritative, not a tally of placements).

use crate::bitboard::{Bitboard, Point};
use crate::color::Color;
use crate::error::PositionError;
use crate::game::Game;
use crate::outcome::{DrawReason, Outcome, WinReason};
use crate::position::Position;
use crate::rules::{DrawBy, Rules};
use crate::turn::Action;
use core::fmt;

/// The signature opening every MFEN record this module reads and writes.
pub const SIGNATURE: &str = "MFEN/1.0";
/// The state profile of the 24-point board.
pub const STATE_PROFILE: &str = "mill24-state-v1";

/// The 24 points in MIF's order: outer, middle, inner ring, each clockwise from the
/// top-left corner.
pub const RING_ORDER: [&str; 24] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", // outer ring
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", // middle ring
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4", // inner ring
];

/// A position read from or written as MFEN, with the two things MFEN says that a
/// [`Position`] does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mfen {
    /// The position. For a finished game, the side to move is the one that would move
    /// next (the loser of a game lost on the board).
    pub position: Position,
    /// Placements and moves made since the game's start (MIF's `primary-ply`).
    pub primary_ply: u64,
    /// The result, if the game is over.
    pub outcome: Option<Outcome>,
}

/// Why an MFEN record was refused. [`MfenError::code`] is stable; where MIF names a
/// code for the failure, it is that one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MfenError {
    /// The text does not start with `MFEN/1.0`.
    Signature(String),
    /// Spaces other than one between fields, or leading or trailing space.
    Spacing,
    /// Fewer than the eleven fields.
    FieldCount(usize),
    /// A state profile other than `mill24-state-v1`.
    Profile(String),
    /// A field that does not follow MFEN's grammar.
    Field {
        /// The field's name, like `hands`.
        field: &'static str,
        /// What was found.
        found: String,
        /// What the field should look like.
        expected: &'static str,
    },
    /// An extension, standard or not, that these rules do not use.
    Extension(String),
    /// The rules' board is not the 24-point board MFEN describes.
    Unrepresentable(&'static str),
    /// Fields that contradict each other (for example action `p` with nothing in hand).
    Inconsistent(&'static str),
    /// The obligation's actor is not the side to move.
    ActorMismatch,
    /// The obligation's target set is not the set of pieces these rules allow removing.
    TargetMismatch,
    /// An ongoing record of a position in which the game is over.
    TerminalOngoing(Outcome),
    /// An outcome these rules do not have, or that disagrees with the board.
    Outcome(String),
    /// The position itself is impossible under the rules.
    Position(PositionError),
}

impl MfenError {
    /// A stable machine-readable code, like `obligation-target-mismatch`.
    pub fn code(&self) -> &'static str {
        match self {
            MfenError::Signature(_) => "unsupported-format",
            MfenError::Spacing | MfenError::FieldCount(_) | MfenError::Field { .. } => "syntax",
            MfenError::Profile(_) => "unsupported-profile",
            MfenError::Extension(_) => "unsupported-extension",
            MfenError::Unrepresentable(_) => "unrepresentable-under-profile",
            MfenError::Inconsistent(_) => "inconsistent",
            MfenError::ActorMismatch => "side-obligation-actor-mismatch",
            MfenError::TargetMismatch => "obligation-target-mismatch",
            MfenError::TerminalOngoing(_) => "automatic-terminal-ongoing",
            MfenError::Outcome(_) => "bad-outcome",
            MfenError::Position(_) => "bad-position",
        }
    }
}

impl fmt::Display for MfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MfenError::Signature(s) => write!(f, "an MFEN record starts with {SIGNATURE}, found {s:?}"),
            MfenError::Spacing => {
                f.write_str("MFEN fields are separated by exactly one space, with none around them")
            }
            MfenError::FieldCount(n) => write!(f, "an MFEN record has at least 11 fields, found {n}"),
            MfenError::Profile(s) => write!(f, "state profile {s:?} is not supported: only {STATE_PROFILE}"),
            MfenError::Field {
                field,
                found,
                expected,
            } => {
                write!(f, "MFEN field {field}: found {found:?}, expected {expected}")
            }
            MfenError::Extension(s) => write!(f, "MFEN extension {s:?} is not part of these rules"),
            MfenError::Unrepresentable(v) => {
                write!(f, "MFEN describes the 24-point board; {v} is played on another")
            }
            MfenError::Inconsistent(what) => write!(f, "MFEN fields disagree: {what}"),
            MfenError::ActorMismatch => f.write_str("the removal is owed by a side that is not to move"),
            MfenError::TargetMismatch => {
                f.write_str("the removal's target points are not the pieces the rules allow removing")
            }
            MfenError::TerminalOngoing(o) => {
                write!(f, "the record says the game goes on, but it is over: {o}")
            }
            MfenError::Outcome(s) => write!(
                f,
                "outcome {s:?} is not a result of this position under these rules"
            ),
            MfenError::Position(e) => write!(f, "impossible position: {e}"),
        }
    }
}

impl std::error::Error for MfenError {}

impl From<PositionError> for MfenError {
    fn from(e: PositionError) -> MfenError {
        MfenError::Position(e)
    }
}

fn player(c: Color) -> char {
    match c {
        Color::Light => 'w',
        Color::Dark => 'b',
    }
}

fn outcome_text(o: Outcome) -> String {
    match o {
        Outcome::Win { winner, reason } => {
            let reason = match reason {
                WinReason::Pieces => "fewer-than-minimum",
                WinReason::Blocked => "no-legal-move",
                WinReason::Resignation => "resignation",
                // Three Men's Morris, whose board MFEN cannot describe: MIF's private form.
                WinReason::Mill => "x-mill",
                // The clock's results, which MIF does not name.
                WinReason::Timeout => "x-timeout",
                WinReason::Abandoned => "x-abandoned",
                WinReason::BoardFull => "board-full",
                WinReason::NoPlacement => "no-legal-primary-action",
            };
            format!("{}:{reason}", player(winner))
        }
        Outcome::Draw { reason } => {
            let reason = match reason {
                DrawReason::Threefold => "repetition",
                DrawReason::HundredTurns => "no-progress",
                DrawReason::Agreement => "agreement",
                DrawReason::BoardFull => "board-full",
                DrawReason::Abandoned => "x-abandoned",
                DrawReason::NoPlacement => "no-legal-primary-action",
            };
            format!("d:{reason}")
        }
        // Never written (see `Mfen::from_game`); kept apart from every other text.
        Outcome::Aborted => "-".to_string(),
    }
}

fn parse_outcome(s: &str) -> Option<Outcome> {
    let outcomes = Color::ALL
        .into_iter()
        .flat_map(|winner| WinReason::ALL.map(|reason| Outcome::Win { winner, reason }))
        .chain(DrawReason::ALL.map(|reason| Outcome::Draw { reason }));
    outcomes.into_iter().find(|o| outcome_text(*o) == s)
}

/// The board's points in MIF's ring order, or why the board is not MIF's.
fn ring_points(position: &Position) -> Result<[Point; 24], MfenError> {
    let t = position.topology();
    let unrepresentable = || MfenError::Unrepresentable(position.rules().name);
    if t.len() != RING_ORDER.len() {
        return Err(unrepresentable());
    }
    let mut points = [Point(0); 24];
    for (slot, name) in points.iter_mut().zip(RING_ORDER) {
        *slot = t.point(name).ok_or_else(unrepresentable)?;
    }
    Ok(points)
}

/// A 24-bit set over the ring order, as six lowercase hex digits.
fn ring_set(points: &[Point; 24], set: Bitboard) -> String {
    let bits = points
        .iter()
        .enumerate()
        .filter(|(_, p)| set.contains(**p))
        .fold(0u32, |acc, (i, _)| acc | 1 << i);
    format!("{bits:06x}")
}

/// MIF's exact integers: unsigned decimal, no leading zeroes, at most 2^53 - 1.
fn parse_uint(field: &'static str, s: &str) -> Result<u64, MfenError> {
    let bad = || MfenError::Field {
        field,
        found: s.to_string(),
        expected: "an unsigned integer without leading zeroes",
    };
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0')) {
        return Err(bad());
    }
    match s.parse::<u64>() {
        Ok(n) if n < (1 << 53) => Ok(n),
        _ => Err(bad()),
    }
}

impl Mfen {
    /// Whether positions under `rules` have an MFEN form: they do on the 24-point board
    /// (Nine and Twelve Men's Morris, with any options); on any other board the answer
    /// is the [`MfenError::Unrepresentable`] that writing or reading one would give.
    pub fn supports(rules: &Rules) -> Result<(), MfenError> {
        ring_points(&Position::start(rules)).map(|_| ())
    }

    /// The rule sets among `candidates` under which `text` reads as MFEN, in their
    /// order: what a page can offer when the rules it tried refused the record. MFEN
    /// does not name its rules, so this never picks one by itself.
    pub fn readable_under(
        text: &str,
        candidates: impl IntoIterator<Item = &'static Rules>,
    ) -> Vec<&'static Rules> {
        candidates
            .into_iter()
            .filter(|&rules| Mfen::parse(text, rules).is_ok())
            .collect()
    }

    /// A bare position: its own outcome, and the smallest count of placements and
    /// moves that fits it.
    pub fn from_position(position: &Position) -> Mfen {
        let rules = position.rules();
        let placed = 2 * rules.pieces as u64
            - position.in_hand(Color::Light) as u64
            - position.in_hand(Color::Dark) as u64;
        let mut ply = placed + position.quiet_turns() as u64;
        // The first side makes the odd-numbered primaries; the remover made the last one.
        let last_by_first = if position.pending_removals() > 0 {
            position.turn() == rules.first
        } else {
            position.turn() != rules.first
        };
        if (ply % 2 == 1) != last_by_first {
            ply += 1;
        }
        Mfen {
            position: *position,
            primary_ply: ply,
            outcome: position.outcome(),
        }
    }

    /// A game's current position, with its outcome (repetition, resignation and
    /// agreement included; an abort, which MIF cannot say, left out) and the placements
    /// and moves played, counted from the smallest count that fits its start (see
    /// [`Mfen::of_game`] to keep a known one).
    pub fn from_game(game: &Game) -> Mfen {
        Mfen::of_game(game, Mfen::from_position(game.start()).primary_ply)
    }

    /// Like [`Mfen::from_game`], for a game whose start had `start_primary_ply`
    /// placements and moves behind it (as an MFEN record read as its start says): a
    /// reader keeps MFEN's count rather than recomputing it.
    pub fn of_game(game: &Game, start_primary_ply: u64) -> Mfen {
        let played = game
            .actions()
            .iter()
            .filter(|a| !matches!(a, Action::Remove { .. }))
            .count() as u64;
        Mfen {
            position: *game.position(),
            primary_ply: start_primary_ply.saturating_add(played),
            outcome: game.outcome().filter(|o| *o != Outcome::Aborted),
        }
    }

    /// The MFEN record, or why the position's board cannot be written as MFEN.
    pub fn write(&self) -> Result<String, MfenError> {
        let p = &self.position;
        let points = ring_points(p)?;
        let mut board = String::with_capacity(26);
        for (i, point) in points.iter().enumerate() {
            if i > 0 && i % 8 == 0 {
                board.push('/');
            }
            board.push(match p.piece_at(*point) {
                Some(Color::Light) => 'W',
                Some(Color::Dark) => 'B',
                None => '.',
            });
        }
        let hands = format!("{},{}", p.in_hand(Color::Light), p.in_hand(Color::Dark));
        let tail = format!("{} {}", p.quiet_turns(), self.primary_ply);
        if let Some(outcome) = self.outcome.filter(|o| *o != Outcome::Aborted) {
            return Ok(format!(
                "{SIGNATURE} {STATE_PROFILE} {board} - o o {hands} - {tail} {}",
                outcome_text(outcome)
            ));
        }
        let side = player(p.turn());
        let phase = if p.in_hand(p.turn()) > 0 { 'p' } else { 'm' };
        let (action, obligations) = if p.pending_removals() > 0 {
            let victim = player(!p.turn());
            let targets = ring_set(&points, p.removable());
            let owed = p.pending_removals();
            ('r', format!("{side}:mill:b:{victim}:{owed}:{targets}:{victim}"))
        } else {
            (phase, "-".to_string())
        };
        Ok(format!(
            "{SIGNATURE} {STATE_PROFILE} {board} {side} {phase} {action} {hands} {obligations} {tail} -"
        ))
    }

    /// Reads an MFEN record under `rules` (a [`Rules`] or a
    /// [`Variant`](crate::Variant) with its usual rules) and checks it against them.
    pub fn parse(text: &str, rules: impl Into<Rules>) -> Result<Mfen, MfenError> {
        Mfen::read(text, rules.into(), false)
    }

    /// Reads an MFEN record that starts a game (MIF's MSTATE origin) under `rules`: as
    /// [`Mfen::parse`], except that a record saying the game goes on in a position the
    /// rules end at once (a full board, a blockade, the no-progress limit…) is taken,
    /// with no outcome: playing from it settles the result, as MIF's origin
    /// stabilization does. An independent record must already be settled.
    pub fn parse_origin(text: &str, rules: impl Into<Rules>) -> Result<Mfen, MfenError> {
        Mfen::read(text, rules.into(), true)
    }

    fn read(text: &str, rules: Rules, origin: bool) -> Result<Mfen, MfenError> {
        let fields: Vec<&str> = text.split(' ').collect();
        if !fields[0].is_empty() && fields[0] != SIGNATURE {
            return Err(MfenError::Signature(fields[0].chars().take(16).collect()));
        }
        if fields.iter().any(|f| f.is_empty()) || text.chars().any(|c| c.is_whitespace() && c != ' ') {
            return Err(MfenError::Spacing);
        }
        if fields.len() < 11 {
            return Err(MfenError::FieldCount(fields.len()));
        }
        if !text.is_ascii() {
            return Err(MfenError::Field {
                field: "record",
                found: text.chars().filter(|c| !c.is_ascii()).take(4).collect(),
                expected: "US-ASCII only",
            });
        }
        if fields[1] != STATE_PROFILE {
            return Err(MfenError::Profile(fields[1].to_string()));
        }
        let field = |field: &'static str, found: &str, expected: &'static str| MfenError::Field {
            field,
            found: found.to_string(),
            expected,
        };
        let [
            board,
            side,
            phase,
            action,
            hands,
            obligations,
            no_progress,
            ply,
            outcome,
        ] = [2, 3, 4, 5, 6, 7, 8, 9, 10].map(|i| fields[i]);
        if let Some(ext) = fields.get(11) {
            let key = ext.split_once('=').map_or(*ext, |(k, _)| k);
            return Err(MfenError::Extension(key.to_string()));
        }

        // Lexical checks, field by field.
        let rings: Vec<&str> = board.split('/').collect();
        if rings.len() != 3 || rings.iter().any(|r| r.len() != 8) {
            return Err(field(
                "board",
                board,
                "three rings of eight points separated by '/'",
            ));
        }
        let cells: Vec<u8> = rings.concat().into_bytes();
        if let Some(&c) = cells.iter().find(|c| !b"WB.wb".contains(c)) {
            return Err(field("board", &(c as char).to_string(), "W, B or ."));
        }
        if cells.iter().any(|c| matches!(c, b'w' | b'b')) {
            return Err(MfenError::Inconsistent(
                "the board holds blocked tokens (w, b), which these rules never make",
            ));
        }
        let side = match side {
            "w" => Some(Color::Light),
            "b" => Some(Color::Dark),
            "-" => None,
            other => return Err(field("side", other, "w, b or -")),
        };
        if !matches!(phase, "p" | "m" | "o") {
            return Err(field("phase", phase, "p, m or o"));
        }
        if !matches!(action, "p" | "m" | "r" | "o") {
            return Err(field("action", action, "p, m, r or o"));
        }
        let Some((white, black)) = hands.split_once(',') else {
            return Err(field(
                "hands",
                hands,
                "White's and Black's pieces in hand, like 9,9",
            ));
        };
        let hand_w = parse_uint("hands", white)?;
        let hand_b = parse_uint("hands", black)?;
        let quiet = parse_uint("no-progress", no_progress)?;
        let primary_ply = parse_uint("primary-ply", ply)?;
        let outcome = match outcome {
            "-" => None,
            text => Some(parse_outcome(text).ok_or_else(|| MfenError::Outcome(text.to_string()))?),
        };

        // Structure: ongoing or over.
        let turn = match (outcome, side) {
            (None, Some(side)) => {
                if phase == "o" || action == "o" {
                    return Err(MfenError::Inconsistent(
                        "an ongoing game has phase and action p, m or r",
                    ));
                }
                side
            }
            (None, None) => return Err(MfenError::Inconsistent("an ongoing game names its side to move")),
            (Some(_), Some(_)) => return Err(MfenError::Inconsistent("a finished game has side -")),
            (Some(_), None) => {
                if phase != "o" || action != "o" || obligations != "-" {
                    return Err(MfenError::Inconsistent(
                        "a finished game has phase o, action o and no obligation",
                    ));
                }
                // The next side to move follows from the count: the first side made
                // the odd-numbered primaries.
                if primary_ply % 2 == 0 {
                    rules.first
                } else {
                    !rules.first
                }
            }
        };
        let too_big = |f: &'static str, s: &str| field(f, s, "a count these rules allow");
        let hand_w = u8::try_from(hand_w).map_err(|_| too_big("hands", white))?;
        let hand_b = u8::try_from(hand_b).map_err(|_| too_big("hands", black))?;
        let quiet = u16::try_from(quiet).map_err(|_| too_big("no-progress", no_progress))?;

        // Obligations: these rules know one kind, a board removal after a mill.
        let pending = if obligations == "-" {
            0
        } else {
            if obligations.contains('|') || obligations.contains(';') {
                return Err(MfenError::Inconsistent(
                    "these rules owe one removal obligation at a time, never alternatives or sequences",
                ));
            }
            let parts: Vec<&str> = obligations.split(':').collect();
            let [actor, cause, zone, owner, remaining, targets, after] = parts[..] else {
                return Err(field(
                    "obligations",
                    obligations,
                    "- or actor:cause:zone:target-owner:remaining:targets:after",
                ));
            };
            let is_player = |s: &str| matches!(s, "w" | "b");
            let is_hex =
                targets.len() == 6 && targets.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            if !is_player(actor)
                || !is_player(owner)
                || !matches!(zone, "b" | "h")
                || !(is_hex || targets == "-" || targets == "~")
                || !(is_player(after) || after == "q")
            {
                return Err(field(
                    "obligations",
                    obligations,
                    "actor:cause:zone:target-owner:remaining:targets:after",
                ));
            }
            if cause != "mill" || zone != "b" {
                return Err(MfenError::Inconsistent(
                    "these rules owe only board removals for a mill",
                ));
            }
            let remaining = parse_uint("obligations", remaining)?;
            if remaining == 0 {
                return Err(field("obligations", obligations, "a positive count of removals"));
            }
            if !actor.starts_with(player(turn)) {
                return Err(MfenError::ActorMismatch);
            }
            if owner == actor || after != owner {
                return Err(MfenError::Inconsistent(
                    "the removal takes an opponent piece and then the opponent moves",
                ));
            }
            if action != "r" {
                return Err(MfenError::Inconsistent("a removal is owed, so the action is r"));
            }
            u8::try_from(remaining).map_err(|_| too_big("obligations", obligations))?
        };
        if pending == 0 && action == "r" {
            return Err(MfenError::Inconsistent("action r without a removal owed"));
        }
        let hand_of_side = if turn == Color::Light { hand_w } else { hand_b };
        if outcome.is_none() {
            let expected = if hand_of_side > 0 { "p" } else { "m" };
            if phase != expected || (pending == 0 && action != expected) {
                return Err(MfenError::Inconsistent(
                    "the phase is p while the side to move has pieces in hand, m after, and so is the action unless a removal is owed",
                ));
            }
        }

        // The rest is the position string's job, which checks it against the rules.
        let probe = Position::start(rules);
        let order = ring_points(&probe)?;
        let t = probe.topology();
        let mut ranks: Vec<u8> = t.points().map(|p| t.coords(p).1).collect();
        ranks.sort_unstable_by(|a, b| b.cmp(a));
        ranks.dedup();
        let piece_of = |point: Point| {
            let i = order.iter().position(|p| *p == point).unwrap_or(0);
            match cells[i] {
                b'W' => 'L',
                b'B' => 'D',
                _ => '.',
            }
        };
        let rows: Vec<String> = ranks
            .iter()
            .map(|&rank| {
                (0..7)
                    .filter_map(|file| t.point_at(file, rank))
                    .map(piece_of)
                    .collect()
            })
            .collect();
        let position_to_move = |turn: Color| -> Result<Position, MfenError> {
            let text = format!(
                "{} {} {hand_w} {hand_b} {pending} {quiet} {rules}",
                rows.join("/"),
                turn.char()
            );
            Ok(text.parse()?)
        };
        let position = position_to_move(turn)?;

        if pending > 0 {
            let parts: Vec<&str> = obligations.split(':').collect();
            if parts[5] != ring_set(&order, position.removable()) {
                return Err(MfenError::TargetMismatch);
            }
        }
        if let Some(claimed) = outcome {
            // A finished record names no side to move, and the pieces in hand do not
            // say whose turn it was: the count's side, or else the other if the result
            // is the board's with it to move.
            for candidate in [position, position_to_move(!turn)?] {
                if outcome_fits(&rules, &candidate, claimed) {
                    return Ok(Mfen {
                        position: candidate,
                        primary_ply,
                        outcome,
                    });
                }
            }
            return Err(MfenError::Outcome(outcome_text(claimed)));
        }
        if let Some(over) = position.outcome()
            && !origin
        {
            return Err(MfenError::TerminalOngoing(over));
        }
        Ok(Mfen {
            position,
            primary_ply,
            outcome,
        })
    }
}

/// Whether `claimed` ends `position` under `rules`: a result of the board must be the
/// board's; the others need a board that has not ended the game (a repetition may
/// coincide with the quiet limit).
fn outcome_fits(rules: &Rules, position: &Position, claimed: Outcome) -> bool {
    let board = position.outcome();
    match claimed {
        Outcome::Win {
            reason:
                WinReason::Pieces
                | WinReason::Blocked
                | WinReason::Mill
                | WinReason::BoardFull
                | WinReason::NoPlacement,
            ..
        }
        | Outcome::Draw {
            reason: DrawReason::BoardFull | DrawReason::NoPlacement,
        } => board == Some(claimed),
        // Automatic, the board's; claimed, the count must have reached the limit.
        Outcome::Draw {
            reason: DrawReason::HundredTurns,
        } => match rules.quiet_draw {
            DrawBy::Automatic => board == Some(claimed),
            DrawBy::Claim => board.is_none() && rules.quiet_reached(position.quiet_turns()),
        },
        Outcome::Draw {
            reason: DrawReason::Threefold,
        } => matches!(board, None | Some(Outcome::Draw { .. })),
        _ => board.is_none(),
    }
}

impl Position {
    /// This position as an MFEN record (see [`Mfen::from_position`] for what a bare
    /// position cannot say), or why its board has no MFEN form.
    pub fn to_mfen(&self) -> Result<String, MfenError> {
        Mfen::from_position(self).write()
    }

    /// Reads an MFEN record as a position under `rules`.
    pub fn from_mfen(text: &str, rules: impl Into<Rules>) -> Result<Position, MfenError> {
        Mfen::parse(text, rules).map(|m| m.position)
    }
}
