"""Exact completion in windows (router.windows): hand-made cases, and on random small
layouts against an exhaustive search: legal routings, no routed net lost, and every net
connected whenever the layout has a routing of all of them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.router.windows import complete_in_windows

pytest.importorskip("pysat.solvers", reason="python-sat is not installed")

EXACT = dict(min_density=0.0, min_layout_density=0.0, max_unrouted=1.0, work=10**7)


def _flat(cells, w):
    return np.array([y * w + x for x, y in cells], np.int64)


def _check(free, pins, before, after):
    """Every wire a path of free cells between its pins, no cell on two wires, no wire
    on another net's pin, and every net routed before routed still."""
    h, w = free.shape
    seen = np.zeros(h * w, bool)
    pin_of = {int(y * w + x): i for i, p in enumerate(pins) for x, y in np.asarray(p).tolist()}
    for i, (p, r) in enumerate(zip(pins, after)):
        if r is None:
            assert before[i] is None
            continue
        ends = {int(y * w + x) for x, y in np.asarray(p).tolist()}
        assert {int(r[0]), int(r[-1])} == ends
        steps = np.abs(np.diff(r))
        assert ((steps == 1) & (np.minimum(r[1:], r[:-1]) % w != w - 1) | (steps == w)).all()
        assert free.ravel()[r].all() and not seen[r].any()
        assert all(pin_of.get(int(c), i) == i for c in r)
        seen[r] = True


def _all_routable(free, pins) -> bool:
    """Exhaustive: whether every net has a wire, no cell on two (small layouts only)."""
    h, w = free.shape
    ends = [[int(y * w + x) for x, y in np.asarray(p).tolist()] for p in pins]
    pin_cells = {c for e in ends for c in e}
    ok = free.ravel().copy()

    def nets_from(k: int) -> bool:
        if k == len(ends):
            return True
        a, b = ends[k]

        def walk(c: int) -> bool:
            if c == b:
                return nets_from(k + 1)
            x, y = c % w, c // w
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                d = ny * w + nx
                if 0 <= nx < w and 0 <= ny < h and ok[d] and (d == b or d not in pin_cells):
                    ok[d] = False
                    found = walk(d)
                    ok[d] = True
                    if found:
                        return True
            return False

        ok[a] = False
        found = walk(a)
        ok[a] = True
        return found

    return nets_from(0)


def _dfs(ok, w, h, c, b, path, seen, rng) -> bool:
    """Extend ``path`` (ending at ``c``) to ``b`` depth first, neighbours in a random order."""
    if c == b:
        return True
    x, y = c % w, c // w
    steps = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
    for k in rng.permutation(4):
        nx, ny = steps[k]
        d = ny * w + nx
        if 0 <= nx < w and 0 <= ny < h and d not in seen and (d == b or ok[d]):
            seen.add(d)
            path.append(d)
            if _dfs(ok, w, h, d, b, path, seen, rng):
                return True
            path.pop()
    return False


def _winding(free, pins, seed):
    """Each net in turn by the first way a depth-first search finds through the cells no
    wire or pin holds, its neighbours in a random order: wires that wind and block."""
    h, w = free.shape
    rng = np.random.default_rng(seed)
    ok = free.ravel().copy()
    for p in pins:
        ok[_flat(np.asarray(p), w)] = False
    routes = []
    for p in pins:
        a, b = _flat(np.asarray(p), w).tolist()
        path = [a]
        if _dfs(ok, w, h, a, b, path, {a}, rng):
            ok[path] = False
            routes.append(np.array(path, np.int64))
        else:
            routes.append(None)
    return routes


def test_a_wire_in_the_way_moves_so_that_the_net_it_blocked_connects():
    free = np.ones((3, 4), bool)
    pins = [np.array([[0, 0], [3, 0]]), np.array([[0, 2], [3, 2]])]
    a = _flat([(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 1), (3, 1), (3, 0)], 4)
    got = complete_in_windows(free, pins, [a, None], max_unrouted=1)
    assert got.added == 1 and got.found == 1
    _check(free, pins, [a, None], got.routes)


