"""Bounded waiting in negotiated routing: the wait bound timed on the sequential floor
(``wait_factor``, ``min_wait``), the early stop on over-subscription
(``crowd_iterations``), never fewer nets than sequential routing, and the time left on
the live iteration lines."""

from __future__ import annotations

import pytest

import mazeroute.router.negotiate as neg
from mazeroute.batch import iteration_line
from mazeroute.cli import main
from mazeroute.contract import check_routes
from mazeroute.generate import random_layout
from mazeroute.report import format_report
from mazeroute.router import PathFinderOptions, route
from mazeroute.router.negotiate import Negotiator, sequential_routes
from mazeroute.router.result import IterationStats
from tests.corpus import fresh_compile, oversubscribed_layout, puzzle_layout

BOUND = "wait bound (40 s: 20 times sequential routing's time, at least 10 s)"


def _slow_floor(monkeypatch, clock: list[float], seconds: float) -> list[int]:
    """Make the floor routed before the loop take ``seconds`` on the fake ``clock``;
    the list counts its calls."""
    calls = []
    real = neg.sequential_routes

    def floor(*args, **kw):
        calls.append(1)
        clock[0] += seconds
        return real(*args, **kw)
    monkeypatch.setattr(neg, "sequential_routes", floor)
    return calls


def _negotiator(lay, clock: list[float], **options) -> Negotiator:
    ng = Negotiator(lay, "cpu", PathFinderOptions(**options))
    ng.now = lambda: clock[0]
    return ng


def _cells(res) -> list:
    return [n.cells if n.routed else None for n in res.nets]


def test_the_default_bound_is_timed_on_the_floor_and_stops_the_loop(monkeypatch):
    """The run outlasts ``min_wait`` (10 s) in iteration 1, so the floor is routed and
    timed then: 2 s gives 40 s (20 x), counted from the run's start; the loop stops at
    the first iteration past it and the report says why; the floor is routed once, and
    the time left counts to ``min_wait`` until then."""
    lay = puzzle_layout()
    clock = [0.0]
    calls = _slow_floor(monkeypatch, clock, 2.0)
    ng = _negotiator(lay, clock)
    lefts = []

    def progress(stats):
        lefts.append(stats.left)
        clock[0] = 12.0 if stats.iteration == 1 else 41.0
    res = ng.run(progress)
    assert ng.deadline == 40.0 and len(calls) == 1
    assert lefts == [10.0, 26.0]
    assert len(res.iterations) == 2 and res.stop == f"{BOUND} reached"
    assert "stopped after 2 iterations with" in format_report(res)
    assert f": {BOUND} reached" in format_report(res)
    assert f"the {BOUND} cut short" in res.notice
    assert check_routes(lay, res.to_json()) == []
    assert res.routed >= sequential_routes(lay, "cpu").routed


def test_the_bound_has_a_floor_of_min_wait(monkeypatch):
    clock = [0.0]
    calls = _slow_floor(monkeypatch, clock, 0.01)
    ng = _negotiator(puzzle_layout(), clock, min_wait=3.0)

    def progress(stats):
        clock[0] = 3.5
    res = ng.run(progress)
    assert calls == [1] and ng.deadline == pytest.approx(3.0)
    assert ng.limit_words.startswith("wait bound (3 s: 20 times")
    assert len(res.iterations) == 1 and res.stop.startswith("wait bound (3 s")


def test_a_run_within_min_wait_never_times_the_floor(monkeypatch):
    """The bound is at least ``min_wait``: a run that ends sooner never routes the floor
    for its time, and its routes are those of the unbounded loop."""
    lay = oversubscribed_layout()
    clock = [0.0]
    calls = _slow_floor(monkeypatch, clock, 2.0)
    ng = _negotiator(lay, clock)
    res = ng.run()
    free = _negotiator(lay, [0.0], wait_factor=0).run()
    assert calls == [] and ng.floor_first is None and not ng.cut
    assert _cells(res) == _cells(free) and res.stop == free.stop
    assert res.routed >= sequential_routes(lay, "cpu").routed


