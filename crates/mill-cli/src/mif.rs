//! `mill mif`: the Mill Interchange Format 1.0 on the command line (see docs/MIF.md).
//!
//! - `convert`: a position string, MFEN or game record to the MSTATE of the game, the
//!   MPK key or MFEN of its (final) position, or the MRS manifest of its rules;
//! - `validate`: an MFEN, MPK, MRS or MSTATE text checked (an MSTATE replayed and its
//!   checkpoints verified) and written in canonical form, or its MIFDIAG/1.0
//!   diagnostics (exit status 1);
//! - `adapter`: the interoperability harness's `MIF-INTEROP/1` protocol, one JSON
//!   request a line on standard input, one response a line on standard output.
//!
//! The formats themselves live in the `mill-mif` crate; this module reads, dispatches and
//! prints.

use clap::{Subcommand, ValueEnum};
use mill_core::{Mfen, Rules};
use mill_mif::json::{canonical, parse};
use mill_mif::legal::{canonical_mfen, legal_actions};
use mill_mif::limits::{self, MANIFEST_BYTES, MSTATE_BYTES, RECORD_BYTES, REQUEST_BYTES};
use mill_mif::mrs::Manifest;
use mill_mif::transform::TRANSFORMS;
use mill_mif::{MifError, capabilities::capabilities};
use mill_mif::{identity, mifconv, mifinv, mifpos, mpk, mstate};
use serde_json::{Map, Value, json};
use std::io::{BufRead, Read, Write};

/// `mill mif …`.
#[derive(Subcommand)]
pub enum MifCommand {
    /// Convert a position string, MFEN or game record (as `mill convert` reads them) to
    /// the MPK key or MFEN of its final position, or the MRS manifest of its rules. With
    /// `--from`, convert a MIF 1.0 document to another and print the MIFCONV/1.0 report
    /// (exit status 1 when the report has no output).
    Convert {
        /// The input file; `-` or nothing reads standard input (not read for `--to mrs`).
        file: Option<String>,
        /// The input itself instead of a file.
        #[arg(long, conflicts_with = "file")]
        text: Option<String>,
        /// What to print.
        #[arg(long, value_enum)]
        to: Target,
        /// The rule set (`nine`, `twelve+per-mill`, `nine+dark-first`, …); MFEN input
        /// needs it.
        #[arg(long)]
        variant: Option<String>,
        /// The input is a MIF 1.0 document of this format: print a MIFCONV/1.0 report.
        #[arg(long, value_enum)]
        from: Option<Source>,
        /// With `--from`: the MRS manifest (a JSON file) MFEN, MPK and reference
        /// envelopes are read under.
        #[arg(long, requires = "from", conflicts_with = "variant")]
        manifest: Option<String>,
        /// With `--from`: make a conversion that drops history or state (MIFCONV's
        /// explicit acceptance of a lossy status).
        #[arg(long, requires = "from")]
        accept_loss: bool,
    },
    /// Check an MFEN, MPK or MRS text and print it in canonical form, or print its
    /// MIFDIAG/1.0 diagnostics and exit with status 1.
    Validate {
        /// The input file; `-` or nothing reads standard input.
        file: Option<String>,
        /// The input itself instead of a file.
        #[arg(long, conflicts_with = "file")]
        text: Option<String>,
        /// What the input is.
        #[arg(long, value_enum)]
        format: Kind,
        /// The MRS manifest (a JSON file) MFEN and MPK are read under.
        #[arg(long, conflicts_with = "variant")]
        manifest: Option<String>,
        /// Instead of --manifest: the rule set whose manifest to read under.
        #[arg(long)]
        variant: Option<String>,
    },
    /// Speak the interoperability harness's MIF-INTEROP/1 on standard input and output.
    Adapter,
}

/// What `mill mif convert` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// The MPK/1.0 structural key of the (final) position.
    Mpk,
    /// The (final) position as MFEN/1.0.
    Mfen,
    /// The MRS/1.0 manifest of the rules, as canonical JSON.
    Mrs,
    /// The whole game as MSTATE/1.0 (canonical JSON, the manifest inside).
    Mstate,
    /// The (final) position as a portable MIFPOS/1.0 document (the manifest inside).
    Mifpos,
    /// The MIFINV/1.0 declaration that the rules are invariant under the board's eight
    /// symmetries.
    Mifinv,
}

