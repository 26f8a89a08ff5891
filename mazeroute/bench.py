"""``mazeroute bench``: every wavefront engine timed against SciPy and the CPU engine.

Three suites share one measuring loop:

``table`` (default)
    engine x layout class -> median time of a full wavefront (one source, no targets),
    levels, edges per second, speed-up over the CPU engine ``cpu/grid`` and over SciPy's
    ``breadth_first_order``, and a check of every engine's levels against ``cpu/grid``'s
    (a mismatch shows as ``WRONG``, never hidden). Layout classes: ``open`` (25 % random
    rectangles), ``dense`` (50 % small rectangles: a speckle of winding passages),
    ``maze`` (perfect maze, one-cell corridors) and the Moving AI maps ``den520d``,
    ``brc202d``, ``ost003d`` at their own sizes.
``targets``
    the performance targets (issue 4): GPU engine vs SciPy and vs the best textbook GPU
    strategy, routing 1000 nets end to end on CPU and GPU (median of ``--repeats``
    routes, each from a fresh router), peak GPU memory of a 4096 x 4096 route, and
    ``auto`` vs the best engine per class, auto's decision on a new layout (its
    features, timed apart, median of ``--repeats``) added to its engine's time.
``cpu``
    the CPU engine vs SciPy (levels included) on a 4096 x 4096 rectangles layout and a
    1023 x 1023 perfect maze; the goal is at most twice SciPy's time (issue 2).
``negotiate``
    negotiated congestion against sequential routing (issue 13): per layout or puzzle
    file and backend (CPU; the GPU too when present), nets, nets routed by each mode,
    puzzles complete, the wirelength ratio over nets both modes routed, negotiation's
    wall time, and the contract check of every negotiated route; then the targets.
    Layouts: ``generate rects`` 25 %, span 64, seed ``1 + --seed`` at 1024^2 x 2000 and
    4000 nets and 2048^2 x 8000; puzzles: numberlink ``inputs9.txt``, ``inputs10.txt``,
    ``inputs6.txt`` from ``--puzzles`` (default: the shared data next to the checkout).
    One run each (negotiation is deterministic).

How things are timed
--------------------
* The source of every wavefront is the top-left-most cell (row-major first) of the
  largest 4-connected free region, so a wavefront never dies in a pocket.
* Engine time is one :meth:`Problem.wavefront` call: reset of the previous wavefront,
  seeding, and the BFS; the problem is built (graph forms, device upload) beforehand and
  one untimed warm-up run absorbs compilation. Levels stay where the engine keeps them
  (device memory for GPU engines); reading them back for the check is not timed. GPU
  runs are bracketed by device synchronisations, so queued work is included.
* SciPy's ``breadth_first_order`` gives a visiting order and predecessors, not levels.
  The bench times it alone (row ``scipy/bfo``) and then derives levels from its output
  with a compiled O(n) pass (``level[v] = level[pred[v]] + 1`` in visiting order, which
  is valid because BFS order lists a parent before its children); row
  ``scipy/bfo+levels`` is the sum, and every "vs SciPy" ratio uses the sum. The sparse
  matrix (float64 data, int32 indices, as SciPy wants them, so it converts nothing) is
  built once, outside the timing, from :attr:`GridGraph.csr`; ``directed=True`` because
  that CSR already holds both directions of every edge.
* Medians over ``--repeats`` runs; a cell stops repeating early once its timed runs
  pass ``--max-seconds`` (the CSV records the number of runs).

Examples
--------
>>> rows = bench_table(["maze"], [("cpu", "grid"), ("cpu", "csr")], size=33, repeats=1)
>>> [(r.engine, r.check) for r in rows]     # doctest: +NORMALIZE_WHITESPACE
[('cpu/grid', 'ref'), ('scipy/bfo', '-'), ('scipy/bfo+levels', 'ok'), ('cpu/csr', 'ok')]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numba
import numpy as np
import scipy
import scipy.ndimage
import scipy.sparse
from scipy.sparse.csgraph import breadth_first_order

from .engines import ENGINES, UNREACHED, gpu_available, make_problem, resolve
from .engines.auto import forget
from .errors import EngineUnavailable, InputError
from .generate import maze_mask, random_nets, random_rects
from .graph import GridGraph
from .io import atomic_path
from .io import write_csv as write_rows
from .layout import Layout, paint, read_movingai
from .report import format_table as text_columns
from .router import Router

SUITES = ("table", "targets", "cpu", "negotiate")
SYNTHETIC = ("open", "dense", "maze")
MAPS = ("den520d", "brc202d", "ost003d")
CLASSES = SYNTHETIC + MAPS
DEFAULT_SIZE = 1024
DEFAULT_REPEATS = 5
DEFAULT_MAX_SECONDS = 10.0
MAX_SIZE = 32768
#: The reference engine: every other engine's levels are compared with its levels.
REFERENCE = ("cpu", "grid")
SCIPY, SCIPY_TOTAL = "scipy/bfo", "scipy/bfo+levels"
#: Where the Moving AI maps live in a checkout (``--maps`` overrides).
MAPS_DIR = Path(__file__).resolve().parent.parent / "benchmarks" / "maps"

#: Goals of the targets suite. Each is a bound on a measured ratio or size; the
#: ``auto``/best and CPU/SciPy bounds come from issues 4 and 2, the others are the
#: provisional goals written down in benchmarks/RESULTS.md.
GOALS = {                            # issue 4's targets (H100) and issue 2's CPU bound
    "gpu_rects_s": 4e-3,             # gpu/grid full wavefront, 4096^2 rects 25%
    "gpu_vs_scipy_rects": 1 / 90,    # gpu/grid time / SciPy time there (>= 90x faster)
    "gpu_vs_textbook_rects": 1 / 60,  # gpu/grid time / best textbook GPU strategy's time
    "gpu_maze_s": 12e-3,             # gpu/grid full wavefront, 1023^2 perfect maze
    "gpu_vs_scipy_maze": 0.5,        # gpu/grid time / SciPy time there (>= 2x faster)
    "route_gpu_s": 2.0,              # GPU routing of 1000 two-pin nets on 1024^2
    "route_gpu_vs_cpu": 1 / 20,      # GPU routing time / CPU routing time (>= 20x faster)
    "route_memory_bytes": 2**30,     # peak GPU memory of a 4096^2 route (< 1 GB)
    "auto_vs_best": 1.2,             # auto's time / the best engine's time, per class
    "cpu_vs_scipy": 2.0,             # CPU engine time / SciPy time (issue 2)
}


# -- layouts --------------------------------------------------------------------------
@dataclass
class Case:
    """One benchmark graph: a free mask and the wavefront's source vertex."""

    name: str
    free: np.ndarray
    source: int
    note: str

    @property
    def size(self) -> str:
        return f"{self.free.shape[1]}x{self.free.shape[0]}"


