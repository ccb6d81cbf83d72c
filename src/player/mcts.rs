//! Evaluation by sample games (thesis §5.3.2.1, "an examination of the current state-of-affairs";
//! Gomi's core loop, "evaluate a position by playing many sample games"; Bouzy's Indigo Monte-Carlo
//! module): Monte-Carlo tree search on the fast rule board ([`crate::go::fastboard`]).
//!
//! UCT with all-moves-as-first (RAVE, Gelly & Silver 2007) and priors: a node's children are
//! created when it has been visited `expand_after` times; a child's value is
//! `(1 − β)·Q + β·AMAF + c·√(ln N / n)` with `β = ñ / (ñ + n + n·ñ / K)` (the "equivalence" form
//! of Pachi and Fuego); priors are virtual visits (`n_p` visits at win rate `q_p`) added to a
//! child when it is created, from the proposals of the switchable components (class-generated
//! candidates, the ranker). Playouts follow a [`PlayoutPolicy`]. A position after two passes is
//! scored as it stands. Root parallelism: each thread grows its own tree from its own seed; the
//! root children's statistics are summed.

use std::time::{Duration, Instant};

use crate::go::board::Color;
use crate::go::fastboard::{FastBoard, FastRng, Owner, Vtx};

/// How a playout chooses its moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlayoutPolicy {
    /// Uniformly random legal moves that fill no own eye.
    Uniform,
    /// The Monte-Carlo programs' capture-and-escape rule before the uniform draw: capture a
    /// chain left in atari near the last move, else extend a chain of one's own that the last move
    /// put in atari (when the extension gains liberties); no self-atari of more than two stones.
    Capture,
    /// MoGo's policy (Gelly et al. 2006; Pachi's "moggy"): the capture-and-escape rule, then a
    /// move next to the opponent's last move that matches a 3x3 shape pattern
    /// ([`super::patterns`]), then a uniform draw; a move that puts a chain of two or more stones
    /// in atari (its own) is refused (drawn again, up to three times), in every rule.
    Patterns,
}

impl PlayoutPolicy {
    /// Chooses a move for `color` (a pass when none is left).
    #[inline]
    pub fn choose(self, b: &mut FastBoard, color: Color, rng: &mut FastRng) -> Vtx {
        match self {
            PlayoutPolicy::Uniform => b.random_move(color, rng),
            PlayoutPolicy::Capture => capture_move(b, color, rng),
            PlayoutPolicy::Patterns => pattern_move(b, color, rng),
        }
    }
}

/// The opponent's last move, when it put a stone on the board that is still there.
#[inline]
fn opponent_last(b: &FastBoard, color: Color) -> Option<Vtx> {
    let last = b.last_moves()[match color {
        Color::Black => 1,
        Color::White => 0,
    }];
    (!last.is_pass() && b.color_at(last).is_some()).then_some(last)
}

/// Capture-or-escape moves after the opponent's `last` stone: the liberty of its chain or of a
/// neighbouring opponent chain in atari, and the liberty of a chain of ours next to it in atari
/// when playing there is no self-atari. Written into `cands`; returns their number.
fn urgent_moves(b: &FastBoard, color: Color, last: Vtx, cands: &mut [Vtx; 8]) -> usize {
    let mut k = 0;
    if let Some(l) = b.atari_liberty(last) {
        cands[k] = l;
        k += 1;
    }
    let mut ns = [Vtx::PASS; 4];
    for (i, n) in b.neighbours(last).enumerate() {
        ns[i] = n;
    }
    for n in ns.into_iter().filter(|n| !n.is_pass()) {
        if b.color_at(n) == Some(color)
            && let Some(l) = b.atari_liberty(n)
            && k < 8
            && !cands[..k].contains(&l)
            && self_atari_size(b, color, l) == 0
        {
            cands[k] = l;
            k += 1;
        }
    }
    k
}