/// The MIF 1.0 formats `mill mif convert --from` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Source {
    /// MFEN/1.0.
    Mfen,
    /// MPK/1.0.
    Mpk,
    /// MIFPOS/1.0 (JSON).
    Mifpos,
    /// MSTATE/1.0 (JSON).
    Mstate,
}

impl Source {
    fn signature(self) -> &'static str {
        match self {
            Source::Mfen => "MFEN/1.0",
            Source::Mpk => "MPK/1.0",
            Source::Mifpos => "MIFPOS/1.0",
            Source::Mstate => "MSTATE/1.0",
        }
    }
}

/// What `mill mif validate` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// MFEN/1.0.
    Mfen,
    /// MPK/1.0.
    Mpk,
    /// An MRS/1.0 manifest (JSON).
    Mrs,
    /// An MSTATE/1.0 game (JSON), replayed and its checkpoints verified.
    Mstate,
    /// A MIFPOS/1.0 position (JSON).
    Mifpos,
}

fn rules_named(name: Option<&str>) -> Result<Option<Rules>, String> {
    name.map(|n| Rules::parse(n).map_err(|e| e.to_string()))
        .transpose()
}

/// The manifest a command reads under: the file `--manifest` names, else our manifest of
/// the `--variant` rules, else none.
fn manifest_named(path: Option<String>, variant: Option<&str>) -> Result<Option<Manifest>, String> {
    match (path, rules_named(variant)?) {
        (Some(path), _) => {
            let doc = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
            Manifest::parse(&doc)
                .map(Some)
                .map_err(|e| format!("the manifest {path}: {e}"))
        }
        (None, Some(rules)) => Manifest::of_rules(rules).map(Some).map_err(|e| e.to_string()),
        (None, None) => Ok(None),
    }
}

/// The bytes of `file` (standard input for `-` or none), read no further than one byte
/// past the largest input any format takes, so that a huge input costs no memory.
fn bounded_input(file: Option<&str>) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let cap = REQUEST_BYTES as u64 + 1;
    match file {
        None | Some("-") => std::io::stdin()
            .lock()
            .take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?,
        Some(path) => std::fs::File::open(path)
            .and_then(|f| f.take(cap).read_to_end(&mut bytes))
            .map_err(|e| format!("cannot read {path}: {e}"))?,
    };
    Ok(bytes)
}

fn input(file: Option<&str>, text: Option<String>) -> Result<String, String> {
    match text {
        Some(t) => Ok(t),
        None => super::read_record(file),
    }
}

