//! The `ets` command: the class language, SGF replay and recording, classification, pictures.
//!
//! Its only `unsafe` blocks are calls into libc (signal dispositions, glibc's allocator
//! parameters, a thread's CPU clock), each with a `// SAFETY:` comment that the lint below asks
//! for (the library's are documented the same way; see ARCHITECTURE.md).

#![deny(clippy::undocumented_unsafe_blocks)]

mod cli;

fn main() -> std::process::ExitCode {
    // Output piped into a reader that stops early (`ets … | head`) ends the program quietly, as
    // for any command-line tool, instead of a panic on the next print.
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    cli::main(tune_allocator)
}

/// glibc's allocator parameters for the command about to run (set once its arguments are read,
/// before any thread is started).
///
/// Classifying a record grows large tables (tens of MiB) for as long as it runs. A command that
/// classifies one record (`classify`, `dot`, `bench --classify`, which stands for `classify`)
/// maps every block of 1 MiB or more on its own: such a table then grows by `mremap`, without
/// copying it and without holding the old and the new copy at once, and nothing is left as a hole
/// in the heap. For the 301-move game of docs/performance.md that is 10–20% less peak memory and
/// about 6% less wall time (the same CPU time) than keeping them in the heap.
///
/// A command that goes through many records in one process (a corpus, a collection, a match, a
/// server) would hand each record's tables back to the kernel and fault them in again for the
/// next: about 8,000 page faults and 25–30 ms of kernel time per 19x19 game on the 2-core
/// machine. It keeps freed memory in the process instead: blocks up to 32 MiB come from the heaps,
/// and heaps are not trimmed below 1 GiB.
fn tune_allocator(workload: cli::Workload) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any thread is started.
    unsafe {
        match workload {
            cli::Workload::OneRecord => {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
            }
            cli::Workload::Many => {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
            }
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = workload;
}