/// The [`PlayoutPolicy::Patterns`] rule.
fn pattern_move(b: &mut FastBoard, color: Color, rng: &mut FastRng) -> Vtx {
    if let Some(last) = opponent_last(b, color) {
        let mut cands = [Vtx::PASS; 8];
        let k = urgent_moves(b, color, last, &mut cands);
        if k > 0 {
            let start = rng.below(k);
            for j in 0..k {
                let v = cands[(start + j) % k];
                if b.is_legal(color, v) && !b.is_eye(color, v) {
                    return v;
                }
            }
        }
        // Shape: the empty points around the last move whose 3x3 neighbourhood is a pattern.
        let mut k = 0;
        let mut around = [Vtx::PASS; 8];
        for n in b.neighbours(last).chain(b.diagonals(last)) {
            around[k] = n;
            k += 1;
        }
        let mut shape = [Vtx::PASS; 8];
        let mut m = 0;
        for &v in &around[..k] {
            if b.is_empty(v)
                && super::patterns::matches(b.neighbourhood(v))
                && b.is_legal(color, v)
                && !b.is_eye(color, v)
                && self_atari_size(b, color, v) == 0
            {
                shape[m] = v;
                m += 1;
            }
        }
        if m > 0 {
            return shape[rng.below(m)];
        }
    }
    let mut v = b.random_move(color, rng);
    for _ in 0..3 {
        if v.is_pass() || self_atari_size(b, color, v) < 2 {
            break;
        }
        v = b.random_move(color, rng);
    }
    v
}

/// The capture/escape playout rule (see [`PlayoutPolicy::Capture`]).
fn capture_move(b: &mut FastBoard, color: Color, rng: &mut FastRng) -> Vtx {
    let last = b.last_moves()[match color {
        Color::Black => 1,
        Color::White => 0,
    }];
    if !last.is_pass() && b.color_at(last).is_some() {
        // Capture: the last stone's chain, or a neighbouring opponent chain, in atari.
        let mut cands = [Vtx::PASS; 8];
        let mut k = 0;
        if let Some(l) = b.atari_liberty(last) {
            cands[k] = l;
            k += 1;
        }
        let ns: [Vtx; 4] = {
            let mut a = [Vtx::PASS; 4];
            for (i, n) in b.neighbours(last).enumerate() {
                a[i] = n;
            }
            a
        };
        for n in ns.into_iter().filter(|n| !n.is_pass()) {
            if b.color_at(n) == Some(color) && b.in_atari(n) {
                // Our chain in atari: capture one of its attackers in atari, or extend.
                if let Some(l) = b.atari_liberty(n) {
                    let gain = b.neighbours(l).filter(|&x| b.is_empty(x)).count();
                    if gain >= 2 && k < 8 {
                        cands[k] = l;
                        k += 1;
                    }
                }
            }
        }
        if k > 0 {
            let start = rng.below(k);
            for j in 0..k {
                let v = cands[(start + j) % k];
                if b.is_legal(color, v) && !b.is_eye(color, v) {
                    return v;
                }
            }
        }
    }
    // Uniform, refusing a self-atari of a large chain once.
    let v = b.random_move(color, rng);
    if !v.is_pass() && self_atari_size(b, color, v) > 2 {
        let w = b.random_move(color, rng);
        if !w.is_pass() {
            return w;
        }
    }
    v
}

/// The size of the chain a move would leave in atari (0 when it would not): its stone and the
/// friendly chains it joins, when the resulting chain has one liberty and captures nothing.
fn self_atari_size(b: &FastBoard, color: Color, v: Vtx) -> usize {
    let mut libs = 0usize;
    let mut size = 1usize;
    let mut lib_pts = [Vtx::PASS; 8];
    let mut heads = [Vtx::PASS; 4];
    let mut nh = 0;
    for n in b.neighbours(v) {
        match b.color_at(n) {
            None => {
                if !lib_pts[..libs].contains(&n) && libs < 8 {
                    lib_pts[libs] = n;
                    libs += 1;
                }
            }
            Some(c) if c == color => {
                let h = b.chain_head(n);
                if heads[..nh].contains(&h) {
                    continue;
                }
                heads[nh] = h;
                nh += 1;
                size += b.chain_size(n);
                for l in b.liberties(n) {
                    if l != v && !lib_pts[..libs].contains(&l) {
                        if libs >= 2 {
                            return 0;
                        }
                        lib_pts[libs] = l;
                        libs += 1;
                    }
                }
            }
            Some(_) => {
                if b.in_atari(n) {
                    return 0; // a capture
                }
            }
        }
        if libs >= 2 {
            return 0;
        }
    }
    if libs <= 1 { size } else { 0 }
}

