//! Trial derivations of starts (levels n ≥ 1): the derivation of an element begun from a start
//! match (§3.4.1.1's class generating system run over the level-n struct, as `Level::derive`
//! runs it), made first without writing anything, because most of them are stillborn: a
//! rebirth (`docs/semantics.md`, "rebirth") or a new start floods a region through the loop of
//! its class's schedule only to terminate at once, and such an element "never was an element of
//! the struct" (§5.1.1 as `docs/semantics.md` reads `ends` over time). Where the state the start
//! leads to leaves only through loops and endings, the derivation ends at the first ending step
//! that applies (`ClassRt::ends_at_once`; `docs/semantics.md`, "a derivation begun at a step
//! ends at its first ending step"), here as on the general route (`Level::offer`): a flood
//! stops where it first reaches what ends it.
//!
//! A derivation that runs to its end and leaves a stillborn element leaves only this behind
//! (`docs/design-floods.md`, "What a stillborn derivation leaves behind"): an element id; its
//! applications, which no other start of its class may take up for the rest of the step; per
//! node it held, that it did (for later rebirths), with its applications of start sets; and the
//! memo's record of it. (What it shared with other elements is no link for the level above: the
//! feed reads holders once the step is over, without the stillborn element, and the living
//! holders list their links themselves.)
//! The element and its applications never enter the holder lists of nodes and matches, from
//! which `Level::finish_delta` would take them out again.
//!
//! The trial follows the derivation the general route makes step by step, in the same order: the
//! joined nodes taken last in, first out, each node's index in order, the same tests of what is
//! applicable (`Level::catch_up`, `Level::offer`, `Level::resolve`), with membership kept in
//! per-node and per-match marks instead of holder lists. So it applies the same matches in the
//! same order and terminates through the same ending step. Whatever the trial does not follow
//! (an element that lives on or completes without terminating, a choice between ways on), it gives
//! up, having written nothing, and the element is derived by the general route. (A late fork
//! cannot be made by such a derivation, which never leaves the state its start led to: the trial
//! only notes, for the memo, that the general route would have looked for one.) The timeline is
//! the same either way (`Timeline::trial_derivations`): the engine's property tests compare the
//! two routes on random structs of a setting made for it (`tests/data/settings/pools.ets`), and
//! the front-end's tests on whole sample records and on moves tried and taken back.
//!
//! Since a trial never leaves the state its start led to, and succeeds only through a step that
//! ends the element, a start whose state has no such step (`ClassRt::ends_from`) is not tried at
//! all: its trial could only give up (`Timeline::trial_skips`).

use super::level::{Elem, Level, Presence, StepCtx};
use crate::ets::ids::{ElementId, MatchId, NodeId};

/// Scratch of the trial derivations of a level (kept between trials, so that a trial does not
/// allocate but for the element it makes).
#[derive(Debug, Clone, Default)]
pub(crate) struct Trial {
    /// Whether starts are tried first ([`super::Timeline::trial_derivations`]).
    pub(crate) on: bool,
    /// How many stillborn elements trials made.
    pub(crate) made: u64,
    /// Whether a start whose state has no step that ends the element is not tried
    /// ([`super::Timeline::trial_skips`]).
    pub(crate) skips: bool,
    /// How many starts were not tried for that reason.
    pub(crate) skipped: u64,
    /// Per match: the generation of the trial that applied it.
    applied: Vec<u32>,
    /// Joined nodes not yet caught up on (last in, first out, as `StepCtx::catch`).
    stack: Vec<NodeId>,
    /// The matches waiting for a step that leaves the state, in the order they were offered.
    pending: Vec<MatchId>,
    /// What the trial under way derived (kept between trials, so that a long derivation does not
    /// grow new lists; the element a trial makes gets copies of its length).
    derived: Derived,
}

impl Trial {
    /// Trials on, nothing made yet.
    pub(crate) fn new() -> Trial {
        Trial {
            on: true,
            skips: true,
            ..Trial::default()
        }
    }

    /// The mark generations start again from 1: no match is marked.
    pub(crate) fn forget_marks(&mut self) {
        self.applied.iter_mut().for_each(|g| *g = 0);
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.applied.capacity()
            + self.stack.capacity()
            + self.pending.capacity()
            + self.derived.apps.capacity()
            + self.derived.start_apps.capacity()
            + self.derived.nodes.capacity())
            * 4
    }
}

