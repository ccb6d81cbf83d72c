//! Classification of a Go game into the thesis's level-0/1/2 classes — by the generic engine's
//! timeline, from the class setting written in the class language (`grammars/go/`, embedded in
//! the binary).
//!
//! The front-end's part is only the sensor ([`super::record::Sensor`]: each position becomes the
//! refresh layers of one timeline step) and naming: the sensor tells which vertex each primitive
//! perceives, so elements can be named by their vertices. Nothing here detects a class; every
//! route (one position, every position, the Game API, pictures, benchmarks) goes through one
//! [`GoTimeline`].

use serde::Serialize;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

use crate::dsl::{DslError, MemResolver, Sources, load_setting_with};
use crate::ets::hierarchy::Hierarchy;
use crate::ets::ids::{ElementId, NONE, NodeId};
use crate::ets::timeline::view::Snapshot;
use crate::ets::timeline::{Level, Steps, Timeline, TimelineError};
use crate::ets::{Element, Setting};

use super::board::{Board, Cell, Point};
use super::record::{GoAlphabet, Grow, Place, RecordOptions, Recording, Sensor, changes};

/// The embedded Go class setting (`grammars/go/`).
pub const EMBEDDED: &[(&str, &str)] = &[
    ("go/alphabet.ets", include_str!("../../grammars/go/alphabet.ets")),
    ("go/level0.ets", include_str!("../../grammars/go/level0.ets")),
    ("go/level1.ets", include_str!("../../grammars/go/level1.ets")),
    ("go/level2.ets", include_str!("../../grammars/go/level2.ets")),
    ("go/setting.ets", include_str!("../../grammars/go/setting.ets")),
];

/// Loads the embedded setting.
pub fn embedded_setting() -> (Sources, Result<Setting, Vec<DslError>>) {
    let files: BTreeMap<PathBuf, String> = EMBEDDED
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    let (src, r) = load_setting_with(&[PathBuf::from("go/setting.ets")], &MemResolver(files));
    (src, r.map(|(s, _)| s))
}

/// Loads a setting from files.
pub fn setting_from(files: &[PathBuf]) -> (Sources, Result<Setting, Vec<DslError>>) {
    let (src, r) = crate::dsl::load_setting(files);
    (src, r.map(|(s, _)| s))
}

/// Reads the setting from `files`, or the embedded one.
pub fn load(files: &[PathBuf]) -> (Sources, Result<Setting, Vec<DslError>>) {
    if files.is_empty() {
        embedded_setting()
    } else {
        setting_from(files)
    }
}

/// Whether a path is one of the embedded setting's files.
pub fn is_embedded(p: &Path) -> bool {
    EMBEDDED.iter().any(|(n, _)| Path::new(n) == p)
}

/// Why a game could not be classified.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClassifyError {
    /// The setting's alphabet lacks a primitive of the Go struct level.
    #[error("the setting's alphabet has no primitive `{0}`")]
    MissingPrimitive(String),
    /// A game needs at least one position.
    #[error("the game has no position")]
    NoPosition,
    /// A position's board has another size than the game's.
    #[error("position {position} is {got:?}, the game is {want:?}")]
    SizeMismatch {
        /// The position.
        position: usize,
        /// Its size.
        got: (u8, u8),
        /// The game's.
        want: (u8, u8),
    },
    /// A change named a vertex off the board ([`GoTimeline::push_changes`]).
    #[error("{0:?} is off the board")]
    OffBoard(Point),
    /// The timeline refused a step (a bug of the sensor if it happens).
    #[error(transparent)]
    Timeline(#[from] TimelineError),
}

/// The Go alphabet as a setting declares it (the sensor writes structs over it).
pub fn alphabet_of(setting: &Setting) -> Result<GoAlphabet, ClassifyError> {
    let al = setting.alphabet().clone();
    let k = |n: &str| al.kind(n).ok_or_else(|| ClassifyError::MissingPrimitive(n.to_string()));
    Ok(GoAlphabet {
        black: k("pi1")?,
        white: k("pi2")?,
        empty: k("pi3")?,
        adjacency: k("pi4")?,
        edge: k("pi5")?,
        start: k("pi6")?,
        end: k("pi7")?,
        alphabet: al,
    })
}

/// Elements' vertices kept with the steps they hold for ([`GoTimeline::vertices_cached`]).
#[derive(Debug, Default, Clone)]
pub struct VertexCache {
    /// Per level, per element: the first step and the step after the last that its vertices
    /// (sorted) hold for (`NONE`: not collected).
    levels: Vec<Vec<(u32, u32, Vec<Point>)>>,
}

/// With the journal: what each position changed of the position before it, so that
/// [`GoTimeline::undo`] puts the last position back without being given it.
#[derive(Debug, Clone, Default)]
struct BoardLog {
    /// The vertices each position changed, with what they held before it, position after
    /// position.
    olds: Vec<(Point, Cell)>,
    /// Per position: where its vertices begin in `olds`, and the prisoners before it.
    starts: Vec<(u32, u32, u32)>,
}

