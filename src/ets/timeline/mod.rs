//! The timeline: a struct that grows step by step, with its classification at every level kept up
//! to date as it grows, and what each step changed (§3.3.2, §3.4, §5.1.1, §5.3.2.1).
//!
//! A *step* adds primitives, joins them to earlier ones by processes (time runs forward: every
//! process of a step ends at a primitive of that step), and may *close* terminal sites (what they
//! emit ends unobserved). At the end of a step every level is brought up to date:
//! - level 0: the new matches are found anchored at the new primitives (each at its latest
//!   primitive, once); the living elements apply those that continue them; the rest may start
//!   elements; an element that can no longer grow ends;
//! - level n ≥ 1: the level-n struct gains, as nodes, the elements of level n−1 that became
//!   complete, as links the class element links their shared applications make, and loses the
//!   elements that ended; its new matches (anchored at new nodes and links) pass through the same
//!   derivations.
//!
//! Each level reports a [`LevelDelta`]: elements born, completed, extended, forked, merged and
//! ended at the step. The derivations and the lives of elements are described in [`level`];
//! `docs/semantics.md` records every interpretation. A step can be taken back ([`Timeline::undo`])
//! when the timeline keeps its journal.
//!
//! The engine knows no domain: a front-end turns what it observes into steps (a game front-end: each move into the
//! refresh layers of the player's awareness).

pub mod classes;
mod holders;
pub mod host;
mod journal;
pub mod level;
pub mod lives;
mod memo;
mod persist;
mod pipeline;
mod repeats;
mod runs;
mod seeds;
mod store;
mod trial;
pub mod view;

pub use holders::{HolderIter, HolderList};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::ops::ControlFlow;
use std::sync::Arc;
use thiserror::Error;

pub use classes::RECORDED;
pub use host::{LevelHost, TimedCel};
pub use level::{Elem, EndKind, Level, LevelDelta, LevelMemory};
pub use pipeline::{Pipelined, Steps};
pub use store::MatchNodes;

use classes::ClassTable;
use journal::{Entry, Journal, LevelSizes, StepLog};
use level::StepCtx;

use super::error::StructError;
use super::growth::{arc_bytes, small_bytes, vec_bytes};
use super::ids::{ConstraintId, ElementId, MatchId, NONE, NodeId};
use super::matching::{Host, LinkLabel, Plan, PlanScratch};
use super::primitive::PrimitiveKind;
use super::setting::Setting;
use super::structs::{Again, LastCopy, Struct};

/// What a timeline refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TimelineError {
    /// Primitives are added within a step: `begin_step` first.
    #[error("no step is open (call begin_step first)")]
    NoStep,
    /// A step is already open.
    #[error("a step is already open (end it first)")]
    StepOpen,
    /// A process must end at a primitive of the current step.
    #[error("a process must end at a primitive of the current step (time runs forward): {from} -> {to}")]
    Backward {
        /// The source node.
        from: NodeId,
        /// The target node.
        to: NodeId,
    },
    /// A struct edit failed.
    #[error(transparent)]
    Struct(#[from] StructError),
    /// Undo without a journal, or with no step to take back.
    #[error("no step to take back (undo needs a timeline made with a journal)")]
    NothingToUndo,
    /// The thread of the levels above 0 stopped ([`Timeline::pipelined`]: a fault of the engine,
    /// whose panic follows).
    #[error("the thread of the levels above 0 stopped")]
    UpperLevelsStopped,
}

/// What level 0 found of repeats ([`Timeline::find_repeats`], `docs/design-repeats.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RepeatCounts {
    /// Primitives added.
    pub primitives: u64,
    /// Of them, the clean ones: they and their neighbourhood (the pattern reach) repeat the step
    /// before, or they repeat it and so do the matches anchored at them (`calm`); their matches
    /// were taken as images.
    pub clean: u64,
    /// Of the clean ones, those found so by their matches, not by their neighbourhood.
    pub calm: u64,
    /// Of the others, the repeats some of whose matches are images of their preimage's, among
    /// others that are not (`Repeats::partial`): an element whose last run applied only such
    /// images, and whose class uses or records none of the other matches' constraints, takes
    /// its images without derivation.
    pub partial: u64,
    /// Element steps taken as the images of the element's last one, without derivation.
    pub quiet: u64,
}

/// Level-0 plans anchored at one variable of one constraint (a variable no process of the pattern
/// leaves: only such a variable can be bound to a match's latest primitive).
#[derive(Debug, Clone)]
struct Plan0 {
    constraint: ConstraintId,
    plan: Plan,
    /// What the anchor's initial sites must be fed by: `(site, kind, terminal site)` per process
    /// of the pattern into the anchor (a fast refusal, read once per primitive).
    needs: SmallVec<[(u16, u32, u16); 4]>,
}

/// Level-n plans: anchored at one variable, or at both ends of one pattern link.
#[derive(Debug, Clone, Default)]
struct PlansN {
    /// Per node kind: `(constraint, plan)` anchored at a variable of that kind that is not an end
    /// of a two-ended CEL link (those are reached from the new links).
    by_kind: Vec<Vec<(ConstraintId, Plan)>>,
    /// Per constraint of the level below (the link's label): `(constraint, plan, kinds)` anchored
    /// at the two ends of a pattern link with that label, whose variables have these node kinds
    /// (a link whose members are of other kinds is not tried: the plan would refuse it at once).
    by_link: Vec<Vec<(ConstraintId, Plan, [u32; 2])>>,
}

impl Plan0 {
    /// Heap bytes held by the plan and its list of needs.
    fn heap_bytes(&self) -> usize {
        self.plan.heap_bytes() + small_bytes(&self.needs)
    }
}

impl PlansN {
    /// Heap bytes held by the plans and their per-kind and per-link tables.
    fn heap_bytes(&self) -> usize {
        let by_kind = self
            .by_kind
            .iter()
            .map(|v| vec_bytes(v) + v.iter().map(|(_, p)| p.heap_bytes()).sum::<usize>());
        let by_link = self
            .by_link
            .iter()
            .map(|v| vec_bytes(v) + v.iter().map(|(_, p, _)| p.heap_bytes()).sum::<usize>());
        vec_bytes(&self.by_kind) + by_kind.sum::<usize>() + vec_bytes(&self.by_link) + by_link.sum::<usize>()
    }

    /// The plans of level `lv` (n ≥ 1).
    fn compile(setting: &Setting, lv: &Level) -> Self {
        let mut pn = PlansN {
            by_kind: vec![Vec::new(); setting.classes().len()],
            by_link: vec![Vec::new(); setting.constraints().len()],
        };
        let empty = LevelHost::default();
        for &c in &lv.table.constraints {
            let p = &setting.constraint(c).pattern;
            // A variable at an end of a two-ended CEL link is reached from the new links: every
            // link of a new node is new (it was made when the node came, or later), so a match
            // holding a new node there is found from that link. Only the other variables are
            // anchored at new nodes.
            let on_link = |v: usize| {
                p.links.iter().any(|l| {
                    matches!((l.label, &l.ends[..]), (LinkLabel::Cel(_), [(a, _), (b, _)]) if *a as usize == v || *b as usize == v)
                })
            };
            for (v, var) in p.vars.iter().enumerate() {
                if !on_link(v) {
                    pn.by_kind[var.kind as usize].push((c, Plan::compile(p, &[v], &empty)));
                }
            }
            for (li, l) in p.links.iter().enumerate() {
                if let (LinkLabel::Cel(on), [(a, _), (b, _)]) = (l.label, &l.ends[..]) {
                    // (Run at the two members of a new link labelled so: the link holds.)
                    let plan = Plan::compile_at_link(p, li, &empty).expect("a two-ended link");
                    let kinds = [p.vars[*a as usize].kind, p.vars[*b as usize].kind];
                    pn.by_link[on.0 as usize].push((c, plan, kinds));
                }
            }
        }
        pn
    }
}

/// Heap bytes a timeline holds, part by part ([`Timeline::memory`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TimelineMemory {
    /// The struct (its primitives and processes).
    #[serde(rename = "struct")]
    pub strukt: usize,
    /// Level 0: per primitive, where the matches anchored at it begin.
    pub anchors: usize,
    /// The journal of the steps that can be taken back, and their deltas (a live timeline's;
    /// none for a record classified without one).
    pub journal: usize,
    /// Each level's parts, from level 0 up.
    pub levels: Vec<LevelMemory>,
    /// What is compiled once from the setting when the timeline is made: each level's class
    /// table (its classes' automata and per-constraint tables) and the plans of the matcher.
    /// Shared by a timeline's forks; it does not grow with the struct.
    pub compiled: usize,
}

