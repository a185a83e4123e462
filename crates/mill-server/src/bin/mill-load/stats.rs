//! The pure parts of the newer load modes: percentiles and arrival schedules.

use std::time::Duration;

/// The `p`-quantile (0 to 1) of `sorted` (ascending) by nearest rank: the smallest
/// value with at least a fraction `p` of all values at or below it; `None` when empty.
pub(super) fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (sorted.len() as f64 * p.clamp(0.0, 1.0)).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// `p50 … ms | p99 … ms | max … ms (N samples)` of milliseconds (sorted here).
pub(super) fn summary(ms: &mut [f64]) -> String {
    summary_in(ms, "ms", 1)
}

/// [`summary`] of values in `unit`, with `decimals` digits after the point.
pub(super) fn summary_in(v: &mut [f64], unit: &str, decimals: usize) -> String {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| quantile(v, p).map_or("-".to_string(), |x| format!("{x:.decimals$} {unit}"));
    format!(
        "p50 {} | p99 {} | max {} ({} samples)",
        at(0.5),
        at(0.99),
        at(1.0),
        v.len()
    )
}

/// How arrivals are spread over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Arrivals {
    /// Evenly spaced: the i-th at i ÷ rate.
    Even,
    /// A Poisson process: independent exponential gaps of mean 1 ÷ rate.
    Poisson,
}

/// When each of `n` arrivals at `rate` a second comes, from the start. `uniform`
/// gives values in [0, 1), drawn once a gap of Poisson arrivals (the first comes at 0).
pub(super) fn schedule(
    n: usize,
    rate: f64,
    arrivals: Arrivals,
    mut uniform: impl FnMut() -> f64,
) -> Vec<Duration> {
    assert!(rate > 0.0, "the rate must be positive");
    let mut at = 0.0;
    (0..n)
        .map(|i| match arrivals {
            Arrivals::Even => Duration::from_secs_f64(i as f64 / rate),
            Arrivals::Poisson => {
                if i > 0 {
                    at += -(1.0 - uniform()).ln() / rate;
                }
                Duration::from_secs_f64(at)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn quantiles_are_nearest_ranks() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), Some(50.0));
        assert_eq!(quantile(&v, 0.99), Some(99.0));
        assert_eq!(quantile(&v, 1.0), Some(100.0));
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&v, 0.991), Some(100.0));
        assert_eq!(quantile(&[7.0], 0.99), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
        let mut unsorted = vec![3.0, 1.0, 2.0];
        assert_eq!(
            summary(&mut unsorted),
            "p50 2.0 ms | p99 3.0 ms | max 3.0 ms (3 samples)"
        );
        assert_eq!(summary(&mut []), "p50 - | p99 - | max - (0 samples)");
        assert_eq!(
            summary_in(&mut [400.0, 12.0], "points", 0),
            "p50 12 points | p99 400 points | max 400 points (2 samples)"
        );
    }

    #[test]
    fn even_arrivals_are_one_over_the_rate_apart() {
        let at = schedule(5, 20.0, Arrivals::Even, || unreachable!("no draws"));
        let ms: Vec<u128> = at.iter().map(Duration::as_millis).collect();
        assert_eq!(ms, [0, 50, 100, 150, 200]);
    }

    #[test]
    fn poisson_arrivals_have_exponential_gaps_of_the_rate() {
        // The first comes at once; each gap is -ln(1 - u) / rate.
        let mut draws = [0.0, 0.75].into_iter();
        let at = schedule(3, 2.0, Arrivals::Poisson, || draws.next().unwrap());
        let gap = |u: f64| -(1.0_f64 - u).ln() / 2.0;
        assert_eq!(at[0], Duration::ZERO);
        assert!((at[1].as_secs_f64() - gap(0.0)).abs() < 1e-9);
        assert!((at[2].as_secs_f64() - gap(0.0) - gap(0.75)).abs() < 1e-9);
        // Over many, about `rate` a second (a fixed seed: the same draws every run).
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let at = schedule(100_000, 1000.0 / 60.0, Arrivals::Poisson, || rng.random());
        let per_minute = at.len() as f64 / at.last().unwrap().as_secs_f64() * 60.0;
        assert!((per_minute - 1000.0).abs() < 10.0, "{per_minute}");
        assert!(at.windows(2).all(|w| w[0] <= w[1]));
    }
}
