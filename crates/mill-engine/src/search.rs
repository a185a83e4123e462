//! Iterative deepening, principal-variation search, move ordering and the root choice.

use crate::eval::{
    Adjacency, LineCounts, Weights, evaluate_with, line_set, line_union, lines_with, two_bits,
};
use crate::tb::{Placing, Tablebase, Value, Whole};
use crate::tt::{Bound, Table, pack, unpack};
use crate::{Clock, Level, Limits, MATE, MATE_BOUND, PIECE, mix};
use arrayvec::ArrayVec;
use core::fmt;
use mill_core::{
    Color, Game, MAX_POINTS, MAX_TURNS, MORRIS_24, MORRIS_24_CONST, Position, Topology, Turn, TurnList,
};
use std::sync::Arc;
mod cache;
mod ordering;
mod result;
mod tables;
use cache::{EvalCache, from_tt, to_tt};
use ordering::{Hints, first_max, order, steps_at_most};
pub use result::{SearchError, SearchResult};
use tables::{TableRoot, table_root, table_score};

type Scores = ArrayVec<i32, MAX_TURNS>;
type History = [[i32; MAX_POINTS]; MAX_POINTS + 1];

/// The deepest iteration any search starts, in turns.
pub(crate) const MAX_DEPTH: u32 = 64;
/// The deepest ply a search path may reach (iterations plus nothing: no extensions).
const MAX_PLY: usize = MAX_DEPTH as usize + 8;
const INF: i32 = MATE + 1;

/// Ordering ranks: the table's turn, captures, blocks of an opponent two, killers.
const ORDER_TT: i32 = 1 << 30;
const ORDER_CAPTURE: i32 = 1 << 26;
const ORDER_BLOCK: i32 = 1 << 25;
const ORDER_THREAT: i32 = 1 << 23;
const ORDER_KILLER: i32 = 1 << 24;
const HISTORY_MAX: i32 = 1 << 20;
/// A side to move with this many steps or fewer is searched a turn deeper.
const NARROW_STEPS: u32 = 2;
/// Hard's contempt in the classic search (the puzzles' proofs, the review), as it was
/// before Hard's own rose with its weights ([`Level::contempt`]).
const CLASSIC_CONTEMPT: i32 = 30;
/// Half-width of the first root window from depth 4 on.
const ASPIRATION: i32 = 30;
const GRAIN: i32 = 8;
/// Nodes this shallow neither read nor write the table: its memory traffic costs more
/// than it saves there.
const TT_DEPTH: i32 = 2;
/// Reverse futility pruning: depth and margin per turn of depth.
const RFP_DEPTH: i32 = 3;
const RFP_MARGIN: i32 = 90;
/// Late-move pruning: at depth up to LMP_DEPTH, quiet turns after the first
/// LMP_BASE + LMP_STEP × depth are not searched.
const LMP_DEPTH: i32 = 2;
const LMP_BASE: usize = 6;
const LMP_STEP: usize = 4;

/// Late-move reductions by depth and turn number: about ln(depth)·ln(number)/2, at
/// least 1, from integer logarithms in eighths computed at compile time.
const LMR: [[i32; 64]; 64] = {
    let mut ln8 = [0i32; 64];
    let mut n = 2;
    while n < 64 {
        let mut p = 0;
        while (1 << (p + 1)) <= n {
            p += 1;
        }
        let frac8 = ((n - (1 << p)) * 8) / (1 << p);
        // (log2 n in eighths) · ln 2, ln 2 ≈ 177/256
        ln8[n] = ((p * 8 + frac8 as i32) * 177) / 256;
        n += 1;
    }
    let mut t = [[0i32; 64]; 64];
    let mut d = 1;
    while d < 64 {
        let mut m = 1;
        while m < 64 {
            // ln d · ln m / 2, both in eighths: divide by 64 · 2.
            let r = (ln8[d] * ln8[m] + 64) / 128;
            t[d][m] = if r < 1 { 1 } else { r };
            m += 1;
        }
        d += 1;
    }
    t
};

