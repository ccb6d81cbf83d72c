//! Levels as a pipeline: level 0 of step t+1 beside levels ≥ 1 of step t, on two threads (§3.4.2:
//! a level-n struct is made of the level-(n−1) elements present at a step and their links, so
//! level n needs only what level n−1 handed up at that step, its [`Feed`]).
//!
//! The route is the timeline's own: the same level-0 step ([`Timeline::end_step`] without its
//! upper levels), the same feed built from level 0 at the end of the step, and the same upper
//! steps taking the feeds in step order on the second thread. The timeline after the pipeline is
//! therefore the one the steps would have made on one thread (tested in `tests/engine_props.rs`
//! on random structs of a two-level setting and on the parcel post's three levels, and by the
//! front-end's classification tests on whole sample records).
//! Used where a whole run of steps is known to be taken without a look at the upper levels in
//! between and without a journal (a recorded game classified to its end); steps that may be
//! taken back, or whose deltas are read as they come, take [`Timeline::end_step`].

use std::sync::mpsc;

use super::level::Level;
use super::{Feed, PlansN, Timeline, TimelineError};
use crate::ets::ids::NodeId;
use crate::ets::matching::PlanScratch;
use crate::ets::primitive::PrimitiveKind;
use crate::ets::setting::Setting;
use crate::ets::structs::Struct;

/// What a front-end turns its observations into: steps of a [`Timeline`] (every level brought up
/// to date at the end of each step) or of a [`Pipelined`] one (levels ≥ 1 one step behind, on a
/// second thread).
pub trait Steps {
    /// Begins a step ([`Timeline::begin_step`]).
    fn begin_step(&mut self) -> Result<u32, TimelineError>;
    /// Adds a primitive to the current step ([`Timeline::add`]).
    fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError>;
    /// Joins a terminal site to an initial site of a primitive of this step ([`Timeline::connect`]).
    fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError>;
    /// Closes a terminal site ([`Timeline::close`]).
    fn close(&mut self, n: NodeId, site: usize) -> Result<(), TimelineError>;
    /// Adds a copy of earlier nodes to the current step ([`Timeline::add_copy`]).
    fn add_copy(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
    ) -> Result<NodeId, TimelineError>;
    /// Ends the step: level 0 is up to date when it returns (levels ≥ 1 too, unless pipelined).
    fn end_step(&mut self) -> Result<(), TimelineError>;
    /// Takes the last step back ([`Timeline::undo`]; needs the journal, which a pipeline has not).
    fn undo(&mut self) -> Result<(), TimelineError>;
    /// Level 0 as it stands.
    fn level0(&self) -> &Level;
    /// The struct so far.
    fn strukt(&self) -> &Struct;
}

impl Steps for Timeline {
    fn begin_step(&mut self) -> Result<u32, TimelineError> {
        Timeline::begin_step(self)
    }
    fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError> {
        Timeline::add(self, kind)
    }
    fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError> {
        Timeline::connect(self, from, from_site, to, to_site)
    }
    fn close(&mut self, n: NodeId, site: usize) -> Result<(), TimelineError> {
        Timeline::close(self, n, site)
    }
    fn add_copy(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
    ) -> Result<NodeId, TimelineError> {
        Timeline::add_copy(self, src, kinds)
    }
    fn end_step(&mut self) -> Result<(), TimelineError> {
        Timeline::end_step(self).map(|_| ())
    }
    fn undo(&mut self) -> Result<(), TimelineError> {
        Timeline::undo(self)
    }
    fn level0(&self) -> &Level {
        self.level(0)
    }
    fn strukt(&self) -> &Struct {
        Timeline::strukt(self)
    }
}

/// A timeline whose levels ≥ 1 are brought up to date on a second thread while level 0 goes on
/// ([`Timeline::pipelined`]). Only level 0 and the struct can be read meanwhile.
pub struct Pipelined<'a> {
    tl: &'a mut Timeline,
    /// To the thread of the upper levels (`None`: no second thread, every level at each step).
    tx: Option<mpsc::Sender<Feed>>,
    /// Nodes the level-1 struct has, counting those handed up and not yet taken.
    fed: usize,
}

