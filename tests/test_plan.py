"""The planner (mazeroute/plan): its features, its decisions, its rules; no GPU needed.

Where a test needs ``auto`` to see a device, it pretends one exists
(``mazeroute.plan.device.gpu_available``): a plan only names engines, it starts none.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mazeroute.plan as plan
from mazeroute.generate import (
    class_mask,
    kruskal_maze_mask,
    maze_mask,
    random_nets,
    serpentine_mask,
)
from mazeroute.layout import Layout, Net
from mazeroute.plan import DEFAULT_RULES, Measure, Rules, device, features, make_plan
from mazeroute.plan.decide import (
    grid_mode,
    maze_like,
    negotiation_prefers_cpu,
    routing_prefers_cpu,
    wavefront_prefers_cpu,
    winding,
)
from mazeroute.plan.features import (
    _cycles,
    _cycles_strips,
    _probes_parallel,
    _probes_serial,
    corridor_run,
    corridor_width,
    cycle_rank,
    grid_features,
    sampled_features,
)
from mazeroute.plan.rules import rule_docs
from tests.test_docs_rules import anchors

R = DEFAULT_RULES
ROOT = Path(__file__).resolve().parent.parent


def prefers_cpu(free: np.ndarray, rules: Rules = DEFAULT_RULES) -> bool:
    """The whole wavefront's pick for a mask, measured afresh."""
    return wavefront_prefers_cpu(Measure(free, rules))[0]


def routes_on_cpu(free: np.ndarray, pin_counts, spans) -> bool:
    """Sequential routing's pick for a mask and its nets, measured afresh."""
    return routing_prefers_cpu(Measure(free), np.asarray(pin_counts), np.asarray(spans))


def is_forest(free: np.ndarray) -> bool:
    return Measure(free).is_forest()


@pytest.fixture
def with_gpu(monkeypatch):
    """``auto`` sees a usable device (no CuPy is imported: plans start no engine)."""
    monkeypatch.setattr(device, "gpu_available", lambda: True)
    monkeypatch.setattr(device, "gpu_status", lambda: (True, ""))


def _has_cycle(free: np.ndarray) -> bool:
    """Union-find over the free cells' 4-neighbour edges: an edge inside one set closes a cycle."""
    h, w = free.shape
    parent = list(range(h * w))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for y in range(h):
        for x in range(w):
            if not free[y, x]:
                continue
            for ny, nx in ((y, x + 1), (y + 1, x)):
                if ny < h and nx < w and free[ny, nx]:
                    a, b = find(y * w + x), find(ny * w + nx)
                    if a == b:
                        return True
                    parent[a] = b
    return False


# -- the rules ---------------------------------------------------------------------------
def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_RULES.min_gpu_cells = 1                        # type: ignore[misc]
    assert DEFAULT_RULES.min_gpu_cells == 1 << 16


def test_every_rule_has_a_reason_and_evidence_on_an_existing_heading():
    docs = rule_docs()
    assert set(docs) == {f.name for f in dataclasses.fields(Rules)}
    for name, doc in docs.items():
        assert doc["why"].strip(), name
        page, _, anchor = doc["evidence"].partition("#")
        assert page.startswith("docs/") and anchor, (name, doc["evidence"])
        assert (ROOT / page).is_file(), (name, page)
        assert anchor in anchors(ROOT / page), (name, doc["evidence"])


def _choices(p: plan.Plan) -> tuple:
    return (p.backend, p.strategy, p.negotiation, p.floor, p.grid_mode, p.host_targets,
            p.fallback, p.features)


@pytest.mark.parametrize("name", ["maze:0", "maze:0.002", "serpentine:4", "dense:0.5",
                                  "open:0.25"])
def test_a_copy_of_the_default_rules_plans_as_the_defaults(name, with_gpu):
    free = ~class_mask(name, 512, seed=3)
    nets = [Net("a", [(0, 0), (40, 40)]), Net("b", [(9, 9), (300, 20), (60, 400)])]
    lay = Layout("copy", 512, 512, nets=nets, blocked=~free)
    for mode in plan.MODES:
        default = make_plan(lay, "auto", mode=mode)
        copied = make_plan(lay, "auto", mode=mode, rules=replace(DEFAULT_RULES))
        assert _choices(copied) == _choices(default), mode


def test_a_changed_rule_changes_the_decision(with_gpu):
    free = np.ones((512, 512), bool)
    assert make_plan(free, "auto").backend == "gpu"
    assert make_plan(free, "auto", mode="negotiate").negotiation == "gpu"
    bigger = replace(DEFAULT_RULES, min_gpu_cells=free.size + 1)
    assert make_plan(free, "auto", rules=bigger).backend == "cpu"
    assert make_plan(free, "auto", mode="negotiate", rules=bigger).negotiation == "cpu"
    assert DEFAULT_RULES.min_gpu_cells == 1 << 16          # the defaults are untouched
    # a maze with few loops: the CPU by default, the GPU once its loops count as many
    few = ~maze_mask(511, 511, seed=1)
    few[1:-1:64, 2:-1:64] = True
    assert prefers_cpu(few)
    assert not prefers_cpu(few, replace(DEFAULT_RULES, min_gpu_loops=1e-6,
                                        min_gpu_loops_large=1e-6))


