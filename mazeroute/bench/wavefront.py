"""The wavefront suites: every engine x layout class against SciPy and the CPU engine
(``table``, ``cpu``), and the CPU engine, the GPU engine and ``auto`` on the layout
classes (the wavefront half of ``classes``).

Engine time is one :meth:`Problem.wavefront` call from the layout's corner source
(:func:`~.cases.corner_source`): reset of the previous wavefront, seeding and the BFS, on a
problem built and warmed up beforehand. A broken engine is a row of the table (``WRONG``
or ``ERROR``), never hidden and never a crash.

Examples
--------
>>> rows = bench_table(["maze"], [("cpu", "grid"), ("cpu", "csr")], size=33, repeats=1)
>>> [(r.engine, r.check) for r in rows]     # doctest: +NORMALIZE_WHITESPACE
[('cpu/grid', 'ref'), ('scipy/bfo', '-'), ('scipy/bfo+levels', 'ok'), ('cpu/csr', 'ok')]
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import engines
from ..engines import ENGINES, UNREACHED
from ..errors import EngineUnavailable, InputError
from ..graph import GridGraph
from ..plan import make_plan
from ..plan.features import cycle_rank, grid_features
from .cases import DEFAULT_SIZE, Case, corner_source, make_case
from .measure import (
    DEFAULT_MAX_SECONDS,
    DEFAULT_REPEATS,
    NA,
    error_note,
    median,
    release,
    scipy_matrix,
    sync,
    time_engine,
    time_runs,
    time_scipy,
    turns,
)

#: The reference engine: every other engine's levels are compared with its levels.
REFERENCE = ("cpu", "grid")
SCIPY, SCIPY_TOTAL = "scipy/bfo", "scipy/bfo+levels"


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
    """``backend/strategy``."""
    return f"{key[0]}/{key[1]}"


def available_engines() -> list[tuple[str, str]]:
    """Every registered engine that runs here: the CPU ones, the GPU ones with a GPU."""
    gpu = engines.gpu_available()
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
    if any(k[0] == "gpu" for k in keys) and not engines.gpu_available():
        raise EngineUnavailable("--engines asks for GPU engines, and no CUDA device with "
                                "CuPy was found")
    return keys


def mismatch(levels, ref, num_levels, ref_levels) -> str:
    """The note of a row whose levels differ from the reference's."""
    bad = int(np.count_nonzero(levels != ref))
    return (f"{bad} cells differ from cpu/grid; {num_levels} levels reported "
            f"vs {ref_levels}")


def bench_case(case: Case, keys: Sequence[tuple[str, str]], repeats: int,
               max_seconds: float = DEFAULT_MAX_SECONDS,
               log: Callable[[str], None] | None = None) -> list[Row]:
    """Rows of one layout: ``cpu/grid`` (reference), SciPy, then each other engine.

    SciPy's ``breadth_first_order`` is timed alone (row ``scipy/bfo``) and with the level
    derivation (``scipy/bfo+levels``); every "vs SciPy" ratio uses the latter.
    """
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
    for key in keys:
        if key == REFERENCE:
            continue
        try:
            times, levels, num_levels = time_engine(key, graph, case.source, repeats,
                                                    max_seconds)
        except Exception as e:          # a broken engine is a row of the table, not a crash
            rows.append(row(engine_name(key), [], 0, "ERROR", error_note(e)))
            log(f"{case.name} {case.size}: {engine_name(key)} ERROR {rows[-1].note}")
            continue
        ok = np.array_equal(levels, ref) and num_levels == ref_levels
        rows.append(row(engine_name(key), times, num_levels, "ok" if ok else "WRONG",
                        "" if ok else mismatch(levels, ref, num_levels, ref_levels)))
        log(f"{case.name} {case.size}: {rows[-1].engine} {rows[-1].median_s * 1e3:.4g} ms "
            f"({rows[-1].runs} runs) {rows[-1].check}")
    return rows


def bench_table(classes: Sequence[str], keys: Sequence[tuple[str, str]] | None = None,
                size: int = DEFAULT_SIZE, repeats: int = DEFAULT_REPEATS, seed: int = 0,
                maps_dir: str | Path | None = None, max_seconds: float = DEFAULT_MAX_SECONDS,
                log: Callable[[str], None] | None = None) -> list[Row]:
    """The engine x layout class table: :func:`bench_case` of every class."""
    keys = available_engines() if keys is None else list(keys)
    rows: list[Row] = []
    for cls in classes:
        rows += bench_case(make_case(cls, size, seed, maps_dir), keys, repeats,
                           max_seconds, log)
    return rows


