//! Puzzles: positions with one right answer, proven by the endgame tables or by a deep
//! search, and their lines, themes and ratings.
//!
//! **What counts as one answer.** A turn is a placement or a move and the removal(s) it
//! earns. Several removals after the same step often all keep the win (the last piece
//! of a three-piece side may go from anywhere), so a puzzle asks for one *step*: exactly
//! one placement or move has a completion that keeps the goal. When that step closes a
//! mill the line ends there, and every removal that keeps the goal is accepted (the
//! puzzle's [`Puzzle::also`]); a step that closes no mill is a whole turn, so one step
//! is one turn.
//!
//! **From the tables** ([`tablebase_puzzles`]): positions where the side to move wins
//! and exactly one step keeps the win, found by scanning each class of the tables in a
//! seeded order (not by sampling games). The line follows the win: the solver's only
//! winning step, the defender's longest defence (the tables' [`Tablebase::best_turn`]),
//! and so on, with exactly one winning step at *each* of the solver's turns, until the
//! solver's first removal (or the end of the game). "Hold the draw" positions are the
//! same with a drawn position and exactly one step that does not lose.
//!
//! **From engine games** ([`engine_puzzles`]): seeded self-play between the levels
//! (their mistakes make the chances), each position screened by a short search whose
//! line wins material within [`MAX_ENGINE_SOLVER_TURNS`] of the solver's turns; then
//! every legal turn is searched to [`EngineCheck::depth`] (Hard, its own seed, no time
//! limit: deterministic) and the best step must beat every other step by at least
//! [`EngineCheck::margin`] — [`ENGINE_MARGIN`], one piece, by default. The line is the
//! search's, the defender playing its best reply, with the margin holding at each of
//! the solver's turns, until the solver's removal.
//!
//! **Playable as shipped** ([`playable`]): the page plays a line in a game of the
//! puzzle's rules from its position, so a line the draw rules (threefold repetition, the
//! no-progress count) end before its last turn is no puzzle (a draw's shuttle once was);
//! nor is a position with one legal turn, or one where every legal turn is accepted:
//! there must be a wrong turn to avoid. Generation skips such candidates and [`verify`]
//! refuses them.
//!
//! **Themes** come from what the line does ([`Theme`]); the **rating** from its length
//! and the tempting wrong steps ([`rating`]). Everything is deterministic under the
//! seed; [`verify`] re-checks a puzzle from its stored form.

use std::collections::BTreeMap;

use mill_core::{Color, Game, Outcome, Phase, Position, Rules, Turn, WinReason};

use crate::tb::{Tablebase, Value};
use crate::{Engine, Level, Limits, MATE_BOUND, NoClock, PIECE, evaluate, mix};

/// The most solver turns in a line from the tables.
pub const MAX_TABLE_SOLVER_TURNS: usize = 5;
/// The most solver turns in a line from an engine game.
pub const MAX_ENGINE_SOLVER_TURNS: usize = 3;
/// How much better (evaluation units, [`PIECE`] a piece) the engine puzzle's step must
/// be than every other step by the deep search.
pub const ENGINE_MARGIN: i32 = PIECE;
/// The depth of the deep search of an engine puzzle, in turns from the position.
pub const ENGINE_DEPTH: u32 = 6;
/// A wrong step is *tempting* when a one-turn look (the evaluation after it) rates it
/// within this much of the answer.
pub const TEMPTING_WITHIN: i32 = PIECE / 2;

/// What the solver is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Goal {
    /// Win the game: a won position from the tables, or an engine line that ends the
    /// game (a blockade, the last piece but two, a line in Three Men's Morris).
    Win,
    /// Hold the draw (a drawn position from the tables, one step avoids the loss).
    Draw,
    /// Win material (from an engine game, by the deep search's margin).
    Gain,
}

impl Goal {
    /// `win`, `draw`, `gain`.
    pub const fn name(self) -> &'static str {
        match self {
            Goal::Win => "win",
            Goal::Draw => "draw",
            Goal::Gain => "gain",
        }
    }

    /// The goal with this name.
    pub fn from_name(name: &str) -> Option<Goal> {
        [Goal::Win, Goal::Draw, Goal::Gain]
            .into_iter()
            .find(|g| g.name() == name)
    }
}

/// What the solution does, named for the page's filter. A puzzle has one or more, the
/// first its main theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Theme {
    /// The first turn closes a mill and that is the whole line.
    MillInOne,
    /// The mill closed by the line leaves another mill (a piece running between two
    /// mills), or one step closes two mills.
    DoubleMill,
    /// A step that makes two mill threats at once; the defender can stop one.
    Fork,
    /// The line ends with the defender unable to move.
    Blockade,
    /// A side flies (three pieces, or the rule set's threshold).
    FlyingEnding,
    /// The first step blocks a mill the opponent threatened.
    Defence,
    /// Holding a drawn position where every other step loses.
    HoldTheDraw,
    /// Pieces are still being placed.
    Placing,
    /// The line takes three or more of the solver's turns.
    Long,
    /// An ending solved by the tables, none of the above.
    Ending,
    /// Material won in the middle game, none of the above.
    Material,
}

impl Theme {
    /// Every theme, in the order a puzzle's main theme is chosen.
    pub const ALL: [Theme; 11] = [
        Theme::HoldTheDraw,
        Theme::Blockade,
        Theme::DoubleMill,
        Theme::Fork,
        Theme::MillInOne,
        Theme::Defence,
        Theme::Long,
        Theme::FlyingEnding,
        Theme::Placing,
        Theme::Ending,
        Theme::Material,
    ];

