//! Endgame tablebases: every position with both sides out of hand and at most `max`
//! pieces each, solved by retrograde analysis.
//!
//! A position is stored from the side to move's view (`us` to move, `them`), so the two
//! colours share one table, and only one position of each orbit under the board's
//! symmetries (found from the topology: the permutations of points that keep segments
//! and mill lines) is stored. A *class* is one material, `m` pieces for the side to move
//! and `o` for the other; moves without a removal stay within {(m,o), (o,m)}, a removal
//! leads to a smaller class solved before.
//!
//! Each position has two values, win / draw / loss for the side to move with a distance
//! in turns (both sides' turns):
//! - **DTZ**, the distance to the next removal (or the end of the game) when the winner
//!   hurries to it and the loser delays it; a removal leads into the smaller class at a
//!   quiet count of 0, where a win is a win only if its DTZ fits in the quiet-turn limit.
//!   With `q` quiet turns already played, a DTZ win is a win only if `dtz <= limit - q`;
//!   else the 100-turn rule draws it.
//! - **DTW**, the distance to the end of the game under best play (quiet-turn limit not
//!   applied), what `win in N` reports.
//!
//! Playing DTZ-optimal turns (the fastest to the next removal among winning turns)
//! always wins within the quiet-turn limit: each removal leads to a smaller class, and
//! the game ends. Repetition is not part of the tables (a forced win never needs it).
//!
//! Tables are for one rule set ([`Rules`]: the board, the flying threshold, the losing
//! piece count, protected mills, removals and the quiet-turn limit), and answer only
//! positions played under it. Rule sets where a line wins at once (Three Men's Morris)
//! are not supported, and those with a removal per mill only up to
//! [`MAX_PER_MILL_PIECES`] a side, where no step closes two mills. The verifier ([`Tablebase::verify`]) checks every stored value against the successors
//! that `mill-core` itself generates.

use mill_core::{Color, Position, RemovalRule, Rules, Topology, Turn, Variant};

#[cfg(not(target_family = "wasm"))]
pub mod files;
mod placing;
mod whole;
pub use placing::Placing;
pub use whole::{NOT_A_POSITION, Whole};
mod index;
use index::{BINOMIAL, Symmetries, rank_in, subsets, unrank};

/// The most points a board may have (bitboards are `u32`).
const MAX_POINTS: usize = 32;
/// "No value yet" in the generator's distance arrays.
const NONE: u16 = u16::MAX;

/// A value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// The side to move wins in this many turns (both sides' turns).
    Win(u16),
    /// The side to move loses in this many turns.
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

impl Value {
    fn encode(self) -> u16 {
        match self {
            Value::Draw => 0,
            Value::Win(d) => ((d + 1) << 1) | 1,
            Value::Loss(d) => (d + 1) << 1,
        }
    }

    fn decode(v: u16) -> Value {
        if v == 0 {
            Value::Draw
        } else if v & 1 == 1 {
            Value::Win((v >> 1) - 1)
        } else {
            Value::Loss((v >> 1) - 1)
        }
    }
}

/// What the tables say about one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Distance to the next removal (or the end) under DTZ-optimal play, ignoring the
    /// quiet turns already played.
    pub dtz: Value,
    /// Distance to the end of the game under best play, quiet-turn limit not applied.
    pub dtw: Value,
    /// The result with the quiet turns already played: a DTZ win that does not fit in
    /// the turns left is a draw. Win and loss carry the DTW distance.
    pub result: Value,
}

/// One material: `m` pieces for the side to move, `o` for the other.
#[derive(Clone, Debug)]
struct Class {
    m: u8,
    o: u8,
    /// Rank of each `m`-subset of the board among all of them → its position among the
    /// representatives (or `u32::MAX`).
    us_index: Vec<u32>,
    /// Positions per representative `us`: C(points − m, o).
    per_us: u32,
    /// Positions stored (some indexes are not representatives).
    len: usize,
    values: Values,
}

impl Class {
    fn len(&self) -> usize {
        self.len
    }

    /// The stored (DTZ, DTW) words of index `i`; `None` when a [`ClassStore`] cannot read
    /// them.
    #[inline]
    fn words(&self, i: usize) -> Option<(u16, u16)> {
        match &self.values {
            Values::Owned { dtz, dtw } => Some((*dtz.get(i)?, *dtw.get(i)?)),
            Values::Store(store) => store.words(i),
        }
    }
}

