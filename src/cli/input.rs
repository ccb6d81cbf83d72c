//! What every command that reads game records shares: reading a file within limits, naming one
//! game (`FILE[:N]`, `--game N`, `--path`, `--move N`), the warnings (one wording, stderr for text,
//! a `warnings` array for JSON, `--strict` turning them into errors), flag validation, exit codes
//! (0 ok, 1 input error, 2 usage error) and progress bars that appear past a second of work.
//!
//! Commands call [`load`], then [`Loaded::upto`] for `--move`, [`Loaded::warnings`] and
//! [`report_warnings`], and [`check_recording`] before recording or classifying; errors meant as
//! usage errors are made with [`usage`], and [`exit_code`] maps a report to the exit code.

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ets::go::game::{GameError, Replay};
use ets::go::record::RecordOptions;
use ets::go::sgf::{Sgf, decode};

/// The largest file a command reads (a monthly collection of 9-dan games is under 2 MB).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// A usage error: the command line asks for something that cannot be (exit code 2).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A usage error report (exit code 2).
pub fn usage(msg: impl Into<String>) -> miette::Report {
    miette::Report::new(UsageError(msg.into()))
}

/// The exit code of a failed command: 2 for usage errors, 1 for everything else.
pub fn exit_code(r: &miette::Report) -> ExitCode {
    if r.downcast_ref::<UsageError>().is_some() {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}

/// Parses a 1-based game number.
pub fn game_number(s: &str) -> Result<usize, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n >= 1 => Ok(n as usize),
        Ok(_) => Err("games are numbered from 1".into()),
        Err(_) => Err(format!("`{s}` is not a game number")),
    }
}

/// Parses a move number (0: the position before the first move).
pub fn move_number(s: &str) -> Result<usize, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n as usize),
        Ok(_) => Err("a move number is 0 or more (0: the position before the first move)".into()),
        Err(_) => Err(format!("`{s}` is not a move number")),
    }
}

/// Parses a count that must be at least 1.
pub fn positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n >= 1 => Ok(n as usize),
        Ok(_) => Err("must be at least 1".into()),
        Err(_) => Err(format!("`{s}` is not a number")),
    }
}

/// Options naming one game of a file, and how strictly to read it.
#[derive(Args, Clone, Default)]
pub struct GameSel {
    /// Which game of a collection (1-based; `FILE:N` says the same).
    #[arg(long, value_name = "N", value_parser = game_number)]
    pub game: Option<usize>,
    /// The variation: at the k-th branching node, take child path[k] (0 = main line), e.g. `0,2`.
    #[arg(long, value_delimiter = ',')]
    pub path: Vec<usize>,
    /// Position after N moves (default: the end).
    #[arg(long = "move", value_name = "N", value_parser = move_number, allow_hyphen_values = true)]
    pub mv: Option<usize>,
    /// Turn every warning (a deviation read leniently, an irregular move) into an error.
    #[arg(long)]
    pub strict: bool,
    /// Decode text with this charset (a WHATWG label such as Shift_JIS, EUC-KR, GBK, Big5),
    /// whatever `CA` says or detection finds.
    #[arg(long)]
    pub charset: Option<String>,
}

/// Reads a file within [`MAX_FILE_BYTES`]; a directory, a missing file or an endless device is
/// an input error naming the file.
pub fn read_input(path: &Path) -> miette::Result<Vec<u8>> {
    let name = path.display();
    if path.is_dir() {
        return Err(miette::miette!("{name}: is a directory (this command reads one file)"));
    }
    let f = std::fs::File::open(path).map_err(|e| miette::miette!("{name}: cannot read: {e}"))?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| miette::miette!("{name}: cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(miette::miette!(
            "{name}: larger than {} MiB; ets reads records of up to {} MiB",
            MAX_FILE_BYTES >> 20,
            MAX_FILE_BYTES >> 20
        ));
    }
    Ok(bytes)
}

/// Splits `FILE:N` into the file and the game number when `FILE:N` itself is not a file.
pub fn split_game(path: &Path) -> miette::Result<(PathBuf, Option<usize>)> {
    if path.exists() {
        return Ok((path.to_path_buf(), None));
    }
    let s = path.to_string_lossy();
    if let Some((f, n)) = s.rsplit_once(':')
        && !f.is_empty()
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit() || b == b'-')
    {
        let n = game_number(n).map_err(|e| usage(format!("{s}: {e}")))?;
        return Ok((PathBuf::from(f), Some(n)));
    }
    Ok((path.to_path_buf(), None))
}

