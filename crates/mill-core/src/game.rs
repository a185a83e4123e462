//! A game: a position with the history that threefold repetition needs, the record
//! of turns, and the results that are not the board's to decide (resignation, agreed
//! draw, and the clock's: timeout, abandonment, abort).

use crate::color::Color;
use crate::error::PlayError;
use crate::outcome::{DrawReason, Outcome, WinReason};
use crate::position::Position;
use crate::rules::{DrawBy, Variant};
use crate::turn::{Action, Turn};

/// A game in progress or finished.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    actions: Vec<Action>,
    turns: Vec<Turn>,
    /// The turn being played while a removal is pending.
    partial: Option<Turn>,
    /// Hashes of the positions at each turn boundary, the start included.
    history: Vec<u64>,
    /// Hashes of positions from before the start that still count toward repetition
    /// ([`Game::from_position_after`]).
    prior: Vec<u64>,
    /// A result the board does not decide ([`Outcome::is_declared`]).
    declared: Option<Outcome>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new(Variant::Nine)
    }
}

impl Game {
    /// A new game of `variant` from its start position.
    pub fn new(variant: Variant) -> Game {
        Game::from_position(Position::new(variant))
    }

    /// A game starting from `position`. A start taken mid-turn is allowed: the first
    /// action then must be the pending removal.
    pub fn from_position(position: Position) -> Game {
        Game {
            start: position,
            position,
            actions: Vec::new(),
            turns: Vec::new(),
            partial: None,
            history: vec![position.hash()],
            prior: Vec::new(),
            declared: None,
        }
    }

    /// A game starting from `position`, after positions (their [`Position::hash`]es, at
    /// turn boundaries, oldest first) that occurred before it and count toward its
    /// repetitions as the game's own do, until [`Game::forget_prior`]. (Once a game's
    /// pieces are fewer, by a placement or a removal, none of its earlier positions can
    /// stand again; a caller with rules that restart the count at such an event, as MIF
    /// manifests name them, forgets them then.)
    pub fn from_position_after(position: Position, prior: Vec<u64>) -> Game {
        Game {
            prior,
            ..Game::from_position(position)
        }
    }

    /// Stops counting the positions from before the start toward repetition.
    pub fn forget_prior(&mut self) {
        self.prior.clear();
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Every action played, in order.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The last action played, if any.
    pub fn last_action(&self) -> Option<Action> {
        self.actions.last().copied()
    }

    /// The completed turns, in order.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The actions of the latest turn: the one in progress (a removal still owed) if any,
    /// else the last completed one; empty before the first action. A turn starts with its
    /// placement or move, so this is the last of those and the removals after it (a game
    /// started mid-turn begins with a removal of a turn it did not see).
    pub fn latest_turn_actions(&self) -> &[Action] {
        let start = self
            .actions
            .iter()
            .rposition(|a| !matches!(a, Action::Remove { .. }))
            .unwrap_or(0);
        &self.actions[start..]
    }

    /// The latest turn as a [`Turn`]: the one in progress (its removals so far) if any,
    /// else the last completed one.
    pub fn latest_turn(&self) -> Option<Turn> {
        if self.position.pending_removals() > 0 {
            self.partial
        } else {
            self.turns.last().copied()
        }
    }

    /// The mill lines the latest turn's placement or move closed: the lines through the
    /// point its piece arrived on that its side holds whole. Removals take only the other
    /// side's pieces, so the current position still shows them after the whole turn.
    pub fn closed_mills(&self) -> impl Iterator<Item = crate::Bitboard> + '_ {
        let position = &self.position;
        let arrived = self.latest_turn_actions().first().and_then(|a| match *a {
            Action::Place { to } | Action::Move { to, .. } => Some(to),
            Action::Remove { .. } => None,
        });
        let own = arrived.and_then(|to| position.piece_at(to).map(|c| (to, position.pieces(c).0)));
        own.into_iter().flat_map(move |(to, mine)| {
            position
                .topology()
                .lines_through(to)
                .iter()
                .filter(move |&&line| mine & line == line)
                .map(|&line| crate::Bitboard(line))
        })
    }

    /// The completed turns in notation.
    pub fn record(&self) -> Vec<String> {
        let t = self.position.topology();
        self.turns.iter().map(|turn| turn.to_notation(t)).collect()
    }

    /// The hashes ([`Position::hash`]) of the positions at each turn boundary, the start
    /// included and the current position last (when no removal is pending): what an
    /// engine needs to score repetitions along with its own search path.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// How often the current position has occurred at a turn boundary (those before
    /// the start given to [`Game::from_position_after`] included).
    /// A position the rules do not count (mid-turn, or still placing under
    /// `repetition-moving` rules) has 0.
    pub fn repetitions(&self) -> usize {
        let p = &self.position;
        if p.pending_removals() > 0 || (!p.rules().placing_repeats && p.in_hand(p.turn()) > 0) {
            return 0;
        }
        let hash = self.position.hash();
        self.position.occurrences(&self.history) + self.prior.iter().filter(|&&h| h == hash).count()
    }

