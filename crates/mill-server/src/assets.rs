//! The page's files, held in memory: read once at start-up, versioned, compressed
//! (brotli and gzip) and served with validators and cache headers.
//!
//! **Versioning.** A release's version is a hash of every file under the static
//! directory. Each reference from one served file to another (`href="/style.css"`,
//! `import … from './board.js'`, `new URL('mill_wasm_bg.wasm', import.meta.url)`) is
//! rewritten to carry `?v=<version>`, and a request with the current version is cached
//! for a year as `immutable`; everything else — HTML, and files asked for without the
//! current version — is `no-cache` (revalidated with its ETag or Last-Modified). So a
//! warm visit costs one revalidation of the HTML and nothing else, and a new release is
//! never stale: its HTML names new URLs. Only quoted strings that resolve to a file that
//! exists are rewritten, so text that merely looks like a file name is left alone.
//!
//! **Compression** runs on a background thread at start-up (brotli at its best quality
//! is slow: about a second for the page in a release build); until a file's compressed
//! forms are ready it is served as is. An endgame table's forms are made once and kept
//! beside it ([`Asset::kept`]): compressing Six's and Twelve's 45 MB took most of a
//! minute of CPU, which a server starting under load paid at every start.
//!
//! **Endgame tables** (`mill tb generate`'s `*.mtb` files, from `--tb-dir`) are served
//! the same way under `/tb/<file>`, each versioned by a hash of its own bytes (a new
//! release does not make the browser fetch unchanged tables again), and listed in
//! `/tb/manifest.json` (revalidated) with their rule set, material, URL and size, which is
//! how the page's engine worker finds them. A file that is not a whole table is left
//! out (and logged). A rule set solved whole has a placing table beside its endgame
//! tables (`six-placing.mtp`): it is served the same way and listed under `placing` in
//! the manifest (rule set, URL, size, positions), for the Perfect level.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mill_engine::tb::{FileHeader, Placing};
use sha2::{Digest, Sha256};

/// Files no larger than this are compressed (the wasm is about 270 KiB; an endgame table
/// of 4 v 4 is 14.7 MB).
const MAX_COMPRESSED: usize = 64 * 1024 * 1024;
/// Where the endgame tables are served, and their manifest.
pub const TABLES_PREFIX: &str = "tb/";
/// The content type of an endgame table file.
const TABLE_MIME: &str = "application/vnd.mill-tablebase";
/// The manifest of the endgame tables, under [`TABLES_PREFIX`].
pub const TABLES_MANIFEST: &str = "tb/manifest.json";
/// Smaller files gain nothing from compression.
const MIN_COMPRESSED: usize = 512;
/// Cache-Control of a file asked for with the current version.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Cache-Control of everything else.
pub const REVALIDATE: &str = "no-cache";

/// One file, as served.
#[derive(Debug)]
struct Asset {
    mime: &'static str,
    raw: Bytes,
    br: OnceLock<Option<Bytes>>,
    gz: OnceLock<Option<Bytes>>,
    /// Hash of `raw`, the base of its ETags.
    tag: String,
    last_modified: String,
    modified: SystemTime,
    /// The `v=` that makes a request for it `immutable` (the release's version, or a
    /// table's own hash).
    version: Arc<str>,
    /// Whether compressing it is worth trying.
    compress: bool,
    /// Where its compressed forms are kept between starts (beside an endgame table),
    /// `None`: made at every start (the page's files: small, and they change).
    keep: Option<PathBuf>,
}

impl Asset {
    fn new(name: &str, bytes: Vec<u8>, modified: SystemTime, version: Arc<str>) -> Asset {
        let mime = mime(name);
        let compress = (MIN_COMPRESSED..=MAX_COMPRESSED).contains(&bytes.len())
            && (mime.starts_with("text/")
                || mime.starts_with("application/javascript")
                || mime.starts_with("application/json")
                || mime == "application/wasm"
                || mime == "image/svg+xml"
                || mime == TABLE_MIME);
        Asset {
            mime,
            tag: hex(&Sha256::digest(&bytes)[..8]),
            raw: Bytes::from(bytes),
            br: OnceLock::new(),
            gz: OnceLock::new(),
            last_modified: httpdate::fmt_http_date(modified),
            modified,
            version,
            compress,
            keep: None,
        }
    }

