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
use mill_mif::mrs::Manifest;
use mill_mif::transform::TRANSFORMS;
use mill_mif::{MifError, capabilities::capabilities};
use mill_mif::{identity, mifconv, mifinv, mifpos, mpk, mstate};
use serde_json::{Map, Value, json};
use std::io::{BufRead, Write};

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

fn rules_named(name: Option<&str>) -> Result<Option<&'static Rules>, String> {
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
                    Manifest::of_rules(rules.unwrap_or(mill_core::NINE)).map_err(|e| e.to_string())?;
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
            let text = input(file.as_deref(), text)?;
            let text = text.strip_suffix('\n').unwrap_or(&text);
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
    let array = |name: &str| {
        field(name)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .ok_or_else(|| {
                MifError::new("syntax", "schema", format!("payload member {name} is an array"))
                    .at(format!("/{name}"))
            })
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
        "execute" => {
            let manifest = manifest()?.ok_or_else(missing_manifest)?;
            let r = mstate::run(
                &manifest,
                text("origin")?,
                array("events")?,
                array("repetitionSeed")?,
                array("preOriginClaims")?,
            )?;
            let last = r.trace.last().cloned().unwrap_or(Value::Null);
            Ok(json!({"trace": r.trace, "final": last}))
        }
        "replay" => {
            let r = mstate::replay(object("mstate")?, manifest()?.as_ref())?;
            replay_result(&r)
        }
        "project-logical-turns" => {
            let r = mstate::replay(object("mstate")?, manifest()?.as_ref())?;
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

fn missing_manifest() -> MifError {
    MifError::new(
        "integrity",
        "manifest-missing",
        "this operation is read under a manifest, which was not given",
    )
}

/// The harness's `replay` result: the final checkpoints, the trace, and the decision and
/// resumption identities with their digests.
fn replay_result(r: &mstate::Replay) -> Result<Value, MifError> {
    let (decision, decision_digest) = r.decision_state()?;
    let (resumption, resumption_digest) = r.resumption_state()?;
    Ok(json!({
        "current": r.current()?,
        "trace": r.trace,
        "repetitionHistory": r.history,
        "claims": r.claims,
        "claimRights": r.claim_rights(),
        "decisionState": decision,
        "decisionDigest": decision_digest,
        "resumptionState": resumption,
        "resumptionDigest": resumption_digest
    }))
}

/// One response line for one request line.
fn respond(line: &str) -> Value {
    let request = parse(line);
    let (id, operation) = match &request {
        Ok(v) => (
            v.get("requestId").cloned().unwrap_or(Value::Null),
            v.get("operation").cloned().unwrap_or(Value::Null),
        ),
        Err(_) => (Value::Null, Value::Null),
    };
    let outcome = request.and_then(|v| {
        let envelope = v
            .as_object()
            .filter(|o| {
                o.len() == 5
                    && o.get("protocol") == Some(&json!("MIF-INTEROP/1"))
                    && o.get("kind") == Some(&json!("request"))
                    && o.get("requestId").is_some_and(Value::is_string)
                    && o.get("payload").is_some_and(Value::is_object)
            })
            .ok_or_else(|| {
                MifError::new(
                    "syntax",
                    "schema",
                    "a request holds exactly protocol MIF-INTEROP/1, kind request, requestId, operation and payload",
                )
            })?;
        let operation = envelope.get("operation").and_then(Value::as_str).unwrap_or("");
        operate(operation, envelope.get("payload").unwrap_or(&Value::Null))
    });
    let mut r = Map::new();
    r.insert("protocol".into(), json!("MIF-INTEROP/1"));
    r.insert("kind".into(), json!("response"));
    r.insert("requestId".into(), id);
    r.insert("operation".into(), operation);
    match outcome {
        Ok(result) => {
            r.insert("status".into(), json!("ok"));
            r.insert("result".into(), result);
        }
        Err(e) => {
            r.insert("status".into(), json!("error"));
            r.insert("diagnostics".into(), e.diagnostics());
        }
    }
    Value::Object(r)
}

/// The adapter's loop: a response line per request line, until end of input.
fn adapter() -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(out, "{}", canonical(&respond(&line))).map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}