/// Where a class's stored values are read from when they are not the generator's own
/// vectors: the command line keeps each class file where it is and reads it on first use
/// ([`Tablebase::attach_class`]), so a probe does not load every table first.
pub trait ClassStore: Send + Sync + std::fmt::Debug {
    /// The stored words of index `index` of the class, DTZ then DTW, as the class file
    /// holds them (after its [`FileHeader`]: every DTZ word, then every DTW word, each
    /// little-endian); `None` when they cannot be read.
    fn words(&self, index: usize) -> Option<(u16, u16)>;
}

/// The values of one class: the generator's vectors (or a file read whole), or a
/// [`ClassStore`].
#[derive(Clone, Debug)]
enum Values {
    Owned { dtz: Vec<u16>, dtw: Vec<u16> },
    Store(std::sync::Arc<dyn ClassStore>),
}

/// Solved endgames of one rule set. See the module docs.
#[derive(Clone, Debug)]
pub struct Tablebase {
    rules: Rules,
    syms: Symmetries,
    /// Classes by (m, o); `None` where not generated or not loaded.
    classes: Vec<Vec<Option<Class>>>,
}

/// Which distance a solving pass computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Metric {
    Dtz,
    Dtw,
}

const MAGIC: &[u8; 8] = b"MILLTB01";

impl Tablebase {
    /// An empty tablebase for a rule set (a [`Variant`] stands for its usual rules): no
    /// class yet.
    pub fn new(rules: impl Into<Rules>) -> Tablebase {
        let rules = rules.into();
        let size = rules.pieces as usize + 1;
        Tablebase {
            rules,
            syms: Symmetries::of(rules.topology),
            classes: vec![vec![None; size]; size],
        }
    }

    /// The variant the tables are for.
    pub fn variant(&self) -> Variant {
        self.rules.variant
    }

    /// Whether [`Tablebase::generate`] can solve endings of `rules` (`Err` says why not).
    /// Rule sets with a removal per mill are solved up to [`MAX_PER_MILL_PIECES`] a side,
    /// where no step closes two mills, so that they play exactly as one removal a turn.
    pub fn supports(rules: impl Into<Rules>) -> Result<(), String> {
        let rules: Rules = rules.into();
        if rules.mill_wins {
            return Err(format!(
                "{rules}: a line wins at once, there are no endings to solve"
            ));
        }
        Ok(())
    }

    /// How many symmetries of the board are used.
    pub fn symmetries(&self) -> usize {
        self.syms.tables.len()
    }

    /// The classes present: (pieces of the side to move, of the other, positions stored).
    pub fn classes(&self) -> Vec<(u8, u8, usize)> {
        let mut out = Vec::new();
        for row in &self.classes {
            for c in row.iter().flatten() {
                out.push((c.m, c.o, c.len()));
            }
        }
        out
    }

    /// The most pieces a side has in any class present (0: none).
    pub fn max_pieces(&self) -> u8 {
        self.classes()
            .iter()
            .map(|&(m, o, _)| m.max(o))
            .max()
            .unwrap_or(0)
    }

    /// The rule set the tables are for; they answer positions of no other.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Whether the class of `m` pieces for the side to move and `o` for the other is
    /// present.
    pub fn has_class(&self, m: u8, o: u8) -> bool {
        self.class(m, o).is_some()
    }

    fn class(&self, m: u8, o: u8) -> Option<&Class> {
        self.classes.get(m as usize)?.get(o as usize)?.as_ref()
    }

