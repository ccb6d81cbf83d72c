//! The SQLite backend (rusqlite, SQLite bundled in the binary). Files are opened in WAL mode with
//! `synchronous = NORMAL`: a committed transaction survives a killed process, and a process
//! killed mid-transaction leaves the previous state.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ToSql};

use super::{Backend, StoreError, Value};

pub(super) struct Sqlite {
    conn: Connection,
}

fn err(sql: &str, e: rusqlite::Error) -> StoreError {
    let mut s: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() > 120 {
        let cut = (0..=120).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
        s.truncate(cut);
        s.push('…');
    }
    StoreError::Sql {
        message: e.to_string(),
        sql: s,
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Value::Real(r) => ToSqlOutput::Borrowed(ValueRef::Real(*r)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Value::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

fn read(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

impl Sqlite {
    pub(super) fn open(path: &str) -> Result<Sqlite, StoreError> {
        let conn = Connection::open(path).map_err(|e| StoreError::Open {
            location: path.to_string(),
            message: e.to_string(),
        })?;
        let s = Sqlite { conn };
        let setup = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
                     PRAGMA busy_timeout = 60000; PRAGMA cache_size = -262144;";
        s.conn.execute_batch(setup).map_err(|e| StoreError::Open {
            location: path.to_string(),
            message: e.to_string(),
        })?;
        Ok(s)
    }
}

impl Backend for Sqlite {
    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.conn.execute_batch(sql).map_err(|e| err(sql, e))
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<usize, StoreError> {
        let mut st = self.conn.prepare_cached(sql).map_err(|e| err(sql, e))?;
        st.execute(rusqlite::params_from_iter(params.iter()))
            .map_err(|e| err(sql, e))
    }

    fn execute_many(&mut self, sql: &str, rows: &mut dyn Iterator<Item = Vec<Value>>) -> Result<usize, StoreError> {
        let mut st = self.conn.prepare_cached(sql).map_err(|e| err(sql, e))?;
        let mut n = 0;
        for r in rows {
            n += st
                .execute(rusqlite::params_from_iter(r.iter()))
                .map_err(|e| err(sql, e))?;
        }
        Ok(n)
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Value],
        row: &mut dyn FnMut(&[Value]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut st = self.conn.prepare_cached(sql).map_err(|e| err(sql, e))?;
        let n = st.column_count();
        let mut rows = st
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(|e| err(sql, e))?;
        let mut buf = Vec::with_capacity(n);
        while let Some(r) = rows.next().map_err(|e| err(sql, e))? {
            buf.clear();
            for i in 0..n {
                buf.push(read(r.get_ref(i).map_err(|e| err(sql, e))?));
            }
            row(&buf)?;
        }
        Ok(())
    }

    fn begin(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| err("BEGIN", e))
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch("COMMIT").map_err(|e| err("COMMIT", e))
    }

    fn rollback(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch("ROLLBACK").map_err(|e| err("ROLLBACK", e))
    }

    fn has_table(&mut self, name: &str) -> Result<bool, StoreError> {
        let sql = "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1";
        let mut st = self.conn.prepare_cached(sql).map_err(|e| err(sql, e))?;
        st.exists([name]).map_err(|e| err(sql, e))
    }
}
