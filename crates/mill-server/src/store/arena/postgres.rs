//! Arenas on PostgreSQL: reads and writes on the pool, a pairing under its arena's advisory lock.

use super::*;

/// The first key of the advisory lock a pairing holds for its arena (the second is the
/// arena id's hash): two instances pair one arena one after the other.
const ARENA_LOCK: i32 = 5106376;

/// A ticket is used only while the instance holding its socket has a connection.
const TICKET_ALIVE: &str =
    "EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = p.ticket_instance)";

fn info_pg(r: &tokio_postgres::Row) -> ArenaInfo {
    ArenaInfo {
        id: r.get(0),
        name: r.get(1),
        variant: r.get(2),
        initial: u32::try_from(r.get::<_, i32>(3)).unwrap_or(0),
        increment: u32::try_from(r.get::<_, i32>(4)).unwrap_or(0),
        starts_at: r.get(5),
        ends_at: r.get(6),
        rated: r.get(7),
        players: count(r.get(8)),
    }
}

const INFO_PG: &str = "SELECT id, name, variant, clock_initial, clock_increment, starts_at, ends_at, rated,
    (SELECT count(*) FROM arena_players p WHERE p.arena_id = arenas.id AND p.state <> 'withdrawn') FROM arenas";

async fn games_pg(
    c: &impl tokio_postgres::GenericClient,
    arena: &str,
) -> Result<Vec<scoring::Game>, DbError> {
    let rows = c
        .query(
            "SELECT room_id, light_id, dark_id, light_rating, dark_rating, started_at, result,
                    coalesce(light_turns, 0), coalesce(dark_turns, 0)
             FROM arena_games WHERE arena_id = $1 ORDER BY started_at, room_id",
            &[&arena],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(scoring::Game {
                room: r.get(0),
                light: r.get(1),
                dark: r.get(2),
                light_rating: r.get(3),
                dark_rating: r.get(4),
                started_at: r.get(5),
                ending: ending(r.get(6))?,
                turns: (
                    u32::try_from(r.get::<_, i32>(7)).unwrap_or(0),
                    u32::try_from(r.get::<_, i32>(8)).unwrap_or(0),
                ),
            })
        })
        .collect()
}

async fn used_pg(
    c: &impl tokio_postgres::GenericClient,
    arena: &str,
    account: i64,
    key_hash: &[u8; 32],
) -> Result<Option<Ticket>, DbError> {
    let row = c
        .query_opt(
            "SELECT room_id, true FROM arena_games
             WHERE light_key_hash = $3 AND light_id = $2 AND arena_id = $1
             UNION ALL
             SELECT room_id, false FROM arena_games
             WHERE dark_key_hash = $3 AND dark_id = $2 AND arena_id = $1
             LIMIT 1",
            &[&arena, &account, &&key_hash[..]],
        )
        .await?;
    Ok(row.map(|r| {
        let light: bool = r.get(1);
        Ticket::Paired(r.get(0), if light { Color::Light } else { Color::Dark })
    }))
}