/// Runs one `mill mif` command.
pub fn run(command: MifCommand) -> Result<(), String> {
    match command {
        MifCommand::Adapter => adapter(),
        MifCommand::Convert {
            file,
            text,
            to,
            variant,
            from: Some(from),
            manifest,
            accept_loss,
        } => {
            let target = match to {
                Target::Mfen => "MFEN/1.0",
                Target::Mpk => "MPK/1.0",
                Target::Mifpos => "MIFPOS/1.0",
                Target::Mstate => "MSTATE/1.0",
                Target::Mrs | Target::Mifinv => {
                    return Err("--from converts to mfen, mpk, mifpos or mstate".into());
                }
            };
            let manifest = manifest_named(manifest, variant.as_deref())?;
            let text = input(file.as_deref(), text)?;
            let text = text.strip_suffix('\n').unwrap_or(&text);
            match mifconv::convert(from.signature(), target, text, manifest.as_ref(), accept_loss) {
                Ok(report) => {
                    println!("{}", canonical(&report));
                    if report.get("output").is_none() {
                        return Err(format!("no {target} made: {}", report["status"]));
                    }
                    Ok(())
                }
                Err(e) => {
                    println!("{}", canonical(&e.diagnostics()));
                    Err(format!("{e}"))
                }
            }
        }
        MifCommand::Convert {
            file,
            text,
            to,
            variant,
            from: None,
            ..
        } => {
            let rules = rules_named(variant.as_deref())?;
            if matches!(to, Target::Mrs | Target::Mifinv) {
                let manifest =
                    Manifest::of_rules(rules.unwrap_or(*mill_core::NINE)).map_err(|e| e.to_string())?;
                if to == Target::Mifinv {
                    // Our rules name no point: every symmetry of the board keeps them.
                    println!("{}", canonical(&mifinv::write(&manifest, &TRANSFORMS)));
                } else {
                    println!("{}", manifest.canonical());
                }
                return Ok(());
            }
            let text = input(file.as_deref(), text)?;
            let (record, start_ply) = super::read_any(&text, super::Format::Auto, rules)?;
            let game = &record.game;
            match to {
                Target::Mfen => {
                    let mfen = match start_ply {
                        Some(ply) => Mfen::of_game(game, ply),
                        None => Mfen::from_game(game),
                    };
                    println!("{}", mfen.write().map_err(|e| e.to_string())?);
                }
                Target::Mstate => {
                    let ply = start_ply.unwrap_or_else(|| Mfen::from_position(game.start()).primary_ply);
                    let doc = mstate::write(game, ply).map_err(|e| e.to_string())?;
                    println!("{}", canonical(&doc));
                }
                Target::Mifpos => {
                    let manifest = Manifest::of_rules(game.position().rules()).map_err(|e| e.to_string())?;
                    let mfen = match start_ply {
                        Some(ply) => Mfen::of_game(game, ply),
                        None => Mfen::from_game(game),
                    };
                    let text = mfen.write().map_err(|e| e.to_string())?;
                    println!("{}", canonical(&mifpos::write(&manifest, &text, true)));
                }
                Target::Mpk | Target::Mrs | Target::Mifinv => {
                    let manifest = Manifest::of_rules(game.position().rules()).map_err(|e| e.to_string())?;
                    let key = mpk::of_position(game.position(), &manifest).map_err(|e| e.to_string())?;
                    println!("{key}");
                }
            }
            Ok(())
        }
        MifCommand::Validate {
            file,
            text,
            format,
            manifest,
            variant,
        } => {
            let bytes = match text {
                Some(t) => t.into_bytes(),
                None => bounded_input(file.as_deref())?,
            };
            let bytes = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            let limit = match format {
                Kind::Mfen | Kind::Mpk => RECORD_BYTES,
                Kind::Mrs | Kind::Mifpos => MANIFEST_BYTES,
                Kind::Mstate => MSTATE_BYTES,
            };
            // Limits first, then the grammar (MIF 16.1): too long, or not UTF-8, is
            // refused with its code before anything is read.
            let text = match limits::text(bytes, limit, "the input") {
                Ok(text) => text,
                Err(e) => {
                    println!("{}", canonical(&e.diagnostics()));
                    return Err(format!("{e}"));
                }
            };
            let manifest = manifest_named(manifest, variant.as_deref())?;
            let checked = match format {
                Kind::Mfen => canonical_mfen(text, manifest.as_ref()).map(|(_, t)| t),
                Kind::Mpk => mpk::canonicalize(text, manifest.as_ref()),
                Kind::Mstate => {
                    mstate::read(text, manifest.as_ref()).and_then(|_| parse(text).map(|v| canonical(&v)))
                }
                Kind::Mifpos => {
                    mifpos::read(text, manifest.as_ref()).and_then(|_| parse(text).map(|v| canonical(&v)))
                }
                Kind::Mrs => Manifest::parse(text).map(|m| {
                    eprintln!("semanticDigest {}", m.semantic_digest);
                    eprintln!("documentDigest {}", m.document_digest);
                    m.canonical()
                }),
            };
            match checked {
                Ok(t) => {
                    println!("{t}");
                    Ok(())
                }
                Err(e) => {
                    println!("{}", canonical(&e.diagnostics()));
                    Err(format!("{e}"))
                }
            }
        }
    }
}

