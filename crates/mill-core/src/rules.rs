//! Rule sets as data: a board plus the numbers and options that vary between the
//! historical relatives of the game.
//!
//! A [`Variant`] names a game of the family (Three, Six, Nine or Twelve Men's Morris)
//! with its board and its usual numbers; [`Options`] are the choices a player may change
//! on a board with removals (how many removals a double mill earns, whether mills
//! protect, when a side flies), and on every board which side places first. Every
//! combination of those is one [`Rules`] entry of a static table ([`Variant::rules`],
//! [`NINE`], [`Rules::parse_table`]).
//!
//! Other programs of the family (and the Mill Interchange Format's rule-set manifests)
//! also vary the pieces each side has, the draws (the no-progress limit, or none, and
//! whether a draw by repetition or no progress is automatic or claimed by the side to
//! move) and what a full board does. These are [`Options`] too, the *extended* ones
//! ([`Rules::is_extended`]). Every rule set, the table's or not, is a plain `Copy` value
//! ([`Rules::of`], [`Rules::parse`]): nothing is registered or kept anywhere, so a process
//! may play any number of them in any order. A [`Position`](crate::Position) carries its
//! rule set packed in eight bytes (`Packed`), from which move generation reads the
//! board, the first side, removals, protection, flying and moves while placing directly.
//! The server and the page offer only the table's rule sets ([`Rules::parse_table`]).
//!
//! A rule set is written `nine`, `six+per-mill`, `twelve+protect-off+fly-0`,
//! `nine+dark-first`, `nine+pieces-12+quiet-0+repetition-claim`: the variant,
//! then each option that differs from the variant's default (see [`Rules::parse`]).

use crate::color::Color;
use crate::topology::{MORRIS_9, MORRIS_16, MORRIS_24, MORRIS_24_DIAGONALS, Topology};
use core::fmt;
use core::hash::{Hash, Hasher};

/// How many removals closing several mills with one piece earns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum RemovalRule {
    /// One removal however many mills the piece closed (the standard rule).
    One,
    /// One removal per mill closed.
    PerMill,
}

impl RemovalRule {
    /// `one` or `per-mill`.
    pub const fn name(self) -> &'static str {
        match self {
            RemovalRule::One => "one",
            RemovalRule::PerMill => "per-mill",
        }
    }

    /// The rule with this name (`one`, `per-mill`).
    pub fn from_name(name: &str) -> Option<RemovalRule> {
        match name {
            "one" => Some(RemovalRule::One),
            "per-mill" => Some(RemovalRule::PerMill),
            _ => None,
        }
    }
}

/// How a draw the rules provide for comes about: by itself, or when the side to move
/// claims it ([`Game::claim_draw`](crate::Game::claim_draw)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawBy {
    /// The game is drawn as soon as the condition holds (the usual rule here).
    Automatic,
    /// The side to move may claim the draw while the condition holds; play goes on
    /// until it does.
    Claim,
}

impl DrawBy {
    /// `auto` or `claim`.
    pub const fn name(self) -> &'static str {
        match self {
            DrawBy::Automatic => "auto",
            DrawBy::Claim => "claim",
        }
    }

    fn from_name(name: &str) -> Option<DrawBy> {
        match name {
            "auto" => Some(DrawBy::Automatic),
            "claim" => Some(DrawBy::Claim),
            _ => None,
        }
    }
}

/// What a board with every point taken does at a turn boundary. Only rule sets whose
/// pieces can fill the board (twice the pieces at least the points) ever see one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardFull {
    /// Nothing of its own: the side to move can neither place nor move, and is stuck
    /// ([`NoPlacement`] while it has pieces in hand, else blocked).
    Off,
    /// The game is drawn (Twelve Men's Morris).
    Draw,
    /// Light loses, whoever is to move (MIF's `white-loses`).
    LightLoses,
}

impl BoardFull {
    /// `off`, `draw` or `light-loses`.
    pub const fn name(self) -> &'static str {
        match self {
            BoardFull::Off => "off",
            BoardFull::Draw => "draw",
            BoardFull::LightLoses => "light-loses",
        }
    }

    fn from_name(name: &str) -> Option<BoardFull> {
        [BoardFull::Off, BoardFull::Draw, BoardFull::LightLoses]
            .into_iter()
            .find(|b| b.name() == name)
    }
}

/// What happens to a side that still has pieces to place but no empty point to place
/// on (and no board-full rule settled the game first). Only rule sets with more pieces
/// than half the points ever see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoPlacement {
    /// The side loses.
    Loss,
    /// The game is drawn.
    Draw,
}

impl NoPlacement {
    /// `loss` or `draw`.
    pub const fn name(self) -> &'static str {
        match self {
            NoPlacement::Loss => "loss",
            NoPlacement::Draw => "draw",
        }
    }

    fn from_name(name: &str) -> Option<NoPlacement> {
        match name {
            "loss" => Some(NoPlacement::Loss),
            "draw" => Some(NoPlacement::Draw),
            _ => None,
        }
    }
}

/// The games of the family a position can be played under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Variant {
    /// Three Men's Morris: 9 points, 3 pieces, closing a line wins at once.
    Three,
    /// Six Men's Morris: two squares, 6 pieces.
    Six,
    /// Nine Men's Morris, the default game (`RULES.md`).
    #[default]
    Nine,
    /// Twelve Men's Morris: the nine board with four diagonals, 12 pieces.
    Twelve,
}

