//! Recognition: every element of a class in an observed structure, at any level.
//!
//! Implements the recognising direction of the class generating system (§3.4.1.2; the thesis asks
//! for it in §5.3.1–5.3.2.1: "identifying all present class elements"). An element is a
//! *maximal* derivation the schedule allows, whose applications each match part of the observed
//! structure:
//! - the first application may take its context from anywhere (the environment supplied it);
//! - every later application has its context inside the working element, shares at least one
//!   node with it and adds at least one new node (§3.4.1.1);
//! - steps whose set loops back to the same schedule state ("any applicable constraint,
//!   repeatedly") are *saturated*: all applicable matches are applied, so the result does not
//!   depend on the order of application (the basis of attention-shift independence, §5.1.4);
//!   other steps branch over every applicable match;
//! - the element's applications are all matches of its class's constraints that lie inside it
//!   with their context inside it, so that overlap is a property of the element, not of one
//!   derivation order (`docs/semantics.md`).
//!
//! Matching is anchored: seeds for a step are the nodes added since the previous round, and
//! candidates are reached along links from them ([`super::matching`]). An application that already
//! belongs to an element of the class does not start another element of that class, so a long
//! chain is recognised once from its earliest start, not once per suffix.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::ops::ControlFlow;

use super::element::{Application, Element};
use super::matching::{Host, for_each_match};
use super::schedule::StateSet;
use super::setting::{ClassId, ConstraintId, Setting};
use super::structs::NodeId;

/// Limits that keep recognition bounded on adversarial settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most branches explored from one seed before the search keeps only what it has.
    pub max_branches: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_branches: 4096 }
    }
}

/// Candidate matches of one constraint against a working element, kept incrementally: every
/// match touching the element with its context inside it, found by seeding only from the nodes
/// added since the last look (a match that becomes valid because node n joined contains n).
#[derive(Clone, Default)]
struct Candidates {
    seen_upto: usize,
    /// Found but not yet applied (applied ones are dropped on the next look).
    pending: Vec<Application>,
    known: FxHashSet<Application>,
}

#[derive(Clone, Default)]
struct Working {
    nodes: FxHashSet<NodeId>,
    order: Vec<NodeId>,
    apps: Vec<Application>,
    app_set: FxHashSet<Application>,
    cands: FxHashMap<ConstraintId, Candidates>,
}

impl Working {
    fn add(&mut self, app: Application) -> bool {
        let mut grew = false;
        for &n in &app.nodes {
            if self.nodes.insert(n) {
                self.order.push(n);
                grew = true;
            }
        }
        if self.app_set.insert(app.clone()) {
            self.apps.push(app);
            grew = true;
        }
        grew
    }

    /// The candidate applications of `c` not yet applied, ascending.
    fn candidates<H: Host + ?Sized>(&mut self, setting: &Setting, c: ConstraintId, host: &H) -> Vec<Application> {
        let mut entry = self.cands.remove(&c).unwrap_or_default();
        if entry.seen_upto < self.order.len() {
            let mut buf = Vec::new();
            touching(setting, c, host, &self.nodes, &self.order[entry.seen_upto..], &mut buf);
            for a in buf {
                if entry.known.insert(a.clone()) {
                    entry.pending.push(a);
                }
            }
            entry.seen_upto = self.order.len();
        }
        entry.pending.retain(|a| !self.app_set.contains(a));
        let mut out = entry.pending.clone();
        out.sort();
        self.cands.insert(c, entry);
        out
    }
}

/// Recognises every element of `class` in `host`.
pub fn recognize<H: Host + Sync + ?Sized>(setting: &Setting, class: ClassId, host: &H) -> Vec<Element> {
    recognize_with(setting, class, host, Limits::default())
}

/// [`recognize`] with explicit limits.
pub fn recognize_with<H: Host + Sync + ?Sized>(
    setting: &Setting,
    class: ClassId,
    host: &H,
    limits: Limits,
) -> Vec<Element> {
    let cls = setting.class(class);
    let nfa = cls.nfa();
    let start = nfa.start();
    // Seeds: every match, anywhere, of a constraint that may start the derivation.
    let mut seeds: Vec<(NodeId, usize, Application)> = Vec::new();
    for set in nfa.sets_out(&start) {
        for &c in &cls.sets[set].constraints {
            let p = &setting.constraint(c).pattern;
            let _ = for_each_match(host, p, &[], &mut |_, _| true, &mut |m| {
                let key = m.iter().copied().max().unwrap_or(0);
                seeds.push((
                    key,
                    set,
                    Application {
                        constraint: c,
                        nodes: SmallVec::from_slice(m),
                    },
                ));
                ControlFlow::Continue(())
            });
        }
    }
    seeds.sort();
    seeds.dedup();
    let mut covered: FxHashSet<Application> = FxHashSet::default();
    let mut out: Vec<Element> = Vec::new();
    let mut seen: FxHashSet<Vec<Application>> = FxHashSet::default();
    for (_, set, app) in seeds {
        if covered.contains(&app) {
            continue;
        }
        let states = nfa.step(&start, set);
        let mut w = Working::default();
        w.add(app);
        let mut results = Vec::new();
        let mut memo = FxHashSet::default();
        let mut budget = limits.max_branches;
        explore(setting, class, host, states, w, &mut results, &mut memo, &mut budget);
        for e in results {
            let mut key = e.applications.clone();
            key.sort();
            if seen.insert(key) {
                covered.extend(e.applications.iter().cloned());
                out.push(e);
            }
        }
    }
    // Drop elements whose applications all lie inside another element of the class.
    let mut index: FxHashMap<&Application, Vec<usize>> = FxHashMap::default();
    for (i, e) in out.iter().enumerate() {
        for a in &e.applications {
            index.entry(a).or_default().push(i);
        }
    }
    let keep: Vec<bool> = out
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let Some(cands) = index.get(&e.applications[0]) else {
                return true;
            };
            !cands.iter().any(|&j| {
                j != i
                    && out[j].applications.len() > e.applications.len()
                    && e.applications
                        .iter()
                        .all(|a| index.get(a).is_some_and(|v| v.contains(&j)))
            })
        })
        .collect();
    let mut out: Vec<Element> = out.into_iter().zip(keep).filter(|(_, k)| *k).map(|(e, _)| e).collect();
    out.sort_by(|a, b| a.nodes.cmp(&b.nodes).then_with(|| a.applications.cmp(&b.applications)));
    out
}

