//! A position: pieces on the board and in hand, the side to move, a pending removal and
//! the count toward the 100-turn draw. It generates and plays turns and actions.
//!
//! A [`Position`] is always consistent: it is reached only from the start, by legal play,
//! or from a position string through validation. Repetition needs history, which a
//! position does not carry: [`Game`](crate::Game) keeps it.
//!
//! # Position strings
//!
//! One line of six or seven space-separated parts, for example the start positions of
//! Nine and Six Men's Morris:
//!
//! ```text
//! .../.../.../....../.../.../... l 9 9 0 0
//! .../.../..../.../... l 6 6 0 0 six
//! ```
//!
//! 1. the board, its highest rank first down to rank 1 (ranks without points are left
//!    out), ranks separated by `/`, each rank's points left to right: `L` a Light
//!    piece, `D` a Dark piece, `.` empty;
//! 2. the side to move, `l` or `d` (during a pending removal, the side that removes);
//! 3. Light's pieces in hand; 4. Dark's pieces in hand;
//! 5. removals still owed by the side to move this turn (`0` at turn boundaries);
//! 6. turns without a removal since placing ended (toward the 100-turn draw; under
//!    rules without a no-progress draw, `quiet-0`, a number carried as it is);
//! 7. the rule set, as [`Rules`]' `Display` writes it (`six`, `twelve+per-mill`),
//!    left out for Nine Men's Morris with its usual rules.

use crate::bitboard::{Bitboard, Point};
use crate::color::Color;
use crate::error::{PlayError, PositionError};
use crate::outcome::{DrawReason, Outcome, WinReason};
use crate::rules::{BoardFull, DrawBy, NoPlacement, Packed, Rules, Variant};
use crate::topology::{MAX_POINTS, Topology};
use crate::turn::{Action, Turn, TurnList};
use arrayvec::ArrayVec;
use core::fmt;
use core::str::FromStr;
mod repetition;
mod text;
pub use repetition::EarlierOccurrences;

/// The phase a side is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Phase {
    /// Pieces in hand: the side places.
    Placing,
    /// The side moves pieces to adjacent points.
    Moving,
    /// The side is down to the flying threshold and may move to any empty point.
    Flying,
}

const MAX_HAND: usize = 16;

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

struct Zobrist {
    pieces: [[u64; MAX_POINTS]; 2],
    hand: [[u64; MAX_HAND]; 2],
    dark_to_move: u64,
    pending: [u64; 8],
}

