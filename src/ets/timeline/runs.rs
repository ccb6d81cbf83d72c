//! Image runs: level 0 keeps the applications a quiet element takes at a step as "the images of
//! its run at the step before", not written out (§3.4.1.2 constraint matches, §3.4.2 class
//! elements over time as the timeline keeps them; `docs/design-repeats.md`, step 4, its first
//! part).
//!
//! - **What is kept.** An element's runs (`Elem::runs`) are `(step, index of the run's first
//!   application)`, one per step it applied at. The runs [`Level::quiet_steps`](super::level)
//!   takes at consecutive steps are one entry, `(last step, IMAGE | n)`: no application, set or
//!   node is written for them, and `n` is the number of the element's written nodes when the
//!   first was taken (where the nodes they joined stand in the element's order). Its *template*
//!   is the element's last written run before it, and the entry stands for one run at each step
//!   from the template's next to its own: each the images of the one before. (A quiet step needs
//!   a run at the step before, so no step between them lacks one.)
//! - **How an image is found.** Level 0 stores the matches anchored at each primitive (their
//!   latest node) together, in the order found (`anchors`: the first match anchored at each
//!   primitive), and the matches anchored at a clean primitive are the images of those anchored
//!   at the primitive it repeats, in the same order (`super::repeats`). The shift σ is
//!   positional, so the image at step t of match m of step s, anchored at p, is the match at the
//!   same place among those anchored at p − start(s) + start(t).
//! - **What each joined.** The nodes of its images that belong to its step, each once, in the
//!   order of the images: a quiet element holds every earlier node of its images already
//!   (`Level::quiet_steps` checks it), and it takes its images before anything else can join it
//!   at that step.
//! - **Undo.** An entry's last step is the element's `applied_at`; a step taken back puts that
//!   back (`Level::restore`), which shortens the entry it lengthened.
//!
//! The holder lists of matches and nodes are written as before: only the element's own lists
//! are left out. An application made at the step of an image run, after it (none is known to
//! happen), writes that run out first.

use super::level::{Elem, Level};
use crate::ets::growth::grow;
use crate::ets::ids::{ElementId, MatchId, NodeId};
use smallvec::SmallVec;
use std::borrow::Cow;

/// In the second field of a run of `Elem::runs`: the run is kept as images (the bits below are
/// the number of the element's written nodes when it was taken).
pub(crate) const IMAGE: u32 = 1 << 31;

/// Level 0's first match anchored at each primitive, and one entry more (non-decreasing: matches
/// are found at their latest primitive, in node order). Kept as a four-byte base per block of
/// [`ANCHOR_BLOCK`] primitives and a two-byte offset from it per primitive, until an offset does not
/// fit (more than 65,535 matches anchored in one block): then four bytes each.
#[derive(Debug, Clone)]
pub(crate) enum Anchors {
    Narrow { base: Vec<u32>, off: Vec<u16> },
    Wide(Vec<u32>),
}

/// Primitives per block of [`Anchors`].
const ANCHOR_BLOCK: usize = 64;

impl Default for Anchors {
    fn default() -> Self {
        Anchors::new()
    }
}

