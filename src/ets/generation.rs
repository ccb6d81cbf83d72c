//! Generation: sampling an element of a class with its generating system, at any level.
//!
//! Implements the generating direction of §3.4.1.2: "At each step in the process of forming a
//! class element, the generating system non-deterministically chooses one constraint from the
//! corresponding set, and applies it", with the environment given a turn between steps (Fig. 3.7).
//! Applying a constraint (§3.4.1.1) chooses a struct satisfying it and assembles it with the
//! working struct: the context variables are bound to primitives already in the working element,
//! at least one variable is shared, and the other variables become new primitives joined by the
//! constraint's processes. The first context, which no working struct holds yet, is supplied by
//! the environment (§4.5.2: "the context used by this first constraint must be supplied by the
//! environment"). Non-determinism comes from a seeded ChaCha RNG, so a seed names one element.

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashSet;
use smallvec::SmallVec;
use std::ops::ControlFlow;

use super::element::{Application, Element};
use super::matching::{Host, LinkLabel, Pattern, for_each_match};
use super::setting::{ClassId, ConstraintId, Setting};
use super::structs::{NodeId, Struct};

/// A structure elements can be generated into: a struct, or a level-n struct.
pub trait Workspace: Host {
    /// Adds a node of the given type.
    fn add_node(&mut self, kind: u32) -> Result<NodeId, String>;
    /// Whether a link with these existing ends could be added (sites free, types right).
    fn can_link(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool;
    /// Adds a link.
    fn add_link(&mut self, label: LinkLabel, ends: &[(NodeId, u8)]) -> Result<(), String>;
    /// Whether the end `role` of a link `label` is free at node `n` (a site holds one process).
    fn end_free(&self, _n: NodeId, _label: LinkLabel, _role: u8) -> bool {
        true
    }
    /// Whether `a` precedes `b` (only structs are temporal).
    fn precedes_node(&self, _a: NodeId, _b: NodeId) -> bool {
        false
    }
}

impl Workspace for Struct {
    fn add_node(&mut self, kind: u32) -> Result<NodeId, String> {
        self.add_primitive(super::primitive::PrimitiveKind(kind))
            .map_err(|e| e.to_string())
    }
    fn can_link(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool {
        let LinkLabel::Process { from_site, to_site } = label else {
            return false;
        };
        let (Some(f), Some(t)) = (ends.iter().find(|e| e.1 == 0), ends.iter().find(|e| e.1 == 1)) else {
            return false;
        };
        self.check_connect(f.0, from_site as usize, t.0, to_site as usize)
            .is_ok()
            && !self.precedes(t.0, f.0)
    }
    fn add_link(&mut self, label: LinkLabel, ends: &[(NodeId, u8)]) -> Result<(), String> {
        let LinkLabel::Process { from_site, to_site } = label else {
            return Err("structs hold processes".into());
        };
        let (Some(f), Some(t)) = (ends.iter().find(|e| e.1 == 0), ends.iter().find(|e| e.1 == 1)) else {
            return Err("a process needs a source and a target".into());
        };
        self.connect(f.0, from_site as usize, t.0, to_site as usize)
            .map_err(|e| e.to_string())
    }
    fn end_free(&self, n: NodeId, label: LinkLabel, role: u8) -> bool {
        let LinkLabel::Process { from_site, to_site } = label else {
            return false;
        };
        if role == 0 {
            self.successor(n, from_site as usize).is_none()
        } else {
            self.predecessor(n, to_site as usize).is_none()
        }
    }
    fn precedes_node(&self, a: NodeId, b: NodeId) -> bool {
        self.precedes(a, b)
    }
}

/// Options of [`generate`].
#[derive(Debug, Clone, Copy)]
pub struct GenerateOptions {
    /// Most steps before generation stops.
    pub max_steps: usize,
    /// Probability of stopping at each step where the schedule may end.
    pub stop_probability: f64,
    /// Whether the first step may take its context from what the workspace already holds (the
    /// environment supplies the first context, §4.5.2); when no match of the context is there, or
    /// when this is off, the first step creates every variable.
    pub environment_context: bool,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            max_steps: 64,
            stop_probability: 0.25,
            environment_context: false,
        }
    }
}

