//! Arena tournaments: for a fixed time, every player who is free is paired again at
//! once, points add up, and a live table shows who leads (docs/PROTOCOL.md "Arenas").
//!
//! - `scoring.rs`: points, fire, the short draw, performance and the standings (pure).
//! - `pairing.rs`: whom a pairing pairs (pure).
//! - `api.rs`: the HTTP routes and the arena socket.
//! - this file: [`Hub`], each instance's pairing loop and the standings it pushes.
//!
//! Everything two instances could both decide is decided by the database, in
//! `store/arena.rs`: the loop runs on every instance, and a pairing is one transaction
//! that uses each waiting player's ticket once; a game's result is written with the
//! event that ends it. Games are ordinary rooms on the arena's clock.

pub mod api;
pub mod pairing;
pub mod schedule;
pub mod scoring;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use serde_json::{Value, json};
use tokio::sync::{Notify, watch};

use crate::clock::Clock;
use crate::store::arena::{ArenaData, ArenaInfo, Arenas};

/// How often each instance pairs the running arenas and reads the standings it pushes.
pub const TICK: Duration = Duration::from_secs(1);
/// How long a finished arena stays in `GET /api/arenas`.
pub const RECENT_MS: i64 = 3_600_000;
/// Most arenas `GET /api/arenas` lists.
pub const LIST_SIZE: u32 = 100;
/// Rows in a page of the standings (`GET /api/arenas/{id}?page=N`, the arena socket's
/// `?page=N`): what one message carries stays bounded however many play.
pub const STANDINGS_PAGE: usize = 50;

/// What one pass pushes to an arena's sockets, each message serialised once and its
/// bytes shared by every socket that sends it: each page of the standings as a
/// `standings` message, and each player's own row as an `own-standing` message.
#[derive(Debug, PartialEq)]
pub struct Pushed {
    /// Page 1 first; at least one (an arena nobody has joined has an empty page 1).
    pages: Vec<Utf8Bytes>,
    /// By account.
    own: HashMap<i64, Utf8Bytes>,
}

impl Pushed {
    /// The arena's messages at `now`.
    pub fn of(data: &ArenaData, now: i64) -> Pushed {
        let page = Page::of(data);
        let pages = (1..=page.count())
            .map(|n| {
                let mut body = page.json(data, now, n);
                body["type"] = json!(crate::protocol::ArenaMessage::Standings.as_str());
                Utf8Bytes::from(body.to_string())
            })
            .collect();
        let own = page
            .rows
            .iter()
            .enumerate()
            .map(|(n, row)| {
                let message = json!({
                    "type": crate::protocol::ArenaMessage::OwnStanding.as_str(),
                    "row": page.row_json(n, row),
                });
                (row.account, Utf8Bytes::from(message.to_string()))
            })
            .collect();
        Pushed { pages, own }
    }

    /// Page `n` (from 1; past the last, the last).
    pub fn page(&self, n: usize) -> Utf8Bytes {
        let at = n.clamp(1, self.pages.len().max(1)) - 1;
        self.pages.get(at).cloned().unwrap_or_default()
    }

    /// The `own-standing` message of `account`, if it is in the arena.
    pub fn own(&self, account: i64) -> Option<Utf8Bytes> {
        self.own.get(&account).cloned()
    }
}

/// An arena's standings computed once, from which its pages are cut.
struct Page<'a> {
    rows: Vec<scoring::Row>,
    names: HashMap<i64, &'a str>,
}

