//! Level 0's persisting elements: class elements (§3.4.2) quiet at the step before that stay
//! quiet, carried from step to step without being visited (§5.1.1, the formative history of an
//! element kept as it grows; `docs/design-repeats.md`, "As built (twenty-third session)").
//!
//! An element *persists* at step t when it took its images at t−1 ([`Level::quiet_steps`](super::level))
//! and nothing near it changed: at t it takes the images of what it took at t−1, and the quiet
//! pass would find so by reading its lists. Here it is found from the change instead, and the
//! element is not visited.
//! - **Who stops persisting.** An element quiet at t−1 is quiet at t, taking the images of its
//!   run at t−1, unless (the checks of the quiet pass for an element quiet at t−1 and unchanged
//!   since) a match of t that is not an image holds an earlier primitive it holds (`dirty_old`),
//!   or one of its primitives of t−1 has an image that is missing, not clean, or held by such a
//!   match; or its streak is shorter than the span of this step's matches asks; or something
//!   else touched it. The first two are read from the holders of those primitives, so the cost
//!   is proportional to the change. An element that leaves is visited by the quiet pass as
//!   before (it may still be quiet), from the images and primitives kept here.
//! - **What is implicit while it persists.** Its `applied_at`, the last step of its last image
//!   run, its `last`, `rep_at` and `rep_len` are those of the step the set took its images at
//!   (`Persisting::at`): [`Level::run_entry`] and [`Level::applied_at`] read them so, and
//!   [`Level::materialize`] writes them out when it leaves (the first touch of an element does
//!   it). It is not touched, so it is not in the journal's element entries, nor in the next
//!   step's candidates; the delta lists it as extended (`finish_delta`).
//! - **Under a journal.** A journaled step writes what it changes of the set and, without a
//!   touch, of its members ([`PersLog`]: joiners, leavers with their fields before they were
//!   written out, counts of open primitives before), and its undo gives it back
//!   ([`Level::persist_undo`]) after the element entries, so the set is the one the step before
//!   left. After steps taken back past the quiet state kept (`Timeline::undo` keeps one), the
//!   next step writes the members out without visiting them, as the elements quiet then are not.
//! - **Its holders.** A match of t−1 held only by persisting elements has its image held by
//!   them, in the same order, and a primitive of t−1 so held its image likewise: the holder word
//!   or slot is copied ([`Level::persist_bulk`]), with the open terminal sites the primitive
//!   brings and the starts it is passed by. A match or primitive also held by an element that does
//!   not persist is a *boundary*: its persisting holders add themselves one by one, in id order
//!   with the elements the quiet pass visits ([`Level::take_mixed`]), so every list is the one the
//!   visits would make.
//! - **Carried holders.** A holder word or slot the set copied at t−1 and nobody wrote since,
//!   none of whose holders has left the set, is held by persisting elements only at t: it is
//!   copied again without its holders being tested, 64 at a time where a run allows
//!   ([`Level::persist_bulk`]). The bits saying so are kept with the store and the node holders,
//!   cleared by every write, and given back by the undo of the step that read them.
//! - **Open terminal sites.** A primitive sealed at t takes one from each holder at once, without
//!   a touch, and a copied primitive gives its own to each holder; an element left with none
//!   once the set has taken its images is touched, so that it ends as a visited one would.
//!
//! `Timeline::persisting(false)` visits every quiet element (the tests compare the two routes'
//! holders, lists and deltas), `Timeline::find_repeats(false)` derives everything, and
//! `scripts/compare-json.sh` compares the outputs with a build before the set.

use super::classes::{SOLE_ANY, SOLE_NONE};
use super::holders::{Kept, bits_at, low_bits};
use super::level::{Elem, Image, Level, QuietEntry, StepCtx};
use super::runs::Shifts;
use crate::ets::ids::{ElementId, MatchId, NONE, NodeId};
use smallvec::SmallVec;

/// One image of a persisting element's run: where it is anchored, as an offset in its step,
/// and its place among the matches anchored there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PImage {
    rank: u32,
    off: u32,
    set: u8,
    own_start: bool,
}

/// Level 0's persisting elements.
#[derive(Debug, Clone)]
pub(crate) struct Persisting {
    /// A bit per element: it persists.
    bits: Vec<u64>,
    /// The elements that persist, in id order (one whose bit is clear has left).
    list: Vec<ElementId>,
    /// The last step the set took its images at (`NONE`: none yet).
    pub(crate) at: u32,
    /// Whether the set has taken its images at the current step.
    pub(crate) taken: bool,
    /// The span of the step the set was last carried to.
    span: u32,
    /// Per element: the ranges of its images and of its primitives of the step in `imgs` and
    /// `fresh`.
    entry: Vec<[u32; 4]>,
    imgs: Vec<PImage>,
    /// Its primitives of the step, as offsets in the step.
    fresh: Vec<u32>,
    /// Entries of `imgs` and `fresh` that belong to elements in the set.
    live: usize,
    /// The elements that left at this step before the quiet pass (it visits them).
    pub(crate) leavers: Vec<ElementId>,
    /// The persisting elements holding a boundary match or primitive at this step, and a bit each.
    boundary: Vec<ElementId>,
    bbits: Vec<u64>,
    /// Scratch: the entries the quiet pass reads.
    merged: Vec<QuietEntry>,
    /// Persisting elements left with no open primitive by the sealed ones at this step.
    zeros: Vec<ElementId>,
    /// A bit per primitive of the step before (an offset in it): sealed at this step and
    /// balanced by its image ([`Level::seal`]).
    balanced: Vec<u64>,
    /// The step `balanced` was found at.
    balanced_at: u32,
    /// Scratch of [`Level::seal`]: a bit per primitive of the step before, sealed at this step.
    sealed_bits: Vec<u64>,
    /// The set as it was when it last took its images ([`Level::persist_bulk`]), and that step;
    /// the same of the time before, with the kept bits of the matches and primitives of that
    /// step ([`Kept`]) as the step's writes left them, for the undo of the step that read them
    /// (`kept_for`).
    snap: (u32, Vec<u64>),
    snap_prev: (u32, Vec<u64>),
    kept_prev: (Kept, Kept),
    kept_for: u32,
    /// Scratch of [`Level::persist_bulk`]: a bit per match and per primitive of the step before
    /// held by an element that has left the set since it took its images then.
    gone_m: Vec<u64>,
    gone_x: Vec<u64>,
    /// Tests every carried holder word and slot ([`Level::persist_bulk`]) and panics on one that
    /// is not held by persisting elements only (debug builds always do).
    pub(crate) verify: bool,
    /// How many holder words and slots were carried (not tested) so far.
    pub(crate) carried: u64,
    /// The step whose [`Level::carry_begin`] ran in [`Level::seal`], and what it returned, for
    /// [`Level::persist_bulk`] of the same step.
    carry_at: (u32, Option<MatchId>),
    /// Whether the elements that left at this step took their images at the step before (their
    /// entries are of it).
    left_quiet: bool,
    /// Kept off: every quiet element is visited ([`super::Timeline::persisting`]).
    pub(crate) off: bool,
    /// The starts' bits of the step before (`Level::start_due`) and that step and its first match,
    /// and those of the current step: an image held only by persisting elements is passed by the
    /// starts when its original was.
    pub(crate) start_prev: Vec<u64>,
    pub(crate) start_prev_at: (u32, u32),
    pub(crate) start_now_at: (u32, u32),
    /// While a journaled step is under way: what it changed of the set and of its members, for
    /// its undo ([`Level::persist_undo`]).
    pub(crate) log: Option<Box<PersLog>>,
}

