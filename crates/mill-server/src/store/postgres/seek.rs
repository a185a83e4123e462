//! Quick pairing on PostgreSQL: a seek paired or left waiting (under its seeker's, its
//! address's and its pool's advisory locks), a waiting rated seek looked at again as its
//! window widens, a seek withdrawn or read back, and the lobby's open seeks.

use super::*;

/// The first key of the advisory lock a pairing holds for its pool (the second is the
/// pool's hash), so two seeks of one pool are decided one after the other.
const SEEK_LOCK: i32 = 5106374;
/// The first key of the advisory lock a pairing holds for its seeker (the second is the
/// seeker's hash), taken before the pool's: a seeker's seeks in two pools at once are
/// decided one after the other, so the newer always finds and withdraws the older. A
/// pairing claims only a seek whose seeker's lock it can take at once (it never waits
/// for it, so no two pairings wait for each other), and a seeker's new seek waits for
/// a pairing that claims its old one, then finds it paired.
const SEEKER_LOCK: i32 = 5106375;
/// The first key of the advisory lock a seek holds for its address (the second is the
/// address key's hash), after its seeker's and before its pool's: the open seeks of one
/// address are counted against `--max-seeks-per-address` one seek at a time.
const ADDRESS_LOCK: i32 = 5106376;

/// Whether a seek's instance is connected to the database now: every connection of an
/// instance carries its id as `application_name`, and a killed instance's connections
/// end with it (the database sees the sockets close), so its seeks stop being
/// pairable, and leave the lobby, at once rather than when its heartbeat is found old.
const SEEK_ALIVE: &str =
    "EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = seeks.instance_id)";

/// Takes the advisory lock (`key`, the hash of `name`) until the transaction ends.
async fn lock(
    tx: &tokio_postgres::Transaction<'_>,
    key: i32,
    name: &str,
) -> Result<(), tokio_postgres::Error> {
    tx.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", &[&key, &name])
        .await?;
    Ok(())
}

/// Deletes the open seeks of instances no longer connected ([`SEEK_ALIVE`]), so they go
/// before anyone claims them.
async fn forget_dead_seeks(tx: &tokio_postgres::Transaction<'_>) -> Result<(), tokio_postgres::Error> {
    tx.execute(
        &format!("DELETE FROM seeks WHERE room_id IS NULL AND NOT {SEEK_ALIVE}"),
        &[],
    )
    .await?;
    Ok(())
}

/// Announces the seeks `changed` on `mill_seeks` at commit, commits, and wakes the
/// requests on this instance waiting for them.
async fn commit_announced(
    pg: &Pg,
    tx: deadpool_postgres::Transaction<'_>,
    changed: &[String],
) -> Result<(), tokio_postgres::Error> {
    tx.execute(
        "SELECT pg_notify('mill_seeks', id) FROM unnest($1::text[]) AS t(id)",
        &[&changed],
    )
    .await?;
    tx.commit().await?;
    for id in changed {
        pg.waiters.wake(id);
    }
    Ok(())
}

/// A paired room: created with both seats taken (in the pairing's transaction).
async fn paired_room(
    tx: &tokio_postgres::Transaction<'_>,
    room: &str,
    at: i64,
    variant: &str,
    clock: Option<TimeControl>,
    light: &[u8],
    dark: &[u8],
) -> Result<(), tokio_postgres::Error> {
    let (initial, increment, days) = clock_columns(clock);
    tx.execute(
        "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment, clock_days, paired)
         VALUES ($1, $3, $2, $2, $4::bigint, $5::bigint, $6::bigint, TRUE)",
        &[&room, &at, &variant, &initial, &increment, &days],
    )
    .await?;
    tx.execute(
        "INSERT INTO seats (room_id, color, key_hash, created_at)
         VALUES ($1, 'light', $2, $4), ($1, 'dark', $3, $4)",
        &[&room, &light, &dark, &at],
    )
    .await?;
    Ok(())
}

