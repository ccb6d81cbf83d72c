//! The elements of every level as they stand at one step of a timeline (§3.4.2): a [`Hierarchy`]
//! whose level-n elements are those present at the step, each with the part of it that is present
//! (its applications whose nodes are all present), and whose level-n struct (for overlap graphs,
//! Fig. 3.8) is built over them. Level 0 lists every element begun by the step (its primitives
//! stay: a struct is the record of what happened), present or ended.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::Timeline;
use crate::ets::element::{Application, Element};
use crate::ets::hierarchy::{Hierarchy, LevelResult};
use crate::ets::ids::{ConstraintId, ElementId, MatchId, NodeId};
use crate::ets::level::{Cel, LevelStruct};

/// What a [`Snapshot`] lists at level 0 and how much of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listing {
    /// Every element begun by the step, with its nodes and applications ([`Snapshot::at`]).
    Whole,
    /// The same elements without their nodes and applications ([`Snapshot::names_at`]).
    Names,
    /// Of those, the ones present at the step ([`Snapshot::present_names_at`]).
    PresentNames,
}

/// A [`Hierarchy`] at one step, with the timeline id of each element it lists.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The step.
    pub step: u32,
    /// The elements, level by level.
    pub hierarchy: Hierarchy,
    /// Per level, per listed element: its id in the timeline's level.
    pub ids: Vec<Vec<ElementId>>,
}

impl Snapshot {
    /// The elements of `tl` at step `t`. Elements still forming (their schedule cannot end where
    /// they stand) are listed only when `forming` is set.
    pub fn at(tl: &Timeline, t: u32, forming: bool) -> Snapshot {
        Snapshot::build(tl, t, forming, Listing::Whole)
    }

    /// The same elements in the same order, with the same level structs above them, but the
    /// elements of level 0 listed without their nodes and applications (`nodes` and
    /// `applications` empty): what one position's element list and overlap graphs need. Level 0
    /// lists every element begun by the step with every application it made — most of a whole
    /// game's matches — so this saves building and sorting them. The order needs the nodes of
    /// elements of one class with the same least node alone, and their applications only when
    /// their nodes tie too (at the last step; at an earlier one, every element's nodes up to it).
    pub fn names_at(tl: &Timeline, t: u32, forming: bool) -> Snapshot {
        Snapshot::build(tl, t, forming, Listing::Names)
    }

    /// [`Snapshot::names_at`] without the level-0 elements that ended by `t`: the elements
    /// present at the step, level by level, in the same order, with the same level structs
    /// above them (those hold present elements only). A whole game's level 0 has begun about
    /// three times as many elements as are present at its end.
    pub fn present_names_at(tl: &Timeline, t: u32, forming: bool) -> Snapshot {
        Snapshot::build(tl, t, forming, Listing::PresentNames)
    }

