//! MIF inputs at and past this implementation's limits (`mill_mif::limits`), and the
//! shape of a long replay's cost: verifying keeps nothing per event, a trace is handed
//! on snapshot by snapshot and bounded.

use mill_core::{Game, Position, Variant};
use mill_mif::json::{canonical, parse};
use mill_mif::limits::{
    CLAIMS, EVENTS, MANIFEST_BYTES, MSTATE_BYTES, REPETITION_ENTRIES, STRING_BYTES, TRACE_ENTRIES,
};
use mill_mif::mrs::Manifest;
use mill_mif::mstate::{read, replay_each, run, run_each, verify, write};
use mill_mif::{MifError, capabilities::capabilities};
use serde_json::{Value, json};

fn nine() -> Manifest {
    Manifest::of_rules(Variant::Nine.rules()).unwrap()
}

fn origin() -> String {
    Position::start(Variant::Nine.rules()).to_mfen().unwrap()
}

/// `n` events of White offering a draw and withdrawing it, in turn: no move, so the
/// position and the window stay as they are while the claim audit grows by one record
/// every two events.
fn negotiation(n: usize) -> Vec<Value> {
    (1..=n as u64)
        .map(|seq| {
            if seq % 2 == 1 {
                json!({"seq": seq, "actor": "w", "type": "offer-draw"})
            } else {
                json!({"seq": seq, "actor": "w", "type": "withdraw-draw", "offerEventSeq": seq - 1})
            }
        })
        .collect()
}

/// The MSTATE document of the empty game of Nine with `events` and their claim audit.
fn document(events: Vec<Value>) -> Value {
    let mut doc = write(&Game::from_position(Position::start(Variant::Nine.rules())), 0).unwrap();
    let claims: Vec<Value> = events
        .iter()
        .filter(|e| e["type"] == "withdraw-draw")
        .map(|e| {
            json!({"source": "event", "actor": "w", "eventSeq": e["offerEventSeq"], "kind": "draw-offer",
                   "status": "withdrawn", "resolvedEventSeq": e["seq"]})
        })
        .collect();
    doc["events"] = Value::Array(events);
    doc["claims"] = Value::Array(claims);
    doc
}

fn is_resource(e: &MifError, path: &str) {
    assert_eq!(
        (e.category, e.code.as_str()),
        ("resource", "resource-limit"),
        "{e}"
    );
    assert_eq!(e.instance_path.as_deref(), Some(path), "{e}");
}

#[test]
fn a_verified_replay_of_the_most_events_keeps_nothing_per_event() {
    // EVENTS events, the most read: replayed and checked, with no snapshot made or
    // kept; its cost is the events' own.
    let doc = document(negotiation(EVENTS));
    let r = verify(&doc, None).unwrap();
    assert!(r.trace.is_empty());
    assert_eq!(r.events.len(), EVENTS);
    assert_eq!(r.claims.len(), EVENTS / 2);
    // One more is refused before any is played.
    let mut doc = document(negotiation(EVENTS + 1));
    let e = verify(&doc, None).unwrap_err();
    is_resource(&e, "/events");
    // The same when the events come without a document (the harness's `execute`).
    let e = run_each(
        &nine(),
        &origin(),
        doc["events"].as_array().unwrap(),
        &[],
        &[],
        None,
    )
    .unwrap_err();
    is_resource(&e, "/events");
    doc["events"] = json!([]);
    doc["claims"] = json!([]);
    assert!(verify(&doc, None).is_ok());
}

#[test]
fn a_trace_is_handed_on_snapshot_by_snapshot_and_bounded() {
    // A trace handed on is not kept: one snapshot per boundary reaches the caller.
    let events = negotiation(40);
    let mut seen = Vec::new();
    let r = run_each(
        &nine(),
        &origin(),
        &events,
        &[],
        &[],
        Some(&mut |s| {
            seen.push(s["claims"].as_array().unwrap().len());
            Ok(())
        }),
    )
    .unwrap();
    assert!(r.trace.is_empty());
    assert_eq!(seen.len(), 41);
    // Each snapshot holds the whole audit: its records grow with the events, so a
    // trace's size grows with their square and is bounded on its own.
    assert_eq!(seen[40], 20);
    let kept = run(&nine(), &origin(), &events, &[], &[]).unwrap();
    assert_eq!(kept.trace.len(), 41);
    assert_eq!(kept.trace[40]["claims"].as_array().unwrap().len(), 20);
    // The same from a document, the window included.
    let mut seen = 0;
    let r = replay_each(
        &document(events),
        None,
        Some(&mut |_| {
            seen += 1;
            Ok(())
        }),
    )
    .unwrap();
    assert!(r.trace.is_empty());
    assert_eq!(seen, 41);
    // The trace of the most events is refused once its snapshots' windows and audits
    // would hold more than TRACE_ENTRIES, before that snapshot is made: never played
    // out to its square.
    let (mut snapshots, mut total, mut last) = (0, 0, 0);
    let e = run_each(
        &nine(),
        &origin(),
        &negotiation(EVENTS),
        &[],
        &[],
        Some(&mut |s| {
            snapshots += 1;
            last = s["repetitionHistory"].as_array().unwrap().len() + s["claims"].as_array().unwrap().len();
            total += last;
            Ok(())
        }),
    )
    .unwrap_err();
    is_resource(&e, &format!("/events/{}", snapshots - 1));
    assert!(
        total <= TRACE_ENTRIES && total + last + 1 > TRACE_ENTRIES,
        "{total}"
    );
    assert!(snapshots < 3_000, "{snapshots} of {EVENTS} boundaries");
}