const ZOBRIST: Zobrist = {
    let mut z = Zobrist {
        pieces: [[0; MAX_POINTS]; 2],
        hand: [[0; MAX_HAND]; 2],
        dark_to_move: 0,
        pending: [0; 8],
    };
    let mut state = 0x4d49_4c4c_u64; // "MILL"
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < MAX_POINTS {
            let (s, v) = splitmix(state);
            state = s;
            z.pieces[c][i] = v;
            i += 1;
        }
        let mut i = 0;
        while i < MAX_HAND {
            let (s, v) = splitmix(state);
            state = s;
            z.hand[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    let (s, v) = splitmix(state);
    state = s;
    z.dark_to_move = v;
    let mut i = 1;
    while i < 8 {
        let (s, v) = splitmix(state);
        state = s;
        z.pending[i] = v;
        i += 1;
    }
    z
};

/// A consistent game position. Small and `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The rule set, every option of it (no registry, no lookup).
    rules: Packed,
    board: [u32; 2],
    hand: [u8; 2],
    turn: Color,
    pending: u8,
    quiet: u16,
    hash: u64,
}

impl Default for Position {
    fn default() -> Position {
        Position::new(Variant::Nine)
    }
}

impl Position {
    /// The start position of `variant` with its usual rules: empty board, all pieces in
    /// hand, Light to move (the side that places first, [`Rules::first`]).
    pub fn new(variant: Variant) -> Position {
        Position::start(variant.rules())
    }

    /// The start position under `rules` (a variant with chosen options, or a
    /// [`Variant`] for its usual ones).
    pub fn start(rules: impl Into<Rules>) -> Position {
        let rules: Rules = rules.into();
        let pieces = rules.pieces;
        let mut p = Position {
            rules: rules.pack(),
            board: [0; 2],
            hand: [pieces; 2],
            turn: rules.first,
            pending: 0,
            quiet: 0,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for c in Color::ALL {
            for p in Bitboard(self.board[c.index()]) {
                h ^= ZOBRIST.pieces[c.index()][p.index()];
            }
            h ^= ZOBRIST.hand[c.index()][self.hand[c.index()] as usize % MAX_HAND];
        }
        if self.turn == Color::Dark {
            h ^= ZOBRIST.dark_to_move;
        }
        h ^ ZOBRIST.pending[self.pending as usize % 8]
    }

    /// The variant being played.
    pub fn variant(&self) -> Variant {
        self.rules.variant()
    }

    /// The rule set being played.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules.unpack()
    }

    /// The board.
    #[inline]
    pub fn topology(&self) -> &'static Topology {
        self.rules.topology()
    }

    /// The side to move (during a pending removal, the side that must remove).
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Pieces `color` still has to place.
    #[inline]
    pub fn in_hand(&self, color: Color) -> u8 {
        self.hand[color.index()]
    }

    /// Pieces `color` has on the board.
    #[inline]
    pub fn on_board(&self, color: Color) -> u8 {
        self.board[color.index()].count_ones() as u8
    }

    /// The points holding `color`'s pieces.
    #[inline]
    pub fn pieces(&self, color: Color) -> Bitboard {
        Bitboard(self.board[color.index()])
    }

    /// The empty points.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        Bitboard(self.topology().all().0 & !(self.board[0] | self.board[1]))
    }

    /// Whose piece stands on `point`, if any.
    pub fn piece_at(&self, point: Point) -> Option<Color> {
        Color::ALL.into_iter().find(|c| self.pieces(*c).contains(point))
    }

    /// Removals the side to move still owes this turn (0 at turn boundaries).
    #[inline]
    pub fn pending_removals(&self) -> u8 {
        self.pending
    }

    /// Turns without a removal since placing ended (toward the 100-turn draw).
    #[inline]
    pub fn quiet_turns(&self) -> u16 {
        self.quiet
    }

    /// A Zobrist hash of pieces, hands, side to move and pending removals. Equal
    /// positions in the sense of the repetition rule have equal hashes.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The phase `color` is in.
    pub fn phase(&self, color: Color) -> Phase {
        if self.hand[color.index()] > 0 {
            Phase::Placing
        } else if self.flies(color) {
            Phase::Flying
        } else {
            Phase::Moving
        }
    }

    /// Whether `color` flies: out of hand and down to the flying threshold, it may move a
    /// piece to any empty point ([`Phase::Flying`]).
    #[inline]
    pub fn flies(&self, color: Color) -> bool {
        self.hand[color.index()] == 0 && self.rules.flies_with(self.board[color.index()].count_ones())
    }

    /// The opponent pieces that may be removed now: pieces outside mills, or every
    /// piece when all stand in mills (or when protection is off).
    pub fn removable(&self) -> Bitboard {
        Bitboard(self.removable_of(!self.turn))
    }

    #[inline]
    fn removable_of(&self, victim: Color) -> u32 {
        self.rules.removable(self.board[victim.index()])
    }

    /// Where the piece on `from` may go: every empty point when its side flies, the
    /// empty neighbours otherwise. Empty unless `from` holds a piece of the side to move
    /// that may move now.
    pub fn destinations(&self, from: Point) -> Bitboard {
        if self.is_over() {
            return Bitboard::EMPTY;
        }
        self.destinations_in_play(from)
    }

    /// [`Position::destinations`] for a position known not to be over.
    #[inline]
    fn destinations_in_play(&self, from: Point) -> Bitboard {
        let us = self.turn;
        let placing = self.hand[us.index()] > 0 && !self.rules.placing_moves();
        if self.pending > 0 || placing || !self.pieces(us).contains(from) {
            return Bitboard::EMPTY;
        }
        if self.flies(us) {
            self.empty()
        } else {
            self.topology().neighbours(from) & self.empty()
        }
    }

    /// The points the side to move may click now: empty points while placing, own
    /// pieces that can move (while placing too under `placing-moves` rules), or
    /// removable opponent pieces while a removal is pending.
    pub fn selectable(&self) -> Bitboard {
        if self.is_over() {
            return Bitboard::EMPTY;
        }
        self.selectable_in_play()
    }

    /// [`Position::selectable`] for a position known not to be over.
    #[inline]
    fn selectable_in_play(&self) -> Bitboard {
        let us = self.turn;
        if self.pending > 0 {
            return self.removable();
        }
        let placing = self.hand[us.index()] > 0;
        let movers = if placing && !self.rules.placing_moves() {
            Bitboard::EMPTY
        } else {
            self.pieces(us)
                .iter()
                .filter(|&p| !self.destinations_in_play(p).is_empty())
                .collect()
        };
        if placing {
            Bitboard(self.empty().0 | movers.0)
        } else {
            movers
        }
    }

    /// Every legal action now.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut actions = Vec::new();
        self.for_each_action(|a| actions.push(a));
        actions
    }

    /// Calls `f` with every legal action now, without allocating.
    pub fn for_each_action(&self, f: impl FnMut(Action)) {
        if !self.is_over() {
            self.for_each_action_in_play(f);
        }
    }

    /// [`Position::for_each_action`] for a position known not to be over (perft has
    /// just checked).
    pub(crate) fn for_each_action_in_play(&self, mut f: impl FnMut(Action)) {
        let us = self.turn;
        if self.pending > 0 {
            self.removable().iter().for_each(|at| f(Action::Remove { at }));
            return;
        }
        let placing = self.hand[us.index()] > 0;
        if placing {
            self.empty().iter().for_each(|to| f(Action::Place { to }));
        }
        if !placing || self.rules.placing_moves() {
            for from in self.pieces(us) {
                self.destinations_in_play(from)
                    .iter()
                    .for_each(|to| f(Action::Move { from, to }));
            }
        }
    }

    /// How many legal actions there are now.
    pub fn count_actions(&self) -> u64 {
        if self.is_over() {
            return 0;
        }
        self.count_actions_in_play()
    }

    /// [`Position::count_actions`] for a position known not to be over.
    pub(crate) fn count_actions_in_play(&self) -> u64 {
        if self.pending > 0 {
            return self.removable().count() as u64;
        }
        let placing = self.hand[self.turn.index()] > 0;
        let places = if placing { self.empty().count() as u64 } else { 0 };
        if placing && !self.rules.placing_moves() {
            return places;
        }
        places
            + self
                .pieces(self.turn)
                .iter()
                .map(|from| self.destinations_in_play(from).count() as u64)
                .sum::<u64>()
    }

    /// Whether the side to move has any placement or move (ignoring the result).
    #[inline]
    fn has_step(&self) -> bool {
        let us = self.turn;
        let empty = self.empty().0;
        if empty == 0 {
            return false;
        }
        if self.hand[us.index()] > 0 || self.flies(us) {
            return true;
        }
        let t = self.topology();
        self.pieces(us).iter().any(|p| t.neighbours(p).0 & empty != 0)
    }

    /// The result, if the game is over, from this position alone: a closed line where
    /// that wins (Three Men's Morris), too few pieces, a board full after placing,
    /// blockade, or 100 turns without a removal. Threefold repetition needs the game's
    /// history ([`Game::outcome`](crate::Game::outcome)). Mid-turn positions (a removal
    /// pending) are never over.
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        self.board_outcome().or_else(|| self.quiet_outcome())
    }

    /// The results the board decides, in the rules' order: a line won (Three Men's
    /// Morris), a full board, a side without pieces enough, blocked or unable to place.
    /// Unlike [`Position::outcome`], without the no-progress draw, which is a matter of
    /// the game's history rather than of the board (MIF's repetition observations ask
    /// this).
    #[inline]
    pub fn board_outcome(&self) -> Option<Outcome> {
        if self.pending > 0 {
            return None;
        }
        let rules = self.rules();
        if let Some(winner) = self.line_winner() {
            return Some(Outcome::Win {
                winner,
                reason: WinReason::Mill,
            });
        }
        // A full board first (only pieces that can fill the board ever see one: Twelve
        // Men's Morris, or more pieces than usual), as MIF orders the checks.
        if self.empty().is_empty() {
            match rules.board_full {
                BoardFull::Off => {}
                BoardFull::Draw => {
                    return Some(Outcome::Draw {
                        reason: DrawReason::BoardFull,
                    });
                }
                BoardFull::LightLoses => {
                    return Some(Outcome::Win {
                        winner: Color::Dark,
                        reason: WinReason::BoardFull,
                    });
                }
            }
        }
        for loser in [self.turn, !self.turn] {
            if self.on_board(loser) + self.in_hand(loser) < rules.lose_below {
                return Some(Outcome::Win {
                    winner: !loser,
                    reason: WinReason::Pieces,
                });
            }
        }
        if !self.has_step() {
            // With pieces in hand a side is stuck only on a full board.
            if self.hand[self.turn.index()] > 0 {
                return Some(match rules.no_placement {
                    NoPlacement::Loss => Outcome::Win {
                        winner: !self.turn,
                        reason: WinReason::NoPlacement,
                    },
                    NoPlacement::Draw => Outcome::Draw {
                        reason: DrawReason::NoPlacement,
                    },
                });
            }
            return Some(Outcome::Win {
                winner: !self.turn,
                reason: WinReason::Blocked,
            });
        }
        None
    }

    /// Under rules where closing a line wins, the side that just closed one. (The side to
    /// move never stands in a line then: its own line would have ended the game.)
    #[inline]
    fn line_winner(&self) -> Option<Color> {
        let mover = !self.turn;
        (self.rules.mill_wins() && self.topology().in_mills(self.board[mover.index()]) != 0).then_some(mover)
    }

    #[inline]
    pub(crate) fn quiet_outcome(&self) -> Option<Outcome> {
        (self.pending == 0 && self.rules.quiet_draws(self.quiet)).then_some(Outcome::Draw {
            reason: DrawReason::HundredTurns,
        })
    }

    /// Whether the game is over in this position (see [`Position::outcome`]).
    #[inline]
    pub fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// Plays one action, returning the new position, or why it is illegal.
    pub fn play_action(&self, action: Action) -> Result<Position, PlayError> {
        let mut next = *self;
        next.apply_action(action)?;
        Ok(next)
    }

    fn check_point(&self, p: Point) -> Result<(), PlayError> {
        if self.topology().contains(p) {
            Ok(())
        } else {
            Err(PlayError::OffBoard)
        }
    }

    /// [`Position::play_action`] for a position known not to be over.
    pub(crate) fn play_action_in_play(&self, action: Action) -> Result<Position, PlayError> {
        let mut next = *self;
        next.apply_in_play(action)?;
        Ok(next)
    }

    fn apply_action(&mut self, action: Action) -> Result<(), PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        self.apply_in_play(action)
    }

    fn apply_in_play(&mut self, action: Action) -> Result<(), PlayError> {
        let us = self.turn;
        let them = !us;
        match action {
            Action::Remove { at } => {
                self.check_point(at)?;
                if self.pending == 0 {
                    return Err(PlayError::NoRemovalPending);
                }
                match self.piece_at(at) {
                    None => return Err(PlayError::Empty),
                    Some(c) if c == us => return Err(PlayError::NotOpponentPiece),
                    Some(_) => {}
                }
                if self.removable_of(them) & (1 << at.0) == 0 {
                    return Err(PlayError::Protected);
                }
                self.remove(them, at);
                self.pending -= 1;
                self.hash ^=
                    ZOBRIST.pending[self.pending as usize + 1] ^ ZOBRIST.pending[self.pending as usize];
                if self.pending == 0 || self.board[them.index()] == 0 {
                    self.finish_turn(true, false);
                }
            }
            Action::Place { to } => {
                self.check_point(to)?;
                if self.pending > 0 {
                    return Err(PlayError::RemovalPending);
                }
                if self.hand[us.index()] == 0 {
                    return Err(PlayError::NothingInHand);
                }
                if self.piece_at(to).is_some() {
                    return Err(PlayError::Occupied);
                }
                self.hash ^= ZOBRIST.hand[us.index()][self.hand[us.index()] as usize % MAX_HAND];
                self.hand[us.index()] -= 1;
                self.hash ^= ZOBRIST.hand[us.index()][self.hand[us.index()] as usize % MAX_HAND];
                self.put(us, to);
                self.after_step(to, false);
            }
            Action::Move { from, to } => {
                self.check_point(from)?;
                self.check_point(to)?;
                if self.pending > 0 {
                    return Err(PlayError::RemovalPending);
                }
                if self.hand[us.index()] > 0 && !self.rules.placing_moves() {
                    return Err(PlayError::StillPlacing);
                }
                match self.piece_at(from) {
                    None => return Err(PlayError::Empty),
                    Some(c) if c != us => return Err(PlayError::NotYourPiece),
                    Some(_) => {}
                }
                if self.piece_at(to).is_some() {
                    return Err(PlayError::Occupied);
                }
                if !self.flies(us) && !self.topology().neighbours(from).contains(to) {
                    return Err(PlayError::NotAdjacent);
                }
                self.remove(us, from);
                self.put(us, to);
                self.after_step(to, true);
            }
        }
        Ok(())
    }

    #[inline]
    fn put(&mut self, color: Color, p: Point) {
        self.board[color.index()] |= 1 << p.0;
        self.hash ^= ZOBRIST.pieces[color.index()][p.index()];
    }

    #[inline]
    fn remove(&mut self, color: Color, p: Point) {
        self.board[color.index()] &= !(1 << p.0);
        self.hash ^= ZOBRIST.pieces[color.index()][p.index()];
    }

    /// The removals a piece arriving on `to` earns for the side to move.
    #[inline]
    fn earned(&self, to: Point) -> u8 {
        self.earned_with(self.rules, self.board[self.turn.index()], to)
    }

    fn after_step(&mut self, to: Point, moved: bool) {
        let owed = self.earned(to);
        if owed > 0 {
            self.hash ^= ZOBRIST.pending[0] ^ ZOBRIST.pending[owed as usize % 8];
            self.pending = owed;
        } else {
            self.finish_turn(false, moved);
        }
    }

    fn finish_turn(&mut self, removed: bool, moved: bool) {
        if self.pending != 0 {
            self.hash ^= ZOBRIST.pending[self.pending as usize % 8] ^ ZOBRIST.pending[0];
            self.pending = 0;
        }
        // Without a no-progress draw the count is not kept (MIF leaves it as it was).
        if self.rules.counts_quiet() {
            if removed {
                self.quiet = 0;
            } else if moved {
                self.quiet = self.quiet.saturating_add(1);
            }
        }
        self.turn = !self.turn;
        self.hash ^= ZOBRIST.dark_to_move;
    }

    /// Plays a complete turn, or says why it is illegal. Refused mid-turn (while a
    /// removal is pending): finish that turn with [`Position::play_action`].
    pub fn play(&self, turn: Turn) -> Result<Position, PlayError> {
        if self.pending > 0 {
            return Err(PlayError::RemovalPending);
        }
        let mut next = *self;
        next.apply_action(turn.first_action())?;
        let mut removals = turn.removals().iter();
        while next.pending > 0 {
            let &at = removals.next().ok_or(PlayError::RemovalMissing)?;
            next.apply_action(Action::Remove { at })?;
        }
        if removals.next().is_some() {
            return Err(PlayError::UnexpectedRemoval);
        }
        Ok(next)
    }

    /// Plays a turn known to be legal (from [`Position::legal_turns`]) without checking
    /// it: the engine's hot path.
    ///
    /// # Panics
    ///
    /// Never panics, but an illegal turn leaves an inconsistent position (in debug
    /// builds a `debug_assert` catches it).
    pub fn play_unchecked(&self, turn: Turn) -> Position {
        debug_assert!(self.play(turn).is_ok(), "play_unchecked with an illegal turn");
        let mut next = *self;
        let us = self.turn;
        let them = !us;
        match turn.from() {
            None => {
                next.hash ^= ZOBRIST.hand[us.index()][next.hand[us.index()] as usize % MAX_HAND];
                next.hand[us.index()] = next.hand[us.index()].saturating_sub(1);
                next.hash ^= ZOBRIST.hand[us.index()][next.hand[us.index()] as usize % MAX_HAND];
            }
            Some(from) => next.remove(us, from),
        }
        next.put(us, turn.to());
        for &r in turn.removals() {
            next.remove(them, r);
        }
        if self.rules.counts_quiet() {
            if !turn.removals().is_empty() {
                next.quiet = 0;
            } else if turn.from().is_some() {
                next.quiet = next.quiet.saturating_add(1);
            }
        }
        next.turn = them;
        next.hash ^= ZOBRIST.dark_to_move;
        next
    }

    /// Every legal complete turn (each removal choice is its own turn). Empty when the
    /// game is over or mid-turn.
    pub fn legal_turns(&self) -> TurnList {
        let mut list = TurnList::new();
        self.legal_turns_into(&mut list);
        list
    }

    /// Like [`Position::legal_turns`], into a list the caller owns (cleared first): a
    /// search keeps one list per ply and avoids copying a whole list per node.
    pub fn legal_turns_into(&self, list: &mut TurnList) {
        list.clear();
        if self.pending == 0 && !self.is_over_cheap() {
            self.generate(|t| {
                // The capacity covers every supported rule set (see MAX_TURNS).
                let pushed = list.try_push(t);
                debug_assert!(pushed.is_ok(), "TurnList capacity exceeded");
            });
        }
    }

    /// How many legal turns there are, without listing them (perft's leaf count).
    pub fn count_turns(&self) -> u64 {
        if self.pending > 0 || self.is_over_cheap() {
            return 0;
        }
        // perft's leaf count: the loops are written out (not through `for_each_step`'s
        // closure) so that the weight of each step inlines.
        let rules = self.rules;
        let t = rules.topology();
        let us = self.turn;
        let own = self.board[us.index()];
        let empty = Bitboard(t.all().0 & !(self.board[0] | self.board[1]));
        // Steps that earn one removal are counted apart and weighed at the end, so the
        // removable pieces are only worked out when some step closes a mill.
        let mut closing = 0u64;
        let mut weight = |from: Option<Point>, to: Point, own_after: u32| -> u64 {
            match self.earned_with(rules, own_after, to) {
                0 => 1,
                1 => {
                    closing += 1;
                    0
                }
                _ => self.count_removal_sets(from, to),
            }
        };
        let mut n = 0u64;
        if self.hand[us.index()] > 0 {
            for to in empty {
                n += weight(None, to, own | 1 << to.0);
            }
            if rules.placing_moves() {
                for from in Bitboard(own) {
                    let rest = own & !(1 << from.0);
                    for to in t.neighbours(from) & empty {
                        n += weight(Some(from), to, rest | 1 << to.0);
                    }
                }
            }
        } else if rules.flies_with(own.count_ones()) {
            for from in Bitboard(own) {
                let rest = own & !(1 << from.0);
                for to in empty {
                    n += weight(Some(from), to, rest | 1 << to.0);
                }
            }
        } else {
            for from in Bitboard(own) {
                let rest = own & !(1 << from.0);
                for to in t.neighbours(from) & empty {
                    n += weight(Some(from), to, rest | 1 << to.0);
                }
            }
        }
        if closing > 0 {
            n += closing * self.removable_of(!us).count_ones() as u64;
        }
        n
    }

    /// Over by a winning line, pieces or the quiet count; a blockade or a full board
    /// yields no turns by itself.
    #[inline(always)]
    fn is_over_cheap(&self) -> bool {
        let rules = self.rules;
        Color::ALL
            .iter()
            .any(|&c| self.on_board(c) + self.in_hand(c) < Packed::LOSE_BELOW)
            || rules.quiet_draws(self.quiet)
            || self.line_winner().is_some()
    }

    /// The removals a step leaving the mover's pieces on `own_after`, the last one on
    /// `to`, earns: none where a line wins instead, and never more than the opponent
    /// has pieces on the board (the rest are skipped).
    #[inline]
    fn earned_with(&self, rules: Packed, own_after: u32, to: Point) -> u8 {
        let formed = rules.topology().mills_through(own_after, to);
        if formed == 0 {
            return 0;
        }
        let victims = self.board[(!self.turn).index()];
        if rules.mill_wins() || victims == 0 {
            return 0;
        }
        if rules.per_mill() {
            formed.min(victims.count_ones() as u8)
        } else {
            1
        }
    }

    /// Calls `f(from, to, own pieces after the step)` for each placement or move.
    #[inline]
    fn for_each_step(&self, rules: Packed, mut f: impl FnMut(Option<Point>, Point, u32)) {
        let us = self.turn;
        let own = self.board[us.index()];
        let t = rules.topology();
        let empty = Bitboard(t.all().0 & !(self.board[0] | self.board[1]));
        if self.hand[us.index()] > 0 {
            for to in empty {
                f(None, to, own | 1 << to.0);
            }
            if rules.placing_moves() {
                for from in Bitboard(own) {
                    for to in t.neighbours(from) & empty {
                        f(Some(from), to, (own & !(1 << from.0)) | 1 << to.0);
                    }
                }
            }
        } else if rules.flies_with(own.count_ones()) {
            for from in Bitboard(own) {
                for to in empty {
                    f(Some(from), to, (own & !(1 << from.0)) | 1 << to.0);
                }
            }
        } else {
            for from in Bitboard(own) {
                for to in t.neighbours(from) & empty {
                    f(Some(from), to, (own & !(1 << from.0)) | 1 << to.0);
                }
            }
        }
    }

    fn generate(&self, mut push: impl FnMut(Turn)) {
        let them = !self.turn;
        let rules = self.rules;
        // Which pieces a removal may take: asked only when a step closes a line (most
        // do not), as it runs over every line of the board.
        let mut removable = None;
        // Inlined into the loops of `for_each_step`: a call per step costs the search
        // about a tenth of its instructions.
        self.for_each_step(
            rules,
            #[inline(always)]
            |from, to, own_after| {
                let step = match from {
                    None => Turn::place(to),
                    Some(from) => Turn::step(from, to),
                };
                match self.earned_with(rules, own_after, to) {
                    0 => push(step),
                    1 => {
                        let removable = *removable.get_or_insert_with(|| Bitboard(self.removable_of(them)));
                        for r in removable {
                            if let Some(t) = step.with_removal(r) {
                                push(t);
                            }
                        }
                    }
                    _ => self.removal_sets(step, &mut push),
                }
            },
        );
    }

    /// The turns that start with `step` and earn several removals (only rule sets with
    /// a removal per mill): one per set of removed pieces that some order of removals
    /// reaches, written in the first such order (protection is judged afresh before
    /// each removal, so the order can matter). Rare, so simply walked action by action.
    fn removal_sets(&self, step: Turn, push: &mut impl FnMut(Turn)) {
        let Ok(mid) = self.play_action(step.first_action()) else {
            return;
        };
        // C(12, 3) sets at most under the supported rule sets; ignore any beyond.
        let mut seen: ArrayVec<u32, 512> = ArrayVec::new();
        mid.removal_sequences(step, 0, &mut |turn, set| {
            if !seen.contains(&set) && seen.try_push(set).is_ok() {
                push(turn);
            }
        });
    }

    fn removal_sequences(&self, partial: Turn, set: u32, push: &mut impl FnMut(Turn, u32)) {
        if self.pending == 0 {
            push(partial, set);
            return;
        }
        for at in self.removable() {
            if let (Ok(next), Some(t)) = (self.play_action(Action::Remove { at }), partial.with_removal(at)) {
                next.removal_sequences(t, set | 1 << at.0, push);
            }
        }
    }

    /// Mid-turn (removals owed), every way to finish the turn: each set of pieces that
    /// can be removed, once, in the first order found in which the removals can be made
    /// (protection is judged before each). Empty at a turn boundary: a caller listing
    /// what may be played next asks [`Position::legal_turns`] there, this here.
    pub fn removal_choices(&self) -> Vec<Vec<Point>> {
        let mut choices: Vec<Vec<Point>> = Vec::new();
        let mut seen: Vec<u32> = Vec::new();
        let mut path: ArrayVec<Point, { crate::turn::MAX_REMOVALS }> = ArrayVec::new();
        self.removal_paths(&mut path, 0, &mut |path, set| {
            if !seen.contains(&set) {
                seen.push(set);
                choices.push(path.to_vec());
            }
        });
        choices
    }

    fn removal_paths(
        &self,
        path: &mut ArrayVec<Point, { crate::turn::MAX_REMOVALS }>,
        set: u32,
        push: &mut impl FnMut(&[Point], u32),
    ) {
        if self.pending == 0 {
            if !path.is_empty() {
                push(path, set);
            }
            return;
        }
        for at in self.removable() {
            if let Ok(next) = self.play_action(Action::Remove { at })
                && path.try_push(at).is_ok()
            {
                next.removal_paths(path, set | 1 << at.0, push);
                path.pop();
            }
        }
    }

    /// How many turns [`Position::removal_sets`] lists for this step.
    fn count_removal_sets(&self, from: Option<Point>, to: Point) -> u64 {
        let step = match from {
            None => Turn::place(to),
            Some(from) => Turn::step(from, to),
        };
        let mut n = 0;
        self.removal_sets(step, &mut |_| n += 1);
        n
    }
}

