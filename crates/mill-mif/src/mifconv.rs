//! MIFCONV/1.0 (MIF 13.3): a conversion between MIF 1.0 formats as a report of what it
//! kept and what it dropped — `lossless`, `lossy-history`, `lossy-semantic-state`
//! (both with their `omitted` members, and only when the caller accepts the loss),
//! `requires-ruleset-resolution` or `unrepresentable-under-profile` (neither with an
//! output, both with the diagnostics of why).
//!
//! The conversions made here, source → target:
//!
//! | from \ to | MFEN/1.0 | MIFPOS/1.0 | MPK/1.0 | MSTATE/1.0 |
//! |---|---|---|---|---|
//! | MFEN/1.0 | canonical, lossless | lossless (the manifest joins it) | lossy-semantic-state | — |
//! | MIFPOS/1.0 | lossy-semantic-state (the envelope) | canonical, lossless | lossy-semantic-state | — |
//! | MSTATE/1.0 | lossy-history | lossy-history | lossy-semantic-state | replayed, canonical, lossless |
//! | MPK/1.0 | unrepresentable (no counters) | unrepresentable | canonical, lossless | — |
//!
//! MFEN and MPK name no rules: without the caller's manifest they are
//! `requires-ruleset-resolution`. A position that has no key (a game over, a removal
//! owed) is `unrepresentable-under-profile` as MPK. A source that does not read is no
//! conversion at all: its MIFDIAG error is returned instead of a report. Conversion
//! from MIF 0.4 (clause 15) is not made here.

use super::json::parse;
use super::legal::canonical_mfen;
use super::mrs::Manifest;
use super::{MifError, mifpos, mpk, mstate};
use serde_json::{Value, json};

/// The formats a conversion here reads and writes.
pub const FORMATS: [&str; 4] = ["MFEN/1.0", "MIFPOS/1.0", "MPK/1.0", "MSTATE/1.0"];

/// A conversion's statuses, in the order of MIF 13.3.
pub const STATUSES: [&str; 5] = [
    "lossless",
    "lossy-history",
    "lossy-semantic-state",
    "requires-ruleset-resolution",
    "unrepresentable-under-profile",
];

/// What a conversion made: its status, what it dropped (`(instancePath, reason)`),
/// and the output (JSON, or a string for MFEN and MPK) or the diagnostics of why not.
struct Outcome {
    status: &'static str,
    omitted: Vec<(String, &'static str)>,
    output: Result<Value, MifError>,
}

fn made(status: &'static str, omitted: Vec<(String, &'static str)>, output: Value) -> Outcome {
    Outcome {
        status,
        omitted,
        output: Ok(output),
    }
}

fn not_made(status: &'static str, omitted: Vec<(String, &'static str)>, why: MifError) -> Outcome {
    Outcome {
        status,
        omitted,
        output: Err(why),
    }
}

/// The conversions made here, with the statuses each may report (MIFCAP's
/// `conversions`, sorted by source then target).
pub fn supported() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    let rules = "requires-ruleset-resolution";
    let unrepresentable = "unrepresentable-under-profile";
    let mut list = vec![
        ("MFEN/1.0", "MFEN/1.0", vec!["lossless", rules]),
        ("MFEN/1.0", "MIFPOS/1.0", vec!["lossless", rules]),
        (
            "MFEN/1.0",
            "MPK/1.0",
            vec!["lossy-semantic-state", rules, unrepresentable],
        ),
        ("MIFPOS/1.0", "MFEN/1.0", vec!["lossy-semantic-state"]),
        ("MIFPOS/1.0", "MIFPOS/1.0", vec!["lossless"]),
        (
            "MIFPOS/1.0",
            "MPK/1.0",
            vec!["lossy-semantic-state", unrepresentable],
        ),
        ("MPK/1.0", "MFEN/1.0", vec![unrepresentable]),
        ("MPK/1.0", "MIFPOS/1.0", vec![unrepresentable]),
        ("MPK/1.0", "MPK/1.0", vec!["lossless", rules]),
        ("MSTATE/1.0", "MFEN/1.0", vec!["lossy-history"]),
        ("MSTATE/1.0", "MIFPOS/1.0", vec!["lossy-history"]),
        (
            "MSTATE/1.0",
            "MPK/1.0",
            vec!["lossy-semantic-state", unrepresentable],
        ),
        ("MSTATE/1.0", "MSTATE/1.0", vec!["lossless"]),
    ];
    list.sort_unstable();
    list
}