/// Search settings.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Playouts per move (a cap when a time limit is also set).
    pub playouts: usize,
    /// Threads (root parallelism).
    pub threads: usize,
    /// All-moves-as-first statistics.
    pub rave: bool,
    /// RAVE equivalence K.
    pub rave_equiv: f64,
    /// UCB exploration constant.
    pub explore: f64,
    /// Visits before a node's children are created.
    pub expand_after: u32,
    /// The playout policy.
    pub policy: PlayoutPolicy,
    /// Priors for every node's moves from the playout policy's own tactics (Pachi's and Fuego's
    /// in-tree priors): a capture or an escape from atari is urgent, a 3x3 shape next to the last
    /// move is good, a self-atari or a first-line move far from every stone is bad, and every
    /// move starts with a few even visits. The knowledge priors (classes, Forme_K, …) come on
    /// top at the root.
    pub tree_priors: bool,
    /// Virtual visits of one tree prior (a prior of strength 1).
    pub tree_prior_visits: f32,
    /// Seed of the search's random generators.
    pub seed: u64,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            playouts: 10_000,
            threads: 1,
            rave: true,
            rave_equiv: 3000.0,
            explore: 0.0,
            expand_after: 2,
            policy: PlayoutPolicy::Patterns,
            tree_priors: true,
            tree_prior_visits: 10.0,
            seed: 1,
        }
    }
}

/// A prior for a root or tree move: `visits` virtual visits at win rate `value`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior {
    /// Virtual visits.
    pub visits: f32,
    /// Their win rate for the mover.
    pub value: f32,
}

#[derive(Debug, Clone)]
struct Node {
    mv: Vtx,
    n: f32,
    w: f32,
    prior_n: f32,
    prior_w: f32,
    rn: f32,
    rw: f32,
    first: u32,
    count: u32,
    expanded: bool,
}

impl Node {
    fn new(mv: Vtx) -> Node {
        Node {
            mv,
            n: 0.0,
            w: 0.0,
            prior_n: 0.0,
            prior_w: 0.0,
            rn: 0.0,
            rw: 0.0,
            first: 0,
            count: 0,
            expanded: false,
        }
    }
}

/// What a search found at the root.
#[derive(Debug, Clone, Default)]
pub struct SearchResult {
    /// Per root move: move, real visits, win rate for the side to move, prior visits.
    pub moves: Vec<RootMove>,
    /// Playouts made.
    pub playouts: usize,
    /// Time spent.
    pub elapsed: Duration,
    /// Per padded index: P(black owns the point at the end) over the playouts.
    pub black_ownership: Vec<f32>,
    /// The root's win rate for the side to move.
    pub value: f32,
    /// The principal variation.
    pub pv: Vec<Vtx>,
}

/// One root move's statistics.
#[derive(Debug, Clone, Copy)]
pub struct RootMove {
    /// The move.
    pub mv: Vtx,
    /// Real visits.
    pub visits: f32,
    /// Win rate for the side to move (real visits only; 0.5 when none).
    pub value: f32,
    /// AMAF visits.
    pub rave_visits: f32,
    /// Prior virtual visits.
    pub prior: f32,
}

impl SearchResult {
    /// The most visited move.
    pub fn best(&self) -> Option<RootMove> {
        self.moves
            .iter()
            .copied()
            .max_by(|a, b| a.visits.total_cmp(&b.visits).then(b.mv.cmp(&a.mv)))
    }
}

/// The tree search over one position.
pub struct Search<'a> {
    cfg: &'a SearchConfig,
    root: &'a FastBoard,
    to_move: Color,
    komi: f32,
    /// Moves allowed at the root (None: every legal move that fills no own eye, and pass).
    root_moves: Option<Vec<Vtx>>,
    prior: &'a (dyn Fn(&FastBoard, Color, Vtx) -> Option<Prior> + Sync),
}

