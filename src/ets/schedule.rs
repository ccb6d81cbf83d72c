//! Schedules of class generating systems: the order in which constraint sets are used.
//!
//! Implements the "rules describing the order in which to use them" of §3.4.1.2. The thesis's
//! generating systems are sequences ("A, then B four times, then C", C4 in §4.5.3), bounded and
//! unbounded repetitions ("A, B repeated, C optional", Def. 1), optional steps (sets containing the
//! null constraint Θ) and "any applicable constraint, repeatedly" (§4.5.1). A [`Schedule`] is a
//! regular expression over set indices; it compiles (Thompson's construction) to an [`Nfa`] whose
//! transitions are labelled by sets, which recognition and generation walk step by step.

use serde::{Deserialize, Serialize};

/// A regular expression over the constraint sets of a class.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Schedule {
    /// One step: choose one constraint from the set with this index (or Θ, if the set holds it).
    Step(usize),
    /// The parts one after the other.
    Seq(Vec<Schedule>),
    /// One of the alternatives.
    Alt(Vec<Schedule>),
    /// The body between `min` and `max` times (`None`: unbounded).
    Repeat {
        /// The repeated part.
        body: Box<Schedule>,
        /// Least number of repetitions.
        min: u32,
        /// Greatest number, if bounded.
        max: Option<u32>,
    },
}

impl Schedule {
    /// The body zero or one time.
    pub fn optional(body: Schedule) -> Schedule {
        Schedule::Repeat {
            body: Box::new(body),
            min: 0,
            max: Some(1),
        }
    }
    /// The body any number of times.
    pub fn star(body: Schedule) -> Schedule {
        Schedule::Repeat {
            body: Box::new(body),
            min: 0,
            max: None,
        }
    }
    /// The body exactly `n` times.
    pub fn times(body: Schedule, n: u32) -> Schedule {
        Schedule::Repeat {
            body: Box::new(body),
            min: n,
            max: Some(n),
        }
    }
    /// Every set index the schedule names.
    pub fn sets(&self, out: &mut Vec<usize>) {
        match self {
            Schedule::Step(s) => out.push(*s),
            Schedule::Seq(v) | Schedule::Alt(v) => v.iter().for_each(|s| s.sets(out)),
            Schedule::Repeat { body, .. } => body.sets(out),
        }
    }
}

/// A state set of the schedule automaton: sorted state indices.
pub type StateSet = Vec<u32>;

/// The schedule automaton: states with transitions labelled by a set index or ε.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nfa {
    trans: Vec<Vec<(Option<usize>, u32)>>,
    start: u32,
    accept: u32,
}

/// Repetition bounds above this are rejected by [`Nfa::compile`] (they would unroll).
pub const MAX_BOUNDED_REPEAT: u32 = 64;

impl Nfa {
    /// Compiles a schedule. `nullable(set)` says whether the set holds Θ (the step may then be
    /// skipped: "apply Θ", which changes nothing).
    pub fn compile(s: &Schedule, nullable: &dyn Fn(usize) -> bool) -> Nfa {
        let mut nfa = Nfa {
            trans: vec![Vec::new(), Vec::new()],
            start: 0,
            accept: 1,
        };
        nfa.build(s, 0, 1, nullable);
        nfa
    }

    fn state(&mut self) -> u32 {
        self.trans.push(Vec::new());
        (self.trans.len() - 1) as u32
    }

