use serde_json::Value;

use super::*;

fn snap(g: &WasmGame) -> Value {
    serde_json::from_str(&g.snapshot()).unwrap()
}

fn play_ok(g: &mut WasmGame, action: &str) {
    let reply: Value = serde_json::from_str(&g.play(action)).unwrap();
    assert_eq!(reply["ok"], true, "{action}: {reply}");
}

/// Who stands on `name`: the view lists each side's points.
fn piece<'a>(s: &Value, name: &str) -> Option<&'a str> {
    ["light", "dark"]
        .into_iter()
        .find(|side| strings(&s["pieces"][side]).contains(&name))
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

#[test]
fn topology_has_the_nine_mens_morris_board() {
    let t: Value = serde_json::from_str(&WasmGame::new().topology()).unwrap();
    assert_eq!(t["points"].as_array().unwrap().len(), 24);
    assert_eq!(t["segments"].as_array().unwrap().len(), 32);
    assert_eq!(t["lines"].as_array().unwrap().len(), 16);
    assert_eq!((t["files"].as_u64(), t["ranks"].as_u64()), (Some(7), Some(7)));
    let a1 = t["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "a1")
        .unwrap();
    assert_eq!((a1["file"].as_u64(), a1["rank"].as_u64()), (Some(0), Some(0)));
    let mut n = strings(&t["neighbours"]["d2"]);
    n.sort();
    assert_eq!(n, ["b2", "d1", "d3", "f2"]);
}

#[test]
fn start_snapshot_offers_every_point_to_light() {
    let s = snap(&WasmGame::new());
    assert_eq!(s["turn"], "light");
    assert_eq!(s["phase"]["light"], "placing");
    assert_eq!(s["in_hand"]["dark"], 9);
    assert_eq!(s["on_board"]["light"], 0);
    assert_eq!(s["legal"]["selectable"].as_array().unwrap().len(), 24);
    assert!(s["legal"]["destinations"].as_object().unwrap().is_empty());
    assert!(s["legal"]["removable"].as_array().unwrap().is_empty());
    assert_eq!(s["actions"].as_array().unwrap().len(), 0);
    assert!(s["outcome"].is_null());
    assert_eq!(s["position"], ".../.../.../....../.../.../... l 9 9 0 0");
}

#[test]
fn a_mill_asks_for_a_removal_of_an_unprotected_piece() {
    let mut g = WasmGame::new();
    for a in ["a1", "b2", "d1", "d2"] {
        play_ok(&mut g, a);
    }
    play_ok(&mut g, "g1");
    let s = snap(&g);
    assert_eq!(s["pending_removals"], 1);
    assert_eq!(s["turn"], "light");
    let mut removable = strings(&s["legal"]["removable"]);
    removable.sort();
    assert_eq!(removable, ["b2", "d2"]);
    assert_eq!(strings(&s["last_turn_actions"]), ["g1"]);
    assert_eq!(strings(&s["record"]), ["a1", "b2", "d1", "d2"]);
    play_ok(&mut g, "xd2");
    let s = snap(&g);
    assert_eq!(s["pending_removals"], 0);
    assert_eq!(s["turn"], "dark");
    assert_eq!(strings(&s["last_turn_actions"]), ["g1", "xd2"]);
    assert_eq!(s["record"][4], "g1xd2");
    assert_eq!(piece(&s, "g1"), Some("light"));
    assert!(piece(&s, "d2").is_none());
}

#[test]
fn bad_actions_are_refused_with_a_code_and_change_nothing() {
    let mut g = WasmGame::new();
    play_ok(&mut g, "d6");
    let before = g.snapshot();
    for (text, code) in [
        ("d6", "occupied"),
        ("zz9", "bad-action"),
        ("", "bad-action"),
        ("d4", "off-board"),
        ("d6-d4", "off-board"),
        ("xd4", "off-board"),
        ("xd6", "no-removal-pending"),
    ] {
        let reply: Value = serde_json::from_str(&g.play(text)).unwrap();
        assert_eq!(reply["ok"], false, "{text}");
        assert_eq!(reply["error"]["code"], code, "{text}: {reply}");
        assert!(!reply["error"]["message"].as_str().unwrap().is_empty());
        assert_eq!(g.snapshot(), before, "{text} changed the game");
    }
    // A name the board lacks comes with that name, for the page's words.
    let reply: Value = serde_json::from_str(&g.play("e3-d4")).unwrap();
    assert_eq!(reply["error"]["code"], "off-board");
    assert_eq!(reply["error"]["point"], "d4");
    let reply: Value = serde_json::from_str(&g.play("zz9")).unwrap();
    assert!(reply["error"].get("point").is_none(), "{reply}");
}

#[test]
fn undo_takes_back_one_action() {
    let mut g = WasmGame::new();
    assert!(!g.undo());
    play_ok(&mut g, "d6");
    play_ok(&mut g, "a1");
    assert!(g.undo());
    let s = snap(&g);
    assert_eq!(s["actions"].as_array().unwrap().len(), 1);
    assert_eq!(s["turn"], "dark");
    assert!(piece(&s, "a1").is_none());
}

#[test]
fn record_round_trips_including_a_turn_waiting_for_its_removal() {
    let mut g = WasmGame::new();
    for a in ["a1", "b2", "d1", "d2", "g1"] {
        play_ok(&mut g, a);
    }
    let saved = g.export_record();
    let mut h = WasmGame::new();
    let reply: Value = serde_json::from_str(&h.import_record(&saved)).unwrap();
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(h.snapshot(), g.snapshot());
}

#[test]
fn a_round_ended_by_the_clock_is_read_from_the_servers_record() {
    let start = ".../.../.../....../.../.../... l 9 9 0 0";
    for (winner, reason, kind) in [
        ("\"dark\"", "timeout", "win"),
        ("\"light\"", "abandoned", "win"),
        ("null", "abandoned", "draw"),
        ("null", "aborted", "aborted"),
    ] {
        let json = format!(
            r#"{{"start":"{start}","actions":["d6"],"result":{{"winner":{winner},"reason":"{reason}"}}}}"#
        );
        let mut g = WasmGame::new();
        let reply: Value = serde_json::from_str(&g.import_record(&json)).unwrap();
        assert_eq!(reply["ok"], true, "{json}: {reply}");
        let outcome = &snap(&g)["outcome"];
        assert_eq!(outcome["kind"], kind, "{outcome}");
        // And it goes out again as it came.
        let back: Value = serde_json::from_str(&g.export_record()).unwrap();
        assert_eq!(back["result"]["reason"], reason);
    }
    let mut g = WasmGame::new();
    let timeout_without_winner =
        format!(r#"{{"start":"{start}","actions":["d6"],"result":{{"winner":null,"reason":"timeout"}}}}"#);
    let reply: Value = serde_json::from_str(&g.import_record(&timeout_without_winner)).unwrap();
    assert_eq!(reply["ok"], false, "{reply}");
}

#[test]
fn a_broken_record_is_refused_and_changes_nothing() {
    let mut g = WasmGame::new();
    play_ok(&mut g, "d6");
    let before = g.snapshot();
    let start = ".../.../.../....../.../.../... l 9 9 0 0";
    for bad in [
        "not json".to_string(),
        r#"{"start":"nonsense","actions":[]}"#.to_string(),
        format!(r#"{{"start":"{start}","actions":["a1","a1"]}}"#),
        format!(r#"{{"start":"{start}","actions":["a1","q9"]}}"#),
    ] {
        let reply: Value = serde_json::from_str(&g.import_record(&bad)).unwrap();
        assert_eq!(reply["ok"], false, "{bad}");
        let code = reply["error"]["code"].as_str().unwrap();
        assert!(code == "bad-record" || code == "bad-position", "{bad}: {reply}");
        assert_eq!(g.snapshot(), before);
    }
}

#[test]
fn load_position_starts_from_a_position_string_or_refuses_it() {
    let mut g = WasmGame::new();
    // The rules guide's worked position: Light on a1 and d1, g1 empty, Dark on b6 and d2.
    let text = ".../D../.../....../.../.D./LL. l 7 7 0 0";
    let reply: Value = serde_json::from_str(&g.load_position(text)).unwrap();
    assert_eq!(reply["ok"], true, "{reply}");
    let s = snap(&g);
    assert_eq!(s["position"], text);
    assert_eq!(piece(&s, "a1"), Some("light"));
    assert_eq!(piece(&s, "d2"), Some("dark"));

    let before = g.snapshot();
    let reply: Value = serde_json::from_str(&g.load_position("L L L")).unwrap();
    assert_eq!(reply["error"]["code"], "bad-position");
    assert_eq!(g.snapshot(), before);
    g.restart();
    assert_eq!(snap(&g)["position"], text);
}

#[test]
fn moving_pieces_list_their_destinations() {
    let mut g = WasmGame::new();
    // 18 placements that close no mill.
    let placements = [
        "a7", "d7", "g7", "a4", "g4", "a1", "d1", "g1", "b6", "d6", "f6", "b4", "f4", "b2", "d2", "f2", "c5",
        "e3",
    ];
    for a in placements {
        play_ok(&mut g, a);
    }
    let s = snap(&g);
    assert!(s["outcome"].is_null());
    assert_eq!(s["phase"]["light"], "moving");
    assert_eq!(s["turn"], "light");
    let dest = s["legal"]["destinations"].as_object().unwrap();
    // Each entry is an own piece going to empty points; c5 (next to empty c4) is one.
    assert!(dest.contains_key("c5"), "{s}");
    for (from, to) in dest {
        assert_eq!(piece(&s, from), Some("light"));
        assert!(!to.as_array().unwrap().is_empty());
        for p in to.as_array().unwrap() {
            assert!(piece(&s, p.as_str().unwrap()).is_none());
        }
    }
}

/// The page's unit tests use a copy of the topology JSON; it must be what this crate
/// gives. `MILL_BLESS=1 cargo test -p mill-wasm` rewrites it.
#[test]
fn the_js_unit_tests_topology_fixture_is_current() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/unit/fixtures/topology.json"
    );
    let fresh = format!("{}\n", WasmGame::new().topology());
    if std::env::var_os("MILL_BLESS").is_some() {
        std::fs::write(path, &fresh).unwrap();
    }
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        stored, fresh,
        "run MILL_BLESS=1 cargo test -p mill-wasm to refresh {path}"
    );
}

fn lines(v: &Value) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|line| {
            let mut l = strings(line);
            l.sort();
            l
        })
        .collect();
    out.sort();
    out
}

