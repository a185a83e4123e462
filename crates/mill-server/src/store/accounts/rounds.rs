//! A round's end in the stores' transactions: ratings changed once, the players' record written, seats bound to accounts by a pairing or a rematch.

use super::*;

/// Light's score in a round that ended with `outcome`; `None` for an aborted round,
/// which changes no rating.
pub fn light_score(outcome: &mill_core::Outcome) -> Option<Score> {
    match outcome {
        mill_core::Outcome::Win { winner, .. } if *winner == mill_core::Color::Light => Some(Score::Win),
        mill_core::Outcome::Win { .. } => Some(Score::Loss),
        mill_core::Outcome::Draw { .. } => Some(Score::Draw),
        mill_core::Outcome::Aborted => None,
    }
}

/// A seat of a finished round as the record sees it: whether an account held it when
/// the round was played (`seat_accounts` has a row), and that account unless it has
/// been deleted since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RecordSeat {
    bound: bool,
    account: Option<i64>,
}

/// What the store's append finds about the room of a round that has just ended.
#[derive(Debug, Clone)]
struct FinishedRoom {
    rules: String,
    clock_initial: Option<i64>,
    clock_increment: Option<i64>,
    clock_days: Option<i64>,
    /// The speed of a rated room's rating.
    speed: Option<String>,
    light: RecordSeat,
    dark: RecordSeat,
}

impl FinishedRoom {
    /// The rated round's two accounts (Light's, Dark's) and speed: a rated room whose
    /// seats are both still held by accounts.
    fn rated(&self) -> Option<(i64, i64, &str)> {
        match (self.light.account, self.dark.account, self.speed.as_deref()) {
            (Some(l), Some(d), Some(speed)) => Some((l, d, speed)),
            _ => None,
        }
    }

    /// The record's rows for this round: one per seat held by an account. `ratings`,
    /// for a rated round, is Light's and Dark's (before, after).
    fn rows(&self, outcome: &mill_core::Outcome, ratings: Option<[(f64, f64); 2]>) -> Vec<GameRow> {
        let Some(light_score) = light_score(outcome) else {
            return Vec::new();
        };
        let reason = match outcome {
            mill_core::Outcome::Win { reason, .. } => serde_json::to_value(reason),
            mill_core::Outcome::Draw { reason } => serde_json::to_value(reason),
            mill_core::Outcome::Aborted => return Vec::new(),
        }
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
        let dark_score = match light_score {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        };
        let seats = [
            ("light", self.light, self.dark, light_score, ratings.map(|r| r[0])),
            ("dark", self.dark, self.light, dark_score, ratings.map(|r| r[1])),
        ];
        seats
            .into_iter()
            .filter_map(|(color, me, them, score, rating)| {
                Some(GameRow {
                    account: me.account?,
                    color,
                    opponent: them.account,
                    opponent_signed: them.bound,
                    result: match score {
                        Score::Win => "win",
                        Score::Draw => "draw",
                        Score::Loss => "loss",
                    },
                    reason: reason.clone(),
                    speed: rating.and(self.speed.clone()),
                    before: rating.map(|r| r.0),
                    after: rating.map(|r| r.1),
                })
            })
            .collect()
    }
}

/// One row of `player_games` to write.
#[derive(Debug, Clone)]
struct GameRow {
    account: i64,
    color: &'static str,
    opponent: Option<i64>,
    opponent_signed: bool,
    result: &'static str,
    reason: String,
    speed: Option<String>,
    before: Option<f64>,
    after: Option<f64>,
}

/// The room of a finished round (`?1`/`$1` appended by each backend); the clock's
/// columns as BIGINT on both.
const FINISHED_ROOM_SQL: &str = "SELECT r.variant, CAST(r.clock_initial AS BIGINT),
        CAST(r.clock_increment AS BIGINT), CAST(r.clock_days AS BIGINT),
        (SELECT speed FROM rated_rooms WHERE room_id = r.id),
        (SELECT count(*) FROM seat_accounts WHERE room_id = r.id AND color = 'light'),
        (SELECT account_id FROM seat_accounts WHERE room_id = r.id AND color = 'light'),
        (SELECT count(*) FROM seat_accounts WHERE room_id = r.id AND color = 'dark'),
        (SELECT account_id FROM seat_accounts WHERE room_id = r.id AND color = 'dark')
     FROM rooms r WHERE r.id = ";

