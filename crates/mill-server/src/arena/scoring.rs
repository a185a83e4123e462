//! An arena's points, as lichess's arena scores them: a win 2, a draw 1, a loss 0;
//! after two wins in a row a player is *on fire* and scores double (a win 4, a draw 2)
//! until a game that is not a win. A draw before each side has made [`SHORT_DRAW`]
//! turns scores nothing (and, not being a win, puts the fire out). A game that is
//! still being played, or was aborted, scores nothing and changes no streak.
//!
//! Pure: the standings are computed from the stored games every time they are asked
//! for (`standings`), so what is shown always equals a recount of what is stored.
//! Ties are broken by performance in the arena ([`performance`]).

use std::collections::HashMap;

/// Turns each side must have made for a draw to score.
pub const SHORT_DRAW: u32 = 10;

/// Rating a player without one counts as, for performance.
pub const DEFAULT_RATING: f64 = 1500.0;

/// How one game went for one of its players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result {
    /// Won.
    Win,
    /// Drawn after both sides made [`SHORT_DRAW`] turns.
    Draw,
    /// Drawn before that: scores nothing.
    ShortDraw,
    /// Lost.
    Loss,
}

impl Result {
    /// The word on the wire (`"win"`, `"draw"`, `"loss"`): a short draw is a draw.
    pub fn as_str(self) -> &'static str {
        match self {
            Result::Win => "win",
            Result::Draw | Result::ShortDraw => "draw",
            Result::Loss => "loss",
        }
    }

    /// The score for performance: 1, ½ or 0.
    fn fraction(self) -> f64 {
        match self {
            Result::Win => 1.0,
            Result::Draw | Result::ShortDraw => 0.5,
            Result::Loss => 0.0,
        }
    }
}

/// A player's games scored in the order they began.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scored {
    /// Each game's points (`0` for one in play or aborted).
    pub points: Vec<u32>,
    /// The sum.
    pub total: u32,
    /// On fire now: the next win scores double.
    pub fire: bool,
}

/// Scores one player's games, oldest first (`None`: in play or aborted).
pub fn score(games: &[Option<Result>]) -> Scored {
    let mut wins_in_a_row = 0u32;
    let mut out = Scored::default();
    for game in games {
        let fire = wins_in_a_row >= 2;
        let base = match game {
            None => {
                out.points.push(0);
                continue;
            }
            Some(Result::Win) => {
                wins_in_a_row += 1;
                2
            }
            Some(Result::Draw) => {
                wins_in_a_row = 0;
                1
            }
            Some(Result::ShortDraw | Result::Loss) => {
                wins_in_a_row = 0;
                0
            }
        };
        let points = if fire { base * 2 } else { base };
        out.points.push(points);
        out.total += points;
    }
    out.fire = wins_in_a_row >= 2;
    out
}

/// Performance in the arena: the mean over its finished games of the opponent's
/// rating plus 400 for a win, minus 400 for a loss (a draw: the rating itself); `None`
/// before any game has finished.
pub fn performance(games: &[(f64, Result)]) -> Option<f64> {
    if games.is_empty() {
        return None;
    }
    let sum: f64 = games
        .iter()
        .map(|(rating, r)| rating + 800.0 * (r.fraction() - 0.5))
        .sum();
    Some(sum / games.len() as f64)
}

/// How a stored game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Light won.
    Light,
    /// Dark won.
    Dark,
    /// A draw.
    Draw,
    /// Aborted: counts for nobody.
    Aborted,
}

