//! Whole games solved: every position of Three Men's Morris, placing included, with the
//! value the game gives it under its own draw rules (docs/TABLES.md says why these are
//! the game's values).
//!
//! Three has no removals and both sides place alternately, so a position is its board
//! and the side to move: the pieces on the board say what is left in each hand (3 minus
//! them), and the side to move is the first placer when both have placed as many, the
//! second when it has placed one fewer. Stored from the side to move's view, one table
//! serves both colours and `three+dark-first` too. Each of the 3⁹ boards (each point
//! empty, the side to move's or the other's) has one 16-bit word: a [`Value`] encoded as
//! the endgame tables encode theirs, or [`NOT_A_POSITION`].
//!
//! **What a word means.** While placing, the word is the game's value (placements never
//! count toward the hundred turns: the count is 0 until placing ends). Once both sides
//! move, the word is the distance under best play with no turn limit (the winner
//! hurrying, the loser delaying; a draw where neither can force a line or a blockade),
//! and the game's value with `q` turns of the hundred already played is that distance if
//! it is at most `100 - q`, else a draw ([`Whole::probe`]): nothing ever resets the count
//! in Three, so a win that takes longer than the turns left is a draw by the hundred-turn
//! rule, and one that fits is a win whatever the count (the loser cannot make it longer
//! than its distance). A placement that ends placing leads to the first moving position
//! at a count of 0, so a placing value takes its moving successors cut at 100 turns.
//!
//! **Repetition** does not enter the words: a shortest win never passes the same
//! position twice (its distance falls at every turn), so a position's value with no
//! earlier history is as stored, and threefold repetition only adds draws. With history,
//! [`Whole::best_turn`] scores a turn that would make a position occur for the third time
//! as the draw it is.

use super::{Value, rule_cut};
use mill_core::{Color, Position, Rules, Turn, Variant};

/// The word of an index that is no position of the game (more pieces than a hand holds,
/// placements out of step, the side to move already in a line).
pub const NOT_A_POSITION: u16 = u16::MAX;

const MAGIC: &[u8; 8] = b"MILLWG01";

/// Points of Three's board.
const POINTS: usize = 9;
/// Boards indexed: each point empty, the side to move's or the other's.
const BOARDS: usize = 19_683; // 3^9

/// Three Men's Morris solved from its empty board. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Whole {
    rules: &'static Rules,
    words: Vec<u16>,
}

/// A board seen from the side to move: its pieces and the other side's, as bitboards of
/// the topology's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Board {
    us: u32,
    them: u32,
}

impl Whole {
    /// Whether `rules` is a game solved whole here (`Err` says why not): Three Men's
    /// Morris, whoever places first.
    pub fn supports(rules: &Rules) -> Result<(), String> {
        if rules.variant == Variant::Three && rules.mill_wins && rules.topology.len() == POINTS {
            Ok(())
        } else {
            Err(format!(
                "{rules}: only Three Men's Morris is solved whole (Six's estimate is in docs/PERFORMANCE.md)"
            ))
        }
    }

