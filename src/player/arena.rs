//! The arena (thesis §5.3.4, "the strength of the proposed program should be tested … against
//! other programs"): matches between GTP engines — ets with any settings, GNU Go at any level,
//! any command line.
//!
//! Colours alternate within each pair of engines; games run in parallel (each game its own engine
//! processes); a referee ([`FastBoard`], simple ko, suicide illegal) checks every move: an illegal
//! move, an engine that crashes, answers nonsense or exceeds its time-out loses the game. After two
//! passes the game is scored: when both engines' `final_score` name the same winner, by agreement;
//! otherwise by area (Tromp–Taylor) with the dead stones the scoring engine's
//! `final_status_list dead` names (the scorer: the engine flagged so, else the first whose command
//! names GNU Go, else the first engine). A game that reaches the move limit is scored by area the
//! same way. Each game is saved as SGF with its result and how it ended, and recorded in an SQLite
//! store (table `arena_games`, `docs/formats.md`), so an interrupted arena resumes where it
//! stopped; the ratings table (Bradley–Terry, [`super::ratings`]) covers every engine the store has
//! seen.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::go::board::{Color, Point};
use crate::go::fastboard::{FastBoard, Rules, Vtx};

use super::ratings::{Outcome, bradley_terry, wilson};

/// An engine of the arena: a name and a command line (run by `sh -c`; a leading `ets` is this
/// executable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name in tables and SGF files.
    pub name: String,
    /// The command line.
    pub command: String,
}

impl EngineSpec {
    /// Parses `NAME=COMMAND`, or a bare command (named by its program and arguments).
    pub fn parse(s: &str) -> EngineSpec {
        if let Some((n, c)) = s.split_once('=')
            && !n.contains(' ')
            && !n.is_empty()
        {
            return EngineSpec {
                name: n.to_string(),
                command: c.trim().to_string(),
            };
        }
        let name: String = s.split_whitespace().collect::<Vec<_>>().join("_");
        EngineSpec {
            name,
            command: s.trim().to_string(),
        }
    }
}

/// Arena settings.
#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// The engines (two or more; every pair plays).
    pub engines: Vec<EngineSpec>,
    /// Games per pair.
    pub games: usize,
    /// Board size.
    pub size: usize,
    /// Komi.
    pub komi: f32,
    /// Seconds per move given to the engines (`time_settings 0 T 1`), if any.
    pub time_per_move: Option<f64>,
    /// Games played at once.
    pub parallel: usize,
    /// Moves before a game is stopped and scored.
    pub max_moves: usize,
    /// Where the SGF files go.
    pub out: PathBuf,
    /// The store (SQLite).
    pub store: PathBuf,
    /// The arena's name in the store (games of the same name are resumed).
    pub name: String,
    /// The engine whose `final_status_list dead` scores disagreements (index).
    pub scorer: Option<usize>,
    /// Seconds an engine may take for one answer before it loses (default: 10 × the move time,
    /// at least 60).
    pub timeout: Option<f64>,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Two passes; both engines' `final_score` agreed on the winner.
    Agreement,
    /// Two passes; area scoring with the scorer's dead stones.
    Area,
    /// A resignation.
    Resign,
    /// An illegal move (the referee refused it).
    Illegal,
    /// An engine crashed, answered an error or nonsense, or refused a legal move.
    Crash,
    /// An engine exceeded the time-out.
    Timeout,
    /// The move limit; area scoring.
    MoveLimit,
}

impl Ending {
    /// Its name in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Agreement => "score-agreement",
            Ending::Area => "score-area",
            Ending::Resign => "resign",
            Ending::Illegal => "illegal",
            Ending::Crash => "crash",
            Ending::Timeout => "timeout",
            Ending::MoveLimit => "move-limit",
        }
    }
}

/// A finished game.
#[derive(Debug, Clone)]
pub struct GameResult {
    /// Game number in the arena.
    pub game: usize,
    /// Black's engine (index).
    pub black: usize,
    /// White's engine (index).
    pub white: usize,
    /// The winner (None: a draw).
    pub winner: Option<Color>,
    /// SGF `RE`.
    pub result: String,
    /// How it ended.
    pub ending: Ending,
    /// Details (which engine, what it said).
    pub detail: String,
    /// Moves played.
    pub moves: usize,
    /// The SGF file.
    pub sgf: PathBuf,
    /// Wall seconds.
    pub seconds: f64,
    /// What each ets engine said it learned from the game (`ets-learn`).
    pub learned: Vec<String>,
}

