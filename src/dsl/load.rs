//! Reading a program: the files named, and the files they import, each once.
//!
//! Paths are taken as users write them: relative to the working directory on the command line,
//! relative to the importing file's directory in an `import` (as the importing file was reached:
//! the operating system resolves `..` and symbolic links, so `lib/../x.ets` through a linked `lib`
//! is what the shell would open). A file is known by its identity (the canonical path on a file
//! system), so a file reached by two routes is read once and an import cycle is found whatever
//! the spelling. Only regular files of at most [`MAX_FILE_BYTES`] are read: a device, a pipe or a
//! directory is refused before it is opened.

use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use super::ast::{File, ItemKind, Span};
use super::error::{DslError, ErrorKind};
use super::parser::parse_all;

/// The largest source file read.
pub const MAX_FILE_BYTES: u64 = 16 << 20;
/// The longest chain of imports.
pub const MAX_IMPORT_DEPTH: usize = 64;

/// One source file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Its path as the user wrote it (on the command line, or joined to the importing file's
    /// directory).
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
    /// 1-based line and column (in characters) of a span's start.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        let Some(f) = self.files.get(span.file as usize) else {
            return (1, 1);
        };
        let mut at = (span.start as usize).min(f.text.len());
        while !f.text.is_char_boundary(at) {
            at -= 1;
        }
        let upto = &f.text[..at];
        let line = upto.matches('\n').count() + 1;
        let col = upto.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
        (line, col)
    }
}

/// Where source files come from.
pub trait Resolver {
    /// The text of `path`.
    fn read(&self, path: &Path) -> std::io::Result<String>;
    /// What identifies the file at `path` (two paths to one file give the same identity).
    fn identity(&self, path: &Path) -> PathBuf {
        normalise(path)
    }
}

/// Reads the file system.
pub struct FsResolver;

impl Resolver for FsResolver {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        read_source(path)
    }
    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Reads a source file: only a regular file, at most [`MAX_FILE_BYTES`], in UTF-8.
pub fn read_source(path: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind as Io};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a device, a pipe or a socket)"
        };
        return Err(Error::new(Io::InvalidInput, format!("it is {what}")));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::new(
            Io::InvalidInput,
            format!(
                "it has {} bytes, more than the {} a source file may have",
                meta.len(),
                MAX_FILE_BYTES
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow between the look and the read: never read more than the limit.
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::new(
            Io::InvalidInput,
            "it grew beyond the size a source file may have",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::new(
            Io::InvalidData,
            format!("it is not UTF-8 text (byte {} is not)", e.utf8_error().valid_up_to()),
        )
    })
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

/// Lexical normalisation: `.` dropped, `a/..` removed; a leading `..` is kept (for paths that no
/// symbolic link can change, like embedded files).
pub fn normalise(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// The path an import names, as the user would see it: `rel` joined to the importing file's
/// directory, with `.` components dropped (`..` and symbolic links are left to the system).
fn joined(dir: &Path, rel: &str) -> PathBuf {
    let p = dir.join(rel);
    let mut out = PathBuf::new();
    for c in p.components() {
        if c != Component::CurDir {
            out.push(c);
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

struct Loader<'r> {
    resolver: &'r dyn Resolver,
    sources: Sources,
    files: Vec<(u32, File)>,
    done: FxHashMap<PathBuf, u32>,
    stack: Vec<(PathBuf, PathBuf)>,
    errors: Vec<DslError>,
}

/// Reads and parses `roots` and everything they import. Every syntax error of every file is
/// reported (one per broken item); the program is returned only when there is none.
pub fn load(roots: &[PathBuf], resolver: &dyn Resolver) -> (Sources, Result<Program, Vec<DslError>>) {
    let mut l = Loader {
        resolver,
        sources: Sources::default(),
        files: Vec::new(),
        done: FxHashMap::default(),
        stack: Vec::new(),
        errors: Vec::new(),
    };
    for r in roots {
        l.load_one(r, None);
    }
    if l.errors.is_empty() {
        let s = l.sources.clone();
        (
            l.sources,
            Ok(Program {
                sources: s,
                files: l.files,
            }),
        )
    } else {
        (l.sources, Err(l.errors))
    }
}

impl Loader<'_> {
    fn error(&mut self, kind: ErrorKind, from: Option<Span>) {
        self.errors.push(match from {
            Some(s) => DslError::new(kind, s),
            None => DslError::unlocated(kind),
        });
    }

    fn load_one(&mut self, path: &Path, from: Option<Span>) {
        let id = self.resolver.identity(path);
        if let Some(i) = self.stack.iter().position(|(p, _)| *p == id) {
            let chain: Vec<String> = self.stack[i..]
                .iter()
                .map(|(_, shown)| shown.display().to_string())
                .chain(std::iter::once(path.display().to_string()))
                .collect();
            self.error(ErrorKind::CyclicImport(chain.join(" -> ")), from);
            return;
        }
        if self.done.contains_key(&id) {
            return;
        }
        if self.stack.len() >= MAX_IMPORT_DEPTH {
            self.error(
                ErrorKind::Limit(format!(
                    "imports nested more than {MAX_IMPORT_DEPTH} deep (`{}` is the next)",
                    path.display()
                )),
                from,
            );
            return;
        }
        let text = match self.resolver.read(path) {
            Ok(t) => t,
            Err(e) => {
                self.error(
                    ErrorKind::Io {
                        path: path.display().to_string(),
                        message: e.to_string(),
                    },
                    from,
                );
                return;
            }
        };
        let idx = self.sources.files.len() as u32;
        self.sources.files.push(SourceFile {
            path: path.to_path_buf(),
            text,
        });
        self.done.insert(id.clone(), idx);
        let (file, errors) = parse_all(&self.sources.files[idx as usize].text, idx);
        self.errors.extend(errors);
        self.stack.push((id, path.to_path_buf()));
        let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        for item in &file.items {
            if let ItemKind::Import(rel) = &item.kind {
                self.load_one(&joined(&dir, rel), Some(item.span));
            }
        }
        self.stack.pop();
        self.files.push((idx, file));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_keeps_a_leading_parent() {
        assert_eq!(normalise(Path::new("../x.ets")), PathBuf::from("../x.ets"));
        assert_eq!(normalise(Path::new("a/../../x.ets")), PathBuf::from("../x.ets"));
        assert_eq!(normalise(Path::new("./a/./b/../c.ets")), PathBuf::from("a/c.ets"));
        assert_eq!(normalise(Path::new("/../x")), PathBuf::from("/x"));
    }

    #[test]
    fn joining_keeps_what_the_user_wrote() {
        assert_eq!(
            joined(Path::new("../lib"), "../x.ets"),
            PathBuf::from("../lib/../x.ets")
        );
        assert_eq!(joined(Path::new(""), "./a.ets"), PathBuf::from("a.ets"));
    }
}
