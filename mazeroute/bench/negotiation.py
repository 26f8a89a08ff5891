"""The negotiate suite: negotiated congestion against sequential routing on rectangles
layouts and numberlink puzzles, per backend, and a big layout on a GPU alone.

Each layout or puzzle file runs once per backend (negotiation is deterministic); every
negotiated route goes through the contract check.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import engines
from ..layout import Layout
from .cases import NEGOTIATE_BIG, NEGOTIATE_LAYOUTS, NEGOTIATE_PUZZLES, PUZZLES_DIR


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


@dataclass
class BigRow:
    """The big layout negotiated on the GPU alone (and ``negotiate_big.csv``)."""

    case: str
    nets: int
    routed: int
    seconds: float
    pool_peak_bytes: int       # CuPy's memory pool when it ends (the pool keeps what it took)
    legal: str


def negotiate_backends() -> list[str]:
    """The backends whose weighted search runs here: the CPU, and the GPU if present."""
    return ["cpu"] + (["gpu"] if "gpu" in engines.NET_SEARCHES and engines.gpu_available()
                      else [])


def negotiate_case(name: str, layouts: Sequence[Layout], backend: str,
                   puzzles: bool = False) -> NegotiateRow:
    """Route ``layouts`` in both modes on ``backend``; one row for all of them."""
    from ..contract import check_routes
    from ..router import route
    from ..router.negotiate import sequential_routes

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


def warm_negotiation(backends: Sequence[str]) -> None:
    """Compile what negotiation runs (the searches, its bookkeeping, the space-filling
    search) before the first timed row, which would otherwise carry seconds of JIT."""
    from ..generate import random_layout
    from ..router import route
    from ..router.fill import fill_routes
    from ..router.pricing import COST_DTYPE, PARALLEL_PRICE_CELLS, price_cells

    small = random_layout(64, 64, density=0.25, nets=40, pins=2, seed=0, span=16)
    for backend in backends:
        route(small, backend=backend, mode="negotiate")
    fill_routes(np.ones((3, 3), bool), [np.array([[0, 0], [2, 0]]),
                                        np.array([[0, 1], [2, 1]]),
                                        np.array([[0, 2], [2, 2]])])
    # the pricing of many cells at once (every cell in use, when pres_fac changes) runs on
    # every core, a function the small layout above never reaches
    one = np.ones(1, np.int64)
    price_cells(np.zeros(PARALLEL_PRICE_CELLS, np.int64), one, one * 0, one * 0, 0,
                np.zeros(1, COST_DTYPE))


def negotiate_big(side: int, nets: int, seed: int = 1) -> BigRow:
    """The big layout negotiated on the GPU: seconds, nets routed, the peak of CuPy's
    memory pool, and the contract check ("ok" or the first broken promise)."""
    import cupy

    from ..contract import check_routes
    from ..generate import random_layout
    from ..router import route

    lay = random_layout(side, side, density=0.25, nets=nets, pins=2, seed=seed, span=64)
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    start = time.perf_counter()
    res = route(lay, backend="gpu", mode="negotiate")
    took = time.perf_counter() - start
    peak = pool.total_bytes()
    problems = check_routes(lay, res.to_json())
    return BigRow(f"rects {side}^2 {nets} nets s{seed} [gpu]", nets, res.routed, took, peak,
                  f"{lay.name}: {problems[0]}" if problems else "ok")


def negotiate_suite(seed: int = 1, puzzles_dir: str | Path | None = None,
                    layouts: Sequence[tuple[int, int]] = NEGOTIATE_LAYOUTS,
                    puzzles: Sequence[str] = NEGOTIATE_PUZZLES,
                    backends: Sequence[str] | None = None,
                    log: Callable[[str], None] | None = None,
                    big: tuple[int, int] | None = NEGOTIATE_BIG
                    ) -> tuple[list[BigRow], list[NegotiateRow]]:
    """Every layout and puzzle file on every backend, and ``big`` on the GPU alone
    (where one runs): the big layout's rows, and the others'.

    Parameters
    ----------
    seed : seed of the rectangles layouts.
    puzzles_dir : folder of the puzzle files (default :data:`~.cases.PUZZLES_DIR`); a
        missing file is skipped with a log line.
    layouts : ``(side, nets)`` of the rectangles layouts (25 % blocked, span 64).
    puzzles : puzzle file names.
    backends : default :func:`negotiate_backends`.
    log : progress lines.
    big : ``(side, nets)`` of the GPU's big layout, or None.
    """
    from ..generate import random_layout
    from ..readers import read_numberlink

    log = log or (lambda s: None)
    backends = list(backends or negotiate_backends())
    folder = Path(puzzles_dir) if puzzles_dir is not None else PUZZLES_DIR
    warm_negotiation(backends)
    rows: list[NegotiateRow] = []
    for side, n in layouts:
        lay = random_layout(side, side, density=0.25, nets=n, pins=2, seed=seed, span=64)
        for backend in backends:
            log(f"negotiate: {lay.name}, {n} nets, {backend}")
            rows.append(negotiate_case(f"rects {side}^2 {n} nets s{seed}", [lay], backend))
    for file in puzzles:
        path = folder / file
        if not path.is_file():
            log(f"negotiate: {path} not found; skipped")
            continue
        lays = read_numberlink(path)
        for backend in backends:
            log(f"negotiate: {file}, {len(lays)} puzzles, {backend}")
            rows.append(negotiate_case(file, lays, backend, puzzles=True))
    bigs: list[BigRow] = []
    if big is not None and "gpu" in backends:
        log(f"negotiate: rects {big[0]}^2, {big[1]} nets, gpu")
        bigs.append(negotiate_big(*big, seed=seed))
    return bigs, rows
