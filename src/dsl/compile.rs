//! From text to a [`Setting`]: imports, template expansion (tables), and semantic checks, level by
//! level (level-0 constraints need the alphabet; level-n constraints need the level-(n−1)
//! classes; classes need the constraints of their level).

use rustc_hash::FxHashMap;
use smallvec::smallvec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::ast::*;
use super::error::{DslError, ErrorKind};
use super::parser::parse;
use crate::ets::{
    Alphabet, AlphabetError, ClassId, ConstraintId, ConstraintSet, LinkLabel, Pattern, PatternLink, PatternVar,
    PrimalClassId, Schedule, Setting, SettingError,
};

/// One source file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Its path or name.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// Every file read, indexed by [`Span::file`].
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The files.
    pub files: Vec<SourceFile>,
}

impl Sources {
    /// 1-based line and column of a span's start.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        let Some(f) = self.files.get(span.file as usize) else {
            return (1, 1);
        };
        let upto = &f.text[..(span.start as usize).min(f.text.len())];
        let line = upto.matches('\n').count() + 1;
        let col = upto.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
        (line, col)
    }
}

/// Where imported files come from.
pub trait Resolver {
    /// The text of `path`.
    fn read(&self, path: &Path) -> std::io::Result<String>;
}

/// Reads the file system.
pub struct FsResolver;

impl Resolver for FsResolver {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        std::fs::read_to_string(path)
    }
}

/// Files held in memory (embedded settings), by path.
pub struct MemResolver(pub BTreeMap<PathBuf, String>);

impl Resolver for MemResolver {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        let norm = normalise(path);
        self.0
            .get(&norm)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not embedded"))
    }
}

fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The parsed files of a program, imports first.
#[derive(Debug, Clone)]
pub struct Program {
    /// Every file read.
    pub sources: Sources,
    /// The parsed files, each after the files it imports; `(source index, tree)`.
    pub files: Vec<(u32, File)>,
}

/// Reads and parses `roots` and everything they import.
pub fn load(roots: &[PathBuf], resolver: &dyn Resolver) -> (Sources, Result<Program, Vec<DslError>>) {
    let mut sources = Sources::default();
    let mut files = Vec::new();
    let mut done: FxHashMap<PathBuf, u32> = FxHashMap::default();
    let mut errors = Vec::new();
    for r in roots {
        let mut stack = Vec::new();
        load_one(
            &normalise(r),
            None,
            resolver,
            &mut sources,
            &mut files,
            &mut done,
            &mut stack,
            &mut errors,
        );
    }
    if errors.is_empty() {
        let s = sources.clone();
        (sources, Ok(Program { sources: s, files }))
    } else {
        (sources, Err(errors))
    }
}

#[allow(clippy::too_many_arguments)]
fn load_one(
    path: &Path,
    from: Option<Span>,
    resolver: &dyn Resolver,
    sources: &mut Sources,
    files: &mut Vec<(u32, File)>,
    done: &mut FxHashMap<PathBuf, u32>,
    stack: &mut Vec<PathBuf>,
    errors: &mut Vec<DslError>,
) {
    if let Some(i) = stack.iter().position(|p| p == path) {
        let chain: Vec<String> = stack[i..]
            .iter()
            .chain(std::iter::once(&path.to_path_buf()))
            .map(|p| p.display().to_string())
            .collect();
        errors.push(DslError::new(
            ErrorKind::CyclicImport(chain.join(" -> ")),
            from.unwrap_or_default(),
        ));
        return;
    }
    if done.contains_key(path) {
        return;
    }
    let text = match resolver.read(path) {
        Ok(t) => t,
        Err(e) => {
            errors.push(DslError::new(
                ErrorKind::Io {
                    path: path.display().to_string(),
                    message: e.to_string(),
                },
                from.unwrap_or_default(),
            ));
            return;
        }
    };
    let idx = sources.files.len() as u32;
    sources.files.push(SourceFile {
        path: path.to_path_buf(),
        text: text.clone(),
    });
    done.insert(path.to_path_buf(), idx);
    let file = match parse(&text, idx) {
        Ok(f) => f,
        Err(e) => {
            errors.push(e);
            return;
        }
    };
    stack.push(path.to_path_buf());
    let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    for item in &file.items {
        if let ItemKind::Import(rel) = &item.kind {
            load_one(
                &normalise(&dir.join(rel)),
                Some(item.span),
                resolver,
                sources,
                files,
                done,
                stack,
                errors,
            );
        }
    }
    stack.pop();
    files.push((idx, file));
}

