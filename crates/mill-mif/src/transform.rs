//! The board's symmetries in MIF's terms (Annex A.3): eight D4 transforms of the
//! coordinates, in their fixed order, and the exchange of the outer and inner rings.
//! Points are MIF's ring indexes (`a7` is 0, `c4` is 23: [`RING_ORDER`]).
//!
//! Coordinates only: whether two transformed positions are the same game under a rule
//! set is a separate question MIF answers with an invariance declaration (MIFINV),
//! which this crate does not read.

use super::MifError;
use mill_core::mfen::RING_ORDER;

/// The D4 transforms in Annex A's ordinal order.
pub const TRANSFORMS: [&str; 8] = [
    "i",
    "r90ccw",
    "r180",
    "r90cw",
    "mirror-v",
    "mirror-h",
    "mirror-main",
    "mirror-anti",
];

/// A point's coordinates, files `a..g` and ranks `1..7` as -3..3.
fn coords(index: usize) -> (i8, i8) {
    let name = RING_ORDER[index % 24].as_bytes();
    (name[0] as i8 - b'd' as i8, name[1] as i8 - b'4' as i8)
}

fn apply(ordinal: usize, (x, y): (i8, i8)) -> (i8, i8) {
    match ordinal {
        1 => (-y, x),
        2 => (-x, -y),
        3 => (y, -x),
        4 => (-x, y),
        5 => (x, -y),
        6 => (y, x),
        7 => (-y, -x),
        _ => (x, y),
    }
}

/// The ordinal of a transform by its id (`r90ccw` is 1).
pub fn ordinal(id: &str) -> Option<usize> {
    TRANSFORMS.iter().position(|t| *t == id)
}

/// Where each ring index goes under the transform with this ordinal.
pub fn point_map(ordinal: usize) -> [usize; 24] {
    let mut map = [0usize; 24];
    for (i, slot) in map.iter_mut().enumerate() {
        let target = apply(ordinal, coords(i));
        // Every D4 image of a board point is a board point.
        *slot = (0..24).find(|&j| coords(j) == target).unwrap_or(i);
    }
    map
}

/// The outer/inner ring exchange: `a7`↔`c5` … `a4`↔`c4`, the middle ring fixed.
pub fn ring_exchange() -> [usize; 24] {
    let mut map = [0usize; 24];
    for (i, slot) in map.iter_mut().enumerate() {
        *slot = match i {
            0..8 => i + 16,
            16..24 => i - 16,
            _ => i,
        };
    }
    map
}

/// A 24-cell board (ring order) moved by `map`.
pub fn board(cells: &[u8; 24], map: &[usize; 24]) -> [u8; 24] {
    let mut out = [b'.'; 24];
    for (i, &c) in cells.iter().enumerate() {
        out[map[i]] = c;
    }
    out
}

/// A 24-bit point set (bit *i* for ring index *i*) moved by `map`.
pub fn set(bits: u32, map: &[usize; 24]) -> u32 {
    (0..24)
        .filter(|i| bits >> i & 1 == 1)
        .fold(0, |acc, i| acc | 1 << map[i])
}

/// A coordinate name moved by `map` (`a7` under `r90ccw` is `a1`).
pub fn point_name(name: &str, map: &[usize; 24]) -> Option<&'static str> {
    RING_ORDER
        .iter()
        .position(|p| *p == name)
        .map(|i| RING_ORDER[map[i]])
}

/// The MFEN board field (`ring/ring/ring`) as 24 cells, or `None` if malformed.
pub fn parse_board(field: &str) -> Option<[u8; 24]> {
    let rings: Vec<&str> = field.split('/').collect();
    if rings.len() != 3 || rings.iter().any(|r| r.len() != 8) {
        return None;
    }
    let cells: Vec<u8> = rings.concat().into_bytes();
    if !cells.iter().all(|c| b"WBwb.".contains(c)) {
        return None;
    }
    cells.try_into().ok()
}

/// 24 cells as the MFEN board field.
pub fn board_field(cells: &[u8; 24]) -> String {
    let text: String = cells.iter().map(|&c| c as char).collect();
    format!("{}/{}/{}", &text[0..8], &text[8..16], &text[16..24])
}

