//! Growth of the engine's append-only tables (the struct's site slots, a level's matches and
//! per-node lists, §3.3.2 and §3.4.1.1 as the timeline stores them): a timeline grows for as long
//! as it is observed, so its largest tables grow by a quarter at a time rather than doubling,
//! which would leave up to half of each unused and hold the old and the new table at once while
//! copying.

/// Room for `extra` more items in `v`: when it is full, its capacity grows by a quarter (at
/// least `extra`, at least 16). Growth stays geometric, so a push costs O(1) amortised.
#[inline]
pub(crate) fn grow<T>(v: &mut Vec<T>, extra: usize) {
    if v.capacity() - v.len() < extra {
        v.reserve_exact(extra.max(v.capacity() / 4).max(16));
    }
}

#[cfg(test)]
mod tests {
    use super::grow;

    #[test]
    fn growth_leaves_at_most_a_quarter_unused_and_stays_geometric() {
        let mut v: Vec<u32> = Vec::new();
        let mut reallocations = 0;
        for i in 0..100_000u32 {
            let cap = v.capacity();
            grow(&mut v, 1);
            if v.capacity() != cap {
                reallocations += 1;
            }
            v.push(i);
            assert!(
                v.capacity() <= (v.len() * 5 / 4).max(64) + 1,
                "{} of {}",
                v.len(),
                v.capacity()
            );
        }
        // geometric: about log_{1.25}(100_000 / 16) + 4 reallocations, not one per push
        assert!(reallocations < 60, "{reallocations}");
    }
}
