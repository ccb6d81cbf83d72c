//! The timeline's memory accounting (`Timeline::memory`, which `ets bench --classify` prints part
//! by part, issue 14 item 5) against what the allocator holds: a game classified to its end, the
//! bytes it keeps counted by a global allocator of this test binary alone. The accounting must
//! claim no byte that is not held, and leave out no large table.
//!
//! This file holds one test on purpose: the count is process-wide, and another test running
//! beside it would move it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ets::go::board::Point;
use ets::go::classify::{GoTimeline, classify_game, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;

/// The system allocator, counting the bytes allocated and not yet freed.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to `System` with the same arguments, which upholds
// `GlobalAlloc`'s contract; the count has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract for `layout`.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator (hence by `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `realloc`'s contract; `ptr` came from `System`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_timeline_accounts_for_the_memory_it_holds() {
    let setting = Arc::new(embedded_setting().1.expect("the embedded setting compiles"));
    let bytes = std::fs::read("tests/data/games/tom-9d/2005-01-8557986.sgf").unwrap();
    let r = Replay::from_sgf(&Sgf::parse_bytes(bytes).unwrap(), 0, &[]).unwrap();
    let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let before = LIVE.load(Ordering::SeqCst);
    let g = classify_game(setting.clone(), &r.positions, &last, RecordOptions::default(), Some(2)).unwrap();
    let held = LIVE.load(Ordering::SeqCst) - before;
    let tl = g.timeline();
    let m = tl.memory();
    assert_eq!(
        tl.heap_bytes(),
        m.strukt + m.anchors + m.journal + m.levels.iter().map(|l| l.total()).sum::<usize>() + m.compiled
    );
    let claimed = tl.heap_bytes() + g.front_end_heap_bytes();
    assert_eq!(m.levels.len(), 3, "levels 0-2");
    // The sensor's record of each primitive is the front-end's share; what neither counts (small
    // buffers, the timeline's scratch lists) is a small part.
    assert!(claimed <= held, "claimed {claimed} of {held} bytes held");
    assert!(
        claimed as f64 >= 0.95 * held as f64,
        "claimed {claimed} of {held} bytes held: a large table is not accounted for"
    );
    // At full attention level 0 holds most of it, and each of its parts is there.
    let l0 = &m.levels[0];
    for (name, x) in l0.parts().into_iter().take(5) {
        assert!(x > 0, "level 0's {name}");
    }
    assert!(l0.total() > m.levels[1].total() + m.levels[2].total());
    assert_eq!(m.journal, 0, "a record classified without a journal");
    drop(g);

    // A timeline kept for a live game (the Game API keeps a journal of every position, for
    // undo) at move 120: the journal and the deltas are accounted for as well.
    let before = LIVE.load(Ordering::SeqCst);
    let first = &r.positions[0];
    let mut g = GoTimeline::new(
        setting.clone(),
        (first.cols(), first.rows()),
        RecordOptions::default(),
        Some(2),
    )
    .unwrap();
    g.keep_journal(true);
    for (b, m) in r.positions.iter().zip(&last).take(121) {
        g.push(b, *m).unwrap();
    }
    let held = LIVE.load(Ordering::SeqCst) - before;
    let m = g.timeline().memory();
    let claimed = g.timeline().heap_bytes() + g.front_end_heap_bytes();
    assert!(
        m.journal > claimed / 10,
        "the journal: {} of {claimed} bytes",
        m.journal
    );
    assert!(claimed <= held, "claimed {claimed} of {held} bytes held");
    assert!(
        claimed as f64 >= 0.95 * held as f64,
        "claimed {claimed} of {held} bytes held with a journal: a large table is not accounted for"
    );
    drop(g);

    // What is compiled from the setting once per timeline (class tables, plans) is counted
    // too: it is the larger part of a short record's, and all of an empty timeline's.
    let before = LIVE.load(Ordering::SeqCst);
    let g = GoTimeline::new(setting.clone(), (19, 19), RecordOptions::default(), Some(2)).unwrap();
    let held = LIVE.load(Ordering::SeqCst) - before;
    let m = g.timeline().memory();
    let claimed = g.timeline().heap_bytes() + g.front_end_heap_bytes();
    assert!(m.compiled > held / 2, "compiled {} of {held} bytes held", m.compiled);
    assert!(
        claimed <= held && claimed as f64 >= 0.95 * held as f64,
        "an empty timeline: claimed {claimed} of {held} bytes held"
    );
    drop(g);

    // Every shipped file (the first game of a collection), short 9x9 games and old encodings
    // among them, classified whole.
    let mut files = Vec::new();
    for dir in std::fs::read_dir("tests/data/games").unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "sgf") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 20, "the shipped records: {}", files.len());
    for path in &files {
        let sgf = Sgf::parse_bytes(std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = Replay::from_sgf(&sgf, 0, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
        let before = LIVE.load(Ordering::SeqCst);
        let g = classify_game(setting.clone(), &r.positions, &last, RecordOptions::default(), Some(2)).unwrap();
        let held = LIVE.load(Ordering::SeqCst) - before;
        let claimed = g.timeline().heap_bytes() + g.front_end_heap_bytes();
        assert!(
            claimed <= held,
            "{}: claimed {claimed} of {held} bytes held",
            path.display()
        );
        assert!(
            claimed as f64 >= 0.95 * held as f64,
            "{}: claimed {claimed} of {held} bytes held ({} moves)",
            path.display(),
            r.moves.len()
        );
    }
}
