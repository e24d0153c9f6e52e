#!/bin/sh
# A family's build plus `verify --with-deps`, under each rule set side by side, timed:
#   benches/family.sh [CANJU] [ROUNDS] [SIG] [RULES]
# (defaults: target/release/canju, 1 round, KNPKAABB, none,asian). For each rule set in turn
# it builds SIG and every table it falls into in a fresh temporary directory with 2 threads,
# verifies them all, prints the seconds of each step and, after the first rule set, each
# total's ratio to the first's (taken a minute apart on the same machine, never against a
# figure from another hour), and removes the directory. Give two binaries separated by a
# comma to alternate them round by round (A/B on a noisy machine).
set -eu
bins=${1:-target/release/canju}
rounds=${2:-1}
sig=${3:-KNPKAABB}
rules_list=${4:-none,asian}
now() { date +%s.%N; }
r=0
while [ "$r" -lt "$rounds" ]; do
    for bin in $(echo "$bins" | tr ',' ' '); do
        first=
        for rules in $(echo "$rules_list" | tr ',' ' '); do
            dir=$(mktemp -d "${TMPDIR:-/tmp}/canju-family.XXXXXX")
            s=$(now)
            "$bin" gen "$sig" --rules "$rules" --threads 2 --dir "$dir" >/dev/null
            m=$(now)
            "$bin" verify "$sig" --with-deps --rules "$rules" --threads 2 --dir "$dir" >/dev/null
            e=$(now)
            rm -rf "$dir"
            total=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }')
            [ -n "$first" ] || first=$total
            awk -v b="$bin" -v sig="$sig" -v rules="$rules" -v s="$s" -v m="$m" -v e="$e" \
                -v t="$total" -v f="$first" \
                'BEGIN { printf "%s %s --rules %s: gen %.2f s, verify %.2f s, total %.2f s, %.2fx the first\n", b, sig, rules, m - s, e - m, t, t / f }'
        done
    done
    r=$((r + 1))
done