/// A struct growing step by step, classified at every level as it grows.
#[derive(Debug, Clone)]
pub struct Timeline {
    setting: Arc<Setting>,
    top: u32,
    strukt: Struct,
    /// First node of each step begun.
    step_start: Vec<NodeId>,
    levels: Vec<Level>,
    open: bool,
    /// Earlier primitives that lost their last open terminal site at this step.
    sealed: Vec<NodeId>,
    /// The slots of the terminal sites of earlier primitives filled or closed at this step (kept
    /// for the journal only: an undo frees them again, [`Struct::free_slot`]).
    filled: Vec<u32>,
    /// The struct's count of processes when the current step began (for the journal).
    processes_before: usize,
    /// Level 0: per primitive kind, the plans anchored at it (compiled once, shared by forks).
    plans0: Arc<Vec<Vec<Plan0>>>,
    /// Level 0: whether every pattern's parts are linked, so that the matches holding a primitive
    /// are anchored within `reach0` of it ([`matches_near`]).
    connected0: bool,
    /// Level 0: the largest number of links between two variables of a pattern (how far from a
    /// primitive the matches holding it reach).
    reach0: usize,
    /// Levels ≥ 1: their plans (compiled once, shared by forks).
    plans_n: Arc<Vec<PlansN>>,
    scratch: PlanScratch,
    /// The journal of each step, when undo is kept. (Each step's log and deltas are shared
    /// between forks of the timeline: written once, at the step's end, and read or dropped by
    /// an undo, so a clone copies a pointer per step, not the history.)
    log: Option<Vec<Arc<StepLog>>>,
    /// With the journal: level 0's quiet state after the last step but one, `(that step,
    /// state)`, put aside when the last step began, so that taking it back leaves the next
    /// step's quiet pass what the last one had (only for the last step: one taken back after
    /// it leaves the next step without a quiet pass, as before). Its step is `NONE` while it
    /// only keeps lists to be reused. (A persisting set the first journaled step dissolved is not
    /// put back, so after an undo of that step its former members are derived again at the next;
    /// with the journal kept from the first step, as the Game API keeps it, there is no set.)
    quiet_saved: Option<(u32, Box<level::QuietState>)>,
    /// The lists of the last step taken back, emptied: the next step writes its journal into
    /// them (a search that tries move after move grows no new ones).
    journal_spare: Journal,
    /// A list of slots an undone step's log gave back (its capacity kept for the next step's).
    slots_spare: Vec<u32>,
    /// Level 0's lists of the step's dirty primitives (bits, and classes per primitive), kept
    /// from one step to the next. Between steps the classes are all zero: a step clears those it
    /// marked, not the whole list.
    dirty_spare: (Vec<u64>, Vec<u64>),
    /// The source's slots before the open step, when it is a copy of a copy (for the journal).
    refill: Option<(u32, Vec<i16>, Vec<u8>)>,
    /// Lists an undone step's `refill` gave back.
    refill_spare: Option<(Vec<i16>, Vec<u8>)>,
    /// The struct's record of its last plain copy when the open step began (for the journal).
    last_copy_before: Option<LastCopy>,
    /// The primitives a step made as a copy of a copy sealed, as offsets in its source, and the
    /// first nodes of the last steps that sealed those (each such a copy of the one before, but
    /// the first): a copy of one of them seals the same ([`Timeline::refilled`]).
    sealed_rel: CopyKept<Vec<u32>>,
    /// The journal asked for while a step was open: kept from the next step on (what the open
    /// step filled before was not written down).
    log_next: bool,
    /// Per step: the deltas of every level (kept with the journal, so that undo restores the
    /// previous step's).
    deltas: Vec<Arc<[LevelDelta]>>,
    /// Steps whose levels above 0 were brought up to date on a second thread.
    piped: u64,
    /// Level 0: which primitives repeat the step before, and where no plan needs to run.
    repeats: repeats::Repeats,
    /// The open step, while it is one copy of the whole step before ([`Timeline::add_copy`] and
    /// nothing added, joined or closed since): the offsets whose kinds changed. Its other nodes
    /// then repeat the step before's at their offsets ([`repeats::Repeats::step`]).
    copy: Option<Vec<u32>>,
    /// Which of this step's primitives have an open terminal site (bits from its first), as
    /// level 0 read them at the end of the last steps made as copies of one another (the first
    /// node of each): a copy of the whole step before has the open sites its source had when
    /// its own step ended, one translation on ([`Timeline::open_bits`]).
    open_bits: CopyKept<Vec<u64>>,
}

/// A value that holds for the last steps made as copies of one another ([`Timeline::add_copy`]):
/// the first node of each (the last four), and the value. A step that copies one of them has the
/// same value ([`CopyKept::keep`] it for that step too); any other step sets it anew; an undo
/// forgets the steps it takes back.
#[derive(Debug, Clone, Default)]
struct CopyKept<T> {
    steps: SmallVec<[NodeId; 4]>,
    value: T,
}

impl<T> CopyKept<T> {
    /// The value, when it holds for the step that begins at node `first`.
    fn get(&self, first: NodeId) -> Option<&T> {
        self.steps.contains(&first).then_some(&self.value)
    }
    /// The value holds for the step that begins at `first` too.
    fn keep(&mut self, first: NodeId) {
        if self.steps.len() == self.steps.inline_size() {
            self.steps.remove(0);
        }
        self.steps.push(first);
    }
    /// The value, to be set, for the step that begins at `first` alone.
    fn set(&mut self, first: NodeId) -> &mut T {
        self.steps.clear();
        self.steps.push(first);
        &mut self.value
    }
    /// The steps from node `first` on are taken back.
    fn forget_from(&mut self, first: NodeId) {
        self.steps.retain(|f| *f < first);
    }
}

impl Timeline {
    /// An empty timeline classifying levels `0..=top` (default: every level of the setting).
    pub fn new(setting: Arc<Setting>, top: Option<u32>) -> Self {
        let top = top.unwrap_or(setting.max_level()).min(setting.max_level());
        let strukt = Struct::new(setting.alphabet().clone());
        let levels: Vec<Level> = (0..=top).map(|n| Level::new(&setting, n)).collect();
        let kinds = setting.alphabet().len();
        let mut plans0: Vec<Vec<Plan0>> = vec![Vec::new(); kinds];
        let mut reach0 = 1;
        let mut connected0 = true;
        for &c in &levels[0].table.constraints {
            let p = &setting.constraint(c).pattern;
            reach0 = reach0.max(diameter(p));
            connected0 &= connected(p);
            for (v, var) in p.vars.iter().enumerate() {
                let source = p
                    .links
                    .iter()
                    .any(|l| l.ends.iter().any(|&(w, r)| w as usize == v && r == 0));
                if source {
                    continue;
                }
                let plan = Plan::compile(p, &[v], &strukt);
                let needs = p
                    .links
                    .iter()
                    .filter_map(|l| match (l.label, &l.ends[..]) {
                        (LinkLabel::Process { from_site, to_site }, [(a, _), (b, _)]) if *b as usize == v => {
                            Some((to_site, p.vars[*a as usize].kind, from_site))
                        }
                        _ => None,
                    })
                    .collect();
                plans0[var.kind as usize].push(Plan0 {
                    constraint: c,
                    plan,
                    needs,
                });
            }
        }
        let plans_n: Vec<PlansN> = levels
            .iter()
            .map(|lv| {
                if lv.n == 0 {
                    PlansN::default()
                } else {
                    PlansN::compile(&setting, lv)
                }
            })
            .collect();
        Timeline {
            setting,
            top,
            strukt,
            step_start: Vec::new(),
            levels,
            open: false,
            sealed: Vec::new(),
            filled: Vec::new(),
            processes_before: 0,
            plans0: Arc::new(plans0),
            connected0,
            reach0,
            plans_n: Arc::new(plans_n),
            scratch: PlanScratch::default(),
            quiet_saved: None,
            journal_spare: Journal::default(),
            slots_spare: Vec::new(),
            dirty_spare: (Vec::new(), Vec::new()),
            refill: None,
            refill_spare: None,
            last_copy_before: None,
            sealed_rel: Default::default(),
            log: None,
            log_next: false,
            deltas: Vec::new(),
            piped: 0,
            // A pattern in unconnected parts matches anywhere: its matches are not found near a
            // primitive, and no primitive is clean for it.
            repeats: repeats::Repeats::new(!connected0),
            copy: None,
            open_bits: Default::default(),
        }
    }

    /// Keeps a journal of every step from now on, so that steps can be taken back
    /// ([`Timeline::undo`]). Off by default (a recorded game is classified without one).
    ///
    /// Asked for while a step is open, the journal begins with the next step.
    pub fn keep_journal(&mut self, keep: bool) {
        self.log_next = keep && self.open;
        self.log = None;
        self.deltas.clear();
        self.quiet_saved = None;
        self.journal_spare = Journal::default();
        self.slots_spare = Vec::new();
        if keep && !self.open {
            self.begin_journal();
        }
    }

    /// The journal begins (between two steps): the deltas of the last step taken, if any, are
    /// what taking back the next one restores.
    fn begin_journal(&mut self) {
        self.log = Some(Vec::new());
        self.deltas.clear();
        if !self.step_start.is_empty() {
            self.deltas
                .push(self.levels.iter().map(|lv| lv.delta.clone()).collect());
        }
    }

    /// Whether stillborn derivations are remembered and made again without deriving them while
    /// what they read has not changed (on by default; the timeline is the same either way: see
    /// the `memo` module). Off, every start is derived: for measuring and testing the memo.
    pub fn remember_floods(&mut self, on: bool) {
        for lv in &mut self.levels {
            lv.memo.on = on;
        }
    }
    /// Whether the starts of levels n ≥ 1 are derived first as trials, which make a stillborn
    /// element without writing its derivation out (on by default; the timeline is the same
    /// either way: see the `trial` module). Off, every start is derived by the general route:
    /// for measuring and testing the trials.
    pub fn trial_derivations(&mut self, on: bool) {
        for lv in &mut self.levels {
            lv.trial.on = on;
        }
    }
    /// Whether a trial derivation is left out where it could only give up: its start leads to a
    /// state with no step that ends the element (on by default; the timeline is the same either
    /// way, and so are the trials' stillborn elements). Off, every start is tried (while
    /// [`Timeline::trial_derivations`] is on): for measuring and testing the skip.
    pub fn trial_skips(&mut self, on: bool) {
        for lv in &mut self.levels {
            lv.trial.skips = on;
        }
    }
    /// How many starts were not tried as trials because they could only give up
    /// ([`Timeline::trial_skips`]), over every level (steps taken back included).
    pub fn trials_skipped(&self) -> u64 {
        self.levels.iter().map(|lv| lv.trial.skipped).sum()
    }
    /// Whether an element made at a step, in a state its schedule leaves only through loops and
    /// endings, ends at the first ending step that applies to it (on by default;
    /// `docs/semantics.md`, "a derivation begun at a step ends at its first ending step"). Off,
    /// it takes every loop open first, as an element alive before the step does: the reading
    /// before 2026-12-03, for measuring it and for comparing the two (the elements are the same
    /// where a class's steps join what they join both ways; ids differ).
    pub fn end_at_once(&mut self, on: bool) {
        for lv in &mut self.levels {
            lv.end_at_once = on;
        }
    }
    /// Whether, at levels n ≥ 1, a match is routed first to the elements made at its step, and
    /// a late fork is not made where such a fork of an element born no later holds its match
    /// already (on by default; `docs/semantics.md`, "Late forks"). Where the forks a change makes,
    /// one per match of the change, converge on one element and merge at the end of the step,
    /// the oldest surviving, the fork first in the routing takes the other matches before the
    /// older elements are offered them. Off: the reading before 2026-12-07, for measuring and
    /// comparing the two. The two readings can make different elements (a younger element's fork
    /// no longer stops an older one's; a fork offered a match first may fork from its own
    /// derivation); where the forks converge (on every record compared: `docs/semantics.md`,
    /// "Late forks"), only the ids differ, since fewer derivations are begun.
    pub fn forks_first(&mut self, on: bool) {
        for lv in &mut self.levels {
            lv.forks_first = on;
        }
    }
    /// How many late forks levels n ≥ 1 made (`docs/semantics.md`, "Late forks"; fewer with
    /// [`Timeline::forks_first`]), over every level (steps taken back included).
    pub fn late_forks_made(&self) -> u64 {
        self.levels.iter().map(|lv| lv.late_forks).sum()
    }
    /// How many stillborn elements trial derivations made, over every level (steps taken back
    /// included).
    pub fn trials_made(&self) -> u64 {
        self.levels.iter().map(|lv| lv.trial.made).sum()
    }
    /// How many stillborn elements were made from the memo instead of derived, over every level
    /// (steps taken back included).
    pub fn flood_replays(&self) -> u64 {
        self.levels.iter().map(|lv| lv.memo.replays).sum()
    }