def odd(n: int) -> int:
    """The largest odd number <= n: a perfect maze of odd width uses every column."""
    return n if n % 2 else n - 1


def make_case(cls: str, size: int = DEFAULT_SIZE, seed: int = 0,
              maps_dir: str | Path | None = None) -> Case:
    """The graph of a layout class at ``size`` x ``size`` (maps: at their own size)."""
    rng = np.random.default_rng(seed)
    if cls == "open":
        blocked = paint(size, size, random_rects(size, size, 0.25, rng))
        note = "25% random rectangles (sides up to min(64, size/8))"
    elif cls == "dense":
        blocked = paint(size, size, random_rects(size, size, 0.5, rng, max_side=4))
        note = "50% random rectangles of sides 1-4 (speckle, winding passages)"
    elif cls == "maze":
        blocked = np.ones((size, size), bool)
        blocked[:odd(size), :odd(size)] = maze_mask(odd(size), odd(size), seed)
        note = f"perfect maze {odd(size)}x{odd(size)} (one-cell corridors)"
    elif cls in MAPS:
        path = Path(maps_dir or MAPS_DIR) / f"{cls}.map"
        if not path.is_file():
            raise InputError(f"map {cls!r} not found at {path}", field="--maps")
        blocked = read_movingai(path).blocked
        note = "Moving AI map, native size"
    else:
        raise InputError(f"unknown layout class {cls!r}; choose from " + ", ".join(CLASSES),
                         field="--classes")
    free = ~blocked
    return Case(cls, free, corner_source(free), note)


def corner_source(free: np.ndarray) -> int:
    """Row-major first cell of the largest 4-connected free region (its vertex id)."""
    labels, count = scipy.ndimage.label(free)
    if count == 0:
        raise InputError("the layout has no free cell", field="--classes")
    sizes = np.bincount(labels.ravel())
    sizes[0] = 0
    return int(np.argmax(labels.ravel() == int(np.argmax(sizes))))


# -- measuring ------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _levels_from_order(order, pred, n):
    """BFS levels from SciPy's visiting order and predecessors (one source)."""
    level = np.full(n, np.uint32(0xFFFFFFFF), dtype=np.uint32)
    level[order[0]] = 0
    for i in range(1, order.size):
        v = order[i]
        level[v] = level[pred[v]] + np.uint32(1)
    return level


def scipy_matrix(graph: GridGraph) -> scipy.sparse.csr_matrix:
    """``graph``'s CSR as the SciPy matrix ``breadth_first_order`` takes without copying."""
    csr = graph.csr
    n = graph.num_vertices
    return scipy.sparse.csr_matrix((np.ones(csr.num_edges), csr.dst, csr.srcPtrs),
                                   shape=(n, n))


def scipy_levels(matrix, source: int) -> np.ndarray:
    """Levels of a full BFS from ``source`` by SciPy (``UNREACHED`` elsewhere)."""
    order, pred = breadth_first_order(matrix, source, directed=True,
                                      return_predecessors=True)
    return _levels_from_order(order, pred, matrix.shape[0])


def _sync(backend: str) -> None:
    if backend == "gpu":
        import cupy
        cupy.cuda.Device().synchronize()


def _release(backend: str) -> None:
    """Give a finished GPU engine's memory back, so the next one starts from empty."""
    gc.collect()
    if backend == "gpu":
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()


def _repeat(run: Callable[[], object], repeats: int, max_seconds: float) -> list[float]:
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        if sum(times) >= max_seconds:
            break
    return times


def time_engine(key: tuple[str, str], graph: GridGraph, source: int, repeats: int,
                max_seconds: float = DEFAULT_MAX_SECONDS) -> tuple[list[float], np.ndarray, int]:
    """Times of full wavefronts by engine ``key``; the last run's levels and level count."""
    backend = key[0]
    problem = make_problem(graph, *key)
    src = np.array([source], dtype=np.int64)
    last: list = []
    try:
        problem.wavefront(src)          # warm-up: compilation, first-touch allocations
        _sync(backend)

        def once():
            _sync(backend)
            wave = problem.wavefront(src)
            _sync(backend)
            last[:] = [wave]

        times = _repeat(once, repeats, max_seconds)
        return times, last[0].levels().ravel(), last[0].num_levels
    finally:
        last.clear()                    # the wavefront holds the problem: drop both
        problem = None
        _release(backend)


def time_scipy(matrix, source: int, repeats: int, max_seconds: float = DEFAULT_MAX_SECONDS
               ) -> tuple[list[float], list[float], np.ndarray]:
    """Times of ``breadth_first_order`` and of the level derivation; the levels."""
    scipy_levels(matrix, source)       # warm-up (compiles the derivation)
    bfo, derive, out = [], [], []

    def once():
        t0 = time.perf_counter()
        order, pred = breadth_first_order(matrix, source, directed=True,
                                          return_predecessors=True)
        t1 = time.perf_counter()
        out.append(_levels_from_order(order, pred, matrix.shape[0]))
        t2 = time.perf_counter()
        bfo.append(t1 - t0)
        derive.append(t2 - t1)

    _repeat(once, repeats, max_seconds)
    return bfo, derive, out[-1]


# -- the table suite ------------------------------------------------------------------
@dataclass
class Row:
    """One line of the engine x class table (and of ``bench.csv``)."""

    layout: str
    size: str
    engine: str
    median_s: float
    min_s: float
    runs: int
    levels: int
    reached: int
    edges: int
    edges_per_s: float
    vs_cpu: float          # cpu/grid time / this time (> 1: faster than the CPU engine)
    vs_scipy: float        # SciPy (bfo+levels) time / this time (> 1: faster than SciPy)
    check: str             # ref, ok, WRONG, ERROR, or - (SciPy's order alone has no levels)
    note: str = ""


def engine_name(key: tuple[str, str]) -> str:
    return f"{key[0]}/{key[1]}"


def available_engines() -> list[tuple[str, str]]:
    """Every registered engine that runs here: the CPU ones, the GPU ones with a GPU."""
    gpu = gpu_available()
    return [k for k in ENGINES if k[0] == "cpu" or (k[0] == "gpu" and gpu)]