impl Variant {
    /// Every variant, smallest board first.
    pub const ALL: [Variant; 4] = [Variant::Three, Variant::Six, Variant::Nine, Variant::Twelve];

    /// The variant's short name: `three`, `six`, `nine`, `twelve`.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Three => "three",
            Variant::Six => "six",
            Variant::Nine => "nine",
            Variant::Twelve => "twelve",
        }
    }

    /// The variant with this short name.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The variant's rule set with its default options.
    #[inline]
    pub fn rules(self) -> &'static Rules {
        &TABLE[index(self, self.default_options())]
    }

    /// The options the variant is played with unless a player changes them.
    pub const fn default_options(self) -> Options {
        Options {
            first: Color::Light,
            removals: RemovalRule::One,
            protect: true,
            fly_at: match self {
                Variant::Three => 0,
                Variant::Six | Variant::Nine => 3,
                Variant::Twelve => 4,
            },
            pieces: self.pieces(),
            quiet_limit: QUIET_LIMIT,
            quiet_draw: DrawBy::Automatic,
            repetition_draw: DrawBy::Automatic,
            board_full: match self {
                Variant::Twelve => BoardFull::Draw,
                Variant::Three | Variant::Six | Variant::Nine => BoardFull::Off,
            },
            no_placement: NoPlacement::Loss,
            placing_moves: false,
            placing_repeats: true,
        }
    }

    /// Whether the variant has removals at all, and so takes [`Options`] (Three Men's
    /// Morris does not: its first line wins).
    pub const fn has_removals(self) -> bool {
        !matches!(self, Variant::Three)
    }

    const fn topology(self) -> &'static Topology {
        match self {
            Variant::Three => &MORRIS_9,
            Variant::Six => &MORRIS_16,
            Variant::Nine => &MORRIS_24,
            Variant::Twelve => &MORRIS_24_DIAGONALS,
        }
    }

    const fn pieces(self) -> u8 {
        match self {
            Variant::Three => 3,
            Variant::Six => 6,
            Variant::Nine => 9,
            Variant::Twelve => 12,
        }
    }
}

impl From<Variant> for &'static Rules {
    /// The variant's usual rules.
    fn from(variant: Variant) -> &'static Rules {
        variant.rules()
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The rule options: who places first (every board), and on a board with removals how
/// removals, protection and flying work; then the extended options
/// ([`Rules::is_extended`]): the pieces each side has, the draws, and what a full board
/// does. [`Variant::default_options`] gives a variant's usual ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// The side that places first: Light (the usual rule, `light-first`) or Dark
    /// (`dark-first`, as some programs and the Mill Interchange Format allow).
    pub first: Color,
    /// Removals earned by a piece that closes several mills at once.
    pub removals: RemovalRule,
    /// Whether pieces in mills are protected while the owner has pieces outside mills.
    pub protect: bool,
    /// After placing, a side with this many pieces on the board or fewer flies (0: never).
    pub fly_at: u8,
    /// Pieces each side starts with in hand (`pieces-N`, from [`MIN_PIECES`] to
    /// [`MAX_PIECES`]).
    pub pieces: u8,
    /// Turns without a removal, after placing, that draw the game (`quiet-N`; 0: no
    /// such draw, and no count is kept).
    pub quiet_limit: u16,
    /// Whether the no-progress draw is automatic (`quiet-auto`) or claimed
    /// (`quiet-claim`).
    pub quiet_draw: DrawBy,
    /// Whether the draw by threefold repetition is automatic (`repetition-auto`) or
    /// claimed (`repetition-claim`).
    pub repetition_draw: DrawBy,
    /// What a full board does (`full-off`, `full-draw`, `full-light-loses`).
    pub board_full: BoardFull,
    /// What a side with pieces to place and no empty point suffers (`no-placement-loss`,
    /// `no-placement-draw`).
    pub no_placement: NoPlacement,
    /// Whether a side with pieces in hand may also move a piece to a neighbouring empty
    /// point instead of placing (`placing-moves`; MIF's `movementAllowed`).
    pub placing_moves: bool,
    /// Whether positions with the side to move still placing count toward repetition
    /// (`repetition-moving`: only moving positions do, MIF's `stable-moving-v1`). Only
    /// moves while placing can repeat such a position.
    pub placing_repeats: bool,
}

/// Why a rule set could not be made or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// Not one of `three`, `six`, `nine`, `twelve`.
    UnknownVariant(String),
    /// Not one of the options [`Rules::parse`] reads.
    UnknownOption(String),
    /// The variant has no removals, so its options cannot change.
    NoOptions(Variant),
    /// The flying threshold is above [`MAX_FLY_AT`].
    FlyAt {
        /// The variant.
        variant: Variant,
        /// The threshold asked for.
        fly_at: u8,
    },
    /// The pieces a side has are outside [`MIN_PIECES`]..=[`MAX_PIECES`].
    Pieces(u8),
    /// A rule set with extended options (its name), where only the table's are read
    /// ([`Rules::parse_table`], [`Rules::of_table`]).
    Extended(String),
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::UnknownVariant(s) => {
                write!(f, "unknown variant {s:?}: use three, six, nine or twelve")
            }
            RulesError::UnknownOption(s) => write!(
                f,
                "unknown rule option {s:?}: use per-mill, one, protect-on, protect-off, fly-N, light-first, dark-first, pieces-N, quiet-N, quiet-auto, quiet-claim, repetition-auto, repetition-claim, full-off, full-draw, full-light-loses, no-placement-loss, no-placement-draw, placing-moves, placing-places, repetition-moving or repetition-all"
            ),
            RulesError::NoOptions(v) => write!(
                f,
                "{v} men's morris has no removals (the first line wins), so its rule options cannot change"
            ),
            RulesError::FlyAt { variant, fly_at } => write!(
                f,
                "fly-at {fly_at} for {variant} men's morris: a side flies with at most {MAX_FLY_AT} pieces (0 for never)"
            ),
            RulesError::Pieces(n) => write!(
                f,
                "pieces-{n}: a side has from {MIN_PIECES} to {MAX_PIECES} pieces"
            ),
            RulesError::Extended(name) => write!(
                f,
                "{name} is not played here: only variants with their usual pieces, draws and full-board rule"
            ),
        }
    }
}

