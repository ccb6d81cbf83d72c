//! A peer to measure move prediction against: GNU Go, asked through the Go Text Protocol for the
//! move it would play at a position of a game record (`loadsgf FILE N` sets up the position
//! after N − 1 moves with its history, `reg_genmove COLOUR` names a move without playing it).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::go::board::{Cell, Color, Point};
use crate::go::game::Replay;

/// A GTP engine in a child process.
pub struct Gtp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Gtp {
    /// Starts `program args…`.
    pub fn spawn(program: &Path, args: &[&str]) -> std::io::Result<Gtp> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?);
        Ok(Gtp { child, stdin, stdout })
    }

    /// Sends one command; `Ok` with the response text after `= `, `Err` with the text after
    /// `? ` (or an I/O failure).
    pub fn command(&mut self, cmd: &str) -> Result<String, String> {
        writeln!(self.stdin, "{cmd}").map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())?;
        let mut out = String::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).map_err(|e| e.to_string())?;
            if n == 0 {
                return Err(format!("the engine closed its output after `{cmd}`"));
            }
            if line.trim().is_empty() {
                if out.is_empty() {
                    continue;
                }
                break;
            }
            out.push_str(&line);
        }
        let t = out.trim_end();
        if let Some(r) = t.strip_prefix('=') {
            Ok(r.trim().to_string())
        } else if let Some(r) = t.strip_prefix('?') {
            Err(r.trim().to_string())
        } else {
            Err(format!("unexpected response `{t}`"))
        }
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

/// GNU Go, if installed (`gnugo` on the path or `/usr/games/gnugo`): the classify benchmark's
/// finder, one for both peers.
pub use crate::go::bench::gnugo;

/// GNU Go's version line.
pub fn gnugo_version(path: &Path) -> String {
    Command::new(path)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "GNU Go".into())
}

/// GNU Go asked at positions of games.
pub struct GnuGo {
    gtp: Gtp,
    file: PathBuf,
}

/// SGF text of a replayed game's main line: its initial position as setup, then its moves.
pub fn sgf_of(r: &Replay) -> String {
    let (c, rows) = r.info.size;
    let mut s = if c == rows {
        format!("(;GM[1]FF[4]SZ[{c}]")
    } else {
        format!("(;GM[1]FF[4]SZ[{c}:{rows}]")
    };
    if let Some(k) = r.info.komi {
        s.push_str(&format!("KM[{k}]"));
    }
    let pt = |p: Point| format!("[{}{}]", (b'a' + p.col) as char, (b'a' + p.row) as char);
    if let Some(b0) = r.positions.first() {
        for (tag, color) in [("AB", Color::Black), ("AW", Color::White)] {
            let v: Vec<Point> = b0.points().filter(|&p| b0.get(p) == Cell::Stone(color)).collect();
            if !v.is_empty() {
                s.push_str(tag);
                for p in v {
                    s.push_str(&pt(p));
                }
            }
        }
        if let Some(&first) = r.to_move.first() {
            s.push_str(&format!("PL[{}]", first.letter()));
        }
    }
    for m in &r.moves {
        s.push(';');
        s.push_str(m.color.letter());
        match m.point {
            Some(p) => s.push_str(&pt(p)),
            None => s.push_str("[]"),
        }
    }
    s.push_str(")\n");
    s
}

impl GnuGo {
    /// Starts GNU Go at `level`; positions are written to `file` to be loaded.
    pub fn new(path: &Path, level: u32, file: PathBuf) -> std::io::Result<GnuGo> {
        let gtp = Gtp::spawn(path, &["--mode", "gtp", "--level", &level.to_string()])?;
        Ok(GnuGo { gtp, file })
    }

    /// Loads a game (its main line, written to this peer's file).
    pub fn game(&mut self, r: &Replay) -> Result<(), String> {
        std::fs::write(&self.file, sgf_of(r)).map_err(|e| format!("{}: {e}", self.file.display()))
    }

    /// The move GNU Go chooses for `color` after `n` moves of the loaded game (`None`: a pass or
    /// resignation).
    pub fn choose(&mut self, n: usize, color: Color, rows: u8) -> Result<Option<Point>, String> {
        self.gtp
            .command(&format!("loadsgf {} {}", self.file.display(), n + 1))?;
        let c = match color {
            Color::Black => "black",
            Color::White => "white",
        };
        let v = self.gtp.command(&format!("reg_genmove {c}"))?;
        Ok(Point::from_gtp(&v, rows))
    }
}
