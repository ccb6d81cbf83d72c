//! The parser of the class language: one function `p_<production>` per production of
//! `grammars/ets.ebnf` (a test checks that the two name the same productions). Tokens are read
//! with nom; a failed token becomes a [`DslError`] with the byte span where it was expected, at one
//! boundary (`Parser::expect`).
//!
//! After a syntax error the parser skips to the next line that begins with an item keyword and
//! goes on, so that one run reports one diagnostic per broken item ([`parse_all`]). A block that
//! the file ends inside is reported at both ends: where the file ends and where the block opened.
//! Schedules are nested at most [`MAX_NESTING`] deep; a UTF-8 byte-order mark is skipped.

use nom::IResult;
use nom::Parser as _;
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::digit1;

use super::ast::*;
use super::error::{DslError, ErrorKind};

/// The deepest a schedule may nest (parentheses and postfix repetitions together).
pub const MAX_NESTING: u32 = 32;
/// The largest count a bounded repetition may have (a bounded repetition is unrolled).
pub const MAX_REPEAT: u32 = crate::ets::schedule::MAX_BOUNDED_REPEAT;
/// The highest level a constraint or class may have.
pub const MAX_LEVEL: u32 = 255;

/// Parses one file's text; `file` is its index in the sources. Returns the first syntax error.
pub fn parse(text: &str, file: u32) -> Result<File, Box<DslError>> {
    let (f, mut errors) = parse_all(text, file);
    if errors.is_empty() {
        Ok(f)
    } else {
        Err(Box::new(errors.swap_remove(0)))
    }
}

/// Parses one file's text, going on after syntax errors: the items that parse, and one
/// diagnostic per item that does not.
pub fn parse_all(text: &str, file: u32) -> (File, Vec<DslError>) {
    let start = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let mut p = Parser {
        src: text,
        pos: start,
        file,
        comments: Vec::new(),
        opens: Vec::new(),
        depth: 0,
        errors: Vec::new(),
        exhausted: false,
    };
    let f = p.p_file();
    (f, p.errors)
}

/// Whether `t` is a word that begins an item.
fn is_item_keyword(t: &str) -> bool {
    ["import", "primal", "primitive", "table", "constraint", "class"]
        .iter()
        .any(|k| {
            t.starts_with(k) && !t[k.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        })
}

/// The parser's results: a diagnostic is boxed (it is built only on the error path).
type PResult<T> = Result<T, Box<DslError>>;

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    file: u32,
    comments: Vec<String>,
    /// Open blocks: where each opened, what it is, what closes it.
    opens: Vec<(Span, &'static str, &'static str)>,
    /// Schedule nesting.
    depth: u32,
    errors: Vec<DslError>,
    /// A comment or string ran to the end of the file: nothing after it is reported.
    exhausted: bool,
}

fn name_token(i: &str) -> IResult<&str, &str> {
    (
        take_while1(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$'),
    )
        .recognize()
        .parse(i)
}

trait Recognize<'a> {
    fn recognize(self) -> impl nom::Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>>;
}

impl<'a, P> Recognize<'a> for P
where
    P: nom::Parser<&'a str, Error = nom::error::Error<&'a str>>,
{
    fn recognize(self) -> impl nom::Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
        nom::combinator::recognize(self)
    }
}

fn number_token(i: &str) -> IResult<&str, &str> {
    digit1(i)
}