/// The environment's turn between steps: it may attach primitives to the workspace (Fig. 3.7).
/// It is given the working element's nodes.
pub type Environment<'a, W> = dyn FnMut(&mut W, &[NodeId], &mut ChaCha8Rng) + 'a;

/// Generates one element of `class` into `ws`, with randomness from `seed`; the environment has
/// a turn before every step after the first.
pub fn generate<W: Workspace>(
    setting: &Setting,
    class: ClassId,
    ws: &mut W,
    seed: u64,
    opts: GenerateOptions,
    env: &mut Environment<'_, W>,
) -> Result<Element, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let cls = setting.class(class);
    let nfa = cls.nfa();
    let mut states = nfa.start();
    let mut order: Vec<NodeId> = Vec::new();
    let mut inside: FxHashSet<NodeId> = FxHashSet::default();
    let mut apps: Vec<Application> = Vec::new();
    for step in 0..opts.max_steps {
        if step > 0 {
            env(ws, &order, &mut rng);
        }
        let mut sets = nfa.sets_out(&states);
        if nfa.accepts(&states) && (sets.is_empty() || rng.random_bool(opts.stop_probability)) {
            break;
        }
        sets.shuffle(&mut rng);
        let mut applied = None;
        'sets: for s in sets {
            let mut cons = cls.sets[s].constraints.clone();
            cons.shuffle(&mut rng);
            for c in cons {
                if let Some(app) = try_apply(setting, c, ws, &inside, opts.environment_context, &mut rng)? {
                    applied = Some((s, app));
                    break 'sets;
                }
            }
        }
        let Some((s, app)) = applied else { break };
        for &n in &app.nodes {
            if inside.insert(n) {
                order.push(n);
            }
        }
        apps.push(app);
        states = nfa.step(&states, s);
        if cls.ends_with(s) {
            // the generating system has terminated (`Class::ends`)
            break;
        }
    }
    if apps.is_empty() {
        return Err(format!("no constraint of class `{}` could be applied", cls.name));
    }
    let mut nodes = order;
    nodes.sort_unstable();
    Ok(Element {
        class,
        nodes,
        applications: apps,
        complete: nfa.accepts(&states),
    })
}

