//! The room logic on its own: commands, races, takebacks, clocks, claims and pairing,
//! against the in-memory store, with channels for sockets and a clock the test moves.
//! No server, no database, no network: each test runs in milliseconds. (What the two
//! real databases decide is `tests/store_conformance.rs`; whole games over real sockets
//! are the other files in `tests/`.)

use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use mill_core::Color::{self, Dark, Light};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::pairing::SeekRequest;
use super::{Outgoing, Rooms};
use crate::clock::{Clock, ManualClock};
use crate::error::ApiError;
use crate::protocol::{ClientMsg, Command};
use crate::store::{Entry, Memory, Store};
use crate::timecontrol::TimeControl;

fn nine() -> &'static mill_core::Rules {
    mill_core::Rules::parse_table("nine").unwrap()
}

/// The registry over an in-memory store and a clock the test moves.
struct World {
    rooms: Rooms,
    store: Memory,
    clock: Arc<ManualClock>,
}

fn world() -> World {
    let store = Memory::new();
    let clock = Arc::new(ManualClock::new());
    World {
        rooms: Rooms::new(Arc::new(store.clone()), clock.clone()),
        store,
        clock,
    }
}

/// A socket as the room logic sees it: the queue its task would write out.
struct Sock {
    room: String,
    seat: Option<Color>,
    tx: mpsc::Sender<Outgoing>,
    rx: mpsc::Receiver<Outgoing>,
    kick: CancellationToken,
    conn: super::ConnId,
    /// The last state it received.
    last: Value,
    sent: u32,
}

/// Everything queued for a socket, as the JSON its task would send (a close as
/// `{"type": "close", "code": …}`).
fn json_of(o: Outgoing) -> Value {
    match o {
        Outgoing::Text(t) => serde_json::from_str(t.as_str()).unwrap(),
        Outgoing::Msg(m) => serde_json::to_value(m).unwrap(),
        Outgoing::Close(code, _) => json!({"type": "close", "code": code as u16}),
    }
}

impl Sock {
    async fn open(w: &World, room: &str, key: Option<&str>) -> Sock {
        Sock::open_with(w, room, key, 64).await
    }

    /// A socket whose queue holds `capacity` messages.
    async fn open_with(w: &World, room: &str, key: Option<&str>, capacity: usize) -> Sock {
        Sock::open_hello(w, room, key, capacity).await.0
    }

    /// [`Sock::open_with`], with what the hello was answered (the welcome first).
    async fn open_hello(w: &World, room: &str, key: Option<&str>, capacity: usize) -> (Sock, Vec<Value>) {
        let (tx, rx) = mpsc::channel(capacity);
        let kick = CancellationToken::new();
        let rtt = Arc::new(AtomicI64::new(0));
        let (conn, seat) = w
            .rooms
            .attach(room, super::Ask::from_key(key), &tx, &kick, &rtt)
            .await
            .unwrap();
        let mut s = Sock {
            room: room.to_string(),
            seat,
            tx,
            rx,
            kick,
            conn,
            last: Value::Null,
            sent: 0,
        };
        let hello = s.take();
        assert_eq!(hello[0]["type"], "welcome");
        (s, hello)
    }

    /// Whatever is queued now; the last state is kept.
    fn take(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Ok(o) = self.rx.try_recv() {
            let v = json_of(o);
            if v["type"] == "state" {
                self.last = v.clone();
            }
            out.push(v);
        }
        out
    }

    /// The message `cmd` with client id `cid`, made on the last state seen.
    fn msg(&self, cid: &str, cmd: Command) -> ClientMsg {
        ClientMsg::Command {
            id: cid.to_string(),
            round: self.last["round"].as_u64().unwrap() as u32,
            version: self.last["version"].as_u64().unwrap() as u32,
            command: cmd,
        }
    }

    /// Sends `cmd` with a fresh client id and returns the answers.
    async fn send(&mut self, w: &World, cmd: Command) -> Vec<Value> {
        self.sent += 1;
        let cid = format!("{:?}-{}", self.seat, self.sent);
        self.send_as(w, &cid, cmd).await
    }

