//! Perft counts from a data file per variant (and one for the rule options), and a
//! slow, independent count through the action API that must agree with the fast turn
//! generator.

mod common;
use common::*;
use mill_core::perft::perft;
use mill_core::{Action, Position};

const FILES: [&str; 5] = [
    include_str!("perft.txt"),
    include_str!("perft-three.txt"),
    include_str!("perft-six.txt"),
    include_str!("perft-twelve.txt"),
    include_str!("perft-options.txt"),
];

fn cases() -> Vec<(Position, Vec<(u32, u64)>)> {
    FILES
        .iter()
        .flat_map(|file| file.lines())
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut parts = line.split(';');
            let position = pos(parts.next().unwrap().trim());
            let counts = parts
                .map(|p| {
                    let (d, n) = p.trim().split_once(' ').unwrap();
                    (d.parse().unwrap(), n.parse().unwrap())
                })
                .collect();
            (position, counts)
        })
        .collect()
}

#[test]
fn every_variant_has_perft_counts() {
    let cases = cases();
    for variant in mill_core::Variant::ALL {
        assert!(
            cases.iter().filter(|(p, _)| p.variant() == variant).count() >= 3,
            "{variant}"
        );
    }
}

#[test]
fn perft_counts_match_the_data_file() {
    for (position, counts) in cases() {
        for (depth, expected) in counts {
            assert_eq!(perft(&position, depth), expected, "perft {depth} of {position}");
        }
    }
}

/// Counts complete turns by walking actions one click at a time. Removals made in
/// another order that reach the same position are the same turn.
fn slow_turns(p: &Position) -> Vec<Position> {
    fn finish(p: Position, out: &mut Vec<Position>) {
        if p.pending_removals() == 0 {
            out.push(p);
            return;
        }
        for a in p.legal_actions() {
            assert!(matches!(a, Action::Remove { .. }));
            finish(p.play_action(a).unwrap(), out);
        }
    }
    let mut out = Vec::new();
    if p.outcome().is_some() {
        return out;
    }
    for a in p.legal_actions() {
        let mut ends = Vec::new();
        finish(p.play_action(a).unwrap(), &mut ends);
        for end in ends {
            if !out.contains(&end) {
                out.push(end);
            }
        }
    }
    out
}

fn slow_perft(p: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    slow_turns(p).iter().map(|n| slow_perft(n, depth - 1)).sum()
}

#[test]
fn action_by_action_count_agrees_with_the_turn_generator() {
    for (position, counts) in cases() {
        for (depth, expected) in counts.into_iter().filter(|&(d, _)| d <= 3) {
            assert_eq!(
                slow_perft(&position, depth),
                expected,
                "slow perft {depth} of {position}"
            );
        }
    }
}