    /// The result, if the game is over, checked in the rules' order: a winning line,
    /// a full board, too few pieces, no placement or move, threefold repetition, 100
    /// quiet turns (those two when the rules make them automatic); or a resignation,
    /// an agreed or claimed draw.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.declared.is_some() {
            return self.declared;
        }
        let p = &self.position;
        let rules = p.rules();
        p.board_outcome()
            .or_else(|| {
                (rules.repetition_draw == DrawBy::Automatic && rules.repetition_draws(self.repetitions()))
                    .then_some(Outcome::Draw {
                        reason: DrawReason::Threefold,
                    })
            })
            .or_else(|| p.quiet_outcome())
    }

    /// The draws the side to move may claim now, under rules that make them claimed
    /// ([`DrawBy::Claim`]): [`DrawReason::HundredTurns`] once the no-progress limit is
    /// reached, [`DrawReason::Threefold`] while the position stands for the third time
    /// (in that order). None while a removal is owed or once the game is over.
    pub fn claimable(&self) -> Vec<DrawReason> {
        let p = &self.position;
        let rules = p.rules();
        let mut draws = Vec::new();
        if p.pending_removals() > 0 || self.is_over() {
            return draws;
        }
        if rules.quiet_draw == DrawBy::Claim && rules.quiet_reached(p.quiet_turns()) {
            draws.push(DrawReason::HundredTurns);
        }
        if rules.repetition_draw == DrawBy::Claim && rules.repetition_draws(self.repetitions()) {
            draws.push(DrawReason::Threefold);
        }
        draws
    }

    /// The side to move claims the draw `reason` ([`Game::claimable`]). Refused with
    /// [`PlayError::GameOver`] once the game is over and [`PlayError::NothingToClaim`]
    /// for a draw not claimable now; on error nothing changes.
    pub fn claim_draw(&mut self, reason: DrawReason) -> Result<(), PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        if !self.claimable().contains(&reason) {
            return Err(PlayError::NothingToClaim);
        }
        self.declared = Some(Outcome::Draw { reason });
        Ok(())
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// Plays one action. On error nothing changes.
    pub fn play_action(&mut self, action: Action) -> Result<(), PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        let next = self.position.play_action(action)?;
        let turn = match action {
            Action::Place { to } => Some(Turn::place(to)),
            Action::Move { from, to } => Some(Turn::step(from, to)),
            Action::Remove { at } => self.partial.and_then(|t| t.with_removal(at)),
        };
        self.actions.push(action);
        self.position = next;
        if next.pending_removals() > 0 {
            self.partial = turn;
        } else {
            self.partial = None;
            if let Some(turn) = turn {
                self.turns.push(turn);
            }
            self.history.push(next.hash());
        }
        Ok(())
    }

    /// Plays a complete turn. On error nothing changes.
    pub fn play(&mut self, turn: Turn) -> Result<(), PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        // Check the whole turn first so that a bad removal leaves no half-played turn.
        self.position.play(turn)?;
        for action in turn.actions() {
            self.play_action(action)?;
        }
        Ok(())
    }

    /// Ends the game with a result only a declaration gives ([`Outcome::is_declared`]):
    /// a resignation, an agreed draw, a timeout, an abandoned game won or drawn, an
    /// abort. Refused with [`PlayError::GameOver`] once the game is over and with
    /// [`PlayError::NotDeclared`] for a result the board decides. On error nothing
    /// changes.
    pub fn declare(&mut self, outcome: Outcome) -> Result<(), PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        if !outcome.is_declared() {
            return Err(PlayError::NotDeclared);
        }
        self.declared = Some(outcome);
        Ok(())
    }

    /// `loser` resigns; the other side wins.
    pub fn resign(&mut self, loser: Color) -> Result<(), PlayError> {
        self.declare(Outcome::Win {
            winner: !loser,
            reason: WinReason::Resignation,
        })
    }

    /// Both sides agree to a draw.
    pub fn agree_draw(&mut self) -> Result<(), PlayError> {
        self.declare(Outcome::Draw {
            reason: DrawReason::Agreement,
        })
    }

    /// `loser`'s time ran out; the other side wins.
    pub fn time_out(&mut self, loser: Color) -> Result<(), PlayError> {
        self.declare(Outcome::Win {
            winner: !loser,
            reason: WinReason::Timeout,
        })
    }

    /// `winner` claims the game its opponent left.
    pub fn claim_abandoned(&mut self, winner: Color) -> Result<(), PlayError> {
        self.declare(Outcome::Win {
            winner,
            reason: WinReason::Abandoned,
        })
    }

    /// The side that stayed calls the game its opponent left a draw.
    pub fn draw_abandoned(&mut self) -> Result<(), PlayError> {
        self.declare(Outcome::Draw {
            reason: DrawReason::Abandoned,
        })
    }

    /// The round is called off before it began: no winner.
    pub fn abort(&mut self) -> Result<(), PlayError> {
        self.declare(Outcome::Aborted)
    }

    /// Takes back the last action (or a declared result). Returns whether there was
    /// anything to take back.
    pub fn undo(&mut self) -> bool {
        if self.declared.take().is_some() {
            return true;
        }
        let Some((_, earlier)) = self.actions.split_last() else {
            return false;
        };
        let mut replay = Game::from_position_after(self.start, self.prior.clone());
        for &a in earlier {
            // These actions were legal when first played, so replay cannot fail.
            if replay.play_action(a).is_err() {
                return false;
            }
        }
        *self = replay;
        true
    }

    /// The points the side to move may click now (empty when the game is over).
    pub fn selectable(&self) -> crate::Bitboard {
        if self.is_over() {
            crate::Bitboard::EMPTY
        } else {
            self.position.selectable()
        }
    }

    /// Where the piece on `from` may go now (empty when the game is over).
    pub fn destinations(&self, from: crate::Point) -> crate::Bitboard {
        if self.is_over() {
            crate::Bitboard::EMPTY
        } else {
            self.position.destinations(from)
        }
    }

    /// The opponent pieces that may be removed now (empty unless a removal is pending).
    pub fn removable(&self) -> crate::Bitboard {
        if self.is_over() || self.position.pending_removals() == 0 {
            crate::Bitboard::EMPTY
        } else {
            self.position.removable()
        }
    }

    /// Every legal action now (none when the game is over).
    pub fn legal_actions(&self) -> Vec<Action> {
        if self.is_over() {
            Vec::new()
        } else {
            self.position.legal_actions()
        }
    }

    /// Every legal complete turn now (none when the game is over or mid-turn).
    pub fn legal_turns(&self) -> crate::TurnList {
        if self.is_over() {
            crate::TurnList::new()
        } else {
            self.position.legal_turns()
        }
    }
}

