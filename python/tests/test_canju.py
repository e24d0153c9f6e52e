"""canju from Python: each function against what the library (and the command line) says."""

import multiprocessing
import os
import signal
import tempfile
import threading
import time

import pytest

import canju

# 双车错: the two chariots mate in two moves (three plies)
TWO_CHARIOTS = "4k4/9/9/9/9/9/9/9/R8/R2K5 w"
# 车对马: black's horse can only check; under the rule black must change and is mated
HORSE_CHECKS = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1"


@pytest.fixture(scope="module")
def empty_dir():
    with tempfile.TemporaryDirectory() as d:
        yield d


def test_positions_and_fen():
    start = canju.Position()
    assert start.fen == canju.START_FEN
    assert start.turn == "red"
    assert len(start.legal_moves()) == 44
    p = canju.Position(TWO_CHARIOTS)
    assert str(p).startswith("4k4/9/9/9/9/9/9/9/R8/R2K5 w")
    assert p == canju.Position(p.fen)
    assert "Position('" in repr(p)
    assert not p.in_check
    assert p.ending is None


def test_the_three_notations_read_and_written():
    start = canju.Position()
    for text in ["炮二平五", "C2.5", "h2e2"]:
        assert start.move_name(text, "iccs") == "h2e2"
        assert start.move_name(text, "wxf") == "C2.5"
        assert start.move_name(text, "chinese") == "炮二平五"
    after = start.play("炮二平五", "h9g7")
    assert after.turn == "red"
    assert after.fen != start.fen
    chinese = start.legal_moves("chinese")
    assert "炮二平五" in chinese and len(chinese) == 44


def test_the_end_of_a_game(empty_dir):
    line = canju.solve(TWO_CHARIOTS, max_moves=3, mate_only=True, dir=empty_dir)["pv"]
    assert line
    end = canju.Position(TWO_CHARIOTS).play(*[m["iccs"] for m in line])
    assert end.ending == "checkmate"
    assert end.in_check
    assert end.legal_moves() == []


def test_errors_are_canju_errors_with_the_library_message():
    with pytest.raises(canju.CanjuError, match="ranks"):
        canju.Position("xx")
    with pytest.raises(canju.CanjuError, match="move 1"):
        canju.Position().play("a0a5")
    with pytest.raises(canju.CanjuError):
        canju.Position().move_name("h2e2", "klingon")
    with pytest.raises(canju.CanjuError, match="rule"):
        canju.solve(TWO_CHARIOTS, rules="house")
    with pytest.raises(canju.CanjuError, match="between 1 and"):
        canju.solve(TWO_CHARIOTS, max_moves=0)
    with pytest.raises(canju.CanjuError, match="no puzzle"):
        canju.check_puzzle("no-such-puzzle", [])
    assert issubclass(canju.CanjuError, Exception)


def test_every_error_is_a_canju_error_of_its_kind():
    # what canju cannot read: a CanjuError that is a ValueError too
    assert issubclass(canju.InvalidInputError, canju.CanjuError)
    assert issubclass(canju.InvalidInputError, ValueError)
    for bad in (
        lambda: canju.Position("xx"),
        lambda: canju.Position().play("a0a5"),
        lambda: canju.solve(TWO_CHARIOTS, rules="house"),
        lambda: canju.solve(TWO_CHARIOTS, max_moves=0),
        # numbers too large or negative: never a bare OverflowError
        lambda: canju.solve(TWO_CHARIOTS, max_moves=2**70),
        lambda: canju.solve(TWO_CHARIOTS, max_moves=-1),
        lambda: canju.solve(TWO_CHARIOTS, time=-1.0),
        lambda: canju.theory("KRK", examples=-5),
        lambda: canju.check_puzzle("no-such-puzzle", []),
        lambda: canju.Position().legal_moves("klingon"),
    ):
        with pytest.raises(canju.InvalidInputError):
            bad()
    # arguments of the wrong type: a CanjuError that is a TypeError too, naming it
    assert issubclass(canju.ArgumentTypeError, canju.CanjuError)
    assert issubclass(canju.ArgumentTypeError, TypeError)
    for wrong, name in (
        (lambda: canju.Position(42), "fen"),
        (lambda: canju.solve(TWO_CHARIOTS, max_moves="3"), "max_moves"),
        (lambda: canju.solve(TWO_CHARIOTS, max_moves=True), "max_moves"),
        (lambda: canju.solve(TWO_CHARIOTS, checks_only=1), "checks_only"),
        (lambda: canju.solve(TWO_CHARIOTS, time="soon"), "time"),
        (lambda: canju.probe(TWO_CHARIOTS, dir=3), "dir"),
        (lambda: canju.check_puzzle("mate-001", "h2e2"), "moves"),
        (lambda: canju.check_puzzle("mate-001", ["h2e2", 7]), "moves"),
        (lambda: canju.Position().play("h2e2", None), "moves"),
        (lambda: canju.build_tables("KRK", progress=5), "progress"),
    ):
        with pytest.raises(canju.ArgumentTypeError, match=name):
            wrong()
    # a table that is not there
    assert issubclass(canju.TablebaseError, canju.CanjuError)
    with tempfile.TemporaryDirectory() as d:
        with pytest.raises(canju.TablebaseError, match="no KRK table"):
            canju.probe("4k4/9/9/9/9/9/9/9/9/R2K5 w", dir=d)


