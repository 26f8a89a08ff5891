"""``mazeroute bench``: every wavefront engine timed against SciPy and the CPU engine.

The suites:

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
    One run each (negotiation is deterministic). With a GPU, the speed targets too: the
    GPU's whole negotiation of the 1024^2 x 2000 layout against the CPU engine's (same
    run), and a 4096^2 x 32,000-net layout on the GPU alone (time, CuPy's pool peak,
    contract check).
``classes``
    issue 14: the whole wavefront on the CPU engine, the GPU engine (without and with
    the levels read back to the host) and under ``auto`` with its decision inside the
    timed region, for every layout class of :data:`CLASS_SUITE` (long winding corridors
    of several widths, spirals, mazes with few and many loops, layouts after many wires
    were committed, rectangles) at every side of ``--sizes`` (the open layout also at
    ``--big``) and every Moving AI map of ``--maps`` at its own size and tiled 4 x 4;
    per row the free cells, auto's features, the faster engine, auto's pick and
    auto / best. Then sequential routing (:data:`ROUTING_CASES`: multi-pin nets, pins
    anywhere, mazes, 1000 local two-pin nets) on each backend, medians over ``--seeds``
    seeds, and the issue's goals. Without a GPU every GPU column reads ``n/a``.

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
from .errors import EngineUnavailable, InputError, reraise_interrupt
from .generate import (
    class_mask,
    parse_class,
    random_layout,
    random_nets,
    random_rects,
    tile_mask,
)
from .graph import GridGraph
from .io import atomic_path, check_output_file, check_output_folder, write_text
from .io import write_csv as write_rows
from .layout import Layout, read_movingai
from .report import format_table as text_columns
from .router import Router

SUITES = ("table", "targets", "cpu", "negotiate", "classes")
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
    if cls in SYNTHETIC:            # generate's classes of the same names, defaults
        blocked = class_mask(cls, size, seed)
        note = {"open": "25% random rectangles (sides up to min(64, size/8))",
                "dense": "50% random rectangles of sides 1-4 (speckle, winding passages)",
                "maze": f"perfect maze {odd(size)}x{odd(size)} (one-cell corridors)"}[cls]
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
    """A failure's one-line note for a row; an interrupt behind it is raised instead
    (the handlers that make rows of failures call this first)."""
    reraise_interrupt(e)
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
#: The speed targets (issue 13, on a GPU): the layout of :data:`NEGOTIATE_LAYOUTS` whose
#: whole negotiation the GPU should finish ``NEGOTIATE_SPEEDUP`` times sooner than the
#: CPU engine, and in under ``NEGOTIATE_SECONDS``;
NEGOTIATE_SPEED_CASE = (1024, 2000)
NEGOTIATE_SPEEDUP = 20.0
NEGOTIATE_SECONDS = 1.0
#: and ``(side, nets)`` of the big layout (25 % blocked, span 64) the GPU should route
#: in under ``BIG_SECONDS`` with CuPy's memory pool under ``BIG_MEMORY`` bytes.
NEGOTIATE_BIG = (4096, 32000)
BIG_SECONDS = 10.0
BIG_MEMORY = 4 << 30


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


def _warm_negotiation(backends: Sequence[str]) -> None:
    """Compile what negotiation runs (the searches, its bookkeeping, the space-filling
    search) before the first timed row, which would otherwise carry seconds of JIT."""
    import numpy as np

    from .generate import random_layout
    from .router import route
    from .router.fill import fill_routes

    small = random_layout(64, 64, density=0.25, nets=40, pins=2, seed=0, span=16)
    for backend in backends:
        route(small, backend=backend, mode="negotiate")
    fill_routes(np.ones((3, 3), bool), [np.array([[0, 0], [2, 0]]),
                                        np.array([[0, 1], [2, 1]]),
                                        np.array([[0, 2], [2, 2]])])
    # the pricing of many cells at once (every cell in use, when pres_fac changes) runs on
    # every core, a function the small layout above never reaches
    from .engines.weighted import COST_DTYPE, PARALLEL_PRICE_CELLS, price_cells
    one = np.ones(1, np.int64)
    price_cells(np.zeros(PARALLEL_PRICE_CELLS, np.int64), one, one * 0, one * 0, 0,
                np.zeros(1, COST_DTYPE))


def speed_targets(rows: Sequence[NegotiateRow],
                  case: tuple[int, int] = NEGOTIATE_SPEED_CASE) -> list[Target]:
    """The GPU's speed targets on ``case`` from the rows of the same run: its whole
    negotiation against the CPU engine's, and in seconds (none without a GPU row)."""
    name = f"rects {case[0]}^2 {case[1]} nets"
    got = {r.backend: r for r in rows if r.case.startswith(name)}
    if "cpu" not in got or "gpu" not in got:
        return []
    cpu, gpu = got["cpu"].seconds, got["gpu"].seconds
    speedup = cpu / gpu if gpu > 0 else float("inf")
    return [Target("n-speedup", f"GPU over the CPU engine, {got['gpu'].case}",
                   f"{speedup:.1f}x ({_secs(gpu)} against {_secs(cpu)})",
                   f">= {NEGOTIATE_SPEEDUP:g}x", _met(NEGOTIATE_SPEEDUP, speedup), speedup),
            Target("n-seconds", f"GPU negotiation, {got['gpu'].case}", _secs(gpu),
                   f"< {NEGOTIATE_SECONDS:g} s", _met(gpu, NEGOTIATE_SECONDS), gpu)]


def negotiate_big(side: int, nets: int, seed: int = 1) -> tuple[float, int, int, str]:
    """The big layout negotiated on the GPU: seconds, nets routed, the peak of CuPy's
    memory pool (bytes held when it ends; the pool keeps what it took), and the contract
    check ("ok" or the first broken promise)."""
    import cupy

    from .contract import check_routes
    from .generate import random_layout
    from .router import route

    lay = random_layout(side, side, density=0.25, nets=nets, pins=2, seed=seed, span=64)
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    start = time.perf_counter()
    res = route(lay, backend="gpu", mode="negotiate")
    took = time.perf_counter() - start
    peak = pool.total_bytes()
    problems = check_routes(lay, res.to_json())
    return took, res.routed, peak, f"{lay.name}: {problems[0]}" if problems else "ok"


