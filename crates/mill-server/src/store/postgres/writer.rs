//! The group-commit writer of an instance: the events waiting share one multi-row
//! `INSERT … ON CONFLICT DO NOTHING RETURNING`, with one NOTIFY naming the rooms changed
//! (and a rated round's ratings in the same transaction).

use super::*;

/// Most events in one transaction: bounds a batch's statement and keeps its NOTIFY
/// payloads few (each at most [`ROOMS_PER_PAYLOAD`] rooms).
pub(super) const MAX_BATCH: usize = 1024;
/// Batches being written at the same time: while one waits for its commit, the next
/// gathers the events that arrive meanwhile and sends its insert.
pub(super) const WRITERS: usize = 2;
/// Room ids per NOTIFY payload: "<room>,<room>,… <origin>" must stay under 8000 bytes
/// (ids are `ROOM_ID_LEN` characters, the origin about 20).
pub(super) const ROOMS_PER_PAYLOAD: i64 = 7800 / (crate::keys::ROOM_ID_LEN as i64 + 1);

/// One event, owned, waiting in the writer's queue.
#[derive(Debug)]
pub(super) struct Event {
    pub(super) room: String,
    pub(super) round: i32,
    pub(super) seq: i32,
    pub(super) seat: &'static str,
    pub(super) kind: &'static str,
    pub(super) action: Option<String>,
    /// An `offer-rematch`'s key hash.
    pub(super) key_hash: Option<Vec<u8>>,
    pub(super) client_id: String,
    pub(super) at: i64,
    pub(super) stamp: Option<crate::timecontrol::Stamp>,
    /// The result, when the event ends its round ([`Append::ends`]).
    pub(super) ends: Option<mill_core::Outcome>,
    /// The room this event's rematch makes ([`Append::rematch`]).
    pub(super) rematch: Option<crate::store::Rematch>,
}

#[derive(Debug)]
pub(super) struct Job {
    pub(super) event: Event,
    pub(super) done: oneshot::Sender<Result<Appended, DbError>>,
}

/// The group-commit writer: takes every event waiting in the queue (up to
/// [`MAX_BATCH`]; while busy, also those arriving within [`GATHER`]) and writes them in
/// one transaction, with at most [`WRITERS`] transactions in flight. Ends when every
/// sender is gone.
pub(super) async fn write_loop(pool: Pool, instance: String, mut queue: mpsc::UnboundedReceiver<Job>) {
    let slots = Arc::new(Semaphore::new(WRITERS));
    let mut last_sent: Option<tokio::time::Instant> = None;
    while let Some(first) = queue.recv().await {
        // Busy: the events arriving within `GATHER` of this one join its batch.
        let until = last_sent
            .is_some_and(|at| at.elapsed() < BUSY)
            .then(|| tokio::time::Instant::now() + GATHER);
        // Waiting for a free slot lets the batch grow while the others commit.
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            let next = match until {
                Some(until) if tokio::time::Instant::now() < until => {
                    tokio::time::timeout_at(until, queue.recv()).await.ok().flatten()
                }
                _ => queue.try_recv().ok(),
            };
            match next {
                Some(job) => batch.push(job),
                None => break,
            }
        }
        last_sent = Some(tokio::time::Instant::now());
        let (pool, instance) = (pool.clone(), instance.clone());
        tokio::spawn(async move {
            write_jobs(&pool, &instance, batch).await;
            drop(slot);
        });
    }
}

/// Writes `jobs` in one transaction and answers each. If the transaction fails, the
/// cause may be one event (say its room was purged meanwhile) or the connection: the
/// batch is split in halves and each half tried on its own, down to single events, so
/// one bad event never takes the others with it. Trying an event again is safe: if an
/// earlier attempt did commit, its client id makes it a `Duplicate`.
pub(super) async fn write_jobs(pool: &Pool, instance: &str, mut jobs: Vec<Job>) {
    // One order for every instance, so two batches racing for the same keys wait for
    // each other rather than deadlock.
    jobs.sort_by(|a, b| {
        (&a.event.room, a.event.round, a.event.seq).cmp(&(&b.event.room, b.event.round, b.event.seq))
    });
    let mut pending = vec![jobs];
    while let Some(jobs) = pending.pop() {
        let events: Vec<&Event> = jobs.iter().map(|j| &j.event).collect();
        let started = std::time::Instant::now();
        match write_batch(pool, instance, &events).await {
            Ok(outcomes) => {
                let m = crate::metrics::get();
                m.commit_seconds.observe(started.elapsed().as_secs_f64());
                m.commit_events.observe(jobs.len() as f64);
                for (job, outcome) in jobs.into_iter().zip(outcomes) {
                    let _ = job.done.send(Ok(outcome));
                }
            }
            Err(e) if jobs.len() > 1 => {
                tracing::warn!(error = %e, events = jobs.len(), "a batch of events failed; trying its halves");
                let mut first = jobs;
                let second = first.split_off(first.len() / 2);
                pending.push(second);
                pending.push(first);
            }
            Err(e) => {
                for job in jobs {
                    let _ = job.done.send(Err(e.clone()));
                }
            }
        }
    }
}