def parse_engines(text: str | None) -> list[tuple[str, str]]:
    """``--engines``: ``all``, a backend (``cpu``, ``gpu``) or ``backend/strategy`` items."""
    if text is None or text.strip() == "all":
        return available_engines()
    keys: list[tuple[str, str]] = []
    backends = sorted({k[0] for k in ENGINES})
    for item in (s.strip() for s in text.split(",")):
        if item in backends:
            chosen = [k for k in ENGINES if k[0] == item]
        elif item.count("/") == 1 and tuple(item.split("/")) in ENGINES:
            chosen = [tuple(item.split("/"))]
        else:
            raise InputError(f"unknown engine {item!r}; choose from all, "
                             + ", ".join(backends) + ", "
                             + ", ".join(engine_name(k) for k in ENGINES), field="--engines")
        keys += [k for k in chosen if k not in keys]
    if any(k[0] == "gpu" for k in keys) and not gpu_available():
        raise EngineUnavailable("--engines asks for GPU engines, and no CUDA device with "
                                "CuPy was found")
    return keys


def parse_classes(text: str | None, maps_dir: str | Path | None = None) -> list[str]:
    """``--classes``: ``all``, ``synthetic``, ``maps`` or class names, comma-separated.

    The default (``all``) leaves out the maps when their folder is missing.
    """
    if text is None or text.strip() == "all":
        have = [m for m in MAPS if (Path(maps_dir or MAPS_DIR) / f"{m}.map").is_file()]
        return list(SYNTHETIC) + have
    out: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        names = {"synthetic": SYNTHETIC, "maps": MAPS}.get(item, (item,))
        for name in names:
            if name not in CLASSES:
                raise InputError(f"unknown layout class {name!r}; choose from all, synthetic, "
                                 "maps, " + ", ".join(CLASSES), field="--classes")
            if name not in out:
                out.append(name)
    return out


def bench_case(case: Case, engines: Sequence[tuple[str, str]], repeats: int,
               max_seconds: float = DEFAULT_MAX_SECONDS,
               log: Callable[[str], None] | None = None) -> list[Row]:
    """Rows of one layout: ``cpu/grid`` (reference), SciPy, then each other engine."""
    log = log or (lambda s: None)
    graph = GridGraph(case.free)
    matrix = scipy_matrix(graph)
    degree = graph.csr.degree
    ref_times, ref, ref_levels = time_engine(REFERENCE, graph, case.source, repeats,
                                             max_seconds)
    reached = ref != UNREACHED
    n_reached, n_edges = int(reached.sum()), int(degree[reached].sum())
    t_cpu = statistics.median(ref_times)
    bfo, derive, sp_levels = time_scipy(matrix, case.source, repeats, max_seconds)
    total = [a + b for a, b in zip(bfo, derive)]
    t_scipy = statistics.median(total)

    def row(name, times, levels, check, note=""):
        t = statistics.median(times) if times else float("nan")
        return Row(case.name, case.size, name, t, min(times, default=float("nan")),
                   len(times), levels, n_reached, n_edges, n_edges / t, t_cpu / t,
                   t_scipy / t, check, note)

    rows = [row(engine_name(REFERENCE), ref_times, ref_levels, "ref"),
            row(SCIPY, bfo, ref_levels, "-", "order + predecessors only, no levels"),
            row(SCIPY_TOTAL, total, ref_levels,
                "ok" if np.array_equal(sp_levels, ref) else "WRONG",
                f"levels derived in {statistics.median(derive) * 1e3:.3g} ms (median)")]
    for r in rows:
        log(f"{case.name} {case.size}: {r.engine} {r.median_s * 1e3:.4g} ms ({r.runs} runs)")
    for key in engines:
        if key == REFERENCE:
            continue
        try:
            times, levels, num_levels = time_engine(key, graph, case.source, repeats,
                                                    max_seconds)
        except Exception as e:          # a broken engine is a row of the table, not a crash
            rows.append(row(engine_name(key), [], 0, "ERROR", _error(e)))
            log(f"{case.name} {case.size}: {engine_name(key)} ERROR {rows[-1].note}")
            continue
        ok = np.array_equal(levels, ref) and num_levels == ref_levels
        rows.append(row(engine_name(key), times, num_levels, "ok" if ok else "WRONG",
                        "" if ok else _mismatch(levels, ref, num_levels, ref_levels)))
        log(f"{case.name} {case.size}: {rows[-1].engine} {rows[-1].median_s * 1e3:.4g} ms "
            f"({rows[-1].runs} runs) {rows[-1].check}")
    return rows


def _error(e: Exception) -> str:
    return (f"{type(e).__name__}: {e}".splitlines() or [""])[0][:200]


def _mismatch(levels, ref, num_levels, ref_levels) -> str:
    bad = int(np.count_nonzero(levels != ref))
    return (f"{bad} cells differ from cpu/grid; {num_levels} levels reported "
            f"vs {ref_levels}")


def bench_table(classes: Sequence[str], engines: Sequence[tuple[str, str]] | None = None,
                size: int = DEFAULT_SIZE, repeats: int = DEFAULT_REPEATS, seed: int = 0,
                maps_dir: str | Path | None = None, max_seconds: float = DEFAULT_MAX_SECONDS,
                log: Callable[[str], None] | None = None) -> list[Row]:
    """The engine x layout class table (see the module docstring)."""
    engines = available_engines() if engines is None else list(engines)
    rows: list[Row] = []
    for cls in classes:
        rows += bench_case(make_case(cls, size, seed, maps_dir), engines, repeats,
                           max_seconds, log)
    return rows


def format_table(rows: Sequence[Row]) -> str:
    """The table as fixed-width text, one block per layout."""
    head = (f"{'layout':<9} {'size':<9} {'engine':<18} {'median ms':>10} {'levels':>8} "
            f"{'Medges/s':>9} {'vs cpu':>7} {'vs scipy':>8}  check")
    lines = [head, "-" * len(head)]
    last = None
    for r in rows:
        if last is not None and (r.layout, r.size) != last:
            lines.append("")
        last = (r.layout, r.size)
        if r.check == "ERROR":
            lines.append(f"{r.layout:<9} {r.size:<9} {r.engine:<18} {'-':>10} {'-':>8} "
                         f"{'-':>9} {'-':>7} {'-':>8}  ERROR {r.note}")
            continue
        lines.append(f"{r.layout:<9} {r.size:<9} {r.engine:<18} {r.median_s * 1e3:>10.4g} "
                     f"{r.levels:>8} {r.edges_per_s / 1e6:>9.4g} {r.vs_cpu:>6.3g}x "
                     f"{r.vs_scipy:>7.3g}x  {r.check}")
    lines.append("")
    lines.append("vs cpu / vs scipy: speed-up = baseline median time / this median time "
                 "(> 1 is faster); SciPy = breadth_first_order + level derivation.")
    return "\n".join(lines) + "\n"


