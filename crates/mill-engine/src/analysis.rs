//! One position of a game judged for review: its value from Light's side, the engine's
//! best turn there and the line it expects.
//!
//! The search scores a position for the side to move; a review compares the positions
//! before and after each turn, whoever moved, so this module turns every score to
//! Light's side (positive: Light stands better) and folds in what the search cannot be
//! asked about: a finished game's result is exact (a win ±1, a draw 0), not searched.
//! [`Analysis::value`] maps a score onto −1 … +1 so that a lost piece counts for more in
//! a level game than in one already decided; the page classifies turns by drops of it.

use mill_core::{Color, Game, Outcome};

use crate::{Clock, Engine, Level, Limits, MATE, MATE_BOUND, PIECE, SearchError, SearchResult};

/// The score at which [`Analysis::value`] reaches tanh(1) ≈ 0.76: three pieces ahead.
pub const VALUE_SCALE: f64 = 3.0 * PIECE as f64;

/// What the engine says about one position of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The side to move in the position.
    pub to_move: Color,
    /// The score for Light in evaluation units ([`PIECE`] per piece): the search's for
    /// the side to move, negated when Dark is to move; ±[`MATE`] for a finished game
    /// won, 0 for one drawn.
    pub light_score: i32,
    /// A forced result, in turns from here (both sides' turns): positive when Light
    /// wins, negative when Dark wins; `Some(0)` when the game is already over with a win.
    pub win_in: Option<i32>,
    /// The game's result when it is over in this position (no search then).
    pub outcome: Option<Outcome>,
    /// The search, while the game goes on: its best turn and line are the side to move's.
    pub search: Option<SearchResult>,
}

impl Analysis {
    /// The position's value for Light from −1 (Dark wins) to +1 (Light wins): a forced
    /// result is ±1, anything else `tanh(score / VALUE_SCALE)`.
    pub fn value(&self) -> f64 {
        if self.light_score >= MATE_BOUND {
            1.0
        } else if self.light_score <= -MATE_BOUND {
            -1.0
        } else {
            (f64::from(self.light_score) / VALUE_SCALE).tanh()
        }
    }
}

/// Score for the side to move → score for Light.
fn for_light(score: i32, to_move: Color) -> i32 {
    match to_move {
        Color::Light => score,
        Color::Dark => -score,
    }
}

/// Analyses `game`'s current position with Hard's search under `limits`' depth, node and
/// time limits (the level in `limits` is ignored: a review wants the strongest play).
///
/// # Errors
/// [`SearchError::MidTurn`] while a removal is pending: a turn is judged only once it is
/// complete. A finished game is no error: its result is the analysis.
pub fn analyse(
    engine: &mut Engine,
    game: &Game,
    limits: &Limits,
    clock: &mut dyn Clock,
) -> Result<Analysis, SearchError> {
    let position = game.position();
    let to_move = position.turn();
    if let Some(outcome) = game.outcome() {
        return Ok(finished(to_move, outcome));
    }
    if position.pending_removals() > 0 {
        return Err(SearchError::MidTurn);
    }
    let limits = Limits {
        level: Level::Hard,
        ..*limits
    };
    // The classic weights: the page classifies turns by drops of the value, with
    // thresholds set on that scale (Hard's play weighs room to move far more).
    match engine.with_classic_search(|engine| engine.best_turn(game, &limits, clock)) {
        Ok(search) => Ok(Analysis {
            to_move,
            light_score: for_light(search.score, to_move),
            win_in: search.win_in().map(|n| match to_move {
                Color::Light => n,
                Color::Dark => -n,
            }),
            outcome: None,
            search: Some(search),
        }),
        // Without moves the rules call the game over; kept for a history the game did
        // not see (the search counts repetitions itself).
        Err(SearchError::GameOver) => Ok(finished(
            to_move,
            position.outcome().unwrap_or(Outcome::Draw {
                reason: mill_core::DrawReason::Threefold,
            }),
        )),
        Err(e) => Err(e),
    }
}

fn finished(to_move: Color, outcome: Outcome) -> Analysis {
    let (light_score, win_in) = match outcome {
        Outcome::Win {
            winner: Color::Light, ..
        } => (MATE, Some(0)),
        Outcome::Win {
            winner: Color::Dark, ..
        } => (-MATE, Some(0)),
        Outcome::Draw { .. } | Outcome::Aborted => (0, None),
    };
    Analysis {
        to_move,
        light_score,
        win_in,
        outcome: Some(outcome),
        search: None,
    }
}

