//! A room's game table: the rounds, draw offers and new-round requests, driven by
//! commands. The same `apply` serves live play and the replay of stored events on
//! start-up, so what was acknowledged is exactly what comes back. Rules are
//! `mill-core`'s; this module only decides who may do what and when.

use mill_core::{Action, ByColor, Color, Game, PlayError, Position, Rules, Variant, view};

use crate::protocol::{
    ClockEventKind, Code, Command, Declined, ErrorCode, GameView, KeyHash, OfferKind, Offers, ResultView,
};

/// A refused command: a stable code and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Stable code (docs/PROTOCOL.md).
    pub code: Code,
    /// What went wrong.
    pub message: String,
}

impl Refusal {
    /// A refusal with a code and message.
    pub fn new(code: impl Into<Code>, message: impl Into<String>) -> Refusal {
        Refusal {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// Where a stored event goes: its round and its place in the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// Round the event belongs to.
    pub round: u32,
    /// Its order in the round, from 0.
    pub seq: u32,
    /// Set when the event started a new round (its number).
    pub new_round: Option<u32>,
}

/// The game table of one room.
#[derive(Debug, Clone)]
pub struct Table {
    round: u32,
    game: Game,
    draw_offer: Option<Color>,
    takeback_offer: Option<Color>,
    /// Set by a decline, cleared by the next event.
    declined: Option<Declined>,
    new_round: ByColor<bool>,
    /// A room made by quick pairing: its finished rounds may be rematched.
    paired: bool,
    /// Each seat's rematch offer this round: the hash of the key it will hold in the
    /// new room. One standing is an offer; both, an agreed rematch.
    rematch: ByColor<Option<KeyHash>>,
    seq: u32,
    /// The rounds before the current one, oldest first (round `i + 1` at `i`); each
    /// ended with a result before the next began. Shared, so that a command can be
    /// tried on a copy of the table (the room installs it once stored) without copying
    /// every finished round.
    past: std::sync::Arc<Vec<Game>>,
}

/// A finished round's record, for review (`GET /api/rooms/{room}/rounds/{n}`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RoundRecord {
    /// Room id.
    pub room: String,
    /// Round number.
    pub round: u32,
    /// The rule set the room plays (`nine`, `six+per-mill`).
    pub variant: String,
    /// The position the round started from.
    pub start: String,
    /// Every action in order, in text form.
    pub actions: Vec<String>,
    /// The turns in notation.
    pub record: Vec<String>,
    /// The final position.
    pub position: String,
    /// How it ended.
    pub result: ResultView,
    /// `None` (`null`) in an untimed room; else the time control and both clocks after
    /// each action (filled in by the room, which keeps the clocks).
    pub clock: Option<RoundClock>,
}

/// A timed round's clocks for review: the control and the times after each action.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RoundClock {
    /// The room's time control.
    pub control: crate::timecontrol::TimeControl,
    /// Both clocks once each action was stored, one per element of `actions`.
    pub times: Vec<TurnTimes>,
}

/// Both sides' remaining milliseconds after one action of a timed round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TurnTimes {
    /// Light's remaining milliseconds.
    pub light: i64,
    /// Dark's remaining milliseconds.
    pub dark: i64,
}

/// Why a round's record cannot be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRecord {
    /// The room has no round with that number.
    Unknown,
    /// That round is still being played.
    NotOver,
}

impl Default for Table {
    fn default() -> Self {
        Table::new()
    }
}

impl Table {
    /// Round 1 of Nine Men's Morris, start position.
    pub fn new() -> Table {
        Table::with_rules(Variant::Nine.rules())
    }

    /// Round 1 under `rules`, start position; every later round keeps them.
    pub fn with_rules(rules: &'static Rules) -> Table {
        Table {
            round: 1,
            game: Game::from_position(Position::start(rules)),
            draw_offer: None,
            takeback_offer: None,
            declined: None,
            new_round: ByColor::default(),
            paired: false,
            rematch: ByColor::default(),
            seq: 0,
            past: std::sync::Arc::new(Vec::new()),
        }
    }

