//! One serialisable snapshot of a game: everything a page needs to draw it and to offer
//! only legal clicks. The server sends it (inside its `state` message, with the room's own
//! facts around it) and the browser build returns it, so online and local play read the
//! same fields with the same meaning. Field names are the wire's (docs/PROTOCOL.md).
//!
//! Everything is read from the game's rules and board: nothing here knows how many
//! points or pieces a variant has.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bitboard::Bitboard;
use crate::color::{ByColor, Color};
use crate::game::Game;
use crate::outcome::Outcome;
use crate::position::Phase;
use crate::rules::Variant;
use crate::topology::Topology;

/// The legal clicks of the side to move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Legal {
    /// Points that may be clicked now: empty points while placing, own pieces that can
    /// move while moving or flying, removable opponent pieces while a removal is owed.
    pub selectable: Vec<String>,
    /// For each own piece that may move now: where it may go (empty while placing or
    /// removing).
    pub destinations: BTreeMap<String, Vec<String>>,
    /// Opponent pieces that may be removed now (empty unless a removal is owed).
    pub removable: Vec<String>,
}

/// A snapshot of a game (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameView {
    /// The rule set played.
    pub variant: Variant,
    /// mill-core's one-line position string.
    pub position: String,
    /// Side to move; also the side that must remove while `pending_removals > 0`.
    pub turn: Color,
    /// Each side's phase.
    pub phase: ByColor<Phase>,
    /// Pieces each side still has to place.
    pub in_hand: ByColor<u8>,
    /// Pieces each side has on the board.
    pub on_board: ByColor<u8>,
    /// The points each side occupies.
    pub pieces: ByColor<Vec<String>>,
    /// Removals the side to move still owes before the turn passes.
    pub pending_removals: u8,
    /// Turns without a removal since placing ended (toward the quiet-turn draw).
    pub quiet_turns: u16,
    /// The legal clicks, `None` once the game is over.
    pub legal: Option<Legal>,
    /// Every action played, in text form (`d6`, `a1-a4`, `xd2`).
    pub actions: Vec<String>,
    /// The completed turns in notation (`d6`, `a1-a4`, `g1xd2`).
    pub record: Vec<String>,
    /// The latest turn in notation: the one in progress (its removals so far) if a
    /// removal is owed, else the last completed one; `None` before the first.
    pub last_turn: Option<String>,
    /// The actions of that latest turn, in text form (`["f4-g4", "xb6"]`), for marking
    /// it on the board.
    pub last_turn_actions: Vec<String>,
    /// The mill lines (three point names each) the latest turn's placement or move
    /// closed; empty when it closed none.
    pub closed_mills: Vec<Vec<String>>,
    /// The result, once the game is over.
    pub outcome: Option<Outcome>,
}

impl GameView {
    /// The snapshot of `game` now.
    pub fn of(game: &Game) -> GameView {
        let position = game.position();
        let t = position.topology();
        let outcome = game.outcome();
        let legal = outcome.is_none().then(|| {
            let selectable = game.selectable();
            Legal {
                selectable: names(t, selectable),
                destinations: selectable
                    .iter()
                    .map(|p| (p, game.destinations(p)))
                    .filter(|(_, to)| !to.is_empty())
                    .map(|(p, to)| (t.name(p).to_string(), names(t, to)))
                    .collect(),
                removable: names(t, game.removable()),
            }
        });
        GameView {
            variant: position.variant(),
            position: position.to_string(),
            turn: position.turn(),
            phase: ByColor::new_with(|c| position.phase(c)),
            in_hand: ByColor::new_with(|c| position.in_hand(c)),
            on_board: ByColor::new_with(|c| position.on_board(c)),
            pieces: ByColor::new_with(|c| names(t, position.pieces(c))),
            pending_removals: position.pending_removals(),
            quiet_turns: position.quiet_turns(),
            legal,
            actions: texts(t, game.actions()),
            record: game.record(),
            last_turn: game.latest_turn().map(|turn| turn.to_notation(t)),
            last_turn_actions: texts(t, game.latest_turn_actions()),
            closed_mills: game.closed_mills().map(|line| names(t, line)).collect(),
            outcome,
        }
    }

    /// Who occupies the point named `name`, if anyone.
    pub fn piece_at(&self, name: &str) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&c| self.pieces.get(c).iter().any(|p| p == name))
    }
}

fn names(t: &Topology, points: Bitboard) -> Vec<String> {
    points.iter().map(|p| t.name(p).to_string()).collect()
}