def test_a_plan_measures_each_feature_once(monkeypatch, with_gpu):
    """The wavefront's decision and ``gpu/grid``'s mode read one measurement."""
    calls = []
    sample = features.sampled_features
    monkeypatch.setattr(features, "sampled_features",
                        lambda *a, **k: calls.append(1) or sample(*a, **k))
    p = make_plan(~serpentine_mask(512, 4), "auto")
    assert calls == [1]
    assert p.features.run is not None and p.features.width is not None
    assert (p.backend, p.grid_mode) in (("cpu", None), ("gpu", "lines"))


# -- features ----------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1),
       st.floats(0.0, 1.0))
def test_is_forest_agrees_with_union_find(h, w, seed, density):
    free = np.random.default_rng(seed).random((h, w)) < density
    assert is_forest(free) == (not _has_cycle(free))


def test_perfect_mazes_are_forests_and_braids_are_not():
    perfect = ~maze_mask(63, 41, seed=2)
    assert is_forest(perfect) and maze_like(Measure(perfect))
    braid = perfect.copy()
    braid[1:-1:2, 2:-1:8] = True
    assert not is_forest(braid) and maze_like(Measure(braid))
    assert not maze_like(Measure(np.ones((200, 200), bool)))


def _cycle_rank_by_labels(free: np.ndarray) -> int:
    """The oracle: edges - cells + pieces, the pieces labelled by scipy."""
    import scipy.ndimage
    free = np.asarray(free, bool)
    edges = int((free[:, 1:] & free[:, :-1]).sum() + (free[1:] & free[:-1]).sum())
    return edges - int(free.sum()) + scipy.ndimage.label(free)[1]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 14), st.integers(1, 14), st.integers(0, 2**32 - 1),
       st.floats(0.0, 1.0))
def test_cycle_rank_is_edges_minus_cells_plus_parts(h, w, seed, density):
    free = np.random.default_rng(seed).random((h, w)) < density
    assert cycle_rank(free) == _cycle_rank_by_labels(free)


def test_a_measure_answers_cycles_at_any_limit_in_any_order():
    """A measure keeps its count with the limit it stopped at: a larger limit asked
    later counts again, a smaller one answers from the count."""
    free = ~maze_mask(63, 63, seed=4)
    assert is_forest(free) and cycle_rank(free) == 0
    free[1:-1:2, 2:-1:8] = True
    loops = cycle_rank(free)
    m = Measure(free)
    assert loops > 0 and not m.is_forest()
    assert m.cycles(1) == 1 and m.cycles(10**9) == loops
    assert m.cycles(loops + 5) == loops and m.cycles(2) == 2
    assert cycle_rank(free, 1) == 1 and cycle_rank(free, loops + 5) == loops


@pytest.mark.parametrize("seed", range(6))
def test_cycle_counts_with_a_limit_equal_the_labels(seed):
    # cycle_rank answers from E - V + 1 (a lower bound) where that reaches the limit
    rng = np.random.default_rng(seed)
    for k in range(40):
        if k % 3 == 0:
            m = ~maze_mask(int(rng.integers(3, 60)) | 1, int(rng.integers(3, 60)) | 1,
                           seed=k)
            m[rng.random(m.shape) < rng.uniform(0, 0.1)] = True
        else:
            m = rng.random((int(rng.integers(1, 50)), int(rng.integers(1, 50)))) < rng.random()
        true = _cycle_rank_by_labels(m)
        for limit in {1, 2, 5, max(true, 1), true + 1, 10**9}:
            assert cycle_rank(m, limit) == min(true, limit)
            assert Measure(m).cycles(limit) == min(true, limit)
    assert cycle_rank(np.zeros((5, 5), bool), 1) == 0       # no cell: no piece either


@pytest.mark.parametrize("seed,density", [(0, 0.5), (1, 0.6), (2, 0.9), (3, 0.97)])
@pytest.mark.parametrize("strips", [1, 2, 7, 64])
def test_cycles_counted_in_bands_equal_the_labels(seed, density, strips):
    rng = np.random.default_rng(seed)
    for free in (rng.random((300, 257)) < density,
                 np.repeat(rng.random((60, 257)) < density, 5, axis=0)):   # long runs
        free = np.ascontiguousarray(free)
        want = _cycle_rank_by_labels(free)
        big = np.iinfo(np.int64).max
        assert _cycles_strips(free, big, strips) == want == _cycles(free, big)
        assert _cycles_strips(free, 5, strips) == min(want, 5)


def test_a_perfect_maze_has_no_cycle_in_bands_either():
    free = ~class_mask("maze:0", 512)
    assert _cycles_strips(free, 1, 16) == 0
    free[2, 3] = free[2, 4] = free[3, 3] = free[3, 4] = True     # a 2 x 2 room: loops
    assert _cycles_strips(free, 1, 16) == 1