def write_csv(path: Path, rows: Sequence) -> None:
    """Dataclass rows as a CSV file, written atomically."""
    if not rows:
        return
    write_rows(path, [f.name for f in fields(rows[0])], (asdict(r) for r in rows))


def write_chart(path: Path, rows: Sequence[Row], title: str = "") -> None:
    """Grouped bar chart of median times (log scale), one group per layout; atomic PNG."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = [r for r in rows if r.engine != SCIPY and r.check != "ERROR"]
    layouts = list(dict.fromkeys((r.layout, r.size) for r in rows))
    engines = list(dict.fromkeys(r.engine for r in rows))
    width = 0.8 / max(1, len(engines))
    palette = matplotlib.colormaps["tab20"]      # a distinct colour for up to 20 engines
    fig = Figure(figsize=(max(6.0, 1.3 * len(layouts) + 2.5), 4.8), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for j, eng in enumerate(engines):
        xs, ts, wrong = [], [], []
        for i, lay in enumerate(layouts):
            r = next((r for r in rows if (r.layout, r.size) == lay and r.engine == eng),
                     None)
            if r is not None:
                xs.append(i + (j - (len(engines) - 1) / 2) * width)
                ts.append(r.median_s * 1e3)
                wrong.append(r.check == "WRONG")
        bars = ax.bar(xs, ts, width, label=eng, color=palette(j % palette.N))
        for b, bad in zip(bars, wrong):
            if bad:
                b.set_hatch("xx")
                b.set_edgecolor("red")
                ax.annotate("WRONG", (b.get_x() + b.get_width() / 2, b.get_height()),
                            ha="center", va="bottom", fontsize=7, color="red", rotation=90)
    ax.set_xticks(range(len(layouts)), [f"{lay}\n{size}" for lay, size in layouts])
    ax.set_yscale("log")
    ax.set_ylabel("median time of a full wavefront (ms, log)")
    ax.set_title(title or "mazeroute bench", fontsize=9)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png")


# -- the targets and cpu suites -------------------------------------------------------
@dataclass
class Target:
    """One row of a targets table: what was measured, the goal, and whether it was met."""

    id: str
    target: str
    measured: str
    goal: str
    met: str               # yes, no, or skipped
    value: float = float("nan")
    note: str = ""


def _ms(t: float) -> str:
    return f"{t * 1e3:.4g} ms"


def _met(value: float, bound: float, wrong: bool = False) -> str:
    if wrong:
        return "no (WRONG)"
    return "yes" if value <= bound else "no"


def _ratio_target(id_, what, case: Case, key: tuple[str, str], repeats: int,
                  bound: float, max_seconds: float, rows: list[Row] | None = None) -> Target:
    """``key``'s time / SciPy's time on ``case``; the goal is ``<= bound``."""
    rows = rows or bench_case(case, [key], repeats, max_seconds)
    mine = next(r for r in rows if r.engine == engine_name(key))
    sp = next(r for r in rows if r.engine == SCIPY_TOTAL)
    bfo = next(r for r in rows if r.engine == SCIPY)
    if mine.check == "ERROR":
        return Target(id_, what, "ERROR", f"<= {bound:g}x SciPy's time", "no",
                      note=mine.note)
    ratio = mine.median_s / sp.median_s
    measured = (f"{mine.engine} {_ms(mine.median_s)}, SciPy {_ms(sp.median_s)} "
                f"(bfo alone {_ms(bfo.median_s)}; {sp.note}): {ratio:.3g}x SciPy's time")
    return Target(id_, what, measured, f"<= {bound:g}x SciPy's time",
                  _met(ratio, bound, mine.check == "WRONG"), ratio,
                  mine.note or f"{mine.levels} levels, {mine.reached} cells")


def cpu_suite(rect_size: int = 4096, maze_size: int = 1023, repeats: int = DEFAULT_REPEATS,
              seed: int = 0, max_seconds: float = DEFAULT_MAX_SECONDS,
              log: Callable[[str], None] | None = None) -> list[Target]:
    """Issue 2: each CPU engine's time over SciPy's (levels included), goal <= 2."""
    out = []
    cases = [make_case("open", rect_size, seed), make_case("maze", maze_size, seed)]
    bound = GOALS["cpu_vs_scipy"]
    for i, case in enumerate(cases, 1):
        what = f"{case.size} {'rects 25%' if case.name == 'open' else 'perfect maze'}"
        keys = [k for k in ENGINES if k[0] == "cpu"]
        rows = bench_case(case, keys, repeats, max_seconds, log)
        for j, key in enumerate(keys):
            out.append(_ratio_target(f"cpu{i}{'abcdefgh'[j]}",
                                     f"{engine_name(key)} vs SciPy, {what}", case, key,
                                     repeats, bound, max_seconds, rows))
    return out


def _skip(id_, what, goal, why) -> Target:
    return Target(id_, what, "-", goal, "skipped", note=why)


def route_layout(size: int, nets: int, seed: int = 0, density: float = 0.15,
                 span: int = 64) -> Layout:
    """A routing benchmark layout: ``density`` rectangles, local two-pin nets.

    Each net's second pin lies within Manhattan distance ``span`` of its first, as a
    router's nets mostly do; with the defaults about 97 % of 1000 nets on 1024 x 1024
    route (nets placed farther apart wall each other off much more often).
    """
    rng = np.random.default_rng(seed)
    rects = random_rects(size, size, density, rng, max_side=max(1, min(32, size // 16)))
    layout = Layout(f"route-{size}x{size}-{nets}nets-s{seed}", size, size, rects)
    layout.nets = random_nets(layout.blocked, nets, 2, rng, span=span)
    return layout


def _route_time(layout: Layout, backend: str, repeats: int = DEFAULT_REPEATS,
                max_seconds: float = DEFAULT_MAX_SECONDS) -> tuple[float, object, int]:
    """Median wall time of building a router and routing every net, the last result and
    the number of routes timed (compilation warmed up; each route starts from scratch)."""
    warm = route_layout(48, 4, seed=1, span=20)
    Router(warm, backend).run()
    _sync(backend)
    last: list = [None]

    def once():
        last[0] = Router(layout, backend).run()
        _sync(backend)

    times = _repeat(once, repeats, max_seconds)
    return float(np.median(times)), last[0], len(times)


def targets_suite(classes: Sequence[str], size: int = DEFAULT_SIZE,
                  repeats: int = DEFAULT_REPEATS, seed: int = 0,
                  engines: Sequence[tuple[str, str]] | None = None,
                  maps_dir: str | Path | None = None,
                  max_seconds: float = DEFAULT_MAX_SECONDS,
                  log: Callable[[str], None] | None = None,
                  big: int = 4096, maze: int = 1023, route_size: int = 1024,
                  route_nets: int = 1000) -> tuple[list[Target], list[Row]]:
    """Issue 4's targets; returns them and the table behind target (e)."""
    log = log or (lambda s: None)
    gpu = gpu_available()
    grid_key = ("gpu", "grid")
    no_gpu = "no CUDA device with CuPy here"
    out: list[Target] = []
    table: list[Row] = []       # every engine row measured, printed with the targets

    # (a) big rectangles layout: the GPU engine vs SciPy and vs the textbook strategies
    what_a = f"{big}x{big} rects 25%, full wavefront"
    goal_a1 = f"<= {GOALS['gpu_vs_scipy_rects']:g}x SciPy's time"
    goal_a2 = f"<= {GOALS['gpu_vs_textbook_rects']:g}x best textbook's time"
    textbook = [k for k in ENGINES if k[0] == "gpu" and k != grid_key]
    if not gpu:
        out += [_skip("a1", f"gpu/grid vs SciPy, {what_a}", goal_a1, no_gpu),
                _skip("a2", f"gpu/grid vs best textbook GPU strategy, {what_a}", goal_a2,
                      no_gpu)]
    elif grid_key not in ENGINES:
        out += [_skip("a1", f"gpu/grid vs SciPy, {what_a}", goal_a1,
                      "gpu/grid is not in the registry"),
                _skip("a2", f"gpu/grid vs best textbook GPU strategy, {what_a}", goal_a2,
                      "gpu/grid is not in the registry")]
    else:
        case = make_case("open", big, seed)
        rows = bench_case(case, [grid_key, *textbook], repeats, max_seconds, log)
        table += rows
        out.append(_ratio_target("a1", f"gpu/grid vs SciPy, {what_a}", case, grid_key,
                                 repeats, GOALS["gpu_vs_scipy_rects"], max_seconds, rows))
        mine = next(r for r in rows if r.engine == "gpu/grid")
        out.append(_time_target("a0", f"gpu/grid time, {what_a}", mine, GOALS["gpu_rects_s"]))
        tb = [r for r in rows if r.engine in {engine_name(k) for k in textbook}
              and r.check == "ok"]
        if not tb:
            out.append(_skip("a2", f"gpu/grid vs best textbook GPU strategy, {what_a}",
                             goal_a2, "no textbook GPU strategy gave correct levels"))
        elif mine.check == "ERROR":
            out.append(Target("a2", f"gpu/grid vs best textbook GPU strategy, {what_a}",
                              "ERROR", goal_a2, "no", note=mine.note))
        else:
            best = min(tb, key=lambda r: r.median_s)
            ratio = mine.median_s / best.median_s
            out.append(Target("a2", f"gpu/grid vs best textbook GPU strategy, {what_a}",
                              f"gpu/grid {_ms(mine.median_s)}, best textbook {best.engine} "
                              f"{_ms(best.median_s)}: {ratio:.3g}x its time", goal_a2,
                              _met(ratio, GOALS["gpu_vs_textbook_rects"],
                                   mine.check == "WRONG"), ratio,
                              "textbook: " + ", ".join(f"{r.engine} {_ms(r.median_s)}"
                                                       for r in tb)))

    # (b) the perfect maze: one long corridor of levels
    what_b = f"gpu/grid vs SciPy, {odd(maze)}x{odd(maze)} perfect maze, full wavefront"
    goal_b = f"<= {GOALS['gpu_vs_scipy_maze']:g}x SciPy's time"
    if not gpu or grid_key not in ENGINES:
        out.append(_skip("b", what_b, goal_b,
                         no_gpu if not gpu else "gpu/grid is not in the registry"))
    else:
        case = make_case("maze", maze, seed)
        rows = bench_case(case, [grid_key], repeats, max_seconds, log)
        table += rows
        out.append(_ratio_target("b", what_b, case, grid_key, repeats,
                                 GOALS["gpu_vs_scipy_maze"], max_seconds, rows))
        mine = next(r for r in rows if r.engine == "gpu/grid")
        out.append(_time_target("b0", what_b.replace(" vs SciPy", " time"), mine,
                                GOALS["gpu_maze_s"]))

    # (c) routing 1000 local two-pin nets end to end
    layout = route_layout(route_size, route_nets, seed)
    what_c = (f"route {route_size}x{route_size}, 15% rects, {route_nets} two-pin nets "
              "(span <= 64), end to end")
    goal_c = f"GPU <= {GOALS['route_gpu_vs_cpu']:g}x CPU's time"
    t_cpu, r_cpu, n_cpu = _route_time(layout, "cpu", repeats, max_seconds)
    log(f"route {route_size}: {r_cpu.engine} {t_cpu:.3g} s ({n_cpu} runs), "
        f"{r_cpu.routed} routed")
    cpu_text = (f"{r_cpu.engine} {t_cpu:.3g} s ({r_cpu.routed}/{route_nets} routed, "
                f"wirelength {r_cpu.wirelength}; median of {n_cpu})")
    if not gpu:
        out.append(Target("c", what_c, cpu_text, goal_c, "skipped", note=no_gpu))
    else:
        try:
            t_gpu, r_gpu, n_gpu = _route_time(layout, "gpu", repeats, max_seconds)
        except Exception as e:
            out.append(Target("c", what_c, "ERROR", goal_c, "no", note=_error(e)))
        else:
            log(f"route {route_size}: {r_gpu.engine} {t_gpu:.3g} s ({n_gpu} runs), "
                f"{r_gpu.routed} routed")
            same = (r_gpu.routed, r_gpu.wirelength) == (r_cpu.routed, r_cpu.wirelength)
            ratio = t_gpu / t_cpu
            out.append(Target("c0", what_c, f"{r_gpu.engine} {t_gpu:.3g} s (median of "
                              f"{n_gpu})",
                              f"< {GOALS['route_gpu_s']:g} s",
                              _met(t_gpu, GOALS["route_gpu_s"], not same), t_gpu))
            out.append(Target("c", what_c, f"{cpu_text}; {r_gpu.engine} {t_gpu:.3g} s: "
                              f"{ratio:.3g}x CPU's time", goal_c,
                              _met(ratio, GOALS["route_gpu_vs_cpu"], not same), ratio,
                              "" if same else "WRONG: GPU and CPU routes differ (routed "
                              "nets or wirelength)"))

    # (d) peak GPU memory of a big route
    what_d = f"peak GPU memory routing {big}x{big} (15% rects, 100 nets)"
    goal_d = f"< {GOALS['route_memory_bytes'] / 2**30:g} GiB"
    if not gpu:
        out.append(_skip("d", what_d, goal_d, no_gpu))
    else:
        try:
            out.append(_memory_target("d", what_d, goal_d,
                                      route_layout(big, 100, seed + 1, span=128)))
        except Exception as e:
            out.append(Target("d", what_d, "ERROR", goal_d, "no", note=_error(e)))

    # (e) auto vs the best engine on each layout class
    engines = available_engines() if engines is None else list(engines)
    bound = GOALS["auto_vs_best"]
    for cls in classes:
        case = make_case(cls, size, seed, maps_dir)
        decided = []                # what auto's decision itself costs, on a new mask
        for _ in range(max(1, repeats)):
            forget()
            start = time.perf_counter()
            spec, _ = resolve("auto", None, GridGraph(case.free))
            decided.append(time.perf_counter() - start)
        decision = statistics.median(decided)
        auto_key = (spec.backend, spec.strategy)
        auto_name = engine_name(auto_key)
        mine = engines if auto_key in engines else [*engines, auto_key]
        rows = bench_case(case, mine, repeats, max_seconds, log)
        table += rows
        auto = next((r for r in rows if r.engine == auto_name), None)
        valid = [r for r in rows if r.engine not in (SCIPY, SCIPY_TOTAL)
                 and r.check in ("ref", "ok")]
        what = f"auto vs best engine, {cls} {case.size}"
        goal = f"<= {bound:g}x best's time"
        if auto is None or auto.check not in ("ref", "ok"):
            out.append(Target(f"e-{cls}", what, f"auto = {auto_name}: "
                              + ("not measured" if auto is None else auto.check), goal, "no",
                              note="auto's engine gave no valid time"))
            continue
        best = min(valid, key=lambda r: r.median_s)
        ratio = (auto.median_s + decision) / best.median_s
        out.append(Target(f"e-{cls}", what, f"auto = {auto.engine} {_ms(auto.median_s)} + "
                          f"its decision {_ms(decision)}, best {best.engine} "
                          f"{_ms(best.median_s)}: {ratio:.3g}x", goal,
                          _met(ratio, bound), ratio))
    return out, table


