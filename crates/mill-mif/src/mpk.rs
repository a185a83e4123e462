//! MPK/1.0 structural keys: a position's board, side, phase and hands under a named
//! rule set and its semantic digest, in the least of its eight orientations
//! (`structural-d4-v1`). A key deliberately leaves out counters, history and outcome:
//! it identifies a placement of pieces for analysis, never a game to resume.
//!
//! ```text
//! MPK/1.0 mill24-state-v1 example-morris@1 sha256:… structural-d4-v1 ........................ b p 9,9
//! ```

use super::mrs::Manifest;
use super::mrs::document::PlacingEffect;
use super::transform::{TRANSFORMS, board, point_map};
use super::{MifError, STATE_PROFILE, is_digest, is_identifier};
use mill_core::Position;
use mill_core::mfen::Mfen;

/// The signature of an MPK record.
pub const SIGNATURE: &str = "MPK/1.0";
/// The key profile this crate writes and reads.
pub const KEY_PROFILE: &str = "structural-d4-v1";

/// A key read from text, before its rules are resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// `id@version` of the rule set.
    pub ruleset: String,
    /// The rule set's semantic digest.
    pub semantic_digest: String,
    /// The 24 points in ring order: `W`, `B`, `.`.
    pub board: [u8; 24],
    /// `w` or `b`.
    pub side: char,
    /// `p` or `m`.
    pub phase: char,
    /// White's and Black's pieces in hand.
    pub hands: (u64, u64),
}

fn syntax(message: impl Into<String>) -> MifError {
    MifError::new("syntax", "mpk", message)
}

fn uint(s: &str) -> Option<u64> {
    let ok = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s.len() == 1 || !s.starts_with('0'));
    ok.then(|| s.parse::<u64>().ok())
        .flatten()
        .filter(|n| *n < 1 << 53)
}

impl Key {
    /// Reads an MPK record's fields (grammar only: [`Key::check`] resolves its rules).
    pub fn parse(text: &str) -> Result<Key, MifError> {
        super::limits::bytes(text, super::limits::RECORD_BYTES, "an MPK record")?;
        let fields: Vec<&str> = text.split(' ').collect();
        if fields[0] != SIGNATURE {
            return Err(MifError::new(
                "unsupported",
                "unsupported-format",
                "an MPK record starts with MPK/1.0",
            ));
        }
        if !text.is_ascii() || fields.iter().any(|f| f.is_empty()) || text.contains(['\t', '\n', '\r']) {
            return Err(syntax("US-ASCII fields separated by exactly one space"));
        }
        if fields.len() < 9 {
            // The digest is the field most often left out (MIF 7.2).
            if fields.len() == 8 && !fields[3].starts_with("sha256:") {
                return Err(MifError::new(
                    "syntax",
                    "mpk-semantic-digest-missing",
                    "the semantic digest follows the rule-set reference",
                ));
            }
            return Err(syntax(format!(
                "an MPK record has nine fields, found {}",
                fields.len()
            )));
        }
        if fields[1] != STATE_PROFILE {
            return Err(MifError::new(
                "unsupported",
                "unsupported-profile",
                format!("state profile {:?}", fields[1]),
            ));
        }
        let ruleset = fields[2];
        let valid_ref = ruleset
            .split_once('@')
            .is_some_and(|(id, v)| is_identifier(id) && uint(v).is_some_and(|n| n > 0));
        if !valid_ref {
            return Err(syntax(format!(
                "{ruleset:?} is not a rule-set reference id@version"
            )));
        }
        let digest = fields[3];
        if !digest.starts_with("sha256:") {
            return Err(MifError::new(
                "syntax",
                "mpk-semantic-digest-missing",
                "the semantic digest follows the rule-set reference",
            ));
        }
        if !is_digest(digest) {
            let upper = digest.len() == 71 && digest[7..].bytes().all(|c| c.is_ascii_hexdigit());
            return Err(if upper {
                MifError::new(
                    "canonical",
                    "non-canonical-digest",
                    "digests are written in lowercase hex",
                )
            } else {
                syntax(format!("{digest:?} is not a sha256 digest"))
            });
        }
        match fields[4] {
            KEY_PROFILE => {}
            "structural-aut16-v1" => {
                return Err(MifError::new(
                    "ineligible",
                    "transform-invariance-undeclared",
                    "structural-aut16-v1 needs an invariance declaration (MIFINV), which this implementation does not hold",
                ));
            }
            other => {
                return Err(MifError::new(
                    "unsupported",
                    "unsupported-profile",
                    format!("key profile {other:?}"),
                ));
            }
        }
        let cells = fields[5].as_bytes();
        if cells.len() != 24 || !cells.iter().all(|c| b"WBwb.".contains(c)) {
            return Err(syntax("the board is 24 points of W, B, w, b, ."));
        }
        let mut board = [b'.'; 24];
        board.copy_from_slice(cells);
        let side = match fields[6] {
            "w" => 'w',
            "b" => 'b',
            _ => return Err(syntax("the side is w or b")),
        };
        let phase = match fields[7] {
            "p" => 'p',
            "m" => 'm',
            _ => return Err(syntax("the phase is p or m")),
        };
        let hands = fields[8]
            .split_once(',')
            .and_then(|(w, b)| Some((uint(w)?, uint(b)?)))
            .ok_or_else(|| syntax("the hands are two counts, like 9,9"))?;
        if let Some(ext) = fields.get(9) {
            return Err(MifError::new(
                "unsupported",
                "unsupported-extension",
                format!("key extension {ext:?}: the rule sets played here declare none"),
            ));
        }
        Ok(Key {
            ruleset: ruleset.to_string(),
            semantic_digest: digest.to_string(),
            board,
            side,
            phase,
            hands,
        })
    }

