//! From text to a [`Setting`]: template expansion (tables), name resolution and semantic checks,
//! level by level (level-0 constraints need the alphabet; level-n constraints need the level-(n−1)
//! classes; classes need the constraints of their level).
//!
//! One diagnostic per mistake: a declaration that fails is remembered, and what refers to it is
//! not reported again (nor what refers to that, and so on); a mistake inside a template is
//! reported once, not once per table row; a name of the wrong level is reported as a level
//! mismatch, not as unknown. The semantic checks of `docs/dsl.md` ("Checks") live in
//! [`super::check`].

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::smallvec;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::ast::*;
use super::check;
use super::error::{DslError, ErrorKind, Severity};
use crate::ets::{
    Alphabet, ClassId, ConstraintId, ConstraintSet, LinkLabel, Pattern, PatternLink, PatternVar, PrimalClassId,
    Schedule, Setting, SettingError,
};

pub use super::load::{FsResolver, MemResolver, Program, Resolver, SourceFile, Sources, load};

/// The most instances one `for` clause may ask for.
pub const MAX_INSTANCES: u64 = 4096;
/// The most constraints and classes all templates of a program may give together.
pub const MAX_TOTAL_INSTANCES: u64 = 65_536;

/// Where each name of the compiled setting was declared, and the warnings it compiled with.
#[derive(Debug, Clone, Default)]
pub struct Origins {
    /// Constraint name → span of its name.
    pub constraints: BTreeMap<String, Span>,
    /// Class name → span of its name.
    pub classes: BTreeMap<String, Span>,
    /// Warnings: the setting compiles, but probably not as meant (`docs/dsl.md`, "Checks").
    pub warnings: Vec<DslError>,
}

/// Name spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Ns {
    Primitive,
    Table,
    Constraint,
    Class,
}

/// Declarations that failed: references to them are not reported again.
#[derive(Default)]
struct Failed {
    names: FxHashSet<(Ns, String)>,
    /// Templated names (`Con_$N`) whose instances are unknown (their table failed).
    templates: Vec<(Ns, String)>,
    /// Class symbols `(level, K)` of failed classes.
    symbols: FxHashSet<(u32, u32)>,
}

impl Failed {
    fn has(&self, ns: Ns, name: &str) -> bool {
        self.names.contains(&(ns, name.to_string()))
            || self
                .templates
                .iter()
                .any(|(n, t)| *n == ns && template_matches(t, name))
    }
    fn add(&mut self, ns: Ns, name: &str) {
        if name.contains('$') {
            self.templates.push((ns, name.to_string()));
        } else {
            self.names.insert((ns, name.to_string()));
        }
    }
}

/// Whether `name` is an instance of `template` (each `$COLUMN` stands for any cell).
fn template_matches(template: &str, name: &str) -> bool {
    fn go(t: &[u8], n: &[u8]) -> bool {
        match t.first() {
            None => n.is_empty(),
            Some(b'$') => {
                let k = 1 + t[1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                let rest = &t[k..];
                (0..=n.len())
                    .any(|i| n[..i].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') && go(rest, &n[i..]))
            }
            Some(c) => n.first() == Some(c) && go(&t[1..], &n[1..]),
        }
    }
    go(template.as_bytes(), name.as_bytes())
}

/// What makes two diagnostics the same: place (or message, when unlocated) and severity.
type DiagKey = (Option<(u32, u32, u32)>, Severity, String);

/// Diagnostics as they are found, each with the number of instances of the declaration it was
/// found in.
#[derive(Default)]
struct Diags {
    list: Vec<(DslError, usize)>,
    /// Instances of the declaration being compiled.
    instances: usize,
}

impl Diags {
    fn push(&mut self, e: DslError) {
        self.list.push((e, self.instances.max(1)));
    }
    fn has_errors(&self) -> bool {
        self.list.iter().any(|(e, _)| e.is_error())
    }
    /// One diagnostic per place (a template's instances repeat theirs), in source order.
    fn finish(self) -> Vec<DslError> {
        let mut seen: FxHashMap<DiagKey, usize> = FxHashMap::default();
        let mut out: Vec<(DslError, usize, usize)> = Vec::new();
        for (e, n) in self.list {
            let key = (
                e.span.map(|s| (s.file, s.start, s.end)),
                e.severity,
                if e.span.is_some() { String::new() } else { e.to_string() },
            );
            match seen.get(&key) {
                Some(&i) => out[i].1 += 1,
                None => {
                    seen.insert(key, out.len());
                    out.push((e, 1, n));
                }
            }
        }
        let mut v: Vec<DslError> = out
            .into_iter()
            .map(|(mut e, count, n)| {
                if n > 1 {
                    let note = if count >= n {
                        format!("in each of the {n} instances of this template")
                    } else {
                        format!("in {count} of the {n} instances of this template")
                    };
                    e.help = Some(match e.help.take() {
                        Some(h) => format!("{h} ({note})"),
                        None => note,
                    });
                }
                e
            })
            .collect();
        v.sort_by_key(|e| e.span.map(|s| (s.file, s.start)).unwrap_or((u32::MAX, 0)));
        v
    }
}

/// The closest of `candidates` to `name`, if one is close.
pub(crate) fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    fn dist(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for j in 0..b.len() {
                let cur = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != b[j])).min(row[j] + 1).min(cur + 1);
                prev = cur;
            }
        }
        row[b.len()]
    }
    let limit = name.chars().count() / 3;
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (dist(name, c), c))
        .filter(|(d, _)| *d > 0 && *d <= limit)
        .min()
        .map(|(_, c)| format!("did you mean `{c}`?"))
}

fn unknown(what: &'static str, n: &Name, help: Option<String>) -> DslError {
    let e = DslError::new(
        ErrorKind::Unknown {
            what,
            name: n.text.clone(),
        },
        n.span,
    );
    match help {
        Some(h) => e.with_help(h),
        None => e,
    }
}

type Subst = Vec<(String, String)>;

/// A table: columns, rows, where declared.
struct Table {
    columns: Vec<Name>,
    rows: Vec<Vec<Name>>,
}

/// An expanded declaration and the number of instances of its template.
struct Inst<T> {
    decl: T,
    instances: usize,
    /// Another declaration (or instance) has its name first.
    duplicate: bool,
}

fn level_of(c: &ConstraintDecl) -> u32 {
    match c.body {
        ConstraintBody::Level0(_) => 0,
        ConstraintBody::LevelN { level, .. } => level,
    }
}

struct Compiler {
    diags: Diags,
    failed: Failed,
    tables: FxHashMap<String, Table>,
    /// Every constraint declared (after expansion): level and where.
    declared_constraints: FxHashMap<String, (u32, Span)>,
    /// Every class declared (after expansion): level and where.
    declared_classes: FxHashMap<String, (u32, Span)>,
    /// Level-n class symbols `(level, K)` → class.
    numbered: FxHashMap<(u32, u32), ClassId>,
    origins: Origins,
}

/// Compiles a program to a setting (with its warnings in [`Origins::warnings`]), or returns every
/// diagnostic found (errors and warnings).
pub fn compile(program: &Program) -> Result<(Setting, Origins), Vec<DslError>> {
    let mut c = Compiler {
        diags: Diags::default(),
        failed: Failed::default(),
        tables: FxHashMap::default(),
        declared_constraints: FxHashMap::default(),
        declared_classes: FxHashMap::default(),
        numbered: FxHashMap::default(),
        origins: Origins::default(),
    };
    let items: Vec<&Item> = program.files.iter().flat_map(|(_, f)| f.items.iter()).collect();
    c.tables(&items);
    let al = c.alphabet(&items);
    let (constraints, classes) = c.expand(&items);
    let mut st = Setting::new(Arc::new(al));
    c.levels(&mut st, &constraints, &classes);
    let errors = c.diags.has_errors();
    let diags = c.diags.finish();
    if errors {
        Err(diags)
    } else {
        c.origins.warnings = diags;
        Ok((st, c.origins))
    }
}

