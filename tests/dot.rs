//! Pictures: DOT that parses back, overlap views equal to `ets classify`'s elements and overlaps,
//! selections that keep what they say, well-formed SVG and PNG on both routes (graphviz and pure
//! Rust), and flags that do not fit the game refused with exit 2.

use std::collections::BTreeSet;
use std::process::Command;

use ets::demo::bank;
use ets::dot::board::{Outline, board_svg};
use ets::dot::view::{ElementView, Layout, LevelView, place_anchored, placed_svg, view_dot};
use ets::dot::{StructPicture, have_dot, render_builtin, struct_graph, to_dot};
use ets::ets::recognize_all;
use ets::go::board::{Board, Cell, Color, Point};

const GAME: &str = "examples/go/capture.sgf";
const LONG_GAME: &str = "tests/data/games/tom-9d/2005-01-8557986.sgf";

mod common;
use common::{ets as run, ok};

/// The same command on the pure-Rust route (graphviz turned off).
fn run_without_graphviz(args: &[&str]) -> std::process::Output {
    common::ets_with_env(args, &[("ETS_GRAPHVIZ", "0")])
}

fn is_png(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    )
}

fn bank_struct_dot() -> String {
    let st = bank::setting();
    let s = bank::observation(&st);
    let h = recognize_all(&st, &s, Some(0));
    let clusters = h.levels[0]
        .elements
        .iter()
        .enumerate()
        .filter(|(_, e)| st.class(e.class).name == "shopping_trip")
        .map(|(i, e)| (format!("shopping_trip L0:{i}"), e.nodes.clone()))
        .collect();
    to_dot(&struct_graph(&StructPicture {
        strukt: &s,
        include: &|_| true,
        layer: None,
        caption: &|_| String::new(),
        clusters,
    }))
}

#[test]
fn struct_dot_parses_back_and_is_stable() {
    let dot = bank_struct_dot();
    let g = graphviz_rust::parse(&dot).expect("DOT parses back");
    let text = format!("{g:?}");
    assert!(text.contains("cluster_0") && text.contains("cluster_1"));
    assert_eq!(dot.matches("->").count(), 17, "one edge per process");
    insta::assert_snapshot!(dot);
}

fn small_view() -> LevelView {
    let el = |id: &str, class: &str, detail: &str, anchors: Vec<(f64, f64)>| ElementView {
        id: id.into(),
        class: class.into(),
        detail: detail.into(),
        tooltip: String::new(),
        anchors,
    };
    LevelView {
        title: "level 0".into(),
        elements: vec![
            el("L0:0", "black_stone", "D4", vec![(3.0, 5.0)]),
            el("L0:1", "black_beside_empty", "D4 E4", vec![(3.0, 5.0), (4.0, 5.0)]),
            el("L0:2", "empty_vertex", "E4", vec![(4.0, 5.0)]),
        ],
        edges: vec![(0, 1, vec!["Con_5".to_string()]), (1, 2, vec!["Con_12".to_string()])],
        grid: None,
    }
}

#[test]
fn overlap_dot_of_a_small_position() {
    let v = small_view();
    let dot = to_dot(&view_dot(&v, Layout::Force));
    graphviz_rust::parse(&dot).expect("DOT parses back");
    insta::assert_snapshot!(dot);
    // the built-in renderer draws it without graphviz, as well-formed SVG
    let svg = render_builtin(&dot).unwrap();
    roxmltree::Document::parse(&svg).expect("well-formed SVG");
    // anchored: positions pinned in the DOT, in the plane's order (D4 left of E4)
    let dot = to_dot(&view_dot(&v, Layout::Anchored));
    graphviz_rust::parse(&dot).expect("DOT parses back");
    let xs: Vec<f64> = dot
        .match_indices("pos=\"")
        .map(|(i, _)| dot[i + 5..].split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(xs.len(), 3);
    assert!(xs[0] < xs[1] && xs[1] < xs[2], "{xs:?}");
    let svg = placed_svg(&v, &place_anchored(&v));
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("rect")).count(), 1 + 3);
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("path")).count(), 2);
}

#[test]
fn builtin_renderer_draws_structs_as_well_formed_svg() {
    let svg = render_builtin(&bank_struct_dot()).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
}

type Labelled = BTreeSet<(String, String, String)>;

/// `ets classify`'s living elements and overlaps of a level (ids, and edges with their constraints).
fn classify_json(game: &str, level: usize, extra: &[&str]) -> (BTreeSet<String>, Labelled, serde_json::Value) {
    let l = level.to_string();
    let mut args = vec!["classify", game, "--format", "json", "--level", &l];
    args.extend(extra);
    let v: serde_json::Value = serde_json::from_str(&ok(&run(&args))).unwrap();
    let l = v["levels"][level].clone();
    let ids = l["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    let edges = l["overlaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let cs: Vec<&str> = o["constraints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            (
                o["a"].as_str().unwrap().to_string(),
                o["b"].as_str().unwrap().to_string(),
                cs.join("\\n"),
            )
        })
        .collect();
    (ids, edges, l)
}

