//! The `ets` command: the class language, SGF replay and recording, classification, pictures.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