def cpu_suite(rect_size: int = 4096, maze_size: int = 1023, repeats: int = DEFAULT_REPEATS,
              seed: int = 0, max_seconds: float = DEFAULT_MAX_SECONDS,
              log: Callable[[str], None] | None = None) -> list[Row]:
    """Every CPU engine against SciPy (levels included) on a big rectangles layout and a
    perfect maze: the table's rows of those two layouts."""
    keys = [k for k in ENGINES if k[0] == "cpu"]
    rows: list[Row] = []
    for cls, size in (("open", rect_size), ("maze", maze_size)):
        rows += bench_case(make_case(cls, size, seed), keys, repeats, max_seconds, log)
    return rows


# -- the classes suite's wavefront rows ---------------------------------------------------
@dataclass
class ClassRow:
    """One layout of the classes table (and of ``classes.csv``). Times in seconds,
    medians; NaN where not measured (no GPU, or the engine failed)."""

    layout: str
    size: str
    cells: int                 # free cells
    reached: int               # cells the wavefront reaches
    levels: int                # levels of the CPU engine's wavefront
    corridor: float            # the planner's sampled features (mazeroute.plan.features)
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
    # a first wavefront on a layout: the problem built, one wavefront, levels left in
    # place; auto's with its decision
    cpu_first_s: float = NA
    gpu_first_s: float = NA
    auto_first_s: float = NA
    first_best: str = ""
    first_auto_vs_best: float = NA


def error_row(name: str, note: str) -> ClassRow:
    """The row of a layout that could not be made or measured."""
    return ClassRow(name, "?", cells=0, reached=0, levels=0, corridor=NA, wall=NA, euler=NA,
                    loops=NA, cpu_s=NA, gpu_s=NA, gpu_read_s=NA, auto_s=NA, decide_s=NA,
                    auto_pick="", best="", auto_vs_best=NA, runs=0, check="ERROR", note=note)


def _time_gpu(row: ClassRow, graph: GridGraph, src: np.ndarray, ref: np.ndarray,
              problems: dict, repeats: int, max_seconds: float, notes: list[str]) -> None:
    """The GPU engine's columns of ``row``, its levels checked against ``ref``."""
    try:
        dev = engines.make_problem(graph, "gpu")
        problems[dev.name] = dev
        dev.wavefront(src)
        sync("gpu")
        times, _ = time_runs(lambda: dev.wavefront(src), repeats, max_seconds, True)
        row.gpu_s = median(times)
        times, (num, levels) = time_runs(
            lambda: (lambda w: (w.num_levels, w.levels()))(dev.wavefront(src)),
            repeats, max_seconds, True)
        row.gpu_read_s = median(times)
        if num != row.levels or not np.array_equal(levels, ref):
            row.check = "WRONG"
            notes.append(mismatch(levels.ravel(), ref.ravel(), num, row.levels))
    except Exception as e:      # a failing GPU engine is a row, not a crash
        row.check, row.gpu_s, row.gpu_read_s = "ERROR", NA, NA
        notes.append(f"gpu: {error_note(e)}")


def _time_auto(row: ClassRow, graph: GridGraph, src: np.ndarray, problems: dict,
               repeats: int, max_seconds: float, gpu: bool, notes: list[str]) -> None:
    """``auto``'s columns of ``row``: each run plans afresh (the plan measures its own
    mask, so every run decides as on a layout it has not seen) and runs the picked
    engine's wavefront, the decision inside the timed region."""
    decided, total = [], []
    make_plan(graph, "auto")                # warm-up of the decision's compiled parts
    for _ in range(repeats):
        sync("gpu" if gpu else "cpu")
        start = time.perf_counter()
        plan = make_plan(graph, "auto")
        mid = time.perf_counter()
        key = (plan.backend, plan.strategy)
        row.auto_pick = engine_name(key)
        if key not in problems:
            notes.append(f"auto picked {row.auto_pick}, which did not run here")
            break
        problems[key].wavefront(src)
        sync(plan.backend)          # a CPU pick leaves nothing on the device to wait for
        total.append(time.perf_counter() - start)
        decided.append(mid - start)
        if sum(total) >= max_seconds:
            break
    row.auto_s, row.decide_s = median(total), median(decided)