impl Steps for Pipelined<'_> {
    fn begin_step(&mut self) -> Result<u32, TimelineError> {
        self.tl.begin_step()
    }
    fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError> {
        self.tl.add(kind)
    }
    fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError> {
        self.tl.connect(from, from_site, to, to_site)
    }
    fn close(&mut self, n: NodeId, site: usize) -> Result<(), TimelineError> {
        self.tl.close(n, site)
    }
    fn add_copy(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
    ) -> Result<NodeId, TimelineError> {
        self.tl.add_copy(src, kinds)
    }
    fn end_step(&mut self) -> Result<(), TimelineError> {
        let Some(tx) = &self.tx else {
            return self.tl.end_step().map(|_| ());
        };
        let t = self.tl.close_step()?;
        self.tl.level0_step(t, None);
        let feed = Feed::of(&mut self.tl.levels[0], t, self.fed);
        self.fed += feed.nodes.len();
        // The other end is gone only if its thread panicked (`pipelined` then raises the panic).
        tx.send(feed).map_err(|_| TimelineError::UpperLevelsStopped)?;
        self.tl.piped += 1;
        Ok(())
    }
    fn undo(&mut self) -> Result<(), TimelineError> {
        match self.tx {
            Some(_) => Err(TimelineError::NothingToUndo),
            None => self.tl.undo(),
        }
    }
    fn level0(&self) -> &Level {
        self.tl.level(0)
    }
    fn strukt(&self) -> &Struct {
        self.tl.strukt()
    }
}

/// The upper levels' thread: each feed in step order through levels 1..=top.
fn upper_levels(upper: &mut [Level], plans: &[PlansN], setting: &Setting, rx: mpsc::Receiver<Feed>) {
    let mut scratch = PlanScratch::default();
    for feed in rx {
        let t = feed.t;
        feed.take(&mut upper[0], &plans[1], setting, &mut scratch, None);
        for n in 2..=upper.len() {
            let (lower, above) = upper.split_at_mut(n - 1);
            let lv = &mut above[0];
            let feed = Feed::of(&mut lower[n - 2], t, lv.host.len());
            feed.take(lv, &plans[n], setting, &mut scratch, None);
        }
    }
}

impl Timeline {
    /// Runs `f` over this timeline with its levels ≥ 1 brought up to date on a second thread, one
    /// step behind level 0, and returns what `f` returns once every level is up to date again.
    /// The timeline is then the one the same steps would make through [`Timeline::end_step`]
    /// (the route is the same; see the module documentation).
    ///
    /// Without a second core, a level above 0, or with the journal kept (steps that may be taken
    /// back), `f`'s steps take every level at once, as [`Timeline::end_step`] does; so they do when
    /// called with a step open, or on a rayon worker (a pool working through many timelines keeps
    /// the cores busy already). [`Timeline::steps_pipelined`] counts the steps that went through
    /// the second thread.
    ///
    /// If `f` or the upper levels panic, the timeline gets its levels back before the panic goes
    /// on (their state is then that of a step cut short).
    pub fn pipelined<R, F: FnOnce(&mut Pipelined<'_>) -> R>(&mut self, f: F) -> R {
        let two =
            std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) && rayon::current_thread_index().is_none();
        if !two || self.top == 0 || self.log.is_some() || self.open {
            return f(&mut Pipelined {
                tl: self,
                tx: None,
                fed: 0,
            });
        }
        let mut upper = self.levels.split_off(1);
        let plans = std::mem::take(&mut self.plans_n);
        let setting = self.setting.clone();
        let fed = upper[0].host.len();
        let (tx, rx) = mpsc::channel::<Feed>();
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::thread::scope(|s| {
                let work = || upper_levels(&mut upper, &plans, &setting, rx);
                match std::thread::Builder::new()
                    .name("timeline-upper".into())
                    .spawn_scoped(s, work)
                {
                    // No thread to be had: every level at each step, below.
                    Err(_) => Err(f),
                    Ok(worker) => {
                        // The sender goes with the handle: the thread then takes what is left and
                        // returns.
                        let r = f(&mut Pipelined {
                            tl: &mut *self,
                            tx: Some(tx),
                            fed,
                        });
                        match worker.join() {
                            Ok(()) => Ok(r),
                            Err(panic) => std::panic::resume_unwind(panic),
                        }
                    }
                }
            })
        }));
        // Whatever happened, the timeline has its levels and plans again.
        self.levels.extend(upper);
        self.plans_n = plans;
        let out = match out {
            Ok(out) => out,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match out {
            Ok(r) => r,
            Err(f) => f(&mut Pipelined {
                tl: self,
                tx: None,
                fed: 0,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::Arc;

    #[test]
    fn a_panic_in_the_steps_leaves_every_level_in_place() {
        let st = Arc::new(crate::demo::bank::setting());
        let mut tl = Timeline::new(st, None);
        let top = tl.levels().len();
        assert!(top >= 2, "a setting with a level above 0");
        let r = catch_unwind(AssertUnwindSafe(|| {
            tl.pipelined(|p| {
                p.begin_step().unwrap();
                p.end_step().unwrap();
                panic!("a fault in the steps");
            })
        }));
        assert!(r.is_err());
        assert_eq!(tl.levels().len(), top);
        // and the timeline goes on, through either route.
        tl.begin_step().unwrap();
        tl.end_step().unwrap();
        tl.pipelined(|p| {
            p.begin_step().unwrap();
            p.end_step().unwrap();
        });
        assert_eq!(tl.steps(), 3);
        assert_eq!(tl.levels().len(), top);
    }
}