impl Anchors {
    /// No entry.
    pub(crate) const fn new() -> Self {
        Anchors::Narrow {
            base: Vec::new(),
            off: Vec::new(),
        }
    }
    /// Entry `p`.
    #[inline]
    pub(crate) fn get(&self, p: usize) -> u32 {
        match self {
            Anchors::Narrow { base, off } => base[p / ANCHOR_BLOCK] + off[p] as u32,
            Anchors::Wide(v) => v[p],
        }
    }
    /// Entry `p`, if there is one.
    #[inline]
    pub(crate) fn try_get(&self, p: usize) -> Option<u32> {
        (p < self.len()).then(|| self.get(p))
    }
    /// The last entry.
    pub(crate) fn last(&self) -> Option<u32> {
        self.len().checked_sub(1).map(|p| self.get(p))
    }
    /// Number of entries.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            Anchors::Narrow { off, .. } => off.len(),
            Anchors::Wide(v) => v.len(),
        }
    }
    /// Appends an entry.
    #[inline]
    pub(crate) fn push(&mut self, v: u32) {
        if let Anchors::Narrow { base, off } = self {
            let p = off.len();
            if !p.is_multiple_of(ANCHOR_BLOCK)
                && let Some(d) = v
                    .checked_sub(base[p / ANCHOR_BLOCK])
                    .and_then(|d| u16::try_from(d).ok())
            {
                grow(off, 1);
                off.push(d);
                return;
            }
        }
        self.push_slow(v);
    }
    /// [`Anchors::push`] of an entry that begins a block or does not fit its block's offsets.
    #[inline(never)]
    fn push_slow(&mut self, v: u32) {
        if let Anchors::Narrow { base, off } = self {
            let p = off.len();
            if p % ANCHOR_BLOCK == 0 {
                grow(base, 1);
                base.push(v);
            }
            if let Some(d) = v
                .checked_sub(base[p / ANCHOR_BLOCK])
                .and_then(|d| u16::try_from(d).ok())
            {
                grow(off, 1);
                off.push(d);
                return;
            }
            if p % ANCHOR_BLOCK == 0 {
                base.pop();
            }
            *self = Anchors::Wide((0..p).map(|q| self.get(q)).collect());
        }
        if let Anchors::Wide(w) = self {
            grow(w, 1);
            w.push(v);
        }
    }
    /// Appends entries `from..from + n` (all before the end), each plus `add`: what
    /// [`Anchors::push`] of each gives, the room made and the width looked at once a block.
    #[inline]
    pub(crate) fn extend_shifted(&mut self, from: usize, n: usize, add: u32) {
        let (mut q, end) = (from, from + n);
        while q < end {
            if let Anchors::Narrow { base, off } = self {
                grow(off, end - q);
                // Within a block begun, while each entry's offset fits.
                while q < end {
                    let p = off.len();
                    let v = base[q / ANCHOR_BLOCK] + off[q] as u32 + add;
                    match (!p.is_multiple_of(ANCHOR_BLOCK))
                        .then(|| {
                            v.checked_sub(base[p / ANCHOR_BLOCK])
                                .and_then(|d| u16::try_from(d).ok())
                        })
                        .flatten()
                    {
                        Some(d) => off.push(d),
                        None => break,
                    }
                    q += 1;
                }
                if q == end {
                    return;
                }
            }
            // An entry that begins a block, does not fit, or of a wide table.
            let v = self.get(q) + add;
            self.push(v);
            q += 1;
        }
    }
    /// Keeps the first `n` entries.
    pub(crate) fn truncate(&mut self, n: usize) {
        match self {
            Anchors::Narrow { base, off } => {
                off.truncate(n);
                base.truncate(n.div_ceil(ANCHOR_BLOCK));
            }
            Anchors::Wide(v) => v.truncate(n),
        }
    }
    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Anchors::Narrow { base, off } => base.capacity() * 4 + off.capacity() * 2,
            Anchors::Wide(v) => v.capacity() * 4,
        }
    }
}

/// No anchors (what [`Shifts::NONE`] names).
static NO_ANCHORS: Anchors = Anchors::new();

/// What finds images at level 0: each step's first primitive, and each primitive's first
/// anchored match (one entry more than primitives).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shifts<'a> {
    pub(crate) starts: &'a [NodeId],
    pub(crate) anchors: &'a Anchors,
}

impl Shifts<'_> {
    /// No images to find (a level above 0, whose runs are all written).
    pub(crate) const NONE: Shifts<'static> = Shifts {
        starts: &[],
        anchors: &NO_ANCHORS,
    };

    /// The image at step `t` of match `m`, formed at step `s` < `t` and anchored at `p`.
    #[inline]
    pub(crate) fn image(&self, m: MatchId, p: NodeId, s: u32, t: u32) -> MatchId {
        let q = p - self.starts[s as usize] + self.starts[t as usize];
        self.anchors.get(q as usize) + (m - self.anchors.get(p as usize))
    }
}

/// One run of an element, its applications found: (match, set).
pub(crate) type RunApps = SmallVec<[(MatchId, u8); 8]>;

impl Elem {
    /// Whether run `r` is kept as images.
    #[inline]
    pub(crate) fn is_image(r: (u32, u32)) -> bool {
        r.1 & IMAGE != 0
    }

    /// Whether any of its runs is kept as images.
    pub(crate) fn has_images(&self) -> bool {
        self.runs.iter().any(|&r| Elem::is_image(r))
    }

