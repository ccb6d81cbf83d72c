//! The ACADEMY in a database that competing players share (seed `000_…`: "a place for
//! cooperation among competing players"; principle 8): embedded SQLite in WAL mode by default
//! (several processes on one machine), or a PostgreSQL server selected by a `postgres://` URL
//! (several machines).
//!
//! Each post is one transaction that holds the ACADEMY's write lock from its start (SQLite
//! `BEGIN IMMEDIATE`; PostgreSQL a transaction-scoped advisory lock): it reads the
//! changes other writers committed since this process last looked (rows carry the sequence number
//! of the post that last changed them), applies the post to its in-memory mirror with the rules of
//! [`super::library`], writes the changes and logs the post in `academy_post` with the next
//! sequence number. Posts are thereby serialized in sequence order, a killed writer loses only its
//! uncommitted post, and the stored libraries always equal a sequential replay of the log
//! ([`Shared::replay`]; tested with concurrent writers, one killed).
//!
//! Tables (schema in `docs/formats.md`, "ACADEMY"): `academy_setting`, `academy_post` (the log),
//! `academy_pattern` (Chuban and Yose; `live` = 0 once removed), `academy_fuseki` (the tree),
//! `academy_stats`; views `academy_patterns` and `academy_fuseki_live`.

use std::time::Duration;

use thiserror::Error;

use super::games::{Post, apply};
use super::library::{Academy, Caps, Change, Entry, Library, Node, Posted};
use super::notation::{Area, Game, Signature};
use super::posting::PostRules;

/// What can go wrong with the shared ACADEMY.
#[derive(Debug, Error)]
pub enum DbError {
    /// The database could not be opened.
    #[error("cannot open the ACADEMY store `{0}`: {1}")]
    Open(String, String),
    /// A statement failed.
    #[error("ACADEMY store: {0}")]
    Sql(String),
    /// A post that cannot be applied.
    #[error("{0}")]
    Post(String),
}

/// A value bound to or read from a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A double.
    Real(f64),
    /// Text.
    Text(String),
}

impl Val {
    fn int(&self) -> i64 {
        match self {
            Val::Int(i) => *i,
            Val::Real(r) => *r as i64,
            _ => 0,
        }
    }
    fn real(&self) -> f64 {
        match self {
            Val::Int(i) => *i as f64,
            Val::Real(r) => *r,
            _ => 0.0,
        }
    }
    fn text(&self) -> String {
        match self {
            Val::Text(s) => s.clone(),
            Val::Int(i) => i.to_string(),
            Val::Real(r) => r.to_string(),
            Val::Null => String::new(),
        }
    }
}

/// The few things the ACADEMY asks of a database. Statements use `?1, ?2, …`.
trait Sql: Send {
    fn batch(&mut self, sql: &str) -> Result<(), DbError>;
    fn exec(&mut self, sql: &str, params: &[Val]) -> Result<(), DbError>;
    fn rows(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>, DbError>;
    /// Starts a transaction holding the write lock.
    fn begin_locked(&mut self) -> Result<(), DbError>;
    fn commit(&mut self) -> Result<(), DbError>;
    fn rollback(&mut self) -> Result<(), DbError>;
    fn schema(&self) -> &'static str;
}

mod sqlite_backend {
    use super::{DbError, Sql, Val};
    use rusqlite::types::{ToSqlOutput, ValueRef};

    pub(super) struct Lite(pub rusqlite::Connection);

    fn e(x: rusqlite::Error) -> DbError {
        DbError::Sql(x.to_string())
    }

    impl rusqlite::ToSql for Val {
        fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
            Ok(match self {
                Val::Null => ToSqlOutput::Borrowed(ValueRef::Null),
                Val::Int(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
                Val::Real(r) => ToSqlOutput::Borrowed(ValueRef::Real(*r)),
                Val::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            })
        }
    }