    /// A compressed form made by `make`, kept on disk beside the file when it has a
    /// place there ([`Asset::keep`]) and read back at the next start instead of being
    /// made again. The kept file's name carries the file's hash and how the form was
    /// made (`nine-3v3.mtb.<hash>.q9.br`), so a changed table or another build's level
    /// never reads a stale form; an empty file records that compressing did not make it
    /// smaller. It is written under a name of this process's own and renamed, so a
    /// crash or a second instance never leaves half a file, and forms of earlier
    /// versions of the file are deleted. A directory that cannot be written (read-only)
    /// costs the CPU at every start, as before, and says so in the log.
    fn kept(&self, form: &str, make: impl FnOnce() -> Option<Bytes>) -> Option<Bytes> {
        let Some(file) = &self.keep else {
            return make();
        };
        let Some(stem) = file.file_name().and_then(|n| n.to_str()) else {
            return make();
        };
        let path = file.with_file_name(format!("{stem}.{}.{form}", self.tag));
        if let Ok(bytes) = std::fs::read(&path) {
            return (!bytes.is_empty()).then(|| Bytes::from(bytes));
        }
        let made = make();
        let tmp = file.with_file_name(format!("{stem}.{}.{form}.{}.tmp", self.tag, std::process::id()));
        let written = std::fs::write(&tmp, made.as_deref().unwrap_or_default())
            .and_then(|()| std::fs::rename(&tmp, &path));
        match written {
            Ok(()) => {
                let stale = |name: &str| {
                    name.starts_with(&format!("{stem}."))
                        && name.ends_with(&format!(".{form}"))
                        && name.split('.').count() == stem.split('.').count() + form.split('.').count() + 1
                        && !name.contains(&self.tag)
                };
                if let Some(dir) = file.parent().and_then(|d| std::fs::read_dir(d).ok()) {
                    for entry in dir.flatten() {
                        if entry.file_name().to_str().is_some_and(stale) {
                            let _ = std::fs::remove_file(entry.path());
                        }
                    }
                }
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                tracing::warn!(file = %path.display(), error = %e, "a compressed table cannot be kept: it is made again at every start");
            }
        }
        made
    }
}

/// Every file of the static directory, by its URL path without the leading `/`.
#[derive(Debug, Clone)]
pub struct Assets {
    files: Arc<HashMap<String, Asset>>,
    version: Arc<str>,
}