impl Compiler {
    fn tables(&mut self, items: &[&Item]) {
        for it in items {
            let ItemKind::Table {
                name, columns, rows, ..
            } = &it.kind
            else {
                continue;
            };
            if self.tables.contains_key(&name.text) {
                self.diags.push(DslError::new(
                    ErrorKind::Duplicate {
                        what: "table",
                        name: name.text.clone(),
                    },
                    name.span,
                ));
                continue;
            }
            let mut ok = true;
            for (i, c) in columns.iter().enumerate() {
                if let Some(first) = columns[..i].iter().find(|d| d.text == c.text) {
                    self.diags.push(
                        DslError::new(
                            ErrorKind::Duplicate {
                                what: "column",
                                name: c.text.clone(),
                            },
                            c.span,
                        )
                        .with_label(first.span, "first declared here"),
                    );
                    ok = false;
                }
            }
            for r in rows {
                if r.len() != columns.len() {
                    self.diags.push(DslError::new(
                        ErrorKind::Template(format!(
                            "table `{}` has {} column(s) but this row has {} cell(s)",
                            name.text,
                            columns.len(),
                            r.len()
                        )),
                        r.first().map(|c| c.span).unwrap_or(name.span),
                    ));
                    ok = false;
                }
            }
            if !ok {
                self.failed.add(Ns::Table, &name.text);
            }
            self.tables.insert(
                name.text.clone(),
                Table {
                    columns: columns.clone(),
                    rows: rows.clone(),
                },
            );
        }
    }

    fn alphabet(&mut self, items: &[&Item]) -> Alphabet {
        let mut al = Alphabet::new();
        let mut primal_spans: FxHashMap<String, Span> = FxHashMap::default();
        for it in items {
            if let ItemKind::Primal(ns) = &it.kind {
                for n in ns {
                    if al.add_primal_class(&n.text).is_err() {
                        self.diags.push(
                            DslError::new(
                                ErrorKind::Duplicate {
                                    what: "primal class",
                                    name: n.text.clone(),
                                },
                                n.span,
                            )
                            .with_label(primal_spans[&n.text], "first declared here"),
                        );
                    } else {
                        primal_spans.insert(n.text.clone(), n.span);
                    }
                }
            }
        }
        let mut prim_spans: FxHashMap<String, Span> = FxHashMap::default();
        for it in items {
            let ItemKind::Primitive {
                name,
                initials,
                terminals,
            } = &it.kind
            else {
                continue;
            };
            if let Some(&first) = prim_spans.get(&name.text) {
                self.diags.push(
                    DslError::new(
                        ErrorKind::Duplicate {
                            what: "primitive",
                            name: name.text.clone(),
                        },
                        name.span,
                    )
                    .with_label(first, "first declared here"),
                );
                continue;
            }
            prim_spans.insert(name.text.clone(), name.span);
            let mut ok = true;
            let mut sites = |groups: &[SiteGroup], side: &str, diags: &mut Diags| -> Vec<(String, PrimalClassId)> {
                let mut v: Vec<(String, PrimalClassId, Span)> = Vec::new();
                for g in groups {
                    let class = al.primal_class(&g.class.text);
                    if class.is_none() {
                        let help = suggest(&g.class.text, al.primal_classes().iter().map(|p| p.name.as_str()));
                        diags.push(unknown("primal class", &g.class, help));
                        ok = false;
                    }
                    for n in &g.names {
                        if let Some(first) = v.iter().find(|(m, _, _)| *m == n.text) {
                            diags.push(
                                DslError::new(
                                    ErrorKind::Primitive {
                                        name: name.text.clone(),
                                        why: format!("it has two {side} sites called `{}`", n.text),
                                    },
                                    n.span,
                                )
                                .with_label(first.2, "first declared here"),
                            );
                            ok = false;
                        } else if let Some(c) = class {
                            v.push((n.text.clone(), c, n.span));
                        }
                    }
                }
                v.into_iter().map(|(n, c, _)| (n, c)).collect()
            };
            let i = sites(initials, "initial", &mut self.diags);
            let t = sites(terminals, "terminal", &mut self.diags);
            if ok && initials.is_empty() && terminals.is_empty() {
                self.diags.push(DslError::new(
                    ErrorKind::Primitive {
                        name: name.text.clone(),
                        why: "it has no sites: no process can reach it, so it can be part of no constraint".into(),
                    },
                    name.span,
                ));
                ok = false;
            }
            if !ok {
                self.failed.add(Ns::Primitive, &name.text);
                continue;
            }
            if let Err(e) = al.add_primitive(&name.text, &i, &t) {
                // every condition the alphabet checks was checked above
                self.diags
                    .push(DslError::new(ErrorKind::Template(e.to_string()), name.span));
                self.failed.add(Ns::Primitive, &name.text);
            }
        }
        al
    }

    /// Every substitution a `for` clause asks for (the product of its tables' rows), or `None`
    /// (reported, or a failed table).
    fn instances(&mut self, fors: &[Name]) -> Option<Vec<Subst>> {
        let mut count: u64 = 1;
        let mut factors = Vec::new();
        let mut ok = true;
        let mut columns: FxHashMap<&str, (&Name, &Name)> = FxHashMap::default();
        for f in fors {
            match self.tables.get(&f.text) {
                None => {
                    if !self.failed.has(Ns::Table, &f.text) {
                        let help = suggest(&f.text, self.tables.keys().map(String::as_str));
                        self.diags.push(unknown("table", f, help));
                    }
                    ok = false;
                }
                Some(t) => {
                    if self.failed.has(Ns::Table, &f.text) {
                        ok = false;
                    }
                    for c in &t.columns {
                        if let Some((other, first)) = columns.get(c.text.as_str()) {
                            self.diags.push(
                                DslError::new(
                                    ErrorKind::Template(if other.text == f.text {
                                        format!("table `{}` is named twice in this `for` clause", f.text)
                                    } else {
                                        format!(
                                            "tables `{}` and `{}` of this `for` clause both have a column `{}`: `${}` would be ambiguous",
                                            other.text, f.text, c.text, c.text
                                        )
                                    }),
                                    f.span,
                                )
                                .with_label(first.span, "the first column of that name")
                                .with_label(c.span, "the second"),
                            );
                            ok = false;
                            break;
                        }
                        columns.insert(&c.text, (f, c));
                    }
                    count = count.saturating_mul(t.rows.len() as u64);
                    factors.push(t.rows.len().to_string());
                }
            }
        }
        if !ok {
            return None;
        }
        if count > MAX_INSTANCES {
            self.diags.push(DslError::new(
                ErrorKind::Limit(format!(
                    "this `for` clause asks for {count} instances ({}); at most {MAX_INSTANCES} are allowed",
                    factors.join(" × ")
                )),
                fors.first().map(|f| f.span).unwrap_or_default(),
            ));
            return None;
        }
        let mut out: Vec<Subst> = vec![Vec::new()];
        for f in fors {
            let t = &self.tables[&f.text];
            let mut next = Vec::with_capacity(out.len() * t.rows.len());
            for base in &out {
                for r in &t.rows {
                    let mut s = base.clone();
                    s.extend(t.columns.iter().zip(r).map(|(c, v)| (c.text.clone(), v.text.clone())));
                    next.push(s);
                }
            }
            out = next;
        }
        Some(out)
    }

