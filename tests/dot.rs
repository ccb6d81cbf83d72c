//! Pictures: DOT that parses back, counts that match the classification, well-formed SVG.

use std::process::Command;

use ets::demo::bank;
use ets::dot::board::{Outline, board_svg};
use ets::dot::{OverlapNode, StructPicture, overlap_graph, render_builtin, struct_graph, to_dot};
use ets::ets::recognize_all;
use ets::go::board::{Board, Cell, Color, Point};

fn ets() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ets"))
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

#[test]
fn overlap_dot_of_a_small_position() {
    let nodes = vec![
        OverlapNode {
            id: "L0:0".into(),
            class: "black_stone".into(),
            detail: "D4".into(),
        },
        OverlapNode {
            id: "L0:1".into(),
            class: "black_beside_empty".into(),
            detail: "D4 E4".into(),
        },
        OverlapNode {
            id: "L0:2".into(),
            class: "empty_vertex".into(),
            detail: "E4".into(),
        },
    ];
    let edges = vec![(0, 1, vec!["Con_5".to_string()]), (1, 2, vec!["Con_12".to_string()])];
    let dot = to_dot(&overlap_graph("level 0", &nodes, &edges));
    graphviz_rust::parse(&dot).expect("DOT parses back");
    insta::assert_snapshot!(dot);
    // the built-in renderer draws it without graphviz, as well-formed SVG
    let svg = render_builtin(&dot).unwrap();
    roxmltree::Document::parse(&svg).expect("well-formed SVG");
}

#[test]
fn builtin_renderer_draws_structs_as_well_formed_svg() {
    let svg = render_builtin(&bank_struct_dot()).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
}

#[test]
fn overlap_view_counts_equal_classify_json() {
    let game = "examples/go/capture.sgf";
    for level in ["0", "1", "2"] {
        let json = ets()
            .args(["classify", game, "--format", "json", "--level", level])
            .output()
            .unwrap();
        assert!(json.status.success());
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        let l = &v["levels"][level.parse::<usize>().unwrap()];
        let (elements, overlaps) = (
            l["elements"].as_array().unwrap().len(),
            l["overlaps"].as_array().unwrap().len(),
        );
        let dot = ets().args(["dot", game, "--level", level]).output().unwrap();
        assert!(dot.status.success());
        let text = String::from_utf8(dot.stdout).unwrap();
        graphviz_rust::parse(&text).expect("DOT parses back");
        let nodes = text
            .lines()
            .filter(|l| l.trim_start().starts_with("\"L") && !l.contains("--"))
            .count();
        let edges = text.lines().filter(|l| l.contains(" -- ")).count();
        assert_eq!((nodes, edges), (elements, overlaps), "level {level}");
    }
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
            vertices: vec![Point { col: 2, row: 2 }, Point { col: 3, row: 2 }],
        },
        Outline {
            label: "black_block F4".into(),
            vertices: vec![Point { col: 5, row: 5 }],
        },
    ];
    let svg = board_svg(&b, &outlines, "test");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("path")).count(), 2);
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("circle")).count(), 3);
    // through the command line, rendered as SVG
    let out = ets()
        .args([
            "dot",
            "examples/go/capture.sgf",
            "--view",
            "board",
            "--level",
            "1",
            "--highlight",
            "black_block",
            "--render",
            "svg",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    assert!(doc.descendants().filter(|n| n.has_tag_name("path")).count() >= 3);
    // PNG of the board view is refused with a clear message
    let out = ets()
        .args(["dot", "examples/go/capture.sgf", "--view", "board", "--render", "png"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--render svg"));
}

#[test]
fn struct_view_of_a_game_is_cropped_and_parses() {
    let out = ets()
        .args([
            "dot",
            "examples/go/capture.sgf",
            "--view",
            "struct",
            "--region",
            "D4:E5",
            "--moves",
            "6..7",
            "--highlight",
            "black_stone",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    graphviz_rust::parse(&text).expect("DOT parses back");
    // 4 vertices × 2 positions of colour primitives, plus their adjacency primitives
    let colour = text.matches("label=\"{{<i0>left|<i1>up|<i2>down|<i3>right}|pi").count();
    assert_eq!(colour, 8, "{text}");
    assert!(text.contains("cluster_0"));
}