def big_targets(side: int, nets: int, seed: int = 1) -> list[Target]:
    """:func:`negotiate_big`'s run as targets: time, memory, and the contract."""
    took, routed, peak, legal = negotiate_big(side, nets, seed)
    case = f"rects {side}^2 {nets} nets s{seed} [gpu]"
    return [Target("n-big-seconds", f"GPU negotiation, {case}",
                   f"{_secs(took)}, {routed} of {nets} routed", f"< {BIG_SECONDS:g} s",
                   _met(took, BIG_SECONDS), took),
            Target("n-big-memory", f"CuPy pool peak, {case}", f"{peak / 2**20:.0f} MiB",
                   f"< {BIG_MEMORY / 2**30:g} GiB", _met(peak, BIG_MEMORY), peak),
            Target("n-legal", f"contract check, {case}", legal, "ok",
                   "yes" if legal == "ok" else "no (WRONG)")]


def negotiate_suite(seed: int = 1, puzzles_dir: str | Path | None = None,
                    layouts: Sequence[tuple[int, int]] = NEGOTIATE_LAYOUTS,
                    puzzles: Sequence[tuple[str, int]] = NEGOTIATE_PUZZLES,
                    backends: Sequence[str] | None = None,
                    log: Callable[[str], None] | None = None,
                    big: tuple[int, int] | None = NEGOTIATE_BIG
                    ) -> tuple[list[Target], list[NegotiateRow]]:
    """Issue 13's targets: the rows of every case and backend, and the targets (quality
    everywhere; speed where a GPU runs: :func:`speed_targets`, and ``big`` on the GPU
    alone, :func:`big_targets`)."""
    from .generate import random_layout
    from .readers import read_numberlink

    log = log or (lambda s: None)
    backends = list(backends or negotiate_backends())
    folder = Path(puzzles_dir) if puzzles_dir is not None else PUZZLES_DIR
    _warm_negotiation(backends)
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
    targets += speed_targets(rows)
    if big is not None and "gpu" in backends:
        log(f"negotiate: rects {big[0]}^2, {big[1]} nets, gpu")
        targets += big_targets(*big, seed=seed)
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


# -- the classes suite (issue 14) --------------------------------------------------------
#: Layout classes of the classes suite (names :func:`~mazeroute.generate.class_mask`
#: knows), each at every side of ``--sizes``; those of :data:`BIG_CLASSES` also at
#: ``--big``. Every Moving AI map of ``--maps`` joins them, at its own size and tiled
#: :data:`MAP_TILES` x :data:`MAP_TILES` (:func:`~mazeroute.generate.tile_mask`: mirrored
#: copies whose free regions join, so the wavefront crosses every copy).
CLASS_SUITE = ("serpentine:1", "serpentine:2", "serpentine:4", "serpentine:8",
               "spiral:1", "spiral:2", "spiral:4", "maze:0", "maze:0.002", "maze:0.02",
               "maze:0.2", "wired:1", "wired:1.5", "dense:0.5", "open:0.25")
BIG_CLASSES = ("open:0.25",)
CLASS_SIZES = (1024, 2048)
BIG_SIZE = 4096
MAP_TILES = 4
#: Issue 14's goals for the classes and routing tables.
CLASS_GOALS = {
    "gpu_cells": 1_000_000,     # from this many free cells on, the GPU engine takes ...
    "gpu_vs_cpu": 1.0,          # ... at most this times the CPU engine's time
    "auto_vs_best": 1.2,        # auto (its decision included) / the faster engine
    "open_big_s": 1.5e-3,       # the open layout at --big, GPU wavefront alone (an H200)
}
ROUTING_SEEDS = 5
#: Runs of each backend per routing seed (a seed's time is their median).
ROUTING_REPEATS = 3
NA = float("nan")


@dataclass
class ClassRow:
    """One layout of the classes table (and of ``classes.csv``). Times in seconds,
    medians; NaN where not measured (no GPU, or the engine failed)."""

    layout: str
    size: str
    cells: int                 # free cells
    reached: int               # cells the wavefront reaches
    levels: int                # levels of the CPU engine's wavefront
    corridor: float            # auto's sampled features (mazeroute.engines.auto)
    wall: float
    euler: float
    loops: float               # independent cycles per free cell (full count)
    cpu_s: float               # cpu/grid wavefront, levels left in place
    gpu_s: float               # gpu/grid wavefront, levels left on the device
    gpu_read_s: float          # the same and the levels read back to the host
    auto_s: float              # auto's decision + the picked engine's wavefront
    decide_s: float            # the decision alone (part of auto_s)
    auto_pick: str
    best: str                  # the faster of cpu/grid and gpu/grid (valid levels only)
    auto_vs_best: float
    runs: int                  # timed runs of the CPU engine (each column stops alike)
    check: str                 # ok (CPU and GPU levels equal), WRONG, ERROR, - (no GPU)
    note: str = ""
    # a first wavefront on a layout: the problem built (remembered counts dropped), one
    # wavefront, levels left in place; auto's with its decision
    cpu_first_s: float = NA
    gpu_first_s: float = NA
    auto_first_s: float = NA
    first_best: str = ""
    first_auto_vs_best: float = NA


def _time_runs(run: Callable[[], object], repeats: int, max_seconds: float,
               device: bool) -> tuple[list[float], object]:
    """Times of ``run()`` (:func:`_repeat`), each ending with a device synchronisation,
    and its last result."""
    backend = "gpu" if device else "cpu"
    _sync(backend)                 # nothing earlier is still running on the device
    last: list = [None]

    def once():
        last[0] = run()
        _sync(backend)

    return _repeat(once, repeats, max_seconds), last[0]


def _median(times: Sequence[float]) -> float:
    return statistics.median(times) if times else NA


