//! The limits this implementation reads MIF within (MIF 16.3: checked first, before the
//! grammar; past one the input is refused with a `resource/resource-limit` diagnostic,
//! never read in part). They are MIF's recommended general limits, and published in
//! the MIFCAP object ([`published`]); `docs/MIF.md` lists them.
//!
//! Replaying an MSTATE game costs time and memory in proportion to its events; the
//! harness's trace (a snapshot after every event, each holding the whole active
//! repetition window and claim audit) grows with the events times those lengths, so it
//! is bounded on its own ([`TRACE_ENTRIES`]).

use super::MifError;
use serde_json::{Value, json};

/// Bytes in an MFEN or MPK record.
pub const RECORD_BYTES: usize = 4 << 10;
/// Bytes in an MRS manifest (its canonical text when it comes inside another document)
/// or a MIFPOS document.
pub const MANIFEST_BYTES: usize = 1 << 20;
/// Bytes in an MSTATE document.
pub const MSTATE_BYTES: usize = 8 << 20;
/// Bytes in one line of the interoperability adapter (an MSTATE and a manifest fit).
pub const REQUEST_BYTES: usize = 10 << 20;
/// Nesting of JSON arrays and objects.
pub const JSON_DEPTH: usize = 64;
/// Bytes in one JSON string or member name.
pub const STRING_BYTES: usize = 64 << 10;
/// Events in an MSTATE game (or an `execute` request).
pub const EVENTS: usize = 100_000;
/// Entries in a repetition window (`repetitionHistory`, `repetitionSeed`).
pub const REPETITION_ENTRIES: usize = 100_000;
/// Records in a claim audit (`claims`, `preOriginClaims`).
pub const CLAIMS: usize = 100_000;
/// Repetition entries and claim records over all the snapshots of one trace.
pub const TRACE_ENTRIES: usize = 2_000_000;

/// The limits as MIFCAP/1.0's `resourceLimits`, sorted by name.
pub fn published() -> Vec<Value> {
    let mut limits = [
        ("claims", CLAIMS),
        ("events", EVENTS),
        ("json-depth", JSON_DEPTH),
        ("mfen-bytes", RECORD_BYTES),
        ("mifpos-bytes", MANIFEST_BYTES),
        ("mpk-bytes", RECORD_BYTES),
        ("mrs-bytes", MANIFEST_BYTES),
        ("mstate-bytes", MSTATE_BYTES),
        ("repetition-entries", REPETITION_ENTRIES),
        ("string-bytes", STRING_BYTES),
        ("trace-entries", TRACE_ENTRIES),
    ];
    limits.sort_unstable();
    limits
        .iter()
        .map(|(name, limit)| json!({"name": name, "limit": limit}))
        .collect()
}

/// The `resource/resource-limit` error for `what` past `limit`.
pub fn exceeded(what: &str, limit: usize) -> MifError {
    MifError::new(
        "resource",
        "resource-limit",
        format!("{what} exceeds this implementation's limit of {limit}"),
    )
}

/// `len` items of `what` at most `limit`, else the error at `path`.
pub fn at_most(len: usize, limit: usize, what: &str, path: &str) -> Result<(), MifError> {
    if len > limit {
        Err(exceeded(what, limit).at(path))
    } else {
        Ok(())
    }
}

/// Input bytes as text: at most `limit` of them (else `resource/resource-limit`), and
/// UTF-8 (else `syntax/invalid-utf-8`, with the offset of the first bad byte).
pub fn text<'a>(bytes: &'a [u8], limit: usize, what: &str) -> Result<&'a str, MifError> {
    if bytes.len() > limit {
        return Err(exceeded(&format!("{what} ({} bytes)", bytes.len()), limit));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        MifError::new(
            "syntax",
            "invalid-utf-8",
            format!("{what} is not UTF-8: a bad byte at offset {}", e.valid_up_to()),
        )
    })
}

/// A text's bytes, at most `limit` (else `resource/resource-limit`).
pub fn bytes(text: &str, limit: usize, what: &str) -> Result<(), MifError> {
    if text.len() > limit {
        Err(exceeded(&format!("{what} ({} bytes)", text.len()), limit))
    } else {
        Ok(())
    }
}

/// The deepest nesting of arrays and objects in a JSON text (strings skipped), stopping
/// early once past `limit`: one pass, no recursion.
pub(crate) fn json_depth(text: &str, limit: usize) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for b in text.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                if deepest > limit {
                    return deepest;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_skips_strings_and_stops_past_the_limit() {
        assert_eq!(json_depth(r#"{"a":[1,{"b":"[[[{"}]}"#, 64), 3);
        assert_eq!(json_depth(r#"["\"[["]"#, 64), 1);
        assert_eq!(json_depth(&"[".repeat(1000), 64), 65);
    }

    #[test]
    fn text_refuses_bad_utf8_and_too_many_bytes() {
        let e = text(b"{\"a\":\"\xff\"}", 100, "the input").unwrap_err();
        assert_eq!((e.category, e.code.as_str()), ("syntax", "invalid-utf-8"));
        assert!(e.message.contains("offset 6"), "{}", e.message);
        let e = text(b"12345", 4, "the input").unwrap_err();
        assert_eq!((e.category, e.code.as_str()), ("resource", "resource-limit"));
        assert_eq!(text(b"1234", 4, "the input").unwrap(), "1234");
    }
}