    fn expand(&mut self, items: &[&Item]) -> (Vec<Inst<ConstraintDecl>>, Vec<Inst<ClassDecl>>) {
        let mut constraints = Vec::new();
        let mut classes = Vec::new();
        let mut total: u64 = 0;
        for it in items {
            let (fors, ns, name) = match &it.kind {
                ItemKind::Constraint(c) => (&c.fors, Ns::Constraint, &c.name),
                ItemKind::Class(c) => (&c.fors, Ns::Class, &c.name),
                _ => continue,
            };
            let Some(subs) = self.instances(fors) else {
                self.failed.add(ns, &name.text);
                continue;
            };
            total += subs.len() as u64;
            if total > MAX_TOTAL_INSTANCES {
                self.diags.push(DslError::new(
                    ErrorKind::Limit(format!(
                        "the templates up to this one give {total} constraints and classes; at most {MAX_TOTAL_INSTANCES} are allowed"
                    )),
                    name.span,
                ));
                self.failed.add(ns, &name.text);
                return (constraints, classes);
            }
            let n = subs.len();
            self.diags.instances = n;
            for sub in subs {
                match &it.kind {
                    ItemKind::Constraint(c) => {
                        let mut c2 = c.clone();
                        let ok = subst_constraint(&mut c2, &sub, &mut self.diags);
                        if ok {
                            constraints.push(Inst {
                                decl: c2,
                                instances: n,
                                duplicate: false,
                            });
                        } else {
                            self.failed.add(Ns::Constraint, &c2.name.text);
                        }
                    }
                    ItemKind::Class(c) => {
                        let mut c2 = c.clone();
                        let ok = subst_class(&mut c2, &sub, &mut self.diags);
                        if ok {
                            classes.push(Inst {
                                decl: c2,
                                instances: n,
                                duplicate: false,
                            });
                        } else {
                            self.failed.add(Ns::Class, &c2.name.text);
                        }
                    }
                    _ => unreachable!(),
                }
            }
            self.diags.instances = 0;
        }
        // What is declared, and where (the first declaration of each name).
        for c in &mut constraints {
            let d = &c.decl;
            if let Some(&(_, first)) = self.declared_constraints.get(&d.name.text) {
                self.diags.instances = c.instances;
                self.diags.push(duplicate("constraint", &d.name, first, c.instances));
                self.diags.instances = 0;
                c.duplicate = true;
            } else {
                self.declared_constraints
                    .insert(d.name.text.clone(), (level_of(d), d.name.span));
            }
        }
        for c in &mut classes {
            let d = &c.decl;
            if let Some(&(_, first)) = self.declared_classes.get(&d.name.text) {
                self.diags.instances = c.instances;
                self.diags.push(duplicate("class", &d.name, first, c.instances));
                self.diags.instances = 0;
                c.duplicate = true;
            } else {
                self.declared_classes
                    .insert(d.name.text.clone(), (d.level, d.name.span));
            }
        }
        (constraints, classes)
    }

    fn levels(&mut self, st: &mut Setting, constraints: &[Inst<ConstraintDecl>], classes: &[Inst<ClassDecl>]) {
        let mut levels: Vec<u32> = constraints
            .iter()
            .map(|c| level_of(&c.decl))
            .chain(classes.iter().map(|c| c.decl.level))
            .collect();
        levels.sort_unstable();
        levels.dedup();
        for level in levels {
            for c in constraints.iter().filter(|c| level_of(&c.decl) == level) {
                let d = &c.decl;
                if c.duplicate {
                    continue; // reported
                }
                self.diags.instances = c.instances;
                match self.constraint_pattern(st, d) {
                    Some(p) => match st.add_constraint(&d.name.text, level, p) {
                        Ok(_) => {
                            self.origins.constraints.insert(d.name.text.clone(), d.name.span);
                        }
                        Err(e) => {
                            self.diags.push(setting_error(e, d.name.span));
                            self.failed.add(Ns::Constraint, &d.name.text);
                        }
                    },
                    None => self.failed.add(Ns::Constraint, &d.name.text),
                }
                self.diags.instances = 0;
            }
            self.classes_of_level(st, level, classes);
        }
    }

    fn classes_of_level(&mut self, st: &mut Setting, level: u32, classes: &[Inst<ClassDecl>]) {
        let mine: Vec<&Inst<ClassDecl>> = classes
            .iter()
            .filter(|c| c.decl.level == level && !c.duplicate)
            .collect();
        let names: FxHashSet<&str> = mine.iter().map(|c| c.decl.name.text.as_str()).collect();
        // Includes first: a class waits for the classes of its level it includes.
        let mut pending: Vec<&Inst<ClassDecl>> = mine.clone();
        loop {
            let mut next = Vec::new();
            let mut progress = false;
            for c in pending {
                let waiting = c.decl.items.iter().any(|i| match &i.kind {
                    ClassItemKind::Include(n) => {
                        names.contains(n.text.as_str())
                            && st.class_id(&n.text).is_none()
                            && !self.failed.has(Ns::Class, &n.text)
                    }
                    _ => false,
                });
                if waiting {
                    next.push(c);
                    continue;
                }
                progress = true;
                self.diags.instances = c.instances;
                self.class(st, &c.decl);
                self.diags.instances = 0;
            }
            pending = next;
            if pending.is_empty() || !progress {
                break;
            }
        }
        // What is left waits on a cycle of includes: each cycle is reported once, at the
        // include that closes it; classes that only include a class of a cycle are not reported.
        let waits_on = |c: &Inst<ClassDecl>| -> Vec<(String, Span)> {
            c.decl
                .items
                .iter()
                .filter_map(|i| match &i.kind {
                    ClassItemKind::Include(n) if names.contains(n.text.as_str()) && st.class_id(&n.text).is_none() => {
                        Some((n.text.clone(), n.span))
                    }
                    _ => None,
                })
                .collect()
        };
        let by_name: FxHashMap<&str, &Inst<ClassDecl>> =
            pending.iter().map(|c| (c.decl.name.text.as_str(), *c)).collect();
        let mut reported: FxHashSet<String> = FxHashSet::default();
        for c in &pending {
            if reported.contains(&c.decl.name.text) {
                continue;
            }
            // follow the first pending include until a class repeats
            let mut path: Vec<(String, Span)> = vec![(c.decl.name.text.clone(), c.decl.name.span)];
            let cycle = loop {
                let cur = by_name[path.last().expect("a class").0.as_str()];
                let Some((next, at)) = waits_on(cur)
                    .into_iter()
                    .find(|(n, _)| by_name.contains_key(n.as_str()))
                else {
                    break None;
                };
                if let Some(i) = path.iter().position(|(n, _)| *n == next) {
                    path.push((next, at));
                    break Some(path.split_off(i));
                }
                path.push((next, at));
            };
            let Some(cycle) = cycle else { continue };
            if cycle.iter().any(|(n, _)| reported.contains(n)) {
                continue;
            }
            let chain: Vec<&str> = cycle.iter().map(|(n, _)| n.as_str()).collect();
            let first = by_name[chain[0]];
            self.diags.instances = first.instances;
            self.diags.push(DslError::new(
                ErrorKind::Class {
                    name: chain[0].to_string(),
                    why: if chain.len() == 2 {
                        "it includes itself".into()
                    } else {
                        format!("it includes itself through other classes ({})", chain.join(" -> "))
                    },
                },
                cycle.last().expect("a closing include").1,
            ));
            self.diags.instances = 0;
            reported.extend(chain.iter().map(|n| n.to_string()));
        }
        for c in pending {
            self.fail_class(&c.decl);
        }
    }