def measure_class(name: str, free: np.ndarray, repeats: int = DEFAULT_REPEATS,
                  max_seconds: float = DEFAULT_MAX_SECONDS) -> ClassRow:
    """One row of the classes table: the whole wavefront from :func:`corner_source` on
    the CPU engine, on the GPU engine (without and with the levels read back), and
    under ``auto`` with its decision inside the timed region.

    Every engine's problem is built and warmed up (compilation, first-touch allocation)
    before its timing, as in the table suite. An ``auto`` run is timed from the
    decision (:func:`~mazeroute.engines.resolve` on the graph, as ``make_problem`` and
    ``bfs`` ask it; its remembered cycle count is dropped first, untimed, so every run
    decides as on a layout it has not seen) through the picked engine's wavefront.
    """
    from .engines.auto import cycle_rank, forget, grid_features

    graph = GridGraph(free)
    cells = int(np.count_nonzero(free))
    src = np.array([corner_source(free)], dtype=np.int64)
    f = grid_features(free)
    loops = cycle_rank(free) / max(1, cells)
    gpu = gpu_available()
    row = ClassRow(name, f"{free.shape[1]}x{free.shape[0]}", cells, 0, 0, f["corridor"],
                   f["wall"], f["euler"], loops, NA, NA, NA, NA, NA, "", "", NA, 0,
                   "-" if not gpu else "ok")
    notes: list[str] = []
    problems: dict[tuple[str, str], object] = {}
    try:
        cpu = make_problem(graph, "cpu")
        problems[cpu.name] = cpu
        cpu.wavefront(src)
        times, wave = _time_runs(lambda: cpu.wavefront(src), repeats, max_seconds, False)
        row.cpu_s, row.runs, row.levels = _median(times), len(times), wave.num_levels
        ref = wave.levels()
        row.reached = int(np.count_nonzero(ref != UNREACHED))
        if gpu:
            try:
                dev = make_problem(graph, "gpu")
                problems[dev.name] = dev
                dev.wavefront(src)
                _sync("gpu")
                times, _ = _time_runs(lambda: dev.wavefront(src), repeats, max_seconds, True)
                row.gpu_s = _median(times)
                times, (num, levels) = _time_runs(
                    lambda: (lambda w: (w.num_levels, w.levels()))(dev.wavefront(src)),
                    repeats, max_seconds, True)
                row.gpu_read_s = _median(times)
                if num != row.levels or not np.array_equal(levels, ref):
                    row.check = "WRONG"
                    notes.append(_mismatch(levels.ravel(), ref.ravel(), num, row.levels))
            except Exception as e:      # a failing GPU engine is a row, not a crash
                row.check, row.gpu_s, row.gpu_read_s = "ERROR", NA, NA
                notes.append(f"gpu: {_error(e)}")
        decided, total = [], []
        forget()
        resolve("auto", None, graph)            # warm-up of the decision's compiled parts
        for _ in range(repeats):
            forget()
            _sync("gpu" if gpu else "cpu")
            start = time.perf_counter()
            spec, _ = resolve("auto", None, graph)
            mid = time.perf_counter()
            key = (spec.backend, spec.strategy)
            row.auto_pick = engine_name(key)
            if key not in problems:
                notes.append(f"auto picked {row.auto_pick}, which did not run here")
                break
            problems[key].wavefront(src)
            _sync(spec.backend)     # a CPU pick leaves nothing on the device to wait for
            total.append(time.perf_counter() - start)
            decided.append(mid - start)
            if sum(total) >= max_seconds:
                break
        row.auto_s, row.decide_s = _median(total), _median(decided)
        valid = {"cpu/grid": row.cpu_s}
        if row.check == "ok":
            valid["gpu/grid"] = row.gpu_s
        row.best = min(valid, key=valid.get)
        row.auto_vs_best = row.auto_s / valid[row.best]
        problems.clear()
        backends = ["cpu", "gpu", "auto"] if row.check == "ok" else ["cpu", "auto"]
        firsts = _first_wavefronts(graph, src, backends, repeats, max_seconds)
        first = {f"{b}/grid": firsts[b] for b in backends if b != "auto"}
        row.cpu_first_s, row.auto_first_s = firsts["cpu"], firsts["auto"]
        if "gpu" in firsts:
            row.gpu_first_s = firsts["gpu"]
        row.first_best = min(first, key=first.get)
        row.first_auto_vs_best = row.auto_first_s / first[row.first_best]
    finally:
        problems.clear()
        forget()
        _release("gpu" if gpu else "cpu")
    row.note = "; ".join(notes)
    return row