    /// Sends `cmd` with client id `cid`, made on the newest state this socket has.
    async fn send_as(&mut self, w: &World, cid: &str, cmd: Command) -> Vec<Value> {
        let earlier = self.take();
        assert!(
            earlier.iter().all(|m| m["type"] == "state"),
            "unread answers: {earlier:?}"
        );
        let msg = self.msg(cid, cmd);
        w.rooms.command(&self.room, self.seat, &self.tx, &msg).await;
        self.take()
    }

    /// Sends `cmd` and expects its ack; returns it.
    async fn ok(&mut self, w: &World, cmd: Command) -> Value {
        let answers = self.send(w, cmd.clone()).await;
        let ack = answers.iter().find(|m| m["type"] == "ack");
        ack.unwrap_or_else(|| panic!("{cmd:?} answered {answers:?}"))
            .clone()
    }
}

fn play(a: &str) -> Command {
    Command::Action(a.to_string())
}

fn of_type<'a>(msgs: &'a [Value], t: &str) -> Vec<&'a Value> {
    msgs.iter().filter(|m| m["type"] == t).collect()
}

/// A room with both seats taken and both sockets open: (room, light, dark).
async fn table(w: &World, clock: Option<TimeControl>) -> (String, Sock, Sock) {
    let (room, light_key) = w.rooms.create(nine(), clock).await.unwrap();
    let dark_key = w.rooms.join(&room).await.unwrap();
    let light = Sock::open(w, &room, Some(&light_key)).await;
    let mut dark = Sock::open(w, &room, Some(&dark_key)).await;
    dark.take();
    let mut light = light;
    light.take();
    (room, light, dark)
}

async fn stored(w: &World, room: &str) -> Vec<crate::store::StoredEvent> {
    w.store.load_room(room).await.unwrap().unwrap().events
}

/// Waits (a few ms at most) until the store holds `n` events for `room`.
async fn until_stored(w: &World, room: &str, n: usize) -> Vec<crate::store::StoredEvent> {
    for _ in 0..500 {
        let events = stored(w, room).await;
        if events.len() >= n {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("{room} never held {n} events: {:?}", stored(w, room).await);
}

#[tokio::test]
async fn a_move_is_acked_after_its_commit_then_everyone_gets_the_state() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    let watcher_open = Sock::open(&w, &room, None).await;
    let mut watcher = watcher_open;
    light.take();
    dark.take();
    watcher.take();
    let answers = light.send(&w, play("d6")).await;
    assert_eq!(answers[0]["type"], "ack", "the ack comes first: {answers:?}");
    assert_eq!(
        (answers[0]["version"].clone(), answers[0]["duplicate"].clone()),
        (json!(1), json!(false))
    );
    assert_eq!(answers[1]["type"], "state");
    for s in [&mut dark, &mut watcher] {
        let got = s.take();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0]["version"], 1);
        assert_eq!(got[0]["actions"], json!(["d6"]));
    }
    let events = stored(&w, &room).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].command, Entry::Command(play("d6")));
    // Spectators cannot play, and the wrong side is refused by the rules: nothing stored.
    let refused = watcher.send(&w, play("a1")).await;
    assert_eq!(refused[0]["code"], "spectator");
    let refused = light.send(&w, play("a1")).await;
    assert_eq!(refused[0]["type"], "error", "{refused:?}");
    assert_eq!(stored(&w, &room).await.len(), 1);
}