impl std::error::Error for RulesError {}

/// A complete rule set, a plain `Copy` value: [`Variant::rules`] and
/// [`Rules::parse_table`] lend the static table's entries, [`Rules::of`] and
/// [`Rules::parse`] make any rule set, extended or not. Two rule sets are equal when
/// their variant and options are.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// The game of the family.
    pub variant: Variant,
    /// Short machine name of the variant, like `nine`.
    pub name: &'static str,
    /// The board.
    pub topology: &'static Topology,
    /// Pieces each side starts with in hand.
    pub pieces: u8,
    /// After placing, a side with this many pieces on the board or fewer flies
    /// (0: nobody flies).
    pub fly_at: u8,
    /// A side with fewer pieces than this (board plus hand) has lost.
    pub lose_below: u8,
    /// The side that places first.
    pub first: Color,
    /// Whether closing a line wins the game at once instead of earning a removal
    /// (Three Men's Morris).
    pub mill_wins: bool,
    /// Removals earned by a piece that closes several mills at once.
    pub removals: RemovalRule,
    /// Whether pieces in mills are protected while the owner has pieces outside mills.
    pub protect_mills: bool,
    /// Turns without a removal, after placing, that draw the game (0: none, and the
    /// count of such turns is not kept: [`Rules::counts_quiet`]).
    pub quiet_limit: u16,
    /// Whether the no-progress draw is automatic or claimed.
    pub quiet_draw: DrawBy,
    /// Occurrences of the same position that draw the game.
    pub repetitions: u8,
    /// Whether the draw by repetition is automatic or claimed.
    pub repetition_draw: DrawBy,
    /// What a full board does.
    pub board_full: BoardFull,
    /// What a side with pieces to place and no empty point suffers.
    pub no_placement: NoPlacement,
    /// Whether a side with pieces in hand may move instead of placing.
    pub placing_moves: bool,
    /// Whether positions with the side to move still placing count toward repetition.
    pub placing_repeats: bool,
}

/// The highest flying threshold: the games of the family fly with three pieces, or four
/// in Twelve Men's Morris. It also bounds the turn lists: a flying side of four pieces
/// closes at most one mill per step, so a position never has more turns than
/// [`MAX_TURNS`](crate::MAX_TURNS).
pub const MAX_FLY_AT: u8 = 4;
/// The fewest pieces a side may start with (`pieces-N`): as many as a side needs not
/// to have lost.
pub const MIN_PIECES: u8 = 3;
/// The most pieces a side may start with (`pieces-N`): a hand of up to 15 fits the
/// positions' hash.
pub const MAX_PIECES: u8 = 15;
/// The usual no-progress limit: 100 turns after placing without a removal.
const QUIET_LIMIT: u16 = 100;
const MAX_FLY: usize = MAX_FLY_AT as usize;
/// The table's rule sets: every variant with every combination of the table's options
/// (first side, removals, protection, flying); their ids are their indexes.
const STANDARD: usize = 2 * 4 * 2 * 2 * (MAX_FLY + 1);

/// The table index of a rule set. Light-first rule sets keep the indexes they had
/// before the first player became an option; Dark-first ones follow them.
const fn index(variant: Variant, o: Options) -> usize {
    let removals = matches!(o.removals, RemovalRule::PerMill) as usize;
    let protect = o.protect as usize;
    let first = matches!(o.first, Color::Dark) as usize;
    ((((first * 4 + variant as usize) * 2) + removals) * 2 + protect) * (MAX_FLY + 1) + o.fly_at as usize
}

/// The rule set of `variant` with (valid, normalised) `options`.
#[inline]
const fn entry(variant: Variant, options: Options) -> Rules {
    Rules {
        variant,
        name: variant.name(),
        topology: variant.topology(),
        pieces: options.pieces,
        fly_at: options.fly_at,
        first: options.first,
        lose_below: Packed::LOSE_BELOW,
        mill_wins: !variant.has_removals(),
        removals: options.removals,
        protect_mills: options.protect,
        quiet_limit: options.quiet_limit,
        quiet_draw: options.quiet_draw,
        repetitions: 3,
        repetition_draw: options.repetition_draw,
        board_full: options.board_full,
        no_placement: options.no_placement,
        placing_moves: options.placing_moves,
        placing_repeats: options.placing_repeats,
    }
}

