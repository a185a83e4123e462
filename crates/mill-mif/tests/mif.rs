//! The Mill Interchange Format 1.0 beyond MFEN, checked against the specification's own
//! freeze examples (Annex C: the example manifest D1, its digests, the decision and
//! repetition identities, the MPK binding) and against this crate's rules.

use mill_core::{Position, Rules, Variant};
use mill_mif::identity::{Negotiation, RepetitionSummary, decision_state, observation};
use mill_mif::json::{canonical, digest};
use mill_mif::legal::{canonical_mfen, legal_actions};
use mill_mif::mpk::{Key, canonicalize, of_position};
use mill_mif::mrs::Manifest;
use serde_json::{Value, json};

/// Annex C.2's fixture document D1 ("Example Morris": Black places first, no
/// no-progress limit, repetition by claim).
fn d1() -> Value {
    json!({
        "boardFull": {"action": "disabled"},
        "captures": {
            "custodian": {"enabled": false, "lines": {"cross": false, "diagonal": false, "squareEdges": false}, "maximumOwnLivePieces": null, "phases": ["moving"]},
            "intervention": {"enabled": false, "lines": {"cross": false, "diagonal": false, "squareEdges": false}, "maximumOwnLivePieces": null, "phases": ["moving"]},
            "leap": {"enabled": false, "lines": {"cross": false, "diagonal": false, "squareEdges": false}, "maximumOwnLivePieces": null, "phases": ["moving"]},
            "resolution": "target-commits-v1"
        },
        "draw": {
            "claimRights": {"profile": "stable-claim-rights-v1"},
            "noProgress": {"countedPrimaryActions": ["move"], "endgameLimit": 0, "endgamePredicate": "none", "evaluationBoundary": "stable-after-primary-sequence-v1", "mode": "automatic", "normalLimit": 0, "resetEvents": ["board-remove"]},
            "offers": {"expiry": "explicit-only"},
            "repetition": {"count": 3, "mode": "claim", "observation": "stable-primary-decision-v1", "projection": "repetition-observation-v1", "resetEvents": ["board-remove"], "summary": "reset-count-smt-v1"}
        },
        "flying": {"enabled": true, "maximumLive": 3},
        "format": "MRS/1.0",
        "id": "example-morris",
        "mills": {"delayedClearBoundary": "on-enter-moving-v1", "lineReuse": "unlimited", "movingEffect": "remove-opponent-board", "placingEffect": "remove-opponent-board", "removalMultiplicity": "one-per-primary", "reverseReformation": "allowed", "targetProtection": "outside-mill-first"},
        "pieces": {"black": 9, "minimumLive": 3, "white": 9},
        "placing": {"earlyStop": {"boundary": "after-unobligated-place-v1", "emptyPoints": 0}, "movementAllowed": false, "noLegalPrimaryAction": "loss"},
        "semanticState": [],
        "semanticsProfile": "mif-finite-rules-v3",
        "stalemate": {"action": "loss", "boardRemovalTargets": "adjacent-opponent"},
        "status": "fixture",
        "title": "Example Morris",
        "topology": "mill24-orthogonal-v1",
        "turn": {"initial": "b", "placingEndActivePlayer": "retain"},
        "version": 1
    })
}

const D1_SEMANTIC: &str = "sha256:224f7e368e322a4cc8c1225a025fb548d5b41eb096d34b7ae0543182d1aa9393";
const ORIGIN: &str = "MFEN/1.0 mill24-state-v1 ......../......../........ b p p 9,9 - 0 0 -";

fn patched(pointer: &str, value: Value) -> Value {
    let mut d = d1();
    *d.pointer_mut(pointer).unwrap() = value;
    d
}

#[test]
fn manifest_digests_are_the_specifications() {
    let m = Manifest::from_value(d1()).unwrap();
    assert_eq!(m.semantic_digest, D1_SEMANTIC);
    assert_eq!(
        m.document_digest,
        "sha256:62479b6f40efb8ab478bab3d2b725647213604fcd3cc9cd4c1f69357535ae257"
    );
    assert!(canonical(&m.semantic_projection()).starts_with(
        "{\"boardFull\":{\"action\":\"disabled\"},\"captures\":{\"custodian\":{\"enabled\":false},"
    ));
    // D2: retitled; the same semantics, another document.
    let d2 = Manifest::from_value(patched("/title", json!("Example Morris (retitled)"))).unwrap();
    assert_eq!(d2.semantic_digest, D1_SEMANTIC);
    assert_eq!(
        d2.document_digest,
        "sha256:60b8f91214e2273a0f7eb411794ce3b133c61653b2199763ab555d90f042e6e4"
    );
    // A gameplay change changes both.
    let draw = Manifest::from_value(patched("/placing/noLegalPrimaryAction", json!("draw"))).unwrap();
    assert_ne!(draw.semantic_digest, D1_SEMANTIC);
    assert_ne!(draw.document_digest, m.document_digest);
    // The text reads the same.
    assert_eq!(Manifest::parse(&m.canonical()).unwrap(), m);
}

#[test]
fn bad_manifests_are_refused_with_their_codes() {
    let code = |doc: Value| Manifest::from_value(doc).unwrap_err();
    let e = code(patched(
        "/placing/noLegalPrimaryAction",
        json!("apply-board-full"),
    ));
    assert_eq!(
        (e.category, e.code.as_str()),
        ("inconsistent", "no-legal-primary-action-policy-invalid")
    );
    let mut unknown = d1();
    unknown["extensions"] = json!([{"profile": "x-reward", "value": 1}]);
    assert_eq!(code(unknown).code, "unsupported-profile");
    let mut extra = d1();
    extra["speed"] = json!(1);
    let e = code(extra);
    assert_eq!(
        (e.code.as_str(), e.instance_path.as_deref()),
        ("schema", Some("/speed"))
    );
    let e = code(patched(
        "/draw/repetition/resetEvents",
        json!(["place", "board-remove"]),
    ));
    assert_eq!(e.code, "set-order");
    let e = code(patched("/mills/lineReuse", json!("once-per-player")));
    assert_eq!(e.code, "required-semantic-state-missing");
    let e = code(patched("/semanticsProfile", json!("mif-finite-rules-v2")));
    assert_eq!(e.code, "unsupported-profile");
    assert_eq!(
        Manifest::parse("{\"format\":\"MRS/1.0\",\"format\":\"MRS/1.0\"}")
            .unwrap_err()
            .code,
        "duplicate-member-after-unescape"
    );
}