impl BoardLog {
    /// Takes the last position's record back into `board`.
    fn undo(&mut self, board: &mut Board) {
        let Some((from, black, white)) = self.starts.pop() else {
            return;
        };
        for &(p, c) in self.olds[from as usize..].iter().rev() {
            board.set(p, c);
        }
        self.olds.truncate(from as usize);
        (board.captured_by_black, board.captured_by_white) = (black, white);
    }
}

/// One position perceived as one step of `steps` (a timeline, or a pipelined one), the new
/// level-0 elements named by their vertices.
fn push_to<S: Steps + Grow>(
    steps: &mut S,
    sensor: &mut Sensor,
    last: &mut Option<Board>,
    log: Option<&mut BoardLog>,
    vertices0: &mut Vec<SmallVec<[Point; 2]>>,
    board: &Board,
    last_move: Option<Point>,
) -> Result<(), ClassifyError> {
    let size = sensor.size();
    if (board.cols(), board.rows()) != size {
        return Err(ClassifyError::SizeMismatch {
            position: sensor.positions() as usize,
            got: (board.cols(), board.rows()),
            want: size,
        });
    }
    let changed = match last.as_ref() {
        Some(b) => changes(b, board),
        None => Vec::new(),
    };
    perceive_step(steps, sensor, vertices0, board, last_move, &changed)?;
    // The position becomes the last one: only the vertices that changed are written.
    match last {
        Some(l) => {
            if let Some(log) = log {
                log.starts
                    .push((log.olds.len() as u32, l.captured_by_black, l.captured_by_white));
                log.olds.extend(changed.iter().map(|&p| (p, l.get(p))));
            }
            for &p in &changed {
                l.set(p, board.get(p));
            }
            (l.captured_by_black, l.captured_by_white) = (board.captured_by_black, board.captured_by_white);
        }
        None => {
            if let Some(log) = log {
                log.starts.push((log.olds.len() as u32, 0, 0));
            }
            *last = Some(board.clone());
        }
    }
    Ok(())
}

/// Position `board` (reached by `last_move`; `changed`: the vertices whose colour differs from
/// the position before) perceived as one step of `steps`, the new level-0 elements named by their
/// vertices.
fn perceive_step<S: Steps + Grow>(
    steps: &mut S,
    sensor: &mut Sensor,
    vertices0: &mut Vec<SmallVec<[Point; 2]>>,
    board: &Board,
    last_move: Option<Point>,
    changed: &[Point],
) -> Result<(), ClassifyError> {
    steps.begin_step()?;
    if let Err(e) = sensor.perceive(steps, board, last_move, changed) {
        // Leave nothing half-done: end the step (it holds what was added) and take it back if
        // the journal allows.
        let _ = steps.end_step();
        let _ = steps.undo();
        return Err(e.into());
    }
    steps.end_step()?;
    // The new level-0 elements' vertices.
    let lv = steps.level0();
    for e in vertices0.len()..lv.elements().len() {
        let mut v: SmallVec<[Point; 2]> = SmallVec::new();
        for &n in lv.nodes(e as ElementId).iter() {
            if let Place::Vertex(p) = sensor.place[n as usize]
                && !v.contains(&p)
            {
                v.push(p);
            }
        }
        v.sort();
        vertices0.push(v);
    }
    Ok(())
}

/// A game classified as it is played: the sensor turning positions into steps, and the timeline
/// keeping every level's elements (with their lives) up to date. Step `k` is position `k` (the
/// board after `k` moves).
#[derive(Debug, Clone)]
pub struct GoTimeline {
    sensor: Sensor,
    timeline: Timeline,
    /// The last position perceived (what the next one is compared with).
    last: Option<Board>,
    /// With the journal: what each position changed of the last one.
    log: Option<BoardLog>,
    /// Per level-0 element, its vertices (computed once).
    vertices0: Vec<SmallVec<[Point; 2]>>,
}

