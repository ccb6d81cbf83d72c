//! The fast rule board (`go::fastboard`) against the recorder's board (`go::board`, SGF move
//! execution) on real games: the shipped sample, and a slice of `../shared/data` when present;
//! and a property test continuing real positions with random legal moves, both boards side by
//! side, the fast board's invariants (chains, liberties, hash, empty list) recomputed at each move.

use ets::go::board::{Board, Cell, Color};
use ets::go::fastboard::{FastBoard, FastRng, Rules, Vtx};
use ets::go::game::Replay;
use ets::go::sgf::Sgf;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn sgf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut es: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    es.sort();
    for p in es {
        if p.is_dir() {
            sgf_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "sgf") {
            out.push(p);
        }
    }
}

fn replays(files: &[PathBuf]) -> Vec<(String, Replay)> {
    let mut out = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(f) else { continue };
        let Ok(sgf) = Sgf::parse_bytes(bytes) else { continue };
        for g in 0..sgf.games().len() {
            if let Ok(r) = Replay::from_sgf(&sgf, g, &[]) {
                out.push((format!("{}#{}", f.display(), g + 1), r));
            }
        }
    }
    out
}

fn same(f: &FastBoard, b: &Board) -> bool {
    b.points().all(|p| {
        let want = match b.get(p) {
            Cell::Empty => None,
            Cell::Stone(c) => Some(c),
        };
        f.color_at(f.vtx(p)) == want
    }) && f.prisoners() == (b.captured_by_black, b.captured_by_white)
}

/// Replays a game on the fast board from its first position; returns the number of moves checked
/// (it stops at the first move the rules refuse, which the recorder's board executes anyway).
fn check_game(name: &str, r: &Replay) -> usize {
    let mut f = FastBoard::from_board(&r.positions[0], Rules::default()).unwrap();
    assert!(same(&f, &r.positions[0]), "{name}: setup");
    for (k, m) in r.moves.iter().enumerate() {
        let v = m.point.map_or(Vtx::PASS, |p| f.vtx(p));
        if f.play(m.color, v).is_err() {
            // Irregular under the rules (an occupied point, a suicide, a ko retaken): the
            // recorder must have said so or the move is a ko or suicide it executed.
            return k;
        }
        assert!(same(&f, &r.positions[k + 1]), "{name}: after move {}", k + 1);
        assert_eq!(f.check_invariants(), Ok(()), "{name}: after move {}", k + 1);
    }
    r.moves.len()
}

#[test]
fn fast_board_replays_the_shipped_games_as_the_recorder_does() {
    let mut files = Vec::new();
    sgf_files(Path::new("tests/data/games"), &mut files);
    let games = replays(&files);
    assert!(games.len() >= 15, "the shipped sample holds its games");
    let mut moves = 0;
    let mut whole = 0;
    for (name, r) in &games {
        let n = check_game(name, r);
        moves += n;
        whole += (n == r.moves.len()) as usize;
    }
    // Every shipped game but the one with a move onto an occupied point is legal throughout.
    assert!(
        whole + 1 >= games.len(),
        "{whole} of {} games replayed whole",
        games.len()
    );
    assert!(moves > 2000);
}

#[test]
fn fast_board_replays_a_corpus_slice() {
    let dir = Path::new("../shared/data/games/tom-9d/2005-01");
    if !dir.exists() {
        eprintln!("skipped: no corpus at {}", dir.display());
        return;
    }
    let mut files = Vec::new();
    sgf_files(dir, &mut files);
    files.truncate(200);
    let games = replays(&files);
    let mut whole = 0;
    for (name, r) in &games {
        whole += (check_game(name, r) == r.moves.len()) as usize;
    }
    assert!(whole * 100 >= games.len() * 98, "{whole} of {} whole", games.len());
}

fn shipped() -> &'static [(String, Replay)] {
    static GAMES: std::sync::OnceLock<Vec<(String, Replay)>> = std::sync::OnceLock::new();
    GAMES.get_or_init(|| {
        let mut files = Vec::new();
        sgf_files(Path::new("tests/data/games"), &mut files);
        replays(&files)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// From a real position (any game, any move), random legal moves (passes included) give the
    /// same stones and prisoners on both boards, and the fast board's invariants hold.
    #[test]
    fn random_continuations_agree_with_the_recorders_board(
        game in 0usize..1000, at in 0usize..400, seed in any::<u64>(), n in 1usize..120
    ) {
        let games = shipped();
        let (name, r) = &games[game % games.len()];
        let k = at % r.positions.len();
        let mut b = r.positions[k].clone();
        let mut f = FastBoard::from_board(&b, Rules::default()).unwrap();
        prop_assert!(same(&f, &b));
        let mut rng = FastRng::new(seed);
        let mut color = r.to_move[k];
        for i in 0..n {
            let legal = f.legal_moves(color);
            let v = if legal.is_empty() || rng.below(20) == 0 {
                Vtx::PASS
            } else {
                legal[rng.below(legal.len())]
            };
            f.play(color, v).unwrap();
            if let Some(p) = f.point(v) {
                let eff = b.play(color, p);
                prop_assert!(eff.suicide.is_empty() && eff.occupied.is_none());
            }
            prop_assert!(same(&f, &b), "{} from move {}: step {}", name, k, i);
            prop_assert_eq!(f.check_invariants(), Ok(()));
            color = color.other();
        }
    }

    /// A copy is independent of its original, and equal to it until one of them moves.
    #[test]
    fn copies_are_independent(seed in any::<u64>()) {
        let mut f = FastBoard::new(9).unwrap();
        let mut rng = FastRng::new(seed);
        f.playout(Color::Black, &mut rng, 30, None);
        let mut g = FastBoard::new(19).unwrap();
        g.copy_from(&f);
        prop_assert_eq!(&g, &f);
        let before = f.clone();
        g.playout(Color::White, &mut rng, 500, None);
        prop_assert_eq!(&f, &before);
        prop_assert_eq!(g.check_invariants(), Ok(()));
    }
}