@pytest.mark.parametrize("seed", range(6))
def test_surplus_is_edges_less_cells_on_either_path(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    free = rng.random((int(rng.integers(1, 90)), int(rng.integers(1, 90)))) < 0.6
    cells = int(free.sum())
    edges = sum(int(free[y, x] and free[y, x + 1]) for y in range(free.shape[0])
                for x in range(free.shape[1] - 1)) + sum(
        int(free[y, x] and free[y + 1, x]) for y in range(free.shape[0] - 1)
        for x in range(free.shape[1]))
    assert features._surplus(free) == (edges - cells, cells)
    monkeypatch.setattr(features, "PARALLEL_SURPLUS_CELLS", 0)    # the compiled pass
    assert features._surplus(free) == (edges - cells, cells)


def _masks_for_loops():
    rng = np.random.default_rng(8)
    for name in ("maze:0", "maze:0.002", "maze:0.02", "maze:0.2", "dense:0.5", "open:0.25",
                 "serpentine:2", "spiral:1", "wired:1"):
        for size in (300, 511, 512, 700, 1024):
            yield f"{name}@{size}", ~class_mask(name, size, seed=size)
    for h, w in ((512, 2000), (2000, 600), (130, 900), (600, 129)):
        yield f"random {h}x{w}", rng.random((h, w)) < 0.7


@pytest.mark.parametrize("name, free", list(_masks_for_loops()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_the_patches_bound_the_cycles_from_below_and_change_no_answer(name, free):
    """loops_at_least (from the sampled patches, where they do not overlap) is at most
    the mask's cycle rank, and a count that uses it answers as one that reads the mask."""
    free = np.ascontiguousarray(free)
    f = sampled_features(free)
    exact = cycle_rank(free)
    assert 0 <= f["loops_at_least"] <= exact
    for limit in (0, 1, 10, f["loops_at_least"], exact, exact + 1, 10**9):
        assert cycle_rank(free, limit, f["loops_at_least"]) == min(exact, limit) \
            == cycle_rank(free, limit)
    m = Measure(free)
    m.sampled()                                    # the bound is known before the count
    assert m.is_forest() == (exact == 0)


def test_maze_decisions_skip_the_pass_only_where_the_patches_settle_them(monkeypatch):
    """A maze with many loops is decided from the patches' bound (no pass over the mask
    for its cycles), one with few loops still counts them, and both decide as before."""
    passes = []
    surplus = features._surplus
    monkeypatch.setattr(features, "_surplus", lambda free: passes.append(1) or surplus(free))
    for name, skipped in (("maze:0.2", True), ("maze:0.002", False)):
        free = np.ascontiguousarray(~class_mask(name, 1024, seed=3))
        passes.clear()
        cpu, f = wavefront_prefers_cpu(Measure(free))
        assert (not passes) == skipped
        least = R.min_gpu_loops_large if f["cells"] >= R.large_cells else R.min_gpu_loops
        bound = int(np.ceil(least * f["cells"]))
        assert cpu == (0 < cycle_rank(free, bound) < least * f["cells"])


def _probe_oracle(free, y, x, budget):
    """A BFS by the book (a deque, a set): (cells reached, levels), stopped as soon as
    ``budget`` cells are reached, neighbours taken right, down, left, up."""
    from collections import deque
    h, w = free.shape
    seen, queue, depth = {(y, x)}, deque([(y, x, 0)]), 0
    while queue and len(seen) < budget:
        cy, cx, d = queue.popleft()
        depth = max(depth, d)
        for ny, nx in ((cy, cx + 1), (cy + 1, cx), (cy, cx - 1), (cy - 1, cx)):
            if 0 <= ny < h and 0 <= nx < w and free[ny, nx] and (ny, nx) not in seen:
                seen.add((ny, nx))
                queue.append((ny, nx, d + 1))
                if len(seen) >= budget:
                    break
    return len(seen), depth


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.floats(0.3, 1.0), st.integers(0, 2**32 - 1),
       st.sampled_from([1, 2, 7, 60, 5000]))
def test_probes_equal_a_plain_bfs(h, w, density, seed, budget):
    """The corridor probes (one bitmap shared by probes run one after another) count
    the cells and levels of a plain BFS stopped at the budget, from every start, in
    both of their forms."""
    rng = np.random.default_rng(seed)
    free = rng.random((h, w)) < density
    ys, xs = np.nonzero(free)
    if ys.size == 0:
        return
    pick = rng.integers(0, ys.size, 5)
    starts = np.stack([ys[pick], xs[pick]], axis=1).astype(np.int64)
    want = [list(_probe_oracle(free, y, x, budget)) for y, x in starts.tolist()]
    for field in (False, True):             # branching on the mask, or not: the same
        assert _probes_serial(free, starts, budget, field).tolist() == want
        assert _probes_parallel(free, starts, budget, field).tolist() == want


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8])
def test_corridor_width_is_twice_the_width_of_a_corridor(width):
    free = ~serpentine_mask(600, width)
    assert corridor_width(free) == pytest.approx(2 * width, rel=0.05)
    assert corridor_width(np.ascontiguousarray(free.T)) == pytest.approx(2 * width, rel=0.05)


