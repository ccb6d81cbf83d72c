//! One level of a timeline: its matches, its elements and their lives, and the incremental
//! derivation that keeps them up to date as the structure grows (§3.4.1.2, §5.1.1, §5.3.2.1).
//!
//! An element is one derivation of its class's generating system, continued step after step:
//! - **born** at the step of its first application (a match of a constraint in a set leaving the
//!   schedule's start, not already applied by a living element of the class: "an application
//!   already inside an element of the class does not start another");
//! - **extended** at each later step it applies matches. A step's loop sets are *saturated* (every
//!   applicable match applied: a match applies when its context part lies inside the element, or,
//!   without a context part, when it shares a node with it); a step leaving the schedule's state
//!   takes the one applicable match, or all of them when they lead to one state that loops on them,
//!   or else the element *forks* (one element per choice, the first keeping its identity);
//! - **complete** from the step its schedule may end where it stands;
//! - **merged** into another element of its class when its applications all lie in that one (the
//!   older survives a tie): what an element does when a new part joins it to another;
//! - **ended** when its class says so: its generating system has *terminated* (a step into a state
//!   no set leaves, taken when it was already complete); or, at level 0, it can no longer grow
//!   (none of its primitives has an open terminal site: everything it emitted has been consumed or
//!   closed); or, at level n ≥ 1, what of it is still present no longer forms an element of its
//!   class (its applications whose nodes are all present, replayed through its schedule in the
//!   order it made them, are no longer accepted; see `docs/semantics.md`).
//!
//! Each application records the step it was made at (the formative history of §5.1.1).

use crate::ets::growth::{cover, grow, lists_bytes};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::classes::{ClassTable, RECORDED};
use super::holders::NodeHolders;
use super::host::LevelHost;
use super::journal::{Entry, Journal};
use super::runs::{IMAGE, Shifts};
use super::seeds::{SeedIndex, StepSeeds};
use super::store::{MatchNodes, MatchStore};
use crate::ets::ids::{ClassId, ConstraintId, ElementId, MatchId, NONE, NodeId};

/// Why an element ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// It has not ended.
    Living,
    /// Level 0: it can no longer grow (no primitive of it has an open terminal site).
    Closed,
    /// Its generating system terminated: a step into a state no set leaves, once complete, or a
    /// step through a set its class `ends` with (say, a one-element class ended when a second
    /// element joins it, or an element ended by a removal).
    Terminated,
    /// Level n ≥ 1: what of it is present no longer forms an element of its class.
    Vanished,
    /// Its applications all lie in another element of its class, which it joined.
    Merged,
}

/// One class element over time.
#[derive(Debug, Clone)]
pub struct Elem {
    pub(crate) cls: u16,
    pub(crate) class: ClassId,
    pub(crate) state: u32,
    pub(crate) born: u32,
    pub(crate) complete_at: u32,
    pub(crate) ended: u32,
    pub(crate) merged_into: u32,
    pub(crate) end_kind: EndKind,
    pub(crate) apps: Vec<MatchId>,
    pub(crate) sets: Vec<u8>,
    /// Runs of applications made at one step: `(step, index of the run's first application)`.
    pub(crate) runs: Vec<(u32, u32)>,
    pub(crate) nodes: Vec<NodeId>,
    /// Matches offered that its state could use later (most elements have none).
    pub(crate) pending: Pending,
    /// Level 0: how many of its primitives have an open terminal site.
    pub(crate) open: u32,
    /// Level 0: the step of its latest primitive.
    pub(crate) last: u32,
    /// The last step it was changed at (the journal's first-touch mark).
    pub(crate) touched: u32,
    /// The last step it made an application at.
    pub(crate) applied_at: u32,
    /// Made and dropped within one step (a fork or start that turned out to repeat another).
    pub(crate) stillborn: bool,
    /// Stillborn, made by a trial derivation ([`super::trial`]): it never entered the holder
    /// lists of its nodes and matches.
    pub(crate) unlisted: bool,
    /// The step it was made at (its birth, or a fork's step).
    pub(crate) created: u32,
    /// The last step it took a step of its schedule that is not a loop at (`NONE`: none).
    pub(crate) stepped: u32,
    /// Level 0: its runs of applications up to the one of step `rep_at` repeat one another,
    /// `rep_len` of them in a row: each the image of the one before under the shift between steps
    /// (`super::repeats`), at consecutive steps.
    pub(crate) rep_at: u32,
    pub(crate) rep_len: u32,
}

/// An element's pending matches: nothing while there are none (an element record is a pointer
/// smaller than with a list of its own; most have none, and two thirds of level 1's are
/// stillborn).
#[derive(Debug, Clone, Default)]
#[expect(
    clippy::box_collection,
    reason = "one pointer in every element record, a list in the few that have one"
)]
pub(crate) struct Pending(Option<Box<Vec<MatchId>>>);

impl std::ops::Deref for Pending {
    type Target = [MatchId];
    #[inline]
    fn deref(&self) -> &[MatchId] {
        self.0.as_deref().map_or(&[], |v| v.as_slice())
    }
}

impl Pending {
    /// Appends `m`.
    pub(crate) fn push(&mut self, m: MatchId) {
        self.0.get_or_insert_default().push(m);
    }
    /// Drops them all.
    pub(crate) fn clear(&mut self) {
        self.0 = None;
    }
    /// Replaces them with `v`.
    pub(crate) fn set(&mut self, v: Vec<MatchId>) {
        self.0 = (!v.is_empty()).then(|| Box::new(v));
    }
    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.0
            .as_ref()
            .map_or(0, |v| std::mem::size_of::<Vec<MatchId>>() + v.capacity() * 4)
    }
}

/// Level 0: an element that took its images at a step ([`Level::quiet_steps`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct QuietEntry {
    pub(crate) e: ElementId,
    /// The range of its images in the list of the step's.
    pub(crate) images: (u32, u32),
    /// The range of the primitives of the step they hold (each once, in the order the images
    /// hold them first) in the list of the step's.
    pub(crate) fresh: (u32, u32),
    /// Its state and its number of applications then.
    pub(crate) state: u32,
    pub(crate) apps: u32,
}

/// Level 0: what the quiet pass of a step reads of the step before ([`Level::quiet_steps`]):
/// the elements touched at it, those that took their images at it with their images and the
/// primitives those hold, and which step that was. Kept aside while a journaled step is made, so
/// that taking it back leaves the quiet pass of the next step what it would have had
/// (`Timeline::undo`).
#[derive(Debug, Clone, Default)]
pub(crate) struct QuietState {
    touched: Vec<ElementId>,
    prev: Vec<QuietEntry>,
    images: Vec<Image>,
    fresh: Vec<NodeId>,
    at: u32,
}

impl QuietState {
    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.touched.capacity() * 4
            + self.prev.capacity() * std::mem::size_of::<QuietEntry>()
            + self.images.capacity() * std::mem::size_of::<Image>()
            + self.fresh.capacity() * 4
    }
}

/// Level 0: the image of an application a quiet element takes ([`Level::quiet_steps`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Image {
    /// The match of this step.
    m: MatchId,
    /// The set it is applied through.
    pub(crate) set: u8,
    /// Whether its constraint starts no class but the element's (the starts pass it by once it
    /// is taken: [`Level::take_images`]).
    pub(crate) own_start: bool,
    /// The match of the step before it is the image of.
    original: MatchId,
    /// Its latest primitive (where it is anchored).
    pub(crate) anchor: NodeId,
    /// Its place among the matches anchored there (the same in every image of one original).
    pub(crate) rank: u32,
}

impl Image {
    /// Match `m` anchored at `anchor` with `rank` there, taken through `set` (its original not
    /// kept: an entry of the step before, [`super::persist`]).
    pub(crate) fn new(m: MatchId, set: u8, own_start: bool, anchor: NodeId, rank: u32) -> Image {
        Image {
            m,
            set,
            own_start,
            original: m,
            anchor,
            rank,
        }
    }
    /// Its match, rank, anchor, and whether its constraint starts no class but the element's.
    pub(crate) fn parts(&self) -> (MatchId, u32, NodeId, bool) {
        (self.m, self.rank, self.anchor, self.own_start)
    }
}

/// An element's state before a step changed it (for undo).
#[derive(Debug, Clone)]
pub(crate) struct ElemSnap {
    state: u32,
    complete_at: u32,
    ended: u32,
    merged_into: u32,
    end_kind: EndKind,
    apps: u32,
    runs: u32,
    nodes: u32,
    pending: Vec<MatchId>,
    open: u32,
    last: u32,
    touched: u32,
    applied_at: u32,
    stepped: u32,
    rep_at: u32,
    rep_len: u32,
}

impl ElemSnap {
    /// Heap bytes held by the snapshot (beside itself, in the step's list).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pending.capacity() * 4
    }
}

impl LevelDelta {
    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        (self.born.capacity() + self.completed.capacity() + self.extended.capacity() + self.ended.capacity()) * 4
            + (self.forked.capacity() + self.merged.capacity()) * 8
    }
}

impl Elem {
    /// A living element of class `cls` (`class` in the setting) begun at step `t` in `state`,
    /// with nothing applied yet.
    pub(crate) fn begun(cls: u16, class: ClassId, state: u32, t: u32) -> Elem {
        Elem {
            cls,
            class,
            state,
            born: t,
            complete_at: NONE,
            ended: NONE,
            merged_into: NONE,
            end_kind: EndKind::Living,
            apps: Vec::new(),
            sets: Vec::new(),
            runs: Vec::new(),
            nodes: Vec::new(),
            pending: Pending::default(),
            open: 0,
            last: NONE,
            touched: t,
            applied_at: NONE,
            stillborn: false,
            unlisted: false,
            created: t,
            stepped: NONE,
            rep_at: NONE,
            rep_len: 0,
        }
    }
    /// A stillborn element of class `cls` begun and terminated at step `t` in `state` (complete
    /// there when `complete`), as `Level::start`, `Level::take` and `Level::terminate` leave a
    /// derivation that ends at the step it began; the caller gives it what it applied.
    pub(crate) fn stillborn_at(cls: u16, class: ClassId, state: u32, complete: bool, t: u32) -> Elem {
        let mut el = Elem::begun(cls, class, state, t);
        el.stepped = t;
        el.applied_at = t;
        el.last = t;
        el.complete_at = if complete { t } else { NONE };
        el.ended = t;
        el.end_kind = EndKind::Terminated;
        el.stillborn = true;
        el
    }
    #[inline]
    fn forked_now(&self, t: u32) -> bool {
        self.created == t
    }
    /// Level 0: whether its own state lets it take its images at step `t` ([`Level::quiet_steps`]):
    /// living, nothing pending, made before t−1, no step of its schedule that is not a loop at
    /// t−1, and an application at t−1.
    #[inline]
    pub(crate) fn may_repeat_at(&self, t: u32) -> bool {
        let young = |s: u32| s != NONE && s + 1 >= t;
        self.ended == NONE
            && !self.stillborn
            && self.pending.is_empty()
            && !young(self.created)
            && !young(self.stepped)
            && self.applied_at == t - 1
    }
    /// Its class.
    pub fn class(&self) -> ClassId {
        self.class
    }
    /// The step of its first application.
    pub fn born(&self) -> u32 {
        self.born
    }
    /// The step it became complete at, if it has.
    pub fn completed(&self) -> Option<u32> {
        (self.complete_at != NONE).then_some(self.complete_at)
    }
    /// The first step at which it is no longer present, if it has ended.
    pub fn ended(&self) -> Option<u32> {
        (self.ended != NONE).then_some(self.ended)
    }
    /// Why it ended.
    pub fn end_kind(&self) -> EndKind {
        self.end_kind
    }
    /// The element it merged into, if it did.
    pub fn merged_into(&self) -> Option<ElementId> {
        (self.merged_into != NONE).then_some(self.merged_into)
    }
    /// Whether it is complete now (its schedule may end where it stands).
    pub fn is_complete(&self) -> bool {
        self.complete_at != NONE
    }
    /// Whether it is present at step `t`.
    pub fn present_at(&self, t: u32) -> bool {
        self.born <= t && (self.ended == NONE || self.ended > t)
    }
    /// Whether it was made and dropped within one step (never reported).
    pub fn is_stillborn(&self) -> bool {
        self.stillborn
    }
}

/// What one step changed among a level's elements.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LevelDelta {
    /// Elements that began (their first application was made at this step).
    pub born: Vec<ElementId>,
    /// Elements that became complete at this step (born now or before).
    pub completed: Vec<ElementId>,
    /// Elements born before this step that made applications at it.
    pub extended: Vec<ElementId>,
    /// Elements that forked at this step: `(element, the new element taking the other choice)`.
    pub forked: Vec<(ElementId, ElementId)>,
    /// Elements that merged: `(element, the element it joined)`.
    pub merged: Vec<(ElementId, ElementId)>,
    /// Elements no longer present from this step on (merged ones included).
    pub ended: Vec<ElementId>,
}

impl LevelDelta {
    fn clear(&mut self) {
        self.born.clear();
        self.completed.clear();
        self.extended.clear();
        self.forked.clear();
        self.merged.clear();
        self.ended.clear();
    }
}

/// A match found by a level-n step's search (`derive_n`): its latest node, its constraint, and
/// where its nodes begin in the search's list of nodes, and how many.
pub(crate) type Found = (NodeId, ConstraintId, u32, u32);