#[cfg(test)]
mod legal_turns_into_tests {
    use super::*;

    #[test]
    fn reused_list_matches_a_fresh_one() {
        let mut list = TurnList::new();
        let mut p = Position::default();
        let mut state = 7u64;
        for _ in 0..80 {
            // `list` still holds the previous position's turns: they must be cleared.
            p.legal_turns_into(&mut list);
            assert_eq!(list, p.legal_turns(), "{p}");
            if list.is_empty() {
                break;
            }
            let (s, r) = splitmix(state);
            state = s;
            p = p.play_unchecked(list[(r % list.len() as u64) as usize]);
        }
        let mid: Position = ".../.../.../....../.../DD./LLL l 6 7 1 0".parse().unwrap();
        list.push(Turn::place(Point(0)));
        mid.legal_turns_into(&mut list);
        assert!(list.is_empty(), "no turns mid-turn");
    }
}

#[cfg(test)]
mod packed_rules_tests {
    use super::*;
    use crate::rules::{BoardFull, Options};

    /// Plays seeded random turns from `p`, checking at every step that the incremental
    /// hash is the hash computed afresh and that the rules stay the position's own.
    fn random_walk(mut p: Position, seed: u64, plies: usize) -> Position {
        let rules = p.rules();
        let mut state = seed;
        for _ in 0..plies {
            let turns = p.legal_turns();
            if turns.is_empty() || p.outcome().is_some() {
                break;
            }
            let (s, r) = splitmix(state);
            state = s;
            p = p.play_unchecked(turns[(r % turns.len() as u64) as usize]);
            assert_eq!(p.hash, p.compute_hash(), "{p}");
            assert_eq!(p.rules(), rules, "{p}");
        }
        p
    }

