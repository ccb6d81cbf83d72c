//! The `ets` command: the class language, SGF replay and recording, classification, pictures.

mod cli;

fn main() -> std::process::ExitCode {
    // Output piped into a reader that stops early (`ets … | head`) ends the program quietly, as
    // for any command-line tool, instead of a panic on the next print.
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    cli::main()
}