impl Assets {
    /// Reads `dir` (hidden files and directories skipped), rewrites references, adds the
    /// endgame tables of `tables` (a directory of `*.mtb` files) under `/tb/`, and starts
    /// compressing on a background thread. A missing directory gives no files.
    pub fn load(dir: &Path, tables: Option<&Path>, download_max: u64) -> std::io::Result<Assets> {
        let mut found = Vec::new();
        if dir.is_dir() {
            walk(dir, dir, &mut found)?;
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let mut hasher = Sha256::new();
        for (name, bytes, _) in &found {
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
        let version = hex(&hasher.finalize()[..6]);
        let names: std::collections::HashSet<String> = found.iter().map(|f| f.0.clone()).collect();
        let version: Arc<str> = version.into();
        let mut files = HashMap::new();
        for (name, bytes, modified) in found {
            let bytes = if rewritable(&name) {
                match String::from_utf8(bytes) {
                    Ok(text) => rewrite(&name, &text, &names, &version).into_bytes(),
                    Err(e) => e.into_bytes(),
                }
            } else {
                bytes
            };
            let asset = Asset::new(&name, bytes, modified, version.clone());
            files.insert(name, asset);
        }
        let mut manifest = Vec::new();
        let (served, probed) = read_tables(tables, download_max)?;
        let probed: Vec<serde_json::Value> = probed
            .iter()
            .map(|(header, bytes)| {
                serde_json::json!({
                    "rules": header.rules.to_string(),
                    "class": format!("{}v{}", header.m, header.o),
                    "bytes": bytes,
                    "positions": header.positions,
                })
            })
            .collect();
        for (header, name, bytes, modified, on_disk) in served {
            let path = format!("{TABLES_PREFIX}{name}");
            let own: Arc<str> = hex(&Sha256::digest(&bytes)[..8]).into();
            manifest.push(serde_json::json!({
                "rules": header.rules.to_string(),
                "class": format!("{}v{}", header.m, header.o),
                "url": format!("/{path}?v={own}"),
                "bytes": bytes.len(),
                "positions": header.positions,
            }));
            let mut asset = Asset::new(&path, bytes, modified, own);
            asset.keep = Some(on_disk);
            files.insert(path.clone(), asset);
        }
        let mut placings = Vec::new();
        for (rules, positions, name, bytes, modified, on_disk) in read_placings(tables)? {
            let path = format!("{TABLES_PREFIX}{name}");
            let own: Arc<str> = hex(&Sha256::digest(&bytes)[..8]).into();
            placings.push(serde_json::json!({
                "rules": rules.to_string(),
                "url": format!("/{path}?v={own}"),
                "bytes": bytes.len(),
                "positions": positions,
            }));
            let mut asset = Asset::new(&path, bytes, modified, own);
            asset.keep = Some(on_disk);
            files.insert(path.clone(), asset);
        }
        let manifest = serde_json::to_vec(
            &serde_json::json!({ "tables": manifest, "placing": placings, "probed": probed }),
        )
        .expect("a list of plain values serializes");
        let manifest = Asset::new(TABLES_MANIFEST, manifest, SystemTime::now(), version.clone());
        files.insert(TABLES_MANIFEST.to_string(), manifest);
        let assets = Assets {
            files: Arc::new(files),
            version,
        };
        let background = assets.clone();
        std::thread::Builder::new()
            .name("mill-compress".into())
            .spawn(move || background.compress_all())?;
        Ok(assets)
    }

    /// The release's version, as put in `?v=`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Whether `path` (without the leading `/`) is a file.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Compresses every file now (the background thread's work; tests may call it to
    /// wait for it).
    pub fn compress_all(&self) {
        let mut names: Vec<&String> = self.files.keys().collect();
        // The page's own files first: they are what a visitor waits for.
        names.sort_by_key(|n| (!n.ends_with(".html") && !n.ends_with(".js"), n.len()));
        for name in names {
            let a = &self.files[name];
            let table = a.mime == TABLE_MIME;
            a.gz.get_or_init(|| a.compress.then(|| a.kept("gz", || gzip(&a.raw))).flatten());
            let br = format!("q{}.br", brotli_quality(table));
            a.br.get_or_init(|| {
                a.compress
                    .then(|| a.kept(&br, || brotli(&a.raw, table)))
                    .flatten()
            });
        }
    }

    /// The response for `path` (without the leading `/`), or `None` when there is no
    /// such file. `query` is the request's query string; `status` is the status of a
    /// full answer (a 404 page is served with 404).
    pub fn serve(
        &self,
        path: &str,
        query: Option<&str>,
        req: &HeaderMap,
        status: StatusCode,
    ) -> Option<Response> {
        let a = self.files.get(path)?;
        let current = query.is_some_and(|q| q.split('&').any(|kv| kv == format!("v={}", a.version)));
        let cache = if current && status.is_success() && !path.ends_with(".html") && path != TABLES_MANIFEST {
            IMMUTABLE
        } else {
            REVALIDATE
        };
        let accepts = |coding: &str| {
            req.get_all(header::ACCEPT_ENCODING)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .any(|c| {
                    let mut parts = c.trim().split(';');
                    parts
                        .next()
                        .is_some_and(|n| n.trim().eq_ignore_ascii_case(coding))
                        && !parts.any(|p| p.trim().replace(' ', "") == "q=0")
                })
        };
        let ready = |cell: &OnceLock<Option<Bytes>>| cell.get().cloned().flatten();
        let (body, coding) = match (accepts("br").then(|| ready(&a.br)).flatten(), accepts("gzip")) {
            (Some(br), _) => (br, Some("br")),
            (None, true) => match ready(&a.gz) {
                Some(gz) => (gz, Some("gzip")),
                None => (a.raw.clone(), None),
            },
            (None, false) => (a.raw.clone(), None),
        };
        let etag = match coding {
            Some(c) => format!("\"{}-{c}\"", a.tag),
            None => format!("\"{}\"", a.tag),
        };
        let mut headers = HeaderMap::new();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
        headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        if let Ok(v) = HeaderValue::from_str(&etag) {
            headers.insert(header::ETAG, v);
        }
        if let Ok(v) = HeaderValue::from_str(&a.last_modified) {
            headers.insert(header::LAST_MODIFIED, v);
        }
        if status.is_success() && self.not_modified(a, req) {
            return Some((StatusCode::NOT_MODIFIED, headers).into_response());
        }
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(a.mime));
        if let Some(c) = coding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(c));
        }
        Some((status, headers, Body::from(body)).into_response())
    }

    fn not_modified(&self, a: &Asset, req: &HeaderMap) -> bool {
        if let Some(inm) = req.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) {
            // Weak comparison, and any of the file's encodings matches: they are one
            // resource.
            return inm.split(',').any(|t| {
                let t = t.trim().trim_start_matches("W/").trim_matches('"');
                t == "*" || t.split('-').next() == Some(a.tag.as_str())
            });
        }
        if let Some(ims) = req
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| httpdate::parse_http_date(v).ok())
        {
            let secs = |t: SystemTime| {
                t.duration_since(SystemTime::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
            };
            return secs(a.modified) <= secs(ims);
        }
        false
    }
}