/// What a trial derived: the applications and nodes, in order.
#[derive(Debug, Clone, Default)]
struct Derived {
    apps: Vec<MatchId>,
    start_apps: Vec<u32>,
    nodes: Vec<NodeId>,
    /// Whether the general route would have asked about other elements (a late fork tried): the
    /// memo then keeps nothing of it (`FloodMemo::impure`).
    read_others: bool,
}

impl Level {
    /// Derives, as a trial, the element class `cls` begins from start `m` through `set` at this
    /// step. When it is stillborn, makes it as the general route leaves it and returns its id;
    /// otherwise (see the module documentation) writes nothing and returns `None`.
    pub(crate) fn trial_start(&mut self, cx: &StepCtx, cls: u16, m: MatchId, set: u8) -> Option<ElementId> {
        let cr = &self.table.classes[cls as usize];
        let to = cr
            .trans
            .get(cr.start as usize)?
            .iter()
            .find(|&&(s, _)| s == set)
            .map(|&(_, t)| t)?;
        // Only a step that ends the element makes a trial succeed, and the trial never leaves
        // the state the start led to.
        if self.trial.skips && !cr.ends_from[to as usize] {
            self.trial.skipped += 1;
            return None;
        }
        let generation = self.next_flood_gen();
        let mut trial = std::mem::take(&mut self.trial);
        if trial.applied.len() < self.store.len() {
            trial.applied.resize(self.store.len(), 0);
        }
        let mut marks = self.take_flood_marks();
        let mut d = std::mem::take(&mut trial.derived);
        let derived = self.trial_derive(cx, cls, to, m, generation, &mut trial, &mut marks, &mut d);
        self.put_flood_marks(marks);
        if !derived {
            trial.derived = d;
            self.trial = trial;
            return None;
        }
        trial.made += 1;
        self.memo.impure = d.read_others;
        let cr = &self.table.classes[cls as usize];
        let mut el = Elem::stillborn_at(cls, cr.class, to, cr.accept[to as usize], cx.t);
        el.unlisted = true;
        // What it shares with other elements is not handed up (`Level::apply` would list it):
        // once it is gone, a link among the other holders is listed by the living holder that
        // applies it, or by the one that becomes a node ([`super::Feed::of`]).
        // What it applied of start sets starts nothing else of its class at this step
        // (`Level::covered`).
        for &j in &d.start_apps {
            self.memo.cover(d.apps[j as usize], cls);
        }
        el.apps = d.apps.clone();
        el.nodes = d.nodes.clone();
        trial.derived = d;
        self.trial = trial;
        let e = self.push_element(el);
        self.touched_now.push(e);
        Some(e)
    }