    /// How many steps had their levels above 0 brought up to date on a second thread
    /// ([`Timeline::pipelined`]).
    pub fn steps_pipelined(&self) -> u64 {
        self.piped
    }

    /// Whether level 0 takes the matches at a primitive that repeats the step before, in a
    /// neighbourhood that does too, as the images of those at the primitive it repeats instead of
    /// running the plans there (on by default; the timeline is the same either way: see the
    /// `repeats` module and `docs/design-repeats.md`). Off, every primitive is matched: for
    /// measuring and testing.
    pub fn find_repeats(&mut self, on: bool) {
        self.repeats.off = !on;
    }
    /// Whether level 0 carries the elements that stay quiet from one step to the next without
    /// visiting them (on by default, while no journal is kept; the timeline is the same either
    /// way: see the `persist` module). Off, every quiet element is visited at every step: for
    /// measuring and testing.
    pub fn persisting(&mut self, on: bool) {
        self.levels[0].pers.off = !on;
    }
    /// What level 0 found of repeats, over every step (steps taken back included).
    pub fn repeat_counts(&self) -> RepeatCounts {
        RepeatCounts {
            primitives: self.repeats.node_count,
            clean: self.repeats.clean_count,
            calm: self.repeats.calm_count,
            partial: self.repeats.partial_count,
            quiet: self.levels[0].quiet_count,
        }
    }

    /// The setting.
    pub fn setting(&self) -> &Arc<Setting> {
        &self.setting
    }
    /// The highest level classified.
    pub fn top(&self) -> u32 {
        self.top
    }
    /// The struct so far.
    pub fn strukt(&self) -> &Struct {
        &self.strukt
    }
    /// Number of steps begun.
    pub fn steps(&self) -> u32 {
        self.step_start.len() as u32
    }
    /// The current (or last) step, if any.
    pub fn step(&self) -> Option<u32> {
        self.step_start.len().checked_sub(1).map(|s| s as u32)
    }
    /// The step primitive `n` was added at.
    pub fn step_of(&self, n: NodeId) -> u32 {
        step_of(&self.step_start, n)
    }
    /// The first primitive of step `t`, and one past its last.
    pub fn step_nodes(&self, t: u32) -> std::ops::Range<NodeId> {
        let a = self.step_start[t as usize];
        let b = self
            .step_start
            .get(t as usize + 1)
            .copied()
            .unwrap_or(self.strukt.len() as NodeId);
        a..b
    }
    /// Level `n`.
    pub fn level(&self, n: u32) -> &Level {
        &self.levels[n as usize]
    }
    /// Every level, level 0 first.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }
    /// Releases the spare capacity of the struct and of every level's tables (a timeline that
    /// will grow no more: a recorded game classified to its end). It may still grow afterwards.
    pub fn shrink_to_fit(&mut self) {
        self.strukt.shrink_to_fit();
        self.journal_spare = Journal::default();
        self.slots_spare = Vec::new();
        self.dirty_spare = (Vec::new(), Vec::new());
        for lv in &mut self.levels {
            lv.shrink_to_fit();
        }
    }

    /// Heap bytes held: the struct, level 0's anchors, the journal, each level's matches,
    /// elements and indices, and what was compiled from the setting (the sum of
    /// [`Timeline::memory`]).
    pub fn heap_bytes(&self) -> usize {
        let m = self.memory();
        m.strukt + m.anchors + m.journal + m.levels.iter().map(LevelMemory::total).sum::<usize>() + m.compiled
    }

    /// Heap bytes held, part by part: where the memory of a timeline goes. (What a fork shares
    /// with it, the journal's steps and the compiled tables, is counted by each of them.)
    pub fn memory(&self) -> TimelineMemory {
        TimelineMemory {
            strukt: self.strukt.heap_bytes(),
            anchors: self.levels[0].anchors.heap_bytes() + self.levels[0].starts.capacity() * 4,
            journal: self.log.as_ref().map_or(0, |l| {
                l.capacity() * std::mem::size_of::<Arc<StepLog>>()
                    + l.iter()
                        .map(|s| std::mem::size_of::<StepLog>() + s.heap_bytes())
                        .sum::<usize>()
            }) + self.deltas.capacity() * std::mem::size_of::<Arc<[LevelDelta]>>()
                + self
                    .deltas
                    .iter()
                    .map(|d| {
                        d.len() * std::mem::size_of::<LevelDelta>()
                            + d.iter().map(LevelDelta::heap_bytes).sum::<usize>()
                    })
                    .sum::<usize>()
                + self
                    .quiet_saved
                    .as_ref()
                    .map_or(0, |(_, st)| std::mem::size_of::<level::QuietState>() + st.heap_bytes())
                + self.journal_spare.heap_bytes()
                + self.slots_spare.capacity() * 4
                + (self.dirty_spare.0.capacity() + self.dirty_spare.1.capacity()) * 8
                + (self.refill_spare.as_ref()).map_or(0, |(d, t)| d.capacity() * 2 + t.capacity()),
            levels: self.levels.iter().map(Level::memory).collect(),
            compiled: self.compiled_bytes(),
        }
    }

    /// Heap bytes of what was compiled from the setting when the timeline was made: the level-0
    /// and level-n plans and each level's class table, each in its `Arc`'s allocation.
    fn compiled_bytes(&self) -> usize {
        let plans0 = self
            .plans0
            .iter()
            .map(|v| vec_bytes(v) + v.iter().map(Plan0::heap_bytes).sum::<usize>());
        let tables = self
            .levels
            .iter()
            .map(|lv| arc_bytes::<ClassTable>() + lv.table.heap_bytes());
        arc_bytes::<Vec<Vec<Plan0>>>()
            + vec_bytes(&self.plans0)
            + plans0.sum::<usize>()
            + arc_bytes::<Vec<PlansN>>()
            + vec_bytes(&self.plans_n)
            + self.plans_n.iter().map(PlansN::heap_bytes).sum::<usize>()
            + tables.sum::<usize>()
    }

    /// Begins a step; returns its number.
    pub fn begin_step(&mut self) -> Result<u32, TimelineError> {
        if self.open {
            return Err(TimelineError::StepOpen);
        }
        self.open = true;
        if std::mem::take(&mut self.log_next) {
            self.begin_journal();
        }
        self.step_start.push(self.strukt.len() as NodeId);
        self.processes_before = self.strukt.process_count();
        self.sealed.clear();
        self.filled.clear();
        self.copy = None;
        self.refill = None;
        self.last_copy_before = self.strukt.last_copy();
        Ok(self.step_start.len() as u32 - 1)
    }

    fn first_node(&self) -> NodeId {
        self.step_start.last().copied().unwrap_or(0)
    }

    /// Adds a primitive of `kind` to the current step.
    pub fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError> {
        if !self.open {
            return Err(TimelineError::NoStep);
        }
        self.copy = None;
        Ok(self.strukt.add_primitive(kind)?)
    }

    /// Joins terminal site `from_site` of `from` to initial site `to_site` of `to`, a primitive of
    /// the current step added after `from`.
    pub fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError> {
        if !self.open {
            return Err(TimelineError::NoStep);
        }
        if to < self.first_node() || from >= to {
            return Err(TimelineError::Backward { from, to });
        }
        self.strukt.connect(from, from_site, to, to_site)?;
        self.copy = None;
        if from < self.first_node() {
            if self.log.is_some()
                && let Some(k) = self.strukt.terminal_slot_of(from, from_site)
            {
                self.filled.push(k);
            }
            if !self.strukt.has_open_terminal(from) {
                self.sealed.push(from);
            }
        }
        Ok(())
    }

    /// Adds to the current step a copy of the earlier nodes `src`, each fed as its original is,
    /// one translation on, and of its original's kind but where `kinds` says otherwise
    /// ([`Struct::append_copy`]: the same primitives and processes as [`Timeline::add`] and
    /// [`Timeline::connect`] would make one by one). Returns the copy's first node.
    pub fn add_copy(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
    ) -> Result<NodeId, TimelineError> {
        if !self.open {
            return Err(TimelineError::NoStep);
        }
        let first = self.first_node();
        let t = self.step_start.len() - 1;
        // The whole step before, into an empty step.
        let whole = t > 0 && src == (self.step_start[t - 1]..first) && self.strukt.len() as NodeId == first;
        let journal = self.log.is_some();
        let again = if whole {
            self.strukt.append_copy_again(src.clone(), kinds)?
        } else {
            None
        };
        let n = match again {
            Some(ag) => {
                self.refilled(src, ag, journal);
                ag.n0
            }
            None => self.copy_general(src, kinds, journal)?,
        };
        self.copy = whole.then(|| kinds.iter().map(|k| k.0).collect());
        Ok(n)
    }

    /// [`Timeline::add_copy`] the general way ([`Struct::append_copy`]): each earlier
    /// primitive's terminal site filled written down for the journal, and sealed.
    fn copy_general(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
        journal: bool,
    ) -> Result<NodeId, TimelineError> {
        let first = self.first_node();
        let (filled, sealed) = (&mut self.filled, &mut self.sealed);
        let n = self.strukt.append_copy_slots(
            src,
            kinds,
            #[inline(always)]
            |_, x, _, slot, open| {
                if x < first {
                    if journal {
                        filled.push(slot);
                    }
                    if !open {
                        sealed.push(x);
                    }
                }
            },
        )?;
        Ok(n)
    }

    /// After [`Struct::append_copy_again`] copied `src` (the whole step before, itself such a
    /// copy): the earlier primitives sealed, in the order the general copy seals them (a source
    /// primitive is sealed when the last of its open terminal sites is filled, by the copy's
    /// primitives and initial sites in order), and for the journal the source's slots as they
    /// were (the copy's, which are those).
    fn refilled(&mut self, src: std::ops::Range<NodeId>, ag: Again, journal: bool) {
        if journal {
            let (mut d, mut t) = self.refill_spare.take().unwrap_or_default();
            d.clear();
            t.clear();
            self.strukt.slots_of(ag.slot, ag.slots, &mut d, &mut t);
            self.refill = Some((ag.src_slot, d, t));
        }
        // The source was made as such a copy too: it sealed the primitives at the same offsets
        // in its source, in the same order (when those were kept).
        if let Some(rel) = self.sealed_rel.get(src.start) {
            self.sealed.extend(rel.iter().map(|&o| src.start + o));
            self.sealed_rel.keep(ag.n0);
            debug_assert_eq!(
                self.sealed,
                self.sealed_by_fills(src, ag.n0),
                "a copy's sealed primitives"
            );
            return;
        }
        self.sealed = self.sealed_by_fills(src.clone(), ag.n0);
        let rel = self.sealed_rel.set(ag.n0);
        rel.clear();
        rel.extend(self.sealed.iter().map(|&x| x - src.start));
    }