impl<'a> Search<'a> {
    /// A search of `root` with `to_move` to play, area scoring with `komi`; `prior` gives the
    /// prior of a move in a position (None: no prior).
    pub fn new(
        cfg: &'a SearchConfig,
        root: &'a FastBoard,
        to_move: Color,
        komi: f32,
        prior: &'a (dyn Fn(&FastBoard, Color, Vtx) -> Option<Prior> + Sync),
    ) -> Search<'a> {
        Search {
            cfg,
            root,
            to_move,
            komi,
            root_moves: None,
            prior,
        }
    }

    /// Restricts the root's moves.
    pub fn with_root_moves(mut self, moves: Vec<Vtx>) -> Search<'a> {
        self.root_moves = Some(moves);
        self
    }

    /// Runs until `playouts` playouts (all threads together) or `deadline`.
    pub fn run(&self, deadline: Option<Instant>) -> SearchResult {
        let start = Instant::now();
        let threads = self.cfg.threads.max(1);
        let per = self.cfg.playouts.div_ceil(threads);
        let results: Vec<(Vec<Node>, Vec<f32>, usize)> = if threads == 1 {
            vec![self.grow(per, deadline, self.cfg.seed)]
        } else {
            std::thread::scope(|s| {
                let hs: Vec<_> = (0..threads)
                    .map(|t| {
                        let seed = self.cfg.seed.wrapping_add(t as u64 * 0x9E37);
                        s.spawn(move || self.grow(per, deadline, seed))
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().expect("search thread")).collect()
            })
        };
        let mut out = SearchResult {
            elapsed: start.elapsed(),
            ..SearchResult::default()
        };
        let len = self.root.padded_len();
        out.black_ownership = vec![0.0; len];
        let mut total = 0usize;
        let mut merged: Vec<RootMove> = Vec::new();
        let (mut rn, mut rw) = (0.0f32, 0.0f32);
        for (tree, own, n) in &results {
            total += n;
            for (i, o) in own.iter().enumerate() {
                out.black_ownership[i] += o;
            }
            let r = &tree[0];
            rn += r.n;
            rw += r.w;
            for c in &tree[r.first as usize..(r.first + r.count) as usize] {
                let real_n = c.n - c.prior_n;
                let real_w = c.w - c.prior_w;
                match merged.iter_mut().find(|m| m.mv == c.mv) {
                    Some(m) => {
                        let wins = m.value * m.visits + real_w;
                        m.visits += real_n;
                        m.rave_visits += c.rn;
                        m.value = if m.visits > 0.0 { wins / m.visits } else { 0.5 };
                    }
                    None => merged.push(RootMove {
                        mv: c.mv,
                        visits: real_n,
                        value: if real_n > 0.0 { real_w / real_n } else { 0.5 },
                        rave_visits: c.rn,
                        prior: c.prior_n,
                    }),
                }
            }
        }
        if total > 0 {
            for o in &mut out.black_ownership {
                *o /= total as f32;
            }
        }
        merged.sort_by(|a, b| b.visits.total_cmp(&a.visits).then(a.mv.cmp(&b.mv)));
        out.moves = merged;
        out.playouts = total;
        // The root's own statistics are from the opponent's view (the mover of the root's move).
        out.value = if rn > 0.0 { 1.0 - rw / rn } else { 0.5 };
        if let Some((tree, _, _)) = results.first() {
            let mut node = 0usize;
            for _ in 0..12 {
                let nd = &tree[node];
                if nd.count == 0 {
                    break;
                }
                let kids = nd.first as usize..(nd.first + nd.count) as usize;
                let best = kids.max_by(|&a, &b| tree[a].n.total_cmp(&tree[b].n)).expect("children");
                if tree[best].n - tree[best].prior_n < 2.0 {
                    break;
                }
                out.pv.push(tree[best].mv);
                node = best;
            }
        }
        out
    }

    /// One tree: (nodes, black-ownership sums, playouts).
    fn grow(&self, max: usize, deadline: Option<Instant>, seed: u64) -> (Vec<Node>, Vec<f32>, usize) {
        let cfg = self.cfg;
        let mut rng = FastRng::new(seed);
        let mut tree = vec![Node::new(Vtx::PASS)];
        let len = self.root.padded_len();
        let mut own = vec![0.0f32; len];
        let mut board = self.root.clone();
        let mut path: Vec<usize> = Vec::with_capacity(64);
        let mut seq: Vec<Vtx> = Vec::with_capacity(512);
        // AMAF: who played each point first in the suffix; stamped to avoid clearing.
        let mut first_color = vec![0u8; len];
        let mut stamp = vec![0u32; len];
        let mut epoch = 0u32;
        let points: Vec<Vtx> = self.root.points().collect();
        let mut done = 0usize;
        while done < max {
            if done.is_multiple_of(64) && deadline.is_some_and(|d| Instant::now() >= d) && done > 0 {
                break;
            }
            board.copy_from(self.root);
            path.clear();
            seq.clear();
            path.push(0);
            let mut color = self.to_move;
            let mut node = 0usize;
            loop {
                if !tree[node].expanded {
                    if node != 0 && tree[node].n - tree[node].prior_n < cfg.expand_after as f32 {
                        break;
                    }
                    self.expand(&mut tree, node, &board, color);
                }
                if tree[node].count == 0 || board.passes() >= 2 {
                    break;
                }
                let child = self.select(&tree, node);
                let mv = tree[child].mv;
                board.play_legal(color, mv);
                seq.push(mv);
                path.push(child);
                node = child;
                color = color.other();
            }
            let tree_len = seq.len();
            let policy = cfg.policy;
            let score = board.playout_by(color, &mut rng, 3 * points.len(), Some(&mut seq), |b, c, r| {
                policy.choose(b, c, r)
            });
            let margin = score as f32 - self.komi;
            let black_win = if margin > 0.0 {
                1.0
            } else if margin < 0.0 {
                0.0
            } else {
                0.5
            };
            for &p in &points {
                own[p.0 as usize] += match board.playout_owner(p) {
                    Owner::Black => 1.0,
                    Owner::White => 0.0,
                    Owner::Neutral => 0.5,
                };
            }
            // Backpropagation: a node's statistics are for the player who made its move.
            let mut mover = self.to_move;
            for &nd in &path[1..] {
                let win = if mover == Color::Black {
                    black_win
                } else {
                    1.0 - black_win
                };
                tree[nd].n += 1.0;
                tree[nd].w += win;
                mover = mover.other();
            }
            tree[0].n += 1.0;
            tree[0].w += if self.to_move == Color::Black {
                1.0 - black_win
            } else {
                black_win
            };
            if cfg.rave {
                epoch += 1;
                // Colours of seq[i]: the root mover at even i.
                let col = |i: usize| -> u8 {
                    let c = if i.is_multiple_of(2) {
                        self.to_move
                    } else {
                        self.to_move.other()
                    };
                    if c == Color::Black { 1 } else { 2 }
                };
                for i in (tree_len..seq.len()).rev() {
                    let v = seq[i].0 as usize;
                    if v != 0 {
                        stamp[v] = epoch;
                        first_color[v] = col(i);
                    }
                }
                for d in (0..tree_len).rev() {
                    let v = seq[d].0 as usize;
                    if v != 0 {
                        stamp[v] = epoch;
                        first_color[v] = col(d);
                    }
                    // path[d] is the node whose children were chosen at depth d (mover col(d)).
                    let nd = path[d];
                    let c = col(d);
                    let win = if c == 1 { black_win } else { 1.0 - black_win };
                    let (f, k) = (tree[nd].first as usize, tree[nd].count as usize);
                    for ch in &mut tree[f..f + k] {
                        let m = ch.mv.0 as usize;
                        if m != 0 && stamp[m] == epoch && first_color[m] == c {
                            ch.rn += 1.0;
                            ch.rw += win;
                        }
                    }
                }
            }
            done += 1;
        }
        (tree, own, done)
    }

    fn expand(&self, tree: &mut Vec<Node>, node: usize, board: &FastBoard, color: Color) {
        let first = tree.len() as u32;
        let mut moves: Vec<Vtx> = if node == 0 {
            match &self.root_moves {
                Some(m) => m.clone(),
                None => default_moves(board, color),
            }
        } else {
            default_moves(board, color)
        };
        if node != 0 && moves.is_empty() {
            moves.push(Vtx::PASS);
        }
        let last = opponent_last(board, color);
        let mut urgent = [Vtx::PASS; 8];
        let k = match last {
            Some(l) if self.cfg.tree_priors => urgent_moves(board, color, l, &mut urgent),
            _ => 0,
        };
        for mv in moves {
            let mut nd = Node::new(mv);
            if self.cfg.tree_priors {
                let (n, w) = tree_prior(board, color, mv, last, &urgent[..k], self.cfg.tree_prior_visits);
                nd.prior_n += n;
                nd.prior_w += w;
            }
            if let Some(p) = (self.prior)(board, color, mv) {
                nd.prior_n += p.visits;
                nd.prior_w += p.visits * p.value;
            }
            nd.n = nd.prior_n;
            nd.w = nd.prior_w;
            tree.push(nd);
        }
        let count = tree.len() as u32 - first;
        let n = &mut tree[node];
        n.first = first;
        n.count = count;
        n.expanded = true;
    }

    fn select(&self, tree: &[Node], node: usize) -> usize {
        let cfg = self.cfg;
        let parent = &tree[node];
        let ln = (parent.n.max(1.0)).ln();
        let (f, k) = (parent.first as usize, parent.count as usize);
        let mut best = f;
        let mut best_v = f32::NEG_INFINITY;
        for (i, ch) in tree[f..f + k].iter().enumerate() {
            let q = if ch.n > 0.0 { ch.w / ch.n } else { 0.5 };
            let mut v = if cfg.rave && ch.rn > 0.0 {
                let beta = ch.rn / (ch.rn + ch.n + ch.n * ch.rn / cfg.rave_equiv as f32);
                (1.0 - beta) * q + beta * (ch.rw / ch.rn)
            } else if ch.n == 0.0 {
                1.1 // first-play urgency
            } else {
                q
            };
            if cfg.explore > 0.0 {
                v += cfg.explore as f32 * (ln / (ch.n + 1.0)).sqrt();
            }
            // A deterministic tie-break that does not favour the board's top-left.
            v += ((i as u32).wrapping_mul(2_654_435_761) >> 16) as f32 * 1e-12;
            if v > best_v {
                best_v = v;
                best = f + i;
            }
        }
        best
    }
}

