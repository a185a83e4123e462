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

/// The MSTATE of a game record, as `mill mif convert --to mstate` writes it.
fn game_doc(record: &str) -> Value {
    let o = mill(&["mif", "convert", "--to", "mstate"], &format!("{record}\n"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(stdout(&o).trim()).unwrap()
}

/// A manifest's semantic digest, as `mill mif validate --format mrs` reports it.
fn reference_digest(m: &Value) -> String {
    let o = mill(
        &["mif", "validate", "--format", "mrs", "--text", &m.to_string()],
        "",
    );
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("semanticDigest ").map(str::to_string))
        .unwrap()
}

/// The adapter's responses to `requests`, one a line.
fn adapter(requests: &[String]) -> Vec<Value> {
    let o = mill(&["mif", "adapter"], &(requests.join("\n") + "\n"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let responses: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(responses.len(), requests.len(), "one response a request");
    responses
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
    let decision_doc = json!({
        "profile": "decision-state-v1", "stateProfile": "mill24-state-v1",
        "semanticDigest": reference_digest(&nine), "board": "......../......../........",
        "side": "w", "phase": "p", "action": "p", "hands": [9, 9], "obligations": "-",
        "noProgress": 0, "outcome": "-", "semantic": {},
        "repetitionSummary": {"profile": "reset-count-smt-v1", "root": format!("sha256:{}", "0".repeat(64))},
        "openOffer": null, "claimRights": null
    });
    let reference_doc = {
        let mut g = game_doc("1. a1 b2");
        let r = g["ruleset"].clone();
        g["ruleset"] = json!({"mode": "reference", "id": r["id"], "version": r["version"], "semanticDigest": r["semanticDigest"]});
        g
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
        request("reference", "replay", json!({"mstate": reference_doc})),
        request(
            "gate",
            "transform",
            json!({"kind": "mstate", "document": game_doc("1. a1 b2"), "transform": "r90ccw", "verifyReplay": true, "requireEquivalence": true}),
        ),
        request(
            "root",
            "transform",
            json!({"kind": "decision-state", "document": decision_doc, "manifest": nine, "transform": "r90ccw", "verifyReplay": false, "requireEquivalence": false}),
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
    // MIF's hands are authoritative: Black to move under Nine's manifest is a position.
    assert_eq!(by(4)["result"], json!({"value": black_start}));
    let mpk = by(5)["result"]["value"].as_str().unwrap();
    assert!(mpk.contains(" ......W................. w p 8,9"), "{mpk}");
    let actions = by(6)["result"]["document"]["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 24);
    assert_eq!(actions[0], json!({"actor": "b", "type": "place", "at": "a7"}));
    assert_eq!(code(7), "schema", "an MSTATE is checked before it is replayed");
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

#[test]
fn whole_games_execute_replay_transform_and_project_into_turns_under_our_rules() {
    let nine = manifest("nine");
    let game = game_doc("1. a1 b2 2. d1 d2 3. g1xd2");
    let origin = game["origin"].as_str().unwrap().to_string();
    let mut events = game["events"].as_array().unwrap().clone();
    // An offer declined, then one left open: kept in the claim audit.
    events.push(json!({"seq": 7, "actor": "b", "type": "offer-draw"}));
    events.push(json!({"seq": 8, "actor": "w", "type": "decline-draw", "offerEventSeq": 7}));
    events.push(json!({"seq": 9, "actor": "b", "type": "offer-draw"}));
    let mut offered = game.clone();
    offered["events"] = json!(events);
    offered["claims"] = json!([
        {"source": "event", "actor": "b", "eventSeq": 7, "kind": "draw-offer", "status": "declined", "resolvedEventSeq": 8},
        {"source": "event", "actor": "b", "eventSeq": 9, "kind": "draw-offer", "status": "open"}
    ]);
    let mut reference = offered.clone();
    let portable = reference["ruleset"].clone();
    reference["ruleset"] = json!({
        "mode": "reference", "id": portable["id"], "version": portable["version"],
        "semanticDigest": portable["semanticDigest"]
    });
    let mut tampered = offered.clone();
    tampered["claims"] = json!([]);
    let mut stolen = game.clone();
    stolen["events"][5]["actor"] = json!("b");
    let invariance = {
        let o = mill(&["mif", "convert", "--to", "mifinv", "--variant", "nine"], "");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_str::<Value>(stdout(&o).trim()).unwrap()
    };
    // A pre-origin observation of the start. Our rules observe moving boundaries only:
    // it is kept in the window, and never counts.
    let seed = json!({"source": "pre-origin", "key": {
        "profile": "repetition-observation-v1", "stateProfile": "mill24-state-v1",
        "semanticDigest": game["ruleset"]["semanticDigest"], "board": "......../......../........",
        "side": "w", "phase": "p", "action": "p", "hands": [9, 9], "semantic": {}
    }});
    let transform = |doc: &Value, id: &str, equivalence: bool| {
        json!({"kind": "mstate", "document": doc, "transform": id, "verifyReplay": true,
               "requireEquivalence": equivalence, "invariance": invariance})
    };
    let responses = adapter(&[
        request(
            "execute",
            "execute",
            json!({"manifest": nine, "origin": origin, "events": events, "repetitionSeed": [], "preOriginClaims": []}),
        ),
        request("replay", "replay", json!({"mstate": offered})),
        request(
            "reference",
            "replay",
            json!({"mstate": reference, "manifest": nine}),
        ),
        request("tampered", "replay", json!({"mstate": tampered})),
        request("stolen", "replay", json!({"mstate": stolen})),
        request("turns", "project-logical-turns", json!({"mstate": offered})),
        request("r90", "transform", transform(&offered, "r90ccw", true)),
        request(
            "seeded",
            "execute",
            json!({"manifest": nine, "origin": origin, "events": [], "repetitionSeed": [{"source": "pre-origin", "key": {}}], "preOriginClaims": []}),
        ),
        request(
            "observed",
            "execute",
            json!({"manifest": nine, "origin": origin, "events": [], "repetitionSeed": [seed.clone(), seed], "preOriginClaims": []}),
        ),
        request(
            "claim",
            "execute",
            json!({"manifest": nine, "origin": origin, "events": [{"seq": 1, "actor": "w", "type": "claim-draw", "reason": "repetition"}], "repetitionSeed": [], "preOriginClaims": []}),
        ),
    ]);
    let ok = |i: usize| {
        assert_eq!(responses[i]["status"], json!("ok"), "{}", responses[i]);
        &responses[i]["result"]
    };
    let code = |i: usize| {
        responses[i]["diagnostics"]["errors"][0]["code"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let trace = ok(0)["trace"].as_array().unwrap();
    assert_eq!(trace.len(), 10, "the origin and one snapshot an event");
    assert_eq!(ok(0)["final"], trace[9]);
    assert_eq!(trace[0]["boundary"], json!("origin"));
    assert_eq!(trace[0]["eventSeq"], Value::Null);
    assert!(
        trace[5]["current"].as_str().unwrap().contains(" w p r "),
        "a removal is owed after the mill: {}",
        trace[5]["current"]
    );
    assert_eq!(
        trace[5]["decisionState"]["obligations"],
        json!(trace[5]["current"].as_str().unwrap().split(' ').nth(7).unwrap())
    );
    for snapshot in trace {
        let digest = snapshot["decisionDigest"].as_str().unwrap();
        assert!(digest.starts_with("sha256:") && digest.len() == 71);
    }
    assert_ne!(
        trace[6]["decisionDigest"], trace[7]["decisionDigest"],
        "an open offer changes the decision"
    );
    assert_eq!(trace[7]["decisionState"]["openOffer"]["offerer"], json!("b"));
    assert_eq!(trace[8]["decisionState"]["openOffer"], Value::Null);
    assert_eq!(
        trace[8]["decisionDigest"], trace[6]["decisionDigest"],
        "a declined offer leaves the decision as it was"
    );
    let replay = ok(1);
    assert_eq!(replay["trace"], ok(0)["trace"]);
    assert_eq!(replay["claims"], offered["claims"]);
    assert_eq!(replay["decisionState"], trace[9]["decisionState"]);
    let resumption = &replay["resumptionState"];
    assert_eq!(resumption["profile"], json!("resumption-state-v1"));
    assert_eq!(resumption["lastEventSeq"], json!(9));
    assert_eq!(
        resumption["openOffer"],
        json!({"source": "event", "actor": "b", "offerEventSeq": 9})
    );
    assert_eq!(
        ok(2)["resumptionDigest"],
        replay["resumptionDigest"],
        "a reference envelope replays the same"
    );
    assert_eq!(code(3), "claims-mismatch");
    assert_eq!(code(4), "side-obligation-actor-mismatch");
    let turns = &ok(5)["document"];
    assert_eq!(turns["format"], json!("MIFTURN/1.0"));
    assert_eq!(turns["sourceResumptionDigest"], replay["resumptionDigest"]);
    let fragments = turns["fragments"].as_array().unwrap();
    assert_eq!(fragments.len(), 5, "five placements, the last with its removal");
    assert_eq!(
        fragments[4],
        json!({"kind": "logical-turn", "primaryEventSeq": 5, "removeEventSeqs": [6], "status": "complete"})
    );
    let moved = &ok(6)["document"];
    assert_eq!(
        moved["events"][0]["at"],
        json!("g1"),
        "a1 turns to g1 under r90ccw"
    );
    assert_eq!(moved["events"][5]["target"]["at"], json!("f4"), "d2 turns to f4");
    assert_eq!(moved["claims"], offered["claims"]);
    assert_ne!(ok(6)["decisionDigest"], replay["decisionDigest"]);
    assert_eq!(code(7), "schema", "a seed is an observation");
    let seeded = &ok(8)["final"];
    assert_eq!(seeded["repetitionHistory"].as_array().unwrap().len(), 2);
    assert!(seeded["current"].as_str().unwrap().ends_with(" 0 0 -"));
    assert_eq!(
        code(9),
        "claim-right-unavailable",
        "draws are automatic in our rules"
    );
}

#[test]
fn conversions_between_mif_formats_print_their_mifconv_reports() {
    let game = game_doc("1. a1 b2 2. d1 d2").to_string();
    let convert = |args: &[&str], stdin: &str| {
        let mut all = vec!["mif", "convert"];
        all.extend_from_slice(args);
        let o = mill(&all, stdin);
        let report: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        (o.status.success(), report)
    };
    // A game to its position drops its history: only with the loss accepted.
    let (ok, refused) = convert(&["--from", "mstate", "--to", "mfen"], &game);
    assert!(!ok);
    assert_eq!(refused["format"], json!("MIFDIAG/1.0"));
    assert_eq!(refused["errors"][0]["code"], json!("loss-not-accepted"));
    let (ok, report) = convert(&["--from", "mstate", "--to", "mfen", "--accept-loss"], &game);
    assert!(ok, "{report}");
    assert_eq!(report["format"], json!("MIFCONV/1.0"));
    assert_eq!(report["status"], json!("lossy-history"));
    let mfen = report["output"].as_str().unwrap().to_string();
    assert!(mfen.ends_with(" w p p 7,7 - 0 4 -"), "{mfen}");
    // MFEN needs its rules: without them, no output and a non-zero exit.
    let (ok, report) = convert(&["--from", "mfen", "--to", "mifpos", "--text", &mfen], "");
    assert!(!ok);
    assert_eq!(report["status"], json!("requires-ruleset-resolution"));
    assert!(report.get("output").is_none());
    let (ok, report) = convert(
        &[
            "--from",
            "mfen",
            "--to",
            "mifpos",
            "--variant",
            "nine",
            "--text",
            &mfen,
        ],
        "",
    );
    assert!(ok, "{report}");
    assert_eq!(report["status"], json!("lossless"));
    assert_eq!(report["output"]["position"], json!(mfen));
    // The capability object lists the conversions.
    let responses = adapter(&[request("cap", "capabilities", json!({}))]);
    let conversions = &responses[0]["result"]["capabilities"]["conversions"];
    assert!(conversions.as_array().unwrap().contains(
        &json!({"sourceFormat": "MSTATE/1.0", "targetFormat": "MFEN/1.0", "statuses": ["lossy-history"]})
    ));
}

/// `mill` with raw bytes on its standard input.
fn mill_bytes(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mill"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mill runs");
    let mut input = child.stdin.take().unwrap();
    // A refusal may come before the whole input is read; a closed pipe then is fine.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

/// The first error's category and code in a MIFDIAG/1.0 object.
fn code(diagnostics: &Value) -> (String, String) {
    let e = &diagnostics["errors"][0];
    (
        e["category"].as_str().unwrap_or("").to_string(),
        e["code"].as_str().unwrap_or("").to_string(),
    )
}

fn pair(category: &str, code: &str) -> (String, String) {
    (category.to_string(), code.to_string())
}

#[test]
fn validate_codes_bad_utf8_oversized_input_and_huge_integers() {
    let doc = game_doc("d6 f4");
    let validate = |bytes: &[u8], format: &str| {
        let o = mill_bytes(&["mif", "validate", "--format", format], bytes);
        assert!(!o.status.success());
        let diagnostics: Value = serde_json::from_str(stdout(&o).trim()).expect("MIFDIAG on stdout");
        code(&diagnostics)
    };
    let mut bad = doc.to_string().into_bytes();
    let at = bad.iter().position(|&b| b == b'"').unwrap();
    bad.insert(at + 1, 0xff);
    assert_eq!(validate(&bad, "mstate"), pair("syntax", "invalid-utf-8"));
    assert_eq!(
        validate(b"MFEN/1.0 \xc3", "mfen"),
        pair("syntax", "invalid-utf-8")
    );
    // Past a format's bytes: refused before it is read, whatever it holds.
    assert_eq!(
        validate(&vec![b' '; (8 << 20) + 1], "mstate"),
        pair("resource", "resource-limit")
    );
    assert_eq!(
        validate(&vec![b'x'; 4097], "mfen"),
        pair("resource", "resource-limit")
    );
    // Far past every limit: still one coded answer, the input not held.
    assert_eq!(
        validate(&vec![b'x'; 64 << 20], "mrs"),
        pair("resource", "resource-limit")
    );
    // A title too long for a string, within the manifest's bytes.
    let mut m = manifest("nine");
    m["title"] = json!("t".repeat((64 << 10) + 1));
    assert_eq!(
        validate(m.to_string().as_bytes(), "mrs"),
        pair("resource", "resource-limit")
    );
    // An integer too large, exact or not.
    let text = doc
        .to_string()
        .replacen("\"seq\":1", "\"seq\":100000000000000000000000000000", 1);
    assert_eq!(
        validate(text.as_bytes(), "mstate"),
        pair("syntax", "integer-out-of-range")
    );
    let text = doc
        .to_string()
        .replacen("\"seq\":1", "\"seq\":9007199254740992", 1);
    assert_eq!(
        validate(text.as_bytes(), "mstate"),
        pair("syntax", "integer-out-of-range")
    );
}

#[test]
fn the_adapter_answers_bad_lines_with_codes_and_goes_on() {
    let capabilities = request("c", "capabilities", json!({}));
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"protocol\":\"MIF-INTEROP/1\",\"requestId\":\"\xff\"}\n");
    // A line longer than any request: skipped, answered with a resource error.
    input.extend(std::iter::repeat_n(b' ', (10 << 20) + 100));
    input.extend_from_slice(b"\n");
    // More events than a game holds; an integer too large.
    let events: Vec<Value> = (1..=100_001u64)
        .map(|seq| json!({"seq": seq, "actor": "w", "type": "offer-draw"}))
        .collect();
    let origin = "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -";
    let payload = |events: Value| json!({"manifest": manifest("nine"), "origin": origin, "events": events, "repetitionSeed": [], "preOriginClaims": []});
    for line in [
        request("many", "execute", payload(json!(events))),
        request(
            "huge",
            "execute",
            payload(json!([{"seq": 1, "actor": "w", "type": "offer-draw"}])),
        )
        .replace("\"seq\":1", "\"seq\":1e400"),
        request(
            "big",
            "execute",
            payload(json!([{"seq": 1, "actor": "w", "type": "offer-draw"}])),
        )
        .replace("\"seq\":1", "\"seq\":18446744073709551616"),
        capabilities,
    ] {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let o = mill_bytes(&["mif", "adapter"], &input);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let responses: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(responses.len(), 6, "one response a line");
    let codes: Vec<(String, String)> = responses[..5].iter().map(|r| code(&r["diagnostics"])).collect();
    assert_eq!(
        codes,
        [
            pair("syntax", "invalid-utf-8"),
            pair("resource", "resource-limit"),
            pair("resource", "resource-limit"),
            pair("syntax", "integer-out-of-range"),
            pair("syntax", "integer-out-of-range"),
        ]
    );
    assert_eq!(responses[2]["requestId"], json!("many"));
    assert_eq!(
        responses[2]["diagnostics"]["errors"][0]["instancePath"],
        json!("/events")
    );
    assert_eq!(responses[5]["status"], json!("ok"));
}