def _time_target(id_, what, row: Row, bound_s: float) -> Target:
    """An absolute time goal for one measured row."""
    if row.check == "ERROR":
        return Target(id_, what, "ERROR", f"<= {_ms(bound_s)}", "no", note=row.note)
    return Target(id_, what, f"{row.engine} {_ms(row.median_s)} ({row.levels} levels)",
                  f"<= {_ms(bound_s)}", _met(row.median_s, bound_s, row.check == "WRONG"),
                  row.median_s)


def _memory_target(id_, what, goal, layout: Layout) -> Target:
    import cupy

    pool = cupy.get_default_memory_pool()
    _release("gpu")
    before = pool.total_bytes()
    free0, total = cupy.cuda.runtime.memGetInfo()
    start = time.perf_counter()
    router = Router(layout, "gpu")
    result = router.run()
    _sync("gpu")
    seconds = time.perf_counter() - start
    # The pool keeps every block it ever handed out until freed, so what it holds now is
    # the high-water mark of this route's allocations.
    peak = pool.total_bytes() - before
    free1, _ = cupy.cuda.runtime.memGetInfo()
    del router, result
    _release("gpu")
    per_cell = peak / (layout.width * layout.height)
    return Target(id_, what, f"{peak / 2**20:.1f} MiB = {per_cell:.3g} B/cell "
                  f"({layout.width * layout.height} cells; device used +"
                  f"{(free0 - free1) / 2**20:.0f} MiB of {total / 2**30:.0f} GiB; "
                  f"route {seconds:.3g} s)", goal,
                  _met(peak, GOALS["route_memory_bytes"]), peak,
                  "CuPy default memory pool high-water mark")


