//! State identities (MIF clause 12): the repetition observation of a stable position,
//! the `reset-count-smt-v1` summary of the observations counted so far (a sparse
//! Merkle tree of 256 levels over their digests), and `decision-state-v1`, the
//! identity of everything that decides what may happen next — with their digests.

use super::json::{digest, sha256_raw};
use super::mrs::Manifest;
use super::{MifError, STATE_PROFILE};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The fields of an MFEN record an identity reads, checked lexically.
struct Fields<'a> {
    board: &'a str,
    side: &'a str,
    phase: &'a str,
    action: &'a str,
    hands: [u64; 2],
    obligations: &'a str,
    no_progress: u64,
    outcome: &'a str,
}

fn fields(mfen: &str) -> Result<Fields<'_>, MifError> {
    let bad = |what: &str| MifError::new("syntax", "mfen", format!("MFEN: {what}"));
    let f: Vec<&str> = mfen.split(' ').collect();
    if f.len() != 11 || f[0] != mill_core::mfen::SIGNATURE || f[1] != STATE_PROFILE {
        return Err(bad("eleven fields (no extensions) of MFEN/1.0 mill24-state-v1"));
    }
    let num = |s: &str| s.parse::<u64>().map_err(|_| bad("a count"));
    let (w, b) = f[6].split_once(',').ok_or_else(|| bad("hands"))?;
    Ok(Fields {
        board: f[2],
        side: f[3],
        phase: f[4],
        action: f[5],
        hands: [num(w)?, num(b)?],
        obligations: f[7],
        no_progress: num(f[8])?,
        outcome: f[10],
    })
}

/// The `repetition-observation-v1` object of an ongoing stable MFEN position (no
/// removal owed) under `manifest`. The rule sets played here declare no semantic
/// state, so `semantic` is empty.
pub fn observation(manifest: &Manifest, mfen: &str) -> Result<Value, MifError> {
    let f = fields(mfen)?;
    if f.outcome != "-" || f.obligations != "-" || !matches!(f.action, "p" | "m") {
        return Err(MifError::new(
            "inconsistent",
            "unstabilized-boundary",
            "only a stable primary boundary is observed",
        ));
    }
    Ok(json!({
        "profile": "repetition-observation-v1",
        "stateProfile": STATE_PROFILE,
        "semanticDigest": manifest.semantic_digest,
        "board": f.board,
        "side": f.side,
        "phase": f.phase,
        "action": f.action,
        "hands": f.hands,
        "semantic": {}
    }))
}

/// The `reset-count-smt-v1` repetition summary: how often each observation has
/// occurred since the last reset, counts capped at the manifest's threshold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepetitionSummary {
    counts: BTreeMap<[u8; 32], u64>,
    cap: u64,
}

fn node(tag: u8, parts: &[&[u8]]) -> [u8; 32] {
    let mut bytes = vec![tag];
    for p in parts {
        bytes.extend_from_slice(p);
    }
    sha256_raw(&bytes)
}

/// `E[h]` for h from 0 to 256: the roots of empty subtrees of height `h`.
fn empty_roots() -> Vec<[u8; 32]> {
    let mut e = vec![sha256_raw(&[0])];
    for h in 0..256 {
        let below = e[h];
        e.push(node(2, &[&below, &below]));
    }
    e
}

fn bit(key: &[u8; 32], depth: usize) -> bool {
    key[depth / 8] >> (7 - depth % 8) & 1 == 1
}

impl RepetitionSummary {
    /// An empty summary whose counts are capped at `cap` (the repetition count).
    pub fn new(cap: u64) -> RepetitionSummary {
        RepetitionSummary {
            counts: BTreeMap::new(),
            cap,
        }
    }

    /// Counts one more occurrence of the observation with this digest (`sha256:…`).
    pub fn observe(&mut self, observation_digest: &str) -> Result<(), MifError> {
        let raw = observation_digest
            .strip_prefix("sha256:")
            .filter(|h| h.len() == 64)
            .and_then(|h| {
                (0..32)
                    .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok())
                    .collect::<Option<Vec<u8>>>()
            })
            .and_then(|v| <[u8; 32]>::try_from(v).ok())
            .ok_or_else(|| MifError::new("syntax", "digest", "a sha256 digest"))?;
        *self.counts.entry(raw).or_insert(0) += 1;
        Ok(())
    }

    /// Forgets every observation (a configured reset event).
    pub fn reset(&mut self) {
        self.counts.clear();
    }

    /// The tree's root, `sha256:…`.
    pub fn root(&self) -> String {
        let entries: Vec<(&[u8; 32], u64)> = self.counts.iter().map(|(k, &n)| (k, n.min(self.cap))).collect();
        let empty = empty_roots();
        format!("sha256:{}", super::json::hex(&subtree(&empty, &entries, 0)))
    }
}

