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
use crate::ets::evolve::{Instance, Linker, NewNode, Tracker};
use crate::ets::hierarchy::LevelResult;
use crate::ets::recognition::{Found, MatchTable, Matches, recognize_level_found};
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

/// The classes of every position of a game, each position recognised afresh: level 0 once, in the
/// struct of the whole history; for each position, levels 1..=top from scratch over the level-0
/// elements alive there (born at or before it, not ended by it). The slow second route the
/// incremental [`classify_every`] is checked against. Returns the whole-game classification
/// (levels ≥ 1 at the last position) and, per position, its levels ≥ 1.
pub fn classify_every_scratch(
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
    name0_parts(rec, &e.nodes, &e.applications[0].nodes, index, last)
}

fn name0_parts(
    rec: &Recording,
    nodes: &[crate::ets::NodeId],
    first: &[crate::ets::NodeId],
    index: usize,
    last: u32,
) -> Named {
    // An element's colour primitives are of one vertex or two, layer after layer: keep the
    // distinct ones as they come (all of them, sorted, past a few).
    let mut verts: Vec<Point> = Vec::new();
    for &n in nodes {
        if let Place::Vertex(p) = rec.place[n as usize]
            && !verts.contains(&p)
        {
            if verts.len() == 8 {
                verts = nodes
                    .iter()
                    .filter_map(|&n| match rec.place[n as usize] {
                        Place::Vertex(p) => Some(p),
                        _ => None,
                    })
                    .collect();
                verts.sort();
                verts.dedup();
                break;
            }
            verts.push(p);
        }
    }
    verts.sort();
    let end = nodes.iter().map(|&n| rec.position[n as usize]).max().unwrap_or(0);
    let born = first.iter().map(|&n| rec.position[n as usize]).max().unwrap_or(0);
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

/// Every position of a game classified incrementally: elements of every level with their
/// lifetimes.
#[derive(Debug)]
pub struct Timeline {
    /// The struct of the whole game.
    pub recording: Recording,
    /// The level-0 matches (the level-0 elements' applications are ids into it).
    pub table0: MatchTable,
    /// The level-0 elements (complete ones), ascending as recognition returns them.
    pub level0: Vec<Found>,
    /// Levels ≥ 1: every instance (an element over the time it held unchanged); `upper[n-1]` is
    /// level n. Applications are ids into the level's tracker matches (not kept).
    pub upper: Vec<Vec<Instance>>,
    /// Per level, per element (level 0) or instance (levels ≥ 1): vertices and lifetime. For an
    /// instance, `born`/`died` are its own; its lineage is in `lineage`.
    pub named: Vec<Vec<Named>>,
    /// Per level ≥ 1, per instance: the instance that began its lineage.
    pub lineage: Vec<Vec<usize>>,
    /// Per level n ≥ 1 (`members[n-1]`), per node id of its tracker: the element (level 0) or
    /// instance of level n−1 it stands for.
    pub members: Vec<Vec<usize>>,
    /// The last position.
    pub last: u32,
}

impl Timeline {
    /// The class of element/instance `i` of `level`.
    pub fn class_of(&self, level: usize, i: usize) -> crate::ets::ClassId {
        if level == 0 {
            self.level0[i].class
        } else {
            self.upper[level - 1][i].found.class
        }
    }
    /// The elements (level 0) or instances of `level` alive at position `pos`.
    pub fn alive_at(&self, level: usize, pos: u32) -> Vec<usize> {
        (0..self.named[level].len())
            .filter(|&i| {
                let n = &self.named[level][i];
                n.born <= pos && n.died.is_none_or(|d| d > pos)
            })
            .collect()
    }
}

/// Classifies every position of a game, incrementally: level 0 is recognised once in the struct of
/// the whole history (its elements carry their lifetimes); levels 1..=top are kept by one
/// [`Tracker`] each, advanced position by position with the level-(n−1) elements that began and
/// ended there, so each position costs in proportion to what changed (§5.3.2.1). The trackers run
/// as a pipeline, one thread per level.
pub fn classify_every(
    setting: &Setting,
    positions: &[Board],
    last_moves: &[Option<Point>],
    opts: RecordOptions,
    max_level: Option<u32>,
) -> Result<Timeline, String> {
    let kinds = alphabet_of(setting)?;
    let recording = record(&kinds, positions, last_moves, opts).map_err(|e| e.to_string())?;
    let last = positions.len().saturating_sub(1) as u32;
    let top = max_level.unwrap_or(setting.max_level()).min(setting.max_level());
    let (table0, mut level0) = recognize_level_found(setting, 0, &recording.strukt);
    level0.retain(|e| e.complete);
    let n0: Vec<Named> = {
        use rayon::prelude::*;
        level0
            .par_iter()
            .enumerate()
            .map(|(i, f)| name0_parts(&recording, &f.nodes, table0.nodes(f.apps[0]), i, last))
            .collect()
    };
    let mut named = vec![n0];
    let mut upper = Vec::new();
    let mut lineage = Vec::new();
    let mut members = Vec::new();
    // Level 1 is fed from level 0's lifetimes, position by position; each level above from the
    // changes of the one below. The levels run as a pipeline, one thread each (a level's tracker
    // advances to position t while the level below is already at a later one).
    let mut by_born0: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut by_died0: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, n) in named[0].iter().enumerate() {
        by_born0.entry(n.born).or_default().push(i);
        if let Some(d) = n.died {
            by_died0.entry(d).or_default().push(i);
        }
    }
    // Per level n < top: node id in the tracker of level n+1 of each element/instance of level n.
    let mut node_of: Vec<Vec<u32>> = Vec::new();
    let mut trackers: Vec<Tracker> = Vec::new();
    if top >= 1 {
        // The level-1 links are derived here, while the level-1 tracker works on earlier steps.
        let mut feed = Feed::linking();
        let steps0 = (0..=last).map(|t| {
            let none = Vec::new();
            let born = by_born0.get(&t).unwrap_or(&none).iter().map(|&i| {
                let f = &level0[i];
                (
                    i,
                    (f.class.0, f.apps.iter().map(|&a| (table0.constraint(a), a)).collect()),
                )
            });
            feed.step(t, born, by_died0.get(&t).unwrap_or(&none))
        });
        // Made here as the trackers take them (the first levels begin before the last steps exist).
        let (ts, ofs) = run_trackers(setting, top, steps0);
        node_of.push(feed.node_of(level0.len()));
        trackers = ts;
        node_of.extend(ofs);
    }
    // Names: vertices from the members below (through the node ids), lifetimes per instance.
    for (n, tr) in trackers.iter().enumerate() {
        let below = &named[n];
        let mut elem_of_node = vec![usize::MAX; tr.host().len()];
        for (i, &x) in node_of[n].iter().enumerate() {
            if x != u32::MAX {
                elem_of_node[x as usize] = i;
            }
        }
        let level = n as u32 + 1;
        let nn: Vec<Named> = tr
            .instances()
            .iter()
            .enumerate()
            .map(|(i, inst)| {
                let mut verts: Vec<Point> = inst
                    .found
                    .nodes
                    .iter()
                    .map(|&x| &below[elem_of_node[x as usize]])
                    .filter(|m| level > 1 || m.vertices.len() == 1)
                    .flat_map(|m| m.vertices.iter().copied())
                    .collect();
                verts.sort();
                verts.dedup();
                Named {
                    level,
                    index: i,
                    vertices: verts,
                    born: inst.born,
                    died: inst.died,
                }
            })
            .collect();
        lineage.push(tr.instances().iter().map(|x| x.lineage).collect());
        members.push(elem_of_node);
        named.push(nn);
        upper.push(tr.instances().to_vec());
    }
    Ok(Timeline {
        recording,
        table0,
        level0,
        upper,
        named,
        lineage,
        members,
        last,
    })
}