    /// The theme's name: `mill-in-one`, `double-mill`, `fork`, `blockade`,
    /// `flying-ending`, `defence`, `hold-the-draw`, `placing`, `long`, `ending`,
    /// `material`.
    pub const fn name(self) -> &'static str {
        match self {
            Theme::MillInOne => "mill-in-one",
            Theme::DoubleMill => "double-mill",
            Theme::Fork => "fork",
            Theme::Blockade => "blockade",
            Theme::FlyingEnding => "flying-ending",
            Theme::Defence => "defence",
            Theme::HoldTheDraw => "hold-the-draw",
            Theme::Placing => "placing",
            Theme::Long => "long",
            Theme::Ending => "ending",
            Theme::Material => "material",
        }
    }

    /// The theme with this name.
    pub fn from_name(name: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Where a puzzle's proof comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The endgame tables (exact).
    Tablebase,
    /// A deep search with a margin ([`EngineCheck`]).
    Engine(EngineCheck),
}

/// How an engine puzzle was checked: every legal turn searched to `depth` turns from
/// the position (Hard, seeded, no time limit), the answer's step better than every
/// other step by `margin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineCheck {
    /// Turns searched from the solver's position (each turn's successor to one less).
    pub depth: u32,
    /// Evaluation units by which every other step must be worse.
    pub margin: i32,
}

impl Default for EngineCheck {
    fn default() -> EngineCheck {
        EngineCheck {
            depth: ENGINE_DEPTH,
            margin: ENGINE_MARGIN,
        }
    }
}

/// One puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// A stable name: the rule set and a hash of the position (`nine-3f2a91c0`).
    pub id: String,
    /// The position, solver to move.
    pub position: Position,
    /// What the solver must do.
    pub goal: Goal,
    /// How it is proven.
    pub source: Source,
    /// The solver's turns and the defender's, alternately, the solver's first and last.
    pub line: Vec<Turn>,
    /// Other turns accepted in place of the last one: the same step with another
    /// removal that keeps the goal.
    pub also: Vec<Turn>,
    /// What the line does, the main theme first.
    pub themes: Vec<Theme>,
    /// Wrong steps at the first turn that a one-turn look rates near the answer.
    pub tempting: u32,
    /// The difficulty as a rating ([`rating`]).
    pub rating: u32,
}

impl Puzzle {
    /// The line in notation.
    pub fn solution(&self) -> Vec<String> {
        notation_of(&self.position, &self.line)
    }

    /// [`Puzzle::also`] in notation.
    pub fn also_notation(&self) -> Vec<String> {
        self.also
            .iter()
            .map(|t| t.to_notation(self.position.topology()))
            .collect()
    }

    /// The solver: the side to move in the position.
    pub fn solver(&self) -> Color {
        self.position.turn()
    }
}

fn notation_of(start: &Position, line: &[Turn]) -> Vec<String> {
    line.iter().map(|t| t.to_notation(start.topology())).collect()
}

/// The puzzle's id: its rule set and a 32-bit FNV-1a hash of its position string.
pub fn puzzle_id(position: &Position) -> String {
    let text = position.to_string();
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{}-{h:08x}", position.rules())
}

/// The difficulty of a line as a rating: 800, plus 220 for each of the solver's turns
/// after the first, 70 for each tempting wrong step (at most 8), 150 for holding a draw
/// (nothing to grab: the only move is quiet), 100 for an ending where a side flies (every
/// point is in reach); between 600 and 2600.
pub fn rating(goal: Goal, solver_turns: usize, tempting: u32, themes: &[Theme]) -> u32 {
    let mut r = 800 + 220 * (solver_turns.max(1) as i64 - 1) + 70 * i64::from(tempting.min(8));
    if goal == Goal::Draw {
        r += 150;
    }
    if themes.contains(&Theme::FlyingEnding) {
        r += 100;
    }
    r.clamp(600, 2600) as u32
}

/// The step of a turn: where from (a placement: none) and where to.
fn step_of(turn: &Turn) -> (Option<u8>, u8) {
    (turn.from().map(|p| p.index() as u8), turn.to().index() as u8)
}

/// Groups `values` by step and returns the turns that keep the goal if exactly one step
/// has any: the uniqueness check. `None` when no step or two or more steps keep it.
pub fn only_step(values: &[(Turn, Value)], keeps: impl Fn(Value) -> bool) -> Option<Vec<Turn>> {
    let mut steps: BTreeMap<(Option<u8>, u8), Vec<Turn>> = BTreeMap::new();
    for &(turn, value) in values {
        if keeps(value) {
            steps.entry(step_of(&turn)).or_default().push(turn);
        }
    }
    if steps.len() == 1 {
        steps.into_values().next()
    } else {
        None
    }
}

fn is_win(v: Value) -> bool {
    matches!(v, Value::Win(_))
}

fn not_loss(v: Value) -> bool {
    !matches!(v, Value::Loss(_))
}

