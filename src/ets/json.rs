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

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PrimJson {
    id: Ident,
    kind: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// A file of steps whose format tag is neither [`STRUCT_FORMAT`] nor [`TIMELINE_FORMAT`].
    #[error("unsupported format `{0}` (expected `{STRUCT_FORMAT}` for one step or `{TIMELINE_FORMAT}` for several)")]
    StepFormat(String),
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

// ---- Steps of a timeline (`ets evolve`; docs/formats.md, "Steps") ----

/// The format tag of a file holding a whole sequence of steps.
pub const TIMELINE_FORMAT: &str = "ets-timeline/1";

/// One step as written: the primitives it adds (and earlier ones it names), the processes it adds,
/// and the terminal sites it closes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepJson {
    /// Primitives: new ones, and earlier ones named again (same identity, same kind).
    #[serde(default)]
    primitives: Vec<PrimJson>,
    /// Processes; each ends at a primitive new at this step (or is one made earlier, repeated).
    #[serde(default)]
    processes: Vec<ProcJson>,
    /// Terminal sites closed at this step: what they emit ends unobserved.
    #[serde(default)]
    close: Vec<CloseJson>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CloseJson {
    id: Ident,
    site: String,
}

#[derive(Deserialize)]
struct StepFileJson {
    format: String,
    #[serde(default)]
    level: u32,
    #[serde(default)]
    alphabet: Option<Alphabet>,
    #[serde(default)]
    primitives: Vec<PrimJson>,
    #[serde(default)]
    processes: Vec<ProcJson>,
    #[serde(default)]
    close: Vec<CloseJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimelineFileJson {
    format: String,
    #[serde(default)]
    alphabet: Option<Alphabet>,
    steps: Vec<StepJson>,
}

/// Reads the steps of one file over `alphabet`: an `ets-struct/1` file (level 0, with an optional
/// `close` list) is one step; an `ets-timeline/1` file lists steps. A file's alphabet, if any, must
/// agree with `alphabet` (in any order).
pub fn read_steps(text: &str, alphabet: &Alphabet) -> Result<Vec<StepJson>, JsonError> {
    let head: Head = serde_json::from_str(text)?;
    let (al, steps) = match head.format.as_str() {
        STRUCT_FORMAT => {
            let j: StepFileJson = serde_json::from_str(text)?;
            if j.level != 0 {
                return Err(JsonError::Node {
                    id: Ident::Id(0),
                    why: format!(
                        "this is a level-{} struct; a step adds primitives and processes (a level-0 struct)",
                        j.level
                    ),
                });
            }
            let step = StepJson {
                primitives: j.primitives,
                processes: j.processes,
                close: j.close,
            };
            let _ = &j.format;
            (j.alphabet, vec![step])
        }
        TIMELINE_FORMAT => {
            let j: TimelineFileJson = serde_json::from_str(text)?;
            let _ = &j.format;
            (j.alphabet, j.steps)
        }
        other => {
            return Err(JsonError::StepFormat(other.to_string()));
        }
    };
    if let Some(f) = al {
        agrees(&f, alphabet).map_err(JsonError::Alphabet)?;
    }
    Ok(steps)
}

/// A step that cannot be taken, naming the primitives involved.
#[derive(Debug, Error)]
pub enum StepError {
    /// The step's file is wrong as a file.
    #[error(transparent)]
    Json(#[from] JsonError),
    /// A primitive named again with another kind.
    #[error("primitive {id} is a `{was}` (step {step}); it cannot be named again as a `{now}`")]
    KindChanged {
        /// Identity.
        id: Ident,
        /// Its kind.
        was: String,
        /// The kind written now.
        now: String,
        /// The step it was added at.
        step: u32,
    },
    /// A process into an earlier primitive that does not hold it already.
    #[error(
        "process {from}.{from_site} -> {to}.{to_site}: {to} was added at step {step}; a process of a step must end at a primitive of that step (time runs forward)"
    )]
    Backward {
        /// Source.
        from: Ident,
        /// Its terminal site.
        from_site: String,
        /// Target.
        to: Ident,
        /// Its initial site.
        to_site: String,
        /// The step the target was added at.
        step: u32,
    },
    /// A site used twice (by two processes, or a process and a closing), or already used.
    #[error("{side} site `{site}` of primitive {id} is already fed or closed")]
    SiteTaken {
        /// Primitive identity.
        id: Ident,
        /// "initial" or "terminal".
        side: &'static str,
        /// Site name.
        site: String,
    },
    /// The processes among the step's new primitives form a cycle.
    #[error("the processes among the new primitives form a cycle through {0} (time runs forward)")]
    Cycle(Ident),
    /// The timeline refused (a process breaking a struct invariant is reported as [`JsonError::Process`]).
    #[error(transparent)]
    Timeline(#[from] super::timeline::TimelineError),
}

/// Feeds steps into a [`Timeline`](super::timeline::Timeline), identifying primitives across
/// steps by their identity as written (a number or a name): a later step names an earlier
/// primitive to join it, so a step may be a piece of the growing struct or the whole struct so
/// far (what was already there is recognised, not added twice).
#[derive(Debug, Clone, Default)]
pub struct StepFeeder {
    by_id: HashMap<u64, (Ident, NodeId)>,
    idents: Vec<Ident>,
}

impl StepFeeder {
    /// A feeder for an empty timeline.
    pub fn new() -> Self {
        Self::default()
    }

    /// The identity of timeline primitive `n`, as the steps wrote it.
    pub fn ident(&self, n: NodeId) -> &Ident {
        &self.idents[n as usize]
    }

    /// Takes `step` as the timeline's next step: adds its new primitives (in an order that
    /// respects its processes), its new processes, and closes the sites it closes. On an error the
    /// step is not begun, and nothing is changed.
    pub fn feed(&mut self, tl: &mut super::timeline::Timeline, step: &StepJson) -> Result<u32, StepError> {
        let al = tl.setting().alphabet().clone();
        // Identities: earlier primitives named again, and new ones (in file order).
        let mut fresh: Vec<(Ident, super::primitive::PrimitiveKind)> = Vec::new();
        let mut local: HashMap<u64, Ident> = HashMap::new();
        for p in &step.primitives {
            let k = al.kind(&p.kind).ok_or_else(|| JsonError::UnknownKind {
                id: p.id.clone(),
                kind: p.kind.clone(),
            })?;
            let id = p.id.id();
            if let Some(other) = local.get(&id) {
                return Err(if *other == p.id {
                    JsonError::Duplicate(p.id.clone())
                } else {
                    JsonError::SameId(other.clone(), p.id.clone(), id)
                }
                .into());
            }
            local.insert(id, p.id.clone());
            match self.by_id.get(&id) {
                Some((other, _)) if *other != p.id => {
                    return Err(JsonError::SameId(other.clone(), p.id.clone(), id).into());
                }
                Some((_, n)) => {
                    let was = tl.strukt().kind_of(*n);
                    if was != k {
                        return Err(StepError::KindChanged {
                            id: p.id.clone(),
                            was: al.primitive(was).name.clone(),
                            now: p.kind.clone(),
                            step: tl.step_of(*n),
                        });
                    }
                }
                None => fresh.push((p.id.clone(), k)),
            }
        }
        // Resolve every process against earlier primitives and the new ones.
        let fresh_index: HashMap<u64, usize> = fresh.iter().enumerate().map(|(i, (x, _))| (x.id(), i)).collect();
        #[derive(Clone, Copy)]
        enum End {
            Old(NodeId),
            New(usize),
        }
        let end_of = |x: &Ident| -> Result<End, JsonError> {
            if local.get(&x.id()).is_none_or(|i| i != x) {
                // a process may name an earlier primitive the step does not list again
                if let Some((i, n)) = self.by_id.get(&x.id())
                    && i == x
                {
                    return Ok(End::Old(*n));
                }
                return Err(JsonError::UnknownId(x.clone()));
            }
            Ok(match fresh_index.get(&x.id()) {
                Some(&i) => End::New(i),
                None => End::Old(self.by_id[&x.id()].1),
            })
        };
        let kind_of = |e: End| match e {
            End::Old(n) => tl.strukt().kind_of(n),
            End::New(i) => fresh[i].1,
        };
        // (from, from site, to (new), to site, index in the file)
        let mut procs: Vec<(End, usize, usize, usize, usize)> = Vec::new();
        for (pi, p) in step.processes.iter().enumerate() {
            let (a, b) = (end_of(&p.from)?, end_of(&p.to)?);
            let (pa, pb) = (al.primitive(kind_of(a)), al.primitive(kind_of(b)));
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
            match (a, b) {
                (_, End::New(j)) => procs.push((a, fs, j, ts, pi)),
                (End::Old(x), End::Old(y)) => {
                    let already = tl
                        .strukt()
                        .incoming(y)
                        .any(|(m, q)| m == x && usize::from(q.from_site) == fs && usize::from(q.to_site) == ts);
                    if !already {
                        return Err(StepError::Backward {
                            from: p.from.clone(),
                            from_site: p.from_site.clone(),
                            to: p.to.clone(),
                            to_site: p.to_site.clone(),
                            step: tl.step_of(y),
                        });
                    }
                }
                (End::New(_), End::Old(y)) => {
                    return Err(StepError::Backward {
                        from: p.from.clone(),
                        from_site: p.from_site.clone(),
                        to: p.to.clone(),
                        to_site: p.to_site.clone(),
                        step: tl.step_of(y),
                    });
                }
            }
        }
        // The new primitives in a topological order of the step's processes (file order among
        // those that are free).
        let mut indeg = vec![0usize; fresh.len()];
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); fresh.len()];
        for &(a, _, j, _, _) in &procs {
            if let End::New(i) = a {
                indeg[j] += 1;
                out[i].push(j);
            }
        }
        let mut ready: std::collections::BTreeSet<usize> = (0..fresh.len()).filter(|&i| indeg[i] == 0).collect();
        let mut order = Vec::with_capacity(fresh.len());
        while let Some(i) = ready.pop_first() {
            order.push(i);
            for &j in &out[i] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    ready.insert(j);
                }
            }
        }
        if order.len() < fresh.len() {
            let stuck = (0..fresh.len()).find(|&i| indeg[i] > 0).expect("a cycle");
            return Err(StepError::Cycle(fresh[stuck].0.clone()));
        }
        // Closed sites, resolved before anything changes.
        let mut closes = Vec::with_capacity(step.close.len());
        for c in &step.close {
            let e = end_of(&c.id)?;
            let pk = al.primitive(kind_of(e));
            let s = pk.terminal_index(&c.site).ok_or_else(|| JsonError::UnknownSite {
                id: c.id.clone(),
                kind: pk.name.clone(),
                side: "terminal",
                site: c.site.clone(),
            })?;
            closes.push((e, s, c));
        }
        // The struct invariants the timeline would refuse, checked first (so that a refused step
        // leaves the timeline as it was, and the message names the primitives as written): the
        // two sites of a process are typed alike, and every site is used once.
        let ident_of_end = |e: End| match e {
            End::Old(x) => self.idents[x as usize].clone(),
            End::New(i) => fresh[i].0.clone(),
        };
        let mut taken: std::collections::HashSet<(bool, usize, bool, usize)> = std::collections::HashSet::new();
        let key = |e: End| match e {
            End::Old(x) => (false, x as usize),
            End::New(i) => (true, i),
        };
        let free = |e: End, site: usize| match e {
            End::Old(x) => tl.strukt().terminal_open(x, site),
            End::New(_) => true,
        };
        for &(a, fs, j, ts, pi) in &procs {
            let p = &step.processes[pi];
            let (pa, pb) = (al.primitive(kind_of(a)), al.primitive(fresh[j].1));
            let (fc, tc) = (pa.terminals[fs].class, pb.initials[ts].class);
            if fc != tc {
                return Err(JsonError::Process(Box::new(ProcessError {
                    from: p.from.clone(),
                    from_site: p.from_site.clone(),
                    to: p.to.clone(),
                    to_site: p.to_site.clone(),
                    source: StructError::SiteTypeMismatch {
                        from: format!("{}.{}", pa.name, pa.terminals[fs].name),
                        from_class: al.primal(fc).name.clone(),
                        to: format!("{}.{}", pb.name, pb.initials[ts].name),
                        to_class: al.primal(tc).name.clone(),
                    },
                }))
                .into());
            }
            let (ka, ia) = key(a);
            if !free(a, fs) || !taken.insert((ka, ia, true, fs)) {
                return Err(StepError::SiteTaken {
                    id: ident_of_end(a),
                    side: "terminal",
                    site: p.from_site.clone(),
                });
            }
            if !taken.insert((true, j, false, ts)) {
                return Err(StepError::SiteTaken {
                    id: fresh[j].0.clone(),
                    side: "initial",
                    site: p.to_site.clone(),
                });
            }
        }
        for &(e, s, c) in &closes {
            let (ke, ie) = key(e);
            if !free(e, s) || !taken.insert((ke, ie, true, s)) {
                return Err(StepError::SiteTaken {
                    id: c.id.clone(),
                    side: "terminal",
                    site: c.site.clone(),
                });
            }
        }
        // Take the step.
        let t = tl.begin_step()?;
        let mut node_of_new = vec![NodeId::MAX; fresh.len()];
        let mut incoming: Vec<Vec<(End, usize, usize)>> = vec![Vec::new(); fresh.len()];
        for &(a, fs, j, ts, _) in &procs {
            incoming[j].push((a, fs, ts));
        }
        let node = |e: End, node_of_new: &[NodeId]| match e {
            End::Old(x) => x,
            End::New(k) => node_of_new[k],
        };
        let result = (|| -> Result<(), StepError> {
            for &i in &order {
                let n = tl.add(fresh[i].1)?;
                node_of_new[i] = n;
                for &(a, fs, ts) in &incoming[i] {
                    tl.connect(node(a, &node_of_new), fs, n, ts)?;
                }
            }
            for &(e, s, _) in &closes {
                tl.close(node(e, &node_of_new), s)?;
            }
            Ok(())
        })();
        tl.end_step()?;
        result?;
        for &i in &order {
            let n = node_of_new[i] as usize;
            let x = fresh[i].0.clone();
            self.by_id.insert(x.id(), (x.clone(), n as NodeId));
            if self.idents.len() <= n {
                self.idents.resize(n + 1, Ident::Id(0));
            }
            self.idents[n] = x;
        }
        Ok(t)
    }
}
