//! One game watched by many: hundreds of real watcher sockets against the real server,
//! each receiving every state, and the players told how many watch.

mod common;

use common::{Client, Rng, Server, legal_action};

const WATCHERS: usize = 300;
const MOVES: u64 = 12;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_watchers_each_receive_every_state_and_the_players_their_number() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(&dir.path().join("m.db"), |c| c.max_conns_per_ip = 0).await;
    let (room, mut light, mut dark) = server.table().await;
    let mut watchers = Vec::new();
    for i in 0..WATCHERS {
        let w = Client::hello(server.addr, &room, None).await;
        assert_eq!(w.last["spectators"], i + 1, "each arrival sees itself counted");
        watchers.push(w);
    }
    // The number reaches the players (coalesced, within a second or so).
    light.state_where(|s| s["spectators"] == WATCHERS).await;
    dark.state_where(|s| s["spectators"] == WATCHERS).await;
    let mut rng = Rng::new(36);
    for n in 1..=MOVES {
        light.state_where(|s| s["version"] == n - 1).await;
        dark.state_where(|s| s["version"] == n - 1).await;
        let mover = if light.last["turn"] == "light" {
            &mut light
        } else {
            &mut dark
        };
        let a = legal_action(&mover.last, |k| rng.below(k)).expect("a legal action");
        assert_eq!(mover.play(&a).await["version"], n);
    }
    // Every watcher receives every version in order, whatever count news comes between.
    let watching = watchers.into_iter().map(|mut w| {
        tokio::spawn(async move {
            let mut next = w.last["version"].as_u64().unwrap() + 1;
            while next <= MOVES {
                let v = w.recv().await;
                if v["type"] != "state" {
                    continue;
                }
                let version = v["version"].as_u64().unwrap();
                assert!(
                    version == next || version == next - 1,
                    "{version} after {}",
                    next - 1
                );
                if version == next {
                    next += 1;
                }
            }
            w
        })
    });
    let watchers: Vec<Client> = futures_util::future::join_all(watching)
        .await
        .into_iter()
        .map(|w| w.unwrap())
        .collect();
    assert!(watchers.iter().all(|w| w.last["version"] == MOVES));
    server.stop().await;
}
