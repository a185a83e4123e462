//! Ratings: Glicko-2 (the `skillratings` crate), one rating per rule set and speed, each
//! rated round its own rating period. Pure: the stores keep the numbers, this module
//! says what they start at and what a result makes of them.
//!
//! Starting values are Glickman's: rating 1500, deviation (RD) 350, volatility 0.06; the
//! system constant τ is 0.5 (Glickman suggests 0.3–1.2; 0.5 is what lichess uses too).
//! A rating is provisional while its RD is at least [`PROVISIONAL_RD`].

use serde::Serialize;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};

use crate::timecontrol::TimeControl;

/// Rating of a new player.
pub const START_RATING: f64 = 1500.0;
/// Rating deviation of a new player.
pub const START_RD: f64 = 350.0;
/// Volatility of a new player.
pub const START_VOL: f64 = 0.06;
/// Glicko-2's system constant τ: how much the volatility may change in one period.
pub const TAU: f64 = 0.5;
/// A rating whose deviation is at least this is provisional (not on leaderboards).
pub const PROVISIONAL_RD: f64 = 110.0;

/// How fast a time control is, by its estimated length `initial + 40 × increment`
/// seconds, as lichess does (its ultra-bullet is bullet here); correspondence by days.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Speed {
    /// Under 3 minutes.
    Bullet,
    /// 3 to under 8 minutes.
    Blitz,
    /// 8 to under 25 minutes.
    Rapid,
    /// 25 minutes and more.
    Classical,
    /// Days per turn.
    Correspondence,
}

impl Speed {
    /// The speed of a time control.
    pub fn of(control: TimeControl) -> Speed {
        match control {
            TimeControl::Correspondence { .. } => Speed::Correspondence,
            TimeControl::Live { initial, increment } => {
                let estimated = u64::from(initial) + 40 * u64::from(increment);
                match estimated {
                    0..180 => Speed::Bullet,
                    180..480 => Speed::Blitz,
                    480..1500 => Speed::Rapid,
                    _ => Speed::Classical,
                }
            }
        }
    }

    /// The name on the wire and in the database (`blitz`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One player's rating in one rule set and speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rating {
    /// The rating.
    pub rating: f64,
    /// Its deviation (RD).
    pub rd: f64,
    /// Its volatility.
    pub vol: f64,
    /// Rated rounds played.
    pub games: u32,
}

impl Default for Rating {
    fn default() -> Rating {
        Rating {
            rating: START_RATING,
            rd: START_RD,
            vol: START_VOL,
            games: 0,
        }
    }
}

/// How a rated round ended for one of its players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Won.
    Win,
    /// Drew.
    Draw,
    /// Lost.
    Loss,
}

impl Score {
    fn outcome(self) -> Outcomes {
        match self {
            Score::Win => Outcomes::WIN,
            Score::Draw => Outcomes::DRAW,
            Score::Loss => Outcomes::LOSS,
        }
    }
}

/// Rated pairing's window (`POST /api/pair` with `"rated": true`): two rated seeks of
/// one pool pair only while their ratings (for that rule set and speed) are at most
/// `window` apart, where the window widens with how long the older of the two has
/// waited, `waited_ms`:
///
/// - **±[`WINDOW_START`] (100) at once.** Glicko-2 expects the stronger of two players
///   100 apart to score about 0.64: a game either may win. In a busy pool (the figure
///   aimed at is 1,000 seekers a minute with ratings spread 800–2400, about 6 arrivals
///   a second per 100 points in its middle) a seeker meets someone this close within a
///   second or two, and lichess's pools start about as narrow.
/// - **+[`WINDOW_PER_SECOND`] (50) for every second waited**, counted in whole
///   milliseconds (`100 + 50 × ms / 1000`, integer arithmetic, so each store computes
///   exactly the same number): ±350 after 5 s, ±600 after 10 s, ±1100 after 20 s. The
///   held request looks again every second (`rooms/pairing.rs` `POLL`), so the window
///   is met within a second of reaching someone.
/// - **Unbounded from [`WINDOW_OPEN_MS`] (30 s) on**, when it would be ±1600: the whole
///   800–2400 spread, so from then on anyone in the pool will do; that leaves half of
///   the 60 s pairing wait (`--pair-secs`) in which a lone seeker still meets whoever
///   comes, as casual pairing does. Waiting longer for a close game is worth less to a
///   player than a game at all.
///
/// Among the seeks in the window the closest rating is chosen (ties: the older seek).
/// `None`: unbounded.
pub fn pairing_window(waited_ms: i64) -> Option<i64> {
    let waited = waited_ms.max(0);
    (waited < WINDOW_OPEN_MS).then(|| WINDOW_START + WINDOW_PER_SECOND * waited / 1000)
}

/// Whether two rated seeks with ratings `a` and `b`, the older of which has waited
/// `waited_ms`, may be paired ([`pairing_window`]).
pub fn within_window(a: f64, b: f64, waited_ms: i64) -> bool {
    pairing_window(waited_ms).is_none_or(|w| (a - b).abs() <= w as f64)
}

/// The window's half-width at once (rating points).
pub const WINDOW_START: i64 = 100;
/// How much the window widens for each second the older seek has waited.
pub const WINDOW_PER_SECOND: i64 = 50;
/// From this wait on (ms), the window is unbounded.
pub const WINDOW_OPEN_MS: i64 = 30_000;