/// Matches of constraint `c` that touch one of `seeds` and have their context inside `inside`.
fn touching<H: Host + ?Sized>(
    setting: &Setting,
    c: ConstraintId,
    host: &H,
    inside: &FxHashSet<NodeId>,
    seeds: &[NodeId],
    out: &mut Vec<Application>,
) {
    let p = &setting.constraint(c).pattern;
    // A match is valid once its whole context is inside; it becomes valid when its last context node
    // joins, so with a context part only context positions need seeding.
    let has_context = p.vars.iter().any(|v| v.context);
    for (v, var) in p.vars.iter().enumerate() {
        if has_context && !var.context {
            continue;
        }
        for &n in seeds {
            if host.node_kind(n) != var.kind {
                continue;
            }
            let _ = for_each_match(
                host,
                p,
                &[(v, n)],
                &mut |vi, node| !p.vars[vi].context || inside.contains(&node),
                &mut |m| {
                    out.push(Application {
                        constraint: c,
                        nodes: SmallVec::from_slice(m),
                    });
                    ControlFlow::Continue(())
                },
            );
        }
    }
    out.sort();
    out.dedup();
}

#[allow(clippy::too_many_arguments)]
fn explore<H: Host + ?Sized>(
    setting: &Setting,
    class: ClassId,
    host: &H,
    mut states: StateSet,
    mut w: Working,
    results: &mut Vec<Element>,
    memo: &mut FxHashSet<(StateSet, Vec<Application>)>,
    budget: &mut usize,
) {
    let cls = setting.class(class);
    let nfa = cls.nfa();
    loop {
        // 1. Saturate the sets that loop back to the current state.
        let out_sets = nfa.sets_out(&states);
        let loops: Vec<usize> = out_sets
            .iter()
            .copied()
            .filter(|&s| nfa.step(&states, s) == states)
            .collect();
        if !loops.is_empty() {
            let mut loop_cons: Vec<ConstraintId> = loops
                .iter()
                .flat_map(|&s| cls.sets[s].constraints.iter().copied())
                .collect();
            loop_cons.sort_unstable();
            loop_cons.dedup();
            loop {
                let mut grew = false;
                for &c in &loop_cons {
                    for app in w.candidates(setting, c, host) {
                        grew |= w.add(app);
                    }
                }
                if !grew {
                    break;
                }
            }
        }
        // 2. Steps that leave the current state: branch over every applicable match.
        let mut options: Vec<(StateSet, Application)> = Vec::new();
        let mut contained: Vec<Application> = Vec::new();
        for &s in &out_sets {
            let target = nfa.step(&states, s);
            if target == states {
                continue;
            }
            for &c in &cls.sets[s].constraints {
                for app in w.candidates(setting, c, host) {
                    if app.nodes.iter().any(|n| !w.nodes.contains(n)) {
                        options.push((target.clone(), app));
                    } else {
                        contained.push(app);
                    }
                }
            }
        }
        if options.is_empty() {
            // Matches that lie wholly inside count as applications of the element, and so do
            // the matches of the constraints the class records.
            for app in contained {
                w.add(app);
            }
            for &c in &cls.overlaps {
                for app in w.candidates(setting, c, host) {
                    if app.nodes.iter().all(|n| w.nodes.contains(n)) {
                        w.add(app);
                    }
                }
            }
            let mut nodes = w.order;
            nodes.sort_unstable();
            let mut apps = w.apps;
            apps[1..].sort();
            results.push(Element {
                class,
                nodes,
                applications: apps,
                complete: nfa.accepts(&states),
            });
            return;
        }
        if options.len() == 1 {
            let (target, app) = options.pop().expect("one option");
            w.add(app);
            states = target;
            continue;
        }
        for (target, app) in options {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let mut w2 = w.clone();
            w2.add(app);
            let mut key = w2.apps.clone();
            key.sort();
            if memo.insert((target.clone(), key)) {
                explore(setting, class, host, target, w2, results, memo, budget);
            }
        }
        return;
    }
}

/// Recognises the elements of every class of `level`, classes in declaration order, in parallel
/// across classes. Returns the elements and, for each, its class.
pub fn recognize_level<H: Host + Sync + ?Sized>(setting: &Setting, level: u32, host: &H) -> Vec<Element> {
    use rayon::prelude::*;
    let classes = setting.classes_at(level);
    let per: Vec<Vec<Element>> = classes.par_iter().map(|&c| recognize(setting, c, host)).collect();
    per.into_iter().flatten().collect()
}