def test_the_untimed_floor_is_routed_whatever_the_clock_says(monkeypatch):
    """The floor phase of a bounded run whose floor was never timed routes it, past any
    clock, and keeps it when it connects more nets (here negotiation routed none)."""
    from mazeroute.router.negotiation import phases
    lay = oversubscribed_layout()
    clock = [0.0]
    calls = _slow_floor(monkeypatch, clock, 2.0)
    ng = _negotiator(lay, clock)
    ng._bound()
    clock[0] = 1e6
    res = phases.run_phases(ng, 0, (phases.floor,))
    seq = sequential_routes(lay, "cpu")
    assert calls == [] and res.routed == seq.routed > 0 and _cells(res) == _cells(seq)
    assert "its routes are kept" in res.notice
    assert [p.phase for p in res.phases] == ["sequential floor"] and not ng.cut


def test_a_bound_that_is_not_reached_changes_no_route():
    """The floor routed first, and a bound the run stays within, leave the routes, stop
    and iterations of the unbounded loop as they were."""
    lay = puzzle_layout()
    bounded = _negotiator(lay, [0.0]).run()
    free = _negotiator(lay, [0.0], wait_factor=0).run()
    assert _cells(bounded) == _cells(free) and bounded.stop == free.stop
    assert [s.overused for s in bounded.iterations] == [s.overused for s in free.iterations]
    assert bounded.routed == len(lay.nets)


def test_wait_factor_0_restores_the_unbounded_loop(monkeypatch):
    """With ``wait_factor=0`` nothing is routed first and no clock stops anything."""
    lay = puzzle_layout()
    clock = [0.0]
    calls = _slow_floor(monkeypatch, clock, 2.0)
    ng = _negotiator(lay, clock, wait_factor=0)

    def progress(stats):
        assert stats.left is None
        clock[0] += 1e6
    res = ng.run(progress)
    assert calls == [] and ng.deadline is None and not ng.cut
    assert "bound" not in (res.stop or "") and "time" not in (res.stop or "")
    # the fake clock ran a million seconds an iteration, and nothing noticed: the same
    # routes as a run on the real clock
    want = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0)).run()
    assert _cells(res) == _cells(want) and res.routed == want.routed == len(lay.nets)


def test_a_time_limit_replaces_the_bound(monkeypatch):
    clock = [0.0]
    calls = _slow_floor(monkeypatch, clock, 2.0)
    ng = _negotiator(puzzle_layout(), clock, time_limit=5.0)
    ng.run()
    assert calls == [] and ng.deadline == 5.0 and ng.limit_words == "time limit (5 s)"


def test_a_bound_run_out_at_once_still_keeps_the_floor(monkeypatch):
    """The bound runs out in iteration 1: legalise drops the nets in conflict, every
    phase that would search is skipped, yet the floor's routes, routed before the loop,
    are kept: never fewer nets than sequential routing."""
    lay = oversubscribed_layout()
    clock = [0.0]
    _slow_floor(monkeypatch, clock, 1.0)
    ng = _negotiator(lay, clock)

    def progress(stats):
        clock[0] = 1000.0
    res = ng.run(progress)
    seq = sequential_routes(lay, "cpu")
    assert len(res.iterations) == 1 and res.stop.startswith("wait bound (20 s")
    assert res.routed == seq.routed and _cells(res) == _cells(seq)
    assert "its routes are kept" in res.notice and "wait bound (20 s" in res.notice
    assert check_routes(lay, res.to_json()) == []