/// [`within_window`] as an SQL condition, for SQLite and PostgreSQL alike (integer
/// arithmetic on both, as in [`pairing_window`]): `row_rating` and `row_since` are the
/// candidate row's rating and creation time, `rating` the looking seek's rating, `since`
/// when the looking seek was made (now, for one arriving), `now` the time; `least` and
/// `greatest` the backend's two-argument minimum and maximum (`min` and `max` in
/// SQLite). The older of the two seeks is the one made first.
pub fn window_sql(
    row_rating: &str,
    row_since: &str,
    rating: &str,
    since: &str,
    now: &str,
    least: &str,
    greatest: &str,
) -> String {
    let waited = format!("{greatest}(0, {now} - {least}({since}, {row_since}))");
    format!(
        "({waited} >= {WINDOW_OPEN_MS}
          OR abs({row_rating} - {rating}) <= {WINDOW_START} + ({WINDOW_PER_SECOND} * {waited}) / 1000)"
    )
}

fn glicko(r: &Rating) -> Glicko2Rating {
    Glicko2Rating {
        rating: r.rating,
        deviation: r.rd,
        volatility: r.vol,
    }
}

fn config() -> Glicko2Config {
    Glicko2Config {
        tau: TAU,
        ..Glicko2Config::new()
    }
}

impl Rating {
    /// Whether the rating is still provisional (RD ≥ [`PROVISIONAL_RD`]).
    pub fn provisional(&self) -> bool {
        self.rd >= PROVISIONAL_RD
    }

    /// The rating after one rating period with these results (the opponents' ratings
    /// as they were before it).
    pub fn after_period(&self, results: &[(Rating, Score)]) -> Rating {
        let results: Vec<(Glicko2Rating, Outcomes)> =
            results.iter().map(|(o, s)| (glicko(o), s.outcome())).collect();
        let new = glicko2_rating_period(&glicko(self), &results, &config());
        Rating {
            rating: new.rating,
            rd: new.deviation,
            vol: new.volatility,
            games: self.games + u32::try_from(results.len()).unwrap_or(u32::MAX),
        }
    }

    /// Both players' ratings after one rated round between them (its own period):
    /// `score` is the first player's.
    pub fn after_round(first: Rating, second: Rating, score: Score) -> (Rating, Rating) {
        let other = match score {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        };
        (
            first.after_period(&[(second, score)]),
            second.after_period(&[(first, other)]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, rd: f64) -> Rating {
        Rating {
            rating,
            rd,
            vol: 0.06,
            games: 0,
        }
    }

    /// Glickman's worked example ("Example of the Glicko-2 system", 2013): one period of
    /// three games.
    #[test]
    fn glickmans_worked_example() {
        let player = r(1500.0, 200.0);
        let after = player.after_period(&[
            (r(1400.0, 30.0), Score::Win),
            (r(1550.0, 100.0), Score::Loss),
            (r(1700.0, 300.0), Score::Loss),
        ]);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.rd - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.vol - 0.05999).abs() < 0.00001, "{after:?}");
        assert_eq!(after.games, 3);
        assert!(after.provisional());
    }

    #[test]
    fn a_round_moves_both_ratings_in_opposite_directions() {
        let (w, l) = Rating::after_round(Rating::default(), Rating::default(), Score::Win);
        assert!(w.rating > START_RATING && l.rating < START_RATING);
        assert!(((w.rating - START_RATING) + (l.rating - START_RATING)).abs() < 1e-9);
        assert!(w.rd < START_RD && l.rd < START_RD);
        assert_eq!((w.games, l.games), (1, 1));
        let (a, b) = Rating::after_round(r(1500.0, 60.0), r(1500.0, 60.0), Score::Draw);
        assert!((a.rating - 1500.0).abs() < 1e-9 && (b.rating - 1500.0).abs() < 1e-9);
        assert!(!a.provisional());
    }

    #[test]
    fn the_pairing_window_starts_narrow_and_widens_to_unbounded() {
        assert_eq!(pairing_window(0), Some(100));
        assert_eq!(
            pairing_window(-5_000),
            Some(100),
            "a clock behind counts as no wait"
        );
        assert_eq!(pairing_window(999), Some(149));
        assert_eq!(pairing_window(1_000), Some(150));
        assert_eq!(pairing_window(8_000), Some(500));
        assert_eq!(pairing_window(29_999), Some(1_599));
        assert_eq!(pairing_window(30_000), None);
        assert_eq!(pairing_window(i64::MAX), None);
        // Never narrower for a longer wait.
        let mut last = 0;
        for ms in (0..30_000).step_by(7) {
            let w = pairing_window(ms).unwrap();
            assert!(w >= last);
            last = w;
        }
        assert!(within_window(1500.0, 1600.0, 0));
        assert!(!within_window(1500.0, 1600.5, 0));
        assert!(!within_window(1500.0, 2000.0, 7_999));
        assert!(within_window(1500.0, 2000.0, 8_000));
        assert!(within_window(2000.0, 1500.0, 8_000), "symmetric");
        assert!(within_window(800.0, 2400.0, 30_000));
        assert!(!within_window(800.0, 2400.0, 29_999));
    }

    #[test]
    fn speeds_by_estimated_length() {
        let live = |initial, increment| Speed::of(TimeControl::Live { initial, increment });
        assert_eq!(live(60, 0), Speed::Bullet);
        assert_eq!(live(120, 1), Speed::Bullet); // 160 s
        assert_eq!(live(180, 0), Speed::Blitz);
        assert_eq!(live(180, 2), Speed::Blitz); // 260 s
        assert_eq!(live(300, 5), Speed::Rapid); // 500 s
        assert_eq!(live(600, 0), Speed::Rapid);
        assert_eq!(live(900, 15), Speed::Classical); // 1500 s
        assert_eq!(live(1800, 0), Speed::Classical);
        assert_eq!(
            Speed::of(TimeControl::Correspondence { days: 3 }),
            Speed::Correspondence
        );
        assert_eq!(Speed::Correspondence.as_str(), "correspondence");
    }
}