/// The engine: a transposition table allocated once, reused by every search.
#[derive(Debug)]
pub struct Engine {
    tt: Table,
    evals: EvalCache,
    /// Whether a search keeps what earlier searches stored (see [`Engine::keep_table`]).
    keep: bool,
    /// Solved endgames, used by Hard (see [`Engine::set_tablebase`]).
    tb: Option<Arc<Tablebase>>,
    /// Six solved whole, used by Perfect (see [`Engine::set_placing_table`]).
    placing: Option<Arc<Placing>>,
    /// Hard's contempt when set (see [`Engine::set_contempt`]).
    contempt: Option<i32>,
    /// See [`Engine::set_placing_foresight`].
    placing_foresight: bool,
    /// Every level searches as before Hard's tuning (see
    /// [`Engine::with_classic_search`]).
    classic: bool,
}

impl Engine {
    /// An engine with a transposition table of about `tt_mb` megabytes (a power of two
    /// of 32-byte buckets; 16–32 MB suit the browser, 0 gives the 32 KB minimum).
    pub fn new(tt_mb: usize) -> Engine {
        Engine {
            tt: Table::new(tt_mb),
            evals: EvalCache::new(),
            keep: false,
            tb: None,
            placing: None,
            contempt: None,
            placing_foresight: false,
            classic: false,
        }
    }

    /// What a repetition is worth less than even for Hard when it searches (`None`, the
    /// default: [`Level::contempt`], 120). A measuring knob: 0 makes Hard score a
    /// repetition as even, as the other levels do; they are not affected.
    pub fn set_contempt(&mut self, contempt: Option<i32>) {
        self.contempt = contempt;
    }

    /// An experiment for Hard, off by default until a match shows it helps: the
    /// narrow-position extension (one more turn where the side to move has
    /// [`NARROW_STEPS`] steps or fewer) also applies to the last placement,
    /// with one piece left in hand, so that a blockade the placing phase decides is
    /// seen coming. `mill uci`'s `PlacingForesight` option sets it, for `mill arena`.
    pub fn set_placing_foresight(&mut self, on: bool) {
        self.placing_foresight = on;
    }