impl GoTimeline {
    /// An empty timeline for a `size` board, classifying levels `0..=top` (default: all).
    pub fn new(
        setting: Arc<Setting>,
        size: (u8, u8),
        opts: RecordOptions,
        top: Option<u32>,
    ) -> Result<Self, ClassifyError> {
        let kinds = alphabet_of(&setting)?;
        Ok(GoTimeline {
            sensor: Sensor::new(&kinds, size.0, size.1, opts),
            timeline: Timeline::new(setting, top),
            last: None,
            log: None,
            vertices0: Vec::new(),
        })
    }
    /// Keeps a journal of every position from now on, so that [`GoTimeline::undo`] can take
    /// positions back.
    pub fn keep_journal(&mut self, keep: bool) {
        self.sensor.keep_journal(keep);
        self.timeline.keep_journal(keep);
        self.log = keep.then(BoardLog::default);
    }
    /// Whether the timeline remembers stillborn derivations ([`Timeline::remember_floods`]; on by
    /// default, the classification the same either way).
    pub fn remember_floods(&mut self, on: bool) {
        self.timeline.remember_floods(on);
    }
    /// Whether the timeline derives starts first as trials ([`Timeline::trial_derivations`]; on
    /// by default, the classification the same either way).
    pub fn trial_derivations(&mut self, on: bool) {
        self.timeline.trial_derivations(on);
    }
    /// Whether a trial derivation that could only give up is left out
    /// ([`Timeline::trial_skips`]; on by default, the classification the same either way).
    pub fn trial_skips(&mut self, on: bool) {
        self.timeline.trial_skips(on);
    }
    /// Whether a level n ≥ 1 match is routed first to the forks made at its step, which spare
    /// the forks of younger elements ([`Timeline::forks_first`]; on by default). In the Go
    /// setting the elements are the same either way on every record compared; their ids differ.
    pub fn forks_first(&mut self, on: bool) {
        self.timeline.forks_first(on);
    }
    /// Whether an element made at a step ends at its first ending step where its state allows
    /// only loops and endings ([`Timeline::end_at_once`]; on by default). In the Go setting the
    /// elements are the same either way at full and sweep attention; their ids differ.
    pub fn end_at_once(&mut self, on: bool) {
        self.timeline.end_at_once(on);
    }
    /// Whether level 0 takes the matches of primitives that repeat the previous position as
    /// images ([`Timeline::find_repeats`]; on by default, the classification the same either way).
    pub fn find_repeats(&mut self, on: bool) {
        self.timeline.find_repeats(on);
    }
    /// Whether level 0 carries the elements that stay quiet without visiting them
    /// ([`Timeline::persisting`]; on by default, the classification the same either way).
    pub fn persisting(&mut self, on: bool) {
        self.timeline.persisting(on);
    }
    /// Whether a position at full attention is perceived as a copy of the step before, its
    /// changed vertices' colours changed ([`Sensor::copy_steps`]; on by default, the struct and
    /// the classification the same either way).
    pub fn copy_steps(&mut self, on: bool) {
        self.sensor.copy_steps(on);
    }
    /// Perceives the next position (`board`, reached by `last_move`) as one step; returns the
    /// levels, whose deltas say what the step changed.
    pub fn push(&mut self, board: &Board, last_move: Option<Point>) -> Result<&[Level], ClassifyError> {
        push_to(
            &mut self.timeline,
            &mut self.sensor,
            &mut self.last,
            self.log.as_mut(),
            &mut self.vertices0,
            board,
            last_move,
        )?;
        Ok(self.timeline.levels())
    }
    /// Perceives the next position given as what it changes of the last one (a move played: its
    /// stone, the stones it captured), as [`GoTimeline::push`] does with the whole position:
    /// `changes` holds vertices with what they hold now (the last for a vertex listed twice),
    /// `prisoners` the stones captured by Black and by White. The position is not copied or
    /// compared vertex by vertex, only written where it changed. Needs a position perceived
    /// before.
    pub fn push_changes(
        &mut self,
        changes: &[(Point, Cell)],
        prisoners: (u32, u32),
        last_move: Option<Point>,
    ) -> Result<&[Level], ClassifyError> {
        let Some(board) = self.last.as_mut() else {
            return Err(ClassifyError::NoPosition);
        };
        if let Some(&(p, _)) = changes.iter().find(|(p, _)| !board.contains(*p)) {
            return Err(ClassifyError::OffBoard(p));
        }
        // What each vertex listed held before; those that hold something else now changed.
        let mut olds: SmallVec<[(Point, Cell); 8]> = SmallVec::new();
        for &(p, c) in changes {
            if !olds.iter().any(|o| o.0 == p) {
                olds.push((p, board.get(p)));
            }
            board.set(p, c);
        }
        olds.retain(|(p, c)| board.get(*p) != *c);
        olds.sort_unstable_by_key(|(p, _)| (p.row, p.col));
        let before = (board.captured_by_black, board.captured_by_white);
        (board.captured_by_black, board.captured_by_white) = prisoners;
        let changed: SmallVec<[Point; 8]> = olds.iter().map(|o| o.0).collect();
        let perceived = perceive_step(
            &mut self.timeline,
            &mut self.sensor,
            &mut self.vertices0,
            board,
            last_move,
            &changed,
        );
        if let Err(e) = perceived {
            for &(p, c) in &olds {
                board.set(p, c);
            }
            (board.captured_by_black, board.captured_by_white) = before;
            return Err(e);
        }
        if let Some(log) = self.log.as_mut() {
            log.starts.push((log.olds.len() as u32, before.0, before.1));
            log.olds.extend_from_slice(&olds);
        }
        Ok(self.timeline.levels())
    }
    /// Perceives `positions` one after another (`last_moves[k]` reached position k), as
    /// [`GoTimeline::push`] does, with the levels ≥ 1 brought up to date on a second thread one
    /// position behind level 0 ([`Timeline::pipelined`]: the same timeline in the end). On an
    /// error the positions before it are classified; without a journal the position that failed
    /// cannot be taken back, and what it added stays (as with [`GoTimeline::push`]).
    ///
    /// ```
    /// use ets::go::board::Board;
    /// use ets::go::classify::{GoTimeline, embedded_setting};
    /// use ets::go::record::RecordOptions;
    /// let st = std::sync::Arc::new(embedded_setting().1.unwrap());
    /// let mut g = GoTimeline::new(st, (9, 9), RecordOptions::default(), Some(2)).unwrap();
    /// let wrong = Board::new(19, 19);
    /// assert!(g.push_all(&[Board::new(9, 9), wrong], &[None, None]).is_err());
    /// assert_eq!(g.timeline().steps(), 1);
    /// assert_eq!(g.timeline().levels().len(), 3);
    /// ```
    pub fn push_all(&mut self, positions: &[Board], last_moves: &[Option<Point>]) -> Result<(), ClassifyError> {
        self.timeline.pipelined(|p| {
            for (k, b) in positions.iter().enumerate() {
                let m = last_moves.get(k).copied().flatten();
                push_to(
                    p,
                    &mut self.sensor,
                    &mut self.last,
                    self.log.as_mut(),
                    &mut self.vertices0,
                    b,
                    m,
                )?;
            }
            Ok(())
        })
    }
    /// Releases spare capacity ([`Timeline::shrink_to_fit`]).
    pub fn shrink_to_fit(&mut self) {
        self.timeline.shrink_to_fit();
        self.sensor.shrink_to_fit();
        self.vertices0.shrink_to_fit();
    }
    /// Heap bytes held by the sensor's record of what each primitive stands for (and the
    /// vertices of level-0 elements), beside the timeline's ([`Timeline::heap_bytes`]).
    pub fn front_end_heap_bytes(&self) -> usize {
        self.sensor.heap_bytes() + self.vertices0.capacity() * std::mem::size_of::<SmallVec<[Point; 2]>>()
    }
    /// Takes the last position back (needs the journal). `previous` is the position before it,
    /// what the next position is compared with; without it the journal puts it back (a caller
    /// that has it need not give it).
    pub fn undo(&mut self, previous: Option<&Board>) -> Result<(), ClassifyError> {
        self.timeline.undo()?;
        self.sensor.undo();
        if let (Some(board), Some(log)) = (self.last.as_mut(), self.log.as_mut()) {
            log.undo(board);
        }
        match previous {
            Some(b) => self.last = Some(b.clone()),
            // The first position taken back: there is none before it.
            None if self.sensor.positions() == 0 => self.last = None,
            None => {}
        }
        let n0 = self.timeline.level(0).elements().len();
        self.vertices0.truncate(n0);
        Ok(())
    }
    /// The timeline.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }
    /// The sensor (what each primitive stands for).
    pub fn sensor(&self) -> &Sensor {
        &self.sensor
    }
    /// The last position perceived.
    pub fn position(&self) -> Option<u32> {
        self.timeline.step()
    }
    /// The setting.
    pub fn setting(&self) -> &Setting {
        self.timeline.setting()
    }
    /// The vertices element `e` of `level` involves at step `t`: at level 0, its colour
    /// primitives' vertices; at level 1, those of its members present at `t` that stand on one
    /// vertex (stones, vertices, plays, removals: a block shows its stones, not its liberties);
    /// above, those of all its members present at `t`.
    pub fn vertices(&self, level: u32, e: ElementId, t: u32) -> Vec<Point> {
        let mut out = Vec::new();
        self.vertices_into(level, e, t, &mut out);
        out
    }
    /// [`GoTimeline::vertices`] into `out` (cleared first): what a caller that asks for many
    /// elements uses, so that it reuses one buffer.
    pub fn vertices_into(&self, level: u32, e: ElementId, t: u32, out: &mut Vec<Point>) {
        out.clear();
        self.collect_vertices(level, e, t, out);
        if level > 0 {
            out.sort_unstable();
            out.dedup();
        }
    }
    /// The vertices of element `e` of `level` at step `t` ([`GoTimeline::vertices`]), kept in
    /// `cache` with the steps they hold for: an element's vertices change only at a step where it
    /// makes an application, where a node of an application it counts ends, or where the
    /// vertices of an element below that it holds change. A walk through a game's positions in
    /// order therefore collects each element's vertices again only when they change (and the
    /// elements below once for all the elements above that hold them).
    pub fn vertices_cached<'c>(&self, level: u32, e: ElementId, t: u32, cache: &'c mut VertexCache) -> &'c [Point] {
        self.fill(level, e, t, cache);
        &cache.levels[level as usize][e as usize].2
    }
    /// Puts the vertices of element `e` of `level` at `t` in `cache` (unless they are there);
    /// returns the first step after `t` they may differ at.
    fn fill(&self, level: u32, e: ElementId, t: u32, cache: &mut VertexCache) -> u32 {
        let (l, i) = (level as usize, e as usize);
        if cache.levels.len() <= l {
            cache.levels.resize(l + 1, Vec::new());
        }
        if cache.levels[l].len() <= i {
            cache.levels[l].resize(i + 1, (NONE, 0, Vec::new()));
        }
        let (from, until, _) = cache.levels[l][i];
        if from != NONE && from <= t && t < until {
            return until;
        }
        let mut out = std::mem::take(&mut cache.levels[l][i].2);
        out.clear();
        let mut until = NONE;
        if level == 0 {
            if let Some(v) = self.vertices0.get(i) {
                out.extend_from_slice(v);
            }
        } else {
            let host = self.timeline.level(level).host();
            until = self
                .counted_nodes(level, e, t, &mut |x| {
                    if let Some(d) = host.ended(x) {
                        until = until.min(d);
                    }
                    let below = host.below(x);
                    if level > 1 {
                        until = until.min(self.fill(level - 1, below, t, cache));
                        out.extend_from_slice(&cache.levels[l - 1][below as usize].2);
                    } else {
                        self.single_vertex(below, &mut out);
                    }
                })
                .min(until);
            out.sort_unstable();
            out.dedup();
        }
        cache.levels[l][i] = (t, until, out);
        until
    }
    /// Appends the vertices of element `e` of `level` at `t` to `out`, unsorted, maybe repeated.
    fn collect_vertices(&self, level: u32, e: ElementId, t: u32, out: &mut Vec<Point>) {
        if level == 0 {
            if let Some(v) = self.vertices0.get(e as usize) {
                out.extend_from_slice(v);
            }
            return;
        }
        let host = self.timeline.level(level).host();
        self.counted_nodes(level, e, t, &mut |x| {
            let below = host.below(x);
            if level > 1 {
                self.collect_vertices(level - 1, below, t, out);
            } else {
                self.single_vertex(below, out);
            }
        });
    }
    /// Calls `f` once with each node of element `e` of `level` (≥ 1) as it stood at `t`: of the
    /// applications it had made by then, those whose nodes are all present at `t` (an application
    /// whose node ended is its past: a stone attached through a liberty since filled is no
    /// longer attached through it). Returns the step of its first application after `t` (`NONE`:
    /// none yet).
    fn counted_nodes(&self, level: u32, e: ElementId, t: u32, f: &mut dyn FnMut(NodeId)) -> u32 {
        let lv = self.timeline.level(level);
        let host = lv.host();
        let mut seen: SmallVec<[NodeId; 32]> = SmallVec::new();
        for (m, step) in lv.applications_with_steps(e) {
            if step > t {
                return step;
            }
            let nodes = lv.match_nodes(m);
            if !nodes.clone().all(|x| host.present(x, t)) {
                // Gone for good: a node that ended does not come back.
                continue;
            }
            for x in nodes {
                if !seen.contains(&x) {
                    seen.push(x);
                    f(x);
                }
            }
        }
        NONE
    }
    /// Level 1 shows the members that stand on one vertex (stones, vertices, plays, removals): the
    /// vertex of level-0 element `below`, if it has one.
    fn single_vertex(&self, below: ElementId, out: &mut Vec<Point>) {
        if let Some(v) = self.vertices0.get(below as usize)
            && v.len() == 1
        {
            out.push(v[0]);
        }
    }
    /// The elements of `level` present at step `t` (complete ones, and with `forming` those still
    /// in formation), ascending.
    pub fn present(&self, level: u32, t: u32, forming: bool) -> Vec<ElementId> {
        let lv = self.timeline.level(level);
        (0..lv.elements().len() as ElementId)
            .filter(|&e| {
                let el = lv.element(e);
                !el.is_stillborn() && el.present_at(t) && (forming || el.completed().is_some_and(|c| c <= t))
            })
            .collect()
    }
    /// Names element `e` of `level` as it stands at step `t`.
    pub fn named(&self, level: u32, e: ElementId, t: u32) -> Named {
        let el = self.timeline.level(level).element(e);
        Named {
            level,
            index: e as usize,
            id: e,
            vertices: self.vertices(level, e, t.min(el.ended().map_or(t, |d| d.saturating_sub(1)))),
            born: el.born(),
            died: el.ended().filter(|&d| d <= t),
        }
    }
    /// The classification at step `t`: the elements of every level as they stand there.
    pub fn classification_at(&self, t: u32, forming: bool) -> Classification {
        let (snap, named) = self.named_snapshot(Snapshot::at(&self.timeline, t, forming), t);
        Classification {
            recording: self.recording(),
            hierarchy: snap.hierarchy,
            named,
            ids: snap.ids,
            last: t,
        }
    }
    /// The elements of `snap` (taken at position `t`) and their names (what
    /// [`GoTimeline::classification_at`] gives, without a copy of the struct).
    fn named_snapshot(&self, snap: Snapshot, t: u32) -> (Snapshot, Vec<Vec<Named>>) {
        let named: Vec<Vec<Named>> = snap
            .ids
            .iter()
            .enumerate()
            .map(|(k, ids)| {
                ids.iter()
                    .enumerate()
                    .map(|(i, &e)| {
                        let mut n = self.named(k as u32, e, t);
                        n.index = i;
                        n
                    })
                    .collect()
            })
            .collect();
        (snap, named)
    }
    /// The struct so far with what each primitive stands for.
    pub fn recording(&self) -> Recording {
        Recording {
            strukt: self.timeline.strukt().clone(),
            kinds: alphabet_of(self.timeline.setting()).expect("checked when made"),
            size: self.sensor.size(),
            layer: self.sensor.layer.to_vec(),
            position: self.sensor.position.to_vec(),
            place: self.sensor.place.clone(),
            layer_count: self.sensor.layer.last().map_or(0, |l| l / 2 + 1),
        }
    }
}

