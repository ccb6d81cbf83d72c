//! Growth of the engine's append-only tables (the struct's site slots, a level's matches and
//! per-node lists, §3.3.2 and §3.4.1.1 as the timeline stores them): a timeline grows for as long
//! as it is observed, so its large tables grow by a quarter at a time rather than doubling,
//! which would leave up to half of each unused and hold the old and the new table at once while
//! copying. Small ones (under [`SMALL`] bytes) double, so that they are not copied over and
//! over on their way there.
//!
//! Per-node lists of ids ([`Lists`]) are copied a slice at a time when a timeline is copied (a
//! fork's first move), not an id at a time.

use smallvec::SmallVec;

/// A table of short lists of plain ids (per node: the matches or elements holding it), most
/// held inline. A copy copies each list as one slice (`SmallVec`'s own `Clone` pushes its items
/// one by one).
#[derive(Debug, Default)]
pub(crate) struct Lists<T: Copy, const N: usize>(pub Vec<SmallVec<[T; N]>>);

impl<T: Copy, const N: usize> Clone for Lists<T, N> {
    fn clone(&self) -> Self {
        Lists(self.0.iter().map(|v| SmallVec::from_slice(v)).collect())
    }
}

impl<T: Copy, const N: usize> std::ops::Deref for Lists<T, N> {
    type Target = Vec<SmallVec<[T; N]>>;
    #[inline(always)]
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<T: Copy, const N: usize> std::ops::DerefMut for Lists<T, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// Room for `extra` more items in `v`: when it is full, its capacity doubles while the table is
/// under [`SMALL`] bytes, and grows by a quarter after that (at least `extra`, at least 16).
/// Growth stays geometric, so a push costs O(1) amortised.
///
/// A small table is copied each time it grows (the allocator cannot extend it in place when
/// something was allocated after it), so growing it by a quarter would copy it about four times
/// over on its way to [`SMALL`] bytes, against once by doubling; what doubling leaves unused is
/// at most half of a small table. A large table is what the quarter is for.
#[inline]
pub(crate) fn grow<T>(v: &mut Vec<T>, extra: usize) {
    if v.capacity() - v.len() < extra {
        let cap = v.capacity();
        let step = if cap.saturating_mul(size_of::<T>()) < SMALL {
            cap
        } else {
            cap / 4
        };
        v.reserve_exact(extra.max(step).max(16));
    }
}

/// Makes index `i` of `v` exist, as [`grow`] grows a table, filling what is added with `fill`.
#[inline]
pub(crate) fn cover<T: Clone>(v: &mut Vec<T>, i: usize, fill: T) {
    if v.len() <= i {
        grow(v, i + 1 - v.len());
        v.resize(i + 1, fill);
    }
}

/// The size in bytes under which a table doubles when it grows: the binary maps blocks of
/// 1 MiB or more on their own for a command that classifies one record (`src/main.rs`), and
/// those grow in place.
pub(crate) const SMALL: usize = 1 << 20;

/// Heap bytes of a `Vec`'s buffer (its capacity).
#[inline]
pub(crate) fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * size_of::<T>()
}

/// Heap bytes of an `Arc<T>`'s allocation: its two counters and the value.
pub(crate) const fn arc_bytes<T>() -> usize {
    2 * size_of::<usize>() + size_of::<T>()
}

/// Heap bytes of a `SmallVec`: its buffer once spilled, none while its items are inline.
#[inline]
pub(crate) fn small_bytes<A: smallvec::Array>(v: &SmallVec<A>) -> usize {
    if v.spilled() {
        v.capacity() * size_of::<A::Item>()
    } else {
        0
    }
}

/// Heap bytes of a table of short lists: its buffer and each list's, once spilled.
pub(crate) fn lists_bytes<A: smallvec::Array>(v: &Vec<SmallVec<A>>) -> usize {
    vec_bytes(v) + v.iter().map(small_bytes).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::{Lists, SMALL, grow};

    /// A copy of per-node lists holds the same ids in the same lists, inline or spilled, and is
    /// independent of the original.
    #[test]
    fn lists_copy_as_they_are() {
        let mut a: Lists<u32, 2> = Lists::default();
        for k in 0..50u32 {
            a.push((0..k % 5).map(|i| k * 10 + i).collect());
        }
        let mut b = a.clone();
        let as_vecs = |l: &Lists<u32, 2>| l.iter().map(|v| v.to_vec()).collect::<Vec<_>>();
        assert_eq!(as_vecs(&a), as_vecs(&b));
        assert!(a.iter().zip(b.iter()).all(|(x, y)| x.spilled() == y.spilled()));
        b[3].push(7);
        assert_ne!(a[3], b[3]);
    }

    #[test]
    fn growth_doubles_small_tables_and_leaves_large_ones_a_quarter_unused() {
        let mut v: Vec<u64> = Vec::new();
        let mut reallocations = 0;
        for i in 0..400_000u64 {
            let cap = v.capacity();
            grow(&mut v, 1);
            if v.capacity() != cap {
                // A table outgrown past SMALL bytes grows by a quarter, a smaller one doubles.
                let bound = if cap * 8 >= SMALL {
                    cap + cap / 4
                } else {
                    (2 * cap).max(16)
                };
                assert_eq!(v.capacity(), bound, "grown from {cap}");
                reallocations += 1;
            }
            v.push(i);
        }
        assert!(v.capacity() <= v.len() * 5 / 4 + 1, "{} of {}", v.len(), v.capacity());
        // geometric: 13 doublings to 128 Ki items (1 MiB), then log_{1.25}(400_000 / 131_072)
        // quarters, not one per push
        assert!(reallocations < 20, "{reallocations}");
    }
}
