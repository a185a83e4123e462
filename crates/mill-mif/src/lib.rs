//! The Mill Interchange Format 1.0 (MIF) beyond the MFEN position ([`mill_core::mfen`]):
//! what other Mill programs exchange besides a bare position.
//!
//! - [`mrs`]: MRS/1.0 rule-set manifests: validation, the `mrs-semantic-v1` projection
//!   and both digests (`semanticDigest`, `documentDigest`), and the mapping between a
//!   manifest and this crate's [`Rules`](mill_core::Rules) — a manifest naming rules this
//!   crate does not play is refused (`unsupported/unsupported-ruleset`), never
//!   approximated.
//! - [`mpk`]: MPK/1.0 structural keys (`structural-d4-v1`): reading, the canonical
//!   (least) orientation, and the key of a position.
//! - [`transform`]: the board's eight symmetries (Annex A's D4 order) and the
//!   outer/inner ring exchange, on points, boards and MFEN records.
//! - [`identity`]: repetition observations, the `reset-count-smt-v1` sparse Merkle
//!   summary, `decision-state-v1` and their digests.
//! - [`mstate`]: MSTATE/1.0, a whole game (envelope, origin, events, checkpoints),
//!   written for and replayed under the rule sets this crate plays.
//! - [`legal`]: the `legal-actions-v1` projection the interoperability harness compares.
//! - [`capabilities`]: this implementation's MIFCAP/1.0 object.
//! - [`json`]: strict I-JSON reading and RFC 8785 canonical JSON (JCS).
//! - [`limits`]: how large an input this implementation reads (`resource` past them).
//!
//! Every failure is a [`MifError`] with the specification's category and code where it
//! names one; [`MifError::diagnostics`] wraps errors as a MIFDIAG/1.0 object.
//!
//! - [`mifpos`]: MIFPOS/1.0 positions with their envelopes; [`mifinv`]: MIFINV/1.0
//!   invariance declarations (the equivalence gate); [`mifconv`]: conversions between
//!   MIF 1.0 formats reported as MIFCONV/1.0.
//!
//! Not implemented: whole games under rules this crate does not play (board-full
//! removals, captures other than by mills, …), adjudication, conversion from MIF 0.4 —
//! see `docs/MIF.md`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use serde_json::{Map, Value, json};

pub mod capabilities;
pub mod identity;
pub mod json;
pub mod legal;
pub mod limits;
pub mod mifconv;
pub mod mifinv;
pub mod mifpos;
pub mod mpk;
pub mod mrs;
pub mod mstate;
pub mod transform;

/// The state profile of the 24-point board.
pub const STATE_PROFILE: &str = "mill24-state-v1";

/// One MIF diagnostic: a category and code the specification registers (or a code of
/// this implementation's, in the same categories), where it happened, and words for
/// people (which programs never parse).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MifError {
    /// One of `syntax`, `canonical`, `unsupported`, `integrity`, `inconsistent`,
    /// `ineligible`, `replay`, `conversion`, `resource`, `unreachable`.
    pub category: &'static str,
    /// The code, like `semantic-digest-mismatch`.
    pub code: String,
    /// A JSON Pointer (RFC 6901) to the member at fault, when the input is JSON.
    pub instance_path: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl MifError {
    /// An error without a location.
    pub fn new(category: &'static str, code: impl Into<String>, message: impl Into<String>) -> MifError {
        MifError {
            category,
            code: code.into(),
            instance_path: None,
            message: message.into(),
        }
    }

    /// The same error located at `path` (a JSON Pointer).
    pub fn at(mut self, path: impl Into<String>) -> MifError {
        self.instance_path = Some(path.into());
        self
    }

    /// The error as one MIFDIAG/1.0 error object.
    pub fn to_json(&self) -> Value {
        let mut e = Map::new();
        e.insert("category".into(), json!(self.category));
        e.insert("code".into(), json!(self.code));
        if let Some(path) = &self.instance_path {
            e.insert("instancePath".into(), json!(path));
        }
        e.insert("message".into(), json!(self.message));
        Value::Object(e)
    }

    /// An MFEN refusal in MIF's categories (its code is kept).
    pub fn from_mfen(e: mill_core::mfen::MfenError) -> MifError {
        let category = match e.code() {
            "unsupported-format" | "unsupported-profile" | "unsupported-extension" => "unsupported",
            "syntax" => "syntax",
            "unrepresentable-under-profile" => "conversion",
            _ => "inconsistent",
        };
        MifError::new(category, e.code(), e.to_string())
    }

    /// A complete MIFDIAG/1.0 object holding this error.
    pub fn diagnostics(&self) -> Value {
        json!({"format": "MIFDIAG/1.0", "errors": [self.to_json()]})
    }
}

