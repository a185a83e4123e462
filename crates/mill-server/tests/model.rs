//! A model-based test of exactly once: seeded random interleavings of actions, offers,
//! takebacks, retries of old commands, seat replacements and restarts, against a model
//! of the room that is nothing but the list of commands acknowledged as new, replayed
//! through a fresh table. Checked after every step: each command gets one answer; a
//! retry gets its first ack again (`duplicate`, same round and version) and changes
//! nothing; both players see the model's game; and after a restart the room rebuilt
//! from the database is the model's. Runs on SQLite, and on PostgreSQL under
//! scripts/with-postgres. A failure names its seed; `MILL_MODEL_SEED=n` runs that one.

mod common;

use std::collections::HashMap;

use common::{Client, Rng, Server};
use mill_core::Color;
use mill_server::protocol::Command;
use mill_server::table::Table;
use serde_json::{Value, json};

/// The fields of a state the model decides.
const DECIDED: [&str; 7] = [
    "round", "version", "actions", "offers", "result", "position", "turn",
];

struct Model {
    /// Every command acknowledged as new, in order.
    applied: Vec<(Color, Command)>,
    table: Table,
}

impl Model {
    fn new() -> Model {
        Model {
            applied: Vec::new(),
            table: Table::new(),
        }
    }

    fn apply(&mut self, seat: Color, cmd: Command) {
        self.table
            .apply(seat, &cmd)
            .unwrap_or_else(|r| panic!("the server acknowledged what the table refuses: {cmd:?}: {r:?}"));
        self.applied.push((seat, cmd));
    }

    /// The model's view, as the server's `state` shows it.
    fn view(&self, room: &str) -> Value {
        serde_json::to_value(self.table.view(room)).unwrap()
    }
}

fn decided(state: &Value) -> Value {
    Value::Object(
        DECIDED
            .iter()
            .map(|k| (k.to_string(), state[*k].clone()))
            .collect(),
    )
}

fn command_of(msg: &Value) -> Command {
    let kind = msg["type"].as_str().unwrap();
    Command::from_event(kind, msg["action"].as_str().map(str::to_string)).unwrap()
}

struct Seats {
    light: Client,
    dark: Client,
}

impl Seats {
    fn get(&mut self, c: Color) -> &mut Client {
        match c {
            Color::Light => &mut self.light,
            Color::Dark => &mut self.dark,
        }
    }

    /// Waits until both players see the model's game.
    async fn agree(&mut self, model: &Model, room: &str, seed: u64, step: usize) {
        let want = decided(&model.view(room));
        for c in [Color::Light, Color::Dark] {
            let client = self.get(c);
            if decided(&client.last) != want {
                client.send(json!({"type": "sync"})).await;
                let got = client.state_where(|s| decided(s) == want).await;
                assert_eq!(decided(&got), want, "seed {seed} step {step}");
            }
        }
    }
}

