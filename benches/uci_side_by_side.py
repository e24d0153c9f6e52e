#!/usr/bin/env python3
"""canju's UCI engine and Fairy-Stockfish's, side by side on the same positions.

Each engine gets the same conversation (uci, isready, position fen …, go mate N, then quit
after a pause) and the script prints, per position, each one's last score and best move
(Fairy-Stockfish's moves converted from its ranks 1-10 to ICCS's 0-9). A peer, never a
dependency: it needs Debian's `fairy-stockfish` and a built `canju`.

    python3 benches/uci_side_by_side.py [CANJU] [TABLE_DIR]
"""

import re
import subprocess
import sys
import time

CANJU = sys.argv[1] if len(sys.argv) > 1 else "target/release/canju"
TABLES = sys.argv[2] if len(sys.argv) > 2 else "tablebases"
FAIRY = "/usr/games/fairy-stockfish"

# (what, FEN, mate bound in moves)
POSITIONS = [
    ("马后炮 (pattern-002)", "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w - - 0 1", 4),
    ("铁门栓 (pattern-003)", "5k3/9/9/9/9/9/9/9/4C4/R3K4 w - - 0 1", 4),
    ("实战杀局 第10题 (mate-010)", "4kab2/4a4/3n5/9/9/9/9/4B4/3p1r3/2B1K4 b - - 0 1", 3),
    ("马对士 (KNKA)", "3a5/4k4/9/4N4/9/9/9/9/9/3K5 w - - 0 1", 8),
    ("马兵对单士象 (KNPKAB)", "3k5/4a4/4b4/9/9/9/4P4/9/4N4/4K4 w - - 0 1", 20),
    ("光将 each (KK)", "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1", 3),
]


def talk(command, lines, stop_after):
    """The engine's lines up to its bestmove; `stop` is sent after `stop_after` seconds
    (None: wait for the answer)."""
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
    for line in lines:
        p.stdin.write(line + "\n")
    p.stdin.flush()
    if stop_after is not None:
        time.sleep(stop_after)
        p.stdin.write("stop\n")
        p.stdin.flush()
    out = []
    for line in p.stdout:
        out.append(line.rstrip("\n"))
        if line.startswith("bestmove"):
            break
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait(timeout=30)
    return out


def last_score_and_move(out, fairy):
    score, best = "-", "-"
    for line in out:
        m = re.search(r"score (cp -?\d+|mate -?\d+)", line)
        if m:
            score = m.group(1)
        if line.startswith("bestmove"):
            best = line.split()[1]
    if fairy and best not in ("-", "(none)"):
        m = re.fullmatch(r"([a-i])(\d+)([a-i])(\d+)", best)
        best = f"{m.group(1)}{int(m.group(2)) - 1}{m.group(3)}{int(m.group(4)) - 1}"
    return score, best


def main():
    print("| position | canju: score, move, time | Fairy-Stockfish: score, move |")
    print("|---|---|---|")
    for what, fen, mate in POSITIONS:
        t = time.time()
        ours = talk([CANJU, "uci", "--dir", TABLES],
                    ["uci", "isready", f"position fen {fen}", f"go mate {mate}"], None)
        took = time.time() - t
        theirs = talk([FAIRY], ["uci", "setoption name UCI_Variant value xiangqi", "isready",
                                f"position fen {fen}", f"go mate {mate}"], 3.0)
        s1, m1 = last_score_and_move(ours, False)
        s2, m2 = last_score_and_move(theirs, True)
        print(f"| {what} | {s1}, {m1}, {took:.2f} s | {s2}, {m2} |")


if __name__ == "__main__":
    main()