/// Rated pairing's choice ([`crate::store::types::rated_choice`]) for a seek of `seeker` made at
/// `since`, looking at `now`, in a transaction holding the pool's lock: as a casual
/// seek's choice, it claims only a row it can lock at once, of a seeker whose lock it
/// can take at once.
#[allow(clippy::too_many_arguments)]
async fn rated_choice(
    tx: &tokio_postgres::Transaction<'_>,
    pool: &str,
    seeker: &str,
    account: Option<i64>,
    variant: &str,
    speed: Speed,
    since: i64,
    now: i64,
) -> Result<Option<tokio_postgres::Row>, tokio_postgres::Error> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        crate::store::types::rated_choice(
            [
                "$1",
                "$2",
                "$3::bigint",
                "$4",
                "$5::float8",
                "$6::bigint",
                "$7::bigint",
            ],
            "least",
            "greatest",
            "AND pg_try_advisory_xact_lock($8, hashtext(s.seeker))",
            "FOR UPDATE OF s SKIP LOCKED",
        )
    });
    let rating: f64 = tx
        .query_opt(
            "SELECT rating FROM ratings WHERE account_id = $1 AND rules = $2 AND speed = $3",
            &[&account, &variant, &speed.as_str()],
        )
        .await?
        .map_or(crate::ratings::START_RATING, |r| r.get(0));
    tx.query_opt(
        SQL.as_str(),
        &[
            &pool,
            &seeker,
            &account,
            &speed.as_str(),
            &rating,
            &since,
            &now,
            &SEEKER_LOCK,
        ],
    )
    .await
}

