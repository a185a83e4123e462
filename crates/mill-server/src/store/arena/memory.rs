//! Arenas on the in-memory store (store/memory.rs), deciding what the databases' keys decide.

use super::*;

/// A player row in memory.
#[derive(Debug, Clone)]
struct MemPlayer {
    account: i64,
    name: String,
    state: &'static str,
    joined_at: i64,
    room: Option<String>,
    ticket: Option<[u8; 32]>,
}

/// A game row in memory.
#[derive(Debug, Clone)]
struct MemGame {
    arena: String,
    ended_at: Option<i64>,
    game: scoring::Game,
    light_hash: [u8; 32],
    dark_hash: [u8; 32],
}

/// The in-memory store's arenas.
#[derive(Debug, Default)]
pub struct MemArenas {
    arenas: Vec<(NewArena, Vec<MemPlayer>)>,
    games: Vec<MemGame>,
}

/// A room the in-memory store must create for a pairing: (id, rule set, clock, Light's
/// and Dark's key hashes, now).
pub type MemRoom = (String, String, TimeControl, [u8; 32], [u8; 32], i64);

impl MemArenas {
    fn info(a: &NewArena, players: &[MemPlayer]) -> ArenaInfo {
        ArenaInfo {
            id: a.id.clone(),
            name: a.name.clone(),
            variant: a.variant.clone(),
            initial: a.initial,
            increment: a.increment,
            starts_at: a.starts_at,
            ends_at: a.ends_at,
            rated: a.rated,
            players: count(players.iter().filter(|p| p.state != "withdrawn").count() as i64),
        }
    }

    fn games_of(&self, arena: &str) -> Vec<scoring::Game> {
        self.games
            .iter()
            .filter(|g| g.arena == arena)
            .map(|g| g.game.clone())
            .collect()
    }

    fn used(&self, arena: &str, account: i64, hash: &[u8; 32]) -> Option<Ticket> {
        self.games.iter().find_map(|g| {
            if g.arena != arena {
                None
            } else if g.game.light == account && g.light_hash == *hash {
                Some(Ticket::Paired(g.game.room.clone(), Color::Light))
            } else if g.game.dark == account && g.dark_hash == *hash {
                Some(Ticket::Paired(g.game.room.clone(), Color::Dark))
            } else {
                None
            }
        })
    }