def test_wires_crossing_the_window_keep_their_cells_outside_it():
    # a long wire c runs round the whole border of an 7 x 7 grid and dips into the
    # middle, where it blocks b; the first window (margin 1) cuts c into a piece
    free = np.ones((7, 7), bool)
    pins = [np.array([[0, 6], [6, 6]]), np.array([[2, 3], [4, 3]])]
    ring = ([(0, y) for y in range(6, -1, -1)] + [(x, 0) for x in range(1, 3)]
            + [(2, 1), (2, 2), (3, 2), (3, 3), (3, 4), (4, 4), (4, 5), (5, 5), (5, 4)]
            + [(5, 3), (5, 2), (5, 1), (5, 0), (6, 0)] + [(6, y) for y in range(1, 7)])
    c = _flat(ring, 7)
    before = [c, None]
    got = complete_in_windows(free, pins, before, first_margin=1, **EXACT)
    assert got.added == 1
    _check(free, pins, before, got.routes)
    outside = [v for v in c.tolist() if not (1 <= v % 7 <= 5 and 2 <= v // 7 <= 4)]
    assert set(outside) <= set(got.routes[0].tolist())


def test_nets_that_must_cross_stay_unrouted_and_nothing_moves():
    free = np.ones((3, 3), bool)
    pins = [np.array([[0, 1], [2, 1]]), np.array([[1, 0], [1, 2]])]
    a = _flat([(0, 1), (1, 1), (2, 1)], 3)
    got = complete_in_windows(free, pins, [a, None], **EXACT)
    assert got.added == 0 and got.routes[1] is None
    assert got.routes[0].tolist() == a.tolist()


def test_a_route_that_is_not_a_path_between_its_pins_is_refused():
    free = np.ones((3, 3), bool)
    pins = [np.array([[0, 0], [2, 0]]), np.array([[0, 2], [2, 2]])]
    for bad in ([0, 2], [0], [0, 1, 2, 5], [2, 1, 0, -1], [0, 1, 2, 3, 2]):
        with pytest.raises(ValueError, match="path"):
            complete_in_windows(free, pins, [np.array(bad), None], max_unrouted=1)
    # a row's last cell and the next row's first are not neighbours
    pins = [np.array([[0, 0], [0, 1]]), np.array([[1, 2], [2, 2]])]
    with pytest.raises(ValueError, match="path"):
        complete_in_windows(free, pins, [np.array([0, 1, 2, 3]), None], max_unrouted=1)
    with pytest.raises(ValueError, match="path"):           # past the grid's last row
        complete_in_windows(np.ones((2, 3), bool), [np.array([[0, 1], [1, 1]]),
                                                    np.array([[2, 0], [2, 1]])],
                            [np.array([3, 6, 7, 4]), None], max_unrouted=1)
    # the wires of many nets are checked together: a good one and a bad one
    pins = [np.array([[0, 0], [2, 0]]), np.array([[0, 1], [2, 1]]),
            np.array([[0, 2], [2, 2]])]
    with pytest.raises(ValueError, match="path"):
        complete_in_windows(free, pins, [np.array([0, 1, 2]), np.array([3, 4, 8, 5]), None],
                            max_unrouted=1)
    got = complete_in_windows(free, pins, [np.array([2, 1, 0]), np.array([3, 4, 5]), None],
                              max_unrouted=1)            # either direction is a path
    assert got.routes[2].tolist() == [6, 7, 8]


def test_sparse_layouts_are_left_alone():
    free = np.ones((20, 20), bool)
    pins = [np.array([[0, 0], [19, 0]]), np.array([[5, 5], [6, 5]])]
    before = [_flat([(x, 0) for x in range(20)], 20), None]
    got = complete_in_windows(free, pins, before, max_unrouted=1)   # 22 of 400 cells held
    assert got.windows == 0 and got.routes[1] is None


@st.composite
def small_layouts(draw):
    h, w = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    free = np.array(draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w)), bool)
    free = free.reshape(h, w) | (np.arange(h * w).reshape(h, w) % 4 != 0)
    open_ = [(int(x), int(y)) for y, x in zip(*np.nonzero(free))]
    k = draw(st.integers(1, min(4, len(open_) // 2)))
    chosen = draw(st.permutations(open_))[:2 * k]
    return free, [np.array(chosen[2 * i:2 * i + 2]) for i in range(k)]


@settings(max_examples=300, deadline=None)
@given(small_layouts(), st.integers(0, 2), st.integers(0, 2**32 - 1))
def test_connects_every_net_exactly_when_a_routing_of_all_exists(case, margin, seed):
    free, pins = case
    before = _winding(free, pins, seed)
    got = complete_in_windows(free, pins, before, first_margin=margin, **EXACT)
    _check(free, pins, before, got.routes)
    every = all(r is not None for r in got.routes)
    assert every == _all_routable(free, pins)
    assert got.added == sum(r is not None for r in got.routes) - sum(
        r is not None for r in before)


def test_the_same_input_gives_the_same_routes():
    rng = np.random.default_rng(5)
    free = rng.random((9, 9)) > 0.15
    open_ = [(int(x), int(y)) for y, x in zip(*np.nonzero(free))]
    chosen = [open_[i] for i in rng.permutation(len(open_))[:16]]
    pins = [np.array(chosen[2 * i:2 * i + 2]) for i in range(8)]
    before = _winding(free, pins, 5)
    one = complete_in_windows(free, pins, before, **EXACT)
    two = complete_in_windows(free, pins, before, **EXACT)
    _check(free, pins, before, one.routes)
    assert [None if r is None else r.tolist() for r in one.routes] == \
        [None if r is None else r.tolist() for r in two.routes]


@st.composite
def cut_snakes(draw):
    """A boustrophedon path over an h x w grid cut into pieces of 2 or more cells, each
    piece's ends a net: a layout with a routing of every net by construction."""
    h, w = draw(st.integers(2, 5)), draw(st.integers(3, 6))
    snake = [(x if y % 2 == 0 else w - 1 - x, y) for y in range(h) for x in range(w)]
    cuts = sorted(draw(st.sets(st.integers(2, h * w - 2), max_size=h * w // 3)))
    pieces, start = [], 0
    for c in [*cuts, h * w]:
        if c - start >= 2:
            pieces.append(snake[start:c])
            start = c
    return np.ones((h, w), bool), [np.array([p[0], p[-1]]) for p in pieces]


@settings(max_examples=300, deadline=None)
@given(cut_snakes(), st.integers(0, 2**32 - 1))
def test_connects_every_net_of_layouts_that_have_a_routing_of_all(case, seed):
    free, pins = case
    before = _winding(free, pins, seed)
    got = complete_in_windows(free, pins, before, **EXACT)
    _check(free, pins, before, got.routes)
    assert all(r is not None for r in got.routes)


def test_negotiation_connects_the_net_it_left_by_a_window():
    """A 40 x 40 board cut from a random Hamiltonian path (benchmarks/numberlink_heldout.py,
    ``cut_path_puzzle(40, 4, 3, 30)``): negotiation and the space-filling search leave one
    of its 104 nets unrouted; a window round it connects it, and the routes keep the
    contract."""
    from pathlib import Path

    from mazeroute.contract import check_routes
    from mazeroute.readers import load_layout
    from mazeroute.router import PathFinderOptions, route

    lay = load_layout(Path(__file__).parent / "data" / "cut40_4.yaml")
    without = route(lay, backend="cpu", mode="negotiate",
                    options=PathFinderOptions(window_work=0))
    res = route(lay, backend="cpu", mode="negotiate")
    assert without.routed == len(lay.nets) - 1
    assert res.routed == len(lay.nets)
    assert check_routes(lay, res.to_json()) == []
    assert "windows" in res.notice
    assert [p.phase for p in res.phases].count("exact windows") == 1


def test_windows_passed_over_count_as_work():
    """Windows built and then passed over (here: none is dense enough) count as work too,
    so that their number stays bounded: a small budget stops the search early."""
    free = np.ones((30, 30), bool)
    pins = [np.array([[0, 0], [29, 0]]), np.array([[5, 5], [6, 5]])]
    before = [np.arange(30, dtype=np.int64), None]
    common = dict(min_density=2.0, min_layout_density=0.0, max_unrouted=1.0)
    whole = complete_in_windows(free, pins, before, **common)
    assert whole.windows == 0 and whole.work > 0 and not whole.full
    cut = complete_in_windows(free, pins, before, work=whole.work - 1, **common)
    assert cut.windows == 0 and cut.full and cut.work >= whole.work - 1


CTRL_C_IN_A_SOLVE = r'''
import signal
import numpy as np
import pysat.solvers
from mazeroute.router.windows import complete_in_windows

class Hard(pysat.solvers.Solver):
    """The window's problem and a pigeonhole problem (11 into 10) beside it, and a
    budget of 200,000 conflicts: the solve runs out of them after a second or more."""
    def __init__(self, name, bootstrap_with):
        top = max(abs(x) for c in bootstrap_with for x in c)
        v = lambda i, j: top + i * 10 + j + 1
        php = [[v(i, j) for j in range(10)] for i in range(11)]
        php += [[-v(a, j), -v(b, j)] for j in range(10) for a in range(11)
                for b in range(a + 1, 11)]
        super().__init__(name=name, bootstrap_with=list(bootstrap_with) + php)

    def conf_budget(self, budget):
        super().conf_budget(200_000)

    def solve_limited(self, *args, **kwargs):
        print("solving", flush=True)          # the test's Ctrl-C comes now
        return super().solve_limited(*args, **kwargs)

pysat.solvers.Solver = Hard
free = np.ones((3, 4), bool)
pins = [np.array([[0, 0], [3, 0]]), np.array([[0, 2], [3, 2]])]
a = np.array([y * 4 + x for x, y in [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 1),
                                     (3, 1), (3, 0)]])
try:
    complete_in_windows(free, pins, [a, None], max_unrouted=1)
    print("not interrupted")
except KeyboardInterrupt:
    print("KeyboardInterrupt", signal.getsignal(signal.SIGINT) is signal.default_int_handler)
'''


def test_ctrl_c_during_a_solve_is_pythons_keyboard_interrupt(tmp_path):
    """python-sat's solve in the main thread used to install a SIGINT handler of its own:
    a Ctrl-C during a window's solve came out as pysat's error (a batch logged a failed
    layout and went on), and a later signal could deadlock in the solver's destructor.
    Now the solve leaves SIGINT to Python: a KeyboardInterrupt when it returns, and
    Python's handler in place after it."""
    import signal
    import subprocess
    import sys
    import time
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_IN_A_SOLVE)
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "solving"
        time.sleep(0.3)
        child.send_signal(signal.SIGINT)      # from another process, as a terminal's
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert out.strip() == "KeyboardInterrupt True", out + err
    assert "Traceback" not in err and child.returncode == 0


def test_the_solves_leave_pysats_main_thread_check_as_it_was(monkeypatch):
    import pysat.solvers
    seen = []
    real = pysat.solvers.Solver

    class Watched(real):
        def solve_limited(self, *a, **k):
            seen.append(pysat.solvers.MainThread.check())
            return super().solve_limited(*a, **k)
    monkeypatch.setattr(pysat.solvers, "Solver", Watched)
    free = np.ones((3, 4), bool)
    pins = [np.array([[0, 0], [3, 0]]), np.array([[0, 2], [3, 2]])]
    got = complete_in_windows(free, pins, [_flat([(0, 0), (1, 0), (2, 0), (3, 0)], 4), None],
                              max_unrouted=1)
    assert got.added == 1 and seen and not any(seen)
    assert pysat.solvers.MainThread.check() is True       # pytest runs in the main thread


def test_inputs_that_are_no_legal_routing_are_refused_in_words():
    free = np.ones((3, 4), bool)
    pins = [np.array([[0, 0], [3, 0]]), np.array([[0, 2], [3, 2]])]
    row0, row2 = _flat([(0, 0), (1, 0), (2, 0), (3, 0)], 4), _flat([(x, 2) for x in range(4)], 4)
    blocked = free.copy()
    blocked[0, 1] = False
    cases = [
        (dict(free=free, pins=[np.array([[0, 0], [4, 0]]), pins[1]], routes=[None, None]),
         "outside the 4 x 3 grid"),
        (dict(free=free, pins=[np.array([[-1, 0], [3, 0]]), pins[1]], routes=[None, None]),
         "outside"),
        (dict(free=free, pins=[np.array([[0, 0, 1], [3, 0, 1]]), pins[1]],
              routes=[None, None]), "two cells of two integers"),
        (dict(free=free, pins=pins, routes=[None]), "1 routes for 2 nets"),
        (dict(free=free, pins=[pins[0], np.array([[0, 0], [3, 2]])], routes=[None, None]),
         "share a pin"),
        (dict(free=blocked, pins=pins, routes=[row0, None]), "not free"),
        (dict(free=free, pins=[pins[0], np.array([[1, 0], [1, 2]])],
              routes=[row0, _flat([(1, 0), (1, 1), (1, 2)], 4)]), "two routes"),
        (dict(free=free, pins=[pins[0], np.array([[1, 1], [2, 0]])],
              routes=[row0, None]), "another net's pin"),
        (dict(free=free.ravel(), pins=pins, routes=[row0, None]), "2-D grid"),
        (dict(free=free, pins=pins, routes=[row0, None], nets=[5]), "net indices below 2"),
        (dict(free=free, pins=pins, routes=[row0, None], first_margin=-1), "first_margin"),
    ]
    for kwargs, words in cases:
        with pytest.raises(ValueError, match=words):
            complete_in_windows(**kwargs, max_unrouted=1)
    # no nets at all, and nets named twice: nothing to refuse
    assert complete_in_windows(np.ones((1, 1), bool), [], []).added == 0
    got = complete_in_windows(free, pins, [None, row2], nets=[0, 0, 0], max_unrouted=1)
    assert got.added == 1 and got.windows == 1


def test_no_window_is_solved_once_until_says_the_time_is_out():
    """``until`` (a time limit's clock) is asked before each window: once it says True
    nothing more is solved, the routes stay as they were, and the call says it stopped."""
    free = np.ones((3, 4), bool)
    pins = [np.array([[0, 0], [3, 0]]), np.array([[0, 2], [3, 2]])]
    a = _flat([(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 1), (3, 1), (3, 0)], 4)
    asked = []
    got = complete_in_windows(free, pins, [a, None], max_unrouted=1,
                              until=lambda: asked.append(1) or True)
    assert asked and got.added == got.windows == 0 and got.full
    assert got.routes[1] is None and np.array_equal(got.routes[0], a)