/// The whole table files of `dir` (`None`, or a missing directory: none), by name, with
/// their headers and paths, and (second) the headers and sizes of those over
/// `download_max` bytes, which are not read (the probe endpoint answers their positions);
/// anything else there (their kept compressed forms too) is skipped, with a warning for a
/// `.mtb` that is not a table.
#[allow(clippy::type_complexity)]
fn read_tables(
    dir: Option<&Path>,
    download_max: u64,
) -> std::io::Result<(
    Vec<(FileHeader, String, Vec<u8>, SystemTime, PathBuf)>,
    Vec<(FileHeader, u64)>,
)> {
    let Some(dir) = dir.filter(|d| d.is_dir()) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut out = Vec::new();
    let mut probed = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(String::from) else {
            continue;
        };
        if !name.ends_with(".mtb") || !entry.metadata()?.is_file() {
            continue;
        }
        let len = entry.metadata()?.len();
        if len > download_max {
            match big_table(&entry.path(), &name, len) {
                Ok(header) => probed.push((header, len)),
                Err(why) => {
                    tracing::warn!(file = %entry.path().display(), %why, "not a tablebase file: not probed")
                }
            }
            continue;
        }
        let bytes = std::fs::read(entry.path())?;
        let checked = match FileHeader::read(&bytes) {
            Ok((header, values)) if values.len() != 4 * header.positions => Err("cut short".to_string()),
            Ok((header, _)) if header.file_name() != name => {
                Err(format!("its header says {}", header.file_name()))
            }
            Ok((header, _)) => Ok(header),
            Err(e) => Err(e),
        };
        match checked {
            Ok(header) => {
                let modified = entry.metadata()?.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                out.push((header, name, bytes, modified, entry.path()));
            }
            Err(why) => {
                tracing::warn!(file = %entry.path().display(), %why, "not a tablebase file: not served")
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    probed.sort_by_key(|(h, _)| h.file_name());
    Ok((out, probed))
}

/// The header of a table too big to serve, checked as a served one is (its name, its
/// length), its values not read.
fn big_table(path: &Path, name: &str, len: u64) -> Result<FileHeader, String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(270);
    std::fs::File::open(path)
        .and_then(|f| f.take(270).read_to_end(&mut head))
        .map_err(|e| e.to_string())?;
    let (header, _) = FileHeader::read(&head)?;
    if header.file_name() != name {
        return Err(format!("its header says {}", header.file_name()));
    }
    if header.file_len() as u64 != len {
        return Err("cut short".to_string());
    }
    Ok(header)
}

/// The placing tables of `dir` (`<rules>-placing.mtp`, see [`Placing::read_header`]) with
/// their rule sets and positions; a file whose header or size is wrong, or whose name is
/// not its rule set's, is skipped with a warning. Whether it matches the endgame tables
/// beside it is the loader's to check (the page's wasm, `mill tb verify`).
#[allow(clippy::type_complexity)]
fn read_placings(
    dir: Option<&Path>,
) -> std::io::Result<Vec<(mill_core::Rules, usize, String, Vec<u8>, SystemTime, PathBuf)>> {
    let Some(dir) = dir.filter(|d| d.is_dir()) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(String::from) else {
            continue;
        };
        if !name.ends_with(".mtp") || !entry.metadata()?.is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path())?;
        let checked = match Placing::read_header(&bytes) {
            Ok((rules, _)) if Placing::file_name(rules) != name => {
                Err(format!("its header says {}", Placing::file_name(rules)))
            }
            other => other,
        };
        match checked {
            Ok((rules, positions)) => {
                let modified = entry.metadata()?.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                out.push((rules, positions, name, bytes, modified, entry.path()));
            }
            Err(why) => {
                tracing::warn!(file = %entry.path().display(), %why, "not a placing table: not served")
            }
        }
    }
    out.sort_by(|a, b| a.2.cmp(&b.2));
    Ok(out)
}