fn subtree(empty: &[[u8; 32]], entries: &[(&[u8; 32], u64)], depth: usize) -> [u8; 32] {
    match entries {
        [] => empty[256 - depth.min(256)],
        [(key, count)] if depth == 256 => node(1, &[&key[..], &count.to_be_bytes()]),
        _ if depth >= 256 => empty[0],
        _ => {
            // Entries are sorted by key, so the bit splits them into two runs.
            let split = entries
                .iter()
                .position(|(k, _)| bit(k, depth))
                .unwrap_or(entries.len());
            let (left, right) = entries.split_at(split);
            node(
                2,
                &[
                    &subtree(empty, left, depth + 1),
                    &subtree(empty, right, depth + 1),
                ],
            )
        }
    }
}

/// What the decision state says beside the position: who has an open draw offer, and
/// the current claim right (its actor and reasons, `no-progress` before `repetition`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Negotiation {
    /// The side whose draw offer is open, `w` or `b`.
    pub open_offer_by: Option<char>,
    /// The side that may claim a draw now, and why.
    pub claim_rights: Option<(char, Vec<&'static str>)>,
}

/// The `decision-state-v1` object of an MFEN position under `manifest`, with its
/// repetition summary (`None` when the manifest disables repetition) and negotiation
/// state, and its digest.
pub fn decision_state(
    manifest: &Manifest,
    mfen: &str,
    summary: Option<&RepetitionSummary>,
    negotiation: &Negotiation,
) -> Result<(Value, String), MifError> {
    let f = fields(mfen)?;
    let np = &manifest.doc.draw.no_progress;
    let (normal, endgame) = (np.normal_limit.0, np.endgame_limit.0);
    let no_progress = match normal.max(endgame) {
        0 => Value::Null,
        cap => json!(f.no_progress.min(cap)),
    };
    let terminal = f.outcome != "-";
    let mut d = Map::new();
    d.insert("profile".into(), json!("decision-state-v1"));
    d.insert("stateProfile".into(), json!(STATE_PROFILE));
    d.insert("semanticDigest".into(), json!(manifest.semantic_digest));
    d.insert("board".into(), json!(f.board));
    d.insert("side".into(), json!(f.side));
    d.insert("phase".into(), json!(f.phase));
    d.insert("action".into(), json!(f.action));
    d.insert("hands".into(), json!(f.hands));
    d.insert("obligations".into(), json!(f.obligations));
    d.insert("noProgress".into(), no_progress);
    d.insert("outcome".into(), json!(f.outcome));
    d.insert("semantic".into(), json!({}));
    d.insert(
        "repetitionSummary".into(),
        match summary {
            Some(s) => json!({"profile": "reset-count-smt-v1", "root": s.root()}),
            None => Value::Null,
        },
    );
    let offer = match negotiation.open_offer_by.filter(|_| !terminal) {
        Some(by) => {
            let other = if by == 'w' { 'b' } else { 'w' };
            // Sorted by actor identity (w before b), then accept, decline, withdraw.
            let mut available = vec![(other, 0, "accept"), (other, 1, "decline"), (by, 2, "withdraw")];
            available.sort_by_key(|(actor, order, _)| (*actor == 'b', *order));
            json!({
                "offerer": by.to_string(),
                "available": available
                    .into_iter()
                    .map(|(actor, _, action)| json!({"actor": actor.to_string(), "action": action}))
                    .collect::<Vec<_>>()
            })
        }
        None => Value::Null,
    };
    d.insert("openOffer".into(), offer);
    d.insert(
        "claimRights".into(),
        match negotiation.claim_rights.as_ref().filter(|_| !terminal) {
            Some((actor, reasons)) => json!({"actor": actor.to_string(), "reasons": reasons}),
            None => Value::Null,
        },
    );
    let value = Value::Object(d);
    let id = digest(&value);
    Ok((value, id))
}

/// The repetition summary an active window rebuilds: each entry's observation (its
/// `key`) counted once, counts capped at `cap`. The entries are `{source, key,
/// eventSeq?}` objects as MSTATE's `repetitionHistory` holds them.
pub fn summary_of_history(history: &[Value], cap: u64, path: &str) -> Result<RepetitionSummary, MifError> {
    let mut summary = RepetitionSummary::new(cap);
    for (i, entry) in history.iter().enumerate() {
        let at = format!("{path}/{i}");
        let e = super::Obj::of(entry, &at)?;
        e.closed(&["source", "key"], &["eventSeq"])?;
        e.one_of("source", &["pre-origin", "origin", "event"])?;
        let key = e.get("key")?;
        if !key.is_object() {
            return Err(super::schema(&format!("{at}/key"), "an observation object"));
        }
        summary.observe(&digest(key))?;
    }
    Ok(summary)
}

fn moved_board(board: &str, map: &[usize; 24], path: &str) -> Result<String, MifError> {
    let cells = super::transform::parse_board(board)
        .ok_or_else(|| MifError::new("syntax", "mfen", "a malformed board field").at(path))?;
    Ok(super::transform::board_field(&super::transform::board(
        &cells, map,
    )))
}