def test_the_module_names_what_it_exports():
    assert sorted(canju.__all__) == sorted(
        name for name in dir(canju) if not name.startswith("_") and name != "canju"
    )


def test_positions_are_hashable_and_compare_by_their_fen():
    a, b = canju.Position(TWO_CHARIOTS), canju.Position(TWO_CHARIOTS)
    assert a == b and not (a != b) and hash(a) == hash(b)
    assert len({a, b, canju.Position()}) == 2
    assert {a: 1}[b] == 1
    # never equal to what is not a position, and no error for asking
    assert a != a.fen and not (a == 3) and a != None  # noqa: E711


def test_reports_have_the_same_keys_every_time(empty_dir):
    # a win by mate and a win that needs the rule: the same keys in every move's dict,
    # by_rule False where no rule decided
    plain = canju.solve(TWO_CHARIOTS, max_moves=3, dir=empty_dir)
    by_rule = canju.solve(HORSE_CHECKS, max_moves=8, dir=empty_dir)
    moves = plain["winning_moves"] + by_rule["winning_moves"]
    assert moves and all(set(m) == set(moves[0]) for m in moves)
    assert plain["winning_moves"][0]["by_rule"] is False
    assert set(plain) == set(by_rule)


def test_solve_as_the_command_line_prints_it(empty_dir):
    s = canju.solve(TWO_CHARIOTS, max_moves=3, dir=empty_dir)
    assert s["verdict"] == "win"
    assert s["plies"] == 3
    assert s["rules"] == "asian"
    # (the quickest end is a stalemate, 困毙, which wins too; only mate counts with mate_only)
    assert s["ending"] == "stalemate"
    assert canju.solve(TWO_CHARIOTS, max_moves=3, mate_only=True, dir=empty_dir)["ending"] == "checkmate"
    assert all(w["plies"] <= 5 for w in s["winning_moves"])
    assert len(s["pv"]) == 3
    # the perpetual-check rule decides: a win under it, none without it
    ruled = canju.solve(HORSE_CHECKS, max_moves=8, dir=empty_dir)
    assert (ruled["verdict"], ruled["plies"]) == ("win", 15)
    assert ruled["winning_moves"][0]["by_rule"] is True
    plain = canju.solve(HORSE_CHECKS, max_moves=8, rules="none", dir=empty_dir)
    assert plain["verdict"] == "none"
    pn = canju.solve(TWO_CHARIOTS, max_moves=3, method="proof-number", dir=empty_dir)
    assert pn["plies"] == 3 and pn["method"] == "proof-number"


def test_tables_built_with_progress_then_probed(empty_dir):
    calls = []
    built = canju.build_tables(
        "KRKN", dir=empty_dir, progress=lambda m, stage, a, b: calls.append((m, stage))
    )
    names = [b["material"] for b in built]
    assert "KRKN" in names and "KRK" in names
    assert {b["outcome"] for b in built} == {"built"}
    assert any(m == "KRKN" and stage == "start" for m, stage in calls)
    # again: checked and kept
    again = canju.build_tables("KRKN", dir=empty_dir)
    assert {b["outcome"] for b in again} == {"present"}
    p = canju.probe(HORSE_CHECKS, dir=empty_dir)
    assert p["verdict"] == "win"
    assert p["by_rule"] >= 1
    assert p["moves"][0]["iccs"]
    assert len(p["moves"]) == len(canju.Position(HORSE_CHECKS).legal_moves())
    with pytest.raises(canju.CanjuError):
        # the baseline's tables are not built in this directory
        canju.probe(HORSE_CHECKS, dir=empty_dir, rules="none")


