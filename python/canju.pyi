"""canju: Xiangqi (Chinese chess) endgames: positions, three notations, perfect-play tables,
an exact mate solver, puzzles and theory. Every report is the dict `canju … --json` prints.

Ctrl-C stops `solve`, `build_tables`, `theory`, `check_puzzle` and `probe` within a fraction
of a second and raises KeyboardInterrupt (a stopped build resumes from its checkpoint); the
package works in processes forked after it was used (`multiprocessing` with fork)."""

import os
from typing import Any, Callable, Optional, Union, final

__all__ = [
    "ArgumentTypeError",
    "CanjuError",
    "InvalidInputError",
    "Position",
    "START_FEN",
    "TablebaseError",
    "build_tables",
    "check_puzzle",
    "probe",
    "puzzles",
    "solve",
    "theory",
]

START_FEN: str

_Path = Union[str, "os.PathLike[str]"]

class CanjuError(Exception):
    """What canju refuses or cannot do, with the command line's message. Every error canju
    raises is one."""

class InvalidInputError(CanjuError, ValueError):
    """A value canju cannot read: a malformed FEN, an illegal or unknown move, a name of no
    rule set, notation or material, a number out of range."""

class ArgumentTypeError(CanjuError, TypeError):
    """An argument of the wrong type."""

class TablebaseError(CanjuError):
    """A table that is missing, damaged, or of another rule set."""

@final
class Position:
    """A position: the board, the side to move, and what FEN says of it. Immutable,
    hashable, equal to another when their FENs are."""

    def __new__(cls, fen: Optional[str] = None) -> "Position":
        """From its FEN; the starting position without one. Raises InvalidInputError."""
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
    def legal_moves(self, notation: Optional[str] = None) -> list[str]:
        """In `"iccs"` (h2e2, the default), `"wxf"` (C2.5) or `"chinese"` (炮二平五)."""
    def move_name(self, text: str, notation: Optional[str] = None) -> str:
        """A move given in any notation, written in `notation`."""
    def play(self, *moves: str) -> "Position":
        """The position after the moves (any notation). Raises InvalidInputError naming the
        move."""
    def board(self, chinese: Optional[bool] = None) -> str:
        """Chinese characters unless `chinese=False`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def probe(
    fen: str, dir: Optional[_Path] = None, rules: Optional[str] = None
) -> dict[str, Any]:
    """The tables' value of a position and of every legal move, best first (`canju probe --json`).
    `dir`: the table directory (else $CANJU_TB_DIR, else `tablebases`); `rules`: `"asian"`
    (the default), `"check-only"` or `"none"`. Every dict has the same keys every time
    (`by_rule` None where no rule decides)."""

def solve(
    fen: str,
    max_moves: Optional[int] = None,
    rules: Optional[str] = None,
    checks_only: Optional[bool] = None,
    mate_only: Optional[bool] = None,
    method: Optional[str] = None,
    time: Optional[float] = None,
    dir: Optional[_Path] = None,
) -> dict[str, Any]:
    """The shortest forced win within `max_moves` (1-60, default 6), every winning first
    move, the line (`canju solve --json`). `rules="asian"` (the default): a defence that only
    checks forever fails. Each move's dict has `by_rule` (False when no rule decided)."""

def puzzles() -> list[dict[str, Any]]:
    """Every built-in puzzle (`canju puzzle list --json`, without progress)."""

def check_puzzle(
    id: str, moves: list[str], dir: Optional[_Path] = None, rules: Optional[str] = None
) -> dict[str, Any]:
    """A line of a puzzle judged against perfect play (`canju puzzle check --json`)."""

def theory(
    claim: str,
    dir: Optional[_Path] = None,
    rules: Optional[str] = None,
    examples: Optional[int] = None,
) -> dict[str, Any]:
    """A saying (马卒难破士相全) or a material measured over its table, built first if missing
    (`canju theory CLAIM --json`)."""

def build_tables(
    material: str,
    dir: Optional[_Path] = None,
    rules: Optional[str] = None,
    progress: Optional[Callable[[str, str, int, int], Any]] = None,
) -> list[dict[str, Any]]:
    """Builds a material's tables and every one it falls into; each as
    `{"material", "outcome": "built"|"present"|"converted", "seconds"}`. `progress(material,
    stage, a, b)`: stage `"start"` (decided, total) or `"layer"` (plies, decided); an
    exception it raises stops the build and is raised by `build_tables`."""