    fn build(tl: &Timeline, t: u32, forming: bool, listing: Listing) -> Snapshot {
        let light = listing != Listing::Whole;
        let setting = tl.setting();
        let mut levels: Vec<LevelResult> = Vec::new();
        let mut ids: Vec<Vec<ElementId>> = Vec::new();
        // Per level: element id → index among the listed elements.
        let mut index_below: FxHashMap<ElementId, NodeId> = FxHashMap::default();
        for (k, lv) in tl.levels().iter().enumerate() {
            let listed: Vec<ElementId> = (0..lv.elements().len() as ElementId)
                .filter(|&e| {
                    let el = lv.element(e);
                    if el.is_stillborn() || el.born() > t || (!forming && el.completed().is_none_or(|c| c > t)) {
                        return false;
                    }
                    if k == 0 && listing != Listing::PresentNames {
                        // Merged elements joined another: not listed (their applications are its).
                        el.merged_into().is_none_or(|_| el.ended().is_none_or(|d| d > t))
                    } else {
                        el.present_at(t)
                    }
                })
                .collect();
            if k == 0 && light && listed.iter().all(|&e| lv.applied_at(e) <= t) {
                let sizes = (setting.classes().len(), setting.constraints().len());
                let (level, listed) = level0_whole(lv, listed, t, sizes);
                index_below = listed.iter().enumerate().map(|(i, &e)| (e, i as NodeId)).collect();
                levels.push(level);
                ids.push(listed);
                continue;
            }
            let present_node = |x: NodeId| k == 0 || lv.host().present(x, t);
            // Each node once per element: a mark per node (level 0: the struct's primitives;
            // level n: the elements listed below), the element's number the mark.
            let mut seen: Vec<u32> = vec![u32::MAX; if k == 0 { tl.strukt().len() } else { index_below.len() }];
            let mut elements = Vec::with_capacity(listed.len());
            // Per listed element, the matches of the applications it keeps (for the level above's
            // links): `mids[spans[i].0..spans[i].1]`.
            let mut mids: Vec<MatchId> = Vec::new();
            let mut spans: Vec<(usize, usize)> = Vec::with_capacity(listed.len());
            // Level 0 of a light snapshot: nodes and matches, no applications.
            let light = light && k == 0;
            for &e in &listed {
                let from = mids.len();
                let el = lv.element(e);
                let mut applications: Vec<Application> = Vec::with_capacity(if light { 0 } else { el.apps.len() });
                let mut nodes: Vec<NodeId> = Vec::with_capacity(el.nodes.len());
                if light && lv.applied_at(e) <= t {
                    // Level 0, an element that made every application by `t` (the last step of a
                    // timeline classified up to one position, always): its nodes are the element's
                    // own list (each joined once, with the application that brought it), its
                    // matches all its applications.
                    nodes.extend_from_slice(&lv.nodes(e));
                    mids.extend_from_slice(&lv.applications(e));
                } else if light {
                    // Level 0: every node is present; the nodes once each and the matches.
                    let mark = elements.len() as u32;
                    for (m, step) in lv.applications_with_steps(e) {
                        if step > t {
                            break;
                        }
                        for x in lv.match_nodes(m) {
                            let s = &mut seen[x as usize];
                            if *s != mark {
                                *s = mark;
                                nodes.push(x);
                            }
                        }
                        mids.push(m);
                    }
                } else {
                    for (m, step) in lv.applications_with_steps(e) {
                        if step > t {
                            break;
                        }
                        let ns = lv.match_nodes(m);
                        if !ns.clone().all(present_node) {
                            continue;
                        }
                        let mapped: SmallVec<[NodeId; 6]> = if k == 0 {
                            ns.collect()
                        } else {
                            ns.map(|x| {
                                let b = lv.host().below(x);
                                index_below.get(&b).copied().unwrap_or(NodeId::MAX)
                            })
                            .collect()
                        };
                        if mapped.contains(&NodeId::MAX) {
                            continue;
                        }
                        let mark = elements.len() as u32;
                        for &x in &mapped {
                            let s = &mut seen[x as usize];
                            if *s != mark {
                                *s = mark;
                                nodes.push(x);
                            }
                        }
                        mids.push(m);
                        applications.push(Application {
                            constraint: lv.constraint(m),
                            nodes: mapped,
                        });
                    }
                }
                // Mostly in order already (nodes join as time runs): a stable sort, which finds
                // the runs, costs a fraction of an unstable one here (unique ids: the same list).
                nodes.sort();
                if applications.len() > 1 {
                    // Equal applications are equal values: an unstable sort gives the same list.
                    applications[1..].sort_unstable();
                }
                elements.push(Element {
                    class: el.class(),
                    nodes,
                    applications,
                    complete: el.completed().is_some_and(|c| c <= t),
                });
                spans.push((from, mids.len()));
            }
            // In a stable order: by class (declaration order), then nodes, then applications.
            let mut order: Vec<usize> = (0..listed.len()).collect();
            order.sort_by(|&a, &b| {
                let (x, y) = (&elements[a], &elements[b]);
                (x.class, &x.nodes, &x.applications)
                    .cmp(&(y.class, &y.nodes, &y.applications))
                    .then_with(|| {
                        if light {
                            // Only ties of class and nodes reach here (their lists are empty).
                            let apps = |i: usize| level0_applications(lv, &mids[spans[i].0..spans[i].1]);
                            apps(a).cmp(&apps(b))
                        } else {
                            std::cmp::Ordering::Equal
                        }
                    })
            });
            let spans: Vec<(usize, usize)> = order.iter().map(|&i| spans[i]).collect();
            let listed: Vec<ElementId> = order.iter().map(|&i| listed[i]).collect();
            let mut slots: Vec<Option<Element>> = elements.into_iter().map(Some).collect();
            let mut elements: Vec<Element> = order.iter().map(|&i| slots[i].take().expect("once")).collect();
            if light {
                // Their nodes served the order; level 0 of a light snapshot lists none.
                for e in &mut elements {
                    e.nodes = Vec::new();
                }
            }
            // The level-n+1 struct over the elements present at t: a CEL per application two or
            // more of them share. Each application is one match of the level's store (a match is
            // stored once per constraint and nodes, and level-n nodes map one to one onto the
            // elements below), so they are grouped by match id through a table per match,
            // instead of hashing every application (what `LevelStruct::from_elements` does for
            // elements that come without their matches).
            let living: Vec<usize> = (0..listed.len())
                .filter(|&i| lv.element(listed[i]).present_at(t))
                .collect();
            let above = {
                let mut first = vec![NodeId::MAX; lv.match_count()];
                let mut group = vec![u32::MAX; lv.match_count()];
                // Per shared match: its constraint and members (inline: no allocation per match).
                let mut shared: Vec<(ConstraintId, SmallVec<[NodeId; 4]>)> = Vec::new();
                for (j, &i) in living.iter().enumerate() {
                    let j = j as NodeId;
                    for &m in &mids[spans[i].0..spans[i].1] {
                        let f = &mut first[m as usize];
                        if *f == NodeId::MAX {
                            *f = j;
                        } else if *f != j {
                            let g = &mut group[m as usize];
                            if *g == u32::MAX {
                                *g = shared.len() as u32;
                                shared.push((lv.constraint(m), smallvec::smallvec![*f, j]));
                            } else {
                                let members = &mut shared[*g as usize].1;
                                if members.last() != Some(&j) {
                                    members.push(j);
                                }
                            }
                        }
                    }
                }
                // The same CEL comes again and again (one constraint between the same elements,
                // applied at step after step): only the distinct ones become CELs.
                // Pairs (nearly all) are keyed flat.
                let mut pairs: FxHashSet<(ConstraintId, NodeId, NodeId)> =
                    FxHashSet::with_capacity_and_hasher(shared.len() / 8, Default::default());
                let mut sets: FxHashSet<(ConstraintId, &[NodeId])> = FxHashSet::default();
                let cels: Vec<Cel> = shared
                    .iter()
                    .filter(|(c, ms)| match ms[..] {
                        [a, b] => pairs.insert((*c, a, b)),
                        _ => sets.insert((*c, ms.as_slice())),
                    })
                    .map(|(c, ms)| Cel {
                        constraint: *c,
                        members: ms.to_vec(),
                    })
                    .collect();
                LevelStruct::from_parts(
                    k as u32 + 1,
                    setting.classes().len(),
                    living.iter().map(|&i| elements[i].class.0),
                    cels,
                )
            };
            index_below = listed.iter().enumerate().map(|(i, &e)| (e, i as NodeId)).collect();
            levels.push(LevelResult {
                level: k as u32,
                elements,
                above,
            });
            ids.push(listed);
        }
        Snapshot {
            step: t,
            hierarchy: Hierarchy { levels },
            ids,
        }
    }
}