/// The harness's operations this adapter answers; the others are refused with
/// `unsupported/unsupported-operation` (see docs/MIF.md).
fn operate(operation: &str, payload: &Value) -> Result<Value, MifError> {
    let field = |name: &str| payload.get(name);
    let manifest = || -> Result<Option<Manifest>, MifError> {
        field("manifest").cloned().map(Manifest::from_value).transpose()
    };
    let object = |name: &str| {
        field(name).filter(|v| v.is_object()).ok_or_else(|| {
            MifError::new("syntax", "schema", format!("payload member {name} is an object"))
                .at(format!("/{name}"))
        })
    };
    let text = |name: &str| {
        field(name).and_then(Value::as_str).ok_or_else(|| {
            MifError::new("syntax", "schema", format!("payload member {name} is a string"))
                .at(format!("/{name}"))
        })
    };
    match operation {
        "capabilities" => Ok(json!({"capabilities": capabilities("mill", env!("CARGO_PKG_VERSION"))})),
        "canonicalize" => {
            let value = text("value")?;
            let value = match text("format")? {
                "MFEN/1.0" => canonical_mfen(value, manifest()?.as_ref())?.1,
                "MPK/1.0" => {
                    let key = mpk::Key::parse(value)?;
                    key.check(manifest()?.as_ref())?;
                    key.canonical().0
                }
                other => {
                    return Err(MifError::new(
                        "unsupported",
                        "unsupported-format",
                        format!("canonicalize reads MFEN/1.0 or MPK/1.0, not {other}"),
                    ));
                }
            };
            Ok(json!({"value": value}))
        }
        "project-legal-actions" => {
            let manifest = manifest()?.ok_or_else(|| {
                MifError::new(
                    "integrity",
                    "manifest-missing",
                    "legal actions are projected under a manifest",
                )
            })?;
            Ok(json!({"document": legal_actions(&manifest, text("current")?)?}))
        }
        "execute" | "replay" => {
            // Answered by `traced` (streamed); kept here for a caller wanting a value.
            let mut trace = Vec::new();
            let mut result = traced(
                operation,
                payload,
                Some(&mut |s| {
                    trace.push(s);
                    Ok(())
                }),
            )?;
            if operation == "execute" {
                result.insert("final".into(), trace.last().cloned().unwrap_or(Value::Null));
            }
            result.insert("trace".into(), Value::Array(trace));
            Ok(Value::Object(result))
        }
        "project-logical-turns" => {
            let r = mstate::verify(object("mstate")?, manifest()?.as_ref())?;
            Ok(json!({"document": r.logical_turns()?}))
        }
        "transform" => {
            let manifest = manifest()?;
            let document = object("document")?;
            let id = text("transform")?;
            let flag = |name: &str| {
                field(name).and_then(Value::as_bool).ok_or_else(|| {
                    MifError::new(
                        "syntax",
                        "schema",
                        format!("payload member {name} is true or false"),
                    )
                    .at(format!("/{name}"))
                })
            };
            let equivalence = flag("requireEquivalence")?;
            flag("verifyReplay")?;
            let gate = |m: &Manifest| {
                if equivalence {
                    mifinv::check(field("invariance"), m, id)
                } else {
                    Ok(())
                }
            };
            match text("kind")? {
                "mifpos" => {
                    let read = mifpos::from_value(document, manifest.as_ref())?;
                    gate(&read.manifest)?;
                    Ok(json!({"document": mifpos::transform(document, manifest.as_ref(), id)?}))
                }
                "decision-state" => {
                    let manifest = manifest.ok_or_else(missing_manifest)?;
                    gate(&manifest)?;
                    let history = match field("repetitionHistory") {
                        None => None,
                        Some(Value::Array(h)) => Some(h.as_slice()),
                        Some(_) => {
                            return Err(MifError::new("syntax", "schema", "repetitionHistory is an array")
                                .at("/repetitionHistory"));
                        }
                    };
                    let moved = identity::transform_decision_state(document, &manifest, history, id)?;
                    Ok(json!({"document": moved}))
                }
                "mstate" => {
                    let m = mstate::manifest_of(document, manifest.as_ref())?;
                    gate(&m)?;
                    let (moved, r) = mstate::transform(document, manifest.as_ref(), id)?;
                    let (decision, decision_digest) = r.decision_state()?;
                    let (resumption, resumption_digest) = r.resumption_state()?;
                    Ok(json!({
                        "document": moved,
                        "decisionState": decision,
                        "decisionDigest": decision_digest,
                        "resumptionState": resumption,
                        "resumptionDigest": resumption_digest
                    }))
                }
                other => Err(MifError::new(
                    "unsupported",
                    "unsupported-profile",
                    format!("transform reads mstate, mifpos or decision-state, not {other:?}"),
                )
                .at("/kind")),
            }
        }
        other => Err(MifError::new(
            "unsupported",
            "unsupported-operation",
            format!("no operation {other:?} in MIF-INTEROP/1"),
        )),
    }
}

