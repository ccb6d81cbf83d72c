//! Helpers shared by the integration tests that run the `ets` binary as a user does (each test
//! file that needs them says `mod common;`).
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs `ets ARGS…` without colours; the output, whatever the exit status.
pub fn ets(args: &[&str]) -> Output {
    ets_with_env(args, &[])
}

/// Runs `ets ARGS…` without colours and with these environment variables set; the output,
/// whatever the exit status.
pub fn ets_with_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(args)
        .env("NO_COLOR", "1")
        .envs(vars.iter().copied())
        .output()
        .unwrap()
}

/// The stdout of a run that must have succeeded (else its stdout and stderr in the failure).
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}