    /// Solves every class with `lose_below` to `max` pieces a side, smallest first;
    /// `progress` hears of each class as it is done.
    pub fn generate(
        rules: impl Into<Rules>,
        max: u8,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Tablebase, String> {
        let rules: Rules = rules.into();
        Tablebase::supports(rules)?;
        if rules.removals == RemovalRule::PerMill && max > MAX_PER_MILL_PIECES {
            return Err(format!(
                "{rules}: with a removal per mill, at most {MAX_PER_MILL_PIECES} pieces a side (with more, one step can close two mills)"
            ));
        }
        let low = rules.lose_below.max(1);
        if max < low || max > rules.pieces || max > MAX_CLASS_PIECES {
            return Err(format!(
                "pieces per side must be {low} to {}",
                rules.pieces.min(MAX_CLASS_PIECES)
            ));
        }
        let mut tb = Tablebase::new(rules);
        for total in 2 * low..=2 * max {
            for m in low..=max {
                let o = total - m;
                if o < m || o > max || o < low {
                    continue;
                }
                let group: Vec<(u8, u8)> = if m == o {
                    vec![(m, o)]
                } else {
                    vec![(m, o), (o, m)]
                };
                let mut classes: Vec<Class> = group.iter().map(|&(m, o)| tb.empty_class(m, o)).collect();
                let dtz = tb.solve(&classes, Metric::Dtz);
                let dtw = tb.solve(&classes, Metric::Dtw);
                for ((c, dtz), dtw) in classes.iter_mut().zip(dtz).zip(dtw) {
                    c.values = Values::Owned { dtz, dtw };
                }
                for c in classes {
                    progress(&format!("{}v{}: {} positions", c.m, c.o, c.len()));
                    let (m, o) = (c.m as usize, c.o as usize);
                    tb.classes[m][o] = Some(c);
                }
            }
        }
        Ok(tb)
    }

    fn empty_class(&self, m: u8, o: u8) -> Class {
        let t = self.rules().topology;
        let all = t.all().0;
        let n = all.count_ones() as usize;
        let mut us_index = vec![u32::MAX; BINOMIAL[n][m as usize] as usize];
        let mut count = 0;
        for us in subsets(all, u32::from(m)) {
            if self.syms.canonical(us, 0).0 == us {
                us_index[rank_in(us, all) as usize] = count;
                count += 1;
            }
        }
        let per_us = BINOMIAL[n - m as usize][o as usize];
        let size = count as usize * per_us as usize;
        Class {
            m,
            o,
            us_index,
            per_us,
            len: size,
            values: Values::Owned {
                dtz: vec![0; size],
                dtw: vec![0; size],
            },
        }
    }

    /// The index of the representative of (us, them) in `class`.
    #[inline]
    fn index(&self, class: &Class, us: u32, them: u32) -> usize {
        let all = self.rules().topology.all().0;
        let (u, t) = self.syms.canonical(us, them);
        let row = class.us_index[rank_in(u, all) as usize];
        row as usize * class.per_us as usize + rank_in(t, all & !u) as usize
    }

    /// The position at `index` of `class` and whether it is its orbit's representative.
    fn at(&self, class: &Class, index: usize, reps: &[u32]) -> (u32, u32) {
        let all = self.rules().topology.all().0;
        let us = reps[index / class.per_us as usize];
        let rank = (index % class.per_us as usize) as u32;
        (us, unrank(rank, all & !us, class.o as u32))
    }

    fn representatives(&self, class: &Class) -> Vec<u32> {
        let all = self.rules().topology.all().0;
        let mut reps = vec![0; class.len() / class.per_us.max(1) as usize];
        for us in subsets(all, u32::from(class.m)) {
            let i = class.us_index[rank_in(us, all) as usize];
            if i != u32::MAX {
                reps[i as usize] = us;
            }
        }
        reps
    }

    /// Calls `f(from, to, us after)` for each step of `us` (a flight if it flies).
    #[inline]
    fn steps(&self, us: u32, them: u32, mut f: impl FnMut(u32, u32)) {
        let rules = self.rules();
        let t = rules.topology;
        let empty = t.all().0 & !(us | them);
        let flies = rules.flies_with(us.count_ones());
        let mut pieces = us;
        while pieces != 0 {
            let from = pieces.trailing_zeros();
            pieces &= pieces - 1;
            let targets = if flies {
                empty
            } else {
                mill_core::Point::from_index(from as usize).map_or(0, |p| t.neighbours(p).0) & empty
            };
            let mut rest = targets;
            while rest != 0 {
                let to = rest.trailing_zeros();
                rest &= rest - 1;
                f(to, us ^ (1 << from) ^ (1 << to));
            }
        }
    }

    /// Whether `us` closes a mill with a piece arriving on `to`.
    #[inline]
    fn closes(&self, us: u32, to: u32) -> bool {
        mill_core::Point::from_index(to as usize)
            .is_some_and(|p| self.rules().topology.mills_through(us, p) > 0)
    }

    /// The pieces of `them` that may be removed.
    #[inline]
    fn removable(&self, them: u32) -> u32 {
        self.rules().removable(them)
    }

    /// The value for the side to move in a position reached by a removal (quiet count 0),
    /// for the metric: DTZ values are cut by the quiet-turn limit.
    fn after_removal(&self, us: u32, them: u32, metric: Metric) -> Value {
        let (m, o) = (us.count_ones() as u8, them.count_ones() as u8);
        if m < self.rules().lose_below {
            return Value::Loss(0);
        }
        let Some(class) = self.class(m, o) else {
            return Value::Draw;
        };
        let i = self.index(class, us, them);
        let Some((dtz, dtw)) = class.words(i) else {
            return Value::Draw;
        };
        match metric {
            Metric::Dtz => rule_cut(Value::decode(dtz), self.rules().quiet_limit, 0),
            Metric::Dtw => Value::decode(dtw),
        }
    }

    /// Retrograde analysis of one group of classes (one material and its mirror).
    fn solve(&self, classes: &[Class], metric: Metric) -> Vec<Vec<u16>> {
        let offsets: Vec<usize> = classes
            .iter()
            .scan(0, |acc, c| {
                let o = *acc;
                *acc += c.len();
                Some(o)
            })
            .collect();
        let total: usize = classes.iter().map(Class::len).sum();
        let reps: Vec<Vec<u32>> = classes.iter().map(|c| self.representatives(c)).collect();
        let class_of = |m: u8| classes.iter().position(|c| c.m == m).unwrap_or(0);
        let mut done = vec![false; total];
        let mut value = vec![0u16; total];
        let mut counter = vec![0u16; total];
        let mut win_removal = vec![false; total];
        let mut max_win = vec![0u16; total];
        let mut lose_after = vec![0u16; total];
        let mut can_draw = vec![false; total];
        let mut buckets: Vec<Vec<(u32, bool)>> = Vec::new();
        let push = |buckets: &mut Vec<Vec<(u32, bool)>>, d: u16, i: usize, win: bool| {
            let d = d as usize;
            if buckets.len() <= d {
                buckets.resize_with(d + 1, Vec::new);
            }
            buckets[d].push((i as u32, win));
        };
        let mut succ = Vec::with_capacity(128);
        for (k, class) in classes.iter().enumerate() {
            let next = class_of(class.o);
            for local in 0..class.len() {
                let i = offsets[k] + local;
                let (us, them) = self.at(class, local, &reps[k]);
                if self.syms.canonical(us, them) != (us, them) {
                    done[i] = true; // not a representative: never looked up
                    continue;
                }
                succ.clear();
                let mut any = false;
                let mut win_at = NONE;
                let mut lose_at = 0u16;
                self.steps(us, them, |to, after| {
                    any = true;
                    if self.closes(after, to) {
                        // One removal, whatever the rule for double mills: a class has too
                        // few pieces to close two (MAX_PER_MILL_PIECES).
                        debug_assert!(
                            mill_core::Point::from_index(to as usize).is_some_and(|p| self
                                .rules()
                                .topology
                                .mills_through(after, p)
                                == 1)
                                || self.rules().removals == RemovalRule::One
                        );
                        let mut rest = self.removable(them);
                        while rest != 0 {
                            let r = rest.trailing_zeros();
                            rest &= rest - 1;
                            let v = self.after_removal(them & !(1 << r), after, metric);
                            let plus = |d: u16| match metric {
                                Metric::Dtz => 1,
                                Metric::Dtw => d + 1,
                            };
                            match v {
                                Value::Loss(d) => win_at = win_at.min(plus(d)),
                                Value::Win(d) => lose_at = lose_at.max(plus(d)),
                                Value::Draw => can_draw[i] = true,
                            }
                        }
                    } else {
                        let j = offsets[next] + self.index(&classes[next], them, after);
                        succ.push(j as u32);
                    }
                });
                succ.sort_unstable();
                succ.dedup();
                counter[i] = succ.len() as u16;
                win_removal[i] = win_at != NONE;
                lose_after[i] = lose_at;
                if !any {
                    push(&mut buckets, 0, i, false);
                } else if win_at != NONE {
                    push(&mut buckets, win_at, i, true);
                } else if succ.is_empty() && !can_draw[i] {
                    push(&mut buckets, lose_at, i, false);
                }
            }
        }
        let mut preds = Vec::with_capacity(256);
        let mut d = 0;
        while d < buckets.len() {
            let level = std::mem::take(&mut buckets[d]);
            for (i, win) in level {
                let i = i as usize;
                if done[i] {
                    continue;
                }
                done[i] = true;
                let dist = d as u16;
                value[i] = if win { Value::Win(dist) } else { Value::Loss(dist) }.encode();
                // The positions one turn before: the other side stepped here.
                let k = offsets.iter().rposition(|&o| o <= i).unwrap_or(0);
                let (us, them) = self.at(&classes[k], i - offsets[k], &reps[k]);
                let before = class_of(classes[k].o);
                preds.clear();
                self.unsteps(them, us, |prev| {
                    let j = offsets[before] + self.index(&classes[before], prev, us);
                    preds.push(j as u32);
                });
                preds.sort_unstable();
                preds.dedup();
                for &j in &preds {
                    let j = j as usize;
                    if done[j] {
                        continue;
                    }
                    if !win {
                        push(&mut buckets, dist + 1, j, true);
                    } else {
                        counter[j] = counter[j].saturating_sub(1);
                        max_win[j] = max_win[j].max(dist + 1);
                        if counter[j] == 0 && !can_draw[j] && !win_removal[j] {
                            push(&mut buckets, max_win[j].max(lose_after[j]), j, false);
                        }
                    }
                }
            }
            d += 1;
        }
        classes
            .iter()
            .zip(offsets)
            .map(|(c, o)| value[o..o + c.len()].to_vec())
            .collect()
    }

    /// Calls `f(mover before)` for each step of `mover` that led here without closing a
    /// mill (`other` is the side that did not move).
    fn unsteps(&self, mover: u32, other: u32, mut f: impl FnMut(u32)) {
        let rules = self.rules();
        let t = rules.topology;
        let empty = t.all().0 & !(mover | other);
        let flies = rules.flies_with(mover.count_ones());
        let mut pieces = mover;
        while pieces != 0 {
            let to = pieces.trailing_zeros();
            pieces &= pieces - 1;
            if self.closes(mover, to) {
                continue;
            }
            let origins = if flies {
                empty
            } else {
                mill_core::Point::from_index(to as usize).map_or(0, |p| t.neighbours(p).0) & empty
            };
            let mut rest = origins;
            while rest != 0 {
                let from = rest.trailing_zeros();
                rest &= rest - 1;
                f(mover ^ (1 << to) ^ (1 << from));
            }
        }
    }

    /// The stored values of `position`, if its class is present: both sides out of hand,
    /// no removal pending, piece counts within the tables.
    pub fn probe(&self, position: &Position) -> Option<Probe> {
        if position.rules() != self.rules
            || position.pending_removals() > 0
            || position.in_hand(Color::Light) > 0
            || position.in_hand(Color::Dark) > 0
        {
            return None;
        }
        let us = position.pieces(position.turn()).0;
        let them = position.pieces(!position.turn()).0;
        let class = self.class(us.count_ones() as u8, them.count_ones() as u8)?;
        let i = self.index(class, us, them);
        let (dtz, dtw) = class.words(i)?;
        let (dtz, dtw) = (Value::decode(dtz), Value::decode(dtw));
        let result = match rule_cut(dtz, self.rules().quiet_limit, position.quiet_turns()) {
            Value::Draw => Value::Draw,
            Value::Win(_) => match dtw {
                Value::Win(n) => Value::Win(n),
                _ => Value::Draw,
            },
            Value::Loss(_) => match dtw {
                Value::Loss(n) => Value::Loss(n),
                _ => Value::Draw,
            },
        };
        Some(Probe { dtz, dtw, result })
    }

    /// The value of the position after a turn, for the side then to move (the game's
    /// end counts as a loss in 0).
    fn after(&self, child: &Position) -> Option<Value> {
        if let Some(outcome) = child.outcome() {
            return Some(match outcome.winner() {
                Some(w) if w == child.turn() => Value::Win(0),
                Some(_) => Value::Loss(0),
                None => Value::Draw,
            });
        }
        let probe = self.probe(child)?;
        Some(rule_cut(probe.dtz, self.rules().quiet_limit, child.quiet_turns()))
    }

    /// The best turn by the tables: the fastest to the next removal among winning turns
    /// (the winner's way through the quiet-turn limit), a drawing turn, or the slowest
    /// loss; with the position's [`Probe`]. `None` outside the tables.
    pub fn best_turn(&self, position: &Position) -> Option<(Turn, Probe)> {
        let probe = self.probe(position)?;
        let mut best: Option<(i64, Turn)> = None;
        for turn in position.legal_turns() {
            let child = position.play_unchecked(turn);
            let v = match self.after(&child)? {
                // A removal is the next removal: distance 0 from the child.
                Value::Win(_) if !turn.removals().is_empty() => Value::Win(0),
                Value::Loss(_) if !turn.removals().is_empty() => Value::Loss(0),
                v => v,
            };
            let dtw = self.probe(&child).map_or(0, |p| match p.dtw {
                Value::Win(d) | Value::Loss(d) => i64::from(d),
                Value::Draw => 0,
            });
            // Higher is better for the side to move.
            let key = match v {
                Value::Loss(d) => 1_000_000_000 - i64::from(d) * 1000 - dtw,
                Value::Draw => 0,
                Value::Win(d) => -1_000_000_000 + i64::from(d) * 1000 + dtw,
            };
            if best.is_none_or(|(k, _)| key > k) {
                best = Some((key, turn));
            }
        }
        best.map(|(_, t)| (t, probe))
    }

    /// The value of each legal turn of `position` for the side that plays it, judged
    /// as [`Probe::result`] is (a win that the quiet-turn limit would draw is a draw; a
    /// turn that ends the game is a win in 0). `None` outside the tables, or when a
    /// successor is.
    pub fn turn_values(&self, position: &Position) -> Option<Vec<(Turn, Value)>> {
        self.probe(position)?;
        let mut out = Vec::new();
        for turn in position.legal_turns() {
            let child = position.play_unchecked(turn);
            let value = match self.after(&child)? {
                Value::Win(d) => Value::Loss(d),
                Value::Loss(d) => Value::Win(d),
                Value::Draw => Value::Draw,
            };
            out.push((turn, value));
        }
        Some(out)
    }

    /// The result of each legal turn of `position` for the side that plays it, as
    /// [`Probe::result`] judges the position it leads to (the quiet turns counted: a win
    /// that the hundred turns would draw is a draw), its distance counting the turn
    /// itself: a turn that ends the game wins in 1; one into a position lost in `d` wins
    /// in `d + 1`. `None` outside the tables, or when a successor is.
    pub fn turn_results(&self, position: &Position) -> Option<Vec<(Turn, Value)>> {
        self.probe(position)?;
        let mut out = Vec::new();
        for turn in position.legal_turns() {
            let child = position.play_unchecked(turn);
            let value = match child.outcome() {
                Some(outcome) => match outcome.winner() {
                    Some(w) if w == child.turn() => Value::Loss(1),
                    Some(_) => Value::Win(1),
                    None => Value::Draw,
                },
                None => match self.probe(&child)?.result {
                    Value::Win(d) => Value::Loss(d + 1),
                    Value::Loss(d) => Value::Win(d + 1),
                    Value::Draw => Value::Draw,
                },
            };
            out.push((turn, value));
        }
        Some(out)
    }

    /// The positions stored for class `m`v`o` (pieces of the side to move, of the
    /// other), to read by index; `None` when the class is absent.
    pub fn class_positions(&self, m: u8, o: u8) -> Option<ClassPositions<'_>> {
        let class = self.class(m, o)?;
        Some(ClassPositions {
            tb: self,
            class,
            reps: self.representatives(class),
        })
    }

