//! SGF (FF\[4\], reading FF\[1\]–FF\[3\] too): collections, game trees, variations, properties.
//!
//! Implements the Smart Game Format the thesis names as the source of training structs (§4.4.1,
//! \[52\]). The grammar (`Collection = GameTree+`, `GameTree = "(" Sequence GameTree* ")"`,
//! `Sequence = Node+`, `Node = ";" Property*`, `Property = PropIdent PropValue+`) is parsed with
//! one nom parser per token (identifier) and an explicit stack for the tree, so that deeply nested
//! variations cannot overflow the call stack.
//!
//! Text first, then structure: the file is decoded to UTF-8 before it is tokenized ([`Charset`]:
//! a byte-order mark, else the `CA` property when the bytes agree with it, else detection by
//! `chardetng`), so that a Shift_JIS or Big5 character whose second byte is `\` or `]` can never
//! be read as an escape or the end of a value. Every offset (values, errors, warnings) is a byte
//! offset into the decoded text, and [`Sgf::line_col`] turns it into a line and a column counted
//! in characters through a line index, without rescanning the file.
//!
//! Reading is lenient where real archives deviate and editors accept them; each deviation is a
//! [`ReadWarning`] with its offset (see `docs/semantics.md`, "SGF and replay"): a missing `;`
//! before a game tree's first node, text outside the game trees, FF\[3\] identifiers with
//! lower-case letters (`AddBlack` → `AB`), a property repeated in one node (values merged), a
//! record cut short (read up to its last complete node). Input beyond [`MAX_NODES`] is refused.

use encoding_rs::Encoding;
use nom::IResult;
use nom::bytes::complete::take_while1;
use std::borrow::Cow;
use std::sync::OnceLock;
use thiserror::Error;

/// The most nodes one file may hold (about 40 bytes each once read); more is refused.
pub const MAX_NODES: usize = 8_000_000;

/// A property identifier, its upper-case letters packed 5 bits each (at most 12 letters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ident(pub u64);

impl Ident {
    /// Packs an identifier given as text (lower-case letters are dropped).
    pub const fn new(s: &str) -> Ident {
        Self::from_bytes(s.as_bytes())
    }
    const fn from_bytes(b: &[u8]) -> Ident {
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

/// A byte span of the decoded source (the value between its brackets).
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

const NONE: u32 = u32::MAX;

/// A node of a game tree: its properties, its place in the tree and where it starts in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    props: (u32, u32),
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
    /// Parent node, if any.
    pub parent: Option<u32>,
    /// Byte offset of the node's `;` (or of its first property when the `;` is missing).
    pub at: u32,
}

/// How the charset of a file was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CharsetSource {
    /// A byte-order mark (UTF-8, UTF-16LE, UTF-16BE).
    ByteOrderMark,
    /// The `CA` property, and the bytes agree with it.
    Declared,
    /// Detected from the bytes (`CA` absent, unknown, or contradicted by the bytes).
    Detected,
    /// Nothing to decide: the file is ASCII and declares no charset.
    Ascii,
    /// Given by the caller (`--charset`).
    Given,
}

/// The charset a file was decoded with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charset {
    /// The encoding (a WHATWG encoding).
    pub encoding: &'static Encoding,
    /// How it was chosen.
    pub source: CharsetSource,
    /// The `CA` value found in the file, as written.
    pub declared: Option<String>,
}

impl Charset {
    /// The encoding's WHATWG name (`UTF-8`, `Shift_JIS`, `EUC-KR`, `gb18030`, `Big5`, …).
    pub fn name(&self) -> &'static str {
        self.encoding.name()
    }
    /// One phrase: the name and how it was chosen, e.g. `Shift_JIS (detected; no CA)`.
    pub fn describe(&self) -> String {
        let how = match (self.source, &self.declared) {
            (CharsetSource::ByteOrderMark, _) => "byte-order mark".to_string(),
            (CharsetSource::Declared, _) => "declared by CA".to_string(),
            (CharsetSource::Given, _) => "given by --charset".to_string(),
            (CharsetSource::Ascii, _) => "ASCII text, no CA".to_string(),
            (CharsetSource::Detected, None) => "detected; no CA".to_string(),
            (CharsetSource::Detected, Some(d)) if Encoding::for_label(d.trim().as_bytes()).is_none() => {
                format!("detected; CA[{d}] is not a known charset")
            }
            (CharsetSource::Detected, Some(d)) => format!("detected; CA[{d}] contradicts the bytes"),
        };
        format!("{} ({how})", self.name())
    }
}

