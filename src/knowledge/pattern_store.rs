//! Forme_K in the store: the tables of component `forme_k` (schema in `docs/formats.md`), and
//! reading and writing a pattern tree with its statistics (Bouzy & Chaslot 2005, §3.2, §4).
//!
//! Tables: `fk_setting` (name → value: Kmax, pruning, the order, the phase, the fingerprint of
//! the pattern set), `fk_order` (the neighbour order: position → dx, dy, distance), `fk_game`
//! (every game the patterns were created from; `counted` once pass 2 has counted it into this
//! store), `fk_pattern` (the tree: a row per pattern with its parent, last fact, k, `n_played`,
//! `n_match`; row 0 is the root, whose counts are the number of positions and of tests). Views:
//! `fk_pattern_p` (with `P(i|p)`), `fk_kept` (the patterns the pruning rules keep), `fk_fact`
//! (every pattern's facts as offsets, one row each).

use super::forme_k::{Fact, Kind, Prune, Stats, Tree};
use super::order::Order;
use crate::store::{Migration, Store, StoreError, Value};

/// The migrations of component `forme_k`.
pub const MIGRATIONS: &[Migration] = &[Migration {
    component: "forme_k",
    version: 1,
    description: "Forme_K patterns: settings, order, games, the pattern tree with its counts",
    sqlite: "
CREATE TABLE fk_setting (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE fk_order (
    pos INTEGER PRIMARY KEY,
    dx INTEGER NOT NULL,
    dy INTEGER NOT NULL,
    dist INTEGER NOT NULL
);
CREATE TABLE fk_game (
    key INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    game_index INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    counted INTEGER NOT NULL DEFAULT 0,
    positions INTEGER,
    tests INTEGER
);
CREATE TABLE fk_pattern (
    id INTEGER PRIMARY KEY,
    parent INTEGER NOT NULL REFERENCES fk_pattern (id),
    pos INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    k INTEGER NOT NULL,
    n_played INTEGER NOT NULL DEFAULT 0,
    n_match INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX fk_pattern_parent ON fk_pattern (parent);
CREATE VIEW fk_pattern_p AS
    SELECT id, parent, k, n_played, n_match,
           CASE WHEN n_match > 0 THEN CAST(n_played AS REAL) / n_match END AS p
    FROM fk_pattern WHERE id > 0;
CREATE VIEW fk_kept AS
    SELECT * FROM fk_pattern_p
    WHERE p > (SELECT CAST(value AS REAL) FROM fk_setting WHERE name = 'prune_p')
      AND n_played >= COALESCE((SELECT CAST(value AS REAL) * CAST(value AS REAL) FROM fk_setting
                                WHERE name = 'confidence'), 0);
CREATE VIEW fk_fact AS
    WITH RECURSIVE chain (pattern, node) AS (
        SELECT id, id FROM fk_pattern WHERE id > 0
        UNION ALL
        SELECT c.pattern, n.parent FROM chain c JOIN fk_pattern n ON n.id = c.node WHERE n.parent > 0
    )
    SELECT c.pattern AS pattern, n.k AS nth, o.dx AS dx, o.dy AS dy,
           CASE n.kind WHEN 1 THEN 'own' WHEN 2 THEN 'opponent' ELSE 'edge' END AS what
    FROM chain c JOIN fk_pattern n ON n.id = c.node JOIN fk_order o ON o.pos = n.pos;
",
    postgres: None,
}];

/// The name of the neighbour order, recorded with every store.
pub const ORDER_NAME: &str = "d=|dx|+|dy|+max; dx2+dy2; dy; dx (v1)";

/// How a store's patterns were made.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Largest number of important facts.
    pub kmax: usize,
    /// Patterns created fewer times than this were dropped before counting.
    pub min_played: u64,
    /// The pruning rules of §4.3 (applied when reading, recorded here).
    pub prune: Prune,
}

/// Where a store is in learning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Patterns created; counting under way (or not begun).
    Counting,
    /// Every game counted.
    Counted,
}

