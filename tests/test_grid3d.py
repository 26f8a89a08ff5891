"""The 3-D CPU engines equal the 3-D Dijkstra oracle: BFS (Lee and Dial), the weighted
search, the backtrace (against every shortest path), the backtraces of many boxes at
once, and the CSR export."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines import UNREACHED, bfs, gpu_available
from mazeroute.engines.costs import COST_MAX, DIST_MAX
from mazeroute.engines.grid3d import (
    backtrace3d,
    bfs3d,
    grid3d_csr,
    stack_arrays,
    trace_boxes,
    weighted3d,
)
from mazeroute.engines.oracle3d import (
    neighbours3d,
    oracle_dist3d,
    oracle_early3d,
    oracle_paths3d,
    vias_and_bends,
)
from mazeroute.errors import InputError
from tests.corpus import engines
from tests.corpus3d import Case3D, hand_cases3d

CASES = hand_cases3d()
IDS = [c.id for c in CASES]


def _bfs(case: Case3D, targets=True):
    return bfs3d(case.free, case.sources, targets=case.targets if targets else None,
                 **case.rules)


def _reached_targets(case: Case3D, dist: np.ndarray):
    return [t for t in case.targets if dist[t[2], t[1], t[0]] != UNREACHED]


def _check_best_path(case: Case3D, dist, target, cost=None):
    """The backtrace is a legal shortest path with the oracle's fewest (vias, bends)."""
    path = [tuple(p) for p in backtrace3d(dist, target, cost=cost, **case.rules).tolist()]
    assert path[0] == tuple(target) and path[-1] in case.sources
    total = 0
    for a, b in zip(path, path[1:]):
        moves = dict(neighbours3d(case.free, case.directions, case.via_sites, b))
        assert a in moves, f"{b} -> {a} is not a legal move"
        base = 1 if cost is None else int(cost[a[2]][a[1]][a[0]])
        total += base * (case.via_cost if moves[a] else 1)
    assert total == dist[target[2], target[1], target[0]]
    every = oracle_paths3d(case.free, case.sources, target, cost=cost, **case.rules)
    assert vias_and_bends(path) == min(vias_and_bends(p) for p in every)


# -- the hand-made corpus ----------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bfs3d_equals_oracle_with_early_exit(case):
    got = _bfs(case)
    assert got.dtype == np.uint32 and got.shape == case.free.shape
    np.testing.assert_array_equal(got, case.expected())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bfs3d_full_search_equals_oracle(case):
    np.testing.assert_array_equal(_bfs(case, targets=False), case.expected(targets=False))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_weighted3d_equals_oracle(case):
    cost = case.weights()
    got = weighted3d(cost, case.sources, case.targets, free=case.free, **case.rules)
    np.testing.assert_array_equal(got, case.expected(weighted=True))
    full = weighted3d(cost, case.sources, free=case.free, **case.rules)
    np.testing.assert_array_equal(full, case.expected(targets=False, weighted=True))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_weighted3d_on_unit_costs_is_bfs3d(case):
    ones = np.ones(case.free.shape, np.uint16)
    got = weighted3d(ones, case.sources, case.targets, free=case.free, **case.rules)
    np.testing.assert_array_equal(got, case.expected())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_backtrace3d_has_fewest_vias_then_bends(case):
    dist = _bfs(case, targets=False)
    for target in _reached_targets(case, dist):
        _check_best_path(case, dist, target)
    cost = case.weights()
    wdist = weighted3d(cost, case.sources, free=case.free, **case.rules)
    for target in _reached_targets(case, wdist):
        _check_best_path(case, wdist, target, cost)


@pytest.mark.parametrize("case", [c for c in CASES if c.via_cost == 1],
                         ids=lambda c: c.id)
def test_csr_export_bfs_equals_bfs3d(case):
    g = grid3d_csr(case.free, case.directions, case.via_sites)
    roots = [(z * case.free.shape[1] + y) * case.free.shape[2] + x for x, y, z in case.sources]
    got = bfs(g, roots, backend="cpu", strategy="csr").reshape(case.free.shape)
    np.testing.assert_array_equal(got, _bfs(case, targets=False))


