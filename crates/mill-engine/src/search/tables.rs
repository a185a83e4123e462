//! The endgame tables in Hard's search: what they decide at the root, and the exact
//! scores they give inside it.

use super::*;

/// A table value as a search score for the side to move, `ply` turns below the root.
pub(super) fn table_score(value: Value, ply: usize) -> i32 {
    match value {
        Value::Win(n) => MATE - ply as i32 - i32::from(n),
        Value::Loss(n) => -(MATE - ply as i32 - i32::from(n)),
        Value::Draw => 0,
    }
}

/// What the tables make of a root they hold.
pub(super) enum TableRoot {
    /// Won or lost: the tables' turn, played at once (so a won ending is never spoiled).
    Answer(Turn, Value),
    /// Drawn: the drawing turns, to search. They are equal to the tables, not to an
    /// opponent who can go wrong, and the search picks the one that keeps the most play.
    Drawing(Box<TurnList>),
}

/// The tables' verdict on `position`; `None` outside them.
pub(super) fn table_root(tb: &Tablebase, position: &Position) -> Option<TableRoot> {
    let probe = tb.probe(position)?;
    if probe.result == Value::Draw
        && let Some(values) = tb.turn_values(position)
    {
        let drawing: TurnList = values
            .into_iter()
            .filter(|(_, v)| *v == Value::Draw)
            .map(|(t, _)| t)
            .collect();
        if !drawing.is_empty() {
            return Some(TableRoot::Drawing(Box::new(drawing)));
        }
    }
    let (turn, probe) = tb.best_turn(position)?;
    Some(TableRoot::Answer(turn, probe.result))
}

impl Searcher<'_> {
    /// The tablebase's exact score of an ending in the tables.
    #[inline]
    pub(super) fn probe(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        let tb = self.tb?;
        let (light, dark) = (Color::Light, Color::Dark);
        if pos.in_hand(light) > 0
            || pos.in_hand(dark) > 0
            || pos.on_board(light).max(pos.on_board(dark)) > self.tb_max
        {
            return None;
        }
        let result = tb.probe(pos)?.result;
        if result == Value::Draw && self.search_draws {
            // From a drawn root, drawn endings are searched on: a draw against perfect
            // defence, but the opponent may not defend perfectly.
            return None;
        }
        self.tb_hits += 1;
        Some(table_score(result, ply))
    }
}