static TABLE: [Rules; STANDARD] = {
    const PLACEHOLDER: Rules = entry(Variant::Nine, Variant::Nine.default_options());
    let mut table = [PLACEHOLDER; STANDARD];
    let mut v = 0;
    while v < 2 * Variant::ALL.len() {
        let first = if v < Variant::ALL.len() {
            Color::Light
        } else {
            Color::Dark
        };
        let variant = Variant::ALL[v % Variant::ALL.len()];
        let mut r = 0;
        while r < 2 {
            let mut p = 0;
            while p < 2 {
                let mut fly = 0;
                while fly <= MAX_FLY {
                    let mut options = variant.default_options();
                    options.first = first;
                    options.removals = if r == 1 {
                        RemovalRule::PerMill
                    } else {
                        RemovalRule::One
                    };
                    options.protect = p == 1;
                    options.fly_at = fly as u8;
                    let i = index(variant, options);
                    table[i] = entry(variant, options);
                    fly += 1;
                }
                p += 1;
            }
            r += 1;
        }
        v += 1;
    }
    table
};

/// Nine Men's Morris exactly as `RULES.md` has it.
pub static NINE: &Rules = &TABLE[index(Variant::Nine, Variant::Nine.default_options())];

impl Rules {
    /// The rule set of `variant` played with `options`. Extended options that cannot
    /// change the game are taken as the variant's own: what a full board does when the
    /// pieces cannot fill it, what a side unable to place suffers when that cannot
    /// happen, whether the no-progress draw is claimed when there is none.
    pub fn of(variant: Variant, options: Options) -> Result<Rules, RulesError> {
        Ok(entry(variant, normalise(variant, options)?))
    }

    /// The rule set of `variant` with `options` if it is one of the table's (see
    /// [`Rules::of`]); a rule set with extended options is refused with
    /// [`RulesError::Extended`] (the server's rooms and the page play only these).
    pub fn of_table(variant: Variant, options: Options) -> Result<&'static Rules, RulesError> {
        let options = normalise(variant, options)?;
        table_entry(variant, options).ok_or_else(|| {
            let mut name = String::new();
            let _ = write_name(&mut name, variant, options);
            RulesError::Extended(name)
        })
    }
}

/// `options` for `variant` checked, with the extended options that cannot change the
/// game set to the variant's own (see [`Rules::of`]).
fn normalise(variant: Variant, options: Options) -> Result<Options, RulesError> {
    let usual = variant.default_options();
    let mut options = options;
    if !variant.has_removals()
        && (Options {
            first: usual.first,
            ..options
        }) != usual
    {
        return Err(RulesError::NoOptions(variant));
    }
    if options.fly_at > MAX_FLY_AT {
        return Err(RulesError::FlyAt {
            variant,
            fly_at: options.fly_at,
        });
    }
    if !(MIN_PIECES..=MAX_PIECES).contains(&options.pieces) {
        return Err(RulesError::Pieces(options.pieces));
    }
    let points = variant.topology().len();
    let pieces = usize::from(options.pieces);
    if 2 * pieces < points {
        options.board_full = usual.board_full;
    }
    if 2 * pieces <= points || options.board_full != BoardFull::Off {
        options.no_placement = usual.no_placement;
    }
    if options.quiet_limit == 0 {
        options.quiet_draw = usual.quiet_draw;
    }
    if !options.placing_moves {
        options.placing_repeats = usual.placing_repeats;
    }
    Ok(options)
}

/// The table's rule set of `variant` with normalised `options`, if they are the table's
/// options (no extended one differs from the variant's).
fn table_entry(variant: Variant, options: Options) -> Option<&'static Rules> {
    let standard = Options {
        first: options.first,
        removals: options.removals,
        protect: options.protect,
        fly_at: options.fly_at,
        ..variant.default_options()
    };
    (options == standard).then(|| &TABLE[index(variant, options)])
}

impl Rules {
    /// Reads a rule set written as [`Rules`]' `Display` writes it: the variant's name,
    /// then `+`-separated options that differ from its defaults: `per-mill` (or `one`),
    /// `protect-off` (or `protect-on`), `fly-N`, `dark-first` (or `light-first`), and
    /// the extended ones: `pieces-N`, `quiet-N` (`quiet-0`: no no-progress draw),
    /// `quiet-claim` (or `quiet-auto`), `repetition-claim` (or `repetition-auto`),
    /// `full-draw`, `full-light-loses` or `full-off`, `no-placement-draw` (or
    /// `no-placement-loss`), `placing-moves` (or `placing-places`), `repetition-moving`
    /// (or `repetition-all`). For example `six+per-mill+fly-0`.
    pub fn parse(text: &str) -> Result<Rules, RulesError> {
        let (variant, options) = parse_options(text)?;
        Rules::of(variant, options)
    }

    /// [`Rules::parse`] for input that may name only the table's rule sets (the rule
    /// sets the server and the page offer): a name with extended options is refused with
    /// [`RulesError::Extended`] (see [`Rules::of_table`]).
    pub fn parse_table(text: &str) -> Result<&'static Rules, RulesError> {
        let (variant, options) = parse_options(text)?;
        Rules::of_table(variant, options)
    }
}