/// Runs an [`ArenaRequest`] on PostgreSQL; `instance` is this server's id (its
/// connections' application name), which owns the tickets it sets.
pub async fn pg(
    pool: &deadpool_postgres::Pool,
    instance: &str,
    req: ArenaRequest,
) -> Result<ArenaAnswer, DbError> {
    let mut client = pool.get().await?;
    match req {
        ArenaRequest::Create(a) => {
            client
                .execute(
                    "INSERT INTO arenas (id, name, variant, clock_initial, clock_increment, starts_at, ends_at,
                                         rated, created_by, created_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    &[
                        &a.id,
                        &a.name,
                        &a.variant,
                        &(a.initial as i32),
                        &(a.increment as i32),
                        &a.starts_at,
                        &a.ends_at,
                        &a.rated,
                        &a.created_by,
                        &a.created_at,
                    ],
                )
                .await?;
            Ok(ArenaAnswer::Done)
        }
        ArenaRequest::Member {
            arena,
            account,
            name,
            change,
            at,
        } => {
            let ends = client
                .query_opt("SELECT ends_at FROM arenas WHERE id = $1", &[&arena])
                .await?;
            let Some(ends) = ends.map(|r| r.get::<_, i64>(0)) else {
                return Ok(ArenaAnswer::Member(Member::NoArena));
            };
            if at >= ends {
                return Ok(ArenaAnswer::Member(Member::Finished));
            }
            let n = if change == Membership::Join {
                client
                    .execute(
                        "INSERT INTO arena_players (arena_id, account_id, name, state, joined_at)
                         VALUES ($1, $2, $3, 'joined', $4)
                         ON CONFLICT (arena_id, account_id) DO UPDATE SET state = 'joined', name = excluded.name",
                        &[&arena, &account, &name, &at],
                    )
                    .await?
            } else {
                client
                    .execute(
                        "UPDATE arena_players SET state = $3 WHERE arena_id = $1 AND account_id = $2",
                        &[&arena, &account, &change.state()],
                    )
                    .await?
            };
            Ok(ArenaAnswer::Member(if n == 0 {
                Member::NotJoined
            } else {
                Member::Done
            }))
        }
        ArenaRequest::List { since, limit } => {
            let rows = client
                .query(
                    &format!("{INFO_PG} WHERE ends_at > $1 ORDER BY starts_at, id LIMIT $2"),
                    &[&since, &i64::from(limit)],
                )
                .await?;
            Ok(ArenaAnswer::List(rows.iter().map(info_pg).collect()))
        }
        ArenaRequest::Get(id) => {
            let Some(info) = client
                .query_opt(&format!("{INFO_PG} WHERE id = $1"), &[&id])
                .await?
            else {
                return Ok(ArenaAnswer::Arena(None));
            };
            let players = client
                .query(
                    "SELECT account_id, name, state FROM arena_players WHERE arena_id = $1
                     ORDER BY joined_at, account_id",
                    &[&id],
                )
                .await?
                .iter()
                .map(|r| scoring::Player {
                    account: r.get(0),
                    name: r.get(1),
                    state: r.get(2),
                })
                .collect();
            let games = games_pg(&**client, &id).await?;
            Ok(ArenaAnswer::Arena(Some(Box::new(ArenaData {
                info: info_pg(&info),
                players,
                games,
            }))))
        }
        ArenaRequest::Running(now) => {
            let rows = client
                .query(
                    "SELECT id FROM arenas WHERE starts_at <= $1 AND ends_at > $1",
                    &[&now],
                )
                .await?;
            Ok(ArenaAnswer::Ids(rows.iter().map(|r| r.get(0)).collect()))
        }
        ArenaRequest::OfRoom(room) => {
            let rows = client
                .query("SELECT arena_id FROM arena_games WHERE room_id = $1", &[&room])
                .await?;
            Ok(ArenaAnswer::Ids(rows.iter().map(|r| r.get(0)).collect()))
        }
        ArenaRequest::Pair { arena, at } => {
            let tx = client.transaction().await?;
            tx.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                &[&ARENA_LOCK, &arena],
            )
            .await?;
            let made = pair_pg(&tx, &arena, at).await?;
            tx.commit().await?;
            Ok(ArenaAnswer::Paired(made))
        }
        ArenaRequest::Ticket {
            arena,
            account,
            key_hash,
            claim,
        } => {
            if let Some(t) = used_pg(&**client, &arena, account, &key_hash).await? {
                return Ok(ArenaAnswer::Ticket(t));
            }
            if !claim {
                return Ok(ArenaAnswer::Ticket(Ticket::Waiting));
            }
            // Set unless it is already, or its hash was used (a pairing committed since
            // the read above); a pairing checks the ticket it uses is still there.
            let row = client
                .query_opt(
                    "UPDATE arena_players p SET ticket_hash = $3, ticket_instance = $4
                     WHERE arena_id = $1 AND account_id = $2
                       AND NOT EXISTS (SELECT 1 FROM arena_games g WHERE g.arena_id = $1
                                       AND (g.light_key_hash = $3 OR g.dark_key_hash = $3))
                     RETURNING 1",
                    &[&arena, &account, &&key_hash[..], &instance],
                )
                .await?;
            if row.is_some() {
                return Ok(ArenaAnswer::Ticket(Ticket::Waiting));
            }
            Ok(ArenaAnswer::Ticket(
                match used_pg(&**client, &arena, account, &key_hash).await? {
                    Some(t) => t,
                    None => Ticket::NotJoined,
                },
            ))
        }
        ArenaRequest::DropTicket {
            arena,
            account,
            key_hash,
        } => {
            client
                .execute(
                    "UPDATE arena_players SET ticket_hash = NULL, ticket_instance = NULL
                     WHERE arena_id = $1 AND account_id = $2 AND ticket_hash = $3",
                    &[&arena, &account, &&key_hash[..]],
                )
                .await?;
            Ok(ArenaAnswer::Done)
        }
    }
}