/// Opens the Forme_K tables of a store (creating them).
pub fn init(store: &mut Store) -> Result<(), StoreError> {
    store.migrate(MIGRATIONS)?;
    let n = store
        .value("SELECT COUNT(*) FROM fk_order", &[])?
        .and_then(|v| v.as_i64())
        .unwrap_or(0);
    if n == 0 {
        let o = Order::get();
        store.transaction(|s| {
            s.execute_many(
                "INSERT INTO fk_order (pos, dx, dy, dist) VALUES (?1, ?2, ?3, ?4)",
                (0..o.len()).map(|j| {
                    let (dx, dy) = o.offset(j);
                    vec![
                        (j as i64).into(),
                        (dx as i64).into(),
                        (dy as i64).into(),
                        (o.dist(j) as i64).into(),
                    ]
                }),
            )?;
            Ok(())
        })?;
    }
    Ok(())
}

/// A setting's value.
pub fn setting(store: &mut Store, name: &str) -> Result<Option<String>, StoreError> {
    Ok(store
        .value("SELECT value FROM fk_setting WHERE name = ?1", &[name.into()])?
        .and_then(|v| v.as_str().map(str::to_string)))
}

fn set(store: &mut Store, name: &str, value: String) -> Result<(), StoreError> {
    store.execute(
        "INSERT INTO fk_setting (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        &[name.into(), value.into()],
    )?;
    Ok(())
}

/// The store's settings (`None`: no patterns yet).
pub fn settings(store: &mut Store) -> Result<Option<Settings>, StoreError> {
    let Some(k) = setting(store, "kmax")? else {
        return Ok(None);
    };
    let num = |v: Option<String>, what: &str| -> Result<f64, StoreError> {
        v.as_deref()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| StoreError::Content(format!("fk_setting `{what}` is missing or not a number")))
    };
    let kmax = num(Some(k), "kmax")? as usize;
    let min_played = num(setting(store, "min_played")?, "min_played")? as u64;
    let min_p = num(setting(store, "prune_p")?, "prune_p")?;
    let confidence = match setting(store, "confidence")? {
        Some(c) => Some(num(Some(c), "confidence")?),
        None => None,
    };
    Ok(Some(Settings {
        kmax,
        min_played,
        prune: Prune {
            min_p,
            confidence,
            min_played: 1,
        },
    }))
}

/// The phase (`None`: no patterns yet).
pub fn phase(store: &mut Store) -> Result<Option<Phase>, StoreError> {
    Ok(match setting(store, "phase")?.as_deref() {
        Some("counting") => Some(Phase::Counting),
        Some("counted") => Some(Phase::Counted),
        _ => None,
    })
}

/// Marks the store counted (every game of its creation list counted) or not.
pub fn set_phase(store: &mut Store, p: Phase) -> Result<(), StoreError> {
    set(
        store,
        "phase",
        match p {
            Phase::Counting => "counting",
            Phase::Counted => "counted",
        }
        .into(),
    )
}

/// A 64-bit fingerprint of a pattern set (every node's parent and last fact, in id order).
pub fn fingerprint(tree: &Tree) -> u64 {
    let mut b = Vec::with_capacity(tree.len() * 7);
    for id in 1..tree.len() as u32 {
        let n = tree.node(id);
        b.extend(n.parent.to_le_bytes());
        b.extend(n.fact.pos.to_le_bytes());
        b.push(n.fact.kind as u8);
    }
    super::corpus::fnv1a(&b)
}

/// A game of the creation list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRow {
    /// Content key.
    pub key: u64,
    /// File (as given to `ets learn`).
    pub file: String,
    /// Index in the file.
    pub index: usize,
    /// Moves.
    pub moves: usize,
}

/// Writes a new store's pattern tree (counts zero), its settings and its creation list, in one
/// transaction. The store must hold no patterns.
pub fn create(store: &mut Store, tree: &Tree, s: &Settings, games: &[GameRow]) -> Result<(), StoreError> {
    store.transaction(|st| {
        if setting(st, "kmax")?.is_some() {
            return Err(StoreError::Content("the store already holds patterns".into()));
        }
        set(st, "kmax", s.kmax.to_string())?;
        set(st, "min_played", s.min_played.to_string())?;
        set(st, "prune_p", s.prune.min_p.to_string())?;
        if let Some(c) = s.prune.confidence {
            set(st, "confidence", c.to_string())?;
        }
        set(st, "order", ORDER_NAME.into())?;
        set(st, "fingerprint", format!("{:016x}", fingerprint(tree)))?;
        set(st, "games", games.len().to_string())?;
        set(st, "created", crate::store::now())?;
        set_phase_in(st, Phase::Counting)?;
        st.execute_many(
            "INSERT INTO fk_pattern (id, parent, pos, kind, k) VALUES (?1, ?2, ?3, ?4, ?5)",
            (0..tree.len() as u32).map(|id| {
                let n = tree.node(id);
                vec![
                    id.into(),
                    n.parent.into(),
                    (n.fact.pos as u32).into(),
                    (n.fact.kind as u32).into(),
                    (n.k as u32).into(),
                ]
            }),
        )?;
        st.execute_many(
            "INSERT INTO fk_game (key, file, game_index, moves) VALUES (?1, ?2, ?3, ?4)",
            games.iter().map(|g| {
                vec![
                    (g.key as i64).into(),
                    g.file.clone().into(),
                    (g.index as i64).into(),
                    (g.moves as i64).into(),
                ]
            }),
        )?;
        Ok(())
    })
}

