//! The lives of a timeline's elements as data (§3.4, §5.1.1): for every element begun at every
//! level, its class, when it was born, became complete and ended (and why), what it merged into,
//! and its formative history — the steps at which each of its constraints applied. One serialiser
//! for every front-end (`ets evolve` for any domain, `ets classify --timeline` for games): they
//! differ only in how they name the primitives an element involves. The JSON is documented in
//! `docs/formats.md` ("Timeline JSON").

use serde::Serialize;
use std::collections::BTreeMap;

use super::{EndKind, Timeline};
use crate::ets::ids::ElementId;

/// Every element of a timeline with its life, level by level.
#[derive(Debug, Clone, Serialize)]
pub struct TimelineJson {
    /// The last step (for a game: the last position).
    pub moves: u32,
    /// Per level.
    pub levels: Vec<TimelineLevelJson>,
}

/// One level of [`TimelineJson`].
#[derive(Debug, Clone, Serialize)]
pub struct TimelineLevelJson {
    /// The level.
    pub level: u32,
    /// Every element begun.
    pub elements: Vec<LifeJson>,
}

/// One element's life.
#[derive(Debug, Clone, Serialize)]
pub struct LifeJson {
    /// `L{level}:{id}`.
    pub id: String,
    /// Class name.
    pub class: String,
    /// The thesis's symbol, if any.
    pub thesis: Option<String>,
    /// What it involves when it was last present, as the front-end names it.
    pub vertices: Vec<String>,
    /// The step of its first application.
    pub born: u32,
    /// The step it became complete at (none: it is still forming).
    pub completed: Option<u32>,
    /// The first step it is no longer present at, if any.
    pub died: Option<u32>,
    /// Why it ended.
    pub end: EndKind,
    /// The element it merged into, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<String>,
    /// Levels ≥ 1: per constraint, the steps at which it applied it (its formative history).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub history: BTreeMap<String, Vec<u32>>,
}

/// Every element begun up to step `last` (stillborn ones left out; those never complete only with
/// `forming`), each named by `vertices(level, element, step)` as it stood at `step`, the last step
/// it was present at.
pub fn lives(
    tl: &Timeline,
    last: u32,
    forming: bool,
    mut vertices: impl FnMut(u32, ElementId, u32) -> Vec<String>,
) -> TimelineJson {
    let st = tl.setting();
    let levels = tl
        .levels()
        .iter()
        .map(|lv| {
            let level = lv.number();
            let elements = (0..lv.elements().len() as ElementId)
                .filter(|&e| {
                    let el = lv.element(e);
                    !el.is_stillborn() && (forming || el.completed().is_some())
                })
                .map(|e| {
                    let el = lv.element(e);
                    let cl = st.class(el.class());
                    let seen = el.ended().map_or(last, |d| d.saturating_sub(1).max(el.born()));
                    let mut history: BTreeMap<String, Vec<u32>> = BTreeMap::new();
                    if level > 0 {
                        for (m, step) in lv.applications_with_steps(e) {
                            let v = history.entry(st.constraint(lv.constraint(m)).name.clone()).or_default();
                            if v.last() != Some(&step) {
                                v.push(step);
                            }
                        }
                    }
                    LifeJson {
                        id: format!("L{level}:{e}"),
                        class: cl.name.clone(),
                        thesis: cl.symbol.clone(),
                        vertices: vertices(level, e, seen),
                        born: el.born(),
                        completed: el.completed(),
                        died: el.ended(),
                        end: el.end_kind(),
                        merged_into: el.merged_into().map(|m| format!("L{level}:{m}")),
                        history,
                    }
                })
                .collect();
            TimelineLevelJson { level, elements }
        })
        .collect();
    TimelineJson { moves: last, levels }
}
