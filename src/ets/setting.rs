//! Class settings: the named constraints and classes of every level, over one alphabet.
//!
//! Implements the *class setting* of §4.1.2 ("a level 0 class setting of 16 classes"): the
//! structural constraints Con(Π) of §3.4.1.1, the level-n constraints
//! Con^n = ⟨C, {CEL^n(C_j, Con(Π_j))}⟩ of §3.4.2, and the classes whose generating systems
//! (§3.4.1.2) use them. Constraints are named and shared: one constraint (e.g. the thesis's
//! Con_2) may sit in the sets of many classes, which is what lets elements of different classes
//! *overlap on* it.

use rustc_hash::FxHashMap;
use smallvec::smallvec;
use std::sync::Arc;

use super::error::SettingError;
pub use super::ids::{ClassId, ConstraintId};
use super::matching::{LinkLabel, Pattern, PatternLink, PatternVar};
use super::primitive::{Alphabet, PrimitiveKind};
use super::schedule::{Dfa, Nfa, Schedule};

/// A structural constraint of some level (§3.4.1.1 for level 0, §3.4.2 for level n).
///
/// At level 0 the pattern's variables are typed by abstract primitives and its links are primal
/// processes; at level n ≥ 1 its variables are typed by level-(n−1) classes and its links are
/// class element links naming a level-(n−1) constraint. Variables marked `context` form the
/// context part. The null constraint Θ is not a `Constraint`: sets carry it as a flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    /// The constraint's name (e.g. `Con_2`).
    pub name: String,
    /// Its level.
    pub level: u32,
    /// The pattern: variables (with the context flag) and links.
    pub pattern: Pattern,
}

impl Constraint {
    /// Whether the constraint has a context part.
    pub fn has_context(&self) -> bool {
        self.pattern.vars.iter().any(|v| v.context)
    }
}

/// A set of constraints used by one step of a generating system; `null` says whether Θ is in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintSet {
    /// The set's name (e.g. `A`).
    pub name: String,
    /// Its constraints.
    pub constraints: Vec<ConstraintId>,
    /// Whether the null constraint Θ belongs to the set.
    pub null: bool,
}

/// A class with its generating system (§3.4.1.2): constraint sets and a schedule over them.
#[derive(Debug, Clone)]
pub struct Class {
    /// The class's name (e.g. `account_use`).
    pub name: String,
    /// Its level.
    pub level: u32,
    /// An optional symbol from the literature (e.g. `C1`, `C^1_3`).
    pub symbol: Option<String>,
    /// The constraint sets.
    pub sets: Vec<ConstraintSet>,
    /// The order in which the sets are used.
    pub schedule: Schedule,
    /// Constraints the class *records* but never applies as a step: every match of one of them
    /// lying inside an element, with its context inside, is an application of that element. A
    /// step constraint that includes such a pattern applies it too (its struct is assembled with
    /// the same primitives), so the element overlaps on it (`docs/semantics.md`).
    pub overlaps: Vec<ConstraintId>,
    /// The sets whose application *ends* an element (§4.6.2, Def. 1: "the class generating system"
    /// may "terminate"): a derivation that takes a step of one of them has terminated, and what it
    /// built is not an element of the observed struct (`docs/semantics.md`). Indices into `sets`,
    /// ascending.
    pub ends: Vec<usize>,
    nfa: Nfa,
    dfa: Dfa,
}