def turns(backends: Sequence[str], repeats: int) -> list[str]:
    """The order in which backends compared with one another run: every backend at
    least ``repeats`` times, each run after each backend (itself included) equally
    often. The first entry is a run that only goes before the second (not timed).

    A run's time depends on the run before it: a first CPU wavefront is slower right
    after a GPU run, a first GPU wavefront faster (benchmarks/RESULTS.md, issue 14,
    tenth session of 2026-11-26: "The run before a first wavefront"). Rounds that
    rotate their first backend gave one backend the same predecessor in most of its
    runs; here each ordered pair of backends occurs once a cycle (a de Bruijn sequence
    of order 2), and the cycles repeat until each backend has ``repeats`` runs.

    >>> turns(["cpu", "gpu"], 2)
    ['gpu', 'cpu', 'cpu', 'gpu', 'gpu']
    >>> from collections import Counter
    >>> order = turns(["cpu", "gpu", "auto"], 5)
    >>> Counter(zip(order, order[1:])) == Counter({(a, b): 2 for a in "cpu gpu auto".split()
    ...                                            for b in "cpu gpu auto".split()})
    True
    """
    n = len(backends)
    word: list[int] = []
    a = [0] * 3

    def lyndon(t: int, p: int) -> None:      # the standard construction, alphabet n, order 2
        if t > 2:
            if 2 % p == 0:
                word.extend(a[1:p + 1])
            return
        a[t] = a[t - p]
        lyndon(t + 1, p)
        for j in range(a[t - p] + 1, n):
            a[t] = j
            lyndon(t + 1, t)

    lyndon(1, 1)
    cycles = -(-max(repeats, 1) // n)
    seq = word * cycles
    return [backends[i] for i in [seq[-1]] + seq]


def first_wavefront(graph: GridGraph, src: np.ndarray, backend: str,
                    gpu: bool | None = None) -> float:
    """Seconds of one first wavefront on a layout the process has not seen: the problem
    built (``auto``: decided first, its remembered facts of masks dropped) and one
    wavefront from ``src``, the picked engine's device synchronised (``gpu``: whether a
    device is there, asked when None)."""
    gpu = gpu_available() if gpu is None else gpu
    _sync("gpu" if gpu else "cpu")               # nothing queued before the start
    forget()
    start = time.perf_counter()
    problem = make_problem(graph, backend)
    problem.wavefront(src)
    # the picked engine's device only: auto's CPU pick has nothing queued there
    _sync(problem.name[0])
    return time.perf_counter() - start


def _first_wavefronts(graph: GridGraph, src: np.ndarray, backends: list[str], repeats: int,
                      max_seconds: float) -> dict[str, float]:
    """Median times, by backend, of what a user waits for on a layout the process has
    not seen: the problem built (``auto``: decided first) and one wavefront, device
    synchronised; remembered facts of the mask dropped before each run.

    The backends take turns (:func:`turns`: each after each equally often): they are
    compared with one another, and a host's drift over the rows' seconds (clock, other
    work) then weighs on each alike. ``max_seconds`` bounds each backend's runs.
    """
    gpu = gpu_available()

    def once(backend: str) -> float:
        return first_wavefront(graph, src, backend, gpu)

    times: dict[str, list[float]] = {b: [] for b in backends}
    for b in backends:
        once(b)                                  # warm-up: compiled parts, allocations
    order = turns(backends, repeats)
    once(order[0])                               # only the first timed run's predecessor
    for b in order[1:]:
        if not times[b] or sum(times[b]) < max_seconds:
            times[b].append(once(b))
    forget()
    return {b: _median(t) for b, t in times.items()}


def parse_class_names(text: str | None, maps_dir: str | Path | None = None
                      ) -> tuple[list[str], list[Path]]:
    """``--classes`` of the classes suite: class names, ``synthetic`` (every class of
    :data:`CLASS_SUITE`), ``maps`` (every ``.map`` file of the maps folder), a map's
    name, ``all`` (the default: both; no maps when their folder is missing) or ``none``
    (no wavefront rows)."""
    folder = Path(maps_dir or MAPS_DIR)
    every_map = sorted(folder.glob("*.map")) if folder.is_dir() else []
    if text is None or text.strip() == "all":
        return list(CLASS_SUITE), every_map
    if text.strip() == "none":                 # the routing table alone
        return [], []
    names: list[str] = []
    maps: list[Path] = []
    for item in (s.strip() for s in text.split(",")):
        if item in ("synthetic", "maps"):
            new_names, new_maps = (list(CLASS_SUITE), []) if item == "synthetic" else (
                [], every_map)
        elif (folder / f"{item}.map").is_file():
            new_names, new_maps = [], [folder / f"{item}.map"]
        else:
            try:
                parse_class(item)
            except InputError as e:
                raise InputError(f"{e.message}; or synthetic, maps, all or a map of "
                                 f"{folder}", field="--classes") from None
            new_names, new_maps = [item], []
        names += [n for n in new_names if n not in names]
        maps += [m for m in new_maps if m not in maps]
    return names, maps


def class_cases(names: Sequence[str], maps: Sequence[Path],
                sizes: Sequence[int] = CLASS_SIZES, big: int = BIG_SIZE, seed: int = 0
                ) -> list[tuple[str, Callable[[], np.ndarray]]]:
    """``(name, make)`` of every layout of the classes suite, in table order; ``make()``
    gives the free mask (layouts are made one at a time, when measured)."""
    out: list[tuple[str, Callable[[], np.ndarray]]] = []
    for size in sizes:
        out += [(n, lambda n=n, s=size: ~class_mask(n, s, seed)) for n in names]
    if big:
        out += [(n, lambda n=n: ~class_mask(n, big, seed)) for n in names if n in BIG_CLASSES]
    for path in maps:
        out.append((path.stem, lambda p=path: ~read_movingai(p).blocked))
        out.append((f"{path.stem}:x{MAP_TILES}",
                    lambda p=path: ~tile_mask(read_movingai(p).blocked, MAP_TILES)))
    return out


# routing layouts of issue 14's goals, for any side, net count, pins, span and seed
def _rects_routing(density: float) -> Callable[..., Layout]:
    def make(side: int, nets: int, pins: int, span: int | None, seed: int) -> Layout:
        return random_layout(side, side, density=density, nets=nets, pins=pins, seed=seed,
                             span=span)
    return make


def _maze_routing(loops: float) -> Callable[..., Layout]:
    def make(side: int, nets: int, pins: int, span: int | None, seed: int) -> Layout:
        blocked = class_mask(f"maze:{loops}", side, seed)
        layout = Layout(f"maze-{side}-{loops}-s{seed}", side, side, [], [], blocked)
        layout.nets = random_nets(blocked, nets, pins, np.random.default_rng(seed + 1),
                                  span=span)
        return layout
    return make


def _target_c_routing(side: int, nets: int, pins: int, span: int | None,
                      seed: int) -> Layout:
    return route_layout(side, nets, seed, span=span or 64)


@dataclass(frozen=True)
class RoutingCase:
    """A routing layout of issue 14's goals: ``make(side, nets, pins, span, seed)``
    builds it for a seed; :meth:`layout` shrinks it by ``scale`` for quick runs."""

    name: str
    what: str
    goal: float                # GPU speed-up over the CPU engine that the issue asks for
    side: int
    nets: int
    pins: int
    span: int | None           # None: pins anywhere on the grid
    make: Callable[..., Layout]

    def layout(self, seed: int, scale: float = 1.0) -> Layout:
        side = max(16, round(self.side * scale))
        nets = max(1, round(self.nets * scale * scale))
        span = None if self.span is None else max(4, round(self.span * scale))
        return self.make(side, nets, self.pins, span, seed)


ROUTING_CASES = (
    RoutingCase("multipin4_span64_1024", "300 four-pin nets (span 64), 15 % rectangles",
                5, 1024, 300, 4, 64, _rects_routing(0.15)),
    RoutingCase("anywhere_2048", "300 two-pin nets, pins anywhere, 25 % rectangles",
                5, 2048, 300, 2, None, _rects_routing(0.25)),
    RoutingCase("maze2pct_span200_1023", "200 two-pin nets (span 200), maze, 2 % of its "
                "walls removed", 5, 1023, 200, 2, 200, _maze_routing(0.02)),
    RoutingCase("maze20pct_span100_1023", "300 two-pin nets (span 100), maze, 20 % of its "
                "walls removed", 5, 1023, 300, 2, 100, _maze_routing(0.2)),
    RoutingCase("local1000_span64_1024", "1000 two-pin nets (span 64), 15 % rectangles "
                "(target c)", 20, 1024, 1000, 2, 64, _target_c_routing),
)


@dataclass
class RoutingRow:
    """One case of the routing table (and of ``routing.csv``): medians over the seeds."""

    case: str
    size: str
    nets: int
    pins: int
    seeds: str
    cpu_s: float               # Router(layout, "cpu").run(): built, every net routed
    gpu_s: float
    auto_s: float              # the same under auto: its routing decision included
    auto_engine: str           # the engines auto picked over the seeds
    speedup: float             # cpu_s / gpu_s
    goal: float                # the speed-up the issue asks for
    best: str
    auto_vs_best: float
    routed: int                # nets the CPU engine routed (median over the seeds)
    check: str                 # ok (every wire equal on every backend), WRONG, ERROR, -
    note: str = ""


def _warm_routing(backends: Sequence[str]) -> None:
    """Compile and warm every backend's routing paths on small layouts, untimed."""
    warm = [route_layout(48, 4, seed=1, span=20),
            random_layout(48, 48, density=0.15, nets=3, pins=3, seed=1, span=12),
            random_layout(64, 64, density=0.25, nets=4, pins=2, seed=2),
            # pins far apart: nets go alone, and are checked for pins apart first
            random_layout(700, 700, density=0.2, nets=12, pins=2, seed=3),
            # mazes with few and many loops, big enough for auto to count their cycles
            # (in parallel past auto.PARALLEL_CELLS): that decision's compiled code
            _maze_routing(0.005)(767, 4, 2, 40, 3), _maze_routing(0.2)(767, 4, 2, 40, 3)]
    for backend in backends:
        for layout in warm:
            Router(layout, backend).run()
        _sync(backend)


def _wires(result) -> list:
    return [(n.routed, n.cells) for n in result.nets]


def measure_routing(case: RoutingCase, seeds: Sequence[int], scale: float = 1.0,
                    log: Callable[[str], None] | None = None,
                    repeats: int = ROUTING_REPEATS) -> RoutingRow:
    """Sequential routing of ``case`` on the CPU engine, the GPU engine and under
    ``auto`` for each seed: wall time of building the router (auto decides there) and
    routing every net, the device synchronised. Each seed runs at least ``repeats``
    times, the backends taking turns (:func:`turns`); a seed's time is the median of
    its runs (a first use of a memory pool or of a kernel's variant lands in one run,
    not in the figure), and a case's the median over the seeds."""
    from .engines.auto import forget

    log = log or (lambda s: None)
    gpu = gpu_available()
    backends = ("cpu", "gpu", "auto") if gpu else ("cpu", "auto")
    times: dict[str, list[float]] = {b: [] for b in backends}
    engines: set[str] = set()
    routed: list[int] = []
    check, notes = ("ok" if gpu else "-"), []
    layout = None
    for seed in seeds:
        layout = case.layout(seed, scale)
        runs: dict[str, list[float]] = {b: [] for b in backends}
        failed: set[str] = set()
        ref = None
        order = turns(backends, repeats)
        for k, backend in enumerate(order):
            if backend in failed:
                continue
            if backend == "auto":
                forget()                    # decide as on a layout never seen
            try:
                _sync("gpu" if gpu else "cpu")
                start = time.perf_counter()
                result = Router(layout, backend).run()
                _sync(result.engine.split("/")[0])     # the backend that routed
                if k:                       # the first run only goes before the second
                    runs[backend].append(time.perf_counter() - start)
            except Exception as e:          # a failing backend is a note, not a crash
                check = "ERROR"
                failed.add(backend)
                notes.append(f"{backend}, seed {seed}: {_error(e)}")
                continue
            if backend == "auto":
                engines.add(result.engine)
            if backend == "cpu":
                if ref is None:
                    ref = _wires(result)
                    routed.append(result.routed)
            elif ref is not None and _wires(result) != ref and check != "WRONG":
                check = "WRONG"
                notes.append(f"{backend}, seed {seed}: wires differ from the CPU's")
            result = None
        for backend in backends:
            if runs[backend] and backend not in failed:
                times[backend].append(statistics.median(runs[backend]))
        _release("gpu" if gpu else "cpu")
        log(f"routing {case.name} seed {seed}: " + ", ".join(
            f"{b} {times[b][-1]:.3g} s (runs " + " ".join(f"{t:.3g}" for t in runs[b]) + ")"
            for b in backends if b not in failed and runs[b]))
    t = {b: _median(times[b]) for b in backends}
    t_gpu = t.get("gpu", NA)
    valid = {"cpu/grid": t["cpu"]}
    if gpu and check == "ok":
        valid["gpu/grid"] = t_gpu
    best = min(valid, key=valid.get)
    return RoutingRow(case.name, f"{layout.width}x{layout.height}", len(layout.nets),
                      case.pins, f"{seeds[0]}-{seeds[-1]}", t["cpu"], t_gpu, t["auto"],
                      ", ".join(sorted(engines)), t["cpu"] / t_gpu, case.goal, best,
                      t["auto"] / valid[best],
                      int(statistics.median(routed)) if routed else 0, check,
                      "; ".join(notes))


def classes_goals(rows: Sequence[ClassRow], routing: Sequence[RoutingRow],
                  big: int = BIG_SIZE) -> list[Target]:
    """Issue 14's goals over the measured rows, one target each (failing rows named)."""
    out: list[Target] = []
    goal_gpu = f"<= {CLASS_GOALS['gpu_vs_cpu']:g}x CPU's time"
    large = [r for r in rows if r.cells >= CLASS_GOALS["gpu_cells"]]
    what = f"GPU engine vs CPU engine, layouts of >= {CLASS_GOALS['gpu_cells']:,} free cells"
    measured = [r for r in large if r.check == "ok"]
    if not measured:
        out.append(_skip("w-gpu", what, goal_gpu, "no GPU, or no layout that large"
                         if large else "no layout that large"))
    else:
        bad = [r for r in measured if r.gpu_s > CLASS_GOALS["gpu_vs_cpu"] * r.cpu_s]
        out.append(Target("w-gpu", what, f"met on {len(measured) - len(bad)} of "
                          f"{len(measured)} rows", goal_gpu, "yes" if not bad else "no",
                          len(bad), "slower: " + ", ".join(
                              f"{r.layout} {r.size} ({r.gpu_s / r.cpu_s:.2f}x)" for r in bad)
                          if bad else ""))
    # auto has a choice only where the GPU ran (without one it is the CPU engine)
    timed = [r for r in rows if r.auto_vs_best == r.auto_vs_best and r.gpu_s == r.gpu_s]
    bound = CLASS_GOALS["auto_vs_best"]
    if not timed:
        out.append(_skip("w-auto", "auto (its decision included) vs the faster engine, "
                         "every layout", f"<= {bound:g}x best's time",
                         "no GPU: auto runs the CPU engine"))
    else:
        right = sum(r.auto_pick == r.best for r in timed)
        out.append(_within("w-auto", "auto (its decision included) vs the faster engine, "
                           "every layout", timed, bound, "rows", lambda r: r.auto_vs_best,
                           lambda r: f"{r.layout} {r.size} ({r.auto_vs_best:.2f}x, "
                                     f"{r.auto_pick})",
                           f"; picks the faster engine on {right}"))
    first = [r for r in timed if r.first_auto_vs_best == r.first_auto_vs_best]
    if first:
        out.append(_within("w-auto-1st", "first wavefront on a layout (problem built; "
                           "auto's decision included) under auto vs the faster engine", first,
                           bound, "rows", lambda r: r.first_auto_vs_best,
                           lambda r: f"{r.layout} {r.size} ({r.first_auto_vs_best:.2f}x)"))
    goal_big = f"<= {_ms(CLASS_GOALS['open_big_s'])} (on an H200)"
    for r in rows:
        if r.layout in BIG_CLASSES and r.size == f"{big}x{big}":
            what = f"GPU wavefront alone, {r.layout} {r.size}"
            if r.gpu_s == r.gpu_s:
                out.append(Target("w-big", what, _ms(r.gpu_s), goal_big,
                                  _met(r.gpu_s, CLASS_GOALS["open_big_s"],
                                       r.check == "WRONG"), r.gpu_s))
            else:
                out.append(_skip("w-big", what, goal_big, r.note or "no GPU"))
    for r in routing:
        what = f"routing {r.case} {r.size}, GPU speed-up over the CPU (seeds {r.seeds})"
        goal = f">= {r.goal:g}x"
        if r.speedup == r.speedup:
            out.append(Target("r-gpu", what, f"{r.speedup:.3g}x (CPU {r.cpu_s:.3g} s, GPU "
                              f"{r.gpu_s:.3g} s)", goal, "no (WRONG)" if r.check == "WRONG"
                              else ("yes" if r.speedup >= r.goal else "no"), r.speedup))
        else:
            out.append(_skip("r-gpu", what, goal, r.note or "no GPU"))
    timed_r = [r for r in routing if r.auto_vs_best == r.auto_vs_best and r.gpu_s == r.gpu_s]
    if timed_r:
        out.append(_within("r-auto", "routing under auto vs the faster backend", timed_r,
                           bound, "cases", lambda r: r.auto_vs_best,
                           lambda r: f"{r.case} ({r.auto_vs_best:.2f}x)"))
    return out


def _within(id_: str, what: str, rows: list, bound: float, unit: str, ratio, label,
            more: str = "") -> Target:
    """The target that ``ratio(r)`` stays at most ``bound`` on every one of ``rows``:
    how many it holds on (then ``more``), and ``label(r)`` of each row over it."""
    bad = [r for r in rows if ratio(r) > bound]
    return Target(id_, what, f"met on {len(rows) - len(bad)} of {len(rows)} {unit}{more}",
                  f"<= {bound:g}x best's time", "yes" if not bad else "no", len(bad),
                  "over: " + ", ".join(label(r) for r in bad) if bad else "")


def _fmt_ms(t: float) -> str:
    return "n/a" if t != t else f"{t * 1e3:.4g}"


def _fmt_s(t: float) -> str:
    return "n/a" if t != t else f"{t:.3g}"


def _fmt_x(t: float) -> str:
    return "n/a" if t != t else f"{t:.2f}"


def format_classes(rows: Sequence[ClassRow]) -> str:
    """The classes table as text."""
    header = ("class", "size", "free cells", "reached", "levels", "corridor", "wall", "euler",
              "loops/cell", "cpu ms", "gpu ms", "gpu+read ms", "auto ms", "decide ms",
              "auto picks", "best", "auto/best", "cpu 1st ms", "gpu 1st ms", "auto 1st ms",
              "1st best", "1st auto/best", "check")
    body = [(r.layout, r.size, str(r.cells), str(r.reached), str(r.levels), f"{r.corridor:.3f}",
             f"{r.wall:.3f}", f"{r.euler:.5f}", f"{r.loops:.5f}", _fmt_ms(r.cpu_s),
             _fmt_ms(r.gpu_s), _fmt_ms(r.gpu_read_s), _fmt_ms(r.auto_s),
             _fmt_ms(r.decide_s), r.auto_pick, r.best, _fmt_x(r.auto_vs_best),
             _fmt_ms(r.cpu_first_s), _fmt_ms(r.gpu_first_s), _fmt_ms(r.auto_first_s),
             r.first_best or "-", _fmt_x(r.first_auto_vs_best),
             r.check + (f" ({r.note})" if r.note else "")) for r in rows]
    return "\n".join(text_columns(header, body)) + "\n"


def format_routing(rows: Sequence[RoutingRow]) -> str:
    """The routing table as text."""
    header = ("case", "size", "nets", "pins", "seeds", "cpu s", "gpu s", "auto s",
              "auto's engine", "gpu speed-up", "goal", "best", "auto/best", "routed",
              "check")
    body = [(r.case, r.size, str(r.nets), str(r.pins), r.seeds, _fmt_s(r.cpu_s),
             _fmt_s(r.gpu_s), _fmt_s(r.auto_s), r.auto_engine or "-",
             "n/a" if r.speedup != r.speedup else f"{r.speedup:.3g}x", f">= {r.goal:g}x",
             r.best, _fmt_x(r.auto_vs_best), str(r.routed),
             r.check + (f" ({r.note})" if r.note else "")) for r in rows]
    return "\n".join(text_columns(header, body)) + "\n"


CLASSES_LEGEND = (
    "Whole wavefront from the first cell of the largest free region, medians. cpu, gpu: "
    "one Problem.wavefront() on a built, warmed-up problem (levels left where the engine "
    "keeps them); gpu+read: the same and levels() read back to the host; auto: "
    "resolve('auto') on the graph (its features; cycle memo dropped before each run) + "
    "the picked engine's wavefront; decide: that decision alone. best: the faster of "
    "cpu and gpu; auto/best = auto / best. 1st columns: a first wavefront on the layout, "
    "what a user of one wavefront waits for: make_problem (auto: its decision first; "
    "cycle memo dropped) + one wavefront, levels left in place, the engines taking "
    "turns run by run; 1st best and 1st auto/best compare those. A GPU engine's time, "
    "auto's with a GPU pick, ends with a device synchronisation. check: CPU and GPU "
    "levels equal.")
ROUTING_LEGEND = (
    "Sequential routing, Router(layout, backend).run() (router built, every net routed, "
    "the device synchronised when a GPU engine routed), each seed's time the median of "
    "its runs, medians over the seeds; under auto the router decides "
    "(auto.routing_prefers_cpu). gpu speed-up = cpu / gpu. check: every net's wire "
    "equal on every backend.")


def format_classes_report(rows: Sequence[ClassRow], routing: Sequence[RoutingRow],
                          targets: Sequence[Target] = ()) -> str:
    """Both tables, their legends, and the goals when given."""
    text = ""
    if rows:
        text += "## whole wavefront by layout class\n" + format_classes(rows)
        text += CLASSES_LEGEND + "\n"
    if routing:
        text += "\n## sequential routing\n" + format_routing(routing) + ROUTING_LEGEND + "\n"
    if targets:
        text += "\n## goals (issue 14)\n" + format_targets(targets)
    return text


def classes_suite(names: Sequence[str] = CLASS_SUITE, maps: Sequence[Path] = (),
                  sizes: Sequence[int] = CLASS_SIZES, big: int = BIG_SIZE, seed: int = 0,
                  repeats: int = DEFAULT_REPEATS, max_seconds: float = DEFAULT_MAX_SECONDS,
                  routing: Sequence[RoutingCase] = ROUTING_CASES,
                  seeds: int = ROUTING_SEEDS, scale: float = 1.0,
                  log: Callable[[str], None] | None = None,
                  on_row: Callable[[list[ClassRow], list[RoutingRow]], None] | None = None,
                  route_repeats: int = ROUTING_REPEATS
                  ) -> tuple[list[ClassRow], list[RoutingRow], list[Target]]:
    """Issue 14's tables: every layout class (see :func:`measure_class`), then every
    routing case over ``seeds`` seeds from ``seed`` (see :func:`measure_routing`), then
    the goals. ``on_row(classes, routing)`` is called after each row (to write partial
    results)."""
    log = log or (lambda s: None)
    rows: list[ClassRow] = []
    rrows: list[RoutingRow] = []
    for name, make in class_cases(names, maps, sizes, big, seed):
        start = time.perf_counter()
        try:
            free = make()
            made = time.perf_counter() - start
            rows.append(measure_class(name, free, repeats, max_seconds))
        except Exception as e:          # one failing layout is a row; the suite goes on
            rows.append(ClassRow(name, "?", cells=0, reached=0, levels=0, corridor=NA,
                                 wall=NA, euler=NA, loops=NA, cpu_s=NA, gpu_s=NA,
                                 gpu_read_s=NA, auto_s=NA, decide_s=NA, auto_pick="",
                                 best="", auto_vs_best=NA, runs=0, check="ERROR",
                                 note=_error(e)))
            log(f"{name}: ERROR {rows[-1].note}")
        else:
            r = rows[-1]
            log(f"{r.layout} {r.size} (made in {made:.2g} s): cpu {_fmt_ms(r.cpu_s)} ms, gpu "
                f"{_fmt_ms(r.gpu_s)} ms, auto {_fmt_ms(r.auto_s)} ms -> {r.auto_pick}, "
                f"{r.check}")
        free = None
        if on_row:
            on_row(rows, rrows)
    if routing:
        _warm_routing(("cpu", "gpu", "auto") if gpu_available() else ("cpu",))
        seed_list = list(range(seed, seed + seeds))
        for case in routing:
            try:
                rrows.append(measure_routing(case, seed_list, scale, log, route_repeats))
            except Exception as e:
                rrows.append(RoutingRow(
                    case.name, "?", case.nets, case.pins, f"{seed_list[0]}-{seed_list[-1]}",
                    cpu_s=NA, gpu_s=NA, auto_s=NA, auto_engine="", speedup=NA,
                    goal=case.goal, best="", auto_vs_best=NA, routed=0, check="ERROR",
                    note=_error(e)))
                log(f"routing {case.name}: ERROR {rrows[-1].note}")
            if on_row:
                on_row(rows, rrows)
    return rows, rrows, classes_goals(rows, rrows, big)


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
                             "routing on the issue-13 layouts and numberlink puzzles; "
                             "classes: CPU, GPU and auto on issue 14's layout classes, "
                             "and sequential routing on its routing cases")
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
                             + ", synthetic, maps or all (default: all); in the classes "
                             "suite: names of generate.class_mask (family or family:value, "
                             "e.g. maze:0.02, spiral:4; default: "
                             + ", ".join(CLASS_SUITE) + "), synthetic (those), maps "
                             "(every .map of --maps, own size and tiled "
                             f"{MAP_TILES}x{MAP_TILES}), a map's name, all or none")
    parser.add_argument("--sizes", metavar="LIST",
                        default=",".join(map(str, CLASS_SIZES)),
                        help="classes suite: comma list of layout sides (default: "
                             + ",".join(map(str, CLASS_SIZES)) + ")")
    parser.add_argument("--big", type=int, default=BIG_SIZE,
                        help=f"classes suite: side at which {', '.join(BIG_CLASSES)} also "
                             f"runs (default: {BIG_SIZE}; 0: not)")
    parser.add_argument("--routing", metavar="LIST",
                        help="classes suite: comma list of routing cases ("
                             + ", ".join(c.name for c in ROUTING_CASES) + "), all (the "
                             "default) or none")
    parser.add_argument("--seeds", type=int, default=ROUTING_SEEDS,
                        help="classes suite: routing seeds, from --seed on (default: "
                             f"{ROUTING_SEEDS}; medians over them)")
    parser.add_argument("--route-repeats", type=int, default=ROUTING_REPEATS,
                        help="classes suite: runs of each backend per routing seed, the "
                             f"backends taking turns; the median counts (default: "
                             f"{ROUTING_REPEATS})")
    parser.add_argument("--route-scale", type=float, default=1.0,
                        help="classes suite: shrink the routing cases' sides and spans by "
                             "this factor and their net counts by its square (for a quick "
                             "run; default: 1)")
    parser.add_argument("--log", metavar="FILE",
                        help="also write the report to FILE (the classes suite rewrites "
                             "it after every row, so an interrupted run keeps its rows)")
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
                             "cpu.csv (suites), classes.csv, routing.csv and "
                             "classes_goals.csv (classes suite) into DIR")
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
    if args.seed < 0:
        raise InputError(f"must be >= 0, got {args.seed}", field="--seed")
    if not args.max_seconds > 0:
        raise InputError(f"must be positive, got {args.max_seconds}", field="--max-seconds")
    if args.maps is not None and not Path(args.maps).is_dir():
        raise InputError(f"no such folder: {args.maps}", field="--maps")
    puzzles = getattr(args, "puzzles", None)
    if puzzles is not None and not Path(puzzles).is_dir():
        raise InputError(f"no such folder: {puzzles}", field="--puzzles")
    # the classes suite's options, checked whichever suite runs (a bad value is a typo
    # the user should hear of, even where the suite ignores it)
    sizes = _sizes(args.sizes)
    if not (args.big == 0 or 8 <= args.big <= MAX_SIZE):
        raise InputError(f"must be 0 or between 8 and {MAX_SIZE}, got {args.big}",
                         field="--big")
    if args.seeds < 1:
        raise InputError(f"must be at least 1, got {args.seeds}", field="--seeds")
    if args.route_repeats < 1:
        raise InputError(f"must be at least 1, got {args.route_repeats}",
                         field="--route-repeats")
    if not 0 < args.route_scale <= 1:
        raise InputError(f"must be in (0, 1], got {args.route_scale}",
                         field="--route-scale")
    if args.suite == "classes":
        args.sizes = sizes
    # where the results go, checked before the benchmark runs (it may take an hour)
    if getattr(args, "out", None):
        check_output_folder(args.out)
    log_file = getattr(args, "log", None)
    if log_file is not None:
        check_output_file(log_file)


