//! Set-up shared by the unit tests of this crate's modules: games played through the
//! page's own JSON interface.

use serde_json::Value;

use crate::WasmGame;

/// Parses a JSON answer, naming it when it is not JSON.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A game of Nine Men's Morris after `actions`, each of which must be legal.
pub fn played(actions: &[&str]) -> WasmGame {
    let mut g = WasmGame::new();
    for a in actions {
        assert_eq!(json(&g.play(a))["ok"], true, "{a}");
    }
    g
}

/// The saved-game JSON (`export_record`) of [`played`]`(actions)`, as the worker gets it.
#[cfg(feature = "engine")]
pub fn record(actions: &[&str]) -> String {
    played(actions).export_record()
}
