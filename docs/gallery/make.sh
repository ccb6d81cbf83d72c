#!/usr/bin/env bash
# Regenerates the pictures of docs/gallery.md with the `ets dot` command itself, on records that ship in
# the repository: `bash docs/gallery/make.sh` (from the repository's root; graphviz draws the struct
# picture when installed, layout-rs otherwise; everything else is drawn the same way on every machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet
ets=target/release/ets
out=docs/gallery
game=tests/data/games/9x9/Japan_Go_Seigen_1968-08-00.sgf
long=tests/data/games/tom-9d/2005-01-8557986.sgf
draw() { local name=$1; shift; "$ets" dot "$@" -o "$out/$name"; echo "wrote $out/$name"; }

# One real position at each level: the chunks on the board, and the overlap graph anchored at its vertices.
draw level0_board.svg $game --move 30 --level 0 --highlight black_stone,white_stone --render svg
draw level0_overlap.svg $game --move 30 --view overlap --level 0 \
  --highlight black_stone,white_stone,black_beside_white,adjacent_blacks,adjacent_whites --render svg
draw level1_board.svg $game --move 30 --level 1 \
  --highlight black_block,white_block,black_one_point_jump,white_one_point_jump --render svg
draw level1_overlap.svg $game --move 30 --view overlap --level 1 --render svg \
  --highlight black_block,white_block,black_one_point_jump,white_one_point_jump,black_diagonal_jump,white_diagonal_jump,black_knights_jump,white_knights_jump,block_interface
draw level1_force.svg $game --move 30 --view overlap --level 1 --layout force --render svg \
  --highlight black_block,white_block,black_one_point_jump,white_one_point_jump,black_diagonal_jump,white_diagonal_jump,black_knights_jump,white_knights_jump,block_interface
draw level2_board.svg $game --move 30 --render svg
draw level2_overlap.svg $game --move 30 --view overlap --level 2 --render svg

# A whole 19x19 game (256 moves): the default picture, and one corner's level-1 overlap graph.
draw game_board.svg $long --render svg
draw game_corner_overlap.svg $long --view overlap --level 1 --region A19:G13 --render svg

# A struct of another domain: a shopping trip generated from the bank setting (Figs. 3.1–3.2), primitives
# as records whose ports are their sites, processes from port to port, the element outlined.
bank="examples/bank/alphabet.ets examples/bank/bank.ets"
"$ets" generate --setting $bank --class shopping_trip --seed 1 > "$out/bank_trip.json"
draw bank_struct.svg --struct "$out/bank_trip.json" --setting $bank --highlight shopping_trip --render svg
rm "$out/bank_trip.json"