/// The tree prior of `mv` for `color` (see [`SearchConfig::tree_priors`]): (virtual visits,
/// virtual wins), `unit` visits per heuristic.
fn tree_prior(b: &FastBoard, color: Color, mv: Vtx, last: Option<Vtx>, urgent: &[Vtx], unit: f32) -> (f32, f32) {
    // Even: half a unit at 50%.
    let (mut n, mut w) = (unit * 0.5, unit * 0.25);
    if mv.is_pass() {
        return (unit, 0.0);
    }
    let mut add = |k: f32, q: f32| {
        n += unit * k;
        w += unit * k * q;
    };
    let captures = b
        .neighbours(mv)
        .any(|x| b.color_at(x) == Some(color.other()) && b.in_atari(x));
    if urgent.contains(&mv) {
        add(2.0, 0.9);
    } else if captures {
        add(1.0, 0.8);
    }
    let sa = self_atari_size(b, color, mv);
    if sa >= 2 {
        add(2.0, 0.0);
    } else if sa == 1 && !captures {
        add(1.0, 0.1);
    }
    if let Some(l) = last
        && (b.neighbours(l).any(|x| x == mv) || b.diagonals(l).any(|x| x == mv))
        && super::patterns::matches(b.neighbourhood(mv))
    {
        add(1.0, 0.75);
    }
    // The first line, far from every stone (no stone within Manhattan distance 2).
    let on_edge = b.neighbours(mv).count() < 4;
    if on_edge {
        let lonely = b.neighbours(mv).chain(b.diagonals(mv)).all(|x| b.is_empty(x))
            && b.neighbours(mv)
                .flat_map(|x| b.neighbours(x))
                .all(|y| y == mv || b.is_empty(y));
        if lonely {
            add(1.0, 0.1);
        }
    }
    (n, w)
}