/// Called by the SQLite writer (`store/sqlite.rs` `append`) in the transaction that has
/// just stored an event ending round `round` of `room` with `outcome`: in a rated room,
/// changes both players' ratings, once per round (the `rated_rounds` key); and for every
/// seat held by an account, adds the round to that player's record (`player_games`,
/// once: its key). The writer is SQLite's only writer of ratings, so reading them and
/// writing them back cannot race. An aborted round changes and records nothing.
pub fn record_round_sqlite(
    conn: &Connection,
    room: &str,
    round: u32,
    outcome: &mill_core::Outcome,
    at: i64,
) -> Result<(), rusqlite::Error> {
    let Some(score) = light_score(outcome) else {
        return Ok(());
    };
    let found: Option<FinishedRoom> = conn
        .prepare_cached(&format!("{FINISHED_ROOM_SQL}?1"))?
        .query_row(params![room], |r| {
            Ok(FinishedRoom {
                rules: r.get(0)?,
                clock_initial: r.get(1)?,
                clock_increment: r.get(2)?,
                clock_days: r.get(3)?,
                speed: r.get(4)?,
                light: RecordSeat {
                    bound: r.get::<_, i64>(5)? > 0,
                    account: r.get(6)?,
                },
                dark: RecordSeat {
                    bound: r.get::<_, i64>(7)? > 0,
                    account: r.get(8)?,
                },
            })
        })
        .optional()?;
    // Anonymous players: no record, no rating.
    let Some(game) = found.filter(|g| g.light.account.is_some() || g.dark.account.is_some()) else {
        return Ok(());
    };
    let mut ratings = None;
    if let Some((light, dark, speed)) = game.rated() {
        let read = |account: i64| -> Result<Rating, rusqlite::Error> {
            Ok(conn
                .prepare_cached(
                    "SELECT rating, rd, vol, games FROM ratings WHERE account_id = ?1 AND rules = ?2 AND speed = ?3",
                )?
                .query_row(params![account, game.rules, speed], |r| {
                    Ok(Rating {
                        rating: r.get(0)?,
                        rd: r.get(1)?,
                        vol: r.get(2)?,
                        games: r.get(3)?,
                    })
                })
                .optional()?
                .unwrap_or_default())
        };
        let (before_light, before_dark) = (read(light)?, read(dark)?);
        let (after_light, after_dark) = Rating::after_round(before_light, before_dark, score);
        let first = conn
            .prepare_cached(
                "INSERT INTO rated_rounds (room_id, round, light_before, light_after, dark_before, dark_after, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
            )?
            .execute(params![
                room,
                round,
                before_light.rating,
                after_light.rating,
                before_dark.rating,
                after_dark.rating,
                at
            ])?;
        if first == 0 {
            return Ok(());
        }
        for (account, r) in [(light, after_light), (dark, after_dark)] {
            conn.prepare_cached(
                "INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (account_id, rules, speed) DO UPDATE SET rating = excluded.rating, rd = excluded.rd,
                     vol = excluded.vol, games = excluded.games, updated_at = excluded.updated_at",
            )?
            .execute(params![
                account, game.rules, speed, r.rating, r.rd, r.vol, r.games, at
            ])?;
        }
        ratings = Some([
            (before_light.rating, after_light.rating),
            (before_dark.rating, after_dark.rating),
        ]);
    }
    for row in game.rows(outcome, ratings) {
        conn.prepare_cached(
            "INSERT INTO player_games (account_id, room_id, round, color, opponent_id, opponent_signed, result,
                 reason, rules, clock_initial, clock_increment, clock_days, speed, rating_before, rating_after, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![
            row.account,
            room,
            round,
            row.color,
            row.opponent,
            row.opponent_signed,
            row.result,
            row.reason,
            game.rules,
            game.clock_initial,
            game.clock_increment,
            game.clock_days,
            row.speed,
            row.before,
            row.after,
            at
        ])?;
    }
    Ok(())
}

