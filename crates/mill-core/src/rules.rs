//! Rule sets as data: a board plus the numbers and options that vary between the
//! historical relatives of the game.
//!
//! A [`Variant`] names a game of the family (Three, Six, Nine or Twelve Men's Morris)
//! with its board and its usual numbers; [`Options`] are the choices a player may change
//! on a board with removals (how many removals a double mill earns, whether mills
//! protect, when a side flies). Every combination is one [`Rules`] value in a static
//! table, so a [`Position`](crate::Position) carries its rules as a one-byte index and
//! the rest of the crate reads every number from here.
//!
//! A rule set is written `nine`, `six+per-mill`, `twelve+protect-off+fly-0`: the variant,
//! then each option that differs from the variant's default (see [`Rules::parse`]).

use crate::topology::{MORRIS_9, MORRIS_16, MORRIS_24, MORRIS_24_DIAGONALS, Topology};
use core::fmt;

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
            removals: RemovalRule::One,
            protect: true,
            fly_at: match self {
                Variant::Three => 0,
                Variant::Six | Variant::Nine => 3,
                Variant::Twelve => 4,
            },
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

/// The rule options of a board with removals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub struct Options {
    /// Removals earned by a piece that closes several mills at once.
    pub removals: RemovalRule,
    /// Whether pieces in mills are protected while the owner has pieces outside mills.
    pub protect: bool,
    /// After placing, a side with this many pieces on the board or fewer flies (0: never).
    pub fly_at: u8,
}

/// Why a rule set could not be made or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// Not one of `three`, `six`, `nine`, `twelve`.
    UnknownVariant(String),
    /// Not one of `per-mill`, `one`, `protect-on`, `protect-off`, `fly-N`.
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
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::UnknownVariant(s) => {
                write!(f, "unknown variant {s:?}: use three, six, nine or twelve")
            }
            RulesError::UnknownOption(s) => write!(
                f,
                "unknown rule option {s:?}: use per-mill, one, protect-on, protect-off or fly-N"
            ),
            RulesError::NoOptions(v) => write!(
                f,
                "{v} men's morris has no removals (the first line wins), so its rule options cannot change"
            ),
            RulesError::FlyAt { variant, fly_at } => write!(
                f,
                "fly-at {fly_at} for {variant} men's morris: a side flies with at most {MAX_FLY_AT} pieces (0 for never)"
            ),
        }
    }
}

impl std::error::Error for RulesError {}

/// A complete rule set: one entry of the static table, reached through
/// [`Variant::rules`], [`Rules::of`] or [`Rules::parse`].
#[derive(Debug)]
pub struct Rules {
    id: u8,
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
    /// Whether closing a line wins the game at once instead of earning a removal
    /// (Three Men's Morris).
    pub mill_wins: bool,
    /// Removals earned by a piece that closes several mills at once.
    pub removals: RemovalRule,
    /// Whether pieces in mills are protected while the owner has pieces outside mills.
    pub protect_mills: bool,
    /// Turns without a removal, after placing, that draw the game.
    pub quiet_limit: u16,
    /// Occurrences of the same position that draw the game.
    pub repetitions: u8,
}

/// The highest flying threshold: the games of the family fly with three pieces, or four
/// in Twelve Men's Morris. It also bounds the turn lists: a flying side of four pieces
/// closes at most one mill per step, so a position never has more turns than
/// [`MAX_TURNS`](crate::MAX_TURNS).
pub const MAX_FLY_AT: u8 = 4;
const MAX_FLY: usize = MAX_FLY_AT as usize;
/// Every combination has an entry; the table is padded to 256 so that indexing it with
/// a position's `u8` needs no bounds check (the unused entries are never handed out).
const TABLE_LEN: usize = 256;
const _: () = assert!(4 * 2 * 2 * (MAX_FLY + 1) <= TABLE_LEN);

const fn index(variant: Variant, o: Options) -> usize {
    let removals = matches!(o.removals, RemovalRule::PerMill) as usize;
    let protect = o.protect as usize;
    (((variant as usize * 2) + removals) * 2 + protect) * (MAX_FLY + 1) + o.fly_at as usize
}