async fn run(seed: u64, steps: usize) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("model.db");
    let mut server = Server::start(&db).await;
    let (room, light_key) = server.create().await;
    let dark_key = server.join(&room).await;
    let keys = [light_key, dark_key];
    let key = |c: Color| keys[usize::from(c == Color::Dark)].clone();
    let hello = |addr, c: Color| {
        let (room, k) = (room.clone(), key(c));
        async move { Client::hello(addr, &room, Some(&k)).await }
    };
    let mut seats = Seats {
        light: hello(server.addr, Color::Light).await,
        dark: hello(server.addr, Color::Dark).await,
    };
    seats
        .light
        .state_where(|s| s["seats"]["dark"]["online"] == true)
        .await;
    seats
        .dark
        .state_where(|s| s["seats"]["light"]["online"] == true)
        .await;
    let mut rng = Rng::new(seed);
    let mut model = Model::new();
    // Every acknowledged command: its seat, message and first ack.
    let mut acked: Vec<(Color, Value, Value)> = Vec::new();
    let mut firsts: HashMap<String, Value> = HashMap::new();
    for step in 0..steps {
        let roll = rng.below(100);
        let state = seats.light.last.clone();
        let turn = if state["turn"] == "dark" {
            Color::Dark
        } else {
            Color::Light
        };
        if roll < 4 {
            // Restart: the room is rebuilt from what is stored.
            drop(seats);
            server.stop().await;
            server = Server::start(&db).await;
            seats = Seats {
                light: hello(server.addr, Color::Light).await,
                dark: hello(server.addr, Color::Dark).await,
            };
            for c in [Color::Light, Color::Dark] {
                let last = seats.get(c).last.clone();
                assert_eq!(
                    decided(&last),
                    decided(&model.view(&room)),
                    "seed {seed} step {step}: after a restart"
                );
            }
            seats
                .light
                .state_where(|s| s["seats"]["dark"]["online"] == true)
                .await;
            seats
                .dark
                .state_where(|s| s["seats"]["light"]["online"] == true)
                .await;
            continue;
        }
        if roll < 10 {
            // The seat opened again in a new socket: the old one is replaced.
            let c = if rng.below(2) == 0 {
                Color::Light
            } else {
                Color::Dark
            };
            let new = hello(server.addr, c).await;
            let old = std::mem::replace(seats.get(c), new);
            let mut old = old;
            let (_, code) = old.until_closed().await;
            assert_eq!(code, Some(4000), "seed {seed} step {step}");
            seats
                .get(!c)
                .state_where(|s| {
                    s["seats"][if c == Color::Light { "light" } else { "dark" }]["online"] == true
                })
                .await;
            continue;
        }
        let (seat, msg) = if roll < 25 && !acked.is_empty() {
            // A retry of an acknowledged command, sent again unchanged.
            let (seat, msg, _) = acked[rng.below(acked.len())].clone();
            (seat, msg)
        } else {
            let client = seats.get(turn);
            let offers = &state["offers"];
            let (seat, kind, action) = if roll < 33 && offers["draw"].is_null() && state["result"].is_null() {
                (turn, "offer-draw", None)
            } else if !offers["draw"].is_null() {
                let by = if offers["draw"] == "light" {
                    Color::Light
                } else {
                    Color::Dark
                };
                (
                    !by,
                    if rng.below(4) == 0 {
                        "accept-draw"
                    } else {
                        "decline-draw"
                    },
                    None,
                )
            } else if roll < 45 && offers["takeback"].is_null() && state["result"].is_null() {
                // Whoever played last asks (refused when there is nothing to take back).
                (!turn, "offer-takeback", None)
            } else if !offers["takeback"].is_null() {
                let by = if offers["takeback"] == "light" {
                    Color::Light
                } else {
                    Color::Dark
                };
                (
                    !by,
                    if rng.below(3) == 0 {
                        "decline-takeback"
                    } else {
                        "accept-takeback"
                    },
                    None,
                )
            } else if !state["result"].is_null() {
                (
                    if rng.below(2) == 0 {
                        Color::Light
                    } else {
                        Color::Dark
                    },
                    "new-round",
                    None,
                )
            } else if roll < 47 {
                (turn, "resign", None)
            } else {
                match common::legal_action(&client.last, |n| rng.below(n)) {
                    Some(a) => (turn, "action", Some(a)),
                    None => (turn, "resign", None),
                }
            };
            let client = seats.get(seat);
            let id = client.fresh_id();
            (seat, client.message(kind, &id, action.as_deref()))
        };
        let id = msg["id"].as_str().unwrap().to_string();
        let client = seats.get(seat);
        client.send(msg.clone()).await;
        let answer = client.answer(&id).await;
        match (answer["type"].as_str(), firsts.get(&id)) {
            (Some("ack"), Some(first)) => {
                assert_eq!(answer["duplicate"], true, "seed {seed} step {step}: {answer}");
                assert_eq!(
                    (&answer["round"], &answer["version"]),
                    (&first["round"], &first["version"]),
                    "seed {seed} step {step}: a retry's ack is its first one"
                );
            }
            (Some("ack"), None) => {
                assert_eq!(answer["duplicate"], false, "seed {seed} step {step}: {answer}");
                model.apply(seat, command_of(&msg));
                let view = model.view(&room);
                assert_eq!(
                    (&answer["round"], &answer["version"]),
                    (&view["round"], &view["version"]),
                    "seed {seed} step {step}"
                );
                firsts.insert(id.clone(), answer.clone());
                acked.push((seat, msg, answer));
            }
            (Some("error"), first) => {
                assert!(
                    first.is_none(),
                    "seed {seed} step {step}: a retry refused: {answer}"
                );
            }
            _ => panic!("seed {seed} step {step}: {answer}"),
        }
        seats.agree(&model, &room, seed, step).await;
    }
    // Finally the database itself: a restart replays exactly the model.
    drop(seats);
    server.stop().await;
    let server = Server::start(&db).await;
    let watcher = Client::hello(server.addr, &room, None).await;
    assert_eq!(
        decided(&watcher.last),
        decided(&model.view(&room)),
        "seed {seed}: the stored room"
    );
    assert_eq!(
        common::sql(&db, "SELECT count(*) FROM events", &[]).await,
        model.applied.len() as i64,
        "seed {seed}: one stored event per command acknowledged as new"
    );
    server.stop().await;
}

#[tokio::test]
async fn random_interleavings_keep_every_command_exactly_once() {
    let seeds: Vec<u64> = match std::env::var("MILL_MODEL_SEED") {
        Ok(s) => vec![s.parse().expect("MILL_MODEL_SEED is a number")],
        Err(_) => vec![1, 2, 3],
    };
    for seed in seeds {
        run(seed, 150).await;
    }
}
