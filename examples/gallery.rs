//! Regenerates the pictures of `docs/gallery.md`: `cargo run --release --example gallery`.
//! Uses graphviz's `dot` when installed, the built-in layout otherwise.

use ets::demo::bank;
use ets::dot::board::{Outline, board_svg};
use ets::dot::{Format, StructPicture, classification_overlap, render, struct_graph, to_dot};
use ets::ets::recognize_all;
use ets::go::classify::{classify, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;

const GAME: &str = "tests/data/games/9x9/Japan_Go_Seigen_1968-08-00.sgf";
const MOVE: usize = 30;

fn main() {
    let out = std::path::Path::new("docs/gallery");
    std::fs::create_dir_all(out).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(out.join(name), bytes).unwrap();
        println!("wrote docs/gallery/{name}");
    };
    // A small struct of any domain: the bank observation, shopping trips outlined.
    let st = bank::setting();
    let s = bank::observation(&st);
    let h = recognize_all(&st, &s, Some(1));
    let clusters = h.levels[0]
        .elements
        .iter()
        .enumerate()
        .filter(|(_, e)| st.class(e.class).name == "shopping_trip")
        .map(|(i, e)| (format!("shopping_trip L0:{i}"), e.nodes.clone()))
        .collect();
    let dot = to_dot(&struct_graph(&StructPicture {
        strukt: &s,
        include: &|_| true,
        layer: None,
        caption: &|_| String::new(),
        clusters,
    }));
    write("bank_struct.svg", &render(&dot, Format::Svg).unwrap());

    // One real position at every level.
    let setting = embedded_setting().1.expect("setting");
    let sgf = Sgf::parse_bytes(std::fs::read(GAME).expect("the sample game shipped in tests/data/games")).unwrap();
    let r = Replay::from_sgf(&sgf, 0, &[]).unwrap();
    let n = MOVE.min(r.len());
    let last: Vec<_> = std::iter::once(None)
        .chain(r.moves.iter().map(|m| m.point))
        .take(n + 1)
        .collect();
    let c = classify(&setting, &r.positions[..=n], &last, RecordOptions::default(), None).unwrap();
    let rows = r.info.size.1;
    let shown: [(u32, &[&str]); 3] = [
        (
            0,
            &[
                "black_stone",
                "white_stone",
                "black_beside_white",
                "adjacent_blacks",
                "adjacent_whites",
            ],
        ),
        (
            1,
            &[
                "black_block",
                "white_block",
                "black_one_point_jump",
                "white_one_point_jump",
                "black_diagonal_jump",
                "white_diagonal_jump",
                "black_knights_jump",
                "white_knights_jump",
                "block_interface",
            ],
        ),
        (2, &["black_group", "white_group", "black_eyes", "white_eyes"]),
    ];
    for (level, classes) in shown {
        let l = &c.hierarchy.levels[level as usize];
        let named = &c.named[level as usize];
        let living: Vec<usize> = (0..l.elements.len()).filter(|&i| named[i].died.is_none()).collect();
        let keep: Vec<usize> = (0..living.len())
            .filter(|&k| classes.contains(&setting.class(l.elements[living[k]].class).name.as_str()))
            .collect();
        let only: Vec<String> = classes.iter().map(|c| c.to_string()).collect();
        let title = format!("level {level}, Go Seigen 1968, after move {n}");
        let dot = to_dot(&classification_overlap(&setting, &c, level, rows, &only, &title));
        write(
            &format!("level{level}_overlap.svg"),
            &render(&dot, Format::Svg).unwrap(),
        );
        // on the board, the chunks a player circles: stones, blocks and one-point jumps, groups
        let on_board = |name: &str| match level {
            0 => name.ends_with("_stone"),
            1 => name.ends_with("_block") || name.ends_with("one_point_jump"),
            _ => name.ends_with("_group"),
        };
        let outlines: Vec<Outline> = keep
            .iter()
            .map(|&k| living[k])
            .filter(|&i| on_board(&setting.class(l.elements[i].class).name))
            .map(|i| Outline {
                label: format!(
                    "{} {}",
                    setting.class(l.elements[i].class).name,
                    named[i]
                        .vertices
                        .iter()
                        .map(|p| p.gtp(rows))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                vertices: named[i].vertices.clone(),
            })
            .collect();
        write(
            &format!("level{level}_board.svg"),
            board_svg(&r.positions[n], &outlines, &format!("level {level} after move {n}")).as_bytes(),
        );
    }
}