    #[test]
    fn a_position_carries_every_option_of_its_rules_in_eight_bytes() {
        assert_eq!(core::mem::size_of::<Packed>(), 8);
        assert_eq!(core::mem::size_of::<Position>(), 32);
        let options = Options {
            pieces: 13,
            quiet_limit: 4321,
            quiet_draw: DrawBy::Claim,
            repetition_draw: DrawBy::Claim,
            board_full: BoardFull::LightLoses,
            placing_moves: true,
            placing_repeats: false,
            first: Color::Dark,
            fly_at: 4,
            protect: false,
            ..Variant::Twelve.default_options()
        };
        let rules = Rules::of(Variant::Twelve, options).unwrap();
        let p = Position::start(rules);
        assert_eq!(p.rules(), rules);
        assert_eq!(p.rules().options(), rules.options());
        assert_eq!((p.turn(), p.in_hand(Color::Light)), (Color::Dark, 13));
        assert!(core::ptr::eq(p.topology(), rules.topology));
        // The same board and hands under other rules are another position.
        let usual = Position::start(Variant::Twelve);
        assert_ne!(
            Position {
                rules: usual.rules,
                hand: [13; 2],
                turn: Color::Dark,
                hash: 0,
                ..p
            },
            Position { hash: 0, ..usual }
        );
    }