    /// Checks every stored value against its successors as `mill-core` generates them;
    /// returns the positions checked or the first mismatch.
    pub fn verify(&self, progress: &mut dyn FnMut(&str)) -> Result<u64, String> {
        let mut checked = 0u64;
        for row in &self.classes {
            for class in row.iter().flatten() {
                let reps = self.representatives(class);
                for i in 0..class.len() {
                    let (us, them) = self.at(class, i, &reps);
                    if self.syms.canonical(us, them) != (us, them) {
                        continue;
                    }
                    let position = self.position(us, them)?;
                    let (dtz, dtw) = class
                        .words(i)
                        .ok_or_else(|| format!("{position}: its values cannot be read"))?;
                    for metric in [Metric::Dtz, Metric::Dtw] {
                        let stored = Value::decode(match metric {
                            Metric::Dtz => dtz,
                            Metric::Dtw => dtw,
                        });
                        let expected = self.value_from_successors(&position, metric)?;
                        if stored != expected {
                            return Err(format!(
                                "{position}: stored {stored:?}, successors give {expected:?} ({})",
                                match metric {
                                    Metric::Dtz => "DTZ",
                                    Metric::Dtw => "DTW",
                                }
                            ));
                        }
                    }
                    checked += 1;
                }
                progress(&format!("{}v{}: verified", class.m, class.o));
            }
        }
        Ok(checked)
    }