/// Pairs `seek` with the oldest open seek of another seeker in its pool, in one
/// transaction under its seeker's and its pool's advisory locks ([`SEEKER_LOCK`], [`SEEK_LOCK`]): the seeker's open seeks are
/// withdrawn, then either the claimed seek's room is created with both seats and the
/// claimed row names it, or this seek waits in the table. Every seek it changed is
/// announced on `mill_seeks` at commit, so the instance holding its request (this
/// one or another) reads it at once.
pub(super) async fn sought(pg: &Pg, seek: Seek) -> Result<SeekState, DbError> {
    let pool = seek.pool();
    let (initial, increment, days) = clock_columns(seek.clock);
    let mut client = pg.pool.get().await?;
    let tx = client.transaction().await?;
    lock(&tx, SEEKER_LOCK, &seek.seeker).await?;
    lock(&tx, ADDRESS_LOCK, &seek.address).await?;
    lock(&tx, SEEK_LOCK, &pool).await?;
    // Another seeker's id (or an answered one): refused, and nothing touched.
    let taken = tx
        .query_opt(
            "SELECT 1 FROM seeks WHERE id = $1 AND (seeker <> $2 OR room_id IS NOT NULL)",
            &[&seek.id, &seek.seeker],
        )
        .await?;
    if taken.is_some() {
        return Ok(SeekState::Taken);
    }
    // A seek lives as long as its instance's connections: one killed or cut off has
    // none left in the database at once, and its seeks go before anyone claims them.
    forget_dead_seeks(&tx).await?;
    // SKIP LOCKED: a row locked now is being withdrawn (the pool's lock keeps every
    // other pairing out), so it is not there to claim.
    let other = match seek.rated_speed() {
        // Rated: the closest rating within the window (ratings.rs `pairing_window`).
        Some(speed) => {
            rated_choice(&tx, &pool, &seek.seeker, seek.account, &seek.variant, speed, seek.at, seek.at).await?
        }
        None => {
            tx.query_opt(
                "SELECT id, key_hash, account_id FROM seeks WHERE pool = $1 AND room_id IS NULL AND seeker <> $2
                   AND coalesce(account_id, -1) <> coalesce($3::bigint, -2)
                   AND pg_try_advisory_xact_lock($4, hashtext(seeker))
                 ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                &[&pool, &seek.seeker, &seek.account, &SEEKER_LOCK],
            )
            .await?
        }
    };
    // It would wait: its address may hold only so many open seeks (counted under
    // the address's lock, so two instances cannot both take the last place).
    if other.is_none() && seek.address_cap > 0 {
        let held: i64 = tx
            .query_one(
                "SELECT count(*) FROM seeks WHERE address = $1 AND room_id IS NULL AND seeker <> $2",
                &[&seek.address, &seek.seeker],
            )
            .await?
            .get(0);
        if held >= i64::from(seek.address_cap) {
            tx.commit().await?;
            return Ok(SeekState::Crowded);
        }
    }
    // The seeker's older seeks go, a paired one not yet answered too: its request
    // then hears `seek-withdrawn`, so one seeker never gets two rooms.
    let withdrawn: Vec<String> = tx
        .query(
            "DELETE FROM seeks WHERE seeker = $1 RETURNING id",
            &[&seek.seeker],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut changed = withdrawn;
    let state = match other {
        None => {
            tx.execute(
                "INSERT INTO seeks (id, seeker, instance_id, pool, variant, clock_initial,
                                    clock_increment, clock_days, key_hash, created_at, account_id,
                                    address)
                 VALUES ($1, $2, $3, $4, $5, $6::bigint, $7::bigint, $8::bigint, $9, $10, $11, $12)",
                &[
                    &seek.id,
                    &seek.seeker,
                    &pg.instance,
                    &pool,
                    &seek.variant,
                    &initial,
                    &increment,
                    &days,
                    &&seek.key_hash[..],
                    &seek.at,
                    &seek.account,
                    &seek.address,
                ],
            )
            .await?;
            SeekState::Waiting
        }
        Some(row) => {
            let other_id: String = row.get(0);
            let other_hash: Vec<u8> = row.get(1);
            let other_account: Option<i64> = row.get(2);
            let (light, dark) = match seek.waiting_color {
                Color::Light => (other_hash, seek.key_hash.to_vec()),
                Color::Dark => (seek.key_hash.to_vec(), other_hash),
            };
            paired_room(&tx, &seek.room, seek.at, &seek.variant, seek.clock, &light, &dark).await?;
            tx.execute(
                "UPDATE seeks SET room_id = $2, seat = $3 WHERE id = $1",
                &[&other_id, &seek.room, &seat_name(seek.waiting_color)],
            )
            .await?;
            // Signed-in seekers' seats, and a rated room's rating (accounts.rs).
            crate::store::accounts::bind_pg(&*tx, &seek.binding(other_account)).await?;
            changed.push(other_id);
            SeekState::Paired {
                room: seek.room.clone(),
                seat: !seek.waiting_color,
            }
        }
    };
    commit_announced(pg, tx, &changed).await?;
    Ok(state)
}

