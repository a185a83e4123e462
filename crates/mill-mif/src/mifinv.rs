//! MIFINV/1.0: a declaration that a rule set (by its exact semantic digest) is
//! invariant under listed board transforms, which the equivalence gate (clause 14.2)
//! demands before a transform may be used to merge or normalise states.

use super::json::digest;
use super::mrs::Manifest;
use super::transform::{TRANSFORMS, ordinal};
use super::{MifError, Obj, STATE_PROFILE, schema};
use serde_json::{Value, json};

/// The transform profile MIF 1.0 defines for the 24-point board.
pub const TRANSFORM_PROFILE: &str = "mill24-full-state-v1";

/// Checks that `declaration` (a MIFINV/1.0 document, or none) covers `transform`
/// under `manifest`: `ineligible/transform-invariance-undeclared` without one or when
/// it covers another rule set or transform, `integrity/document-digest-mismatch` when
/// its digest is wrong, `unsupported/unsupported-profile` for extension treatments.
pub fn check(declaration: Option<&Value>, manifest: &Manifest, transform: &str) -> Result<(), MifError> {
    let undeclared = |what: &str| {
        MifError::new(
            "ineligible",
            "transform-invariance-undeclared",
            format!("equivalence needs an invariance declaration (MIFINV/1.0): {what}"),
        )
    };
    let value = declaration.ok_or_else(|| undeclared("none was given"))?;
    let doc = Obj::of(value, "")?;
    doc.closed(
        &[
            "format",
            "profile",
            "semanticDigest",
            "stateProfile",
            "transformProfile",
            "transforms",
            "extensionTreatments",
            "documentDigest",
        ],
        &["annotations"],
    )?;
    doc.one_of("format", &["MIFINV/1.0"])?;
    doc.one_of("profile", &["transform-invariance-v1"])?;
    let Value::Array(transforms) = doc.get("transforms")? else {
        return Err(schema("/transforms", "transforms is an array"));
    };
    let mut last = None;
    for (i, t) in transforms.iter().enumerate() {
        let n = t.as_str().and_then(ordinal).ok_or_else(|| {
            schema(
                &format!("/transforms/{i}"),
                format!("one of {}", TRANSFORMS.join(", ")),
            )
        })?;
        if last.is_some_and(|l| l >= n) {
            return Err(MifError::new(
                "canonical",
                "set-order",
                "transforms are unique, in Annex A's order",
            )
            .at(format!("/transforms/{i}")));
        }
        last = Some(n);
    }
    if transforms.is_empty() {
        return Err(schema("/transforms", "transforms is not empty"));
    }
    let mut body = value.clone();
    if let Some(o) = body.as_object_mut() {
        o.remove("documentDigest");
    }
    if doc.str("documentDigest")? != digest(&body) {
        return Err(MifError::new(
            "integrity",
            "document-digest-mismatch",
            "the declaration's documentDigest is not the digest of the rest of it",
        )
        .at("/documentDigest"));
    }
    if doc
        .get("extensionTreatments")?
        .as_array()
        .is_none_or(|a| !a.is_empty())
    {
        return Err(MifError::new(
            "unsupported",
            "unsupported-profile",
            "no extension treatment is implemented",
        )
        .at("/extensionTreatments"));
    }
    if doc.str("semanticDigest")? != manifest.semantic_digest
        || doc.str("stateProfile")? != STATE_PROFILE
        || doc.str("transformProfile")? != TRANSFORM_PROFILE
        || !transforms.contains(&json!(transform))
    {
        return Err(undeclared("it covers another rule set, profile or transform"));
    }
    Ok(())
}

/// The MIFINV/1.0 declaration that `manifest` is invariant under `transforms` (ids in
/// Annex A's order), with its document digest.
pub fn write(manifest: &Manifest, transforms: &[&str]) -> Value {
    let mut doc = json!({
        "format": "MIFINV/1.0",
        "profile": "transform-invariance-v1",
        "semanticDigest": manifest.semantic_digest,
        "stateProfile": STATE_PROFILE,
        "transformProfile": TRANSFORM_PROFILE,
        "transforms": transforms,
        "extensionTreatments": []
    });
    let d = digest(&doc);
    if let Some(o) = doc.as_object_mut() {
        o.insert("documentDigest".into(), json!(d));
    }
    doc
}