    /// The value of `position` from its successors' stored values.
    fn value_from_successors(&self, position: &Position, metric: Metric) -> Result<Value, String> {
        let mut best_win: Option<u16> = None;
        let mut draw = false;
        let mut worst_loss = 0u16;
        for turn in position.legal_turns() {
            let child = position.play_unchecked(turn);
            let removal = !turn.removals().is_empty();
            let v = if let Some(outcome) = child.outcome() {
                match outcome.winner() {
                    Some(w) if w == child.turn() => Value::Win(0),
                    Some(_) => Value::Loss(0),
                    None => Value::Draw,
                }
            } else {
                let p = self
                    .probe(&child)
                    .ok_or_else(|| format!("{child}: a successor outside the tables"))?;
                match (metric, removal) {
                    (Metric::Dtz, true) => match rule_cut(p.dtz, self.rules().quiet_limit, 0) {
                        Value::Win(_) => Value::Win(0),
                        Value::Loss(_) => Value::Loss(0),
                        Value::Draw => Value::Draw,
                    },
                    (Metric::Dtz, false) => p.dtz,
                    (Metric::Dtw, _) => p.dtw,
                }
            };
            match v {
                Value::Loss(d) => best_win = Some(best_win.map_or(d + 1, |b| b.min(d + 1))),
                Value::Draw => draw = true,
                Value::Win(d) => worst_loss = worst_loss.max(d + 1),
            }
        }
        Ok(match best_win {
            Some(d) => Value::Win(d),
            None if draw => Value::Draw,
            None => Value::Loss(worst_loss),
        })
    }