#[test]
fn closed_mill_is_shown_until_the_next_turn() {
    let mut g = WasmGame::new();
    for a in ["a1", "b2", "d1", "d2"] {
        play_ok(&mut g, a);
        assert!(lines(&snap(&g)["closed_mills"]).is_empty(), "after {a}");
    }
    play_ok(&mut g, "g1");
    assert_eq!(
        lines(&snap(&g)["closed_mills"]),
        [["a1", "d1", "g1"]],
        "while the removal is pending"
    );
    play_ok(&mut g, "xd2");
    assert_eq!(
        lines(&snap(&g)["closed_mills"]),
        [["a1", "d1", "g1"]],
        "with the last turn"
    );
    play_ok(&mut g, "d2");
    assert!(
        lines(&snap(&g)["closed_mills"]).is_empty(),
        "the next turn closed none"
    );
    assert!(g.undo());
    assert_eq!(
        lines(&snap(&g)["closed_mills"]),
        [["a1", "d1", "g1"]],
        "undo brings it back"
    );
}

#[test]
fn one_piece_closing_two_mills_shows_both() {
    let mut g = WasmGame::new();
    // Light: a1 a4 (file a) and d7 g7 (rank 7), then a7 closes both; Dark places apart.
    for a in ["a1", "b2", "a4", "b4", "d7", "d2", "g7", "c5"] {
        play_ok(&mut g, a);
    }
    play_ok(&mut g, "a7");
    assert_eq!(
        lines(&snap(&g)["closed_mills"]),
        [["a1", "a4", "a7"], ["a7", "d7", "g7"]]
    );
    // The pieces of the mill stay; a move that does not arrive in a mill closes none.
    play_ok(&mut g, "xd2");
    play_ok(&mut g, "d2");
    assert!(lines(&snap(&g)["closed_mills"]).is_empty());
}

