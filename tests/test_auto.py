"""``backend="auto"``'s features and choice (mazeroute/engines/auto.py); no GPU needed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines.auto import (
    MIN_GPU_CELLS,
    MIN_GPU_LOOPS,
    cycle_rank,
    grid_features,
    is_forest,
    is_maze_like,
    prefers_cpu,
)
from mazeroute.generate import maze_mask, serpentine_mask


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


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1),
       st.floats(0.0, 1.0))
def test_is_forest_agrees_with_union_find(h, w, seed, density):
    free = np.random.default_rng(seed).random((h, w)) < density
    assert is_forest(free) == (not _has_cycle(free))


def test_perfect_mazes_are_forests_and_braids_are_not():
    perfect = ~maze_mask(63, 41, seed=2)
    assert is_forest(perfect) and is_maze_like(perfect)
    braid = perfect.copy()
    braid[1:-1:2, 2:-1:8] = True
    assert not is_forest(braid) and is_maze_like(braid)
    assert not is_maze_like(np.ones((200, 200), bool))


def test_auto_prefers_the_gpu_for_big_open_grids_and_perfect_mazes():
    assert prefers_cpu(np.ones((16, 16), bool))                    # too small to launch
    assert grid_features(np.ones((300, 300), bool))["cells"] >= MIN_GPU_CELLS
    assert not prefers_cpu(np.ones((300, 300), bool))
    perfect = ~maze_mask(511, 511, seed=1)
    assert not prefers_cpu(perfect)                                # Euler-tour depths
    braid = perfect.copy()
    braid[1:-1:2, 2:-1:8] = True
    assert cycle_rank(braid) > 0.05 * braid.sum()
    assert not prefers_cpu(braid)                       # many loops: short, wide wavefront
    few = perfect.copy()
    few[1:-1:64, 2:-1:64] = True
    assert 0 < cycle_rank(few) < MIN_GPU_LOOPS * few.sum()
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
    # benchmarks/maze_probe.py --braids: the GPU tiles win from ~0.4 % loops on, and on
    # big mazes (>= LARGE_CELLS free cells) from ~0.025 %; the CPU wins at 0.006 %
    free = _braided(n, k)
    assert prefers_cpu(free) == cpu


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


@pytest.mark.parametrize("width", [2, 3, 4, 6])
def test_winding_corridors_go_to_the_gpu_s_line_scans_unless_narrow_and_short(width):
    from mazeroute.engines.auto import LINES_BALANCE, corridor_run, corridor_width, winding
    free = ~serpentine_mask(700, width)
    f = grid_features(free)
    assert f["corridor"] < 0.6 and f["euler"] > 0 and f["wall"] > 0.2
    turned = np.ascontiguousarray(free.T)              # the same corridors, upright
    assert winding(free) and winding(turned)
    assert corridor_run(free) == corridor_run(turned) == 700
    gpu = corridor_width(free) * 700 >= LINES_BALANCE
    assert prefers_cpu(free) == prefers_cpu(turned) == (not gpu)
    assert not prefers_cpu(~serpentine_mask(2048, width))   # long stretches: phases pay
    assert prefers_cpu(~serpentine_mask(400, 2))            # narrow and short: the CPU


def test_corridor_run_is_the_longer_straight_run_through_sampled_free_cells():
    from mazeroute.engines.auto import corridor_run
    assert corridor_run(np.ones((300, 500), bool)) == 500
    stripes = np.zeros((300, 400), bool)
    stripes[:, ::3] = True                         # columns of free cells 300 long
    assert corridor_run(stripes) == 300
    assert corridor_run(np.ascontiguousarray(stripes.T)) == 300
    board = (np.indices((200, 200)).sum(axis=0) % 2).astype(bool)
    assert corridor_run(board) == 1                # no two free cells in a line
    assert corridor_run(np.zeros((50, 50), bool)) == 0


@pytest.mark.parametrize("name", ["serpentine:2", "serpentine:5", "spiral:2", "spiral:7"])
def test_serpentines_and_spirals_are_winding_and_route_on_the_cpu(name):
    from mazeroute.engines.auto import routing_prefers_cpu, winding
    from mazeroute.generate import class_mask
    free = ~class_mask(name, 1024)
    assert winding(free)
    # the router's searches have targets: windows that walk corridors tile by tile
    assert routing_prefers_cpu(free, np.full(100, 2), np.full(100, 64))


@pytest.mark.parametrize("name", ["dense:0.5", "dense:0.4", "open:0.25", "wired:1",
                                  "maze:0", "maze:0.2", "serpentine:1", "spiral:1"])
def test_blockage_fields_open_layouts_and_mazes_are_not_winding(name):
    from mazeroute.engines.auto import winding
    from mazeroute.generate import class_mask
    assert not winding(~class_mask(name, 1024, seed=2))


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8])
def test_corridor_width_is_twice_the_width_of_a_corridor(width):
    from mazeroute.engines.auto import corridor_width
    free = ~serpentine_mask(600, width)
    assert corridor_width(free) == pytest.approx(2 * width, rel=0.05)
    assert corridor_width(np.ascontiguousarray(free.T)) == pytest.approx(2 * width, rel=0.05)


def test_corridor_width_of_open_space_and_of_pockets():
    from mazeroute.engines.auto import corridor_width
    assert corridor_width(np.ones((400, 400), bool)) > 100
    pockets = np.zeros((400, 400), bool)
    pockets[::4, :] = True                  # rows of free cells, no way between them
    pockets[:, ::50] = False                # cut into pieces of 49 cells
    assert corridor_width(pockets) == float("inf")


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
    from mazeroute.engines.auto import _probes_parallel, _probes_serial
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


def test_hash_is_the_same_on_one_core_and_on_all():
    from mazeroute.engines.auto import _hash_parallel, _hash_serial
    rng = np.random.default_rng(4)
    for n in (0, 1, 9, 1000):
        words = rng.integers(0, 2**63, n, dtype=np.uint64)
        tail = rng.integers(0, 256, int(rng.integers(0, 8)), dtype=np.uint8)
        assert _hash_parallel(words, tail) == _hash_serial(words, tail)


@pytest.mark.parametrize("name", ["dense:0.5", "dense:0.55", "wired:2", "wired:3"])
def test_dense_blockage_fields_stay_on_the_gpu(name):
    # they look like corridors to the sampled features (walls cut the free space into
    # pieces), but their wavefront is wide: the probes tell them apart
    from mazeroute.engines.auto import MAX_CPU_WIDTH, corridor_width
    from mazeroute.generate import class_mask
    free = ~class_mask(name, 1024, seed=3)
    assert corridor_width(free) > MAX_CPU_WIDTH
    assert not prefers_cpu(free)


@pytest.mark.parametrize("density", [0.1, 0.25, 0.4])
def test_auto_keeps_open_layouts_with_islands_on_the_gpu(density):
    from mazeroute.generate import random_layout
    free = ~random_layout(1024, 1024, density=density, nets=1, seed=5).blocked
    f = grid_features(free)
    assert f["euler"] < 0.0003
    assert not prefers_cpu(free)


def test_cycle_counts_are_remembered_only_for_the_same_mask():
    free = ~maze_mask(63, 63, seed=4)
    assert is_forest(free) and cycle_rank(free) == 0
    free[1:-1:2, 2:-1:8] = True                      # edited in place: asked afresh
    loops = cycle_rank(free)
    assert loops > 0 and not is_forest(free)
    assert cycle_rank(free, 1) == 1 and cycle_rank(free) == loops
    assert cycle_rank(free, loops + 5) == loops


@pytest.mark.parametrize("seed", range(6))
def test_cycle_counts_with_a_limit_equal_the_labels(seed):
    # cycle_rank answers from E - V + 1 (a lower bound) where that reaches the limit
    from mazeroute.engines.auto import forget
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
            forget()
            assert cycle_rank(m, limit) == min(true, limit)
    forget()
    assert cycle_rank(np.zeros((5, 5), bool), 1) == 0       # no cell: no piece either


def test_fingerprint_tells_masks_apart():
    from mazeroute.engines.auto import _fingerprint
    rng = np.random.default_rng(3)
    for shape in [(1, 1), (3, 5), (64, 64), (37, 101), (513, 257)]:
        m = rng.random(shape) < 0.5
        fp = _fingerprint(m)
        assert fp == _fingerprint(m.copy())
        for _ in range(20):                          # any one cell changed
            y, x = rng.integers(0, shape[0]), rng.integers(0, shape[1])
            m[y, x] = ~m[y, x]
            assert _fingerprint(m) != fp
            m[y, x] = ~m[y, x]
        if m.size > 1:
            assert _fingerprint(np.roll(m, 1)) != fp or np.array_equal(np.roll(m, 1), m)


def test_a_read_only_mask_is_fingerprinted_once(monkeypatch):
    """A read-only mask that owns its memory (a layout's grid) is hashed once while it
    is the last one asked about; a writable mask, a read-only view of a writable one,
    and another object with the same cells are hashed each time."""
    from mazeroute.engines import auto
    from mazeroute.layout import parse_layout
    real, hashed = auto._hash_words, []

    def counted(words, tail):
        hashed.append(words.size)
        return real(words, tail)

    monkeypatch.setattr(auto, "_hash_words", counted)
    auto.forget()
    lay = parse_layout({"width": 40, "height": 30, "blockages": [[3, 3, 9, 20]],
                        "nets": []})
    grid = lay.grid()
    assert not grid.free.flags.writeable
    fp = auto._fingerprint(grid.free)
    assert auto._fingerprint(grid.free) == fp and len(hashed) == 1
    again = lay.grid().free                        # the same cells, another object
    assert auto._fingerprint(again) == fp and len(hashed) == 2
    writable = np.array(again)
    view = writable[:]
    view.flags.writeable = False
    for mask in (writable, writable, view, view):
        assert auto._fingerprint(mask) == fp
    assert len(hashed) == 6
    writable[0, 0] = ~writable[0, 0]               # the view changes with it
    assert auto._fingerprint(view) != fp
    auto.forget()
    assert auto._fingerprint(again) == fp and len(hashed) == 8


def test_the_decision_and_its_features_are_remembered_for_the_same_mask(monkeypatch):
    from mazeroute.engines import auto
    from mazeroute.generate import serpentine_mask
    free = ~serpentine_mask(512, 4)
    calls = []
    sample = auto.sampled_features
    monkeypatch.setattr(auto, "sampled_features", lambda m: calls.append(1) or sample(m))
    auto.forget()
    first = auto._decide(free)
    assert calls == [1] and "run" in first[1] and "width" in first[1]
    assert auto._decide(free.copy()) == first and calls == [1]    # same mask, any copy
    f = auto.features(free)
    assert f is first[1] and calls == [1]            # gpu/grid's mode reads the same
    edited = free.copy()
    edited[100:110, :] = True                        # a wall cut through
    auto.features(edited)
    assert calls == [1, 1]                           # another mask: sampled afresh
    auto._decide(edited)
    assert len(calls) == 3
    auto.forget()
    auto._decide(free)
    assert len(calls) == 4                           # forgotten: decided afresh
    open_grid = np.ones((512, 512), bool)            # decided from the patches alone:
    auto._decide(open_grid)                          # not worth a fingerprint
    assert auto._recall(open_grid) is None and len(calls) == 5


def test_routing_goes_to_the_cpu_for_mazes_and_nets_spanning_much_of_the_grid():
    from mazeroute.engines.auto import routing_prefers_cpu
    from mazeroute.engines.gpu_batch import MAX_PINS
    open_grid = np.ones((1024, 1024), bool)
    two, four = np.full(300, 2), np.full(300, 4)
    many = np.full(300, MAX_PINS + 1)
    assert not routing_prefers_cpu(open_grid, two, np.full(300, 64))     # batched windows
    assert not routing_prefers_cpu(open_grid, four, np.full(300, 64))    # batched trees
    small = np.ones((512, 512), bool)
    assert routing_prefers_cpu(small, four, np.full(300, 600))           # of a small grid
    assert not routing_prefers_cpu(open_grid, four, np.full(300, 600))   # not a big one
    assert not routing_prefers_cpu(open_grid, many, np.full(300, 64))    # groups, local
    assert routing_prefers_cpu(open_grid, many, np.full(300, 400))       # groups, long
    mixed = np.array([MAX_PINS + 1] * 100 + [4] * 50 + [2] * 150)
    assert not routing_prefers_cpu(open_grid, mixed, np.full(300, 400))  # mostly batched
    perfect = ~maze_mask(1023, 1023, seed=3)
    assert not prefers_cpu(perfect)                   # a wavefront: Euler-tour depths
    # a perfect maze: the CPU for all but very local nets of a big one, since the CPU
    # router's backtraces stopped copying their levels (RESULTS.md, issue 14, second
    # session of 2026-11-27)
    assert routing_prefers_cpu(perfect, two, np.full(300, 64))
    assert routing_prefers_cpu(perfect, two, np.full(300, 200))          # long detours
    assert not routing_prefers_cpu(perfect, two, np.full(300, 16))
    loopy = perfect.copy()
    loopy[1:-1:2, 2:-1:4] = True                      # a loop every few cells
    assert cycle_rank(loopy) > 0.05 * loopy.sum()
    assert not routing_prefers_cpu(loopy, two, np.full(300, 200))        # short detours
    # too few loops for a wavefront on the GPU, enough for routing
    from mazeroute.generate import class_mask
    sparse = ~class_mask("maze:0.001", 1023, 9)
    assert prefers_cpu(sparse) and not routing_prefers_cpu(sparse, two, np.full(300, 64))
    assert routing_prefers_cpu(np.ones((64, 64), bool), two, np.full(300, 8))  # small
    assert not routing_prefers_cpu(open_grid, np.zeros(0), np.zeros(0))


def test_routing_on_a_grid_under_span_cells_goes_by_the_median_span_both_ways():
    from mazeroute.engines.auto import (
        DENSE_WALL,
        GPU_CELLS_PER_SPAN,
        GPU_CELLS_PER_SPAN_DENSE,
        SPAN_CELLS,
        routing_prefers_cpu,
        sampled_features,
    )
    from mazeroute.generate import class_mask
    two = np.full(200, 2)
    field = ~class_mask("open:0.25", 450, 5)             # ~150k free cells, no maze
    cells = int(field.sum())
    assert cells < SPAN_CELLS and sampled_features(field)["wall"] < DENSE_WALL
    edge = -(-cells // GPU_CELLS_PER_SPAN)               # the median span where it turns
    assert not routing_prefers_cpu(field, two, np.full(200, edge - 1))   # short: the GPU
    assert routing_prefers_cpu(field, two, np.full(200, edge))           # long: the CPU
    # few free cells on a grid big enough: too few for a GPU wavefront, yet short nets
    # route on the GPU
    room = np.zeros((512, 512), bool)
    room[100:300, 50:250] = True                         # 40,000 free cells
    assert prefers_cpu(room)
    assert not routing_prefers_cpu(room, two, np.full(200, 20))
    assert routing_prefers_cpu(room, two, np.full(200, 40))
    # a four-pin tree is three searches of about a third of its span each
    edge = -(-int(room.sum()) // GPU_CELLS_PER_SPAN)
    four = np.full(200, 4)
    assert routing_prefers_cpu(room, two, np.full(200, 3 * (edge - 1)))
    assert not routing_prefers_cpu(room, four, np.full(200, 3 * (edge - 1)))
    assert routing_prefers_cpu(room, four, np.full(200, 3 * edge))
    # from SPAN_CELLS free cells on, long nets keep the GPU (its gain grows with the grid)
    big = np.ones((600, 600), bool)
    assert big.sum() >= SPAN_CELLS
    assert not routing_prefers_cpu(big, two, np.full(200, big.sum() // GPU_CELLS_PER_SPAN))
    # a dense field of blockages: the GPU up to longer spans
    dense = ~class_mask("dense:0.35", 450, 5)
    assert sampled_features(dense)["wall"] >= DENSE_WALL
    cells = int(dense.sum())
    assert cells < SPAN_CELLS
    edge = -(-cells // GPU_CELLS_PER_SPAN_DENSE)
    assert not routing_prefers_cpu(dense, two, np.full(200, edge - 1))
    assert routing_prefers_cpu(dense, two, np.full(200, edge))


@pytest.mark.parametrize("mask", ["maze:0", "maze:0.02", "maze:0.05", "kruskal:0.1"])
def test_a_maze_routes_on_the_cpu_where_its_nets_are_long_for_its_loops(mask):
    """The line: free cells per cell of the median branch's span against
    MAZE_SPAN_LINE times the loops' mean spacing (1 / sqrt of loops per free cell, at
    most that of MIN_MAZE_LOOPS); the same at any size."""
    from mazeroute.engines.auto import (
        MAX_GPU_CORRIDOR,
        MAZE_SPAN_LINE,
        MIN_MAZE_LOOPS,
        routing_prefers_cpu,
        sampled_features,
    )
    from mazeroute.generate import class_mask, kruskal_maze_mask
    free = ~(class_mask(mask, 511, 3) if mask.startswith("maze")
             else kruskal_maze_mask(511, 511, 0.1, 1, 3))
    cells = int(free.sum())
    assert sampled_features(free)["corridor"] >= MAX_GPU_CORRIDOR
    loops = max(_cycle_rank_by_labels(free) / cells, MIN_MAZE_LOOPS)
    edge = cells * np.sqrt(loops) / MAZE_SPAN_LINE     # the median span where it turns
    two, four = np.full(200, 2), np.full(200, 4)
    below, above = int(np.floor(edge * 0.97)), int(np.ceil(edge * 1.03))
    assert not routing_prefers_cpu(free, two, np.full(200, below))
    assert routing_prefers_cpu(free, two, np.full(200, above))
    assert not routing_prefers_cpu(free, four, np.full(200, 3 * below))   # per branch
    assert routing_prefers_cpu(free, four, np.full(200, 3 * above))
    # the same maze tiled 2 x 2: four times the cells, about the same loops a cell
    big = np.tile(free, (2, 2))
    assert not routing_prefers_cpu(big, two, np.full(200, above))


def test_nets_spanning_most_of_a_maze_go_by_its_size():
    from mazeroute.engines.auto import (
        MAZE_SPANNING,
        MAZE_SPANNING_CELLS,
        routing_prefers_cpu,
    )
    from mazeroute.generate import class_mask
    free = ~class_mask("maze:0.2", 511, 3)              # loops: the line says the GPU
    cells = int(free.sum())
    assert cells < MAZE_SPANNING_CELLS
    two = np.full(100, 2)
    spanning = int(np.ceil(MAZE_SPANNING * np.sqrt(cells)))
    assert not routing_prefers_cpu(free, two, np.full(100, spanning - 2))
    assert routing_prefers_cpu(free, two, np.full(100, spanning))
    assert routing_prefers_cpu(free, np.full(100, 3), np.full(100, 2 * spanning))  # a branch
    big = np.tile(free, (2, 2))                          # past MAZE_SPANNING_CELLS
    assert big.sum() >= MAZE_SPANNING_CELLS
    assert not routing_prefers_cpu(big, two, np.full(100, int(np.sqrt(big.sum()))))


def test_a_maze_of_few_free_cells_on_a_bigger_grid_is_still_routed_as_a_maze():
    """Under MIN_GPU_CELLS free cells the wavefront's decision reads no features; the
    maze rules for routing still read them: local nets of a maze with loops route on
    the GPU (the span rule for open fields would have sent them to the CPU), nets
    spanning the maze on the CPU."""
    from mazeroute.engines.auto import (
        GPU_CELLS_PER_SPAN,
        MAX_GPU_CORRIDOR,
        MIN_GPU_CELLS,
        routing_prefers_cpu,
        sampled_features,
    )
    from mazeroute.generate import kruskal_maze_mask
    free = ~kruskal_maze_mask(280, 280, 0.3, 1, 3)
    cells = int(free.sum())
    assert cells < MIN_GPU_CELLS <= free.size
    assert sampled_features(free)["corridor"] >= MAX_GPU_CORRIDOR
    local = np.full(40, 45)
    assert cells <= GPU_CELLS_PER_SPAN * 45              # the field rule would say CPU
    assert not routing_prefers_cpu(free, np.full(40, 2), local)
    assert routing_prefers_cpu(free, np.full(20, 2), np.full(20, 150))


def test_router_under_auto_runs_routing_pick_even_against_the_wavefront_pick(monkeypatch):
    from mazeroute.generate import random_layout
    from mazeroute.router import Router, sequential
    monkeypatch.setattr(sequential, "gpu_available", lambda: True)
    monkeypatch.setattr(sequential, "routing_prefers_cpu", lambda free, counts, spans: False)
    asked = []

    def resolve(backend, strategy, graph):
        asked.append(backend)
        raise RuntimeError("stop here")
    monkeypatch.setattr(sequential, "resolve", resolve)
    with pytest.raises(RuntimeError, match="stop here"):
        Router(random_layout(64, 48, nets=3, pins=2, seed=1, span=10), "auto")
    assert asked == ["gpu"]             # not "auto", which would weigh the wavefront again


def test_router_under_auto_takes_the_routing_decision(monkeypatch):
    from mazeroute.generate import random_layout
    from mazeroute.router import Router
    monkeypatch.setattr("mazeroute.router.sequential.gpu_available", lambda: True)
    seen = []

    def decide(free, counts, spans):
        seen.append((counts.tolist(), spans.tolist()))
        return True
    monkeypatch.setattr("mazeroute.router.sequential.routing_prefers_cpu", decide)
    lay = random_layout(64, 48, nets=3, pins=3, seed=1, span=10)
    router = Router(lay, "auto")
    assert router.engine.startswith("cpu/")
    assert seen == [([3, 3, 3], [int(np.ptp(np.asarray(n.pins), axis=0).sum())
                                 for n in lay.nets])]
    Router(lay, "auto", "grid")                  # a strategy named: routing's pick not asked
    assert len(seen) == 1


@pytest.mark.parametrize("seed,density", [(0, 0.5), (1, 0.6), (2, 0.9), (3, 0.97)])
@pytest.mark.parametrize("strips", [1, 2, 7, 64])
def test_cycles_counted_in_bands_equal_the_labels(seed, density, strips):
    from mazeroute.engines.auto import _cycles, _cycles_strips
    rng = np.random.default_rng(seed)
    for free in (rng.random((300, 257)) < density,
                 np.repeat(rng.random((60, 257)) < density, 5, axis=0)):   # long runs
        free = np.ascontiguousarray(free)
        want = _cycle_rank_by_labels(free)
        big = np.iinfo(np.int64).max
        assert _cycles_strips(free, big, strips) == want == _cycles(free, big)
        assert _cycles_strips(free, 5, strips) == min(want, 5)


def test_a_perfect_maze_has_no_cycle_in_bands_either():
    from mazeroute.engines.auto import _cycles_strips
    from mazeroute.generate import class_mask
    free = ~class_mask("maze:0", 512)
    assert _cycles_strips(free, 1, 16) == 0
    free[2, 3] = free[2, 4] = free[3, 3] = free[3, 4] = True     # a 2 x 2 room: loops
    assert _cycles_strips(free, 1, 16) == 1


def _features_by_arrays(free: np.ndarray, patch: int = 128, per_side: int = 4) -> dict:
    """The sampled features the plain way: every patch zero-padded, neighbours by
    slicing, one cell at a time in numpy (the form auto.py used before it read eight
    cells a word)."""
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
    from mazeroute.generate import class_mask
    free = ~class_mask(name, 700, 3)
    got, want = grid_features(free), _features_by_arrays(free)
    assert {k: round(got[k], 12) for k in want} == {k: round(v, 12) for k, v in want.items()}


def test_big_grids_are_counted_only_when_the_patches_leave_the_size_in_doubt():
    from mazeroute.engines.auto import COUNT_CELLS, _decide
    side = 2048
    assert side * side > COUNT_CELLS
    pocket = np.zeros((side, side), bool)            # free space between the patches
    pocket[300:400, 300:400] = True
    cpu, f = _decide(pocket)
    assert cpu and f is None                         # counted: 10,000 cells, too few
    free = np.random.default_rng(1).random((side, side)) >= 0.02
    cpu, f = _decide(free)
    assert not cpu
    assert f["cells"] == pytest.approx(int(free.sum()), rel=0.01)   # the estimate
    maze = np.zeros((side, side), bool)
    maze[:1023, :1023] = ~maze_mask(1023, 1023, seed=2)
    _, f = _decide(maze)
    assert f["cells"] == int(maze.sum())             # maze-like: counted exactly


@pytest.mark.parametrize("seed", range(6))
def test_surplus_is_edges_less_cells_on_either_path(seed, monkeypatch):
    from mazeroute.engines import auto
    rng = np.random.default_rng(seed)
    free = rng.random((int(rng.integers(1, 90)), int(rng.integers(1, 90)))) < 0.6
    cells = int(free.sum())
    edges = sum(int(free[y, x] and free[y, x + 1]) for y in range(free.shape[0])
                for x in range(free.shape[1] - 1)) + sum(
        int(free[y, x] and free[y + 1, x]) for y in range(free.shape[0] - 1)
        for x in range(free.shape[1]))
    assert auto._surplus(free) == (edges - cells, cells)
    monkeypatch.setattr(auto, "PARALLEL_SURPLUS_CELLS", 0)       # the compiled pass
    assert auto._surplus(free) == (edges - cells, cells)


def test_auto_negotiates_small_grids_on_the_cpus_search(monkeypatch):
    """Under ``auto`` with a device present, a grid under MIN_GPU_CELLS cells gets the
    CPU's weighted search and a bigger one the GPU's (here a stand-in registered as the
    GPU's, so that no device is needed)."""
    import mazeroute.engines as engines
    from mazeroute.engines.auto import MIN_GPU_CELLS

    monkeypatch.setattr(engines, "gpu_available", lambda: True)
    monkeypatch.setitem(engines.NET_SEARCHES, "gpu", "mazeroute.engines.weighted:CPUNetSearch")
    side = int(np.sqrt(MIN_GPU_CELLS))
    for h, w, want in ((side - 1, side, "cpu"), (side, side, "gpu"), (40, 20, "cpu")):
        free = np.ones((h, w), bool)
        search = engines.make_net_search("auto", free, np.full((h, w), -1, np.int32))
        assert search.backend == want, (h, w)


@pytest.mark.parametrize("name, want", [("maze:0", "cpu"), ("maze:0.05", "cpu"),
                                        ("serpentine:4", "cpu"), ("spiral:3", "cpu"),
                                        ("serpentine:1", "cpu"), ("open:0.25", "gpu"),
                                        ("dense:0.3", "walls"), ("wired:2", "walls")])
@pytest.mark.parametrize("side", [512, 1024])
def test_auto_negotiates_mazes_and_winding_corridors_on_the_cpus_search(name, want, side,
                                                                         monkeypatch):
    """Under ``auto`` with a device present, mazes and winding corridors get the CPU's
    weighted search (as sequential routing does), open fields of blockages the GPU's;
    fields where many free cells lie beside a wall ("walls") the CPU's on a grid of
    fewer than SPAN_CELLS free cells, the GPU's on a bigger one."""
    import mazeroute.engines as engines
    from mazeroute.engines.auto import MIN_CPU_WALL, SPAN_CELLS, forget, sampled_features
    from mazeroute.generate import class_mask

    monkeypatch.setattr(engines, "gpu_available", lambda: True)
    monkeypatch.setitem(engines.NET_SEARCHES, "gpu", "mazeroute.engines.weighted:CPUNetSearch")
    forget()
    free = ~class_mask(name, side, seed=5)
    if want == "walls":
        assert sampled_features(free)["wall"] >= MIN_CPU_WALL
        want = "cpu" if free.sum() < SPAN_CELLS else "gpu"
        assert want == ("cpu" if side == 512 else "gpu")
    search = engines.make_net_search("auto", free, np.full(free.shape, -1, np.int32))
    assert search.backend == want

def test_auto_negotiation_without_a_device_never_weighs_the_layout(monkeypatch):
    """Without a usable GPU, ``auto``'s weighted search is the CPU's at once: the
    layout's features (sampled, compiled on first use) are never computed."""
    import mazeroute.engines as engines
    import mazeroute.engines.auto as auto

    monkeypatch.setattr(engines, "gpu_available", lambda: False)
    monkeypatch.setitem(engines.NET_SEARCHES, "gpu", "mazeroute.engines.weighted:CPUNetSearch")

    def weighed(free):
        raise AssertionError("the layout was weighed")
    monkeypatch.setattr(auto, "negotiation_prefers_cpu", weighed)
    free = np.ones((512, 512), bool)
    assert engines.make_net_search("auto", free, np.full(free.shape, -1, np.int32)).backend \
        == "cpu"


def _masks_for_loops():
    from mazeroute.generate import class_mask
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
    from mazeroute.engines.auto import cycle_rank, forget, is_forest, sampled_features
    free = np.ascontiguousarray(free)
    f = sampled_features(free)
    forget()
    exact = cycle_rank(free)
    assert 0 <= f["loops_at_least"] <= exact
    for limit in (0, 1, 10, f["loops_at_least"], exact, exact + 1, 10**9):
        forget()
        assert cycle_rank(free, limit, f) == min(exact, limit) == cycle_rank(free, limit)
    forget()
    assert is_forest(free, f) == (exact == 0)


def test_maze_decisions_skip_the_pass_only_where_the_patches_settle_them(monkeypatch):
    """A maze with many loops is decided from the patches' bound (no pass over the mask
    for its cycles), one with few loops still counts them, and both decide as before."""
    from mazeroute.engines import auto
    from mazeroute.generate import class_mask
    passes = []
    surplus = auto._surplus
    monkeypatch.setattr(auto, "_surplus", lambda free: passes.append(1) or surplus(free))
    for name, skipped in (("maze:0.2", True), ("maze:0.002", False)):
        free = np.ascontiguousarray(~class_mask(name, 1024, seed=3))
        passes.clear()
        auto.forget()
        cpu, f = auto._decided(free)
        assert (not passes) == skipped
        f0 = dict(f, loops_at_least=0)
        auto.forget()
        least = auto.MIN_GPU_LOOPS_LARGE if f["cells"] >= auto.LARGE_CELLS else auto.MIN_GPU_LOOPS
        bound = int(np.ceil(least * f["cells"]))
        assert cpu == (0 < auto.cycle_rank(free, bound, f0) < least * f["cells"])


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
    from mazeroute.engines.auto import corridor_run
    free = np.random.default_rng(seed).random((h, w)) < density
    ys = ((np.arange(side) + 0.5) * h / side).astype(np.int64)
    xs = ((np.arange(side) + 0.5) * w / side).astype(np.int64)
    runs = [_run_oracle(free, y, x) for y in ys for x in xs if free[y, x]]
    assert corridor_run(free, side) == pytest.approx(np.mean(runs) if runs else 0.0)
