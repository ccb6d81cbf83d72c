//! The syntax tree of the class language (`grammars/ets.ebnf`). Spans locate every name for
//! diagnostics but are not part of a tree's identity: two trees that differ only in spans (or in
//! layout hints) compare equal (so that `parse(print(t)) == t`).
//!
//! Comments are kept for `ets fmt`: the comment lines before an item, a statement or a class item
//! (an entry [`BLANK`] stands for a blank line among them or before the item), an end-of-line
//! comment after it ([`Item::note`]), and the comments before a closing `}` (`trailing`).

/// A comment entry that stands for a blank line (a comment line never holds a line break).
pub const BLANK: &str = "\n";

/// A layout hint kept from the source (how the author wrote a table); not part of a tree's
/// identity.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct Layout {
    /// Written on one line.
    pub one_line: bool,
}

impl PartialEq for Layout {
    fn eq(&self, _: &Layout) -> bool {
        true
    }
}

/// A byte range of one source file.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct Span {
    /// Index of the file in the [`super::Sources`].
    pub file: u32,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl std::hash::Hash for Span {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {
        // consistent with `PartialEq`: spans do not count
    }
}

/// A name as written (it may hold `$X` placeholders before expansion).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name {
    /// The text.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct File {
    /// Its items in order.
    pub items: Vec<Item>,
    /// Comments after the last item.
    pub trailing: Vec<String>,
}

/// An item with the comments written just before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Comment lines (without `//`).
    pub comments: Vec<String>,
    /// The item.
    pub kind: ItemKind,
    /// Where it is.
    pub span: Span,
    /// The comment at the end of its last line, if any.
    pub note: Option<String>,
}

/// The kinds of items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKind {
    /// `import "file";`
    Import(String),
    /// `primal a, b;`
    Primal(Vec<Name>),
    /// `primitive p(…) -> (…);`
    Primitive {
        /// Its name.
        name: Name,
        /// Initial sites.
        initials: Vec<SiteGroup>,
        /// Terminal sites.
        terminals: Vec<SiteGroup>,
    },
    /// `table t(A, B) = [x, y; z, w];`
    Table {
        /// Its name.
        name: Name,
        /// Column names.
        columns: Vec<Name>,
        /// Rows of cells.
        rows: Vec<Vec<Name>>,
        /// How it was written.
        layout: Layout,
    },
    /// A constraint.
    Constraint(ConstraintDecl),
    /// A class.
    Class(ClassDecl),
}

/// Sites sharing a primal class: `left, up: local_space`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteGroup {
    /// Site names.
    pub names: Vec<Name>,
    /// Their primal class.
    pub class: Name,
}

/// A constraint declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintDecl {
    /// Its name.
    pub name: Name,
    /// Tables it is instantiated over.
    pub fors: Vec<Name>,
    /// Its body.
    pub body: ConstraintBody,
    /// Comments before the closing `}` of a level-0 body.
    pub trailing: Vec<String>,
}

/// A constraint body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConstraintBody {
    /// Level 0: variables and processes.
    Level0(Vec<Statement>),
    /// Level n: element variables and class element links.
    LevelN {
        /// The level (≥ 1).
        level: u32,
        /// Element variables.
        vars: Vec<ElemVar>,
        /// Class element links.
        cels: Vec<CelDecl>,
    },
}

/// A statement of a level-0 constraint, with its comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// Comment lines before it.
    pub comments: Vec<String>,
    /// The statement.
    pub kind: StatementKind,
    /// Where it is.
    pub span: Span,
    /// The comment at the end of its line, if any.
    pub note: Option<String>,
}

/// Level-0 statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatementKind {
    /// `context a, b: pi4;`
    Var {
        /// Whether the variables are context.
        context: bool,
        /// Their names.
        names: Vec<Name>,
        /// Their primitive.
        kind: Name,
    },
    /// `a.right -> c.left;`
    Process {
        /// Source variable.
        from: Name,
        /// Its terminal site.
        from_site: Name,
        /// Target variable.
        to: Name,
        /// Its initial site.
        to_site: Name,
    },
}

/// An element variable of a level-n constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElemVar {
    /// Whether it is context.
    pub context: bool,
    /// Its name (`c12_1`).
    pub name: Name,
    /// Its class, if written (otherwise inferred from the name: `cK_i` is an element of the class
    /// numbered K one level down).
    pub class: Option<Name>,
}

/// A class element link: members overlapping on a constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CelDecl {
    /// Member variables.
    pub members: Vec<Name>,
    /// The constraint one level down.
    pub on: Name,
}

/// A class declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassDecl {
    /// Its name.
    pub name: Name,
    /// Its thesis symbol (`C1`, `C^1_3`).
    pub symbol: Option<String>,
    /// Tables it is instantiated over.
    pub fors: Vec<Name>,
    /// Its level.
    pub level: u32,
    /// Its items.
    pub items: Vec<ClassItem>,
    /// Comments before its closing `}`.
    pub trailing: Vec<String>,
}

/// A class item with its comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassItem {
    /// Comment lines before it.
    pub comments: Vec<String>,
    /// The item.
    pub kind: ClassItemKind,
    /// Where it is.
    pub span: Span,
    /// The comment at the end of its line, if any.
    pub note: Option<String>,
}

/// Class items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassItemKind {
    /// `include other;` — all of the other class's sets (and its schedule, if this class has none).
    Include(Name),
    /// `set A = {Con_1, Θ};`
    Set {
        /// Set name.
        name: Name,
        /// Members.
        members: Vec<Member>,
    },
    /// `schedule A, B*, C?;`
    Schedule(Sched),
    /// `overlaps Con_2, Con_3;`
    Overlaps(Vec<Name>),
    /// `ends C, T;` — the sets whose application ends an element.
    Ends(Vec<Name>),
}

/// A set member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Member {
    /// A constraint.
    Constraint(Name),
    /// Θ.
    Null,
}

/// A schedule expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sched {
    /// A set.
    Set(Name),
    /// One after the other.
    Seq(Vec<Sched>),
    /// One of.
    Alt(Vec<Sched>),
    /// Repetition.
    Repeat {
        /// The body.
        body: Box<Sched>,
        /// Least count.
        min: u32,
        /// Greatest count.
        max: Option<u32>,
    },
}