/// One level of a timeline.
#[derive(Debug, Clone)]
pub struct Level {
    pub(crate) n: u32,
    pub(crate) table: std::sync::Arc<ClassTable>,
    pub(crate) store: MatchStore,
    pub(crate) elems: Vec<Elem>,
    /// Per node: the elements holding it (stillborn ones only during the step they were made in).
    pub(crate) node_holders: NodeHolders,
    /// Per node: the stillborn elements of earlier steps that held it (only a rebirth reads them,
    /// so level 0 keeps none).
    pub(crate) node_stillborn: crate::ets::growth::Lists<ElementId, 2>,
    /// The nodes whose `node_stillborn` list grew, in order (undo pops them).
    pub(crate) still_log: Vec<NodeId>,
    /// Levels n ≥ 1: the stillborn elements of earlier steps that applied start sets, in element
    /// order, each with its first application of a start set in `still_apps` (what a rebirth
    /// reads of them; their own lists are emptied when their step ends).
    pub(crate) still_starts: Vec<(ElementId, u32)>,
    /// The applications of start sets of the elements of `still_starts`, in order.
    pub(crate) still_apps: Vec<MatchId>,
    /// Debug builds: the starts of this step covered before their sort ([`Level::derive`]),
    /// checked covered again at their turn.
    covered_early: Vec<(MatchId, u16)>,
    /// Level n ≥ 1: per node, the matches holding it (any position).
    pub(crate) index: crate::ets::growth::Lists<MatchId, 4>,
    /// Number of nodes before the current step (level n: its host's; level 0: the struct's).
    pub(crate) node_holders_before: usize,
    /// Level n ≥ 1: the level-n struct over time.
    pub(crate) host: LevelHost,
    /// Level n ≥ 1: matches already found, so that none is stored twice.
    pub(crate) seen: super::store::MatchSet,
    /// Level n ≥ 1, scratch of a step's search for new matches (`derive_n`): each found, and the
    /// nodes of all of them.
    pub(crate) found: (Vec<Found>, Vec<NodeId>),
    /// Level n ≥ 1: the presence check's scratch.
    replay: ReplayScratch,
    /// Per element: its node in the level above (`NONE` while it is not one).
    pub(crate) above: Vec<NodeId>,
    /// Level 0: elements that can no longer grow, present up to the last step, ending at the next.
    pub(crate) due: Vec<ElementId>,
    pub(crate) delta: LevelDelta,
    /// Matches applied at this step by an element above that another element above holds too.
    pub(crate) shared: Vec<MatchId>,
    /// Scratch of [`Level::derive`]: per match, the pass that last offered it again (a rebirth
    /// offers each match once).
    offered: Vec<u32>,
    /// The same for the elements a rebirth reads (each once).
    dead_mark: Vec<u32>,
    /// Level n ≥ 1: per match, the earliest step one of its nodes ended at (`NONE`: none has),
    /// kept as nodes end ([`Level::note_node_end`]) and matches are stored ([`Level::note_match`]).
    pub(crate) gone: Vec<u32>,
    offer_gen: u32,
    /// Scratch of [`Level::catch_up`]: the matches around a joined node (kept between calls, so
    /// that a catch-up does not allocate).
    around: Vec<MatchId>,
    /// Scratch of [`Level::resolve`]: the element's pending matches as they stood when a step of
    /// its resolution began (kept between calls, so that a resolution does not allocate).
    pend: Vec<MatchId>,
    /// Scratch of [`Level::derive`]: the starts of a step, as (latest node, set, constraint,
    /// match, class).
    start_list: Vec<(NodeId, u8, u32, MatchId, u16)>,
    /// Level n ≥ 1, between the two presence checks of step `presence_stood_at`
    /// ([`Level::check_presence`]): the elements the first left standing, in id order, each with
    /// its number of applications, state and completion step then.
    presence_stood: Vec<(ElementId, u32, u32, u32)>,
    presence_stood_at: u32,
    /// Scratch of the feed to the level above (`Feed::of`): the shared applications it reads.
    pub(crate) feed_shared: Vec<MatchId>,
    /// The elements touched (or begun) at the current step, each once, in the order they were.
    pub(crate) touched_now: Vec<ElementId>,
    /// The elements touched at the step before (level 0: the candidates of [`Level::quiet_steps`]).
    pub(crate) touched_prev: Vec<ElementId>,
    /// Level 0: element steps taken as images without derivation ([`Level::quiet_steps`]), over
    /// every step.
    pub(crate) quiet_count: u64,
    /// Level 0, during a step: per element, whether it took its images at this step (the routing
    /// pass passes it by), and those that did (the marks are cleared when the step ends).
    quiet_mark: Vec<bool>,
    quiet_list: Vec<ElementId>,
    /// Level 0: the elements that took their images at step `quiet_at`, in id order, each with
    /// its range in `quiet_images`, its state and its number of applications then: at the next
    /// step, one of them that has not changed since has those images as its last run.
    pub(crate) quiet_prev: Vec<QuietEntry>,
    pub(crate) quiet_images: Vec<Image>,
    pub(crate) quiet_fresh: Vec<NodeId>,
    /// The three lists above as they were a step earlier, emptied: reused, so that a step does
    /// not grow new ones.
    quiet_spare: (Vec<QuietEntry>, Vec<Image>, Vec<NodeId>),
    /// Scratch of [`sort_ids`]: a bit per element id.
    id_bits: Vec<u64>,
    /// Scratch of [`Level::route`]: the candidates for a match.
    cands: Vec<ElementId>,
    /// [`Level::route`]: per element, the generation of the routing that listed it.
    cand_mark: Vec<u32>,
    cand_gen: u32,
    /// Level 0, kept between steps: the seed index, the step's and the step before's
    /// ([`SeedIndex`]).
    pub(crate) seed: SeedIndex,
    pub(crate) quiet_at: u32,
    /// Level 0, during a step: per primitive of the step, whether an element that is not quiet
    /// joined it ([`Level::register_node`]). A match with a context primitive of the step whose bit
    /// is clear is offered to no one ([`Level::route`]), and a recorded match with a primitive of
    /// the step whose bit is clear lies inside no element the derivation visits ([`Level::derive`]).
    /// A bit left set when that holder leaves, as a stillborn element does after the derivation,
    /// would only cost a routing or a look at the holders.
    loud: Vec<u64>,
    /// Level 0, during a step with quiet elements ([`Level::quiet_steps`]): the matches of the
    /// step (a bit each, from the first) that the routing pass must visit, and those the pass for
    /// recorded matches must visit. Every other match is one [`Level::route`] would offer to no
    /// one, or one whose primitives of this step are not all loud (see [`Level::derive`]).
    /// Marked from the step's seed index ([`StepSeeds`]) as elements that are not quiet join
    /// nodes ([`Level::register_node`]); `marking` says whether they are kept at this step.
    route_due: Vec<u64>,
    record_due: Vec<u64>,
    marking: bool,
    /// Level 0, during a step: the matches of the step (a bit each, from the first) the starts
    /// must look at. A match a quiet element took as an image, of a constraint that only the
    /// element's class starts with, is clear: a living element of that class holds it when the
    /// starts are tried (level 0 ends none before), so it starts nothing ([`Level::take_images`]).
    pub(crate) start_due: Vec<u64>,
    /// Level n ≥ 1, while an element begun from a start is derived (most are floods through a
    /// region, and ask at every join whether they hold a node): that element, and per node,
    /// whether it holds it (`flood_mark[x] == flood_gen`). `NONE` outside such a derivation.
    flood: ElementId,
    flood_gen: u32,
    flood_mark: Vec<u32>,
    /// Level n ≥ 1: stillborn derivations of the last steps, made again without deriving them
    /// while what they read has not changed ([`super::memo`]).
    pub(crate) memo: super::memo::FloodMemo,
    /// Level n ≥ 1: starts derived first as trials, which make stillborn elements without
    /// writing their derivation out ([`super::trial`]).
    pub(crate) trial: super::trial::Trial,
    /// Whether an element made at a step ends at its first ending step where its state allows
    /// only loops and endings ([`super::Timeline::end_at_once`]; `ClassRt::ends_at_once`).
    pub(crate) end_at_once: bool,
    /// Level n ≥ 1: whether a match is routed first to the elements made at its step, and a late
    /// fork is spared where such a fork of an element born no later holds its match already
    /// ([`super::Timeline::forks_first`]).
    pub(crate) forks_first: bool,
    /// Late forks made ([`Level::late_fork`]), steps taken back included.
    pub(crate) late_forks: u64,
    /// Level 0: the first match anchored at each primitive (matches are found at their latest
    /// primitive, in node order), and one entry more; taken out during a step
    /// (`Timeline::level0_step`).
    pub(crate) anchors: super::runs::Anchors,
    /// Level 0: each step's first primitive (what finds the images of [`super::runs`]).
    pub(crate) starts: Vec<NodeId>,
    /// Level 0: the elements carried from step to step without a visit ([`super::persist`]).
    pub(crate) pers: super::persist::Persisting,
    /// A bit per element, set while it is alive (not ended, not stillborn): what
    /// [`Level::alive`] reads, so that a scan of a long holder list (sweep attention keeps every
    /// element that held a node) reads a word per 64 elements, not each element. Kept by
    /// [`Level::note_life`] wherever an element's `ended` or `stillborn` changes.
    pub(crate) live: Vec<u64>,
    /// Levels n ≥ 1: per node whose holder list is long ([`LONG_HOLDERS`] or more), how many of
    /// its first holders are known to have ended at an earlier step than the one that found them
    /// so ([`Level::dead_prefix`]). Under sweep attention a node's list keeps every element that
    /// held it and ended, most of them at its head; the routing pass reads the list from there.
    /// An element that ended stays ended but for an undo, which clears the table.
    pub(crate) dead_prefix: FxHashMap<NodeId, u32>,
}

/// A holder list this long has its dead head remembered ([`Level::dead_prefix`]).
const LONG_HOLDERS: usize = 32;

impl Level {
    pub(crate) fn new(setting: &crate::ets::setting::Setting, n: u32) -> Self {
        Level {
            n,
            table: std::sync::Arc::new(ClassTable::new(setting, n)),
            store: MatchStore::default(),
            elems: Vec::new(),
            node_holders: NodeHolders::default(),
            node_stillborn: Default::default(),
            still_log: Vec::new(),
            still_starts: Vec::new(),
            still_apps: Vec::new(),
            covered_early: Vec::new(),
            index: Default::default(),
            node_holders_before: 0,
            host: LevelHost::default(),
            seen: super::store::MatchSet::default(),
            found: (Vec::new(), Vec::new()),
            replay: ReplayScratch::default(),
            above: Vec::new(),
            due: Vec::new(),
            delta: LevelDelta::default(),
            shared: Vec::new(),
            offered: Vec::new(),
            dead_mark: Vec::new(),
            gone: Vec::new(),
            offer_gen: 0,
            around: Vec::new(),
            pend: Vec::new(),
            start_list: Vec::new(),
            presence_stood: Vec::new(),
            presence_stood_at: NONE,
            feed_shared: Vec::new(),
            touched_now: Vec::new(),
            touched_prev: Vec::new(),
            quiet_count: 0,
            quiet_mark: Vec::new(),
            quiet_list: Vec::new(),
            quiet_prev: Vec::new(),
            quiet_images: Vec::new(),
            quiet_fresh: Vec::new(),
            quiet_spare: (Vec::new(), Vec::new(), Vec::new()),
            id_bits: Vec::new(),
            cands: Vec::new(),
            cand_mark: Vec::new(),
            cand_gen: 0,
            seed: SeedIndex::default(),
            quiet_at: NONE,
            loud: Vec::new(),
            route_due: Vec::new(),
            record_due: Vec::new(),
            marking: false,
            start_due: Vec::new(),
            flood: NONE,
            flood_gen: 0,
            flood_mark: Vec::new(),
            trial: super::trial::Trial::new(),
            end_at_once: true,
            forks_first: true,
            late_forks: 0,
            memo: Default::default(),
            anchors: {
                let mut a = super::runs::Anchors::new();
                if n == 0 {
                    a.push(0);
                }
                a
            },
            starts: Vec::new(),
            pers: Default::default(),
            live: Vec::new(),
            dead_prefix: FxHashMap::default(),
        }
    }
    /// The level's number.
    pub fn number(&self) -> u32 {
        self.n
    }
    /// Every element ever begun (stillborn ones included; see [`Elem::is_stillborn`]).
    pub fn elements(&self) -> &[Elem] {
        &self.elems
    }
    /// How many holders the routing pass passes by at the heads of long holder lists, all told
    /// (dead for good, see `Level::dead_head`; a diagnostic).
    pub fn dead_holders(&self) -> usize {
        self.dead_prefix.values().map(|&k| k as usize).sum()
    }
    /// One element.
    pub fn element(&self, e: ElementId) -> &Elem {
        &self.elems[e as usize]
    }
    /// What the last step changed.
    pub fn delta(&self) -> &LevelDelta {
        &self.delta
    }
    /// The constraint of match `m`.
    pub fn constraint(&self, m: MatchId) -> crate::ets::ids::ConstraintId {
        self.store.constraint(m)
    }
    /// The nodes of match `m` (in its constraint's variable order).
    pub fn match_nodes(&self, m: MatchId) -> MatchNodes<'_> {
        self.store.nodes(m)
    }
    /// The step match `m` was formed at.
    pub fn match_formed(&self, m: MatchId) -> u32 {
        self.store.formed(m)
    }
    /// The elements holding match `m` as an application.
    pub fn match_holders(&self, m: MatchId) -> &[ElementId] {
        self.store.holders(m)
    }
    /// Number of matches.
    pub fn match_count(&self) -> usize {
        self.store.len()
    }
    /// Level n ≥ 1: the level-n struct over time (its node k stands for an element of level
    /// n−1).
    pub fn host(&self) -> &LevelHost {
        &self.host
    }
    /// The node of element `e` in the level above, if it is one.
    pub fn node_above(&self, e: ElementId) -> Option<NodeId> {
        self.above.get(e as usize).copied().filter(|&x| x != NONE)
    }
    /// The elements holding node `x`.
    #[inline]
    pub fn holders_of_node(&self, x: NodeId) -> super::HolderList<'_> {
        self.node_holders.get(x as usize)
    }
    /// Whether match `m`'s constraint starts some class, at a level with rebirths (n ≥ 1): what
    /// a rebirth offers again of the elements that applied it ([`Level::derive`]).
    #[inline]
    fn starts_a_class(&self, m: MatchId) -> bool {
        self.n > 0 && !self.table.starters[self.store.constraint(m).0 as usize].is_empty()
    }

    /// A stillborn element's applications of start sets, once its step has ended (what a rebirth
    /// offers again).
    pub(crate) fn stillborn_starts(&self, e: ElementId) -> &[MatchId] {
        let k = self.still_starts.partition_point(|s| s.0 < e);
        match self.still_starts.get(k) {
            Some(&(f, i)) if f == e => {
                let end = self
                    .still_starts
                    .get(k + 1)
                    .map_or(self.still_apps.len(), |s| s.1 as usize);
                &self.still_apps[i as usize..end]
            }
            _ => &[],
        }
    }

    /// Releases spare capacity: the matches, the elements' lists and the per-node lists.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.store.shrink_to_fit();
        self.elems.shrink_to_fit();
        for el in &mut self.elems {
            el.apps.shrink_to_fit();
            el.sets.shrink_to_fit();
            el.runs.shrink_to_fit();
            el.nodes.shrink_to_fit();
        }
        self.node_holders.shrink_to_fit();
        self.node_stillborn.shrink_to_fit();
        self.index.shrink_to_fit();
        self.seen.shrink_to_fit(&self.store);
        self.above.shrink_to_fit();
        self.around = Vec::new();
        self.pend = Vec::new();
        self.start_list = Vec::new();
        self.presence_stood = Vec::new();
        self.feed_shared = Vec::new();
        self.found = Default::default();
    }

    /// Heap bytes held by the level (matches, elements, indices, host): the sum of
    /// [`Level::memory`].
    pub fn heap_bytes(&self) -> usize {
        self.memory().total()
    }

    /// Heap bytes held by the level, part by part.
    pub fn memory(&self) -> LevelMemory {
        let mut elements = self.elems.capacity() * std::mem::size_of::<Elem>();
        let mut element_lists = 0;
        for e in &self.elems {
            element_lists += e.apps.capacity() * 4
                + e.sets.capacity()
                + e.runs.capacity() * 8
                + e.nodes.capacity() * 4
                + e.pending.heap_bytes();
        }
        elements += self.above.capacity() * 4;
        // Level 0's lists of the quiet elements, kept from one step to the next.
        let quiet = std::mem::size_of::<QuietEntry>();
        let image = std::mem::size_of::<Image>();
        elements += self.quiet_mark.capacity()
            + self.quiet_list.capacity() * 4
            + (self.quiet_prev.capacity() + self.quiet_spare.0.capacity()) * quiet
            + (self.quiet_images.capacity() + self.quiet_spare.1.capacity()) * image
            + (self.quiet_fresh.capacity() + self.quiet_spare.2.capacity()) * 4
            + self.id_bits.capacity() * 8
            + (self.cands.capacity() + self.cand_mark.capacity() + self.pend.capacity() + self.found.1.capacity()) * 4
            + self.feed_shared.capacity() * 4
            + self.found.0.capacity() * std::mem::size_of::<Found>()
            + self.start_list.capacity() * std::mem::size_of::<(NodeId, u8, u32, MatchId, u16)>()
            + self.presence_stood.capacity() * 16
            + self.pers.heap_bytes();
        LevelMemory {
            matches: self.store.match_bytes(),
            match_holders: self.store.holder_bytes(),
            node_holders: self.node_holders.heap_bytes(),
            elements,
            element_lists,
            stillborn: lists_bytes(&self.node_stillborn.0)
                + self.still_log.capacity() * 4
                + self.still_starts.capacity() * 8
                + self.still_apps.capacity() * 4
                + (self.offered.capacity() + self.dead_mark.capacity()) * 4,
            index: lists_bytes(&self.index.0)
                + self.seen.heap_bytes()
                + self.seed.heap_bytes()
                + self.gone.capacity() * 4,
            host: self.host.heap_bytes(),
            memo: self.memo.heap_bytes() + self.trial.heap_bytes() + self.replay.heap_bytes(),
        }
    }
}