    /// The rule set the table is for (`three`; it answers `three+dark-first` too).
    pub fn rules(&self) -> &'static Rules {
        self.rules
    }

    /// The table of Three, solved once per process (a few milliseconds) and kept.
    pub fn three() -> &'static Whole {
        static THREE: std::sync::OnceLock<Whole> = std::sync::OnceLock::new();
        THREE.get_or_init(|| Whole::generate(Variant::Three.rules()).expect("Three is solved whole"))
    }

    /// The position of `board` (Light is the side to move when both have placed as many,
    /// else Dark), with `quiet` turns of the hundred played; `None` when the counts are
    /// out of step.
    fn position(rules: &'static Rules, board: Board, quiet: u16) -> Option<Position> {
        let (m, o) = (board.us.count_ones() as u8, board.them.count_ones() as u8);
        if m > 3 || o > 3 || !(m == o || m + 1 == o) {
            return None;
        }
        // The first placer is to move when both have placed as many.
        let us_light = m == o;
        let (light, dark) = if us_light {
            (board.us, board.them)
        } else {
            (board.them, board.us)
        };
        let t = rules.topology;
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
                text.push(if light & bit != 0 {
                    'L'
                } else if dark & bit != 0 {
                    'D'
                } else {
                    '.'
                });
            }
        }
        let turn = if us_light { 'l' } else { 'd' };
        let (hl, hd) = (3 - light.count_ones(), 3 - dark.count_ones());
        text.push_str(&format!(" {turn} {hl} {hd} 0 {quiet}"));
        Position::from_str_variant(&text, rules).ok()
    }

    /// The bit of each of the board's points, in the topology's order.
    fn bits(rules: &Rules) -> [u32; POINTS] {
        let mut bits = [0; POINTS];
        for (slot, p) in bits.iter_mut().zip(rules.topology.points()) {
            *slot = 1 << p.index();
        }
        bits
    }

    fn board_at(bits: &[u32; POINTS], mut index: usize) -> Board {
        let mut board = Board { us: 0, them: 0 };
        for &bit in bits {
            match index % 3 {
                1 => board.us |= bit,
                2 => board.them |= bit,
                _ => {}
            }
            index /= 3;
        }
        board
    }

    fn index_of(bits: &[u32; POINTS], board: Board) -> usize {
        bits.iter().rev().fold(0, |acc, &bit| {
            acc * 3
                + if board.us & bit != 0 {
                    1
                } else if board.them & bit != 0 {
                    2
                } else {
                    0
                }
        })
    }

    /// The index of `position` (its side to move's view), if it is one of the table's:
    /// Three, both sides placing in step, no removal pending.
    fn index(&self, position: &Position) -> Option<usize> {
        let rules = position.rules();
        if rules.variant != self.rules.variant || position.pending_removals() > 0 {
            return None;
        }
        let us = position.pieces(position.turn()).0;
        let them = position.pieces(!position.turn()).0;
        let placed_us = 3 - position.in_hand(position.turn());
        let placed_them = 3 - position.in_hand(!position.turn());
        if placed_us != us.count_ones() as u8 || placed_them != them.count_ones() as u8 {
            return None;
        }
        let i = Self::index_of(&Self::bits(self.rules), Board { us, them });
        (self.words[i] != NOT_A_POSITION).then_some(i)
    }

    /// Solves Three: every position of the board, the moving ones by retrograde rounds,
    /// then the placing ones from the fullest board down.
    pub fn generate(rules: &'static Rules) -> Result<Whole, String> {
        Whole::supports(rules)?;
        // The table is the same for either first placer: make it for `three`.
        let rules = Variant::Three.rules();
        let bits = Self::bits(rules);
        let limit = rules.quiet_limit;
        let mut words = vec![NOT_A_POSITION; BOARDS];
        // Successors of each position not over, by index.
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); BOARDS];
        let mut moving = Vec::new();
        let mut placing: Vec<Vec<usize>> = vec![Vec::new(); 6];
        for (i, word) in words.iter_mut().enumerate() {
            let board = Self::board_at(&bits, i);
            let Some(position) = Self::position(rules, board, 0) else {
                continue;
            };
            if rules.topology.in_mills(board.us) != 0 {
                continue; // the side to move's own line would have ended the game
            }
            if position.outcome().is_some() {
                // The other side's line, or the side to move blocked.
                *word = Value::Loss(0).encode();
                continue;
            }
            *word = Value::Draw.encode();
            for turn in position.legal_turns() {
                let child = position.play_unchecked(turn);
                let cb = Board {
                    us: child.pieces(child.turn()).0,
                    them: child.pieces(!child.turn()).0,
                };
                succ[i].push(Self::index_of(&bits, cb) as u32);
            }
            let pieces = (board.us | board.them).count_ones() as usize;
            if pieces == 6 {
                moving.push(i);
            } else {
                placing[pieces].push(i);
            }
        }
        // Moving: rounds of distance d decide the wins in d (a successor lost in d - 1)
        // and the losses in d (every successor won, the longest in d - 1).
        let mut known = vec![false; BOARDS];
        for (i, &w) in words.iter().enumerate() {
            known[i] = w != NOT_A_POSITION && Value::decode(w) == Value::Loss(0);
        }
        let mut d = 1u16;
        loop {
            let mut decided = Vec::new();
            for &i in &moving {
                if known[i] {
                    continue;
                }
                let mut win = false;
                let mut all_won = true;
                let mut longest = 0;
                for &j in &succ[i] {
                    let j = j as usize;
                    match (known[j], Value::decode(words[j])) {
                        (true, Value::Loss(k)) if k + 1 == d => win = true,
                        (true, Value::Win(k)) => longest = longest.max(k + 1),
                        _ => all_won = false,
                    }
                }
                if win {
                    decided.push((i, Value::Win(d)));
                } else if all_won && longest == d {
                    decided.push((i, Value::Loss(d)));
                }
            }
            if decided.is_empty() {
                break;
            }
            for (i, v) in decided {
                words[i] = v.encode();
                known[i] = true;
            }
            d += 1;
        }
        // Placing, fullest first: moving successors start the count at 0.
        for pieces in (0..6).rev() {
            for &i in &placing[pieces] {
                let v = best_of(succ[i].iter().map(|&j| {
                    let v = Value::decode(words[j as usize]);
                    // Placing ends with the sixth piece.
                    if pieces == 5 { rule_cut(v, limit, 0) } else { v }
                }));
                words[i] = v.encode();
            }
        }
        Ok(Whole { rules, words })
    }

    /// The game's value of `position` for the side to move (its hundred-turn count
    /// applied; no earlier history), `None` when it is no position of the table's game.
    pub fn probe(&self, position: &Position) -> Option<Value> {
        let i = self.index(position)?;
        let v = Value::decode(self.words[i]);
        Some(
            if position.in_hand(Color::Light) + position.in_hand(Color::Dark) == 0 {
                rule_cut(v, self.rules.quiet_limit, position.quiet_turns())
            } else {
                v
            },
        )
    }

    /// Each legal turn of `position` with its value for the side playing it (the game's
    /// value after it, the count applied; a turn that makes a position occur for the
    /// third time in `history` is a draw). `history`: the game's positions' hashes at each
    /// turn boundary, oldest first, ending with `position` (as `Game::history`); empty for
    /// none. `None` when `position` is no position of the table's game or the game is over.
    pub fn turn_values(&self, position: &Position, history: &[u64]) -> Option<Vec<(Turn, Value)>> {
        self.probe(position)?;
        if position.outcome().is_some() {
            return None;
        }
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
                match self.probe(&child)? {
                    Value::Win(d) => Value::Loss(d + 1),
                    Value::Loss(d) => Value::Win(d + 1),
                    Value::Draw => Value::Draw,
                }
            };
            out.push((turn, v));
        }
        Some(out)
    }

    /// The Perfect level's turn: the shortest win, else a draw, else the longest loss;
    /// among turns as good, the one `seed` picks. With its value. `None` as for
    /// [`Whole::turn_values`].
    pub fn best_turn(&self, position: &Position, history: &[u64], seed: u64) -> Option<(Turn, Value)> {
        let values = self.turn_values(position, history)?;
        let key = |v: Value| match v {
            Value::Win(d) => 100_000 - i64::from(d),
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + i64::from(d),
        };
        let best = values.iter().map(|&(_, v)| key(v)).max()?;
        let ties: Vec<&(Turn, Value)> = values.iter().filter(|&&(_, v)| key(v) == best).collect();
        let pick = ties[(crate::mix(seed) % ties.len() as u64) as usize];
        Some(*pick)
    }

    /// Positions stored (indexes that are positions of the game).
    pub fn positions(&self) -> usize {
        self.words.iter().filter(|&&w| w != NOT_A_POSITION).count()
    }

    /// Positions reached from the empty board by legal play, and the longest forced win
    /// among them (in turns, at a count of 0: the longest a game can take to be won).
    pub fn reachable(&self) -> (usize, u16) {
        let bits = Self::bits(self.rules);
        let mut seen = vec![false; BOARDS];
        let mut stack = vec![0usize];
        seen[0] = true;
        let mut longest = 0;
        while let Some(i) = stack.pop() {
            // The value at a count of 0.
            let v = rule_cut(Value::decode(self.words[i]), self.rules.quiet_limit, 0);
            if let Value::Win(d) = v {
                longest = longest.max(d);
            }
            let Some(position) = Self::position(self.rules, Self::board_at(&bits, i), 0) else {
                continue;
            };
            if position.outcome().is_some() {
                continue;
            }
            for turn in position.legal_turns() {
                let child = position.play_unchecked(turn);
                let j = Self::index_of(
                    &bits,
                    Board {
                        us: child.pieces(child.turn()).0,
                        them: child.pieces(!child.turn()).0,
                    },
                );
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        (seen.iter().filter(|&&s| s).count(), longest)
    }

    /// Checks every word against the positions' successors as `mill-core` generates
    /// them: a position over is a loss in 0; any other the best of its successors (a
    /// win one turn longer than the shortest lost successor, a draw if any is drawn, a
    /// loss one turn longer than the longest won one), moving successors of a placing
    /// position cut at the hundred turns; an index that is no position holds
    /// [`NOT_A_POSITION`]. Returns the positions checked or the first mismatch.
    pub fn verify(&self) -> Result<u64, String> {
        let bits = Self::bits(self.rules);
        let mut checked = 0;
        for i in 0..BOARDS {
            let board = Self::board_at(&bits, i);
            let stored = self.words[i];
            let position =
                Self::position(self.rules, board, 0).filter(|_| self.rules.topology.in_mills(board.us) == 0);
            let Some(position) = position else {
                if stored != NOT_A_POSITION {
                    return Err(format!("index {i}: no position, but a value is stored"));
                }
                continue;
            };
            if stored == NOT_A_POSITION {
                return Err(format!("{position}: a position, but no value is stored"));
            }
            let expected = if position.outcome().is_some() {
                Value::Loss(0)
            } else {
                let placing = (board.us | board.them).count_ones() < 6;
                let mut children = Vec::new();
                for turn in position.legal_turns() {
                    let child = position.play_unchecked(turn);
                    let j = self
                        .index(&child)
                        .ok_or_else(|| format!("{position}: its successor {child} is not in the table"))?;
                    let v = Value::decode(self.words[j]);
                    let moving = child.in_hand(Color::Light) + child.in_hand(Color::Dark) == 0;
                    // The count starts at 0 when placing ends; moving to moving, the
                    // distances are the table's, uncut.
                    children.push(if placing && moving {
                        rule_cut(v, self.rules.quiet_limit, 0)
                    } else {
                        v
                    });
                }
                best_of(children.into_iter())
            };
            let stored = Value::decode(stored);
            if stored != expected {
                return Err(format!(
                    "{position}: stored {stored:?}, successors give {expected:?}"
                ));
            }
            checked += 1;
        }
        Ok(checked)
    }

    /// The file: `MILLWG01`, the rule set's name (a length byte, then its text), the
    /// number of words (4 bytes), then the words, each little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let name = self.rules.to_string();
        let mut out = Vec::with_capacity(13 + name.len() + 2 * self.words.len());
        out.extend_from_slice(MAGIC);
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(self.words.len() as u32).to_le_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Reads [`Whole::to_bytes`]' file back; anything else is refused.
    pub fn from_bytes(bytes: &[u8]) -> Result<Whole, String> {
        let bad = |why: &str| format!("not a whole-game table: {why}");
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or_else(|| bad("no header"))?;
        let (&len, rest) = rest.split_first().ok_or_else(|| bad("cut short"))?;
        let (name, rest) = rest
            .split_at_checked(len as usize)
            .ok_or_else(|| bad("cut short"))?;
        let name = std::str::from_utf8(name).map_err(|_| bad("an unreadable rule set"))?;
        let rules = Rules::parse(name).map_err(|e| bad(&format!("rule set {name:?}: {e}")))?;
        Whole::supports(rules).map_err(|e| bad(&e))?;
        let [a, b, c, d, words @ ..] = rest else {
            return Err(bad("cut short"));
        };
        let count = u32::from_le_bytes([*a, *b, *c, *d]) as usize;
        if count != BOARDS || words.len() != 2 * count {
            return Err(bad("wrong size"));
        }
        let words = words
            .chunks_exact(2)
            .map(|w| u16::from_le_bytes([w[0], w[1]]))
            .collect();
        Ok(Whole { rules, words })
    }

    /// The file's name for `rules`: `three-whole.mtw`.
    pub fn file_name(rules: &Rules) -> String {
        format!("{}-whole.mtw", rules.variant)
    }
}

/// A position's value from its successors' values (for the side to move in each): the
/// shortest win over a lost successor, else a draw, else the longest loss.
fn best_of(children: impl Iterator<Item = Value>) -> Value {
    let mut best_win: Option<u16> = None;
    let mut draw = false;
    let mut longest = 0;
    for v in children {
        match v {
            Value::Loss(d) => best_win = Some(best_win.map_or(d + 1, |b| b.min(d + 1))),
            Value::Draw => draw = true,
            Value::Win(d) => longest = longest.max(d + 1),
        }
    }
    match best_win {
        Some(d) => Value::Win(d),
        None if draw => Value::Draw,
        None => Value::Loss(longest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three(text: &str) -> Position {
        format!("{text} three").parse().unwrap()
    }

    #[test]
    fn the_table_checks_against_every_successor() {
        let whole = Whole::three();
        assert_eq!(whole.verify(), Ok(whole.positions() as u64));
        assert!(whole.positions() < BOARDS);
    }

    #[test]
    fn a_corrupted_value_is_caught() {
        let whole = Whole::three();
        let start = Position::new(Variant::Three);
        // The empty board, then a moving position, each made one turn shorter or longer.
        let moving = three("LLD/DL./.D. l 0 0 0 0");
        for position in [start, moving] {
            let i = whole.index(&position).unwrap();
            for bad in [Value::Draw, Value::Win(1), Value::Loss(3)] {
                if Value::decode(whole.words[i]) == bad {
                    continue;
                }
                let mut corrupt = whole.clone();
                corrupt.words[i] = bad.encode();
                assert!(corrupt.verify().is_err(), "{position}: {bad:?} passed");
            }
        }
        // A word on an index that is no position.
        let mut corrupt = whole.clone();
        let nothing = whole.words.iter().position(|&w| w == NOT_A_POSITION).unwrap();
        corrupt.words[nothing] = Value::Draw.encode();
        assert!(corrupt.verify().is_err());
    }

    #[test]
    fn hand_checked_positions() {
        let whole = Whole::three();
        // Light to move closes a7 d7 g7 by g4-g7: a win in 1.
        let p = three("LLL/D../D.D d 0 0 0 5");
        assert_eq!(p.outcome().map(|o| o.winner()), Some(Some(Color::Light)));
        assert_eq!(whole.probe(&p), Some(Value::Loss(0)));
        // Dark one piece short while moving: not a position of the game.
        let p = three("LL./D.L/..D l 0 0 0 5");
        assert_eq!(whole.probe(&p), None);
        let p = three("LL./D.L/D.D l 0 0 0 5");
        assert_eq!(whole.probe(&p), Some(Value::Win(1)));
        let (turn, v) = whole.best_turn(&p, &[], 7).unwrap();
        assert_eq!(v, Value::Win(1));
        assert_eq!(turn.to_notation(p.topology()), "g4-g7");
        // A placement that makes a line wins at once: Light has a7 d7 and places g7.
        let p = three("LL./.D./D.. l 1 1 0 0");
        assert_eq!(whole.probe(&p), Some(Value::Win(1)));
        assert_eq!(
            whole
                .best_turn(&p, &[], 1)
                .map(|(t, _)| t.to_notation(p.topology())),
            Some("g7".into())
        );
        // Dark to move must block g7 or lose at once; after blocking it is no loss in 1.
        let p = three("LL./.D./... d 1 2 0 0");
        let values = whole.turn_values(&p, &[]).unwrap();
        for (turn, v) in values {
            if turn.to_notation(p.topology()) == "g7" {
                assert_ne!(v, Value::Loss(2), "g7");
            } else {
                assert_eq!(v, Value::Loss(2), "{}", turn.to_notation(p.topology()));
            }
        }
    }

    #[test]
    fn the_hundred_turns_cut_long_wins() {
        let whole = Whole::three();
        // A moving position won in 1 at any count up to 99; at 99 the line still counts
        // (the board is checked before the hundred turns).
        let p = three("LL./D.L/D.D l 0 0 0 99");
        assert_eq!(whole.probe(&p), Some(Value::Win(1)));
        // Find a win longer than 1 and check it is cut exactly at its distance.
        let bits = Whole::bits(whole.rules);
        let (i, d) = (0..BOARDS)
            .filter_map(|i| match Value::decode(whole.words[i]) {
                Value::Win(d) if d > 2 && d < 100 && whole.words[i] != NOT_A_POSITION => Some((i, d)),
                _ => None,
            })
            .find(|&(i, _)| {
                let b = Whole::board_at(&bits, i);
                (b.us | b.them).count_ones() == 6
            })
            .unwrap();
        let board = Whole::board_at(&bits, i);
        let at = |q: u16| Whole::position(whole.rules, board, q).unwrap();
        assert_eq!(whole.probe(&at(100 - d)), Some(Value::Win(d)));
        assert_eq!(whole.probe(&at(100 - d + 1)), Some(Value::Draw));
    }

    #[test]
    fn the_empty_board_and_the_longest_win() {
        let whole = Whole::three();
        let start = Position::new(Variant::Three);
        let v = whole.probe(&start).unwrap();
        // Every first placement: none loses for Light.
        let values = whole.turn_values(&start, &[]).unwrap();
        assert_eq!(values.len(), 9);
        let best = values
            .iter()
            .map(|&(_, v)| v)
            .fold(Value::Loss(0), |a, b| match (a, b) {
                (Value::Win(x), Value::Win(y)) => Value::Win(x.min(y)),
                (Value::Win(_), _) => a,
                (_, Value::Win(_)) => b,
                (Value::Draw, _) | (_, Value::Draw) => Value::Draw,
                (Value::Loss(x), Value::Loss(y)) => Value::Loss(x.max(y)),
            });
        assert_eq!(v, best);
        let (reached, longest) = whole.reachable();
        assert!(reached <= whole.positions());
        assert!(longest > 0);
        // Dark-first plays the same game with the colours' roles swapped.
        let dark_first = Position::start(Rules::parse("three+dark-first").unwrap());
        assert_eq!(whole.probe(&dark_first), Some(v));
        eprintln!("empty board: {v:?}; {reached} reachable, longest win {longest}");
    }

    #[test]
    fn a_third_occurrence_is_a_draw_to_the_table_player() {
        let whole = Whole::three();
        let bits = Whole::bits(whole.rules);
        // A lost moving position where the side to move steps there and back while the
        // other does too, twice: the position after its first step has then occurred
        // twice, and stepping there again draws instead of losing.
        let reverse = |t: &Turn| Turn::step(t.to(), t.from().unwrap());
        let cycle = (0..BOARDS).find_map(|i| {
            let board = Whole::board_at(&bits, i);
            if (board.us | board.them).count_ones() != 6
                || !matches!(Value::decode(whole.words[i]), Value::Loss(d) if d > 1)
            {
                return None;
            }
            let p = Whole::position(whole.rules, board, 0)?;
            for x in p.legal_turns() {
                let a = p.play_unchecked(x);
                for y in a.legal_turns() {
                    let b = a.play_unchecked(y);
                    if a.is_over() || b.is_over() || !b.legal_turns().contains(&reverse(&x)) {
                        continue;
                    }
                    let c = b.play_unchecked(reverse(&x));
                    if !c.is_over() && c.legal_turns().contains(&reverse(&y)) {
                        return Some((p, [x, y, reverse(&x), reverse(&y)]));
                    }
                }
            }
            None
        });
        let (p, turns) = cycle.unwrap();
        let mut history = vec![p.hash()];
        let mut at = p;
        for t in turns.iter().chain(&turns) {
            at = at.play(*t).unwrap();
            history.push(at.hash());
        }
        assert_eq!(at.hash(), p.hash());
        let fresh = whole.turn_values(&at, &[]).unwrap();
        let seen = whole.turn_values(&at, &history).unwrap();
        for ((turn, before), (_, now)) in fresh.into_iter().zip(seen) {
            assert!(matches!(before, Value::Loss(_)), "{p}: {before:?}");
            if turn == turns[0] {
                assert_eq!(now, Value::Draw);
            } else {
                assert_eq!(now, before);
            }
        }
        assert_eq!(whole.best_turn(&at, &history, 3), Some((turns[0], Value::Draw)));
        // Where the table wins, a line is checked before repetition.
        let p = three("LL./D.L/D.D l 0 0 0 5");
        let mut history = Vec::new();
        for t in p.legal_turns() {
            history.push(p.play_unchecked(t).hash());
        }
        history.push(p.hash());
        assert_eq!(
            whole
                .best_turn(&p, &history, 3)
                .map(|(t, v)| (t.to_notation(p.topology()), v)),
            Some(("g4-g7".into(), Value::Win(1)))
        );
    }

    #[test]
    fn the_file_round_trips_and_bad_files_are_refused() {
        let whole = Whole::three();
        let bytes = whole.to_bytes();
        assert_eq!(Whole::from_bytes(&bytes).as_ref(), Ok(whole));
        assert!(Whole::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(Whole::from_bytes(b"MILLTB01").is_err());
        let mut six = bytes.clone();
        six[9..14].copy_from_slice(b"three");
        six.splice(9..14, b"six".iter().copied());
        six[8] = 3;
        assert!(Whole::from_bytes(&six).is_err());
        assert!(Whole::generate(Variant::Nine.rules()).is_err());
        // Generating again gives the same bytes.
        assert_eq!(Whole::generate(Variant::Three.rules()).unwrap().to_bytes(), bytes);
    }
}