def measure_class(name: str, free: np.ndarray, repeats: int = DEFAULT_REPEATS,
                  max_seconds: float = DEFAULT_MAX_SECONDS) -> ClassRow:
    """One row of the classes table: the whole wavefront from :func:`corner_source` on
    the CPU engine, on the GPU engine (without and with the levels read back), under
    ``auto`` with its decision (:func:`mazeroute.plan.make_plan` on the graph) inside the
    timed region, and a first wavefront on the layout by each.

    Every engine's problem is built and warmed up (compilation, first-touch allocation)
    before its timing, as in the table suite.
    """
    graph = GridGraph(free)
    cells = int(np.count_nonzero(free))
    src = np.array([corner_source(free)], dtype=np.int64)
    f = grid_features(free)
    loops = cycle_rank(free) / max(1, cells)
    gpu = engines.gpu_available()
    row = ClassRow(name, f"{free.shape[1]}x{free.shape[0]}", cells, 0, 0, f["corridor"],
                   f["wall"], f["euler"], loops, NA, NA, NA, NA, NA, "", "", NA, 0,
                   "-" if not gpu else "ok")
    notes: list[str] = []
    problems: dict[tuple[str, str], object] = {}
    try:
        cpu = engines.make_problem(graph, "cpu")
        problems[cpu.name] = cpu
        cpu.wavefront(src)
        times, wave = time_runs(lambda: cpu.wavefront(src), repeats, max_seconds, False)
        row.cpu_s, row.runs, row.levels = median(times), len(times), wave.num_levels
        ref = wave.levels()
        row.reached = int(np.count_nonzero(ref != UNREACHED))
        if gpu:
            _time_gpu(row, graph, src, ref, problems, repeats, max_seconds, notes)
        _time_auto(row, graph, src, problems, repeats, max_seconds, gpu, notes)
        valid = {"cpu/grid": row.cpu_s}
        if row.check == "ok":
            valid["gpu/grid"] = row.gpu_s
        row.best = min(valid, key=valid.get)
        row.auto_vs_best = row.auto_s / valid[row.best]
        problems.clear()
        backends = ["cpu", "gpu", "auto"] if row.check == "ok" else ["cpu", "auto"]
        firsts = first_wavefronts(graph, src, backends, repeats, max_seconds)
        first = {f"{b}/grid": firsts[b] for b in backends if b != "auto"}
        row.cpu_first_s, row.auto_first_s = firsts["cpu"], firsts["auto"]
        if "gpu" in firsts:
            row.gpu_first_s = firsts["gpu"]
        row.first_best = min(first, key=first.get)
        row.first_auto_vs_best = row.auto_first_s / first[row.first_best]
    finally:
        problems.clear()
        release("gpu" if gpu else "cpu")
    row.note = "; ".join(notes)
    return row


def first_wavefront(graph: GridGraph, src: np.ndarray, backend: str,
                    gpu: bool | None = None) -> float:
    """Seconds of one first wavefront on a layout: the problem built (``auto``: planned
    first) and one wavefront from ``src``, the picked engine's device synchronised
    (``gpu``: whether a device is there, asked when None)."""
    gpu = engines.gpu_available() if gpu is None else gpu
    sync("gpu" if gpu else "cpu")                # nothing queued before the start
    start = time.perf_counter()
    problem = engines.make_problem(graph, backend)
    problem.wavefront(src)
    # the picked engine's device only: auto's CPU pick has nothing queued there
    sync(problem.name[0])
    return time.perf_counter() - start


def first_wavefronts(graph: GridGraph, src: np.ndarray, backends: list[str], repeats: int,
                     max_seconds: float) -> dict[str, float]:
    """Median times, by backend, of what a user of one wavefront waits for: the problem
    built (``auto``: planned first) and one wavefront, device synchronised.

    The backends take turns (:func:`~.measure.turns`: each after each equally often):
    they are compared with one another, and a host's drift over the rows' seconds
    (clock, other work) then weighs on each alike. ``max_seconds`` bounds each
    backend's runs.
    """
    gpu = engines.gpu_available()

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
    return {b: median(t) for b, t in times.items()}