/// Classifies every position of a game: one timeline step per position. `last_moves[k]` is the
/// vertex played to reach position k (None for the first position and passes).
pub fn classify_game(
    setting: Arc<Setting>,
    positions: &[Board],
    last_moves: &[Option<Point>],
    opts: RecordOptions,
    top: Option<u32>,
) -> Result<GoTimeline, ClassifyError> {
    let first = positions.first().ok_or(ClassifyError::NoPosition)?;
    let mut g = GoTimeline::new(setting, (first.cols(), first.rows()), opts, top)?;
    g.push_all(positions, last_moves)?;
    // The record is classified to its end: what is kept of it holds no spare capacity.
    g.shrink_to_fit();
    Ok(g)
}

/// The classification after the last of `positions` (every position classified on the way: one
/// timeline step each).
pub fn classify(
    setting: &Setting,
    positions: &[Board],
    last_moves: &[Option<Point>],
    opts: RecordOptions,
    top: Option<u32>,
) -> Result<Classification, ClassifyError> {
    let g = classify_game(Arc::new(setting.clone()), positions, last_moves, opts, top)?;
    let t = g.position().unwrap_or(0);
    Ok(g.classification_at(t, false))
}

/// One classified element, named for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// Level.
    pub level: u32,
    /// Index among the elements listed with it.
    pub index: usize,
    /// Its id in its level of the timeline (stable across positions).
    pub id: ElementId,
    /// The vertices it involves (see [`GoTimeline::vertices`]).
    pub vertices: Vec<Point>,
    /// The position of its first application.
    pub born: u32,
    /// The first position it is no longer present in, if that is not after the position named.
    pub died: Option<u32>,
}

