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
    keep_freed_memory();
    cli::main()
}

/// Classifying a game allocates large tables (tens of MiB) and frees them at the end. glibc's
/// allocator would hand them back to the kernel (large blocks are mapped one by one, and a heap's
/// free top is trimmed), so that each further game in the same process (`ets bench`, a corpus)
/// faults all of it in again: about 8,000 page faults and 25–30 ms of kernel time per
/// 19x19 game on the 2-core machine of `docs/performance.md`. Keep freed memory in the process
/// instead: blocks up to 32 MiB come from the heaps, and heaps are not trimmed below 1 GiB.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any thread is started.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}
