//! The canonical pretty-printer: one layout for every tree, so that `ets fmt` is idempotent and
//! `parse(print(t)) == t`.
//!
//! Lines are at most [`WIDTH`] characters (a comment, or a single name longer than that, is left
//! as it is). A statement that does not fit is broken at the shallowest level of brackets that
//! makes every line fit, after a `,`, `;` or `|` or before `->`, and its continuation lines are
//! indented four more spaces. Blank lines between items and statements are kept (at most one);
//! a table keeps one line when it was written on one line and fits, else it has a row per line.

use super::ast::*;

/// The widest a printed line may be.
pub const WIDTH: usize = 120;

/// Prints a file in canonical form.
pub fn print(f: &File) -> String {
    let mut out = String::new();
    for item in &f.items {
        comments(&mut out, &item.comments, 0);
        let start = out.len();
        item_text(&mut out, &item.kind);
        note(&mut out, start, &item.note);
    }
    comments(&mut out, &f.trailing, 0);
    out
}

fn comments(out: &mut String, cs: &[String], indent: usize) {
    for c in cs {
        if c == BLANK {
            out.push('\n');
            continue;
        }
        out.push_str(&" ".repeat(indent));
        out.push_str("//");
        out.push_str(c);
        out.push('\n');
    }
}

/// Appends an end-of-line comment to the last line written since `start`.
fn note(out: &mut String, start: usize, n: &Option<String>) {
    if let Some(n) = n
        && out.len() > start
        && out.ends_with('\n')
    {
        out.pop();
        out.push_str(" //");
        out.push_str(n);
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

/// Writes `text` (one logical line) at `indent`, broken to fit [`WIDTH`].
fn line(out: &mut String, indent: usize, text: &str) {
    line_from(out, indent, text, 0);
}

/// [`line`], breaking only after byte `from` (a header before it stays whole).
fn line_from(out: &mut String, indent: usize, text: &str, from: usize) {
    for l in layout(text, indent, from) {
        out.push_str(&l);
        out.push('\n');
    }
}

/// The places `text` may break: `(byte index of the space, bracket depth)`.
fn breaks(text: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut prev = ' ';
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if in_string {
            in_string = c != '"';
        } else if c == '"' {
            in_string = true;
        } else if c == '-' && chars.peek().map(|p| p.1) == Some('>') {
            chars.next();
            prev = '>';
            continue;
        } else if matches!(c, '(' | '[' | '{' | '<' | '⟨') {
            depth += 1;
        } else if matches!(c, ')' | ']' | '}' | '>' | '⟩') {
            depth = depth.saturating_sub(1);
        } else if c == ' ' && i > 0 && (matches!(prev, ',' | ';' | '|') || text[i + 1..].starts_with("->")) {
            v.push((i, depth));
        }
        prev = c;
    }
    v
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// Greedy filling with the allowed break places.
fn fill(text: &str, indent: usize, allowed: &[usize]) -> Vec<String> {
    let pad = " ".repeat(indent);
    let cont = " ".repeat(indent + 4);
    let mut lines = Vec::new();
    let mut cur = pad;
    let mut from = 0;
    let mut pieces: Vec<&str> = Vec::new();
    for &b in allowed {
        pieces.push(&text[from..b]);
        from = b + 1;
    }
    pieces.push(&text[from..]);
    for p in pieces {
        let at_start = cur.trim().is_empty();
        if at_start {
            cur.push_str(p);
        } else if width(&cur) + 1 + width(p) <= WIDTH {
            cur.push(' ');
            cur.push_str(p);
        } else {
            lines.push(std::mem::take(&mut cur));
            cur = format!("{cont}{p}");
        }
    }
    lines.push(cur);
    lines
}

/// The lines of one logical line at `indent`: broken after byte `from`, at the shallowest depth
/// that fits.
fn layout(text: &str, indent: usize, from: usize) -> Vec<String> {
    if indent + width(text) <= WIDTH {
        return vec![format!("{}{text}", " ".repeat(indent))];
    }
    let br: Vec<(usize, usize)> = breaks(text).into_iter().filter(|&(i, _)| i >= from).collect();
    let max_depth = br.iter().map(|&(_, d)| d).max().unwrap_or(0);
    let mut best = None;
    for d in 0..=max_depth {
        let allowed: Vec<usize> = br.iter().filter(|&&(_, x)| x <= d).map(|&(i, _)| i).collect();
        let lines = fill(text, indent, &allowed);
        let fits = lines.iter().all(|l| width(l) <= WIDTH);
        best = Some(lines);
        if fits {
            break;
        }
    }
    best.unwrap_or_else(|| vec![format!("{}{text}", " ".repeat(indent))])
}

fn item_text(out: &mut String, k: &ItemKind) {
    match k {
        ItemKind::Import(s) => line(out, 0, &format!("import \"{s}\";")),
        ItemKind::Primal(v) => line(out, 0, &format!("primal {};", names(v))),
        ItemKind::Primitive {
            name,
            initials,
            terminals,
        } => {
            let head = format!("primitive {}(", name.text);
            let text = format!("{head}{}) -> ({});", groups(initials), groups(terminals));
            line_from(out, 0, &text, head.len());
        }
        ItemKind::Table {
            name,
            columns,
            rows,
            layout: lay,
        } => {
            let head = format!("table {}({}) = [", name.text, names(columns));
            let rows_text: Vec<String> = rows.iter().map(|r| names(r)).collect();
            let one = format!("{head}{}];", rows_text.join("; "));
            if lay.one_line && width(&one) <= WIDTH {
                out.push_str(&one);
                out.push('\n');
            } else {
                line(out, 0, &head);
                let n = rows_text.len();
                for (i, r) in rows_text.iter().enumerate() {
                    line(out, 4, &format!("{r}{}", if i + 1 < n { ";" } else { "" }));
                }
                out.push_str("];\n");
            }
        }
        ItemKind::Constraint(c) => match &c.body {
            ConstraintBody::Level0(stmts) => {
                line(out, 0, &format!("constraint {}{} {{", c.name.text, fors(&c.fors)));
                for s in stmts {
                    comments(out, &s.comments, 4);
                    let start = out.len();
                    let text = match &s.kind {
                        StatementKind::Var {
                            context,
                            names: ns,
                            kind,
                        } => format!(
                            "{}{}: {};",
                            if *context { "context " } else { "" },
                            names(ns),
                            kind.text
                        ),
                        StatementKind::Process {
                            from,
                            from_site,
                            to,
                            to_site,
                        } => format!("{}.{} -> {}.{};", from.text, from_site.text, to.text, to_site.text),
                    };
                    line(out, 4, &text);
                    note(out, start, &s.note);
                }
                comments(out, &c.trailing, 4);
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
                let head = format!("constraint {}{} level {level} = <", c.name.text, fors(&c.fors));
                let text = format!("{head}{{{}}}, {{{}}}>;", vs.join(", "), cs.join(", "));
                line_from(out, 0, &text, head.len());
            }
        },
        ItemKind::Class(c) => {
            let sym = c.symbol.as_ref().map(|s| format!(" = \"{s}\"")).unwrap_or_default();
            line(
                out,
                0,
                &format!("class {}{}{} level {} {{", c.name.text, sym, fors(&c.fors), c.level),
            );
            for it in &c.items {
                comments(out, &it.comments, 4);
                let start = out.len();
                let head = match &it.kind {
                    ClassItemKind::Set { name, .. } => format!("set {} = ", name.text).len(),
                    _ => 0,
                };
                let text = match &it.kind {
                    ClassItemKind::Include(n) => format!("include {};", n.text),
                    ClassItemKind::Set { name, members } => {
                        let ms: Vec<String> = members
                            .iter()
                            .map(|m| match m {
                                Member::Constraint(n) => n.text.clone(),
                                Member::Null => "Θ".into(),
                            })
                            .collect();
                        format!("set {} = {{{}}};", name.text, ms.join(", "))
                    }
                    ClassItemKind::Schedule(s) => format!("schedule {};", sched(s, 0)),
                    ClassItemKind::Overlaps(v) => format!("overlaps {};", names(v)),
                    ClassItemKind::Ends(v) => format!("ends {};", names(v)),
                };
                line_from(out, 4, &text, head);
                note(out, start, &it.note);
            }
            comments(out, &c.trailing, 4);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_break_at_the_shallowest_level_that_fits() {
        let text = format!(
            "primitive p({}) -> (x: q);",
            (0..30).map(|i| format!("s{i}: q")).collect::<Vec<_>>().join(", ")
        );
        let lines = layout(&text, 0, 0);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH), "{lines:#?}");
        assert_eq!(
            lines.join(" ").split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        // before `->` first
        let t2 = format!("primitive withdraw({}) -> ({});", "a".repeat(50), "b".repeat(50));
        let l2 = layout(&t2, 0, 0);
        assert_eq!(l2.len(), 2, "{l2:#?}");
        assert!(l2[1].starts_with("    -> ("));
    }
}