    /// Solved endgames for Hard: a won or lost position in the tables is played from
    /// them at the root (so a won ending is never spoiled), a drawn one is searched
    /// among its drawing turns, and inside the search the tables score their endings
    /// exactly (from a drawn root, only the won and lost ones).
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>) {
        self.tb = tb;
    }

    /// A game with removals solved whole (Six Men's Morris: [`Placing`], its placing
    /// table and its endgame tables) for Perfect, which plays every position of its rule
    /// set from it; without it Perfect plays Six as Hard.
    pub fn set_placing_table(&mut self, placing: Option<Arc<Placing>>) {
        self.placing = placing;
    }

    /// Whether later searches reuse what earlier ones stored in the transposition table
    /// (`false`, the default: every search starts from a logically empty table, which
    /// makes results reproducible). Keeping it between the turns of one game saves time
    /// and sees deeper, at the cost of results that depend on earlier searches; call
    /// [`Engine::new_game`] when the game changes.
    pub fn keep_table(&mut self, keep: bool) {
        self.keep = keep;
    }

    /// Runs `f` with every level searching as before Hard's tuning (the classic
    /// evaluation weights, root ties in generation order, Hard's contempt of then), which
    /// the puzzles' proofs and the review's judgement are pinned to: their thresholds
    /// and margins were set on that scale, and tuning Hard must not move a shipped
    /// puzzle or a review's verdicts.
    pub(crate) fn with_classic_search<R>(&mut self, f: impl FnOnce(&mut Engine) -> R) -> R {
        let was = self.classic;
        self.classic = true;
        let result = f(self);
        self.classic = was;
        result
    }

    /// Forgets everything earlier searches stored.
    pub fn new_game(&mut self) {
        self.tt.new_search();
    }

    /// The transposition table's size in bytes.
    pub fn tt_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// The best turn in `game`'s current position, scoring repetitions of the game's
    /// earlier positions as draws.
    pub fn best_turn(
        &mut self,
        game: &Game,
        limits: &Limits,
        clock: &mut dyn Clock,
    ) -> Result<SearchResult, SearchError> {
        if game.is_over() {
            return Err(SearchError::GameOver);
        }
        self.search(game.position(), game.history(), limits, clock)
    }

    /// The best turn in `position`. `history` holds the hashes
    /// ([`Position::hash`]) of the positions at earlier turn boundaries, oldest first
    /// (as [`Game::history`] gives them; the current position may be last or absent).
    pub fn search(
        &mut self,
        position: &Position,
        history: &[u64],
        limits: &Limits,
        clock: &mut dyn Clock,
    ) -> Result<SearchResult, SearchError> {
        self.search_reporting(position, history, limits, clock, &mut |_| {})
    }

    /// [`Engine::search`], calling `report` with the best turn, score and line found so
    /// far after each completed iteration.
    pub fn search_reporting(
        &mut self,
        position: &Position,
        history: &[u64],
        limits: &Limits,
        clock: &mut dyn Clock,
        report: &mut dyn FnMut(&SearchResult),
    ) -> Result<SearchResult, SearchError> {
        if position.pending_removals() > 0 {
            return Err(SearchError::MidTurn);
        }
        let root_hash = position.hash();
        let history = match history.split_last() {
            Some((&last, earlier)) if last == root_hash => earlier,
            _ => history,
        };
        let mut game_path = history.to_vec();
        game_path.push(root_hash);
        if position.outcome().is_some()
            || position
                .rules()
                .repetition_draws(position.occurrences(&game_path))
        {
            return Err(SearchError::GameOver);
        }
        let turns = position.legal_turns();
        if turns.is_empty() {
            return Err(SearchError::GameOver);
        }
        if limits.level == Level::Beginner {
            // It looks at its own turn only.
            let turn = crate::beginner::choose(position, &turns, limits.seed);
            let result = SearchResult::at_once(turn, 0, 0, 0);
            report(&result);
            return Ok(result);
        }
        let perfect = if limits.level != Level::Perfect {
            None
        } else if Whole::supports(position.rules()).is_ok() {
            Whole::three().best_turn(position, &game_path, limits.seed)
        } else {
            self.placing
                .as_deref()
                .filter(|p| p.rules() == position.rules())
                .and_then(|p| p.best_turn(position, &game_path, limits.seed))
        };
        if let Some((turn, value)) = perfect {
            let result = SearchResult::at_once(turn, table_score(value, 0), clock.elapsed_ms(), 1);
            report(&result);
            return Ok(result);
        }
        // Perfect, outside its table, plays as Hard.
        let limits = &Limits {
            level: limits.level.searching(),
            ..*limits
        };
        let tb = self.tb.as_deref().filter(|_| limits.level == Level::Hard);
        let mut turns = turns;
        let mut drawn_root = false;
        // A won or lost ending is played from the tables; a drawn one is searched among
        // its drawing turns, on through the drawn endings as without tables
        // (`Searcher::probe`).
        match tb.and_then(|tb| table_root(tb, position)) {
            Some(TableRoot::Answer(turn, value)) => {
                let result = SearchResult::at_once(turn, table_score(value, 0), clock.elapsed_ms(), 1);
                report(&result);
                return Ok(result);
            }
            Some(TableRoot::Drawing(drawing)) => {
                turns = *drawing;
                drawn_root = true;
            }
            None => {}
        }
        if !self.keep {
            self.tt.new_search();
        }
        self.evals.clear();
        let mut searcher = Searcher::new(&mut self.tt, &mut self.evals, clock, limits, history, position);
        searcher.tb = tb;
        if let Some(c) = self.contempt.filter(|_| limits.level == Level::Hard) {
            searcher.contempt = c;
        }
        searcher.placing_foresight = self.placing_foresight && limits.level == Level::Hard;
        if self.classic {
            searcher.weights = Weights::CLASSIC;
            searcher.vary_ties = false;
            if limits.level == Level::Hard {
                searcher.contempt = CLASSIC_CONTEMPT;
            }
        }
        searcher.tb_max = tb.map_or(0, Tablebase::max_pieces);
        searcher.search_draws = drawn_root;
        Ok(searcher.iterate(position, &turns, report))
    }
}

#[derive(Clone, Copy, Debug)]
struct RootTurn {
    turn: Turn,
    score: i32,
}