fn set_phase_in(store: &mut Store, p: Phase) -> Result<(), StoreError> {
    set_phase(store, p)
}

/// Adds counts (per pattern: played, matched) and marks games counted (key, positions, tests), in
/// one transaction.
pub fn add_counts(store: &mut Store, deltas: &[(u32, u64, u64)], games: &[(u64, u64, u64)]) -> Result<(), StoreError> {
    store.transaction(|st| {
        st.execute_many(
            "UPDATE fk_pattern SET n_played = n_played + ?2, n_match = n_match + ?3 WHERE id = ?1",
            deltas
                .iter()
                .map(|&(id, p, m)| vec![id.into(), (p as i64).into(), (m as i64).into()]),
        )?;
        for &(key, positions, tests) in games {
            let n = st.execute(
                "UPDATE fk_game SET counted = 1, positions = ?2, tests = ?3 WHERE key = ?1 AND counted = 0",
                &[(key as i64).into(), (positions as i64).into(), (tests as i64).into()],
            )?;
            if n != 1 {
                return Err(StoreError::Content(format!(
                    "game {key:016x} is not in the store's list or was counted already"
                )));
            }
        }
        Ok(())
    })
}

/// The keys of the games already counted.
pub fn counted_games(store: &mut Store) -> Result<rustc_hash::FxHashSet<u64>, StoreError> {
    let mut set = rustc_hash::FxHashSet::default();
    store.query("SELECT key FROM fk_game WHERE counted = 1", &[], |r| {
        set.insert(r[0].as_i64().unwrap_or(0) as u64);
        Ok(())
    })?;
    Ok(set)
}

/// Games in the list, and how many are counted.
pub fn game_counts(store: &mut Store) -> Result<(u64, u64), StoreError> {
    let r = store.rows("SELECT COUNT(*), COALESCE(SUM(counted), 0) FROM fk_game", &[])?;
    let g = |i: usize| r.first().and_then(|x| x[i].as_i64()).unwrap_or(0) as u64;
    Ok((g(0), g(1)))
}

/// Reads the pattern tree and its statistics.
pub fn load(store: &mut Store) -> Result<(Tree, Vec<Stats>), StoreError> {
    let mut tree = Tree::new();
    let mut stats = Vec::new();
    let mut bad = None;
    store.query(
        "SELECT id, parent, pos, kind, n_played, n_match FROM fk_pattern ORDER BY id",
        &[],
        |r| {
            let g = |i: usize| r[i].as_i64().unwrap_or(-1);
            let (id, parent, pos, kind) = (g(0), g(1), g(2), g(3));
            let s = Stats {
                n_played: g(4).max(0) as u64,
                n_match: g(5).max(0) as u64,
            };
            if id == 0 {
                stats.push(s);
                return Ok(());
            }
            let ok = id > 0
                && parent >= 0
                && (0..Order::get().len() as i64).contains(&pos)
                && (1..=3).contains(&kind)
                && id < u32::MAX as i64;
            let res = if ok {
                tree.push_with_id(
                    id as u32,
                    parent as u32,
                    Fact {
                        pos: pos as u16,
                        kind: Kind::from_u8(kind as u8),
                    },
                )
            } else {
                Err(format!("pattern row {id} is malformed"))
            };
            match res {
                Ok(()) => stats.push(s),
                Err(e) => {
                    if bad.is_none() {
                        bad = Some(e)
                    }
                }
            }
            Ok(())
        },
    )?;
    if let Some(e) = bad {
        return Err(StoreError::Content(e));
    }
    if stats.len() != tree.len() {
        return Err(StoreError::Content("the pattern table has no root row (id 0)".into()));
    }
    Ok((tree, stats))
}