/// Converts `source` (the text of a `source_format` document: a line of MFEN or MPK,
/// JSON for MIFPOS and MSTATE) to `target_format`, under `manifest` where the source
/// names no rules of its own (MFEN, MPK, a reference envelope), and reports it as a
/// MIFCONV/1.0 object. A lossy conversion is made only if `accept_loss` (else
/// `conversion/loss-not-accepted`, with what would be dropped in its message). Errors:
/// a pair not converted here (`unsupported/unsupported-format`), a source that does not
/// read (its own diagnostics).
pub fn convert(
    source_format: &str,
    target_format: &str,
    source: &str,
    manifest: Option<&Manifest>,
    accept_loss: bool,
) -> Result<Value, MifError> {
    if !supported()
        .iter()
        .any(|(from, to, _)| *from == source_format && *to == target_format)
    {
        return Err(MifError::new(
            "unsupported",
            "unsupported-format",
            format!(
                "no conversion from {source_format} to {target_format} here (from and to {})",
                FORMATS.join(", ")
            ),
        ));
    }
    let outcome = match source_format {
        "MFEN/1.0" => from_mfen(target_format, source, manifest)?,
        "MIFPOS/1.0" => from_mifpos(target_format, source, manifest)?,
        "MSTATE/1.0" => from_mstate(target_format, source, manifest)?,
        _ => from_mpk(target_format, source, manifest)?,
    };
    let lossy = matches!(outcome.status, "lossy-history" | "lossy-semantic-state");
    if lossy && !accept_loss {
        let dropped: Vec<String> = outcome
            .omitted
            .iter()
            .map(|(path, reason)| format!("{path:?} ({reason})"))
            .collect();
        return Err(MifError::new(
            "conversion",
            "loss-not-accepted",
            format!(
                "{source_format} to {target_format} is {}: it drops {}; accept the loss to convert",
                outcome.status,
                dropped.join(", ")
            ),
        ));
    }
    Ok(report(source_format, target_format, outcome))
}

/// The MIFCONV/1.0 object: `omitted` sorted by instance path, then reason.
fn report(source_format: &str, target_format: &str, outcome: Outcome) -> Value {
    let mut omitted = outcome.omitted;
    omitted.sort();
    omitted.dedup();
    let mut doc = json!({
        "format": "MIFCONV/1.0",
        "sourceFormat": source_format,
        "targetFormat": target_format,
        "status": outcome.status,
        "omitted": omitted
            .into_iter()
            .map(|(path, reason)| json!({"instancePath": path, "reason": reason}))
            .collect::<Vec<_>>()
    });
    if let Some(o) = doc.as_object_mut() {
        match outcome.output {
            Ok(output) => {
                o.insert("output".into(), output);
            }
            Err(why) => {
                o.insert("diagnostics".into(), why.diagnostics());
            }
        }
    }
    doc
}

fn requires_manifest(what: &str) -> Outcome {
    not_made(
        "requires-ruleset-resolution",
        vec![(String::new(), "ruleset-semantics-unresolved")],
        MifError::new(
            "conversion",
            "manifest-missing",
            format!("{what} names no rules: it converts under the caller's manifest"),
        ),
    )
}

/// What an MPK key leaves out of an MFEN position (MIF 7.2), at `path`.
fn key_omissions(path: &str) -> Vec<(String, &'static str)> {
    vec![
        (path.to_string(), "no-progress"),
        (path.to_string(), "primary-ply"),
    ]
}

