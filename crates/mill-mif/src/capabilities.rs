//! This implementation's MIFCAP/1.0 object: what it reads and writes, and how far —
//! a claim, kept honest: what is not implemented says `none`.

use super::mrs::Manifest;
use mill_core::Variant;
use serde_json::{Value, json};

/// The MIFCAP/1.0 object for `name` at `version` (the program speaking).
pub fn capabilities(name: &str, version: &str) -> Value {
    let mut classes = vec![
        ("conversion", "experimental"),
        ("identity", "experimental"),
        ("key", "implemented"),
        ("position", "implemented"),
        ("replay", "experimental"),
        ("ruleset", "implemented"),
        ("transform", "experimental"),
    ];
    classes.sort_unstable();
    let mut formats = vec![
        ("MFEN/1.0", "implemented", "implemented"),
        ("MIFCAP/1.0", "none", "implemented"),
        ("MIFCONV/1.0", "none", "implemented"),
        ("MIFDIAG/1.0", "none", "implemented"),
        ("MIFINV/1.0", "implemented", "implemented"),
        ("MIFPOS/1.0", "implemented", "implemented"),
        ("MIFSUITE/1.0", "none", "none"),
        ("MIFTURN/1.0", "none", "implemented"),
        ("MPK/1.0", "implemented", "implemented"),
        ("MRS/1.0", "implemented", "implemented"),
        ("MSTATE/1.0", "implemented", "implemented"),
    ];
    formats.sort_unstable();
    // The manifests of the usual rule sets on the 24-point board.
    let mut rulesets: Vec<Value> = [Variant::Nine, Variant::Twelve]
        .into_iter()
        .filter_map(|v| Manifest::of_rules(v.rules()).ok())
        .map(|m| {
            json!({
                "id": m.id,
                "version": m.version,
                "semanticDigest": m.semantic_digest,
                "documentDigest": m.document_digest,
                "level": "implemented"
            })
        })
        .collect();
    rulesets.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    json!({
        "format": "MIFCAP/1.0",
        "implementation": {"name": name, "version": version},
        "suites": [],
        "classes": classes.into_iter().map(|(id, level)| json!({"id": id, "level": level})).collect::<Vec<_>>(),
        "formats": formats
            .into_iter()
            .map(|(id, read, write)| json!({"id": id, "read": read, "write": write}))
            .collect::<Vec<_>>(),
        "profiles": {
            "claimLifecycle": ["stable-claim-rights-v1"],
            "decision": ["decision-state-v1"],
            "key": ["structural-d4-v1"],
            "logicalTurn": ["logical-turn-v1"],
            "mpkBinding": ["inline-semantic-digest-v1"],
            "observation": ["stable-moving-v1", "stable-primary-decision-v1"],
            "placingLiveness": ["draw", "loss"],
            "repetitionProjection": ["repetition-observation-v1"],
            "repetitionSummary": ["reset-count-smt-v1"],
            "resumption": ["resumption-state-v1"],
            "semanticProjection": ["mrs-semantic-v1"],
            "semantics": ["mif-finite-rules-v3"],
            "state": ["mill24-state-v1"],
            "transform": ["mill24-full-state-v1"]
        },
        "rulesets": rulesets,
        "invarianceDeclarations": [],
        "conversions": super::mifconv::supported()
            .into_iter()
            .map(|(from, to, statuses)| json!({"sourceFormat": from, "targetFormat": to, "statuses": statuses}))
            .collect::<Vec<_>>(),
        "resourceLimits": [{"name": "mpk-bytes", "limit": 4096}],
        "testedCorpora": []
    })
}
