//! The JSON format of structs (`docs/formats.md`): the alphabet, the primitives by id and kind
//! name, the processes by ids and site names. Reading validates everything and reports typed
//! errors; a struct read back is labelled-equal to the one written.

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use thiserror::Error;

use super::error::StructError;
use super::primitive::Alphabet;
use super::structs::Struct;

/// The format tag written into every struct file.
pub const STRUCT_FORMAT: &str = "ets-struct/1";

#[derive(Serialize, Deserialize)]
struct StructJson {
    format: String,
    alphabet: Alphabet,
    primitives: Vec<PrimJson>,
    processes: Vec<ProcJson>,
}

#[derive(Serialize, Deserialize)]
struct PrimJson {
    id: u64,
    kind: String,
}

#[derive(Serialize, Deserialize)]
struct ProcJson {
    from: u64,
    from_site: String,
    to: u64,
    to_site: String,
}

/// Errors reading a struct file.
#[derive(Debug, Error)]
pub enum JsonError {
    /// Not JSON of the expected shape (serde's message names line and column).
    #[error("malformed struct JSON: {0}")]
    Syntax(#[from] serde_json::Error),
    /// The format tag is not [`STRUCT_FORMAT`].
    #[error("unsupported format `{0}` (expected `{STRUCT_FORMAT}`)")]
    Format(String),
    /// A primitive kind that the alphabet does not declare.
    #[error("primitive {id} has unknown kind `{kind}`")]
    UnknownKind {
        /// Primitive id.
        id: u64,
        /// The kind name.
        kind: String,
    },
    /// A process names an id that no primitive has.
    #[error("process names unknown primitive id {0}")]
    UnknownId(u64),
    /// A process names a site the primitive does not have.
    #[error("primitive {id} has no {side} site `{site}`")]
    UnknownSite {
        /// Primitive id.
        id: u64,
        /// "initial" or "terminal".
        side: &'static str,
        /// Site name.
        site: String,
    },
    /// The struct breaks an invariant.
    #[error(transparent)]
    Struct(#[from] StructError),
}

/// Writes a struct as JSON.
pub fn write_struct(s: &Struct) -> String {
    let al = s.alphabet();
    let j = StructJson {
        format: STRUCT_FORMAT.into(),
        alphabet: (**al).clone(),
        primitives: s
            .topological_order()
            .into_iter()
            .map(|n| PrimJson {
                id: s.primitive(n).id,
                kind: al.primitive(s.kind_of(n)).name.clone(),
            })
            .collect(),
        processes: s
            .processes()
            .map(|(a, p, b)| ProcJson {
                from: s.primitive(a).id,
                from_site: al.primitive(s.kind_of(a)).terminals[p.from_site as usize].name.clone(),
                to: s.primitive(b).id,
                to_site: al.primitive(s.kind_of(b)).initials[p.to_site as usize].name.clone(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&j).expect("serialisable")
}

/// Reads a struct from JSON, checking every invariant. With `alphabet`, the file's alphabet must
/// equal it and the struct shares it.
pub fn read_struct(text: &str, alphabet: Option<Arc<Alphabet>>) -> Result<Struct, JsonError> {
    let j: StructJson = serde_json::from_str(text)?;
    if j.format != STRUCT_FORMAT {
        return Err(JsonError::Format(j.format));
    }
    let al = match alphabet {
        Some(a) if *a == j.alphabet => a,
        Some(_) => return Err(JsonError::Struct(StructError::AlphabetMismatch)),
        None => Arc::new(j.alphabet),
    };
    let mut s = Struct::with_capacity(al.clone(), j.primitives.len(), j.processes.len());
    for p in &j.primitives {
        let k = al.kind(&p.kind).ok_or_else(|| JsonError::UnknownKind {
            id: p.id,
            kind: p.kind.clone(),
        })?;
        s.add_primitive_with_id(k, p.id)?;
    }
    for p in &j.processes {
        let a = s.node_of_id(p.from).ok_or(JsonError::UnknownId(p.from))?;
        let b = s.node_of_id(p.to).ok_or(JsonError::UnknownId(p.to))?;
        let fs = al
            .primitive(s.kind_of(a))
            .terminal_index(&p.from_site)
            .ok_or_else(|| JsonError::UnknownSite {
                id: p.from,
                side: "terminal",
                site: p.from_site.clone(),
            })?;
        let ts = al
            .primitive(s.kind_of(b))
            .initial_index(&p.to_site)
            .ok_or_else(|| JsonError::UnknownSite {
                id: p.to,
                side: "initial",
                site: p.to_site.clone(),
            })?;
        s.connect(a, fs, b, ts)?;
    }
    Ok(s)
}