    #[test]
    fn moves_while_placing_and_no_protection_change_the_turns_generated() {
        let base =
            Position::from_str_variant(".../.../.../....../.../.../L.. d 8 9 0 0", Variant::Nine).unwrap();
        let moving = Rules::parse("nine+placing-moves").unwrap();
        let with_moves = Position::from_str_variant(
            ".../.../.../....../.../.../L.. l 8 8 0 0 nine+placing-moves",
            moving,
        )
        .unwrap();
        // Light may place on 23 points, or move its piece to one of a1's two neighbours.
        assert_eq!(with_moves.legal_turns().len(), 23 + 2);
        assert_eq!(base.legal_turns().len(), 23);
        assert!(with_moves.count_turns() == 25 && base.count_turns() == 23);
        random_walk(with_moves, 3, 120);
    }

    #[test]
    fn the_incremental_hash_holds_under_any_rules() {
        for (seed, name) in [
            "nine",
            "twelve+per-mill+protect-off",
            "six+fly-0+dark-first",
            "three",
            "nine+pieces-13+quiet-7+full-light-loses",
        ]
        .into_iter()
        .enumerate()
        {
            let p = random_walk(Position::start(Rules::parse(name).unwrap()), seed as u64, 200);
            assert_eq!(p.to_string().parse::<Position>(), Ok(p), "{name}");
        }
    }
}