/// Heap bytes one level holds, part by part ([`Level::memory`]): where a timeline's memory goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LevelMemory {
    /// The matches (§3.4.1.1): constraint, nodes, the step each was formed at.
    pub matches: usize,
    /// The elements holding each match as an application.
    pub match_holders: usize,
    /// The elements holding each node.
    pub node_holders: usize,
    /// The element records, each element's node in the level above, and level 0's lists of the
    /// elements that took their images at the last step.
    pub elements: usize,
    /// Each element's lists: applications, their sets, runs, nodes, pending matches.
    pub element_lists: usize,
    /// Per node, the stillborn elements that held it (read by rebirths), and their undo log;
    /// a rebirth's marks (per match and per element).
    pub stillborn: usize,
    /// Level n ≥ 1: per node, the matches holding it, and the set of the matches found (so that
    /// none is stored twice); level 0: the last step's seed index (per primitive of the step, the
    /// matches of the step holding it at a seed position).
    pub index: usize,
    /// Level n ≥ 1: the level-n struct (its nodes, links and their indices).
    pub host: usize,
    /// The memo of stillborn derivations, the trials' marks and the presence check's.
    pub memo: usize,
}

impl LevelMemory {
    /// The sum of the parts.
    pub fn total(&self) -> usize {
        self.parts().iter().map(|&(_, x)| x).sum()
    }
    /// The parts with their names, in the order of the fields.
    pub fn parts(&self) -> [(&'static str, usize); 9] {
        [
            ("matches", self.matches),
            ("match holders", self.match_holders),
            ("node holders", self.node_holders),
            ("elements", self.elements),
            ("element lists", self.element_lists),
            ("stillborn", self.stillborn),
            ("index", self.index),
            ("host", self.host),
            ("memo", self.memo),
        ]
    }
}

/// The first bit set in `bits` at or after `from`.
#[inline]
fn next_set(bits: &[u64], from: usize) -> Option<usize> {
    let mut w = from / 64;
    let mut word = *bits.get(w)? & (u64::MAX << (from % 64));
    loop {
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        w += 1;
        word = *bits.get(w)?;
    }
}

/// Where derivations of the current step stand.
pub(crate) struct StepCtx<'a> {
    pub t: u32,
    /// Matches of this step: ids from here on.
    pub first_new: MatchId,
    /// Level 0: nodes of this step start here (older nodes are "earlier").
    pub first_node: NodeId,
    /// While routing this step's matches in order: the current match's position (matches before it
    /// have been routed). `MatchId::MAX` outside that pass (every join is caught up at once).
    pub pass_at: MatchId,
    /// The journal of the step, when undo is kept.
    pub journal: Option<&'a mut Journal>,
    /// Level 0: per primitive, whether it has an open terminal site now.
    pub open: &'a dyn Fn(NodeId) -> bool,
    /// Level 0: the same for this step's primitives, a bit each from `first_node` (the struct
    /// does not change while a step derives; level n: empty).
    pub open_new: &'a [u64],
    /// Level 0: the step of a primitive.
    pub step_of: &'a dyn Fn(NodeId) -> u32,
    /// Level 0: the matches holding a node (for catching up after a join), read from the struct
    /// and this step's seed index; level n reads its own index instead.
    pub around: &'a dyn Fn(NodeId, &mut Vec<MatchId>),
    /// Elements to resolve (non-loop steps pending).
    pub resolve: Vec<ElementId>,
    /// Level 0, repeats found: the image at this step of the match formed at the step before,
    /// anchored (its latest primitive) at `anchor` with rank `rank` there (the match `rank`
    /// places after the first anchored at `anchor`), when that primitive's image is clean
    /// (`super::repeats`).
    pub image: Option<super::repeats::Images<'a>>,
    /// Level 0: the shift σ of a primitive of an earlier step (the primitive at its place one
    /// step on).
    pub shift: Option<super::repeats::Sigma<'a>>,
    /// Level 0: the earlier primitives held by a match of this step that is not an image (sorted),
    /// and this step's (bits, from its first primitive).
    pub dirty_old: &'a [NodeId],
    pub dirty_new: &'a [u64],
    /// Level 0: per primitive of `dirty_old`, and per primitive of this step (from its first),
    /// the classes that use or record the constraint of a match marking it
    /// (`ClassTable::user_bits`): an element of such a class holding it derives.
    pub dirty_old_cls: &'a [u64],
    pub dirty_cls: &'a [u64],
    /// Level 0: what finds the images of an element's image runs ([`super::runs`]).
    pub shifts: Option<super::runs::Shifts<'a>>,
    /// Level 0: this step's seed index.
    pub seeds: Option<StepSeeds<'a>>,
    /// Level 0: how many steps back the matches of this step reach (from the step of the
    /// earliest primitive one holds).
    pub span: u32,
    /// While an element takes images ([`Level::quiet_steps`]): its joins are not caught up on.
    pub quiet: bool,
    /// Joins to catch up on: (element, node).
    pub catch: Vec<(ElementId, NodeId)>,
    pub level0: bool,
}

impl StepCtx<'_> {
    /// Whether level 0's quiet pass runs at this step: the step repeats the one before (its
    /// images and σ are known) for at least the span its matches reach plus two steps.
    #[inline]
    pub(crate) fn quiet_runs(&self) -> bool {
        self.level0 && self.image.is_some() && self.shift.is_some() && self.t >= self.span + 2
    }
    /// Level 0: whether primitive `x` has an open terminal site now (a bit for this step's).
    #[inline]
    pub(crate) fn is_open(&self, x: NodeId) -> bool {
        if x >= self.first_node && !self.open_new.is_empty() {
            let i = (x - self.first_node) as usize;
            self.open_new[i / 64] >> (i % 64) & 1 == 1
        } else {
            (self.open)(x)
        }
    }

    /// Level 0: [`StepCtx::is_open`] of the `n` primitives from `x` (at most 64), a bit each.
    #[inline]
    pub(crate) fn open_mask(&self, x: NodeId, n: usize) -> u64 {
        if x >= self.first_node && !self.open_new.is_empty() {
            super::holders::bits_at(self.open_new, (x - self.first_node) as usize) & super::holders::low_bits(n)
        } else {
            (0..n).fold(0, |w, j| w | ((self.open)(x + j as NodeId) as u64) << j)
        }
    }

    pub(crate) fn log(&mut self, e: Entry) {
        if let Some(j) = self.journal.as_deref_mut() {
            j.push(e);
        }
    }
}

impl Level {
    /// Marks `e` as changed at this step, journaling its state first.
    #[inline]
    pub(crate) fn touch(&mut self, cx: &mut StepCtx, e: ElementId) {
        if self.elems[e as usize].touched != cx.t {
            self.touch_first(cx, e);
        }
    }

    /// [`Level::touch`] at the first change of `e` at this step.
    #[inline(never)]
    fn touch_first(&mut self, cx: &mut StepCtx, e: ElementId) {
        // A persisting element is written out first (it leaves the set).
        if self.persists(e) {
            self.materialize(e);
        }
        let el = &mut self.elems[e as usize];
        if el.touched != NONE && el.touched < cx.t && cx.journal.is_some() {
            let snap = ElemSnap {
                state: el.state,
                complete_at: el.complete_at,
                ended: el.ended,
                merged_into: el.merged_into,
                end_kind: el.end_kind,
                apps: el.apps.len() as u32,
                runs: el.runs.len() as u32,
                nodes: el.nodes.len() as u32,
                pending: el.pending.to_vec(),
                open: el.open,
                last: el.last,
                touched: el.touched,
                applied_at: el.applied_at,
                stepped: el.stepped,
                rep_at: el.rep_at,
                rep_len: el.rep_len,
            };
            if let Some(j) = cx.journal.as_deref_mut() {
                j.push_elem(self.n as u8, e, snap);
            }
        }
        self.elems[e as usize].touched = cx.t;
        self.touched_now.push(e);
    }

    /// Element `f`, new at this step, becomes a holder of match `m` (journaled when `m` is older
    /// than the step).
    fn register_holder(&mut self, cx: &mut StepCtx, f: ElementId, m: MatchId) {
        if m < cx.first_new {
            let w = self.store.holder_word(m);
            let l = self.store.multi_len(w).map(|(_, l)| l);
            cx.log(Entry::MatchHolder(self.n as u8, m, w, l));
        }
        self.store.add_holder(m, f);
    }

    /// Element `e` becomes a holder of node `x` (journaled when `x` is older than the step).
    fn register_node(&mut self, cx: &mut StepCtx, e: ElementId, x: NodeId) {
        let old_node = if cx.level0 {
            x < cx.first_node
        } else {
            (x as usize) < self.node_holders_before
        };
        if old_node {
            cx.log(Entry::NodeHolders(
                self.n as u8,
                x,
                self.node_holders.get(x as usize).len() as u32,
            ));
        }
        self.node_holders.push(x as usize, e);
        let mut newly_loud = false;
        if cx.level0 && x >= cx.first_node {
            let i = (x - cx.first_node) as usize;
            if let Some(w) = self.loud.get_mut(i / 64) {
                newly_loud = *w >> (i % 64) & 1 == 0;
                *w |= 1 << (i % 64);
            }
        }
        // (Only elements that are not quiet register nodes.)
        if self.marking
            && let Some(seeds) = cx.seeds
        {
            let (pass_at, first_new) = (cx.pass_at, cx.first_new);
            let (route_due, record_due) = (&mut self.route_due, &mut self.record_due);
            seeds.each(x, |m| {
                let i = (m - first_new) as usize;
                if pass_at != MatchId::MAX && m > pass_at {
                    route_due[i / 64] |= 1 << (i % 64);
                }
                if newly_loud {
                    record_due[i / 64] |= 1 << (i % 64);
                }
            });
        }
        if e == self.flood {
            if self.flood_mark.len() <= x as usize {
                self.flood_mark.resize(x as usize + 1, 0);
            }
            self.flood_mark[x as usize] = self.flood_gen;
        }
    }

    /// Element `e` loses one primitive with an open terminal site.
    pub(crate) fn lose_open(&mut self, cx: &mut StepCtx, e: ElementId) {
        self.touch(cx, e);
        let el = &mut self.elems[e as usize];
        el.open = el.open.saturating_sub(1);
    }

    /// Undo: restores an element's state.
    pub(crate) fn restore(&mut self, e: ElementId, s: &ElemSnap) {
        let el = &mut self.elems[e as usize];
        el.state = s.state;
        el.complete_at = s.complete_at;
        el.ended = s.ended;
        el.merged_into = s.merged_into;
        el.end_kind = s.end_kind;
        el.apps.truncate(s.apps as usize);
        el.sets.truncate(s.apps as usize);
        el.runs.truncate(s.runs as usize);
        // An entry of image runs ends at the element's last step ([`super::runs`]).
        if let Some(r) = el.runs.last_mut().filter(|r| Elem::is_image(**r)) {
            r.0 = s.applied_at;
        }
        el.nodes.truncate(s.nodes as usize);
        el.pending.set(s.pending.clone());
        el.open = s.open;
        el.last = s.last;
        el.touched = s.touched;
        el.applied_at = s.applied_at;
        el.stepped = s.stepped;
        el.rep_at = s.rep_at;
        el.rep_len = s.rep_len;
        self.note_life(e);
    }

    /// Whether an element of class `cls` made at this step, standing in `state`, ends at once at a
    /// match of local constraint `l` that applies to it (`ClassRt::ends_at_once`, while
    /// [`super::Timeline::end_at_once`] is on): read by the general route ([`Level::offer`]) and
    /// by the trials alike.
    #[inline]
    pub(crate) fn ends_at_once(&self, cls: u16, state: u32, l: usize) -> bool {
        self.end_at_once && self.table.classes[cls as usize].ends_at_once[state as usize][l]
    }

    #[inline]
    fn alive(&self, e: ElementId) -> bool {
        let live = self.live[e as usize / 64] >> (e % 64) & 1 == 1;
        debug_assert_eq!(
            live,
            self.elems[e as usize].ended == NONE && !self.elems[e as usize].stillborn,
            "the live bit of element {e}"
        );
        live
    }

    /// How many of the first holders of node `x` are dead and were made before step `t` (levels
    /// n ≥ 1, long lists only; 0 otherwise), and whether that is more than [`Level::dead_prefix`]
    /// knew: such holders are never alive again but by an undo, nor taken out of the list (only
    /// stillborn elements are, in the step that made them).
    #[inline(always)]
    fn dead_head(&self, t: u32, x: NodeId) -> (usize, bool) {
        // (Level 0 asks at every node it routes through: answered in line.)
        if self.n == 0 {
            return (0, false);
        }
        self.dead_head_n(t, x)
    }

    /// [`Level::dead_head`] at a level n ≥ 1.
    #[inline(never)]
    fn dead_head_n(&self, t: u32, x: NodeId) -> (usize, bool) {
        let list = self.node_holders.get(x as usize);
        if list.len() < LONG_HOLDERS {
            return (0, false);
        }
        let known = self.dead_prefix.get(&x).map_or(0, |&k| k as usize).min(list.len());
        let mut k = known;
        for e in list.tail(known) {
            if self.alive(e) || self.elems[e as usize].created >= t {
                break;
            }
            k += 1;
        }
        (k, k > known)
    }

    /// Writes element `e`'s bit of [`Level::live`] from its `ended` and `stillborn`.
    #[inline]
    pub(crate) fn note_life(&mut self, e: ElementId) {
        let i = e as usize / 64;
        if self.live.len() <= i {
            self.live.resize(i + 1, 0);
        }
        let el = &self.elems[e as usize];
        let bit = 1u64 << (e % 64);
        if el.ended == NONE && !el.stillborn {
            self.live[i] |= bit;
        } else {
            self.live[i] &= !bit;
        }
    }

    /// Whether element `e` holds node `x`.
    #[inline]
    fn holds(&self, e: ElementId, x: NodeId) -> bool {
        if e == self.flood {
            return self.flood_mark.get(x as usize) == Some(&self.flood_gen);
        }
        self.node_holders.contains(x as usize, e)
    }

    /// A new generation of the per-node marks of a derivation begun from a start (no node is
    /// marked with it yet).
    pub(crate) fn next_flood_gen(&mut self) -> u32 {
        self.flood_gen = self.flood_gen.wrapping_add(1);
        if self.flood_gen == 0 {
            self.flood_mark.iter_mut().for_each(|g| *g = 0);
            self.trial.forget_marks();
            self.flood_gen = 1;
        }
        self.flood_gen
    }