def test_corridor_width_of_open_space_and_of_pockets():
    assert corridor_width(np.ones((400, 400), bool)) > 100
    pockets = np.zeros((400, 400), bool)
    pockets[::4, :] = True                  # rows of free cells, no way between them
    pockets[:, ::50] = False                # cut into pieces of 49 cells
    assert corridor_width(pockets) == float("inf")


def test_corridor_run_is_the_longer_straight_run_through_sampled_free_cells():
    assert corridor_run(np.ones((300, 500), bool)) == 500
    stripes = np.zeros((300, 400), bool)
    stripes[:, ::3] = True                         # columns of free cells 300 long
    assert corridor_run(stripes) == 300
    assert corridor_run(np.ascontiguousarray(stripes.T)) == 300
    board = (np.indices((200, 200)).sum(axis=0) % 2).astype(bool)
    assert corridor_run(board) == 1                # no two free cells in a line
    assert corridor_run(np.zeros((50, 50), bool)) == 0


def _run_oracle(free, y, x):
    """The longer straight run of free cells through (y, x), by walking it."""
    h, w = free.shape
    a = b = x
    while a > 0 and free[y, a - 1]:
        a -= 1
    while b < w - 1 and free[y, b + 1]:
        b += 1
    c = d = y
    while c > 0 and free[c - 1, x]:
        c -= 1
    while d < h - 1 and free[d + 1, x]:
        d += 1
    return max(b - a, d - c) + 1


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 50), st.integers(1, 50), st.floats(0.0, 1.0), st.integers(1, 40),
       st.integers(0, 2**32 - 1))
def test_corridor_run_is_the_mean_of_the_runs_walked_from_each_point(h, w, density, side,
                                                                     seed):
    """Each run is read once for all the sampled points on it; the mean is that of a
    walk from every free sampled point (sides past the grid repeat points)."""
    free = np.random.default_rng(seed).random((h, w)) < density
    ys = ((np.arange(side) + 0.5) * h / side).astype(np.int64)
    xs = ((np.arange(side) + 0.5) * w / side).astype(np.int64)
    runs = [_run_oracle(free, y, x) for y in ys for x in xs if free[y, x]]
    assert corridor_run(free, side) == pytest.approx(np.mean(runs) if runs else 0.0)


def _features_by_arrays(free: np.ndarray, patch: int = 128, per_side: int = 4) -> dict:
    """The sampled features the plain way: every patch zero-padded, neighbours by
    slicing, one cell at a time in numpy (not eight cells a word)."""
    h, w = free.shape
    ys = sorted(set(np.linspace(0, max(0, h - patch), per_side).astype(int))) if h > patch \
        else [0]
    xs = sorted(set(np.linspace(0, max(0, w - patch), per_side).astype(int))) if w > patch \
        else [0]
    ph, pw = min(h, patch), min(w, patch)
    narrow = total = wall = edges = squares = 0
    for y in ys:
        for x in xs:
            p = np.zeros((ph + 2, pw + 2), np.int64)
            p[1:-1, 1:-1] = free[y:y + ph, x:x + pw]
            c = p[1:-1, 1:-1]
            deg = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]
            total += int(c.sum())
            narrow += int((c * (deg <= 2)).sum())
            wall += int((c * (deg < 4)).sum())
            edges += int((c[:, 1:] * c[:, :-1]).sum() + (c[1:] * c[:-1]).sum())
            squares += int((c[1:, 1:] * c[:-1, 1:] * c[1:, :-1] * c[:-1, :-1]).sum())
    return {"corridor": narrow / total if total else 1.0,
            "wall": wall / total if total else 1.0,
            "euler": (total - edges + squares) / total if total else 0.0,
            "sampled": total / (len(ys) * len(xs) * ph * pw)}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 300), st.integers(0, 2**32 - 1),
       st.floats(0.0, 1.0))
def test_features_read_eight_cells_a_word_equal_the_plain_count(h, w, seed, density):
    free = np.random.default_rng(seed).random((h, w)) >= density
    got = grid_features(free)
    want = _features_by_arrays(free)
    assert got["cells"] == int(free.sum())
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


@pytest.mark.parametrize("name", ["maze:0", "serpentine:4", "dense:0.5", "open:0.25"])
def test_features_of_the_class_layouts_equal_the_plain_count(name):
    free = ~class_mask(name, 700, 3)
    got, want = grid_features(free), _features_by_arrays(free)
    assert {k: round(got[k], 12) for k in want} == {k: round(v, 12) for k, v in want.items()}


