#!/usr/bin/env python3
"""Every shipped puzzle's stored line judged move by move, as a player would meet it.

For each puzzle of `canju puzzle list --json`, its whole stored line goes through
`canju puzzle check ID m1 m2 …` (every move judged against perfect play, the player's and
the defence's) under the rule set asked for (default: the default, asian), one process at a
time. A line that takes longer than the limit (2 s by default) is then judged prefix by
prefix, so that the slowest single move is named. The summary gives the number of lines,
the total, the median and slowest line, and every move over the limit.

Run: `python3 benches/puzzle_lines.py target/release/canju [--rules R] [--limit S]`
(`--only PREFIX` for the puzzles whose id starts with it).
"""

import json
import statistics
import subprocess
import sys
import time


def judge(canju, pid, moves, rules):
    """The seconds one `puzzle check` of `moves` takes, and whether it said solved."""
    start = time.monotonic()
    out = subprocess.run(
        [canju, "puzzle", "check", pid, *moves, "--json", "--rules", rules],
        capture_output=True,
        text=True,
    )
    took = time.monotonic() - start
    if out.returncode not in (0, 1):
        sys.exit(f"{pid}: canju puzzle check failed: {out.stderr.strip()}")
    return took, out.returncode == 0


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    canju = args[0]
    rules, limit, only = "asian", 2.0, ""
    i = 1
    while i < len(args):
        if args[i] == "--rules":
            rules = args[i + 1]
        elif args[i] == "--limit":
            limit = float(args[i + 1])
        elif args[i] == "--only":
            only = args[i + 1]
        else:
            sys.exit(f"unknown argument {args[i]}")
        i += 2
    listing = subprocess.run(
        [canju, "puzzle", "list", "--json"], capture_output=True, text=True, check=True
    )
    puzzles = [p for p in json.loads(listing.stdout) if p["id"].startswith(only)]
    times, slow, unsolved = [], [], []
    for p in puzzles:
        line = p["line"]
        if not line:
            continue
        took, solved = judge(canju, p["id"], line, rules)
        times.append((took, p["id"], len(line)))
        if not solved:
            unsolved.append(p["id"])
        if took > limit:
            # the slowest move: each prefix ending on a move of the player's
            before = 0.0
            for k in range(1, len(line) + 1, 2):
                t, _ = judge(canju, p["id"], line[:k], rules)
                if t - before > limit:
                    slow.append((t - before, p["id"], k, line[k - 1]))
                before = t
    if not times:
        sys.exit("no puzzle with a stored line")
    total = sum(t for t, _, _ in times)
    worst = max(times)
    print(
        f"{len(times)} lines under --rules {rules}: total {total:.1f} s, "
        f"median {statistics.median(t for t, _, _ in times):.3f} s, "
        f"slowest {worst[1]} ({worst[2]} plies) {worst[0]:.2f} s"
    )
    if unsolved:
        print(f"judged not solved by their own stored line: {' '.join(unsolved)}")
    if slow:
        for t, pid, k, m in sorted(slow, reverse=True):
            print(f"  over {limit} s: {pid} move {k} ({m}) {t:.2f} s")
    else:
        print(f"every move judged within {limit} s")


if __name__ == "__main__":
    main()