/// The tables' only steps along a line: the turns from `start` and the accepted
/// alternatives for the last, or why not.
fn table_line(tb: &Tablebase, start: &Position, goal: Goal) -> Result<(Vec<Turn>, Vec<Turn>), String> {
    let probe = tb.probe(start).ok_or("outside the tables")?;
    let keeps: fn(Value) -> bool = match goal {
        Goal::Win if is_win(probe.result) => is_win,
        Goal::Draw if probe.result == Value::Draw => not_loss,
        _ => {
            return Err(format!(
                "the tables give {:?}, not a {}",
                probe.result,
                goal.name()
            ));
        }
    };
    let mut line = Vec::new();
    let mut position = *start;
    for solver_turn in 0..MAX_TABLE_SOLVER_TURNS {
        let values = tb
            .turn_values(&position)
            .ok_or("a successor outside the tables")?;
        let Some(keeping) = only_step(&values, keeps) else {
            if goal == Goal::Draw && solver_turn > 0 {
                // A draw's line stops before the solver has a choice again.
                line.pop();
                return Ok((line, Vec::new()));
            }
            return Err(format!("not one step at the solver's turn {}", solver_turn + 1));
        };
        // The tables' own choice when it is the step; else the first keeping turn.
        let turn = tb
            .best_turn(&position)
            .map(|(t, _)| t)
            .filter(|t| keeping.contains(t))
            .unwrap_or(keeping[0]);
        line.push(turn);
        let after = position.play_unchecked(turn);
        if !turn.removals().is_empty() || after.outcome().is_some() {
            let also = keeping.into_iter().filter(|t| *t != turn).collect();
            return Ok((line, also));
        }
        let Some((reply, _)) = tb.best_turn(&after) else {
            return Err("the defender has no turn in the tables".into());
        };
        line.push(reply);
        position = after.play_unchecked(reply);
        if position.outcome().is_some() {
            return Err("the defence ends the game".into());
        }
        if goal == Goal::Draw && !reply.removals().is_empty() {
            line.pop();
            return Ok((line, Vec::new()));
        }
    }
    if goal == Goal::Draw {
        line.pop();
        return Ok((line, Vec::new()));
    }
    Err("the line is too long".into())
}

/// The empty points where `color` could close a mill with its next placement or step.
fn threats(position: &Position, color: Color) -> u32 {
    let t = position.topology();
    let own = position.pieces(color).0;
    let empty = position.empty().0;
    let phase = position.phase(color);
    let mut out = 0;
    for x in t.points() {
        let bit = 1u32 << x.index();
        if empty & bit == 0 {
            continue;
        }
        for &line in t.lines_through(x) {
            let others = line & !bit;
            if own & others != others {
                continue;
            }
            let movers = match phase {
                Phase::Placing => 1,
                Phase::Flying => own & !others,
                Phase::Moving => t.neighbours(x).0 & own & !others,
            };
            if movers != 0 {
                out |= bit;
            }
        }
    }
    out
}

/// The themes of a line from `start`, the main one first.
pub fn themes_of(start: &Position, line: &[Turn], goal: Goal) -> Vec<Theme> {
    let solver = start.turn();
    let t = start.topology();
    let mut found = Vec::new();
    let mut positions = vec![*start];
    for turn in line {
        let last = positions[positions.len() - 1];
        positions.push(last.play_unchecked(*turn));
    }
    let solver_turns = line.len().div_ceil(2);
    if goal == Goal::Draw {
        found.push(Theme::HoldTheDraw);
    }
    let end = positions[positions.len() - 1];
    if matches!(
        end.outcome(),
        Some(Outcome::Win {
            reason: WinReason::Blocked,
            ..
        })
    ) {
        found.push(Theme::Blockade);
    }
    if let Some(&last) = line.last().filter(|l| !l.removals().is_empty()) {
        let before = positions[positions.len() - 2];
        let own_before = before.pieces(solver).0;
        let own_after = end.pieces(solver).0;
        let left_a_mill = last
            .from()
            .is_some_and(|from| t.mills_through(own_before, from) > 0);
        let two_at_once = t.mills_through(own_after, last.to()) >= 2;
        if left_a_mill || two_at_once {
            found.push(Theme::DoubleMill);
        }
        if solver_turns >= 2 {
            // The position after the solver's turn before the last: two threats.
            let mid = positions[line.len() - 2];
            if threats(&mid, solver).count_ones() >= 2 {
                found.push(Theme::Fork);
            }
        }
        if line.len() == 1 {
            found.push(Theme::MillInOne);
        }
    }
    let opp = !solver;
    if line.first().is_some_and(|f| f.removals().is_empty())
        && threats(start, opp) != 0
        && threats(&positions[1], opp).count_ones() < threats(start, opp).count_ones()
    {
        found.push(Theme::Defence);
    }
    if solver_turns >= 3 {
        found.push(Theme::Long);
    }
    if start.phase(solver) == Phase::Flying || start.phase(opp) == Phase::Flying {
        found.push(Theme::FlyingEnding);
    }
    if start.in_hand(solver) > 0 || start.in_hand(opp) > 0 {
        found.push(Theme::Placing);
    }
    if found.is_empty() || found == [Theme::Long] {
        found.push(match goal {
            Goal::Gain => Theme::Material,
            _ => Theme::Ending,
        });
    }
    found.sort_by_key(|th| Theme::ALL.iter().position(|a| a == th));
    found.dedup();
    found
}