/// An MFEN record with every coordinate moved by the transform `id`: the board and the
/// obligations' target sets. Records with extensions (`lm`, `pc`, `ul`, private ones)
/// are refused: the rule sets this crate plays declare none.
pub fn mfen(text: &str, id: &str) -> Result<String, MifError> {
    let map = point_map(ordinal(id).ok_or_else(|| {
        MifError::new(
            "unsupported",
            "unsupported-transform",
            format!("no transform {id:?}"),
        )
    })?);
    let mut fields: Vec<String> = text.split(' ').map(str::to_string).collect();
    if fields.len() != 11 {
        return Err(MifError::new(
            "unsupported",
            "unsupported-extension",
            "only MFEN records of eleven fields (no extensions) are transformed here",
        ));
    }
    let cells =
        parse_board(&fields[2]).ok_or_else(|| MifError::new("syntax", "mfen", "a malformed board field"))?;
    fields[2] = board_field(&board(&cells, &map));
    if fields[7] != "-" {
        let branches: Result<Vec<String>, MifError> = fields[7]
            .split('|')
            .map(|branch| {
                branch
                    .split(';')
                    .map(|ob| {
                        let mut parts: Vec<String> = ob.split(':').map(str::to_string).collect();
                        if parts.len() != 7 {
                            return Err(MifError::new("syntax", "mfen", "a malformed obligation"));
                        }
                        if parts[5].len() == 6 {
                            let bits = u32::from_str_radix(&parts[5], 16)
                                .map_err(|_| MifError::new("syntax", "mfen", "a malformed target set"))?;
                            parts[5] = format!("{:06x}", set(bits, &map));
                        }
                        Ok(parts.join(":"))
                    })
                    .collect::<Result<Vec<String>, MifError>>()
                    .map(|obs| obs.join(";"))
            })
            .collect();
        fields[7] = branches?.join("|");
    }
    Ok(fields.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_a_transforms_move_the_corners_as_written() {
        // C.5: under r90ccw, a7 goes to a1.
        assert_eq!(point_name("a7", &point_map(1)), Some("a1"));
        assert_eq!(point_name("a7", &point_map(2)), Some("g1"));
        assert_eq!(point_name("a7", &point_map(3)), Some("g7"));
        assert_eq!(point_name("a7", &point_map(4)), Some("g7"));
        assert_eq!(point_name("a7", &point_map(5)), Some("a1"));
        assert_eq!(point_name("a7", &point_map(6)), Some("g1"));
        assert_eq!(point_name("d7", &point_map(6)), Some("g4"));
        assert_eq!(point_name("a7", &point_map(7)), Some("a7"));
        assert_eq!(point_name("d6", &point_map(7)), Some("b4"));
        for (t, id) in TRANSFORMS.iter().enumerate() {
            let map = point_map(t);
            let mut seen = map.to_vec();
            seen.sort_unstable();
            assert_eq!(seen, (0..24).collect::<Vec<_>>(), "{id} is a permutation");
            assert_eq!(ordinal(id), Some(t));
        }
        assert_eq!(point_name("g4", &ring_exchange()), Some("e4"));
        assert_eq!(point_name("d6", &ring_exchange()), Some("d6"));
    }

    #[test]
    fn mfen_transforms_move_the_board_and_the_removal_targets() {
        let text =
            "MFEN/1.0 mill24-state-v1 BBB...../......../W....... b p r 8,6 b:mill:b:w:1:010000:w 0 4 -";
        let moved = mfen(text, "r90ccw").unwrap();
        // a7 d7 g7 → a1 a4 a7; c5 (bit 16) → c3 (bit 22).
        assert_eq!(
            moved,
            "MFEN/1.0 mill24-state-v1 B.....BB/......../......W. b p r 8,6 b:mill:b:w:1:400000:w 0 4 -"
        );
        assert_eq!(mfen(&moved, "r90cw").unwrap(), text);
        assert_eq!(mfen(text, "i").unwrap(), text);
        assert_eq!(mfen(text, "turn").unwrap_err().code, "unsupported-transform");
    }
}
