#!/bin/sh
# The whole rule's two bounds (issue 41), side by side with the build without the rule: a table
# built under `--rules asian` takes at most 2x the time of the same table under `--rules none`,
# and its peak memory is at most 2 bytes an entry (both sides to move).
#   benches/rule_bounds.sh [CANJU] [ROUNDS] [SIG...]
# (defaults: target/release/canju, 3 rounds, KRPKR KRNKR). For each endgame it builds the tables
# it falls into under both rule sets once, in a fresh temporary directory; then, ROUNDS times,
# the top table alone (--no-deps, 2 threads) under none and under asian, one right after the
# other (none first in odd rounds, asian first in even ones, so that neither always runs on the
# machine the other has just warmed or tired), and prints both times, their ratio and the asian
# build's peak resident memory (GNU time's %M, KB of 1,024 bytes) per entry. This machine's
# speed drifts from one hour to the next, `none` included, so each ratio is taken between two
# runs a few seconds apart, never against a figure from another hour. The last line per
# endgame gives the median ratio, the range, and whether the bounds held in every round.
set -eu
bin=${1:-target/release/canju}
rounds=${2:-3}
[ $# -gt 2 ] && shift 2 || set -- KRPKR KRNKR
timer=/usr/bin/time
[ -x "$timer" ] || { echo "rule_bounds: needs GNU time at $timer (Debian: apt-get install time)" >&2; exit 2; }
for sig in "$@"; do
    dir=$(mktemp -d "${TMPDIR:-/tmp}/canju-bounds.XXXXXX")
    trap 'rm -rf "$dir"' EXIT
    "$bin" gen "$sig" --rules none --threads 2 --dir "$dir" >/dev/null
    "$bin" gen "$sig" --rules asian --threads 2 --dir "$dir" >/dev/null
    entries=$("$bin" info "$sig" | sed -n 's/^index size: \([0-9,]*\) per side to move$/\1/p' | tr -d ,)
    [ -n "$entries" ] || { echo "rule_bounds: no index size for $sig" >&2; exit 2; }
    log=$dir/rounds
    : >"$log"
    r=1
    while [ "$r" -le "$rounds" ]; do
        if [ $((r % 2)) -eq 1 ]; then order="none asian"; else order="asian none"; fi
        for rules in $order; do
            rm -f "$dir/$sig.ctb" "$dir/$sig.asian.ctb"
            "$timer" -f "%e %M" -o "$dir/$rules.time" \
                "$bin" gen "$sig" --no-deps --rules "$rules" --threads 2 --dir "$dir" >/dev/null
        done
        read -r none none_kb <"$dir/none.time"
        read -r asian kb <"$dir/asian.time"
        echo "$r $none $asian $kb" >>"$log"
        awk -v sig="$sig" -v r="$r" -v n="$none" -v a="$asian" -v nkb="$none_kb" -v kb="$kb" -v e="$entries" 'BEGIN {
            printf "%s round %d: none %.2f s, %d KB; asian %.2f s (%.2fx), %d KB = %.2f bytes an entry\n",
                sig, r, n, nkb, a, a / n, kb, kb * 1024 / (2 * e) }'
        r=$((r + 1))
    done
    # the median of the rounds' ratios: the middle one, or the mean of the middle two
    median=$(awk '{ print $3 / $2 }' "$log" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    awk -v sig="$sig" -v e="$entries" -v median="$median" '
        { t = $3 / $2; b = $4 * 1024 / (2 * e)
          if (NR == 1 || t < tmin) tmin = t; if (NR == 1 || t > tmax) tmax = t
          if (NR == 1 || b < bmin) bmin = b; if (NR == 1 || b > bmax) bmax = b }
        END { printf "%s: time median %.2fx none, %.2f-%.2fx (bound 2x: %s), memory %.2f-%.2f bytes an entry (bound 2: %s), %d rounds\n",
                  sig, median, tmin, tmax, tmax <= 2 ? "held" : (tmin <= 2 ? "held in some rounds" : "missed"),
                  bmin, bmax, bmax <= 2 ? "held" : (bmin <= 2 ? "held in some rounds" : "missed"), NR }' "$log"
    rm -rf "$dir"
    trap - EXIT
done