/// The variant and options a rule-set name spells (see [`Rules::parse`]), not yet
/// checked.
fn parse_options(text: &str) -> Result<(Variant, Options), RulesError> {
    let mut parts = text.split('+');
    let name = parts.next().unwrap_or_default();
    let variant = Variant::from_name(name).ok_or_else(|| RulesError::UnknownVariant(name.to_string()))?;
    let mut options = variant.default_options();
    for part in parts {
        let unknown = || RulesError::UnknownOption(part.to_string());
        if let Some(rule) = RemovalRule::from_name(part) {
            options.removals = rule;
        } else if part == "light-first" || part == "dark-first" {
            options.first = if part == "dark-first" {
                Color::Dark
            } else {
                Color::Light
            };
        } else if part == "protect-on" || part == "protect-off" {
            options.protect = part == "protect-on";
        } else if let Some(n) = part.strip_prefix("fly-") {
            options.fly_at = number(n).ok_or_else(unknown)?;
        } else if let Some(n) = part.strip_prefix("pieces-") {
            options.pieces = number(n).ok_or_else(unknown)?;
        } else if let Some(rest) = part.strip_prefix("quiet-") {
            match DrawBy::from_name(rest) {
                Some(by) => options.quiet_draw = by,
                None => options.quiet_limit = number(rest).ok_or_else(unknown)?,
            }
        } else if part == "repetition-moving" || part == "repetition-all" {
            options.placing_repeats = part == "repetition-all";
        } else if let Some(rest) = part.strip_prefix("repetition-") {
            options.repetition_draw = DrawBy::from_name(rest).ok_or_else(unknown)?;
        } else if let Some(rest) = part.strip_prefix("full-") {
            options.board_full = BoardFull::from_name(rest).ok_or_else(unknown)?;
        } else if let Some(rest) = part.strip_prefix("no-placement-") {
            options.no_placement = NoPlacement::from_name(rest).ok_or_else(unknown)?;
        } else if part == "placing-moves" || part == "placing-places" {
            options.placing_moves = part == "placing-moves";
        } else {
            return Err(unknown());
        }
    }
    Ok((variant, options))
}

impl Rules {
    /// The options this rule set is played with.
    pub const fn options(&self) -> Options {
        Options {
            first: self.first,
            removals: self.removals,
            protect: self.protect_mills,
            fly_at: self.fly_at,
            pieces: self.pieces,
            quiet_limit: self.quiet_limit,
            quiet_draw: self.quiet_draw,
            repetition_draw: self.repetition_draw,
            board_full: self.board_full,
            no_placement: self.no_placement,
            placing_moves: self.placing_moves,
            placing_repeats: self.placing_repeats,
        }
    }

    /// Whether these are the variant's usual rules, without changed options.
    pub fn is_default(&self) -> bool {
        self.options() == self.variant.default_options()
    }

    /// Whether the rule set uses an extended option (other pieces, other draws, another
    /// full-board rule): one the server and the page do not offer, read from a rule-set
    /// name or a MIF manifest.
    pub fn is_extended(&self) -> bool {
        table_entry(self.variant, self.options()).is_none()
    }

    /// The rule set packed as a position carries it.
    #[inline]
    pub(crate) fn pack(&self) -> Packed {
        let bit = |on: bool, flag: u8| if on { flag } else { 0 };
        let flags = bit(matches!(self.removals, RemovalRule::PerMill), PER_MILL)
            | bit(self.protect_mills, PROTECT)
            | bit(self.placing_moves, PLACING_MOVES)
            | bit(matches!(self.first, Color::Dark), DARK_FIRST)
            | bit(self.placing_repeats, PLACING_REPEATS)
            | bit(matches!(self.quiet_draw, DrawBy::Claim), QUIET_CLAIM)
            | bit(matches!(self.repetition_draw, DrawBy::Claim), REPETITION_CLAIM)
            | bit(matches!(self.no_placement, NoPlacement::Draw), NO_PLACEMENT_DRAW);
        Packed {
            variant: self.variant,
            fly_at: self.fly_at,
            pieces: self.pieces,
            flags,
            board_full: self.board_full,
            quiet_limit: self.quiet_limit,
        }
    }

    /// The board of this rule set.
    #[inline]
    pub fn topology(&self) -> &'static Topology {
        self.topology
    }

    /// Whether a side out of hand with `on_board` pieces on the board flies (moves to any
    /// empty point). The one statement of the flying rule: positions
    /// ([`Position::flies`](crate::Position::flies)), the engine and the tablebase call it.
    #[inline]
    pub fn flies_with(&self, on_board: u32) -> bool {
        on_board <= u32::from(self.fly_at)
    }

    /// Which of a side's `pieces` (a bitboard) its opponent may remove: the pieces
    /// outside mills, or all of them when every one stands in a mill or protection is
    /// off. The one statement of the protection rule; positions and the tablebase call it.
    #[inline]
    pub fn removable(&self, pieces: u32) -> u32 {
        if !self.protect_mills {
            return pieces;
        }
        let free = pieces & !self.topology.in_mills(pieces);
        if free != 0 { free } else { pieces }
    }

    /// Whether a position that has occurred `occurrences` times (see
    /// [`Position::occurrences`](crate::Position::occurrences)) draws the game — by
    /// itself, or when claimed under [`DrawBy::Claim`].
    #[inline]
    pub fn repetition_draws(&self, occurrences: usize) -> bool {
        occurrences >= self.repetitions as usize
    }

    /// Whether turns without a removal are counted toward a no-progress draw: not when
    /// the rules have none (`quiet-0`).
    #[inline]
    pub const fn counts_quiet(&self) -> bool {
        self.quiet_limit > 0
    }

    /// Whether `quiet` turns without a removal reach the no-progress draw, automatic or
    /// claimed.
    #[inline]
    pub const fn quiet_reached(&self, quiet: u16) -> bool {
        self.quiet_limit > 0 && quiet >= self.quiet_limit
    }

    /// Whether `quiet` turns without a removal end the game by themselves.
    #[inline]
    pub fn quiet_draws(&self, quiet: u16) -> bool {
        self.quiet_reached(quiet) && self.quiet_draw == DrawBy::Automatic
    }

    /// The most removals one turn can earn under these rules.
    pub fn max_removals(&self) -> u8 {
        if self.mill_wins {
            return 0;
        }
        match self.removals {
            RemovalRule::One => 1,
            RemovalRule::PerMill => self.topology.max_lines_through() as u8,
        }
    }
}