    /// Checks the key against the manifest it names: the same `id@version`
    /// (`manifest-conflict`), the same semantic digest (`semantic-digest-mismatch`),
    /// and a board, phase and hands the manifest allows.
    pub fn check(&self, manifest: Option<&Manifest>) -> Result<(), MifError> {
        let manifest = manifest.ok_or_else(|| {
            MifError::new(
                "integrity",
                "manifest-missing",
                "an MPK key is read under the manifest it names",
            )
        })?;
        if self.ruleset != manifest.reference() {
            return Err(MifError::new(
                "integrity",
                "manifest-conflict",
                format!(
                    "the key names {}, the manifest is {}",
                    self.ruleset,
                    manifest.reference()
                ),
            ));
        }
        if self.semantic_digest != manifest.semantic_digest {
            return Err(MifError::new(
                "integrity",
                "semantic-digest-mismatch",
                format!("the manifest's semantic digest is {}", manifest.semantic_digest),
            ));
        }
        let pieces = &manifest.doc.pieces;
        let count = |c: u8| self.board.iter().filter(|&&x| x == c).count() as u64;
        if count(b'W') + count(b'w') + self.hands.0 > pieces.white.0
            || count(b'B') + count(b'b') + self.hands.1 > pieces.black.0
        {
            return Err(MifError::new(
                "inconsistent",
                "inconsistent",
                "more pieces than the manifest gives",
            ));
        }
        let delayed = manifest.doc.mills.placing_effect == PlacingEffect::MarkOpponentBoardUntilMoving;
        if !delayed && (count(b'w') + count(b'b')) > 0 {
            return Err(MifError::new(
                "inconsistent",
                "inconsistent",
                "blocked tokens need the delayed-removal placing effect",
            ));
        }
        let hand = if self.side == 'w' {
            self.hands.0
        } else {
            self.hands.1
        };
        if (self.phase == 'p') != (hand > 0) {
            return Err(MifError::new(
                "inconsistent",
                "inconsistent",
                "the phase is p while the side to move has pieces in hand, else m",
            ));
        }
        Ok(())
    }

    /// The record in the orientation given.
    fn text_with(&self, board: &[u8; 24]) -> String {
        format!(
            "{SIGNATURE} {STATE_PROFILE} {} {} {KEY_PROFILE} {} {} {} {},{}",
            self.ruleset,
            self.semantic_digest,
            String::from_utf8_lossy(board),
            self.side,
            self.phase,
            self.hands.0,
            self.hands.1
        )
    }

    /// The canonical record: of the eight orientations, the least in US-ASCII byte
    /// order (the lowest transform ordinal on a tie), and its ordinal.
    pub fn canonical(&self) -> (String, usize) {
        (0..TRANSFORMS.len())
            .map(|t| (self.text_with(&board(&self.board, &point_map(t))), t))
            .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)))
            .unwrap_or_else(|| (self.text_with(&self.board), 0))
    }
}

/// Reads an MPK record under `manifest` and writes its canonical form.
pub fn canonicalize(text: &str, manifest: Option<&Manifest>) -> Result<String, MifError> {
    let key = Key::parse(text)?;
    key.check(manifest)?;
    Ok(key.canonical().0)
}

/// The canonical key of a position under `manifest`: only a position still going, at
/// a turn boundary (no removal owed), has one (`ineligible/mpk-ineligible` otherwise).
pub fn of_position(position: &Position, manifest: &Manifest) -> Result<String, MifError> {
    if position.pending_removals() > 0 || position.is_over() {
        return Err(MifError::new(
            "ineligible",
            "mpk-ineligible",
            "a key is taken at a stable boundary of a game still going, with no removal owed",
        ));
    }
    let mfen = Mfen::from_position(position)
        .write()
        .map_err(|e| MifError::new("conversion", "unrepresentable-under-profile", e.to_string()))?;
    let f: Vec<&str> = mfen.split(' ').collect();
    let text = format!(
        "{SIGNATURE} {STATE_PROFILE} {} {} {KEY_PROFILE} {} {} {} {}",
        manifest.reference(),
        manifest.semantic_digest,
        f[2].replace('/', ""),
        f[3],
        f[4],
        f[6]
    );
    canonicalize(&text, Some(manifest))
}
