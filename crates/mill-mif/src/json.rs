//! JSON as MIF reads and writes it: I-JSON read strictly (a member name twice in one
//! object is refused, after unescaping, before anything becomes a map), RFC 8785
//! canonical bytes (JCS) for output and digests, and the `sha256:` digests over them.

use super::MifError;
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// A JSON value read with duplicate member names refused.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

/// The marker that tells a duplicate name from other parse errors.
const DUPLICATE: &str = "duplicate-member-after-unescape";

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Strict, E> {
        serde_json::Number::from_f64(v)
            .map(|n| Strict(Value::Number(n)))
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Strict, E> {
        Ok(Strict(Value::String(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(v)))
    }
    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Strict(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            if members.contains_key(&name) {
                return Err(de::Error::custom(format!("{DUPLICATE}: {name:?}")));
            }
            let Strict(v) = map.next_value()?;
            members.insert(name, v);
        }
        Ok(Strict(Value::Object(members)))
    }
}

/// Reads one I-JSON document: a duplicate member name is
/// `syntax/duplicate-member-after-unescape`, anything else unreadable `syntax/json`.
pub fn parse(text: &str) -> Result<Value, MifError> {
    if text.starts_with('\u{feff}') {
        return Err(MifError::new(
            "syntax",
            "json",
            "a byte order mark starts the text",
        ));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Strict::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    match read {
        Ok(Strict(v)) => Ok(v),
        Err(e) if e.to_string().contains(DUPLICATE) => Err(MifError::new(
            "syntax",
            DUPLICATE,
            format!("a member name occurs twice in one object: {e}"),
        )),
        Err(e) => Err(MifError::new("syntax", "json", format!("not I-JSON: {e}"))),
    }
}

/// The RFC 8785 canonical text of a value: members sorted by their UTF-16 code units,
/// no white space, strings with the minimal escapes, numbers as ECMAScript writes them.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// `sha256:` and the lowercase hex of SHA-256 over `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
}

/// The raw SHA-256 of `bytes`.
pub fn sha256_raw(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The digest of a value's canonical text.
pub fn digest(value: &Value) -> String {
    sha256(canonical(value).as_bytes())
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(v, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut names: Vec<&String> = members.keys().collect();
            names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, name) in names.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                if let Some(v) = members.get(name) {
                    write_value(v, out);
                }
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as ECMAScript's `Number.prototype.toString` writes it (RFC 8785 3.2.2.3):
/// the shortest digits that read back the same, placed by the exponent's size.
fn number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let x = n.as_f64().unwrap_or(0.0);
    if x == 0.0 {
        return "0".to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `d.ddde±x`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut exponent: i64 = exponent.parse().unwrap_or(0);
    // ECMAScript breaks a tie between two shortest digit strings (the value exactly
    // halfway) towards the even last digit; Rust's formatter may take the other.
    let exact = format!("{:.60e}", x.abs());
    if let Some((m, e)) = exact.split_once('e') {
        let all: String = m.chars().filter(char::is_ascii_digit).collect();
        let k = digits.len();
        let tie = all.len() > k + 1 && all.as_bytes()[k] == b'5' && all[k + 1..].bytes().all(|b| b == b'0');
        let truncated = &all[..k];
        let even = truncated.bytes().last().is_some_and(|d| (d - b'0') % 2 == 0);
        if tie && even && truncated != digits {
            let e: i64 = e.parse().unwrap_or(exponent);
            let candidate = format!("{}.{}e{e}", &truncated[..1], &truncated[1..]);
            if candidate.parse::<f64>().ok() == Some(x.abs()) {
                digits = truncated.to_string();
                exponent = e;
            }
        }
    }
    let k = digits.len() as i64;
    let n = exponent + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let (first, rest) = digits.split_at(1);
        let sign = if n - 1 < 0 { '-' } else { '+' };
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        format!("{first}{frac}e{sign}{}", (n - 1).abs())
    };
    if x < 0.0 { format!("-{body}") } else { body }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_names_are_refused_after_unescaping() {
        let e = parse(r#"{"a":1,"\u0061":2}"#).unwrap_err();
        assert_eq!(e.code, DUPLICATE);
        assert_eq!(e.category, "syntax");
        assert_eq!(parse(r#"{"a":[1,{"b":2,"b":3}]}"#).unwrap_err().code, DUPLICATE);
        assert_eq!(parse(r#"{"a":1} x"#).unwrap_err().code, "json");
        assert_eq!(parse(r#""\ud800""#).unwrap_err().code, "json", "a lone surrogate");
        assert!(parse(r#"{"a":1,"b":{"a":2}}"#).is_ok());
    }

    #[test]
    fn canonical_text_follows_rfc_8785() {
        let v = parse(r#"{ "b": [1, true, null], "a": "x\n\u00e9\u001f", "": {} }"#).unwrap();
        assert_eq!(
            canonical(&v),
            "{\"\":{},\"a\":\"x\\n\u{e9}\\u001f\",\"b\":[1,true,null]}"
        );
        // Names sort by UTF-16 code units: U+E000 after U+10000's surrogate pair.
        let v = parse("{\"\u{e000}\":1,\"\u{10000}\":2}").unwrap();
        assert_eq!(canonical(&v), "{\"\u{10000}\":2,\"\u{e000}\":1}");
        // RFC 8785's number examples.
        for (text, want) in [
            ("-0.0", "0"),
            ("0.000001", "0.000001"),
            ("1e-7", "1e-7"),
            ("333333333.3333333", "333333333.3333333"),
            ("1424953923781206.2", "1424953923781206.2"),
            ("5e-324", "5e-324"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("9007199254740991", "9007199254740991"),
        ] {
            assert_eq!(canonical(&parse(text).unwrap()), want, "{text}");
        }
    }

    #[test]
    fn digests_are_lowercase_sha256() {
        assert_eq!(
            sha256(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
