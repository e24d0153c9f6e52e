#!/bin/sh
# A family's build plus `verify --with-deps`, under each rule set side by side, timed, with
# the peers beside it:
#   benches/family.sh [CANJU] [ROUNDS] [SIG] [RULES]
# (defaults: target/release/canju, 1 round, KNPKAABB, none,asian). For each rule set in turn
# it builds SIG and every table it falls into in a fresh temporary directory with 2 threads,
# verifies them all, prints the seconds of each step and, after the first rule set, each
# total's ratio to the first's (taken a minute apart on the same machine, never against a
# figure from another hour), and removes the directory. Give two binaries separated by a
# comma to alternate them round by round (A/B on a noisy machine).
#
# The peers, built from their public sources by benches/peers.sh, run in the same round
# where their paths are exported (skipped with a message where not):
#   FELICITY=path/fegtbxq  FelicityEgtb's `-g -core 2` on the same family (it builds and
#                          verifies), in a fresh directory; printed with how many times
#                          canju's total under each rule set is faster
#   PIKAFISH=path/pikafish `go perft PERFT` (default 6) from the start, one thread, after
#                          `canju perft PERFT`, one after the other, with the ratio
set -eu
bins=${1:-target/release/canju}
rounds=${2:-1}
sig=${3:-KNPKAABB}
rules_list=${4:-none,asian}
now() { date +%s.%N; }
perft_depth=${PERFT:-6}
r=0
while [ "$r" -lt "$rounds" ]; do
    for bin in $(echo "$bins" | tr ',' ' '); do
        first=
        totals=
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
            totals="$totals $rules=$total"
        done
        if [ -z "${FELICITY:-}" ]; then
            echo "FelicityEgtb: FELICITY not set (benches/peers.sh builds it); skipped"
        else
            dir=$(mktemp -d "${TMPDIR:-/tmp}/felicity-family.XXXXXX")
            name=$(echo "$sig" | tr 'A-Z' 'a-z')
            s=$(now)
            # its exit status is 1 whether it succeeds or not: its last line tells
            (cd "$dir" && "$FELICITY" -n "$name" -d "$dir" -g -core 2 >"$dir/log" 2>&1) || true
            e=$(now)
            if grep -q "Generating ENDED for $name" "$dir/log"; then
                for t in $totals; do
                    awk -v sig="$sig" -v s="$s" -v e="$e" -v t="$t" 'BEGIN {
                        split(t, kv, "="); f = e - s
                        printf "FelicityEgtb %s -g -core 2: %.2f s; canju --rules %s %.2f s: %.1fx faster\n", sig, f, kv[1], kv[2], f / kv[2] }'
                done
            else
                echo "FelicityEgtb $sig: failed ($(tail -n 1 "$dir/log")); skipped"
            fi
            rm -rf "$dir"
        fi
        if [ -z "${PIKAFISH:-}" ]; then
            echo "Pikafish: PIKAFISH not set (benches/peers.sh builds it); skipped"
        else
            s=$(now)
            ours=$("$bin" perft "$perft_depth" 2>/dev/null)
            m=$(now)
            theirs=$(printf 'position startpos\ngo perft %s\nquit\n' "$perft_depth" | "$PIKAFISH" | sed -n 's/^Nodes searched: //p')
            e=$(now)
            awk -v d="$perft_depth" -v a="$ours" -v b="$theirs" -v s="$s" -v m="$m" -v e="$e" 'BEGIN {
                same = (a == b) ? "the same count" : "COUNTS DIFFER: " a " against " b
                printf "perft %d from the start: canju %.2f s, Pikafish %.2f s: canju %.2fx faster (%s)\n", d, m - s, e - m, (e - m) / (m - s), same }'
        fi
    done
    r=$((r + 1))
done