/// The same as [`record_round_sqlite`] for the PostgreSQL writer (`store/postgres.rs`
/// `write_batch`), inside the transaction that has just stored the ending event. Other
/// instances may be rating another round of the same players at the same moment: the
/// two rating rows are created if missing and then locked (`FOR UPDATE`, in account
/// order, so two such transactions wait for each other instead of deadlocking) before
/// they are read.
pub async fn record_round_pg(
    client: &tokio_postgres::Client,
    room: &str,
    round: u32,
    outcome: &mill_core::Outcome,
    at: i64,
) -> Result<(), tokio_postgres::Error> {
    let Some(score) = light_score(outcome) else {
        return Ok(());
    };
    let row = client
        .query_opt(&format!("{FINISHED_ROOM_SQL}$1"), &[&room])
        .await?;
    let Some(row) = row else { return Ok(()) };
    let game = FinishedRoom {
        rules: row.get(0),
        clock_initial: row.get(1),
        clock_increment: row.get(2),
        clock_days: row.get(3),
        speed: row.get(4),
        light: RecordSeat {
            bound: row.get::<_, i64>(5) > 0,
            account: row.get(6),
        },
        dark: RecordSeat {
            bound: row.get::<_, i64>(7) > 0,
            account: row.get(8),
        },
    };
    if game.light.account.is_none() && game.dark.account.is_none() {
        return Ok(());
    }
    let round_i32 = i32::try_from(round).unwrap_or(i32::MAX);
    let mut ratings = None;
    if let Some((light, dark, speed)) = game.rated() {
        let start = Rating::default();
        let mut accounts = [light, dark];
        accounts.sort_unstable();
        for account in accounts {
            client
                .execute(
                    "INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, 0, $7) ON CONFLICT DO NOTHING",
                    &[
                        &account,
                        &game.rules,
                        &speed,
                        &start.rating,
                        &start.rd,
                        &start.vol,
                        &at,
                    ],
                )
                .await?;
        }
        let rows = client
            .query(
                "SELECT account_id, rating, rd, vol, games FROM ratings
                 WHERE account_id = ANY($1) AND rules = $2 AND speed = $3 ORDER BY account_id FOR UPDATE",
                &[&&accounts[..], &game.rules, &speed],
            )
            .await?;
        let rating_of = |account: i64| {
            rows.iter()
                .find(|r| r.get::<_, i64>(0) == account)
                .map(|r| Rating {
                    rating: r.get(1),
                    rd: r.get(2),
                    vol: r.get(3),
                    games: u32::try_from(r.get::<_, i32>(4)).unwrap_or(0),
                })
                .unwrap_or_default()
        };
        let (before_light, before_dark) = (rating_of(light), rating_of(dark));
        let (after_light, after_dark) = Rating::after_round(before_light, before_dark, score);
        let first = client
            .execute(
                "INSERT INTO rated_rounds (room_id, round, light_before, light_after, dark_before, dark_after, at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
                &[
                    &room,
                    &round_i32,
                    &before_light.rating,
                    &after_light.rating,
                    &before_dark.rating,
                    &after_dark.rating,
                    &at,
                ],
            )
            .await?;
        if first == 0 {
            return Ok(());
        }
        for (account, r) in [(light, after_light), (dark, after_dark)] {
            client
                .execute(
                    "UPDATE ratings SET rating = $4, rd = $5, vol = $6, games = $7, updated_at = $8
                     WHERE account_id = $1 AND rules = $2 AND speed = $3",
                    &[
                        &account,
                        &game.rules,
                        &speed,
                        &r.rating,
                        &r.rd,
                        &r.vol,
                        &i32::try_from(r.games).unwrap_or(i32::MAX),
                        &at,
                    ],
                )
                .await?;
        }
        ratings = Some([
            (before_light.rating, after_light.rating),
            (before_dark.rating, after_dark.rating),
        ]);
    }
    let narrow = |v: Option<i64>| v.and_then(|v| i32::try_from(v).ok());
    for row in game.rows(outcome, ratings) {
        client
            .execute(
                "INSERT INTO player_games (account_id, room_id, round, color, opponent_id, opponent_signed, result,
                     reason, rules, clock_initial, clock_increment, clock_days, speed, rating_before, rating_after, at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
                 ON CONFLICT DO NOTHING",
                &[
                    &row.account,
                    &room,
                    &round_i32,
                    &row.color,
                    &row.opponent,
                    &row.opponent_signed,
                    &row.result,
                    &row.reason,
                    &game.rules,
                    &narrow(game.clock_initial),
                    &narrow(game.clock_increment),
                    &narrow(game.clock_days),
                    &row.speed,
                    &row.before,
                    &row.after,
                    &at,
                ],
            )
            .await?;
    }
    Ok(())
}