    /// A position with `us` to move and both hands empty, through the position string
    /// (so that `mill-core` validates it).
    fn position(&self, us: u32, them: u32) -> Result<Position, String> {
        // Light to move with `us`; the colours' roles are symmetric out of hand.
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
        text.push_str(" l 0 0 0 0");
        Position::from_str_variant(&text, self.rules).map_err(|e| format!("{text}: {e}"))
    }

    /// The stored form of one class: a header ([`FileHeader`]), then the DTZ and DTW
    /// values.
    pub fn class_bytes(&self, m: u8, o: u8) -> Option<Vec<u8>> {
        let class = self.class(m, o)?;
        let name = self.rules.to_string();
        let mut out = Vec::with_capacity(16 + name.len() + class.len() * 4);
        out.extend_from_slice(MAGIC);
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.push(m);
        out.push(o);
        out.extend_from_slice(&(class.len() as u32).to_le_bytes());
        let words: Vec<(u16, u16)> = (0..class.len()).map(|i| class.words(i)).collect::<Option<_>>()?;
        for v in words.iter().map(|w| w.0).chain(words.iter().map(|w| w.1)) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        Some(out)
    }

    /// Adds a class read back from [`Tablebase::class_bytes`]; a file of another rule
    /// set, of impossible material or of the wrong size is refused.
    pub fn load_class(&mut self, bytes: &[u8]) -> Result<(u8, u8), String> {
        let bad = |why: &str| format!("not a tablebase file of {}: {why}", self.rules);
        let (header, values) = FileHeader::read(bytes).map_err(|e| bad(&e))?;
        if header.rules != self.rules {
            return Err(bad(&format!("a table of {}", header.rules)));
        }
        let (m, o, count) = (header.m, header.o, header.positions);
        let mut class = self.empty_class(m, o);
        if count != class.len() || values.len() != count * 4 {
            return Err(bad("wrong size"));
        }
        let read = |k: usize| u16::from_le_bytes([values[2 * k], values[2 * k + 1]]);
        class.values = Values::Owned {
            dtz: (0..count).map(read).collect(),
            dtw: (count..2 * count).map(read).collect(),
        };
        self.classes[m as usize][o as usize] = Some(class);
        Ok((m, o))
    }