def format_targets(targets: Sequence[Target]) -> str:
    """Targets as text: id, target, goal, met, then what was measured."""
    lines = [f"{'id':<10} {'met':<8} {'goal':<32} target"]
    lines.append("-" * 100)
    for t in targets:
        lines.append(f"{t.id:<10} {t.met:<8} {t.goal:<32} {t.target}")
        lines.append(f"{'':<10} measured: {t.measured}")
        if t.note:
            lines.append(f"{'':<10} note: {t.note}")
    return "\n".join(lines) + "\n"


# -- the negotiate suite ----------------------------------------------------------------
#: Where the numberlink puzzles live beside a checkout (``--puzzles`` overrides).
PUZZLES_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "numberlink"
#: ``(side, nets)`` of the suite's rectangles layouts (25 % blocked, span 64).
NEGOTIATE_LAYOUTS = ((1024, 2000), (1024, 4000), (2048, 8000))
#: The puzzle files and the least number of complete puzzles each should give.
NEGOTIATE_PUZZLES = (("inputs9.txt", 95), ("inputs10.txt", 10), ("inputs6.txt", 4))
#: Least nets routed per layout of :data:`NEGOTIATE_LAYOUTS` (issue 13).
NEGOTIATE_GOALS = {(1024, 2000): 1960, (1024, 4000): 3200, (2048, 8000): 7600}
#: Wirelength of the nets both modes route, negotiate / sequential, at most.
WIRELENGTH_GOAL = 1.03
#: Seconds a puzzle of inputs6.txt may take on the CPU.
PUZZLE_SECONDS = 10.0