impl Ending {
    /// The stored word.
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Light => "light",
            Ending::Dark => "dark",
            Ending::Draw => "draw",
            Ending::Aborted => "aborted",
        }
    }

    /// Reads the stored word.
    pub fn parse(s: &str) -> Option<Ending> {
        Some(match s {
            "light" => Ending::Light,
            "dark" => Ending::Dark,
            "draw" => Ending::Draw,
            "aborted" => Ending::Aborted,
            _ => return None,
        })
    }

    /// From a round's outcome.
    pub fn of(outcome: &mill_core::Outcome) -> Ending {
        match outcome {
            mill_core::Outcome::Win { winner, .. } if *winner == mill_core::Color::Light => Ending::Light,
            mill_core::Outcome::Win { .. } => Ending::Dark,
            mill_core::Outcome::Draw { .. } => Ending::Draw,
            mill_core::Outcome::Aborted => Ending::Aborted,
        }
    }
}

/// One stored arena game, as the standings read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Game {
    /// The room it is played in.
    pub room: String,
    /// Light's account.
    pub light: i64,
    /// Dark's account.
    pub dark: i64,
    /// Light's rating when paired.
    pub light_rating: f64,
    /// Dark's rating when paired.
    pub dark_rating: f64,
    /// When it was paired (Unix ms): a player's games in this order.
    pub started_at: i64,
    /// How it ended (`None`: in play).
    pub ending: Option<Ending>,
    /// Turns Light and Dark made (known once it has ended).
    pub turns: (u32, u32),
}

impl Game {
    /// How it went for `account` (`None`: in play, aborted, or not theirs).
    pub fn result_for(&self, account: i64) -> Option<Result> {
        let short = self.turns.0 < SHORT_DRAW || self.turns.1 < SHORT_DRAW;
        let light = account == self.light;
        if !light && account != self.dark {
            return None;
        }
        Some(match self.ending? {
            Ending::Aborted => return None,
            Ending::Draw if short => Result::ShortDraw,
            Ending::Draw => Result::Draw,
            Ending::Light if light => Result::Win,
            Ending::Dark if !light => Result::Win,
            Ending::Light | Ending::Dark => Result::Loss,
        })
    }

    /// The other player.
    pub fn opponent_of(&self, account: i64) -> i64 {
        if account == self.light {
            self.dark
        } else {
            self.light
        }
    }
}

/// A player of an arena, as the standings read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// Account id.
    pub account: i64,
    /// Account name.
    pub name: String,
    /// `joined`, `paused` or `withdrawn`.
    pub state: String,
}

/// One game in a player's row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowGame {
    /// The room.
    pub room: String,
    /// The opponent's account.
    pub opponent: i64,
    /// How it went (`None`: in play or aborted).
    pub result: Option<Result>,
    /// Whether it has ended (aborted included).
    pub ended: bool,
    /// Its points.
    pub points: u32,
}

/// One row of the standings.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Account id.
    pub account: i64,
    /// Account name.
    pub name: String,
    /// `joined`, `paused` or `withdrawn`.
    pub state: String,
    /// Points.
    pub score: u32,
    /// On fire.
    pub fire: bool,
    /// Performance (see [`performance`]).
    pub performance: Option<f64>,
    /// The room of a game in play, if any.
    pub playing: Option<String>,
    /// Games, oldest first.
    pub games: Vec<RowGame>,
}

