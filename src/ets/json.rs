//! The JSON format of structs (`docs/formats.md`, `ets-struct/1`), at level 0 and at level n.
//!
//! Level 0 (§3.3.2): the alphabet, the primitives by identity and kind name, the processes by
//! identities and site names. A concrete primitive's identity (the thesis's subscript in π_{2a},
//! §3.3.1) is written as a number or as a name: a named primitive's id is a fixed function of its
//! name ([`name_id`]), so that the same name in two files denotes the same event (assembly joins
//! on it) and reading a file back gives the same ids. Level n (§3.4.2): level-(n−1) elements as
//! nodes, typed by their class, and class element links labelled by level-(n−1) constraints; the
//! classes and constraints are a setting's.
//!
//! Reading validates everything and reports typed errors naming the primitives (or nodes)
//! involved. An alphabet given by the reader (a setting's) is matched by name: the file may list
//! primal classes and primitives in any order, and only those it uses (each must equal the
//! setting's declaration). A struct read back is labelled-equal to the one written.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use thiserror::Error;

use super::error::StructError;
use super::generation::Workspace;
use super::level::LevelStruct;
use super::matching::{Host, LinkLabel};
use super::primitive::Alphabet;
use super::setting::{ClassId, Setting};
use super::structs::{NodeId, Struct};

/// The format tag written into every struct file.
pub const STRUCT_FORMAT: &str = "ets-struct/1";

/// A primitive's (or a level-n node's) identity as written: a number or a name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Ident {
    /// A numeric id.
    Id(u64),
    /// A name.
    Name(String),
}

impl std::fmt::Display for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ident::Id(n) => write!(f, "{n}"),
            Ident::Name(s) => write!(f, "`{s}`"),
        }
    }
}

impl Ident {
    /// The numeric id it stands for.
    pub fn id(&self) -> u64 {
        match self {
            Ident::Id(n) => *n,
            Ident::Name(s) => name_id(s),
        }
    }
    /// As text without quotes (for outputs that list identities as strings).
    pub fn text(&self) -> String {
        match self {
            Ident::Id(n) => n.to_string(),
            Ident::Name(s) => s.clone(),
        }
    }
}

/// The id of a named concrete primitive: FNV-1a (64 bits) of its UTF-8 bytes with the top bit
/// set. Numeric ids a file writes are usually small; one that collides with a name's id is
/// reported as an id used twice.
pub fn name_id(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h | (1 << 63)
}

/// The names of named primitives, by id.
pub type Names = BTreeMap<u64, String>;

/// The identity to write for id `id`.
pub fn ident_of(names: &Names, id: u64) -> Ident {
    match names.get(&id) {
        Some(n) => Ident::Name(n.clone()),
        None => Ident::Id(id),
    }
}

#[derive(Serialize, Deserialize)]
struct StructJson {
    format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    alphabet: Option<Alphabet>,
    primitives: Vec<PrimJson>,
    processes: Vec<ProcJson>,
}

#[derive(Serialize, Deserialize)]
struct PrimJson {
    id: Ident,
    kind: String,
}

#[derive(Serialize, Deserialize)]
struct ProcJson {
    from: Ident,
    from_site: String,
    to: Ident,
    to_site: String,
}

#[derive(Serialize, Deserialize)]
struct LevelJson {
    format: String,
    level: u32,
    nodes: Vec<NodeJson>,
    links: Vec<LinkJson>,
}

#[derive(Serialize, Deserialize)]
struct NodeJson {
    id: Ident,
    class: String,
}

#[derive(Serialize, Deserialize)]
struct LinkJson {
    constraint: String,
    members: Vec<Ident>,
}

