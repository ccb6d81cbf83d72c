//! Command-line interface (clap). Errors are rendered here, at the edge, with miette: file,
//! line, column and the source line with a caret.

mod go_cmds;

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
}

/// Runs the command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Board(a) => go_cmds::board(a),
        Cmd::Replay(a) => go_cmds::replay(a),
        Cmd::Bench(a) => go_cmds::bench(a),
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
