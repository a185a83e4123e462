//! MIFPOS/1.0: one MFEN position with the rule-set envelope it is read under (the
//! manifest inside, `portable`, or named by identity and digests, `reference`), and
//! its coordinate transforms.

use super::json::parse;
use super::legal::canonical_mfen;
use super::mrs::Manifest;
use super::mstate::envelope;
use super::{MifError, Obj, STATE_PROFILE};
use serde_json::{Value, json};

/// A MIFPOS document read: its manifest and its position in canonical MFEN.
#[derive(Clone, Debug)]
pub struct Mifpos {
    /// The manifest the envelope carries or names.
    pub manifest: Manifest,
    /// The position, canonical MFEN under the manifest.
    pub position: String,
}

/// Reads a MIFPOS/1.0 document (a parsed JSON value). A reference envelope is read
/// with the caller's manifest (`manifest-missing` without one); the position must be
/// canonical MFEN the manifest's rules can hold.
pub fn from_value(value: &Value, caller: Option<&Manifest>) -> Result<Mifpos, MifError> {
    let doc = Obj::of(value, "")?;
    doc.closed(
        &["format", "positionFormat", "stateProfile", "ruleset", "position"],
        &["annotations", "extensions"],
    )?;
    doc.one_of("format", &["MIFPOS/1.0"])?;
    doc.one_of("positionFormat", &["MFEN/1.0"])?;
    doc.one_of("stateProfile", &[STATE_PROFILE])?;
    if let Some(a) = doc.opt("annotations")
        && !a.is_object()
    {
        return Err(super::schema("/annotations", "annotations is an object"));
    }
    if let Some(e) = doc.opt("extensions") {
        return Err(match e.as_array() {
            Some(a) if !a.is_empty() => MifError::new(
                "unsupported",
                "unsupported-profile",
                "no MIFPOS extension is implemented",
            )
            .at("/extensions/0"),
            _ => super::schema("/extensions", "extensions is omitted when empty"),
        });
    }
    let manifest = envelope(&doc, caller)?;
    let text = doc.str("position")?;
    let (_, canonical) = canonical_mfen(text, Some(&manifest)).map_err(|e| e.at("/position"))?;
    if canonical != text {
        return Err(MifError::new(
            "canonical",
            "non-canonical",
            format!("the position is not canonical MFEN (canonical: {canonical})"),
        )
        .at("/position"));
    }
    Ok(Mifpos {
        manifest,
        position: canonical,
    })
}

/// Reads a MIFPOS/1.0 document from its text.
pub fn read(text: &str, caller: Option<&Manifest>) -> Result<Mifpos, MifError> {
    from_value(&parse(text)?, caller)
}

/// The MIFPOS/1.0 document of a canonical MFEN position under `manifest`: portable
/// (the manifest inside) or a reference by identity and digests.
pub fn write(manifest: &Manifest, position: &str, portable: bool) -> Value {
    let mut ruleset = json!({
        "mode": if portable { "portable" } else { "reference" },
        "id": manifest.id,
        "version": manifest.version,
        "semanticDigest": manifest.semantic_digest,
        "documentDigest": manifest.document_digest,
    });
    if portable && let Some(r) = ruleset.as_object_mut() {
        r.insert("manifest".into(), manifest.document.clone());
    }
    json!({
        "format": "MIFPOS/1.0",
        "positionFormat": "MFEN/1.0",
        "stateProfile": STATE_PROFILE,
        "ruleset": ruleset,
        "position": position
    })
}

/// The document with its position moved by the transform `id` (Annex A); everything
/// else (the envelope, annotations) is kept as it was.
pub fn transform(value: &Value, caller: Option<&Manifest>, id: &str) -> Result<Value, MifError> {
    let read = from_value(value, caller)?;
    let moved = super::transform::mfen(&read.position, id)?;
    let (_, canonical) = canonical_mfen(&moved, Some(&read.manifest))?;
    let mut out = value.clone();
    if let Some(o) = out.as_object_mut() {
        o.insert("position".into(), json!(canonical));
    }
    Ok(out)
}