    /// Marks the room as made by quick pairing (before any event): its finished rounds
    /// may be rematched.
    pub fn set_paired(&mut self, paired: bool) {
        self.paired = paired;
    }

    /// Whether the room was made by quick pairing.
    pub fn paired(&self) -> bool {
        self.paired
    }

    /// The seat whose rematch offer stands (not yet answered), if any.
    pub fn rematch_offer(&self) -> Option<Color> {
        match (self.rematch.light, self.rematch.dark) {
            (Some(_), None) => Some(Color::Light),
            (None, Some(_)) => Some(Color::Dark),
            _ => None,
        }
    }

    /// Once both seats offered a rematch this round: the key hash each sent, by the
    /// seat it sent it from (the new room gives it the other colour).
    pub fn rematch_agreed(&self) -> Option<ByColor<KeyHash>> {
        Some(ByColor {
            light: self.rematch.light?,
            dark: self.rematch.dark?,
        })
    }

    /// The rule set the room plays.
    pub fn rules(&self) -> Rules {
        self.game.start().rules()
    }

    /// Current round number.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Confirmed actions in the current round.
    pub fn version(&self) -> u32 {
        self.game.actions().len() as u32
    }

    /// The current round's result, once it has one.
    pub fn outcome(&self) -> Option<mill_core::Outcome> {
        self.game.outcome()
    }