def _sizes(text: str) -> list[int]:
    """``--sizes``: comma-separated sides, each between 8 and :data:`MAX_SIZE`."""
    try:
        sizes = [int(t) for t in str(text).split(",") if t.strip()]
    except ValueError:
        raise InputError(f"must be comma-separated integers, got {text!r}",
                         field="--sizes") from None
    if not sizes or not all(8 <= n <= MAX_SIZE for n in sizes):
        raise InputError(f"each must be between 8 and {MAX_SIZE}, got {text!r}",
                         field="--sizes")
    return sizes


def parse_routing(text: str | None) -> list[RoutingCase]:
    """``--routing``: routing case names, ``all`` (the default) or ``none``."""
    if text is None or text.strip() == "all":
        return list(ROUTING_CASES)
    if text.strip() == "none":
        return []
    by = {c.name: c for c in ROUTING_CASES}
    out: list[RoutingCase] = []
    for item in (s.strip() for s in text.split(",")):
        if item not in by:
            raise InputError(f"unknown routing case {item!r}; choose from all, none, "
                             + ", ".join(by), field="--routing")
        if by[item] not in out:
            out.append(by[item])
    return out


def run(args: argparse.Namespace) -> int:
    """Run the chosen suite, print its table, write the files; return the exit status.

    Status 1 when some engine's levels are wrong (or, with ``--strict``, a target is
    not met), else 0.
    """
    _check_args(args)
    classes_suite_run = args.suite == "classes"
    engines = parse_engines(None if classes_suite_run else args.engines)
    if classes_suite_run:
        names, maps = parse_class_names(args.classes, args.maps)
        cases = parse_routing(args.routing)
    else:
        classes = parse_classes(args.classes, args.maps)
    out = Path(args.out) if args.out else None
    quiet = getattr(args, "quiet", False)
    log_file = getattr(args, "log", None)
    printed: list[str] = []

    def log(msg: str) -> None:
        if not quiet:
            print(f"bench: {msg}", file=sys.stderr, flush=True)

    def say(text: str = "", end: str = "\n") -> None:
        print(text, end=end, flush=True)
        printed.append(text + end)

    say(f"# mazeroute bench --suite {args.suite}: {machine()}")
    written: list[Path] = []
    status = 0
    if classes_suite_run:
        say(f"# sizes {', '.join(map(str, args.sizes))}"
            + (f" ({', '.join(BIG_CLASSES)} also at {args.big})" if args.big else "")
            + f", seed {args.seed}, repeats {args.repeats}, at most {args.max_seconds:g} s "
            f"a column; routing seeds {args.seed}-{args.seed + args.seeds - 1}, "
            f"{args.route_repeats} runs each, scale {args.route_scale:g}")
        head = "".join(printed)

        def partial(rows: list[ClassRow], rrows: list[RoutingRow]) -> None:
            if log_file:
                write_text(log_file, head + format_classes_report(rows, rrows))
            if out:
                write_csv(out / "classes.csv", rows)
                write_csv(out / "routing.csv", rrows)

        crows, rrows, targets = classes_suite(
            names, maps, args.sizes, args.big, args.seed, args.repeats, args.max_seconds,
            cases, args.seeds, args.route_scale, log, partial, args.route_repeats)
        say(format_classes_report(crows, rrows, targets), end="")
        wrong = any(r.check in ("WRONG", "ERROR") for r in [*crows, *rrows])
        unmet = any(t.met.startswith("no") for t in targets)
        status = int(wrong or (args.strict and unmet))
        if out:
            written += [out / "classes.csv", out / "routing.csv", out / "classes_goals.csv"]
            write_csv(written[0], crows)
            write_csv(written[1], rrows)
            write_csv(written[2], targets)
    elif args.suite == "table":
        say(f"# size {args.size}, seed {args.seed}, repeats {args.repeats}; engines: "
            + ", ".join(engine_name(k) for k in engines))
        rows = bench_table(classes, engines, args.size, args.repeats, args.seed, args.maps,
                           args.max_seconds, log)
        say(format_table(rows), end="")
        status = int(any(r.check in ("WRONG", "ERROR") for r in rows))
        if out:
            written += _write_table(out, rows, args)
    elif args.suite == "negotiate":
        targets, nrows = negotiate_suite(1 + args.seed, getattr(args, "puzzles", None),
                                         log=log)
        say(format_negotiate(nrows))
        say(format_targets(targets), end="")
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
            say(format_table(rows))
        say(format_targets(targets), end="")
        wrong = any("WRONG" in t.met or t.measured == "ERROR" for t in targets)
        wrong = wrong or any(r.check in ("WRONG", "ERROR") for r in rows)
        unmet = any(t.met.startswith("no") for t in targets)
        status = int(wrong or (args.strict and unmet))
        if out:
            written.append(out / f"{args.suite}.csv")
            write_csv(written[-1], targets)
            if rows:
                written += _write_table(out, rows, args)
    if written or log_file:
        say("wrote " + ", ".join(str(p) for p in [*written, *([log_file] if log_file else [])]))
    if log_file:
        write_text(log_file, "".join(printed))
    return status


def _write_table(out: Path, rows: list[Row], args) -> list[Path]:
    write_csv(out / "bench.csv", rows)
    title = (f"mazeroute bench, size {args.size}, median of up to {args.repeats} runs\n"
             f"{machine()}")
    write_chart(out / "bench.png", rows, title)
    return [out / "bench.csv", out / "bench.png"]


__all__ = ["add_arguments", "run", "bench_table", "bench_case", "cpu_suite", "targets_suite",
           "negotiate_suite", "negotiate_case", "format_negotiate", "NegotiateRow",
           "make_case", "Row", "Target", "format_table", "format_targets", "GOALS",
           "classes_suite", "measure_class", "measure_routing", "ClassRow", "RoutingRow",
           "RoutingCase", "ROUTING_CASES", "CLASS_SUITE", "CLASS_GOALS", "classes_goals",
           "format_classes_report"]