#[tokio::test]
async fn a_retry_gets_its_first_ack_whether_remembered_or_looked_up_in_the_store() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    light.send_as(&w, "first", play("d6")).await;
    dark.take();
    // At once: answered from memory.
    let again = light.send_as(&w, "first", play("d6")).await;
    assert_eq!(again[0]["type"], "ack");
    assert_eq!(
        (again[0]["version"].clone(), again[0]["duplicate"].clone()),
        (json!(1), json!(true))
    );
    // After enough commands for the room to forget it: looked up by (room, seat, id).
    for _ in 0..(2 * super::RECENT_IDS + 2) / 2 {
        light.ok(&w, Command::OfferDraw).await;
        dark.take();
        dark.ok(&w, Command::DeclineDraw).await;
        light.take();
    }
    let n = stored(&w, &room).await.len();
    let late = light.send_as(&w, "first", play("a1")).await;
    assert_eq!(late[0]["type"], "ack", "{late:?}");
    assert_eq!(
        (late[0]["version"].clone(), late[0]["duplicate"].clone()),
        (json!(1), json!(true))
    );
    assert_eq!(stored(&w, &room).await.len(), n, "stored once");
}

#[tokio::test]
async fn a_command_on_an_old_state_is_refused_with_the_current_one() {
    let w = world();
    let (_room, mut light, mut dark) = table(&w, None).await;
    light.ok(&w, play("d6")).await;
    dark.take();
    let old = dark.last.clone();
    dark.last["version"] = json!(0);
    let answers = dark.send(&w, play("a1")).await;
    assert_eq!(answers[0]["code"], "stale", "{answers:?}");
    assert_eq!(answers[1]["type"], "state");
    assert_eq!(answers[1]["version"], old["version"]);
}

#[tokio::test]
async fn a_failed_commit_changes_nothing_and_the_same_command_can_be_sent_again() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    w.store.fail_writes(1);
    let answers = light.send_as(&w, "c1", play("d6")).await;
    assert_eq!(answers.len(), 1, "no state: nothing changed: {answers:?}");
    assert_eq!(answers[0]["code"], "internal");
    assert!(dark.take().is_empty());
    assert!(stored(&w, &room).await.is_empty());
    let answers = light.send_as(&w, "c1", play("d6")).await;
    assert_eq!(
        (answers[0]["type"].clone(), answers[0]["duplicate"].clone()),
        (json!("ack"), json!(false))
    );
    assert_eq!(dark.take()[0]["version"], 1);
}

#[tokio::test]
async fn commands_racing_in_one_room_are_decided_one_after_the_other() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    let held = w.store.hold_writes().await;
    // Two commands made on the same state: the first is being written...
    let first = light.msg("a", play("d6"));
    let second = light.msg("b", play("a1"));
    let (rooms, id, tx) = (w.rooms.clone(), room.clone(), light.tx.clone());
    let one = tokio::spawn(async move { rooms.command(&id, Some(Light), &tx, &first).await });
    tokio::time::sleep(Duration::from_millis(5)).await;
    // ...and the second waits for the room's gate.
    let (rooms, id, tx) = (w.rooms.clone(), room.clone(), light.tx.clone());
    let two = tokio::spawn(async move { rooms.command(&id, Some(Light), &tx, &second).await });
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(light.take().is_empty(), "nothing is answered before the commit");
    assert!(dark.take().is_empty());
    drop(held);
    one.await.unwrap();
    two.await.unwrap();
    let answers = light.take();
    let kinds: Vec<&Value> = answers.iter().map(|m| &m["type"]).collect();
    assert_eq!(kinds, ["ack", "state", "error", "state"], "{answers:?}");
    assert_eq!(answers[0]["id"], "a");
    assert_eq!(
        (answers[2]["id"].clone(), answers[2]["code"].clone()),
        (json!("b"), json!("stale"))
    );
    assert_eq!(stored(&w, &room).await.len(), 1);
}