/// What begins at one position of a level: its new nodes' types and applications.
type Born = (u32, Vec<(crate::ets::ConstraintId, u32)>);

/// One position's changes of a level, as the tracker above consumes them.
struct Step {
    t: u32,
    born: Vec<(u32, NewNode)>,
    died: Vec<u32>,
}

/// Numbers a level's elements (or instances) as nodes of the level above, in the order they begin;
/// with a [`Linker`], also derives their links there (so that the tracker above need not).
#[derive(Default)]
struct Feed {
    /// Node id above of each element below (`u32::MAX`: not begun yet).
    of: Vec<u32>,
    next: u32,
    linker: Option<Linker>,
}

impl Feed {
    /// A feed that derives the links of the nodes it numbers.
    fn linking() -> Self {
        Feed {
            linker: Some(Linker::default()),
            ..Feed::default()
        }
    }
    /// The step above for position `t`: the elements `born` (index below, type and applications)
    /// get the next node ids; the `died` ones are named by theirs.
    fn step(&mut self, t: u32, born: impl Iterator<Item = (usize, Born)>, died: &[usize]) -> Step {
        let born = born
            .map(|(i, (kind, apps))| {
                if self.of.len() <= i {
                    self.of.resize(i + 1, u32::MAX);
                }
                self.of[i] = self.next;
                self.next += 1;
                let new = match &mut self.linker {
                    Some(l) => NewNode::Links(l.add(apps).1),
                    None => NewNode::Apps(apps),
                };
                (kind, new)
            })
            .collect();
        let died = died
            .iter()
            .filter_map(|&i| self.of.get(i).copied())
            .filter(|&x| x != u32::MAX)
            .collect();
        Step { t, born, died }
    }
    /// The node id above of each of the first `n` elements below.
    fn node_of(mut self, n: usize) -> Vec<u32> {
        self.of.resize(n.max(self.of.len()), u32::MAX);
        self.of.truncate(n);
        self.of
    }
}