#[cfg(test)]
mod declared_tests {
    use super::*;

    #[test]
    fn the_clock_results_end_the_game_and_stop_play() {
        let d6 = |g: &Game| Action::Place {
            to: g.position().topology().point("d6").unwrap(),
        };
        type End = fn(&mut Game) -> Result<(), PlayError>;
        let cases: [(End, Outcome); 4] = [
            (
                |g| g.time_out(Color::Light),
                Outcome::Win {
                    winner: Color::Dark,
                    reason: WinReason::Timeout,
                },
            ),
            (
                |g| g.claim_abandoned(Color::Light),
                Outcome::Win {
                    winner: Color::Light,
                    reason: WinReason::Abandoned,
                },
            ),
            (
                Game::draw_abandoned,
                Outcome::Draw {
                    reason: DrawReason::Abandoned,
                },
            ),
            (Game::abort, Outcome::Aborted),
        ];
        for (end, outcome) in cases {
            let mut game = Game::default();
            end(&mut game).unwrap();
            assert_eq!(game.outcome(), Some(outcome));
            assert!(game.legal_actions().is_empty() && game.selectable().is_empty());
            assert_eq!(game.play_action(d6(&game)), Err(PlayError::GameOver));
            assert_eq!(end(&mut game), Err(PlayError::GameOver), "a result stands once");
            assert_eq!(game.resign(Color::Dark), Err(PlayError::GameOver));
            assert!(game.undo(), "a declared result is taken back like a resignation");
            assert_eq!(game.outcome(), None);
        }
    }

    #[test]
    fn only_a_result_the_board_cannot_reach_is_declared() {
        let mut game = Game::default();
        let board = Outcome::Win {
            winner: Color::Light,
            reason: WinReason::Pieces,
        };
        assert_eq!(game.declare(board), Err(PlayError::NotDeclared));
        assert_eq!(
            game.declare(Outcome::Draw {
                reason: DrawReason::Threefold
            }),
            Err(PlayError::NotDeclared)
        );
        assert_eq!(game.outcome(), None, "a refused declaration changes nothing");
        game.declare(Outcome::Aborted).unwrap();
        assert_eq!(game.outcome(), Some(Outcome::Aborted));
    }
}

#[cfg(test)]
mod history_tests {
    use super::*;
    use crate::Notation;

    #[test]
    fn history_holds_each_turn_boundary() {
        let mut game = Game::default();
        assert_eq!(game.history(), [game.position().hash()]);
        let t = game.position().topology();
        for text in ["a1", "b2", "d1", "d2"] {
            let turn = text.parse::<Notation>().unwrap().to_turn(t).unwrap();
            game.play(turn).unwrap();
        }
        assert_eq!(game.history().len(), 5);
        assert_eq!(game.history().last(), Some(&game.position().hash()));
        // Mid-turn: the placement that closes a mill adds no boundary until the removal.
        let g1 = t.point("g1").unwrap();
        game.play_action(Action::Place { to: g1 }).unwrap();
        assert_eq!(game.history().len(), 5);
        let d2 = t.point("d2").unwrap();
        game.play_action(Action::Remove { at: d2 }).unwrap();
        assert_eq!(game.history().len(), 6);
        assert_eq!(game.history().last(), Some(&game.position().hash()));
    }
}
