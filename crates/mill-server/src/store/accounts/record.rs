//! The player's record read back: a player's facts, results and game list (paged), under the neutral name of a deleted account.

use super::*;

impl Accounts {
    /// Binds seat `color` of a room made by creating or joining (a casual room) to a
    /// signed-in player's account; a seat already bound stays as it is.
    pub async fn bind_seat(&self, room: &str, color: &'static str, account: i64) -> Result<(), DbError> {
        let room = room.to_string();
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    conn.execute(
                        "INSERT INTO seat_accounts (room_id, color, account_id) VALUES (?1, ?2, ?3)
                         ON CONFLICT DO NOTHING",
                        params![room, color, account],
                    )?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute(
                        "INSERT INTO seat_accounts (room_id, color, account_id) VALUES ($1, $2, $3)
                         ON CONFLICT DO NOTHING",
                        &[&room, &color, &account],
                    )
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }
}

/// Who a player met in a recorded round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opponent {
    /// An account, by its name as it is now.
    Account(String),
    /// An account deleted since: shown under the neutral name [`DELETED_NAME`].
    Deleted,
    /// A player without an account.
    Anonymous,
}

/// The name a deleted account's games are shown under (a reserved name: no account can
/// take it, `accounts.rs`).
pub const DELETED_NAME: &str = "deleted";

/// One round of a player's record (`player_games`), as the list reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerGame {
    /// The row's id: the list's order and its cursor.
    pub id: i64,
    /// The room (the review link's, while the room is there).
    pub room: String,
    /// The round in the room.
    pub round: u32,
    /// `light` or `dark`: the player's colour.
    pub color: String,
    /// The opponent.
    pub opponent: Opponent,
    /// `win`, `draw` or `loss`, for the player.
    pub result: String,
    /// Why the round ended (the protocol's reason: `pieces`, `resignation`…).
    pub reason: String,
    /// The rule set's name.
    pub rules: String,
    /// The room's clock: initial and increment seconds, or days per turn.
    pub clock: Option<crate::timecontrol::TimeControl>,
    /// A rated round: its speed and the player's rating before and after.
    pub rated: Option<(Speed, f64, f64)>,
    /// When it ended (Unix ms).
    pub at: i64,
    /// Whether the room is still stored (the purge deletes idle rooms after a week).
    pub room_exists: bool,
}

/// A player's counts of won, drawn and lost rounds in the record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Results {
    /// Won.
    pub win: i64,
    /// Drawn.
    pub draw: i64,
    /// Lost.
    pub loss: i64,
}

/// The columns the game list reads, in [`game_row`]'s order (`$1` account, `$2` cursor,
/// `$3` limit; SQLite spells them `?1`…).
const GAMES_SQL: &str = "SELECT g.id, g.room_id, CAST(g.round AS BIGINT), g.color, g.opponent_signed, o.name,
        g.result, g.reason, g.rules, CAST(g.clock_initial AS BIGINT), CAST(g.clock_increment AS BIGINT),
        CAST(g.clock_days AS BIGINT), g.speed, g.rating_before, g.rating_after, g.at,
        EXISTS (SELECT 1 FROM rooms WHERE id = g.room_id)
     FROM player_games g LEFT JOIN accounts o ON o.id = g.opponent_id
     WHERE g.account_id = $1 AND g.id < $2 ORDER BY g.id DESC LIMIT $3";

/// The raw columns of [`GAMES_SQL`].
type GameColumns = (
    i64,
    String,
    i64,
    String,
    bool,
    Option<String>,
    String,
    String,
    String,
    [Option<i64>; 3],
    Option<String>,
    Option<f64>,
    Option<f64>,
    i64,
    bool,
);