async fn pair_pg(
    tx: &deadpool_postgres::Transaction<'_>,
    arena: &str,
    at: i64,
) -> Result<Vec<Paired>, DbError> {
    let Some(info) = tx
        .query_opt(
            "SELECT variant, clock_initial, clock_increment, rated, ends_at FROM arenas
             WHERE id = $1 AND starts_at <= $2 AND ends_at > $2",
            &[&arena, &at],
        )
        .await?
    else {
        return Ok(Vec::new());
    };
    let variant: String = info.get(0);
    let (initial, increment): (i32, i32) = (info.get(1), info.get(2));
    let rated: bool = info.get(3);
    let ends_at: i64 = info.get(4);
    let rows = tx
        .query(
            &format!(
                "SELECT account_id, state, room_id, CASE WHEN {TICKET_ALIVE} THEN ticket_hash END
                 FROM arena_players p WHERE arena_id = $1"
            ),
            &[&arena],
        )
        .await?;
    // As in `pair_sqlite`: after every result already stored. Read after the players
    // (each statement here sees every commit before it began), so a result committed
    // since the players were read, which freed one of them, is counted too: no game
    // starts before the end of one its player has left.
    let latest: Option<i64> = tx
        .query_one(
            "SELECT max(ended_at) FROM arena_games WHERE arena_id = $1",
            &[&arena],
        )
        .await?
        .get(0);
    let at = at.max(latest.unwrap_or(at));
    if at >= ends_at {
        return Ok(Vec::new());
    }
    let rows: Vec<PairRow> = rows
        .iter()
        .map(|r| {
            Ok(PairRow {
                account: r.get(0),
                state: r.get(1),
                room: r.get(2),
                ticket: r.get::<_, Option<Vec<u8>>>(3).map(hash32).transpose()?,
            })
        })
        .collect::<Result<_, DbError>>()?;
    let games = games_pg(&**tx, arena).await?;
    let clock = TimeControl::Live {
        initial: u32::try_from(initial).unwrap_or(0),
        increment: u32::try_from(increment).unwrap_or(0),
    };
    let speed = Speed::of(clock);
    let (ci, cn) = (i64::from(initial), i64::from(increment));
    let mut made = Vec::new();
    for p in plan(&rows, &games) {
        let (light, dark) = (p.light.0, p.dark.0);
        tx.execute(
            "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
             VALUES ($1, $2, $3, $3, $4::bigint, $5::bigint)",
            &[&p.room, &variant, &at, &ci, &cn],
        )
        .await?;
        tx.execute(
            "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES ($1, 'light', $2, $4), ($1, 'dark', $3, $4)",
            &[&p.room, &&p.light.1[..], &&p.dark.1[..], &at],
        )
        .await?;
        crate::store::accounts::bind_pg(
            &**tx,
            &crate::store::accounts::Binding {
                room: &p.room,
                light: Some(light),
                dark: Some(dark),
                rated: rated.then_some((variant.as_str(), speed)),
            },
        )
        .await?;
        let ratings = tx
            .query(
                "SELECT account_id, rating FROM ratings WHERE account_id = ANY($1) AND rules = $2 AND speed = $3",
                &[&vec![light, dark], &variant, &speed.as_str()],
            )
            .await?;
        let rating = |a: i64| {
            ratings
                .iter()
                .find(|r| r.get::<_, i64>(0) == a)
                .map_or(scoring::DEFAULT_RATING, |r| r.get(1))
        };
        tx.execute(
            "INSERT INTO arena_games (room_id, arena_id, light_id, dark_id, light_rating, dark_rating,
                                      light_key_hash, dark_key_hash, started_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &p.room,
                &arena,
                &light,
                &dark,
                &rating(light),
                &rating(dark),
                &&p.light.1[..],
                &&p.dark.1[..],
                &at,
            ],
        )
        .await?;
        for (account, ticket) in [p.light, p.dark] {
            let n = tx
                .execute(
                    "UPDATE arena_players SET room_id = $3, ticket_hash = NULL, ticket_instance = NULL
                     WHERE arena_id = $1 AND account_id = $2 AND room_id IS NULL AND ticket_hash = $4",
                    &[&arena, &account, &p.room, &&ticket[..]],
                )
                .await?;
            if n != 1 {
                return Err(DbError::failed(
                    "PostgreSQL",
                    "an arena player was taken by another pairing",
                ));
            }
        }
        made.push(Paired {
            room: p.room,
            light,
            dark,
        });
    }
    Ok(made)
}

/// [`end_sqlite`] for the PostgreSQL writer (`store/postgres/writer.rs`), in the
/// transaction that has just stored the ending event.
pub async fn end_pg(
    client: &tokio_postgres::Client,
    room: &str,
    round: u32,
    outcome: &mill_core::Outcome,
    at: i64,
) -> Result<(), tokio_postgres::Error> {
    if round != 1 {
        return Ok(());
    }
    let row = client
        .query_opt(
            "WITH t AS (SELECT count(*) FILTER (WHERE seat = 'light') AS l, count(*) FILTER (WHERE seat = 'dark') AS d
                        FROM events WHERE room_id = $1 AND round = 1 AND kind = 'action' AND action NOT LIKE 'x%')
             UPDATE arena_games SET result = $2, light_turns = (SELECT l FROM t), dark_turns = (SELECT d FROM t),
                                    ended_at = $3
             WHERE room_id = $1 AND result IS NULL RETURNING arena_id",
            &[&room, &Ending::of(outcome).as_str(), &at],
        )
        .await?;
    if let Some(row) = row {
        let arena: String = row.get(0);
        client
            .execute(
                "UPDATE arena_players SET room_id = NULL WHERE arena_id = $1 AND room_id = $2",
                &[&arena, &room],
            )
            .await?;
    }
    Ok(())
}