fn texts(t: &Topology, actions: &[crate::Action]) -> Vec<String> {
    actions.iter().map(|a| a.to_text(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, Position};

    fn play(game: &mut Game, actions: &[&str]) {
        for text in actions {
            let action = Action::parse(text, game.position().topology()).unwrap();
            game.play_action(action).unwrap();
        }
    }

    #[test]
    fn the_start_offers_every_point_to_light() {
        let v = GameView::of(&Game::default());
        assert_eq!(v.turn, Color::Light);
        assert_eq!(v.in_hand, ByColor { light: 9, dark: 9 });
        let legal = v.legal.unwrap();
        assert_eq!(legal.selectable.len(), 24);
        assert!(legal.destinations.is_empty() && legal.removable.is_empty());
        assert_eq!((v.last_turn, v.last_turn_actions.len()), (None, 0));
        assert!(v.closed_mills.is_empty() && v.outcome.is_none());
    }

    #[test]
    fn the_latest_turn_is_the_one_in_progress_else_the_last_completed() {
        let mut game = Game::default();
        play(&mut game, &["a1", "b2", "d1", "d2", "g1"]);
        let v = GameView::of(&game);
        assert_eq!(v.last_turn.as_deref(), Some("g1"));
        assert_eq!(v.last_turn_actions, ["g1"]);
        assert_eq!(v.closed_mills, [["a1", "d1", "g1"]]);
        assert_eq!(v.legal.unwrap().removable, ["b2", "d2"]);
        play(&mut game, &["xd2"]);
        let v = GameView::of(&game);
        assert_eq!(v.last_turn.as_deref(), Some("g1xd2"));
        assert_eq!(v.last_turn_actions, ["g1", "xd2"]);
        assert_eq!(
            v.closed_mills,
            [["a1", "d1", "g1"]],
            "the mill stays with its turn"
        );
        assert_eq!(v.piece_at("g1"), Some(Color::Light));
        assert_eq!(v.piece_at("d2"), None);
        play(&mut game, &["d2"]);
        let v = GameView::of(&game);
        assert_eq!(v.last_turn_actions, ["d2"]);
        assert!(v.closed_mills.is_empty(), "the next turn closed none");
    }

    #[test]
    fn a_game_started_mid_turn_begins_with_the_removal() {
        let start: Position = ".../.../.../....../.../DD./LLL l 6 7 1 0".parse().unwrap();
        let mut game = Game::from_position(start);
        play(&mut game, &["xd2"]);
        let v = GameView::of(&game);
        assert_eq!(v.last_turn_actions, ["xd2"]);
        assert!(v.closed_mills.is_empty());
        play(&mut game, &["d6", "a4"]);
        assert_eq!(GameView::of(&game).last_turn_actions, ["a4"]);
    }

    #[test]
    fn the_wire_names_are_snake_case_and_the_outcome_is_tagged() {
        let mut game = Game::default();
        play(&mut game, &["d6"]);
        game.resign(Color::Dark).unwrap();
        let json = serde_json::to_value(GameView::of(&game)).unwrap();
        assert_eq!(json["variant"], "nine");
        assert_eq!(json["in_hand"]["light"], 8);
        assert_eq!(json["phase"]["dark"], "placing");
        assert_eq!(json["pieces"]["light"][0], "d6");
        assert_eq!(json["last_turn_actions"][0], "d6");
        assert!(json["legal"].is_null());
        assert_eq!(
            json["outcome"],
            serde_json::json!({"kind": "win", "winner": "light", "reason": "resignation"})
        );
        let back: GameView = serde_json::from_value(json).unwrap();
        assert_eq!(back, GameView::of(&game));
    }

    #[test]
    fn the_clocks_results_are_in_the_view() {
        let mut game = Game::default();
        play(&mut game, &["d6"]);
        game.time_out(Color::Dark).unwrap();
        let json = serde_json::to_value(GameView::of(&game)).unwrap();
        assert!(json["legal"].is_null());
        assert_eq!(
            json["outcome"],
            serde_json::json!({"kind": "win", "winner": "light", "reason": "timeout"})
        );
        let mut game = Game::default();
        game.abort().unwrap();
        let view = GameView::of(&game);
        assert!(view.legal.is_none(), "nothing to click in an aborted round");
        let json = serde_json::to_value(&view).unwrap();
        assert_eq!(json["outcome"], serde_json::json!({"kind": "aborted"}));
        assert_eq!(serde_json::from_value::<GameView>(json).unwrap(), view);
        let mut game = Game::default();
        game.draw_abandoned().unwrap();
        let json = serde_json::to_value(GameView::of(&game)).unwrap();
        assert_eq!(
            json["outcome"],
            serde_json::json!({"kind": "draw", "reason": "abandoned"})
        );
    }
}