#[tokio::test]
async fn a_socket_replaced_while_its_command_is_written_gets_that_ack_first() {
    let w = world();
    let (room, light_key) = w.rooms.create(nine(), None).await.unwrap();
    let dark_key = w.rooms.join(&room).await.unwrap();
    let mut old = Sock::open(&w, &room, Some(&light_key)).await;
    let _dark = Sock::open(&w, &room, Some(&dark_key)).await;
    old.take();
    let held = w.store.hold_writes().await;
    let msg = old.msg("a", play("d6"));
    assert_eq!(old.last["seats"]["dark"]["online"], true);
    let (rooms, id, tx) = (w.rooms.clone(), room.clone(), old.tx.clone());
    let sent = tokio::spawn(async move { rooms.command(&id, Some(Light), &tx, &msg).await });
    tokio::time::sleep(Duration::from_millis(5)).await;
    // A second tab opens the seat: its hello waits for the command in flight.
    let w2 = &w;
    let opening = async move { Sock::open(w2, &room, Some(&light_key)).await };
    let release = async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        drop(held);
    };
    let (mut new, ()) = tokio::join!(opening, release);
    sent.await.unwrap();
    let answers = old.take();
    let kinds: Vec<&Value> = answers.iter().map(|m| &m["type"]).collect();
    assert_eq!(kinds[0], "ack", "{answers:?}");
    assert!(kinds.contains(&&json!("replaced")), "{answers:?}");
    assert_eq!(answers.last().unwrap()["code"], 4000);
    new.take();
    assert_eq!(new.last["version"], 1, "the new tab sees the move");
    assert_eq!(new.seat, Some(Light));
}

#[tokio::test]
async fn a_takeback_by_consent_undoes_the_turn_and_every_step_is_stored() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    for (side, a) in [
        (Light, "a1"),
        (Dark, "b2"),
        (Light, "a4"),
        (Dark, "b4"),
        (Light, "a7"),
        (Light, "xb2"),
    ] {
        let s = if side == Light { &mut light } else { &mut dark };
        s.ok(&w, play(a)).await;
        light.take();
        dark.take();
    }
    light.ok(&w, Command::OfferTakeback).await;
    dark.take();
    assert_eq!(dark.last["offers"]["takeback"], "light");
    let ack = dark.ok(&w, Command::AcceptTakeback).await;
    assert_eq!(ack["version"], 4, "the mill and its removal go back together");
    light.take();
    assert_eq!(light.last["actions"], json!(["a1", "b2", "a4", "b4"]));
    // A declined one undoes nothing.
    light.ok(&w, play("d6")).await;
    light.ok(&w, Command::OfferTakeback).await;
    dark.take();
    dark.ok(&w, Command::DeclineTakeback).await;
    light.take();
    assert_eq!(light.last["version"], 5);
    let kinds: Vec<&str> = stored(&w, &room)
        .await
        .iter()
        .map(|e| e.command.kind_str())
        .collect();
    assert_eq!(
        kinds[6..],
        [
            "offer-takeback",
            "accept-takeback",
            "action",
            "offer-takeback",
            "decline-takeback"
        ]
    );
    // The room replays from the store to the same state.
    let replayed = super::Room::replay(w.store.load_room(&room).await.unwrap().unwrap(), &[]).unwrap();
    assert_eq!((replayed.table.round(), replayed.table.version()), (1, 5));
}

#[tokio::test]
async fn a_watcher_that_falls_behind_is_dropped_and_the_others_play_on() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    // Its queue holds the welcome and one state (its own arrival: the next watcher's
    // sends it nothing), and it never reads.
    let (tx, _rx) = mpsc::channel(2);
    let (kick, rtt) = (CancellationToken::new(), Arc::new(AtomicI64::new(0)));
    let (slow_conn, _) = w
        .rooms
        .attach(&room, super::Ask::Watch, &tx, &kick, &rtt)
        .await
        .unwrap();
    let mut slow = Sock::open_with(&w, &room, None, 64).await;
    slow.kick = kick;
    assert!(!slow.kick.is_cancelled());
    light.ok(&w, play("d6")).await;
    assert!(
        slow.kick.is_cancelled(),
        "dropped at the first state it had no room for"
    );
    // Its task closes it and detaches it; the others hear of one watcher fewer
    // within WATCHERS_NEWS.
    w.rooms.detach(&room, slow_conn, w.clock.now_ms());
    tokio::time::sleep(super::WATCHERS_NEWS + Duration::from_millis(300)).await;
    dark.take();
    assert_eq!(dark.last["spectators"], 1, "the watcher that keeps up stays");
    dark.ok(&w, play("a1")).await;
    assert_eq!(stored(&w, &room).await.len(), 2);
}