@dataclass
class NegotiateRow:
    """One layout or puzzle file on one backend."""

    case: str
    backend: str
    nets: int
    sequential: int            # nets routed by sequential mode
    negotiate: int             # nets routed by negotiate mode
    puzzles: str               # complete / total, or "-"
    wirelength: float          # negotiate / sequential over nets both routed
    seconds: float             # negotiation's wall time (all puzzles of a file)
    slowest: float             # the slowest layout or puzzle
    legal: str                 # "ok" or the first broken promise
    worse: int = 0             # layouts or puzzles where negotiate routed fewer nets
    iterations: int = 0        # most iterations of any layout or puzzle


def negotiate_backends() -> list[str]:
    """The backends whose weighted search runs here: the CPU, and the GPU if present."""
    from .engines import NET_SEARCHES
    return ["cpu"] + (["gpu"] if "gpu" in NET_SEARCHES and gpu_available() else [])


def negotiate_case(name: str, layouts: Sequence[Layout], backend: str,
                   puzzles: bool = False) -> NegotiateRow:
    """Route ``layouts`` in both modes on ``backend``; one row for all of them."""
    from .contract import check_routes
    from .router import route
    from .router.negotiate import sequential_routes

    nets = seq_n = neg_n = complete = worse = iterations = 0
    seq_wl = neg_wl = 0
    seconds = slowest = 0.0
    legal = "ok"
    for lay in layouts:
        seq = sequential_routes(lay, backend)     # equal to sequential mode's routes
        start = time.perf_counter()
        res = route(lay, backend=backend, mode="negotiate")
        took = time.perf_counter() - start
        seconds += took
        slowest = max(slowest, took)
        nets += len(lay.nets)
        seq_n += seq.routed
        neg_n += res.routed
        complete += res.routed == len(lay.nets)
        worse += res.routed < seq.routed
        iterations = max(iterations, len(res.iterations))
        for a, b in zip(seq.nets, res.nets):
            if a.routed and b.routed:
                seq_wl += a.length
                neg_wl += b.length
        if legal == "ok":
            problems = check_routes(lay, res.to_json())
            if problems:
                legal = f"{lay.name}: {problems[0]}"
    return NegotiateRow(name, backend, nets, seq_n, neg_n,
                        f"{complete}/{len(layouts)}" if puzzles else "-",
                        neg_wl / seq_wl if seq_wl else float("nan"), seconds, slowest, legal,
                        worse, iterations)


def negotiate_suite(seed: int = 1, puzzles_dir: str | Path | None = None,
                    layouts: Sequence[tuple[int, int]] = NEGOTIATE_LAYOUTS,
                    puzzles: Sequence[tuple[str, int]] = NEGOTIATE_PUZZLES,
                    backends: Sequence[str] | None = None,
                    log: Callable[[str], None] | None = None
                    ) -> tuple[list[Target], list[NegotiateRow]]:
    """Issue 13's quality targets: the rows of every case and backend, and the targets."""
    from .generate import random_layout
    from .readers import read_numberlink

    log = log or (lambda s: None)
    backends = list(backends or negotiate_backends())
    folder = Path(puzzles_dir) if puzzles_dir is not None else PUZZLES_DIR
    rows: list[NegotiateRow] = []
    targets: list[Target] = []
    for side, n in layouts:
        lay = random_layout(side, side, density=0.25, nets=n, pins=2, seed=seed, span=64)
        for backend in backends:
            log(f"negotiate: {lay.name}, {n} nets, {backend}")
            rows.append(negotiate_case(f"rects {side}^2 {n} nets s{seed}", [lay], backend))
    for file, _ in puzzles:
        path = folder / file
        if not path.is_file():
            log(f"negotiate: {path} not found; skipped")
            continue
        lays = read_numberlink(path)
        for backend in backends:
            log(f"negotiate: {file}, {len(lays)} puzzles, {backend}")
            rows.append(negotiate_case(file, lays, backend, puzzles=True))

    for row in rows:
        tid = f"{row.case} [{row.backend}]"
        goal_n = next((g for (side, n), g in NEGOTIATE_GOALS.items()
                       if row.case.startswith(f"rects {side}^2 {n} nets")), None)
        if goal_n is not None:
            targets.append(Target("n-routed", f"nets routed, {tid}",
                                  f"{row.negotiate} of {row.nets} (sequential {row.sequential})",
                                  f">= {goal_n}", _met(goal_n, row.negotiate), row.negotiate))
        goal_p = next((g for f, g in puzzles if f == row.case), None)
        if goal_p is not None:
            done = int(row.puzzles.split("/")[0])
            targets.append(Target("n-puzzles", f"puzzles complete, {tid}", row.puzzles,
                                  f">= {goal_p}", _met(goal_p, done), done))
            if row.case == "inputs6.txt" and row.backend == "cpu":
                targets.append(Target("n-time", f"slowest puzzle, {tid}", _secs(row.slowest),
                                      f"< {PUZZLE_SECONDS:g} s",
                                      _met(row.slowest, PUZZLE_SECONDS), row.slowest))
        targets.append(Target("n-floor", f"never fewer nets than sequential, {tid}",
                              f"{row.worse} worse", "0 worse", _met(row.worse, 0), row.worse))
        targets.append(Target("n-wire", f"wirelength vs sequential, {tid}",
                              f"{row.wirelength:.4f}", f"<= {WIRELENGTH_GOAL}",
                              _met(row.wirelength, WIRELENGTH_GOAL), row.wirelength))
        targets.append(Target("n-legal", f"contract check, {tid}", row.legal, "ok",
                              "yes" if row.legal == "ok" else "no (WRONG)"))
    return targets, rows


def _secs(t: float) -> str:
    return f"{t * 1e3:.0f} ms" if t < 1 else f"{t:.1f} s"


def format_negotiate(rows: Sequence[NegotiateRow]) -> str:
    """The negotiate suite's rows as a text table."""
    header = ("case", "backend", "nets", "sequential", "negotiate", "puzzles", "wirelength",
              "time", "slowest", "its", "legal")
    body = [(r.case, r.backend, str(r.nets), str(r.sequential), str(r.negotiate), r.puzzles,
             f"{r.wirelength:.4f}", _secs(r.seconds), _secs(r.slowest), str(r.iterations),
             r.legal) for r in rows]
    return "\n".join(text_columns(header, body)) + "\n"