/// What a pairing binds in the transaction that creates its room: the accounts of the
/// two seats (signed-in seekers) and, for a rated pairing, the rule set and speed whose
/// ratings its rounds change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding<'a> {
    /// The room.
    pub room: &'a str,
    /// Light's account.
    pub light: Option<i64>,
    /// Dark's account.
    pub dark: Option<i64>,
    /// Rule set and speed, for a rated room.
    pub rated: Option<(&'a str, Speed)>,
}

/// Binds a paired room's seats to their accounts (SQLite writer's transaction).
pub fn bind_sqlite(conn: &Connection, b: &Binding<'_>) -> Result<(), rusqlite::Error> {
    for (color, account) in [("light", b.light), ("dark", b.dark)] {
        if let Some(account) = account {
            conn.prepare_cached(
                "INSERT INTO seat_accounts (room_id, color, account_id) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![b.room, color, account])?;
        }
    }
    if let Some((rules, speed)) = b.rated {
        conn.prepare_cached("INSERT INTO rated_rooms (room_id, rules, speed) VALUES (?1, ?2, ?3)")?
            .execute(params![b.room, rules, speed.as_str()])?;
    }
    Ok(())
}

/// Binds a paired room's seats to their accounts (PostgreSQL, in the pairing's
/// transaction).
pub async fn bind_pg(
    client: &impl tokio_postgres::GenericClient,
    b: &Binding<'_>,
) -> Result<(), tokio_postgres::Error> {
    for (color, account) in [("light", b.light), ("dark", b.dark)] {
        if let Some(account) = account {
            client
                .execute(
                    "INSERT INTO seat_accounts (room_id, color, account_id) VALUES ($1, $2, $3)",
                    &[&b.room, &color, &account],
                )
                .await?;
        }
    }
    if let Some((rules, speed)) = b.rated {
        client
            .execute(
                "INSERT INTO rated_rooms (room_id, rules, speed) VALUES ($1, $2, $3)",
                &[&b.room, &rules, &speed.as_str()],
            )
            .await?;
    }
    Ok(())
}

/// A rematch's seats bound to the old room's accounts, colours swapped (the old Light
/// player holds Dark), and the new room rated as the old one was when both old seats are
/// bound to accounts. In the transaction that stores the event completing the rematch.
const REMATCH_SEATS_SQL: &str = "INSERT INTO seat_accounts (room_id, color, account_id)
     SELECT $2, CASE color WHEN 'light' THEN 'dark' ELSE 'light' END, account_id
     FROM seat_accounts WHERE room_id = $1 AND account_id IS NOT NULL";
const REMATCH_RATED_SQL: &str = "INSERT INTO rated_rooms (room_id, rules, speed)
     SELECT $2, rules, speed FROM rated_rooms WHERE room_id = $1
       AND (SELECT count(*) FROM seat_accounts s WHERE s.room_id = $1 AND s.account_id IS NOT NULL) = 2";

/// Binds a rematch's seats and rating as [`REMATCH_SEATS_SQL`] says (SQLite writer's
/// transaction).
pub fn rematch_sqlite(conn: &Connection, old: &str, new: &str) -> Result<(), rusqlite::Error> {
    for sql in [REMATCH_SEATS_SQL, REMATCH_RATED_SQL] {
        conn.prepare_cached(&sql.replace('$', "?"))?
            .execute(params![old, new])?;
    }
    Ok(())
}

/// Binds a rematch's seats and rating (PostgreSQL, in the transaction storing the event
/// that completes the rematch).
pub async fn rematch_pg(
    client: &tokio_postgres::Client,
    old: &str,
    new: &str,
) -> Result<(), tokio_postgres::Error> {
    for sql in [REMATCH_SEATS_SQL, REMATCH_RATED_SQL] {
        client.execute(sql, &[&old, &new]).await?;
    }
    Ok(())
}