/// Merges stores counted over disjoint games of one creation list (the same patterns): the sum
/// of their counts — what one run over all their games gives. Writes into `into` (a new store).
pub fn merge(into: &mut Store, parts: &mut [Store]) -> Result<MergeReport, StoreError> {
    init(into)?;
    if setting(into, "kmax")?.is_some() {
        return Err(StoreError::Content(format!(
            "{} already holds patterns",
            into.location()
        )));
    }
    let first = parts
        .first_mut()
        .ok_or_else(|| StoreError::Content("nothing to merge".into()))?;
    let s0 = settings(first)?.ok_or_else(|| StoreError::Content(format!("{} holds no patterns", first.location())))?;
    let f0 = setting(first, "fingerprint")?;
    let (tree, mut stats) = load(first)?;
    let games: Vec<Vec<Value>> = first.rows("SELECT key, file, game_index, moves FROM fk_game ORDER BY key", &[])?;
    let mut counted: rustc_hash::FxHashMap<u64, (i64, i64)> = Default::default();
    let mut report = MergeReport::default();
    for (i, part) in parts.iter_mut().enumerate() {
        let s = settings(part)?.ok_or_else(|| StoreError::Content(format!("{} holds no patterns", part.location())))?;
        if s != s0 || setting(part, "fingerprint")? != f0 {
            return Err(StoreError::Content(format!(
                "{} holds other patterns (other games or settings) than {}: only stores learned from one list of \
                 games, each counting its own shard (`ets learn --shard i/n`), can be merged",
                part.location(),
                parts_name(i)
            )));
        }
        let keys = part.rows("SELECT key FROM fk_game ORDER BY key", &[])?;
        if keys.len() != games.len() || keys.iter().zip(&games).any(|(a, b)| a[0] != b[0]) {
            return Err(StoreError::Content(format!(
                "{} was created from another list of games",
                part.location()
            )));
        }
        let mut dup = None;
        part.query(
            "SELECT key, positions, tests FROM fk_game WHERE counted = 1",
            &[],
            |r| {
                let k = r[0].as_i64().unwrap_or(0) as u64;
                let v = (r[1].as_i64().unwrap_or(0), r[2].as_i64().unwrap_or(0));
                if counted.insert(k, v).is_some() && dup.is_none() {
                    dup = Some(k);
                }
                Ok(())
            },
        )?;
        if let Some(k) = dup {
            return Err(StoreError::Content(format!(
                "game {k:016x} is counted in two of the stores: their shards overlap"
            )));
        }
        if i > 0 {
            let (_, st) = load(part)?;
            for (a, b) in stats.iter_mut().zip(st) {
                a.n_played += b.n_played;
                a.n_match += b.n_match;
            }
        }
        report.stores += 1;
    }
    let rows: Vec<GameRow> = games
        .iter()
        .map(|r| GameRow {
            key: r[0].as_i64().unwrap_or(0) as u64,
            file: r[1].as_str().unwrap_or("").to_string(),
            index: r[2].as_i64().unwrap_or(0) as usize,
            moves: r[3].as_i64().unwrap_or(0) as usize,
        })
        .collect();
    create(into, &tree, &s0, &rows)?;
    let deltas: Vec<(u32, u64, u64)> = stats
        .iter()
        .enumerate()
        .filter(|(_, s)| s.n_played > 0 || s.n_match > 0)
        .map(|(i, s)| (i as u32, s.n_played, s.n_match))
        .collect();
    let mut marks: Vec<(u64, u64, u64)> = counted.iter().map(|(&k, &(p, t))| (k, p as u64, t as u64)).collect();
    marks.sort();
    add_counts(into, &deltas, &marks)?;
    report.games = rows.len() as u64;
    report.counted = marks.len() as u64;
    if report.counted == report.games {
        set_phase(into, Phase::Counted)?;
    }
    Ok(report)
}

fn parts_name(i: usize) -> String {
    if i == 0 {
        "itself".into()
    } else {
        "the first store".into()
    }
}

/// What a merge did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Stores merged.
    pub stores: usize,
    /// Games in the creation list.
    pub games: u64,
    /// Games counted, together.
    pub counted: u64,
}