    fn fail_class(&mut self, d: &ClassDecl) {
        self.failed.add(Ns::Class, &d.name.text);
        if let Some(k) = d.symbol.as_deref().and_then(|s| symbol_number(s, d.level)) {
            self.failed.symbols.insert((d.level, k));
        }
    }

    /// A constraint named in a class: its id, or `Err(reported)` (`false`: a dependency failed).
    fn class_constraint(
        &mut self,
        st: &Setting,
        class: &ClassDecl,
        n: &Name,
        role: &str,
    ) -> Result<ConstraintId, bool> {
        if let Some(id) = st.constraint_id(&n.text) {
            let l = st.constraint(id).level;
            if l == class.level {
                return Ok(id);
            }
            self.diags.push(level_mismatch_constraint(class, n, l, role));
            return Err(true);
        }
        if self.failed.has(Ns::Constraint, &n.text) {
            return Err(false);
        }
        match self.declared_constraints.get(&n.text) {
            Some(&(l, _)) if l != class.level => self.diags.push(level_mismatch_constraint(class, n, l, role)),
            Some(_) => return Err(false), // of this level but not compiled: its own diagnostic says why
            None => {
                let help = suggest(
                    &n.text,
                    self.declared_constraints
                        .iter()
                        .filter(|(_, (l, _))| *l == class.level)
                        .map(|(k, _)| k.as_str()),
                );
                self.diags.push(unknown("constraint", n, help));
            }
        }
        Err(true)
    }

    fn class(&mut self, st: &mut Setting, c: &ClassDecl) {
        let before = self.diags.list.len();
        let mut dependency_failed = false;
        // A failed include leaves its sets unknown: the schedule's names are not reported then.
        let mut include_failed = false;
        let mut sets: Vec<(ConstraintSet, Option<Span>)> = Vec::new();
        let mut inherited: Option<Schedule> = None;
        let mut schedule: Option<(&Sched, Span)> = None;
        let mut overlaps: Vec<ConstraintId> = Vec::new();
        // ending sets by name (resolved once every set is known), and those included, by index
        let mut ends: Vec<&Name> = Vec::new();
        let mut ends_at: Vec<usize> = Vec::new();
        for it in &c.items {
            match &it.kind {
                ClassItemKind::Include(n) => {
                    let Some(id) = st.class_id(&n.text) else {
                        include_failed = true;
                        if self.failed.has(Ns::Class, &n.text) {
                            dependency_failed = true;
                        } else if let Some(&(l, _)) = self.declared_classes.get(&n.text) {
                            if l != c.level {
                                self.diags.push(DslError::new(
                                    ErrorKind::Level(format!(
                                        "class `{}` is of level {}, but `{}` is a class of level {l}: a class includes classes of its own level",
                                        c.name.text, c.level, n.text
                                    )),
                                    n.span,
                                ));
                            } else {
                                dependency_failed = true;
                            }
                        } else {
                            let help = suggest(&n.text, self.declared_classes.keys().map(String::as_str));
                            self.diags.push(unknown("class", n, help));
                        }
                        continue;
                    };
                    let other = st.class(id).clone();
                    if other.level != c.level {
                        self.diags.push(DslError::new(
                            ErrorKind::Level(format!(
                                "class `{}` is of level {}, but `{}` is a class of level {}: a class includes classes of its own level",
                                c.name.text, c.level, other.name, other.level
                            )),
                            n.span,
                        ));
                        continue;
                    }
                    let offset = sets.len();
                    for s in &other.sets {
                        if sets.iter().any(|(x, _)| x.name == s.name) {
                            self.diags.push(DslError::new(
                                ErrorKind::Duplicate {
                                    what: "set",
                                    name: format!("{}` (included from `{}", s.name, other.name),
                                },
                                n.span,
                            ));
                        }
                        sets.push((s.clone(), None));
                    }
                    if inherited.is_none() {
                        inherited = Some(shift(&other.schedule, offset));
                    }
                    overlaps.extend(other.overlaps.iter().copied());
                    ends_at.extend(other.ends.iter().map(|&s| s + offset));
                }
                ClassItemKind::Set { name, members } => {
                    if let Some((_, first)) = sets.iter().find(|(x, _)| x.name == name.text) {
                        let mut e = DslError::new(
                            ErrorKind::Duplicate {
                                what: "set",
                                name: name.text.clone(),
                            },
                            name.span,
                        );
                        e = match first {
                            Some(f) => e.with_label(*f, "first declared here"),
                            None => e.with_help("an included class declares a set of that name"),
                        };
                        self.diags.push(e);
                        continue;
                    }
                    let mut cs = Vec::new();
                    let mut null = false;
                    for m in members {
                        match m {
                            Member::Null => null = true,
                            Member::Constraint(n) => match self.class_constraint(st, c, n, "uses") {
                                Ok(id) => {
                                    if cs.contains(&id) {
                                        self.diags.push(DslError::warning(
                                            ErrorKind::Class {
                                                name: c.name.text.clone(),
                                                why: format!("set `{}` names `{}` twice", name.text, n.text),
                                            },
                                            n.span,
                                        ));
                                    } else {
                                        cs.push(id);
                                    }
                                }
                                Err(reported) => dependency_failed |= !reported,
                            },
                        }
                    }
                    sets.push((
                        ConstraintSet {
                            name: name.text.clone(),
                            constraints: cs,
                            null,
                        },
                        Some(name.span),
                    ));
                }
                ClassItemKind::Schedule(s) => {
                    if let Some((_, first)) = schedule {
                        self.diags.push(
                            DslError::new(
                                ErrorKind::Class {
                                    name: c.name.text.clone(),
                                    why: "it has two schedules".into(),
                                },
                                it.span,
                            )
                            .with_label(first, "the first schedule"),
                        );
                    } else {
                        schedule = Some((s, it.span));
                    }
                }
                ClassItemKind::Ends(ns) => ends.extend(ns.iter()),
                ClassItemKind::Overlaps(ns) => {
                    for n in ns {
                        match self.class_constraint(st, c, n, "records") {
                            Ok(id) => overlaps.push(id),
                            Err(reported) => dependency_failed |= !reported,
                        }
                    }
                }
            }
        }
        // The schedule names sets by name; it is resolved once every set is in place (sets
        // declared and included after it included).
        let names: Vec<String> = sets.iter().map(|(s, _)| s.name.clone()).collect();
        for n in ends {
            match names.iter().position(|s| *s == n.text) {
                Some(i) => ends_at.push(i),
                None => self.diags.push(DslError::new(
                    ErrorKind::Unknown {
                        what: "set",
                        name: n.text.clone(),
                    },
                    n.span,
                )),
            }
        }
        let clean = !dependency_failed && !self.diags.list[before..].iter().any(|(e, _)| e.is_error());
        let resolved = match schedule {
            Some(_) if include_failed => None,
            Some((s, _)) => {
                let mut used = Vec::new();
                let r = to_schedule(s, &names, &mut used, &mut self.diags);
                // a set left empty by a reported mistake in it is not reported again
                if r.is_some() && clean {
                    self.check_named_sets(c, &sets, &used);
                }
                r
            }
            None => inherited,
        };
        let errors_here = self.diags.list[before..].iter().any(|(e, _)| e.is_error());
        let Some(schedule) = resolved else {
            if !errors_here && !dependency_failed && schedule.is_none() {
                self.diags
                    .push(DslError::new(ErrorKind::NoSchedule(c.name.text.clone()), c.name.span));
            }
            self.fail_class(c);
            return;
        };
        if errors_here || dependency_failed {
            self.fail_class(c);
            return;
        }
        let sets: Vec<ConstraintSet> = sets.into_iter().map(|(s, _)| s).collect();
        if let Err(e) = check::schedule_size(&c.name.text, &schedule, &sets) {
            self.diags.push(DslError::new(e, c.name.span));
            self.fail_class(c);
            return;
        }
        overlaps.sort_unstable();
        overlaps.dedup();
        let id = match st.add_class(&c.name.text, c.level, c.symbol.clone(), sets, schedule) {
            Ok(id) => id,
            Err(e) => {
                self.diags.push(setting_error(e, c.name.span));
                self.fail_class(c);
                return;
            }
        };
        if let Err(e) = st.set_overlaps(id, overlaps) {
            self.diags.push(setting_error(e, c.name.span));
        }
        if let Err(e) = st.set_ends(id, ends_at) {
            self.diags.push(setting_error(e, c.name.span));
        }
        for d in check::class_contexts(st, id, &|set, k| set_member_span(c, set, k)) {
            self.diags.push(d.at(c.name.span));
        }
        self.origins.classes.insert(c.name.text.clone(), c.name.span);
        if let Some(k) = c.symbol.as_deref().and_then(|s| symbol_number(s, c.level)) {
            if let Some(&other) = self.numbered.get(&(c.level, k)) {
                self.diags.push(DslError::new(
                    ErrorKind::Class {
                        name: c.name.text.clone(),
                        why: format!(
                            "its symbol `{}` is also the symbol of `{}`: an element variable `c{k}_i` would be ambiguous",
                            c.symbol.as_deref().unwrap_or_default(),
                            st.class(other).name
                        ),
                    },
                    c.name.span,
                ));
            } else {
                self.numbered.insert((c.level, k), id);
            }
        }
    }

