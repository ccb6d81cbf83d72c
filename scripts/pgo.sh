#!/usr/bin/env bash
# A profile-guided build of the `ets` binary (docs/performance.md, "A profile-guided build").
#
#   scripts/pgo.sh            builds target/pgo/use/release/ets
#
# 1. builds `ets` instrumented (`-Cprofile-generate`) in target/pgo/gen;
# 2. trains it on the records shipped in tests/data/games and nothing else (the corpus in ../shared, on which item 5
#    of issue 14 is measured, is left out): every 19x19 and 9x9 record classified at levels 0-2 with full and with focus
#    attention (`--timeline`), and `ets bench --classify` on one of them (the live loop of the Game API, a fork, one
#    position);
# 3. merges the profile with the toolchain's `llvm-profdata` (`rustup component add llvm-tools`);
# 4. builds `ets` again with the profile (`-Cprofile-use`) in target/pgo/use, with `ETS_BUILD_PROFILE=pgo` so that
#    `ets bench` says which build it measured.
# The code is the same as `cargo build --release`'s; only the compiler's choices (inlining, block layout) differ.
# Only the `ets` binary: a build of the examples, tests or benches compiles the library anew (cargo unifies the
# dev-dependencies' features in), and a profile taken with the binary's build then has no effect on it (measured: an
# example built so ran as many instructions as without the profile), so criterion's figures are the plain build's.
set -euo pipefail
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  echo "pgo.sh: llvm-profdata is not in the toolchain; install it with: rustup component add llvm-tools" >&2
  exit 2
fi
out="$PWD/target/pgo"
flags="${RUSTFLAGS:-}"
rm -rf "$out/data"
mkdir -p "$out/data"
echo "pgo.sh: 1/4 the instrumented build (target/pgo/gen)" >&2
# (`ETS_BUILD_PROFILE` in both builds: the two compile the same code, so that the profile's functions match.)
ETS_BUILD_PROFILE=pgo RUSTFLAGS="$flags -Cprofile-generate=$out/data" CARGO_TARGET_DIR="$out/gen" \
  cargo build --release --bin ets
gen="$out/gen/release/ets"
echo "pgo.sh: 2/4 training on the shipped records (tests/data/games)" >&2
for g in tests/data/games/tom-9d/*.sgf tests/data/games/alphago/*.sgf tests/data/games/9x9/*.sgf; do
  for a in full focus; do
    "$gen" classify "$g" --timeline --level 2 --attention "$a" --format json > /dev/null
  done
done
"$gen" bench --classify tests/data/games/tom-9d/2005-01-8557986.sgf --reps 1 > /dev/null
echo "pgo.sh: 3/4 merging the profile (target/pgo/ets.profdata)" >&2
"$profdata" merge -o "$out/ets.profdata" "$out"/data/*.profraw
echo "pgo.sh: 4/4 the build with the profile (target/pgo/use)" >&2
ETS_BUILD_PROFILE=pgo RUSTFLAGS="$flags -Cprofile-use=$out/ets.profdata" CARGO_TARGET_DIR="$out/use" \
  cargo build --release --bin ets
echo "pgo.sh: built $out/use/release/ets" >&2
