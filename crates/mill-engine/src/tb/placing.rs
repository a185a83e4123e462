//! Whole games with removals solved: every placing position reachable from the empty
//! board (Six Men's Morris), its value from the endgame tables where placing ends.
//!
//! A placing position is its board, the two hands and the side to move; it is stored
//! from the side to move's view (`us`, `them`, `us`'s hand, `them`'s hand), one position
//! of each orbit under the board's symmetries, as a sorted list of keys with a 16-bit
//! word each (a [`Value`] encoded as the endgame tables encode theirs). The moving
//! positions (both hands empty) are the endgame tables' ([`Tablebase`]), which
//! [`Placing`] holds beside its own words.
//!
//! **What a word means.** The hundred-turn count is 0 while placing (placements never
//! count, even those that remove: docs/RULES.md) and starts at 0 when placing ends, and a
//! hand only shrinks, so no position repeats while placing: the placing positions form a
//! DAG, solved in one pass from the empty board depth first, each position the best of
//! its successors. A successor that ends placing is the moving position at a count of 0,
//! whose game value the endgame tables give ([`super::Probe::result`]: a win or loss
//! when its distance to the next removal fits in the hundred turns, with its distance to
//! the end; else a draw). So a placing word is the game's value of its position with no
//! earlier history (there can be none that matters: placing never repeats), a win or loss
//! with its distance in turns.
//!
//! **Repetition** enters only once moving; [`Placing::turn_values`] scores a turn that
//! would make a position occur for the third time as the draw it is.

use super::{Tablebase, Value, whole::best_of};
use mill_core::{Color, Position, RemovalRule, Rules, Turn, Variant};
use std::collections::HashMap;
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"MILLPL01";

/// The most points of a board solved here (a side's pieces in 16 bits).
const MAX_POINTS: usize = 16;

/// The placing positions of a game with removals, solved whole, and the endgame tables
/// of its moving positions. See the module docs.
#[derive(Clone, Debug)]
pub struct Placing {
    tb: Arc<Tablebase>,
    /// The bit of each of the board's points, in the topology's order.
    bits: Vec<u32>,
    /// Sorted: the side to move's hand << 40 | the other's hand << 32 | its pieces << 16
    /// | the other's, each board squeezed to the topology's order; the representative of
    /// the orbit under the board's symmetries.
    keys: Vec<u64>,
    /// The value of each key, encoded.
    words: Vec<u16>,
}

/// A fast hash for the generator's table of positions already solved (its keys are
/// already well spread).
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 ^= self.0 >> 32;
    }
}

type Memo = HashMap<u64, u16, std::hash::BuildHasherDefault<KeyHasher>>;

impl Placing {
    /// Whether the placing of `rules` is solved here (`Err` says why not): Six Men's
    /// Morris under its usual rules, whose moving positions the endgame tables hold whole.
    pub fn supports(rules: impl Into<Rules>) -> Result<(), String> {
        let rules: Rules = rules.into();
        Tablebase::supports(rules)?;
        if rules.variant != Variant::Six
            || rules.topology.len() > MAX_POINTS
            || rules.removals == RemovalRule::PerMill
            || rules.pieces > super::MAX_CLASS_PIECES
        {
            return Err(format!(
                "{rules}: only Six Men's Morris with one removal a turn is solved whole with its placing"
            ));
        }
        Ok(())
    }

    /// The rule set solved.
    pub fn rules(&self) -> &Rules {
        self.tb.rules()
    }

    /// The endgame tables of the moving positions.
    pub fn tablebase(&self) -> &Arc<Tablebase> {
        &self.tb
    }

    fn empty(tb: Arc<Tablebase>) -> Placing {
        let bits = tb.rules().topology.points().map(|p| 1u32 << p.index()).collect();
        Placing {
            tb,
            bits,
            keys: Vec::new(),
            words: Vec::new(),
        }
    }

    fn squeeze(&self, board: u32) -> u64 {
        self.bits.iter().enumerate().fold(
            0,
            |acc, (i, &bit)| if board & bit != 0 { acc | 1 << i } else { acc },
        )
    }

    fn expand(&self, squeezed: u64) -> u32 {
        self.bits.iter().enumerate().fold(
            0,
            |acc, (i, &bit)| if squeezed & 1 << i != 0 { acc | bit } else { acc },
        )
    }

