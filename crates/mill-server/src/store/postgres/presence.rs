//! Presence and activity, written in the order they were queued by one task.

use super::*;

/// Writes presence and activity in the order they were queued, and tells the rooms
/// (once [`Pg::start`] has named them) each claim that committed. Ends when every
/// handle to the store is gone.
pub(super) async fn presence_loop(pg: Pg, mut jobs: mpsc::UnboundedReceiver<Published>) {
    // The loop's own handle must not keep the queue open.
    let (pool, instance, rooms) = (pg.pool.clone(), pg.instance.clone(), pg.rooms.clone());
    drop(pg);
    let pg = PresenceWriter { pool, instance };
    while let Some(job) = jobs.recv().await {
        let result = match &job {
            Published::Seat(p) => pg.presence(&p.room, p.seat, p.holder.is_some(), p.at).await,
            Published::Touch(room, at) => pg.touch(room, *at).await.map(|()| None),
        };
        match (result, &job) {
            (Ok(Some(claim)), Published::Seat(p)) => {
                if let Some(rooms) = rooms.get() {
                    rooms.claimed(p, claim);
                }
            }
            (Ok(_), _) => {}
            (Err(e), _) => tracing::warn!(error = %e, "publishing presence failed"),
        }
    }
}

/// The presence task's connection to the database (without the queue's sender, so
/// that the queue closes with the last [`Pg`]).
pub(super) struct PresenceWriter {
    pool: Pool,
    instance: String,
}

impl PresenceWriter {
    /// Publishes (or withdraws) this instance's socket on a seat; also counts as activity.
    /// Publishing claims the seat: it returns the claim's number, newer than every claim
    /// on any seat before it (a socket replacing another on this instance claims again).
    async fn presence(&self, room: &str, seat: Color, online: bool, at: i64) -> Result<Option<i64>, DbError> {
        let seat = seat_name(seat);
        let client = self.pool.get().await?;
        let mut claim = None;
        if online {
            let row = client
                .query_opt(
                    "INSERT INTO presence (room_id, seat, instance_id) VALUES ($1, $2, $3)
                     ON CONFLICT (room_id, seat, instance_id)
                     DO UPDATE SET claim = nextval('presence_claim')
                     RETURNING claim",
                    &[&room, &seat, &self.instance],
                )
                .await?;
            claim = row.map(|r| r.get(0));
        } else {
            client
                .execute(
                    "DELETE FROM presence WHERE room_id = $1 AND seat = $2 AND instance_id = $3",
                    &[&room, &seat, &self.instance],
                )
                .await?;
        }
        self.touch_with(&client, room, at).await?;
        Ok(claim)
    }

    /// A connection came or went.
    async fn touch(&self, room: &str, at: i64) -> Result<(), DbError> {
        let client = self.pool.get().await?;
        self.touch_with(&client, room, at).await
    }

    async fn touch_with(
        &self,
        client: &deadpool_postgres::Client,
        room: &str,
        at: i64,
    ) -> Result<(), DbError> {
        let stmt = client
            .prepare_cached("UPDATE rooms SET active_at = GREATEST(active_at, $2) WHERE id = $1")
            .await?;
        client.execute(&stmt, &[&room, &at]).await?;
        Ok(())
    }
}
