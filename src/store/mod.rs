//! The store: one database for everything the project learns (principle 8, "knowledge lasts") —
//! Forme_K patterns and the move-prediction model now, the ACADEMY and Gomi next. Embedded
//! SQLite (bundled: nothing to install) by default; a second backend (PostgreSQL, selected by a
//! `postgres://` URL, for several machines sharing one store) goes behind the same [`Backend`]
//! trait.
//!
//! - **Migrations.** Every subsystem owns its tables and brings them as numbered migrations
//!   ([`Migration`]) under its own component name; [`Store::migrate`] applies the missing ones in
//!   order, each in a transaction, and records them in `ets_migration`. A subsystem never edits
//!   another's tables.
//! - **Portable statements.** Statements use `?1, ?2, …` parameters and SQL that SQLite and
//!   PostgreSQL both accept; DDL may differ per backend ([`Migration::postgres`]).
//! - **Consistency.** Writers group their changes in transactions ([`Store::transaction`]): a
//!   process killed mid-run leaves the last committed state (SQLite's journal, WAL mode).

mod sqlite;

use thiserror::Error;

/// A value read from or bound to a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A 64-bit integer.
    Int(i64),
    /// A double.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

impl Value {
    /// The integer, if it is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    /// The number as a double (integers converted).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Real(r) => Some(*r),
            _ => None,
        }
    }
    /// The text, if it is text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
    /// The bytes, if it is a blob.
    pub fn as_blob(&self) -> Option<&[u8]> {
        match self {
            Value::Blob(b) => Some(b),
            _ => None,
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(v as i64)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::Blob(v)
    }
}

/// What can go wrong with a store.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The store could not be opened.
    #[error("cannot open the store `{location}`: {message}")]
    Open {
        /// Path or URL.
        location: String,
        /// Why.
        message: String,
    },
    /// A statement failed.
    #[error("{message} (in `{sql}`)")]
    Sql {
        /// The database's message.
        message: String,
        /// The statement (abridged).
        sql: String,
    },
    /// A backend this build does not have.
    #[error("{0}")]
    Unsupported(String),
    /// The store's content is not what a reader expects.
    #[error("{0}")]
    Content(String),
}

/// A database the store runs on. Statements use `?1, ?2, …` parameters.
pub trait Backend: Send {
    /// The backend's name (`sqlite`, `postgres`).
    fn name(&self) -> &'static str;
    /// Runs several statements without parameters.
    fn execute_batch(&mut self, sql: &str) -> Result<(), StoreError>;
    /// Runs one statement; returns the rows changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<usize, StoreError>;
    /// Runs one statement for each parameter row (prepared once); returns the rows changed.
    fn execute_many(&mut self, sql: &str, rows: &mut dyn Iterator<Item = Vec<Value>>) -> Result<usize, StoreError>;
    /// Runs a query and hands each row to `row` (in the order the database returns them).
    fn query(
        &mut self,
        sql: &str,
        params: &[Value],
        row: &mut dyn FnMut(&[Value]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
    /// Starts a transaction.
    fn begin(&mut self) -> Result<(), StoreError>;
    /// Commits it.
    fn commit(&mut self) -> Result<(), StoreError>;
    /// Rolls it back.
    fn rollback(&mut self) -> Result<(), StoreError>;
    /// Whether a table exists.
    fn has_table(&mut self, name: &str) -> Result<bool, StoreError>;
}

/// A schema change of one component: applied once, in version order.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The component that owns the tables (`forme_k`, `ranker`, `academy`, …).
    pub component: &'static str,
    /// 1, 2, … within the component.
    pub version: u32,
    /// What it does.
    pub description: &'static str,
    /// The statements for SQLite.
    pub sqlite: &'static str,
    /// The statements for PostgreSQL, where they differ (`None`: the SQLite text).
    pub postgres: Option<&'static str>,
}

/// An open store.
pub struct Store {
    backend: Box<dyn Backend>,
    location: String,
    depth: usize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend.name())
            .field("location", &self.location)
            .finish()
    }
}

const BOOTSTRAP: &str = "CREATE TABLE IF NOT EXISTS ets_migration (
    component TEXT NOT NULL,
    version INTEGER NOT NULL,
    description TEXT NOT NULL,
    applied TEXT NOT NULL,
    PRIMARY KEY (component, version)
)";

impl Store {
    /// Opens (creating if needed) the store at `location`: a file path or `sqlite:PATH` for
    /// SQLite; `postgres://…` names a PostgreSQL server (not in this build).
    pub fn open(location: &str) -> Result<Store, StoreError> {
        let backend: Box<dyn Backend> = if location.starts_with("postgres://") || location.starts_with("postgresql://")
        {
            return Err(StoreError::Unsupported(format!(
                "`{location}`: the PostgreSQL backend is not in this build yet; use a file path (SQLite)"
            )));
        } else {
            let path = location.strip_prefix("sqlite:").unwrap_or(location);
            Box::new(sqlite::Sqlite::open(path)?)
        };
        let mut s = Store {
            backend,
            location: location.to_string(),
            depth: 0,
        };
        s.backend.execute_batch(BOOTSTRAP)?;
        Ok(s)
    }

    /// An in-memory SQLite store (tests).
    pub fn in_memory() -> Result<Store, StoreError> {
        let mut s = Store {
            backend: Box::new(sqlite::Sqlite::open(":memory:")?),
            location: ":memory:".into(),
            depth: 0,
        };
        s.backend.execute_batch(BOOTSTRAP)?;
        Ok(s)
    }

    /// Where it is.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The backend.
    pub fn backend(&mut self) -> &mut dyn Backend {
        self.backend.as_mut()
    }

