//! The elements of every level as they stand at one step of a timeline (§3.4.2): a [`Hierarchy`]
//! whose level-n elements are those present at the step, each with the part of it that is present
//! (its applications whose nodes are all present), and whose level-n struct (for overlap graphs,
//! Fig. 3.8) is built over them. Level 0 lists every element begun by the step (its primitives
//! stay: a struct is the record of what happened), present or ended.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{RECORDED, Timeline};
use crate::ets::element::{Application, Element};
use crate::ets::hierarchy::{Hierarchy, LevelResult};
use crate::ets::ids::{ElementId, NodeId};
use crate::ets::level::LevelStruct;

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
                    if k == 0 {
                        // Merged elements joined another: not listed (their applications are its).
                        el.merged_into().is_none_or(|_| el.ended().is_none_or(|d| d > t))
                    } else {
                        el.present_at(t)
                    }
                })
                .collect();
            let present_node = |x: NodeId| k == 0 || lv.host().present(x, t);
            let mut elements = Vec::with_capacity(listed.len());
            for &e in &listed {
                let el = lv.element(e);
                let mut applications: Vec<Application> = Vec::new();
                let mut nodes: Vec<NodeId> = Vec::new();
                for (i, (m, step)) in el.applications_with_steps().enumerate() {
                    if step > t {
                        break;
                    }
                    let ns = lv.match_nodes(m);
                    if !ns.iter().all(|&x| present_node(x)) {
                        continue;
                    }
                    let mapped: SmallVec<[NodeId; 6]> = if k == 0 {
                        SmallVec::from_slice(ns)
                    } else {
                        ns.iter()
                            .map(|&x| {
                                let b = lv.host().below(x);
                                index_below.get(&b).copied().unwrap_or(NodeId::MAX)
                            })
                            .collect()
                    };
                    if mapped.contains(&NodeId::MAX) {
                        continue;
                    }
                    nodes.extend(mapped.iter().copied());
                    let _ = el.sets()[i] == RECORDED;
                    applications.push(Application {
                        constraint: lv.constraint(m),
                        nodes: mapped,
                    });
                }
                nodes.sort_unstable();
                nodes.dedup();
                if applications.len() > 1 {
                    applications[1..].sort();
                }
                elements.push(Element {
                    class: el.class(),
                    nodes,
                    applications,
                    complete: el.completed().is_some_and(|c| c <= t),
                });
            }
            // In a stable order: by class (declaration order), then nodes, then applications.
            let mut order: Vec<usize> = (0..listed.len()).collect();
            order.sort_by(|&a, &b| {
                let (x, y) = (&elements[a], &elements[b]);
                (x.class, &x.nodes, &x.applications).cmp(&(y.class, &y.nodes, &y.applications))
            });
            let listed: Vec<ElementId> = order.iter().map(|&i| listed[i]).collect();
            let mut slots: Vec<Option<Element>> = elements.into_iter().map(Some).collect();
            let elements: Vec<Element> = order.iter().map(|&i| slots[i].take().expect("once")).collect();
            // The level-n+1 struct over the elements present at t.
            let living = listed
                .iter()
                .zip(&elements)
                .filter(|(e, _)| lv.element(**e).present_at(t))
                .map(|(_, el)| el);
            let above = LevelStruct::from_elements(setting, k as u32 + 1, living);
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