/// What one journaled step changed of the persisting set and, without touching them, of its
/// members: what [`Level::persist_undo`] gives back, so that a step taken back leaves the set as
/// the step before left it (`docs/design-repeats.md`, "Measured (thirty-sixth session)").
#[derive(Debug, Clone, Default)]
pub(crate) struct PersLog {
    /// The list, and the set's scalars, before the step.
    list: Vec<ElementId>,
    imgs: usize,
    fresh: usize,
    at: u32,
    span: u32,
    live: usize,
    left_quiet: bool,
    /// The elements that joined at the step.
    joined: Vec<ElementId>,
    /// The elements written out at the step ([`Level::materialize`]), each with its `applied_at`,
    /// `last`, `rep_at`, `rep_len` and last run's step (`NONE`: no run) before.
    left: Vec<(ElementId, [u32; 5])>,
    /// Members' counts of open primitives changed without a touch, each with its value before.
    opens: Vec<(ElementId, u32)>,
    /// The starts' bits of the step before the step before, with `start_prev_at` and
    /// `start_now_at`, before the step's derivation moved them on ([`Level::keep_start_bits`]).
    starts: Option<StartBits>,
}

/// The starts' bits a step moved on ([`PersLog::starts`]).
#[derive(Debug, Clone, Default)]
struct StartBits {
    /// `Persisting::start_prev` before the step.
    bits: Vec<u64>,
    /// `Persisting::start_prev_at` and `start_now_at` before the step.
    prev_at: (u32, u32),
    now_at: (u32, u32),
}

impl PersLog {
    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.list.capacity() + self.joined.capacity()) * 4
            + self.left.capacity() * std::mem::size_of::<(ElementId, [u32; 5])>()
            + self.opens.capacity() * 8
            + self.starts.as_ref().map_or(0, |s| s.bits.capacity() * 8)
    }
}

impl Default for Persisting {
    fn default() -> Self {
        Persisting {
            bits: Vec::new(),
            list: Vec::new(),
            at: NONE,
            taken: false,
            span: 0,
            entry: Vec::new(),
            imgs: Vec::new(),
            fresh: Vec::new(),
            live: 0,
            leavers: Vec::new(),
            boundary: Vec::new(),
            bbits: Vec::new(),
            merged: Vec::new(),
            zeros: Vec::new(),
            balanced: Vec::new(),
            balanced_at: NONE,
            sealed_bits: Vec::new(),
            snap: (NONE, Vec::new()),
            snap_prev: (NONE, Vec::new()),
            kept_prev: (Kept::default(), Kept::default()),
            kept_for: NONE,
            gone_m: Vec::new(),
            gone_x: Vec::new(),
            verify: false,
            carried: 0,
            carry_at: (NONE, None),
            left_quiet: false,
            off: false,
            start_prev: Vec::new(),
            start_prev_at: (NONE, NONE),
            start_now_at: (NONE, NONE),
            log: None,
        }
    }
}

#[inline]
fn bit(v: &[u64], e: ElementId) -> bool {
    v.get(e as usize / 64).is_some_and(|w| w >> (e % 64) & 1 == 1)
}

#[inline]
fn set_bit(v: &mut Vec<u64>, e: ElementId) {
    let i = e as usize / 64;
    if v.len() <= i {
        v.resize(i + 1, 0);
    }
    v[i] |= 1 << (e % 64);
}

/// `f(j)` for each bit `j` set in `w`, lowest first.
#[inline]
fn each_bit(mut w: u64, mut f: impl FnMut(NodeId)) {
    while w != 0 {
        f(w.trailing_zeros());
        w &= w - 1;
    }
}

/// Clears in `v` the bits from bit `i` on that `mask` sets (its bit 0 for bit `i`), within
/// `v`'s words.
#[inline]
fn clear_bits_at(v: &mut [u64], i: usize, mask: u64) {
    if mask == 0 {
        return;
    }
    let (w, r) = (i / 64, i % 64);
    if let Some(x) = v.get_mut(w) {
        *x &= !(mask << r);
    }
    if r != 0
        && let Some(x) = v.get_mut(w + 1)
    {
        *x &= !(mask >> (64 - r));
    }
}

#[inline]
fn clear_bit(v: &mut [u64], e: ElementId) {
    if let Some(w) = v.get_mut(e as usize / 64) {
        *w &= !(1 << (e % 64));
    }
}

impl Persisting {
    /// Whether element `e` persists.
    #[inline]
    pub(crate) fn has(&self, e: ElementId) -> bool {
        bit(&self.bits, e)
    }
    /// The elements in the set, in id order.
    pub(crate) fn members(&self) -> impl Iterator<Item = ElementId> + '_ {
        self.list.iter().copied().filter(|&e| self.has(e))
    }
    /// How many elements may be in the set (its list's length).
    pub(crate) fn member_count(&self) -> usize {
        self.list.len()
    }
    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.bits.capacity()
            + self.bbits.capacity()
            + self.balanced.capacity()
            + self.sealed_bits.capacity()
            + self.snap.1.capacity()
            + self.snap_prev.1.capacity()
            + self.gone_m.capacity()
            + self.gone_x.capacity())
            * 8
            + self.kept_prev.0.heap_bytes()
            + self.kept_prev.1.heap_bytes()
            + (self.list.capacity() + self.leavers.capacity() + self.boundary.capacity()) * 4
            + self.entry.capacity() * 16
            + self.imgs.capacity() * std::mem::size_of::<PImage>()
            + self.fresh.capacity() * 4
            + self.merged.capacity() * std::mem::size_of::<QuietEntry>()
            + self.start_prev.capacity() * 8
    }
}

