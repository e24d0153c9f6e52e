#!/bin/sh
# The 马兵对士象全 family's build plus `verify --with-deps` (issue 12's 28 s target), timed:
#   benches/family.sh [CANJU] [ROUNDS]
# builds KNPKAABB and its 35 sub-tables into a fresh temporary directory with 2 threads
# (--rules none), verifies all 36, prints the seconds of each step, removes the directory.
# Give two binaries separated by a comma to alternate them round by round (A/B on a noisy
# machine: compare runs side by side, not against a figure from another hour).
set -eu
bins=${1:-target/release/canju}
rounds=${2:-1}
now() { date +%s.%N; }
r=0
while [ "$r" -lt "$rounds" ]; do
    for bin in $(echo "$bins" | tr ',' ' '); do
        dir=$(mktemp -d "${TMPDIR:-/tmp}/canju-family.XXXXXX")
        s=$(now)
        "$bin" gen KNPKAABB --rules none --threads 2 --dir "$dir" >/dev/null
        m=$(now)
        "$bin" verify KNPKAABB --with-deps --rules none --threads 2 --dir "$dir" >/dev/null
        e=$(now)
        rm -rf "$dir"
        awk -v b="$bin" -v s="$s" -v m="$m" -v e="$e" \
            'BEGIN { printf "%s: gen %.2f s, verify %.2f s, total %.2f s\n", b, m - s, e - m, e - s }'
    done
    r=$((r + 1))
done
