//! Classification of Go positions into the thesis's level-0/1/2 classes — by the generic engine,
//! from the class setting written in the class language (`grammars/go/`, embedded in the binary).
//!
//! The front-end's part is only naming: the recorder tells which vertex each primitive perceives
//! and at which position, so elements can be named by their vertices and given a lifetime
//! (born, died). Nothing here detects a class.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::dsl::{DslError, MemResolver, Sources, load_setting_with};
use crate::ets::hierarchy::LevelResult;
use crate::ets::{Element, Hierarchy, LevelStruct, Setting, recognize_level};

use super::board::{Board, Point};
use super::record::{GoAlphabet, Place, RecordOptions, Recording, record};

/// The embedded Go class setting (`grammars/go/`).
pub const EMBEDDED: &[(&str, &str)] = &[
    ("go/alphabet.ets", include_str!("../../grammars/go/alphabet.ets")),
    ("go/level0.ets", include_str!("../../grammars/go/level0.ets")),
    ("go/level1.ets", include_str!("../../grammars/go/level1.ets")),
    ("go/level2.ets", include_str!("../../grammars/go/level2.ets")),
    ("go/setting.ets", include_str!("../../grammars/go/setting.ets")),
];

/// Loads the embedded setting.
pub fn embedded_setting() -> (Sources, Result<Setting, Vec<DslError>>) {
    let files: BTreeMap<PathBuf, String> = EMBEDDED
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    let (src, r) = load_setting_with(&[PathBuf::from("go/setting.ets")], &MemResolver(files));
    (src, r.map(|(s, _)| s))
}

/// Loads a setting from files.
pub fn setting_from(files: &[PathBuf]) -> (Sources, Result<Setting, Vec<DslError>>) {
    let (src, r) = crate::dsl::load_setting(files);
    (src, r.map(|(s, _)| s))
}

/// The Go alphabet as a setting declares it (the recorder writes structs over it).
pub fn alphabet_of(setting: &Setting) -> Result<GoAlphabet, String> {
    let al = setting.alphabet().clone();
    let k = |n: &str| {
        al.kind(n)
            .ok_or_else(|| format!("the setting's alphabet has no primitive `{n}`"))
    };
    Ok(GoAlphabet {
        black: k("pi1")?,
        white: k("pi2")?,
        empty: k("pi3")?,
        adjacency: k("pi4")?,
        edge: k("pi5")?,
        start: k("pi6")?,
        end: k("pi7")?,
        alphabet: al,
    })
}

/// One classified element, named for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// Level.
    pub level: u32,
    /// Index among its level's elements.
    pub index: usize,
    /// The vertices it involves (its colour primitives' vertices; at level n, its members').
    pub vertices: Vec<Point>,
    /// The position (moves played) of its first primitive.
    pub born: u32,
    /// The move at which it ended (its last primitive perceives position `died − 1`), if it has.
    pub died: Option<u32>,
}

/// A classified game (up to some move).
#[derive(Debug, Clone)]
pub struct Classification {
    /// The struct.
    pub recording: Recording,
    /// Elements of every level.
    pub hierarchy: Hierarchy,
    /// Per level, per element: vertices and lifetime.
    pub named: Vec<Vec<Named>>,
    /// The last position recorded.
    pub last: u32,
}

/// Records `positions` and classifies them up to `max_level`.
///
/// Level 0 is recognised in the struct of the whole history, so its elements carry their lifetimes
/// (plays, removals, stones that came and went). Levels ≥ 1 are recognised over the level-0 elements
/// alive at the last position, so they describe that position: blocks, spaces and groups whose
/// members coexist (`docs/semantics.md`).
pub fn classify(
    setting: &Setting,
    positions: &[Board],
    last_moves: &[Option<Point>],
    opts: RecordOptions,
    max_level: Option<u32>,
) -> Result<Classification, String> {
    let kinds = alphabet_of(setting)?;
    let recording = record(&kinds, positions, last_moves, opts).map_err(|e| e.to_string())?;
    let last = positions.len().saturating_sub(1) as u32;
    let top = max_level.unwrap_or(setting.max_level()).min(setting.max_level());
    let mut e0 = recognize_level(setting, 0, &recording.strukt);
    e0.retain(|e| e.complete);
    let n0: Vec<Named> = e0
        .iter()
        .enumerate()
        .map(|(i, e)| name0(&recording, e, i, last))
        .collect();
    let living: Vec<usize> = (0..e0.len()).filter(|&i| n0[i].died.is_none()).collect();
    let (levels, named) = upper_levels(setting, e0, n0, &living, top);
    Ok(Classification {
        recording,
        hierarchy: Hierarchy { levels },
        named,
        last,
    })
}

/// Levels 1..=top over the level-0 elements `living` (indices into `e0`). The first level's struct
/// is built over those; each level's living elements make the next level's struct.
fn upper_levels(
    setting: &Setting,
    e0: Vec<Element>,
    n0: Vec<Named>,
    living: &[usize],
    top: u32,
) -> (Vec<LevelResult>, Vec<Vec<Named>>) {
    let above = LevelStruct::from_elements(setting, 1, &living.iter().map(|&i| e0[i].clone()).collect::<Vec<_>>());
    let (mut levels, named) = levels_above(setting, &above, &n0, living, top);
    levels.insert(
        0,
        LevelResult {
            level: 0,
            elements: e0,
            above,
        },
    );
    let mut all = vec![n0];
    all.extend(named);
    (levels, all)
}

