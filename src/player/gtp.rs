//! The Go Text Protocol, version 2 (G. Farnebäck, GTP draft 2.0.2, 2002): the engine side.
//!
//! Input is preprocessed as §3.1 says (control characters other than HT and LF removed, HT made a
//! space, `#` comments discarded, blank lines ignored); a command may carry a numeric id, echoed
//! in the response; a success is `=[id] response\n\n`, a failure `?[id] message\n\n` with the
//! standard messages (`unknown command`, `syntax error`, `illegal move`, `unacceptable size`,
//! `cannot undo`, `board not empty`, `bad vertex list`, `invalid number of stones`, `cannot
//! load file`). GoGui's analyze commands expose the engine's view: the ownership map, the
//! predicted-move heat map, the candidate moves and why, the level-1/level-2 elements, the
//! principal variation.

use std::io::{BufRead, Write};

use crate::go::board::{Color, Point};
use crate::go::fastboard::Vtx;
use crate::go::game::Replay;
use crate::go::sgf::Sgf;

use super::components::elements_of;
use super::{Decision, Player, color_index};

/// Every command this engine knows, as `list_commands` prints them.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "reg_genmove",
    "kgs-genmove_cleanup",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "time_settings",
    "time_left",
    "kgs-time_settings",
    "loadsgf",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "gogui-analyze_commands",
    "ets-ownership",
    "ets-heatmap",
    "ets-candidates",
    "ets-elements",
    "ets-elements-list",
    "ets-pv",
    "ets-settings",
    "ets-learn",
    "set_random_seed",
    "get_random_seed",
];

/// The analyze commands GoGui shows (`type/label/command`).
pub const ANALYZE: &[&str] = &[
    "dboard/Ownership (sample games)/ets-ownership",
    "dboard/Predicted moves (heat map)/ets-heatmap",
    "gfx/Candidate moves and why/ets-candidates",
    "gfx/Level-1 elements/ets-elements 1",
    "gfx/Level-2 elements/ets-elements 2",
    "string/Level-1 elements (list)/ets-elements-list 1",
    "string/Level-2 elements (list)/ets-elements-list 2",
    "var/Principal variation/ets-pv",
    "string/Settings/ets-settings",
];

/// A GTP engine over a [`Player`].
pub struct Gtp {
    /// The player.
    pub player: Player,
    quit: bool,
}

type Reply = Result<String, String>;

fn color_arg(s: Option<&str>) -> Result<Color, String> {
    match s.map(|x| x.to_ascii_lowercase()) {
        Some(x) if x == "b" || x == "black" => Ok(Color::Black),
        Some(x) if x == "w" || x == "white" => Ok(Color::White),
        _ => Err("syntax error".into()),
    }
}