/// A `decision-state-v1` object moved by the transform `id` (clause 14.1): its board and
/// obligation targets, and its repetition root rebuilt from `history` — the active
/// window whose observations the root summarises, each moved too. A root without its
/// history, or with a history that does not rebuild it, is
/// `ineligible/insufficient-transform-history`: a root alone cannot be transformed.
pub fn transform_decision_state(
    document: &Value,
    manifest: &Manifest,
    history: Option<&[Value]>,
    id: &str,
) -> Result<Value, MifError> {
    let doc = super::Obj::of(document, "")?;
    doc.closed(
        &[
            "profile",
            "stateProfile",
            "semanticDigest",
            "board",
            "side",
            "phase",
            "action",
            "hands",
            "obligations",
            "noProgress",
            "outcome",
            "semantic",
            "repetitionSummary",
            "openOffer",
            "claimRights",
        ],
        &["extensions"],
    )?;
    doc.one_of("profile", &["decision-state-v1"])?;
    doc.one_of("stateProfile", &[STATE_PROFILE])?;
    if doc.str("semanticDigest")? != manifest.semantic_digest {
        return Err(MifError::new(
            "integrity",
            "semantic-digest-mismatch",
            "the decision state and the manifest have different semantic digests",
        )
        .at("/semanticDigest"));
    }
    if doc.opt("extensions").is_some() {
        return Err(MifError::new(
            "unsupported",
            "unsupported-profile",
            "no decision-state extension is implemented",
        )
        .at("/extensions"));
    }
    if doc.get("semantic")?.as_object().is_none_or(|s| !s.is_empty()) {
        return Err(MifError::new(
            "unsupported",
            "unsupported-extension",
            "the rule sets played here declare no semantic state",
        )
        .at("/semantic"));
    }
    let cap = manifest.doc.draw.repetition.count.0;
    let root = doc.get("repetitionSummary")?;
    let history = match (root.is_null(), history) {
        (true, h) => h.unwrap_or(&[]),
        (false, None) => {
            return Err(MifError::new(
                "ineligible",
                "insufficient-transform-history",
                "a repetition root is rebuilt from its observations, which were not given",
            ));
        }
        (false, Some(h)) => {
            let rebuilt = summary_of_history(h, cap, "/repetitionHistory")?;
            if *root != json!({"profile": "reset-count-smt-v1", "root": rebuilt.root()}) {
                return Err(MifError::new(
                    "ineligible",
                    "insufficient-transform-history",
                    "the repetition history given does not rebuild the decision state's root",
                )
                .at("/repetitionSummary"));
            }
            h
        }
    };
    let hands = doc.get("hands")?;
    let count = |i: usize| {
        hands
            .get(i)
            .and_then(Value::as_u64)
            .ok_or_else(|| super::schema("/hands", "hands is [white, black]"))
    };
    if hands.as_array().is_none_or(|a| a.len() != 2) {
        return Err(super::schema("/hands", "hands is [white, black]"));
    }
    // The state as an MFEN record (its counters do not matter here), moved lexically.
    let text = format!(
        "MFEN/1.0 {STATE_PROFILE} {} {} {} {} {},{} {} 0 0 {}",
        doc.str("board")?,
        doc.str("side")?,
        doc.str("phase")?,
        doc.str("action")?,
        count(0)?,
        count(1)?,
        doc.str("obligations")?,
        doc.str("outcome")?
    );
    fields(&text)?;
    let moved = super::transform::mfen(&text, id)?;
    let moved: Vec<&str> = moved.split(' ').collect();
    let map = super::transform::point_map(super::transform::ordinal(id).unwrap_or(0));
    let mut summary = RepetitionSummary::new(cap);
    for (i, entry) in history.iter().enumerate() {
        let mut key = entry.get("key").cloned().unwrap_or(Value::Null);
        let path = format!("/repetitionHistory/{i}/key/board");
        let board = key.get("board").and_then(Value::as_str).unwrap_or("");
        let board = moved_board(board, &map, &path)?;
        if let Some(k) = key.as_object_mut() {
            k.insert("board".into(), json!(board));
        }
        summary.observe(&digest(&key))?;
    }
    let mut out = document.clone();
    if let Some(o) = out.as_object_mut() {
        o.insert("board".into(), json!(moved.get(2).copied().unwrap_or("")));
        o.insert("obligations".into(), json!(moved.get(7).copied().unwrap_or("-")));
        if !root.is_null() {
            o.insert(
                "repetitionSummary".into(),
                json!({"profile": "reset-count-smt-v1", "root": summary.root()}),
            );
        }
    }
    Ok(out)
}

/// A `repetitionHistory` with every observation's board moved by `map`.
pub fn transform_history(history: &[Value], map: &[usize; 24]) -> Result<Vec<Value>, MifError> {
    history
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let mut entry = entry.clone();
            let path = format!("/repetitionHistory/{i}/key/board");
            let board = entry
                .pointer("/key/board")
                .and_then(Value::as_str)
                .ok_or_else(|| super::schema(&path, "an observation's board"))?;
            let board = moved_board(board, map, &path)?;
            if let Some(k) = entry.get_mut("key").and_then(Value::as_object_mut) {
                k.insert("board".into(), json!(board));
            }
            Ok(entry)
        })
        .collect()
}