    /// The primitives of `src` a copy of it at `n0` sealed, in the order the general copy seals
    /// them (see [`Timeline::refilled`]).
    fn sealed_by_fills(&self, src: std::ops::Range<NodeId>, n0: NodeId) -> Vec<NodeId> {
        let s = &self.strukt;
        let shift = n0 - src.start;
        let mut sealed = Vec::new();
        // Per source primitive, its open terminal sites before (its copy's now).
        let mut left: Vec<u16> = (src.clone()).map(|x| s.open_terminal_count(x + shift) as u16).collect();
        for n in n0..n0 + (src.end - src.start) {
            for (y, _) in s.incoming(n) {
                if y < n0 && y >= src.start {
                    let l = &mut left[(y - src.start) as usize];
                    *l -= 1;
                    if *l == 0 {
                        sealed.push(y);
                    }
                }
            }
        }
        sealed
    }

    /// Closes terminal site `site` of `n`: what it emits ends unobserved.
    pub fn close(&mut self, n: NodeId, site: usize) -> Result<(), TimelineError> {
        if !self.open {
            return Err(TimelineError::NoStep);
        }
        let was_open = self.strukt.terminal_open(n, site);
        self.strukt.close_terminal(n, site)?;
        self.copy = None;
        if was_open && n < self.first_node() {
            if self.log.is_some()
                && let Some(k) = self.strukt.terminal_slot_of(n, site)
            {
                self.filled.push(k);
            }
            if !self.strukt.has_open_terminal(n) {
                self.sealed.push(n);
            }
        }
        Ok(())
    }

    /// Ends the step: brings every level up to date. Returns the level deltas.
    pub fn end_step(&mut self) -> Result<&[Level], TimelineError> {
        let t = self.close_step()?;
        if self.log.is_some() && t >= 1 {
            let mut st = self.quiet_saved.take().map(|(_, st)| st).unwrap_or_default();
            self.levels[0].save_quiet(&mut st);
            self.quiet_saved = Some((t - 1, st));
        } else {
            self.quiet_saved = None;
        }
        let mut log = self.log.is_some().then(|| StepLog {
            nodes: self.step_start[t as usize] as usize,
            processes: self.processes_before,
            ..StepLog::default()
        });
        for (k, lv) in self.levels.iter().enumerate() {
            if let Some(l) = log.as_mut() {
                l.sizes.push(LevelSizes {
                    matches: lv.store.len(),
                    pairs: lv.store.pair_count(),
                    multi: lv.store.multi_count(),
                    elements: lv.elems.len(),
                    host_nodes: lv.host.len(),
                    host_links: lv.host.links().len(),
                    holders_nodes: lv.node_holders.len(),
                    holders_spilled: lv.node_holders.spilled_len(),
                    index_nodes: lv.index.len(),
                    still_log: lv.still_log.len(),
                });
                l.due.push(lv.due.clone());
                let _ = k;
            }
        }
        let keep = log.is_some();
        let mut journal = if keep {
            std::mem::take(&mut self.journal_spare)
        } else {
            Journal::default()
        };
        self.level0_step(t, keep.then_some(&mut journal));
        for n in 1..=self.top {
            self.level_n_step(n, t, keep.then_some(&mut journal));
        }
        if let (Some(mut l), Some(all)) = (log, self.log.as_mut()) {
            l.journal = journal;
            // (The step's slots for its log; the spare list the log of the step before gave
            // back, for the next step's.)
            l.slots = std::mem::replace(&mut self.filled, std::mem::take(&mut self.slots_spare));
            l.refill = self.refill.take();
            l.last_copy = self.last_copy_before;
            l.pers = self.levels[0].pers.log.take();
            all.push(Arc::new(l));
            self.deltas
                .push(self.levels.iter().map(|lv| lv.delta.clone()).collect());
        }
        Ok(&self.levels)
    }

    /// Closes the open step; returns its number.
    fn close_step(&mut self) -> Result<u32, TimelineError> {
        if !self.open {
            return Err(TimelineError::NoStep);
        }
        self.open = false;
        Ok(self.step_start.len() as u32 - 1)
    }

    /// Which primitives of step `t` (from `first`, its first) have an open terminal site, as bits.
    /// A step that copies the whole step before ([`Timeline::add_copy`]) has its source's, as they
    /// were when the source's step ended (the copy's sites are copied from the source's before
    /// any of the source's is filled, and nothing of the source changed since its step ended):
    /// those are reused when kept ([`CopyKept`]).
    fn open_bits(&mut self, t: u32, first: NodeId) -> Vec<u64> {
        let source = (t as usize).checked_sub(1).map(|s| self.step_start[s]);
        let n = self.strukt.len() - first as usize;
        if self.copy.is_some()
            && let Some(f) = source
            && let Some(bits) = self.open_bits.get(f)
            && bits.len() == n.div_ceil(64)
        {
            let bits = bits.clone();
            self.open_bits.keep(first);
            debug_assert_eq!(bits, self.strukt.open_terminal_bits(first), "a copy's open sites");
            return bits;
        }
        let bits = self.strukt.open_terminal_bits(first);
        *self.open_bits.set(first) = bits.clone();
        bits
    }

