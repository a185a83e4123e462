//! The Mill Interchange Format 1.0 beyond MFEN, checked against the specification's own
//! freeze examples (Annex C: the example manifest D1, its digests, the decision and
//! repetition identities, the MPK binding) and against this crate's rules.

#![cfg(feature = "mif")]

use mill_core::mif::identity::{Negotiation, RepetitionSummary, decision_state, observation};
use mill_core::mif::json::{canonical, digest};
use mill_core::mif::legal::{canonical_mfen, legal_actions};
use mill_core::mif::mpk::{Key, canonicalize, of_position};
use mill_core::mif::mrs::Manifest;
use mill_core::{Position, Rules, Variant};
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
    ] {
        let rules = Rules::parse(name).unwrap();
        let m = Manifest::of_rules(rules).unwrap();
        assert_eq!(m.rules(), Ok(rules), "{name}");
        assert_eq!(m.action_rules(), Ok(rules), "{name}");
    }
    assert_eq!(
        Manifest::of_rules(Variant::Nine.rules()).unwrap().id,
        "x-mill-nine"
    );
    let e = Manifest::of_rules(Variant::Six.rules()).unwrap_err();
    assert_eq!(e.code, "unrepresentable-under-profile");

    // D1's placements, moves and removals are Nine's with Black first; its draws
    // (no move limit, repetition by claim) are not played here.
    let m = Manifest::from_value(d1()).unwrap();
    assert_eq!(m.action_rules(), Ok(Rules::parse("nine+dark-first").unwrap()));
    let e = m.rules().unwrap_err();
    assert_eq!(
        (e.category, e.code.as_str()),
        ("unsupported", "unsupported-ruleset")
    );
    assert_eq!(e.instance_path.as_deref(), Some("/draw/noProgress/normalLimit"));
    // Mechanisms this crate lacks are refused, each at its member.
    for (pointer, value) in [
        ("/placing/movementAllowed", json!(true)),
        ("/pieces", json!({"black": 13, "minimumLive": 3, "white": 13})),
        ("/stalemate/action", json!("draw")),
        ("/turn/placingEndActivePlayer", json!("w")),
        ("/mills/placingEffect", json!("remove-opponent-hand-change")),
    ] {
        let m = Manifest::from_value(patched(pointer, value)).unwrap();
        let e = m.action_rules().unwrap_err();
        assert_eq!(e.code, "unsupported-ruleset", "{pointer}");
        assert_eq!(e.instance_path.as_deref(), Some(pointer));
    }
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

mod mstate {
    use super::*;
    use mill_core::mif::mstate::{read, write};
    use mill_core::{Game, Outcome};

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
        // The specification's example manifest plays draws we do not.
        assert_eq!(
            code(
                &|d| {
                    d["ruleset"] = json!({"mode": "reference", "id": "example-morris", "version": 1, "semanticDigest": D1_SEMANTIC})
                },
                Some(&Manifest::from_value(d1()).unwrap())
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

mod envelopes {
    use super::*;
    use mill_core::mif::identity::transform_decision_state;
    use mill_core::mif::json::parse;
    use mill_core::mif::transform::TRANSFORMS;
    use mill_core::mif::{mifinv, mifpos};

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