#[tokio::test]
async fn a_state_is_serialised_once_and_its_bytes_shared_by_every_socket() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    let mut watchers = Vec::new();
    for _ in 0..3 {
        watchers.push(Sock::open(&w, &room, None).await);
    }
    for s in watchers.iter_mut().chain([&mut dark]) {
        s.take();
    }
    light.ok(&w, play("d6")).await;
    let mut texts = Vec::new();
    for s in watchers.iter_mut().chain([&mut dark]) {
        match s.rx.try_recv() {
            Ok(Outgoing::Text(t)) => texts.push(t),
            other => panic!("{other:?}"),
        }
    }
    let first = texts[0].as_str().as_ptr();
    assert!(
        texts.iter().all(|t| t.as_str().as_ptr() == first),
        "one copy of the state for every socket"
    );
}

/// Everything queued for each socket, counted.
fn drain(socks: &mut [&mut Sock]) -> usize {
    socks.iter_mut().map(|s| s.take().len()).sum()
}

#[tokio::test]
async fn watchers_arriving_cost_one_send_each_and_their_number_reaches_everyone_once() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    const N: usize = 200;
    let mut watchers = Vec::new();
    for _ in 0..N {
        watchers.push(Sock::open(&w, &room, None).await);
    }
    // Each watcher got its welcome and one state (taken by `open`); the players got
    // nothing yet, and no watcher got the next ones' arrivals: O(N) sends, not O(N²).
    assert!(
        light.take().is_empty() && dark.take().is_empty(),
        "no send per arrival to the players"
    );
    let mut all: Vec<&mut Sock> = watchers.iter_mut().chain([&mut light, &mut dark]).collect();
    assert_eq!(drain(&mut all), 0, "no send per arrival to the watchers");
    assert_eq!(watchers[N - 1].last["spectators"], N, "the newest sees them all");
    // Within WATCHERS_NEWS, one state with the number reaches every socket, once.
    tokio::time::sleep(super::WATCHERS_NEWS + Duration::from_millis(300)).await;
    for s in watchers.iter_mut().chain([&mut light, &mut dark]) {
        let got = s.take();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0]["spectators"], N);
    }
    // Half of them leave: again nothing at once, and one state each later.
    for s in watchers.drain(..N / 2) {
        w.rooms.detach(&room, s.conn, w.clock.now_ms());
    }
    let mut all: Vec<&mut Sock> = watchers.iter_mut().chain([&mut light, &mut dark]).collect();
    assert_eq!(drain(&mut all), 0, "no send per departure");
    tokio::time::sleep(super::WATCHERS_NEWS + Duration::from_millis(300)).await;
    let mut all: Vec<&mut Sock> = watchers.iter_mut().chain([&mut light, &mut dark]).collect();
    assert_eq!(drain(&mut all), N / 2 + 2, "one state per socket left");
    assert_eq!(light.last["spectators"], N / 2);
    // A move goes to every socket, once, with the number.
    light.ok(&w, play("d6")).await;
    for s in watchers.iter_mut().chain([&mut dark]) {
        let got = s.take();
        assert_eq!(of_type(&got, "state").len(), 1, "{got:?}");
        assert_eq!(s.last["spectators"], N / 2);
    }
    // And nothing more is sent later: the move carried the news.
    tokio::time::sleep(super::WATCHERS_NEWS + Duration::from_millis(300)).await;
    let mut all: Vec<&mut Sock> = watchers.iter_mut().chain([&mut light, &mut dark]).collect();
    assert_eq!(drain(&mut all), 0);
}

