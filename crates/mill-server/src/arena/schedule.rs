//! The server's own arenas (`--arenas`), so a visitor always finds one: each
//! `VARIANT/INITIAL+INCREMENT/MINUTES` runs back to back, an arena starting at every
//! multiple of its length since the Unix epoch. Each instance makes the current and the
//! next one when they are missing; their ids are computed from the schedule and the
//! start, so several instances make each one once (the arenas' primary key decides).

use std::str::FromStr;

use sha2::{Digest, Sha256};

use crate::store::arena::NewArena;
use crate::timecontrol::TimeControl;

/// One scheduled arena kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scheduled {
    /// The rule set's name.
    pub variant: String,
    /// Seconds each side starts with.
    pub initial: u32,
    /// Seconds added after each turn.
    pub increment: u32,
    /// Length in minutes (each starts when the last ends).
    pub minutes: u32,
}

impl FromStr for Scheduled {
    type Err = String;

    /// `nine/180+2/60`: the rule set, the clock in seconds, the length in minutes.
    fn from_str(s: &str) -> Result<Scheduled, String> {
        let form = || format!("{s:?} is not VARIANT/INITIAL+INCREMENT/MINUTES (e.g. nine/180+2/60)");
        let mut parts = s.trim().split('/');
        let (Some(variant), Some(clock), Some(minutes), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(form());
        };
        let variant = mill_core::Rules::parse_table(variant)
            .map_err(|e| format!("{s:?}: {e}"))?
            .to_string();
        let (initial, increment) = clock.split_once('+').ok_or_else(form)?;
        let (initial, increment): (u32, u32) = (
            initial.parse().map_err(|_| form())?,
            increment.parse().map_err(|_| form())?,
        );
        let control = serde_json::json!({ "initial": initial, "increment": increment });
        TimeControl::from_request(Some(&control)).map_err(|e| format!("{s:?}: {e}"))?;
        let minutes: u32 = minutes.parse().map_err(|_| form())?;
        if !(1..=super::api::MAX_MINUTES as u32).contains(&minutes) {
            return Err(format!(
                "{s:?}: an arena lasts 1 to {} minutes",
                super::api::MAX_MINUTES
            ));
        }
        Ok(Scheduled {
            variant,
            initial,
            increment,
            minutes,
        })
    }
}

impl Scheduled {
    fn length_ms(&self) -> i64 {
        i64::from(self.minutes) * 60_000
    }

    /// The arenas that should exist at `now`: the one running and the next.
    pub fn due(&self, now: i64, created_at: i64) -> [NewArena; 2] {
        let start = now.div_euclid(self.length_ms()) * self.length_ms();
        [
            self.arena(start, created_at),
            self.arena(start + self.length_ms(), created_at),
        ]
    }

    /// The arena starting at `starts_at`, with its id computed from both.
    pub fn arena(&self, starts_at: i64, created_at: i64) -> NewArena {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
        let digest = Sha256::digest(
            format!(
                "{}/{}+{}/{}@{starts_at}",
                self.variant, self.initial, self.increment, self.minutes
            )
            .as_bytes(),
        );
        let id: String = digest
            .iter()
            .take(crate::keys::ROOM_ID_LEN)
            .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
            .collect();
        let clock = if self.initial % 60 == 0 {
            format!("{}+{}", self.initial / 60, self.increment)
        } else {
            format!("{}s+{}", self.initial, self.increment)
        };
        NewArena {
            id,
            name: format!("{} {clock} arena", self.variant),
            variant: self.variant.clone(),
            initial: self.initial,
            increment: self.increment,
            starts_at,
            ends_at: starts_at + self.length_ms(),
            rated: false,
            created_by: None,
            created_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_are_read_and_refused_clearly() {
        let s: Scheduled = "nine/180+2/60".parse().unwrap();
        assert_eq!(
            (s.variant.as_str(), s.initial, s.increment, s.minutes),
            ("nine", 180, 2, 60)
        );
        assert_eq!(
            "six+per-mill/60+0/30".parse::<Scheduled>().unwrap().variant,
            "six+per-mill"
        );
        for bad in [
            "",
            "nine",
            "nine/180/60",
            "nine/180+2",
            "chess/180+2/60",
            "nine/180+2/0",
            "nine/180+2/361",
            "nine/x+2/60",
            "nine/180+2/60/1",
            "nine/0+0/60",
        ] {
            assert!(bad.parse::<Scheduled>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_current_and_next_arena_have_ids_every_instance_computes_alike() {
        let s: Scheduled = "nine/180+2/60".parse().unwrap();
        let [now, next] = s.due(7_200_000 + 5, 1);
        assert_eq!((now.starts_at, now.ends_at), (7_200_000, 10_800_000));
        assert_eq!(next.starts_at, 10_800_000);
        assert!(crate::keys::is_room_id(&now.id));
        assert_ne!(now.id, next.id);
        assert_eq!(
            s.due(10_799_999, 2)[0].id,
            now.id,
            "the same slot, the same arena"
        );
        assert_eq!(s.due(10_800_000, 2)[0].id, next.id);
        let other: Scheduled = "nine/180+0/60".parse().unwrap();
        assert_ne!(other.due(7_200_000, 1)[0].id, now.id);
        assert_eq!(now.name, "nine 3+2 arena");
    }
}