@pytest.mark.gpu
@pytest.mark.parametrize("key", engines("gpu"), ids="/".join)
@pytest.mark.parametrize("case", [c for c in CASES if c.via_cost == 1],
                         ids=lambda c: c.id)
def test_csr_export_on_gpu_strategies_equals_bfs3d(case, key):
    if not gpu_available():
        pytest.skip("needs CuPy and a CUDA device")
    from mazeroute.engines import ENGINES
    if ENGINES[key].form == "grid":
        pytest.skip("grid-only engine")
    g = grid3d_csr(case.free, case.directions, case.via_sites)
    roots = [(z * case.free.shape[1] + y) * case.free.shape[2] + x for x, y, z in case.sources]
    got = bfs(g, roots, backend=key[0], strategy=key[1]).reshape(case.free.shape)
    np.testing.assert_array_equal(got, _bfs(case, targets=False))


# -- named behaviours ----------------------------------------------------------------------
def test_one_layer_equals_the_2d_cpu_engine():
    for case in CASES:
        if case.free.shape[0] == 1 and case.directions == ("any",):
            mask = case.free[0]
            roots = [(x, y) for x, y, _ in case.sources]
            np.testing.assert_array_equal(_bfs(case, targets=False)[0],
                                          bfs(mask, roots, backend="cpu"))


def test_direction_rules_restrict_moves():
    row = bfs3d(np.ones((1, 2, 3), bool), [(0, 0, 0)], directions=["horizontal"])
    assert row.tolist() == [[[0, 1, 2], [UNREACHED] * 3]]
    col = bfs3d(np.ones((1, 2, 3), bool), [(0, 0, 0)], directions=["vertical"])
    assert col[0, :, 0].tolist() == [0, 1] and (col[0, :, 1:] == UNREACHED).all()


def test_vias_only_at_via_sites_and_priced_by_via_cost():
    sites = np.zeros((1, 4), bool)
    sites[0, 3] = True
    d = bfs3d(np.ones((2, 1, 4), bool), [(0, 0, 0)], directions=["any", "any"],
              via_cost=3, via_sites=sites)
    assert d[1].tolist() == [[9, 8, 7, 6]]


def test_per_pair_via_sites_allow_only_their_own_pair():
    # (0, 0): vias 0-1 only; (2, 0): vias 1-2 only. Layer 2 is reached only through both.
    sites = np.zeros((2, 1, 3), bool)
    sites[0, 0, 0] = sites[1, 0, 2] = True
    rules = dict(directions=["any", "any", "any"], via_sites=sites)
    d = bfs3d(np.ones((3, 1, 3), bool), [(0, 0, 0)], **rules)
    assert d.tolist() == [[[0, 1, 2]], [[1, 2, 3]], [[6, 5, 4]]]
    np.testing.assert_array_equal(d, oracle_dist3d(np.ones((3, 1, 3), bool), [(0, 0, 0)],
                                                   **rules))
    path = backtrace3d(d, (0, 0, 2), **rules).tolist()
    assert path == [[0, 0, 2], [1, 0, 2], [2, 0, 2], [2, 0, 1], [1, 0, 1], [0, 0, 1],
                    [0, 0, 0]]
    g = grid3d_csr(np.ones((3, 1, 3), bool), rules["directions"], sites)
    assert g.num_edges == 2 * 6 + 2 * 2       # six steps and two vias, both ways
    w = weighted3d(np.ones((3, 1, 3), int), [(0, 0, 0)], **rules)
    np.testing.assert_array_equal(w, d)


def test_walled_off_target_searches_everything_reachable():
    case = next(c for c in CASES if c.id == "walled-off-target-via1")
    got = _bfs(case)
    assert got[1, 2, 2] == UNREACHED
    np.testing.assert_array_equal(got, oracle_dist3d(case.free, case.sources, **case.rules))


