//! What the player cards and the lobby show of accounts, read from either database: the
//! name and rating of the account behind each seat of a room, the change of the room's
//! latest rated round (`rated_rounds`, written in the transaction that stored its
//! result), and the names and ratings of signed-in seekers. Reads only; the rooms cache
//! what they read (`rooms/players.rs`), so no state sent costs a query.

use std::collections::HashMap;

use mill_core::{ByColor, Color};
use rusqlite::{OptionalExtension, params};

use super::DbError;
use super::accounts::{Accounts, pg_err, pool_err};
use crate::protocol::SeatPlayer;
use crate::ratings::{PROVISIONAL_RD, START_RATING, START_RD, Speed};

/// A seat's account as the database has it: its name and, if it has one for the rule
/// set and speed asked for, its rating and RD.
type SeatRow = (String, String, Option<f64>, Option<f64>);

/// A seeker's account and one of its ratings: id, name, rules, speed, rating, RD.
type SeekerRow = (
    i64,
    String,
    Option<String>,
    Option<String>,
    Option<f64>,
    Option<f64>,
);

/// A rated round's change: its round and Light's and Dark's (before, after).
type RoundRow = (u32, [(f64, f64); 2]);

/// The rounded rating and whether it is provisional, from a stored rating and RD (an
/// account without one starts at 1500, provisional).
pub fn shown(rating: Option<(f64, f64)>) -> (i64, bool) {
    let (rating, rd) = rating.unwrap_or((START_RATING, START_RD));
    (rating.round() as i64, rd >= PROVISIONAL_RD)
}

/// The seats' players from the rows read (`speed`: the room's, `None` untimed).
fn seat_players(
    rows: Vec<SeatRow>,
    latest: Option<RoundRow>,
    speed: Option<Speed>,
) -> ByColor<Option<SeatPlayer>> {
    let mut out: ByColor<Option<SeatPlayer>> = ByColor::default();
    for (color, name, rating, rd) in rows {
        let seat = match color.as_str() {
            "light" => Color::Light,
            "dark" => Color::Dark,
            _ => continue,
        };
        let (value, provisional) = shown(rating.zip(rd));
        let change = latest.map(|(round, r)| {
            let (before, after) = r[if seat == Color::Light { 0 } else { 1 }];
            (round, after.round() as i64 - before.round() as i64)
        });
        *out.get_mut(seat) = Some(SeatPlayer {
            name,
            rating: speed.map(|_| value),
            provisional: speed.is_some() && provisional,
            change,
        });
    }
    out
}

const SEATS_SQLITE: &str = "SELECT s.color, a.name, r.rating, r.rd
     FROM seat_accounts s JOIN accounts a ON a.id = s.account_id
     LEFT JOIN ratings r ON r.account_id = a.id AND r.rules = ?2 AND r.speed = ?3
     WHERE s.room_id = ?1";
const SEATS_PG: &str = "SELECT s.color, a.name, r.rating, r.rd
     FROM seat_accounts s JOIN accounts a ON a.id = s.account_id
     LEFT JOIN ratings r ON r.account_id = a.id AND r.rules = $2 AND r.speed = $3
     WHERE s.room_id = $1";
const LATEST_SQLITE: &str = "SELECT round, light_before, light_after, dark_before, dark_after
     FROM rated_rounds WHERE room_id = ?1 ORDER BY round DESC LIMIT 1";
const LATEST_PG: &str = "SELECT round, light_before, light_after, dark_before, dark_after
     FROM rated_rounds WHERE room_id = $1 ORDER BY round DESC LIMIT 1";

/// A signed-in seeker as the lobby shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Seeker {
    /// The account's name.
    pub name: String,
    /// Its ratings: (rules, speed) → (rating, RD).
    pub ratings: HashMap<(String, String), (f64, f64)>,
}

impl Seeker {
    /// The rounded rating and provisional flag for a rule set and speed.
    pub fn rating(&self, rules: &str, speed: Speed) -> (i64, bool) {
        shown(
            self.ratings
                .get(&(rules.to_string(), speed.as_str().to_string()))
                .copied(),
        )
    }
}

