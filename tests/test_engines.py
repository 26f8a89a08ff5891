"""Every CPU engine equals the oracle; the registry resolves names as documented."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines import BLOCKED, UNREACHED, make_problem, resolve, strategies
from mazeroute.errors import EngineUnavailable, InputError
from mazeroute.graph import GridGraph, fig15_1_graph
from tests.corpus import engines, hand_cases, random_cases, runs

CPU = engines("cpu")
CASES = hand_cases() + random_cases(60, max_side=48)


def _levels(problem, case):
    return problem.wavefront(list(case.sources)).levels()


@pytest.mark.parametrize("key", CPU, ids="/".join)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cpu_engine_equals_oracle(case, key):
    if not runs(case, key):
        pytest.skip(f"{key[1]} works on grids only")
    problem = make_problem(case.graph, *key)
    np.testing.assert_array_equal(_levels(problem, case), case.expected())


@pytest.mark.parametrize("key", CPU, ids="/".join)
def test_fig15_1_levels_from_book(key):
    if not runs(hand_cases()[0], key):
        pytest.skip("grid-only engine")
    problem = make_problem(fig15_1_graph(), *key)
    by_level = lambda lv: {k: np.flatnonzero(lv == k).tolist() for k in range(lv.max() + 1)}  # noqa: E731
    assert by_level(problem.wavefront([0]).levels()) == {0: [0], 1: [1, 2], 2: [3, 4, 5, 6, 7],
                                                         3: [8]}
    assert by_level(problem.wavefront([2]).levels()) == {0: [2], 1: [5, 6, 7], 2: [0, 8],
                                                         3: [1], 4: [3, 4]}


@pytest.mark.parametrize("key", CPU, ids="/".join)
def test_unobstructed_root_grows_a_diamond(key):
    problem = make_problem(GridGraph(np.ones((21, 21), bool)), *key)
    lv = problem.wavefront([10 * 21 + 10]).levels()
    assert [(lv == k).sum() for k in range(1, 4)] == [4, 8, 12]


def _masks(side: int):
    """Random free masks of 1 to ``side`` cells a side."""
    return st.integers(1, side).flatmap(lambda w: st.integers(1, side).flatmap(
        lambda h: st.lists(st.booleans(), min_size=w * h, max_size=w * h).map(
            lambda b: np.array(b, bool).reshape(h, w))))


@given(free=_masks(24), data=st.data())
@settings(max_examples=150, deadline=None)
def test_random_layouts_equal_oracle(free, data):
    from tests.corpus import Case
    free = free.copy()
    h, w = free.shape
    x, y = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1))
    free[y, x] = True
    g = GridGraph(free)
    case = Case("hyp", g, (g.vertex(x, y),))
    for key in CPU:
        np.testing.assert_array_equal(_levels(make_problem(g, *key), case), case.expected())


@given(free=_masks(20), data=st.data())
@settings(max_examples=150, deadline=None)
def test_bfs_on_a_mask_equals_oracle_up_to_its_targets(free, data):
    """cpu.bfs_on_mask (a device engine's host searches): blocked cells from the mask,
    levels exact up to the targets' level, only the queued cells touched."""
    from mazeroute.engines.cpu import _reset, bfs_on_mask
    from mazeroute.engines.oracle import oracle_levels
    h, w = free.shape
    cells = data.draw(st.lists(st.integers(0, h * w - 1), min_size=1, max_size=3, unique=True))
    free = free.copy()
    free.ravel()[cells] = True
    src, targets = np.array(cells[:1], np.int32), np.array(cells[1:], np.int64)
    want = oracle_levels(GridGraph(free).csr, src.tolist(), ~free.ravel())
    level = np.full(h * w, UNREACHED, np.uint32)
    queue = np.empty(h * w, np.int32)
    is_target = np.zeros(h * w, bool)
    is_target[targets] = True
    touched = bfs_on_mask(free.ravel(), w, h, level, queue, src, is_target)
    reached = targets[want[targets] < UNREACHED]
    stop = int(want[reached].min()) if reached.size else int(want[want < UNREACHED].max())
    near = want <= stop
    np.testing.assert_array_equal(level[near], want[near])
    assert (level[~near] == UNREACHED).all()
    assert sorted(queue[:touched].tolist()) == np.flatnonzero(near).tolist()
    _reset(level, queue, touched)
    assert (level == UNREACHED).all()


@pytest.mark.parametrize("key", CPU, ids="/".join)
def test_early_exit_labels_every_level_up_to_the_target(key):
    for case in random_cases(30, max_side=40, seed=7):
        if not case.is_grid:
            continue
        want = case.expected().ravel()
        reach = np.flatnonzero(want != UNREACHED)
        problem = make_problem(case.graph, *key)
        targets = reach[::max(1, len(reach) // 3)][::-1]
        wave = problem.wavefront(list(case.sources), targets)
        best = want[targets].min()
        assert wave.target_level == best
        assert wave.target == targets[np.flatnonzero(want[targets] == best)[0]]
        got = wave.levels().ravel()
        inside = want <= best
        np.testing.assert_array_equal(got[inside], want[inside])


@pytest.mark.parametrize("key", CPU, ids="/".join)
def test_host_levels_are_the_levels_a_backtrace_reads_without_a_copy(key):
    """Wavefront.host_levels: the whole grid's levels, read-only, with no copy; exact
    below the target's level (all a backtrace reads), and the next run's."""
    for case in random_cases(20, max_side=40, seed=11):
        if not case.is_grid:
            continue
        want = case.expected().ravel()
        reach = np.flatnonzero(want != UNREACHED)
        problem = make_problem(case.graph, *key)
        wave = problem.wavefront(list(case.sources), reach[-1:])
        host = wave.host_levels()
        assert host.shape == case.graph.free.shape and not host.flags.writeable
        got = host.ravel()
        below = want < wave.target_level
        np.testing.assert_array_equal(got[below], want[below])
        # no labelled level is wrong past the target's either (blocked may read BLOCKED)
        assert ((got >= want) | (got == BLOCKED)).all()
        problem.wavefront(list(case.sources))
        np.testing.assert_array_equal(np.where(host == BLOCKED, UNREACHED, host).ravel(),
                                      want)       # a view: it reads the next run


@pytest.mark.parametrize("key", CPU, ids="/".join)
def test_blocking_and_reuse_across_wavefronts(key):
    g = GridGraph(np.ones((5, 5), bool))
    problem = make_problem(g, *key)
    wall = g.vertices([(2, y) for y in range(5)])
    first = problem.wavefront([0]).levels()
    problem.set_blocked(wall)
    second = problem.wavefront([0]).levels()
    assert first[0, 4] == 4 and second[0, 4] == UNREACHED and (second[:, 2] == UNREACHED).all()
    problem.set_blocked(wall[:1], False)
    assert problem.wavefront([0]).levels()[0, 4] == 4
    assert not (problem.wavefront([0]).levels() == BLOCKED).any()
    with pytest.raises(ValueError, match="blocked"):
        problem.wavefront([int(wall[2])])


def test_resolve_names_and_errors():
    spec, _ = resolve("cpu", None, GridGraph(np.ones((2, 2), bool)))
    assert (spec.backend, spec.strategy) == ("cpu", "grid")
    spec, _ = resolve("cpu", None, fig15_1_graph())
    assert spec.strategy == "csr"
    assert {"grid", "csr"} <= set(strategies("cpu"))
    with pytest.raises(InputError, match="unknown strategy"):
        resolve("cpu", "nope")
    with pytest.raises(InputError, match="unknown backend"):
        resolve("tpu")
    with pytest.raises(InputError, match="grids only"):
        resolve("cpu", "grid", fig15_1_graph())


def test_gpu_backend_without_device_is_a_clear_error(monkeypatch):
    import mazeroute.engines as eng
    monkeypatch.setattr(eng, "gpu_available", lambda: False)
    if not any(b == "gpu" for b, _ in eng.ENGINES):
        pytest.skip("no GPU engines registered")
    with pytest.raises(EngineUnavailable, match="CuPy"):
        resolve("gpu")
    spec, notice = resolve("auto", None, GridGraph(np.ones((2, 2), bool)))
    assert spec.backend == "cpu" and "CPU" in notice


def _fake_cupy(monkeypatch, capability: str, count: int = 1):
    """A stand-in ``cupy`` module that reports ``count`` devices of ``capability``."""
    import sys
    import types

    import mazeroute.engines as eng
    from mazeroute.plan import device
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=lambda: count),
        Device=lambda: types.SimpleNamespace(compute_capability=capability))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    uncached = getattr(device.gpu_status, "__wrapped__", device.gpu_status)
    monkeypatch.setattr(device, "gpu_status", uncached)
    monkeypatch.setattr(eng, "gpu_status", uncached)
    return eng


def test_gpu_older_than_the_kernels_is_refused_in_one_line(monkeypatch):
    eng = _fake_cupy(monkeypatch, "75")
    ok, why = eng.gpu_status()
    assert not ok and "7.5" in why and "8.0" in why and "\n" not in why
    assert not eng.gpu_available()
    with pytest.raises(EngineUnavailable, match="7.5"):
        resolve("gpu")
    spec, notice = resolve("auto", None, GridGraph(np.ones((2, 2), bool)))
    assert spec.backend == "cpu" and "7.5" in notice and "CPU" in notice


def test_gpu_new_enough_is_accepted_by_the_status_check(monkeypatch):
    eng = _fake_cupy(monkeypatch, "90")
    assert eng.gpu_status() == (True, "")
    eng = _fake_cupy(monkeypatch, "80", count=0)
    assert eng.gpu_status()[0] is False


def test_first_line_shortens_multi_line_errors():
    from mazeroute.engines import first_line
    e = RuntimeError("nvrtc: error\n" + "x" * 500)
    assert first_line(e) == "nvrtc: error"
    assert len(first_line(RuntimeError("y" * 500))) == 160
