"""canju: Xiangqi (Chinese chess) endgames: positions, three notations, perfect-play tables,
an exact mate solver, puzzles and theory. Every report is the dict `canju … --json` prints.

Ctrl-C stops `solve`, `build_tables`, `theory`, `check_puzzle` and `probe` within a fraction
of a second and raises KeyboardInterrupt (a stopped build resumes from its checkpoint); the
package works in processes forked after it was used (`multiprocessing` with fork)."""

from typing import Any, Callable, Optional

START_FEN: str

class CanjuError(Exception):
    """What canju refuses or cannot do, with the command line's message."""

class Position:
    """A position: the board, the side to move, and what FEN says of it."""

    def __init__(self, fen: Optional[str] = None) -> None:
        """From its FEN; the starting position without one. Raises CanjuError."""
    @property
    def fen(self) -> str: ...
    @property
    def turn(self) -> str:
        """`"red"` or `"black"`."""
    @property
    def in_check(self) -> bool: ...
    @property
    def ending(self) -> Optional[str]:
        """`"checkmate"` (将死), `"stalemate"` (困毙) or None while the side to move has a move."""
    def legal_moves(self, notation: str = "iccs") -> list[str]:
        """In `"iccs"` (h2e2), `"wxf"` (C2.5) or `"chinese"` (炮二平五)."""
    def move_name(self, text: str, notation: str = "iccs") -> str:
        """A move given in any notation, written in `notation`."""
    def play(self, *moves: str) -> "Position":
        """The position after the moves (any notation). Raises CanjuError naming the move."""
    def board(self, chinese: bool = True) -> str: ...
    def __eq__(self, other: object) -> bool: ...

def probe(fen: str, dir: Optional[str] = None, rules: str = "asian") -> dict[str, Any]:
    """The tables' value of a position and of every legal move, best first (`canju probe --json`).
    `dir`: the table directory (else $CANJU_TB_DIR, else `tablebases`)."""

def solve(
    fen: str,
    max_moves: int = 6,
    rules: str = "asian",
    checks_only: bool = False,
    mate_only: bool = False,
    method: str = "depth-first",
    time: Optional[float] = None,
    dir: Optional[str] = None,
) -> dict[str, Any]:
    """The shortest forced win within `max_moves`, every winning first move, the line
    (`canju solve --json`). `rules="asian"`: a defence that only checks forever fails."""

def puzzles() -> list[dict[str, Any]]:
    """Every built-in puzzle (`canju puzzle list --json`, without progress)."""

def check_puzzle(
    id: str, moves: list[str], dir: Optional[str] = None, rules: str = "asian"
) -> dict[str, Any]:
    """A line of a puzzle judged against perfect play (`canju puzzle check --json`)."""

def theory(
    claim: str, dir: Optional[str] = None, rules: str = "asian", examples: int = 3
) -> dict[str, Any]:
    """A saying (马卒难破士相全) or a material measured over its table, built first if missing
    (`canju theory CLAIM --json`)."""

def build_tables(
    material: str,
    dir: Optional[str] = None,
    rules: str = "asian",
    progress: Optional[Callable[[str, str, int, int], Any]] = None,
) -> list[dict[str, Any]]:
    """Builds a material's tables and every one it falls into; each as
    `{"material", "outcome": "built"|"present"|"converted", "seconds"}`. `progress(material,
    stage, a, b)`: stage `"start"` (decided, total) or `"layer"` (plies, decided); an
    exception it raises stops the build and is raised by `build_tables`."""