/// The charset named by `--charset`.
pub fn charset_arg(label: &Option<String>) -> miette::Result<Option<&'static encoding_rs::Encoding>> {
    match label {
        None => Ok(None),
        Some(l) => encoding_rs::Encoding::for_label(l.trim().as_bytes())
            .map(Some)
            .ok_or_else(|| {
                usage(format!(
                    "--charset {l}: not a known charset (a WHATWG label such as Shift_JIS)"
                ))
            }),
    }
}

/// A located error over a decoded source: `file:line:col: message`, with the source line and a
/// caret (lone carriage returns shown as line breaks, so the snippet and the header agree).
pub fn located(file: &str, src: &[u8], line_col: (usize, usize), offset: usize, msg: String) -> miette::Report {
    let text: String = String::from_utf8_lossy(src)
        .chars()
        .map(|c| if c == '\r' { '\n' } else { c })
        .collect();
    let (line, col) = line_col;
    let offset = offset.min(text.len());
    miette::miette!(
        labels = vec![miette::LabeledSpan::at_offset(offset, "here")],
        "{file}:{line}:{col}: {msg}"
    )
    .with_source_code(miette::NamedSource::new(file, text))
}

/// Reads and parses a file (no replay): the file's name as given, and the collection.
pub fn parse_file(file: &Path, charset: &Option<String>) -> miette::Result<Sgf> {
    let name = file.display().to_string();
    let forced = charset_arg(charset)?;
    let bytes = read_input(file)?;
    Sgf::parse_bytes_with(bytes.clone(), forced).map_err(|e| {
        let (src, _, _) = decode(bytes, forced);
        let lc = ets::go::sgf::LineIndex::new(&src).line_col(&src, e.offset());
        located(&name, &src, lc, e.offset(), e.to_string())
    })
}

/// One game of a file, read and replayed.
pub struct Loaded {
    /// The file's name as given.
    pub name: String,
    /// The collection.
    pub sgf: Sgf,
    /// The chosen game (0-based).
    pub game: usize,
    /// Its replay along the chosen variation.
    pub replay: Replay,
}

/// Reads `file` (or `FILE:N`), picks the game `sel` names and replays it.
pub fn load(file: &Path, sel: &GameSel) -> miette::Result<Loaded> {
    let (file, from_name) = split_game(file)?;
    let game = match (from_name, sel.game) {
        (Some(a), Some(b)) if a != b => {
            return Err(usage(format!(
                "{}:{a} and --game {b} name different games",
                file.display()
            )));
        }
        (Some(a), _) | (None, Some(a)) => a,
        (None, None) => 1,
    };
    let name = file.display().to_string();
    let sgf = parse_file(&file, &sel.charset)?;
    let replay = Replay::from_sgf(&sgf, game - 1, &sel.path).map_err(|e| match e {
        GameError::Sgf(e) => located(&name, sgf.source(), sgf.line_col(e.offset()), e.offset(), e.to_string()),
        GameError::NoSuchVariation => miette::miette!(
            "{name}: --path {} leaves the game tree (game {game} has {} line(s) of play)",
            sel.path.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(","),
            sgf.line_count(game - 1)
        ),
        other => {
            let at = sgf.games().get(game - 1).map(|&r| sgf.node(r).at as usize).unwrap_or(0);
            let (l, c) = sgf.line_col(at);
            miette::miette!("{name}:{l}:{c}: {other}")
        }
    })?;
    let loaded = Loaded {
        name,
        sgf,
        game: game - 1,
        replay,
    };
    Ok(loaded)
}

/// A warning as every command words it: `file:line:col: move N: message`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Warn {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// The move being executed (1-based), if the warning is about one.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub move_number: Option<usize>,
    /// What happened.
    pub message: String,
    /// The whole warning as the text output prints it.
    pub text: String,
}

impl Warn {
    fn new(file: &str, (line, col): (usize, usize), move_number: Option<usize>, message: &str) -> Warn {
        let text = match move_number {
            Some(n) => format!("{file}:{line}:{col}: move {n}: {message}"),
            None => format!("{file}:{line}:{col}: {message}"),
        };
        Warn {
            file: file.to_string(),
            line,
            col,
            move_number,
            message: message.to_string(),
            text,
        }
    }
}

/// The reading warnings of an SGF collection's game `game` (file-wide ones included).
pub fn reading_warnings(name: &str, sgf: &Sgf, game: usize) -> Vec<Warn> {
    sgf.warnings_of_game(game)
        .into_iter()
        .map(|w| Warn::new(name, sgf.line_col(w.offset), None, &w.message))
        .collect()
}

