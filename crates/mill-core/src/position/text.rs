//! Position strings: reading one (`Position::from_str_variant`, `FromStr`) and writing
//! one (`Display`); the format is in the parent module's docs.

use super::*;

impl Position {
    /// Reads a position string played under `rules` (a [`Variant`] for its usual rules):
    /// a string of six parts is read under them, a seventh part must name them.
    pub fn from_str_variant(s: &str, rules: impl Into<Rules>) -> Result<Position, PositionError> {
        let rules = rules.into();
        let position = Position::parse(s, rules)?;
        if position.rules() != rules {
            return Err(PositionError::OtherRules {
                expected: rules,
                found: position.rules(),
            });
        }
        Ok(position)
    }

    /// Reads a position string and checks it (see the module docs for the format); a
    /// string without a seventh part is played under `default`.
    pub(crate) fn parse(s: &str, default: Rules) -> Result<Position, PositionError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if !(6..=7).contains(&fields.len()) {
            return Err(PositionError::FieldCount(fields.len()));
        }
        let rules = match fields.get(6) {
            None => default,
            Some(text) => Rules::parse(text).map_err(PositionError::Rules)?,
        };
        let t = rules.topology;
        // Ranks present on this board, top first.
        let mut ranks: Vec<u8> = t.points().map(|p| t.coords(p).1).collect();
        ranks.sort_unstable_by(|a, b| b.cmp(a));
        ranks.dedup();
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != ranks.len() {
            return Err(PositionError::RankCount {
                expected: ranks.len(),
                found: rows.len(),
            });
        }
        let mut board = [0u32; 2];
        for (&rank, row) in ranks.iter().zip(&rows) {
            let points: Vec<Point> = (0..7).filter_map(|file| t.point_at(file, rank)).collect();
            let chars: Vec<char> = row.chars().collect();
            if chars.len() != points.len() {
                return Err(PositionError::RankLength {
                    rank: rank + 1,
                    expected: points.len(),
                    found: chars.len(),
                });
            }
            for (p, c) in points.into_iter().zip(chars) {
                match c {
                    'L' => board[0] |= 1 << p.0,
                    'D' => board[1] |= 1 << p.0,
                    '.' => {}
                    other => return Err(PositionError::BoardChar(other)),
                }
            }
        }
        let turn = match fields[1] {
            "l" => Color::Light,
            "d" => Color::Dark,
            other => return Err(PositionError::Turn(other.to_string())),
        };
        let light_hand: u8 = fields[2]
            .parse()
            .map_err(|_| PositionError::LightHand(fields[2].into()))?;
        let dark_hand: u8 = fields[3]
            .parse()
            .map_err(|_| PositionError::DarkHand(fields[3].into()))?;
        let pending: u8 = fields[4]
            .parse()
            .map_err(|_| PositionError::Pending(fields[4].into()))?;
        let quiet: u16 = fields[5]
            .parse()
            .map_err(|_| PositionError::Quiet(fields[5].into()))?;

        let hand = [light_hand, dark_hand];
        for c in Color::ALL {
            if hand[c.index()] as u32 + board[c.index()].count_ones() > rules.pieces as u32 {
                return Err(PositionError::TooManyPieces(c));
            }
        }
        // The pieces in hand are what each side has left to place, whoever is to move:
        // play from the start alternates placements, but a position is not bound to
        // have been reached so (MIF's hands are authoritative, not derived from the
        // placements). A side with none left moves, even while the other still places.
        if pending > 0 {
            let own = board[turn.index()];
            let victims = board[(!turn).index()].count_ones();
            if pending > rules.max_removals() || t.in_mills(own) == 0 || pending as u32 > victims {
                return Err(PositionError::ImpossiblePending);
            }
        }
        // Without a no-progress draw the count is not kept, and any value stands; a
        // claimed draw lets the count run past the limit.
        if rules.counts_quiet() && quiet > rules.quiet_limit && rules.quiet_draw == DrawBy::Automatic {
            return Err(PositionError::ImpossibleQuiet);
        }
        // Where a closed line wins, only the side that just moved may stand in one.
        if rules.mill_wins && t.in_mills(board[turn.index()]) != 0 {
            return Err(PositionError::ImpossibleLine);
        }
        let mut p = Position {
            rules: rules.pack(),
            board,
            hand,
            turn,
            pending,
            quiet,
            hash: 0,
        };
        p.hash = p.compute_hash();
        Ok(p)
    }
}

impl FromStr for Position {
    type Err = PositionError;

    /// Reads a position string of any variant (a Nine Men's Morris one without the
    /// seventh part).
    fn from_str(s: &str) -> Result<Position, PositionError> {
        Position::parse(s, *Variant::Nine.rules())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.topology();
        let mut ranks: Vec<u8> = t.points().map(|p| t.coords(p).1).collect();
        ranks.sort_unstable_by(|a, b| b.cmp(a));
        ranks.dedup();
        for (i, &rank) in ranks.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            for p in (0..7).filter_map(|file| t.point_at(file, rank)) {
                f.write_str(match self.piece_at(p) {
                    Some(Color::Light) => "L",
                    Some(Color::Dark) => "D",
                    None => ".",
                })?;
            }
        }
        write!(
            f,
            " {} {} {} {} {}",
            self.turn.char(),
            self.hand[0],
            self.hand[1],
            self.pending,
            self.quiet
        )?;
        let rules = self.rules();
        if rules.variant != Variant::Nine || !rules.is_default() {
            write!(f, " {rules}")?;
        }
        Ok(())
    }
}