    /// Level 0 at step `t`.
    fn level0_step(&mut self, t: u32, journal: Option<&mut Journal>) {
        let first_node = self.step_start[t as usize];
        let open_new = self.open_bits(t, first_node);
        let (mut dirty_new, mut dirty_cls) = std::mem::take(&mut self.dirty_spare);
        let lv = &mut self.levels[0];
        lv.clear_delta();
        lv.node_holders_before = first_node as usize;
        lv.starts.truncate(t as usize);
        lv.starts.push(first_node);
        // Out of the level while it derives (the step's readers borrow them), back at the end.
        let mut anchors = std::mem::take(&mut lv.anchors);
        let level_starts = std::mem::take(&mut lv.starts);
        // New matches, anchored at each new primitive as their latest one.
        let first_new = lv.store.len() as MatchId;
        let strukt = &self.strukt;
        self.repeats
            .step(strukt, &self.step_start, self.reach0, self.copy.as_deref());
        let mut flat: Vec<NodeId> = Vec::new();
        let mut fresh: Vec<(ConstraintId, u32)> = Vec::new();
        // The primitives found clean by their matches (`Repeats::calm`).
        let mut calm: Vec<NodeId> = Vec::new();
        // The primitives whose matches are not the images of their preimages' (neither clean nor
        // calm), for the seed index.
        let mut slow: Vec<NodeId> = Vec::new();
        let starts = &self.step_start;
        // The primitives held by a match that is not an image: earlier ones, and this step's (bits).
        dirty_new.clear();
        dirty_new.resize((strukt.len() - first_node as usize).div_ceil(64), 0);
        // (The classes are left zero by the step before, which clears those it marked.)
        debug_assert!(dirty_cls.iter().all(|&c| c == 0), "classes left by the step before");
        dirty_cls.resize(strukt.len() - first_node as usize, 0);
        let mut dirty = Dirty {
            first: first_node,
            old: Vec::new(),
            new: dirty_new,
            cls: dirty_cls,
        };
        // Per constraint, the classes that use or record it.
        let table0 = lv.table.clone();
        let user_bits = &table0.user_bits;
        // The repeats found partial ([`Repeats::partial`]), noted once the clean bits are read.
        let mut partials: Vec<(NodeId, SmallVec<[u32; 8]>)> = Vec::new();
        // The earliest primitive a match of this step holds.
        let mut least = first_node;
        // The images of the matches anchored at the primitives the clean ones repeat, copied a
        // run of consecutive clean primitives at a time (their originals' matches are
        // consecutive): `images` are those not copied yet, the first at `copied_to` in the store.
        let mut images = ImageRun {
            from: 0..0,
            to: first_new,
        };
        let sigma = repeats::Sigma::new(starts, strukt.len() as NodeId);
        let (len, clean) = (strukt.len() as NodeId, self.repeats.clean_words());
        let mut next = first_node;
        while next < len {
            let n = next;
            let i = (n - first_node) as usize;
            let word = clean.get(i / 64).copied().unwrap_or(0) >> (i % 64);
            if word & 1 == 1 {
                // The clean primitives from n on within this word of bits, taken at once.
                let k = ((!word).trailing_zeros() as usize)
                    .min(64 - i % 64)
                    .min((len - n) as usize);
                let p = repeats::original(starts, n) as usize;
                images.extend(&mut anchors, lv.store.len() as MatchId, p, k);
                next += k as NodeId;
                continue;
            }
            next += 1;
            let kind = strukt.kind_of(n).0 as usize;
            // What feeds each initial site: (kind, terminal site).
            let mut fed: SmallVec<[(u32, u16); 8]> = SmallVec::new();
            let mut s = 0;
            while let Some(x) = strukt.predecessor_or_free(n, s) {
                fed.push(x.map_or((u32::MAX, 0), |(m, t)| (strukt.kind_of(m).0, t as u16)));
                s += 1;
            }
            // A repeat whose matches are the σ-images of its preimage's, in the same order, is
            // clean after all (`Repeats::calm`): its matches are then taken as images. Its
            // matches are kept aside until they are compared; any other primitive's are new.
            let may_calm = self.repeats.may_calm(first_node, n);
            if !may_calm {
                least = images.flush(&mut lv.store, &sigma, t, least);
            }
            // The matches kept aside: (constraint, where its nodes begin in `flat`).
            flat.clear();
            fresh.clear();
            for p0 in &self.plans0[kind] {
                if !p0
                    .needs
                    .iter()
                    .all(|&(site, k, t)| fed.get(site as usize) == Some(&(k, t)))
                {
                    continue;
                }
                let p = &self.setting.constraint(p0.constraint).pattern;
                let k = p.vars.len();
                let from = flat.len();
                let _ = p0.plan.run(
                    strukt,
                    p,
                    &[n],
                    &mut |_, x| x <= n,
                    &mut |m| {
                        flat.extend_from_slice(m);
                        ControlFlow::Continue(())
                    },
                    &mut self.scratch,
                );
                if may_calm {
                    fresh.extend((from..flat.len()).step_by(k.max(1)).map(|i| (p0.constraint, i as u32)));
                } else {
                    for m in flat[from..].chunks(k.max(1)) {
                        lv.store.push(p0.constraint, m, t);
                        dirty.mark(m, &mut least, user_bits[p0.constraint.0 as usize]);
                    }
                }
            }
            if may_calm {
                let p = repeats::original(starts, n) as usize;
                let (a, b) = (anchors.get(p), anchors.get(p + 1));
                if (b - a) as usize == fresh.len()
                    && spans(&fresh, flat.len()).zip(a..b).all(|((c, r), m)| {
                        lv.store.constraint(m) == c
                            && lv
                                .store
                                .nodes(m)
                                .map(|x| sigma.next(x))
                                .eq(flat[r].iter().map(|&y| Some(y)))
                    })
                {
                    calm.push(n);
                    images.extend(&mut anchors, lv.store.len() as MatchId, p, 1);
                    continue;
                }
                least = images.flush(&mut lv.store, &sigma, t, least);
                // Images among its matches all the same, each of one match of p (the rank of each
                // at n, by the rank of its original at p): those mark nothing dirty.
                let mut ranks: SmallVec<[u32; 8]> = smallvec::smallvec![repeats::NO_IMAGE; (b - a) as usize];
                let mut any = false;
                for (j, (c, r)) in spans(&fresh, flat.len()).enumerate() {
                    let store = &lv.store;
                    let original = (a..b).find(|&m| {
                        ranks[(m - a) as usize] == repeats::NO_IMAGE
                            && store.constraint(m) == c
                            && store
                                .nodes(m)
                                .map(|x| sigma.next(x))
                                .eq(flat[r.clone()].iter().map(|&y| Some(y)))
                    });
                    lv.store.push(c, &flat[r.clone()], t);
                    match original {
                        Some(m) => {
                            ranks[(m - a) as usize] = j as u32;
                            any = true;
                            dirty.reach(&flat[r], &mut least);
                        }
                        None => dirty.mark(&flat[r], &mut least, user_bits[c.0 as usize]),
                    }
                }
                if any {
                    partials.push((n, ranks));
                }
            }
            slow.push(n);
            anchors.push(lv.store.len() as u32);
        }
        least = images.flush(&mut lv.store, &sigma, t, least);
        for n in calm {
            self.repeats.calm(first_node, n);
        }
        for (n, ranks) in partials {
            self.repeats.partial(n, ranks);
        }
        // This step's seed index (`seeds.rs`): from the step before's where the step repeats it,
        // with new lists only where a primitive is not clean.
        let mut seed = std::mem::take(&mut lv.seed);
        seed.build(&seeds::StepIn {
            t,
            starts,
            len,
            first_new,
            least,
            store: &lv.store,
            table: &lv.table,
            anchors: &anchors,
            slow: (t > 0 && !self.repeats.off).then_some(&slow[..]),
        });
        let by_anchor = &anchors;
        let reach = if self.connected0 { self.reach0 } else { usize::MAX };
        let seeds = seed.seeds(by_anchor);
        // The matches near an earlier primitive, searched once a step each (the elements that
        // join one, a vertex's and its pairs', ask alike): where each begins and ends in `list`.
        let near: NearMemo = Default::default();
        let around = |x: NodeId, out: &mut Vec<MatchId>| {
            if x >= first_node {
                seeds.each(x, |m| out.push(m));
            } else {
                let mut memo = near.borrow_mut();
                let (at, list) = &mut *memo;
                let (a, b) = *at.entry(x).or_insert_with(|| {
                    let a = list.len();
                    matches_near(strukt, by_anchor, reach, x, list);
                    (a as u32, list.len() as u32)
                });
                out.extend_from_slice(&list[a as usize..b as usize]);
            }
        };
        let open = |x: NodeId| strukt.has_open_terminal(x);
        let step_of_node = |x: NodeId| step_of(starts, x);
        let Dirty {
            old: mut dirty_olds,
            new: dirty_new,
            cls: mut dirty_cls,
            ..
        } = dirty;
        // The earlier primitives, each once, with the classes of all the matches marking it.
        dirty_olds.sort_unstable_by_key(|&(x, _)| x);
        let mut dirty_old: Vec<NodeId> = Vec::with_capacity(dirty_olds.len());
        let mut dirty_old_cls: Vec<u64> = Vec::with_capacity(dirty_olds.len());
        for (x, c) in dirty_olds {
            if dirty_old.last() == Some(&x) {
                *dirty_old_cls.last_mut().expect("one per primitive") |= c;
            } else {
                dirty_old.push(x);
                dirty_old_cls.push(c);
            }
        }
        let (rp, len) = (&self.repeats, strukt.len() as NodeId);
        let shifts = runs::Shifts {
            starts: &level_starts,
            anchors: by_anchor,
        };
        let finds = t > 0 && !self.repeats.off;
        let mut cx = StepCtx {
            t,
            first_new,
            first_node,
            pass_at: MatchId::MAX,
            journal,
            open: &open,
            open_new: &open_new,
            step_of: &step_of_node,
            around: &around,
            resolve: Vec::new(),
            catch: Vec::new(),
            image: finds.then(|| repeats::Images::new(rp, by_anchor, starts, len)),
            shift: finds.then_some(sigma),
            dirty_old: &dirty_old,
            dirty_old_cls: &dirty_old_cls,
            dirty_new: &dirty_new,
            dirty_cls: &dirty_cls,
            shifts: Some(shifts),
            seeds: Some(seeds),
            span: t - step_of(starts, least),
            quiet: false,
            level0: true,
        };
        // A holder slot for each primitive of the step at once, not one at a time as they are
        // joined (nearly all are, by the elements that take their images).
        if let Some(last) = strukt.len().checked_sub(1).filter(|&l| l >= first_node as usize) {
            lv.node_holders.cover(last);
        }
        // Elements closed at the last step while present at it end now.
        let due = std::mem::take(&mut lv.due);
        for e in due {
            lv.delta.ended.push(e);
        }
        // The persisting elements are carried to this step first ([`persist`]); then the earlier
        // primitives sealed at this step take one open primitive from each holder (a persisting
        // one without a touch).
        lv.persist_begin(&cx);
        lv.seal(&mut cx, &self.sealed);
        lv.derive(&mut cx, &[]);
        // Elements that can no longer grow end: now, or at the next step if they began at this one
        // (they happened at it: a play, a removal).
        // (In any order: ending one touches nothing new, and what it writes is sorted at the end
        // of the step.)
        for i in 0..lv.touched_now.len() {
            let e = lv.touched_now[i];
            let el = &lv.elems[e as usize];
            if el.ended != NONE || el.stillborn || el.open > 0 {
                continue;
            }
            if el.born == t {
                lv.end_element(&mut cx, e, t + 1, EndKind::Closed);
                lv.due.push(e);
            } else {
                lv.end_element(&mut cx, e, t, EndKind::Closed);
            }
        }
        let journaled = cx.journal.is_some();
        lv.finish_delta(journaled);
        drop(cx);
        lv.anchors = anchors;
        lv.starts = level_starts;
        lv.seed = seed;
        // A primitive's classes are marked only with its bit (`Dirty::mark`): those cleared, the
        // list is zero again.
        for (w, &word) in dirty_new.iter().enumerate() {
            let mut b = word;
            while b != 0 {
                dirty_cls[w * 64 + b.trailing_zeros() as usize] = 0;
                b &= b - 1;
            }
        }
        self.dirty_spare = (dirty_new, dirty_cls);
    }

    /// Level `n` ≥ 1 at step `t`: feed it from level n−1, find its new matches, derive.
    fn level_n_step(&mut self, n: u32, t: u32, journal: Option<&mut Journal>) {
        let (lower, upper) = self.levels.split_at_mut(n as usize);
        let lv = &mut upper[0];
        let feed = Feed::of(&mut lower[n as usize - 1], t, lv.host.len());
        feed.take(lv, &self.plans_n[n as usize], &self.setting, &mut self.scratch, journal);
    }

    /// Level 0's persisting set tests every holder word and slot it carries from the step
    /// before and panics on one not held by persisting elements only; returns how many it has
    /// carried so far.
    #[cfg(test)]
    pub(crate) fn verify_carried(&mut self) -> u64 {
        self.levels[0].pers.verify = true;
        self.levels[0].pers.carried
    }

    /// Checks level 0's seed index of the latest step against its definition
    /// ([`seeds::SeedIndex::check`]), if it is kept (an undo past the steps kept forgets it);
    /// whether it was built from the step before's.
    #[cfg(test)]
    pub(crate) fn check_seed_index(&self) -> Option<bool> {
        let lv = &self.levels[0];
        lv.seed.built().then(|| {
            lv.seed.check(
                &lv.store,
                &lv.table,
                &lv.anchors,
                &self.step_start,
                self.strukt.len() as NodeId,
            );
            lv.seed.stepped()
        })
    }

