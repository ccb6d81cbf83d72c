//! The move-prediction model in the store: component `ranker` (schema in `docs/formats.md`).
//!
//! `rk_setting` (name → value: latent dimension, smoothing, feature families, training settings
//! and figures) and `rk_feature` (a row per feature: its id, readable name, kind — `fixed`,
//! `shape`, `pattern` or `class` — the key of a shape, the `fk_pattern` id of a pattern or the
//! key of a class feature's label, its weight and its latent vector as
//! little-endian 32-bit floats).

use super::classes::ClassAttention;
use super::features::{Families, FeatureSpace, Kind, static_len};
use super::forme_k::Stats;
use super::pattern_store as ps;
use super::predict::Model;
use super::ranker::Ranker;
use crate::store::{Migration, Store, StoreError, Value};

/// The migrations of component `ranker`.
pub const MIGRATIONS: &[Migration] = &[Migration {
    component: "ranker",
    version: 1,
    description: "move-prediction ranker: settings and feature weights",
    sqlite: "
CREATE TABLE rk_setting (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE rk_feature (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    key INTEGER,
    w REAL NOT NULL,
    v BLOB NOT NULL
);
",
    postgres: None,
}];

/// Settings of the model besides its weights.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// Smoothing weight of a parent's estimate.
    pub alpha: f64,
    /// Patterns matched at least this often are features of their own.
    pub min_match_id: u64,
    /// The attention of the classification the class features read.
    pub attention: ClassAttention,
}

/// Writes a trained ranker (replacing any), with its settings and free-form notes.
pub fn save(store: &mut Store, r: &Ranker, s: &ModelSettings, notes: &[(&str, String)]) -> Result<(), StoreError> {
    store.migrate(MIGRATIONS)?;
    store.transaction(|st| {
        st.execute("DELETE FROM rk_feature", &[])?;
        st.execute("DELETE FROM rk_setting", &[])?;
        let mut set = |name: &str, value: String| {
            st.execute(
                "INSERT INTO rk_setting (name, value) VALUES (?1, ?2)",
                &[name.into(), value.into()],
            )
            .map(|_| ())
        };
        set("dim", r.dim.to_string())?;
        set("alpha", s.alpha.to_string())?;
        set("min_match_id", s.min_match_id.to_string())?;
        set("attention", s.attention.text().to_string())?;
        set("features", r.space.families().text())?;
        set("trained", crate::store::now())?;
        for (k, v) in notes {
            set(k, v.clone())?;
        }
        let d = r.dim;
        let base = static_len() as usize;
        st.execute_many(
            "INSERT INTO rk_feature (id, name, kind, key, w, v) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            (0..r.w.len()).map(|i| {
                let (kind, key) = if i < base {
                    ("fixed", Value::Null)
                } else {
                    match r.space.dynamic()[i - base] {
                        (Kind::Shape, k) => ("shape", Value::Int(k as i64)),
                        (Kind::Pattern, k) => ("pattern", Value::Int(k as i64)),
                        (Kind::Class, k) => ("class", Value::Int(k as i64)),
                    }
                };
                let v: Vec<u8> = r.v[i * d..i * d + d].iter().flat_map(|x| x.to_le_bytes()).collect();
                vec![
                    (i as i64).into(),
                    r.space.name(i as u32).into(),
                    kind.into(),
                    key,
                    (r.w[i] as f64).into(),
                    v.into(),
                ]
            }),
        )?;
        Ok(())
    })
}

/// Whether the store holds a trained ranker.
pub fn has_ranker(store: &mut Store) -> Result<bool, StoreError> {
    if !store.has_table("rk_setting")? {
        return Ok(false);
    }
    Ok(store
        .value("SELECT value FROM rk_setting WHERE name = 'dim'", &[])?
        .is_some())
}

/// A ranker setting.
pub fn setting(store: &mut Store, name: &str) -> Result<Option<String>, StoreError> {
    if !store.has_table("rk_setting")? {
        return Ok(None);
    }
    Ok(store
        .value("SELECT value FROM rk_setting WHERE name = ?1", &[name.into()])?
        .and_then(|v| v.as_str().map(str::to_string)))
}