    /// Adds the class `header` describes, its values read from `store` when probed (the
    /// command line's files, read on first use: see [`ClassStore`]). A header of another
    /// rule set or of the wrong size is refused.
    pub fn attach_class(
        &mut self,
        header: &FileHeader,
        store: std::sync::Arc<dyn ClassStore>,
    ) -> Result<(u8, u8), String> {
        if header.rules != self.rules {
            return Err(format!(
                "not a tablebase file of {}: a table of {}",
                self.rules, header.rules
            ));
        }
        let (m, o) = (header.m, header.o);
        let mut class = self.empty_class(m, o);
        if header.positions != class.len() {
            return Err(format!("not a tablebase file of {}: wrong size", self.rules));
        }
        class.values = Values::Store(store);
        self.classes[m as usize][o as usize] = Some(class);
        Ok((m, o))
    }
}

/// The positions of one class by index ([`Tablebase::class_positions`]).
#[derive(Debug)]
pub struct ClassPositions<'t> {
    tb: &'t Tablebase,
    class: &'t Class,
    reps: Vec<u32>,
}

impl ClassPositions<'_> {
    /// How many indexes the class has (some are not positions: see [`Self::get`]).
    pub fn len(&self) -> usize {
        self.class.len()
    }

    /// Whether the class stores nothing.
    pub fn is_empty(&self) -> bool {
        self.class.len() == 0
    }

    /// The position at `index`, Light to move with the class's `m` pieces and no quiet
    /// turns played; `None` out of range or where the index is not the one stored for
    /// its orbit under the board's symmetries.
    pub fn get(&self, index: usize) -> Option<Position> {
        if index >= self.class.len() {
            return None;
        }
        let (us, them) = self.tb.at(self.class, index, &self.reps);
        if self.tb.syms.canonical(us, them) != (us, them) {
            return None;
        }
        self.tb.position(us, them).ok()
    }
}