    fn build(&mut self, s: &Schedule, from: u32, to: u32, nullable: &dyn Fn(usize) -> bool) {
        match s {
            Schedule::Step(set) => {
                self.trans[from as usize].push((Some(*set), to));
                if nullable(*set) {
                    self.trans[from as usize].push((None, to));
                }
            }
            Schedule::Seq(parts) => {
                if parts.is_empty() {
                    self.trans[from as usize].push((None, to));
                    return;
                }
                let mut cur = from;
                for (i, p) in parts.iter().enumerate() {
                    let nxt = if i + 1 == parts.len() { to } else { self.state() };
                    self.build(p, cur, nxt, nullable);
                    cur = nxt;
                }
            }
            Schedule::Alt(alts) => {
                for a in alts {
                    self.build(a, from, to, nullable);
                }
            }
            Schedule::Repeat { body, min, max } => {
                let min = (*min).min(MAX_BOUNDED_REPEAT);
                let mut cur = from;
                for _ in 0..min {
                    let nxt = self.state();
                    self.build(body, cur, nxt, nullable);
                    cur = nxt;
                }
                match max {
                    None => {
                        // loop: cur -body-> cur, then ε to `to`
                        let inner = self.state();
                        self.trans[cur as usize].push((None, inner));
                        self.build(body, inner, inner, nullable);
                        self.trans[inner as usize].push((None, to));
                    }
                    Some(mx) => {
                        let extra = mx.saturating_sub(min).min(MAX_BOUNDED_REPEAT);
                        self.trans[cur as usize].push((None, to));
                        for _ in 0..extra {
                            let nxt = self.state();
                            self.build(body, cur, nxt, nullable);
                            self.trans[nxt as usize].push((None, to));
                            cur = nxt;
                        }
                    }
                }
            }
        }
    }

    /// The ε-closure of the start state.
    pub fn start(&self) -> StateSet {
        self.closure(vec![self.start])
    }

    /// The ε-closure of a set of states.
    pub fn closure(&self, mut states: Vec<u32>) -> StateSet {
        let mut seen = vec![false; self.trans.len()];
        for &s in &states {
            seen[s as usize] = true;
        }
        let mut i = 0;
        while i < states.len() {
            let s = states[i];
            i += 1;
            for &(l, t) in &self.trans[s as usize] {
                if l.is_none() && !seen[t as usize] {
                    seen[t as usize] = true;
                    states.push(t);
                }
            }
        }
        states.sort_unstable();
        states
    }