/// A rule option's number: decimal digits without sign, within the option's type.
fn number<T: core::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl PartialEq for Rules {
    fn eq(&self, other: &Rules) -> bool {
        self.pack() == other.pack()
    }
}

impl Eq for Rules {}

/// A table entry ([`NINE`], [`Variant::rules`]) and a value compare as rule sets.
impl PartialEq<&Rules> for Rules {
    fn eq(&self, other: &&Rules) -> bool {
        *self == **other
    }
}

impl PartialEq<Rules> for &Rules {
    fn eq(&self, other: &Rules) -> bool {
        **self == *other
    }
}

impl Hash for Rules {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.pack().hash(state);
    }
}

impl From<&Rules> for Rules {
    fn from(rules: &Rules) -> Rules {
        *rules
    }
}

impl From<Variant> for Rules {
    /// The variant's usual rules.
    fn from(variant: Variant) -> Rules {
        *variant.rules()
    }
}

/// Each variant's board, by `Variant as usize`.
static BOARDS: [&Topology; 4] = [&MORRIS_9, &MORRIS_16, &MORRIS_24, &MORRIS_24_DIAGONALS];

const PER_MILL: u8 = 1;
const PROTECT: u8 = 2;
const PLACING_MOVES: u8 = 4;
const DARK_FIRST: u8 = 8;
const PLACING_REPEATS: u8 = 16;
const QUIET_CLAIM: u8 = 32;
const REPETITION_CLAIM: u8 = 64;
const NO_PLACEMENT_DRAW: u8 = 128;

/// A rule set as a [`Position`](crate::Position) carries it: every option in eight
/// bytes, no registry and no lookup. Move generation reads the variant (the board),
/// the flying threshold and the flags directly; [`Packed::unpack`] gives the whole
/// [`Rules`] back (its adjudication options included: the position's string names
/// them, and [`Position::outcome`](crate::Position::outcome) applies the board's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Packed {
    variant: Variant,
    fly_at: u8,
    pieces: u8,
    flags: u8,
    board_full: BoardFull,
    quiet_limit: u16,
}

impl Packed {
    /// A side with fewer pieces than this (board plus hand) has lost, in every rule set.
    pub(crate) const LOSE_BELOW: u8 = 3;

    /// The game of the family.
    #[inline]
    pub(crate) const fn variant(self) -> Variant {
        self.variant
    }

    /// The rule set.
    #[inline]
    pub(crate) const fn unpack(self) -> Rules {
        let f = self.flags;
        entry(
            self.variant,
            Options {
                first: if f & DARK_FIRST != 0 {
                    Color::Dark
                } else {
                    Color::Light
                },
                removals: if f & PER_MILL != 0 {
                    RemovalRule::PerMill
                } else {
                    RemovalRule::One
                },
                protect: f & PROTECT != 0,
                fly_at: self.fly_at,
                pieces: self.pieces,
                quiet_limit: self.quiet_limit,
                quiet_draw: if f & QUIET_CLAIM != 0 {
                    DrawBy::Claim
                } else {
                    DrawBy::Automatic
                },
                repetition_draw: if f & REPETITION_CLAIM != 0 {
                    DrawBy::Claim
                } else {
                    DrawBy::Automatic
                },
                board_full: self.board_full,
                no_placement: if f & NO_PLACEMENT_DRAW != 0 {
                    NoPlacement::Draw
                } else {
                    NoPlacement::Loss
                },
                placing_moves: f & PLACING_MOVES != 0,
                placing_repeats: f & PLACING_REPEATS != 0,
            },
        )
    }

    /// The board, loaded from a table indexed by the variant rather than chosen by a
    /// `match`: given the four boards as constants, the compiler specialises move
    /// generation for each and spills registers in the loops perft and the search run.
    #[inline]
    pub(crate) fn topology(self) -> &'static Topology {
        BOARDS[self.variant as usize]
    }

    /// See [`Rules::placing_moves`].
    #[inline]
    pub(crate) const fn placing_moves(self) -> bool {
        self.flags & PLACING_MOVES != 0
    }

    /// See [`Rules::flies_with`].
    #[inline]
    pub(crate) const fn flies_with(self, on_board: u32) -> bool {
        on_board <= self.fly_at as u32
    }

    /// See [`Rules::counts_quiet`].
    #[inline]
    pub(crate) const fn counts_quiet(self) -> bool {
        self.quiet_limit > 0
    }

    /// See [`Rules::quiet_draws`].
    #[inline]
    pub(crate) const fn quiet_draws(self, quiet: u16) -> bool {
        self.quiet_limit > 0 && quiet >= self.quiet_limit && self.flags & QUIET_CLAIM == 0
    }

    /// See [`Rules::mill_wins`].
    #[inline]
    pub(crate) const fn mill_wins(self) -> bool {
        !self.variant.has_removals()
    }

    /// Whether a piece closing several mills earns a removal per mill.
    #[inline]
    pub(crate) const fn per_mill(self) -> bool {
        self.flags & PER_MILL != 0
    }

    /// See [`Rules::removable`].
    #[inline]
    pub(crate) fn removable(self, pieces: u32) -> u32 {
        if self.flags & PROTECT == 0 {
            return pieces;
        }
        let free = pieces & !self.topology().in_mills(pieces);
        if free != 0 { free } else { pieces }
    }
}