/// Wrong steps at `position` that a one-turn look rates within [`TEMPTING_WITHIN`] of
/// the answer's step.
pub fn tempting(position: &Position, answer: &Turn) -> u32 {
    let mut looks: BTreeMap<(Option<u8>, u8), i32> = BTreeMap::new();
    for turn in position.legal_turns() {
        let after = position.play_unchecked(turn);
        let look = match after.outcome() {
            Some(o) if o.winner() == Some(position.turn()) => 10 * PIECE,
            Some(o) if o.winner().is_some() => -10 * PIECE,
            Some(_) => 0,
            None => -evaluate(&after),
        };
        let e = looks.entry(step_of(&turn)).or_insert(i32::MIN);
        *e = (*e).max(look);
    }
    let key = step_of(answer);
    let best = looks.get(&key).copied().unwrap_or(i32::MIN);
    looks
        .iter()
        .filter(|(k, v)| **k != key && **v >= best.saturating_sub(TEMPTING_WITHIN))
        .count() as u32
}

fn finish(position: Position, goal: Goal, source: Source, line: Vec<Turn>, also: Vec<Turn>) -> Puzzle {
    let themes = themes_of(&position, &line, goal);
    let tempt = line.first().map_or(0, |a| tempting(&position, a));
    let rating = rating(goal, line.len().div_ceil(2), tempt, &themes);
    Puzzle {
        id: puzzle_id(&position),
        position,
        goal,
        source,
        line,
        also,
        themes,
        tempting: tempt,
        rating,
    }
}

/// Whether a line can be shipped as a puzzle of `goal` from `start`, as the page plays
/// it: a game from the position under its own rules (threefold repetition, the
/// no-progress count), where no turn of the line comes after the game has ended and the
/// last does not end it in a draw unless the goal is the draw; and a choice to make at
/// the first turn — two legal turns at least, one of them wrong (neither the answer nor,
/// for a line of one turn, an accepted alternative).
pub fn playable(start: &Position, goal: Goal, line: &[Turn], also: &[Turn]) -> Result<(), String> {
    let first = line.first().ok_or("an empty line")?;
    let legal = start.legal_turns();
    if legal.len() < 2 {
        return Err("one legal turn: no choice to make".into());
    }
    let accepted = |t: &Turn| t == first || (line.len() == 1 && also.contains(t));
    if legal.iter().all(accepted) {
        return Err("every legal turn is accepted: no wrong one".into());
    }
    let mut game = Game::from_position(*start);
    for (k, turn) in line.iter().enumerate() {
        if let Some(outcome) = game.outcome() {
            return Err(format!(
                "the rules end the game ({outcome}) before turn {} of the line",
                k + 1
            ));
        }
        game.play(*turn)
            .map_err(|e| format!("turn {} of the line: {e}", k + 1))?;
    }
    match game.outcome() {
        Some(outcome @ Outcome::Draw { .. }) if goal != Goal::Draw => Err(format!(
            "the line ends in a draw ({outcome}), not a {}",
            goal.name()
        )),
        _ => Ok(()),
    }
}

/// The puzzle from the tables at `position` for `goal`, if it is one.
pub fn tablebase_puzzle(tb: &Tablebase, position: &Position, goal: Goal) -> Result<Puzzle, String> {
    let (line, also) = table_line(tb, position, goal)?;
    if line.is_empty() {
        return Err("no line".into());
    }
    playable(position, goal, &line, &also)?;
    Ok(finish(*position, goal, Source::Tablebase, line, also))
}