def test_early_exit_clears_labels_beyond_the_target():
    d = bfs3d(np.ones((2, 1, 6), bool), [(0, 0, 0)], directions=["any", "any"], via_cost=4,
              targets=[(2, 0, 0)])
    assert d.tolist() == [[[0, 1, 2] + [UNREACHED] * 3], [[UNREACHED] * 6]]


def test_paths_dearer_than_dist_max_count_as_unreachable():
    cost = np.full((2, 1, 2), COST_MAX)
    rules = dict(directions=["any", "any"], via_cost=DIST_MAX // COST_MAX + 1)
    got = weighted3d(cost, [(0, 0, 0)], **rules)
    assert got[1].tolist() == [[UNREACHED, UNREACHED]]
    np.testing.assert_array_equal(got, oracle_dist3d(np.ones((2, 1, 2), bool),
                                                     [(0, 0, 0)], cost=cost, **rules))


def test_backtrace3d_prefers_fewer_vias_over_a_straighter_wire():
    # Both cost 6: over the dear cell on layer 1 (two vias, no bend) or round it on
    # layer 0 (no via, two bends).
    cost = np.array([[[1, 1, 99, 1, 1], [1, 1, 1, 1, 1]], [[1, 1, 1, 1, 1], [9] * 5]])
    rules = dict(directions=["any", "any"], via_cost=1)
    d = weighted3d(cost, [(0, 0, 0)], **rules)
    path = backtrace3d(d, (4, 0, 0), cost=cost, **rules)
    assert d[0, 0, 4] == 6 and vias_and_bends(path.tolist()) == (0, 2)
    every = oracle_paths3d(np.ones(cost.shape, bool), [(0, 0, 0)], (4, 0, 0), cost=cost,
                           **rules)
    assert (2, 0) in {vias_and_bends(p) for p in every}      # the straight rival ties


def test_backtrace3d_ranks_vias_before_bends():
    # Layer 0's only wire bends three times; over layer 1 it is straight, with two vias.
    free = np.ones((2, 2, 5), bool)
    free[0, 0, 1:3] = free[0, 1, 4] = False
    rules = dict(directions=["any", "any"], via_cost=1)
    d = bfs3d(free, [(0, 0, 0)], **rules)
    path = backtrace3d(d, (4, 0, 0), **rules)
    assert vias_and_bends(path.tolist()) == (0, 3) and len(path) == 7
    every = oracle_paths3d(free, [(0, 0, 0)], (4, 0, 0), **rules)
    assert (2, 0) in {vias_and_bends(p) for p in every}


#: Bad input and the field its error names, as calls on an engine module (the CPU's
#: :mod:`mazeroute.engines.grid3d`, the GPU's ``gpu_grid3d``: one table for both).
BAD_INPUT = [
    (lambda m: m.bfs3d(np.ones((2, 2)), [(0, 0, 0)], directions=["any"]), "free"),
    (lambda m: m.bfs3d(np.ones((1, 2, 2)), [(0, 0, 0)], directions=["diagonal"]),
     "directions"),
    (lambda m: m.bfs3d(np.ones((2, 2, 2)), [(0, 0, 0)], directions=["any"]), "directions"),
    (lambda m: m.bfs3d(np.ones((1, 2, 2)), [(2, 0, 0)], directions=["any"]), "sources"),
    (lambda m: m.bfs3d(np.zeros((1, 2, 2)), [(0, 0, 0)], directions=["any"]), "sources"),
    (lambda m: m.bfs3d(np.ones((1, 2, 2)), [(0, 0)], directions=["any"]), "sources"),
    (lambda m: m.bfs3d(np.ones((1, 2, 2)), [(0, 0, 0)], directions=["any"], via_cost=0),
     "via_cost"),
    (lambda m: m.bfs3d(np.ones((1, 2, 2)), [(0, 0, 0)], directions=["any"],
                       via_sites=np.ones((3, 3))), "via_sites"),
    (lambda m: m.bfs3d(np.ones((3, 2, 2)), [(0, 0, 0)], directions=["any"] * 3,
                       via_sites=np.ones((3, 2, 2), bool)), "via_sites"),
    (lambda m: m.weighted3d(np.zeros((1, 2, 2), int), [(0, 0, 0)], directions=["any"]),
     "cost"),
    (lambda m: m.weighted3d(np.ones((1, 2, 2)), [(0, 0, 0)], directions=["any"]), "cost"),
]


@pytest.mark.parametrize("call, field", BAD_INPUT)
def test_bad_input_names_its_field(call, field):
    import mazeroute.engines.grid3d as cpu
    with pytest.raises(InputError) as err:
        call(cpu)
    assert err.value.field == field


def test_backtrace3d_of_an_unreached_target_raises():
    d = bfs3d(np.ones((1, 1, 3), bool), [(0, 0, 0)], directions=["vertical"])
    with pytest.raises(ValueError, match="not reached"):
        backtrace3d(d, (2, 0, 0), directions=["vertical"])


# -- random layouts ------------------------------------------------------------------------
@st.composite
def stacks(draw, max_layers=4, max_side=12, weighted=False):
    layers = draw(st.integers(1, max_layers))
    h, w = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    free = rng.random((layers, h, w)) >= draw(st.floats(0, 0.5))
    cells = [(int(x), int(y), int(z)) for z, y, x in np.argwhere(free)]
    if not cells:
        free[0, 0, 0] = True
        cells = [(0, 0, 0)]
    pick = lambda k: [cells[i] for i in rng.integers(len(cells), size=k)]  # noqa: E731
    sites = None
    shape = draw(st.sampled_from([None, (h, w), (layers - 1, h, w)]))
    if shape is not None:           # a 2-D mask holds for every pair, a 3-D one per pair
        sites = rng.random(shape) < draw(st.floats(0, 1))
    return Case3D(
        f"random-{seed}", free, tuple(pick(draw(st.integers(1, 3)))),
        tuple(pick(draw(st.integers(0, 3)))),
        tuple(draw(st.lists(st.sampled_from(["horizontal", "vertical", "any"]),
                            min_size=layers, max_size=layers))),
        via_cost=draw(st.integers(1, 4)), via_sites=sites,
        cost=rng.integers(1, draw(st.integers(1, 20)) + 1, (layers, h, w)) if weighted
        else None)


@settings(max_examples=150, deadline=None)
@given(stacks())
def test_random_bfs3d_equals_oracle(case):
    np.testing.assert_array_equal(_bfs(case), case.expected())
    np.testing.assert_array_equal(_bfs(case, targets=False), case.expected(targets=False))


@settings(max_examples=150, deadline=None)
@given(stacks(weighted=True))
def test_random_weighted3d_equals_oracle(case):
    got = weighted3d(case.cost, case.sources, case.targets, free=case.free, **case.rules)
    np.testing.assert_array_equal(got, oracle_early3d(case.free, case.sources, case.targets,
                                                      cost=case.cost, **case.rules))


@settings(max_examples=100, deadline=None)
@given(stacks(max_layers=3, max_side=5), st.booleans())
def test_random_backtrace3d_has_fewest_vias_then_bends(case, weighted):
    cost = case.weights() if weighted else None
    dist = (weighted3d(cost, case.sources, free=case.free, **case.rules) if weighted
            else _bfs(case, targets=False))
    reached = np.argwhere(dist != UNREACHED)
    for z, y, x in reached[:: max(1, len(reached) // 6)]:
        _check_best_path(case, dist, (int(x), int(y), int(z)), cost)


@settings(max_examples=60, deadline=None)
@given(stacks())
def test_random_csr_export_equals_bfs3d(case):
    case = Case3D(case.id, case.free, case.sources, (), case.directions, 1, case.via_sites)
    g = grid3d_csr(case.free, case.directions, case.via_sites)
    h, w = case.free.shape[1:]
    roots = [(z * h + y) * w + x for x, y, z in case.sources]
    got = bfs(g, roots, backend="cpu", strategy="csr").reshape(case.free.shape)
    np.testing.assert_array_equal(got, case.expected(targets=False))


def _sides_min(d: np.ndarray, x0: int, y0: int, shape: tuple) -> int:
    """The least distance on the sides of box ``d`` (at ``x0, y0``) that border more
    of a grid of ``shape``."""
    _, height, width = shape
    _, h, w = d.shape
    sides = [d[:, :, 0]] * (x0 > 0) + [d[:, :, -1]] * (x0 + w < width) + \
        [d[:, 0, :]] * (y0 > 0) + [d[:, -1, :]] * (y0 + h < height)
    return min((int(s.min()) for s in sides), default=int(UNREACHED))


@settings(max_examples=100, deadline=None)
@given(stacks(max_layers=3, max_side=8), st.booleans(), st.data())
def test_random_trace_boxes_equal_each_box_traced_alone(case, weighted, data):
    """Searches in boxes of the grid, stepped together: each box's nearest target,
    whether no side bordering more grid is within two of it, and then its path, as
    :func:`backtrace3d` traces the box alone."""
    layers, height, width = case.free.shape
    cost = case.weights() if weighted else None
    boxes, dists, targets, starts = [], [], [], [0]
    for _ in range(data.draw(st.integers(1, 3)) if case.targets else 0):
        s = data.draw(st.sampled_from(case.sources))      # a box around one of each
        t = data.draw(st.sampled_from(case.targets))
        x0 = data.draw(st.integers(0, min(s[0], t[0])))
        x1 = data.draw(st.integers(max(s[0], t[0]) + 1, width))
        y0 = data.draw(st.integers(0, min(s[1], t[1])))
        y1 = data.draw(st.integers(max(s[1], t[1]) + 1, height))
        src = [c for c in case.sources if x0 <= c[0] < x1 and y0 <= c[1] < y1]
        tg = [c for c in case.targets if x0 <= c[0] < x1 and y0 <= c[1] < y1]
        at = np.array([x0, y0, 0])
        rules = dict(case.rules, via_sites=None if case.via_sites is None
                     else case.via_sites[..., y0:y1, x0:x1])
        free = case.free[:, y0:y1, x0:x1]
        d = (weighted3d(cost[:, y0:y1, x0:x1], np.array(src) - at, np.array(tg) - at,
                        free=free, **rules) if weighted else
             bfs3d(free, np.array(src) - at, targets=np.array(tg) - at, **rules))
        boxes.append((x0, y0, x1 - x0, y1 - y0, rules))
        dists.append(d)
        targets += tg
        starts.append(len(targets))
    if not boxes:
        return
    _, axes, vias = stack_arrays(case.free, case.directions, case.via_sites)
    offsets = np.cumsum([0] + [d.size for d in dists])[:-1]
    pick, level, exact, paths, path_starts, counts = trace_boxes(
        np.concatenate([d.ravel() for d in dists]), offsets,
        np.array([b[:4] for b in boxes]), case.free.shape, np.array(targets),
        np.array(starts), axes, None if case.via_sites is None else vias, case.via_cost, cost)
    for b, ((x0, y0, w, h, rules), d) in enumerate(zip(boxes, dists)):
        reach = [int(d[z, y - y0, x - x0]) for x, y, z in targets[starts[b]:starts[b + 1]]]
        assert (pick[b], level[b]) == (starts[b] + int(np.argmin(reach)), min(reach))
        edge = _sides_min(d, x0, y0, case.free.shape)
        assert exact[b] == (edge == UNREACHED if level[b] == UNREACHED
                            else level[b] < edge + 2)
        path = paths[path_starts[b]:path_starts[b + 1]]
        if not exact[b] or level[b] == UNREACHED:
            assert len(path) == 0
            continue
        x, y, z = targets[pick[b]]
        alone = backtrace3d(d, (x - x0, y - y0, z), cost=None if cost is None else
                            cost[:, y0:y0 + h, x0:x0 + w], **rules) + [x0, y0, 0]
        np.testing.assert_array_equal(path, alone)
        assert tuple(counts[b]) == vias_and_bends(path.tolist())