    /// Sets the schedule names that are empty (an error) or hold only Θ, and sets the class
    /// declares but its schedule does not name (warnings).
    fn check_named_sets(&mut self, c: &ClassDecl, sets: &[(ConstraintSet, Option<Span>)], used: &[(usize, Span)]) {
        let mut reported = FxHashSet::default();
        for &(i, at) in used {
            let s = &sets[i].0;
            if !s.constraints.is_empty() || !reported.insert(i) {
                continue;
            }
            let why = if s.null {
                format!(
                    "its schedule names set `{}`, which holds only Θ: that step never adds anything",
                    s.name
                )
            } else {
                format!(
                    "its schedule names set `{}`, which is empty: that step can never be taken",
                    s.name
                )
            };
            let mut e = if s.null {
                DslError::warning(
                    ErrorKind::Class {
                        name: c.name.text.clone(),
                        why,
                    },
                    at,
                )
            } else {
                DslError::new(
                    ErrorKind::Class {
                        name: c.name.text.clone(),
                        why,
                    },
                    at,
                )
            };
            if let Some(d) = sets[i].1 {
                e = e.with_label(d, "declared here");
            }
            self.diags.push(e);
        }
        for (i, (s, decl)) in sets.iter().enumerate() {
            if let Some(d) = decl
                && !used.iter().any(|&(j, _)| j == i)
            {
                self.diags.push(DslError::warning(
                    ErrorKind::Class {
                        name: c.name.text.clone(),
                        why: format!("set `{}` is not named by its schedule, so it is never used", s.name),
                    },
                    *d,
                ));
            }
        }
    }

    /// The level-n variable's class: `Ok(Some)`, `Ok(None)` when a dependency failed, `Err` reported.
    fn elem_var_class(&mut self, st: &Setting, c: &ConstraintDecl, level: u32, v: &ElemVar) -> Result<ClassId, bool> {
        match &v.class {
            Some(n) => match st.class_id(&n.text) {
                Some(id) if st.class(id).level + 1 == level => Ok(id),
                Some(id) => {
                    self.diags
                        .push(level_mismatch_class(c, level, v, n, st.class(id).level));
                    Err(true)
                }
                None if self.failed.has(Ns::Class, &n.text) => Err(false),
                None => match self.declared_classes.get(&n.text) {
                    Some(&(l, _)) if l + 1 != level => {
                        self.diags.push(level_mismatch_class(c, level, v, n, l));
                        Err(true)
                    }
                    _ => {
                        let help = suggest(
                            &n.text,
                            self.declared_classes
                                .iter()
                                .filter(|(_, (l, _))| l + 1 == level)
                                .map(|(k, _)| k.as_str()),
                        );
                        self.diags.push(unknown("class", n, help));
                        Err(true)
                    }
                },
            },
            None => {
                // cK_i: an element of the class numbered K one level down
                let k = v
                    .name
                    .text
                    .strip_prefix('c')
                    .and_then(|r| r.split_once('_'))
                    .and_then(|(k, _)| k.parse::<u32>().ok());
                match k {
                    Some(k) => match self.numbered.get(&(level - 1, k)) {
                        Some(&id) => Ok(id),
                        None if self.failed.symbols.contains(&(level - 1, k)) => Err(false),
                        None => {
                            let sym = if level == 1 {
                                format!("C{k}")
                            } else {
                                format!("C^{}_{k}", level - 1)
                            };
                            self.diags.push(
                                DslError::new(
                                    ErrorKind::Unknown {
                                        what: "class for element variable",
                                        name: v.name.text.clone(),
                                    },
                                    v.name.span,
                                )
                                .with_help(format!(
                                    "no level-{} class has the symbol `{sym}`: give one that symbol, or write `{}: class`",
                                    level - 1,
                                    v.name.text
                                )),
                            );
                            Err(true)
                        }
                    },
                    None => {
                        self.diags.push(
                            DslError::new(
                                ErrorKind::Constraint {
                                    name: c.name.text.clone(),
                                    why: format!("element variable `{}` has no class", v.name.text),
                                },
                                v.name.span,
                            )
                            .with_help(format!(
                                "write `{}: class`, or name it `cK_i` after a level-{} class whose symbol has number K",
                                v.name.text,
                                level - 1
                            )),
                        );
                        Err(true)
                    }
                }
            }
        }
    }