#[test]
fn a_move_that_completes_a_line_closes_a_mill() {
    let mut g = WasmGame::new();
    // Moving: Dark steps without closing anything, then Light's a4-a1 completes a1 d1 g1.
    let reply: Value =
        serde_json::from_str(&g.load_position(".D./L.D/.../L....D/.../.../.LL d 0 0 0 0")).unwrap();
    assert_eq!(reply["ok"], true, "{reply}");
    play_ok(&mut g, "g4-g7");
    assert_eq!(lines(&snap(&g)["closed_mills"]), Vec::<Vec<&str>>::new());
    play_ok(&mut g, "a4-a1");
    assert_eq!(lines(&snap(&g)["closed_mills"]), [["a1", "d1", "g1"]]);
}

/// What rules.js carries between the board build and the full one: the record, then the
/// start's count of placements and moves, after which MFEN reads the same.
#[cfg(feature = "records")]
#[test]
fn a_game_is_carried_whole_with_its_start_count() {
    let mut g = WasmGame::new();
    let text = "MFEN/1.0 mill24-state-v1 WWW...../BBB...../........ w m m 0,0 - 0 40 -";
    let reply: Value = serde_json::from_str(&g.load_mfen(text, None)).unwrap();
    assert_eq!(reply["ok"], true, "{reply}");
    play_ok(&mut g, "g7-g4");
    assert_eq!(g.start_ply_read(), Some(40.0));
    let mut other = WasmGame::new();
    let reply: Value = serde_json::from_str(&other.import_record(&g.export_record())).unwrap();
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(other.start_ply_read(), None);
    assert_ne!(
        other.mfen(),
        g.mfen(),
        "without the count MFEN counts from the smallest"
    );
    other.set_start_ply(g.start_ply_read());
    assert_eq!(other.mfen(), g.mfen());
    // A count that is no count is taken as unknown.
    for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY] {
        other.set_start_ply(Some(bad));
        assert_eq!(other.start_ply_read(), None, "{bad}");
    }
    other.set_start_ply(None);
    assert_eq!(other.start_ply_read(), None);
}