/// A waiting rated seek looks again, under its seeker's and its pool's locks (as a
/// seek takes them, so two lookers in one pool, or a looker and an arrival, are
/// decided one after the other); announces the seeks it paired.
pub(super) async fn resought(pg: &Pg, r: Recheck) -> Result<SeekState, DbError> {
    let mut client = pg.pool.get().await?;
    let tx = client.transaction().await?;
    let Some(mine) = tx
        .query_opt(
            "SELECT seeker, pool FROM seeks WHERE id = $1 AND room_id IS NULL",
            &[&r.id],
        )
        .await?
    else {
        drop(tx);
        return seek_state(pg, &r.id).await;
    };
    let (seeker, pool): (String, String) = (mine.get(0), mine.get(1));
    if !is_rated_pool(&pool) {
        return Ok(SeekState::Waiting);
    }
    lock(&tx, SEEKER_LOCK, &seeker).await?;
    lock(&tx, SEEK_LOCK, &pool).await?;
    // As for a seek: a dead instance's seeks go before anyone claims them.
    forget_dead_seeks(&tx).await?;
    // Read again under the locks: it may have been paired or withdrawn meanwhile.
    let Some(mine) = tx
        .query_opt(
            "SELECT variant, clock_initial::bigint, clock_increment::bigint, clock_days::bigint, key_hash,
                    created_at, account_id
             FROM seeks WHERE id = $1 AND room_id IS NULL FOR UPDATE",
            &[&r.id],
        )
        .await?
    else {
        drop(tx);
        return seek_state(pg, &r.id).await;
    };
    let variant: String = mine.get(0);
    let clock = parse_clock(mine.get(1), mine.get(2), mine.get(3), "(a seek)")?;
    let Some(clock) = clock else {
        return Ok(SeekState::Waiting);
    };
    let key_hash: Vec<u8> = mine.get(4);
    let since: i64 = mine.get(5);
    let account: Option<i64> = mine.get(6);
    let speed = Speed::of(clock);
    let Some(row) = rated_choice(&tx, &pool, &seeker, account, &variant, speed, since, r.at).await? else {
        return Ok(SeekState::Waiting);
    };
    let other_id: String = row.get(0);
    let other_hash: Vec<u8> = row.get(1);
    let other_account: Option<i64> = row.get(2);
    let (light, dark) = match r.color {
        Color::Light => (key_hash, other_hash),
        Color::Dark => (other_hash, key_hash),
    };
    paired_room(&tx, &r.room, r.at, &variant, Some(clock), &light, &dark).await?;
    for (id, seat) in [(&r.id, r.color), (&other_id, !r.color)] {
        tx.execute(
            "UPDATE seeks SET room_id = $2, seat = $3 WHERE id = $1",
            &[id, &r.room, &seat_name(seat)],
        )
        .await?;
    }
    let (light_account, dark_account) = match r.color {
        Color::Light => (account, other_account),
        Color::Dark => (other_account, account),
    };
    crate::store::accounts::bind_pg(
        &*tx,
        &crate::store::accounts::Binding {
            room: &r.room,
            light: light_account,
            dark: dark_account,
            rated: Some((&variant, speed)),
        },
    )
    .await?;
    let changed = vec![other_id, r.id.clone()];
    commit_announced(pg, tx, &changed).await?;
    Ok(SeekState::Paired {
        room: r.room,
        seat: r.color,
    })
}

/// Deletes seek `id` (only while it is open, with `open_only`) and announces it;
/// returns what it was.
pub(super) async fn withdrawn(pg: &Pg, id: &str, open_only: bool) -> Result<SeekState, DbError> {
    let client = pg.pool.get().await?;
    let row = client
        .query_opt(
            "WITH d AS (DELETE FROM seeks WHERE id = $1 AND (NOT $2 OR room_id IS NULL)
                        RETURNING id, room_id, seat)
             SELECT room_id, seat, pg_notify('mill_seeks', id) FROM d",
            &[&id, &open_only],
        )
        .await?;
    match row {
        None => Ok(SeekState::Gone),
        Some(r) => {
            pg.waiters.wake(id);
            SeekState::from_columns(r.get(0), r.get(1))
        }
    }
}

/// Where seek `id` stands.
pub(super) async fn seek_state(pg: &Pg, id: &str) -> Result<SeekState, DbError> {
    let client = pg.pool.get().await?;
    let stmt = client
        .prepare_cached("SELECT room_id, seat FROM seeks WHERE id = $1")
        .await?;
    match client.query_opt(&stmt, &[&id]).await? {
        None => Ok(SeekState::Gone),
        Some(r) => SeekState::from_columns(r.get(0), r.get(1)),
    }
}

/// The open seeks of every instance, at most `limit`, shared out by address, shown
/// oldest first (`types::lobby_choice`).
pub(super) async fn open_seeks(pg: &Pg, limit: usize) -> Result<Vec<OpenSeek>, DbError> {
    let client = pg.pool.get().await?;
    let stmt = client
        .prepare_cached(&crate::store::types::lobby_choice(SEEK_ALIVE, "$1"))
        .await?;
    let rows = client.query(&stmt, &[&(limit as i64)]).await?;
    rows.iter()
        .map(|r| {
            Ok(OpenSeek {
                variant: r.get(0),
                clock: parse_clock(r.get(1), r.get(2), r.get(3), "(a seek)")?,
                since: r.get(4),
                account: r.get(5),
                rated: r.get(6),
            })
        })
        .collect()
}