fn game_row(c: GameColumns) -> Result<PlayerGame, DbError> {
    let (
        id,
        room,
        round,
        color,
        signed,
        name,
        result,
        reason,
        rules,
        clock,
        speed,
        before,
        after,
        at,
        exists,
    ) = c;
    let clock = match clock {
        [Some(initial), increment, None] => Some(crate::timecontrol::TimeControl::Live {
            initial: u32::try_from(initial).map_err(|_| DbError::Corrupt(format!("clock {initial}")))?,
            increment: u32::try_from(increment.unwrap_or(0))
                .map_err(|_| DbError::Corrupt(format!("increment {increment:?}")))?,
        }),
        [None, None, Some(days)] => Some(crate::timecontrol::TimeControl::Correspondence {
            days: u32::try_from(days).map_err(|_| DbError::Corrupt(format!("days {days}")))?,
        }),
        _ => None,
    };
    let rated = match (speed, before, after) {
        (Some(speed), Some(before), Some(after)) => Some((
            Speed::from_str(&speed).map_err(|_| DbError::Corrupt(format!("speed {speed:?}")))?,
            before,
            after,
        )),
        _ => None,
    };
    Ok(PlayerGame {
        id,
        room,
        round: u32::try_from(round).map_err(|_| DbError::Corrupt(format!("round {round}")))?,
        color,
        opponent: match (name, signed) {
            (Some(name), _) => Opponent::Account(name),
            (None, true) => Opponent::Deleted,
            (None, false) => Opponent::Anonymous,
        },
        result,
        reason,
        rules,
        clock,
        rated,
        at,
        room_exists: exists,
    })
}

impl Accounts {
    /// Up to `limit` rounds of account `id`'s record recorded before the row `before`
    /// (all when `None`), newest first.
    pub async fn games(&self, id: i64, before: Option<i64>, limit: u32) -> Result<Vec<PlayerGame>, DbError> {
        let before = before.unwrap_or(i64::MAX);
        let limit = i64::from(limit);
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let sql = GAMES_SQL.replace('$', "?");
                    let mut stmt = conn.prepare_cached(&sql)?;
                    let rows = stmt
                        .query_map(params![id, before, limit], |r| {
                            Ok((
                                r.get(0)?,
                                r.get(1)?,
                                r.get(2)?,
                                r.get(3)?,
                                r.get(4)?,
                                r.get(5)?,
                                r.get(6)?,
                                r.get(7)?,
                                r.get(8)?,
                                [r.get(9)?, r.get(10)?, r.get(11)?],
                                r.get(12)?,
                                r.get(13)?,
                                r.get(14)?,
                                r.get(15)?,
                                r.get(16)?,
                            ))
                        })?
                        .collect::<Result<Vec<GameColumns>, _>>()?;
                    rows.into_iter().map(game_row).collect()
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let rows = client
                    .query(GAMES_SQL, &[&id, &before, &limit])
                    .await
                    .map_err(pg_err)?;
                rows.into_iter()
                    .map(|r| {
                        game_row((
                            r.get(0),
                            r.get(1),
                            r.get(2),
                            r.get(3),
                            r.get(4),
                            r.get(5),
                            r.get(6),
                            r.get(7),
                            r.get(8),
                            [r.get(9), r.get(10), r.get(11)],
                            r.get(12),
                            r.get(13),
                            r.get(14),
                            r.get(15),
                            r.get(16),
                        ))
                    })
                    .collect()
            }
        }
    }

    /// Account `id`'s counts of won, drawn and lost rounds in its record.
    pub async fn results(&self, id: i64) -> Result<Results, DbError> {
        const SQL: &str = "SELECT result, count(*) FROM player_games WHERE account_id = $1 GROUP BY result";
        let rows: Vec<(String, i64)> = match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(&SQL.replace('$', "?"))?;
                    let rows = stmt
                        .query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?)))?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .query(SQL, &[&id])
                    .await
                    .map_err(pg_err)?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
        };
        let mut results = Results::default();
        for (result, n) in rows {
            match result.as_str() {
                "win" => results.win = n,
                "draw" => results.draw = n,
                "loss" => results.loss = n,
                other => return Err(DbError::Corrupt(format!("result {other:?}"))),
            }
        }
        Ok(results)
    }
}

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct Leader {
    /// The player's name.
    pub name: String,
    /// Their rating of the board's rule set and speed.
    pub rating: Rating,
}

impl Accounts {
    /// The best `limit` ratings of rule set `rules` and speed `speed` that are not
    /// provisional (RD below `max_rd`) and changed since `since` (Unix ms), best first
    /// (ties by name).
    pub async fn leaders(
        &self,
        rules: &str,
        speed: Speed,
        max_rd: f64,
        since: i64,
        limit: u32,
    ) -> Result<Vec<Leader>, DbError> {
        const SQL: &str = "SELECT a.name, r.rating, r.rd, r.vol, CAST(r.games AS BIGINT)
             FROM ratings r JOIN accounts a ON a.id = r.account_id
             WHERE r.rules = $1 AND r.speed = $2 AND r.rd < $3 AND r.updated_at >= $4
             ORDER BY r.rating DESC, a.name_key LIMIT $5";
        let (rules, speed, limit) = (rules.to_string(), speed.as_str(), i64::from(limit));
        let rows: Vec<(String, f64, f64, f64, i64)> = match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(&SQL.replace('$', "?"))?;
                    let rows = stmt
                        .query_map(params![rules, speed, max_rd, since, limit], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .query(SQL, &[&rules, &speed, &max_rd, &since, &limit])
                    .await
                    .map_err(pg_err)?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                    .collect()
            }
        };
        rows.into_iter()
            .map(|(name, rating, rd, vol, games)| {
                Ok(Leader {
                    name,
                    rating: Rating {
                        rating,
                        rd,
                        vol,
                        games: u32::try_from(games)
                            .map_err(|_| DbError::Corrupt(format!("games {games}")))?,
                    },
                })
            })
            .collect()
    }
}