/// A deviation from the specification that was read leniently; never fatal (`--strict` makes it so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadWarning {
    /// Byte offset in the decoded source.
    pub offset: usize,
    /// What was found and what was done.
    pub message: String,
}

/// A parsed SGF collection: the decoded source, and every game tree's nodes in one arena.
#[derive(Debug, Clone)]
pub struct Sgf {
    src: Vec<u8>,
    nodes: Vec<Node>,
    props: Vec<Prop>,
    values: Vec<Span>,
    roots: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    charset: Charset,
    warnings: Vec<ReadWarning>,
    lines: OnceLock<LineIndex>,
}

/// What went wrong while reading SGF, and where (a byte offset of the decoded text;
/// [`Sgf::line_col`] or [`line_col`] convert it).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SgfError {
    /// No game tree at all.
    #[error("no game tree: an SGF collection starts with `(;`")]
    Empty,
    /// A value's `[` without its `]`, and no complete node before it.
    #[error("unterminated property value")]
    UnterminatedValue {
        /// Where the value starts.
        offset: usize,
    },
    /// A game tree's `(` without its `)`, and no node in it.
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
    /// More nodes than [`MAX_NODES`].
    #[error("more than {MAX_NODES} nodes; ets reads records of up to {MAX_NODES} nodes")]
    TooManyNodes {
        /// Where the first node beyond the limit starts.
        offset: usize,
    },
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
            | SgfError::EmptyTree { offset }
            | SgfError::TooManyNodes { offset } => *offset,
        }
    }
}

/// Line starts and character counts of a text, so that a byte offset becomes a line and a column
/// (in characters) in O(log lines + 64): built once, in one pass.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of each line's first byte. A line ends at `\n`, `\r\n` or a lone `\r`.
    starts: Vec<u32>,
    /// Characters before byte `64 k`, for each k.
    chars: Vec<u32>,
}

const CHUNK: usize = 64;

impl LineIndex {
    /// Indexes a UTF-8 text.
    pub fn new(src: &[u8]) -> LineIndex {
        let mut starts = vec![0u32];
        let mut i = 0;
        while i < src.len() {
            match src[i] {
                b'\n' => starts.push(i as u32 + 1),
                b'\r' if src.get(i + 1) != Some(&b'\n') => starts.push(i as u32 + 1),
                _ => {}
            }
            i += 1;
        }
        let mut chars = Vec::with_capacity(src.len() / CHUNK + 1);
        let mut n = 0u32;
        for c in src.chunks(CHUNK) {
            chars.push(n);
            n += c.iter().filter(|&&b| (b as i8) >= -0x40).count() as u32;
        }
        chars.push(n);
        LineIndex { starts, chars }
    }
    fn chars_before(&self, src: &[u8], offset: usize) -> usize {
        let k = offset / CHUNK;
        self.chars[k] as usize + src[k * CHUNK..offset].iter().filter(|&&b| (b as i8) >= -0x40).count()
    }
    /// 1-based line and column (in characters) of a byte offset of `src` (the indexed text).
    pub fn line_col(&self, src: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(src.len());
        let line = self.starts.partition_point(|&s| s as usize <= offset);
        let start = self.starts[line - 1] as usize;
        (line, self.chars_before(src, offset) - self.chars_before(src, start) + 1)
    }
}

/// 1-based line and column (in characters) of a byte offset of a UTF-8 text; lines end at `\n`,
/// `\r\n` or a lone `\r`. Indexes the text each call: for many offsets use [`Sgf::line_col`].
pub fn line_col(src: &[u8], offset: usize) -> (usize, usize) {
    LineIndex::new(&src[..offset.min(src.len())]).line_col(src, offset)
}

fn ident(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while1(|c: u8| c.is_ascii_alphabetic())(i)
}

