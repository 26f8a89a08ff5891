"""The planner's rules as functions of a :class:`~.features.Measure`: CPU or GPU for a
whole wavefront, for sequential routing and for negotiation, and how ``gpu/grid`` runs a
whole wavefront.

The GPU engine ``gpu/grid`` relaxes 64-column tiles in parallel, so it wins wherever the
wavefront is wide; its cost per level along one corridor is larger than the CPU queue's
cost per cell, so on a maze of one-cell corridors with a few loops, and on small grids
where a launch costs more than the whole CPU search, the compiled CPU queue BFS is
faster. A perfect maze (free cells forming a forest) is the exception: there ``gpu/grid``
computes Euler-tour depths instead of levels. Corridors wider than a cell keep a
wavefront long and narrow, unless they are *winding corridors* with long straight
stretches, where ``gpu/grid`` scans whole lines. ``docs/auto.md`` gives every rule with
its reason and evidence.

Examples
--------
>>> import numpy as np
>>> from .features import Measure
>>> wavefront_prefers_cpu(Measure(np.ones((16, 16), bool)))[0]
True
>>> wavefront_prefers_cpu(Measure(np.ones((512, 512), bool)))[0]
False
"""

from __future__ import annotations

import numpy as np

from .features import Measure
from .rules import DEFAULT_RULES, Rules


def walled(f: dict, rules: Rules = DEFAULT_RULES) -> bool:
    """Not maze-like, and walls cut the sampled free space into pieces with no way round
    (``euler`` and ``wall``): corridors wider than a cell may keep a wavefront long and
    narrow there, where a dense field of blockages passes too."""
    return (f["corridor"] < rules.max_gpu_corridor and f["euler"] >= rules.min_cpu_euler
            and f["wall"] >= rules.min_cpu_wall)


def winding(m: Measure) -> bool:
    """Whether a layout is winding corridors (walled, with straight runs of at least
    ``min_lines_run``), where ``gpu/grid`` scans whole lines.

    >>> from mazeroute.generate import serpentine_mask
    >>> winding(Measure(~serpentine_mask(512, 4))), winding(Measure(np.ones((512, 512), bool)))
    (True, False)
    """
    f = m.sampled()
    return walled(f, m.rules) and m.run() >= m.rules.min_lines_run


def maze_like(m: Measure) -> bool:
    """True when most free cells have at most two free neighbours (one-cell corridors)."""
    return m.sampled()["corridor"] >= m.rules.max_gpu_corridor


def wavefront_prefers_cpu(m: Measure) -> tuple[bool, dict | None]:
    """Whether the CPU engine is expected to beat ``gpu/grid`` on a whole wavefront, and
    the sampled features that decided (None for a small layout).

    The free cells are counted only where the count is cheap (up to ``count_cells``
    cells), where the sampled patches leave the layout's size in doubt, and for
    maze-like layouts (whose cycle count reads every cell anyway); elsewhere the
    patches' share of free cells stands for it.
    """
    r, free = m.rules, m.free
    if free.size < r.min_gpu_cells:
        return True, None
    f = None
    if free.size > r.count_cells:
        f = m.sampled()
        cells = int(f["sampled"] * free.size)
    counted = f is None or cells < r.sure_cells * r.min_gpu_cells
    if counted:
        cells = m.count()
    if cells < r.min_gpu_cells:        # on a small grid before the patches: they cost as much
        return True, None
    f = m.sampled()
    f["cells"] = cells
    if f["corridor"] < r.max_gpu_corridor:
        # the probes tell corridors wider than a cell from a dense field of blockages
        if not walled(f, r):
            return False, f
        width = m.width()
        if winding(m):
            return width * f["run"] < r.lines_balance, f
        return width < r.max_cpu_width, f
    if not counted:
        cells = f["cells"] = m.count()
    least = r.min_gpu_loops_large if cells >= r.large_cells else r.min_gpu_loops
    bound = int(np.ceil(least * cells))
    return 0 < m.cycles(bound) < least * cells, f


def negotiation_prefers_cpu(m: Measure) -> bool:
    """Whether negotiated routing is expected to be faster on the CPU's weighted search:
    on grids under ``min_gpu_negotiate_cells`` cells, and on mazes and winding corridors
    (boxes grow round the detours, and each pass is many small calls that wait on each
    other). Fields of walls go to the GPU: with the loop's state on the device its
    passes cost little more there than in the open.

    >>> negotiation_prefers_cpu(Measure(np.ones((50, 50), bool)))
    True
    >>> negotiation_prefers_cpu(Measure(np.ones((1024, 1024), bool)))
    False
    """
    r = m.rules
    if m.free.size < max(r.min_gpu_cells, r.min_gpu_negotiate_cells):
        return True
    # measured here, not through the wavefront's rule, which weighs no feature of a
    # grid with fewer free cells than it sends to the GPU
    return maze_like(m) or winding(m)