    /// The pattern of a constraint, or `None` (reported, or a dependency failed).
    fn constraint_pattern(&mut self, st: &Setting, c: &ConstraintDecl) -> Option<Pattern> {
        let before = self.diags.list.len();
        let mut dependency_failed = false;
        let mut p = Pattern::default();
        let mut var_spans: Vec<Span> = Vec::new();
        let mut link_spans: Vec<Span> = Vec::new();
        let mut dropped: FxHashSet<String> = FxHashSet::default();
        match &c.body {
            ConstraintBody::Level0(stmts) => {
                let al = st.alphabet();
                for s in stmts {
                    let StatementKind::Var { context, names, kind } = &s.kind else {
                        continue;
                    };
                    let k = match al.kind(&kind.text) {
                        Some(k) => Some(k),
                        None => {
                            if self.failed.has(Ns::Primitive, &kind.text) {
                                dependency_failed = true;
                            } else {
                                let help = suggest(&kind.text, al.primitives().iter().map(|p| p.name.as_str()));
                                self.diags.push(unknown("primitive", kind, help));
                            }
                            None
                        }
                    };
                    for n in names {
                        if let Some(i) = p.var(&n.text) {
                            self.diags.push(
                                DslError::new(
                                    ErrorKind::Duplicate {
                                        what: "variable",
                                        name: n.text.clone(),
                                    },
                                    n.span,
                                )
                                .with_label(var_spans[i], "first declared here"),
                            );
                            continue;
                        }
                        if dropped.contains(&n.text) {
                            continue;
                        }
                        match k {
                            Some(k) => {
                                p.vars.push(PatternVar {
                                    name: n.text.clone(),
                                    kind: k.0,
                                    context: *context,
                                });
                                var_spans.push(n.span);
                            }
                            None => {
                                dropped.insert(n.text.clone());
                            }
                        }
                    }
                }
                for s in stmts {
                    let StatementKind::Process {
                        from,
                        from_site,
                        to,
                        to_site,
                    } = &s.kind
                    else {
                        continue;
                    };
                    let mut ends = [None, None];
                    for (i, n) in [from, to].into_iter().enumerate() {
                        ends[i] = p.var(&n.text);
                        if ends[i].is_none() && !dropped.contains(&n.text) {
                            let help = suggest(&n.text, p.vars.iter().map(|v| v.name.as_str()));
                            self.diags.push(unknown("variable", n, help));
                        }
                    }
                    let [Some(f), Some(t)] = ends else { continue };
                    let pf = al.primitive(crate::ets::PrimitiveKind(p.vars[f].kind));
                    let pt = al.primitive(crate::ets::PrimitiveKind(p.vars[t].kind));
                    let fs = pf.terminal_index(&from_site.text);
                    let ts = pt.initial_index(&to_site.text);
                    for (side, idx, var, site, prim) in
                        [("terminal", fs, from, from_site, pf), ("initial", ts, to, to_site, pt)]
                    {
                        if idx.is_some() {
                            continue;
                        }
                        let list = if side == "terminal" {
                            &prim.terminals
                        } else {
                            &prim.initials
                        };
                        let help = suggest(&site.text, list.iter().map(|s| s.name.as_str())).unwrap_or_else(|| {
                            if list.is_empty() {
                                format!("`{}` has no {side} sites", prim.name)
                            } else {
                                format!(
                                    "the {side} sites of `{}` are: {}",
                                    prim.name,
                                    list.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                                )
                            }
                        });
                        self.diags.push(
                            DslError::new(
                                ErrorKind::Unknown {
                                    what: if side == "terminal" {
                                        "terminal site"
                                    } else {
                                        "initial site"
                                    },
                                    name: format!("{}.{}", var.text, site.text),
                                },
                                site.span,
                            )
                            .with_help(help),
                        );
                    }
                    let (Some(fs), Some(ts)) = (fs, ts) else { continue };
                    if pf.terminals[fs].class != pt.initials[ts].class {
                        self.diags.push(DslError::new(
                            ErrorKind::SiteType {
                                from: format!("{}.{}", from.text, from_site.text),
                                from_class: al.primal(pf.terminals[fs].class).name.clone(),
                                to: format!("{}.{}", to.text, to_site.text),
                                to_class: al.primal(pt.initials[ts].class).name.clone(),
                            },
                            from.span,
                        ));
                        continue;
                    }
                    if f == t {
                        self.diags.push(DslError::new(
                            ErrorKind::Constraint {
                                name: c.name.text.clone(),
                                why: format!(
                                    "the process {}.{} -> {}.{} joins `{}` to itself: time runs one way, so no struct has it",
                                    from.text, from_site.text, to.text, to_site.text, from.text
                                ),
                            },
                            s.span,
                        ));
                        continue;
                    }
                    // a site holds one process
                    let mut clash = None;
                    for (j, l) in p.links.iter().enumerate() {
                        if let LinkLabel::Process {
                            from_site: a,
                            to_site: b,
                        } = l.label
                        {
                            if l.ends[0].0 as usize == f && a as usize == fs {
                                clash = Some((j, format!("{}.{}", from.text, from_site.text)));
                            } else if l.ends[1].0 as usize == t && b as usize == ts {
                                clash = Some((j, format!("{}.{}", to.text, to_site.text)));
                            }
                        }
                    }
                    if let Some((j, site)) = clash {
                        self.diags.push(
                            DslError::new(
                                ErrorKind::Constraint {
                                    name: c.name.text.clone(),
                                    why: format!("the site `{site}` would hold two processes (a site holds one)"),
                                },
                                s.span,
                            )
                            .with_label(link_spans[j], "the other process"),
                        );
                        continue;
                    }
                    p.links.push(PatternLink {
                        label: LinkLabel::Process {
                            from_site: fs as u16,
                            to_site: ts as u16,
                        },
                        ends: smallvec![(f as u16, 0), (t as u16, 1)],
                    });
                    link_spans.push(s.span);
                }
            }
            ConstraintBody::LevelN { level, vars, cels } => {
                let level = *level;
                if level == 0 {
                    self.diags.push(DslError::new(
                        ErrorKind::Level(format!(
                            "constraint `{}` is written in the level-n notation with level 0; a level-0 constraint is written `{{ variables; processes; }}`",
                            c.name.text
                        )),
                        c.name.span,
                    ));
                    return None;
                }
                for v in vars {
                    if let Some(i) = p.var(&v.name.text) {
                        self.diags.push(
                            DslError::new(
                                ErrorKind::Duplicate {
                                    what: "variable",
                                    name: v.name.text.clone(),
                                },
                                v.name.span,
                            )
                            .with_label(var_spans[i], "first declared here"),
                        );
                        continue;
                    }
                    match self.elem_var_class(st, c, level, v) {
                        Ok(id) => {
                            p.vars.push(PatternVar {
                                name: v.name.text.clone(),
                                kind: id.0,
                                context: v.context,
                            });
                            var_spans.push(v.name.span);
                        }
                        Err(reported) => {
                            dependency_failed |= !reported;
                            dropped.insert(v.name.text.clone());
                        }
                    }
                }
                for cel in cels {
                    let on = match st.constraint_id(&cel.on.text) {
                        Some(id) if st.constraint(id).level + 1 == level => Some(id),
                        Some(id) => {
                            self.diags
                                .push(level_mismatch_cel(c, level, &cel.on, st.constraint(id).level));
                            None
                        }
                        None if self.failed.has(Ns::Constraint, &cel.on.text) => {
                            dependency_failed = true;
                            None
                        }
                        None => {
                            match self.declared_constraints.get(&cel.on.text) {
                                Some(&(l, _)) if l + 1 != level => {
                                    self.diags.push(level_mismatch_cel(c, level, &cel.on, l))
                                }
                                _ => {
                                    let help = suggest(
                                        &cel.on.text,
                                        self.declared_constraints
                                            .iter()
                                            .filter(|(_, (l, _))| l + 1 == level)
                                            .map(|(k, _)| k.as_str()),
                                    );
                                    self.diags.push(unknown("constraint", &cel.on, help));
                                }
                            }
                            None
                        }
                    };
                    let mut ends: smallvec::SmallVec<[(u16, u8); 2]> = smallvec![];
                    let mut ok = true;
                    for m in &cel.members {
                        match p.var(&m.text) {
                            Some(i) if ends.iter().any(|e| e.0 as usize == i) => {
                                self.diags.push(DslError::new(
                                    ErrorKind::Constraint {
                                        name: c.name.text.clone(),
                                        why: format!("`{}` is named twice in one class element link", m.text),
                                    },
                                    m.span,
                                ));
                                ok = false;
                            }
                            Some(i) => ends.push((i as u16, 0)),
                            None => {
                                ok = false;
                                if !dropped.contains(&m.text) {
                                    let help = suggest(&m.text, p.vars.iter().map(|v| v.name.as_str()));
                                    self.diags.push(unknown("element variable", m, help));
                                }
                            }
                        }
                    }
                    if ok && ends.len() < 2 {
                        self.diags.push(DslError::new(
                            ErrorKind::Constraint {
                                name: c.name.text.clone(),
                                why: "a class element link joins at least two elements (they overlap on it)".into(),
                            },
                            cel.on.span,
                        ));
                        ok = false;
                    }
                    if let (Some(on), true) = (on, ok) {
                        p.links.push(PatternLink {
                            label: LinkLabel::Cel(on),
                            ends,
                        });
                        link_spans.push(cel.on.span);
                    }
                }
            }
        }
        let errors_here = self.diags.list[before..].iter().any(|(e, _)| e.is_error());
        if errors_here || dependency_failed {
            return None;
        }
        // The pattern is well typed: what no struct can satisfy, or what matches anything.
        for d in check::pattern(&c.name.text, level_of(c), &p) {
            let at = match d.at {
                check::At::Var(i) => var_spans[i],
                check::At::Link(i) => link_spans[i],
                check::At::Name => c.name.span,
            };
            let mut e = d.at_span(at);
            for (a, text) in d.labels {
                let s = match a {
                    check::At::Var(i) => var_spans[i],
                    check::At::Link(i) => link_spans[i],
                    check::At::Name => c.name.span,
                };
                e = e.with_label(s, text);
            }
            self.diags.push(e);
        }
        if self.diags.list[before..].iter().any(|(e, _)| e.is_error()) {
            return None;
        }
        Some(p)
    }
}

