#!/usr/bin/env bash
# Rebuilds sample_logs/ exactly (same seeds, same bytes). Run from the repository root:
#   bash sample_logs/make.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TL=${TL:-.venv/bin/trickledger}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one curated game: name, then simulate options
one() {
    local dest=$1; shift
    rm -rf "$tmp/one"
    "$TL" simulate --games 1 --id-prefix "$(basename "$dest" .jsonl)" --out "$tmp/one" "$@" >/dev/null
    mkdir -p "$(dirname "sample_logs/$dest")"
    mv "$tmp"/one/*.jsonl "sample_logs/$dest"
}

one plotters/plotters-4p-early-end.jsonl     --game plotters --players 4 --seed 2
one plotters/plotters-5p-claims.jsonl        --game plotters --players 5 --seed 1 --bots greedy,random --edition plotters-inc --wrong-claims 0.04
one plotters/plotters-6p.jsonl               --game plotters --players 6 --seed 1

one rage/rage-3p-plus-minus-one-marching.jsonl --game rage --players 3 --seed 1 --variants plus_minus_one,marching_through --claims
one rage/rage-5p-hidden-bid.jsonl            --game rage --players 5 --seed 2 --variants hidden_bid --bots greedy,random
one rage/rage-8p-secret-bid-claims.jsonl     --game rage --players 8 --seed 1 --bots greedy,random --variants secret_bid --wrong-claims 0.01

one color_stacks/color-stacks-2p.jsonl       --game color_stacks --players 2 --seed 1 --claims
one color_stacks/color-stacks-3p.jsonl       --game color_stacks --players 3 --seed 1
one color_stacks/color-stacks-4p.jsonl       --game color_stacks --players 4 --seed 1
one color_stacks/color-stacks-3p-three-rounds.jsonl --game color_stacks --players 3 --seed 2 --variants three_rounds --claims

one under_the_radar/under-the-radar-3p.jsonl --game under_the_radar --players 3 --seed 1
one under_the_radar/under-the-radar-5p-3-rounds.jsonl --game under_the_radar --players 5 --seed 1 --rounds 3 --claims
one under_the_radar/under-the-radar-7p.jsonl --game under_the_radar --players 7 --seed 1 --bots greedy,random

# score sheets: the sheet a table would have kept of a simulated game (only the sheet is kept)
sheet() {
    local dest=$1; shift
    rm -rf "$tmp/sheet"
    "$TL" simulate --games 1 --sheets --id-prefix "$(basename "$dest" .sheet.jsonl)" --out "$tmp/sheet" "$@" >/dev/null
    mkdir -p "$(dirname "sample_logs/$dest")"
    mv "$tmp"/sheet/*.sheet.jsonl "sample_logs/$dest"
}

sheet sheets/plotters-4p.sheet.jsonl         --game plotters --players 4 --seed 12 --wrong-claims 0.05
sheet sheets/rage-4p.sheet.jsonl             --game rage --players 4 --seed 11 --variants plus_minus_one --claims
sheet sheets/color-stacks-4p.sheet.jsonl     --game color_stacks --players 4 --seed 11 --variants three_rounds --claims
sheet sheets/under-the-radar-6p.sheet.jsonl  --game under_the_radar --players 6 --seed 11 --rounds 3 --claims

# the corpus: a few hundred games, mixed tables, bots, variants, some wrong claims and illegal moves
rm -rf sample_logs/corpus
"$TL" simulate --game plotters        --games 80 --seed 7 --bots greedy,random,greedy --edition mixed --wrong-claims 0.01 --illegal 0.04 --jobs 1 --out sample_logs/corpus/plotters
"$TL" simulate --game rage            --games 80 --seed 7 --bots greedy,random --variants random --wrong-claims 0.005 --illegal 0.04 --jobs 1 --out sample_logs/corpus/rage
"$TL" simulate --game color_stacks    --games 80 --seed 7 --bots greedy,random --variants random --wrong-claims 0.02 --illegal 0.04 --jobs 1 --out sample_logs/corpus/color_stacks
"$TL" simulate --game under_the_radar --games 80 --seed 7 --bots greedy,random --rounds 2 --wrong-claims 0.01 --illegal 0.04 --jobs 1 --out sample_logs/corpus/under_the_radar
