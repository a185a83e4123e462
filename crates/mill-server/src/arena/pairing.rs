//! Whom an arena pairs, as lichess's arena does: among the players waiting (joined,
//! not paused, with an open socket and no game in play), each from the top of the
//! standings is paired with the nearest in standing who was not their last opponent,
//! or with their last opponent when nobody else waits. Pure: the store calls it inside
//! the transaction that creates the games (`store/arena.rs`), so what it decides is
//! decided once.

/// A player waiting to be paired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// Account id.
    pub account: i64,
    /// Points so far.
    pub score: u32,
    /// The last game's opponent.
    pub last_opponent: Option<i64>,
    /// Games played as Light less games as Dark.
    pub light_balance: i32,
}

/// The pairs to make, each (Light, Dark). `coin` picks Light between two players
/// with the same colour balance.
pub fn pair(mut waiting: Vec<Waiting>, mut coin: impl FnMut() -> bool) -> Vec<(i64, i64)> {
    waiting.sort_by(|a, b| b.score.cmp(&a.score).then(a.account.cmp(&b.account)));
    let mut pairs = Vec::new();
    while waiting.len() >= 2 {
        let first = waiting.remove(0);
        let rematch =
            |w: &Waiting| w.last_opponent == Some(first.account) || first.last_opponent == Some(w.account);
        let at = waiting.iter().position(|w| !rematch(w)).unwrap_or(0);
        let second = waiting.remove(at);
        let first_light = match first.light_balance.cmp(&second.light_balance) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => coin(),
        };
        pairs.push(if first_light {
            (first.account, second.account)
        } else {
            (second.account, first.account)
        });
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(account: i64, score: u32, last: Option<i64>, balance: i32) -> Waiting {
        Waiting {
            account,
            score,
            last_opponent: last,
            light_balance: balance,
        }
    }

    fn accounts(pairs: &[(i64, i64)]) -> Vec<[i64; 2]> {
        pairs
            .iter()
            .map(|&(a, b)| {
                let mut p = [a, b];
                p.sort();
                p
            })
            .collect()
    }

    #[test]
    fn nobody_or_one_waiting_makes_no_pair() {
        assert!(pair(vec![], || true).is_empty());
        assert!(pair(vec![w(1, 0, None, 0)], || true).is_empty());
    }

    #[test]
    fn close_standings_are_paired_together() {
        let pairs = pair(
            vec![
                w(1, 0, None, 0),
                w(2, 10, None, 0),
                w(3, 1, None, 0),
                w(4, 9, None, 0),
            ],
            || true,
        );
        assert_eq!(accounts(&pairs), [[2, 4], [1, 3]]);
    }

    #[test]
    fn the_last_opponent_is_skipped_when_anyone_else_waits() {
        let pairs = pair(
            vec![w(1, 10, Some(2), 0), w(2, 9, Some(1), 0), w(3, 0, None, 0)],
            || true,
        );
        assert_eq!(accounts(&pairs), [[1, 3]]);
        // Only the two of them: they meet again rather than wait.
        let pairs = pair(vec![w(1, 10, Some(2), 0), w(2, 9, Some(1), 0)], || true);
        assert_eq!(accounts(&pairs), [[1, 2]]);
    }

    #[test]
    fn nobody_is_paired_twice() {
        let waiting: Vec<Waiting> = (0..101)
            .map(|n| w(n, (n % 7) as u32, Some((n + 1) % 101), 0))
            .collect();
        let pairs = pair(waiting, || false);
        assert_eq!(pairs.len(), 50);
        let mut seen: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 100);
    }

    #[test]
    fn light_goes_to_whoever_had_it_less() {
        assert_eq!(pair(vec![w(1, 5, None, 2), w(2, 4, None, -1)], || true), [(2, 1)]);
        assert_eq!(
            pair(vec![w(1, 5, None, -1), w(2, 4, None, 0)], || false),
            [(1, 2)]
        );
        assert_eq!(pair(vec![w(1, 5, None, 0), w(2, 4, None, 0)], || true), [(1, 2)]);
        assert_eq!(pair(vec![w(1, 5, None, 0), w(2, 4, None, 0)], || false), [(2, 1)]);
    }
}