/// The key of a canonical MFEN position under `manifest`, or why it has none.
fn key_of(
    mfen: &str,
    manifest: &Manifest,
    omitted: Vec<(String, &'static str)>,
) -> Result<Outcome, MifError> {
    let (read, _) = canonical_mfen(mfen, Some(manifest))?;
    let over = read
        .outcome
        .map(|o| MifError::new("ineligible", "mpk-ineligible", format!("the game is over: {o}")));
    let key = match over {
        Some(e) => Err(e),
        None => mpk::of_position(&read.position, manifest),
    };
    Ok(match key {
        Ok(key) => made("lossy-semantic-state", omitted, json!(key)),
        Err(why) => not_made("unrepresentable-under-profile", Vec::new(), why),
    })
}

fn from_mfen(target: &str, source: &str, manifest: Option<&Manifest>) -> Result<Outcome, MifError> {
    let Some(manifest) = manifest else {
        return Ok(requires_manifest("MFEN"));
    };
    let (_, canonical) = canonical_mfen(source, Some(manifest))?;
    Ok(match target {
        "MFEN/1.0" => made("lossless", Vec::new(), json!(canonical)),
        "MIFPOS/1.0" => made("lossless", Vec::new(), mifpos::write(manifest, &canonical, true)),
        _ => key_of(&canonical, manifest, key_omissions(""))?,
    })
}

fn from_mifpos(target: &str, source: &str, manifest: Option<&Manifest>) -> Result<Outcome, MifError> {
    let value = parse(source)?;
    let read = mifpos::from_value(&value, manifest)?;
    let mut dropped = vec![("/ruleset".to_string(), "ruleset-envelope")];
    if value.get("annotations").is_some() {
        dropped.push(("/annotations".to_string(), "annotations"));
    }
    Ok(match target {
        "MIFPOS/1.0" => made("lossless", Vec::new(), value.clone()),
        "MFEN/1.0" => made("lossy-semantic-state", dropped, json!(read.position)),
        _ => {
            // The key keeps the rule set's identity and semantic digest, not its document.
            let mut omitted = key_omissions("/position");
            omitted.push(("/ruleset".to_string(), "ruleset-document"));
            if value.get("annotations").is_some() {
                omitted.push(("/annotations".to_string(), "annotations"));
            }
            key_of(&read.position, &read.manifest, omitted)?
        }
    })
}

fn from_mstate(target: &str, source: &str, manifest: Option<&Manifest>) -> Result<Outcome, MifError> {
    let value = parse(source)?;
    let r = mstate::replay(&value, manifest)?;
    let current = r.current()?;
    if target == "MSTATE/1.0" {
        return Ok(made("lossless", Vec::new(), value));
    }
    // The history: the origin and the events after it, the repetition window, the
    // claims and offers; each member that holds something.
    let mut history = vec![("/origin".to_string(), "event-history")];
    for (member, reason) in [
        ("events", "event-history"),
        ("repetitionHistory", "repetition-history"),
        ("preOriginClaims", "claim-audit"),
        ("claims", "claim-audit"),
    ] {
        if value
            .get(member)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            history.push((format!("/{member}"), reason));
        }
    }
    if value.get("annotations").is_some() {
        history.push(("/annotations".to_string(), "annotations"));
    }
    Ok(match target {
        "MFEN/1.0" => {
            history.push(("/ruleset".to_string(), "ruleset-envelope"));
            made("lossy-history", history, json!(current))
        }
        "MIFPOS/1.0" => {
            // The envelope as the game had it (portable, or a reference).
            let mut doc = mifpos::write(&r.manifest, &current, true);
            if let (Some(o), Some(env)) = (doc.as_object_mut(), value.get("ruleset")) {
                o.insert("ruleset".into(), env.clone());
            }
            made("lossy-history", history, doc)
        }
        _ => {
            history.extend(key_omissions("/current"));
            history.push(("/ruleset".to_string(), "ruleset-document"));
            key_of(&current, &r.manifest, history)?
        }
    })
}

fn from_mpk(target: &str, source: &str, manifest: Option<&Manifest>) -> Result<Outcome, MifError> {
    let key = mpk::Key::parse(source)?;
    if target == "MPK/1.0" {
        let Some(manifest) = manifest else {
            return Ok(requires_manifest("MPK"));
        };
        key.check(Some(manifest))?;
        return Ok(made("lossless", Vec::new(), json!(key.canonical().0)));
    }
    Ok(not_made(
        "unrepresentable-under-profile",
        Vec::new(),
        MifError::new(
            "conversion",
            "unrepresentable-under-profile",
            "a key leaves out the no-progress count and the placements and moves made, which a position needs",
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reported_is_one_of_the_specifications() {
        for (from, to, statuses) in supported() {
            assert!(FORMATS.contains(&from) && FORMATS.contains(&to));
            assert!(statuses.iter().all(|s| STATUSES.contains(s)), "{from} {to}");
            let mut ordered = statuses.clone();
            ordered.sort_by_key(|s| STATUSES.iter().position(|x| x == s));
            assert_eq!(ordered, statuses, "in the order of 13.3: {from} {to}");
        }
    }
}