/// A room with a seat bound to an account (`seat_accounts`), as the account's list of
/// games in progress reads it (`GET /api/me/games`; whether its round is still being
/// played, the rooms say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRoom {
    /// The room.
    pub room: String,
    /// The account's seat.
    pub color: mill_core::Color,
    /// The other seat's player: an account, a deleted one, or nobody signed in (or
    /// nobody yet).
    pub opponent: Opponent,
    /// Made by rated pairing.
    pub rated: bool,
}

/// The rooms with a seat of account `?1`, most recently active first, at most `?2`.
const ACCOUNT_ROOMS_SQL: &str = "SELECT sa.room_id, sa.color, o.color, a.name, rr.room_id
     FROM seat_accounts sa
     JOIN rooms r ON r.id = sa.room_id
     LEFT JOIN seat_accounts o ON o.room_id = sa.room_id AND o.color <> sa.color
     LEFT JOIN accounts a ON a.id = o.account_id
     LEFT JOIN rated_rooms rr ON rr.room_id = sa.room_id
     WHERE sa.account_id = ?1
     ORDER BY r.active_at DESC, sa.room_id, sa.color
     LIMIT ?2";

fn account_room(
    room: String,
    color: &str,
    other: Option<String>,
    name: Option<String>,
    rated: Option<String>,
) -> Result<AccountRoom, DbError> {
    let color = crate::store::types::parse_seat(color, &room)?;
    let opponent = match (other, name) {
        (Some(_), Some(name)) => Opponent::Account(name),
        (Some(_), None) => Opponent::Deleted,
        (None, _) => Opponent::Anonymous,
    };
    Ok(AccountRoom {
        room,
        color,
        opponent,
        rated: rated.is_some(),
    })
}

impl Accounts {
    /// The seats of room `room` bound to account `id` (one, both when the account took
    /// both seats of its own room, or none).
    pub async fn seats_of(&self, room: &str, id: i64) -> Result<Vec<mill_core::Color>, DbError> {
        let room = room.to_string();
        let colors: Vec<String> = match self {
            Accounts::Sqlite(conn) => {
                let room = room.clone();
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(
                        "SELECT color FROM seat_accounts WHERE room_id = ?1 AND account_id = ?2 ORDER BY color DESC",
                    )?;
                    let rows = stmt
                        .query_map(params![room, id], |r| r.get(0))?
                        .collect::<Result<Vec<String>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .query(
                        "SELECT color FROM seat_accounts WHERE room_id = $1 AND account_id = $2 ORDER BY color DESC",
                        &[&room, &id],
                    )
                    .await
                    .map_err(pg_err)?
                    .iter()
                    .map(|r| r.get(0))
                    .collect()
            }
        };
        colors
            .iter()
            .map(|c| crate::store::types::parse_seat(c, &room))
            .collect()
    }

    /// The rooms with a seat bound to account `id`, most recently active first, at most
    /// `limit`.
    pub async fn rooms_of(&self, id: i64, limit: u32) -> Result<Vec<AccountRoom>, DbError> {
        type Row = (String, String, Option<String>, Option<String>, Option<String>);
        let rows: Vec<Row> = match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(ACCOUNT_ROOMS_SQL)?;
                    let rows = stmt
                        .query_map(params![id, limit], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let sql = ACCOUNT_ROOMS_SQL.replace("?1", "$1").replace("?2", "$2");
                client
                    .query(&sql, &[&id, &i64::from(limit)])
                    .await
                    .map_err(pg_err)?
                    .iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                    .collect()
            }
        };
        rows.into_iter()
            .map(|(room, color, other, name, rated)| account_room(room, &color, other, name, rated))
            .collect()
    }
}
