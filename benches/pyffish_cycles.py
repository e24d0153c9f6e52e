#!/usr/bin/env python3
"""Replays the cycles of `canju diff` examples through Fairy-Stockfish's repetition rules.

An outside check of how canju judges a repetition under the whole 长打 rule: for each example
whose best-play line repeats a position, the line's cycle is played twice more and
pyffish's `is_optional_game_end` (Fairy-Stockfish's xiangqi, with its chasing rules) is
asked, after each move, whether the game has ended and for whom. canju's own judgement of the
same cycle, from the class of each move (将, 杀, 捉 or 闲), is set beside it:
- one side checks on every move and the other does not: that side loses (长将);
- otherwise one side is 打 on every move and the other is not: that side loses (长打);
- otherwise: a draw.

A peer, never a dependency of canju: `pip install pyffish`, then

    python3 benches/pyffish_cycles.py KRPKR KRNKR KNPKN --dir tablebases --examples 5

(`CANJU` names the binary, `target/release/canju` by default). Prints one line per example
and a summary; exits 1 when a cycle is judged differently for another reason than the two
known readings: a threat of mate (杀), which Fairy-Stockfish's chasing rules do not count as
打 (they count checks and chases), and checks and chases by turns (一将一捉), which canju
counts as 长打 (the text's 长打 is 长将, 长杀, 长捉 together) and Fairy-Stockfish as a draw.
"""

import argparse
import json
import os
import subprocess
import sys

import pyffish as sf

CANJU = os.environ.get("CANJU", "target/release/canju")


def uci(iccs):
    """canju's ICCS (ranks 0-9) as Fairy-Stockfish's coordinates (ranks 1-10)."""
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def canju_verdict(example):
    """The side that loses the repeated cycle by canju's reading, or None for a draw."""
    start = example["repeats_from"]
    line = example["line"]
    mover = example["side_to_move"]
    other = "black" if mover == "red" else "red"
    sides = {mover: [], other: []}
    for k, move in enumerate(line[start:], start):
        sides[mover if k % 2 == 0 else other].append(move["attack"])
    checks = {s: all(a == "check" for a in m) for s, m in sides.items()}
    hits = {s: all(a != "idle" for a in m) for s, m in sides.items()}
    for flags in (checks, hits):
        at_fault = [s for s in sides if flags[s]]
        if len(at_fault) == 1:
            return at_fault[0]
        if len(at_fault) == 2:
            return None
    return None


def pyffish_verdict(example):
    """The side Fairy-Stockfish says loses when the cycle is played again, or None for a
    draw, or "no end" when it declares none."""
    fen = example["fen"]
    line = [uci(m["iccs"]) for m in example["line"]]
    cycle = line[example["repeats_from"]:]
    moves = line + cycle * 2
    colours = ["red", "black"] if example["side_to_move"] == "red" else ["black", "red"]
    for n in range(1, len(moves) + 1):
        ended, result = sf.is_optional_game_end("xiangqi", fen, moves[:n])
        if ended:
            to_move = colours[n % 2]
            if result == 0:
                return None
            if result < 0:
                return to_move
            return colours[(n + 1) % 2]
    return "no end"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("materials", nargs="+")
    parser.add_argument("--dir", default="tablebases")
    parser.add_argument("--examples", type=int, default=5)
    parser.add_argument("--against", default="check-only")
    args = parser.parse_args()
    agree = differ = skipped = 0
    differ_with_mate_threat = differ_mixed = 0
    for material in args.materials:
        out = subprocess.run(
            [CANJU, "diff", material, "--against", args.against, "--json",
             "--examples", str(args.examples), "--dir", args.dir],
            capture_output=True, check=True, text=True,
        )
        for example in json.loads(out.stdout)["examples"]:
            if example["repeats_from"] is None:
                skipped += 1
                continue
            ours = canju_verdict(example)
            theirs = pyffish_verdict(example)
            same = ours == theirs
            agree += same
            differ += not same
            # Fairy-Stockfish counts checks and chases, not threats of mate (杀)
            threat = any(
                m["attack"] == "mate-threat" for m in example["line"][example["repeats_from"]:]
            )
            kinds = {m["attack"] for m in example["line"][example["repeats_from"]:]}
            # a side that checks and chases by turns (一将一捉): 长打 as canju reads the text
            mixed = not threat and {"check", "chase"} <= kinds
            differ_with_mate_threat += (not same) and threat
            differ_mixed += (not same) and mixed
            def said(v):
                return "a draw" if v is None else v if v == "no end" else f"{v} loses"

            print(
                f"{material} {example['fen']}: a cycle of"
                f" {len(example['line']) - example['repeats_from']} plies; canju: {said(ours)};"
                f" Fairy-Stockfish: {said(theirs)}{'' if same else '   <-- differs'}"
                f"{' (杀 in the cycle)' if threat else ''}{' (将 and 捉 in the cycle)' if mixed else ''}"
            )
    print(
        f"{agree} cycles judged alike, {differ} differently: {differ_with_mate_threat} with a"
        f" threat of mate (杀), {differ_mixed} with checks and chases by turns (将 and 捉),"
        f" {differ - differ_with_mate_threat - differ_mixed} otherwise;"
        f" {skipped} lines without a repetition"
    )
    return 1 if differ > differ_with_mate_threat + differ_mixed else 0


if __name__ == "__main__":
    sys.exit(main())