/// One transaction for `events` (sorted by place), in one statement and one round
/// trip: a multi-row `INSERT … ON CONFLICT DO NOTHING RETURNING`, so the database's
/// keys still decide each event on its own and the returned rows say which were
/// stored; the rooms' activity; and the NOTIFY naming the rooms that changed (in
/// chunks under the payload limit). Run outside any transaction block, the statement
/// commits before its answer arrives (tokio-postgres reads up to ReadyForQuery). The
/// events not stored are then looked up: a retry whose client id is stored already,
/// or another command holding the place.
pub(super) async fn write_batch(
    pool: &Pool,
    instance: &str,
    events: &[&Event],
) -> Result<Vec<Appended>, DbError> {
    let client = pool.get().await?;
    // A batch with a round's result is one explicit transaction instead, so that a rated
    // room's rating change commits with the result or not at all (accounts.rs); results
    // are one event in a round, so this is rare.
    // A rematch's room likewise commits with the event that completes it.
    let ending = events.iter().any(|e| e.ends.is_some() || e.rematch.is_some());
    if ending {
        client.batch_execute("BEGIN").await?;
    }
    let written = write_batch_on(&client, instance, events, ending).await;
    if ending && written.is_err() {
        // The connection goes back to the pool outside any transaction.
        let _ = client.batch_execute("ROLLBACK").await;
    }
    written
}

/// Creates a rematch's room with both seats, paired, its seats bound and its rating as
/// the old room's (accounts.rs), inside the transaction storing the event completing it.
async fn create_rematch(
    client: &deadpool_postgres::Object,
    old: &str,
    r: &crate::store::Rematch,
    at: i64,
) -> Result<(), DbError> {
    let (initial, increment, days) = crate::store::types::clock_columns(r.clock);
    client
        .execute(
            "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment,
                                clock_days, paired)
             VALUES ($1, $3, $2, $2, $4::bigint, $5::bigint, $6::bigint, TRUE)",
            &[&r.room, &at, &r.variant, &initial, &increment, &days],
        )
        .await?;
    client
        .execute(
            "INSERT INTO seats (room_id, color, key_hash, created_at)
             VALUES ($1, 'light', $2, $4), ($1, 'dark', $3, $4)",
            &[&r.room, &&r.light_key[..], &&r.dark_key[..], &at],
        )
        .await?;
    crate::store::accounts::rematch_pg(client, old, &r.room).await?;
    Ok(())
}

