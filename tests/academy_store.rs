//! The ACADEMY as a place that competing players share (seed `000_…`; issue 19 item 6): several
//! `ets academy post` processes post to one store at once, one of them killed with SIGKILL
//! mid-way; every committed post is in the log, each writer's logged posts are a prefix of what it
//! posted (all of it for the survivors), and the stored libraries equal a sequential replay of the
//! log. On SQLite (WAL mode) always; on PostgreSQL when `scripts/pg-test-server.sh` can start a
//! local server (otherwise the test says it skipped).
//!
//! Size: 8 writers × `ETS_STRESS_POSTS` posts (default 300; the figure run uses 10,000).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ets::go::fastboard::FastRng;
use ets::knowledge::academy::db::{Settings, Shared, same_state};
use ets::knowledge::academy::games::Post;

const WRITERS: usize = 8;

fn posts_per_writer() -> usize {
    std::env::var("ETS_STRESS_POSTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// Writer w's patterns: random 3×3 areas of `-`, `x`, `o` (so that exact matches,
/// generalizations and specializations all happen), ELO 1500 + 150·w (writers 0 and 2 are
/// 300 apart: specialization), random values; the ELO also names the writer in the log.
fn writer_file(dir: &Path, w: usize, n: usize) -> (PathBuf, Vec<String>) {
    let mut rng = FastRng::new(1000 + w as u64);
    let mut text = String::new();
    let mut areas = Vec::new();
    for i in 0..n {
        let mut rows = Vec::new();
        for _ in 0..3 {
            let row: Vec<&str> = (0..3).map(|_| ["-", "x", "o", "-"][rng.below(4)]).collect();
            rows.push(row.join(" "));
        }
        let v = (rng.below(101) as f64) / 100.0;
        if i > 0 {
            text.push('\n');
        }
        text += &format!(
            "{}\n< 1; {}; {v}; {} >\n",
            rows.join("\n"),
            1500 + 150 * w,
            1 + rng.below(2)
        );
        areas.push(rows.join("/"));
    }
    let p = dir.join(format!("writer{w}.txt"));
    std::fs::write(&p, text).unwrap();
    (p, areas)
}

fn spawn(store: &str, file: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(["academy", "post", "--store", store, "--batch", "1", "--verbose"])
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ets runs")
}

/// Runs the stress test on `store`; returns (posts logged, posts of the killed writer, seconds).
fn stress(store: &str, dir: &Path) -> (usize, usize, f64) {
    let n = posts_per_writer();
    // create the store (and its tables) before the writers start
    let mut s = Shared::open(store, Settings::default()).unwrap();
    let files: Vec<(PathBuf, Vec<String>)> = (0..WRITERS).map(|w| writer_file(dir, w, n)).collect();
    let t = Instant::now();
    let mut children: Vec<Child> = files.iter().map(|(f, _)| spawn(store, f)).collect();
    // kill writer 0 once a sixteenth of all posts are in
    let victim = children[0].id() as i32;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let done = s.posts().unwrap() as usize;
        if done >= WRITERS * n / 16 || Instant::now() > deadline {
            break;
        }
        if let Ok(Some(_)) = children[0].try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: kill(2) on the pid of a child this test spawned and has not yet reaped.
    let killed = unsafe { libc::kill(victim, libc::SIGKILL) } == 0;
    let mut printed = Vec::new();
    for c in children {
        let out = c.wait_with_output().unwrap();
        printed.push(String::from_utf8_lossy(&out.stdout).lines().count());
    }
    let secs = t.elapsed().as_secs_f64();
    let log = s.log().unwrap();
    let mut per_writer: Vec<Vec<String>> = vec![Vec::new(); WRITERS];
    for (_, p) in &log {
        match p {
            Post::Pattern { area, sig, .. } => {
                let w = ((sig.1 - 1500.0) / 150.0).round() as usize;
                per_writer[w].push(area.clone());
            }
            other => panic!("unexpected post {other:?}"),
        }
    }
    for (w, (_, areas)) in files.iter().enumerate() {
        let got = &per_writer[w];
        // every post a writer reported committed is in the log
        assert!(
            got.len() >= printed[w],
            "writer {w}: {} logged, {} reported",
            got.len(),
            printed[w]
        );
        if w > 0 || !killed {
            assert_eq!(got.len(), n, "writer {w} lost posts");
        }
        // in the order posted (areas are logged as posted, before normalization)
        let posted: Vec<String> = areas.iter().take(got.len()).map(|a| a.replace(' ', "")).collect();
        assert_eq!(got, &posted, "writer {w}'s log is not a prefix of its posts");
    }
    // the stored state equals a sequential replay of the log
    let stored = s.reload().unwrap();
    let replayed = s.replay().unwrap();
    assert!(
        same_state(&stored, &replayed),
        "stored libraries differ from a sequential replay"
    );
    let killed_posts = per_writer[0].len();
    eprintln!(
        "{store}: {} writers × {n} posts, writer 0 killed (SIGKILL: {killed}) after {killed_posts} posts; {} posts \
         logged in {secs:.1} s ({:.0} posts/s); {} patterns stored",
        WRITERS,
        log.len(),
        log.len() as f64 / secs,
        stored.entries.len()
    );
    (log.len(), killed_posts, secs)
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ets-academy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn concurrent_writers_on_sqlite_lose_nothing_and_equal_a_replay() {
    let dir = temp_dir("sqlite");
    let store = dir.join("academy.db").to_string_lossy().to_string();
    let (logged, killed, _) = stress(&store, &dir);
    assert!(logged >= (WRITERS - 1) * posts_per_writer() + killed);
    let _ = std::fs::remove_dir_all(&dir);
}

struct Server {
    dir: PathBuf,
    url: String,
}

impl Server {
    fn start() -> Option<Server> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pg-test-server.sh");
        let dir = temp_dir("pg");
        let data = dir.join("data");
        let port = (54_400 + std::process::id() % 500).to_string();
        let out = Command::new("bash")
            .arg(&script)
            .arg("start")
            .arg(&data)
            .arg(&port)
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "skipped: no PostgreSQL server could be started ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Some(Server { dir, url })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pg-test-server.sh");
        let _ = Command::new("bash")
            .arg(&script)
            .arg("stop")
            .arg(self.dir.join("data"))
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn the_same_store_on_postgresql() {
    let Some(server) = Server::start() else { return };
    // the same posts give the same libraries on both backends
    let dir = temp_dir("pg-same");
    let (file, _) = writer_file(&dir, 1, 200);
    let lite = dir.join("a.db").to_string_lossy().to_string();
    for store in [&lite, &server.url] {
        let out = Command::new(env!("CARGO_BIN_EXE_ets"))
            .args(["academy", "post", "--store", store, "--batch", "50"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let a = Shared::open(&lite, Settings::default()).unwrap().reload().unwrap();
    let mut pg = Shared::open(&server.url, Settings::default()).unwrap();
    let b = pg.reload().unwrap();
    assert!(!a.entries.is_empty());
    assert!(same_state(&a, &b), "SQLite and PostgreSQL stores differ");
    // start afresh for the stress test
    pg.query("DROP TABLE academy_post, academy_pattern, academy_fuseki, academy_stats, academy_setting CASCADE")
        .unwrap();
    drop(pg);
    stress(&server.url, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Principle 8 ("in one store"): Forme_K (`ets learn`), the ACADEMY (`ets academy learn`) and
/// Gomi (`ets evaluate --store`) learn into the same SQLite file, each reads its own knowledge
/// back from it, and the file's `ets_migration` registers all three schemas.
#[test]
fn forme_k_the_academy_and_gomi_share_one_store_file() {
    use ets::knowledge::gomi::{play::Gomi, play::Settings as GomiSettings, store as gomi_store};
    use ets::knowledge::pattern_store;
    use ets::store::{Store, Value};
    let dir = temp_dir("one");
    let file = dir.join("knowledge.db");
    let f = file.to_str().unwrap();
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ets")).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let tom = games.join("tom-9d");
    let tom = tom.to_str().unwrap();
    run(&["learn", tom, "--store", f, "--kmax", "8", "--threads", "1", "--no-rank"]);
    run(&["academy", "learn", tom, "--store", f]);
    let nine = games.join("9x9/001.sgf");
    run(&[
        "evaluate",
        nine.to_str().unwrap(),
        "--games",
        "12",
        "--no-classes",
        "--store",
        f,
    ]);
    // each reads its own knowledge back from the one file
    let mut st = Store::open(f).unwrap();
    assert_eq!(
        st.value("PRAGMA integrity_check", &[]).unwrap(),
        Some(Value::Text("ok".into()))
    );
    assert!(pattern_store::settings(&mut st).unwrap().is_some(), "Forme_K settings");
    let (tree, _) = pattern_store::load(&mut st).unwrap();
    let fk = st
        .value("SELECT COUNT(*) FROM fk_pattern", &[])
        .unwrap()
        .and_then(|v| v.as_i64());
    assert!(fk.unwrap_or(0) > 1, "Forme_K patterns: {fk:?}");
    let _ = tree;
    let components: Vec<String> = st.migrations().unwrap().into_iter().map(|m| m.0).collect();
    for c in ["academy", "gomi"] {
        assert!(
            components.iter().any(|x| x == c),
            "{c} in ets_migration: {components:?}"
        );
    }
    assert!(
        components.iter().any(|x| x != "academy" && x != "gomi"),
        "Forme_K's migrations: {components:?}"
    );
    let mut shared = Shared::open(f, Settings::default()).unwrap();
    let a = shared.refresh().unwrap();
    let records = std::fs::read_dir(games.join("tom-9d")).unwrap().count() as u64;
    assert_eq!(a.games.0, records, "every record posted");
    assert!(a.library(ets::knowledge::academy::library::Library::Yose).count() > 0);
    let g = gomi_store::load(f, Gomi::new(GomiSettings::default())).unwrap();
    let n: u64 = g.gomi.entries.values().map(|c| c.n).sum();
    assert!(
        !g.gomi.entries.is_empty() && n >= 12,
        "Gomi's entries from the 12 sample games: {} entries, {n} matches",
        g.gomi.entries.len()
    );
    // and all three are visible to plain SQL in the same file
    let counts = st
        .rows(
            "SELECT (SELECT COUNT(*) FROM fk_pattern), (SELECT COUNT(*) FROM academy_patterns),
                    (SELECT COUNT(*) FROM gomi_estimate)",
            &[],
        )
        .unwrap();
    assert!(counts[0].iter().all(|v| v.as_i64().unwrap_or(0) > 0), "{counts:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