impl Level {
    /// Whether element `e` persists ([`super::persist`]).
    #[inline]
    pub(crate) fn persists(&self, e: ElementId) -> bool {
        self.pers.has(e)
    }

    /// The last step element `e` made an application at (while it persists, the step the set
    /// took its images at).
    pub(crate) fn applied_at(&self, e: ElementId) -> u32 {
        if self.persists(e) {
            self.pers.at
        } else {
            self.elems[e as usize].applied_at
        }
    }

    /// Run `k` of element `e`: `(step, …)` as `Elem::runs` keeps it, but for the last run of a
    /// persisting element, whose images last to the step the set took its images at.
    #[inline]
    pub(crate) fn run_entry(&self, e: ElementId, k: usize) -> (u32, u32) {
        let el = &self.elems[e as usize];
        let r = el.runs[k];
        if k + 1 == el.runs.len() && self.persists(e) {
            (self.pers.at, r.1)
        } else {
            r
        }
    }

    /// Element `e`'s `applied_at`, `last`, `rep_at`, `rep_len` and the step of its last run, as
    /// [`Level::materialize`] would write them out while it persists.
    pub(crate) fn written_out(&self, e: ElementId) -> [u32; 5] {
        let el = &self.elems[e as usize];
        let last_run = el.runs.len().checked_sub(1).map_or(NONE, |k| self.run_entry(e, k).0);
        if !self.persists(e) {
            return [el.applied_at, el.last, el.rep_at, el.rep_len, last_run];
        }
        let at = self.pers.at;
        let [_, _, f0, f1] = self.pers.entry[e as usize];
        let last = if f1 > f0 { at } else { el.last };
        [at, last, at, el.rep_len + (at - el.rep_at), last_run]
    }

    /// Takes element `e` out of the set, writing out what was implicit as of the step the set
    /// last took its images at.
    pub(crate) fn materialize(&mut self, e: ElementId) {
        let [applied_at, last, rep_at, rep_len, last_run] = self.written_out(e);
        let [i0, i1, f0, f1] = self.pers.entry[e as usize];
        let el = &mut self.elems[e as usize];
        if let Some(log) = self.pers.log.as_mut() {
            let run = el.runs.last().map_or(NONE, |r| r.0);
            log.left.push((e, [el.applied_at, el.last, el.rep_at, el.rep_len, run]));
        }
        el.applied_at = applied_at;
        if let Some(r) = el.runs.last_mut() {
            debug_assert!(Elem::is_image(*r), "a persisting element's last run is kept as images");
            r.0 = last_run;
        }
        el.last = last;
        el.rep_at = rep_at;
        el.rep_len = rep_len;
        clear_bit(&mut self.pers.bits, e);
        self.pers.live = self.pers.live.saturating_sub((i1 - i0 + f1 - f0) as usize);
        if self.pers.taken {
            // It took its images at this step: extended and quiet at it, as a visited one is.
            self.delta.extended.push(e);
            self.mark_quiet(e);
        }
    }

    /// Element `e` leaves the set before the quiet pass, which visits it.
    fn leave(&mut self, e: ElementId) {
        self.materialize(e);
        self.pers.leavers.push(e);
    }

    /// Every element leaves the set, written out (between steps: what was implicit becomes
    /// explicit, nothing else changes).
    #[cfg(test)]
    pub(crate) fn settle(&mut self) {
        debug_assert!(!self.pers.taken, "between steps");
        let list = std::mem::take(&mut self.pers.list);
        for &e in &list {
            if self.persists(e) {
                self.materialize(e);
            }
        }
    }

    /// Undo of a journaled step (after its journal's entries, which restore the elements it
    /// touched): gives back what `log` says the step changed of the set and, without touching
    /// them, of its members (their counts of open primitives, then the fields written out when
    /// they left), so that the set and its members are as the step before left them.
    ///
    /// Whether the starts' bits of the step before are known again (the step kept those it moved
    /// on: [`Level::keep_start_bits`]); when not, the caller forgets them
    /// ([`Level::forget_start_bits`]).
    pub(crate) fn persist_undo(&mut self, log: &PersLog) -> bool {
        for &(e, open) in log.opens.iter().rev() {
            self.elems[e as usize].open = open;
        }
        for &(e, [applied_at, last, rep_at, rep_len, run]) in log.left.iter().rev() {
            let el = &mut self.elems[e as usize];
            el.applied_at = applied_at;
            el.last = last;
            el.rep_at = rep_at;
            el.rep_len = rep_len;
            if let Some(r) = el.runs.last_mut() {
                r.0 = run;
            }
            set_bit(&mut self.pers.bits, e);
        }
        for &e in &log.joined {
            clear_bit(&mut self.pers.bits, e);
        }
        let p = &mut self.pers;
        p.list.clone_from(&log.list);
        p.imgs.truncate(log.imgs);
        p.fresh.truncate(log.fresh);
        p.at = log.at;
        p.span = log.span;
        p.live = log.live;
        p.left_quiet = log.left_quiet;
        p.taken = false;
        p.leavers.clear();
        p.zeros.clear();
        p.balanced_at = NONE;
        p.log = None;
        let Some(kept) = &log.starts else {
            return false;
        };
        // The step's bits are dropped; the step before's, moved on by the step, come back, and the
        // ones before them from the log.
        std::mem::swap(&mut self.start_due, &mut p.start_prev);
        p.start_prev.clone_from(&kept.bits);
        p.start_prev_at = kept.prev_at;
        p.start_now_at = kept.now_at;
        true
    }

