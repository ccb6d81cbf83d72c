//! What the incremental derivation needs of each class of one level, compiled once: the moves its
//! schedule's minimal automaton allows per state and constraint (§3.4.1.2), its start constraints,
//! the constraints it records, and each constraint's context part (§3.4.1.1).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::ets::growth::{lists_bytes, small_bytes, vec_bytes};
use crate::ets::ids::{ClassId, ConstraintId};
use crate::ets::setting::Setting;

/// The set index an application records when it was not a step of the schedule but a match of a
/// constraint the class records (`overlaps`), or a match lying wholly inside the element.
pub const RECORDED: u8 = u8::MAX;

/// One class of a level, compiled.
#[derive(Debug, Clone)]
pub(crate) struct ClassRt {
    pub class: ClassId,
    pub start: u32,
    /// Per state: whether the schedule may end there.
    pub accept: Vec<bool>,
    /// Per state: whether no transition leaves it (the generating system has terminated).
    pub terminal: Vec<bool>,
    /// Per state: transitions `(set, target)`.
    pub trans: Vec<Vec<(u8, u32)>>,
    /// Per constraint id, the local index of the constraints the class uses in a set or records
    /// (`u16::MAX`: not used).
    local_dense: Vec<u16>,
    /// How many of the local constraints the class uses in a set: they come first, those it
    /// only records after them.
    n_used: usize,
    /// Per state, per local constraint: the transitions `(set, target)` through a set holding it.
    #[allow(clippy::type_complexity)]
    pub moves: Vec<Vec<SmallVec<[(u8, u32); 2]>>>,
    /// Per state, per local constraint: whether some state reachable from it (itself included)
    /// may use the constraint (a pending candidate is kept only while this holds).
    pub usable_later: Vec<Vec<bool>>,
    /// Per local constraint: the sets leaving the start state that hold it.
    pub start_sets: Vec<SmallVec<[u8; 2]>>,
    /// Per local constraint: whether the class records it.
    pub recorded: Vec<bool>,
    /// Per set of the class: whether a step through it ends the element (`Class::ends`).
    pub ends: Vec<bool>,
    /// Per state, per local constraint: whether an element made at the step it stands in this
    /// state at ends there through a match of the constraint as soon as one applies to it
    /// (`docs/semantics.md`, "a derivation begun at a step ends at its first ending step"). So
    /// it is where the state leaves only through loops and through sets the class ends with,
    /// the constraint is in such a set, and one of its variables is of a kind that no start and
    /// no loop takes in: a match of it never lies wholly inside such an element (which would
    /// make it a match the element records, not a step that ends it), so the step is one
    /// whichever matches the element takes in later at the same step.
    pub ends_at_once: Vec<Vec<bool>>,
    /// Per state: whether some step leaving it through a constraint the class uses ends the
    /// element. A derivation that stays in a state without one cannot terminate there, so a
    /// trial ([`super::trial`]) from it cannot leave a stillborn element and is not made.
    pub ends_from: Vec<bool>,
}

impl ClassRt {
    /// Heap bytes held: the class's automaton and its per-state and per-constraint tables.
    pub fn heap_bytes(&self) -> usize {
        fn nested<T>(v: &Vec<Vec<T>>) -> usize {
            vec_bytes(v) + v.iter().map(vec_bytes).sum::<usize>()
        }
        vec_bytes(&self.accept)
            + vec_bytes(&self.terminal)
            + nested(&self.trans)
            + vec_bytes(&self.local_dense)
            + nested(&self.moves)
            + self.moves.iter().flatten().map(small_bytes).sum::<usize>()
            + nested(&self.usable_later)
            + lists_bytes(&self.start_sets)
            + vec_bytes(&self.recorded)
            + vec_bytes(&self.ends)
            + nested(&self.ends_at_once)
            + vec_bytes(&self.ends_from)
    }