/// The end of a value body: the index of its closing `]` (a `\` escapes the next byte), or None.
/// The text is UTF-8, where `\` and `]` never occur inside a multi-byte character.
fn value_end(i: &[u8]) -> Option<usize> {
    let mut k = 0;
    while k < i.len() {
        match i[k] {
            b']' => return Some(k),
            b'\\' => k += 2,
            _ => k += 1,
        }
    }
    None
}

const fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

/// Labels that SGF files use and the WHATWG registry does not know, mapped to their encodings.
fn label_encoding(label: &str) -> Option<&'static Encoding> {
    let l = label.trim();
    if let Some(e) = Encoding::for_label(l.as_bytes()) {
        return Some(e);
    }
    let norm: String = l
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .collect::<String>()
        .to_ascii_lowercase();
    Some(match norm.as_str() {
        "utf8" => encoding_rs::UTF_8,
        "cp932" | "ms932" | "sjis" | "shiftjis" => encoding_rs::SHIFT_JIS,
        "cp949" | "uhc" | "ms949" | "euckr" => encoding_rs::EUC_KR,
        "cp936" | "gb2312" | "gbk" => encoding_rs::GBK,
        "gb18030" => encoding_rs::GB18030,
        "cp950" | "big5" | "big5hkscs" => encoding_rs::BIG5,
        "eucjp" => encoding_rs::EUC_JP,
        "iso88591" | "latin1" | "cp1252" => encoding_rs::WINDOWS_1252,
        _ => return None,
    })
}

/// The first `CA[…]` value of the raw bytes (an ASCII scan; the value is an ASCII label).
fn declared_charset(bytes: &[u8]) -> Option<String> {
    let mut from = 0;
    while let Some(k) = bytes[from..].windows(3).position(|w| w == b"CA[") {
        let at = from + k;
        from = at + 3;
        if at > 0 && bytes[at - 1].is_ascii_alphabetic() {
            continue;
        }
        let rest = &bytes[from..bytes.len().min(from + 64)];
        let end = rest.iter().position(|&b| b == b']')?;
        let v = &rest[..end];
        if v.is_ascii() {
            return Some(String::from_utf8_lossy(v).trim().to_string());
        }
        return None;
    }
    None
}

/// UTF-16 without a byte-order mark: the first non-blank character `(` with a zero byte beside it.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let k = bytes.iter().position(|&b| b != 0 && !is_ws(b))?;
    if bytes[k] != b'(' {
        return None;
    }
    if k % 2 == 0 && bytes.get(k + 1) == Some(&0) {
        Some(encoding_rs::UTF_16LE)
    } else if k % 2 == 1 && bytes[k - 1] == 0 {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

/// Decodes a file's bytes to UTF-8 and says how (see [`Charset`]); `forced` overrides everything
/// but a byte-order mark. Undecodable sequences become U+FFFD and are counted.
pub fn decode(bytes: Vec<u8>, forced: Option<&'static Encoding>) -> (Vec<u8>, Charset, usize) {
    let declared = declared_charset(&bytes);
    let charset = |encoding, source| Charset {
        encoding,
        source,
        declared: declared.clone(),
    };
    let run = |enc: &'static Encoding, b: &[u8]| {
        let (text, errors) = enc.decode_without_bom_handling(b);
        let bad = if errors { text.matches('\u{FFFD}').count() } else { 0 };
        (text.into_owned().into_bytes(), bad)
    };
    if let Some((enc, bom)) = Encoding::for_bom(&bytes) {
        let (text, bad) = run(enc, &bytes[bom..]);
        return (text, charset(enc, CharsetSource::ByteOrderMark), bad);
    }
    if let Some(enc) = forced {
        let (text, bad) = run(enc, &bytes);
        return (text, charset(enc, CharsetSource::Given), bad);
    }
    if let Some(enc) = utf16_without_bom(&bytes) {
        let (text, bad) = run(enc, &bytes);
        return (text, charset(enc, CharsetSource::Detected), bad);
    }
    let label = declared.as_deref().and_then(label_encoding);
    if bytes.is_ascii() {
        let how = if label.is_some() {
            CharsetSource::Declared
        } else {
            CharsetSource::Ascii
        };
        return (bytes, charset(label.unwrap_or(encoding_rs::UTF_8), how), 0);
    }
    let utf8 = std::str::from_utf8(&bytes).is_ok();
    if let Some(enc) = label {
        // Valid multi-byte UTF-8 is (almost) never legacy text: a declared legacy charset that the
        // bytes contradict this way was kept by a tool that converted the file to UTF-8.
        if enc == encoding_rs::UTF_8 && utf8 {
            return (bytes, charset(enc, CharsetSource::Declared), 0);
        }
        if !utf8 {
            let (text, errors) = enc.decode_without_bom_handling(&bytes);
            if !errors {
                let text = text.into_owned().into_bytes();
                return (text, charset(enc, CharsetSource::Declared), 0);
            }
        }
    }
    if utf8 {
        return (bytes, charset(encoding_rs::UTF_8, CharsetSource::Detected), 0);
    }
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    det.feed(&bytes, true);
    let enc = det.guess(None, chardetng::Utf8Detection::Allow);
    let (text, bad) = run(enc, &bytes);
    (text, charset(enc, CharsetSource::Detected), bad)
}

