//! SGF (FF[4], reading FF[1]–FF[3] too): collections, game trees, variations, properties.
//!
//! Implements the Smart Game Format the thesis names as the source of training structs (§4.4.1,
//! [52]). The grammar (`Collection = GameTree+`, `GameTree = "(" Sequence GameTree* ")"`,
//! `Sequence = Node+`, `Node = ";" Property*`, `Property = PropIdent PropValue+`) is parsed with
//! one nom parser per token (identifier, value) and an explicit stack for the tree, so that deeply
//! nested variations cannot overflow the call stack. Values are kept as byte spans of the source
//! and decoded only when asked for ([`Sgf::text`]): escapes, soft line breaks, and the charset of
//! the `CA` property (UTF-8, Latin-1; UTF-16 files are recognised by their byte-order mark and
//! transcoded before parsing). Text that cannot be decoded is decoded lossily, never an error.
//! FF[3] identifiers may mix case (`AddBlack`): lower-case letters are ignored, as FF[3] says.

use nom::IResult;
use nom::bytes::complete::take_while1;
use std::borrow::Cow;
use thiserror::Error;

/// A property identifier, its upper-case letters packed 5 bits each (at most 12 letters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ident(pub u64);

impl Ident {
    /// Packs an identifier given as text (lower-case letters are dropped).
    pub const fn new(s: &str) -> Ident {
        let b = s.as_bytes();
        let mut v = 0u64;
        let mut i = 0;
        let mut n = 0;
        while i < b.len() {
            if b[i].is_ascii_uppercase() && n < 12 {
                v = (v << 5) | (b[i] - b'A' + 1) as u64;
                n += 1;
            }
            i += 1;
        }
        Ident(v)
    }
    /// The identifier as text.
    pub fn as_string(&self) -> String {
        let mut v = self.0;
        let mut out = Vec::new();
        while v != 0 {
            out.push(b'A' + (v & 31) as u8 - 1);
            v >>= 5;
        }
        out.reverse();
        String::from_utf8(out).unwrap_or_default()
    }
}

/// A byte span of the source (the value between its brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// A property: identifier and the spans of its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prop {
    /// Identifier.
    pub ident: Ident,
    /// Position of the identifier in the source.
    pub at: u32,
    values: (u32, u32),
}

/// A node of a game tree: its properties, its children (variations; the first is the main line)
/// and where it starts in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    props: (u32, u32),
    /// Children, in file order.
    pub children: Vec<u32>,
    /// Parent node, if any.
    pub parent: Option<u32>,
    /// Byte offset of the node's `;`.
    pub at: u32,
}

/// A parsed SGF collection: the source, and every game tree's nodes in one arena.
#[derive(Debug, Clone)]
pub struct Sgf {
    src: Vec<u8>,
    nodes: Vec<Node>,
    props: Vec<Prop>,
    values: Vec<Span>,
    roots: Vec<u32>,
    latin1: Vec<bool>,
}

/// What went wrong while reading SGF, and where (a byte offset; [`line_col`] converts it).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SgfError {
    /// No game tree at all.
    #[error("no game tree: an SGF collection starts with `(;`")]
    Empty,
    /// A value's `[` without its `]`.
    #[error("unterminated property value")]
    UnterminatedValue {
        /// Where the value starts.
        offset: usize,
    },
    /// A game tree's `(` without its `)`.
    #[error("unterminated game tree (missing `)`)")]
    UnterminatedTree {
        /// Where the tree starts.
        offset: usize,
    },
    /// A property identifier without a value.
    #[error("property `{ident}` has no value")]
    MissingValue {
        /// The identifier.
        ident: String,
        /// Where it is.
        offset: usize,
    },
    /// A character that cannot start a node, property or tree.
    #[error("unexpected `{found}`")]
    Unexpected {
        /// The character.
        found: char,
        /// Where it is.
        offset: usize,
    },
    /// A game tree without a node.
    #[error("a game tree needs at least one node (`;`)")]
    EmptyTree {
        /// Where the tree starts.
        offset: usize,
    },
    /// The file is too large for 32-bit offsets.
    #[error("file larger than 4 GiB")]
    TooLarge,
}

