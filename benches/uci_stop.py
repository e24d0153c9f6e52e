#!/usr/bin/env python3
"""How soon `canju uci` answers `stop`: `go infinite` on positions beyond the tables, `stop`
after 0.2 s and after 1 s, the time from `stop` to `bestmove` in milliseconds.

    python3 benches/uci_stop.py [CANJU] [TABLE_DIR]
"""

import subprocess
import sys
import time

CANJU = sys.argv[1] if len(sys.argv) > 1 else "target/release/canju"
TABLES = sys.argv[2] if len(sys.argv) > 2 else "tablebases"
POSITIONS = [
    "startpos",
    "fen 2bak4/4a4/4b1n2/p3p3p/2p3p2/6P2/P1P1P3P/2N1B1N2/9/2BAKA3 w - - 0 1",
    "fen 4kab2/4a4/4b4/9/9/9/9/4C4/9/3AKA3 w - - 0 1",
]

p = subprocess.Popen([CANJU, "uci", "--dir", TABLES], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True, bufsize=1)


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def until(word):
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("the engine ended")
        if line.startswith(word):
            return line


send("uci")
until("uciok")
times = []
for position in POSITIONS:
    for delay in (0.2, 1.0):
        send("position " + position)
        send("go infinite")
        time.sleep(delay)
        asked = time.time()
        send("stop")
        until("bestmove")
        times.append((time.time() - asked) * 1000)
send("quit")
p.wait()
print("stop to bestmove: " + ", ".join(f"{t:.1f}" for t in times) + " ms")