enum Line {
    Text(String),
    Eof,
}

/// A running GTP engine.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Line>,
    /// The engine's name.
    pub name: String,
}

/// Why an engine failed to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// It ended or closed its output.
    Crash(String),
    /// It did not answer in time.
    Timeout,
    /// It answered with a GTP failure.
    Failure(String),
}

impl Engine {
    /// Starts `spec` (a leading `ets` is this executable).
    pub fn start(spec: &EngineSpec) -> Result<Engine, String> {
        let mut cmd = spec.command.clone();
        if cmd == "ets" || cmd.starts_with("ets ") {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            cmd = format!("'{}'{}", exe.display(), &cmd[3..]);
        }
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {cmd}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", spec.name))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Line::Text(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(Line::Eof);
        });
        Ok(Engine {
            child,
            stdin,
            rx,
            name: spec.name.clone(),
        })
    }

    /// Sends a command and waits for its answer (the text after `=`).
    pub fn send(&mut self, cmd: &str, timeout: Duration) -> Result<String, EngineError> {
        writeln!(self.stdin, "{cmd}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| EngineError::Crash(format!("writing `{cmd}`: {e}")))?;
        let deadline = Instant::now() + timeout;
        let mut lines: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Line::Text(l)) => {
                    let l = l.trim_end_matches('\r').to_string();
                    if l.trim().is_empty() {
                        if lines.is_empty() {
                            continue;
                        }
                        break;
                    }
                    lines.push(l);
                }
                Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(EngineError::Crash(format!("ended while answering `{cmd}`")));
                }
                Err(RecvTimeoutError::Timeout) => return Err(EngineError::Timeout),
            }
        }
        let first = &lines[0];
        let body = |s: &str| -> String {
            let rest = s[1..].trim_start_matches(|c: char| c.is_ascii_digit());
            let mut out = rest.trim().to_string();
            for l in &lines[1..] {
                out.push('\n');
                out.push_str(l);
            }
            out
        };
        if first.starts_with('=') {
            Ok(body(first))
        } else if first.starts_with('?') {
            Err(EngineError::Failure(body(first)))
        } else {
            Err(EngineError::Crash(format!("not a GTP answer to `{cmd}`: {first}")))
        }
    }

    /// Asks the engine to quit, then makes sure it has ended.
    pub fn stop(mut self) {
        let _ = self.send("quit", Duration::from_secs(2));
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses `B+3.5`, `W+R`, `0`, … into the winner (None: draw); None when unreadable.
pub fn parse_score(s: &str) -> Option<Option<Color>> {
    let s = s.trim();
    if s == "0" || s.eq_ignore_ascii_case("draw") {
        return Some(None);
    }
    let (c, rest) = s.split_at_checked(2)?;
    let color = match c.to_ascii_uppercase().as_str() {
        "B+" => Color::Black,
        "W+" => Color::White,
        _ => return None,
    };
    if rest.is_empty() || rest.parse::<f64>().is_ok() || rest.starts_with('R') || rest.starts_with('T') {
        Some(Some(color))
    } else {
        None
    }
}

fn sgf_point(p: Point) -> String {
    format!("{}{}", (b'a' + p.col) as char, (b'a' + p.row) as char)
}

fn sgf_text(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// Writes a game as SGF.
#[allow(clippy::too_many_arguments)]
fn write_sgf(
    path: &Path,
    size: usize,
    komi: f32,
    black: &str,
    white: &str,
    result: &str,
    comment: &str,
    board: &FastBoard,
    moves: &[(Color, Vtx)],
) -> std::io::Result<()> {
    let mut s = format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[ets arena:{}]SZ[{size}]KM[{komi}]RU[Chinese]PB[{}]PW[{}]RE[{}]C[{}]",
        env!("CARGO_PKG_VERSION"),
        sgf_text(black),
        sgf_text(white),
        sgf_text(result),
        sgf_text(comment)
    );
    for &(c, v) in moves {
        let p = board.point(v).map(sgf_point).unwrap_or_default();
        s.push_str(&format!("\n;{}[{p}]", c.letter()));
    }
    s.push_str(")\n");
    std::fs::write(path, s)
}

/// The migrations of component `arena` in the store (`src/store`): the table `arena_games`,
/// one row per finished game (schema in `docs/formats.md`). An older arena file that already holds
/// the table (made before the arena joined the store) is adopted as it is.
pub const MIGRATIONS: &[crate::store::Migration] = &[crate::store::Migration {
    component: "arena",
    version: 1,
    description: "arena games: one row per finished game (resume, ratings, learning curve)",
    sqlite: "CREATE TABLE IF NOT EXISTS arena_games (
                arena TEXT NOT NULL,
                game INTEGER NOT NULL,
                black TEXT NOT NULL,
                white TEXT NOT NULL,
                black_command TEXT NOT NULL,
                white_command TEXT NOT NULL,
                size INTEGER NOT NULL,
                komi REAL NOT NULL,
                time_per_move REAL,
                winner TEXT,
                result TEXT NOT NULL,
                reason TEXT NOT NULL,
                detail TEXT NOT NULL,
                moves INTEGER NOT NULL,
                sgf TEXT NOT NULL,
                seconds REAL NOT NULL,
                finished TEXT NOT NULL,
                PRIMARY KEY (arena, game));",
    postgres: Some(
        "CREATE TABLE IF NOT EXISTS arena_games (
                arena TEXT NOT NULL,
                game BIGINT NOT NULL,
                black TEXT NOT NULL,
                white TEXT NOT NULL,
                black_command TEXT NOT NULL,
                white_command TEXT NOT NULL,
                size BIGINT NOT NULL,
                komi DOUBLE PRECISION NOT NULL,
                time_per_move DOUBLE PRECISION,
                winner TEXT,
                result TEXT NOT NULL,
                reason TEXT NOT NULL,
                detail TEXT NOT NULL,
                moves BIGINT NOT NULL,
                sgf TEXT NOT NULL,
                seconds DOUBLE PRECISION NOT NULL,
                finished TEXT NOT NULL,
                PRIMARY KEY (arena, game));",
    ),
}];