    impl Sql for Lite {
        fn batch(&mut self, sql: &str) -> Result<(), DbError> {
            self.0.execute_batch(sql).map_err(e)
        }
        fn exec(&mut self, sql: &str, params: &[Val]) -> Result<(), DbError> {
            let mut st = self.0.prepare_cached(sql).map_err(e)?;
            st.execute(rusqlite::params_from_iter(params.iter())).map_err(e)?;
            Ok(())
        }
        fn rows(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>, DbError> {
            let mut st = self.0.prepare_cached(sql).map_err(e)?;
            let n = st.column_count();
            let mut rows = st.query(rusqlite::params_from_iter(params.iter())).map_err(e)?;
            let mut out = Vec::new();
            while let Some(r) = rows.next().map_err(e)? {
                let mut v = Vec::with_capacity(n);
                for i in 0..n {
                    v.push(match r.get_ref(i).map_err(e)? {
                        ValueRef::Null => Val::Null,
                        ValueRef::Integer(i) => Val::Int(i),
                        ValueRef::Real(f) => Val::Real(f),
                        ValueRef::Text(t) => Val::Text(String::from_utf8_lossy(t).into_owned()),
                        ValueRef::Blob(_) => Val::Null,
                    });
                }
                out.push(v);
            }
            Ok(out)
        }
        fn begin_locked(&mut self) -> Result<(), DbError> {
            self.0.execute_batch("BEGIN IMMEDIATE").map_err(e)
        }
        fn commit(&mut self) -> Result<(), DbError> {
            self.0.execute_batch("COMMIT").map_err(e)
        }
        fn rollback(&mut self) -> Result<(), DbError> {
            self.0.execute_batch("ROLLBACK").map_err(e)
        }
        fn schema(&self) -> &'static str {
            super::SCHEMA_SQLITE
        }
    }
}

mod postgres_backend {
    use super::{DbError, Sql, Val};
    use postgres::types::{ToSql, Type};

    pub(super) struct Pg {
        pub client: postgres::Client,
        pub cache: std::collections::HashMap<String, postgres::Statement>,
    }

    fn e(x: postgres::Error) -> DbError {
        let detail = x.as_db_error().map(|d| d.message().to_string());
        DbError::Sql(detail.unwrap_or_else(|| x.to_string()))
    }

    /// `?N` → `$N`.
    fn dollars(sql: &str) -> String {
        sql.replace('?', "$")
    }

    /// Parameters for a prepared statement (a NULL takes the parameter's type).
    fn params(v: &[Val], types: &[Type]) -> Vec<Box<dyn ToSql + Sync>> {
        v.iter()
            .enumerate()
            .map(|(i, x)| -> Box<dyn ToSql + Sync> {
                match x {
                    Val::Null => match types.get(i) {
                        Some(t) if *t == Type::TEXT || *t == Type::VARCHAR => Box::new(Option::<String>::None),
                        Some(t) if *t == Type::FLOAT8 => Box::new(Option::<f64>::None),
                        _ => Box::new(Option::<i64>::None),
                    },
                    Val::Int(i) => Box::new(*i),
                    Val::Real(r) => Box::new(*r),
                    Val::Text(s) => Box::new(s.clone()),
                }
            })
            .collect()
    }

    impl Pg {
        fn statement(&mut self, sql: &str) -> Result<postgres::Statement, DbError> {
            if let Some(st) = self.cache.get(sql) {
                return Ok(st.clone());
            }
            let st = self.client.prepare(&dollars(sql)).map_err(e)?;
            self.cache.insert(sql.to_string(), st.clone());
            Ok(st)
        }
    }

    impl Sql for Pg {
        fn batch(&mut self, sql: &str) -> Result<(), DbError> {
            self.client.batch_execute(sql).map_err(e)
        }
        fn exec(&mut self, sql: &str, p: &[Val]) -> Result<(), DbError> {
            let st = self.statement(sql)?;
            let b = params(p, st.params());
            let refs: Vec<&(dyn ToSql + Sync)> = b.iter().map(|x| x.as_ref()).collect();
            self.client.execute(&st, &refs).map_err(e)?;
            Ok(())
        }
        fn rows(&mut self, sql: &str, p: &[Val]) -> Result<Vec<Vec<Val>>, DbError> {
            let st = if p.is_empty() && !sql.contains('?') {
                self.client.prepare(sql).map_err(e)?
            } else {
                self.statement(sql)?
            };
            let b = params(p, st.params());
            let refs: Vec<&(dyn ToSql + Sync)> = b.iter().map(|x| x.as_ref()).collect();
            let rows = self.client.query(&st, &refs).map_err(e)?;
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                let mut v = Vec::with_capacity(r.len());
                for (i, c) in r.columns().iter().enumerate() {
                    let t = c.type_();
                    v.push(if *t == Type::INT8 {
                        r.get::<_, Option<i64>>(i).map_or(Val::Null, Val::Int)
                    } else if *t == Type::INT4 {
                        r.get::<_, Option<i32>>(i).map_or(Val::Null, |x| Val::Int(x as i64))
                    } else if *t == Type::FLOAT8 {
                        r.get::<_, Option<f64>>(i).map_or(Val::Null, Val::Real)
                    } else if *t == Type::NUMERIC {
                        Val::Null
                    } else {
                        r.get::<_, Option<String>>(i).map_or(Val::Null, Val::Text)
                    });
                }
                out.push(v);
            }
            Ok(out)
        }
        fn begin_locked(&mut self) -> Result<(), DbError> {
            self.client
                .batch_execute("BEGIN; SELECT pg_advisory_xact_lock(19190019)")
                .map_err(e)
        }
        fn commit(&mut self) -> Result<(), DbError> {
            self.client.batch_execute("COMMIT").map_err(e)
        }
        fn rollback(&mut self) -> Result<(), DbError> {
            self.client.batch_execute("ROLLBACK").map_err(e)
        }
        fn schema(&self) -> &'static str {
            super::SCHEMA_POSTGRES
        }
    }
}

