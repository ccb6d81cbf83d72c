//! Gomi's pattern database in the store ([`crate::store`], principle 8: the same SQLite file as
//! Forme_K and the ACADEMY may hold it; its tables come as the store's migration `gomi` 1):
//! `gomi_entry (chi, formula, n, r)`, `gomi_reach (chi, next, count)`, `gomi_class (chi, name)`,
//! and the view `gomi_estimate` (each entry with its Beta parameters and posterior mean, a Forme_K
//! pattern's id in part 1's store (`fk_pattern.id`), and a local pattern's 3×3 area in the ACADEMY's notation, seen by the mover: `x` the mover's stones,
//! the move at the centre, `o` the opponent's, `-` empty, `+` off-board, rows joined by `/`, in
//! the canonical orientation). Saving
//! adds what was learned since loading (`n = n + Δn`), in one transaction, so several evaluators
//! may share a store and a killed one leaves it as it was.

use std::collections::HashMap;

use super::estimate::Counts;
use super::play::{Chi, Formula, Gomi};
use crate::store::{Migration, Store, StoreError, Value};

/// The tables.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS gomi_entry (
    chi INTEGER NOT NULL, formula INTEGER NOT NULL, n INTEGER NOT NULL, r INTEGER NOT NULL,
    PRIMARY KEY (chi, formula));
CREATE TABLE IF NOT EXISTS gomi_reach (
    chi INTEGER NOT NULL, next INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (chi, next));
CREATE TABLE IF NOT EXISTS gomi_class (chi INTEGER PRIMARY KEY, name TEXT NOT NULL);
DROP VIEW IF EXISTS gomi_estimate;
CREATE VIEW gomi_estimate AS
    SELECT e.chi, c.name AS class,
           CASE WHEN e.chi >= 2305843009213693952 AND e.chi < 4611686018427387904
                THEN e.chi - 2305843009213693952 END AS forme_k,
           CASE WHEN e.chi >= 65536 THEN NULL ELSE
                 substr('-xo+', ((e.chi >> 14) & 3) + 1, 1) || substr('-xo+', ((e.chi >> 12) & 3) + 1, 1) || substr('-xo+', ((e.chi >> 10) & 3) + 1, 1) || '/' ||
                 substr('-xo+', ((e.chi >> 8) & 3) + 1, 1) || 'x' || substr('-xo+', ((e.chi >> 6) & 3) + 1, 1) || '/' ||
                 substr('-xo+', ((e.chi >> 4) & 3) + 1, 1) || substr('-xo+', ((e.chi >> 2) & 3) + 1, 1) || substr('-xo+', ((e.chi >> 0) & 3) + 1, 1) END AS area,
           CASE e.formula WHEN 0 THEN 'MoverWins' WHEN 1 THEN 'OwnsPoint' WHEN 2 THEN 'isSeki'
                          WHEN 3 THEN 'BlackWins' ELSE 'BlackOwnsElement' END AS formula,
           e.n, e.r, e.r + 1 AS alpha, e.n + 1 - e.r AS beta,
           (e.r + 1.0) / (e.n + 2.0) AS mean
    FROM gomi_entry e LEFT JOIN gomi_class c ON c.chi = e.chi;
";

/// Gomi's migrations in the store (its tables are created `IF NOT EXISTS`, so a file made
/// before Gomi moved onto the store is adopted as it is).
pub const MIGRATIONS: &[Migration] = &[Migration {
    component: "gomi",
    version: 1,
    description: "gomi_entry, gomi_reach, gomi_class and the view gomi_estimate",
    sqlite: SCHEMA,
    postgres: None,
}];

/// A loaded database and what it held when loaded (to save only the increments).
#[derive(Debug)]
pub struct Loaded {
    /// The database.
    pub gomi: Gomi,
    base: HashMap<(Chi, Formula), Counts>,
    base_reach: HashMap<(Chi, Chi), u32>,
}

