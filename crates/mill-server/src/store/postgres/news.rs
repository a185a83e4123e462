//! News from the other instances: LISTEN on a connection of its own, the task that
//! gathers the rooms announced into batches, and reading the news of many rooms at once.

use super::*;

/// The events of many rooms from a (round, seq) each on, their Dark seats, and
/// their seats held on other live instances, for many rooms at once, in three statements whatever their number
/// (sent together on one connection): the read side of the batched writes, for an
/// instance told by one NOTIFY that many rooms changed. Answers in the order asked.
pub(super) async fn news(pg: &Pg, wanted: &[(String, u32, u32)]) -> Result<Vec<News>, DbError> {
    let client = pg.pool.get().await?;
    let ids: Vec<&str> = wanted.iter().map(|w| w.0.as_str()).collect();
    let rounds: Vec<i32> = wanted.iter().map(|w| i(w.1)).collect();
    let seqs: Vec<i32> = wanted.iter().map(|w| i(w.2)).collect();
    let (events, seats, presence) = futures_util::future::try_join3(
        async {
            let stmt = client
                .prepare_cached(
                    "SELECT e.room_id, e.round, e.seq, e.seat, e.kind, e.action, e.client_id, e.at,
                            e.light_ms, e.dark_ms, e.lag_ms, e.key_hash
                     FROM unnest($1::text[], $2::int[], $3::int[]) AS w(room_id, round, seq)
                     JOIN events e ON e.room_id = w.room_id AND (e.round, e.seq) >= (w.round, w.seq)
                     ORDER BY e.room_id, e.round, e.seq",
                )
                .await?;
            client.query(&stmt, &[&ids, &rounds, &seqs]).await
        },
        async {
            let stmt = client
                .prepare_cached(
                    "SELECT room_id, key_hash, created_at FROM seats WHERE room_id = ANY($1) AND color = 'dark'",
                )
                .await?;
            client.query(&stmt, &[&ids]).await
        },
        async {
            let stmt = client
                .prepare_cached(&format!(
                    "SELECT p.room_id, p.seat, max(p.claim) FROM presence p
                     JOIN instances i ON i.id = p.instance_id
                     WHERE p.room_id = ANY($1) AND p.instance_id <> $2
                       AND i.seen_at > now() - interval '{DEAD_AFTER_SECS} seconds'
                     GROUP BY p.room_id, p.seat"
                ))
                .await?;
            client.query(&stmt, &[&ids, &pg.instance]).await
        },
    )
    .await?;
    let mut out: std::collections::HashMap<String, News> =
        wanted.iter().map(|w| (w.0.clone(), News::default())).collect();
    for r in &events {
        let room: String = r.get(0);
        let event = event_row(r, 1, &room)?;
        if let Some(news) = out.get_mut(&room) {
            news.events.push(event);
        }
    }
    for r in &seats {
        let room: String = r.get(0);
        let key = key_hash(r.get(1), &room)?;
        if let Some(news) = out.get_mut(&room) {
            news.dark_key = Some(key);
            news.dark_at = Some(r.get(2));
        }
    }
    for r in &presence {
        let room: String = r.get(0);
        let seat = parse_seat(r.get(1), &room)?;
        if let Some(news) = out.get_mut(&room) {
            let at = usize::from(seat == Color::Dark);
            news.remote[at] = true;
            news.claims[at] = r.get(2);
        }
    }
    Ok(wanted
        .iter()
        .map(|w| out.remove(&w.0).unwrap_or_default())
        .collect())
}

/// Reads the rooms announced (from [`listen`]) in batches: every room announced while the
/// last batches were being read makes the next batch (a `None` stands for every room); a
/// few batches are read at once, so one slow read does not hold the news of every other
/// room. Runs until the announcements end.
pub(super) async fn gather(
    changed: Arc<dyn Instances>,
    mut news_rx: mpsc::UnboundedReceiver<Option<String>>,
) {
    let readers = Arc::new(Semaphore::new(3));
    while let Some(first) = news_rx.recv().await {
        let Ok(reader) = readers.clone().acquire_owned().await else {
            break;
        };
        let mut ids = Some(Vec::new());
        for id in std::iter::once(first).chain(std::iter::from_fn(|| news_rx.try_recv().ok())) {
            match (id, &mut ids) {
                (Some(id), Some(list)) => list.push(id),
                (None, _) => ids = None,
                (Some(_), None) => {}
            }
            if ids.as_ref().is_some_and(|l| l.len() >= 1024) {
                break;
            }
        }
        if let Some(list) = &mut ids {
            list.sort_unstable();
            list.dedup();
        }
        let changed = changed.clone();
        tokio::spawn(async move {
            changed.changed(ids).await;
            drop(reader);
        });
    }
}

/// Listens on `mill_rooms` on a connection of its own and sends the id of every room
/// that another instance changed (`None` after the connection was lost and made
/// again: every room in memory may have missed news). Runs until `out` closes.
pub(super) async fn listen(pg: Pg, out: mpsc::UnboundedSender<Option<String>>) {
    let mut first = true;
    loop {
        match pg.config.connect(NoTls).await {
            Ok((client, mut connection)) => {
                let (tx, mut rx) = mpsc::unbounded_channel();
                let waiters = pg.waiters.clone();
                let driver = tokio::spawn(async move {
                    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    while let Some(message) = messages.next().await {
                        match message {
                            Ok(AsyncMessage::Notification(n)) => {
                                if n.channel() == "mill_seeks" {
                                    waiters.wake(n.payload());
                                    continue;
                                }
                                if tx.send(n.payload().to_string()).is_err() {
                                    break;
                                }
                            }
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!(error = %e, "LISTEN connection lost");
                                break;
                            }
                        }
                    }
                });
                if let Err(e) = client.batch_execute("LISTEN mill_rooms; LISTEN mill_seeks").await {
                    tracing::warn!(error = %e, "LISTEN failed");
                } else {
                    if !first {
                        if out.send(None).is_err() {
                            return;
                        }
                        pg.waiters.wake_all();
                    }
                    first = false;
                    while let Some(payload) = rx.recv().await {
                        let (rooms, origin) = payload.split_once(' ').unwrap_or((&payload, ""));
                        if origin == pg.instance {
                            continue;
                        }
                        for room in rooms.split(',') {
                            if out.send(Some(room.to_string())).is_err() {
                                return;
                            }
                        }
                    }
                }
                driver.abort();
            }
            Err(e) => tracing::warn!(error = %e, "LISTEN connection failed"),
        }
        if out.is_closed() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