/// What the start of a class file says: its rule set and material. Read without
/// loading the values (the server lists the files it serves from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// The rule set the class was solved for.
    pub rules: Rules,
    /// Pieces of the side to move.
    pub m: u8,
    /// Pieces of the other side.
    pub o: u8,
    /// Positions stored (each has two 2-byte values after the header).
    pub positions: usize,
}

impl FileHeader {
    /// The header of a class file and the bytes after it.
    pub fn read(bytes: &[u8]) -> Result<(FileHeader, &[u8]), String> {
        let rest = bytes.strip_prefix(MAGIC.as_slice()).ok_or("no header")?;
        let (&len, rest) = rest.split_first().ok_or("cut short")?;
        let (name, rest) = rest.split_at_checked(len as usize).ok_or("cut short")?;
        let name = std::str::from_utf8(name).map_err(|_| "an unreadable rule set")?;
        let rules = Rules::parse(name).map_err(|e| format!("rule set {name:?}: {e}"))?;
        let [m, o, a, b, c, d, values @ ..] = rest else {
            return Err("cut short".into());
        };
        let low = rules.lose_below;
        let mut high = rules.pieces.min(MAX_CLASS_PIECES);
        if rules.removals == RemovalRule::PerMill {
            high = high.min(MAX_PER_MILL_PIECES);
        }
        if !(low..=high).contains(m) || !(low..=high).contains(o) {
            return Err(format!("impossible material {m}v{o} for {rules}"));
        }
        let header = FileHeader {
            rules,
            m: *m,
            o: *o,
            positions: u32::from_le_bytes([*a, *b, *c, *d]) as usize,
        };
        Ok((header, values))
    }

    /// Where the values start in the file: the header's length.
    pub fn values_offset(&self) -> usize {
        MAGIC.len() + 1 + self.rules.to_string().len() + 6
    }

    /// The file's length: the header and two words a position.
    pub fn file_len(&self) -> usize {
        self.values_offset() + 4 * self.positions
    }

    /// The file's name: `<rules>-<m>v<o>.mtb` (`nine-4v4.mtb`, `six+per-mill-3v3.mtb`).
    pub fn file_name(&self) -> String {
        file_name(self.rules, self.m, self.o)
    }
}

/// The name of the file of class `m`v`o` of `rules` (see [`FileHeader::file_name`]).
pub fn file_name(rules: impl Into<Rules>, m: u8, o: u8) -> String {
    let rules: Rules = rules.into();
    format!("{rules}-{m}v{o}.mtb")
}

/// The most pieces a side may have in a class (the index needs C(points, m) entries).
pub const MAX_CLASS_PIECES: u8 = 8;

/// The most pieces a side may have in a class of a rule set with a removal per mill: two
/// mills closed by one piece take five pieces (two lines of three through it), so up to
/// four a side every closing earns exactly one removal, as with one removal a turn.
pub const MAX_PER_MILL_PIECES: u8 = 4;

/// `v` with `quiet` quiet turns played: a win or loss whose DTZ does not fit in the
/// turns left is a draw.
fn rule_cut(v: Value, limit: u16, quiet: u16) -> Value {
    let left = limit.saturating_sub(quiet);
    match v {
        Value::Win(d) | Value::Loss(d) if d > left => Value::Draw,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mill_core::MORRIS_24;

    #[test]
    fn the_board_has_sixteen_symmetries() {
        assert_eq!(Symmetries::of(&MORRIS_24).tables.len(), 16);
    }

    #[test]
    fn ranks_and_subsets_agree() {
        let within = 0b1011_0110_1101u32;
        for (expected, set) in subsets(within, 3).enumerate() {
            assert_eq!(set.count_ones(), 3);
            assert_eq!(set & !within, 0);
            assert_eq!(rank_in(set, within) as usize, expected);
            assert_eq!(unrank(expected as u32, within, 3), set);
        }
        assert_eq!(subsets(within, 3).count(), BINOMIAL[8][3] as usize);
    }

    #[test]
    fn values_round_trip() {
        for v in [
            Value::Draw,
            Value::Win(0),
            Value::Win(7),
            Value::Loss(0),
            Value::Loss(300),
        ] {
            assert_eq!(Value::decode(v.encode()), v);
        }
        assert_eq!(rule_cut(Value::Win(10), 100, 95), Value::Draw);
        assert_eq!(rule_cut(Value::Win(5), 100, 95), Value::Win(5));
    }
}
