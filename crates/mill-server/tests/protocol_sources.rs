//! Everything else that spells the wire protocol is checked against `protocol.rs`'s
//! enums: docs/PROTOCOL.md's tables, the migrations' CHECK on event kinds, and the
//! page's generated `static/js/wire.js`.
//!
//! Regenerate wire.js after changing an enum:
//! `MILL_WRITE_WIRE=1 cargo test -p mill-server --test protocol_sources`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mill_server::protocol::{
    ArenaMessage, ClientType, ClockEventKind, CloseCode, CommandKind, ErrorCode, PROTOCOL, PairOutcome,
    ServerType,
};
use mill_server::timecontrol;
use strum::VariantArray;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The rows of the first table after the line `heading`, as trimmed cells without the
/// header row and the separator.
fn table_after(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != heading);
    assert!(lines.next().is_some(), "PROTOCOL.md has no heading {heading:?}");
    let rows: Vec<Vec<String>> = lines
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let inner = l.trim().trim_start_matches('|').trim_end_matches('|');
            inner.split('|').map(|c| c.trim().to_string()).collect()
        })
        .collect();
    assert!(rows.len() > 2, "no table under {heading:?}");
    rows.into_iter().skip(2).collect()
}

/// The text of a cell that is exactly one code span, like "`hello`".
fn code_span(cell: &str) -> Option<&str> {
    cell.strip_prefix('`')?
        .strip_suffix('`')
        .filter(|s| !s.contains('`'))
}

/// Every code span in a cell.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The first column of a table as a set, failing on a repeated row.
fn first_column(rows: &[Vec<String>], heading: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for row in rows {
        let name = code_span(&row[0])
            .map(str::to_string)
            .unwrap_or_else(|| row[0].clone());
        assert!(set.insert(name.clone()), "{heading}: {name} is listed twice");
    }
    set
}

fn set<'a>(names: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    names.into_iter().map(str::to_string).collect()
}

#[test]
fn protocol_md_lists_exactly_the_message_types() {
    let doc = read("docs/PROTOCOL.md");
    let client = first_column(&table_after(&doc, "### Client → server"), "client types");
    assert_eq!(client, set(ClientType::all().map(ClientType::as_str)));
    let server = first_column(&table_after(&doc, "### Server → client"), "server types");
    assert_eq!(server, set(ServerType::VARIANTS.iter().map(|t| t.as_str())));
}

#[test]
fn protocol_md_lists_exactly_the_error_codes() {
    let doc = read("docs/PROTOCOL.md");
    let rows = table_after(&doc, "### Error codes");
    let (core, own): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r[0] == "*core codes*");
    assert_eq!(core.len(), 1, "one row for mill-core's codes");
    let own = first_column(&own, "error codes");
    assert_eq!(own, set(ErrorCode::VARIANTS.iter().map(|c| c.as_str())));
    // mill-core's codes are its own; none may stand in for one of the server's.
    let core = code_spans(&core[0][1]);
    assert!(core.len() > 5, "the core codes row names its examples");
    for code in core {
        assert!(code.parse::<ErrorCode>().is_err(), "{code} is a server code");
    }
}

#[test]
fn protocol_md_lists_exactly_the_arena_messages() {
    let doc = read("docs/PROTOCOL.md");
    let rows = table_after(&doc, "#### Arena socket messages");
    let documented = first_column(&rows, "arena messages");
    assert_eq!(documented, set(ArenaMessage::VARIANTS.iter().map(|m| m.as_str())));
}

#[test]
fn protocol_md_lists_exactly_the_pair_outcomes() {
    let doc = read("docs/PROTOCOL.md");
    let rows = table_after(&doc, "#### Pair outcomes");
    let documented = first_column(&rows, "pair outcomes");
    assert_eq!(documented, set(PairOutcome::VARIANTS.iter().map(|o| o.as_str())));
    // None of them is an error code: nobody coming is an answer (200), not a refusal.
    for outcome in PairOutcome::VARIANTS {
        assert!(
            outcome.as_str().parse::<ErrorCode>().is_err(),
            "{outcome} is an error code"
        );
    }
}

#[test]
fn protocol_md_lists_exactly_the_close_codes() {
    let doc = read("docs/PROTOCOL.md");
    let rows = table_after(&doc, "## WebSocket close codes");
    let documented = first_column(&rows, "close codes");
    let codes: BTreeSet<String> = CloseCode::VARIANTS.iter().map(|c| c.code().to_string()).collect();
    assert_eq!(documented, codes);
}

/// The kinds listed by each `kind IN (…)` CHECK in `sql`.
fn kind_checks(sql: &str) -> Vec<BTreeSet<String>> {
    let mut checks = Vec::new();
    let mut rest = sql;
    while let Some(at) = rest.find("kind IN (") {
        let list = &rest[at + "kind IN (".len()..];
        let end = list.find(')').expect("the list closes");
        checks.push(
            list[..end]
                .split(',')
                .map(|s| s.trim().trim_matches('\'').to_string())
                .collect(),
        );
        rest = &list[end..];
    }
    checks
}

