//! Command-line interface (clap). Errors are rendered here, at the edge, with miette: file,
//! line, column and the source line with a caret.

mod classify_cmd;
mod dot_cmd;
pub(crate) mod dsl_cmds;
mod go_cmds;
mod knowledge_cmds;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ets",
    version,
    about = "Evolving Transformation System: structs, classes, and Go"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The position after N moves of a game record (default: the end of the main line).
    Board(go_cmds::BoardArgs),
    /// Replay a game record into the thesis's struct; a directory replays every game in it.
    Replay(go_cmds::ReplayArgs),
    /// Parse, replay and record throughput over a corpus, beside the sgf-parse crate.
    Bench(go_cmds::BenchArgs),
    /// Classify a game record into the Go setting's classes, level by level.
    Classify(classify_cmd::ClassifyArgs),
    /// Pictures: an overlap graph (default), a struct, or a board with elements outlined; DOT, SVG or PNG.
    Dot(dot_cmd::DotArgs),
    /// Check class-language files: a summary, or every diagnostic (exit 1).
    Check(dsl_cmds::CheckArgs),
    /// Format class-language files canonically, in place (`--check` only reports).
    Fmt(dsl_cmds::FmtArgs),
    /// Generate one element of a class; prints the struct as JSON.
    Generate(dsl_cmds::GenerateArgs),
    /// Recognise the elements of every level in a struct; prints them and their overlaps as JSON.
    Recognize(dsl_cmds::RecognizeArgs),
    /// Learn Forme_K patterns (and the move-prediction model) from game collections into a store.
    Learn(knowledge_cmds::LearnArgs),
    /// Stores: what one holds; merging the stores of shards.
    Store(knowledge_cmds::StoreArgs),
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
        Cmd::Learn(a) => knowledge_cmds::learn_cmd(a),
        Cmd::Store(a) => knowledge_cmds::store_cmd(a),
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