#[tokio::test]
async fn watchers_are_admitted_past_sixteen_up_to_the_cap_and_the_next_is_refused() {
    let w = world();
    w.rooms.set_max_spectators(40);
    let (room, _light, _dark) = table(&w, None).await;
    let mut watchers = Vec::new();
    for _ in 0..40 {
        watchers.push(Sock::open(&w, &room, None).await);
    }
    assert_eq!(watchers[39].last["spectators"], 40);
    let (tx, mut rx) = mpsc::channel(8);
    let (kick, rtt) = (CancellationToken::new(), Arc::new(AtomicI64::new(0)));
    let refused = w
        .rooms
        .attach(&room, super::Ask::Watch, &tx, &kick, &rtt)
        .await
        .unwrap_err();
    assert_eq!(refused.close, crate::protocol::CloseCode::RoomFull);
    assert_eq!(
        refused.refusal.code,
        crate::protocol::Code::from(crate::protocol::ErrorCode::RoomFull)
    );
    assert!(
        refused.refusal.message.contains("40 spectators"),
        "{:?}",
        refused.refusal
    );
    assert!(rx.try_recv().is_err(), "the refused socket is sent nothing");
    // One leaves: the next is admitted.
    w.rooms
        .detach(&room, watchers.pop().unwrap().conn, w.clock.now_ms());
    let next = Sock::open(&w, &room, None).await;
    assert_eq!(next.last["spectators"], 40);
}

fn live() -> Option<TimeControl> {
    Some(TimeControl::Live {
        initial: 60,
        increment: 0,
    })
}

#[tokio::test]
async fn a_side_that_never_starts_aborts_the_round_with_nobody_sending_anything() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, live()).await;
    w.rooms.check_flags().await;
    assert!(stored(&w, &room).await.is_empty(), "nothing is due yet");
    w.clock
        .advance(Duration::from_millis(live().unwrap().first_turn_ms() as u64 + 1));
    w.rooms.check_flags().await;
    let events = stored(&w, &room).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].command.kind_str(), "abort");
    assert_eq!(
        (events[0].seat, events[0].client_id.as_str()),
        (Light, "~abort-1")
    );
    for s in [&mut light, &mut dark] {
        s.take();
        assert!(!s.last["result"].is_null(), "{}", s.last);
    }
    // Checking again stores nothing more.
    w.rooms.check_flags().await;
    assert_eq!(stored(&w, &room).await.len(), 1);
}

#[tokio::test]
async fn a_turn_after_the_flag_fell_is_refused_and_the_flag_stored_in_its_place() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, live()).await;
    light.ok(&w, play("d6")).await;
    dark.take();
    dark.ok(&w, play("a1")).await;
    light.take();
    // Light's clock now runs: a minute and a bit later its turn comes too late.
    w.clock.advance(Duration::from_secs(61));
    let answers = light.send(&w, play("a7")).await;
    let errors = of_type(&answers, "error");
    assert_eq!(errors.len(), 1, "{answers:?}");
    assert_eq!(errors[0]["code"], "out-of-time");
    assert!(!light.last["result"].is_null());
    let kinds: Vec<&str> = stored(&w, &room)
        .await
        .iter()
        .map(|e| e.command.kind_str())
        .collect();
    assert_eq!(kinds, ["action", "action", "timeout"]);
}

#[tokio::test]
async fn a_claim_waits_for_the_grace_of_an_opponent_away_and_then_wins() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, live()).await;
    light.ok(&w, play("d6")).await;
    dark.take();
    dark.ok(&w, play("a1")).await;
    light.ok(&w, play("a7")).await;
    // Dark leaves: its absence is stored by the room, at the round's next place.
    w.rooms.detach(&room, dark.conn, w.clock.now_ms());
    let events = until_stored(&w, &room, 4).await;
    assert_eq!(events[3].command.kind_str(), "away");
    assert_eq!(events[3].seat, Dark);
    light.take();
    let early = light.send(&w, Command::ClaimWin).await;
    assert_eq!(early[0]["code"], "no-claim", "{early:?}");
    let grace = live().unwrap().grace_ms().unwrap();
    w.clock.advance(Duration::from_millis(grace as u64 + 1));
    light.ok(&w, Command::ClaimWin).await;
    assert!(!light.last["result"].is_null());
    let kinds: Vec<&str> = stored(&w, &room)
        .await
        .iter()
        .map(|e| e.command.kind_str())
        .collect();
    assert_eq!(kinds, ["action", "action", "action", "away", "claim-win"]);
}

