//! `mill mif` end to end: convert, validate, and the MIF-INTEROP/1 adapter driven over
//! its standard input and output as the interoperability harness drives it.

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn mill(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mill"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mill runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Our manifest of a rule set, as `mill mif convert --to mrs` prints it.
fn manifest(rules: &str) -> Value {
    let o = mill(&["mif", "convert", "--to", "mrs", "--variant", rules], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(stdout(&o).trim()).unwrap()
}

fn request(id: &str, operation: &str, payload: Value) -> String {
    json!({"protocol": "MIF-INTEROP/1", "kind": "request", "requestId": id, "operation": operation, "payload": payload})
        .to_string()
}

#[test]
fn the_adapter_answers_every_request_in_order() {
    let nine = manifest("nine");
    let dark = manifest("nine+dark-first");
    let start = "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -";
    let black_start = "MFEN/1.0 mill24-state-v1 ......../......../........ b p p 9,9 - 0 0 -";
    let key_of = |m: &Value, board: &str| {
        let o = mill(
            &["mif", "validate", "--format", "mrs", "--text", &m.to_string()],
            "",
        );
        let digest = String::from_utf8_lossy(&o.stderr)
            .lines()
            .find_map(|l| l.strip_prefix("semanticDigest ").map(str::to_string))
            .unwrap();
        format!(
            "MPK/1.0 mill24-state-v1 {}@1 {digest} structural-d4-v1 {board} w p 8,9",
            m["id"].as_str().unwrap()
        )
    };
    let lines = [
        request("cap", "capabilities", json!({})),
        request(
            "mfen",
            "canonicalize",
            json!({"format": "MFEN/1.0", "value": start, "manifest": nine}),
        ),
        request(
            "no-manifest",
            "canonicalize",
            json!({"format": "MFEN/1.0", "value": start}),
        ),
        request(
            "black",
            "canonicalize",
            json!({"format": "MFEN/1.0", "value": black_start, "manifest": dark}),
        ),
        request(
            "black-in-nine",
            "canonicalize",
            json!({"format": "MFEN/1.0", "value": black_start, "manifest": nine}),
        ),
        request(
            "mpk",
            "canonicalize",
            json!({"format": "MPK/1.0", "value": key_of(&nine, &format!("W{}", ".".repeat(23))), "manifest": nine}),
        ),
        request(
            "legal",
            "project-legal-actions",
            json!({"manifest": dark, "current": black_start}),
        ),
        request("replay", "replay", json!({"mstate": {}})),
        request(
            "reference",
            "replay",
            json!({"mstate": {"ruleset": {"mode": "reference"}}}),
        ),
        request(
            "gate",
            "transform",
            json!({"kind": "mstate", "document": {}, "manifest": nine, "transform": "r90ccw", "verifyReplay": true, "requireEquivalence": true}),
        ),
        request(
            "root",
            "transform",
            json!({"kind": "decision-state", "document": {"repetitionSummary": {"root": "sha256:00"}}, "manifest": nine, "transform": "r90ccw", "verifyReplay": false, "requireEquivalence": false}),
        ),
        request(
            "policy",
            "execute",
            json!({"manifest": {"format": "MRS/1.0"}, "origin": start, "events": [], "repetitionSeed": [], "preOriginClaims": []}),
        ),
        "{\"protocol\":\"MIF-INTEROP/1\",\"protocol\":\"MIF-INTEROP/1\"}".to_string(),
        request("weird", "dance", json!({})),
    ];
    let o = mill(&["mif", "adapter"], &(lines.join("\n") + "\n"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let responses: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(responses.len(), lines.len(), "one response a request");
    let by = |i: usize| &responses[i];
    for (i, id) in [
        "cap",
        "mfen",
        "no-manifest",
        "black",
        "black-in-nine",
        "mpk",
        "legal",
        "replay",
        "reference",
        "gate",
        "root",
        "policy",
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(by(i)["requestId"], json!(id));
        assert_eq!(by(i)["protocol"], json!("MIF-INTEROP/1"));
        assert_eq!(by(i)["kind"], json!("response"));
    }
    let code = |i: usize| {
        by(i)["diagnostics"]["errors"][0]["code"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let cap = &by(0)["result"]["capabilities"];
    assert_eq!(cap["format"], json!("MIFCAP/1.0"));
    assert_eq!(cap["profiles"]["key"], json!(["structural-d4-v1"]));
    assert_eq!(by(1)["result"], json!({"value": start}));
    assert_eq!(
        (by(2)["status"].as_str(), code(2).as_str()),
        (Some("error"), "manifest-missing")
    );
    assert_eq!(by(2)["diagnostics"]["format"], json!("MIFDIAG/1.0"));
    assert_eq!(by(3)["result"], json!({"value": black_start}));
    assert_eq!(code(4), "bad-position", "Black does not place first in Nine");
    let mpk = by(5)["result"]["value"].as_str().unwrap();
    assert!(mpk.contains(" ......W................. w p 8,9"), "{mpk}");
    let actions = by(6)["result"]["document"]["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 24);
    assert_eq!(actions[0], json!({"actor": "b", "type": "place", "at": "a7"}));
    assert_eq!(code(7), "unsupported-operation");
    assert_eq!(code(8), "manifest-missing");
    assert_eq!(code(9), "transform-invariance-undeclared");
    assert_eq!(code(10), "insufficient-transform-history");
    assert_eq!(code(11), "schema", "the manifest is validated first");
    assert_eq!(code(12), "duplicate-member-after-unescape");
    assert_eq!(code(13), "unsupported-operation");
}

#[test]
fn convert_writes_keys_and_manifests_and_validate_prints_canonical_forms() {
    let o = mill(&["mif", "convert", "--to", "mpk"], "1. a1 b2\n");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let key = stdout(&o);
    assert!(
        key.starts_with("MPK/1.0 mill24-state-v1 x-mill-nine@1 sha256:"),
        "{key}"
    );
    assert!(key.trim_end().ends_with(" w p 8,8"), "{key}");
    // Validation of the key under our manifest gives it back unchanged.
    let o = mill(
        &[
            "mif",
            "validate",
            "--format",
            "mpk",
            "--variant",
            "nine",
            "--text",
            key.trim_end(),
        ],
        "",
    );
    assert_eq!(stdout(&o), key);
    // Another manifest's key is refused with the specification's code, as MIFDIAG.
    let o = mill(
        &[
            "mif",
            "validate",
            "--format",
            "mpk",
            "--variant",
            "twelve",
            "--text",
            key.trim_end(),
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    let diag: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(diag["errors"][0]["code"], json!("manifest-conflict"));
    // MFEN keeps its count; Six has no MIF board.
    let mfen = "MFEN/1.0 mill24-state-v1 W......./B......./........ w p p 8,8 - 0 6 -";
    let o = mill(
        &[
            "mif",
            "convert",
            "--to",
            "mfen",
            "--variant",
            "nine",
            "--text",
            mfen,
        ],
        "",
    );
    assert_eq!(stdout(&o), format!("{mfen}\n"));
    let o = mill(&["mif", "convert", "--to", "mrs", "--variant", "six"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unrepresentable"));
    let o = mill(&["mif", "validate", "--format", "mfen", "--text", mfen], "");
    assert!(stdout(&o).contains("manifest-missing"));
}

#[test]
fn a_game_goes_out_as_mstate_and_validates() {
    let record = "[Variant \"nine+dark-first\"]\n\n1. a1 d2 2. g1\n";
    let o = mill(&["mif", "convert", "--to", "mstate"], record);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    let doc: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(
        doc["events"][0],
        json!({"seq": 1, "actor": "b", "type": "place", "at": "a1"})
    );
    assert_eq!(doc["ruleset"]["manifest"]["turn"]["initial"], json!("b"));
    let o = mill(
        &["mif", "validate", "--format", "mstate", "--text", text.trim()],
        "",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout(&o), text);
    let tampered = text.replace("\"at\":\"g1\"", "\"at\":\"g7\"");
    let o = mill(
        &["mif", "validate", "--format", "mstate", "--text", tampered.trim()],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("checkpoint-mismatch"), "{}", stdout(&o));
}