/// `None` when compression does not make it smaller.
fn gzip(raw: &[u8]) -> Option<Bytes> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(raw).ok()?;
    let out = enc.finish().ok()?;
    (out.len() < raw.len()).then(|| Bytes::from(out))
}

/// Brotli; `table`: an endgame table, where the best quality would take about 30 s of
/// CPU at every start for the four classes of 4 v 4 (3 v 4 alone 20 s) against 1 s at
/// quality 9 with a 16 MiB window, for 198 KB instead of 143 KB sent once per browser.
fn brotli(raw: &[u8], table: bool) -> Option<Bytes> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: brotli_quality(table),
        lgwin: if table { 24 } else { 22 },
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &raw[..], &mut out, &params).ok()?;
    (out.len() < raw.len()).then(|| Bytes::from(out))
}

/// Brotli's quality for a file (`table`: an endgame table, see [`brotli`]).
fn brotli_quality(table: bool) -> i32 {
    // The best quality is slow, and unoptimised builds (tests, e2e servers) would spend
    // seconds of CPU on it at every start; they get a quick level instead.
    match (cfg!(debug_assertions), table) {
        (true, _) => 5,
        (false, true) => 9,
        (false, false) => 11,
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>, SystemTime)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let path: PathBuf = entry.path();
        let meta = std::fs::metadata(&path)?;
        if meta.is_dir() {
            walk(root, &path, out)?;
        } else if meta.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let url: Vec<&str> = rel.iter().filter_map(|c| c.to_str()).collect();
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            out.push((url.join("/"), std::fs::read(&path)?, modified));
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn rewritable(name: &str) -> bool {
    [".html", ".js", ".mjs", ".css"].iter().any(|e| name.ends_with(e))
}

/// Adds `?v=version` to every quoted reference in `text` (the file `name`) that names a
/// file in `names`.
fn rewrite(name: &str, text: &str, names: &std::collections::HashSet<String>, version: &str) -> String {
    let dir = name.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = String::with_capacity(text.len() + 256);
    let mut rest = text;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = rest.as_bytes()[start];
        let after = &rest[start + 1..];
        // The string ends at the same quote on the same line (escapes skipped).
        let mut end = None;
        let mut escaped = false;
        for (i, b) in after.bytes().enumerate() {
            match b {
                b'\n' => break,
                b'\\' if !escaped => escaped = true,
                _ if b == quote && !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(end) = end else {
            out.push_str(&rest[..=start]);
            rest = after;
            continue;
        };
        let literal = &after[..end];
        out.push_str(&rest[..=start]);
        out.push_str(literal);
        if let Some(target) = resolve(dir, literal) {
            if names.contains(&target) {
                out.push_str("?v=");
                out.push_str(version);
            }
        }
        out.push(quote as char);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The file a reference names, from a file in `dir`; `None` unless it is a plain path
/// to a file with an extension.
fn resolve(dir: &str, reference: &str) -> Option<String> {
    let ok = !reference.is_empty()
        && reference.len() < 200
        && reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"./_-".contains(&b))
        && !reference.contains("//")
        && reference
            .rsplit('/')
            .next()
            .is_some_and(|f| f.contains('.') && !f.ends_with('.'));
    if !ok {
        return None;
    }
    let mut parts: Vec<&str> = if reference.starts_with('/') {
        Vec::new()
    } else {
        dir.split('/').filter(|p| !p.is_empty()).collect()
    };
    for p in reference.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

fn mime(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "application/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "mtb" | "mtp" => TABLE_MIME,
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "webp" => "image/webp",
        "woff2" => "font/woff2",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_s_compressed_form_is_made_once_and_kept_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("nine-3v3.mtb");
        let table = |bytes: &[u8]| {
            let mut a = Asset::new("tb/nine-3v3.mtb", bytes.to_vec(), SystemTime::now(), "v".into());
            a.keep = Some(file.clone());
            a
        };
        let made = std::cell::Cell::new(0);
        let make = |out: &'static [u8]| {
            made.set(made.get() + 1);
            Some(Bytes::from_static(out))
        };
        let first = table(b"one table");
        assert_eq!(
            first.kept("q9.br", || make(b"small")).as_deref(),
            Some(&b"small"[..])
        );
        assert_eq!(
            first.kept("q9.br", || make(b"other")).as_deref(),
            Some(&b"small"[..])
        );
        assert_eq!(made.get(), 1, "read back, not made again");
        // Another build's level is another form; "not smaller" is kept too.
        assert_eq!(first.kept("q5.br", || None), None);
        assert_eq!(first.kept("q5.br", || make(b"x")), None);
        assert_eq!(made.get(), 1);
        // The table changed: its new form is made, and the old one goes.
        let second = table(b"the table, regenerated");
        assert_eq!(
            second.kept("q9.br", || make(b"new")).as_deref(),
            Some(&b"new"[..])
        );
        assert_eq!(made.get(), 2);
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let mut kept = [
            format!("nine-3v3.mtb.{}.q5.br", first.tag),
            format!("nine-3v3.mtb.{}.q9.br", second.tag),
        ];
        kept.sort();
        assert_eq!(names, kept);
        // A file without a place to keep its forms makes them every time.
        let page = Asset::new("index.html", b"page".to_vec(), SystemTime::now(), "v".into());
        page.kept("gz", || make(b"a"));
        page.kept("gz", || make(b"a"));
        assert_eq!(made.get(), 4);
    }

    #[test]
    fn references_to_existing_files_get_the_version() {
        let names: std::collections::HashSet<String> = [
            "js/main.js",
            "js/board.js",
            "pkg/mill_wasm.js",
            "pkg/mill_wasm_bg.wasm",
            "style.css",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        let js = "import { a } from './board.js';\nimport('/pkg/mill_wasm.js');\nconst s = 'it\\'s ./board.js';\nconst n = './nope.js';\nconst u = \"https://x/js/board.js\";";
        let out = rewrite("js/main.js", js, &names, "abc");
        assert!(out.contains("'./board.js?v=abc'"), "{out}");
        assert!(out.contains("'/pkg/mill_wasm.js?v=abc'"), "{out}");
        assert!(out.contains("'./nope.js'"), "{out}");
        assert!(out.contains("\"https://x/js/board.js\""), "{out}");
        let glue = "new URL('mill_wasm_bg.wasm', import.meta.url)";
        assert!(rewrite("pkg/mill_wasm.js", glue, &names, "v1").contains("'mill_wasm_bg.wasm?v=v1'"));
        let html = r#"<link href="/style.css"><a href="/rules">x</a><script src="/js/main.js"></script>"#;
        let out = rewrite("index.html", html, &names, "9");
        assert_eq!(
            out,
            r#"<link href="/style.css?v=9"><a href="/rules">x</a><script src="/js/main.js?v=9"></script>"#
        );
        assert_eq!(
            resolve("js", "../pkg/mill_wasm.js").as_deref(),
            Some("pkg/mill_wasm.js")
        );
        assert_eq!(resolve("", "../x.js"), None);
    }
}