    /// The key of a placing position (see [`Placing::keys`]); `None` when it is not one:
    /// another rule set, a removal pending, both hands empty.
    fn key(&self, position: &Position) -> Option<u64> {
        if position.rules() != self.rules() || position.pending_removals() > 0 {
            return None;
        }
        let (hu, ht) = (
            position.in_hand(position.turn()),
            position.in_hand(!position.turn()),
        );
        if hu == 0 && ht == 0 {
            return None;
        }
        let us = position.pieces(position.turn()).0;
        let them = position.pieces(!position.turn()).0;
        let (us, them) = self.tb.syms.canonical(us, them);
        Some(u64::from(hu) << 40 | u64::from(ht) << 32 | self.squeeze(us) << 16 | self.squeeze(them))
    }

    /// The position of a key: the side to move is Light, with no turns of the hundred
    /// played (placing), through the position string so that `mill-core` validates it.
    fn position_of(&self, key: u64) -> Result<Position, String> {
        let us = self.expand(key >> 16 & 0xffff);
        let them = self.expand(key & 0xffff);
        let (hu, ht) = (key >> 40 & 0xff, key >> 32 & 0xff);
        let t = self.rules().topology;
        let mut ranks: Vec<u8> = t.points().map(|p| t.coords(p).1).collect();
        ranks.sort_unstable_by(|a, b| b.cmp(a));
        ranks.dedup();
        let mut text = String::new();
        for (k, &rank) in ranks.iter().enumerate() {
            if k > 0 {
                text.push('/');
            }
            for p in (0..16).filter_map(|file| t.point_at(file, rank)) {
                let bit = 1u32 << p.index();
                text.push(if us & bit != 0 {
                    'L'
                } else if them & bit != 0 {
                    'D'
                } else {
                    '.'
                });
            }
        }
        text.push_str(&format!(" l {hu} {ht} 0 0"));
        Position::from_str_variant(&text, self.rules()).map_err(|e| format!("{text}: {e}"))
    }

    /// The value for the side to move in `child`, reached by a turn from a stored
    /// position: the game's end, the endgame tables' value at its count once placing is
    /// over, else `placing` (the stored or solved placing value).
    fn child_value(
        &self,
        child: &Position,
        placing: &mut dyn FnMut(&Position) -> Result<Value, String>,
    ) -> Result<Value, String> {
        if let Some(outcome) = child.outcome() {
            return Ok(match outcome.winner() {
                Some(w) if w == child.turn() => Value::Win(0),
                Some(_) => Value::Loss(0),
                None => Value::Draw,
            });
        }
        if child.in_hand(Color::Light) == 0 && child.in_hand(Color::Dark) == 0 {
            return self
                .tb
                .probe(child)
                .map(|p| p.result)
                .ok_or_else(|| format!("{child}: a moving successor outside the endgame tables"));
        }
        placing(child)
    }

