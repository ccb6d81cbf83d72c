#!/usr/bin/env bash
# compare-json.sh NEW OLD [GAME...]: whether two `ets` binaries print the same classification JSON.
# Per game (default: three shipped tom-9d games and, when ../shared is present, three 9x9 pro games): `--move N` for
# N = 40, 120, 200, full and focus attention, with and without `--all`; and `--timeline` in full, focus and sweep
# attention. Prints each difference and a count; exits 1 when any differ.
set -uo pipefail
NEW=$1; OLD=$2; shift 2
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then files=("$@"); else
  files=($(ls tests/data/games/tom-9d/*.sgf | head -3) $(ls ../shared/data/games/9x9/*.sgf 2>/dev/null | head -3))
fi
n=0; bad=0
same() { # args: the command's arguments
  local a b
  a=$("$NEW" "$@" 2>&1 | md5sum); b=$("$OLD" "$@" 2>&1 | md5sum)
  n=$((n + 1)); [ "$a" == "$b" ] || { bad=$((bad + 1)); echo "DIFF: $*"; }
}
for f in "${files[@]}"; do
  for m in 40 120 200; do for att in full focus; do for all in "" "--all"; do
    same classify "$f" --move $m --level 2 --attention $att $all --format json
  done; done; done
  for att in full focus sweep; do same classify "$f" --timeline --level 2 --attention $att; done
done
echo "$n runs, $bad differ"
[ "$bad" -eq 0 ]