    /// Whether the current round has a result.
    pub fn is_over(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// The side to move in the current round.
    pub fn to_move(&self) -> Color {
        self.game.position().turn()
    }

    /// Applies the clock's own event about `seat` (a timed round's flag): the round
    /// ends on time, or is aborted; `away` and `back` change nothing on the board.
    /// Takes the round's next place like a command.
    pub fn apply_clock(&mut self, seat: Color, kind: ClockEventKind) -> Result<Placed, Refusal> {
        let placed = Placed {
            round: self.round,
            seq: self.seq,
            new_round: None,
        };
        let done = match kind {
            ClockEventKind::Timeout => self.game.time_out(seat),
            ClockEventKind::Abort => self.game.abort(),
            ClockEventKind::Away | ClockEventKind::Back => Ok(()),
        };
        done.map_err(rules_refusal)?;
        self.declined = None;
        // A seat gone: a rematch offer not yet agreed lapses.
        if kind == ClockEventKind::Away && self.rematch_agreed().is_none() {
            self.rematch = ByColor::default();
        }
        if self.is_over() {
            self.draw_offer = None;
            self.takeback_offer = None;
        }
        self.seq += 1;
        Ok(placed)
    }

    /// Checks `cmd` from `seat` and applies it; on error nothing changes.
    pub fn apply(&mut self, seat: Color, cmd: &Command) -> Result<Placed, Refusal> {
        let declined = self.declined.take();
        let result = self.apply_inner(seat, cmd);
        match &result {
            Err(_) => self.declined = declined,
            Ok(_) if self.is_over() => {
                self.draw_offer = None;
                self.takeback_offer = None;
            }
            Ok(_) => {}
        }
        result
    }

    /// How many actions `seat`'s takeback would undo: its latest turn (in progress or
    /// completed), which must be the last thing played in the round, so that a
    /// takeback never undoes any of the other side's turns.
    fn takeback_span(&self, seat: Color) -> Result<usize, Refusal> {
        if self.is_over() {
            return Err(Refusal::new(ErrorCode::GameOver, "This round is over."));
        }
        let turns = self.game.turns();
        let actions = self.game.actions().len();
        let completed: usize = turns.iter().map(|t| t.actions().count()).sum();
        let first = self.game.start().turn();
        // Turns alternate from the side that started.
        let side_of_turn = |i: usize| if i % 2 == 0 { first } else { !first };
        let (last_by, span) = if completed < actions {
            (side_of_turn(turns.len()), actions - completed)
        } else {
            match turns.last() {
                Some(t) => (side_of_turn(turns.len() - 1), t.actions().count()),
                None => {
                    return Err(Refusal::new(
                        ErrorCode::NothingToTakeBack,
                        "You have not played in this round yet.",
                    ));
                }
            }
        };
        if last_by == seat {
            return Ok(span);
        }
        let played = (actions > completed && side_of_turn(turns.len()) == seat)
            || (0..turns.len()).any(|i| side_of_turn(i) == seat);
        if played {
            Err(Refusal::new(
                ErrorCode::OpponentPlayed,
                "Your opponent has played since your last turn; only a turn nobody has answered yet can be taken back.",
            ))
        } else {
            Err(Refusal::new(
                ErrorCode::NothingToTakeBack,
                "You have not played in this round yet.",
            ))
        }
    }

    /// Whether a rematch may be offered or answered now: a paired room, a round over,
    /// not yet agreed.
    fn rematch_check(&self, over: bool) -> Result<(), Refusal> {
        if !self.paired {
            return Err(Refusal::new(
                ErrorCode::NotPaired,
                "A rematch is for rooms made by quick pairing; here, ask for a new round.",
            ));
        }
        if !over {
            return Err(Refusal::new(
                ErrorCode::RoundNotOver,
                "A rematch can be offered only after the round is over.",
            ));
        }
        if self.rematch_agreed().is_some() {
            return Err(Refusal::new(
                ErrorCode::RematchAgreed,
                "The rematch is agreed: its room is ready.",
            ));
        }
        Ok(())
    }

    fn apply_inner(&mut self, seat: Color, cmd: &Command) -> Result<Placed, Refusal> {
        let placed = Placed {
            round: self.round,
            seq: self.seq,
            new_round: None,
        };
        let over = self.is_over();
        let game_over = || Refusal::new(ErrorCode::GameOver, "This round is over.");
        match cmd {
            Command::Action(text) => {
                if over {
                    return Err(game_over());
                }
                if self.game.position().turn() != seat {
                    return Err(Refusal::new(ErrorCode::NotYourTurn, "It is not your turn."));
                }
                let topology = self.game.position().topology();
                let action = Action::parse(text, topology).map_err(|e| {
                    Refusal::new(ErrorCode::BadAction, format!("{text:?} is not an action: {e}."))
                })?;
                self.game.play_action(action).map_err(rules_refusal)?;
                if self.draw_offer == Some(!seat) {
                    self.draw_offer = None;
                }
                if self.takeback_offer == Some(!seat) {
                    self.takeback_offer = None;
                }
            }
            Command::OfferDraw => {
                if over {
                    return Err(game_over());
                }
                if self.draw_offer.is_some() {
                    return Err(Refusal::new(
                        ErrorCode::AlreadyOffered,
                        "A draw offer already stands.",
                    ));
                }
                self.draw_offer = Some(seat);
            }
            Command::AcceptDraw | Command::DeclineDraw => {
                if over {
                    return Err(game_over());
                }
                if self.draw_offer != Some(!seat) {
                    return Err(Refusal::new(
                        ErrorCode::NoDrawOffer,
                        "Your opponent has not offered a draw.",
                    ));
                }
                if *cmd == Command::AcceptDraw {
                    self.game.agree_draw().map_err(rules_refusal)?;
                } else {
                    self.declined = Some(Declined {
                        offer: OfferKind::Draw,
                        by: seat,
                    });
                }
                self.draw_offer = None;
            }
            Command::OfferTakeback => {
                self.takeback_span(seat)?;
                if self.takeback_offer.is_some() {
                    return Err(Refusal::new(
                        ErrorCode::AlreadyOffered,
                        "Your takeback request already stands.",
                    ));
                }
                self.takeback_offer = Some(seat);
            }
            Command::AcceptTakeback | Command::DeclineTakeback => {
                if over {
                    return Err(game_over());
                }
                if self.takeback_offer != Some(!seat) {
                    return Err(Refusal::new(
                        ErrorCode::NoTakebackOffer,
                        "Your opponent has not asked to take back a turn.",
                    ));
                }
                if *cmd == Command::AcceptTakeback {
                    let span = self.takeback_span(!seat)?;
                    for _ in 0..span {
                        self.game.undo();
                    }
                    // The offer was made on a position that is gone.
                    self.draw_offer = None;
                } else {
                    self.declined = Some(Declined {
                        offer: OfferKind::Takeback,
                        by: seat,
                    });
                }
                self.takeback_offer = None;
            }
            Command::Resign => {
                if over {
                    return Err(game_over());
                }
                self.game.resign(seat).map_err(rules_refusal)?;
            }
            Command::ClaimWin | Command::CallDraw => {
                if over {
                    return Err(game_over());
                }
                // Whether the claim may be made (a live clock, the opponent away for
                // the grace) is the room's to judge before it gets here; the table
                // ends the round as claimed, live and in replay alike.
                if *cmd == Command::ClaimWin {
                    self.game.claim_abandoned(seat).map_err(rules_refusal)?;
                } else {
                    self.game.draw_abandoned().map_err(rules_refusal)?;
                }
            }
            Command::OfferRematch(key) => {
                self.rematch_check(over)?;
                if self.rematch.get(seat).is_some() {
                    return Err(Refusal::new(
                        ErrorCode::AlreadyOffered,
                        "Your rematch offer already stands.",
                    ));
                }
                *self.rematch.get_mut(seat) = Some(*key);
            }
            Command::DeclineRematch => {
                self.rematch_check(over)?;
                if self.rematch.get(!seat).is_some() {
                    self.declined = Some(Declined {
                        offer: OfferKind::Rematch,
                        by: seat,
                    });
                } else if self.rematch.get(seat).is_none() {
                    return Err(Refusal::new(
                        ErrorCode::NoRematchOffer,
                        "No rematch has been offered.",
                    ));
                }
                // Declined, or withdrawn by the seat that offered it.
                self.rematch = ByColor::default();
            }
            Command::NewRound => {
                if !over {
                    return Err(Refusal::new(
                        ErrorCode::RoundNotOver,
                        "A new round can start only after this one is over.",
                    ));
                }
                *self.new_round.get_mut(seat) = true;
                if self.new_round.light && self.new_round.dark {
                    self.round += 1;
                    let rules = self.rules();
                    let finished =
                        std::mem::replace(&mut self.game, Game::from_position(Position::start(rules)));
                    std::sync::Arc::make_mut(&mut self.past).push(finished);
                    self.draw_offer = None;
                    self.takeback_offer = None;
                    self.new_round = ByColor::default();
                    // A new round: a rematch offer of the last one lapses.
                    self.rematch = ByColor::default();
                    self.seq = 0;
                    return Ok(Placed {
                        new_round: Some(self.round),
                        ..placed
                    });
                }
            }
        }
        self.seq += 1;
        Ok(placed)
    }

    /// The game part of the `state` snapshot: mill-core's view of the game, with the
    /// room's round, version and offers.
    pub fn view(&self, room: &str) -> GameView {
        let game = view::GameView::of(&self.game);
        GameView {
            room: room.to_string(),
            round: self.round,
            version: self.version(),
            last_action: game.actions.last().cloned(),
            result: game.outcome.map(ResultView::from),
            // Every room is untimed until the room logic keeps clocks (timecontrol.rs).
            clock: None,
            game,
            offers: Offers {
                draw: self.draw_offer,
                new_round: Color::ALL
                    .into_iter()
                    .filter(|&c| *self.new_round.get(c))
                    .collect(),
                takeback: self.takeback_offer,
                declined: self.declined,
                rematch_open: self.paired,
                rematch: self.rematch_offer(),
                rematch_room: self
                    .rematch_agreed()
                    .map(|_| crate::keys::rematch_room_id(room, self.round)),
            },
        }
    }
}

impl Table {
    /// The record of round `n` once it has a result: an earlier round, or the current
    /// one when it is over.
    pub fn round_record(&self, room: &str, n: u32) -> Result<RoundRecord, NoRecord> {
        let game = match n {
            0 => return Err(NoRecord::Unknown),
            n if n < self.round => &self.past[(n - 1) as usize],
            n if n == self.round => &self.game,
            _ => return Err(NoRecord::Unknown),
        };
        let outcome = game.outcome().ok_or(NoRecord::NotOver)?;
        let t = game.position().topology();
        Ok(RoundRecord {
            room: room.to_string(),
            round: n,
            variant: game.position().rules().to_string(),
            start: game.start().to_string(),
            actions: game.actions().iter().map(|a| a.to_text(t)).collect(),
            record: game.record(),
            position: game.position().to_string(),
            result: ResultView::from(outcome),
            clock: None,
        })
    }
}

/// mill-core's code, and its message as a sentence.
fn rules_refusal(e: PlayError) -> Refusal {
    let text = e.to_string();
    let mut chars = text.chars();
    let sentence = match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    };
    Refusal::new(e, sentence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Dark, Light};
    use mill_core::Phase;