fn duplicate(what: &'static str, n: &Name, first: Span, instances: usize) -> DslError {
    let e = DslError::new(
        ErrorKind::Duplicate {
            what,
            name: n.text.clone(),
        },
        n.span,
    );
    if first.start == n.span.start && first.file == n.span.file && instances > 1 {
        e.with_help("two rows of its tables give the same name")
    } else {
        e.with_label(first, "first declared here")
    }
}

fn level_mismatch_constraint(class: &ClassDecl, n: &Name, level: u32, role: &str) -> DslError {
    DslError::new(
        ErrorKind::Level(format!(
            "class `{}` is of level {} but {role} `{}`, a constraint of level {level}",
            class.name.text, class.level, n.text
        )),
        n.span,
    )
    .with_help(format!("a class {role} constraints of its own level, {}", class.level))
}

fn level_mismatch_class(c: &ConstraintDecl, level: u32, v: &ElemVar, n: &Name, class_level: u32) -> DslError {
    DslError::new(
        ErrorKind::Level(format!(
            "constraint `{}` is of level {level}, but its variable `{}` is typed by `{}`, a class of level {class_level}",
            c.name.text, v.name.text, n.text
        )),
        n.span,
    )
    .with_help(format!(
        "the variables of a level-{level} constraint are elements of level-{} classes",
        level - 1
    ))
}

fn level_mismatch_cel(c: &ConstraintDecl, level: u32, on: &Name, l: u32) -> DslError {
    DslError::new(
        ErrorKind::Level(format!(
            "constraint `{}` is of level {level}, but its class element link is on `{}`, a constraint of level {l}",
            c.name.text, on.text
        )),
        on.span,
    )
    .with_help(format!(
        "the elements of a level-{level} constraint overlap on level-{} constraints",
        level - 1
    ))
}

/// The span of member `k` (a constraint id) of set `set` as written in `c`, if it is written there.
fn set_member_span(c: &ClassDecl, set: &str, k: &str) -> Option<Span> {
    c.items.iter().find_map(|i| match &i.kind {
        ClassItemKind::Set { name, members } if name.text == set => members.iter().find_map(|m| match m {
            Member::Constraint(n) if n.text == k => Some(n.span),
            _ => None,
        }),
        _ => None,
    })
}

/// Resolves a schedule's set names; `used` collects `(set index, where named)`.
fn to_schedule(s: &Sched, sets: &[String], used: &mut Vec<(usize, Span)>, diags: &mut Diags) -> Option<Schedule> {
    Some(match s {
        Sched::Set(n) => match sets.iter().position(|x| *x == n.text) {
            Some(i) => {
                used.push((i, n.span));
                Schedule::Step(i)
            }
            None => {
                let help = suggest(&n.text, sets.iter().map(String::as_str));
                diags.push(unknown("set", n, help));
                return None;
            }
        },
        Sched::Seq(v) => Schedule::Seq(all(v.iter().map(|x| to_schedule(x, sets, used, diags)))?),
        Sched::Alt(v) => Schedule::Alt(all(v.iter().map(|x| to_schedule(x, sets, used, diags)))?),
        Sched::Repeat { body, min, max } => Schedule::Repeat {
            body: Box::new(to_schedule(body, sets, used, diags)?),
            min: *min,
            max: *max,
        },
    })
}

/// Every item evaluated (so that every error is reported), then all of them or none.
fn all<T>(it: impl Iterator<Item = Option<T>>) -> Option<Vec<T>> {
    let v: Vec<Option<T>> = it.collect();
    v.into_iter().collect()
}

fn shift(s: &Schedule, by: usize) -> Schedule {
    match s {
        Schedule::Step(i) => Schedule::Step(i + by),
        Schedule::Seq(v) => Schedule::Seq(v.iter().map(|x| shift(x, by)).collect()),
        Schedule::Alt(v) => Schedule::Alt(v.iter().map(|x| shift(x, by)).collect()),
        Schedule::Repeat { body, min, max } => Schedule::Repeat {
            body: Box::new(shift(body, by)),
            min: *min,
            max: *max,
        },
    }
}

/// The number K of a class symbol of the given level: `C12` (level 0), `C^1_3` (level 1).
fn symbol_number(sym: &str, level: u32) -> Option<u32> {
    let s = sym.trim();
    if let Some(rest) = s.strip_prefix("C^") {
        let (l, k) = rest.split_once('_')?;
        if l.parse::<u32>().ok()? != level {
            return None;
        }
        return k.parse().ok();
    }
    if level != 0 {
        return None;
    }
    s.strip_prefix("C_").or_else(|| s.strip_prefix('C'))?.parse().ok()
}

fn setting_error(e: SettingError, span: Span) -> DslError {
    let kind = match e {
        SettingError::Duplicate(n) => ErrorKind::Duplicate { what: "name", name: n },
        SettingError::Unknown(n) => ErrorKind::Unknown { what: "name", name: n },
        SettingError::Level(m) => ErrorKind::Level(m),
        SettingError::Constraint { name, why } => ErrorKind::Constraint { name, why },
    };
    DslError::new(kind, span)
}

/// `$COLUMN` replaced in `text`, the columns in turn, the longest first: a `$` that a value
/// brings, or one written before a column's `$`, may take part in a later replacement.
fn subst_in_turn(text: &str, sub: &Subst) -> String {
    let mut keys: Vec<&(String, String)> = sub.iter().collect();
    keys.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
    let mut t = text.to_string();
    for (k, v) in keys {
        t = t.replace(&format!("${k}"), v);
    }
    t
}

