//! Semantic checks of `ets check` (`docs/dsl.md`, "Checks"): what is well typed but that no
//! struct can satisfy, that matches anything, or that a class can never use.
//!
//! - A constraint (§3.4.1.1) is a family of structs "whose primitives are Π and whose processes
//!   include" the constraint's. Processes that form a cycle are satisfied by no struct (a struct
//!   is temporally acyclic, §3.3.2): an error. A new (not context) variable linked to nothing
//!   would match any primitive (element) of its type anywhere, beside the rest: an error (a
//!   context variable linked to nothing is bound inside the working element: allowed). Linked
//!   variables that fall into unconnected parts: a warning (each part matches anywhere,
//!   independently).
//! - A class generating system (§3.4.1.2) applies a constraint only when its context part is
//!   already in the working element; the working element holds only what earlier steps brought
//!   (the first step's context comes from the environment). A constraint whose context needs a
//!   type that no earlier step can bring can never be applied there (a warning); a class that can
//!   never reach the end of its schedule that way can never be complete (an error).
//! - Schedules are bounded: unrolled bounded repetitions at most [`MAX_SCHEDULE_STEPS`] steps, the
//!   automaton at most [`MAX_SCHEDULE_STATES`] states.

use std::collections::{HashMap, VecDeque};

use super::ast::Span;
use super::error::{DslError, ErrorKind, Severity};
use crate::ets::{ClassId, ConstraintSet, Nfa, Pattern, Schedule, Setting};

/// The most steps a schedule may unroll to.
pub const MAX_SCHEDULE_STEPS: u64 = 4096;
/// The most states a schedule's automaton may have.
pub const MAX_SCHEDULE_STATES: usize = 4096;

/// Where in a constraint a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A variable, by index.
    Var(usize),
    /// A link, by index.
    Link(usize),
    /// The constraint's name.
    Name,
}

/// A finding about a constraint's pattern.
#[derive(Debug, Clone)]
pub struct Finding {
    /// What.
    pub kind: ErrorKind,
    /// Error or warning.
    pub severity: Severity,
    /// Where.
    pub at: At,
    /// Other places.
    pub labels: Vec<(At, String)>,
}

impl Finding {
    /// The diagnostic at `span` (without the secondary labels).
    pub fn at_span(&self, span: Span) -> DslError {
        let mut e = DslError::new(self.kind.clone(), span);
        e.severity = self.severity;
        e
    }
}

