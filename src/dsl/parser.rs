//! The parser of the class language: one function `p_<production>` per production of
//! `grammars/ets.ebnf` (a test checks that the two name the same productions). Tokens are read
//! with nom; a failed token becomes a [`DslError`] with the byte span where it was expected, at one
//! boundary ([`Parser::expect`]).

use nom::IResult;
use nom::Parser as _;
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::digit1;

use super::ast::*;
use super::error::{DslError, ErrorKind};

/// Parses one file's text; `file` is its index in the sources.
pub fn parse(text: &str, file: u32) -> Result<File, DslError> {
    let mut p = Parser {
        src: text,
        pos: 0,
        file,
        comments: Vec::new(),
    };
    p.p_file()
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    file: u32,
    comments: Vec<String>,
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
    fn here(&self) -> Span {
        let len = self.rest().chars().next().map(|c| c.len_utf8()).unwrap_or(0);
        Span {
            file: self.file,
            start: self.pos as u32,
            end: (self.pos + len) as u32,
        }
    }
    /// Skips white space and comments, keeping comment texts.
    fn ws(&mut self) {
        loop {
            let r = self.rest();
            let t = r.trim_start();
            self.pos += r.len() - t.len();
            if let Some(body) = t.strip_prefix("//") {
                let line = body.split('\n').next().unwrap_or("");
                self.comments
                    .push(line.strip_suffix('\r').unwrap_or(line).trim_end().to_string());
                self.pos += 2 + line.len();
            } else if let Some(body) = t.strip_prefix("/*") {
                // an unterminated block comment runs to the end of the file
                let (content, end) = match body.find("*/") {
                    Some(e) => (&body[..e], e + 2),
                    None => (body, body.len()),
                };
                for l in content.lines() {
                    self.comments.push(format!(" {}", l.trim()).trim_end().to_string());
                }
                self.pos += 2 + end;
            } else {
                return;
            }
        }
    }
    fn take_comments(&mut self) -> Vec<String> {
        std::mem::take(&mut self.comments)
    }
    fn err(&self, expected: &str) -> DslError {
        let found = match self.rest().chars().next() {
            None => "end of file".to_string(),
            Some(_) => match name_token(self.rest()) {
                Ok((_, n)) => format!("`{n}`"),
                Err(_) => format!("`{}`", self.rest().chars().next().unwrap_or(' ')),
            },
        };
        DslError::new(
            ErrorKind::Syntax {
                expected: expected.to_string(),
                found,
            },
            self.here(),
        )
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
    fn expect(&mut self, t: &str) -> Result<(), DslError> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.err(&format!("`{t}`")))
        }
    }
    fn at_keyword(&mut self, k: &str) -> bool {
        self.ws();
        self.rest().starts_with(k)
            && !self.rest()[k.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    }
    fn name(&mut self) -> Result<Name, DslError> {
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
            _ => Err(self.err("a name")),
        }
    }
    fn number(&mut self) -> Result<u32, DslError> {
        self.ws();
        match number_token(self.rest()) {
            Ok((_, n)) => {
                let start = self.pos;
                self.pos += n.len();
                n.parse().map_err(|_| {
                    DslError::new(
                        ErrorKind::Syntax {
                            expected: "a smaller number".into(),
                            found: n.into(),
                        },
                        self.span(start),
                    )
                })
            }
            Err(_) => Err(self.err("a number")),
        }
    }
    fn string(&mut self) -> Result<String, DslError> {
        self.ws();
        let r = self.rest();
        if !r.starts_with('"') {
            return Err(self.err("a string"));
        }
        match r[1..].find('"') {
            Some(e) => {
                self.pos += e + 2;
                Ok(r[1..e + 1].to_string())
            }
            None => Err(self.err("a closing `\"`")),
        }
    }
    fn names(&mut self) -> Result<Vec<Name>, DslError> {
        let mut v = vec![self.name()?];
        while self.eat(",") {
            v.push(self.name()?);
        }
        Ok(v)
    }

    // ---- one function per production ----

    fn p_file(&mut self) -> Result<File, DslError> {
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.rest().is_empty() {
                return Ok(File {
                    items,
                    trailing: self.take_comments(),
                });
            }
            items.push(self.p_item()?);
        }
    }

    fn p_item(&mut self) -> Result<Item, DslError> {
        self.ws();
        let comments = self.take_comments();
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
        Ok(Item {
            comments,
            kind,
            span: Span {
                file: self.file,
                start: start as u32,
                end: self.pos as u32,
            },
        })
    }

    fn p_import(&mut self) -> Result<ItemKind, DslError> {
        self.expect("import")?;
        let s = self.string()?;
        self.expect(";")?;
        Ok(ItemKind::Import(s))
    }

    fn p_primal(&mut self) -> Result<ItemKind, DslError> {
        self.expect("primal")?;
        let v = self.names()?;
        self.expect(";")?;
        Ok(ItemKind::Primal(v))
    }

    fn p_primitive(&mut self) -> Result<ItemKind, DslError> {
        self.expect("primitive")?;
        let name = self.name()?;
        self.expect("(")?;
        let initials = if self.eat(")") {
            Vec::new()
        } else {
            let g = self.p_site_groups()?;
            self.expect(")")?;
            g
        };
        self.expect("->")?;
        self.expect("(")?;
        let terminals = if self.eat(")") {
            Vec::new()
        } else {
            let g = self.p_site_groups()?;
            self.expect(")")?;
            g
        };
        self.expect(";")?;
        Ok(ItemKind::Primitive {
            name,
            initials,
            terminals,
        })
    }

    fn p_site_groups(&mut self) -> Result<Vec<SiteGroup>, DslError> {
        let mut v = vec![self.p_site_group()?];
        while self.eat(",") {
            v.push(self.p_site_group()?);
        }
        Ok(v)
    }

    fn p_site_group(&mut self) -> Result<SiteGroup, DslError> {
        let mut names = vec![self.name()?];
        loop {
            if self.eat(":") {
                let class = self.name()?;
                return Ok(SiteGroup { names, class });
            }
            self.expect(",").map_err(|_| self.err("`,` or `:`"))?;
            names.push(self.name()?);
        }
    }

    fn p_table(&mut self) -> Result<ItemKind, DslError> {
        self.expect("table")?;
        let name = self.name()?;
        self.expect("(")?;
        let columns = self.names()?;
        self.expect(")")?;
        self.expect("=")?;
        self.expect("[")?;
        let mut rows = vec![self.p_row()?];
        while self.eat(";") {
            rows.push(self.p_row()?);
        }
        self.expect("]")?;
        self.expect(";")?;
        Ok(ItemKind::Table { name, columns, rows })
    }

    fn p_row(&mut self) -> Result<Vec<Name>, DslError> {
        let mut v = vec![self.p_cell()?];
        while self.eat(",") {
            v.push(self.p_cell()?);
        }
        Ok(v)
    }

    fn p_cell(&mut self) -> Result<Name, DslError> {
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
            Err(_) => Err(self.err("a table cell (letters, digits, `_`)")),
        }
    }

    fn p_for_clause(&mut self) -> Result<Vec<Name>, DslError> {
        if self.at_keyword("for") {
            self.expect("for")?;
            self.names()
        } else {
            Ok(Vec::new())
        }
    }

    fn p_constraint(&mut self) -> Result<ConstraintDecl, DslError> {
        self.expect("constraint")?;
        let name = self.name()?;
        let fors = self.p_for_clause()?;
        let body = if self.at_keyword("level") {
            self.p_leveln_body()?
        } else {
            self.p_level0_body()?
        };
        Ok(ConstraintDecl { name, fors, body })
    }

    fn p_level0_body(&mut self) -> Result<ConstraintBody, DslError> {
        self.expect("{").map_err(|_| self.err("`{` or `level`"))?;
        let mut v = Vec::new();
        while !self.eat("}") {
            if self.rest().is_empty() {
                return Err(self.err("`}`"));
            }
            v.push(self.p_statement()?);
        }
        // comments before `}` stay pending: they go with the next item (nothing is dropped)
        Ok(ConstraintBody::Level0(v))
    }

    fn p_statement(&mut self) -> Result<Statement, DslError> {
        self.ws();
        let comments = self.take_comments();
        // a process is `name . name ->`; a variable declaration is `context? names :`
        let save = self.pos;
        let is_process = !self.at_keyword("context") && self.name().is_ok() && self.eat(".");
        self.pos = save;
        let kind = if is_process {
            self.p_process()?
        } else {
            self.p_var_decl()?
        };
        Ok(Statement { comments, kind })
    }

    fn p_var_decl(&mut self) -> Result<StatementKind, DslError> {
        let context = self.at_keyword("context") && self.eat("context");
        let names = self.names()?;
        self.expect(":")
            .map_err(|_| self.err("`:` (a variable declaration) or `.` (a process)"))?;
        let kind = self.name()?;
        self.expect(";")?;
        Ok(StatementKind::Var { context, names, kind })
    }

    fn p_process(&mut self) -> Result<StatementKind, DslError> {
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

    fn p_leveln_body(&mut self) -> Result<ConstraintBody, DslError> {
        self.expect("level")?;
        let level = self.number()?;
        self.expect("=")?;
        self.expect("<")?;
        self.expect("{")?;
        let vars = self.p_elem_vars()?;
        self.expect("}")?;
        self.expect(",")?;
        self.expect("{")?;
        let cels = if self.eat("}") {
            Vec::new()
        } else {
            let c = self.p_cels()?;
            self.expect("}")?;
            c
        };
        self.expect(">")?;
        self.expect(";")?;
        Ok(ConstraintBody::LevelN { level, vars, cels })
    }

    fn p_elem_vars(&mut self) -> Result<Vec<ElemVar>, DslError> {
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

    fn p_elem_var(&mut self) -> Result<ElemVar, DslError> {
        let context = self.at_keyword("context") && self.eat("context");
        let name = self.name()?;
        let class = if self.eat(":") { Some(self.name()?) } else { None };
        Ok(ElemVar { context, name, class })
    }

    fn p_cels(&mut self) -> Result<Vec<CelDecl>, DslError> {
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

    fn p_cel(&mut self) -> Result<CelDecl, DslError> {
        self.expect("<")?;
        self.expect("{")?;
        let mut members = vec![self.name()?];
        while self.eat(",") {
            self.ws();
            if self.rest().starts_with('}') {
                break;
            }
            members.push(self.name()?);
        }
        self.expect("}")?;
        self.expect(",")?;
        let on = self.name()?;
        self.expect(">")?;
        Ok(CelDecl { members, on })
    }

    fn p_class(&mut self) -> Result<ClassDecl, DslError> {
        self.expect("class")?;
        let name = self.name()?;
        let symbol = if self.eat("=") { Some(self.string()?) } else { None };
        let fors = self.p_for_clause()?;
        self.expect("level")?;
        let level = self.number()?;
        self.expect("{")?;
        let mut items = Vec::new();
        while !self.eat("}") {
            if self.rest().is_empty() {
                return Err(self.err("`}`"));
            }
            items.push(self.p_class_item()?);
        }
        Ok(ClassDecl {
            name,
            symbol,
            fors,
            level,
            items,
        })
    }

    fn p_class_item(&mut self) -> Result<ClassItem, DslError> {
        self.ws();
        let comments = self.take_comments();
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
        Ok(ClassItem { comments, kind })
    }

    fn p_include(&mut self) -> Result<ClassItemKind, DslError> {
        self.expect("include")?;
        let n = self.name()?;
        self.expect(";")?;
        Ok(ClassItemKind::Include(n))
    }

    fn p_set(&mut self) -> Result<ClassItemKind, DslError> {
        self.expect("set")?;
        let name = self.name()?;
        self.expect("=")?;
        self.expect("{")?;
        let mut members = vec![self.p_member()?];
        while self.eat(",") {
            members.push(self.p_member()?);
        }
        self.expect("}")?;
        self.expect(";")?;
        Ok(ClassItemKind::Set { name, members })
    }

    fn p_member(&mut self) -> Result<Member, DslError> {
        if self.eat("Θ") || (self.at_keyword("null") && self.eat("null")) {
            return Ok(Member::Null);
        }
        Ok(Member::Constraint(
            self.name().map_err(|_| self.err("a constraint name or `Θ`"))?,
        ))
    }

    fn p_overlaps(&mut self) -> Result<ClassItemKind, DslError> {
        self.expect("overlaps")?;
        let v = self.names()?;
        self.expect(";")?;
        Ok(ClassItemKind::Overlaps(v))
    }

    fn p_ends(&mut self) -> Result<ClassItemKind, DslError> {
        self.expect("ends")?;
        let v = self.names()?;
        self.expect(";")?;
        Ok(ClassItemKind::Ends(v))
    }

    fn p_schedule(&mut self) -> Result<ClassItemKind, DslError> {
        self.expect("schedule")?;
        let s = self.p_alternatives()?;
        self.expect(";")?;
        Ok(ClassItemKind::Schedule(s))
    }

    fn p_alternatives(&mut self) -> Result<Sched, DslError> {
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

    fn p_sequence(&mut self) -> Result<Sched, DslError> {
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

    fn p_repeat(&mut self) -> Result<Sched, DslError> {
        let mut s = self.p_atom()?;
        loop {
            let (min, max) = if self.eat("*") {
                (0, None)
            } else if self.eat("+") {
                (1, None)
            } else if self.eat("?") {
                (0, Some(1))
            } else if self.eat("{") {
                let n = self.number()?;
                let r = if self.eat(",") {
                    self.ws();
                    if self.rest().starts_with('}') {
                        (n, None)
                    } else {
                        (n, Some(self.number()?))
                    }
                } else {
                    (n, Some(n))
                };
                self.expect("}")?;
                r
            } else {
                return Ok(s);
            };
            s = Sched::Repeat {
                body: Box::new(s),
                min,
                max,
            };
        }
    }

    fn p_atom(&mut self) -> Result<Sched, DslError> {
        if self.eat("(") {
            let s = self.p_alternatives()?;
            self.expect(")")?;
            return Ok(s);
        }
        Ok(Sched::Set(self.name().map_err(|_| self.err("a set name or `(`"))?))
    }
}