# -- the whole wavefront -----------------------------------------------------------------
def test_auto_prefers_the_gpu_for_big_open_grids_and_perfect_mazes():
    assert prefers_cpu(np.ones((16, 16), bool))                    # too small to launch
    assert grid_features(np.ones((300, 300), bool))["cells"] >= R.min_gpu_cells
    assert not prefers_cpu(np.ones((300, 300), bool))
    perfect = ~maze_mask(511, 511, seed=1)
    assert not prefers_cpu(perfect)                                # Euler-tour depths
    braid = perfect.copy()
    braid[1:-1:2, 2:-1:8] = True
    assert cycle_rank(braid) > 0.05 * braid.sum()
    assert not prefers_cpu(braid)                       # many loops: short, wide wavefront
    few = perfect.copy()
    few[1:-1:64, 2:-1:64] = True
    assert 0 < cycle_rank(few) < R.min_gpu_loops * few.sum()
    assert prefers_cpu(few)                             # a few loops: long corridors, CPU


def _braided(n: int, k: int) -> np.ndarray:
    """benchmarks/maze_probe.py's braid``k`` case: a perfect maze, every k-th wall row gone."""
    free = ~maze_mask(n, n, seed=0)
    free[1:-1:2 * k, 2:-1:8 * k] = True
    return free


@pytest.mark.parametrize("n, k, cpu", [
    (511, 4, False), (511, 16, True), (1023, 4, False), (1023, 16, True),
    (2047, 16, False), (2047, 32, True)])
def test_auto_sends_braided_mazes_where_the_h100_probe_found_them_faster(n, k, cpu):
    # benchmarks/maze_probe.py --braids (benchmarks/RESULTS.md, "Wavefront: size and
    # mazes"): the GPU's tiles win from min_gpu_loops, on big mazes from
    # min_gpu_loops_large
    assert prefers_cpu(_braided(n, k)) == cpu


@pytest.mark.parametrize("width", [2, 3, 4, 6])
def test_winding_corridors_go_to_the_gpu_s_line_scans_unless_narrow_and_short(width):
    free = ~serpentine_mask(700, width)
    f = grid_features(free)
    assert f["corridor"] < 0.6 and f["euler"] > 0 and f["wall"] > 0.2
    turned = np.ascontiguousarray(free.T)              # the same corridors, upright
    assert winding(Measure(free)) and winding(Measure(turned))
    assert corridor_run(free) == corridor_run(turned) == 700
    gpu = corridor_width(free) * 700 >= R.lines_balance
    assert prefers_cpu(free) == prefers_cpu(turned) == (not gpu)
    assert not prefers_cpu(~serpentine_mask(2048, width))   # long stretches: phases pay
    assert prefers_cpu(~serpentine_mask(400, 2))            # narrow and short: the CPU


@pytest.mark.parametrize("name", ["serpentine:2", "serpentine:5", "spiral:2", "spiral:7"])
def test_serpentines_and_spirals_are_winding_and_route_on_the_cpu(name):
    free = ~class_mask(name, 1024)
    assert winding(Measure(free))
    # the router's searches have targets: windows that walk corridors tile by tile
    assert routes_on_cpu(free, np.full(100, 2), np.full(100, 64))


@pytest.mark.parametrize("name", ["dense:0.5", "dense:0.4", "open:0.25", "wired:1",
                                  "maze:0", "maze:0.2", "serpentine:1", "spiral:1"])
def test_blockage_fields_open_layouts_and_mazes_are_not_winding(name):
    assert not winding(Measure(~class_mask(name, 1024, seed=2)))


@pytest.mark.parametrize("name", ["dense:0.5", "dense:0.55", "wired:2", "wired:3"])
def test_dense_blockage_fields_stay_on_the_gpu(name):
    # they look like corridors to the sampled features (walls cut the free space into
    # pieces), but their wavefront is wide: the probes tell them apart
    free = ~class_mask(name, 1024, seed=3)
    assert corridor_width(free) > R.max_cpu_width
    assert not prefers_cpu(free)


@pytest.mark.parametrize("density", [0.1, 0.25, 0.4])
def test_auto_keeps_open_layouts_with_islands_on_the_gpu(density):
    from mazeroute.generate import random_layout
    free = ~random_layout(1024, 1024, density=density, nets=1, seed=5).blocked
    f = grid_features(free)
    assert f["euler"] < R.min_cpu_euler
    assert not prefers_cpu(free)


def test_big_grids_are_counted_only_when_the_patches_leave_the_size_in_doubt():
    side = 2048
    assert side * side > R.count_cells
    pocket = np.zeros((side, side), bool)            # free space between the patches
    pocket[300:400, 300:400] = True
    cpu, f = wavefront_prefers_cpu(Measure(pocket))
    assert cpu and f is None                         # counted: 10,000 cells, too few
    free = np.random.default_rng(1).random((side, side)) >= 0.02
    cpu, f = wavefront_prefers_cpu(Measure(free))
    assert not cpu
    assert f["cells"] == pytest.approx(int(free.sum()), rel=0.01)   # the estimate
    maze = np.zeros((side, side), bool)
    maze[:1023, :1023] = ~maze_mask(1023, 1023, seed=2)
    _, f = wavefront_prefers_cpu(Measure(maze))
    assert f["cells"] == int(maze.sum())             # maze-like: counted exactly