/// Reads the whole model: the patterns with their statistics and the ranker.
pub fn load_model(store: &mut Store) -> Result<Model, StoreError> {
    let fs = ps::settings(store)?
        .ok_or_else(|| StoreError::Content(format!("{} holds no patterns (run `ets learn`)", store.location())))?;
    if !has_ranker(store)? {
        return Err(StoreError::Content(format!(
            "{} holds patterns but no trained ranker (run `ets learn` on it again to train one)",
            store.location()
        )));
    }
    let num = |v: Option<String>, what: &str| -> Result<f64, StoreError> {
        v.as_deref()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| StoreError::Content(format!("rk_setting `{what}` is missing or not a number")))
    };
    let dim = num(setting(store, "dim")?, "dim")? as usize;
    let alpha = num(setting(store, "alpha")?, "alpha")?;
    let min_match_id = num(setting(store, "min_match_id")?, "min_match_id")? as u64;
    // Stores written before the attention was recorded classified with full attention.
    let attention = match setting(store, "attention")? {
        Some(t) => ClassAttention::parse(&t).map_err(StoreError::Content)?,
        None => ClassAttention::Full,
    };
    let (tree, stats): (_, Vec<Stats>) = ps::load(store)?;
    // Built here, once, rather than in the first position ranked.
    tree.frozen();
    let mut w = Vec::new();
    let mut v = Vec::new();
    let mut dynamic = Vec::new();
    let base = static_len() as i64;
    let mut bad = None;
    // Stores written before the families were recorded use them all.
    let families = match setting(store, "features")? {
        Some(t) => Families::parse(&t).map_err(StoreError::Content)?,
        None => Families::default(),
    };
    store.query(
        "SELECT id, kind, key, w, v, name FROM rk_feature ORDER BY id",
        &[],
        |r| {
            let id = r[0].as_i64().unwrap_or(-1);
            if id != w.len() as i64 {
                bad.get_or_insert_with(|| format!("rk_feature ids are not 0, 1, 2, … (found {id})"));
                return Ok(());
            }
            w.push(r[3].as_f64().unwrap_or(0.0) as f32);
            let blob = r[4].as_blob().unwrap_or(&[]);
            if blob.len() != 4 * dim {
                bad.get_or_insert_with(|| {
                    format!(
                        "feature {id}: latent vector of {} bytes, {} expected",
                        blob.len(),
                        4 * dim
                    )
                });
            }
            v.extend((0..dim).map(|k| {
                blob.get(4 * k..4 * k + 4)
                    .map_or(0.0, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }));
            if id >= base {
                let key = r[2].as_i64().unwrap_or(0) as u32;
                match r[1].as_str() {
                    Some("shape") => dynamic.push((Kind::Shape, key)),
                    Some("class") => {
                        // The label is the name after `class:`; its key is recomputed from it.
                        let name = r[5].as_str().unwrap_or("");
                        let label = name.strip_prefix("class:").unwrap_or(name);
                        if super::classes::register(label) != key {
                            bad.get_or_insert_with(|| format!("feature {id}: key {key} is not that of `{label}`"));
                        }
                        dynamic.push((Kind::Class, key))
                    }
                    Some("pattern") => {
                        if key as usize >= tree.len() {
                            bad.get_or_insert_with(|| format!("feature {id} names pattern {key}, not in the store"));
                        }
                        dynamic.push((Kind::Pattern, key))
                    }
                    other => {
                        bad.get_or_insert_with(|| format!("feature {id}: kind {other:?}"));
                    }
                }
            }
            Ok(())
        },
    )?;
    if let Some(e) = bad {
        return Err(StoreError::Content(e));
    }
    let ranker = Ranker::from_parts(dim, w, v, FeatureSpace::from_dynamic(dynamic, families));
    Ok(Model {
        tree,
        stats,
        kmax: fs.kmax,
        alpha,
        min_match_id,
        attention,
        ranker,
    })
}