/// The nodes and labelled edges of an overlap view's DOT.
fn dot_graph(text: &str) -> (BTreeSet<String>, Labelled) {
    graphviz_rust::parse(text).expect("DOT parses back");
    let mut nodes = BTreeSet::new();
    let mut edges = BTreeSet::new();
    for l in text.lines().map(str::trim_start) {
        if let Some(rest) = l.strip_prefix('"') {
            let (a, rest) = rest.split_once('"').unwrap();
            if let Some(rest) = rest.strip_prefix(" -- \"") {
                let (b, rest) = rest.split_once('"').unwrap();
                let label = rest.split("label=\"").nth(1).unwrap().split('"').next().unwrap();
                edges.insert((a.to_string(), b.to_string(), label.to_string()));
            } else {
                nodes.insert(a.to_string());
            }
        }
    }
    (nodes, edges)
}

#[test]
fn overlap_view_is_exactly_classify_s_elements_and_overlaps() {
    for game in [GAME, "tests/data/games/9x9/Japan_Go_Seigen_1968-08-00.sgf"] {
        for level in 0..=2 {
            let (ids, edges, _) = classify_json(game, level, &[]);
            for layout in ["anchored", "force"] {
                let text = ok(&run(&[
                    "dot",
                    game,
                    "--view",
                    "overlap",
                    "--level",
                    &level.to_string(),
                    "--layout",
                    layout,
                ]));
                let (n, e) = dot_graph(&text);
                assert_eq!(n, ids, "{game} level {level} {layout}: nodes");
                assert_eq!(e, edges, "{game} level {level} {layout}: edges and their constraints");
            }
        }
    }
}

#[test]
fn selections_keep_what_they_say() {
    // a region: every element shown has a vertex in it, and every element with one is shown
    let (_, _, l) = classify_json(GAME, 1, &[]);
    let region: BTreeSet<&str> = ["C3", "C4", "C5", "D3", "D4", "D5"].into();
    let want: BTreeSet<String> = l["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["vertices"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| region.contains(v.as_str().unwrap()))
        })
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!want.is_empty() && want.len() < l["elements"].as_array().unwrap().len());
    let text = ok(&run(&[
        "dot", GAME, "--view", "overlap", "--level", "1", "--region", "D5:C3",
    ]));
    let (nodes, edges) = dot_graph(&text);
    assert_eq!(nodes, want);
    assert!(edges.iter().all(|(a, b, _)| nodes.contains(a) && nodes.contains(b)));
    // classes and a move range: the elements of those classes born in the range, after its last move
    let (_, _, l) = classify_json(GAME, 0, &["--move", "12"]);
    let want: BTreeSet<String> = l["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["died"].is_null() && e["class"].as_str().unwrap().ends_with("_stone"))
        .filter(|e| (9..=12).contains(&e["born"].as_u64().unwrap()))
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!want.is_empty());
    let text = ok(&run(&[
        "dot",
        GAME,
        "--view",
        "overlap",
        "--moves",
        "9..12",
        "--highlight",
        "black_stone,white_stone",
    ]));
    assert_eq!(dot_graph(&text).0, want);
}

#[test]
fn board_view_is_well_formed_svg_with_one_outline_per_element() {
    let mut b = Board::new(9, 9);
    for (c, r) in [(2, 2), (3, 2), (5, 5)] {
        b.set(Point { col: c, row: r }, Cell::Stone(Color::Black));
    }
    let outlines = vec![
        Outline {
            label: "black_block C7 D7".into(),
            class: "black_block".into(),
            vertices: vec![Point { col: 2, row: 2 }, Point { col: 3, row: 2 }],
        },
        Outline {
            label: "black_block F4".into(),
            class: "black_block".into(),
            vertices: vec![Point { col: 5, row: 5 }],
        },
    ];
    let svg = board_svg(&b, &outlines, "test");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("path")).count(), 2);
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("circle")).count(), 3);
    // a game's default picture: the board at the setting's highest level, one outline per element
    let (ids, _, _) = classify_json(GAME, 2, &[]);
    let text = ok(&run(&["dot", GAME]));
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("path")).count(), ids.len());
    // blocks only, in a region: the outlines of the blocks with a stone there
    let text = ok(&run(&[
        "dot",
        GAME,
        "--view",
        "board",
        "--level",
        "1",
        "--highlight",
        "black_block",
        "--region",
        "C3:E5",
        "--render",
        "svg",
    ]));
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let paths: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("path"))
        .map(|n| {
            n.descendants()
                .find(|t| t.has_tag_name("title"))
                .unwrap()
                .text()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        !paths.is_empty() && paths.iter().all(|t| t.starts_with("black_block ")),
        "{paths:?}"
    );
    // and as PNG, without graphviz
    let out = run_without_graphviz(&["dot", GAME, "--render", "png"]);
    let (w, h) = is_png(&out.stdout);
    assert!(w > 200 && h > 200);
}

