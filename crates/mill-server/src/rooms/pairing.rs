//! Quick pairing (`POST /api/pair`): a seeker asks for an opponent with the same rules
//! and the same time control and is held until one arrives; the two get the two seats of
//! one new room, an ordinary room in every way.
//!
//! The store decides every pairing, once, in the transaction that creates the room (see
//! `Store::seek`): a seek arriving claims the oldest open seek of another seeker in its
//! pool, or waits in the table. The waiting request learns of its pairing from the store's
//! wake-up (its own write, or on PostgreSQL another instance's `NOTIFY mill_seeks`), and
//! also looks every [`POLL`] in case a wake-up was lost. A request that ends before it is
//! answered (the client closed it, the server is stopping) withdraws its seek at once: a
//! withdrawn seek is never paired.
//!
//! Colours are fair: the seeker who was waiting gets Light or Dark at random (a coin
//! drawn for each pairing), the arriving one the other seat.
//!
//! Rated seeks pair only within a rating window that widens with the wait of the older
//! of the two (`ratings.rs` `pairing_window`: ±100 at once, 50 more a second, anyone
//! from 30 s on), the closest rating first. A rated request that waits also asks the
//! store to look again every [`POLL`] (`Store::recheck`), so two seekers too far apart
//! when they arrived are paired once the window has grown to reach them, with nobody
//! else arriving.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use mill_core::{Color, Rules};
use tokio_util::sync::CancellationToken;

use super::Rooms;
use crate::error::ApiError;
use crate::keys;
use crate::store::{OpenSeek, Recheck, Seek, SeekState, Store};
use crate::timecontrol::TimeControl;

/// How often a waiting request reads its seek even without a wake-up.
pub const POLL: Duration = Duration::from_secs(1);
/// Most open seeks `GET /api/seeks` lists.
pub const LOBBY_SIZE: usize = 100;

/// Whether `s` may be a seeker or seek id: 8 to 64 letters, digits, `-` or `_` (a token
/// the page makes at random, never shown to anyone).
pub fn is_token(s: &str) -> bool {
    (8..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// What a seeker asks for.
#[derive(Debug, Clone)]
pub struct SeekRequest {
    /// The rules.
    pub rules: &'static Rules,
    /// The time control (`None`: untimed).
    pub clock: Option<TimeControl>,
    /// The seeker's id (`None`: a fresh one, so only this request is this seeker).
    pub seeker: Option<String>,
    /// The seek's id, for `DELETE /api/pair/{seek}` (`None`: a fresh one).
    pub seek: Option<String>,
    /// The signed-in seeker's account (accounts.rs): its seat is bound to it.
    pub account: Option<i64>,
    /// Rated: pairs only with other rated seeks (signed in, same rules and clock).
    pub rated: bool,
    /// Where the request came from: one address holds at most `address_cap` open seeks.
    pub address: IpAddr,
    /// The most open seeks one address may hold (`--max-seeks-per-address`; 0: no bound).
    pub address_cap: u32,
    /// A rated seeker's rating, for a store that keeps no ratings (`Seek::rating`; the
    /// databases read it themselves).
    pub rating: Option<f64>,
}

/// The key one address's seeks share (`Seek::address`): an IPv4 address, or the /64 an
/// IPv6 address is in (one host gets a whole /64, so its addresses are one), hashed, so
/// that the database never holds the address itself.
pub fn address_key(ip: IpAddr) -> String {
    let shown = match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    };
    let hash = keys::hash_key(&format!("mill seek address {shown}"));
    hash[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// A paired seeker's seat: (room, seat, key).
pub type PairedSeat = (String, Color, String);

/// Withdraws the seek if the request is dropped before it is answered.
struct Pending {
    store: Arc<dyn Store>,
    id: String,
    armed: bool,
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.store.seek_waiters().remove(&self.id);
        if !self.armed {
            return;
        }
        let (store, id) = (self.store.clone(), std::mem::take(&mut self.id));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                match store.withdraw(&id, false).await {
                    Ok(SeekState::Paired { room, .. }) => {
                        tracing::info!(%room, "a seeker left just after it was paired")
                    }
                    Ok(_) => tracing::debug!("seek withdrawn: the request ended"),
                    Err(e) => tracing::warn!(error = %e, "withdrawing a seek failed"),
                }
            });
        }
    }
}