/// `$COLUMN` replaced in `text` as [`subst_in_turn`] replaces it, in one pass where that gives
/// the same: when no column or value holds a `$` and no column is longer than the text between
/// two `$` of `text`, no replacement can make a column's name follow a `$` that it did not follow
/// already, so each `$` takes the longest column that follows it, as in turn.
fn subst(text: &str, sub: &Subst) -> String {
    let longest = sub.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut last: Option<usize> = None;
    let apart = text.match_indices('$').all(|(i, _)| {
        let far = last.is_none_or(|l| i - l > longest);
        last = Some(i);
        far
    });
    if apart && !sub.iter().any(|(k, v)| k.contains('$') || v.contains('$')) {
        subst_one_pass(text, sub)
    } else {
        subst_in_turn(text, sub)
    }
}

/// Each `$` of `text` followed by the longest column that follows it (the first of those when
/// two are alike), in one pass ([`subst`] says when that is the substitution).
fn subst_one_pass(text: &str, sub: &Subst) -> String {
    let mut t = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        t.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let mut best: Option<&(String, String)> = None;
        for kv in sub {
            if after.starts_with(kv.0.as_str()) && best.is_none_or(|b| kv.0.len() > b.0.len()) {
                best = Some(kv);
            }
        }
        match best {
            Some((k, v)) => {
                t.push_str(v);
                rest = &after[k.len()..];
            }
            None => {
                t.push('$');
                rest = after;
            }
        }
    }
    t.push_str(rest);
    t
}

/// Replaces `$COLUMN` in `n`; false (reported) when a column is not in the substitution.
fn subst_name(n: &mut Name, sub: &Subst, diags: &mut Diags) -> bool {
    if !n.text.contains('$') {
        return true;
    }
    let t = subst(&n.text, sub);
    if t.contains('$') {
        let e = DslError::new(
            ErrorKind::Template(if sub.is_empty() {
                format!(
                    "`{}` names a table column, but its declaration has no `for` clause",
                    n.text
                )
            } else {
                format!("`{}` names a column no table of its `for` clause has", n.text)
            }),
            n.span,
        );
        let cols: Vec<&str> = sub.iter().map(|(k, _)| k.as_str()).collect();
        diags.push(if cols.is_empty() {
            e
        } else {
            e.with_help(format!("the columns are: {}", cols.join(", ")))
        });
        return false;
    }
    n.text = t;
    true
}

fn subst_constraint(c: &mut ConstraintDecl, sub: &Subst, diags: &mut Diags) -> bool {
    let mut ok = subst_name(&mut c.name, sub, diags);
    match &mut c.body {
        ConstraintBody::Level0(stmts) => {
            for s in stmts {
                match &mut s.kind {
                    StatementKind::Var { names, kind, .. } => {
                        for n in names.iter_mut() {
                            ok &= subst_name(n, sub, diags);
                        }
                        ok &= subst_name(kind, sub, diags);
                    }
                    StatementKind::Process {
                        from,
                        from_site,
                        to,
                        to_site,
                    } => {
                        for n in [from, from_site, to, to_site] {
                            ok &= subst_name(n, sub, diags);
                        }
                    }
                }
            }
        }
        ConstraintBody::LevelN { vars, cels, .. } => {
            for v in vars {
                ok &= subst_name(&mut v.name, sub, diags);
                if let Some(c) = &mut v.class {
                    ok &= subst_name(c, sub, diags);
                }
            }
            for c in cels {
                for n in c.members.iter_mut() {
                    ok &= subst_name(n, sub, diags);
                }
                ok &= subst_name(&mut c.on, sub, diags);
            }
        }
    }
    ok
}

fn subst_sched(s: &mut Sched, sub: &Subst, diags: &mut Diags) -> bool {
    match s {
        Sched::Set(n) => subst_name(n, sub, diags),
        Sched::Seq(v) | Sched::Alt(v) => v.iter_mut().fold(true, |ok, x| subst_sched(x, sub, diags) & ok),
        Sched::Repeat { body, .. } => subst_sched(body, sub, diags),
    }
}

fn subst_class(c: &mut ClassDecl, sub: &Subst, diags: &mut Diags) -> bool {
    let mut ok = subst_name(&mut c.name, sub, diags);
    if let Some(sym) = &mut c.symbol {
        let mut n = Name {
            text: sym.clone(),
            span: c.name.span,
        };
        ok &= subst_name(&mut n, sub, diags);
        *sym = n.text;
    }
    for it in &mut c.items {
        match &mut it.kind {
            ClassItemKind::Include(n) => ok &= subst_name(n, sub, diags),
            ClassItemKind::Set { name, members } => {
                ok &= subst_name(name, sub, diags);
                for m in members {
                    if let Member::Constraint(n) = m {
                        ok &= subst_name(n, sub, diags);
                    }
                }
            }
            ClassItemKind::Schedule(s) => ok &= subst_sched(s, sub, diags),
            ClassItemKind::Overlaps(v) | ClassItemKind::Ends(v) => {
                for n in v.iter_mut() {
                    ok &= subst_name(n, sub, diags);
                }
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// `subst` replaces what the columns in turn replace, for names of text and `$`
        /// references (to columns, to prefixes and extensions of them, to none, next to one
        /// another), with columns that follow a `$` only after another replacement, and values
        /// that bring a `$`.
        #[test]
        fn substitution_is_the_one_in_turn(
            cols in prop::collection::vec(("[ab]{0,2}", "[ab$]{0,2}"), 0..6),
            parts in prop::collection::vec(("[ab_]{0,2}", any::<bool>()), 0..7),
        ) {
            let sub: Subst = cols;
            let text: String = parts
                .iter()
                .map(|(p, dollar)| if *dollar { format!("${p}") } else { p.clone() })
                .collect();
            prop_assert_eq!(subst(&text, &sub), subst_in_turn(&text, &sub));
        }
    }

    #[test]
    fn a_replacement_that_makes_a_column_follow_a_dollar_is_taken_in_turn() {
        // "$a$bb": `bb` becomes `a`, and then `aa` follows the first `$`.
        let sub: Subst = vec![
            ("bb".into(), "a".into()),
            ("aa".into(), "X".into()),
            ("a".into(), "Y".into()),
        ];
        assert_eq!(subst_in_turn("$a$bb", &sub), "X");
        assert_eq!(subst("$a$bb", &sub), "X");
        assert_eq!(subst_one_pass("$a$bb", &sub), "Ya");
        // Apart, one pass: `Con_$A_$B`.
        let sub: Subst = vec![("A".into(), "black".into()), ("B".into(), "left".into())];
        assert_eq!(subst("Con_$A_$B", &sub), "Con_black_left");
    }

    #[test]
    fn templates_match_their_instances() {
        assert!(template_matches("Con_$N", "Con_12"));
        assert!(template_matches("P_$A_$B", "P_black_left"));
        assert!(!template_matches("Con_$N", "Cons_1"));
        assert!(template_matches("$X", "abc"));
    }

    #[test]
    fn suggestions_are_close_names() {
        assert_eq!(
            suggest("Con_spedn", ["Con_spend", "Con_leave"]).as_deref(),
            Some("did you mean `Con_spend`?")
        );
        assert_eq!(suggest("zzz", ["Con_spend"]), None);
    }
}