struct Searcher<'a> {
    tt: &'a mut Table,
    evals: &'a mut EvalCache,
    clock: &'a mut dyn Clock,
    level: Level,
    max_depth: u32,
    movetime: Option<u64>,
    node_limit: Option<u64>,
    nodes: u64,
    stopped: bool,
    can_stop: bool,
    /// Hashes of the game's positions before the root, then the root, then the path.
    path: Vec<u64>,
    root_index: usize,
    killers: [[u32; 2]; MAX_PLY],
    /// Indexed by origin (the last slot: a placement) and destination.
    history: Box<History>,
    /// One turn list and one list of ordering scores per ply, reused.
    lists: Vec<TurnList>,
    scores: Vec<Scores>,
    adjacency: Adjacency,
    counts: Box<LineCounts>,
    /// The level's evaluation weights.
    weights: Weights,
    /// Whether ties of the root ordering are broken by the seed (Hard's).
    vary_ties: bool,
    seed: u64,
    noise: i32,
    tb: Option<&'a Tablebase>,
    tb_hits: u64,
    /// The root is a drawn ending: drawn endings are searched on as without tables,
    /// the tables only cutting the lines that win or lose.
    search_draws: bool,
    /// The most pieces a side may have for a position to be in the tables.
    tb_max: u8,
    /// What a repetition is worth less than even for the side that searches.
    contempt: i32,
    /// Whether the narrow-position extension also applies late in placing.
    placing_foresight: bool,
    /// The best root turn of the iteration in progress so far: one whose search there
    /// finished with a score above every turn searched before it (see
    /// [`Searcher::root`]), played when the time runs out before the iteration ends.
    partial: Option<RootTurn>,
}