const KEYWORDS: &[&str] = &[
    "import",
    "primal",
    "primitive",
    "table",
    "for",
    "constraint",
    "context",
    "level",
    "class",
    "include",
    "set",
    "schedule",
    "overlaps",
    "ends",
    "null",
];

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }
    fn span(&self, start: usize) -> Span {
        Span {
            file: self.file,
            start: start as u32,
            end: self.pos as u32,
        }
    }
    fn span_at(&self, start: usize, end: usize) -> Span {
        Span {
            file: self.file,
            start: start as u32,
            end: end as u32,
        }
    }
    /// The next character, or, at the end of the file, its last visible character (so that a
    /// caret can point at it).
    fn here(&self) -> Span {
        match self.rest().chars().next() {
            Some(c) => self.span_at(self.pos, self.pos + c.len_utf8()),
            None => {
                let t = self.src.trim_end();
                let last = t.chars().next_back().map(|c| c.len_utf8()).unwrap_or(0);
                self.span_at(t.len() - last, t.len())
            }
        }
    }
    /// Skips white space and comments, keeping comment texts (and a [`BLANK`] for a blank line).
    fn ws(&mut self) {
        loop {
            let r = self.rest();
            let t = r.trim_start();
            let skipped = &r[..r.len() - t.len()];
            if skipped.matches('\n').count() >= 2 && self.comments.last().map(String::as_str) != Some(BLANK) {
                self.comments.push(BLANK.to_string());
            }
            self.pos += r.len() - t.len();
            if let Some(body) = t.strip_prefix("//") {
                let line = body.split('\n').next().unwrap_or("");
                self.comments
                    .push(line.strip_suffix('\r').unwrap_or(line).trim_end().to_string());
                self.pos += 2 + line.len();
            } else if let Some(body) = t.strip_prefix("/*") {
                let Some(e) = body.find("*/") else {
                    if !self.exhausted {
                        let open = self.span_at(self.pos, self.pos + 2);
                        self.pos = self.src.len();
                        let e = DslError::new(
                            ErrorKind::Unterminated {
                                what: "block comment",
                                close: "*/",
                            },
                            self.here(),
                        )
                        .with_label(open, "the comment opens here");
                        self.errors.push(e);
                        self.exhausted = true;
                    }
                    self.pos = self.src.len();
                    return;
                };
                for l in body[..e].lines() {
                    self.comments.push(format!(" {}", l.trim()).trim_end().to_string());
                }
                self.pos += 2 + e + 2;
            } else {
                return;
            }
        }
    }
    /// The comment after the last token on its line, if any (consumed).
    fn eol_note(&mut self) -> Option<String> {
        let r = self.rest();
        let t = r.trim_start_matches([' ', '\t']);
        let body = t.strip_prefix("//")?;
        let line = body.split('\n').next().unwrap_or("");
        self.pos += (r.len() - t.len()) + 2 + line.len();
        Some(line.strip_suffix('\r').unwrap_or(line).trim_end().to_string())
    }
    /// The pending comments, for something that begins here (no blank line before the first
    /// thing of a file or a block).
    fn take_comments(&mut self, first: bool) -> Vec<String> {
        let mut v = std::mem::take(&mut self.comments);
        if first {
            while v.first().map(String::as_str) == Some(BLANK) {
                v.remove(0);
            }
        }
        v
    }
    /// The pending comments before a closing `}` or the end of the file (no blank line at their
    /// end, nor at their start in an empty block).
    fn take_trailing(&mut self, empty: bool) -> Vec<String> {
        let mut v = std::mem::take(&mut self.comments);
        while v.last().map(String::as_str) == Some(BLANK) {
            v.pop();
        }
        while empty && v.first().map(String::as_str) == Some(BLANK) {
            v.remove(0);
        }
        v
    }
    fn found(&self) -> String {
        match self.rest().chars().next() {
            None => "end of file".to_string(),
            Some(c) => match name_token(self.rest()) {
                Ok((_, n)) => format!("`{n}`"),
                Err(_) => format!("`{c}`"),
            },
        }
    }
    fn err(&self, expected: &str) -> Box<DslError> {
        let e = DslError::new(
            ErrorKind::Syntax {
                expected: expected.to_string(),
                found: self.found(),
            },
            self.here(),
        );
        self.with_open(e)
    }
    /// Adds the innermost open block to a diagnostic at the end of the file or at the next item,
    /// or where the block's closing token was expected.
    fn with_open(&self, e: DslError) -> Box<DslError> {
        let closer_expected = matches!(&e.kind, ErrorKind::Syntax { expected, .. }
            if self.opens.last().is_some_and(|o| *expected == format!("`{}`", o.2)));
        let at_end = self.rest().is_empty() || is_item_keyword(self.rest()) || closer_expected;
        Box::new(match self.opens.last() {
            Some(&(span, what, close)) if at_end => {
                e.with_label(span, format!("this {what} is not closed (`{close}` expected)"))
            }
            _ => e,
        })
    }
    /// The end of the file inside the innermost open block.
    fn unterminated(&self) -> Box<DslError> {
        let (span, what, close) = *self.opens.last().expect("an open block");
        Box::new(
            DslError::new(ErrorKind::Unterminated { what, close }, self.here())
                .with_label(span, format!("the {what} opens here")),
        )
    }
    /// Opens a block with the token `t` (describing it as `what`, closed by `close`).
    fn open(&mut self, t: &str, what: &'static str, close: &'static str) -> PResult<()> {
        self.ws();
        let start = self.pos;
        self.expect(t)?;
        let s = self.span(start);
        self.opens.push((s, what, close));
        Ok(())
    }
    /// Closes the innermost block with `t`.
    fn close(&mut self, t: &str) -> PResult<()> {
        self.ws();
        if self.rest().is_empty() {
            return Err(self.unterminated());
        }
        self.expect(t)?;
        self.opens.pop();
        Ok(())
    }
    /// Whether the next token is the punctuation or keyword `t` (keywords must end at a word
    /// boundary); consumes it if so.
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        let alts: &[&str] = match t {
            "<" => &["<", "⟨"],
            ">" => &[">", "⟩"],
            _ => &[t],
        };
        for a in alts {
            if let Some(after) = self.rest().strip_prefix(a) {
                let word = a.chars().all(|c| c.is_ascii_alphabetic());
                if word
                    && after
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                {
                    continue;
                }
                self.pos += a.len();
                return true;
            }
        }
        false
    }
    /// The one boundary where a missing token becomes an error.
    fn expect(&mut self, t: &str) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else if self.rest().is_empty() && !self.opens.is_empty() {
            Err(self.unterminated())
        } else {
            Err(self.err(&format!("`{t}`")))
        }
    }
    fn at_keyword(&mut self, k: &str) -> bool {
        self.ws();
        self.rest().starts_with(k)
            && !self.rest()[k.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    }
    fn at_end_of_block(&mut self) -> PResult<bool> {
        self.ws();
        if self.rest().is_empty() {
            return Err(self.unterminated());
        }
        Ok(self.rest().starts_with('}'))
    }
    fn name(&mut self) -> PResult<Name> {
        self.ws();
        let start = self.pos;
        match name_token(self.rest()) {
            Ok((_, n)) if !KEYWORDS.contains(&n) => {
                self.pos += n.len();
                Ok(Name {
                    text: n.to_string(),
                    span: self.span(start),
                })
            }
            _ if self.rest().is_empty() && !self.opens.is_empty() => Err(self.unterminated()),
            _ => Err(self.err("a name")),
        }
    }
    fn number(&mut self) -> PResult<(u32, Span)> {
        self.ws();
        match number_token(self.rest()) {
            Ok((_, n)) => {
                let start = self.pos;
                self.pos += n.len();
                let span = self.span(start);
                n.parse().map(|v| (v, span)).map_err(|_| {
                    Box::new(DslError::new(
                        ErrorKind::Syntax {
                            expected: "a smaller number".into(),
                            found: format!("`{n}`"),
                        },
                        span,
                    ))
                })
            }
            Err(_) => Err(self.err("a number")),
        }
    }
    fn level(&mut self) -> PResult<u32> {
        let (n, span) = self.number()?;
        if n > MAX_LEVEL {
            return Err(Box::new(DslError::new(
                ErrorKind::Limit(format!(
                    "level {n} is above the highest level the language allows, {MAX_LEVEL}"
                )),
                span,
            )));
        }
        Ok(n)
    }
    fn string(&mut self) -> PResult<String> {
        self.ws();
        let r = self.rest();
        if !r.starts_with('"') {
            return Err(self.err("a string"));
        }
        let line = r[1..].split('\n').next().unwrap_or("");
        match line.find('"') {
            Some(e) => {
                self.pos += e + 2;
                Ok(r[1..e + 1].to_string())
            }
            None => {
                let open = self.span_at(self.pos, self.pos + 1);
                let end = self.pos + 1 + line.trim_end().len();
                Err(Box::new(
                    DslError::new(
                        ErrorKind::Syntax {
                            expected: "a closing `\"` on the same line".into(),
                            found: if end == self.src.len() {
                                "end of file".into()
                            } else {
                                "end of line".into()
                            },
                        },
                        self.span_at(
                            end.saturating_sub(1).max(open.start as usize),
                            end.max(open.end as usize),
                        ),
                    )
                    .with_label(open, "the string opens here"),
                ))
            }
        }
    }
    fn names(&mut self) -> PResult<Vec<Name>> {
        let mut v = vec![self.name()?];
        while self.eat(",") {
            v.push(self.name()?);
        }
        Ok(v)
    }
    /// After a syntax error: on to the next line that begins with an item keyword.
    fn recover(&mut self) {
        self.opens.clear();
        self.depth = 0;
        self.comments.clear();
        loop {
            let r = self.rest();
            let line_start = self.src[..self.pos].rfind('\n').map(|i| i + 1).unwrap_or(0);
            let before = &self.src[line_start..self.pos];
            if before.trim().is_empty() && is_item_keyword(r) {
                return;
            }
            match r.find('\n') {
                Some(i) => {
                    self.pos += i + 1;
                    let t = self.rest().trim_start_matches([' ', '\t', '\r']);
                    self.pos = self.src.len() - t.len();
                }
                None => {
                    self.pos = self.src.len();
                    return;
                }
            }
        }
    }

    // ---- one function per production ----

    fn p_file(&mut self) -> File {
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.rest().is_empty() {
                let trailing = self.take_trailing(items.is_empty());
                return File { items, trailing };
            }
            match self.p_item(items.is_empty()) {
                Ok(it) => items.push(it),
                Err(e) => {
                    if !self.exhausted {
                        self.errors.push(*e);
                    }
                    self.recover();
                }
            }
        }
    }

    fn p_item(&mut self, first: bool) -> PResult<Item> {
        self.ws();
        let comments = self.take_comments(first);
        let start = self.pos;
        let kind = if self.at_keyword("import") {
            self.p_import()?
        } else if self.at_keyword("primal") {
            self.p_primal()?
        } else if self.at_keyword("primitive") {
            self.p_primitive()?
        } else if self.at_keyword("table") {
            self.p_table()?
        } else if self.at_keyword("constraint") {
            ItemKind::Constraint(self.p_constraint()?)
        } else if self.at_keyword("class") {
            ItemKind::Class(self.p_class()?)
        } else {
            return Err(self.err("`import`, `primal`, `primitive`, `table`, `constraint` or `class`"));
        };
        let span = self.span(start);
        let note = self.eol_note();
        Ok(Item {
            comments,
            kind,
            span,
            note,
        })
    }

    fn p_import(&mut self) -> PResult<ItemKind> {
        self.expect("import")?;
        let s = self.string()?;
        self.expect(";")?;
        Ok(ItemKind::Import(s))
    }

    fn p_primal(&mut self) -> PResult<ItemKind> {
        self.expect("primal")?;
        let v = self.names()?;
        self.expect(";")?;
        Ok(ItemKind::Primal(v))
    }

    fn p_primitive(&mut self) -> PResult<ItemKind> {
        self.expect("primitive")?;
        let name = self.name()?;
        self.open("(", "list of initial sites", ")")?;
        let initials = if self.eat(")") {
            self.opens.pop();
            Vec::new()
        } else {
            let g = self.p_site_groups()?;
            self.close(")")?;
            g
        };
        self.expect("->")?;
        self.open("(", "list of terminal sites", ")")?;
        let terminals = if self.eat(")") {
            self.opens.pop();
            Vec::new()
        } else {
            let g = self.p_site_groups()?;
            self.close(")")?;
            g
        };
        self.expect(";")?;
        Ok(ItemKind::Primitive {
            name,
            initials,
            terminals,
        })
    }

    fn p_site_groups(&mut self) -> PResult<Vec<SiteGroup>> {
        let mut v = vec![self.p_site_group()?];
        while self.eat(",") {
            v.push(self.p_site_group()?);
        }
        Ok(v)
    }

    fn p_site_group(&mut self) -> PResult<SiteGroup> {
        let mut names = vec![self.name()?];
        loop {
            if self.eat(":") {
                let class = self.name()?;
                return Ok(SiteGroup { names, class });
            }
            if !self.eat(",") {
                return Err(self.err("`,` or `:` (sites are written `name: primal_class`)"));
            }
            names.push(self.name()?);
        }
    }

    fn p_table(&mut self) -> PResult<ItemKind> {
        self.expect("table")?;
        let name = self.name()?;
        self.expect("(")?;
        let columns = self.names()?;
        self.expect(")")?;
        self.expect("=")?;
        self.open("[", "table", "]")?;
        let open_line = self.src[..self.pos].matches('\n').count();
        let mut rows = vec![self.p_row()?];
        while self.eat(";") {
            rows.push(self.p_row()?);
        }
        self.close("]")?;
        let one_line = self.src[..self.pos].matches('\n').count() == open_line;
        self.expect(";")?;
        Ok(ItemKind::Table {
            name,
            columns,
            rows,
            layout: Layout { one_line },
        })
    }

    fn p_row(&mut self) -> PResult<Vec<Name>> {
        let mut v = vec![self.p_cell()?];
        while self.eat(",") {
            v.push(self.p_cell()?);
        }
        Ok(v)
    }

    fn p_cell(&mut self) -> PResult<Name> {
        self.ws();
        let start = self.pos;
        match take_while1::<_, _, nom::error::Error<&str>>(|c: char| c.is_ascii_alphanumeric() || c == '_')(self.rest())
        {
            Ok((_, w)) => {
                self.pos += w.len();
                Ok(Name {
                    text: w.to_string(),
                    span: self.span(start),
                })
            }
            Err(_) if self.rest().is_empty() => Err(self.unterminated()),
            Err(_) => Err(self.err("a table cell (letters, digits, `_`)")),
        }
    }

    fn p_for_clause(&mut self) -> PResult<Vec<Name>> {
        if self.at_keyword("for") {
            self.expect("for")?;
            self.names()
        } else {
            Ok(Vec::new())
        }
    }

    fn p_constraint(&mut self) -> PResult<ConstraintDecl> {
        self.expect("constraint")?;
        let name = self.name()?;
        let fors = self.p_for_clause()?;
        let (body, trailing) = if self.at_keyword("level") {
            (self.p_leveln_body()?, Vec::new())
        } else {
            self.p_level0_body()?
        };
        Ok(ConstraintDecl {
            name,
            fors,
            body,
            trailing,
        })
    }

    fn p_level0_body(&mut self) -> PResult<(ConstraintBody, Vec<String>)> {
        self.ws();
        if !self.rest().starts_with('{') {
            return Err(self.err("`{` or `level`"));
        }
        self.open("{", "constraint body", "}")?;
        let mut v = Vec::new();
        while !self.at_end_of_block()? {
            v.push(self.p_statement(v.is_empty())?);
        }
        let trailing = self.take_trailing(v.is_empty());
        self.close("}")?;
        Ok((ConstraintBody::Level0(v), trailing))
    }

    fn p_statement(&mut self, first: bool) -> PResult<Statement> {
        self.ws();
        let comments = self.take_comments(first);
        let start = self.pos;
        // a process is `name . name ->`; a variable declaration is `context? names :`
        let save = self.pos;
        let is_process = !self.at_keyword("context") && self.name().is_ok() && self.eat(".");
        self.pos = save;
        let kind = if is_process {
            self.p_process()?
        } else {
            self.p_var_decl()?
        };
        let span = self.span(start);
        let note = self.eol_note();
        Ok(Statement {
            comments,
            kind,
            span,
            note,
        })
    }

    fn p_var_decl(&mut self) -> PResult<StatementKind> {
        let context = self.at_keyword("context") && self.eat("context");
        let names = self.names()?;
        if !self.eat(":") {
            return Err(self.err("`:` (a variable declaration) or `.` (a process)"));
        }
        let kind = self.name()?;
        self.expect(";")?;
        Ok(StatementKind::Var { context, names, kind })
    }

    fn p_process(&mut self) -> PResult<StatementKind> {
        let from = self.name()?;
        self.expect(".")?;
        let from_site = self.name()?;
        self.expect("->")?;
        let to = self.name()?;
        self.expect(".")?;
        let to_site = self.name()?;
        self.expect(";")?;
        Ok(StatementKind::Process {
            from,
            from_site,
            to,
            to_site,
        })
    }

    fn p_leveln_body(&mut self) -> PResult<ConstraintBody> {
        self.expect("level")?;
        let level = self.level()?;
        self.expect("=")?;
        self.open("<", "constraint", ">")?;
        self.open("{", "set of element variables", "}")?;
        let vars = self.p_elem_vars()?;
        self.close("}")?;
        self.expect(",")?;
        self.open("{", "set of class element links", "}")?;
        let cels = if self.eat("}") {
            self.opens.pop();
            Vec::new()
        } else {
            let c = self.p_cels()?;
            self.close("}")?;
            c
        };
        self.close(">")?;
        self.expect(";")?;
        Ok(ConstraintBody::LevelN { level, vars, cels })
    }

    fn p_elem_vars(&mut self) -> PResult<Vec<ElemVar>> {
        let mut v = vec![self.p_elem_var()?];
        while self.eat(",") {
            self.ws();
            if self.rest().starts_with('}') {
                break;
            }
            v.push(self.p_elem_var()?);
        }
        Ok(v)
    }

    fn p_elem_var(&mut self) -> PResult<ElemVar> {
        let context = self.at_keyword("context") && self.eat("context");
        let name = self.name()?;
        let class = if self.eat(":") { Some(self.name()?) } else { None };
        Ok(ElemVar { context, name, class })
    }

    fn p_cels(&mut self) -> PResult<Vec<CelDecl>> {
        let mut v = vec![self.p_cel()?];
        while self.eat(",") {
            self.ws();
            if self.rest().starts_with('}') {
                break;
            }
            v.push(self.p_cel()?);
        }
        Ok(v)
    }

    fn p_cel(&mut self) -> PResult<CelDecl> {
        self.open("<", "class element link", ">")?;
        self.open("{", "set of members", "}")?;
        let mut members = vec![self.name()?];
        while self.eat(",") {
            self.ws();
            if self.rest().starts_with('}') {
                break;
            }
            members.push(self.name()?);
        }
        self.close("}")?;
        self.expect(",")?;
        let on = self.name()?;
        self.close(">")?;
        Ok(CelDecl { members, on })
    }

    fn p_class(&mut self) -> PResult<ClassDecl> {
        self.expect("class")?;
        let name = self.name()?;
        let symbol = if self.eat("=") { Some(self.string()?) } else { None };
        let fors = self.p_for_clause()?;
        self.expect("level")?;
        let level = self.level()?;
        self.open("{", "class body", "}")?;
        let mut items = Vec::new();
        while !self.at_end_of_block()? {
            items.push(self.p_class_item(items.is_empty())?);
        }
        let trailing = self.take_trailing(items.is_empty());
        self.close("}")?;
        Ok(ClassDecl {
            name,
            symbol,
            fors,
            level,
            items,
            trailing,
        })
    }

    fn p_class_item(&mut self, first: bool) -> PResult<ClassItem> {
        self.ws();
        let comments = self.take_comments(first);
        let start = self.pos;
        let kind = if self.at_keyword("include") {
            self.p_include()?
        } else if self.at_keyword("set") {
            self.p_set()?
        } else if self.at_keyword("schedule") {
            self.p_schedule()?
        } else if self.at_keyword("overlaps") {
            self.p_overlaps()?
        } else if self.at_keyword("ends") {
            self.p_ends()?
        } else {
            return Err(self.err("`include`, `set`, `schedule`, `overlaps`, `ends` or `}`"));
        };
        let span = self.span(start);
        let note = self.eol_note();
        Ok(ClassItem {
            comments,
            kind,
            span,
            note,
        })
    }

    fn p_include(&mut self) -> PResult<ClassItemKind> {
        self.expect("include")?;
        let n = self.name()?;
        self.expect(";")?;
        Ok(ClassItemKind::Include(n))
    }

    fn p_set(&mut self) -> PResult<ClassItemKind> {
        self.expect("set")?;
        let name = self.name()?;
        self.expect("=")?;
        self.open("{", "set", "}")?;
        let mut members = Vec::new();
        if !self.eat("}") {
            members.push(self.p_member()?);
            while self.eat(",") {
                members.push(self.p_member()?);
            }
            self.close("}")?;
        } else {
            self.opens.pop();
        }
        self.expect(";")?;
        Ok(ClassItemKind::Set { name, members })
    }

    fn p_member(&mut self) -> PResult<Member> {
        if self.eat("Θ") || (self.at_keyword("null") && self.eat("null")) {
            return Ok(Member::Null);
        }
        match self.name() {
            Ok(n) => Ok(Member::Constraint(n)),
            Err(e) if matches!(e.kind, ErrorKind::Unterminated { .. }) => Err(e),
            Err(_) => Err(self.err("a constraint name or `Θ`")),
        }
    }

    fn p_overlaps(&mut self) -> PResult<ClassItemKind> {
        self.expect("overlaps")?;
        let v = self.names()?;
        self.expect(";")?;
        Ok(ClassItemKind::Overlaps(v))
    }

    fn p_ends(&mut self) -> PResult<ClassItemKind> {
        self.expect("ends")?;
        let v = self.names()?;
        self.expect(";")?;
        Ok(ClassItemKind::Ends(v))
    }

    fn p_schedule(&mut self) -> PResult<ClassItemKind> {
        self.expect("schedule")?;
        self.depth = 0;
        let s = self.p_alternatives()?;
        self.expect(";")?;
        Ok(ClassItemKind::Schedule(s))
    }

    fn p_alternatives(&mut self) -> PResult<Sched> {
        let mut v = vec![self.p_sequence()?];
        while self.eat("|") {
            v.push(self.p_sequence()?);
        }
        Ok(if v.len() == 1 {
            v.pop().expect("one")
        } else {
            Sched::Alt(v)
        })
    }

    fn p_sequence(&mut self) -> PResult<Sched> {
        let mut v = vec![self.p_repeat()?];
        while self.eat(",") {
            v.push(self.p_repeat()?);
        }
        Ok(if v.len() == 1 {
            v.pop().expect("one")
        } else {
            Sched::Seq(v)
        })
    }

    fn deeper(&mut self, at: Span) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Box::new(DslError::new(
                ErrorKind::Limit(format!(
                    "schedule nested more than {MAX_NESTING} deep (parentheses and repetitions count)"
                )),
                at,
            )));
        }
        Ok(())
    }

    fn p_repeat(&mut self) -> PResult<Sched> {
        let depth = self.depth;
        let mut s = self.p_atom()?;
        loop {
            self.ws();
            let start = self.pos;
            let (min, max) =
                if self.eat("*") {
                    (0, None)
                } else if self.eat("+") {
                    (1, None)
                } else if self.eat("?") {
                    (0, Some(1))
                } else if self.rest().starts_with('{') {
                    self.open("{", "repetition count", "}")?;
                    let (n, _) = self.number()?;
                    let r = if self.eat(",") {
                        self.ws();
                        if self.rest().starts_with('}') {
                            (n, None)
                        } else {
                            (n, Some(self.number()?.0))
                        }
                    } else {
                        (n, Some(n))
                    };
                    self.close("}")?;
                    let text = &self.src[start..self.pos];
                    let span = self.span(start);
                    if let (n, Some(m)) = r
                        && n > m
                    {
                        return Err(Box::new(DslError::new(
                            ErrorKind::Repetition(
                                text.to_string(),
                                format!("its least count {n} is above its greatest count {m}"),
                            ),
                            span,
                        )));
                    }
                    let big = r.1.unwrap_or(r.0);
                    if big > MAX_REPEAT {
                        return Err(Box::new(DslError::new(
                        ErrorKind::Repetition(
                            text.to_string(),
                            format!(
                                "the count {big} is above the limit {MAX_REPEAT} (a bounded repetition is unrolled)"
                            ),
                        ),
                        span,
                    )
                    .with_help("for \"at least n, without bound\" write `{n,}`")));
                    }
                    r
                } else {
                    self.depth = depth;
                    return Ok(s);
                };
            self.deeper(self.span(start))?;
            s = Sched::Repeat {
                body: Box::new(s),
                min,
                max,
            };
        }
    }

    fn p_atom(&mut self) -> PResult<Sched> {
        self.ws();
        let start = self.pos;
        if self.rest().starts_with('(') {
            self.open("(", "parenthesis", ")")?;
            self.deeper(self.span(start))?;
            let s = self.p_alternatives()?;
            self.close(")")?;
            return Ok(s);
        }
        match self.name() {
            Ok(n) => Ok(Sched::Set(n)),
            Err(e) if matches!(e.kind, ErrorKind::Unterminated { .. }) => Err(e),
            Err(_) => Err(self.err("a set name or `(`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_schedules_are_refused_not_overflowed() {
        let deep = format!(
            "class k level 0 {{ schedule {}A{}; }}",
            "(".repeat(8000),
            ")".repeat(8000)
        );
        let e = parse(&deep, 0).unwrap_err();
        assert!(e.to_string().contains("nested more than 32"), "{e}");
        let stars = format!("class k level 0 {{ schedule A{}; }}", "*".repeat(100_000));
        assert!(parse(&stars, 0).is_err());
        let ok = format!("class k level 0 {{ schedule {}A{}; }}", "(".repeat(30), ")".repeat(30));
        assert!(parse(&ok, 0).is_ok());
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let f = parse("\u{feff}primal p;\n", 0).unwrap();
        assert_eq!(f.items.len(), 1);
        assert_eq!(f.items[0].span.start, 3);
    }

    #[test]
    fn recovery_reports_one_error_per_broken_item() {
        let (f, e) = parse_all(
            "primal p q;\nprimal r;\nclass k level 0 { set A = {K} }\nprimal s;\n",
            0,
        );
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(f.items.len(), 2);
    }
}