/// A game classified up to some position: the elements of every level as they stand there.
#[derive(Debug, Clone)]
pub struct Classification {
    /// The struct.
    pub recording: Recording,
    /// Elements of every level: level 0 every element begun by the position, levels ≥ 1 those
    /// present at it.
    pub hierarchy: Hierarchy,
    /// Per level, per element: vertices and lifetime.
    pub named: Vec<Vec<Named>>,
    /// Per level, per element: its id in the timeline.
    pub ids: Vec<Vec<ElementId>>,
    /// The position.
    pub last: u32,
}

/// Convenience for tests and tools: a setting's class name of an element.
pub fn class_name<'a>(setting: &'a Setting, e: &Element) -> &'a str {
    &setting.class(e.class).name
}

// ---- JSON output (docs/formats.md) ----

/// `ets classify GAME --move N --format json`: the elements at one position.
#[derive(Debug, Clone, Serialize)]
pub struct PositionJson {
    /// The position.
    #[serde(rename = "move")]
    pub mv: u32,
    /// Per level.
    pub levels: Vec<PositionLevelJson>,
}

/// One level of [`PositionJson`].
#[derive(Debug, Clone, Serialize)]
pub struct PositionLevelJson {
    /// The level.
    pub level: u32,
    /// The elements listed.
    pub elements: Vec<ElementJson>,
    /// Overlaps between elements present at the position.
    pub overlaps: Vec<OverlapJson>,
}