/// The checks of one well-typed constraint pattern of level `level`.
pub fn pattern(name: &str, level: u32, p: &Pattern) -> Vec<Finding> {
    let mut out = Vec::new();
    let err = |why: String, at: At| Finding {
        kind: ErrorKind::Constraint {
            name: name.to_string(),
            why,
        },
        severity: Severity::Error,
        at,
        labels: Vec::new(),
    };
    let n = p.vars.len();
    if n < 2 {
        out.push(err(
            "a constraint needs at least two variables: one shared with the working struct, one new".into(),
            At::Name,
        ));
        return out;
    }
    if p.vars.iter().all(|v| v.context) {
        out.push(err(
            "every variable is context: an application would add nothing to the working struct".into(),
            At::Name,
        ));
    }
    let level0 = level == 0;
    let link_word = if level0 { "process" } else { "class element link" };
    if p.links.is_empty() && p.vars.iter().any(|v| !v.context) {
        out.push(err(
            format!(
                "it has no {link_word}: it would hold for any {} anywhere, however unrelated",
                p.vars
                    .iter()
                    .map(|v| format!("`{}`", v.name))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            At::Name,
        ));
        return out;
    }
    // Cycles among processes.
    if level0 {
        let mut out_links: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for (i, l) in p.links.iter().enumerate() {
            out_links[l.ends[0].0 as usize].push((l.ends[1].0 as usize, i));
        }
        if let Some(cycle) = find_cycle(&out_links) {
            let names: Vec<&str> = cycle
                .iter()
                .map(|&li| p.vars[p.links[li].ends[0].0 as usize].name.as_str())
                .chain(std::iter::once(
                    p.vars[p.links[cycle[0]].ends[0].0 as usize].name.as_str(),
                ))
                .collect();
            let mut f = err(
                format!(
                    "its processes form a cycle ({}): time runs one way, so no struct satisfies it",
                    names.join(" -> ")
                ),
                At::Link(*cycle.last().expect("a cycle has a link")),
            );
            for &li in &cycle[..cycle.len() - 1] {
                f.labels.push((At::Link(li), "part of the cycle".into()));
            }
            out.push(f);
        }
    }
    // Variables linked to nothing, and unconnected parts.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while parent[r] != r {
            r = parent[r];
        }
        let mut y = x;
        while parent[y] != r {
            let nx = parent[y];
            parent[y] = r;
            y = nx;
        }
        r
    }
    let mut linked = vec![false; n];
    for l in &p.links {
        let a = l.ends[0].0 as usize;
        for e in &l.ends {
            linked[e.0 as usize] = true;
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, e.0 as usize));
            parent[ra] = rb;
        }
    }
    // A context variable linked to nothing is bound inside the working element (some other
    // element or primitive of its type must be there): allowed. A new one would be anything.
    let mut unlinked = false;
    for (i, v) in p.vars.iter().enumerate() {
        if !linked[i] && !v.context {
            unlinked = true;
            out.push(err(
                format!(
                    "variable `{}` takes part in no {link_word}: the constraint would hold with it bound to anything of its type, anywhere",
                    v.name
                ),
                At::Var(i),
            ));
        }
    }
    if !unlinked {
        let mut parts: Vec<Vec<&str>> = Vec::new();
        let mut root_of: HashMap<usize, usize> = HashMap::new();
        for (i, v) in p.vars.iter().enumerate() {
            if !linked[i] {
                continue;
            }
            let r = find(&mut parent, i);
            let k = *root_of.entry(r).or_insert_with(|| {
                parts.push(Vec::new());
                parts.len() - 1
            });
            parts[k].push(&v.name);
        }
        if parts.len() > 1 {
            out.push(Finding {
                kind: ErrorKind::Constraint {
                    name: name.to_string(),
                    why: format!(
                        "its variables fall into {} unconnected parts ({}): each part matches anywhere, independently of the others",
                        parts.len(),
                        parts
                            .iter()
                            .map(|p| format!("{{{}}}", p.join(", ")))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
                severity: Severity::Warning,
                at: At::Name,
                labels: Vec::new(),
            });
        }
    }
    out
}

/// A directed cycle in a graph given by out-links `(target, link index)`: its links in order.
fn find_cycle(out: &[Vec<(usize, usize)>]) -> Option<Vec<usize>> {
    let n = out.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on the path, 2 done
    for s in 0..n {
        if state[s] != 0 {
            continue;
        }
        // iterative depth-first search; `path` holds (node, next out-link index, link taken to it)
        let mut path: Vec<(usize, usize, Option<usize>)> = vec![(s, 0, None)];
        state[s] = 1;
        while let Some(top) = path.last_mut() {
            let (v, i) = (top.0, top.1);
            if i < out[v].len() {
                top.1 += 1;
                let (w, li) = out[v][i];
                match state[w] {
                    0 => {
                        state[w] = 1;
                        path.push((w, 0, Some(li)));
                    }
                    1 => {
                        let start = path.iter().position(|p| p.0 == w).expect("on the path");
                        let mut links: Vec<usize> = path[start + 1..].iter().filter_map(|p| p.2).collect();
                        links.push(li);
                        return Some(links);
                    }
                    _ => {}
                }
            } else {
                state[v] = 2;
                path.pop();
            }
        }
    }
    None
}

/// Size of a schedule once its bounded repetitions are unrolled.
fn unrolled(s: &Schedule) -> u64 {
    match s {
        Schedule::Step(_) => 1,
        Schedule::Seq(v) | Schedule::Alt(v) => v.iter().map(unrolled).fold(0u64, |a, b| a.saturating_add(b)),
        Schedule::Repeat { body, min, max } => {
            let copies = match max {
                Some(m) => u64::from((*m).max(*min)).max(1),
                None => u64::from(*min) + 1,
            };
            unrolled(body).saturating_mul(copies)
        }
    }
}

/// Whether a class's schedule stays within the limits.
pub fn schedule_size(class: &str, s: &Schedule, sets: &[ConstraintSet]) -> Result<(), ErrorKind> {
    let n = unrolled(s);
    if n > MAX_SCHEDULE_STEPS {
        return Err(ErrorKind::Limit(format!(
            "the schedule of class `{class}` unrolls to {n} steps; at most {MAX_SCHEDULE_STEPS} are allowed"
        )));
    }
    let nfa = Nfa::compile(s, &|i| sets.get(i).is_some_and(|x| x.null));
    let mut seen: HashMap<Vec<u32>, ()> = HashMap::new();
    let mut queue = VecDeque::new();
    let start = nfa.start();
    seen.insert(start.clone(), ());
    queue.push_back(start);
    while let Some(q) = queue.pop_front() {
        for set in nfa.sets_out(&q) {
            let t = nfa.step(&q, set);
            if t.is_empty() || seen.contains_key(&t) {
                continue;
            }
            seen.insert(t.clone(), ());
            if seen.len() > MAX_SCHEDULE_STATES {
                return Err(ErrorKind::Limit(format!(
                    "the schedule of class `{class}` needs more than {MAX_SCHEDULE_STATES} automaton states"
                )));
            }
            queue.push_back(t);
        }
    }
    Ok(())
}

/// A finding about a class, at a set member if it has a place there.
#[derive(Debug, Clone)]
pub struct ClassFinding {
    /// What.
    pub kind: ErrorKind,
    /// Error or warning.
    pub severity: Severity,
    /// Where, if known (else at the class's name).
    pub span: Option<Span>,
}

impl ClassFinding {
    /// The diagnostic, at `default` when it has no place of its own.
    pub fn at(self, default: Span) -> DslError {
        let mut e = DslError::new(self.kind, self.span.unwrap_or(default));
        e.severity = self.severity;
        e
    }
}

/// Contexts a class can never satisfy, and whether it can complete at all. `span_of(set, name)`
/// is where a set names a constraint.
pub fn class_contexts(st: &Setting, id: ClassId, span_of: &dyn Fn(&str, &str) -> Option<Span>) -> Vec<ClassFinding> {
    let cls = st.class(id);
    let dfa = cls.dfa();
    let kinds = if cls.level == 0 {
        st.alphabet().len()
    } else {
        st.classes().len()
    };
    let kind_name = |k: u32| -> String {
        if cls.level == 0 {
            format!("`{}`", st.alphabet().primitive(crate::ets::PrimitiveKind(k)).name)
        } else {
            format!("an element of `{}`", st.class(ClassId(k)).name)
        }
    };
    // Over-approximation: per state, the types its working element may hold.
    let mut have: Vec<Option<Vec<bool>>> = vec![None; dfa.len()];
    have[dfa.start() as usize] = Some(vec![false; kinds]);
    let mut applied_somewhere: HashMap<(usize, u32), bool> = HashMap::new();
    let mut viable: Vec<Vec<u32>> = vec![Vec::new(); dfa.len()];
    let mut queue: VecDeque<u32> = VecDeque::from([dfa.start()]);
    let applicable = |c: crate::ets::ConstraintId, k: &[bool], first: bool| -> bool {
        if first {
            return true;
        }
        let p = &st.constraint(c).pattern;
        if p.vars.iter().any(|v| v.context) {
            p.vars.iter().filter(|v| v.context).all(|v| k[v.kind as usize])
        } else {
            p.vars.iter().any(|v| k[v.kind as usize])
        }
    };
    let mut rounds = 0usize;
    while let Some(q) = queue.pop_front() {
        rounds += 1;
        if rounds > 64 * dfa.len() * (kinds + 1) {
            break; // cannot happen (each state's set only grows), but stay bounded
        }
        let k = have[q as usize].clone().expect("queued states are reached");
        let first = q == dfa.start() && k.iter().all(|x| !x);
        for set in dfa.sets_out(q).collect::<Vec<_>>() {
            let Some(t) = dfa.step(q, set) else { continue };
            for &c in &cls.sets[set].constraints {
                let ok = applicable(c, &k, first);
                let e = applied_somewhere.entry((set, c.0)).or_insert(false);
                *e |= ok;
                if !ok {
                    continue;
                }
                if !viable[q as usize].contains(&t) {
                    viable[q as usize].push(t);
                }
                let mut nk = k.clone();
                for v in &st.constraint(c).pattern.vars {
                    nk[v.kind as usize] = true;
                }
                let grew = match &mut have[t as usize] {
                    None => {
                        have[t as usize] = Some(nk);
                        true
                    }
                    Some(old) => {
                        let mut g = false;
                        for (o, n) in old.iter_mut().zip(&nk) {
                            if *n && !*o {
                                *o = true;
                                g = true;
                            }
                        }
                        g
                    }
                };
                if grew {
                    queue.push_back(t);
                }
            }
        }
    }
    // Constraints that can never be applied where their set is used.
    let mut never: Vec<(String, Option<Span>)> = Vec::new();
    let mut keys: Vec<(usize, u32)> = applied_somewhere.keys().copied().collect();
    keys.sort_unstable();
    for (set, c) in keys {
        if applied_somewhere[&(set, c)] {
            continue;
        }
        let con = st.constraint(crate::ets::ConstraintId(c));
        let missing: Vec<String> = {
            let mut m: Vec<u32> = con.pattern.vars.iter().filter(|v| v.context).map(|v| v.kind).collect();
            m.sort_unstable();
            m.dedup();
            m.into_iter().map(kind_name).collect()
        };
        never.push((
            format!(
                "`{}` in set `{}` can never be applied: its context needs {}, which no earlier step of the class can bring",
                con.name,
                cls.sets[set].name,
                missing.join(" and ")
            ),
            span_of(&cls.sets[set].name, &con.name),
        ));
    }
    // Can an accepting state be reached by at least one viable step?
    let mut seen = vec![false; dfa.len()];
    let mut queue: VecDeque<u32> = viable[dfa.start() as usize].iter().copied().collect();
    let mut completes = false;
    while let Some(q) = queue.pop_front() {
        if seen[q as usize] {
            continue;
        }
        seen[q as usize] = true;
        if dfa.accepts(q) {
            completes = true;
            break;
        }
        queue.extend(viable[q as usize].iter().copied());
    }
    if !completes {
        // one mistake: the class is useless; the steps that block it are its reasons
        let why = match never.first() {
            Some((w, _)) => format!("no element can ever be complete: {w}"),
            None => {
                "no element can ever be complete: every way through its schedule needs a step that cannot be applied"
                    .into()
            }
        };
        return vec![ClassFinding {
            kind: ErrorKind::Class {
                name: cls.name.clone(),
                why,
            },
            severity: Severity::Error,
            span: never.first().and_then(|n| n.1),
        }];
    }
    never
        .into_iter()
        .map(|(why, span)| ClassFinding {
            kind: ErrorKind::Class {
                name: cls.name.clone(),
                why,
            },
            severity: Severity::Warning,
            span,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_found_with_their_links() {
        // 0 -> 1 -> 2 -> 0, and 2 -> 3
        let out = vec![vec![(1, 0)], vec![(2, 1)], vec![(0, 2), (3, 3)], vec![]];
        assert_eq!(find_cycle(&out), Some(vec![0, 1, 2]));
        let dag = vec![vec![(1, 0)], vec![(2, 1)], vec![], vec![(0, 2)]];
        assert_eq!(find_cycle(&dag), None);
    }

    #[test]
    fn unrolled_sizes() {
        let a = Schedule::Step(0);
        assert_eq!(unrolled(&Schedule::times(a.clone(), 64)), 64);
        let nested = Schedule::times(Schedule::times(Schedule::times(a.clone(), 64), 64), 64);
        assert_eq!(unrolled(&nested), 262_144);
        assert_eq!(unrolled(&Schedule::star(a)), 1);
    }
}