/// The standings: every player, by score, then performance, then name.
pub fn standings(players: &[Player], games: &[Game]) -> Vec<Row> {
    let mut by_player: HashMap<i64, Vec<&Game>> = HashMap::new();
    for g in games {
        by_player.entry(g.light).or_default().push(g);
        by_player.entry(g.dark).or_default().push(g);
    }
    let mut rows: Vec<Row> = players
        .iter()
        .map(|p| {
            let mut mine = by_player.remove(&p.account).unwrap_or_default();
            mine.sort_by(|a, b| a.started_at.cmp(&b.started_at).then_with(|| a.room.cmp(&b.room)));
            let results: Vec<Option<Result>> = mine.iter().map(|g| g.result_for(p.account)).collect();
            let scored = score(&results);
            let rated: Vec<(f64, Result)> = mine
                .iter()
                .zip(&results)
                .filter_map(|(g, r)| {
                    let opponent_rating = if g.light == p.account {
                        g.dark_rating
                    } else {
                        g.light_rating
                    };
                    r.map(|r| (opponent_rating, r))
                })
                .collect();
            Row {
                account: p.account,
                name: p.name.clone(),
                state: p.state.clone(),
                score: scored.total,
                fire: scored.fire,
                performance: performance(&rated),
                playing: mine.iter().find(|g| g.ending.is_none()).map(|g| g.room.clone()),
                games: mine
                    .iter()
                    .zip(results.iter().zip(&scored.points))
                    .map(|(g, (r, points))| RowGame {
                        room: g.room.clone(),
                        opponent: g.opponent_of(p.account),
                        result: *r,
                        ended: g.ending.is_some(),
                        points: *points,
                    })
                    .collect(),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| {
                let (pa, pb) = (
                    a.performance.unwrap_or(f64::MIN),
                    b.performance.unwrap_or(f64::MIN),
                );
                pb.total_cmp(&pa)
            })
            .then_with(|| a.name.cmp(&b.name))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::Result::{Draw, Loss, ShortDraw, Win};
    use super::*;

    fn points(games: &[Option<Result>]) -> Vec<u32> {
        score(games).points
    }

    #[test]
    fn a_win_scores_two_a_draw_one_a_loss_nothing() {
        assert_eq!(points(&[Some(Win)]), [2]);
        assert_eq!(points(&[Some(Draw)]), [1]);
        assert_eq!(points(&[Some(Loss)]), [0]);
        let s = score(&[Some(Win), Some(Loss), Some(Draw), Some(Win)]);
        assert_eq!(s.points, [2, 0, 1, 2]);
        assert_eq!(s.total, 5);
        assert!(!s.fire);
    }

    #[test]
    fn two_wins_in_a_row_light_the_fire_and_the_next_games_score_double() {
        let s = score(&[Some(Win), Some(Win)]);
        assert_eq!(s.points, [2, 2], "the two wins that light it are not doubled");
        assert!(s.fire);
        assert_eq!(
            points(&[Some(Win), Some(Win), Some(Win), Some(Win)]),
            [2, 2, 4, 4]
        );
        // A draw on fire scores double too, and puts it out.
        let s = score(&[Some(Win), Some(Win), Some(Draw), Some(Win)]);
        assert_eq!(s.points, [2, 2, 2, 2]);
        assert!(!s.fire);
    }

    #[test]
    fn a_game_that_is_not_a_win_puts_the_fire_out() {
        assert_eq!(
            points(&[Some(Win), Some(Win), Some(Loss), Some(Win), Some(Win), Some(Win)]),
            [2, 2, 0, 2, 2, 4]
        );
        assert_eq!(
            points(&[Some(Win), Some(Win), Some(ShortDraw), Some(Win)]),
            [2, 2, 0, 2],
            "a short draw is not a win"
        );
        assert!(!score(&[Some(Win), Some(Win), Some(Loss)]).fire);
    }

    #[test]
    fn a_short_draw_scores_nothing_even_on_fire() {
        assert_eq!(points(&[Some(ShortDraw)]), [0]);
        assert_eq!(points(&[Some(Win), Some(Win), Some(ShortDraw)]), [2, 2, 0]);
    }

    #[test]
    fn a_game_in_play_or_aborted_scores_nothing_and_keeps_the_streak() {
        let s = score(&[Some(Win), None, Some(Win), None]);
        assert_eq!(s.points, [2, 0, 2, 0]);
        assert!(s.fire);
        assert_eq!(points(&[Some(Win), Some(Win), None, Some(Win)]), [2, 2, 0, 4]);
    }

    fn game(room: &str, light: i64, dark: i64, at: i64, ending: Option<Ending>, turns: (u32, u32)) -> Game {
        Game {
            room: room.into(),
            light,
            dark,
            light_rating: 1500.0,
            dark_rating: 1500.0,
            started_at: at,
            ending,
            turns,
        }
    }

    #[test]
    fn a_draw_needs_ten_turns_from_each_side() {
        let long = game("r", 1, 2, 0, Some(Ending::Draw), (10, 10));
        assert_eq!(long.result_for(1), Some(Draw));
        assert_eq!(long.result_for(2), Some(Draw));
        for turns in [(9, 10), (10, 9), (0, 0)] {
            let short = game("r", 1, 2, 0, Some(Ending::Draw), turns);
            assert_eq!(short.result_for(1), Some(ShortDraw), "{turns:?}");
        }
        // A short decisive game counts in full.
        let quick = game("r", 1, 2, 0, Some(Ending::Dark), (3, 3));
        assert_eq!(quick.result_for(1), Some(Loss));
        assert_eq!(quick.result_for(2), Some(Win));
        assert_eq!(quick.result_for(3), None);
        assert_eq!(
            game("r", 1, 2, 0, Some(Ending::Aborted), (0, 0)).result_for(1),
            None
        );
    }

    #[test]
    fn performance_is_the_opponents_rating_moved_by_the_result() {
        assert_eq!(performance(&[]), None);
        assert_eq!(performance(&[(1500.0, Win)]), Some(1900.0));
        assert_eq!(performance(&[(1500.0, Loss)]), Some(1100.0));
        assert_eq!(performance(&[(1600.0, Draw), (1400.0, Win)]), Some(1700.0));
    }

    #[test]
    fn standings_order_by_score_then_performance_and_follow_the_games_in_order() {
        let players: Vec<Player> = [(1, "ann"), (2, "bob"), (3, "cid"), (4, "dan")]
            .iter()
            .map(|&(account, name)| Player {
                account,
                name: name.into(),
                state: "joined".into(),
            })
            .collect();
        let mut games = vec![
            game("g1", 1, 2, 10, Some(Ending::Light), (12, 12)),
            game("g2", 3, 4, 10, Some(Ending::Dark), (12, 12)),
            game("g3", 1, 4, 20, Some(Ending::Light), (12, 12)),
            game("g4", 2, 3, 20, None, (0, 0)),
        ];
        // cid was rated higher when dan beat him.
        games[1].light_rating = 1800.0;
        let rows = standings(&players, &games);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["ann", "dan", "bob", "cid"]);
        assert_eq!(rows[0].score, 4);
        assert!(rows[0].fire);
        assert_eq!(rows[0].games.len(), 2);
        assert_eq!(rows[0].games[1].opponent, 4);
        assert_eq!(rows[1].score, 2);
        assert_eq!(rows[2].playing.as_deref(), Some("g4"));
        assert_eq!(rows[2].games[1].result, None);
        assert!(!rows[2].games[1].ended);
        // bob (lost to ann) and cid (lost to dan, rated 1500) are tied at 0: bob's
        // performance 1100, cid's 1100 too; the name decides.
        assert_eq!(rows[2].score, 0);
        assert_eq!(rows[3].score, 0);
    }

    #[test]
    fn performance_breaks_a_tie_in_score() {
        let players: Vec<Player> = [(1, "ann"), (2, "bob"), (3, "cid"), (4, "dan")]
            .iter()
            .map(|&(account, name)| Player {
                account,
                name: name.into(),
                state: "joined".into(),
            })
            .collect();
        let mut games = vec![
            game("g1", 1, 2, 10, Some(Ending::Light), (12, 12)),
            game("g2", 4, 3, 10, Some(Ending::Light), (12, 12)),
        ];
        // dan beat a stronger player than ann did: dan first, though "ann" < "dan".
        games[1].dark_rating = 1700.0;
        let rows = standings(&players, &games);
        assert_eq!(rows[0].name, "dan");
        assert_eq!(rows[1].name, "ann");
        assert_eq!((rows[0].score, rows[1].score), (2, 2));
    }
}