    fn new(setting: &Setting, class: ClassId) -> Self {
        let cls = setting.class(class);
        let dfa = cls.dfa();
        let nq = dfa.len();
        let mut local: FxHashMap<ConstraintId, u16> = FxHashMap::default();
        let mut order: Vec<ConstraintId> = Vec::new();
        let used = cls.constraints();
        for &c in used.iter().chain(cls.overlaps.iter()) {
            if let std::collections::hash_map::Entry::Vacant(e) = local.entry(c) {
                e.insert(order.len() as u16);
                order.push(c);
            }
        }
        let n_used = order.iter().take_while(|c| used.contains(c)).count();
        let nl = order.len();
        let trans: Vec<Vec<(u8, u32)>> = (0..nq as u32)
            .map(|q| {
                dfa.sets_out(q)
                    .filter_map(|s| dfa.step(q, s).map(|t| (s as u8, t)))
                    .collect()
            })
            .collect();
        let mut moves = vec![vec![SmallVec::new(); nl]; nq];
        for (q, row) in trans.iter().enumerate() {
            for &(s, t) in row {
                for c in &cls.sets[s as usize].constraints {
                    let l = local[c] as usize;
                    if !moves[q][l].contains(&(s, t)) {
                        moves[q][l].push((s, t));
                    }
                }
            }
        }
        // Reachability: the constraints usable from each state onwards.
        let mut usable_later = vec![vec![false; nl]; nq];
        for (q, row) in usable_later.iter_mut().enumerate() {
            let mut seen = vec![false; nq];
            let mut stack = vec![q as u32];
            seen[q] = true;
            while let Some(p) = stack.pop() {
                for (l, mv) in moves[p as usize].iter().enumerate() {
                    if !mv.is_empty() {
                        row[l] = true;
                    }
                }
                for &(_, t) in &trans[p as usize] {
                    if !seen[t as usize] {
                        seen[t as usize] = true;
                        stack.push(t);
                    }
                }
            }
        }
        let mut start_sets = vec![SmallVec::new(); nl];
        for &(s, _) in &trans[dfa.start() as usize] {
            // A start through a set that ends the element starts nothing.
            if cls.ends_with(s as usize) {
                continue;
            }
            for c in &cls.sets[s as usize].constraints {
                let v: &mut SmallVec<[u8; 2]> = &mut start_sets[local[c] as usize];
                if !v.contains(&s) {
                    v.push(s);
                }
            }
        }
        let mut recorded = vec![false; nl];
        for c in &cls.overlaps {
            recorded[local[c] as usize] = true;
        }
        let ends: Vec<bool> = (0..cls.sets.len()).map(|s| cls.ends_with(s)).collect();
        let kinds = |l: usize| setting.constraint(order[l]).pattern.vars.iter().map(|v| v.kind);
        let ends_at_once = (0..nq)
            .map(|q| {
                let loops = |l: usize| moves[q][l].iter().any(|&(s, t)| t as usize == q && !ends[s as usize]);
                // No way on but loops and endings: a match that applies and does not loop ends it.
                let loops_and_ends =
                    (0..n_used).all(|l| loops(l) || moves[q][l].iter().all(|&(s, _)| ends[s as usize]));
                if !loops_and_ends {
                    return vec![false; nl];
                }
                let mut taken_in: Vec<u32> = (0..n_used)
                    .filter(|&l| loops(l) || !start_sets[l].is_empty())
                    .flat_map(kinds)
                    .collect();
                taken_in.sort_unstable();
                taken_in.dedup();
                (0..nl)
                    .map(|l| {
                        l < n_used
                            && moves[q][l].iter().any(|&(s, _)| ends[s as usize])
                            && kinds(l).any(|k| taken_in.binary_search(&k).is_err())
                    })
                    .collect()
            })
            .collect();
        let ends_from = (0..nq)
            .map(|q| (0..n_used).any(|l| moves[q][l].iter().any(|&(s, _)| ends[s as usize])))
            .collect();
        let mut local_dense = vec![u16::MAX; order.iter().map(|c| c.0 as usize + 1).max().unwrap_or(0)];
        for (&c, &l) in &local {
            local_dense[c.0 as usize] = l;
        }
        ClassRt {
            local_dense,
            n_used,
            class,
            start: dfa.start(),
            accept: (0..nq as u32).map(|q| dfa.accepts(q)).collect(),
            terminal: trans.iter().map(|r| r.is_empty()).collect(),
            trans,
            moves,
            usable_later,
            start_sets,
            recorded,
            ends,
            ends_at_once,
            ends_from,
        }
    }

