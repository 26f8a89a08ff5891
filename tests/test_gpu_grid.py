"""``gpu/grid`` (mazeroute/engines/gpu_grid.py, kernels/grid.cu) equals the oracle.

Every test needs CuPy and a CUDA device (marked ``gpu``); the module imports without them.
"""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.engines import UNREACHED, make_problem
from mazeroute.engines.oracle import oracle_levels
from mazeroute.generate import maze_mask, random_rects, serpentine_mask, spiral_mask
from mazeroute.graph import GridGraph
from mazeroute.layout import paint
from tests.corpus import hand_cases, random_cases

pytestmark = pytest.mark.gpu

KEY = ("gpu", "grid")
CASES = [c for c in hand_cases() + random_cases(200, max_side=1024, seed=44) if c.is_grid]


def _problem(graph, **kw):
    if kw:
        from mazeroute.engines.gpu_grid import GridRelaxProblem
        return GridRelaxProblem(graph, **kw)
    return make_problem(graph, *KEY)


def _oracle(free, sources):
    g = GridGraph(free)
    return oracle_levels(g.csr, list(sources), ~free.ravel()).reshape(free.shape)


def _rects(w, h, density, seed):
    return ~paint(w, h, random_rects(w, h, density, np.random.default_rng(seed)))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_grid_equals_oracle_on_corpus(case):
    lv = _problem(case.graph).wavefront(list(case.sources)).levels()
    np.testing.assert_array_equal(lv, case.expected())


def test_auto_mode_picks_tree_tiles_sweep_or_lines_by_layout():
    assert _problem(GridGraph(~serpentine_mask(512, 3))).mode == "lines"
    assert _problem(GridGraph(~spiral_mask(300, 5))).mode == "lines"
    perfect = ~maze_mask(255, 255, seed=1)
    assert _problem(GridGraph(perfect)).mode == "tree"
    braid = perfect.copy()
    braid[1:-1:2, 2:-1:8] = True                 # knock out walls: loops, still corridors
    assert _problem(GridGraph(braid)).mode == "tiles"
    assert _problem(GridGraph(_rects(256, 256, 0.25, 1))).mode == "sweep"
    with pytest.raises(ValueError, match="forest"):
        _problem(GridGraph(braid), mode="tree")
    # searches with targets go to the host on the maze with loops only
    assert _problem(GridGraph(braid)).host_targets
    for free in (perfect, _rects(256, 256, 0.25, 1), ~serpentine_mask(512, 3)):
        assert not _problem(GridGraph(free)).host_targets
    assert not _problem(GridGraph(braid), mode="tiles").host_targets
    assert _problem(GridGraph(perfect), mode="tiles", host_targets=True).host_targets


def _loopy(side, seed, loops=0.05):
    from mazeroute.generate import class_mask
    return ~class_mask(f"maze:{loops}", side, seed)


