//! Recognition: every element of every class in an observed structure that does not change, at
//! any level (§3.4.1.2; §5.3.1–5.3.2.1: "identifying all present class elements").
//!
//! There is one recogniser: the timeline's ([`super::timeline`]). A structure observed once is a
//! timeline of one step — a struct's primitives in a topological order, or a level-n struct's
//! nodes and links all present at once — and its elements are those the step's derivations make:
//! maximal derivations, saturated on the schedule's loops, each application's context inside the
//! element, an application already inside an element of a class starting no other, elements whose
//! applications lie in another merged into it (`docs/semantics.md`).

use std::sync::Arc;

use super::element::Element;
use super::hierarchy::recognize_all_with;
use super::ids::ClassId;
use super::level::LevelStruct;
use super::matching::Host;
use super::setting::Setting;
use super::structs::Struct;
use super::timeline::recognize_fixed_level;

/// A structure elements can be recognised in: a struct (level 0, and every level above it), or a
/// level-n struct (level n).
pub trait Observed {
    /// The elements of every class of `level` (complete or still forming).
    fn elements_at(&self, setting: &Setting, level: u32) -> Vec<Element>;
}

impl Observed for Struct {
    fn elements_at(&self, setting: &Setting, level: u32) -> Vec<Element> {
        let mut h = recognize_all_with(setting, self, Some(level), true);
        h.levels
            .get_mut(level as usize)
            .map(|l| std::mem::take(&mut l.elements))
            .unwrap_or_default()
    }
}

impl Observed for LevelStruct {
    fn elements_at(&self, setting: &Setting, level: u32) -> Vec<Element> {
        let nodes = (0..self.len() as u32).map(|n| self.node_kind(n));
        let links = self.links().iter().map(|l| (l.constraint, l.members.clone()));
        recognize_fixed_level(setting, level, nodes, links, true)
    }
}

/// Recognises the elements of every class of `level` in `o` (complete ones and those still in
/// formation: [`Element::complete`] tells them apart).
pub fn recognize_level<O: Observed + ?Sized>(setting: &Setting, level: u32, o: &O) -> Vec<Element> {
    o.elements_at(setting, level)
}

/// Recognises every element of `class` in `o` (of the class's level).
pub fn recognize<O: Observed + ?Sized>(setting: &Setting, class: ClassId, o: &O) -> Vec<Element> {
    let level = setting.class(class).level;
    recognize_level(setting, level, o)
        .into_iter()
        .filter(|e| e.class == class)
        .collect()
}

/// The setting behind an `Arc`, as a timeline holds it.
pub(crate) fn shared(setting: &Setting) -> Arc<Setting> {
    Arc::new(setting.clone())
}