    /// The local index of constraint `c`, if the class uses or records it.
    #[inline]
    pub fn local_of(&self, c: ConstraintId) -> Option<usize> {
        match self.local_dense.get(c.0 as usize) {
            Some(&l) if l != u16::MAX => Some(l as usize),
            _ => None,
        }
    }

    /// How many local constraints the class uses in a set (local indices below it).
    #[inline]
    pub fn n_used(&self) -> usize {
        self.n_used
    }

    /// Whether the class uses constraint `c` in a set (it steps with it; not only records it):
    /// whether the class is among `ClassTable::users` of `c`.
    #[inline]
    pub fn uses(&self, c: ConstraintId) -> bool {
        self.local_of(c).is_some_and(|l| l < self.n_used)
    }

    /// The loop step of `state` through local constraint `l`, if any: a set leading back to
    /// `state` that does not end the element.
    #[inline]
    pub fn loop_set(&self, state: u32, l: usize) -> Option<u8> {
        self.moves[state as usize][l]
            .iter()
            .find(|&&(s, to)| to == state && !self.ends[s as usize])
            .map(|&(s, _)| s)
    }
}

/// Per constraint: which variables are context (§3.4.1.1), hence which positions seed a
/// derivation (a match becomes applicable when its last context node joins an element; without
/// a context part, any shared node makes it applicable).
#[derive(Debug, Clone)]
pub(crate) struct ContextPart {
    pub context: SmallVec<[bool; 8]>,
    pub len: u16,
}

impl ContextPart {
    fn of(setting: &Setting, c: ConstraintId) -> Self {
        let p = &setting.constraint(c).pattern;
        let context: SmallVec<[bool; 8]> = p.vars.iter().map(|v| v.context).collect();
        let len = context.iter().filter(|&&b| b).count() as u16;
        ContextPart { context, len }
    }
    /// Whether variable position `i` seeds a derivation.
    #[inline]
    pub fn seeds_at(&self, i: usize) -> bool {
        self.len == 0 || self.context[i]
    }
}

/// The classes of one level, compiled, with the per-constraint indices derivations look up.
#[derive(Debug, Clone)]
pub(crate) struct ClassTable {
    pub classes: Vec<ClassRt>,
    /// Per constraint id: the classes (indices into `classes`) that use it in a set.
    pub users: Vec<SmallVec<[u16; 4]>>,
    /// Per constraint id: the classes that record it.
    pub recorders: Vec<SmallVec<[u16; 4]>>,
    /// Per constraint id: the classes that may start with it.
    pub starters: Vec<SmallVec<[u16; 4]>>,
    /// Per constraint id: its starters as bits, one per class (`None` when the level has more
    /// classes than bits).
    pub starter_bits: Option<Vec<u64>>,
    /// Per constraint id, while `starter_bits` is kept: the one class that may start with it,
    /// [`SOLE_ANY`] when none may, [`SOLE_NONE`] when more than one may (or the bits are not
    /// kept). An image of it that an element of that class takes starts nothing.
    pub sole_starter: Vec<u16>,
    /// Per constraint id of the level: the variable positions at which a match of it enters the
    /// step's seed index, a bit each (every one for a recorded constraint: it is caught up on at
    /// any of its nodes; those [`ContextPart::seeds_at`] names otherwise). `None` for a pattern
    /// of more than 64 variables (read through the part).
    pub seed_mask: Vec<Option<u64>>,
    /// Per constraint id: its context part (for the constraints some class of the level uses).
    pub parts: Vec<Option<ContextPart>>,
    /// The constraints some class of the level uses or records, ascending.
    pub constraints: Vec<ConstraintId>,
    /// Per constraint id: the classes that use or record it (those with a local index for it,
    /// [`ClassRt::local_of`]), a bit each; every bit set when the level has more classes than
    /// bits. A match of a constraint no class of an element's bits names is one the element's
    /// derivation passes by (`Level::quiet_steps`).
    pub user_bits: Vec<u64>,
}

/// [`ClassTable::sole_starter`]: no class may start with the constraint.
pub(crate) const SOLE_ANY: u16 = u16::MAX - 1;
/// [`ClassTable::sole_starter`]: more than one class may.
pub(crate) const SOLE_NONE: u16 = u16::MAX;