    /// Solves every placing position reachable from `root` (the empty board for the
    /// whole game; a later position for a part of it) with `tb`, the endgame tables of
    /// the same rule set holding every class placing can end in. `progress` hears every
    /// million positions.
    pub fn generate(
        tb: Arc<Tablebase>,
        root: &Position,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Placing, String> {
        Placing::supports(tb.rules())?;
        let mut placing = Placing::empty(tb);
        if placing.key(root).is_none() || root.outcome().is_some() {
            return Err(format!("{root}: not a placing position of {}", placing.rules()));
        }
        let mut memo = Memo::default();
        placing.solve(root, &mut memo, progress)?;
        let mut entries: Vec<(u64, u16)> = memo.into_iter().collect();
        entries.sort_unstable();
        placing.keys = entries.iter().map(|e| e.0).collect();
        placing.words = entries.iter().map(|e| e.1).collect();
        Ok(placing)
    }

    fn solve(
        &self,
        position: &Position,
        memo: &mut Memo,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Value, String> {
        let key = self
            .key(position)
            .ok_or_else(|| format!("{position}: not a placing position"))?;
        if let Some(&w) = memo.get(&key) {
            return Ok(Value::decode(w));
        }
        let mut children = Vec::new();
        for turn in position.legal_turns() {
            let child = position.play_unchecked(turn);
            children.push(self.child_value(&child, &mut |c| self.solve(c, memo, progress))?);
        }
        let v = best_of(children.into_iter());
        memo.insert(key, v.encode());
        if memo.len() % 1_000_000 == 0 {
            progress(&format!("{} placing positions solved", memo.len()));
        }
        Ok(v)
    }

    fn stored(&self, key: u64) -> Option<Value> {
        let i = self.keys.binary_search(&key).ok()?;
        Some(Value::decode(self.words[i]))
    }

    /// The game's value of `position` for the side to move, with no earlier history: a
    /// placing position from the placing table, a moving one from the endgame tables
    /// with its hundred-turn count applied. `None` outside both, or when the game is
    /// over.
    pub fn probe(&self, position: &Position) -> Option<Value> {
        if position.rules() != self.rules() || position.outcome().is_some() {
            return None;
        }
        match self.key(position) {
            Some(key) => self.stored(key),
            None if position.pending_removals() == 0 => self.tb.probe(position).map(|p| p.result),
            None => None,
        }
    }

    /// Each legal turn of `position` with its value for the side playing it (the game's
    /// value after it; a turn that makes a position occur for the third time in
    /// `history` is a draw). `history`: the game's positions' hashes at each turn
    /// boundary, oldest first, ending with `position`; empty for none. `None` outside the
    /// tables or when the game is over.
    pub fn turn_values(&self, position: &Position, history: &[u64]) -> Option<Vec<(Turn, Value)>> {
        self.probe(position)?;
        let mut path = history.to_vec();
        if path.last() != Some(&position.hash()) {
            path.push(position.hash());
        }
        let mut out = Vec::new();
        for turn in position.legal_turns() {
            let child = position.play_unchecked(turn);
            path.push(child.hash());
            let repeated =
                child.outcome().is_none() && child.rules().repetition_draws(child.occurrences(&path));
            path.pop();
            let v = if repeated {
                Value::Draw
            } else {
                let v = self
                    .child_value(&child, &mut |c| self.probe(c).ok_or_else(String::new))
                    .ok()?;
                match v {
                    Value::Win(d) => Value::Loss(d + 1),
                    Value::Loss(d) => Value::Win(d + 1),
                    Value::Draw => Value::Draw,
                }
            };
            out.push((turn, v));
        }
        Some(out)
    }

    /// The Perfect level's turn, with the position's value for the side to move. While
    /// placing: the shortest win, else a draw, else the longest loss (among turns as
    /// good, the one `seed` picks). Once moving: the endgame tables' turn (the fastest to
    /// the next removal among winning turns, which never repeats a position and keeps the
    /// win within the hundred turns), except that a side without a win takes a draw by
    /// repetition where `history` offers one. `None` as for [`Placing::turn_values`].
    pub fn best_turn(&self, position: &Position, history: &[u64], seed: u64) -> Option<(Turn, Value)> {
        let values = self.turn_values(position, history)?;
        let key = |v: Value| match v {
            Value::Win(d) => 100_000 - i64::from(d),
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + i64::from(d),
        };
        let best = values.iter().map(|&(_, v)| key(v)).max()?;
        if self.key(position).is_none() && best > 0 {
            // Moving and winning: the tables' way, fastest to the next removal.
            let (turn, probe) = self.tb.best_turn(position)?;
            return Some((turn, probe.result));
        }
        let ties: Vec<&(Turn, Value)> = values.iter().filter(|&&(_, v)| key(v) == best).collect();
        let pick = ties[(crate::mix(seed) % ties.len() as u64) as usize];
        Some(*pick)
    }

    /// Placing positions stored (one an orbit under the board's symmetries).
    pub fn positions(&self) -> usize {
        self.keys.len()
    }

    /// The longest forced win among the stored placing positions, in turns (the game's
    /// values: at the count each is reached with, 0).
    pub fn longest_win(&self) -> u16 {
        self.words
            .iter()
            .filter_map(|&w| match Value::decode(w) {
                Value::Win(d) => Some(d),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The longest forced win among the moving positions at a count of 0 (where placing
    /// or a removal leaves them), in turns: the endgame tables' longest distance to the
    /// end among positions whose distance to the next removal fits in the hundred turns.
    pub fn longest_moving_win(&self) -> u16 {
        let mut longest = 0;
        for (m, o, _) in self.tb.classes() {
            let Some(class) = self.tb.class_positions(m, o) else {
                continue;
            };
            for i in 0..class.len() {
                if let Some(Value::Win(d)) = class.get(i).and_then(|p| self.tb.probe(&p)).map(|p| p.result) {
                    longest = longest.max(d);
                }
            }
        }
        longest
    }

    /// Checks every stored placing value against its successors as `mill-core`
    /// generates them: the best of them, placing successors from the table (each must be
    /// there), moving ones from the endgame tables at a count of 0. Returns the positions
    /// checked or the first mismatch.
    pub fn verify(&self, progress: &mut dyn FnMut(&str)) -> Result<u64, String> {
        let mut checked = 0u64;
        for (i, (&key, &word)) in self.keys.iter().zip(&self.words).enumerate() {
            if i > 0 && self.keys[i - 1] >= key {
                return Err(format!("key {key:#x}: out of order"));
            }
            let position = self.position_of(key)?;
            if self.key(&position) != Some(key) {
                return Err(format!("{position}: not the representative of its orbit"));
            }
            if position.outcome().is_some() {
                return Err(format!("{position}: over, but stored"));
            }
            let mut children = Vec::new();
            for turn in position.legal_turns() {
                let child = position.play_unchecked(turn);
                children.push(self.child_value(&child, &mut |c| {
                    self.key(c)
                        .and_then(|k| self.stored(k))
                        .ok_or_else(|| format!("{position}: its successor {c} is not in the table"))
                })?);
            }
            let expected = best_of(children.into_iter());
            let stored = Value::decode(word);
            if stored != expected {
                return Err(format!(
                    "{position}: stored {stored:?}, successors give {expected:?}"
                ));
            }
            checked += 1;
            if checked % 1_000_000 == 0 {
                progress(&format!("{checked} placing positions verified"));
            }
        }
        Ok(checked)
    }

    /// The file: `MILLPL01`, the rule set's name (a length byte, then its text), the
    /// number of positions (4 bytes), then each key's low 6 bytes and each word, all
    /// little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let name = self.rules().to_string();
        let mut out = Vec::with_capacity(13 + name.len() + 8 * self.keys.len());
        out.extend_from_slice(MAGIC);
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(self.keys.len() as u32).to_le_bytes());
        for k in &self.keys {
            out.extend_from_slice(&k.to_le_bytes()[..6]);
        }
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Reads [`Placing::to_bytes`]' file back, with `tb` the endgame tables of its rule
    /// set; anything else is refused.
    pub fn from_bytes(bytes: &[u8], tb: Arc<Tablebase>) -> Result<Placing, String> {
        let (rules, count, rest) = Placing::header(bytes)?;
        if rules != tb.rules() {
            return Err(format!(
                "not a placing table: a table of {rules}, the endgame tables of {}",
                tb.rules()
            ));
        }
        let (keys, words) = rest.split_at(6 * count);
        let mut placing = Placing::empty(tb);
        placing.keys = keys
            .chunks_exact(6)
            .map(|k| {
                let mut b = [0; 8];
                b[..6].copy_from_slice(k);
                u64::from_le_bytes(b)
            })
            .collect();
        placing.words = words
            .chunks_exact(2)
            .map(|w| u16::from_le_bytes([w[0], w[1]]))
            .collect();
        Ok(placing)
    }

    /// The rule set and the number of positions of a [`Placing::to_bytes`] file, checked
    /// as far as they go without its endgame tables: its header, a rule set solved whole
    /// with its placing, and its size.
    pub fn read_header(bytes: &[u8]) -> Result<(Rules, usize), String> {
        Placing::header(bytes).map(|(rules, count, _)| (rules, count))
    }

    /// The header's rule set and count, and the keys and words after it (their size checked).
    fn header(bytes: &[u8]) -> Result<(Rules, usize, &[u8]), String> {
        let bad = |why: &str| format!("not a placing table: {why}");
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or_else(|| bad("no header"))?;
        let (&len, rest) = rest.split_first().ok_or_else(|| bad("cut short"))?;
        let (name, rest) = rest
            .split_at_checked(len as usize)
            .ok_or_else(|| bad("cut short"))?;
        let name = std::str::from_utf8(name).map_err(|_| bad("an unreadable rule set"))?;
        let rules = Rules::parse(name).map_err(|e| bad(&format!("rule set {name:?}: {e}")))?;
        Placing::supports(rules).map_err(|e| bad(&e))?;
        let [a, b, c, d, rest @ ..] = rest else {
            return Err(bad("cut short"));
        };
        let count = u32::from_le_bytes([*a, *b, *c, *d]) as usize;
        if rest.len() != 8 * count {
            return Err(bad("wrong size"));
        }
        Ok((rules, count, rest))
    }

    /// The file's name for `rules`: `six-placing.mtp`.
    pub fn file_name(rules: impl Into<Rules>) -> String {
        let rules: Rules = rules.into();
        format!("{rules}-placing.mtp")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    fn six(text: &str) -> Position {
        format!("{text} six").parse().unwrap()
    }

    /// Six's endgame tables with three pieces a side: every ending of the fixtures.
    fn tables() -> Arc<Tablebase> {
        static TB: OnceLock<Arc<Tablebase>> = OnceLock::new();
        TB.get_or_init(|| Arc::new(Tablebase::generate(Variant::Six.rules(), 3, &mut |_| {}).unwrap()))
            .clone()
    }

    /// A small fixture: three pieces a side in all, one on the board and two in hand
    /// each, Light to place (Light a7, Dark a4).
    fn fixture() -> &'static Placing {
        static FIXTURE: OnceLock<Placing> = OnceLock::new();
        FIXTURE.get_or_init(|| {
            Placing::generate(tables(), &six("L../.../D.../.../... l 2 2 0 0"), &mut |_| {}).unwrap()
        })
    }

    fn solved(text: &str) -> (Placing, Position) {
        let p = six(text);
        (Placing::generate(tables(), &p, &mut |_| {}).unwrap(), p)
    }

    #[test]
    fn hand_checked_positions() {
        // Light has a7 d7 and one piece in hand, Dark a4 a1 and one: g7 closes a7-d7-g7
        // and its removal leaves Dark two pieces in all, which loses at once.
        let (placing, p) = solved("LL./.../D.../.../D.. l 1 1 0 0");
        assert_eq!(placing.probe(&p), Some(Value::Win(1)));
        let (turn, v) = placing.best_turn(&p, &[], 5).unwrap();
        assert_eq!(v, Value::Win(1));
        assert_eq!(p.topology().name(turn.to()), "g7");
        assert_eq!(turn.removals().len(), 1);
        // Dark (a4, two in hand) to place against a7 d7 with one in hand: anywhere but g7
        // lets Light close the line and win, a loss in 2; g7 holds longer.
        let (placing, p) = solved("LL./.../D.../.../... d 1 2 0 0");
        let values = placing.turn_values(&p, &[]).unwrap();
        assert_eq!(values.len(), 16 - 3);
        for (turn, v) in values {
            if p.topology().name(turn.to()) == "g7" {
                assert_ne!(v, Value::Loss(2));
            } else {
                assert_eq!(v, Value::Loss(2), "{}", turn.to_notation(p.topology()));
            }
        }
        // A position of the fixture's that is won must have its winning turn: the
        // stored value is the best of the turns' values.
        let fixture = fixture();
        let root = six("L../.../D.../.../... l 2 2 0 0");
        let best = best_of(
            fixture
                .turn_values(&root, &[])
                .unwrap()
                .into_iter()
                .map(|(_, v)| match v {
                    Value::Win(d) => Value::Loss(d - 1),
                    Value::Loss(d) => Value::Win(d - 1),
                    Value::Draw => Value::Draw,
                }),
        );
        assert_eq!(fixture.probe(&root), Some(best));
        // Moving positions come from the endgame tables, the count applied.
        let moving = six("LL./.../D.../..L/DD. l 0 0 0 0");
        let tb = tables();
        assert_eq!(fixture.probe(&moving), tb.probe(&moving).map(|p| p.result));
        assert!(fixture.probe(&moving).is_some());
        // A position the fixture does not reach, and one of another rule set.
        assert_eq!(fixture.probe(&six("LL./.../D.../.../D.. l 2 2 0 0")), None);
        assert_eq!(fixture.probe(&Position::new(Variant::Nine)), None);
    }

    #[test]
    fn the_fixture_checks_and_a_corrupted_value_is_caught() {
        let fixture = fixture();
        assert!(fixture.positions() > 100, "{}", fixture.positions());
        assert_eq!(fixture.verify(&mut |_| {}), Ok(fixture.positions() as u64));
        // Every stored word changed to each other value is caught.
        for i in [0, fixture.positions() / 2, fixture.positions() - 1] {
            for bad in [
                Value::Draw,
                Value::Win(1),
                Value::Win(7),
                Value::Loss(0),
                Value::Loss(4),
            ] {
                if Value::decode(fixture.words[i]) == bad {
                    continue;
                }
                let mut corrupt = fixture.clone();
                corrupt.words[i] = bad.encode();
                assert!(corrupt.verify(&mut |_| {}).is_err(), "{i}: {bad:?} passed");
            }
        }
        // A position missing (its parent's successor is not in the table): the first
        // key has the fewest pieces in hand, so it is not the root.
        let mut corrupt = fixture.clone();
        corrupt.keys.remove(0);
        corrupt.words.remove(0);
        assert!(corrupt.verify(&mut |_| {}).is_err());
        // A key that is not its orbit's representative.
        let mut corrupt = fixture.clone();
        let last = corrupt.keys.len() - 1;
        corrupt.keys[last] = 1 << 40 | 1 << 32 | 0b11 << 16 | 0b1000;
        assert!(corrupt.verify(&mut |_| {}).is_err());
    }

    #[test]
    fn the_file_round_trips_and_bad_files_are_refused() {
        let fixture = fixture();
        let bytes = fixture.to_bytes();
        let back = Placing::from_bytes(&bytes, tables()).unwrap();
        assert_eq!((&back.keys, &back.words), (&fixture.keys, &fixture.words));
        assert!(Placing::from_bytes(&bytes[..bytes.len() - 1], tables()).is_err());
        assert!(Placing::from_bytes(b"MILLPL01", tables()).is_err());
        assert_eq!(
            Placing::read_header(&bytes),
            Ok((*Variant::Six.rules(), fixture.positions()))
        );
        assert!(Placing::read_header(&bytes[..bytes.len() - 2]).is_err());
        assert!(Placing::read_header(b"MILLTB01").is_err());
        let nine = Arc::new(Tablebase::new(Variant::Nine.rules()));
        assert!(Placing::from_bytes(&bytes, nine).is_err());
        assert!(Placing::supports(Variant::Nine.rules()).is_err());
        assert!(Placing::supports(Variant::Three.rules()).is_err());
        assert!(Placing::supports(Variant::Six.rules()).is_ok());
        // Generating again gives the same bytes.
        let again = Placing::generate(tables(), &six("L../.../D.../.../... l 2 2 0 0"), &mut |_| {}).unwrap();
        assert_eq!(again.to_bytes(), bytes);
        // Endings the tables lack are an error, not a guess.
        let small = Arc::new(Tablebase::new(Variant::Six.rules()));
        assert!(Placing::generate(small, &six("L../.../D.../.../... l 2 2 0 0"), &mut |_| {}).is_err());
    }

    #[test]
    fn perfect_plays_six_from_the_table() {
        let (placing, p) = solved("LL./.../D.../.../D.. l 1 1 0 0");
        let mut engine = crate::Engine::new(1);
        let limits = crate::Limits::new(crate::Level::Perfect, 3);
        engine.set_placing_table(Some(Arc::new(placing)));
        let r = engine.search(&p, &[], &limits, &mut crate::NoClock).unwrap();
        assert_eq!(p.topology().name(r.turn.to()), "g7");
        assert_eq!(r.tb_hits, 1);
        // Without the table Perfect searches as Hard.
        engine.set_placing_table(None);
        let r = engine
            .search(
                &p,
                &[],
                &crate::Limits {
                    depth: Some(2),
                    ..limits
                },
                &mut crate::NoClock,
            )
            .unwrap();
        assert_eq!(r.tb_hits, 0);
    }
}
