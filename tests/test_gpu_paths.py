"""The code paths of the textbook GPU strategies that the shared corpus rarely reaches.

Shared-memory overflow (``privatized`` falls back to the global queue, ``singleblock``
hands back to the multi-block kernel and takes over again), both direction switches of
``diropt``, high-degree and directed graphs, and a source that is itself a target.
Expected levels come from the oracle. Marked ``gpu``; the module imports without CuPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.engines import ENGINES, make_problem
from mazeroute.engines.oracle import oracle_levels
from mazeroute.graph import CSRGraph, GridGraph, fig15_1_graph
from tests.corpus import engines, hand_cases, random_cases

pytestmark = pytest.mark.gpu

GPU = engines("gpu")
CASES = hand_cases() + random_cases(40, max_side=160, seed=11)


@pytest.fixture(scope="module")
def gpu():
    return pytest.importorskip("mazeroute.engines.gpu")


def _check(problem, case):
    got = problem.wavefront(list(case.sources)).levels()
    np.testing.assert_array_equal(got, case.expected(), err_msg=case.id)


def _star_and_chain(fan: int = 3000) -> CSRGraph:
    """Vertex 0 points to 1..fan, each of those to fan+1, which starts a chain of 50."""
    n = fan + 52
    edges = [(0, v) for v in range(1, fan + 1)] + [(v, fan + 1) for v in range(1, fan + 1)]
    edges += [(fan + 1 + i, fan + 2 + i) for i in range(50)] + [(n - 1, 0)]
    src, dst = np.array(edges).T
    order = np.lexsort((dst, src))
    srcPtrs = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=srcPtrs[1:])
    return CSRGraph(srcPtrs, dst[order])


def test_privatized_overflow_to_the_global_queue(gpu):
    for case in CASES:
        _check(gpu.PrivatizedProblem(case.graph, capacity=4), case)
    g = _star_and_chain()
    want = oracle_levels(g, [0])
    got = gpu.PrivatizedProblem(g, capacity=32).wavefront([0]).levels()
    np.testing.assert_array_equal(got, want)


def test_singleblock_hands_back_and_takes_over_again(gpu):
    both = 0
    for case in CASES:
        p = gpu.SingleBlockProblem(case.graph, capacity=16)
        _check(p, case)
        both += p.launches[0] > 1 and p.launches[1] > 0
    assert both > 0, "no case switched between the single-block and multi-block kernels"
    g = _star_and_chain()
    p = gpu.SingleBlockProblem(g, capacity=64)
    np.testing.assert_array_equal(p.wavefront([0]).levels(), oracle_levels(g, [0]))
    assert p.launches[1] >= 1 and p.launches[0] >= 2     # star overflows, chain fits again


def test_singleblock_stops_inside_the_block_at_a_target(gpu):
    free = np.ones((1, 300), bool)
    p = gpu.SingleBlockProblem(GridGraph(free))
    wave = p.wavefront([0], [120, 200])
    assert (wave.target, wave.target_level, wave.num_levels) == (120, 120, 121)
    assert p.launches == [1, 0]
    lv = wave.levels().ravel()
    np.testing.assert_array_equal(lv[:121], np.arange(121))


def test_diropt_switches_both_ways_and_stays_exact(gpu):
    seen = set()
    for case in CASES:
        p = gpu.DirOptProblem(case.graph)
        _check(p, case)
        d = p.directions
        seen.update(f"{a}->{b}" for a, b in zip(d, d[1:]) if a != b)
    assert {"push->pull", "pull->push"} <= seen
    always_pull = gpu.DirOptProblem(fig15_1_graph(), alpha=1e9)
    np.testing.assert_array_equal(always_pull.wavefront([0]).levels(),
                                  oracle_levels(fig15_1_graph(), [0]))
    assert always_pull.directions == ["push", "pull", "pull", "pull"]


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_high_degree_directed_graph(key):
    if ENGINES[key].form == "grid":
        pytest.skip(f"{key[1]} works on grids only")
    g = _star_and_chain()
    problem = make_problem(g, *key)
    for root in (0, 3001, 17):
        np.testing.assert_array_equal(problem.wavefront([root]).levels(),
                                      oracle_levels(g, [root]))


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_a_source_that_is_a_target_stops_at_level_0(key):
    g = GridGraph(np.ones((8, 8), bool))
    wave = make_problem(g, *key).wavefront([9, 40], [40, 63])
    assert (wave.target, wave.target_level, wave.num_levels) == (40, 0, 1)
    lv = wave.levels().ravel()
    assert lv[9] == lv[40] == 0
