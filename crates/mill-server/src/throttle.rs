//! Rates, with `governor`'s GCRA limiters: messages per socket (with the flood
//! tolerance after which a socket is closed), and room creation and joins per IP address.

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::DefaultClock;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

type Direct = RateLimiter<NotKeyed, InMemoryState, DefaultClock>;

/// Refused messages a socket may send in a burst before it is closed (or twice its
/// per-second allowance, when that is more).
pub const FLOOD_BURST: u32 = 40;

fn nz(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n.max(1)).expect("at least 1")
}

/// What one socket may send.
#[derive(Debug)]
pub struct MessageRate {
    allowed: Direct,
    refused: Direct,
    per_second: u32,
    /// Messages the client may have sent while the server was not reading it (see
    /// [`MessageRate::credit`]), let through beyond the allowance.
    owed: f64,
}

/// The longest wait a socket is credited for at once: a minute of its allowance.
pub const MAX_CREDIT_SECS: f64 = 60.0;

/// What [`MessageRate::check`] decided about one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within the allowance: handle it.
    Allow,
    /// Over the allowance: answer `rate-limited` and ignore it.
    Refuse,
    /// Over the allowance for too long: close the socket with 1008.
    Flooding,
}

impl MessageRate {
    /// `per_second` sustained, bursts of twice that. Refused messages are tolerated at
    /// the same rate, with a burst of [`FLOOD_BURST`] (or twice the rate); a socket
    /// that goes past that keeps sending at more than twice its allowance.
    pub fn new(per_second: u32) -> MessageRate {
        let rate = nz(per_second);
        let burst = nz(per_second.saturating_mul(2));
        MessageRate {
            allowed: RateLimiter::direct(Quota::per_second(rate).allow_burst(burst)),
            refused: RateLimiter::direct(
                Quota::per_second(rate).allow_burst(nz(FLOOD_BURST.max(per_second.saturating_mul(2)))),
            ),
            per_second,
            owed: 0.0,
        }
    }

    /// The server did not read the socket for `waited` (its queue for the room was full:
    /// a slow database). What a client within its allowance sent meanwhile arrives at
    /// once when reading resumes; it is counted by when it could have been sent, not by
    /// when the server got to it: up to `per_second × waited` messages are let through
    /// beyond the allowance. Over its life a socket still gets no more than its rate.
    pub fn credit(&mut self, waited: std::time::Duration) {
        let most = self.per_second as f64 * MAX_CREDIT_SECS;
        self.owed = (self.owed + self.per_second as f64 * waited.as_secs_f64()).min(most);
    }

    /// Judges one incoming message.
    pub fn check(&mut self) -> Verdict {
        if self.allowed.check().is_ok() {
            Verdict::Allow
        } else if self.owed >= 1.0 {
            self.owed -= 1.0;
            Verdict::Allow
        } else if self.refused.check().is_ok() {
            Verdict::Refuse
        } else {
            Verdict::Flooding
        }
    }
}

/// Room creations and joins per IP address.
#[derive(Debug)]
pub struct PerAddress {
    limiter: Option<RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, DefaultClock>>,
}

impl PerAddress {
    /// `per_minute == 0` means unlimited; bursts of `per_minute`.
    pub fn new(per_minute: u32) -> PerAddress {
        PerAddress {
            limiter: NonZeroU32::new(per_minute).map(|n| RateLimiter::keyed(Quota::per_minute(n))),
        }
    }

    /// Takes a token for `addr`; false when it has used up its allowance.
    pub fn allow(&self, addr: IpAddr) -> bool {
        self.limiter.as_ref().is_none_or(|l| l.check_key(&addr).is_ok())
    }

    /// Forgets addresses whose allowance has refilled, so the map stays small.
    pub fn sweep(&self) {
        if let Some(l) = &self.limiter {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_gets_its_burst_then_refusals_then_is_closed() {
        let mut rate = MessageRate::new(5);
        let verdicts: Vec<Verdict> = (0..100).map(|_| rate.check()).collect();
        let allowed = verdicts.iter().filter(|v| **v == Verdict::Allow).count();
        assert!((10..=11).contains(&allowed), "{allowed}");
        let refused = verdicts.iter().filter(|v| **v == Verdict::Refuse).count();
        assert!((40..=41).contains(&refused), "{refused}");
        assert_eq!(verdicts.last(), Some(&Verdict::Flooding));
    }

    #[test]
    fn time_the_server_did_not_read_is_credited_at_the_rate() {
        let mut rate = MessageRate::new(10);
        // The burst (20) is spent; then the server did not read for 10 s, during which
        // a client at the rate sent 100 messages: all of them are let through.
        for _ in 0..20 {
            assert_eq!(rate.check(), Verdict::Allow);
        }
        rate.credit(std::time::Duration::from_secs(10));
        let allowed = (0..100).filter(|_| rate.check() == Verdict::Allow).count();
        assert!(allowed >= 100, "{allowed}");
        // No more than that: the next ones are refused as usual.
        let refused = (0..10).filter(|_| rate.check() == Verdict::Refuse).count();
        assert!(refused >= 9, "{refused}");
    }

    #[test]
    fn per_address_limits_each_address_alone() {
        let limit = PerAddress::new(2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(limit.allow(a));
        assert!(limit.allow(a));
        assert!(!limit.allow(a));
        assert!(limit.allow(b));
        assert!(PerAddress::new(0).allow(a));
        limit.sweep();
    }
}
