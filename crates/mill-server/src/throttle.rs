//! Token buckets: per socket for messages, per IP address for room creation and joins.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

/// Allows `rate` events per second on average and bursts of `burst`.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(rate: f64, burst: f64) -> TokenBucket {
        TokenBucket {
            tokens: burst,
            rate,
            burst,
            last: Instant::now(),
        }
    }

    /// Takes one token if there is one.
    pub fn take(&mut self, now: Instant) -> bool {
        self.refill(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    fn refill(&mut self, now: Instant) {
        let secs = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens = (self.tokens + secs * self.rate).min(self.burst);
        self.last = now;
    }

    fn is_full(&mut self, now: Instant) -> bool {
        self.refill(now);
        self.tokens >= self.burst
    }
}

/// One bucket per address. A std `Mutex` is right: it is held for a few
/// instructions and never across an `.await`.
#[derive(Debug)]
pub struct PerAddress {
    per_minute: u32,
    buckets: Mutex<HashMap<IpAddr, TokenBucket>>,
}

impl PerAddress {
    /// `per_minute == 0` means unlimited.
    pub fn new(per_minute: u32) -> PerAddress {
        PerAddress {
            per_minute,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `addr`; false when it has used up its allowance.
    pub fn allow(&self, addr: IpAddr) -> bool {
        if self.per_minute == 0 {
            return true;
        }
        let per_minute = f64::from(self.per_minute);
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        buckets
            .entry(addr)
            .or_insert_with(|| TokenBucket::new(per_minute / 60.0, per_minute))
            .take(Instant::now())
    }

    /// Forgets addresses whose buckets have refilled, so the map stays small.
    pub fn sweep(&self) {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        buckets.retain(|_, b| !b.is_full(now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn bucket_allows_a_burst_then_refills_at_the_rate() {
        let start = Instant::now();
        let mut b = TokenBucket::new(2.0, 3.0);
        b.last = start;
        assert!(b.take(start));
        assert!(b.take(start));
        assert!(b.take(start));
        assert!(!b.take(start));
        assert!(b.take(start + Duration::from_millis(500)));
        assert!(!b.take(start + Duration::from_millis(500)));
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
    }
}
