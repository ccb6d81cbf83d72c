//! The canonical pretty-printer: one layout for every tree, so that `ets fmt` is idempotent and
//! `parse(print(t)) == t`.

use super::ast::*;

/// Prints a file in canonical form.
pub fn print(f: &File) -> String {
    let mut out = String::new();
    let mut prev: Option<&ItemKind> = None;
    for item in &f.items {
        let same_group = matches!(
            (prev, &item.kind),
            (Some(ItemKind::Import(_)), ItemKind::Import(_)) | (Some(ItemKind::Primal(_)), ItemKind::Primal(_))
        );
        if prev.is_some() && (!same_group || !item.comments.is_empty()) {
            out.push('\n');
        }
        comments(&mut out, &item.comments, "");
        item_text(&mut out, &item.kind);
        prev = Some(&item.kind);
    }
    if !f.trailing.is_empty() {
        if !f.items.is_empty() {
            out.push('\n');
        }
        comments(&mut out, &f.trailing, "");
    }
    out
}

fn comments(out: &mut String, cs: &[String], indent: &str) {
    for c in cs {
        out.push_str(indent);
        out.push_str("//");
        out.push_str(c);
        out.push('\n');
    }
}

fn names(v: &[Name]) -> String {
    v.iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join(", ")
}

fn groups(v: &[SiteGroup]) -> String {
    v.iter()
        .map(|g| format!("{}: {}", names(&g.names), g.class.text))
        .collect::<Vec<_>>()
        .join(", ")
}

fn fors(v: &[Name]) -> String {
    if v.is_empty() {
        String::new()
    } else {
        format!(" for {}", names(v))
    }
}

fn item_text(out: &mut String, k: &ItemKind) {
    match k {
        ItemKind::Import(s) => out.push_str(&format!("import \"{s}\";\n")),
        ItemKind::Primal(v) => out.push_str(&format!("primal {};\n", names(v))),
        ItemKind::Primitive {
            name,
            initials,
            terminals,
        } => out.push_str(&format!(
            "primitive {}({}) -> ({});\n",
            name.text,
            groups(initials),
            groups(terminals)
        )),
        ItemKind::Table { name, columns, rows } => {
            out.push_str(&format!("table {}({}) = [\n", name.text, names(columns)));
            let rows: Vec<String> = rows.iter().map(|r| format!("    {}", names(r))).collect();
            out.push_str(&rows.join(";\n"));
            out.push_str("\n];\n");
        }
        ItemKind::Constraint(c) => {
            out.push_str(&format!("constraint {}{}", c.name.text, fors(&c.fors)));
            match &c.body {
                ConstraintBody::Level0(stmts) => {
                    out.push_str(" {\n");
                    for s in stmts {
                        comments(out, &s.comments, "    ");
                        match &s.kind {
                            StatementKind::Var {
                                context,
                                names: ns,
                                kind,
                            } => out.push_str(&format!(
                                "    {}{}: {};\n",
                                if *context { "context " } else { "" },
                                names(ns),
                                kind.text
                            )),
                            StatementKind::Process {
                                from,
                                from_site,
                                to,
                                to_site,
                            } => out.push_str(&format!(
                                "    {}.{} -> {}.{};\n",
                                from.text, from_site.text, to.text, to_site.text
                            )),
                        }
                    }
                    out.push_str("}\n");
                }
                ConstraintBody::LevelN { level, vars, cels } => {
                    let vs: Vec<String> = vars
                        .iter()
                        .map(|v| {
                            format!(
                                "{}{}{}",
                                if v.context { "context " } else { "" },
                                v.name.text,
                                v.class.as_ref().map(|c| format!(": {}", c.text)).unwrap_or_default()
                            )
                        })
                        .collect();
                    let cs: Vec<String> = cels
                        .iter()
                        .map(|c| format!("<{{{}}}, {}>", names(&c.members), c.on.text))
                        .collect();
                    out.push_str(&format!(
                        " level {level} = <{{{}}}, {{{}}}>;\n",
                        vs.join(", "),
                        cs.join(", ")
                    ));
                }
            }
        }
        ItemKind::Class(c) => {
            let sym = c.symbol.as_ref().map(|s| format!(" = \"{s}\"")).unwrap_or_default();
            out.push_str(&format!(
                "class {}{}{} level {} {{\n",
                c.name.text,
                sym,
                fors(&c.fors),
                c.level
            ));
            for it in &c.items {
                comments(out, &it.comments, "    ");
                match &it.kind {
                    ClassItemKind::Include(n) => out.push_str(&format!("    include {};\n", n.text)),
                    ClassItemKind::Set { name, members } => {
                        let ms: Vec<String> = members
                            .iter()
                            .map(|m| match m {
                                Member::Constraint(n) => n.text.clone(),
                                Member::Null => "Θ".into(),
                            })
                            .collect();
                        out.push_str(&format!("    set {} = {{{}}};\n", name.text, ms.join(", ")))
                    }
                    ClassItemKind::Schedule(s) => out.push_str(&format!("    schedule {};\n", sched(s, 0))),
                    ClassItemKind::Overlaps(v) => out.push_str(&format!("    overlaps {};\n", names(v))),
                    ClassItemKind::Ends(v) => out.push_str(&format!("    ends {};\n", names(v))),
                }
            }
            out.push_str("}\n");
        }
    }
}

/// Precedence: 0 alternatives, 1 sequence, 2 repetition operand.
fn sched(s: &Sched, ctx: u8) -> String {
    let (text, prec) = match s {
        Sched::Set(n) => (n.text.clone(), 3),
        Sched::Alt(v) => (v.iter().map(|x| sched(x, 1)).collect::<Vec<_>>().join(" | "), 0),
        Sched::Seq(v) => (v.iter().map(|x| sched(x, 2)).collect::<Vec<_>>().join(", "), 1),
        Sched::Repeat { body, min, max } => {
            let op = match (min, max) {
                (0, None) => "*".to_string(),
                (1, None) => "+".to_string(),
                (0, Some(1)) => "?".to_string(),
                (n, Some(m)) if n == m => format!("{{{n}}}"),
                (n, Some(m)) => format!("{{{n},{m}}}"),
                (n, None) => format!("{{{n},}}"),
            };
            (format!("{}{op}", sched(body, 3)), 2)
        }
    };
    if prec < ctx { format!("({text})") } else { text }
}