    /// The written applications of written run `k`: from its first to the next written run's.
    fn written(&self, k: usize) -> std::ops::Range<usize> {
        let from = self.runs[k].1 as usize;
        let to = self.runs[k + 1..]
            .iter()
            .find(|&&r| !Elem::is_image(r))
            .map_or(self.apps.len(), |r| r.1 as usize);
        from..to
    }
}

impl Level {
    /// The latest node of match `m` (where it is anchored).
    #[inline]
    fn anchor(&self, m: MatchId) -> NodeId {
        self.store.nodes(m).max().unwrap_or(0)
    }

    /// The images at step `t` of the written applications `range` of element `e`, made at step
    /// `s`, appended to `out`.
    fn images_into(&self, e: ElementId, range: std::ops::Range<usize>, s: u32, t: u32, sh: Shifts, out: &mut RunApps) {
        let el = &self.elems[e as usize];
        for i in range {
            let m = el.apps[i];
            out.push((sh.image(m, self.anchor(m), s, t), el.sets[i]));
        }
    }

    /// The applications of the run element `e` made at step `t`, in order (`None`: it made none
    /// at `t`).
    pub(crate) fn run_apps_at(&self, e: ElementId, t: u32, sh: Shifts) -> Option<RunApps> {
        let mut out = RunApps::new();
        self.run_apps_into(e, t, sh, &mut out).then_some(out)
    }

    /// [`Level::run_apps_at`] appended to `out` (a list the caller reuses); whether `e` made any
    /// at `t` (`out` is left as it was if not).
    pub(crate) fn run_apps_into(&self, e: ElementId, t: u32, sh: Shifts, out: &mut RunApps) -> bool {
        let el = &self.elems[e as usize];
        // The last entry whose (last) step is `t` or later (the last of a persisting element's
        // goes on to the step the set took its images at: [`super::persist`]).
        let mut k = el.runs.partition_point(|r| r.0 < t);
        if k == el.runs.len() && k > 0 && self.persists(e) && t <= self.pers.at {
            k -= 1;
        }
        let Some(&(tk, x)) = el.runs.get(k) else {
            return false;
        };
        if !Elem::is_image((tk, x)) {
            if tk != t {
                return false;
            }
            out.extend(el.written(k).map(|i| (el.apps[i], el.sets[i])));
            return true;
        }
        let j = k.checked_sub(1).expect("an image run follows a written one");
        let s = el.runs[j].0;
        if t <= s {
            return false;
        }
        self.images_into(e, el.written(j), s, t, sh, out);
        true
    }

    /// Every run of element `e` in order: `f(step, the nodes it joined as images (None: a
    /// written run), its applications)`.
    fn for_each_run(&self, e: ElementId, sh: Shifts, mut f: impl FnMut(u32, Option<u32>, &[(MatchId, u8)])) {
        let el = &self.elems[e as usize];
        let mut buf = RunApps::new();
        // The last written run: its step and its applications.
        let mut template: Option<(u32, std::ops::Range<usize>)> = None;
        // Of the template, per application: (match, offset among those of its anchor, anchor
        // offset in its step, set), found once for every step of an entry.
        let mut tpl: SmallVec<[(MatchId, u32, u8); 8]> = SmallVec::new();
        for k in 0..el.runs.len() {
            let (t, x) = self.run_entry(e, k);
            buf.clear();
            if Elem::is_image((t, x)) {
                let (s, r) = template.clone().expect("an image run follows a written one");
                tpl.clear();
                for i in r {
                    let m = el.apps[i];
                    let p = self.anchor(m);
                    tpl.push((m - sh.anchors.get(p as usize), p - sh.starts[s as usize], el.sets[i]));
                }
                for u in s + 1..=t {
                    buf.clear();
                    let base = sh.starts[u as usize];
                    buf.extend(
                        tpl.iter()
                            .map(|&(k, off, set)| (sh.anchors.get((base + off) as usize) + k, set)),
                    );
                    f(u, Some(x & !IMAGE), &buf);
                }
            } else {
                let r = el.written(k);
                buf.extend(r.clone().map(|i| (el.apps[i], el.sets[i])));
                template = Some((t, r));
                f(t, None, &buf);
            }
        }
    }

    /// The nodes an image run at step `t` joined: those of its images of step `t`, each once, in
    /// order.
    fn image_nodes(&self, apps: &[(MatchId, u8)], first: NodeId, out: &mut Vec<NodeId>) {
        let from = out.len();
        for &(m, _) in apps {
            for x in self.store.nodes(m) {
                if x >= first && !out[from..].contains(&x) {
                    out.push(x);
                }
            }
        }
    }