/// Runs the trackers of levels 1..=top over the level-1 changes `steps`, one thread per level
/// (a pipeline: level n+1 consumes level n's changes as they come). Returns the trackers and, per
/// level 1..top, the node id in the tracker above of each of its instances.
fn run_trackers(setting: &Setting, top: u32, steps: impl Iterator<Item = Step>) -> (Vec<Tracker<'_>>, Vec<Vec<u32>>) {
    use std::sync::mpsc;
    std::thread::scope(|scope| {
        let (tx0, mut rx) = mpsc::channel::<Step>();
        let mut handles = Vec::new();
        for level in 1..=top {
            let (tx, next_rx) = mpsc::channel::<Step>();
            let feed_above = level < top;
            let input = std::mem::replace(&mut rx, next_rx);
            handles.push(scope.spawn(move || {
                let mut tracker = Tracker::new(setting, level);
                tracker.set_parallel(top == 1);
                let mut feed = Feed::default();
                for Step { t, born, died } in input {
                    let change = tracker.advance(t, born, &died);
                    if !feed_above {
                        continue;
                    }
                    let m = tracker.matches();
                    let born = change.born.iter().map(|&i| {
                        let f = &tracker.instances()[i].found;
                        (i, (f.class.0, f.apps.iter().map(|&a| (m.constraint(a), a)).collect()))
                    });
                    // The level above has ended only if this thread panicked; nothing to send to.
                    let _ = tx.send(feed.step(t, born, &change.died));
                }
                let of = feed.node_of(tracker.instances().len());
                drop(tx);
                (tracker, of)
            }));
        }
        drop(rx);
        for s in steps {
            let _ = tx0.send(s);
        }
        drop(tx0);
        let mut trackers = Vec::new();
        let mut ofs = Vec::new();
        for (i, h) in handles.into_iter().enumerate() {
            let (tr, of) = match h.join() {
                Ok(x) => x,
                Err(p) => std::panic::resume_unwind(p),
            };
            trackers.push(tr);
            if (i as u32) + 1 < top {
                ofs.push(of);
            }
        }
        (trackers, ofs)
    })
}

#[allow(dead_code)]
fn _assert_send(_: Arc<Setting>) {}