    /// Level 0's derivation at the beginning of a step: the starts' bits of the step before
    /// become the ones [`Level::persist_bulk`] reads, and this step's begin. A journaled step
    /// keeps what it moves on for its undo ([`Level::persist_undo`]), so that a step made after
    /// the undo reads them again rather than each image's holders.
    pub(crate) fn keep_start_bits(&mut self, t: u32, first_new: u32) {
        let p = &mut self.pers;
        if let Some(log) = p.log.as_mut() {
            let kept = log.starts.get_or_insert_with(StartBits::default);
            kept.bits.clone_from(&p.start_prev);
            (kept.prev_at, kept.now_at) = (p.start_prev_at, p.start_now_at);
        }
        std::mem::swap(&mut self.start_due, &mut p.start_prev);
        p.start_prev_at = p.start_now_at;
        p.start_now_at = (t, first_new);
    }

    /// Undo of any step at level 0: the starts' bits of the step before are not known any more
    /// (a step made next reads its images' starts from their holders).
    pub(crate) fn forget_start_bits(&mut self) {
        self.pers.start_prev_at = (NONE, NONE);
        self.pers.start_now_at = (NONE, NONE);
    }

    /// Every element leaves the set: written out, and visited by the quiet pass when `visit`
    /// (not after steps taken back past the quiet state kept: no element quiet at the step
    /// before is visited then, and the members are derived as they are).
    fn dissolve(&mut self, visit: bool) {
        let list = std::mem::take(&mut self.pers.list);
        for &e in &list {
            if self.persists(e) {
                if visit {
                    self.leave(e);
                } else {
                    self.materialize(e);
                }
            }
        }
        self.pers.list = list;
        self.pers.list.clear();
    }

    /// Level 0, at the beginning of step t (before the sealed primitives are counted): carries
    /// the set from t−1 to t. The elements quiet at t−1 join it (those the quiet pass would
    /// read as quiet at t−1 and unchanged since), and the holders of the primitives near the
    /// change leave it. Without a quiet pass at t every one leaves (visited by it, unless steps were
    /// taken back past the quiet state kept). A journaled step logs what it changes ([`PersLog`]).
    pub(crate) fn persist_begin(&mut self, cx: &StepCtx) {
        let t = cx.t;
        // A journaled step writes down what it changes of the set (its undo gives it back).
        self.pers.log = cx.journal.is_some().then(|| {
            let p = &self.pers;
            Box::new(PersLog {
                list: p.list.clone(),
                imgs: p.imgs.len(),
                fresh: p.fresh.len(),
                at: p.at,
                span: p.span,
                live: p.live,
                left_quiet: p.left_quiet,
                ..PersLog::default()
            })
        });
        self.pers.leavers.clear();
        self.pers.zeros.clear();
        self.pers.taken = false;
        self.pers.left_quiet = t >= 1 && self.pers.at == t - 1 && self.quiet_at == t - 1;
        if self.pers.list.is_empty() {
            self.pers.imgs.clear();
            self.pers.fresh.clear();
            self.pers.live = 0;
        }
        let carry = cx.quiet_runs()
            && !self.pers.off
            && self.quiet_at == t - 1
            && (self.pers.list.is_empty() || self.pers.at == t - 1);
        if !carry {
            self.dissolve(t >= 1 && self.quiet_at == t - 1);
            return;
        }
        let (Some(image), Some(sh)) = (cx.image, cx.shifts) else {
            return;
        };
        self.pers.at = t - 1;
        let span = cx.span;
        // A longer span asks for longer streaks.
        if span > self.pers.span {
            for i in 0..self.pers.list.len() {
                let e = self.pers.list[i];
                let el = &self.elems[e as usize];
                if self.persists(e) && el.rep_len + (t - 1 - el.rep_at) < span + 2 {
                    self.leave(e);
                }
            }
        }
        self.pers.span = span;
        // The elements quiet at t−1 that the quiet pass would take as quiet then and unchanged.
        let s1 = sh.starts[t as usize - 1];
        let prev = std::mem::take(&mut self.quiet_prev);
        let mut added: Vec<ElementId> = Vec::new();
        for p in &prev {
            let el = &self.elems[p.e as usize];
            if !el.may_repeat_at(t)
                || el.rep_at != t - 1
                || el.rep_len < span + 2
                || el.state != p.state
                || el.apps.len() as u32 != p.apps
                // (A run written out at t−1, its images at other ranks than their originals,
                // is no image run to carry on.)
                || el.runs.last().is_none_or(|&r| !Elem::is_image(r))
            {
                continue;
            }
            let i0 = self.pers.imgs.len() as u32;
            for img in &self.quiet_images[p.images.0 as usize..p.images.1 as usize] {
                self.pers.imgs.push(PImage {
                    rank: img.rank,
                    off: img.anchor - s1,
                    set: img.set,
                    own_start: img.own_start,
                });
            }
            let f0 = self.pers.fresh.len() as u32;
            for &x in &self.quiet_fresh[p.fresh.0 as usize..p.fresh.1 as usize] {
                self.pers.fresh.push(x - s1);
            }
            let (i1, f1) = (self.pers.imgs.len() as u32, self.pers.fresh.len() as u32);
            if self.pers.entry.len() <= p.e as usize {
                self.pers.entry.resize(self.elems.len(), [0; 4]);
            }
            self.pers.entry[p.e as usize] = [i0, i1, f0, f1];
            self.pers.live += (i1 - i0 + f1 - f0) as usize;
            set_bit(&mut self.pers.bits, p.e);
            added.push(p.e);
            if let Some(log) = self.pers.log.as_mut() {
                log.joined.push(p.e);
            }
        }
        self.quiet_prev = prev;
        if added.is_empty() && self.pers.list.is_empty() {
            // (No member: none to leave, the list stays empty.)
            return;
        }
        // Who leaves: a holder of an earlier primitive held by a match that is not an image, or
        // of a primitive of t−1 whose image is missing, not clean, or held by such a match.
        let mut out: SmallVec<[ElementId; 16]> = SmallVec::new();
        for &x in cx.dirty_old {
            out.extend(self.node_holders.get(x as usize).iter());
        }
        image.each_unsettled(cx.dirty_new, |x| out.extend(self.node_holders.get(x as usize).iter()));
        #[cfg(debug_assertions)]
        {
            let (s1, s0, _) = image.bounds();
            let mut unsettled = Vec::new();
            image.each_unsettled(cx.dirty_new, |x| unsettled.push(x));
            let settled = |x: NodeId| {
                image.clean_image(x).is_some_and(|y| {
                    let i = (y - s0) as usize;
                    cx.dirty_new[i / 64] >> (i % 64) & 1 == 0
                })
            };
            debug_assert!(unsettled.iter().copied().eq((s1..s0).filter(|&x| !settled(x))));
        }
        for e in out {
            if self.persists(e) {
                self.leave(e);
            }
        }
        // The set in id order.
        let old = std::mem::take(&mut self.pers.list);
        let mut list = Vec::with_capacity(old.len() + added.len());
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < added.len() {
            let e = if j >= added.len() || (i < old.len() && old[i] < added[j]) {
                i += 1;
                old[i - 1]
            } else {
                j += 1;
                added[j - 1]
            };
            if self.persists(e) && list.last() != Some(&e) {
                list.push(e);
            }
        }
        self.pers.list = list;
    }

