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

#[cfg(test)]
mod tests {
    use super::*;

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