/// Levels 1..=top over a level-1 struct `host1` whose node k is level-0 element `living[k]`.
fn levels_above(
    setting: &Setting,
    host1: &LevelStruct,
    n0: &[Named],
    living: &[usize],
    top: u32,
) -> (Vec<LevelResult>, Vec<Vec<Named>>) {
    let mut levels: Vec<LevelResult> = Vec::new();
    let mut named: Vec<Vec<Named>> = Vec::new();
    let mut living: Vec<usize> = living.to_vec();
    for n in 1..=top {
        let host = if n == 1 {
            host1
        } else {
            &levels.last().expect("level below").above
        };
        let below: &[Named] = if n == 1 { n0 } else { named.last().expect("level below") };
        // node k of the level-n struct is living[k] of level n−1
        let mut es = recognize_level(setting, n, host);
        es.retain(|e| e.complete);
        for e in &mut es {
            for x in e.nodes.iter_mut() {
                *x = living[*x as usize] as u32;
            }
            for a in e.applications.iter_mut() {
                for x in a.nodes.iter_mut() {
                    *x = living[*x as usize] as u32;
                }
            }
            e.nodes.sort_unstable();
        }
        let nn: Vec<Named> = es.iter().enumerate().map(|(i, e)| name_n(below, e, i, n)).collect();
        let above = alive_struct(setting, n + 1, &es, &nn);
        living = (0..es.len()).collect();
        levels.push(LevelResult {
            level: n,
            elements: es,
            above,
        });
        named.push(nn);
    }
    (levels, named)
}

/// One position's levels ≥ 1: the elements, and their names and lifetimes.
pub type PositionLevels = (Vec<LevelResult>, Vec<Vec<Named>>);

/// The classes of every position of a game: level 0 is recognised once, in the struct of the whole
/// history; for each position, levels 1..=top are recognised over the level-0 elements alive there
/// (born at or before it, not ended by it). Returns the whole-game classification (levels ≥ 1 at
/// the last position) and, per position, its levels ≥ 1.
pub fn classify_every(
    setting: &Setting,
    positions: &[Board],
    last_moves: &[Option<Point>],
    opts: RecordOptions,
    max_level: Option<u32>,
) -> Result<(Classification, Vec<PositionLevels>), String> {
    let whole = classify(setting, positions, last_moves, opts, max_level)?;
    let top = max_level.unwrap_or(setting.max_level()).min(setting.max_level());
    let e0 = &whole.hierarchy.levels[0].elements;
    let n0 = &whole.named[0];
    // The level-1 struct of the whole game, once; each position takes the part its living elements induce.
    let full = LevelStruct::from_elements(setting, 1, e0);
    let mut per = Vec::with_capacity(positions.len());
    for pos in 0..positions.len() as u32 {
        let living: Vec<usize> = (0..e0.len())
            .filter(|&i| n0[i].born <= pos && n0[i].died.is_none_or(|d| d > pos))
            .collect();
        let keep: Vec<u32> = living.iter().map(|&i| i as u32).collect();
        let host1 = full.induced(&keep);
        per.push(levels_above(setting, &host1, n0, &living, top));
    }
    Ok((whole, per))
}

/// The level-n struct over the living elements of level n−1.
fn alive_struct(setting: &Setting, level: u32, elements: &[Element], named: &[Named]) -> LevelStruct {
    let living: Vec<Element> = elements
        .iter()
        .zip(named)
        .filter(|(_, n)| n.died.is_none())
        .map(|(e, _)| e.clone())
        .collect();
    LevelStruct::from_elements(setting, level, &living)
}

/// Level 0: its vertices are those of its colour primitives; it is born at the latest position among
/// its first application's primitives (a play at move k holds the empty awareness of position k−1,
/// but begins at move k); it ended at the move after its last primitive's position, if that is not
/// the last position.
fn name0(rec: &Recording, e: &Element, index: usize, last: u32) -> Named {
    let mut verts: Vec<Point> = e
        .nodes
        .iter()
        .filter_map(|&n| {
            if let Place::Vertex(p) = rec.place[n as usize] {
                Some(p)
            } else {
                None
            }
        })
        .collect();
    verts.sort();
    verts.dedup();
    let born = e.applications[0]
        .nodes
        .iter()
        .map(|&n| rec.position[n as usize])
        .max()
        .unwrap_or(0);
    let end = e.nodes.iter().map(|&n| rec.position[n as usize]).max().unwrap_or(0);
    Named {
        level: 0,
        index,
        vertices: verts,
        born,
        died: if end < last { Some(end + 1) } else { None },
    }
}

/// Level n: its vertices are those of its vertex-like members at level 1 (stones, vertices, plays, removals: one vertex
/// each — a block shows its stones, not its liberties), of all its members above; born with its first member; alive
/// (it is built from living members).
fn name_n(below: &[Named], e: &Element, index: usize, level: u32) -> Named {
    let mut verts: Vec<Point> = e
        .nodes
        .iter()
        .filter(|&&n| level > 1 || below[n as usize].vertices.len() == 1)
        .flat_map(|&n| below[n as usize].vertices.iter().copied())
        .collect();
    verts.sort();
    verts.dedup();
    let born = e.nodes.iter().map(|&n| below[n as usize].born).min().unwrap_or(0);
    Named {
        level,
        index,
        vertices: verts,
        born,
        died: None,
    }
}

/// Convenience for tests and tools: a setting's class name of an element.
pub fn class_name<'a>(setting: &'a Setting, e: &Element) -> &'a str {
    &setting.class(e.class).name
}

/// Reads the setting from `files`, or the embedded one.
pub fn load(files: &[PathBuf]) -> (Sources, Result<Setting, Vec<DslError>>) {
    if files.is_empty() {
        embedded_setting()
    } else {
        setting_from(files)
    }
}

/// Whether a path is one of the embedded setting's files.
pub fn is_embedded(p: &Path) -> bool {
    EMBEDDED.iter().any(|(n, _)| Path::new(n) == p)
}

#[allow(dead_code)]
fn _assert_send(_: Arc<Setting>) {}