#[test]
fn windows_and_audits_past_their_limits_are_refused() {
    let entry = json!({"source": "pre-origin", "key": {}});
    let mut doc = document(Vec::new());
    doc["repetitionHistory"] = Value::Array(vec![entry.clone(); REPETITION_ENTRIES + 1]);
    is_resource(&verify(&doc, None).unwrap_err(), "/repetitionHistory");
    let seed = vec![entry; REPETITION_ENTRIES + 1];
    is_resource(
        &run_each(&nine(), &origin(), &[], &seed, &[], None).unwrap_err(),
        "/repetitionSeed",
    );
    let offer = json!({"actor": "w", "kind": "draw-offer", "status": "declined"});
    let mut doc = document(Vec::new());
    doc["preOriginClaims"] = Value::Array(vec![offer.clone(); CLAIMS + 1]);
    is_resource(&verify(&doc, None).unwrap_err(), "/preOriginClaims");
    let mut doc = document(Vec::new());
    doc["claims"] = Value::Array(vec![offer.clone(); CLAIMS + 1]);
    is_resource(&verify(&doc, None).unwrap_err(), "/claims");
    // At the limit the seeds are read (and the audit checked).
    let seeds = vec![offer; CLAIMS];
    let r = run_each(&nine(), &origin(), &[], &[], &seeds, None).unwrap();
    assert_eq!(r.claims.len(), CLAIMS);
}

#[test]
fn documents_and_manifests_past_their_bytes_are_refused() {
    // An MSTATE document: at most MSTATE_BYTES, counted before it is parsed.
    let text = canonical(&document(negotiation(10)));
    let padded = format!("{text}{}", " ".repeat(MSTATE_BYTES - text.len()));
    assert!(read(&padded, None).is_err_and(|e| e.code == "unsupported-event"));
    let e = read(&format!("{padded} "), None).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("resource", "resource-limit"),
        "{e}"
    );

    // A title: a string of STRING_BYTES at most, in the text of a manifest or not.
    let mut manifest = nine().document;
    manifest["title"] = json!("t".repeat(STRING_BYTES));
    assert!(Manifest::parse(&canonical(&manifest)).is_ok());
    manifest["title"] = json!("t".repeat(STRING_BYTES + 1));
    let e = Manifest::parse(&canonical(&manifest)).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("resource", "resource-limit"),
        "{e}"
    );
    // A manifest made in memory (a harness payload's, an envelope's): its canonical
    // text at most MANIFEST_BYTES; a 50 MB title is refused, not digested.
    manifest["title"] = json!("t".repeat(MANIFEST_BYTES));
    let e = Manifest::from_value(manifest.clone()).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("resource", "resource-limit"),
        "{e}"
    );
    manifest["title"] = json!("t".repeat(50 << 20));
    assert!(Manifest::from_value(manifest).is_err_and(|e| e.category == "resource"));
    // A manifest's text too.
    let e = Manifest::parse(&" ".repeat(MANIFEST_BYTES + 1)).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("resource", "resource-limit"),
        "{e}"
    );
}

#[test]
fn too_large_integers_and_deep_nesting_are_coded() {
    let mut doc = document(negotiation(2));
    let text = canonical(&doc).replacen("\"seq\":1", &format!("\"seq\":1{}", "0".repeat(30)), 1);
    let e = verify(&parse(&text).unwrap(), None).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("syntax", "integer-out-of-range"),
        "{e}"
    );
    assert_eq!(e.instance_path.as_deref(), Some("/events/0/seq"));
    doc["events"][0]["seq"] = json!(1u64 << 53);
    let e = verify(&doc, None).unwrap_err();
    assert_eq!(e.code, "integer-out-of-range", "{e}");
    let text = canonical(&document(negotiation(2))).replacen(
        "\"seq\":1",
        &format!("\"seq\":1{}", "0".repeat(400)),
        1,
    );
    let e = read(&text, None).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("syntax", "integer-out-of-range"),
        "{e}"
    );
    let mut doc = document(Vec::new());
    let mut deep = json!(1);
    for _ in 0..70 {
        deep = json!([deep]);
    }
    doc["annotations"] = json!({"deep": deep});
    let e = read(&canonical(&doc), None).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("resource", "resource-limit"),
        "{e}"
    );
}

#[test]
fn the_limits_are_published_in_the_capabilities() {
    let limits = capabilities("mill", "0").get("resourceLimits").cloned().unwrap();
    let named = |name: &str| {
        limits
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == name)
            .map(|l| l["limit"].clone())
    };
    assert_eq!(named("events"), Some(json!(EVENTS)));
    assert_eq!(named("mstate-bytes"), Some(json!(MSTATE_BYTES)));
    assert_eq!(named("string-bytes"), Some(json!(STRING_BYTES)));
    assert_eq!(named("trace-entries"), Some(json!(TRACE_ENTRIES)));
}