/// What the ACADEMY's schema (version 1) holds, as recorded in `ets_migration`.
pub const SCHEMA_DESCRIPTION: &str = "academy_setting, academy_post (the log), academy_pattern, academy_fuseki, \
     academy_stats; views academy_patterns, academy_fuseki_live (own connection layer: SQLite WAL or PostgreSQL)";

/// The ACADEMY's tables in SQLite.
pub const SCHEMA_SQLITE: &str = "
CREATE TABLE IF NOT EXISTS academy_setting (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS academy_post (
    seq INTEGER PRIMARY KEY, posted TEXT NOT NULL, body TEXT NOT NULL, outcome TEXT, pattern INTEGER);
CREATE TABLE IF NOT EXISTS academy_pattern (
    id INTEGER PRIMARY KEY, library TEXT NOT NULL, area TEXT NOT NULL, shape TEXT NOT NULL,
    n INTEGER NOT NULL, e REAL NOT NULL, v REAL NOT NULL, p INTEGER NOT NULL,
    live INTEGER NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS academy_pattern_seq ON academy_pattern (seq);
CREATE TABLE IF NOT EXISTS academy_fuseki (
    id INTEGER PRIMARY KEY, parent INTEGER, mv TEXT NOT NULL, depth INTEGER NOT NULL,
    n INTEGER NOT NULL, e REAL NOT NULL, v REAL NOT NULL,
    wins INTEGER NOT NULL, losses INTEGER NOT NULL, draws INTEGER NOT NULL,
    live INTEGER NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS academy_fuseki_seq ON academy_fuseki (seq);
CREATE TABLE IF NOT EXISTS academy_stats (id INTEGER PRIMARY KEY, games INTEGER NOT NULL, moves INTEGER NOT NULL, seq INTEGER NOT NULL);
CREATE VIEW IF NOT EXISTS academy_patterns AS
    SELECT id, library, area, n, e, v, p, n * e * (0.5 - v) * (0.5 - v) AS strength
    FROM academy_pattern WHERE live = 1;
CREATE VIEW IF NOT EXISTS academy_fuseki_live AS
    SELECT id, parent, mv, depth, n, e, v, wins, losses, draws FROM academy_fuseki WHERE live = 1;
";

/// The ACADEMY's tables in PostgreSQL.
pub const SCHEMA_POSTGRES: &str = "
CREATE TABLE IF NOT EXISTS academy_setting (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS academy_post (
    seq BIGINT PRIMARY KEY, posted TEXT NOT NULL, body TEXT NOT NULL, outcome TEXT, pattern BIGINT);
CREATE TABLE IF NOT EXISTS academy_pattern (
    id BIGINT PRIMARY KEY, library TEXT NOT NULL, area TEXT NOT NULL, shape TEXT NOT NULL,
    n BIGINT NOT NULL, e DOUBLE PRECISION NOT NULL, v DOUBLE PRECISION NOT NULL, p BIGINT NOT NULL,
    live BIGINT NOT NULL, seq BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS academy_pattern_seq ON academy_pattern (seq);
CREATE TABLE IF NOT EXISTS academy_fuseki (
    id BIGINT PRIMARY KEY, parent BIGINT, mv TEXT NOT NULL, depth BIGINT NOT NULL,
    n BIGINT NOT NULL, e DOUBLE PRECISION NOT NULL, v DOUBLE PRECISION NOT NULL,
    wins BIGINT NOT NULL, losses BIGINT NOT NULL, draws BIGINT NOT NULL,
    live BIGINT NOT NULL, seq BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS academy_fuseki_seq ON academy_fuseki (seq);
CREATE TABLE IF NOT EXISTS academy_stats (id BIGINT PRIMARY KEY, games BIGINT NOT NULL, moves BIGINT NOT NULL, seq BIGINT NOT NULL);
CREATE OR REPLACE VIEW academy_patterns AS
    SELECT id, library, area, n, e, v, p, n * e * (0.5 - v) * (0.5 - v) AS strength
    FROM academy_pattern WHERE live = 1;
CREATE OR REPLACE VIEW academy_fuseki_live AS
    SELECT id, parent, mv, depth, n, e, v, wins, losses, draws FROM academy_fuseki WHERE live = 1;
";

/// The settings of a shared ACADEMY, stored with it on creation (caps, rules).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settings {
    /// Caps.
    pub caps: Caps,
    /// Matching rules.
    pub rules: PostRules,
}

const SETTING_NAMES: [&str; 6] = [
    "fuseki_cap",
    "fuseki_depth",
    "fuseki_prune",
    "chuban_cap",
    "yose_cap",
    "yose_tail",
];

/// A connection to a shared ACADEMY with this process's mirror of it.
pub struct Shared {
    db: Box<dyn Sql>,
    location: String,
    mirror: Academy,
    seen: i64,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("location", &self.location)
            .field("seen", &self.seen)
            .finish()
    }
}

/// Whether a location names a PostgreSQL server.
pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

impl Shared {
    /// Opens (creating if needed) the ACADEMY at `location`: a file path (SQLite, WAL mode) or a
    /// `postgres://` URL. `settings` are stored when the ACADEMY is created and read back
    /// otherwise (a store keeps the caps it was made with).
    pub fn open(location: &str, settings: Settings) -> Result<Shared, DbError> {
        let db: Box<dyn Sql> = if is_postgres(location) {
            let client = location
                .parse::<postgres::Config>()
                .and_then(|mut c| {
                    c.connect_timeout(Duration::from_secs(10));
                    c.connect(postgres::NoTls)
                })
                .map_err(|e| DbError::Open(location.to_string(), e.to_string()))?;
            Box::new(postgres_backend::Pg {
                client,
                cache: Default::default(),
            })
        } else {
            let path = location.strip_prefix("sqlite:").unwrap_or(location);
            let c = rusqlite::Connection::open(path).map_err(|e| DbError::Open(location.to_string(), e.to_string()))?;
            c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 600000;")
                .map_err(|e| DbError::Open(location.to_string(), e.to_string()))?;
            Box::new(sqlite_backend::Lite(c))
        };
        let mut s = Shared {
            db,
            location: location.to_string(),
            mirror: Academy::new(settings.caps, settings.rules, Game::Go),
            seen: 0,
        };
        s.db.begin_locked()?;
        let r = s.init(settings);
        match r {
            Ok(()) => s.db.commit()?,
            Err(e) => {
                let _ = s.db.rollback();
                return Err(e);
            }
        }
        Ok(s)
    }

    fn init(&mut self, settings: Settings) -> Result<(), DbError> {
        let schema = self.db.schema();
        self.db.batch(schema)?;
        // one register of schema versions per store file: the store's `ets_migration`, where
        // Forme_K and Gomi record theirs (same definition as `crate::store`'s)
        self.db.batch(
            "CREATE TABLE IF NOT EXISTS ets_migration (component TEXT NOT NULL, version INTEGER NOT NULL,
             description TEXT NOT NULL, applied TEXT NOT NULL, PRIMARY KEY (component, version))",
        )?;
        self.db.exec(
            "INSERT INTO ets_migration (component, version, description, applied) VALUES ('academy', 1, ?1, ?2)
             ON CONFLICT (component, version) DO NOTHING",
            &[Val::Text(SCHEMA_DESCRIPTION.into()), Val::Text(now())],
        )?;
        let have = self.db.rows("SELECT name, value FROM academy_setting", &[])?;
        if have.is_empty() {
            let c = settings.caps;
            let values = [
                c.fuseki_cap.to_string(),
                c.fuseki_depth.to_string(),
                (c.fuseki_prune as u8).to_string(),
                c.chuban_cap.to_string(),
                c.yose_cap.to_string(),
                c.yose_tail.to_string(),
            ];
            for (n, v) in SETTING_NAMES.iter().zip(values) {
                self.db.exec(
                    "INSERT INTO academy_setting (name, value) VALUES (?1, ?2)",
                    &[Val::Text(n.to_string()), Val::Text(v)],
                )?;
            }
            self.db.exec(
                "INSERT INTO academy_stats (id, games, moves, seq) VALUES (1, 0, 0, 0)",
                &[],
            )?;
        } else {
            let get = |n: &str| have.iter().find(|r| r[0].text() == n).map(|r| r[1].text());
            let mut c = Caps::default();
            macro_rules! read {
                ($f:ident, $n:expr) => {
                    if let Some(v) = get($n).and_then(|v| v.parse().ok()) {
                        c.$f = v;
                    }
                };
            }
            read!(fuseki_cap, "fuseki_cap");
            read!(fuseki_depth, "fuseki_depth");
            read!(chuban_cap, "chuban_cap");
            read!(yose_cap, "yose_cap");
            read!(yose_tail, "yose_tail");
            c.fuseki_prune = get("fuseki_prune").is_none_or(|v| v != "0");
            self.mirror.caps = c;
        }
        Ok(())
    }

    /// Where it is.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The caps in force.
    pub fn caps(&self) -> Caps {
        self.mirror.caps
    }

    /// Brings the mirror up to date with what other writers committed.
    fn sync(&mut self) -> Result<(), DbError> {
        let top = self.db.rows("SELECT COALESCE(MAX(seq), 0) FROM academy_post", &[])?[0][0].int();
        if top == self.seen {
            return Ok(());
        }
        let since = Val::Int(self.seen);
        for r in self.db.rows(
            "SELECT id, library, area, n, e, v, p, live FROM academy_pattern WHERE seq > ?1 ORDER BY id",
            std::slice::from_ref(&since),
        )? {
            let id = r[0].int() as u64;
            let c = if r[7].int() == 1 {
                Change::Update(Entry {
                    id,
                    library: Library::from_name(&r[1].text()).unwrap_or(Library::Chuban),
                    area: Area::from_key(&r[2].text()).ok_or_else(|| DbError::Sql(format!("bad area in row {id}")))?,
                    sig: Signature {
                        n: r[3].int() as u32,
                        e: r[4].real(),
                        v: r[5].real(),
                        p: r[6].int() as u8,
                    },
                })
            } else {
                Change::Evict(id)
            };
            self.mirror.apply(&c);
            self.mirror.next_id = self.mirror.next_id.max(id + 1);
        }
        for r in self.db.rows(
            "SELECT id, parent, mv, depth, n, e, v, wins, losses, draws, live FROM academy_fuseki WHERE seq > ?1 ORDER BY id",
            &[since],
        )? {
            let id = r[0].int() as u64;
            let c = if r[10].int() == 1 {
                Change::Node(Node {
                    id,
                    parent: (r[1] != Val::Null).then(|| r[1].int() as u64),
                    mv: r[2].text(),
                    depth: r[3].int() as u32,
                    sig: Signature {
                        n: r[4].int() as u32,
                        e: r[5].real(),
                        v: r[6].real(),
                        p: 1,
                    },
                    wld: [r[7].int() as u32, r[8].int() as u32, r[9].int() as u32],
                })
            } else {
                Change::RemoveNode(id)
            };
            self.mirror.apply(&c);
            self.mirror.next_id = self.mirror.next_id.max(id + 1);
        }
        let st = self
            .db
            .rows("SELECT games, moves FROM academy_stats WHERE id = 1", &[])?;
        if let Some(r) = st.first() {
            self.mirror.games = (r[0].int() as u64, r[1].int() as u64);
        }
        self.seen = top;
        Ok(())
    }

    /// The ACADEMY as of the last transaction (call [`Shared::refresh`] to see others' posts).
    pub fn academy(&self) -> &Academy {
        &self.mirror
    }

    /// Reads what other writers committed.
    pub fn refresh(&mut self) -> Result<&Academy, DbError> {
        self.db.begin_locked()?;
        let r = self.sync();
        self.finish(r)?;
        Ok(&self.mirror)
    }

    fn finish<T>(&mut self, r: Result<T, DbError>) -> Result<T, DbError> {
        match r {
            Ok(v) => match self.db.commit() {
                Ok(()) => Ok(v),
                Err(e) => {
                    self.reset();
                    Err(e)
                }
            },
            Err(e) => {
                let _ = self.db.rollback();
                self.reset();
                Err(e)
            }
        }
    }

    /// Forgets the mirror (after a failed transaction it may hold what was not committed).
    fn reset(&mut self) {
        let caps = self.mirror.caps;
        self.mirror = Academy::new(caps, self.mirror.rules, Game::Go);
        self.seen = 0;
    }

    /// Posts a batch in one transaction; returns what became of each pattern post.
    pub fn post(&mut self, posts: &[Post]) -> Result<Vec<Option<Posted>>, DbError> {
        self.db.begin_locked()?;
        let r = self.post_locked(posts);
        self.finish(r)
    }

    fn post_locked(&mut self, posts: &[Post]) -> Result<Vec<Option<Posted>>, DbError> {
        self.sync()?;
        let mut out = Vec::with_capacity(posts.len());
        for post in posts {
            let seq = self.seen + 1;
            let (posted, changes) = apply(&mut self.mirror, post).map_err(DbError::Post)?;
            self.write(&changes, seq)?;
            let body = serde_json::to_string(post).map_err(|e| DbError::Post(e.to_string()))?;
            self.db.exec(
                "INSERT INTO academy_post (seq, posted, body, outcome, pattern) VALUES (?1, ?2, ?3, ?4, ?5)",
                &[
                    Val::Int(seq),
                    Val::Text(now()),
                    Val::Text(body),
                    posted.map_or(Val::Null, |p| Val::Text(p.name().into())),
                    posted.map_or(Val::Null, |p| Val::Int(p.id() as i64)),
                ],
            )?;
            self.seen = seq;
            out.push(posted);
        }
        Ok(out)
    }

    fn write(&mut self, changes: &[Change], seq: i64) -> Result<(), DbError> {
        for c in changes {
            match c {
                Change::Insert(e) | Change::Update(e) => self.db.exec(
                    "INSERT INTO academy_pattern (id, library, area, shape, n, e, v, p, live, seq)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9)
                     ON CONFLICT (id) DO UPDATE SET area = excluded.area, shape = excluded.shape,
                       n = excluded.n, e = excluded.e, v = excluded.v, p = excluded.p, live = 1, seq = excluded.seq",
                    &[
                        Val::Int(e.id as i64),
                        Val::Text(e.library.name().into()),
                        Val::Text(e.area.key()),
                        Val::Text(e.area.shape()),
                        Val::Int(e.sig.n as i64),
                        Val::Real(e.sig.e),
                        Val::Real(e.sig.v),
                        Val::Int(e.sig.p as i64),
                        Val::Int(seq),
                    ],
                )?,
                Change::Evict(id) => self.db.exec(
                    "UPDATE academy_pattern SET live = 0, seq = ?2 WHERE id = ?1",
                    &[Val::Int(*id as i64), Val::Int(seq)],
                )?,
                Change::Node(n) => self.db.exec(
                    "INSERT INTO academy_fuseki (id, parent, mv, depth, n, e, v, wins, losses, draws, live, seq)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1, ?11)
                     ON CONFLICT (id) DO UPDATE SET n = excluded.n, e = excluded.e, v = excluded.v,
                       wins = excluded.wins, losses = excluded.losses, draws = excluded.draws, live = 1, seq = excluded.seq",
                    &[
                        Val::Int(n.id as i64),
                        n.parent.map_or(Val::Null, |p| Val::Int(p as i64)),
                        Val::Text(n.mv.clone()),
                        Val::Int(n.depth as i64),
                        Val::Int(n.sig.n as i64),
                        Val::Real(n.sig.e),
                        Val::Real(n.sig.v),
                        Val::Int(n.wld[0] as i64),
                        Val::Int(n.wld[1] as i64),
                        Val::Int(n.wld[2] as i64),
                        Val::Int(seq),
                    ],
                )?,
                Change::RemoveNode(id) => self.db.exec(
                    "UPDATE academy_fuseki SET live = 0, seq = ?2 WHERE id = ?1",
                    &[Val::Int(*id as i64), Val::Int(seq)],
                )?,
                Change::Games(g, m) => self.db.exec(
                    "UPDATE academy_stats SET games = ?1, moves = ?2, seq = ?3 WHERE id = 1",
                    &[Val::Int(*g as i64), Val::Int(*m as i64), Val::Int(seq)],
                )?,
            }
        }
        Ok(())
    }

    /// The logged posts in sequence order.
    pub fn log(&mut self) -> Result<Vec<(i64, Post)>, DbError> {
        let rows = self.db.rows("SELECT seq, body FROM academy_post ORDER BY seq", &[])?;
        rows.into_iter()
            .map(|r| {
                let p: Post = serde_json::from_str(&r[1].text())
                    .map_err(|e| DbError::Sql(format!("post {}: {e}", r[0].int())))?;
                Ok((r[0].int(), p))
            })
            .collect()
    }

    /// The ACADEMY a sequential replay of the log gives (the stored state must equal it).
    pub fn replay(&mut self) -> Result<Academy, DbError> {
        let mut a = Academy::new(self.mirror.caps, self.mirror.rules, Game::Go);
        for (_, p) in self.log()? {
            apply(&mut a, &p).map_err(DbError::Post)?;
        }
        Ok(a)
    }

    /// The stored state read afresh from the tables (not from the mirror).
    pub fn reload(&mut self) -> Result<Academy, DbError> {
        self.reset();
        self.refresh()?;
        Ok(self.mirror.clone())
    }

    /// Runs a read-only query (for `ets academy query`): column names are not returned, rows are.
    pub fn query(&mut self, sql: &str) -> Result<Vec<Vec<Val>>, DbError> {
        self.db.rows(sql, &[])
    }

    /// Number of logged posts.
    pub fn posts(&mut self) -> Result<i64, DbError> {
        Ok(self.db.rows("SELECT COUNT(*) FROM academy_post", &[])?[0][0].int())
    }
}

impl Val {
    /// The value as text for printing.
    pub fn display(&self) -> String {
        match self {
            Val::Null => "NULL".into(),
            v => v.text(),
        }
    }
}

fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    format!("{secs:.3}")
}

/// Whether two ACADEMY states hold the same patterns and nodes (ids, areas, signatures, counts).
pub fn same_state(a: &Academy, b: &Academy) -> bool {
    a.entries == b.entries && a.nodes == b.nodes && a.games == b.games
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::academy::notation::{Pattern, parse};

    fn post_of(text: &str, lib: Library) -> Post {
        let p: Pattern = parse(text, Game::Go).unwrap().remove(0);
        Post::pattern(&p, lib)
    }

    #[test]
    fn posts_persist_and_equal_a_replay() {
        let dir = std::env::temp_dir().join(format!("ets-academy-db-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let loc = dir.to_string_lossy().to_string();
        let caps = Caps {
            chuban_cap: 2,
            ..Caps::default()
        };
        let mut s = Shared::open(
            &loc,
            Settings {
                caps,
                ..Settings::default()
            },
        )
        .unwrap();
        let r = s
            .post(&[
                post_of("x\n< 1; 1000; 0.9; 1 >", Library::Chuban),
                post_of("x x\n< 1; 1000; 0.5; 2 >", Library::Chuban),
                post_of("x x x\n< 1; 1000; 0.6; 1 >", Library::Chuban),
                post_of("x x x x\n< 1; 1000; 0.2; 1 >", Library::Chuban),
                post_of("x\n< 1; 1000; 0.7; 1 >", Library::Chuban),
            ])
            .unwrap();
        // strengths 1000·(0.5 − V)²: 160, 0, 10, 90: the cap of 2 removes 2, then 3
        assert_eq!(r[3], Some(Posted::Inserted(4)));
        assert_eq!(r[4], Some(Posted::Exact(1)));
        // a second connection sees the same state; the store equals a replay of its log
        let mut t = Shared::open(&loc, Settings::default()).unwrap();
        assert_eq!(t.caps().chuban_cap, 2, "caps are the store's");
        let stored = t.reload().unwrap();
        assert!(same_state(&stored, s.academy()));
        assert!(same_state(&stored, &t.replay().unwrap()));
        assert_eq!(
            stored.library(Library::Chuban).map(|e| e.id).collect::<Vec<_>>(),
            vec![1, 4]
        );
        assert_eq!(stored.entries[&1].sig.n, 2);
        assert_eq!(t.posts().unwrap(), 5);
        drop((s, t));
        let _ = std::fs::remove_file(&dir);
    }
}