impl<'a> Page<'a> {
    fn of(data: &'a ArenaData) -> Page<'a> {
        let names = data
            .players
            .iter()
            .map(|p| (p.account, p.name.as_str()))
            .collect();
        Page {
            rows: scoring::standings(&data.players, &data.games),
            names,
        }
    }

    /// How many pages there are (at least one).
    fn count(&self) -> usize {
        self.rows.len().div_ceil(STANDINGS_PAGE).max(1)
    }

    /// Row `n` (from 0) as the standings show it.
    fn row_json(&self, n: usize, r: &scoring::Row) -> Value {
        json!({
            "rank": n + 1,
            "name": r.name,
            "score": r.score,
            "fire": r.fire,
            "performance": r.performance.map(|p| p.round() as i64),
            "state": r.state,
            "playing": r.playing,
            "games": r.games.iter().map(|g| json!({
                "room": g.room,
                "opponent": self.names.get(&g.opponent).copied(),
                "result": g.result.map(scoring::Result::as_str),
                "points": g.points,
            })).collect::<Vec<_>>(),
        })
    }

    /// The arena with page `page` of its standings (from 1; past the last, the last).
    fn json(&self, data: &ArenaData, now: i64, page: usize) -> Value {
        let page = page.clamp(1, self.count());
        let from = (page - 1) * STANDINGS_PAGE;
        let standings: Vec<Value> = self
            .rows
            .iter()
            .enumerate()
            .skip(from)
            .take(STANDINGS_PAGE)
            .map(|(n, r)| self.row_json(n, r))
            .collect();
        let mut body = info_json(&data.info, now);
        body["standings"] = Value::Array(standings);
        body["page"] = json!(page);
        body["pages"] = json!(self.count());
        body["ranked"] = json!(self.rows.len());
        body["games"] = json!({
            "played": data.games.iter().filter(|g| g.ending.is_some()).count(),
            "playing": data.games.iter().filter(|g| g.ending.is_none()).count(),
        });
        body
    }

    /// The row of `account`, if it is in the arena.
    fn own_json(&self, account: i64) -> Option<Value> {
        self.rows
            .iter()
            .position(|r| r.account == account)
            .map(|n| self.row_json(n, &self.rows[n]))
    }
}

/// This instance's side of the arenas: the pairing loop and the standings pushed to
/// the arena sockets here.
#[derive(Debug)]
pub struct Hub {
    /// The store's arena calls.
    pub arenas: Arenas,
    /// Wall clock.
    pub clock: Arc<dyn Clock>,
    /// Woken when this instance has paired someone (sockets look at their tickets).
    pub paired: Notify,
    /// Woken to run the loop at once (a player joined or came back).
    pub poke: Notify,
    /// Each watched arena's messages, as last read.
    feeds: Mutex<HashMap<String, watch::Sender<Arc<Pushed>>>>,
    /// The server's own arenas (`--arenas`).
    scheduled: Vec<schedule::Scheduled>,
    /// Scheduled arenas known to exist.
    made: Mutex<std::collections::HashSet<String>>,
    /// The players' arena sockets open here, by arena and account, oldest first: only
    /// the newest sets its ticket (the others learn only whether theirs was used).
    sockets: Mutex<HashMap<(String, i64), Vec<u64>>>,
    /// The next socket's number.
    next_socket: std::sync::atomic::AtomicU64,
}

impl Hub {
    /// A hub over `store`.
    pub fn new(
        store: Arc<dyn crate::store::Store>,
        clock: Arc<dyn Clock>,
        scheduled: Vec<schedule::Scheduled>,
    ) -> Hub {
        Hub {
            arenas: Arenas(store),
            clock,
            paired: Notify::new(),
            poke: Notify::new(),
            feeds: Mutex::new(HashMap::new()),
            scheduled,
            made: Mutex::new(Default::default()),
            sockets: Mutex::new(HashMap::new()),
            next_socket: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// A player's arena socket opened here: its number, the newest of the player's.
    pub fn socket_opened(&self, arena: &str, account: i64) -> u64 {
        let n = self
            .next_socket
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut sockets = self.sockets.lock().unwrap_or_else(|e| e.into_inner());
        sockets.entry((arena.to_string(), account)).or_default().push(n);
        n
    }

    /// Socket `n` of the player closed.
    pub fn socket_closed(&self, arena: &str, account: i64, n: u64) {
        let mut sockets = self.sockets.lock().unwrap_or_else(|e| e.into_inner());
        let key = (arena.to_string(), account);
        if let Some(open) = sockets.get_mut(&key) {
            open.retain(|&m| m != n);
            if open.is_empty() {
                sockets.remove(&key);
            }
        }
    }

    /// Whether socket `n` is the newest of the player's open here (the one that sets
    /// its ticket, so it is the one handed the next game).
    pub fn newest_socket(&self, arena: &str, account: i64, n: u64) -> bool {
        let sockets = self.sockets.lock().unwrap_or_else(|e| e.into_inner());
        sockets
            .get(&(arena.to_string(), account))
            .and_then(|open| open.last())
            == Some(&n)
    }

    /// Makes the scheduled arenas that are due and missing.
    async fn schedule(&self, now: i64) {
        for s in &self.scheduled {
            for arena in s.due(now, now) {
                let id = arena.id.clone();
                if self.made.lock().unwrap_or_else(|e| e.into_inner()).contains(&id) {
                    continue;
                }
                let exists = match self.arenas.get(&id).await {
                    Ok(found) => found.is_some(),
                    Err(e) => {
                        tracing::warn!(error = %e, "reading a scheduled arena failed");
                        continue;
                    }
                };
                // Another instance may make it at the same moment: its key decides.
                let made = exists || self.arenas.create(arena).await.is_ok() || {
                    matches!(self.arenas.get(&id).await, Ok(Some(_)))
                };
                if made {
                    let mut known = self.made.lock().unwrap_or_else(|e| e.into_inner());
                    // Only those still due are kept, so the set stays small.
                    known.retain(|k| self.is_scheduled_id(k, now));
                    known.insert(id);
                }
            }
        }
    }

    /// Whether `id` is one of the scheduled arenas due at `now` (the set of known ones
    /// keeps only those).
    fn is_scheduled_id(&self, id: &str, now: i64) -> bool {
        self.scheduled
            .iter()
            .any(|s| s.due(now, now).iter().any(|a| a.id == id))
    }

    /// Now, in Unix ms.
    pub fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The messages of arena `id`, starting with the current ones; `None` when there
    /// is no such arena.
    pub async fn watch(
        &self,
        id: &str,
    ) -> Result<Option<watch::Receiver<Arc<Pushed>>>, crate::store::DbError> {
        if let Some(tx) = self.feeds.lock().unwrap_or_else(|e| e.into_inner()).get(id) {
            return Ok(Some(tx.subscribe()));
        }
        let Some(data) = self.arenas.get(id).await? else {
            return Ok(None);
        };
        let first = Pushed::of(&data, self.now());
        let mut feeds = self.feeds.lock().unwrap_or_else(|e| e.into_inner());
        let tx = feeds
            .entry(id.to_string())
            .or_insert_with(|| watch::channel(Arc::new(first)).0);
        Ok(Some(tx.subscribe()))
    }

    /// One pass: pairs every running arena, then refreshes the watched arenas'
    /// standings (dropping those nobody watches).
    pub async fn pass(&self) {
        let now = self.now();
        self.schedule(now).await;
        match self.arenas.running(now).await {
            Ok(running) => {
                for id in running {
                    match self.arenas.pair(&id, now).await {
                        Ok(made) if !made.is_empty() => {
                            tracing::debug!(arena = %id, games = made.len(), "arena players paired");
                            self.paired.notify_waiters();
                        }
                        Ok(_) => {}
                        // Another instance's pairing took a player first: the next pass
                        // reads again.
                        Err(e) => tracing::debug!(arena = %id, error = %e, "an arena pairing was not made"),
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "reading the running arenas failed"),
        }
        let watched: Vec<(String, watch::Sender<Arc<Pushed>>)> = {
            let mut feeds = self.feeds.lock().unwrap_or_else(|e| e.into_inner());
            feeds.retain(|_, tx| tx.receiver_count() > 0);
            feeds.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        for (id, tx) in watched {
            match self.arenas.get(&id).await {
                Ok(Some(data)) => {
                    let pushed = Pushed::of(&data, self.now());
                    tx.send_if_modified(|old| {
                        let changed = **old != pushed;
                        if changed {
                            *old = Arc::new(pushed);
                        }
                        changed
                    });
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(arena = %id, error = %e, "reading an arena's standings failed"),
            }
        }
    }

    /// The loop: a pass every [`TICK`], or at once when poked.
    pub async fn run(self: Arc<Self>) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(TICK) => {}
                () = self.poke.notified() => {}
            }
            self.pass().await;
        }
    }
}

/// An arena's status at `now`.
pub fn status(info: &ArenaInfo, now: i64) -> &'static str {
    if now < info.starts_at {
        "created"
    } else if now < info.ends_at {
        "started"
    } else {
        "finished"
    }
}

/// An arena as `GET /api/arenas` lists it.
pub fn info_json(info: &ArenaInfo, now: i64) -> Value {
    json!({
        "id": info.id,
        "name": info.name,
        "variant": info.variant,
        "clock": { "initial": info.initial, "increment": info.increment },
        "rated": info.rated,
        "status": status(info, now),
        "starts": rfc3339(info.starts_at),
        "ends": rfc3339(info.ends_at),
        "players": info.players,
    })
}

/// An arena with page `page` of its standings (from 1) and the row of `account` (the
/// caller) as `own`, as `GET /api/arenas/{id}` answers (`me` aside).
pub fn arena_json(data: &ArenaData, now: i64, page: usize, account: Option<i64>) -> Value {
    let cut = Page::of(data);
    let mut body = cut.json(data, now, page);
    body["own"] = account.and_then(|a| cut.own_json(a)).unwrap_or(Value::Null);
    body
}

/// Unix ms as RFC 3339 in UTC, to the second (`2026-12-04T19:00:00Z`).
pub fn rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Reads an RFC 3339 date and time (`2026-12-04T19:00:00Z`, `…+03:00`, with or without
/// a fraction of a second) as Unix ms.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, sec) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut at = 19;
    let mut ms = 0;
    if b.get(at) == Some(&b'.') {
        let digits = b[at + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let frac = &s[at + 1..at + 1 + digits.min(3)];
        ms = frac.parse::<i64>().ok()? * 10_i64.pow(3 - frac.len() as u32);
        at += 1 + digits;
    }
    let offset = match &s[at..] {
        "Z" | "z" => 0,
        tz if tz.len() == 6 && matches!(tz.as_bytes()[0], b'+' | b'-') && tz.as_bytes()[3] == b':' => {
            let (oh, om) = (num(at + 1, 2)?, num(at + 4, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let sign = if tz.starts_with('-') { -1 } else { 1 };
            sign * (oh * 3600 + om * 60)
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    Some((days * 86_400 + h * 3600 + mi * 60 + sec.min(59) - offset) * 1000 + ms)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day since 1970-01-01.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arena of `n` players where player i has won i games against player 0's
    /// account, so the standings are player n-1 first.
    fn arena_of(n: i64) -> ArenaData {
        let players = (0..n)
            .map(|i| scoring::Player {
                account: i,
                name: format!("p{i:03}"),
                state: "joined".into(),
            })
            .collect();
        let mut games = Vec::new();
        for i in 1..n {
            for g in 0..i.min(3) {
                games.push(scoring::Game {
                    room: format!("r{i}x{g}"),
                    light: i,
                    dark: 0,
                    light_rating: 1500.0,
                    dark_rating: 1500.0,
                    started_at: i * 10 + g,
                    ending: Some(scoring::Ending::Light),
                    turns: (20, 20),
                });
            }
        }
        let info = ArenaInfo {
            id: "abcdefghijkl".into(),
            name: "test".into(),
            variant: "nine".into(),
            initial: 60,
            increment: 0,
            starts_at: 0,
            ends_at: 3_600_000,
            rated: false,
            players: n as u32,
        };
        ArenaData { info, players, games }
    }

    fn parse(b: &Utf8Bytes) -> Value {
        serde_json::from_str(b.as_str()).unwrap()
    }

    #[test]
    fn the_standings_are_cut_into_pages_and_each_player_has_an_own_row() {
        let data = arena_of(120);
        let pushed = Pushed::of(&data, 1000);
        assert_eq!(pushed.pages.len(), 3);
        let mut ranks = Vec::new();
        for n in 1..=3 {
            let page = parse(&pushed.page(n));
            assert_eq!(page["type"], "standings");
            assert_eq!(
                (page["page"].as_u64(), page["pages"].as_u64()),
                (Some(n as u64), Some(3))
            );
            assert_eq!(page["ranked"], 120);
            assert_eq!(page["games"]["played"], data.games.len());
            let rows = page["standings"].as_array().unwrap();
            assert_eq!(rows.len(), if n < 3 { STANDINGS_PAGE } else { 20 });
            ranks.extend(rows.iter().map(|r| r["rank"].as_u64().unwrap()));
        }
        assert_eq!(ranks, (1..=120).collect::<Vec<u64>>(), "every row once, in order");
        // Past the last page: the last; page 0 is the first.
        assert_eq!(pushed.page(9), pushed.page(3));
        assert_eq!(pushed.page(0), pushed.page(1));
        // Every player's own row, wherever it stands, as the pages show it.
        assert_eq!(pushed.own.len(), 120);
        let own = parse(&pushed.own(0).unwrap());
        assert_eq!(own["type"], "own-standing");
        let rank = own["row"]["rank"].as_u64().unwrap() as usize;
        let page = parse(&pushed.page(rank.div_ceil(STANDINGS_PAGE)));
        let shown = page["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "p000")
            .unwrap();
        assert_eq!(&own["row"], shown);
        assert!(pushed.own(999).is_none());
        // The answer of GET: the page asked for, and the caller's row.
        let body = arena_json(&data, 1000, 2, Some(0));
        assert_eq!(body["standings"], page_rows(&pushed, 2));
        assert_eq!(body["own"], own["row"]);
        assert_eq!(arena_json(&data, 1000, 1, None)["own"], Value::Null);
        // An empty arena has one empty page.
        let empty = Pushed::of(&arena_of(0), 0);
        assert_eq!(parse(&empty.page(1))["standings"], json!([]));
        assert_eq!(parse(&empty.page(1))["pages"], 1);
    }

    fn page_rows(pushed: &Pushed, n: usize) -> Value {
        parse(&pushed.page(n))["standings"].clone()
    }

    #[test]
    fn the_bytes_of_a_message_are_shared_and_only_news_changes_them() {
        let data = arena_of(60);
        let (a, b) = (Pushed::of(&data, 5), Pushed::of(&data, 5));
        assert_eq!(a, b, "the same reading gives the same messages");
        let mut more = data.clone();
        more.games[0].ending = Some(scoring::Ending::Dark);
        assert_ne!(Pushed::of(&more, 5), a, "a changed result changes them");
    }

    #[test]
    fn rfc3339_round_trips_and_reads_offsets() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        let t = parse_rfc3339("2026-12-04T19:30:05Z").unwrap();
        assert_eq!(rfc3339(t), "2026-12-04T19:30:05Z");
        assert_eq!(parse_rfc3339("2026-12-04T22:30:05+03:00"), Some(t));
        assert_eq!(parse_rfc3339("2026-12-04T19:00:05-00:30"), Some(t));
        assert_eq!(parse_rfc3339("2026-12-04T19:30:05.250Z"), Some(t + 250));
        assert_eq!(
            parse_rfc3339("2024-02-29T00:00:00Z").map(rfc3339).as_deref(),
            Some("2024-02-29T00:00:00Z")
        );
        for bad in [
            "",
            "2026-12-04",
            "2026-12-04T19:30:05",
            "2026-13-04T19:30:05Z",
            "2025-02-29T00:00:00Z",
            "2026-12-04T24:00:00Z",
            "2026-12-04T19:30:05+3:00",
            "2026-12-04T19:30:05.Z",
            "２０２６-12-04T19:30:05Z",
            "tomorrow at noon",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