@pytest.mark.parametrize("seed", range(3))
def test_host_targets_read_like_the_device_windows(seed):
    """host_targets: the CPU's queue BFS on the host mirror. Every read of a search with
    targets (target, its level, the level count, the levels of the grid and of a window,
    the targets' levels) equals the device's windows and the oracle's up to the target's
    level, before and after cells are blocked and freed between searches."""
    rng = np.random.default_rng(seed)
    frees = [c.graph.free for c in random_cases(12, max_side=300, seed=40 + seed)]
    frees += [_loopy(121, seed), _loopy(255, seed, 0.01)]
    for free in frees:
        g = GridGraph(free)
        cells = np.flatnonzero(free.ravel())
        if cells.size < 5:          # a source, two of them, and three targets
            continue
        # the windows are the tiles mode's (a forest's one-root search takes the tree path)
        dev = _problem(g, mode="tiles", host_targets=False)
        host = _problem(g, mode="tiles", host_targets=True)
        blocked = np.zeros(free.size, bool)
        for step in range(3):
            open_ = np.flatnonzero(free.ravel() & ~blocked)
            src = rng.choice(open_, 1 + step % 2, replace=False)
            tgt = rng.choice(np.setdiff1d(open_, src), 3, replace=False)
            wd, wh = dev.wavefront(src, tgt), host.wavefront(src, tgt)
            assert (wh.target, wh.target_level, wh.num_levels) == \
                (wd.target, wd.target_level, wd.num_levels)
            np.testing.assert_array_equal(wh.levels(), wd.levels())
            h, w = free.shape
            window = (h // 4, h // 2 + 1, w // 3, w - 1)
            np.testing.assert_array_equal(wh.levels(window), wd.levels(window))
            np.testing.assert_array_equal(host._read_vertices(tgt), dev._read_vertices(tgt))
            want = _oracle(free & ~blocked.reshape(free.shape), src).ravel()
            stop = wh.target_level if wh.target is not None else want[want < UNREACHED].max()
            inside = want <= stop
            np.testing.assert_array_equal(wh.levels().ravel()[inside], want[inside])
            # the host's own levels, uncopied, for a backtrace; the device's stay there
            below = want < stop
            np.testing.assert_array_equal(wh.host_levels().ravel()[below], want[below])
            assert wd.host_levels() is None
            assert host.host_runs == step + 1 and dev.host_runs == 0
            # a wire blocked, an earlier one freed, in both
            wire = rng.choice(np.setdiff1d(open_, np.concatenate([src, tgt])),
                              min(40, max(0, open_.size - 6)), replace=False)
            for p in (dev, host):
                p.set_blocked(np.flatnonzero(blocked), False)
                p.set_blocked(wire)
            blocked[:] = False
            blocked[wire] = True
        whole = host.wavefront(src)          # a whole wavefront still runs on the device
        assert host.host_runs == 3
        np.testing.assert_array_equal(whole.levels(), _oracle(free & ~blocked.reshape(
            free.shape), src))


def _forest_cases():
    """Corpus mazes plus random forests: spanning trees of random grids, cut at random."""
    cases = [c for c in CASES if "maze" in c.id]
    rng = np.random.default_rng(12)
    for k in range(30):
        h, w = (int(v) for v in rng.integers(1, 90, 2))
        free = ~maze_mask(2 * w + 1, 2 * h + 1, seed=k)
        free &= rng.random(free.shape) > 0.03 * (k % 3)      # cut some trees apart
        cells = np.flatnonzero(free.ravel())
        if cells.size:
            cases.append((free, [int(rng.choice(cells))]))
    return [(c.graph.free, list(c.sources)) if hasattr(c, "graph") else c for c in cases]


def test_tree_levels_equal_oracle_on_forests():
    for free, sources in _forest_cases():
        g = GridGraph(free)
        p = _problem(g, mode="tree")
        wave = p.wavefront(sources)
        want = _oracle(free, sources)
        np.testing.assert_array_equal(wave.levels(), want)
        assert wave.num_levels == want[want < UNREACHED - 1].max() + 1


def _follows_wires(p, free, rng, wire_cells):
    """Wavefronts from random roots equal the oracle's while random cells are blocked
    between them; returns the free mask left."""
    cells = np.flatnonzero(free.ravel())
    now = free.copy()
    for _ in range(4):
        root = int(rng.choice(cells[now.ravel()[cells]]))
        np.testing.assert_array_equal(p.wavefront([root]).levels(), _oracle(now, [root]))
        wire = rng.choice(cells[now.ravel()[cells]], wire_cells, replace=False)
        wire = wire[wire != root]
        p.set_blocked(wire)
        now.ravel()[wire] = False
    return now


def test_tree_follows_committed_wires_and_hands_several_roots_to_the_tiles():
    free = ~maze_mask(301, 201, seed=4)
    p = _problem(GridGraph(free), mode="tree")
    rng = np.random.default_rng(3)
    now = _follows_wires(p, free, rng, 40)
    cells = np.flatnonzero(now.ravel())
    src = rng.choice(cells, 3, replace=False)
    np.testing.assert_array_equal(p.wavefront(src).levels(), _oracle(now, src))
    q = _problem(GridGraph(np.eye(9, dtype=bool)), mode="tree")   # isolated cells
    lv = q.wavefront([0]).levels()
    assert lv[0, 0] == 0 and (lv.ravel()[1:] >= UNREACHED - 1).all()


@pytest.mark.parametrize("mode", ["sweep", "lines"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_whole_wavefront_modes_equal_oracle_on_corpus(case, mode):
    p = _problem(case.graph, mode=mode)
    assert p.mode == mode
    wave = p.wavefront(list(case.sources))
    np.testing.assert_array_equal(wave.levels(), case.expected())
    want = case.expected()
    assert wave.num_levels == want[want < UNREACHED].max(initial=0) + 1


@pytest.mark.parametrize("mode", ["sweep", "lines"])
@pytest.mark.parametrize("seed", range(12))
def test_sweep_and_lines_search_targets_as_tiles_and_whole_wavefronts_their_way(seed, mode):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(20, 300)), int(rng.integers(20, 300))
    free = _rects(w, h, float(rng.uniform(0.1, 0.4)), seed)
    g = GridGraph(free)
    cells = np.flatnonzero(free.ravel())
    tiles, sweep = _problem(g, mode="tiles"), _problem(g, mode=mode)
    for i in range(4):        # the two kinds of run interleaved on one problem
        pick = rng.choice(cells, size=int(rng.integers(2, 6)), replace=False)
        src, tgt = pick[:1], pick[1:]
        a, b = tiles.wavefront(src, tgt), sweep.wavefront(src, tgt)
        if i == 0:            # searches with targets alone never build the whole-run kernel
            assert sweep._sweep is None and sweep._lines is None
        assert (a.target, a.target_level, a.num_levels) == (b.target, b.target_level,
                                                            b.num_levels)
        np.testing.assert_array_equal(a.levels(), b.levels())
        roots = rng.choice(cells, size=int(rng.integers(1, 4)), replace=False)
        want = _oracle(free, roots)
        whole = sweep.wavefront(roots)
        np.testing.assert_array_equal(whole.levels(), want)
        assert whole.num_levels == want[want < UNREACHED - 1].max() + 1


def _corridors():
    """Serpentines and spirals of several widths and sizes (upright too), cut by random
    doors and blockages, so that spans start and end at every offset of a scan step."""
    rng = np.random.default_rng(21)
    out = []
    for k in range(24):
        n = int(rng.integers(5, 700))
        width = int(rng.integers(1, 9))
        free = ~(serpentine_mask if k % 2 else spiral_mask)(n, width)
        if k % 3 == 1:
            free = np.ascontiguousarray(free.T)
        if k % 4 == 2:
            free |= rng.random(free.shape) < 0.002          # doors through walls
        if k % 4 == 3:
            free &= rng.random(free.shape) > 0.01           # blockages in corridors
        out.append(free[: n - int(rng.integers(0, 3)), :])
    return out


def test_lines_mode_equals_oracle_on_corridors_from_any_roots():
    rng = np.random.default_rng(8)
    for free in _corridors():
        cells = np.flatnonzero(free.ravel())
        if not cells.size:
            continue
        p = _problem(GridGraph(free), mode="lines")
        for roots in (cells[:1], rng.choice(cells, min(3, cells.size), replace=False)):
            wave = p.wavefront(roots)
            want = _oracle(free, roots)
            np.testing.assert_array_equal(wave.levels(), want)
            assert wave.num_levels == want[want < UNREACHED - 1].max() + 1


def test_lines_mode_follows_committed_wires():
    free = ~spiral_mask(401, 3)
    p = _problem(GridGraph(free), mode="lines")
    now = _follows_wires(p, free, np.random.default_rng(2), 30)
    root = int(np.flatnonzero(now.ravel())[0])
    np.testing.assert_array_equal(p.wavefront([root]).levels(), _oracle(now, [root]))


@pytest.mark.parametrize("tile_rows,flush_every,block_levels,linger",
                         [(64, 16, 8, 20000), (64, 1, 1, 100000), (32, 1000, 16, 0),
                          (32, 4, 3, 500), (32, 8, 8, 0)])
def test_tile_heights_and_hand_over_rates_equal_oracle(tile_rows, flush_every, block_levels,
                                                       linger):
    for case in random_cases(25, max_side=300, seed=5 + tile_rows + flush_every):
        p = _problem(case.graph, tile_rows=tile_rows, flush_every=flush_every,
                     block_levels=block_levels, linger=linger)
        np.testing.assert_array_equal(p.wavefront(list(case.sources)).levels(),
                                      case.expected(), err_msg=case.id)


@pytest.mark.parametrize("mode", ["tiles", "tree", "sweep"])
@pytest.mark.parametrize("size", [63, 255, 1023, 2047])
def test_perfect_mazes(size, mode):
    free = ~maze_mask(size, size, seed=size)
    g = GridGraph(free)
    p = _problem(g, mode=mode)
    assert p.mode == mode
    for root in [(0, 0), (size // 2 - (size // 2) % 2, size // 2 - (size // 2) % 2)]:
        wave = p.wavefront(g.vertices([root]))
        want = _oracle(free, g.vertices([root]))
        np.testing.assert_array_equal(wave.levels(), want)
        assert wave.num_levels == want[want < UNREACHED - 1].max() + 1


def test_repeated_wavefronts_reuse_the_problem():
    free = _rects(700, 500, 0.3, 3)
    g = GridGraph(free)
    p = _problem(g)
    rng = np.random.default_rng(0)
    cells = np.flatnonzero(free.ravel())
    for _ in range(6):
        src = rng.choice(cells, size=int(rng.integers(1, 4)), replace=False)
        np.testing.assert_array_equal(p.wavefront(src).levels(), _oracle(free, src))


def test_early_exit_labels_every_level_up_to_the_target():
    for case in random_cases(40, max_side=400, seed=7):
        want = case.expected().ravel()
        reach = np.flatnonzero(want != UNREACHED)
        p = _problem(case.graph)
        targets = reach[::max(1, len(reach) // 3)][::-1]
        wave = p.wavefront(list(case.sources), targets)
        best = want[targets].min()
        assert wave.target_level == best, case.id
        assert wave.target == targets[np.flatnonzero(want[targets] == best)[0]]
        assert wave.num_levels == best + 1
        got = wave.levels().ravel()
        inside = want <= best
        np.testing.assert_array_equal(got[inside], want[inside], err_msg=case.id)
        assert (got[~inside] == UNREACHED).all(), case.id    # deeper: reported unreached


def test_window_grows_around_a_detour():
    # A wall between the pins whose only gap lies far outside their bounding box.
    h, w = 600, 900
    free = np.ones((h, w), bool)
    free[:, 450] = False
    free[590, 450] = True
    g = GridGraph(free)
    src, tgt = g.vertex(440, 10), g.vertex(460, 12)
    p = _problem(g)
    wave = p.wavefront([src], [tgt])
    want = _oracle(free, [src])
    assert wave.target_level == want.ravel()[tgt] == 10 + 580 + 10 + 578
    assert p.runs >= 2                                   # the first window was too small
    got = wave.levels()
    inside = want <= wave.target_level
    np.testing.assert_array_equal(got[inside], want[inside])
    # The same problem then serves a local net with a small window again.
    runs = p.runs
    wave = p.wavefront([g.vertex(10, 10)], [g.vertex(20, 30)])
    assert wave.target_level == 30 and p.runs == runs + 1


def test_unreachable_target_gives_no_target_and_full_levels():
    free = np.ones((300, 300), bool)
    free[100, :] = False
    g = GridGraph(free)
    p = _problem(g)
    wave = p.wavefront([g.vertex(5, 5)], [g.vertex(5, 200)])
    assert wave.target is None and wave.target_level is None
    np.testing.assert_array_equal(wave.levels(), _oracle(free, [g.vertex(5, 5)]))


def test_multi_source_with_targets():
    free = _rects(512, 512, 0.25, 9)
    g = GridGraph(free)
    cells = np.flatnonzero(free.ravel())
    rng = np.random.default_rng(1)
    p = _problem(g)
    for _ in range(5):
        src = rng.choice(cells, 40, replace=False)
        tgt = rng.choice(np.setdiff1d(cells, src), 3, replace=False)
        want = _oracle(free, src).ravel()
        wave = p.wavefront(src, tgt)
        best = want[tgt].min()
        assert wave.target_level == best
        got = wave.levels().ravel()
        inside = want <= best
        np.testing.assert_array_equal(got[inside], want[inside])


def test_blockages_change_between_wavefronts():
    free = _rects(300, 200, 0.2, 2)
    g = GridGraph(free)
    p = _problem(g)
    root = int(np.flatnonzero(free.ravel())[0])
    first = p.wavefront([root]).levels()
    np.testing.assert_array_equal(first, _oracle(free, [root]))
    wall = g.vertices([(150, y) for y in range(200)])
    wall = wall[free.ravel()[wall]]
    p.set_blocked(wall)
    now = free.copy()
    now.ravel()[wall] = False
    np.testing.assert_array_equal(p.wavefront([root]).levels(), _oracle(now, [root]))
    p.set_blocked(wall[:50], False)
    now.ravel()[wall[:50]] = True
    np.testing.assert_array_equal(p.wavefront([root]).levels(), _oracle(now, [root]))
    with pytest.raises(ValueError, match="blocked"):
        p.wavefront([int(wall[-1])])


def test_4096_equals_cpu_engine():
    free = _rects(4096, 4096, 0.25, 0)
    g = GridGraph(free)
    root = int(np.flatnonzero(free.ravel())[0])
    cpu = make_problem(g, "cpu", "grid").wavefront([root])
    gpu = _problem(g).wavefront([root])
    assert gpu.num_levels == cpu.num_levels
    np.testing.assert_array_equal(gpu.levels(), cpu.levels())


def test_router_routes_pass_the_contract():
    from mazeroute.contract import check_routes
    from mazeroute.generate import random_layout
    from mazeroute.router import Router

    for seed, (w, h, nets, pins, span) in enumerate([(200, 150, 60, 2, 40),
                                                     (300, 300, 40, 3, None),
                                                     (129, 97, 30, 2, None)]):
        lay = random_layout(w, h, density=0.2, nets=nets, pins=pins, seed=seed, span=span)
        res = Router(lay, backend="gpu", strategy="grid").run()
        assert res.engine == "gpu/grid"
        assert check_routes(lay, res.to_json(), sequential=True) == []
        cpu = Router(lay, backend="cpu").run()
        assert [n.cells for n in res.nets] == [n.cells for n in cpu.nets]


def test_tree_early_exit_reads_like_the_tiles():
    for free, sources in _forest_cases():
        want = _oracle(free, sources).ravel()
        reach = np.flatnonzero(want < UNREACHED - 1)
        targets = reach[::max(1, len(reach) // 3)][::-1]
        if sources[0] in targets:
            continue
        wave = _problem(GridGraph(free), mode="tree").wavefront(sources, targets)
        best = want[targets].min()
        assert wave.target_level == best and wave.num_levels == best + 1
        assert wave.target == targets[np.flatnonzero(want[targets] == best)[0]]
        got = wave.levels().ravel()
        inside = want <= best
        np.testing.assert_array_equal(got[inside], want[inside])
        assert (got[~inside] == UNREACHED).all()


@pytest.mark.parametrize("pins,span,nets", [(2, 30, 40), (3, 24, 30)])
def test_router_on_a_perfect_maze_equals_the_cpu_router(pins, span, nets):
    from mazeroute.contract import check_routes
    from mazeroute.generate import perfect_maze
    from mazeroute.router import Router

    lay = perfect_maze(151, 121, nets=nets, pins=pins, seed=pins, span=span)
    router = Router(lay, backend="gpu", strategy="grid")
    assert router.problem.mode == "tree"
    res = router.run()
    assert check_routes(lay, res.to_json(), sequential=True) == []
    cpu = Router(lay, backend="cpu").run()
    assert res.routed > 0
    assert [n.cells for n in res.nets] == [n.cells for n in cpu.nets]


@pytest.mark.parametrize("seed", range(2))
def test_router_on_a_maze_with_loops_searches_nets_alone_on_the_host(seed):
    """Nets whose windows cannot hold their detours go alone; on a maze with loops their
    searches run on the host mirror, which must know every wire the batches committed
    and lifted: the routes equal the CPU router's, field by field."""
    from mazeroute.contract import check_routes
    from mazeroute.generate import random_nets
    from mazeroute.layout import Layout
    from mazeroute.router import Router

    free = _loopy(701, seed, 0.02)          # whole-grid windows exceed shared memory
    lay = Layout("loopy", 701, 701, [], [], ~free)
    lay.nets = random_nets(~free, 40, 2, np.random.default_rng(seed), span=250)
    router = Router(lay, backend="gpu", strategy="grid")
    res = router.run()
    assert router.problem.host_targets and router.problem.host_runs > 0
    assert check_routes(lay, res.to_json(), sequential=True) == []
    cpu = Router(lay, backend="cpu").run()
    assert res.routed > 0
    assert [(n.routed, n.cells, n.levels, n.bends) for n in res.nets] == \
        [(n.routed, n.cells, n.levels, n.bends) for n in cpu.nets]


def test_tree_path_is_guarded_like_the_sweep_kernel(monkeypatch):
    """Arc ids ``4 * cell + d`` are int32; a grid with more arcs than
    that must not take the Euler-tour path (a tiny bound stands in for 2^31 here)."""
    from mazeroute.engines import gpu_grid, gpu_tree
    assert gpu_tree.fits(1 << 14, 1 << 15) and not gpu_tree.fits(1 << 14, (1 << 15) + 1)
    free = ~maze_mask(63, 63, seed=2)
    assert _problem(GridGraph(free)).mode == "tree"
    monkeypatch.setattr(gpu_grid, "tree_fits", lambda h, w: h * w < 100)
    p = _problem(GridGraph(free))
    assert p.mode == "tiles"
    root = int(np.flatnonzero(free.ravel())[0])
    np.testing.assert_array_equal(p.wavefront([root]).levels(), _oracle(free, [root]))
    with pytest.raises(ValueError, match="int32"):
        _problem(GridGraph(free), mode="tree")


def test_work_queue_ends_only_when_every_tile_is_done_under_stress():
    """A queue that lost an item would end a run early and leave
    tiles unsettled (and later runs on the same problem spoiled); many back-to-back runs
    of both persistent kernels on one problem must all equal the oracle."""
    free = _rects(1024, 512, 0.2, 7)
    g = GridGraph(free)
    cells = np.flatnonzero(free.ravel())
    rng = np.random.default_rng(5)
    for mode in ("sweep", "tiles", "lines"):
        p = _problem(g, mode=mode)
        for _ in range(12):
            src = rng.choice(cells, int(rng.integers(1, 4)), replace=False)
            np.testing.assert_array_equal(p.wavefront(src).levels(), _oracle(free, src))
