//! A process makes at most `MAX_EXTENDED` rule sets with extended options; the next one
//! is refused with a coded error, and those made stay usable. (A test binary of its own:
//! the rule sets made last as long as the process.)

use mill_core::{MAX_EXTENDED, NINE, Position, Rules, RulesError};

#[test]
fn rule_sets_with_extended_options_are_made_until_there_is_no_room() {
    let made: Vec<&'static Rules> = (1..=MAX_EXTENDED)
        .map(|limit| Rules::parse(&format!("nine+quiet-{limit}")).unwrap())
        .collect();
    let mut ids: Vec<u8> = made.iter().map(|r| r.id()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), MAX_EXTENDED, "each its own id");
    assert!(
        made.iter()
            .all(|r| r.is_extended() && Rules::from_id(r.id()) == Some(*r))
    );
    assert_eq!(
        Rules::parse(&format!("nine+quiet-{}", MAX_EXTENDED + 1)),
        Err(RulesError::TooMany)
    );
    // Asking again for one already made, or for the table's, still works.
    assert_eq!(Rules::parse("nine+quiet-7"), Ok(made[6]));
    assert_eq!(
        Rules::parse("nine+dark-first+per-mill").map(Rules::is_extended),
        Ok(false)
    );
    assert_eq!(Rules::parse("nine+quiet-100"), Ok(NINE));
    let p = Position::start(made[41]);
    assert_eq!(p.rules().quiet_limit, 42);
    assert_eq!(p.to_string().parse::<Position>(), Ok(p));
}