    /// Takes the last step back: the timeline is as it was before it began. Needs the journal
    /// ([`Timeline::keep_journal`]).
    pub fn undo(&mut self) -> Result<(), TimelineError> {
        let Some(log) = self.log.as_mut() else {
            return Err(TimelineError::NothingToUndo);
        };
        if self.open {
            return Err(TimelineError::StepOpen);
        }
        let Some(l) = log.pop() else {
            return Err(TimelineError::NothingToUndo);
        };
        // (A log a fork shares is read through a copy.)
        let l = Arc::unwrap_or_clone(l);
        self.deltas.pop();
        let undone = self.step_start.len() as u32 - 1;
        let undone_first = self.step_start[undone as usize];
        self.open_bits.forget_from(undone_first);
        self.sealed_rel.forget_from(undone_first);
        for lv in &mut self.levels {
            lv.memo.forget_from(undone);
        }
        let mut l = l;
        let mut journal = std::mem::take(&mut l.journal);
        let Journal { entries, snaps } = &mut journal;
        for e in entries.drain(..).rev() {
            match e {
                Entry::Elem(n, el, i) => self.levels[n as usize].restore(el, &snaps[i as usize]),
                Entry::NodeHolders(n, x, len) => self.levels[n as usize]
                    .node_holders
                    .truncate_node(x as usize, len as usize),
                Entry::MatchHolder(n, m, w, len) => self.levels[n as usize].store.restore_holder(m, w, len),
                Entry::Index(n, x, len) => self.levels[n as usize].index[x as usize].truncate(len as usize),
                Entry::IndexRemoved(n, x, i, m) => self.levels[n as usize].index[x as usize].insert(i as usize, m),
                Entry::HostEnded(n, x) => {
                    let lv = &mut self.levels[n as usize];
                    lv.host.unend(x);
                    lv.note_node_end(x, NONE);
                }
                Entry::Changed(n, x, old) => self.levels[n as usize].memo.restore_mark(x, old),
            }
        }
        snaps.clear();
        self.journal_spare = journal;
        // The terminal sites the step filled, free again (they were first in its changes).
        for &k in l.slots.iter().rev() {
            self.strukt.free_slot(k);
        }
        l.slots.clear();
        self.slots_spare = std::mem::take(&mut l.slots);
        // A copy of a copy: its source's slots as they were.
        if let Some((from, d, t)) = l.refill.take() {
            self.strukt.restore_slots(from, &d, &t);
            self.refill_spare = Some((d, t));
        }
        // The persisting set as the step before left it (its members were not touched).
        let starts_known = l.pers.take().is_some_and(|p| self.levels[0].persist_undo(&p));
        if !starts_known {
            self.levels[0].forget_start_bits();
        }
        self.levels[0].kept_undo(undone);
        for (k, (sz, due)) in l.sizes.iter().zip(l.due).enumerate() {
            let lv = &mut self.levels[k];
            // Only the levels above 0 keep the matches they found (level 0's are anchored once,
            // at the primitive they end with), so only they have any to forget.
            if k > 0 {
                for m in sz.matches..lv.store.len() {
                    lv.seen.remove(&lv.store, m as MatchId);
                }
            }
            lv.store.truncate(sz.matches, sz.pairs, sz.multi);
            lv.gone.truncate(sz.matches);
            level::truncate_elements(lv, sz.elements);
            // Elements below that became nodes at the undone step are not nodes any more.
            if k > 0 {
                let made: Vec<ElementId> = (sz.host_nodes..lv.host.len())
                    .map(|x| lv.host.below(x as NodeId))
                    .collect();
                let below = &mut self.levels[k - 1];
                for e in made {
                    if let Some(a) = below.above.get_mut(e as usize) {
                        *a = NONE;
                    }
                }
            }
            let lv = &mut self.levels[k];
            lv.host.truncate(sz.host_nodes, sz.host_links);
            lv.node_holders.truncate(sz.holders_nodes, sz.holders_spilled);
            // (Elements may be alive again, and lists shorter.)
            lv.dead_prefix.clear();
            while lv.still_log.len() > sz.still_log {
                let x = lv.still_log.pop().expect("longer than kept");
                lv.node_stillborn[x as usize].pop();
            }
            lv.index.truncate(sz.index_nodes);
            lv.due = due;
        }
        self.strukt.truncate_known(l.nodes, l.processes);
        // (The struct is as it was when the step began.)
        self.strukt.set_last_copy(l.last_copy);
        self.levels[0].anchors.truncate(l.nodes + 1);
        self.levels[0].seed.undo(undone);
        self.step_start.pop();
        let steps = self.step_start.len();
        self.levels[0].starts.truncate(steps);
        self.repeats.truncate(self.step_start.len());
        for lv in &mut self.levels {
            lv.touched_prev.clear();
            lv.touched_now.clear();
            lv.quiet_at = NONE;
        }
        // The step now last is the one the saved quiet state followed: the next step's quiet pass
        // reads it as it would have after that step.
        if let Some((s, st)) = self.quiet_saved.as_mut() {
            if *s != NONE && *s + 1 == undone {
                self.levels[0].restore_quiet(st);
            }
            *s = NONE;
        }
        let prev = self.deltas.last().cloned();
        for (k, lv) in self.levels.iter_mut().enumerate() {
            lv.delta = prev.as_ref().map(|d| d[k].clone()).unwrap_or_default();
        }
        Ok(())
    }
}

/// Level 0, while a step's matches are found: the images of the matches anchored at a run of
/// consecutive clean primitives' originals (consecutive matches) not copied yet, `from`, whose
/// copies begin at `to` in the store.
struct ImageRun {
    from: std::ops::Range<MatchId>,
    to: MatchId,
}

impl ImageRun {
    /// The `k` primitives whose originals begin at `p` are clean: their originals' matches join
    /// the run (which begins at `store_len` if it was empty), and their anchors are pushed.
    #[inline]
    fn extend(&mut self, anchors: &mut runs::Anchors, store_len: MatchId, p: usize, k: usize) {
        let a = anchors.get(p);
        if self.from.is_empty() {
            self.from = a..a;
            self.to = store_len;
        }
        debug_assert_eq!(self.from.end, a);
        // (Each anchor moved by one amount: the images come after their originals.)
        anchors.extend_shifted(p + 1, k, self.to - self.from.start);
        self.from.end = anchors.get(p + k);
    }
    /// Copies the run into the store (it is then empty); returns the earliest primitive a match
    /// of the step holds, from `least`.
    #[inline]
    fn flush(&mut self, store: &mut store::MatchStore, sigma: &repeats::Sigma, t: u32, least: NodeId) -> NodeId {
        let run = std::mem::replace(&mut self.from, 0..0);
        store.push_images(run, |x| sigma.image(x), sigma.constant(), t, least)
    }
}

/// Level 0: the matches kept aside at a primitive, each `(constraint, where its nodes begin in a
/// list of `len` nodes)`, as (constraint, the range of its nodes).
fn spans(
    fresh: &[(ConstraintId, u32)],
    len: usize,
) -> impl Iterator<Item = (ConstraintId, std::ops::Range<usize>)> + '_ {
    let ends = fresh.iter().skip(1).map(|&(_, i)| i as usize).chain([len]);
    fresh.iter().zip(ends).map(|(&(c, i), j)| (c, i as usize..j))
}

/// Level 0, while a step's matches are found: the primitives held by a match that is not an
/// image (the earlier ones listed, the step's a bit each from its first), and per primitive the
/// classes that use or record the constraint of such a match (`ClassTable::user_bits`).
struct Dirty {
    first: NodeId,
    old: Vec<(NodeId, u64)>,
    new: Vec<u64>,
    /// Per primitive of the step, from its first: the classes of the matches that mark it.
    cls: Vec<u64>,
}

impl Dirty {
    /// The primitives of new match `m`, of a constraint the classes `classes` use or record, are
    /// dirty; `least` becomes the earliest one a match holds.
    #[inline]
    fn mark(&mut self, m: &[NodeId], least: &mut NodeId, classes: u64) {
        for &x in m {
            if x < self.first {
                self.old.push((x, classes));
                *least = (*least).min(x);
            } else {
                let i = (x - self.first) as usize;
                self.new[i / 64] |= 1 << (i % 64);
                self.cls[i] |= classes;
            }
        }
    }
    /// New match `m` is an image: `least` becomes the earliest primitive a match holds.
    #[inline]
    fn reach(&self, m: &[NodeId], least: &mut NodeId) {
        for &x in m {
            if x < self.first {
                *least = (*least).min(x);
            }
        }
    }
}

/// What level n−1 hands to level n at the end of a step: its elements that became nodes, the
/// nodes whose elements ended, and the class element links of shared applications. Built from the
/// lower level ([`Feed::of`]) and taken by the upper one ([`Feed::take`]), one after the other on
/// one thread, or on two when the levels run as a pipeline ([`Timeline::pipelined`]).
#[derive(Debug, Default)]
pub(crate) struct Feed {
    t: u32,
    /// Elements of level n−1 that became complete at `t` and are present at it, as
    /// `(node kind, element)`: they become the upper level's nodes from its current count on.
    nodes: Vec<(u32, ElementId)>,
    /// The upper level's nodes whose elements ended at `t` (as the lower delta lists them).
    ended: Vec<NodeId>,
    /// Links: per shared application of elements that are nodes, its constraint and its holders'
    /// nodes (sorted, at least two).
    links: Vec<(ConstraintId, SmallVec<[NodeId; 4]>)>,
}

impl Feed {
    /// What `below` hands up at step `t`, to a level with `host_len` nodes so far (the elements
    /// that become nodes get the ids from there on, in `below.above`).
    fn of(below: &mut Level, t: u32, host_len: usize) -> Feed {
        let mut feed = Feed { t, ..Feed::default() };
        // 1. Nodes: elements of level n−1 that became complete at t and are present at it.
        for &e in &below.delta.completed {
            let el = &below.elems[e as usize];
            if el.present_at(t) && below.above[e as usize] == NONE {
                below.above[e as usize] = (host_len + feed.nodes.len()) as NodeId;
                feed.nodes.push((el.class.0, e));
            }
        }
        // 2. Ended elements that were nodes end there.
        feed.ended = below
            .delta
            .ended
            .iter()
            .map(|&e| below.above[e as usize])
            .filter(|&x| x != NONE)
            .collect();
        // 3. Links: shared applications of elements that are nodes.
        // (Into a list the lower level keeps between steps.)
        let mut shared = std::mem::take(&mut below.feed_shared);
        shared.clear();
        shared.extend_from_slice(&below.shared);
        for &(_, e) in &feed.nodes {
            shared.extend_from_slice(&below.applications(e));
        }
        shared.sort_unstable();
        shared.dedup();
        let mut members: SmallVec<[NodeId; 4]> = SmallVec::new();
        for &m in &shared {
            members.clear();
            for &h in below.store.holders(m) {
                let x = below.above[h as usize];
                if x != NONE {
                    members.push(x);
                }
            }
            if members.len() < 2 {
                continue;
            }
            members.sort_unstable();
            members.dedup();
            if members.len() >= 2 {
                feed.links
                    .push((below.store.constraint(m), std::mem::take(&mut members)));
            }
        }
        below.feed_shared = shared;
        feed
    }

    /// Level `lv` (n ≥ 1) at the feed's step: takes its nodes, ends and links, finds the new
    /// matches and derives.
    fn take(
        self,
        lv: &mut Level,
        plans: &PlansN,
        setting: &Setting,
        scratch: &mut PlanScratch,
        mut journal: Option<&mut Journal>,
    ) {
        let (t, n) = (self.t, lv.n);
        lv.clear_delta();
        // Elements that ended at the last step while present at it end now.
        let due = std::mem::take(&mut lv.due);
        lv.delta.ended.extend(due);
        let host_before = lv.host.len();
        lv.node_holders_before = host_before;
        for (i, &(kind, e)) in self.nodes.iter().enumerate() {
            let x = lv.host.add_node(kind, e, t);
            debug_assert_eq!(x as usize, host_before + i, "the lower level numbered its new nodes");
        }
        for &x in &self.ended {
            if lv.host.ended(x).is_none() {
                if (x as usize) < host_before
                    && let Some(j) = journal.as_deref_mut()
                {
                    j.push(Entry::HostEnded(n as u8, x));
                }
                lv.host.end(x, t);
                lv.note_node_end(x, t);
            }
        }
        let links_before = lv.host.links().len();
        for (c, members) in &self.links {
            lv.host.link(*c, members, t);
        }
        derive_n(
            lv,
            plans,
            setting,
            scratch,
            t,
            host_before,
            links_before,
            journal,
            &self.ended,
        );
    }
}

/// The step of node `n`, given each step's first node ([`repeats::step_of`]: the last three steps
/// read at once).
fn step_of(starts: &[NodeId], n: NodeId) -> u32 {
    repeats::step_of(starts, n) as u32
}

/// Whether every variable of a pattern is linked to every other (through its links).
fn connected(p: &super::matching::Pattern) -> bool {
    let n = p.vars.len();
    let mut seen = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(v) = stack.pop() {
        if n == 0 || std::mem::replace(&mut seen[v], true) {
            continue;
        }
        for l in p.links.iter().filter(|l| l.ends.iter().any(|e| e.0 as usize == v)) {
            stack.extend(l.ends.iter().map(|e| e.0 as usize).filter(|&w| !seen[w]));
        }
    }
    seen.iter().all(|&x| x)
}

