//! Command-line interface (clap). Errors are rendered here, at the edge, with miette: file,
//! line, column and the source line with a caret.

mod classify_cmd;
mod dot_cmd;
pub(crate) mod dsl_cmds;
mod go_cmds;
mod struct_cmds;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ets",
    version,
    about = "The Evolving Transformation System (ETS): classes of structural processes for any domain, with Go as a \
             front-end",
    long_about = "ets is a framework for structural representation in the Evolving Transformation System (ETS) \
                  formalism (J. I. Scrimger, 2007, ch. 3): primitives with typed sites, structs as temporal DAGs, \
                  classes written in a text language (docs/dsl.md), generated and recognised at every level, \
                  overlapping on shared constraints. The first commands work for any domain: a setting of classes \
                  (.ets files) and structs (JSON, docs/formats.md). Go (the board game) is its front-end: game \
                  records become structs, classified by the same engine into stone, block and group classes.",
    after_help = "Any domain: check, fmt, generate, recognize, struct, dot --struct.\nGo front-end: classify, \
                  board, replay, bench, dot GAME.sgf."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Go: the position after N moves of a game record (default: the end of the main line).
    #[command(display_order = 14)]
    Board(go_cmds::BoardArgs),
    /// Go: replay a game record into the thesis's struct; a directory replays every game in it.
    #[command(display_order = 15)]
    Replay(go_cmds::ReplayArgs),
    /// Go: parse, replay and record throughput over a corpus, beside the sgf-parse crate.
    #[command(display_order = 16)]
    Bench(go_cmds::BenchArgs),
    /// Go: classify a game record into the Go setting's classes, level by level.
    #[command(display_order = 13)]
    Classify(classify_cmd::ClassifyArgs),
    /// Pictures: an overlap graph (default), a struct, or a board with elements outlined; DOT, SVG or PNG.
    #[command(display_order = 8)]
    Dot(dot_cmd::DotArgs),
    /// Check class-language files: a summary, or every diagnostic (exit 1).
    #[command(display_order = 1)]
    Check(dsl_cmds::CheckArgs),
    /// Format class-language files canonically, in place (`--check` only reports).
    #[command(display_order = 2)]
    Fmt(dsl_cmds::FmtArgs),
    /// Generate one element of a class; prints the struct as JSON.
    #[command(display_order = 3)]
    Generate(dsl_cmds::GenerateArgs),
    /// Recognise the elements of every level in a struct; prints them and their overlaps as JSON.
    #[command(display_order = 4)]
    Recognize(dsl_cmds::RecognizeArgs),
    /// Operations on structs: assemble, relabel, same (structural identity), canonical.
    #[command(display_order = 5)]
    Struct(struct_cmds::StructArgs),
}

/// Runs the command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Board(a) => go_cmds::board(a),
        Cmd::Replay(a) => go_cmds::replay(a),
        Cmd::Bench(a) => go_cmds::bench(a),
        Cmd::Classify(a) => classify_cmd::run(a),
        Cmd::Dot(a) => dot_cmd::run(a),
        Cmd::Check(a) => dsl_cmds::check(a),
        Cmd::Fmt(a) => dsl_cmds::fmt(a),
        Cmd::Generate(a) => dsl_cmds::generate_cmd(a),
        Cmd::Recognize(a) => dsl_cmds::recognize_cmd(a),
        Cmd::Struct(a) => struct_cmds::run(a),
    };
    match r {
        Ok(code) => code,
        Err(report) => {
            eprintln!("{report:?}");
            ExitCode::from(1)
        }
    }
}

/// Renders a located error as a miette report over the named source.
pub fn located(file: &str, src: &[u8], offset: usize, msg: String, label: &str) -> miette::Report {
    let text = String::from_utf8_lossy(src).into_owned();
    let (line, col) = ets::go::sgf::line_col(src, offset);
    let offset = String::from_utf8_lossy(&src[..offset.min(src.len())]).len();
    miette::miette!(
        labels = vec![miette::LabeledSpan::at_offset(offset, label.to_string())],
        "{file}:{line}:{col}: {msg}"
    )
    .with_source_code(miette::NamedSource::new(file, text))
}