/// Opens the store at `path` with Gomi's tables (migrated in one write transaction, so that
/// evaluators opening one store at once do not race on the view).
pub fn open(path: &str) -> Result<Store, StoreError> {
    let mut st = Store::open(path)?;
    if st.migrate(MIGRATIONS).is_err() {
        // another evaluator applied it between our check and our transaction: it is there now
        st.migrate(MIGRATIONS)?;
    }
    Ok(st)
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

/// Loads the database at `path` (created if needed).
pub fn load(path: &str, gomi: Gomi) -> Result<Loaded, StoreError> {
    let mut st = open(path)?;
    let mut gomi = gomi;
    st.query("SELECT chi, formula, n, r FROM gomi_entry", &[], |r| {
        if let Some(f) = Formula::from_code(int(&r[1])) {
            gomi.entries.insert(
                (int(&r[0]) as u64, f),
                Counts {
                    n: int(&r[2]) as u64,
                    r: int(&r[3]) as u64,
                },
            );
        }
        Ok(())
    })?;
    let mut base_reach = HashMap::new();
    st.query("SELECT chi, next, count FROM gomi_reach", &[], |r| {
        let (a, b, k) = (int(&r[0]) as u64, int(&r[1]) as u64, int(&r[2]) as u32);
        gomi.reach.entry(a).or_default().insert(b, k);
        base_reach.insert((a, b), k);
        Ok(())
    })?;
    st.query("SELECT chi, name FROM gomi_class", &[], |r| {
        gomi.class_names
            .insert(int(&r[0]) as u64, r[1].as_str().unwrap_or("").to_string());
        Ok(())
    })?;
    let base = gomi.entries.clone();
    Ok(Loaded { gomi, base, base_reach })
}

impl Loaded {
    /// Adds what was learned since loading to the database at `path`, in one transaction.
    pub fn save(&mut self, path: &str) -> Result<usize, StoreError> {
        let mut st = open(path)?;
        let mut entries = Vec::new();
        for (&(chi, f), &cnt) in &self.gomi.entries {
            let b = self.base.get(&(chi, f)).copied().unwrap_or_default();
            if cnt.n > b.n {
                entries.push(vec![
                    Value::Int(chi as i64),
                    Value::Int(f as i64),
                    Value::Int((cnt.n - b.n) as i64),
                    Value::Int((cnt.r - b.r) as i64),
                ]);
            }
        }
        let mut reach = Vec::new();
        for (&a, next) in &self.gomi.reach {
            for (&b, &k) in next {
                let base = self.base_reach.get(&(a, b)).copied().unwrap_or(0);
                if k > base {
                    reach.push(vec![
                        Value::Int(a as i64),
                        Value::Int(b as i64),
                        Value::Int((k - base) as i64),
                    ]);
                }
            }
        }
        let classes: Vec<Vec<Value>> = self
            .gomi
            .class_names
            .iter()
            .map(|(&chi, name)| vec![Value::Int(chi as i64), Value::Text(name.clone())])
            .collect();
        let changed = entries.len();
        st.transaction(|s| {
            s.execute_many(
                "INSERT INTO gomi_entry (chi, formula, n, r) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (chi, formula) DO UPDATE SET n = n + excluded.n, r = r + excluded.r",
                entries,
            )?;
            s.execute_many(
                "INSERT INTO gomi_reach (chi, next, count) VALUES (?1, ?2, ?3)
                 ON CONFLICT (chi, next) DO UPDATE SET count = count + excluded.count",
                reach,
            )?;
            s.execute_many(
                "INSERT INTO gomi_class (chi, name) VALUES (?1, ?2) ON CONFLICT (chi) DO NOTHING",
                classes,
            )?;
            Ok(())
        })?;
        self.base = self.gomi.entries.clone();
        self.base_reach = self
            .gomi
            .reach
            .iter()
            .flat_map(|(&a, m)| m.iter().map(move |(&b, &k)| ((a, b), k)))
            .collect();
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Color;
    use crate::go::fastboard::FastBoard;
    use crate::knowledge::gomi::play::Settings;

    #[test]
    fn two_evaluators_add_up_in_the_store() {
        let path = std::env::temp_dir().join(format!("ets-gomi-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let p = path.to_string_lossy().to_string();
        let b = FastBoard::new(5).unwrap();
        let mut a = load(&p, Gomi::new(Settings::default())).unwrap();
        let mut c = load(&p, Gomi::new(Settings::default())).unwrap();
        a.gomi.evaluate(&b, Color::Black, 5, 1, true, &[("x".into(), vec![])]);
        c.gomi.evaluate(&b, Color::Black, 7, 2, true, &[("x".into(), vec![])]);
        a.save(&p).unwrap();
        c.save(&p).unwrap();
        let d = load(&p, Gomi::new(Settings::default())).unwrap();
        let chi = crate::knowledge::gomi::play::class_chi("x");
        assert_eq!(d.gomi.counts(chi, Formula::BlackWins).n, 12);
        let total = |g: &Gomi| {
            g.entries
                .iter()
                .filter(|(k, _)| k.1 == Formula::MoverWins)
                .map(|(_, c)| c.n)
                .sum::<u64>()
        };
        assert_eq!(total(&d.gomi), total(&a.gomi) + total(&c.gomi));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_estimate_view_spells_local_patterns_and_beta_parameters() {
        let path = std::env::temp_dir().join(format!("ets-gomi-view-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let p = path.to_string_lossy().to_string();
        let mut a = load(&p, Gomi::new(Settings::default())).unwrap();
        // cells NW N NE W E SW S SE = own, opponent, empty, off, empty, off, empty, empty:
        // base-4 digits 1 2 0 3 0 3 0 0 = 1·4⁷ + 2·4⁶ + 3·4⁴ + 3·4² = 16384 + 8192 + 768 + 48
        let chi: Chi = 16384 + 8192 + 768 + 48;
        a.gomi.entries.insert((chi, Formula::MoverWins), Counts { n: 8, r: 6 });
        a.save(&p).unwrap();
        let c = rusqlite::Connection::open(&p).unwrap();
        let row: (String, String, i64, i64, f64) = c
            .query_row(
                "SELECT area, formula, alpha, beta, mean FROM gomi_estimate WHERE chi = ?1",
                [chi as i64],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        // B_{6,8} = Beta(7, 3), mean 7/10
        assert_eq!(row, ("xo-/+x-/+--".to_string(), "MoverWins".to_string(), 7, 3, 0.7));
        let _ = std::fs::remove_file(&path);
    }
}
