//! The WAL checkpointer: a thread that keeps SQLite's write-ahead log bounded under
//! load and truncates it when the writer is idle.

use super::*;

/// A WAL larger than this is reset under load: the checkpointer copies what is left and
/// makes the next commit start the log again from its beginning.
const WAL_RESTART_BYTES: u64 = 64 << 20;
/// What the file is cut back to when the log restarts (`journal_size_limit`).
const WAL_KEEP_BYTES: i64 = 16 << 20;
/// How often the checkpointer runs.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// Moves the WAL into the database file from a second connection, so the writer's
/// commits never wait for a whole checkpoint (which would show as latency spikes); the
/// writer's own automatic checkpoints are turned off.
///
/// Every tick runs a PASSIVE checkpoint, which never blocks the writer but, under
/// sustained load, never catches up with it either: the log only restarts from its
/// beginning once every frame has been copied, so with PASSIVE alone it grows without
/// bound (issue #10 saw 473 MB in 90 s). So when the file passes [`WAL_RESTART_BYTES`]
/// a RESTART follows the PASSIVE one: it waits for the current commit, holds the next
/// one back while it copies the few frames the PASSIVE pass left, and the next commit
/// then writes from the start of the file, which `journal_size_limit` cuts back to
/// [`WAL_KEEP_BYTES`]. When the log has not moved for a tick (the writer is idle), a
/// TRUNCATE empties it.
pub(super) fn start_checkpointer(conn: &Connection) -> Option<(mpsc::Sender<()>, thread::JoinHandle<()>)> {
    let path = conn.path().filter(|p| !p.is_empty())?.to_string();
    let second = Connection::open(&path).ok()?;
    second.pragma_update(None, "synchronous", "FULL").ok()?;
    second.pragma_update(None, "busy_timeout", 5000).ok()?;
    conn.pragma_update(None, "wal_autocheckpoint", 0).ok()?;
    conn.pragma_update(None, "journal_size_limit", WAL_KEEP_BYTES)
        .ok()?;
    second
        .pragma_update(None, "journal_size_limit", WAL_KEEP_BYTES)
        .ok()?;
    let wal = std::path::PathBuf::from(format!("{path}-wal"));
    let (stop, stopped) = mpsc::channel::<()>();
    let handle = thread::Builder::new()
        .name("mill-db-checkpoint".into())
        .spawn(move || {
            // (busy, frames in the log, frames copied), or None when it failed.
            let checkpoint = |mode: &str| -> Option<(i64, i64, i64)> {
                match second.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                }) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        tracing::warn!(error = %e, mode, "checkpoint failed");
                        None
                    }
                }
            };
            let mut last_frames = -1;
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
                let Some((_, frames, copied)) = checkpoint("PASSIVE") else {
                    continue;
                };
                let size = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
                if size > WAL_RESTART_BYTES {
                    let started = std::time::Instant::now();
                    let result = checkpoint("RESTART");
                    tracing::debug!(
                        wal_bytes = size,
                        ms = started.elapsed().as_millis() as u64,
                        ?result,
                        "WAL restarted"
                    );
                } else if frames > 0 && frames == last_frames && copied == frames {
                    checkpoint("TRUNCATE");
                    last_frames = 0;
                    continue;
                }
                last_frames = frames;
            }
            checkpoint("TRUNCATE");
        })
        .ok()?;
    Some((stop, handle))
}