/// The largest number of links on a shortest path between two variables of a pattern.
fn diameter(p: &super::matching::Pattern) -> usize {
    let n = p.vars.len();
    let mut best = 0;
    for s in 0..n {
        let mut dist = vec![usize::MAX; n];
        dist[s] = 0;
        let mut q = std::collections::VecDeque::from([s]);
        while let Some(v) = q.pop_front() {
            for l in &p.links {
                if l.ends.iter().any(|e| e.0 as usize == v) {
                    for e in &l.ends {
                        let w = e.0 as usize;
                        if dist[w] == usize::MAX {
                            dist[w] = dist[v] + 1;
                            q.push_back(w);
                        }
                    }
                }
            }
        }
        best = best.max(dist.iter().copied().filter(|&d| d != usize::MAX).max().unwrap_or(0));
    }
    best
}

/// The matches [`matches_near`] found at a step, per earlier primitive: where they begin and end
/// in the list.
type NearMemo = std::cell::RefCell<(FxHashMap<NodeId, (u32, u32)>, Vec<MatchId>)>;

/// The matches holding primitive `x`: those anchored at a primitive within `reach` processes of
/// it (a match's primitives are that close to each other) and at or after it.
///
/// `reach` is `usize::MAX` when a pattern of the level is in unconnected parts (the DSL allows it,
/// with a warning): such a match may hold `x` and be anchored anywhere after it, unlinked to it,
/// so every match anchored at or after `x` is listed.
fn matches_near(s: &Struct, by_anchor: &runs::Anchors, reach: usize, x: NodeId, out: &mut Vec<MatchId>) {
    if reach == usize::MAX {
        let (Some(a), Some(b)) = (by_anchor.try_get(x as usize), by_anchor.last()) else {
            return;
        };
        out.extend(a..b);
        return;
    }
    // Breadth first, `reach` processes out, marking the nodes seen in a small table on the stack
    // (the neighbourhood holds a few dozen primitives); a larger one is searched again with sorted
    // lists.
    // (The nodes at or after `x` are listed as they are found: the table is not read back.)
    let mut seen = NearSet::new();
    let mut frontier: SmallVec<[NodeId; 64]> = SmallVec::new();
    let mut next: SmallVec<[NodeId; 64]> = SmallVec::new();
    let mut near: SmallVec<[NodeId; 128]> = SmallVec::new();
    seen.insert(x);
    frontier.push(x);
    near.push(x);
    for _ in 0..reach {
        next.clear();
        for &y in &frontier {
            s.for_each_adjacent(y, |z| {
                if seen.insert(z) {
                    next.push(z);
                    if z >= x {
                        near.push(z);
                    }
                }
            });
        }
        if seen.full() {
            return matches_near_sorted(s, by_anchor, reach, x, out);
        }
        if next.is_empty() {
            break;
        }
        std::mem::swap(&mut frontier, &mut next);
    }
    near.sort_unstable();
    anchored_at(by_anchor, &near, out);
}

/// The matches anchored at the nodes `near` (sorted), in node order.
fn anchored_at(by_anchor: &runs::Anchors, near: &[NodeId], out: &mut Vec<MatchId>) {
    for &y in near {
        let (Some(a), Some(b)) = (by_anchor.try_get(y as usize), by_anchor.try_get(y as usize + 1)) else {
            continue;
        };
        out.extend(a..b);
    }
}

/// [`matches_near`] for a neighbourhood too large for its table: each layer of the search sorted
/// and without the nodes seen before it.
fn matches_near_sorted(s: &Struct, by_anchor: &runs::Anchors, reach: usize, x: NodeId, out: &mut Vec<MatchId>) {
    let mut seen: Vec<NodeId> = vec![x];
    let mut frontier: Vec<NodeId> = vec![x];
    let mut next: Vec<NodeId> = Vec::new();
    for _ in 0..reach {
        next.clear();
        for &y in &frontier {
            s.for_each_adjacent(y, |z| next.push(z));
        }
        next.sort_unstable();
        next.dedup();
        next.retain(|z| seen.binary_search(z).is_err());
        if next.is_empty() {
            break;
        }
        seen.extend_from_slice(&next);
        seen.sort_unstable();
        std::mem::swap(&mut frontier, &mut next);
    }
    seen.retain(|&y| y >= x);
    anchored_at(by_anchor, &seen, out);
}

/// The nodes a [`matches_near`] search has seen: an open-addressed table of `NEAR` slots, full
/// at three quarters.
struct NearSet {
    slots: [NodeId; NEAR],
    len: usize,
}

/// Slots of a [`NearSet`] (a power of two). The 19x19 games' neighbourhoods at level 0's reach
/// hold 27–83 primitives (538351, every search of the game), under the 96 that fill it.
const NEAR: usize = 128;

impl NearSet {
    fn new() -> Self {
        NearSet {
            slots: [NodeId::MAX; NEAR],
            len: 0,
        }
    }
    /// Adds `x`; whether it was not there yet. Past three quarters full, it adds nothing more
    /// (and [`NearSet::full`] says so).
    #[inline]
    fn insert(&mut self, x: NodeId) -> bool {
        let mut i = (x.wrapping_mul(0x9E37_79B9) >> (32 - NEAR.trailing_zeros())) as usize;
        loop {
            match self.slots[i] {
                y if y == x => return false,
                NodeId::MAX => break,
                _ => i = (i + 1) & (NEAR - 1),
            }
        }
        if self.full() {
            return false;
        }
        self.slots[i] = x;
        self.len += 1;
        true
    }
    fn full(&self) -> bool {
        self.len >= NEAR * 3 / 4
    }
}

/// One plan run of a level-n step's search for new matches ([`derive_n`]), at `seeds`, over `h`
/// (the level's host `host`, or that host without some of its new links): each match found is
/// listed in `found` (latest node, constraint, where its nodes begin in `found_nodes`, how
/// many).
#[allow(clippy::too_many_arguments)]
#[inline]
fn run_at<H: Host + ?Sized>(
    h: &H,
    host: &host::LevelHost,
    t: u32,
    setting: &Setting,
    c: ConstraintId,
    plan: &Plan,
    seeds: &[NodeId],
    scratch: &mut PlanScratch,
    (found, found_nodes): (&mut Vec<level::Found>, &mut Vec<NodeId>),
) {
    let p = &setting.constraint(c).pattern;
    let _ = plan.run(
        h,
        p,
        seeds,
        &mut |_, x| host.matchable(x, t),
        &mut |m| {
            found.push((
                m.iter().copied().max().unwrap_or(0),
                c,
                found_nodes.len() as u32,
                m.len() as u32,
            ));
            found_nodes.extend_from_slice(m);
            ControlFlow::Continue(())
        },
        scratch,
    );
}

/// Level n ≥ 1 at step `t`, its host already fed (nodes from `host_before`, links from
/// `links_before` are new; `ended_nodes` ended at `t`): finds the new matches, anchored at new
/// nodes and links, and runs the derivations and the presence checks.
#[allow(clippy::too_many_arguments)]
fn derive_n(
    lv: &mut Level,
    plans: &PlansN,
    setting: &Setting,
    scratch: &mut PlanScratch,
    t: u32,
    host_before: usize,
    links_before: usize,
    mut journal: Option<&mut Journal>,
    ended_nodes: &[NodeId],
) {
    // 4. New matches: anchored at new nodes and new links. (A step without a journal, like every
    // one before it, is never taken back: the host may pass by for good what is over.)
    lv.host.set_at(t, journal.is_none());
    let first_new = lv.store.len() as MatchId;
    let n = lv.n;
    // (latest node, constraint, where its nodes begin in `found_nodes`, how many): the order the
    // matches are stored in, then their nodes. (Both lists kept by the level between steps, and
    // the nodes side by side: a step neither grows new lists nor allocates for a long match.)
    let (mut found, mut found_nodes) = std::mem::take(&mut lv.found);
    found.clear();
    found_nodes.clear();
    {
        let host = &lv.host;
        let mut run = |c: ConstraintId, plan: &Plan, seeds: &[NodeId], skip: Option<std::ops::Range<u32>>| {
            let out = (&mut found, &mut found_nodes);
            // (The host named by its type, not behind a `dyn`: the matcher's many questions of it
            // are direct calls, most of them in line.)
            match skip {
                None => run_at(host, host, t, setting, c, plan, seeds, scratch, out),
                Some(skip) => run_at(
                    &host::Without { host, skip },
                    host,
                    t,
                    setting,
                    c,
                    plan,
                    seeds,
                    scratch,
                    out,
                ),
            }
        };
        for x in host_before as NodeId..host.len() as NodeId {
            for (c, plan) in &plans.by_kind[host.node_kind(x) as usize] {
                run(*c, plan, &[x], None);
            }
        }
        // A new match uses a new link (every link of a node of this step is new, and a match
        // holding one at a variable on no two-ended link was found above). Seeded at new link
        // `li`, a run reads no new link formed before it, so a match is found from the first
        // new link it must use (each other one it needs lies after it), not again from each.
        for li in links_before..host.links().len() {
            let l = &host.links()[li];
            let by_link = &plans.by_link[l.constraint.0 as usize];
            if by_link.is_empty() {
                continue;
            }
            // (The members and their kinds read once a link, not once per plan and pair.)
            let members: SmallVec<[(NodeId, u32); 8]> = l.members.iter().map(|&x| (x, host.node_kind(x))).collect();
            for (c, plan, [ka, kb]) in by_link {
                for &(a, kind_a) in &members {
                    if kind_a != *ka {
                        continue;
                    }
                    for &(b, kind_b) in &members {
                        if a != b && kind_b == *kb {
                            run(*c, plan, &[a, b], Some(links_before as u32..li as u32));
                        }
                    }
                }
            }
        }
    }
    // In the order of their latest node, then constraint and nodes; each once.
    // (Equal keys are equal entries, so an unstable sort gives the one order.)
    {
        let nodes_of = |&(_, _, i, k): &level::Found| &found_nodes[i as usize..(i + k) as usize];
        found.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| nodes_of(a).cmp(nodes_of(b))));
        found.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1) && nodes_of(a) == nodes_of(b));
    }
    for &(_, c, i, k) in &found {
        let nodes = &found_nodes[i as usize..(i + k) as usize];
        let Some(m) = lv.seen.add_new(&mut lv.store, c, nodes, t) else {
            continue;
        };
        lv.note_match(m);
        lv.memo.changed(nodes, t, &mut journal, n as u8);
        for &x in nodes {
            if lv.index.len() <= x as usize {
                lv.index.resize(x as usize + 1, SmallVec::new());
            }
            let v = &mut lv.index[x as usize];
            if v.last() != Some(&m) {
                if (x as usize) < host_before
                    && let Some(j) = journal.as_deref_mut()
                {
                    j.push(Entry::Index(n as u8, x, v.len() as u32));
                }
                v.push(m);
            }
        }
    }
    lv.found = (found, found_nodes);
    // The nodes around those that end at this step: their neighbourhood changes (`memo`).
    for &x in ended_nodes {
        lv.memo.changed(&[x], t, &mut journal, n as u8);
        if let Some(ms) = lv.index.get(x as usize) {
            for &m in ms {
                let ns = lv.store.nodes(m).to_small();
                lv.memo.changed(&ns, t, &mut journal, n as u8);
            }
        }
    }
    // 5. Derivations.
    let never = |_: NodeId| false;
    let zero = |_: NodeId| t;
    let none = |_: NodeId, _: &mut Vec<MatchId>| {};
    let mut cx = StepCtx {
        t,
        first_new,
        first_node: host_before as NodeId,
        pass_at: MatchId::MAX,
        journal,
        open: &never,
        open_new: &[],
        step_of: &zero,
        around: &none,
        resolve: Vec::new(),
        catch: Vec::new(),
        image: None,
        shift: None,
        dirty_old: &[],
        dirty_old_cls: &[],
        dirty_new: &[],
        dirty_cls: &[],
        seeds: None,
        span: 0,
        shifts: None,
        quiet: false,
        level0: false,
    };
    lv.derive(&mut cx, ended_nodes);
    // 6. Presence: elements touched, or holding a node that ended, are checked.
    lv.check_presence(&mut cx, ended_nodes, false);
    // 7. A match holding a node that ended at this step is gone from the next step on: no element
    // can apply it any more (`Level::offer`), so it leaves the index of its other nodes, and a
    // catch-up reads only what may still apply (otherwise a long-lived node's index keeps every
    // match it ever took part in). Undone through the journal.
    let mut nodes: SmallVec<[NodeId; 6]> = SmallVec::new();
    for &x in ended_nodes {
        let Some(ms) = lv.index.get(x as usize).cloned() else {
            continue;
        };
        for m in ms {
            nodes.clear();
            lv.store.nodes(m).for_each(|x| nodes.push(x));
            for &y in &nodes {
                if y == x {
                    continue;
                }
                let v = &mut lv.index[y as usize];
                if let Some(i) = v.iter().position(|&k| k == m) {
                    v.remove(i);
                    if (y as usize) < host_before {
                        cx.log(Entry::IndexRemoved(n as u8, y, i as u32, m));
                    }
                }
            }
        }
    }
    let journaled = cx.journal.is_some();
    lv.finish_delta(journaled);
}

