//! Command-line interface (clap). Errors are rendered here, at the edge, with miette: file,
//! line, column and the source line with a caret.

mod academy_cmd;
mod classify_cmd;
mod dot_cmd;
pub(crate) mod dsl_cmds;
pub(crate) mod evolve_cmd;
mod go_cmds;
mod info_cmd;
pub(crate) mod input;
mod knowledge_cmds;
mod patterns_cmd;
mod player_cmds;
mod predict_cmds;
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
    after_help = "Any domain: check, fmt, generate, recognize, struct, evolve, dot --struct.\nGo front-end: classify, \
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
    /// Go: what each game of SGF files or directories holds: players, result, size, moves,
    /// variations, charset, warnings.
    #[command(display_order = 12)]
    Info(info_cmd::InfoArgs),
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
    /// Go: an engine speaking GTP version 2 on standard input and output.
    #[command(display_order = 17)]
    Gtp(player_cmds::GtpArgs),
    /// Go: matches between GTP engines (ets, GNU Go, any command): SGF per game, results in a store,
    /// ratings with intervals.
    #[command(display_order = 18)]
    Arena(player_cmds::ArenaArgs),
    /// Go knowledge: learn Forme_K patterns (and the move-prediction model) from game collections into a store.
    #[command(display_order = 19)]
    Learn(knowledge_cmds::LearnArgs),
    /// Go knowledge: stores: what one holds; merging the stores of shards.
    #[command(display_order = 20)]
    Store(knowledge_cmds::StoreArgs),
    /// Go knowledge: the ACADEMY, a pattern database that competing players share: post, show, query, stats,
    /// export, learn from collections.
    #[command(display_order = 24)]
    Academy(academy_cmd::AcademyArgs),
    /// Go knowledge: evaluate a position by Gomi's sample games: P(black wins), ownership map, dead stones.
    #[command(display_order = 25)]
    Evaluate(academy_cmd::EvaluateArgs),
    /// Go knowledge: Forme_K patterns of a store: list, query at a point, show one, export one as a class.
    #[command(display_order = 21)]
    Patterns(patterns_cmd::PatternsArgs),
    /// Go knowledge: the moves a learned model expects at a position, ranked, with their reasons.
    #[command(display_order = 22)]
    Predict(predict_cmds::PredictArgs),
    /// Go knowledge: measurements against data and peers (`ets eval predict`: move prediction beside GNU Go).
    #[command(display_order = 23)]
    Eval(predict_cmds::EvalArgs),
    /// Operations on structs: assemble, relabel, same (structural identity), canonical.
    #[command(display_order = 5)]
    Struct(struct_cmds::StructArgs),
    /// Feed steps of any domain into a timeline: every element of every level with its life
    /// (born, completed, merged, ended), as JSON or text.
    #[command(display_order = 6)]
    Evolve(evolve_cmd::EvolveArgs),
}

/// How a command uses memory (the binary sets the allocator's parameters from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// One record classified (its tables grow for as long as the command runs).
    OneRecord,
    /// Many records, games or requests in one process.
    Many,
}

impl Workload {
    fn of(cmd: &Cmd) -> Workload {
        match cmd {
            Cmd::Classify(_) | Cmd::Dot(_) => Workload::OneRecord,
            Cmd::Bench(a) if a.classify.is_some() => Workload::OneRecord,
            _ => Workload::Many,
        }
    }
}

/// Runs the command line; `tune` is called with the command's [`Workload`] once the arguments
/// are read, before any thread is started.
pub fn main(tune: fn(Workload)) -> ExitCode {
    // One message per error, on as many columns as it takes (not wrapped at 80), so that tools
    // and tests can read it.
    let _ = miette::set_hook(Box::new(|_| {
        Box::new(miette::MietteHandlerOpts::new().wrap_lines(false).build())
    }));
    let cli = Cli::parse();
    tune(Workload::of(&cli.cmd));
    let r = match cli.cmd {
        Cmd::Board(a) => go_cmds::board(a),
        Cmd::Info(a) => info_cmd::run(a),
        Cmd::Replay(a) => go_cmds::replay(a),
        Cmd::Bench(a) => go_cmds::bench(a),
        Cmd::Classify(a) => classify_cmd::run(a),
        Cmd::Dot(a) => dot_cmd::run(a),
        Cmd::Check(a) => dsl_cmds::check(a),
        Cmd::Fmt(a) => dsl_cmds::fmt(a),
        Cmd::Generate(a) => dsl_cmds::generate_cmd(a),
        Cmd::Recognize(a) => dsl_cmds::recognize_cmd(a),
        Cmd::Gtp(a) => player_cmds::gtp(a),
        Cmd::Arena(a) => player_cmds::arena(a),
        Cmd::Learn(a) => knowledge_cmds::learn_cmd(a),
        Cmd::Store(a) => knowledge_cmds::store_cmd(a),
        Cmd::Academy(a) => academy_cmd::run(a),
        Cmd::Evaluate(a) => academy_cmd::evaluate(a),
        Cmd::Patterns(a) => patterns_cmd::patterns_cmd(a),
        Cmd::Predict(a) => predict_cmds::predict_cmd(a),
        Cmd::Eval(a) => predict_cmds::eval_cmd(a),
        Cmd::Struct(a) => struct_cmds::run(a),
        Cmd::Evolve(a) => evolve_cmd::run(a),
    };
    match r {
        Ok(code) => code,
        Err(report) => {
            eprintln!("{report:?}");
            input::exit_code(&report)
        }
    }
}
