//! A process makes at most `MAX_EXTENDED` rule sets with extended options; the next one
//! is refused with a coded error (never a panic), and those made stay usable. Input read
//! only for the table's rule sets (`Rules::parse_table`, the server's and the page's)
//! makes none, so it is unaffected by the limit. (A test binary of its own: the rule
//! sets made last as long as the process.)

use mill_core::{MAX_EXTENDED, NINE, Position, Rules, RulesError};

#[test]
fn rule_sets_with_extended_options_are_made_until_there_is_no_room() {
    // Refused without being made: these take no room.
    for name in ["nine+quiet-5000", "twelve+pieces-13", "six+quiet-claim"] {
        assert!(
            matches!(Rules::parse_table(name), Err(RulesError::Extended(_))),
            "{name}"
        );
    }

    let made: Vec<&'static Rules> = (1..=MAX_EXTENDED)
        .map(|limit| Rules::parse(&format!("nine+quiet-{limit}")).unwrap())
        .collect();
    for (i, a) in made.iter().enumerate() {
        assert!(a.is_extended());
        assert_eq!(a.quiet_limit as usize, i + 1);
        assert!(
            made[..i].iter().all(|b| !core::ptr::eq(*a, *b) && *a != *b),
            "each its own"
        );
    }
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
    assert_eq!(Rules::parse_table("nine+quiet-100"), Ok(NINE));
    // The table's reader says what it said before the room ran out.
    assert_eq!(
        Rules::parse_table("nine+quiet-5000"),
        Err(RulesError::Extended("nine+quiet-5000".into()))
    );
    let p = Position::start(made[41]);
    assert_eq!(p.rules().quiet_limit, 42);
    assert_eq!(p.to_string().parse::<Position>(), Ok(p));
}
