//! Quick pairing in SQLite's writer: a seek paired or left waiting, a waiting rated seek
//! looked at again as its window widens, the paired room made with both seats.

use super::*;

/// A seek in the writer's transaction (the one writer decides every pairing): the
/// seeker's open seeks are withdrawn; the oldest open seek of another seeker in the same
/// pool is claimed, with the room created with both seats, or else this one waits.
pub(super) fn sought(conn: &Connection, seek: &Seek) -> Result<Written, rusqlite::Error> {
    let pool = seek.pool();
    // Another seeker's id (or an answered one): refused, and nothing touched.
    let taken = conn
        .prepare_cached("SELECT 1 FROM seeks WHERE id = ?1 AND (seeker <> ?2 OR room_id IS NOT NULL)")?
        .exists(params![seek.id, seek.seeker])?;
    if taken {
        return Ok(Written::Sought(SeekState::Taken, Vec::new()));
    }
    // An account never meets itself (coalesce: seeks without one are all different).
    let other: Option<Claimed> = match seek.rated_speed() {
        // Rated: the closest rating within the window (ratings.rs `pairing_window`).
        Some(speed) => rated_choice(conn, &pool, &seek.seeker, seek.account, &seek.variant, speed, seek.at, seek.at)?,
        None => conn
            .prepare_cached(
                "SELECT id, key_hash, account_id FROM seeks WHERE pool = ?1 AND room_id IS NULL AND seeker <> ?2
                   AND coalesce(account_id, -1) <> coalesce(?3, -2)
                 ORDER BY created_at, id LIMIT 1",
            )?
            .query_row(params![pool, seek.seeker, seek.account], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?,
    };
    // It would wait: its address may hold only so many open seeks.
    if other.is_none() && seek.address_cap > 0 {
        let held: i64 = conn
            .prepare_cached(
                "SELECT count(*) FROM seeks WHERE address = ?1 AND room_id IS NULL AND seeker <> ?2",
            )?
            .query_row(params![seek.address, seek.seeker], |r| r.get(0))?;
        if held >= i64::from(seek.address_cap) {
            return Ok(Written::Sought(SeekState::Crowded, Vec::new()));
        }
    }
    // The seeker's older seeks go, a paired one not yet answered too: its request then
    // hears `seek-withdrawn`, so one seeker never gets two rooms.
    let withdrawn: Vec<String> = conn
        .prepare_cached("DELETE FROM seeks WHERE seeker = ?1 RETURNING id")?
        .query_map(params![seek.seeker], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let (initial, increment, days) = clock_columns(seek.clock);
    let Some((other_id, other_hash, other_account)) = other else {
        conn.prepare_cached(
            "INSERT INTO seeks (id, seeker, pool, variant, clock_initial, clock_increment, clock_days,
                                key_hash, created_at, account_id, address)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            seek.id,
            seek.seeker,
            pool,
            seek.variant,
            initial,
            increment,
            days,
            &seek.key_hash[..],
            seek.at,
            seek.account,
            seek.address
        ])?;
        return Ok(Written::Sought(SeekState::Waiting, withdrawn));
    };
    let (light, dark) = match seek.waiting_color {
        mill_core::Color::Light => (other_hash, seek.key_hash.to_vec()),
        mill_core::Color::Dark => (seek.key_hash.to_vec(), other_hash),
    };
    paired_room(
        conn,
        &seek.room,
        seek.at,
        &seek.variant,
        seek.clock,
        &light,
        &dark,
    )?;
    conn.prepare_cached("UPDATE seeks SET room_id = ?2, seat = ?3 WHERE id = ?1")?
        .execute(params![other_id, seek.room, seat_name(seek.waiting_color)])?;
    // Signed-in seekers' seats, and a rated room's rating (accounts.rs).
    crate::store::accounts::bind_sqlite(conn, &seek.binding(other_account))?;
    let mut changed = withdrawn;
    changed.push(other_id);
    Ok(Written::Sought(
        SeekState::Paired {
            room: seek.room.clone(),
            seat: !seek.waiting_color,
        },
        changed,
    ))
}

/// A paired room: created with both seats taken.
pub(super) fn paired_room(
    conn: &Connection,
    room: &str,
    at: i64,
    variant: &str,
    clock: Option<crate::timecontrol::TimeControl>,
    light: &[u8],
    dark: &[u8],
) -> Result<(), rusqlite::Error> {
    let (initial, increment, days) = clock_columns(clock);
    conn.prepare_cached(
        "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment, clock_days, paired)
         VALUES (?1, ?3, ?2, ?2, ?4, ?5, ?6, 1)",
    )?
    .execute(params![room, at, variant, initial, increment, days])?;
    conn.prepare_cached(
        "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, 'light', ?2, ?4), (?1, 'dark', ?3, ?4)",
    )?
    .execute(params![room, light, dark, at])?;
    Ok(())
}