impl Loaded {
    /// The position `--move` names (the end by default); beyond the end is an input error.
    pub fn upto(&self, mv: Option<usize>) -> miette::Result<usize> {
        match mv {
            None => Ok(self.replay.len()),
            Some(n) if n <= self.replay.len() => Ok(n),
            Some(n) => Err(miette::miette!(
                "{}: --move {n} asked for, but the line has {} move(s)",
                self.name,
                self.replay.len()
            )),
        }
    }
    /// Every warning up to move `upto`: reading warnings first, then the replay's.
    pub fn warnings(&self, upto: usize) -> Vec<Warn> {
        let mut out = reading_warnings(&self.name, &self.sgf, self.game);
        out.extend(self.replay.warnings.iter().filter(|w| w.move_number <= upto).map(|w| {
            let mv = (w.move_number > 0).then_some(w.move_number);
            Warn::new(&self.name, self.sgf.line_col(w.offset), mv, &w.message)
        }));
        out
    }
}

/// Reports warnings: with `strict`, the first becomes an error (exit 1); else, for text output,
/// each goes to stderr as `warning: …`. Returns them for a JSON `warnings` array.
pub fn report_warnings(warnings: Vec<Warn>, strict: bool, json: bool) -> miette::Result<Vec<Warn>> {
    if strict && let Some(w) = warnings.first() {
        let more = match warnings.len() {
            1 => String::new(),
            n => format!(" (and {} more warning(s))", n - 1),
        };
        return Err(miette::miette!("{} [--strict]{more}", w.text));
    }
    if !json {
        use std::io::Write;
        let mut err = std::io::stderr().lock();
        for w in &warnings {
            let _ = writeln!(err, "warning: {}", w.text);
        }
    }
    Ok(warnings)
}

/// A JSON object with a `warnings` array added (the same warnings as the text output's stderr).
pub fn json_with_warnings<T: Serialize>(value: &T, warnings: &[Warn]) -> String {
    serde_json::to_string_pretty(&value_with_warnings(value, warnings)).expect("serialisable")
}

/// The JSON tree of `value` with the `warnings` array added (an object's keys in order).
fn value_with_warnings<T: Serialize>(value: &T, warnings: &[Warn]) -> serde_json::Value {
    let mut v = serde_json::to_value(value).expect("serialisable");
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("warnings".into(), serde_json::to_value(warnings).expect("serialisable"));
    }
    v
}

/// Prints `value` to stdout as [`json_with_warnings`] writes it, followed by a newline, without
/// holding the whole text: `value` is dropped once its JSON tree is made, and the tree is written
/// as it is read (for the largest outputs, a game's timeline: about 17 MB less at the peak).
pub fn print_json_with_warnings<T: Serialize>(value: T, warnings: &[Warn]) -> miette::Result<()> {
    use std::io::Write;
    let v = value_with_warnings(&value, warnings);
    drop(value);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &v)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .map_err(|e| miette::miette!("writing the output: {e}"))
}

/// Refuses to record (or classify) positions `0..=upto` of a game beyond the memory budget
/// ([`ets::go::game::check_recording`]).
pub fn check_recording(l: &Loaded, upto: usize, opts: RecordOptions) -> miette::Result<()> {
    let (c, r) = l.replay.info.size;
    ets::go::game::check_recording(c, r, upto + 1, opts).map_err(|e| miette::miette!("{}: {e}", l.name))
}

/// A progress bar on stderr that shows itself only past a second of work, and only on a terminal;
/// shared by the threads that advance it.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: AtomicBool,
    tty: bool,
}

impl Progress {
    /// A bar over `len` steps.
    pub fn new(len: usize) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {per_sec} eta {eta} {msg}").expect("template"),
        );
        Progress {
            bar,
            start: Instant::now(),
            shown: AtomicBool::new(false),
            tty: std::io::stderr().is_terminal(),
        }
    }
    /// One step done.
    pub fn inc(&self) {
        self.bar.inc(1);
        if self.tty && !self.shown.load(Ordering::Relaxed) && self.start.elapsed() > Duration::from_secs(1) {
            self.shown.store(true, Ordering::Relaxed);
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `--level L`: a level of the setting (usage error otherwise).
pub fn check_level(st: &ets::ets::Setting, level: Option<u32>) -> miette::Result<()> {
    match level {
        Some(l) if l > st.max_level() => Err(usage(format!(
            "--level {l}: the setting has levels 0 to {}",
            st.max_level()
        ))),
        _ => Ok(()),
    }
}

/// A class named by a flag: a class of the setting (usage error otherwise, listing them).
pub fn check_class(st: &ets::ets::Setting, flag: &str, name: &str) -> miette::Result<()> {
    if st.class_id(name).is_some() {
        return Ok(());
    }
    let names: Vec<&str> = st.classes().iter().map(|c| c.name.as_str()).collect();
    Err(usage(format!(
        "{flag} {name}: no such class in the setting (classes: {})",
        names.join(", ")
    )))
}