/// The CHECK constraints on `events.kind` in every migration that has one, for each
/// backend (a shipped migration is never edited, so a new kind needs a new migration):
/// the commands and the clock's own events.
#[test]
fn migrations_check_exactly_the_command_kinds() {
    let kinds = set(CommandKind::VARIANTS
        .iter()
        .map(|k| k.as_str())
        .chain(ClockEventKind::VARIANTS.iter().map(|k| k.as_str())));
    // SQLite: one directory per migration, each with an up.sql.
    let mut dirs: Vec<_> = std::fs::read_dir(repo().join("migrations/sqlite"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    // PostgreSQL: one file per migration.
    let mut files: Vec<_> = std::fs::read_dir(repo().join("migrations/postgres"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for (backend, paths) in [
        (
            "sqlite",
            dirs.into_iter().map(|d| d.join("up.sql")).collect::<Vec<_>>(),
        ),
        ("postgres", files),
    ] {
        let mut checks = Vec::new();
        for path in paths {
            let sql = std::fs::read_to_string(&path).unwrap();
            checks.extend(kind_checks(&sql).into_iter().map(|c| (path.clone(), c)));
        }
        assert!(!checks.is_empty(), "{backend}: the events table checks its kinds");
        // Only the newest definition of the table binds; older ones were replaced.
        let (path, newest) = checks.last().unwrap();
        assert_eq!(newest, &kinds, "{}", path.display());
    }
}

fn screaming(kebab: &str) -> String {
    kebab.replace('-', "_").to_uppercase()
}

fn js_strings(out: &mut String, doc: &str, name: &str, values: impl IntoIterator<Item = &'static str>) {
    writeln!(out, "\n/** {doc} */\nexport const {name} = Object.freeze({{").unwrap();
    for v in values {
        writeln!(out, "  {}: '{v}',", screaming(v)).unwrap();
    }
    out.push_str("});\n");
}

/// The page's copy of the protocol's names and numbers.
fn wire_js() -> String {
    let mut out = String::from(
        "// Generated from crates/mill-server/src/protocol.rs; do not edit. After changing the\n\
         // protocol's enums, regenerate it with\n\
         //   MILL_WRITE_WIRE=1 cargo test -p mill-server --test protocol_sources\n\
         // (the same test fails while this file differs from what the enums give).\n",
    );
    writeln!(
        out,
        "\n/** The protocol version this page speaks. */\nexport const PROTOCOL = {PROTOCOL};"
    )
    .unwrap();
    js_strings(
        &mut out,
        "Types of the messages a client sends.",
        "CLIENT_TYPES",
        ClientType::all().map(ClientType::as_str),
    );
    js_strings(
        &mut out,
        "Types of the messages the server sends.",
        "SERVER_TYPES",
        ServerType::VARIANTS.iter().map(|t| t.as_str()),
    );
    js_strings(
        &mut out,
        "The server's error codes; an action the rules refuse carries mill-core's code instead.",
        "ERROR_CODES",
        ErrorCode::VARIANTS.iter().map(|c| c.as_str()),
    );
    js_strings(
        &mut out,
        "The `outcome` of a quick-pairing answer (`POST /api/pair`): an opponent came, or nobody did.",
        "PAIR_OUTCOMES",
        PairOutcome::VARIANTS.iter().map(|o| o.as_str()),
    );
    js_strings(
        &mut out,
        "Types of the messages an arena socket sends (`GET /api/arenas/{id}/ws`).",
        "ARENA_MESSAGES",
        ArenaMessage::VARIANTS.iter().map(|m| m.as_str()),
    );
    writeln!(
        out,
        "\n/** The bounds of a time control (`bad-clock` beyond them), from timecontrol.rs. */\n\
         export const CLOCK_BOUNDS = Object.freeze({{\n  \
         MIN_INITIAL_SECS: {},\n  MAX_INITIAL_SECS: {},\n  MAX_INCREMENT_SECS: {},\n  \
         MIN_DAYS: {},\n  MAX_DAYS: {},\n}});",
        timecontrol::MIN_INITIAL_SECS,
        timecontrol::MAX_INITIAL_SECS,
        timecontrol::MAX_INCREMENT_SECS,
        timecontrol::MIN_DAYS,
        timecontrol::MAX_DAYS,
    )
    .unwrap();
    out.push_str("\n/** WebSocket close codes. */\nexport const CLOSE_CODES = Object.freeze({\n");
    for c in CloseCode::VARIANTS {
        let name: &'static str = c.into();
        writeln!(out, "  {name}: {},", c.code()).unwrap();
    }
    out.push_str("});\n");
    let finals: Vec<String> = CloseCode::VARIANTS
        .iter()
        .filter(|c| c.is_final())
        .map(|c| c.code().to_string())
        .collect();
    writeln!(
        out,
        "\n/** Close codes after which the page must not reconnect by itself. */\n\
         export const FINAL_CLOSE_CODES = Object.freeze([{}]);",
        finals.join(", ")
    )
    .unwrap();
    out
}

#[test]
fn wire_js_matches_the_protocol() {
    let path = repo().join("static/js/wire.js");
    let want = wire_js();
    if std::env::var_os("MILL_WRITE_WIRE").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "static/js/wire.js differs from protocol.rs; regenerate it with \
         MILL_WRITE_WIRE=1 cargo test -p mill-server --test protocol_sources\n--- want:\n{want}"
    );
}
