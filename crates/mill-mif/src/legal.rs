//! The `legal-actions-v1` projection of the interoperability harness: every placement,
//! move or removal legal in an MFEN position under a manifest, as event-shaped
//! templates in MIF's canonical order (places by point, moves by source then
//! destination, removals by point; ordinals are Annex A's ring order). Draw offers,
//! claims and resignation are not gameplay actions and are not listed.

use super::mrs::Manifest;
use super::{MifError, STATE_PROFILE};
use mill_core::Action;
use mill_core::Color;
use mill_core::mfen::{Mfen, RING_ORDER};
use serde_json::{Value, json};

/// Reads MFEN under the rule set that plays `manifest`'s actions, and writes it back
/// in canonical form.
pub fn canonical_mfen(text: &str, manifest: Option<&Manifest>) -> Result<(Mfen, String), MifError> {
    let manifest = manifest.ok_or_else(|| {
        MifError::new(
            "integrity",
            "manifest-missing",
            "MFEN is read under a manifest it does not carry",
        )
    })?;
    let rules = manifest.action_rules()?;
    let mfen = Mfen::parse(text, rules).map_err(MifError::from_mfen)?;
    let written = mfen.write().map_err(MifError::from_mfen)?;
    Ok((mfen, written))
}

/// The `legal-actions-v1` document of `current` under `manifest`. A position said to
/// go on that the rules end at once (blockade, too few pieces…) is not a stable
/// boundary: `inconsistent/unstabilized-boundary`, as the harness's projection asks.
pub fn legal_actions(manifest: &Manifest, current: &str) -> Result<Value, MifError> {
    let (mfen, canonical) = canonical_mfen(current, Some(manifest)).map_err(|e| {
        if e.code == "automatic-terminal-ongoing" {
            MifError::new("inconsistent", "unstabilized-boundary", e.message)
        } else {
            e
        }
    })?;
    let p = mfen.position;
    let t = p.topology();
    let ordinal = |point| {
        let name = t.name(point);
        RING_ORDER.iter().position(|n| *n == name).unwrap_or(usize::MAX)
    };
    let actor = match p.turn() {
        Color::Light => "w",
        Color::Dark => "b",
    };
    let mut places = Vec::new();
    let mut moves = Vec::new();
    let mut removes = Vec::new();
    if mfen.outcome.is_none() {
        for action in p.legal_actions() {
            match action {
                Action::Place { to } => places.push(ordinal(to)),
                Action::Move { from, to } => moves.push((ordinal(from), ordinal(to))),
                Action::Remove { at } => removes.push(ordinal(at)),
            }
        }
    }
    places.sort_unstable();
    moves.sort_unstable();
    removes.sort_unstable();
    let name = |i: usize| RING_ORDER.get(i).copied().unwrap_or("?");
    let actions: Vec<Value> =
        places
            .into_iter()
            .map(|to| json!({"actor": actor, "type": "place", "at": name(to)}))
            .chain(moves.into_iter().map(
                |(from, to)| json!({"actor": actor, "type": "move", "from": name(from), "to": name(to)}),
            ))
            .chain(removes.into_iter().map(
                |at| json!({"actor": actor, "type": "remove", "target": {"zone": "board", "at": name(at)}}),
            ))
            .collect();
    Ok(json!({
        "profile": "legal-actions-v1",
        "stateProfile": STATE_PROFILE,
        "semanticDigest": manifest.semantic_digest,
        "current": canonical,
        "actions": actions
    }))
}