/// Converts UTF-16 (with a byte-order mark) to UTF-8 and drops a UTF-8 byte-order mark; other
/// bytes are returned as they are. (Kept for callers that want the structure-neutral transcoding
/// only; [`Sgf::parse_bytes`] decodes every charset.)
pub fn normalise_encoding(bytes: Vec<u8>) -> Vec<u8> {
    match Encoding::for_bom(&bytes) {
        Some((enc, bom)) => enc
            .decode_without_bom_handling(&bytes[bom..])
            .0
            .into_owned()
            .into_bytes(),
        None => bytes,
    }
}

enum PropsEnd {
    /// The node's properties ended at this offset.
    At(usize),
    /// The file ended inside the node (a value without `]`, an identifier without a value).
    Cut(usize),
}

impl Sgf {
    /// Parses a collection from raw file bytes (any charset; see [`decode`]).
    pub fn parse_bytes(bytes: Vec<u8>) -> Result<Sgf, SgfError> {
        Self::parse_bytes_with(bytes, None)
    }

    /// Parses a collection from raw file bytes, decoding them with `charset` when given (a
    /// byte-order mark still wins).
    pub fn parse_bytes_with(bytes: Vec<u8>, charset: Option<&'static Encoding>) -> Result<Sgf, SgfError> {
        if bytes.len() > u32::MAX as usize / 4 {
            return Err(SgfError::TooLarge);
        }
        let (src, charset, bad) = decode(bytes, charset);
        if src.len() >= u32::MAX as usize {
            return Err(SgfError::TooLarge);
        }
        let mut sgf = Sgf {
            src: Vec::new(),
            nodes: Vec::new(),
            props: Vec::new(),
            values: Vec::new(),
            roots: Vec::new(),
            ranges: Vec::new(),
            charset,
            warnings: Vec::new(),
            lines: OnceLock::new(),
        };
        if bad > 0 {
            sgf.warn(
                0,
                format!(
                    "{bad} byte sequence(s) are not valid {}; replaced by U+FFFD",
                    sgf.charset.name()
                ),
            );
        }
        if sgf.charset.source == CharsetSource::Detected && sgf.charset.declared.is_some() {
            let m = format!("text decoded as {}", sgf.charset.describe());
            sgf.warn(0, m);
        }
        sgf.parse_into(&src)?;
        sgf.src = src;
        Ok(sgf)
    }

    /// Parses a collection from text.
    pub fn parse(text: &str) -> Result<Sgf, SgfError> {
        Self::parse_bytes(text.as_bytes().to_vec())
    }

    fn warn(&mut self, offset: usize, message: String) {
        self.warnings.push(ReadWarning { offset, message });
    }

    fn new_node(&mut self, parent: Option<u32>, at: usize) -> Result<u32, SgfError> {
        if self.nodes.len() >= MAX_NODES {
            return Err(SgfError::TooManyNodes { offset: at });
        }
        let id = self.nodes.len() as u32;
        let p = self.props.len() as u32;
        self.nodes.push(Node {
            props: (p, p),
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            parent,
            at: at as u32,
        });
        match parent {
            Some(q) => {
                let q = &mut self.nodes[q as usize];
                let prev = q.last_child;
                q.last_child = id;
                if prev == NONE {
                    q.first_child = id;
                } else {
                    self.nodes[prev as usize].next_sibling = id;
                }
            }
            None => self.roots.push(id),
        }
        Ok(id)
    }