#[cfg(test)]
mod tests {
    use mill_core::{Action, Game, Variant};

    use super::*;
    use crate::NoClock;

    fn game(actions: &[&str]) -> Game {
        let mut g = Game::new(Variant::Nine);
        for a in actions {
            let action = Action::parse(a, g.position().topology()).unwrap();
            g.play_action(action).unwrap();
        }
        g
    }

    fn run(g: &Game, depth: u32) -> Analysis {
        let mut engine = Engine::new(1);
        analyse(
            &mut engine,
            g,
            &Limits::new(Level::Easy, 1).with_depth(depth),
            &mut NoClock,
        )
        .unwrap()
    }

    #[test]
    fn the_score_is_light_s_whoever_is_to_move() {
        // Light has a1 and a4, Dark g7 and g1; Light to place closes a mill at a7.
        let light_to_move = run(&game(&["a1", "g7", "a4", "g1"]), 3);
        assert_eq!(light_to_move.to_move, Color::Light);
        assert!(light_to_move.light_score > PIECE / 2, "{light_to_move:?}");
        let best = light_to_move.search.as_ref().unwrap();
        assert_eq!(
            best.turn.to_notation(game(&[]).position().topology()).get(..3),
            Some("a7x")
        );
        assert!(light_to_move.value() > 0.0);
        // The same threat with Dark to move (Dark blocks it): still Light's view.
        let dark_to_move = run(&game(&["a1", "g7", "a4"]), 3);
        assert_eq!(dark_to_move.to_move, Color::Dark);
        let dark_search = dark_to_move.search.as_ref().unwrap();
        assert_eq!(dark_to_move.light_score, -dark_search.score);
    }

    #[test]
    fn a_finished_game_is_its_result_not_a_search() {
        // Light is blocked after the placing: Dark has won.
        let over = game(&[
            "b2", "b4", "d3", "c3", "e3", "c5", "e4", "d2", "e5", "xb4", "b4", "d5", "d6", "f2", "d7", "f4",
            "f6", "g7", "g4",
        ]);
        assert!(over.is_over());
        let a = run(&over, 2);
        assert!(a.search.is_none());
        assert_eq!(a.light_score, -MATE);
        assert_eq!(a.win_in, Some(0));
        assert_eq!(a.value(), -1.0);
        assert!(matches!(
            a.outcome,
            Some(Outcome::Win {
                winner: Color::Dark,
                ..
            })
        ));
    }

    #[test]
    fn a_pending_removal_is_not_a_position_to_judge() {
        let mid = game(&["a1", "g7", "a4", "g1", "a7"]);
        let mut engine = Engine::new(1);
        let limits = Limits::new(Level::Hard, 1).with_depth(2);
        assert_eq!(
            analyse(&mut engine, &mid, &limits, &mut NoClock),
            Err(SearchError::MidTurn)
        );
    }

    #[test]
    fn values_grow_with_the_score_and_stop_at_one() {
        let at = |light_score| Analysis {
            to_move: Color::Light,
            light_score,
            win_in: None,
            outcome: None,
            search: None,
        };
        assert_eq!(at(0).value(), 0.0);
        assert!(at(PIECE).value() > 0.3 && at(PIECE).value() < 0.35);
        assert!(at(3 * PIECE).value() > at(2 * PIECE).value());
        assert_eq!(at(-PIECE).value(), -at(PIECE).value());
        assert_eq!(at(MATE - 5).value(), 1.0);
        assert_eq!(at(-(MATE - 5)).value(), -1.0);
    }

    #[test]
    fn the_review_judges_on_the_classic_scale() {
        // Light's three pieces on points with four neighbours, Dark's on points with
        // two: Hard's own weights value that room far more than the review's scale.
        let roomy = game(&["d2", "a7", "b4", "g1", "f4", "e5"]);
        let a = run(&roomy, 1);
        let mut engine = Engine::new(1);
        let limits = Limits::new(Level::Hard, 1).with_depth(1);
        let hard = engine
            .search(roomy.position(), &[], &limits, &mut NoClock)
            .unwrap();
        let classic = engine
            .with_classic_search(|e| e.search(roomy.position(), &[], &limits, &mut NoClock))
            .unwrap();
        assert_eq!(a.light_score, classic.score);
        assert!(
            hard.score > classic.score + PIECE / 2,
            "{} vs {}",
            hard.score,
            classic.score
        );
    }
}