impl<'a> Searcher<'a> {
    fn new(
        tt: &'a mut Table,
        evals: &'a mut EvalCache,
        clock: &'a mut dyn Clock,
        limits: &Limits,
        history: &[u64],
        root: &Position,
    ) -> Searcher<'a> {
        let mut path = Vec::with_capacity(history.len() + MAX_PLY + 1);
        path.extend_from_slice(history);
        path.push(root.hash());
        let level = limits.level;
        Searcher {
            tt,
            evals,
            clock,
            level,
            max_depth: limits.depth.unwrap_or(MAX_DEPTH).clamp(1, level.max_depth()),
            movetime: limits.movetime_ms,
            node_limit: limits.nodes,
            nodes: 0,
            stopped: false,
            can_stop: false,
            root_index: history.len(),
            path,
            killers: [[0; 2]; MAX_PLY],
            history: Box::new([[0; MAX_POINTS]; MAX_POINTS + 1]),
            lists: vec![TurnList::new(); MAX_PLY],
            adjacency: Adjacency::new(root.topology()),
            counts: LineCounts::new(root.topology()),
            weights: level.weights(),
            vary_ties: level == Level::Hard,
            scores: vec![Scores::new(); MAX_PLY],
            seed: mix(limits.seed),
            noise: level.eval_noise(),
            tb: None,
            tb_hits: 0,
            tb_max: 0,
            search_draws: false,
            contempt: level.contempt(),
            placing_foresight: false,
            partial: None,
        }
    }

    fn iterate(
        &mut self,
        root: &Position,
        turns: &TurnList,
        report: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult {
        let mut scores = Scores::new();
        let hints = Hints {
            tt_turn: 0,
            killers: [0; 2],
            history: &self.history,
        };
        order(root, turns, &mut scores, hints, &self.counts);
        let mut moves: Vec<RootTurn> = turns
            .iter()
            .zip(scores.iter())
            .map(|(&turn, &score)| RootTurn { turn, score })
            .collect();
        // Hard breaks ties of the ordering by its seed: the first of equal turns keeps
        // the root, so turns the board's symmetry makes equal (the four points with
        // four neighbours on the empty board) would otherwise always be the first
        // generated, and every game would open alike.
        let tiebreak = |m: &RootTurn| {
            if self.vary_ties {
                mix(self.seed ^ u64::from(pack(&m.turn)))
            } else {
                0
            }
        };
        moves.sort_by_key(|m| (core::cmp::Reverse(m.score), tiebreak(m)));
        let multi = self.level.root_noise() > 0;
        let dice = mix(self.seed ^ root.hash() ^ 0x0053_4841_4c4c_4f57);
        if dice % 100 < self.level.shallow_percent() {
            self.max_depth = 1;
        }
        if moves.len() == 1 {
            // A forced turn: answer at once rather than spend the time on it.
            self.max_depth = self.max_depth.min(2);
        }
        let mut done: Option<(Vec<RootTurn>, u32)> = None;
        for depth in 1..=self.max_depth {
            self.can_stop = depth > 1;
            self.partial = None;
            let mut trial = moves.clone();
            let mut window = ASPIRATION;
            let previous = moves[0].score;
            let (mut lo, mut hi) = if depth >= 4 && !multi && previous.abs() < MATE_BOUND {
                (previous - window, previous + window)
            } else {
                (-INF, INF)
            };
            loop {
                let score = self.root(root, depth, &mut trial, multi, (lo, hi));
                if self.stopped || multi || (score > lo && score < hi) || (lo == -INF && hi == INF) {
                    break;
                }
                window *= 4;
                if score <= lo {
                    lo = if window > 4 * PIECE { -INF } else { score - window };
                } else {
                    hi = if window > 4 * PIECE { INF } else { score + window };
                }
            }
            if self.stopped {
                // The time ran out within the iteration: a turn it already found better
                // than the last iteration's best, searched one turn deeper, is played.
                if let (Some(better), Some((moves, _))) = (self.partial.filter(|_| !multi), done.as_mut())
                    && let Some(i) = moves.iter().position(|m| m.turn == better.turn)
                {
                    moves[i].score = better.score;
                    moves[..=i].rotate_right(1);
                }
                break;
            }
            moves = trial;
            done = Some((moves.clone(), depth));
            report(&SearchResult {
                turn: moves[0].turn,
                score: moves[0].score,
                depth,
                nodes: self.nodes,
                pv: self.pv(root, moves[0].turn, depth),
                elapsed_ms: self.clock.elapsed_ms(),
                tb_hits: self.tb_hits,
            });
            let best = moves[0].score;
            if best.abs() >= MATE_BOUND && ((MATE - best.abs()) as u32) + 2 < depth {
                break;
            }
            // Iterations go on until the time is up: one that the time cuts short still
            // plays a better turn it found (`Searcher::partial`), so none is wasted.
            if let Some(ms) = self.movetime
                && self.clock.elapsed_ms() >= ms
            {
                break;
            }
            if let Some(n) = self.node_limit
                && self.nodes >= n
            {
                break;
            }
        }
        // Depth 1 always completes (stops are not allowed before), so `done` is set.
        let (moves, depth) = done.unwrap_or((moves, 0));
        let (turn, score) = self.choose(root, &moves);
        SearchResult {
            turn,
            score,
            depth,
            nodes: self.nodes,
            pv: self.pv(root, turn, depth),
            elapsed_ms: self.clock.elapsed_ms(),
            tb_hits: self.tb_hits,
        }
    }

    /// The turn to play from the last completed iteration: the best, or for levels
    /// with root noise, the best after blurring every exact score.
    fn choose(&self, root: &Position, moves: &[RootTurn]) -> (Turn, i32) {
        let amplitude = self.level.root_noise();
        if amplitude == 0 {
            return (moves[0].turn, moves[0].score);
        }
        let state = mix(self.seed ^ root.hash());
        let span = amplitude as u64 + 1;
        let mut best = (moves[0].turn, moves[0].score);
        let mut best_noisy = i32::MIN;
        let blind = self.level.blind_percent();
        let overlooked = |m: &RootTurn| {
            let step = m.turn.from().map_or(32, |p| p.index() as u64) << 8 | m.turn.to().index() as u64;
            mix(state ^ step.wrapping_mul(0x9e37_79b9)) % 100 < blind
        };
        // Everything overlooked (rare, in small lists): look again.
        let all_overlooked = moves.iter().all(overlooked);
        for (i, m) in moves.iter().enumerate() {
            if !all_overlooked && overlooked(m) {
                continue;
            }
            let r = mix(state.wrapping_add(i as u64));
            // A triangular spread in [-amplitude, amplitude]: small errors are common,
            // large ones rare.
            let noise = (r % span) as i32 + ((r >> 32) % span) as i32 - amplitude;
            let noisy = if m.score.abs() >= MATE_BOUND {
                m.score
            } else {
                m.score + noise
            };
            if noisy > best_noisy {
                best_noisy = noisy;
                best = (m.turn, m.score);
            }
        }
        best
    }

    /// One iteration at the root within the window `(lo, hi)`; returns the best score
    /// (a bound if it falls outside the window). `moves` ends sorted, best first.
    fn root(
        &mut self,
        root: &Position,
        depth: u32,
        moves: &mut [RootTurn],
        multi: bool,
        (lo, hi): (i32, i32),
    ) -> i32 {
        let mut alpha = lo;
        let mut best = -INF;
        for (i, m) in moves.iter_mut().enumerate() {
            let child = root.play_unchecked(m.turn);
            self.path.push(child.hash());
            let d = depth as i32 - 1;
            let score = if multi {
                -self.negamax(&child, d, -INF, INF, 1)
            } else if i == 0 {
                -self.negamax(&child, d, -hi, -alpha, 1)
            } else {
                let s = -self.negamax(&child, d, -alpha - 1, -alpha, 1);
                if s > alpha && !self.stopped {
                    -self.negamax(&child, d, -hi, -alpha, 1)
                } else {
                    s
                }
            };
            self.path.pop();
            if self.stopped {
                return best;
            }
            // The first turn with a score inside the window, or any later one that beat
            // every turn before it (a fail high included), is the best so far.
            if !multi && score > alpha && score > best {
                self.partial = Some(RootTurn { turn: m.turn, score });
            }
            // A turn that failed low has only a bound: it sorts last.
            m.score = if multi || score > alpha || i == 0 {
                score
            } else {
                -INF
            };
            if score > best {
                best = score;
                if !multi {
                    alpha = alpha.max(score);
                    if score >= hi {
                        break;
                    }
                }
            }
        }
        moves.sort_by_key(|m| core::cmp::Reverse(m.score));
        if !multi && (best <= lo || best >= hi) {
            // Outside the window: the caller searches again with a wider one.
            return best;
        }
        self.tt.store(
            root.hash(),
            pack(&moves[0].turn),
            moves[0].score,
            depth,
            Bound::Exact,
        );
        best
    }

    fn pv(&mut self, root: &Position, first: Turn, depth: u32) -> Vec<Turn> {
        let mut pv = vec![first];
        let mut pos = root.play_unchecked(first);
        let mut seen = vec![root.hash(), pos.hash()];
        while pv.len() < depth as usize {
            let Some(hit) = self.tt.probe(pos.hash()) else {
                break;
            };
            let Some(turn) = pos.legal_turns().into_iter().find(|t| pack(t) == hit.turn) else {
                break;
            };
            pv.push(turn);
            pos = pos.play_unchecked(turn);
            if seen.contains(&pos.hash()) {
                break;
            }
            seen.push(pos.hash());
        }
        pv
    }

    #[inline]
    fn check_limits(&mut self) {
        if !self.can_stop {
            return;
        }
        if let Some(n) = self.node_limit
            && self.nodes >= n
        {
            self.stopped = true;
        }
        if let Some(ms) = self.movetime
            && self.clock.elapsed_ms() >= ms
        {
            self.stopped = true;
        }
    }

    /// The evaluation with the level's noise, from the cache when the position was
    /// evaluated before in this search (transpositions near the leaves are common,
    /// and the table does not store the shallowest nodes).
    #[inline]
    fn eval(&mut self, pos: &Position) -> i32 {
        let key = pos.hash();
        if let Some(e) = self.evals.get(key) {
            return e;
        }
        let e = evaluate_with(pos, &self.adjacency, &self.counts, &self.weights);
        let e = if self.noise == 0 {
            e
        } else {
            let span = 2 * self.noise as u64 + 1;
            let e = e + (mix(key ^ self.seed) % span) as i32 - self.noise;
            (e + GRAIN / 2).div_euclid(GRAIN) * GRAIN
        };
        self.evals.put(key, e);
        e
    }

    /// The score of a finished position for the side to move (mill-core's
    /// [`Position::outcome`]: pieces, blockade, the quiet-turn draw), or `None` if play
    /// goes on.
    #[inline]
    fn terminal(pos: &Position, ply: usize) -> Option<i32> {
        let win = MATE - ply as i32;
        pos.outcome().map(|outcome| match outcome.winner() {
            Some(winner) if winner == pos.turn() => win,
            Some(_) => -win,
            None => 0,
        })
    }

    /// Whether the current position (last on the path) repeats: once within the search
    /// (a draw can be forced by repeating again), or as often as the rules' draw needs
    /// counting the game before.
    #[inline]
    fn repeated(&self, pos: &Position) -> bool {
        let rules = pos.rules();
        let mut occurrences = 1;
        for i in pos.earlier_occurrences(&self.path) {
            occurrences += 1;
            if i >= self.root_index || rules.repetition_draws(occurrences) {
                return true;
            }
        }
        false
    }

    fn negamax(&mut self, pos: &Position, depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_limits();
        }
        if self.stopped {
            return 0;
        }
        if let Some(score) = Self::terminal(pos, ply) {
            return score;
        }
        if self.repeated(pos) {
            // Contempt: a repetition is a little worse than even for the side that
            // searches, so Hard plays on where it can rather than repeat.
            let c = self.contempt;
            return if ply % 2 == 0 { -c } else { c };
        }
        if let Some(score) = self.probe(pos, ply) {
            return score;
        }
        // Mate distance pruning: no line from here beats a win now or loses slower
        // than a loss next turn.
        alpha = alpha.max(-(MATE - ply as i32));
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.eval(pos);
        }
        // A side left with one or two steps is near a blockade, which decides many
        // games: its lines are searched a turn deeper (they are narrow, so it is cheap).
        let depth = depth + i32::from(ply < MAX_PLY - 16 && self.narrow(pos));
        let pv_node = beta - alpha > 1;
        let key = pos.hash();
        let mut tt_turn = 0;
        if let Some(hit) = if depth >= TT_DEPTH {
            self.tt.probe(key)
        } else {
            None
        } {
            tt_turn = hit.turn;
            if !pv_node && hit.depth >= depth as u32 {
                let s = from_tt(hit.score, ply);
                match hit.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        // Reverse futility: at shallow depth, a position far above beta stays there.
        if !pv_node && depth <= RFP_DEPTH && beta.abs() < MATE_BOUND {
            let e = self.eval(pos);
            if e - RFP_MARGIN * depth >= beta {
                return e;
            }
        }
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_turn = 0u32;
        'turns: {
            // The table's turn first, before generating the others: it often cuts off.
            let mut searched = 0usize;
            if let Some(turn) = unpack(tt_turn)
                && let Ok(child) = pos.play(turn)
            {
                self.path.push(child.hash());
                let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                self.path.pop();
                if self.stopped {
                    return 0;
                }
                searched = 1;
                best = score;
                best_turn = tt_turn;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        if turn.removals().is_empty() {
                            self.reward(&turn, ply, depth);
                        }
                        break 'turns;
                    }
                }
            }
            // While placing, a quiet placement late in the order is reduced one turn
            // more: most of the many placements that neither close a mill nor block
            // nor win a killer's or threat's rank change little, and a fail high is
            // searched again at full depth.
            let placing = pos.in_hand(pos.turn()) > 0;
            pos.legal_turns_into(&mut self.lists[ply]);
            let n = self.lists[ply].len();
            if n == 0 {
                return self.eval(pos);
            }
            let hints = Hints {
                tt_turn,
                killers: self.killers[ply],
                history: &self.history,
            };
            order(pos, &self.lists[ply], &mut self.scores[ply], hints, &self.counts);
            for i in 0..n {
                // Selection sort, lazily: a cutoff usually comes within the first few turns.
                let scores = &mut self.scores[ply];
                let j = i + first_max(&scores[i..n]);
                scores.swap(i, j);
                let order = scores[i];
                let turns = &mut self.lists[ply];
                turns.swap(i, j);
                let turn = turns[i];
                if order == ORDER_TT && searched > 0 {
                    continue; // searched above
                }
                let number = searched;
                let quiet = turn.removals().is_empty();
                // Late-move pruning: near the leaves, once enough turns have been
                // tried, the quiet ones left (sorted last, never refuted anything here
                // before) are skipped; while placing, one turn of depth further up.
                if !pv_node
                    && depth <= LMP_DEPTH + placing as i32
                    && quiet
                    && order < ORDER_THREAT
                    && number >= LMP_BASE + LMP_STEP * depth as usize
                    && best > -MATE_BOUND
                {
                    continue;
                }
                searched += 1;
                let child = pos.play_unchecked(turn);
                self.path.push(child.hash());
                let mut score;
                if number == 0 {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                } else {
                    let reduction = if depth >= 3 && number >= 3 && quiet && order < ORDER_KILLER {
                        let r = LMR[(depth as usize).min(63)][number.min(63)] + placing as i32;
                        (r - pv_node as i32).clamp(1, depth - 2)
                    } else {
                        0
                    };
                    score = -self.negamax(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                    if score > alpha && reduction > 0 {
                        score = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                    }
                    if score > alpha && score < beta {
                        score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                    }
                }
                self.path.pop();
                if self.stopped {
                    return 0;
                }
                if score > best {
                    best = score;
                    best_turn = pack(&turn);
                    if score > alpha {
                        alpha = score;
                        if score >= beta {
                            if quiet {
                                self.reward(&turn, ply, depth);
                            }
                            break;
                        }
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if depth >= TT_DEPTH {
            self.tt
                .store(key, best_turn, to_tt(best, ply), depth as u32, bound);
        }
        best
    }

    /// Whether the side to move steps (neither places nor flies) and has at most
    /// [`NARROW_STEPS`] steps.
    #[inline]
    fn narrow(&self, pos: &Position) -> bool {
        let us = pos.turn();
        let hand = pos.in_hand(us);
        let moving = hand == 0 && !pos.flies(us);
        // With the switch on, the last placement too: the steps its pieces on the board
        // will have when moving starts.
        let placing_late = self.placing_foresight && hand == 1;
        (moving || placing_late)
            && steps_at_most(pos.topology(), pos.pieces(us).0, pos.empty().0, NARROW_STEPS)
    }

    fn reward(&mut self, turn: &Turn, ply: usize, depth: i32) {
        let packed = pack(turn);
        let k = &mut self.killers[ply];
        if k[0] != packed {
            k[1] = k[0];
            k[0] = packed;
        }
        let from = turn.from().map_or(MAX_POINTS, |p| p.index());
        let h = &mut self.history[from][turn.to().index()];
        *h += depth * depth;
        if *h > HISTORY_MAX {
            for row in self.history.iter_mut() {
                for v in row.iter_mut() {
                    *v /= 2;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoClock;
    use mill_core::{MORRIS_9, MORRIS_16, MORRIS_24, MORRIS_24_DIAGONALS};

    #[test]
    fn the_classic_search_keeps_hards_old_contempt() {
        // Light, four pieces against six, can only draw: by threefold repetition with
        // its first legal turn.
        let p: Position = "L.L/.D./..D/.D..D./D../.D./L.L l 0 0 0 10".parse().unwrap();
        let q = p.play(p.legal_turns()[0]).unwrap();
        let history = [q.hash(), p.hash(), q.hash()];
        let limits = Limits::new(Level::Hard, 0).with_depth(4);
        let mut engine = Engine::new(1);
        let own = engine.search(&p, &history, &limits, &mut NoClock).unwrap();
        let classic = engine
            .with_classic_search(|e| e.search(&p, &history, &limits, &mut NoClock))
            .unwrap();
        assert_eq!(own.score, -Level::Hard.contempt());
        assert_eq!(classic.score, -CLASSIC_CONTEMPT);
        assert_ne!(CLASSIC_CONTEMPT, Level::Hard.contempt());
    }

    #[test]
    fn steps_at_most_counts_every_free_step_on_every_board() {
        for t in [&MORRIS_9, &MORRIS_16, &MORRIS_24, &MORRIS_24_DIAGONALS] {
            let mut state = 5u64;
            for _ in 0..2000 {
                state = mix(state);
                let empty = state as u32 & t.all().0;
                let mine = (state >> 32) as u32 & t.all().0 & !empty;
                let steps: u32 = t
                    .points()
                    .filter(|p| mine & (1 << p.index()) != 0)
                    .map(|p| (t.neighbours(p).0 & empty).count_ones())
                    .sum();
                for limit in 0..6 {
                    assert_eq!(
                        steps_at_most(t, mine, empty, limit),
                        steps <= limit,
                        "{mine:#x} {empty:#x}"
                    );
                }
            }
        }
    }
}