#[test]
fn every_view_renders_as_png_on_the_pure_rust_route() {
    for args in [
        &["dot", GAME, "--view", "overlap", "--render", "png"][..],
        &[
            "dot", GAME, "--view", "overlap", "--level", "1", "--layout", "force", "--render", "png",
        ][..],
        &["dot", GAME, "--view", "struct", "--render", "png"][..],
    ] {
        let out = run_without_graphviz(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        is_png(&out.stdout);
    }
}

#[test]
fn graphviz_draws_what_it_is_given() {
    if !have_dot() {
        eprintln!("skipped: graphviz's `dot` is not installed");
        return;
    }
    for args in [
        &[
            "dot", GAME, "--view", "overlap", "--level", "1", "--layout", "force", "--render", "svg",
        ][..],
        &["dot", GAME, "--view", "struct", "--render", "png"][..],
    ] {
        let out = run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if args.contains(&"png") {
            is_png(&out.stdout);
        } else {
            let opts = roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            };
            roxmltree::Document::parse_with_options(std::str::from_utf8(&out.stdout).unwrap(), opts).expect("SVG");
        }
    }
    // the anchored view's DOT, drawn by graphviz, keeps its pinned positions
    let dot = ok(&run(&["dot", GAME, "--view", "overlap", "--level", "2"]));
    let mut child = Command::new("dot")
        .arg("-Tplain")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(dot.as_bytes()).unwrap();
    let plain = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let placed = plain.lines().filter(|l| l.starts_with("node ")).count();
    assert_eq!(placed, dot_graph(&dot).0.len());
}

#[test]
fn struct_view_of_a_game_is_cropped_and_parses() {
    let text = ok(&run(&[
        "dot",
        GAME,
        "--view",
        "struct",
        "--region",
        "D4:E5",
        "--moves",
        "6..7",
        "--highlight",
        "black_stone",
    ]));
    graphviz_rust::parse(&text).expect("DOT parses back");
    // 4 vertices × 2 positions of colour primitives, plus their adjacency primitives
    let colour = text.matches("label=\"{{<i0>left|<i1>up|<i2>down|<i3>right}|pi").count();
    assert_eq!(colour, 8, "{text}");
    assert!(text.contains("cluster_0"));
    // the whole board over the whole game is refused, with the way out named
    let out = run(&[
        "dot", LONG_GAME, "--view", "struct", "--region", "A1:T19", "--moves", "0..256",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--region or --moves"));
}

#[test]
fn a_whole_game_s_pictures_are_drawn() {
    // the default picture, and the level-0 overlap graph of every living element, as PNG
    let out = run(&["dot", LONG_GAME, "--render", "png"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    is_png(&out.stdout);
    let (ids, edges, _) = classify_json(LONG_GAME, 0, &[]);
    let text = ok(&run(&["dot", LONG_GAME, "--view", "overlap"]));
    assert_eq!(dot_graph(&text), (ids, edges));
}

#[test]
fn flags_that_do_not_fit_are_usage_errors() {
    for (args, says) in [
        (&["dot", GAME, "--level", "3"][..], "levels 0 to 2"),
        (&["dot", GAME, "--view", "overlap", "--level", "3"][..], "levels 0 to 2"),
        (&["dot", GAME, "--highlight", "black_blob"][..], "no class `black_blob`"),
        (
            &["dot", GAME, "--level", "0", "--highlight", "black_group"][..],
            "level-2 class",
        ),
        (&["dot", GAME, "--region", "D4:Z30"][..], "not a vertex"),
        (&["dot", GAME, "--moves", "5..3"][..], "backwards"),
        (&["dot", GAME, "--moves", "5..30"][..], "the line has 18 moves"),
        (&["dot", GAME, "--move", "4", "--moves", "1..5"][..], "disagree"),
        (
            &["dot", GAME, "--view", "board", "--layout", "force"][..],
            "--layout applies",
        ),
        (
            &["dot", GAME, "--view", "struct", "--level", "1"][..],
            "struct view shows level 0",
        ),
        (&["dot"][..], "name an SGF file"),
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says) && err.contains("Usage: ets dot"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // input errors: exit 1 (a flag naming what the record does not have, as in every command:
    // docs/formats.md, "Bad input")
    let out = run(&["dot", GAME, "--move", "19"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--move 19 asked for, but the line has 18 move(s)"));
    let out = run(&["dot", "no/such/game.sgf"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}