fn color_letter(c: Color) -> char {
    match c {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

/// Standard handicap points (GTP §4.1.1 `fixed_handicap`), as (col, row-from-top) on `size`.
pub fn handicap_points(size: usize, n: usize) -> Option<Vec<Point>> {
    if size < 7 || !(2..=9).contains(&n) || (size.is_multiple_of(2) && n > 4) || (size == 7 && n > 4) {
        return None;
    }
    let e = if size >= 13 { 3 } else { 2 } as u8;
    let (lo, hi, mid) = (e, size as u8 - 1 - e, (size / 2) as u8);
    let p = |c: u8, r: u8| Point { col: c, row: r };
    // GTP's order: the 4-4 points first, then sides, then the centre.
    let corners = [p(hi, lo), p(lo, hi), p(hi, hi), p(lo, lo)];
    let mut v: Vec<Point> = corners[..n.min(4)].to_vec();
    match n {
        5 => v.push(p(mid, mid)),
        6 => v.extend([p(lo, mid), p(hi, mid)]),
        7 => v.extend([p(lo, mid), p(hi, mid), p(mid, mid)]),
        8 => v.extend([p(lo, mid), p(hi, mid), p(mid, lo), p(mid, hi)]),
        9 => v.extend([p(lo, mid), p(hi, mid), p(mid, lo), p(mid, hi), p(mid, mid)]),
        _ => {}
    }
    Some(v)
}

impl Gtp {
    /// An engine over `player`.
    pub fn new(player: Player) -> Gtp {
        Gtp { player, quit: false }
    }

    /// Whether `quit` was received.
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// Serves commands from `input` until `quit` or the end of input.
    pub fn serve<R: BufRead, W: Write>(&mut self, input: R, mut out: W) -> std::io::Result<()> {
        for line in input.lines() {
            let line = line?;
            if let Some(resp) = self.handle(&line) {
                out.write_all(resp.as_bytes())?;
                out.flush()?;
            }
            if self.quit {
                break;
            }
        }
        Ok(())
    }

    /// Answers one input line (None for a blank or comment line).
    pub fn handle(&mut self, raw: &str) -> Option<String> {
        let clean: String = raw
            .chars()
            .filter(|&c| c == '\t' || c == '\n' || !c.is_control())
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let clean = match clean.find('#') {
            Some(i) => &clean[..i],
            None => &clean[..],
        };
        let mut words = clean.split_whitespace().peekable();
        let first = *words.peek()?;
        let id = if first.chars().all(|c| c.is_ascii_digit()) {
            words.next();
            Some(first.to_string())
        } else {
            None
        };
        let Some(cmd) = words.next() else {
            return Some(format!("?{} syntax error\n\n", id.unwrap_or_default()));
        };
        let args: Vec<&str> = words.collect();
        let r = self.command(cmd, &args);
        let id = id.unwrap_or_default();
        Some(match r {
            Ok(s) if s.is_empty() => format!("={id}\n\n"),
            Ok(s) => format!("={id} {s}\n\n"),
            Err(e) => format!("?{id} {e}\n\n"),
        })
    }

    fn vertex(&self, s: Option<&str>) -> Result<Vtx, String> {
        let s = s.ok_or("syntax error")?;
        self.player.game.board.from_gtp(s).ok_or_else(|| {
            // A letter and a number is a vertex, off this board: an illegal move.
            let mut ch = s.chars();
            let vertex_like = ch.next().is_some_and(|c| c.is_ascii_alphabetic())
                && !ch.as_str().is_empty()
                && ch.as_str().chars().all(|c| c.is_ascii_digit());
            if vertex_like { "illegal move" } else { "syntax error" }.to_string()
        })
    }

    fn command(&mut self, cmd: &str, a: &[&str]) -> Reply {
        let p = &mut self.player;
        match cmd {
            "protocol_version" => Ok("2".into()),
            "name" => Ok(p.cfg.name.clone()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "known_command" => Ok((a.first().is_some_and(|c| COMMANDS.contains(c))).to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => {
                self.quit = true;
                Ok(String::new())
            }
            "boardsize" => {
                let n: usize = a.first().and_then(|s| s.parse().ok()).ok_or("syntax error")?;
                if !(2..=crate::go::fastboard::MAX_SIZE).contains(&n) {
                    return Err("unacceptable size".into());
                }
                p.clear(n).map_err(|_| "unacceptable size".to_string())?;
                Ok(String::new())
            }
            "clear_board" => {
                let n = p.game.board.cols();
                p.clear(n)?;
                Ok(String::new())
            }
            "komi" => {
                let k: f32 = a.first().and_then(|s| s.parse().ok()).ok_or("syntax error")?;
                if !k.is_finite() {
                    return Err("syntax error".into());
                }
                p.game.komi = k;
                Ok(String::new())
            }
            "play" => {
                if a.len() < 2 {
                    return Err("syntax error".into());
                }
                let c = color_arg(a.first().copied())?;
                let v = self.vertex(a.get(1).copied())?;
                self.player.game.play(c, v).map_err(|_| "illegal move".to_string())?;
                Ok(String::new())
            }
            "genmove" | "reg_genmove" | "kgs-genmove_cleanup" => {
                let c = color_arg(a.first().copied())?;
                let d = p.genmove(c);
                let out = match d {
                    Decision::Play(v) => p.game.board.gtp(v),
                    Decision::Pass => "pass".into(),
                    Decision::Resign => "resign".into(),
                };
                if cmd != "reg_genmove" {
                    match d {
                        Decision::Play(v) => p.game.play(c, v).map_err(|e| format!("internal error: {e}"))?,
                        Decision::Pass => p.game.play(c, Vtx::PASS).map_err(|e| e.to_string())?,
                        Decision::Resign => {}
                    }
                }
                Ok(out)
            }
            // GNU Go's seed commands: an arena gives each game its own seed, so that a deterministic
            // search does not play the same game again and again.
            "set_random_seed" => {
                let s: u64 = a.first().and_then(|s| s.parse().ok()).ok_or("syntax error")?;
                p.cfg.search.seed = s;
                Ok(String::new())
            }
            "get_random_seed" => Ok(p.cfg.search.seed.to_string()),
            "undo" => {
                if p.game.undo() {
                    Ok(String::new())
                } else {
                    Err("cannot undo".into())
                }
            }
            "showboard" => {
                let (bc, wc) = p.game.board.prisoners();
                Ok(format!(
                    "\n{}black captured {bc}, white captured {wc}; {} to move; komi {}",
                    p.game.board.ascii(),
                    if p.game.to_move() == Color::Black {
                        "black"
                    } else {
                        "white"
                    },
                    p.game.komi
                ))
            }
            "final_score" => {
                let dead = p.dead_stones();
                let s = p.game.board.area_score(p.game.komi, &dead);
                Ok(if s > 0.0 {
                    format!("B+{s}")
                } else if s < 0.0 {
                    format!("W+{}", -s)
                } else {
                    "0".into()
                })
            }
            "final_status_list" => {
                let which = a.first().ok_or("syntax error")?.to_ascii_lowercase();
                let dead = p.dead_stones();
                let b = &p.game.board;
                let pick: Vec<Vtx> = match which.as_str() {
                    "dead" => dead,
                    "alive" => b
                        .points()
                        .filter(|v| b.color_at(*v).is_some() && !dead.contains(v))
                        .collect(),
                    "seki" => Vec::new(),
                    _ => return Err("syntax error".into()),
                };
                // One chain per line, as GNU Go prints it.
                let mut seen = std::collections::BTreeSet::new();
                let mut lines = Vec::new();
                for v in &pick {
                    let h = b.chain_head(*v);
                    if seen.insert(h) {
                        let mut chain: Vec<Vtx> = b.chain(*v).filter(|x| pick.contains(x)).collect();
                        chain.sort();
                        lines.push(chain.iter().map(|x| b.gtp(*x)).collect::<Vec<_>>().join(" "));
                    }
                }
                Ok(lines.join("\n"))
            }
            "time_settings" => {
                if a.len() < 3 {
                    return Err("syntax error".into());
                }
                let main: f64 = a[0].parse().map_err(|_| "syntax error")?;
                let byo: f64 = a[1].parse().map_err(|_| "syntax error")?;
                let stones: u32 = a[2].parse().map_err(|_| "syntax error")?;
                for c in &mut p.clocks {
                    *c = super::Clock {
                        main,
                        byo_time: byo,
                        byo_stones: stones,
                        left: None,
                        // GTP: byo-yomi time > 0 with 0 stones means no time limits.
                        on: !(byo > 0.0 && stones == 0),
                    };
                }
                Ok(String::new())
            }
            "kgs-time_settings" => {
                let kind = a.first().ok_or("syntax error")?.to_ascii_lowercase();
                let num = |i: usize| -> Result<f64, String> {
                    a.get(i)
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| "syntax error".to_string())
                };
                let clock = match kind.as_str() {
                    "none" => super::Clock::default(),
                    "absolute" => super::Clock {
                        main: num(1)?,
                        on: true,
                        ..Default::default()
                    },
                    "byoyomi" => super::Clock {
                        main: num(1)?,
                        byo_time: num(2)?,
                        byo_stones: 1,
                        on: true,
                        left: None,
                    },
                    "canadian" => super::Clock {
                        main: num(1)?,
                        byo_time: num(2)?,
                        byo_stones: num(3)? as u32,
                        on: true,
                        left: None,
                    },
                    _ => return Err("syntax error".into()),
                };
                p.clocks = [clock; 2];
                Ok(String::new())
            }
            "time_left" => {
                if a.len() < 3 {
                    return Err("syntax error".into());
                }
                let c = color_arg(Some(a[0]))?;
                let t: f64 = a[1].parse().map_err(|_| "syntax error")?;
                let s: u32 = a[2].parse().map_err(|_| "syntax error")?;
                let clock = &mut p.clocks[color_index(c)];
                clock.left = Some((t, s));
                clock.on = true;
                Ok(String::new())
            }
            "loadsgf" => {
                let file = a.first().ok_or("syntax error")?;
                let upto: Option<usize> = match a.get(1) {
                    Some(s) => Some(s.parse().map_err(|_| "syntax error")?),
                    None => None,
                };
                let bytes = std::fs::read(file).map_err(|_| "cannot load file".to_string())?;
                let sgf = Sgf::parse_bytes(bytes).map_err(|_| "cannot load file".to_string())?;
                let r = Replay::from_sgf(&sgf, 0, &[]).map_err(|_| "cannot load file".to_string())?;
                let (cols, rows) = r.info.size;
                if cols != rows || cols as usize > crate::go::fastboard::MAX_SIZE {
                    return Err("cannot load file".into());
                }
                p.clear(cols as usize)?;
                if let Some(k) = r.info.komi {
                    p.game.komi = k as f32;
                }
                // The setup, then the moves before `upto` (GTP: the position before move_number).
                let setup = &r.positions[0];
                for pt in setup.points().collect::<Vec<_>>() {
                    if let crate::go::board::Cell::Stone(c) = setup.get(pt) {
                        let v = p.game.board.vtx(pt);
                        p.game.place_setup(c, v).map_err(|_| "cannot load file".to_string())?;
                    }
                }
                let n = upto.map_or(r.moves.len(), |m| m.saturating_sub(1).min(r.moves.len()));
                for m in &r.moves[..n] {
                    let v = m.point.map_or(Vtx::PASS, |q| p.game.board.vtx(q));
                    if p.game.play(m.color, v).is_err() {
                        break;
                    }
                }
                let next = r.to_move[n.min(r.to_move.len() - 1)];
                Ok(match next {
                    Color::Black => "black".into(),
                    Color::White => "white".into(),
                })
            }
            "fixed_handicap" | "place_free_handicap" => {
                let n: usize = a.first().and_then(|s| s.parse().ok()).ok_or("syntax error")?;
                if p.game.board.empty_count() != p.game.board.cols() * p.game.board.rows() || !p.game.moves.is_empty() {
                    return Err("board not empty".into());
                }
                let size = p.game.board.cols();
                let pts = handicap_points(size, n).ok_or("invalid number of stones")?;
                let mut out = Vec::new();
                for pt in pts {
                    let v = p.game.board.vtx(pt);
                    p.game.place_setup(Color::Black, v).map_err(|e| e.to_string())?;
                    out.push(p.game.board.gtp(v));
                }
                Ok(out.join(" "))
            }
            "set_free_handicap" => {
                if p.game.board.empty_count() != p.game.board.cols() * p.game.board.rows() || !p.game.moves.is_empty() {
                    return Err("board not empty".into());
                }
                if a.len() < 2 {
                    return Err("bad vertex list".into());
                }
                let mut vs = Vec::new();
                for s in a {
                    let v = p.game.board.from_gtp(s).ok_or("bad vertex list")?;
                    if v.is_pass() || vs.contains(&v) {
                        return Err("bad vertex list".into());
                    }
                    vs.push(v);
                }
                if vs.len() >= p.game.board.empty_count() {
                    return Err("bad vertex list".into());
                }
                for v in vs {
                    p.game
                        .place_setup(Color::Black, v)
                        .map_err(|_| "bad vertex list".to_string())?;
                }
                Ok(String::new())
            }
            "gogui-analyze_commands" => Ok(ANALYZE.join("\n")),
            "ets-ownership" => {
                let color = p.game.to_move();
                let a = match &p.last {
                    Some(x) if !x.search.black_ownership.is_empty() && x.color == Some(color) => x.clone(),
                    _ => p.analyse(color, p.cfg.search.playouts.min(5000), None),
                };
                let b = &p.game.board;
                Ok(dboard(b, |v| 2.0 * a.search.black_ownership[v.0 as usize] - 1.0))
            }
            "ets-heatmap" => {
                let color = p.game.to_move();
                if let Some(pr) = p.predictor() {
                    // The ranker's probabilities (the predicted-move heat map), scaled to the largest.
                    let r = pr.rank(&p.game, color);
                    let max = r.first().map_or(1.0, |x| x.p).max(1e-9);
                    let b = &p.game.board;
                    return Ok(dboard(b, |v| {
                        r.iter().find(|x| x.mv == v).map_or(0.0, |x| (x.p / max) as f32)
                    }));
                }
                let a = match &p.last {
                    Some(x) if x.color == Some(color) && !x.search.moves.is_empty() => x.clone(),
                    _ => p.analyse(color, p.cfg.search.playouts.min(5000), None),
                };
                let total: f32 = a.search.moves.iter().map(|m| m.visits).sum::<f32>().max(1.0);
                let b = &p.game.board;
                Ok(dboard(b, |v| {
                    a.search
                        .moves
                        .iter()
                        .find(|m| m.mv == v)
                        .map_or(0.0, |m| m.visits / total)
                }))
            }
            "ets-candidates" => {
                let color = p.game.to_move();
                let props = p.proposals(color);
                let b = &p.game.board;
                let mut lines = Vec::new();
                let mut text = Vec::new();
                for (i, (src, pr)) in props.iter().enumerate() {
                    lines.push(format!("LABEL {} {}", b.gtp(pr.mv), i + 1));
                    text.push(format!(
                        "{}:{} {} ({:.2}) {}",
                        i + 1,
                        src,
                        b.gtp(pr.mv),
                        pr.weight,
                        pr.reason
                    ));
                }
                if text.is_empty() {
                    text.push("no candidates (the class component is off, or nothing is proposed)".into());
                }
                lines.push(format!("TEXT {}", text.join(" | ")));
                Ok(lines.join("\n"))
            }
            "ets-elements" | "ets-elements-list" => {
                let level: u32 = a.first().and_then(|s| s.parse().ok()).unwrap_or(1);
                let owned;
                let setting = match p.class_source() {
                    Some(c) => c.setting(),
                    None => {
                        owned = super::components::ClassCandidates::new(1)?;
                        owned.setting()
                    }
                };
                let els = elements_of(setting, &p.game)?;
                let els: Vec<_> = els.into_iter().filter(|e| e.level == level).collect();
                let rows = p.game.board.rows() as u8;
                if cmd == "ets-elements-list" {
                    return Ok(els
                        .iter()
                        .map(|e| {
                            let vs: Vec<String> = e.vertices.iter().map(|v| v.gtp(rows)).collect();
                            format!("{} {}", e.class, vs.join(" "))
                        })
                        .collect::<Vec<_>>()
                        .join("\n"));
                }
                // Each vertex labelled with the number of elements holding it; the classes counted.
                let mut per: std::collections::BTreeMap<String, usize> = Default::default();
                let mut classes: std::collections::BTreeMap<&str, usize> = Default::default();
                for e in &els {
                    *classes.entry(e.class.as_str()).or_default() += 1;
                    for v in &e.vertices {
                        *per.entry(v.gtp(rows)).or_default() += 1;
                    }
                }
                let mut lines: Vec<String> = per.iter().map(|(v, n)| format!("LABEL {v} {n}")).collect();
                let summary: Vec<String> = classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
                lines.push(format!("TEXT level {level}: {}", summary.join(", ")));
                Ok(lines.join("\n"))
            }
            "ets-pv" => {
                let Some(a) = &p.last else { return Ok(String::new()) };
                let mut c = a.color.unwrap_or(Color::Black);
                let mut parts = Vec::new();
                for v in &a.search.pv {
                    parts.push(format!("{} {}", color_letter(c), p.game.board.gtp(*v)));
                    c = c.other();
                }
                Ok(parts.join(" "))
            }
            "ets-settings" => Ok(p.cfg.to_toml()),
            "ets-learn" => {
                // `ets-learn RESULT`: the game just played ended with this SGF result (sent by
                // `ets arena`); with learning on, the knowledge components learn from it.
                let result = a
                    .first()
                    .ok_or("ets-learn needs the game's result (SGF RE, e.g. B+R)")?;
                p.learn(result)
            }
            _ => Err("unknown command".into()),
        }
    }
}

/// A GoGui `dboard`: one row per board row from the top, values separated by spaces.
fn dboard(b: &crate::go::fastboard::FastBoard, f: impl Fn(Vtx) -> f32) -> String {
    let mut rows = Vec::new();
    for r in 0..b.rows() {
        let row: Vec<String> = (0..b.cols())
            .map(|c| {
                let v = b.vtx(Point {
                    col: c as u8,
                    row: r as u8,
                });
                format!("{:.3}", f(v))
            })
            .collect();
        rows.push(row.join(" "));
    }
    format!("\n{}", rows.join("\n"))
}