def test_grid_mode_by_layout():
    assert grid_mode(Measure(np.ones((256, 256), bool))) == ("sweep", False)
    assert grid_mode(Measure(~serpentine_mask(512, 4))) == ("lines", False)
    perfect = ~maze_mask(255, 255, seed=1)
    assert grid_mode(Measure(perfect)) == ("tree", False)
    perfect[1:-1:2, 2:-1:8] = True
    assert grid_mode(Measure(perfect)) == ("tiles", True)


# -- sequential routing ------------------------------------------------------------------
def test_routing_goes_to_the_cpu_for_mazes_and_nets_spanning_much_of_the_grid():
    open_grid = np.ones((1024, 1024), bool)
    two, four = np.full(300, 2), np.full(300, 4)
    many = np.full(300, R.max_pins + 1)
    assert not routes_on_cpu(open_grid, two, np.full(300, 64))     # batched windows
    assert not routes_on_cpu(open_grid, four, np.full(300, 64))    # batched trees
    small = np.ones((512, 512), bool)
    assert routes_on_cpu(small, four, np.full(300, 600))           # of a small grid
    assert not routes_on_cpu(open_grid, four, np.full(300, 600))   # not a big one
    assert not routes_on_cpu(open_grid, many, np.full(300, 64))    # groups, local
    assert routes_on_cpu(open_grid, many, np.full(300, 400))       # groups, long
    mixed = np.array([R.max_pins + 1] * 100 + [4] * 50 + [2] * 150)
    assert not routes_on_cpu(open_grid, mixed, np.full(300, 400))  # mostly batched
    perfect = ~maze_mask(1023, 1023, seed=3)
    assert not prefers_cpu(perfect)                   # a wavefront: Euler-tour depths
    # a perfect maze: the CPU for all but very local nets of a big one (the CPU router's
    # backtraces copy no levels; benchmarks/RESULTS.md, "Routing: mazes")
    assert routes_on_cpu(perfect, two, np.full(300, 64))
    assert routes_on_cpu(perfect, two, np.full(300, 200))          # long detours
    assert not routes_on_cpu(perfect, two, np.full(300, 16))
    loopy = perfect.copy()
    loopy[1:-1:2, 2:-1:4] = True                      # a loop every few cells
    assert cycle_rank(loopy) > 0.05 * loopy.sum()
    assert not routes_on_cpu(loopy, two, np.full(300, 200))        # short detours
    # too few loops for a wavefront on the GPU, enough for routing
    sparse = ~class_mask("maze:0.001", 1023, 9)
    assert prefers_cpu(sparse) and not routes_on_cpu(sparse, two, np.full(300, 64))
    assert routes_on_cpu(np.ones((64, 64), bool), two, np.full(300, 8))  # small
    assert not routes_on_cpu(open_grid, np.zeros(0), np.zeros(0))