fn seekers_of(rows: Vec<SeekerRow>) -> HashMap<i64, Seeker> {
    let mut out: HashMap<i64, Seeker> = HashMap::new();
    for (id, name, rules, speed, rating, rd) in rows {
        let seeker = out.entry(id).or_insert_with(|| Seeker {
            name,
            ratings: HashMap::new(),
        });
        if let (Some(rules), Some(speed), Some(rating), Some(rd)) = (rules, speed, rating, rd) {
            seeker.ratings.insert((rules, speed), (rating, rd));
        }
    }
    out
}

impl Accounts {
    /// The account behind each seat of room `room` (none for an anonymous seat or a
    /// deleted account), with its rating for `rules` and `speed` and the change of the
    /// room's latest rated round.
    pub async fn seat_players(
        &self,
        room: &str,
        rules: &str,
        speed: Option<Speed>,
    ) -> Result<ByColor<Option<SeatPlayer>>, DbError> {
        let (room, rules) = (room.to_string(), rules.to_string());
        let speed_text = speed.map_or("", Speed::as_str);
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let rows = conn
                        .prepare_cached(SEATS_SQLITE)?
                        .query_map(params![room, rules, speed_text], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                        })?
                        .collect::<Result<Vec<SeatRow>, _>>()?;
                    if rows.is_empty() {
                        return Ok(ByColor::default());
                    }
                    let latest = conn
                        .prepare_cached(LATEST_SQLITE)?
                        .query_row(params![room], |r| {
                            Ok((r.get(0)?, [(r.get(1)?, r.get(2)?), (r.get(3)?, r.get(4)?)]))
                        })
                        .optional()?;
                    Ok(seat_players(rows, latest, speed))
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let rows: Vec<SeatRow> = client
                    .query(SEATS_PG, &[&room, &rules, &speed_text])
                    .await
                    .map_err(pg_err)?
                    .iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
                    .collect();
                if rows.is_empty() {
                    return Ok(ByColor::default());
                }
                let latest = client
                    .query_opt(LATEST_PG, &[&room])
                    .await
                    .map_err(pg_err)?
                    .map(|r| {
                        let round: i32 = r.get(0);
                        (
                            u32::try_from(round).unwrap_or(0),
                            [(r.get(1), r.get(2)), (r.get(3), r.get(4))],
                        )
                    });
                Ok(seat_players(rows, latest, speed))
            }
        }
    }

    /// The names and ratings of the accounts `ids` (the lobby's signed-in seekers); a
    /// deleted account is not among them.
    pub async fn seekers(&self, ids: Vec<i64>) -> Result<HashMap<i64, Seeker>, DbError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    // At most the lobby's hundred ids, as numbers: no text is spliced in.
                    let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
                    let sql = format!(
                        "SELECT a.id, a.name, r.rules, r.speed, r.rating, r.rd
                         FROM accounts a LEFT JOIN ratings r ON r.account_id = a.id
                         WHERE a.id IN ({list})"
                    );
                    let rows = conn
                        .prepare(&sql)?
                        .query_map([], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(seekers_of(rows))
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let rows = client
                    .query(
                        "SELECT a.id, a.name, r.rules, r.speed, r.rating, r.rd
                         FROM accounts a LEFT JOIN ratings r ON r.account_id = a.id
                         WHERE a.id = ANY($1)",
                        &[&ids],
                    )
                    .await
                    .map_err(pg_err)?
                    .iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
                    .collect();
                Ok(seekers_of(rows))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_shows_its_rating_rounded_and_the_latest_change() {
        let rows = vec![
            ("light".to_string(), "ann".to_string(), Some(1611.6), Some(95.0)),
            ("dark".to_string(), "bob".to_string(), None, None),
        ];
        let latest = Some((2, [(1599.5, 1611.6), (1500.0, 1488.4)]));
        let p = seat_players(rows, latest, Some(Speed::Blitz));
        let light = p.light.unwrap();
        assert_eq!(
            (light.name.as_str(), light.rating, light.provisional),
            ("ann", Some(1612), false)
        );
        assert_eq!(light.change, Some((2, 12)));
        let dark = p.dark.unwrap();
        assert_eq!(
            (dark.rating, dark.provisional, dark.change),
            (Some(1500), true, Some((2, -12)))
        );
        // Untimed: no speed, no rating.
        let rows = vec![("dark".to_string(), "bob".to_string(), None, None)];
        let p = seat_players(rows, None, None);
        assert!(p.light.is_none());
        let dark = p.dark.unwrap();
        assert_eq!((dark.rating, dark.provisional, dark.change), (None, false, None));
    }
}