impl fmt::Display for Rules {
    /// `nine`, `six+per-mill`, `twelve+protect-off+fly-0`: only options that differ
    /// from the variant's defaults are written, extended ones last.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(f, self.variant, self.options())
    }
}

/// The name of the rule set of `variant` with (normalised) `options`, as [`Rules`]'
/// `Display` writes it.
fn write_name(f: &mut impl fmt::Write, variant: Variant, options: Options) -> fmt::Result {
    f.write_str(variant.name())?;
    let default = variant.default_options();
    if options.removals != default.removals {
        write!(f, "+{}", options.removals.name())?;
    }
    if options.protect != default.protect {
        f.write_str(if options.protect {
            "+protect-on"
        } else {
            "+protect-off"
        })?;
    }
    if options.fly_at != default.fly_at {
        write!(f, "+fly-{}", options.fly_at)?;
    }
    if options.first != default.first {
        write!(f, "+{}-first", options.first.name())?;
    }
    if options.pieces != default.pieces {
        write!(f, "+pieces-{}", options.pieces)?;
    }
    if options.quiet_limit != default.quiet_limit {
        write!(f, "+quiet-{}", options.quiet_limit)?;
    }
    if options.quiet_draw != default.quiet_draw {
        write!(f, "+quiet-{}", options.quiet_draw.name())?;
    }
    if options.repetition_draw != default.repetition_draw {
        write!(f, "+repetition-{}", options.repetition_draw.name())?;
    }
    if options.board_full != default.board_full {
        write!(f, "+full-{}", options.board_full.name())?;
    }
    if options.no_placement != default.no_placement {
        write!(f, "+no-placement-{}", options.no_placement.name())?;
    }
    if options.placing_moves != default.placing_moves {
        f.write_str("+placing-moves")?;
    }
    if options.placing_repeats != default.placing_repeats {
        f.write_str("+repetition-moving")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_set_round_trips_through_its_name() {
        for variant in Variant::ALL {
            let default = variant.rules();
            assert_eq!(default.variant, variant);
            assert!(default.is_default());
            assert_eq!(default.to_string(), variant.name());
            for (removals, protect, fly_at, first) in [RemovalRule::One, RemovalRule::PerMill]
                .into_iter()
                .flat_map(|r| [true, false].map(|p| (r, p)))
                .flat_map(|(r, p)| (0..=MAX_FLY_AT).map(move |f| (r, p, f)))
                .flat_map(|(r, p, f)| Color::ALL.map(|c| (r, p, f, c)))
            {
                let options = Options {
                    first,
                    removals,
                    protect,
                    fly_at,
                    ..variant.default_options()
                };
                let Ok(rules) = Rules::of(variant, options) else {
                    assert!(!variant.has_removals());
                    continue;
                };
                assert_eq!(rules.options(), options);
                assert_eq!(rules.first, first);
                assert_eq!(Rules::parse(&rules.to_string()), Ok(rules));
                assert_eq!(rules.pack().unpack(), rules);
                assert_eq!(rules.pack().unpack().options(), options);
                assert!(!rules.is_extended(), "{rules}");
            }
        }
        assert_eq!(NINE.to_string(), "nine");
        assert_eq!(NINE.fly_at, 3);
        assert_eq!(Variant::Twelve.rules().fly_at, 4);
        assert_eq!(NINE.first, Color::Light);
        let dark_first = Rules::parse("nine+dark-first").unwrap();
        assert_eq!(dark_first.first, Color::Dark);
        assert_eq!(dark_first.to_string(), "nine+dark-first");
        assert_eq!(Rules::parse("three+dark-first").unwrap().first, Color::Dark);
        assert_eq!(Rules::parse("nine+light-first"), Ok(*NINE));
    }

    #[test]
    fn bad_rule_sets_say_what_is_wrong() {
        assert_eq!(Rules::parse("ten"), Err(RulesError::UnknownVariant("ten".into())));
        assert_eq!(
            Rules::parse("six+fast"),
            Err(RulesError::UnknownOption("fast".into()))
        );
        assert_eq!(
            Rules::parse("six+fly-x"),
            Err(RulesError::UnknownOption("fly-x".into()))
        );
        assert_eq!(
            Rules::parse("three+per-mill"),
            Err(RulesError::NoOptions(Variant::Three))
        );
        assert_eq!(
            Rules::parse("six+fly-5"),
            Err(RulesError::FlyAt {
                variant: Variant::Six,
                fly_at: 5
            })
        );
        assert!(Rules::parse("three").is_ok());
        for e in [Rules::parse("ten"), Rules::parse("three+fly-3")] {
            assert!(!e.unwrap_err().to_string().is_empty());
        }
    }

    #[test]
    fn extended_options_make_rule_sets_of_their_own() {
        let twelve_orthogonal = Rules::parse("nine+pieces-12").unwrap();
        assert!(twelve_orthogonal.is_extended());
        assert_eq!(twelve_orthogonal.pieces, 12);
        assert!(core::ptr::eq(twelve_orthogonal.topology, NINE.topology));
        assert_eq!(twelve_orthogonal.board_full, BoardFull::Off);
        assert_eq!(twelve_orthogonal.to_string(), "nine+pieces-12");
        assert_ne!(twelve_orthogonal, *Variant::Twelve.rules());
        // Asked again, in any spelling: the same rule set, not another one.
        assert_eq!(Rules::parse("nine+full-off+pieces-12"), Ok(twelve_orthogonal));
        assert_eq!(twelve_orthogonal.pack().unpack(), twelve_orthogonal);
        assert_eq!(
            twelve_orthogonal.pack().unpack().options(),
            twelve_orthogonal.options()
        );

        let claims = Rules::parse(
            "twelve+dark-first+quiet-0+repetition-claim+full-light-loses+pieces-13+no-placement-draw",
        )
        .unwrap();
        assert_eq!(
            (
                claims.quiet_limit,
                claims.repetition_draw,
                claims.board_full,
                claims.pieces,
                claims.first
            ),
            (0, DrawBy::Claim, BoardFull::LightLoses, 13, Color::Dark)
        );
        // A full-board rule settles a full board first, so what a side that cannot place
        // suffers is the usual.
        assert_eq!(claims.no_placement, NoPlacement::Loss);
        assert_eq!(
            claims.to_string(),
            "twelve+dark-first+pieces-13+quiet-0+repetition-claim+full-light-loses"
        );
        assert_eq!(Rules::parse(&claims.to_string()), Ok(claims));
        assert!(!claims.counts_quiet() && !claims.quiet_reached(500) && !claims.quiet_draws(500));

        let stuck = Rules::parse("nine+pieces-13+no-placement-draw").unwrap();
        assert_eq!(stuck.no_placement, NoPlacement::Draw);
        let claimed = Rules::parse("nine+quiet-50+quiet-claim").unwrap();
        assert!(claimed.quiet_reached(50) && !claimed.quiet_draws(50) && !claimed.quiet_reached(49));
        assert!(NINE.quiet_draws(100) && !NINE.quiet_draws(99) && NINE.counts_quiet());
    }

    #[test]
    fn extended_options_that_change_nothing_are_the_variants_own() {
        // Nine's 18 pieces never fill 24 points, and without a no-progress draw there
        // is nothing to claim.
        assert_eq!(Rules::parse("nine+full-draw"), Ok(*NINE));
        assert_eq!(Rules::parse("nine+no-placement-draw+quiet-100"), Ok(*NINE));
        assert_eq!(
            Rules::parse("nine+quiet-0+quiet-claim").unwrap().to_string(),
            "nine+quiet-0"
        );
        assert_eq!(
            Rules::parse("twelve+pieces-12+full-draw+repetition-auto"),
            Ok(*Variant::Twelve.rules())
        );
        // Twelve pieces fill the orthogonal board, but cannot leave a side to place
        // with no point left.
        assert_eq!(
            Rules::parse("nine+pieces-12+no-placement-draw")
                .unwrap()
                .no_placement,
            NoPlacement::Loss
        );
    }

    #[test]
    fn extended_options_are_checked() {
        assert_eq!(Rules::parse("nine+pieces-2"), Err(RulesError::Pieces(2)));
        assert_eq!(Rules::parse("nine+pieces-16"), Err(RulesError::Pieces(16)));
        assert_eq!(
            Rules::parse("nine+pieces-x"),
            Err(RulesError::UnknownOption("pieces-x".into()))
        );
        assert_eq!(
            Rules::parse("nine+quiet-70000"),
            Err(RulesError::UnknownOption("quiet-70000".into()))
        );
        assert_eq!(
            Rules::parse("nine+repetition-sometimes"),
            Err(RulesError::UnknownOption("repetition-sometimes".into()))
        );
        assert_eq!(
            Rules::parse("nine+full-both-remove"),
            Err(RulesError::UnknownOption("full-both-remove".into()))
        );
        assert_eq!(
            Rules::parse("three+pieces-4"),
            Err(RulesError::NoOptions(Variant::Three))
        );
        assert_eq!(
            Rules::parse("three+quiet-claim"),
            Err(RulesError::NoOptions(Variant::Three))
        );
        for e in [RulesError::Pieces(1), RulesError::NoOptions(Variant::Three)] {
            assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn the_tables_reader_refuses_extended_options_without_making_them() {
        for name in [
            "nine",
            "six+per-mill+fly-0",
            "twelve+dark-first",
            "three",
            "nine+quiet-100",
        ] {
            assert_eq!(Rules::parse_table(name).copied(), Rules::parse(name), "{name}");
        }
        // Options that change nothing are the variant's own here too.
        assert_eq!(Rules::parse_table("nine+full-draw"), Ok(NINE));
        // Spelled in any order, refused under the normalised name; errors as parse's.
        let asked = Options {
            quiet_limit: 12345,
            pieces: 11,
            ..Variant::Nine.default_options()
        };
        assert_eq!(
            Rules::parse_table("nine+quiet-12345+pieces-11"),
            Err(RulesError::Extended("nine+pieces-11+quiet-12345".into()))
        );
        assert_eq!(
            Rules::of_table(Variant::Nine, asked),
            Err(RulesError::Extended("nine+pieces-11+quiet-12345".into()))
        );
        assert!(
            !Rules::parse_table("six+quiet-auto+repetition-auto")
                .unwrap()
                .is_extended()
        );
        assert_eq!(
            Rules::parse_table("ten"),
            Err(RulesError::UnknownVariant("ten".into()))
        );
        assert_eq!(Rules::parse_table("nine+pieces-2"), Err(RulesError::Pieces(2)));
        assert!(
            !RulesError::Extended("nine+pieces-11".into())
                .to_string()
                .is_empty()
        );
    }
}