/// A stride through `len` indexes that visits each once: a large odd number with no
/// common factor with `len`, picked by `seed`.
fn stride_for(len: usize, seed: u64) -> usize {
    if len <= 1 {
        return 1;
    }
    let mut s = (mix(seed) as usize % len) | 1;
    while gcd(s, len) != 1 {
        s += 2;
    }
    s % len.max(1)
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Up to `count` puzzles for `goal` from every class of `tb`, each class scanned in an
/// order fixed by `seed` (at most `scan` indexes a class), shared between the classes
/// and, within a class, taken round-robin between the main themes and line lengths from
/// up to six times as many found, so that no one kind fills the set. `progress` hears of
/// each class.
pub fn tablebase_puzzles(
    tb: &Tablebase,
    goal: Goal,
    count: usize,
    seed: u64,
    scan: usize,
    progress: &mut dyn FnMut(&str),
) -> Vec<Puzzle> {
    // The largest classes first: their only-step positions are the rarest, and what
    // they cannot give, the smaller classes make up.
    let mut classes: Vec<(u8, u8)> = tb.classes().iter().map(|&(m, o, _)| (m, o)).collect();
    classes.sort_by_key(|&(m, o)| (std::cmp::Reverse(m + o), m));
    if classes.is_empty() || count == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (k, &(m, o)) in classes.iter().enumerate() {
        // What is left, shared between the classes left.
        let quota = (count - out.len()).div_ceil(classes.len() - k);
        let Some(reader) = tb.class_positions(m, o) else {
            continue;
        };
        let len = reader.len();
        if len == 0 {
            continue;
        }
        let class_seed = mix(seed ^ (u64::from(m) << 8 | u64::from(o)) ^ goal as u64);
        let start = mix(class_seed) as usize % len;
        let stride = stride_for(len, class_seed);
        let mut by_theme: BTreeMap<(Theme, usize), Vec<Puzzle>> = BTreeMap::new();
        let mut found = 0;
        for j in 0..len.min(scan) {
            let index = (start + j * stride) % len;
            let Some(position) = reader.get(index) else {
                continue;
            };
            if let Ok(p) = tablebase_puzzle(tb, &position, goal) {
                by_theme.entry(bucket(&p)).or_default().push(p);
                found += 1;
                if found >= quota * CANDIDATES {
                    break;
                }
            }
        }
        let before = out.len();
        round_robin(&mut by_theme, quota, &mut out);
        progress(&format!(
            "{} {m}v{o}: {} {} puzzles ({found} found)",
            tb.rules(),
            out.len() - before,
            goal.name()
        ));
    }
    out
}

/// How many candidates are found for each puzzle taken, to choose among.
const CANDIDATES: usize = 6;

/// What the set is balanced over: the main theme and the solver's turns (1, 2, 3 or more).
fn bucket(p: &Puzzle) -> (Theme, usize) {
    (p.themes[0], p.line.len().div_ceil(2).min(3))
}

/// Takes up to `quota` puzzles, one of each bucket in turn.
fn round_robin<K: Ord>(by_theme: &mut BTreeMap<K, Vec<Puzzle>>, quota: usize, out: &mut Vec<Puzzle>) {
    for list in by_theme.values_mut() {
        list.reverse();
    }
    let mut taken = 0;
    while taken < quota && by_theme.values().any(|l| !l.is_empty()) {
        for list in by_theme.values_mut() {
            if taken < quota
                && let Some(p) = list.pop()
            {
                out.push(p);
                taken += 1;
            }
        }
    }
}

/// The deep search's score of each legal turn for the side to move in `position`
/// (`history`: the hashes of the positions before it).
fn turn_scores(
    engine: &mut Engine,
    position: &Position,
    history: &[u64],
    check: EngineCheck,
) -> Vec<(Turn, i32)> {
    let mut path = history.to_vec();
    path.push(position.hash());
    let limits = Limits::new(Level::Hard, 1).with_depth(check.depth.saturating_sub(1).max(1));
    position
        .legal_turns()
        .into_iter()
        .map(|turn| {
            let after = position.play_unchecked(turn);
            let score = match after.outcome() {
                Some(o) if o.winner() == Some(position.turn()) => crate::MATE,
                Some(o) if o.winner().is_some() => -crate::MATE,
                Some(_) => 0,
                None => match search_classic(engine, &after, &path, &limits) {
                    Ok(r) => -r.score,
                    // A repetition the rules call over: a draw.
                    Err(_) => 0,
                },
            };
            (turn, score)
        })
        .collect()
}

/// The margin check at one solver position: the best step's turns within half the
/// margin of its best (accepted), or `None` when another step comes within the margin.
fn margin_step(scores: &[(Turn, i32)], margin: i32) -> Option<(Turn, Vec<Turn>, i32)> {
    let mut steps: BTreeMap<(Option<u8>, u8), i32> = BTreeMap::new();
    for (turn, s) in scores {
        let e = steps.entry(step_of(turn)).or_insert(i32::MIN);
        *e = (*e).max(*s);
    }
    let (&best_turn, &best) = scores
        .iter()
        .max_by_key(|(t, s)| (*s, std::cmp::Reverse(step_of(t))))
        .map(|(t, s)| (t, s))?;
    let key = step_of(&best_turn);
    let second = steps
        .iter()
        .filter(|(k, _)| **k != key)
        .map(|(_, v)| *v)
        .max()
        .unwrap_or(-crate::MATE);
    let gap = best.saturating_sub(second);
    if gap < margin {
        return None;
    }
    let accepted = scores
        .iter()
        .filter(|(t, s)| step_of(t) == key && *t != best_turn && *s >= best - margin / 2)
        .map(|(t, _)| *t)
        .collect();
    Some((best_turn, accepted, gap))
}

/// The engine's line from `start` for a "win material" puzzle, or why not.
fn engine_line(
    engine: &mut Engine,
    start: &Position,
    check: EngineCheck,
) -> Result<(Vec<Turn>, Vec<Turn>), String> {
    let mut history = Vec::new();
    let mut position = *start;
    let mut line = Vec::new();
    let reply_limits = Limits::new(Level::Hard, 1).with_depth(check.depth.max(1));
    for solver_turn in 0..MAX_ENGINE_SOLVER_TURNS {
        let scores = turn_scores(engine, &position, &history, check);
        let (turn, also, _) = margin_step(&scores, check.margin)
            .ok_or_else(|| format!("no step by the margin at the solver's turn {}", solver_turn + 1))?;
        line.push(turn);
        let after = position.play_unchecked(turn);
        if !turn.removals().is_empty() || after.outcome().is_some() {
            return Ok((line, also));
        }
        history.push(position.hash());
        let reply = search_classic(engine, &after, &history, &reply_limits)
            .map_err(|e| format!("the defender: {e}"))?;
        if !reply.turn.removals().is_empty() {
            return Err("the defender removes a piece: no gain".into());
        }
        line.push(reply.turn);
        history.push(after.hash());
        position = after.play_unchecked(reply.turn);
        if position.outcome().is_some() {
            return Err("the defence ends the game".into());
        }
    }
    Err("the gain takes too long".into())
}

/// The engine puzzle at `position`, if it is one (see the module docs).
pub fn engine_puzzle(engine: &mut Engine, position: &Position, check: EngineCheck) -> Result<Puzzle, String> {
    if position.outcome().is_some() || position.pending_removals() > 0 {
        return Err("not a position to solve".into());
    }
    let (line, also) = engine_line(engine, position, check)?;
    let goal = engine_goal(position, &line);
    playable(position, goal, &line, &also)?;
    Ok(finish(*position, goal, Source::Engine(check), line, also))
}

/// An engine line's goal: the game when the line ends it, else material.
fn engine_goal(start: &Position, line: &[Turn]) -> Goal {
    let end = line.iter().fold(*start, |p, t| p.play_unchecked(*t));
    match end.outcome().and_then(Outcome::winner) {
        Some(w) if w == start.turn() => Goal::Win,
        _ => Goal::Gain,
    }
}

/// Whether a short search's line from `position` has the side to move remove a piece
/// within [`MAX_ENGINE_SOLVER_TURNS`] of its turns before the opponent does (or win):
/// the cheap screen before the deep check.
fn looks_like_gain(engine: &mut Engine, position: &Position, history: &[u64], seed: u64) -> bool {
    let limits = Limits::new(Level::Hard, seed).with_depth(4);
    let Ok(result) = search_classic(engine, position, history, &limits) else {
        return false;
    };
    if result.score >= MATE_BOUND {
        return true;
    }
    if result.score < PIECE / 2 {
        return false;
    }
    for (k, turn) in result.pv.iter().take(2 * MAX_ENGINE_SOLVER_TURNS - 1).enumerate() {
        if !turn.removals().is_empty() {
            return k % 2 == 0;
        }
    }
    false
}

/// Up to `count` engine puzzles of `rules` from seeded self-play: `games` games at most,
/// the sides' levels varied by the seed; each game's positions screened, the candidates
/// deep-checked by `check`. Up to three times `count` are found, then taken round-robin
/// between the main themes (mills in one come easily; the rest are rarer and better).
/// `progress` hears of each puzzle found.
pub fn engine_puzzles(
    rules: &'static Rules,
    count: usize,
    seed: u64,
    games: usize,
    check: EngineCheck,
    progress: &mut dyn FnMut(&str),
) -> Vec<Puzzle> {
    let mut engine = Engine::new(16);
    let mut out: Vec<Puzzle> = Vec::new();
    let wanted = count * 3;
    let levels = [Level::Easy, Level::Medium];
    for g in 0..games {
        if out.len() >= wanted {
            break;
        }
        let game_seed = mix(seed.wrapping_add(g as u64));
        let mut position = Position::start(rules);
        let mut history: Vec<u64> = Vec::new();
        // Each game gives at most two puzzles, so that the set is not one game's.
        let mut from_game = 0;
        for ply in 0..200u64 {
            if position.outcome().is_some() || out.len() >= wanted || from_game >= 2 {
                break;
            }
            let mover_seed = mix(game_seed ^ ply);
            if ply >= 4
                && looks_like_gain(&mut engine, &position, &history, mover_seed)
                && let Ok(p) = engine_puzzle(&mut engine, &position, check)
                && !out.iter().any(|q| q.id == p.id)
            {
                progress(&format!(
                    "{rules}: game {g}, turn {ply}: {} ({})",
                    p.solution().join(" "),
                    p.themes[0].name()
                ));
                out.push(p);
                from_game += 1;
            }
            let level = levels[(mix(game_seed ^ (ply % 2)) % 2) as usize];
            let limits = Limits::new(level, mover_seed).with_depth(level.max_depth());
            let Ok(r) = search_classic(&mut engine, &position, &history, &limits) else {
                break;
            };
            history.push(position.hash());
            position = position.play_unchecked(r.turn);
        }
    }
    let mut by_theme: BTreeMap<(Theme, usize), Vec<Puzzle>> = BTreeMap::new();
    for p in out {
        by_theme.entry(bucket(&p)).or_default().push(p);
    }
    let mut chosen = Vec::new();
    round_robin(&mut by_theme, count, &mut chosen);
    chosen
}

/// A search with the classic evaluation weights, whatever the level: a puzzle's engine
/// checks must not move when Hard's weights are tuned (the shipped set is re-proved in
/// CI and generated again byte for byte from its seeds).
fn search_classic(
    engine: &mut Engine,
    position: &Position,
    history: &[u64],
    limits: &Limits,
) -> Result<crate::SearchResult, crate::SearchError> {
    engine.with_classic_search(|engine| engine.search(position, history, limits, &mut NoClock))
}

/// Re-checks `puzzle`: its line is legal, its uniqueness holds against the tables (or
/// its margin by the deep search), the defender's turns are the tables' longest defence
/// (or the search's reply), the accepted alternatives are exactly the other turns that
/// keep the goal, and its themes and rating follow from the line. `tb` must be the
/// tables of the puzzle's rules for a tablebase puzzle.
pub fn verify(puzzle: &Puzzle, tb: Option<&Tablebase>, engine: &mut Engine) -> Result<(), String> {
    let mut p = puzzle.position;
    for turn in &puzzle.line {
        p = p.play(*turn).map_err(|e| {
            format!(
                "{}: {} is not legal: {e}",
                puzzle.id,
                turn.to_notation(p.topology())
            )
        })?;
    }
    for turn in &puzzle.also {
        let last = puzzle.line.last().ok_or("an empty line")?;
        if step_of(turn) != step_of(last) || turn.removals().is_empty() {
            return Err(format!(
                "{}: an alternative is not a removal of the last step",
                puzzle.id
            ));
        }
    }
    playable(&puzzle.position, puzzle.goal, &puzzle.line, &puzzle.also)
        .map_err(|e| format!("{}: {e}", puzzle.id))?;
    let (line, also) = match puzzle.source {
        Source::Tablebase => {
            let tb = tb.ok_or_else(|| format!("{}: no tables of {}", puzzle.id, puzzle.position.rules()))?;
            table_line(tb, &puzzle.position, puzzle.goal).map_err(|e| format!("{}: {e}", puzzle.id))?
        }
        Source::Engine(check) => {
            let found =
                engine_line(engine, &puzzle.position, check).map_err(|e| format!("{}: {e}", puzzle.id))?;
            if engine_goal(&puzzle.position, &found.0) != puzzle.goal {
                return Err(format!("{}: the goal is not the line's", puzzle.id));
            }
            found
        }
    };
    if line != puzzle.line {
        return Err(format!(
            "{}: the line is {}, the proof gives {}",
            puzzle.id,
            puzzle.solution().join(" "),
            notation_of(&puzzle.position, &line).join(" ")
        ));
    }
    let mut want: Vec<Turn> = also;
    let mut have = puzzle.also.clone();
    want.sort_by_key(|t| t.to_notation(puzzle.position.topology()));
    have.sort_by_key(|t| t.to_notation(puzzle.position.topology()));
    if want != have {
        return Err(format!(
            "{}: the accepted alternatives differ from the proof's",
            puzzle.id
        ));
    }
    let expected = finish(
        puzzle.position,
        puzzle.goal,
        puzzle.source,
        line,
        puzzle.also.clone(),
    );
    if expected.themes != puzzle.themes || expected.rating != puzzle.rating || expected.id != puzzle.id {
        return Err(format!(
            "{}: themes, rating or id do not follow from the line",
            puzzle.id
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mill_core::Variant;
    use std::sync::OnceLock;

    fn tables() -> &'static Tablebase {
        static TB: OnceLock<Tablebase> = OnceLock::new();
        TB.get_or_init(|| Tablebase::generate(Variant::Nine, 3, &mut |_| {}).expect("generated"))
    }

    fn position(s: &str) -> Position {
        s.parse()
            .unwrap_or_else(|e| panic!("bad test position {s:?}: {e}"))
    }

    fn winning_steps(tb: &Tablebase, p: &Position) -> usize {
        let values = tb.turn_values(p).unwrap();
        let mut steps: Vec<_> = values
            .iter()
            .filter(|(_, v)| is_win(*v))
            .map(|(t, _)| step_of(t))
            .collect();
        steps.sort();
        steps.dedup();
        steps.len()
    }

    #[test]
    fn one_winning_step_is_a_puzzle_and_two_are_not() {
        let tb = tables();
        // Found by the scan: one position where exactly one step wins, one where two do.
        let reader = tb.class_positions(3, 3).unwrap();
        let mut one = None;
        let mut two = None;
        for i in 0..reader.len() {
            let Some(p) = reader.get(i) else { continue };
            if !matches!(tb.probe(&p).unwrap().result, Value::Win(_)) {
                continue;
            }
            match winning_steps(tb, &p) {
                1 if one.is_none() => one = Some(p),
                2 if two.is_none() => two = Some(p),
                _ => {}
            }
            if one.is_some() && two.is_some() {
                break;
            }
        }
        let (one, two) = (one.unwrap(), two.unwrap());
        let values = tb.turn_values(&one).unwrap();
        let keeping = only_step(&values, is_win).expect("one step");
        assert!(
            keeping
                .iter()
                .all(|t| values.iter().any(|(u, v)| u == t && is_win(*v)))
        );
        assert!(only_step(&tb.turn_values(&two).unwrap(), is_win).is_none());
        assert!(tablebase_puzzle(tb, &two, Goal::Win).is_err());
    }

    #[test]
    fn the_check_counts_steps_not_removals() {
        let t = &mill_core::MORRIS_24;
        let close = Turn::step(t.point("a4").unwrap(), t.point("d1").unwrap());
        let a = close.with_removal(t.point("a7").unwrap()).unwrap();
        let b = close.with_removal(t.point("b2").unwrap()).unwrap();
        let other = Turn::step(t.point("a4").unwrap(), t.point("b4").unwrap());
        // Two removals of one step win, the other step loses: one step.
        let list = [(a, Value::Win(1)), (b, Value::Win(3)), (other, Value::Loss(4))];
        assert_eq!(only_step(&list, is_win), Some(vec![a, b]));
        // Two steps win: no puzzle.
        let two_steps = [(a, Value::Win(1)), (other, Value::Win(9))];
        assert_eq!(only_step(&two_steps, is_win), None);
        assert_eq!(only_step(&[(other, Value::Draw)], is_win), None);
        assert_eq!(only_step(&[(other, Value::Draw)], not_loss), Some(vec![other]));
    }

    #[test]
    fn scanning_the_tables_finds_puzzles_that_verify_and_is_deterministic() {
        let tb = tables();
        let mut engine = Engine::new(1);
        let wins = tablebase_puzzles(tb, Goal::Win, 12, 7, 200_000, &mut |_| {});
        assert_eq!(wins.len(), 12);
        let again = tablebase_puzzles(tb, Goal::Win, 12, 7, 200_000, &mut |_| {});
        assert_eq!(wins, again);
        let other_seed = tablebase_puzzles(tb, Goal::Win, 12, 8, 200_000, &mut |_| {});
        assert_ne!(wins, other_seed);
        for p in &wins {
            verify(p, Some(tb), &mut engine).unwrap();
            assert_eq!(p.line.len() % 2, 1, "ends with the solver's turn");
            assert!(p.themes.contains(&Theme::FlyingEnding));
            // Exactly one winning step at the start.
            assert_eq!(winning_steps(tb, &p.position), 1, "{}", p.position);
        }
        let draws = tablebase_puzzles(tb, Goal::Draw, 4, 7, 200_000, &mut |_| {});
        assert!(!draws.is_empty());
        for p in &draws {
            verify(p, Some(tb), &mut engine).unwrap();
            assert_eq!(p.themes[0], Theme::HoldTheDraw);
        }
    }

    #[test]
    fn a_tampered_puzzle_fails_verification() {
        let tb = tables();
        let mut engine = Engine::new(1);
        let p = tablebase_puzzles(tb, Goal::Win, 1, 3, 200_000, &mut |_| {}).remove(0);
        let mut wrong = p.clone();
        // Another legal first turn in place of the answer.
        let other = p
            .position
            .legal_turns()
            .into_iter()
            .find(|t| step_of(t) != step_of(&p.line[0]))
            .unwrap();
        wrong.line = vec![other];
        assert!(verify(&wrong, Some(tb), &mut engine).is_err());
        let mut rated = p.clone();
        rated.rating += 1;
        assert!(verify(&rated, Some(tb), &mut engine).is_err());
        assert!(verify(&p, None, &mut engine).is_err(), "no tables, no proof");
    }

    fn line_of(start: &Position, texts: &[&str]) -> Vec<Turn> {
        let mut p = *start;
        texts
            .iter()
            .map(|text| {
                let n: mill_core::Notation = text.parse().unwrap();
                let turn = n.to_turn(p.topology()).unwrap();
                p = p.play(turn).unwrap();
                turn
            })
            .collect()
    }

    #[test]
    fn a_line_the_draw_rules_end_early_is_no_puzzle() {
        // Shipped once as nine-939e5983: the two sides shuttle, and the start stands for
        // the third time after the defender's fourth turn, before the solver's last.
        let start = position(".../.../.../DL..../.../.DL/DL. l 0 0 0 0");
        let shuttle = ["f2-a7", "a1-b2", "a7-f2", "b2-a1"];
        let mut texts: Vec<&str> = shuttle.iter().chain(&shuttle).copied().collect();
        texts.push("f2-a7");
        let line = line_of(&start, &texts);
        let e = playable(&start, Goal::Draw, &line, &[]).unwrap_err();
        assert!(e.contains("before turn 9"), "{e}");
        // Two of the shuttles are a line the rules let finish.
        assert_eq!(playable(&start, Goal::Draw, &line[..5], &[]), Ok(()));
        // The no-progress count: one quiet turn short of the limit at the start, the
        // first defence ends the game.
        let limit = start.rules().quiet_limit;
        let tired = position(&format!(".../.../.../DL..../.../.DL/DL. l 0 0 0 {}", limit - 2));
        let e = playable(&tired, Goal::Draw, &line[..3], &[]).unwrap_err();
        assert!(e.contains("before turn 3"), "{e}");
    }

    #[test]
    fn a_puzzle_has_a_wrong_turn_to_avoid() {
        // Shipped once as nine-10ea89e7, "hold the draw": Light's one legal turn is d1-d2.
        let forced = position(".../.../.../D.D..D/LD./.../LLL l 0 0 0 0");
        let legal = forced.legal_turns();
        assert_eq!(legal.len(), 1, "{legal:?}");
        let e = playable(&forced, Goal::Draw, &[legal[0]], &[]).unwrap_err();
        assert!(e.contains("one legal turn"), "{e}");
        // Every legal turn accepted (the answer and its alternatives): no wrong one.
        let start = Position::new(Variant::Nine);
        let all = start.legal_turns();
        let e = playable(&start, Goal::Gain, &all[..1], &all[1..]).unwrap_err();
        assert!(e.contains("no wrong one"), "{e}");
        assert_eq!(playable(&start, Goal::Gain, &all[..1], &all[1..3]), Ok(()));
    }

    #[test]
    fn ratings_grow_with_length_and_temptation() {
        let one = rating(Goal::Win, 1, 0, &[Theme::MillInOne]);
        assert!(rating(Goal::Win, 3, 0, &[]) > one);
        assert!(rating(Goal::Win, 1, 4, &[]) > one);
        assert!(rating(Goal::Draw, 1, 0, &[]) > one);
        assert_eq!(rating(Goal::Win, 40, 40, &[]), 2600);
    }

    #[test]
    fn an_engine_puzzle_closes_the_only_mill_by_the_margin() {
        // Placing: Light has a1 and a4 and closes a7; Dark threatens d2, so the removal
        // takes b2 or f2 (both accepted) rather than blocking at d2.
        let mut engine = Engine::new(1);
        let start = position(".../.../.../L...../.../D.D/L.. l 7 7 0 0");
        let check = EngineCheck {
            depth: 2,
            margin: PIECE / 2,
        };
        match engine_puzzle(&mut engine, &start, check) {
            Ok(p) => {
                assert_eq!(p.goal, Goal::Gain, "a piece won, the game goes on");
                assert!(!p.line[0].removals().is_empty());
                verify(&p, None, &mut engine).unwrap();
            }
            Err(e) => panic!("{e}"),
        }
        // The start position has nothing to win.
        let quiet = Position::new(Variant::Nine);
        assert!(engine_puzzle(&mut engine, &quiet, check).is_err());
    }
}