def test_a_missing_table_is_an_error(empty_dir):
    with tempfile.TemporaryDirectory() as d:
        with pytest.raises(canju.CanjuError, match="KRKN|table"):
            canju.probe(HORSE_CHECKS, dir=d)


def test_puzzles_listed_and_a_line_checked(empty_dir):
    listed = canju.puzzles()
    assert len(listed) > 500
    first = next(p for p in listed if p["id"] == "pattern-002")
    assert first["fen"] and first["line"]
    judged = canju.check_puzzle("pattern-002", first["line"], dir=empty_dir)
    assert judged["solved"] is True
    first_moves = canju.Position(first["fen"]).legal_moves()
    wrong = [m for m in first_moves if m != first["line"][0]][0]
    judged = canju.check_puzzle("pattern-002", [wrong], dir=empty_dir)
    assert judged["solved"] is False


def test_theory_as_a_dict(empty_dir):
    r = canju.theory("KRKN", dir=empty_dir, examples=2)
    assert r["material"] == "KRKN"
    assert r["rules"] == "asian"
    assert r["sides"]
    with pytest.raises(canju.CanjuError):
        canju.theory("not a saying at all", dir=empty_dir)


def test_the_tables_directory_from_the_environment(empty_dir, monkeypatch):
    monkeypatch.setenv("CANJU_TB_DIR", empty_dir)
    canju.build_tables("KRK")
    assert canju.probe("4k4/9/9/9/9/9/9/9/9/R2K5 w")["verdict"] == "win"
    assert os.path.exists(empty_dir)


def _interrupted_after(seconds, call):
    """Runs `call`, sending the main thread a Ctrl-C (SIGINT) after `seconds`; the time from
    the signal to the KeyboardInterrupt."""
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(seconds, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
        return time.monotonic() - sent[0]
    finally:
        timer.cancel()


START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"


def test_ctrl_c_stops_solve_build_and_theory_within_a_second():
    with tempfile.TemporaryDirectory() as d:
        # a proof that would run for minutes
        took = _interrupted_after(
            0.5, lambda: canju.solve(START, max_moves=20, dir=d)
        )
        assert took < 1.0, took
        # a family of tables that takes tens of seconds to build
        took = _interrupted_after(1.0, lambda: canju.build_tables("KNPKAABB", dir=d))
        assert took < 1.0, took
        assert not os.path.exists(os.path.join(d, "KNPKAABB.asian.ctb"))
        took = _interrupted_after(0.5, lambda: canju.theory("马卒难破士相全", dir=d))
        assert took < 1.0, took
        # and the library goes on working
        assert canju.solve(TWO_CHARIOTS, max_moves=3, dir=d)["plies"] == 3


def test_an_exception_in_the_progress_callback_stops_the_build_and_propagates():
    class Enough(Exception):
        pass

    calls = []

    def progress(material, stage, a, b):
        calls.append((material, stage))
        raise Enough(f"stop at {material}")

    with tempfile.TemporaryDirectory() as d:
        started = time.monotonic()
        with pytest.raises(Enough, match="stop at"):
            canju.build_tables("KNPKAABB", dir=d, progress=progress)
        assert time.monotonic() - started < 5
        # the first call raised: nothing more was called, nothing more was built
        assert len(calls) == 1, calls
        assert not os.path.exists(os.path.join(d, "KNPKAABB.asian.ctb"))


def _solve_in_child(fen):
    return canju.solve(fen, max_moves=3, dir=tempfile.gettempdir())["plies"]


def test_the_package_works_in_processes_forked_after_it_was_used():
    with tempfile.TemporaryDirectory() as d:
        # used here first: the thread pool is made, and a table read
        assert canju.solve(TWO_CHARIOTS, max_moves=3, dir=d)["plies"] == 3
        canju.build_tables("KRK", dir=d)
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(2) as pool:
            got = pool.map_async(_solve_in_child, [TWO_CHARIOTS] * 4).get(timeout=60)
        assert got == [3, 3, 3, 3]
        # a child that builds tables (parallel work in the pool) finishes too
        child = ctx.Process(target=canju.build_tables, args=("KRKN",), kwargs={"dir": d})
        child.start()
        child.join(60)
        assert child.exitcode == 0, child.exitcode
        assert os.path.exists(os.path.join(d, "KRKN.asian.ctb"))