    /// Answers a request; the rooms a pairing made are pushed to `rooms`.
    pub fn request(&mut self, req: ArenaRequest, rooms: &mut Vec<MemRoom>) -> Result<ArenaAnswer, DbError> {
        Ok(match req {
            ArenaRequest::Create(a) => {
                if self.arenas.iter().any(|(x, _)| x.id == a.id) {
                    return Err(DbError::failed("memory", format!("arena {} exists", a.id)));
                }
                self.arenas.push((a, Vec::new()));
                ArenaAnswer::Done
            }
            ArenaRequest::Member {
                arena,
                account,
                name,
                change,
                at,
            } => {
                let Some((a, players)) = self.arenas.iter_mut().find(|(a, _)| a.id == arena) else {
                    return Ok(ArenaAnswer::Member(Member::NoArena));
                };
                if at >= a.ends_at {
                    return Ok(ArenaAnswer::Member(Member::Finished));
                }
                let member = match (players.iter_mut().find(|p| p.account == account), change) {
                    (Some(p), change) => {
                        p.state = change.state();
                        if change == Membership::Join {
                            p.name = name;
                        }
                        Member::Done
                    }
                    (None, Membership::Join) => {
                        players.push(MemPlayer {
                            account,
                            name,
                            state: "joined",
                            joined_at: at,
                            room: None,
                            ticket: None,
                        });
                        Member::Done
                    }
                    (None, _) => Member::NotJoined,
                };
                ArenaAnswer::Member(member)
            }
            ArenaRequest::List { since, limit } => {
                let mut list: Vec<ArenaInfo> = self
                    .arenas
                    .iter()
                    .filter(|(a, _)| a.ends_at > since)
                    .map(|(a, p)| Self::info(a, p))
                    .collect();
                list.sort_by(|a, b| (a.starts_at, &a.id).cmp(&(b.starts_at, &b.id)));
                list.truncate(limit as usize);
                ArenaAnswer::List(list)
            }
            ArenaRequest::Get(id) => {
                let found = self.arenas.iter().find(|(a, _)| a.id == id).map(|(a, players)| {
                    let mut players = players.clone();
                    players.sort_by_key(|p| (p.joined_at, p.account));
                    ArenaData {
                        info: Self::info(a, &players),
                        players: players
                            .iter()
                            .map(|p| scoring::Player {
                                account: p.account,
                                name: p.name.clone(),
                                state: p.state.to_string(),
                            })
                            .collect(),
                        games: Vec::new(),
                    }
                });
                ArenaAnswer::Arena(found.map(|mut d| {
                    d.games = self.games_of(&id);
                    Box::new(d)
                }))
            }
            ArenaRequest::Running(now) => ArenaAnswer::Ids(
                self.arenas
                    .iter()
                    .filter(|(a, _)| a.starts_at <= now && now < a.ends_at)
                    .map(|(a, _)| a.id.clone())
                    .collect(),
            ),
            ArenaRequest::OfRoom(room) => ArenaAnswer::Ids(
                self.games
                    .iter()
                    .filter(|g| g.game.room == room)
                    .map(|g| g.arena.clone())
                    .collect(),
            ),
            ArenaRequest::Pair { arena, at } => {
                let games = self.games_of(&arena);
                let latest = self
                    .games
                    .iter()
                    .filter(|g| g.arena == arena)
                    .filter_map(|g| g.ended_at)
                    .max();
                let at = at.max(latest.unwrap_or(at));
                let Some((a, players)) = self.arenas.iter_mut().find(|(a, _)| a.id == arena) else {
                    return Ok(ArenaAnswer::Paired(Vec::new()));
                };
                if !(a.starts_at <= at && at < a.ends_at) {
                    return Ok(ArenaAnswer::Paired(Vec::new()));
                }
                let rows: Vec<PairRow> = players
                    .iter()
                    .map(|p| PairRow {
                        account: p.account,
                        state: p.state.to_string(),
                        room: p.room.clone(),
                        ticket: p.ticket,
                    })
                    .collect();
                let clock = TimeControl::Live {
                    initial: a.initial,
                    increment: a.increment,
                };
                let mut made = Vec::new();
                let mut new_games = Vec::new();
                for p in plan(&rows, &games) {
                    for (account, _) in [p.light, p.dark] {
                        let row = players
                            .iter_mut()
                            .find(|x| x.account == account)
                            .filter(|x| x.room.is_none())
                            .ok_or_else(|| DbError::failed("memory", "an arena player is in a game"))?;
                        row.room = Some(p.room.clone());
                        row.ticket = None;
                    }
                    rooms.push((p.room.clone(), a.variant.clone(), clock, p.light.1, p.dark.1, at));
                    new_games.push(MemGame {
                        arena: arena.clone(),
                        ended_at: None,
                        game: scoring::Game {
                            room: p.room.clone(),
                            light: p.light.0,
                            dark: p.dark.0,
                            light_rating: scoring::DEFAULT_RATING,
                            dark_rating: scoring::DEFAULT_RATING,
                            started_at: at,
                            ending: None,
                            turns: (0, 0),
                        },
                        light_hash: p.light.1,
                        dark_hash: p.dark.1,
                    });
                    made.push(Paired {
                        room: p.room,
                        light: p.light.0,
                        dark: p.dark.0,
                    });
                }
                self.games.extend(new_games);
                ArenaAnswer::Paired(made)
            }
            ArenaRequest::Ticket {
                arena,
                account,
                key_hash,
                claim,
            } => {
                if let Some(t) = self.used(&arena, account, &key_hash) {
                    return Ok(ArenaAnswer::Ticket(t));
                }
                if !claim {
                    return Ok(ArenaAnswer::Ticket(Ticket::Waiting));
                }
                let player = self
                    .arenas
                    .iter_mut()
                    .find(|(a, _)| a.id == arena)
                    .and_then(|(_, ps)| ps.iter_mut().find(|p| p.account == account));
                ArenaAnswer::Ticket(match player {
                    None => Ticket::NotJoined,
                    Some(p) => {
                        p.ticket = Some(key_hash);
                        Ticket::Waiting
                    }
                })
            }
            ArenaRequest::DropTicket {
                arena,
                account,
                key_hash,
            } => {
                if let Some(p) = self
                    .arenas
                    .iter_mut()
                    .find(|(a, _)| a.id == arena)
                    .and_then(|(_, ps)| ps.iter_mut().find(|p| p.account == account))
                    .filter(|p| p.ticket == Some(key_hash))
                {
                    p.ticket = None;
                }
                ArenaAnswer::Done
            }
        })
    }

    /// Whether a request changes anything.
    pub fn writes(req: &ArenaRequest) -> bool {
        !matches!(
            req,
            ArenaRequest::List { .. }
                | ArenaRequest::Get(_)
                | ArenaRequest::Running(_)
                | ArenaRequest::OfRoom(_)
        )
    }

    /// The end of round `round` of `room`, with the turns each side made (the in-memory
    /// store's append): an arena game's first round is scored once.
    pub fn end(&mut self, room: &str, round: u32, outcome: &mill_core::Outcome, turns: (u32, u32), at: i64) {
        if round != 1 {
            return;
        }
        let Some(g) = self
            .games
            .iter_mut()
            .find(|g| g.game.room == room && g.game.ending.is_none())
        else {
            return;
        };
        g.game.ending = Some(Ending::of(outcome));
        g.game.turns = turns;
        g.ended_at = Some(at);
        let arena = g.arena.clone();
        if let Some((_, players)) = self.arenas.iter_mut().find(|(a, _)| a.id == arena) {
            for p in players.iter_mut().filter(|p| p.room.as_deref() == Some(room)) {
                p.room = None;
            }
        }
    }
}