/// The elements of `level` (n ≥ 1) in a level-n struct that does not change: its nodes and links
/// all present at one step. Returns, per element, the element (node ids are the struct's).
pub fn recognize_fixed_level(
    setting: &Setting,
    level: u32,
    nodes: impl IntoIterator<Item = u32>,
    links: impl IntoIterator<Item = (ConstraintId, Vec<NodeId>)>,
    forming: bool,
) -> Vec<super::element::Element> {
    let mut lv = Level::new(setting, level);
    for kind in nodes {
        lv.host.add_node(kind, NONE, 0);
    }
    for (c, mut members) in links {
        members.sort_unstable();
        members.dedup();
        if members.len() >= 2 {
            lv.host.link(c, &members, 0);
        }
    }
    let plans = PlansN::compile(setting, &lv);
    let mut scratch = PlanScratch::default();
    derive_n(&mut lv, &plans, setting, &mut scratch, 0, 0, 0, None, &[]);
    lv.elements()
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_stillborn() && e.present_at(0) && (forming || e.is_complete()))
        .map(|(i, e)| {
            let mut nodes: Vec<NodeId> = lv.nodes(i as ElementId).into_owned();
            nodes.sort_unstable();
            nodes.dedup();
            let mut applications: Vec<super::element::Application> = lv
                .applications(i as ElementId)
                .iter()
                .map(|&m| super::element::Application {
                    constraint: lv.constraint(m),
                    nodes: lv.match_nodes(m).collect(),
                })
                .collect();
            if applications.len() > 1 {
                applications[1..].sort();
            }
            super::element::Element {
                class: e.class(),
                nodes,
                applications,
                complete: e.is_complete(),
            }
        })
        .collect()
}

/// A timeline of one step holding struct `s` (in a topological order of its primitives), and the
/// primitive of `s` each timeline node stands for.
pub fn of_struct(
    setting: Arc<Setting>,
    s: &Struct,
    top: Option<u32>,
) -> Result<(Timeline, Vec<NodeId>), TimelineError> {
    let mut tl = Timeline::new(setting, top);
    let order = s.topological_order();
    let mut map = vec![NONE; s.len()];
    tl.begin_step()?;
    for &n in &order {
        let x = tl.add(s.kind_of(n))?;
        map[n as usize] = x;
        let inc: SmallVec<[(NodeId, super::structs::Process); 8]> = s.incoming(n).collect();
        for (m, p) in inc {
            tl.connect(map[m as usize], p.from_site as usize, x, p.to_site as usize)?;
        }
    }
    tl.end_step()?;
    Ok((tl, order))
}

#[cfg(test)]
mod tests {
    use super::{matches_near, matches_near_sorted, runs};
    use crate::demo::bank;
    use crate::ets::structs::Struct;
    use std::sync::Arc;

    /// A ladder of withdrawals and spendings: each withdrawal takes the person from the spending
    /// before it and the account from the withdrawal before it.
    fn ladder(rungs: usize) -> Struct {
        let al = Arc::new(bank::alphabet());
        let k = |n: &str| al.kind(n).expect("a bank primitive");
        let (arrive, open, withdraw, spend) = (k("arrive"), k("open"), k("withdraw"), k("spend"));
        let site = |p, n: &str, initial: bool| {
            let p = al.primitive(p);
            if initial {
                p.initial_index(n)
            } else {
                p.terminal_index(n)
            }
            .expect("a bank site")
        };
        let mut s = Struct::new(al.clone());
        let mut person = (s.add_primitive(arrive).unwrap(), site(arrive, "person", false));
        let mut account = (s.add_primitive(open).unwrap(), site(open, "account", false));
        for _ in 0..rungs {
            let w = s.add_primitive(withdraw).unwrap();
            s.connect(person.0, person.1, w, site(withdraw, "person", true))
                .unwrap();
            s.connect(account.0, account.1, w, site(withdraw, "account", true))
                .unwrap();
            let sp = s.add_primitive(spend).unwrap();
            s.connect(w, site(withdraw, "person", false), sp, site(spend, "person", true))
                .unwrap();
            s.connect(w, site(withdraw, "money", false), sp, site(spend, "money", true))
                .unwrap();
            person = (sp, site(spend, "person", false));
            account = (w, site(withdraw, "account", false));
        }
        s
    }

    #[test]
    fn a_copy_of_a_copy_seals_what_the_general_copy_seals_in_its_order() {
        // Steps each a copy of the whole step before (rungs of ladders side by side): from the
        // third on, the struct writes them whole (`Struct::append_copy_again`) and the primitives
        // sealed are taken from the step before's (`Timeline::refilled`). Both give those the
        // general copy seals, in the order it seals them: by the copy's primitives and sites,
        // here not the nodes' order. Each step is also taken back and made again.
        let st = Arc::new(bank::setting());
        let al = st.alphabet().clone();
        let k = |n: &str| al.kind(n).expect("a bank primitive");
        let (arrive, open, withdraw, spend) = (k("arrive"), k("open"), k("withdraw"), k("spend"));
        let ini = |p, n: &str| al.primitive(p).initial_index(n).expect("a bank site");
        let ter = |p, n: &str| al.primitive(p).terminal_index(n).expect("a bank site");
        let mut tl = super::Timeline::new(st.clone(), None);
        tl.keep_journal(true);
        tl.begin_step().unwrap();
        let mut ends: Vec<(u32, usize, u32, usize)> = (0..3)
            .map(|_| {
                let (a, o) = (tl.add(arrive).unwrap(), tl.add(open).unwrap());
                (a, ter(arrive, "person"), o, ter(open, "account"))
            })
            .collect();
        tl.end_step().unwrap();
        // Two rungs made a primitive and a process at a time (the first from other primitives).
        for _ in 0..2 {
            tl.begin_step().unwrap();
            for end in &mut ends {
                let (person, ps, account, acs) = *end;
                let w = tl.add(withdraw).unwrap();
                tl.connect(person, ps, w, ini(withdraw, "person")).unwrap();
                tl.connect(account, acs, w, ini(withdraw, "account")).unwrap();
                let sp = tl.add(spend).unwrap();
                tl.connect(w, ter(withdraw, "person"), sp, ini(spend, "person"))
                    .unwrap();
                tl.connect(w, ter(withdraw, "money"), sp, ini(spend, "money")).unwrap();
                *end = (sp, ter(spend, "person"), w, ter(withdraw, "account"));
            }
            tl.end_step().unwrap();
        }
        let mut whole = 0;
        for t in 3..10 {
            for again in [false, true] {
                tl.begin_step().unwrap();
                let (p0, first) = (tl.step_start[t - 1], tl.strukt.len() as u32);
                assert_eq!(tl.add_copy(p0..first, &[]).unwrap(), first);
                let expected = tl.sealed_by_fills(p0..first, first);
                assert_eq!(tl.sealed, expected, "step {t}");
                assert!(expected.len() == 6 && !expected.is_sorted(), "step {t}: {expected:?}");
                whole += tl.refill.is_some() as u32;
                tl.end_step().unwrap();
                if !again {
                    tl.undo().unwrap();
                }
            }
        }
        // The general copy at step 3 (the step before it was not a copy), whole ever after.
        assert_eq!(whole, 12);
    }

    #[test]
    fn the_neighbourhood_marked_in_a_table_is_the_one_searched_with_sorted_lists() {
        let s = ladder(400);
        // Two matches anchored at each node.
        let mut anchors = runs::Anchors::new();
        for i in 0..=s.len() as u32 {
            anchors.push(2 * i);
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        // Small and large neighbourhoods; 300 processes out is past the table's room, which then
        // searches with the sorted lists.
        for reach in [0, 1, 2, 3, 40, 120, 300] {
            for x in [0, 1, 2, 57, 400, 801] {
                a.clear();
                b.clear();
                matches_near(&s, &anchors, reach, x, &mut a);
                matches_near_sorted(&s, &anchors, reach, x, &mut b);
                assert_eq!(a, b, "reach {reach}, node {x}");
                assert!(a.contains(&(2 * x)), "the matches anchored at x itself");
            }
        }
    }
}