    /// The set indices that label a transition out of `states`, ascending and distinct.
    pub fn sets_out(&self, states: &StateSet) -> Vec<usize> {
        let mut v: Vec<usize> = states
            .iter()
            .flat_map(|&s| self.trans[s as usize].iter().filter_map(|&(l, _)| l))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The closure reached from `states` by one step through set `set`.
    pub fn step(&self, states: &StateSet, set: usize) -> StateSet {
        let targets: Vec<u32> = states
            .iter()
            .flat_map(|&s| {
                self.trans[s as usize]
                    .iter()
                    .filter(|&&(l, _)| l == Some(set))
                    .map(|&(_, t)| t)
            })
            .collect();
        if targets.is_empty() {
            return Vec::new();
        }
        self.closure(targets)
    }

    /// Whether `states` holds the accepting state: the schedule may end here.
    pub fn accepts(&self, states: &StateSet) -> bool {
        states.binary_search(&self.accept).is_ok()
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.trans.len()
    }
    /// Always false: an automaton has a start and an accepting state.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// The schedule as a minimal deterministic automaton: a state per class of equivalent NFA state
/// sets (same future), so that "this step loops back to where it started" is an exact test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dfa {
    /// Per state: `(set, target)`, ascending by set.
    trans: Vec<Vec<(usize, u32)>>,
    accept: Vec<bool>,
    start: u32,
}

impl Dfa {
    /// Subset construction from `nfa`, then Moore's partition refinement.
    pub fn from_nfa(nfa: &Nfa) -> Dfa {
        let mut sets: Vec<StateSet> = vec![nfa.start()];
        let mut index: std::collections::HashMap<StateSet, u32> = std::collections::HashMap::new();
        index.insert(sets[0].clone(), 0);
        let mut trans: Vec<Vec<(usize, u32)>> = Vec::new();
        let mut i = 0;
        while i < sets.len() {
            let cur = sets[i].clone();
            let mut row = Vec::new();
            for set in nfa.sets_out(&cur) {
                let t = nfa.step(&cur, set);
                if t.is_empty() {
                    continue;
                }
                let id = *index.entry(t.clone()).or_insert_with(|| {
                    sets.push(t);
                    (sets.len() - 1) as u32
                });
                row.push((set, id));
            }
            trans.push(row);
            i += 1;
        }
        let accept: Vec<bool> = sets.iter().map(|s| nfa.accepts(s)).collect();
        // Moore: blocks by acceptance, refined by the blocks transitions lead to.
        let mut block: Vec<u32> = accept.iter().map(|&a| a as u32).collect();
        loop {
            let mut sig_index: std::collections::BTreeMap<(u32, Vec<(usize, u32)>), u32> = Default::default();
            let next: Vec<u32> = (0..sets.len())
                .map(|q| {
                    let sig = (
                        block[q],
                        trans[q].iter().map(|&(s, t)| (s, block[t as usize])).collect(),
                    );
                    let n = sig_index.len() as u32;
                    *sig_index.entry(sig).or_insert(n)
                })
                .collect();
            let before = block.iter().collect::<std::collections::BTreeSet<_>>().len();
            let after = sig_index.len();
            block = next;
            if after == before {
                break;
            }
        }
        // Renumber blocks in order of first appearance (start first).
        let mut renum = vec![u32::MAX; sets.len()];
        let mut count = 0u32;
        for &bq in &block {
            let b = bq as usize;
            if renum[b] == u32::MAX {
                renum[b] = count;
                count += 1;
            }
        }
        let mut mtrans = vec![Vec::new(); count as usize];
        let mut maccept = vec![false; count as usize];
        let mut done = vec![false; count as usize];
        for q in 0..sets.len() {
            let b = renum[block[q] as usize] as usize;
            if done[b] {
                continue;
            }
            done[b] = true;
            maccept[b] = accept[q];
            mtrans[b] = trans[q]
                .iter()
                .map(|&(s, t)| (s, renum[block[t as usize] as usize]))
                .collect();
        }
        Dfa {
            trans: mtrans,
            accept: maccept,
            start: renum[block[0] as usize],
        }
    }
    /// The start state.
    pub fn start(&self) -> u32 {
        self.start
    }
    /// The sets that label a transition out of `q`, ascending.
    pub fn sets_out(&self, q: u32) -> impl Iterator<Item = usize> + '_ {
        self.trans[q as usize].iter().map(|&(s, _)| s)
    }
    /// The state one step through `set` leads to, if any.
    pub fn step(&self, q: u32, set: usize) -> Option<u32> {
        self.trans[q as usize].iter().find(|&&(s, _)| s == set).map(|&(_, t)| t)
    }
    /// Whether the schedule may end in `q`.
    pub fn accepts(&self, q: u32) -> bool {
        self.accept[q as usize]
    }
    /// Number of states.
    pub fn len(&self) -> usize {
        self.trans.len()
    }
    /// The most transitions a run from the start can take, if that is bounded (no cycle is
    /// reachable from the start).
    pub fn longest_run(&self) -> Option<usize> {
        // Depth-first, with colours: 1 on the stack, 2 done (with its longest run stored).
        let n = self.trans.len();
        let mut colour = vec![0u8; n];
        let mut best = vec![0usize; n];
        let mut stack: Vec<(u32, usize)> = vec![(self.start, 0)];
        colour[self.start as usize] = 1;
        while let Some(&mut (q, ref mut i)) = stack.last_mut() {
            if let Some(&(_, t)) = self.trans[q as usize].get(*i) {
                *i += 1;
                match colour[t as usize] {
                    0 => {
                        colour[t as usize] = 1;
                        stack.push((t, 0));
                    }
                    1 => return None,
                    _ => {}
                }
            } else {
                best[q as usize] = self.trans[q as usize]
                    .iter()
                    .map(|&(_, t)| best[t as usize] + 1)
                    .max()
                    .unwrap_or(0);
                colour[q as usize] = 2;
                stack.pop();
            }
        }
        Some(best[self.start as usize])
    }
    /// Whether some transition leads back into the start state.
    pub fn start_reentered(&self) -> bool {
        self.trans.iter().flatten().any(|&(_, t)| t == self.start)
    }
    /// Always false: there is a start state.
    pub fn is_empty(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_run_is_bounded_only_without_reachable_cycles() {
        let run = |sch: Schedule| Dfa::from_nfa(&Nfa::compile(&sch, &|_| false)).longest_run();
        let rep = |b: Schedule, min, max| Schedule::Repeat {
            body: Box::new(b),
            min,
            max,
        };
        let (a, b, c) = (Schedule::Step(0), Schedule::Step(1), Schedule::Step(2));
        assert_eq!(run(Schedule::Seq(vec![a.clone(), b.clone(), c.clone()])), Some(3));
        let alt = Schedule::Alt(vec![b.clone(), Schedule::Seq(vec![b.clone(), c.clone()])]);
        assert_eq!(run(Schedule::Seq(vec![a.clone(), alt])), Some(3));
        assert_eq!(run(Schedule::Seq(vec![a.clone(), rep(b.clone(), 3, Some(3))])), Some(4));
        assert_eq!(run(rep(a.clone(), 1, None)), None);
        assert_eq!(run(Schedule::Seq(vec![a, rep(b, 0, None)])), None);
    }

    fn run(nfa: &Nfa, word: &[usize]) -> bool {
        let mut st = nfa.start();
        for &w in word {
            st = nfa.step(&st, w);
            if st.is_empty() {
                return false;
            }
        }
        nfa.accepts(&st)
    }

    #[test]
    fn sequence_then_four_then_one() {
        // C4 of §4.5.3: A, then B four times, then C.
        let s = Schedule::Seq(vec![
            Schedule::Step(0),
            Schedule::times(Schedule::Step(1), 4),
            Schedule::Step(2),
        ]);
        let n = Nfa::compile(&s, &|_| false);
        assert!(run(&n, &[0, 1, 1, 1, 1, 2]));
        assert!(!run(&n, &[0, 1, 1, 1, 2]));
        assert!(!run(&n, &[0, 1, 1, 1, 1, 1, 2]));
    }

    #[test]
    fn optional_sets_and_star() {
        // Def. 1: A (with Θ), B repeated, C (with Θ).
        let s = Schedule::Seq(vec![
            Schedule::Step(0),
            Schedule::star(Schedule::Step(1)),
            Schedule::Step(2),
        ]);
        let n = Nfa::compile(&s, &|set| set != 1);
        assert!(run(&n, &[]));
        assert!(run(&n, &[1, 1, 1]));
        assert!(run(&n, &[0, 1, 2]));
        assert!(!run(&n, &[2, 1]));
        assert!(run(&n, &[0, 2]));
    }

    #[test]
    fn minimal_dfa_makes_plus_a_loop() {
        // A+ : after the first A the automaton sits in one state that A leads back to.
        let s = Schedule::Repeat {
            body: Box::new(Schedule::Step(0)),
            min: 1,
            max: None,
        };
        let d = Dfa::from_nfa(&Nfa::compile(&s, &|_| false));
        let q = d.step(d.start(), 0).expect("A");
        assert_eq!(d.step(q, 0), Some(q));
        assert!(d.accepts(q) && !d.accepts(d.start()));
        assert_eq!(d.len(), 2);
        // A, B{2}: no loop; three steps then nothing.
        let s = Schedule::Seq(vec![Schedule::Step(0), Schedule::times(Schedule::Step(1), 2)]);
        let d = Dfa::from_nfa(&Nfa::compile(&s, &|_| false));
        let q1 = d.step(d.start(), 0).unwrap();
        let q2 = d.step(q1, 1).unwrap();
        let q3 = d.step(q2, 1).unwrap();
        assert!(q1 != q2 && q2 != q3 && d.accepts(q3) && d.step(q3, 1).is_none());
    }

    #[test]
    fn bounded_repeat() {
        let s = Schedule::Repeat {
            body: Box::new(Schedule::Step(0)),
            min: 1,
            max: Some(3),
        };
        let n = Nfa::compile(&s, &|_| false);
        assert!(!run(&n, &[]));
        assert!(run(&n, &[0]));
        assert!(run(&n, &[0, 0, 0]));
        assert!(!run(&n, &[0, 0, 0, 0]));
    }
}