impl Class {
    /// The compiled schedule.
    pub fn nfa(&self) -> &Nfa {
        &self.nfa
    }
    /// The compiled schedule, deterministic and minimal.
    pub fn dfa(&self) -> &Dfa {
        &self.dfa
    }
    /// Whether applying set `s` ends an element (see [`Class::ends`]).
    pub fn ends_with(&self, s: usize) -> bool {
        self.ends.binary_search(&s).is_ok()
    }
    /// Every constraint any set of the class names, ascending and distinct.
    pub fn constraints(&self) -> Vec<ConstraintId> {
        let mut v: Vec<_> = self.sets.iter().flat_map(|s| s.constraints.iter().copied()).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A class setting: an alphabet, named constraints and named classes of any number of levels.
#[derive(Debug, Clone)]
pub struct Setting {
    alphabet: Arc<Alphabet>,
    constraints: Vec<Constraint>,
    classes: Vec<Class>,
    constraint_by_name: FxHashMap<String, ConstraintId>,
    class_by_name: FxHashMap<String, ClassId>,
}

/// A builder for a level-0 constraint pattern, by names.
#[derive(Debug, Clone, Default)]
pub struct PatternBuilder {
    vars: Vec<(String, String, bool)>,
    links: Vec<(String, String, String, String)>,
}

impl PatternBuilder {
    /// A new, empty pattern.
    pub fn new() -> Self {
        Self::default()
    }
    /// A variable `name` of primitive (level 0) or class (level n) `kind`.
    pub fn var(mut self, name: &str, kind: &str) -> Self {
        self.vars.push((name.into(), kind.into(), false));
        self
    }
    /// A context variable.
    pub fn context(mut self, name: &str, kind: &str) -> Self {
        self.vars.push((name.into(), kind.into(), true));
        self
    }
    /// Level 0: a process from terminal `from_site` of `from` to initial `to_site` of `to`.
    /// Level n: a class element link on constraint `from_site` between `from` and `to`
    /// (`to_site` is ignored; use [`PatternBuilder::cel`]).
    pub fn process(mut self, from: &str, from_site: &str, to: &str, to_site: &str) -> Self {
        self.links
            .push((from.into(), from_site.into(), to.into(), to_site.into()));
        self
    }
    /// Level n: a class element link between `a` and `b` on the level-(n−1) constraint `on`.
    pub fn cel(mut self, a: &str, b: &str, on: &str) -> Self {
        self.links.push((a.into(), on.into(), b.into(), String::new()));
        self
    }
}

impl Setting {
    /// An empty setting over `alphabet`.
    pub fn new(alphabet: Arc<Alphabet>) -> Self {
        Setting {
            alphabet,
            constraints: Vec::new(),
            classes: Vec::new(),
            constraint_by_name: FxHashMap::default(),
            class_by_name: FxHashMap::default(),
        }
    }

    /// The alphabet.
    pub fn alphabet(&self) -> &Arc<Alphabet> {
        &self.alphabet
    }
    /// A constraint by id.
    pub fn constraint(&self, c: ConstraintId) -> &Constraint {
        &self.constraints[c.0 as usize]
    }
    /// A class by id.
    pub fn class(&self, c: ClassId) -> &Class {
        &self.classes[c.0 as usize]
    }
    /// A constraint by name.
    pub fn constraint_id(&self, name: &str) -> Option<ConstraintId> {
        self.constraint_by_name.get(name).copied()
    }
    /// A class by name.
    pub fn class_id(&self, name: &str) -> Option<ClassId> {
        self.class_by_name.get(name).copied()
    }
    /// All constraints.
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }
    /// All classes.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }
    /// The classes of one level, in declaration order.
    pub fn classes_at(&self, level: u32) -> Vec<ClassId> {
        (0..self.classes.len() as u32)
            .map(ClassId)
            .filter(|&c| self.class(c).level == level)
            .collect()
    }
    /// The highest level of any class (0 for a setting without classes).
    pub fn max_level(&self) -> u32 {
        self.classes.iter().map(|c| c.level).max().unwrap_or(0)
    }

    /// Adds a constraint whose pattern is given directly; validates it against the alphabet
    /// (level 0) or the classes and constraints of the level below (level n).
    pub fn add_constraint(&mut self, name: &str, level: u32, pattern: Pattern) -> Result<ConstraintId, SettingError> {
        if self.constraint_by_name.contains_key(name) {
            return Err(SettingError::Duplicate(name.into()));
        }
        let bad = |why: String| SettingError::Constraint { name: name.into(), why };
        if pattern.vars.len() < 2 {
            return Err(bad(
                "a constraint needs at least two variables (one shared with the working struct, one new)".into(),
            ));
        }
        for (i, v) in pattern.vars.iter().enumerate() {
            if pattern.vars[..i].iter().any(|w| w.name == v.name) {
                return Err(bad(format!("variable `{}` is declared twice", v.name)));
            }
            if level == 0 {
                if v.kind as usize >= self.alphabet.len() {
                    return Err(bad(format!("variable `{}` has an unknown primitive", v.name)));
                }
            } else {
                let Some(c) = self.classes.get(v.kind as usize) else {
                    return Err(bad(format!("variable `{}` has an unknown class", v.name)));
                };
                if c.level + 1 != level {
                    return Err(SettingError::Level(format!(
                        "constraint `{name}` is of level {level}, but its variable `{}` is typed by the level-{} class `{}`",
                        v.name, c.level, c.name
                    )));
                }
            }
        }
        if pattern.vars.iter().all(|v| v.context) {
            return Err(bad("every variable is context: an application would add nothing".into()));
        }
        for l in &pattern.links {
            if l.ends.iter().any(|e| e.0 as usize >= pattern.vars.len()) {
                return Err(bad("a link names an unknown variable".into()));
            }
            match (level, l.label) {
                (0, LinkLabel::Process { from_site, to_site }) => {
                    let (f, t) = (l.ends[0].0 as usize, l.ends[1].0 as usize);
                    let pf = self.alphabet.primitive(PrimitiveKind(pattern.vars[f].kind));
                    let pt = self.alphabet.primitive(PrimitiveKind(pattern.vars[t].kind));
                    let (Some(sf), Some(st)) =
                        (pf.terminals.get(from_site as usize), pt.initials.get(to_site as usize))
                    else {
                        return Err(bad("a process names a site the primitive does not have".into()));
                    };
                    if sf.class != st.class {
                        return Err(bad(format!(
                            "process {}.{} -> {}.{} joins different primal classes",
                            pattern.vars[f].name, sf.name, pattern.vars[t].name, st.name
                        )));
                    }
                    if f == t {
                        return Err(bad("a process from a primitive to itself is a cycle".into()));
                    }
                }
                (0, LinkLabel::Cel(_)) => {
                    return Err(bad("a level-0 constraint has processes, not class element links".into()));
                }
                (_, LinkLabel::Process { .. }) => {
                    return Err(bad("a level-n constraint has class element links, not processes".into()));
                }
                (n, LinkLabel::Cel(on)) => {
                    let Some(c) = self.constraints.get(on.0 as usize) else {
                        return Err(bad("a class element link names an unknown constraint".into()));
                    };
                    if c.level + 1 != n {
                        return Err(SettingError::Level(format!(
                            "constraint `{name}` of level {n} links on `{}`, a constraint of level {}",
                            c.name, c.level
                        )));
                    }
                }
            }
        }
        // At most one process per site inside the pattern.
        if level == 0 {
            let mut used = std::collections::HashSet::new();
            for l in &pattern.links {
                if let LinkLabel::Process { from_site, to_site } = l.label
                    && (!used.insert((l.ends[0].0, 0u8, from_site)) || !used.insert((l.ends[1].0, 1u8, to_site)))
                {
                    return Err(bad("two processes share a site".into()));
                }
            }
        }
        let id = ConstraintId(self.constraints.len() as u32);
        self.constraints.push(Constraint {
            name: name.into(),
            level,
            pattern,
        });
        self.constraint_by_name.insert(name.into(), id);
        Ok(id)
    }

    /// Builds a pattern by names: level-0 variables name primitives and links name sites;
    /// level-n variables name classes and links name constraints.
    pub fn pattern(&self, level: u32, b: &PatternBuilder) -> Result<Pattern, SettingError> {
        let mut p = Pattern::default();
        for (n, k, ctx) in &b.vars {
            let kind = if level == 0 {
                self.alphabet.kind(k).ok_or_else(|| SettingError::Unknown(k.clone()))?.0
            } else {
                self.class_id(k).ok_or_else(|| SettingError::Unknown(k.clone()))?.0
            };
            p.vars.push(PatternVar {
                name: n.clone(),
                kind,
                context: *ctx,
            });
        }
        for (f, fs, t, ts) in &b.links {
            let fi = p.var(f).ok_or_else(|| SettingError::Unknown(f.clone()))?;
            let ti = p.var(t).ok_or_else(|| SettingError::Unknown(t.clone()))?;
            if level == 0 {
                let pf = self.alphabet.primitive(PrimitiveKind(p.vars[fi].kind));
                let pt = self.alphabet.primitive(PrimitiveKind(p.vars[ti].kind));
                let from_site = pf
                    .terminal_index(fs)
                    .ok_or_else(|| SettingError::Unknown(format!("{f}.{fs}")))?;
                let to_site = pt
                    .initial_index(ts)
                    .ok_or_else(|| SettingError::Unknown(format!("{t}.{ts}")))?;
                p.links.push(PatternLink {
                    label: LinkLabel::Process {
                        from_site: from_site as u16,
                        to_site: to_site as u16,
                    },
                    ends: smallvec![(fi as u16, 0), (ti as u16, 1)],
                });
            } else {
                let on = self
                    .constraint_id(fs)
                    .ok_or_else(|| SettingError::Unknown(fs.clone()))?;
                p.links.push(PatternLink {
                    label: LinkLabel::Cel(on),
                    ends: smallvec![(fi as u16, 0), (ti as u16, 0)],
                });
            }
        }
        Ok(p)
    }

    /// Adds a constraint built by names (see [`Setting::pattern`]).
    pub fn add_named_constraint(
        &mut self,
        name: &str,
        level: u32,
        b: &PatternBuilder,
    ) -> Result<ConstraintId, SettingError> {
        let p = self.pattern(level, b)?;
        self.add_constraint(name, level, p)
    }

    /// Adds a class. Every constraint in its sets must be of the class's level; the schedule may
    /// name only its sets.
    pub fn add_class(
        &mut self,
        name: &str,
        level: u32,
        symbol: Option<String>,
        sets: Vec<ConstraintSet>,
        schedule: Schedule,
    ) -> Result<ClassId, SettingError> {
        if self.class_by_name.contains_key(name) {
            return Err(SettingError::Duplicate(name.into()));
        }
        for s in &sets {
            for c in &s.constraints {
                let Some(con) = self.constraints.get(c.0 as usize) else {
                    return Err(SettingError::Unknown(format!("constraint #{}", c.0)));
                };
                if con.level != level {
                    return Err(SettingError::Level(format!(
                        "class `{name}` of level {level} uses `{}`, a constraint of level {}",
                        con.name, con.level
                    )));
                }
            }
        }
        let mut used = Vec::new();
        schedule.sets(&mut used);
        if let Some(bad) = used.iter().find(|&&s| s >= sets.len()) {
            return Err(SettingError::Unknown(format!("set #{bad} in the schedule of `{name}`")));
        }
        let nfa = Nfa::compile(&schedule, &|s| sets[s].null);
        let id = ClassId(self.classes.len() as u32);
        self.classes.push(Class {
            name: name.into(),
            level,
            symbol,
            sets,
            schedule,
            overlaps: Vec::new(),
            ends: Vec::new(),
            dfa: Dfa::from_nfa(&nfa),
            nfa,
        });
        self.class_by_name.insert(name.into(), id);
        Ok(id)
    }

    /// Sets the constraints a class records without applying them as steps (see
    /// [`Class::overlaps`]); they must be of the class's level.
    pub fn set_overlaps(&mut self, class: ClassId, overlaps: Vec<ConstraintId>) -> Result<(), SettingError> {
        let level = self.class(class).level;
        for c in &overlaps {
            let con = self
                .constraints
                .get(c.0 as usize)
                .ok_or_else(|| SettingError::Unknown(format!("constraint #{}", c.0)))?;
            if con.level != level {
                return Err(SettingError::Level(format!(
                    "class `{}` of level {level} records `{}`, a constraint of level {}",
                    self.class(class).name,
                    con.name,
                    con.level
                )));
            }
        }
        self.classes[class.0 as usize].overlaps = overlaps;
        Ok(())
    }

    /// Sets the sets (indices into the class's `sets`) whose application ends an element (see
    /// [`Class::ends`]).
    pub fn set_ends(&mut self, class: ClassId, mut ends: Vec<usize>) -> Result<(), SettingError> {
        let cls = self.class(class);
        if let Some(bad) = ends.iter().find(|&&s| s >= cls.sets.len()) {
            return Err(SettingError::Unknown(format!("set #{bad} of `{}`", cls.name)));
        }
        ends.sort_unstable();
        ends.dedup();
        self.classes[class.0 as usize].ends = ends;
        Ok(())
    }

    /// Adds a class whose generating system is "apply any applicable constraint, repeatedly"
    /// (§4.5.1): one set holding `constraints`, repeated without bound.
    pub fn add_any_class(&mut self, name: &str, level: u32, constraints: &[&str]) -> Result<ClassId, SettingError> {
        let ids = constraints
            .iter()
            .map(|c| {
                self.constraint_id(c)
                    .ok_or_else(|| SettingError::Unknown(c.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.add_class(
            name,
            level,
            None,
            vec![ConstraintSet {
                name: "any".into(),
                constraints: ids,
                null: false,
            }],
            Schedule::Seq(vec![Schedule::Step(0), Schedule::star(Schedule::Step(0))]),
        )
    }
}