/// The rating of `account` for a rule set and speed as the `ratings` table holds it (a
/// new player's without a row).
pub(super) fn rating_of(
    conn: &Connection,
    account: Option<i64>,
    variant: &str,
    speed: Speed,
) -> Result<f64, rusqlite::Error> {
    Ok(conn
        .prepare_cached("SELECT rating FROM ratings WHERE account_id = ?1 AND rules = ?2 AND speed = ?3")?
        .query_row(params![account, variant, speed.as_str()], |r| r.get(0))
        .optional()?
        .unwrap_or(crate::ratings::START_RATING))
}

/// A waiting seek a pairing claims: its id, its key's hash and its account.
type Claimed = (String, Vec<u8>, Option<i64>);

/// Rated pairing's choice ([`crate::store::types::rated_choice`]) for a seek of `seeker` made at
/// `since`, looking at `now`.
#[allow(clippy::too_many_arguments)]
pub(super) fn rated_choice(
    conn: &Connection,
    pool: &str,
    seeker: &str,
    account: Option<i64>,
    variant: &str,
    speed: Speed,
    since: i64,
    now: i64,
) -> Result<Option<Claimed>, rusqlite::Error> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        crate::store::types::rated_choice(["?1", "?2", "?3", "?4", "?5", "?6", "?7"], "min", "max", "", "")
    });
    let rating = rating_of(conn, account, variant, speed)?;
    conn.prepare_cached(&SQL)?
        .query_row(
            params![pool, seeker, account, speed.as_str(), rating, since, now],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
}

/// A waiting rated seek looking again (`Store::recheck`), in the writer's transaction:
/// the closest open seek of its pool now within the window is claimed, the room created
/// with both seats, and both rows name it.
pub(super) fn resought(conn: &Connection, r: &Recheck) -> Result<Written, rusqlite::Error> {
    type Row = (
        String,
        String,
        String,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Vec<u8>,
        i64,
        Option<i64>,
    );
    let mine: Option<Row> = conn
        .prepare_cached(
            "SELECT seeker, pool, variant, clock_initial, clock_increment, clock_days, key_hash, created_at,
                    account_id
             FROM seeks WHERE id = ?1 AND room_id IS NULL",
        )?
        .query_row(params![r.id], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
                row.get(6)?,
                row.get(7)?,
                row.get(8)?,
            ))
        })
        .optional()?;
    let Some((seeker, pool, variant, initial, increment, days, key_hash, since, account)) = mine else {
        let state = seek_state(conn, &r.id).unwrap_or(SeekState::Gone);
        return Ok(Written::Sought(state, Vec::new()));
    };
    let clock = parse_clock(initial, increment, days, "(a seek)").ok().flatten();
    let (true, Some(clock)) = (crate::store::types::is_rated_pool(&pool), clock) else {
        return Ok(Written::Sought(SeekState::Waiting, Vec::new()));
    };
    let speed = Speed::of(clock);
    let Some((other_id, other_hash, other_account)) =
        rated_choice(conn, &pool, &seeker, account, &variant, speed, since, r.at)?
    else {
        return Ok(Written::Sought(SeekState::Waiting, Vec::new()));
    };
    let (light, dark) = match r.color {
        mill_core::Color::Light => (key_hash, other_hash),
        mill_core::Color::Dark => (other_hash, key_hash),
    };
    paired_room(conn, &r.room, r.at, &variant, Some(clock), &light, &dark)?;
    let mut claim = conn.prepare_cached("UPDATE seeks SET room_id = ?2, seat = ?3 WHERE id = ?1")?;
    claim.execute(params![r.id, r.room, seat_name(r.color)])?;
    claim.execute(params![other_id, r.room, seat_name(!r.color)])?;
    let (light_account, dark_account) = match r.color {
        mill_core::Color::Light => (account, other_account),
        mill_core::Color::Dark => (other_account, account),
    };
    crate::store::accounts::bind_sqlite(
        conn,
        &crate::store::accounts::Binding {
            room: &r.room,
            light: light_account,
            dark: dark_account,
            rated: Some((&variant, speed)),
        },
    )?;
    Ok(Written::Sought(
        SeekState::Paired {
            room: r.room.clone(),
            seat: r.color,
        },
        vec![other_id, r.id.clone()],
    ))
}