/// [`write_batch`]'s work on one connection; inside `BEGIN` when `ending`, committed here
/// after the ratings.
pub(super) async fn write_batch_on(
    client: &deadpool_postgres::Object,
    instance: &str,
    events: &[&Event],
    ending: bool,
) -> Result<Vec<Appended>, DbError> {
    let insert = client
        .prepare_cached(
            "WITH input AS (
                 SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::text[],
                                      $6::text[], $7::text[], $8::bigint[], $11::bigint[],
                                      $12::bigint[], $13::bigint[], $15::bytea[])
                     AS t(room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms,
                          lag_ms, key_hash)),
             ev AS (INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at,
                                        light_ms, dark_ms, lag_ms, key_hash)
                    SELECT * FROM input
                    ON CONFLICT DO NOTHING
                    RETURNING room_id, round, seq, seat, client_id, at),
             t AS (UPDATE rooms SET active_at = m.at
                   FROM (SELECT room_id, max(at) AS at FROM ev GROUP BY room_id) m
                   WHERE rooms.id = m.room_id AND rooms.active_at < m.at - $14),
             changed AS (SELECT room_id, (row_number() OVER (ORDER BY room_id) - 1) / $10 AS chunk
                         FROM (SELECT DISTINCT room_id FROM ev) d),
             n AS (SELECT pg_notify('mill_rooms', string_agg(room_id, ',' ORDER BY room_id) || ' ' || $9)
                   FROM changed GROUP BY chunk)
             SELECT room_id, round, seq, seat, client_id, (SELECT count(*) FROM n) FROM ev",
        )
        .await?;
    let rooms: Vec<&str> = events.iter().map(|e| e.room.as_str()).collect();
    let rounds: Vec<i32> = events.iter().map(|e| e.round).collect();
    let seqs: Vec<i32> = events.iter().map(|e| e.seq).collect();
    let seats: Vec<&str> = events.iter().map(|e| e.seat).collect();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind).collect();
    let actions: Vec<Option<&str>> = events.iter().map(|e| e.action.as_deref()).collect();
    let cids: Vec<&str> = events.iter().map(|e| e.client_id.as_str()).collect();
    let ats: Vec<i64> = events.iter().map(|e| e.at).collect();
    let lights: Vec<Option<i64>> = events.iter().map(|e| e.stamp.map(|s| s.light_ms)).collect();
    let darks: Vec<Option<i64>> = events.iter().map(|e| e.stamp.map(|s| s.dark_ms)).collect();
    let lags: Vec<Option<i64>> = events.iter().map(|e| e.stamp.map(|s| s.lag_ms)).collect();
    let key_hashes: Vec<Option<&[u8]>> = events.iter().map(|e| e.key_hash.as_deref()).collect();
    let rows = client
        .query(
            &insert,
            &[
                &rooms,
                &rounds,
                &seqs,
                &seats,
                &kinds,
                &actions,
                &cids,
                &ats,
                &instance,
                &ROOMS_PER_PAYLOAD,
                &lights,
                &darks,
                &lags,
                &crate::store::ACTIVE_SLACK_MS,
                &key_hashes,
            ],
        )
        .await?;
    let mut stored: HashSet<(String, i32, i32, String, String)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    let mut outcomes: Vec<Option<Appended>> = events
        .iter()
        .map(|e| {
            // `remove`: of two identical events in one batch, only the first was stored.
            let key = (
                e.room.clone(),
                e.round,
                e.seq,
                e.seat.to_string(),
                e.client_id.clone(),
            );
            stored.remove(&key).then_some(Appended::Stored)
        })
        .collect();
    if ending {
        for (n, e) in events.iter().enumerate() {
            if let (Some(Appended::Stored), Some(outcome)) = (outcomes[n], &e.ends) {
                crate::store::accounts::record_round_pg(client, &e.room, e.round as u32, outcome, e.at)
                    .await?;
                crate::store::arena::end_pg(client, &e.room, e.round as u32, outcome, e.at).await?;
            }
            if let (Some(Appended::Stored), Some(r)) = (outcomes[n], &e.rematch) {
                create_rematch(client, &e.room, r, e.at).await?;
            }
        }
        client.batch_execute("COMMIT").await?;
    }
    let lost: Vec<usize> = (0..events.len()).filter(|&n| outcomes[n].is_none()).collect();
    if !lost.is_empty() {
        // Committed: whatever took each place or client id is there to be seen.
        let pick = |f: fn(&Event) -> &str| -> Vec<&str> { lost.iter().map(|&n| f(events[n])).collect() };
        let found = client
            .query(
                "SELECT room_id, seat, client_id, round, seq FROM events
                 WHERE (room_id, seat, client_id) IN
                       (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))",
                &[
                    &pick(|e| e.room.as_str()),
                    &pick(|e| e.seat),
                    &pick(|e| e.client_id.as_str()),
                ],
            )
            .await?;
        let dups: std::collections::HashMap<(String, String, String), (i32, i32)> = found
            .iter()
            .map(|r| ((r.get(0), r.get(1), r.get(2)), (r.get(3), r.get(4))))
            .collect();
        for n in lost {
            let e = events[n];
            let key = (e.room.clone(), e.seat.to_string(), e.client_id.clone());
            outcomes[n] = Some(match dups.get(&key) {
                Some(&(round, seq)) => Appended::Duplicate {
                    round: round as u32,
                    seq: seq as u32,
                },
                None => Appended::PlaceTaken,
            });
        }
    }
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Appended::PlaceTaken))
        .collect())
}
