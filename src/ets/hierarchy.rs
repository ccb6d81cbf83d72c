//! Multilevel recognition: level 0 in a struct, then level n in the level-n struct built from
//! the level-(n−1) elements, for every level of the setting (§3.4.2: "level n classes have n
//! lower levels and are composed out of level n − 1 class elements").

use serde::Serialize;

use super::element::Element;
use super::level::{LevelStruct, OverlapGraph};
use super::recognition::shared;
use super::setting::Setting;
use super::structs::Struct;
use super::timeline::of_struct;
use super::timeline::view::Snapshot;

/// The elements of one level and the structure built on them.
#[derive(Debug, Clone)]
pub struct LevelResult {
    /// The level.
    pub level: u32,
    /// Its elements, grouped by class in declaration order.
    pub elements: Vec<Element>,
    /// The level-(n+1) struct whose nodes are these elements (and whose links are their overlaps).
    pub above: LevelStruct,
}

impl LevelResult {
    /// The overlap graph of this level's elements.
    pub fn overlaps(&self) -> OverlapGraph {
        OverlapGraph::of(&self.above)
    }
}

/// The elements of every level of a setting in a struct.
#[derive(Debug, Clone)]
pub struct Hierarchy {
    /// Level 0 first.
    pub levels: Vec<LevelResult>,
}

/// Recognises every class of every level up to `max_level` (default: the setting's highest).
/// Elements still in formation (whose schedule could not end where the derivation stopped) are
/// left out; [`recognize_all_with`] keeps them.
pub fn recognize_all(setting: &Setting, s: &Struct, max_level: Option<u32>) -> Hierarchy {
    recognize_all_with(setting, s, max_level, false)
}

/// [`recognize_all`], keeping elements in formation when `forming` is set. The struct is taken as
/// one step of a timeline (its primitives in a topological order); level-0 node ids are the
/// struct's.
pub fn recognize_all_with(setting: &Setting, s: &Struct, max_level: Option<u32>, forming: bool) -> Hierarchy {
    let (tl, order) =
        of_struct(shared(setting), s, max_level).expect("a struct's primitives in a topological order feed a timeline");
    let mut snap = Snapshot::at(&tl, 0, forming);
    if let Some(l0) = snap.hierarchy.levels.first_mut() {
        for e in &mut l0.elements {
            for x in e.nodes.iter_mut() {
                *x = order[*x as usize];
            }
            e.nodes.sort_unstable();
            for a in e.applications.iter_mut() {
                for x in a.nodes.iter_mut() {
                    *x = order[*x as usize];
                }
            }
            if e.applications.len() > 1 {
                e.applications[1..].sort();
            }
        }
        l0.above = LevelStruct::from_elements(setting, 1, &l0.elements);
    }
    snap.hierarchy
}

/// A serialisable view of a hierarchy, with names instead of ids (the JSON of
/// `docs/formats.md`).
#[derive(Debug, Clone, Serialize)]
pub struct HierarchyJson {
    /// One entry per level.
    pub levels: Vec<LevelJson>,
}

/// One level of [`HierarchyJson`].
#[derive(Debug, Clone, Serialize)]
pub struct LevelJson {
    /// The level.
    pub level: u32,
    /// The elements.
    pub elements: Vec<ElementJson>,
    /// The overlaps between them.
    pub overlaps: Vec<OverlapJson>,
}

/// One element of [`LevelJson`].
#[derive(Debug, Clone, Serialize)]
pub struct ElementJson {
    /// `L{level}:{index}`.
    pub id: String,
    /// Class name.
    pub class: String,
    /// The nodes: primitive ids at level 0, element ids of the level below at level n.
    pub nodes: Vec<String>,
    /// The applications.
    pub applications: Vec<ApplicationJson>,
    /// Whether the schedule may end here.
    pub complete: bool,
}

/// One application.
#[derive(Debug, Clone, Serialize)]
pub struct ApplicationJson {
    /// Constraint name.
    pub constraint: String,
    /// Bound nodes, in variable order.
    pub nodes: Vec<String>,
}

/// One overlap edge.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapJson {
    /// First element id.
    pub a: String,
    /// Second element id.
    pub b: String,
    /// The constraints they overlap on.
    pub constraints: Vec<String>,
}

impl HierarchyJson {
    /// Names everything in `h`.
    pub fn new(setting: &Setting, s: &Struct, h: &Hierarchy) -> Self {
        let node_name = |level: u32, n: u32| -> String {
            if level == 0 {
                s.primitive(n).id.to_string()
            } else {
                format!("L{}:{}", level - 1, n)
            }
        };
        HierarchyJson {
            levels: h
                .levels
                .iter()
                .map(|l| LevelJson {
                    level: l.level,
                    elements: l
                        .elements
                        .iter()
                        .enumerate()
                        .map(|(i, e)| ElementJson {
                            id: format!("L{}:{}", l.level, i),
                            class: setting.class(e.class).name.clone(),
                            nodes: e.nodes.iter().map(|&n| node_name(l.level, n)).collect(),
                            applications: e
                                .applications
                                .iter()
                                .map(|a| ApplicationJson {
                                    constraint: setting.constraint(a.constraint).name.clone(),
                                    nodes: a.nodes.iter().map(|&n| node_name(l.level, n)).collect(),
                                })
                                .collect(),
                            complete: e.complete,
                        })
                        .collect(),
                    overlaps: l
                        .overlaps()
                        .edges
                        .iter()
                        .map(|(a, b, cs)| OverlapJson {
                            a: format!("L{}:{}", l.level, a),
                            b: format!("L{}:{}", l.level, b),
                            constraints: cs.iter().map(|&c| setting.constraint(c).name.clone()).collect(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}