/// One element.
#[derive(Debug, Clone, Serialize)]
pub struct ElementJson {
    /// `L{level}:{id}`, the id stable across positions and routes.
    pub id: String,
    /// Class name.
    pub class: String,
    /// The thesis's symbol, if the class has one.
    pub thesis: Option<String>,
    /// Vertices (GTP names).
    pub vertices: Vec<String>,
    /// The position of its first application.
    pub born: u32,
    /// The first position it is no longer present in, if any.
    pub died: Option<u32>,
    /// Whether its schedule may end where it stands (false: still forming, listed with
    /// `--forming`).
    pub complete: bool,
}

/// One overlap edge.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapJson {
    /// First element.
    pub a: String,
    /// Second element.
    pub b: String,
    /// The constraints they overlap on.
    pub constraints: Vec<String>,
}

/// `ets classify GAME --timeline --format json`: every element of the game with its life (the
/// engine's one serialiser of lives, vertices named by GTP names).
pub use crate::ets::timeline::lives::{LifeJson, TimelineJson, TimelineLevelJson};

impl GoTimeline {
    /// The JSON view of the classification at position `t`; with `all`, level-0 elements that
    /// ended are listed too.
    pub fn position_json(&self, t: u32, all: bool, forming: bool) -> PositionJson {
        let st = self.setting();
        let rows = self.sensor.size().1;
        // Names, classes and overlap graphs only: level 0 without its applications.
        // (Level 0's ended elements are left out unless they are listed.)
        let snap = if all {
            Snapshot::names_at(&self.timeline, t, forming)
        } else {
            Snapshot::present_names_at(&self.timeline, t, forming)
        };
        let (snap, named) = self.named_snapshot(snap, t);
        let mut levels = Vec::new();
        for l in &snap.hierarchy.levels {
            let named = &named[l.level as usize];
            let listed: Vec<usize> = (0..l.elements.len())
                .filter(|&i| all || named[i].died.is_none())
                .collect();
            let id = |i: usize| format!("L{}:{}", l.level, named[i].id);
            let elements = listed
                .iter()
                .map(|&i| {
                    let e = &l.elements[i];
                    let cl = st.class(e.class);
                    ElementJson {
                        id: id(i),
                        class: cl.name.clone(),
                        thesis: cl.symbol.clone(),
                        vertices: named[i].vertices.iter().map(|p| p.gtp(rows)).collect(),
                        born: named[i].born,
                        died: named[i].died,
                        complete: e.complete,
                    }
                })
                .collect();
            // The level-(n+1) struct holds the elements present at the position, in order.
            let living: Vec<usize> = (0..l.elements.len()).filter(|&i| named[i].died.is_none()).collect();
            let overlaps = l
                .overlaps()
                .edges
                .iter()
                .map(|(a, b, cs)| OverlapJson {
                    a: id(living[*a as usize]),
                    b: id(living[*b as usize]),
                    constraints: cs.iter().map(|&x| st.constraint(x).name.clone()).collect(),
                })
                .collect();
            levels.push(PositionLevelJson {
                level: l.level,
                elements,
                overlaps,
            });
        }
        PositionJson { mv: t, levels }
    }

