"""How the suites time things: repeated runs, device synchronisation, SciPy's BFS.

* Medians over ``--repeats`` runs; a cell stops repeating early once its timed runs pass
  ``--max-seconds``.
* GPU runs are bracketed by device synchronisations, so queued work is included; a
  finished GPU engine's memory goes back to the pool before the next one starts.
* SciPy's ``breadth_first_order`` gives a visiting order and predecessors, not levels;
  levels are derived from its output with a compiled O(n) pass (``level[v] =
  level[pred[v]] + 1`` in visiting order, valid because BFS order lists a parent before
  its children).

Examples
--------
>>> turns(["cpu", "gpu"], 2)
['gpu', 'cpu', 'cpu', 'gpu', 'gpu']
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numba
import numpy as np
import scipy
import scipy.sparse
from scipy.sparse.csgraph import breadth_first_order

from .. import engines
from ..errors import reraise_interrupt
from ..graph import GridGraph

DEFAULT_REPEATS = 5
DEFAULT_MAX_SECONDS = 10.0
NA = float("nan")


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
    """``graph``'s CSR as the SciPy matrix ``breadth_first_order`` takes without copying
    (float64 data, int32 indices; ``directed=True`` because the CSR already holds both
    directions of every edge)."""
    csr = graph.csr
    n = graph.num_vertices
    return scipy.sparse.csr_matrix((np.ones(csr.num_edges), csr.dst, csr.srcPtrs),
                                   shape=(n, n))


def scipy_levels(matrix, source: int) -> np.ndarray:
    """Levels of a full BFS from ``source`` by SciPy (``UNREACHED`` elsewhere)."""
    order, pred = breadth_first_order(matrix, source, directed=True,
                                      return_predecessors=True)
    return _levels_from_order(order, pred, matrix.shape[0])


def sync(backend: str) -> None:
    """Wait for the device's queued work (nothing to wait for on the CPU)."""
    if backend == "gpu":
        import cupy
        cupy.cuda.Device().synchronize()


def release(backend: str) -> None:
    """Give a finished GPU engine's memory back, so the next one starts from empty."""
    gc.collect()
    if backend == "gpu":
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()


def repeat(run: Callable[[], object], repeats: int, max_seconds: float) -> list[float]:
    """Times of up to ``repeats`` calls of ``run``, stopping once they pass
    ``max_seconds`` together."""
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        if sum(times) >= max_seconds:
            break
    return times


def time_runs(run: Callable[[], object], repeats: int, max_seconds: float,
              device: bool) -> tuple[list[float], object]:
    """Times of ``run()`` (:func:`repeat`), each ending with a device synchronisation,
    and its last result."""
    backend = "gpu" if device else "cpu"
    sync(backend)                  # nothing earlier is still running on the device
    last: list = [None]

    def once():
        last[0] = run()
        sync(backend)

    return repeat(once, repeats, max_seconds), last[0]


def median(times: Sequence[float]) -> float:
    """The median, NaN for no times."""
    return statistics.median(times) if times else NA


def time_engine(key: tuple[str, str], graph: GridGraph, source: int, repeats: int,
                max_seconds: float = DEFAULT_MAX_SECONDS) -> tuple[list[float], np.ndarray, int]:
    """Times of full wavefronts by engine ``key``; the last run's levels and level count.

    The problem is built beforehand and one untimed warm-up run absorbs compilation;
    levels stay where the engine keeps them (reading them back is not timed).
    """
    backend = key[0]
    problem = engines.make_problem(graph, *key)
    src = np.array([source], dtype=np.int64)
    last: list = []
    try:
        problem.wavefront(src)          # warm-up: compilation, first-touch allocations
        sync(backend)

        def once():
            sync(backend)
            wave = problem.wavefront(src)
            sync(backend)
            last[:] = [wave]

        times = repeat(once, repeats, max_seconds)
        return times, last[0].levels().ravel(), last[0].num_levels
    finally:
        last.clear()                    # the wavefront holds the problem: drop both
        problem = None
        release(backend)


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

    repeat(once, repeats, max_seconds)
    return bfo, derive, out[-1]


def turns(backends: Sequence[str], repeats: int) -> list[str]:
    """The order in which backends compared with one another run: every backend at
    least ``repeats`` times, each run after each backend (itself included) equally
    often. The first entry is a run that only goes before the second (not timed).

    A run's time depends on the run before it: a first CPU wavefront is slower right
    after a GPU run, a first GPU wavefront faster. Rounds that rotate their first
    backend gave one backend the same predecessor in most of its runs; here each
    ordered pair of backends occurs once a cycle (a de Bruijn sequence of order 2), and
    the cycles repeat until each backend has ``repeats`` runs.

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


def error_note(e: Exception) -> str:
    """A failure's one-line note for a row; an interrupt behind it is raised instead
    (the handlers that make rows of failures call this first)."""
    reraise_interrupt(e)
    return (f"{type(e).__name__}: {e}".splitlines() or [""])[0][:200]


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
    if engines.gpu_available():
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        parts.insert(1, f"GPU {name}")
        parts.append(f"cupy {cupy.__version__}")
    else:
        parts.insert(1, "no GPU")
    return "; ".join(parts)