/// The operations whose result holds a trace (a snapshot per event).
const TRACED: [&str; 2] = ["execute", "replay"];

/// Runs `execute` or `replay`, handing each snapshot of the trace to `each`; returns
/// the result's members other than `trace` (and `execute`'s `final`, the last
/// snapshot). Every other member's name sorts before `trace`, so the trace can be
/// written last, snapshot by snapshot.
fn traced(operation: &str, payload: &Value, each: mstate::Each<'_>) -> Result<Map<String, Value>, MifError> {
    let field = |name: &str| payload.get(name);
    let schema = |name: &str, what: &str| {
        MifError::new("syntax", "schema", format!("payload member {name} is {what}")).at(format!("/{name}"))
    };
    let array = |name: &str| {
        field(name)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .ok_or_else(|| schema(name, "an array"))
    };
    let manifest = field("manifest").cloned().map(Manifest::from_value).transpose()?;
    if operation == "execute" {
        let manifest = manifest.ok_or_else(missing_manifest)?;
        let origin = field("origin")
            .and_then(Value::as_str)
            .ok_or_else(|| schema("origin", "a string"))?;
        mstate::run_each(
            &manifest,
            origin,
            array("events")?,
            array("repetitionSeed")?,
            array("preOriginClaims")?,
            each,
        )?;
        return Ok(Map::new());
    }
    let document = field("mstate")
        .filter(|v| v.is_object())
        .ok_or_else(|| schema("mstate", "an object"))?;
    let r = mstate::replay_each(document, manifest.as_ref(), each)?;
    replay_result(&r)
}

/// Writes the response to an `execute` or `replay` request: the request is run once
/// keeping only the last snapshot (so that an error is answered as one), then again
/// writing each snapshot as it is made. The memory used grows with the events, not
/// with the trace's length, which grows with the events times the window and audit.
fn write_traced(id: &Value, operation: &str, payload: &Value, out: &mut dyn Write) -> std::io::Result<()> {
    let mut last = Value::Null;
    let first = traced(
        operation,
        payload,
        Some(&mut |s| {
            last = s;
            Ok(())
        }),
    );
    let mut result = match first {
        Ok(result) => result,
        Err(e) => {
            return writeln!(
                out,
                "{}",
                canonical(&error_response(id.clone(), json!(operation), &e))
            );
        }
    };
    if operation == "execute" {
        result.insert("final".into(), last);
    }
    let head = canonical(&Value::Object(result));
    let head = head.strip_suffix('}').unwrap_or(&head);
    write!(
        out,
        "{{\"kind\":\"response\",\"operation\":{},\"protocol\":\"MIF-INTEROP/1\",\"requestId\":{},\"result\":{head}{}\"trace\":[",
        canonical(&json!(operation)),
        canonical(id),
        if head.len() > 1 { "," } else { "" },
    )?;
    let mut written = 0usize;
    let mut failed: Option<std::io::Error> = None;
    let second = traced(
        operation,
        payload,
        Some(&mut |s| {
            let sep = if written > 0 { "," } else { "" };
            written += 1;
            write!(out, "{sep}{}", canonical(&s)).map_err(|e| {
                let message = e.to_string();
                failed = Some(e);
                MifError::new("resource", "output", message)
            })
        }),
    );
    if let Some(e) = failed {
        return Err(e);
    }
    if let Err(e) = second {
        // The same request, run the same way, failed the second time only: never.
        return Err(std::io::Error::other(format!(
            "the trace could not be written again: {e}"
        )));
    }
    writeln!(out, "]}},\"status\":\"ok\"}}")
}

fn missing_manifest() -> MifError {
    MifError::new(
        "integrity",
        "manifest-missing",
        "this operation is read under a manifest, which was not given",
    )
}