/// The arena's results in the store (`src/store`, component `arena`): the same file may hold the
/// knowledge the players read and feed (Forme_K, the ranker, the ACADEMY, Gomi).
pub struct Store {
    store: crate::store::Store,
}

/// A game row of the store.
#[derive(Debug, Clone)]
pub struct Row {
    /// Arena name.
    pub arena: String,
    /// Game number.
    pub game: usize,
    /// Black's engine name.
    pub black: String,
    /// White's engine name.
    pub white: String,
    /// `B`, `W`, or None (draw).
    pub winner: Option<String>,
    /// How it ended.
    pub reason: String,
}

fn text(v: &crate::store::Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

impl Store {
    /// Opens (creating) the store and brings the arena's table.
    pub fn open(path: &Path) -> Result<Store, String> {
        if let Some(d) = path.parent()
            && !d.as_os_str().is_empty()
        {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        let mut store =
            crate::store::Store::open(&path.to_string_lossy()).map_err(|e| format!("{}: {e}", path.display()))?;
        store
            .migrate(MIGRATIONS)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Store { store })
    }

    /// Game numbers already finished in arena `name`.
    pub fn done(&mut self, name: &str) -> Result<Vec<usize>, String> {
        let rows = self
            .store
            .rows(
                "SELECT game FROM arena_games WHERE arena = ?1 ORDER BY game",
                &[name.into()],
            )
            .map_err(|e| e.to_string())?;
        Ok(rows.iter().filter_map(|r| r[0].as_i64().map(|g| g as usize)).collect())
    }

    /// Records a finished game (one transaction).
    pub fn record(&mut self, cfg: &ArenaConfig, g: &GameResult) -> Result<(), String> {
        use crate::store::Value;
        let b = &cfg.engines[g.black];
        let w = &cfg.engines[g.white];
        let params: Vec<Value> = vec![
            cfg.name.as_str().into(),
            (g.game as i64).into(),
            b.name.as_str().into(),
            w.name.as_str().into(),
            b.command.as_str().into(),
            w.command.as_str().into(),
            (cfg.size as i64).into(),
            (cfg.komi as f64).into(),
            cfg.time_per_move.map_or(Value::Null, Value::Real),
            g.winner.map_or(Value::Null, |c| c.letter().to_string().into()),
            g.result.as_str().into(),
            g.ending.as_str().into(),
            g.detail.as_str().into(),
            (g.moves as i64).into(),
            g.sgf.display().to_string().into(),
            g.seconds.into(),
            crate::store::now().into(),
        ];
        self.store
            .transaction(|s| {
                s.execute("DELETE FROM arena_games WHERE arena = ?1 AND game = ?2", &params[..2])?;
                s.execute(
                    "INSERT INTO arena_games
                     (arena, game, black, white, black_command, white_command, size, komi, time_per_move,
                      winner, result, reason, detail, moves, sgf, seconds, finished)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                    &params,
                )
            })
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Every game of the store (all arenas), or of one arena, in order.
    pub fn rows(&mut self, arena: Option<&str>) -> Result<Vec<Row>, String> {
        let (sql, params): (&str, Vec<crate::store::Value>) = match arena {
            Some(a) => (
                "SELECT arena, game, black, white, winner, reason FROM arena_games
                 WHERE arena = ?1 ORDER BY arena, game",
                vec![a.into()],
            ),
            None => (
                "SELECT arena, game, black, white, winner, reason FROM arena_games ORDER BY arena, game",
                vec![],
            ),
        };
        let rows = self.store.rows(sql, &params).map_err(|e| e.to_string())?;
        Ok(rows
            .iter()
            .map(|r| Row {
                arena: text(&r[0]),
                game: r[1].as_i64().unwrap_or(0) as usize,
                black: text(&r[2]),
                white: text(&r[3]),
                winner: r[4].as_str().map(str::to_string),
                reason: text(&r[5]),
            })
            .collect())
    }
}

/// The schedule: game number → (black, white). Pairs in order; colours alternate within a pair.
pub fn schedule(cfg: &ArenaConfig) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let n = cfg.engines.len();
    let mut k = 0;
    for i in 0..n {
        for j in i + 1..n {
            for g in 0..cfg.games {
                let (b, w) = if g % 2 == 0 { (i, j) } else { (j, i) };
                out.push((k, b, w));
                k += 1;
            }
        }
    }
    out
}

fn scorer_of(cfg: &ArenaConfig) -> usize {
    cfg.scorer.unwrap_or_else(|| {
        cfg.engines
            .iter()
            .position(|e| e.command.contains("gnugo"))
            .unwrap_or(0)
    })
}

/// Plays one game; then every engine that knows `ets-learn` is told the result (an ets player
/// with learning on feeds its knowledge from the game), and the engines are stopped.
pub fn play_game(cfg: &ArenaConfig, game: usize, black: usize, white: usize) -> GameResult {
    let mut engines: Vec<Engine> = Vec::new();
    let mut r = play_moves(cfg, game, black, white, &mut engines);
    let t = Duration::from_secs(300);
    for (k, mut e) in engines.into_iter().enumerate() {
        let known = e
            .send("known_command ets-learn", Duration::from_secs(10))
            .is_ok_and(|a| a.trim() == "true");
        if known {
            let name = &cfg.engines[if k == 0 { black } else { white }].name;
            match e.send(&format!("ets-learn {}", r.result), t) {
                Ok(said) => r.learned.push(format!("{name}: {}", said.trim())),
                Err(err) => r.learned.push(format!("{name}: learning failed: {err:?}")),
            }
        }
        e.stop();
    }
    r
}

/// The random seed given to the engine playing side `k` (0 Black, 1 White) in game `game`.
pub fn game_seed(game: usize, k: usize) -> u64 {
    1 + 2 * game as u64 + k as u64
}

/// Plays one game's moves and scores it; the engines started are left in `engines` (black's
/// first), running.
fn play_moves(cfg: &ArenaConfig, game: usize, black: usize, white: usize, engines: &mut Vec<Engine>) -> GameResult {
    let start = Instant::now();
    let specs = [&cfg.engines[black], &cfg.engines[white]];
    let sgf = cfg.out.join(format!("game-{game:04}.sgf"));
    let timeout = Duration::from_secs_f64(
        cfg.timeout
            .unwrap_or_else(|| cfg.time_per_move.map_or(60.0, |t| (10.0 * t).max(60.0))),
    );
    let setup_timeout = Duration::from_secs(60);
    let mut board = FastBoard::with_rules(cfg.size, cfg.size, Rules::default()).expect("arena board size checked");
    let mut moves: Vec<(Color, Vtx)> = Vec::new();
    let finish = |winner: Option<Color>,
                  result: String,
                  ending: Ending,
                  detail: String,
                  moves: &[(Color, Vtx)],
                  board: &FastBoard| {
        let comment = format!("{} {}", ending.as_str(), detail);
        let _ = write_sgf(
            &sgf,
            cfg.size,
            cfg.komi,
            &specs[0].name,
            &specs[1].name,
            &result,
            &comment,
            board,
            moves,
        );
        GameResult {
            game,
            black,
            white,
            winner,
            result,
            ending,
            detail,
            moves: moves.len(),
            sgf: sgf.clone(),
            seconds: start.elapsed().as_secs_f64(),
            learned: Vec::new(),
        }
    };
    // Start and set up both engines; a failure loses the game for that engine.
    for (k, spec) in specs.iter().enumerate() {
        let loser = if k == 0 { Color::Black } else { Color::White };
        let fail = |msg: String| {
            (
                Some(loser.other()),
                format!("{}+F", loser.other().letter()),
                Ending::Crash,
                format!("{}: {msg}", spec.name),
            )
        };
        let mut e = match Engine::start(spec) {
            Ok(e) => e,
            Err(m) => {
                let (w, r, end, d) = fail(m);
                return finish(w, r, end, d, &moves, &board);
            }
        };
        let mut cmds = vec![
            format!("boardsize {}", cfg.size),
            "clear_board".to_string(),
            format!("komi {}", cfg.komi),
        ];
        if let Some(t) = cfg.time_per_move {
            cmds.push(format!("time_settings 0 {} 1", t.ceil() as u64));
        }
        // A seed of its own for each game and side, for engines that take one (GNU Go's
        // `set_random_seed`; `ets gtp` knows it too): deterministic engines would otherwise play
        // the same game whenever they meet with the same colours. Fixed by the game's number, so
        // that a resumed arena plays what it would have played.
        if e.send("known_command set_random_seed", setup_timeout)
            .is_ok_and(|a| a.trim() == "true")
        {
            cmds.push(format!("set_random_seed {}", game_seed(game, k)));
        }
        for c in cmds {
            if let Err(err) = e.send(&c, setup_timeout) {
                engines.push(e);
                let (w, r, end, d) = fail(format!("`{c}`: {err:?}"));
                return finish(w, r, end, d, &moves, &board);
            }
        }
        engines.push(e);
    }
    let mut color = Color::Black;
    let mut passes = 0;
    let max = cfg.max_moves;
    while moves.len() < max {
        let me = if color == Color::Black { 0 } else { 1 };
        let answer = engines[me].send(&format!("genmove {}", color.letter().to_lowercase()), timeout);
        let lose = |ending: Ending, detail: String| {
            (
                Some(color.other()),
                format!(
                    "{}+{}",
                    color.other().letter(),
                    if ending == Ending::Timeout { "T" } else { "F" }
                ),
                ending,
                detail,
            )
        };
        let v = match answer {
            Err(EngineError::Timeout) => {
                let (w, r, e, d) = lose(
                    Ending::Timeout,
                    format!("{} took longer than {:?}", specs[me].name, timeout),
                );
                return finish(w, r, e, d, &moves, &board);
            }
            Err(err) => {
                let (w, r, e, d) = lose(Ending::Crash, format!("{}: {err:?}", specs[me].name));
                return finish(w, r, e, d, &moves, &board);
            }
            Ok(a) => {
                let a = a.trim().to_string();
                if a.eq_ignore_ascii_case("resign") {
                    return finish(
                        Some(color.other()),
                        format!("{}+R", color.other().letter()),
                        Ending::Resign,
                        format!("{} resigned", specs[me].name),
                        &moves,
                        &board,
                    );
                }
                match board.from_gtp(&a) {
                    Some(v) => v,
                    None => {
                        let (w, r, e, d) = lose(Ending::Illegal, format!("{} answered `{a}`", specs[me].name));
                        return finish(w, r, e, d, &moves, &board);
                    }
                }
            }
        };
        if let Err(why) = board.play(color, v) {
            let (w, r, e, d) = lose(
                Ending::Illegal,
                format!("{} played {} ({why})", specs[me].name, board.gtp(v)),
            );
            moves.push((color, v));
            return finish(w, r, e, d, &moves, &board);
        }
        moves.push((color, v));
        let other = 1 - me;
        let cmd = format!("play {} {}", color.letter().to_lowercase(), board.gtp(v));
        if let Err(err) = engines[other].send(&cmd, setup_timeout) {
            // The other engine refused a legal move or died: it loses.
            let winner = color;
            return finish(
                Some(winner),
                format!("{}+F", winner.letter()),
                Ending::Crash,
                format!("{}: `{cmd}`: {err:?}", specs[other].name),
                &moves,
                &board,
            );
        }
        passes = if v.is_pass() { passes + 1 } else { 0 };
        if passes >= 2 {
            break;
        }
        color = color.other();
    }
    // Scoring.
    let scorer = scorer_of(cfg);
    let si = if scorer == black {
        Some(0)
    } else if scorer == white {
        Some(1)
    } else {
        None
    };
    let mut dead: Vec<Vtx> = Vec::new();
    let dead_engine = si.unwrap_or(1);
    if let Ok(list) = engines[dead_engine].send("final_status_list dead", setup_timeout) {
        for w in list.split_whitespace() {
            if let Some(v) = board.from_gtp(w)
                && board.color_at(v).is_some()
            {
                dead.push(v);
            }
        }
    }
    let area = board.area_score(cfg.komi, &dead);
    let area_winner = if area > 0.0 {
        Some(Color::Black)
    } else if area < 0.0 {
        Some(Color::White)
    } else {
        None
    };
    let fmt_area = |s: f32| {
        if s > 0.0 {
            format!("B+{s}")
        } else if s < 0.0 {
            format!("W+{}", -s)
        } else {
            "0".to_string()
        }
    };
    let ended_by_limit = passes < 2;
    let mut said: Vec<Option<(Option<Color>, String)>> = Vec::new();
    if !ended_by_limit {
        for e in engines.iter_mut() {
            said.push(
                e.send("final_score", setup_timeout)
                    .ok()
                    .and_then(|s| parse_score(&s).map(|w| (w, s.trim().to_string()))),
            );
        }
    }
    if ended_by_limit {
        return finish(
            area_winner,
            fmt_area(area),
            Ending::MoveLimit,
            format!("{} moves; area with {} dead stones", max, dead.len()),
            &moves,
            &board,
        );
    }
    match (&said[0], &said[1]) {
        (Some((wa, sa)), Some((wb, sb))) if wa == wb => {
            let shown = if si == Some(1) { sb.clone() } else { sa.clone() };
            finish(
                *wa,
                shown,
                Ending::Agreement,
                format!(
                    "final_score: {} `{sa}`, {} `{sb}`; area {}",
                    specs[0].name,
                    specs[1].name,
                    fmt_area(area)
                ),
                &moves,
                &board,
            )
        }
        _ => finish(
            area_winner,
            fmt_area(area),
            Ending::Area,
            format!(
                "final_score: {:?} / {:?}; area with {} dead stones from {}",
                said[0].as_ref().map(|x| &x.1),
                said[1].as_ref().map(|x| &x.1),
                dead.len(),
                specs[dead_engine].name
            ),
            &moves,
            &board,
        ),
    }
}

/// Runs the arena: the games not yet in the store, `parallel` at a time; `on_game` is called on
/// the calling thread after each game is stored.
pub fn run(cfg: &ArenaConfig, mut on_game: impl FnMut(&GameResult, &[usize])) -> Result<Vec<GameResult>, String> {
    if cfg.engines.len() < 2 {
        return Err("an arena needs at least two engines".into());
    }
    if cfg.size == 0 || cfg.size > crate::go::fastboard::MAX_SIZE {
        return Err(format!("unsupported board size {}", cfg.size));
    }
    std::fs::create_dir_all(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    let mut store = Store::open(&cfg.store)?;
    let done = store.done(&cfg.name)?;
    let todo: VecDeque<(usize, usize, usize)> = schedule(cfg)
        .into_iter()
        .filter(|(g, _, _)| !done.contains(g))
        .collect();
    let queue = Arc::new(Mutex::new(todo));
    let (tx, rx) = channel::<GameResult>();
    let mut results = Vec::new();
    std::thread::scope(|s| {
        for _ in 0..cfg.parallel.max(1) {
            let queue = queue.clone();
            let tx = tx.clone();
            s.spawn(move || {
                loop {
                    let next = queue.lock().expect("queue").pop_front();
                    let Some((g, b, w)) = next else { break };
                    if tx.send(play_game(cfg, g, b, w)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut stored: Vec<usize> = done.clone();
        for r in rx {
            if let Err(e) = store.record(cfg, &r) {
                eprintln!("warning: game {} not stored: {e}", r.game);
            }
            stored.push(r.game);
            on_game(&r, &stored);
            results.push(r);
        }
    });
    Ok(results)
}

/// One line of the ratings table.
#[derive(Debug, Clone)]
pub struct TableRow {
    /// Engine name.
    pub name: String,
    /// The rating.
    pub rating: super::ratings::Rating,
}

/// The ratings of every engine in `rows` (anchored at `anchor` when present, else the first).
pub fn ratings(rows: &[Row], anchor: Option<&str>) -> Vec<TableRow> {
    let mut names: Vec<String> = Vec::new();
    let idx = |n: &str, names: &mut Vec<String>| -> usize {
        match names.iter().position(|x| x == n) {
            Some(i) => i,
            None => {
                names.push(n.to_string());
                names.len() - 1
            }
        }
    };
    let mut games = Vec::new();
    for r in rows {
        let (b, w) = (idx(&r.black, &mut names), idx(&r.white, &mut names));
        let score = match r.winner.as_deref() {
            Some("B") => 1.0,
            Some("W") => 0.0,
            _ => 0.5,
        };
        games.push(Outcome { a: b, b: w, score });
    }
    let a = anchor.and_then(|n| names.iter().position(|x| x == n)).unwrap_or(0);
    if names.is_empty() {
        return Vec::new();
    }
    let rs = bradley_terry(names.len(), &games, a);
    let mut out: Vec<TableRow> = names
        .into_iter()
        .zip(rs)
        .map(|(name, rating)| TableRow { name, rating })
        .collect();
    out.sort_by(|x, y| y.rating.elo.total_cmp(&x.rating.elo));
    out
}

/// Per ordered pair (engine, opponent): points, games.
pub fn pair_scores(rows: &[Row]) -> BTreeMap<(String, String), (f64, usize)> {
    let mut m: BTreeMap<(String, String), (f64, usize)> = BTreeMap::new();
    for r in rows {
        let s = match r.winner.as_deref() {
            Some("B") => 1.0,
            Some("W") => 0.0,
            _ => 0.5,
        };
        let e = m.entry((r.black.clone(), r.white.clone())).or_default();
        e.0 += s;
        e.1 += 1;
        let e = m.entry((r.white.clone(), r.black.clone())).or_default();
        e.0 += 1.0 - s;
        e.1 += 1;
    }
    m
}

/// The summary printed at the end: per pair the win rate with its 95% interval, how games ended,
/// and the ratings table.
pub fn summary(rows: &[Row], anchor: Option<&str>) -> String {
    let mut s = String::new();
    let pairs = pair_scores(rows);
    s.push_str("pair                                        score      win rate  95% interval\n");
    for ((a, b), (pts, n)) in &pairs {
        if a < b {
            let (p, lo, hi) = wilson(*pts, *n);
            s.push_str(&format!(
                "{:<20} vs {:<20} {:>5.1}/{:<4} {:>6.1}%  [{:.1}%, {:.1}%]\n",
                a,
                b,
                pts,
                n,
                100.0 * p,
                100.0 * lo,
                100.0 * hi
            ));
        }
    }
    let mut endings: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows {
        *endings.entry(r.reason.as_str()).or_default() += 1;
    }
    s.push_str(&format!(
        "endings: {}\n",
        endings
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    s.push_str("ratings (Bradley-Terry, Elo scale, 95% interval)\n");
    for r in ratings(rows, anchor) {
        s.push_str(&format!(
            "  {:<28} {:>7.0} ± {:<5.0} games {:<5} score {}\n",
            r.name, r.rating.elo, r.rating.ci95, r.rating.games, r.rating.score
        ));
    }
    s
}

/// The learning curve of `engine` in `rows` (in game order): its win rate per block of `block`
/// games, with the 95% interval.
pub fn learning_curve(rows: &[Row], engine: &str, block: usize) -> Vec<(usize, f64, f64, f64)> {
    let mine: Vec<f64> = rows
        .iter()
        .filter(|r| r.black == engine || r.white == engine)
        .map(|r| {
            let black = r.black == engine;
            match r.winner.as_deref() {
                Some("B") => black as u8 as f64,
                Some("W") => (!black) as u8 as f64,
                _ => 0.5,
            }
        })
        .collect();
    mine.chunks(block.max(1))
        .enumerate()
        .map(|(i, c)| {
            let (p, lo, hi) = wilson(c.iter().sum(), c.len());
            ((i + 1) * block.max(1), p, lo, hi)
        })
        .collect()
}

/// The learning curve as an SVG plot (win rate per block, with its interval as a band).
pub fn curve_svg(curve: &[(usize, f64, f64, f64)], title: &str) -> String {
    let (w, h, m) = (640.0, 360.0, 48.0);
    let n = curve.last().map_or(1, |c| c.0).max(1) as f64;
    let x = |g: f64| m + (w - 2.0 * m) * g / n;
    let y = |p: f64| h - m - (h - 2.0 * m) * p;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{}\" y=\"20\" text-anchor=\"middle\">{}</text>\n",
        w / 2.0,
        title.replace('&', "&amp;").replace('<', "&lt;")
    );
    s.push_str(&format!(
        "<line x1=\"{m}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<line x1=\"{m}\" y1=\"{m}\" x2=\"{m}\" y2=\"{}\" stroke=\"black\"/>\n",
        h - m,
        w - m,
        h - m,
        h - m
    ));
    for k in 0..=4 {
        let p = k as f64 / 4.0;
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}%</text><line x1=\"{m}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ddd\"/>\n",
            m - 4.0,
            y(p) + 4.0,
            (p * 100.0) as u32,
            y(p),
            w - m,
            y(p)
        ));
    }
    if !curve.is_empty() {
        let mut band: Vec<String> = curve
            .iter()
            .map(|c| format!("{:.1},{:.1}", x(c.0 as f64), y(c.3)))
            .collect();
        band.extend(
            curve
                .iter()
                .rev()
                .map(|c| format!("{:.1},{:.1}", x(c.0 as f64), y(c.2))),
        );
        s.push_str(&format!(
            "<polygon points=\"{}\" fill=\"#cde\" stroke=\"none\"/>\n",
            band.join(" ")
        ));
        let line: Vec<String> = curve
            .iter()
            .map(|c| format!("{:.1},{:.1}", x(c.0 as f64), y(c.1)))
            .collect();
        s.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#236\" stroke-width=\"2\"/>\n",
            line.join(" ")
        ));
        for c in curve {
            s.push_str(&format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#236\"/>\n",
                x(c.0 as f64),
                y(c.1)
            ));
        }
    }
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">games</text>\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n</svg>\n",
        w / 2.0,
        h - 12.0,
        w - m,
        h - m + 16.0,
        n as usize
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_parse() {
        assert_eq!(parse_score("B+3.5"), Some(Some(Color::Black)));
        assert_eq!(parse_score("W+R"), Some(Some(Color::White)));
        assert_eq!(parse_score("0"), Some(None));
        assert_eq!(parse_score("hello"), None);
    }

    #[test]
    fn schedule_alternates_colours() {
        let cfg = ArenaConfig {
            engines: vec![
                EngineSpec::parse("a=x"),
                EngineSpec::parse("b=y"),
                EngineSpec::parse("c=z"),
            ],
            games: 4,
            size: 9,
            komi: 7.0,
            time_per_move: None,
            parallel: 1,
            max_moves: 10,
            out: PathBuf::from("/tmp"),
            store: PathBuf::from("/tmp/x.sqlite"),
            name: "t".into(),
            scorer: None,
            timeout: None,
        };
        let s = schedule(&cfg);
        assert_eq!(s.len(), 12);
        let ab: Vec<_> = s
            .iter()
            .filter(|g| (g.1 == 0 && g.2 == 1) || (g.1 == 1 && g.2 == 0))
            .collect();
        assert_eq!(ab.iter().filter(|g| g.1 == 0).count(), 2);
        assert_eq!(ab.iter().filter(|g| g.1 == 1).count(), 2);
        assert_eq!(EngineSpec::parse("gnugo --mode gtp").name, "gnugo_--mode_gtp");
    }

    #[test]
    fn learning_curve_blocks() {
        let rows: Vec<Row> = (0..10)
            .map(|i| Row {
                arena: "a".into(),
                game: i,
                black: if i % 2 == 0 { "e".into() } else { "g".into() },
                white: if i % 2 == 0 { "g".into() } else { "e".into() },
                winner: Some(if i < 5 { "W".into() } else { "B".into() }),
                reason: "resign".into(),
            })
            .collect();
        let c = learning_curve(&rows, "e", 5);
        assert_eq!(c.len(), 2);
        // Games 0–4: e is black in 0, 2, 4 (lost), white in 1, 3 (won): 2 of 5.
        assert!((c[0].1 - 0.4).abs() < 1e-9);
        assert!(curve_svg(&c, "e").contains("<polyline"));
    }
}