    /// Applies the migrations of `list` not yet applied (in version order, each in its own
    /// transaction); returns those applied now.
    pub fn migrate(&mut self, list: &[Migration]) -> Result<Vec<(String, u32)>, StoreError> {
        let mut done = Vec::new();
        let mut sorted: Vec<&Migration> = list.iter().collect();
        sorted.sort_by_key(|m| (m.component, m.version));
        for m in sorted {
            let mut have = false;
            self.backend.query(
                "SELECT 1 FROM ets_migration WHERE component = ?1 AND version = ?2",
                &[m.component.into(), m.version.into()],
                &mut |_| {
                    have = true;
                    Ok(())
                },
            )?;
            if have {
                continue;
            }
            let sql = match (self.backend.name(), m.postgres) {
                ("postgres", Some(pg)) => pg,
                _ => m.sqlite,
            };
            self.transaction(|s| {
                s.backend.execute_batch(sql)?;
                s.backend.execute(
                    "INSERT INTO ets_migration (component, version, description, applied) VALUES (?1, ?2, ?3, ?4)",
                    &[m.component.into(), m.version.into(), m.description.into(), now().into()],
                )?;
                Ok(())
            })?;
            done.push((m.component.to_string(), m.version));
        }
        Ok(done)
    }

    /// The versions applied, per component.
    pub fn migrations(&mut self) -> Result<Vec<(String, u32, String)>, StoreError> {
        let mut v = Vec::new();
        self.backend.query(
            "SELECT component, version, description FROM ets_migration ORDER BY component, version",
            &[],
            &mut |r| {
                v.push((
                    r[0].as_str().unwrap_or("").to_string(),
                    r[1].as_i64().unwrap_or(0) as u32,
                    r[2].as_str().unwrap_or("").to_string(),
                ));
                Ok(())
            },
        )?;
        Ok(v)
    }

    /// Runs `f` in a transaction: committed if it returns `Ok`, rolled back otherwise. Nested
    /// calls join the outer transaction.
    pub fn transaction<T>(&mut self, f: impl FnOnce(&mut Store) -> Result<T, StoreError>) -> Result<T, StoreError> {
        if self.depth > 0 {
            return f(self);
        }
        self.backend.begin()?;
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        match r {
            Ok(v) => {
                self.backend.commit()?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.backend.rollback();
                Err(e)
            }
        }
    }

    /// Runs one statement.
    pub fn execute(&mut self, sql: &str, params: &[Value]) -> Result<usize, StoreError> {
        self.backend.execute(sql, params)
    }

    /// Runs one statement per parameter row.
    pub fn execute_many(&mut self, sql: &str, rows: impl IntoIterator<Item = Vec<Value>>) -> Result<usize, StoreError> {
        self.backend.execute_many(sql, &mut rows.into_iter())
    }

    /// Runs a query, handing each row to `f`.
    pub fn query(
        &mut self,
        sql: &str,
        params: &[Value],
        mut f: impl FnMut(&[Value]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.backend.query(sql, params, &mut f)
    }

    /// Every row of a query.
    pub fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError> {
        let mut v = Vec::new();
        self.query(sql, params, |r| {
            v.push(r.to_vec());
            Ok(())
        })?;
        Ok(v)
    }

    /// The first column of the first row (`None`: no row).
    pub fn value(&mut self, sql: &str, params: &[Value]) -> Result<Option<Value>, StoreError> {
        let mut out = None;
        self.query(sql, params, |r| {
            if out.is_none() {
                out = r.first().cloned();
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Whether a table exists.
    pub fn has_table(&mut self, name: &str) -> Result<bool, StoreError> {
        self.backend.has_table(name)
    }
}

/// The current time as `YYYY-MM-DD HH:MM:SS` UTC.
pub fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &[Migration] = &[
        Migration {
            component: "demo",
            version: 2,
            description: "a column",
            sqlite: "ALTER TABLE demo ADD COLUMN b TEXT",
            postgres: None,
        },
        Migration {
            component: "demo",
            version: 1,
            description: "a table",
            sqlite: "CREATE TABLE demo (a INTEGER PRIMARY KEY)",
            postgres: None,
        },
    ];

    #[test]
    fn migrations_apply_once_in_order() {
        let mut s = Store::in_memory().unwrap();
        assert_eq!(s.migrate(M).unwrap(), vec![("demo".into(), 1), ("demo".into(), 2)]);
        assert!(s.migrate(M).unwrap().is_empty());
        s.execute("INSERT INTO demo (a, b) VALUES (?1, ?2)", &[7i64.into(), "x".into()])
            .unwrap();
        assert_eq!(
            s.value("SELECT b FROM demo WHERE a = ?1", &[7i64.into()]).unwrap(),
            Some(Value::Text("x".into()))
        );
        assert_eq!(s.migrations().unwrap().len(), 2);
    }

    #[test]
    fn a_failed_transaction_leaves_nothing() {
        let mut s = Store::in_memory().unwrap();
        s.migrate(M).unwrap();
        let r: Result<(), StoreError> = s.transaction(|s| {
            s.execute("INSERT INTO demo (a) VALUES (1)", &[])?;
            s.execute("INSERT INTO demo (a) VALUES (1)", &[])?; // duplicate key
            Ok(())
        });
        assert!(r.is_err());
        assert_eq!(s.value("SELECT COUNT(*) FROM demo", &[]).unwrap(), Some(Value::Int(0)));
    }

    #[test]
    fn postgres_urls_are_named_not_misread_as_paths() {
        let e = Store::open("postgres://localhost/ets").unwrap_err();
        assert!(matches!(e, StoreError::Unsupported(_)));
        assert_eq!(now().len(), 19);
    }
}