static TABLE: [Rules; TABLE_LEN] = {
    const PLACEHOLDER: Rules = Rules {
        id: 0,
        variant: Variant::Nine,
        name: "",
        topology: &MORRIS_24,
        pieces: 0,
        fly_at: 0,
        lose_below: 0,
        mill_wins: false,
        removals: RemovalRule::One,
        protect_mills: true,
        quiet_limit: 0,
        repetitions: 0,
    };
    let mut table = [PLACEHOLDER; TABLE_LEN];
    let mut v = 0;
    while v < Variant::ALL.len() {
        let variant = Variant::ALL[v];
        let mut r = 0;
        while r < 2 {
            let mut p = 0;
            while p < 2 {
                let mut fly = 0;
                while fly <= MAX_FLY {
                    let options = Options {
                        removals: if r == 1 {
                            RemovalRule::PerMill
                        } else {
                            RemovalRule::One
                        },
                        protect: p == 1,
                        fly_at: fly as u8,
                    };
                    let i = index(variant, options);
                    table[i] = Rules {
                        id: i as u8,
                        variant,
                        name: variant.name(),
                        topology: variant.topology(),
                        pieces: variant.pieces(),
                        fly_at: fly as u8,
                        lose_below: 3,
                        mill_wins: !variant.has_removals(),
                        removals: options.removals,
                        protect_mills: options.protect,
                        quiet_limit: 100,
                        repetitions: 3,
                    };
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
    /// The rule set of `variant` played with `options`.
    pub fn of(variant: Variant, options: Options) -> Result<&'static Rules, RulesError> {
        if !variant.has_removals() && options != variant.default_options() {
            return Err(RulesError::NoOptions(variant));
        }
        if options.fly_at > MAX_FLY_AT {
            return Err(RulesError::FlyAt {
                variant,
                fly_at: options.fly_at,
            });
        }
        Ok(&TABLE[index(variant, options)])
    }

    /// Reads a rule set written as [`Rules`]' `Display` writes it: the variant's name,
    /// then `+`-separated options that differ from its defaults: `per-mill` (or `one`),
    /// `protect-off` (or `protect-on`), `fly-N`. For example `six+per-mill+fly-0`.
    pub fn parse(text: &str) -> Result<&'static Rules, RulesError> {
        let mut parts = text.split('+');
        let name = parts.next().unwrap_or_default();
        let variant = Variant::from_name(name).ok_or_else(|| RulesError::UnknownVariant(name.to_string()))?;
        let mut options = variant.default_options();
        for part in parts {
            if let Some(rule) = RemovalRule::from_name(part) {
                options.removals = rule;
            } else if part == "protect-on" || part == "protect-off" {
                options.protect = part == "protect-on";
            } else if let Some(n) = part.strip_prefix("fly-").and_then(|n| n.parse::<u8>().ok()) {
                options.fly_at = n;
            } else {
                return Err(RulesError::UnknownOption(part.to_string()));
            }
        }
        Rules::of(variant, options)
    }

    /// The table entry with this index, known to be valid (a position's own).
    #[inline]
    pub(crate) fn by_id(id: u8) -> &'static Rules {
        &TABLE[id as usize]
    }

    /// The table entry with this index ([`Rules::id`]), if any.
    pub fn from_id(id: u8) -> Option<&'static Rules> {
        TABLE.get(id as usize).filter(|r| r.id == id && r.pieces > 0)
    }

    /// This rule set's index in the table: a compact, stable-within-a-build handle.
    #[inline]
    pub const fn id(&self) -> u8 {
        self.id
    }

    /// The options this rule set is played with.
    pub const fn options(&self) -> Options {
        Options {
            removals: self.removals,
            protect: self.protect_mills,
            fly_at: self.fly_at,
        }
    }

    /// Whether these are the variant's usual rules, without changed options.
    pub fn is_default(&self) -> bool {
        self.options() == self.variant.default_options()
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
    /// [`Position::occurrences`](crate::Position::occurrences)) draws the game.
    #[inline]
    pub fn repetition_draws(&self, occurrences: usize) -> bool {
        occurrences >= self.repetitions as usize
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

impl PartialEq for Rules {
    fn eq(&self, other: &Rules) -> bool {
        self.id == other.id
    }
}

impl Eq for Rules {}

impl fmt::Display for Rules {
    /// `nine`, `six+per-mill`, `twelve+protect-off+fly-0`: only options that differ
    /// from the variant's defaults are written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        let default = self.variant.default_options();
        if self.removals != default.removals {
            write!(f, "+{}", self.removals.name())?;
        }
        if self.protect_mills != default.protect {
            f.write_str(if self.protect_mills {
                "+protect-on"
            } else {
                "+protect-off"
            })?;
        }
        if self.fly_at != default.fly_at {
            write!(f, "+fly-{}", self.fly_at)?;
        }
        Ok(())
    }
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
            for removals in [RemovalRule::One, RemovalRule::PerMill] {
                for protect in [true, false] {
                    for fly_at in 0..=MAX_FLY_AT {
                        let options = Options {
                            removals,
                            protect,
                            fly_at,
                        };
                        let Ok(rules) = Rules::of(variant, options) else {
                            assert!(!variant.has_removals());
                            continue;
                        };
                        assert_eq!(rules.options(), options);
                        assert_eq!(Rules::parse(&rules.to_string()), Ok(rules));
                        assert_eq!(Rules::from_id(rules.id()), Some(rules));
                    }
                }
            }
        }
        assert_eq!(NINE.to_string(), "nine");
        assert_eq!(NINE.fly_at, 3);
        assert_eq!(Variant::Twelve.rules().fly_at, 4);
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
}
