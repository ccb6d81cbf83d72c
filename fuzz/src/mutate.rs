//! Inputs: seeds (real records, the class setting) and deterministic, structure-aware mutations of
//! them, so that input `i` of a run is a pure function of (target, seed, i) and any input the
//! driver reports can be made again from its number.

/// SplitMix64: small, fast, and enough for choosing mutations.
pub struct Rng(u64);

impl Rng {
    /// A generator for input `i` of a run with seed `seed`.
    pub fn new(seed: u64, i: u64) -> Rng {
        let mut r = Rng(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next();
        r
    }
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    /// One of the items.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Tokens an SGF mutation inserts.
const SGF_TOKENS: &[&[u8]] = &[
    b"(",
    b")",
    b";",
    b"[",
    b"]",
    b"\\",
    b"\\]",
    b"(;",
    b")(",
    b";B[]",
    b";W[tt]",
    b";B[aa]",
    b";W[ss]",
    b";B[zz]",
    b";W[ZZ]",
    b";B[a]",
    b";W[abc]",
    b"AB[aa:ss]",
    b"AW[ab][ba]",
    b"AE[aa:zz]",
    b"AB[ss:aa]",
    b"PL[W]",
    b"PL[x]",
    b"HA[9]",
    b"HA[-1]",
    b"KM[6,5]",
    b"SZ[0]",
    b"SZ[1]",
    b"SZ[2]",
    b"SZ[5]",
    b"SZ[19:9]",
    b"SZ[25]",
    b"SZ[52]",
    b"SZ[53]",
    b"SZ[100]",
    b"SZ[abc]",
    b"SZ[4294967296]",
    b"GM[2]",
    b"FF[3]",
    b"CA[Shift_JIS]",
    b"CA[UTF-16]",
    b"CA[nosuch]",
    b"CA[Big5]",
    b"PB[\x83\x5c]",
    b"PW[\xa9\x5d]",
    b"C[\\\n]",
    b"AddBlack[aa]",
    b"Black[bb]",
    b"xx[yy]",
    b"\r",
    b"\r\n",
    b"\xEF\xBB\xBF",
    b"\xFF\xFE",
    b"\x00",
    b"B[aa]B[bb]",
    b"MN[-5]",
];

/// Board sizes small enough for the pipeline.
const SMALL: &[u8] = &[1, 2, 3, 4, 5, 7, 9];

fn coord(r: &mut Rng) -> u8 {
    *r.pick(b"abcdefghijklmnopqrsstuvwxyzAZ")
}

/// A small random game: a size, some setup, moves (passes, off-board points and repeats
/// included), sometimes variations.
pub fn small_game(r: &mut Rng) -> Vec<u8> {
    let size = *r.pick(SMALL);
    let span = |r: &mut Rng| -> u8 {
        if r.below(10) == 0 {
            coord(r)
        } else {
            b'a' + r.below(size as usize) as u8
        }
    };
    let mut out = format!("(;GM[1]FF[4]SZ[{size}]").into_bytes();
    if r.below(4) == 0 {
        out.extend_from_slice(b"AB");
        for _ in 0..1 + r.below(4) {
            out.extend_from_slice(&[b'[', span(r), span(r), b']']);
        }
    }
    let moves = r.below(30);
    let mut colour = b'B';
    for _ in 0..moves {
        if r.below(12) == 0 {
            out.push(b'(');
        }
        out.extend_from_slice(&[b';', colour, b'[']);
        if r.below(15) != 0 {
            out.extend_from_slice(&[span(r), span(r)]);
        }
        out.push(b']');
        if r.below(12) == 0 {
            out.push(b')');
        }
        if r.below(20) != 0 {
            colour = if colour == b'B' { b'W' } else { b'B' };
        }
    }
    out.push(b')');
    out
}

/// One structure-aware mutation of an SGF text.
fn mutate_sgf_once(r: &mut Rng, d: &mut Vec<u8>, seeds: &[Vec<u8>]) {
    let len = d.len();
    let at = r.below(len + 1);
    match r.below(12) {
        0 if len > 0 => d[r.below(len)] = r.next() as u8,
        1 if len > 0 => {
            let a = r.below(len);
            let b = (a + 1 + r.below(16)).min(len);
            d.drain(a..b);
        }
        2 if len > 0 => {
            let a = r.below(len);
            let b = (a + 1 + r.below(64)).min(len);
            let chunk = d[a..b].to_vec();
            let times = if r.below(8) == 0 { 1 + r.below(200) } else { 1 };
            for _ in 0..times {
                d.splice(at..at, chunk.iter().copied());
            }
        }
        3..=5 => {
            let t = *r.pick(SGF_TOKENS);
            d.splice(at..at, t.iter().copied());
        }
        6 => d.truncate(at),
        7 => {
            let o = r.pick(seeds);
            let b = r.below(o.len() + 1);
            d.truncate(at);
            d.extend_from_slice(&o[b..]);
        }
        8 => {
            // a coordinate pair inside brackets replaced
            if let Some(k) = d.iter().skip(at).position(|&b| b == b'[') {
                let k = at + k + 1;
                if k + 2 <= d.len() {
                    d[k] = coord(r);
                    d[k + 1] = coord(r);
                }
            }
        }
        9 if len > 0 => {
            // a range wrapped in a variation
            let b = (at + r.below(64)).min(len);
            d.insert(b, b')');
            d.insert(at, b'(');
        }
        10 => {
            let mut g = small_game(r);
            g.truncate(g.len().saturating_sub(1));
            let a = g.iter().position(|&b| b == b';').unwrap_or(0);
            d.splice(at..at, g[a..].iter().copied());
        }
        _ => {
            // a multi-byte character in some legacy charset, or its halves
            const HALVES: [&[u8]; 6] = [b"\x83\x5c", b"\x8d\x5d", b"\xa9\x5d", b"\xb0\xa1", b"\xe3\x81", b"\x81"];
            let t = r.pick(&HALVES);
            d.splice(at..at, t.iter().copied());
        }
    }
}

/// The inputs that no mutation of a seed reaches in time: huge nesting, huge lines, endless
/// passes, long runs of zeros and of warnings. Input `k` of this list.
pub fn giant(k: usize) -> Vec<u8> {
    let n = 100_000;
    match k % 8 {
        0 => {
            let mut t = b"(;SZ[19]".to_vec();
            for i in 0..n {
                t.extend_from_slice(if i % 2 == 0 { b"(;B[aa]" } else { b"(;W[]" });
            }
            t.extend(std::iter::repeat_n(b')', n + 1));
            t
        }
        1 => {
            let mut t = b"(;SZ[19]".to_vec();
            for i in 0..n {
                t.extend_from_slice(if i % 2 == 0 { b";B[]" } else { b";W[]" });
            }
            t.push(b')');
            t
        }
        2 => {
            let mut t = b"(;SZ[9]".to_vec();
            for i in 0..n {
                let p = [b'a' + (i % 9) as u8, b'a' + ((i / 9) % 9) as u8];
                t.extend_from_slice(if i % 2 == 0 { b";B[" } else { b";W[" });
                t.extend_from_slice(&p);
                t.push(b']');
            }
            t.push(b')');
            t
        }
        3 => vec![0u8; 1 << 20],
        4 => {
            // 100,000 warnings: a move onto a stone each
            let mut t = b"(;SZ[19]".to_vec();
            for _ in 0..n {
                t.extend_from_slice(b";B[dd]");
            }
            t.push(b')');
            t
        }
        5 => {
            let mut t = b"(;SZ[52]".to_vec();
            for i in 0..n {
                t.extend_from_slice(b";B[");
                t.push(b'a' + (i % 26) as u8);
                t.push(b'A' + ((i / 26) % 26) as u8);
                t.push(b']');
            }
            t.push(b')');
            t
        }
        6 => {
            let mut t = b"(".to_vec();
            t.extend(std::iter::repeat_n(b'(', n));
            t
        }
        _ => {
            let mut t = b"(;C[".to_vec();
            t.extend(std::iter::repeat_n(b'\\', 2 * n));
            t.extend_from_slice(b"]AB");
            for _ in 0..n {
                t.extend_from_slice(b"[aa:ss]");
            }
            t.push(b')');
            t
        }
    }
}

/// Input `i` of an SGF run: a seed (or a small random game) with 1–8 mutations; every
/// 50,000th input a giant.
pub fn sgf_input(seed: u64, i: u64, seeds: &[Vec<u8>], small_only: bool) -> Vec<u8> {
    if i % 50_000 == 49_999 {
        return giant((i / 50_000) as usize);
    }
    let mut r = Rng::new(seed, i);
    let mut d = if small_only || seeds.is_empty() || r.below(3) == 0 {
        small_game(&mut r)
    } else {
        r.pick(seeds).clone()
    };
    let k = 1 + r.below(8);
    for _ in 0..k {
        mutate_sgf_once(&mut r, &mut d, seeds);
    }
    d
}

/// Input `i` of a class-language run: a seed file with words of the seeds inserted, deleted,
/// duplicated, swapped, and bytes changed.
pub fn dsl_input(seed: u64, i: u64, seeds: &[Vec<u8>], words: &[Vec<u8>]) -> Vec<u8> {
    let mut r = Rng::new(seed, i);
    let mut d = r.pick(seeds).clone();
    if i % 50_000 == 49_999 {
        // deep nesting and long lines
        let k = (i / 50_000) as usize;
        let open: &[u8] = [&b"("[..], b"{", b"["][k % 3];
        d.extend(std::iter::repeat_n(open[0], 100_000));
        return d;
    }
    for _ in 0..1 + r.below(6) {
        let len = d.len();
        let at = r.below(len + 1);
        match r.below(6) {
            0 if len > 0 => d[r.below(len)] = r.next() as u8,
            1 if len > 0 => {
                let b = (at + 1 + r.below(40)).min(len);
                d.drain(at.min(len)..b);
            }
            2 | 3 => {
                let w = r.pick(words);
                d.splice(at..at, w.iter().copied().chain([b' ']));
            }
            4 if len > 0 => {
                let a = r.below(len);
                let b = (a + 1 + r.below(200)).min(len);
                let chunk = d[a..b].to_vec();
                d.splice(at..at, chunk);
            }
            _ => d.truncate(at),
        }
    }
    d
}

/// The distinct words and punctuation of the seeds (the mutation dictionary).
pub fn words_of(seeds: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut w: Vec<Vec<u8>> = Vec::new();
    for s in seeds {
        for tok in s.split(|b| b.is_ascii_whitespace()) {
            if !tok.is_empty() && tok.len() < 40 {
                w.push(tok.to_vec());
            }
        }
        for &b in s {
            if b.is_ascii_punctuation() {
                w.push(vec![b]);
            }
        }
    }
    w.sort();
    w.dedup();
    w
}
