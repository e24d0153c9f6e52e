#!/bin/sh
# Two builds of canju side by side on the whole rule's time bound (issue 41): for each round,
# binary A builds the top table under `none` and then under `asian`, and binary B does the
# same right after (--no-deps, 2 threads), so that both see the same hour of a machine whose
# speed drifts. Prints every run, then each binary's median ratio, its range, and its median
# times. A change of a few percent shows only this way, never against a figure from another
# hour.
#   benches/rule_ab.sh A B [ROUNDS] [SIG]
# (defaults: 10 rounds, KRPKR). The sub-tables are built once, by A, under both rule sets,
# in a fresh temporary directory; both binaries must write the same format.
set -eu
[ $# -ge 2 ] || { echo "usage: benches/rule_ab.sh A B [ROUNDS] [SIG]" >&2; exit 2; }
a=$1
b=$2
rounds=${3:-10}
sig=${4:-KRPKR}
timer=/usr/bin/time
[ -x "$timer" ] || { echo "rule_ab: needs GNU time at $timer (Debian: apt-get install time)" >&2; exit 2; }
for bin in "$a" "$b"; do
    [ -x "$bin" ] || { echo "rule_ab: $bin: not an executable" >&2; exit 2; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/canju-ab.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$a" gen "$sig" --rules none --threads 2 --dir "$dir" >/dev/null
"$a" gen "$sig" --rules asian --threads 2 --dir "$dir" >/dev/null
log=$dir/runs
: >"$log"
r=1
while [ "$r" -le "$rounds" ]; do
    for which in A B; do
        if [ "$which" = A ]; then bin=$a; else bin=$b; fi
        for rules in none asian; do
            rm -f "$dir/$sig.ctb" "$dir/$sig.asian.ctb"
            "$timer" -f "%e" -o "$dir/time" \
                "$bin" gen "$sig" --no-deps --rules "$rules" --threads 2 --dir "$dir" >/dev/null
            echo "$r $which $rules $(cat "$dir/time")" >>"$log"
        done
        awk -v s="$sig" -v r="$r" -v w="$which" '$1 == r && $2 == w { t[$3] = $4 } END {
            printf "%s round %d %s: none %.2f s, asian %.2f s (%.2fx)\n", s, r, w, t["none"], t["asian"], t["asian"] / t["none"] }' \
            "$log"
    done
    r=$((r + 1))
done
# the medians, per binary: ratio, none, asian
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for which in A B; do
    if [ "$which" = A ]; then bin=$a; else bin=$b; fi
    awk -v w="$which" '$2 == w { t[$1 "," $3] = $4; if ($1 > n) n = $1 }
        END { for (r = 1; r <= n; r++) print t[r ",none"], t[r ",asian"], t[r ",asian"] / t[r ",none"] }' \
        "$log" >"$dir/$which"
    mr=$(cut -d' ' -f3 "$dir/$which" | median)
    mn=$(cut -d' ' -f1 "$dir/$which" | median)
    ma=$(cut -d' ' -f2 "$dir/$which" | median)
    lo=$(cut -d' ' -f3 "$dir/$which" | sort -n | head -1)
    hi=$(cut -d' ' -f3 "$dir/$which" | sort -n | tail -1)
    awk -v s="$sig" -v w="$which" -v bin="$bin" -v mr="$mr" -v lo="$lo" -v hi="$hi" -v mn="$mn" -v ma="$ma" -v n="$rounds" 'BEGIN {
        printf "%s %s (%s): ratio median %.2fx (%.2f-%.2fx), none median %.2f s, asian median %.2f s, %d rounds\n",
            s, w, bin, mr, lo, hi, mn, ma, n }'
done