#[derive(Deserialize)]
struct Head {
    format: String,
    #[serde(default)]
    level: u32,
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
    /// The file's alphabet does not agree with the one the struct must be over.
    #[error("the file's alphabet does not agree with the setting's: {0}")]
    Alphabet(String),
    /// A level-0 file without an alphabet, read without one.
    #[error("the file has no alphabet (give a setting, or write the alphabet into the file)")]
    NoAlphabet,
    /// A primitive kind that the alphabet does not declare.
    #[error("primitive {id} has unknown kind `{kind}`")]
    UnknownKind {
        /// Primitive id.
        id: Ident,
        /// The kind name.
        kind: String,
    },
    /// Two primitives with one identity.
    #[error("primitive {0} is listed twice")]
    Duplicate(Ident),
    /// Two identities that give one id (a number equal to a name's id).
    #[error("primitives {0} and {1} have the same id {2}")]
    SameId(Ident, Ident, u64),
    /// A process names an id that no primitive has.
    #[error("process names unknown primitive {0}")]
    UnknownId(Ident),
    /// A process names a site the primitive does not have.
    #[error("primitive {id} (a `{kind}`) has no {side} site `{site}`")]
    UnknownSite {
        /// Primitive identity.
        id: Ident,
        /// Its kind.
        kind: String,
        /// "initial" or "terminal".
        side: &'static str,
        /// Site name.
        site: String,
    },
    /// A process that breaks an invariant of structs (site typing, one process per site, time).
    #[error(transparent)]
    Process(Box<ProcessError>),
    /// A level-n node whose class is unknown or of the wrong level.
    #[error("node {id}: {why}")]
    Node {
        /// Node identity.
        id: Ident,
        /// Why.
        why: String,
    },
    /// A level-n link that is malformed.
    #[error("link {index} (on `{constraint}`): {why}")]
    Link {
        /// Its index in `links`.
        index: usize,
        /// Its constraint.
        constraint: String,
        /// Why.
        why: String,
    },
    /// The struct breaks an invariant.
    #[error(transparent)]
    Struct(#[from] StructError),
}

/// A process of a struct file that breaks an invariant of structs.
#[derive(Debug, Error)]
#[error("process {from}.{from_site} -> {to}.{to_site}: {source}")]
pub struct ProcessError {
    /// Source primitive.
    pub from: Ident,
    /// Its terminal site.
    pub from_site: String,
    /// Target primitive.
    pub to: Ident,
    /// Its initial site.
    pub to_site: String,
    /// What breaks.
    pub source: StructError,
}

/// Writes a struct as JSON.
pub fn write_struct(s: &Struct) -> String {
    write_struct_named(s, &Names::new())
}

/// Writes a struct as JSON, named primitives by their names.
pub fn write_struct_named(s: &Struct, names: &Names) -> String {
    let al = s.alphabet();
    let j = StructJson {
        format: STRUCT_FORMAT.into(),
        alphabet: Some((**al).clone()),
        primitives: s
            .topological_order()
            .into_iter()
            .map(|n| PrimJson {
                id: ident_of(names, s.primitive(n).id),
                kind: al.primitive(s.kind_of(n)).name.clone(),
            })
            .collect(),
        processes: s
            .processes()
            .map(|(a, p, b)| ProcJson {
                from: ident_of(names, s.primitive(a).id),
                from_site: al.primitive(s.kind_of(a)).terminals[p.from_site as usize].name.clone(),
                to: ident_of(names, s.primitive(b).id),
                to_site: al.primitive(s.kind_of(b)).initials[p.to_site as usize].name.clone(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&j).expect("serialisable")
}

/// Reads a struct from JSON, checking every invariant. With `alphabet`, the struct is over it and
/// the file's alphabet (if any) must agree with it, in any order.
pub fn read_struct(text: &str, alphabet: Option<Arc<Alphabet>>) -> Result<Struct, JsonError> {
    read_struct_named(text, alphabet).map(|(s, _)| s)
}

/// Whether `part` (a file's alphabet) agrees with `whole`: each primal class and primitive it
/// declares is declared in `whole`, a primitive with the same sites (names and primal classes, in
/// order).
fn agrees(part: &Alphabet, whole: &Alphabet) -> Result<(), String> {
    for p in part.primal_classes() {
        if whole.primal_class(&p.name).is_none() {
            return Err(format!("the setting has no primal class `{}`", p.name));
        }
    }
    let sites = |a: &Alphabet, v: &[super::primitive::Site]| -> String {
        v.iter()
            .map(|s| format!("{}: {}", s.name, a.primal(s.class).name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for p in part.primitives() {
        let Some(k) = whole.kind(&p.name) else {
            return Err(format!("the setting has no primitive `{}`", p.name));
        };
        let q = whole.primitive(k);
        for (side, a, b) in [
            ("initial", &p.initials, &q.initials),
            ("terminal", &p.terminals, &q.terminals),
        ] {
            let (x, y) = (sites(part, a), sites(whole, b));
            if x != y {
                return Err(format!(
                    "primitive `{}` has the {side} sites ({x}) in the file but ({y}) in the setting",
                    p.name
                ));
            }
        }
    }
    Ok(())
}

/// [`read_struct`], with the names of named primitives.
pub fn read_struct_named(text: &str, alphabet: Option<Arc<Alphabet>>) -> Result<(Struct, Names), JsonError> {
    let head: Head = serde_json::from_str(text)?;
    if head.format != STRUCT_FORMAT {
        return Err(JsonError::Format(head.format));
    }
    if head.level != 0 {
        return Err(JsonError::Node {
            id: Ident::Id(0),
            why: format!("this is a level-{} struct; a level-0 struct was expected", head.level),
        });
    }
    let j: StructJson = serde_json::from_str(text)?;
    let al = match (alphabet, j.alphabet) {
        (Some(a), Some(f)) => {
            agrees(&f, &a).map_err(JsonError::Alphabet)?;
            a
        }
        (Some(a), None) => a,
        (None, Some(f)) => Arc::new(f),
        (None, None) => return Err(JsonError::NoAlphabet),
    };
    let mut s = Struct::with_capacity(al.clone(), j.primitives.len(), j.processes.len());
    let mut names = Names::new();
    let mut by_id: HashMap<u64, Ident> = HashMap::with_capacity(j.primitives.len());
    for p in &j.primitives {
        let k = al.kind(&p.kind).ok_or_else(|| JsonError::UnknownKind {
            id: p.id.clone(),
            kind: p.kind.clone(),
        })?;
        let id = p.id.id();
        if let Some(other) = by_id.get(&id) {
            return Err(if *other == p.id {
                JsonError::Duplicate(p.id.clone())
            } else {
                JsonError::SameId(other.clone(), p.id.clone(), id)
            });
        }
        by_id.insert(id, p.id.clone());
        s.add_primitive_with_id(k, id)?;
        if let Ident::Name(n) = &p.id {
            names.insert(id, n.clone());
        }
    }
    for p in &j.processes {
        let node = |x: &Ident| -> Result<NodeId, JsonError> {
            by_id
                .get(&x.id())
                .filter(|i| *i == x)
                .and_then(|_| s.node_of_id(x.id()))
                .ok_or_else(|| JsonError::UnknownId(x.clone()))
        };
        let (a, b) = (node(&p.from)?, node(&p.to)?);
        let (pa, pb) = (al.primitive(s.kind_of(a)), al.primitive(s.kind_of(b)));
        let fs = pa.terminal_index(&p.from_site).ok_or_else(|| JsonError::UnknownSite {
            id: p.from.clone(),
            kind: pa.name.clone(),
            side: "terminal",
            site: p.from_site.clone(),
        })?;
        let ts = pb.initial_index(&p.to_site).ok_or_else(|| JsonError::UnknownSite {
            id: p.to.clone(),
            kind: pb.name.clone(),
            side: "initial",
            site: p.to_site.clone(),
        })?;
        s.connect(a, fs, b, ts).map_err(|e| {
            JsonError::Process(Box::new(ProcessError {
                from: p.from.clone(),
                from_site: p.from_site.clone(),
                to: p.to.clone(),
                to_site: p.to_site.clone(),
                source: e,
            }))
        })?;
    }
    Ok((s, names))
}

/// The level of the struct in a struct file (0 when it does not say).
pub fn struct_level(text: &str) -> Result<u32, JsonError> {
    let head: Head = serde_json::from_str(text)?;
    if head.format != STRUCT_FORMAT {
        return Err(JsonError::Format(head.format));
    }
    Ok(head.level)
}

/// Writes a level-n struct (n ≥ 1) of `setting` as JSON; node `k` is written with `idents[k]`
/// when given, else with id `k`.
pub fn write_level_struct(ls: &LevelStruct, setting: &Setting, idents: Option<&[Ident]>) -> String {
    let ident = |k: NodeId| match idents {
        Some(v) => v[k as usize].clone(),
        None => Ident::Id(u64::from(k)),
    };
    let j = LevelJson {
        format: STRUCT_FORMAT.into(),
        level: ls.level,
        nodes: (0..ls.len() as NodeId)
            .map(|k| NodeJson {
                id: ident(k),
                class: setting.class(ClassId(ls.node_kind(k))).name.clone(),
            })
            .collect(),
        links: ls
            .links()
            .iter()
            .map(|l| LinkJson {
                constraint: setting.constraint(l.constraint).name.clone(),
                members: l.members.iter().map(|&m| ident(m)).collect(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&j).expect("serialisable")
}

/// Reads a level-n struct (n ≥ 1) over `setting`'s classes: its nodes must be elements of
/// level-(n−1) classes and its links on level-(n−1) constraints, with at least two distinct known
/// members. Returns the struct (node `k` is the file's `k`-th node) and the nodes' identities.
pub fn read_level_struct(text: &str, setting: &Setting) -> Result<(LevelStruct, Vec<Ident>), JsonError> {
    let j: LevelJson = serde_json::from_str(text)?;
    if j.format != STRUCT_FORMAT {
        return Err(JsonError::Format(j.format));
    }
    let n = j.level;
    if n == 0 {
        return Err(JsonError::Node {
            id: Ident::Id(0),
            why: "a level-0 struct lists primitives and processes, not nodes and links".into(),
        });
    }
    let mut ls = LevelStruct::new(n, setting.classes().len());
    let mut index: HashMap<Ident, NodeId> = HashMap::new();
    let mut idents = Vec::with_capacity(j.nodes.len());
    for node in &j.nodes {
        let class = setting.class_id(&node.class).ok_or_else(|| JsonError::Node {
            id: node.id.clone(),
            why: format!("the setting has no class `{}`", node.class),
        })?;
        let l = setting.class(class).level;
        if l + 1 != n {
            return Err(JsonError::Node {
                id: node.id.clone(),
                why: format!(
                    "`{}` is a class of level {l}; the nodes of a level-{n} struct are elements of level-{} classes",
                    node.class,
                    n - 1
                ),
            });
        }
        if index.contains_key(&node.id) {
            return Err(JsonError::Duplicate(node.id.clone()));
        }
        let k = ls.add_node(class.0).map_err(|why| JsonError::Node {
            id: node.id.clone(),
            why,
        })?;
        index.insert(node.id.clone(), k);
        idents.push(node.id.clone());
    }
    for (i, l) in j.links.iter().enumerate() {
        let bad = |why: String| JsonError::Link {
            index: i,
            constraint: l.constraint.clone(),
            why,
        };
        let c = setting
            .constraint_id(&l.constraint)
            .ok_or_else(|| bad("the setting has no such constraint".into()))?;
        let cl = setting.constraint(c).level;
        if cl + 1 != n {
            return Err(bad(format!(
                "it is a constraint of level {cl}; the links of a level-{n} struct are on level-{} constraints",
                n - 1
            )));
        }
        let mut ends: Vec<(NodeId, u8)> = Vec::new();
        for m in &l.members {
            let k = *index.get(m).ok_or_else(|| bad(format!("it names unknown node {m}")))?;
            if ends.iter().any(|e| e.0 == k) {
                return Err(bad(format!("it names node {m} twice")));
            }
            ends.push((k, 0));
        }
        if ends.len() < 2 {
            return Err(bad("a class element link joins at least two elements".into()));
        }
        ls.add_link(LinkLabel::Cel(c), &ends).map_err(bad)?;
    }
    Ok((ls, idents))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_have_stable_ids_apart_from_small_numbers() {
        assert_eq!(name_id("jim"), name_id("jim"));
        assert_ne!(name_id("jim"), name_id("bob"));
        assert!(name_id("") >= 1 << 63);
    }
}