    /// The per-node marks of derivations begun from a start, lent to a trial
    /// ([`Level::put_flood_marks`] gives them back).
    pub(crate) fn take_flood_marks(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.flood_mark)
    }

    /// Gives back the marks [`Level::take_flood_marks`] lent.
    pub(crate) fn put_flood_marks(&mut self, marks: Vec<u32>) {
        self.flood_mark = marks;
    }

    /// Element `e` makes an application at step `t`: its first at `t` begins a run (from its next
    /// application on), and an element made before `t` is extended.
    fn applies_at(&mut self, e: ElementId, t: u32) {
        self.first_at(e, t);
        let el = &mut self.elems[e as usize];
        if el.runs.last().is_none_or(|r| r.0 != t) {
            grow(&mut el.runs, 1);
            el.runs.push((t, el.apps.len() as u32));
        }
    }

    /// Element `e` applies something at step `t`: at its first application at `t`, an element
    /// made before `t` is extended ([`Level::applies_at`], [`Level::take_images`]).
    #[inline]
    fn first_at(&mut self, e: ElementId, t: u32) {
        let el = &mut self.elems[e as usize];
        if el.applied_at != t {
            el.applied_at = t;
            if el.born < t && !el.forked_now(t) {
                self.delta.extended.push(e);
            }
        }
    }

    /// Element `e` applies match `m` through `set` (`RECORDED`: not a step of its schedule).
    fn apply(&mut self, cx: &mut StepCtx, e: ElementId, m: MatchId, set: u8) {
        self.touch(cx, e);
        let t = cx.t;
        if cx.level0 {
            self.write_last_run(e, t, cx.shifts.unwrap_or(Shifts::NONE));
        }
        self.applies_at(e, t);
        {
            let el = &mut self.elems[e as usize];
            grow(&mut el.apps, 1);
            grow(&mut el.sets, 1);
            el.apps.push(m);
            el.sets.push(set);
        }
        self.register_holder(cx, e, m);
        if self.store.holders(m).len() >= 2 {
            self.shared.push(m);
        }
        let nodes = self.store.nodes(m).to_small();
        for x in nodes {
            if !self.holds(e, x) {
                self.join(cx, e, x);
            }
        }
    }

    /// Node `x` joins element `e`.
    fn join(&mut self, cx: &mut StepCtx, e: ElementId, x: NodeId) {
        self.register_node(cx, e, x);
        let el = &mut self.elems[e as usize];
        grow(&mut el.nodes, 1);
        el.nodes.push(x);
        if cx.level0 {
            if cx.is_open(x) {
                el.open += 1;
            }
            let s = if x >= cx.first_node { cx.t } else { (cx.step_of)(x) };
            if s > el.last || el.last == NONE {
                el.last = s;
            }
        } else {
            el.last = cx.t;
        }
        // A node that joins behind the routing pass (or outside it) is caught up on at once: the
        // matches already routed that hold it may now apply.
        if !cx.quiet {
            cx.catch.push((e, x));
        }
    }

    /// Level n ≥ 1: how match `m` stands at step `t` — every node present ([`Presence::Here`]),
    /// one ending at `t` ([`Presence::Ending`]: it took part in what happened at `t`, and can
    /// only end an element), or one ended before ([`Presence::Gone`]). Level 0: always here
    /// (primitives do not end).
    #[inline]
    pub(crate) fn presence(&self, cx: &StepCtx, m: MatchId) -> Presence {
        if cx.level0 {
            return Presence::Here;
        }
        // The earliest step a node of `m` ended at, kept per match (`Level::gone`): every node
        // of a match is born by the step it is asked at.
        if let Some(&g) = self.gone.get(m as usize) {
            let p = match g.cmp(&cx.t) {
                std::cmp::Ordering::Greater => Presence::Here,
                std::cmp::Ordering::Equal => Presence::Ending,
                std::cmp::Ordering::Less => Presence::Gone,
            };
            debug_assert_eq!(p, self.presence_above(cx, m), "match {m} at step {}", cx.t);
            return p;
        }
        self.presence_above(cx, m)
    }

    /// Level n ≥ 1: match `m` was just stored: the earliest step one of its nodes ended at
    /// (`NONE`: none has), which [`Level::presence`] reads.
    pub(crate) fn note_match(&mut self, m: MatchId) {
        if self.gone.len() == m as usize {
            let g = self.earliest_end(m);
            grow(&mut self.gone, 1);
            self.gone.push(g);
        }
    }

    /// The earliest step a node of match `m` ended at (`NONE`: none has).
    fn earliest_end(&self, m: MatchId) -> u32 {
        (self.store.nodes(m))
            .map(|x| self.host.ended(x).unwrap_or(NONE))
            .min()
            .unwrap_or(NONE)
    }

    /// Level n ≥ 1: node `x` ended at step `t` (or, with `t` `NONE`, no longer has: undo): the
    /// matches holding it (its index holds every one) read so in [`Level::gone`].
    pub(crate) fn note_node_end(&mut self, x: NodeId, t: u32) {
        let Some(ms) = self.index.get(x as usize) else {
            return;
        };
        for &m in ms {
            let Some(g) = self.gone.get(m as usize).copied() else {
                continue;
            };
            self.gone[m as usize] = if t != NONE { g.min(t) } else { self.earliest_end(m) };
        }
    }

    /// [`Level::presence`] from the nodes' own steps.
    #[inline(never)]
    fn presence_above(&self, cx: &StepCtx, m: MatchId) -> Presence {
        let mut p = Presence::Here;
        for x in self.store.nodes(m) {
            if !self.host.present(x, cx.t) {
                if self.host.matchable(x, cx.t) {
                    p = Presence::Ending;
                } else {
                    return Presence::Gone;
                }
            }
        }
        p
    }

    /// Whether every node of `m` that is not present at this step is one element `e` holds: an
    /// element takes in nothing that is leaving, but what of it leaves may end it (an element
    /// ended by the removal of its own parts).
    fn ending_held(&self, cx: &StepCtx, e: ElementId, m: MatchId) -> bool {
        self.store
            .nodes(m)
            .all(|x| self.host.present(x, cx.t) || self.holds(e, x))
    }

    /// Level n ≥ 1: elements living before this step whose present part no longer forms an
    /// element of their class end (`Vanished`): those touched at this step and those holding a
    /// node that ends at it. What of it is present is its applications whose nodes are all
    /// present, replayed through its schedule in the order it made them.
    pub(crate) fn check_presence(&mut self, cx: &mut StepCtx, ended_nodes: &[NodeId], only_old: bool) {
        let t = cx.t;
        let mut cands: Vec<ElementId> = self.touched_now.clone();
        for &x in ended_nodes {
            cands.extend(self.holders_of_node(x).iter());
        }
        cands.sort_unstable();
        cands.dedup();
        // The elements the check of the old ones (`only_old`, first at a step) left standing,
        // in id order, each with its number of applications, state and completion then. A
        // replay reads only an element's applications (which only grow within a step) and what
        // of the host is present at the step (fixed by then), so one of them that has applied
        // nothing since, nor changed state or completion, stands as it did: the second check
        // passes it by.
        let mut stood = std::mem::take(&mut self.presence_stood);
        if only_old {
            stood.clear();
            self.presence_stood_at = t;
        } else if self.presence_stood_at != t {
            stood.clear();
        }
        let mut si = 0;
        for e in cands {
            let el = &self.elems[e as usize];
            if el.ended != NONE || el.stillborn || (only_old && el.created == t) {
                continue;
            }
            if !only_old {
                while stood.get(si).is_some_and(|s| s.0 < e) {
                    si += 1;
                }
                if stood.get(si) == Some(&(e, el.apps.len() as u32, el.state, el.complete_at)) {
                    continue;
                }
            }
            let complete = el.complete_at != NONE;
            let mut sc = std::mem::take(&mut self.replay);
            let (r, q) = self.replay_state(e, t, &mut sc);
            self.replay = sc;
            let end = match r {
                Replay::Accepted => false,
                Replay::Forming => complete,
                Replay::Empty | Replay::Stuck => true,
            };
            if end {
                self.end_element(cx, e, t, EndKind::Vanished);
                continue;
            } else if q != self.elems[e as usize].state {
                // A part of it left (a node that ended a step of it): its derivation stands
                // where what is present leads, and may take again the steps it had taken.
                self.touch(cx, e);
                self.elems[e as usize].state = q;
            }
            if only_old {
                let el = &self.elems[e as usize];
                stood.push((e, el.apps.len() as u32, el.state, el.complete_at));
            }
        }
        self.presence_stood = stood;
    }

    /// Offers match `m` to element `e`: a loop step applies it now; a step leaving the current
    /// state, or one usable later, waits in the element's pending list. A match whose nodes are
    /// gone is no step; one whose node ends at this step is only a step that ends the element.
    /// Level n ≥ 1: a match the element cannot use from where it stands nor later, but could have
    /// used from an earlier state of its derivation, makes a late fork ([`Level::late_fork`]).
    fn offer(&mut self, cx: &mut StepCtx, e: ElementId, m: MatchId) {
        let el = &self.elems[e as usize];
        let cr = &self.table.classes[el.cls as usize];
        let Some(l) = cr.local_of(self.store.constraint(m)) else {
            return;
        };
        if self.store.held_by(m, e) {
            return;
        }
        let pres = self.presence(cx, m);
        if pres == Presence::Gone {
            return;
        }
        let mv = &cr.moves[el.state as usize][l];
        if pres == Presence::Ending && (!mv.iter().any(|&(s, _)| cr.ends[s as usize]) || !self.ending_held(cx, e, m)) {
            return;
        }
        if pres == Presence::Here
            && let Some(s) = cr.loop_set(el.state, l)
        {
            self.apply(cx, e, m, s);
            return;
        }
        if !cr.usable_later[el.state as usize][l] {
            if pres == Presence::Here && !cx.level0 {
                self.late_fork(cx, e, m, l);
            }
            return;
        }
        if el.created == cx.t && self.ends_at_once(el.cls, el.state, l) {
            // Made at this step, it can only loop or end: an ending step that applies ends it now
            // (`docs/semantics.md`, "a derivation begun at a step ends at its first ending
            // step"), as the trial ends it (`super::trial`).
            let s = mv
                .iter()
                .find(|&&(s, _)| cr.ends[s as usize])
                .map(|&(s, _)| s)
                .expect("an ending step");
            self.terminate(cx, e, m, s);
            return;
        }
        if el.pending.contains(&m) {
            return;
        }
        let leaving = !mv.is_empty();
        self.touch(cx, e);
        self.elems[e as usize].pending.push(m);
        if leaving {
            cx.resolve.push(e);
        }
    }

    /// Whether the context part of `m` lies inside `e` (without one: whether `m` shares a node
    /// with it).
    fn context_inside(&self, e: ElementId, m: MatchId) -> bool {
        let part = self.table.part(self.store.constraint(m));
        let mut nodes = self.store.nodes(m);
        if part.len == 0 {
            nodes.any(|x| self.holds(e, x))
        } else {
            nodes.zip(&part.context).all(|(x, &ctx)| !ctx || self.holds(e, x))
        }
    }

    /// Routes match `m` to the living elements of the classes that step with its constraint and
    /// hold its context part (or, without one, share a node with it). Only elements below `limit`
    /// are considered.
    pub(crate) fn route(&mut self, cx: &mut StepCtx, m: MatchId, limit: ElementId) {
        let c = self.store.constraint(m);
        if self.table.users[c.0 as usize].is_empty() {
            return;
        }
        let part = self.table.part(c);
        let part_len = part.len;
        // The context node with the fewest holders.
        let mut best: Option<(NodeId, super::HolderList)> = None;
        if part.len > 0 {
            for (i, x) in self.store.nodes(m).enumerate() {
                if !part.context[i] {
                    continue;
                }
                if x as usize >= self.node_holders.len() || !self.loud_or_old(cx, x) {
                    return;
                }
                let h = self.node_holders.get(x as usize);
                if best.is_none_or(|(_, b): (NodeId, super::HolderList)| h.len() < b.len()) {
                    best = Some((x, h));
                }
            }
        }
        // (Its dead head passed by: the candidates below are the same but for dead ones, which
        // are passed by there anyway.)
        let best = best.map(|(x, _)| x);
        let best_from = match best {
            Some(x) => {
                let (k, grew) = self.dead_head(cx.t, x);
                if grew {
                    self.dead_prefix.insert(x, k as u32);
                }
                k
            }
            None => 0,
        };
        // (A list kept between calls.)
        let mut cands = std::mem::take(&mut self.cands);
        cands.clear();
        if part_len > 0 {
            if let Some(x) = best {
                let b = self.node_holders.get(x as usize).tail(best_from);
                cands.extend(b.iter().filter(|&e| e < limit && !self.is_quiet(e)));
            }
        } else {
            // Each holder once, in the order first found (a mark per element: a node's holder list
            // keeps the elements that ended, and may be long).
            self.cand_gen = self.cand_gen.wrapping_add(1);
            if self.cand_gen == 0 {
                self.cand_mark.iter_mut().for_each(|g| *g = 0);
                self.cand_gen = 1;
            }
            if self.cand_mark.len() < self.elems.len() {
                self.cand_mark.resize(self.elems.len(), 0);
            }
            // (The dead heads found longer, written after the loop.)
            let mut grown: SmallVec<[(NodeId, u32); 4]> = SmallVec::new();
            for x in self.store.nodes(m) {
                if !self.loud_or_old(cx, x) {
                    continue;
                }
                let (from, grew) = self.dead_head(cx.t, x);
                if grew {
                    grown.push((x, from as u32));
                }
                for e in self.node_holders.get(x as usize).tail(from) {
                    // (One that is not alive now is not alive when the offers are made. Its bit
                    // first: most holders of a long list are dead, and the bits are dense.)
                    if e < limit && self.alive(e) && self.cand_mark[e as usize] != self.cand_gen && !self.is_quiet(e) {
                        self.cand_mark[e as usize] = self.cand_gen;
                        cands.push(e);
                    }
                }
            }
            for (x, k) in grown {
                self.dead_prefix.insert(x, k);
            }
        }
        // Quiet elements (level 0) and those from `limit` on are passed by as they are found.
        // Level 0, in id order: which holder list the candidates come from, and in what order
        // they stand there, depend on when the elements joined its nodes (elements taking their
        // images join before the routing pass), and the order of offers decides the order of
        // resolutions, hence the ids of forks.
        if cx.level0 {
            cands.sort_unstable();
        } else if self.forks_first && cands.iter().any(|&e| self.elems[e as usize].created == cx.t) {
            // Level n ≥ 1: this step's forks first, then the others, each in the order found
            // ([`Level::late_fork`]: a fork that takes the match by its loop spares the late forks
            // of the elements born no earlier than the one it came from).
            let (t, elems) = (cx.t, &self.elems);
            cands.sort_by_key(|&e| elems[e as usize].created != t);
        }
        for &e in &cands {
            if !self.alive(e) {
                continue;
            }
            let cls = self.elems[e as usize].cls;
            if !self.table.classes[cls as usize].uses(c) {
                continue;
            }
            // Without a context part, a holder of one of its nodes shares a node with it.
            if part_len == 0 || self.context_inside(e, m) {
                self.offer(cx, e, m);
            }
        }
        self.cands = cands;
    }

    /// Catches up on the joins queued: matches holding a joined node that were routed before it
    /// joined (or formed at earlier steps) may now apply, and recorded matches may now lie inside.
    fn catch_up(&mut self, cx: &mut StepCtx) {
        if cx.catch.is_empty() {
            return;
        }
        let mut around = std::mem::take(&mut self.around);
        while let Some((e, x)) = cx.catch.pop() {
            if !self.alive(e) {
                continue;
            }
            around.clear();
            if cx.level0 {
                (cx.around)(x, &mut around);
            } else if let Some(v) = self.index.get(x as usize) {
                around.extend(v.iter().copied());
            }
            let cls = self.elems[e as usize].cls;
            for &m in &around {
                // Matches of this step not reached yet by the routing pass will be routed there.
                if m >= cx.pass_at {
                    continue;
                }
                let c = self.store.constraint(m);
                // The class's constraints first (a lookup), then the match's holders (a scan).
                let cr = &self.table.classes[cls as usize];
                let Some(l) = cr.local_of(c) else { continue };
                if self.store.held_by(m, e) {
                    continue;
                }
                if cr.recorded[l] && self.store.nodes(m).all(|y| self.holds(e, y)) {
                    if self.presence(cx, m) == Presence::Here {
                        self.apply(cx, e, m, RECORDED);
                    }
                    continue;
                }
                // `e` holds x: a match holding x without a context part shares a node with it.
                if l < cr.n_used()
                    && (self.table.part(c).len == 0 && self.store.nodes(m).any(|y| y == x) || self.context_inside(e, m))
                {
                    self.offer(cx, e, m);
                    if !self.alive(e) {
                        // It ended at an ending step ([`Level::offer`]).
                        break;
                    }
                }
            }
        }
        around.clear();
        self.around = around;
    }

    /// Takes the steps that leave the element's state, as the schedule allows (see the module
    /// documentation); may fork the element.
    fn resolve(&mut self, cx: &mut StepCtx, e: ElementId) {
        // (Out of the level while the element resolves: nothing it calls resolves another.)
        let mut pend = std::mem::take(&mut self.pend);
        self.resolve_with(cx, e, &mut pend);
        self.pend = pend;
    }

    /// [`Level::resolve`], reading the pending matches at each step through `pend`.
    fn resolve_with(&mut self, cx: &mut StepCtx, e: ElementId, pend: &mut Vec<MatchId>) {
        loop {
            self.catch_up(cx);
            if !self.alive(e) {
                return;
            }
            let state = self.elems[e as usize].state;
            let cls = self.elems[e as usize].cls as usize;
            // Loops the state allows now (it may have changed since they were offered).
            pend.clear();
            pend.extend_from_slice(&self.elems[e as usize].pending);
            let mut looped = false;
            let mut options: SmallVec<[(MatchId, u8, u32); 4]> = SmallVec::new();
            let mut ending: Option<(MatchId, u8)> = None;
            let mut contained: SmallVec<[MatchId; 4]> = SmallVec::new();
            for &m in pend.iter() {
                if self.store.held_by(m, e) {
                    continue;
                }
                let pres = self.presence(cx, m);
                if pres == Presence::Gone {
                    continue;
                }
                let cr = &self.table.classes[cls];
                let Some(l) = cr.local_of(self.store.constraint(m)) else {
                    continue;
                };
                if pres == Presence::Here
                    && let Some(s) = cr.loop_set(state, l)
                {
                    self.apply(cx, e, m, s);
                    looped = true;
                    continue;
                }
                let mv = &cr.moves[state as usize][l];
                if !mv.is_empty() {
                    if self.store.nodes(m).any(|x| !self.holds(e, x)) {
                        for &(s2, to2) in mv.iter() {
                            if cr.ends[s2 as usize] {
                                if pres == Presence::Here || self.ending_held(cx, e, m) {
                                    ending = ending.or(Some((m, s2)));
                                }
                            } else if pres == Presence::Here {
                                options.push((m, s2, to2));
                            }
                        }
                    } else if pres == Presence::Here {
                        contained.push(m);
                    }
                }
            }
            if looped {
                continue;
            }
            if options.is_empty()
                && let Some((m, s)) = ending
            {
                // Only steps that end the element are left: its generating system terminates.
                self.terminate(cx, e, m, s);
                return;
            }
            if options.is_empty() {
                for m in contained {
                    if !self.store.held_by(m, e) {
                        self.apply(cx, e, m, RECORDED);
                    }
                }
                self.catch_up(cx);
                self.prune(cx, e);
                return;
            }
            // One choice, or choices that all lead to one state looping on every one of them: take
            // them all. Otherwise fork.
            let (_, _, to0) = options[0];
            let cr = &self.table.classes[cls];
            let all_one = options.iter().all(|&(m, s, to)| {
                to == to0 && {
                    let l = cr.local_of(self.store.constraint(m)).expect("local");
                    let _ = s;
                    cr.moves[to0 as usize][l].iter().any(|&(_, t2)| t2 == to0)
                }
            });
            if options.len() == 1 || all_one {
                let (m, s, to) = options[0];
                self.take(cx, e, m, s, to);
                continue;
            }
            // Fork: one element per further choice, each a copy of this one before the choice.
            let mut seen_choice: SmallVec<[(MatchId, u32); 4]> = SmallVec::new();
            let (m0, s0, to_0) = options[0];
            seen_choice.push((m0, to_0));
            let mut forks: SmallVec<[(ElementId, MatchId, u8, u32); 4]> = SmallVec::new();
            for &(m, s, to) in &options[1..] {
                if seen_choice.contains(&(m, to)) {
                    continue;
                }
                seen_choice.push((m, to));
                let f = self.copy_element(cx, e);
                forks.push((f, m, s, to));
            }
            self.take(cx, e, m0, s0, to_0);
            for (f, m, s, to) in forks {
                self.delta.forked.push((e, f));
                self.take(cx, f, m, s, to);
                cx.resolve.push(f);
            }
        }
    }

    /// Drops pending matches the element can no longer use.
    fn prune(&mut self, _cx: &mut StepCtx, e: ElementId) {
        let el = &self.elems[e as usize];
        let cr = &self.table.classes[el.cls as usize];
        let state = el.state as usize;
        let keep: Vec<MatchId> = el
            .pending
            .iter()
            .copied()
            .filter(|&m| {
                !self.store.held_by(m, e)
                    && cr
                        .local_of(self.store.constraint(m))
                        .is_some_and(|l| cr.usable_later[state][l])
            })
            .collect();
        self.elems[e as usize].pending.set(keep);
    }

    /// Element `e` takes a step through `set` to state `to`, applying `m`.
    fn take(&mut self, cx: &mut StepCtx, e: ElementId, m: MatchId, set: u8, to: u32) {
        self.touch(cx, e);
        let cls = self.elems[e as usize].cls as usize;
        let was_complete = self.elems[e as usize].complete_at != NONE;
        self.elems[e as usize].state = to;
        self.elems[e as usize].stepped = cx.t;
        self.apply(cx, e, m, set);
        let cr = &self.table.classes[cls];
        let (acc, term) = (cr.accept[to as usize], cr.terminal[to as usize]);
        let el = &mut self.elems[e as usize];
        if acc && el.complete_at == NONE {
            el.complete_at = cx.t;
            self.delta.completed.push(e);
        }
        if term && was_complete && el.ended == NONE {
            // An element whose generating system terminates at the step it began happened there:
            // it is present during that step and ends at the next.
            el.end_kind = EndKind::Terminated;
            if el.born == cx.t {
                el.ended = cx.t + 1;
                self.due.push(e);
            } else {
                el.ended = cx.t;
                self.delta.ended.push(e);
            }
            self.note_life(e);
        }
    }

    /// Element `e` takes a step through `set`, one its class `ends` with, applying `m`: its
    /// generating system has terminated, and it is no longer present from this step on. An
    /// element begun at this step (a start or a fork) was never an element of the struct
    /// (`docs/semantics.md`): it is dropped as stillborn.
    fn terminate(&mut self, cx: &mut StepCtx, e: ElementId, m: MatchId, set: u8) {
        self.touch(cx, e);
        self.apply(cx, e, m, set);
        let el = &mut self.elems[e as usize];
        el.ended = cx.t;
        el.end_kind = EndKind::Terminated;
        el.pending.clear();
        if el.created == cx.t {
            el.stillborn = true;
        } else {
            self.delta.ended.push(e);
        }
        self.note_life(e);
    }

    /// A new element, copy of `e` (a fork): same history, same nodes and applications.
    fn copy_element(&mut self, cx: &mut StepCtx, e: ElementId) -> ElementId {
        self.memo.impure = true;
        let f = self.elems.len() as ElementId;
        let mut el = self.elems[e as usize].clone();
        el.touched = cx.t;
        el.created = cx.t;
        el.applied_at = cx.t;
        // The matches offered to `e` and not yet taken are offered to the copy too: the copy takes
        // another choice, and what was waiting (a step that ends it, say) may apply to it.
        grow(&mut self.elems, 1);
        self.elems.push(el);
        self.note_life(f);
        self.above.push(NONE);
        self.touched_now.push(f);
        let sh = cx.shifts.unwrap_or(Shifts::NONE);
        for m in self.apps_with(f, sh) {
            self.register_holder(cx, f, m);
        }
        for x in self.nodes_with(f, sh) {
            self.register_node(cx, f, x);
        }
        f
    }

    /// Level n ≥ 1, a *late fork*: match `m` (local constraint `l`) cannot be used by `e` from
    /// where its derivation stands, but could have been from an earlier state — the derivation
    /// chose, before `m` existed, a way on that `m` does not continue (a shape that took the part of
    /// one orientation before the part of another came). If no living
    /// element of the class holds `m` (with `Level::forks_first`, a fork made at this step counts
    /// only when it is of an element born no later than `e`), a new element takes the other way: a
    /// copy of `e`'s derivation up to the latest state from which `m` is a step (at least one
    /// application, all of them present), then `m`. It is a fork of `e` made at this step
    /// (docs/semantics.md, "Late forks").
    fn late_fork(&mut self, cx: &mut StepCtx, e: ElementId, m: MatchId, l: usize) {
        self.memo.impure = true;
        let (cls, born) = (self.elems[e as usize].cls, self.elems[e as usize].born);
        // Not when a living element of the class holds the match already; with forks first, a
        // fork made at this step of an element born later does not count: the fork made here may
        // be the older element the forks of this step merge into.
        let mut held = false;
        for &f in self.store.holders(m) {
            let h = &self.elems[f as usize];
            if !self.alive(f) || h.cls != cls {
                continue;
            }
            if !self.forks_first || h.created != cx.t {
                return;
            }
            held |= h.born <= born;
        }
        if held {
            return;
        }
        let cr = &self.table.classes[cls as usize];
        // The states of its derivation: before application i, the state was q.
        let el = &self.elems[e as usize];
        let mut q = cr.start;
        let mut best: Option<(usize, u8, u32)> = None;
        let mut steps = 0usize;
        for (i, &set) in el.sets.iter().enumerate() {
            if set == RECORDED {
                continue;
            }
            if steps > 0
                && let Some(&(s, to)) = cr.moves[q as usize][l].iter().find(|&&(s, _)| !cr.ends[s as usize])
            {
                best = Some((i, s, to));
            }
            if self.presence(cx, el.apps[i]) != Presence::Here {
                break;
            }
            match cr.trans[q as usize].iter().find(|&&(s, _)| s == set) {
                Some(&(_, to)) => q = to,
                None => break,
            }
            steps += 1;
        }
        let Some((i, s, to)) = best else { return };
        // `m` must be applicable to what the copy holds: its context part inside (without one, a
        // node shared).
        let mut held: SmallVec<[NodeId; 16]> = SmallVec::new();
        for &a in &el.apps[..i] {
            self.store.nodes(a).for_each(|x| held.push(x));
        }
        let part = self.table.part(self.store.constraint(m));
        let mut nodes = self.store.nodes(m);
        let applicable = if part.len == 0 {
            nodes.any(|x| held.contains(&x))
        } else {
            nodes.zip(&part.context).all(|(x, &ctx)| !ctx || held.contains(&x))
        };
        if !applicable {
            return;
        }
        let f = self.elems.len() as ElementId;
        self.late_forks += 1;
        let mut nf = el.clone();
        nf.apps.truncate(i);
        nf.sets.truncate(i);
        nf.runs.retain(|r| (r.1 as usize) < i);
        nf.nodes.clear();
        nf.pending.clear();
        nf.state = match nf
            .sets
            .iter()
            .filter(|&&x| x != RECORDED)
            .try_fold(cr.start, |q, &set| {
                cr.trans[q as usize].iter().find(|&&(s2, _)| s2 == set).map(|&(_, t)| t)
            }) {
            Some(q) => q,
            None => return,
        };
        nf.complete_at = NONE;
        nf.ended = NONE;
        nf.end_kind = EndKind::Living;
        nf.merged_into = NONE;
        nf.touched = cx.t;
        nf.created = cx.t;
        nf.applied_at = cx.t;
        nf.stillborn = false;
        nf.last = cx.t;
        grow(&mut self.elems, 1);
        self.elems.push(nf);
        self.note_life(f);
        self.above.push(NONE);
        self.touched_now.push(f);
        let apps = self.elems[f as usize].apps.clone();
        for a in apps {
            self.register_holder(cx, f, a);
            let nodes = self.store.nodes(a).to_small();
            for x in nodes {
                if !self.holds(f, x) {
                    self.join(cx, f, x);
                }
            }
        }
        self.delta.forked.push((e, f));
        self.take(cx, f, m, s, to);
        cx.resolve.push(f);
    }

    /// Starts an element of class `cls` from match `m` through start set `set`.
    fn start(&mut self, cx: &mut StepCtx, cls: u16, m: MatchId, set: u8) -> ElementId {
        let cr = &self.table.classes[cls as usize];
        let to = cr.trans[cr.start as usize]
            .iter()
            .find(|&&(s, _)| s == set)
            .map(|&(_, t)| t)
            .expect("a start set");
        let e = self.push_element(Elem::begun(cls, cr.class, cr.start, cx.t));
        self.touched_now.push(e);
        self.delta.born.push(e);
        self.take(cx, e, m, set, to);
        e
    }

    /// Adds element `el` (not yet a node of the level above); returns its id.
    pub(crate) fn push_element(&mut self, el: Elem) -> ElementId {
        let e = self.elems.len() as ElementId;
        grow(&mut self.elems, 1);
        self.elems.push(el);
        self.note_life(e);
        self.above.push(NONE);
        e
    }

    /// Whether a living element of class `cls` holds `m`, or one whose generating system
    /// terminated at step `t` through a set its class ends with (what it applied starts nothing
    /// else at that step).
    pub(crate) fn covered(&self, m: MatchId, cls: u16, t: u32) -> bool {
        self.memo.covers(m, cls)
            || self.store.holders(m).iter().any(|&e| {
                let el = &self.elems[e as usize];
                el.cls == cls && (self.alive(e) || el.end_kind == EndKind::Terminated && el.ended == t)
            })
    }

    /// Runs the derivations of one step over this step's matches `first_new..`: existing elements
    /// first (routing the matches in order, then their pending choices), then the matches that
    /// start elements, in the order derivations are tried (latest node, set, constraint, nodes),
    /// each new element derived at once; recorded matches; merges.
    pub(crate) fn derive(&mut self, cx: &mut StepCtx, ended_nodes: &[NodeId]) {
        self.memo.begin_step(cx.t, cx.journal.is_some());
        let end = self.store.len() as MatchId;
        if cx.level0 {
            self.loud.clear();
            self.loud.resize(cx.dirty_new.len(), 0);
            let n = (end - cx.first_new) as usize;
            // (The last step's bits kept for [`Level::persist_bulk`].)
            self.keep_start_bits(cx.t, cx.first_new);
            self.start_due.clear();
            self.start_due.resize(n.div_ceil(64), u64::MAX);
            if !n.is_multiple_of(64) {
                self.start_due[n / 64] = (1 << (n % 64)) - 1;
            }
        }
        self.quiet_steps(cx);
        let n_old = self.elems.len() as ElementId;
        // Level 0 with quiet elements: the passes below visit only the matches marked for them.
        self.marking =
            cx.level0 && cx.seeds.is_some() && (!self.quiet_list.is_empty() || self.pers.members().next().is_some());
        if self.marking {
            self.mark_routes(cx, end);
        }
        // 1. Existing elements.
        let mut next = if self.marking {
            next_set(&self.route_due, 0).map(|i| i + cx.first_new as usize)
        } else {
            Some(cx.first_new as usize).filter(|_| cx.first_new < end)
        };
        while let Some(at) = next {
            let m = at as MatchId;
            cx.pass_at = m;
            // Forks made earlier in this pass (late forks, copies) are routed to as well: their
            // catch-up leaves this step's later matches to this pass.
            self.route(cx, m, self.elems.len() as ElementId);
            if !cx.catch.is_empty() {
                self.catch_up(cx);
            }
            next = if self.marking {
                next_set(&self.route_due, (m - cx.first_new) as usize + 1).map(|i| i + cx.first_new as usize)
            } else {
                Some(at + 1).filter(|&a| a < end as usize)
            };
        }
        cx.pass_at = MatchId::MAX;
        self.run_resolve(cx);
        // Level n ≥ 1: the elements of earlier steps whose present part no longer forms an element
        // end now, so that what remains of them can be derived again below.
        if !cx.level0 {
            self.check_presence(cx, ended_nodes, true);
        }
        // 2. Starts.
        // (A list kept by the level between steps: a step with many starts does not grow a new one.)
        let mut starts = std::mem::take(&mut self.start_list);
        starts.clear();
        let first = cx.first_new as usize;
        let mut from = first;
        while let Some(at) = if cx.level0 {
            next_set(&self.start_due, from - first).map(|i| i + first)
        } else {
            Some(from).filter(|&a| a < end as usize)
        } {
            from = at + 1;
            let m = at as MatchId;
            let c = self.store.constraint(m);
            for &k in &self.table.starters[c.0 as usize] {
                // Level 0: a match a living element of the class holds now is held still when
                // the starts are tried (no element ends while they are), so it starts nothing.
                if cx.level0 && self.covered(m, k, cx.t) {
                    continue;
                }
                let cr = &self.table.classes[k as usize];
                let l = cr.local_of(c).expect("a starter uses its constraint");
                let latest = self.store.nodes(m).max().unwrap_or(0);
                for &s in &cr.start_sets[l] {
                    starts.push((latest, s, c.0, m, k));
                }
            }
        }
        // Level n ≥ 1: what ended at this step may leave, present again, a configuration an element
        // had before something ended it (a part that joined it, or came beside it): the
        // elements no longer living that hold a node ending now offer their applications of start
        // sets, present at this step, as starts again (docs/semantics.md, "rebirth").
        if !cx.level0 {
            // One mark per pass, for the elements and the matches: each is read once.
            self.offer_gen = self.offer_gen.wrapping_add(1);
            if self.offer_gen == 0 {
                self.offered.iter_mut().for_each(|g| *g = 0);
                self.dead_mark.iter_mut().for_each(|g| *g = 0);
                self.offer_gen = 1;
            }
            if self.offered.len() < cx.first_new as usize {
                self.offered.resize(cx.first_new as usize, 0);
            }
            if self.dead_mark.len() < self.elems.len() {
                self.dead_mark.resize(self.elems.len(), 0);
            }
            let mark = self.offer_gen;
            // The elements first, each once (an element holding several of the nodes that end
            // would offer its applications once per node; a region flooded at many steps lists
            // each flood at each of its nodes). Their order does not matter: what they offer is
            // sorted below.
            let mut dead: Vec<ElementId> = Vec::new();
            let mut dead_mark = std::mem::take(&mut self.dead_mark);
            let mut once = |e: ElementId, dead: &mut Vec<ElementId>| {
                let d = &mut dead_mark[e as usize];
                if *d != mark {
                    *d = mark;
                    dead.push(e);
                }
            };
            for &x in ended_nodes {
                for e in self.holders_of_node(x).iter() {
                    if !self.alive(e) {
                        once(e, &mut dead);
                    }
                }
                if let Some(v) = self.node_stillborn.get(x as usize) {
                    for &e in v {
                        once(e, &mut dead);
                    }
                }
            }
            // and the elements that ended at this step because what of them is present no longer
            // forms an element (a space that shrinks, a shape that lost a part).
            for &e in &self.delta.ended {
                if self.elems[e as usize].end_kind == EndKind::Vanished {
                    once(e, &mut dead);
                }
            }
            self.dead_mark = dead_mark;
            // Each match once (elements born again from one another share their applications):
            // a mark per match, then the few distinct ones in order.
            let mut again: Vec<MatchId> = Vec::new();
            // (Out of the level while it is read, so that the lists are read in place.)
            let mut offered = std::mem::take(&mut self.offered);
            for e in dead {
                // A stillborn element of an earlier step kept them aside (matches of its step,
                // before this one's); any other has them among its applications.
                let kept = self.stillborn_starts(e);
                if !kept.is_empty() {
                    // (The loop most of a rebirth's reading goes through: a region flooded at
                    // many earlier steps offers each flood's starts, mostly the same ones.)
                    for &m in kept {
                        debug_assert!(m < cx.first_new);
                        let o = &mut offered[m as usize];
                        if *o != mark {
                            *o = mark;
                            again.push(m);
                        }
                    }
                    continue;
                }
                for &m in &self.elems[e as usize].apps {
                    if m < cx.first_new && offered[m as usize] != mark && self.starts_a_class(m) {
                        offered[m as usize] = mark;
                        again.push(m);
                    }
                }
            }
            self.offered = offered;
            again.sort_unstable();
            for m in again {
                if self.presence(cx, m) != Presence::Here {
                    continue;
                }
                let c = self.store.constraint(m);
                for &k in &self.table.starters[c.0 as usize] {
                    let cr = &self.table.classes[k as usize];
                    let l = cr.local_of(c).expect("a starter uses its constraint");
                    let latest = self.store.nodes(m).max().unwrap_or(0);
                    for &s in &cr.start_sets[l] {
                        starts.push((latest, s, c.0, m, k));
                    }
                }
            }
        }
        // Level n ≥ 1: a start covered now is covered when its turn comes (a derivation below takes
        // steps only for the element it begins and the copies it forks, so an element alive now is
        // alive then, and the memo's cover only grows), so it starts nothing: taken out before the
        // sort, which most of them would otherwise pass through (a rebirth offers hundreds, nearly
        // all held by living elements of their class). Debug builds keep them and check the claim
        // at their turn.
        if !cx.level0 {
            if cfg!(debug_assertions) {
                let early: Vec<(MatchId, u16)> = (starts
                    .iter()
                    .filter(|st| self.covered(st.3, st.4, cx.t))
                    .map(|st| (st.3, st.4)))
                .collect();
                self.covered_early = early;
            } else {
                starts.retain(|st| !self.covered(st.3, st.4, cx.t));
            }
        }
        {
            let store = &self.store;
            starts.sort_by(|a, b| {
                (a.0, a.1, a.2)
                    .cmp(&(b.0, b.1, b.2))
                    .then_with(|| store.nodes(a.3).cmp(store.nodes(b.3)))
                    .then_with(|| a.4.cmp(&b.4))
            });
        }
        starts.dedup();
        for &(_, s, _, m, k) in &starts {
            if self.covered(m, k, cx.t) || self.presence(cx, m) != Presence::Here {
                continue;
            }
            debug_assert!(
                cx.level0 || !self.covered_early.contains(&(m, k)),
                "a start covered before the sort is covered at its turn"
            );
            if !cx.level0 && self.replay_flood(cx, k, m, s) {
                continue;
            }
            let before = self.elems.len();
            self.memo.impure = false;
            // Level n ≥ 1: most starts flood a region only to terminate at once; a trial makes
            // such a stillborn element without writing its derivation out ([`super::trial`]).
            if !cx.level0
                && self.trial.on
                && let Some(e) = self.trial_start(cx, k, m, s)
            {
                self.remember_flood(cx, e, m, s, before);
                continue;
            }
            if !cx.level0 {
                // The element about to begin (its id is the next one): no node holds it yet.
                self.flood = before as ElementId;
                self.next_flood_gen();
            }
            let e = self.start(cx, k, m, s);
            debug_assert!(cx.level0 || self.flood == e);
            cx.resolve.push(e);
            self.run_resolve(cx);
            self.flood = NONE;
            if !cx.level0 {
                self.remember_flood(cx, e, m, s, before);
            }
        }
        self.start_list = starts;
        // 3. Recorded matches of this step lying inside an element (with marks: those marked, in
        // order; a mark behind the pass is one the pass without marks would not visit again).
        let (first, mut from) = (cx.first_new as usize, cx.first_new as usize);
        loop {
            let at = if self.marking {
                next_set(&self.record_due, from - first).map(|i| i + first)
            } else {
                Some(from).filter(|&a| a < end as usize)
            };
            let Some(at) = at else {
                break;
            };
            from = at + 1;
            let m = at as MatchId;
            let c = self.store.constraint(m);
            if self.table.recorders[c.0 as usize].is_empty() {
                continue;
            }
            let Some(x0) = self.store.nodes(m).next() else {
                continue;
            };
            // Level 0: an element that is not quiet and holds a primitive of this step joined it
            // at this step, which set its bit; with one of them clear, only quiet elements (which
            // the loop passes by) can hold every primitive of the match.
            if cx.level0 && !self.store.nodes(m).all(|y| self.loud_or_old(cx, y)) {
                continue;
            }
            let hs: SmallVec<[ElementId; 8]> = self.node_holders.get(x0 as usize).iter().collect();
            for e in hs {
                if self.is_quiet(e) || !self.alive(e) || self.store.held_by(m, e) {
                    continue;
                }
                let cls = self.elems[e as usize].cls;
                if !self.table.recorders[c.0 as usize].contains(&cls) {
                    continue;
                }
                if self.store.nodes(m).all(|y| self.holds(e, y)) && self.presence(cx, m) == Presence::Here {
                    self.apply(cx, e, m, RECORDED);
                }
            }
        }
        self.catch_up(cx);
        self.run_resolve(cx);
        self.merges(cx, n_old);
        self.marking = false;
        for e in self.quiet_list.drain(..) {
            self.quiet_mark[e as usize] = false;
        }
    }

    /// Level 0, before the routing pass of a step with quiet elements: clears the marks of the two
    /// passes, and marks for routing the matches holding at a seed position an earlier primitive
    /// that an element that is not quiet holds. [`Level::route`] offers a match only to an element
    /// that is not quiet and holds every node of its context part (or, without one, a node of it),
    /// so a match it offers to anyone holds at a seed position a node such an element holds when
    /// the match's turn comes: an earlier primitive held so now (marked here), or one it joins
    /// before that turn ([`Level::register_node`] marks the matches after the one being routed).
    /// No element that is not quiet holds a primitive of this step yet: only quiet elements
    /// have joined any ([`Level::quiet_steps`]).
    fn mark_routes(&mut self, cx: &StepCtx, end: MatchId) {
        let words = ((end - cx.first_new) as usize).div_ceil(64);
        for due in [&mut self.route_due, &mut self.record_due] {
            due.clear();
            due.resize(words, 0);
        }
        let Some(seeds) = cx.seeds else {
            return;
        };
        debug_assert!(
            (cx.first_node as usize..self.node_holders.len()).all(|x| self
                .node_holders
                .get(x)
                .iter()
                .all(|e| self.is_quiet(e))),
            "a primitive of the step joined before the routing pass by an element that is not quiet"
        );
        let first_new = cx.first_new;
        for x in seeds.least..cx.first_node {
            if self.node_holders.get(x as usize).iter().any(|e| !self.is_quiet(e)) {
                let due = &mut self.route_due;
                seeds.each(x, |m| {
                    let i = (m - first_new) as usize;
                    due[i / 64] |= 1 << (i % 64);
                });
            }
        }
    }

    /// Whether node `x` may have a holder that is not quiet: at level 0, for a primitive of this
    /// step, only when one joined it ([`Level::loud`]); any other node may.
    #[inline]
    fn loud_or_old(&self, cx: &StepCtx, x: NodeId) -> bool {
        if !cx.level0 || x < cx.first_node {
            return true;
        }
        let i = (x - cx.first_node) as usize;
        self.loud.get(i / 64).is_none_or(|w| w >> (i % 64) & 1 == 1)
    }

    /// Whether element `e` took its images at this step ([`Level::quiet_steps`]): the routing
    /// pass, the recorded matches and the merge scan pass it by.
    #[inline]
    fn is_quiet(&self, e: ElementId) -> bool {
        self.quiet_mark.get(e as usize).copied().unwrap_or(false) || self.persists(e)
    }

    /// Element `e` took its images at this step ([`Level::is_quiet`]).
    pub(crate) fn mark_quiet(&mut self, e: ElementId) {
        if self.quiet_mark.len() <= e as usize {
            self.quiet_mark.resize(self.elems.len(), false);
        }
        self.quiet_mark[e as usize] = true;
        self.quiet_list.push(e);
    }

    /// Level 0, before the routing pass: the elements whose runs of applications have repeated
    /// one another in a calm neighbourhood take the images of their last run now, without
    /// derivation: routing, offers and catch-up pass them by (`docs/design-repeats.md`, step 3).
    ///
    /// Element `e` does when, at step t (w: how many steps back this step's matches reach):
    /// - it is living, with nothing pending, made before t−1, and took no step of its schedule that
    ///   is not a loop at t−1 (its state is the one it had when it began t−1);
    /// - its last w + 2 runs were made at consecutive steps up to t−1, each the image of the one
    ///   before (`Elem::rep_len`): what it holds of the last w steps is the image of what it held
    ///   of the w steps before, when t−1 began (the argument below needs no more);
    /// - every application of its run at t−1 was made through a loop set of its state (or
    ///   recorded), of a match formed at t−1 anchored at a primitive whose image is clean: the
    ///   image of the match is a match of t;
    /// - it holds every earlier primitive of those images already (it joins only primitives of t,
    ///   so its catch-up reads only matches of t);
    /// - no match of t that is not an image holds a primitive it holds or would join. Clean
    ///   anchors do not ensure this: an element may join primitives of t other than the anchors,
    ///   and a match through one of those can reach a change twice the pattern reach from the
    ///   anchor (`tests/engine_props.rs`, `far_chain`).
    ///
    /// Then its derivation at t is the image of its derivation at t−1. The derivation of one
    /// element reads only its state, what it holds, and the matches routed to it or around what
    /// it joins. At t these are images of matches of t−1 (none of the others holds a primitive of
    /// it). What it applied at t−1 has an image, applied in the same order; what it was offered
    /// and did not take (nothing stays pending) changed nothing, and its image, if there is one,
    /// changes nothing either. What the other elements do (merges, starts, shared applications)
    /// is derived as before. `Timeline::find_repeats(false)` is the oracle.
    fn quiet_steps(&mut self, cx: &mut StepCtx) {
        let (Some(image), Some(sigma)) = (cx.image, cx.shift) else {
            return;
        };
        let t = cx.t;
        if !cx.quiet_runs() {
            return;
        }
        // The persisting elements take their images ([`super::persist`]).
        self.persist_bulk(cx);
        let mut cands = std::mem::take(&mut self.touched_prev);
        // The elements quiet at t−1, when the last step to run this was t−1, with those that
        // left the set or are on its boundary.
        let prev_list = std::mem::take(&mut self.quiet_prev);
        let mut prev_images = std::mem::take(&mut self.quiet_images);
        let mut prev_fresh = std::mem::take(&mut self.quiet_fresh);
        let merged = {
            let prev: &[QuietEntry] = if self.quiet_at == t - 1 { &prev_list } else { &[] };
            match cx.shifts {
                Some(sh) => self.persist_visits(t, sh, prev, &mut prev_images, &mut prev_fresh, &mut cands),
                None => prev.to_vec(),
            }
        };
        sort_ids(&mut cands, &mut self.id_bits);
        let prev: &[QuietEntry] = &merged;
        let d_step = sigma.constant().1;
        let mut pi = 0;
        let (mut next, mut imgs, mut fresh_all) = std::mem::take(&mut self.quiet_spare);
        next.clear();
        imgs.clear();
        fresh_all.clear();
        let anchors = cx.shifts.map(|s| s.anchors);
        // An element holding an earlier primitive a match of t that is not an image holds is not
        // quiet (both lists are in id order: one walk).
        // (With the classes of the matches marking it: only a match of a constraint its class
        // uses or records is one its derivation would not pass by.)
        let mut out: Vec<(ElementId, u64)> = Vec::new();
        for (&x, &c) in cx.dirty_old.iter().zip(cx.dirty_old_cls) {
            out.extend(self.holders_of_node(x).iter().map(|e| (e, c)));
        }
        out.sort_unstable_by_key(|&(e, _)| e);
        let mut oi = 0;
        // Each element takes its images as soon as it is found quiet: taking them changes the
        // holders of this step's primitives and matches only, which no later check reads.
        cx.quiet = true;
        for &e in &cands {
            if self.persists(e) {
                // Quiet without a visit, unless on the boundary: then it takes what the set did not.
                if self.on_boundary(e) {
                    while prev.get(pi).is_some_and(|p| p.e < e) {
                        pi += 1;
                    }
                    if let Some(p) = prev.get(pi).filter(|p| p.e == e) {
                        let (i, f) = (p.images, p.fresh);
                        self.take_mixed(
                            cx,
                            e,
                            &prev_images[i.0 as usize..i.1 as usize],
                            &prev_fresh[f.0 as usize..f.1 as usize],
                            d_step,
                        );
                    } else {
                        debug_assert!(false, "a persisting element on the boundary without its entry");
                    }
                }
                continue;
            }
            let Some(el) = self.elems.get(e as usize) else {
                continue;
            };
            if !el.may_repeat_at(t) {
                continue;
            }
            // Quiet at t−1 and unchanged since (same state, nothing applied after its images):
            // its last run is those images, already checked to be loops of that state, and their
            // anchors are known, so neither its lists nor the matches' nodes are read again.
            // (Nothing can apply to a quiet element after its images within a step, nor change its
            // state: the guard costs two compares.)
            while prev.get(pi).is_some_and(|p| p.e < e) {
                pi += 1;
            }
            let last = prev
                .get(pi)
                .filter(|p| p.e == e && p.state == el.state && p.apps == el.apps.len() as u32)
                .map(|p| {
                    (
                        &prev_images[p.images.0 as usize..p.images.1 as usize],
                        &prev_fresh[p.fresh.0 as usize..p.fresh.1 as usize],
                    )
                });
            if last.is_none() && el.runs.last().is_none_or(|r| r.0 != t - 1) {
                continue;
            }
            if el.rep_at != t - 1 {
                self.update_streak(e, t, sigma, cx.shifts.unwrap_or(Shifts::NONE));
            }
            let el = &self.elems[e as usize];
            if el.rep_len < cx.span + 2 {
                continue;
            }
            let bit = 1u64 << (el.cls % 64);
            while out.get(oi).is_some_and(|&(o, _)| o < e) {
                oi += 1;
            }
            if out[oi..]
                .iter()
                .take_while(|&&(o, _)| o == e)
                .any(|&(_, c)| c & bit != 0)
            {
                continue;
            }
            let start = imgs.len();
            let mut ok = true;
            let mut explicit = false;
            // Quiet at t−1 and unchanged since: it holds every earlier primitive of its images
            // (argued below), so only this step's are read.
            let persisting = last.is_some();
            // The primitives of this step its images hold, each once, written where they are
            // kept for the next step (`fresh_all[f..]`; dropped if it is not quiet).
            let f = fresh_all.len();
            let mut fresh_dirty = 0u64;
            // Its last run, each a loop of its state (`original` is not read).
            let mut run: SmallVec<[Image; 8]> = SmallVec::new();
            let run: &[Image] = if let Some((last, last_fresh)) = last {
                // The primitives of t its images hold are the images of those of t−1 the images
                // it took then held, in the same order: each image holds the images of its
                // original's primitives, in order, and σ keeps the order within a step. (Those of
                // t−1 are all of t−1, where σ is one shift.)
                let (lo, d) = sigma.constant();
                debug_assert!(last_fresh.iter().all(|&x| x >= lo && sigma.image(x) == x + d));
                // Their dirty bits are read as they are moved (none may be held by a match that is
                // not an image). One past the step's primitives, which only an element with a
                // missing image has, counts as dirty; the loop below finds that image missing too.
                let first_node = cx.first_node;
                for &x in last_fresh {
                    let y = x + d;
                    fresh_all.push(y);
                    let i = (y - first_node) as usize;
                    fresh_dirty |= cx.dirty_cls.get(i).map_or(1, |&c| (c & bit != 0) as u64);
                }
                last
            } else {
                let cr = &self.table.classes[el.cls as usize];
                let apps = self.run_apps_at(e, t - 1, cx.shifts.unwrap_or(Shifts::NONE));
                let cls = el.cls;
                for (m, set) in apps.unwrap_or_default() {
                    let c = self.store.constraint(m);
                    // (Bits only while the level has no more classes than bits.)
                    let own_start =
                        (self.table.starter_bits.as_ref()).is_some_and(|sb| sb[c.0 as usize] & !(1u64 << cls) == 0);
                    if set != RECORDED && cr.local_of(c).and_then(|l| cr.loop_set(el.state, l)) != Some(set) {
                        ok = false;
                        break;
                    }
                    let anchor = self.store.nodes(m).max().unwrap_or(0);
                    let rank = anchors.map_or(0, |a| m - a.get(anchor as usize));
                    run.push(Image {
                        m,
                        set,
                        own_start,
                        original: m,
                        anchor,
                        rank,
                    });
                }
                &run
            };
            for &Image {
                m,
                set,
                own_start,
                anchor,
                rank,
                ..
            } in run.iter().take_while(|_| ok)
            {
                let Some((m2, rank2)) = image.image_any(rank, anchor) else {
                    ok = false;
                    break;
                };
                // Quiet at t−1 and unchanged since: an earlier primitive y of the image of m1 (of
                // its images at t−1) is σ(x), x a primitive of m1 it held before t−1 (the check
                // at t−1), joined at some step j ≤ t−2 through its run at j. x is at most span + 1
                // steps back, so j and j + 1 lie in its streak (rep_len ≥ span + 2): its run at
                // j + 1 ≤ t−1 is the image of its run at j, and holds y. Its primitives of t are
                // read below.
                let joins_clean = persisting
                    || self.store.nodes(m2).all(|x| {
                        if x < cx.first_node {
                            self.holds(e, x)
                        } else {
                            let i = (x - cx.first_node) as usize;
                            if !fresh_all[f..].contains(&x) {
                                fresh_all.push(x);
                            }
                            cx.dirty_cls[i] & bit == 0
                        }
                    });
                if !joins_clean {
                    ok = false;
                    break;
                }
                // An image at another rank than its original's (a partial primitive,
                // `Repeats::partial`) cannot be found from the run before it by its rank: the run
                // is written out.
                explicit |= rank2 != rank;
                imgs.push(Image {
                    m: m2,
                    set,
                    own_start,
                    original: m,
                    anchor: sigma.image(anchor),
                    rank: rank2,
                });
            }
            // (Quiet at t−1: its primitives of t, the images of those of t−1, were read above.)
            ok = ok && fresh_dirty == 0;
            if !ok {
                imgs.truncate(start);
                fresh_all.truncate(f);
                continue;
            }
            let (a, b) = (start as u32, imgs.len() as u32);
            self.take_images(cx, e, &imgs[start..], &fresh_all[f..], explicit);
            let el = &self.elems[e as usize];
            next.push(QuietEntry {
                e,
                images: (a, b),
                fresh: (f as u32, fresh_all.len() as u32),
                state: el.state,
                apps: el.apps.len() as u32,
            });
            self.mark_quiet(e);
            let el = &mut self.elems[e as usize];
            el.rep_at = t;
            el.rep_len += 1;
            self.quiet_count += 1;
        }
        cx.quiet = false;
        self.persist_end(merged);
        self.persist_closed(cx);
        cands.clear();
        self.touched_prev = cands;
        self.quiet_prev = next;
        self.quiet_images = imgs;
        self.quiet_fresh = fresh_all;
        self.quiet_at = t;
        self.quiet_spare = (prev_list, prev_images, prev_fresh);
    }

    /// Level 0: quiet element `e` applies `imgs`, the images of its last run, in order, and joins
    /// `fresh`, the primitives of this step they hold (each once): what
    /// [`Level::apply`] does for each, without what cannot happen to an image. Each is a match of
    /// this step (no journal for its holders), taken through a loop set, and each of its earlier
    /// primitives is one `e` holds already (`quiet_steps` checked both); a primitive it joins is
    /// of this step, and nothing is caught up on.
    ///
    /// An image held by two elements or more is a link for the level above (`shared`), unless
    /// its original was held by the same elements, in the same order: then the level above had
    /// the same link from the original at the step before. Its holders are the elements that
    /// took their images before this one (only quiet elements have run yet at this step), and a
    /// holder that comes later lists it again (`Level::apply`).
    fn take_images(&mut self, cx: &mut StepCtx, e: ElementId, imgs: &[Image], fresh: &[NodeId], explicit: bool) {
        debug_assert!(cx.quiet && cx.level0 && self.n == 0);
        self.touch(cx, e);
        let t = cx.t;
        // Its first application at t (it applied at t−1), with the run kept as images
        // ([`super::runs`]): nothing written but where its nodes stand, and one entry for the
        // image runs of consecutive steps. (`explicit`: an image lies at another rank than its
        // original, so the run is written out, as `Level::apply` would write it.)
        debug_assert_eq!(self.elems[e as usize].applied_at, t - 1);
        self.first_at(e, t);
        let el = &mut self.elems[e as usize];
        if explicit {
            grow(&mut el.runs, 1);
            el.runs.push((t, el.apps.len() as u32));
            el.apps.extend(imgs.iter().map(|i| i.m));
            el.sets.extend(imgs.iter().map(|i| i.set));
            el.nodes.extend_from_slice(fresh);
        } else {
            match el.runs.last_mut() {
                Some(r) if Elem::is_image(*r) && r.0 == t - 1 => r.0 = t,
                _ => {
                    grow(&mut el.runs, 1);
                    el.runs.push((t, IMAGE | el.nodes.len() as u32));
                }
            }
        }
        for &Image {
            m, own_start, original, ..
        } in imgs
        {
            debug_assert!(m >= cx.first_new);
            if own_start {
                let i = (m - cx.first_new) as usize;
                self.start_due[i / 64] &= !(1 << (i % 64));
            }
            debug_assert!(self.store.nodes(m).all(|x| x >= cx.first_node || self.holds(e, x)));
            self.store.add_holder_like(m, e, original);
            // (The same holder word is the same holders.)
            if self.store.holder_word(m) != self.store.holder_word(original) {
                let h = self.store.holders(m);
                if h.len() >= 2 && h != self.store.holders(original) {
                    self.shared.push(m);
                }
            }
        }
        // Nothing else joins it to a primitive of this step before its images: it holds none.
        debug_assert!(fresh.iter().all(|&x| !self.node_holders.contains(x as usize, e)));
        self.node_holders.push_each(fresh, e);
        let mut open = 0;
        for &x in fresh {
            debug_assert_eq!(cx.is_open(x), (cx.open)(x));
            open += cx.is_open(x) as u32;
        }
        self.elems[e as usize].open += open;
        if !fresh.is_empty() {
            self.elems[e as usize].last = t;
        }
    }

    /// Level 0: brings `Elem::rep_len` of element `e` up to its run at t−1 (the last).
    fn update_streak(&mut self, e: ElementId, t: u32, sigma: super::repeats::Sigma, sh: Shifts) {
        let el = &self.elems[e as usize];
        if el.rep_at == t - 1 {
            return;
        }
        // Its last two runs, at t−2 and t−1.
        let runs = if t >= 2 {
            (self.run_apps_at(e, t - 2, sh), self.run_apps_at(e, t - 1, sh))
        } else {
            (None, None)
        };
        let same = match runs {
            (Some(r0), Some(r1)) => {
                r0.len() == r1.len()
                    && r0.iter().zip(&r1).all(|(&(m0, s0), &(m1, s1))| {
                        s0 == s1
                            && self.store.constraint(m0) == self.store.constraint(m1)
                            && self
                                .store
                                .nodes(m0)
                                .zip(self.store.nodes(m1))
                                .all(|(x, y)| sigma.image(x) == y)
                    })
            }
            _ => false,
        };
        let len = if !same {
            1
        } else if el.rep_at == t - 2 {
            el.rep_len + 1
        } else {
            2
        };
        let el = &mut self.elems[e as usize];
        el.rep_at = t - 1;
        el.rep_len = len;
    }

    fn run_resolve(&mut self, cx: &mut StepCtx) {
        self.catch_up(cx);
        while let Some(e) = cx.resolve.pop() {
            self.resolve(cx, e);
        }
    }

    /// Merges at this step: an element whose applications all lie in another living element of
    /// its class joins it (the one born first survives a tie, then the lower id).
    fn merges(&mut self, cx: &mut StepCtx, _n_old: ElementId) {
        let mut pairs: Vec<(ElementId, ElementId)> = Vec::new();
        // (The few that are not quiet, in id order.)
        let mut touched: Vec<ElementId> = (self.touched_now.iter().copied())
            .filter(|&e| !self.is_quiet(e) && self.alive(e))
            .collect();
        touched.sort_unstable();
        // Two elements quiet at this step never merge. An image is the image of one match, so at
        // t−1 both applied the original of what they share now, and so on back to the last step
        // at which one of them was not quiet (an element is not quiet at the step it begins):
        // that one examined the pair then, and neither held all of the other's applications. A
        // match one held and the other did not is held so still, since at each quiet step each
        // took only matches of that step, and primitives do not end. A pair of a quiet element
        // and another is found from the other's side: it applied the image they share at this
        // step (or is a fork copying a run that did), so the image is in its last run.
        let sh = cx.shifts.unwrap_or(Shifts::NONE);
        // Each partner of an element once (two elements share many matches: a level-2 group and
        // its fork share nearly all), by a mark per element: the rebirths' marks, with a
        // generation of their own per element.
        if self.dead_mark.len() < self.elems.len() {
            self.dead_mark.resize(self.elems.len(), 0);
        }
        let mut marks = std::mem::take(&mut self.dead_mark);
        // (Each element's last run read into one list: a long one is not allocated again.)
        let mut last = super::runs::RunApps::new();
        for &e in &touched {
            let el = &self.elems[e as usize];
            last.clear();
            if el.runs.last().is_some_and(|r| r.0 == cx.t) {
                self.run_apps_into(e, cx.t, sh, &mut last);
            }
            self.offer_gen = self.offer_gen.wrapping_add(1);
            if self.offer_gen == 0 {
                self.offered.iter_mut().for_each(|g| *g = 0);
                marks.iter_mut().for_each(|g| *g = 0);
                self.offer_gen = 1;
            }
            let mark = self.offer_gen;
            for &(m, _) in &last {
                for &f in self.store.holders(m) {
                    if f != e && marks[f as usize] != mark && self.alive(f) && self.elems[f as usize].cls == el.cls {
                        marks[f as usize] = mark;
                        pairs.push((e.min(f), e.max(f)));
                    }
                }
            }
        }
        self.dead_mark = marks;
        pairs.sort_unstable();
        pairs.dedup();
        for (a, b) in pairs {
            if !self.alive(a) || !self.alive(b) {
                continue;
            }
            // What of each is here at this step (an application whose node ended, or ends now,
            // is its past: a part that joins two elements ends what each had there).
            // (Each as a set: sorted, without repeats.)
            let here = |e: ElementId| -> Vec<MatchId> {
                let mut v: Vec<MatchId> = self
                    .apps_with(e, sh)
                    .into_iter()
                    .filter(|&m| self.presence(cx, m) == Presence::Here)
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            let (sa, sb) = (here(a), here(b));
            let a_in_b = sorted_subset(&sa, &sb);
            let b_in_a = sorted_subset(&sb, &sa);
            let (from, into) = match (a_in_b, b_in_a) {
                (true, true) => {
                    let (ea, eb) = (&self.elems[a as usize], &self.elems[b as usize]);
                    if (eb.born, b) < (ea.born, a) { (a, b) } else { (b, a) }
                }
                (true, false) => (a, b),
                (false, true) => (b, a),
                (false, false) => continue,
            };
            self.touch(cx, from);
            let el = &mut self.elems[from as usize];
            if el.created == cx.t {
                // Begun and dropped within this step: never an element.
                el.stillborn = true;
                el.ended = cx.t;
                el.end_kind = EndKind::Merged;
                el.merged_into = into;
                self.note_life(from);
                continue;
            }
            el.ended = cx.t;
            el.end_kind = EndKind::Merged;
            el.merged_into = into;
            self.note_life(from);
            self.delta.merged.push((from, into));
            self.delta.ended.push(from);
        }
        // An element merged into one begun at this step that then merged away itself (and so was
        // never an element: stillborn) went, in the end, where that one went.
        for k in 0..self.delta.merged.len() {
            let (from, mut into) = self.delta.merged[k];
            let mut hops = 0;
            while hops < self.elems.len() {
                let t = &self.elems[into as usize];
                if !(t.stillborn && t.merged_into != NONE) {
                    break;
                }
                into = t.merged_into;
                hops += 1;
            }
            self.delta.merged[k].1 = into;
            self.elems[from as usize].merged_into = into;
        }
    }

    /// Level n ≥ 1: element `e` after step `t`, as far as it is present: its applications whose
    /// nodes are all present, replayed through its schedule in the order it made them, each
    /// applicable to what the replay holds before it (its context part inside; without one, a
    /// node shared). An application that is not applicable yet waits until one after it makes it
    /// so; one left waiting at the end means that what is present falls apart into pieces (a space
    /// split in two), and is no longer one element.
    /// Returns the replay's verdict and the state of the schedule it reaches.
    pub(crate) fn replay_state(&self, e: ElementId, t: u32, sc: &mut ReplayScratch) -> (Replay, u32) {
        let el = &self.elems[e as usize];
        let cr = &self.table.classes[el.cls as usize];
        let mut q = cr.start;
        let mut any = false;
        // The nodes held so far: those marked with this replay's stamp.
        let stamp = sc.begin(self.host.len());
        let ReplayScratch {
            mark, todo, waiting, ..
        } = sc;
        let mut held_any = false;
        let applicable = |m: MatchId, mark: &[u32], held_any: bool| -> bool {
            if !held_any {
                return true;
            }
            let held = |x: NodeId| mark.get(x as usize) == Some(&stamp);
            let part = self.table.part(self.store.constraint(m));
            let mut nodes = self.store.nodes(m);
            if part.len == 0 {
                nodes.any(held)
            } else {
                nodes.zip(&part.context).all(|(x, &ctx)| !ctx || held(x))
            }
        };
        todo.clear();
        waiting.clear();
        // (Every node of a match is present at `t` when none has ended by then: the earliest step
        // one ended at is kept per match, [`Level::gone`]; its nodes are read only for a match not
        // listed there.)
        for (i, &m) in el.apps.iter().enumerate() {
            let set = el.sets[i];
            if set == RECORDED {
                continue;
            }
            let here = match self.gone.get(m as usize) {
                Some(&g) => {
                    debug_assert_eq!(
                        g > t,
                        self.store.nodes(m).all(|x| self.host.present(x, t)),
                        "match {m} at {t}"
                    );
                    g > t
                }
                None => self.store.nodes(m).all(|x| self.host.present(x, t)),
            };
            if here {
                todo.push((m, set));
            }
        }
        let mut k = 0;
        while k < todo.len() {
            let (m, set) = todo[k];
            k += 1;
            if !applicable(m, mark, held_any) {
                waiting.push((m, set));
                continue;
            }
            match cr.trans[q as usize].iter().find(|&&(s, _)| s == set) {
                Some(&(_, to)) => q = to,
                None => return (Replay::Stuck, q),
            }
            any = true;
            for x in self.store.nodes(m) {
                let x = x as usize;
                if x >= mark.len() {
                    mark.resize(x + 1, 0);
                }
                mark[x] = stamp;
                held_any = true;
            }
            // What waited may apply now: it is tried next, before the rest, in its order.
            if !waiting.is_empty() {
                todo.splice(k..k, waiting.drain(..));
            }
        }
        if !waiting.is_empty() {
            return (Replay::Stuck, q);
        }
        let r = if !any {
            Replay::Empty
        } else if cr.accept[q as usize] {
            Replay::Accepted
        } else {
            Replay::Forming
        };
        (r, q)
    }

    /// Drops stillborn elements from the delta and puts its lists in order. `journaled`: the
    /// step is kept for undo.
    pub(crate) fn finish_delta(&mut self, journaled: bool) {
        self.purge_stillborn(journaled);
        let elems = &self.elems;
        let keep = |e: &ElementId| !elems[*e as usize].stillborn;
        let d = &mut self.delta;
        d.born.retain(keep);
        d.completed.retain(keep);
        d.forked.retain(|(_, f)| !elems[*f as usize].stillborn);
        d.ended.retain(keep);
        for v in [&mut d.born, &mut d.completed, &mut d.ended] {
            v.sort_unstable();
            v.dedup();
        }
        // (At level 0 nearly every living element is extended at each step: those that persist,
        // in id order, are not visited, and the others are merged with them.)
        sort_ids(&mut d.extended, &mut self.id_bits);
        if self.pers.taken {
            let visited = std::mem::take(&mut d.extended);
            let mut all = Vec::with_capacity(visited.len() + self.pers.member_count());
            let mut vi = visited.iter().copied().peekable();
            for e in self.pers.members() {
                while let Some(v) = vi.next_if(|&v| v < e) {
                    all.push(v);
                }
                vi.next_if_eq(&e);
                all.push(e);
            }
            all.extend(vi);
            d.extended = all;
        }
        self.pers.taken = false;
        d.forked.sort_unstable();
        d.merged.sort_unstable();
    }

    /// The elements made and dropped at this step (stillborn: never elements of the struct) leave
    /// the holder lists of the nodes and matches they took: every later step that scans a node's
    /// or a match's holders would otherwise pass over them (on a 301-move game, two thirds of
    /// level 1's elements are stillborn, and they held five of every six of its match–holder
    /// pairs). What a rebirth reads of them stays, as before: per node, the stillborn elements that
    /// held it (`node_stillborn`), and of each, the applications of constraints that start a class.
    ///
    /// Undo stays exact: a stillborn element was made at this step, so its entries in the lists of
    /// older nodes and matches come after the lengths the journal keeps, and removing them leaves
    /// the prefixes the journal truncates to untouched; `still_log` (kept only for a journaled
    /// step) says which `node_stillborn` lists to pop; the element itself is truncated away. Level
    /// 0 keeps nothing for a rebirth (there is none at level 0).
    fn purge_stillborn(&mut self, journaled: bool) {
        let mut gone: SmallVec<[ElementId; 16]> = SmallVec::new();
        for &e in &self.touched_now {
            let el = &self.elems[e as usize];
            if el.stillborn && !el.nodes.is_empty() | !el.apps.is_empty() {
                gone.push(e);
            }
        }
        if gone.is_empty() {
            return;
        }
        gone.sort_unstable();
        gone.dedup();
        for &e in &gone {
            let el = &mut self.elems[e as usize];
            let apps = std::mem::take(&mut el.apps);
            let nodes = std::mem::take(&mut el.nodes);
            // Kept for a rebirth (levels n ≥ 1): the applications that start a class, in order.
            let at = self.still_apps.len();
            for &m in &apps {
                if self.starts_a_class(m) {
                    grow(&mut self.still_apps, 1);
                    self.still_apps.push(m);
                }
            }
            if self.still_apps.len() > at {
                grow(&mut self.still_starts, 1);
                self.still_starts.push((e, at as u32));
            }
            let el = &mut self.elems[e as usize];
            let rebirths = self.n > 0;
            el.sets = Vec::new();
            el.runs = Vec::new();
            el.pending.clear();
            let listed = !el.unlisted;
            if listed {
                for m in apps {
                    self.store.remove_holder(m, e);
                }
            }
            for x in nodes {
                if listed {
                    self.node_holders.remove_last(x as usize, e);
                }
                if !rebirths {
                    continue;
                }
                cover(&mut self.node_stillborn, x as usize, SmallVec::new());
                self.node_stillborn[x as usize].push(e);
                if journaled {
                    self.still_log.push(x);
                }
            }
        }
    }

    /// Ends element `e` at step `t` for `kind` (if it is living).
    pub(crate) fn end_element(&mut self, cx: &mut StepCtx, e: ElementId, t: u32, kind: EndKind) {
        if !self.alive(e) {
            return;
        }
        self.touch(cx, e);
        let el = &mut self.elems[e as usize];
        el.ended = t;
        el.end_kind = kind;
        if t == cx.t {
            self.delta.ended.push(e);
        }
        self.note_life(e);
    }

    /// Level 0, between two steps: copies into `st` what the next step's quiet pass reads of
    /// the last one ([`QuietState`]; `st`'s lists are reused).
    pub(crate) fn save_quiet(&self, st: &mut QuietState) {
        st.touched.clone_from(&self.touched_now);
        st.prev.clone_from(&self.quiet_prev);
        st.images.clone_from(&self.quiet_images);
        st.fresh.clone_from(&self.quiet_fresh);
        st.at = self.quiet_at;
    }

    /// Level 0, once the step after `st`'s was taken back: what its quiet pass read is read
    /// again by the next step's. `st` is left with the level's lists of the step taken back (to
    /// be reused).
    pub(crate) fn restore_quiet(&mut self, st: &mut QuietState) {
        self.touched_prev.clear();
        std::mem::swap(&mut self.touched_now, &mut st.touched);
        std::mem::swap(&mut self.quiet_prev, &mut st.prev);
        std::mem::swap(&mut self.quiet_images, &mut st.images);
        std::mem::swap(&mut self.quiet_fresh, &mut st.fresh);
        self.quiet_at = st.at;
    }

    pub(crate) fn clear_delta(&mut self) {
        self.delta.clear();
        self.shared.clear();
        std::mem::swap(&mut self.touched_prev, &mut self.touched_now);
        self.touched_now.clear();
    }
}