#[tokio::test]
async fn a_seat_never_seen_is_stored_away_and_its_return_stored_back() {
    let w = world();
    let (room, light_key) = w.rooms.create(nine(), live()).await.unwrap();
    let dark_key = w.rooms.join(&room).await.unwrap();
    let _dark = Sock::open(&w, &room, Some(&dark_key)).await;
    // Light has not come since the round became playable: away, once.
    let events = until_stored(&w, &room, 1).await;
    assert_eq!((events[0].command.kind_str(), events[0].seat), ("away", Light));
    let mut light = Sock::open(&w, &room, Some(&light_key)).await;
    let events = until_stored(&w, &room, 2).await;
    assert_eq!((events[1].command.kind_str(), events[1].seat), ("back", Light));
    w.rooms.check_flags().await;
    assert_eq!(stored(&w, &room).await.len(), 2, "nothing more to store");
    light.take();
}

#[tokio::test]
async fn one_join_of_two_takes_the_dark_seat() {
    let w = world();
    let (room, _) = w.rooms.create(nine(), None).await.unwrap();
    let (a, b) = tokio::join!(w.rooms.join(&room), w.rooms.join(&room));
    let won = [a.is_ok(), b.is_ok()];
    assert_eq!(won.iter().filter(|&&x| x).count(), 1, "{won:?}");
    assert!(matches!(if a.is_ok() { b } else { a }, Err(ApiError::RoomFull)));
    assert!(
        w.store
            .load_room(&room)
            .await
            .unwrap()
            .unwrap()
            .dark_key
            .is_some()
    );
}

#[tokio::test]
async fn an_evicted_room_comes_back_from_the_store_as_it_was() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    light.ok(&w, play("d6")).await;
    dark.ok(&w, play("a1")).await;
    w.rooms.detach(&room, light.conn, w.clock.now_ms());
    w.rooms.detach(&room, dark.conn, w.clock.now_ms());
    assert_eq!(w.rooms.evict_idle(Duration::ZERO), 1);
    assert_eq!(w.rooms.in_memory(), 0);
    let info = w.rooms.info(&room).await.unwrap();
    assert_eq!((info.round, info.version), (1, 2));
    assert_eq!(w.rooms.in_memory(), 1);
}

fn seeker(name: &str) -> SeekRequest {
    SeekRequest {
        rules: nine(),
        clock: live(),
        seeker: Some(format!("{name}-seeker")),
        seek: Some(format!("{name}-seek-id")),
        account: None,
        rated: false,
        address: std::net::Ipv4Addr::LOCALHOST.into(),
        address_cap: 0,
        rating: None,
    }
}

#[tokio::test]
async fn two_held_rated_seekers_far_apart_are_paired_once_the_window_has_grown() {
    let w = world();
    let stop = CancellationToken::new();
    let rated = |name: &str, account: i64, rating: f64| SeekRequest {
        account: Some(account),
        rated: true,
        rating: Some(rating),
        ..seeker(name)
    };
    let wait = Duration::from_secs(60);
    let (a, b) = tokio::join!(w.rooms.pair(rated("alice", 1, 1500.0), wait, &stop), async {
        let b = tokio::spawn({
            let rooms = w.rooms.clone();
            let stop = stop.clone();
            async move { rooms.pair(rated("bobby", 2, 2000.0), wait, &stop).await }
        });
        // Both wait: 500 apart, beyond ±100. They look again every second, and while
        // the clock stands still nothing changes.
        while w.store.open_seeks(10).await.unwrap().len() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(super::pairing::POLL * 2).await;
        assert_eq!(
            w.store.open_seeks(10).await.unwrap().len(),
            2,
            "not paired at once"
        );
        // Eight seconds on, the window is ±500: the next look pairs them.
        w.clock.advance(Duration::from_secs(8));
        b.await.unwrap()
    });
    let (a, b) = (a.unwrap().expect("paired"), b.unwrap().expect("paired"));
    assert_eq!(a.0, b.0, "one room");
    assert_ne!(a.1, b.1, "opposite seats");
    let sa = Sock::open(&w, &a.0, Some(&a.2)).await;
    let sb = Sock::open(&w, &b.0, Some(&b.2)).await;
    assert_eq!((sa.seat, sb.seat), (Some(a.1), Some(b.1)));
    assert!(w.store.open_seeks(10).await.unwrap().is_empty());
}