    /// The trial itself, into `d`: `false` where it gives up.
    #[allow(clippy::too_many_arguments)]
    fn trial_derive(
        &self,
        cx: &StepCtx,
        cls: u16,
        state: u32,
        m0: MatchId,
        generation: u32,
        tr: &mut Trial,
        marks: &mut Vec<u32>,
        d: &mut Derived,
    ) -> bool {
        let cr = &self.table.classes[cls as usize];
        d.apps.clear();
        d.start_apps.clear();
        d.nodes.clear();
        d.read_others = false;
        tr.stack.clear();
        tr.pending.clear();
        let held = |marks: &Vec<u32>, x: NodeId| marks.get(x as usize) == Some(&generation);
        // `Level::apply`, without the lists: the application, its start-set mark, and the nodes
        // it joins (each caught up on later, as `Level::join` queues them).
        let apply = |m: MatchId, d: &mut Derived, tr: &mut Trial, marks: &mut Vec<u32>| {
            let idx = d.apps.len() as u32;
            if !self.table.starters[self.store.constraint(m).0 as usize].is_empty() {
                d.start_apps.push(idx);
            }
            d.apps.push(m);
            tr.applied[m as usize] = generation;
            for x in self.store.nodes(m) {
                if marks.get(x as usize) != Some(&generation) {
                    if marks.len() <= x as usize {
                        marks.resize(x as usize + 1, 0);
                    }
                    marks[x as usize] = generation;
                    d.nodes.push(x);
                    tr.stack.push(x);
                }
            }
        };
        let ending_held = |marks: &Vec<u32>, m: MatchId| {
            self.store
                .nodes(m)
                .all(|x| self.host.present(x, cx.t) || held(marks, x))
        };
        let ends = |mv: &[(u8, u32)]| mv.iter().any(|&(s, _)| cr.ends[s as usize]);
        apply(m0, d, tr, marks);
        loop {
            // `Level::catch_up`, with `Level::offer` for the one element.
            while let Some(x) = tr.stack.pop() {
                let Some(around) = self.index.get(x as usize) else {
                    continue;
                };
                for &m in around {
                    if m >= cx.pass_at {
                        continue;
                    }
                    let c = self.store.constraint(m);
                    let Some(l) = cr.local_of(c) else { continue };
                    if tr.applied[m as usize] == generation {
                        continue;
                    }
                    if cr.recorded[l] && self.store.nodes(m).all(|y| held(marks, y)) {
                        if self.presence(cx, m) == Presence::Here {
                            apply(m, d, tr, marks);
                        }
                        continue;
                    }
                    if l >= cr.n_used() {
                        continue;
                    }
                    let part = self.table.part(c);
                    let inside = if part.len == 0 {
                        self.store.nodes(m).any(|y| y == x)
                    } else {
                        self.store
                            .nodes(m)
                            .zip(&part.context)
                            .all(|(y, &ctx)| !ctx || held(marks, y))
                    };
                    if !inside {
                        continue;
                    }
                    let pres = self.presence(cx, m);
                    if pres == Presence::Gone {
                        continue;
                    }
                    let mv = &cr.moves[state as usize][l];
                    if pres == Presence::Ending && (!ends(mv) || !ending_held(marks, m)) {
                        continue;
                    }
                    if pres == Presence::Here && cr.loop_set(state, l).is_some() {
                        apply(m, d, tr, marks);
                        continue;
                    }
                    if !cr.usable_later[state as usize][l] {
                        if pres == Presence::Here {
                            // `Level::late_fork` asks first whether another element holds the
                            // match, so the memo does not remember the derivation. It forks
                            // nothing here: from the states this derivation passed through (the
                            // start and `state`), only the start could take the match, and a late
                            // fork never goes back before the first application.
                            d.read_others = true;
                        }
                        continue;
                    }
                    if self.ends_at_once(cls, state, l) {
                        // An ending step that applies: the derivation ends here, as
                        // `Level::offer` ends it.
                        apply(m, d, tr, marks);
                        return true;
                    }
                    if !tr.pending.contains(&m) {
                        tr.pending.push(m);
                    }
                }
            }
            // `Level::resolve`: the steps waiting, in the order they were offered.
            let mut looped = false;
            let mut options = false;
            let mut ending: Option<MatchId> = None;
            for i in 0..tr.pending.len() {
                let m = tr.pending[i];
                if tr.applied[m as usize] == generation {
                    continue;
                }
                let pres = self.presence(cx, m);
                if pres == Presence::Gone {
                    continue;
                }
                let Some(l) = cr.local_of(self.store.constraint(m)) else {
                    continue;
                };
                if pres == Presence::Here && cr.loop_set(state, l).is_some() {
                    apply(m, d, tr, marks);
                    looped = true;
                    continue;
                }
                let mv = &cr.moves[state as usize][l];
                if mv.is_empty() || self.store.nodes(m).all(|x| held(marks, x)) {
                    // (A match wholly inside is recorded only by an element that lives on.)
                    continue;
                }
                for &(s, _) in mv.iter() {
                    if cr.ends[s as usize] {
                        if pres == Presence::Here || ending_held(marks, m) {
                            ending = ending.or(Some(m));
                        }
                    } else if pres == Presence::Here {
                        options = true;
                    }
                }
            }
            if looped {
                continue;
            }
            if options {
                // A way on that does not end it: the element goes on, or chooses.
                return false;
            }
            // Only steps that end the element are left: its generating system terminates
            // (`Level::terminate`). Without one, it lives on.
            let Some(x0) = ending else {
                return false;
            };
            apply(x0, d, tr, marks);
            return true;
        }
    }
}