/// Tries to apply constraint `c` to the working element `inside` in `ws`; `Ok(None)` when it is
/// not applicable.
fn try_apply<W: Workspace>(
    setting: &Setting,
    c: ConstraintId,
    ws: &mut W,
    inside: &FxHashSet<NodeId>,
    environment_context: bool,
    rng: &mut ChaCha8Rng,
) -> Result<Option<Application>, String> {
    let p = &setting.constraint(c).pattern;
    let n = p.vars.len();
    let mut bindings: Vec<Vec<Option<NodeId>>> = Vec::new();
    if inside.is_empty() {
        // First step: the environment supplies the context. With `environment_context`, a match
        // of the context already in the workspace is tried first (in random order); otherwise,
        // or failing that, everything is created.
        let ctx: Vec<usize> = (0..n).filter(|&v| p.vars[v].context).collect();
        if environment_context && !ctx.is_empty() && ws.node_count() > 0 {
            let sub = sub_pattern(p, &ctx);
            let mut found: Vec<Vec<Option<NodeId>>> = Vec::new();
            let _ = for_each_match(&*ws, &sub, &[], &mut |_, _| true, &mut |m| {
                let mut b = vec![None; n];
                for (i, &v) in ctx.iter().enumerate() {
                    b[v] = Some(m[i]);
                }
                found.push(b);
                if found.len() >= 256 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            found.shuffle(rng);
            for b in found {
                if feasible(p, ws, &b) {
                    return apply_binding(p, c, ws, &b).map(Some);
                }
            }
        }
        bindings.push(vec![None; n]);
    } else {
        let ctx: Vec<usize> = (0..n).filter(|&v| p.vars[v].context).collect();
        if ctx.is_empty() {
            // No context: share one variable with the working element.
            let mut inside_sorted: Vec<NodeId> = inside.iter().copied().collect();
            inside_sorted.sort_unstable();
            for v in 0..n {
                for &node in &inside_sorted {
                    if ws.node_kind(node) == p.vars[v].kind {
                        let mut b = vec![None; n];
                        b[v] = Some(node);
                        bindings.push(b);
                    }
                }
            }
        } else {
            let sub = sub_pattern(p, &ctx);
            let _ = for_each_match(&*ws, &sub, &[], &mut |_, node| inside.contains(&node), &mut |m| {
                let mut b = vec![None; n];
                for (i, &v) in ctx.iter().enumerate() {
                    b[v] = Some(m[i]);
                }
                bindings.push(b);
                if bindings.len() >= 256 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        }
    }
    bindings.shuffle(rng);
    for b in bindings {
        if !feasible(p, ws, &b) {
            continue;
        }
        return apply_binding(p, c, ws, &b).map(Some);
    }
    Ok(None)
}

/// Applies constraint `c` (pattern `p`) with binding `b`: bound variables are those nodes, the
/// others new nodes; the pattern's links are added where missing.
fn apply_binding<W: Workspace>(
    p: &Pattern,
    c: ConstraintId,
    ws: &mut W,
    b: &[Option<NodeId>],
) -> Result<Application, String> {
    let mut nodes = SmallVec::with_capacity(b.len());
    for (v, bound) in b.iter().enumerate() {
        nodes.push(match bound {
            Some(x) => *x,
            None => ws.add_node(p.vars[v].kind)?,
        });
    }
    for l in &p.links {
        let ends: Vec<(NodeId, u8)> = l.ends.iter().map(|&(v, r)| (nodes[v as usize], r)).collect();
        if !ws.linked(l.label, &ends) {
            ws.add_link(l.label, &ends)?;
        }
    }
    Ok(Application { constraint: c, nodes })
}

/// The pattern restricted to the variables `keep` (renumbered in order).
fn sub_pattern(p: &Pattern, keep: &[usize]) -> Pattern {
    let idx = |v: usize| keep.iter().position(|&k| k == v);
    Pattern {
        vars: keep.iter().map(|&v| p.vars[v].clone()).collect(),
        links: p
            .links
            .iter()
            .filter(|l| l.ends.iter().all(|e| idx(e.0 as usize).is_some()))
            .map(|l| {
                let mut l = l.clone();
                for e in l.ends.iter_mut() {
                    e.0 = idx(e.0 as usize).expect("kept") as u16;
                }
                l
            })
            .collect(),
    }
}

/// Whether binding `b` (existing nodes for some variables, fresh for the rest) can be completed
/// without breaking an invariant of the workspace.
fn feasible<W: Workspace>(p: &Pattern, ws: &W, b: &[Option<NodeId>]) -> bool {
    for l in &p.links {
        let bound: Vec<(NodeId, u8)> = l
            .ends
            .iter()
            .filter_map(|&(v, r)| b[v as usize].map(|x| (x, r)))
            .collect();
        if bound.len() == l.ends.len() {
            if !ws.linked(l.label, &bound) && !ws.can_link(l.label, &bound) {
                return false;
            }
        } else if bound.iter().any(|&(x, r)| !ws.end_free(x, l.label, r)) {
            return false;
        }
    }
    // A path bound X → fresh … → bound Y needs Y not to precede X (nor be X).
    let n = p.vars.len();
    let mut reach = vec![vec![false; n]; n];
    for l in &p.links {
        if let (LinkLabel::Process { .. }, [(a, _), (c, _)]) = (l.label, l.ends.as_slice()) {
            reach[*a as usize][*c as usize] = true;
        }
    }
    for k in 0..n {
        if b[k].is_some() {
            continue;
        }
        for i in 0..n {
            for j in 0..n {
                if reach[i][k] && reach[k][j] {
                    reach[i][j] = true;
                }
            }
        }
    }
    for i in 0..n {
        for j in 0..n {
            if let (Some(x), Some(y)) = (b[i], b[j])
                && reach[i][j]
                && (x == y || ws.precedes_node(y, x))
            {
                return false;
            }
        }
    }
    true
}