def test_routing_on_a_grid_under_span_cells_goes_by_the_median_span_both_ways():
    two = np.full(200, 2)
    field = ~class_mask("open:0.25", 450, 5)             # no maze, under span_cells
    cells = int(field.sum())
    assert cells < R.span_cells and sampled_features(field)["wall"] < R.dense_wall
    edge = -(-cells // R.gpu_cells_per_span)             # the median span where it turns
    assert not routes_on_cpu(field, two, np.full(200, edge - 1))   # short: the GPU
    assert routes_on_cpu(field, two, np.full(200, edge))           # long: the CPU
    # few free cells on a grid big enough: too few for a GPU wavefront, yet short nets
    # route on the GPU
    room = np.zeros((512, 512), bool)
    room[100:300, 50:250] = True                         # 40,000 free cells
    assert prefers_cpu(room)
    assert not routes_on_cpu(room, two, np.full(200, 20))
    assert routes_on_cpu(room, two, np.full(200, 40))
    # a four-pin tree is three searches of about a third of its span each
    edge = -(-int(room.sum()) // R.gpu_cells_per_span)
    four = np.full(200, 4)
    assert routes_on_cpu(room, two, np.full(200, 3 * (edge - 1)))
    assert not routes_on_cpu(room, four, np.full(200, 3 * (edge - 1)))
    assert routes_on_cpu(room, four, np.full(200, 3 * edge))
    # from span_cells free cells on, long nets keep the GPU (its gain grows with the grid)
    big = np.ones((600, 600), bool)
    assert big.sum() >= R.span_cells
    assert not routes_on_cpu(big, two, np.full(200, big.sum() // R.gpu_cells_per_span))
    # a dense field of blockages: the GPU up to longer spans
    dense = ~class_mask("dense:0.35", 450, 5)
    assert sampled_features(dense)["wall"] >= R.dense_wall
    cells = int(dense.sum())
    assert cells < R.span_cells
    edge = -(-cells // R.gpu_cells_per_span_dense)
    assert not routes_on_cpu(dense, two, np.full(200, edge - 1))
    assert routes_on_cpu(dense, two, np.full(200, edge))


@pytest.mark.parametrize("mask", ["maze:0", "maze:0.02", "maze:0.05", "kruskal:0.1"])
def test_a_maze_routes_on_the_cpu_where_its_nets_are_long_for_its_loops(mask):
    """The line: free cells per cell of the median branch's span against
    maze_span_line times the loops' mean spacing (1 / sqrt of loops per free cell, at
    most that of min_maze_loops); the same at any size."""
    free = ~(class_mask(mask, 511, 3) if mask.startswith("maze")
             else kruskal_maze_mask(511, 511, 0.1, 1, 3))
    cells = int(free.sum())
    assert sampled_features(free)["corridor"] >= R.max_gpu_corridor
    loops = max(_cycle_rank_by_labels(free) / cells, R.min_maze_loops)
    edge = cells * np.sqrt(loops) / R.maze_span_line     # the median span where it turns
    two, four = np.full(200, 2), np.full(200, 4)
    below, above = int(np.floor(edge * 0.97)), int(np.ceil(edge * 1.03))
    assert not routes_on_cpu(free, two, np.full(200, below))
    assert routes_on_cpu(free, two, np.full(200, above))
    assert not routes_on_cpu(free, four, np.full(200, 3 * below))   # per branch
    assert routes_on_cpu(free, four, np.full(200, 3 * above))
    # the same maze tiled 2 x 2: four times the cells, about the same loops a cell
    big = np.tile(free, (2, 2))
    assert not routes_on_cpu(big, two, np.full(200, above))


def test_nets_spanning_most_of_a_maze_go_by_its_size():
    free = ~class_mask("maze:0.2", 511, 3)              # loops: the line says the GPU
    cells = int(free.sum())
    assert cells < R.maze_spanning_cells
    two = np.full(100, 2)
    spanning = int(np.ceil(R.maze_spanning * np.sqrt(cells)))
    assert not routes_on_cpu(free, two, np.full(100, spanning - 2))
    assert routes_on_cpu(free, two, np.full(100, spanning))
    assert routes_on_cpu(free, np.full(100, 3), np.full(100, 2 * spanning))  # a branch
    big = np.tile(free, (2, 2))                          # past maze_spanning_cells
    assert big.sum() >= R.maze_spanning_cells
    assert not routes_on_cpu(big, two, np.full(100, int(np.sqrt(big.sum()))))


def test_a_maze_of_few_free_cells_on_a_bigger_grid_is_still_routed_as_a_maze():
    """Under min_gpu_cells free cells the wavefront's decision reads no features; the
    maze rules for routing still read them: local nets of a maze with loops route on
    the GPU (the span rule for open fields would have sent them to the CPU), nets
    spanning the maze on the CPU."""
    free = ~kruskal_maze_mask(280, 280, 0.3, 1, 3)
    cells = int(free.sum())
    assert cells < R.min_gpu_cells <= free.size
    assert sampled_features(free)["corridor"] >= R.max_gpu_corridor
    local = np.full(40, 45)
    assert cells <= R.gpu_cells_per_span * 45              # the field rule would say CPU
    assert not routes_on_cpu(free, np.full(40, 2), local)
    assert routes_on_cpu(free, np.full(20, 2), np.full(20, 150))


def test_sequential_plans_take_the_routing_pick_even_against_the_wavefront_pick(
        monkeypatch, with_gpu):
    from mazeroute.generate import random_layout
    lay = random_layout(64, 48, nets=3, pins=2, seed=1, span=10)
    assert make_plan(lay, "auto").backend == "cpu"         # too small for a GPU wavefront
    monkeypatch.setattr(plan, "routing_prefers_cpu", lambda m, counts, spans: False)
    assert make_plan(lay, "auto", mode="sequential").backend == "gpu"


def test_sequential_plans_ask_the_routing_rule_with_the_nets_pins_and_spans(
        monkeypatch, with_gpu):
    from mazeroute.generate import random_layout
    seen = []

    def decide(m, counts, spans):
        seen.append((counts.tolist(), spans.tolist()))
        return True
    monkeypatch.setattr(plan, "routing_prefers_cpu", decide)
    lay = random_layout(64, 48, nets=3, pins=3, seed=1, span=10)
    assert make_plan(lay, "auto", mode="sequential").engine.startswith("cpu/")
    assert seen == [([3, 3, 3], [int(np.ptp(np.asarray(n.pins), axis=0).sum())
                                 for n in lay.nets])]
    make_plan(lay, "auto", "grid", mode="sequential")     # a strategy named: not asked
    assert len(seen) == 1


# -- negotiated routing ------------------------------------------------------------------
def test_auto_negotiates_small_grids_on_the_cpus_search(with_gpu):
    """Under ``auto`` with a device present, a grid under min_gpu_negotiate_cells cells
    gets the CPU's weighted search and a bigger one the GPU's."""
    side = int(np.sqrt(R.min_gpu_negotiate_cells))
    assert R.min_gpu_negotiate_cells >= R.min_gpu_cells
    for h, w, want in ((side - 1, side, "cpu"), (side, side, "gpu"), (40, 20, "cpu")):
        got = make_plan(np.ones((h, w), bool), "auto", mode="negotiate")
        assert (got.negotiation, got.floor) == (want, "gpu"), (h, w)
    assert negotiation_prefers_cpu(Measure(np.ones((side - 1, side), bool)))


@pytest.mark.parametrize("name, want", [("maze:0", "cpu"), ("maze:0.05", "cpu"),
                                        ("serpentine:4", "cpu"), ("spiral:3", "cpu"),
                                        ("serpentine:1", "cpu"), ("open:0.25", "gpu"),
                                        ("dense:0.3", "walls"), ("wired:2", "walls")])
@pytest.mark.parametrize("side", [256, 512, 1024])
def test_auto_negotiates_mazes_and_winding_corridors_on_the_cpus_search(name, want, side,
                                                                         with_gpu):
    """Under ``auto`` with a device present, mazes and winding corridors get the CPU's
    weighted search (as sequential routing does), from the smallest grid the GPU
    negotiates on; open fields of blockages and fields where many free cells lie beside
    a wall ("walls") the GPU's."""
    free = ~class_mask(name, side, seed=5)
    if want == "walls":
        assert sampled_features(free)["wall"] >= R.min_cpu_wall
        want = "gpu"
    assert make_plan(free, "auto", mode="negotiate").negotiation == want


@pytest.mark.parametrize("name", ["spiral:4", "maze:0.05", "open:0.25", "wired:2"])
@pytest.mark.parametrize("backend", ["auto", "gpu"])
def test_negotiations_floor_is_sequential_routings_choice(name, backend, with_gpu):
    """The floor is sequential routing: under ``auto`` it goes where ``auto`` routes the
    layout sequentially, even where negotiation goes elsewhere; a backend asked for by
    name is the floor's too."""
    free = ~class_mask(name, 256, seed=2)
    lay = Layout("floor", 256, 256, nets=random_nets(~free, 40, 2, np.random.default_rng(2),
                                                     span=40), blocked=~free)
    seq = make_plan(lay, backend, mode="sequential").backend
    got = make_plan(lay, backend, mode="negotiate")
    assert got.floor == seq
    # beside the phases only where both it and negotiation are the device's
    assert got.floor_beside == (got.floor == got.negotiation == "gpu")
    assert not make_plan(lay, "cpu", mode="negotiate").floor_beside
    if backend == "gpu":
        assert got.floor == "gpu"
    elif name == "spiral:4":        # winding corridors, also on a grid this small
        assert got.floor == "cpu"


def test_auto_negotiation_without_a_device_never_weighs_the_layout(monkeypatch):
    """Without a usable GPU, ``auto``'s weighted search is the CPU's at once: the
    layout's features (sampled, compiled on first use) are never computed."""
    monkeypatch.setattr(device, "gpu_available", lambda: False)

    def weighed(*args, **kwargs):
        raise AssertionError("the layout was weighed")
    monkeypatch.setattr(plan, "negotiation_prefers_cpu", weighed)
    monkeypatch.setattr(features, "sampled_features", weighed)
    got = make_plan(np.ones((512, 512), bool), "auto", mode="negotiate")
    assert (got.backend, got.negotiation, got.floor) == ("cpu", "cpu", "cpu")


def test_a_stack_is_planned_by_its_free_cells_on_the_3d_engines(monkeypatch):
    from mazeroute.errors import EngineUnavailable
    from mazeroute.layers import Layer, Stack
    stack = Stack((Layer("M1", "horizontal"), Layer("M2", "vertical")))
    lay = Layout("s", 64, 64, nets=[Net("a", [(0, 0, 0), (9, 9, 1)])], stack=stack)
    monkeypatch.setattr(device, "gpu_available", lambda: True)
    for mode in ("sequential", "negotiate"):
        p = make_plan(lay, "cpu", mode=mode)
        assert (p.backend, p.strategy, p.fallback) == ("cpu", "grid3d", None)
        assert make_plan(lay, "auto", mode=mode).backend == "cpu"   # 8,192 free cells
    low = replace(DEFAULT_RULES, min_gpu_stack_cells=2 * 64 * 64)
    assert make_plan(lay, "auto", mode="wavefront", rules=low).backend == "gpu"
    assert make_plan(lay, "auto", mode="wavefront").backend == "cpu"
    assert make_plan(lay, "auto", mode="sequential", rules=low).backend == "cpu"
    assert make_plan(lay, "gpu", mode="negotiate").negotiation == "gpu"
    monkeypatch.setattr(device, "gpu_available", lambda: False)
    assert make_plan(lay, "auto", mode="wavefront", rules=low).backend == "cpu"
    with pytest.raises(EngineUnavailable):
        make_plan(lay, "gpu", mode="sequential")
