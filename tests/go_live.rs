//! The Game API (`ets::go::live`): a record replayed move by move through it classifies exactly as
//! `ets classify --timeline` does; undo restores everything; forks are independent; random games.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ets::ets::Setting;
use ets::go::board::{Color, Point};
use ets::go::classify::{GoTimeline, classify_game, embedded_setting};
use ets::go::fastboard::FastRng;
use ets::go::game::Replay;
use ets::go::live::{Game, GameOptions, Move};
use ets::go::record::{Attention, RecordOptions};
use ets::go::sgf::Sgf;

fn setting() -> &'static Arc<Setting> {
    static S: OnceLock<Arc<Setting>> = OnceLock::new();
    S.get_or_init(|| Arc::new(embedded_setting().1.expect("the embedded setting compiles")))
}

fn game(p: &Path) -> Replay {
    Replay::from_sgf(&Sgf::parse_bytes(std::fs::read(p).unwrap()).unwrap(), 0, &[]).unwrap()
}

fn sample(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(Path::new("tests/data/games").join(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

fn options(attention: Attention) -> GameOptions {
    GameOptions {
        record: RecordOptions {
            attention,
            layers: if matches!(attention, Attention::Focus { .. }) {
                3
            } else {
                1
            },
        },
        ..GameOptions::default()
    }
}

/// Everything a timeline says about every element, as `ets classify --timeline --forming` prints it.
fn lives(g: &ets::go::classify::GoTimeline) -> String {
    serde_json::to_string(&g.timeline_json(true)).unwrap()
}

/// Level 0's elements, each with its applications (step, set) and its nodes, in order; then the
/// applications of every element of the levels above that is not stillborn.
type Lists = (Vec<(Vec<(u32, u32, u8)>, Vec<u32>)>, Vec<Vec<u32>>);
fn level0_lists(g: &ets::go::classify::GoTimeline) -> Lists {
    let l = g.timeline().level(0);
    let above = elements_above(g, false);
    let level0 = (0..l.elements().len() as u32)
        .map(|e| (l.applications_with_steps_and_sets(e), l.nodes(e).into_owned()))
        .collect();
    (level0, above)
}

/// The applications of each element of the levels above 0, stillborn ones (`stillborn`: of a
/// stillborn element of an earlier step, what a rebirth reads of it, its applications of start
/// sets) or not (an empty list in the place of the others).
fn elements_above(g: &ets::go::classify::GoTimeline, stillborn: bool) -> Vec<Vec<u32>> {
    g.timeline().levels()[1..]
        .iter()
        .flat_map(|l| {
            (0..l.elements().len() as u32).map(move |e| {
                if l.element(e).is_stillborn() == stillborn {
                    l.applications(e).into_owned()
                } else {
                    Vec::new()
                }
            })
        })
        .collect()
}

/// Plays the record's moves (up to `n`) through the API; `None` if the referee refuses one.
fn through_api(r: &Replay, n: usize, opts: GameOptions) -> Option<Game> {
    let mut g = Game::new(setting().clone(), r.info.size.0, r.info.size.1, opts).unwrap();
    if r.positions[0]
        .points()
        .any(|p| r.positions[0].get(p) != ets::go::board::Cell::Empty)
    {
        return None; // handicap setup: not a move sequence from an empty board
    }
    for m in &r.moves[..n] {
        if m.color != g.to_move() {
            return None;
        }
        let mv = m.point.map_or(Move::Pass, Move::Play);
        g.play_move(mv).ok()?;
    }
    Some(g)
}

#[test]
fn a_record_through_the_api_classifies_as_the_timeline_does() {
    let mut games = sample("9x9");
    games.extend(sample("tom-9d").into_iter().take(2));
    let mut compared = 0;
    for f in &games {
        let r = game(f);
        for att in [Attention::FOCUS, Attention::Full] {
            let n = if r.info.size.0 > 9 { 60.min(r.len()) } else { r.len() };
            let Some(api) = through_api(&r, n, options(att)) else {
                eprintln!("{}: a move the referee refuses; skipped", f.display());
                continue;
            };
            let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
            let tl = classify_game(
                setting().clone(),
                &r.positions[..=n],
                &last[..=n],
                options(att).record,
                None,
            )
            .unwrap();
            assert_eq!(api.board().ascii(), r.positions[n].ascii(), "{}", f.display());
            assert_eq!(lives(api.classification()), lives(&tl), "{} {att:?}", f.display());
            compared += 1;
        }
    }
    assert!(compared >= 8, "{compared} games compared");
}

#[test]
fn undo_restores_the_game_and_its_classification() {
    let r = game(&sample("9x9")[1]);
    // Focus (the default) and full attention, where level 0's quiet elements keep their runs as
    // images (`timeline::runs`), one entry for consecutive steps that a step taken back shortens.
    for opts in [GameOptions::default(), options(Attention::Full)] {
        let mut g = through_api(&r, 20, opts).expect("a clean record");
        let before = (
            lives(g.classification()),
            level0_lists(g.classification()),
            elements_above(g.classification(), true),
            g.board().ascii(),
            g.to_move(),
            g.prisoners(),
        );
        let deltas: Vec<_> = (0..3).map(|l| g.delta(l).clone()).collect();
        for m in &r.moves[20..35] {
            g.play_move(m.point.map_or(Move::Pass, Move::Play)).unwrap();
        }
        for _ in 20..35 {
            g.undo().unwrap();
        }
        assert!(
            (
                lives(g.classification()),
                level0_lists(g.classification()),
                elements_above(g.classification(), true),
                g.board().ascii(),
                g.to_move(),
                g.prisoners()
            ) == before,
            "{:?}",
            opts.record.attention
        );
        for (l, d) in deltas.iter().enumerate() {
            assert_eq!(g.delta(l as u32), d, "level {l}");
        }
        // And playing on from there classifies as a game that never went astray.
        let mut h = through_api(&r, 20, opts).unwrap();
        for m in &r.moves[20..40] {
            g.play_move(m.point.map_or(Move::Pass, Move::Play)).unwrap();
            h.play_move(m.point.map_or(Move::Pass, Move::Play)).unwrap();
        }
        assert_eq!(lives(g.classification()), lives(h.classification()));
        assert!(elements_above(g.classification(), true) == elements_above(h.classification(), true));
        assert!(level0_lists(g.classification()) == level0_lists(h.classification()));
    }
}

#[test]
fn forks_are_independent() {
    let r = game(&sample("9x9")[1]);
    let g = through_api(&r, 10, GameOptions::default()).unwrap();
    let before = lives(g.classification());
    let mut f = g.fork();
    let mv = f.legal_moves()[0];
    f.play(mv).unwrap();
    assert_eq!(lives(g.classification()), before);
    assert_ne!(lives(f.classification()), before);
    assert_eq!(f.moves(), g.moves() + 1);
}

#[test]
fn a_fork_and_its_origin_take_back_the_history_they_share() {
    // A fork shares the journal of the steps before it with the game it came from: each takes
    // moves back past the fork (the fork first, then the origin, reading the same step logs)
    // and arrives where a game played only that far is, deltas included.
    let r = game(&sample("9x9")[1]);
    for opts in [GameOptions::default(), options(Attention::Full)] {
        let mut g = through_api(&r, 16, opts).expect("a clean record");
        let mut f = g.fork();
        let mv = f.legal_moves()[0];
        f.play(mv).unwrap();
        for _ in 0..5 {
            f.undo().unwrap();
        }
        for _ in 0..4 {
            g.undo().unwrap();
        }
        let h = through_api(&r, 12, opts).unwrap();
        let state = |a: &Game| {
            (
                lives(a.classification()),
                level0_lists(a.classification()),
                elements_above(a.classification(), true),
                a.board().ascii(),
                a.to_move(),
            )
        };
        for a in [&f, &g] {
            assert!(state(a) == state(&h), "{:?}", opts.record.attention);
            for l in 0..3 {
                assert_eq!(a.delta(l), h.delta(l), "level {l}");
            }
        }
    }
}

/// `moves` random legal moves played in `g` (a pass when none is legal, and one time in
/// `pass_odds`): the positions from `g`'s current one on, and the move that reached each.
fn play_randomly(
    g: &mut Game,
    rng: &mut FastRng,
    moves: usize,
    pass_odds: usize,
) -> (Vec<ets::go::board::Board>, Vec<Option<Point>>) {
    let mut positions = vec![g.board()];
    let mut last = vec![None];
    for _ in 0..moves {
        let legal = g.legal_moves();
        let mv = if legal.is_empty() || rng.below(pass_odds) == 0 {
            Move::Pass
        } else {
            Move::Play(legal[rng.below(legal.len())])
        };
        g.play_move(mv).unwrap();
        positions.push(g.board());
        last.push(match mv {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        });
    }
    (positions, last)
}

#[test]
fn random_games_played_and_taken_back() {
    // Random legal games on 9x9: after every move the classification equals the timeline's over
    // the same positions; taking every move back returns to the empty board's classification.
    let st = setting();
    for seed in 0..4u64 {
        let mut g = Game::new(st.clone(), 9, 9, GameOptions::default()).unwrap();
        let empty = lives(g.classification());
        let (positions, last) = play_randomly(&mut g, &mut FastRng::new(seed + 1), 60, 20);
        let tl = classify_game(st.clone(), &positions, &last, GameOptions::default().record, None).unwrap();
        assert_eq!(lives(g.classification()), lives(&tl), "seed {seed}");
        while g.undo().is_ok() {}
        assert_eq!(lives(g.classification()), empty, "seed {seed}");
        assert_eq!(g.moves(), 0);
    }
}

#[test]
fn moves_tried_and_taken_back_leave_no_trace() {
    // A search's pattern: before each move of a random game, a few other moves are played and taken
    // back. What those tries made (elements begun and dropped at once among them) must be gone
    // entirely: the game's classification equals the timeline's over the positions actually
    // played, in full and focused attention alike.
    let st = setting();
    for (seed, attention) in [(7u64, Attention::FOCUS), (8, Attention::Full), (9, Attention::FOCUS)] {
        let opts = options(attention);
        let mut rng = FastRng::new(seed);
        let mut g = Game::new(st.clone(), 9, 9, opts).unwrap();
        // The same moves without the tries.
        let mut h = Game::new(st.clone(), 9, 9, opts).unwrap();
        let quiet = |g: &Game| g.classification().timeline().repeat_counts().quiet;
        let mut positions = vec![g.board()];
        let mut last = vec![None];
        // Element steps level 0 took as images in the tries that follow one taken back: the
        // quiet pass of a step made after an undo reads what the step before left it.
        let mut quiet_after_undo = 0;
        for _ in 0..70 {
            let legal = g.legal_moves();
            if legal.is_empty() {
                break;
            }
            for k in 0..3 {
                let before = g.classification().timeline().repeat_counts().quiet;
                g.play(legal[rng.below(legal.len())]).unwrap();
                if k > 0 {
                    quiet_after_undo += g.classification().timeline().repeat_counts().quiet - before;
                }
                g.undo().unwrap();
            }
            let p = legal[rng.below(legal.len())];
            let (qg, qh) = (quiet(&g), quiet(&h));
            g.play(p).unwrap();
            h.play(p).unwrap();
            // After the tries, the move takes as many element steps as images as without them.
            assert_eq!(quiet(&g) - qg, quiet(&h) - qh, "seed {seed}: move {}", positions.len());
            positions.push(g.board());
            last.push(Some(p));
        }
        if matches!(attention, Attention::Full) {
            assert!(
                quiet_after_undo > 0,
                "seed {seed}: no quiet element after a move taken back"
            );
        }
        let tl = classify_game(st.clone(), &positions, &last, opts.record, None).unwrap();
        assert_eq!(lives(g.classification()), lives(&tl), "seed {seed}");
        // Level 0's elements, each with its applications and nodes in order (runs kept as images
        // included, `timeline::runs`): the tries left none of theirs behind.
        assert!(
            level0_lists(g.classification()) == level0_lists(&tl),
            "seed {seed}: level 0's elements differ"
        );
    }
}

#[test]
fn remembered_floods_outlive_a_move_taken_back() {
    // A search tries move after move from one position, again and again. The stillborn
    // derivations the memo makes again without deriving them at the first round are made again
    // at every later round (taking a move back puts back what the memo knows of the nodes the move
    // changed, and keeps what it replayed), and every try changes the classification as it does
    // with the memo off.
    let r = game(Path::new("tests/data/games/tom-9d/2005-01-8557986.sgf"));
    let opts = GameOptions {
        top: Some(2),
        ..options(Attention::FOCUS)
    };
    let mut g = Game::from_replay(setting().clone(), &r, 120, opts).unwrap();
    let mut off = g.fork();
    off.remember_floods(false);
    let replays = |g: &Game| g.classification().timeline().flood_replays();
    // (Counted since the record's first position.)
    let off_before = replays(&off);
    let legal = g.legal_moves();
    let tries: Vec<Point> = legal.iter().step_by(legal.len() / 6).copied().collect();
    // Per round, per move: the derivations replayed.
    let mut seen: Vec<Vec<u64>> = Vec::new();
    for _ in 0..3 {
        let mut round = Vec::new();
        for &p in &tries {
            let before = replays(&g);
            g.play(p).unwrap();
            round.push(replays(&g) - before);
            off.play(p).unwrap();
            for l in 0..3 {
                assert_eq!(g.delta(l), off.delta(l), "{p:?}, level {l}");
            }
            g.undo().unwrap();
            off.undo().unwrap();
        }
        seen.push(round);
    }
    assert!(
        seen.iter().all(|r| *r == seen[0]),
        "replays per round and move: {seen:?}"
    );
    assert_eq!(replays(&off), off_before);
    // The memo stands in at most of the moves tried (a derivation begun at a step ends at its
    // first ending step, so a move leaves only a few stillborn derivations to make again: 18 over
    // the 7 moves of a round on 2026-12-03, more than 50 when floods ran to their end).
    let replaying = seen[0].iter().filter(|&&n| n > 0).count();
    assert!(replaying * 2 > tries.len(), "derivations replayed per move: {seen:?}");
    assert_eq!(lives(g.classification()), lives(off.classification()));
}

#[test]
fn trial_derivations_change_no_move_tried_and_taken_back() {
    // A search tries move after move from one position; with the starts of levels 1–2 tried first
    // (trial derivations, the default) and without, every try changes the classification alike,
    // and taking it back leaves it alike.
    let r = game(Path::new("tests/data/games/tom-9d/2005-01-8557986.sgf"));
    for att in [Attention::FOCUS, Attention::Full] {
        let opts = GameOptions {
            top: Some(2),
            ..options(att)
        };
        let mut g = Game::from_replay(setting().clone(), &r, 120, opts).unwrap();
        let mut off = g.fork();
        off.trial_derivations(false);
        let made = |g: &Game| g.classification().timeline().trials_made();
        let (before, off_before) = (made(&g), made(&off));
        let legal = g.legal_moves();
        let tries: Vec<Point> = legal.iter().step_by(legal.len() / 8).copied().collect();
        for _ in 0..2 {
            for &p in &tries {
                g.play(p).unwrap();
                off.play(p).unwrap();
                for l in 0..3 {
                    assert_eq!(g.delta(l), off.delta(l), "{att:?}, {p:?}, level {l}");
                }
                g.undo().unwrap();
                off.undo().unwrap();
            }
        }
        assert_eq!(made(&off), off_before);
        assert!(made(&g) - before > 20, "{att:?}: {} made by trials", made(&g) - before);
        assert_eq!(lives(g.classification()), lives(off.classification()));
    }
}

#[test]
fn the_referee_knows_ko_suicide_captures_and_scores() {
    let st = setting();
    let mut g = Game::new(st.clone(), 5, 5, GameOptions::default()).unwrap();
    let at = |s: &str| Point::from_gtp(s, 5).unwrap();
    // A ko: black captures at C3, white may not retake at once.
    for s in ["B3", "C3", "C2", "D2", "C4", "D4", "A1", "E3", "D3"] {
        g.play(at(s)).unwrap();
    }
    assert_eq!(g.last_captures(), &[at("C3")]);
    assert_eq!(g.prisoners(), (1, 0));
    assert!(!g.is_legal(at("C3")), "the ko may not be retaken at once");
    assert!(g.play(at("C3")).is_err());
    assert_eq!(g.to_move(), Color::White);
    // Elsewhere White may play; then the scores.
    g.play(at("E1")).unwrap();
    assert_eq!(g.to_move(), Color::Black);
    assert!(g.is_legal(at("C3")), "after a move elsewhere the ko may be taken");
    let s = g.area_score(&[]);
    assert!(s.is_finite() && g.territory_score(&[]).is_finite());
}

#[test]
fn a_record_game_taken_back_past_its_start_and_played_again() {
    // A game started from a record's position knows the record's moves before it: taking them
    // back (the referee made again from the record's positions) and playing them again through
    // the API gives at every position the record's board and captures and the timeline's
    // classification of the record's positions.
    let r = game(&sample("9x9")[1]);
    let n = 30.min(r.len());
    let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let sorted = |v: &[Point]| {
        let mut v = v.to_vec();
        v.sort_by_key(|p| (p.row, p.col));
        v
    };
    for att in [Attention::FOCUS, Attention::Full] {
        let opts = options(att);
        let check = |g: &Game, k: usize| {
            assert_eq!(g.board(), r.positions[k], "{att:?}, position {k}");
            let tl = classify_game(setting().clone(), &r.positions[..=k], &last[..=k], opts.record, None).unwrap();
            assert_eq!(lives(g.classification()), lives(&tl), "{att:?}, position {k}");
            if k > 0 {
                assert_eq!(
                    sorted(g.last_captures()),
                    sorted(&r.moves[k - 1].effect.captured),
                    "{att:?}, position {k}"
                );
            }
        };
        let mut g = Game::from_replay(setting().clone(), &r, n, opts).unwrap();
        for k in (0..n).rev() {
            g.undo().unwrap();
            if k % 7 == 0 {
                check(&g, k);
            }
        }
        assert!(g.undo().is_err());
        let mut captures = 0;
        for k in 1..=n {
            let m = &r.moves[k - 1];
            g.play_move(m.point.map_or(Move::Pass, Move::Play)).unwrap();
            captures += g.last_captures().len();
            if k % 7 == 0 || !g.last_captures().is_empty() {
                check(&g, k);
            }
        }
        assert!(captures > 0, "a capture among the moves played again");
    }
}

#[test]
fn a_record_position_with_a_chain_without_liberties() {
    // A setup may leave a chain without liberties (the record holds it; the referee removes it).
    // The move after it is perceived from the referee's position, which lacks the chain, and a
    // move taken back returns to the referee's position before it: the game classifies as a
    // timeline given the referee's positions, and when a move is taken back the referee's
    // position before it.
    let sgf = "(;GM[1]FF[4]SZ[9]AB[aa]AW[ba][ab];B[ee];W[ff];B[dd])";
    let r = Replay::from_sgf(&Sgf::parse_bytes(sgf.as_bytes().to_vec()).unwrap(), 0, &[]).unwrap();
    let at = |s: &str| Point::from_gtp(s, 9).unwrap();
    let corner = Point { col: 0, row: 0 };
    assert_ne!(r.positions[0].get(corner), ets::go::board::Cell::Empty);
    for att in [Attention::FOCUS, Attention::Full] {
        let opts = options(att);
        let mut g = Game::from_replay(setting().clone(), &r, 0, opts).unwrap();
        let start = g.board();
        assert_eq!(start.get(corner), ets::go::board::Cell::Empty);
        let mut tl = GoTimeline::new(setting().clone(), (9, 9), opts.record, None).unwrap();
        tl.keep_journal(true);
        tl.push(&r.positions[0], None).unwrap();
        let mut boards = vec![start.clone()];
        let play = |g: &mut Game, tl: &mut GoTimeline, boards: &mut Vec<_>, s: &str| {
            g.play(at(s)).unwrap();
            tl.push(&g.board(), Some(at(s))).unwrap();
            boards.push(g.board());
            assert_eq!(lives(g.classification()), lives(tl), "{att:?}, {s}");
        };
        play(&mut g, &mut tl, &mut boards, "E5");
        play(&mut g, &mut tl, &mut boards, "F4");
        for _ in 0..2 {
            g.undo().unwrap();
            boards.pop();
            tl.undo(boards.last()).unwrap();
            assert_eq!(lives(g.classification()), lives(&tl), "{att:?}, a move taken back");
        }
        assert_eq!(g.board(), start);
        play(&mut g, &mut tl, &mut boards, "D6");
        play(&mut g, &mut tl, &mut boards, "C7");
    }
}

#[test]
fn random_games_take_the_images_around_each_move_as_the_matches_found() {
    // Random legal games on 9x9 at full attention: around each move, a neighbour's primitives
    // repeat the position before while only some of their matches do (a side constraint's image
    // beside matches of a new pair of colours: `RepeatCounts::partial`), and the elements of
    // classes that use none of the new matches take their images without derivation. Level 0
    // finding repeats ends with the timeline of every match found and every element derived
    // (`GoTimeline::find_repeats(false)`), each element's lists in order, with the elements that
    // stay quiet carried without a visit or visited at every step.
    let st = setting();
    let mut partial = 0;
    for seed in 0..4u64 {
        let mut g = Game::new(st.clone(), 9, 9, options(Attention::Full)).unwrap();
        let (positions, last) = play_randomly(&mut g, &mut FastRng::new(seed + 11), 90, 25);
        let run = |repeats: bool, persisting: bool| {
            let mut t = GoTimeline::new(st.clone(), (9, 9), options(Attention::Full).record, Some(2)).unwrap();
            t.find_repeats(repeats);
            t.persisting(persisting);
            for (b, m) in positions.iter().zip(&last) {
                t.push(b, *m).unwrap();
            }
            t
        };
        let (found, images, visited) = (run(false, true), run(true, true), run(true, false));
        assert_eq!(found.timeline().repeat_counts().partial, 0);
        let r = images.timeline().repeat_counts();
        partial += r.partial;
        assert!(r.quiet > 0, "seed {seed}: {r:?}");
        assert_eq!(r, visited.timeline().repeat_counts(), "seed {seed}");
        for other in [&found, &visited] {
            assert!(lives(other) == lives(&images), "seed {seed}: the timelines differ");
            assert!(
                level0_lists(other) == level0_lists(&images),
                "seed {seed}: the elements' lists differ"
            );
        }
    }
    assert!(partial > 0, "no partial primitive in the random games");
}