#[test]
fn manifests_map_to_the_rules_that_play_them_and_back() {
    for name in [
        "nine",
        "nine+dark-first",
        "nine+per-mill+protect-off+fly-0",
        "twelve",
        "twelve+fly-3+dark-first",
        // The extended options: every one a manifest can say.
        "nine+pieces-12",
        "nine+pieces-13+full-light-loses",
        "nine+pieces-13+no-placement-draw",
        "twelve+pieces-9",
        "twelve+pieces-13+full-off",
        "nine+quiet-0+repetition-claim",
        "nine+quiet-40+quiet-claim",
        "nine+placing-moves",
        "nine+placing-moves+repetition-moving+repetition-claim",
        "twelve+per-mill+protect-off+fly-0+dark-first+pieces-15+quiet-1000+quiet-claim+repetition-claim+full-light-loses",
    ] {
        let rules = Rules::parse(name).unwrap();
        let m = Manifest::of_rules(rules).unwrap();
        assert_eq!(m.rules(), Ok(rules), "{name}");
        assert_eq!(m.action_rules(), Ok(rules), "{name}");
        assert!(m.id.len() <= 63, "{name}: {}", m.id);
    }
    assert_eq!(
        Manifest::of_rules(Variant::Nine.rules()).unwrap().id,
        "x-mill-nine"
    );
    assert_eq!(
        Manifest::of_rules(Rules::parse("nine+pieces-12+repetition-claim").unwrap())
            .unwrap()
            .id,
        "x-mill-nine.pieces-12.repetition-claim"
    );
    let e = Manifest::of_rules(Variant::Six.rules()).unwrap_err();
    assert_eq!(e.code, "unrepresentable-under-profile");

    // D1 is Nine with Black first, no move limit and repetition by claim.
    let m = Manifest::from_value(d1()).unwrap();
    let d1_rules = Rules::parse("nine+dark-first+quiet-0+repetition-claim").unwrap();
    assert_eq!(m.rules(), Ok(d1_rules));
    assert_eq!(m.action_rules(), Ok(d1_rules));
    // Thirteen pieces on its board, and what its full board and liveness policy say.
    let mut thirteen = patched("/pieces", json!({"black": 13, "minimumLive": 3, "white": 13}));
    thirteen["placing"]["noLegalPrimaryAction"] = json!("draw");
    let rules = Manifest::from_value(thirteen.clone()).unwrap().rules().unwrap();
    assert_eq!(
        rules.to_string(),
        "nine+dark-first+pieces-13+quiet-0+repetition-claim+no-placement-draw"
    );
    thirteen["boardFull"]["action"] = json!("white-loses");
    let rules = Manifest::from_value(thirteen).unwrap().rules().unwrap();
    assert_eq!(
        rules.to_string(),
        "nine+dark-first+pieces-13+quiet-0+repetition-claim+full-light-loses"
    );
    // With pieces that cannot fill the board, its full-board rule changes nothing.
    let removing = patched("/boardFull/action", json!("white-then-black-remove"));
    assert_eq!(Manifest::from_value(removing).unwrap().rules(), Ok(d1_rules));
    // Mechanisms this crate lacks are refused, each at its member.
    for (pointer, value) in [
        ("/pieces", json!({"black": 12, "minimumLive": 3, "white": 13})),
        ("/pieces", json!({"black": 16, "minimumLive": 3, "white": 16})),
        ("/stalemate/action", json!("draw")),
        ("/turn/placingEndActivePlayer", json!("w")),
        ("/mills/placingEffect", json!("remove-opponent-hand-change")),
    ] {
        let m = Manifest::from_value(patched(pointer, value)).unwrap();
        let e = m.action_rules().unwrap_err();
        assert_eq!(e.code, "unsupported-ruleset", "{pointer}");
        let at = e.instance_path.as_deref().unwrap_or("");
        assert!(at.starts_with(pointer), "{pointer}: {at}");
    }
    // Twelve pieces fill the orthogonal board: removals then are not played here.
    let mut twelve = patched("/pieces", json!({"black": 12, "minimumLive": 3, "white": 12}));
    twelve["boardFull"]["action"] = json!("white-then-black-remove");
    let e = Manifest::from_value(twelve).unwrap().action_rules().unwrap_err();
    assert_eq!(e.instance_path.as_deref(), Some("/boardFull/action"));
    // Draws this crate lacks: refused for a game, indifferent to a position's actions.
    for (pointer, value) in [
        ("/draw/noProgress/endgameLimit", json!(10)),
        ("/draw/repetition/count", json!(2)),
    ] {
        let mut d = d1();
        d["draw"]["noProgress"]["endgamePredicate"] = json!("either-player-live-equals-3");
        *d.pointer_mut(pointer).unwrap() = value;
        let m = Manifest::from_value(d).unwrap();
        let e = m.rules().unwrap_err();
        assert_eq!(e.code, "unsupported-ruleset", "{pointer}");
        assert_eq!(e.instance_path.as_deref(), Some(pointer));
        assert!(m.action_rules().is_ok(), "{pointer}");
    }
    let mut counted = patched("/draw/noProgress/normalLimit", json!(50));
    counted["draw"]["noProgress"]["countedPrimaryActions"] = json!(["move", "place"]);
    let e = Manifest::from_value(counted).unwrap().rules().unwrap_err();
    assert_eq!(
        e.instance_path.as_deref(),
        Some("/draw/noProgress/countedPrimaryActions")
    );
}

#[test]
fn decision_and_repetition_identities_are_the_specifications() {
    let m = Manifest::from_value(d1()).unwrap();
    let obs = observation(&m, ORIGIN).unwrap();
    let obs_digest = digest(&obs);
    assert_eq!(
        obs_digest,
        "sha256:6adc3718c5b16999b2a75b444728656e9901b003b8ff641813d73b2cdcba1e4e"
    );
    let mut summary = RepetitionSummary::new(3);
    assert_eq!(
        summary.root(),
        "sha256:e9fbf966ccdff764594a5e199e6aea0cc36034b46c8057cc3df88a088c20101a"
    );
    summary.observe(&obs_digest).unwrap();
    assert_eq!(
        summary.root(),
        "sha256:3a08cdfcc2a0be8a7fd9277649ff0a2e2b30cb20b98d808f825594c9a31aa885"
    );
    // After Black opens a draw offer.
    let offer = Negotiation {
        open_offer_by: Some('b'),
        claim_rights: None,
    };
    let (state, id) = decision_state(&m, ORIGIN, Some(&summary), &offer).unwrap();
    assert_eq!(
        canonical(&state),
        format!(
            "{{\"action\":\"p\",\"board\":\"......../......../........\",\"claimRights\":null,\"hands\":[9,9],\"noProgress\":null,\"obligations\":\"-\",\"openOffer\":{{\"available\":[{{\"action\":\"accept\",\"actor\":\"w\"}},{{\"action\":\"decline\",\"actor\":\"w\"}},{{\"action\":\"withdraw\",\"actor\":\"b\"}}],\"offerer\":\"b\"}},\"outcome\":\"-\",\"phase\":\"p\",\"profile\":\"decision-state-v1\",\"repetitionSummary\":{{\"profile\":\"reset-count-smt-v1\",\"root\":\"sha256:3a08cdfcc2a0be8a7fd9277649ff0a2e2b30cb20b98d808f825594c9a31aa885\"}},\"semantic\":{{}},\"semanticDigest\":\"{D1_SEMANTIC}\",\"side\":\"b\",\"stateProfile\":\"mill24-state-v1\"}}"
        )
    );
    assert_eq!(
        id,
        "sha256:f25cfb5dae617feba90fc1cbd48fb5d526727c8a3fad65910400a72a03657d19"
    );
    // Counts are capped at the threshold: a fourth occurrence changes nothing.
    for _ in 0..2 {
        summary.observe(&obs_digest).unwrap();
    }
    let three = summary.root();
    summary.observe(&obs_digest).unwrap();
    assert_eq!(summary.root(), three);
    summary.reset();
    assert_eq!(RepetitionSummary::new(3).root(), summary.root());
    // A claim right, or another side, is another decision.
    let claim = Negotiation {
        open_offer_by: None,
        claim_rights: Some(('b', vec!["repetition"])),
    };
    assert_ne!(decision_state(&m, ORIGIN, Some(&summary), &claim).unwrap().1, id);
    // A position mid-removal is not observed.
    let pending = "MFEN/1.0 mill24-state-v1 BBB...../......../W....... b p r 8,6 b:mill:b:w:1:010000:w 0 4 -";
    assert_eq!(
        observation(&m, pending).unwrap_err().code,
        "unstabilized-boundary"
    );
}

fn mpk(digest_field: &str, board: &str, rest: &str) -> String {
    format!("MPK/1.0 mill24-state-v1 example-morris@1 {digest_field} structural-d4-v1 {board} {rest}")
}