impl core::fmt::Display for MifError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}/{}: {}", self.category, self.code, self.message)?;
        if let Some(path) = &self.instance_path {
            write!(f, " (at {path:?})")?;
        }
        Ok(())
    }
}

impl std::error::Error for MifError {}

/// A member of a closed JSON object being read, with its JSON Pointer for errors.
#[derive(Clone)]
pub(crate) struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

/// A JSON Pointer token (RFC 6901 escapes).
fn token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

pub(crate) fn schema(path: &str, message: impl Into<String>) -> MifError {
    MifError::new("syntax", "schema", message).at(path)
}

impl<'a> Obj<'a> {
    /// `value` as an object, or a schema error at `path`.
    pub(crate) fn of(value: &'a Value, path: &str) -> Result<Obj<'a>, MifError> {
        match value {
            Value::Object(map) => Ok(Obj {
                map,
                path: path.to_string(),
            }),
            _ => Err(schema(path, "an object is expected here")),
        }
    }

    pub(crate) fn path_of(&self, name: &str) -> String {
        format!("{}/{}", self.path, token(name))
    }

    /// Refuses members outside `required` and `optional`, and missing required ones.
    pub(crate) fn closed(&self, required: &[&str], optional: &[&str]) -> Result<(), MifError> {
        let mut names: Vec<&String> = self.map.keys().collect();
        names.sort();
        for name in names {
            if !required.contains(&name.as_str()) && !optional.contains(&name.as_str()) {
                return Err(schema(
                    &self.path_of(name),
                    format!("member {name:?} is not allowed here"),
                ));
            }
        }
        for name in required {
            if !self.map.contains_key(*name) {
                return Err(schema(&self.path, format!("member {name:?} is required")));
            }
        }
        Ok(())
    }

    pub(crate) fn get(&self, name: &str) -> Result<&'a Value, MifError> {
        self.map
            .get(name)
            .ok_or_else(|| schema(&self.path, format!("member {name:?} is required")))
    }

    pub(crate) fn opt(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name)
    }

    pub(crate) fn str(&self, name: &str) -> Result<&'a str, MifError> {
        self.get(name)?
            .as_str()
            .ok_or_else(|| schema(&self.path_of(name), format!("{name} is a string")))
    }

    /// A string that must be one of `allowed`.
    pub(crate) fn one_of(&self, name: &str, allowed: &[&str]) -> Result<&'a str, MifError> {
        let s = self.str(name)?;
        if allowed.contains(&s) {
            Ok(s)
        } else {
            Err(schema(
                &self.path_of(name),
                format!("{name} is one of {}, not {s:?}", allowed.join(", ")),
            ))
        }
    }

    /// An exact integer from 0 to 2^53 - 1.
    pub(crate) fn uint(&self, name: &str) -> Result<u64, MifError> {
        let v = self.get(name)?;
        match v.as_u64() {
            Some(n) if n < (1 << 53) => Ok(n),
            Some(_) => Err(
                MifError::new("syntax", "integer-out-of-range", format!("{name} is too large"))
                    .at(self.path_of(name)),
            ),
            // A whole number past u64 reads as a float: still an integer, too large.
            None if v.as_f64().is_some_and(|x| x >= 0.0 && x.fract() == 0.0) => {
                Err(
                    MifError::new("syntax", "integer-out-of-range", format!("{name} is too large"))
                        .at(self.path_of(name)),
                )
            }
            None => Err(schema(
                &self.path_of(name),
                format!("{name} is a non-negative integer"),
            )),
        }
    }

    pub(crate) fn obj(&self, name: &str) -> Result<Obj<'a>, MifError> {
        Obj::of(self.get(name)?, &self.path_of(name))
    }
}

/// Whether `s` is a MIF identifier: 1 to 63 of `a-z 0-9 . -`, starting with a letter or
/// digit.
pub fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'.' || *c == b'-')
}

/// Whether `s` is a digest in MIF's lexical form: `sha256:` and 64 lowercase hex digits.
pub fn is_digest(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    })
}