/// Where each name of the compiled setting was declared.
#[derive(Debug, Clone, Default)]
pub struct Origins {
    /// Constraint name → span of its name.
    pub constraints: BTreeMap<String, Span>,
    /// Class name → span of its name.
    pub classes: BTreeMap<String, Span>,
}

/// Compiles a program to a setting, or returns every diagnostic found.
pub fn compile(program: &Program) -> Result<(Setting, Origins), Vec<DslError>> {
    let mut errors = Vec::new();
    // Tables.
    let mut tables: Tables = FxHashMap::default();
    for (_, f) in &program.files {
        for it in &f.items {
            if let ItemKind::Table { name, columns, rows } = &it.kind {
                if tables.contains_key(&name.text) {
                    errors.push(DslError::new(
                        ErrorKind::Duplicate {
                            what: "table",
                            name: name.text.clone(),
                        },
                        name.span,
                    ));
                    continue;
                }
                for r in rows {
                    if r.len() != columns.len() {
                        errors.push(DslError::new(
                            ErrorKind::Template(format!(
                                "table `{}` has {} columns but a row has {} cells",
                                name.text,
                                columns.len(),
                                r.len()
                            )),
                            r.first().map(|c| c.span).unwrap_or(name.span),
                        ));
                    }
                }
                tables.insert(name.text.clone(), (columns.clone(), rows.clone(), name.span));
            }
        }
    }
    // Alphabet.
    let mut al = Alphabet::new();
    for (_, f) in &program.files {
        for it in &f.items {
            match &it.kind {
                ItemKind::Primal(ns) => {
                    for n in ns {
                        if let Err(AlphabetError::DuplicatePrimalClass(_)) = al.add_primal_class(&n.text) {
                            errors.push(DslError::new(
                                ErrorKind::Duplicate {
                                    what: "primal class",
                                    name: n.text.clone(),
                                },
                                n.span,
                            ));
                        }
                    }
                }
                ItemKind::Primitive {
                    name,
                    initials,
                    terminals,
                } => {
                    let mut sites = |groups: &[SiteGroup]| -> Vec<(String, PrimalClassId)> {
                        let mut v = Vec::new();
                        for g in groups {
                            match al.primal_class(&g.class.text) {
                                Some(c) => v.extend(g.names.iter().map(|n| (n.text.clone(), c))),
                                None => errors.push(DslError::new(
                                    ErrorKind::Unknown {
                                        what: "primal class",
                                        name: g.class.text.clone(),
                                    },
                                    g.class.span,
                                )),
                            }
                        }
                        v
                    };
                    let (i, t) = (sites(initials), sites(terminals));
                    match al.add_primitive(&name.text, &i, &t) {
                        Ok(_) => {}
                        Err(AlphabetError::DuplicatePrimitive(n)) => errors.push(DslError::new(
                            ErrorKind::Duplicate {
                                what: "primitive",
                                name: n,
                            },
                            name.span,
                        )),
                        Err(AlphabetError::DuplicateSite { site, .. }) => errors.push(DslError::new(
                            ErrorKind::Duplicate {
                                what: "site",
                                name: site,
                            },
                            name.span,
                        )),
                        Err(e) => errors.push(DslError::new(ErrorKind::Template(e.to_string()), name.span)),
                    }
                }
                _ => {}
            }
        }
    }
    // Expand constraints and classes.
    let mut constraints: Vec<ConstraintDecl> = Vec::new();
    let mut classes: Vec<ClassDecl> = Vec::new();
    for (_, f) in &program.files {
        for it in &f.items {
            match &it.kind {
                ItemKind::Constraint(c) => match instances(&c.fors, &tables) {
                    Ok(subs) => {
                        for sub in subs {
                            let mut c2 = c.clone();
                            subst_constraint(&mut c2, &sub, &mut errors);
                            constraints.push(c2);
                        }
                    }
                    Err(e) => errors.push(e),
                },
                ItemKind::Class(c) => match instances(&c.fors, &tables) {
                    Ok(subs) => {
                        for sub in subs {
                            let mut c2 = c.clone();
                            subst_class(&mut c2, &sub, &mut errors);
                            classes.push(c2);
                        }
                    }
                    Err(e) => errors.push(e),
                },
                _ => {}
            }
        }
    }
    // Go on after errors so that one run reports every diagnostic it can.
    let mut st = Setting::new(Arc::new(al));
    let mut origins = Origins::default();
    let level_of = |c: &ConstraintDecl| match c.body {
        ConstraintBody::Level0(_) => 0,
        ConstraintBody::LevelN { level, .. } => level,
    };
    let top = constraints
        .iter()
        .map(level_of)
        .chain(classes.iter().map(|c| c.level))
        .max()
        .unwrap_or(0);
    let mut numbered: FxHashMap<(u32, u32), ClassId> = FxHashMap::default();
    let declared: FxHashMap<String, u32> = constraints.iter().map(|c| (c.name.text.clone(), level_of(c))).collect();
    for level in 0..=top {
        for c in constraints.iter().filter(|c| level_of(c) == level) {
            if let Some(prev) = origins.constraints.get(&c.name.text) {
                let _ = prev;
                errors.push(DslError::new(
                    ErrorKind::Duplicate {
                        what: "constraint",
                        name: c.name.text.clone(),
                    },
                    c.name.span,
                ));
                continue;
            }
            match constraint_pattern(&st, c, &numbered) {
                Ok(p) => match st.add_constraint(&c.name.text, level, p) {
                    Ok(_) => {
                        origins.constraints.insert(c.name.text.clone(), c.name.span);
                    }
                    Err(e) => errors.push(setting_error(e, c.name.span)),
                },
                Err(mut es) => errors.append(&mut es),
            }
        }
        // Classes of this level, includes first.
        let mine: Vec<&ClassDecl> = classes.iter().filter(|c| c.level == level).collect();
        let mut pending: Vec<&ClassDecl> = mine.clone();
        let mut progress = true;
        while !pending.is_empty() && progress {
            progress = false;
            let mut next = Vec::new();
            for c in pending {
                let includes: Vec<&Name> = c
                    .items
                    .iter()
                    .filter_map(|i| {
                        if let ClassItemKind::Include(n) = &i.kind {
                            Some(n)
                        } else {
                            None
                        }
                    })
                    .collect();
                let waiting = includes
                    .iter()
                    .any(|n| st.class_id(&n.text).is_none() && mine.iter().any(|m| m.name.text == n.text));
                if waiting {
                    next.push(c);
                    continue;
                }
                progress = true;
                if origins.classes.contains_key(&c.name.text) || st.class_id(&c.name.text).is_some() {
                    errors.push(DslError::new(
                        ErrorKind::Duplicate {
                            what: "class",
                            name: c.name.text.clone(),
                        },
                        c.name.span,
                    ));
                    continue;
                }
                match class(&mut st, c, &declared) {
                    Ok(id) => {
                        origins.classes.insert(c.name.text.clone(), c.name.span);
                        if let Some(k) = c.symbol.as_deref().and_then(|s| symbol_number(s, level)) {
                            numbered.insert((level, k), id);
                        }
                    }
                    Err(mut es) => errors.append(&mut es),
                }
            }
            pending = next;
        }
        for c in pending {
            errors.push(DslError::new(
                ErrorKind::Template(format!(
                    "class `{}` includes itself, directly or through others",
                    c.name.text
                )),
                c.name.span,
            ));
        }
    }
    if errors.is_empty() {
        Ok((st, origins))
    } else {
        Err(errors)
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

type Subst = Vec<(String, String)>;

/// Tables by name: columns, rows, where declared.
type Tables = FxHashMap<String, (Vec<Name>, Vec<Vec<Name>>, Span)>;

/// Every substitution a `for` clause asks for (the product of its tables' rows).
fn instances(fors: &[Name], tables: &Tables) -> Result<Vec<Subst>, DslError> {
    let mut out: Vec<Subst> = vec![Vec::new()];
    for f in fors {
        let Some((cols, rows, _)) = tables.get(&f.text) else {
            return Err(DslError::new(
                ErrorKind::Unknown {
                    what: "table",
                    name: f.text.clone(),
                },
                f.span,
            ));
        };
        let mut next = Vec::new();
        for base in &out {
            for r in rows {
                let mut s = base.clone();
                s.extend(cols.iter().zip(r).map(|(c, v)| (c.text.clone(), v.text.clone())));
                next.push(s);
            }
        }
        out = next;
    }
    Ok(out)
}

fn subst_name(n: &mut Name, sub: &Subst, errors: &mut Vec<DslError>) {
    if !n.text.contains('$') {
        return;
    }
    let mut keys: Vec<&(String, String)> = sub.iter().collect();
    keys.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
    let mut t = n.text.clone();
    for (k, v) in keys {
        t = t.replace(&format!("${k}"), v);
    }
    if t.contains('$') {
        errors.push(DslError::new(
            ErrorKind::Template(format!("`{}` names a column no table of its `for` clause has", n.text)),
            n.span,
        ));
    }
    n.text = t;
}

fn subst_constraint(c: &mut ConstraintDecl, sub: &Subst, errors: &mut Vec<DslError>) {
    subst_name(&mut c.name, sub, errors);
    match &mut c.body {
        ConstraintBody::Level0(stmts) => {
            for s in stmts {
                match &mut s.kind {
                    StatementKind::Var { names, kind, .. } => {
                        names.iter_mut().for_each(|n| subst_name(n, sub, errors));
                        subst_name(kind, sub, errors);
                    }
                    StatementKind::Process {
                        from,
                        from_site,
                        to,
                        to_site,
                    } => {
                        for n in [from, from_site, to, to_site] {
                            subst_name(n, sub, errors);
                        }
                    }
                }
            }
        }
        ConstraintBody::LevelN { vars, cels, .. } => {
            for v in vars {
                subst_name(&mut v.name, sub, errors);
                if let Some(c) = &mut v.class {
                    subst_name(c, sub, errors);
                }
            }
            for c in cels {
                c.members.iter_mut().for_each(|n| subst_name(n, sub, errors));
                subst_name(&mut c.on, sub, errors);
            }
        }
    }
}

fn subst_sched(s: &mut Sched, sub: &Subst, errors: &mut Vec<DslError>) {
    match s {
        Sched::Set(n) => subst_name(n, sub, errors),
        Sched::Seq(v) | Sched::Alt(v) => v.iter_mut().for_each(|x| subst_sched(x, sub, errors)),
        Sched::Repeat { body, .. } => subst_sched(body, sub, errors),
    }
}

fn subst_class(c: &mut ClassDecl, sub: &Subst, errors: &mut Vec<DslError>) {
    subst_name(&mut c.name, sub, errors);
    if let Some(sym) = &mut c.symbol {
        let mut n = Name {
            text: sym.clone(),
            span: c.name.span,
        };
        subst_name(&mut n, sub, errors);
        *sym = n.text;
    }
    for it in &mut c.items {
        match &mut it.kind {
            ClassItemKind::Include(n) => subst_name(n, sub, errors),
            ClassItemKind::Set { name, members } => {
                subst_name(name, sub, errors);
                for m in members {
                    if let Member::Constraint(n) = m {
                        subst_name(n, sub, errors);
                    }
                }
            }
            ClassItemKind::Schedule(s) => subst_sched(s, sub, errors),
            ClassItemKind::Overlaps(v) | ClassItemKind::Ends(v) => {
                v.iter_mut().for_each(|n| subst_name(n, sub, errors))
            }
        }
    }
}

fn constraint_pattern(
    st: &Setting,
    c: &ConstraintDecl,
    numbered: &FxHashMap<(u32, u32), ClassId>,
) -> Result<Pattern, Vec<DslError>> {
    let mut errors = Vec::new();
    let mut p = Pattern::default();
    let mut spans: Vec<Span> = Vec::new();
    match &c.body {
        ConstraintBody::Level0(stmts) => {
            let al = st.alphabet();
            for s in stmts {
                if let StatementKind::Var { context, names, kind } = &s.kind {
                    let Some(k) = al.kind(&kind.text) else {
                        errors.push(DslError::new(
                            ErrorKind::Unknown {
                                what: "primitive",
                                name: kind.text.clone(),
                            },
                            kind.span,
                        ));
                        continue;
                    };
                    for n in names {
                        if p.var(&n.text).is_some() {
                            errors.push(DslError::new(
                                ErrorKind::Duplicate {
                                    what: "variable",
                                    name: n.text.clone(),
                                },
                                n.span,
                            ));
                            continue;
                        }
                        p.vars.push(PatternVar {
                            name: n.text.clone(),
                            kind: k.0,
                            context: *context,
                        });
                        spans.push(n.span);
                    }
                }
            }
            for s in stmts {
                if let StatementKind::Process {
                    from,
                    from_site,
                    to,
                    to_site,
                } = &s.kind
                {
                    let (Some(f), Some(t)) = (p.var(&from.text), p.var(&to.text)) else {
                        for n in [from, to] {
                            if p.var(&n.text).is_none() {
                                errors.push(DslError::new(
                                    ErrorKind::Unknown {
                                        what: "variable",
                                        name: n.text.clone(),
                                    },
                                    n.span,
                                ));
                            }
                        }
                        continue;
                    };
                    let pf = al.primitive(crate::ets::PrimitiveKind(p.vars[f].kind));
                    let pt = al.primitive(crate::ets::PrimitiveKind(p.vars[t].kind));
                    let fs = pf.terminal_index(&from_site.text);
                    let ts = pt.initial_index(&to_site.text);
                    if fs.is_none() {
                        errors.push(DslError::new(
                            ErrorKind::Unknown {
                                what: "terminal site",
                                name: format!("{}.{} (of `{}`)", from.text, from_site.text, pf.name),
                            },
                            from_site.span,
                        ));
                    }
                    if ts.is_none() {
                        errors.push(DslError::new(
                            ErrorKind::Unknown {
                                what: "initial site",
                                name: format!("{}.{} (of `{}`)", to.text, to_site.text, pt.name),
                            },
                            to_site.span,
                        ));
                    }
                    let (Some(fs), Some(ts)) = (fs, ts) else { continue };
                    if pf.terminals[fs].class != pt.initials[ts].class {
                        errors.push(DslError::new(
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
                    p.links.push(PatternLink {
                        label: LinkLabel::Process {
                            from_site: fs as u16,
                            to_site: ts as u16,
                        },
                        ends: smallvec![(f as u16, 0), (t as u16, 1)],
                    });
                }
            }
        }
        ConstraintBody::LevelN { level, vars, cels } => {
            for v in vars {
                let class = match &v.class {
                    Some(n) => match st.class_id(&n.text) {
                        Some(id) => Some(id),
                        None => {
                            errors.push(DslError::new(
                                ErrorKind::Unknown {
                                    what: "class",
                                    name: n.text.clone(),
                                },
                                n.span,
                            ));
                            None
                        }
                    },
                    None => {
                        // cK_i: an element of the class numbered K one level down
                        let k = v
                            .name
                            .text
                            .strip_prefix('c')
                            .and_then(|r| r.split_once('_'))
                            .and_then(|(k, _)| k.parse::<u32>().ok());
                        match k.and_then(|k| numbered.get(&(level - 1, k))) {
                            Some(&id) => Some(id),
                            None => {
                                errors.push(DslError::new(
                                    ErrorKind::Unknown {
                                        what: "class for element variable",
                                        name: format!(
                                            "{} (write `{}: class`, or give a level-{} class the symbol it names)",
                                            v.name.text,
                                            v.name.text,
                                            level - 1
                                        ),
                                    },
                                    v.name.span,
                                ));
                                None
                            }
                        }
                    }
                };
                if p.var(&v.name.text).is_some() {
                    errors.push(DslError::new(
                        ErrorKind::Duplicate {
                            what: "variable",
                            name: v.name.text.clone(),
                        },
                        v.name.span,
                    ));
                    continue;
                }
                if let Some(id) = class {
                    p.vars.push(PatternVar {
                        name: v.name.text.clone(),
                        kind: id.0,
                        context: v.context,
                    });
                }
            }
            for cel in cels {
                let Some(on) = st.constraint_id(&cel.on.text) else {
                    errors.push(DslError::new(
                        ErrorKind::Unknown {
                            what: "constraint",
                            name: cel.on.text.clone(),
                        },
                        cel.on.span,
                    ));
                    continue;
                };
                let mut ends = smallvec![];
                for m in &cel.members {
                    match p.var(&m.text) {
                        Some(i) => ends.push((i as u16, 0)),
                        None => errors.push(DslError::new(
                            ErrorKind::Unknown {
                                what: "element variable",
                                name: m.text.clone(),
                            },
                            m.span,
                        )),
                    }
                }
                p.links.push(PatternLink {
                    label: LinkLabel::Cel(on),
                    ends,
                });
            }
        }
    }
    if errors.is_empty() { Ok(p) } else { Err(errors) }
}

fn to_schedule(s: &Sched, sets: &[String], errors: &mut Vec<DslError>) -> Schedule {
    match s {
        Sched::Set(n) => match sets.iter().position(|x| *x == n.text) {
            Some(i) => Schedule::Step(i),
            None => {
                errors.push(DslError::new(
                    ErrorKind::Unknown {
                        what: "set",
                        name: n.text.clone(),
                    },
                    n.span,
                ));
                Schedule::Seq(vec![])
            }
        },
        Sched::Seq(v) => Schedule::Seq(v.iter().map(|x| to_schedule(x, sets, errors)).collect()),
        Sched::Alt(v) => Schedule::Alt(v.iter().map(|x| to_schedule(x, sets, errors)).collect()),
        Sched::Repeat { body, min, max } => Schedule::Repeat {
            body: Box::new(to_schedule(body, sets, errors)),
            min: *min,
            max: *max,
        },
    }
}

fn class(st: &mut Setting, c: &ClassDecl, declared: &FxHashMap<String, u32>) -> Result<ClassId, Vec<DslError>> {
    let mut errors = Vec::new();
    let mut sets: Vec<ConstraintSet> = Vec::new();
    let mut schedule: Option<Schedule> = None;
    let mut inherited: Option<Schedule> = None;
    let mut overlaps: Vec<ConstraintId> = Vec::new();
    // ending sets by name (resolved once every set is known), and those included, by index
    let mut ends: Vec<&Name> = Vec::new();
    let mut ends_at: Vec<usize> = Vec::new();
    for it in &c.items {
        match &it.kind {
            ClassItemKind::Include(n) => match st.class_id(&n.text) {
                Some(id) => {
                    let other = st.class(id).clone();
                    if other.level != c.level {
                        errors.push(DslError::new(
                            ErrorKind::Level(format!(
                                "class `{}` of level {} includes `{}` of level {}",
                                c.name.text, c.level, other.name, other.level
                            )),
                            n.span,
                        ));
                        continue;
                    }
                    let offset = sets.len();
                    for s in &other.sets {
                        if sets.iter().any(|x| x.name == s.name) {
                            errors.push(DslError::new(
                                ErrorKind::Duplicate {
                                    what: "set",
                                    name: s.name.clone(),
                                },
                                n.span,
                            ));
                        }
                        sets.push(s.clone());
                    }
                    if inherited.is_none() {
                        inherited = Some(shift(&other.schedule, offset));
                    }
                    overlaps.extend(other.overlaps.iter().copied());
                    ends_at.extend(other.ends.iter().map(|&s| s + offset));
                }
                None => errors.push(DslError::new(
                    ErrorKind::Unknown {
                        what: "class",
                        name: n.text.clone(),
                    },
                    n.span,
                )),
            },
            ClassItemKind::Set { name, members } => {
                if sets.iter().any(|x| x.name == name.text) {
                    errors.push(DslError::new(
                        ErrorKind::Duplicate {
                            what: "set",
                            name: name.text.clone(),
                        },
                        name.span,
                    ));
                    continue;
                }
                let mut cs = Vec::new();
                let mut null = false;
                for m in members {
                    match m {
                        Member::Null => null = true,
                        Member::Constraint(n) => match st.constraint_id(&n.text) {
                            Some(id) if st.constraint(id).level == c.level => cs.push(id),
                            Some(id) => errors.push(DslError::new(
                                ErrorKind::Level(format!(
                                    "class `{}` of level {} uses `{}`, a constraint of level {}",
                                    c.name.text,
                                    c.level,
                                    n.text,
                                    st.constraint(id).level
                                )),
                                n.span,
                            )),
                            None => errors.push(match declared.get(&n.text) {
                                Some(l) => DslError::new(
                                    ErrorKind::Level(format!(
                                        "class `{}` of level {} uses `{}`, a constraint of level {l}",
                                        c.name.text, c.level, n.text
                                    )),
                                    n.span,
                                ),
                                None => DslError::new(
                                    ErrorKind::Unknown {
                                        what: "constraint",
                                        name: n.text.clone(),
                                    },
                                    n.span,
                                ),
                            }),
                        },
                    }
                }
                sets.push(ConstraintSet {
                    name: name.text.clone(),
                    constraints: cs,
                    null,
                });
            }
            ClassItemKind::Schedule(s) => {
                let names: Vec<String> = sets.iter().map(|x| x.name.clone()).collect();
                // sets declared after the schedule are visible too
                let mut all = names.clone();
                for it2 in &c.items {
                    if let ClassItemKind::Set { name, .. } = &it2.kind
                        && !all.contains(&name.text)
                    {
                        all.push(name.text.clone());
                    }
                }
                schedule = Some(s.clone()).map(|s| to_schedule(&s, &all, &mut errors));
            }
            ClassItemKind::Ends(ns) => ends.extend(ns.iter()),
            ClassItemKind::Overlaps(ns) => {
                for n in ns {
                    match st.constraint_id(&n.text) {
                        Some(id) => overlaps.push(id),
                        None => errors.push(DslError::new(
                            ErrorKind::Unknown {
                                what: "constraint",
                                name: n.text.clone(),
                            },
                            n.span,
                        )),
                    }
                }
            }
        }
    }
    for n in ends {
        match sets.iter().position(|s| s.name == n.text) {
            Some(i) => ends_at.push(i),
            None => errors.push(DslError::new(
                ErrorKind::Unknown {
                    what: "set",
                    name: n.text.clone(),
                },
                n.span,
            )),
        }
    }
    let Some(schedule) = schedule.or(inherited) else {
        errors.push(DslError::new(ErrorKind::NoSchedule(c.name.text.clone()), c.name.span));
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    overlaps.sort_unstable();
    overlaps.dedup();
    let id = st
        .add_class(&c.name.text, c.level, c.symbol.clone(), sets, schedule)
        .map_err(|e| vec![setting_error(e, c.name.span)])?;
    st.set_overlaps(id, overlaps)
        .map_err(|e| vec![setting_error(e, c.name.span)])?;
    st.set_ends(id, ends_at)
        .map_err(|e| vec![setting_error(e, c.name.span)])?;
    Ok(id)
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