impl Rooms {
    /// Finds an opponent for `asked` within `wait`: the seat of a new room (its key
    /// once the room is stored), or `None` when nobody came within the wait (an answer,
    /// not an error), or `seek-withdrawn` when the seek was cancelled or replaced by a
    /// newer seek of the same seeker.
    pub async fn pair(
        &self,
        asked: SeekRequest,
        wait: Duration,
        shutdown: &CancellationToken,
    ) -> Result<Option<PairedSeat>, ApiError> {
        let store = self.shared.store.clone();
        let key = keys::new_seat_key();
        let id = asked.seek.unwrap_or_else(keys::new_seat_key);
        let seek = Seek {
            id: id.clone(),
            seeker: asked.seeker.unwrap_or_else(keys::new_seat_key),
            variant: asked.rules.to_string(),
            clock: asked.clock,
            key_hash: keys::hash_key(&key),
            at: self.now(),
            room: keys::new_room_id(),
            waiting_color: if rand::random::<bool>() {
                Color::Light
            } else {
                Color::Dark
            },
            account: asked.account,
            rated: asked.rated,
            address: address_key(asked.address),
            address_cap: asked.address_cap,
            rating: asked.rating,
        };
        let woken = store.seek_waiters().register(&id);
        let mut pending = Pending {
            store: store.clone(),
            id: id.clone(),
            armed: true,
        };
        // On failure it may or may not have been stored: `pending` withdraws it.
        let state = store.seek(seek).await?;
        if state == SeekState::Taken {
            // Another seek's id: nothing was stored, and that seek is not ours to withdraw.
            pending.armed = false;
            return Err(ApiError::SeekTaken);
        }
        if state == SeekState::Crowded {
            // Nothing was stored.
            pending.armed = false;
            return Err(ApiError::TooManySeeks);
        }
        if let SeekState::Paired { room, seat } = state {
            pending.armed = false;
            tracing::info!(%room, "seekers paired");
            return Ok(Some((room, seat, key)));
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let timed_out = tokio::select! {
                () = woken.notified() => false,
                () = tokio::time::sleep(POLL) => false,
                () = tokio::time::sleep_until(deadline) => true,
                () = shutdown.cancelled() => true,
            };
            let state = if timed_out {
                // Withdrawn unless the database paired it meanwhile.
                store.withdraw(&id, false).await?
            } else if asked.rated {
                // The rating window has widened with the wait: a seek that was too far
                // may be within it now (ratings.rs `pairing_window`).
                let recheck = Recheck {
                    id: id.clone(),
                    at: self.now(),
                    room: keys::new_room_id(),
                    color: if rand::random::<bool>() {
                        Color::Light
                    } else {
                        Color::Dark
                    },
                    rating: asked.rating,
                };
                store.recheck(recheck).await?
            } else {
                store.seek_state(&id).await?
            };
            match state {
                SeekState::Waiting if !timed_out => continue,
                SeekState::Waiting => {
                    pending.armed = false;
                    return Ok(None);
                }
                SeekState::Paired { room, seat } => {
                    // Answered only by the request that deletes the paired row: a newer
                    // seek of the same seeker may have deleted it first (the seeker
                    // gave this one up), and then this one hears `seek-withdrawn`.
                    let mine = timed_out || store.withdraw(&id, false).await? != SeekState::Gone;
                    pending.armed = false;
                    if !mine {
                        return Err(ApiError::SeekWithdrawn);
                    }
                    return Ok(Some((room, seat, key)));
                }
                SeekState::Gone | SeekState::Taken | SeekState::Crowded => {
                    pending.armed = false;
                    return Err(ApiError::SeekWithdrawn);
                }
            }
        }
    }

    /// Withdraws seek `id` if it is still open (`DELETE /api/pair/{seek}`); its request
    /// is answered `seek-withdrawn`. Whether there was one to withdraw.
    pub async fn withdraw_seek(&self, id: &str) -> Result<bool, ApiError> {
        Ok(self.shared.store.withdraw(id, true).await? == SeekState::Waiting)
    }

    /// The open seeks (`GET /api/seeks`), oldest first, with how long each has waited
    /// and, for a signed-in seeker, its name and rating (one read for the whole list).
    pub async fn open_seeks(&self) -> Result<Vec<LobbySeek>, ApiError> {
        let now = self.now();
        let seeks = self.shared.store.open_seeks(LOBBY_SIZE).await?;
        let mut ids: Vec<i64> = seeks.iter().filter_map(|s| s.account).collect();
        ids.sort_unstable();
        ids.dedup();
        let seekers = match self.shared.accounts.get() {
            Some(accounts) if !ids.is_empty() => accounts.seekers(ids).await?,
            _ => Default::default(),
        };
        Ok(seeks
            .into_iter()
            .map(|s| {
                let waiting = now.saturating_sub(s.since).max(0);
                let seeker = s.account.and_then(|id| seekers.get(&id)).map(|p| SeekerView {
                    name: p.name.clone(),
                    rating: s
                        .clock
                        .map(|c| p.rating(&s.variant, crate::ratings::Speed::of(c))),
                });
                LobbySeek {
                    seek: s,
                    waiting,
                    seeker,
                }
            })
            .collect())
    }
}

/// An open seek as the lobby lists it.
#[derive(Debug, Clone)]
pub struct LobbySeek {
    /// The seek.
    pub seek: OpenSeek,
    /// How long it has waited (ms).
    pub waiting: i64,
    /// Its seeker's account, if signed in (an anonymous seeker stays anonymous).
    pub seeker: Option<SeekerView>,
}

/// A signed-in seeker in the lobby.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekerView {
    /// The account's name.
    pub name: String,
    /// Its rating for the seek's rule set and speed, rounded, and whether it is
    /// provisional (`None`: an untimed seek, which has no speed).
    pub rating: Option<(i64, bool)>,
}

impl LobbySeek {
    /// The lobby's JSON for this seek: `variant`, `clock`, `waiting`, `rated`, and for a
    /// signed-in seeker `name` (and `rating`, `provisional` when the seek has a clock).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "variant": self.seek.variant,
            "clock": self.seek.clock,
            "waiting": self.waiting,
            "rated": self.seek.rated,
        });
        if let Some(p) = &self.seeker {
            v["name"] = p.name.clone().into();
            if let Some((rating, provisional)) = p.rating {
                v["rating"] = rating.into();
                v["provisional"] = provisional.into();
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_short_plain_and_never_free_text() {
        assert!(is_token("abcdEFGH"));
        assert!(is_token("a1-b2_c3-d4e5f6"));
        assert!(is_token(&"x".repeat(64)));
        assert!(!is_token("short"));
        assert!(!is_token(&"x".repeat(65)));
        assert!(!is_token("has space"));
        assert!(!is_token("Grüße123"));
        assert!(!is_token("<script>"));
    }
}