#[tokio::test]
async fn two_seekers_of_one_pool_get_the_two_seats_of_one_room() {
    let w = world();
    let stop = CancellationToken::new();
    let wait = Duration::from_secs(5);
    let (a, b) = tokio::join!(
        w.rooms.pair(seeker("alice"), wait, &stop),
        w.rooms.pair(seeker("bobby"), wait, &stop)
    );
    let (a, b) = (a.unwrap().expect("paired"), b.unwrap().expect("paired"));
    assert_eq!(a.0, b.0, "one room");
    assert_ne!(a.1, b.1, "opposite seats");
    // Each key opens its own seat.
    let sa = Sock::open(&w, &a.0, Some(&a.2)).await;
    let sb = Sock::open(&w, &b.0, Some(&b.2)).await;
    assert_eq!((sa.seat, sb.seat), (Some(a.1), Some(b.1)));
    assert!(w.store.open_seeks(10).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_lone_seeker_hears_no_opponent_and_a_withdrawn_seek_is_told_so() {
    let w = world();
    let stop = CancellationToken::new();
    let alone = w
        .rooms
        .pair(seeker("alice"), Duration::from_millis(20), &stop)
        .await;
    // Nobody came: an answer, not an error.
    assert!(matches!(alone, Ok(None)), "{alone:?}");
    assert!(
        w.store.open_seeks(10).await.unwrap().is_empty(),
        "its seek is gone"
    );
    let (waiting, withdrawn) = tokio::join!(
        w.rooms.pair(seeker("bobby"), Duration::from_secs(5), &stop),
        async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            w.rooms.withdraw_seek("bobby-seek-id").await.unwrap()
        }
    );
    assert!(withdrawn);
    assert!(matches!(waiting, Err(ApiError::SeekWithdrawn)), "{waiting:?}");
}

#[tokio::test]
async fn a_seeker_paired_as_its_newer_seek_arrives_gets_one_room_at_most() {
    for round in 0..20 {
        let w = world();
        let stop = CancellationToken::new();
        let first = {
            let rooms = w.rooms.clone();
            let stop = stop.clone();
            tokio::spawn(async move { rooms.pair(seeker("alice"), Duration::from_secs(5), &stop).await })
        };
        while w.store.open_seeks(10).await.unwrap().is_empty() {
            tokio::task::yield_now().await;
        }
        // Bobby pairs Alice's seek, and Alice's newer seek (she gave the first one up)
        // arrives before her first request has taken its pairing.
        let bob = w.rooms.pair(seeker("bobby"), Duration::from_secs(5), &stop).await;
        let mut again = seeker("alice");
        again.seek = Some(format!("alice-seek-again-{round}"));
        let (second, carol) = tokio::join!(w.rooms.pair(again, Duration::from_secs(5), &stop), async {
            while w.store.open_seeks(10).await.unwrap().is_empty() {
                tokio::task::yield_now().await;
            }
            w.rooms.pair(seeker("carol"), Duration::from_secs(5), &stop).await
        });
        let first = first.await.unwrap();
        assert!(matches!(bob, Ok(Some(_))), "{round}: {bob:?}");
        assert!(
            matches!(first, Err(ApiError::SeekWithdrawn)),
            "{round}: {first:?}"
        );
        let (second, carol) = (second.unwrap().expect("paired"), carol.unwrap().expect("paired"));
        assert_eq!(second.0, carol.0, "{round}");
    }
}

mod rematch;