def _branch(pin_counts: np.ndarray, spans: np.ndarray) -> float:
    """The median net's span per branch: a tree's searches are its branches, each about
    its span over its pins less one."""
    pins = np.asarray(pin_counts)
    return float(np.median(np.asarray(spans) / np.maximum(pins - 1, 1)))


def _maze_routing_prefers_cpu(m: Measure, f: dict, pin_counts, spans) -> bool:
    """A maze: its loops and its nets' spans decide (``maze_span_line``), not the
    wavefront's rule (the routes' detours set the pace, not one wavefront's levels)."""
    r = m.rules
    branch = _branch(pin_counts, spans)
    if branch >= r.maze_spanning * np.sqrt(f["cells"]):
        return f["cells"] < r.maze_spanning_cells
    line = (r.maze_span_line * branch / f["cells"]) ** 2
    if line < r.min_maze_loops:
        return False
    bound = int(line * f["cells"])       # the CPU's at most this many loops
    return m.cycles(bound + 1) <= bound


def routing_prefers_cpu(m: Measure, pin_counts: np.ndarray, spans: np.ndarray) -> bool:
    """Whether sequential routing is expected to be faster on the CPU engine.

    The GPU router gains by searching many nets (of up to ``max_pins`` pins) in one
    launch, each in a small window; a net whose window must grow is a whole-grid
    wavefront of its own on the device, where the CPU's search stops at the net's pins.
    So, beyond the wavefront's rule: winding corridors go to the CPU; a maze goes by its
    nets' spans against its loops' spacing (``maze_span_line``, ``maze_spanning``);
    trees spanning much of a small grid (``tree_span``) and nets of more than
    ``max_pins`` pins that are not local (``group_span``) go to the CPU; on grids under
    ``span_cells`` free cells the nets' median span decides both ways
    (``gpu_cells_per_span``, ``gpu_cells_per_span_dense``).

    ``pin_counts`` and ``spans`` (pin box half-perimeters) have one entry per net.

    >>> free = np.ones((1024, 1024), bool)
    >>> routing_prefers_cpu(Measure(free), np.full(300, 4), np.full(300, 100))
    False
    >>> small = np.ones((512, 512), bool)
    >>> routing_prefers_cpu(Measure(small), np.full(300, 4), np.full(300, 600))
    True
    """
    r, free = m.rules, m.free
    cpu, f = wavefront_prefers_cpu(m)
    if f is None and free.size >= r.min_gpu_cells and len(pin_counts):
        # too few free cells for the wavefront's rule to read features; a maze's loops
        # and its nets' spans still decide its routing (the patches cost little)
        f = m.sampled()
        f["cells"] = m.count()
    if f is not None and f["corridor"] >= r.max_gpu_corridor and len(pin_counts):
        return _maze_routing_prefers_cpu(m, f, pin_counts, spans)
    if len(pin_counts) == 0 or free.size < r.min_gpu_cells:
        return cpu
    cells = f["cells"] if f is not None else m.count()
    if cpu and cells >= r.span_cells:
        return True
    if f is not None and winding(m):
        return True          # winding corridors: the router's windows walk them by tiles
    pins, spans = np.asarray(pin_counts), np.asarray(spans)
    groups = pins > r.max_pins
    if np.count_nonzero(groups) * 2 > len(pins):
        return bool(cpu or np.median(spans[groups]) > r.group_span)
    trees = pins > 2
    if (np.count_nonzero(trees) * 2 > len(pins) and np.median(spans[trees]) > r.tree_span
            and cells < r.tree_cells):
        return True
    dense = f is not None and f["wall"] >= r.dense_wall
    per_span = r.gpu_cells_per_span_dense if dense else r.gpu_cells_per_span
    return bool(cells < r.span_cells and cells <= per_span * _branch(pin_counts, spans))


def grid_mode(m: Measure) -> tuple[str, bool]:
    """How ``gpu/grid`` runs a whole wavefront, and whether its searches with targets
    run on the host's copy of the grid.

    ``"lines"`` (whole-line scans) for winding corridors, ``"sweep"`` (tile sweeps) on
    other layouts that are not maze-like, ``"tree"`` (Euler-tour depths) for a perfect
    maze and ``"tiles"`` for a maze with loops, whose searches with targets walk the
    corridors a level a step and so run on the host. The engine falls back to a mode
    the grid fits (``tiles`` at last) where a grid exceeds a kernel's counters.

    >>> grid_mode(Measure(np.ones((256, 256), bool)))
    ('sweep', False)
    """
    if not maze_like(m):
        return ("lines" if winding(m) else "sweep"), False
    if m.is_forest():
        return "tree", False
    return "tiles", True
