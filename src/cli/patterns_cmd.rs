//! `ets patterns`: list, query, show and export the Forme_K patterns of a store.

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

use ets::go::board::{Color, Point};
use ets::knowledge::export::{Content, class_text, region};
use ets::knowledge::forme_k::{Grid, Prune, Stats, Tree, Walk};
use ets::knowledge::pattern_store as ps;
use ets::store::{Store, Value};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Sort {
    /// P(i|p), highest first.
    P,
    /// n_played, highest first.
    Played,
    /// n_match, highest first.
    Match,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Movers {
    Black,
    White,
    Both,
}

#[derive(Subcommand)]
pub enum PatternsCmd {
    /// Patterns by P(i|p), n_played or n_match.
    List {
        /// The store.
        #[arg(long)]
        store: String,
        /// Only patterns with k important facts.
        #[arg(long)]
        k: Option<u32>,
        /// Only patterns played at least this often.
        #[arg(long, default_value_t = 1)]
        min_played: u64,
        /// Only the patterns the pruning rules keep.
        #[arg(long)]
        kept: bool,
        /// Order.
        #[arg(long, value_enum, default_value_t = Sort::Played)]
        sort: Sort,
        /// How many.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// The patterns matching at a point of a position (k = 1, 2, … along the tree).
    Query {
        /// The store.
        #[arg(long)]
        store: String,
        /// An SGF file.
        file: PathBuf,
        /// Which game of a collection (1-based).
        #[arg(long, default_value_t = 1)]
        game: usize,
        /// The position after N moves (default: the last).
        #[arg(long = "move")]
        mv: Option<usize>,
        /// The point (GTP name; default: the move played next).
        #[arg(long)]
        point: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// One pattern: its diagram, counts, P(i|p), confidence.
    Show {
        /// The pattern id.
        id: u32,
        /// The store.
        #[arg(long)]
        store: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// A pattern as a class of the class language (over the Go level-0 setting), which `ets
    /// check` accepts and `ets classify --setting` recognizes where the pattern's region reads.
    Export {
        /// The pattern id.
        id: u32,
        /// The store.
        #[arg(long)]
        store: String,
        /// The player to move whose pattern it is (own stones of this colour).
        #[arg(long, value_enum, default_value_t = Movers::Both)]
        color: Movers,
        /// The file the class imports for the Go level-0 classes (default: the repository's
        /// `grammars/go/level0.ets`, relative to the output file when it can be found).
        #[arg(long)]
        import: Option<String>,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

#[derive(Args)]
pub struct PatternsArgs {
    #[command(subcommand)]
    pub cmd: PatternsCmd,
}

fn open(path: &str) -> miette::Result<Store> {
    if !path.contains("://") && !std::path::Path::new(path.trim_start_matches("sqlite:")).exists() {
        return Err(miette::miette!("{path}: no such store"));
    }
    let mut s = Store::open(path).map_err(|e| miette::miette!("{e}"))?;
    if ps::settings(&mut s).map_err(|e| miette::miette!("{e}"))?.is_none() {
        return Err(miette::miette!("{path} holds no Forme_K patterns (run `ets learn`)"));
    }
    Ok(s)
}

#[derive(Serialize)]
struct Row {
    id: u32,
    k: u32,
    n_played: u64,
    n_match: u64,
    p: f64,
    kept: bool,
}

fn prune_of(store: &mut Store) -> miette::Result<Prune> {
    Ok(ps::settings(store)
        .map_err(|e| miette::miette!("{e}"))?
        .map(|s| s.prune)
        .unwrap_or_default())
}

fn row(id: u32, k: u32, s: Stats, prune: &Prune) -> Row {
    Row {
        id,
        k,
        n_played: s.n_played,
        n_match: s.n_match,
        p: s.p(),
        kept: prune.keeps(s),
    }
}

fn print_rows(rows: &[Row]) {
    println!(
        "{:>9} {:>3} {:>10} {:>11} {:>8}  kept",
        "pattern", "k", "n_played", "n_match", "P(i|p)"
    );
    for r in rows {
        println!(
            "{:>9} {:>3} {:>10} {:>11} {:>8.4}  {}",
            r.id,
            r.k,
            r.n_played,
            r.n_match,
            r.p,
            if r.kept { "yes" } else { "no" }
        );
    }
}

/// The pattern's diagram: `*` the centre, `X` own stone, `O` opponent stone, `.` empty, `#`
/// beyond a known edge, blank where the pattern says nothing.
pub fn diagram(tree: &Tree, id: u32) -> String {
    let r = region(tree, id);
    let pts: Vec<(i32, i32)> = r.vertices.iter().map(|v| v.0).chain(r.edges.iter().copied()).collect();
    let (x0, x1) = (
        pts.iter().map(|p| p.0).min().unwrap_or(0),
        pts.iter().map(|p| p.0).max().unwrap_or(0),
    );
    let (y0, y1) = (
        pts.iter().map(|p| p.1).min().unwrap_or(0),
        pts.iter().map(|p| p.1).max().unwrap_or(0),
    );
    let beyond = |x: i32, y: i32| {
        r.edges
            .iter()
            .any(|&(ex, ey)| (ex < 0 && x <= ex) || (ex > 0 && x >= ex) || (ey < 0 && y <= ey) || (ey > 0 && y >= ey))
    };
    let mut s = String::new();
    for y in y0..=y1 {
        let mut line = String::new();
        for x in x0..=x1 {
            let c = if (x, y) == (0, 0) {
                '*'
            } else if let Some(v) = r.vertices.iter().find(|v| v.0 == (x, y)) {
                match v.1 {
                    Content::Empty => '.',
                    Content::Own => 'X',
                    Content::Opp => 'O',
                }
            } else if beyond(x, y) {
                '#'
            } else {
                ' '
            };
            line.push(c);
            line.push(' ');
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

pub fn patterns_cmd(a: PatternsArgs) -> miette::Result<ExitCode> {
    let e = |e: ets::store::StoreError| miette::miette!("{e}");
    match a.cmd {
        PatternsCmd::List {
            store,
            k,
            min_played,
            kept,
            sort,
            limit,
            format,
        } => {
            let mut s = open(&store)?;
            let prune = prune_of(&mut s)?;
            let order = match sort {
                Sort::P => "CAST(n_played AS REAL) / n_match DESC, n_played DESC",
                Sort::Played => "n_played DESC, n_match",
                Sort::Match => "n_match DESC",
            };
            let from = if kept { "fk_kept" } else { "fk_pattern_p" };
            let sql = format!(
                "SELECT id, k, n_played, n_match FROM {from} WHERE n_match > 0 AND n_played >= ?1 AND (?2 < 0 OR k = ?2) \
                 ORDER BY {order}, id LIMIT ?3"
            );
            let rows = s
                .rows(
                    &sql,
                    &[
                        (min_played as i64).into(),
                        k.map_or(-1, |k| k as i64).into(),
                        (limit as i64).into(),
                    ],
                )
                .map_err(e)?;
            let g = |r: &[Value], i: usize| r[i].as_i64().unwrap_or(0);
            let out: Vec<Row> = rows
                .iter()
                .map(|r| {
                    row(
                        g(r, 0) as u32,
                        g(r, 1) as u32,
                        Stats {
                            n_played: g(r, 2) as u64,
                            n_match: g(r, 3) as u64,
                        },
                        &prune,
                    )
                })
                .collect();
            match format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&out).expect("serialisable")),
                Format::Text => print_rows(&out),
            }
        }
        PatternsCmd::Show { id, store, format } => {
            let mut s = open(&store)?;
            let prune = prune_of(&mut s)?;
            let (tree, stats) = ps::load(&mut s).map_err(e)?;
            if id == 0 || id as usize >= tree.len() {
                return Err(miette::miette!(
                    "{store} has no pattern {id} (patterns are 1 to {})",
                    tree.len() - 1
                ));
            }
            let n = tree.node(id);
            let st = stats[id as usize];
            let r = row(id, n.k as u32, st, &prune);
            let children = (1..tree.len() as u32).filter(|&c| tree.node(c).parent == id).count();
            #[derive(Serialize)]
            struct Show {
                #[serde(flatten)]
                row: Row,
                s: f64,
                parent: u32,
                children: usize,
                diagram: String,
            }
            let show = Show {
                row: r,
                s: st.s(),
                parent: n.parent,
                children,
                diagram: diagram(&tree, id),
            };
            match format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&show).expect("serialisable")),
                Format::Text => {
                    println!(
                        "pattern {id}: k = {} important facts (parent {}, {} children)",
                        n.k, n.parent, children
                    );
                    print!("{}", show.diagram);
                    println!("(* the advised move, X the player to move, O the opponent, # beyond an edge)");
                    println!(
                        "n_played {}, n_match {}, P(i|p) = {:.4}, s(i|p) = {:.4}; {}",
                        st.n_played,
                        st.n_match,
                        st.p(),
                        st.s(),
                        if show.row.kept {
                            "kept by the pruning rules"
                        } else {
                            "pruned by the pruning rules"
                        }
                    );
                }
            }
        }
        PatternsCmd::Query {
            store,
            file,
            game,
            mv,
            point,
            format,
        } => {
            let mut s = open(&store)?;
            let prune = prune_of(&mut s)?;
            let settings = ps::settings(&mut s).map_err(e)?.expect("checked by open");
            let (tree, stats) = ps::load(&mut s).map_err(e)?;
            let sel = super::go_cmds::GameSel {
                game: Some(game),
                ..Default::default()
            };
            let (_, replay) = super::go_cmds::load(&file, &sel)?;
            let n = mv.unwrap_or(replay.len());
            if n > replay.len() {
                return Err(miette::miette!(
                    "{}: the game has {} moves",
                    file.display(),
                    replay.len()
                ));
            }
            let board = &replay.positions[n];
            let mover = replay.moves.get(n).map(|m| m.color).unwrap_or(replay.to_move[n]);
            let p: Point = match point {
                Some(t) => Point::from_gtp(&t, board.rows())
                    .filter(|&p| board.contains(p))
                    .ok_or_else(|| miette::miette!("`{t}` is not a point of this board"))?,
                None => replay
                    .moves
                    .get(n)
                    .and_then(|m| m.point)
                    .ok_or_else(|| miette::miette!("no move follows position {n}; name a --point"))?,
            };
            if board.get(p) != ets::go::board::Cell::Empty {
                return Err(miette::miette!("{} is occupied", p.gtp(board.rows())));
            }
            let grid = Grid::new(board, mover);
            let deepest = tree.deepest(&mut Walk::new(&grid, p.col as i32, p.row as i32), settings.kmax);
            let rows: Vec<Row> = tree
                .path(deepest)
                .into_iter()
                .map(|id| row(id, tree.node(id).k as u32, stats[id as usize], &prune))
                .collect();
            match format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&rows).expect("serialisable")),
                Format::Text => {
                    println!(
                        "{} after move {n}, {} to play at {}: {} pattern(s) match",
                        file.display(),
                        if mover == Color::Black { "Black" } else { "White" },
                        p.gtp(board.rows()),
                        rows.len()
                    );
                    print_rows(&rows);
                }
            }
        }
        PatternsCmd::Export {
            id,
            store,
            color,
            import,
            output,
        } => {
            let mut s = open(&store)?;
            let (tree, stats) = ps::load(&mut s).map_err(e)?;
            if id == 0 || id as usize >= tree.len() {
                return Err(miette::miette!("{store} has no pattern {id}"));
            }
            let import = match import {
                Some(i) => i,
                None => default_import(output.as_deref()),
            };
            let movers = match color {
                Movers::Black => vec![Color::Black],
                Movers::White => vec![Color::White],
                Movers::Both => vec![Color::Black, Color::White],
            };
            let st = stats[id as usize];
            let note = format!(
                "n_played {}, n_match {}, P(i|p) {:.4}, from {store}",
                st.n_played,
                st.n_match,
                st.p()
            );
            let text = class_text(&tree, id, &import, &movers, &note);
            match output {
                Some(p) => std::fs::write(&p, text).map_err(|e| miette::miette!("{}: {e}", p.display()))?,
                None => print!("{text}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `grammars/go/level0.ets` of the working directory's repository, relative to the output
/// file's folder when both are known.
fn default_import(out: Option<&std::path::Path>) -> String {
    let target = std::env::current_dir().map(|d| d.join("grammars/go/level0.ets")).ok();
    match (target.filter(|t| t.exists()), out) {
        (Some(t), Some(o)) => {
            let dir = std::path::absolute(o)
                .ok()
                .and_then(|a| a.parent().map(|p| p.to_path_buf()))
                .unwrap_or_default();
            relative(&dir, &t).unwrap_or(t).display().to_string()
        }
        (Some(t), None) => t.display().to_string(),
        _ => "grammars/go/level0.ets".into(),
    }
}

fn relative(from: &std::path::Path, to: &std::path::Path) -> Option<PathBuf> {
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut p = PathBuf::new();
    for _ in common..f.len() {
        p.push("..");
    }
    for c in &t[common..] {
        p.push(c);
    }
    Some(p)
}