/// The harness's `replay` result but its trace: the final checkpoints, and the decision
/// and resumption identities with their digests.
fn replay_result(r: &mstate::Replay) -> Result<Map<String, Value>, MifError> {
    let (decision, decision_digest) = r.decision_state()?;
    let (resumption, resumption_digest) = r.resumption_state()?;
    let mut result = Map::new();
    for (name, value) in [
        ("current", json!(r.current()?)),
        ("repetitionHistory", json!(r.history)),
        ("claims", json!(r.claims)),
        ("claimRights", r.claim_rights()),
        ("decisionState", decision),
        ("decisionDigest", json!(decision_digest)),
        ("resumptionState", resumption),
        ("resumptionDigest", json!(resumption_digest)),
    ] {
        result.insert(name.into(), value);
    }
    Ok(result)
}

/// The response to request `id` for `operation` refused with `e`.
fn error_response(id: Value, operation: Value, e: &MifError) -> Value {
    json!({
        "protocol": "MIF-INTEROP/1",
        "kind": "response",
        "requestId": id,
        "operation": operation,
        "status": "error",
        "diagnostics": e.diagnostics()
    })
}

/// A request's id, operation and payload, once its envelope is checked; else the
/// error response.
fn request(line: &str) -> Result<(Value, String, Value), Box<Value>> {
    let mut v = parse(line).map_err(|e| Box::new(error_response(Value::Null, Value::Null, &e)))?;
    let id = v.get("requestId").cloned().unwrap_or(Value::Null);
    let operation = v.get("operation").cloned().unwrap_or(Value::Null);
    let envelope = v.as_object().filter(|o| {
        o.len() == 5
            && o.get("protocol") == Some(&json!("MIF-INTEROP/1"))
            && o.get("kind") == Some(&json!("request"))
            && o.get("requestId").is_some_and(Value::is_string)
            && o.get("payload").is_some_and(Value::is_object)
    });
    match envelope.is_some() {
        true => {
            let name = operation.as_str().unwrap_or("").to_string();
            // Taken, not copied: a payload can be megabytes of events.
            let payload = v.as_object_mut().and_then(|o| o.remove("payload"));
            Ok((id, name, payload.unwrap_or(Value::Null)))
        }
        false => Err(Box::new(error_response(
            id,
            operation,
            &MifError::new(
                "syntax",
                "schema",
                "a request holds exactly protocol MIF-INTEROP/1, kind request, requestId, operation and payload",
            ),
        ))),
    }
}

/// One response line for one request line.
fn respond(line: &str) -> Value {
    let (id, operation, payload) = match request(line) {
        Ok(r) => r,
        Err(response) => return *response,
    };
    match operate(&operation, &payload) {
        Ok(result) => json!({
            "protocol": "MIF-INTEROP/1",
            "kind": "response",
            "requestId": id,
            "operation": operation,
            "status": "ok",
            "result": result
        }),
        Err(e) => error_response(id, json!(operation), &e),
    }
}

/// Writes the response line to one request line (bytes, as read): the input past
/// [`REQUEST_BYTES`] or not UTF-8 is answered with its coded error.
fn answer(line: &[u8], out: &mut dyn Write) -> std::io::Result<()> {
    let text = match limits::text(line, REQUEST_BYTES, "a request line") {
        Ok(text) => text,
        Err(e) => {
            return writeln!(
                out,
                "{}",
                canonical(&error_response(Value::Null, Value::Null, &e))
            );
        }
    };
    if text.trim().is_empty() {
        return Ok(());
    }
    match request(text) {
        Ok((id, operation, payload)) if TRACED.contains(&operation.as_str()) => {
            write_traced(&id, &operation, &payload, out)
        }
        _ => writeln!(out, "{}", canonical(&respond(text))),
    }
}

/// The adapter's loop: a response line per request line, until end of input. A line is
/// read no further than one byte past [`REQUEST_BYTES`]; the rest of a longer one is
/// skipped unread.
fn adapter() -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let failed = |e: std::io::Error| format!("cannot read standard input: {e}");
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut input)
            .take(REQUEST_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(failed)?;
        if n == 0 {
            break;
        }
        let ended = line.last() == Some(&b'\n');
        if ended {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        } else if line.len() > REQUEST_BYTES {
            // Too long: skip to the end of the line, keeping nothing of it.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let m = (&mut input)
                    .take(1 << 16)
                    .read_until(b'\n', &mut rest)
                    .map_err(failed)?;
                if m == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
        }
        answer(&line, &mut out).map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}