#[test]
fn mpk_keys_bind_their_manifest_and_take_the_least_orientation() {
    let m = Manifest::from_value(d1()).unwrap();
    let empty = mpk(D1_SEMANTIC, &".".repeat(24), "b p 9,9");
    assert_eq!(canonicalize(&empty, Some(&m)).unwrap(), empty);
    // A piece on any corner keys as the piece on a1, the least orientation.
    let least = mpk(D1_SEMANTIC, "......W.................", "w p 8,9");
    for board in [
        "W.......................",
        "..W.....................",
        "....W...................",
        "......W.................",
    ] {
        assert_eq!(
            canonicalize(&mpk(D1_SEMANTIC, board, "w p 8,9"), Some(&m)).unwrap(),
            least
        );
    }
    let code = |text: &str, manifest: Option<&Manifest>| canonicalize(text, manifest).unwrap_err().code;
    assert_eq!(
        code(
            &mpk(&format!("sha256:{}", "0".repeat(64)), &".".repeat(24), "b p 9,9"),
            Some(&m)
        ),
        "semantic-digest-mismatch"
    );
    assert_eq!(
        code(&mpk("", &".".repeat(24), "b p 9,9").replace("  ", " "), Some(&m)),
        "mpk-semantic-digest-missing"
    );
    assert_eq!(
        code(
            &mpk(
                &D1_SEMANTIC.to_uppercase().replace("SHA256", "sha256"),
                &".".repeat(24),
                "b p 9,9"
            ),
            Some(&m)
        ),
        "non-canonical-digest"
    );
    assert_eq!(code(&empty, None), "manifest-missing");
    assert_eq!(
        code(&empty.replace("example-morris@1", "other-morris@1"), Some(&m)),
        "manifest-conflict"
    );
    assert_eq!(
        code(
            &empty.replace("structural-d4-v1", "structural-aut16-v1"),
            Some(&m)
        ),
        "transform-invariance-undeclared"
    );
    assert_eq!(
        code(&format!("{empty} lm=-,-;-,-"), Some(&m)),
        "unsupported-extension"
    );
    assert_eq!(
        code(&mpk(D1_SEMANTIC, &".".repeat(24), "b m 9,9"), Some(&m)),
        "inconsistent"
    );
    assert_eq!(
        code(&mpk(D1_SEMANTIC, &"W".repeat(24), "b m 0,0"), Some(&m)),
        "inconsistent"
    );
    let key = Key::parse(&empty).unwrap();
    assert_eq!(key.hands, (9, 9));

    // The key of a position of this crate's game, under its own manifest.
    let ours = Manifest::of_rules(Variant::Nine.rules()).unwrap();
    let p: Position = ".../.../.../....../.../.../L.. d 8 9 0 0".parse().unwrap();
    let key = of_position(&p, &ours).unwrap();
    assert!(key.ends_with(" ......W................. b p 8,9"), "{key}");
    let mid: Position = "LLL/.../.../....../.../.../DDD l 0 0 1 0".parse().unwrap();
    assert_eq!(of_position(&mid, &ours).unwrap_err().code, "mpk-ineligible");
}