    /// Keeps only the entries of the elements in the set.
    fn compact_persisting(&mut self) {
        let (imgs, fresh) = (
            std::mem::take(&mut self.pers.imgs),
            std::mem::take(&mut self.pers.fresh),
        );
        let mut live = 0;
        for i in 0..self.pers.list.len() {
            let e = self.pers.list[i];
            if !self.persists(e) {
                continue;
            }
            let [i0, i1, f0, f1] = self.pers.entry[e as usize];
            let (n0, g0) = (self.pers.imgs.len() as u32, self.pers.fresh.len() as u32);
            self.pers.imgs.extend_from_slice(&imgs[i0 as usize..i1 as usize]);
            self.pers.fresh.extend_from_slice(&fresh[f0 as usize..f1 as usize]);
            self.pers.entry[e as usize] = [n0, n0 + i1 - i0, g0, g0 + f1 - f0];
            live += (i1 - i0 + f1 - f0) as usize;
        }
        self.pers.live = live;
    }

    /// The primitives of `sealed` were sealed at this step: each of their holders has one
    /// primitive with an open terminal site less. A persisting element is not touched (one left
    /// with none is looked at once the set has taken its images: [`Level::persist_closed`]); the
    /// others lose it in the order the primitives list them ([`Level::lose_open`]).
    ///
    /// A sealed primitive that [`Level::persist_bulk`] will copy, held by persisting elements
    /// only, to an image with an open terminal site gives each holder that site back as soon as
    /// the set takes its images: it is *balanced*, and neither the loss nor the gain is counted.
    /// (No holder's count is lower for it in between where it matters: an element left with none
    /// here is looked at only once the images are taken, and then its count is the same.)
    pub(crate) fn seal(&mut self, cx: &mut StepCtx, sealed: &[NodeId]) {
        let mut losing: Vec<ElementId> = Vec::new();
        let bulk = self.bulk_images(cx);
        self.pers.balanced.clear();
        self.pers.balanced_at = cx.t;
        // The balanced ones first, 64 primitives of t−1 at a time: those sealed whose images
        // are clean, not dirty and open, held by persisting elements only. (Each primitive is
        // sealed once a step, so which are balanced does not depend on the order.)
        // (What the copy carries from the step before is found now, for the balance too.)
        let carry = match (bulk, cx.shifts) {
            (Some(image), Some(sh)) => {
                let c = self.carry_begin(cx.t, sh, image);
                self.pers.carry_at = (cx.t, c);
                c
            }
            _ => None,
        };
        let verify = cfg!(debug_assertions) || self.pers.verify;
        let range = bulk.map(|image| {
            let (s1, s0, _) = image.bounds();
            let words = (s0 - s1).div_ceil(64) as usize;
            self.pers.balanced.resize(words, 0);
            let mut marks = std::mem::take(&mut self.pers.sealed_bits);
            marks.clear();
            marks.resize(words, 0);
            for &x in sealed {
                if x >= s1 && x < s0 {
                    let i = (x - s1) as usize;
                    debug_assert_eq!(marks[i / 64] >> (i % 64) & 1, 0, "a primitive sealed twice");
                    debug_assert_eq!(
                        image.clean_mask(i, 1) == 1,
                        image.clean_image(x).is_some(),
                        "the clean bit of a sealed primitive's image"
                    );
                    marks[i / 64] |= 1 << (i % 64);
                }
            }
            let (holders, pers) = (&self.node_holders, &mut self.pers);
            for (w, &m) in marks.iter().enumerate() {
                if m == 0 {
                    continue;
                }
                let i = w * 64;
                let c = (s0 - s1) as usize - i;
                let cand =
                    m & image.clean_mask(i, c) & !bits_at(cx.dirty_new, i) & cx.open_mask(s0 + i as NodeId, c.min(64));
                // Those whose holders are carried hold persisting elements only (tested when
                // verifying); the others are tested.
                let car = match carry {
                    Some(_) => cand & pers.kept_prev.1.mask(s1 + i as NodeId, c.min(64)) & !bits_at(&pers.gone_x, i),
                    None => 0,
                };
                if verify {
                    each_bit(car, |j| {
                        assert!(
                            holders.all_set(s1 as usize + i + j as usize, &pers.bits),
                            "sealed primitive {} carried as held by persisting elements only",
                            s1 as usize + i + j as usize
                        );
                    });
                }
                let mut b = car;
                each_bit(cand & !car, |j| {
                    if holders.all_set(s1 as usize + i + j as usize, &pers.bits) {
                        b |= 1 << j;
                    }
                });
                pers.balanced[w] = b;
            }
            self.pers.sealed_bits = marks;
            s1..s0
        });
        let (holders, elems, pers) = (&self.node_holders, &mut self.elems, &mut self.pers);
        for &x in sealed {
            if let Some(r) = &range
                && r.contains(&x)
                && bit(&pers.balanced, x - r.start)
            {
                continue;
            }
            for e in holders.get(x as usize) {
                if bit(&pers.bits, e) {
                    let el = &mut elems[e as usize];
                    if let Some(log) = pers.log.as_mut() {
                        log.opens.push((e, el.open));
                    }
                    debug_assert!(el.open > 0, "a persisting element's count of open primitives");
                    el.open = el.open.saturating_sub(1);
                    if el.open == 0 {
                        pers.zeros.push(e);
                    }
                } else {
                    losing.push(e);
                }
            }
        }
        for e in losing {
            self.lose_open(cx, e);
        }
    }

