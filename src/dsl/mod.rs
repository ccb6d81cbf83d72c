//! The class language: primal classes, primitives, constraints of any level and classes written as
//! text (`grammars/ets.ebnf`), read with their imports ([`load`](mod@load)), parsed with nom ([`parser`]),
//! printed canonically ([`printer`]), compiled to an engine [`crate::ets::Setting`] ([`compile`](mod@compile))
//! and checked for what is well typed but meaningless ([`check`]). Reference: `docs/dsl.md`.

pub mod ast;
pub mod check;
pub mod compile;
pub mod error;
pub mod load;
pub mod parser;
pub mod printer;

pub use compile::{Origins, compile};
pub use error::{DslError, ErrorKind, Severity};
pub use load::{FsResolver, MemResolver, Program, Resolver, SourceFile, Sources, load};

use std::path::PathBuf;

/// Reads, parses and compiles `files` (and what they import) from the file system.
pub fn load_setting(files: &[PathBuf]) -> (Sources, Result<(crate::ets::Setting, Origins), Vec<DslError>>) {
    load_setting_with(files, &FsResolver)
}

/// [`load_setting`] through any resolver.
pub fn load_setting_with(
    files: &[PathBuf],
    resolver: &dyn Resolver,
) -> (Sources, Result<(crate::ets::Setting, Origins), Vec<DslError>>) {
    let (sources, program) = load(files, resolver);
    match program {
        Ok(p) => {
            let r = compile(&p);
            (sources, r)
        }
        Err(e) => (sources, Err(e)),
    }
}