#[test]
fn legal_actions_list_placements_moves_and_owed_removals_in_order() {
    let m = Manifest::from_value(d1()).unwrap();
    let doc = legal_actions(&m, ORIGIN).unwrap();
    let actions = doc["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 24);
    assert_eq!(actions[0], json!({"actor": "b", "type": "place", "at": "a7"}));
    assert_eq!(actions[23], json!({"actor": "b", "type": "place", "at": "c4"}));
    assert_eq!(doc["semanticDigest"], json!(D1_SEMANTIC));
    assert_eq!(doc["current"], json!(ORIGIN));
    // Both sides fly with three: every piece to every empty point, by source then target.
    let flying = "MFEN/1.0 mill24-state-v1 WWW...../BBB...../........ w m m 0,0 - 0 18 -";
    let doc = legal_actions(&m, flying).unwrap();
    let actions = doc["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 3 * 18);
    assert_eq!(
        actions[0],
        json!({"actor": "w", "type": "move", "from": "a7", "to": "g4"})
    );
    assert_eq!(
        actions[53],
        json!({"actor": "w", "type": "move", "from": "g7", "to": "c4"})
    );
    // A removal owed: the removable pieces, by point.
    let ours = Manifest::of_rules(Variant::Nine.rules()).unwrap();
    let owed = "MFEN/1.0 mill24-state-v1 B.....WW/......../........ w m r 0,0 w:mill:b:b:1:000001:b 0 18 -";
    let e = legal_actions(&ours, owed).unwrap_err();
    assert_eq!(e.category, "inconsistent", "{e}");
    let owed = Position::from_str_variant("LLL/.../.../....../.../.../DDD l 0 0 1 0", Variant::Nine).unwrap();
    let text = owed.to_mfen().unwrap();
    let doc = legal_actions(&ours, &text).unwrap();
    let targets: Vec<&str> = doc["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["target"]["at"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["g1", "d1", "a1"]);
    assert_eq!(canonical_mfen(ORIGIN, None).unwrap_err().code, "manifest-missing");
    // White to move, blocked, without flying: the game is over, not a boundary to list.
    let never_flies = Manifest::of_rules(Rules::parse("nine+fly-0").unwrap()).unwrap();
    let blocked = "MFEN/1.0 mill24-state-v1 WB.BWBWB/......../........ w m m 0,0 - 0 20 -";
    let e = legal_actions(&never_flies, blocked).unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("inconsistent", "unstabilized-boundary"),
        "{e}"
    );
    assert_eq!(
        canonical_mfen(blocked, Some(&never_flies)).unwrap_err().code,
        "automatic-terminal-ongoing"
    );
}

#[test]
fn hands_are_authoritative_not_derived_from_the_placements() {
    // MIF 6.3: White has placed three, Black one, and White removes: a position.
    let ours = Manifest::of_rules(Variant::Nine.rules()).unwrap();
    let owed = "MFEN/1.0 mill24-state-v1 WWW...../......../B....... w p r 6,8 w:mill:b:b:1:010000:b 0 4 -";
    let doc = legal_actions(&ours, owed).unwrap();
    assert_eq!(
        doc["actions"],
        json!([{"actor": "w", "type": "remove", "target": {"zone": "board", "at": "c5"}}])
    );
    assert_eq!(canonical_mfen(owed, Some(&ours)).unwrap().1, owed);
    // A finished record says whose turn it was by its result where the count cannot:
    // thirteen a side fill the board, and the side left unable to place lost.
    let thirteen = Manifest::of_rules(Rules::parse("nine+pieces-13").unwrap()).unwrap();
    let full = "WBWBWBWB/BWBWBWBW/WBWBWBWB";
    for (winner, stuck) in [("b", mill_core::Color::Light), ("w", mill_core::Color::Dark)] {
        let text =
            format!("MFEN/1.0 mill24-state-v1 {full} - o o 1,1 - 0 0 {winner}:no-legal-primary-action");
        let (read, written) = canonical_mfen(&text, Some(&thirteen)).unwrap();
        assert_eq!(read.position.turn(), stuck, "{text}");
        assert_eq!(written, text);
    }
}

mod mstate {
    use super::*;
    use mill_core::{Game, Outcome};
    use mill_mif::mstate::{read, write};

    fn random_game(seed: u64, rules: &'static Rules) -> Game {
        let mut game = Game::from_position(Position::start(rules));
        let mut s = seed;
        while !game.is_over() && game.actions().len() < 400 {
            let turns = game.legal_turns();
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            game.play(turns[(s % turns.len() as u64) as usize]).unwrap();
        }
        game
    }

    #[test]
    fn games_round_trip_through_mstate() {
        for (seed, rules) in [
            (1, "nine"),
            (2, "nine+dark-first"),
            (3, "twelve+per-mill"),
            (4, "nine+protect-off+fly-0"),
        ] {
            let rules = Rules::parse(rules).unwrap();
            let game = random_game(0x9e37_79b9_7f4a_7c15 ^ seed, rules);
            let doc = write(&game, 0).unwrap();
            let text = canonical(&doc);
            let (back, ply) = read(&text, None).unwrap();
            assert_eq!(ply, 0);
            assert_eq!(back.actions(), game.actions(), "{rules}");
            assert_eq!(back.outcome(), game.outcome());
            assert_eq!(doc["ruleset"]["mode"], json!("portable"));
            assert_eq!(
                doc["current"],
                json!(mill_core::Mfen::from_game(&game).write().unwrap())
            );
        }
    }

    #[test]
    fn a_threefold_repetition_is_in_the_window_and_ends_the_game() {
        // Moving back and forth from a moving position: the third occurrence draws.
        let start = Position::from_str_variant(".L./.../..D/D...../L../..D/..L l 0 0 0 0", Variant::Nine);
        let mut game = Game::from_position(start.unwrap());
        for t in [
            "d7-d6", "a4-b4", "d6-d7", "b4-a4", "d7-d6", "a4-b4", "d6-d7", "b4-a4",
        ] {
            let turn = t
                .parse::<mill_core::Notation>()
                .unwrap()
                .to_turn(game.position().topology())
                .unwrap();
            game.play(turn).unwrap();
        }
        assert!(
            matches!(game.outcome(), Some(Outcome::Draw { .. })),
            "{:?}",
            game.outcome()
        );
        let doc = write(&game, 30).unwrap();
        let window = doc["repetitionHistory"].as_array().unwrap();
        assert_eq!(window.len(), 9, "the origin and every boundary since");
        assert_eq!(window[0]["source"], json!("origin"));
        assert_eq!(window[0]["key"], window[8]["key"]);
        assert_eq!(window[8]["eventSeq"], json!(8));
        assert!(
            doc["current"].as_str().unwrap().ends_with(" 8 38 d:repetition"),
            "{}",
            doc["current"]
        );
        assert!(read(&canonical(&doc), None).is_ok());
    }

    #[test]
    fn resignation_and_agreement_are_events() {
        let mut game = Game::new(Variant::Nine);
        game.play(mill_core::Turn::place(
            game.position().topology().point("a1").unwrap(),
        ))
        .unwrap();
        let mut resigned = game.clone();
        resigned.resign(mill_core::Color::Dark).unwrap();
        let doc = write(&resigned, 0).unwrap();
        assert_eq!(
            doc["events"][1],
            json!({"seq": 2, "actor": "b", "type": "resign"})
        );
        assert_eq!(
            read(&canonical(&doc), None).unwrap().0.outcome(),
            resigned.outcome()
        );
        let mut agreed = game;
        agreed.agree_draw().unwrap();
        let doc = write(&agreed, 0).unwrap();
        assert_eq!(
            doc["events"][2],
            json!({"seq": 3, "actor": "w", "type": "accept-draw", "offerEventSeq": 2})
        );
        assert_eq!(
            doc["claims"],
            json!([{"source": "event", "actor": "b", "eventSeq": 2, "kind": "draw-offer", "status": "accepted", "resolvedEventSeq": 3}])
        );
        assert_eq!(
            read(&canonical(&doc), None).unwrap().0.outcome(),
            agreed.outcome()
        );
    }

    #[test]
    fn checkpoints_are_verified_never_repaired() {
        let game = random_game(7, Variant::Nine.rules());
        let doc = write(&game, 0).unwrap();
        let code = |patch: &dyn Fn(&mut Value), manifest: Option<&Manifest>| {
            let mut d = doc.clone();
            patch(&mut d);
            read(&canonical(&d), manifest).unwrap_err().code
        };
        assert_eq!(
            code(
                &|d| d["current"] = json!(ORIGIN.replace(" b p p", " w p p")),
                None
            ),
            "checkpoint-mismatch"
        );
        assert_eq!(
            code(
                &|d| d["repetitionHistory"] = json!([{"source": "origin", "key": {}}]),
                None
            ),
            "repetition-history-mismatch"
        );
        assert_eq!(
            code(&|d| d["claims"] = json!([{"x": 1}]), None),
            "claims-mismatch"
        );
        assert_eq!(
            code(&|d| d["ruleset"]["semanticDigest"] = json!(D1_SEMANTIC), None),
            "semantic-digest-mismatch"
        );
        let reference = |d: &mut Value| {
            let r = d["ruleset"].as_object_mut().unwrap();
            r.remove("manifest");
            r.insert("mode".into(), json!("reference"));
        };
        assert_eq!(code(&reference, None), "manifest-missing");
        let ours = Manifest::of_rules(Variant::Nine.rules()).unwrap();
        let mut d = doc.clone();
        reference(&mut d);
        assert!(read(&canonical(&d), Some(&ours)).is_ok());
        // A manifest whose blocked side does not lose is not played here.
        let moving = Manifest::from_value(patched("/stalemate/action", json!("draw"))).unwrap();
        assert_eq!(
            code(
                &|d| {
                    d["ruleset"] = json!({"mode": "reference", "id": "example-morris", "version": 1, "semanticDigest": moving.semantic_digest})
                },
                Some(&moving)
            ),
            "unsupported-ruleset"
        );
        // An event out of turn.
        assert_eq!(
            code(&|d| d["events"][0]["actor"] = json!("b"), None),
            "actor-not-to-move"
        );
        assert_eq!(
            code(
                &|d| d["events"][0] = json!({"seq": 1, "actor": "w", "type": "remove", "target": {"zone": "board", "at": "a1"}}),
                None
            ),
            "remove-without-obligation"
        );
    }
}

/// Whole games under rules with the extended options (MIF's example manifest: Black
/// first, no move limit, repetition by claim), with what MIF's replay keeps beside the
/// board: pre-origin seeds, claim rights, claims, the fate of offers.
mod claims {
    use super::*;
    use mill_core::{DrawReason, Game, Outcome};
    use mill_mif::mstate::{replay, run, write};

    fn d1m() -> Manifest {
        Manifest::from_value(d1()).unwrap()
    }

    /// Two pre-origin observations of the origin: with the origin's own, a third.
    fn seeds(m: &Manifest) -> Vec<Value> {
        let key = observation(m, ORIGIN).unwrap();
        vec![json!({"source": "pre-origin", "key": key}); 2]
    }

    #[test]
    fn a_claim_right_stands_through_negotiation_and_lapses_with_a_placement() {
        // Annex C.8: offer and decline leave the right; a placement expires it.
        let m = d1m();
        let events = [
            json!({"seq": 1, "actor": "b", "type": "offer-draw"}),
            json!({"seq": 2, "actor": "w", "type": "decline-draw", "offerEventSeq": 1}),
            json!({"seq": 3, "actor": "b", "type": "place", "at": "a7"}),
        ];
        let r = run(&m, ORIGIN, &events, &seeds(&m), &[]).unwrap();
        let right = json!({"actor": "b", "reasons": ["repetition"]});
        let rights: Vec<&Value> = r.trace.iter().map(|s| &s["claimRights"]).collect();
        assert_eq!(rights, [&right, &right, &right, &Value::Null]);
        assert_eq!(r.trace[0]["decisionState"]["claimRights"], right);
        assert_eq!(r.trace[3]["decisionState"]["claimRights"], Value::Null);
        // The window: both seeds and the origin, then the placement's boundary (a
        // placement resets nothing under this manifest).
        let window = r.trace[3]["repetitionHistory"].as_array().unwrap();
        let sources: Vec<&str> = window.iter().map(|e| e["source"].as_str().unwrap()).collect();
        assert_eq!(sources, ["pre-origin", "pre-origin", "origin", "event"]);
        assert_eq!(window[3]["eventSeq"], json!(3));
        assert_eq!(
            r.claims,
            [
                json!({"source": "event", "actor": "b", "eventSeq": 1, "kind": "draw-offer", "status": "declined", "resolvedEventSeq": 2})
            ]
        );
        assert_eq!(r.game.outcome(), None, "the game goes on until a claim");
        // Without the seeds the origin stands once: nothing to claim.
        let r = run(&m, ORIGIN, &events, &[], &[]).unwrap();
        assert!(r.trace.iter().all(|s| s["claimRights"].is_null()));
    }

    #[test]
    fn a_claim_ends_the_game_and_the_open_offer_with_it() {
        let m = d1m();
        let events = [
            json!({"seq": 1, "actor": "b", "type": "offer-draw"}),
            json!({"seq": 2, "actor": "b", "type": "claim-draw", "reason": "repetition"}),
        ];
        let r = run(&m, ORIGIN, &events, &seeds(&m), &[]).unwrap();
        assert_eq!(
            r.current().unwrap(),
            "MFEN/1.0 mill24-state-v1 ......../......../........ - o o 9,9 - 0 0 d:repetition"
        );
        assert_eq!(
            r.claims,
            [
                json!({"source": "event", "actor": "b", "eventSeq": 1, "kind": "draw-offer", "status": "expired", "resolvedEventSeq": 2}),
                json!({"source": "event", "actor": "b", "eventSeq": 2, "kind": "draw-claim", "status": "accepted"}),
            ]
        );
        assert!(r.trace[2]["claimRights"].is_null());
        assert!(r.trace[2]["decisionState"]["openOffer"].is_null());
        let more = [
            events[0].clone(),
            events[1].clone(),
            json!({"seq": 3, "actor": "w", "type": "resign"}),
        ];
        let e = run(&m, ORIGIN, &more, &seeds(&m), &[]).unwrap_err();
        assert_eq!(e.code, "event-after-terminal");
        // A game ended so is written with its claim, and read back.
        let rules = Rules::parse("nine+repetition-claim").unwrap();
        let start = Position::from_str_variant("L.L/.D./.../LL.DDD/.../.D./L.. l 0 0 0 0", rules).unwrap();
        let mut game = Game::from_position(start);
        for t in ["g7-d7", "d6-b6", "d7-g7", "b6-d6"].iter().cycle().take(8) {
            let t = t
                .parse::<mill_core::Notation>()
                .unwrap()
                .to_turn(game.position().topology())
                .unwrap();
            game.play(t).unwrap();
        }
        assert_eq!(game.claimable(), [DrawReason::Threefold]);
        game.claim_draw(DrawReason::Threefold).unwrap();
        let doc = write(&game, 40).unwrap();
        assert_eq!(
            doc["events"][8],
            json!({"seq": 9, "actor": "w", "type": "claim-draw", "reason": "repetition"})
        );
        let r = replay(&doc, None).unwrap();
        assert_eq!(r.game.outcome(), game.outcome());
        let (back, _) = mill_mif::mstate::read(&canonical(&doc), None).unwrap();
        assert_eq!(back.outcome(), game.outcome());
    }

    #[test]
    fn claims_need_a_right_and_a_boundary() {
        let m = d1m();
        let claim = |actor: &str, seq: u64| json!({"seq": seq, "actor": actor, "type": "claim-draw", "reason": "repetition"});
        // No third occurrence: no right.
        let e = run(&m, ORIGIN, &[claim("b", 1)], &[], &[]).unwrap_err();
        assert_eq!(
            (e.category, e.code.as_str()),
            ("replay", "claim-right-unavailable")
        );
        // The right is the side to move's.
        let e = run(&m, ORIGIN, &[claim("w", 1)], &seeds(&m), &[]).unwrap_err();
        assert_eq!(e.code, "claim-right-unavailable");
        let e = run(
            &m,
            ORIGIN,
            &[json!({"seq": 1, "actor": "b", "type": "claim-draw", "reason": "no-progress"})],
            &seeds(&m),
            &[],
        )
        .unwrap_err();
        assert_eq!(e.code, "claim-right-unavailable");
        // Black closes a mill: while its removal is owed nothing is claimed.
        let origin = "MFEN/1.0 mill24-state-v1 BB....../......../WW...... b p p 7,7 - 0 4 -";
        let events = [
            json!({"seq": 1, "actor": "b", "type": "place", "at": "g7"}),
            claim("b", 2),
        ];
        let e = run(&m, origin, &events, &[], &[]).unwrap_err();
        assert_eq!(e.code, "claim-during-obligation");
    }

    #[test]
    fn a_game_that_ends_takes_the_open_offer_with_it() {
        // Under our usual rules: Light offers, then closes a mill and takes Dark's third
        // piece but one.
        let ours = Manifest::of_rules(Variant::Nine.rules()).unwrap();
        let start =
            Position::from_str_variant("LL./D../.../....DL/.../.D./L.. l 0 0 0 0", Variant::Nine).unwrap();
        let origin = start.to_mfen().unwrap();
        let events = [
            json!({"seq": 1, "actor": "w", "type": "offer-draw"}),
            json!({"seq": 2, "actor": "w", "type": "move", "from": "g4", "to": "g7"}),
            json!({"seq": 3, "actor": "w", "type": "remove", "target": {"zone": "board", "at": "b6"}}),
        ];
        let r = run(&ours, &origin, &events, &[], &[]).unwrap();
        assert!(
            r.current().unwrap().ends_with(" w:fewer-than-minimum"),
            "{}",
            r.current().unwrap()
        );
        assert_eq!(
            r.claims,
            [
                json!({"source": "event", "actor": "w", "eventSeq": 1, "kind": "draw-offer", "status": "expired", "resolvedEventSeq": 3})
            ]
        );
        assert_eq!(
            r.trace[2]["claims"][0]["status"],
            json!("open"),
            "still open mid-turn"
        );
    }

    #[test]
    fn pre_origin_offers_seed_the_audit_and_are_answered_as_offer_zero() {
        let m = d1m();
        let seed = [json!({"actor": "w", "kind": "draw-offer", "status": "open"})];
        let r = run(&m, ORIGIN, &[], &[], &seed).unwrap();
        assert_eq!(
            r.claims,
            [json!({"source": "pre-origin", "actor": "w", "kind": "draw-offer", "status": "open"})]
        );
        let (resumption, _) = r.resumption_state().unwrap();
        assert_eq!(
            resumption["openOffer"],
            json!({"source": "pre-origin", "actor": "w", "offerEventSeq": 0})
        );
        let accept = [json!({"seq": 1, "actor": "b", "type": "accept-draw", "offerEventSeq": 0})];
        let r = run(&m, ORIGIN, &accept, &[], &seed).unwrap();
        assert_eq!(
            r.game.outcome(),
            Some(Outcome::Draw {
                reason: DrawReason::Agreement
            })
        );
        assert_eq!(
            r.claims,
            [
                json!({"source": "pre-origin", "actor": "w", "kind": "draw-offer", "status": "accepted", "resolvedEventSeq": 1})
            ]
        );
        let two = [seed[0].clone(), seed[0].clone()];
        assert_eq!(run(&m, ORIGIN, &[], &[], &two).unwrap_err().code, "offer-invalid");
        let bad = [json!({"actor": "w", "kind": "draw-claim", "status": "open"})];
        assert_eq!(run(&m, ORIGIN, &[], &[], &bad).unwrap_err().code, "schema");
        // A seed observation of other rules.
        let mut other = seeds(&m);
        other[0]["key"]["semanticDigest"] = json!(format!("sha256:{}", "0".repeat(64)));
        assert_eq!(
            run(&m, ORIGIN, &[], &other, &[]).unwrap_err().code,
            "semantic-digest-mismatch"
        );
    }

    #[test]
    fn histories_r1_and_r2_have_the_specifications_identities() {
        // Annex C.3: R1 and R2, read as reference MSTATE documents under D1.
        let m = d1m();
        let key = observation(&m, ORIGIN).unwrap();
        let doc = |events: Value, claims: Value| {
            json!({
                "format": "MSTATE/1.0", "positionFormat": "MFEN/1.0", "stateProfile": "mill24-state-v1",
                "ruleset": {"mode": "reference", "id": "example-morris", "version": 1, "semanticDigest": D1_SEMANTIC,
                            "documentDigest": m.document_digest},
                "origin": ORIGIN, "events": events, "current": ORIGIN,
                "repetitionHistory": [{"source": "origin", "key": key}],
                "preOriginClaims": [], "claims": claims
            })
        };
        let r1 = doc(
            json!([{"actor": "b", "seq": 1, "type": "offer-draw"}]),
            json!([{"actor": "b", "eventSeq": 1, "kind": "draw-offer", "source": "event", "status": "open"}]),
        );
        let r2 = doc(
            json!([
                {"actor": "b", "seq": 1, "type": "offer-draw"},
                {"actor": "b", "offerEventSeq": 1, "seq": 2, "type": "withdraw-draw"},
                {"actor": "b", "seq": 3, "type": "offer-draw"}
            ]),
            json!([
                {"actor": "b", "eventSeq": 1, "kind": "draw-offer", "resolvedEventSeq": 2, "source": "event", "status": "withdrawn"},
                {"actor": "b", "eventSeq": 3, "kind": "draw-offer", "source": "event", "status": "open"}
            ]),
        );
        let decision = "sha256:f25cfb5dae617feba90fc1cbd48fb5d526727c8a3fad65910400a72a03657d19";
        for (document, prefix, resumption) in [
            (
                r1,
                "sha256:0c3c604aa2b0f9e3407ddaca90e411755f5689066e68faf9f0e709a58857c151",
                "sha256:1abb022db99a0959d00c90ca5ba6a946b99d183c8a811e01f242ef081bf5d5b3",
            ),
            (
                r2,
                "sha256:d8a8d2e595c1d37ed7f69bd9dee19039d52a346fbf7a1a28076ccf00b14e791a",
                "sha256:2f2188fe6beb34042bcf201644f262d25552a5a6263d2ba0de024aa917a83657",
            ),
        ] {
            let r = replay(&document, Some(&m)).unwrap();
            let (state, id) = r.resumption_state().unwrap();
            assert_eq!(state["replayPrefixDigest"], json!(prefix));
            assert_eq!(id, resumption);
            assert_eq!(r.decision_state().unwrap().1, decision);
        }
    }

    #[test]
    fn a_position_the_rules_end_at_once_is_settled_at_the_origin() {
        // Annex C.6 and C.1: thirteen a side, the board full with a piece left in each
        // hand, Black (the first player) to move.
        let full = "MFEN/1.0 mill24-state-v1 WBWBWBWB/BWBWBWBW/WBWBWBWB b p p 1,1 - 0 0 -";
        let mut thirteen = patched("/pieces", json!({"black": 13, "minimumLive": 3, "white": 13}));
        for (policy, board_full, outcome) in [
            ("loss", "disabled", "w:no-legal-primary-action"),
            ("draw", "disabled", "d:no-legal-primary-action"),
            ("loss", "white-loses", "b:board-full"),
            ("loss", "draw", "d:board-full"),
        ] {
            thirteen["placing"]["noLegalPrimaryAction"] = json!(policy);
            thirteen["boardFull"]["action"] = json!(board_full);
            let m = Manifest::from_value(thirteen.clone()).unwrap();
            let r = run(&m, full, &[], &[], &[]).unwrap();
            let settled =
                format!("MFEN/1.0 mill24-state-v1 WBWBWBWB/BWBWBWBW/WBWBWBWB - o o 1,1 - 0 0 {outcome}");
            assert_eq!(r.current().unwrap(), settled, "{policy} {board_full}");
            assert!(r.history.is_empty(), "a settled origin is not observed");
            // Independent MFEN must already be settled: the projection says so, and
            // lists nothing for the settled record.
            let e = legal_actions(&m, full).unwrap_err();
            assert_eq!(e.code, "unstabilized-boundary");
            let doc = legal_actions(&m, &settled).unwrap();
            assert_eq!(doc["actions"], json!([]));
        }
    }

    #[test]
    fn moves_while_placing_repeat_placing_positions_where_they_are_observed() {
        // Annex C.7, Black to move: the cycle returns to the origin's decision
        // observation. Observing every stable boundary counts it; observing moving
        // boundaries counts nothing, as the phase stays p.
        let origin = "MFEN/1.0 mill24-state-v1 W......./B......./........ b p p 8,8 - 0 2 -";
        let cycle = ["b6-b4", "a7-a4", "b4-b6", "a4-a7"];
        let events: Vec<Value> = cycle
            .iter()
            .cycle()
            .take(8)
            .enumerate()
            .map(|(i, m)| {
                let (from, to) = m.split_once('-').unwrap();
                let actor = if i % 2 == 0 { "b" } else { "w" };
                json!({"seq": i + 1, "actor": actor, "type": "move", "from": from, "to": to})
            })
            .collect();
        let moving = patched("/placing/movementAllowed", json!(true));
        let m = Manifest::from_value(moving.clone()).unwrap();
        assert_eq!(
            m.rules().unwrap().to_string(),
            "nine+dark-first+quiet-0+repetition-claim+placing-moves"
        );
        let r = run(&m, origin, &events, &[], &[]).unwrap();
        assert_eq!(r.history.len(), 9, "the origin and every boundary");
        assert_eq!(r.trace[4]["claimRights"], Value::Null, "twice is not enough");
        assert_eq!(
            r.trace[8]["claimRights"],
            json!({"actor": "b", "reasons": ["repetition"]})
        );
        let mut stable_moving = moving;
        stable_moving["draw"]["repetition"]["observation"] = json!("stable-moving-v1");
        let m = Manifest::from_value(stable_moving).unwrap();
        assert_eq!(
            m.rules().unwrap().to_string(),
            "nine+dark-first+quiet-0+repetition-claim+placing-moves+repetition-moving"
        );
        let r = run(&m, origin, &events, &[], &[]).unwrap();
        assert!(r.history.is_empty());
        assert!(r.trace.iter().all(|s| s["claimRights"].is_null()));
        // Both list the moves beside the placements.
        let doc = legal_actions(&m, origin).unwrap();
        let moves: Vec<&Value> = doc["actions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["type"] == "move")
            .collect();
        assert_eq!(
            moves,
            [
                &json!({"actor": "b", "type": "move", "from": "b6", "to": "d6"}),
                &json!({"actor": "b", "type": "move", "from": "b6", "to": "b4"}),
            ]
        );
    }

    #[test]
    fn an_offer_expires_on_the_opponents_placement_where_the_manifest_says_so() {
        let mut d = d1();
        d["draw"]["offers"]["expiry"] = json!("on-opponent-primary-action");
        let expiring = Manifest::from_value(d).unwrap();
        // Black offers and places: its own placement leaves the offer; White's next
        // placement lets it lapse.
        let events = [
            json!({"seq": 1, "actor": "b", "type": "offer-draw"}),
            json!({"seq": 2, "actor": "b", "type": "place", "at": "a7"}),
            json!({"seq": 3, "actor": "w", "type": "place", "at": "g7"}),
        ];
        let r = run(&expiring, ORIGIN, &events, &[], &[]).unwrap();
        assert_eq!(r.trace[2]["claims"][0]["status"], json!("open"));
        assert_eq!(r.trace[2]["decisionState"]["openOffer"]["offerer"], json!("b"));
        assert_eq!(
            r.claims,
            [
                json!({"source": "event", "actor": "b", "eventSeq": 1, "kind": "draw-offer", "status": "expired", "resolvedEventSeq": 3})
            ]
        );
        assert!(r.trace[3]["decisionState"]["openOffer"].is_null());
        let (resumption, _) = r.resumption_state().unwrap();
        assert!(resumption["openOffer"].is_null());
        // An answer to an expired offer is refused.
        let mut late = events.to_vec();
        late.push(json!({"seq": 4, "actor": "b", "type": "withdraw-draw", "offerEventSeq": 1}));
        assert_eq!(
            run(&expiring, ORIGIN, &late, &[], &[]).unwrap_err().code,
            "offer-invalid"
        );
        // Explicit-only offers stand through the same placements.
        let r = run(&d1m(), ORIGIN, &events, &[], &[]).unwrap();
        assert_eq!(r.claims[0]["status"], json!("open"));
        // An illegal placement lets nothing lapse: it is refused first.
        let mut bad = events.to_vec();
        bad[2] = json!({"seq": 3, "actor": "w", "type": "place", "at": "a7"});
        assert_eq!(
            run(&expiring, ORIGIN, &bad, &[], &[]).unwrap_err().code,
            "illegal-action"
        );
    }

    #[test]
    fn the_manifests_reset_events_empty_the_window() {
        // Observing placing boundaries, with placements resetting: only the latest
        // boundary's observation stays.
        let mut d = d1();
        d["draw"]["repetition"]["resetEvents"] = json!(["board-remove", "place"]);
        let m = Manifest::from_value(d).unwrap();
        let events = [
            json!({"seq": 1, "actor": "b", "type": "place", "at": "a7"}),
            json!({"seq": 2, "actor": "w", "type": "place", "at": "g7"}),
        ];
        let r = run(&m, ORIGIN, &events, &seeds(&m), &[]).unwrap();
        assert_eq!(r.trace[0]["repetitionHistory"].as_array().unwrap().len(), 3);
        let window = r.history.clone();
        assert_eq!(window.len(), 1);
        assert_eq!(window[0]["eventSeq"], json!(2));
        let r = run(&d1m(), ORIGIN, &events, &seeds(&d1m()), &[]).unwrap();
        assert_eq!(r.history.len(), 5);
    }
}

/// MIFCONV/1.0 (MIF 13.3): every conversion made here reported by the rules of its
/// status.
mod conversions {
    use super::*;
    use mill_mif::mifconv::{STATUSES, convert, supported};
    use mill_mif::mifpos;
    use mill_mif::mstate::write;

    /// A source of each format: Nine after four placements.
    fn sources(m: &Manifest) -> Vec<(&'static str, String)> {
        let game = mill_core::Record::parse("1. a1 b2 2. d1 d2").unwrap().game;
        let mfen = mill_core::Mfen::from_game(&game).write().unwrap();
        let key = mill_mif::mpk::of_position(game.position(), m).unwrap();
        vec![
            ("MFEN/1.0", mfen.clone()),
            ("MPK/1.0", key),
            ("MIFPOS/1.0", canonical(&mifpos::write(m, &mfen, true))),
            ("MSTATE/1.0", canonical(&write(&game, 0).unwrap())),
        ]
    }

    #[test]
    fn every_report_keeps_the_rules_of_its_status() {
        let m = Manifest::of_rules(Variant::Nine.rules()).unwrap();
        let sources = sources(&m);
        for (from, to, statuses) in supported() {
            let text = &sources.iter().find(|(f, _)| *f == from).unwrap().1;
            for manifest in [Some(&m), None] {
                let report = match convert(from, to, text, manifest, true) {
                    Ok(report) => report,
                    // A reference-free MFEN or key without its manifest is a report;
                    // anything else refused is a source that does not read.
                    Err(e) => panic!("{from} to {to}: {e}"),
                };
                let status = report["status"].as_str().unwrap();
                assert!(statuses.contains(&status), "{from} to {to}: {status}");
                assert!(STATUSES.contains(&status));
                assert_eq!(report["format"], json!("MIFCONV/1.0"));
                assert_eq!(
                    (report["sourceFormat"].as_str(), report["targetFormat"].as_str()),
                    (Some(from), Some(to))
                );
                let omitted = report["omitted"].as_array().unwrap();
                let keys: Vec<(String, String)> = omitted
                    .iter()
                    .map(|o| {
                        (
                            o["instancePath"].as_str().unwrap().into(),
                            o["reason"].as_str().unwrap().into(),
                        )
                    })
                    .collect();
                let mut sorted = keys.clone();
                sorted.sort();
                assert_eq!(keys, sorted, "sorted by path, then reason");
                let has_output = report.get("output").is_some();
                match status {
                    "lossless" => assert!(has_output && omitted.is_empty(), "{report}"),
                    "lossy-history" | "lossy-semantic-state" => {
                        assert!(has_output && !omitted.is_empty(), "{report}");
                        // Without the caller's acceptance nothing is converted.
                        let e = convert(from, to, text, manifest, false).unwrap_err();
                        assert_eq!((e.category, e.code.as_str()), ("conversion", "loss-not-accepted"));
                    }
                    _ => {
                        assert!(!has_output, "{report}");
                        assert_eq!(report["diagnostics"]["format"], json!("MIFDIAG/1.0"));
                    }
                }
            }
        }
    }

    #[test]
    fn conversions_say_what_they_keep_and_drop() {
        let m = Manifest::of_rules(Variant::Nine.rules()).unwrap();
        let sources = sources(&m);
        let source = |f: &str| sources.iter().find(|(x, _)| *x == f).unwrap().1.clone();
        // MFEN gains its manifest as a portable MIFPOS: nothing lost.
        let r = convert("MFEN/1.0", "MIFPOS/1.0", &source("MFEN/1.0"), Some(&m), false).unwrap();
        assert_eq!(r["status"], json!("lossless"));
        assert_eq!(
            mifpos::from_value(&r["output"], None).unwrap().position,
            source("MFEN/1.0")
        );
        // Without it, the rules cannot be resolved.
        let r = convert("MFEN/1.0", "MIFPOS/1.0", &source("MFEN/1.0"), None, false).unwrap();
        assert_eq!(r["status"], json!("requires-ruleset-resolution"));
        assert_eq!(
            r["omitted"],
            json!([{"instancePath": "", "reason": "ruleset-semantics-unresolved"}])
        );
        assert_eq!(r["diagnostics"]["errors"][0]["code"], json!("manifest-missing"));
        // A game to its position drops its history: the origin and the events.
        let r = convert("MSTATE/1.0", "MFEN/1.0", &source("MSTATE/1.0"), None, true).unwrap();
        assert_eq!(r["status"], json!("lossy-history"));
        assert_eq!(r["output"], json!(source("MFEN/1.0")));
        let paths: Vec<&str> = r["omitted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["instancePath"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["/events", "/origin", "/ruleset"]);
        // A key leaves out the counters; a key has none to give back.
        let r = convert("MFEN/1.0", "MPK/1.0", &source("MFEN/1.0"), Some(&m), true).unwrap();
        assert_eq!(r["output"], json!(source("MPK/1.0")));
        let r = convert("MPK/1.0", "MFEN/1.0", &source("MPK/1.0"), Some(&m), true).unwrap();
        assert_eq!(r["status"], json!("unrepresentable-under-profile"));
        // A position with a removal owed has no key.
        let owed = Position::from_str_variant("LLL/.../.../....../.../.../DDD l 0 0 1 0", Variant::Nine)
            .unwrap()
            .to_mfen()
            .unwrap();
        let r = convert("MFEN/1.0", "MPK/1.0", &owed, Some(&m), true).unwrap();
        assert_eq!(r["status"], json!("unrepresentable-under-profile"));
        assert_eq!(r["diagnostics"]["errors"][0]["code"], json!("mpk-ineligible"));
        // Pairs not converted, and sources that do not read, are errors, not reports.
        assert_eq!(
            convert("MRS/1.0", "MFEN/1.0", "{}", None, true).unwrap_err().code,
            "unsupported-format"
        );
        assert_eq!(
            convert("MSTATE/1.0", "MFEN/1.0", "{}", None, true)
                .unwrap_err()
                .code,
            "schema"
        );
    }
}

mod envelopes {
    use super::*;
    use mill_mif::identity::transform_decision_state;
    use mill_mif::json::parse;
    use mill_mif::transform::TRANSFORMS;
    use mill_mif::{mifinv, mifpos};

    const PLACED: &str = "MFEN/1.0 mill24-state-v1 W......./.......B/........ w p p 8,8 - 0 2 -";

    fn nine() -> Manifest {
        Manifest::of_rules(mill_core::NINE).unwrap()
    }

    #[test]
    fn mifpos_round_trips_and_moves_its_position() {
        let m = nine();
        let portable = mifpos::write(&m, PLACED, true);
        let read = mifpos::from_value(&portable, None).unwrap();
        assert_eq!(read.position, PLACED);
        assert_eq!(read.manifest.semantic_digest, m.semantic_digest);
        let reference = mifpos::write(&m, PLACED, false);
        assert_eq!(
            mifpos::from_value(&reference, None).unwrap_err().code,
            "manifest-missing"
        );
        assert_eq!(mifpos::from_value(&reference, Some(&m)).unwrap().position, PLACED);
        // Under the example manifest (Black first) a reference needs that manifest.
        let d1m = Manifest::from_value(d1()).unwrap();
        assert_eq!(
            mifpos::from_value(&reference, Some(&d1m)).unwrap_err().code,
            "manifest-conflict"
        );
        // a7 → a1 and b2 ... under r90ccw; back under r90cw.
        let moved = mifpos::transform(&portable, None, "r90ccw").unwrap();
        assert_ne!(moved["position"], json!(PLACED));
        assert_eq!(moved["ruleset"], portable["ruleset"], "the envelope is kept");
        let back = mifpos::transform(&moved, None, "r90cw").unwrap();
        assert_eq!(back, portable);
        assert_eq!(
            mifpos::transform(&portable, None, "spin").unwrap_err().code,
            "unsupported-transform"
        );
        let mut sloppy = portable.clone();
        sloppy["position"] = json!(PLACED.replace(" 0 2 -", " 0 02 -"));
        assert!(mifpos::from_value(&sloppy, None).is_err(), "only canonical MFEN");
        let mut extra = portable.clone();
        extra["extensions"] = json!([{"profile": "x-lm"}]);
        assert_eq!(
            mifpos::from_value(&extra, None).unwrap_err().code,
            "unsupported-profile"
        );
        let mut wrong = portable.clone();
        wrong["ruleset"]["semanticDigest"] = json!(D1_SEMANTIC);
        assert_eq!(
            mifpos::from_value(&wrong, None).unwrap_err().code,
            "semantic-digest-mismatch"
        );
    }

    #[test]
    fn invariance_declarations_gate_equivalence() {
        let m = nine();
        let all = mifinv::write(&m, &TRANSFORMS);
        for t in TRANSFORMS {
            mifinv::check(Some(&all), &m, t).unwrap();
        }
        let some = mifinv::write(&m, &["i", "r180"]);
        assert_eq!(
            mifinv::check(Some(&some), &m, "r90ccw").unwrap_err().code,
            "transform-invariance-undeclared"
        );
        assert_eq!(
            mifinv::check(None, &m, "i").unwrap_err().code,
            "transform-invariance-undeclared"
        );
        let d1m = Manifest::from_value(d1()).unwrap();
        assert_eq!(
            mifinv::check(Some(&all), &d1m, "i").unwrap_err().code,
            "transform-invariance-undeclared",
            "a declaration covers its exact semantic digest only"
        );
        let mut forged = all.clone();
        forged["transforms"] = json!(["i"]);
        assert_eq!(
            mifinv::check(Some(&forged), &m, "i").unwrap_err().code,
            "document-digest-mismatch"
        );
        let unordered = mifinv::write(&m, &["r180", "i"]);
        assert_eq!(
            mifinv::check(Some(&unordered), &m, "i").unwrap_err().code,
            "set-order"
        );
    }

    /// A decision state under D1 with `board` observed once in a window.
    fn decision_with_history(board: &str) -> (Value, Vec<Value>) {
        let m = Manifest::from_value(d1()).unwrap();
        let text = format!("MFEN/1.0 mill24-state-v1 {board} b p p 8,8 - 0 0 -");
        let key = observation(&m, &text).unwrap();
        let history = vec![json!({"source": "origin", "key": key})];
        let mut summary = RepetitionSummary::new(3);
        summary.observe(&digest(&history[0]["key"])).unwrap();
        let (state, _) = decision_state(&m, &text, Some(&summary), &Negotiation::default()).unwrap();
        (state, history)
    }

    #[test]
    fn decision_states_move_with_the_history_their_root_summarises() {
        let m = Manifest::from_value(d1()).unwrap();
        let board = "W......./.......B/........";
        let (state, history) = decision_with_history(board);
        let moved = transform_decision_state(&state, &m, Some(&history), "r90ccw").unwrap();
        assert_ne!(moved["board"], state["board"]);
        assert_ne!(moved["repetitionSummary"], state["repetitionSummary"]);
        // The moved state is exactly the state of the moved position.
        let (expected, _) = decision_with_history(moved["board"].as_str().unwrap());
        assert_eq!(moved, expected);
        assert_eq!(
            transform_decision_state(&state, &m, None, "r90ccw")
                .unwrap_err()
                .code,
            "insufficient-transform-history"
        );
        let (_, other) = decision_with_history("......../......../........");
        assert_eq!(
            transform_decision_state(&state, &m, Some(&other), "r90ccw")
                .unwrap_err()
                .code,
            "insufficient-transform-history",
            "a history that does not rebuild the root"
        );
        assert_eq!(
            transform_decision_state(&state, &nine(), Some(&history), "i")
                .unwrap_err()
                .code,
            "semantic-digest-mismatch"
        );
        assert_eq!(
            transform_decision_state(&state, &m, Some(&history), "i").unwrap(),
            state
        );
    }

    /// A small deterministic generator for mangled inputs.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn mangled_documents_are_refused_without_panicking() {
        let m = nine();
        let d1m = Manifest::from_value(d1()).unwrap();
        let (state, history) = decision_with_history("W......./.......B/........");
        let sources = [
            canonical(&mifpos::write(&m, PLACED, true)),
            canonical(&mifinv::write(&m, &TRANSFORMS)),
            canonical(&state),
        ];
        let mut rng = Lcg(7);
        let alphabet = b"{}[]\":,.0123456789-abwpmr/W.B ";
        for round in 0..3000 {
            let source = sources[round % sources.len()].as_bytes();
            let mut bytes = source.to_vec();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() as usize) % bytes.len();
                match rng.next() % 3 {
                    0 => bytes[at] = alphabet[(rng.next() as usize) % alphabet.len()],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, alphabet[(rng.next() as usize) % alphabet.len()]),
                }
            }
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            let Ok(value) = parse(&text) else { continue };
            let t = TRANSFORMS[round % 8];
            let _ = mifpos::from_value(&value, Some(&m));
            let _ = mifpos::transform(&value, None, t);
            let _ = mifinv::check(Some(&value), &m, t);
            let _ = transform_decision_state(&value, &d1m, Some(&history), t);
            let _ = transform_decision_state(&value, &d1m, Some(std::slice::from_ref(&value)), t);
        }
    }
}