/// Sorts element ids and drops repeats, as `sort_unstable` then `dedup` would. A long list is
/// sorted through a bit per id up to its largest (`bits` is scratch): at level 0 a step touches
/// most living elements (every holder of a primitive sealed at the step, in the order the
/// primitives list them, then those that take their images), and the list of those, a
/// thousand ids or so in a few hundred runs, costs a comparison sort tens of thousands of
/// instructions a step.
pub(crate) fn sort_ids(v: &mut Vec<ElementId>, bits: &mut Vec<u64>) {
    let words = v.iter().max().map_or(0, |&m| m as usize / 64 + 1);
    if v.len() < 64 || words > 4 * v.len() {
        v.sort_unstable();
        v.dedup();
        return;
    }
    bits.clear();
    bits.resize(words, 0);
    for &e in v.iter() {
        bits[e as usize / 64] |= 1 << (e % 64);
    }
    v.clear();
    for (w, &b) in bits.iter().enumerate() {
        let mut b = b;
        while b != 0 {
            v.push((w * 64) as ElementId + b.trailing_zeros());
            b &= b - 1;
        }
    }
}

/// How a match stands at a step (see [`Level::presence`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// Every node present.
    Here,
    /// A node ends at this step.
    Ending,
    /// A node ended before.
    Gone,
}