    fn act(t: &mut Table, seat: Color, a: &str) -> Result<Placed, Refusal> {
        t.apply(seat, &Command::Action(a.into()))
    }

    #[test]
    fn actions_follow_the_rules_and_the_turn() {
        let mut t = Table::new();
        let start = t.view("r");
        assert_eq!(start.version, 0);
        assert!(start.closed_mills.is_empty());
        assert_eq!(start.legal.as_ref().unwrap().selectable.len(), 24);
        assert!(start.legal.as_ref().unwrap().destinations.is_empty());
        assert_eq!(act(&mut t, Dark, "d6").unwrap_err().code, "not-your-turn");
        assert_eq!(act(&mut t, Light, "q9").unwrap_err().code, "bad-action");
        assert_eq!(act(&mut t, Light, "a1-a4").unwrap_err().code, "still-placing");
        assert_eq!(t.version(), 0, "refusals change nothing");
        let placed = act(&mut t, Light, "a1").unwrap();
        assert_eq!((placed.round, placed.seq), (1, 0));
        assert_eq!(act(&mut t, Dark, "a1").unwrap_err().code, "occupied");
        for (seat, a) in [(Dark, "b2"), (Light, "a4"), (Dark, "b4"), (Light, "a7")] {
            act(&mut t, seat, a).unwrap();
        }
        let v = t.view("r");
        assert_eq!(v.pending_removals, 1);
        assert_eq!(v.turn, Light);
        assert_eq!(v.closed_mills, [["a1", "a4", "a7"]]);
        let text = crate::protocol::state_text(&v, ByColor::default(), 0);
        assert!(text.contains(r#""closed_mills":[["a1","a4","a7"]]"#), "{text}");
        let legal = v.game.legal.unwrap();
        assert_eq!(legal.removable, vec!["b2".to_string(), "b4".to_string()]);
        assert_eq!(legal.selectable, legal.removable);
        assert_eq!(act(&mut t, Light, "d6").unwrap_err().code, "removal-pending");
        act(&mut t, Light, "xb2").unwrap();
        let v = t.view("r");
        assert_eq!(v.version, 6);
        assert_eq!(v.actions, ["a1", "b2", "a4", "b4", "a7", "xb2"]);
        assert_eq!(v.record.last().map(String::as_str), Some("a7xb2"));
        assert_eq!(v.last_action.as_deref(), Some("xb2"));
        assert_eq!(
            v.closed_mills,
            [["a1", "a4", "a7"]],
            "the mill stays marked with its turn"
        );
        assert_eq!(v.pieces.light, ["a1", "a4", "a7"]);
        assert_eq!(v.pieces.dark, ["b4"]);
        assert_eq!(v.in_hand.light, 6);
        assert_eq!(v.turn, Dark);
        act(&mut t, Dark, "d6").unwrap();
        assert!(t.view("r").closed_mills.is_empty(), "the next turn closed none");
    }

    #[test]
    fn an_untimed_table_has_no_clock_and_a_claim_the_room_allowed_ends_the_round() {
        let mut t = Table::new();
        act(&mut t, Light, "d6").unwrap();
        let text = crate::protocol::state_text(&t.view("r"), ByColor::default(), 0);
        let state: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(state["clock"].is_null(), "{text}");
        // Whether a claim may be made is the room's to judge (rooms/room.rs); once it
        // gets to the table, the round ends as claimed.
        let mut win = t.clone();
        win.apply(Dark, &Command::ClaimWin).unwrap();
        let v = win.view("r");
        assert_eq!(
            (v.result.map(|r| (r.winner, r.reason)), v.version),
            (Some((Some(Dark), "abandoned".into())), 1)
        );
        assert_eq!(
            win.apply(Light, &Command::ClaimWin).unwrap_err().code,
            "game-over"
        );
        let mut draw = t.clone();
        draw.apply(Light, &Command::CallDraw).unwrap();
        let v = draw.view("r");
        assert_eq!(
            v.result.map(|r| (r.winner, r.reason)),
            Some((None, "abandoned".into()))
        );
    }

    #[test]
    fn the_state_carries_mill_cores_view_under_its_own_names() {
        let mut t = Table::new();
        for (seat, a) in [
            (Light, "a1"),
            (Dark, "b2"),
            (Light, "d1"),
            (Dark, "d2"),
            (Light, "g1"),
        ] {
            act(&mut t, seat, a).unwrap();
        }
        let text = crate::protocol::state_text(&t.view("r"), ByColor::default(), 0);
        let state: serde_json::Value = serde_json::from_str(&text).unwrap();
        let core = serde_json::to_value(view::GameView::of(&t.game)).unwrap();
        for (field, value) in core.as_object().unwrap() {
            assert_eq!(&state[field], value, "{field}");
        }
        assert_eq!(state["last_turn_actions"], serde_json::json!(["g1"]));
        assert_eq!(state["last_action"], "g1", "kept for older pages");
        t.apply(Dark, &Command::Resign).unwrap();
        let text = crate::protocol::state_text(&t.view("r"), ByColor::default(), 0);
        let state: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            state["result"],
            serde_json::json!({"winner": "light", "reason": "resignation"})
        );
        assert_eq!(
            state["outcome"],
            serde_json::json!({"kind": "win", "winner": "light", "reason": "resignation"})
        );
    }

    #[test]
    fn draw_offers_stand_until_answered_or_the_other_side_plays() {
        let mut t = Table::new();
        assert_eq!(
            t.apply(Light, &Command::AcceptDraw).unwrap_err().code,
            "no-draw-offer"
        );
        t.apply(Light, &Command::OfferDraw).unwrap();
        assert_eq!(t.view("r").offers.draw, Some(Light));
        assert_eq!(
            t.apply(Dark, &Command::OfferDraw).unwrap_err().code,
            "already-offered"
        );
        assert_eq!(
            t.apply(Light, &Command::AcceptDraw).unwrap_err().code,
            "no-draw-offer",
            "nobody accepts their own offer"
        );
        act(&mut t, Light, "d6").unwrap();
        assert_eq!(
            t.view("r").offers.draw,
            Some(Light),
            "the offerer's move keeps it"
        );
        act(&mut t, Dark, "d2").unwrap();
        assert_eq!(t.view("r").offers.draw, None, "the other side played");
        t.apply(Light, &Command::OfferDraw).unwrap();
        t.apply(Dark, &Command::DeclineDraw).unwrap();
        assert_eq!(t.view("r").offers.draw, None);
        t.apply(Dark, &Command::OfferDraw).unwrap();
        t.apply(Light, &Command::AcceptDraw).unwrap();
        let v = t.view("r");
        assert_eq!(
            v.result,
            Some(ResultView {
                winner: None,
                reason: "agreement".into()
            })
        );
        assert!(v.legal.is_none());
        assert_eq!(act(&mut t, Light, "a1").unwrap_err().code, "game-over");
    }

    #[test]
    fn resignation_ends_the_round_and_a_new_round_needs_both() {
        let mut t = Table::new();
        act(&mut t, Light, "d6").unwrap();
        assert_eq!(
            t.apply(Light, &Command::NewRound).unwrap_err().code,
            "round-not-over"
        );
        t.apply(Dark, &Command::Resign).unwrap();
        let v = t.view("r");
        assert_eq!(
            v.result,
            Some(ResultView {
                winner: Some(Light),
                reason: "resignation".into()
            })
        );
        assert_eq!(t.apply(Light, &Command::Resign).unwrap_err().code, "game-over");
        let first = t.apply(Light, &Command::NewRound).unwrap();
        assert_eq!(first.new_round, None);
        assert_eq!(t.view("r").offers.new_round, [Light]);
        t.apply(Light, &Command::NewRound).unwrap();
        assert_eq!(t.round(), 1, "asking twice is not agreeing");
        let second = t.apply(Dark, &Command::NewRound).unwrap();
        assert_eq!(second.round, 1, "the event belongs to the round it ended");
        assert_eq!(second.new_round, Some(2));
        let v = t.view("r");
        assert_eq!((v.round, v.version), (2, 0));
        assert!(v.result.is_none());
        assert!(v.offers.new_round.is_empty());
        assert_eq!(v.turn, Light, "colours stay: Light starts again");
        assert_eq!(act(&mut t, Light, "a1").unwrap().seq, 0);
    }

    fn code(r: Result<Placed, Refusal>) -> String {
        r.unwrap_err().code.to_string()
    }

    #[test]
    fn a_takeback_undoes_the_askers_last_turn_only_with_consent() {
        let mut t = Table::new();
        assert_eq!(
            code(t.apply(Light, &Command::OfferTakeback)),
            "nothing-to-take-back"
        );
        act(&mut t, Light, "a1").unwrap();
        assert_eq!(
            code(t.apply(Dark, &Command::OfferTakeback)),
            "nothing-to-take-back",
            "Dark has not played"
        );
        assert_eq!(code(t.apply(Dark, &Command::AcceptTakeback)), "no-takeback-offer");
        t.apply(Light, &Command::OfferTakeback).unwrap();
        assert_eq!(t.view("r").offers.takeback, Some(Light));
        assert_eq!(code(t.apply(Light, &Command::OfferTakeback)), "already-offered");
        assert_eq!(
            code(t.apply(Light, &Command::AcceptTakeback)),
            "no-takeback-offer",
            "nobody accepts their own request"
        );
        t.apply(Dark, &Command::AcceptTakeback).unwrap();
        let v = t.view("r");
        assert_eq!((v.version, v.turn), (0, Light));
        assert!(v.actions.is_empty());
        assert_eq!(v.offers.takeback, None);
        // A whole turn goes back, its removal with it.
        for (seat, a) in [
            (Light, "a1"),
            (Dark, "b2"),
            (Light, "a4"),
            (Dark, "b4"),
            (Light, "a7"),
        ] {
            act(&mut t, seat, a).unwrap();
        }
        t.apply(Light, &Command::OfferTakeback).unwrap();
        act(&mut t, Light, "xb2").unwrap();
        assert_eq!(
            t.view("r").offers.takeback,
            Some(Light),
            "finishing the turn keeps the request: it covers the whole turn"
        );
        t.apply(Dark, &Command::AcceptTakeback).unwrap();
        let v = t.view("r");
        assert_eq!(v.actions, ["a1", "b2", "a4", "b4"]);
        assert_eq!(v.pieces.dark, ["b2", "b4"]);
        assert_eq!(v.turn, Light);
    }

    #[test]
    fn a_takeback_never_undoes_the_other_sides_turn() {
        let mut t = Table::new();
        act(&mut t, Light, "a1").unwrap();
        act(&mut t, Dark, "d6").unwrap();
        assert_eq!(code(t.apply(Light, &Command::OfferTakeback)), "opponent-played");
        // A request lapses when the side it was made to plays instead.
        t.apply(Dark, &Command::OfferTakeback).unwrap();
        act(&mut t, Light, "a4").unwrap();
        assert_eq!(t.view("r").offers.takeback, None);
        assert_eq!(
            code(t.apply(Light, &Command::AcceptTakeback)),
            "no-takeback-offer"
        );
        // Mid-turn, with the other side's removal pending, it is the other side's turn.
        for (seat, a) in [(Dark, "b2"), (Light, "a7")] {
            act(&mut t, seat, a).unwrap();
        }
        assert_eq!(t.view("r").pending_removals, 1);
        assert_eq!(code(t.apply(Dark, &Command::OfferTakeback)), "opponent-played");
        t.apply(Light, &Command::OfferTakeback).unwrap();
        t.apply(Dark, &Command::AcceptTakeback).unwrap();
        assert_eq!(
            t.view("r").actions,
            ["a1", "d6", "a4", "b2"],
            "only the placement goes"
        );
    }

    #[test]
    fn a_declined_offer_is_shown_until_the_next_event() {
        let mut t = Table::new();
        act(&mut t, Light, "a1").unwrap();
        t.apply(Light, &Command::OfferTakeback).unwrap();
        t.apply(Dark, &Command::DeclineTakeback).unwrap();
        let v = t.view("r");
        assert_eq!(v.offers.takeback, None);
        assert_eq!(
            v.offers.declined,
            Some(Declined {
                offer: OfferKind::Takeback,
                by: Dark
            })
        );
        assert_eq!(v.actions, ["a1"], "declined: nothing undone");
        assert_eq!(
            code(t.apply(Dark, &Command::DeclineTakeback)),
            "no-takeback-offer"
        );
        assert!(t.view("r").offers.declined.is_some(), "a refusal changes nothing");
        act(&mut t, Dark, "d6").unwrap();
        assert_eq!(t.view("r").offers.declined, None);
        t.apply(Dark, &Command::OfferDraw).unwrap();
        t.apply(Light, &Command::DeclineDraw).unwrap();
        let declined = t.view("r").offers.declined.unwrap();
        assert_eq!((declined.offer, declined.by), (OfferKind::Draw, Light));
        let text = crate::protocol::state_text(&t.view("r"), ByColor::default(), 3);
        assert!(
            text.contains(r#""declined":{"offer":"draw","by":"light"}"#),
            "{text}"
        );
        assert!(text.contains(r#""spectators":3"#), "{text}");
        t.apply(Light, &Command::OfferDraw).unwrap();
        assert_eq!(t.view("r").offers.declined, None, "any event clears it");
    }

    #[test]
    fn finished_rounds_keep_their_record() {
        let mut t = Table::new();
        assert_eq!(t.round_record("r", 1), Err(NoRecord::NotOver));
        assert_eq!(t.round_record("r", 0), Err(NoRecord::Unknown));
        act(&mut t, Light, "d6").unwrap();
        act(&mut t, Dark, "d2").unwrap();
        t.apply(Dark, &Command::Resign).unwrap();
        let first = t.round_record("r", 1).unwrap();
        assert_eq!(first.actions, ["d6", "d2"]);
        assert_eq!(first.result.winner, Some(Light));
        assert_eq!(first.result.reason, "resignation");
        t.apply(Light, &Command::NewRound).unwrap();
        t.apply(Dark, &Command::NewRound).unwrap();
        act(&mut t, Light, "a1").unwrap();
        assert_eq!(
            t.round_record("r", 1).unwrap(),
            first,
            "the next round leaves it be"
        );
        assert_eq!(t.round_record("r", 2), Err(NoRecord::NotOver));
        assert_eq!(t.round_record("r", 3), Err(NoRecord::Unknown));
    }

    #[test]
    fn moving_phase_lists_destinations_per_piece() {
        let mut t = Table::new();
        // 18 placements without a mill, then Light moves.
        let light = ["a7", "g7", "b4", "f4", "c3", "e5", "d1", "d3", "g1"];
        let dark = ["d7", "a4", "d6", "b6", "c5", "e3", "f2", "b2", "g4"];
        for (l, d) in light.iter().zip(dark) {
            act(&mut t, Light, l).unwrap();
            act(&mut t, Dark, d).unwrap();
        }
        let v = t.view("r");
        assert_eq!((v.pending_removals, v.turn), (0, Light));
        assert_eq!(v.phase.light, Phase::Moving);
        let legal = v.game.legal.unwrap();
        assert!(!legal.selectable.is_empty());
        let mut selectable = legal.selectable.clone();
        selectable.sort();
        assert_eq!(selectable, legal.destinations.keys().cloned().collect::<Vec<_>>());
        let (from, to) = legal.destinations.iter().next().unwrap();
        act(&mut t, Light, &format!("{from}-{}", to[0])).unwrap();
        assert_eq!(t.version(), 19);
    }
}