/// Every legal move of `color` that fills no own eye; a pass only when there is none.
pub fn default_moves(board: &FastBoard, color: Color) -> Vec<Vtx> {
    let mut v: Vec<Vtx> = board
        .empty_points()
        .filter(|&p| !board.is_eye(color, p) && board.is_legal(color, p))
        .collect();
    v.sort();
    if v.is_empty() {
        v.push(Vtx::PASS);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Point;

    fn pt(b: &FastBoard, col: u8, row: u8) -> Vtx {
        b.vtx(Point { col, row })
    }

    #[test]
    fn every_policy_plays_only_legal_moves_to_a_finished_board() {
        for policy in [PlayoutPolicy::Uniform, PlayoutPolicy::Capture, PlayoutPolicy::Patterns] {
            for seed in 0..40 {
                let mut b = FastBoard::new(9).unwrap();
                let mut rng = FastRng::new(seed);
                let mut moves = 0;
                b.playout_by(Color::Black, &mut rng, 243, None, |b, c, r| {
                    let v = policy.choose(b, c, r);
                    assert!(b.is_legal(c, v), "{policy:?} seed {seed}: illegal {}", b.gtp(v));
                    assert!(v.is_pass() || !b.is_eye(c, v), "{policy:?} fills its own eye");
                    moves += 1;
                    v
                });
                b.check_invariants().unwrap();
                assert!(b.passes() >= 2 || moves == 243, "{policy:?}: the playout stopped early");
            }
        }
    }

    #[test]
    fn the_pattern_policy_captures_a_stone_the_last_move_left_in_atari() {
        // White's last stone, E5, has one liberty left (E4); Black takes it in every playout.
        let mut b = FastBoard::new(9).unwrap();
        for (c, col, row) in [
            (Color::Black, 3, 4),
            (Color::White, 0, 0),
            (Color::Black, 5, 4),
            (Color::White, 8, 8),
            (Color::Black, 4, 3),
            (Color::White, 4, 4),
        ] {
            b.play(c, pt(&b, col, row)).unwrap();
        }
        let lib = pt(&b, 4, 5);
        assert_eq!(b.atari_liberty(pt(&b, 4, 4)), Some(lib));
        let mut rng = FastRng::new(3);
        for _ in 0..20 {
            let mut t = b.clone();
            assert_eq!(PlayoutPolicy::Patterns.choose(&mut t, Color::Black, &mut rng), lib);
        }
        // The uniform policy does not always.
        let uniform: std::collections::BTreeSet<Vtx> =
            (0..40).map(|_| b.clone().random_move(Color::Black, &mut rng)).collect();
        assert!(uniform.len() > 1);
    }

    #[test]
    fn tree_priors_rank_a_capture_above_a_quiet_move_and_the_search_plays_it() {
        // Black to play; a white chain of three stones in atari in the middle, nothing else urgent
        // (the position is won for Black either way, so the playouts alone barely separate the
        // moves: the capture's lead in visits comes from its prior).
        let mut b = FastBoard::new(9).unwrap();
        let moves = [
            (Color::Black, 3, 3),
            (Color::White, 4, 3),
            (Color::Black, 5, 3),
            (Color::White, 4, 4),
            (Color::Black, 3, 4),
            (Color::White, 4, 5),
            (Color::Black, 5, 4),
            (Color::White, 7, 7),
            (Color::Black, 3, 5),
            (Color::White, 1, 1),
            (Color::Black, 5, 5),
            (Color::White, 1, 7),
            (Color::Black, 4, 2),
        ];
        for (c, col, row) in moves {
            b.play(c, pt(&b, col, row)).unwrap();
        }
        // White extends: E6 -> now the chain E4-E6 (col 4, rows 3..5) has the one liberty below.
        b.play(Color::White, pt(&b, 7, 1)).unwrap();
        let lib = b.atari_liberty(pt(&b, 4, 4)).expect("the white chain is in atari");
        let cfg = SearchConfig {
            playouts: 3000,
            ..SearchConfig::default()
        };
        let none = |_: &FastBoard, _: Color, _: Vtx| None;
        let r = Search::new(&cfg, &b, Color::Black, 7.0, &none).run(None);
        assert_eq!(r.best().unwrap().mv, lib);
        // The prior alone puts the capture first among the root moves before any playout.
        let mut urgent = [Vtx::PASS; 8];
        let k = urgent_moves(&b, Color::Black, pt(&b, 7, 1), &mut urgent);
        let cap = tree_prior(&b, Color::Black, lib, Some(pt(&b, 7, 1)), &urgent[..k], 10.0);
        let quiet = tree_prior(&b, Color::Black, pt(&b, 1, 4), Some(pt(&b, 7, 1)), &urgent[..k], 10.0);
        assert!(cap.1 / cap.0 > quiet.1 / quiet.0 && cap.0 > quiet.0);
    }
}