def test_an_over_subscribed_layout_stops_early_with_its_reason():
    """Nearly every net of 80 with pins anywhere stays in conflict: the loop stops after
    ``crowd_iterations`` and says so; the floor still holds."""
    lay = oversubscribed_layout()
    res = route(lay, backend="cpu", mode="negotiate")
    assert res.stop.startswith("over-subscribed: ") and len(res.iterations) == 5
    assert res.stop.endswith(f"of {len(lay.nets)} nets still in conflict after 5 "
                             "iterations, no progress")
    assert "over-subscribed" in format_report(res)
    assert res.routed >= sequential_routes(lay, "cpu").routed
    free = route(lay, backend="cpu", mode="negotiate",
                 options=PathFinderOptions(crowd_iterations=None, wait_factor=0))
    assert len(free.iterations) > 5 and not free.stop.startswith("over-subscribed")


@pytest.mark.parametrize("seed", [8, 9])
def test_local_nets_where_negotiation_helps_do_not_stop_early(seed):
    """Local nets on random rectangles: few nets in conflict, negotiation routes more
    than sequential routing, and the rule leaves its result as it was."""
    lay = random_layout(128, 128, density=0.3, nets=150, span=12, seed=seed)
    res = route(lay, backend="cpu", mode="negotiate")
    free = route(lay, backend="cpu", mode="negotiate",
                 options=PathFinderOptions(crowd_iterations=None))
    assert res.stop is None or not res.stop.startswith("over-subscribed")
    assert _cells(res) == _cells(free)
    assert res.routed > sequential_routes(lay, "cpu").routed


def test_options_refuse_bad_bounds():
    for bad in ({"wait_factor": -1.0}, {"min_wait": -0.5}, {"crowd_share": 1.5},
                {"crowd_iterations": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            PathFinderOptions(**bad)


def test_iteration_lines_show_the_time_left(capsys):
    iteration_line(IterationStats(7, 30, 12, 40, 0.5, 1.2, left=43.4))
    iteration_line(IterationStats(8, 30, 12, 40, 0.5, 1.2))
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("iteration 7: 30 overused cells, 12 nets in conflict, 40 rerouted, "
                      "0.50 s, 43 s left")
    assert err[1].endswith("0.50 s")


def test_route_shows_the_time_left_and_takes_wait_factor(tmp_path, capsys):
    from mazeroute.layout import save_layout
    from tests.corpus import other_side_layout
    lay = tmp_path / "swap.yaml"
    save_layout(other_side_layout(), lay)
    assert main(["route", str(lay), "-o", str(tmp_path / "a"), "--backend", "cpu",
                 "--mode", "negotiate"]) == 0
    assert " s left" in capsys.readouterr().err
    assert main(["route", str(lay), "-o", str(tmp_path / "b"), "--backend", "cpu",
                 "--mode", "negotiate", "--wait-factor", "0"]) == 0
    err = capsys.readouterr().err
    assert "iteration 1:" in err and " s left" not in err
    assert main(["route", str(lay), "-o", str(tmp_path / "c"), "--mode", "negotiate",
                 "--wait-factor", "-1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--wait-factor" in err and len(err.splitlines()) == 1


def test_help_names_the_bound(capsys):
    with pytest.raises(SystemExit):
        main(["route", "--help"])
    out = capsys.readouterr().out
    assert "--wait-factor" in out and "--min-wait" in out


def test_the_wait_bounds_clock_stands_still_while_the_engines_compile():
    """A first run on a fresh install compiles inside the loop: the wait bound's clock
    leaves that time out, and a time limit's (the user's wall clock) does not."""
    import time

    from mazeroute.compiled import compile_seconds

    ng = Negotiator(puzzle_layout(), "cpu", PathFinderOptions())
    ng._bound()
    n0, s0, w0 = ng.now(), compile_seconds(), time.perf_counter()
    fresh_compile()
    n1, s1, w1 = ng.now(), compile_seconds(), time.perf_counter()
    assert s1 - s0 > 0.01 and n1 - n0 <= (w1 - w0) - 0.9 * (s1 - s0)
    limited = Negotiator(puzzle_layout(), "cpu", PathFinderOptions(time_limit=60))
    limited._bound()
    assert limited.now is time.perf_counter