impl ClassTable {
    /// The classes of `level` in `setting`.
    pub fn new(setting: &Setting, level: u32) -> Self {
        let nc = setting.constraints().len();
        let classes: Vec<ClassRt> = setting
            .classes_at(level)
            .into_iter()
            .map(|c| ClassRt::new(setting, c))
            .collect();
        let mut users = vec![SmallVec::new(); nc];
        let mut recorders = vec![SmallVec::new(); nc];
        let mut starters = vec![SmallVec::new(); nc];
        let mut parts = vec![None; nc];
        let mut constraints = Vec::new();
        for (k, cr) in classes.iter().enumerate() {
            let cls = setting.class(cr.class);
            for c in cls.constraints() {
                users[c.0 as usize].push(k as u16);
                if !cr.start_sets[cr.local_of(c).expect("a class's own constraint")].is_empty() {
                    starters[c.0 as usize].push(k as u16);
                }
                constraints.push(c);
            }
            for &c in &cls.overlaps {
                if !recorders[c.0 as usize].contains(&(k as u16)) {
                    recorders[c.0 as usize].push(k as u16);
                }
                constraints.push(c);
            }
        }
        constraints.sort_unstable();
        constraints.dedup();
        for &c in &constraints {
            parts[c.0 as usize] = Some(ContextPart::of(setting, c));
            // `ClassRt::uses` reads this table off the class's local indices.
            debug_assert!(
                (0..classes.len()).all(|k| users[c.0 as usize].contains(&(k as u16)) == classes[k].uses(c)),
                "the classes using constraint {c:?}"
            );
        }
        let starter_bits = (classes.len() <= 64).then(|| {
            starters
                .iter()
                .map(|ks| ks.iter().fold(0u64, |b, &k| b | 1u64 << k))
                .collect()
        });
        let user_bits = (0..nc)
            .map(|c| {
                if classes.len() > 64 {
                    return u64::MAX;
                }
                let c = ConstraintId(c as u32);
                (classes.iter().enumerate())
                    .filter(|(_, cr)| cr.local_of(c).is_some())
                    .fold(0u64, |b, (k, _)| b | 1u64 << k)
            })
            .collect();
        let sole_starter = starters
            .iter()
            .map(|ks| match (starter_bits.is_some(), ks.as_slice()) {
                (false, _) => SOLE_NONE,
                (true, []) => SOLE_ANY,
                (true, &[k]) => k,
                (true, _) => SOLE_NONE,
            })
            .collect();
        let seed_mask = (0..nc)
            .map(|c| {
                let part = parts[c].as_ref()?;
                let n = part.context.len();
                if n > 64 {
                    return None;
                }
                let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
                if !recorders[c].is_empty() || part.len == 0 {
                    return Some(all);
                }
                Some(
                    part.context
                        .iter()
                        .enumerate()
                        .fold(0, |b, (i, &k)| b | (k as u64) << i),
                )
            })
            .collect();
        ClassTable {
            classes,
            users,
            recorders,
            starters,
            starter_bits,
            sole_starter,
            seed_mask,
            parts,
            constraints,
            user_bits,
        }
    }

    /// The context part of a constraint the level uses.
    #[inline]
    pub fn part(&self, c: ConstraintId) -> &ContextPart {
        self.parts[c.0 as usize].as_ref().expect("a constraint of the level")
    }

    /// Heap bytes held: the compiled classes and every per-constraint table.
    pub fn heap_bytes(&self) -> usize {
        vec_bytes(&self.classes)
            + self.classes.iter().map(ClassRt::heap_bytes).sum::<usize>()
            + lists_bytes(&self.users)
            + lists_bytes(&self.recorders)
            + lists_bytes(&self.starters)
            + self.starter_bits.as_ref().map_or(0, vec_bytes)
            + vec_bytes(&self.sole_starter)
            + vec_bytes(&self.seed_mask)
            + vec_bytes(&self.parts)
            + self
                .parts
                .iter()
                .flatten()
                .map(|p| small_bytes(&p.context))
                .sum::<usize>()
            + vec_bytes(&self.constraints)
            + vec_bytes(&self.user_bits)
    }
}