    /// Removes the last node made (a node cut short by the end of the file).
    fn drop_last_node(&mut self) {
        let Some(n) = self.nodes.pop() else { return };
        let id = self.nodes.len() as u32;
        self.props.truncate(n.props.0 as usize);
        if let Some(p) = self.props.last() {
            self.values.truncate(p.values.1 as usize);
        } else {
            self.values.clear();
        }
        match n.parent {
            None => {
                self.roots.pop();
            }
            Some(q) => {
                let first = self.nodes[q as usize].first_child;
                if first == id {
                    self.nodes[q as usize].first_child = NONE;
                    self.nodes[q as usize].last_child = NONE;
                } else {
                    let mut c = first;
                    while self.nodes[c as usize].next_sibling != id {
                        c = self.nodes[c as usize].next_sibling;
                    }
                    self.nodes[c as usize].next_sibling = NONE;
                    self.nodes[q as usize].last_child = c;
                }
            }
        }
    }

    fn skipped_text(&mut self, src: &[u8], from: usize, to: usize, what: &str) {
        if let Some(k) = src[from..to].iter().position(|&b| !is_ws(b)) {
            self.warn(from + k, format!("text {what} ignored"));
        }
    }

    fn parse_into(&mut self, src: &[u8]) -> Result<(), SgfError> {
        let len = src.len();
        let mut pos = match src.iter().position(|&b| b == b'(') {
            Some(p) => p,
            None => return Err(SgfError::Empty),
        };
        self.skipped_text(src, 0, pos, "before the first game tree");
        // Stack of open trees: (offset of '(', the node new sequences attach to).
        let mut stack: Vec<(usize, Option<u32>)> = Vec::new();
        let mut last: Option<u32> = None; // the last node of the current sequence
        let mut tree_has_node = false;
        let mut tree_start = pos;
        let mut ff3_seen: Vec<Vec<u8>> = Vec::new();
        while pos < len {
            let b = src[pos];
            match b {
                b'(' => {
                    if !stack.is_empty() && !tree_has_node {
                        return Err(SgfError::EmptyTree {
                            offset: stack.last().map(|t| t.0).unwrap_or(pos),
                        });
                    }
                    if stack.is_empty() {
                        tree_start = pos;
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
                        self.ranges.push((tree_start as u32, pos as u32));
                        // Between game trees of a collection, skip anything up to the next '('.
                        let next = match src[pos..].iter().position(|&b| b == b'(') {
                            Some(p) => pos + p,
                            None => len,
                        };
                        let what = if next == len {
                            "after the last game tree"
                        } else {
                            "between game trees"
                        };
                        self.skipped_text(src, pos, next, what);
                        pos = next;
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
                    let id = self.new_node(last, pos)?;
                    last = Some(id);
                    tree_has_node = true;
                    match self.parse_props(src, pos + 1, id, &mut ff3_seen)? {
                        PropsEnd::At(p) => pos = p,
                        PropsEnd::Cut(at) => {
                            self.drop_last_node();
                            return self.cut(src, &stack, at, true);
                        }
                    }
                }
                _ if is_ws(b) => pos += 1,
                _ if b.is_ascii_alphabetic() && !tree_has_node && !stack.is_empty() => {
                    self.warn(
                        pos,
                        "missing `;` before the first node of a game tree; read as if it were there".into(),
                    );
                    let id = self.new_node(last, pos)?;
                    last = Some(id);
                    tree_has_node = true;
                    match self.parse_props(src, pos, id, &mut ff3_seen)? {
                        PropsEnd::At(p) => pos = p,
                        PropsEnd::Cut(at) => {
                            self.drop_last_node();
                            return self.cut(src, &stack, at, true);
                        }
                    }
                }
                _ => {
                    let found = std::str::from_utf8(&src[pos..(pos + 4).min(len)])
                        .ok()
                        .or_else(|| std::str::from_utf8(&src[pos..(pos + 1).min(len)]).ok())
                        .and_then(|s| s.chars().next())
                        .unwrap_or('\u{FFFD}');
                    return Err(SgfError::Unexpected { found, offset: pos });
                }
            }
        }
        if !stack.is_empty() {
            return self.cut(src, &stack, len, false);
        }
        if self.roots.is_empty() {
            return Err(SgfError::Empty);
        }
        Ok(())
    }

    /// The file ended inside a game tree (at `at`; `in_node`: inside a node, which was dropped):
    /// keep the nodes read so far, with a warning, if there are any.
    fn cut(&mut self, src: &[u8], stack: &[(usize, Option<u32>)], at: usize, in_node: bool) -> Result<(), SgfError> {
        let open = stack.first().map(|t| t.0).unwrap_or(0);
        let game_has_nodes = self
            .roots
            .last()
            .is_some_and(|&r| self.nodes[r as usize].at as usize >= open);
        if !game_has_nodes {
            return Err(if in_node {
                SgfError::UnterminatedValue { offset: at }
            } else {
                SgfError::UnterminatedTree { offset: open }
            });
        }
        let message = if in_node {
            "the record is cut short inside a node (a value without `]`); read up to the last complete node".to_string()
        } else {
            let depth = stack.len();
            format!("the record ends before its game tree is closed ({depth} `)` missing); read up to the last node")
        };
        self.warn(at, message);
        self.ranges.push((open as u32, src.len() as u32));
        Ok(())
    }

    fn parse_props(
        &mut self,
        src: &[u8],
        mut pos: usize,
        node: u32,
        ff3_seen: &mut Vec<Vec<u8>>,
    ) -> Result<PropsEnd, SgfError> {
        let first_prop = self.props.len();
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
                let Some(end) = value_end(&src[start..]) else {
                    return Ok(PropsEnd::Cut(pos));
                };
                self.values.push(Span {
                    start: start as u32,
                    end: (start + end) as u32,
                });
                pos = start + end + 1;
            }
            let v1 = self.values.len() as u32;
            if v0 == v1 {
                if pos >= src.len() {
                    return Ok(PropsEnd::Cut(at));
                }
                return Err(SgfError::MissingValue {
                    ident: String::from_utf8_lossy(id).into_owned(),
                    offset: at,
                });
            }
            let ident = Ident::from_bytes(id);
            if id.iter().any(|b| b.is_ascii_lowercase()) && !ff3_seen.iter().any(|s| s == id) && ff3_seen.len() < 64 {
                ff3_seen.push(id.to_vec());
                let name = String::from_utf8_lossy(id);
                let m = if ident.0 == 0 {
                    format!("property `{name}` has no upper-case letter; kept, but nothing reads it")
                } else {
                    format!("FF[3] identifier `{name}` read as `{}`", ident.as_string())
                };
                self.warn(at, m);
            }
            self.props.push(Prop {
                ident,
                at: at as u32,
                values: (v0, v1),
            });
            self.nodes[node as usize].props.1 = self.props.len() as u32;
        }
        self.merge_repeated(first_prop);
        Ok(PropsEnd::At(pos))
    }

    /// A property repeated within one node: its values are merged into the first occurrence
    /// (the node's properties and values are the last ones read, so they are rebuilt in place).
    fn merge_repeated(&mut self, first_prop: usize) {
        let ps = &self.props[first_prop..];
        if ps.len() < 2 {
            return;
        }
        let mut ids: Vec<Ident> = ps.iter().map(|p| p.ident).collect();
        ids.sort_unstable();
        if ids.windows(2).all(|w| w[0] != w[1]) {
            return;
        }
        let old: Vec<Prop> = self.props.split_off(first_prop);
        let v_first = old[0].values.0 as usize;
        let old_values: Vec<Span> = self.values.split_off(v_first);
        let mut done: Vec<Ident> = Vec::new();
        for p in &old {
            if done.contains(&p.ident) {
                continue;
            }
            done.push(p.ident);
            let v0 = self.values.len() as u32;
            let mut count = 0;
            for q in old.iter().filter(|q| q.ident == p.ident) {
                count += 1;
                let (a, b) = (q.values.0 as usize - v_first, q.values.1 as usize - v_first);
                self.values.extend_from_slice(&old_values[a..b]);
            }
            if count > 1 {
                let at = old
                    .iter()
                    .filter(|q| q.ident == p.ident)
                    .nth(1)
                    .map(|q| q.at)
                    .unwrap_or(p.at);
                self.warn(
                    at as usize,
                    format!(
                        "property `{}` appears {count} times in one node; its values are merged",
                        p.ident.as_string()
                    ),
                );
            }
            self.props.push(Prop {
                ident: p.ident,
                at: p.at,
                values: (v0, self.values.len() as u32),
            });
        }
        if let Some(n) = self.nodes.last_mut() {
            n.props.1 = self.props.len() as u32;
        }
    }

    /// The decoded source (UTF-8).
    pub fn source(&self) -> &[u8] {
        &self.src
    }
    /// The charset the file was decoded with, and how it was chosen.
    pub fn charset(&self) -> &Charset {
        &self.charset
    }
    /// The deviations read leniently, in file order of discovery.
    pub fn warnings(&self) -> &[ReadWarning] {
        &self.warnings
    }
    /// The reading warnings that concern game `game`: those inside its game tree, and those
    /// about the whole file (charset, text outside the game trees).
    pub fn warnings_of_game(&self, game: usize) -> Vec<&ReadWarning> {
        let (a, b) = self.ranges.get(game).copied().unwrap_or((0, u32::MAX));
        let inside = |o: usize| self.ranges.iter().any(|&(x, y)| o >= x as usize && o < y as usize);
        self.warnings
            .iter()
            .filter(|w| (w.offset >= a as usize && w.offset < b as usize) || !inside(w.offset))
            .collect()
    }
    /// 1-based line and column (in characters) of a byte offset of [`Sgf::source`].
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines
            .get_or_init(|| LineIndex::new(&self.src))
            .line_col(&self.src, offset)
    }
    /// The root node of each game tree, in file order.
    pub fn games(&self) -> &[u32] {
        &self.roots
    }
    /// A node.
    pub fn node(&self, n: u32) -> &Node {
        &self.nodes[n as usize]
    }
    /// The children of a node (variations; the first is the main line), in file order.
    pub fn children(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let mut c = self.nodes[n as usize].first_child;
        std::iter::from_fn(move || {
            (c != NONE).then(|| {
                let r = c;
                c = self.nodes[c as usize].next_sibling;
                r
            })
        })
    }
    /// Number of nodes in the collection.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    /// The properties of a node (a repeated property is merged into one).
    pub fn props(&self, n: u32) -> &[Prop] {
        let (a, b) = self.nodes[n as usize].props;
        &self.props[a as usize..b as usize]
    }
    /// The property of a node with this identifier.
    pub fn prop(&self, n: u32, id: Ident) -> Option<&Prop> {
        self.props(n).iter().find(|p| p.ident == id)
    }
    /// The raw value spans of a property.
    pub fn raw_values(&self, p: &Prop) -> &[Span] {
        &self.values[p.values.0 as usize..p.values.1 as usize]
    }
    /// The bytes of a value as they stand in the decoded source (escapes unresolved).
    pub fn raw(&self, s: Span) -> &[u8] {
        &self.src[s.start as usize..s.end as usize]
    }
    /// A value decoded as text (SGF Text): escapes resolved, soft line breaks (`\` + newline)
    /// removed; never fails (the file was decoded to UTF-8 when read).
    pub fn text(&self, _node: u32, s: Span) -> Cow<'_, str> {
        let raw = self.raw(s);
        if !raw.contains(&b'\\') {
            return String::from_utf8_lossy(raw);
        }
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
        Cow::Owned(String::from_utf8_lossy(&out).into_owned())
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
            let first = self.nodes[n as usize].first_child;
            if first == NONE {
                return Some(out);
            }
            let pick = if self.nodes[first as usize].next_sibling != NONE {
                let p = path.get(k).copied().unwrap_or(0);
                k += 1;
                p
            } else {
                0
            };
            n = self.children(n).nth(pick)?;
            out.push(n);
        }
    }

    /// The number of lines of play in game `game` (leaves of its tree: the main line and each
    /// variation), counted without recursion.
    pub fn line_count(&self, game: usize) -> usize {
        let Some(&root) = self.roots.get(game) else { return 0 };
        let mut stack = vec![root];
        let mut leaves = 0;
        while let Some(n) = stack.pop() {
            let before = stack.len();
            stack.extend(self.children(n));
            if stack.len() == before {
                leaves += 1;
            }
        }
        leaves
    }
}