    /// Level 0's shifts, outside a step.
    pub(crate) fn shifts(&self) -> Shifts<'_> {
        Shifts {
            starts: &self.starts,
            anchors: &self.anchors,
        }
    }

    /// Element `e`'s applications with the step each was made at, and the set of its class it
    /// was made through (or [`super::RECORDED`]), in the order it made them.
    pub fn applications_with_steps_and_sets(&self, e: ElementId) -> Vec<(MatchId, u32, u8)> {
        let el = &self.elems[e as usize];
        let mut out = Vec::with_capacity(el.apps.len());
        self.for_each_run(e, self.shifts(), |t, _, apps| {
            out.extend(apps.iter().map(|&(m, s)| (m, t, s)));
        });
        out
    }

    /// Element `e`'s applications with the step each was made at, in the order it made them.
    pub fn applications_with_steps(&self, e: ElementId) -> Vec<(MatchId, u32)> {
        self.applications_with_steps_and_sets(e)
            .into_iter()
            .map(|(m, t, _)| (m, t))
            .collect()
    }

    /// Element `e`'s applications (match ids of this level), in the order it made them.
    pub fn applications(&self, e: ElementId) -> Cow<'_, [MatchId]> {
        let el = &self.elems[e as usize];
        if el.stillborn && el.apps.is_empty() {
            // Of a stillborn element of an earlier step, what a rebirth reads.
            return Cow::Borrowed(self.stillborn_starts(e));
        }
        if !el.has_images() {
            return Cow::Borrowed(&el.apps);
        }
        Cow::Owned(self.apps_with(e, self.shifts()))
    }

    /// Per application of element `e`, the set of its class it was made through (an index into
    /// the class's sets), or [`super::RECORDED`] for a recorded match or one lying wholly inside.
    pub fn sets(&self, e: ElementId) -> Cow<'_, [u8]> {
        let el = &self.elems[e as usize];
        if !el.has_images() {
            return Cow::Borrowed(&el.sets);
        }
        Cow::Owned(self.expanded(e, self.shifts(), |a| a.1))
    }

    /// The nodes element `e` spans, in the order they joined.
    pub fn nodes(&self, e: ElementId) -> Cow<'_, [NodeId]> {
        let el = &self.elems[e as usize];
        if !el.has_images() {
            return Cow::Borrowed(&el.nodes);
        }
        Cow::Owned(self.nodes_with(e, self.shifts()))
    }

    /// The least node element `e` spans (`None`: it spans none). Its written nodes hold it: its
    /// first run is written, and an image run joins only nodes of a later step.
    pub fn least_node(&self, e: ElementId) -> Option<NodeId> {
        self.elems[e as usize].nodes.iter().min().copied()
    }

    /// The nodes of element `e` in the order they joined, its image runs found with `sh`. An
    /// image run at step u joined the images of what its template (of step s) holds of step s, in
    /// order: each at its offset in step u.
    pub(crate) fn nodes_with(&self, e: ElementId, sh: Shifts) -> Vec<NodeId> {
        let el = &self.elems[e as usize];
        let mut out = Vec::with_capacity(el.nodes.len());
        let mut w = 0usize;
        let mut template: Option<(u32, std::ops::Range<usize>)> = None;
        let mut tn: Vec<NodeId> = Vec::new();
        for k in 0..el.runs.len() {
            let (t, x) = self.run_entry(e, k);
            if !Elem::is_image((t, x)) {
                template = Some((t, el.written(k)));
                continue;
            }
            let (s, r) = template.clone().expect("an image run follows a written one");
            let pos = (x & !IMAGE) as usize;
            out.extend_from_slice(&el.nodes[w..pos]);
            w = pos;
            let first = sh.starts[s as usize];
            tn.clear();
            for i in r {
                for y in self.store.nodes(el.apps[i]) {
                    if y >= first && !tn.contains(&y) {
                        tn.push(y);
                    }
                }
            }
            for u in s + 1..=t {
                let base = sh.starts[u as usize];
                out.extend(tn.iter().map(|&y| y - first + base));
            }
        }
        out.extend_from_slice(&el.nodes[w..]);
        out
    }

    /// Every application of element `e`, its image runs found with `sh`.
    pub(crate) fn apps_with(&self, e: ElementId, sh: Shifts) -> Vec<MatchId> {
        self.expanded(e, sh, |a| a.0)
    }

    /// `f` of every (match, set) of element `e`, in order, its image runs found with `sh`.
    fn expanded<T>(&self, e: ElementId, sh: Shifts, f: impl Fn(&(MatchId, u8)) -> T) -> Vec<T> {
        let mut out = Vec::with_capacity(self.elems[e as usize].apps.len());
        self.for_each_run(e, sh, |_, _, apps| out.extend(apps.iter().map(&f)));
        out
    }

    /// Writes out element `e`'s last run when it is kept as images and made at step `now` (an
    /// application of that step is about to be added to it). A run of an earlier step stays as
    /// it is: the application begins a run of its own.
    pub(crate) fn write_last_run(&mut self, e: ElementId, now: u32, sh: Shifts) {
        let el = &self.elems[e as usize];
        let k = el.runs.len().wrapping_sub(1);
        let Some(&(t, x)) = el.runs.last() else { return };
        if t != now || !Elem::is_image((t, x)) {
            return;
        }
        let s = el.runs[k - 1].0;
        let apps = self.run_apps_at(e, t, sh).expect("a run at its last step");
        let mut nodes = Vec::new();
        self.image_nodes(&apps, sh.starts[t as usize], &mut nodes);
        let el = &mut self.elems[e as usize];
        if t - 1 > s {
            // The images before `now` stay one entry.
            el.runs[k].0 = t - 1;
            el.runs.push((t, el.apps.len() as u32));
        } else {
            el.runs[k] = (t, el.apps.len() as u32);
        }
        el.apps.extend(apps.iter().map(|a| a.0));
        el.sets.extend(apps.iter().map(|a| a.1));
        let pos = ((x & !IMAGE) as usize).min(el.nodes.len());
        debug_assert_eq!(pos, el.nodes.len(), "nothing written after the images");
        el.nodes.splice(pos..pos, nodes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ets::timeline::Timeline;
    use crate::ets::{Alphabet, ConstraintSet, PatternBuilder, Schedule, Setting};
    use std::sync::Arc;

    proptest::proptest! {
        /// The anchors read back as a list of the same entries, in two bytes while the offsets
        /// fit, in four from the first that does not, through truncations.
        #[test]
        fn anchors_are_the_list_they_hold(
            steps in proptest::collection::vec((0u32..3_000, proptest::bool::weighted(0.02)), 0..400),
            cut in 0usize..400,
        ) {
            let (mut a, mut v) = (Anchors::new(), Vec::new());
            let mut x = 0u32;
            for (i, &(d, jump)) in steps.iter().enumerate() {
                x += if jump { 70_000 } else { d };
                a.push(x);
                v.push(x);
                if i == cut {
                    a.truncate(cut / 2);
                    v.truncate(cut / 2);
                    x = v.last().copied().unwrap_or(0);
                }
            }
            proptest::prop_assert_eq!(a.len(), v.len());
            proptest::prop_assert_eq!(a.last(), v.last().copied());
            for (p, &y) in v.iter().enumerate() {
                proptest::prop_assert_eq!(a.get(p), y);
            }
            proptest::prop_assert_eq!(a.try_get(v.len()), None);
            // An offset past two bytes from its block's first entry widens the table.
            let needs_wide = v.chunks(ANCHOR_BLOCK).any(|c| c[c.len() - 1] - c[0] > u16::MAX as u32);
            proptest::prop_assert!(!needs_wide || matches!(a, Anchors::Wide(_)));
        }

        /// Entries appended shifted at once are those pushed one at a time (blocks begun,
        /// offsets that do not fit, and wide tables included).
        #[test]
        fn anchors_appended_shifted_are_those_pushed(
            steps in proptest::collection::vec((0u32..3_000, proptest::bool::weighted(0.02)), 1..300),
            (from, n) in (0usize..300, 0usize..300),
            add in proptest::prop_oneof![0u32..100, 60_000u32..200_000],
        ) {
            let mut a = Anchors::new();
            let mut x = 0u32;
            for &(d, jump) in &steps {
                x += if jump { 70_000 } else { d };
                a.push(x);
            }
            let from = from % steps.len();
            let n = n.min(steps.len() - from);
            let mut one = a.clone();
            for q in from..from + n {
                let v = one.get(q) + add;
                one.push(v);
            }
            a.extend_shifted(from, n, add);
            proptest::prop_assert_eq!(format!("{a:?}"), format!("{one:?}"));
        }
    }

    /// A chain r → a → a → …, one `a` a step, and a class that takes the start, then every link.
    fn chain(steps: usize, repeats: bool) -> Timeline {
        let mut al = Alphabet::new();
        let c = al.add_primal_class("c").unwrap();
        let site = |n: &str| vec![(n.to_string(), c)];
        let r = al.add_primitive("r", &[], &site("next")).unwrap();
        let a = al.add_primitive("a", &site("prev"), &site("next")).unwrap();
        let al = Arc::new(al);
        let mut st = Setting::new(al.clone());
        let link = |from: &str, kind: &str| {
            PatternBuilder::new()
                .context("x", from)
                .var("y", kind)
                .process("x", "next", "y", "prev")
        };
        let start = st.add_named_constraint("Con_start", 0, &link("r", "a")).unwrap();
        let step = st.add_named_constraint("Con_step", 0, &link("a", "a")).unwrap();
        let set = |name: &str, c| ConstraintSet {
            name: name.into(),
            constraints: vec![c],
            null: false,
        };
        st.add_class(
            "chain",
            0,
            None,
            vec![set("A", start), set("B", step)],
            Schedule::Seq(vec![Schedule::Step(0), Schedule::star(Schedule::Step(1))]),
        )
        .unwrap();
        let mut tl = Timeline::new(Arc::new(st), Some(0));
        tl.find_repeats(repeats);
        tl.begin_step().unwrap();
        let mut prev = tl.add(r).unwrap();
        tl.end_step().unwrap();
        for _ in 0..steps {
            tl.begin_step().unwrap();
            let x = tl.add(a).unwrap();
            tl.connect(prev, 0, x, 0).unwrap();
            tl.end_step().unwrap();
            prev = x;
        }
        tl
    }

    fn lists(lv: &Level, e: ElementId) -> (Vec<(MatchId, u32, u8)>, Vec<NodeId>) {
        (lv.applications_with_steps_and_sets(e), lv.nodes(e).into_owned())
    }

    #[test]
    fn image_runs_read_as_the_runs_written_out_and_write_out_to_them() {
        let (images, found) = (chain(20, true), chain(20, false));
        assert!(images.repeat_counts().quiet > 0, "{:?}", images.repeat_counts());
        let (carried, plain) = (images.level(0), found.level(0));
        assert!((0..carried.elements().len() as ElementId).any(|e| carried.persists(e)));
        // The elements that persist written out (`super::persist`), their lists the same.
        let mut settled = carried.clone();
        settled.settle();
        let lv = &settled;
        assert_eq!(lv.elements().len(), plain.elements().len());
        let mut kept = 0;
        for e in 0..lv.elements().len() as ElementId {
            assert_eq!(lists(carried, e), lists(plain, e), "element {e}");
            assert_eq!(lists(lv, e), lists(plain, e), "element {e}");
            assert!(!plain.element(e).has_images());
            if !lv.element(e).runs.last().is_some_and(|&r| Elem::is_image(r)) {
                continue;
            }
            kept += 1;
            // The image runs of consecutive steps are one entry.
            let mut steps: Vec<u32> = lv.applications_with_steps(e).iter().map(|a| a.1).collect();
            steps.dedup();
            assert!(lv.element(e).runs.len() * 2 < steps.len(), "{:?}", lv.element(e).runs);
            // An application made after the images at their step writes the run out first: the
            // lists read the same, and the run is written.
            let mut copy = lv.clone();
            let last = lv.element(e).runs.last().unwrap().0;
            copy.write_last_run(e, last - 1, lv.shifts());
            assert_eq!(
                copy.element(e).runs,
                lv.element(e).runs,
                "a run of an earlier step stays"
            );
            copy.write_last_run(e, last, lv.shifts());
            let el = copy.element(e);
            assert!(!Elem::is_image(*el.runs.last().unwrap()));
            assert_eq!(lists(&copy, e), lists(plain, e), "element {e} written out");
            assert!(el.apps.len() > lv.element(e).apps.len());
        }
        assert!(kept > 0, "no element ends with an image run");
    }
}