    /// The images [`Level::persist_bulk`] takes the set's at, when it runs at this step (called
    /// by the quiet pass of level 0 once a span of steps repeats, with the set not empty).
    fn bulk_images<'a>(&self, cx: &StepCtx<'a>) -> Option<super::repeats::Images<'a>> {
        let runs = cx.quiet_runs() && cx.shifts.is_some() && !self.pers.list.is_empty();
        cx.image.filter(|_| runs)
    }

    /// Level 0, first in the quiet pass at step t: the set takes its images. Each match and
    /// primitive of t−1 held only by persisting elements has its image held by them alike (its
    /// holder word or slot copied), with what each image brings; one held by persisting elements
    /// and others names its persisting holders as the boundary ([`Level::take_mixed`]).
    ///
    /// Which are held only by persisting elements is tested holder by holder, but for those
    /// *carried*: copied so at t−1 themselves, unchanged since ([`Kept`]), and held by no element
    /// that has left the set since ([`Level::carry_begin`]). A run of 64 carried is copied as a
    /// block (`docs/design-repeats.md`, "As built (forty-first session)").
    #[inline(never)]
    pub(crate) fn persist_bulk(&mut self, cx: &StepCtx) {
        self.pers.boundary.clear();
        self.pers.at = cx.t;
        self.pers.taken = true;
        let (Some(image), Some(sh)) = (self.bulk_images(cx), cx.shifts) else {
            return;
        };
        let anchors = sh.anchors;
        let (s1, s0, _) = image.bounds();
        // (Found by the seal of this step when it ran.)
        let carry = match std::mem::replace(&mut self.pers.carry_at, (NONE, None)) {
            (t, c) if t == cx.t => c,
            _ => self.carry_begin(cx.t, sh, image),
        };
        let carried = std::cell::Cell::new(0u64);
        let verify = cfg!(debug_assertions) || self.pers.verify;
        // The starts passed an original by at t−1 exactly when one of its holders then, all quiet
        // (those that persist now), took it with its constraint starting no class but the
        // holder's: the image is passed by alike.
        let prev_first = self.pers.start_prev_at.1;
        let prev_bits = (self.pers.start_prev_at.0 == cx.t - 1 && prev_first == anchors.get(s1 as usize))
            .then_some(&self.pers.start_prev);
        let mut mixed: SmallVec<[(bool, u32); 16]> = SmallVec::new();
        let mut opened: SmallVec<[NodeId; 16]> = SmallVec::new();
        // (The starts' bits read from the classes, a run at a time, when the step before's are
        // not known.)
        let mut read: Vec<u64> = Vec::new();
        // The clean nodes of t come in runs; the matches anchored at a run's originals are one
        // range, and their images the range at the same ranks from the first image's anchor.
        let limit = (s0 - s1).min(image.bounds().2 - s0) as usize;
        let mut from = 0;
        while let Some((i0, i1)) = image.clean_run(from, limit) {
            from = i1;
            let (x0, x1) = (s1 + i0 as NodeId, s1 + i1 as NodeId);
            let (a0, a1, b0) = (
                anchors.get(x0 as usize),
                anchors.get(x1 as usize),
                anchors.get((s0 + i0 as NodeId) as usize),
            );
            debug_assert_eq!(
                anchors.get((s0 + i1 as NodeId) as usize) - b0,
                a1 - a0,
                "a clean run's images"
            );
            let bits = &self.pers.bits;
            // Per original, a bit set when the starts did not pass it by: the step before's
            // starts' bits when known, else read from its holders' classes.
            let (b, b_first) = match prev_bits {
                Some(b) => {
                    // (Debug builds: the bits say what the classes of the holders say.)
                    #[cfg(debug_assertions)]
                    for m1 in a0..a1 {
                        let hs = self.store.holders(m1);
                        if !hs.is_empty() && hs.iter().all(|&e| bit(bits, e)) {
                            let i = (m1 - prev_first) as usize;
                            debug_assert_eq!(
                                b[i / 64] >> (i % 64) & 1 == 0,
                                self.passed_by_starts(m1),
                                "the starts' bits of match {m1}"
                            );
                        }
                    }
                    (&b[..], prev_first)
                }
                None => {
                    read.clear();
                    read.resize((a1 - a0).div_ceil(64) as usize, 0);
                    for m1 in a0..a1 {
                        if !self.passed_by_starts(m1) {
                            let i = (m1 - a0) as usize;
                            read[i / 64] |= 1 << (i % 64);
                        }
                    }
                    (&read[..], a0)
                }
            };
            let (first_new, start_due) = (cx.first_new, &mut self.start_due);
            let (kept, gone) = (&self.pers.kept_prev.0, &self.pers.gone_m);
            self.store.copy_holders_run(
                a0,
                b0,
                a1 - a0,
                |k0, c| match carry {
                    Some(m1) => {
                        let w = kept.mask(a0 + k0, c) & !bits_at(gone, (a0 + k0 - m1) as usize);
                        carried.set(carried.get() + w.count_ones() as u64);
                        w
                    }
                    None => 0,
                },
                verify,
                |e| bit(bits, e),
                // Its constraint starts no class but a holder's ([`Level::take_images`]): a
                // copied match whose original the starts passed by.
                |k0, copied| {
                    let passed = copied & !bits_at(b, (a0 + k0 - b_first) as usize);
                    clear_bits_at(start_due, (b0 + k0 - first_new) as usize, passed);
                },
                |m1| mixed.push((true, m1)),
            );
            // The primitives whose images are not dirty: each one's holder slot, 64 at a time.
            let (balanced, at_t) = (&self.pers.balanced, self.pers.balanced_at == cx.t);
            let (kept, gone) = (&self.pers.kept_prev.1, &self.pers.gone_x);
            self.node_holders.copy_if_set_run(
                x0 as usize,
                (s0 + i0 as NodeId) as usize,
                i1 - i0,
                &self.pers.bits,
                cx.dirty_new,
                i0,
                |k0, c| match carry {
                    Some(_) => {
                        let w = kept.mask(x0 + k0 as NodeId, c) & !bits_at(gone, i0 + k0);
                        carried.set(carried.get() + w.count_ones() as u64);
                        w
                    }
                    None => 0,
                },
                verify,
                |k0, all, any| {
                    let i = i0 + k0;
                    let (x, y) = (s1 + i as NodeId, s0 + i as NodeId);
                    let c = (i1 - i).min(64);
                    let bal = if at_t { bits_at(balanced, i) & low_bits(c) } else { 0 };
                    let open = cx.open_mask(y, c);
                    debug_assert_eq!(bal & !(all & open), 0, "a balanced primitive is copied open");
                    each_bit(any & !all, |j| mixed.push((false, x + j)));
                    each_bit(all & !bal & open, |j| opened.push(y + j));
                },
            );
            // Each holder of an image with an open terminal site that is not balanced has one
            // more open primitive.
            for y in opened.drain(..) {
                let (holders, elems, log) = (&self.node_holders, &mut self.elems, &mut self.pers.log);
                for e in holders.get(y as usize) {
                    if let Some(log) = log.as_mut() {
                        log.opens.push((e, elems[e as usize].open));
                    }
                    elems[e as usize].open += 1;
                }
            }
        }
        // The set as it took these images, for the next step's carried ones.
        let p = &mut self.pers;
        p.carried += carried.get();
        p.snap.0 = cx.t;
        p.snap.1.clone_from(&p.bits);
        let mut hs: SmallVec<[ElementId; 8]> = SmallVec::new();
        for (is_match, i) in mixed {
            hs.clear();
            if is_match {
                hs.extend_from_slice(self.store.holders(i));
            } else {
                hs.extend(self.node_holders.get(i as usize).iter());
            }
            self.mark_boundary(&hs);
        }
    }

    /// [`Level::persist_bulk`] at step t, before it copies: the kept bits of t−1 (what the set
    /// copied then and nothing wrote since) move aside for this step's to begin, and, when they
    /// are t−1's and so is the set's picture then, the matches and primitives of t−1 held by an
    /// element that has left the set since are marked gone (`gone_m`, `gone_x`). Returns the
    /// first match of t−1 when the kept bits can be read (an original kept and not gone has
    /// every holder persisting: carried).
    ///
    /// Why the gone ones are found so: the holders of a kept original were all persisting when
    /// they were copied at t−1 and none was added or removed since. An element that persisted
    /// then held, of the matches of t−1, exactly its images of t−1, which are its applications
    /// made at t−1 ([`Level::run_apps_into`]); and of the primitives of t−1, their nodes.
    fn carry_begin(&mut self, t: u32, sh: Shifts, image: super::repeats::Images) -> Option<MatchId> {
        let (s1, s0, len) = image.bounds();
        let anchors = sh.anchors;
        let (m1, m0) = (anchors.get(s1 as usize), anchors.get(s0 as usize));
        let p = &mut self.pers;
        std::mem::swap(&mut self.store.kept, &mut p.kept_prev.0);
        std::mem::swap(&mut self.node_holders.kept, &mut p.kept_prev.1);
        std::mem::swap(&mut p.snap, &mut p.snap_prev);
        p.kept_for = t;
        let usable = p.kept_prev.0.is(t - 1, m1) && p.kept_prev.1.is(t - 1, s1) && p.snap_prev.0 == t - 1;
        self.store.kept.begin(t, m0, self.store.len() - m0 as usize);
        self.node_holders.kept.begin(t, s0, (len - s0) as usize);
        if !usable {
            return None;
        }
        let (mut gone_m, mut gone_x) = (std::mem::take(&mut p.gone_m), std::mem::take(&mut p.gone_x));
        gone_m.clear();
        gone_m.resize((m0 - m1).div_ceil(64) as usize, 0);
        gone_x.clear();
        gone_x.resize((s0 - s1).div_ceil(64) as usize, 0);
        let mut apps = super::runs::RunApps::new();
        for (w, &was) in self.pers.snap_prev.1.iter().enumerate() {
            let mut left = was & !self.pers.bits.get(w).copied().unwrap_or(0);
            while left != 0 {
                let d = (w * 64) as ElementId + left.trailing_zeros();
                left &= left - 1;
                apps.clear();
                self.run_apps_into(d, t - 1, sh, &mut apps);
                for &(m, _) in &apps {
                    if m >= m1 && m < m0 {
                        let i = (m - m1) as usize;
                        gone_m[i / 64] |= 1 << (i % 64);
                    }
                    for x in self.store.nodes(m) {
                        if x >= s1 && x < s0 {
                            let i = (x - s1) as usize;
                            gone_x[i / 64] |= 1 << (i % 64);
                        }
                    }
                }
            }
        }
        (self.pers.gone_m, self.pers.gone_x) = (gone_m, gone_x);
        Some(m1)
    }

    /// Level 0, when step `undone` is taken back (after its journal): the kept bits and the
    /// set's picture [`Level::persist_bulk`] moved aside at that step come back; after any other
    /// step taken back they are forgotten, and the next step tests every holder.
    pub(crate) fn kept_undo(&mut self, undone: u32) {
        let p = &mut self.pers;
        if p.kept_for == undone {
            std::mem::swap(&mut self.store.kept, &mut p.kept_prev.0);
            std::mem::swap(&mut self.node_holders.kept, &mut p.kept_prev.1);
            std::mem::swap(&mut p.snap, &mut p.snap_prev);
        } else {
            self.store.kept.forget();
            self.node_holders.kept.forget();
            p.snap.0 = NONE;
        }
        p.kept_prev.0.forget();
        p.kept_prev.1.forget();
        p.snap_prev.0 = NONE;
        p.kept_for = NONE;
        p.carry_at = (NONE, None);
    }

    /// Whether the starts pass an image of match `m` by, read from its holders' classes: its
    /// constraint starts no class but a holder's ([`Level::take_images`]). (The starts' bits of
    /// the step before say so without reading them, when they are known.)
    fn passed_by_starts(&self, m: MatchId) -> bool {
        let k = self.table.sole_starter[self.store.constraint(m).0 as usize];
        k != SOLE_NONE && (k == SOLE_ANY || self.store.holders(m).iter().any(|&e| self.elems[e as usize].cls == k))
    }

    fn mark_boundary(&mut self, hs: &[ElementId]) {
        for &e in hs {
            if self.persists(e) && !bit(&self.pers.bbits, e) {
                set_bit(&mut self.pers.bbits, e);
                self.pers.boundary.push(e);
            }
        }
    }

    /// Whether persisting element `e` holds a boundary match or primitive at this step.
    #[inline]
    pub(crate) fn on_boundary(&self, e: ElementId) -> bool {
        bit(&self.pers.bbits, e)
    }

    /// The elements the quiet pass visits besides the last step's touched ones: those that left
    /// the set and those on its boundary; and the entries it reads, `prev` with those of the
    /// elements that left or are on the boundary and have none there (built from the set's
    /// offsets, when the set took its images at t−1), in id order. `images` and `fresh` are the
    /// lists `prev` ranges over; the entries built are appended to them.
    #[inline(never)]
    pub(crate) fn persist_visits(
        &mut self,
        t: u32,
        sh: Shifts,
        prev: &[QuietEntry],
        images: &mut Vec<Image>,
        fresh: &mut Vec<NodeId>,
        cands: &mut Vec<ElementId>,
    ) -> Vec<QuietEntry> {
        let mut merged = std::mem::take(&mut self.pers.merged);
        merged.clear();
        let mut need: Vec<ElementId> = self.pers.leavers.iter().chain(&self.pers.boundary).copied().collect();
        cands.extend_from_slice(&need);
        if need.is_empty() {
            merged.extend_from_slice(prev);
            return merged;
        }
        need.sort_unstable();
        need.dedup();
        // (The set's entries are of t−1 when it took its images then.)
        let valid = self.pers.left_quiet;
        let (starts, anchors) = (sh.starts, sh.anchors);
        let s1 = if t >= 1 { starts[t as usize - 1] } else { 0 };
        let mut pi = 0;
        for e in need {
            while prev.get(pi).is_some_and(|p| p.e < e) {
                merged.push(prev[pi]);
                pi += 1;
            }
            if prev.get(pi).is_some_and(|p| p.e == e) || !valid {
                continue;
            }
            let [i0, i1, f0, f1] = self.pers.entry[e as usize];
            let a = images.len() as u32;
            for p in &self.pers.imgs[i0 as usize..i1 as usize] {
                let anchor = s1 + p.off;
                let m = anchors.get(anchor as usize) + p.rank;
                images.push(Image::new(m, p.set, p.own_start, anchor, p.rank));
            }
            let f = fresh.len() as u32;
            fresh.extend(self.pers.fresh[f0 as usize..f1 as usize].iter().map(|&o| s1 + o));
            let el = &self.elems[e as usize];
            merged.push(QuietEntry {
                e,
                images: (a, images.len() as u32),
                fresh: (f, fresh.len() as u32),
                state: el.state,
                apps: el.apps.len() as u32,
            });
        }
        merged.extend_from_slice(&prev[pi..]);
        merged
    }

    /// Gives back the scratch list of [`Level::persist_visits`], and ends the quiet pass's part
    /// of the set: clears the boundary, counts the element steps taken.
    #[inline(never)]
    pub(crate) fn persist_end(&mut self, merged: Vec<QuietEntry>) {
        self.pers.merged = merged;
        for i in 0..self.pers.boundary.len() {
            let e = self.pers.boundary[i];
            clear_bit(&mut self.pers.bbits, e);
        }
        self.pers.boundary.clear();
        self.quiet_count += self.pers.members().count() as u64;
        // Entries of elements that left are dropped once they outnumber the others (the quiet
        // pass has read those it needed).
        // (Not in a journaled step: its undo truncates the lists to their lengths before it.)
        if self.pers.log.is_none() && self.pers.imgs.len() + self.pers.fresh.len() > 4 * self.pers.live + 4096 {
            self.compact_persisting();
        }
    }

    /// After the quiet pass: a persisting element still without an open primitive (those of t−1
    /// sealed, none of t open) is touched, so that it ends as a visited one would
    /// (`Timeline::level0_step`).
    pub(crate) fn persist_closed(&mut self, cx: &mut StepCtx) {
        let zeros = std::mem::take(&mut self.pers.zeros);
        for &e in &zeros {
            if self.persists(e) && self.elems[e as usize].open == 0 {
                self.touch(cx, e);
            }
        }
        self.pers.zeros = zeros;
    }

    /// Persisting element `e` on the boundary takes, of the images of its run at t−1 (`imgs`,
    /// with its primitives of t−1 `fresh`), those whose originals have a holder that does not
    /// persist, and joins the images of its primitives so held: what
    /// [`Level::take_images`](super::level) does for them; [`Level::persist_bulk`] did the others.
    #[inline(never)]
    pub(crate) fn take_mixed(&mut self, cx: &StepCtx, e: ElementId, imgs: &[Image], fresh: &[NodeId], d: NodeId) {
        let Some(image) = cx.image else {
            return;
        };
        for img in imgs {
            let (m1, rank, anchor, own_start) = img.parts();
            if self.store.holders(m1).iter().all(|&h| self.persists(h)) {
                continue;
            }
            let m2 = image
                .image(rank, anchor)
                .expect("a persisting element's images are there");
            if own_start {
                let i = (m2 - cx.first_new) as usize;
                self.start_due[i / 64] &= !(1 << (i % 64));
            }
            self.store.add_holder_like(m2, e, m1);
            if self.store.holder_word(m2) != self.store.holder_word(m1) {
                let h = self.store.holders(m2);
                if h.len() >= 2 && h != self.store.holders(m1) {
                    self.shared.push(m2);
                }
            }
        }
        let mut open = 0;
        for &x in fresh {
            if self.node_holders.get(x as usize).iter().all(|h| self.persists(h)) {
                continue;
            }
            let y = x + d;
            self.node_holders.push(y as usize, e);
            open += cx.is_open(y) as u32;
        }
        if open > 0
            && let Some(log) = self.pers.log.as_mut()
        {
            log.opens.push((e, self.elems[e as usize].open));
        }
        self.elems[e as usize].open += open;
    }
}

#[cfg(test)]
mod tests {
    use super::{bits_at, clear_bits_at};

    proptest::proptest! {
        /// A word of bits read and cleared at any offset does what a bit at a time does.
        #[test]
        fn words_of_bits_at_any_offset(
            v in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..4),
            i in 0usize..300,
            mask in proptest::prelude::any::<u64>(),
        ) {
            let bit = |v: &[u64], j: usize| v.get(j / 64).is_some_and(|w| w >> (j % 64) & 1 == 1);
            let want = (0..64).fold(0u64, |w, k| w | (bit(&v, i + k) as u64) << k);
            proptest::prop_assert_eq!(bits_at(&v, i), want);
            let mut cleared = v.clone();
            clear_bits_at(&mut cleared, i, mask);
            for j in 0..v.len() * 64 {
                let masked = j >= i && j - i < 64 && mask >> (j - i) & 1 == 1;
                proptest::prop_assert_eq!(bit(&cleared, j), bit(&v, j) && !masked, "bit {}", j);
            }
        }
    }
}