    /// The JSON view of every element's life up to the last position.
    pub fn timeline_json(&self, forming: bool) -> TimelineJson {
        let rows = self.sensor.size().1;
        let last = self.position().unwrap_or(0);
        crate::ets::timeline::lives::lives(&self.timeline, last, forming, |level, e, t| {
            self.vertices(level, e, t).iter().map(|p| p.gtp(rows)).collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::game::Replay;
    use crate::go::sgf::Sgf;

    /// A shipped game's positions and last moves, and two level-0 timelines of it, the persisting
    /// set off and on, with the journal kept or not.
    fn two_routes(journal: bool) -> (Replay, Vec<Option<Point>>, GoTimeline, GoTimeline) {
        let st = Arc::new(embedded_setting().1.expect("the embedded setting"));
        let path = "tests/data/games/tom-9d/2005-01-8557986.sgf";
        let sgf = Sgf::parse_bytes(std::fs::read(path).expect("a shipped game")).expect("a record");
        let r = Replay::from_sgf(&sgf, 0, &[]).expect("a game");
        let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
        let new = |on: bool| {
            let mut g =
                GoTimeline::new(st.clone(), r.info.size, RecordOptions::default(), Some(0)).expect("a timeline");
            g.persisting(on);
            g.keep_journal(journal);
            g
        };
        let (visited, carried) = (new(false), new(true));
        (r, last, visited, carried)
    }

    /// Asserts that every level-0 element has the same state on both routes (what the set keeps
    /// implicit read as it would be written out); returns how many persist on the second.
    fn same_level0(a: &GoTimeline, c: &GoTimeline, at: &str) -> usize {
        let (a, c) = (a.timeline().level(0), c.timeline().level(0));
        assert_eq!(a.elements().len(), c.elements().len(), "{at}");
        let mut persisted = 0;
        for e in 0..a.elements().len() as ElementId {
            persisted += c.persists(e) as usize;
            let (x, y) = (&a.elements()[e as usize], &c.elements()[e as usize]);
            assert_eq!(a.written_out(e), c.written_out(e), "element {e} {at}");
            assert_eq!(
                (
                    x.state,
                    x.open,
                    x.ended,
                    x.end_kind,
                    x.complete_at,
                    x.runs.len(),
                    x.apps.len()
                ),
                (
                    y.state,
                    y.open,
                    y.ended,
                    y.end_kind,
                    y.complete_at,
                    y.runs.len(),
                    y.apps.len()
                ),
                "element {e} {at}"
            );
        }
        persisted
    }

    /// With the persisting set on and off (`ets::timeline::persist`), every level-0 element has
    /// the same state at every position of a real game: what the set keeps implicit (the step
    /// of its last application and of its last run, of its latest primitive, its streak) read as
    /// it would be written out, its open primitives, its state and its end.
    #[test]
    fn persisting_elements_have_the_state_of_visited_ones() {
        let (r, last, mut visited, mut carried) = two_routes(false);
        let mut persisted = 0;
        for (k, (b, m)) in r.positions.iter().zip(&last).enumerate() {
            visited.push(b, *m).expect("a position");
            carried.push(b, *m).expect("a position");
            persisted += same_level0(&visited, &carried, &format!("pushed {k}"));
        }
        assert!(persisted > 100_000, "{persisted} element steps persisted");
    }

    /// The same with the journal kept, each position pushed, taken back and pushed again, and at
    /// every seventh two positions taken back and pushed again: the set kept under a journal
    /// (`docs/design-repeats.md`, "Measured (thirty-sixth session)") gives back at each undo
    /// what it kept implicit, so the two routes agree after every push and every undo.
    #[test]
    fn persisting_elements_are_taken_back_with_their_steps() {
        let (r, last, mut visited, mut carried) = two_routes(true);
        // (Every holder word and slot the set carries without a test is tested.)
        carried.timeline.verify_carried();
        let (mut persisted, mut stepped, mut restored) = (0, 0, 0);
        for (k, (b, m)) in r.positions.iter().zip(&last).enumerate() {
            for g in [&mut visited, &mut carried] {
                g.push(b, *m).expect("a position");
            }
            persisted += same_level0(&visited, &carried, &format!("pushed {k}"));
            // The seed index, built from the step before's where it can be, is what its definition says.
            stepped += (carried.timeline().check_seed_index() == Some(true)) as usize;
            let back = if k >= 2 && k % 7 == 0 { 2 } else { 1 };
            if k + 1 < back {
                continue;
            }
            for g in [&mut visited, &mut carried] {
                for j in 0..back {
                    g.undo(k.checked_sub(j + 1).map(|i| &r.positions[i])).expect("an undo");
                }
            }
            same_level0(&visited, &carried, &format!("taken back to {}", k + 1 - back));
            // (Given back by a single undo when the step was built from the one before.)
            restored += carried.timeline().check_seed_index().is_some() as usize;
            let again = k + 1 - back..=k;
            for (b, m) in r.positions[again.clone()].iter().zip(&last[again]) {
                for g in [&mut visited, &mut carried] {
                    g.push(b, *m).expect("a position");
                }
            }
            same_level0(&visited, &carried, &format!("pushed {k} again"));
        }
        assert!(persisted > 100_000, "{persisted} element steps persisted");
        // (The first look and steps after a double undo are built whole.)
        let n = r.positions.len();
        eprintln!(
            "seed indexes: {stepped} of {n} steps built from the step before's, {restored} given back by an undo"
        );
        assert!(
            stepped * 10 > n * 8 && restored * 10 > n * 7,
            "{stepped} and {restored} of {n}"
        );
        // The holders copied at a step and unchanged since are carried at the next, a push after
        // an undo of it included.
        let words = carried.timeline.verify_carried();
        eprintln!("holder words and slots carried: {words}");
        assert!(words > 1_000_000, "{words} carried");
    }

    /// On every shipped game of 19x19 and 9x9 professionals and AlphaGo, at full attention with
    /// the journal (each position pushed; every third taken back and pushed again, every fifth
    /// two), each holder word and slot the persisting set carries untested passes the test.
    #[test]
    fn carried_holders_pass_their_tests_on_every_shipped_game() {
        let st = Arc::new(embedded_setting().1.expect("the embedded setting"));
        let mut total = 0;
        for dir in [
            "tests/data/games/tom-9d",
            "tests/data/games/9x9",
            "tests/data/games/alphago",
        ] {
            let mut paths: Vec<_> = std::fs::read_dir(dir)
                .expect("a shipped folder")
                .map(|e| e.expect("an entry").path())
                .collect();
            paths.sort();
            for path in paths {
                let sgf = Sgf::parse_bytes(std::fs::read(&path).expect("a shipped game")).expect("a record");
                let r = Replay::from_sgf(&sgf, 0, &[]).expect("a game");
                let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
                let mut g =
                    GoTimeline::new(st.clone(), r.info.size, RecordOptions::default(), Some(0)).expect("a timeline");
                g.keep_journal(true);
                let before = g.timeline.verify_carried();
                for (k, (b, m)) in r.positions.iter().zip(&last).enumerate() {
                    g.push(b, *m).expect("a position");
                    let back = if k % 5 == 4 { 2 } else { (k % 3 == 2) as usize };
                    if back == 0 || k + 1 < back {
                        continue;
                    }
                    for j in 0..back {
                        g.undo(k.checked_sub(j + 1).map(|i| &r.positions[i])).expect("an undo");
                    }
                    let again = k + 1 - back..=k;
                    for (b, m) in r.positions[again.clone()].iter().zip(&last[again]) {
                        g.push(b, *m).expect("a position");
                    }
                }
                let n = g.timeline.verify_carried() - before;
                eprintln!("{}: {n} carried", path.display());
                total += n;
            }
        }
        assert!(total > 5_000_000, "{total} carried");
    }
}