impl SgfError {
    /// The byte offset the error points at.
    pub fn offset(&self) -> usize {
        match self {
            SgfError::Empty | SgfError::TooLarge => 0,
            SgfError::UnterminatedValue { offset }
            | SgfError::UnterminatedTree { offset }
            | SgfError::MissingValue { offset, .. }
            | SgfError::Unexpected { offset, .. }
            | SgfError::EmptyTree { offset } => *offset,
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(src: &[u8], offset: usize) -> (usize, usize) {
    let upto = &src[..offset.min(src.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = upto.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0);
    let col = String::from_utf8_lossy(&upto[start..]).chars().count() + 1;
    (line, col)
}

fn ident(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while1(|c: u8| c.is_ascii_alphabetic())(i)
}

/// A value body: everything up to the closing `]`, with `\` escaping the next byte. (A byte
/// scan rather than `nom::bytes::escaped`, which dispatches per character.)
fn value_body(i: &[u8]) -> IResult<&[u8], &[u8]> {
    let mut k = 0;
    while k < i.len() {
        match i[k] {
            b']' => return Ok((&i[k..], &i[..k])),
            b'\\' => k += 2,
            _ => k += 1,
        }
    }
    Err(nom::Err::Incomplete(nom::Needed::Unknown))
}

/// Converts UTF-16 (with a byte-order mark) to UTF-8; drops a UTF-8 byte-order mark.
pub fn normalise_encoding(bytes: Vec<u8>) -> Vec<u8> {
    let utf16 = |be: bool, b: &[u8]| -> Vec<u8> {
        let units: Vec<u16> = b
            .chunks_exact(2)
            .map(|c| {
                if be {
                    u16::from_be_bytes([c[0], c[1]])
                } else {
                    u16::from_le_bytes([c[0], c[1]])
                }
            })
            .collect();
        String::from_utf16_lossy(&units).into_bytes()
    };
    match bytes.as_slice() {
        [0xFF, 0xFE, rest @ ..] => utf16(false, rest),
        [0xFE, 0xFF, rest @ ..] => utf16(true, rest),
        [0xEF, 0xBB, 0xBF, rest @ ..] => rest.to_vec(),
        _ => bytes,
    }
}

const fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

impl Sgf {
    /// Parses a collection from raw file bytes (any supported encoding).
    pub fn parse_bytes(bytes: Vec<u8>) -> Result<Sgf, SgfError> {
        let src = normalise_encoding(bytes);
        if src.len() > u32::MAX as usize {
            return Err(SgfError::TooLarge);
        }
        let mut sgf = Sgf {
            src: Vec::new(),
            nodes: Vec::new(),
            props: Vec::new(),
            values: Vec::new(),
            roots: Vec::new(),
            latin1: Vec::new(),
        };
        sgf.nodes.reserve(src.len() / 8);
        sgf.props.reserve(src.len() / 8);
        sgf.values.reserve(src.len() / 8);
        sgf.parse_into(&src)?;
        sgf.src = src;
        // The charset of each game tree (CA of its root).
        let ca = Ident::new("CA");
        let l1: Vec<bool> = sgf
            .roots
            .iter()
            .map(|&r| {
                sgf.prop(r, ca)
                    .and_then(|p| sgf.raw_values(p).first().map(|s| sgf.raw(*s).to_ascii_lowercase()))
                    .is_some_and(|c| {
                        let c = String::from_utf8_lossy(&c).replace(['-', '_', ' '], "");
                        c == "iso88591" || c == "latin1" || c == "l1" || c == "cp1252" || c == "windows1252"
                    })
            })
            .collect();
        sgf.latin1 = l1;
        Ok(sgf)
    }

    /// Parses a collection from text.
    pub fn parse(text: &str) -> Result<Sgf, SgfError> {
        Self::parse_bytes(text.as_bytes().to_vec())
    }

    fn parse_into(&mut self, src: &[u8]) -> Result<(), SgfError> {
        let len = src.len();
        let mut pos = match src.iter().position(|&b| b == b'(') {
            Some(p) => p,
            None => return Err(SgfError::Empty),
        };
        // Stack of open trees: (offset of '(', the node new sequences attach to).
        let mut stack: Vec<(usize, Option<u32>)> = Vec::new();
        let mut last: Option<u32> = None; // the last node of the current sequence
        let mut tree_has_node = false;
        while pos < len {
            let b = src[pos];
            match b {
                b'(' => {
                    if !stack.is_empty() && !tree_has_node {
                        return Err(SgfError::EmptyTree {
                            offset: stack.last().map(|t| t.0).unwrap_or(pos),
                        });
                    }
                    stack.push((pos, last));
                    tree_has_node = false;
                    pos += 1;
                }
                b')' => {
                    let Some((open, parent)) = stack.pop() else {
                        return Err(SgfError::Unexpected {
                            found: ')',
                            offset: pos,
                        });
                    };
                    if !tree_has_node {
                        return Err(SgfError::EmptyTree { offset: open });
                    }
                    last = parent;
                    tree_has_node = true;
                    pos += 1;
                    if stack.is_empty() {
                        // Between game trees of a collection, skip anything up to the next '('.
                        match src[pos..].iter().position(|&b| b == b'(') {
                            Some(p) => pos += p,
                            None => pos = len,
                        }
                        last = None;
                        tree_has_node = false;
                    }
                }
                b';' => {
                    if stack.is_empty() {
                        return Err(SgfError::Unexpected {
                            found: ';',
                            offset: pos,
                        });
                    }
                    let id = self.nodes.len() as u32;
                    self.nodes.push(Node {
                        props: (self.props.len() as u32, self.props.len() as u32),
                        children: Vec::new(),
                        parent: last,
                        at: pos as u32,
                    });
                    match last {
                        Some(p) => self.nodes[p as usize].children.push(id),
                        None => self.roots.push(id),
                    }
                    last = Some(id);
                    tree_has_node = true;
                    pos += 1;
                    pos = self.parse_props(src, pos, id)?;
                }
                _ if is_ws(b) => pos += 1,
                _ => {
                    let found = String::from_utf8_lossy(&src[pos..(pos + 4).min(len)])
                        .chars()
                        .next()
                        .unwrap_or('?');
                    return Err(SgfError::Unexpected { found, offset: pos });
                }
            }
        }
        if let Some((open, _)) = stack.pop() {
            return Err(SgfError::UnterminatedTree { offset: open });
        }
        if self.roots.is_empty() {
            return Err(SgfError::Empty);
        }
        Ok(())
    }

    fn parse_props(&mut self, src: &[u8], mut pos: usize, node: u32) -> Result<usize, SgfError> {
        loop {
            while pos < src.len() && is_ws(src[pos]) {
                pos += 1;
            }
            let Ok((rest, id)) = ident(&src[pos..]) else { break };
            let at = pos;
            pos = src.len() - rest.len();
            let v0 = self.values.len() as u32;
            loop {
                while pos < src.len() && is_ws(src[pos]) {
                    pos += 1;
                }
                if pos >= src.len() || src[pos] != b'[' {
                    break;
                }
                let start = pos + 1;
                let body_end = match value_body(&src[start..]) {
                    Ok((rest, _)) => src.len() - rest.len(),
                    Err(_) => return Err(SgfError::UnterminatedValue { offset: pos }),
                };
                if body_end >= src.len() || src[body_end] != b']' {
                    return Err(SgfError::UnterminatedValue { offset: pos });
                }
                self.values.push(Span {
                    start: start as u32,
                    end: body_end as u32,
                });
                pos = body_end + 1;
            }
            let v1 = self.values.len() as u32;
            let ident = Ident::new(std::str::from_utf8(id).unwrap_or(""));
            if v0 == v1 {
                return Err(SgfError::MissingValue {
                    ident: String::from_utf8_lossy(id).into_owned(),
                    offset: at,
                });
            }
            self.props.push(Prop {
                ident,
                at: at as u32,
                values: (v0, v1),
            });
            self.nodes[node as usize].props.1 = self.props.len() as u32;
        }
        Ok(pos)
    }

    /// The source bytes (after encoding normalisation).
    pub fn source(&self) -> &[u8] {
        &self.src
    }
    /// The root node of each game tree, in file order.
    pub fn games(&self) -> &[u32] {
        &self.roots
    }
    /// A node.
    pub fn node(&self, n: u32) -> &Node {
        &self.nodes[n as usize]
    }
    /// Number of nodes in the collection.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    /// The properties of a node.
    pub fn props(&self, n: u32) -> &[Prop] {
        let (a, b) = self.nodes[n as usize].props;
        &self.props[a as usize..b as usize]
    }
    /// The first property of a node with this identifier.
    pub fn prop(&self, n: u32, id: Ident) -> Option<&Prop> {
        self.props(n).iter().find(|p| p.ident == id)
    }
    /// The raw value spans of a property.
    pub fn raw_values(&self, p: &Prop) -> &[Span] {
        &self.values[p.values.0 as usize..p.values.1 as usize]
    }
    /// The raw bytes of a value.
    pub fn raw(&self, s: Span) -> &[u8] {
        &self.src[s.start as usize..s.end as usize]
    }
    fn game_of(&self, mut n: u32) -> usize {
        while let Some(p) = self.nodes[n as usize].parent {
            n = p;
        }
        self.roots.iter().position(|&r| r == n).unwrap_or(0)
    }
    /// A value decoded as text (SGF Text): escapes resolved, soft line breaks (`\` + newline)
    /// removed, the game's charset applied; never fails.
    pub fn text(&self, node: u32, s: Span) -> Cow<'_, str> {
        let raw = self.raw(s);
        let latin1 = self.latin1.get(self.game_of(node)).copied().unwrap_or(false);
        let unescaped: Cow<'_, [u8]> = if raw.contains(&b'\\') {
            let mut out = Vec::with_capacity(raw.len());
            let mut i = 0;
            while i < raw.len() {
                if raw[i] == b'\\' && i + 1 < raw.len() {
                    i += 1;
                    match raw[i] {
                        b'\n' => {
                            if raw.get(i + 1) == Some(&b'\r') {
                                i += 1;
                            }
                        }
                        b'\r' => {
                            if raw.get(i + 1) == Some(&b'\n') {
                                i += 1;
                            }
                        }
                        c => out.push(c),
                    }
                } else {
                    out.push(raw[i]);
                }
                i += 1;
            }
            Cow::Owned(out)
        } else {
            Cow::Borrowed(raw)
        };
        if latin1 {
            Cow::Owned(unescaped.iter().map(|&b| b as char).collect())
        } else {
            match unescaped {
                Cow::Borrowed(b) => String::from_utf8_lossy(b),
                Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
            }
        }
    }
    /// The first value of property `id` at node `n`, as text.
    pub fn text_of(&self, n: u32, id: Ident) -> Option<String> {
        let p = self.prop(n, id)?;
        let s = *self.raw_values(p).first()?;
        Some(self.text(n, s).into_owned())
    }

    /// The nodes from the root of game `game` along a variation: at the k-th node that has more
    /// than one child, `path[k]` chooses the child (0 = main line; missing entries are 0).
    /// Returns `None` if a choice names a child that does not exist.
    pub fn line(&self, game: usize, path: &[usize]) -> Option<Vec<u32>> {
        let mut n = *self.roots.get(game)?;
        let mut out = vec![n];
        let mut k = 0;
        loop {
            let ch = &self.nodes[n as usize].children;
            if ch.is_empty() {
                return Some(out);
            }
            let pick = if ch.len() > 1 {
                let p = path.get(k).copied().unwrap_or(0);
                k += 1;
                p
            } else {
                0
            };
            n = *ch.get(pick)?;
            out.push(n);
        }
    }
}