# -- machine description -------------------------------------------------------------
def machine() -> str:
    """One line naming the CPU, GPU and library versions, for the record."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [f"CPU {cpu} ({os.cpu_count()} logical cores)",
             f"Python {platform.python_version()}", f"numpy {np.__version__}",
             f"scipy {scipy.__version__}", f"numba {numba.__version__}"]
    if gpu_available():
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        parts.insert(1, f"GPU {name}")
        parts.append(f"cupy {cupy.__version__}")
    else:
        parts.insert(1, "no GPU")
    return "; ".join(parts)


# -- command line ---------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``mazeroute bench``'s options to ``parser``."""
    parser.add_argument("--suite", default="table", choices=SUITES,
                        help="table: engines x layout classes (default); targets: the "
                             "performance targets; cpu: the CPU engine vs SciPy at 4096^2 "
                             "and on a 1023^2 maze; negotiate: negotiated vs sequential "
                             "routing on the issue-13 layouts and numberlink puzzles")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE,
                        help=f"side of the synthetic layouts, cells (default: {DEFAULT_SIZE});"
                             " maps keep their own size; the targets and cpu suites use "
                             "the issue's fixed sizes except for target (e)")
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS,
                        help=f"timed runs per engine and layout; the median is reported "
                             f"(default: {DEFAULT_REPEATS}; one untimed warm-up run first)")
    parser.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS,
                        help="stop repeating an engine on a layout once its timed runs "
                             f"took this long (default: {DEFAULT_MAX_SECONDS:g})")
    parser.add_argument("--engines", metavar="LIST",
                        help="comma list of engines: backend/strategy names, a backend "
                             "(cpu, gpu) or all (default: all that run here); cpu/grid and "
                             "SciPy always run as the baselines; in the targets suite this "
                             "applies to target (e)")
    parser.add_argument("--classes", metavar="LIST",
                        help="comma list of layout classes: " + ", ".join(CLASSES)
                             + ", synthetic, maps or all (default: all)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the synthetic layouts (default: 0)")
    parser.add_argument("--puzzles", metavar="DIR",
                        help="folder of the numberlink puzzle files of the negotiate suite "
                             "(default: shared/data/numberlink beside the checkout)")
    parser.add_argument("--maps", metavar="DIR",
                        help="folder of the Moving AI .map files (default: benchmarks/maps "
                             "of the checkout)")
    parser.add_argument("-o", "--out", "--output", dest="out", metavar="DIR",
                        help="also write bench.csv and bench.png (table), targets.csv or "
                             "cpu.csv (suites) into DIR")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a target is not met (wrong levels "
                             "always give status 1)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress lines on stderr")


def _check_args(args: argparse.Namespace) -> None:
    if not 8 <= args.size <= MAX_SIZE:
        raise InputError(f"must be between 8 and {MAX_SIZE}, got {args.size}", field="--size")
    if args.repeats < 1:
        raise InputError(f"must be at least 1, got {args.repeats}", field="--repeats")
    if not args.max_seconds > 0:
        raise InputError(f"must be positive, got {args.max_seconds}", field="--max-seconds")
    if args.maps is not None and not Path(args.maps).is_dir():
        raise InputError(f"no such folder: {args.maps}", field="--maps")
    puzzles = getattr(args, "puzzles", None)
    if puzzles is not None and not Path(puzzles).is_dir():
        raise InputError(f"no such folder: {puzzles}", field="--puzzles")


def run(args: argparse.Namespace) -> int:
    """Run the chosen suite, print its table, write the files; return the exit status.

    Status 1 when some engine's levels are wrong (or, with ``--strict``, a target is
    not met), else 0.
    """
    _check_args(args)
    engines = parse_engines(args.engines)
    classes = parse_classes(args.classes, args.maps)
    out = Path(args.out) if args.out else None
    quiet = getattr(args, "quiet", False)

    def log(msg: str) -> None:
        if not quiet:
            print(f"bench: {msg}", file=sys.stderr, flush=True)

    print(f"# mazeroute bench --suite {args.suite}: {machine()}")
    written: list[Path] = []
    status = 0
    if args.suite == "table":
        print(f"# size {args.size}, seed {args.seed}, repeats {args.repeats}; engines: "
              + ", ".join(engine_name(k) for k in engines))
        rows = bench_table(classes, engines, args.size, args.repeats, args.seed, args.maps,
                           args.max_seconds, log)
        print(format_table(rows), end="")
        status = int(any(r.check in ("WRONG", "ERROR") for r in rows))
        if out:
            written += _write_table(out, rows, args)
    elif args.suite == "negotiate":
        targets, nrows = negotiate_suite(1 + args.seed, getattr(args, "puzzles", None),
                                         log=log)
        print(format_negotiate(nrows))
        print(format_targets(targets), end="")
        wrong = any("WRONG" in t.met for t in targets)
        status = int(wrong or (args.strict and any(t.met.startswith("no") for t in targets)))
        if out:
            written += [out / "negotiate.csv", out / "negotiate_targets.csv"]
            write_csv(written[0], nrows)
            write_csv(written[1], targets)
    else:
        if args.suite == "cpu":
            targets, rows = cpu_suite(repeats=args.repeats, seed=args.seed,
                                      max_seconds=args.max_seconds, log=log), []
        else:
            targets, rows = targets_suite(classes, args.size, args.repeats, args.seed,
                                          engines, args.maps, args.max_seconds, log)
        if rows:
            print(format_table(rows))
        print(format_targets(targets), end="")
        wrong = any("WRONG" in t.met or t.measured == "ERROR" for t in targets)
        wrong = wrong or any(r.check in ("WRONG", "ERROR") for r in rows)
        unmet = any(t.met.startswith("no") for t in targets)
        status = int(wrong or (args.strict and unmet))
        if out:
            written.append(out / f"{args.suite}.csv")
            write_csv(written[-1], targets)
            if rows:
                written += _write_table(out, rows, args)
    if written:
        print("wrote " + ", ".join(str(p) for p in written))
    return status


def _write_table(out: Path, rows: list[Row], args) -> list[Path]:
    write_csv(out / "bench.csv", rows)
    title = (f"mazeroute bench, size {args.size}, median of up to {args.repeats} runs\n"
             f"{machine()}")
    write_chart(out / "bench.png", rows, title)
    return [out / "bench.csv", out / "bench.png"]


__all__ = ["add_arguments", "run", "bench_table", "bench_case", "cpu_suite", "targets_suite",
           "negotiate_suite", "negotiate_case", "format_negotiate", "NegotiateRow",
           "make_case", "Row", "Target", "format_table", "format_targets", "GOALS"]
