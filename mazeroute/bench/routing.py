"""The routing suite: sequential routing of :data:`~.cases.ROUTING_CASES` on the CPU
engine, the GPU engine and under ``auto``, the backends taking turns, every wire checked
against the CPU's."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import engines
from ..generate import random_layout
from ..router import Router
from .cases import RoutingCase, _maze_routing, route_layout
from .measure import NA, error_note, median, release, sync, turns

ROUTING_SEEDS = 5
#: Runs of each backend per routing seed (a seed's time is their median).
ROUTING_REPEATS = 3


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
    best: str
    auto_vs_best: float
    routed: int                # nets the CPU engine routed (median over the seeds)
    check: str                 # ok (every wire equal on every backend), WRONG, ERROR, -
    note: str = ""


def error_row(case: RoutingCase, seeds: Sequence[int], note: str) -> RoutingRow:
    """The row of a case that could not be measured."""
    return RoutingRow(case.name, "?", case.nets, case.pins, f"{seeds[0]}-{seeds[-1]}",
                      cpu_s=NA, gpu_s=NA, auto_s=NA, auto_engine="", speedup=NA, best="",
                      auto_vs_best=NA, routed=0, check="ERROR", note=note)


def warm_routing(backends: Sequence[str]) -> None:
    """Compile and warm every backend's routing paths on small layouts, untimed."""
    warm = [route_layout(48, 4, seed=1, span=20),
            random_layout(48, 48, density=0.15, nets=3, pins=3, seed=1, span=12),
            random_layout(64, 64, density=0.25, nets=4, pins=2, seed=2),
            # pins far apart: nets go alone, and are checked for pins apart first
            random_layout(700, 700, density=0.2, nets=12, pins=2, seed=3),
            # mazes with few and many loops, big enough that the planner counts their
            # cycles in parallel: that decision's compiled code
            _maze_routing(0.005)(767, 4, 2, 40, 3), _maze_routing(0.2)(767, 4, 2, 40, 3)]
    for backend in backends:
        for layout in warm:
            Router(layout, backend).run()
        sync(backend)


def _wires(result) -> list:
    return [(n.routed, n.cells) for n in result.nets]


@dataclass
class _Tally:
    """What the seeds of one case gather."""

    times: dict[str, list[float]]
    engines: set[str]
    routed: list[int]
    check: str
    notes: list[str]


def _route_seed(layout, seed: int, backends: Sequence[str], repeats: int, gpu: bool,
                tally: _Tally) -> dict[str, list[float]]:
    """Every run of one seed, the backends taking turns; the runs' times by backend
    (a failing backend's dropped)."""
    runs: dict[str, list[float]] = {b: [] for b in backends}
    failed: set[str] = set()
    ref = None
    for k, backend in enumerate(turns(backends, repeats)):
        if backend in failed:
            continue
        try:
            sync("gpu" if gpu else "cpu")
            start = time.perf_counter()
            result = Router(layout, backend).run()
            sync(result.engine.split("/")[0])     # the backend that routed
            if k:                       # the first run only goes before the second
                runs[backend].append(time.perf_counter() - start)
        except Exception as e:          # a failing backend is a note, not a crash
            tally.check = "ERROR"
            failed.add(backend)
            tally.notes.append(f"{backend}, seed {seed}: {error_note(e)}")
            continue
        if backend == "auto":
            tally.engines.add(result.engine)
        if backend == "cpu":
            if ref is None:
                ref = _wires(result)
                tally.routed.append(result.routed)
        elif ref is not None and _wires(result) != ref and tally.check != "WRONG":
            tally.check = "WRONG"
            tally.notes.append(f"{backend}, seed {seed}: wires differ from the CPU's")
        result = None
    return {b: r for b, r in runs.items() if b not in failed}


def measure_routing(case: RoutingCase, seeds: Sequence[int], scale: float = 1.0,
                    log: Callable[[str], None] | None = None,
                    repeats: int = ROUTING_REPEATS) -> RoutingRow:
    """Sequential routing of ``case`` on the CPU engine, the GPU engine and under
    ``auto`` for each seed: wall time of building the router (auto decides there) and
    routing every net, the device synchronised. Each seed runs at least ``repeats``
    times, the backends taking turns (:func:`~.measure.turns`); a seed's time is the
    median of its runs (a first use of a memory pool or of a kernel's variant lands in
    one run, not in the figure), and a case's the median over the seeds."""
    log = log or (lambda s: None)
    gpu = engines.gpu_available()
    backends = ("cpu", "gpu", "auto") if gpu else ("cpu", "auto")
    tally = _Tally({b: [] for b in backends}, set(), [], "ok" if gpu else "-", [])
    layout = None
    for seed in seeds:
        layout = case.layout(seed, scale)
        runs = _route_seed(layout, seed, backends, repeats, gpu, tally)
        for backend, times in runs.items():
            if times:
                tally.times[backend].append(statistics.median(times))
        release("gpu" if gpu else "cpu")
        log(f"routing {case.name} seed {seed}: " + ", ".join(
            f"{b} {tally.times[b][-1]:.3g} s (runs " + " ".join(f"{t:.3g}" for t in r) + ")"
            for b, r in runs.items() if r))
    t = {b: median(tally.times[b]) for b in backends}
    t_gpu = t.get("gpu", NA)
    valid = {"cpu/grid": t["cpu"]}
    if gpu and tally.check == "ok":
        valid["gpu/grid"] = t_gpu
    best = min(valid, key=valid.get)
    return RoutingRow(case.name, f"{layout.width}x{layout.height}", len(layout.nets),
                      case.pins, f"{seeds[0]}-{seeds[-1]}", t["cpu"], t_gpu, t["auto"],
                      ", ".join(sorted(tally.engines)), t["cpu"] / t_gpu, best,
                      t["auto"] / valid[best],
                      int(statistics.median(tally.routed)) if tally.routed else 0,
                      tally.check, "; ".join(tally.notes))