/// Scratch of [`Level::replay_state`], kept from one replay to the next: a stamp per node (the
/// nodes held so far are those carrying the replay's stamp), the applications to replay and
/// those waiting for their context.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReplayScratch {
    mark: Vec<u32>,
    stamp: u32,
    todo: Vec<(MatchId, u8)>,
    waiting: Vec<(MatchId, u8)>,
}

impl ReplayScratch {
    /// A new stamp, no node carrying it; room for `nodes` nodes.
    fn begin(&mut self, nodes: usize) -> u32 {
        if self.mark.len() < nodes {
            self.mark.resize(nodes, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Every stamp used: the marks start again from none.
            self.mark.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    fn heap_bytes(&self) -> usize {
        self.mark.capacity() * 4 + (self.todo.capacity() + self.waiting.capacity()) * 8
    }
}

/// An element replayed over what of it is present (see [`Level::replay_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replay {
    /// Nothing of it is present.
    Empty,
    /// What is present cannot be a run of its schedule.
    Stuck,
    /// A run that may not end there yet.
    Forming,
    /// A run the schedule accepts: the element is present.
    Accepted,
}

/// Whether every entry of `a` is one of `b` (both sorted, without repeats).
fn sorted_subset(a: &[MatchId], b: &[MatchId]) -> bool {
    if a.len() > b.len() {
        return false;
    }
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

/// Undo helper: the level's element table as it was with `n` elements.
pub(crate) fn truncate_elements(level: &mut Level, n: usize) {
    level.elems.truncate(n);
    level.above.truncate(n);
    while let Some(&(e, i)) = level.still_starts.last() {
        if (e as usize) < n {
            break;
        }
        level.still_starts.pop();
        level.still_apps.truncate(i as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::{next_set, sort_ids, sorted_subset};
    use crate::ets::ids::ElementId;
    use proptest::prelude::*;

    proptest! {
        /// The first bit set at or after a place, as a scan bit by bit finds it.
        #[test]
        fn next_set_finds_the_first_bit_set_from_a_place(
            bits in prop::collection::vec(prop::num::u64::ANY, 0..5),
            sparse in prop::bool::ANY,
            from in 0usize..400,
        ) {
            // (Sparse words leave runs of empty ones to pass over.)
            let bits: Vec<u64> = bits.into_iter().map(|w| if sparse { w & w.rotate_left(17) & w.rotate_left(41) } else { w }).collect();
            let want = (from..bits.len() * 64).find(|&i| bits[i / 64] >> (i % 64) & 1 == 1);
            prop_assert_eq!(next_set(&bits, from), want);
        }

        /// A subset read from two sorted lists is the one a set finds.
        #[test]
        fn sorted_subset_is_set_inclusion(
            a in prop::collection::btree_set(0u32..60, 0..20),
            b in prop::collection::btree_set(0u32..60, 0..40),
        ) {
            let (va, vb): (Vec<u32>, Vec<u32>) = (a.iter().copied().collect(), b.iter().copied().collect());
            prop_assert_eq!(sorted_subset(&va, &vb), a.is_subset(&b));
            prop_assert!(sorted_subset(&va, &va));
        }

        /// Through the bits or not, the ids come out as a comparison sort leaves them.
        #[test]
        fn sort_ids_sorts_and_drops_repeats_as_a_comparison_sort(
            v in prop::collection::vec(0u32..3_000, 0..1_500),
            spread in prop::bool::ANY,
        ) {
            // Sparse lists (ids spread far apart) take the comparison sort, dense ones the bits.
            let v: Vec<ElementId> = v.into_iter().map(|e| if spread { e * 1_000 } else { e }).collect();
            let mut want = v.clone();
            want.sort_unstable();
            want.dedup();
            let (mut got, mut bits) = (v, vec![u64::MAX; 3]);
            sort_ids(&mut got, &mut bits);
            prop_assert_eq!(got, want);
        }
    }
}