/// Level 0 of a light snapshot ([`Snapshot::names_at`]) at a step `t` by which every listed
/// element made all its applications (the last step of a timeline classified up to one
/// position): the elements in [`Snapshot::at`]'s order, without nodes or applications, and the
/// level-1 struct over those present.
///
/// The order (class, then nodes ascending, then applications) is found from each element's
/// least node, which decides it but for ties; only the elements of a tie get their nodes (and,
/// when those tie too, their applications) sorted. The CELs come from one pass over the level's
/// matches in store order: a match two or more present elements hold (all of them applied it by
/// `t`) is a CEL between them.
fn level0_whole(
    lv: &crate::ets::timeline::Level,
    listed: Vec<ElementId>,
    t: u32,
    (classes, constraints): (usize, usize),
) -> (LevelResult, Vec<ElementId>) {
    let least: Vec<(crate::ets::ids::ClassId, Option<NodeId>)> = listed
        .iter()
        .map(|&e| {
            let el = lv.element(e);
            (el.class(), lv.least_node(e))
        })
        .collect();
    let mut order: Vec<usize> = (0..listed.len()).collect();
    // Stable: a tie keeps the listing order, as the whole key's stable sort keeps it.
    order.sort_by_key(|&i| least[i]);
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && least[order[j]] == least[order[i]] {
            j += 1;
        }
        if j - i > 1 {
            // (class, least node) is a coarsening of (class, sorted nodes): ties are ordered
            // within their run.
            let mut run: Vec<(Vec<NodeId>, usize)> = order[i..j]
                .iter()
                .map(|&x| {
                    let mut v = lv.nodes(listed[x]).into_owned();
                    v.sort_unstable();
                    (v, x)
                })
                .collect();
            let apps = |x: usize| level0_applications(lv, &lv.applications(listed[x]));
            run.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| apps(a.1).cmp(&apps(b.1))));
            for (slot, (_, x)) in order[i..j].iter_mut().zip(run) {
                *slot = x;
            }
        }
        i = j;
    }
    let listed: Vec<ElementId> = order.iter().map(|&i| listed[i]).collect();
    let elements: Vec<Element> = listed
        .iter()
        .map(|&e| {
            let el = lv.element(e);
            Element {
                class: el.class(),
                nodes: Vec::new(),
                applications: Vec::new(),
                complete: el.completed().is_some_and(|c| c <= t),
            }
        })
        .collect();
    // Element id → its node in the level-1 struct (the present elements, in listed order).
    let mut living_of = vec![NodeId::MAX; lv.elements().len()];
    let mut kinds = Vec::new();
    for &e in &listed {
        let el = lv.element(e);
        if el.present_at(t) {
            living_of[e as usize] = kinds.len() as NodeId;
            kinds.push(el.class().0);
        }
    }
    // The same CEL comes step after step: each present element keeps, per constraint, the
    // partner of the last pair CEL it was found in (plus one; zero: none yet), which turns most
    // repeats away here; `LevelStruct::from_parts` drops the rest.
    let mut last: Vec<NodeId> = vec![0; kinds.len() * constraints];
    let mut cels: Vec<Cel> = Vec::new();
    for m in 0..lv.match_count() as MatchId {
        let members = match *lv.match_holders(m) {
            [] | [_] => continue,
            [x, y] => {
                let (a, b) = (living_of[x as usize], living_of[y as usize]);
                if a == NodeId::MAX || b == NodeId::MAX {
                    continue;
                }
                let (a, b) = (a.min(b), a.max(b));
                let slot = &mut last[a as usize * constraints + lv.constraint(m).0 as usize];
                if *slot == b + 1 {
                    continue;
                }
                *slot = b + 1;
                vec![a, b]
            }
            ref holders => {
                let mut v: Vec<NodeId> = holders
                    .iter()
                    .map(|&e| living_of[e as usize])
                    .filter(|&j| j != NodeId::MAX)
                    .collect();
                if v.len() < 2 {
                    continue;
                }
                v.sort_unstable();
                v
            }
        };
        cels.push(Cel {
            constraint: lv.constraint(m),
            members,
        });
    }
    let above = LevelStruct::from_parts(1, classes, kinds, cels);
    (
        LevelResult {
            level: 0,
            elements,
            above,
        },
        listed,
    )
}

/// A level-0 element's applications from the matches it keeps, as [`Snapshot::at`] lists them:
/// the first (its start) first, the rest ascending.
fn level0_applications(lv: &crate::ets::timeline::Level, mids: &[MatchId]) -> Vec<Application> {
    let mut applications: Vec<Application> = mids
        .iter()
        .map(|&m| Application {
            constraint: lv.constraint(m),
            nodes: lv.match_nodes(m).collect(),
        })
        .collect();
    if applications.len() > 1 {
        applications[1..].sort_unstable();
    }
    applications
}
